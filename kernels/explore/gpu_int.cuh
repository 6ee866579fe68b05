/*
 * gpu_int.cuh -- internal types of the GPU explorer: the device view of the
 * image, the launch parameters and the control block shared by all blocks.
 * Included by kernels/explore/ only.
 */
#ifndef WX_GPU_INT_CUH
#define WX_GPU_INT_CUH

#include <stdint.h>
#include <cuda_runtime.h>
#include <cub/warp/warp_scan.cuh>

#include "../../explorer/por_core.h"
#include "../../util/config.h"

#define GPU_WARP 32u
#define GPU_FULL 0xffffffffu
#define GPU_MAX_THREADS 512u

/* Largest stored vector: IMAGE_MAX_WORDS data words plus one control word. */
#define GPU_MAX_SW 65u
#define GPU_MAX_LINES 3u   /* ceil(GPU_MAX_SW / 32) */

/* Control-word codes (see gpu_table.cuh).  Both have bit 31 set and are
 * never a published value, because the host chooses the slot layout so that
 * (published low 31 bits) <= 0x7ffffffd. */
#define GPU_EMPTY 0xffffffffu
#define GPU_RESERVED 0xfffffffeu
#define GPU_NEW_BIT 0x80000000u
#define GPU_LOW31 0x7fffffffu

/* FAST: a remaining run of local moves at least GPU_SHARE_MIN long
 * (util/config.h) is shared with the warp's idle lanes (fx_share in
 * gpu_expand.cuh), and images with such a run get the kernel variant that
 * shares.  Short runs are not worth the shuffles: a share costs about one
 * round. */

#define GPU_NO_SLOT 0xffffffffffffffffull
/* A successor location in the per-state dedupe set: a block-cache slot
 * (tag clear) or a global table slot (tag set). */
#define GPU_LOC_GLOBAL 0x8000000000000000ull

/* Error codes written to gpu_ctl.error (first one wins). */
enum {
    GPU_ERR_NONE = 0,
    GPU_ERR_TABLE_FULL = 1,  /* probe bound exhausted: a state was not stored */
    GPU_ERR_DEDUPE = 2,      /* a state has more distinct successors than the set holds */
    GPU_ERR_EDGES = 3,       /* edge buffer overflow within one launch */
    GPU_ERR_QUEUE = 4,       /* level-mode queue overflow (internal) */
    GPU_ERR_COMBOS = 5,      /* a rule with more than 2^62 combinations */
    GPU_ERR_SPIN = 6,        /* internal: a reserved table slot stayed unpublished */
    GPU_ERR_REHASH = 7,      /* internal: growing the table met a vector twice */
    GPU_ERR_CACHE_SPIN = 8,  /* internal: a reserved block-cache row stayed unpublished */
    GPU_ERR_POR = 9          /* internal: a reduced set (--por) kept no record */
};

/* Profiling counters (gpu_params.prof; gpu_ctl.prof): clock64 cycles.
 * Block phases, timed by thread 0 between the block's barriers and summed
 * over blocks: FILL (iteration start, queue fill), SCAN (table scan for
 * work), EXPAND (successor generation, block cache, direct inserts),
 * FLUSH (cache rows into the global table), EDGES (edge output, set
 * clearing, next tile).  Parts of EXPAND, timed by each warp's lane 0 and
 * summed over warps: GEN (class selection and successor generation; FAST:
 * lane sharing too),
 * CACHE (block-cache insert), GLOBAL (direct global inserts, cache full),
 * DEDUPE (per-state successor set, action check). */
enum {
    GPU_PROF_FILL, GPU_PROF_SCAN, GPU_PROF_EXPAND, GPU_PROF_FLUSH, GPU_PROF_EDGES,
    GPU_PROF_GEN, GPU_PROF_CACHE, GPU_PROF_GLOBAL, GPU_PROF_DEDUPE, GPU_PROF_N
};

/* Waits for a reserved slot (a table slot or a block-cache row) are
 * bounded by time: a slot still reserved GPU_SPIN_NS nanoseconds
 * (util/config.h) after the wait began means a bug (its writer never
 * publishes), reported as an error instead of a hang.  Natively a writer
 * publishes within microseconds (a few dozen stores, no waits of its own).
 * A clock, not a count of re-reads: compute-sanitizer racecheck, slowing
 * and reordering threads, exhausts any count, and a clock does not depend
 * on how fast the waiter loops.  10 s stays short for a person waiting for
 * the error and long for any writer (only a debugger holding the writer
 * for longer would trip it).  GPU_SPIN_LIMIT bounds the re-reads of loops
 * that meet no RESERVED slot (the one-CAS inserts: each failed CAS means a
 * slot was filled). */

/* A 16-byte slot or cache row (sw == 4) as one value: atomicCAS takes it
 * whole on sm_90 (global and shared memory). */
struct __align__(16) gpu_u128 {
    unsigned long long lo, hi;
};

static __device__ __forceinline__ bool gpu_u128_eq(gpu_u128 a, gpu_u128 b)
{
    return a.lo == b.lo && a.hi == b.hi;
}

/* A key of 4 words (any pointer) as a 16-byte slot or row value: the
 * control word is the high half's high word. */
static __device__ __forceinline__ gpu_u128 key128(const uint32_t *v)
{
    return gpu_u128{(unsigned long long)v[0] | (unsigned long long)v[1] << 32,
                    (unsigned long long)v[2] | (unsigned long long)v[3] << 32};
}
#define GPU_EMPTY128 (gpu_u128{~0ull, ~0ull})

/* One step of a bounded wait for a reserved slot's writer, by one thread;
 * only called once a RESERVED slot was met, so the insert's fast path
 * pays nothing.  *t0 is 0 before the insert's first wait and then holds
 * its start (%globaltimer, ns).  Sleeps briefly: the writer may be a lane
 * of this very warp, diverged (cache_insert), and a sleeping path lets the
 * scheduler run the other one instead of this re-read loop.  After a
 * millisecond (never natively; under a sanitizer) the sleeps lengthen to
 * leave the SM to the writer.  Returns true once GPU_SPIN_NS have passed:
 * the caller gives up and reports it.  Warp-wide callers must agree on the
 * result (each lane reads its own clock): __any_sync over it. */
static __device__ __forceinline__ bool gpu_wait_expired(unsigned long long *t0)
{
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (*t0 == 0)
        *t0 = now | 1ull; /* never 0 again */
    const unsigned long long waited = now > *t0 ? now - *t0 : 0;
    if (waited > GPU_SPIN_NS)
        return true;
    __nanosleep(waited < 1000000ull ? 32u : 1000u);
    return false;
}

/* Inclusive prefix sum of x over the 32 lanes of a warp (all lanes call
 * it).  CUB's warp scan is the shuffle scan at 32 lanes of a 4-byte type,
 * whose temporary storage is an empty struct that it never touches: a
 * local one costs nothing and keeps shared memory for the caches. */
static __device__ __forceinline__ uint32_t gpu_warp_inclusive_sum(uint32_t x)
{
    typedef cub::WarpScan<uint32_t> warp_scan;
    static_assert(sizeof(warp_scan::TempStorage) <= 1, "a shuffle scan needs no storage");
    warp_scan::TempStorage none;
    uint32_t incl;
    warp_scan(none).InclusiveSum(x, incl);
    return incl;
}

/* Device view of the image.  Every array is also reachable through a
 * texture object when use_tex is set (templated kernels pick one path). */
struct gpu_image {
    const uint32_t *proc_off, *state_off, *first_bit, *state_bits;
    const uint32_t *class_rule_start, *class_result, *rule_mask;
    const uint2 *trans;               /* 64-bit entries as (lo, hi) pairs */
    const uint8_t *action;            /* n_labels flags or NULL */
    /* The priority (image.h), on the general generator only: prio_n labels;
     * a label that some label is below has one bit (prio_mark), prio_block
     * holds the bits of the labels above a label, prio_out its shown label. */
    uint32_t prio_n;
    const unsigned long long *prio_mark, *prio_block;
    const uint32_t *prio_out;
    cudaTextureObject_t t_proc_off, t_state_off, t_first_bit, t_state_bits;
    cudaTextureObject_t t_class_rule_start, t_class_result, t_rule_mask, t_trans;
    uint32_t n_comps, words, act_bits, mask_words, n_labels, n_classes;
};

/* The fast generator's tables (gpu_expand.cuh, "fast generator"; built by
 * fastgen.cu's gx_fast_build).  Images with vectors of <= 4 words and 1..64
 * components.  Deltas are XOR masks on the packed vector
 * read as dw 64-bit words (dw = 1 for 1-2 words, 2 for 3-4 words). */
struct __align__(32) gpu_fseg {
    unsigned long long blk0, blk1; /* masks: rules this component state blocks:
                                      bit r set when the component takes part in
                                      rule r but offers no entry of r's class
                                      here; anchored (gpu_fast.anchored): the
                                      start and length of the state's list of
                                      rules anchored at it (fastgen.cu) */
    uint32_t loc, nloc;            /* local moves [loc, loc + nloc) */
    uint32_t grp, ngrp;            /* groups [grp, grp + (ngrp & GPU_LOW31)),
                                      sorted by class; bit 31: some entry of this
                                      segment is a self-loop */
};

struct gpu_fast {
    const uint4 *comp;               /* n: proc_offsets[c], first_bit[c], width, 0 */
    const gpu_fseg *seg;             /* proc_offsets[n] segments */
    const uint32_t *loc_lab;         /* local moves: result label */
    const unsigned long long *loc_d; /* local moves: dw delta words each */
    const uint4 *grp;                /* groups: class, first delta, deltas, 0 */
    const unsigned long long *d;     /* sync targets: dw delta words each */
    const unsigned long long *rmask; /* n_rules: participants (bit c) */
    const uint2 *rinfo;              /* n_rules: class, result label */
    const uint32_t *arule;           /* anchored: the segments' rule lists */
    unsigned long long all0, all1;   /* bits of the existing rules (masks) */
    uint32_t anchored;               /* 1: rules found by the lists of the
                                        segments (blk0 = start, blk1 = length),
                                        not by blocked-rule masks */
    uint32_t dw;                     /* 64-bit delta words: 1 or 2 */
    uint32_t always_dedup;           /* 1: states may yield duplicate (label,
                                        target) pairs without self-loops */
};

/* Control block in device memory: counters and flags of one exploration.
 * 64-bit counters are updated with atomicAdd; the host reads the block
 * between launches (no kernel runs then). */
struct gpu_ctl {
    unsigned long long n_states;     /* vectors inserted into the table */
    unsigned long long n_claimed;    /* states owned by a tile or queue */
    unsigned long long n_expanded;   /* states whose expansion completed */
    unsigned long long n_trans;      /* distinct (src, label, dst) */
    unsigned long long n_dead;       /* expanded states without successors */
    unsigned long long q_in_len, q_in_head, q_out_len;
    unsigned long long scan_cursor;  /* next bucket to scan (scan_enabled) */
    unsigned long long e_fill;       /* edges written to the edge buffer */
    unsigned long long iterations, direct_inserts, cache_inserts, scan_claims;
    unsigned long long n_saved;      /* states parked in per-block saved tiles */
    unsigned long long init_slot;    /* slot of the initial state */
    unsigned long long viol_dead_slot;   /* first deadlock found (stop_on_deadlock) */
    unsigned long long viol_act_slot;    /* source of the first action violation */
    unsigned long long viol_act_dst;     /* its target's slot */
    unsigned int scan_enabled;
    unsigned int stop;               /* set on error or violation */
    unsigned int error;              /* GPU_ERR_* */
    unsigned int viol_dead_claim;    /* 0 until the first deadlock violation */
    unsigned int viol_act_claim;     /* 0 until the first action violation */
    unsigned int viol_label;
    unsigned int blocks_done;        /* blocks of this launch that left their
                                        iteration loop (p.end_blocks) */
    unsigned int viol_vec[GPU_MAX_SW]; /* action target vector */
    unsigned long long prof[GPU_PROF_N]; /* p.prof: cycles, GPU_PROF_* */
    unsigned long long por_q_len;    /* --por proviso: entries of p.por_q */
};

/* Launch parameters, passed by value. */
struct gpu_params {
    struct gpu_image img;
    uint32_t *table;
    unsigned long long nbuckets;
    uint32_t bw;          /* words per bucket (32 * lines) */
    uint32_t sw;          /* words per stored vector (control word last) */
    uint32_t spb;         /* vectors per bucket */
    uint32_t lines;       /* 128-byte lines per bucket */
    uint32_t probe_bound; /* buckets probed before the insert fails */

    const unsigned long long *q_in;
    unsigned long long *q_out;
    unsigned long long q_cap;        /* q_out entries usable */
    unsigned long long *saved;       /* async: per block, [0] = count, then T slots */

    unsigned long long *parent;      /* trace: per table slot, or NULL */
    uint32_t *parent_label;

    unsigned long long *e_src, *e_dst; /* sink: edge buffer, or NULL */
    uint32_t *e_lab;
    unsigned long long e_cap;
    unsigned long long e_guard;      /* an iteration starts only while e_fill <= this */

    struct gpu_ctl *ctl;

    uint32_t G, log2G;     /* threads per state (power of two, <= 32) */
    uint32_t T;            /* states per block tile = threads / G */
    uint32_t iterations;   /* per launch, at most; 0 = until no work (level mode) */
    uint32_t end_blocks;   /* async: once this many blocks have left their
                              iteration loop (budget spent or no work), the
                              others park their tiles and leave at their next
                              iteration (at least one each); 0 = never */
    uint32_t q_grab;       /* most states a block takes from q_in per fill
                              (>= 1; less than T while q_in is short, so
                              that it spreads over the blocks) */
    uint32_t level_mode;
    uint32_t stop_on_deadlock;
    uint32_t record_only;  /* 1: violations are claimed but never set the
                              stop flag (options.finish_after_violation) */
    uint32_t want_edges;
    uint32_t D;            /* dedupe slots per state (power of two) */
    uint32_t C;            /* block cache slots */
    uint32_t cache_gslot;  /* 1: a cache row keeps its global slot (edges,
                              action violations read it); 0: rows are the
                              vector alone (and parent, label with traces) */
    uint32_t cache_probes;
    uint32_t scan_chunk;   /* buckets claimed per scan step */
    uint32_t oneshot;      /* 1: one-CAS inserts (sw 1, 2 or 4: a slot of
                              4, 8 or 16 bytes, gpu_table.cuh) */
    uint32_t thread_rwp;   /* 1: the flush inserts one row per thread with
                              reserve/write/publish (not oneshot, sw <= 32) */
    uint32_t prof;         /* 1: clock64 phase counters (GPU_PROF_*) */
    uint32_t fast;         /* 1: the fast generator (fx; G == 1) */
    struct gpu_fast fx;

    /* dynamic shared memory layout, byte offsets */
    uint32_t off_tile_vec[2], off_tile_slot[2], off_scratch, off_grpbuf,
             off_dedupe, off_dedlist, off_grp_n, off_cache, off_cache_gslot, off_cache_par, off_cache_lab;
    uint32_t grpbuf_global, dedupe_global;   /* 1: these live in global memory */
    uint32_t *grpbuf_g;                      /* blocks * T * n * 4 words */
    void *dedupe_g;                          /* blocks * T * D pairs (16 bytes), all
                                                empty between expansions */
    uint32_t *dedlist_g;                     /* blocks * T * D entry numbers */

    /* --por (general generator only; tile.cu): the stubborn-set tables
     * (explorer/por_core.h; device pointers) and per tile place (blocks * T
     * of them) one scratch of por_words words; por_on == 0: none.  Last in
     * the struct, so that the fields before keep their offsets. */
    uint32_t por_on, por_words, por_parts;
    /* --por with visible labels: the pass of the cycle proviso
     * (explorer/por.h) over a level's states (driver.cu, gx_por_level):
     * 0 expands each state's reduced set; 1 inserts nothing and queues
     * (tile.cu's gx_por_q) each reduced state that has an enabled visible
     * transition or whose reduced targets are all old (gx_por_fresh: one
     * byte per table slot, 1 while its state was first reached in the
     * level's pass 0); 2 expands the records outside the reduced sets of
     * the queued states.  In the padding before por_scratch, so that the
     * struct keeps its size (the kernels with more parameters after it
     * keep their code). */
    uint32_t por_pass;
    uint32_t *por_scratch;
    struct por_tables por;
};

#endif
