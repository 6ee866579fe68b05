/*
 * cyclemean.c -- exact minimum / maximum cycle mean and cycle ratio on the
 * CPU: Howard's policy iteration and Karp's algorithm (contract in
 * cyclemean.h).
 *
 * Both solve the MINIMUM problem; the maximum is the minimum of the negated
 * weights (|w| <= 2^31 - 1, so negation is exact), negated back.
 *
 * HOWARD, EXACT THROUGHOUT.  A policy picks one out-edge pi(v) inside v's
 * component for every vertex; its graph is functional, so every vertex leads
 * to exactly one policy cycle C, whose ratio lambda_C = W_C / T_C we keep as
 * a reduced fraction p/q.  Vertex values x(v) are defined by
 *     x(v) = w(pi v) - lambda t(pi v) + x(succ v),  x(ref) = given on C,
 * and we store X(v) = q * x(v), which is an integer (a sum of q w - p t
 * terms) in __int128: |q w - p t| < 2^95, and a path has < 2^32 edges, so
 * the sums stay below 2^127; every addition is checked all the same.  No
 * tolerances, no rounding: comparisons of ratios are cross-multiplications in
 * __int128 (|p|, q < 2^63).  Improvement is Howard's two-phase rule (switch
 * to a successor on a cycle of smaller ratio, else, among successors of the
 * same ratio, to a strictly smaller value).  A cycle the improvement step
 * did not touch keeps its previous reference value (Cochet-Terrasson et al.'s
 * condition for termination); a new cycle created in the value phase has a
 * strictly smaller ratio, so (ratio, value) decreases lexicographically and
 * the iteration terminates.  A round cap turns a bug into a loud error.
 *
 * CERTIFICATE.  At the fixed point of a strongly connected component every
 * vertex has the same ratio p/q (else some edge would lower one), and every
 * edge satisfies q w - p t + X(v) - X(u) >= 0; summed around any cycle this
 * gives W/T >= p/q, while the policy cycle attains p/q.  We re-check exactly
 * this inequality on every edge before reporting (an internal error if it
 * ever failed), so the answer is proven optimal, not just converged.
 *
 * KARP.  Walk weights D_k(v) from one source for k = 0..N (int64: |D| <=
 * N 2^31), then lambda = min_v max_k (D_N(v) - D_k(v)) / (N - k), compared
 * exactly.  Two passes (the first only finds D_N) so memory is O(N), time
 * O(N M).  Transit times are handled by expanding an edge of transit t into a
 * chain of t unit edges (weight w, then zeros), so the mean of the expanded
 * graph is the ratio -- fine for small graphs; larger expansions are refused
 * (WX_ELIMIT).  The critical cycle is found independently of Howard: with
 * the optimum p/q known, reduced costs c(e) = q w - p t have no negative
 * cycle, Bellman-Ford gives potentials, and any cycle of tight edges
 * (d(u) + c = d(v)) has reduced cost 0, i.e. ratio p/q.
 */
#include <stdlib.h>
#include <string.h>

#include "cyclemean.h"

typedef __int128 i128;

#define WMAX 2147483647LL          /* |w| and t limits of the contract */
#define HOWARD_MAX_ROUNDS 100000000ull
#define PREFETCH_AHEAD 16            /* edges; a random record is ~100 ns away */
#define KARP_MAX_WORK 4000000000ull /* (N + 1) * M of the expanded graph */

/* ---- shared set-up ---------------------------------------------------- */

/* The SCCs' vertex lists (counting sort by component) and whether each has
 * an intra-component edge, i.e. a cycle. */
struct cm_work {
    const struct cm_graph *g;
    const uint32_t *comp;
    uint64_t n_sccs;
    uint64_t *start;   /* n_sccs + 1 */
    uint32_t *verts;   /* n vertices grouped by component */
    uint8_t *cyclic;   /* n_sccs */
    int sign;          /* +1 minimise, -1 maximise (weights negated) */
};

static void work_free(struct cm_work *w)
{
    free(w->start);
    free(w->verts);
    free(w->cyclic);
}

static int64_t cost_of(const struct cm_work *w, uint64_t e)
{
    return w->sign * w->g->weights[e];
}

static int64_t transit_of(const struct cm_work *w, uint64_t e)
{
    return w->g->transit ? w->g->transit[e] : 1;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    if (a < 0)
        a = -a;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Validates the graph against the contract's limits and groups vertices. */
static int work_init(struct cm_work *w, const struct cm_graph *g, const struct scc_result *scc,
                     int maximize, struct cm_result *out, struct wx_error *err)
{
    memset(w, 0, sizeof *w);
    memset(out, 0, sizeof *out);
    w->g = g;
    w->sign = maximize ? -1 : 1;
    const uint64_t n = g->n_vertices, m = g->n_edges;
    if (n >= UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "%llu vertices: the limit is 2^32 - 2",
                       (unsigned long long)n);
    if (scc->n_vertices != n)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                       "internal: SCC result for %llu vertices, graph has %llu",
                       (unsigned long long)scc->n_vertices, (unsigned long long)n);
    if (n && g->offsets[n] != m)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal: offsets[n] != n_edges");
    for (uint64_t e = 0; e < m; e++) {
        if (g->targets[e] >= n)
            return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal: edge %llu targets vertex %u",
                           (unsigned long long)e, g->targets[e]);
        if (g->weights[e] > WMAX || g->weights[e] < -WMAX)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                           "edge %llu has weight %lld: cycle means take |w| <= 2^31 - 1 "
                           "(after decimal scaling)",
                           (unsigned long long)e, (long long)g->weights[e]);
        if (g->transit && (g->transit[e] < 1 || g->transit[e] > WMAX))
            return wx_fail(err, g->transit[e] < 1 ? WX_EINPUT : WX_ELIMIT, NULL, 0, 0,
                           "edge %llu has transit time %lld: transit times are 1 .. 2^31 - 1",
                           (unsigned long long)e, (long long)g->transit[e]);
    }
    w->comp = scc->comp;
    w->n_sccs = scc->n_sccs;
    out->n_sccs = scc->n_sccs;
    w->start = calloc(scc->n_sccs + 1, sizeof *w->start);
    w->verts = malloc((n ? n : 1) * sizeof *w->verts);
    w->cyclic = calloc(scc->n_sccs ? scc->n_sccs : 1, 1);
    out->per_scc = calloc(scc->n_sccs ? scc->n_sccs : 1, sizeof *out->per_scc);
    if (!w->start || !w->verts || !w->cyclic || !out->per_scc) {
        work_free(w);
        cm_result_free(out);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory for %llu vertices",
                       (unsigned long long)n);
    }
    out->n_sccs = scc->n_sccs;
    for (uint64_t v = 0; v < n; v++)
        w->start[w->comp[v] + 1]++;
    for (uint64_t k = 0; k < w->n_sccs; k++)
        w->start[k + 1] += w->start[k];
    /* verts: stable placement, so each list is in increasing vertex order */
    uint64_t *fill = malloc((w->n_sccs ? w->n_sccs : 1) * sizeof *fill);
    if (!fill) {
        work_free(w);
        cm_result_free(out);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    }
    memcpy(fill, w->start, w->n_sccs * sizeof *fill);
    for (uint64_t v = 0; v < n; v++) {
        uint32_t k = w->comp[v];
        w->verts[fill[k]++] = (uint32_t)v;
        for (uint64_t e = g->offsets[v]; e < g->offsets[v + 1] && !w->cyclic[k]; e++)
            if (w->comp[g->targets[e]] == k)
                w->cyclic[k] = 1;
    }
    free(fill);
    return WX_OK;
}

/* Compares p1/q1 with p2/q2 (q > 0): -1, 0, 1. */
static int frac_cmp(int64_t p1, int64_t q1, int64_t p2, int64_t q2)
{
    i128 a = (i128)p1 * q2, b = (i128)p2 * q1;
    return a < b ? -1 : a > b;
}

/* Fills out->best, best_scc and the cycle from per-SCC answers (internal,
 * minimised values in lam_p/lam_q) and a cycle start per SCC; the cycle is
 * produced by next_edge(ctx, v) from the start vertex. */
static int finish_result(struct cm_work *w, const int64_t *lam_p, const int64_t *lam_q,
                         uint64_t (*cycle_of)(void *ctx, uint32_t k, uint64_t *edges,
                                              uint64_t cap),
                         void *ctx, struct cm_result *out, struct wx_error *err)
{
    int found = 0;
    uint32_t best = 0;
    for (uint64_t k = 0; k < w->n_sccs; k++) {
        if (!w->cyclic[k])
            continue;
        out->per_scc[k].has_cycle = 1;
        out->per_scc[k].num = w->sign * lam_p[k];
        out->per_scc[k].den = lam_q[k];
        if (!found || frac_cmp(lam_p[k], lam_q[k], lam_p[best], lam_q[best]) < 0)
            best = (uint32_t)k, found = 1;
    }
    if (!found)
        return WX_OK;
    out->best = out->per_scc[best];
    out->best_scc = best;
    uint64_t cap = w->start[best + 1] - w->start[best];
    out->cycle_edges = malloc(cap * sizeof *out->cycle_edges);
    out->cycle = malloc(cap * sizeof *out->cycle);
    if (!out->cycle_edges || !out->cycle)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory for the critical cycle");
    uint64_t len = cycle_of(ctx, best, out->cycle_edges, cap);
    if (len == 0)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal: no critical cycle in SCC %u",
                       best);
    out->cycle_len = len;
    /* vertex i is the source of edge i: the target of edge i-1 */
    for (uint64_t i = 0; i < len; i++) {
        uint64_t prev = out->cycle_edges[(i + len - 1) % len];
        out->cycle[i] = w->g->targets[prev];
    }
    /* the cycle's exact ratio must be the reported optimum (cheap insurance) */
    i128 W = 0, T = 0;
    for (uint64_t i = 0; i < len; i++) {
        W += cost_of(w, out->cycle_edges[i]);
        T += transit_of(w, out->cycle_edges[i]);
    }
    if (W * lam_q[best] != T * lam_p[best])
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                       "internal: the critical cycle's ratio differs from the optimum");
    return WX_OK;
}

void cm_result_free(struct cm_result *r)
{
    if (!r)
        return;
    free(r->cycle);
    free(r->cycle_edges);
    free(r->per_scc);
    memset(r, 0, sizeof *r);
}

/* ---- Howard ------------------------------------------------------------ */

/* What Howard's sweeps read about an edge's target, in one 32-byte record
 * so that a random target costs one cache line, not three. */
struct vrec {
    i128 X;              /* q * value, q the denominator of the cycle's ratio */
    uint32_t cyc;        /* index of the vertex's policy cycle in lp/lq */
    uint32_t comp;       /* the vertex's SCC (copy of scc->comp) */
};

struct howard {
    struct cm_work *w;
    uint64_t *pi;        /* n: the policy's edge */
    struct vrec *rec;    /* n: value, cycle and component per vertex */
    uint8_t *state;      /* n: 0 new, 1 on the walk, 2 evaluated */
    uint8_t *changed;    /* n: policy changed in the last improvement */
    uint32_t *stack;     /* n */
    int64_t *lp, *lq;    /* cycle ratios of the current evaluation (<= n) */
    uint32_t *cyc_start; /* n_sccs: a vertex on a final policy cycle */
};

static int overflow(struct wx_error *err)
{
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                   "a vertex value passed 2^127 in exact arithmetic (weights too large for a "
                   "path this long)");
}

/* X(u) = q c(pi u) - p t(pi u) + X(succ u), checked. */
static int step_value(const struct howard *h, uint32_t u, int64_t p, int64_t q, i128 *out)
{
    uint64_t e = h->pi[u];
    i128 c = (i128)q * cost_of(h->w, e) - (i128)p * transit_of(h->w, e);
    return __builtin_add_overflow(c, h->rec[h->w->g->targets[e]].X, out);
}

/* Evaluates the policy on component k's vertices: cycles, ratios, values.
 * first: no previous values to keep.  Returns the number of cycles or -1 on
 * overflow. */
static int64_t howard_evaluate(struct howard *h, uint64_t k, int first, struct wx_error *err)
{
    const struct cm_work *w = h->w;
    const uint32_t *tg = w->g->targets;
    const uint32_t *V = w->verts + w->start[k];
    const uint64_t s = w->start[k + 1] - w->start[k];
    int64_t ncyc = 0;
    for (uint64_t i = 0; i < s; i++)
        h->state[V[i]] = 0;
    for (uint64_t i = 0; i < s; i++) {
        uint32_t u = V[i];
        uint64_t sp = 0;
        while (h->state[u] == 0) {
            h->state[u] = 1;
            h->stack[sp++] = u;
            u = tg[h->pi[u]];
        }
        if (h->state[u] == 1) { /* a new cycle: stack[j..sp) */
            uint64_t j = sp - 1;
            while (h->stack[j] != u)
                j--;
            i128 W = 0, T = 0;
            int keep = !first;
            for (uint64_t x = j; x < sp; x++) {
                uint32_t v = h->stack[x];
                W += cost_of(w, h->pi[v]);
                T += transit_of(w, h->pi[v]);
                keep &= !h->changed[v];
            }
            /* |W| <= s 2^31 < 2^63, T < 2^63: int64 */
            int64_t g = gcd64((int64_t)W, (int64_t)T);
            int64_t p = (int64_t)W / g, q = (int64_t)T / g;
            h->lp[ncyc] = p;
            h->lq[ncyc] = q;
            if (!keep)
                h->rec[u].X = 0; /* the new cycle's reference: its first vertex met */
            h->rec[u].cyc = (uint32_t)ncyc;
            h->state[u] = 2;
            for (uint64_t x = sp - 1; x > j; x--) {
                uint32_t v = h->stack[x];
                if (step_value(h, v, p, q, &h->rec[v].X))
                    return overflow(err), -1;
                h->rec[v].cyc = (uint32_t)ncyc;
                h->state[v] = 2;
            }
            if (ncyc == 0)
                h->cyc_start[k] = u;
            ncyc++;
            sp = j;
        }
        while (sp > 0) {
            uint32_t v = h->stack[--sp];
            uint32_t c = h->rec[tg[h->pi[v]]].cyc;
            h->rec[v].cyc = c;
            if (step_value(h, v, h->lp[c], h->lq[c], &h->rec[v].X))
                return overflow(err), -1;
            h->state[v] = 2;
        }
    }
    return ncyc;
}

/* One improvement sweep over component k, in one pass over each vertex's
 * edges: the successor of smallest ratio below u's own (first phase), else
 * the successor of u's ratio with the smallest value below u's (second
 * phase).  Returns the number of changes. */
static uint64_t howard_improve(struct howard *h, uint64_t k, int *ovf)
{
    const struct cm_work *w = h->w;
    const struct cm_graph *g = w->g;
    const struct vrec *rec = h->rec;
    const uint32_t *V = w->verts + w->start[k];
    const uint64_t s = w->start[k + 1] - w->start[k];
    uint64_t nchanged = 0;
    for (uint64_t i = 0; i < s; i++) {
        uint32_t u = V[i];
        uint32_t cu = rec[u].cyc;
        const int64_t pu = h->lp[cu], qu = h->lq[cu];
        uint64_t best_lower = UINT64_MAX, best_same = h->pi[u];
        int64_t bp = pu, bq = qu;
        i128 bval = rec[u].X;
        for (uint64_t e = g->offsets[u]; e < g->offsets[u + 1]; e++) {
            /* the sweep reads edges in increasing order (components list
             * vertices in increasing order): fetch targets' records ahead */
            if (PREFETCH_AHEAD && e + PREFETCH_AHEAD < g->n_edges)
                __builtin_prefetch(&rec[g->targets[e + PREFETCH_AHEAD]]);
            const struct vrec *r = &rec[g->targets[e]];
            if (r->comp != k)
                continue;
            uint32_t cv = r->cyc;
            if (cv != cu) {
                /* ratios are reduced fractions: equal iff same p and q */
                int64_t p = h->lp[cv], q = h->lq[cv];
                if (p != pu || q != qu) {
                    if (frac_cmp(p, q, bp, bq) < 0)
                        bp = p, bq = q, best_lower = e;
                    continue;
                }
            }
            if (best_lower != UINT64_MAX)
                continue; /* the first phase has won: values no longer matter */
            i128 val = (i128)qu * cost_of(w, e) - (i128)pu * transit_of(w, e);
            if (__builtin_add_overflow(val, r->X, &val)) {
                *ovf = 1;
                return 0;
            }
            if (val < bval)
                bval = val, best_same = e;
        }
        uint64_t best = best_lower != UINT64_MAX ? best_lower : best_same;
        h->changed[u] = best != h->pi[u];
        nchanged += h->changed[u];
        h->pi[u] = best;
    }
    return nchanged;
}

/* The exact optimality certificate (see the top of the file). */
static int howard_certify(const struct howard *h, uint64_t k)
{
    const struct cm_work *w = h->w;
    const struct cm_graph *g = w->g;
    const uint32_t *V = w->verts + w->start[k];
    const uint64_t s = w->start[k + 1] - w->start[k];
    int64_t p = h->lp[h->rec[V[0]].cyc], q = h->lq[h->rec[V[0]].cyc];
    for (uint64_t i = 0; i < s; i++) {
        uint32_t u = V[i];
        if (h->lp[h->rec[u].cyc] != p || h->lq[h->rec[u].cyc] != q)
            return 0;
        for (uint64_t e = g->offsets[u]; e < g->offsets[u + 1]; e++) {
            uint32_t v = g->targets[e];
            if (h->rec[v].comp != k)
                continue;
            i128 r = (i128)q * cost_of(w, e) - (i128)p * transit_of(w, e), t;
            if (__builtin_add_overflow(r, h->rec[v].X, &t) || t < h->rec[u].X)
                return 0;
        }
    }
    return 1;
}

static uint64_t howard_cycle(void *ctx, uint32_t k, uint64_t *edges, uint64_t cap)
{
    const struct howard *h = ctx;
    uint32_t u = h->cyc_start[k], v = u;
    uint64_t len = 0;
    do {
        if (len == cap)
            return 0;
        edges[len++] = h->pi[v];
        v = h->w->g->targets[h->pi[v]];
    } while (v != u);
    return len;
}

int cyclemean_howard_cpu(const struct cm_graph *g, const struct scc_result *scc, int maximize,
                         struct cm_result *out, struct wx_error *err)
{
    struct cm_work w;
    int rc = work_init(&w, g, scc, maximize, out, err);
    if (rc != WX_OK)
        return rc;
    const uint64_t n = g->n_vertices, ns = w.n_sccs ? w.n_sccs : 1, nn = n ? n : 1;
    struct howard h = {.w = &w};
    h.pi = malloc(nn * sizeof *h.pi);
    h.rec = malloc(nn * sizeof *h.rec);
    h.state = malloc(nn);
    h.changed = calloc(nn, 1);
    h.stack = malloc(nn * sizeof *h.stack);
    h.lp = malloc(nn * sizeof *h.lp);
    h.lq = malloc(nn * sizeof *h.lq);
    h.cyc_start = calloc(ns, sizeof *h.cyc_start);
    int64_t *ans_p = calloc(ns, sizeof *ans_p), *ans_q = calloc(ns, sizeof *ans_q);
    if (!h.pi || !h.rec || !h.state || !h.changed || !h.stack || !h.lp || !h.lq ||
        !h.cyc_start || !ans_p || !ans_q) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory for Howard's work space "
                     "(%llu vertices)", (unsigned long long)n);
        goto done;
    }
    for (uint64_t v = 0; v < n; v++)
        h.rec[v].comp = w.comp[v];
    for (uint64_t k = 0; k < w.n_sccs && rc == WX_OK; k++) {
        if (!w.cyclic[k])
            continue;
        const uint32_t *V = w.verts + w.start[k];
        const uint64_t s = w.start[k + 1] - w.start[k];
        /* initial policy: each vertex's best edge by its own ratio */
        for (uint64_t i = 0; i < s; i++) {
            uint32_t u = V[i];
            uint64_t best = UINT64_MAX;
            for (uint64_t e = g->offsets[u]; e < g->offsets[u + 1]; e++) {
                if (w.comp[g->targets[e]] != k)
                    continue;
                if (best == UINT64_MAX ||
                    frac_cmp(cost_of(&w, e), transit_of(&w, e), cost_of(&w, best),
                             transit_of(&w, best)) < 0)
                    best = e;
            }
            h.pi[u] = best; /* exists: u is in a strongly connected, cyclic component */
        }
        uint64_t rounds = 0;
        for (;;) {
            if (howard_evaluate(&h, k, rounds == 0, err) < 0) {
                rc = WX_ELIMIT;
                break;
            }
            rounds++;
            int ovf = 0;
            uint64_t changed = howard_improve(&h, k, &ovf);
            if (ovf) {
                rc = overflow(err);
                break;
            }
            if (changed == 0)
                break;
            if (rounds >= HOWARD_MAX_ROUNDS) {
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                             "Howard's iteration did not converge in %llu rounds (SCC %llu)",
                             (unsigned long long)rounds, (unsigned long long)k);
                break;
            }
        }
        if (rc != WX_OK)
            break;
        if (!howard_certify(&h, k)) {
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                         "internal: Howard's fixed point fails the optimality certificate "
                         "(SCC %llu)", (unsigned long long)k);
            break;
        }
        /* cyc_start[k] may be a vertex of any final cycle: all have ratio p/q */
        uint32_t c = h.rec[h.cyc_start[k]].cyc;
        ans_p[k] = h.lp[c];
        ans_q[k] = h.lq[c];
        if (rounds > out->iterations)
            out->iterations = rounds;
    }
    if (rc == WX_OK)
        rc = finish_result(&w, ans_p, ans_q, howard_cycle, &h, out, err);
done:
    free(h.pi); free(h.rec); free(h.state); free(h.changed); free(h.stack);
    free(h.lp); free(h.lq); free(h.cyc_start); free(ans_p); free(ans_q);
    work_free(&w);
    if (rc != WX_OK)
        cm_result_free(out);
    return rc;
}

/* ---- Karp -------------------------------------------------------------- */

struct karp {
    struct cm_work *w;
    int64_t *ans_p, *ans_q;
    uint32_t *lid;       /* n: local index of a vertex in its component */
};

/* Karp on component k; fills ans_p[k], ans_q[k]. */
static int karp_scc(struct karp *kp, uint64_t k, struct wx_error *err)
{
    const struct cm_work *w = kp->w;
    const struct cm_graph *g = w->g;
    const uint32_t *V = w->verts + w->start[k];
    const uint64_t s = w->start[k + 1] - w->start[k];
    /* size of the expanded graph */
    uint64_t N = s, M = 0;
    for (uint64_t i = 0; i < s; i++)
        for (uint64_t e = g->offsets[V[i]]; e < g->offsets[V[i] + 1]; e++)
            if (w->comp[g->targets[e]] == k) {
                uint64_t t = (uint64_t)transit_of(w, e);
                N += t - 1;
                M += t;
                if (N > KARP_MAX_WORK || M > KARP_MAX_WORK)
                    goto too_big;
            }
    if ((N + 1) > KARP_MAX_WORK / M) {
too_big:
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "Karp's algorithm is for small graphs: SCC %llu (%llu vertices, "
                       "expanded by transit times to >= %llu vertices and %llu edges) needs "
                       "more than %llu steps; use Howard's algorithm",
                       (unsigned long long)k, (unsigned long long)s, (unsigned long long)N,
                       (unsigned long long)M, (unsigned long long)KARP_MAX_WORK);
    }
    uint32_t *es = malloc(M * sizeof *es), *ed = malloc(M * sizeof *ed);
    int64_t *ew = malloc(M * sizeof *ew);
    int64_t *prev = malloc(N * sizeof *prev), *cur = malloc(N * sizeof *cur),
            *dn = malloc(N * sizeof *dn);
    /* best fraction per vertex: max_k (DN - Dk)/(N - k) */
    int64_t *bp = malloc(N * sizeof *bp), *bq = malloc(N * sizeof *bq);
    int rc = WX_OK;
    if (!es || !ed || !ew || !prev || !cur || !dn || !bp || !bq) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory for Karp's algorithm");
        goto out;
    }
    for (uint64_t i = 0; i < s; i++)
        kp->lid[V[i]] = (uint32_t)i;
    uint64_t me = 0, extra = s;
    for (uint64_t i = 0; i < s; i++)
        for (uint64_t e = g->offsets[V[i]]; e < g->offsets[V[i] + 1]; e++) {
            uint32_t v = g->targets[e];
            if (w->comp[v] != k)
                continue;
            int64_t t = transit_of(w, e);
            uint32_t from = (uint32_t)i;
            for (int64_t j = 0; j < t; j++) {
                uint32_t to = j == t - 1 ? kp->lid[v] : (uint32_t)extra++;
                es[me] = from, ed[me] = to, ew[me] = j == 0 ? cost_of(w, e) : 0;
                me++;
                from = to;
            }
        }
    const int64_t INF = INT64_MAX;
    for (int pass = 0; pass < 2; pass++) {
        for (uint64_t v = 0; v < N; v++)
            prev[v] = INF;
        prev[0] = 0;
        if (pass == 1)
            for (uint64_t v = 0; v < N; v++)
                bq[v] = 0; /* no candidate yet */
        for (uint64_t lvl = 0;; lvl++) {
            if (pass == 1 && lvl < N) /* candidate (DN - D_lvl) / (N - lvl) */
                for (uint64_t v = 0; v < N; v++)
                    if (dn[v] != INF && prev[v] != INF) {
                        int64_t p = dn[v] - prev[v], q = (int64_t)(N - lvl);
                        if (bq[v] == 0 || frac_cmp(p, q, bp[v], bq[v]) > 0)
                            bp[v] = p, bq[v] = q;
                    }
            if (lvl == N)
                break;
            for (uint64_t v = 0; v < N; v++)
                cur[v] = INF;
            /* |D| <= N 2^31 < 2^63 while N < 2^32 (KARP_MAX_WORK): no overflow */
            for (uint64_t e = 0; e < M; e++)
                if (prev[es[e]] != INF && prev[es[e]] + ew[e] < cur[ed[e]])
                    cur[ed[e]] = prev[es[e]] + ew[e];
            if (lvl + 1 == N && pass == 0)
                memcpy(dn, cur, N * sizeof *dn);
            int64_t *t = prev;
            prev = cur;
            cur = t;
        }
    }
    int have = 0;
    int64_t P = 0, Q = 1;
    for (uint64_t v = 0; v < N; v++)
        if (dn[v] != INF && (!have || frac_cmp(bp[v], bq[v], P, Q) < 0))
            P = bp[v], Q = bq[v], have = 1;
    if (!have) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal: Karp found no walk of length N");
        goto out;
    }
    int64_t gg = gcd64(P, Q);
    kp->ans_p[k] = P / gg;
    kp->ans_q[k] = Q / gg;
out:
    free(es); free(ed); free(ew); free(prev); free(cur); free(dn); free(bp); free(bq);
    return rc;
}

/* A critical cycle of component k from Bellman-Ford potentials of the reduced
 * costs and a DFS over tight edges (see the top of the file). */
static uint64_t karp_cycle(void *ctx, uint32_t k, uint64_t *edges, uint64_t cap)
{
    const struct karp *kp = ctx;
    const struct cm_work *w = kp->w;
    const struct cm_graph *g = w->g;
    const uint32_t *V = w->verts + w->start[k];
    const uint64_t s = w->start[k + 1] - w->start[k];
    const int64_t p = kp->ans_p[k], q = kp->ans_q[k];
    i128 *d = calloc(s, sizeof *d);
    uint8_t *color = calloc(s, 1);
    uint64_t *cursor = malloc(s * sizeof *cursor), *pathe = malloc(s * sizeof *pathe);
    uint32_t *path = malloc(s * sizeof *path);
    uint64_t len = 0;
    if (!d || !color || !cursor || !path || !pathe)
        goto out;
    for (uint64_t i = 0; i < s; i++)
        kp->lid[V[i]] = (uint32_t)i;
    for (uint64_t round = 0, changed = 1; changed; round++) {
        if (round > s) /* a negative reduced cycle: p/q was not optimal */
            goto out;
        changed = 0;
        for (uint64_t i = 0; i < s; i++)
            for (uint64_t e = g->offsets[V[i]]; e < g->offsets[V[i] + 1]; e++) {
                uint32_t v = g->targets[e];
                if (w->comp[v] != k)
                    continue;
                i128 c = d[i] + (i128)q * cost_of(w, e) - (i128)p * transit_of(w, e);
                if (c < d[kp->lid[v]])
                    d[kp->lid[v]] = c, changed = 1;
            }
    }
    /* DFS over tight edges from local vertex 0 onward; a grey target closes
     * a cycle (path[j..top] plus the edge). */
    for (uint64_t r = 0; r < s && !len; r++) {
        if (color[r])
            continue;
        uint64_t top = 0;
        path[0] = (uint32_t)r;
        color[r] = 1;
        cursor[r] = g->offsets[V[r]];
        while (!len) {
            uint32_t a = path[top];
            if (cursor[a] == g->offsets[V[a] + 1]) {
                color[a] = 2;
                if (top == 0)
                    break;
                top--;
                continue;
            }
            uint64_t e = cursor[a]++;
            uint32_t v = g->targets[e];
            if (w->comp[v] != k)
                continue;
            uint32_t b = kp->lid[v];
            if (d[a] + (i128)q * cost_of(w, e) - (i128)p * transit_of(w, e) != d[b])
                continue;
            if (color[b] == 1) {
                uint64_t j = top;
                while (path[j] != b)
                    j--;
                pathe[top] = e;
                for (uint64_t x = j; x <= top && len < cap; x++)
                    edges[len++] = pathe[x];
            } else if (color[b] == 0) {
                pathe[top] = e;
                path[++top] = b;
                color[b] = 1;
                cursor[b] = g->offsets[v];
            }
        }
    }
out:
    free(d); free(color); free(cursor); free(path); free(pathe);
    return len;
}

int cyclemean_karp_cpu(const struct cm_graph *g, const struct scc_result *scc, int maximize,
                       struct cm_result *out, struct wx_error *err)
{
    struct cm_work w;
    int rc = work_init(&w, g, scc, maximize, out, err);
    if (rc != WX_OK)
        return rc;
    const uint64_t ns = w.n_sccs ? w.n_sccs : 1;
    struct karp kp = {.w = &w};
    kp.ans_p = calloc(ns, sizeof *kp.ans_p);
    kp.ans_q = calloc(ns, sizeof *kp.ans_q);
    kp.lid = malloc((g->n_vertices ? g->n_vertices : 1) * sizeof *kp.lid);
    if (!kp.ans_p || !kp.ans_q || !kp.lid)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    for (uint64_t k = 0; k < w.n_sccs && rc == WX_OK; k++)
        if (w.cyclic[k])
            rc = karp_scc(&kp, k, err);
    if (rc == WX_OK)
        rc = finish_result(&w, kp.ans_p, kp.ans_q, karp_cycle, &kp, out, err);
    free(kp.ans_p); free(kp.ans_q); free(kp.lid);
    work_free(&w);
    if (rc != WX_OK)
        cm_result_free(out);
    return rc;
}
