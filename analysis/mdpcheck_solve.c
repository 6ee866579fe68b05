/*
 * mdpcheck_solve.c -- steps 4 to 6 of mdpcheck.h: the initial bounds, the
 * certified reward upper bound, the solve through the backend, and every
 * state's value from its class and the system's solution.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdpcheck_int.h"
#include "relevant.h"
#include "../util/timer.h"

void mdpc_fill_bounds(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    const struct fill_pass *f = arg;
    (void)chunk;
    for (uint64_t i = lo; i < hi; i++)
        f->lo[i] = 0;
    if (f->hi)
        for (uint64_t i = lo; i < hi; i++)
            f->hi[i] = 1;
}

void mdpc_values_fill(void *arg, uint64_t lo, uint64_t hi, int chunk)
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
int mdpc_run_solve(const struct ctx *x, const struct vi_system *sys, const struct vi_params *par,
                     double *lo, double *hi, struct vi_stats *st, struct wx_error *err)
{
    if (x->o->topological && x->o->solve_levels) {
        struct vi_levels lv = {x->n_levels, x->level_start, x->level_acyclic};
        return x->o->solve_levels(sys, par, &lv, lo, hi, st, err);
    }
    if (x->o->optimistic && hi && x->o->ovi_blocks && !x->o->solve_ovi &&
        x->o->solver == VI_GAUSS_SEIDEL && x->block_start)
        return valiter_solve_ovi_blocks_cpu(sys, par, x->block_start, x->n_blocks, lo, hi, st, err);
    if (x->o->optimistic && hi)
        return (x->o->solve_ovi ? x->o->solve_ovi : valiter_solve_ovi_cpu)(sys, par, lo, hi, st, err);
    if (x->o->svi && hi)
        return valiter_solve_svi_cpu(sys, par, lo, hi, st, err);
    if (x->o->topological)
        return valiter_solve_blocks_cpu(sys, par, x->block_start, x->n_blocks, lo, hi, st, err);
    return (x->o->solve ? x->o->solve : valiter_solve_cpu)(sys, par, lo, hi, st, err);
}

/* A certified upper bound for a reward system (see mdpcheck.h): value
 * iteration from below on the rewards raised by delta until F(w) <= w. */
int mdpc_reward_upper_bound(struct ctx *x, const struct vi_params *par, double *w,
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
        rc = mdpc_run_solve(x, &sys2, &p2, w, NULL, &st, err);
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

int mdpc_solve(struct ctx *x, struct mdpcheck_result *r, double **slo_out, double **shi_out,
               struct wx_error *err)
{
    const struct mdpcheck_options *o = x->o;
    double t0 = wx_now();
    uint64_t ns = x->sys.n_states;
    double *slo = *slo_out = mdpc_pool_take(x, POOL_SLO, (ns ? ns : 1) * sizeof *slo, 0);
    double *shi = *shi_out =
        o->sound ? mdpc_pool_take(x, POOL_SHI, (ns ? ns : 1) * sizeof *shi, 0) : NULL;
    if (!slo || (o->sound && !shi))
        return oom(err);
    /* lower bound 0; upper bound 1 for probabilities (rewards: below) */
    struct fill_pass fp = {slo, shi && !x->is_reward ? shi : NULL};
    mdpc_par_for(o->threads, ns, mdpc_fill_bounds, &fp);
    struct vi_params par = {.maximize = x->maximize, .epsilon = o->epsilon,
                            .relative = o->relative, .max_iterations = o->max_iterations,
                            .method = o->solver, .threads = o->threads,
                            .device_memory = o->device_memory, .pi_sweeps = o->pi_sweeps,
                            .gpu = o->vi_gpu};
    uint32_t *watch = NULL;
    int rc = WX_OK;
    if (r->initial_only && ns &&
        (rc = relevant_watch(x->m->n_states, x->initial, x->sid, ns, &watch, &par.n_watch,
                             err)) != WX_OK)
        return rc;
    par.watch = watch;
    if (shi && x->is_reward && (o->optimistic || o->svi))
        for (uint64_t k = 0; k < ns; k++)
            shi[k] = INFINITY;
    else if (shi && x->is_reward && ns &&
             (rc = mdpc_reward_upper_bound(x, &par, shi, r, err)) != WX_OK)
        goto done;
    if (ns) {
        rc = mdpc_run_solve(x, &x->sys, &par, slo, shi, &r->stats, err);
        r->iterations += r->stats.iterations;
        if (rc != WX_OK)
            goto done;
    }
    r->solve_seconds = wx_now() - t0;
    trace(o, "solve: done");
done:
    free(watch);
    return rc;
}
