/*
 * test_cyclemean.c -- the exact cycle-mean / cycle-ratio cores
 * (analysis/cyclemean.h): CPU Howard against CPU Karp on random graphs, both
 * against a brute-force enumeration of simple cycles on tiny graphs, the
 * critical cycle checked as a real cycle of the graph whose exact ratio is the
 * optimum, hand cases with known answers, and the arithmetic limits.
 *
 * Random graphs: several SCCs, self-loops, parallel edges, single-vertex
 * cycles, weights of both signs (some near the 2^31 limit), transit times
 * for the ratio.  Every graph prints its seed on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cyclemean.h"
#include "analysis/scc.h"
#include "check.h"
#include "rng.h"

enum { MAXN = 1024, MAXM = 2048 };

struct tg {
    uint64_t n, m;
    uint64_t offsets[MAXN + 1];
    uint32_t targets[MAXM], src[MAXM];
    int64_t w[MAXM], t[MAXM];
    int has_t;
};

/* Edges given in any order as (u, v, w, t) are bucketed by source, keeping
 * their relative order (parallel edges stay distinct). */
static void tg_build(struct tg *g, uint64_t n, uint64_t m, const uint32_t *u, const uint32_t *v,
                     const int64_t *w, const int64_t *t)
{
    memset(g, 0, sizeof *g);
    g->n = n, g->m = m, g->has_t = t != NULL;
    for (uint64_t e = 0; e < m; e++)
        g->offsets[u[e] + 1]++;
    for (uint64_t x = 0; x < n; x++)
        g->offsets[x + 1] += g->offsets[x];
    static uint64_t fill[MAXN + 1];
    memcpy(fill, g->offsets, sizeof fill);
    for (uint64_t e = 0; e < m; e++) {
        uint64_t at = fill[u[e]]++;
        g->targets[at] = v[e], g->src[at] = u[e], g->w[at] = w[e], g->t[at] = t ? t[e] : 1;
    }
}

static struct cm_graph tg_view(const struct tg *g)
{
    struct cm_graph c = {g->n, g->m, g->offsets, g->targets, g->w, g->has_t ? g->t : NULL};
    return c;
}

static int tg_scc(const struct tg *g, struct scc_result *s)
{
    struct csr c = {.n_vertices = g->n, .n_edges = g->m, .offsets = (uint64_t *)g->offsets,
                    .targets = (uint32_t *)g->targets};
    struct wx_error err;
    return scc_cpu(&c, s, &err);
}

/* ---- brute force: every simple cycle, per SCC, exact ------------------- */

struct brute {
    const struct tg *g;
    const uint32_t *comp;
    int maximize;
    int *has;
    int64_t *bp, *bq;      /* per SCC */
    uint8_t on[64];
    uint32_t start;
};

static int better(int maximize, int64_t p1, int64_t q1, int64_t p2, int64_t q2)
{
    __int128 a = (__int128)p1 * q2, b = (__int128)p2 * q1;
    return maximize ? a > b : a < b;
}

static void brute_dfs(struct brute *b, uint32_t v, int64_t W, int64_t T)
{
    const struct tg *g = b->g;
    for (uint64_t e = g->offsets[v]; e < g->offsets[v + 1]; e++) {
        uint32_t x = g->targets[e];
        int64_t W2 = W + g->w[e], T2 = T + g->t[e];
        if (x == b->start) {
            uint32_t k = b->comp[x];
            if (!b->has[k] || better(b->maximize, W2, T2, b->bp[k], b->bq[k]))
                b->has[k] = 1, b->bp[k] = W2, b->bq[k] = T2;
        } else if (x > b->start && !b->on[x]) {
            b->on[x] = 1;
            brute_dfs(b, x, W2, T2);
            b->on[x] = 0;
        }
    }
}

static int64_t gcd(int64_t a, int64_t b)
{
    if (a < 0)
        a = -a;
    while (b) {
        int64_t r = a % b;
        a = b, b = r;
    }
    return a;
}

/* ---- checks of one result ----------------------------------------------- */

/* The cycle is a closed walk through edges of the graph, simple, inside
 * best_scc, with ratio exactly best. */
static int cycle_ok(const struct tg *g, const struct scc_result *s, const struct cm_result *r,
                    char *why, size_t wl)
{
    if (!r->best.has_cycle)
        return r->cycle_len == 0 || (snprintf(why, wl, "cycle without optimum"), 0);
    if (r->cycle_len == 0 || !r->cycle || !r->cycle_edges)
        return snprintf(why, wl, "no cycle"), 0;
    __int128 W = 0, T = 0;
    static uint8_t seen[MAXN];
    memset(seen, 0, sizeof seen);
    for (uint64_t i = 0; i < r->cycle_len; i++) {
        uint64_t e = r->cycle_edges[i];
        if (e >= g->m)
            return snprintf(why, wl, "edge %llu out of range", (unsigned long long)e), 0;
        if (g->src[e] != r->cycle[i] || g->targets[e] != r->cycle[(i + 1) % r->cycle_len])
            return snprintf(why, wl, "edge %llu is %u->%u, cycle says %u->%u",
                            (unsigned long long)e, g->src[e], g->targets[e], r->cycle[i],
                            r->cycle[(i + 1) % r->cycle_len]), 0;
        if (seen[r->cycle[i]]++)
            return snprintf(why, wl, "vertex %u repeats", r->cycle[i]), 0;
        if (s->comp[r->cycle[i]] != r->best_scc)
            return snprintf(why, wl, "vertex %u outside best_scc", r->cycle[i]), 0;
        W += g->w[e], T += g->t[e];
    }
    if (W * r->best.den != T * r->best.num)
        return snprintf(why, wl, "cycle ratio %lld/%lld != best %lld/%lld", (long long)W,
                        (long long)T, (long long)r->best.num, (long long)r->best.den), 0;
    return 1;
}

static int same_value(struct cm_value a, struct cm_value b)
{
    return a.has_cycle == b.has_cycle && (!a.has_cycle || (a.num == b.num && a.den == b.den));
}

/* Howard vs Karp (vs brute when tiny) on one graph; returns 1 when all agree. */
static int compare_all(const struct tg *g, int maximize, int brute, uint64_t seed)
{
    struct scc_result s;
    if (tg_scc(g, &s) != WX_OK)
        return check(0, "scc seed %llu", (unsigned long long)seed);
    struct cm_graph c = tg_view(g);
    struct cm_result h, k;
    struct wx_error e1, e2;
    int rh = cyclemean_howard_cpu(&c, &s, maximize, &h, &e1);
    int rk = cyclemean_karp_cpu(&c, &s, maximize, &k, &e2);
    int ok = 1;
    char why[256] = "";
    if (rh != WX_OK || rk != WX_OK) {
        snprintf(why, sizeof why, "howard rc %d (%.100s), karp rc %d (%.100s)", rh, e1.msg, rk,
                 e2.msg);
        ok = 0;
    }
    if (ok && (!same_value(h.best, k.best) || h.best_scc != k.best_scc))
        snprintf(why, sizeof why, "best: howard %lld/%lld (scc %u), karp %lld/%lld (scc %u)",
                 (long long)h.best.num, (long long)h.best.den, h.best_scc,
                 (long long)k.best.num, (long long)k.best.den, k.best_scc), ok = 0;
    for (uint64_t x = 0; ok && x < s.n_sccs; x++)
        if (!same_value(h.per_scc[x], k.per_scc[x]))
            snprintf(why, sizeof why, "scc %llu: howard %lld/%lld karp %lld/%lld",
                     (unsigned long long)x, (long long)h.per_scc[x].num,
                     (long long)h.per_scc[x].den, (long long)k.per_scc[x].num,
                     (long long)k.per_scc[x].den), ok = 0;
    if (ok && !cycle_ok(g, &s, &h, why, sizeof why))
        ok = 0, strcat(why, " (howard)");
    if (ok && !cycle_ok(g, &s, &k, why, sizeof why))
        ok = 0, strcat(why, " (karp)");
    for (uint64_t x = 0; ok && x < s.n_sccs; x++) {
        struct cm_value v = h.per_scc[x];
        if (v.has_cycle && (v.den <= 0 || gcd(v.num, v.den) != 1))
            snprintf(why, sizeof why, "scc %llu: %lld/%lld not reduced", (unsigned long long)x,
                     (long long)v.num, (long long)v.den), ok = 0;
    }
    if (ok && brute) {
        int has[64] = {0};
        int64_t bp[64], bq[64];
        struct brute b = {.g = g, .comp = s.comp, .maximize = maximize, .has = has, .bp = bp,
                          .bq = bq};
        for (uint32_t st = 0; st < g->n; st++) {
            b.start = st;
            b.on[st] = 1;
            brute_dfs(&b, st, 0, 0);
            b.on[st] = 0;
        }
        for (uint64_t x = 0; ok && x < s.n_sccs; x++) {
            if (has[x] != h.per_scc[x].has_cycle)
                snprintf(why, sizeof why, "scc %llu: brute has_cycle %d, howard %d",
                         (unsigned long long)x, has[x], h.per_scc[x].has_cycle), ok = 0;
            else if (has[x] && (__int128)bp[x] * h.per_scc[x].den !=
                                   (__int128)bq[x] * h.per_scc[x].num)
                snprintf(why, sizeof why, "scc %llu: brute %lld/%lld, howard %lld/%lld",
                         (unsigned long long)x, (long long)bp[x], (long long)bq[x],
                         (long long)h.per_scc[x].num, (long long)h.per_scc[x].den), ok = 0;
        }
    }
    if (!ok)
        check(0, "random graph seed %llu (n %llu, m %llu, %s%s): %s", (unsigned long long)seed,
              (unsigned long long)g->n, (unsigned long long)g->m, maximize ? "max" : "min",
              g->has_t ? ", ratio" : "", why);
    cm_result_free(&h);
    cm_result_free(&k);
    scc_result_free(&s);
    return ok;
}

/* A random graph: n vertices in a few planted groups (dense inside, sparse
 * forward across, so several SCCs), self-loops, parallel edges. */
static void random_graph(struct tg *g, uint64_t seed, uint64_t nmax, uint64_t mmax, int ratio,
                         int big)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    uint64_t n = 1 + rnd_below(nmax), m = rnd_below(mmax + 1);
    uint32_t u[1024], v[1024];
    int64_t w[1024], t[1024];
    uint64_t groups = 1 + rnd_below(3);
    for (uint64_t e = 0; e < m; e++) {
        u[e] = (uint32_t)rnd_below(n);
        uint64_t r = rnd_below(10);
        if (r == 0)
            v[e] = u[e];                                  /* self-loop */
        else if (r == 1 && e > 0)
            u[e] = u[e - 1], v[e] = v[e - 1];             /* parallel edge */
        else if (r < 8) {                                  /* inside the group */
            uint64_t gsz = (n + groups - 1) / groups, g0 = u[e] / gsz * gsz;
            uint64_t hi = g0 + gsz < n ? g0 + gsz : n;
            v[e] = (uint32_t)(g0 + rnd_below(hi - g0));
        } else                                             /* forward */
            v[e] = (uint32_t)(u[e] + rnd_below(n - u[e]));
        int64_t range = big && rnd_below(3) == 0 ? 2147483647 : 20;
        w[e] = (int64_t)rnd_below(2 * (uint64_t)range + 1) - range;
        t[e] = 1 + (int64_t)rnd_below(4); /* small: Karp expands them */
    }
    tg_build(g, n, m, u, v, w, ratio ? t : NULL);
}

static void test_random(void)
{
    static struct tg g;
    int pass = 0, total = 0;
    /* tiny: Howard == Karp == brute force */
    for (uint64_t seed = 1; seed <= 400; seed++) {
        int ratio = seed % 4 == 0, big = seed % 7 == 0;
        random_graph(&g, seed, 7, 14, ratio, big);
        for (int mx = 0; mx < 2; mx++)
            pass += compare_all(&g, mx, 1, seed), total++;
    }
    /* medium: Howard == Karp */
    for (uint64_t seed = 1001; seed <= 1160; seed++) {
        int ratio = seed % 3 == 0;
        random_graph(&g, seed, 60, 400, ratio, seed % 5 == 0);
        for (int mx = 0; mx < 2; mx++)
            pass += compare_all(&g, mx, 0, seed), total++;
    }
    check(pass == total, "random graphs: %d of %d (min and max, mean and ratio) agree: Howard "
          "== Karp == brute force (tiny), critical cycles real and exact", pass, total);
}

/* ---- hand cases ---------------------------------------------------------- */

struct hand {
    const char *name;
    uint64_t n, m;
    uint32_t u[8], v[8];
    int64_t w[8], t[8];
    int ratio;
    int min_has;
    int64_t min_num, min_den, max_num, max_den;
    uint64_t min_len;   /* expected critical cycle length for min (0: don't check) */
};

static const struct hand hands[] = {
    {"self-loop", 1, 1, {0}, {0}, {5}, {1}, 0, 1, 5, 1, 5, 1, 1},
    {"triangle + negative loop", 3, 4, {0, 1, 2, 0}, {1, 2, 0, 0}, {1, 2, 3, -1}, {1, 1, 1, 1},
     0, 1, -1, 1, 2, 1, 1},
    {"acyclic", 3, 2, {0, 1}, {1, 2}, {4, 4}, {1, 1}, 0, 0, 0, 0, 0, 0, 0},
    {"two SCCs", 3, 4, {0, 1, 2, 1}, {1, 0, 2, 2}, {1, 2, 1, -50}, {1, 1, 1, 1}, 0, 1, 1, 1, 3,
     2, 1},
    {"ratio", 2, 3, {0, 1, 0}, {1, 0, 0}, {3, 1, 5}, {2, 2, 4}, 1, 1, 1, 1, 5, 4, 2},
    {"parallel edges", 2, 3, {0, 0, 1}, {1, 1, 0}, {1, 7, 0}, {1, 1, 1}, 0, 1, 1, 2, 7, 2, 2},
    {"negative mean -7/3", 3, 3, {0, 1, 2}, {1, 2, 0}, {-1, -2, -4}, {1, 1, 1}, 0, 1, -7, 3,
     -7, 3, 3},
    {"limits", 2, 2, {0, 1}, {1, 0}, {2147483647, 2147483647}, {1, 1}, 0, 1,
     2147483647, 1, 2147483647, 1, 2},
    {"limits, negative", 2, 3, {0, 1, 1}, {1, 0, 0}, {-2147483647, -2147483647, 2147483647},
     {1, 1, 1}, 0, 1, -2147483647, 1, 0, 1, 2},
    {"empty", 0, 0, {0}, {0}, {0}, {0}, 0, 0, 0, 0, 0, 0, 0},
};

static void test_hand(void)
{
    for (size_t i = 0; i < sizeof hands / sizeof hands[0]; i++) {
        const struct hand *hc = &hands[i];
        struct tg g;
        tg_build(&g, hc->n, hc->m, hc->u, hc->v, hc->w, hc->ratio ? hc->t : NULL);
        struct scc_result s;
        tg_scc(&g, &s);
        struct cm_graph c = tg_view(&g);
        for (int alg = 0; alg < 2; alg++)
            for (int mx = 0; mx < 2; mx++) {
                struct cm_result r;
                struct wx_error err;
                int rc = (alg ? cyclemean_karp_cpu : cyclemean_howard_cpu)(&c, &s, mx, &r, &err);
                int64_t en = mx ? hc->max_num : hc->min_num, ed = mx ? hc->max_den : hc->min_den;
                char why[256] = "";
                int ok = rc == WX_OK && r.best.has_cycle == hc->min_has &&
                         (!hc->min_has || (r.best.num == en && r.best.den == ed)) &&
                         cycle_ok(&g, &s, &r, why, sizeof why) &&
                         (mx || !hc->min_len || r.cycle_len == hc->min_len);
                check(ok, "hand %s, %s, %s: expected %s%lld/%lld, found rc %d %s%lld/%lld "
                      "(cycle %llu edges) %s", hc->name, alg ? "karp" : "howard",
                      mx ? "max" : "min", hc->min_has ? "" : "no cycle ", (long long)en,
                      (long long)ed, rc, r.best.has_cycle ? "" : "no cycle ",
                      (long long)r.best.num, (long long)r.best.den,
                      (unsigned long long)r.cycle_len, why);
                cm_result_free(&r);
            }
        scc_result_free(&s);
    }
}

/* Out-of-range weights and transit times are refused loudly; Karp refuses an
 * expansion it cannot afford. */
static void test_limits(void)
{
    struct tg g;
    uint32_t u[2] = {0, 1}, v[2] = {1, 0};
    struct {
        const char *name;
        int64_t w0, t0;
        int rc_howard, rc_karp;
    } cases[] = {
        {"weight 2^31", 2147483648LL, 1, WX_ELIMIT, WX_ELIMIT},
        {"weight -2^31", -2147483648LL, 1, WX_ELIMIT, WX_ELIMIT},
        {"transit 0", 1, 0, WX_EINPUT, WX_EINPUT},
        {"transit 2^31", 1, 2147483648LL, WX_ELIMIT, WX_ELIMIT},
        {"transit 2^31-1 (Karp too big)", 1, 2147483647LL, WX_OK, WX_ELIMIT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t w[2] = {cases[i].w0, 3}, t[2] = {cases[i].t0, 1};
        tg_build(&g, 2, 2, u, v, w, t);
        struct scc_result s;
        tg_scc(&g, &s);
        struct cm_graph c = tg_view(&g);
        struct cm_result r;
        struct wx_error err;
        int rh = cyclemean_howard_cpu(&c, &s, 0, &r, &err);
        cm_result_free(&r);
        int rk = cyclemean_karp_cpu(&c, &s, 0, &r, &err);
        check(rh == cases[i].rc_howard && rk == cases[i].rc_karp && (rk == WX_OK || err.msg[0]),
              "limit %s: howard rc %d (want %d), karp rc %d (want %d): %s", cases[i].name, rh,
              cases[i].rc_howard, rk, cases[i].rc_karp, err.msg);
        cm_result_free(&r);
        scc_result_free(&s);
    }
}

/* A long cycle of maximal weights: the exact sums need more than 64 bits in
 * Howard's scaled values but are still exact. */
static void test_long_heavy(void)
{
    enum { N = 600 };
    static struct tg g;
    uint32_t u[1024], v[1024];
    int64_t w[1024], t[1024];
    uint64_t m = 0;
    for (uint32_t i = 0; i < N; i++) {
        u[m] = i, v[m] = (i + 1) % N, w[m] = i % 2 ? 2147483647 : -2147483647 + 1,
        t[m] = 2147483647 - i, m++;
        if (i % 3 == 0)
            u[m] = i, v[m] = (i * 7 + 1) % N, w[m] = 2147483647 - i, t[m] = 1 + i, m++;
    }
    tg_build(&g, N, m, u, v, w, t);
    for (int mx = 0; mx < 2; mx++) {
        struct scc_result s;
        tg_scc(&g, &s);
        struct cm_graph c = tg_view(&g);
        struct cm_result r;
        struct wx_error err;
        int rc = cyclemean_howard_cpu(&c, &s, mx, &r, &err);
        char why[256] = "";
        check(rc == WX_OK && cycle_ok(&g, &s, &r, why, sizeof why),
              "heavy ratio graph (%s): rc %d %s, %lld/%lld %s", mx ? "max" : "min", rc, err.msg,
              (long long)r.best.num, (long long)r.best.den, why);
        cm_result_free(&r);
        scc_result_free(&s);
    }
}

int main(void)
{
    test_hand();
    test_limits();
    test_long_heavy();
    test_random();
    return check_exit();
}
