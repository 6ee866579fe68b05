/*
 * precompute.cu -- the graph core of the GPU value iteration: Prob0A/0E/
 * 1A/1E (analysis/valiter.h, valiter_precompute_gpu and
 * valiter_precompute2_gpu), the twin of analysis/valiter.c's.
 *
 * The MDP is uploaded once per call (valiter_precompute2_gpu: once for two
 * sets, which mdpcheck asks for Pmax and Pmin); a predecessor index (for
 * each state t, the choices with an entry into t) is built on the device
 * by sorting (target, choice) pairs with CUB's radix sort and a binary
 * search per state for the row starts.  Every set is a least fixpoint
 * computed by a frontier-based backward search (one kernel launch per BFS
 * level, levels launched in batches with the frontier size kept on the
 * device):
 *     EXISTS  s joins R when s is eligible and some (usable) choice of s has
 *             an entry into R            (Prob0A; Prob1A's second phase;
 *                                         Prob1E's inner fixpoint)
 *     FORALL  s joins R when s is eligible and every choice of s has an
 *             entry into R: a per-choice "hit" flag and a per-state counter
 *             of choices not yet hit     (Prob0E)
 * with eligible = allowed and not a target (targets are the seeds).  A
 * deadlock state has no choice, so FORALL never adds it (its counter starts
 * at 0 and is never decremented).  Prob1A = complement of the states that
 * reach Prob0E's set through eligible states; Prob1E is the nested fixpoint
 * U := R(U) with R(U) the EXISTS search restricted to choices whose entries
 * all stay in U.
 *
 * LIMITS.  A backward search costs one launch per BFS level (a few us even
 * when the frontier is tiny: a deep, chain-like MDP pays for its depth), and
 * up to VI_GPU_BATCH_MAX - 1 empty launches after it ended; the whole MDP
 * must fit in device memory.
 *
 * Determinism: the sets are deterministic (fixpoints); the frontier order
 * inside a level varies from run to run and is never observed.
 */
#include <cub/cub.cuh>

#include "vi_int.cuh"

extern "C" {
#include "../mdp_dev.h"
}

/* Device view of the MDP plus the search state. */
struct vx_graph {
    ull n, nc, ne;
    const ull *ss, *cs;   /* state_start, choice_start */
    const uint32_t *tg;   /* targets */
    const uint8_t *allowed, *target; /* allowed may be NULL */
    uint32_t *cstate;     /* owner of each choice */
    ull *echoice;         /* choice of each entry (entry order) */
    uint32_t *pkey;       /* sorted targets (scratch) */
    ull *pchoice;         /* choices sorted by the target of their entry */
    ull *pstart;          /* n + 1: state t's predecessors are pchoice[pstart[t] .. pstart[t+1]) */
    uint8_t *elig;        /* allowed and not a target */
    uint32_t *mark;       /* R: nonzero = in the set */
    uint32_t *umark;      /* Prob1E's U */
    uint32_t *front[2];   /* frontiers (capacity n: a state is pushed once per search) */
    ull *count;           /* device: [1]: bad-input flag */
    ull *lvl;             /* device: BFS level counters (vx_search) */
    uint32_t *hit;        /* FORALL: choice has an entry into R */
    ull *rem;             /* FORALL: choices of the state not yet hit */
    uint8_t *usable;      /* Prob1E: choice's entries all in U */
    uint8_t *res;         /* n bytes: the answer */
    int reach_valid;      /* mark = the states reaching T (a VI_PMAX0 run's search) */
    ull reach;            /* their number */
};

static __global__ void vx_owner(const ull *__restrict__ ss, const ull *__restrict__ cs,
                                const uint32_t *__restrict__ tg, ull n, uint32_t *cstate, ull *echoice,
                                ull *bad)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x)
        for (ull c = ss[s]; c < ss[s + 1]; c++) {
            cstate[c] = (uint32_t)s;
            for (ull e = cs[c]; e < cs[c + 1]; e++) {
                echoice[e] = c;
                if (tg[e] >= n)
                    *bad = 1; /* benign: every writer stores 1 */
            }
        }
}

/* pstart[t] = first index of key t in the sorted keys (lower bound). */
static __global__ void vx_row_starts(const uint32_t *__restrict__ key, ull ne, ull n, ull *pstart)
{
    for (ull t = blockIdx.x * (ull)blockDim.x + threadIdx.x; t <= n; t += (ull)gridDim.x * blockDim.x) {
        ull lo = 0, hi = ne;
        while (lo < hi) {
            ull mid = lo + (hi - lo) / 2;
            if (key[mid] < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        pstart[t] = lo;
    }
}

static __global__ void vx_init_states(const ull *__restrict__ ss, const uint8_t *__restrict__ allowed,
                                      const uint8_t *__restrict__ target, ull n, uint8_t *elig, ull *rem)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x) {
        elig[s] = (!allowed || allowed[s]) && !target[s];
        if (rem)
            rem[s] = ss[s + 1] - ss[s];
    }
}

/* Marks and pushes every s with set[s] != 0 (the seeds of a search). */
static __global__ void vx_seed(const uint8_t *__restrict__ set, ull n, uint32_t *mark, uint32_t *front,
                               ull *count)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x)
        if (set[s]) {
            mark[s] = 1;
            front[atomicAdd(count, 1ull)] = (uint32_t)s;
        }
}

enum { VX_EXISTS = 0, VX_FORALL = 1 };

/* One BFS level backwards: VI_GPU_FRONT_LANES lanes per frontier state walk its
 * predecessor choices.  mark[s] is claimed with atomicCAS, so each state is
 * pushed once; the plain read before the CAS is only a shortcut (a stale 0
 * costs a failed CAS, never a double push).  FORALL: the first arrival at
 * choice c (atomicExch on hit[c]) decrements the owner's counter once per
 * choice; the arrival that takes it to 0 may add the owner. */
template <int RULE>
static __global__ void __launch_bounds__(VI_GPU_THREADS)
    vx_expand(const uint32_t *__restrict__ front, ull *lvl, ull level, uint32_t *next,
              const ull *__restrict__ pstart, const ull *__restrict__ pchoice,
              const uint32_t *__restrict__ cstate, const uint8_t *__restrict__ elig,
              const uint8_t *__restrict__ usable, uint32_t *mark, uint32_t *hit, ull *rem)
{
    /* level counters (see vx_search): this level's frontier size is
     * lvl[level % 3] (final: written by the previous launch), pushes go to
     * lvl[(level + 1) % 3] (zeroed by the previous launch), and
     * lvl[(level + 2) % 3] -- the previous level's input, no longer read --
     * is zeroed here for the next launch; lvl[3] sums the frontier sizes */
    const ull nfront = lvl[level % 3];
    ull *nnext = &lvl[(level + 1) % 3];
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        lvl[(level + 2) % 3] = 0;
        lvl[3] += nfront;
    }
    const ull tid = blockIdx.x * (ull)blockDim.x + threadIdx.x;
    const ull ngroups = (ull)gridDim.x * blockDim.x / VI_GPU_FRONT_LANES;
    const unsigned gl = threadIdx.x % VI_GPU_FRONT_LANES;
    for (ull i = tid / VI_GPU_FRONT_LANES; i < nfront; i += ngroups) {
        const uint32_t t = front[i];
        const ull k1 = pstart[t + 1];
        for (ull k = pstart[t] + gl; k < k1; k += VI_GPU_FRONT_LANES) {
            const ull c = pchoice[k];
            const uint32_t s = cstate[c];
            if (RULE == VX_EXISTS) {
                if ((usable && !usable[c]) || !elig[s] || *(volatile uint32_t *)&mark[s])
                    continue;
            } else {
                if (atomicExch(&hit[c], 1u) != 0u)
                    continue;
                if (atomicAdd(&rem[s], ~0ull) != 1ull || !elig[s])
                    continue;
            }
            if (atomicCAS(&mark[s], 0u, 1u) == 0u)
                next[atomicAdd(nnext, 1ull)] = s;
        }
    }
}

/* usable[c] = 0 when some entry of c leaves U (usable preset to 1). */
static __global__ void vx_usable(const uint32_t *__restrict__ tg, const ull *__restrict__ echoice, ull ne,
                                 const uint32_t *__restrict__ u, uint8_t *usable)
{
    for (ull e = blockIdx.x * (ull)blockDim.x + threadIdx.x; e < ne; e += (ull)gridDim.x * blockDim.x)
        if (!u[tg[e]])
            usable[echoice[e]] = 0; /* benign: every writer stores 0 */
}

static __global__ void vx_result(const uint32_t *__restrict__ mark, ull n, int invert, uint8_t *res)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x)
        res[s] = (uint8_t)((mark[s] != 0) ^ (invert != 0));
}

/* Backward search from the states with seeds[s] set, into g->mark (cleared
 * first).  Sets *in_r to the number of states in R.  The BFS levels are
 * launched in batches (VI_GPU_BATCH_MIN doubling up to VI_GPU_BATCH_MAX) without a
 * read-back per level: each vx_expand launch finds its frontier size on the
 * device (g->lvl, three rotating slots), a launch after the search ended
 * reads an empty frontier and does nothing, and the host reads the counters
 * once per batch (a deep search paid one synchronising copy per level). */
static int vx_search(struct vx_graph *g, int rule, const uint8_t *seeds, const uint8_t *usable, ull *in_r,
                     struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned bn = vx_blocks(g->n);
    /* grid-stride over any frontier; at most VI_GPU_FRONT_BLOCKS_PER_SM blocks
     * per SM: most levels' frontiers are small, and an empty block still
     * costs its launch */
    unsigned bf = vx_blocks(g->n * (ull)VI_GPU_FRONT_LANES);
    if (bf > (unsigned)vx_sms * VI_GPU_FRONT_BLOCKS_PER_SM)
        bf = (unsigned)vx_sms * VI_GPU_FRONT_BLOCKS_PER_SM;
    ull level = 0, batch = VI_GPU_BATCH_MIN, h[4];
    CUDA_CHECK(cudaMemset(g->mark, 0, g->n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(g->lvl, 0, 4 * sizeof(ull)));
    vx_seed<<<bn, VI_GPU_THREADS>>>(seeds, g->n, g->mark, g->front[0], &g->lvl[0]);
    CUDA_CHECK_LAUNCH("vx_seed");
    for (;;) {
        for (ull j = 0; j < batch; j++, level++) {
            uint32_t *in = g->front[level & 1], *out = g->front[(level + 1) & 1];
            if (rule == VX_EXISTS)
                vx_expand<VX_EXISTS><<<bf, VI_GPU_THREADS>>>(in, g->lvl, level, out, g->pstart, g->pchoice, g->cstate,
                                                         g->elig, usable, g->mark, NULL, NULL);
            else
                vx_expand<VX_FORALL><<<bf, VI_GPU_THREADS>>>(in, g->lvl, level, out, g->pstart, g->pchoice, g->cstate,
                                                         g->elig, NULL, g->mark, g->hit, g->rem);
            CUDA_CHECK_LAUNCH("vx_expand");
        }
        CUDA_CHECK(cudaMemcpy(h, g->lvl, sizeof h, cudaMemcpyDeviceToHost));
        if (h[level % 3] == 0) /* the frontier the next level would read */
            break;
        if (batch < VI_GPU_BATCH_MAX)
            batch *= 2;
    }
    *in_r = h[3];
out:
    return rc;
}

/* Uploads the MDP (m; or takes the device one, d, when not NULL) and the
 * sets, builds the predecessor index and the buffers of every search (the
 * Prob0E counters when forall, Prob1E's fixpoint set when fix) into *g;
 * every buffer joins *mem (d's arrays stay d's). */
static int vx_pre_setup(const struct mdp *m, const struct mdp_dev *d, const uint8_t *allowed, const uint8_t *target,
                        int forall, int fix, struct vx_graph *g, struct vx_mem *mem, struct wx_error *err)
{
    int rc = WX_OK;
    void *tmp = NULL;
    size_t tmp_bytes = 0;
    ull bad = 0;
    int bits = 1;
    const ull n = d ? d->n_states : m->n_states, nc = d ? d->n_choices : m->n_choices,
              ne = d ? d->n_entries : m->n_entries;
    memset(g, 0, sizeof *g);
    g->n = n, g->nc = nc, g->ne = ne;
    while (bits < 32 && (n >> bits))
        bits++;
    const unsigned bn = vx_blocks(n + 1);

    if (d) {
        g->ss = (const ull *)d->d_state_start, g->cs = (const ull *)d->d_choice_start, g->tg = d->d_targets;
    } else {
        VX_UP(mem, g->ss, m->state_start, (n + 1) * sizeof(ull), "state offsets");
        VX_UP(mem, g->cs, m->choice_start, (nc + 1) * sizeof(ull), "choice offsets");
        VX_UP(mem, g->tg, m->targets, ne * sizeof(uint32_t), "targets");
    }
    VX_UP(mem, g->target, target, n, "target set");
    if (allowed)
        VX_UP(mem, g->allowed, allowed, n, "allowed set");
    VX_AL(mem, g->cstate, nc * sizeof(uint32_t), "choice owners");
    VX_AL(mem, g->echoice, ne * sizeof(ull), "entry choices");
    VX_AL(mem, g->pkey, ne * sizeof(uint32_t), "predecessor keys");
    VX_AL(mem, g->pchoice, ne * sizeof(ull), "predecessor choices");
    VX_AL(mem, g->pstart, (n + 1) * sizeof(ull), "predecessor offsets");
    VX_AL(mem, g->elig, n, "eligible set");
    VX_AL(mem, g->mark, n * sizeof(uint32_t), "search set");
    VX_AL(mem, g->front[0], n * sizeof(uint32_t), "frontier");
    VX_AL(mem, g->front[1], n * sizeof(uint32_t), "frontier");
    VX_AL(mem, g->count, 2 * sizeof(ull), "counters");
    VX_AL(mem, g->lvl, 4 * sizeof(ull), "level counters");
    VX_AL(mem, g->res, n, "result");
    if (forall) {
        VX_AL(mem, g->hit, nc * sizeof(uint32_t), "choice flags");
        VX_AL(mem, g->rem, n * sizeof(ull), "choice counters");
    }
    if (fix) {
        VX_AL(mem, g->umark, n * sizeof(uint32_t), "fixpoint set");
        VX_AL(mem, g->usable, nc, "usable choices");
    }

    /* predecessor index */
    CUDA_CHECK(cudaMemset(g->count, 0, 2 * sizeof(ull)));
    vx_owner<<<bn, VI_GPU_THREADS>>>(g->ss, g->cs, g->tg, n, g->cstate, g->echoice, g->count + 1);
    CUDA_CHECK_LAUNCH("vx_owner");
    CUDA_CHECK(cudaMemcpy(&bad, g->count + 1, sizeof bad, cudaMemcpyDeviceToHost));
    if (bad) {
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "precomputation: an MDP entry goes to a state >= %llu", n);
        goto out;
    }
    if (ne) {
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, tmp_bytes, g->tg, g->pkey, g->echoice, g->pchoice, (long long)ne, 0,
                                           bits));
        VX_AL(mem, tmp, tmp_bytes, "sort workspace");
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, g->tg, g->pkey, g->echoice, g->pchoice, (long long)ne, 0,
                                           bits));
    }
    vx_row_starts<<<bn, VI_GPU_THREADS>>>(g->pkey, ne, n, g->pstart);
    CUDA_CHECK_LAUNCH("vx_row_starts");
out:
    return rc;
}

/* One precomputation on a set-up graph.  After VI_PMAX0, g->mark holds
 * the states that reach the target (g->reach_valid, g->reach states): the
 * first round of Prob1E's fixpoint (U = all states, every choice usable) is
 * exactly that search, so a VI_PMAX1 run after it starts from there. */
static int vx_pre_run(struct vx_graph *g, enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    int rc = WX_OK;
    ull in_r = 0;
    const ull n = g->n, nc = g->nc, ne = g->ne;
    const unsigned bn = vx_blocks(n + 1), be = vx_blocks(ne);
    /* eligible states; the Prob0E counters start at each state's choice count */
    vx_init_states<<<bn, VI_GPU_THREADS>>>(g->ss, g->allowed, g->target, n, g->elig,
                                       which == VI_PMIN0 || which == VI_PMIN1 ? g->rem : NULL);
    CUDA_CHECK_LAUNCH("vx_init_states");

    switch (which) {
    case VI_PMAX0: /* complement of: backward reachable from T through eligible states */
        if ((rc = vx_search(g, VX_EXISTS, g->target, NULL, &in_r, err)))
            goto out;
        vx_result<<<bn, VI_GPU_THREADS>>>(g->mark, n, 1, g->res);
        CUDA_CHECK_LAUNCH("vx_result");
        g->reach_valid = 1, g->reach = in_r;
        break;
    case VI_PMIN0:
    case VI_PMIN1:
        if (nc)
            CUDA_CHECK(cudaMemset(g->hit, 0, nc * sizeof(uint32_t)));
        if ((rc = vx_search(g, VX_FORALL, g->target, NULL, &in_r, err)))
            goto out;
        vx_result<<<bn, VI_GPU_THREADS>>>(g->mark, n, 1, g->res); /* Prob0E */
        CUDA_CHECK_LAUNCH("vx_result");
        g->reach_valid = 0;
        if (which == VI_PMIN1) {
            /* Pmin < 1 exactly where Prob0E's set is reachable through eligible states */
            if ((rc = vx_search(g, VX_EXISTS, g->res, NULL, &in_r, err)))
                goto out;
            vx_result<<<bn, VI_GPU_THREADS>>>(g->mark, n, 1, g->res);
            CUDA_CHECK_LAUNCH("vx_result");
        }
        break;
    case VI_PMAX1: {
        /* U := all; repeat U := R(U) until |R(U)| == |U| (R(U) is a subset of U) */
        ull in_u = n;
        uint32_t *u = g->umark;
        if (g->reach_valid) { /* R(all states), from the VI_PMAX0 run just before */
            CUDA_CHECK(cudaMemcpy(u, g->mark, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
            in_u = g->reach;
        } else
            CUDA_CHECK(cudaMemset(u, 0x01, n * sizeof(uint32_t)));
        g->reach_valid = 0;
        for (;;) {
            if (nc)
                CUDA_CHECK(cudaMemset(g->usable, 1, nc));
            vx_usable<<<be, VI_GPU_THREADS>>>(g->tg, g->echoice, ne, u, g->usable);
            CUDA_CHECK_LAUNCH("vx_usable");
            in_r = 0;
            if ((rc = vx_search(g, VX_EXISTS, g->target, g->usable, &in_r, err)))
                goto out;
            uint32_t *r = g->mark;
            g->mark = u; /* the old U becomes the next search's scratch */
            u = r;
            if (in_r == in_u)
                break;
            in_u = in_r;
        }
        g->umark = g->mark, g->mark = u; /* both stay owned by the graph's memory */
        vx_result<<<bn, VI_GPU_THREADS>>>(u, n, 0, g->res);
        CUDA_CHECK_LAUNCH("vx_result");
        break;
    }
    }
    CUDA_CHECK(cudaMemcpy(out, g->res, n, cudaMemcpyDeviceToHost));
out:
    return rc;
}

/* The checks shared by the entry points: counts and offsets (m's, or the
 * device MDP's d when not NULL: then its four end offsets are read back). */
static int vx_pre_check(const struct mdp *m, const struct mdp_dev *d, const uint8_t *target, enum vi_precomp which,
                        struct wx_error *err)
{
    int rc = WX_OK;
    const ull n = d ? d->n_states : m->n_states, nc = d ? d->n_choices : m->n_choices,
              ne = d ? d->n_entries : m->n_entries;
    ull ends[4];
    if (!target)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "precomputation: no target set");
    if (which != VI_PMAX0 && which != VI_PMIN0 && which != VI_PMAX1 && which != VI_PMIN1)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown precomputation %d", (int)which);
    if (n == 0)
        return WX_OK;
    if (n > 0xffffffffull)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "more than 2^32 - 1 states");
    if (!d) {
        ends[0] = m->state_start[0], ends[1] = m->state_start[n];
        ends[2] = m->choice_start[0], ends[3] = m->choice_start[nc];
        if (ends[0] != 0 || ends[1] != nc || ends[2] != 0 || ends[3] != ne)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "precomputation: inconsistent MDP offsets");
    }
    if (!valiter_gpu_available())
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "no usable CUDA device (sm_90 or newer) for the precomputation");
    if (d) {
        CUDA_CHECK(cudaMemcpy(&ends[0], d->d_state_start, sizeof(ull), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&ends[1], d->d_state_start + n, sizeof(ull), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&ends[2], d->d_choice_start, sizeof(ull), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&ends[3], d->d_choice_start + nc, sizeof(ull), cudaMemcpyDeviceToHost));
        if (ends[0] != 0 || ends[1] != nc || ends[2] != 0 || ends[3] != ne)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "precomputation: inconsistent MDP offsets");
    }
out:
    return rc;
}

/* k precomputations (1 or 2) on one upload of the MDP (none for a device
 * MDP d) and one predecessor index. */
static int vx_precompute(const struct mdp *m, const struct mdp_dev *d, const uint8_t *allowed, const uint8_t *target,
                         int k, const enum vi_precomp *which, uint8_t *const *out, struct wx_error *err)
{
    int rc, forall = 0, fix = 0;
    for (int i = 0; i < k; i++) {
        if ((rc = vx_pre_check(m, d, target, which[i], err)) != WX_OK)
            return rc;
        forall |= which[i] == VI_PMIN0 || which[i] == VI_PMIN1;
        fix |= which[i] == VI_PMAX1;
    }
    if ((d ? d->n_states : m->n_states) == 0)
        return WX_OK;
    struct vx_mem mem = {{0}, 0};
    struct vx_graph g;
    rc = vx_pre_setup(m, d, allowed, target, forall, fix, &g, &mem, err);
    for (int i = 0; i < k && rc == WX_OK; i++)
        rc = vx_pre_run(&g, which[i], out[i], err);
    vx_free_all(&mem);
    return rc;
}

extern "C" int valiter_precompute_gpu(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                                      enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    return vx_precompute(m, NULL, allowed, target, 1, &which, &out, err);
}

extern "C" int valiter_precompute2_gpu(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                                       enum vi_precomp a, uint8_t *out_a, enum vi_precomp b, uint8_t *out_b,
                                       struct wx_error *err)
{
    const enum vi_precomp which[2] = {a, b};
    uint8_t *const out[2] = {out_a, out_b};
    return vx_precompute(m, NULL, allowed, target, 2, which, out, err);
}

extern "C" int valiter_precompute_dev(const struct mdp_dev *d, const uint8_t *allowed, const uint8_t *target,
                                      enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    return vx_precompute(NULL, d, allowed, target, 1, &which, &out, err);
}

extern "C" int valiter_precompute2_dev(const struct mdp_dev *d, const uint8_t *allowed, const uint8_t *target,
                                       enum vi_precomp a, uint8_t *out_a, enum vi_precomp b, uint8_t *out_b,
                                       struct wx_error *err)
{
    const enum vi_precomp which[2] = {a, b};
    uint8_t *const out[2] = {out_a, out_b};
    return vx_precompute(NULL, d, allowed, target, 2, which, out, err);
}
