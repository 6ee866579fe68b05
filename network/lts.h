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
 * Room for probabilistic components (a later issue): a transition's dst will
 * be allowed to name a distribution instead of a state; the flag bit is
 * reserved as LTS_DST_DISTRIBUTION and no reader sets it yet.
 */
#ifndef WX_LTS_H
#define WX_LTS_H

#include <stdint.h>

#define LTS_DST_DISTRIBUTION 0x80000000u /* reserved, never set today */
#define LTS_MAX_STATES 0x7fffffffu       /* state ids must stay below the flag */

struct lts {
    uint32_t n_states;
    uint64_t n_trans;
    uint32_t *src, *label, *dst; /* n_trans each */
    uint64_t *offsets;           /* n_states + 1 */
    uint64_t n_duplicates;       /* duplicate lines dropped by lts_finish() */
    uint32_t *orig_state;        /* NULL, or n_states: the state's number in
                                    the input file (set by lts_prune_from) */
};

/* Growable builder interface: lts_init() then lts_add() repeatedly, then
 * lts_finish(), which sorts, removes duplicates (counting them) and builds
 * offsets.  Return 0 on success, -1 when out of memory. */
void lts_init(struct lts *l, uint32_t n_states);
int lts_add(struct lts *l, uint32_t src, uint32_t label, uint32_t dst);
/* Pre-sizes the builder for n transitions (a hint: lts_add still grows). */
int lts_reserve(struct lts *l, uint64_t n);
int lts_finish(struct lts *l);

/* Keeps only the states reachable from `initial`, renumbered in BFS order
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
