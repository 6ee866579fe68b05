/*
 * graph_read.c -- directed graphs from CSR binary, .aut, Matrix Market, PRISM
 * .tra and plain edge lists (formats and errors: graph_read.h).
 *
 * The text formats share one line scanner: a struct scan walks the buffer a
 * line at a time and a cursor within the line, so every error can name
 * file:line:col.  Each format reader is a loop over "content" lines (blank
 * and comment lines skipped) that feeds a csr_builder.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../parser/aut.h"
#include "graph_read.h"
#include "scan_int.h"
#include "mdp.h"

/* Largest vertex id a struct csr can hold: n_vertices <= 2^32 - 1. */
#define MAX_VERTEX_ID (UINT32_MAX - 1ull)

/* Reads a vertex id: a number, minus `base`, that fits a struct csr. */
static int read_vertex(struct scan *s, uint64_t base, uint64_t *v, const char *what)
{
    scan_skip_blanks(s);
    const char *at = s->c;
    int rc = scan_read_u64(s, v, what);
    if (rc != WX_OK)
        return rc;
    if (*v < base)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                       "%s is 0, but indices in this format start at 1", what);
    *v -= base;
    if (*v > MAX_VERTEX_ID)
        return wx_fail(s->err, WX_ELIMIT, s->name, scan_line(s), scan_col(s, at),
                       "%s %llu is too large: graphs have at most 2^32 - 1 vertices", what,
                       (unsigned long long)(*v + base));
    return scan_check_id(s, at, *v, what);
}

/* Reads past one blank-delimited token (which must be present). */
static int skip_token(struct scan *s, const char *what, const char **tok, size_t *len)
{
    scan_skip_blanks(s);
    if (s->c >= s->le)
        return scan_fail_here(s, WX_EINPUT, what);
    *tok = s->c;
    while (s->c < s->le && *s->c != ' ' && *s->c != '\t')
        s->c++;
    *len = (size_t)(s->c - *tok);
    return WX_OK;
}

static int add_edge(struct scan *s, struct csr_builder *b, uint64_t u, uint64_t v)
{
    int rc = csr_builder_add(b, u, 0, v, s->err);
    if (rc != WX_OK)
        s->err->line = scan_line(s), snprintf(s->err->file, sizeof s->err->file, "%s", s->name);
    return rc;
}

/* Builds the unlabelled graph (labels dropped: csr_builder_finish always
 * makes them). */
static int finish(struct csr_builder *b, uint64_t n, const char *name, struct csr *out,
                  struct wx_error *err)
{
    int rc = csr_builder_finish(b, n, NULL, out, err);
    if (rc != WX_OK) {
        if (!err->file[0])
            snprintf(err->file, sizeof err->file, "%s", name);
        return rc;
    }
    free(out->labels);
    out->labels = NULL;
    return WX_OK;
}

/* edges: "U V [anything]" per line, 0-based. */
static int read_edges(struct scan *s, struct csr_builder *b, uint64_t *n)
{
    uint64_t max_plus_1 = 0;
    while (scan_next_content_line(s, "#%")) {
        uint64_t u, v;
        int rc;
        if ((rc = read_vertex(s, 0, &u, "source vertex")) != WX_OK ||
            (rc = read_vertex(s, 0, &v, "target vertex")) != WX_OK ||
            (rc = add_edge(s, b, u, v)) != WX_OK)
            return rc;
        if (u + 1 > max_plus_1)
            max_plus_1 = u + 1;
        if (v + 1 > max_plus_1)
            max_plus_1 = v + 1;
    }
    *n = max_plus_1;
    return WX_OK;
}

static int word_is(const char *tok, size_t len, const char *w)
{
    return strlen(w) == len && !strncasecmp(tok, w, len);
}

/* Matrix Market coordinate. */
static int read_mtx(struct scan *s, struct csr_builder *b, uint64_t *n)
{
    const char *tok;
    size_t len = 0;
    int rc;
    if (!scan_next_line(s) || (size_t)(s->le - s->ls) < 14 || strncmp(s->ls, "%%MatrixMarket", 14))
        return wx_fail(s->err, WX_EINPUT, s->name, s->line ? scan_line(s) : 1, 1,
                       "expected the Matrix Market banner '%%%%MatrixMarket matrix coordinate "
                       "FIELD SYMMETRY' on the first line");
    s->c = s->ls + 14;
    if ((rc = skip_token(s, "'matrix'", &tok, &len)) != WX_OK)
        return rc;
    if (!word_is(tok, len, "matrix")) {
        s->c = tok;
        return scan_fail_here(s, WX_EINPUT, "'matrix'");
    }
    if ((rc = skip_token(s, "'coordinate'", &tok, &len)) != WX_OK)
        return rc;
    if (!word_is(tok, len, "coordinate")) {
        s->c = tok;
        return scan_fail_here(s, WX_EINPUT, "'coordinate' (dense 'array' matrices are not graphs "
                                       "warpex reads)");
    }
    if ((rc = skip_token(s, "a field (pattern, real, integer, complex)", &tok, &len)) != WX_OK)
        return rc;
    if (!word_is(tok, len, "pattern") && !word_is(tok, len, "real") &&
        !word_is(tok, len, "integer") && !word_is(tok, len, "complex")) {
        s->c = tok;
        return scan_fail_here(s, WX_EINPUT, "a field (pattern, real, integer, complex)");
    }
    const char *sym_what = "a symmetry (general, symmetric, skew-symmetric, hermitian)";
    if ((rc = skip_token(s, sym_what, &tok, &len)) != WX_OK)
        return rc;
    int mirror;
    if (word_is(tok, len, "general"))
        mirror = 0;
    else if (word_is(tok, len, "symmetric") || word_is(tok, len, "skew-symmetric") ||
             word_is(tok, len, "hermitian"))
        mirror = 1;
    else {
        s->c = tok;
        return scan_fail_here(s, WX_EINPUT, sym_what);
    }
    if (!scan_at_eol(s))
        return scan_fail_here(s, WX_EINPUT, "the end of the banner line");

    if (!scan_next_content_line(s, "%"))
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s) + 1, 1,
                       "expected the size line 'ROWS COLS NNZ', found the end of the file");
    uint64_t rows, cols, nnz;
    const char *rows_at = s->c, *nnz_at;
    uint64_t size_line = s->line;
    if ((rc = scan_read_u64(s, &rows, "the number of rows")) != WX_OK ||
        (rc = scan_read_u64(s, &cols, "the number of columns")) != WX_OK)
        return rc;
    scan_skip_blanks(s);
    nnz_at = s->c;
    if ((rc = scan_read_u64(s, &nnz, "the number of entries")) != WX_OK)
        return rc;
    if (!scan_at_eol(s))
        return scan_fail_here(s, WX_EINPUT, "the end of the size line");
    if (rows != cols)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, rows_at),
                       "the matrix is %llu x %llu: a graph's adjacency matrix must be square",
                       (unsigned long long)rows, (unsigned long long)cols);
    if (rows > MAX_VERTEX_ID + 1)
        return wx_fail(s->err, WX_ELIMIT, s->name, scan_line(s), scan_col(s, rows_at),
                       "%llu vertices: graphs have at most 2^32 - 1 vertices",
                       (unsigned long long)rows);
    if ((rc = scan_check_id(s, rows_at, rows, "the number of rows")) != WX_OK)
        return rc;
    int nnz_col = scan_col(s, nnz_at);
    uint64_t seen = 0;
    while (scan_next_content_line(s, "%")) {
        if (seen == nnz)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, s->c),
                           "more entries than the %llu the size line declares",
                           (unsigned long long)nnz);
        uint64_t i, j;
        const char *at = s->c;
        if ((rc = read_vertex(s, 1, &i, "row index")) != WX_OK)
            return rc;
        scan_skip_blanks(s);
        const char *jat = s->c;
        if ((rc = read_vertex(s, 1, &j, "column index")) != WX_OK)
            return rc;
        if (i >= rows)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                           "row index %llu is larger than the %llu rows",
                           (unsigned long long)i + 1, (unsigned long long)rows);
        if (j >= cols)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, jat),
                           "column index %llu is larger than the %llu columns",
                           (unsigned long long)j + 1, (unsigned long long)cols);
        if ((rc = add_edge(s, b, i, j)) != WX_OK ||
            (mirror && i != j && (rc = add_edge(s, b, j, i)) != WX_OK))
            return rc;
        seen++;
    }
    if (seen < nnz) {
        s->line = size_line;
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), nnz_col,
                       "the size line declares %llu entries, the file has %llu",
                       (unsigned long long)nnz, (unsigned long long)seen);
    }
    *n = rows;
    return WX_OK;
}

/* PRISM .tra: the underlying graph of the MDP or DTMC.  Parsed by the
 * strict MDP reader (graph/mdp.h), so .tra has one parser and one set of
 * rules (probabilities in (0, 1], choices summing to 1, order checked). */
static int read_tra(struct scan *s, struct csr_builder *b, uint64_t *n)
{
    struct mdp m;
    int rc = mdp_read_buffer(s->p, (size_t)(s->end - s->p), s->name, &m, s->err);
    if (rc != WX_OK)
        return rc;
    for (uint64_t st = 0; rc == WX_OK && st < m.n_states; st++)
        for (uint64_t c = m.state_start[st]; rc == WX_OK && c < m.state_start[st + 1]; c++)
            for (uint64_t e = m.choice_start[c]; rc == WX_OK && e < m.choice_start[c + 1]; e++)
                rc = add_edge(s, b, st, m.targets[e]);
    *n = m.n_states;
    mdp_free(&m);
    return rc;
}

static int read_aut(const char *data, size_t len, const char *name, int from_file,
                    struct csr *out, struct wx_error *err)
{
    struct strtab *labels = strtab_new();
    if (!labels)
        return wx_fail(err, WX_ELIMIT, name, 0, 0, "out of memory");
    struct lts l;
    uint32_t initial;
    int rc = from_file ? aut_read(name, labels, &l, &initial, err)
                       : aut_read_buffer(data, len, name, labels, &l, &initial, err);
    if (rc != WX_OK) {
        strtab_free(labels);
        return rc;
    }
    struct csr_builder *b = csr_builder_new();
    if (!b)
        rc = wx_fail(err, WX_ELIMIT, name, 0, 0, "out of memory");
    for (uint64_t t = 0; rc == WX_OK && t < l.n_trans; t++)
        rc = csr_builder_add(b, l.src[t], l.label[t], l.dst[t], err);
    if (rc == WX_OK) {
        rc = csr_builder_finish(b, l.n_states, labels, out, err);
        b = NULL;
        if (rc == WX_OK)
            out->initial = initial;
    }
    csr_builder_free(b);
    lts_free(&l);
    strtab_free(labels);
    return rc;
}

int graph_read_buffer(const char *data, size_t len, const char *name, enum graph_format fmt,
                      struct csr *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    if (fmt == GRAPH_AUT)
        return read_aut(data, len, name, 0, out, err);
    if (fmt == GRAPH_CSR)
        return wx_fail(err, WX_ESYSTEM, name, 0, 0, "CSR binary cannot be read from memory");
    struct scan s = {.name = name, .begin = data, .p = data, .end = data + len, .err = err};
    struct csr_builder *b = csr_builder_new();
    if (!b)
        return wx_fail(err, WX_ELIMIT, name, 0, 0, "out of memory");
    uint64_t n = 0;
    int rc = fmt == GRAPH_MTX   ? read_mtx(&s, b, &n)
             : fmt == GRAPH_TRA ? read_tra(&s, b, &n)
                                : read_edges(&s, b, &n);
    if (rc != WX_OK) {
        csr_builder_free(b);
        return rc;
    }
    return finish(b, n, name, out, err);
}

enum graph_format graph_format_of(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return GRAPH_EDGES;
    if (!strcasecmp(dot, ".csr"))
        return GRAPH_CSR;
    if (!strcasecmp(dot, ".aut"))
        return GRAPH_AUT;
    if (!strcasecmp(dot, ".mtx"))
        return GRAPH_MTX;
    if (!strcasecmp(dot, ".tra"))
        return GRAPH_TRA;
    return GRAPH_EDGES;
}

int graph_read_format(const char *path, enum graph_format fmt, struct csr *out,
                      struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    if (fmt == GRAPH_CSR)
        return csr_read(path, out, err);
    if (fmt == GRAPH_AUT)
        return read_aut(NULL, 0, path, 1, out, err);
    char *data = NULL;
    size_t len = 0;
    int rc = scan_slurp(path, &data, &len, err);
    if (rc != WX_OK)
        return rc;
    rc = graph_read_buffer(data, len, path, fmt, out, err);
    free(data);
    return rc;
}

int graph_read(const char *path, struct csr *out, struct wx_error *err)
{
    return graph_read_format(path, graph_format_of(path), out, err);
}
