/*
 * propcheck.c -- the property forms beyond mdpcheck's (propcheck.h): G by
 * complement, step bounds by bounded_solve, comparisons by refinement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "propcheck.h"
#include "../util/config.h"
#include "../util/timer.h"

static int oom(struct wx_error *err)
{
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (model checking)");
}

int propcheck_decide(const struct property *p, const struct mdpcheck_result *r,
                     const uint8_t *initial, uint64_t n[3])
{
    uint64_t cnt[3] = {0, 0, 0};
    if (p->cmp != PROP_QUERY)
        for (uint64_t s = 0; s < r->n_states; s++)
            if (initial ? initial[s] : s == 0) {
                int d = prop_decide(p, r->lo[s], r->hi[s]);
                cnt[d == PROP_FALSE ? 0 : d == PROP_TRUE ? 1 : 2]++;
            }
    if (n)
        memcpy(n, cnt, sizeof cnt);
    if (p->cmp == PROP_QUERY)
        return PROP_TRUE;
    return cnt[0] ? PROP_FALSE : cnt[2] ? PROP_UNDECIDED : PROP_TRUE;
}

/* F<=k, U<=k, G<=k, C<=k: the target and invariant sets, then k backups. */
static int run_bounded(const struct mdp *m, const struct mdp_labels *labels,
                       const struct mdp_rewards *rew, const uint8_t *initial,
                       const struct property *p, const struct mdpcheck_options *o,
                       struct mdpcheck_result *r, struct propcheck_info *info,
                       struct wx_error *err)
{
    if (o->scheduler)
        return wx_fail(err, WX_EINPUT, p->file, p->line, 1,
                       "%s: a step-bounded property has no memoryless optimal scheduler "
                       "(--scheduler is for unbounded properties)", p->text);
    int rc = mdpcheck_need_model(o, m, err); /* the backups read every choice */
    if (rc != WX_OK)
        return rc;
    uint64_t n = m->n_states;
    size_t nb = n ? n : 1;
    uint8_t *set1 = p->phi1 || p->path == PATH_GLOBALLY ? malloc(nb) : NULL;
    uint8_t *set2 = p->path == PATH_UNTIL ? malloc(nb) : NULL;
    r->n_states = n;
    r->lo = malloc(nb * sizeof *r->lo);
    r->hi = malloc(nb * sizeof *r->hi);
    if (!r->lo || !r->hi || ((p->phi1 || p->path == PATH_GLOBALLY) && !set1) ||
        (p->path == PATH_UNTIL && !set2)) {
        rc = oom(err);
        goto out;
    }
    struct bounded_problem bp = {.m = m, .maximize = p->kind == PROP_PMAX || p->kind == PROP_RMAX,
                                 .steps = (uint64_t)p->steps, .threads = o->threads};
    if (p->path == PATH_UNTIL) {
        bp.kind = BOUNDED_UNTIL;
        if ((rc = prop_eval(p, p->phi2, m, labels, initial, set2, err)) != WX_OK ||
            (p->phi1 && (rc = prop_eval(p, p->phi1, m, labels, initial, set1, err)) != WX_OK))
            goto out;
        bp.target = set2;
        bp.allowed = set1;
        for (uint64_t s = 0; s < n; s++)
            r->n_target += set2[s];
    } else if (p->path == PATH_GLOBALLY) {
        bp.kind = BOUNDED_GLOBALLY;
        if ((rc = prop_eval(p, p->phi2, m, labels, initial, set1, err)) != WX_OK)
            goto out;
        bp.allowed = set1;
    } else {
        bp.kind = BOUNDED_CUMULATIVE;
        bp.rew = rew;
    }
    double t0 = wx_now();
    rc = (o->bounded ? o->bounded : bounded_solve)(&bp, r->lo, r->hi, &info->steps_fixed, err);
    r->solve_seconds = wx_now() - t0;
    info->bounded = 1;
out:
    free(set1), free(set2);
    return rc;
}

/* Unbounded F, U or G at epsilon eps: G phi through F !phi with min and
 * max swapped, then complemented. */
static int run_unbounded(const struct mdp *m, const struct mdp_labels *labels,
                         const struct mdp_rewards *rew, const uint8_t *initial,
                         const struct property *p, const struct mdpcheck_options *o, double eps,
                         struct mdpcheck_result *r, struct wx_error *err)
{
    struct mdpcheck_options oe = *o;
    oe.epsilon = eps;
    if (p->path != PATH_GLOBALLY)
        return mdpcheck_run(m, labels, rew, initial, p, &oe, r, err);
    /* a view of p: only read by mdpcheck_run, never freed */
    struct phi neg = {.op = PHI_NOT, .col = p->phi2->col, .a = p->phi2};
    struct property q = *p;
    q.path = PATH_UNTIL;
    q.cmp = PROP_QUERY;
    q.phi1 = NULL;
    q.phi2 = &neg;
    q.kind = p->kind == PROP_PMIN ? PROP_PMAX : PROP_PMIN;
    int rc = mdpcheck_run(m, labels, NULL, initial, &q, &oe, r, err);
    if (rc != WX_OK)
        return rc;
    for (uint64_t s = 0; s < r->n_states; s++) {
        double lo = r->lo[s];
        r->lo[s] = 1 - r->hi[s];
        r->hi[s] = 1 - lo;
    }
    uint64_t yes = r->n_yes; /* F !phi certain: G phi impossible */
    r->n_yes = r->n_no;
    r->n_no = yes;
    return WX_OK;
}

int propcheck_run(const struct mdp *m, const struct mdp_labels *labels,
                  const struct mdp_rewards *rew, const uint8_t *initial,
                  const struct property *p, const struct mdpcheck_options *o,
                  struct mdpcheck_result *r, struct propcheck_info *info, struct wx_error *err)
{
    memset(r, 0, sizeof *r);
    memset(info, 0, sizeof *info);
    info->epsilon = o->epsilon;
    int rc;
    if (p->steps >= 0 || p->path == PATH_CUMULATIVE) {
        if ((rc = run_bounded(m, labels, rew, initial, p, o, r, info, err)) != WX_OK) {
            mdpcheck_result_free(r);
            return rc;
        }
        info->result = propcheck_decide(p, r, initial, NULL);
        if (info->result == PROP_UNDECIDED)
            snprintf(info->why, sizeof info->why,
                     "the bound lies within the rounding of the exact value");
        return WX_OK;
    }
    if (p->cmp != PROP_QUERY && !o->sound)
        return wx_fail(err, WX_EINPUT, p->file, p->line, 1,
                       "%s: a comparison needs bounds on the value, and plain value iteration "
                       "(--method vi) gives none: use ii, pi or topological", p->text);
    double eps = o->epsilon;
    if ((rc = run_unbounded(m, labels, rew, initial, p, o, eps, r, err)) != WX_OK)
        return rc;
    info->tries = 1;
    info->epsilon = eps;
    while ((info->result = propcheck_decide(p, r, initial, NULL)) == PROP_UNDECIDED) {
        if (eps / WX_DECIDE_SHRINK < WX_DECIDE_EPSILON_MIN) {
            snprintf(info->why, sizeof info->why,
                     "the bound lies within [lo, hi] at epsilon %g, the smallest tried", eps);
            break;
        }
        eps /= WX_DECIDE_SHRINK;
        struct mdpcheck_result finer;
        struct wx_error e2;
        rc = run_unbounded(m, labels, rew, initial, p, o, eps, &finer, &e2);
        if (rc == WX_ELIMIT) { /* keep the bounds that converged */
            snprintf(info->why, sizeof info->why, "the try at epsilon %g failed: %s", eps,
                     e2.msg);
            break;
        }
        if (rc != WX_OK) {
            *err = e2;
            mdpcheck_result_free(r);
            return rc;
        }
        mdpcheck_result_free(r);
        *r = finer;
        info->tries++;
        info->epsilon = eps;
    }
    return WX_OK;
}
