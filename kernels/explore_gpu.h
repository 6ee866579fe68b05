/*
 * explore_gpu.h -- tuning knobs and run statistics of the GPU explorer
 * (kernels/explore/), beyond the backend-neutral explorer API.
 *
 * explore_gpu() (explorer/explore.h) is explore_gpu_tuned() with every knob
 * at its default.  Tests use the knobs to force the rare paths (tiny cache,
 * tiny work queue, level-synchronous mode without a trace); the benchmarks
 * use them for sweeps and read the statistics.  The header is C and is
 * included by host code only.
 *
 * The timeline and the first size of a growing table are options
 * (gpu_options.timeline, gpu_options.grow_from in explorer/explore.h),
 * which the CLI fills from WARPEX_GPU_TIMELINE and WARPEX_GPU_GROW_FROM
 * (docs/tuning.md).
 */
#ifndef WX_EXPLORE_GPU_H
#define WX_EXPLORE_GPU_H

#include <stdint.h>

#include "../explorer/explore.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_tuning {
    int level_sync;          /* 1: level-synchronous BFS (always with a trace),
                                0: GPUexplore-style asynchronous; -1 default */
    uint32_t cache_slots;    /* block-local cache slots; 0 = all shared
                                memory left over (minimum 32) */
    uint32_t cache_probes;   /* linear probes in the block cache; 0 = 16
                                (2 for the 16-byte one-shot rows) */
    uint64_t queue_cap;      /* work-queue entries (async mode); 0 = default;
                                overflow leaves states marked new in the
                                table, found again by scanning */
    uint32_t blocks_per_sm;  /* 0 = as many as fit (occupancy) */
    uint32_t group_size;     /* threads per state (power of two <= 32);
                                0 = smallest power of two >= components */
    uint64_t edge_cap;       /* edge-buffer entries (edge sink); 0 = from
                                free memory */
    int occupancy2;          /* 1: kernel built for 2 x 512 threads per SM
                                (64 registers), 0: for 1 x 512; -1 default */
    int insert_protocol;     /* 0 default = 1: one-CAS inserts where slots
                                have 1, 2 or 4 words (3-word vectors get a
                                4th word for it), 2: reserve/write/publish
                                always (kernels/explore/gpu_table.cuh), 3: one-CAS
                                for <= 2 words only, and the cache flush of
                                wider slots inserts row after row per warp
                                (the old flush) */
    uint64_t grow_from;      /* growing table (asynchronous mode without
                                graph or fixed table size): bytes of the
                                first table; 0 = default (8 GiB or 2^30
                                slots, whichever is larger, at most
                                1/4 of the largest table; or
                                gpu_options.grow_from),
                                UINT64_MAX = no growth (all free memory at
                                once, as with a fixed size) */
    int profile;             /* 1: clock64 counters per kernel phase (slows
                                the kernel a little; gpu_run_stats.prof) */
    int grow_via_host;       /* 1: every growth stages the vectors through
                                host memory (the path of a last growth
                                that does not fit beside them; tests) */
    int edges_found_order;   /* 1: an edge sink without a graph kept on the
                                device gets the edges in the order found,
                                the path of edges that do not fit on the
                                device at once (tests) */
    int generator;           /* successor generator: 0 default (the fast
                                one where the image allows it and
                                group_size is 0 or 1), 1: the fast one where
                                the image allows it (else the general one),
                                2: the general one (vector groups), 3: as
                                1 with anchored rule lists even for <= 128
                                rules (tests); see kernels/explore/gpu_expand.cuh
                                and stats.fast_gen, stats.fast_anchored */
};

struct gpu_run_stats {
    uint64_t launches;       /* kernel launches of the exploration */
    uint64_t iterations;     /* block iterations, summed over blocks */
    uint64_t direct_inserts; /* successors sent straight to the global table
                                because the block cache was full */
    uint64_t cache_inserts;  /* distinct successors per block iteration */
    uint64_t scans;          /* launches that scanned the table for work */
    uint64_t scan_claims;    /* states claimed by scanning */
    uint64_t table_bytes;    /* bytes of the global table (the last one) */
    uint64_t table_slots;    /* vector slots in the table */
    uint64_t table_max_bytes;/* the largest table this call could have had */
    uint64_t device_bytes;   /* peak device memory this call held at once */
    uint32_t grows;          /* times the table was grown (rehashed) */
    uint32_t restarts;       /* explorations restarted with the largest
                                table (a growing table filled within one
                                launch) */
    double grow_seconds;     /* host time growing (compact + rehash) */
    double setup_seconds;    /* from the call's start to the first launch */
    /* tuning.profile: clock64 cycles of the exploration kernel, summed
     * over blocks (phases: fill, scan, expand, flush, edges) and over
     * warps (expansion parts: generation, block cache, direct global
     * inserts, successor set); see kernels/explore/gpu_int.cuh, GPU_PROF_* */
    uint64_t prof[9];
    uint32_t slot_words;     /* 32-bit words per stored vector */
    uint32_t group_size;     /* threads per state */
    uint32_t blocks, threads, iters_per_launch, smem_bytes, cache_slots;
    uint32_t dedupe_slots;   /* per-state successor set capacity */
    int textures;            /* 1 when image reads went through textures */
    int level_sync;
    int occupancy2;
    int oneshot;             /* 1 when one-CAS inserts were used */
    int fast_gen;            /* 1 when the fast generator ran (one thread
                                per state), 0: the general one */
    int fast_eligible;       /* 1 when the image allows the fast generator
                                (<= 4 words, 1..64 components) */
    int fast_anchored;       /* 1 when it found the rules that fire by
                                anchored rule lists (> 128 rules or
                                generator 3), 0 by blocked-rule masks */
    double kernel_seconds;   /* time inside exploration launches */
    /* graph recording (edge sink or keep_device_graph): */
    uint64_t edge_cap;       /* entries of the exploration's edge buffer */
    uint64_t staged_edges;   /* edges staged to host memory while exploring
                                (0 when the buffer held them all) */
    double stage_seconds;    /* host time staging them */
    double ids_seconds;      /* dense ids: bucket counts and prefix scan */
    double graph_seconds;    /* after exploring: edges to ids, CSR sort,
                                device graph, download and sink calls */
};

/* explore_gpu with knobs; tun and stats may be NULL. */
int explore_gpu_tuned(const struct image *img, const struct explore_options *opt,
                      const struct gpu_tuning *tun, struct explore_result *res,
                      struct gpu_run_stats *stats, struct wx_error *err);

/* The fast generator (kernels/explore/gpu_expand.cuh) run on the host, so that the
 * CPU tests check its precompiled tables against a reference generator
 * (no GPU needed).  explore_gpu_fast_open builds the tables for img
 * (anchored: 1 forces the anchored rule lists, as gpu_tuning.generator 3);
 * NULL with *err when the image does not allow the fast generator or the
 * build has no CUDA code.  explore_gpu_fast_info: the tables' successor
 * bound, the bound of the states that need the successor set (set_bound:
 * it sizes the sets when no graph is recorded), whether every state needs
 * the set (always_dedup), which rule search they use.  explore_gpu_fast_successors: the records (label,
 * vector of img->words words) the generator yields for vec, in its order,
 * the first cap of them into labels/vecs and their number into *count;
 * *needs_set = 0 when the tables prove the records distinct. */
struct explore_gpu_fast;
struct explore_gpu_fast *explore_gpu_fast_open(const struct image *img, int anchored, struct wx_error *err);
void explore_gpu_fast_info(const struct explore_gpu_fast *x, uint64_t *bound, uint64_t *set_bound, int *always_dedup,
                           int *anchored);
int explore_gpu_fast_successors(const struct explore_gpu_fast *x, const uint32_t *vec, uint32_t *labels,
                                uint32_t *vecs, uint64_t cap, uint64_t *count, int *needs_set, struct wx_error *err);
void explore_gpu_fast_close(struct explore_gpu_fast *x);

#ifdef __cplusplus
}
#endif

#endif
