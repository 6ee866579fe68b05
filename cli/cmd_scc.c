/*
 * cmd_scc.c -- `warpex scc FILE [--json] [--scc-out FILE] [--quiet]`: the
 * strongly connected components of a graph file (.csr, .aut, .mtx, .tra or
 * an edge list: graph/graph_read.h).
 *
 * Prints the numbers of SCCs, trivial SCCs, the largest SCC's size and the
 * bottom SCCs; --scc-out writes the canonical component id of every vertex,
 * one per line in vertex order (analysis/scc.h), to FILE.tmp renamed to FILE
 * on success.  It parses its own options: they are not explore's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../analysis/scc.h"
#include "../graph/graph_read.h"
#include "cli.h"

static int write_components(const struct scc_result *r, const char *path, struct wx_error *err)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return wx_fail(err, WX_EINPUT, path, 0, 0, "output path too long");
    FILE *f = fopen(tmp, "w");
    if (!f)
        return wx_fail(err, WX_ESYSTEM, tmp, 0, 0, "cannot create: %s", strerror(errno));
    int bad = 0;
    for (uint64_t v = 0; v < r->n_vertices && !bad; v++)
        bad = fprintf(f, "%u\n", r->comp[v]) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot write: %s", strerror(e));
    }
    return WX_OK;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

int cmd_scc(int argc, char **argv, int first, struct wx_error *err)
{
    const char *input = NULL, *scc_out = NULL;
    int json = 0, quiet = 0;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json"))
            json = 1;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            quiet = 1;
        else if (!strcmp(a, "--scc-out")) {
            if (++i >= argc)
                return wx_fail(err, WX_EINPUT, NULL, 0, 0, "option '--scc-out' needs a FILE");
            scc_out = argv[i];
        } else if (a[0] == '-' && a[1])
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown option '%s' for scc", a);
        else if (input)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "scc takes one FILE ('%s' and '%s' given)",
                           input, a);
        else
            input = a;
    }
    if (!input)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "usage: warpex scc FILE [--json] [--scc-out FILE]");

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct csr g;
    int rc = graph_read(input, &g, err);
    if (rc != WX_OK)
        return rc;
    double read_s = seconds_since(&t0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct scc_result r;
    rc = scc_cpu(&g, &r, err);
    double scc_s = seconds_since(&t0);
    if (rc == WX_OK && scc_out)
        rc = write_components(&r, scc_out, err);
    if (rc == WX_OK) {
        unsigned long long nv = g.n_vertices, ne = g.n_edges, ns = r.n_sccs, nt = r.n_trivial,
                           lg = r.largest, nb = r.n_bottom, nbt = r.n_bottom_trivial,
                           nin = r.n_in_nontrivial;
        if (json) {
            printf("{\"vertices\": %llu, \"edges\": %llu, \"sccs\": %llu, \"trivial_sccs\": %llu, "
                   "\"nontrivial_sccs\": %llu, \"vertices_in_nontrivial\": %llu, "
                   "\"largest_scc\": %llu, \"bottom_sccs\": %llu, \"bottom_trivial_sccs\": %llu, "
                   "\"bottom_nontrivial_sccs\": %llu, \"read_seconds\": %.6f, "
                   "\"scc_seconds\": %.6f}\n",
                   nv, ne, ns, nt, ns - nt, nin, lg, nb, nbt, nb - nbt, read_s, scc_s);
        } else {
            printf("graph: %llu vertices, %llu edges\n", nv, ne);
            printf("SCCs: %llu (%llu trivial, %llu non-trivial covering %llu vertices)\n", ns, nt,
                   ns - nt, nin);
            printf("largest SCC: %llu vertices\n", lg);
            printf("bottom SCCs: %llu (%llu trivial, i.e. deadlock vertices; %llu non-trivial)\n",
                   nb, nbt, nb - nbt);
            if (!quiet)
                fprintf(stderr, "warpex: read %.3f s, SCC %.3f s\n", read_s, scc_s);
        }
    }
    scc_result_free(&r);
    csr_free(&g);
    return rc;
}
