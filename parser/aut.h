/*
 * aut.h -- reading and writing Aldebaran (.aut) files.
 *
 * FORMAT ACCEPTED BY THE READER (CADP's 2014 definition plus mCRL2 variants;
 * docs/formats.md, "Aldebaran .aut"):
 *
 *     des (INITIAL, NTRANS, NSTATES)
 *     (SRC, LABEL, DST)            -- exactly NTRANS such lines, any order
 *
 *   - Numbers are decimal digit strings (leading zeros allowed, no sign).
 *     NSTATES >= 1 and NSTATES <= LTS_MAX_STATES (more is WX_ELIMIT);
 *     INITIAL, SRC and DST are < NSTATES; NTRANS is read as 64 bits and must
 *     equal the number of transition lines.  No number overflows silently.
 *   - INITIAL may be non-zero (mCRL2 writes its real initial state): it is
 *     returned in *initial and the LTS keeps the file's numbering; the caller
 *     renumbers with lts_prune_from(out, *initial) (which also drops
 *     unreachable states).
 *   - Blanks (space, tab, VT, FF) may surround every token.  Lines end in LF;
 *     CRs at the end of a line are ignored (CRLF files), so are trailing blanks,
 *     blank lines (before the header too) and a missing final LF.
 *   - An EOT byte (0x04) ends the input (mCRL2 uses it to concatenate files):
 *     everything from the first EOT on is ignored.  It must stand at the start
 *     of a line or after a complete line; an EOT cutting a line is an error.
 *   - LABEL is one of
 *       quoted:   the text between the leftmost and the rightmost '"' of the
 *                 line (CADP rule: quotes inside are not escaped, so
 *                 (4, "MSG !"a,b"", 1) has label MSG !"a,b"); may be empty;
 *       unquoted: a letter then letters/digits/'_', or '*', or -- mCRL2 style
 *                 -- any text up to the last ',' of the line, with leading and
 *                 trailing blanks removed (inner blanks kept), e.g. a(1, 2).
 *                 An unquoted label never contains '"'.
 *     A label is interned as its text without the quotes, byte-exact, so
 *     PUT_1 and "PUT_1" are the same label.  Nothing is special-cased: "i"
 *     and "tau" are ordinary texts here; which label is hidden is the
 *     network builder's decision.
 *   - Characters: bytes 0x80..0xFF are accepted inside labels and kept
 *     byte-exact (so UTF-8 labels written by other tools pass through; CADP
 *     itself allows 7-bit ASCII only) and rejected elsewhere.  Control bytes
 *     (0x00..0x1F and 0x7F, NUL included) are rejected everywhere except TAB
 *     inside a label, so every label is a valid NUL-free C string.
 *
 * PROBABILISTIC VARIANT (aut_read_prob only; mCRL2's probabilistic LTSs):
 * a target, and the header's INITIAL, may be a distribution
 *     (SRC, LABEL, S1 P1 S2 P2 ... Sn)        n >= 2
 * meaning S1 with probability P1, ..., and Sn with the remainder
 * 1 - (P1 + ... + Pn-1).  A probability is a fraction "p/q" (p, q <= 10^18)
 * or a decimal ("0.25", ".5", "1"; at most 18 places); blanks separate
 * every state and probability.  Probabilities are EXACT rationals: each must
 * lie in (0, 1] and the sum before the last state must be < 1, so that the
 * remainder is > 0 (no tolerance: 0.3333 + 0.3333 leaves 0.3334 to the last
 * state; write 1/3 for a third).  A state may occur twice in one
 * distribution (the probabilities add); a distribution whose mass is all on
 * one state is a plain transition.  Errors (WX_EINPUT, located at the
 * offending probability or state): a signed, zero, or > 1 probability, a
 * zero denominator, too many digits, probabilities reaching 1 before the
 * last state, a missing state or probability, states out of range.  The
 * distribution goes into out (lts.h: dst = LTS_DST_DISTRIBUTION | d); a
 * probabilistic initial state is returned as *initial =
 * LTS_DST_DISTRIBUTION | d, which lts_prune_from understands.  aut_read
 * and aut_read_buffer refuse distributions (the graph readers of scc, mec,
 * cycle-mean have no use for them), as described below.
 *
 * ERRORS (all located with wx_fail as file:line:col; columns are 1-based byte
 * offsets, a TAB counts as one column; lines past INT_MAX report INT_MAX):
 *   WX_EINPUT  malformed header; '?' counts (file left by an aborted CADP-style
 *              writer); zero states; INITIAL/SRC/DST out of range (the message
 *              names the state and NSTATES); malformed transition line (the
 *              message says what was expected and what was found: NUL byte,
 *              control or non-ASCII byte, end of line, ...); probabilistic
 *              target such as (s, "a", 3 1/2 4) or initial distribution ("not
 *              supported yet", at the distribution); NTRANS different from
 *              the number of transition lines (both numbers given; located at
 *              the first surplus line, or at NTRANS in the header when lines
 *              are missing).
 *   WX_ELIMIT  NSTATES > LTS_MAX_STATES; out of memory.
 *   WX_ESYSTEM the file cannot be opened, mapped or read.
 * On any error *out is left empty (freed, n_trans == 0) and *initial is 0;
 * labels interned before the error stay in the strtab.
 *
 * THREAD SAFETY: reading is reentrant; concurrent reads are fine when they use
 * distinct strtabs (a strtab takes one writer at a time).
 *
 * WRITER.  aut_writer_* streams transitions.  When the counts are known
 * before the first line (a finished LTS or MDP), aut_writer_expect writes the
 * exact header "des (0, NTRANS, NSTATES)" and close() checks the counts.
 * When they are not (edges streamed while a state space is explored), open()
 * writes the placeholder "des (0, ?, ?)" padded with blanks to a fixed width
 * and close() overwrites it in place with "des (0, NTRANS, NSTATES)" padded
 * with trailing blanks (legal in AUT): the header is at the front and its
 * final width is known only at the end, and the alternative, copying a file
 * of possibly many gigabytes behind a shorter header, doubles the I/O.  The
 * output goes through util/outfile.h: a regular file is written as a
 * temporary renamed over PATH by close(), so a failed or aborted write (or a
 * killed process) leaves an existing PATH untouched; a device is written in
 * place (a crash there leaves the header saying '?', which the reader
 * rejects as aborted).  The output must be seekable: a FIFO or terminal is
 * refused (WX_EINPUT).
 * Lines are written as (SRC,LABEL,DST); a label that is a plain identifier
 * (letter then letters/digits/'_') is written bare, every other label quoted;
 * the hidden label is written as the text given (no "i"/"tau" translation).
 * Every label text the reader can return can be written, and reads back
 * identically; a text with a control byte other than TAB (a newline, NUL,
 * ...) cannot be expressed in AUT and makes aut_writer_add fail.
 * The initial state is always 0 (the caller numbers it so).
 * A writer is not thread-safe: one thread at a time per writer (the CLI
 * serialises its calls); distinct writers are independent.
 */
#ifndef WX_AUT_H
#define WX_AUT_H

#include <stddef.h>
#include <stdint.h>

#include "../network/lts.h"
#include "../util/error.h"
#include "../util/strtab.h"

/* Reads the AUT file at path (mmapped when it is a regular file, otherwise
 * read whole, so /dev/stdin works) into *out, a finished LTS (lts_finish:
 * sorted, duplicates dropped and counted in out->n_duplicates, so the file
 * had out->n_trans + out->n_duplicates transition lines).  Labels are interned
 * into the caller's table.  *initial receives the header's initial state.
 * out is overwritten (not freed first).  Returns WX_OK or an error above. */
int aut_read(const char *path, struct strtab *labels, struct lts *out,
             uint32_t *initial, struct wx_error *err);

/* Same, from memory: data[0..len) need not be NUL-terminated; name is used in
 * error locations. */
int aut_read_buffer(const char *data, size_t len, const char *name,
                    struct strtab *labels, struct lts *out, uint32_t *initial,
                    struct wx_error *err);

/* aut_read / aut_read_buffer accepting the probabilistic variant above
 * (*initial may then carry LTS_DST_DISTRIBUTION). */
int aut_read_prob(const char *path, struct strtab *labels, struct lts *out,
                  uint32_t *initial, struct wx_error *err);
int aut_read_prob_buffer(const char *data, size_t len, const char *name,
                         struct strtab *labels, struct lts *out, uint32_t *initial,
                         struct wx_error *err);

struct aut_writer;

/* Opens path (outfile_open with OUTFILE_SEEKABLE: its errors) and writes
 * the placeholder header; on success *w is a new writer (allocated;
 * released by close or abort). */
int aut_writer_open(const char *path, struct aut_writer **w, struct wx_error *err);

/* Announces the counts before the first line: the header is written exactly,
 * without padding, and aut_writer_close fails (WX_ESYSTEM, output aborted)
 * unless exactly n_trans lines were added and it is given n_states.  Call it
 * right after open; later it fails the writer. */
int aut_writer_expect(struct aut_writer *w, uint64_t n_trans, uint64_t n_states);

/* Appends the line (src, label[0..len), dst).  Returns WX_OK, or the status
 * of the first failure so far (WX_ESYSTEM for a failed write, WX_EINPUT for a
 * label AUT cannot express); after a failure further adds do nothing and
 * aut_writer_close reports the failure in full. */
int aut_writer_add(struct aut_writer *w, uint64_t src, const char *label,
                   size_t len, uint64_t dst);

/* Appends the probabilistic line (src, label[0..len), dst[0] num[0]/den[0]
 * dst[1] ... dst[n-1]) of the variant above: the last target gets the
 * remainder, so num/den[n-1] are not written (the caller's fractions must
 * be reduced, in (0, 1), and sum to 1).  n == 1 writes a plain line.
 * Errors as aut_writer_add. */
int aut_writer_add_dist(struct aut_writer *w, uint64_t src, const char *label, size_t len,
                        uint32_t n, const uint64_t *dst, const uint64_t *num, const uint64_t *den);

/* Flushes, writes the final header with the number of lines added and
 * n_states, commits the output and frees w.  Fails (the output is aborted:
 * an existing file stays as it was) after an
 * earlier failed add, on an I/O error, when n_states == 0, or when a state
 * >= n_states was added (WX_ESYSTEM: the caller's numbering is wrong). */
int aut_writer_close(struct aut_writer *w, uint64_t n_states, struct wx_error *err);

/* Frees w and aborts its output (for callers that give up). */
void aut_writer_abort(struct aut_writer *w);

/* Writes a finished LTS (initial state 0) whose labels index `labels`. */
int aut_write(const char *path, const struct lts *l, const struct strtab *labels,
              struct wx_error *err);

#endif
