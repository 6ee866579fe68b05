/*
 * outputs.h -- edge sinks that write the explored product while it is being
 * explored: a streaming .aut writer and a CSR collector.  Both serialise the
 * explorer threads' batches with one mutex.
 */
#ifndef WX_CLI_OUTPUTS_H
#define WX_CLI_OUTPUTS_H

#include <pthread.h>

#include "../graph/csr.h"
#include "cli.h"

struct outputs {
    struct edge_sink sink;          /* hand &sink to the explorer when active */
    pthread_mutex_t lock;
    const struct image *img;
    struct aut_writer *aut;         /* NULL when --aut was not given */
    struct csr_builder *csr;        /* NULL when --csr was not given */
    const char *aut_path, *csr_path;
};

/* Opens the requested outputs; nothing is created when none is requested. */
/* keep_graph: collect the product as a CSR graph even without --csr, for
 * outputs_finish to hand back (the in-memory analyses). */
int outputs_open(struct outputs *o, const struct cli_options *opt, const struct image *img,
                 bool keep_graph, struct wx_error *err);
/* 1 when any output is active (then &o->sink must be passed on). */
int outputs_active(const struct outputs *o);
/* Completes the files after a complete exploration.  When the graph was
 * kept (outputs_open's keep_graph) it is handed back in *graph (caller frees
 * with csr_free); graph may be NULL otherwise. */
int outputs_finish(struct outputs *o, uint64_t n_states, struct csr *graph, struct wx_error *err);
/* Removes partial files after a failed or stopped exploration. */
void outputs_abort(struct outputs *o);

#endif
