/*
 * mdp_reach.h -- reachability questions on an explored MDP whose states are
 * numbered in BFS order from state 0 (explorer/explore_mdp.h promises it):
 * the first state with a deadlock or a matching action, a shortest trace to
 * it through choices, and the support graph that SCCs are taken over.
 *
 * BFS TREE.  In a BFS-numbered MDP every state t > 0 is first referred to
 * by an entry of a smaller state (the one whose expansion numbered it);
 * the first such entry, in the order (state, choice, entry), is t's parent
 * edge.  Following parent edges from t back to 0 gives a path of t's BFS
 * depth: a shortest one.  The traces are these paths, so they depend only
 * on the MDP (its numbering and choice order), not on how it was explored.
 *
 * PROBABILITY.  A trace step names a choice and one of its entries; the
 * step's probability is that entry's, and the trace's is their product: the
 * probability that a scheduler taking the trace's choices follows it.
 *
 * THREAD SAFETY: reentrant; the MDP is only read.
 */
#ifndef WX_MDP_REACH_H
#define WX_MDP_REACH_H

#include <stdbool.h>
#include <stdint.h>

#include "../graph/csr.h"
#include "../graph/mdp.h"
#include "../util/error.h"

#define MDP_REACH_NONE UINT64_MAX

/* The first state s (smallest id, so of least BFS depth) that is a
 * deadlock (want_deadlock, no choice) or has a choice c whose label
 * choice_label[c] < n_labels has match[label] set (match may be NULL).
 * *state = MDP_REACH_NONE when there is none; *choice = the matching
 * choice, or MDP_REACH_NONE for a deadlock. */
void mdp_first_violation(const struct mdp *m, const uint32_t *choice_label, const uint8_t *match,
                         uint32_t n_labels, bool want_deadlock, uint64_t *state, uint64_t *choice);

/* A path from state 0: states[0] == 0, then len steps; step i (0-based)
 * goes from states[i] by choice choices[i] (a global choice id) and its
 * entry entries[i] to states[i + 1] with probability probs[i]. */
struct mdp_trace {
    uint32_t len;
    uint32_t *states;         /* len + 1 */
    uint64_t *choices, *entries; /* len */
    double *probs;            /* len */
    double probability;       /* product of probs (1 for len 0) */
};

/* The BFS-tree path (header) from state 0 to `target` into *out
 * (overwritten).  WX_EINPUT when target is not a state or the MDP is not
 * BFS-numbered from 0 (a state without a parent of smaller id);
 * WX_ELIMIT when out of memory (then *out is empty). */
int mdp_bfs_trace(const struct mdp *m, uint64_t target, struct mdp_trace *out,
                  struct wx_error *err);

void mdp_trace_free(struct mdp_trace *t);

/* The support graph of m: an edge s -> t for every entry of every choice
 * of s (duplicates kept; analysis/scc.h allows them), unlabelled.  out's
 * targets ALIAS m->targets: free out->offsets only (mdp_support_free).
 * WX_ELIMIT when out of memory or m has 2^32 states or more. */
int mdp_support_graph(const struct mdp *m, struct csr *out, struct wx_error *err);

void mdp_support_free(struct csr *g);

#endif
