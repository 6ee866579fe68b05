/*
 * propagate.cu -- max-label propagation for the GPU SCC
 * (kernels/scc/scc_int.cuh): the colouring's labels and the colour roots'
 * searches (colour.cu), and the single pivot search of the per-level
 * engine (pivot.cu).  One launch per level (scc_push_level), or the whole
 * propagation in one persistent launch (scc_label_coop).
 */
#include "scc_dev.cuh"

/* ---- data-driven propagation (pivot search, colouring, reach) ----
 *
 * A "side" is one propagation: labels lab[] pushed along the edges adj[]
 * of off[] (the CSR for "forward", the transpose for "backward"), from the
 * vertices of the level's queue, within the pusher's region (and colour,
 * when COL): w takes max(lab[w], lab[v]) by atomicMax, and w joins the next
 * level's queue the first time its label grows in a level (stamp[w] holds
 * the last level w was queued for; levels are numbered globally, so the
 * stamps need no reset).  Queues are double-buffered by level parity;
 * their lengths rotate over three counters: level L reads cnt[L % 3],
 * appends to cnt[(L+1) % 3] and clears cnt[(L+2) % 3] (read by level L-1,
 * written next by level L+1), so levels run back to back without the host.
 * The first level of a propagation may take "all live vertices" instead of
 * a queue.  A propagation is finished when a level starts with empty queues.
 * Correctness: whenever lab[w] grows, w is in the next queue (or already
 * is, and pushes its latest label when processed, after the kernel
 * boundary), so at the end lab[w] >= lab[v] on every in-region edge v -> w:
 * lab[w] is the maximum over the vertices that reach w, i.e. the fixpoint.
 * Races: labels only grow (atomicMax); the early "lab[w] >= label" test
 * reads a possibly stale, smaller value and then only costs an atomic.
 */
/* (struct scc_side: scc_int.cuh) */

/* One push level.  The loop over the level's items runs warp-uniformly (the
 * bound is the same for the whole block), so that at its end all 32 lanes
 * flush the vertices they queued together: a warp-wide inclusive scan per
 * side gives each lane its offset and lane 31 reserves the warp's space with
 * one atomicAdd per side.  (Appending with one atomic per vertex, or per
 * group of lanes that happen to be converged, made the queue counter the
 * bottleneck: tens of microseconds per level on frontiers of 10^4-10^6.) */
template <bool COL>
__global__ void scc_push_level(uint32_t n, struct scc_side a, struct scc_side b, int two,
                               uint32_t level, int all, const uint32_t *rep, const uint32_t *reg,
                               const uint32_t *col)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        a.cnt[(level + 2) % 3] = 0;
        if (two)
            b.cnt[(level + 2) % 3] = 0;
    }
    const uint64_t ca = all ? n : a.cnt[level % 3];
    const uint64_t cb = two ? (all ? n : b.cnt[level % 3]) : 0;
    const uint64_t total = ca + cb;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint32_t *next_a = (level & 1) ? a.q0 : a.q1, *next_b = (level & 1) ? b.q0 : b.q1;
    unsigned long long *ncnt_a = a.cnt + (level + 1) % 3, *ncnt_b = b.cnt + (level + 1) % 3;
    for (uint64_t i0 = (uint64_t)blockIdx.x * blockDim.x; i0 < total; i0 += stride) {
        const uint64_t i = i0 + threadIdx.x;
        const bool first = i < ca;
        uint32_t buf[PUSH_CAP];
        uint32_t nb = 0;
        if (i < total) {
            /* the side's fields, selected one by one (no local-memory copy) */
            const uint64_t k = first ? i : i - ca;
            const uint64_t *off = first ? a.off : b.off;
            const uint32_t *adj = first ? a.adj : b.adj;
            uint32_t *lab = first ? a.lab : b.lab;
            uint32_t *stamp = first ? a.stamp : b.stamp;
            const uint32_t *cur = (level & 1) ? (first ? a.q1 : b.q1) : (first ? a.q0 : b.q0);
            const uint32_t v = all ? (uint32_t)k : cur[k];
            const uint32_t label = (all && rep[v] != SCC_UNSET) ? 0 : scc_vload(&lab[v]);
            if (label != 0) { /* 0 never raises a label */
                const uint32_t r = reg[v];
                const uint32_t cv = COL ? col[v] : 0;
                for (uint64_t e = off[v]; e < off[v + 1]; e++) {
                    const uint32_t w = adj[e];
                    if (rep[w] != SCC_UNSET || reg[w] != r || (COL && col[w] != cv))
                        continue;
                    if (scc_vload(&lab[w]) >= label)
                        continue;
                    if (atomicMax(&lab[w], label) < label &&
                        atomicExch(&stamp[w], level + 1) != level + 1) {
                        if (nb < PUSH_CAP) {
                            buf[nb++] = w;
                        } else {
                            unsigned long long *nc = first ? ncnt_a : ncnt_b;
                            (first ? next_a : next_b)[atomicAdd(nc, 1ull)] = w;
                        }
                    }
                }
            }
        }
        scc_flush2(first, nb, buf, next_a, ncnt_a, next_b, ncnt_b);
    }
}

/* Max-label propagation (the colouring, and the roots' searches when COL):
 * scc_push_level's rule.  Chain following: a thread whose item raised
 * exactly one label processes that vertex at once WITHOUT stamping it, so a
 * later raise by another thread still queues it (stamp unchanged); the
 * walker reads the label afresh, so every raise is followed by a push of
 * the raised value or a larger one -- the invariant of scc_push_level. */
template <bool COL>
struct scc_label_body {
    uint32_t n;
    struct scc_side a, b;
    const uint32_t *rep, *reg, *col;

    __device__ void level(uint32_t level, uint64_t ca, uint64_t cb, bool every, uint64_t i0s,
                          uint64_t stride, uint32_t hops)
    {
        const uint64_t total = ca + cb;
        uint32_t *next_a = (level & 1) ? a.q0 : a.q1, *next_b = (level & 1) ? b.q0 : b.q1;
        unsigned long long *ncnt_a = a.cnt + (level + 1) % 3, *ncnt_b = b.cnt + (level + 1) % 3;
        for (uint64_t i0 = i0s; i0 < total; i0 += stride) {
            const uint64_t i = i0 + threadIdx.x;
            const bool first = i < ca;
            uint32_t buf[PUSH_CAP];
            uint32_t nb = 0;
            if (i < total) {
                const uint64_t k = first ? i : i - ca;
                const uint64_t *off = first ? a.off : b.off;
                const uint32_t *adj = first ? a.adj : b.adj;
                uint32_t *lab = first ? a.lab : b.lab;
                uint32_t *stamp = first ? a.stamp : b.stamp;
                const uint32_t *cur = (level & 1) ? (first ? a.q1 : b.q1) : (first ? a.q0 : b.q0);
                uint32_t v = every ? (uint32_t)k : __ldcg(cur + k);
                bool skip = every && rep[v] != SCC_UNSET;
                for (uint32_t hop = 0; !skip; hop++) {
                    const uint32_t label = scc_vload(&lab[v]);
                    if (label == 0) /* 0 never raises a label */
                        break;
                    const uint32_t r = reg[v];
                    const uint32_t cv = COL ? col[v] : 0;
                    uint32_t raised = 0, one = 0;
                    for (uint64_t e = off[v], end = off[v + 1]; e < end; e++) {
                        const uint32_t w = adj[e];
                        if (rep[w] != SCC_UNSET || reg[w] != r || (COL && col[w] != cv))
                            continue;
                        if (scc_vload(&lab[w]) >= label)
                            continue;
                        if (atomicMax(&lab[w], label) >= label)
                            continue;
                        if (raised++ == 0) {
                            one = w; /* decided after the loop: follow or queue */
                            continue;
                        }
                        if (raised == 2 && atomicExch(&stamp[one], level + 1) != level + 1)
                            SCC_APPEND(first, one);
                        if (atomicExch(&stamp[w], level + 1) != level + 1)
                            SCC_APPEND(first, w);
                    }
                    if (raised != 1)
                        break;
                    if (hop >= hops) {
                        if (atomicExch(&stamp[one], level + 1) != level + 1)
                            SCC_APPEND(first, one);
                        break;
                    }
                    v = one;
                }
            }
            scc_flush2(first, nb, buf, next_a, ncnt_a, next_b, ncnt_b);
        }
    }
};

template <bool COL, bool BUDGET>
__global__ void __launch_bounds__(SCC_COOP_BLOCK, 1)
scc_label_coop(struct scc_label_body<COL> body, int two, uint32_t level0, int all,
               uint32_t chain_hops, unsigned long long *lv, unsigned long long budget_ns,
               unsigned long long *abort_f)
{
    uint32_t level = scc_run_levels<BUDGET>(body, level0, body.a.cnt, two ? body.b.cnt : NULL, all,
                                    body.n, chain_hops, lv, budget_ns, abort_f);
    cg::this_grid().sync();
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *lv = level;
}

/* ---- host side ---- */

struct scc_side scc_make_side(const struct scc_work *w, int backward, uint32_t *lab, int b_side)
{
    struct scc_side s;
    s.off = backward ? w->roff : w->off;
    s.adj = backward ? w->rsrc : w->tgt;
    s.lab = lab;
    s.stamp = b_side ? w->stamp_b : w->stamp_a;
    s.q0 = b_side ? w->qb0 : w->qa0;
    s.q1 = b_side ? w->qb1 : w->qa1;
    s.cnt = w->cnt + (b_side ? CNT_B : CNT_A);
    return s;
}

/* Runs a propagation (side a, and b when two) to its end.  all: the first
 * level pushes from every live vertex; else each side's queue for the
 * current level holds its first init_a / init_b entries (written by the
 * caller at parity w->level & 1).  col: restrict pushes to equal colours. */
int scc_propagate(struct scc_work *w, struct scc_side a, struct scc_side b, int two, int all,
                  uint64_t init_a, uint64_t init_b, const uint32_t *col, struct wx_error *err)
{
    int rc = WX_OK;
    unsigned long long h[3];
    uint32_t batch = 2;
    int first = all;
    for (int side = 0; side < 1 + two; side++) {
        h[w->level % 3] = side ? init_b : init_a;
        h[(w->level + 1) % 3] = 0;
        h[(w->level + 2) % 3] = 0;
        CUDA_CHECK(cudaMemcpy(side ? b.cnt : a.cnt, h, sizeof h, cudaMemcpyHostToDevice));
    }
    if (w->coop) {
        uint32_t level = w->level, hops = w->chain_hops;
        unsigned long long *lv = w->cnt + CNT_LEVEL, *ab = w->cnt + CNT_ABORT;
        unsigned long long bud = scc_budget_left(w);
        if (w->aborted)
            return WX_OK;
        if (col) {
            struct scc_label_body<true> body = {w->n, a, b, w->rep, w->reg, col};
            void *args[] = {&body, &two, &level, &all, &hops, &lv, &bud, &ab};
            rc = bud ? scc_coop_launch(w, COOP_LABEL_COL + 1,
                                       (const void *)scc_label_coop<true, true>, args, err)
                     : scc_coop_launch(w, COOP_LABEL_COL, (const void *)scc_label_coop<true, false>,
                                       args, err);
        } else {
            struct scc_label_body<false> body = {w->n, a, b, w->rep, w->reg, NULL};
            void *args[] = {&body, &two, &level, &all, &hops, &lv, &bud, &ab};
            rc = bud ? scc_coop_launch(w, COOP_LABEL + 1, (const void *)scc_label_coop<false, true>,
                                       args, err)
                     : scc_coop_launch(w, COOP_LABEL, (const void *)scc_label_coop<false, false>,
                                       args, err);
        }
        if (rc == WX_OK)
            rc = scc_coop_levels(w, err);
        return rc;
    }
    for (;;) {
        for (uint32_t k = 0; k < batch; k++) {
            if (col)
                scc_push_level<true><<<w->grid_levels, SCC_BLOCK>>>(w->n, a, b, two, w->level, first,
                                                                   w->rep, w->reg, col);
            else
                scc_push_level<false><<<w->grid_levels, SCC_BLOCK>>>(w->n, a, b, two, w->level, first,
                                                                    w->rep, w->reg, NULL);
            CUDA_CHECK_LAUNCH("scc_push_level");
            first = 0;
            w->level++;
            w->levels++;
        }
        unsigned long long ca = 0, cb = 0;
        CUDA_CHECK(cudaMemcpy(&ca, a.cnt + w->level % 3, sizeof ca, cudaMemcpyDeviceToHost));
        if (two)
            CUDA_CHECK(cudaMemcpy(&cb, b.cnt + w->level % 3, sizeof cb, cudaMemcpyDeviceToHost));
        if (ca == 0 && cb == 0)
            break;
        if (w->deadline_ms > 0 && scc_now_ms() > w->deadline_ms) {
            w->aborted = 1; /* the labels are discarded */
            break;
        }
        if (batch < LEVEL_BATCH_MAX)
            batch *= 2;
    }
out:
    return rc;
}
