/*
 * test_lts_checks.c -- analysis/lts_checks (livelock and reversibility).
 *
 *  - Random small labelled graphs (n <= 14, several densities, 3 labels of
 *    which label 0 is hidden, random initial state) against a brute-force
 *    reference built from bit-row transitive closures: reachability R, the
 *    τ-relation's closure T+ (>= 1 step), BFS distances by relaxation, and the
 *    shortest τ-cycle through a state by iterating τ-successor sets.
 *    Livelock exists iff some v in R(initial) has v in T+(v); reversible iff
 *    every v in R(initial) has initial in R(v).  Every lasso and witness trace
 *    is checked edge by edge against g, and for minimality: prefix length ==
 *    distance to the nearest τ-cyclic state, cycle length == shortest τ-cycle
 *    through its start, witness == smallest non-returning state, trace length
 *    == its distance.
 *  - Hand-made cases: τ self-loop at the initial state, no hidden label,
 *    unlabelled graph, bad initial state, and a 200000-state chain (no
 *    recursion, long prefix).
 * Seeds are printed with every failure and in the summary line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/lts_checks.h"
#include "tests/check.h"
#include "tests/rng.h"


#define TAU 0u
#define NL 3u

static int build(uint64_t n, const uint32_t (*edges)[3], size_t m, uint32_t initial, int labelled,
                 struct csr *g)
{
    struct wx_error err;
    wx_error_clear(&err);
    struct csr_builder *b = csr_builder_new();
    if (!b)
        return -1;
    for (size_t i = 0; i < m; i++)
        if (csr_builder_add(b, edges[i][0], labelled ? edges[i][1] : 0, edges[i][2], &err) != WX_OK)
            return -1;
    if (csr_builder_finish(b, n, NULL, g, &err) != WX_OK)
        return -1;
    if (!labelled) {
        free(g->labels);
        g->labels = NULL;
    }
    g->initial = initial;
    return 0;
}

static int has_edge(const struct csr *g, uint32_t u, uint32_t l, uint32_t v)
{
    if (u >= g->n_vertices || v >= g->n_vertices)
        return 0;
    for (uint64_t e = g->offsets[u]; e < g->offsets[u + 1]; e++)
        if (g->targets[e] == v && (!g->labels || g->labels[e] == l))
            return 1;
    return 0;
}

/* 1 when p is a path of g from `from` (edge by edge). */
static int path_valid(const struct csr *g, const struct lts_path *p, uint32_t from)
{
    if (!p->states || p->states[0] != from)
        return 0;
    for (uint32_t i = 0; i < p->len; i++)
        if (!has_edge(g, p->states[i], p->labels[i], p->states[i + 1]))
            return 0;
    return 1;
}

/* ---- brute-force reference (n <= 64) ---- */
struct ref {
    uint64_t reach[64];  /* >= 0 steps, any label */
    uint64_t tplus[64];  /* >= 1 steps, τ only */
    uint64_t tsucc[64];  /* direct τ-successors */
    unsigned dist[64];   /* from initial; ~0u when unreachable */
};

static void reference(const struct csr *g, uint32_t hidden, struct ref *r)
{
    unsigned n = (unsigned)g->n_vertices;
    for (unsigned u = 0; u < n; u++) {
        r->reach[u] = 1ull << u;
        r->tsucc[u] = 0;
        for (uint64_t e = g->offsets[u]; e < g->offsets[u + 1]; e++) {
            r->reach[u] |= 1ull << g->targets[e];
            if (g->labels && g->labels[e] == hidden)
                r->tsucc[u] |= 1ull << g->targets[e];
        }
        r->tplus[u] = r->tsucc[u];
    }
    for (unsigned k = 0; k < n; k++)
        for (unsigned u = 0; u < n; u++) {
            if (r->reach[u] >> k & 1)
                r->reach[u] |= r->reach[k];
            if (r->tplus[u] >> k & 1)
                r->tplus[u] |= r->tplus[k];
        }
    for (unsigned v = 0; v < n; v++)
        r->dist[v] = ~0u;
    r->dist[g->initial] = 0;
    for (int changed = 1; changed;) { /* Bellman-Ford with unit weights */
        changed = 0;
        for (unsigned u = 0; u < n; u++)
            if (r->dist[u] != ~0u)
                for (uint64_t e = g->offsets[u]; e < g->offsets[u + 1]; e++)
                    if (r->dist[g->targets[e]] > r->dist[u] + 1) {
                        r->dist[g->targets[e]] = r->dist[u] + 1;
                        changed = 1;
                    }
    }
}

/* Length of a shortest τ-cycle through s (0 when there is none). */
static unsigned shortest_tau_cycle(const struct ref *r, unsigned n, unsigned s)
{
    uint64_t set = r->tsucc[s];
    for (unsigned k = 1; k <= n; k++) {
        if (set >> s & 1)
            return k;
        uint64_t next = 0;
        for (unsigned u = 0; u < n; u++)
            if (set >> u & 1)
                next |= r->tsucc[u];
        set = next;
    }
    return 0;
}

static int one_random(uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    unsigned n = 1 + (unsigned)rnd_below(14);
    unsigned shape = (unsigned)rnd_below(4);
    size_t m = shape == 0 ? rnd_below(n + 1) : shape == 1 ? rnd_below(2 * n + 1)
             : shape == 2 ? rnd_below(4 * n + 1) : rnd_below(n * n / 2 + 2);
    uint32_t (*edges)[3] = malloc((m ? m : 1) * sizeof *edges);
    /* Mostly visible edges with a few τ ones, so both outcomes are common. */
    unsigned tau_pct = (unsigned)rnd_below(60);
    for (size_t i = 0; i < m; i++) {
        edges[i][0] = (uint32_t)rnd_below(n);
        edges[i][1] = rnd_below(100) < tau_pct ? TAU : 1 + (uint32_t)rnd_below(NL - 1);
        edges[i][2] = (uint32_t)rnd_below(n);
    }
    uint32_t initial = rnd_below(3) ? 0 : (uint32_t)rnd_below(n);
    uint32_t hidden = rnd_below(10) ? TAU : rnd_below(2) ? UINT32_MAX : NL + 5;
    struct csr g;
    if (build(n, (const uint32_t(*)[3])edges, m, initial, 1, &g)) {
        free(edges);
        return check(0, "random %llu: building the graph failed", (unsigned long long)seed);
    }
    free(edges);
    struct ref r;
    reference(&g, hidden, &r);
    int ok = 1;
    char why[1100] = "";
#define FAIL_IF(cond, ...)                                                   \
    do {                                                                     \
        if (ok && (cond)) {                                                  \
            ok = 0;                                                          \
            snprintf(why, sizeof why, __VA_ARGS__);                          \
        }                                                                    \
    } while (0)

    /* livelock */
    uint64_t reach0 = r.reach[initial], cyclic = 0;
    unsigned best = ~0u;
    for (unsigned v = 0; v < n; v++)
        if (r.tplus[v] >> v & 1) {
            cyclic |= 1ull << v;
            if (reach0 >> v & 1 && r.dist[v] < best)
                best = r.dist[v];
        }
    int expect_ll = (reach0 & cyclic) != 0;
    struct wx_error err;
    wx_error_clear(&err);
    struct lts_lasso ll;
    int rc = lts_find_livelock(&g, hidden, &ll, &err);
    FAIL_IF(rc != WX_OK, "livelock rc %d: %s", rc, err.msg);
    FAIL_IF((int)ll.found != expect_ll, "livelock found %d, expected %d", ll.found, expect_ll);
    FAIL_IF(ll.n_tau_cyclic != (uint64_t)__builtin_popcountll(reach0 & cyclic),
            "n_tau_cyclic %llu, expected %d", (unsigned long long)ll.n_tau_cyclic,
            __builtin_popcountll(reach0 & cyclic));
    if (ok && ll.found) {
        uint32_t s = ll.prefix.states ? ll.prefix.states[ll.prefix.len] : UINT32_MAX;
        FAIL_IF(!path_valid(&g, &ll.prefix, initial), "lasso prefix is not a path from %u", initial);
        FAIL_IF(ll.prefix.len != best, "prefix length %u, shortest %u", ll.prefix.len, best);
        FAIL_IF(!(cyclic >> s & 1), "prefix ends in %u, not tau-cyclic", s);
        FAIL_IF(ll.cycle.len < 1 || !path_valid(&g, &ll.cycle, s), "cycle is not a path from %u", s);
        FAIL_IF(ll.cycle.states[ll.cycle.len] != s, "cycle does not close at %u", s);
        for (uint32_t i = 0; ok && i < ll.cycle.len; i++)
            FAIL_IF(ll.cycle.labels[i] != hidden, "cycle edge %u is not tau", i);
        FAIL_IF(ll.cycle.len != shortest_tau_cycle(&r, n, s), "cycle length %u, shortest %u",
                ll.cycle.len, shortest_tau_cycle(&r, n, s));
    }
    lts_lasso_free(&ll);

    /* reversibility */
    unsigned witness = ~0u, cannot = 0;
    for (unsigned v = 0; v < n; v++)
        if (reach0 >> v & 1 && !(r.reach[v] >> initial & 1)) {
            if (witness == ~0u)
                witness = v;
            cannot++;
        }
    struct lts_reversibility rv;
    rc = lts_check_reversible(&g, initial, &rv, &err);
    FAIL_IF(rc != WX_OK, "reversible rc %d: %s", rc, err.msg);
    FAIL_IF(rv.reversible != (witness == ~0u), "reversible %d, expected %d", rv.reversible,
            witness == ~0u);
    FAIL_IF(rv.n_reachable != (uint64_t)__builtin_popcountll(reach0), "n_reachable %llu",
            (unsigned long long)rv.n_reachable);
    FAIL_IF(rv.n_cannot_return != cannot, "n_cannot_return %llu, expected %u",
            (unsigned long long)rv.n_cannot_return, cannot);
    if (ok && !rv.reversible) {
        FAIL_IF(rv.state != witness, "witness %u, expected %u", rv.state, witness);
        FAIL_IF(!path_valid(&g, &rv.trace, initial) || rv.trace.states[rv.trace.len] != witness,
                "witness trace is not a path from %u to %u", initial, witness);
        FAIL_IF(rv.trace.len != r.dist[witness], "trace length %u, shortest %u", rv.trace.len,
                r.dist[witness]);
    }
    lts_reversibility_free(&rv);
    csr_free(&g);
    if (!ok)
        check(0, "random graph seed %llu (n=%u m=%zu initial=%u): %s", (unsigned long long)seed, n,
              m, initial, why);
    return ok ? (expect_ll ? 1 : 0) | (witness == ~0u ? 2 : 0) : -1;
#undef FAIL_IF
}

static void hand_made(void)
{
    struct wx_error err;
    wx_error_clear(&err);
    struct csr g;
    struct lts_lasso ll;
    struct lts_reversibility rv;

    /* 0 -a-> 1 -τ-> 1 : τ self-loop one step away; not reversible (1 stays). */
    static const uint32_t e1[][3] = {{0, 1, 1}, {1, TAU, 1}};
    build(2, e1, 2, 0, 1, &g);
    check(lts_find_livelock(&g, TAU, &ll, &err) == WX_OK && ll.found && ll.prefix.len == 1 &&
              ll.cycle.len == 1 && ll.cycle.states[0] == 1 && ll.cycle.states[1] == 1,
          "tau self-loop: lasso 0 -a-> 1, cycle 1 -tau-> 1");
    lts_lasso_free(&ll);
    check(lts_find_livelock(&g, UINT32_MAX, &ll, &err) == WX_OK && !ll.found,
          "no hidden label: no livelock");
    lts_lasso_free(&ll);
    check(lts_find_livelock(&g, 1, &ll, &err) == WX_OK && !ll.found,
          "hiding 'a' instead: no cycle, no livelock");
    lts_lasso_free(&ll);
    check(lts_check_reversible(&g, 0, &rv, &err) == WX_OK && !rv.reversible && rv.state == 1 &&
              rv.trace.len == 1,
          "0 -> 1 -> 1: state 1 cannot return");
    lts_reversibility_free(&rv);
    check(lts_check_reversible(&g, 1, &rv, &err) == WX_OK && rv.reversible && rv.n_reachable == 1,
          "from state 1 alone: reversible");
    lts_reversibility_free(&rv);
    check(lts_check_reversible(&g, 2, &rv, &err) == WX_EINPUT, "initial 2 of 2 states: WX_EINPUT (%s)",
          err.msg);
    g.initial = 7;
    check(lts_find_livelock(&g, TAU, &ll, &err) == WX_EINPUT && !ll.found,
          "livelock with a bad initial state: WX_EINPUT");
    csr_free(&g);

    /* Unlabelled graph: never a livelock; reversibility still works. */
    static const uint32_t e2[][3] = {{0, 0, 1}, {1, 0, 0}};
    build(2, e2, 2, 0, 0, &g);
    check(lts_find_livelock(&g, TAU, &ll, &err) == WX_OK && !ll.found, "unlabelled: no livelock");
    check(lts_check_reversible(&g, 0, &rv, &err) == WX_OK && rv.reversible,
          "unlabelled 2-cycle: reversible");
    lts_reversibility_free(&rv);
    csr_free(&g);

    /* A chain 0 -a-> 1 -a-> ... -a-> N-1 -τ-> N-2: a long prefix, and a
     * non-returning witness at 1 with a 1-step trace. */
    enum { N = 200000 };
    uint32_t (*ch)[3] = malloc(N * sizeof *ch);
    for (uint32_t i = 0; i + 1 < N; i++) {
        ch[i][0] = i;
        ch[i][1] = 1;
        ch[i][2] = i + 1;
    }
    ch[N - 1][0] = N - 1;
    ch[N - 1][1] = TAU;
    ch[N - 1][2] = N - 2;
    build(N, (const uint32_t(*)[3])ch, N, 0, 1, &g);
    free(ch);
    /* N-2 -a-> N-1 -τ-> N-2 is a cycle but only one edge of it is τ: no livelock. */
    check(lts_find_livelock(&g, TAU, &ll, &err) == WX_OK && !ll.found,
          "chain with a mixed a/tau cycle at its end: no livelock");
    lts_lasso_free(&ll);
    check(lts_find_livelock(&g, 1, &ll, &err) == WX_OK && !ll.found,
          "hiding 'a' instead: the end cycle has a visible (label 0) edge, so no lasso");
    lts_lasso_free(&ll);
    check(lts_check_reversible(&g, 0, &rv, &err) == WX_OK && !rv.reversible && rv.state == 1 &&
              rv.trace.len == 1 && rv.n_cannot_return == N - 1,
          "chain of %d: state 1 first to fail, %d cannot return", N, N - 1);
    lts_reversibility_free(&rv);
    csr_free(&g);

    /* Same chain, all τ, closing back to 0: one big τ-cycle of N edges. */
    ch = malloc(N * sizeof *ch);
    for (uint32_t i = 0; i < N; i++) {
        ch[i][0] = i;
        ch[i][1] = TAU;
        ch[i][2] = (i + 1) % N;
    }
    build(N, (const uint32_t(*)[3])ch, N, 0, 1, &g);
    free(ch);
    check(lts_find_livelock(&g, TAU, &ll, &err) == WX_OK && ll.found && ll.prefix.len == 0 &&
              ll.cycle.len == N && ll.cycle.states[N] == 0 && ll.n_tau_cyclic == N,
          "tau ring of %d: empty prefix, cycle of %d", N, N);
    lts_lasso_free(&ll);
    check(lts_check_reversible(&g, 0, &rv, &err) == WX_OK && rv.reversible && rv.n_reachable == N,
          "tau ring of %d: reversible", N);
    lts_reversibility_free(&rv);
    csr_free(&g);
}

int main(int argc, char **argv)
{
    uint64_t base = argc > 1 ? strtoull(argv[1], NULL, 0) : 20261121;
    unsigned count = 1500, bad = 0, outcome[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < count; i++) {
        int o = one_random(base + i);
        if (o < 0)
            bad++;
        else
            outcome[o]++;
    }
    check(bad == 0, "%u random labelled graphs (seeds %llu..%llu) vs brute force: %u failed; "
                    "livelock+irreversible %u, reversible only %u, livelock+reversible %u, "
                    "neither livelock nor reversible %u",
          count, (unsigned long long)base, (unsigned long long)(base + count - 1), bad, outcome[1],
          outcome[2], outcome[3], outcome[0]);
    check(outcome[0] && outcome[1] && outcome[2] && outcome[3], "every outcome occurs");
    hand_made();
    return check_exit();
}
