/*
 * levels.c -- topological solving by levels
 * (valiter_solve_levels_gpu / _cpu) against the reference.
 *
 * Part of test_gpu_valiter.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ======================================================================
 * Topological solving by levels (valiter_solve_levels_gpu / _cpu)
 * ====================================================================== */

enum { LK_CHAIN, LK_FEW, LK_MIXED, LK_WIDE, LK_KINDS };
static const char *const lk_name[] = {"chain", "few-big", "mixed", "wide-states"};
static uint64_t n_level_cases, n_level_grouped, n_level_chunked;

struct levbuf {
    uint64_t *ls, nl;
    uint8_t *acyc;
};

/* A system with a level structure: level sizes by shape, every entry of a
 * state of level L goes to a state of level <= L, only lower levels when L
 * is acyclic (then no self loop either).  Contractions (leak >= 0.05). */
static void gen_levels(struct rng *r, int k, struct sysbuf *sb, struct levbuf *lb)
{
    uint64_t nl;
    switch (k) {
    case LK_CHAIN: nl = 1 + rndu(r, quick ? 30 : 400); break;
    case LK_FEW: nl = 1 + rndu(r, 5); break;
    default: nl = 1 + rndu(r, quick ? 12 : 60); break;
    }
    uint64_t *ls = xmalloc((nl + 1) * sizeof *ls);
    uint8_t *acyc = xmalloc(nl);
    uint64_t n = 0;
    for (uint64_t L = 0; L < nl; L++) {
        ls[L] = n;
        uint32_t sz;
        switch (k) {
        case LK_CHAIN: sz = 1 + rndu(r, 4); acyc[L] = rndu(r, 4) != 0; break;
        case LK_FEW: sz = 1 + rndu(r, quick ? 300 : 3000); acyc[L] = rndu(r, 5) == 0; break;
        case LK_WIDE: sz = 1 + rndu(r, 20); acyc[L] = rndu(r, 2); break;
        default: sz = rndu(r, 3) ? 1 + rndu(r, 30) : 1 + rndu(r, quick ? 200 : 1500); acyc[L] = rndu(r, 2); break;
        }
        n += sz;
    }
    ls[nl] = n;
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss);
    uint64_t nc = 0;
    for (uint64_t s = 0; s < n; s++) {
        ss[s] = nc;
        nc += k == LK_WIDE && rndu(r, 8) == 0 ? 257 + rndu(r, 40) : 1 + rndu(r, 4); /* > 256: a tile alone */
    }
    ss[n] = nc;
    uint64_t *cs = xmalloc((nc + 1) * sizeof *cs);
    uint64_t ne = 0;
    for (uint64_t c = 0; c < nc; c++) {
        cs[c] = ne;
        ne += rndu(r, 10) ? 1 + rndu(r, 4) : (k == LK_WIDE ? 300 + rndu(r, 100) : 0);
    }
    cs[nc] = ne;
    uint32_t *tg = xmalloc((ne ? ne : 1) * sizeof *tg);
    double *pr = xmalloc((ne ? ne : 1) * sizeof *pr);
    double *b = xmalloc((nc ? nc : 1) * sizeof *b);
    uint64_t L = 0;
    for (uint64_t s = 0; s < n; s++) {
        while (s >= ls[L + 1])
            L++;
        const uint64_t a = ls[L], z = ls[L + 1];
        for (uint64_t c = ss[s]; c < ss[s + 1]; c++) {
            double leak = 0.05 + 0.5 * rndf(r), sum = 0;
            uint64_t e1 = cs[c];
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++) {
                uint64_t t;
                if (!acyc[L] && (a == 0 || rndu(r, 2)))
                    t = rndu(r, 3) ? a + rndu(r, (uint32_t)(z - a)) : s; /* own level */
                else if (a > 0)
                    t = rndu(r, 2) && L > 0 ? ls[L - 1] + rndu(r, (uint32_t)(a - ls[L - 1])) : rndu(r, (uint32_t)a);
                else
                    continue; /* an acyclic bottom level: constants only */
                tg[e1] = (uint32_t)t;
                pr[e1] = 0.01 + rndf(r);
                sum += pr[e1++];
            }
            /* entries skipped: close the gap by moving the rest of the layout */
            uint64_t drop = cs[c + 1] - e1;
            if (drop) {
                for (uint64_t c2 = c + 1; c2 <= nc; c2++)
                    cs[c2] -= drop;
                ne -= drop;
            }
            if (cs[c] == cs[c + 1])
                leak = 1;
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++)
                pr[e] = pr[e] / sum * (1 - leak);
            b[c] = leak * rndf(r);
        }
    }
    sb->ss = ss, sb->cs = cs, sb->tg = tg, sb->pr = pr, sb->b = b;
    sb->sys = (struct vi_system){n, nc, ne, ss, cs, tg, pr, b};
    lb->ls = ls, lb->acyc = acyc, lb->nl = nl;
}

/* The GPU level solve under a device-memory cap (0: none); a cap below the
 * minimum the solver states is raised until it is enough. */
static int levels_gpu(const struct vi_system *y, const struct vi_params *par0, const struct vi_levels *lv,
                      uint64_t cap, const double *lo0, const double *hi0, double *lo, double *hi,
                      struct vi_stats *st, struct wx_error *err)
{
    uint64_t n = y->n_states;
    struct vi_params par = *par0;
    par.device_memory = cap;
    for (;;) {
        memcpy(lo, lo0, n * sizeof *lo);
        if (hi)
            memcpy(hi, hi0, n * sizeof *hi);
        wx_error_clear(err);
        int rc = valiter_solve_levels_gpu(y, &par, lv, lo, hi, st, err);
        if (rc == WX_ELIMIT && par.device_memory && strstr(err->msg, "needs at least")) {
            par.device_memory *= 2;
            continue;
        }
        return rc;
    }
}

static void levels_instance(uint64_t seed, int k)
{
    struct rng r = {seed};
    struct sysbuf sb;
    struct levbuf lb;
    gen_levels(&r, k, &sb, &lb);
    const struct vi_system *y = &sb.sys;
    const struct vi_levels lv = {lb.nl, lb.ls, lb.acyc};
    uint64_t n = y->n_states;
    int interval = rndu(&r, 4) != 0, mx = (int)rndu(&r, 2), rel = rndu(&r, 5) == 0;
    double eps = quick ? (rndu(&r, 2) ? 1e-2 : 1e-3) : pow(10, -2.0 - rndu(&r, 6));
    uint64_t max_it = rndu(&r, 10) == 0 ? 1 + rndu(&r, 3) : 1000000;
    struct vi_params par = {mx, eps, rel, max_it, VI_JACOBI, 0, 0, 0, {0}, NULL, 0};
    char tag[300];
    snprintf(tag, sizeof tag, "levels %s seed=%llu n=%llu levels=%llu choices=%llu entries=%llu %s %s %s eps=%g max_it=%llu",
             lk_name[k], (unsigned long long)seed, (unsigned long long)n, (unsigned long long)lb.nl,
             (unsigned long long)y->n_choices, (unsigned long long)y->n_entries, interval ? "interval" : "plain-vi",
             mx ? "max" : "min", rel ? "relative" : "absolute", eps, (unsigned long long)max_it);
    double *lo0 = xmalloc(n * sizeof *lo0), *hi0 = xmalloc(n * sizeof *hi0);
    for (uint64_t s = 0; s < n; s++)
        lo0[s] = 0, hi0[s] = 1;
    double *clo = xmalloc(n * sizeof *clo), *chi = xmalloc(n * sizeof *chi);
    double *glo = xmalloc(n * sizeof *glo), *ghi = xmalloc(n * sizeof *ghi);
    double *h = interval ? chi : NULL, *gh = interval ? ghi : NULL;
    struct vi_stats cst, gst;
    struct wx_error err;
    memcpy(clo, lo0, n * sizeof *clo);
    memcpy(chi, hi0, n * sizeof *chi);
    wx_error_clear(&err);
    int crc = valiter_solve_levels_cpu(y, &par, &lv, clo, h, &cst, &err);
    n_level_cases++;
    if (ref_only)
        goto sound;
    int grc = levels_gpu(y, &par, &lv, 0, lo0, hi0, glo, gh, &gst, &err);
    uint64_t at = 0, at2 = 0;
    double dl = vec_diff(glo, clo, n, &at), dh = interval ? vec_diff(ghi, chi, n, &at2) : 0;
    check(grc == crc && (grc != WX_OK || (dl == 0 && dh == 0 && gst.level_sweeps == cst.level_sweeps &&
                                         gst.iterations == cst.iterations)),
          "%s: GPU = CPU twin: rc %d/%d, level sweeps %llu/%llu, lo diff %.3g at %llu, hi diff %.3g at %llu (%s)", tag,
          grc, crc, (unsigned long long)gst.level_sweeps, (unsigned long long)cst.level_sweeps, dl,
          (unsigned long long)at, dh, (unsigned long long)at2, grc ? err.msg : "");
    if (grc == WX_OK && crc == WX_OK) {
        /* grouped under a device-memory cap: bit-identical again */
        double *qlo = xmalloc(n * sizeof *qlo), *qhi = xmalloc(n * sizeof *qhi);
        const uint64_t vec = 2 * ((n * (interval ? 16 : 8) + 255) / 256 * 256) + 256;
        const uint64_t sysb = 4 * n + 12 * y->n_choices + 12 * y->n_entries + 16 * n + 8192;
        const uint64_t cap = vec + 1 + (uint64_t)(rndf(&r) * rndf(&r) * (double)sysb);
        struct vi_stats qst;
        int qrc = levels_gpu(y, &par, &lv, cap, lo0, hi0, qlo, interval ? qhi : NULL, &qst, &err);
        double ql = vec_diff(qlo, clo, n, &at), qh = interval ? vec_diff(qhi, chi, n, &at2) : 0;
        check(qrc == WX_OK && ql == 0 && qh == 0 && qst.level_sweeps == cst.level_sweeps,
              "%s: GPU with --gpu-memory %llu (%llu groups) = ungrouped: rc %d, lo diff %.3g, hi diff %.3g (%s)", tag,
              (unsigned long long)cap, (unsigned long long)qst.groups, qrc, ql, qh, qrc ? err.msg : "");
        n_level_grouped += qst.groups > 1;
        n_level_chunked += qst.groups > lb.nl;
        free(qlo), free(qhi);
    }
sound:
    if (crc == WX_OK && interval && !rel) {
        /* sound: the stopping rule holds, and [lo, hi] holds the value (it
         * overlaps a tight whole-system reference interval, which holds it
         * too), as does plain interval iteration's (GPU, whole system) */
        double *tlo = xmalloc(n * sizeof *tlo), *thi = xmalloc(n * sizeof *thi);
        memcpy(tlo, lo0, n * sizeof *tlo);
        memcpy(thi, hi0, n * sizeof *thi);
        uint64_t tit;
        int tconv = ref_solve(y, mx, 1e-11, 0, quick ? 20000 : 200000, tlo, thi, &tit);
        double *plo = xmalloc(n * sizeof *plo), *phi = xmalloc(n * sizeof *phi);
        memcpy(plo, lo0, n * sizeof *plo);
        memcpy(phi, hi0, n * sizeof *phi);
        struct vi_params pp = par;
        pp.max_iterations = 1000000;
        struct vi_stats pst;
        wx_error_clear(&err);
        int prc = ref_only ? valiter_solve_cpu(y, &pp, plo, phi, &pst, &err)
                           : valiter_solve_gpu(y, &pp, plo, phi, &pst, &err);
        uint64_t bad = n, pbad = n;
        for (uint64_t s = 0; s < n && bad == n; s++)
            if (!(clo[s] <= chi[s] && chi[s] - clo[s] <= eps) ||
                (tconv && !(clo[s] <= thi[s] + 1e-12 && tlo[s] <= chi[s] + 1e-12)))
                bad = s;
        for (uint64_t s = 0; s < n && pbad == n; s++)
            if (!(plo[s] <= chi[s] && clo[s] <= phi[s]) ||
                fabs(0.5 * (plo[s] + phi[s]) - 0.5 * (clo[s] + chi[s])) > eps)
                pbad = s;
        check(tconv && bad == n, "%s: topological interval sound at every state (first bad %llu)", tag,
              (unsigned long long)bad);
        check(prc == WX_OK && pbad == n,
              "%s: plain interval iteration (%llu sweeps) overlaps, midpoints within eps (first bad %llu; "
              "topological: %llu equivalent sweeps)", tag, (unsigned long long)pst.iterations,
              (unsigned long long)pbad, (unsigned long long)cst.iterations);
        free(tlo), free(thi), free(plo), free(phi);
    }
    free(lo0), free(hi0), free(clo), free(chi), free(glo), free(ghi);
    free(lb.ls), free(lb.acyc);
    sys_free(&sb);
}
