/*
 * csr.h -- labelled directed graphs in compressed sparse row form, and
 * warpex's CSR binary file format.
 *
 * In memory: vertex v's edges are targets/labels[offsets[v] .. offsets[v+1]),
 * offsets[n_vertices] == n_edges, and within each vertex's segment edges are
 * sorted by (label, target) with no duplicates.  Vertex ids are 32-bit: a
 * graph with 2^32 or more vertices is refused loudly (WX_ELIMIT); edge
 * offsets are 64-bit.
 *
 * File format (all integers little-endian):
 *     offset  size          field
 *     0       8             magic: ASCII "WXCSR" then three zero bytes
 *     8       4             version = 1
 *     12      4             flags: bit 0 set = the labels array is present
 *     16      8             n_vertices
 *     24      8             n_edges
 *     32      4             n_labels (entries in the label table)
 *     36      4             initial vertex (0 for explored state spaces)
 *     40      ...           label table: per label a u32 byte length and the
 *                           bytes (no NUL); zero padding to a multiple of 8
 *     then    8*(n_v+1)     offsets (u64)
 *     then    4*n_edges     targets (u32)
 *     then    4*n_edges     labels (u32, index into the label table), if flag
 * csr_write writes through util/outfile.h: a regular PATH is replaced only
 * when the whole file was written (a failed run leaves it as it was), a
 * device or FIFO is written in place.
 */
#ifndef WX_CSR_H
#define WX_CSR_H

#include <stdint.h>

#include "../util/error.h"
#include "../util/strtab.h"

struct csr {
    uint64_t n_vertices, n_edges;
    uint32_t initial;
    uint64_t *offsets;     /* n_vertices + 1 */
    uint32_t *targets;     /* n_edges */
    uint32_t *labels;      /* n_edges, or NULL for an unlabelled graph */
    struct strtab *label_names; /* owned, or NULL */
};

/* Accumulates edges in any order, from one thread at a time (callers that
 * feed it from several threads serialise).  Memory: 16 bytes per edge. */
struct csr_builder;

struct csr_builder *csr_builder_new(void);
int csr_builder_add(struct csr_builder *b, uint64_t src, uint32_t label, uint64_t dst,
                    struct wx_error *err);
/* Builds the graph (sorting, dropping duplicate edges) and frees the builder.
 * label_names is copied (may be NULL). */
int csr_builder_finish(struct csr_builder *b, uint64_t n_vertices,
                       const struct strtab *label_names, struct csr *out,
                       struct wx_error *err);
void csr_builder_free(struct csr_builder *b);

int csr_write(const struct csr *g, const char *path, struct wx_error *err);
int csr_read(const char *path, struct csr *out, struct wx_error *err);
void csr_free(struct csr *g);

#endif
