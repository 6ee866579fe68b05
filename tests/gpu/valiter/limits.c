/*
 * limits.c -- hand-made systems around the packed
 * sweep's and the tiles3 sweeps' limits.
 *
 * Part of test_gpu_valiter.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ======================================================================
 * Hand-made cases and bad inputs
 * ====================================================================== */

/* The packed sweep's limits: 256 distinct probabilities (or constants) are
 * packed, 257 are not; a state with 255 entries is packed, one with 256 is
 * not.  Pinned kind 8 falls back to kind 5 where it cannot pack; the values
 * are the reference's either way. */
static void packed_case(const char *what, uint32_t n, uint32_t big_entries, uint32_t nprob, uint32_t nb, int want)
{
    /* state s: one choice; state 0 has big_entries entries (or 1), others 1 */
    uint64_t ne = (uint64_t)n - 1 + (big_entries ? big_entries : 1);
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss), *cs = xmalloc((n + 1) * sizeof *cs);
    uint32_t *tg = xmalloc(ne * sizeof *tg);
    double *pr = xmalloc(ne * sizeof *pr), *b = xmalloc(n * sizeof *b);
    uint64_t e = 0;
    for (uint32_t s = 0; s < n; s++) {
        ss[s] = s, cs[s] = e;
        uint32_t m = s == 0 && big_entries ? big_entries : 1;
        for (uint32_t j = 0; j < m; j++, e++) {
            tg[e] = (s + 1 + j) % n;
            /* nprob distinct values 0.25 + i/4096 (divided by m in state 0) */
            pr[e] = (0.25 + (double)(e % nprob) / 4096.0) / m;
        }
        b[s] = 0.25 * (double)(s % nb) / (double)nb;
    }
    ss[n] = n, cs[n] = e;
    struct vi_system y = {n, n, ne, ss, cs, tg, pr, b};
    struct solve_case sc = {1, 0, 1, 1e-9, 1000000};
    double *lo0 = xmalloc(n * sizeof *lo0), *hi0 = xmalloc(n * sizeof *hi0);
    double *rlo = xmalloc(n * sizeof *rlo), *rhi = xmalloc(n * sizeof *rhi);
    for (uint32_t s = 0; s < n; s++) /* constants < 0.25, mass <= 0.3125: values < 0.37 */
        lo0[s] = rlo[s] = 0, hi0[s] = rhi[s] = 1;
    uint64_t it;
    int conv = ref_solve(&y, 1, sc.eps, 0, sc.max_it, rlo, rhi, &it);
    char tag[200];
    snprintf(tag, sizeof tag, "packed limits: %s", what);
    if (check(conv, "%s: reference converged", tag)) {
        solve_and_compare(tag, &y, &sc, lo0, hi0, 1, it, rlo, rhi, 8, 32);
        check(valiter_gpu_last_kind() == want, "%s: pinned kind 8 ran kind %d (want %d)", tag,
              valiter_gpu_last_kind(), want);
        solve_and_compare(tag, &y, &sc, lo0, hi0, 1, it, rlo, rhi, 12, 32);
        check(valiter_gpu_last_kind() == (want == 8 ? 12 : 5), "%s: pinned kind 12 ran kind %d", tag,
              valiter_gpu_last_kind());
        solve_and_compare(tag, &y, &sc, lo0, hi0, 1, it, rlo, rhi, 14, 32);
        check(valiter_gpu_last_kind() == (want == 8 ? 14 : 5), "%s: pinned kind 14 ran kind %d", tag,
              valiter_gpu_last_kind());
    }
    free(ss), free(cs), free(tg), free(pr), free(b), free(lo0), free(hi0), free(rlo), free(rhi);
}

static void packed_limits(void)
{
    packed_case("256 probabilities", 600, 0, 256, 3, 8);
    packed_case("257 probabilities", 600, 0, 257, 3, 5);
    packed_case("256 constants", 600, 0, 3, 256, 8);
    packed_case("257 constants", 600, 0, 3, 257, 5);
    packed_case("a state with 255 entries", 600, 255, 4, 3, 8);
    packed_case("a state with 256 entries", 600, 256, 4, 3, 5);
}

/* The tiles3 sweeps' limits: a tile holds at most 128 choices and 256
 * entries, a bigger state is a tile of its own (swept by the whole warp).
 * n states; state 0 (and, with twice, state 1) has nch choices holding ne
 * entries in all, spread evenly (choices without an entry when ne < nch),
 * the others 1-3 choices of 0-3 entries.  Every tiles3 kind against the
 * reference, min and max, interval and plain. */
static void t3_case(uint32_t n, uint32_t nch, uint32_t ne, int twice, uint64_t seed)
{
    struct rng r = {seed};
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss), *cs = NULL;
    uint64_t nc = 0, nent = 0;
    for (int pass = 0; pass < 2; pass++) {
        struct rng q = {seed * 7 + 1};
        nc = 0, nent = 0;
        for (uint32_t s = 0; s < n; s++) {
            const int big = s == 0 || (twice && s == 1);
            const uint32_t k = big ? nch : 1 + rndu(&q, 3);
            if (pass)
                ss[s] = nc;
            for (uint32_t c = 0; c < k; c++, nc++) {
                uint32_t m;
                if (big) /* ne spread evenly over the choices (some empty when ne < nch) */
                    m = ne / k + (c < ne % k);
                else
                    m = rndu(&q, 4);
                if (pass)
                    cs[nc] = nent;
                nent += m;
            }
        }
        if (!pass)
            cs = xmalloc((nc + 1) * sizeof *cs);
    }
    ss[n] = nc, cs[nc] = nent;
    uint32_t *tg = xmalloc((nent ? nent : 1) * sizeof *tg);
    double *pr = xmalloc((nent ? nent : 1) * sizeof *pr), *b = xmalloc(nc * sizeof *b);
    for (uint64_t c = 0; c < nc; c++) {
        const uint64_t m = cs[c + 1] - cs[c];
        for (uint64_t e = cs[c]; e < cs[c + 1]; e++)
            tg[e] = rndu(&r, n), pr[e] = (0.3 + 0.6 * rndf(&r)) / (double)m * 0.95;
        b[c] = 0.05 * rndf(&r);
    }
    struct vi_system y = {n, nc, nent, ss, cs, tg, pr, b};
    double *lo0 = xmalloc(n * sizeof *lo0), *hi0 = xmalloc(n * sizeof *hi0);
    double *rlo = xmalloc(n * sizeof *rlo), *rhi = xmalloc(n * sizeof *rhi);
    for (int v = 0; v < 4; v++) {
        struct solve_case sc = {v & 1, 0, v < 2, 1e-9, 1000000};
        for (uint32_t s = 0; s < n; s++)
            lo0[s] = rlo[s] = 0, hi0[s] = rhi[s] = 1;
        uint64_t it;
        int conv = ref_solve(&y, sc.mx, sc.eps, 0, sc.max_it, rlo, sc.interval ? rhi : NULL, &it);
        char tag[200];
        snprintf(tag, sizeof tag, "tiles3 limits: n=%u, %s with %u choices and %u entries, %s %s", n,
                 twice ? "states 0 and 1" : "state 0", nch, ne, sc.interval ? "interval" : "plain-vi",
                 sc.mx ? "max" : "min");
        if (!check(conv, "%s: reference converged", tag))
            continue;
        for (int t3 = 16; t3 <= 17; t3++)
            solve_and_compare(tag, &y, &sc, lo0, hi0, 1, it, rlo, rhi, t3, 32);
    }
    free(ss), free(cs), free(tg), free(pr), free(b), free(lo0), free(hi0), free(rlo), free(rhi);
}

static void t3_limits(void)
{
    static const uint32_t chs[] = {1, 127, 128, 129, 200, 257}, ens[] = {0, 255, 256, 257, 600};
    uint64_t seed = 77;
    for (unsigned i = 0; i < sizeof chs / sizeof chs[0]; i++)
        for (unsigned j = 0; j < sizeof ens / sizeof ens[0]; j++) {
            if (quick && (i + j) % 3)
                continue;
            t3_case(quick ? 300 : 3000, chs[i], ens[j], (i + j) & 1, seed++);
        }
}
