/*
 * pivot.cu -- step 3 of the GPU SCC (kernels/scc/scc_int.cuh): pivot
 * searches.
 *
 * One forward-backward search from the live vertex with the largest
 * (in+1)(out+1) degree product, both directions at once over one flag byte
 * per vertex (scc_pivot_coop): the intersection is the pivot's SCC -- on
 * graphs with a giant SCC (tori, random graphs, most state spaces) this
 * removes most vertices in O(n + m) work, where label propagation would
 * need many label changes per vertex.  The rest splits into the regions
 * "forward only", "backward only" and "neither", which no SCC crosses.  A
 * frontier vertex of more than pivot_wide (32) edges is expanded by its
 * whole warp (state spaces have hubs), and a thread takes up to pivot_local
 * (2) of the vertices it has just claimed on itself, depth first, so a
 * level covers several BFS levels.
 *
 * Then multi-source rounds (Li et al., tuning fb_rounds, default 8), each
 * after a trim: every region (dense ids) elects a pivot, all pivots search
 * forward and backward at once within their regions, their SCCs are
 * finished, and every region splits into (forward only, backward only,
 * neither) subregions numbered densely by a CUB prefix sum over 3 codes per
 * region.  A few rounds help on chains of SCCs; all rounds multi-source
 * would take a round per SCC.
 *
 * RACES: flag bits change only by atomicOr; see scc_dev.cuh for the level
 * driver.
 */
#include <cub/cub.cuh>

#include "scc_dev.cuh"

/* Pivot election: the live vertex with the largest (in+1)*(out+1) degree
 * product (ties to the larger id), as a 64-bit key max. */
__global__ void scc_pivot_key(uint32_t n, const uint64_t *off, const uint64_t *roff,
                              const uint32_t *rep, unsigned long long *best)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long key = 0;
    if (v < n && rep[v] == SCC_UNSET) {
        uint64_t p = (off[v + 1] - off[v] + 1) * (roff[v + 1] - roff[v] + 1);
        key = (p > 0x7fffffffull ? 0x7fffffffull : p) << 32 | v;
        key |= 1ull << 63; /* a live vertex beats "none" even with key 0 */
    }
    for (int d = 16; d; d >>= 1) {
        unsigned long long o = __shfl_down_sync(FULL_MASK, key, d);
        key = o > key ? o : key;
    }
    if ((threadIdx.x & 31) == 0 && key && *best < key)
        atomicMax(best, key);
}

/* After the pivot's forward (fl) and backward (bl) searches: both -> the
 * pivot's SCC; otherwise the region becomes 1 + fl + 2 bl (all live
 * vertices were in region 0 before, so these keys are unique). */
__global__ void scc_pivot_finish(uint32_t n, uint32_t pivot, uint32_t *rep, uint32_t *reg,
                                 const uint32_t *fl, const uint32_t *bl, unsigned long long *live)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool still = false;
    if (v < n && rep[v] == SCC_UNSET) {
        uint32_t f = fl[v] != 0, b = bl[v] != 0;
        if (f && b) {
            rep[v] = pivot;
        } else {
            reg[v] = 1 + f + 2 * b;
            still = true;
        }
    }
    unsigned bal = __ballot_sync(FULL_MASK, still);
    if ((threadIdx.x & 31) == 0 && bal)
        atomicAdd(live, (unsigned long long)__popc(bal));
}

/* The pivot search's flags (one byte per vertex, four per word): PF_OUT for
 * vertices no longer live, both directions for the pivot. */
__global__ void scc_pivot_flags_init(uint32_t n, uint32_t pivot, const uint32_t *rep, uint32_t *flags)
{
    uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * k >= n)
        return;
    uint32_t word = 0;
    for (uint32_t j = 0; j < 4; j++) {
        uint64_t v = 4 * k + j;
        uint32_t f = v >= n || rep[v] != SCC_UNSET ? PF_OUT : v == pivot ? PF_FWD | PF_BWD : 0;
        word |= f << (8 * j);
    }
    flags[k] = word;
}

/* As scc_pivot_finish, from the flags. */
__global__ void scc_pivot_finish_flags(uint32_t n, uint32_t pivot, uint32_t *rep, uint32_t *reg,
                                       const uint32_t *flags, unsigned long long *live)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool still = false;
    if (v < n && rep[v] == SCC_UNSET) {
        uint32_t fl = (flags[v >> 2] >> (8 * (v & 3))) & 0xffu;
        uint32_t f = (fl & PF_FWD) != 0, b = (fl & PF_BWD) != 0;
        if (f && b) {
            rep[v] = pivot;
        } else {
            reg[v] = 1 + f + 2 * b;
            still = true;
        }
    }
    unsigned bal = __ballot_sync(FULL_MASK, still);
    if ((threadIdx.x & 31) == 0 && bal)
        atomicAdd(live, (unsigned long long)__popc(bal));
}
/* The pivot's forward (queue a, over off/tgt) and backward (queue b, over
 * roff/rsrc) reachability.  A vertex joins a side's queue once, when its
 * flag bit is claimed (atomicOr), so each side visits each vertex and edge
 * once; a thread that claims exactly one vertex follows it (it owns it). */
template <bool REG>
struct scc_pivot_body {
    const uint64_t *off, *roff;
    const uint32_t *tgt, *rsrc;
    uint32_t *flags, *qa0, *qa1, *qb0, *qb1;
    unsigned long long *cnt_a, *cnt_b;
    const uint32_t *reg; /* REG: the multi-source searches stay in their regions
                            (else one search: all live vertices in one region) */
    uint32_t local;      /* wide frontiers: buffered vertices a thread takes
                            on at once per item, depth first (0: none) */
    uint32_t wide;       /* a vertex of more edges than this on its side is
                            expanded by its whole warp (0: never) */

    /* The warp-shared expansion of the items whose lanes set is_wide: for
     * each in turn, the 32 lanes take consecutive edges (coalesced reads),
     * and the vertices claimed in one step are appended with one atomic
     * per warp.  Without it one thread walks a hub's edges alone (state
     * spaces have in-degree hubs), the overflow of the 8-entry buffer going
     * to one contended counter. */
    __device__ void expand_wide(bool is_wide, uint32_t wv, bool wfirst, uint32_t *next_a,
                                unsigned long long *ncnt_a, uint32_t *next_b,
                                unsigned long long *ncnt_b)
    {
        const unsigned lane = threadIdx.x & 31;
        unsigned todo = __ballot_sync(FULL_MASK, is_wide);
        while (todo) {
            const int src = __ffs(todo) - 1;
            todo &= todo - 1;
            const uint32_t v = __shfl_sync(FULL_MASK, wv, src);
            const bool f = __shfl_sync(FULL_MASK, (int)wfirst, src) != 0;
            const uint64_t *o = f ? off : roff;
            const uint32_t *adj = f ? tgt : rsrc;
            const uint32_t bit = f ? PF_FWD : PF_BWD;
            uint32_t *q = f ? next_a : next_b;
            unsigned long long *qc = f ? ncnt_a : ncnt_b;
            const uint32_t rv = REG ? reg[v] : 0;
            const uint64_t end = o[v + 1];
            for (uint64_t b = o[v]; b < end; b += 32) {
                const uint64_t e = b + lane;
                bool got = false;
                uint32_t w = 0;
                if (e < end) {
                    w = adj[e];
                    got = !(REG && reg[w] != rv) && !(scc_flag_load(flags, w) & (bit | PF_OUT)) &&
                          scc_flag_claim(flags, w, bit);
                }
                const unsigned gm = __ballot_sync(FULL_MASK, got);
                if (gm) {
                    unsigned long long base = 0;
                    if (lane == 0)
                        base = atomicAdd(qc, (unsigned long long)__popc(gm));
                    base = __shfl_sync(FULL_MASK, base, 0);
                    if (got)
                        q[base + __popc(gm & ((1u << lane) - 1))] = w;
                }
            }
        }
    }

    __device__ void level(uint32_t level, uint64_t ca, uint64_t cb, bool, uint64_t i0s,
                          uint64_t stride, uint32_t hops)
    {
        const uint64_t total = ca + cb;
        const uint32_t *cur_a = (level & 1) ? qa1 : qa0, *cur_b = (level & 1) ? qb1 : qb0;
        uint32_t *next_a = (level & 1) ? qa0 : qa1, *next_b = (level & 1) ? qb0 : qb1;
        unsigned long long *ncnt_a = cnt_a + (level + 1) % 3, *ncnt_b = cnt_b + (level + 1) % 3;
        for (uint64_t i0 = i0s; i0 < total; i0 += stride) {
            const uint64_t i = i0 + threadIdx.x;
            const bool first = i < ca;
            uint32_t buf[PUSH_CAP];
            uint32_t nb = 0, wv = 0;
            bool is_wide = false;
            if (i < total) {
                const uint64_t *o = first ? off : roff;
                const uint32_t *adj = first ? tgt : rsrc;
                const uint32_t bit = first ? PF_FWD : PF_BWD;
                uint32_t v = first ? __ldcg(cur_a + i) : __ldcg(cur_b + (i - ca));
                const uint32_t rv = REG ? reg[v] : 0; /* a chain stays in v's region */
                uint32_t steps = 0;
                if (wide && o[v + 1] - o[v] > wide) {
                    is_wide = true; /* below, with the whole warp */
                    wv = v;
                }
                for (uint32_t hop = 0; !is_wide; hop++) {
                    uint32_t found = 0, last = 0;
                    for (uint64_t e = o[v], end = o[v + 1]; e < end; e++) {
                        const uint32_t w = adj[e];
                        if (REG && reg[w] != rv)
                            continue;
                        /* the plain read saves atomics on wide frontiers;
                         * a chain step (hops) goes straight to the atomic,
                         * one memory round trip less per step */
                        if (!hops && (scc_flag_load(flags, w) & (bit | PF_OUT)))
                            continue;
                        if (!scc_flag_claim(flags, w, bit))
                            continue;
                        found++;
                        last = w;
                        SCC_APPEND(first, w);
                    }
                    /* one new vertex, the only one buffered: follow it */
                    if (found == 1 && nb == 1 && hop < hops) {
                        nb = 0;
                        v = last;
                        continue;
                    }
                    /* local expansion: take the newest buffered vertex on at
                     * once (this thread claimed it, so it owns it) while the
                     * buffer stays at most half full (a full one spills to
                     * single atomics) */
                    if (nb == 0 || steps >= local || nb > PUSH_CAP / 2)
                        break;
                    const uint32_t c = buf[nb - 1];
                    if (wide && o[c + 1] - o[c] > wide)
                        break; /* a wide one waits for the next level's warp */
                    steps++;
                    nb--;
                    v = c;
                }
            }
            scc_flush2(first, nb, buf, next_a, ncnt_a, next_b, ncnt_b);
            if (wide)
                expand_wide(is_wide, wv, first, next_a, ncnt_a, next_b, ncnt_b);
        }
    }
};

template <bool REG, bool BUDGET>
__global__ void __launch_bounds__(SCC_COOP_BLOCK, 1)
scc_pivot_coop(uint32_t level0, uint32_t chain_hops, struct scc_pivot_body<REG> body,
               unsigned long long *lv, unsigned long long budget_ns, unsigned long long *abort_f)
{
    uint32_t level = scc_run_levels<BUDGET>(body, level0, body.cnt_a, body.cnt_b, 0, 0, chain_hops, lv,
                                    budget_ns, abort_f);
    cg::this_grid().sync(); /* every block has read *lv */
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *lv = level;
}

/* ---- multi-source partition (Li et al.) ----
 * Regions are dense ids 0 .. R-1 here.  Election: per region, the live
 * vertex of largest (in+1)(out+1) degree product (ties to the larger id):
 * a 64-bit key max per region, reduced within each warp first (lanes of
 * one region agree by __match_any_sync), so a region of millions of
 * vertices costs one atomic per warp at most and none once its maximum is
 * in place. */
__global__ void scc_fb_elect(uint32_t n, const uint64_t *off, const uint64_t *roff,
                             const uint32_t *rep, const uint32_t *reg, unsigned long long *best)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const bool live = v < n && rep[v] == SCC_UNSET;
    const uint32_t r = live ? reg[v] : SCC_UNSET;
    uint32_t score = 0;
    if (live) {
        uint64_t p = (off[v + 1] - off[v] + 1) * (roff[v + 1] - roff[v] + 1);
        score = p > 0x7fffffffull ? 0x7fffffffu : (uint32_t)p;
    }
    const unsigned peers = __match_any_sync(FULL_MASK, r);
    const uint32_t smax = __reduce_max_sync(peers, score);
    const uint32_t vmax = __reduce_max_sync(peers, live && score == smax ? (uint32_t)v : 0u);
    if (live && (threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1)) {
        unsigned long long key = 1ull << 63 | (unsigned long long)smax << 32 | vmax;
        if (scc_vload64(&best[r]) < key)
            atomicMax(&best[r], key);
    }
}

/* The multi-source search's flags (as scc_pivot_flags_init, one thread per
 * four vertices) with every region's elected pivot in both queues (the
 * counters ca / cb start at 0). */
__global__ void scc_fb_init(uint32_t n, const uint32_t *rep, const uint32_t *reg,
                            const unsigned long long *best, uint32_t *flags, uint32_t *qa,
                            unsigned long long *ca, uint32_t *qb, unsigned long long *cb)
{
    uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t buf[4], nb = 0;
    if (4 * k < n) { /* no early return: the whole warp flushes below */
        uint32_t word = 0;
        for (uint32_t j = 0; j < 4; j++) {
            uint64_t v = 4 * k + j;
            uint32_t f = PF_OUT;
            if (v < n && rep[v] == SCC_UNSET) {
                f = 0;
                if ((uint32_t)best[reg[v]] == (uint32_t)v) {
                    f = PF_FWD | PF_BWD;
                    buf[nb++] = (uint32_t)v;
                }
            }
            word |= f << (8 * j);
        }
        flags[k] = word;
    }
    scc_flush2(true, nb, buf, qa, ca, qa, ca);
    scc_flush2(true, nb, buf, qb, cb, qb, cb);
}

/* Reached both ways -> the pivot's SCC; otherwise the subregion code
 * 3 * region + (forward) + 2 (backward), marked for the renumbering. */
__global__ void scc_fb_finish(uint32_t n, uint32_t *rep, uint32_t *reg,
                              const unsigned long long *best, const uint32_t *flags,
                              uint32_t *mark, unsigned long long *live)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool still = false;
    if (v < n && rep[v] == SCC_UNSET) {
        uint32_t fl = (flags[v >> 2] >> (8 * (v & 3))) & 0xffu;
        uint32_t f = (fl & PF_FWD) != 0, b = (fl & PF_BWD) != 0;
        uint32_t r = reg[v];
        if (f && b) {
            rep[v] = (uint32_t)best[r];
        } else {
            uint32_t code = 3 * r + f + 2 * b;
            reg[v] = code;
            mark[code] = 1;
            still = true;
        }
    }
    unsigned bal = __ballot_sync(FULL_MASK, still);
    if ((threadIdx.x & 31) == 0 && bal)
        atomicAdd(live, (unsigned long long)__popc(bal));
}

/* Subregion codes -> dense region ids (the exclusive prefix sum of the
 * marks). */
__global__ void scc_fb_renumber(uint32_t n, const uint32_t *rep, uint32_t *reg, const uint32_t *pos)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && rep[v] == SCC_UNSET)
        reg[v] = pos[reg[v]];
}

/* ---- host side ---- */

/* Forward-backward search from one pivot (the giant-SCC step); all live
 * vertices must be in region 0. */
int scc_pivot_phase(struct scc_work *w, uint64_t *live, struct scc_gpu_stats *st,
                    struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned gv = grid_for(w->n);
    unsigned long long key = 0, left = 0;
    uint32_t one = 1, pivot;
    struct scc_side a = scc_make_side(w, 0, w->col, 0), b = scc_make_side(w, 1, w->reach, 1);
    CUDA_CHECK(cudaMemset(w->cnt + CNT_PIVOT, 0, sizeof key));
    scc_pivot_key<<<gv, SCC_BLOCK>>>(w->n, w->off, w->roff, w->rep, w->cnt + CNT_PIVOT);
    CUDA_CHECK_LAUNCH("scc_pivot_key");
    CUDA_CHECK(cudaMemcpy(&key, w->cnt + CNT_PIVOT, sizeof key, cudaMemcpyDeviceToHost));
    if (!key)
        goto out; /* no live vertex */
    pivot = (uint32_t)key;
    if (w->coop) {
        uint32_t *flags = w->col; /* one byte per vertex */
        unsigned long long h[3] = {0, 0, 0};
        h[w->level % 3] = 1;
        scc_pivot_flags_init<<<grid_for((w->n + 3) / 4), SCC_BLOCK>>>(w->n, pivot, w->rep, flags);
        CUDA_CHECK_LAUNCH("scc_pivot_flags_init");
        CUDA_CHECK(cudaMemcpy(w->cnt + CNT_A, h, sizeof h, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(w->cnt + CNT_B, h, sizeof h, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(((w->level & 1) ? w->qa1 : w->qa0), &pivot, sizeof pivot,
                              cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(((w->level & 1) ? w->qb1 : w->qb0), &pivot, sizeof pivot,
                              cudaMemcpyHostToDevice));
        uint32_t level = w->level, hops = w->chain_hops;
        struct scc_pivot_body<false> body = {w->off, w->roff, w->tgt, w->rsrc, flags, w->qa0,
                                             w->qa1, w->qb0, w->qb1, w->cnt + CNT_A, w->cnt + CNT_B,
                                             NULL, w->pivot_local, w->pivot_wide};
        unsigned long long *lv = w->cnt + CNT_LEVEL, *ab = w->cnt + CNT_ABORT;
        unsigned long long bud = scc_budget_left(w);
        if (w->aborted)
            goto out;
        void *args[] = {&level, &hops, &body, &lv, &bud, &ab};
        rc = bud ? scc_coop_launch(w, COOP_PIVOT + 1, (const void *)scc_pivot_coop<false, true>,
                                   args, err)
                 : scc_coop_launch(w, COOP_PIVOT, (const void *)scc_pivot_coop<false, false>, args,
                                   err);
        if (rc == WX_OK)
            rc = scc_coop_levels(w, err);
        if (rc != WX_OK || w->aborted)
            goto out;
        CUDA_CHECK(cudaMemset(w->cnt + CNT_LIVE, 0, sizeof left));
        scc_pivot_finish_flags<<<gv, SCC_BLOCK>>>(w->n, pivot, w->rep, w->reg, flags,
                                                  w->cnt + CNT_LIVE);
        CUDA_CHECK_LAUNCH("scc_pivot_finish_flags");
        CUDA_CHECK(cudaMemcpy(&left, w->cnt + CNT_LIVE, sizeof left, cudaMemcpyDeviceToHost));
        st->pivot_scc = *live - left;
        *live = left;
        goto out;
    }
    CUDA_CHECK(cudaMemset(w->col, 0, (uint64_t)w->n * sizeof *w->col));
    CUDA_CHECK(cudaMemset(w->reach, 0, (uint64_t)w->n * sizeof *w->reach));
    CUDA_CHECK(cudaMemcpy(w->col + pivot, &one, sizeof one, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(w->reach + pivot, &one, sizeof one, cudaMemcpyHostToDevice));
    CUDA_CHECK(
        cudaMemcpy(((w->level & 1) ? a.q1 : a.q0), &pivot, sizeof pivot, cudaMemcpyHostToDevice));
    CUDA_CHECK(
        cudaMemcpy(((w->level & 1) ? b.q1 : b.q0), &pivot, sizeof pivot, cudaMemcpyHostToDevice));
    rc = scc_propagate(w, a, b, 1, 0, 1, 1, NULL, err);
    if (rc != WX_OK || w->aborted)
        goto out;
    CUDA_CHECK(cudaMemset(w->cnt + CNT_LIVE, 0, sizeof left));
    scc_pivot_finish<<<gv, SCC_BLOCK>>>(w->n, pivot, w->rep, w->reg, w->col, w->reach,
                                        w->cnt + CNT_LIVE);
    CUDA_CHECK_LAUNCH("scc_pivot_finish");
    CUDA_CHECK(cudaMemcpy(&left, w->cnt + CNT_LIVE, sizeof left, cudaMemcpyDeviceToHost));
    st->pivot_scc = *live - left;
    *live = left;
out:
    return rc;
}

/* One multi-source round (Li et al.): every region (dense ids 0 .. *nreg-1)
 * elects a pivot, all pivots search forward and backward at once within
 * their regions (the pivot engine with region checks), each pivot's SCC is
 * finished, and the rest splits into (forward only, backward only,
 * neither) subregions, numbered densely by a prefix sum over the codes.
 * Every region finishes >= 1 SCC (its pivot's), so *live decreases. */
int scc_fb_round(struct scc_work *w, uint32_t *nreg, uint64_t *live, struct scc_gpu_stats *st,
                 struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned gv = grid_for(w->n);
    const uint64_t R = *nreg, codes = 3 * R;
    unsigned long long pivots = 0, left = 0;
    uint32_t *flags = w->col; /* one byte per vertex */
    uint32_t last[2];
    if (!w->fb_best) {
        /* regions are at most n + 1 (dense, or the four after the pivot) */
        const uint64_t cap = 3 * ((uint64_t)w->n + 4);
        CUDA_CHECK(cudaMalloc((void **)&w->fb_best, ((uint64_t)w->n + 4) * sizeof *w->fb_best));
        CUDA_CHECK(cudaMalloc((void **)&w->fb_mark, cap * sizeof *w->fb_mark));
        CUDA_CHECK(cudaMalloc((void **)&w->fb_pos, cap * sizeof *w->fb_pos));
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, w->fb_temp_bytes, w->fb_mark, w->fb_pos,
                                                 (int64_t)cap));
        CUDA_CHECK(cudaMalloc(&w->fb_temp, w->fb_temp_bytes));
    }
    CUDA_CHECK(cudaMemset(w->fb_best, 0, R * sizeof *w->fb_best));
    scc_fb_elect<<<gv, SCC_BLOCK>>>(w->n, w->off, w->roff, w->rep, w->reg, w->fb_best);
    CUDA_CHECK_LAUNCH("scc_fb_elect");
    CUDA_CHECK(cudaMemset(w->cnt + CNT_A, 0, 3 * sizeof pivots));
    CUDA_CHECK(cudaMemset(w->cnt + CNT_B, 0, 3 * sizeof pivots));
    scc_fb_init<<<grid_for(((uint64_t)w->n + 3) / 4), SCC_BLOCK>>>(
        w->n, w->rep, w->reg, w->fb_best, flags, (w->level & 1) ? w->qa1 : w->qa0,
        w->cnt + CNT_A + w->level % 3, (w->level & 1) ? w->qb1 : w->qb0, w->cnt + CNT_B + w->level % 3);
    CUDA_CHECK_LAUNCH("scc_fb_init");
    CUDA_CHECK(
        cudaMemcpy(&pivots, w->cnt + CNT_A + w->level % 3, sizeof pivots, cudaMemcpyDeviceToHost));
    st->fb_pivots += pivots;
    {
        uint32_t level = w->level, hops = w->chain_hops;
        struct scc_pivot_body<true> body = {w->off, w->roff, w->tgt, w->rsrc, flags, w->qa0,
                                            w->qa1, w->qb0, w->qb1, w->cnt + CNT_A, w->cnt + CNT_B,
                                            w->reg, w->pivot_local, w->pivot_wide};
        unsigned long long *lv = w->cnt + CNT_LEVEL, *ab = w->cnt + CNT_ABORT;
        unsigned long long bud = scc_budget_left(w);
        if (w->aborted)
            goto out;
        void *args[] = {&level, &hops, &body, &lv, &bud, &ab};
        rc = bud ? scc_coop_launch(w, COOP_PIVOT_REG + 1, (const void *)scc_pivot_coop<true, true>,
                                   args, err)
                 : scc_coop_launch(w, COOP_PIVOT_REG, (const void *)scc_pivot_coop<true, false>,
                                   args, err);
        if (rc == WX_OK)
            rc = scc_coop_levels(w, err);
        if (rc != WX_OK || w->aborted)
            goto out;
    }
    CUDA_CHECK(cudaMemset(w->fb_mark, 0, codes * sizeof *w->fb_mark));
    CUDA_CHECK(cudaMemset(w->cnt + CNT_LIVE, 0, sizeof left));
    scc_fb_finish<<<gv, SCC_BLOCK>>>(w->n, w->rep, w->reg, w->fb_best, flags, w->fb_mark,
                                     w->cnt + CNT_LIVE);
    CUDA_CHECK_LAUNCH("scc_fb_finish");
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(w->fb_temp, w->fb_temp_bytes, w->fb_mark, w->fb_pos,
                                             (int64_t)codes));
    scc_fb_renumber<<<gv, SCC_BLOCK>>>(w->n, w->rep, w->reg, w->fb_pos);
    CUDA_CHECK_LAUNCH("scc_fb_renumber");
    CUDA_CHECK(cudaMemcpy(&left, w->cnt + CNT_LIVE, sizeof left, cudaMemcpyDeviceToHost));
    CUDA_CHECK(
        cudaMemcpy(&last[0], w->fb_pos + codes - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CUDA_CHECK(
        cudaMemcpy(&last[1], w->fb_mark + codes - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
    if (left >= *live || pivots == 0) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                     "GPU SCC: internal error: a multi-source round finished no vertex (%llu live, "
                     "%llu pivots)",
                     (unsigned long long)*live, pivots);
        goto out;
    }
    *nreg = last[0] + last[1];
    *live = left;
    st->fb_rounds++;
out:
    return rc;
}
