/*
 * mdpcheck.c -- the property layer (pipeline and soundness argument in
 * mdpcheck.h): mdpcheck_finish runs the steps, each in a file of its own
 * (mdpcheck_int.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mdpcheck_int.h"
#include "relevant.h"
#include "../util/pool.h"
#include "../util/timer.h"

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

/* Step 2: the precomputation's sets into j->yes and j->no. */
static int precompute_sets(struct mdpcheck_job *j, struct wx_error *err)
{
    const struct ctx *x = &j->x;
    const struct mdp *m = x->m;
    const struct mdpcheck_options *o = x->o;
    mdpcheck_precompute_fn pre = o->precompute ? o->precompute : valiter_precompute_cpu;
    uint8_t *allowed = j->allowed, *yes = j->yes, *no = j->no;
    int rc = WX_OK;
    switch (x->p->kind) {
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
    return rc;
}

/* Whether step 2a applies: the cut to the states the initial ones need. */
static int wants_cut(const struct ctx *x)
{
    return x->o->initial_only && x->initial && !x->o->scheduler;
}

/* Step 2a on the host (when it applies). */
static int initial_cut(struct ctx *x, struct mdpcheck_result *r, struct wx_error *err)
{
    if (!wants_cut(x))
        return WX_OK;
    struct mdpcheck_cut q = {.m = x->m, .ok = x->p->kind == PROP_RMIN ? x->ok : NULL,
                             .initial = x->initial, .cls_maybe = CLS_MAYBE, .cls_skip = CLS_SKIP,
                             .cls = x->cls, .loc = x->loc, .back = x->back};
    int rc = x->o->cut ? x->o->cut(&q, err) : WX_OK;
    if (rc == WX_OK && q.done) {
        x->n_maybe = q.n_maybe;
        r->cut_backend = 1;
        trace(x->o, "step 2a: cut by the backend");
    } else if (rc == WX_OK)
        rc = relevant_restrict(x->m, x->ok, x->initial, x->cls, CLS_MAYBE, CLS_SKIP, x->o->threads, x->loc,
                               x->back, &x->n_maybe, err);
    if (rc != WX_OK)
        return rc;
    r->initial_only = 1;
    r->n_relevant = x->n_maybe;
    return WX_OK;
}

/* Steps 2 and 2a: every state's class and the counts, the maybe states'
 * ranks, Rmin's usable choices, and with cut set step 2a. */
static int classify(struct ctx *x, const uint8_t *yes, const uint8_t *no, int cut,
                    struct mdpcheck_result *r, struct wx_error *err)
{
    const struct mdp *m = x->m;
    const struct mdpcheck_options *o = x->o;
    uint64_t n = m->n_states;
    struct cls_pass *cp = calloc(1, sizeof *cp);
    if (!cp)
        return oom(err);
    cp->x = x, cp->yes = yes, cp->no = no;
    int t = mdpc_par_chunks(o->threads, n);
    mdpc_par_for(o->threads, n, cls_classify, cp);
    for (int i = 0; i < t; i++) {
        cp->maybe_base[i + 1] = cp->maybe_base[i] + cp->count[i][3];
        r->n_target += cp->count[i][0];
        r->n_yes += cp->count[i][1];
        r->n_no += cp->count[i][2];
        r->n_maybe += cp->count[i][3];
        r->n_infinite += cp->count[i][4];
    }
    mdpc_par_for(o->threads, n, cls_rank, cp);
    free(cp);
    x->n_maybe = r->n_maybe;
    if (x->p->kind == PROP_RMIN) /* else every choice is usable (set by prepare) */
        for (uint64_t c = 0; c < m->n_choices; c++) {
            uint8_t ok = 1;
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1] && ok; e++)
                ok = x->cls[m->targets[e]] != CLS_INF;
            x->ok[c] = ok;
        }
    r->n_relevant = x->n_maybe;
    return cut ? initial_cut(x, r, err) : WX_OK;
}

/* The backend builds the system of Pmin and Rmax, step 2a's cut included
 * (options.build_system; it may decline). */
static int backend_builds(const struct ctx *x)
{
    return x->o->build_system && (x->p->kind == PROP_PMIN || x->p->kind == PROP_RMAX);
}

int mdpcheck_need_model(const struct mdpcheck_options *o, const struct mdp *m, struct wx_error *err)
{
    if (m->choice_start || !o->host_model)
        return WX_OK;
    int rc = o->host_model(o->host_model_ctx, err);
    if (rc == WX_OK && (!m->choice_start || !m->targets || !m->probs))
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal error: the model's choices did not arrive");
    return rc;
}

/* Step 6's scheduler, from the midpoints of the values. */
static int scheduler(struct ctx *x, struct mdpcheck_result *r, struct wx_error *err)
{
    uint64_t n = x->m->n_states;
    double *mid = malloc((n ? n : 1) * sizeof *mid);
    if (!mid)
        return oom(err);
    for (uint64_t s = 0; s < n; s++)
        mid[s] = isinf(r->lo[s]) ? r->lo[s] : 0.5 * (r->lo[s] + r->hi[s]);
    int rc = mdpc_extract_scheduler(x, mid, r, err);
    free(mid);
    return rc;
}

int mdpcheck_finish(struct mdpcheck_job *j, const struct mdpcheck_options *o,
                    struct mdpcheck_result *r, struct wx_error *err)
{
    struct ctx *x = &j->x;
    memset(r, 0, sizeof *r);
    uint64_t n = x->m->n_states;
    r->n_states = n;
    r->lo = j->lo, r->hi = j->hi;
    j->lo = j->hi = NULL;
    x->o = o;
    double *slo = NULL, *shi = NULL;
    double t0 = wx_now();
    struct wx_task pin_task = {0};
    int pinning = o->pin && o->unpin;
    if (pinning) {
        x->unpin = o->unpin;
        wx_task_start(&pin_task, pin_main, x);
    }
    int backend = backend_builds(x), built = 0;
    /* the host steps read the model's choices but where the hooks take over
     * (precomputation, Pmin's and Rmax's system and cut) */
    int rc = !o->precompute || !backend || o->scheduler ? mdpcheck_need_model(o, x->m, err) : WX_OK;
    if (rc == WX_OK)
        rc = precompute_sets(j, err);
    if (rc != WX_OK || (rc = classify(x, j->yes, j->no, !backend, r, err)) != WX_OK)
        goto done;
    r->precomp_seconds = j->label_seconds + (wx_now() - t0);
    trace(o, "precomputation: classes done");
    if (pinning) { /* the pool stays untouched until here */
        wx_task_join(&pin_task);
        pinning = 0;
        trace(o, "work arrays page-locked");
    }

    t0 = wx_now();
    if (backend && ((rc = mdpc_build_system_dev(x, wants_cut(x), r, &built, err)) != WX_OK ||
                    (!built && (rc = mdpcheck_need_model(o, x->m, err)) != WX_OK) ||
                    (!built && (rc = initial_cut(x, r, err)) != WX_OK)))
        goto done;
    if (!built && (rc = mdpc_build_system(x, r, err)) != WX_OK)
        goto done;
    if ((o->topological ||
         (o->solver == VI_GAUSS_SEIDEL && (!o->solve || (o->optimistic && !o->solve_ovi) || o->svi))) &&
        (rc = mdpc_order_topologically(x, !(o->topological && o->solve_levels), err)) != WX_OK)
        goto done;
    r->build_seconds = wx_now() - t0;
    trace(o, "system: built");
    r->mec_seconds = x->mec_seconds;
    r->blocks = x->n_blocks;
    r->levels = x->n_levels;

    if ((rc = mdpc_solve(x, r, &slo, &shi, err)) != WX_OK)
        goto done;
    struct values_pass vp = {x, slo, shi, r};
    mdpc_par_for(o->threads, n, mdpc_values_fill, &vp);
    trace(o, "values: assembled");
    if (o->scheduler)
        rc = scheduler(x, r, err);
done:
    wx_task_join(&pin_task);
    free(slo), free(shi);
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
