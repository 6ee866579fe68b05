/*
 * colour.cu -- step 4 of the GPU SCC (kernels/scc/scc_int.cuh): colour
 * rounds, alternating direction, each after a trim.  Every live vertex gets
 * col = the largest id that reaches it (or, in odd rounds, that it reaches)
 * within its region, by data-driven max propagation (propagate.cu: only
 * vertices whose label grew push again); a colour's root (col == own id)
 * then searches back within its colour: the vertices reached form the
 * root's SCC (col[v] == c and v reaches c, and c reaches v since c is v's
 * colour).  The others move to the region "colour c": SCC members share
 * their colour, and c lies in v's old region, so the regions stay
 * disjoint.  Every round finishes at least the SCC of each region's
 * largest vertex, so the loop terminates; ids in a topological-like order
 * (grid-DAGs, BFS-numbered state spaces) make most vertices their own root
 * in the first round, and alternating the direction handles the reverse
 * order.
 */
#include "scc_dev.cuh"

/* Colour labels are vertex id + 1 (so that 0 means "nothing"); reach
 * flags start at 0. */
__global__ void scc_colour_init(uint32_t n, const uint32_t *rep, uint32_t *col, uint32_t *reach)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && rep[v] == SCC_UNSET) {
        col[v] = (uint32_t)v + 1;
        reach[v] = 0;
    }
}

/* A colour's root (col == own id + 1) reaches itself. */
__global__ void scc_colour_roots(uint32_t n, const uint32_t *rep, const uint32_t *col, uint32_t *reach)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && rep[v] == SCC_UNSET && col[v] == (uint32_t)v + 1)
        reach[v] = 1;
}

/* Reached -> the SCC of the colour's root; otherwise the region becomes
 * the colour (unique: the root lies in v's old region). */
__global__ void scc_colour_finish(uint32_t n, uint32_t *rep, uint32_t *reg, const uint32_t *col,
                                  const uint32_t *reach, unsigned long long *live)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool still = false;
    if (v < n && rep[v] == SCC_UNSET) {
        if (reach[v]) {
            rep[v] = col[v] - 1;
        } else {
            reg[v] = col[v];
            still = true;
        }
    }
    unsigned bal = __ballot_sync(FULL_MASK, still);
    if ((threadIdx.x & 31) == 0 && bal)
        atomicAdd(live, (unsigned long long)__popc(bal));
}

/* ---- host side ---- */

/* One colouring round: colours by the largest id reaching (dir 0) or
 * reached from (dir 1) each vertex, then each colour's root reaches back. */
int scc_colour_round(struct scc_work *w, int dir, uint64_t *live, struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned gv = grid_for(w->n);
    unsigned long long left = 0;
    scc_colour_init<<<gv, SCC_BLOCK>>>(w->n, w->rep, w->col, w->reach);
    CUDA_CHECK_LAUNCH("scc_colour_init");
    rc = scc_propagate(w, scc_make_side(w, dir, w->col, 0), scc_make_side(w, dir, w->col, 0), 0, 1,
                       0, 0, NULL, err);
    if (rc != WX_OK || w->aborted)
        goto out;
    scc_colour_roots<<<gv, SCC_BLOCK>>>(w->n, w->rep, w->col, w->reach);
    CUDA_CHECK_LAUNCH("scc_colour_roots");
    rc = scc_propagate(w, scc_make_side(w, !dir, w->reach, 1), scc_make_side(w, !dir, w->reach, 1),
                       0, 1, 0, 0, w->col, err);
    if (rc != WX_OK || w->aborted)
        goto out;
    CUDA_CHECK(cudaMemset(w->cnt + CNT_LIVE, 0, sizeof left));
    scc_colour_finish<<<gv, SCC_BLOCK>>>(w->n, w->rep, w->reg, w->col, w->reach, w->cnt + CNT_LIVE);
    CUDA_CHECK_LAUNCH("scc_colour_finish");
    CUDA_CHECK(cudaMemcpy(&left, w->cnt + CNT_LIVE, sizeof left, cudaMemcpyDeviceToHost));
    if (left >= *live) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                     "GPU SCC: internal error: a colouring round finished no vertex (%llu live)",
                     (unsigned long long)*live);
        goto out;
    }
    *live = left;
out:
    return rc;
}
