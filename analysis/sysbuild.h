/*
 * sysbuild.h -- the request of mdpcheck.h's build_system hook: step 3 of
 * the property layer (and step 2a's cut) handed to a backend that holds
 * its own copy of the model (kernels/mdp_dev.h's valiter_system_dev).  A
 * header of its own so that the CUDA side needs none of mdpcheck.h.
 */
#ifndef WX_SYSBUILD_H
#define WX_SYSBUILD_H

#include <stdint.h>

#include "../graph/mdp.h"
#include "../graph/mdp_lab.h"
#include "valiter.h"

/* Step 3 (with step 2a's cut when asked) for a system without MEC
 * collapse, built by the backend from its own copy of the model (the CLI:
 * the explored MDP kept in GPU memory, kernels/mdp_dev.h).  The result is
 * the one the host passes give, bit for bit: the cut numbered as
 * relevant_restrict numbers, each choice's constant summed in entry order.
 * The function leaves built 0 and touches nothing when it has no copy of
 * m (then the host builds the system). */
struct mdpcheck_sysbuild {
    const struct mdp *m;            /* the model                              */
    const uint8_t *ok;              /* n_choices usable choices; NULL: all    */
    const uint8_t *initial;         /* n_states: cut the maybe states to those
                                       the initial ones reach through maybe
                                       states (step 2a); NULL: no cut         */
    const struct mdp_rewards *rew;  /* is_reward: b = the choice's reward
                                       (state's + choice's; rew NULL: 0)      */
    int is_reward;                  /* 0: b = probability into class yes      */
    uint8_t cls_maybe, cls_yes, cls_skip;
    uint8_t *cls;                   /* n_states classes: with initial, the
                                       maybe states not reached become skip   */
    /* out: host arrays the caller allocates (loc and back n_states; sys at
     * upper-bound sizes: n_maybe + 1 states, the model's n_choices + 1
     * choices and n_entries entries); sys's counts and n_maybe are set */
    uint32_t *loc, *back;           /* ranks of the maybe states (mdpcheck_int.h) */
    uint64_t n_maybe;
    struct {                        /* struct vi_system, writable             */
        uint64_t n_states, n_choices, n_entries;
        uint64_t *state_start, *choice_start;
        uint32_t *targets;
        double *probs, *b;
    } sys;
    uint64_t no_choice;             /* UINT64_MAX, or the first system state
                                       without a usable choice (an error)     */
    int built;                      /* 1: done by the backend                 */
};

/* Step 2a alone (analysis/relevant.h's relevant_restrict), by a backend
 * that holds its own copy of the model: the maybe states the initial ones
 * reach through maybe states over usable choices; the others become skip;
 * loc and back numbered as relevant_restrict numbers them.  The function
 * leaves done 0 and touches nothing when it has no copy of m (then the
 * host cuts). */
struct mdpcheck_cut {
    const struct mdp *m;            /* the model                              */
    const uint8_t *ok;              /* n_choices usable choices; NULL: all    */
    const uint8_t *initial;         /* n_states                               */
    uint8_t cls_maybe, cls_skip;
    uint8_t *cls;                   /* n_states classes, updated              */
    uint32_t *loc, *back;           /* out: n_states each (host arrays)       */
    uint64_t n_maybe;               /* out                                    */
    int done;                       /* 1: done by the backend                 */
};

#endif
