/*
 * policy.c -- certified policy iteration (VI_POLICY):
 * random systems without end components, the answer's checks, and
 * hand-made cases.
 *
 * Part of test_gpu_valiter.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ======================================================================
 * Certified policy iteration (VI_POLICY)
 * ====================================================================== */

/* kernels/vi/'s test hook: caps of the policy rounds and of the
 * BiCGSTAB iterations per solve (0 = the contract's VI_PI_ROUNDS,
 * VI_PI_KRYLOV_MAX), and of BiCGSTAB's blocks (0 = as many as fit) */
void valiter_gpu_set_pi_limits(int rounds, int krylov_iterations, int krylov_blocks);

enum { PK_SMALL, PK_FORWARD, PK_TIED, PK_REWARD, PK_DICT, PK_DTMC, PK_BIG, PK_DICT_BIG, PK_KINDS };
static const char *const pk_name[] = {"small",   "forward-mass-1", "tied-choices", "rewards",
                                      "few-numbers", "dtmc",       "big",          "few-numbers-big"};
static uint64_t n_pi_cases, n_pi_policy, n_pi_certified, n_pi_fallback, n_pi_forced, n_pi_forced_exact,
    n_pi_twin, n_pi_twin_flags_differ, n_pi_twin_rounds_differ;

/* Systems without end components, for both min and max: every choice
 * leaks mass out of the system (slowly: small leaks take interval
 * iteration past VI_PI_SWEEPS), or (forward) moves all its mass to
 * higher-numbered states, so every cycle leaks.  Self loops, constant-only
 * choices, exact duplicates of the previous choice (tied), rewards-like
 * constants > 1.  *hi_bound: a valid upper bound on the values. */
static void gen_pi_system(struct rng *r, int k, struct sysbuf *sb, double *hi_bound)
{
    uint32_t n;
    const int dict = k == PK_DICT || k == PK_DICT_BIG, big = k == PK_BIG || k == PK_DICT_BIG;
    switch (k) {
    case PK_BIG: n = quick ? 2000 : 5000 + rndu(r, 10000); break;
    case PK_DICT_BIG: n = quick ? 2000 : 10000 + rndu(r, 15000); break;
    default: n = 1 + rndu(r, quick ? 40 : 150); break;
    }
    const double lmin = big ? 0.01 : 0.002 + 0.01 * rndf(r), bscale = k == PK_REWARD ? 1 + 20 * rndf(r) : 1;
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss);
    uint64_t nc = 0;
    for (uint32_t s = 0; s < n; s++) {
        ss[s] = nc;
        nc += k == PK_DTMC ? 1 : 1 + rndu(r, 5);
    }
    ss[n] = nc;
    uint64_t *cs = xmalloc((nc + 1) * sizeof *cs);
    uint8_t *dup = xmalloc(nc), *fwd = xmalloc(nc);
    uint64_t ne = 0;
    for (uint32_t s = 0; s < n; s++)
        for (uint64_t c = ss[s]; c < ss[s + 1]; c++) {
            cs[c] = ne;
            dup[c] = c > ss[s] && (k == PK_TIED ? rndu(r, 2) == 0 : rndu(r, 10) == 0);
            fwd[c] = !dup[c] && s + 1 < n && (k == PK_FORWARD ? rndu(r, 4) != 0 : rndu(r, 8) == 0);
            if (dup[c])
                ne += cs[c] - cs[c - 1];
            else
                ne += rndu(r, 12) || fwd[c] ? 1 + rndu(r, 4) : 0; /* some constant-only choices */
        }
    cs[nc] = ne;
    uint32_t *tg = xmalloc((ne ? ne : 1) * sizeof *tg);
    double *pr = xmalloc((ne ? ne : 1) * sizeof *pr), *b = xmalloc((nc ? nc : 1) * sizeof *b);
    double worst = 1; /* the smallest leak of a leaking choice */
    for (uint32_t s = 0; s < n; s++)
        for (uint64_t c = ss[s]; c < ss[s + 1]; c++) {
            const uint64_t cnt = cs[c + 1] - cs[c];
            if (dup[c]) {
                memcpy(tg + cs[c], tg + cs[c - 1], cnt * sizeof *tg);
                memcpy(pr + cs[c], pr + cs[c - 1], cnt * sizeof *pr);
                b[c] = b[c - 1];
                continue;
            }
            double leak = dict ? (1 + rndu(r, 3)) / 256.0 * (big ? 4 : 1) : lmin + (rndu(r, 2) ? 0 : 0.05 * rndf(r));
            if (fwd[c])
                leak = 0;
            if (!cnt)
                leak = 1;
            if (leak > 0 && leak < worst)
                worst = leak;
            double sum = 0;
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++) {
                uint32_t t;
                if (fwd[c])
                    t = s + 1 + rndu(r, rndu(r, 2) ? (n - s - 1 < 8 ? n - s - 1 : 8) : n - s - 1);
                else if (rndu(r, 5) == 0)
                    t = s; /* self loop */
                else if (rndu(r, 2))
                    t = (uint32_t)((s + rndu(r, 64)) % n);
                else
                    t = rndu(r, n);
                tg[e] = t;
                pr[e] = dict ? 1 : 0.01 + rndf(r);
                sum += pr[e];
            }
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++)
                pr[e] = dict ? (1 - leak) / (double)cnt : pr[e] / sum * (1 - leak);
            b[c] = dict ? leak * 0.25 * rndu(r, 5) : leak * bscale * rndf(r);
        }
    free(dup), free(fwd);
    /* values <= bscale * (most steps to leave) ... bounded by bscale / worst
     * per leaking step; forward chains add at most n steps of no leak */
    *hi_bound = bscale * (1 + (double)n) / worst;
    if (k != PK_REWARD)
        *hi_bound = 1; /* b <= leak: probabilities */
    sb->ss = ss, sb->cs = cs, sb->tg = tg, sb->pr = pr, sb->b = b;
    sb->sys = (struct vi_system){n, nc, ne, ss, cs, tg, pr, b};
}

/* The general checks of a VI_POLICY answer; returns the first bad state (n: none). */
static uint64_t pi_bad_state(const struct vi_system *y, double eps, const double *lo, const double *hi,
                             const double *lo0, const double *hi0, const double *tlo, const double *thi,
                             const char **why)
{
    const uint64_t n = y->n_states;
    for (uint64_t s = 0; s < n; s++) {
        const double tol = 1e-13 * (1 + fabs(thi[s]));
        if (!(hi[s] - lo[s] <= eps))
            return *why = "hi - lo > eps", s;
        if (!(lo[s] >= lo0[s] && hi[s] <= hi0[s]))
            return *why = "left the initial bounds", s;
        if (!(lo[s] <= thi[s] + tol && hi[s] >= tlo[s] - tol))
            return *why = "misses the value (tight reference interval)", s;
    }
    return *why = "", n;
}

/* What VI_POLICY's step 1 leads to (valiter.h), by the reference's
 * Jacobi sweeps: 0 interval iteration converges within K sweeps, 1 it goes
 * on to the end (the gap shrinks fast enough), 2 the policy steps run. */
static int pi_route(const struct vi_system *y, int mx, double eps, uint64_t K, const double *lo0, const double *hi0)
{
    const uint64_t n = y->n_states;
    double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi), g[2] = {0, 0};
    memcpy(lo, lo0, n * sizeof *lo), memcpy(hi, hi0, n * sizeof *hi);
    int route = 2;
    uint64_t it;
    for (int part = 0; part < (K >= 2 ? 2 : 1); part++) {
        if (ref_solve(y, mx, eps, 0, K >= 2 ? (part ? K - K / 2 : K / 2) : K, lo, hi, &it)) {
            route = 0;
            break;
        }
        for (uint64_t s = 0; s < n; s++)
            g[part] = hi[s] - lo[s] > g[part] ? hi[s] - lo[s] : g[part];
    }
    if (route == 2 && K >= 2 && g[1] < g[0] &&
        (double)(K - K / 2) * log(g[1] / eps) / log(g[0] / g[1]) <= VI_PI_CONTINUE)
        route = 1;
    free(lo), free(hi);
    return route;
}

static void pi_instance(uint64_t seed, int k)
{
    struct rng r = {seed};
    struct sysbuf sb;
    double hb;
    const int mx = (int)rndu(&r, 2);
    const double eps = quick ? 1e-6 : rndu(&r, 3) ? 1e-6 : pow(10, -4.0 - rndu(&r, 5));
    gen_pi_system(&r, k, &sb, &hb);
    const struct vi_system *y = &sb.sys;
    const uint64_t n = y->n_states;
    double *lo0 = xmalloc(n * sizeof *lo0), *hi0 = xmalloc(n * sizeof *hi0);
    for (uint64_t s = 0; s < n; s++)
        lo0[s] = 0, hi0[s] = hb;
    char tag[256];
    snprintf(tag, sizeof tag, "policy %s seed=%llu n=%llu choices=%llu entries=%llu %s eps=%g", pk_name[k],
             (unsigned long long)seed, (unsigned long long)n, (unsigned long long)y->n_choices,
             (unsigned long long)y->n_entries, mx ? "max" : "min", eps);
    /* references: interval iteration to eps (sweeps, iterates) and tight */
    double *rlo = xmalloc(n * sizeof *rlo), *rhi = xmalloc(n * sizeof *rhi);
    double *tlo = xmalloc(n * sizeof *tlo), *thi = xmalloc(n * sizeof *thi);
    memcpy(rlo, lo0, n * sizeof *rlo), memcpy(rhi, hi0, n * sizeof *rhi);
    memcpy(tlo, lo0, n * sizeof *tlo), memcpy(thi, hi0, n * sizeof *thi);
    uint64_t ref_it = 0, tit = 0;
    const int conv = ref_solve(y, mx, eps, 0, 5000000, rlo, rhi, &ref_it);
    const int tconv = ref_solve(y, mx, 1e-12 * hb, 0, 20000000, tlo, thi, &tit);
    double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi);
    if (!check(conv && tconv, "%s: references converged (%llu, %llu sweeps)", tag, (unsigned long long)ref_it,
               (unsigned long long)tit))
        goto done;
    const int few_blocks = 1 + (int)rndu(&r, 3);
    for (int pass = 0; pass < 5; pass++) {
        /* 0: the contract; 1: BiCGSTAB capped at 1 iteration (mostly step
         * 5 from step 1's bounds: Jacobi's answer, with the greedy sweeps
         * added); 2: one policy round (a policy that may not be optimal:
         * the certificate decides, halves on their own); 3: step 1 of a
         * single sweep (pi_sweeps = 1: the policy steps from rough bounds);
         * 4: BiCGSTAB on 1-3 blocks (threads with several rows, few partials) */
        const uint64_t K = pass == 3 ? 1 : VI_PI_SWEEPS;
        const int route = pi_route(y, mx, eps, K, lo0, hi0);
        memcpy(lo, lo0, n * sizeof *lo), memcpy(hi, hi0, n * sizeof *hi);
        struct vi_params par = {mx, eps, 0, 10000000, VI_POLICY, 0, 0, pass == 3 ? 1 : 0, {0}, NULL, 0};
        struct vi_stats st;
        struct wx_error err;
        wx_error_clear(&err);
        memset(&st, 0, sizeof st);
        valiter_gpu_set_pi_limits(pass == 2 ? 1 : 0, pass == 1 ? 1 : 0, pass == 4 ? few_blocks : 0);
        const int rc = valiter_solve_gpu(y, &par, lo, hi, &st, &err);
        valiter_gpu_set_pi_limits(0, 0, 0);
        const char *why = "";
        const uint64_t bad = rc == WX_OK ? pi_bad_state(y, eps, lo, hi, lo0, hi0, tlo, thi, &why) : 0;
        int ok = rc == WX_OK && bad == n && (st.certified == 0 || st.certified == 1);
        const char *what = "";
        uint64_t at;
        if (ok && route < 2) { /* interval iteration alone: identical to VI_JACOBI */
            ok = st.certified == 0 && st.iterations == ref_it && st.products == 0 && st.policy_rounds == 0 &&
                 vec_diff(lo, rlo, n, &at) == 0 && vec_diff(hi, rhi, n, &at) == 0;
            what = ok ? "" : ", expected interval iteration's answer and sweeps";
        } else if (ok && !st.certified) {
            ok = st.iterations > K;
            if (pass == 1 && st.iterations == ref_it + 1 + st.policy_rounds && !memcmp(lo, rlo, n * sizeof *lo) &&
                !memcmp(hi, rhi, n * sizeof *hi))
                n_pi_forced_exact++; /* no certificate reached: step 5 went on from step 1's bounds */
        } else if (ok) /* certified by the policy steps */
            ok = st.policy_rounds >= 1 && st.products >= 3 && st.iterations >= K + 3;
        check(ok, "%s pass %d: rc %d%s%s, route %d, certified %d, %llu sweeps (interval iteration %llu), %llu rounds, %llu products%s%s%s at %llu [%.17g, %.17g] tight [%.17g, %.17g]",
              tag, pass, rc, rc ? ": " : "", rc ? err.msg : "", route, st.certified,
              (unsigned long long)st.iterations, (unsigned long long)ref_it, (unsigned long long)st.policy_rounds,
              (unsigned long long)st.products, what, bad < n ? ", " : "", why,
              (unsigned long long)(bad < n ? bad : 0), bad < n ? lo[bad] : 0, bad < n ? hi[bad] : 0,
              bad < n ? tlo[bad] : 0, bad < n ? thi[bad] : 0);
        if (route < 2)
            continue;
        n_pi_cases++;
        if (pass == 0 || pass == 3 || pass == 4) {
            n_pi_policy++;
            n_pi_certified += st.certified == 1;
            n_pi_fallback += st.certified == 0;
        } else
            n_pi_forced += st.certified == 0;
#ifdef HAVE_VALITER_CPU
        if (pass == 0 || pass == 3) { /* the CPU twin: overlapping intervals, the same certified flag (counted) */
            double *clo = xmalloc(n * sizeof *clo), *chi = xmalloc(n * sizeof *chi);
            memcpy(clo, lo0, n * sizeof *clo), memcpy(chi, hi0, n * sizeof *chi);
            struct vi_params cpar = par;
            cpar.threads = 2;
            struct vi_stats cst;
            memset(&cst, 0, sizeof cst);
            wx_error_clear(&err);
            const int crc = valiter_solve_cpu(y, &cpar, clo, chi, &cst, &err);
            uint64_t cbad = n;
            for (uint64_t s = 0; s < n && crc == WX_OK && cbad == n; s++) {
                const double tol = 1e-13 * (1 + fabs(thi[s]));
                if (!(clo[s] <= hi[s] + tol && lo[s] <= chi[s] + tol))
                    cbad = s;
            }
            check(crc == WX_OK && cbad == n,
                  "%s pass %d: CPU twin rc %d%s%s, [lo, hi] overlap the GPU's%s (CPU certified %d, %llu rounds, %llu products, %llu sweeps; GPU %d, %llu, %llu, %llu)",
                  tag, pass, crc, crc ? ": " : "", crc ? err.msg : "", cbad < n ? " NOT" : "", cst.certified,
                  (unsigned long long)cst.policy_rounds, (unsigned long long)cst.products,
                  (unsigned long long)cst.iterations, st.certified, (unsigned long long)st.policy_rounds,
                  (unsigned long long)st.products, (unsigned long long)st.iterations);
            n_pi_twin++;
            n_pi_twin_flags_differ += cst.certified != st.certified;
            n_pi_twin_rounds_differ += cst.policy_rounds != st.policy_rounds;
            if (cst.certified != st.certified || cst.policy_rounds != st.policy_rounds)
                printf("# %s pass %d: the twins differ: certified CPU %d GPU %d, rounds CPU %llu GPU %llu, sweeps CPU %llu GPU %llu\n",
                       tag, pass, cst.certified, st.certified, (unsigned long long)cst.policy_rounds,
                       (unsigned long long)st.policy_rounds, (unsigned long long)cst.iterations,
                       (unsigned long long)st.iterations);
            free(clo), free(chi);
        }
#endif
    }
done:
    free(lo0), free(hi0), free(rlo), free(rhi), free(tlo), free(thi), free(lo), free(hi);
    sys_free(&sb);
}

/* Hand-made: an end component left in (the greedy policy's matrix is
 * singular): BiCGSTAB breaks down, interval iteration takes over and runs
 * out of sweeps; relative and plain modes are VI_JACOBI. */
static void pi_hand_made(void)
{
    uint64_t lss[] = {0, 1}, lcs[] = {0, 1};
    uint32_t ltg[] = {0};
    double lpr[] = {1}, lb[] = {0};
    struct vi_system y3 = {1, 1, 1, lss, lcs, ltg, lpr, lb};
    double l3 = 0, h3 = 1;
    struct vi_params par = {1, 1e-9, 0, 500, VI_POLICY, 0, 0, 0, {0}, NULL, 0};
    struct vi_stats st;
    struct wx_error err;
    wx_error_clear(&err);
    memset(&st, 0, sizeof st);
    int rc = valiter_solve_gpu(&y3, &par, &l3, &h3, &st, &err);
    check(rc == WX_ELIMIT && st.iterations == 500 && l3 == 0 && h3 == 1 && st.certified == 0,
          "policy: end component left in: WX_ELIMIT after 500 sweeps (%d, %llu, certified %d: %s)", rc,
          (unsigned long long)st.iterations, st.certified, err.msg);
    /* max_iterations below VI_PI_SWEEPS: interval iteration's WX_ELIMIT */
    par.max_iterations = 50;
    l3 = 0, h3 = 1;
    wx_error_clear(&err);
    rc = valiter_solve_gpu(&y3, &par, &l3, &h3, &st, &err);
    check(rc == WX_ELIMIT && st.iterations == 50, "policy: 50 sweeps allowed: WX_ELIMIT after 50 (%d, %llu)", rc,
          (unsigned long long)st.iterations);
    /* a slow 4-cycle: x_i = 0.0005 + 0.999 x_(i+1 mod 4), and state 0 may
     * also leave with a constant (0.2 for max, 0.8 for min) that the cycle's
     * value 0.5 beats: interval iteration needs ~20 000 sweeps; the greedy
     * policy after VI_PI_SWEEPS takes the constant, the next round the cycle */
    uint64_t css[] = {0, 2, 3, 4, 5}, ccs[] = {0, 1, 1, 2, 3, 4};
    uint32_t ctg[] = {1, 2, 3, 0};
    double cpr[] = {0.999, 0.999, 0.999, 0.999}, cb[] = {0.0005, 0.2, 0.0005, 0.0005, 0.0005};
    struct vi_system yc = {4, 5, 4, css, ccs, ctg, cpr, cb};
    for (int mx = 0; mx < 2; mx++) {
        cb[1] = mx ? 0.2 : 0.8;
        double lo[4] = {0, 0, 0, 0}, hi[4] = {1, 1, 1, 1};
        struct vi_params pp = {mx, 1e-9, 0, 10000000, VI_POLICY, 0, 0, 0, {0}, NULL, 0};
        wx_error_clear(&err);
        memset(&st, 0, sizeof st);
        rc = valiter_solve_gpu(&yc, &pp, lo, hi, &st, &err);
        const double want0 = 0.5;
        check(rc == WX_OK && lo[0] <= want0 + 1e-15 && hi[0] >= want0 - 1e-15 && hi[0] - lo[0] <= 1e-9 &&
                  st.certified == 1 && st.policy_rounds >= 1,
              "policy: slow 4-cycle %s: x0 in [%.17g, %.17g] (want %.17g), certified %d, %llu rounds, %llu products, %llu sweeps (%d: %s)",
              mx ? "max" : "min", lo[0], hi[0], want0, st.certified, (unsigned long long)st.policy_rounds,
              (unsigned long long)st.products, (unsigned long long)st.iterations, rc, err.msg);
    }
}
