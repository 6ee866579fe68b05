/*
 * symmetric.cu -- step 1a of the GPU SCC (kernels/scc/scc_int.cuh):
 * symmetric graphs.  When a sample of 1024 edges and then every edge
 * u -> v is matched by as many v -> u (degrees <= 64), the graph is its own
 * transpose, and its SCCs are the connected components, found by union-find: no transposition, no trim, no
 * search; the rest of the pipeline is skipped.
 *
 * RACES (global memory): see scc_cc_find (links by CAS on a root; path
 * halving writes ancestors only).
 */
#include "scc_dev.cuh"

/* ---- symmetric graphs: the check ---- */

#define SYM_MAX_DEG 64 /* the check gives up on vertices of more edges */

/* Edge u -> v is matched when v's list holds u as often as u's holds v
 * (then every vertex's in-multiset equals its out-multiset: the graph is
 * its own transpose, multiplicities included). */
__device__ static bool scc_sym_edge(const uint64_t *off, const uint32_t *tgt, uint32_t u, uint32_t v)
{
    if (u == v)
        return true;
    const uint64_t bu = off[u], eu = off[u + 1], bv = off[v], ev = off[v + 1];
    if (eu - bu > SYM_MAX_DEG || ev - bv > SYM_MAX_DEG)
        return false;
    uint32_t cu = 0, cv = 0;
    for (uint64_t e = bu; e < eu; e++)
        cu += tgt[e] == v;
    for (uint64_t e = bv; e < ev; e++)
        cv += tgt[e] == u;
    return cu == cv;
}

/* *bad += 1 for each of k edges spread over the edge array (the source
 * by binary search) that is not matched. */
__global__ void scc_sym_probe(const uint64_t *off, const uint32_t *tgt, uint32_t n, uint64_t m,
                              uint32_t k, unsigned long long *bad)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k)
        return;
    const uint64_t e = m * i / k, lo = scc_source_of_edge(off, n, e);
    if (!scc_sym_edge(off, tgt, (uint32_t)lo, tgt[e]))
        atomicAdd(bad, 1ull);
}

/* *bad = 1 when some edge of some vertex is not matched (one thread per
 * vertex; stops early once *bad is set).  Also the first step of the
 * connected components below: parent[u] = the smallest of u and its
 * neighbours (discarded when the graph is not symmetric). */
__global__ void scc_sym_check(const uint64_t *off, const uint32_t *tgt, uint32_t n,
                              unsigned long long *bad, uint32_t *parent)
{
    uint64_t u = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n)
        return;
    uint32_t low = (uint32_t)u;
    const uint64_t b = off[u], end = off[u + 1];
    if (end - b > SYM_MAX_DEG) {
        *bad = 1;
        return;
    }
    for (uint64_t e = b; e < end; e++) {
        const uint32_t v = tgt[e];
        low = min(low, v);
        if (*(volatile unsigned long long *)bad)
            return;
        if (!scc_sym_edge(off, tgt, (uint32_t)u, v)) {
            *bad = 1;
            return;
        }
    }
    parent[u] = low;
}

/* ---- symmetric graphs: SCCs are the connected components ----
 *
 * In a symmetric graph every edge lies on a cycle (u -> v -> u), so the
 * SCCs are the connected components of the underlying undirected graph,
 * found by union-find without any search (no levels: a 200^3 torus has
 * diameter 300, which cost the pivot search ~100 grid-wide levels).
 * parent[] is a forest with parent[v] <= v (a root r has parent[r] == r):
 * links put the larger of two roots under the smaller, so every root is
 * the smallest member of its tree and, at the end, parent[v] = the
 * smallest member of v's component -- the representative scc_gpu's
 * relabelling expects.  Races: links are CAS on a root's own entry (only
 * a root is ever re-pointed by a link); path halving overwrites
 * parent[x] with a proper ancestor of x, which stays an ancestor as trees
 * only merge, so a stale read only lengthens a walk. */
__device__ __forceinline__ static uint32_t scc_cc_find(uint32_t *parent, uint32_t v)
{
    volatile uint32_t *p = parent;
    uint32_t up = p[v];
    while (up != v) {
        const uint32_t upup = p[up];
        if (upup != up)
            p[v] = upup; /* halving: v skips its parent */
        v = up;
        up = upup;
    }
    return v;
}

/* Unites the components of every edge u -> v with v < u (the reverse edge
 * covers v < u's mirror), one thread per vertex. */
__global__ void scc_cc_hook(const uint64_t *off, const uint32_t *tgt, uint32_t n, uint32_t *parent)
{
    uint64_t u = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n)
        return;
    for (uint64_t e = off[u], end = off[u + 1]; e < end; e++) {
        const uint32_t v = tgt[e];
        if (v >= u)
            continue;
        uint32_t ru = scc_cc_find(parent, (uint32_t)u), rv = scc_cc_find(parent, v);
        while (ru != rv) {
            const uint32_t hi = max(ru, rv), lo = min(ru, rv);
            const uint32_t seen = atomicCAS(&parent[hi], hi, lo);
            if (seen == hi)
                break; /* linked */
            /* hi was linked elsewhere meanwhile: retry from the new roots */
            ru = scc_cc_find(parent, hi);
            rv = scc_cc_find(parent, lo);
        }
    }
}

/* parent[v] = v's root, the smallest member of its component (no links
 * any more).  The walk only reads: halving here could overwrite a root
 * another thread has just stored with an older, inner ancestor, so each
 * thread writes its own entry only. */
__global__ void scc_cc_flatten(uint32_t n, uint32_t *parent)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n)
        return;
    volatile uint32_t *p = parent;
    uint32_t r = p[v], up;
    while ((up = p[r]) != r)
        r = up;
    p[v] = r;
}

/* ---- host side ---- */

int scc_symmetric_check(struct scc_work *w, const struct dgraph *dg, uint32_t *d_comp,
                        struct scc_gpu_stats *st, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t m = dg->n_edges;
    /* a sample first, so that other graphs pay one small launch */
    const double ts = scc_now_ms();
    const uint32_t k = m < LOCAL_SAMPLE ? (uint32_t)m : LOCAL_SAMPLE;
    unsigned long long bad = 0;
    CUDA_CHECK(cudaMemset(w->cnt + CNT_TRIM, 0, sizeof bad));
    scc_sym_probe<<<grid_for(k), SCC_BLOCK>>>(dg->d_offsets, dg->d_targets, w->n, m, k,
                                              w->cnt + CNT_TRIM);
    CUDA_CHECK_LAUNCH("scc_sym_probe");
    CUDA_CHECK(cudaMemcpy(&bad, w->cnt + CNT_TRIM, sizeof bad, cudaMemcpyDeviceToHost));
    if (!bad) {
        scc_sym_check<<<grid_for(w->n), SCC_BLOCK>>>(dg->d_offsets, dg->d_targets, w->n,
                                                     w->cnt + CNT_TRIM, d_comp);
        CUDA_CHECK_LAUNCH("scc_sym_check");
        CUDA_CHECK(cudaMemcpy(&bad, w->cnt + CNT_TRIM, sizeof bad, cudaMemcpyDeviceToHost));
    }
    st->symmetric = w->symmetric = !bad;
    st->symmetric_ms = scc_now_ms() - ts;
out:
    return rc;
}

/* The SCCs are the connected components: d_comp holds the first parents
 * (scc_sym_check); every vertex is finished here. */
int scc_components(const struct dgraph *dg, uint32_t *d_comp, struct wx_error *err)
{
    int rc = WX_OK;
    const uint32_t n = (uint32_t)dg->n_vertices;
    scc_cc_hook<<<grid_for(n), SCC_BLOCK>>>(dg->d_offsets, dg->d_targets, n, d_comp);
    CUDA_CHECK_LAUNCH("scc_cc_hook");
    scc_cc_flatten<<<grid_for(n), SCC_BLOCK>>>(n, d_comp);
    CUDA_CHECK_LAUNCH("scc_cc_flatten");
    CUDA_CHECK(cudaDeviceSynchronize());
out:
    return rc;
}
