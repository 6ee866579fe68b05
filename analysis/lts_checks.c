/*
 * lts_checks.c -- livelock (divergence) and reversibility of an LTS in CSR
 * form.  See lts_checks.h for definitions and costs.
 *
 * Both checks are one SCC decomposition (scc_cpu, iterative Tarjan) plus
 * breadth-first searches with parent pointers; all loops are iterative.
 */
#include "lts_checks.h"

#include <stdlib.h>
#include <string.h>

#include "scc.h"

#define NONE UINT32_MAX /* "no vertex / no label": never a vertex id (< 2^32 - 1) */

/* Breadth-first search work space over one graph.  pred[v] == NONE: v not
 * reached; pred[src] == src.  queue[0 .. n_reached) is the visiting order,
 * which is also the order of non-decreasing distance from src. */
struct bfs {
    uint32_t *pred, *plab, *queue;
    uint64_t n_reached;
};

static int bfs_init(struct bfs *b, uint64_t n)
{
    size_t k = n ? (size_t)n : 1;
    b->pred = malloc(k * sizeof *b->pred);
    b->plab = malloc(k * sizeof *b->plab);
    b->queue = malloc(k * sizeof *b->queue);
    b->n_reached = 0;
    if (!b->pred || !b->plab || !b->queue)
        return -1;
    memset(b->pred, 0xff, k * sizeof *b->pred); /* all NONE */
    return 0;
}

static void bfs_free(struct bfs *b)
{
    free(b->pred);
    free(b->plab);
    free(b->queue);
    memset(b, 0, sizeof *b);
}

/* Forgets the last search in O(reached) so the arrays can be reused. */
static void bfs_reset(struct bfs *b)
{
    for (uint64_t i = 0; i < b->n_reached; i++)
        b->pred[b->queue[i]] = NONE;
    b->n_reached = 0;
}

/* Searches from src over the edges of g whose label is `label` (NONE: every
 * edge) and whose target v has comp[v] == comp_id (comp NULL: every target).
 * When goal != NONE the search stops at the first edge u -> goal (goal may be
 * src itself: then that edge closes a shortest cycle through src) and returns
 * 1 with *close_from = u and *close_label = its label; otherwise it returns 0
 * after reaching everything it can. */
static int bfs_run(const struct csr *g, uint32_t src, uint32_t label, const uint32_t *comp,
                   uint32_t comp_id, uint32_t goal, struct bfs *b, uint32_t *close_from,
                   uint32_t *close_label)
{
    uint64_t head = 0;
    b->pred[src] = src;
    b->plab[src] = NONE;
    b->queue[b->n_reached++] = src;
    while (head < b->n_reached) {
        uint32_t u = b->queue[head++];
        for (uint64_t e = g->offsets[u]; e < g->offsets[u + 1]; e++) {
            uint32_t l = g->labels ? g->labels[e] : NONE;
            if (label != NONE && l != label)
                continue;
            uint32_t v = g->targets[e];
            if (comp && comp[v] != comp_id)
                continue;
            if (v == goal) {
                *close_from = u;
                *close_label = l;
                return 1;
            }
            if (b->pred[v] != NONE)
                continue;
            b->pred[v] = u;
            b->plab[v] = l;
            b->queue[b->n_reached++] = v;
        }
    }
    return 0;
}

/* The tree path src -> ... -> v of the last search, plus one extra edge
 * (v -> extra_state labelled extra_label) when extra_state != NONE.
 * Allocates p->states and p->labels. */
static int bfs_path(const struct bfs *b, uint32_t v, uint32_t extra_state, uint32_t extra_label,
                    struct lts_path *p)
{
    uint32_t len = 0;
    for (uint32_t x = v; b->pred[x] != x; x = b->pred[x])
        len++;
    uint32_t total = len + (extra_state != NONE);
    p->len = total;
    p->states = malloc(((size_t)total + 1) * sizeof *p->states);
    p->labels = malloc((total ? (size_t)total : 1) * sizeof *p->labels);
    if (!p->states || !p->labels) {
        free(p->states);
        free(p->labels);
        memset(p, 0, sizeof *p);
        return -1;
    }
    uint32_t x = v;
    for (uint32_t i = len; i > 0; i--) {
        p->states[i] = x;
        p->labels[i - 1] = b->plab[x];
        x = b->pred[x];
    }
    p->states[0] = x;
    if (extra_state != NONE) {
        p->states[total] = extra_state;
        p->labels[total - 1] = extra_label;
    }
    return 0;
}

static void path_free(struct lts_path *p)
{
    free(p->states);
    free(p->labels);
    memset(p, 0, sizeof *p);
}

void lts_lasso_free(struct lts_lasso *l)
{
    path_free(&l->prefix);
    path_free(&l->cycle);
    memset(l, 0, sizeof *l);
}

void lts_reversibility_free(struct lts_reversibility *r)
{
    path_free(&r->trace);
    memset(r, 0, sizeof *r);
}

static int oom(struct wx_error *err, const char *what)
{
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (%s)", what);
}

/* The τ-subgraph of g (unlabelled; edges keep g's order, so stay sorted and
 * duplicate-free).  Allocates t->offsets and t->targets. */
static int tau_subgraph(const struct csr *g, uint32_t hidden, struct csr *t)
{
    memset(t, 0, sizeof *t);
    uint64_t n = g->n_vertices, m = 0;
    for (uint64_t e = 0; e < g->n_edges; e++)
        m += g->labels[e] == hidden;
    t->n_vertices = n;
    t->n_edges = m;
    t->initial = g->initial;
    t->offsets = malloc((size_t)(n + 1) * sizeof *t->offsets);
    t->targets = malloc((m ? (size_t)m : 1) * sizeof *t->targets);
    if (!t->offsets || !t->targets) {
        csr_free(t);
        return -1;
    }
    uint64_t k = 0;
    for (uint64_t v = 0; v < n; v++) {
        t->offsets[v] = k;
        for (uint64_t e = g->offsets[v]; e < g->offsets[v + 1]; e++)
            if (g->labels[e] == hidden)
                t->targets[k++] = g->targets[e];
    }
    t->offsets[n] = k;
    return 0;
}

int lts_find_livelock(const struct csr *g, uint32_t hidden, struct lts_lasso *out,
                      struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    if (g->initial >= g->n_vertices)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "initial state %u is not among the %llu states",
                       g->initial, (unsigned long long)g->n_vertices);
    if (hidden == NONE || !g->labels)
        return WX_OK; /* no τ-edge at all: nothing can diverge */

    struct csr t;
    if (tau_subgraph(g, hidden, &t))
        return oom(err, "tau subgraph");
    struct scc_result scc;
    int rc = scc_cpu(&t, &scc, err);
    if (rc != WX_OK) {
        csr_free(&t);
        return rc;
    }
    /* cyclic[v]: v's τ-SCC is non-trivial (more than one vertex, or v has a
     * τ self-loop).  Component sizes first, then self-loops. */
    uint64_t n = g->n_vertices;
    uint32_t *size = calloc(scc.n_sccs ? (size_t)scc.n_sccs : 1, sizeof *size);
    uint8_t *cyclic = malloc(n ? (size_t)n : 1);
    struct bfs b;
    int bad = bfs_init(&b, n);
    if (!size || !cyclic || bad) {
        rc = oom(err, "livelock check");
        goto done;
    }
    for (uint64_t v = 0; v < n; v++)
        size[scc.comp[v]]++;
    for (uint64_t v = 0; v < n; v++) {
        cyclic[v] = size[scc.comp[v]] > 1;
        for (uint64_t e = t.offsets[v]; e < t.offsets[v + 1] && !cyclic[v]; e++)
            cyclic[v] = t.targets[e] == v;
    }

    /* Shortest prefix: the first τ-cyclic state in BFS order from initial. */
    uint32_t u, l;
    bfs_run(g, g->initial, NONE, NULL, 0, NONE, &b, &u, &l);
    uint32_t s = NONE;
    for (uint64_t i = 0; i < b.n_reached; i++)
        if (cyclic[b.queue[i]]) {
            out->n_tau_cyclic++;
            if (s == NONE)
                s = b.queue[i];
        }
    if (s == NONE)
        goto done;
    if (bfs_path(&b, s, NONE, NONE, &out->prefix)) {
        rc = oom(err, "lasso");
        goto done;
    }
    /* Shortest τ-cycle through s: BFS over τ-edges inside s's τ-SCC (every
     * τ-cycle through s stays inside it) until an edge returns to s. */
    bfs_reset(&b);
    if (!bfs_run(&t, s, NONE, scc.comp, scc.comp[s], s, &b, &u, &l)) {
        /* unreachable: s is τ-cyclic, so some τ-path leads back to s */
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal error: no tau cycle through state %u", s);
        goto done;
    }
    /* t is unlabelled: the closing label and tree labels are NONE; every
     * cycle edge is τ by construction. */
    if (bfs_path(&b, u, s, hidden, &out->cycle)) {
        rc = oom(err, "lasso");
        goto done;
    }
    for (uint32_t i = 0; i < out->cycle.len; i++)
        out->cycle.labels[i] = hidden;
    out->found = true;
done:
    if (rc != WX_OK)
        lts_lasso_free(out);
    bfs_free(&b);
    free(size);
    free(cyclic);
    scc_result_free(&scc);
    csr_free(&t);
    return rc;
}

int lts_check_reversible(const struct csr *g, uint32_t initial, struct lts_reversibility *out,
                         struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    if (initial >= g->n_vertices)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "initial state %u is not among the %llu states",
                       initial, (unsigned long long)g->n_vertices);
    struct scc_result scc;
    int rc = scc_cpu(g, &scc, err);
    if (rc != WX_OK)
        return rc;
    struct bfs b;
    if (bfs_init(&b, g->n_vertices)) {
        rc = oom(err, "reversibility check");
        goto done;
    }
    uint32_t u, l;
    bfs_run(g, initial, NONE, NULL, 0, NONE, &b, &u, &l);
    out->n_reachable = b.n_reached;
    /* A reachable v reaches initial back iff v and initial share an SCC. */
    uint32_t c0 = scc.comp[initial], witness = NONE;
    for (uint64_t v = 0; v < g->n_vertices; v++)
        if (b.pred[v] != NONE && scc.comp[v] != c0) {
            if (witness == NONE)
                witness = (uint32_t)v;
            out->n_cannot_return++;
        }
    out->reversible = witness == NONE;
    if (witness != NONE) {
        out->state = witness;
        if (bfs_path(&b, witness, NONE, NONE, &out->trace))
            rc = oom(err, "reversibility trace");
    }
done:
    if (rc != WX_OK)
        lts_reversibility_free(out);
    bfs_free(&b);
    scc_result_free(&scc);
    return rc;
}

/* ---- MECs of an LTS (Dirac choices) ---- */

int lts_mecs_from_scc(const struct csr *g, const struct scc_result *scc, struct lts_mecs *out,
                      struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    const uint64_t n = g->n_vertices, k = scc->n_sccs;
    if (n == 0)
        return WX_OK;
    uint64_t *size = calloc(k, sizeof *size);
    uint32_t *id = malloc(k * sizeof *id);
    uint8_t *looped = calloc(k, 1);
    out->mec = malloc(n * sizeof *out->mec);
    if (!size || !id || !looped || !out->mec) {
        free(size), free(id), free(looped), free(out->mec);
        out->mec = NULL;
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory computing MECs of %llu states",
                       (unsigned long long)n);
    }
    for (uint64_t v = 0; v < n; v++) {
        size[scc->comp[v]]++;
        for (uint64_t e = g->offsets[v]; e < g->offsets[v + 1]; e++)
            if (g->targets[e] == v)
                looped[scc->comp[v]] = 1;
    }
    /* Canonical SCC ids are in order of smallest vertex; keeping that order
     * among the non-trivial ones keeps the MEC ids canonical. */
    for (uint64_t c = 0; c < k; c++) {
        if (size[c] >= 2 || looped[c]) {
            id[c] = (uint32_t)out->n_mecs++;
            out->states_in_mecs += size[c];
            out->n_singletons += size[c] == 1;
            if (size[c] > out->largest)
                out->largest = size[c];
        } else {
            id[c] = LTS_NO_MEC;
        }
    }
    for (uint64_t v = 0; v < n; v++) {
        const uint32_t m = id[scc->comp[v]];
        out->mec[v] = m;
        if (m == LTS_NO_MEC)
            continue;
        for (uint64_t e = g->offsets[v]; e < g->offsets[v + 1]; e++)
            out->choices_in_mecs += scc->comp[g->targets[e]] == scc->comp[v];
    }
    free(size), free(id), free(looped);
    return WX_OK;
}

void lts_mecs_free(struct lts_mecs *m)
{
    free(m->mec);
    memset(m, 0, sizeof *m);
}
