/*
 * explore_int.h -- what explore_seq and explore_cpu share (not a public API).
 *
 * Violation semantics, common to both (and the contract a GPU twin follows):
 *   - violations are found when a state is expanded; a state with no
 *     successor is a deadlock, a successor whose label is flagged in
 *     options.action_match is an action violation (the trace then ends with
 *     that transition);
 *   - a shortest trace wins: a deadlock of depth d (trace length d) beats an
 *     action violation from a source of depth d (length d + 1), so once an
 *     action violation is found in level d with stop_on_deadlock set, the
 *     rest of level d is still scanned for deadlocks (without inserting
 *     anything) before stopping;
 *   - on a violation the exploration stops: counts are partial, complete is
 *     false, and the call returns WX_OK with result.violation set (the CLI
 *     turns that into exit code 1).  Only resource limits (WX_ELIMIT),
 *     sink failures and bad input return non-zero.
 *   - with options.finish_after_violation the violation that stopping would
 *     report is recorded instead (first deadlock; first action violation,
 *     pre-empted by a deadlock of its own level when stop_on_deadlock; the
 *     choice is settled at the end of the violation's level, so nothing found
 *     in a deeper level replaces it) and the exploration goes on: complete,
 *     counts, edges and depth are those of a run without the checks, and the
 *     trace is built from the same BFS parent links at the end.
 *   - budget accounting: a state costs vtable_bytes_per_state(words) plus
 *     explore_extra_bytes(options) (parent links for traces), so both CPU
 *     backends stop at about the same number of states for one budget.
 */
#ifndef WX_EXPLORE_INT_H
#define WX_EXPLORE_INT_H

#include "explore.h"
#include "../util/timer.h"

struct treestore;

/* Edges handed to the sink per call. */
#define EXPLORE_EDGE_BATCH 4096u

/* true once the caller raised options.cancel (explore.h). */
static inline bool explore_cancelled(const struct explore_options *opt)
{
    return opt->cancel && *opt->cancel;
}

/* Fills err for a raised cancel flag; returns WX_EINTERRUPT. */
static inline int explore_interrupted(struct wx_error *err)
{
    return wx_fail(err, WX_EINTERRUPT, NULL, 0, 0, "exploration interrupted");
}

/* Options to use when the caller passed NULL. */
const struct explore_options *explore_opts(const struct explore_options *opt);

/* The memory budget in bytes: options.memory_bytes, or the default. */
uint64_t explore_budget(const struct explore_options *opt);

/* Bytes per state outside the vector table: 12 (parent id + label) when a
 * trace is wanted, else 0. */
uint64_t explore_extra_bytes(const struct explore_options *opt);

/* Clears res and fills backend. */
void explore_result_init(struct explore_result *res, const char *backend);

/* Where an exploration's vectors are, by id: a flat store (words words per
 * id) or a tree store (unfolded on demand). */
struct explore_vectors {
    const uint32_t *flat;          /* NULL: use tree */
    const struct treestore *tree;
    uint32_t words;
};

/* Sets the shape of an empty tree store (hash/treeshape.h) from a sample:
 * the first TREE_SHAPE_SAMPLE states of img in BFS order.  Only the
 * store's bytes depend on it. */
int explore_tree_shape(const struct image *img, struct treestore *tree, struct wx_error *err);

/* Copies the vector of id into out (words words). */
void explore_vector(const struct explore_vectors *v, uint64_t id, uint32_t *out);

/* res->vectors (options.keep_vectors) for a tree store: every vector of
 * ids [0, n), unfolded.  Allocates; WX_ELIMIT when out of memory. */
int explore_unfold_all(struct explore_result *res, const struct treestore *tree, uint64_t n,
                       struct wx_error *err);

/* Builds res->trace: the parent chain from `state` back to 0 (parent[id],
 * label[id] = the BFS tree edge into id), plus the transition
 * (state, act_label, act_target) when act is set; the vectors come from v.
 * Allocates; WX_ELIMIT when out of memory. */
int explore_build_trace(struct explore_result *res, const struct explore_vectors *v,
                        const uint64_t *parent, const uint32_t *label, uint64_t state, int act,
                        uint32_t act_label, uint64_t act_target, struct wx_error *err);

#endif
