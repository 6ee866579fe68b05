/*
 * test_gpu_scc.c -- the GPU SCC decomposition (kernels/scc/) against
 * Tarjan (analysis/scc.c), on a GPU machine.  Built and run by
 * bench/gpu_test.sh (not by `make test`).
 *
 *   test_gpu_scc [--quick] [--seed N] [--graphs N] [--probe] [--ref-only]
 *
 * Every case compares the whole canonical comp array and every count of
 * struct scc_result (SCCs, trivial, largest, bottom, bottom trivial,
 * vertices in non-trivial SCCs).  Shapes: sparse uniform random, skewed
 * R-MAT-like, 3-D grid-DAGs with rare back edges, one giant SCC (a
 * Hamiltonian cycle plus random chords), condensation DAGs of random
 * cycles and cliques, chains and cycles in both id orders, long-diameter
 * graphs (rings with short chords, up to a ring of 10^6 vertices; chains of
 * up to 10^5 SCCs in either direction), symmetric graphs (random
 * undirected graphs and small tori, a quarter with one extra one-way edge;
 * a 40^3 torus with and without one edge; hand-made CSRs with parallel
 * edges matched or not matched in multiplicity), self-loops, isolated
 * vertices, the empty graph and one-vertex graphs; each random
 * graph gets a random vertex permutation half of the time, because the
 * colouring's speed (not its result) depends on the id order.  The PRISM
 * exports under tests/data/mdp are read as
 * graphs and checked against their reference.json as well as Tarjan.
 * --quick runs a small subset (the one the sanitizers run: small enough for
 * racecheck: about 25 graphs of at most a few hundred vertices); --ref-only
 * runs the generators and Tarjan without a GPU (to check the test itself).
 * Seeds are printed; `--seed` replays.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../analysis/scc.h"
#include "../../graph/graph_read.h"
#include "../../kernels/scc_gpu.h"
#include "../check.h"
#include "../prism_ref.h"
#include "../rng.h"

static int quick, ref_only;
static unsigned long long n_compared;

/* ---- graph construction ---- */

struct edges {
    uint64_t n, m, cap;
    uint32_t *src, *dst;
};

static void e_add(struct edges *e, uint64_t s, uint64_t d)
{
    if (e->m == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 1024;
        e->src = realloc(e->src, e->cap * sizeof *e->src);
        e->dst = realloc(e->dst, e->cap * sizeof *e->dst);
        if (!e->src || !e->dst) {
            fprintf(stderr, "test_gpu_scc: out of memory\n");
            exit(3);
        }
    }
    e->src[e->m] = (uint32_t)s;
    e->dst[e->m] = (uint32_t)d;
    e->m++;
}

/* Builds the CSR (sorted, duplicates dropped by the builder), optionally
 * renaming vertices by a random permutation. */
static int e_build(struct edges *e, int permute, struct csr *g)
{
    uint32_t *perm = NULL;
    if (permute && e->n > 1) {
        perm = malloc(e->n * sizeof *perm);
        for (uint64_t i = 0; i < e->n; i++)
            perm[i] = (uint32_t)i;
        for (uint64_t i = e->n - 1; i > 0; i--) {
            uint64_t j = rnd_below(i + 1);
            uint32_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    }
    struct csr_builder *b = csr_builder_new();
    struct wx_error err;
    wx_error_clear(&err);
    int rc = WX_OK;
    for (uint64_t i = 0; i < e->m && rc == WX_OK; i++)
        rc = csr_builder_add(b, perm ? perm[e->src[i]] : e->src[i], 0,
                             perm ? perm[e->dst[i]] : e->dst[i], &err);
    if (rc == WX_OK)
        rc = csr_builder_finish(b, e->n, NULL, g, &err);
    else
        csr_builder_free(b);
    free(perm);
    free(e->src);
    free(e->dst);
    memset(e, 0, sizeof *e);
    if (rc != WX_OK)
        fprintf(stderr, "test_gpu_scc: building a graph failed: %s\n", err.msg);
    return rc;
}

/* ---- the comparison ---- */

/* One decomposition through the device API under tuning t; every setting
 * must give Tarjan's ids and counts. */
static void run_tuned(const char *tag, const char *what, const struct csr *g,
                      const struct scc_result *c, const struct scc_gpu_tuning *t)
{
    struct dgraph dg;
    struct scc_result r;
    struct scc_gpu_stats st;
    struct wx_error err;
    wx_error_clear(&err);
    memset(&r, 0, sizeof r);
    memset(&st, 0, sizeof st);
    uint32_t *d_comp = NULL, *ids = malloc(g->n_vertices * sizeof *ids + 1);
    int rc = dgraph_upload(g, 0, &dg, &err);
    if (rc == WX_OK) {
        rc = scc_gpu_ids_new(g->n_vertices, &d_comp, &err);
        if (rc == WX_OK)
            rc = scc_gpu_device_tuned(&dg, d_comp, &r, &st, t, &err);
        if (rc == WX_OK)
            rc = scc_gpu_ids_download(d_comp, g->n_vertices, ids, &err);
        scc_gpu_ids_free(d_comp);
        dgraph_free(&dg);
    }
    int ok = rc == WX_OK && r.n_sccs == c->n_sccs && r.n_trivial == c->n_trivial &&
             r.largest == c->largest && r.n_bottom == c->n_bottom &&
             r.n_bottom_trivial == c->n_bottom_trivial && r.n_in_nontrivial == c->n_in_nontrivial &&
             (g->n_vertices == 0 || !memcmp(ids, c->comp, g->n_vertices * sizeof *ids));
    check(ok, "%s: %s (trim share %u, sweeps %u, pivot %d, colour %d, persistent %d, hops %u, "
          "blocks/SM %u, sort %d, fb rounds %u, residue %d/%u ns, pivot local %u wide %u, "
          "detect %u hops %u, symmetric %d; %u colour + %u multi-source rounds "
          "(%llu pivots), %u levels, CPU residue %llu vertices (reason %d), %u detection passes "
          "(%llu SCCs), symmetric path %d, components %d) equals Tarjan%s%s",
          tag, what, t->trim_min_share, t->trim_max_sweeps, t->pivot, t->colour_dir, t->persistent,
          t->chain_hops, t->coop_blocks_per_sm, t->transpose_sort, t->fb_rounds, t->residue,
          t->residue_ns, t->pivot_local, t->pivot_wide, t->trim_detect, t->trim_hops,
          t->symmetric, st.rounds, st.fb_rounds, (unsigned long long)st.fb_pivots, st.levels,
          (unsigned long long)st.residue_n, st.residue_reason, st.detect_passes,
          (unsigned long long)st.detect_sccs, st.symmetric, st.components, rc ? ": " : "",
          rc ? err.msg : "");
    free(ids);
}

/* The same graph under a random strategy (scc_gpu_tuning): no trimming or
 * trimming to the end, with or without the pivot search, either colour
 * direction first (one direction only on small graphs: it may need a round
 * per vertex), multi-source rounds, the CPU residue, the symmetric path;
 * then each new path forced on: multi-source rounds only (no colouring),
 * the CPU residue right after the first trim, a budget of 1 ns per residue
 * item (the engines give up mid-search, wherever the first level check
 * falls), warp-shared wide vertices with local expansion, and small-SCC
 * detection with a small closure bound. */
static void compare_tuned(const char *tag, const struct csr *g, const struct scc_result *c)
{
    static const uint32_t shares[] = {0, 1, 64, 100000};
    struct scc_gpu_tuning t;
    scc_gpu_tuning_default(&t);
    t.trim_min_share = shares[rnd_below(4)];
    t.trim_max_sweeps = 1 + (uint32_t)rnd_below(rnd_below(2) ? 3 : 1000);
    t.pivot = (int)rnd_below(2);
    t.colour_dir = (int)rnd_below(g->n_vertices <= 300 ? 4 : 2);
    t.persistent = rnd_below(4) != 0;
    static const uint32_t hops[] = {0, 1, 3, 4096};
    t.chain_hops = hops[rnd_below(4)];
    if (g->n_vertices > 50000) {
        /* the large fixed cases include rings of 10^6 vertices: one launch
         * per level (or one grid barrier per step) would take minutes */
        t.persistent = 1;
        t.chain_hops = 1024 << rnd_below(3);
    }
    t.coop_blocks_per_sm = (uint32_t)rnd_below(3);
    t.transpose_sort = (int)rnd_below(3);
    static const uint32_t fbr[] = {0, 1, 3, SCC_GPU_FB_ALL};
    t.fb_rounds = fbr[rnd_below(4)];
    if (g->n_vertices > 20000 && t.fb_rounds > 16)
        t.fb_rounds = 16; /* all rounds: one per SCC on a chain of 10^5 SCCs */
    if (quick && t.fb_rounds > 3)
        t.fb_rounds = 3; /* racecheck serialises the grid barriers of every round */
    t.residue = (int)rnd_below(3);
    static const uint32_t ns[] = {0, 1, 10, 1000};
    t.residue_ns = ns[rnd_below(4)];
    t.residue_max = rnd_below(2) ? ~0ull : rnd_below(4 * (g->n_vertices + g->n_edges) + 1);
    static const uint32_t local[] = {0, 1, 2, 8}, wide[] = {0, 1, 4, 32};
    t.pivot_local = local[rnd_below(4)];
    t.pivot_wide = wide[rnd_below(4)];
    static const uint32_t detect[] = {0, 1, 2, 3, 8, 20, 32, 1000};
    t.trim_detect = detect[rnd_below(8)];
    static const uint32_t trim_hops[] = {0, 1, 2, 64};
    t.trim_hops = trim_hops[rnd_below(4)];
    t.symmetric = (int)rnd_below(2);
    run_tuned(tag, "random tuning", g, c, &t);

    /* the forced paths: all five per graph, or in --quick (what the
     * sanitizers run) one per graph in turn */
    static unsigned turn;
    const int big = g->n_vertices > 20000;
    for (int k = 0; k < 5; k++) {
        if (quick && k != (int)(turn % 5))
            continue;
        scc_gpu_tuning_default(&t);
        switch (k) {
        case 0:
            /* all rounds multi-source (on large graphs 8: a chain of 10^5
             * SCCs needs a round per SCC; 3 in --quick: racecheck
             * serialises the grid barriers of every round) */
            t.fb_rounds = big ? 8 : quick ? 3 : SCC_GPU_FB_ALL;
            t.residue = 0;
            run_tuned(tag, "multi-source rounds only", g, c, &t);
            break;
        case 1:
            t.residue = 2;
            run_tuned(tag, "CPU residue after the first trim", g, c, &t);
            break;
        case 2:
            t.residue = 1;
            t.residue_ns = 1;
            t.residue_max = ~0ull;
            t.fb_rounds = rnd_below(2) ? 0 : big ? 8 : quick ? 3 : SCC_GPU_FB_ALL;
            run_tuned(tag, "CPU residue on a 1 ns budget", g, c, &t);
            break;
        case 3:
            /* every vertex of >= 2 edges expanded by its warp, and local
             * expansion in the pivot searches (single and multi-source) */
            t.pivot_wide = 1;
            t.pivot_local = 1 + (uint32_t)rnd_below(8);
            t.fb_rounds = rnd_below(2) ? 0 : big ? 8 : quick ? 3 : SCC_GPU_FB_ALL;
            t.residue = 0;
            run_tuned(tag, "warp-shared wide vertices, local expansion", g, c, &t);
            break;
        default:
            /* small-SCC detection with small closure bounds (closures that
             * overflow, chunks that stop detection), with or without the
             * symmetric path and the later phases */
            t.trim_detect = 1 + (uint32_t)rnd_below(8);
            t.trim_hops = (uint32_t)rnd_below(3);
            t.symmetric = (int)rnd_below(2);
            t.fb_rounds = (uint32_t)rnd_below(3);
            t.residue = 0;
            run_tuned(tag, "small-SCC detection in the first trim, small bound", g, c, &t);
            break;
        }
    }
    turn++;
}

static void compare(const char *tag, const struct csr *g)
{
    struct scc_result c, d;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = scc_cpu(g, &c, &err);
    if (rc != WX_OK) {
        check(0, "%s: Tarjan: %s", tag, err.msg);
        return;
    }
    if (ref_only) {
        check(1, "%s: %llu vertices, %llu edges, %llu SCCs (Tarjan only)", tag,
              (unsigned long long)g->n_vertices, (unsigned long long)g->n_edges,
              (unsigned long long)c.n_sccs);
        scc_result_free(&c);
        return;
    }
    rc = scc_gpu(g, &d, &err);
    n_compared++;
    if (check(rc == WX_OK, "%s: scc_gpu returns OK (%llu vertices, %llu edges)%s%s", tag,
              (unsigned long long)g->n_vertices, (unsigned long long)g->n_edges,
              rc ? ": " : "", rc ? err.msg : "")) {
        uint64_t bad = g->n_vertices, nbad = 0;
        for (uint64_t v = 0; v < g->n_vertices; v++)
            if (c.comp[v] != d.comp[v]) {
                if (bad == g->n_vertices)
                    bad = v;
                nbad++;
            }
        if (bad == g->n_vertices)
            check(1, "%s: canonical ids identical (%llu vertices, %llu SCCs)", tag,
                  (unsigned long long)g->n_vertices, (unsigned long long)c.n_sccs);
        else
            check(0, "%s: %llu ids differ, first at vertex %llu: Tarjan %u, GPU %u", tag,
                  (unsigned long long)nbad, (unsigned long long)bad, c.comp[bad], d.comp[bad]);
        int same = c.n_vertices == d.n_vertices && c.n_sccs == d.n_sccs &&
                   c.n_trivial == d.n_trivial && c.largest == d.largest &&
                   c.n_bottom == d.n_bottom && c.n_bottom_trivial == d.n_bottom_trivial &&
                   c.n_in_nontrivial == d.n_in_nontrivial;
        check(same,
              "%s: counts (n, SCCs, trivial, largest, bottom, bottom trivial, in non-trivial) "
              "Tarjan %llu %llu %llu %llu %llu %llu %llu, GPU %llu %llu %llu %llu %llu %llu %llu",
              tag, (unsigned long long)c.n_vertices, (unsigned long long)c.n_sccs,
              (unsigned long long)c.n_trivial, (unsigned long long)c.largest,
              (unsigned long long)c.n_bottom, (unsigned long long)c.n_bottom_trivial,
              (unsigned long long)c.n_in_nontrivial, (unsigned long long)d.n_vertices,
              (unsigned long long)d.n_sccs, (unsigned long long)d.n_trivial,
              (unsigned long long)d.largest, (unsigned long long)d.n_bottom,
              (unsigned long long)d.n_bottom_trivial, (unsigned long long)d.n_in_nontrivial);
    }
    if (rc == WX_OK)
        compare_tuned(tag, g, &c);
    scc_result_free(&c);
    scc_result_free(&d);
}

static void run_edges(const char *tag, struct edges *e, int permute)
{
    struct csr g;
    if (!check(e_build(e, permute, &g) == WX_OK, "%s: graph built", tag))
        return;
    compare(tag, &g);
    csr_free(&g);
}

/* ---- shapes ---- */

enum shape {
    SH_SPARSE, SH_RMAT, SH_GRID_DAG, SH_GIANT, SH_CONDENSED, SH_CHAIN, SH_SELF_ISOLATED,
    SH_RING_CHORDS, SH_SCC_CHAIN, SH_SYMMETRIC, SH_N
};
static const char *shape_name[SH_N] = {"sparse", "rmat", "grid-dag", "giant", "condensed",
                                       "chain", "self+isolated", "ring+chords", "chain-of-sccs",
                                       "symmetric"};

static void gen_sparse(struct edges *e, uint64_t n)
{
    e->n = n;
    uint64_t m = n ? rnd_below(4 * n + 1) : 0;
    for (uint64_t i = 0; i < m; i++)
        e_add(e, rnd_below(n), rnd_below(n));
}

static void gen_rmat(struct edges *e, unsigned scale)
{
    uint64_t n = (uint64_t)1 << scale;
    e->n = n;
    uint64_t m = n * (1 + rnd_below(8));
    for (uint64_t i = 0; i < m; i++) {
        uint64_t s = 0, d = 0;
        for (unsigned k = 0; k < scale; k++) {
            uint64_t r = rnd_below(100); /* a 57 / b 19 / c 19 / d 5 */
            int bs = r >= 76, bd = (r >= 57 && r < 76) || r >= 95;
            s = s << 1 | (uint64_t)bs;
            d = d << 1 | (uint64_t)bd;
        }
        e_add(e, s, d);
    }
}

/* Hubs, as in state spaces (abp: states with thousands of successors or
 * predecessors): n vertices with one random successor each, and hubs
 * vertices with fan random successors and fan random predecessors each
 * (the pivot search expands a vertex of more than 32 edges with its whole
 * warp). */
static void gen_hubs(struct edges *e, uint64_t n, uint64_t hubs, uint64_t fan)
{
    e->n = n;
    for (uint64_t v = 0; v < n; v++)
        e_add(e, v, rnd_below(n));
    for (uint64_t h = 0; h < hubs && h < n; h++) {
        const uint64_t hv = rnd_below(n);
        for (uint64_t k = 0; k < fan; k++) {
            e_add(e, hv, rnd_below(n));
            e_add(e, rnd_below(n), hv);
        }
    }
}

/* 3-D grid sx*sy*sz with +x, +y, +z edges and back edges with 1/p each. */
static void gen_grid_dag(struct edges *e, uint64_t sx, uint64_t sy, uint64_t sz, uint64_t p)
{
    e->n = sx * sy * sz;
    for (uint64_t z = 0; z < sz; z++)
        for (uint64_t y = 0; y < sy; y++)
            for (uint64_t x = 0; x < sx; x++) {
                uint64_t v = x + sx * (y + sy * z);
                if (x + 1 < sx) e_add(e, v, v + 1);
                if (y + 1 < sy) e_add(e, v, v + sx);
                if (z + 1 < sz) e_add(e, v, v + sx * sy);
                if (x > 0 && rnd_below(p) == 0) e_add(e, v, v - 1);
                if (y > 0 && rnd_below(p) == 0) e_add(e, v, v - sx);
                if (z > 0 && rnd_below(p) == 0) e_add(e, v, v - sx * sy);
            }
}

static void gen_giant(struct edges *e, uint64_t n)
{
    e->n = n;
    for (uint64_t v = 0; v < n; v++)
        e_add(e, v, (v + 1) % n);
    uint64_t extra = rnd_below(2 * n + 1);
    for (uint64_t i = 0; i < extra; i++)
        e_add(e, rnd_below(n), rnd_below(n));
    /* a few hanging trees in and out, so the giant SCC is not everything */
    uint64_t hang = rnd_below(n / 4 + 1);
    uint64_t base = e->n;
    e->n += hang;
    for (uint64_t i = 0; i < hang; i++) {
        if (rnd_below(2))
            e_add(e, base + i, rnd_below(base + i));
        else
            e_add(e, rnd_below(base + i), base + i);
    }
}

/* Random blocks (cycles, cliques, single vertices with or without a
 * self-loop) connected by forward edges only: the condensation is a DAG
 * and the SCCs are exactly the blocks. */
static void gen_condensed(struct edges *e, uint64_t n)
{
    e->n = n;
    uint64_t v = 0;
    while (v < n) {
        uint64_t k = 1 + rnd_below(rnd_below(3) == 0 ? 40 : 4);
        if (v + k > n)
            k = n - v;
        int kind = (int)rnd_below(3);
        if (k == 1) {
            if (kind == 0)
                e_add(e, v, v);
        } else if (kind == 2 && k <= 12) {
            for (uint64_t a = 0; a < k; a++)
                for (uint64_t b = 0; b < k; b++)
                    if (a != b) e_add(e, v + a, v + b);
        } else {
            for (uint64_t a = 0; a < k; a++)
                e_add(e, v + a, v + (a + 1) % k);
        }
        uint64_t fwd = rnd_below(3);
        for (uint64_t i = 0; i < fwd && v + k < n; i++)
            e_add(e, v + rnd_below(k), v + k + rnd_below(n - v - k));
        v += k;
    }
}

static void gen_chain(struct edges *e, uint64_t n, int kind)
{
    e->n = n;
    for (uint64_t v = 0; v + 1 < n; v++) {
        if (kind == 0 || kind == 2)
            e_add(e, v, v + 1);
        if (kind == 1 || kind == 2)
            e_add(e, v + 1, v);
    }
    if (kind == 3 && n)
        for (uint64_t v = 0; v < n; v++)
            e_add(e, v, (v + 1) % n); /* one cycle */
}

/* Long diameter, one SCC: a ring 0 -> 1 -> ... -> n-1 -> 0 plus `chords`
 * short forward chords (v -> v + 2..5) and, when back, as many short back
 * edges (v -> v - 1..3): the diameter stays about n / 4 at least, the
 * shape of a state space with one long cycle. */
static void gen_ring_chords(struct edges *e, uint64_t n, uint64_t chords, int back)
{
    e->n = n;
    for (uint64_t v = 0; v < n; v++)
        e_add(e, v, (v + 1) % n);
    for (uint64_t i = 0; n > 1 && i < chords; i++) {
        uint64_t v = rnd_below(n);
        e_add(e, v, (v + 2 + rnd_below(4)) % n);
        if (back)
            e_add(e, v, (v + n - 1 - rnd_below(3)) % n);
    }
}

/* A chain of k SCCs, each a cycle of 1..len vertices (a single vertex with
 * or without a self-loop when 1), consecutive ones joined by one edge in
 * the direction dir (0: increasing ids, 1: decreasing, 2: random), and,
 * when the random draw says so, an extra edge between every pair back-to-
 * front that merges them (a long cycle of cycles). */
static void gen_scc_chain(struct edges *e, uint64_t k, uint64_t len, int dir)
{
    uint64_t *start = malloc((k + 1) * sizeof *start);
    if (!start) {
        fprintf(stderr, "test_gpu_scc: out of memory\n");
        exit(3);
    }
    e->n = 0;
    for (uint64_t i = 0; i < k; i++) {
        start[i] = e->n;
        e->n += 1 + rnd_below(len);
    }
    start[k] = e->n;
    for (uint64_t i = 0; i < k; i++) {
        uint64_t a = start[i], c = start[i + 1] - a;
        if (c == 1) {
            if (rnd_below(2))
                e_add(e, a, a);
        } else {
            for (uint64_t j = 0; j < c; j++)
                e_add(e, a + j, a + (j + 1) % c);
        }
        if (i + 1 < k) {
            uint64_t u = a + rnd_below(c), v = start[i + 1] + rnd_below(start[i + 2] - start[i + 1]);
            int d = dir == 2 ? (int)rnd_below(2) : dir;
            if (d == 0)
                e_add(e, u, v);
            else
                e_add(e, v, u);
        }
    }
    free(start);
}

/* 3-D torus sx*sy*sz with the 6 neighbours (one SCC, symmetric; a size
 * of 2 gives both neighbours the same vertex, 1 a self-loop). */
static void gen_torus(struct edges *e, uint64_t sx, uint64_t sy, uint64_t sz)
{
    e->n = sx * sy * sz;
    for (uint64_t z = 0; z < sz; z++)
        for (uint64_t y = 0; y < sy; y++)
            for (uint64_t x = 0; x < sx; x++) {
                uint64_t v = x + sx * (y + sy * z);
                e_add(e, v, (x + 1) % sx + sx * (y + sy * z));
                e_add(e, v, (x + sx - 1) % sx + sx * (y + sy * z));
                e_add(e, v, x + sx * ((y + 1) % sy + sy * z));
                e_add(e, v, x + sx * ((y + sy - 1) % sy + sy * z));
                e_add(e, v, x + sx * (y + sy * ((z + 1) % sz)));
                e_add(e, v, x + sx * (y + sy * ((z + sz - 1) % sz)));
            }
}

/* Symmetric graphs (the symmetric path: no transposition, a one-way pivot
 * search): random undirected graphs (components of every size, isolated
 * vertices, self-loops) or small tori; with `broken`, one random edge is
 * added one way only, so that the check must say no. */
static void gen_symmetric(struct edges *e, uint64_t n, int broken)
{
    if (n > 8 && rnd_below(3) == 0) {
        gen_torus(e, 1 + rnd_below(12), 1 + rnd_below(12), 1 + rnd_below(6));
    } else {
        e->n = n;
        uint64_t m = n ? rnd_below(2 * n + 1) : 0;
        for (uint64_t i = 0; i < m; i++) {
            uint64_t a = rnd_below(n), b = rnd_below(4) ? (a + 1 + rnd_below(8)) % n : rnd_below(n);
            e_add(e, a, b);
            e_add(e, b, a);
        }
    }
    if (broken && e->n > 1)
        e_add(e, rnd_below(e->n), rnd_below(e->n));
}

static void gen_self_isolated(struct edges *e, uint64_t n)
{
    e->n = n;
    for (uint64_t v = 0; v < n; v++) {
        uint64_t r = rnd_below(4);
        if (r == 0)
            e_add(e, v, v);
        else if (r == 1 && n > 1)
            e_add(e, v, rnd_below(n));
    }
}

static void random_graph(uint64_t seed, uint64_t i, int small)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + i + 1;
    enum shape sh = (enum shape)(i % SH_N);
    struct edges e;
    memset(&e, 0, sizeof e);
    uint64_t scale = small ? 60 : 2000;
    switch (sh) {
    case SH_SPARSE: gen_sparse(&e, rnd_below(scale + 1)); break;
    case SH_RMAT: gen_rmat(&e, 1 + (unsigned)rnd_below(small ? 7 : 12)); break;
    case SH_GRID_DAG: {
        uint64_t s = small ? 4 : 12;
        gen_grid_dag(&e, 1 + rnd_below(s), 1 + rnd_below(s), 1 + rnd_below(s),
                     1 + rnd_below(rnd_below(2) ? 8 : 64));
        break;
    }
    case SH_GIANT: gen_giant(&e, 1 + rnd_below(scale)); break;
    case SH_CONDENSED: gen_condensed(&e, rnd_below(scale + 1)); break;
    case SH_CHAIN: gen_chain(&e, rnd_below(scale + 1), (int)rnd_below(4)); break;
    case SH_SELF_ISOLATED: gen_self_isolated(&e, rnd_below(scale + 1)); break;
    case SH_RING_CHORDS: {
        uint64_t n = 1 + rnd_below(small ? scale : 20 * scale);
        gen_ring_chords(&e, n, rnd_below(n / 8 + 1), (int)rnd_below(2));
        break;
    }
    case SH_SCC_CHAIN:
        gen_scc_chain(&e, 1 + rnd_below(small ? 20 : 2000), 1 + rnd_below(8), (int)rnd_below(3));
        break;
    case SH_SYMMETRIC: gen_symmetric(&e, rnd_below(scale + 1), rnd_below(4) == 0); break;
    default: break;
    }
    int permute = (int)rnd_below(2);
    char tag[160];
    snprintf(tag, sizeof tag, "random %s #%llu seed %llu%s", shape_name[sh], (unsigned long long)i,
             (unsigned long long)seed, permute ? " permuted" : "");
    run_edges(tag, &e, permute);
}

/* Parallel edges (the CSR builder drops them, so these CSRs are written
 * by hand): the symmetry check wants every edge matched by as many reverse
 * edges (the graph as its own transpose).  "0 -> 1 twice, 1 -> 0
 * once" must take the general path, "twice both ways" may take the
 * symmetric one; both must equal Tarjan under the default tuning and with
 * the symmetric check forced off. */
static void multiplicity_cases(void)
{
    static const uint64_t off_a[] = {0, 3, 4, 5}, off_b[] = {0, 3, 5, 6};
    static const uint32_t tgt_a[] = {1, 1, 2, 0, 0}, tgt_b[] = {1, 1, 2, 0, 0, 0};
    for (int k = 0; k < 2; k++) {
        struct csr g;
        memset(&g, 0, sizeof g);
        g.n_vertices = 3;
        g.n_edges = k ? 6 : 5;
        g.offsets = (uint64_t *)(k ? off_b : off_a);
        g.targets = (uint32_t *)(k ? tgt_b : tgt_a);
        /* a: 0 -> 1 (x2), 0 -> 2, 1 -> 0, 2 -> 0; b: the same with 1 -> 0 twice */
        compare(k ? "parallel edges matched both ways" : "parallel edges one way only", &g);
    }
}

/* Hand-made corner cases, then a few larger graphs (not in --quick). */
static void fixed_cases(uint64_t seed)
{
    struct edges e;
    memset(&e, 0, sizeof e);
    run_edges("empty graph", &e, 0);
    e.n = 1;
    run_edges("one vertex", &e, 0);
    e.n = 1;
    e_add(&e, 0, 0);
    run_edges("one vertex with a self-loop", &e, 0);
    e.n = 7;
    run_edges("seven isolated vertices", &e, 0);
    e.n = 2;
    e_add(&e, 0, 1);
    e_add(&e, 1, 0);
    run_edges("two-cycle", &e, 0);
    e.n = 3;
    e_add(&e, 2, 1);
    e_add(&e, 1, 0);
    e_add(&e, 0, 0);
    run_edges("reverse chain ending in a self-loop", &e, 0);

    rng_state = seed + 77;
    uint64_t big = quick ? 64 : 200000;
    const char *chain_name[4] = {"increasing", "decreasing", "two-way", "cycle"};
    for (int k = 0; k < 4; k++) {
        char tag[96];
        snprintf(tag, sizeof tag, "chain %s of %llu vertices", chain_name[k], (unsigned long long)big);
        gen_chain(&e, big, k);
        run_edges(tag, &e, 0);
    }
    gen_grid_dag(&e, quick ? 12 : 40, quick ? 12 : 40, quick ? 2 : 40, 64);
    run_edges("grid-DAG 40x40x40 (12x12x2 in --quick) p=1/64", &e, 0);
    gen_grid_dag(&e, quick ? 10 : 30, quick ? 10 : 30, quick ? 2 : 30, 8);
    run_edges("grid-DAG 30x30x30 (10x10x2 in --quick) p=1/8, permuted", &e, 1);
    gen_ring_chords(&e, quick ? 100 : 100000, quick ? 10 : 20000, 1);
    run_edges("ring of 10^5 (100 in --quick) with chords both ways", &e, 0);
    gen_hubs(&e, quick ? 300 : 200000, quick ? 3 : 40, quick ? 100 : 6000);
    run_edges("hubs: 40 vertices of 6000 successors and predecessors (3 of 100 in --quick)", &e, 1);
    gen_torus(&e, quick ? 5 : 40, quick ? 4 : 40, quick ? 3 : 40);
    run_edges("torus 40^3 (5x4x3 in --quick)", &e, 0);
    gen_torus(&e, quick ? 5 : 40, quick ? 4 : 40, quick ? 3 : 40);
    e.m--; /* the last vertex's edge to z - 1 missing: not symmetric */
    run_edges("torus 40^3 (5x4x3 in --quick) less one edge", &e, 0);
    multiplicity_cases();
    if (quick)
        return;
    /* symmetric, ~3 * 10^5 components (connected components by union-find:
     * many roots, long links in the permuted ids) */
    e.n = 1000000;
    for (uint64_t i = 0; i < 700000; i++) {
        uint64_t a = rnd_below(e.n), b = rnd_below(4) ? (a + 1 + rnd_below(8)) % e.n : rnd_below(e.n);
        e_add(&e, a, b);
        e_add(&e, b, a);
    }
    run_edges("random undirected graph of 10^6 vertices, 7*10^5 edge pairs, permuted", &e, 1);
    gen_torus(&e, 100, 100, 100);
    run_edges("torus 100^3", &e, 1);
    gen_ring_chords(&e, 1000000, 0, 0);
    run_edges("ring of 10^6 vertices", &e, 0);
    gen_ring_chords(&e, 1000000, 100000, 0);
    run_edges("ring of 10^6 with 10^5 forward chords, permuted", &e, 1);
    gen_scc_chain(&e, 100000, 6, 0);
    run_edges("chain of 10^5 SCCs, increasing", &e, 0);
    gen_scc_chain(&e, 100000, 6, 1);
    run_edges("chain of 10^5 SCCs, decreasing", &e, 0);
    gen_scc_chain(&e, 50000, 6, 2);
    run_edges("chain of 5*10^4 SCCs, mixed directions, permuted", &e, 1);
    gen_sparse(&e, 300000);
    run_edges("sparse random 300000", &e, 1);
    gen_rmat(&e, 17);
    run_edges("R-MAT 2^17", &e, 0);
    gen_giant(&e, 200000);
    run_edges("giant SCC 200000 + hanging trees, permuted", &e, 1);
    gen_condensed(&e, 300000);
    run_edges("condensation DAG of 300000 vertices", &e, 0);
}

/* ---- PRISM exports ---- */

static void prism_scc(const char *name, const char *tra, const char *json)
{
    struct csr g;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = graph_read(tra, &g, &err);
    if (!check(rc == WX_OK, "prism %s: .tra read%s%s", name, rc ? ": " : "", rc ? err.msg : ""))
        return;
    char tag[300];
    snprintf(tag, sizeof tag, "prism %s", name);
    if (quick && g.n_vertices > 400) { /* the sanitizers' subset stays small */
        check(1, "%s: %llu states, skipped in --quick", tag, (unsigned long long)g.n_vertices);
        csr_free(&g);
        return;
    }
    compare(tag, &g);
    if (!ref_only) {
        struct scc_result r;
        rc = scc_gpu(&g, &r, &err);
        prism_check_sccs("GPU ", name, json, g.n_vertices, &r, rc == WX_OK);
        scc_result_free(&r);
    }
    csr_free(&g);
}

/* The device-level API (scc_gpu.h): ids stay on the device until
 * downloaded, the stats are filled, and repeated runs on one uploaded graph
 * give the same ids (determinism of the partition and the numbering). */
static void device_api(uint64_t seed)
{
    struct edges e;
    memset(&e, 0, sizeof e);
    rng_state = seed + 99;
    gen_giant(&e, quick ? 500 : 50000);
    struct csr g;
    if (e_build(&e, 1, &g) != WX_OK)
        return;
    struct dgraph dg;
    struct scc_result r, c;
    struct scc_gpu_stats st;
    struct wx_error err;
    wx_error_clear(&err);
    uint32_t *d_comp = NULL, *ids = malloc(g.n_vertices * sizeof *ids);
    scc_cpu(&g, &c, &err);
    int rc = dgraph_upload(&g, 0, &dg, &err);
    if (rc == WX_OK)
        rc = scc_gpu_ids_new(g.n_vertices, &d_comp, &err);
    for (int run = 0; run < 3 && rc == WX_OK; run++) {
        rc = scc_gpu_device(&dg, d_comp, &r, &st, &err);
        if (rc == WX_OK)
            rc = scc_gpu_ids_download(d_comp, g.n_vertices, ids, &err);
        if (!check(rc == WX_OK, "device API run %d%s%s", run, rc ? ": " : "", rc ? err.msg : ""))
            break;
        check(!memcmp(ids, c.comp, g.n_vertices * sizeof *ids) && r.n_sccs == c.n_sccs &&
                  r.largest == c.largest && r.comp == NULL,
              "device API run %d: ids and counts equal Tarjan's (%llu SCCs, largest %llu; "
              "%u rounds, %u trim sweeps, %u levels, %.3f ms)",
              run, (unsigned long long)r.n_sccs, (unsigned long long)r.largest, st.rounds,
              st.trim_sweeps, st.levels, st.total_ms);
    }
    check(rc == WX_OK, "device API: no error%s%s", rc ? ": " : "", rc ? err.msg : "");
    scc_gpu_ids_free(d_comp);
    dgraph_free(&dg);
    free(ids);
    scc_result_free(&c);
    csr_free(&g);
}

/* scc_gpu_tuning_parse and scc_gpu_set_tuning (bad specs fail loudly; a
 * good one is applied). */
static void tuning_parse(uint64_t seed)
{
    struct scc_gpu_tuning t;
    struct wx_error err;
    wx_error_clear(&err);
    scc_gpu_tuning_default(&t);
    int rc = scc_gpu_tuning_parse("fb_rounds=7,residue=2,residue_max=0x100,pivot=0", &t, &err);
    check(rc == WX_OK && t.fb_rounds == 7 && t.residue == 2 && t.residue_max == 256 && t.pivot == 0 &&
              t.persistent == 1,
          "tuning parse: four fields set, the others kept");
    rc = scc_gpu_tuning_parse("trim_hops=3,trim_detect=20", &t, &err);
    check(rc == WX_OK && t.trim_hops == 3 && t.trim_detect == 20 && t.fb_rounds == 7,
          "tuning parse: the first trim's fields");
    rc = scc_gpu_tuning_parse("symmetric=0", &t, &err);
    check(rc == WX_OK && t.symmetric == 0, "tuning parse: symmetric=0");
    rc = scc_gpu_tuning_parse("symmetric=1", &t, &err);
    check(rc == WX_OK && t.symmetric == 1, "tuning parse: symmetric=1");
    /* bad syntax, unknown names, values out of range */
    static const char *bad[] = {"bogus=1",      "fb_rounds",        "fb_rounds=",  "fb_rounds=4x",
                                "residue=1,,",  "=3",               "symmetric=2", "segment_degree=4",
                                "symmetric=-1", "segment_degree=0"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wx_error_clear(&err);
        rc = scc_gpu_tuning_parse(bad[i], &t, &err);
        check(rc == WX_EINPUT, "tuning parse: '%s' rejected (%s)", bad[i], err.msg);
    }
    struct edges e;
    memset(&e, 0, sizeof e);
    rng_state = seed + 5;
    gen_grid_dag(&e, 6, 6, 6, 4);
    struct csr g;
    if (e_build(&e, 1, &g) != WX_OK)
        return;
    struct scc_result c, r;
    scc_cpu(&g, &c, &err);
    struct scc_gpu_tuning all;
    scc_gpu_tuning_default(&all);
    rc = scc_gpu_tuning_parse("residue=0,fb_rounds=0xffffffff", &all, &err);
    scc_gpu_set_tuning(&all);
    rc = rc == WX_OK ? scc_gpu(&g, &r, &err) : rc;
    check(rc == WX_OK && r.n_sccs == c.n_sccs && !memcmp(r.comp, c.comp, g.n_vertices * sizeof *r.comp),
          "scc_gpu_set_tuning(residue=0,fb_rounds=all): scc_gpu equals Tarjan (%llu SCCs)",
          (unsigned long long)c.n_sccs);
    scc_gpu_set_tuning(NULL);
    scc_result_free(&r);
    scc_result_free(&c);
    csr_free(&g);
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    uint64_t graphs = 560;
    int graphs_given = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--ref-only"))
            ref_only = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--graphs") && i + 1 < argc)
            graphs = strtoull(argv[++i], NULL, 0), graphs_given = 1;
        else if (!strcmp(argv[i], "--probe"))
            return scc_gpu_available() ? 0 : 1;
        else {
            fprintf(stderr, "usage: test_gpu_scc [--quick] [--seed N] [--graphs N] [--probe] [--ref-only]\n");
            return 2;
        }
    }
    if (!ref_only && !scc_gpu_available()) {
        check(0, "gpu: no usable CUDA device; test_gpu_scc needs one (--ref-only runs without)");
        return check_exit();
    }
    printf("# test_gpu_scc seed %llu%s\n", (unsigned long long)seed, quick ? " (quick)" : "");
    fixed_cases(seed);
    uint64_t count = quick && !graphs_given ? SH_N : graphs; /* one per shape */
    for (uint64_t i = 0; i < count; i++)
        random_graph(seed, i, quick || i % 4 != 3);
    prism_for_each("prism", prism_scc);
    if (!ref_only) {
        device_api(seed);
        tuning_parse(seed);
    }
    printf("# %llu GPU decompositions compared, %d passed, %d failed (seed %llu)\n", n_compared,
           check_passes, check_failures, (unsigned long long)seed);
    return check_exit();
}
