/*
 * mdpcheck.c -- the property layer (pipeline and soundness argument in
 * mdpcheck.h).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mdpcheck.h"
#include "mec.h"
#include "scc.h"

/* State classes after the precomputation. */
enum { CLS_NO, CLS_YES, CLS_MAYBE, CLS_INF };

/* Attempts at a certified reward upper bound before giving up. */
#define BOUND_ATTEMPTS 12

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct ctx {
    const struct mdp *m;
    const struct mdp_rewards *rew;
    const struct property *p;
    const struct mdpcheck_options *o;
    int is_reward, maximize;
    uint8_t *cls;       /* n_states */
    uint8_t *target;    /* n_states */
    uint8_t *ok;        /* n_choices: usable choice (Rmin: no risk of infinity) */
    /* the system */
    uint32_t *sid;      /* n_states: system state of a maybe state */
    uint64_t *state_start, *choice_start, *orig_choice;
    uint64_t *block_start, n_blocks; /* after order_topologically: SCCs */
    uint64_t *level_start, n_levels; /* after order_topologically: levels (valiter.h) */
    uint8_t *level_acyclic;
    uint32_t *targets;
    double *probs, *b;
    struct vi_system sys;
    double mec_seconds;
};

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
 * par_for(T, n, fn, arg) runs fn(arg, lo, hi) on T contiguous chunks of
 * [0, n) (the calling thread takes the first).  Each pass writes only the
 * items of its chunk, or at positions a sequential scan fixed before it, so
 * the result does not depend on the number of threads. */
typedef void (*par_fn)(void *arg, uint64_t lo, uint64_t hi);

struct par_job {
    par_fn fn;
    void *arg;
    uint64_t lo, hi;
};

static void *par_main(void *a)
{
    struct par_job *j = a;
    j->fn(j->arg, j->lo, j->hi);
    return NULL;
}

#define PAR_MAX 64
#define PAR_GRAIN 4096 /* items per thread at least: below, threads cost more than they save */

static int par_threads(int threads, uint64_t n)
{
    long t = threads > 0 ? threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (t < 1)
        t = 1;
    if (t > PAR_MAX)
        t = PAR_MAX;
    if ((uint64_t)t > n / PAR_GRAIN)
        t = (long)(n / PAR_GRAIN);
    return t < 1 ? 1 : (int)t;
}

static void par_for(int threads, uint64_t n, par_fn fn, void *arg)
{
    int t = par_threads(threads, n);
    struct par_job job[PAR_MAX];
    pthread_t tid[PAR_MAX];
    int started[PAR_MAX] = {0};
    for (int i = 0; i < t; i++)
        job[i] = (struct par_job){fn, arg, n * (uint64_t)i / (uint64_t)t,
                                  n * (uint64_t)(i + 1) / (uint64_t)t};
    /* a failing pthread_create only means the caller does that chunk */
    for (int i = 1; i < t; i++)
        started[i] = pthread_create(&tid[i], NULL, par_main, &job[i]) == 0;
    fn(arg, job[0].lo, job[0].hi);
    for (int i = 1; i < t; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else
            fn(arg, job[i].lo, job[i].hi);
    }
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

/* The sub-MDP of collapse_mecs: the maybe states (local numbers), their
 * choices that pass the filter and stay among the maybe states; only the
 * graph (probs NULL): the MEC decomposition reads nothing else. */
struct sub_pass {
    const struct ctx *x;
    int zero_reward_only;
    const uint32_t *loc, *back;
    struct mdp *sub;
    uint64_t *sub_orig;
    uint64_t *ccount, *ecount; /* per local state; scanned between the passes */
};

static int sub_keeps(const struct sub_pass *sp, uint32_t s, uint64_t c)
{
    const struct mdp *m = sp->x->m;
    if (!sp->x->ok[c] || (sp->zero_reward_only && choice_reward(sp->x, s, c) != 0))
        return 0;
    for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
        if (sp->loc[m->targets[e]] == UINT32_MAX)
            return 0;
    return 1;
}

static void sub_count(void *arg, uint64_t lo, uint64_t hi)
{
    struct sub_pass *sp = arg;
    const struct mdp *m = sp->x->m;
    for (uint64_t i = lo; i < hi; i++) {
        uint32_t s = sp->back[i];
        uint64_t nc = 0, ne = 0;
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            if (sub_keeps(sp, s, c))
                nc++, ne += m->choice_start[c + 1] - m->choice_start[c];
        sp->ccount[i] = nc;
        sp->ecount[i] = ne;
    }
}

static void sub_fill(void *arg, uint64_t lo, uint64_t hi)
{
    struct sub_pass *sp = arg;
    const struct mdp *m = sp->x->m;
    struct mdp *sub = sp->sub;
    for (uint64_t i = lo; i < hi; i++) {
        uint32_t s = sp->back[i];
        uint64_t sc = sp->ccount[i], se = sp->ecount[i];
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            if (!sub_keeps(sp, s, c))
                continue;
            sp->sub_orig[sc] = c;
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                sub->targets[se++] = sp->loc[m->targets[e]];
            sub->choice_start[++sc] = se;
        }
    }
}

/* Collapses MECs of the maybe states under the choices that pass
 * want_choice; fills internal[c] for choices inside a MEC and mec_of[s]
 * (MEC_NONE outside).  Returns the number of MECs. */
static int collapse_mecs(struct ctx *x, int zero_reward_only, uint8_t *internal,
                         uint32_t *mec_of, uint64_t *n_mecs, struct wx_error *err)
{
    const struct mdp *m = x->m;
    uint64_t n = m->n_states;
    uint32_t *loc = malloc(n * sizeof *loc);
    uint32_t *back = malloc(n * sizeof *back);
    struct mdp sub = {0};
    struct mec_result mr = {0};
    uint64_t *sub_orig = NULL, *ecount = NULL;
    int rc = WX_OK;
    if (!loc || !back)
        goto fail;
    uint64_t k = 0;
    for (uint64_t s = 0; s < n; s++) {
        loc[s] = x->cls[s] == CLS_MAYBE ? (uint32_t)k : UINT32_MAX;
        if (x->cls[s] == CLS_MAYBE)
            back[k++] = (uint32_t)s;
    }
    sub.n_states = k;
    sub.state_start = calloc(k + 1, sizeof *sub.state_start);
    sub.choice_start = calloc(m->n_choices + 1, sizeof *sub.choice_start);
    sub.targets = malloc((m->n_entries ? m->n_entries : 1) * sizeof *sub.targets);
    /* no probabilities: the MEC decomposition reads only the graph
     * (analysis/mec.h), so sub.probs stays NULL (8 bytes per entry saved) */
    sub_orig = malloc((m->n_choices ? m->n_choices : 1) * sizeof *sub_orig);
    if (!sub.state_start || !sub.choice_start || !sub.targets || !sub_orig)
        goto fail;
    /* two parallel passes over the maybe states: count the kept choices
     * and entries, scan, fill (the layout of the sequential loop) */
    ecount = calloc(k + 1, sizeof *ecount);
    if (!ecount)
        goto fail;
    struct sub_pass sp = {.x = x, .zero_reward_only = zero_reward_only, .loc = loc, .back = back,
                          .sub = &sub, .sub_orig = sub_orig, .ccount = sub.state_start,
                          .ecount = ecount};
    trace(x->o, "MEC sub-MDP: allocated");
    par_for(x->o->threads, k, sub_count, &sp);
    exclusive_scan(sub.state_start, k);
    exclusive_scan(ecount, k);
    par_for(x->o->threads, k, sub_fill, &sp);
    sub.n_choices = sub.state_start[k];
    sub.n_entries = ecount[k];
    trace(x->o, "MEC sub-MDP: built");
    double tm = now_s();
    if ((rc = (x->o->mec ? x->o->mec : mec_cpu)(&sub, &mr, err)) != WX_OK)
        goto done;
    x->mec_seconds = now_s() - tm;
    trace(x->o, "MEC decomposition: done");
    for (uint64_t s = 0; s < n; s++)
        mec_of[s] = loc[s] == UINT32_MAX ? MEC_NONE : mr.mec[loc[s]];
    for (uint64_t c = 0; c < sub.n_choices; c++)
        if (mr.choice_in[c])
            internal[sub_orig[c]] = 1;
    *n_mecs = mr.n_mecs;
    goto done;
fail:
    rc = oom(err);
done:
    mec_result_free(&mr);
    mdp_free(&sub);
    free(sub_orig);
    free(ecount);
    free(loc);
    free(back);
    return rc;
}

/* The passes of build_system: system state k gathers the usable,
 * non-internal choices of its members (model states in order). */
struct sys_pass {
    struct ctx *x;
    const uint8_t *internal;
    const uint64_t *mstart;
    const uint32_t *members;
    uint64_t *ccount, *ecount; /* per system state; scanned between the passes */
};

static void sys_count(void *arg, uint64_t lo, uint64_t hi)
{
    struct sys_pass *sp = arg;
    const struct ctx *x = sp->x;
    const struct mdp *m = x->m;
    for (uint64_t k = lo; k < hi; k++) {
        uint64_t nc = 0, ne = 0;
        for (uint64_t j = sp->mstart[k]; j < sp->mstart[k + 1]; j++) {
            uint32_t s = sp->members[j];
            for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
                if (!x->ok[c] || sp->internal[c])
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

static void sys_fill(void *arg, uint64_t lo, uint64_t hi)
{
    struct sys_pass *sp = arg;
    struct ctx *x = sp->x;
    const struct mdp *m = x->m;
    for (uint64_t k = lo; k < hi; k++) {
        uint64_t nc = sp->ccount[k], ne = sp->ecount[k];
        for (uint64_t j = sp->mstart[k]; j < sp->mstart[k + 1]; j++) {
            uint32_t s = sp->members[j];
            for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
                if (!x->ok[c] || sp->internal[c])
                    continue;
                double b = x->is_reward ? choice_reward(x, s, c) : 0;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++) {
                    uint32_t t = m->targets[e];
                    if (x->cls[t] == CLS_MAYBE) {
                        x->targets[ne] = x->sid[t];
                        x->probs[ne++] = m->probs[e];
                    } else if (x->cls[t] == CLS_YES && !x->is_reward)
                        b += m->probs[e];
                }
                x->b[nc] = b;
                x->orig_choice[nc++] = c;
                x->choice_start[nc] = ne;
            }
        }
    }
}

/* Builds x->sys from the maybe states. */
static int build_system(struct ctx *x, struct mdpcheck_result *r, struct wx_error *err)
{
    const struct mdp *m = x->m;
    uint64_t n = m->n_states;
    int collapse = (x->p->kind == PROP_PMAX) || (x->p->kind == PROP_RMIN);
    uint8_t *internal = calloc(m->n_choices ? m->n_choices : 1, 1);
    uint32_t *mec_of = malloc(n * sizeof *mec_of);
    uint32_t *mec_sid = NULL;
    uint64_t *mstart = NULL;
    uint32_t *members = NULL;
    uint64_t *ecount = NULL;
    int rc = WX_OK;
    if (!internal || !mec_of) {
        rc = oom(err);
        goto done;
    }
    uint64_t n_mecs = 0;
    for (uint64_t s = 0; s < n; s++)
        mec_of[s] = MEC_NONE;
    if (collapse && r->n_maybe &&
        (rc = collapse_mecs(x, x->p->kind == PROP_RMIN, internal, mec_of, &n_mecs, err)) != WX_OK)
        goto done;
    r->mecs_collapsed = n_mecs;
    mec_sid = malloc((n_mecs ? n_mecs : 1) * sizeof *mec_sid);
    x->sid = malloc(n * sizeof *x->sid);
    if (!mec_sid || !x->sid) {
        rc = oom(err);
        goto done;
    }
    for (uint64_t i = 0; i < n_mecs; i++)
        mec_sid[i] = UINT32_MAX;
    uint64_t ns = 0;
    for (uint64_t s = 0; s < n; s++) {
        x->sid[s] = UINT32_MAX;
        if (x->cls[s] != CLS_MAYBE)
            continue;
        if (mec_of[s] != MEC_NONE) {
            if (mec_sid[mec_of[s]] == UINT32_MAX)
                mec_sid[mec_of[s]] = (uint32_t)ns++;
            x->sid[s] = mec_sid[mec_of[s]];
        } else
            x->sid[s] = (uint32_t)ns++;
    }
    /* members of each system state, in state order (counting sort) */
    mstart = calloc(ns + 1, sizeof *mstart);
    members = malloc((r->n_maybe ? r->n_maybe : 1) * sizeof *members);
    x->state_start = malloc((ns + 1) * sizeof *x->state_start);
    x->choice_start = malloc((m->n_choices + 1) * sizeof *x->choice_start);
    x->orig_choice = malloc((m->n_choices ? m->n_choices : 1) * sizeof *x->orig_choice);
    x->b = malloc((m->n_choices ? m->n_choices : 1) * sizeof *x->b);
    x->targets = malloc((m->n_entries ? m->n_entries : 1) * sizeof *x->targets);
    x->probs = malloc((m->n_entries ? m->n_entries : 1) * sizeof *x->probs);
    if (!mstart || !members || !x->state_start || !x->choice_start || !x->orig_choice || !x->b ||
        !x->targets || !x->probs) {
        rc = oom(err);
        goto done;
    }
    for (uint64_t s = 0; s < n; s++)
        if (x->sid[s] != UINT32_MAX)
            mstart[x->sid[s] + 1]++;
    for (uint64_t i = 0; i < ns; i++)
        mstart[i + 1] += mstart[i];
    for (uint64_t s = 0; s < n; s++)
        if (x->sid[s] != UINT32_MAX)
            members[mstart[x->sid[s]]++] = (uint32_t)s;
    for (uint64_t i = ns; i > 0; i--)
        mstart[i] = mstart[i - 1];
    mstart[0] = 0;

    /* two parallel passes over the system states: count choices and
     * entries, scan, fill (the layout of a sequential loop) */
    if (!(ecount = calloc(ns + 1, sizeof *ecount))) {
        rc = oom(err);
        goto done;
    }
    struct sys_pass sp = {.x = x, .internal = internal, .mstart = mstart, .members = members,
                          .ccount = x->state_start, .ecount = ecount};
    trace(x->o, "system: numbered, allocated");
    par_for(x->o->threads, ns, sys_count, &sp);
    for (uint64_t k = 0; k < ns; k++)
        if (!x->state_start[k]) {
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                         "internal error: system state %llu (model state %u) has no choice",
                         (unsigned long long)k, members[mstart[k]]);
            goto done;
        }
    exclusive_scan(x->state_start, ns);
    exclusive_scan(ecount, ns);
    x->choice_start[0] = 0;
    par_for(x->o->threads, ns, sys_fill, &sp);
    uint64_t nc = x->state_start[ns], ne = ecount[ns];
    x->sys = (struct vi_system){.n_states = ns, .n_choices = nc, .n_entries = ne,
                                .state_start = x->state_start, .choice_start = x->choice_start,
                                .targets = x->targets, .probs = x->probs, .b = x->b};
    r->sys_states = ns;
    r->sys_choices = nc;
    r->sys_entries = ne;
done:
    free(internal);
    free(mec_of);
    free(mec_sid);
    free(mstart);
    free(members);
    free(ecount);
    return rc;
}

/* Renumbers the system so that every SCC of its graph comes after the SCCs
 * it leads to (bottom SCCs first), states of one SCC in their old order.  A
 * Gauss-Seidel sweep in state order then reads successors' values of the
 * same sweep wherever the graph is acyclic: on chains and DAGs of SCCs it
 * needs far fewer sweeps.  Jacobi does not depend on the order. */
static int order_topologically(struct ctx *x, struct wx_error *err)
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
    uint32_t *pred = NULL;
    uint8_t *cyc = NULL;
    uint64_t *nss = NULL, *ncs = NULL, *nor = NULL;
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
    /* position of each SCC, then states grouped by SCC in that order */
    for (uint64_t i = 0; i < nscc; i++)
        cnt[order[i]] = i;
    memset(pstart, 0, (nscc + 2) * sizeof *pstart);
    for (uint64_t k = 0; k < ns; k++)
        pstart[cnt[sr.comp[k]] + 1]++;
    for (uint64_t i = 0; i < nscc; i++)
        pstart[i + 1] += pstart[i];
    for (uint64_t k = 0; k < ns; k++)
        perm[k] = pstart[cnt[sr.comp[k]]]++;
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
    nor = malloc((nc ? nc : 1) * sizeof *nor);
    nt = malloc((ne ? ne : 1) * sizeof *nt);
    np = malloc((ne ? ne : 1) * sizeof *np);
    nb = malloc((nc ? nc : 1) * sizeof *nb);
    if (!nss || !ncs || !nor || !nt || !np || !nb) {
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
            nb[c2] = sys->b[c];
            nor[c2++] = x->orig_choice[c];
            ncs[c2] = e2;
        }
        nss[k2 + 1] = c2;
    }
    for (uint64_t s = 0; s < x->m->n_states; s++)
        if (x->sid[s] != UINT32_MAX)
            x->sid[s] = (uint32_t)perm[x->sid[s]];
#define SWAP(field, v) do { free(x->field); x->field = v; v = NULL; } while (0)
    SWAP(state_start, nss);
    SWAP(choice_start, ncs);
    SWAP(orig_choice, nor);
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
    free(off), free(cnt), free(pstart), free(pred), free(order), free(perm), free(lvl), free(lcount);
    free(cyc);
    free(nss), free(ncs), free(nor), free(nt), free(np), free(nb);
    return rc;
}

/* Every state's value from its class and the system's solution (a
 * parallel pass: each state is written once). */
struct values_pass {
    const struct ctx *x;
    const double *slo, *shi;
    struct mdpcheck_result *r;
};

static void values_fill(void *arg, uint64_t lo, uint64_t hi)
{
    const struct values_pass *vp = arg;
    const struct ctx *x = vp->x;
    for (uint64_t s = lo; s < hi; s++) {
        double v;
        switch (x->cls[s]) {
        case CLS_NO: v = 0; break;
        case CLS_YES: v = x->is_reward ? 0 : 1; break;
        case CLS_INF: v = INFINITY; break;
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

int mdpcheck_run(const struct mdp *m, const struct mdp_labels *labels,
                 const struct mdp_rewards *rew, const uint8_t *initial,
                 const struct property *p, const struct mdpcheck_options *o,
                 struct mdpcheck_result *r, struct wx_error *err)
{
    memset(r, 0, sizeof *r);
    uint64_t n = m->n_states;
    r->n_states = n;
    struct ctx x = {.m = m, .rew = rew, .p = p, .o = o};
    x.is_reward = p->kind == PROP_RMIN || p->kind == PROP_RMAX;
    x.maximize = p->kind == PROP_PMAX || p->kind == PROP_RMAX;
    mdpcheck_precompute_fn pre = o->precompute ? o->precompute : valiter_precompute_cpu;
    double t0 = now_s();
    uint8_t *allowed = p->phi1 ? malloc(n ? n : 1) : NULL;
    uint8_t *yes = malloc(n ? n : 1), *no = calloc(n ? n : 1, 1);
    double *slo = NULL, *shi = NULL;
    x.cls = malloc(n ? n : 1);
    x.target = malloc(n ? n : 1);
    x.ok = malloc(m->n_choices ? m->n_choices : 1);
    r->lo = malloc((n ? n : 1) * sizeof *r->lo);
    r->hi = malloc((n ? n : 1) * sizeof *r->hi);
    int rc = WX_OK;
    if ((p->phi1 && !allowed) || !yes || !no || !x.cls || !x.target || !x.ok || !r->lo || !r->hi) {
        rc = oom(err);
        goto done;
    }
    if ((rc = prop_eval(p, p->phi2, m, labels, initial, x.target, err)) != WX_OK ||
        (p->phi1 && (rc = prop_eval(p, p->phi1, m, labels, initial, allowed, err)) != WX_OK))
        goto done;
    trace(o, "labels evaluated");
    switch (p->kind) {
    case PROP_PMAX:
        if (o->precompute2)
            rc = o->precompute2(m, allowed, x.target, VI_PMAX0, no, VI_PMAX1, yes, err);
        else if ((rc = pre(m, allowed, x.target, VI_PMAX0, no, err)) == WX_OK)
            rc = pre(m, allowed, x.target, VI_PMAX1, yes, err);
        break;
    case PROP_PMIN:
        if (o->precompute2)
            rc = o->precompute2(m, allowed, x.target, VI_PMIN0, no, VI_PMIN1, yes, err);
        else if ((rc = pre(m, allowed, x.target, VI_PMIN0, no, err)) == WX_OK)
            rc = pre(m, allowed, x.target, VI_PMIN1, yes, err);
        break;
    case PROP_RMIN:
        rc = pre(m, NULL, x.target, VI_PMAX1, yes, err);
        break;
    case PROP_RMAX:
        rc = pre(m, NULL, x.target, VI_PMIN1, yes, err);
        break;
    }
    if (rc != WX_OK)
        goto done;
    for (uint64_t s = 0; s < n; s++) {
        uint8_t c;
        if (x.is_reward)
            c = x.target[s] ? CLS_YES : !yes[s] ? CLS_INF : CLS_MAYBE;
        else
            c = yes[s] ? CLS_YES : no[s] ? CLS_NO : CLS_MAYBE;
        x.cls[s] = c;
        r->n_target += x.target[s];
        r->n_yes += c == CLS_YES;
        r->n_no += c == CLS_NO;
        r->n_maybe += c == CLS_MAYBE;
        r->n_infinite += c == CLS_INF;
    }
    if (p->kind != PROP_RMIN) /* every choice is usable */
        memset(x.ok, 1, m->n_choices);
    else
        for (uint64_t c = 0; c < m->n_choices; c++) {
            uint8_t ok = 1;
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1] && ok; e++)
                ok = x.cls[m->targets[e]] != CLS_INF;
            x.ok[c] = ok;
        }
    r->precomp_seconds = now_s() - t0;
    trace(o, "precomputation: classes done");

    t0 = now_s();
    if ((rc = build_system(&x, r, err)) != WX_OK)
        goto done;
    if ((o->topological || (o->solver == VI_GAUSS_SEIDEL && !o->solve)) &&
        (rc = order_topologically(&x, err)) != WX_OK)
        goto done;
    r->build_seconds = now_s() - t0;
    trace(o, "system: built");
    r->mec_seconds = x.mec_seconds;
    r->blocks = x.n_blocks;
    r->levels = x.n_levels;

    t0 = now_s();
    uint64_t ns = x.sys.n_states;
    slo = calloc(ns ? ns : 1, sizeof *slo);
    shi = o->sound ? malloc((ns ? ns : 1) * sizeof *shi) : NULL;
    if (!slo || (o->sound && !shi)) {
        rc = oom(err);
        goto done;
    }
    struct vi_params par = {.maximize = x.maximize, .epsilon = o->epsilon,
                            .relative = o->relative, .max_iterations = o->max_iterations,
                            .method = o->solver, .threads = o->threads,
                            .device_memory = o->device_memory};
    if (shi) {
        if (x.is_reward) {
            if (ns && (rc = reward_upper_bound(&x, &par, shi, r, err)) != WX_OK)
                goto done;
        } else
            for (uint64_t i = 0; i < ns; i++)
                shi[i] = 1;
    }
    if (ns) {
        rc = run_solve(&x, &x.sys, &par, slo, shi, &r->stats, err);
        r->iterations += r->stats.iterations;
        if (rc != WX_OK)
            goto done;
    }
    r->solve_seconds = now_s() - t0;
    trace(o, "solve: done");

    struct values_pass vp = {&x, slo, shi, r};
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
        rc = extract_scheduler(&x, mid, r, err);
        free(mid);
    }
done:
    free(allowed), free(yes), free(no), free(slo), free(shi);
    free(x.cls), free(x.target), free(x.ok), free(x.sid);
    free(x.state_start), free(x.choice_start), free(x.orig_choice), free(x.block_start);
    free(x.level_start), free(x.level_acyclic);
    free(x.targets), free(x.probs), free(x.b);
    if (rc != WX_OK)
        mdpcheck_result_free(r);
    return rc;
}

void mdpcheck_result_free(struct mdpcheck_result *r)
{
    free(r->lo);
    free(r->hi);
    free(r->choice);
    r->lo = r->hi = NULL;
    r->choice = NULL;
}
