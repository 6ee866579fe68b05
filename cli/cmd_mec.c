/*
 * cmd_mec.c -- `warpex mec FILE [--json] [--mec-out FILE] [--quiet]
 * [--backend auto|gpu|cpu]`: the maximal end components of an MDP (or
 * DTMC) in PRISM's explicit .tra format (graph/mdp.h, analysis/mec.h), or
 * of an LTS or graph in any other format graph_read.h reads (.aut, .csr,
 * .mtx, edge list) taken as an MDP with one probability-1 choice per
 * transition.
 *
 * --backend: gpu = mec_gpu (kernels/mec.cu; an error when no usable CUDA
 * device), cpu = mec_cpu, auto (the default) = the GPU when one is usable,
 * else the CPU with a one-line notice on stderr (none with --quiet), as
 * `warpex explore` does.  Both give identical results.
 *
 * Prints the MDP's size, the number of MECs, the states and choices inside
 * MECs, the largest MEC and the refinement rounds; --mec-out writes the
 * canonical MEC id of every state, or -1 for a state in no MEC, one per line
 * in state order, to FILE.tmp renamed to FILE on success (so an error leaves
 * no FILE).  It parses its own options.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../analysis/mec.h"
#include "../analysis/scc.h"
#include "../graph/graph_read.h"
#include "../graph/mdp.h"
#include "cli.h"

#include <stdlib.h>

/* An LTS or plain graph read as an MDP with one probability-1 choice per
 * transition (so its MECs are the SCCs with an internal edge); g's offsets
 * and targets move into m, g keeps the rest. */
static int mdp_of_graph(struct csr *g, struct mdp *m, struct wx_error *err)
{
    memset(m, 0, sizeof *m);
    m->n_states = g->n_vertices, m->n_choices = m->n_entries = g->n_edges;
    m->choice_start = malloc((g->n_edges + 1) * sizeof *m->choice_start);
    m->probs = malloc((g->n_edges ? g->n_edges : 1) * sizeof *m->probs);
    if (!m->choice_start || !m->probs) {
        mdp_free(m);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory for %llu transitions",
                       (unsigned long long)g->n_edges);
    }
    for (uint64_t c = 0; c <= g->n_edges; c++)
        m->choice_start[c] = c;
    for (uint64_t e = 0; e < g->n_edges; e++)
        m->probs[e] = 1.0;
    m->state_start = g->offsets, g->offsets = NULL;
    m->targets = g->targets, g->targets = NULL;
    return WX_OK;
}

int cmd_mec(int argc, char **argv, int first, struct wx_error *err)
{
    struct standalone_options so;
    int rc = cli_parse_standalone(argc, argv, first, "mec", "--mec-out", scc_gpu_available(), &so, err);
    if (rc != WX_OK)
        return rc;
    const char *input = so.input, *mec_out = so.output;
    int json = so.json, quiet = so.quiet;
    enum cli_backend backend = so.backend;

    double t0 = wx_now();
    struct mdp m;
    /* .tra: an MDP; any other graph (.aut, .csr, .mtx, edge list): an LTS */
    const int lts = graph_format_of(input) != GRAPH_TRA;
    if (lts) {
        struct csr g;
        rc = graph_read(input, &g, err);
        if (rc == WX_OK) {
            rc = mdp_of_graph(&g, &m, err);
            csr_free(&g);
        }
    } else {
        rc = mdp_read(input, &m, err);
    }
    if (rc != WX_OK)
        return rc;
    double read_s = (wx_now() - t0);
    backend = cli_settle_backend(backend, scc_gpu_available(), quiet);
    const char *bname = backend == CLI_BACKEND_GPU ? "gpu" : "cpu";
    t0 = wx_now();
    struct mec_result r;
    rc = backend == CLI_BACKEND_GPU ? mec_gpu(&m, &r, err) : mec_cpu(&m, &r, err);
    double mec_s = (wx_now() - t0);
    if (rc == WX_OK && mec_out)
        rc = cli_write_ids(mec_out, r.mec, r.n_states, MEC_NONE, err);
    if (rc == WX_OK) {
        unsigned long long ns = m.n_states, nc = m.n_choices, nt = m.n_entries, nm = r.n_mecs,
                           sin = r.states_in_mecs, cin = r.choices_in_mecs, lg = r.largest,
                           n1 = r.n_singletons, rounds = r.rounds;
        if (json) {
            printf("{\"states\": %llu, \"choices\": %llu, \"transitions\": %llu, "
                   "\"dtmc\": %s, \"lts\": %s, \"mecs\": %llu, \"states_in_mecs\": %llu, "
                   "\"choices_in_mecs\": %llu, \"largest_mec\": %llu, \"singleton_mecs\": %llu, "
                   "\"rounds\": %llu, \"backend\": \"%s\", \"read_seconds\": %.6f, \"mec_seconds\": %.6f}\n",
                   ns, nc, nt, m.is_dtmc ? "true" : "false", lts ? "true" : "false", nm, sin, cin, lg, n1,
                   rounds,
                   bname, read_s, mec_s);
        } else {
            if (lts)
                printf("LTS (one choice per transition): %llu states, %llu transitions\n", ns, nt);
            else
                printf("%s: %llu states, %llu choices, %llu transitions\n", m.is_dtmc ? "DTMC" : "MDP",
                       ns, nc, nt);
            printf("MECs: %llu (%llu of one state) covering %llu states and %llu choices\n", nm,
                   n1, sin, cin);
            printf("largest MEC: %llu states\n", lg);
            if (!quiet)
                fprintf(stderr, "warpex: read %.3f s, MEC %.3f s (%llu rounds, %s)\n", read_s, mec_s,
                        rounds, bname);
        }
    }
    mec_result_free(&r);
    mdp_free(&m);
    return rc;
}
