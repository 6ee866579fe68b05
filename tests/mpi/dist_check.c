/*
 * dist_check.c -- the distributed explorer over MPI against the sequential
 * explorer and the naive oracle; tests/t_dist.sh runs it under mpirun with
 * 2 and 3 ranks.
 *
 * Usage: dist_check SEED COUNT [FILE...] -- COUNT random networks
 * (tests/randnet, seeds SEED .. SEED + COUNT - 1), then each FILE.  Each is
 * explored by explore_dist with rounds of DIST_ROUND_STATES states and of 3
 * (several exchanges per level), and by explore_seq on rank 0:
 *   - without checks: states, transitions, deadlocks, depth and complete
 *     equal explore_seq's, and on random networks the naive oracle's
 *     (tests/naive: the semantics again, on the EXP syntax tree);
 *   - with --deadlock, --action (a random label) and both, traced:
 *     the same verdict and trace length as explore_seq; the trace replays
 *     on the image through the general successor generator (not the fast
 *     path the explorers use): it starts at id 0 and the all-zero vector,
 *     every step is a successor under its label, it ends in a deadlock or
 *     with a flagged label at violation_state; its ids are below the state
 *     count and distinct (but for an action's target);
 *   - with --por (no visible label, the reduction explore_dist applies),
 *     without checks and with --deadlock: the same as explore_seq --por.
 * Every rank runs every exploration; rank 0 prints the PASS/FAIL lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../naive/naive.c"
#include "../randnet/randnet.c"

#include "explorer/dist_mpi.h"
#include "explorer/explore.h"
#include "explorer/successors.h"
#include "network/image.h"
#include "network/network.h"
#include "parser/network_build.h"
#include "util/config.h"

static struct dist_transport T;
static uint64_t rng_state;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* check() on rank 0 only (every rank computes the same). */
#define CHECK0(ok, ...) (T.rank == 0 ? check(ok, __VA_ARGS__) : (ok) ? 1 : rank_fail(#ok))

/* A failure on another rank than 0: said on stdout, counted by rank 0
 * through the differing results. */
static int rank_fail(const char *what)
{
    printf("FAIL dist_check rank %d: %s\n", T.rank, what);
    return 0;
}

/* true when (label, to) is a successor of from by the general generator. */
static int is_step(struct succ_gen *g, const uint32_t *from, uint32_t label, const uint32_t *to)
{
    struct wx_error err;
    if (succ_expand(g, from, &err) != WX_OK)
        return 0;
    for (size_t i = 0; i < g->n; i++)
        if (succ_label(g, i) == label && !memcmp(succ_vector(g, i), to, g->words * 4))
            return 1;
    return 0;
}

/* The trace of res replays on img (see the file comment). */
static int trace_replays(const struct image *img, const struct explore_options *eo,
                         const struct explore_result *res, char *why, size_t n)
{
    const struct trace *t = &res->trace;
    uint32_t W = img->words;
    struct succ_gen g;
    struct wx_error err;
    if (!t->states || !t->vectors || succ_init(&g, img, &err) != WX_OK)
        return snprintf(why, n, "no trace"), 0;
    g.use_fast = false;
    int ok = t->states[0] == 0;
    for (uint32_t i = 0; i < W; i++)
        ok &= t->vectors[i] == 0;
    if (!ok)
        snprintf(why, n, "does not start at the initial state");
    for (uint32_t i = 0; ok && i < t->len; i++)
        if (!is_step(&g, t->vectors + (size_t)i * W, t->labels[i], t->vectors + (size_t)(i + 1) * W))
            ok = 0, snprintf(why, n, "step %u is not a transition", i);
    /* a shortest path visits distinct states; an action's target may be
     * any state (a self-loop, an edge back) */
    uint32_t last = res->violation == VIOLATION_ACTION ? t->len - 1 : t->len;
    for (uint32_t i = 0; ok && i <= t->len; i++)
        for (uint32_t j = 0; ok && j <= i; j++)
            if ((j < i && i <= last && t->states[i] == t->states[j]) || t->states[i] >= res->states)
                ok = 0, snprintf(why, n, "ids %llu at %u, %llu at %u", (unsigned long long)t->states[i], i,
                                 (unsigned long long)t->states[j], j);
    if (ok && res->violation == VIOLATION_DEADLOCK) {
        ok = succ_expand(&g, t->vectors + (size_t)t->len * W, &err) == WX_OK && g.n == 0 &&
             res->violation_state == t->states[t->len];
        if (!ok)
            snprintf(why, n, "does not end in the deadlock state");
    } else if (ok) {
        ok = t->len > 0 && eo->action_match[t->labels[t->len - 1]] &&
             res->violation_state == t->states[t->len - 1];
        if (!ok)
            snprintf(why, n, "does not end with a flagged label from the violation state");
    }
    succ_free(&g);
    return ok;
}

/* One exploration of img by explore_dist and by explore_seq, compared. */
static void compare(const char *name, const struct image *img, struct explore_options *eo, uint64_t round,
                    const struct naive_result *oracle)
{
    struct explore_result d, s;
    struct dist_stats st;
    struct wx_error err, err2;
    int rc = explore_dist(img, eo, &T, round, &d, &st, &err);
    int rs = T.rank == 0 ? explore_seq(img, eo, &s, &err2) : WX_OK;
    const char *mode = eo->stop_on_deadlock && eo->action_match ? "deadlock+action"
                       : eo->stop_on_deadlock ? "deadlock" : eo->action_match ? "action" : "counts";
    char what[400];
    snprintf(what, sizeof what, "%s, %d ranks, rounds of %llu, %s%s", name, T.size,
             (unsigned long long)(round ? round : DIST_ROUND_STATES), eo->por ? "--por, " : "", mode);
    if (T.rank == 0 && (rc != WX_OK || rs != WX_OK)) {
        check(0, "%s: dist rc %d (%s), seq rc %d", what, rc, rc ? err.msg : "", rs);
    } else if (T.rank == 0 && d.violation == VIOLATION_NONE && s.violation == VIOLATION_NONE) {
        int ok = d.states == s.states && d.transitions == s.transitions && d.deadlocks == s.deadlocks &&
                 d.depth == s.depth && d.complete && s.complete;
        if (oracle)
            ok &= d.states == oracle->states && d.transitions == oracle->transitions &&
                  d.deadlocks == oracle->deadlocks && d.depth == oracle->depth;
        check(ok, "%s: %llu states, %llu transitions, %llu deadlocks, depth %u (seq %llu %llu %llu %u%s)", what,
              (unsigned long long)d.states, (unsigned long long)d.transitions, (unsigned long long)d.deadlocks,
              d.depth, (unsigned long long)s.states, (unsigned long long)s.transitions,
              (unsigned long long)s.deadlocks, s.depth, oracle ? ", = naive" : "");
    } else if (T.rank == 0) {
        char why[200] = "";
        int ok = d.violation == s.violation && !d.complete && d.trace.len == s.trace.len &&
                 trace_replays(img, eo, &d, why, sizeof why);
        check(ok, "%s: violation %d with a trace of %u steps (seq: %d, %u steps)%s%s", what, d.violation,
              d.trace.len, s.violation, s.trace.len, why[0] ? ": " : "", why);
    }
    if (T.rank == 0 && rs == WX_OK)
        explore_result_free(&s);
    explore_result_free(&d);
    dist_stats_free(&st);
}

/* An edge sink keeping every edge in the order it came. */
struct edges {
    struct product_edge *e;
    size_t n, cap;
};

static int collect(void *ctx, const struct product_edge *e, size_t n, struct wx_error *err)
{
    struct edges *c = ctx;
    if (c->n + n > c->cap) {
        size_t cap = 2 * (c->n + n);
        struct product_edge *p = realloc(c->e, cap * sizeof *p);
        if (!p)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        c->e = p, c->cap = cap;
    }
    memcpy(c->e + c->n, e, n * sizeof *e);
    c->n += n;
    return WX_OK;
}

/* The edges and vectors of explore_dist (renumbered, on rank 0) against
 * explore_seq's: the same sequence, the same vectors by id; with
 * finish_after_violation and a trace, the trace's ids name its vectors. */
static void compare_edges(const char *name, const struct image *img, uint64_t round, const uint8_t *act)
{
    for (int m = 0; m < 2; m++) {
        struct edges ce = {0}, cs = {0};
        struct edge_sink sd = {collect, &ce}, ss = {collect, &cs};
        struct explore_options eo = {.memory_bytes = 256u << 20, .keep_vectors = true};
        eo.stop_on_deadlock = eo.trace = eo.finish_after_violation = m == 1;
        eo.action_match = m == 1 ? act : NULL;
        struct explore_result d, s;
        struct dist_stats st;
        struct wx_error err, err2;
        eo.sink = &sd;
        int rc = explore_dist(img, &eo, &T, round, &d, &st, &err);
        eo.sink = &ss;
        int rs = T.rank == 0 ? explore_seq(img, &eo, &s, &err2) : WX_OK;
        if (T.rank > 0) {
            if (rc != WX_OK || ce.n || d.vectors)
                rank_fail("edges or vectors on a rank other than 0");
        } else if (rc != WX_OK || rs != WX_OK) {
            check(0, "%s, %d ranks, edges: dist rc %d (%s), seq rc %d", name, T.size, rc, rc ? err.msg : "", rs);
        } else {
            uint32_t W = img->words;
            int ok = ce.n == cs.n && ce.n == d.transitions && d.vectors &&
                     !memcmp(d.vectors, s.vectors, d.states * W * 4);
            for (size_t i = 0; ok && i < ce.n; i++) /* field by field: the struct has padding */
                ok = ce.e[i].src == cs.e[i].src && ce.e[i].dst == cs.e[i].dst && ce.e[i].label == cs.e[i].label;
            for (uint32_t i = 0; ok && d.violation && i <= d.trace.len; i++)
                ok = d.trace.states[i] < d.states &&
                     !memcmp(d.vectors + d.trace.states[i] * W, d.trace.vectors + (size_t)i * W, W * 4);
            uint32_t vi = d.trace.len - (d.violation == VIOLATION_ACTION);
            ok &= d.violation == s.violation && d.trace.len == s.trace.len &&
                  (!d.violation || d.violation_state == d.trace.states[vi]);
            check(ok, "%s, %d ranks, rounds of %llu%s: %zu edges and %llu vectors as explore_seq's, in its "
                  "order and numbering%s", name, T.size, (unsigned long long)(round ? round : DIST_ROUND_STATES),
                  m ? ", finishing after a violation" : "", ce.n, (unsigned long long)d.states,
                  m ? " (the trace's ids name its vectors)" : "");
        }
        if (T.rank == 0 && rs == WX_OK)
            explore_result_free(&s);
        dist_stats_free(&st);
        explore_result_free(&d);
        free(ce.e), free(cs.e);
    }
}

/* Every check on one image: counts, then the three violation modes. */
static void check_image(const char *name, const struct image *img, const struct naive_result *oracle)
{
    /* --action: one visible label (a rarer, so deeper, violation than a
     * set) */
    uint8_t *act = calloc(img->n_labels + 1, 1);
    uint32_t l = img->n_labels ? (uint32_t)(rng() % img->n_labels) : 0;
    act[l] = l != img->hidden;
    static const uint64_t rounds[] = {0, 3};
    for (int k = 0; k < 2; k++)
        for (int m = 0; m < 4; m++) {
            struct explore_options eo = {.memory_bytes = 256u << 20};
            eo.stop_on_deadlock = m & 1;
            eo.action_match = m & 2 ? act : NULL;
            eo.trace = m != 0;
            compare(name, img, &eo, rounds[k], m == 0 ? oracle : NULL);
            /* --por without visible labels: explore_seq's reduced graph */
            if (m < 2) {
                eo.por = true;
                compare(name, img, &eo, rounds[k], NULL);
            }
        }
    for (int k = 0; k < 2; k++)
        compare_edges(name, img, rounds[k], act);
    free(act);
}

static void check_file(const char *path, const char *name, const struct net_options *no,
                       const struct naive_result *oracle)
{
    struct network net;
    struct image img;
    struct wx_error err;
    int rc = network_from_file(path, no, &net, &err);
    if (rc == WX_OK) {
        rc = image_compile(&net, &img, &err);
        network_free(&net);
    }
    if (!CHECK0(rc == WX_OK, "%s loads (%s)", path, rc ? err.msg : "ok"))
        return;
    check_image(name, &img, oracle);
    image_free(&img);
}

static void check_random(uint64_t seed)
{
    struct randnet rn;
    struct wx_error err;
    struct randnet_params rp = {0};
    rp.avoid_ambiguous = true;
    if (!CHECK0(randnet_generate(seed, &rp, &rn, &err) == WX_OK, "seed %llu: generator: %s",
                (unsigned long long)seed, err.msg))
        return;
    struct naive_options o = {0};
    o.leaf = randnet_leaf, o.leaf_ctx = &rn;
    o.hidden = rn.hidden, o.rate = rn.rate, o.lang = rn.lang;
    struct naive_result nr;
    int rc = naive_explore(rn.root, &o, &nr, &err);
    if (CHECK0(rc == WX_OK, "seed %llu: naive oracle: %s", (unsigned long long)seed, rc ? err.msg : "ok")) {
        struct net_options no = {0};
        no.hidden = rn.hidden, no.rate = rn.rate;
        char name[64];
        snprintf(name, sizeof name, "random seed %llu", (unsigned long long)seed);
        rng_state = seed;
        check_file(rn.exp_path, name, &no, &nr);
    }
    randnet_free(&rn, true);
}

int main(int argc, char **argv)
{
    struct wx_error err;
    if (dist_mpi_start(&T, &err) != WX_OK) {
        printf("FAIL dist_check: %s\n", err.msg);
        return 1;
    }
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    unsigned count = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 10;
    if (T.rank == 0)
        printf("# dist_check: %d ranks, random seeds %llu .. %llu\n", T.size, (unsigned long long)seed,
               (unsigned long long)(seed + count - 1));
    for (unsigned k = 0; k < count; k++)
        check_random(seed + k);
    for (int i = 3; i < argc; i++) {
        struct net_options no = {0};
        rng_state = 7 + i;
        check_file(argv[i], argv[i], &no, NULL);
    }
    dist_mpi_end(&T);
    return T.rank == 0 ? check_exit() : 0;
}
