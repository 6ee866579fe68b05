/*
 * graph_read.h -- reading a directed graph, in one of several file formats,
 * into a struct csr (graph/csr.h), for the graph analyses (SCC, ...).
 *
 * FORMATS, chosen by the file name's extension (graph_format_of):
 *   .csr  warpex CSR binary (csr_read; labels and initial vertex kept).
 *   .aut  Aldebaran LTS (aut_read): vertices are the file's state numbers,
 *         kept as they are -- NOT renumbered from the initial state and not
 *         pruned to the reachable part, so vertex v is state v of the file
 *         and unreachable states are part of the graph; g->initial is the
 *         header's initial state.  Labels are kept (g->label_names).
 *   .mtx  Matrix Market, "coordinate" only: header line
 *           %%MatrixMarket matrix coordinate FIELD SYMMETRY
 *         with FIELD pattern|real|integer|complex (values are read past and
 *         ignored) and SYMMETRY general|symmetric|skew-symmetric|hermitian
 *         (for all but general each entry (i,j), i != j, also gives j->i);
 *         then '%' comment lines, the size line "ROWS COLS NNZ" (square:
 *         ROWS == COLS), and exactly NNZ entry lines "I J [VALUE...]" with
 *         1-based I, J; entry (I,J) is the edge I-1 -> J-1.
 *   .tra  PRISM explicit MDP/DTMC transitions, read by mdp_read
 *         (graph/mdp.h, which states the rules and errors); the graph has S
 *         vertices and an edge SRC -> DST per transition line (choices,
 *         probabilities and actions dropped: this is the "underlying graph"
 *         on which PRISM computes SCCs).
 *   else  plain edge list (SNAP style): lines "U V [anything]" with 0-based
 *         U, V; blank lines and lines starting with '#' or '%' are skipped;
 *         n_vertices = 1 + the largest id seen (0 for no edges).
 * Numbers are unsigned decimal; blanks are spaces and tabs; a CR before the
 * LF is ignored.  Duplicate edges collapse into one (csr_builder), which no
 * graph analysis here can tell apart.  Graphs other than .csr/.aut carry no
 * labels (g->labels == NULL) and initial vertex 0.
 *
 * ERRORS (status + err, never a crash): WX_EINPUT for a malformed file,
 * located as file:line:col (1-based byte columns) with what was expected and
 * what was found; WX_ELIMIT for a vertex id >= 2^32 - 1 (a struct csr has
 * 32-bit ids) or out of memory; WX_ESYSTEM when the file cannot be read.
 * On error *out is left zeroed.
 *
 * MEMORY: the text formats hold the whole file in memory while parsing, plus
 * 16 bytes per edge in the builder; the result is csr-sized.
 *
 * THREAD SAFETY: reentrant.
 */
#ifndef WX_GRAPH_READ_H
#define WX_GRAPH_READ_H

#include "csr.h"

enum graph_format { GRAPH_CSR, GRAPH_AUT, GRAPH_MTX, GRAPH_TRA, GRAPH_EDGES };

/* The format the extension of path names (GRAPH_EDGES when none matches). */
enum graph_format graph_format_of(const char *path);

/* Reads path in the format its name says; *out is overwritten (allocated,
 * released with csr_free). */
int graph_read(const char *path, struct csr *out, struct wx_error *err);

/* Same, with the format given. */
int graph_read_format(const char *path, enum graph_format fmt, struct csr *out,
                      struct wx_error *err);

/* Same, from memory (text formats only: not GRAPH_CSR); data[0..len) need
 * not be NUL-terminated; name is used in error locations and for .aut. */
int graph_read_buffer(const char *data, size_t len, const char *name, enum graph_format fmt,
                      struct csr *out, struct wx_error *err);

#endif
