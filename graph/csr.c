#include "csr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/input.h"

#include "../util/outfile.h"

struct csr_edge {
    uint32_t src, dst, label, pad;
};

struct csr_builder {
    struct csr_edge *e;
    uint64_t n, cap;
};

struct csr_builder *csr_builder_new(void)
{
    return calloc(1, sizeof(struct csr_builder));
}

void csr_builder_free(struct csr_builder *b)
{
    if (b) {
        free(b->e);
        free(b);
    }
}

int csr_builder_add(struct csr_builder *b, uint64_t src, uint32_t label, uint64_t dst,
                    struct wx_error *err)
{
    if (src > UINT32_MAX || dst > UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "CSR output supports at most 2^32 vertices (state %llu)",
                       (unsigned long long)(src > dst ? src : dst));
    if (b->n == b->cap) {
        uint64_t cap = b->cap ? b->cap * 2 : 1024;
        struct csr_edge *e = realloc(b->e, cap * sizeof *e);
        if (!e)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                           "out of memory collecting %llu edges for CSR output",
                           (unsigned long long)b->n);
        b->e = e;
        b->cap = cap;
    }
    b->e[b->n++] = (struct csr_edge){(uint32_t)src, (uint32_t)dst, label, 0};
    return WX_OK;
}

static int cmp_in_segment(const void *a, const void *b)
{
    const struct csr_edge *x = a, *y = b;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

int csr_builder_finish(struct csr_builder *b, uint64_t n_vertices,
                       const struct strtab *names, struct csr *g, struct wx_error *err)
{
    memset(g, 0, sizeof *g);
    if (n_vertices > UINT32_MAX) {
        csr_builder_free(b);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "CSR output supports at most 2^32 - 1 vertices, the graph has %llu",
                       (unsigned long long)n_vertices);
    }
    uint64_t n = b->n;
    g->n_vertices = n_vertices;
    g->offsets = calloc(n_vertices + 1, sizeof *g->offsets);
    struct csr_edge *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!g->offsets || !sorted) {
        free(sorted);
        csr_builder_free(b);
        csr_free(g);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory building the CSR graph");
    }
    /* Counting sort by source, then a small sort inside each segment. */
    for (uint64_t i = 0; i < n; i++) {
        if (b->e[i].src >= n_vertices || b->e[i].dst >= n_vertices) {
            free(sorted);
            csr_builder_free(b);
            csr_free(g);
            return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "edge endpoint beyond the vertex count");
        }
        g->offsets[b->e[i].src + 1]++;
    }
    for (uint64_t v = 0; v < n_vertices; v++)
        g->offsets[v + 1] += g->offsets[v];
    uint64_t *fill = malloc((n_vertices + 1) * sizeof *fill);
    if (!fill) {
        free(sorted);
        csr_builder_free(b);
        csr_free(g);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory building the CSR graph");
    }
    memcpy(fill, g->offsets, (n_vertices + 1) * sizeof *fill);
    for (uint64_t i = 0; i < n; i++)
        sorted[fill[b->e[i].src]++] = b->e[i];
    free(fill);
    csr_builder_free(b);

    g->targets = malloc((n ? n : 1) * sizeof *g->targets);
    g->labels = malloc((n ? n : 1) * sizeof *g->labels);
    if (!g->targets || !g->labels) {
        free(sorted);
        csr_free(g);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory building the CSR graph");
    }
    uint64_t m = 0, start = 0;
    for (uint64_t v = 0; v < n_vertices; v++) {
        uint64_t end = g->offsets[v + 1];
        qsort(sorted + start, end - start, sizeof *sorted, cmp_in_segment);
        g->offsets[v] = m;
        for (uint64_t i = start; i < end; i++) {
            if (i > start && cmp_in_segment(&sorted[i - 1], &sorted[i]) == 0)
                continue;
            g->targets[m] = sorted[i].dst;
            g->labels[m] = sorted[i].label;
            m++;
        }
        start = end;
    }
    g->offsets[n_vertices] = m;
    g->n_edges = m;
    free(sorted);
    if (names) {
        g->label_names = strtab_new();
        if (!g->label_names) {
            csr_free(g);
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        }
        for (uint32_t i = 0; i < strtab_count(names); i++)
            strtab_intern(g->label_names, strtab_str(names, i), strtab_len(names, i));
    }
    return WX_OK;
}

void csr_free(struct csr *g)
{
    free(g->offsets);
    free(g->targets);
    free(g->labels);
    strtab_free(g->label_names);
    memset(g, 0, sizeof *g);
}

/* ---- file format ---- */

static const unsigned char csr_magic[8] = {'W', 'X', 'C', 'S', 'R', 0, 0, 0};

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const unsigned char *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* Writes n little-endian words of `size` bytes from arr, buffered. */
static int write_words(FILE *f, const void *arr, uint64_t n, int size)
{
    unsigned char buf[8192];
    size_t at = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (size == 4)
            put_u32(buf + at, ((const uint32_t *)arr)[i]);
        else
            put_u64(buf + at, ((const uint64_t *)arr)[i]);
        at += (size_t)size;
        if (at == sizeof buf) {
            if (fwrite(buf, 1, at, f) != at)
                return -1;
            at = 0;
        }
    }
    return at && fwrite(buf, 1, at, f) != at ? -1 : 0;
}

int csr_write(const struct csr *g, const char *path, struct wx_error *err)
{
    struct outfile *out;
    int rc = outfile_open(path, 0, &out, err);
    if (rc != WX_OK)
        return rc;
    FILE *f = outfile_stream(out);
    if (!f) {
        outfile_abort(out);
        return wx_fail(err, WX_ELIMIT, path, 0, 0, "out of memory");
    }
    uint32_t nl = g->label_names ? strtab_count(g->label_names) : 0;
    unsigned char h[40];
    memcpy(h, csr_magic, 8);
    put_u32(h + 8, 1);
    put_u32(h + 12, g->labels ? 1u : 0u);
    put_u64(h + 16, g->n_vertices);
    put_u64(h + 24, g->n_edges);
    put_u32(h + 32, nl);
    put_u32(h + 36, g->initial);
    int bad = fwrite(h, 1, sizeof h, f) != sizeof h;
    uint64_t at = sizeof h;
    for (uint32_t i = 0; i < nl && !bad; i++) {
        unsigned char lb[4];
        size_t len = strtab_len(g->label_names, i);
        put_u32(lb, (uint32_t)len);
        bad |= fwrite(lb, 1, 4, f) != 4;
        bad |= fwrite(strtab_str(g->label_names, i), 1, len, f) != len;
        at += 4 + len;
    }
    static const unsigned char zero[8];
    if (!bad && at % 8)
        bad |= fwrite(zero, 1, 8 - at % 8, f) != 8 - at % 8;
    /* A failed write stops the writing (bad) and left the stream's error
     * flag set: outfile_commit reports it with its errno and removes the
     * temporary. */
    if (!bad && write_words(f, g->offsets, g->n_vertices + 1, 8) == 0 &&
        write_words(f, g->targets, g->n_edges, 4) == 0 && g->labels)
        write_words(f, g->labels, g->n_edges, 4);
    return outfile_commit(out, err);
}

static int read_exact(FILE *f, void *buf, size_t n)
{
    return fread(buf, 1, n, f) == n ? 0 : -1;
}

static int read_words(FILE *f, void *arr, uint64_t n, int size)
{
    unsigned char buf[8192];
    uint64_t done = 0;
    while (done < n) {
        uint64_t k = n - done;
        if (k > sizeof buf / (size_t)size)
            k = sizeof buf / (size_t)size;
        if (read_exact(f, buf, (size_t)(k * (uint64_t)size)) != 0)
            return -1;
        for (uint64_t i = 0; i < k; i++) {
            if (size == 4)
                ((uint32_t *)arr)[done + i] = get_u32(buf + 4 * i);
            else
                ((uint64_t *)arr)[done + i] = get_u64(buf + 8 * i);
        }
        done += k;
    }
    return 0;
}

/* Opens path for csr_read: a regular file as it is, a stream (pipe,
 * device) read whole first (*mem, freed by the caller), so that *size, the
 * bytes there are, can bound every allocation the header asks for. */
static int csr_open(const char *path, FILE **f, uint64_t *size, char **mem,
                    struct wx_error *err)
{
    int fd;
    struct stat st;
    size_t len;
    *mem = NULL;
    int rc = wx_input_open(path, &fd, &st, err);
    if (rc != WX_OK)
        return rc;
    if (S_ISREG(st.st_mode)) {
        *size = (uint64_t)st.st_size;
        if (!(*f = fdopen(fd, "rb"))) {
            close(fd);
            return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot open: %s", strerror(errno));
        }
        return WX_OK;
    }
    rc = wx_input_read_fd(fd, path, WX_INPUT_BINARY, -1, mem, &len, err);
    close(fd);
    if (rc != WX_OK)
        return rc;
    *size = len;
    if (!(*f = fmemopen(*mem, len ? len : 1, "rb"))) {
        free(*mem);
        *mem = NULL;
        return wx_fail(err, WX_ELIMIT, path, 0, 0, "out of memory");
    }
    return WX_OK;
}

/* The format keeps each vertex's edges sorted by (label, target) without
 * duplicates; readers of the graph rely on it. */
static int check_segments_sorted(const struct csr *g, const char *path, struct wx_error *err)
{
    for (uint64_t v = 0; v < g->n_vertices; v++)
        for (uint64_t e = g->offsets[v] + 1; e < g->offsets[v + 1]; e++) {
            uint32_t la = g->labels ? g->labels[e - 1] : 0, lb = g->labels ? g->labels[e] : 0;
            if (la > lb || (la == lb && g->targets[e - 1] >= g->targets[e]))
                return wx_fail(err, WX_EINPUT, path, 0, 0,
                               "vertex %llu: edges %llu and %llu are %s (the format keeps a "
                               "vertex's edges sorted by label, then target)",
                               (unsigned long long)v, (unsigned long long)(e - 1),
                               (unsigned long long)e,
                               la == lb && g->targets[e - 1] == g->targets[e] ? "duplicates"
                                                                              : "out of order");
        }
    return WX_OK;
}

int csr_read(const char *path, struct csr *g, struct wx_error *err)
{
    memset(g, 0, sizeof *g);
    FILE *f;
    uint64_t size;
    char *mem;
    int rc = csr_open(path, &f, &size, &mem, err);
    if (rc != WX_OK)
        return rc;
    unsigned char h[40];
    if (read_exact(f, h, sizeof h) != 0 || memcmp(h, csr_magic, 8) != 0) {
        rc = wx_fail(err, WX_EINPUT, path, 0, 0, "not a warpex CSR file (bad magic)");
        goto out;
    }
    if (get_u32(h + 8) != 1) {
        rc = wx_fail(err, WX_EINPUT, path, 0, 0, "unsupported CSR version %u", get_u32(h + 8));
        goto out;
    }
    uint32_t flags = get_u32(h + 12), nl = get_u32(h + 32);
    g->n_vertices = get_u64(h + 16);
    g->n_edges = get_u64(h + 24);
    g->initial = get_u32(h + 36);
    if (g->n_vertices > UINT32_MAX || g->n_edges > ((uint64_t)1 << 40) ||
        (g->n_vertices && g->initial >= g->n_vertices)) {
        rc = wx_fail(err, WX_EINPUT, path, 0, 0, "implausible CSR header sizes");
        goto out;
    }
    g->label_names = strtab_new();
    uint64_t at = sizeof h;
    char *text = NULL;
    for (uint32_t i = 0; i < nl; i++) {
        unsigned char lb[4];
        if (read_exact(f, lb, 4) != 0) {
            rc = wx_fail(err, WX_EINPUT, path, 0, 0, "truncated label table");
            goto out;
        }
        uint32_t len = get_u32(lb);
        if (len > (1u << 24) || !(text = malloc(len ? len : 1)) || read_exact(f, text, len) != 0) {
            free(text);
            rc = wx_fail(err, WX_EINPUT, path, 0, 0, "bad label %u in the label table", i);
            goto out;
        }
        if (strtab_intern(g->label_names, text, len) != i) {
            free(text);
            rc = wx_fail(err, WX_EINPUT, path, 0, 0, "duplicate label %u in the label table", i);
            goto out;
        }
        free(text);
        text = NULL;
        at += 4 + len;
    }
    unsigned char pad[8];
    if (at % 8 && read_exact(f, pad, 8 - at % 8) != 0) {
        rc = wx_fail(err, WX_EINPUT, path, 0, 0, "truncated file");
        goto out;
    }
    /* the arrays the header announces must be in the file before they are
     * allocated (n_vertices < 2^32 and n_edges <= 2^40: no overflow) */
    uint64_t need = at + (at % 8 ? 8 - at % 8 : 0) + 8 * (g->n_vertices + 1) +
                    4 * g->n_edges * ((flags & 1) ? 2 : 1);
    if (need > size) {
        rc = wx_fail(err, WX_EINPUT, path, 0, 0,
                     "the header declares %llu vertices and %llu edges, which take %llu bytes; "
                     "the file has %llu", (unsigned long long)g->n_vertices,
                     (unsigned long long)g->n_edges, (unsigned long long)need,
                     (unsigned long long)size);
        goto out;
    }
    g->offsets = malloc((g->n_vertices + 1) * sizeof *g->offsets);
    g->targets = malloc((g->n_edges ? g->n_edges : 1) * sizeof *g->targets);
    if (flags & 1)
        g->labels = malloc((g->n_edges ? g->n_edges : 1) * sizeof *g->labels);
    if (!g->offsets || !g->targets || ((flags & 1) && !g->labels)) {
        rc = wx_fail(err, WX_ELIMIT, path, 0, 0, "out of memory reading the graph");
        goto out;
    }
    if (read_words(f, g->offsets, g->n_vertices + 1, 8) != 0 ||
        read_words(f, g->targets, g->n_edges, 4) != 0 ||
        ((flags & 1) && read_words(f, g->labels, g->n_edges, 4) != 0)) {
        rc = wx_fail(err, WX_EINPUT, path, 0, 0, "truncated file");
        goto out;
    }
    if (g->offsets[0] != 0 || g->offsets[g->n_vertices] != g->n_edges) {
        rc = wx_fail(err, WX_EINPUT, path, 0, 0, "offsets do not span the edges");
        goto out;
    }
    for (uint64_t v = 0; v < g->n_vertices; v++)
        if (g->offsets[v] > g->offsets[v + 1]) {
            rc = wx_fail(err, WX_EINPUT, path, 0, 0, "offsets decrease at vertex %llu",
                         (unsigned long long)v);
            goto out;
        }
    for (uint64_t i = 0; i < g->n_edges; i++)
        if (g->targets[i] >= g->n_vertices || (g->labels && g->labels[i] >= nl)) {
            rc = wx_fail(err, WX_EINPUT, path, 0, 0, "edge %llu points outside the graph",
                         (unsigned long long)i);
            goto out;
        }
    rc = check_segments_sorted(g, path, err);
out:
    fclose(f);
    free(mem);
    if (rc != WX_OK)
        csr_free(g);
    return rc;
}
