/*
 * tree.cu -- the tree store's fold on the GPU: pair tables with find-or-put
 * by whole warps (kernels/tree_gpu.h describes the layout, the insert and
 * why it is exact; the device code is gpu_tree.cuh).
 *
 * Determinism: which vector of a duplicate group gets fresh = 1 and which
 * slot a pair lands in vary from run to run; the set of stored pairs, the
 * number of fresh vectors and the vector each root unfolds to do not.
 */
#include <cub/device/device_scan.cuh>

#include "../cuda_check.cuh"
#include "../tree_gpu.h"
#include "gpu_tree.cuh"

#include <stdlib.h>
#include <string.h>

struct tree_gpu {
    uint32_t words;
    struct tree_shape shape;
    uint64_t node_slots, root_slots;
    gpu_tree_dev dev;
    int *d_full;          /* 1: the node table filled up, 2: the root table */
    unsigned *d_ones;     /* the all-ones vector's root is taken (tree_gpu.h) */
};

namespace {

constexpr unsigned WARP = GPU_TREE_WARP;
constexpr unsigned FOLD_THREADS = 256;

/* One warp per vector, grid-stride. */
__global__ void tree_put_kernel(gpu_tree_dev t, const uint32_t *vecs, uint64_t n, uint32_t words, uint64_t *root_out,
                                uint8_t *fresh_out, unsigned *ones_claimed, int *full)
{
    const uint64_t warps = (uint64_t)gridDim.x * blockDim.x / WARP;
    const unsigned lane = threadIdx.x % WARP;
    for (uint64_t i = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / WARP; i < n; i += warps) {
        unsigned long long pair;
        if (!gpu_tree_fold(t, vecs + i * words, &pair)) {
            if (lane == 0)
                atomicMax(full, 1);
            continue;
        }
        uint64_t r;
        bool fresh = false;
        if (pair == TREE_GPU_EMPTY) {
            unsigned won = 0;
            if (lane == 0)
                won = atomicExch(ones_claimed, 1u) == 0;
            fresh = __shfl_sync(0xffffffffu, won, 0) != 0;
            r = t.root_win * WARP;
        } else {
            r = gpu_tree_pair_put(t.roots, t.root_win, pair, &fresh);
            if (r == GPU_TREE_NO_SLOT) {
                if (lane == 0)
                    atomicMax(full, 2);
                continue;
            }
        }
        if (lane == 0) {
            root_out[i] = r;
            fresh_out[i] = fresh;
        }
    }
}

/* Taken slots of each window of the root table (a prefix of it). */
__global__ void tree_count_windows(const unsigned long long *roots, uint64_t nwin, unsigned long long *cnt)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; w < nwin; w += stride) {
        unsigned k = 0;
        while (k < WARP && roots[w * WARP + k] != TREE_GPU_EMPTY)
            k++;
        cnt[w] = k;
    }
}

/* Root index -> rank: the window's prefix plus the place in it; the
 * all-ones vector's root (index nwin * 32) ranks after every slot. */
__global__ void tree_map_ranks(const unsigned long long *pre, uint64_t nwin, unsigned long long taken, uint64_t *r,
                               uint64_t n)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        r[i] = r[i] >= nwin * WARP ? taken : pre[r[i] / WARP] + r[i] % WARP;
}

/* Unfolds root index r[i] into v + i * words, one thread each. */
__global__ void tree_unfold_kernel(gpu_tree_dev t, const uint64_t *r, uint64_t n, uint32_t words, uint32_t *v)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        gpu_tree_unfold(t, r[i], v + i * words);
}

/* Every taken root slot unfolded at its id (rank, ranks 0 and r0
 * swapped); the all-ones vector's root (ones != 0) ranks taken. */
__global__ void tree_unfold_ranked(gpu_tree_dev t, const unsigned long long *pre, unsigned long long taken,
                                   unsigned ones, unsigned long long r0, uint32_t words, uint32_t *v)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x, slots = t.root_win * WARP;
    for (uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; s <= slots; s += stride) {
        unsigned long long rank;
        if (s == slots) {
            if (!ones)
                continue;
            rank = taken;
        } else {
            if (t.roots[s] == TREE_GPU_EMPTY)
                continue;
            rank = pre[s / WARP] + s % WARP;
        }
        const unsigned long long id = rank == r0 ? 0 : rank == 0 ? r0 : rank;
        gpu_tree_unfold(t, s, v + id * words);
    }
}

unsigned grid_for(uint64_t threads)
{
    const uint64_t b = (threads + FOLD_THREADS - 1) / FOLD_THREADS;
    return (unsigned)(b == 0 ? 1 : b < 65536 ? b : 65536);
}

} // namespace

extern "C" int tree_gpu_available(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
        cudaGetLastError();
        return 0;
    }
    return 1;
}

extern "C" void tree_gpu_tables_free(struct tree_gpu_tables *t)
{
    free(t->nodes);
    free(t->roots);
    t->nodes = t->roots = NULL;
}

extern "C" void tree_gpu_free(struct tree_gpu *t)
{
    if (!t)
        return;
    cudaFree(t->dev.nodes);
    cudaFree(t->dev.roots);
    cudaFree(t->d_full);
    cudaFree(t->d_ones);
    free(t);
}

extern "C" int tree_gpu_new(struct tree_gpu **out, uint32_t words, const struct tree_shape *shape,
                            uint64_t node_slots, uint64_t root_slots, struct wx_error *err)
{
    int rc = WX_OK;
    struct tree_gpu *t = NULL;
    *out = NULL;
    if (words < 2 || words > 64 || node_slots == 0 || root_slots == 0)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "tree_gpu: %u words, %llu / %llu slots", words,
                       (unsigned long long)node_slots, (unsigned long long)root_slots);
    if (shape && (shape->words != words || !tree_shape_valid(shape)))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "tree_gpu: not a shape of %u words", words);
    if ((node_slots + WARP - 1) / WARP * WARP >= TREE_GPU_ONES)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "tree_gpu: %llu node slots (at most 2^32 - 33)",
                       (unsigned long long)node_slots);
    if (!tree_gpu_available())
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "tree_gpu: no CUDA device");
    t = (struct tree_gpu *)calloc(1, sizeof *t);
    if (!t)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "tree_gpu: out of host memory");
    t->words = words;
    if (shape)
        t->shape = *shape;
    else
        tree_shape_balanced(words, &t->shape);
    tree_shape_postorder(&t->shape, &t->dev.order);
    t->node_slots = (node_slots + WARP - 1) / WARP * WARP;
    t->root_slots = (root_slots + WARP - 1) / WARP * WARP;
    t->dev.node_win = t->node_slots / WARP;
    t->dev.root_win = t->root_slots / WARP;
    CUDA_CHECK(cudaMalloc(&t->dev.nodes, t->node_slots * 8));
    CUDA_CHECK(cudaMalloc(&t->dev.roots, t->root_slots * 8));
    CUDA_CHECK(cudaMalloc(&t->d_full, sizeof *t->d_full));
    CUDA_CHECK(cudaMalloc(&t->d_ones, sizeof *t->d_ones));
    CUDA_CHECK(cudaMemset(t->dev.nodes, 0xff, t->node_slots * 8));
    CUDA_CHECK(cudaMemset(t->dev.roots, 0xff, t->root_slots * 8));
    CUDA_CHECK(cudaMemset(t->d_full, 0, sizeof *t->d_full));
    CUDA_CHECK(cudaMemset(t->d_ones, 0, sizeof *t->d_ones));
out:
    if (rc)
        tree_gpu_free(t);
    else
        *out = t;
    return rc;
}

extern "C" uint64_t tree_gpu_bytes(const struct tree_gpu *t) { return (t->node_slots + t->root_slots) * 8; }

extern "C" int tree_gpu_put_dev(struct tree_gpu *t, const uint32_t *d_vecs, uint64_t n, uint64_t *d_root,
                                uint8_t *d_fresh, struct wx_error *err)
{
    int rc = WX_OK;
    int full = 0;
    if (n == 0)
        return WX_OK;
    tree_put_kernel<<<grid_for(n * WARP), FOLD_THREADS>>>(t->dev, d_vecs, n, t->words, d_root, d_fresh, t->d_ones,
                                                          t->d_full);
    CUDA_CHECK_LAUNCH("tree_put_kernel");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "tree_put_kernel");
    CUDA_CHECK(cudaMemcpy(&full, t->d_full, sizeof full, cudaMemcpyDeviceToHost));
    if (full) {
        CUDA_CHECK(cudaMemset(t->d_full, 0, sizeof *t->d_full));
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "the GPU tree store's %s table is full (%llu slots)",
                       full == 1 ? "node" : "root",
                       (unsigned long long)(full == 1 ? t->node_slots : t->root_slots));
    }
out:
    return rc;
}

extern "C" int tree_gpu_put(struct tree_gpu *t, const uint32_t *vecs, uint64_t n, uint64_t *root, uint8_t *fresh,
                            struct wx_error *err)
{
    int rc = WX_OK;
    uint32_t *d_vecs = NULL;
    uint64_t *d_root = NULL;
    uint8_t *d_fresh = NULL;
    if (n == 0)
        return WX_OK;
    CUDA_CHECK(cudaMalloc(&d_vecs, n * t->words * 4));
    CUDA_CHECK(cudaMalloc(&d_root, n * 8));
    CUDA_CHECK(cudaMalloc(&d_fresh, n));
    CUDA_CHECK(cudaMemcpy(d_vecs, vecs, n * t->words * 4, cudaMemcpyHostToDevice));
    if ((rc = tree_gpu_put_dev(t, d_vecs, n, d_root, d_fresh, err)))
        goto out;
    CUDA_CHECK(cudaMemcpy(root, d_root, n * 8, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(fresh, d_fresh, n, cudaMemcpyDeviceToHost));
out:
    cudaFree(d_vecs);
    cudaFree(d_root);
    cudaFree(d_fresh);
    return rc;
}

/* The exclusive prefix of the windows' taken slots (*d_pre, device; free
 * with cudaFree), the slots taken in all (*taken) and the all-ones flag. */
static int tree_prefix(struct tree_gpu *t, unsigned long long **d_pre_out, unsigned long long *taken,
                       unsigned *ones, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t nwin = t->dev.root_win;
    unsigned long long *d_cnt = NULL, *d_pre = NULL, last[2] = {0, 0};
    void *tmp = NULL;
    size_t tb = 0;
    *d_pre_out = NULL;
    CUDA_CHECK(cudaMalloc(&d_cnt, nwin * 8));
    CUDA_CHECK(cudaMalloc(&d_pre, nwin * 8));
    tree_count_windows<<<grid_for(nwin), FOLD_THREADS>>>(t->dev.roots, nwin, d_cnt);
    CUDA_CHECK_LAUNCH("tree_count_windows");
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, tb, d_cnt, d_pre, (int64_t)nwin));
    CUDA_CHECK(cudaMalloc(&tmp, tb ? tb : 1));
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, tb, d_cnt, d_pre, (int64_t)nwin));
    CUDA_CHECK(cudaMemcpy(&last[0], d_pre + nwin - 1, 8, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&last[1], d_cnt + nwin - 1, 8, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(ones, t->d_ones, sizeof *ones, cudaMemcpyDeviceToHost));
    *taken = last[0] + last[1];
out:
    cudaFree(d_cnt);
    cudaFree(tmp);
    if (rc)
        cudaFree(d_pre);
    else
        *d_pre_out = d_pre;
    return rc;
}

extern "C" int tree_gpu_ranks_dev(struct tree_gpu *t, uint64_t *d_root, uint64_t n, uint64_t *count,
                                  struct wx_error *err)
{
    unsigned long long *d_pre = NULL, taken = 0;
    unsigned ones = 0;
    int rc = tree_prefix(t, &d_pre, &taken, &ones, err);
    if (rc)
        return rc;
    if (n) {
        tree_map_ranks<<<grid_for(n), FOLD_THREADS>>>(d_pre, t->dev.root_win, taken, d_root, n);
        CUDA_CHECK_LAUNCH("tree_map_ranks");
    }
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "tree ranks");
    *count = taken + ones;
out:
    cudaFree(d_pre);
    return rc;
}

extern "C" int tree_gpu_unfold_ranked_dev(struct tree_gpu *t, uint64_t r0, uint32_t *d_vecs, uint64_t count,
                                          struct wx_error *err)
{
    unsigned long long *d_pre = NULL, taken = 0;
    unsigned ones = 0;
    int rc = tree_prefix(t, &d_pre, &taken, &ones, err);
    if (rc)
        return rc;
    if (taken + ones != count || r0 >= count) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU tree store holds %llu vectors, not %llu (first rank %llu)",
                     taken + ones, (unsigned long long)count, (unsigned long long)r0);
        goto out;
    }
    tree_unfold_ranked<<<grid_for(t->root_slots + 1), FOLD_THREADS>>>(t->dev, d_pre, taken, ones, r0, t->words,
                                                                       d_vecs);
    CUDA_CHECK_LAUNCH("tree_unfold_ranked");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "tree_unfold_ranked");
out:
    cudaFree(d_pre);
    return rc;
}

extern "C" int tree_gpu_unfold_dev(const struct tree_gpu *t, const uint64_t *d_root, uint64_t n, uint32_t *d_vecs,
                                   struct wx_error *err)
{
    int rc = WX_OK;
    if (n == 0)
        return WX_OK;
    tree_unfold_kernel<<<grid_for(n), FOLD_THREADS>>>(t->dev, d_root, n, t->words, d_vecs);
    CUDA_CHECK_LAUNCH("tree_unfold_kernel");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "tree_unfold_kernel");
out:
    return rc;
}

extern "C" uint64_t tree_gpu_root_slots(const struct tree_gpu *t) { return t->root_slots; }

void tree_gpu_view(const struct tree_gpu *t, gpu_tree_dev *dev, unsigned **ones)
{
    *dev = t->dev;
    *ones = t->d_ones;
}

extern "C" int tree_gpu_ranks(struct tree_gpu *t, uint64_t *root, uint64_t n, uint64_t *count, struct wx_error *err)
{
    int rc = WX_OK;
    uint64_t *d_root = NULL;
    CUDA_CHECK(cudaMalloc(&d_root, (n ? n : 1) * 8));
    CUDA_CHECK(cudaMemcpy(d_root, root, n * 8, cudaMemcpyHostToDevice));
    if ((rc = tree_gpu_ranks_dev(t, d_root, n, count, err)))
        goto out;
    CUDA_CHECK(cudaMemcpy(root, d_root, n * 8, cudaMemcpyDeviceToHost));
out:
    cudaFree(d_root);
    return rc;
}

extern "C" int tree_gpu_download(const struct tree_gpu *t, struct tree_gpu_tables *out, struct wx_error *err)
{
    int rc = WX_OK;
    memset(out, 0, sizeof *out);
    out->shape = t->shape;
    out->node_slots = t->node_slots;
    out->root_slots = t->root_slots;
    out->nodes = (uint64_t *)malloc(t->node_slots * 8);
    out->roots = (uint64_t *)malloc(t->root_slots * 8);
    if (!out->nodes || !out->roots) {
        tree_gpu_tables_free(out);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "tree_gpu: out of host memory");
    }
    CUDA_CHECK(cudaMemcpy(out->nodes, t->dev.nodes, t->node_slots * 8, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out->roots, t->dev.roots, t->root_slots * 8, cudaMemcpyDeviceToHost));
out:
    if (rc)
        tree_gpu_tables_free(out);
    return rc;
}

extern "C" int tree_gpu_fold(const uint32_t *vecs, uint64_t n, uint32_t words, const struct tree_shape *shape,
                             uint64_t node_slots, uint64_t root_slots, uint64_t *root, uint8_t *fresh,
                             struct tree_gpu_tables *out, struct wx_error *err)
{
    struct tree_gpu *t;
    memset(out, 0, sizeof *out);
    int rc = tree_gpu_new(&t, words, shape, node_slots, root_slots, err);
    if (rc)
        return rc;
    if ((rc = tree_gpu_put(t, vecs, n, root, fresh, err)) == WX_OK)
        rc = tree_gpu_download(t, out, err);
    tree_gpu_free(t);
    return rc;
}
