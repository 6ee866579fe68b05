/*
 * mdp.h -- Markov decision processes in CSR form with row groups, and a
 * reader for PRISM's explicit transition files (.tra).
 *
 * LAYOUT.  States own consecutive choices, choices own consecutive entries:
 *     state s has choices   c in [state_start[s], state_start[s+1])
 *     choice c has entries  e in [choice_start[c], choice_start[c+1])
 *     entry e goes to targets[e] with probability probs[e]
 * Invariants: state_start[0] == 0, state_start[n_states] == n_choices,
 * choice_start[0] == 0, choice_start[n_choices] == n_entries, both arrays
 * non-decreasing; every choice has at least one entry; every target is
 * < n_states; every probability is in (0, 1] and each choice's
 * probabilities sum to 1 within MDP_SUM_TOLERANCE.  A state may have no
 * choice at all (a file may omit a state; PRISM itself never does: it gives
 * deadlock states a probability-1 self-loop).  State ids are 32-bit
 * (n_states <= 2^32 - 1); choice and entry offsets are 64-bit.  Choice c's
 * local number within its state is c - state_start[s], the file's CHOICE
 * field.  A DTMC is read as an MDP with one choice per state that has
 * transitions (is_dtmc set).
 *
 * .tra FORMAT (as PRISM 4.x writes it; docs/formats.md):
 * '#' comment lines anywhere, blank lines ignored; the header "S C T" (MDP)
 * or "S T" (DTMC); then exactly T lines
 *     MDP:  SRC CHOICE DST PROB [ACTION]
 *     DTMC: SRC DST PROB [ACTION]
 * sorted by SRC, then CHOICE: SRC never decreases, and within one SRC the
 * CHOICE fields are 0, 1, 2, ... with each choice's lines together.  PROB is
 * a C decimal (strtod: "1", "0.5", "1.5e-05").  DST order within a choice
 * is not checked.  ACTION is read past (not kept).  The header's C must
 * equal the number of choices the lines give.
 *
 * ERRORS (status + err; on error *out is left zeroed): WX_EINPUT, located as
 * file:line:col, for a bad header, a line count or choice count that
 * disagrees with the header (located at the header), a state out of range,
 * SRC or CHOICE out of order, a probability not in (0, 1], a choice whose
 * probabilities do not sum to 1 within MDP_SUM_TOLERANCE (located at the
 * choice's first line); WX_ELIMIT for more than 2^32 - 1 states or out of
 * memory; WX_ESYSTEM (WX_EINPUT for a missing file) when the file cannot be
 * read.
 *
 * MEMORY: mdp_read maps the file (mmap; a pipe is read into memory) while
 * parsing; the result
 * takes 8 bytes per state and per choice and 12 bytes per entry (the
 * parallel path needs 8 bytes per entry more while it runs).
 *
 * THREAD SAFETY: reentrant; an mdp is only read by the analyses.
 */
#ifndef WX_MDP_H
#define WX_MDP_H

#include <stddef.h>
#include <stdint.h>

#include "../util/error.h"

/* Largest |sum - 1| accepted for one choice's probabilities. */
#define MDP_SUM_TOLERANCE 1e-9

struct mdp {
    uint64_t n_states, n_choices, n_entries;
    uint64_t *state_start;  /* n_states + 1, into choices (owned)           */
    uint64_t *choice_start; /* n_choices + 1, into entries (owned)          */
    uint32_t *targets;      /* n_entries (owned; NULL when 0)               */
    double *probs;          /* n_entries (owned; NULL when 0)               */
    int is_dtmc;            /* read from a 2-number (DTMC) header           */
};

/* Reads a PRISM .tra file into *out (overwritten; allocates, released with
 * mdp_free). */
int mdp_read(const char *path, struct mdp *out, struct wx_error *err);

/* Same, from memory: data[0..len) need not be NUL-terminated; name is used
 * in error locations. */
int mdp_read_buffer(const char *data, size_t len, const char *name, struct mdp *out,
                    struct wx_error *err);

/* Same, with `threads` parsing threads (0: all cores for a buffer of 1 MiB
 * or more, one thread below; 1: sequential).  The result and every error
 * are those of the sequential reader whatever the thread count: the
 * parallel path takes only the plain shape PRISM writes and hands anything
 * else (comments or blank lines after the header, any error) to it. */
int mdp_read_buffer_threads(const char *data, size_t len, const char *name, int threads,
                            struct mdp *out, struct wx_error *err);

/* Frees the arrays and zeroes *m; safe on a zeroed or freed mdp. */
void mdp_free(struct mdp *m);

/* The state that owns choice c (binary search over state_start; a state
 * without choices never owns one).  c < m->n_choices. */
uint32_t mdp_choice_state(const struct mdp *m, uint64_t c);

#endif
