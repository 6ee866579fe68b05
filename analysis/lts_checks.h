/*
 * lts_checks.h -- behavioural checks on an explored LTS held as a labelled
 * struct csr: divergence (livelock) and reversibility.
 *
 * DEFINITIONS.  The τ-subgraph is g restricted to the edges whose label is the
 * hidden label.  A state is τ-cyclic when it lies on a cycle of the
 * τ-subgraph (a τ self-loop counts), i.e. it belongs to a non-trivial SCC of
 * the τ-subgraph.  The LTS DIVERGES (has a livelock) when some τ-cyclic state
 * is reachable from the initial state g->initial.  It is REVERSIBLE when every
 * state reachable from the initial state can reach the initial state again,
 * i.e. the SCC of the initial state holds every reachable state.
 *
 * TRACES.  Both checks explain a failure with paths that are shortest where
 * it matters: the prefix of a lasso is a shortest path from the initial state
 * to the set of τ-cyclic states; the cycle is a shortest τ-cycle through the
 * state the prefix ends in; the reversibility witness is the smallest
 * reachable state id that cannot return, with a shortest path to it.  Paths
 * follow the graph's edge order (sorted by (label, target)), so the result is
 * deterministic for a given graph.
 *
 * COST.  O(n + m) time, no recursion.  Work space: about 16 bytes per vertex
 * for the BFS (parent, parent label, queue, distance marks) plus, for the
 * livelock check, the τ-subgraph (8 bytes per vertex + 4 per τ-edge) and
 * scc_cpu's work space (about 28 bytes per vertex); reversibility runs
 * scc_cpu on g itself.
 *
 * OWNERSHIP.  The result structs own their arrays; release them with
 * lts_lasso_free / lts_reversibility_free (safe on zeroed structs).
 *
 * THREAD SAFETY: reentrant; the graph is only read.
 */
#ifndef WX_LTS_CHECKS_H
#define WX_LTS_CHECKS_H

#include <stdbool.h>
#include <stdint.h>

#include "../graph/csr.h"
#include "scc.h"
#include "../util/error.h"

/* A path of len transitions: states[0 .. len], labels[0 .. len-1] (label ids
 * of g; UINT32_MAX for an unlabelled graph).  states/labels are NULL when the
 * path is empty and unset. */
struct lts_path {
    uint32_t len;
    uint32_t *states;
    uint32_t *labels;
};

/* A lasso: prefix.states[0] == g->initial, prefix.states[prefix.len] ==
 * cycle.states[0] == cycle.states[cycle.len], cycle.len >= 1 and every cycle
 * label is the hidden label.  Valid only when found. */
struct lts_lasso {
    bool found;
    struct lts_path prefix;
    struct lts_path cycle;
    uint64_t n_tau_cyclic;     /* reachable τ-cyclic states */
};

/* Whether g (from g->initial) is reversible; when it is not, state is the
 * smallest reachable id that cannot reach the initial state and trace a
 * shortest path from g->initial to it. */
struct lts_reversibility {
    bool reversible;
    uint32_t state;
    struct lts_path trace;
    uint64_t n_reachable;       /* states reachable from the initial state */
    uint64_t n_cannot_return;   /* of those, states that cannot reach it back */
};

/* Looks for a livelock: fills *out (overwritten, not freed first).  hidden is
 * the hidden label id (UINT32_MAX when there is none: then nothing diverges,
 * as for an unlabelled graph).  Returns WX_OK whether or not a livelock is
 * found, WX_EINPUT when g->initial is not a vertex, WX_ELIMIT when out of
 * memory (then *out is empty). */
int lts_find_livelock(const struct csr *g, uint32_t hidden, struct lts_lasso *out,
                      struct wx_error *err);

/* Checks reversibility: fills *out (overwritten, not freed first).  initial is
 * the state that must be returned to (normally g->initial).  Returns WX_OK
 * whether or not g is reversible, WX_EINPUT when initial is not a vertex,
 * WX_ELIMIT when out of memory (then *out is empty). */
int lts_check_reversible(const struct csr *g, uint32_t initial, struct lts_reversibility *out,
                         struct wx_error *err);

/* The maximal end components of an LTS read as an MDP with one Dirac
 * choice per transition: the SCCs with an internal edge, i.e. non-trivial
 * SCCs (two or more states, or one state with a self-loop).  mec[v] is v's
 * MEC id, canonical (numbered in order of each MEC's smallest state, as
 * analysis/mec.h), or LTS_NO_MEC; choices_in_mecs counts the transitions
 * inside MECs. */
#define LTS_NO_MEC UINT32_MAX
struct lts_mecs {
    uint32_t *mec;               /* n_vertices ids; owned, NULL when empty */
    uint64_t n_mecs, states_in_mecs, choices_in_mecs, largest, n_singletons;
};

/* Derives the MECs of g from its SCC decomposition scc (scc_cpu's or any
 * canonical one).  Fills *out (overwritten, not freed first).  Returns WX_OK
 * or WX_ELIMIT when out of memory (then *out is empty). */
int lts_mecs_from_scc(const struct csr *g, const struct scc_result *scc, struct lts_mecs *out,
                      struct wx_error *err);
void lts_mecs_free(struct lts_mecs *m);

void lts_lasso_free(struct lts_lasso *l);
void lts_reversibility_free(struct lts_reversibility *r);

#endif
