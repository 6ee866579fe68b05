/*
 * test_gpu_cyclemean.c -- the GPU Howard cycle mean / cycle ratio
 * (cyclemean_howard_gpu) against independent CPU references, on a GPU
 * machine.  Built and run by bench/gpu_test.sh only (not by `make test`).
 *
 *   test_gpu_cyclemean [--quick] [--seed N] [--probe]
 *
 * References written here, independent of the library's solvers:
 *   - brute force: every simple cycle of a small graph (<= 9 vertices) is
 *     enumerated and its exact ratio compared -- cycle means and cycle
 *     ratios with transit times; the optimum of a component is attained by
 *     a simple cycle (a cycle's ratio is a mediant of its simple cycles');
 *   - Karp's theorem per component, exact fractions, for cycle means of
 *     graphs up to a few thousand vertices.
 * With -DHAVE_CYCLEMEAN_CPU (bench/gpu_test.sh sets it when the library has
 * cyclemean_howard_cpu) the CPU twins cyclemean_howard_cpu and
 * cyclemean_karp_cpu are compared too.  Every answer is checked per
 * component and overall (identical reduced fractions, both min and max),
 * and its critical cycle is verified: consecutive edges of the graph inside
 * the reported component, with exactly the optimal ratio.  Random graphs
 * have several SCCs, self-loops, parallel edges, negative weights, weights
 * up to 2^31 - 1; hand cases have known answers; bad inputs must fail.
 * Seeds are printed; --seed replays.  SCCs come from scc_cpu.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../analysis/cyclemean.h"
#include "../../analysis/scc.h"
#include "../check.h"
#include "../rng.h"

typedef __int128 i128;

static int quick;
static uint64_t seed0;
static int fails_shown;

/* ---- graphs ---- */

struct tgraph {
    uint64_t n, m;
    uint64_t *off;
    uint32_t *tgt;
    int64_t *w, *t;        /* t: NULL for cycle means */
    struct scc_result scc;
};

struct edge {
    uint32_t u, v;
    int64_t w, t;
};

static int cmp_edge(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    return x->u < y->u ? -1 : x->u > y->u;
}

/* Builds CSR (stable order within a row, duplicates kept) and the SCCs. */
static void tg_build(struct tgraph *g, uint64_t n, struct edge *e, uint64_t m, int with_t)
{
    memset(g, 0, sizeof *g);
    qsort(e, m, sizeof *e, cmp_edge);
    g->n = n, g->m = m;
    g->off = calloc(n + 1, sizeof *g->off);
    g->tgt = malloc((m + 1) * sizeof *g->tgt);
    g->w = malloc((m + 1) * sizeof *g->w);
    g->t = with_t ? malloc((m + 1) * sizeof *g->t) : NULL;
    if (!g->off || !g->tgt || !g->w || (with_t && !g->t))
        abort();
    for (uint64_t i = 0; i < m; i++) {
        g->off[e[i].u + 1]++;
        g->tgt[i] = e[i].v;
        g->w[i] = e[i].w;
        if (with_t)
            g->t[i] = e[i].t;
    }
    for (uint64_t v = 0; v < n; v++)
        g->off[v + 1] += g->off[v];
    struct csr c = {.n_vertices = n, .n_edges = m, .offsets = g->off, .targets = g->tgt};
    struct wx_error err;
    wx_error_clear(&err);
    if (scc_cpu(&c, &g->scc, &err) != WX_OK) {
        fprintf(stderr, "scc_cpu: %s\n", err.msg);
        abort();
    }
}

static void tg_free(struct tgraph *g)
{
    free(g->off), free(g->tgt), free(g->w), free(g->t);
    scc_result_free(&g->scc);
}

static struct cm_graph tg_view(const struct tgraph *g)
{
    struct cm_graph c = {g->n, g->m, g->off, g->tgt, g->w, g->t};
    return c;
}

static void res_free(struct cm_result *r)
{
#ifdef HAVE_CYCLEMEAN_CPU
    cm_result_free(r);
#else
    free(r->cycle), free(r->cycle_edges), free(r->per_scc);
    memset(r, 0, sizeof *r);
#endif
}

/* ---- exact fractions ---- */

static int64_t gcd64(int64_t a, int64_t b)
{
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
        int64_t r = a % b;
        a = b, b = r;
    }
    return a;
}

static struct cm_value frac(int64_t num, int64_t den)
{
    struct cm_value v = {1, num, den};
    if (den < 0)
        v.num = -num, v.den = -den;
    int64_t g = gcd64(v.num, v.den);
    if (g > 1)
        v.num /= g, v.den /= g;
    return v;
}

/* a < b as rationals (both has_cycle). */
static int fless(struct cm_value a, struct cm_value b)
{
    return (i128)a.num * b.den < (i128)b.num * a.den;
}

static int fsame(struct cm_value a, struct cm_value b)
{
    if (!a.has_cycle || !b.has_cycle)
        return a.has_cycle == b.has_cycle;
    return a.num == b.num && a.den == b.den;
}

/* better(a, b): a strictly better than b for the problem. */
static int fbetter(struct cm_value a, struct cm_value b, int maximize)
{
    if (!b.has_cycle)
        return a.has_cycle;
    if (!a.has_cycle)
        return 0;
    return maximize ? fless(b, a) : fless(a, b);
}

/* ---- reference 1: brute-force simple cycles ---- */

struct bf {
    const struct tgraph *g;
    int maximize;
    struct cm_value *per;  /* per component */
    uint8_t *onpath;
    uint32_t start;
};

static void bf_dfs(struct bf *b, uint32_t u, int64_t sw, int64_t st)
{
    const struct tgraph *g = b->g;
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++) {
        uint32_t v = g->tgt[e];
        int64_t w = sw + g->w[e], t = st + (g->t ? g->t[e] : 1);
        if (v == b->start) {
            struct cm_value r = frac(w, t);
            uint32_t k = g->scc.comp[v];
            if (fbetter(r, b->per[k], b->maximize))
                b->per[k] = r;
        } else if (v > b->start && !b->onpath[v]) {
            b->onpath[v] = 1;
            bf_dfs(b, v, w, t);
            b->onpath[v] = 0;
        }
    }
}

/* Each simple cycle is enumerated once from its smallest vertex. */
static void ref_brute(const struct tgraph *g, int maximize, struct cm_value *per)
{
    struct bf b = {g, maximize, per, calloc(g->n + 1, 1), 0};
    memset(per, 0, g->scc.n_sccs * sizeof *per);
    for (uint32_t s = 0; s < g->n; s++) {
        b.start = s;
        b.onpath[s] = 1;
        bf_dfs(&b, s, 0, 0);
        b.onpath[s] = 0;
    }
    free(b.onpath);
}

/* ---- reference 2: Karp per component (cycle means only) ---- */

#define KINF INT64_MAX

static void ref_karp(const struct tgraph *g, int maximize, struct cm_value *per)
{
    const uint64_t n = g->n, K = g->scc.n_sccs;
    memset(per, 0, K * sizeof *per);
    uint64_t *size = calloc(K + 1, sizeof *size), *src = malloc((K + 1) * sizeof *src);
    uint32_t *local = malloc((n + 1) * sizeof *local);
    for (uint64_t k = 0; k < K; k++)
        src[k] = UINT64_MAX;
    for (uint64_t v = 0; v < n; v++) {
        uint32_t k = g->scc.comp[v];
        if (src[k] == UINT64_MAX)
            src[k] = v;
        local[v] = (uint32_t)size[k]++;
    }
    /* vertices of each component, in order */
    uint64_t *start = calloc(K + 1, sizeof *start), *fill = calloc(K + 1, sizeof *fill);
    uint32_t *verts = malloc((n + 1) * sizeof *verts);
    for (uint64_t k = 0; k < K; k++)
        start[k + 1] = start[k] + size[k];
    for (uint64_t v = 0; v < n; v++) {
        uint32_t k = g->scc.comp[v];
        verts[start[k] + fill[k]++] = (uint32_t)v;
    }
    const int64_t sg = maximize ? -1 : 1;
    for (uint64_t k = 0; k < K; k++) {
        const uint64_t nc = size[k];
        /* a cycle exists iff some edge stays inside the component */
        int cyc = 0;
        for (uint64_t i = 0; i < nc && !cyc; i++) {
            uint32_t u = verts[start[k] + i];
            for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++)
                if (g->scc.comp[g->tgt[e]] == k)
                    cyc = 1;
        }
        if (!cyc)
            continue;
        int64_t *D = malloc((nc + 1) * nc * sizeof *D);
        for (uint64_t i = 0; i < (nc + 1) * nc; i++)
            D[i] = KINF;
        D[local[src[k]]] = 0;
        for (uint64_t s = 0; s < nc; s++) {
            const int64_t *Ds = D + s * nc;
            int64_t *Dn = D + (s + 1) * nc;
            for (uint64_t i = 0; i < nc; i++) {
                if (Ds[i] == KINF)
                    continue;
                uint32_t u = verts[start[k] + i];
                for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++) {
                    uint32_t v = g->tgt[e];
                    if (g->scc.comp[v] != k)
                        continue;
                    int64_t x = Ds[i] + sg * g->w[e];
                    if (x < Dn[local[v]])
                        Dn[local[v]] = x;
                }
            }
        }
        struct cm_value best = {0, 0, 1};
        for (uint64_t i = 0; i < nc; i++) {
            int64_t dn = D[nc * nc + i];
            if (dn == KINF)
                continue;
            struct cm_value worst = {0, 0, 1};
            for (uint64_t s = 0; s < nc; s++) {
                int64_t ds = D[s * nc + i];
                if (ds == KINF)
                    continue;
                struct cm_value r = frac(dn - ds, (int64_t)(nc - s));
                if (!worst.has_cycle || fless(worst, r))
                    worst = r;
            }
            if (!best.has_cycle || fless(worst, best))
                best = worst;
        }
        if (maximize)
            best.num = -best.num;
        per[k] = best;
        free(D);
    }
    free(size), free(src), free(local), free(start), free(fill), free(verts);
}

/* ---- checking one answer ---- */

static void fail_once(const char *what, uint64_t seed, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail_once(const char *what, uint64_t seed, const char *fmt, ...)
{
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (fails_shown++ < 30)
        check(0, "%s (seed %" PRIu64 "): %s", what, seed, buf);
    else
        check_failures++;
}

/* Returns 1 when r agrees with the per-component reference ref and its
 * critical cycle is valid. */
static int verify(const char *what, uint64_t seed, const struct tgraph *g, int maximize,
                  const struct cm_result *r, const struct cm_value *ref)
{
    const uint64_t K = g->scc.n_sccs;
    struct cm_value best = {0, 0, 1};
    uint64_t best_k = UINT64_MAX;
    for (uint64_t k = 0; k < K; k++) {
        if (!fsame(r->per_scc[k], ref[k])) {
            fail_once(what, seed, "%s component %" PRIu64 ": expected %d:%" PRId64 "/%" PRId64
                      ", found %d:%" PRId64 "/%" PRId64, maximize ? "max" : "min", k,
                      ref[k].has_cycle, ref[k].num, ref[k].den, r->per_scc[k].has_cycle,
                      r->per_scc[k].num, r->per_scc[k].den);
            return 0;
        }
        if (fbetter(ref[k], best, maximize))
            best = ref[k], best_k = k;
    }
    if (r->n_sccs != K || !fsame(r->best, best)) {
        fail_once(what, seed, "%s best: expected %d:%" PRId64 "/%" PRId64 ", found %d:%" PRId64
                  "/%" PRId64, maximize ? "max" : "min", best.has_cycle, best.num, best.den,
                  r->best.has_cycle, r->best.num, r->best.den);
        return 0;
    }
    if (!best.has_cycle) {
        if (r->cycle_len != 0) {
            fail_once(what, seed, "no cycle, but a critical cycle of length %" PRIu64,
                      r->cycle_len);
            return 0;
        }
        return 1;
    }
    (void)best_k;
    if (r->best_scc >= K || !fsame(ref[r->best_scc], best)) {
        fail_once(what, seed, "best_scc %u is not optimal", r->best_scc);
        return 0;
    }
    if (r->cycle_len == 0 || !r->cycle || !r->cycle_edges) {
        fail_once(what, seed, "no critical cycle");
        return 0;
    }
    int64_t sw = 0, st = 0;
    for (uint64_t i = 0; i < r->cycle_len; i++) {
        uint32_t u = r->cycle[i], v = r->cycle[(i + 1) % r->cycle_len];
        uint64_t e = r->cycle_edges[i];
        if (u >= g->n || e < g->off[u] || e >= g->off[u + 1] || g->tgt[e] != v ||
            g->scc.comp[u] != r->best_scc) {
            fail_once(what, seed, "critical cycle step %" PRIu64 " (%u -> %u by edge %" PRIu64
                      ") is not an edge inside component %u", i, u, v, e, r->best_scc);
            return 0;
        }
        sw += g->w[e];
        st += g->t ? g->t[e] : 1;
    }
    struct cm_value cr = frac(sw, st);
    if (!fsame(cr, best)) {
        fail_once(what, seed, "critical cycle ratio %" PRId64 "/%" PRId64 " != optimum %" PRId64
                  "/%" PRId64, cr.num, cr.den, best.num, best.den);
        return 0;
    }
    return 1;
}

/* Runs the GPU (and the CPU twins when linked) on g for both problems and
 * compares with the references (brute force and/or Karp).  Returns 1 when
 * everything agreed. */
static int run_case(const char *what, uint64_t seed, const struct tgraph *g, int use_brute,
                    int use_karp)
{
    int ok = 1;
    const struct cm_graph cg = tg_view(g);
    struct cm_value *ref = calloc(g->scc.n_sccs + 1, sizeof *ref);
    struct cm_value *ref2 = calloc(g->scc.n_sccs + 1, sizeof *ref2);
    for (int maximize = 0; maximize <= 1; maximize++) {
        if (use_brute)
            ref_brute(g, maximize, ref);
        if (use_karp && !g->t) {
            ref_karp(g, maximize, use_brute ? ref2 : ref);
            if (use_brute)
                for (uint64_t k = 0; k < g->scc.n_sccs; k++)
                    if (!fsame(ref[k], ref2[k])) {
                        fail_once(what, seed, "references disagree (brute force vs Karp) on "
                                  "component %" PRIu64, k);
                        ok = 0;
                        break;
                    }
        }
        struct cm_result r;
        struct wx_error err;
        wx_error_clear(&err);
        int rc = cyclemean_howard_gpu(&cg, &g->scc, maximize, &r, &err);
        if (rc != WX_OK) {
            fail_once(what, seed, "cyclemean_howard_gpu (%s) returned %d: %s",
                      maximize ? "max" : "min", rc, err.msg);
            ok = 0;
            continue;
        }
        ok &= verify(what, seed, g, maximize, &r, ref);
        if (r.best.has_cycle && r.iterations == 0) {
            fail_once(what, seed, "iterations == 0");
            ok = 0;
        }
#ifdef HAVE_CYCLEMEAN_CPU
        for (int twin = 0; twin < 2; twin++) {
            if (twin == 1 && (g->n > 3000 || g->t))
                continue; /* Karp: cycle means of small graphs */
            struct cm_result c;
            rc = twin ? cyclemean_karp_cpu(&cg, &g->scc, maximize, &c, &err)
                      : cyclemean_howard_cpu(&cg, &g->scc, maximize, &c, &err);
            if (rc != WX_OK) {
                fail_once(what, seed, "%s returned %d: %s",
                          twin ? "cyclemean_karp_cpu" : "cyclemean_howard_cpu", rc, err.msg);
                ok = 0;
                continue;
            }
            int same = fsame(c.best, r.best);
            for (uint64_t k = 0; same && k < g->scc.n_sccs; k++)
                same = fsame(c.per_scc[k], r.per_scc[k]);
            if (!same) {
                fail_once(what, seed, "%s (%s) differs from the GPU: %" PRId64 "/%" PRId64
                          " vs %" PRId64 "/%" PRId64,
                          twin ? "cyclemean_karp_cpu" : "cyclemean_howard_cpu",
                          maximize ? "max" : "min", c.best.num, c.best.den, r.best.num,
                          r.best.den);
                ok = 0;
            }
            res_free(&c);
        }
#endif
        res_free(&r);
    }
    free(ref);
    free(ref2);
    return ok;
}

/* ---- random graphs ---- */

static int64_t rnd_weight(int64_t wmax)
{
    return (int64_t)rnd_below(2 * (uint64_t)wmax + 1) - wmax;
}

/* A random graph of `groups` clusters (dense inside, forward edges between
 * them, a few random edges that may merge clusters), with self-loops and
 * parallel edges. */
static void random_graph(struct tgraph *g, uint64_t n, uint64_t m, int with_t, int64_t wmax,
                         int64_t tmax)
{
    struct edge *e = malloc((m + 1) * sizeof *e);
    uint64_t groups = 1 + rnd_below(n < 4 ? n : 4);
    for (uint64_t i = 0; i < m; i++) {
        uint32_t u = (uint32_t)rnd_below(n), v;
        uint64_t kind = rnd_below(100);
        uint64_t gu = u * groups / n;
        if (kind < 8) {
            v = u; /* self-loop */
        } else if (kind < 15 && i > 0) {
            e[i] = e[rnd_below(i)]; /* parallel edge, new weight */
            e[i].w = rnd_weight(wmax);
            e[i].t = 1 + (int64_t)rnd_below((uint64_t)tmax);
            continue;
        } else if (kind < 85) {
            /* inside u's cluster */
            uint64_t lo = (gu * n + groups - 1) / groups, hi = ((gu + 1) * n + groups - 1) / groups;
            if (hi <= lo)
                hi = lo + 1;
            v = (uint32_t)(lo + rnd_below(hi - lo));
            if (v >= n)
                v = (uint32_t)(n - 1);
        } else if (kind < 97) {
            /* forward: to a later vertex */
            v = (uint32_t)(u + rnd_below(n - u));
        } else {
            v = (uint32_t)rnd_below(n);
        }
        e[i].u = u, e[i].v = v;
        e[i].w = rnd_weight(wmax);
        e[i].t = 1 + (int64_t)rnd_below((uint64_t)tmax);
    }
    tg_build(g, n, e, m, with_t);
    free(e);
}

static int64_t pick_wmax(void)
{
    static const int64_t ws[] = {1, 2, 5, 10, 100, 100000, 2147483647};
    uint64_t i = rnd_below(100);
    return i < 5 ? ws[6] : ws[rnd_below(6)];
}

static void random_tests(uint64_t seed)
{
    const int n_small = quick ? 12 : 400, n_medium = quick ? 3 : 130;
    int ok_small = 0, ok_ratio = 0, ok_medium = 0;
    for (int i = 0; i < n_small; i++) {
        uint64_t s = seed * 1000003ull + (uint64_t)i;
        rng_state = s * 0x9E3779B97F4A7C15ull + 1;
        uint64_t n = 1 + rnd_below(9);
        uint64_t m = rnd_below(2 * n + 6);
        int with_t = (i % 3) == 2;
        struct tgraph g;
        random_graph(&g, n, m, with_t, pick_wmax(), with_t ? 1 + (int64_t)rnd_below(9) : 1);
        int ok = run_case(with_t ? "random small ratio" : "random small mean", s, &g, 1, !with_t);
        if (with_t)
            ok_ratio += ok;
        else
            ok_small += ok;
        tg_free(&g);
    }
    int n_ratio = 0;
    for (int i = 0; i < n_small; i++)
        n_ratio += (i % 3) == 2;
    check(ok_small == n_small - n_ratio, "random small graphs, cycle mean, min and max, GPU == "
          "brute force == Karp: %d/%d (seed %" PRIu64 ")", ok_small, n_small - n_ratio, seed);
    check(ok_ratio == n_ratio, "random small graphs, cycle ratio with transit times, GPU == "
          "brute force: %d/%d (seed %" PRIu64 ")", ok_ratio, n_ratio, seed);
    for (int i = 0; i < n_medium; i++) {
        uint64_t s = seed * 1000003ull + 500000ull + (uint64_t)i;
        rng_state = s * 0x9E3779B97F4A7C15ull + 1;
        uint64_t n = 10 + rnd_below(i % 10 == 9 ? 1500 : 200);
        uint64_t m = n + rnd_below(3 * n);
        struct tgraph g;
        random_graph(&g, n, m, 0, pick_wmax(), 1);
        ok_medium += run_case("random medium mean", s, &g, 0, 1);
        tg_free(&g);
    }
    check(ok_medium == n_medium, "random graphs of 10..1500 vertices, cycle mean, min and max, "
          "GPU == Karp: %d/%d (seed %" PRIu64 ")", ok_medium, n_medium, seed);
}

/* A Hamiltonian cycle plus random chords: one big SCC, deep policy trees,
 * long policy cycles (many pointer-jumping rounds). */
static void ham_tests(uint64_t seed)
{
    const int count = quick ? 1 : 4;
    int ok = 0;
    for (int i = 0; i < count; i++) {
        uint64_t s = seed * 7919ull + (uint64_t)i;
        rng_state = s * 0x9E3779B97F4A7C15ull + 1;
        uint64_t n = quick ? 300 : 1000 + rnd_below(2000), chords = n + rnd_below(2 * n);
        struct edge *e = malloc((n + chords) * sizeof *e);
        int64_t wmax = i == 0 ? 2147483647 : 1000;
        for (uint64_t v = 0; v < n; v++)
            e[v] = (struct edge){(uint32_t)v, (uint32_t)((v + 1) % n), rnd_weight(wmax), 1};
        for (uint64_t j = 0; j < chords; j++)
            e[n + j] = (struct edge){(uint32_t)rnd_below(n), (uint32_t)rnd_below(n),
                                     rnd_weight(wmax), 1};
        struct tgraph g;
        tg_build(&g, n, e, n + chords, 0);
        free(e);
        ok += run_case("hamiltonian cycle + chords", s, &g, 0, 1);
        tg_free(&g);
    }
    check(ok == count, "Hamiltonian cycle plus chords, GPU == Karp: %d/%d (seed %" PRIu64 ")", ok,
          count, seed);
}

/* ---- hand cases ---- */

static void build_edges(struct tgraph *g, uint64_t n, const struct edge *src, uint64_t m,
                        int with_t)
{
    struct edge *e = malloc((m + 1) * sizeof *e);
    memcpy(e, src, m * sizeof *e);
    tg_build(g, n, e, m, with_t);
    free(e);
}

static void expect(const char *name, const struct tgraph *g, int maximize, int has, int64_t num,
                   int64_t den)
{
    const struct cm_graph cg = tg_view(g);
    struct cm_result r;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = cyclemean_howard_gpu(&cg, &g->scc, maximize, &r, &err);
    if (!check(rc == WX_OK, "%s (%s): returns WX_OK (%d: %s)", name, maximize ? "max" : "min", rc,
               err.msg))
        return;
    check(r.best.has_cycle == has && (!has || (r.best.num == num && r.best.den == den)),
          "%s (%s): expected %s%" PRId64 "/%" PRId64 ", found %s%" PRId64 "/%" PRId64, name,
          maximize ? "max" : "min", has ? "" : "no cycle ", num, den,
          r.best.has_cycle ? "" : "no cycle ", r.best.num, r.best.den);
    struct cm_value *ref = calloc(g->scc.n_sccs + 1, sizeof *ref);
    ref_brute(g, maximize, ref);
    check(verify(name, 0, g, maximize, &r, ref), "%s (%s): per component and critical cycle",
          name, maximize ? "max" : "min");
    free(ref);
    res_free(&r);
}

static void expect_error(const char *name, const struct tgraph *g, int want)
{
    const struct cm_graph cg = tg_view(g);
    struct cm_result r;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = cyclemean_howard_gpu(&cg, &g->scc, 0, &r, &err);
    check(rc == want && err.msg[0], "%s: error %d expected, found %d (%s)", name, want, rc,
          err.msg);
    if (rc == WX_OK)
        res_free(&r);
}

static void hand_tests(void)
{
    struct tgraph g;
    const int64_t B = 2147483647;

    build_edges(&g, 1, (struct edge[]){{0, 0, 5, 1}}, 1, 0);
    expect("one self-loop", &g, 0, 1, 5, 1);
    expect("one self-loop", &g, 1, 1, 5, 1);
    tg_free(&g);

    build_edges(&g, 2, (struct edge[]){{0, 1, 1, 1}, {1, 0, 2, 1}, {0, 0, -1, 1}}, 3, 0);
    expect("two-cycle and a loop", &g, 0, 1, -1, 1);
    expect("two-cycle and a loop", &g, 1, 1, 3, 2);
    tg_free(&g);

    /* parallel edges: the cycle through the cheaper copy */
    build_edges(&g, 2, (struct edge[]){{0, 1, 7, 1}, {0, 1, -3, 1}, {1, 0, 0, 1}}, 3, 0);
    expect("parallel edges", &g, 0, 1, -3, 2);
    expect("parallel edges", &g, 1, 1, 7, 2);
    tg_free(&g);

    /* ratio: triangle 6/6 = 1, loop 3/2, two-cycle (0,1): (3 + 4) / (2 + 5) = 1 */
    build_edges(&g, 3,
                (struct edge[]){{0, 1, 3, 2}, {1, 2, 1, 1}, {2, 0, 2, 3}, {0, 0, 3, 2}, {1, 0, 4, 5}},
                5, 1);
    expect("transit times", &g, 0, 1, 1, 1);
    expect("transit times", &g, 1, 1, 3, 2);
    tg_free(&g);

    /* two components: A = {0,1} mean 2, B = {2,3} mean -1, A -> B ignored */
    build_edges(&g, 4,
                (struct edge[]){{0, 1, 1, 1}, {1, 0, 3, 1}, {1, 2, -100, 1}, {2, 3, -2, 1},
                                {3, 2, 0, 1}},
                5, 0);
    expect("two components", &g, 0, 1, -1, 1);
    expect("two components", &g, 1, 1, 2, 1);
    tg_free(&g);

    build_edges(&g, 4, (struct edge[]){{0, 1, 1, 1}, {1, 2, 1, 1}, {0, 3, -5, 1}}, 3, 0);
    expect("acyclic", &g, 0, 0, 0, 1);
    expect("acyclic", &g, 1, 0, 0, 1);
    tg_free(&g);

    build_edges(&g, 0, NULL, 0, 0);
    expect("empty graph", &g, 0, 0, 0, 1);
    tg_free(&g);

    /* extreme weights: a cycle of 3 edges of -(2^31 - 1) and a loop of 2^31 - 1 */
    build_edges(&g, 3, (struct edge[]){{0, 1, -B, 1}, {1, 2, -B, 1}, {2, 0, -B, 1}, {1, 1, B, 1},
                                       {2, 1, B, 1}},
                5, 0);
    expect("extreme weights", &g, 0, 1, -B, 1);
    expect("extreme weights", &g, 1, 1, B, 1);
    tg_free(&g);

    /* weights out of range off any cycle are ignored, on a cycle refused */
    build_edges(&g, 2, (struct edge[]){{0, 0, 1, 1}, {0, 1, (int64_t)1 << 40, 1}}, 2, 0);
    expect("huge weight off the cycles", &g, 0, 1, 1, 1);
    tg_free(&g);
    build_edges(&g, 2, (struct edge[]){{0, 1, (int64_t)1 << 31, 1}, {1, 0, 0, 1}}, 2, 0);
    expect_error("weight 2^31 on a cycle", &g, WX_EINPUT);
    tg_free(&g);
    build_edges(&g, 2, (struct edge[]){{0, 1, 1, 0}, {1, 0, 0, 1}}, 2, 1);
    expect_error("transit time 0 on a cycle", &g, WX_EINPUT);
    tg_free(&g);

    /* the SCC result must belong to the graph */
    build_edges(&g, 2, (struct edge[]){{0, 1, 1, 1}, {1, 0, 0, 1}}, 2, 0);
    g.scc.n_vertices = 3;
    expect_error("mismatched SCC result", &g, WX_EINPUT);
    g.scc.n_vertices = 2;
    tg_free(&g);
}

int main(int argc, char **argv)
{
    seed0 = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--probe"))
            return cyclemean_gpu_available() ? 0 : 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed0 = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: %s [--quick] [--seed N] [--probe]\n", argv[0]);
            return 2;
        }
    }
    printf("test_gpu_cyclemean: seed %" PRIu64 "%s%s\n", seed0, quick ? " (quick)" : "",
#ifdef HAVE_CYCLEMEAN_CPU
           ", with the CPU twins"
#else
           ", GPU against the test's references only"
#endif
    );
    if (!check(cyclemean_gpu_available(), "a GPU is usable"))
        return check_exit();
    hand_tests();
    random_tests(seed0);
    ham_tests(seed0);
    printf("%d passed, %d failed\n", check_passes, check_failures);
    return check_exit();
}
