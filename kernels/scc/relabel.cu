/*
 * relabel.cu -- steps 5 and 6 of the GPU SCC (kernels/scc/scc_int.cuh).
 * Relabel: the representative of a component (the pivot, the colour root,
 * the trimmed vertex or the union-find root) maps to its smallest member
 * (warp-aggregated atomicMin), and a CUB exclusive scan over "v is its
 * component's smallest member" numbers the components canonically.
 * Counts: sizes and "edge leaves" / "self-loop" flags per component
 * (warp-aggregated atomics), then one reduction over the components; none
 * for a single SCC of >= 2 vertices (its counts are known).
 */
#include <cub/cub.cuh>

#include "scc_dev.cuh"

/* Component flags of the counting pass. */
#define CF_LEAVES 1u          /* an edge leaves the component */
#define CF_SELF 2u            /* a self-loop inside it */

/* ---- canonical relabelling ---- */

/* minv[rep[v]] = min over the component; warp-aggregated so that a giant
 * component costs one atomic per warp at most (and none once the minimum
 * is in place, as ids are visited in increasing order). */
__global__ void scc_min_member(uint32_t n, const uint32_t *rep, uint32_t *minv)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t key = v < n ? rep[v] : SCC_UNSET;
    unsigned peers = __match_any_sync(FULL_MASK, key);
    uint32_t lo = __reduce_min_sync(peers, (uint32_t)(v < n ? v : SCC_UNSET));
    if (v < n && (threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1) && minv[key] > lo)
        atomicMin(&minv[key], lo);
}

__global__ void scc_first_flags(uint32_t n, const uint32_t *rep, const uint32_t *minv, uint32_t *first)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        first[v] = minv[rep[v]] == v;
}

/* comp[v] = pos[minv[rep[v]]], in place over rep (each thread reads and
 * writes only its own rep entry). */
__global__ void scc_canon(uint32_t n, uint32_t *rep_comp, const uint32_t *minv, const uint32_t *pos)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        rep_comp[v] = pos[minv[rep_comp[v]]];
}

/* ---- counts ---- */

/* size[c] and flags[c] for the canonical ids (warp-aggregated atomics). */
__global__ void scc_comp_stats(uint32_t n, const uint64_t *off, const uint32_t *tgt,
                               const uint32_t *comp, uint32_t *size, uint32_t *flags)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t c = v < n ? comp[v] : SCC_UNSET;
    uint32_t lf = 0;
    /* a vertex of more than 32 edges is read by its whole warp (hubs) */
    const bool wide = v < n && off[v + 1] - off[v] > 32;
    if (v < n && !wide)
        for (uint64_t e = off[v]; e < off[v + 1]; e++) {
            uint32_t w = tgt[e];
            if (comp[w] != c)
                lf |= CF_LEAVES;
            else if (w == v)
                lf |= CF_SELF;
        }
    const unsigned lane = threadIdx.x & 31;
    for (unsigned todo = __ballot_sync(FULL_MASK, wide); todo; todo &= todo - 1) {
        const int src = __ffs(todo) - 1;
        const uint64_t u = __shfl_sync(FULL_MASK, v, src);
        const uint32_t cu = __shfl_sync(FULL_MASK, c, src);
        uint32_t f = 0;
        for (uint64_t b = off[u], end = off[u + 1]; b < end; b += 32) {
            const uint64_t e = b + lane;
            if (e < end) {
                const uint32_t w = tgt[e];
                if (comp[w] != cu)
                    f |= CF_LEAVES;
                else if (w == u)
                    f |= CF_SELF;
            }
        }
        f = __reduce_or_sync(FULL_MASK, f);
        if ((int)lane == src)
            lf = f;
    }
    unsigned peers = __match_any_sync(FULL_MASK, c);
    uint32_t orf = __reduce_or_sync(peers, lf);
    if (v < n && (threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1)) {
        atomicAdd(&size[c], (uint32_t)__popc(peers));
        if (orf && (flags[c] & orf) != orf)
            atomicOr(&flags[c], orf);
    }
}

__device__ static unsigned long long warp_max64(unsigned long long x)
{
    for (int d = 16; d; d >>= 1) {
        unsigned long long y = __shfl_down_sync(FULL_MASK, x, d);
        x = y > x ? y : x;
    }
    return x;
}

__global__ void scc_summary(uint32_t n_sccs, const uint32_t *size, const uint32_t *flags,
                            unsigned long long *sum)
{
    uint64_t c = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long triv = 0, nontriv_v = 0, largest = 0, bottom = 0, bottom_triv = 0;
    if (c < n_sccs) {
        uint32_t s = size[c], f = flags[c];
        int trivial = s == 1 && !(f & CF_SELF);
        triv = trivial;
        nontriv_v = trivial ? 0 : s;
        largest = s;
        bottom = !(f & CF_LEAVES);
        bottom_triv = bottom && trivial;
    }
    triv = warp_sum64(triv);
    nontriv_v = warp_sum64(nontriv_v);
    largest = warp_max64(largest);
    bottom = warp_sum64(bottom);
    bottom_triv = warp_sum64(bottom_triv);
    if ((threadIdx.x & 31) == 0) {
        if (triv) atomicAdd(&sum[SUM_TRIVIAL], triv);
        if (nontriv_v) atomicAdd(&sum[SUM_NONTRIV_V], nontriv_v);
        if (largest) atomicMax(&sum[SUM_LARGEST], largest);
        if (bottom) atomicAdd(&sum[SUM_BOTTOM], bottom);
        if (bottom_triv) atomicAdd(&sum[SUM_BOTTOM_TRIV], bottom_triv);
    }
}

/* ---- host side ---- */

/* Canonical ids: minv in w->col, first flags in w->reach, positions in
 * w->reg. */
int scc_relabel(struct scc_work *w, uint32_t *d_comp, struct scc_result *out, struct wx_error *err)
{
    int rc = WX_OK;
    const uint32_t n = w->n;
    const unsigned gv = grid_for(n);
    uint32_t *minv = w->col, *first = w->reach, *pos = (uint32_t *)w->reg, last[2];
    void *temp = NULL;
    size_t temp_bytes = 0;
    CUDA_CHECK(cudaMemset(minv, 0xff, (uint64_t)n * sizeof *minv));
    scc_min_member<<<gv, SCC_BLOCK>>>(n, d_comp, minv);
    CUDA_CHECK_LAUNCH("scc_min_member");
    scc_first_flags<<<gv, SCC_BLOCK>>>(n, d_comp, minv, first);
    CUDA_CHECK_LAUNCH("scc_first_flags");
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, first, pos, (int64_t)n));
    CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, first, pos, (int64_t)n));
    CUDA_CHECK(cudaFree(temp));
    temp = NULL;
    CUDA_CHECK(cudaMemcpy(&last[0], pos + n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&last[1], first + n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
    out->n_sccs = (uint64_t)last[0] + last[1];
    scc_canon<<<gv, SCC_BLOCK>>>(n, d_comp, minv, pos);
    CUDA_CHECK_LAUNCH("scc_canon");
    CUDA_CHECK(cudaDeviceSynchronize());
out:
    cudaFree(temp);
    return rc;
}

/* The counts: size in w->col, flags in w->reach.  One SCC of two or more
 * vertices needs no pass over the edges: it is non-trivial whatever its
 * self-loops, and no edge can leave it (tori, most state spaces). */
int scc_count(struct scc_work *w, const struct dgraph *dg, const uint32_t *d_comp,
              struct scc_result *out, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = dg->n_vertices;
    uint32_t *size = w->col, *flags = w->reach;
    unsigned long long *sum = w->cnt + CNT_SUM, h_sum[SUM_N];
    if (out->n_sccs == 1 && n64 >= 2) {
        out->n_trivial = 0;
        out->n_in_nontrivial = n64;
        out->largest = n64;
        out->n_bottom = 1;
        out->n_bottom_trivial = 0;
        return WX_OK;
    }
    CUDA_CHECK(cudaMemset(size, 0, out->n_sccs * sizeof *size));
    CUDA_CHECK(cudaMemset(flags, 0, out->n_sccs * sizeof *flags));
    CUDA_CHECK(cudaMemset(sum, 0, SUM_N * sizeof *sum));
    scc_comp_stats<<<grid_for(n64), SCC_BLOCK>>>(w->n, dg->d_offsets, dg->d_targets, d_comp, size,
                                                 flags);
    CUDA_CHECK_LAUNCH("scc_comp_stats");
    scc_summary<<<grid_for(out->n_sccs), SCC_BLOCK>>>((uint32_t)out->n_sccs, size, flags, sum);
    CUDA_CHECK_LAUNCH("scc_summary");
    CUDA_CHECK(cudaMemcpy(h_sum, sum, SUM_N * sizeof *sum, cudaMemcpyDeviceToHost));
    out->n_trivial = h_sum[SUM_TRIVIAL];
    out->n_in_nontrivial = h_sum[SUM_NONTRIV_V];
    out->largest = h_sum[SUM_LARGEST];
    out->n_bottom = h_sum[SUM_BOTTOM];
    out->n_bottom_trivial = h_sum[SUM_BOTTOM_TRIV];
out:
    return rc;
}
