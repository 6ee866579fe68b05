/*
 * test_cyclemean_read.c -- the weighted graph reader (graph/wgraph.h):
 *   - tests/bad/cm/EXPECT: every malformed file with its located error
 *     (line, column, status, message) and every file there listed;
 *   - good inputs of every format: DIMACS with and without a problem name,
 *     CRLF, comments, parallel edges kept in order; edge lists with transit
 *     times; exact decimal scaling; CSR with a .weights sidecar and labelled
 *     CSR with --weight; .aut label weights with defaults;
 *   - option errors (bad regex, no capture group, bad default weight);
 *   - a file read end to end into Howard's and Karp's answers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/cyclemean.h"
#include "graph/csr.h"
#include "graph/wgraph.h"
#include "check.h"

static const char *AUT_REGEX = "cost ([^ ]*)";

static void check_listed(const char *dir, char names[][64], int n)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls %s", dir);
    FILE *p = popen(cmd, "r");
    char line[256];
    int unlisted = 0;
    while (p && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        if (!strcmp(line, "EXPECT"))
            continue;
        int found = 0;
        for (int i = 0; i < n && !found; i++)
            found = !strcmp(names[i], line);
        if (!found)
            unlisted++, check(0, "%s/%s has no row in EXPECT", dir, line);
    }
    if (p)
        pclose(p);
    check(unlisted == 0 && n > 0, "every file in %s is listed (%d rows)", dir, n);
}

static void test_bad_files(void)
{
    FILE *f = fopen("tests/bad/cm/EXPECT", "r");
    if (!check(f != NULL, "tests/bad/cm/EXPECT readable"))
        return;
    static char names[128][64];
    int n = 0;
    char line[512];
    while (fgets(line, sizeof line, f) && n < 128) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char name[64];
        int el, ec, es, off = 0;
        if (sscanf(line, "%63s %d %d %d %n", name, &el, &ec, &es, &off) != 4) {
            check(0, "EXPECT row '%s' malformed", line);
            continue;
        }
        char *want = line + off;
        want[strcspn(want, "\n")] = 0;
        snprintf(names[n++], 64, "%s", name);
        char path[256];
        snprintf(path, sizeof path, "tests/bad/cm/%s", name);
        struct wgraph g;
        struct wx_error err;
        wx_error_clear(&err);
        struct wgraph_options o = {strstr(name, ".aut") ? AUT_REGEX : NULL, NULL};
        int rc = wgraph_read(path, &o, &g, &err);
        check(rc == es && err.line == el && err.col == ec && strstr(err.msg, want) &&
                  strstr(err.file, name) && g.offsets == NULL,
              "bad %s: expected %d:%d status %d '%s'; found %s:%d:%d status %d '%s'", name, el,
              ec, es, want, err.file, err.line, err.col, rc, err.msg);
        wgraph_free(&g);
    }
    fclose(f);
    check_listed("tests/bad/cm", names, n);
}

static int read_text(const char *text, const char *name, enum wgraph_format fmt,
                     const struct wgraph_options *o, struct wgraph *g, struct wx_error *err)
{
    return wgraph_read_buffer(text, strlen(text), name, fmt, o, g, err);
}

static void test_parse_weight(void)
{
    struct {
        const char *s;
        int rc;
        int64_t mant;
        unsigned places;
    } c[] = {
        {"0", WX_OK, 0, 0},         {"-0", WX_OK, 0, 0},        {"+7", WX_OK, 7, 0},
        {"1.50", WX_OK, 15, 1},     {"-0.25", WX_OK, -25, 2},   {"003.000", WX_OK, 3, 0},
        {"2147483647", WX_OK, 2147483647, 0},
        {"123456789012345678", WX_OK, 123456789012345678LL, 0},
        {"1234567890123456789", WX_ELIMIT, 0, 0},
        {"0.000000000000000001", WX_OK, 1, 18},
        {"0.0000000000000000001", WX_ELIMIT, 0, 0},
        {"0.00000000000000000000001", WX_ELIMIT, 0, 0},
        {"5.0000000000000000000", WX_OK, 5, 0},
        {"", WX_EINPUT, 0, 0},      {"-", WX_EINPUT, 0, 0},     {".5", WX_EINPUT, 0, 0},
        {"1.", WX_EINPUT, 0, 0},    {"1e3", WX_EINPUT, 0, 0},   {"1,5", WX_EINPUT, 0, 0},
        {"--1", WX_EINPUT, 0, 0},   {" 1", WX_EINPUT, 0, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int64_t m = -99;
        unsigned p = 99;
        int rc = wgraph_parse_weight(c[i].s, strlen(c[i].s), &m, &p);
        check(rc == c[i].rc && (rc != WX_OK || (m == c[i].mant && p == c[i].places)),
              "weight '%s': expected rc %d %lld/10^%u, found rc %d %lld/10^%u", c[i].s,
              c[i].rc, (long long)c[i].mant, c[i].places, rc, (long long)m, p);
    }
}

static void test_dimacs(void)
{
    struct wgraph g;
    struct wx_error err;
    /* no problem name, CRLF, comment lines, parallel edges 1->2 kept in order */
    const char *t = "c SPRAND-like\r\np 3 5\r\nc arcs\r\na 1 2 4\r\na 2 3 -1\r\n"
                    "a 1 2 -6\r\na 3 1 0\r\na 3 3 2\r\n";
    int rc = read_text(t, "x.dimacs", WGRAPH_DIMACS, NULL, &g, &err);
    int ok = rc == WX_OK && g.n_vertices == 3 && g.n_edges == 5 && g.scale == 0 && !g.transit &&
             g.offsets[1] == 2 && g.targets[0] == 1 && g.weights[0] == 4 && g.targets[1] == 1 &&
             g.weights[1] == -6 && g.offsets[2] == 3 && g.weights[2] == -1 &&
             g.targets[3] == 0 && g.targets[4] == 2 && g.weights[4] == 2;
    check(ok, "DIMACS 'p N M', CRLF, parallel edges in file order (rc %d %s)", rc, err.msg);
    wgraph_free(&g);
    rc = read_text("p sp 2 2\na 1 2 3 2\na 2 1 -1 5\n", "y.dimacs", WGRAPH_DIMACS, NULL, &g,
                   &err);
    ok = rc == WX_OK && g.transit && g.transit[0] == 2 && g.transit[1] == 5 &&
         g.weights[1] == -1;
    check(ok, "DIMACS 'p sp N M' with transit times (rc %d %s)", rc, err.msg);
    wgraph_free(&g);
    /* p declares more vertices than the arcs use: isolated vertices exist */
    rc = read_text("p x 5 0\n", "z.dimacs", WGRAPH_DIMACS, NULL, &g, &err);
    check(rc == WX_OK && g.n_vertices == 5 && g.n_edges == 0, "DIMACS without arcs: 5 vertices");
    wgraph_free(&g);
}

static void test_decimals(void)
{
    struct wgraph g;
    struct wx_error err;
    int rc = read_text("0 1 1.5\n1 0 -0.25\n1 1 2\n0 0 1.50\n", "d.txt", WGRAPH_EDGES, NULL,
                       &g, &err);
    /* edges by source: 0: (1, 1.5) (0, 1.50); 1: (0, -0.25) (1, 2) -> scale 2 */
    int ok = rc == WX_OK && g.scale == 2 && g.weights[0] == 150 && g.weights[1] == 150 &&
             g.weights[2] == -25 && g.weights[3] == 200;
    check(ok, "decimal weights scaled exactly by 10^2 (rc %d %s, scale %u)", rc, err.msg,
          g.scale);
    wgraph_free(&g);
    /* the limit exactly: 214748.3647 scales to 2^31 - 1 */
    rc = read_text("0 0 214748.3647\n0 0 -1\n", "e.txt", WGRAPH_EDGES, NULL, &g, &err);
    check(rc == WX_OK && g.weights[0] == 2147483647 && g.weights[1] == -10000,
          "decimal at the limit: 214748.3647 -> 2147483647 (rc %d %s)", rc, err.msg);
    wgraph_free(&g);
    rc = read_text("0 0 214748.3648\n", "f.txt", WGRAPH_EDGES, NULL, &g, &err);
    check(rc == WX_ELIMIT && err.line == 1 && err.col == 5,
          "decimal past the limit: loud, located (rc %d %d:%d %s)", rc, err.line, err.col,
          err.msg);
    wgraph_free(&g);
}

static void test_aut(void)
{
    struct wgraph g;
    struct wx_error err;
    const char *t = "des (0, 4, 3)\n(0, \"send cost 2\", 1)\n(1, \"cost 0.5\", 2)\n"
                    "(2, tau, 0)\n(1, \"recv\", 1)\n";
    struct wgraph_options o = {"cost ([0-9.]+)", "-1.5"};
    int rc = read_text(t, "a.aut", WGRAPH_AUT, &o, &g, &err);
    /* scale 1: cost 2 -> 20, cost 0.5 -> 5, tau and recv -> -15 */
    int ok = rc == WX_OK && g.scale == 1 && g.n_vertices == 3 && g.n_edges == 4 && g.labels;
    for (uint64_t e = 0; ok && e < g.n_edges; e++) {
        const char *l = strtab_str(g.label_names, g.labels[e]);
        int64_t want = !strcmp(l, "send cost 2") ? 20 : !strcmp(l, "cost 0.5") ? 5 : -15;
        ok = g.weights[e] == want;
    }
    check(ok, ".aut weights from labels, default -1.5, scale 1 (rc %d %s)", rc, err.msg);
    wgraph_free(&g);
    struct {
        const char *re, *dw, *want;
    } bad[] = {
        {"cost (", NULL, "--weight 'cost ('"},
        {"cost [0-9]+", NULL, "has no capture group"},
        {"cost ([0-9]+)", "abc", "--default-weight 'abc'"},
        {NULL, NULL, "give --weight REGEX"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct wgraph_options ob = {bad[i].re, bad[i].dw};
        rc = read_text(t, "a.aut", WGRAPH_AUT, &ob, &g, &err);
        check(rc == WX_EINPUT && strstr(err.msg, bad[i].want), "option error '%s': %s",
              bad[i].want, err.msg);
        wgraph_free(&g);
    }
    struct wgraph_options ow = {"x(1)", NULL};
    rc = read_text("0 1 2\n", "w.txt", WGRAPH_EDGES, &ow, &g, &err);
    check(rc == WX_EINPUT && strstr(err.msg, "apply to labelled graphs"),
          "--weight on an edge list is refused: %s", err.msg);
    wgraph_free(&g);
}

static void test_csr(void)
{
    char dir[] = "/tmp/wx_cm_XXXXXX";
    if (!check(mkdtemp(dir) != NULL, "temp dir"))
        return;
    char path[256], side[300];
    snprintf(path, sizeof path, "%s/g.csr", dir);
    snprintf(side, sizeof side, "%s.weights", path);
    struct strtab *names = strtab_new();
    uint32_t la = strtab_intern(names, "cost 3", 6), lb = strtab_intern(names, "go", 2);
    struct csr_builder *b = csr_builder_new();
    struct wx_error err;
    csr_builder_add(b, 0, la, 1, &err);
    csr_builder_add(b, 1, lb, 0, &err);
    csr_builder_add(b, 1, la, 1, &err);
    struct csr c;
    int rc = csr_builder_finish(b, 2, names, &c, &err);
    if (rc == WX_OK)
        rc = csr_write(&c, path, &err);
    check(rc == WX_OK, "write a labelled CSR (%s)", err.msg);
    struct wgraph g;
    struct wgraph_options o = {"cost ([0-9]+)", "1"};
    rc = wgraph_read(path, &o, &g, &err);
    int ok = rc == WX_OK && g.format == WGRAPH_CSR && g.n_edges == 3;
    for (uint64_t e = 0; ok && e < 3; e++)
        ok = g.weights[e] == (g.labels[e] == la ? 3 : 1);
    check(ok, "labelled CSR with --weight (rc %d %s)", rc, err.msg);
    wgraph_free(&g);
    rc = wgraph_read(path, NULL, &g, &err);
    check(rc == WX_EINPUT && strstr(err.msg, ".weights"), "CSR without weights: %s", err.msg);
    wgraph_free(&g);
    FILE *f = fopen(side, "w");
    fputs("# weight transit, in CSR edge order\n5 1\n-2.5 3\n7 2\n", f);
    fclose(f);
    rc = wgraph_read(path, NULL, &g, &err);
    ok = rc == WX_OK && g.scale == 1 && g.weights[0] == 50 && g.weights[1] == -25 &&
         g.weights[2] == 70 && g.transit && g.transit[1] == 3;
    check(ok, "CSR + .weights sidecar (rc %d %s)", rc, err.msg);
    wgraph_free(&g);
    f = fopen(side, "w");
    fputs("5\n6\n", f);
    fclose(f);
    rc = wgraph_read(path, NULL, &g, &err);
    check(rc == WX_EINPUT && strstr(err.msg, "2 weight lines for the graph's 3 edges") &&
              strstr(err.file, ".weights"),
          "sidecar with too few lines: %s: %s", err.file, err.msg);
    wgraph_free(&g);
    f = fopen(side, "w");
    fputs("5\n6\n7\n8\n", f);
    fclose(f);
    rc = wgraph_read(path, NULL, &g, &err);
    check(rc == WX_EINPUT && err.line == 4 && strstr(err.msg, "more weight lines"),
          "sidecar with too many lines: %d: %s", err.line, err.msg);
    wgraph_free(&g);
    csr_free(&c);
    strtab_free(names);
    unlink(side);
    unlink(path);
    rmdir(dir);
}

/* A file through the reader into both algorithms. */
static void test_end_to_end(void)
{
    const char *t = "p sp 4 6\na 1 2 1.5\na 2 1 0.5\na 2 3 0\na 3 4 -2\na 4 3 1\na 4 4 0.25\n";
    struct wgraph g;
    struct wx_error err;
    int rc = read_text(t, "e.dimacs", WGRAPH_DIMACS, NULL, &g, &err);
    check(rc == WX_OK, "read e.dimacs");
    if (rc != WX_OK)
        return;
    struct csr view = {.n_vertices = g.n_vertices, .n_edges = g.n_edges, .offsets = g.offsets,
                       .targets = g.targets};
    struct scc_result s;
    scc_cpu(&view, &s, &err);
    struct cm_graph cg = {g.n_vertices, g.n_edges, g.offsets, g.targets, g.weights, NULL};
    /* in units of 10^-2: {1,2}: (150 + 50)/2 = 100; {3,4}: (-200 + 100)/2 = -50; loop 25 */
    for (int alg = 0; alg < 2; alg++)
        for (int mx = 0; mx < 2; mx++) {
            struct cm_result r;
            rc = (alg ? cyclemean_karp_cpu : cyclemean_howard_cpu)(&cg, &s, mx, &r, &err);
            int64_t want = mx ? 100 : -50;
            check(rc == WX_OK && r.best.num == want && r.best.den == 1 && s.n_sccs == 2 &&
                      r.per_scc[0].num == 100 && r.per_scc[1].num == (mx ? 25 : -50),
                  "end to end %s %s: %lld/%lld (want %lld)", alg ? "karp" : "howard",
                  mx ? "max" : "min", (long long)r.best.num, (long long)r.best.den,
                  (long long)want);
            cm_result_free(&r);
        }
    scc_result_free(&s);
    wgraph_free(&g);
}

int main(void)
{
    test_parse_weight();
    test_bad_files();
    test_dimacs();
    test_decimals();
    test_aut();
    test_csr();
    test_end_to_end();
    return check_exit();
}
