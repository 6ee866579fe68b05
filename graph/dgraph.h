/*
 * dgraph.h -- a directed graph in GPU memory: the one device CSR that the
 * GPU stages hand each other without host round trips (the product graph
 * the GPU explorer keeps on the device, the input of the GPU SCC and of the
 * GPU cycle mean, the live graph of a GPU MEC round).
 *
 * INVARIANTS.  Those of struct csr (graph/csr.h) but for the order of edges
 * and duplicates: d_offsets has n_vertices + 1 entries, d_offsets[0] == 0,
 * d_offsets[n_vertices] == n_edges, vertex v's edges are
 * d_targets[d_offsets[v] .. d_offsets[v+1]) in no particular order (parallel
 * edges and self-loops allowed), every target < n_vertices < 2^32.
 * d_labels, when present, holds each edge's label id along d_targets.
 *
 * MEMORY.  All three arrays are device pointers: d_offsets 8 (n_vertices + 1)
 * bytes, d_targets 4 n_edges (may be NULL when there are no edges),
 * d_labels 4 n_edges or NULL (an unlabelled graph; may be NULL when there
 * are no edges).  owned != 0: the arrays belong to the graph and dgraph_free
 * releases them; owned == 0: a view of arrays that someone else frees
 * (dgraph_free only forgets them).  A zeroed struct dgraph holds nothing
 * and may be freed.
 *
 * The functions that touch the device are in kernels/dgraph.cu
 * (kernels/nogpu_dgraph.c in a build without CUDA, where every call but
 * dgraph_free is a WX_EINPUT error).  They use the current CUDA device and
 * the default stream; a graph is used by one thread at a time.
 */
#ifndef WX_DGRAPH_H
#define WX_DGRAPH_H

#include <stdint.h>

#include "../util/error.h"
#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dgraph {
    uint64_t n_vertices, n_edges;
    uint64_t *d_offsets;   /* device, n_vertices + 1                         */
    uint32_t *d_targets;   /* device, n_edges (may be NULL when 0 edges)     */
    uint32_t *d_labels;    /* device, n_edges label ids, or NULL (unlabelled) */
    int owned;             /* 1: dgraph_free releases the arrays             */
};

/* A view of device arrays owned elsewhere (labels may be NULL). */
static inline struct dgraph dgraph_view(uint64_t n_vertices, uint64_t n_edges, uint64_t *d_offsets,
                                        uint32_t *d_targets, uint32_t *d_labels)
{
    struct dgraph g = {n_vertices, n_edges, d_offsets, d_targets, d_labels, 0};
    return g;
}

/* Copies g's offsets and targets, and its labels when with_labels and g has
 * them, to the device (allocates; *dg owns them; free with dgraph_free).
 * WX_ELIMIT when device memory is short or g has 2^32 or more vertices;
 * *dg is zeroed on failure. */
int dgraph_upload(const struct csr *g, int with_labels, struct dgraph *dg, struct wx_error *err);

/* Copies dg's arrays to host memory: offsets[0..n_vertices],
 * targets[0..n_edges) and, when labels is not NULL, labels[0..n_edges)
 * (WX_EINPUT if dg has none). */
int dgraph_download(const struct dgraph *dg, uint64_t *offsets, uint32_t *targets, uint32_t *labels,
                    struct wx_error *err);

/* labels[i] = the label of edge edges[i] of dg, for k edges (WX_EINPUT for
 * an edge index out of range or an unlabelled graph). */
int dgraph_labels_at(const struct dgraph *dg, const uint64_t *edges, uint64_t k, uint32_t *labels,
                     struct wx_error *err);

/* Releases an owned graph's device memory, and zeroes *dg either way (a
 * no-op on a zeroed one). */
void dgraph_free(struct dgraph *dg);

#ifdef __cplusplus
}
#endif

#endif
