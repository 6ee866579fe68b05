/*
 * label_match.h -- EXP label patterns: the matching modes of hide, cut and
 * rename (CADP exp(LOCAL), caesar_hide_1, caesar_rename_1), and the label
 * syntax helpers the parallel operators share.
 *
 * Patterns are POSIX basic regular expressions (regcomp without
 * REG_EXTENDED: `.`, `*`, `[...]`, `\{m,n\}`, `\( \)`, `\1`..`\9`, and the GNU
 * extensions `\<`, `\>`, `\|`).  A label matches a set of patterns when it
 * matches one of them, under the set's mode:
 *   GATE      the gate of the label (see label_gate_len) matches entirely;
 *   TOTAL     the whole label matches entirely;
 *   PARTIAL   some substring of the label matches;
 *   SINGLE, MULTIPLE   (rename) as PARTIAL for the "does it match" question.
 * "Entirely" means the leftmost-longest match starts at 0 and ends at the
 * end; POSIX regexec() returns the leftmost-longest match, so this equals
 * anchoring the pattern with ^...$ without rewriting it (which `\|` would
 * break).
 *
 * Rewriting (rename) takes the first pattern, in order, that matches; the
 * replacement template may use `\0`..`\9` (text of group n; empty when the
 * group did not take part), `&` (the whole match), `\&` (a literal `&`) and
 * `\\` (a backslash); any other character, or backslash pair, is copied
 * unchanged.  Per mode:
 *   GATE      the gate is replaced by the expanded template, offers kept;
 *   TOTAL     the whole label is replaced;
 *   SINGLE    the first (leftmost-longest) matching substring is replaced;
 *   MULTIPLE  every non-overlapping match, left to right, is replaced (an
 *             empty match right after a previous match is skipped, as sed
 *             does).
 *
 * Case folding (reference languages LOTOS, CCS, CSP): patterns and templates
 * are folded to upper case by label_fold_upper(), which leaves escaped
 * characters (`\w`, `\1`) and bracket class names (`[:alpha:]`) alone.
 * ([=e=] and [.c.] name characters, so they are folded like the others.)
 *
 * Ownership: a label_match owns its compiled patterns and templates.  Matching
 * is re-entrant (regexec on a shared regex_t is thread-safe in glibc), but
 * nothing here needs it.
 */
#ifndef WX_LABEL_MATCH_H
#define WX_LABEL_MATCH_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "exp_tree.h"
#include "../util/error.h"

struct label_match {
    enum exp_mode mode;
    size_t n;           /* number of patterns */
    regex_t *re;        /* n compiled patterns */
    char **tmpl;        /* NULL, or n replacement templates (rename) */
};

/* Length of the gate of a label: the prefix up to the first '!', '?', '(',
 * space or tab, or the whole label. */
size_t label_gate_len(const char *label);

/* Returns a malloc'd upper-case copy of s (NULL on OOM).  With `regex`, the
 * character after a backslash (outside brackets) and class names inside
 * brackets ([:name:]) are kept as written, so the pattern keeps its
 * meaning. */
char *label_fold_upper(const char *s, bool regex);

/* Compiles n patterns (templates: NULL for hide/cut, else n replacement
 * templates) under `mode`, folding them to upper case first when `fold`.
 * A pattern that does not compile is WX_EINPUT at file:loc, naming the
 * pattern and regerror's reason.  On failure *m is left empty. */
int label_match_compile(struct label_match *m, enum exp_mode mode, size_t n,
                        char *const *pats, char *const *tmpls, bool fold,
                        const char *file, struct exp_loc loc,
                        struct wx_error *err);

/* Index of the first pattern that `label` matches under the mode, or -1. */
long label_match_find(const struct label_match *m, const char *label);

/* Rename: on a match of pattern k (the first that matches), stores a
 * malloc'd rewritten label in *out and returns 1; returns 0 when no pattern
 * matches (*out untouched) and -1 when out of memory. */
int label_match_rewrite(const struct label_match *m, const char *label,
                        char **out);

void label_match_free(struct label_match *m);

#endif
