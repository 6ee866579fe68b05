/*
 * lts.h -- one component labelled transition system, in memory.
 *
 * Invariants (established by lts_finish(), relied on everywhere else):
 *   - n_states >= 1 and state 0 is the initial state;
 *   - the transitions are a *set*: sorted by (src, label, dst), no duplicates;
 *   - offsets[s] .. offsets[s+1] is the range of state s's transitions,
 *     offsets[n_states] == n_trans;
 *   - label ids index the strtab the LTS was built with (the LTS does not own
 *     it: every component of one network shares the network's table).
 *
 * Probabilistic components (Segala probabilistic automata, as mCRL2 writes
 * them in .aut).  A transition's dst may name a distribution instead of a
 * state: dst == LTS_DST_DISTRIBUTION | d, d < n_dists.  Distribution d has
 * the entries [dist_start[d], dist_start[d+1]) of dist_state / dist_num /
 * dist_den: target states strictly ascending, exact probabilities
 * dist_num/dist_den, reduced fractions with 0 < num < den, summing to 1
 * exactly, at least two entries (a one-state "distribution" is stored as a
 * plain dst).  After lts_finish the distributions are canonical: no two are
 * equal, and they are sorted by content, so (src, label, dst) triples still
 * form a set and equal LTSs have equal arrays.  The initial state may be a
 * distribution too: init_dist is then the distribution's id + 1 and state 0
 * is its first (smallest) state after lts_prune_from; 0 otherwise (so a
 * zeroed struct is a plain LTS).
 * A non-probabilistic LTS has n_dists == 0, init_dist == 0 and
 * NULL distribution arrays, and every function below behaves on it exactly
 * as before distributions existed.
 */
#ifndef WX_LTS_H
#define WX_LTS_H

#include <stdint.h>

#define LTS_DST_DISTRIBUTION 0x80000000u /* dst names a distribution */
#define LTS_MAX_STATES 0x7fffffffu       /* state ids must stay below the flag */

struct lts {
    uint32_t n_states;
    uint64_t n_trans;
    uint32_t *src, *label, *dst; /* n_trans each */
    uint64_t *offsets;           /* n_states + 1 */
    uint64_t n_duplicates;       /* duplicate lines dropped by lts_finish() */
    uint32_t *orig_state;        /* NULL, or n_states: the state's number in
                                    the input file (set by lts_prune_from) */
    /* distributions (see above); all 0 / NULL in a non-probabilistic LTS */
    uint32_t n_dists;
    uint64_t *dist_start;        /* n_dists + 1 */
    uint32_t *dist_state;        /* dist_start[n_dists] each */
    uint64_t *dist_num, *dist_den;
    uint64_t dist_cap, dist_entry_cap; /* builder capacities */
    uint32_t init_dist;          /* 0, or the initial distribution's id + 1 */
};

static inline int lts_is_probabilistic(const struct lts *l)
{
    return l->n_dists > 0;
}

/* Growable builder interface: lts_init() then lts_add() repeatedly, then
 * lts_finish(), which sorts, removes duplicates (counting them) and builds
 * offsets.  Return 0 on success, -1 when out of memory. */
void lts_init(struct lts *l, uint32_t n_states);
int lts_add(struct lts *l, uint32_t src, uint32_t label, uint32_t dst);
/* Pre-sizes the builder for n transitions (a hint: lts_add still grows). */
int lts_reserve(struct lts *l, uint64_t n);
int lts_finish(struct lts *l);

/* Adds a distribution over n entries (state[i] with probability
 * num[i]/den[i]; the caller has checked that they are positive and sum to 1
 * exactly).  Entries are sorted, equal states merged and fractions reduced
 * here.  Returns the value to use as a transition's dst (or as the initial
 * state of lts_prune_from): LTS_DST_DISTRIBUTION | id, or the plain state
 * when all the mass is on one state; UINT32_MAX when out of memory or when
 * 2^31 - 1 distributions exist already.  lts_finish removes duplicates. */
uint32_t lts_add_dist(struct lts *l, uint32_t n, const uint32_t *state, const uint64_t *num,
                      const uint64_t *den);

/* Keeps only the states reachable from `initial` (a state, or
 * LTS_DST_DISTRIBUTION | d: then from d's states, which become 0, 1, ...
 * in ascending order, and init_dist is set), renumbered in BFS order
 * from it (so the initial state becomes 0), and records each new state's
 * previous number in orig_state (composed with an earlier renumbering, so it
 * always names the input file's state).  Requires a finished LTS and leaves
 * a finished one.  Returns 0 or -1 (OOM). */
int lts_prune_from(struct lts *l, uint32_t initial);

/* Deep copy; 0 or -1. */
int lts_copy(struct lts *dst, const struct lts *src);

/* Frees the arrays (not the struct itself). */
void lts_free(struct lts *l);

#endif
