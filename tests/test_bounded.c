/*
 * test_bounded.c -- analysis/bounded and the forms of analysis/propcheck
 * that build on other solvers, against an independent naive solver.
 *
 *  - Random MDPs (seeds printed; states without a choice, self-loops,
 *    several choices, probabilities that are not dyadic): F<=k, U<=k, G<=k
 *    and C<=k with min and max for k in 0..12 are recomputed by a direct
 *    transcription of the recurrences of bounded.h in long double (64-bit
 *    mantissa); the naive value must lie in [lo, hi] (widened by the naive
 *    solver's own rounding, far below a double's) and hi - lo must stay a
 *    few units in the last place.  The solver's k is checked too: the
 *    naive values at k - 1 and k + 1 must not fit where they differ.
 *  - Directed rounding is in effect: on the random models some hi - lo is
 *    not 0 (1/10, 1/3 ... are not doubles).
 *  - G<=k phi with min equals 1 - F<=k !phi with max (the identity
 *    propcheck.h relies on), within the rounding.
 *  - A large random model (3 x 10^4 states) gives bit-identical bounds on
 *    1, 2 and 5 threads.
 *  - propcheck: unbounded G phi is 1 - F !phi with min and max swapped,
 *    bound for bound; a comparison close to the value is decided after
 *    refining epsilon; one equal to an irrational value stays undecided.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bounded.h"
#include "analysis/propcheck.h"
#include "graph/mdp.h"
#include "graph/mdp_lab.h"
#include "tests/check.h"
#include "tests/rng.h"

struct model {
    struct mdp m;
    uint8_t *a, *b;      /* two random state sets */
    struct mdp_rewards rew;
};

static const double PROBS[][3] = {{1, 0, 0}, {0.5, 0.5, 0}, {0.1, 0.9, 0}, {0.3, 0.3, 0.4},
                                  {1.0 / 3, 1.0 / 3, 1 - 2.0 / 3}, {0.7, 0.2, 0.1}};

static void gen(struct model *x, uint64_t n)
{
    struct mdp *m = &x->m;
    memset(x, 0, sizeof *x);
    m->n_states = n;
    m->state_start = calloc(n + 1, sizeof *m->state_start);
    uint64_t cap = n * 3 + 1;
    m->choice_start = calloc(cap + 1, sizeof *m->choice_start);
    m->targets = malloc(cap * 3 * sizeof *m->targets);
    m->probs = malloc(cap * 3 * sizeof *m->probs);
    uint64_t c = 0, e = 0;
    for (uint64_t s = 0; s < n; s++) {
        m->state_start[s] = c;
        int nc = rnd_below(8) == 0 ? 0 : 1 + (int)rnd_below(3);
        for (int k = 0; k < nc; k++, c++) {
            m->choice_start[c] = e;
            const double *pr = PROBS[rnd_below(6)];
            for (int j = 0; j < 3 && pr[j] > 0; j++, e++) {
                m->targets[e] = (uint32_t)(rnd_below(4) == 0 ? s : rnd_below(n));
                m->probs[e] = pr[j];
            }
        }
    }
    m->state_start[n] = c;
    m->choice_start[c] = e;
    m->n_choices = c;
    m->n_entries = e;
    x->a = malloc(n);
    x->b = malloc(n);
    x->rew.state = malloc(n * sizeof *x->rew.state);
    x->rew.choice = malloc((c ? c : 1) * sizeof *x->rew.choice);
    for (uint64_t s = 0; s < n; s++) {
        x->a[s] = rnd_below(5) != 0;
        x->b[s] = rnd_below(6) == 0;
        x->rew.state[s] = rnd_below(3) ? 0 : 0.1 * (double)rnd_below(30);
    }
    for (uint64_t k = 0; k < c; k++)
        x->rew.choice[k] = rnd_below(2) ? 0 : 1.0 / (double)(1 + rnd_below(7));
}

static void model_free(struct model *x)
{
    free(x->m.state_start), free(x->m.choice_start), free(x->m.targets), free(x->m.probs);
    free(x->a), free(x->b), free(x->rew.state), free(x->rew.choice);
}

/* The recurrences of bounded.h, written out again in long double. */
static void naive(const struct model *x, enum bounded_kind kind, int mx, int k, long double *v)
{
    const struct mdp *m = &x->m;
    uint64_t n = m->n_states;
    long double *w = malloc(n * sizeof *w);
    for (uint64_t s = 0; s < n; s++)
        v[s] = kind == BOUNDED_UNTIL ? x->b[s] : kind == BOUNDED_GLOBALLY ? x->a[s] : 0;
    for (int i = 0; i < k; i++) {
        for (uint64_t s = 0; s < n; s++) {
            uint64_t c0 = m->state_start[s], c1 = m->state_start[s + 1];
            int dead = c0 == c1;
            if (kind == BOUNDED_UNTIL && (x->b[s] || !x->a[s] || dead)) {
                w[s] = x->b[s];
                continue;
            }
            if (kind == BOUNDED_GLOBALLY && (!x->a[s] || dead)) {
                w[s] = x->a[s];
                continue;
            }
            if (dead) {
                w[s] = 0;
                continue;
            }
            long double best = mx ? -1 : 1e300L;
            for (uint64_t c = c0; c < c1; c++) {
                long double t = kind == BOUNDED_CUMULATIVE ? (long double)x->rew.state[s] +
                                                                 x->rew.choice[c] : 0;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                    t += (long double)m->probs[e] * v[m->targets[e]];
                best = mx ? fmaxl(best, t) : fminl(best, t);
            }
            w[s] = best;
        }
        memcpy(v, w, n * sizeof *v);
    }
    free(w);
}

static const char *KIND[] = {"U<=k", "G<=k", "C<=k"};

static int solve(const struct model *x, enum bounded_kind kind, int mx, int k, int threads,
                 double *lo, double *hi)
{
    struct bounded_problem bp = {.m = &x->m, .kind = kind, .maximize = mx, .steps = (uint64_t)k,
                                 .threads = threads};
    bp.allowed = x->a;
    bp.target = kind == BOUNDED_UNTIL ? x->b : NULL;
    bp.rew = kind == BOUNDED_CUMULATIVE ? &x->rew : NULL;
    struct wx_error err;
    uint64_t fixed;
    return bounded_solve(&bp, lo, hi, &fixed, &err);
}

/* [lo, hi] against the naive values at k, and not at k - 1 or k + 1 where
 * those differ from k's; returns 1 when some hi > lo. */
static int against_naive(uint64_t seed, const struct model *x, enum bounded_kind kind, int mx,
                         int k)
{
    uint64_t n = x->m.n_states;
    double *lo = malloc(n * sizeof *lo), *hi = malloc(n * sizeof *hi);
    long double *v[3];
    for (int d = 0; d < 3; d++) {
        v[d] = malloc(n * sizeof **v);
        naive(x, kind, mx, k - 1 + d < 0 ? 0 : k - 1 + d, v[d]);
    }
    solve(x, kind, mx, k, 0, lo, hi);
    int bad = 0, wide = 0, off[2] = {0, 0};
    char why[240] = "";
    for (uint64_t s = 0; s < n && !bad; s++) {
        long double t = v[1][s], tol = 1e-17L * fmaxl(1, fabsl(t)) * (k + 1);
        double ulps = 8 * (k + 1) * 1.2e-16 * fmax(1, fabs(hi[s]));
        if (!(lo[s] <= t + tol && t - tol <= hi[s]) || !(hi[s] - lo[s] <= ulps)) {
            bad = 1;
            snprintf(why, sizeof why, "state %llu: naive %.20Lg, [%.17g, %.17g]",
                     (unsigned long long)s, t, lo[s], hi[s]);
        }
        wide |= hi[s] > lo[s];
        for (int d = 0; d < 2; d++) {
            long double u = v[d ? 2 : 0][s];
            if (fabsl(u - t) > 1e-9L && lo[s] <= u + tol && u - tol <= hi[s])
                off[d] = 1;
        }
    }
    if (bad || off[0] || off[1])
        check(0, "seed %llu: %s %s k=%d: %s%s%s", (unsigned long long)seed, KIND[kind],
              mx ? "max" : "min", k, why, off[0] ? " fits k - 1" : "", off[1] ? " fits k + 1" : "");
    for (int d = 0; d < 3; d++)
        free(v[d]);
    free(lo), free(hi);
    return wide;
}

static void random_models(void)
{
    int failures = check_failures, wide = 0, runs = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        rng_state = seed * 0x9E3779B97F4A7C15ull;
        struct model x;
        gen(&x, 2 + rnd_below(40));
        for (int kind = 0; kind < 3; kind++)
            for (int mx = 0; mx < 2; mx++)
                for (int k = 0; k <= 12; k += 1 + (int)(seed % 3), runs++)
                    wide |= against_naive(seed, &x, (enum bounded_kind)kind, mx, k);
        model_free(&x);
    }
    check(check_failures == failures, "%d step-bounded solves on 40 random MDPs (seeds 1..40) "
          "hold the naive long-double value, and not that of k - 1 or k + 1", runs);
    check(wide, "directed rounding: some bounds are apart by the rounding");
}

/* G<=k phi (min) = 1 - F<=k !phi (max). */
static void globally_identity(void)
{
    int bad = 0;
    for (uint64_t seed = 100; seed < 120 && !bad; seed++) {
        rng_state = seed;
        struct model x;
        gen(&x, 30);
        uint64_t n = x.m.n_states;
        double glo[30], ghi[30], flo[30], fhi[30];
        uint8_t *not_a = malloc(n);
        for (uint64_t s = 0; s < n; s++)
            not_a[s] = !x.a[s];
        for (int mx = 0; mx < 2 && !bad; mx++) {
            solve(&x, BOUNDED_GLOBALLY, mx, 7, 1, glo, ghi);
            struct bounded_problem bp = {.m = &x.m, .kind = BOUNDED_UNTIL, .target = not_a,
                                         .maximize = !mx, .steps = 7, .threads = 1};
            struct wx_error err;
            bounded_solve(&bp, flo, fhi, NULL, &err);
            for (uint64_t s = 0; s < n && !bad; s++)
                bad = !(fabs(glo[s] - (1 - fhi[s])) <= 1e-14 && fabs(ghi[s] - (1 - flo[s])) <= 1e-14);
            if (bad)
                check(0, "seed %llu: G<=7 %s differs from 1 - F<=7 !phi", (unsigned long long)seed,
                      mx ? "max" : "min");
        }
        free(not_a);
        model_free(&x);
    }
    check(!bad, "G<=k phi = 1 - F<=k !phi with min and max swapped (20 random MDPs)");
}

static void threads(void)
{
    rng_state = 77;
    struct model x;
    gen(&x, 30000);
    uint64_t n = x.m.n_states;
    double *lo[3], *hi[3];
    int t[3] = {1, 2, 5}, same = 1;
    for (int i = 0; i < 3; i++) {
        lo[i] = malloc(n * sizeof **lo), hi[i] = malloc(n * sizeof **hi);
        solve(&x, BOUNDED_CUMULATIVE, 1, 25, t[i], lo[i], hi[i]);
        if (i)
            same &= !memcmp(lo[0], lo[i], n * sizeof **lo) && !memcmp(hi[0], hi[i], n * sizeof **hi);
    }
    check(same, "30000 states, C<=25 max: bit-identical bounds on 1, 2 and 5 threads (seed 77)");
    for (int i = 0; i < 3; i++)
        free(lo[i]), free(hi[i]);
    model_free(&x);
}

/* A DTMC: 0 -> 0 (1/2) | 1 (1/4) | 2 (1/4); 1 "goal" and 2 a sink, both
 * absorbing: P(F goal) = 1/2 at 0, which interval iteration approaches
 * from both sides without reaching it (hi = 1/2 + 2^-(k+1) after k sweeps). */
static void propcheck_forms(void)
{
    uint64_t ss[4] = {0, 1, 2, 3}, cs[4] = {0, 3, 4, 5};
    uint32_t tg[5] = {0, 1, 2, 1, 2};
    double pr[5] = {0.5, 0.25, 0.25, 1, 1};
    struct mdp m = {.n_states = 3, .n_choices = 3, .n_entries = 5, .state_start = ss,
                    .choice_start = cs, .targets = tg, .probs = pr, .is_dtmc = 1};
    struct mdp_labels labels;
    mdp_labels_init(&labels, 3);
    mdp_labels_set(&labels, mdp_labels_add(&labels, "goal"), 1);
    uint8_t init[3] = {1, 0, 0};
    struct mdpcheck_options o = {.sound = 1, .solver = VI_JACOBI, .epsilon = 1e-6,
                                 .max_iterations = 100000, .threads = 1};
    struct property p;
    struct wx_error err;
    struct mdpcheck_result r, rf;
    struct propcheck_info info;

    /* G !goal = 1 - F goal, bound for bound */
    prop_parse("Pmin=? [ G !\"goal\" ]", NULL, 1, &p, &err);
    propcheck_run(&m, &labels, NULL, init, &p, &o, &r, &info, &err);
    prop_free(&p);
    prop_parse("Pmax=? [ F !!\"goal\" ]", NULL, 1, &p, &err);
    mdpcheck_run(&m, &labels, NULL, init, &p, &o, &rf, &err);
    prop_free(&p);
    check(r.lo[0] == 1 - rf.hi[0] && r.hi[0] == 1 - rf.lo[0] && r.lo[0] < 0.5 && 0.5 < r.hi[0],
          "G !goal = 1 - F goal: [%.17g, %.17g]", r.lo[0], r.hi[0]);
    mdpcheck_result_free(&r), mdpcheck_result_free(&rf);

    /* a bound 1e-8 below the value: undecided at epsilon 1e-6, decided by refining */
    prop_parse("P>=0.49999999 [ G !\"goal\" ]", NULL, 1, &p, &err);
    int rc = propcheck_run(&m, &labels, NULL, init, &p, &o, &r, &info, &err);
    check(rc == WX_OK && info.result == PROP_TRUE && info.tries > 1 && info.epsilon < 1e-6,
          "P>=0.49999999 [ G !goal ]: true after %d solves (epsilon %g)", info.tries,
          info.epsilon);
    mdpcheck_result_free(&r);
    prop_free(&p);
    /* the bound equal to the value: no epsilon tells them apart */
    prop_parse("P>=0.5 [ G !\"goal\" ]", NULL, 1, &p, &err);
    rc = propcheck_run(&m, &labels, NULL, init, &p, &o, &r, &info, &err);
    check(rc == WX_OK && info.result == PROP_UNDECIDED && strstr(info.why, "smallest"),
          "P>=0.5 [ G !goal ]: undecided (%s)", info.why);
    mdpcheck_result_free(&r);
    prop_free(&p);
    /* step-bounded: exact dyadic values are decided at equality */
    prop_parse("P>=0.4375 [ F<=3 \"goal\" ]", NULL, 1, &p, &err);
    rc = propcheck_run(&m, &labels, NULL, init, &p, &o, &r, &info, &err);
    check(rc == WX_OK && info.result == PROP_TRUE && r.lo[0] == 0.4375 && r.hi[0] == 0.4375,
          "P>=0.4375 [ F<=3 goal ]: true at equality (1/4 + 1/8 + 1/16)");
    mdpcheck_result_free(&r);
    prop_free(&p);
    /* plain value iteration has no bounds to decide with */
    o.sound = 0;
    prop_parse("P>=0.5 [ F \"goal\" ]", NULL, 1, &p, &err);
    rc = propcheck_run(&m, &labels, NULL, init, &p, &o, &r, &info, &err);
    check(rc == WX_EINPUT && strstr(err.msg, "--method vi"), "a comparison with plain VI: %s",
          err.msg);
    prop_free(&p);
    o.sound = 1;
    /* no scheduler for step-bounded properties */
    o.scheduler = 1;
    prop_parse("Pmax=? [ F<=3 \"goal\" ]", NULL, 1, &p, &err);
    rc = propcheck_run(&m, &labels, NULL, init, &p, &o, &r, &info, &err);
    check(rc == WX_EINPUT && strstr(err.msg, "scheduler"), "--scheduler with F<=k: %s", err.msg);
    prop_free(&p);
    mdp_labels_free(&labels);
}

int main(void)
{
    random_models();
    globally_identity();
    threads();
    propcheck_forms();
    return check_exit();
}
