/*
 * transpose.cu -- step 1b of the GPU SCC (kernels/scc/scc_int.cuh): the
 * in-edges (roff, rsrc) that the trims and the backward searches read.
 *
 * By a CUB radix sort of (target, source) pairs, with the in-offsets from
 * the sorted keys (no atomics); or by counting (in-degree atomics, a scan,
 * a scatter), faster on local targets but much slower on random ones.
 * Tuning transpose_sort 2 (the default) chooses counting when >= 90 % of
 * 1024 sampled edges stay within max(65536, n/256) ids of their source.
 * Symmetric graphs (symmetric.cu) need no transpose: they never get here.
 */
#include <cub/cub.cuh>

#include "scc_dev.cuh"

/* ---- transposition ---- */

/* src[e] = the source of edge e (one thread per vertex). */
__global__ void scc_edge_sources(const uint64_t *off, uint32_t n, uint32_t *src)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n)
        return;
    for (uint64_t e = off[v]; e < off[v + 1]; e++)
        src[e] = (uint32_t)v;
}

/* roff[v] = the first position i of the sorted keys with keys[i] >= v: the
 * thread of position i (0 <= i <= m) writes it for keys[i-1] < v <= keys[i]
 * (with keys[-1] = -1 and keys[m] = n), so every v in [0, n] is written
 * exactly once. */
__global__ void scc_offsets_from_keys(const uint32_t *keys, uint64_t m, uint32_t n, uint64_t *roff)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > m)
        return;
    uint64_t a = i == 0 ? 0 : (uint64_t)keys[i - 1] + 1;
    uint64_t b = i == m ? (uint64_t)n : (uint64_t)keys[i];
    for (uint64_t v = a; v <= b; v++)
        roff[v] = i;
}

/* deg[t] += 1 per edge into t (one thread per edge). */
__global__ void scc_in_degrees(const uint32_t *tgt, uint64_t m, uint64_t *deg)
{
    uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < m)
        atomicAdd((unsigned long long *)&deg[tgt[e]], 1ull);
}

/* rsrc[roff[t] + cursor[t]++] = u for every edge u -> t (one thread per
 * source vertex; cursor starts at 0). */
__global__ void scc_scatter_sources(uint32_t n, const uint64_t *off, const uint32_t *tgt,
                                    const uint64_t *roff, uint64_t *cursor, uint32_t *rsrc)
{
    uint64_t u = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n)
        return;
    for (uint64_t e = off[u]; e < off[u + 1]; e++) {
        uint32_t t = tgt[e];
        rsrc[roff[t] + atomicAdd((unsigned long long *)&cursor[t], 1ull)] = (uint32_t)u;
    }
}

/* Locality probe for the choice of transposition (tuning transpose_sort
 * 2): for k edges spread evenly over the edge array, *count += 1 when
 * |target - source| <= near (the source by binary search in off). */
__global__ void scc_locality(const uint64_t *off, const uint32_t *tgt, uint32_t n, uint64_t m,
                             uint32_t k, uint64_t near, unsigned long long *count)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k)
        return;
    const uint64_t e = m * i / k, lo = scc_source_of_edge(off, n, e);
    uint64_t t = tgt[e];
    if ((t > lo ? t - lo : lo - t) <= near)
        atomicAdd(count, 1ull);
}

/* ---- host side ---- */

/* Transposition by counting when at least 90 % of a sample of edges stay
 * within LOCAL_NEAR ids (or n / 256) of their source (transpose_sort 2):
 * the in-degree atomics then hit a small window, while random targets make
 * them much slower than the sort.  *sorted: 1 for the sort. */
static int choose_sort(struct scc_work *w, const struct dgraph *dg, int *sorted,
                       struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = dg->n_vertices, m = dg->n_edges;
    const uint32_t k = m < LOCAL_SAMPLE ? (uint32_t)m : LOCAL_SAMPLE;
    const uint64_t near = n64 / 256 > LOCAL_NEAR ? n64 / 256 : LOCAL_NEAR;
    unsigned long long hits = 0;
    CUDA_CHECK(cudaMemset(w->cnt + CNT_TRIM, 0, sizeof hits));
    scc_locality<<<grid_for(k), SCC_BLOCK>>>(dg->d_offsets, dg->d_targets, w->n, m, k, near,
                                             w->cnt + CNT_TRIM);
    CUDA_CHECK_LAUNCH("scc_locality");
    CUDA_CHECK(cudaMemcpy(&hits, w->cnt + CNT_TRIM, sizeof hits, cudaMemcpyDeviceToHost));
    *sorted = hits * 10 < (unsigned long long)k * 9;
out:
    return rc;
}

/* Counting: in-degrees (atomics), a scan, a scatter at per-target cursors;
 * in-list order is arbitrary (nothing depends on it). */
static int transpose_count(struct scc_work *w, const struct dgraph *dg, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = dg->n_vertices, m = dg->n_edges;
    uint64_t *roff = w->roff_own, *deg = NULL;
    void *temp = NULL;
    size_t temp_bytes = 0;
    CUDA_CHECK(cudaMalloc((void **)&deg, (n64 + 1) * sizeof *deg));
    CUDA_CHECK(cudaMemset(deg, 0, (n64 + 1) * sizeof *deg));
    scc_in_degrees<<<grid_for(m), SCC_BLOCK>>>(dg->d_targets, m, deg);
    CUDA_CHECK_LAUNCH("scc_in_degrees");
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, deg, roff, (int64_t)n64 + 1));
    CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, deg, roff, (int64_t)n64 + 1));
    CUDA_CHECK(cudaMemset(deg, 0, (n64 + 1) * sizeof *deg));
    scc_scatter_sources<<<grid_for(n64), SCC_BLOCK>>>(w->n, dg->d_offsets, dg->d_targets, roff, deg,
                                                      w->rsrc_own);
    CUDA_CHECK_LAUNCH("scc_scatter_sources");
    {
        cudaError_t e1 = cudaFree(temp), e2 = cudaFree(deg);
        temp = NULL;
        deg = NULL;
        CUDA_CHECK(e1);
        CUDA_CHECK(e2);
    }
out:
    cudaFree(temp);
    cudaFree(deg);
    return rc;
}

/* The radix sort of the (target, source) pairs by target; the in-offsets
 * from the sorted keys (also for a graph without edges). */
static int transpose_sort(struct scc_work *w, const struct dgraph *dg, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = dg->n_vertices, m = dg->n_edges;
    uint32_t *keys = NULL, *src = NULL;
    void *temp = NULL;
    size_t temp_bytes = 0;
    if (m) {
        int bits = 1;
        while (bits < 32 && ((uint64_t)1 << bits) < n64)
            bits++;
        CUDA_CHECK(cudaMalloc((void **)&keys, m * sizeof *keys));
        CUDA_CHECK(cudaMalloc((void **)&src, m * sizeof *src));
        scc_edge_sources<<<grid_for(n64), SCC_BLOCK>>>(dg->d_offsets, w->n, src);
        CUDA_CHECK_LAUNCH("scc_edge_sources");
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, temp_bytes, dg->d_targets, keys, src,
                                                   w->rsrc_own, (int64_t)m, 0, bits));
        CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dg->d_targets, keys, src,
                                                   w->rsrc_own, (int64_t)m, 0, bits));
        CUDA_CHECK(cudaFree(temp));
        temp = NULL;
        CUDA_CHECK(cudaFree(src));
        src = NULL;
    }
    scc_offsets_from_keys<<<grid_for(m + 1), SCC_BLOCK>>>(keys, m, w->n, w->roff_own);
    CUDA_CHECK_LAUNCH("scc_offsets_from_keys");
    CUDA_CHECK(cudaFree(keys));
    keys = NULL;
out:
    cudaFree(temp);
    cudaFree(keys);
    cudaFree(src);
    return rc;
}

int scc_transpose(struct scc_work *w, const struct dgraph *dg,
                  const struct scc_gpu_tuning *tu, struct scc_gpu_stats *st, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = dg->n_vertices, m = dg->n_edges;
    int sorted = tu->transpose_sort != 0;
    CUDA_CHECK(cudaMalloc((void **)&w->roff_own, (n64 + 1) * sizeof *w->roff_own));
    if (m)
        CUDA_CHECK(cudaMalloc((void **)&w->rsrc_own, m * sizeof *w->rsrc_own));
    w->roff = w->roff_own;
    w->rsrc = w->rsrc_own;
    if (m && tu->transpose_sort == 2 && (rc = choose_sort(w, dg, &sorted, err)) != WX_OK)
        goto out;
    st->transpose_sorted = sorted;
    rc = m && !sorted ? transpose_count(w, dg, err) : transpose_sort(w, dg, err);
out:
    return rc;
}
