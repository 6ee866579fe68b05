/*
 * test_relevant.c -- solving for the initial states only
 * (mdpcheck_options.initial_only: analysis/relevant.h, vi_params.watch).
 *
 * Random MDPs (global or local targets, end components, DAGs), every
 * property kind, initial sets of one, several and only decided states:
 *   - the solved states are exactly the maybe states that an independent
 *     breadth-first search (here, from valiter_precompute_cpu's sets)
 *     reaches from the initial states through maybe states;
 *   - no solved state: no system and no sweep (early stop on value 0 and
 *     value 1 initial states, and on reward targets / infinite rewards);
 *   - at the initial states the interval is at most epsilon wide, and at
 *     every state it overlaps an all-states run at epsilon 1e-10 (sound
 *     everywhere, the unsolved states included);
 *   - probabilities with Jacobi: never more sweeps than the all-states
 *     run (the solved part's Jacobi iterates are the same numbers);
 *   - 1, 2 and 3 threads give bit-identical values and sweep counts;
 *   - relevant_restrict itself on random graphs of 10^4 to 2*10^5 states
 *     (frontiers wide enough for its parallel search): on 1, 2, 3 and 4
 *     threads the same classes, ranks and count as a sequential search;
 * with Jacobi, Gauss-Seidel and policy iteration (from its first sweep).
 * PRISM's reference instances (tests/data/mdp): every reference value lies
 * in the initial state's interval (at most 1e-6 wide), with Gauss-Seidel on
 * all instances and Jacobi on those below 10,000 states; every reference
 * value 0 or 1 is answered with no sweep.  Seeds are printed; `--seed N`
 * replays.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/mdpcheck.h"
#include "../analysis/relevant.h"
#include "../analysis/prop.h"
#include "../graph/mdp_lab.h"
#include "check.h"
#include "prism_ref.h"
#include "random_mdp.h"
#include "rng.h"

/* The maybe states of p on x (1 = maybe), from the precomputation sets and
 * the classification of mdpcheck.h; usable[c] = 0 for Rmin's choices that
 * risk an infinite reward. */
static void maybe_states(const struct inst *x, const struct property *p, uint8_t *maybe,
                         uint8_t *usable)
{
    const struct mdp *m = &x->m;
    uint64_t n = m->n_states;
    struct wx_error err;
    uint8_t *tg = malloc(n), *al = malloc(n), *s0 = calloc(n, 1), *s1 = malloc(n);
    int t = mdp_labels_find(&x->lab, "t"), a = mdp_labels_find(&x->lab, "a");
    for (uint64_t s = 0; s < n; s++)
        tg[s] = (uint8_t)mdp_labels_has(&x->lab, t, s), al[s] = (uint8_t)mdp_labels_has(&x->lab, a, s);
    const uint8_t *alp = p->phi1 ? al : NULL;
    switch (p->kind) {
    case PROP_PMAX:
        valiter_precompute_cpu(m, alp, tg, VI_PMAX0, s0, &err);
        valiter_precompute_cpu(m, alp, tg, VI_PMAX1, s1, &err);
        break;
    case PROP_PMIN:
        valiter_precompute_cpu(m, alp, tg, VI_PMIN0, s0, &err);
        valiter_precompute_cpu(m, alp, tg, VI_PMIN1, s1, &err);
        break;
    case PROP_RMIN:
    case PROP_RMAX:
        valiter_precompute_cpu(m, NULL, tg, p->kind == PROP_RMIN ? VI_PMAX1 : VI_PMIN1, s1, &err);
        for (uint64_t s = 0; s < n; s++) /* target: value 0; outside Prob1: infinite */
            s0[s] = !s1[s], s1[s] = tg[s];
        break;
    }
    for (uint64_t s = 0; s < n; s++)
        maybe[s] = !s0[s] && !s1[s];
    for (uint64_t c = 0; c < m->n_choices; c++)
        usable[c] = 1;
    if (p->kind == PROP_RMIN)
        for (uint64_t s = 0; s < n; s++)
            for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                    if (s0[m->targets[e]] && !tg[m->targets[e]])
                        usable[c] = 0;
    free(tg), free(al), free(s0), free(s1);
}

/* The maybe states reached from the initial maybe states through maybe
 * states along usable choices (a plain fixpoint, not the library's BFS). */
static uint64_t count_relevant(const struct mdp *m, const uint8_t *maybe, const uint8_t *usable,
                               const uint8_t *initial)
{
    uint64_t n = m->n_states, k = 0;
    uint8_t *in = calloc(n, 1);
    for (uint64_t s = 0; s < n; s++)
        in[s] = initial[s] && maybe[s];
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint64_t s = 0; s < n; s++)
            for (uint64_t c = m->state_start[s]; in[s] && c < m->state_start[s + 1]; c++)
                for (uint64_t e = m->choice_start[c]; usable[c] && e < m->choice_start[c + 1]; e++)
                    if (maybe[m->targets[e]] && !in[m->targets[e]])
                        in[m->targets[e]] = 1, changed = 1;
    }
    for (uint64_t s = 0; s < n; s++)
        k += in[s];
    free(in);
    return k;
}

/* relevant_restrict on a random graph (out-degree 1..4 over 1..3 choices,
 * a fifth of the states decided, a tenth of the choices unusable, `n_init`
 * initial states) against a plain queue search, for 1 to 4 threads. */
static void check_restrict(uint64_t seed, uint64_t n, uint64_t n_init)
{
    enum { MAYBE = 1, SKIP = 2, DECIDED = 0 };
    rng_state = seed | 1;
    struct mdp m = {.n_states = n};
    m.state_start = malloc((n + 1) * 8);
    uint64_t cap = n * 3;
    m.choice_start = malloc((cap + 1) * 8);
    m.targets = malloc(cap * 4 * 4);
    uint8_t *cls0 = malloc(n), *initial = calloc(n, 1), *ok = malloc(cap);
    for (uint64_t s = 0; s < n; s++) {
        m.state_start[s] = m.n_choices;
        cls0[s] = rnd_below(5) ? MAYBE : DECIDED;
        for (uint64_t c = 1 + rnd_below(3); c; c--) {
            ok[m.n_choices] = rnd_below(10) != 0;
            m.choice_start[m.n_choices++] = m.n_entries;
            for (uint64_t e = 1 + rnd_below(4); e; e--)
                m.targets[m.n_entries++] = (uint32_t)(rnd_below(8) ? rnd_below(n) : (s + 1) % n);
        }
    }
    m.state_start[n] = m.n_choices, m.choice_start[m.n_choices] = m.n_entries;
    for (uint64_t i = 0; i < n_init; i++)
        initial[rnd_below(n)] = 1;
    /* the reference: a queue search from the initial maybe states */
    uint8_t *want = calloc(n, 1);
    uint32_t *q = malloc(n * 4);
    uint64_t head = 0, tail = 0, k_want = 0;
    for (uint64_t s = 0; s < n; s++)
        if (initial[s] && cls0[s] == MAYBE)
            want[s] = 1, q[tail++] = (uint32_t)s;
    while (head < tail)
        for (uint64_t s = q[head++], c = m.state_start[s]; c < m.state_start[s + 1]; c++)
            for (uint64_t e = m.choice_start[c]; ok[c] && e < m.choice_start[c + 1]; e++)
                if (cls0[m.targets[e]] == MAYBE && !want[m.targets[e]])
                    want[m.targets[e]] = 1, q[tail++] = m.targets[e];
    k_want = tail;
    uint8_t *cls = malloc(n);
    uint32_t *loc = malloc(n * 4), *back = malloc(n * 4);
    for (int t = 1; t <= 4; t++) {
        memcpy(cls, cls0, n);
        uint64_t k = 0, bad = UINT64_MAX;
        struct wx_error err;
        int rc = relevant_restrict(&m, ok, initial, cls, MAYBE, SKIP, t, loc, back, &k, &err);
        for (uint64_t s = 0, r = 0; s < n && bad == UINT64_MAX; s++) {
            uint8_t c = want[s] ? MAYBE : cls0[s] == MAYBE ? SKIP : DECIDED;
            if (cls[s] != c || loc[s] != (want[s] ? r : UINT32_MAX) || (want[s] && back[r] != s))
                bad = s;
            r += want[s];
        }
        check(rc == WX_OK && k == k_want && bad == UINT64_MAX,
              "relevant_restrict seed %llu, %llu states, %llu initial, %d threads: %llu relevant "
              "(expected %llu)%s", (unsigned long long)seed, (unsigned long long)n,
              (unsigned long long)n_init, t, (unsigned long long)k, (unsigned long long)k_want,
              bad == UINT64_MAX ? "" : ", a state's class or rank differs");
    }
    free(cls), free(loc), free(back), free(want), free(q), free(cls0), free(initial), free(ok);
    free(m.state_start), free(m.choice_start), free(m.targets);
}

static int overlaps(double lo, double hi, double rlo, double rhi)
{
    if (isinf(rlo)) /* an infinite value: only hi may say so */
        return isinf(hi);
    return lo <= rhi + 1e-9 && rlo <= hi + 1e-9;
}

static const char *texts[] = {"Pmax=? [ F \"t\" ]", "Pmin=? [ F \"t\" ]", "Rmin=? [ F \"t\" ]",
                              "Rmax=? [ F \"t\" ]", "Pmax=? [ \"a\" U \"t\" ]",
                              "Pmin=? [ \"a\" U \"t\" ]"};

static uint64_t n_early, n_solved; /* initial sets decided / solved numerically */

/* One property and initial set: the checks of the header. */
static void check_initial(const char *what, const struct inst *x, const struct property *p,
                          const uint8_t *initial, const struct mdpcheck_result *tight,
                          const struct mdpcheck_result *all, enum vi_method solver)
{
    const struct mdp *m = &x->m;
    uint64_t n = m->n_states;
    const struct mdp_rewards *rw = p->kind >= PROP_RMIN ? &x->rew : NULL;
    struct wx_error err;
    struct mdpcheck_options o = {.sound = 1, .epsilon = 1e-4, .max_iterations = 1000000,
                                 .solver = solver, .threads = 1, .initial_only = 1,
                                 .pi_sweeps = 1 /* VI_POLICY: to the policy steps at once */};
    struct mdpcheck_result r[3];
    int rc[3];
    for (int t = 0; t < 3; t++) {
        o.threads = t + 1;
        rc[t] = mdpcheck_run(m, &x->lab, rw, initial, p, &o, &r[t], &err);
    }
    if (!check(rc[0] == WX_OK && rc[1] == WX_OK && rc[2] == WX_OK, "%s: runs (%d %d %d) %s", what,
               rc[0], rc[1], rc[2], rc[0] ? err.msg : ""))
        goto out;
    uint8_t *maybe = malloc(n), *usable = malloc(m->n_choices ? m->n_choices : 1);
    maybe_states(x, p, maybe, usable);
    uint64_t want = count_relevant(m, maybe, usable, initial);
    free(maybe), free(usable);
    check(r[0].initial_only == 1 && r[0].n_relevant == want,
          "%s: %llu states solved, the initial states reach %llu maybe states", what,
          (unsigned long long)r[0].n_relevant, (unsigned long long)want);
    if (!want) {
        n_early++;
        check(r[0].iterations == 0 && r[0].sys_states == 0,
              "%s: initial states decided by the precomputation: %llu sweeps, system of %llu "
              "states (want 0, 0)",
              what, (unsigned long long)r[0].iterations, (unsigned long long)r[0].sys_states);
    } else
        n_solved++;
    int tight_ok = 1, sound = 1;
    for (uint64_t s = 0; s < n; s++) {
        double lo = r[0].lo[s], hi = r[0].hi[s];
        if (initial[s])
            tight_ok &= isinf(lo) ? isinf(hi) : hi - lo <= o.epsilon;
        sound &= overlaps(lo, hi, tight->lo[s], tight->hi[s]);
    }
    check(tight_ok && sound, "%s: initial intervals within epsilon (%d), every state's overlaps "
          "the all-states run at 1e-10 (%d)", what, tight_ok, sound);
    if (p->kind <= PROP_PMIN && solver == VI_JACOBI)
        check(r[0].iterations <= all->iterations, "%s: %llu sweeps, all states %llu", what,
              (unsigned long long)r[0].iterations, (unsigned long long)all->iterations);
    for (int t = 1; t < 3; t++)
        check(r[t].iterations == r[0].iterations && !memcmp(r[t].lo, r[0].lo, n * sizeof(double)) &&
              !memcmp(r[t].hi, r[0].hi, n * sizeof(double)),
              "%s: %d threads bit-identical to 1 (%llu and %llu sweeps)", what, t + 1,
              (unsigned long long)r[t].iterations, (unsigned long long)r[0].iterations);
out:
    for (int t = 0; t < 3; t++)
        if (rc[t] == WX_OK)
            mdpcheck_result_free(&r[t]);
}

static void check_instance(uint64_t seed, uint64_t n, int shape)
{
    struct inst x;
    rng_state = seed;
    gen_mdp(&x, n, shape, 1);
    struct wx_error err;
    uint8_t *initial = malloc(n);
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
        struct property p;
        if (!check(prop_parse(texts[k], NULL, 1, &p, &err) == WX_OK, "parse %s", texts[k]))
            continue;
        const struct mdp_rewards *rw = p.kind >= PROP_RMIN ? &x.rew : NULL;
        struct mdpcheck_options o = {.sound = 1, .epsilon = 1e-10, .max_iterations = 10000000,
                                     .threads = 1};
        struct mdpcheck_result tight, all;
        int rc = mdpcheck_run(&x.m, &x.lab, rw, NULL, &p, &o, &tight, &err);
        o.epsilon = 1e-4;
        if (rc == WX_OK && (rc = mdpcheck_run(&x.m, &x.lab, rw, NULL, &p, &o, &all, &err)) != WX_OK)
            mdpcheck_result_free(&tight);
        if (rc != WX_OK) { /* rewards may fail to certify a bound: nothing to compare */
            prop_free(&p);
            continue;
        }
        uint8_t *maybe = malloc(n), *usable = malloc(x.m.n_choices);
        maybe_states(&x, &p, maybe, usable);
        for (int set = 0; set < 3; set++) {
            memset(initial, 0, n);
            if (set == 0) /* state 0 */
                initial[0] = 1;
            else if (set == 1) /* three random states */
                for (int i = 0; i < 3; i++)
                    initial[rnd_below(n)] = 1;
            else { /* the decided states (if any) */
                int any = 0;
                for (uint64_t s = 0; s < n; s++)
                    any |= initial[s] = !maybe[s];
                if (!any)
                    continue;
            }
            static const enum vi_method solvers[] = {VI_JACOBI, VI_GAUSS_SEIDEL, VI_POLICY};
            static const char *names[] = {"Jacobi", "Gauss-Seidel", "policy iteration"};
            for (int v = 0; v < 3; v++) {
                char what[160];
                snprintf(what, sizeof what, "seed %llu n %llu shape %d %s, initial set %d, %s",
                         (unsigned long long)seed, (unsigned long long)n, shape, texts[k], set,
                         names[v]);
                check_initial(what, &x, &p, initial, &tight, &all, solvers[v]);
            }
        }
        free(maybe), free(usable);
        mdpcheck_result_free(&tight);
        mdpcheck_result_free(&all);
        prop_free(&p);
    }
    free(initial);
    inst_free(&x);
}

/* ---- PRISM's reference instances ---- */

static uint64_t n_ref_early;

static void ref_one(const char *name, const struct mdp *m, const struct mdp_labels *lab,
                    const uint8_t *initial, const char *formula, double value)
{
    struct wx_error err;
    struct property p;
    if (!check(prop_parse(formula, NULL, 1, &p, &err) == WX_OK, "%s: %s parses", name, formula))
        return;
    for (int v = 0; v < 3; v++) {
        if (v && m->n_states >= 10000)
            break;
        struct mdpcheck_options o = {.sound = 1, .epsilon = 1e-6, .max_iterations = 10000000,
                                     .solver = v ? VI_JACOBI : VI_GAUSS_SEIDEL, .threads = v ? v : 1,
                                     .initial_only = 1};
        struct mdpcheck_result r;
        int rc = mdpcheck_run(m, lab, NULL, initial, &p, &o, &r, &err);
        if (!check(rc == WX_OK, "%s %s: %s", name, formula, rc == WX_OK ? "runs" : err.msg))
            continue;
        int ok = 0;
        double lo = 0, hi = 0;
        for (uint64_t s = 0; s < m->n_states; s++)
            if (initial[s]) {
                lo = r.lo[s], hi = r.hi[s];
                ok = lo <= value + 1e-9 && value <= hi + 1e-9 && hi - lo <= 1e-6;
            }
        const char *how = v == 0 ? "Gauss-Seidel" : v == 1 ? "Jacobi" : "Jacobi, 2 threads";
        check(ok, "%s %s (%s, initial state only): reference %.12g in [%.12g, %.12g], %llu "
              "sweeps, %llu of %llu maybe states solved",
              name, formula, how, value, lo, hi, (unsigned long long)r.iterations,
              (unsigned long long)r.n_relevant, (unsigned long long)r.n_maybe);
        if (value == 0 || value == 1) {
            n_ref_early += v == 0;
            check(r.iterations == 0 && r.sys_states == 0 && r.n_relevant == 0,
                  "%s %s (%s): value %g decided by the precomputation: %llu sweeps (want 0)", name,
                  formula, how, value, (unsigned long long)r.iterations);
        }
        mdpcheck_result_free(&r);
    }
    prop_free(&p);
}

static void ref_instance(const char *name, const char *tra, const char *json)
{
    struct wx_error err;
    struct mdp m;
    if (!check(mdp_read(tra, &m, &err) == WX_OK, "%s: read %s", name, tra))
        return;
    char path[2048];
    snprintf(path, sizeof path, "%.*s.lab", (int)(strlen(tra) - 4), tra);
    struct mdp_labels lab;
    if (!check(mdp_labels_read(path, m.n_states, &lab, &err) == WX_OK, "%s: read %s", name, path)) {
        mdp_free(&m);
        return;
    }
    uint8_t *initial = calloc(m.n_states, 1);
    int init = mdp_labels_find(&lab, "init");
    for (uint64_t s = 0; s < m.n_states; s++)
        initial[s] = (uint8_t)mdp_labels_has(&lab, init, s);
    const char *p = strstr(json, "\"properties\": [");
    while (p && (p = strstr(p, "\"formula\": \""))) {
        p += strlen("\"formula\": \"");
        char formula[1024];
        size_t k = 0;
        for (; *p && *p != '"'; p++) {
            if (*p == '\\' && p[1])
                p++;
            if (k + 1 < sizeof formula)
                formula[k++] = *p;
        }
        formula[k] = 0;
        const char *v = strstr(p, "\"value\": ");
        if (!v)
            break;
        ref_one(name, &m, &lab, initial, formula, strtod(v + strlen("\"value\": "), NULL));
        p = v;
    }
    free(initial);
    mdp_labels_free(&lab);
    mdp_free(&m);
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
    printf("# test_relevant seed %llu\n", (unsigned long long)seed);
    for (int i = 0; i < 24; i++)
        check_instance(seed * 1000003u + (uint64_t)i, 2 + (seed + (uint64_t)i * 7919u) % 400, i % 3);
    for (int i = 0; i < 6; i++)
        check_restrict(seed * 7919u + (uint64_t)i, 10000u << (i % 5), i % 2 ? 1 : 5000);
    check(n_early > 0 && n_solved > 0,
          "random MDPs: %llu initial sets decided by the precomputation, %llu solved (want both)",
          (unsigned long long)n_early, (unsigned long long)n_solved);
    prism_for_each("relevant-prism", ref_instance);
    check(n_ref_early > 0, "PRISM instances: %llu reference values 0 or 1 answered without a sweep",
          (unsigned long long)n_ref_early);
    return check_exit();
}
