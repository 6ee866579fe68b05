/*
 * mdpcheck.c -- the property layer (pipeline and soundness argument in
 * mdpcheck.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mdpcheck.h"
#include "mec.h"
#include "relevant.h"
#include "scc.h"
#include "../util/hugealloc.h"
#include "../util/pool.h"
#include "../util/timer.h"

/* State classes after the precomputation; CLS_SKIP: a maybe state that
 * initial_only leaves unsolved (relevant.h). */
enum { CLS_NO, CLS_YES, CLS_MAYBE, CLS_INF, CLS_SKIP };

/* Attempts at a certified reward upper bound before giving up. */
#define BOUND_ATTEMPTS 12

/* ---- large work arrays ----
 * The arrays of the system construction run to hundreds of megabytes on
 * models of 10^6..10^7 states; with options.huge_pages they are advised
 * transparent huge pages (util/hugealloc.h: first-touch faults divided by
 * 512 where THP is on; off by default because on small machines the first
 * touch of a huge page can be slower than 512 small ones). */
/* Work-array slots of the pool (struct ctx), in the order of first use
 * (the order mdpcheck_prepare warms them in).  The sub-MDP of the MEC
 * decomposition and the system are alive at the same time (build_system). */
enum {
    POOL_SUB_STATE_START,  /* (n_states + 1) x 8 */
    POOL_SUB_ECOUNT,       /* (n_states + 1) x 8 */
    POOL_SUB_CHOICE_START, /* (n_choices + 1) x 8 */
    POOL_SUB_TARGETS,      /* n_entries x 4 */
    POOL_STATE_START,      /* (n_states + 1) x 8: the system's */
    POOL_ECOUNT,           /* (n_states + 1) x 8 */
    POOL_CHOICE_START,     /* (n_choices + 1) x 8 */
    POOL_TARGETS,          /* n_entries x 4 */
    POOL_PROBS,            /* n_entries x 8 */
    POOL_B,                /* n_choices x 8 */
    POOL_SLO,              /* n_states x 8 */
    POOL_SHI,              /* n_states x 8 */
    POOL_SLOTS
};

struct ctx {
    const struct mdp *m;
    const struct mdp_rewards *rew;
    const struct property *p;
    const struct mdpcheck_options *o;
    const uint8_t *initial; /* n_states, or NULL */
    int is_reward, maximize;
    uint8_t *cls;       /* n_states */
    uint8_t *target;    /* n_states */
    uint8_t *ok;        /* n_choices: usable choice (Rmin: no risk of infinity) */
    /* the maybe states in order: loc[s] = rank of maybe state s (UINT32_MAX
     * for the others), back[k] = the k-th maybe state (n_maybe used) */
    uint32_t *loc, *back;
    uint64_t n_maybe;
    /* the system */
    uint32_t *sid;      /* n_states: system state of a maybe state */
    uint64_t *state_start, *choice_start;
    uint64_t *block_start, n_blocks; /* after order_topologically: SCCs */
    uint64_t *level_start, n_levels; /* after order_topologically: levels (valiter.h) */
    uint8_t *level_acyclic;
    uint32_t *targets;
    double *probs, *b;
    struct vi_system sys;
    double mec_seconds;
    /* Work arrays allocated (and touched, as far as time allowed) ahead by
     * mdpcheck_prepare, taken by the construction instead of fresh ones
     * (pool_take); each is a malloc block of upper-bound size, owned by the
     * pool until taken.  Empty when not prepared warm. */
    void *pool[POOL_SLOTS];
    size_t pool_bytes[POOL_SLOTS];
    /* pool blocks page-locked through options.pin (released by xfree) */
    void *pinned[POOL_SLOTS];
    void (*unpin)(void *p);
    void *later[8];      /* blocks freed at the end (mdpcheck_job_free) */
    int n_later;
};

/* free() for any work array: a page-locked block is released first. */
static void xfree(struct ctx *x, void *p)
{
    if (!p)
        return;
    for (int i = 0; i < POOL_SLOTS; i++)
        if (x->pinned[i] == p) {
            x->unpin(p);
            x->pinned[i] = NULL;
        }
    free(p);
}

/* A block no longer needed, freed at the end rather than now (releasing a
 * page-locked block costs; at the end it overlaps the exit). */
static void free_later(struct ctx *x, void *p)
{
    if (!p)
        return;
    if (x->n_later < (int)(sizeof x->later / sizeof *x->later))
        x->later[x->n_later++] = p;
    else
        xfree(x, p);
}

/* A pool block of at least bytes for slot, or a fresh one (zeroed when
 * zero: pool blocks always are).  The caller owns the result (free()). */
static void *pool_take(struct ctx *x, int slot, size_t bytes, int zero)
{
    void *p = x->pool[slot];
    if (p && x->pool_bytes[slot] >= bytes) {
        x->pool[slot] = NULL;
        if (zero) /* warming may have stopped early: not all of it is zero */
            memset(p, 0, bytes);
        return p;
    }
    int huge = x->o->huge_pages;
    return zero ? wx_big_zalloc(bytes, huge) : wx_big_alloc(bytes, huge);
}

static double choice_reward(const struct ctx *x, uint32_t s, uint64_t c)
{
    double r = 0;
    if (x->rew && x->rew->state)
        r += x->rew->state[s];
    if (x->rew && x->rew->choice)
        r += x->rew->choice[c];
    return r;
}

static void trace(const struct mdpcheck_options *o, const char *event)
{
    if (o->trace)
        o->trace(o->trace_arg, event);
}

static int oom(struct wx_error *err)
{
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (model checking)");
}

/* ---- parallel loops of the system construction ----
 * par_for(T, n, fn, arg) runs fn(arg, lo, hi, i) on the chunks i = 0 ..
 * par_chunks(T, n) - 1 of [0, n) (contiguous, in order; the calling thread
 * takes the first).  Each pass writes only the items of its chunk, at
 * positions a sequential scan fixed before it, or into its own slot i of a
 * per-chunk array, so the result does not depend on the number of
 * threads. */
typedef void (*par_fn)(void *arg, uint64_t lo, uint64_t hi, int chunk);

#define PAR_MAX 64
#define PAR_GRAIN 4096 /* items per thread at least: below, threads cost more than they save */

static int par_chunks(int threads, uint64_t n)
{
    long t = wx_pool_threads(threads);
    if (t > PAR_MAX)
        t = PAR_MAX;
    if ((uint64_t)t > n / PAR_GRAIN)
        t = (long)(n / PAR_GRAIN);
    return t < 1 ? 1 : (int)t;
}

/* A team of par_chunks(threads, n) for this loop alone (the MEC
 * decomposition runs its loops on its own thread beside the system's, so
 * the two never share a team); without one (out of memory), the caller
 * runs every chunk: the same chunks, the same result. */
static void par_for(int threads, uint64_t n, par_fn fn, void *arg)
{
    int t = par_chunks(threads, n);
    struct wx_pool *pool = t > 1 ? wx_pool_new(t) : NULL;
    wx_pool_for(pool, n, t, fn, arg);
    wx_pool_free(pool);
}

/* In-place exclusive prefix sum of a[0..n) into a[0..n], a[n] = total. */
static void exclusive_scan(uint64_t *a, uint64_t n)
{
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = a[i];
        a[i] = acc;
        acc += v;
    }
    a[n] = acc;
}

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
    sub->state_start = pool_take(x, POOL_SUB_STATE_START, (k + 1) * sizeof *sub->state_start, 0);
    sub->choice_start =
        pool_take(x, POOL_SUB_CHOICE_START, (m->n_choices + 1) * sizeof *sub->choice_start, 0);
    sub->targets = pool_take(x, POOL_SUB_TARGETS, (m->n_entries ? m->n_entries : 1) * sizeof *sub->targets, 0);
    mj->ecount = pool_take(x, POOL_SUB_ECOUNT, (k + 1) * sizeof *mj->ecount, 0);
    if (!sub->state_start || !sub->choice_start || !sub->targets || !mj->ecount)
        return oom(err);
    /* two parallel passes over the maybe states: count the kept choices
     * and entries, scan, fill (the layout of the sequential loop) */
    struct sub_pass sp = {.x = x, .zero_reward_only = zero_reward_only, .sub = sub,
                          .ccount = sub->state_start, .ecount = mj->ecount};
    trace(x->o, "MEC sub-MDP: allocated");
    par_for(x->o->threads, k, sub_count, &sp);
    exclusive_scan(sub->state_start, k);
    exclusive_scan(mj->ecount, k);
    sub->choice_start[0] = 0;
    par_for(x->o->threads, k, sub_fill, &sp);
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
    par_for(x->o->threads, ns, sys_count, sp);
    for (uint64_t k = 0; k < ns; k++)
        if (!x->state_start[k])
            return wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                           "internal error: system state %llu (model state %u) has no choice",
                           (unsigned long long)k, sp->members[sp->mstart ? sp->mstart[k] : k]);
    exclusive_scan(x->state_start, ns);
    exclusive_scan(sp->ecount, ns);
    x->choice_start[0] = 0;
    par_for(x->o->threads, ns, sys_fill, sp);
    uint64_t nc = x->state_start[ns], ne = sp->ecount[ns];
    x->sys = (struct vi_system){.n_states = ns, .n_choices = nc, .n_entries = ne,
                                .state_start = x->state_start, .choice_start = x->choice_start,
                                .targets = x->targets, .probs = x->probs, .b = x->b};
    r->sys_states = ns;
    r->sys_choices = nc;
    r->sys_entries = ne;
    return WX_OK;
}

/* Builds x->sys from the maybe states (x->loc, x->back and x->n_maybe of
 * the classes pass).  For Pmax and Rmin the MECs among the maybe states
 * (under the filter) are collapsed: their decomposition runs on a thread
 * while the system is built without collapse, then the system is rebuilt
 * if there are MECs. */
static int build_system(struct ctx *x, struct mdpcheck_result *r, struct wx_error *err)
{
    const struct mdp *m = x->m;
    uint64_t n = m->n_states, n_maybe = x->n_maybe;
    int collapse = ((x->p->kind == PROP_PMAX) || (x->p->kind == PROP_RMIN)) && n_maybe;
    int zero_reward_only = x->p->kind == PROP_RMIN;
    struct mec_job mj = {.x = x};
    struct wx_task mec_task = {0};
    int mec_done = 0;
    uint8_t *internal = NULL;
    uint32_t *mec_of = NULL, *mec_sid = NULL, *sid = NULL;
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
    /* the system without collapse: every maybe state a system state of its
     * own, numbered in state order (x->loc) */
    x->state_start = pool_take(x, POOL_STATE_START, (n_maybe + 1) * sizeof *x->state_start, 0);
    x->choice_start = pool_take(x, POOL_CHOICE_START, (m->n_choices + 1) * sizeof *x->choice_start, 0);
    x->targets = pool_take(x, POOL_TARGETS, (m->n_entries ? m->n_entries : 1) * sizeof *x->targets, 0);
    ecount = pool_take(x, POOL_ECOUNT, (n_maybe + 1) * sizeof *ecount, 0);
    x->probs = pool_take(x, POOL_PROBS, (m->n_entries ? m->n_entries : 1) * sizeof *x->probs, 0);
    x->b = pool_take(x, POOL_B, (m->n_choices ? m->n_choices : 1) * sizeof *x->b, 0);
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
    mec_sid = malloc(n_mecs * sizeof *mec_sid);
    sid = malloc(n * sizeof *sid);
    if (!mec_sid || !sid) {
        rc = oom(err);
        goto done;
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
    /* members of each system state, in state order (counting sort) */
    mstart = calloc(ns + 1, sizeof *mstart);
    members = malloc(n_maybe * sizeof *members);
    if (!mstart || !members) {
        rc = oom(err);
        goto done;
    }
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
    free_later(x, mj.sub.state_start);
    free_later(x, mj.sub.choice_start);
    free_later(x, mj.sub.targets);
    free(mj.ecount);
    free(internal);
    free(mec_of);
    free(mec_sid);
    free(sid);
    free(mstart);
    free(members);
    free(ecount);
    return rc;
}

/* *out (ns states, allocated): the states of sys in backward breadth-first
 * order from those with a non-zero constant in some choice (distance 0),
 * then the states that reach none, in state order.  off: each state's
 * first entry (n_states + 1). */
static int bfs_from_constants(const struct vi_system *sys, const uint64_t *off, uint32_t **out,
                              struct wx_error *err)
{
    const uint64_t ns = sys->n_states, ne = sys->n_entries;
    uint64_t *ps = calloc(ns + 2, sizeof *ps);
    uint32_t *pr = malloc((ne ? ne : 1) * sizeof *pr), *q = malloc((ns ? ns : 1) * sizeof *q);
    uint8_t *seen = calloc(ns ? ns : 1, 1);
    if (!ps || !pr || !q || !seen) {
        free(ps), free(pr), free(q), free(seen);
        return oom(err);
    }
    for (uint64_t e = 0; e < ne; e++)
        ps[sys->targets[e] + 2]++;
    for (uint64_t k = 0; k < ns; k++)
        ps[k + 2] += ps[k + 1];
    for (uint64_t k = 0; k < ns; k++)
        for (uint64_t e = off[k]; e < off[k + 1]; e++)
            pr[ps[sys->targets[e] + 1]++] = (uint32_t)k;
    uint64_t head = 0, tail = 0;
    for (uint64_t k = 0; k < ns; k++)
        for (uint64_t c = sys->state_start[k]; c < sys->state_start[k + 1] && !seen[k]; c++)
            if (sys->b[c] != 0) {
                seen[k] = 1;
                q[tail++] = (uint32_t)k;
            }
    while (head < tail) {
        const uint32_t t = q[head++];
        for (uint64_t i = ps[t]; i < ps[t + 1]; i++)
            if (!seen[pr[i]]) {
                seen[pr[i]] = 1;
                q[tail++] = pr[i];
            }
    }
    for (uint64_t k = 0; k < ns; k++)
        if (!seen[k])
            q[tail++] = (uint32_t)k;
    free(ps), free(pr), free(seen);
    *out = q;
    return WX_OK;
}

/* Renumbers the system so that every SCC of its graph comes after the SCCs
 * it leads to (bottom SCCs first), the states of one SCC in backward-BFS
 * order from the states with a constant.  A Gauss-Seidel sweep in state
 * order then reads successors' values of the same sweep wherever the graph
 * is acyclic (on chains and DAGs of SCCs it needs far fewer sweeps), and
 * inside an SCC the values flow from the target outwards within one sweep
 * (consensus N=6 K=2, Pmax: 1 206 sweeps instead of 2 536 in the old order
 * within SCCs; Jacobi 5 069).  Jacobi does not depend on the order, so the
 * level solves (Jacobi per level, CPU and GPU twins) keep each SCC's states
 * in their old order (bfs_inside 0), which keeps the GPU's tiles local. */
static int order_topologically(struct ctx *x, int bfs_inside, struct wx_error *err)
{
    struct vi_system *sys = &x->sys;
    uint64_t ns = sys->n_states, ne = sys->n_entries, nc = sys->n_choices;
    if (ns < 2) { /* one block (or none) */
        x->block_start = malloc(2 * sizeof *x->block_start);
        x->level_start = malloc(2 * sizeof *x->level_start);
        x->level_acyclic = malloc(1);
        if (!x->block_start || !x->level_start || !x->level_acyclic)
            return oom(err);
        x->block_start[0] = x->level_start[0] = 0;
        x->block_start[1] = x->level_start[1] = ns;
        x->n_blocks = x->n_levels = ns;
        x->level_acyclic[0] = ne == 0; /* one state: every entry is a self loop */
        return WX_OK;
    }
    int rc = WX_OK;
    struct scc_result sr = {0};
    uint64_t *off = malloc((ns + 1) * sizeof *off);
    uint64_t *cnt = NULL, *pstart = NULL, *order = NULL, *perm = NULL, *lvl = NULL, *lcount = NULL;
    uint32_t *pred = NULL, *bfs = NULL;
    uint8_t *cyc = NULL;
    uint64_t *nss = NULL, *ncs = NULL;
    uint32_t *nt = NULL;
    double *np = NULL, *nb = NULL;
    if (!off)
        return oom(err);
    for (uint64_t k = 0; k <= ns; k++)
        off[k] = sys->choice_start[sys->state_start[k]];
    struct csr g = {.n_vertices = ns, .n_edges = ne, .offsets = off,
                    .targets = (uint32_t *)sys->targets};
    if ((rc = (x->o->scc ? x->o->scc : scc_cpu)(&g, &sr, err)) != WX_OK)
        goto done;
    uint64_t nscc = sr.n_sccs;
    cnt = calloc(nscc + 1, sizeof *cnt);      /* cross edges leaving each SCC */
    pstart = calloc(nscc + 2, sizeof *pstart); /* cross edges entering, CSR */
    pred = malloc((ne ? ne : 1) * sizeof *pred);
    order = malloc((nscc ? nscc : 1) * sizeof *order);
    perm = malloc(ns * sizeof *perm);
    if (!cnt || !pstart || !pred || !order || !perm) {
        rc = oom(err);
        goto done;
    }
    for (uint64_t k = 0; k < ns; k++)
        for (uint64_t e = off[k]; e < off[k + 1]; e++) {
            uint32_t a = sr.comp[k], b = sr.comp[sys->targets[e]];
            if (a != b) {
                cnt[a]++;
                pstart[b + 2]++;
            }
        }
    for (uint64_t c = 0; c < nscc; c++)
        pstart[c + 2] += pstart[c + 1];
    for (uint64_t k = 0; k < ns; k++)
        for (uint64_t e = off[k]; e < off[k + 1]; e++) {
            uint32_t a = sr.comp[k], b = sr.comp[sys->targets[e]];
            if (a != b)
                pred[pstart[b + 1]++] = a;
        }
    /* Kahn from the bottom SCCs */
    uint64_t head = 0, tail = 0;
    for (uint64_t c = 0; c < nscc; c++)
        if (!cnt[c])
            order[tail++] = c;
    while (head < tail) {
        uint64_t c = order[head++];
        for (uint64_t i = pstart[c]; i < pstart[c + 1]; i++)
            if (--cnt[pred[i]] == 0)
                order[tail++] = pred[i];
    }
    if (tail != nscc) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal error: SCC graph not acyclic");
        goto done;
    }
    /* Levels (valiter.h): Kahn's order lists every SCC after all the SCCs
     * it leads to, so lvl[c] is final when c's turn comes.  cyc[c]: c has
     * more than one state or a self loop (a level without any is acyclic). */
    lvl = calloc(nscc, sizeof *lvl);
    cyc = calloc(nscc, 1);
    if (!lvl || !cyc) {
        rc = oom(err);
        goto done;
    }
    uint64_t n_levels = 0;
    for (uint64_t i = 0; i < nscc; i++) {
        uint64_t c = order[i];
        for (uint64_t j = pstart[c]; j < pstart[c + 1]; j++)
            if (lvl[pred[j]] < lvl[c] + 1)
                lvl[pred[j]] = lvl[c] + 1;
        if (lvl[c] + 1 > n_levels)
            n_levels = lvl[c] + 1;
    }
    for (uint64_t k = 0; k < ns; k++) {
        for (uint64_t e = off[k]; e < off[k + 1]; e++)
            if (sys->targets[e] == k)
                cyc[sr.comp[k]] = 1;
    }
    {
        /* a stable counting sort of the SCCs by level (Kahn's order within
         * a level): still every SCC after the SCCs it leads to, and each
         * level's states contiguous */
        uint64_t *sz = calloc(nscc, sizeof *sz);
        lcount = calloc(n_levels + 1, sizeof *lcount);
        uint64_t *by_level = malloc(nscc * sizeof *by_level);
        if (!sz || !lcount || !by_level) {
            free(sz), free(by_level);
            rc = oom(err);
            goto done;
        }
        for (uint64_t k = 0; k < ns; k++)
            if (++sz[sr.comp[k]] > 1)
                cyc[sr.comp[k]] = 1;
        for (uint64_t c = 0; c < nscc; c++)
            lcount[lvl[c] + 1]++;
        for (uint64_t L = 0; L < n_levels; L++)
            lcount[L + 1] += lcount[L];
        for (uint64_t i = 0; i < nscc; i++)
            by_level[lcount[lvl[order[i]]]++] = order[i];
        memcpy(order, by_level, nscc * sizeof *order);
        x->level_start = malloc((n_levels + 1) * sizeof *x->level_start);
        x->level_acyclic = malloc(n_levels ? n_levels : 1);
        if (!x->level_start || !x->level_acyclic) {
            free(sz), free(by_level);
            rc = oom(err);
            goto done;
        }
        memset(x->level_acyclic, 1, n_levels ? n_levels : 1);
        uint64_t at = 0;
        x->level_start[0] = 0;
        for (uint64_t i = 0; i < nscc; i++) {
            uint64_t c = order[i];
            at += sz[c];
            x->level_start[lvl[c] + 1] = at; /* levels in order: the last SCC's end wins */
            if (cyc[c])
                x->level_acyclic[lvl[c]] = 0;
        }
        x->n_levels = n_levels;
        free(sz), free(by_level);
    }
    /* position of each SCC, then states grouped by SCC in that order, each
     * SCC's states in backward-BFS order from the states with a constant
     * (one step into the target) when bfs_inside, else in their old order */
    if (bfs_inside && (rc = bfs_from_constants(sys, off, &bfs, err)) != WX_OK)
        goto done;
    for (uint64_t i = 0; i < nscc; i++)
        cnt[order[i]] = i;
    memset(pstart, 0, (nscc + 2) * sizeof *pstart);
    for (uint64_t k = 0; k < ns; k++)
        pstart[cnt[sr.comp[k]] + 1]++;
    for (uint64_t i = 0; i < nscc; i++)
        pstart[i + 1] += pstart[i];
    for (uint64_t i = 0; i < ns; i++) {
        const uint64_t k = bfs ? bfs[i] : i;
        perm[k] = pstart[cnt[sr.comp[k]]]++;
    }
    /* now pstart[i] is the end of the i-th SCC in the order */
    if (!(x->block_start = malloc((nscc + 1) * sizeof *x->block_start))) {
        rc = oom(err);
        goto done;
    }
    x->block_start[0] = 0;
    for (uint64_t i = 0; i < nscc; i++)
        x->block_start[i + 1] = pstart[i];
    x->n_blocks = nscc;
    /* the permuted copy */
    nss = malloc((ns + 1) * sizeof *nss);
    ncs = malloc((nc + 1) * sizeof *ncs);
    nt = malloc((ne ? ne : 1) * sizeof *nt);
    np = malloc((ne ? ne : 1) * sizeof *np);
    nb = malloc((nc ? nc : 1) * sizeof *nb);
    if (!nss || !ncs || !nt || !np || !nb) {
        rc = oom(err);
        goto done;
    }
    /* order[new] = old: order has nscc <= ns slots, so it grows first */
    {
        uint64_t *inv = realloc(order, ns * sizeof *inv);
        if (!inv) {
            rc = oom(err);
            goto done;
        }
        order = inv;
        for (uint64_t k = 0; k < ns; k++)
            order[perm[k]] = k;
    }
    uint64_t c2 = 0, e2 = 0;
    nss[0] = 0;
    ncs[0] = 0;
    for (uint64_t k2 = 0; k2 < ns; k2++) {
        uint64_t k = order[k2];
        for (uint64_t c = sys->state_start[k]; c < sys->state_start[k + 1]; c++) {
            for (uint64_t e = sys->choice_start[c]; e < sys->choice_start[c + 1]; e++) {
                nt[e2] = (uint32_t)perm[sys->targets[e]];
                np[e2++] = sys->probs[e];
            }
            nb[c2++] = sys->b[c];
            ncs[c2] = e2;
        }
        nss[k2 + 1] = c2;
    }
    for (uint64_t s = 0; s < x->m->n_states; s++)
        if (x->sid[s] != UINT32_MAX)
            x->sid[s] = (uint32_t)perm[x->sid[s]];
#define SWAP(field, v) do { xfree(x, x->field); x->field = v; v = NULL; } while (0)
    SWAP(state_start, nss);
    SWAP(choice_start, ncs);
    SWAP(targets, nt);
    SWAP(probs, np);
    SWAP(b, nb);
#undef SWAP
    sys->state_start = x->state_start;
    sys->choice_start = x->choice_start;
    sys->targets = x->targets;
    sys->probs = x->probs;
    sys->b = x->b;
done:
    scc_result_free(&sr);
    free(off), free(cnt), free(pstart), free(pred), free(order), free(perm), free(lvl), free(lcount), free(bfs);
    free(cyc);
    free(nss), free(ncs), free(nt), free(np), free(nb);
    return rc;
}

/* Every state's value from its class and the system's solution (a
 * parallel pass: each state is written once). */
struct values_pass {
    const struct ctx *x;
    const double *slo, *shi;
    struct mdpcheck_result *r;
};

static void values_fill(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    const struct values_pass *vp = arg;
    const struct ctx *x = vp->x;
    for (uint64_t s = lo; s < hi; s++) {
        double v;
        switch (x->cls[s]) {
        case CLS_NO: v = 0; break;
        case CLS_YES: v = x->is_reward ? 0 : 1; break;
        case CLS_INF: v = INFINITY; break;
        case CLS_SKIP: /* not solved: the trivial sound bounds */
            vp->r->lo[s] = 0;
            vp->r->hi[s] = x->is_reward ? INFINITY : 1;
            continue;
        default:
            vp->r->lo[s] = vp->slo[x->sid[s]];
            vp->r->hi[s] = vp->shi ? vp->shi[x->sid[s]] : vp->slo[x->sid[s]];
            continue;
        }
        vp->r->lo[s] = vp->r->hi[s] = v;
    }
}

/* One Jacobi application of the operator: out = F(x) on sys. */
static void apply_operator(const struct vi_system *sys, int maximize, const double *x, double *out)
{
    for (uint64_t s = 0; s < sys->n_states; s++) {
        double best = 0;
        for (uint64_t c = sys->state_start[s]; c < sys->state_start[s + 1]; c++) {
            double v = sys->b[c];
            for (uint64_t e = sys->choice_start[c]; e < sys->choice_start[c + 1]; e++)
                v += sys->probs[e] * x[sys->targets[e]];
            if (c == sys->state_start[s] || (maximize ? v > best : v < best))
                best = v;
        }
        out[s] = best;
    }
}

/* One solve of sys through the backend, or block by block (topological). */
static int run_solve(const struct ctx *x, const struct vi_system *sys, const struct vi_params *par,
                     double *lo, double *hi, struct vi_stats *st, struct wx_error *err)
{
    if (x->o->topological && x->o->solve_levels) {
        struct vi_levels lv = {x->n_levels, x->level_start, x->level_acyclic};
        return x->o->solve_levels(sys, par, &lv, lo, hi, st, err);
    }
    if (x->o->topological)
        return valiter_solve_blocks_cpu(sys, par, x->block_start, x->n_blocks, lo, hi, st, err);
    return (x->o->solve ? x->o->solve : valiter_solve_cpu)(sys, par, lo, hi, st, err);
}

/* A certified upper bound for a reward system (see mdpcheck.h): value
 * iteration from below on the rewards raised by delta until F(w) <= w. */
static int reward_upper_bound(struct ctx *x, const struct vi_params *par, double *w,
                              struct mdpcheck_result *r, struct wx_error *err)
{
    const struct vi_system *sys = &x->sys;
    uint64_t ns = sys->n_states, nc = sys->n_choices;
    double bmax = 0;
    for (uint64_t c = 0; c < nc; c++)
        bmax = sys->b[c] > bmax ? sys->b[c] : bmax;
    double delta = par->epsilon * (par->relative && bmax > 1 ? bmax : 1);
    double *b2 = malloc((nc ? nc : 1) * sizeof *b2), *fw = malloc(ns * sizeof *fw);
    if (!b2 || !fw) {
        free(b2), free(fw);
        return oom(err);
    }
    for (uint64_t c = 0; c < nc; c++)
        b2[c] = sys->b[c] + delta;
    struct vi_system sys2 = *sys;
    sys2.b = b2;
    struct vi_params p2 = *par;
    p2.relative = 0;
    p2.epsilon = delta / 4;
    memset(w, 0, ns * sizeof *w);
    int rc = WX_OK, certified = 0;
    for (int attempt = 0; attempt < BOUND_ATTEMPTS && !certified; attempt++) {
        struct vi_stats st = {0};
        rc = run_solve(x, &sys2, &p2, w, NULL, &st, err);
        r->iterations += st.iterations;
        r->bound_iterations += st.iterations;
        if (rc != WX_OK) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            wx_fail(err, rc, NULL, 0, 0, "computing an upper bound for the expected reward: %s",
                    msg);
            break;
        }
        apply_operator(sys, x->maximize, w, fw);
        certified = 1;
        for (uint64_t s = 0; s < ns && certified; s++)
            certified = fw[s] <= w[s];
        p2.epsilon /= 4;
    }
    free(b2);
    free(fw);
    if (rc == WX_OK && !certified)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                     "could not certify an upper bound for the expected reward after %d "
                     "attempts (try --method vi, or a larger --epsilon)",
                     BOUND_ATTEMPTS);
    return rc;
}

/* The value of choice c (of state s) on the full value vector v. */
static double q_value(const struct ctx *x, uint32_t s, uint64_t c, const double *v)
{
    const struct mdp *m = x->m;
    double q = x->is_reward ? choice_reward(x, s, c) : 0;
    for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
        q += m->probs[e] * v[m->targets[e]];
    return q;
}

/* The scheduler (see mdpcheck.h). */
static int extract_scheduler(struct ctx *x, const double *v, struct mdpcheck_result *r,
                             struct wx_error *err)
{
    const struct mdp *m = x->m;
    uint64_t n = m->n_states;
    int64_t *ch = malloc(n * sizeof *ch);
    uint64_t *pstart = calloc(n + 2, sizeof *pstart);
    uint64_t *pchoice = malloc((m->n_entries ? m->n_entries : 1) * sizeof *pchoice);
    uint32_t *owner = malloc((m->n_choices ? m->n_choices : 1) * sizeof *owner);
    uint32_t *queue = malloc(n * sizeof *queue);
    if (!ch || !pstart || !pchoice || !owner || !queue) {
        free(ch), free(pstart), free(pchoice), free(owner), free(queue);
        return oom(err);
    }
    for (uint64_t s = 0; s < n; s++) {
        ch[s] = -1;
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            owner[c] = (uint32_t)s;
    }
    for (uint64_t e = 0; e < m->n_entries; e++)
        pstart[m->targets[e] + 2]++;
    for (uint64_t t = 0; t < n; t++)
        pstart[t + 2] += pstart[t + 1];
    for (uint64_t c = 0; c < m->n_choices; c++)
        for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
            pchoice[pstart[m->targets[e] + 1]++] = c;

    double eps = x->o->epsilon;
    uint64_t head = 0, tail = 0;
    /* seeds: the targets; for Pmax the S1 states then join by the Prob1E
     * attractor (choices that stay inside S1) */
    for (uint64_t s = 0; s < n; s++) {
        if (x->target[s] && (x->cls[s] == CLS_YES)) {
            if (m->state_start[s] < m->state_start[s + 1])
                ch[s] = 0;
            queue[tail++] = (uint32_t)s;
        }
    }
    for (int phase = 0; phase < 2; phase++) {
        if (phase == 1) {
            /* every S1 state is a seed of the maybe-state search; Pmin's S1
             * (and Pmax's S1 the attractor missed, none in theory) take
             * their first choice */
            head = tail = 0;
            for (uint64_t s = 0; s < n; s++)
                if (x->cls[s] == CLS_YES) {
                    if (ch[s] < 0 && m->state_start[s] < m->state_start[s + 1])
                        ch[s] = 0;
                    queue[tail++] = (uint32_t)s;
                }
        } else if (x->p->kind != PROP_PMAX)
            continue;
        while (head < tail) {
            uint32_t t = queue[head++];
            for (uint64_t i = pstart[t]; i < pstart[t + 1]; i++) {
                uint64_t c = pchoice[i];
                uint32_t s = owner[c];
                if (ch[s] >= 0 || x->target[s])
                    continue;
                int good;
                if (phase == 0) {
                    if (x->cls[s] != CLS_YES)
                        continue;
                    good = 1;
                    for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1] && good; e++)
                        good = x->cls[m->targets[e]] == CLS_YES;
                } else {
                    if (x->cls[s] != CLS_MAYBE || !x->ok[c])
                        continue;
                    double q = q_value(x, s, c, v), tol = x->o->relative ? eps * fabs(v[s]) : eps;
                    good = fabs(q - v[s]) <= tol + 1e-12;
                }
                if (good) {
                    ch[s] = (int64_t)(c - m->state_start[s]);
                    queue[tail++] = s;
                }
            }
        }
    }
    /* Rmax's infinite states: a choice that misses the target with positive
     * probability: inside Z = Prob0E a choice that stays in Z, elsewhere the
     * first step of a path into Z (backward search from Z) */
    if (x->p->kind == PROP_RMAX && r->n_infinite) {
        uint8_t *z = malloc(n);
        int rc = z ? valiter_precompute_cpu(m, NULL, x->target, VI_PMIN0, z, err) : oom(err);
        if (rc != WX_OK) {
            free(z), free(ch), free(pstart), free(pchoice), free(owner), free(queue);
            return rc;
        }
        head = tail = 0;
        for (uint64_t s = 0; s < n; s++) {
            if (!z[s])
                continue;
            queue[tail++] = (uint32_t)s;
            for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
                int stay = 1;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1] && stay; e++)
                    stay = z[m->targets[e]];
                if (stay) {
                    ch[s] = (int64_t)(c - m->state_start[s]);
                    break;
                }
            }
        }
        while (head < tail) {
            uint32_t t = queue[head++];
            for (uint64_t i = pstart[t]; i < pstart[t + 1]; i++) {
                uint64_t c = pchoice[i];
                uint32_t s = owner[c];
                if (z[s] || ch[s] >= 0 || x->cls[s] != CLS_INF)
                    continue;
                ch[s] = (int64_t)(c - m->state_start[s]);
                queue[tail++] = s;
            }
        }
        free(z);
    }
    /* the rest */
    for (uint64_t s = 0; s < n; s++) {
        uint64_t c0 = m->state_start[s], c1 = m->state_start[s + 1];
        if (ch[s] >= 0 || c0 == c1)
            continue;
        ch[s] = 0;
        if (x->cls[s] == CLS_MAYBE) { /* best usable choice */
            double best = 0;
            int have = 0;
            for (uint64_t c = c0; c < c1; c++) {
                if (!x->ok[c])
                    continue;
                double q = q_value(x, (uint32_t)s, c, v);
                if (!have || (x->maximize ? q > best : q < best)) {
                    best = q;
                    ch[s] = (int64_t)(c - c0);
                    have = 1;
                }
            }
        } else if (x->cls[s] == CLS_NO && x->p->kind == PROP_PMIN) {
            for (uint64_t c = c0; c < c1; c++) { /* stay in S0 */
                int stay = 1;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1] && stay; e++)
                    stay = x->cls[m->targets[e]] == CLS_NO;
                if (stay) {
                    ch[s] = (int64_t)(c - c0);
                    break;
                }
            }
        }
    }
    free(pstart), free(pchoice), free(owner), free(queue);
    r->choice = ch;
    return WX_OK;
}

/* ---- the classes pass ----
 * Chunk i: every state's class and the counts (into the chunk's slot),
 * then, after a scan of the chunks' maybe counts, the ranks of the maybe
 * states (loc, back) in state order. */
struct cls_pass {
    struct ctx *x;
    const uint8_t *yes, *no;
    uint64_t count[PAR_MAX][5]; /* target, yes, no, maybe, infinite */
    uint64_t maybe_base[PAR_MAX + 1];
};

static void cls_classify(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    struct cls_pass *cp = arg;
    struct ctx *x = cp->x;
    uint64_t k[5] = {0};
    for (uint64_t s = lo; s < hi; s++) {
        uint8_t c;
        if (x->is_reward)
            c = x->target[s] ? CLS_YES : !cp->yes[s] ? CLS_INF : CLS_MAYBE;
        else
            c = cp->yes[s] ? CLS_YES : cp->no[s] ? CLS_NO : CLS_MAYBE;
        x->cls[s] = c;
        k[0] += x->target[s] != 0;
        k[1] += c == CLS_YES;
        k[2] += c == CLS_NO;
        k[3] += c == CLS_MAYBE;
        k[4] += c == CLS_INF;
    }
    memcpy(cp->count[chunk], k, sizeof k);
}

static void cls_rank(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    struct cls_pass *cp = arg;
    struct ctx *x = cp->x;
    uint64_t k = cp->maybe_base[chunk];
    for (uint64_t s = lo; s < hi; s++) {
        if (x->cls[s] == CLS_MAYBE) {
            x->loc[s] = (uint32_t)k;
            x->back[k++] = (uint32_t)s;
        } else
            x->loc[s] = UINT32_MAX;
    }
}

/* ---- warming the work arrays (mdpcheck_prepare with warm) ----
 * One parallel pass writes every region (zeros, or the fill byte), in
 * 64 KiB units of the regions laid end to end: the pages are faulted in
 * and zeroed now, while the caller waits for something else. */
#define WARM_UNIT ((uint64_t)64 << 10)
#define WARM_REGIONS (POOL_SLOTS + 12)

struct warm_pass {
    int n;
    unsigned char *ptr[WARM_REGIONS];
    uint64_t bytes[WARM_REGIONS];
    uint64_t first_unit[WARM_REGIONS + 1]; /* prefix sums of the units */
    int fill[WARM_REGIONS];
    int must[WARM_REGIONS];  /* written in full even after stop (a fill the
                                 result depends on) */
    const atomic_int *stop;  /* set: the caller's wait is over, warm no more */
    int last_must;           /* regions from here on are not "must"        */
    int workers;             /* par_chunks of the pass                      */
};

static void warm_add(struct warm_pass *w, void *p, uint64_t bytes, int fill, int must)
{
    if (!p || !bytes || w->n == WARM_REGIONS)
        return;
    w->ptr[w->n] = p;
    w->bytes[w->n] = bytes;
    w->fill[w->n] = fill;
    w->must[w->n] = must;
    if (must)
        w->last_must = w->n + 1;
    w->first_unit[w->n + 1] = w->first_unit[w->n] + (bytes + WARM_UNIT - 1) / WARM_UNIT;
    w->n++;
}

/* Worker chunk takes the units chunk, chunk + workers, ...: all workers
 * advance through the regions together, in the order they were added (the
 * order of first use), so that what is warmed when *stop comes is a prefix. */
static void warm_touch(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    const struct warm_pass *w = arg;
    (void)lo, (void)hi;
    int r = 0;
    for (uint64_t u = (uint64_t)chunk; u < w->first_unit[w->n]; u += (uint64_t)w->workers) {
        while (u >= w->first_unit[r + 1])
            r++;
        if (!w->must[r] && w->stop && atomic_load_explicit(w->stop, memory_order_relaxed)) {
            if (r >= w->last_must)
                break;
            continue;
        }
        uint64_t off = (u - w->first_unit[r]) * WARM_UNIT;
        uint64_t len = w->bytes[r] - off < WARM_UNIT ? w->bytes[r] - off : WARM_UNIT;
        memset(w->ptr[r] + off, w->fill[r], len);
    }
}

/* Warm arrays beyond this share of physical memory are not worth holding
 * (the construction allocates what it needs anyway). */
#define WARM_SHARE 8

struct mdpcheck_job {
    struct ctx x;
    uint8_t *allowed, *yes, *no;
    double *lo, *hi;          /* the result's arrays, handed to finish */
    double label_seconds;
};

void mdpcheck_job_free(struct mdpcheck_job *j)
{
    if (!j)
        return;
    struct ctx *x = &j->x;
    free(j->allowed), free(j->yes), free(j->no), free(j->lo), free(j->hi);
    free(x->cls), free(x->target), free(x->ok), free(x->loc), free(x->back), free(x->sid);
    xfree(x, x->state_start), xfree(x, x->choice_start), free(x->block_start);
    free(x->level_start), free(x->level_acyclic);
    xfree(x, x->targets), xfree(x, x->probs), xfree(x, x->b);
    for (int i = 0; i < x->n_later; i++)
        xfree(x, x->later[i]);
    for (int i = 0; i < POOL_SLOTS; i++)
        xfree(x, x->pool[i]);
    free(j);
}

int mdpcheck_prepare(const struct mdp *m, const struct mdp_labels *labels,
                     const struct mdp_rewards *rew, const uint8_t *initial,
                     const struct property *p, const struct mdpcheck_options *o, int warm,
                     const atomic_int *stop, struct mdpcheck_job **job, struct wx_error *err)
{
    *job = NULL;
    struct mdpcheck_job *j = calloc(1, sizeof *j);
    if (!j)
        return oom(err);
    uint64_t n = m->n_states, nc = m->n_choices, ne = m->n_entries;
    struct ctx *x = &j->x;
    *x = (struct ctx){.m = m, .rew = rew, .p = p, .o = o, .initial = initial};
    x->is_reward = p->kind == PROP_RMIN || p->kind == PROP_RMAX;
    x->maximize = p->kind == PROP_PMAX || p->kind == PROP_RMAX;
    int rc = WX_OK, hp = o->huge_pages;
    j->allowed = p->phi1 ? wx_big_alloc(n, hp) : NULL;
    j->yes = wx_big_alloc(n, hp);
    j->no = wx_big_zalloc(n, hp);
    x->cls = wx_big_alloc(n, hp);
    x->target = wx_big_alloc(n, hp);
    x->ok = wx_big_alloc(nc, hp);
    x->loc = wx_big_alloc(n * sizeof *x->loc, hp);
    x->back = wx_big_alloc(n * sizeof *x->back, hp);
    j->lo = wx_big_alloc(n * sizeof *j->lo, hp);
    j->hi = wx_big_alloc(n * sizeof *j->hi, hp);
    if ((p->phi1 && !j->allowed) || !j->yes || !j->no || !x->cls || !x->target || !x->ok ||
        !x->loc || !x->back || !j->lo || !j->hi) {
        rc = oom(err);
        goto done;
    }
    double t0 = wx_now();
    if ((rc = prop_eval(p, p->phi2, m, labels, initial, x->target, err)) != WX_OK ||
        (p->phi1 && (rc = prop_eval(p, p->phi1, m, labels, initial, j->allowed, err)) != WX_OK))
        goto done;
    j->label_seconds = wx_now() - t0;
    trace(o, "labels evaluated");
    struct warm_pass w = {.stop = stop};
    /* every choice is usable but for Rmin (set after the classes) */
    if (p->kind != PROP_RMIN)
        warm_add(&w, x->ok, nc, 1, 1);
    if (warm) {
        /* the construction's arrays at their upper bounds (build_system:
         * a system has at most n_states states, n_choices choices and
         * n_entries entries), in the order of their first use */
        int collapse = p->kind == PROP_PMAX || p->kind == PROP_RMIN;
        size_t want[POOL_SLOTS] = {
            [POOL_SUB_STATE_START] = collapse ? (n + 1) * sizeof(uint64_t) : 0,
            [POOL_SUB_ECOUNT] = collapse ? (n + 1) * sizeof(uint64_t) : 0,
            [POOL_SUB_CHOICE_START] = collapse ? (nc + 1) * sizeof(uint64_t) : 0,
            [POOL_SUB_TARGETS] = collapse ? (ne ? ne : 1) * sizeof(uint32_t) : 0,
            [POOL_STATE_START] = (n + 1) * sizeof(uint64_t),
            [POOL_ECOUNT] = (n + 1) * sizeof(uint64_t),
            [POOL_CHOICE_START] = (nc + 1) * sizeof(uint64_t),
            [POOL_TARGETS] = (ne ? ne : 1) * sizeof(uint32_t),
            [POOL_PROBS] = (ne ? ne : 1) * sizeof(double),
            [POOL_B] = (nc ? nc : 1) * sizeof(double),
            [POOL_SLO] = (n ? n : 1) * sizeof(double),
            [POOL_SHI] = (n ? n : 1) * sizeof(double),
        };
        uint64_t total = 0;
        for (int i = 0; i < POOL_SLOTS; i++)
            total += want[i];
        long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        uint64_t phys = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 0;
        if (phys && total <= phys / WARM_SHARE)
            for (int i = 0; i < POOL_SLOTS; i++)
                if (want[i] && (x->pool[i] = wx_big_alloc(want[i], hp)))
                    x->pool_bytes[i] = want[i];
        warm_add(&w, j->yes, n, 0, 0);
        warm_add(&w, j->no, n, 0, 0);
        warm_add(&w, x->cls, n, 0, 0);
        warm_add(&w, x->loc, n * sizeof *x->loc, 0, 0);
        warm_add(&w, x->back, n * sizeof *x->back, 0, 0);
        for (int i = 0; i < POOL_SLOTS; i++)
            warm_add(&w, x->pool[i], x->pool_bytes[i], 0, 0);
        warm_add(&w, j->lo, n * sizeof *j->lo, 0, 0);
        warm_add(&w, j->hi, n * sizeof *j->hi, 0, 0);
    }
    if (w.n) {
        w.workers = par_chunks(o->threads, w.first_unit[w.n]);
        par_for(o->threads, w.first_unit[w.n], warm_touch, &w);
    }
    if (warm)
        trace(o, stop && atomic_load(stop) ? "work arrays warmed (stopped early)"
                                           : "work arrays warmed");
done:
    if (rc != WX_OK) {
        mdpcheck_job_free(j);
        return rc;
    }
    *job = j;
    return WX_OK;
}

struct fill_pass {
    double *lo, *hi; /* hi may be NULL */
};

static void fill_bounds(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    const struct fill_pass *f = arg;
    (void)chunk;
    for (uint64_t i = lo; i < hi; i++)
        f->lo[i] = 0;
    if (f->hi)
        for (uint64_t i = lo; i < hi; i++)
            f->hi[i] = 1;
}

/* The pool blocks that are copied to the GPU (the sub-MDP for the MEC
 * decomposition, the system for the solve), page-locked on a thread while
 * the precomputation runs. */
static void *pin_main(void *arg)
{
    struct ctx *x = arg;
    static const int slots[] = {POOL_SUB_STATE_START, POOL_SUB_CHOICE_START, POOL_SUB_TARGETS,
                                POOL_STATE_START,     POOL_CHOICE_START,     POOL_TARGETS,
                                POOL_PROBS,           POOL_B};
    for (size_t i = 0; i < sizeof slots / sizeof *slots; i++) {
        int k = slots[i];
        if (x->pool[k] && x->o->pin(x->pool[k], x->pool_bytes[k]))
            x->pinned[k] = x->pool[k];
    }
    return NULL;
}

int mdpcheck_finish(struct mdpcheck_job *j, const struct mdpcheck_options *o,
                    struct mdpcheck_result *r, struct wx_error *err)
{
    struct ctx *x = &j->x;
    const struct mdp *m = x->m;
    const struct property *p = x->p;
    memset(r, 0, sizeof *r);
    uint64_t n = m->n_states;
    r->n_states = n;
    r->lo = j->lo, r->hi = j->hi;
    j->lo = j->hi = NULL;
    x->o = o;
    mdpcheck_precompute_fn pre = o->precompute ? o->precompute : valiter_precompute_cpu;
    uint8_t *allowed = j->allowed, *yes = j->yes, *no = j->no;
    double *slo = NULL, *shi = NULL;
    uint32_t *watch = NULL;
    double t0 = wx_now();
    int rc = WX_OK;
    struct wx_task pin_task = {0};
    int pinning = o->pin && o->unpin;
    if (pinning) {
        x->unpin = o->unpin;
        wx_task_start(&pin_task, pin_main, x);
    }
    switch (p->kind) {
    case PROP_PMAX:
        if (o->precompute2)
            rc = o->precompute2(m, allowed, x->target, VI_PMAX0, no, VI_PMAX1, yes, err);
        else if ((rc = pre(m, allowed, x->target, VI_PMAX0, no, err)) == WX_OK)
            rc = pre(m, allowed, x->target, VI_PMAX1, yes, err);
        break;
    case PROP_PMIN:
        if (o->precompute2)
            rc = o->precompute2(m, allowed, x->target, VI_PMIN0, no, VI_PMIN1, yes, err);
        else if ((rc = pre(m, allowed, x->target, VI_PMIN0, no, err)) == WX_OK)
            rc = pre(m, allowed, x->target, VI_PMIN1, yes, err);
        break;
    case PROP_RMIN:
        rc = pre(m, NULL, x->target, VI_PMAX1, yes, err);
        break;
    case PROP_RMAX:
        rc = pre(m, NULL, x->target, VI_PMIN1, yes, err);
        break;
    }
    if (rc != WX_OK)
        goto done;
    {
        struct cls_pass *cp = calloc(1, sizeof *cp);
        if (!cp) {
            rc = oom(err);
            goto done;
        }
        cp->x = x, cp->yes = yes, cp->no = no;
        int t = par_chunks(o->threads, n);
        par_for(o->threads, n, cls_classify, cp);
        for (int i = 0; i < t; i++) {
            cp->maybe_base[i + 1] = cp->maybe_base[i] + cp->count[i][3];
            r->n_target += cp->count[i][0];
            r->n_yes += cp->count[i][1];
            r->n_no += cp->count[i][2];
            r->n_maybe += cp->count[i][3];
            r->n_infinite += cp->count[i][4];
        }
        par_for(o->threads, n, cls_rank, cp);
        free(cp);
        x->n_maybe = r->n_maybe;
    }
    if (p->kind == PROP_RMIN) /* else every choice is usable (set by prepare) */
        for (uint64_t c = 0; c < m->n_choices; c++) {
            uint8_t ok = 1;
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1] && ok; e++)
                ok = x->cls[m->targets[e]] != CLS_INF;
            x->ok[c] = ok;
        }
    if (o->initial_only && x->initial && !o->scheduler) {
        if ((rc = relevant_restrict(m, x->ok, x->initial, x->cls, CLS_MAYBE, CLS_SKIP, x->loc,
                                    x->back, &x->n_maybe, err)) != WX_OK)
            goto done;
        r->initial_only = 1;
    }
    r->n_relevant = x->n_maybe;
    r->precomp_seconds = j->label_seconds + (wx_now() - t0);
    trace(o, "precomputation: classes done");
    if (pinning) { /* the pool stays untouched until here */
        wx_task_join(&pin_task);
        pinning = 0;
        trace(o, "work arrays page-locked");
    }

    t0 = wx_now();
    if ((rc = build_system(x, r, err)) != WX_OK)
        goto done;
    if ((o->topological || (o->solver == VI_GAUSS_SEIDEL && !o->solve)) &&
        (rc = order_topologically(x, !(o->topological && o->solve_levels), err)) != WX_OK)
        goto done;
    r->build_seconds = wx_now() - t0;
    trace(o, "system: built");
    r->mec_seconds = x->mec_seconds;
    r->blocks = x->n_blocks;
    r->levels = x->n_levels;

    t0 = wx_now();
    uint64_t ns = x->sys.n_states;
    slo = pool_take(x, POOL_SLO, (ns ? ns : 1) * sizeof *slo, 0);
    shi = o->sound ? pool_take(x, POOL_SHI, (ns ? ns : 1) * sizeof *shi, 0) : NULL;
    if (!slo || (o->sound && !shi)) {
        rc = oom(err);
        goto done;
    }
    {
        /* lower bound 0; upper bound 1 for probabilities (rewards: below) */
        struct fill_pass fp = {slo, shi && !x->is_reward ? shi : NULL};
        par_for(o->threads, ns, fill_bounds, &fp);
    }
    struct vi_params par = {.maximize = x->maximize, .epsilon = o->epsilon,
                            .relative = o->relative, .max_iterations = o->max_iterations,
                            .method = o->solver, .threads = o->threads,
                            .device_memory = o->device_memory, .pi_sweeps = o->pi_sweeps,
                            .gpu = o->vi_gpu};
    if (r->initial_only && ns &&
        (rc = relevant_watch(n, x->initial, x->sid, ns, &watch, &par.n_watch, err)) != WX_OK)
        goto done;
    par.watch = watch;
    if (shi && x->is_reward && ns && (rc = reward_upper_bound(x, &par, shi, r, err)) != WX_OK)
        goto done;
    if (ns) {
        rc = run_solve(x, &x->sys, &par, slo, shi, &r->stats, err);
        r->iterations += r->stats.iterations;
        if (rc != WX_OK)
            goto done;
    }
    r->solve_seconds = wx_now() - t0;
    trace(o, "solve: done");

    struct values_pass vp = {x, slo, shi, r};
    par_for(o->threads, n, values_fill, &vp);
    trace(o, "values: assembled");
    if (o->scheduler) {
        double *mid = malloc((n ? n : 1) * sizeof *mid);
        if (!mid) {
            rc = oom(err);
            goto done;
        }
        for (uint64_t s = 0; s < n; s++)
            mid[s] = isinf(r->lo[s]) ? r->lo[s] : 0.5 * (r->lo[s] + r->hi[s]);
        rc = extract_scheduler(x, mid, r, err);
        free(mid);
    }
done:
    wx_task_join(&pin_task);
    free(slo), free(shi), free(watch);
    mdpcheck_job_free(j);
    if (rc != WX_OK)
        mdpcheck_result_free(r);
    return rc;
}

int mdpcheck_run(const struct mdp *m, const struct mdp_labels *labels,
                 const struct mdp_rewards *rew, const uint8_t *initial,
                 const struct property *p, const struct mdpcheck_options *o,
                 struct mdpcheck_result *r, struct wx_error *err)
{
    struct mdpcheck_job *j;
    memset(r, 0, sizeof *r);
    int rc = mdpcheck_prepare(m, labels, rew, initial, p, o, 0, NULL, &j, err);
    if (rc != WX_OK)
        return rc;
    return mdpcheck_finish(j, o, r, err);
}

void mdpcheck_result_free(struct mdpcheck_result *r)
{
    free(r->lo);
    free(r->hi);
    free(r->choice);
    r->lo = r->hi = NULL;
    r->choice = NULL;
}
