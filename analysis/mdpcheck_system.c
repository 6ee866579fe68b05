/*
 * mdpcheck_system.c -- step 3 of mdpcheck.h: the maybe-state system, with
 * the MECs collapsed for Pmax and Rmin (the decomposition on a thread of
 * its own while the system is built as if there were none).
 */
#include <stdlib.h>
#include <string.h>

#include "mdpcheck_int.h"
#include "mec.h"
#include "../util/pool.h"
#include "../util/timer.h"

/* The sub-MDP of collapse_mecs: the maybe states (local numbers x->loc),
 * their choices that pass the filter and stay among the maybe states; only
 * the graph (probs NULL): the MEC decomposition reads nothing else. */
struct sub_pass {
    const struct ctx *x;
    int zero_reward_only;
    struct mdp *sub;
    uint64_t *ccount, *ecount; /* per local state; scanned between the passes */
};

static int sub_keeps(const struct sub_pass *sp, uint32_t s, uint64_t c)
{
    const struct mdp *m = sp->x->m;
    if (!sp->x->ok[c] || (sp->zero_reward_only && choice_reward(sp->x, s, c) != 0))
        return 0;
    for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
        if (sp->x->loc[m->targets[e]] == UINT32_MAX)
            return 0;
    return 1;
}

static void sub_count(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    struct sub_pass *sp = arg;
    const struct mdp *m = sp->x->m;
    (void)chunk;
    for (uint64_t i = lo; i < hi; i++) {
        uint32_t s = sp->x->back[i];
        uint64_t nc = 0, ne = 0;
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            if (sub_keeps(sp, s, c))
                nc++, ne += m->choice_start[c + 1] - m->choice_start[c];
        sp->ccount[i] = nc;
        sp->ecount[i] = ne;
    }
}

static void sub_fill(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    struct sub_pass *sp = arg;
    const struct mdp *m = sp->x->m;
    const uint32_t *loc = sp->x->loc;
    struct mdp *sub = sp->sub;
    (void)chunk;
    for (uint64_t i = lo; i < hi; i++) {
        uint32_t s = sp->x->back[i];
        uint64_t sc = sp->ccount[i], se = sp->ecount[i];
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            if (!sub_keeps(sp, s, c))
                continue;
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                sub->targets[se++] = loc[m->targets[e]];
            sub->choice_start[++sc] = se;
        }
    }
}

/* The sub-MDP of the MEC decomposition and the decomposition itself, run
 * on a thread of its own (mec_main) while build_system builds the system
 * as if there were no MEC -- the common case, and the right system then;
 * when MECs come back, the system is rebuilt with them collapsed.  The
 * thread only reads x (loc, back, ok, the model, the rewards) and writes
 * its own struct, so the overlap changes nothing in the result. */
struct mec_job {
    struct ctx *x;
    struct mdp sub;
    uint64_t *ecount;
    struct mec_result mr;
    int rc;
    double seconds;
    struct wx_error err;
};

static void *mec_main(void *arg)
{
    struct mec_job *mj = arg;
    struct ctx *x = mj->x;
    wx_error_clear(&mj->err);
    double tm = wx_now();
    mj->rc = (x->o->mec ? x->o->mec : mec_cpu)(&mj->sub, &mj->mr, &mj->err);
    mj->seconds = wx_now() - tm;
    return NULL;
}

/* Builds the sub-MDP of the maybe states under the choices that pass the
 * filter (x->loc, x->back, x->n_maybe of the classes pass) into mj->sub. */
static int sub_build(struct ctx *x, int zero_reward_only, struct mec_job *mj,
                     struct wx_error *err)
{
    const struct mdp *m = x->m;
    uint64_t k = x->n_maybe;
    struct mdp *sub = &mj->sub;
    sub->n_states = k;
    /* no probabilities: the MEC decomposition reads only the graph
     * (analysis/mec.h), so sub.probs stays NULL (8 bytes per entry saved) */
    sub->state_start = mdpc_pool_take(x, POOL_SUB_STATE_START, (k + 1) * sizeof *sub->state_start, 0);
    sub->choice_start =
        mdpc_pool_take(x, POOL_SUB_CHOICE_START, (m->n_choices + 1) * sizeof *sub->choice_start, 0);
    sub->targets = mdpc_pool_take(x, POOL_SUB_TARGETS, (m->n_entries ? m->n_entries : 1) * sizeof *sub->targets, 0);
    mj->ecount = mdpc_pool_take(x, POOL_SUB_ECOUNT, (k + 1) * sizeof *mj->ecount, 0);
    if (!sub->state_start || !sub->choice_start || !sub->targets || !mj->ecount)
        return oom(err);
    /* two parallel passes over the maybe states: count the kept choices
     * and entries, scan, fill (the layout of the sequential loop) */
    struct sub_pass sp = {.x = x, .zero_reward_only = zero_reward_only, .sub = sub,
                          .ccount = sub->state_start, .ecount = mj->ecount};
    trace(x->o, "MEC sub-MDP: allocated");
    mdpc_par_for(x->o->threads, k, sub_count, &sp);
    exclusive_scan(sub->state_start, k);
    exclusive_scan(mj->ecount, k);
    sub->choice_start[0] = 0;
    mdpc_par_for(x->o->threads, k, sub_fill, &sp);
    sub->n_choices = sub->state_start[k];
    sub->n_entries = mj->ecount[k];
    trace(x->o, "MEC sub-MDP: built");
    return WX_OK;
}

/* From the MEC decomposition (mj->mr, n_mecs > 0): *internal (n_choices:
 * 1 for a choice inside a MEC) and *mec_of (n_states: the MEC of a maybe
 * state, MEC_NONE outside), both allocated here. */
static int mec_sets(struct ctx *x, int zero_reward_only, struct mec_job *mj, uint8_t **internal,
                    uint32_t **mec_of, struct wx_error *err)
{
    const struct mdp *m = x->m;
    uint64_t n = m->n_states, k = x->n_maybe;
    *internal = calloc(m->n_choices ? m->n_choices : 1, 1);
    *mec_of = malloc(n * sizeof **mec_of);
    if (!*internal || !*mec_of)
        return oom(err);
    for (uint64_t s = 0; s < n; s++)
        (*mec_of)[s] = x->loc[s] == UINT32_MAX ? MEC_NONE : mj->mr.mec[x->loc[s]];
    /* sub-MDP choice -> model choice: the kept choices in the fill's order */
    struct sub_pass sp = {.x = x, .zero_reward_only = zero_reward_only};
    uint64_t sc = 0;
    for (uint64_t i = 0; i < k; i++) {
        uint32_t s = x->back[i];
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            if (sub_keeps(&sp, s, c) && mj->mr.choice_in[sc++])
                (*internal)[c] = 1;
    }
    return WX_OK;
}

/* The passes of build_system: system state k gathers the usable,
 * non-internal choices of its members (model states in order): members
 * mstart[k] .. mstart[k+1]-1 of members, or with mstart NULL (no MEC
 * collapsed) the one maybe state back[k]. */
struct sys_pass {
    struct ctx *x;
    const uint8_t *internal;   /* NULL: no choice is internal */
    const uint64_t *mstart;    /* NULL: system state k = maybe state back[k] */
    const uint32_t *members;
    const uint32_t *sid;       /* system state of each maybe state */
    uint64_t *ccount, *ecount; /* per system state; scanned between the passes */
};

static void sys_count(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    struct sys_pass *sp = arg;
    const struct ctx *x = sp->x;
    const struct mdp *m = x->m;
    (void)chunk;
    for (uint64_t k = lo; k < hi; k++) {
        uint64_t nc = 0, ne = 0;
        uint64_t j0 = sp->mstart ? sp->mstart[k] : k, j1 = sp->mstart ? sp->mstart[k + 1] : k + 1;
        for (uint64_t j = j0; j < j1; j++) {
            uint32_t s = sp->members[j];
            for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
                if (!x->ok[c] || (sp->internal && sp->internal[c]))
                    continue;
                nc++;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                    ne += x->cls[m->targets[e]] == CLS_MAYBE;
            }
        }
        sp->ccount[k] = nc;
        sp->ecount[k] = ne;
    }
}

static void sys_fill(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    struct sys_pass *sp = arg;
    struct ctx *x = sp->x;
    const struct mdp *m = x->m;
    (void)chunk;
    for (uint64_t k = lo; k < hi; k++) {
        uint64_t nc = sp->ccount[k], ne = sp->ecount[k];
        uint64_t j0 = sp->mstart ? sp->mstart[k] : k, j1 = sp->mstart ? sp->mstart[k + 1] : k + 1;
        for (uint64_t j = j0; j < j1; j++) {
            uint32_t s = sp->members[j];
            for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
                if (!x->ok[c] || (sp->internal && sp->internal[c]))
                    continue;
                double b = x->is_reward ? choice_reward(x, s, c) : 0;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++) {
                    uint32_t t = m->targets[e];
                    if (x->cls[t] == CLS_MAYBE) {
                        x->targets[ne] = sp->sid[t];
                        x->probs[ne++] = m->probs[e];
                    } else if (x->cls[t] == CLS_YES && !x->is_reward)
                        b += m->probs[e];
                }
                x->b[nc] = b;
                x->choice_start[++nc] = ne;
            }
        }
    }
}

/* The system's two parallel passes (count, scan, fill: the layout of a
 * sequential loop) into x's arrays (upper-bound sizes), ns states. */
static int sys_passes(struct ctx *x, struct sys_pass *sp, uint64_t ns, struct mdpcheck_result *r,
                      struct wx_error *err)
{
    sp->ccount = x->state_start;
    mdpc_par_for(x->o->threads, ns, sys_count, sp);
    for (uint64_t k = 0; k < ns; k++)
        if (!x->state_start[k])
            return wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                           "internal error: system state %llu (model state %u) has no choice",
                           (unsigned long long)k, sp->members[sp->mstart ? sp->mstart[k] : k]);
    exclusive_scan(x->state_start, ns);
    exclusive_scan(sp->ecount, ns);
    x->choice_start[0] = 0;
    mdpc_par_for(x->o->threads, ns, sys_fill, sp);
    uint64_t nc = x->state_start[ns], ne = sp->ecount[ns];
    x->sys = (struct vi_system){.n_states = ns, .n_choices = nc, .n_entries = ne,
                                .state_start = x->state_start, .choice_start = x->choice_start,
                                .targets = x->targets, .probs = x->probs, .b = x->b};
    r->sys_states = ns;
    r->sys_choices = nc;
    r->sys_entries = ne;
    return WX_OK;
}

/* The system's arrays in x at their upper-bound sizes (x->n_maybe + 1
 * states, the model's choices and entries). */
static int sys_alloc(struct ctx *x, struct wx_error *err)
{
    const struct mdp *m = x->m;
    x->state_start = mdpc_pool_take(x, POOL_STATE_START, (x->n_maybe + 1) * sizeof *x->state_start, 0);
    x->choice_start = mdpc_pool_take(x, POOL_CHOICE_START, (m->n_choices + 1) * sizeof *x->choice_start, 0);
    x->targets = mdpc_pool_take(x, POOL_TARGETS, (m->n_entries ? m->n_entries : 1) * sizeof *x->targets, 0);
    x->probs = mdpc_pool_take(x, POOL_PROBS, (m->n_entries ? m->n_entries : 1) * sizeof *x->probs, 0);
    x->b = mdpc_pool_take(x, POOL_B, (m->n_choices ? m->n_choices : 1) * sizeof *x->b, 0);
    if (!x->state_start || !x->choice_start || !x->targets || !x->probs || !x->b)
        return oom(err);
    return WX_OK;
}

/* Step 3 through options.build_system (mdpcheck.h), with step 2a's cut
 * when cut is set: the system into x's arrays (upper-bound sizes), the
 * ranks into x->loc and x->back; *built 0 when the backend declined. */
int mdpc_build_system_dev(struct ctx *x, int cut, struct mdpcheck_result *r, int *built,
                          struct wx_error *err)
{
    const struct mdp *m = x->m;
    *built = 0;
    if (!x->o->build_system)
        return WX_OK;
    int rc = x->state_start ? WX_OK : sys_alloc(x, err);
    if (rc != WX_OK)
        return rc;
    struct mdpcheck_sysbuild q = {
        .m = m, .ok = x->p->kind == PROP_RMIN ? x->ok : NULL, .initial = cut ? x->initial : NULL,
        .rew = x->is_reward ? x->rew : NULL, .is_reward = x->is_reward, .cls_maybe = CLS_MAYBE,
        .cls_yes = CLS_YES, .cls_skip = CLS_SKIP, .cls = x->cls, .loc = x->loc, .back = x->back,
        .sys = {.state_start = x->state_start, .choice_start = x->choice_start,
                .targets = x->targets, .probs = x->probs, .b = x->b},
        .no_choice = UINT64_MAX};
    trace(x->o, "system: handed to the backend");
    rc = x->o->build_system(&q, err);
    if (rc != WX_OK || !q.built)
        return rc;
    *built = 1;
    if (q.no_choice != UINT64_MAX)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                       "internal error: system state %llu (model state %u) has no choice",
                       (unsigned long long)q.no_choice, x->back[q.no_choice]);
    x->n_maybe = q.n_maybe;
    x->sys = (struct vi_system){.n_states = q.sys.n_states, .n_choices = q.sys.n_choices,
                                .n_entries = q.sys.n_entries, .state_start = x->state_start,
                                .choice_start = x->choice_start, .targets = x->targets,
                                .probs = x->probs, .b = x->b};
    x->sid = x->loc, x->loc = NULL;
    r->sys_states = q.sys.n_states;
    r->sys_choices = q.sys.n_choices;
    r->sys_entries = q.sys.n_entries;
    r->system_backend = 1;
    if (cut)
        r->initial_only = r->cut_backend = 1;
    r->n_relevant = x->n_maybe;
    trace(x->o, "system: built by the backend");
    return WX_OK;
}

/* The system's numbering with the MECs collapsed: sid (n_states) the
 * system state of each maybe state, a MEC's at its smallest member, the
 * others in state order; mstart/members (*ns + 1, n_maybe) the members of
 * each system state in state order (a counting sort).  All allocated. */
static int mec_numbering(const struct ctx *x, uint64_t n_mecs, const uint32_t *mec_of,
                         uint32_t **sid_out, uint64_t **mstart_out, uint32_t **members_out,
                         uint64_t *ns_out, struct wx_error *err)
{
    const uint64_t n = x->m->n_states;
    uint64_t ns = 0;
    uint32_t *mec_sid = malloc(n_mecs * sizeof *mec_sid);
    uint32_t *sid = *sid_out = malloc(n * sizeof *sid);
    if (!mec_sid || !sid) {
        free(mec_sid);
        return oom(err);
    }
    for (uint64_t i = 0; i < n_mecs; i++)
        mec_sid[i] = UINT32_MAX;
    for (uint64_t s = 0; s < n; s++) {
        sid[s] = UINT32_MAX;
        if (x->cls[s] != CLS_MAYBE)
            continue;
        if (mec_of[s] != MEC_NONE) {
            if (mec_sid[mec_of[s]] == UINT32_MAX)
                mec_sid[mec_of[s]] = (uint32_t)ns++;
            sid[s] = mec_sid[mec_of[s]];
        } else
            sid[s] = (uint32_t)ns++;
    }
    free(mec_sid);
    uint64_t *mstart = *mstart_out = calloc(ns + 1, sizeof *mstart);
    uint32_t *members = *members_out = malloc(x->n_maybe * sizeof *members);
    if (!mstart || !members)
        return oom(err);
    for (uint64_t s = 0; s < n; s++)
        if (sid[s] != UINT32_MAX)
            mstart[sid[s] + 1]++;
    for (uint64_t i = 0; i < ns; i++)
        mstart[i + 1] += mstart[i];
    for (uint64_t s = 0; s < n; s++)
        if (sid[s] != UINT32_MAX)
            members[mstart[sid[s]]++] = (uint32_t)s;
    for (uint64_t i = ns; i > 0; i--)
        mstart[i] = mstart[i - 1];
    mstart[0] = 0;
    *ns_out = ns;
    return WX_OK;
}

/* Builds x->sys from the maybe states (x->loc, x->back and x->n_maybe of
 * the classes pass).  For Pmax and Rmin the MECs among the maybe states
 * (under the filter) are collapsed: their decomposition runs on a thread
 * while the system is built without collapse, then the system is rebuilt
 * if there are MECs. */
int mdpc_build_system(struct ctx *x, struct mdpcheck_result *r, struct wx_error *err)
{
    uint64_t n_maybe = x->n_maybe;
    int collapse = ((x->p->kind == PROP_PMAX) || (x->p->kind == PROP_RMIN)) && n_maybe;
    int zero_reward_only = x->p->kind == PROP_RMIN;
    struct mec_job mj = {.x = x};
    struct wx_task mec_task = {0};
    int mec_done = 0;
    uint8_t *internal = NULL;
    uint32_t *mec_of = NULL, *sid = NULL;
    uint64_t *mstart = NULL;
    uint32_t *members = NULL;
    uint64_t *ecount = NULL;
    int rc = WX_OK;
    if (collapse) {
        if ((rc = sub_build(x, zero_reward_only, &mj, err)) != WX_OK)
            goto done;
        trace(x->o, "MEC decomposition: started (thread)");
        wx_task_start(&mec_task, mec_main, &mj);
        mec_done = !mec_task.started; /* no thread: it has decomposed first */
    }
    if (x->o->build_system) {
        /* the backend builds the system when there is no MEC: wait for the
         * decomposition instead of building on the host meanwhile */
        wx_task_join(&mec_task);
        mec_done = 1;
        int built = 0;
        if ((!collapse || (mj.rc == WX_OK && !mj.mr.n_mecs)) &&
            (rc = mdpc_build_system_dev(x, 0, r, &built, err)) != WX_OK)
            goto done;
        if (built) {
            x->mec_seconds = mj.seconds;
            r->mecs_collapsed = 0;
            goto done;
        }
    }
    /* the system without collapse: every maybe state a system state of its
     * own, numbered in state order (x->loc) */
    if (!x->state_start && (rc = sys_alloc(x, err)) != WX_OK) /* else the backend's try allocated */
        goto done;
    ecount = mdpc_pool_take(x, POOL_ECOUNT, (n_maybe + 1) * sizeof *ecount, 0);
    if (!x->state_start || !x->choice_start || !x->targets || !ecount || !x->probs || !x->b) {
        rc = oom(err);
        goto done;
    }
    if (!mec_done || mj.rc != WX_OK || !mj.mr.n_mecs) {
        struct sys_pass sp = {.x = x, .members = x->back, .sid = x->loc, .ecount = ecount};
        trace(x->o, collapse ? "system: allocated (as if no MEC)" : "system: numbered, allocated");
        if ((rc = sys_passes(x, &sp, n_maybe, r, err)) != WX_OK)
            goto done;
        trace(x->o, collapse ? "system: built (as if no MEC)" : "system: built");
    }
    wx_task_join(&mec_task);
    if (collapse) {
        x->mec_seconds = mj.seconds;
        if (mj.rc != WX_OK) {
            rc = mj.rc;
            *err = mj.err;
            goto done;
        }
        trace(x->o, "MEC decomposition: done");
    }
    uint64_t n_mecs = collapse ? mj.mr.n_mecs : 0;
    r->mecs_collapsed = n_mecs;
    if (!n_mecs) {
        /* the system built above is the system */
        x->sid = x->loc, x->loc = NULL;
        goto done;
    }

    /* MECs: each becomes one system state (numbered at its smallest
     * member), its internal choices dropped; the system is rebuilt */
    if ((rc = mec_sets(x, zero_reward_only, &mj, &internal, &mec_of, err)) != WX_OK)
        goto done;
    uint64_t ns = 0;
    if ((rc = mec_numbering(x, n_mecs, mec_of, &sid, &mstart, &members, &ns, err)) != WX_OK)
        goto done;
    x->sid = sid, sid = NULL;
    struct sys_pass sp = {.x = x, .internal = internal, .mstart = mstart, .members = members,
                          .sid = x->sid, .ecount = ecount};
    trace(x->o, "system: numbered with MECs collapsed");
    if ((rc = sys_passes(x, &sp, ns, r, err)) != WX_OK)
        goto done;
    trace(x->o, "system: built with MECs collapsed");
done:
    wx_task_join(&mec_task);
    mec_result_free(&mj.mr);
    mdpc_free_later(x, mj.sub.state_start);
    mdpc_free_later(x, mj.sub.choice_start);
    mdpc_free_later(x, mj.sub.targets);
    free(mj.ecount);
    free(internal);
    free(mec_of);
    free(sid);
    free(mstart);
    free(members);
    free(ecount);
    return rc;
}
