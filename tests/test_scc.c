/*
 * test_scc.c -- analysis/scc (iterative Tarjan) and graph/graph_read.
 *
 *  - Tarjan vs a brute-force reference on random graphs of many shapes: the
 *    reference computes the reachability relation by transitive closure over
 *    bit rows, puts u and v in one SCC iff each reaches the other, numbers the
 *    classes canonically (by smallest vertex) and derives trivial / bottom /
 *    largest counts from the closure alone.  The comp arrays must be equal.
 *  - 10^6-vertex chains (both directions) and a cycle: no recursion limits.
 *  - graph_read: every format on good and bad inputs (located errors, codes),
 *    and the same random graph written in every format reads back the same.
 *  - The PRISM exports in tests/data/mdp:
 *    SCC, non-trivial SCC and BSCC counts against each reference.json.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/scc.h"
#include "graph/graph_read.h"
#include "parser/aut.h"
#include "tests/check.h"
#include "tests/rng.h"
#include "tests/prism_ref.h"

/* xorshift64*: deterministic per seed. */

/* ---- brute-force reference (n <= 64) ---- */

struct ref {
    uint32_t comp[64];
    uint64_t n_sccs, n_trivial, largest, n_bottom, n_bottom_trivial, n_in_nontrivial;
};

static void reference(const struct csr *g, struct ref *r)
{
    unsigned n = (unsigned)g->n_vertices;
    uint64_t reach[64]; /* reach[u] bit v: u reaches v in >= 0 steps */
    int self[64] = {0};
    for (unsigned u = 0; u < n; u++) {
        reach[u] = 1ull << u;
        for (uint64_t e = g->offsets[u]; e < g->offsets[u + 1]; e++) {
            reach[u] |= 1ull << g->targets[e];
            if (g->targets[e] == u)
                self[u] = 1;
        }
    }
    for (unsigned k = 0; k < n; k++) /* Warshall */
        for (unsigned u = 0; u < n; u++)
            if (reach[u] >> k & 1)
                reach[u] |= reach[k];
    memset(r, 0, sizeof *r);
    uint32_t next = 0;
    for (unsigned u = 0; u < n; u++) {
        unsigned first = u;
        for (unsigned v = 0; v < u; v++)
            if ((reach[u] >> v & 1) && (reach[v] >> u & 1)) {
                first = v;
                break;
            }
        r->comp[u] = first == u ? next++ : r->comp[first];
    }
    r->n_sccs = next;
    for (uint32_t c = 0; c < next; c++) {
        uint64_t members = 0, size = 0;
        unsigned any = 0;
        for (unsigned u = 0; u < n; u++)
            if (r->comp[u] == c)
                members |= 1ull << u, size++, any = u;
        int trivial = size == 1 && !self[any];
        r->n_trivial += trivial;
        if (!trivial)
            r->n_in_nontrivial += size;
        if (size > r->largest)
            r->largest = size;
        /* bottom iff everything reachable from a member is a member */
        if ((reach[any] & ~members) == 0) {
            r->n_bottom++;
            r->n_bottom_trivial += trivial;
        }
    }
}

/* ---- random graphs ---- */

enum shape { SPARSE, DENSE, DAG, BIGCYCLE, SELFLOOPS, ISOLATED, PARALLEL, TINY, N_SHAPES };
static const char *shape_name[] = {"sparse", "dense",    "dag",      "big cycle",
                                   "self-loops", "isolated", "parallel", "tiny/empty"};

static int build(struct csr_builder *b, uint64_t n, struct csr *g)
{
    struct wx_error err;
    wx_error_clear(&err);
    return csr_builder_finish(b, n, NULL, g, &err);
}

static void add(struct csr_builder *b, uint64_t u, uint32_t lab, uint64_t v)
{
    struct wx_error err;
    csr_builder_add(b, u, lab, v, &err);
}

static void random_graph(enum shape sh, struct csr *g)
{
    struct csr_builder *b = csr_builder_new();
    uint64_t n = 2 + rnd_below(60), m;
    switch (sh) {
    case SPARSE:
        m = rnd_below(2 * n + 1);
        for (uint64_t i = 0; i < m; i++)
            add(b, rnd_below(n), 0, rnd_below(n));
        break;
    case DENSE: {
        unsigned pct = 20 + (unsigned)rnd_below(60);
        for (uint64_t u = 0; u < n; u++)
            for (uint64_t v = 0; v < n; v++)
                if (rnd_below(100) < pct)
                    add(b, u, 0, v);
        break;
    }
    case DAG: /* edges go from lower to higher positions of a random order */ {
        uint64_t perm[64];
        for (uint64_t i = 0; i < n; i++)
            perm[i] = i;
        for (uint64_t i = n - 1; i > 0; i--) {
            uint64_t j = rnd_below(i + 1), t = perm[i];
            perm[i] = perm[j], perm[j] = t;
        }
        m = rnd_below(3 * n);
        for (uint64_t i = 0; i < m; i++) {
            uint64_t a = rnd_below(n), c = rnd_below(n);
            if (a != c)
                add(b, perm[a < c ? a : c], 0, perm[a < c ? c : a]);
        }
        break;
    }
    case BIGCYCLE: { /* a Hamiltonian cycle in random order plus a few chords */
        uint64_t perm[64];
        for (uint64_t i = 0; i < n; i++)
            perm[i] = i;
        for (uint64_t i = n - 1; i > 0; i--) {
            uint64_t j = rnd_below(i + 1), t = perm[i];
            perm[i] = perm[j], perm[j] = t;
        }
        uint64_t len = rnd_below(2) ? n : 1 + rnd_below(n); /* sometimes a tail */
        for (uint64_t i = 0; i < len; i++)
            add(b, perm[i], 0, perm[(i + 1) % len]);
        for (uint64_t i = len; i < n; i++)
            add(b, perm[i], 0, perm[rnd_below(n)]);
        m = rnd_below(4);
        for (uint64_t i = 0; i < m; i++)
            add(b, rnd_below(n), 0, rnd_below(n));
        break;
    }
    case SELFLOOPS:
        for (uint64_t u = 0; u < n; u++)
            if (rnd_below(2))
                add(b, u, 0, u);
        m = rnd_below(n + 1);
        for (uint64_t i = 0; i < m; i++)
            add(b, rnd_below(n), 0, rnd_below(n));
        break;
    case ISOLATED: /* edges among a few vertices only */
        m = rnd_below(n);
        for (uint64_t i = 0; i < m; i++)
            add(b, rnd_below(1 + n / 4), 0, rnd_below(1 + n / 4));
        break;
    case PARALLEL: /* distinct labels keep parallel edges apart in the CSR */
        m = rnd_below(3 * n);
        for (uint64_t i = 0; i < m; i++) {
            uint64_t u = rnd_below(n), v = rnd_below(n);
            for (uint32_t k = 0, r = 1 + (uint32_t)rnd_below(3); k < r; k++)
                add(b, u, k, v);
        }
        break;
    default: /* TINY: 0, 1 or 2 vertices */
        n = rnd_below(3);
        m = rnd_below(4);
        for (uint64_t i = 0; n && i < m; i++)
            add(b, rnd_below(n), 0, rnd_below(n));
        break;
    }
    build(b, n, g);
}

static int compare(const struct csr *g, const struct scc_result *r, const struct ref *x,
                   char *why, size_t size)
{
    for (uint64_t v = 0; v < g->n_vertices; v++)
        if (r->comp[v] != x->comp[v]) {
            snprintf(why, size, "comp[%llu]: expected %u, found %u", (unsigned long long)v,
                     x->comp[v], r->comp[v]);
            return 0;
        }
#define FIELD(f)                                                                                  \
    if (r->f != x->f) {                                                                           \
        snprintf(why, size, #f ": expected %llu, found %llu", (unsigned long long)x->f,           \
                 (unsigned long long)r->f);                                                       \
        return 0;                                                                                 \
    }
    FIELD(n_sccs) FIELD(n_trivial) FIELD(largest) FIELD(n_bottom) FIELD(n_bottom_trivial)
    FIELD(n_in_nontrivial)
#undef FIELD
    if (r->n_vertices != g->n_vertices) {
        snprintf(why, size, "n_vertices");
        return 0;
    }
    return 1;
}

static void test_random(void)
{
    const int per_shape = 80; /* 8 shapes: 640 graphs */
    for (int sh = 0; sh < N_SHAPES; sh++) {
        int bad = 0;
        char why[256] = "";
        uint64_t bad_seed = 0, edges = 0;
        for (int i = 0; i < per_shape && !bad; i++) {
            uint64_t seed = 0x5cc0000ull + (uint64_t)sh * 1000 + (uint64_t)i;
            rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
            struct csr g;
            random_graph((enum shape)sh, &g);
            edges += g.n_edges;
            struct scc_result r;
            struct ref x;
            struct wx_error err;
            wx_error_clear(&err);
            if (scc_cpu(&g, &r, &err) != WX_OK) {
                bad = 1, bad_seed = seed;
                snprintf(why, sizeof why, "scc_cpu failed: %.200s", err.msg);
            } else {
                reference(&g, &x);
                if (!compare(&g, &r, &x, why, sizeof why))
                    bad = 1, bad_seed = seed;
                scc_result_free(&r);
            }
            csr_free(&g);
        }
        if (bad)
            check(0, "scc random %s graphs vs closure reference: seed %#llx: %s", shape_name[sh],
                  (unsigned long long)bad_seed, why);
        else
            check(1, "scc random %s graphs vs closure reference (%d graphs, %llu edges)",
                  shape_name[sh], per_shape, (unsigned long long)edges);
    }
}

/* ---- big chains and cycles, built directly ---- */

static void make_path(struct csr *g, uint64_t n, int kind)
{
    /* kind 0: v -> v+1; kind 1: v+1 -> v; kind 2: cycle v -> v+1 mod n */
    memset(g, 0, sizeof *g);
    g->n_vertices = n;
    g->offsets = malloc((n + 1) * sizeof *g->offsets);
    g->targets = malloc(n * sizeof *g->targets);
    uint64_t m = 0;
    for (uint64_t v = 0; v < n; v++) {
        g->offsets[v] = m;
        if (kind == 0 && v + 1 < n)
            g->targets[m++] = (uint32_t)(v + 1);
        else if (kind == 1 && v > 0)
            g->targets[m++] = (uint32_t)(v - 1);
        else if (kind == 2)
            g->targets[m++] = (uint32_t)((v + 1) % n);
    }
    g->offsets[n] = m;
    g->n_edges = m;
}

static void test_big(void)
{
    const uint64_t n = 1000000;
    static const char *names[] = {"chain 0->1->..", "chain ..->1->0", "cycle"};
    for (int kind = 0; kind < 3; kind++) {
        struct csr g;
        struct scc_result r;
        struct wx_error err;
        wx_error_clear(&err);
        make_path(&g, n, kind);
        int rc = scc_cpu(&g, &r, &err);
        check(rc == WX_OK, "scc 10^6-vertex %s runs", names[kind]);
        if (rc == WX_OK) {
            if (kind < 2) {
                int ok = 1;
                for (uint64_t v = 0; v < n && ok; v++)
                    ok = r.comp[v] == v;
                check(ok, "scc %s: comp[v] == v (canonical numbering)", names[kind]);
                CHECK_EQ_U64(r.n_sccs, n, "scc %s: SCCs", names[kind]);
                CHECK_EQ_U64(r.n_trivial, n, "scc %s: trivial", names[kind]);
                CHECK_EQ_U64(r.largest, 1, "scc %s: largest", names[kind]);
                CHECK_EQ_U64(r.n_bottom, 1, "scc %s: bottom", names[kind]);
                CHECK_EQ_U64(r.n_bottom_trivial, 1, "scc %s: bottom trivial", names[kind]);
            } else {
                CHECK_EQ_U64(r.n_sccs, 1, "scc %s: SCCs", names[kind]);
                CHECK_EQ_U64(r.n_trivial, 0, "scc %s: trivial", names[kind]);
                CHECK_EQ_U64(r.largest, n, "scc %s: largest", names[kind]);
                CHECK_EQ_U64(r.n_bottom, 1, "scc %s: bottom", names[kind]);
                CHECK_EQ_U64(r.n_bottom_trivial, 0, "scc %s: bottom trivial", names[kind]);
            }
            scc_result_free(&r);
        }
        csr_free(&g);
    }
}

/* ---- graph_read ---- */

static int same_graph(const struct csr *a, const struct csr *b)
{
    if (a->n_vertices != b->n_vertices || a->n_edges != b->n_edges)
        return 0;
    for (uint64_t v = 0; v <= a->n_vertices; v++)
        if (a->offsets[v] != b->offsets[v])
            return 0;
    for (uint64_t e = 0; e < a->n_edges; e++)
        if (a->targets[e] != b->targets[e])
            return 0;
    return 1;
}

static int read_text(const char *text, enum graph_format fmt, struct csr *g, struct wx_error *err)
{
    wx_error_clear(err);
    return graph_read_buffer(text, strlen(text), "t", fmt, g, err);
}

/* A good input: n vertices, m edges, and the SCC count. */
static void good(const char *what, const char *text, enum graph_format fmt, uint64_t n, uint64_t m,
                 uint64_t sccs)
{
    struct csr g;
    struct wx_error err;
    int rc = read_text(text, fmt, &g, &err);
    if (!check(rc == WX_OK, "graph_read %s: accepted%s%s", what, rc ? ": " : "", rc ? err.msg : ""))
        return;
    struct scc_result r;
    scc_cpu(&g, &r, &err);
    check(g.n_vertices == n && g.n_edges == m && r.n_sccs == sccs,
          "graph_read %s: expected %llu vertices, %llu edges, %llu SCCs; found %llu, %llu, %llu",
          what, (unsigned long long)n, (unsigned long long)m, (unsigned long long)sccs,
          (unsigned long long)g.n_vertices, (unsigned long long)g.n_edges,
          (unsigned long long)r.n_sccs);
    scc_result_free(&r);
    csr_free(&g);
}

/* A bad input: status code, location and a fragment of the message. */
static void bad(const char *what, const char *text, enum graph_format fmt, int code, int line,
                int col, const char *frag)
{
    struct csr g;
    struct wx_error err;
    int rc = read_text(text, fmt, &g, &err);
    int ok = rc == code && err.line == line && err.col == col && strstr(err.msg, frag) &&
             !strcmp(err.file, "t");
    check(ok, "graph_read rejects %s: expected %d at t:%d:%d with '%s', found %d at %s:%d:%d: %s",
          what, code, line, col, frag, rc, err.file, err.line, err.col, err.msg);
    if (rc == WX_OK)
        csr_free(&g);
}

static void test_formats(void)
{
    CHECK_EQ_U64(graph_format_of("a/b.mtx"), GRAPH_MTX, "format of .mtx");
    CHECK_EQ_U64(graph_format_of("a/b.AUT"), GRAPH_AUT, "format of .AUT");
    CHECK_EQ_U64(graph_format_of("b.csr"), GRAPH_CSR, "format of .csr");
    CHECK_EQ_U64(graph_format_of("b.tra"), GRAPH_TRA, "format of .tra");
    CHECK_EQ_U64(graph_format_of("x.d/edges"), GRAPH_EDGES, "format without extension");
    CHECK_EQ_U64(graph_format_of("web-Google.txt"), GRAPH_EDGES, "format of .txt");

    good("edge list with comments, CRLF, weights", "# SNAP\r\n% also\r\n0 1\r\n1\t2 0.5\r\n\n2 0\n5 5",
         GRAPH_EDGES, 6, 4, 4);
    good("empty edge list", "# nothing\n", GRAPH_EDGES, 0, 0, 0);
    good("edge list, duplicates collapse", "0 1\n0 1\n1 0\n", GRAPH_EDGES, 2, 2, 1);
    good("mtx general pattern",
         "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 3\n1 2\n2 3\n3 1\n",
         GRAPH_MTX, 3, 3, 1);
    good("mtx real, values ignored",
         "%%MatrixMarket matrix coordinate real general\n4 4 2\n1 2 0.5\n2 1 -1e3\n", GRAPH_MTX, 4,
         2, 3);
    good("mtx symmetric mirrors",
         "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n2 1 7\n3 2 1\n3 3 1\n",
         GRAPH_MTX, 3, 5, 1);
    good("tra MDP", "# Transitions (MDP)\n3 3 4\n0 0 1 0.5\n0 0 2 0.5\n1 0 0 1 a\n2 0 2 1\n",
         GRAPH_TRA, 3, 4, 2);
    good("tra DTMC", "2 3\n0 1 1\n1 0 0.5\n1 1 5e-1\n", GRAPH_TRA, 2, 3, 1);
    good("aut", "des (1, 3, 4)\n(0, a, 1)\n(1, \"b c\", 0)\n(1, tau, 2)\n", GRAPH_AUT, 4, 3, 3);

    bad("edge list: letter", "0 1\n1 x\n", GRAPH_EDGES, WX_EINPUT, 2, 3, "expected target vertex");
    bad("edge list: one number", "0 1\n  7\n", GRAPH_EDGES, WX_EINPUT, 2, 4, "end of line");
    bad("edge list: glued text", "0 1x\n", GRAPH_EDGES, WX_EINPUT, 1, 4, "a blank");
    bad("edge list: negative", "0 -1\n", GRAPH_EDGES, WX_EINPUT, 1, 3, "'-1'");
    bad("edge list: 64-bit overflow", "0 99999999999999999999\n", GRAPH_EDGES, WX_EINPUT, 1, 3,
        "out of range");
    bad("edge list: id >= 2^32-1", "0 4294967295\n", GRAPH_EDGES, WX_ELIMIT, 1, 3, "too large");
    bad("mtx: no banner", "3 3 1\n1 1\n", GRAPH_MTX, WX_EINPUT, 1, 1, "banner");
    bad("mtx: array", "%%MatrixMarket matrix array real general\n", GRAPH_MTX, WX_EINPUT, 1, 23,
        "'coordinate'");
    bad("mtx: bad field", "%%MatrixMarket matrix coordinate bool general\n", GRAPH_MTX, WX_EINPUT,
        1, 34, "field");
    bad("mtx: not square", "%%MatrixMarket matrix coordinate pattern general\n3 4 0\n", GRAPH_MTX,
        WX_EINPUT, 2, 1, "square");
    bad("mtx: 0 index", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n0 1\n",
        GRAPH_MTX, WX_EINPUT, 3, 1, "start at 1");
    bad("mtx: column out of range", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 4\n",
        GRAPH_MTX, WX_EINPUT, 3, 3, "column index 4");
    bad("mtx: surplus entry",
        "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n", GRAPH_MTX,
        WX_EINPUT, 4, 1, "more entries");
    bad("mtx: missing entries", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n",
        GRAPH_MTX, WX_EINPUT, 2, 5, "declares 2 entries, the file has 1");
    bad("mtx: no size line", "%%MatrixMarket matrix coordinate pattern general\n%c\n", GRAPH_MTX,
        WX_EINPUT, 3, 1, "size line");
    bad("tra: no header", "# only\n", GRAPH_TRA, WX_EINPUT, 2, 1, "header");
    bad("tra: state out of range", "2 2 2\n0 0 1 1\n1 0 2 1\n", GRAPH_TRA, WX_EINPUT, 3, 5,
        "state 2 out of range");
    bad("tra: missing probability", "2 1 1\n0 0 1\n", GRAPH_TRA, WX_EINPUT, 2, 6, "probability");
    bad("tra: bad probability", "2 1 1\n0 0 1 0.5x\n", GRAPH_TRA, WX_EINPUT, 2, 7, "probability");
    bad("tra: missing lines", "2 2 3\n0 0 1 1\n1 0 0 1\n", GRAPH_TRA, WX_EINPUT, 1, 5,
        "declares 3 transition lines, the file has 2");
    bad("tra: surplus line", "2 1 1\n0 0 1 1\n1 0 0 1\n", GRAPH_TRA, WX_EINPUT, 3, 1,
        "more transition lines");
    bad("aut: bad state (located by aut.c)", "des (0, 1, 2)\n(0, a, 5)\n", GRAPH_AUT, WX_EINPUT,
        2, 8, "out of range");

    struct csr g;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = graph_read("tests/out/definitely-missing.mtx", &g, &err);
    check(rc != WX_OK && strstr(err.msg, "cannot open"), "graph_read of a missing file fails: %s",
          err.msg);
}

/* Bytes a C string cannot hold: a NUL inside an edge list is an error. */
static void test_nul_byte(void)
{
    static const char text[] = "0 1\n\0 1\n";
    struct csr g;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = graph_read_buffer(text, sizeof text - 1, "t", GRAPH_EDGES, &g, &err);
    check(rc == WX_EINPUT && err.line == 2 && err.col == 1 && strstr(err.msg, "byte 0x00"),
          "graph_read rejects a NUL byte at t:2:1: found %d at %d:%d: %s", rc, err.line, err.col,
          err.msg);
    if (rc == WX_OK)
        csr_free(&g);
}

/* One random graph written as edge list, mtx, tra, aut and CSR binary reads
 * back identically from each (labels aside). */
static void test_cross_format(void)
{
    char dir[] = "/tmp/wx_scc_XXXXXX";
    if (!mkdtemp(dir)) {
        check(0, "mkdtemp");
        return;
    }
    int all_ok = 1;
    for (int round = 0; round < 20 && all_ok; round++) {
        uint64_t seed = 0xc0ffee00ull + (uint64_t)round;
        rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
        struct csr g;
        random_graph((enum shape)(round % (N_SHAPES - 1)), &g);
        /* an edge list cannot express isolated vertices after the last edge:
         * put a self-loop on the last vertex so all formats agree on n */
        if (g.n_vertices) {
            struct csr_builder *b = csr_builder_new();
            for (uint64_t v = 0; v < g.n_vertices; v++)
                for (uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; e++)
                    add(b, v, 0, g.targets[e]);
            add(b, g.n_vertices - 1, 0, g.n_vertices - 1);
            uint64_t n = g.n_vertices;
            csr_free(&g);
            build(b, n, &g);
            free(g.labels);
            g.labels = NULL;
        }
        char p[5][128];
        const char *ext[5] = {"txt", "mtx", "tra", "aut", "csr"};
        for (int k = 0; k < 5; k++)
            snprintf(p[k], sizeof p[k], "%s/g.%s", dir, ext[k]);
        FILE *f[4];
        for (int k = 0; k < 4; k++)
            f[k] = fopen(p[k], "w");
        fprintf(f[0], "# random graph seed %#llx\n", (unsigned long long)seed);
        fprintf(f[1], "%%%%MatrixMarket matrix coordinate pattern general\n%llu %llu %llu\n",
                (unsigned long long)g.n_vertices, (unsigned long long)g.n_vertices,
                (unsigned long long)g.n_edges);
        fprintf(f[2], "# Transitions (MDP)\n%llu %llu %llu\n", (unsigned long long)g.n_vertices,
                (unsigned long long)g.n_edges, (unsigned long long)g.n_edges);
        fprintf(f[3], "des (0, %llu, %llu)\n", (unsigned long long)g.n_edges,
                (unsigned long long)(g.n_vertices ? g.n_vertices : 1));
        for (uint64_t v = 0; v < g.n_vertices; v++)
            for (uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; e++) {
                unsigned long long a = v, b = g.targets[e];
                fprintf(f[0], "%llu %llu\n", a, b);
                fprintf(f[1], "%llu %llu\n", a + 1, b + 1);
                fprintf(f[2], "%llu %llu %llu 1\n", a, (unsigned long long)(e - g.offsets[v]), b);
                fprintf(f[3], "(%llu, x, %llu)\n", a, b);
            }
        for (int k = 0; k < 4; k++)
            fclose(f[k]);
        struct wx_error err;
        wx_error_clear(&err);
        csr_write(&g, p[4], &err);
        for (int k = 0; k < 5 && all_ok; k++) {
            if (k == 3 && g.n_vertices == 0)
                continue; /* an .aut file has at least one state */
            struct csr h;
            wx_error_clear(&err);
            int rc = graph_read(p[k], &h, &err);
            if (rc != WX_OK || !same_graph(&g, &h)) {
                all_ok = 0;
                check(0, "cross-format .%s, seed %#llx: %s", ext[k], (unsigned long long)seed,
                      rc ? err.msg : "different graph");
            }
            if (rc == WX_OK)
                csr_free(&h);
        }
        csr_free(&g);
        for (int k = 0; k < 5; k++)
            remove(p[k]);
    }
    rmdir(dir);
    if (all_ok)
        check(1, "one graph in 5 formats (edges, mtx, tra, aut, csr) reads back the same (20 graphs)");
}

/* ---- PRISM reference.json ---- */

/* The value of "key": NUMBER inside the object that follows "obj": { in json
 * (brace-matched, so nested objects stay inside); -1 when absent. */
static void prism_scc(const char *name, const char *tra, const char *json)
{
    struct csr g;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = graph_read(tra, &g, &err);
    if (!check(rc == WX_OK, "prism %s: .tra read%s%s", name, rc ? ": " : "", rc ? err.msg : ""))
        return;
    struct scc_result r;
    rc = scc_cpu(&g, &r, &err);
    prism_check_sccs("", name, json, g.n_vertices, &r, rc == WX_OK);
    scc_result_free(&r);
    csr_free(&g);
}

static void test_prism(void)
{
    prism_for_each("prism", prism_scc);
}

int main(void)
{
    test_random();
    test_big();
    test_formats();
    test_nul_byte();
    test_cross_format();
    test_prism();
    return check_exit();
}
