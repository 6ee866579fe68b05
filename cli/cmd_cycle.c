/*
 * cmd_cycle.c -- `warpex cycle-mean FILE [--min|--max] [--ratio]
 * [--weight REGEX] [--default-weight W] [--per-scc] [--algorithm howard|karp]
 * [--backend auto|cpu|gpu] [--json] [--cycle-out FILE] [--quiet]`:
 * the exact minimum or maximum cycle mean (or cycle ratio, with transit
 * times) of a weighted graph (graph/wgraph.h), with a critical cycle.
 *
 * The answer is printed as a reduced fraction in the file's units (decimal
 * weights were scaled by 10^scale on reading; the scale is divided back here,
 * exactly, in 128-bit arithmetic) and as a decimal (cut after 12 places and
 * marked "..." when it does not terminate there).  Vertices are printed in
 * the file's numbering: 1-based for DIMACS, 0-based otherwise.  An acyclic
 * graph prints "no cycle" and exits 0.  --cycle-out writes the critical
 * cycle's vertices, one per line, to FILE.tmp renamed to FILE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/cyclemean.h"
#include "../analysis/scc.h"
#include "../graph/dgraph.h"
#include "../graph/wgraph.h"
#include "cli.h"

typedef __int128 i128;

struct cycle_options {
    const char *input, *cycle_out, *weight, *default_weight;
    int maximize, ratio, per_scc, json, quiet;
    int karp;      /* --algorithm karp */
    enum cli_backend backend;
};

static int parse(int argc, char **argv, int first, struct cycle_options *o, struct wx_error *err)
{
    memset(o, 0, sizeof *o);
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        const char *need = NULL;
        if (cli_is_help(a))
            return cli_usage("cycle-mean", stdout), CLI_HELP;
        if (!strcmp(a, "--min"))
            o->maximize = 0;
        else if (!strcmp(a, "--max"))
            o->maximize = 1;
        else if (!strcmp(a, "--ratio"))
            o->ratio = 1;
        else if (!strcmp(a, "--per-scc"))
            o->per_scc = 1;
        else if (!strcmp(a, "--json"))
            o->json = 1;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            o->quiet = 1;
        else if (!strcmp(a, "--weight") || !strcmp(a, "--default-weight") ||
                 !strcmp(a, "--algorithm") || !strcmp(a, "--backend") ||
                 !strcmp(a, "--cycle-out")) {
            if (i + 1 >= argc)
                return wx_fail(err, WX_EINPUT, NULL, 0, 0, "option '%s' needs a value", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--weight"))
                o->weight = v;
            else if (!strcmp(a, "--default-weight"))
                o->default_weight = v;
            else if (!strcmp(a, "--cycle-out"))
                o->cycle_out = v;
            else if (!strcmp(a, "--algorithm")) {
                if (!strcmp(v, "howard"))
                    o->karp = 0;
                else if (!strcmp(v, "karp"))
                    o->karp = 1;
                else
                    need = "--algorithm takes howard or karp";
            } else {
                int rc = cli_backend_parse(v, &o->backend, err);
                if (rc != WX_OK)
                    return rc;
            }
            if (need)
                return wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s, not '%s'", need, v);
        } else if (a[0] == '-' && a[1])
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown option '%s' for cycle-mean", a);
        else if (o->input)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                           "cycle-mean takes one FILE ('%s' and '%s' given)", o->input, a);
        else
            o->input = a;
    }
    if (!o->input)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "usage: warpex cycle-mean FILE [--min|--max] [--ratio] [--weight REGEX] "
                       "[--default-weight W] [--per-scc] [--algorithm howard|karp] "
                       "[--backend auto|cpu|gpu] [--json] [--cycle-out FILE]");
    if (o->karp && o->backend == CLI_BACKEND_GPU)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--algorithm karp runs on the CPU only (the GPU runs Howard)");
    return WX_OK;
}

/* ---- exact numbers in the file's units ----------------------------------- */

static i128 gcd128(i128 a, i128 b)
{
    if (a < 0)
        a = -a;
    if (b < 0)
        b = -b;
    while (b) {
        i128 t = a % b;
        a = b, b = t;
    }
    return a;
}

static void fmt_i128(char *buf, i128 x)
{
    char tmp[48];
    int n = 0, neg = x < 0;
    unsigned __int128 u = neg ? -(unsigned __int128)x : (unsigned __int128)x;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    int k = 0;
    if (neg)
        buf[k++] = '-';
    while (n)
        buf[k++] = tmp[--n];
    buf[k] = 0;
}

/* num / (den 10^scale), reduced. */
struct exact {
    i128 num, den;
};

static struct exact to_exact(int64_t num, int64_t den, unsigned scale)
{
    struct exact x = {num, den};
    for (unsigned i = 0; i < scale; i++)
        x.den *= 10; /* den < 2^63, scale <= 18: < 2^123 */
    i128 g = gcd128(x.num, x.den);
    if (g > 1)
        x.num /= g, x.den /= g;
    return x;
}

static void fmt_fraction(char *buf, struct exact x)
{
    char a[48], b[48];
    fmt_i128(a, x.num);
    fmt_i128(b, x.den);
    if (x.den == 1)
        sprintf(buf, "%s", a);
    else
        sprintf(buf, "%s/%s", a, b);
}

/* Decimal by long division: exact when it terminates within 12 places,
 * else cut after 12 places and marked "...". */
static void fmt_decimal(char *buf, struct exact x)
{
    int neg = x.num < 0;
    i128 n = neg ? -x.num : x.num;
    char ip[48];
    fmt_i128(ip, n / x.den);
    i128 r = n % x.den;
    int k = sprintf(buf, "%s%s", neg && (n != 0) ? "-" : "", ip);
    if (r) {
        buf[k++] = '.';
        for (int d = 0; d < 12 && r; d++) {
            r *= 10; /* r < den < 2^123: r * 10 < 2^127 */
            buf[k++] = (char)('0' + (int)(r / x.den));
            r %= x.den;
        }
        if (r)
            k += sprintf(buf + k, "...");
    }
    buf[k] = 0;
}

/* ---- the command ---------------------------------------------------------- */

/* SCCs, then the optimum of g (transit times when o->ratio), on the backend
 * o asks for: auto is the GPU when one is usable; a GPU Howard takes its
 * SCC prefix from the GPU too (the same canonical decomposition). */
static int solve(const struct cycle_options *o, const struct wgraph *g, struct scc_result *scc,
                 struct cm_result *r, const char **backend, struct wx_error *err)
{
    if (o->backend == CLI_BACKEND_GPU && !cyclemean_gpu_available())
        return cli_no_gpu(err);
    const int on_gpu = !o->karp && (o->backend == CLI_BACKEND_GPU ||
                                    (o->backend == CLI_BACKEND_AUTO && cyclemean_gpu_available()));
    *backend = on_gpu ? "gpu" : "cpu";
    const struct csr view = {.n_vertices = g->n_vertices, .n_edges = g->n_edges, .offsets = g->offsets,
                             .targets = g->targets};
    int rc = on_gpu ? scc_gpu(&view, scc, err) : scc_cpu(&view, scc, err);
    if (rc != WX_OK)
        return rc;
    const struct cm_graph cg = {g->n_vertices, g->n_edges, g->offsets, g->targets, g->weights,
                                o->ratio ? g->transit : NULL};
    if (o->karp)
        return cyclemean_karp_cpu(&cg, scc, o->maximize, r, err);
    return on_gpu ? cyclemean_howard_gpu(&cg, scc, o->maximize, r, err)
                  : cyclemean_howard_cpu(&cg, scc, o->maximize, r, err);
}

static int write_cycle(const char *path, const struct cm_result *r, uint32_t base,
                       struct wx_error *err)
{
    uint32_t *ids = malloc((r->cycle_len ? r->cycle_len : 1) * sizeof *ids);
    if (!ids)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    for (uint64_t i = 0; i < r->cycle_len; i++)
        ids[i] = r->cycle[i] + base;
    int rc = cli_write_ids(path, ids, r->cycle_len, UINT32_MAX, err);
    free(ids);
    return rc;
}

static const char *format_name(enum wgraph_format f)
{
    return f == WGRAPH_DIMACS ? "dimacs" : f == WGRAPH_CSR ? "csr" : f == WGRAPH_AUT ? "aut"
                                                                                   : "edges";
}

#define TEXT_CYCLE_MAX 100 /* edges of the cycle printed as text */

/* The weight and label of the critical cycle's i-th edge e: from the graph,
 * or, for a graph that stayed on the device, from the cycle's own arrays. */
struct cycle_edges_info {
    const int64_t *w;           /* per cycle position, or NULL: g's arrays */
    const uint32_t *l;
    const struct strtab *names;
};

static int64_t edge_w(const struct wgraph *g, const struct cycle_edges_info *x, uint64_t i, uint64_t e)
{
    return x && x->w ? x->w[i] : g->weights[e];
}

static const char *edge_label(const struct wgraph *g, const struct cycle_edges_info *x, uint64_t i, uint64_t e)
{
    if (x && x->l)
        return strtab_str(x->names, x->l[i]);
    return g->labels ? strtab_str(g->label_names, g->labels[e]) : NULL;
}

static void print_text(const struct cycle_options *o, const struct wgraph *g,
                       const struct scc_result *scc, const struct cm_result *r, uint32_t base,
                       const char *what, const struct cycle_edges_info *ce)
{
    char f[128], d[128];
    uint64_t with_cycle = 0;
    for (uint64_t k = 0; k < r->n_sccs; k++)
        with_cycle += r->per_scc[k].has_cycle;
    printf("graph: %llu vertices, %llu edges, %llu SCCs (%llu with a cycle)\n",
           (unsigned long long)g->n_vertices, (unsigned long long)g->n_edges,
           (unsigned long long)scc->n_sccs, (unsigned long long)with_cycle);
    if (!r->best.has_cycle) {
        printf("no cycle: the graph is acyclic, so it has no %s\n", what);
        return;
    }
    struct exact x = to_exact(r->best.num, r->best.den, g->scale);
    fmt_fraction(f, x);
    fmt_decimal(d, x);
    printf("%s %s: %s = %s\n", o->maximize ? "maximum" : "minimum", what, f, d);
    i128 W = 0, T = 0;
    for (uint64_t i = 0; i < r->cycle_len; i++) {
        W += edge_w(g, ce, i, r->cycle_edges[i]);
        T += o->ratio ? g->transit[r->cycle_edges[i]] : 1;
    }
    struct exact wx = to_exact(1, 1, g->scale);
    wx.num = W, wx.den = 1;
    for (unsigned i = 0; i < g->scale; i++)
        wx.den *= 10;
    fmt_decimal(f, wx);
    char tt[48];
    fmt_i128(tt, T);
    printf("critical cycle (SCC %u): %llu edge%s, weight %s, %s %s\n", r->best_scc,
           (unsigned long long)r->cycle_len, r->cycle_len == 1 ? "" : "s", f,
           o->ratio ? "transit" : "length", tt);
    for (uint64_t i = 0; i < r->cycle_len && i < TEXT_CYCLE_MAX; i++) {
        uint64_t e = r->cycle_edges[i];
        struct exact we = {edge_w(g, ce, i, e), wx.den};
        fmt_decimal(f, we);
        printf("  %llu -> %llu  weight %s",
               (unsigned long long)r->cycle[i] + base,
               (unsigned long long)r->cycle[(i + 1) % r->cycle_len] + base, f);
        if (o->ratio)
            printf("  transit %lld", (long long)g->transit[e]);
        if (edge_label(g, ce, i, e))
            printf("  label \"%s\"", edge_label(g, ce, i, e));
        putchar('\n');
    }
    if (r->cycle_len > TEXT_CYCLE_MAX)
        printf("  ... %llu more edges (--cycle-out FILE writes them all)\n",
               (unsigned long long)(r->cycle_len - TEXT_CYCLE_MAX));
    if (o->per_scc) {
        printf("per SCC (%s, SCCs with a cycle):\n", o->maximize ? "maximum" : "minimum");
        for (uint64_t k = 0; k < r->n_sccs; k++) {
            if (!r->per_scc[k].has_cycle)
                continue;
            struct exact v = to_exact(r->per_scc[k].num, r->per_scc[k].den, g->scale);
            fmt_fraction(f, v);
            fmt_decimal(d, v);
            printf("  SCC %llu: %s = %s\n", (unsigned long long)k, f, d);
        }
    }
}

static void print_json(const struct cycle_options *o, const struct wgraph *g,
                       const struct scc_result *scc, const struct cm_result *r, uint32_t base,
                       const char *backend, double read_s, double solve_s, const char *end,
                       const struct cycle_edges_info *ce)
{
    char f[128], d[128], a[48], b[48];
    uint64_t with_cycle = 0;
    for (uint64_t k = 0; k < r->n_sccs; k++)
        with_cycle += r->per_scc[k].has_cycle;
    printf("{\"input\": ");
    cli_json_string(stdout, o->input);
    printf(", \"format\": \"%s\", \"vertices\": %llu, \"edges\": %llu, \"sccs\": %llu, "
           "\"sccs_with_cycle\": %llu, \"problem\": \"%s\", \"ratio\": %s, \"algorithm\": "
           "\"%s\", \"backend\": \"%s\", \"scale\": %u, \"has_cycle\": %s",
           format_name(g->format), (unsigned long long)g->n_vertices,
           (unsigned long long)g->n_edges, (unsigned long long)scc->n_sccs,
           (unsigned long long)with_cycle, o->maximize ? "max" : "min",
           o->ratio ? "true" : "false", o->karp ? "karp" : "howard", backend, g->scale,
           r->best.has_cycle ? "true" : "false");
    if (r->best.has_cycle) {
        struct exact x = to_exact(r->best.num, r->best.den, g->scale);
        fmt_fraction(f, x);
        fmt_decimal(d, x);
        fmt_i128(a, x.num);
        fmt_i128(b, x.den);
        printf(", \"num\": %s, \"den\": %s, \"fraction\": \"%s\", \"decimal\": \"%s\", "
               "\"best_scc\": %u, \"cycle_length\": %llu, \"cycle\": [",
               a, b, f, d, r->best_scc, (unsigned long long)r->cycle_len);
        for (uint64_t i = 0; i < r->cycle_len; i++)
            printf("%s%llu", i ? ", " : "", (unsigned long long)r->cycle[i] + base);
        printf("], \"cycle_edges\": [");
        for (uint64_t i = 0; i < r->cycle_len; i++)
            printf("%s%llu", i ? ", " : "", (unsigned long long)r->cycle_edges[i]);
        printf("]");
        if (r->cycle_len && edge_label(g, ce, 0, r->cycle_edges[0])) {
            printf(", \"cycle_labels\": [");
            for (uint64_t i = 0; i < r->cycle_len; i++) {
                if (i)
                    printf(", ");
                cli_json_string(stdout, edge_label(g, ce, i, r->cycle_edges[i]));
            }
            printf("]");
        }
    }
    if (o->per_scc) {
        printf(", \"per_scc\": [");
        int first = 1;
        for (uint64_t k = 0; k < r->n_sccs; k++) {
            if (!r->per_scc[k].has_cycle)
                continue;
            struct exact v = to_exact(r->per_scc[k].num, r->per_scc[k].den, g->scale);
            fmt_fraction(f, v);
            fmt_decimal(d, v);
            printf("%s{\"scc\": %llu, \"fraction\": \"%s\", \"decimal\": \"%s\"}",
                   first ? "" : ", ", (unsigned long long)k, f, d);
            first = 0;
        }
        printf("]");
    }
    printf(", \"iterations\": %llu, \"read_seconds\": %.6f, \"solve_seconds\": %.6f}%s",
           (unsigned long long)r->iterations, read_s, solve_s, end);
}

int cmd_cycle(int argc, char **argv, int first, struct wx_error *err)
{
    struct cycle_options o;
    int rc = parse(argc, argv, first, &o, err);
    if (rc != WX_OK)
        return rc;
    char side[4096]; /* a .csr graph's weights (graph/wgraph.h) are an input too */
    snprintf(side, sizeof side, "%s.weights", o.input);
    const char *in[] = {o.input, side};
    if ((rc = cli_guard_files(in, 2, &o.cycle_out, 1, err)) != WX_OK)
        return rc;
    double t0 = wx_now();
    struct wgraph g;
    struct wgraph_options wo = {o.weight, o.default_weight};
    rc = wgraph_read(o.input, &wo, &g, err);
    if (rc != WX_OK)
        return rc;
    if (o.ratio && !g.transit) {
        wgraph_free(&g);
        return wx_fail(err, WX_EINPUT, o.input, 0, 0,
                       "--ratio needs transit times (a TRANSIT column after each weight)");
    }
    if (!o.ratio && g.transit && !o.quiet)
        fprintf(stderr, "warpex: the file has transit times; computing the cycle MEAN "
                        "(--ratio for weight/transit)\n");
    double read_s = (wx_now() - t0);
    t0 = wx_now();
    struct scc_result scc;
    struct cm_result r;
    memset(&scc, 0, sizeof scc);
    memset(&r, 0, sizeof r);
    const char *backend;
    rc = solve(&o, &g, &scc, &r, &backend, err);
    double solve_s = (wx_now() - t0);
    uint32_t base = g.format == WGRAPH_DIMACS ? 1 : 0;
    if (rc == WX_OK && o.cycle_out) {
        if (r.best.has_cycle)
            rc = write_cycle(o.cycle_out, &r, base, err);
        else
            rc = cli_write_ids(o.cycle_out, NULL, 0, UINT32_MAX, err); /* empty file */
    }
    if (rc == WX_OK) {
        const char *what = o.ratio ? "cycle ratio" : "cycle mean";
        if (o.json)
            print_json(&o, &g, &scc, &r, base, backend, read_s, solve_s, "\n", NULL);
        else {
            print_text(&o, &g, &scc, &r, base, what, NULL);
            if (!o.quiet)
                fprintf(stderr, "warpex: read %.3f s, SCC + %s (%s, %s) %.3f s, %llu rounds\n",
                        read_s, what, o.karp ? "Karp" : "Howard", backend, solve_s,
                        (unsigned long long)r.iterations);
        }
    }
    cm_result_free(&r);
    scc_result_free(&scc);
    wgraph_free(&g);
    return rc;
}

/* ---- explore --cycle-mean ---- */

int cli_cycle_of_graph(struct cli_cycle *c, struct csr *graph, const char *model, const char *weight,
                       const char *default_weight, int maximize, enum cli_backend backend,
                       struct wx_error *err)
{
    memset(c, 0, sizeof *c);
    c->model = model, c->maximize = maximize, c->backend = "cpu";
    struct wgraph_options wo = {weight, default_weight};
    int rc = wgraph_from_csr(graph, &wo, &c->g, err);
    if (rc != WX_OK)
        return rc;
    double t0 = wx_now();
    struct cycle_options o = {.input = model, .maximize = maximize, .backend = backend};
    rc = solve(&o, &c->g, &c->scc, &c->r, &c->backend, err);
    c->seconds = (wx_now() - t0);
    if (rc != WX_OK)
        cli_cycle_free(c);
    return rc;
}

int cli_cycle_of_device(struct cli_cycle *c, const struct dgraph *dg, const uint32_t *d_comp,
                        const struct scc_result *scc, const struct strtab *label_names, const char *model,
                        const char *weight, const char *default_weight, int maximize, struct wx_error *err)
{
    memset(c, 0, sizeof *c);
    c->model = model, c->maximize = maximize, c->backend = "gpu (graph kept on the device)";
    c->names = label_names;
    struct wgraph_options wo = {weight, default_weight};
    int64_t *lw = NULL;
    /* every label of the network counts for the decimal scale (which labels
     * occur on edges is not known on the host): the same exact answer */
    int rc = wgraph_label_weights(label_names, NULL, &wo, "--weight", &lw, &c->g.scale, err);
    if (rc != WX_OK)
        return rc;
    double t0 = wx_now();
    c->g.n_vertices = dg->n_vertices, c->g.n_edges = dg->n_edges, c->g.format = WGRAPH_CSR;
    c->scc = *scc;
    c->scc.comp = NULL;
    rc = cyclemean_howard_gpu_device(dg, d_comp, lw, strtab_count(label_names), scc, maximize, &c->r, err);
    if (rc == WX_OK && c->r.cycle_len) {
        c->cycle_l = malloc(c->r.cycle_len * sizeof *c->cycle_l);
        c->cycle_w = malloc(c->r.cycle_len * sizeof *c->cycle_w);
        rc = c->cycle_l && c->cycle_w
                 ? dgraph_labels_at(dg, c->r.cycle_edges, c->r.cycle_len, c->cycle_l, err)
                 : wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        for (uint64_t i = 0; rc == WX_OK && i < c->r.cycle_len; i++)
            c->cycle_w[i] = lw[c->cycle_l[i]];
    }
    c->seconds = (wx_now() - t0);
    free(lw);
    if (rc != WX_OK)
        cli_cycle_free(c);
    return rc;
}

void cli_cycle_print(const struct cli_cycle *c, bool json)
{
    struct cycle_options o = {.input = c->model, .maximize = c->maximize};
    struct cycle_edges_info x = {c->cycle_w, c->cycle_l, c->names};
    if (json)
        print_json(&o, &c->g, &c->scc, &c->r, 0, c->backend, 0, c->seconds, "", &x);
    else
        print_text(&o, &c->g, &c->scc, &c->r, 0, "cycle mean", &x);
}

void cli_cycle_free(struct cli_cycle *c)
{
    cm_result_free(&c->r);
    scc_result_free(&c->scc);
    wgraph_free(&c->g);
    free(c->cycle_w);
    free(c->cycle_l);
    c->cycle_w = NULL, c->cycle_l = NULL;
}
