/*
 * ovi.c -- OPTIMISTIC VALUE ITERATION (valiter_solve_ovi_gpu) of
 * test_gpu_valiter.c.
 *
 * Random systems (the numeric core's shapes, solve.c), min and max,
 * absolute and relative rules, probabilities (lo 0, hi 1) and rewards
 * (constants scaled up, hi = +infinity: no upper bound known):
 *  - a reference OVI written here (sequential Jacobi, valiter.h's steps,
 *    each operation rounded on its own) gives sweeps, guesses and bounds;
 *    the GPU's Jacobi solve (the automatic kind and a pinned random one,
 *    packed and persistent kinds among them) must equal it bit for bit,
 *    and so must the CPU twin's (valiter_solve_ovi_cpu, 2 threads) when
 *    linked: the GPU then agrees with the CPU's OVI exactly;
 *  - the GPU's interval must hold the value: overlap a tight reference
 *    interval (interval iteration to 1e-11 from bounds proved here: 0 and
 *    1, or for rewards max b / (1 - the largest mass a choice keeps)),
 *    meet the stopping rule at every state and stay inside the initial
 *    bounds;
 *  - the same with a watch list (1-3 states: the rule there only);
 *  - in-place sweeps (VI_GAUSS_SEIDEL; sound, not bit-identical): the
 *    value held, the rule met, and the CPU twin's Gauss-Seidel OVI
 *    overlapping with midpoints within epsilon;
 *  - the sweep limit: the reference's count converges, one fewer is
 *    WX_ELIMIT after exactly that many sweeps with the reference's lower
 *    bound.
 * The repository's MDPs with Storm's values (tests/data/props_ref/
 * storm.tsv, the unbounded "=?" rows): propcheck_run with the GPU backend
 * and OVI (Jacobi) must put Storm's value (sound, 1e-10 relative) in [lo,
 * hi] widened by 1e-9 relative, with hi - lo <= epsilon (1e-6) at the
 * initial states, and overlap the CPU's OVI with midpoints within epsilon
 * (bit-identical bounds counted).
 *
 * Part of test_gpu_valiter.c's translation unit (after solve.c).
 */

#include "analysis/mec.h"
#include "analysis/propcheck.h"
#include "graph/mdp_lab.h"
#include "tests/mdp_instance.h"
#include "util/config.h"

static uint64_t n_ovi_bitwise, n_ovi_compared, n_ovi_guessed, n_ovi_solves;

/* The stopping rule at every state (w NULL) or at the watched ones. */
static int ovi_rule(uint64_t n, const uint32_t *w, uint64_t nw, const double *lo, const double *hi, double eps,
                    int rel)
{
    for (uint64_t i = 0; i < (w ? nw : n); i++) {
        const uint64_t s = w ? w[i] : i;
        const double g = hi[s] - lo[s];
        if (!((rel && lo[s] > 0) ? g <= eps * lo[s] : g <= eps))
            return 0;
    }
    return 1;
}

/* Reference OVI (valiter.h, OPTIMISTIC VALUE ITERATION), sequential
 * Jacobi.  Returns 1 when the rule holds, 0 when max_it ran out. */
static int ref_ovi(const struct vi_system *y, int mx, double eps, int rel, uint64_t max_it, const uint32_t *w,
                   uint64_t nw, double *lo, double *hi, uint64_t *sweeps, uint64_t *guesses)
{
    const uint64_t n = y->n_states;
    double *nl = xmalloc(n * sizeof *nl), *u = xmalloc(n * sizeof *u), *nu = xmalloc(n * sizeof *nu);
    double err = eps;
    int done = ovi_rule(n, w, nw, lo, hi, eps, rel);
    *sweeps = *guesses = 0;
    while (!done && *sweeps < max_it) {
        int ok;
        do { /* the lower bound alone */
            ok = 1;
            for (uint64_t s = 0; s < n; s++) {
                double l = ref_state(y, s, lo, mx);
                l = l > lo[s] ? l : lo[s];
                const double d = fabs(l - lo[s]);
                ok &= rel ? d <= err * fabs(l) : d <= err;
                nl[s] = l;
            }
            memcpy(lo, nl, n * sizeof *lo);
            ++*sweeps;
        } while (!ok && *sweeps < max_it);
        if (!ok)
            break;
        for (uint64_t s = 0; s < n; s++) { /* the guess */
            volatile double d = rel && lo[s] > 0 ? eps * lo[s] : eps;
            volatile double g = lo[s] + d;
            u[s] = g < hi[s] ? g : hi[s];
        }
        ++*guesses;
        uint64_t budget = *sweeps * VI_OVI_VERIFY_FACTOR;
        budget = budget > VI_OVI_VERIFY_MIN ? budget : VI_OVI_VERIFY_MIN;
        for (uint64_t j = 0; j < budget && *sweeps < max_it; j++) {
            int down = 1, cross = 0;
            for (uint64_t s = 0; s < n; s++) {
                double l = ref_state(y, s, lo, mx), h = ref_state(y, s, u, mx);
                l = l > lo[s] ? l : lo[s];
                down &= h <= u[s];
                cross |= h < l;
                nu[s] = h < u[s] ? h : u[s];
                nl[s] = l;
            }
            memcpy(lo, nl, n * sizeof *lo);
            memcpy(u, nu, n * sizeof *u);
            ++*sweeps;
            if (down) {
                for (uint64_t s = 0; s < n; s++)
                    hi[s] = u[s] < hi[s] ? u[s] : hi[s];
                done = ovi_rule(n, w, nw, lo, hi, eps, rel);
                break;
            }
            if (cross)
                break;
        }
        err /= 2;
    }
    free(nl), free(u), free(nu);
    return done;
}

static int same_bits(const double *a, const double *b, uint64_t n)
{
    return !memcmp(a, b, n * sizeof *a);
}

/* What one instance's solves are compared with. */
struct ovi_want {
    const struct vi_system *y;
    int mx, rel;
    double eps;
    const double *lo0, *hi0;
    const double *tlo, *thi;  /* tight reference interval (NULL: none) */
    const uint32_t *w;
    uint64_t nw;
};

/* One solve (GPU: fn valiter_solve_ovi_gpu under kind, or the CPU twin)
 * into lo/hi; returns rc, *st the stats. */
typedef int (*ovi_fn)(const struct vi_system *, const struct vi_params *, double *, double *, struct vi_stats *,
                      struct wx_error *);

static int ovi_solve(ovi_fn fn, const struct ovi_want *W, enum vi_method method, int threads, uint64_t max_it,
                     int kind, double *lo, double *hi, struct vi_stats *st, struct wx_error *err)
{
    const uint64_t n = W->y->n_states;
    memcpy(lo, W->lo0, n * sizeof *lo);
    memcpy(hi, W->hi0, n * sizeof *hi);
    struct vi_params par = {W->mx, W->eps, W->rel, max_it, method, threads, 0, 0, {0}, W->w, W->nw};
    wx_error_clear(err);
    memset(st, 0, sizeof *st);
    valiter_gpu_set_kernel(kind, 32);
    int rc = fn(W->y, &par, lo, hi, st, err);
    valiter_gpu_set_kernel(0, 0);
    return rc;
}

/* The answer holds the value, meets the rule and stays in the initial
 * bounds; "" or why not (at state *at). */
static const char *ovi_sound(const struct ovi_want *W, const double *lo, const double *hi, uint64_t *at)
{
    const uint64_t n = W->y->n_states;
    if (!ovi_rule(n, W->w, W->nw, lo, hi, W->eps, W->rel))
        return "stopping rule";
    for (uint64_t s = 0; s < n; s++) {
        *at = s;
        if (!(lo[s] >= W->lo0[s] && hi[s] <= W->hi0[s] && lo[s] <= hi[s]))
            return "left the initial bounds (or lo > hi)";
        const double tol = 1e-12 * (fabs(W->thi ? W->thi[s] : 0) > 1 ? fabs(W->thi[s]) : 1);
        if (W->tlo && !(lo[s] <= W->thi[s] + tol && W->tlo[s] <= hi[s] + tol))
            return "does not contain the value";
    }
    return "";
}

/* GPU Jacobi (kind) against the reference (rlo, rhi, sweeps, guesses). */
static void ovi_jacobi_case(const char *tag, const struct ovi_want *W, int kind, const double *rlo,
                            const double *rhi, uint64_t rit, uint64_t rg)
{
    const uint64_t n = W->y->n_states;
    double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi);
    struct vi_stats st;
    struct wx_error err;
    uint64_t at = 0;
    int rc = ovi_solve(valiter_solve_ovi_gpu, W, VI_JACOBI, 0, 1000000, kind, lo, hi, &st, &err);
    const char *why = rc ? "" : ovi_sound(W, lo, hi, &at);
    const int bits = same_bits(lo, rlo, n) && same_bits(hi, rhi, n);
    n_ovi_compared++, n_ovi_bitwise += bits, n_ovi_solves++, n_ovi_guessed += st.guesses > 0;
    check(rc == WX_OK && !*why && bits && st.iterations == rit && st.guesses == rg,
          "%s GPU OVI kind %d (ran %d): rc %d%s%s, %llu sweeps %llu guesses (reference %llu, %llu), %s%s%s",
          tag, kind, valiter_gpu_last_kind(), rc, rc ? ": " : "", rc ? err.msg : "", (unsigned long long)st.iterations,
          (unsigned long long)st.guesses, (unsigned long long)rit, (unsigned long long)rg,
          bits ? "bit-identical to the reference" : "NOT bit-identical", *why ? ", " : "", why);
    free(lo), free(hi);
}

/* In-place (VI_GAUSS_SEIDEL) on the GPU: sound; the CPU twin's
 * Gauss-Seidel OVI overlaps with midpoints within epsilon. */
static void ovi_inplace_case(const char *tag, const struct ovi_want *W, int kind)
{
    const uint64_t n = W->y->n_states;
    double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi);
    struct vi_stats st;
    struct wx_error err;
    uint64_t at = 0;
    int rc = ovi_solve(valiter_solve_ovi_gpu, W, VI_GAUSS_SEIDEL, 0, 1000000, kind, lo, hi, &st, &err);
    const char *why = rc ? "" : ovi_sound(W, lo, hi, &at);
    check(rc == WX_OK && !*why, "%s GPU OVI in place kind %d (ran %d): rc %d%s%s, %llu sweeps%s%s", tag, kind,
          valiter_gpu_last_kind(), rc, rc ? ": " : "", rc ? err.msg : "", (unsigned long long)st.iterations,
          *why ? ", " : "", why);
#ifdef HAVE_VALITER_CPU
    double *cl = xmalloc(n * sizeof *cl), *ch = xmalloc(n * sizeof *ch);
    int rc2 = ovi_solve(valiter_solve_ovi_cpu, W, VI_GAUSS_SEIDEL, 1, 1000000, 0, cl, ch, &st, &err);
    int bad = rc2 != WX_OK;
    for (uint64_t i = 0; i < (W->w ? W->nw : n) && !bad && rc == WX_OK; i++) {
        const uint64_t s = W->w ? W->w[i] : i;
        const double scale = fabs(cl[s]) > 1 ? fabs(cl[s]) : 1;
        bad = !(lo[s] <= ch[s] + 1e-12 * scale && cl[s] <= hi[s] + 1e-12 * scale) ||
              !(fabs(0.5 * (lo[s] + hi[s]) - 0.5 * (cl[s] + ch[s])) <= W->eps * scale);
        at = s;
    }
    check(!bad, "%s GPU in place vs CPU Gauss-Seidel OVI: rc %d, overlap and midpoints within epsilon%s", tag, rc2,
          bad ? " violated" : "");
    free(cl), free(ch);
#endif
    free(lo), free(hi);
}

/* The largest mass any choice keeps in the system (< 1 here). */
static double kept_mass(const struct vi_system *y)
{
    double q = 0;
    for (uint64_t c = 0; c < y->n_choices; c++) {
        double m = 0;
        for (uint64_t e = y->choice_start[c]; e < y->choice_start[c + 1]; e++)
            m += y->probs[e];
        q = m > q ? m : q;
    }
    return q;
}

/* The sweep limit: the reference's sweeps converge, one fewer is
 * WX_ELIMIT after exactly that many, with the reference's lower bound. */
static void ovi_limit_case(const char *tag, const struct ovi_want *W, uint64_t rit)
{
    const uint64_t n = W->y->n_states;
    double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi);
    double *rl = xmalloc(n * sizeof *rl), *rh = xmalloc(n * sizeof *rh);
    struct vi_stats st;
    struct wx_error err;
    memcpy(rl, W->lo0, n * sizeof *rl);
    memcpy(rh, W->hi0, n * sizeof *rh);
    uint64_t it2, g2;
    int conv = ref_ovi(W->y, W->mx, W->eps, W->rel, rit - 1, W->w, W->nw, rl, rh, &it2, &g2);
    int rc = ovi_solve(valiter_solve_ovi_gpu, W, VI_JACOBI, 0, rit, 0, lo, hi, &st, &err);
    check(rc == WX_OK && st.iterations == rit, "%s GPU OVI limit %llu: rc %d, %llu sweeps", tag,
          (unsigned long long)rit, rc, (unsigned long long)st.iterations);
    rc = ovi_solve(valiter_solve_ovi_gpu, W, VI_JACOBI, 0, rit - 1, 0, lo, hi, &st, &err);
    check(!conv && rc == WX_ELIMIT && st.iterations == rit - 1 && it2 == rit - 1 && same_bits(lo, rl, n) &&
              same_bits(hi, rh, n),
          "%s GPU OVI limit %llu: WX_ELIMIT (rc %d: %s) after %llu sweeps with the reference's bounds%s", tag,
          (unsigned long long)(rit - 1), rc, err.msg, (unsigned long long)st.iterations,
          same_bits(lo, rl, n) && same_bits(hi, rh, n) ? "" : " (NOT)");
    free(lo), free(hi), free(rl), free(rh);
}

static void ovi_instance(uint64_t seed, int k)
{
    struct rng r = {seed};
    const int mx = (int)rndu(&r, 2), rel = rndu(&r, 4) == 0, reward = rndu(&r, 3) == 0;
    const double eps = quick ? 1e-3 : rndu(&r, 2) ? 1e-6 : pow(10, -2.0 - rndu(&r, 6));
    struct sysbuf sb;
    gen_system(&r, k, 0, &sb);
    const struct vi_system *y = &sb.sys;
    const uint64_t n = y->n_states;
    double bmax = 0;
    if (reward) /* rewards: constants up to 10 per step */
        for (uint64_t c = 0; c < y->n_choices; c++)
            sb.b[c] *= 10, bmax = sb.b[c] > bmax ? sb.b[c] : bmax;
    double *lo0 = xmalloc(n * sizeof *lo0), *hi0 = xmalloc(n * sizeof *hi0);
    double *tlo = xmalloc(n * sizeof *tlo), *thi = xmalloc(n * sizeof *thi);
    const double q = kept_mass(y), ub = reward ? bmax / (1 - q) * (1 + 1e-9) + 1e-300 : 1;
    for (uint64_t s = 0; s < n; s++)
        lo0[s] = 0, hi0[s] = reward ? INFINITY : 1, tlo[s] = 0, thi[s] = ub;
    char tag[300];
    snprintf(tag, sizeof tag, "ovi %s seed=%llu n=%llu %s %s %s eps=%g", sk_name[k], (unsigned long long)seed,
             (unsigned long long)n, reward ? "reward" : "probability", mx ? "max" : "min",
             rel ? "relative" : "absolute", eps);
    uint64_t tit;
    int tconv = ref_solve(y, mx, 1e-11 * (ub > 1 ? ub : 1), 0, quick ? 20000 : 400000, tlo, thi, &tit);
    check(tconv, "%s: tight reference interval (%llu sweeps)", tag, (unsigned long long)tit);
    struct ovi_want W = {y, mx, rel, eps, lo0, hi0, tconv ? tlo : NULL, tconv ? thi : NULL, NULL, 0};
    uint32_t wl[3];
    for (int watched = 0; watched < 2; watched++) {
        if (watched) {
            W.nw = 1 + rndu(&r, 3);
            for (uint64_t i = 0; i < W.nw; i++)
                wl[i] = rndu(&r, (uint32_t)n);
            W.w = wl;
            snprintf(tag + strlen(tag), sizeof tag - strlen(tag), " watch=%llu", (unsigned long long)W.nw);
        }
        double *rlo = xmalloc(n * sizeof *rlo), *rhi = xmalloc(n * sizeof *rhi);
        memcpy(rlo, lo0, n * sizeof *rlo);
        memcpy(rhi, hi0, n * sizeof *rhi);
        uint64_t rit, rg, at = 0;
        int conv = ref_ovi(y, mx, eps, rel, 1000000, W.w, W.nw, rlo, rhi, &rit, &rg);
        const char *why = conv ? ovi_sound(&W, rlo, rhi, &at) : "no convergence";
        if (check(conv && !*why, "%s: reference OVI (%llu sweeps, %llu guesses)%s%s", tag, (unsigned long long)rit,
                  (unsigned long long)rg, *why ? ": " : "", why)) {
            static const int kinds[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 15, 16, 17};
            if (!ref_only) {
                ovi_jacobi_case(tag, &W, 0, rlo, rhi, rit, rg);
                ovi_jacobi_case(tag, &W, kinds[rndu(&r, 13)], rlo, rhi, rit, rg);
                static const int inpl[] = {0, 7, 9, 11, 13};
                ovi_inplace_case(tag, &W, inpl[rndu(&r, 5)]);
                if (rit >= 2 && rndu(&r, 3) == 0)
                    ovi_limit_case(tag, &W, rit);
            }
#ifdef HAVE_VALITER_CPU
            double *cl = xmalloc(n * sizeof *cl), *ch = xmalloc(n * sizeof *ch);
            struct vi_stats st;
            struct wx_error err;
            int rc = ovi_solve(valiter_solve_ovi_cpu, &W, VI_JACOBI, 2, 1000000, 0, cl, ch, &st, &err);
            check(rc == WX_OK && st.iterations == rit && st.guesses == rg && same_bits(cl, rlo, n) &&
                      same_bits(ch, rhi, n),
                  "%s: CPU twin OVI (Jacobi, 2 threads) rc %d, %llu sweeps %llu guesses, bit-identical to the "
                  "reference: %s", tag, rc, (unsigned long long)st.iterations, (unsigned long long)st.guesses,
                  same_bits(cl, rlo, n) && same_bits(ch, rhi, n) ? "yes" : "NO");
            free(cl), free(ch);
#endif
        }
        free(rlo), free(rhi);
    }
    free(lo0), free(hi0), free(tlo), free(thi);
    sys_free(&sb);
}

/* ---- the repository's MDPs against Storm (tests/data/props_ref) ---- */

static uint64_t n_storm_rows, n_storm_bitwise;

/* An instance of tests/data, read once for its consecutive rows. */
static int ovi_load(struct mdp_instance *in, const char *name)
{
    struct wx_error err;
    int rc = mdp_instance_load(in, name, &err);
    return check(rc == WX_OK, "ovi %s: read (%s)", name, rc ? err.msg : "ok");
}

static void ovi_storm_row(struct mdp_instance *in, const char *text, const char *expected)
{
    struct property p;
    struct wx_error err;
    if (!check(prop_parse(text, "storm.tsv", 0, &p, &err) == WX_OK, "ovi %s: parses: %s", in->name, text))
        return;
    int ri = 0;
    struct mdpcheck_result r[2];
    struct propcheck_info info[2];
    int rc = p.cmp == PROP_QUERY ? prop_check_model(&p, &in->m, &err) : -1;
    if (rc == WX_OK)
        rc = prop_reward_model(&p, &in->rew, &ri, &err);
    const struct mdp_rewards *rew = p.kind >= PROP_RMIN && in->rew.n ? &in->rew.models[ri] : NULL;
    int ran[2] = {0, 0};
    for (int g = 0; g < 2 && rc == WX_OK; g++) {
        struct mdpcheck_options o = {.sound = 1, .solver = VI_JACOBI, .optimistic = 1, .epsilon = 1e-6,
                                     .max_iterations = 1000000, .threads = 2, .initial_only = 1};
        if (g == 0) {
            o.precompute = valiter_precompute_gpu, o.precompute2 = valiter_precompute2_gpu;
            o.solve = valiter_solve_gpu, o.solve_ovi = valiter_solve_ovi_gpu, o.mec = mec_gpu;
        }
        rc = propcheck_run(&in->m, &in->labels, rew, in->initial, &p, &o, &r[g], &info[g], &err);
        check(rc == WX_OK, "ovi %s: %s on the %s: %s", in->name, text, g ? "CPU" : "GPU", rc ? err.msg : "ok");
        ran[g] = rc == WX_OK;
    }
    if (ran[0] && ran[1] && !info[0].bounded) {
        const char *e = expected;
        int bad = 0, same = 1;
        char why[400] = "";
        n_storm_rows++;
        for (uint64_t s = 0; s < in->m.n_states && !bad; s++) {
            if (!in->initial[s])
                continue;
            char *end;
            const double ref = !strncmp(e, "inf", 3) ? (end = (char *)e + 3, INFINITY) : strtod(e, &end);
            e = *end == ',' ? end + 1 : end;
            const double lo = r[0].lo[s], hi = r[0].hi[s], cl = r[1].lo[s], ch = r[1].hi[s];
            const double sc = fmax(1, fabs(ref));
            same &= lo == cl && hi == ch;
            if (isinf(ref))
                bad = !(isinf(lo) && isinf(hi) && isinf(cl));
            else
                bad = !(lo - 1e-9 * sc <= ref && ref <= hi + 1e-9 * sc) || !(hi - lo <= 1e-6) ||
                      !(lo <= ch + 1e-12 * sc && cl <= hi + 1e-12 * sc) ||
                      !(fabs(0.5 * (lo + hi) - 0.5 * (cl + ch)) <= 1e-6);
            if (bad)
                snprintf(why, sizeof why, ": state %llu Storm %.17g, GPU [%.17g, %.17g], CPU [%.17g, %.17g]",
                         (unsigned long long)s, ref, lo, hi, cl, ch);
        }
        n_storm_bitwise += same;
        check(!bad, "ovi %s: %s: GPU OVI holds Storm's value, width <= 1e-6, agrees with the CPU's OVI (%s)%s",
              in->name, text, same ? "bit-identical" : "not bit-identical", why);
    }
    for (int g = 0; g < 2; g++)
        if (ran[g])
            mdpcheck_result_free(&r[g]);
    prop_free(&p);
}

static void ovi_storm(void)
{
    FILE *f = fopen("tests/data/props_ref/storm.tsv", "r");
    if (!check(f != NULL, "ovi: tests/data/props_ref/storm.tsv (run from the repository root)"))
        return;
    char line[4096];
    struct mdp_instance in = {0};
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = 0;
        char *inst = strtok(line, "\t"), *text = strtok(NULL, "\t"), *exp = strtok(NULL, "\t");
        if (!inst || !text || !exp || strstr(text, "<") || strstr(text, "C<=")) /* "=?" unbounded rows only */
            continue;
        if (!strstr(text, "=?"))
            continue;
        if (!in.loaded || strcmp(in.name, inst)) {
            mdp_instance_free(&in);
            if (!ovi_load(&in, inst))
                continue;
        }
        ovi_storm_row(&in, text, exp);
    }
    fclose(f);
    mdp_instance_free(&in);
    check(n_storm_rows >= 20, "ovi: %llu unbounded Storm rows checked on the GPU (%llu bit-identical to the CPU's OVI)",
          (unsigned long long)n_storm_rows, (unsigned long long)n_storm_bitwise);
}

/* The OVI part of test_gpu_valiter: nr random instances, then (unless
 * quick) the repository's MDPs. */
static void ovi_tests(uint64_t seed, int nr)
{
    static const int kinds[] = {SK_SHORT, SK_LONG, SK_WIDE, SK_DTMC, SK_MIXED, SK_DICT};
    clock_t t0 = clock();
    for (int i = 0; i < nr; i++) {
        int k = kinds[i % 6];
        if (!quick && i % 40 == 39)
            k = i % 80 == 79 ? SK_DICT_BIG : SK_BIG; /* a few big ones: many tiles per warp */
        ovi_instance(seed + 4000037 + (uint64_t)i, k);
    }
    if (nr && !ref_only)
        check(n_ovi_bitwise == n_ovi_compared && n_ovi_guessed * 2 >= n_ovi_solves,
              "ovi: %llu of %llu GPU Jacobi solves bit-identical to the reference, %llu of %llu made a guess",
              (unsigned long long)n_ovi_bitwise, (unsigned long long)n_ovi_compared,
              (unsigned long long)n_ovi_guessed, (unsigned long long)n_ovi_solves);
    printf("# optimistic value iteration: %d random instances, %.1f s CPU time\n", nr,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    if (!quick && !ref_only)
        ovi_storm();
}
