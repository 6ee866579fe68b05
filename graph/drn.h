/*
 * drn.h -- reader for Storm's explicit DRN format ("DiRect eNcoding"), for
 * DTMCs and MDPs with labels and rewards.
 *
 * FORMAT (the subset warpex reads): "//" comment lines anywhere, blank lines
 * ignored; header sections, each once:
 *     @type: DTMC | MDP
 *     @value_type: double            (optional; others are rejected)
 *     @parameters  + one line (must be empty: no parametric models)
 *     @reward_models + one line of names (may be empty)
 *     @nr_states + one line N
 *     @nr_choices + one line C       (checked when given)
 *     @model
 * then for every state, in order 0, 1, ..., N-1:
 *     state ID [R1, R2, ...] LABEL LABEL ...   (rewards and labels optional;
 *                                               labels may be "quoted")
 *     action NAME [R1, ...] ...                (per choice; NAME is ignored)
 *     DST : PROB                               (per transition)
 * drn_read_models keeps every reward model, named as @reward_models names
 * them (state rewards into .state, action rewards into .choice); drn_read
 * keeps only the first.  Rewards must be finite and >= 0.
 * The label "init" marks the initial states.  A DTMC state has at most one
 * action.  Observations {..} and exit rates !.. (POMDP, CTMC, MA) are
 * rejected.  Probabilities must lie in (0, 1] and sum to 1 within
 * MDP_SUM_TOLERANCE per choice; DST < N.
 *
 * ERRORS: WX_EINPUT located as file:line:col; WX_ELIMIT for more than
 * 2^32 - 1 states or out of memory.  On error all outputs are empty.
 */
#ifndef WX_DRN_H
#define WX_DRN_H

#include <stddef.h>

#include "../util/error.h"
#include "mdp.h"
#include "mdp_lab.h"

int drn_read_models(const char *path, struct mdp *m, struct mdp_labels *labels,
                    struct mdp_reward_models *rewards, struct wx_error *err);
int drn_read_models_buffer(const char *data, size_t len, const char *name, struct mdp *m,
                           struct mdp_labels *labels, struct mdp_reward_models *rewards,
                           struct wx_error *err);
int drn_read(const char *path, struct mdp *m, struct mdp_labels *labels,
             struct mdp_rewards *rewards, struct wx_error *err);
int drn_read_buffer(const char *data, size_t len, const char *name, struct mdp *m,
                    struct mdp_labels *labels, struct mdp_rewards *rewards,
                    struct wx_error *err);

#endif
