/*
 * wgraph.h -- weighted directed graphs (integer or decimal weights, optional
 * integer transit times) read from files, for the cycle-mean analysis
 * (analysis/cyclemean.h).
 *
 * IN MEMORY.  CSR like graph/csr.h: vertex v's edges are
 * [offsets[v], offsets[v+1]), offsets[n_vertices] == n_edges; edges keep the
 * file's order within a source and parallel edges are NOT merged (they may
 * carry different weights).  weights[e] is an integer: the file's weight
 * times 10^scale, where scale is the largest number of decimal places in the
 * file (trailing zeros ignored), so all weights are exact; |weights[e]| <=
 * 2^31 - 1 after scaling (else WX_ELIMIT, located at the worst weight).
 * transit is NULL (every edge 1) or n_edges integers in 1 .. 2^31 - 1.
 *
 * FORMATS (wgraph_format_of: by extension, else by the first content line):
 *   DIMACS (.dimacs .dim .gr .d, or a file whose first content line starts
 *     with "p " or "c "), as in Dasdan's cycle-mean benchmarks and SPRAND:
 *       c comment
 *       p [NAME] N M          once, before the arcs (NAME optional: "p sp")
 *       a U V WEIGHT [TRANSIT] exactly M lines, 1-based U, V <= N
 *   edge list (anything else): "U V WEIGHT [TRANSIT]" per line, 0-based;
 *     '#' and '%' start comment lines; N = 1 + the largest id.
 *   .csr  warpex CSR binary (graph/csr.h).  Weights come either from the
 *     labels with --weight (as for .aut) or from the sidecar text file
 *     PATH.weights: one line "WEIGHT [TRANSIT]" per edge in CSR edge order,
 *     '#' comment lines allowed, exactly n_edges lines.
 *   .aut  Aldebaran LTS (parser/aut.h; states keep the file's numbers, as
 *     in graph_read.h).  Weights come from labels: weight_regex (POSIX ERE)
 *     is searched in each label; when it matches and its first capture group
 *     took part, that group must be a WEIGHT, else the label gets
 *     default_weight ("0" when NULL).  Duplicate (src, label, dst) lines
 *     collapse (aut.h), which no cycle mean can tell apart.
 * Within a text file transit times are all present or all absent.
 * WEIGHT: [+-]DIGITS[.DIGITS]; TRANSIT: DIGITS, >= 1.  Blanks are spaces and
 * tabs; a CR before the LF is ignored.
 *
 * ERRORS: WX_EINPUT malformed input, located file:line:col (the regex and
 * the default weight as option errors); WX_ELIMIT a vertex id >= 2^32 - 1, a
 * weight beyond the limit after scaling, out of memory; WX_ESYSTEM the file
 * cannot be read.  On error *out is zeroed.
 *
 * THREAD SAFETY: reentrant.
 */
#ifndef WX_WGRAPH_H
#define WX_WGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "../util/error.h"
#include "../util/strtab.h"

enum wgraph_format { WGRAPH_DIMACS, WGRAPH_EDGES, WGRAPH_CSR, WGRAPH_AUT };

struct wgraph_options {
    const char *weight_regex;   /* .aut / labelled .csr: required there */
    const char *default_weight; /* weight of labels the regex misses; NULL = "0" */
};

struct wgraph {
    uint64_t n_vertices, n_edges;
    uint64_t *offsets;          /* n_vertices + 1 */
    uint32_t *targets;          /* n_edges */
    int64_t *weights;           /* n_edges, scaled by 10^scale */
    int64_t *transit;           /* n_edges, or NULL (all 1) */
    unsigned scale;             /* weights are in units of 10^-scale */
    uint32_t *labels;           /* n_edges label ids (.aut, labelled .csr) or NULL */
    struct strtab *label_names; /* owned, or NULL */
    uint32_t initial;           /* .aut / .csr initial state, else 0 */
    enum wgraph_format format;
};

/* The format of path: by extension, else by its first content line (reads
 * the file's beginning; DIMACS when it starts "p " or "c "). */
enum wgraph_format wgraph_format_of(const char *path);

/* Reads path into *out (overwritten; allocated, released by wgraph_free). */
int wgraph_read(const char *path, const struct wgraph_options *o, struct wgraph *out,
                struct wx_error *err);

/* Same from memory for the text formats and .aut (not CSR). */
int wgraph_read_buffer(const char *data, size_t len, const char *name, enum wgraph_format fmt,
                       const struct wgraph_options *o, struct wgraph *out, struct wx_error *err);

void wgraph_free(struct wgraph *g);

/* The weight of every label of names (integers in units of 10^-*scale)
 * under o's --weight / --default-weight rule, scaled to the largest number
 * of decimal places among the labels flagged in used (all when NULL);
 * *weights is allocated (free()).  name locates errors. */
int wgraph_label_weights(const struct strtab *names, const uint8_t *used, const struct wgraph_options *o,
                         const char *name, int64_t **weights, unsigned *scale, struct wx_error *err);

/* Takes over a labelled CSR (g's arrays move into *out and g is zeroed,
 * also on error) and weights its edges from their labels as for .aut: the
 * explored product of `explore --cycle-mean`. */
struct csr;
int wgraph_from_csr(struct csr *g, const struct wgraph_options *o, struct wgraph *out, struct wx_error *err);

/* Parses a WEIGHT ([+-]DIGITS[.DIGITS], whole string) into mantissa and
 * decimal places (trailing fractional zeros dropped): s == mant / 10^places.
 * Returns WX_OK or WX_EINPUT (not a number) / WX_ELIMIT (more than 18
 * significant digits or more than 18 decimal places). */
int wgraph_parse_weight(const char *s, size_t len, int64_t *mant, unsigned *places);

#endif
