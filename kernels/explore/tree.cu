/*
 * tree.cu -- the tree store's fold on the GPU: pair tables with find-or-put
 * by whole warps (kernels/tree_gpu.h describes the layout, the insert and
 * why it is exact).
 *
 * Determinism: which vector of a duplicate group gets fresh = 1 and which
 * slot a pair lands in vary from run to run; the set of stored pairs, the
 * number of fresh vectors and the vector each root unfolds to do not.
 */
#include <cuda_runtime.h>

#include "../cuda_check.cuh"
#include "../tree_gpu.h"

#include <stdlib.h>
#include <string.h>

namespace {

constexpr unsigned WARP = 32;
constexpr unsigned FOLD_THREADS = 256;
constexpr uint64_t NO_SLOT = 0xffffffffffffffffull; /* pair_put: the table is full */

__device__ __forceinline__ unsigned long long tree_mix(unsigned long long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

__device__ __forceinline__ unsigned long long ld_relaxed64(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

/* Find-or-put of the pair key in a table of nwin windows of 32 slots, by
 * the whole warp (every lane passes the same key; the result is the same
 * in every lane).  Returns the slot, or NO_SLOT after every window was
 * probed; *fresh: this call's CAS stored the key.  key != TREE_GPU_EMPTY. */
__device__ uint64_t pair_put(unsigned long long *tab, uint64_t nwin, unsigned long long key, bool *fresh)
{
    const unsigned lane = threadIdx.x % WARP;
    uint64_t win = tree_mix(key) % nwin;
    *fresh = false;
    for (uint64_t probes = 0; probes < nwin; probes++) {
        unsigned long long *w = tab + win * WARP;
        const unsigned long long v = ld_relaxed64(w + lane);
        const unsigned match = __ballot_sync(0xffffffffu, v == key);
        if (match)
            return win * WARP + __ffs(match) - 1;
        unsigned empty = __ballot_sync(0xffffffffu, v == TREE_GPU_EMPTY);
        while (empty) {
            /* The first empty slot in probe order: every slot before it was
             * seen holding another pair, and slots never change again. */
            const unsigned leader = __ffs(empty) - 1;
            unsigned long long old = 0;
            if (lane == leader)
                old = atomicCAS(w + leader, TREE_GPU_EMPTY, key);
            old = __shfl_sync(0xffffffffu, old, leader);
            if (old == TREE_GPU_EMPTY) {
                *fresh = true;
                return win * WARP + leader;
            }
            if (old == key)
                return win * WARP + leader;
            empty &= ~(1u << leader); /* another pair took it: the next one */
        }
        win = win + 1 == nwin ? 0 : win + 1;
    }
    return NO_SLOT;
}

struct fold_args {
    const uint32_t *vecs;
    uint64_t n;
    uint32_t words;
    unsigned long long *nodes, *roots;
    uint64_t node_win, root_win;
    uint64_t *root_out;
    uint8_t *fresh_out;
    unsigned *ones_claimed; /* the all-ones vector's root (tree_gpu.h) */
    int *full;
    struct tree_shape_order order; /* the shape's inner nodes, root last */
};

/* An operand of the order: a word of v, or an inner node's value. */
__device__ __forceinline__ uint32_t fold_operand(const uint32_t *v, const uint32_t *val, uint8_t op)
{
    return op < TREE_SHAPE_NODE ? v[op] : val[op - TREE_SHAPE_NODE];
}

/* The root pair of v (the value of its last inner node's operands), every
 * inner node below it put into the node table bottom-up (the shape's
 * postorder); false when the node table is full. */
__device__ bool fold_root(const fold_args &a, const uint32_t *v, unsigned long long *pair)
{
    uint32_t val[TREE_SHAPE_MAX_WORDS - 1];
    const uint32_t last = a.order.inner - 1;
    for (uint32_t j = 0; j < last; j++) {
        const uint32_t x = fold_operand(v, val, a.order.a[j]);
        const uint32_t y = fold_operand(v, val, a.order.b[j]);
        if (x == TREE_GPU_ONES && y == TREE_GPU_ONES) {
            val[j] = TREE_GPU_ONES;
            continue;
        }
        bool fresh;
        const uint64_t s = pair_put(a.nodes, a.node_win, (unsigned long long)x | (unsigned long long)y << 32, &fresh);
        if (s == NO_SLOT)
            return false;
        val[j] = (uint32_t)s;
    }
    *pair = (unsigned long long)fold_operand(v, val, a.order.a[last]) |
            (unsigned long long)fold_operand(v, val, a.order.b[last]) << 32;
    return true;
}

/* One warp per vector, grid-stride. */
__global__ void tree_fold_kernel(fold_args a)
{
    const uint64_t warps = (uint64_t)gridDim.x * blockDim.x / WARP;
    const unsigned lane = threadIdx.x % WARP;
    for (uint64_t i = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / WARP; i < a.n; i += warps) {
        unsigned long long pair;
        if (!fold_root(a, a.vecs + i * a.words, &pair)) {
            if (lane == 0)
                atomicExch(a.full, 1);
            continue;
        }
        uint64_t r;
        bool fresh = false;
        if (pair == TREE_GPU_EMPTY) {
            unsigned won = 0;
            if (lane == 0)
                won = atomicExch(a.ones_claimed, 1u) == 0;
            fresh = __shfl_sync(0xffffffffu, won, 0) != 0;
            r = a.root_win * WARP;
        } else {
            r = pair_put(a.roots, a.root_win, pair, &fresh);
            if (r == NO_SLOT) {
                if (lane == 0)
                    atomicExch(a.full, 1);
                continue;
            }
        }
        if (lane == 0) {
            a.root_out[i] = r;
            a.fresh_out[i] = fresh;
        }
    }
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

extern "C" int tree_gpu_fold(const uint32_t *vecs, uint64_t n, uint32_t words, const struct tree_shape *shape,
                             uint64_t node_slots, uint64_t root_slots, uint64_t *root, uint8_t *fresh,
                             struct tree_gpu_tables *out, struct wx_error *err)
{
    int rc = WX_OK;
    fold_args a;
    memset(&a, 0, sizeof a);
    int *d_full = NULL;
    unsigned *d_ones = NULL;
    uint32_t *d_vecs = NULL;
    int full = 0;
    memset(out, 0, sizeof *out);
    if (words < 2 || words > 64 || node_slots == 0 || root_slots == 0)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "tree_gpu_fold: %u words, %llu / %llu slots", words,
                       (unsigned long long)node_slots, (unsigned long long)root_slots);
    if (shape && (shape->words != words || !tree_shape_valid(shape)))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "tree_gpu_fold: not a shape of %u words", words);
    if (shape)
        out->shape = *shape;
    else
        tree_shape_balanced(words, &out->shape);
    tree_shape_postorder(&out->shape, &a.order);
    out->node_slots = (node_slots + WARP - 1) / WARP * WARP;
    out->root_slots = (root_slots + WARP - 1) / WARP * WARP;
    if (out->node_slots >= TREE_GPU_ONES)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "tree_gpu_fold: %llu node slots (at most 2^32 - 33)",
                       (unsigned long long)node_slots);
    a.n = n, a.words = words;
    a.node_win = out->node_slots / WARP, a.root_win = out->root_slots / WARP;
    CUDA_CHECK(cudaMalloc(&a.nodes, out->node_slots * 8));
    CUDA_CHECK(cudaMalloc(&a.roots, out->root_slots * 8));
    CUDA_CHECK(cudaMalloc(&d_vecs, (n ? n : 1) * words * 4));
    CUDA_CHECK(cudaMalloc(&a.root_out, (n ? n : 1) * 8));
    CUDA_CHECK(cudaMalloc(&a.fresh_out, n ? n : 1));
    CUDA_CHECK(cudaMalloc(&d_full, sizeof *d_full));
    CUDA_CHECK(cudaMalloc(&d_ones, sizeof *d_ones));
    CUDA_CHECK(cudaMemset(a.nodes, 0xff, out->node_slots * 8));
    CUDA_CHECK(cudaMemset(a.roots, 0xff, out->root_slots * 8));
    CUDA_CHECK(cudaMemset(d_full, 0, sizeof *d_full));
    CUDA_CHECK(cudaMemset(d_ones, 0, sizeof *d_ones));
    CUDA_CHECK(cudaMemcpy(d_vecs, vecs, n * words * 4, cudaMemcpyHostToDevice));
    a.vecs = d_vecs, a.full = d_full, a.ones_claimed = d_ones;
    if (n) {
        uint64_t blocks = (n * WARP + FOLD_THREADS - 1) / FOLD_THREADS;
        tree_fold_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), FOLD_THREADS>>>(a);
        CUDA_CHECK_LAUNCH("tree_fold_kernel");
    }
    CUDA_CHECK(cudaMemcpy(&full, d_full, sizeof full, cudaMemcpyDeviceToHost));
    if (full) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "tree_gpu_fold: a table of %llu node / %llu root slots is full",
                     (unsigned long long)out->node_slots, (unsigned long long)out->root_slots);
        goto out;
    }
    out->nodes = (uint64_t *)malloc(out->node_slots * 8);
    out->roots = (uint64_t *)malloc(out->root_slots * 8);
    if (!out->nodes || !out->roots) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "tree_gpu_fold: out of host memory");
        goto out;
    }
    CUDA_CHECK(cudaMemcpy(out->nodes, a.nodes, out->node_slots * 8, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out->roots, a.roots, out->root_slots * 8, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(root, a.root_out, n * 8, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(fresh, a.fresh_out, n, cudaMemcpyDeviceToHost));
out:
    if (rc)
        tree_gpu_tables_free(out);
    cudaFree(a.nodes);
    cudaFree(a.roots);
    cudaFree(d_vecs);
    cudaFree(a.root_out);
    cudaFree(a.fresh_out);
    cudaFree(d_full);
    cudaFree(d_ones);
    return rc;
}
