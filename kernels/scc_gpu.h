/*
 * scc_gpu.h -- the device-level entry points of the GPU SCC decomposition
 * (kernels/scc/), for callers that keep a graph on the GPU between stages
 * (the explorer pipeline, the GPU MEC, the benchmark driver; a host CSR
 * goes there with dgraph_upload).  Host-level users call scc_gpu() from
 * analysis/scc.h instead.
 *
 * The graph is a struct dgraph (graph/dgraph.h): the analysis ignores its
 * labels and the order of edges; parallel edges and self-loops are allowed.
 *
 * THREAD SAFETY: one decomposition at a time per process (the functions use
 * the current CUDA device and the default stream).
 */
#ifndef WX_SCC_GPU_H
#define WX_SCC_GPU_H

#include <stdint.h>

#include "../analysis/scc.h"
#include "../graph/csr.h"
#include "../graph/dgraph.h"
#include "../util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one decomposition did and how long its phases took (host wall clock
 * around synchronised phases, milliseconds). */
struct scc_gpu_stats {
    double total_ms, transpose_ms, trim_ms, pivot_ms, colour_ms, relabel_ms, stats_ms;
    uint32_t rounds;          /* colouring rounds (each finishes >= 1 SCC)  */
    uint32_t trim_sweeps;     /* topology-driven trim sweeps                */
    uint32_t pivot_levels;    /* push levels of the pivot's search          */
    uint32_t levels;          /* push levels in all (pivot and colouring)   */
    uint64_t trimmed;         /* vertices removed by trimming               */
    uint64_t pivot_scc;       /* vertices in the pivot's SCC                */
    uint32_t fb_rounds;       /* multi-source forward-backward rounds run   */
    uint64_t fb_pivots;       /* pivots elected in them, all rounds         */
    double fb_ms;             /* their time (trims between them included)   */
    uint64_t residue_n, residue_m; /* vertices and edges handed to the CPU  */
    double residue_ms;        /* compaction, copies and Tarjan on the host  */
    int residue_reason;       /* 0 none, 1 the GPU budget ran out, 2 forced */
    int transpose_sorted;     /* 1: the transpose was a radix sort, 0: counting */
    /* the first SCC_GPU_ROUND_INFO colour rounds: live vertices before the
     * round, push levels, milliseconds (trim before it included) */
#define SCC_GPU_ROUND_INFO 16
    uint64_t round_live[SCC_GPU_ROUND_INFO];
    uint32_t round_levels[SCC_GPU_ROUND_INFO];
    double round_ms[SCC_GPU_ROUND_INFO];
    uint32_t detect_passes;   /* small-SCC detection passes of the first trim */
    uint64_t detect_sccs, detect_vertices; /* SCCs (and vertices) they found */
    uint64_t detect_tries;    /* closures they computed                      */
    double detect_p_ms, detect_d_ms; /* the first trim's time (device clock,
                                 barriers included) in its P phases
                                 (releases) and D phases (closures)        */
    int symmetric;            /* 1: the graph was its own transpose        */
    double symmetric_ms;      /* the symmetry check (in transpose_ms)      */
    double alloc_ms;          /* work-space allocation (in transpose_ms)   */
    int components;           /* 1: decomposed as connected components (a
                                 symmetric graph; their time is pivot_ms) */
};

/* Strategy knobs, for measurements and tests (the defaults are what
 * scc_gpu and scc_gpu_device use; every setting gives the same result). */
struct scc_gpu_tuning {
    uint32_t trim_min_share;  /* trim again while a sweep removes >= live/this
                                 (0: no trimming at all)                    */
    uint32_t trim_max_sweeps; /* per trim phase                             */
    int pivot;                /* 1: forward-backward search from a pivot    */
    int colour_dir;           /* colour by the largest id reaching a vertex
                                 (forward) or reached from it (backward):
                                 0 alternate starting forward, 1 alternate
                                 starting backward, 2 forward only, 3
                                 backward only (2 and 3 may need a round per
                                 vertex on chains numbered against them)    */
    int persistent;           /* 1: trimming, the pivot search and each
                                 propagation run in one cooperative launch
                                 (levels separated by grid barriers; the
                                 default where the device supports it);
                                 0: one launch per level / trim sweep       */
    uint32_t chain_hops;      /* persistent engines: path steps a thread
                                 follows at once per item (0: none)         */
    uint32_t coop_blocks_per_sm; /* persistent engines: blocks per SM (0: as
                                 many as fit)                               */
    int transpose_sort;       /* 1: transpose by a CUB radix sort of
                                 (target, source) pairs; 0: by counting
                                 (in-degree atomics, a scan, a scatter:
                                 faster where targets are local, slower
                                 where they are random); 2 (default): by
                                 counting when >= 90 % of 1024 sampled edges
                                 have |target - source| <= max(65536, n/256),
                                 else by sorting                            */
    /* Multi-source partition (Li et al., PMAM 2017): after the single pivot
     * search, up to fb_rounds rounds in which every region elects a pivot
     * (the live vertex of largest (in+1)(out+1) degree product), all pivots
     * search forward and backward at once within their regions, each
     * pivot's SCC is finished and every region splits into (forward only,
     * backward only, neither) subregions, renumbered densely by a CUB
     * prefix sum; a trim between rounds.  Colour rounds finish whatever is
     * left (default 8).  0: none; SCC_GPU_FB_ALL: no colour rounds at all
     * (slow on DAG-like graphs: a round per SCC along a chain).  Needs the
     * persistent engines (ignored with persistent = 0).                   */
    uint32_t fb_rounds;
#define SCC_GPU_FB_ALL 0xffffffffu
    /* CPU residue: the live rest of the graph (after some GPU phases) is
     * compacted on the GPU, copied to the host, decomposed by Tarjan there
     * and the ids copied back -- for latency-bound graphs (long paths:
     * rings, chains), where one thread walking a path on the GPU is ~20x
     * slower per step than Tarjan.  residue: 0 never; 1 (default) when the
     * GPU phases since the last progress check outlast a budget of
     * residue_ns nanoseconds per residue item (live vertex or edge, the
     * edges estimated as live * m / n) and the residue has at most
     * residue_max items; 2 always, right after the first trim (tests).
     * The budget is checked between BFS levels and every few thousand
     * chain steps, so an engine overruns it by a few milliseconds at
     * most.  Exact either way.                                           */
    int residue;
    uint32_t residue_ns;
    uint64_t residue_max;
    /* Pivot searches (single and multi-source) on frontiers wider than 32:
     * after an item, a thread takes up to pivot_local of the vertices it
     * has just claimed on itself at once, depth first, instead of queueing
     * them for the next level (while its 8-entry buffer is at most half
     * full), so a level covers several BFS levels where the frontier is
     * thin for the grid (0: off; default 2).                              */
    uint32_t pivot_local;
    /* Pivot searches: a frontier vertex with more than pivot_wide edges on
     * the searched side is expanded by its whole warp (32 edges a step, one
     * queue atomic per step) instead of by its thread alone -- for hubs
     * (state spaces: a state with thousands of successors or predecessors).
     * 0: never; default 32.                                               */
    uint32_t pivot_wide;
    /* The first trim (Kahn peeling) stalls at the first non-trivial SCC on
     * every path: at every peeling level, a vertex whose in- or out-count a
     * claim leaves at 1 or 2 becomes a candidate, and each candidate whose
     * backward or forward closure among live vertices has at most
     * trim_detect vertices computes its SCC exactly from it; the SCCs
     * found are finished in the next level (DAG-like graphs with small
     * cycles: a 200^3 grid-DAG decomposes within the trim, 81 -> 32 ms on
     * the H100).  Stops for good when few closures find an SCC (a random
     * graph: one sampled level, ~0.4 ms).  0: off; at most 24 (larger
     * values act as 24); default 20 (grid-DAG: 24 cost 37 ms: the same
     * levels, a longer slowest closure in each).                         */
    uint32_t trim_detect;
    /* The first trim with detection: on levels wider than 32 vertices, a
     * thread whose queue item claims exactly one vertex releases that one
     * at once, up to trim_hops times (on narrower levels chain_hops
     * applies), so that the peeling front can move several steps in one
     * level (H100, 200^3 grid-DAG: 1 step, 250 -> 226 levels, 36.9 ->
     * 34.3 ms; 2 steps 214 levels, 36.5 ms: a level waits for its longest
     * chain).  Any value gives the same result; default 1.              */
    uint32_t trim_hops;
    /* Symmetric graphs (every edge u -> v matched by as many v -> u, e.g.
     * undirected graphs, tori): checked on the GPU, first on a sample of
     * 1024 edges, then (when all are matched) on every edge (a vertex of
     * degree > 64 makes it give up: not symmetric).  1 (default): the
     * SCCs are then the connected components, found by union-find (no
     * transposition, search or levels); 0: never checked.              */
    int symmetric;
};
void scc_gpu_tuning_default(struct scc_gpu_tuning *t);
/* Sets the fields named in spec, a comma-separated list of NAME=VALUE with
 * the field names above (e.g. "fb_rounds=4,residue=0"), leaving the others
 * as they are.  WX_EINPUT on an unknown name or a bad number.
 * The CLI applies the environment variable WARPEX_SCC_TUNING this way over
 * the defaults (cli/env_scc.c), so that strategies can be measured through
 * the CLI (a bad value is an error, not ignored). */
int scc_gpu_tuning_parse(const char *spec, struct scc_gpu_tuning *t, struct wx_error *err);
/* The strategy scc_gpu_device (hence scc_gpu, MEC and cycle mean) uses from
 * now on, for the whole process; NULL restores the defaults. */
void scc_gpu_set_tuning(const struct scc_gpu_tuning *t);
int scc_gpu_device_tuned(const struct dgraph *dg, uint32_t *d_comp, struct scc_result *out,
                         struct scc_gpu_stats *st, const struct scc_gpu_tuning *t,
                         struct wx_error *err);

/* A device array of n component ids (allocates; free with scc_gpu_ids_free,
 * which accepts NULL), and its download into host[0..n). */
int scc_gpu_ids_new(uint64_t n, uint32_t **d_comp, struct wx_error *err);
int scc_gpu_ids_download(const uint32_t *d_comp, uint64_t n, uint32_t *host, struct wx_error *err);
void scc_gpu_ids_free(uint32_t *d_comp);

/* Decomposes dg: d_comp (device, n_vertices words, caller-owned) receives
 * the canonical component ids of analysis/scc.h; *out receives the counts
 * (out->comp stays NULL: download d_comp when the ids are wanted).  st may
 * be NULL.  Work space (device memory, freed before returning): 44 bytes
 * per vertex and 4 per edge (the transpose's sources), plus 8 bytes per
 * edge and CUB's temporary storage while transposing (8 bytes per vertex
 * instead of 8 per edge with the counting transpose); with multi-source
 * rounds 32 bytes per vertex more, for the CPU residue 16 bytes per live
 * vertex and 4 per live edge (and as much host memory).  WX_ELIMIT when it
 * does not fit, or for 2^38 or more edges; WX_ESYSTEM on a CUDA failure. */
int scc_gpu_device(const struct dgraph *dg, uint32_t *d_comp, struct scc_result *out,
                   struct scc_gpu_stats *st, struct wx_error *err);

#ifdef __cplusplus
}
#endif

#endif
