/*
 * solve.c -- NUMERIC CORE and IN-PLACE SWEEPS of
 * test_gpu_valiter.c: random systems, the reference Jacobi solver, and
 * the GPU's solves (watch lists included) against it.
 *
 * Part of test_gpu_valiter.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ======================================================================
 * Random systems and the reference Jacobi solver
 * ====================================================================== */

struct sysbuf {
    struct vi_system sys;
    uint64_t *ss, *cs;
    uint32_t *tg;
    double *pr, *b;
};

enum { SK_SHORT, SK_LONG, SK_WIDE, SK_DTMC, SK_MIXED, SK_BIG, SK_DICT, SK_DICT_BIG, SK_KINDS };
static const char *const sk_name[] = {"short-choices", "long-choices", "many-choices", "dtmc", "mixed", "big",
                                      "few-numbers", "few-numbers-big"};

/* leak: every choice keeps at most 1 - leak_min of its mass inside the
 * system (a contraction: interval iteration converges); full_mass allows
 * choices of mass 1 (plain VI only). */
static void gen_system(struct rng *r, int k, int full_mass, struct sysbuf *sb)
{
    uint32_t n;
    /* few-numbers: a PRISM-like model's handful of distinct probabilities
     * and constants (the packed sweep's dictionaries) */
    const int dict = k == SK_DICT || k == SK_DICT_BIG;
    switch (k) {
    case SK_BIG: n = 20000 + rndu(r, 40000); break;
    case SK_DICT_BIG: n = quick ? 3000 : 20000 + rndu(r, 40000); break;
    case SK_LONG: n = 1 + rndu(r, quick ? 20 : 200); break;
    default: n = 1 + rndu(r, quick ? 40 : 300); break;
    }
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss);
    uint64_t nc = 0;
    for (uint32_t s = 0; s < n; s++) {
        ss[s] = nc;
        switch (k) {
        case SK_DTMC: nc += 1; break;
        case SK_WIDE: nc += rndu(r, 16) ? 10 + rndu(r, 40) : 257 + rndu(r, 100); break; /* > 256: a tile alone */
        case SK_LONG: nc += 1 + rndu(r, 4); break;
        case SK_MIXED: nc += rndu(r, 8) ? 1 + rndu(r, 5) : 20 + rndu(r, 30); break;
        default: nc += 1 + rndu(r, 4); break;
        }
    }
    ss[n] = nc;
    uint64_t *cs = xmalloc((nc + 1) * sizeof *cs);
    uint64_t ne = 0;
    for (uint64_t c = 0; c < nc; c++) {
        cs[c] = ne;
        uint32_t e;
        switch (k) {
        case SK_LONG: e = 10 + rndu(r, 70); break;
        case SK_MIXED: e = rndu(r, 10) ? rndu(r, 4) : 5 + rndu(r, 60); break;
        default: e = rndu(r, 12) ? 1 + rndu(r, 4) : 0; break; /* some constant-only choices */
        }
        ne += e;
    }
    cs[nc] = ne;
    uint32_t *tg = xmalloc((ne ? ne : 1) * sizeof *tg);
    double *pr = xmalloc((ne ? ne : 1) * sizeof *pr);
    double *b = xmalloc((nc ? nc : 1) * sizeof *b);
    for (uint32_t s = 0; s < n; s++)
        for (uint64_t c = ss[s]; c < ss[s + 1]; c++) {
            double leak = full_mass && rndu(r, 2) ? 0 : 0.05 + 0.5 * rndf(r);
            if (dict)
                leak = full_mass && rndu(r, 2) ? 0 : 0.125 * (1 + rndu(r, 3));
            if (cs[c] == cs[c + 1])
                leak = 1;
            if (dict) {
                const uint64_t cnt = cs[c + 1] - cs[c];
                for (uint64_t e = cs[c]; e < cs[c + 1]; e++) {
                    tg[e] = rndu(r, 5) == 0 ? s : rndu(r, 2) ? (uint32_t)((s + rndu(r, 64)) % n) : rndu(r, n);
                    pr[e] = (1 - leak) / (double)cnt;
                }
                b[c] = leak * 0.25 * rndu(r, 5);
                continue;
            }
            double sum = 0;
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++) {
                uint32_t t;
                if (rndu(r, 5) == 0)
                    t = s;
                else if (rndu(r, 2)) /* local, as in explored state spaces */
                    t = (uint32_t)((s + rndu(r, 64)) % n);
                else
                    t = rndu(r, n);
                tg[e] = t;
                pr[e] = 0.01 + rndf(r);
                sum += pr[e];
            }
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++)
                pr[e] = pr[e] / sum * (1 - leak);
            b[c] = leak * rndf(r);
        }
    sb->ss = ss, sb->cs = cs, sb->tg = tg, sb->pr = pr, sb->b = b;
    sb->sys = (struct vi_system){n, nc, ne, ss, cs, tg, pr, b};
}

static void sys_free(struct sysbuf *sb)
{
    free(sb->ss), free(sb->cs), free(sb->tg), free(sb->pr), free(sb->b);
}

/* One Jacobi sweep value of state s: first choice, then the better ones
 * (b[c] + sum in entry order, each product rounded on its own). */
static double ref_state(const struct vi_system *y, uint64_t s, const double *x, int mx)
{
    double best = 0;
    for (uint64_t c = y->state_start[s]; c < y->state_start[s + 1]; c++) {
        volatile double v = y->b[c]; /* volatile: keep each step a separately rounded double op */
        for (uint64_t e = y->choice_start[c]; e < y->choice_start[c + 1]; e++) {
            volatile double p = y->probs[e] * x[y->targets[e]];
            v = v + p;
        }
        if (c == y->state_start[s] || (mx ? v > best : v < best))
            best = v;
    }
    return best;
}

/* The watched states (valiter.h WATCHED STATES) of the reference and of
 * solve_and_compare's solves while watch_case runs; none otherwise. */
static const uint32_t *g_watch;
static uint64_t g_nwatch;

/* Sequential Jacobi with the contract's stopping rules (interval
 * iteration with g_watch: also stops once every watched state meets the
 * rule).  Returns 1 when it converged within max_it sweeps; *iters =
 * sweeps done. */
static int ref_solve(const struct vi_system *y, int mx, double eps, int rel, uint64_t max_it, double *lo,
                     double *hi, uint64_t *iters)
{
    uint64_t n = y->n_states;
    double *nlo = xmalloc(n * sizeof *nlo), *nhi = hi ? xmalloc(n * sizeof *nhi) : NULL;
    int conv = 0;
    uint64_t k = 0;
    while (k < max_it && !conv) {
        k++;
        conv = 1;
        for (uint64_t s = 0; s < n; s++) {
            double l = ref_state(y, s, lo, mx);
            if (hi) {
                double h = ref_state(y, s, hi, mx);
                if (!(l > lo[s]))
                    l = lo[s];
                if (!(h < hi[s]))
                    h = hi[s];
                nlo[s] = l, nhi[s] = h;
                double g = h - l;
                conv &= (rel && l > 0) ? g <= eps * l : g <= eps;
            } else {
                double d = fabs(l - lo[s]);
                conv &= rel ? d <= eps * fabs(l) : d <= eps;
                nlo[s] = l;
            }
        }
        memcpy(lo, nlo, n * sizeof *lo);
        if (hi)
            memcpy(hi, nhi, n * sizeof *hi);
        if (hi && g_nwatch && !conv) {
            int all = 1;
            for (uint64_t i = 0; i < g_nwatch; i++) {
                const uint32_t s = g_watch[i];
                const double g = hi[s] - lo[s];
                all &= (rel && lo[s] > 0) ? g <= eps * lo[s] : g <= eps;
            }
            conv = all;
        }
    }
    free(nlo), free(nhi);
    *iters = k;
    return conv;
}

/* Largest relative difference; counts bit-identical vectors. */
static double vec_diff(const double *a, const double *b, uint64_t n, uint64_t *at)
{
    double worst = 0;
    int same = 1;
    *at = 0;
    for (uint64_t s = 0; s < n; s++) {
        if (a[s] != b[s])
            same = 0;
        double d = fabs(a[s] - b[s]) / (fabs(b[s]) > 1 ? fabs(b[s]) : 1);
        if (!(d <= worst)) /* NaN counts as worst */
            worst = d, *at = s;
    }
    n_compared++;
    n_bitwise += same;
    return worst;
}

/* par.gpu.persist_blocks of the solves below (0: as many blocks as fit) */
static int persist_cap;

struct solve_case {
    int mx, rel, interval;
    double eps;
    uint64_t max_it;
};

/* Runs the GPU (under the pinned kernel, if any) and checks against the
 * reference outcome (converged, iterations, lo, hi). */
static int solve_and_compare(const char *tag, const struct vi_system *y, const struct solve_case *sc,
                             const double *lo0, const double *hi0, int ref_conv, uint64_t ref_it,
                             const double *rlo, const double *rhi, int kind, int group)
{
    uint64_t n = y->n_states;
    double *lo = xmalloc(n * sizeof *lo), *hi = sc->interval ? xmalloc(n * sizeof *hi) : NULL;
    memcpy(lo, lo0, n * sizeof *lo);
    if (hi)
        memcpy(hi, hi0, n * sizeof *hi);
    struct vi_params par = {sc->mx, sc->eps, sc->rel, sc->max_it, VI_JACOBI, 0, 0, 0, {0}, NULL, 0};
    par.gpu.persist_blocks = persist_cap;
    par.watch = g_watch, par.n_watch = g_nwatch;
    struct vi_stats st;
    struct wx_error err;
    wx_error_clear(&err);
    valiter_gpu_set_kernel(kind, group);
    int rc = valiter_solve_gpu(y, &par, lo, hi, &st, &err);
    valiter_gpu_set_kernel(0, 0);
    uint64_t at = 0, at2 = 0;
    double dl = vec_diff(lo, rlo, n, &at), dh = hi ? vec_diff(hi, rhi, n, &at2) : 0;
    int want_rc = ref_conv ? WX_OK : WX_ELIMIT;
    int ok = rc == want_rc && st.iterations == ref_it && dl <= 1e-12 && dh <= 1e-12;
    check(ok, "%s kernel=%d/%d: rc %d (want %d) sweeps %llu (want %llu) lo diff %.3g at %llu (%.17g vs %.17g) hi diff %.3g%s%s",
          tag, kind, group, rc, want_rc, (unsigned long long)st.iterations, (unsigned long long)ref_it, dl,
          (unsigned long long)at, lo[at], rlo[at], dh, rc ? ": " : "", rc ? err.msg : "");
    free(lo), free(hi);
    return ok;
}

static uint64_t n_inplace, n_inplace_sweeps, n_jacobi_sweeps;

/* In-place (VI_GAUSS_SEIDEL) interval solve on the GPU against a tight
 * reference interval [tlo, thi] (NULL: the reference did not converge:
 * the stopping rule and sweep bound are still checked). */
static void inplace_check(const char *tag, const struct vi_system *y, const struct solve_case *sc, const double *lo0,
                          const double *hi0, uint64_t ref_it, const double *tlo, const double *thi, int kind)
{
    uint64_t n = y->n_states;
    double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi);
    memcpy(lo, lo0, n * sizeof *lo);
    memcpy(hi, hi0, n * sizeof *hi);
    struct vi_params par = {sc->mx, sc->eps, sc->rel, sc->max_it, VI_GAUSS_SEIDEL, 0, 0, 0, {0}, NULL, 0};
    struct vi_stats st;
    struct wx_error err;
    wx_error_clear(&err);
    valiter_gpu_set_kernel(kind, 32);
    int rc = valiter_solve_gpu(y, &par, lo, hi, &st, &err);
    valiter_gpu_set_kernel(0, 0);
    const int ran = valiter_gpu_last_kind();
    uint64_t bad = n;
    const char *why = "";
    for (uint64_t s = 0; s < n && rc == WX_OK && bad == n; s++) {
        double g = hi[s] - lo[s];
        int stop = (sc->rel && lo[s] > 0) ? g <= sc->eps * lo[s] : g <= sc->eps;
        if (!stop)
            bad = s, why = "stopping rule";
        else if (tlo && !(lo[s] <= thi[s] + 1e-12 && tlo[s] <= hi[s] + 1e-12))
            bad = s, why = "does not contain the value";
        else if (!(lo[s] >= lo0[s] && hi[s] <= hi0[s]))
            bad = s, why = "left the initial bounds";
    }
    n_inplace++;
    n_inplace_sweeps += st.iterations;
    n_jacobi_sweeps += ref_it;
    check(rc == WX_OK && bad == n && st.iterations <= ref_it && (ran == 7 || ran == 9 || ran == 11 || ran == 13) &&
              (!kind || ran == kind),
          "%s in-place (pinned %d, ran %d): rc %d%s%s, %llu sweeps (Jacobi %llu)%s%s at %llu [%.17g, %.17g] ref [%.17g, %.17g]", tag, kind, ran, rc,
          rc ? ": " : "", rc ? err.msg : "", (unsigned long long)st.iterations, (unsigned long long)ref_it,
          bad < n ? ", " : "", why, (unsigned long long)(bad < n ? bad : 0), bad < n ? lo[bad] : 0,
          bad < n ? hi[bad] : 0, tlo && bad < n ? tlo[bad] : 0, thi && bad < n ? thi[bad] : 0);
    free(lo), free(hi);
}

static uint64_t n_watch_cases, n_watch_earlier;

/* Interval iteration with a watch list of 1..3 random states: the GPU
 * (the automatic kind, and a pinned one: persistent kinds run their
 * launched twins then) and the CPU twin stop after the reference's sweep,
 * bit-identical; never later than without the list (ref_it). */
static void watch_case(const char *tag, struct rng *r, const struct vi_system *y, const struct solve_case *sc,
                       const double *lo0, const double *hi0, uint64_t ref_it)
{
    uint64_t n = y->n_states;
    uint32_t w[3];
    uint64_t nw = 1 + rndu(r, 3);
    for (uint64_t i = 0; i < nw; i++)
        w[i] = rndu(r, (uint32_t)n);
    double *rlo = xmalloc(n * sizeof *rlo), *rhi = xmalloc(n * sizeof *rhi);
    memcpy(rlo, lo0, n * sizeof *rlo);
    memcpy(rhi, hi0, n * sizeof *rhi);
    g_watch = w, g_nwatch = nw;
    uint64_t wit;
    int conv = ref_solve(y, sc->mx, sc->eps, sc->rel, sc->max_it, rlo, rhi, &wit);
    char t2[400];
    snprintf(t2, sizeof t2, "%s watch=%llu states", tag, (unsigned long long)nw);
    if (check(conv && wit <= ref_it, "%s: reference converged (%llu sweeps, %llu without)", t2,
              (unsigned long long)wit, (unsigned long long)ref_it)) {
        static const int kinds[] = {3, 5, 8, 10, 14, 15, 16, 17};
        n_watch_cases++;
        n_watch_earlier += wit < ref_it;
        if (!ref_only) {
            solve_and_compare(t2, y, sc, lo0, hi0, 1, wit, rlo, rhi, 0, 0);
            solve_and_compare(t2, y, sc, lo0, hi0, 1, wit, rlo, rhi, kinds[rndu(r, 8)], 32);
        }
#ifdef HAVE_VALITER_CPU
        double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi);
        memcpy(lo, lo0, n * sizeof *lo);
        memcpy(hi, hi0, n * sizeof *hi);
        struct vi_params par = {sc->mx, sc->eps, sc->rel, sc->max_it, VI_JACOBI, 2, 0, 0, {0}, NULL, 0};
        par.watch = w, par.n_watch = nw;
        struct vi_stats st;
        struct wx_error err;
        wx_error_clear(&err);
        int rc = valiter_solve_cpu(y, &par, lo, hi, &st, &err);
        uint64_t at, at2 = 0;
        double dl = vec_diff(lo, rlo, n, &at), dh = vec_diff(hi, rhi, n, &at2);
        check(rc == WX_OK && st.iterations == wit && dl == 0 && dh == 0,
              "%s: CPU twin rc %d sweeps %llu (want %llu) lo diff %.3g hi diff %.3g", t2, rc,
              (unsigned long long)st.iterations, (unsigned long long)wit, dl, dh);
        free(lo), free(hi);
#endif
    }
    g_watch = NULL, g_nwatch = 0;
    free(rlo), free(rhi);
}

static void solve_instance(uint64_t seed, int k)
{
    struct rng r = {seed};
    struct solve_case sc;
    sc.interval = rndu(&r, 3) != 0;
    sc.mx = (int)rndu(&r, 2);
    sc.rel = rndu(&r, 4) == 0;
    sc.eps = rndu(&r, 2) || k == SK_BIG ? 1e-6 : pow(10, -2.0 - rndu(&r, 7));
    if (quick) /* few sweeps under the sanitizers */
        sc.eps = rndu(&r, 2) ? 1e-2 : 1e-3;
    sc.max_it = 1000000;
    /* plain VI from a random start only on contractions (a mass-1 cycle
     * could make Jacobi oscillate); from 0 it rises monotonically */
    int start_random = !sc.interval && rndu(&r, 3) == 0;
    struct sysbuf sb;
    gen_system(&r, k, !sc.interval && !start_random, &sb);
    const struct vi_system *y = &sb.sys;
    uint64_t n = y->n_states;
    double *lo0 = xmalloc(n * sizeof *lo0), *hi0 = xmalloc(n * sizeof *hi0);
    for (uint64_t s = 0; s < n; s++) {
        lo0[s] = start_random ? rndf(&r) : 0;
        hi0[s] = 1;
    }
    char tag[256];
    snprintf(tag, sizeof tag, "solve %s seed=%llu n=%llu choices=%llu entries=%llu %s %s %s eps=%g", sk_name[k],
             (unsigned long long)seed, (unsigned long long)n, (unsigned long long)y->n_choices,
             (unsigned long long)y->n_entries, sc.interval ? "interval" : "plain-vi", sc.mx ? "max" : "min",
             sc.rel ? "relative" : "absolute", sc.eps);
    double *rlo = xmalloc(n * sizeof *rlo), *rhi = xmalloc(n * sizeof *rhi);
    memcpy(rlo, lo0, n * sizeof *rlo);
    memcpy(rhi, hi0, n * sizeof *rhi);
    uint64_t ref_it;
    int conv = ref_solve(y, sc.mx, sc.eps, sc.rel, sc.max_it, rlo, sc.interval ? rhi : NULL, &ref_it);
    if (!check(conv, "%s: reference converged (%llu sweeps)", tag, (unsigned long long)ref_it))
        goto done;
    if (ref_only)
        goto twin;
    solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, 0, 0);
    const int dict = k == SK_DICT || k == SK_DICT_BIG;
    if (dict) {
        const int ran = valiter_gpu_last_kind();
        check(ran == 8 || ran == 10 || ran == 14 || ran == 15, "%s: the default is a packed sweep (ran kind %d)", tag, ran);
    }
    {
        /* a pinned kernel variant: all must give the same answer (a packed
         * kind where the system cannot be packed runs kind 5) */
        static const int groups1[] = {1, 2, 4, 8, 16, 32}, kinds[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 15};
        int kind = kinds[rndu(&r, 11)];
        int group = kind == 1 ? groups1[rndu(&r, 6)] : (rndu(&r, 2) ? 8 : 32);
        solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, kind, group);
    }
    {
        /* every tiles3 kind (unpacked, even where packing applies):
         * bit-identical, and the pinned kind really ran */
        for (int t3 = 16; t3 <= 17; t3++) {
            solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, t3, 32);
            check(valiter_gpu_last_kind() == t3, "%s: pinned kind %d ran (ran %d)", tag, t3, valiter_gpu_last_kind());
        }
        if (k == SK_BIG || k == SK_DICT_BIG) {
            persist_cap = 1; /* par.gpu.persist_blocks */
            for (int t3 = 16; t3 <= 17; t3++)
                solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, t3, 32);
            persist_cap = 0;
        }
    }
    if (dict) {
        /* packed on (both load policies) and off: bit-identical, and the
         * pinned kind really ran */
        static const int pk[] = {8, 10, 12, 14, 15, 5};
        for (int i = 0; i < 6; i++) {
            solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, pk[i], 32);
            check(valiter_gpu_last_kind() == pk[i], "%s: pinned kind %d ran (ran %d)", tag, pk[i],
                  valiter_gpu_last_kind());
        }
        if (k == SK_DICT_BIG) {
            /* persistent sweeps on a grid of one block per SM: a warp then
             * sweeps several tiles (as on big systems) */
            persist_cap = 1; /* par.gpu.persist_blocks */
            solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, 15, 32);
            solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, 14, 32);
            persist_cap = 0;
        }
    }
    if (sc.interval) {
        /* the value lies in a tight reference interval */
        double *tlo = xmalloc(n * sizeof *tlo), *thi = xmalloc(n * sizeof *thi);
        memcpy(tlo, lo0, n * sizeof *tlo);
        memcpy(thi, hi0, n * sizeof *thi);
        uint64_t tit;
        int tconv = ref_solve(y, sc.mx, 1e-11, 0, quick ? 20000 : 200000, tlo, thi, &tit);
        inplace_check(tag, y, &sc, lo0, hi0, ref_it, tconv ? tlo : NULL, tconv ? thi : NULL, 0);
        if (dict) { /* packed in place (both load policies) and unpacked in place */
            inplace_check(tag, y, &sc, lo0, hi0, ref_it, tconv ? tlo : NULL, tconv ? thi : NULL, 9);
            inplace_check(tag, y, &sc, lo0, hi0, ref_it, tconv ? tlo : NULL, tconv ? thi : NULL, 11);
            inplace_check(tag, y, &sc, lo0, hi0, ref_it, tconv ? tlo : NULL, tconv ? thi : NULL, 13);
            inplace_check(tag, y, &sc, lo0, hi0, ref_it, tconv ? tlo : NULL, tconv ? thi : NULL, 7);
        }
        free(tlo), free(thi);
    }
twin:
    if (sc.interval)
        watch_case(tag, &r, y, &sc, lo0, hi0, ref_it);
#ifdef HAVE_VALITER_CPU
    {
        double *lo = xmalloc(n * sizeof *lo), *hi = sc.interval ? xmalloc(n * sizeof *hi) : NULL;
        memcpy(lo, lo0, n * sizeof *lo);
        if (hi)
            memcpy(hi, hi0, n * sizeof *hi);
        struct vi_params par = {sc.mx, sc.eps, sc.rel, sc.max_it, VI_JACOBI, 2, 0, 0, {0}, NULL, 0};
        struct vi_stats st;
        struct wx_error err;
        wx_error_clear(&err);
        int rc = valiter_solve_cpu(y, &par, lo, hi, &st, &err);
        uint64_t at, at2 = 0;
        double dl = vec_diff(lo, rlo, n, &at), dh = hi ? vec_diff(hi, rhi, n, &at2) : 0;
        check(rc == WX_OK && st.iterations == ref_it && dl <= 1e-12 && dh <= 1e-12,
              "%s: CPU twin rc %d sweeps %llu (want %llu) lo diff %.3g hi diff %.3g", tag, rc,
              (unsigned long long)st.iterations, (unsigned long long)ref_it, dl, dh);
        free(lo), free(hi);
    }
#endif
    /* the sweep limit: exactly enough converges, one fewer is WX_ELIMIT
     * with the reference's iterates after that many sweeps */
    if (!ref_only && rndu(&r, 4) == 0 && ref_it >= 2) {
        struct solve_case lim = sc;
        lim.max_it = ref_it;
        solve_and_compare(tag, y, &lim, lo0, hi0, 1, ref_it, rlo, rhi, 0, 0);
        lim.max_it = ref_it - 1;
        memcpy(rlo, lo0, n * sizeof *rlo);
        memcpy(rhi, hi0, n * sizeof *rhi);
        uint64_t it2;
        int c2 = ref_solve(y, sc.mx, sc.eps, sc.rel, lim.max_it, rlo, sc.interval ? rhi : NULL, &it2);
        char t2[400];
        snprintf(t2, sizeof t2, "%s limit=%llu", tag, (unsigned long long)lim.max_it);
        solve_and_compare(t2, y, &lim, lo0, hi0, c2, it2, rlo, rhi, 0, 0);
    }
done:
    free(lo0), free(hi0), free(rlo), free(rhi);
    sys_free(&sb);
}
