/*
 * dist_int.h -- what explore_dist.c (levels, rounds, exchange) and
 * dist_trace.c (global ids, traces) share; not a public API.  The protocol
 * is described in explore_dist.h.
 */
#ifndef WX_DIST_INT_H
#define WX_DIST_INT_H

#include "explore_dist.h"
#include "explore_int.h"
#include "por.h"
#include "successors.h"
#include "../hash/treestore.h"
#include "../hash/vecset.h"

/* Records bound for one rank during a round: stride words each. */
struct dist_buf {
    uint32_t *w;
    uint64_t n, cap;           /* in records */
};

/* Indices into a rank's edge list, one per record bound for one rank
 * (options.sink: the edges whose target's local id the owner answers). */
struct dist_pos {
    uint64_t *p;
    uint64_t n, cap;
};

/* The fields of the record each rank contributes to the level-end gather. */
enum dist_gather {
    DG_NEXT,        /* states this rank added to the next level */
    DG_DEAD,        /* local id + 1 of its first deadlock of the level, 0: none */
    DG_ACT,         /* local id + 1 of the source of its first action violation */
    DG_TRANS,       /* transitions counted so far on this rank */
    DG_DEADLOCKS,   /* deadlocks counted so far */
    DG_BYTES,       /* its table memory */
    DG_SENT,        /* record bytes it sent to other ranks so far */
    DG_ERROR,       /* its own failure while adding the last records, 0: none */
    DG_FIELDS
};

/* The flags all-reduced (max) at the end of every round. */
enum dist_flag { DF_ERROR, DF_DEAD, DF_ACT, DF_CANCEL, DF_FIELDS };

struct dist {
    const struct explore_options *opt;
    const struct dist_transport *t;
    struct explore_result *res;
    struct dist_stats *st;
    int ranks, me;
    uint32_t words;
    uint64_t round_states;     /* frontier states per round */
    uint32_t stride;           /* words per exchanged record: the vector,
                                  then with traces the parent's local id
                                  (2 words, low first) and the label */
    bool trace, finish, settled;
    struct vecset q;           /* the states this rank owns, by local id */
    struct treestore *tree;    /* --store tree: they are here instead */
    uint32_t *vbuf;            /* tree: two unfolded vectors (dist_vec) */
    uint64_t links_cap;        /* trace: parent links parallel to q */
    uint32_t *prank, *plabel;
    uint64_t *pid;
    struct succ_gen g;
    bool por;                  /* options.por: p prepared (no visible label:
                                  the reduced set is the state's alone) */
    struct por p;
    struct dist_buf *out;      /* ranks entries; out[me] stays empty */
    uint32_t *sendbuf, *recvbuf;
    uint64_t send_cap, recv_cap; /* in words */
    uint64_t *scount, *sdispl, *rcount, *rdispl; /* ranks entries each */
    /* Levels: lstart[L * ranks + r] = first local id of level L on rank r,
     * lsize[..] = its number of states there; gstart[..] = the global id of
     * that first state.  Rows 0 .. nlev - 1; the last row is the level
     * being built (partial when the exploration stopped). */
    uint64_t *lstart, *lsize, *gstart;
    uint32_t nlev, lev_cap;
    uint64_t lb, le;           /* this rank's frontier: local ids [lb, le) */
    uint64_t next_s;           /* next frontier state to expand */
    /* This level's local violations (local id + 1; 0: none). */
    uint64_t dead1, act1;
    uint32_t act_label;
    uint32_t *act_vec;         /* words: the action's target */
    bool scan_only;            /* an action was found and deadlocks are
                                  looked for: expand without storing */
    bool local_stop;           /* this rank stops expanding this level */
    uint64_t transitions, deadlocks, sent_bytes;
    uint64_t *gathered;        /* ranks * DG_FIELDS: the last level end's */
    int local_rc;              /* this rank's own failure, err_local holds it */
    struct wx_error err_local;
    /* the violation chosen (rank and local id of its state) */
    int vrank;
    uint64_t vlocal;
    uint32_t vdepth;
    double t0, next_progress;
    /* options.sink: this rank's edges, by source in local id order and each
     * source's in the successor generator's order (dist_edges.c).  A target
     * is (e_owner, e_dst = its local id there); a target owned elsewhere
     * gets its local id from the owner's reply after the round. */
    bool edges;
    uint64_t *e_first;         /* local id -> its first edge */
    uint64_t e_first_cap;
    uint32_t *e_label, *e_owner;
    uint64_t *e_dst;
    uint64_t e_n, e_cap;
    struct dist_pos *pend;     /* ranks entries: the edges of out[r]'s records */
    uint64_t *spos;            /* the edges of sendbuf's records, in its order */
    uint64_t *rids, *reply;    /* local ids of recvbuf's records / the answers
                                  for sendbuf's, 2 words each */
    uint64_t spos_cap, rids_cap, reply_cap; /* in entries */
};

/* The status every rank returns once a collective said that some rank
 * failed with `code` (explore_dist.c). */
int dist_failed(struct dist *x, int code, struct wx_error *err);

/* The owned states, in either store: their number, the vector of local id
 * (in the store, or unfolded into x->vbuf + slot * words, slot 0 or 1),
 * and the local id of a vector (1 found, 0 absent). */
uint64_t dist_count(const struct dist *x);
const uint32_t *dist_vec(struct dist *x, uint64_t id, int slot);
int dist_find(struct dist *x, const uint32_t *v, uint64_t *id);

/* The global id of local id i of rank r (in a recorded level). */
uint64_t dist_global_id(const struct dist *x, int r, uint64_t i);

/* Appends the next level's row (sizes: ranks entries) after the last one;
 * the room was made beforehand (nlev < lev_cap). */
void dist_add_level(struct dist *x, const uint64_t *sizes);

/* options.sink (dist_edges.c).  dist_edge_state: local state s is being
 * expanded (its edges follow).  dist_edge_add: an edge to (owner, local id;
 * UINT64_MAX: to be answered, and the edge's index is queued for owner).
 * Both fail locally (x->err_local) with WX_ELIMIT. */
int dist_edge_state(struct dist *x, uint64_t s);
int dist_edge_add(struct dist *x, uint32_t label, int owner, uint64_t local);
/* Round steps: the queued edge indices packed in sendbuf's order, and the
 * answer buffer (dist_pack); room for the received records' ids
 * (dist_recv_space); local failures. */
void dist_edge_pack(struct dist *x, uint64_t total_sent);
void dist_edge_recv_space(struct dist *x, uint64_t total_recv);
/* After dist_absorb (which filled x->rids): the owners answer the local
 * ids of the records they received; collective. */
int dist_edge_reply(struct dist *x, struct wx_error *err);
/* After a complete exploration: every edge to rank 0, which renumbers the
 * states as explore_seq does and feeds its sink (explore_dist.h);
 * collective. */
int dist_edges_emit(struct dist *x, struct wx_error *err);
void dist_edges_free(struct dist *x);

/* Builds res->trace of the violation (vrank, vlocal, vdepth); collective. */
int dist_build_trace(struct dist *x, struct wx_error *err);

#endif
