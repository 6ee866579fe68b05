/*
 * explore_dist.h -- distributed exploration: R ranks (processes, later
 * GPUs) explore one state space together, each storing the states it owns.
 *
 * Ownership.  Every state has one owner rank, dist_owner(vector): a hash of
 * the packed vector (hash/vtable.h's vtable_hash, a different function from
 * the one the local table indexes with, so one rank's states still spread
 * over its whole table).  A rank stores and expands only the states it
 * owns, in a local vector set (hash/vecset.h; with options.store TREE on
 * vectors of 3 or more words a tree store, hash/treestore.h) with local ids
 * in insertion order.
 *
 * Levels.  The exploration is a BFS, level by level.  A level is expanded
 * in rounds: each rank expands up to DIST_ROUND_STATES (util/config.h) of
 * its frontier with the successor generator (explorer/successors.h), adds
 * the successors it owns to its own table at once and batches the others
 * per destination; then every rank takes part in one exchange (counts by
 * alltoall, records by alltoallv) and adds what it received.  Every rank
 * runs the same number of rounds per level (the largest frontier decides),
 * so the collectives always match.  A state first added while level d is
 * expanded has depth d + 1, wherever it was generated, so the BFS depth,
 * the counts and the trace lengths are those of a one-process BFS.
 *
 * Global ids.  At the end of each level the ranks gather each other's
 * level sizes; the global id of (rank r, local id i) in level L is
 *     (states of levels < L) + (states of level L on ranks < r)
 *     + (i - first local id of level L on r),
 * dense, 0 the initial state, in BFS level order (explore.h's promise for
 * explore_seq and explore_cpu).  Every rank can compute any state's id.
 *
 * Termination and violations.  Each round ends with an all-reduce (max) of
 * {error, deadlock found, action found, cancel}, so every rank learns at
 * the same round that it must stop.  The end of a level gathers every
 * rank's first deadlock and first action violation of the level; the
 * winner is the lowest rank's (a deadlock of depth d beats an action from
 * depth d, as explore_int.h says).  The exploration ends when a level adds
 * no state anywhere.
 *
 * Traces.  With options.trace each state keeps its parent as (owner rank,
 * local id) and the label of the BFS tree edge.  The trace is rebuilt from
 * the violation backwards: the owner of the current state broadcasts its
 * vector, label and parent; every rank then knows the next owner to ask.
 * One broadcast per step; every rank ends with the whole trace.
 *
 * What is promised: with the same image and options, every rank returns the
 * same status and the same result (counts, depth, complete, violation and
 * trace); counts, depth and trace length equal explore_seq's.  Local ids,
 * and so global ids, are deterministic for a fixed number of ranks.
 * Edges (options.sink, the same presence on every rank): after a complete
 * exploration rank 0's sink receives every transition once, from rank 0's
 * thread, with the states renumbered as explore_seq numbers them and in
 * explore_seq's order (dist_edges.c); the other ranks' sinks receive
 * nothing.  res.violation_state and the trace's ids are then explore_seq's
 * numbering too, on every rank; keep_vectors (only with a sink) fills
 * res.vectors on rank 0 alone, by those ids.  Without a sink the global
 * ids are the explorer's own (above).  Rank 0 holds the whole graph.
 * por without a visible label (no action_match flag set): each rank reduces
 * the states it expands (explorer/por.h; the set depends on the state
 * alone), which gives explore_seq's reduced graph.  Refused (WX_EINPUT):
 * por with a visible label (the proviso asks about states owned elsewhere),
 * keep_vectors without a sink, probabilistic images.  Every rank uses one
 * thread.
 */
#ifndef WX_EXPLORE_DIST_H
#define WX_EXPLORE_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "explore.h"

#ifdef __cplusplus
extern "C" {
#endif

enum dist_op { DIST_SUM, DIST_MAX, DIST_MIN };

/* The most records one rank sends, or receives, in one round (MPI takes
 * counts and displacements as int); a round past it fails with WX_ELIMIT
 * before any record moves. */
#define DIST_MAX_RECORDS 2147483647ull

/* The collectives the distributed explorer needs.  Each call is collective:
 * every rank calls it, in the same order, with the same n / words / root.
 * A non-zero return (err filled) is a transport failure; the explorer then
 * returns it at once without further collectives, so a transport should
 * make a failure visible on every rank (MPI's default error handler aborts
 * the job).  The MPI implementation is explorer/dist_mpi.h; an NCCL one
 * maps every call onto NCCL the same way (docs/distributed.md). */
struct dist_transport {
    int rank, size;
    void *ctx;
    /* recv[r] = what rank r passed in send[me] (one value per rank). */
    int (*alltoall)(void *ctx, const uint64_t *send, uint64_t *recv, struct wx_error *err);
    /* Records of `words` 32-bit words: send[sdispl[r] ..][scount[r]] go to
     * rank r, recv[rdispl[r] ..][rcount[r]] come from rank r (counts and
     * displacements in records). */
    int (*alltoallv)(void *ctx, const uint32_t *send, const uint64_t *scount, const uint64_t *sdispl,
                     uint32_t *recv, const uint64_t *rcount, const uint64_t *rdispl, uint32_t words,
                     struct wx_error *err);
    /* In place over n values. */
    int (*allreduce)(void *ctx, uint64_t *buf, size_t n, enum dist_op op, struct wx_error *err);
    /* all[r * n ..] = rank r's mine[0 .. n). */
    int (*allgather)(void *ctx, const uint64_t *mine, uint64_t *all, size_t n, struct wx_error *err);
    /* buf[0 .. n) of rank root to every rank. */
    int (*bcast)(void *ctx, uint32_t *buf, size_t n, int root, struct wx_error *err);
};

/* What the ranks did, beyond struct explore_result. */
struct dist_stats {
    int ranks;
    uint64_t *rank_states;     /* ranks entries: states each owns (malloc'd) */
    uint64_t *rank_bytes;      /* ranks entries: each one's table memory */
    uint64_t exchange_bytes;   /* records sent between ranks, all ranks, bytes */
    uint64_t rounds;           /* exchange rounds (each: 3 collectives) */
    bool peer_failed;          /* the status came from another rank's
                                  failure (err then names that rank) */
};

/* The owner of a packed vector among `ranks` ranks. */
int dist_owner(const uint32_t *vec, uint32_t words, int ranks);

/* Explores img over the transport t; collective.  round_states: states a
 * rank expands between two exchanges (0: DIST_ROUND_STATES, util/config.h;
 * the same on every rank).  res as in explore.h (backend "cpu", threads 1;
 * bytes summed over ranks), st gets the rest (free with dist_stats_free).
 * With t->size == 1 this is an ordinary one-process BFS.  options.store
 * AUTO: a run that ends in WX_ELIMIT on vectors of 3 or more words is
 * repeated with the tree store by every rank (result.flat_full). */
int explore_dist(const struct image *img, const struct explore_options *opt,
                 const struct dist_transport *t, uint64_t round_states, struct explore_result *res,
                 struct dist_stats *st, struct wx_error *err);

void dist_stats_free(struct dist_stats *st);

#ifdef __cplusplus
}
#endif

#endif
