/*
 * cmd_scc.c -- `warpex scc FILE [--json] [--scc-out FILE] [--quiet]
 * [--backend auto|gpu|cpu]`: the strongly connected components of a graph
 * file (.csr, .aut, .mtx, .tra or an edge list: graph/graph_read.h).
 *
 * --backend: gpu = scc_gpu (kernels/scc/; an error when no usable CUDA
 * device), cpu = Tarjan (scc_cpu), auto (the default) = the GPU when one is
 * usable, else the CPU with a one-line notice on stderr (none with
 * --quiet), as `warpex explore` does.  Both give identical results.
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

int cmd_scc(int argc, char **argv, int first, struct wx_error *err)
{
    struct standalone_options so;
    int rc = cli_parse_standalone(argc, argv, first, "scc", "--scc-out", scc_gpu_available(), &so, err);
    if (rc != WX_OK)
        return rc;
    const char *input = so.input, *scc_out = so.output;
    int json = so.json, quiet = so.quiet;
    enum cli_backend backend = so.backend;

    double t0 = wx_now();
    struct csr g;
    rc = graph_read(input, &g, err);
    if (rc != WX_OK)
        return rc;
    double read_s = (wx_now() - t0);
    backend = cli_settle_backend(backend, scc_gpu_available(), quiet);
    const char *bname = backend == CLI_BACKEND_GPU ? "gpu" : "cpu";
    t0 = wx_now();
    struct scc_result r;
    rc = backend == CLI_BACKEND_GPU ? scc_gpu(&g, &r, err) : scc_cpu(&g, &r, err);
    double scc_s = (wx_now() - t0);
    if (rc == WX_OK && scc_out)
        rc = cli_write_ids(scc_out, r.comp, r.n_vertices, UINT32_MAX, err);
    if (rc == WX_OK) {
        unsigned long long nv = g.n_vertices, ne = g.n_edges, ns = r.n_sccs, nt = r.n_trivial,
                           lg = r.largest, nb = r.n_bottom, nbt = r.n_bottom_trivial,
                           nin = r.n_in_nontrivial;
        if (json) {
            printf("{\"vertices\": %llu, \"edges\": %llu, \"sccs\": %llu, \"trivial_sccs\": %llu, "
                   "\"nontrivial_sccs\": %llu, \"vertices_in_nontrivial\": %llu, "
                   "\"largest_scc\": %llu, \"bottom_sccs\": %llu, \"bottom_trivial_sccs\": %llu, "
                   "\"bottom_nontrivial_sccs\": %llu, \"backend\": \"%s\", \"read_seconds\": %.6f, "
                   "\"scc_seconds\": %.6f}\n",
                   nv, ne, ns, nt, ns - nt, nin, lg, nb, nbt, nb - nbt, bname, read_s, scc_s);
        } else {
            printf("graph: %llu vertices, %llu edges\n", nv, ne);
            printf("SCCs: %llu (%llu trivial, %llu non-trivial covering %llu vertices)\n", ns, nt,
                   ns - nt, nin);
            printf("largest SCC: %llu vertices\n", lg);
            printf("bottom SCCs: %llu (%llu trivial, i.e. deadlock vertices; %llu non-trivial)\n",
                   nb, nbt, nb - nbt);
            if (!quiet)
                fprintf(stderr, "warpex: read %.3f s, SCC %.3f s (%s)\n", read_s, scc_s, bname);
        }
    }
    scc_result_free(&r);
    csr_free(&g);
    return rc;
}
