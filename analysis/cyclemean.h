/*
 * cyclemean.h -- minimum / maximum cycle mean and cycle ratio of a weighted
 * directed graph, exact, with a critical cycle; CPU twins (Howard's policy
 * iteration, Karp's algorithm: analysis/cyclemean.c) and the GPU Howard
 * (kernels/cyclemean.cu).
 *
 * PROBLEM.  Each edge e has an integer weight w[e] and an integer transit
 * time t[e] >= 1 (all 1 when transit == NULL: the cycle mean).  The ratio
 * of a cycle C is sum_{e in C} w[e] / sum_{e in C} t[e]; the optimum of a
 * strongly connected component is the min (or max) over its cycles; a
 * component without a cycle (one vertex, no self-loop) has none.  The
 * optimum of the graph is the optimum over components with a cycle; an
 * acyclic graph has none (has_cycle == 0, not an error).  Decimal weights
 * are the reader's business: it scales them to integers by a common power
 * of ten and divides the answer back (exactly, as a fraction).
 *
 * EXACTNESS.  Every reported optimum is a reduced fraction num/den (den > 0)
 * equal to the exact ratio of the reported critical cycle, and that cycle
 * is optimal: CPU Howard, CPU Karp and the GPU give identical fractions.
 * Intermediate sums that could leave int64 are checked (WX_ELIMIT with a
 * message naming the limit), never wrapped.  Limits: |w| <= 2^31 - 1,
 * 1 <= t <= 2^31 - 1, fewer than 2^32 - 1 vertices.
 *
 * SCC PREFIX.  All algorithms take the graph's SCC decomposition
 * (analysis/scc.h, canonical ids) and solve every non-trivial component
 * independently (the GPU: all at once); per_scc[k] is component k's answer.
 *
 * THREAD SAFETY: reentrant; inputs are only read.
 */
#ifndef WX_CYCLEMEAN_H
#define WX_CYCLEMEAN_H

#include <stdint.h>

#include "../analysis/scc.h"
#include "../graph/dgraph.h"
#include "../util/error.h"

struct cm_graph {
    uint64_t n_vertices, n_edges;
    const uint64_t *offsets;  /* n_vertices + 1 */
    const uint32_t *targets;  /* n_edges */
    const int64_t *weights;   /* n_edges, |w| <= 2^31 - 1 */
    const int64_t *transit;   /* n_edges, 1 <= t <= 2^31 - 1, or NULL (all 1) */
};

struct cm_value {
    int has_cycle;           /* 0: no cycle (num, den meaningless)           */
    int64_t num, den;        /* reduced, den > 0                              */
};

struct cm_result {
    struct cm_value best;    /* optimum over all components                   */
    uint32_t best_scc;       /* canonical id of a component attaining it      */
    uint32_t *cycle;         /* a critical cycle: vertices v0 v1 ... v(k-1),
                                edges v(i) -> v(i+1 mod k); owned, NULL if none*/
    uint64_t *cycle_edges;   /* the k edge indices used (parallel edges!)     */
    uint64_t cycle_len;      /* k                                             */
    uint64_t n_sccs;         /* == scc->n_sccs                                */
    struct cm_value *per_scc;/* n_sccs answers, indexed by canonical id; owned*/
    uint64_t iterations;     /* Howard: policy improvement rounds (max over
                                components, CPU; total rounds, GPU); Karp: 0  */
};

/* maximize: 1 for the maximum, 0 for the minimum.  *out is overwritten (not
 * freed first); release with cm_result_free.  Returns WX_OK, WX_ELIMIT (an
 * arithmetic limit above, or out of memory), WX_EINPUT for the GPU version
 * in a build without CUDA. */
int cyclemean_howard_cpu(const struct cm_graph *g, const struct scc_result *scc, int maximize,
                         struct cm_result *out, struct wx_error *err);
int cyclemean_karp_cpu(const struct cm_graph *g, const struct scc_result *scc, int maximize,
                       struct cm_result *out, struct wx_error *err);
int cyclemean_howard_gpu(const struct cm_graph *g, const struct scc_result *scc, int maximize,
                         struct cm_result *out, struct wx_error *err);

/* A graph already in GPU memory (e.g. the product the GPU explorer left
 * there, explorer/explore.h's result.device_graph) whose edge weights come
 * from its labels: w[e] = label_weight[g->d_labels[e]] (a host table of
 * n_labels integers, |w| <= 2^31 - 1; every label id < n_labels), transit
 * times all 1; d_comp holds the canonical SCC ids on the device
 * (kernels/scc_gpu.h's scc_gpu_device), and the scc_result passed along
 * gives the counts (its comp may be NULL).  Same result as
 * cyclemean_howard_gpu on the same graph; only the answer and the critical
 * cycle are copied back.  WX_EINPUT for a graph with edges but no labels. */
int cyclemean_howard_gpu_device(const struct dgraph *g, const uint32_t *d_comp, const int64_t *label_weight,
                                uint32_t n_labels, const struct scc_result *scc, int maximize,
                                struct cm_result *out, struct wx_error *err);

/* 1 when cyclemean_howard_gpu can run here (a CUDA build and a device). */
int cyclemean_gpu_available(void);

void cm_result_free(struct cm_result *r);

#endif
