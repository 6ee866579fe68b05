/*
 * explore_mdp.h -- the explorer of probabilistic networks: the reachable
 * product MDP of an image with probabilistic choices (network/image.h,
 * img->probabilistic), built in memory as graph/mdp.h's struct mdp.
 *
 * Semantics (Segala probabilistic automata, as in mCRL2 and CADP): in a
 * product state, every local (interleaved) choice of a component gives one
 * product choice labelled with its result label, moving that component by
 * its distribution; every rule of a class k whose participants all have
 * class-k choices gives, for each combination of one class-k choice per
 * participant, one product choice labelled class_result[k] whose
 * distribution is the product of the participants' distributions.  The
 * choices of a state are the DISTINCT (label, distribution) pairs: equal
 * ones from different rules count once.  A state without a choice is a
 * deadlock (kept without choices; PRISM would add a self-loop).
 *
 * What is promised:
 *   - states are numbered in BFS order from 0 = the initial state; within a
 *     state, choices are sorted by (label id, distribution), a
 *     distribution's entries by target vector; the numbering is
 *     deterministic and does not depend on how the image grouped its rules;
 *   - when a component starts in a distribution (an mCRL2 initial
 *     distribution), state 0 is a fresh state whose one choice, labelled
 *     with the hidden label, goes to the product of the components' initial
 *     distributions (fresh_initial is set; its vector is all ones);
 *   - probabilities are the exact component probabilities rounded to double
 *     and multiplied in ascending component order, so equal distributions
 *     give bit-identical doubles (which makes the distinctness test exact);
 *   - the same MDP, bit for bit, for any number of threads
 *     (options.threads, 0 = all online cores): levels are expanded in
 *     parallel and numbered in one sequential commit (explore_mdp.c);
 *   - memory: the options' budget bounds the states (WX_ELIMIT beyond,
 *     with the partial counts and complete == false).
 */
#ifndef WX_EXPLORE_MDP_H
#define WX_EXPLORE_MDP_H

#include <stdbool.h>
#include <stdint.h>

#include "../graph/mdp.h"
#include "explore.h"

/* The label of the fresh initial choice when the network has no hidden
 * label. */
#define MDPX_NO_LABEL UINT32_MAX

struct mdp_explore_result {
    struct mdp mdp;           /* the reachable MDP (owned) */
    uint32_t *choice_label;   /* n_choices result-label ids (owned) */
    uint32_t *vectors;        /* options.keep_vectors: n_states * words (owned) */
    uint64_t *entry_num, *entry_den; /* exact: each entry's probability as a
                                 reduced fraction (owned); den == 0 when the
                                 product's numerator or denominator does not
                                 fit in 64 bits (then only probs[] has it) */
    bool fresh_initial;       /* state 0 precedes the initial distribution */
    uint64_t deadlocks;       /* states without a choice */
    uint32_t depth;           /* BFS levels below state 0 */
    bool complete;
    uint64_t bytes;           /* memory of the state set and the MDP */
    double seconds;
    unsigned threads;         /* threads that expanded states */
};

/* Explores img (which must be probabilistic: WX_EINPUT otherwise).  Uses
 * opt->memory_bytes, opt->progress, opt->keep_vectors and opt->cancel
 * (WX_EINTERRUPT with the partial counts, as for WX_ELIMIT) (NULL: defaults);
 * the other options (violations, traces, sinks, GPU) do not apply.  With
 * `exact`, res->entry_num/entry_den are filled too (16 more bytes per
 * entry).  Allocates *res (mdp_explore_result_free). */
int explore_mdp(const struct image *img, const struct explore_options *opt, bool exact,
                struct mdp_explore_result *res, struct wx_error *err);

void mdp_explore_result_free(struct mdp_explore_result *res);

#endif
