/*
 * scc.h -- strongly connected components of a directed graph (CPU).
 *
 * scc_cpu() runs Tarjan's algorithm without recursion on a struct csr (edge
 * labels are ignored; parallel edges and self-loops are allowed) and fills a
 * struct scc_result.  It is the CPU reference for a later GPU twin
 * (kernels/scc/), which must return the same result type; tests compare the
 * two through the canonical numbering below, never through Tarjan's order.
 *
 * CANONICAL NUMBERING.  Components are numbered 0 .. n_sccs-1 in order of
 * their smallest vertex: comp[0] == 0, and the first vertex (in increasing id
 * order) of a not yet numbered component gets the next number.  So two runs,
 * or two algorithms, that find the same partition give identical comp arrays.
 * This numbering is deterministic; it is not a topological order.
 *
 * DEFINITIONS (as PRISM and the literature use them):
 *   trivial SCC      one vertex without a self-loop;
 *   bottom SCC       an SCC that no edge leaves.  A vertex without any
 *                    out-edge (a deadlock) is a trivial bottom SCC, counted in
 *                    both n_bottom and n_bottom_trivial; PRISM's "BSCCs" are
 *                    the non-trivial ones, n_bottom - n_bottom_trivial.
 *
 * MEMORY: besides the result (4 bytes per vertex) scc_cpu uses about 24
 * bytes per vertex of work space (index, lowlink, Tarjan stack, call stack
 * and per-vertex edge cursors) and nothing per edge; no recursion, so a
 * chain of 10^7 vertices needs no more stack than a single vertex.
 * Time O(n + m).
 *
 * THREAD SAFETY: reentrant; the graph is only read.
 */
#ifndef WX_SCC_H
#define WX_SCC_H

#include <stdint.h>

#include "../graph/csr.h"
#include "../util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct scc_result {
    uint64_t n_vertices;       /* == the graph's n_vertices                   */
    uint32_t *comp;            /* n_vertices component ids, canonical (above);
                                  owned, NULL when n_vertices == 0            */
    uint64_t n_sccs;           /* number of components (0 for an empty graph) */
    uint64_t n_trivial;        /* single vertex without a self-loop           */
    uint64_t largest;          /* vertices in the largest component (0 if none)*/
    uint64_t n_bottom;         /* components no edge leaves                   */
    uint64_t n_bottom_trivial; /* of those, trivial ones (deadlock vertices)  */
    uint64_t n_in_nontrivial;  /* vertices in non-trivial components          */
};

/* Computes the SCCs of g into *out (overwritten, not freed first; allocates
 * out->comp, released by scc_result_free).  Returns WX_OK, or WX_ELIMIT when
 * out of memory (then *out is empty). */
int scc_cpu(const struct csr *g, struct scc_result *out, struct wx_error *err);

/* Frees out->comp and zeroes *out; safe on a zeroed or already freed result. */
void scc_result_free(struct scc_result *out);

/* The GPU twin (kernels/scc/): same result, same canonical numbering, so
 * scc_gpu and scc_cpu give identical comp arrays and counts.  Uploads g,
 * decomposes it on the current CUDA device and downloads the ids.
 * ALGORITHM (details in kernels/scc/): the graph's transpose (a CUB
 * radix sort, or counting when a sample of edges shows local targets);
 * trimming (a vertex without an in- or out-neighbour in its region is a
 * singleton SCC); one forward-backward search from a pivot of high degree
 * (the giant SCC, if any; the rest splits into three regions no SCC
 * crosses); a few multi-source forward-backward rounds (Li et al.: one
 * elected pivot per region, all searched at once, regions renumbered by a
 * CUB scan); then rounds of trimming and max-label colouring by
 * data-driven propagation (each vertex learns the largest id reaching it,
 * or reached from it, within its region; each colour's root searches back
 * within its colour and finds its SCC; the rest splits by colour), until
 * every vertex is assigned; finally a canonical renumbering (CUB scan) and
 * the counts on the device.  Trimming, the pivot search and each colour
 * propagation run as one persistent (cooperative) launch with grid barriers
 * between BFS levels, narrow levels on one block, and chain following on
 * tiny frontiers (one launch per level is kept as a fallback, tuning field
 * `persistent`).  When the GPU phases outlast a time budget per remaining
 * vertex (long paths: latency-bound levels), the residue is compacted on
 * the device and decomposed by Tarjan on the host.  The result is deterministic; the number of propagation
 * levels may vary from run to run (atomic label races).
 * Returns WX_OK; WX_EINPUT when built without CUDA or no usable device;
 * WX_ELIMIT when device or host memory is short or the graph has 2^38 or
 * more edges; WX_ESYSTEM on a CUDA failure.  On error *out is empty. */
int scc_gpu(const struct csr *g, struct scc_result *out, struct wx_error *err);

/* 1 when scc_gpu can run here (a CUDA device of compute capability >= 9.0),
 * else 0; also 0 in a build without CUDA. */
int scc_gpu_available(void);

#ifdef __cplusplus
}
#endif

#endif
