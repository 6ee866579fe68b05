/*
 * trim.cu -- step 2 of the GPU SCC (kernels/scc/scc_int.cuh): trimming.
 * A live vertex without a live in- or out-neighbour (other than itself) in
 * its own region is a singleton SCC.  The first trim (every vertex live,
 * one region) peels to the fixpoint, Kahn-style, in one persistent launch
 * (peel.cu); later ones are the topology-driven sweeps here, repeated while
 * a sweep removes at least 1/TRIM_MIN_SHARE of the live vertices (a Kahn
 * pass must first count every live edge; sweeps that stop when they stop
 * paying cost less there).
 *
 * RACES (global memory): rep[] is written by its owner while neighbours
 * read it.  A neighbour seen as already trimmed is a singleton SCC, hence
 * not in v's SCC, so ignoring it is right; seen as live, it only delays v.
 */
#include "scc_dev.cuh"

/* ---- trimming ---- */

/* One trim sweep; *count += vertices trimmed.  rep[v] == SCC_UNSET marks a
 * live vertex; a trimmed vertex is its own representative. */
__global__ void scc_trim(uint32_t n, const uint64_t *off, const uint32_t *tgt, const uint64_t *roff,
                         const uint32_t *rsrc, uint32_t *rep, const uint32_t *reg,
                         unsigned long long *count)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool trimmed = false;
    if (v < n && rep[v] == SCC_UNSET) {
        uint32_t r = reg[v];
        bool has_out = false, has_in = false;
        for (uint64_t e = off[v]; e < off[v + 1] && !has_out; e++) {
            uint32_t w = tgt[e];
            has_out = w != v && rep[w] == SCC_UNSET && reg[w] == r;
        }
        for (uint64_t e = roff[v]; has_out && e < roff[v + 1] && !has_in; e++) {
            uint32_t u = rsrc[e];
            has_in = u != v && rep[u] == SCC_UNSET && reg[u] == r;
        }
        if (!has_out || !has_in) {
            rep[v] = (uint32_t)v;
            trimmed = true;
        }
    }
    unsigned b = __ballot_sync(FULL_MASK, trimmed);
    if ((threadIdx.x & 31) == 0 && b)
        atomicAdd(count, (unsigned long long)__popc(b));
}

/* ---- host side ---- */

/* Trim sweeps while they pay (TRIM_MIN_SHARE); *live decreases. */
int scc_trim_phase(struct scc_work *w, uint64_t *live, struct scc_gpu_stats *st,
                   const struct scc_gpu_tuning *tu, struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned gv = grid_for(w->n);
    if (tu->trim_min_share == 0)
        return WX_OK;
    /* Kahn peeling to the fixpoint while the counts are plain degrees; later
     * (regions split) its counting pass costs a pass over every live edge
     * per phase, and topology sweeps that stop when they stop paying cost
     * less (bench/history/scc.md) */
    if (w->coop && w->all_live)
        return scc_peel(w, live, st, tu, err);
    for (uint32_t s = 0; s < tu->trim_max_sweeps && *live > 0; s++) {
        unsigned long long trimmed = 0;
        CUDA_CHECK(cudaMemset(w->cnt + CNT_TRIM, 0, sizeof trimmed));
        scc_trim<<<gv, SCC_BLOCK>>>(w->n, w->off, w->tgt, w->roff, w->rsrc, w->rep, w->reg,
                                    w->cnt + CNT_TRIM);
        CUDA_CHECK_LAUNCH("scc_trim");
        CUDA_CHECK(cudaMemcpy(&trimmed, w->cnt + CNT_TRIM, sizeof trimmed, cudaMemcpyDeviceToHost));
        st->trim_sweeps++;
        st->trimmed += trimmed;
        *live -= trimmed;
        if (trimmed == 0 || trimmed * tu->trim_min_share < *live)
            break;
    }
out:
    return rc;
}
