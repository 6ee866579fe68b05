/*
 * dist.h -- `warpex explore` under mpirun: R >= 2 processes run the
 * distributed CPU explorer (explorer/explore_dist.h) over MPI
 * (explorer/dist_mpi.h); docs/distributed.md.
 *
 * The CLI tells a process that mpirun started from its environment
 * (OMPI_COMM_WORLD_SIZE / _RANK for Open MPI, PMI_SIZE / PMI_RANK for
 * MPICH's Hydra); MPI_Init is called only then, so a plain `warpex explore`
 * never touches MPI, and under `mpirun -np 1` it is the ordinary explorer.
 *
 * Output: rank 0 prints the report, the progress and the notes, writes
 * the output files and runs the analyses; the other ranks run quiet.  An error is printed once: by rank 0 when it failed
 * itself (the ranks fail alike on bad input), otherwise by the rank whose
 * failure it is.  Every rank returns the run's status.
 *
 * Protocol around the explorer: every rank calls exactly one agreement
 * (an all-reduce of its status so far) -- cli_dist_explore before
 * exploring, or cli_dist_end when the rank failed before that -- so that a
 * failure on one rank (an unreadable file there) cannot leave the others
 * waiting in the explorer's collectives.
 */
#ifndef WX_CLI_DIST_H
#define WX_CLI_DIST_H

#include "../explorer/explore_dist.h"
#include "cli.h"

struct cli_dist {
    int rank, ranks;
    struct dist_transport t;
    struct dist_stats st;
    bool started;              /* MPI_Init done */
    bool agreed;               /* this rank took part in the agreement */
};

/* The number of ranks mpirun started (0 when not started by mpirun);
 * *rank gets this process's rank. */
int cli_dist_ranks(int *rank);

/* Checks the options the distributed explorer takes (WX_EINPUT for the
 * others), makes ranks > 0 quiet and starts MPI. */
int cli_dist_begin(struct cli_dist *d, struct cli_options *o, int rank, int ranks, struct wx_error *err);

/* The agreement, then explore_dist. */
int cli_dist_explore(struct cli_dist *d, const struct image *img, const struct explore_options *eo,
                     struct explore_result *res, struct wx_error *err);

/* Ends the run: the agreement if this rank never reached it; the error
 * printed by the rank that reports it (and muted for the caller, as
 * mpirun may end the other ranks once one exits with a non-zero status);
 * the output flushed, MPI finalised.  Returns rc, or the failure another
 * rank reported; a rank without a failure of its own returns rank 0's
 * status (after the exploration rank 0 alone writes --aut / --csr and
 * runs the analyses, on the graph the explorer gathered there). */
int cli_dist_end(struct cli_dist *d, int rc, struct wx_error *err);

/* The JSON fields "ranks", "rank_states", "rank_bytes", "exchange_bytes"
 * (each after ", "); the text line "ranks:". */
void cli_dist_json(const struct cli_dist *d);
void cli_dist_text(const struct cli_dist *d);

#endif
