/*
 * relevant.h -- the part of an MDP that a property's value at the initial
 * states depends on (used by mdpcheck.c when options.initial_only is set).
 *
 * After the graph precomputation every state is decided (value 0, 1, or
 * an infinite reward) or "maybe".  The value of a maybe state depends only
 * on the maybe states it can reach through maybe states; so the value at
 * the initial states needs the numeric system only on
 *     R = the maybe states reachable from an initial maybe state through
 *         maybe states, along usable choices.
 * R is closed: every entry of a usable choice of a state of R goes to R or
 * to a decided state.  Hence:
 *   - a sweep over R computes, at every state of R, the same numbers as a
 *     sweep over all maybe states (bit for bit: a Jacobi update reads only
 *     the state's successors);
 *   - every end component that meets R lies inside R (its states reach one
 *     another), so collapsing the MECs of R is collapsing those of the
 *     maybe states that meet R;
 *   - when no initial state is a maybe state, R is empty: the precomputation
 *     has decided the answer and nothing numeric is left.
 *
 * THREAD SAFETY: reentrant; the MDP is only read.
 */
#ifndef WX_RELEVANT_H
#define WX_RELEVANT_H

#include <stdint.h>

#include "../graph/mdp.h"
#include "../util/error.h"

/* Restricts class `maybe` of cls (n_states bytes) to R (above): every
 * state of class `maybe` outside R becomes class `skip`.  ok (n_choices
 * bytes, NULL: all usable) marks the usable choices; initial (n_states
 * bytes) the initial states.  Then renumbers the remaining maybe states in
 * state order: loc[s] = rank of maybe state s, UINT32_MAX for every other
 * state; back[k] = the k-th maybe state; *n_maybe = |R|.  Returns WX_OK or
 * WX_ELIMIT (out of memory: cls, loc, back unchanged).  The search runs on
 * wx_pool_threads(threads) threads (util/pool.h); the result does not
 * depend on their number. */
int relevant_restrict(const struct mdp *m, const uint8_t *ok, const uint8_t *initial,
                      uint8_t *cls, uint8_t maybe, uint8_t skip, int threads, uint32_t *loc,
                      uint32_t *back, uint64_t *n_maybe, struct wx_error *err);

/* The system states (sid[s] for every initial state s with sid[s] !=
 * UINT32_MAX, s < n_states) in increasing order without repeats: the
 * states whose bounds decide when the solve may stop (vi_params.watch).
 * *watch is allocated (NULL when *n_watch == 0); returns WX_OK or
 * WX_ELIMIT. */
int relevant_watch(uint64_t n_states, const uint8_t *initial, const uint32_t *sid,
                   uint64_t n_sys, uint32_t **watch, uint64_t *n_watch, struct wx_error *err);

#endif
