/*
 * test_valiter.c -- analysis/valiter (precomputations, solvers) and
 * analysis/mdpcheck (the property layer) against exact references.
 *
 *  - 400 random MDPs of 1..7 states (0..3 choices, self-loops, end
 *    components, states without path to the target, deadlocks, both nearly
 *    deterministic and heavily nondeterministic ones; probabilities k/8),
 *    with random target and (for U) allowed sets and random state/choice
 *    rewards.  The reference is computed here, independently of the code
 *    under test: every memoryless deterministic scheduler is enumerated and
 *    its Markov chain solved exactly enough by Gaussian elimination in long
 *    double (reachability: graph analysis + linear system; rewards: +inf
 *    unless the target is reached almost surely).  Pmax/Pmin/Rmax/Rmin are
 *    the per-state max/min over schedulers.  Checked for every state: the
 *    Prob0/Prob1 sets equal {v == 0} / {v == 1}; the interval [lo, hi] of
 *    interval iteration contains the exact value and hi - lo <= epsilon;
 *    Jacobi with 1 and 4 threads give bit-identical vectors; Gauss-Seidel is
 *    within epsilon; the relative stopping rule (1e-4) holds and brackets;
 *    topological solving (SCC by SCC, and level by level) brackets within epsilon; the extracted scheduler, evaluated exactly, is optimal
 *    within 2 epsilon (for Pmax and Rmin this needs the "keeps reaching the
 *    target" choice).
 *    Optimistic and sound value iteration (each: Jacobi 1 and 4 threads
 *    bit-identical, Gauss-Seidel, relative, initial state only) bracket
 *    the exact value within epsilon.
 *  - Plain value iteration's failure mode: on a slowly converging chain it
 *    stops after one sweep far from the value, while interval iteration
 *    brackets the exact value.
 *  - Non-convergence within --max-iterations is WX_ELIMIT, not an answer.
 *  - A random MDP of 8,000 states with long chains and sinks: Jacobi with
 *    1, 3 and 7 threads bit-identical, Gauss-Seidel's interval overlapping,
 *    for Pmax, Pmin and Rmin.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mdpcheck.h"
#include "analysis/prop.h"
#include "analysis/valiter.h"
#include "graph/mdp.h"
#include "graph/mdp_lab.h"
#include "tests/check.h"
#include "tests/rng.h"

#define MAXN 7
#define EPS 1e-6

/* ---- random instances ---- */

struct inst {
    struct mdp m;
    uint8_t target[MAXN], allowed[MAXN];
    double srew[MAXN];
    double crew[MAXN * 3];
    struct mdp_rewards rew;
};

static void gen(struct inst *x, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    memset(x, 0, sizeof *x);
    struct mdp *m = &x->m;
    uint64_t n = 1 + rnd_below(MAXN);
    unsigned style = (unsigned)rnd_below(3); /* 0 deterministic-ish, 1 mixed, 2 heavy */
    m->n_states = n;
    m->state_start = calloc(n + 1, sizeof *m->state_start);
    m->choice_start = calloc(3 * n + 1, sizeof *m->choice_start);
    m->targets = malloc(9 * n * sizeof *m->targets);
    m->probs = malloc(9 * n * sizeof *m->probs);
    for (uint64_t s = 0; s < n; s++) {
        unsigned k = style == 0 ? 1 : style == 1 ? (unsigned)rnd_below(3) + 1 : 3;
        if (rnd_below(12) == 0)
            k = 0; /* deadlock */
        for (unsigned j = 0; j < k; j++) {
            uint64_t c = m->n_choices++;
            unsigned parts = 1 + (unsigned)rnd_below(3), left = 8;
            if (rnd_below(6) == 0) { /* pure self-loop */
                m->targets[m->n_entries] = (uint32_t)s;
                m->probs[m->n_entries++] = 1;
            } else {
                uint32_t used[3];
                unsigned nu = 0;
                for (unsigned q = 0; q < parts && left; q++) {
                    uint32_t t = (uint32_t)rnd_below(n);
                    int dup = 0;
                    for (unsigned u = 0; u < nu; u++)
                        dup |= used[u] == t;
                    if (dup)
                        continue;
                    unsigned w = q + 1 == parts ? left : 1 + (unsigned)rnd_below(left);
                    used[nu++] = t;
                    m->targets[m->n_entries] = t;
                    m->probs[m->n_entries++] = w / 8.0;
                    left -= w;
                }
                if (left) /* the rest onto the first target */
                    m->probs[m->choice_start[c]] += left / 8.0;
            }
            m->choice_start[c + 1] = m->n_entries;
            x->crew[c] = rnd_below(3) ? (double)rnd_below(4) : 0;
        }
        m->state_start[s + 1] = m->n_choices;
        x->target[s] = rnd_below(4) == 0;
        x->allowed[s] = rnd_below(5) != 0;
        x->srew[s] = rnd_below(2) ? (double)rnd_below(3) : 0;
    }
    x->rew.state = x->srew;
    x->rew.choice = x->crew;
}

/* ---- exact reference by scheduler enumeration ---- */

/* Solves a (n x n) x = b in place by Gaussian elimination with pivoting. */
static void gauss(int n, long double a[MAXN][MAXN], long double *b)
{
    for (int i = 0; i < n; i++) {
        int p = i;
        for (int r = i + 1; r < n; r++)
            if (fabsl(a[r][i]) > fabsl(a[p][i]))
                p = r;
        for (int c = 0; c < n; c++) {
            long double t = a[i][c];
            a[i][c] = a[p][c];
            a[p][c] = t;
        }
        long double t = b[i];
        b[i] = b[p];
        b[p] = t;
        for (int r = 0; r < n; r++) {
            if (r == i || a[r][i] == 0)
                continue;
            long double f = a[r][i] / a[i][i];
            for (int c = 0; c < n; c++)
                a[r][c] -= f * a[i][c];
            b[r] -= f * b[i];
        }
    }
    for (int i = 0; i < n; i++)
        b[i] /= a[i][i];
}

/* Values of the Markov chain of scheduler sel (sel[s] = global choice or
 * -1) for probability (reward == 0) or expected reward (reward == 1). */
static void chain_values(const struct inst *x, const int *sel, int use_allowed, int reward,
                         long double *v)
{
    const struct mdp *m = &x->m;
    int n = (int)m->n_states;
    /* can reach T (through allowed states, for U) */
    int reach[MAXN] = {0}, changed = 1;
    for (int s = 0; s < n; s++)
        reach[s] = x->target[s];
    while (changed) {
        changed = 0;
        for (int s = 0; s < n; s++) {
            if (reach[s] || sel[s] < 0 || (use_allowed && !x->allowed[s]))
                continue;
            for (uint64_t e = m->choice_start[sel[s]]; e < m->choice_start[sel[s] + 1]; e++)
                if (reach[m->targets[e]]) {
                    reach[s] = 1;
                    changed = 1;
                    break;
                }
        }
    }
    int finite[MAXN];
    if (reward) {
        /* reached a.s.: cannot reach (avoiding T) a state that cannot reach T */
        int bad[MAXN];
        for (int s = 0; s < n; s++)
            bad[s] = !reach[s];
        changed = 1;
        while (changed) {
            changed = 0;
            for (int s = 0; s < n; s++) {
                if (bad[s] || x->target[s])
                    continue;
                for (uint64_t e = m->choice_start[sel[s]]; e < m->choice_start[sel[s] + 1]; e++)
                    if (bad[m->targets[e]]) {
                        bad[s] = 1;
                        changed = 1;
                        break;
                    }
            }
        }
        for (int s = 0; s < n; s++)
            finite[s] = !bad[s];
    }
    long double a[MAXN][MAXN] = {{0}}, b[MAXN] = {0};
    for (int s = 0; s < n; s++) {
        a[s][s] = 1;
        int unknown = reward ? (finite[s] && !x->target[s]) : (reach[s] && !x->target[s]);
        if (!unknown) {
            b[s] = reward ? 0 : x->target[s] ? 1 : 0;
            continue;
        }
        int c = sel[s];
        if (reward)
            b[s] = x->srew[s] + x->crew[c];
        for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
            a[s][m->targets[e]] -= m->probs[e];
    }
    gauss(n, a, b);
    for (int s = 0; s < n; s++)
        v[s] = reward && !finite[s] ? INFINITY : b[s];
}

/* Optimum over all memoryless deterministic schedulers, per state. */
static void exact(const struct inst *x, enum prop_kind kind, int use_allowed, long double *best)
{
    const struct mdp *m = &x->m;
    int n = (int)m->n_states, sel[MAXN];
    int mx = kind == PROP_PMAX || kind == PROP_RMAX, rw = kind >= PROP_RMIN;
    for (int s = 0; s < n; s++) {
        sel[s] = m->state_start[s] < m->state_start[s + 1] ? (int)m->state_start[s] : -1;
        best[s] = mx ? -INFINITY : INFINITY;
    }
    for (;;) {
        long double v[MAXN];
        chain_values(x, sel, use_allowed, rw, v);
        for (int s = 0; s < n; s++)
            if (mx ? v[s] > best[s] : v[s] < best[s])
                best[s] = v[s];
        int s = 0;
        for (; s < n; s++) { /* next scheduler (odometer) */
            if (sel[s] < 0)
                continue;
            if ((uint64_t)sel[s] + 1 < m->state_start[s + 1]) {
                sel[s]++;
                break;
            }
            sel[s] = (int)m->state_start[s];
        }
        if (s == n)
            break;
    }
}

/* ---- the checks ---- */

static const char *kind_text[] = {"Pmin=? [ F \"t\" ]", "Pmax=? [ F \"t\" ]",
                                  "Rmin=? [ F \"t\" ]", "Rmax=? [ F \"t\" ]"};

static int close_to(double a, long double b, double tol)
{
    if (isinf(b) || isinf(a))
        return isinf(a) && isinf(b);
    return fabsl((long double)a - b) <= tol;
}

/* [lo, hi] brackets the exact value x (both infinite where x is) and is at
 * most `width` wide (width < 0: the relative rule hi - lo <= 1e-4 * lo, or
 * <= 1e-4 at lo = 0). */
static int brackets(double lo, double hi, long double x, double width)
{
    if (isinf(x))
        return isinf(lo) && isinf(hi);
    double w = width >= 0 ? width : lo > 0 ? 1e-4 * lo : 1e-4;
    return (long double)lo <= x + 1e-12L && x <= (long double)hi + 1e-12L && hi - lo <= w;
}

/* Every state of r brackets its exact value (brackets()); 0 and a check
 * failure naming the first state that does not. */
static int all_bracket(const struct mdpcheck_result *r, const long double *ref, uint64_t n, double width,
                       uint64_t seed, const char *text, const char *what)
{
    for (uint64_t s = 0; s < n; s++)
        if (!brackets(r->lo[s], r->hi[s], ref[s], width))
            return check(0, "seed %llu %s state %llu (%s): exact %.17Lg, [%.17g, %.17g]",
                         (unsigned long long)seed, text, (unsigned long long)s, what, ref[s],
                         r->lo[s], r->hi[s]);
    return 1;
}

static int n_fail_inst;

/* Optimistic value iteration (valiter_solve_ovi_cpu through mdpcheck), or
 * with svi sound value iteration (valiter_solve_svi_cpu): Jacobi with 1
 * and 4 threads (bit-identical), Gauss-Seidel, the relative rule 1e-4, and
 * initial_only from state 0 (its interval within epsilon, every state's
 * sound); OVI also block by block (valiter_solve_ovi_blocks_cpu), for all
 * states and for state 0 only: every state brackets the exact value. */
static int n_ovi_runs, n_ovi_guessed, n_svi_runs, n_ovi_block_runs, n_ovi_block_swept,
    n_ovi_gs_swept;
static int check_ovi_svi(const struct mdp *m, const struct mdp_labels *lab, const struct mdp_rewards *rew,
                     const struct property *p, const long double *ref, uint64_t n, uint64_t seed,
                     const char *text, int svi)
{
    static const char *what[2][7] = {
        {"OVI Jacobi", "OVI Jacobi 4 threads", "OVI Gauss-Seidel", "OVI relative 1e-4",
         "OVI initial state 0", "OVI by blocks", "OVI by blocks, initial state 0"},
        {"SVI Jacobi", "SVI Jacobi 4 threads", "SVI Gauss-Seidel", "SVI relative 1e-4",
         "SVI initial state 0", "", ""}};
    uint8_t init[MAXN] = {1};
    struct mdpcheck_result r[7];
    struct wx_error err;
    int ok = 1, done = 0;
    for (int k = 0; k < (svi ? 5 : 7) && ok; k++) {
        struct mdpcheck_options o = {.sound = 1, .optimistic = !svi, .svi = svi,
                                     .epsilon = k == 3 ? 1e-4 : EPS,
                                     .relative = k == 3, .max_iterations = 10000000,
                                     .threads = k == 1 ? 4 : 1,
                                     .solver = k == 2 || k >= 5 ? VI_GAUSS_SEIDEL : VI_JACOBI,
                                     .ovi_blocks = k >= 5,
                                     .initial_only = k == 4 || k == 6};
        if (mdpcheck_run(m, lab, rew, k == 4 || k == 6 ? init : NULL, p, &o, &r[k], &err) != WX_OK) {
            ok = check(0, "seed %llu %s: %s: %s", (unsigned long long)seed, text, what[svi][k],
                       err.msg);
            break;
        }
        done = k + 1;
        if (svi) {
            n_svi_runs++;
        } else if (k >= 5) {
            n_ovi_block_runs++;
            n_ovi_block_swept += r[k].blocks > 0 && r[k].iterations > 0;
        } else {
            n_ovi_runs++;
            n_ovi_gs_swept += k == 2 && r[k].iterations > 0;
            n_ovi_guessed += r[k].stats.guesses > 0;
        }
        if (k == 4 || k == 6) {
            ok = brackets(r[k].lo[0], r[k].hi[0], ref[0], EPS);
            for (uint64_t s = 0; s < n && ok; s++)
                ok = brackets(r[k].lo[s], r[k].hi[s], ref[s], INFINITY);
            if (!ok)
                check(0, "seed %llu %s: %s does not bracket: exact %.17Lg, [%.17g, %.17g] at "
                      "state 0", (unsigned long long)seed, text, what[svi][k], ref[0],
                      r[k].lo[0], r[k].hi[0]);
        } else {
            ok = all_bracket(&r[k], ref, n, k == 3 ? -1 : EPS, seed, text, what[svi][k]);
        }
        if (ok && k == 1 && (memcmp(r[0].lo, r[1].lo, n * sizeof *r[0].lo) ||
                             memcmp(r[0].hi, r[1].hi, n * sizeof *r[0].hi)))
            ok = check(0, "seed %llu %s: %s Jacobi, 1 and 4 threads differ",
                       (unsigned long long)seed, text, svi ? "SVI" : "OVI");
    }
    for (int k = 0; k < done; k++)
        mdpcheck_result_free(&r[k]);
    return ok;
}

/* MEC hooks for mdpcheck_options.mec: mec_cpu counted; mec_cpu with the
 * MEC ids reversed (not canonical: the system must not depend on the ids);
 * one that fails. */
static int mec_calls;
static int mec_counted(const struct mdp *m, struct mec_result *out, struct wx_error *err)
{
    mec_calls++;
    return mec_cpu(m, out, err);
}
static int mec_reversed(const struct mdp *m, struct mec_result *out, struct wx_error *err)
{
    int rc = mec_cpu(m, out, err);
    if (rc == WX_OK)
        for (uint64_t s = 0; s < out->n_states; s++)
            if (out->mec[s] != MEC_NONE)
                out->mec[s] = (uint32_t)(out->n_mecs - 1 - out->mec[s]);
    return rc;
}
static int mec_failing(const struct mdp *m, struct mec_result *out, struct wx_error *err)
{
    (void)m;
    memset(out, 0, sizeof *out);
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "mec hook failed on purpose");
}

/* Same answer bit for bit (values, choices, system size, sweeps). */
static int same_result(const struct mdpcheck_result *a, const struct mdpcheck_result *b)
{
    uint64_t n = a->n_states;
    if (n != b->n_states || a->sys_states != b->sys_states || a->sys_choices != b->sys_choices ||
        a->sys_entries != b->sys_entries || a->mecs_collapsed != b->mecs_collapsed ||
        a->iterations != b->iterations || memcmp(a->lo, b->lo, n * sizeof *a->lo) ||
        memcmp(a->hi, b->hi, n * sizeof *a->hi))
        return 0;
    return !a->choice == !b->choice && (!a->choice || !memcmp(a->choice, b->choice, n * sizeof *a->choice));
}

static int n_mec_hook_runs, n_mec_hook_calls, n_mec_hook_bad;
/* certified policy iteration: runs that reached the policy steps, and of
 * those the ones the certificate finished (not interval iteration) */
static int n_pi_runs, n_pi_policy, n_pi_certified;

static void check_instance(uint64_t seed)
{
    struct inst x;
    gen(&x, seed);
    struct mdp *m = &x.m;
    uint64_t n = m->n_states;
    struct mdp_labels lab;
    mdp_labels_init(&lab, n);
    int t = mdp_labels_add(&lab, "t"), a = mdp_labels_add(&lab, "a");
    for (uint64_t s = 0; s < n; s++) {
        if (x.target[s])
            mdp_labels_set(&lab, t, s);
        if (x.allowed[s])
            mdp_labels_set(&lab, a, s);
    }
    struct wx_error err;
    int ok = 1;
    for (int k = 0; k < 6 && ok; k++) {
        /* 0..3: F properties of each kind; 4, 5: Pmin/Pmax of "a" U "t" */
        enum prop_kind kind = k < 4 ? (enum prop_kind)k : (enum prop_kind)(k - 4);
        const char *text = k < 4 ? kind_text[k]
                                 : k == 4 ? "Pmin=? [ \"a\" U \"t\" ]" : "Pmax=? [ \"a\" U \"t\" ]";
        struct property p;
        if (prop_parse(text, NULL, 1, &p, &err) != WX_OK) {
            check(0, "parse %s: %s", text, err.msg);
            return;
        }
        long double ref[MAXN];
        exact(&x, kind, k >= 4, ref);

        /* precomputation sets against the exact values */
        if (k < 2 || k >= 4) {
            uint8_t s0[MAXN], s1[MAXN];
            const uint8_t *al = k >= 4 ? x.allowed : NULL;
            int mx = kind == PROP_PMAX;
            valiter_precompute_cpu(m, al, x.target, mx ? VI_PMAX0 : VI_PMIN0, s0, &err);
            valiter_precompute_cpu(m, al, x.target, mx ? VI_PMAX1 : VI_PMIN1, s1, &err);
            for (uint64_t s = 0; s < n; s++) {
                int z = ref[s] == 0, o = fabsl(ref[s] - 1) < 1e-12;
                if (s0[s] != z || s1[s] != o) {
                    ok = check(0, "seed %llu %s state %llu: Prob0 %d Prob1 %d, exact %.17Lg",
                               (unsigned long long)seed, text, (unsigned long long)s, s0[s],
                               s1[s], ref[s]);
                    break;
                }
            }
        }

        struct mdpcheck_options o = {.sound = 1, .epsilon = EPS, .max_iterations = 10000000,
                                     .threads = 1, .scheduler = 1};
        struct mdpcheck_result r1, r4, rg, rr, rt, rl;
        int rc1 = mdpcheck_run(m, &lab, &x.rew, NULL, &p, &o, &r1, &err);
        /* the MEC hook: the same result through a counted mec_cpu and
         * through non-canonical ids; a failing hook's error comes back */
        if (rc1 == WX_OK) {
            struct mdpcheck_result rh;
            for (int h = 0; h < 3; h++) {
                o.mec = h == 0 ? mec_counted : h == 1 ? mec_reversed : mec_failing;
                int before = mec_calls;
                int rch = mdpcheck_run(m, &lab, &x.rew, NULL, &p, &o, &rh, &err);
                int collapses = (kind == PROP_PMAX || kind == PROP_RMIN) && r1.n_maybe;
                if (h == 2) {
                    if (collapses ? rch != WX_ESYSTEM || !strstr(err.msg, "on purpose") : rch != WX_OK)
                        n_mec_hook_bad++, ok = check(0, "seed %llu %s: failing MEC hook gave %d '%s'",
                                                     (unsigned long long)seed, text, rch, err.msg);
                    if (rch == WX_OK)
                        mdpcheck_result_free(&rh);
                    continue;
                }
                n_mec_hook_runs++;
                n_mec_hook_calls += mec_calls - before;
                if (rch != WX_OK || !same_result(&r1, &rh) ||
                    (h == 0 && mec_calls - before != collapses))
                    n_mec_hook_bad++, ok = check(0, "seed %llu %s: MEC hook %d: rc %d, %s result, %d calls",
                                                 (unsigned long long)seed, text, h, rch,
                                                 rch == WX_OK && same_result(&r1, &rh) ? "same" : "different",
                                                 mec_calls - before);
                if (rch == WX_OK)
                    mdpcheck_result_free(&rh);
            }
            o.mec = NULL;
        }
        o.threads = 4;
        o.scheduler = 0;
        int rc4 = mdpcheck_run(m, &lab, &x.rew, NULL, &p, &o, &r4, &err);
        o.threads = 1;
        o.solver = VI_GAUSS_SEIDEL;
        int rcg = mdpcheck_run(m, &lab, &x.rew, NULL, &p, &o, &rg, &err);
        o.solver = VI_JACOBI;
        o.relative = 1;
        o.epsilon = 1e-4;
        int rcr = mdpcheck_run(m, &lab, &x.rew, NULL, &p, &o, &rr, &err);
        o.relative = 0;
        o.epsilon = EPS;
        o.topological = 1;
        int rct = mdpcheck_run(m, &lab, &x.rew, NULL, &p, &o, &rt, &err);
        o.solve_levels = valiter_solve_levels_cpu; /* level by level (the GPU's way) */
        int rcl = rct != WX_OK ? rct : mdpcheck_run(m, &lab, &x.rew, NULL, &p, &o, &rl, &err);
        if (rcl != WX_OK && rct == WX_OK)
            mdpcheck_result_free(&rt);
        if (rc1 != WX_OK || rc4 != WX_OK || rcg != WX_OK || rcr != WX_OK || rct != WX_OK || rcl != WX_OK) {
            check(0, "seed %llu %s: not solved: %s", (unsigned long long)seed, text, err.msg);
            prop_free(&p);
            ok = 0;
            break;
        }
        for (uint64_t s = 0; s < n && ok; s++) {
            double lo = r1.lo[s], hi = r1.hi[s], mid = isinf(lo) ? lo : 0.5 * (lo + hi);
            if (!brackets(lo, hi, ref[s], EPS))
                ok = check(0, "seed %llu %s state %llu: exact %.17Lg not in [%.17g, %.17g]",
                           (unsigned long long)seed, text, (unsigned long long)s, ref[s], lo, hi);
            else if (memcmp(&r1.lo[s], &r4.lo[s], sizeof(double)) ||
                     memcmp(&r1.hi[s], &r4.hi[s], sizeof(double)))
                ok = check(0, "seed %llu %s state %llu: 1 thread [%.17g, %.17g], 4 threads "
                              "[%.17g, %.17g]",
                           (unsigned long long)seed, text, (unsigned long long)s, lo, hi,
                           r4.lo[s], r4.hi[s]);
            else if (!close_to(isinf(rg.lo[s]) ? rg.lo[s] : 0.5 * (rg.lo[s] + rg.hi[s]), ref[s],
                               EPS) || !close_to(mid, ref[s], EPS))
                ok = check(0, "seed %llu %s state %llu: Jacobi %.17g, Gauss-Seidel %.17g, exact "
                              "%.17Lg",
                           (unsigned long long)seed, text, (unsigned long long)s, mid, rg.lo[s],
                           ref[s]);
        }
        /* certified policy iteration, its policy steps forced after one
         * sweep (these systems converge within VI_PI_SWEEPS): every state
         * brackets the exact value, 1 and 4 threads bit-identical */
        if (ok) {
            struct mdpcheck_options op = {.sound = 1, .epsilon = EPS, .max_iterations = 10000000,
                                          .threads = 1, .solver = VI_POLICY, .pi_sweeps = 1};
            struct mdpcheck_result rp, rp4;
            int rcp = mdpcheck_run(m, &lab, &x.rew, NULL, &p, &op, &rp, &err);
            op.threads = 4;
            int rcp4 = rcp != WX_OK ? rcp : mdpcheck_run(m, &lab, &x.rew, NULL, &p, &op, &rp4, &err);
            if (rcp != WX_OK || rcp4 != WX_OK) {
                ok = check(0, "seed %llu %s: policy iteration: %s", (unsigned long long)seed,
                           text, err.msg);
                if (rcp == WX_OK)
                    mdpcheck_result_free(&rp);
            } else {
                n_pi_runs++;
                n_pi_policy += rp.stats.policy_rounds > 0;
                n_pi_certified += rp.stats.policy_rounds > 0 && rp.stats.certified;
                ok = all_bracket(&rp, ref, n, EPS, seed, text, "policy iteration");
                if (ok && (memcmp(rp.lo, rp4.lo, n * sizeof *rp.lo) ||
                           memcmp(rp.hi, rp4.hi, n * sizeof *rp.hi)))
                    ok = check(0, "seed %llu %s: policy iteration, 1 and 4 threads differ",
                               (unsigned long long)seed, text);
                mdpcheck_result_free(&rp);
                mdpcheck_result_free(&rp4);
            }
        }
        ok = ok && check_ovi_svi(m, &lab, &x.rew, &p, ref, n, seed, text, 0);
        ok = ok && check_ovi_svi(m, &lab, &x.rew, &p, ref, n, seed, text, 1);
        /* relative stopping rule; topological (SCC by SCC); level by level */
        ok = ok && all_bracket(&rr, ref, n, -1, seed, text, "relative 1e-4");
        ok = ok && all_bracket(&rt, ref, n, EPS, seed, text, "topological");
        ok = ok && all_bracket(&rl, ref, n, EPS, seed, text, "topological levels");
        /* the scheduler, evaluated exactly */
        if (ok) {
            int sel[MAXN];
            for (uint64_t s = 0; s < n; s++)
                sel[s] = r1.choice[s] < 0 ? -1 : (int)(m->state_start[s] + (uint64_t)r1.choice[s]);
            long double v[MAXN];
            chain_values(&x, sel, k >= 4, kind >= PROP_RMIN, v);
            for (uint64_t s = 0; s < n && ok; s++)
                if (!close_to((double)v[s], ref[s], 4 * EPS + 1e-9))
                    ok = check(0, "seed %llu %s state %llu: the scheduler gives %.17Lg, the "
                                  "optimum is %.17Lg",
                               (unsigned long long)seed, text, (unsigned long long)s, v[s], ref[s]);
        }
        mdpcheck_result_free(&r1);
        mdpcheck_result_free(&r4);
        mdpcheck_result_free(&rg);
        mdpcheck_result_free(&rr);
        mdpcheck_result_free(&rt);
        mdpcheck_result_free(&rl);
        prop_free(&p);
    }
    if (!ok)
        n_fail_inst++;
    mdp_labels_free(&lab);
    mdp_free(&x.m);
}

/* Plain VI stops early on a slowly converging chain; II does not. */
static void slow_chain(void)
{
    /* state 0: to the goal (1) and to the sink (2) with a each, else stays;
     * Pmax(F goal) = 1/2 exactly; a plain-VI sweep changes the value by at
     * most a <= epsilon, so VI stops after the first sweep at about a. */
    double a = 1e-4;
    uint64_t ss[] = {0, 1, 2, 3}, cs[] = {0, 3, 4, 5};
    uint32_t tg[] = {0, 1, 2, 1, 2};
    double pr[] = {1 - 2 * a, a, a, 1, 1};
    struct mdp m = {.n_states = 3, .n_choices = 3, .n_entries = 5, .state_start = ss,
                    .choice_start = cs, .targets = tg, .probs = pr};
    struct mdp_labels lab;
    mdp_labels_init(&lab, 3);
    mdp_labels_set(&lab, mdp_labels_add(&lab, "t"), 1);
    struct property p;
    struct wx_error err;
    prop_parse("Pmax=? [ F \"t\" ]", NULL, 1, &p, &err);
    struct mdpcheck_options o = {.sound = 0, .epsilon = 1e-3, .max_iterations = 1000000};
    struct mdpcheck_result r;
    int rc = mdpcheck_run(&m, &lab, NULL, NULL, &p, &o, &r, &err);
    check(rc == WX_OK && r.iterations <= 2 && fabs(r.lo[0] - 0.5) > 0.4,
          "plain VI (epsilon 1e-3) stops after %llu sweep(s) at %.6g: the value is 0.5",
          (unsigned long long)r.iterations, r.lo[0]);
    mdpcheck_result_free(&r);
    o.sound = 1;
    rc = mdpcheck_run(&m, &lab, NULL, NULL, &p, &o, &r, &err);
    check(rc == WX_OK && r.lo[0] <= 0.5 && r.hi[0] >= 0.5 && r.hi[0] - r.lo[0] <= 1e-3,
          "interval iteration brackets 0.5: [%.9g, %.9g] after %llu sweeps", r.lo[0], r.hi[0],
          (unsigned long long)r.iterations);
    mdpcheck_result_free(&r);
    /* policy iteration: one linear solve instead of ~1/a sweeps */
    o.solver = VI_POLICY;
    o.epsilon = 1e-9;
    rc = mdpcheck_run(&m, &lab, NULL, NULL, &p, &o, &r, &err);
    check(rc == WX_OK && r.lo[0] <= 0.5 && r.hi[0] >= 0.5 && r.hi[0] - r.lo[0] <= 1e-9 &&
              r.stats.certified && r.stats.policy_rounds >= 1 && r.iterations < VI_PI_SWEEPS + 20,
          "policy iteration brackets 0.5 to 1e-9: [%.17g, %.17g] after %llu sweeps, %llu "
          "policies, %llu products (certified %d)", r.lo[0], r.hi[0],
          (unsigned long long)r.iterations, (unsigned long long)r.stats.policy_rounds,
          (unsigned long long)r.stats.products, r.stats.certified);
    mdpcheck_result_free(&r);
    o.solver = VI_JACOBI;
    o.epsilon = 1e-3;
    /* and the same with rewards: expected steps until leaving state 0 */
    prop_free(&p);
    prop_parse("Rmax=? [ F \"t\" | \"s\" ]", NULL, 1, &p, &err);
    mdp_labels_set(&lab, mdp_labels_add(&lab, "s"), 2);
    double srew[3] = {1, 0, 0};
    struct mdp_rewards rw = {.state = srew};
    o.sound = 0;
    rc = mdpcheck_run(&m, &lab, &rw, NULL, &p, &o, &r, &err);
    check(rc == WX_OK && fabs(r.lo[0] - 5000) > 1,
          "plain VI (epsilon 1e-3) on the expected steps (exact 5000) stops at %.9g", r.lo[0]);
    mdpcheck_result_free(&r);
    o.sound = 1;
    rc = mdpcheck_run(&m, &lab, &rw, NULL, &p, &o, &r, &err);
    check(rc == WX_OK && r.lo[0] <= 5000 && r.hi[0] >= 5000 && r.hi[0] - r.lo[0] <= 1e-3,
          "interval iteration brackets the expected steps 5000: [%.12g, %.12g]", r.lo[0], r.hi[0]);
    mdpcheck_result_free(&r);
    /* non-convergence is an error */
    o.max_iterations = 10;
    rc = mdpcheck_run(&m, &lab, &rw, NULL, &p, &o, &r, &err);
    check(rc == WX_ELIMIT && strstr(err.msg, "did not converge after"),
          "10 sweeps allowed: WX_ELIMIT '%s'", err.msg);
    prop_free(&p);
    mdp_labels_free(&lab);
}

/* A larger random MDP (too large for the enumeration): Jacobi with 1, 3
 * and 7 threads (and with them mdpcheck.c's parallel system construction,
 * which splits work above PAR_GRAIN = 4096 states) must give bit-identical vectors (the split of the states
 * among threads must not matter), Gauss-Seidel must agree within epsilon,
 * for a probability and a reward property. */
static void threads_agree(uint64_t seed)
{
    rng_state = seed;
    uint64_t n = 20000; /* > 4 * PAR_GRAIN: the system construction runs on several threads */
    struct mdp m = {0};
    m.n_states = n;
    m.state_start = calloc(n + 1, sizeof *m.state_start);
    m.choice_start = calloc(3 * n + 1, sizeof *m.choice_start);
    m.targets = malloc(9 * n * sizeof *m.targets);
    m.probs = malloc(9 * n * sizeof *m.probs);
    double *crew = calloc(3 * n, sizeof *crew);
    struct mdp_labels lab;
    mdp_labels_init(&lab, n);
    int t = mdp_labels_add(&lab, "t");
    for (uint64_t s = 0; s < n; s++) {
        unsigned k = 1 + (unsigned)rnd_below(3);
        int sink = rnd_below(200) == 0;
        for (unsigned j = 0; j < k; j++) {
            uint64_t c = m.n_choices++;
            if (sink) { /* absorbing: Pmax < 1 upstream */
                m.targets[m.n_entries] = (uint32_t)s;
                m.probs[m.n_entries++] = 1;
                m.choice_start[c + 1] = m.n_entries;
                continue;
            }
            unsigned parts = 1 + (unsigned)rnd_below(3);
            for (unsigned q = 0; q < parts; q++) {
                /* mostly local targets, some long jumps: long chains */
                uint64_t d = rnd_below(10) ? (s + 1 + rnd_below(3)) % n : rnd_below(n);
                m.targets[m.n_entries] = (uint32_t)d;
                m.probs[m.n_entries++] = 1.0 / parts;
            }
            m.choice_start[c + 1] = m.n_entries;
            crew[c] = (double)rnd_below(3);
        }
        m.state_start[s + 1] = m.n_choices;
        if (rnd_below(500) == 0)
            mdp_labels_set(&lab, t, s);
    }
    struct mdp_rewards rw = {.choice = crew};
    const char *texts[] = {"Pmax=? [ F \"t\" ]", "Pmin=? [ F \"t\" ]", "Rmin=? [ F \"t\" ]"};
    for (int i = 0; i < 3; i++) {
        struct property p;
        struct wx_error err;
        prop_parse(texts[i], NULL, 1, &p, &err);
        struct mdpcheck_result r[14];
        int threads[3] = {1, 3, 7}, rc = WX_OK, got = 0;
        for (int k = 0; k < 14 && rc == WX_OK; k++) {
            /* 6, 7: certified policy iteration (1 and 7 threads), its
             * policy steps after 20 sweeps; 8, 9, 10: optimistic value
             * iteration, Jacobi (1 and 7 threads) and Gauss-Seidel; 11,
             * 12, 13: sound value iteration, the same */
            struct mdpcheck_options o = {.sound = 1, .epsilon = EPS, .max_iterations = 10000000,
                                         .threads = k < 3 ? threads[k]
                                                    : k == 7 || k == 9 || k == 12 ? 7 : 1,
                                         .optimistic = k >= 8 && k <= 10, .svi = k >= 11,
                                         .solver = k == 6 || k == 7 ? VI_POLICY
                                                   : k < 3 || k == 5 || k == 8 || k == 9 ||
                                                     k == 11 || k == 12
                                                       ? VI_JACOBI : VI_GAUSS_SEIDEL,
                                         .topological = k == 4 || k == 5,
                                         .solve_levels = k == 5 ? valiter_solve_levels_cpu : NULL,
                                         .pi_sweeps = 20};
            if ((rc = mdpcheck_run(&m, &lab, &rw, NULL, &p, &o, &r[k], &err)) == WX_OK)
                got = k + 1;
        }
        if (rc != WX_OK) {
            for (int k = 0; k < got; k++)
                mdpcheck_result_free(&r[k]);
            check(0, "seed %llu %s on %llu states: %s", (unsigned long long)seed, texts[i],
                  (unsigned long long)n, err.msg);
            return;
        }
        int same = 1, close = 1;
        for (uint64_t s = 0; s < n; s++) {
            for (int k = 1; k < 3; k++)
                same &= !memcmp(&r[0].lo[s], &r[k].lo[s], 8) && !memcmp(&r[0].hi[s], &r[k].hi[s], 8);
            same &= !memcmp(&r[6].lo[s], &r[7].lo[s], 8) && !memcmp(&r[6].hi[s], &r[7].hi[s], 8);
            same &= !memcmp(&r[8].lo[s], &r[9].lo[s], 8) && !memcmp(&r[8].hi[s], &r[9].hi[s], 8);
            same &= !memcmp(&r[11].lo[s], &r[12].lo[s], 8) &&
                    !memcmp(&r[11].hi[s], &r[12].hi[s], 8);
            for (int k = 3; k < 14; k++) {
                if (k == 7 || k == 9 || k == 12)
                    continue;
                double a = r[0].lo[s], b = r[k].lo[s];
                if (!isinf(a) || !isinf(b))
                    close &= r[k].lo[s] <= r[0].hi[s] + 1e-12 && r[0].lo[s] <= r[k].hi[s] + 1e-12;
                if (k >= 8 && !isinf(r[k].lo[s]))
                    close &= r[k].hi[s] - r[k].lo[s] <= EPS;
            }
        }
        check(same && close,
              "seed %llu %s on %llu states (%llu maybe, %llu sweeps): 1, 3, 7 threads bit-identical "
              "(Jacobi; policy iteration, OVI, SVI: 1, 7) (%d), Gauss-Seidel's, topological's "
              "(SCCs, levels), policy iteration's (%llu sweeps, %llu policies, certified %d), "
              "OVI's (Jacobi %llu sweeps, Gauss-Seidel %llu) and SVI's (Jacobi %llu sweeps, "
              "Gauss-Seidel %llu) intervals overlap, OVI's and SVI's within epsilon (%d)",
              (unsigned long long)seed, texts[i], (unsigned long long)n,
              (unsigned long long)r[0].n_maybe, (unsigned long long)r[0].iterations, same,
              (unsigned long long)r[6].iterations, (unsigned long long)r[6].stats.policy_rounds,
              r[6].stats.certified, (unsigned long long)r[8].iterations,
              (unsigned long long)r[10].iterations, (unsigned long long)r[11].iterations,
              (unsigned long long)r[13].iterations, close);
        for (int k = 0; k < 14; k++)
            mdpcheck_result_free(&r[k]);
        prop_free(&p);
    }
    free(crew);
    mdp_labels_free(&lab);
    mdp_free(&m);
}

int main(int argc, char **argv)
{
    uint64_t first = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    int count = argc > 2 ? atoi(argv[2]) : 400;
    for (int i = 0; i < count; i++)
        check_instance(first + (uint64_t)i);
    check(n_fail_inst == 0, "%d random MDPs (seeds %llu..%llu), 6 properties each, exact values "
                            "inside [lo, hi], threads/solvers agree, schedulers optimal: %d failed",
          count, (unsigned long long)first, (unsigned long long)(first + (uint64_t)count - 1),
          n_fail_inst);
    check(n_mec_hook_bad == 0 && n_mec_hook_calls > 0,
          "mdpcheck_options.mec: %d runs through mec_cpu hooks (%d MEC calls; canonical and "
          "reversed ids) bit-identical to the default, failing hook's error returned: %d bad",
          n_mec_hook_runs, n_mec_hook_calls, n_mec_hook_bad);
    check(n_pi_runs > 0 && n_pi_certified * 10 >= n_pi_policy * 9 && n_pi_policy * 20 >= n_pi_runs,
          "certified policy iteration: %d runs, %d reached the policy steps, %d of those "
          "certified (the rest finished by interval iteration)",
          n_pi_runs, n_pi_policy, n_pi_certified);
    check(n_ovi_runs > 0 && n_ovi_guessed * 10 >= n_ovi_runs,
          "optimistic value iteration: %d runs bracket the exact values, %d of them guessed an "
          "upper bound", n_ovi_runs, n_ovi_guessed);
    check(n_svi_runs > 0 && n_svi_runs == n_ovi_runs,
          "sound value iteration: %d runs bracket the exact values", n_svi_runs);
    check(n_ovi_block_runs * 5 == n_ovi_runs * 2 && n_ovi_block_swept >= n_ovi_gs_swept &&
              n_ovi_gs_swept > 100,
          "optimistic value iteration by blocks: %d runs bracket the exact values, %d of them "
          "swept blocks (Gauss-Seidel over all states swept in %d)", n_ovi_block_runs,
          n_ovi_block_swept, n_ovi_gs_swept);
    slow_chain();
    threads_agree(42);
    return check_exit();
}
