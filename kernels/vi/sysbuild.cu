/*
 * sysbuild.cu -- step 3 of analysis/mdpcheck.h on a device MDP
 * (valiter_system_dev, kernels/mdp_dev.h): the maybe-state system without
 * MEC collapse built from the MDP in GPU memory, with step 2a's cut, the
 * twin of analysis/mdpcheck_system.c's sys_passes and
 * analysis/relevant.c's relevant_restrict; valiter_cut_dev runs the cut
 * and the ranks alone (mdpcheck.h's cut, where the host builds the system).
 *
 *   cut     a forward search from the initial maybe states over the usable
 *           choices into maybe states (one launch per BFS level); the
 *           maybe states it misses become skip
 *   ranks   an exclusive CUB scan of the maybe flags in state order: loc,
 *           back (relevant_restrict's numbering)
 *   count   per system state its usable choices and their entries into
 *           maybe states; scanned into the row offsets
 *   fill    per system state, its choices in order: each entry into a maybe
 *           state copied (target renumbered), the constant b summed in
 *           entry order from the same terms as the host's loop (rewards:
 *           0 + state's + choice's; probabilities: the entries into yes,
 *           one after the other), so the system is the host's bit for bit
 *
 * The classes (n bytes) and the usable choices go up; the system, the
 * classes after the cut and the ranks come down into the caller's arrays
 * (staged through pinned buffers: kernels/hostcopy.h).
 */
#include <cub/cub.cuh>

#include "vi_int.cuh"

extern "C" {
#include "../hostcopy.h"
#include "../mdp_dev.h"
}

static __global__ void vs_seed(const uint8_t *__restrict__ cls, const uint8_t *__restrict__ initial, uint8_t maybe,
                               ull n, uint32_t *vis, uint32_t *front, ull *count)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x)
        if (initial[s] && cls[s] == maybe) {
            vis[s] = 1;
            front[atomicAdd(count, 1ull)] = (uint32_t)s;
        }
}

/* One BFS level forward: a thread per frontier state; each state is
 * claimed once (atomicCAS on vis). */
static __global__ void vs_expand(const uint32_t *__restrict__ front, ull nfront, uint32_t *next, ull *nnext,
                                 const ull *__restrict__ ss, const ull *__restrict__ cs,
                                 const uint32_t *__restrict__ tg, const uint8_t *__restrict__ ok,
                                 const uint8_t *__restrict__ cls, uint8_t maybe, uint32_t *vis)
{
    for (ull i = blockIdx.x * (ull)blockDim.x + threadIdx.x; i < nfront; i += (ull)gridDim.x * blockDim.x) {
        const uint32_t s = front[i];
        for (ull c = ss[s]; c < ss[s + 1]; c++) {
            if (ok && !ok[c])
                continue;
            for (ull e = cs[c]; e < cs[c + 1]; e++) {
                const uint32_t t = tg[e];
                if (cls[t] == maybe && !*(volatile uint32_t *)&vis[t] && atomicCAS(&vis[t], 0u, 1u) == 0u)
                    next[atomicAdd(nnext, 1ull)] = t;
            }
        }
    }
}

/* The cut's result (cls: maybe -> skip when not reached, when vis is not
 * NULL) and the maybe flags of the rank scan (flag[n] = 0). */
static __global__ void vs_flags(uint8_t *cls, const uint32_t *__restrict__ vis, uint8_t maybe, uint8_t skip, ull n,
                                uint32_t *flag)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s <= n; s += (ull)gridDim.x * blockDim.x) {
        if (s == n) {
            flag[n] = 0;
            continue;
        }
        if (vis && cls[s] == maybe && !vis[s])
            cls[s] = skip;
        flag[s] = cls[s] == maybe;
    }
}

/* loc[s] = rank (scanned in place) or UINT32_MAX; back[rank] = s. */
static __global__ void vs_ranks(const uint8_t *__restrict__ cls, uint8_t maybe, ull n, uint32_t *loc, uint32_t *back)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x) {
        if (cls[s] == maybe)
            back[loc[s]] = (uint32_t)s;
        else
            loc[s] = UINT32_MAX;
    }
}

/* sys_count: per system state k (maybe state back[k]) its usable choices
 * and their entries into maybe states; the smallest k without a choice in
 * *bad (atomicMin). */
static __global__ void vs_count(const uint32_t *__restrict__ back, ull ns, const ull *__restrict__ ss,
                                const ull *__restrict__ cs, const uint32_t *__restrict__ tg,
                                const uint8_t *__restrict__ ok, const uint8_t *__restrict__ cls, uint8_t maybe,
                                ull *ccount, ull *ecount, ull *bad)
{
    for (ull k = blockIdx.x * (ull)blockDim.x + threadIdx.x; k < ns; k += (ull)gridDim.x * blockDim.x) {
        const uint32_t s = back[k];
        ull nc = 0, ne = 0;
        for (ull c = ss[s]; c < ss[s + 1]; c++) {
            if (ok && !ok[c])
                continue;
            nc++;
            for (ull e = cs[c]; e < cs[c + 1]; e++)
                ne += cls[tg[e]] == maybe;
        }
        ccount[k] = nc;
        ecount[k] = ne;
        if (!nc)
            atomicMin(bad, k);
    }
}

struct vs_fill_args {
    const uint32_t *back, *loc;
    ull ns;
    const ull *ss, *cs;
    const uint32_t *tg;
    const double *pr;
    const uint8_t *ok, *cls;
    uint8_t maybe, yes;
    int is_reward;
    const double *srew, *crew; /* NULL: 0 */
    const ull *sstart, *estart; /* scanned counts */
    ull *ocs;                   /* out: choice_start (ocs[0] preset to 0) */
    uint32_t *otg;
    double *opr, *ob;
};

/* sys_fill: the same loop, the same additions in the same order. */
static __global__ void vs_fill(struct vs_fill_args a)
{
    for (ull k = blockIdx.x * (ull)blockDim.x + threadIdx.x; k < a.ns; k += (ull)gridDim.x * blockDim.x) {
        const uint32_t s = a.back[k];
        ull nc = a.sstart[k], ne = a.estart[k];
        for (ull c = a.ss[s]; c < a.ss[s + 1]; c++) {
            if (a.ok && !a.ok[c])
                continue;
            double b = 0;
            if (a.is_reward) {
                double r = 0;
                if (a.srew)
                    r = __dadd_rn(r, a.srew[s]);
                if (a.crew)
                    r = __dadd_rn(r, a.crew[c]);
                b = r;
            }
            for (ull e = a.cs[c]; e < a.cs[c + 1]; e++) {
                const uint32_t t = a.tg[e];
                const uint8_t ct = a.cls[t];
                if (ct == a.maybe) {
                    a.otg[ne] = a.loc[t];
                    a.opr[ne++] = a.pr[e];
                } else if (ct == a.yes && !a.is_reward)
                    b = __dadd_rn(b, a.pr[e]);
            }
            a.ob[nc] = b;
            a.ocs[++nc] = ne;
        }
    }
}

/* In-place exclusive sum of v[0..n] (v[n] preset to 0: v[n] = the total). */
static int vs_scan(ull *v, ull n, struct vx_mem *mem, struct wx_error *err)
{
    int rc = WX_OK;
    size_t tb = 0;
    void *tmp = NULL;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, tb, v, v, (long long)n + 1));
    VX_AL(mem, tmp, tb, "system scan scratch");
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, tb, v, v, (long long)n + 1));
out:
    return rc;
}

/* Step 2a: the forward search from the initial maybe states into vis. */
static int vs_cut(const struct mdp_dev *d, const uint8_t *dcls, const uint8_t *dok, const uint8_t *initial,
                  uint8_t maybe, uint32_t *vis, struct vx_mem *mem, struct wx_error *err)
{
    int rc = WX_OK;
    const ull n = d->n_states;
    uint8_t *dinit = NULL;
    uint32_t *front[2] = {NULL, NULL};
    ull *cnt = NULL, nfront = 0;
    VX_UP(mem, dinit, initial, n, "initial states");
    VX_AL(mem, front[0], n * sizeof(uint32_t), "cut frontier");
    VX_AL(mem, front[1], n * sizeof(uint32_t), "cut frontier");
    VX_AL(mem, cnt, 2 * sizeof(ull), "cut counters");
    CUDA_CHECK(cudaMemset(vis, 0, n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(cnt, 0, 2 * sizeof(ull)));
    vs_seed<<<vx_blocks(n), VI_GPU_THREADS>>>(dcls, dinit, maybe, n, vis, front[0], &cnt[0]);
    CUDA_CHECK_LAUNCH("vs_seed");
    CUDA_CHECK(cudaMemcpy(&nfront, &cnt[0], sizeof(ull), cudaMemcpyDeviceToHost));
    for (int lv = 0; nfront; lv ^= 1) {
        CUDA_CHECK(cudaMemset(&cnt[lv ^ 1], 0, sizeof(ull)));
        vs_expand<<<vx_blocks(nfront), VI_GPU_THREADS>>>(front[lv], nfront, front[lv ^ 1], &cnt[lv ^ 1],
                                                         (const ull *)d->d_state_start,
                                                         (const ull *)d->d_choice_start, d->d_targets, dok, dcls,
                                                         maybe, vis);
        CUDA_CHECK_LAUNCH("vs_expand");
        CUDA_CHECK(cudaMemcpy(&nfront, &cnt[lv ^ 1], sizeof(ull), cudaMemcpyDeviceToHost));
    }
out:
    return rc;
}

/* The classes after the cut, the ranks (loc, back: device, n + 1 and n
 * entries) and the number of maybe states. */
static int vs_rank(const struct mdp_dev *d, uint8_t *dcls, const uint32_t *vis, uint8_t maybe, uint8_t skip,
                   uint32_t *loc, uint32_t *back, ull *n_maybe, struct vx_mem *mem, struct wx_error *err)
{
    int rc = WX_OK;
    const ull n = d->n_states;
    size_t tb = 0;
    void *tmp = NULL;
    uint32_t total = 0;
    vs_flags<<<vx_blocks(n + 1), VI_GPU_THREADS>>>(dcls, vis, maybe, skip, n, loc);
    CUDA_CHECK_LAUNCH("vs_flags");
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, tb, loc, loc, (long long)n + 1));
    VX_AL(mem, tmp, tb, "rank scan scratch");
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, tb, loc, loc, (long long)n + 1));
    CUDA_CHECK(cudaMemcpy(&total, &loc[n], sizeof total, cudaMemcpyDeviceToHost));
    vs_ranks<<<vx_blocks(n), VI_GPU_THREADS>>>(dcls, maybe, n, loc, back);
    CUDA_CHECK_LAUNCH("vs_ranks");
    *n_maybe = total;
out:
    return rc;
}

/* Reward arrays of the fill (NULL where absent or not a reward system). */
static int vs_rewards(const struct mdp_dev *d, const struct mdpcheck_sysbuild *q, const double **srew,
                      const double **crew, struct vx_mem *mem, struct wx_error *err)
{
    int rc = WX_OK;
    *srew = *crew = NULL;
    if (q->is_reward && q->rew && q->rew->state)
        VX_UP(mem, *srew, q->rew->state, d->n_states * sizeof(double), "state rewards");
    if (q->is_reward && q->rew && q->rew->choice)
        VX_UP(mem, *crew, q->rew->choice, d->n_choices * sizeof(double), "choice rewards");
out:
    return rc;
}

/* Count, scan, fill the system of the ns ranked maybe states, and copy it
 * into q->sys's host arrays. */
static int vs_system(const struct mdp_dev *d, struct mdpcheck_sysbuild *q, const uint8_t *dcls, const uint8_t *dok,
                     const uint32_t *loc, const uint32_t *back, ull ns, struct vx_mem *mem, struct wx_error *err)
{
    int rc = WX_OK;
    ull *ccount = NULL, *ecount = NULL, *bad = NULL, h[3], zero = 0, none = ~0ull;
    struct vs_fill_args a;
    memset(&a, 0, sizeof a);
    VX_AL(mem, ccount, (ns + 1) * sizeof(ull), "system state offsets");
    VX_AL(mem, ecount, (ns + 1) * sizeof(ull), "system entry offsets");
    VX_AL(mem, bad, sizeof(ull), "system check");
    CUDA_CHECK(cudaMemcpy(bad, &none, sizeof none, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(&ccount[ns], &zero, sizeof zero, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(&ecount[ns], &zero, sizeof zero, cudaMemcpyHostToDevice));
    if (ns) {
        vs_count<<<vx_blocks(ns), VI_GPU_THREADS>>>(back, ns, (const ull *)d->d_state_start,
                                                    (const ull *)d->d_choice_start, d->d_targets, dok, dcls,
                                                    q->cls_maybe, ccount, ecount, bad);
        CUDA_CHECK_LAUNCH("vs_count");
    }
    CUDA_CHECK(cudaMemcpy(&h[0], bad, sizeof(ull), cudaMemcpyDeviceToHost));
    if (h[0] != ~0ull) { /* an internal error the caller reports */
        q->no_choice = h[0];
        goto out;
    }
    if ((rc = vs_scan(ccount, ns, mem, err)) != WX_OK || (rc = vs_scan(ecount, ns, mem, err)) != WX_OK)
        goto out;
    CUDA_CHECK(cudaMemcpy(&h[1], &ccount[ns], sizeof(ull), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&h[2], &ecount[ns], sizeof(ull), cudaMemcpyDeviceToHost));
    a.back = back, a.loc = loc, a.ns = ns;
    a.ss = (const ull *)d->d_state_start, a.cs = (const ull *)d->d_choice_start, a.tg = d->d_targets;
    a.pr = d->d_probs, a.ok = dok, a.cls = dcls, a.maybe = q->cls_maybe, a.yes = q->cls_yes;
    a.is_reward = q->is_reward, a.sstart = ccount, a.estart = ecount;
    if ((rc = vs_rewards(d, q, &a.srew, &a.crew, mem, err)) != WX_OK)
        goto out;
    VX_AL(mem, a.ocs, (h[1] + 1) * sizeof(ull), "system choice offsets");
    VX_AL(mem, a.otg, h[2] * sizeof(uint32_t), "system targets");
    VX_AL(mem, a.opr, h[2] * sizeof(double), "system probabilities");
    VX_AL(mem, a.ob, h[1] * sizeof(double), "system constants");
    CUDA_CHECK(cudaMemcpy(a.ocs, &zero, sizeof zero, cudaMemcpyHostToDevice));
    if (ns) {
        vs_fill<<<vx_blocks(ns), VI_GPU_THREADS>>>(a);
        CUDA_CHECK_LAUNCH("vs_fill");
    }
    {
        const struct hostcopy_part parts[5] = {{q->sys.state_start, ccount, (ns + 1) * sizeof(ull)},
                                               {q->sys.choice_start, a.ocs, (h[1] + 1) * sizeof(ull)},
                                               {q->sys.targets, a.otg, h[2] * sizeof(uint32_t)},
                                               {q->sys.probs, a.opr, h[2] * sizeof(double)},
                                               {q->sys.b, a.ob, h[1] * sizeof(double)}};
        if ((rc = hostcopy_down_parts(parts, 5, err)) != WX_OK)
            goto out;
    }
    q->sys.n_states = ns, q->sys.n_choices = h[1], q->sys.n_entries = h[2];
out:
    return rc;
}

/* The device side of step 2a and the ranks, shared by both entry points. */
struct vs_ranked {
    uint8_t *cls, *ok;    /* device: the classes (after the cut), the usable choices or NULL */
    uint32_t *loc, *back; /* device: ranks (n + 1), maybe states (n) */
    ull ns;               /* maybe states after the cut */
};

/* Checks that d is m's twin (WX_EINPUT otherwise; *host 1 where the host
 * must do the work: no state, or beyond the ranks), uploads the classes
 * and usable choices, runs the cut from initial (NULL: none) and ranks the
 * maybe states into *v (its arrays join *mem). */
static int vs_cut_rank(const struct mdp_dev *d, const struct mdp *m, const uint8_t *cls, const uint8_t *ok,
                       const uint8_t *initial, uint8_t maybe, uint8_t skip, const char *what, struct vs_ranked *v,
                       int *host, struct vx_mem *mem, struct wx_error *err)
{
    int rc = WX_OK;
    const ull n = d->n_states;
    uint32_t *vis = NULL;
    memset(v, 0, sizeof *v);
    *host = 1;
    if (!m || m->n_states != n || m->n_choices != d->n_choices || m->n_entries != d->n_entries)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s on the device: the device MDP is not the model", what);
    if (n == 0 || n > 0xffffffffull)
        return WX_OK;
    if (!valiter_gpu_available())
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "no usable CUDA device (sm_90 or newer) for the %s", what);
    *host = 0;
    VX_UP(mem, v->cls, cls, n, "classes");
    if (ok)
        VX_UP(mem, v->ok, ok, d->n_choices, "usable choices");
    VX_AL(mem, v->loc, (n + 1) * sizeof(uint32_t), "ranks");
    VX_AL(mem, v->back, n * sizeof(uint32_t), "maybe states");
    if (initial) {
        VX_AL(mem, vis, n * sizeof(uint32_t), "cut marks");
        if ((rc = vs_cut(d, v->cls, v->ok, initial, maybe, vis, mem, err)) != WX_OK)
            goto out;
    }
    rc = vs_rank(d, v->cls, vis, maybe, skip, v->loc, v->back, &v->ns, mem, err);
out:
    return rc;
}

/* The classes (when cls is not NULL) and the ranks of *v into host arrays. */
static int vs_ranks_down(const struct vs_ranked *v, ull n, uint8_t *cls, uint32_t *loc, uint32_t *back,
                         struct wx_error *err)
{
    const struct hostcopy_part parts[3] = {{cls, v->cls, cls ? n : 0},
                                           {loc, v->loc, n * sizeof(uint32_t)},
                                           {back, v->back, v->ns * sizeof(uint32_t)}};
    return hostcopy_down_parts(parts, 3, err);
}

extern "C" int valiter_system_dev(const struct mdp_dev *d, struct mdpcheck_sysbuild *q, struct wx_error *err)
{
    struct vx_mem mem = {{0}, 0};
    struct vs_ranked v;
    int host = 1;
    q->built = 0;
    q->no_choice = ~0ull;
    if (d->n_entries && !d->d_probs) /* NULL where there is no entry (mdp_dev.h) */
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "system on the device: the device MDP has no probabilities");
    int rc = vs_cut_rank(d, q->m, q->cls, q->ok, q->initial, q->cls_maybe, q->cls_skip, "system", &v, &host, &mem,
                         err);
    if (rc == WX_OK && !host && (rc = vs_system(d, q, v.cls, v.ok, v.loc, v.back, v.ns, &mem, err)) == WX_OK &&
        (rc = vs_ranks_down(&v, d->n_states, q->initial ? q->cls : NULL, q->loc, q->back, err)) == WX_OK) {
        q->n_maybe = v.ns;
        q->built = 1;
    }
    vx_free_all(&mem);
    return rc;
}

extern "C" int valiter_cut_dev(const struct mdp_dev *d, struct mdpcheck_cut *q, struct wx_error *err)
{
    struct vx_mem mem = {{0}, 0};
    struct vs_ranked v;
    int host = 1;
    q->done = 0;
    int rc = vs_cut_rank(d, q->m, q->cls, q->ok, q->initial, q->cls_maybe, q->cls_skip, "cut", &v, &host, &mem, err);
    if (rc == WX_OK && !host && (rc = vs_ranks_down(&v, d->n_states, q->cls, q->loc, q->back, err)) == WX_OK) {
        q->n_maybe = v.ns;
        q->done = 1;
    }
    vx_free_all(&mem);
    return rc;
}
