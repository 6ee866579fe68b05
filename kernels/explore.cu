/*
 * explore.cu -- explore_gpu: GPUexplore's on-the-fly exploration rebuilt
 * for CUDA 13 / sm_90, and exact.
 *
 * The device side is in the internal headers: gpu_table.cuh (global table
 * and its reserve/write/publish insert), gpu_cache.cuh (block cache),
 * gpu_expand.cuh (vector groups, successor generation, per-state successor
 * set, and the fast generator), gpu_kernels.cuh (the kernels).  This file is
 * the host driver: it checks the image, plans the layout (slot words,
 * generator and group size, shared memory, table size from free device
 * memory), uploads the image once (texture objects over linear memory, or
 * plain loads) and the fast generator's tables when it runs (gx_fast_build),
 * runs launches until no work is left, and turns table slots into dense ids
 * for vectors, traces and edges.
 *
 * Generators.  Images with vectors of <= 4 words, 1..64 components and <=
 * 128 rules (nearly all real networks) are expanded by the fast generator,
 * one thread per state (gpu_tuning.generator, default), on precompiled XOR
 * deltas and blocked-rule masks; every other image by vector groups of G
 * threads per state (G = the smallest power of two >= the components, at
 * most GX_MAX_GROUP, or gpu_tuning.group_size).  Both feed the same cache,
 * table, successor set, edges and traces.
 *
 * Every CUDA call and every launch is checked (cudaGetLastError after the
 * launch, then the synchronisation's status); a failure is WX_ESYSTEM with
 * the call and CUDA's message.  A table that fills up (probe bound
 * exhausted) is WX_ELIMIT with the partial counts and complete = false.
 *
 * Memory.  The table (and, with them, work queues, parent links, bucket
 * prefix sums) takes the device's free memory less a slack, or
 * options.gpu.hash_bytes for the table alone, or at most
 * options.memory_bytes.  In the asynchronous mode without a graph that is
 * only the table's limit: it starts at GX_GROW_FROM (8 GiB, or 2^30 slots
 * where slots are wider than 8 bytes) and grows
 * (gx_grow, below at "Growing table").  When the graph is recorded, the edge buffer is
 * allocated first, 1/50 of the free memory in entries (see want_graph
 * below), so that the whole graph normally stays on the device.  Defaults
 * (GX_* below) come from the sweeps in bench/GPU_NOTES.md.
 *
 * Modes.  Without properties the exploration is asynchronous (GPUexplore's
 * scheme: several iterations per launch, successors forwarded into the
 * block's own next tile); ids are dense but not BFS-ordered and depth is not
 * tracked (reported 0).  With a trace, stop_on_deadlock or action_match it is
 * level-synchronous (one BFS level per queue swap), so traces are shortest,
 * depth is exact and violations follow explore_int.h's rules: a deadlock
 * stops at once; an action violation stops at once, or, with
 * stop_on_deadlock, at the end of its level unless a deadlock of that level
 * is found (the shorter trace).  With options.finish_after_violation the
 * kernels claim the violation without stopping (p.record_only) and the host
 * stops deadlock claims once an action violation's level has ended, so the
 * same violation is reported and the exploration runs to the end.
 */
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/error.h"
#include "../util/size.h"
#include "../explorer/explore.h"
#include "../explorer/successors.h"
#include "../network/image.h"
#include "explore_gpu.h"
#include "gpu_kernels.cuh"

/* ---- tunables (defaults; the sweep in bench/GPU_NOTES.md chose them) ---- */
#define GX_THREADS 512u          /* threads per block (with GX_OCC2: 2 blocks/SM) */
#define GX_ITERATIONS 64u        /* iterations per launch, async mode (at most: see GX_END_SHARE) */
/* Async mode: a launch ends once blocks * GX_END_SHARE / 4 blocks have left their iteration loop (the
 * others park their tiles at their next iteration; gpu_params.end_blocks).  abp d=4000's first launch
 * was one block's 64 iterations (the initial state alone, 71 of 271 ms of kernels) while its output
 * queue waited for the next launch.  bench_gpu kernels (s), H100, 2026-11-27 (bench/RESULTS.md, abp10),
 * 2/4 (with q_grab and tile_place) / 3/4 / 4/4 (= never; q_grab and tile_place only) / neither:
 * abp d=4000 0.171 / 0.173 / 0.259 / 0.273, d=1300 0.020 / 0.024 / 0.054 / 0.055, milner n=22 0.253 /
 * 0.260 / 0.277 / 0.282, tokenring n=21 0.204 / 0.208 / 0.229 / 0.231, buffers n=27 0.153 / 0.154 /
 * 0.160 / 0.166, philosophers n=12 0.183 / 0.184 / 0.196 / 0.197 (the slowest blocks' last iterations
 * are cut short everywhere) */
#ifndef GX_END_SHARE
#define GX_END_SHARE 2u
#endif
#define GX_MAX_GROUP 8u          /* default threads per state, at most */
#define GX_FAST_THREADS 512u     /* threads per block with the fast generator */
/* successor sets beyond 1/GX_FAST_SET_SHARE of the device memory: fewer fast threads (abp d=4000
 * with sets for all its states, D = 8192, H100: 64 threads 5.24 s, 128 4.10, 256 3.35, 512 3.59; 256 =
 * 11 GB of sets).  Without a graph its sets are sized for the states that use them (set_bound: D = 16)
 * and it keeps 512 threads: kernels 0.41 -> 0.31 s (H100, 2026-11-27, abp10; at 256 threads every
 * iteration's flush scanned the whole cache for half as many states: 50 % of the block cycles) */
#define GX_FAST_SET_SHARE 6u
#define GX_PROBE_BOUND 64u       /* buckets probed per insert */
#define GX_CACHE_PROBES 16u      /* block-cache probes */
/* ... for the one-shot cache's 16-byte rows: their cache overflows (milner n=22: 5 045 rows for ~5 900
 * successors an iteration), and once it is nearly full every probe of a successor that finds no row is an
 * atomic; with fewer probes it goes to the table sooner (H100, 2026-11-27, bench/RESULTS.md tenth session,
 * call E, kernels with 16 / 8 / 4 / 2 probes: milner n=22 0.280 / 0.263 / 0.248 / 0.233 s, tokenring n=21
 * 0.229 / 0.216 / 0.202 / 0.201; philosophers' 8-byte rows lose 7 % with 4, call D, so they keep 16) */
#define GX_CACHE_PROBES_WIDE 2u
#define GX_MIN_CACHE 32u         /* fewest cache rows worth launching with */
#define GX_MAX_DEDUPE 16384u     /* most successors one state may have */
#define GX_SLACK (512ull << 20)  /* device memory left free */
#define GX_SCAN_CHUNK 64u        /* buckets per scan step */
#define GX_OCC2 1                /* default kernel variant (see OCC2) */
#define GX_ONESHOT 1             /* one-CAS inserts for slots of <= 2 words */
#define GX_ONESHOT_WIDE 1        /* and for 3- and 4-word vectors in 16-byte slots */
/* First size of a growing table (bytes).  8 GiB holds a 10^8-state exploration at a quarter fill
 * (3-word vectors up to ~1.6 10^8 states, 1-word up to ~5 10^8), so none of the issue's benchmarks
 * grows: from 1 GiB each grew once, 30 ms (compaction 12-20, rehash 5-23, new table 3.5) of a
 * 0.3-0.7 s run, while 8 GiB costs ~3 ms more to clear and ~4 ms more to free than 1 GiB (H100,
 * 2026-11-27, WARPEX_GPU_TIMELINE). */
#define GX_GROW_FROM (8ull << 30)
/* ... and at least this many slots: 16 GiB for 16-byte slots (3- and 4-word vectors), whose 8 GiB
 * start held milner n=22's 1.4 10^8 states just past a quarter fill, so it grew once (0.1 s of
 * 0.47 s; from 16 GiB 0.36 s, H100, 2026-11-27, bench/RESULTS.md tenth session) */
#define GX_GROW_FROM_SLOTS (1ull << 30)

static_assert(GPU_PROF_N == sizeof(((struct gpu_run_stats *)0)->prof) / sizeof(uint64_t),
              "gpu_run_stats.prof holds GPU_PROF_N counters");

static double gx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int gx_cuda(struct wx_error *err, cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return WX_OK;
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "CUDA error in %s: %s (%s)", what, cudaGetErrorString(e),
                   cudaGetErrorName(e));
}

/* WARPEX_GPU_TIMELINE=1 in the environment: explore_gpu_tuned prints where
 * its time goes (stderr, seconds since its start; each mark first waits for
 * the device, so the marks attribute asynchronous work but also serialise
 * it: the timeline's total is not a benchmark). */
static int gx_tl_on = -1;
static double gx_tl_t0;

static void gx_mark_v(int sync, const char *fmt, va_list ap)
{
    if (sync) {
        (void)cudaDeviceSynchronize();
        (void)cudaGetLastError();
    }
    fprintf(stderr, "gpu timeline %9.6f ", gx_now() - gx_tl_t0);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

/* A mark before the device is chosen: no synchronisation. */
static void gx_mark0(const char *fmt, ...)
{
    if (gx_tl_on <= 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    gx_mark_v(0, fmt, ap);
    va_end(ap);
}

static void gx_mark(const char *fmt, ...)
{
    if (gx_tl_on <= 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    gx_mark_v(1, fmt, ap);
    va_end(ap);
}

#define CK(call)                                                                                   \
    do {                                                                                           \
        if ((rc = gx_cuda(err, (call), #call)))                                                    \
            goto out;                                                                              \
    } while (0)

/* A launch: the configuration error shows at once, the execution error at
 * the synchronisation. */
#define CK_LAUNCH(what)                                                                            \
    do {                                                                                           \
        if ((rc = gx_cuda(err, cudaGetLastError(), "launch of " what)))                            \
            goto out;                                                                              \
        if ((rc = gx_cuda(err, cudaDeviceSynchronize(), what)))                                    \
            goto out;                                                                              \
    } while (0)

extern "C" int gpu_available(char *name, size_t size)
{
    if (size)
        name[0] = '\0';
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        return 0;
    }
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (prop.major < 9)
        return 0; /* built for sm_90 */
    if (size) {
        const size_t m = strnlen(prop.name, sizeof prop.name);
        const size_t k = m < size - 1 ? m : size - 1;
        memcpy(name, prop.name, k);
        name[k] = '\0';
    }
    return 1;
}

extern "C" int gpu_start(void)
{
    char none[1];
    if (!gpu_available(none, 0))
        return 0;
    if (cudaSetDevice(0) != cudaSuccess || cudaFree(NULL) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return 1;
}

/* A group of one component state's sync entries: component, class, targets. */
struct gx_ck {
    uint32_t c, k;
    uint64_t n;
};

static int gx_ck_cmp(const void *a, const void *b)
{
    const struct gx_ck *x = (const struct gx_ck *)a, *y = (const struct gx_ck *)b;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Upper bound on the successors of one state: every local target of each
 * component's richest state, plus, per rule, the product of its
 * participants' largest class-k target counts.  Saturates at 2^62.  (The
 * fast generator's tables give a tighter one: gx_fast_anchor.)  The
 * largest counts per (component, class) come from one sorted list of all
 * groups, so images with thousands of classes and rules (abp d=4000) cost
 * milliseconds, not a search of the list per group and per participant. */
static uint64_t gx_successor_bound(const struct image *img)
{
    const uint32_t n = img->n_comps;
    const uint64_t cap = 1ull << 62;
    uint64_t total = 0;
    struct gx_ck *list = NULL;
    size_t nl = 0, capl = 0;
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t *so = img->state_offsets + img->proc_offsets[c];
        const uint32_t sb = img->state_bits[c];
        const uint32_t slots = image_entry_slots(img->act_bits, sb);
        uint64_t maxl = 0;
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            uint64_t l = 0;
            const size_t state_first = nl; /* this state's groups start here */
            for (uint32_t e = so[s]; e < so[s + 1]; e++) {
                const uint64_t ent = img->trans[e];
                uint64_t cnt = 0;
                while (cnt < slots && image_entry_target(ent, img->act_bits, sb, (uint32_t)cnt) != 0xffffffffu)
                    cnt++;
                if (!image_entry_is_sync(ent)) {
                    l += cnt;
                    continue;
                }
                /* sync entries are sorted by class: one group per class */
                const uint32_t k = image_entry_label(ent, img->act_bits);
                if (nl > state_first && list[nl - 1].k == k) {
                    list[nl - 1].n += cnt;
                    continue;
                }
                if (nl == capl) {
                    capl = capl ? 2 * capl : 64;
                    struct gx_ck *nlst = (struct gx_ck *)realloc(list, capl * sizeof *list);
                    if (!nlst) {
                        free(list);
                        return cap;
                    }
                    list = nlst;
                }
                list[nl].c = c, list[nl].k = k, list[nl].n = cnt;
                nl++;
            }
            if (l > maxl)
                maxl = l;
        }
        total += maxl;
    }
    /* the largest group per (component, class) */
    qsort(list, nl, sizeof *list, gx_ck_cmp);
    size_t m = 0;
    for (size_t i = 0; i < nl; i++) {
        if (m && list[m - 1].c == list[i].c && list[m - 1].k == list[i].k) {
            if (list[i].n > list[m - 1].n)
                list[m - 1].n = list[i].n;
        } else {
            list[m++] = list[i];
        }
    }
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            uint64_t prod = 1;
            for (uint32_t c = 0; c < n && prod; c++) {
                if (!(img->rule_mask[(size_t)r * img->mask_words + c / 32] >> (c % 32) & 1))
                    continue;
                const struct gx_ck key = {c, k, 0};
                const struct gx_ck *hit = (const struct gx_ck *)bsearch(&key, list, m, sizeof *list, gx_ck_cmp);
                const uint64_t most = hit ? hit->n : 0;
                prod = most && prod > cap / most ? cap : prod * most;
            }
            total = total + prod > cap ? cap : total + prod;
        }
    free(list);
    return total > cap ? cap : total;
}

/* ---- the fast generator's tables (gpu_expand.cuh, "fast generator") ---- */

struct gx_fast_host {
    uint4 *comp;
    gpu_fseg *seg;
    uint32_t *loc_lab;
    unsigned long long *loc_d;
    uint4 *grp;
    unsigned long long *d;
    unsigned long long *rmask;
    uint2 *rinfo;
    uint32_t *arule; /* anchored mode: rule lists of the segments */
    size_t nseg, nloc, nsync, ngrp, nrules, narule;
    unsigned long long all0, all1;
    uint32_t dw, always_dedup, anchored;
    uint32_t share; /* a segment has >= GPU_SHARE_MIN local moves: the kernel
                       with lane sharing runs (kernel_ptr) */
    uint64_t bound; /* successors of one state at most (anchored count, see gx_fast_anchor) */
    uint64_t set_bound; /* ... of a state that uses its successor set without a graph (fast_state.dedup:
                           always_dedup, or a segment with a self-loop); <= bound */
};

static void gx_fast_free(struct gx_fast_host *f)
{
    free(f->comp);
    free(f->seg);
    free(f->loc_lab);
    free(f->loc_d);
    free(f->grp);
    free(f->d);
    free(f->rmask);
    free(f->rinfo);
    free(f->arule);
    memset(f, 0, sizeof *f);
}

/* Does the image allow the fast generator?  (Up to 128 rules it finds the
 * rules that fire by masks, beyond by anchored rule lists.) */
static int gx_fast_eligible(const struct image *img)
{
    return img->words <= 4 && img->n_comps >= 1 && img->n_comps <= 64 && img->n_rules < (1u << 31) &&
           img->mask_words <= 2;
}

/* (s ^ t) << first as dw 64-bit words (first < 128, the value < 2^32). */
static void gx_fast_delta(uint32_t x, uint32_t first, unsigned long long *out, uint32_t dw)
{
    const unsigned long long v = x;
    unsigned long long lo = 0, hi = 0;
    if (first >= 64)
        hi = v << (first - 64);
    else {
        lo = v << first;
        hi = first ? v >> (64 - first) : 0;
    }
    out[0] = lo;
    if (dw > 1)
        out[1] = hi;
}

static int gx_u64_cmp(const void *a, const void *b)
{
    const unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

struct gx_kz {
    uint32_t k, z; /* a group's class and target count */
};

static int gx_kz_cmp(const void *a, const void *b)
{
    const struct gx_kz *x = (const struct gx_kz *)a, *y = (const struct gx_kz *)b;
    return x->k != y->k ? (x->k < y->k ? -1 : 1) : x->z != y->z ? (x->z < y->z ? -1 : 1) : 0;
}

static uint64_t gx_sat_mul(uint64_t a, uint64_t b, uint64_t cap)
{
    return a && b > cap / a ? cap : a * b > cap ? cap : a * b;
}

/* Anchors.  Every rule that can fire is ANCHORED at one participant: the
 * one with the fewest component states offering the rule's class (ties:
 * the lowest component).  A rule fires in a state only if its anchor's
 * local state offers the class, so the rules worth checking in a state
 * are those listed at its components' segments -- with many rules (abp
 * d=4000: 16 004) a handful per state instead of all.  In anchored mode
 * (f->anchored) the lists go to f->arule and each segment's blk0/blk1 hold
 * its list's start and length instead of blocked-rule masks.  The same
 * walk bounds a state's successors by
 *     sum over components c of  max over c's states s of
 *         (local moves of s + sum over the rules anchored at c that s
 *          offers of the product of the participants' largest class groups)
 * (every record a state yields is a local move or a combination of a rule
 * listed at its anchor's segment), which is far below gx_successor_bound's
 * when there are many rules.  A state that needs its successor set when no
 * graph is recorded (fast_state.dedup) has, unless always_dedup, a
 * component c0 in a segment s0 with a self-loop; its records are then at
 * most
 *     here(s0) + sum over components c != c0 of most(c)
 * (here: the bracket above for one segment; most: its maximum over c's
 * segments), and f->set_bound is the largest of these, which sizes the
 * sets: abp d=4000's 4 000 local moves are offered only by sender states
 * without self-loops, so its set bound is a handful while its bound is
 * ~4 000.  WX_ELIMIT when out of host memory or the lists pass 2^28
 * entries. */
static int gx_fast_anchor(const struct image *img, struct gx_fast_host *f)
{
    const uint32_t n = img->n_comps, nr = img->n_rules;
    const uint64_t cap = 1ull << 62;
    int rc = WX_ELIMIT;
    struct gx_kz *kz = (struct gx_kz *)malloc((f->ngrp + 1) * sizeof *kz);
    size_t *cstart = (size_t *)malloc((n + 1) * sizeof *cstart);
    uint32_t *anchor = (uint32_t *)malloc((nr + 1) * sizeof *anchor);
    uint64_t *prod = (uint64_t *)malloc((nr + 1) * sizeof *prod);
    uint64_t *most_c = (uint64_t *)malloc((n + 1) * sizeof *most_c), *self_c = (uint64_t *)malloc((n + 1) * sizeof *self_c);
    size_t na = 0, cap_a = 0;
    uint64_t total = 0, set_bound = 0;
    if (!kz || !cstart || !anchor || !prod || !most_c || !self_c)
        goto out;
    /* per component: its groups' (class, targets), sorted */
    for (uint32_t c = 0; c < n; c++) {
        /* component c's segments are proc_offsets[c] + s, s < comp_states[c] (an
         * image may leave unused slots after them) */
        const size_t s0 = img->proc_offsets[c], s1 = s0 + img->comp_states[c];
        cstart[c] = s0 < s1 ? f->seg[s0].grp : (c ? cstart[c - 1] : 0);
        const size_t g1 = s0 < s1 ? f->seg[s1 - 1].grp + (f->seg[s1 - 1].ngrp & GPU_LOW31) : cstart[c];
        for (size_t x = cstart[c]; x < g1; x++)
            kz[x].k = f->grp[x].x, kz[x].z = f->grp[x].z;
        qsort(kz + cstart[c], g1 - cstart[c], sizeof *kz, gx_kz_cmp);
        cstart[c + 1] = g1;
    }
    for (uint32_t r = 0; r < nr; r++) {
        const uint32_t k = f->rinfo[r].x;
        uint64_t p = 1, best = UINT64_MAX;
        anchor[r] = UINT32_MAX;
        for (unsigned long long m = f->rmask[r]; m; m &= m - 1) {
            const uint32_t c = (uint32_t)__builtin_ctzll(m);
            size_t lo = cstart[c], hi = cstart[c + 1];
            while (lo < hi) { /* first group of class >= k */
                const size_t mid = lo + (hi - lo) / 2;
                if (kz[mid].k < k)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            size_t e = lo;
            while (e < cstart[c + 1] && kz[e].k == k)
                e++;
            if (e == lo) { /* c never offers k: the rule never fires */
                p = 0;
                break;
            }
            p = gx_sat_mul(p, kz[e - 1].z, cap);
            if (e - lo < best)
                best = e - lo, anchor[r] = c;
        }
        prod[r] = p;
        if (!p)
            anchor[r] = UINT32_MAX;
    }
    /* the lists (segment by segment, rules in class order) and the bounds */
    for (uint32_t c = 0; c < n; c++) {
        uint64_t most = 0, most_self = 0;
        int has_self = 0;
        for (size_t si = img->proc_offsets[c]; si < img->proc_offsets[c] + img->comp_states[c]; si++) {
            gpu_fseg *sg = &f->seg[si];
            uint64_t here = sg->nloc;
            const size_t a0 = na;
            for (uint32_t x = sg->grp; x < sg->grp + (sg->ngrp & GPU_LOW31); x++) {
                const uint32_t k = f->grp[x].x;
                for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
                    if (anchor[r] != c)
                        continue;
                    here = here + prod[r] > cap ? cap : here + prod[r];
                    if (!f->anchored)
                        continue;
                    if (na == cap_a) {
                        cap_a = cap_a ? 2 * cap_a : 1024;
                        /* lists beyond 2^28 entries (1 GiB): the general generator instead */
                        uint32_t *nl = cap_a <= (1ull << 28) ? (uint32_t *)realloc(f->arule, cap_a * sizeof *nl) : NULL;
                        if (!nl)
                            goto out;
                        f->arule = nl;
                    }
                    f->arule[na++] = r;
                }
            }
            if (f->anchored)
                sg->blk0 = a0, sg->blk1 = na - a0;
            if (here > most)
                most = here;
            if (sg->ngrp & GPU_NEW_BIT) { /* a self-loop (gx_fast_build) */
                has_self = 1;
                if (here > most_self)
                    most_self = here;
            }
        }
        total = total + most > cap ? cap : total + most;
        most_c[c] = most;
        self_c[c] = has_self ? most_self : UINT64_MAX;
    }
    /* the set bound: total - most(c0) + here(s0), largest over c0 */
    for (uint32_t c = 0; c < n; c++) {
        if (self_c[c] == UINT64_MAX)
            continue;
        /* total saturates at cap; so does the bound (most(c0) <= total) */
        const uint64_t b = total >= cap ? cap : total - most_c[c] + self_c[c];
        if (b > set_bound)
            set_bound = b;
    }
    if (!f->arule && !(f->arule = (uint32_t *)calloc(1, sizeof *f->arule)))
        goto out; /* uploaded even when empty */
    f->narule = na;
    f->bound = total;
    f->set_bound = f->always_dedup ? total : set_bound;
    rc = WX_OK;
out:
    free(kz);
    free(cstart);
    free(anchor);
    free(prod);
    free(most_c);
    free(self_c);
    return rc;
}

/* A rule as gx_fast_build's check (c) sorts them: by participants,
 * result label, class. */
struct gx_rule_key {
    unsigned long long mask;
    uint32_t label, cls;
};

static int gx_rule_cmp(const void *a, const void *b)
{
    const struct gx_rule_key *x = (const struct gx_rule_key *)a, *y = (const struct gx_rule_key *)b;
    if (x->mask != y->mask)
        return x->mask < y->mask ? -1 : 1;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return x->cls < y->cls ? -1 : x->cls > y->cls;
}

/* Builds the tables (the image must be eligible); anchored: rule lists
 * instead of blocked-rule masks (forced beyond 128 rules).  WX_ELIMIT when
 * the host is out of memory or a count passes 2^31 (the caller then keeps
 * the general generator). */
static int gx_fast_build(const struct image *img, struct gx_fast_host *f, int anchored)
{
    memset(f, 0, sizeof *f);
    f->anchored = anchored || img->n_rules > 128;
    const uint32_t n = img->n_comps, ab = img->act_bits, nr = img->n_rules, mw = img->mask_words;
    const size_t nseg = img->proc_offsets[n];
    f->dw = img->words > 2 ? 2 : 1;
    size_t nloc = 0, nsync = 0, ngrp = 0, seg_max = 0;
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t sb = img->state_bits[c], slots = image_entry_slots(ab, sb);
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            const uint32_t *so = img->state_offsets + img->proc_offsets[c] + s;
            uint32_t last = UINT32_MAX;
            size_t here = 0;
            for (uint32_t i = so[0]; i < so[1]; i++) {
                const uint64_t e = img->trans[i];
                uint32_t cnt = 0;
                while (cnt < slots && image_entry_target(e, ab, sb, cnt) != UINT32_MAX)
                    cnt++;
                here += cnt;
                if (image_entry_is_sync(e)) {
                    nsync += cnt;
                    const uint32_t k = image_entry_label(e, ab);
                    ngrp += k != last;
                    last = k;
                } else {
                    nloc += cnt;
                }
            }
            if (here > seg_max)
                seg_max = here;
        }
    }
    if (nloc > (1u << 31) || nsync > (1u << 31) || ngrp > (1u << 31))
        return WX_ELIMIT;
    f->nseg = nseg, f->nloc = nloc, f->nsync = nsync, f->ngrp = ngrp, f->nrules = nr;
    f->comp = (uint4 *)calloc(n, sizeof *f->comp);
    f->seg = (gpu_fseg *)calloc(nseg + 1, sizeof *f->seg);
    f->loc_lab = (uint32_t *)calloc(nloc + 1, sizeof *f->loc_lab);
    f->loc_d = (unsigned long long *)calloc((nloc + 1) * f->dw, sizeof *f->loc_d);
    f->grp = (uint4 *)calloc(ngrp + 1, sizeof *f->grp);
    f->d = (unsigned long long *)calloc((nsync + 1) * f->dw, sizeof *f->d);
    f->rmask = (unsigned long long *)calloc(nr + 1, sizeof *f->rmask);
    f->rinfo = (uint2 *)calloc(nr + 1, sizeof *f->rinfo);
    unsigned long long *keys = (unsigned long long *)malloc((seg_max + 1) * sizeof *keys);
    unsigned long long *tkeys = (unsigned long long *)malloc((seg_max + 1) * sizeof *tkeys);
    uint8_t *injective = (uint8_t *)malloc(n);
    struct gx_rule_key *order = (struct gx_rule_key *)malloc((nr + 1) * sizeof *order);
    if (!f->comp || !f->seg || !f->loc_lab || !f->loc_d || !f->grp || !f->d || !f->rmask || !f->rinfo || !keys ||
        !tkeys || !injective || !order) {
        free(keys), free(tkeys), free(injective), free(order);
        gx_fast_free(f);
        return WX_ELIMIT;
    }
    memset(injective, 1, n);
    /* rules: participants, class, label */
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            const uint32_t *m = img->rule_mask + (size_t)r * mw;
            f->rmask[r] = m[0] | (mw > 1 ? (unsigned long long)m[1] << 32 : 0ull);
            f->rinfo[r] = make_uint2(k, img->class_result[k]);
        }
    if (!f->anchored) {
        f->all0 = nr >= 64 ? ~0ull : (1ull << nr) - 1;
        f->all1 = nr <= 64 ? 0ull : nr == 128 ? ~0ull : (1ull << (nr - 64)) - 1;
    }
    /* segments: moves, groups, self-loops; (a) and (b) */
    size_t xl = 0, xs = 0, xg = 0;
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t first = img->first_bit[c], width = img->first_bit[c + 1] - first;
        const uint32_t sb = img->state_bits[c], slots = image_entry_slots(ab, sb);
        f->comp[c] = make_uint4(img->proc_offsets[c], first, width, 0);
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            const size_t si = img->proc_offsets[c] + s;
            const uint32_t *so = img->state_offsets + si;
            gpu_fseg *sg = &f->seg[si];
            sg->loc = (uint32_t)xl;
            sg->grp = (uint32_t)xg;
            uint32_t last = UINT32_MAX, self = 0;
            size_t nk = 0, nt = 0;
            for (uint32_t i = so[0]; i < so[1]; i++) {
                const uint64_t e = img->trans[i];
                const uint32_t lab = image_entry_label(e, ab), sync = image_entry_is_sync(e);
                if (sync && lab != last) {
                    f->grp[xg++] = make_uint4(lab, (uint32_t)xs, 0, 0);
                    sg->ngrp++;
                    last = lab;
                }
                for (uint32_t k = 0; k < slots; k++) {
                    const uint32_t t = image_entry_target(e, ab, sb, k);
                    if (t == UINT32_MAX)
                        break;
                    self |= s == t;
                    keys[nk++] = (unsigned long long)sync << 63 | (unsigned long long)lab << 32 | t;
                    if (sync) {
                        tkeys[nt++] = (unsigned long long)t << 32 | lab;
                        gx_fast_delta(s ^ t, first, f->d + xs * f->dw, f->dw);
                        xs++;
                        f->grp[xg - 1].z++;
                    } else {
                        gx_fast_delta(s ^ t, first, f->loc_d + xl * f->dw, f->dw);
                        f->loc_lab[xl++] = lab;
                        sg->nloc++;
                        f->share |= sg->nloc >= GPU_SHARE_MIN;
                    }
                }
            }
            sg->ngrp |= self ? GPU_NEW_BIT : 0u;
            qsort(keys, nk, sizeof *keys, gx_u64_cmp);
            for (size_t i = 1; i < nk; i++)
                if (keys[i] == keys[i - 1])
                    f->always_dedup = 1;
            /* c is class-injective when no local state reaches one target
             * by two classes */
            qsort(tkeys, nt, sizeof *tkeys, gx_u64_cmp);
            for (size_t i = 1; i < nt; i++)
                if (tkeys[i] >> 32 == tkeys[i - 1] >> 32 && tkeys[i] != tkeys[i - 1])
                    injective[c] = 0;
        }
    }
    /* (c) two rules with the same participants and result label can yield
     * the same record only if each participant reaches one target by both
     * classes (or the classes are equal): impossible when a participant is
     * class-injective */
    for (uint32_t r = 0; r < nr; r++)
        order[r].mask = f->rmask[r], order[r].label = f->rinfo[r].y, order[r].cls = f->rinfo[r].x;
    qsort(order, nr, sizeof *order, gx_rule_cmp);
    for (uint32_t i = 1; i < nr && !f->always_dedup; i++) {
        const struct gx_rule_key *a = &order[i - 1], *b = &order[i];
        if (a->mask != b->mask || a->label != b->label)
            continue;
        int guard = a->cls != b->cls ? 0 : -1; /* equal classes: no guard */
        for (unsigned long long m = a->mask; m && guard == 0; m &= m - 1)
            guard = injective[__builtin_ctzll(m)];
        if (guard != 1)
            f->always_dedup = 1;
    }
    free(tkeys), free(injective), free(order);
    /* blocked rules: for each participant c of rule r, the states of c
     * without a group of r's class */
    for (uint32_t r = 0; r < nr && !f->anchored; r++) {
        const uint32_t k = f->rinfo[r].x;
        for (unsigned long long m = f->rmask[r]; m; m &= m - 1) {
            const uint32_t c = (uint32_t)__builtin_ctzll(m);
            for (uint32_t s = 0; s < img->comp_states[c]; s++) {
                gpu_fseg *sg = &f->seg[img->proc_offsets[c] + s];
                int offers = 0;
                for (uint32_t x = sg->grp; x < sg->grp + (sg->ngrp & GPU_LOW31); x++)
                    offers |= f->grp[x].x == k;
                if (!offers) {
                    if (r < 64)
                        sg->blk0 |= 1ull << r;
                    else
                        sg->blk1 |= 1ull << (r - 64);
                }
            }
        }
    }
    free(keys);
    const int rc = gx_fast_anchor(img, f);
    if (rc != WX_OK)
        gx_fast_free(f);
    return rc;
}

/* The tables' scalars into the generator's view (its arrays are the
 * device copies on the GPU, the host ones in explore_gpu_fast_open). */
static void gx_fast_scalars(const struct gx_fast_host *h, struct gpu_fast *f)
{
    f->anchored = h->anchored;
    f->all0 = h->all0;
    f->all1 = h->all1;
    f->dw = h->dw;
    f->always_dedup = h->always_dedup;
}

/* ---- the fast generator on the host (explore_gpu.h, for the CPU tests) ---- */

struct explore_gpu_fast {
    struct gx_fast_host h;
    struct gpu_fast f;
    uint32_t n, W;
};

extern "C" struct explore_gpu_fast *explore_gpu_fast_open(const struct image *img, int anchored, struct wx_error *err)
{
    if (!gx_fast_eligible(img)) {
        wx_fail(err, WX_ELIMIT, NULL, 0, 0, "the image does not allow the fast generator (%u words, %u components)",
                img->words, img->n_comps);
        return NULL;
    }
    struct explore_gpu_fast *x = (struct explore_gpu_fast *)calloc(1, sizeof *x);
    if (!x || gx_fast_build(img, &x->h, anchored) != WX_OK) {
        free(x);
        wx_fail(err, WX_ELIMIT, NULL, 0, 0, "cannot build the fast generator's tables (out of host memory or past their limits)");
        return NULL;
    }
    struct gpu_fast &f = x->f;
    f.comp = x->h.comp;
    f.seg = x->h.seg;
    f.loc_lab = x->h.loc_lab;
    f.loc_d = x->h.loc_d;
    f.grp = x->h.grp;
    f.d = x->h.d;
    f.rmask = x->h.rmask;
    f.rinfo = x->h.rinfo;
    f.arule = x->h.arule;
    gx_fast_scalars(&x->h, &f);
    x->n = img->n_comps;
    x->W = img->words;
    return x;
}

extern "C" void explore_gpu_fast_info(const struct explore_gpu_fast *x, uint64_t *bound, uint64_t *set_bound,
                                      int *always_dedup, int *anchored)
{
    *bound = x->h.bound;
    *set_bound = x->h.set_bound;
    *always_dedup = (int)x->h.always_dedup;
    *anchored = (int)x->h.anchored;
}

extern "C" int explore_gpu_fast_successors(const struct explore_gpu_fast *x, const uint32_t *vec, uint32_t *labels,
                                           uint32_t *vecs, uint64_t cap, uint64_t *count, int *needs_set,
                                           struct wx_error *err)
{
    fast_state st;
    uint32_t scr[4], lab = 0;
    bool ovf = false;
    uint64_t k = 0;
    fx_begin(x->f, st, x->n, x->W, vec, true);
    *needs_set = st.dedup;
    while (fx_next(x->f, st, vec, scr, x->W, x->W, &lab, &ovf)) {
        if (k < cap) {
            labels[k] = lab;
            memcpy(vecs + k * x->W, scr, x->W * sizeof *scr);
        }
        k++;
    }
    *count = k;
    if (ovf)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "more than 2^62 combinations of one rule");
    return WX_OK;
}

extern "C" void explore_gpu_fast_close(struct explore_gpu_fast *x)
{
    if (!x)
        return;
    gx_fast_free(&x->h);
    free(x);
}

/* ---- the driver ---- */

struct gx {
    cudaDeviceProp prop;
    struct gpu_params p;
    void *dev[40];
    size_t devsz[40];
    int ndev;
    cudaTextureObject_t tex[8];
    int ntex;
    unsigned long long *q[2];
    struct gpu_ctl *d_ctl;
    unsigned long long *d_prefix;
    uint64_t bytes, peak; /* device bytes held now, and at most */
    unsigned long long *d_gc; /* growth counters (gx_grow) */

    /* host staging of edges */
    unsigned long long *h_src, *h_dst;
    uint32_t *h_lab;
    size_t h_n, h_cap;
};

static int gx_malloc(struct gx *g, void **ptr, size_t bytes, const char *what, struct wx_error *err)
{
    if (bytes == 0)
        bytes = 16;
    cudaError_t e = cudaMalloc(ptr, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *ptr = NULL;
        return wx_fail(err, e == cudaErrorMemoryAllocation ? WX_ELIMIT : WX_ESYSTEM, NULL, 0, 0,
                       "cannot allocate %zu bytes of device memory for %s: %s", bytes, what, cudaGetErrorString(e));
    }
    g->devsz[g->ndev] = bytes;
    g->dev[g->ndev++] = *ptr;
    g->bytes += bytes;
    if (g->bytes > g->peak)
        g->peak = g->bytes;
    return WX_OK;
}

static int gx_upload(struct gx *g, void **dptr, const void *src, size_t bytes, const char *what,
                     struct wx_error *err)
{
    int rc = gx_malloc(g, dptr, bytes, what, err);
    if (rc)
        return rc;
    if (bytes && src)
        return gx_cuda(err, cudaMemcpy(*dptr, src, bytes, cudaMemcpyHostToDevice), what);
    return WX_OK;
}

static int gx_texture(struct gx *g, cudaTextureObject_t *t, const void *dptr, size_t elems, int two,
                      struct wx_error *err)
{
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = (void *)dptr;
    rd.res.linear.desc = two ? cudaCreateChannelDesc<uint2>() : cudaCreateChannelDesc<unsigned int>();
    rd.res.linear.sizeInBytes = (elems ? elems : 1) * (two ? 8 : 4);
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.readMode = cudaReadModeElementType;
    int rc = gx_cuda(err, cudaCreateTextureObject(t, &rd, &td, NULL), "cudaCreateTextureObject");
    if (!rc)
        g->tex[g->ntex++] = *t;
    return rc;
}

/* Frees one allocation early (its entry leaves the list). */
static void gx_release(struct gx *g, void *ptr)
{
    for (int i = 0; i < g->ndev; i++)
        if (g->dev[i] == ptr) {
            cudaFree(ptr);
            g->bytes -= g->devsz[i];
            g->ndev--;
            g->dev[i] = g->dev[g->ndev];
            g->devsz[i] = g->devsz[g->ndev];
            return;
        }
}

static void gx_free(struct gx *g)
{
    for (int i = 0; i < g->ntex; i++)
        cudaDestroyTextureObject(g->tex[i]);
    for (int i = 0; i < g->ndev; i++) {
        cudaFree(g->dev[i]);
        if (g->devsz[i] >= (64u << 20))
            gx_mark("  cudaFree %zu bytes", g->devsz[i]);
    }
    (void)cudaGetLastError();
    free(g->h_src);
    free(g->h_dst);
    free(g->h_lab);
}

static uint32_t gx_pow2_at_least(uint64_t x)
{
    uint32_t p = 1;
    while (p < x && p < 0x80000000u)
        p <<= 1;
    return p;
}

/* Appends the device edge buffer's contents to the host staging arrays. */
static int gx_stage_edges(struct gx *g, unsigned long long cnt, struct wx_error *err)
{
    int rc = WX_OK;
    if (g->h_n + cnt > g->h_cap) {
        size_t cap = g->h_cap ? g->h_cap : 1 << 20;
        while (cap < g->h_n + cnt)
            cap *= 2;
        unsigned long long *s = (unsigned long long *)realloc(g->h_src, cap * sizeof *s);
        if (s)
            g->h_src = s;
        unsigned long long *d = (unsigned long long *)realloc(g->h_dst, cap * sizeof *d);
        if (d)
            g->h_dst = d;
        uint32_t *l = (uint32_t *)realloc(g->h_lab, cap * sizeof *l);
        if (l)
            g->h_lab = l;
        if (!s || !d || !l)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory staging %llu edges",
                           (unsigned long long)(g->h_n + cnt));
        g->h_cap = cap;
    }
    CK(cudaMemcpy(g->h_src + g->h_n, g->p.e_src, cnt * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g->h_dst + g->h_n, g->p.e_dst, cnt * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g->h_lab + g->h_n, g->p.e_lab, cnt * 4, cudaMemcpyDeviceToHost));
    g->h_n += cnt;
out:
    return rc;
}

/* rank -> id with the initial state first */
static uint64_t gx_id_of_rank(uint64_t r, uint64_t r0)
{
    return r == r0 ? 0 : (r == 0 ? r0 : r);
}

/* Id of one slot (host side, through the prefix array). */
static int gx_slot_id(struct gx *g, uint64_t slot, uint64_t r0, uint64_t *id, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t bk = slot / g->p.spb;
    unsigned long long pre = 0;
    CK(cudaMemcpy(&pre, g->d_prefix + bk, 8, cudaMemcpyDeviceToHost));
    *id = gx_id_of_rank(pre + (slot - bk * g->p.spb), r0);
out:
    return rc;
}

/* Reads the words of a stored vector (flag stripped) into v (img words). */
static int gx_slot_vector(struct gx *g, uint64_t slot, uint32_t words, uint32_t *v, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t bk = slot / g->p.spb;
    const uint32_t *src = g->p.table + bk * g->p.bw + (slot - bk * g->p.spb) * g->p.sw;
    CK(cudaMemcpy(v, src, (size_t)words * 4, cudaMemcpyDeviceToHost));
    if (words == g->p.sw)
        v[words - 1] &= GPU_LOW31;
out:
    return rc;
}

/* Emits edges (already mapped to ids) to the sink in batches. */
static int gx_emit(const struct explore_options *opt, const unsigned long long *src, const unsigned long long *dst,
                   const uint32_t *lab, size_t n, struct wx_error *err)
{
    enum { BATCH = 1 << 16 };
    struct product_edge *buf = (struct product_edge *)malloc(BATCH * sizeof *buf);
    if (!buf)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory emitting edges");
    int rc = WX_OK;
    for (size_t i = 0; i < n && !rc;) {
        size_t m = n - i < BATCH ? n - i : BATCH;
        for (size_t j = 0; j < m; j++)
        {
            buf[j].src = src[i + j];
            buf[j].dst = dst[i + j];
            buf[j].label = lab[i + j];
        }
        rc = opt->sink->emit(opt->sink->ctx, buf, m, err);
        i += m;
    }
    free(buf);
    return rc;
}

/* Maps the table slots of n edges (device arrays) to dense ids in place. */
static int gx_map_edges(struct gx *g, unsigned long long *d_src, unsigned long long *d_dst, uint64_t n, uint64_t r0,
                        struct wx_error *err)
{
    int rc = WX_OK;
    if (n == 0)
        return WX_OK;
    map_slots<<<256, 256>>>(g->d_prefix, g->p.spb, r0, d_src, n);
    CK_LAUNCH("map_slots");
    map_slots<<<256, 256>>>(g->d_prefix, g->p.spb, r0, d_dst, n);
    CK_LAUNCH("map_slots");
out:
    return rc;
}

/* Downloads n edges held in device arrays (endpoints: dense ids) in
 * batches of at most 2^24 and emits them to the sink in that order.  The
 * one way edges leave the device: CSR-sorted or in the order found. */
static int gx_emit_device(const struct explore_options *opt, const unsigned long long *d_src,
                          const unsigned long long *d_dst, const uint32_t *d_lab, uint64_t n, struct wx_error *err)
{
    int rc = WX_OK;
    if (n == 0)
        return WX_OK;
    const uint64_t batch = n < (1ull << 24) ? n : (1ull << 24);
    unsigned long long *hs = (unsigned long long *)malloc(batch * 8);
    unsigned long long *hd = (unsigned long long *)malloc(batch * 8);
    uint32_t *hl = (uint32_t *)malloc(batch * 4);
    if (!hs || !hd || !hl) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory emitting edges");
        goto out;
    }
    for (uint64_t i = 0; i < n && !rc; i += batch) {
        const uint64_t m = n - i < batch ? n - i : batch;
        CK(cudaMemcpy(hs, d_src + i, m * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hd, d_dst + i, m * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hl, d_lab + i, m * 4, cudaMemcpyDeviceToHost));
        rc = gx_emit(opt, hs, hd, hl, m, err);
    }
out:
    free(hs), free(hd), free(hl);
    return rc;
}

__global__ void iota_u32(uint32_t *a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        a[i] = (uint32_t)i;
}

__global__ void permute_edges(const uint32_t *perm, const unsigned long long *dst, const uint32_t *lab,
                              unsigned long long *dst2, uint32_t *lab2, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        dst2[i] = dst[perm[i]];
        lab2[i] = lab[perm[i]];
    }
}

/* offsets[v] = the first position of source v in the sorted src[0..n), for
 * v in 0..n_states (so offsets[n_states] == n): position i fills the
 * offsets of the sources after src[i-1] up to src[i], position n the rest. */
__global__ void offsets_from_sorted(const unsigned long long *src, unsigned long long n, unsigned long long n_states,
                                    uint64_t *offsets)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i <= n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long from = i ? src[i - 1] + 1 : 0, to = i < n ? src[i] : n_states;
        for (unsigned long long v = from; v <= to && v <= n_states; v++)
            offsets[v] = i;
    }
}

__global__ void narrow_u64(const unsigned long long *a, uint32_t *b, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        b[i] = (uint32_t)a[i];
}

extern "C" void explore_device_csr_free(struct device_csr *dg)
{
    cudaFree(dg->d_offsets);
    cudaFree(dg->d_targets);
    cudaFree(dg->d_labels);
    dg->d_offsets = NULL;
    dg->d_targets = NULL;
    dg->d_labels = NULL;
    dg->n_vertices = dg->n_edges = 0;
}

extern "C" int explore_device_csr_download(const struct device_csr *dg, uint64_t *offsets, uint32_t *targets,
                                           uint32_t *labels, struct wx_error *err)
{
    int rc = gx_cuda(err, cudaMemcpy(offsets, dg->d_offsets, (dg->n_vertices + 1) * 8, cudaMemcpyDeviceToHost),
                     "device graph download");
    if (rc == WX_OK && dg->n_edges)
        rc = gx_cuda(err, cudaMemcpy(targets, dg->d_targets, dg->n_edges * 4, cudaMemcpyDeviceToHost),
                     "device graph download");
    if (rc == WX_OK && labels && dg->n_edges)
        rc = gx_cuda(err, cudaMemcpy(labels, dg->d_labels, dg->n_edges * 4, cudaMemcpyDeviceToHost),
                     "device graph download");
    return rc;
}

__global__ void gather_labels(const uint32_t *labels, const uint64_t *edges, uint64_t k, uint32_t *out)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < k; i += (uint64_t)gridDim.x * blockDim.x)
        out[i] = labels[edges[i]];
}

extern "C" int explore_device_csr_labels_at(const struct device_csr *dg, const uint64_t *edges, uint64_t k,
                                            uint32_t *labels, struct wx_error *err)
{
    uint64_t *d_e = NULL;
    uint32_t *d_l = NULL;
    int rc = WX_OK;
    for (uint64_t i = 0; i < k; i++)
        if (edges[i] >= dg->n_edges)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "edge %llu of %llu: out of range",
                           (unsigned long long)edges[i], (unsigned long long)dg->n_edges);
    if (k == 0)
        return WX_OK;
    if ((rc = gx_cuda(err, cudaMalloc(&d_e, k * 8), "edge list")) ||
        (rc = gx_cuda(err, cudaMalloc(&d_l, k * 4), "edge labels")) ||
        (rc = gx_cuda(err, cudaMemcpy(d_e, edges, k * 8, cudaMemcpyHostToDevice), "edge list")))
        goto done;
    gather_labels<<<64, 256>>>(dg->d_labels, d_e, k, d_l);
    if ((rc = gx_cuda(err, cudaGetLastError(), "launch of gather_labels")))
        goto done;
    rc = gx_cuda(err, cudaMemcpy(labels, d_l, k * 4, cudaMemcpyDeviceToHost), "edge labels");
done:
    cudaFree(d_e);
    cudaFree(d_l);
    return rc;
}

/* Edges already mapped to ids, all on the device (src, dst, lab; n of
 * them): sorted by source with CUB (CSR order); with a sink, downloaded and
 * emitted in batches; with keep_device_graph, turned into res->device_graph.
 * Returns 1 (nothing emitted, no error) when the workspace cannot be
 * allocated, so the caller emits them unsorted instead. */
static int gx_emit_csr(struct gx *g, const struct explore_options *opt, unsigned long long n, uint64_t n_states,
                       struct explore_result *res, struct wx_error *err)
{
    int rc = WX_OK;
    void *keys2 = NULL, *idx = NULL, *idx2 = NULL, *dst2 = NULL, *lab2 = NULL, *tmp = NULL;
    int bits = 1;
    while (bits < 64 && (n_states >> bits))
        bits++;
    size_t tb = 0;
    if (cub::DeviceRadixSort::SortPairs(NULL, tb, g->p.e_src, (unsigned long long *)NULL, (const uint32_t *)NULL,
                                        (uint32_t *)NULL, (long long)n, 0, bits) != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    if (cudaMalloc(&keys2, n * 8) != cudaSuccess || cudaMalloc(&idx, n * 4) != cudaSuccess ||
        cudaMalloc(&idx2, n * 4) != cudaSuccess || cudaMalloc(&dst2, n * 8) != cudaSuccess ||
        cudaMalloc(&lab2, n * 4) != cudaSuccess || cudaMalloc(&tmp, tb ? tb : 16) != cudaSuccess) {
        (void)cudaGetLastError();
        rc = 1;
        goto done;
    }
    iota_u32<<<256, 256>>>((uint32_t *)idx, n);
    if ((rc = gx_cuda(err, cudaGetLastError(), "launch of iota_u32")))
        goto done;
    if ((rc = gx_cuda(err,
                      cub::DeviceRadixSort::SortPairs(tmp, tb, g->p.e_src, (unsigned long long *)keys2,
                                                      (const uint32_t *)idx, (uint32_t *)idx2, (long long)n, 0, bits),
                      "cub::DeviceRadixSort::SortPairs")))
        goto done;
    permute_edges<<<256, 256>>>((const uint32_t *)idx2, g->p.e_dst, g->p.e_lab, (unsigned long long *)dst2,
                                (uint32_t *)lab2, n);
    if ((rc = gx_cuda(err, cudaGetLastError(), "launch of permute_edges")) ||
        (rc = gx_cuda(err, cudaDeviceSynchronize(), "edge sort")))
        goto done;
    /* the unsorted edges and the sort's workspace make room for the
     * device graph */
    cudaFree(idx), cudaFree(idx2), cudaFree(tmp);
    idx = idx2 = tmp = NULL;
    gx_release(g, g->p.e_src), gx_release(g, g->p.e_dst), gx_release(g, g->p.e_lab);
    g->p.e_src = g->p.e_dst = NULL;
    g->p.e_lab = NULL;
    if (opt->keep_device_graph) {
        struct device_csr *dg = &res->device_graph;
        if (n_states >= 0xffffffffull) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "%llu states: the GPU analyses take at most 2^32 - 2 (use --backend cpu)",
                         (unsigned long long)n_states);
            goto done;
        }
        if (cudaMalloc(&dg->d_offsets, (n_states + 1) * 8) != cudaSuccess ||
            (n && cudaMalloc(&dg->d_targets, n * 4) != cudaSuccess) ||
            (n && cudaMalloc(&dg->d_labels, n * 4) != cudaSuccess)) {
            (void)cudaGetLastError();
            explore_device_csr_free(dg);
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "no device memory to keep the graph (%llu states, %llu edges) on the GPU",
                         (unsigned long long)n_states, n);
            goto done;
        }
        offsets_from_sorted<<<256, 256>>>((const unsigned long long *)keys2, n, n_states, dg->d_offsets);
        if ((rc = gx_cuda(err, cudaGetLastError(), "launch of offsets_from_sorted")))
            goto done;
        if (n) {
            narrow_u64<<<256, 256>>>((const unsigned long long *)dst2, dg->d_targets, n);
            if ((rc = gx_cuda(err, cudaGetLastError(), "launch of narrow_u64")) ||
                (rc = gx_cuda(err, cudaMemcpy(dg->d_labels, lab2, n * 4, cudaMemcpyDeviceToDevice),
                              "device graph labels")))
                goto done;
        }
        if ((rc = gx_cuda(err, cudaDeviceSynchronize(), "device graph")))
            goto done;
        dg->n_vertices = n_states;
        dg->n_edges = n;
    }
    if (opt->sink)
        rc = gx_emit_device(opt, (const unsigned long long *)keys2, (const unsigned long long *)dst2,
                            (const uint32_t *)lab2, n, err);
done:
    cudaFree(keys2), cudaFree(idx), cudaFree(idx2), cudaFree(dst2), cudaFree(lab2), cudaFree(tmp);
    return rc;
}

/* Work-queue entries for a table of `slots` slots. */
static uint64_t gx_qcap(int level, const struct gpu_tuning *tun, uint64_t slots)
{
    uint64_t qcap;
    if (level)
        qcap = slots;
    else if (tun->queue_cap)
        qcap = tun->queue_cap;
    else
        qcap = slots / 8 > (1ull << 20) ? slots / 8 : (slots < (1ull << 20) ? slots : (1ull << 20));
    return qcap < 1 ? 1 : qcap;
}

/* (Re)allocates the table of nb buckets, cleared, and the two work queues
 * sized for it; the old ones (if any) are freed first. */
static int gx_table(struct gx *g, uint64_t nb, int level, const struct gpu_tuning *tun, struct wx_error *err)
{
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    void *d = NULL;
    if (p.table)
        gx_release(g, p.table);
    for (int i = 0; i < 2; i++)
        if (g->q[i])
            gx_release(g, g->q[i]);
    p.table = NULL;
    g->q[0] = g->q[1] = NULL;
    const uint64_t bytes = nb * p.bw * 4ull;
    if ((rc = gx_malloc(g, &d, bytes, "the state table", err)))
        return rc;
    p.table = (uint32_t *)d;
    p.nbuckets = nb;
    gx_mark("  table: cudaMalloc %llu bytes", (unsigned long long)bytes);
    CK(cudaMemset(p.table, 0xff, bytes));
    gx_mark("  table: cleared");
    {
        const uint64_t qcap = gx_qcap(level, tun, nb * p.spb);
        for (int i = 0; i < 2; i++) {
            if ((rc = gx_malloc(g, &d, qcap * 8, "work queues", err)))
                return rc;
            g->q[i] = (unsigned long long *)d;
        }
        p.q_cap = qcap;
    }
out:
    return rc;
}

/* Replaces the table by one of nb buckets (asynchronous mode without a
 * graph, between launches; see gpu_kernels.cuh, "growing the table").
 * ctl is the host's copy of the control block: the pending work is moved
 * into the new input queue (or left new for the scanners) and ctl is set
 * up for the next launch.  A kernel error (table full, ...) is left in
 * ctl->error for the caller. */
static int gx_grow(struct gx *g, uint64_t nb, int level, const struct gpu_tuning *tun, uint32_t blocks,
                   struct gpu_ctl *ctl, int *cur_out, struct gpu_run_stats *st, struct wx_error *err)
{
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    const double t0 = gx_now();
    const uint32_t sw = p.sw;
    const unsigned long long n = ctl->n_states;
    const int grid = 4 * g->prop.multiProcessorCount;
    void *dx = NULL, *df = NULL;
    uint32_t *hx = NULL;
    uint8_t *hf = NULL;
    unsigned long long gc[4] = {0, 0, 0, 0};
    CK(cudaMemcpy(g->d_ctl, ctl, sizeof *ctl, cudaMemcpyHostToDevice));
    /* 1. the pending states become new again */
    if (ctl->q_in_head < ctl->q_in_len) {
        mark_pending<<<grid, 256>>>(p, p.q_in + ctl->q_in_head, ctl->q_in_len - ctl->q_in_head);
        CK(cudaGetLastError());
    }
    {
        const unsigned long long outn = ctl->q_out_len < p.q_cap ? ctl->q_out_len : p.q_cap;
        if (outn) {
            mark_pending<<<grid, 256>>>(p, p.q_out, outn);
            CK(cudaGetLastError());
        }
    }
    if (p.saved) {
        mark_saved<<<blocks, 256>>>(p);
        CK(cudaGetLastError());
    }
    /* 2. every vector out, with its new bit */
    if ((rc = gx_malloc(g, &dx, n * sw * 4, "table growth (vectors)", err)) ||
        (rc = gx_malloc(g, &df, n, "table growth (flags)", err)))
        goto out;
    CK(cudaMemset(g->d_gc, 0, 4 * 8));
    gx_mark("  grow: pending marked, vector buffers allocated");
    compact_table<<<grid, 256>>>(p, (uint32_t *)dx, (uint8_t *)df, n, g->d_gc);
    CK_LAUNCH("compact_table");
    gx_mark("  grow: compacted %llu vectors", n);
    CK(cudaMemcpy(gc, g->d_gc, 4 * 8, cudaMemcpyDeviceToHost));
    if (gc[0] != n) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "growing the GPU table: it holds %llu vectors but %llu were counted",
                     gc[0], n);
        goto out;
    }
    {
        /* 3. the new table; the vectors wait in host memory when they do
         * not fit beside it (the last growth of a large exploration) */
        gx_release(g, p.table);
        gx_release(g, g->q[0]);
        gx_release(g, g->q[1]);
        p.table = NULL;
        g->q[0] = g->q[1] = NULL;
        gx_mark("  grow: old table freed");
        size_t fr = 0, tot = 0;
        CK(cudaMemGetInfo(&fr, &tot));
        const uint64_t need = nb * p.bw * 4ull + 2 * gx_qcap(level, tun, nb * p.spb) * 8 + (256ull << 20);
        if (fr < need || tun->grow_via_host) {
            hx = (uint32_t *)malloc(n * sw * 4 + 1);
            hf = (uint8_t *)malloc(n + 1);
            if (!hx || !hf) {
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory growing the GPU table");
                goto out;
            }
            CK(cudaMemcpy(hx, dx, n * sw * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(hf, df, n, cudaMemcpyDeviceToHost));
            gx_release(g, dx);
            gx_release(g, df);
            dx = df = NULL;
        }
        if ((rc = gx_table(g, nb, level, tun, err)))
            goto out;
        /* 4. rehash; the new states into q[0], the next input queue */
        p.q_out = g->q[0];
        CK(cudaMemset(g->d_gc, 0, 4 * 8));
        if (!hx) {
            reinsert<<<grid, 256>>>(p, (const uint32_t *)dx, (const uint8_t *)df, n, g->d_gc);
            CK_LAUNCH("reinsert");
        } else {
            uint64_t chunk = (256ull << 20) / (sw * 4 + 1);
            if (chunk > n)
                chunk = n ? n : 1;
            if ((rc = gx_malloc(g, &dx, chunk * sw * 4, "table growth (chunk)", err)) ||
                (rc = gx_malloc(g, &df, chunk, "table growth (chunk flags)", err)))
                goto out;
            for (uint64_t i = 0; i < n; i += chunk) {
                const uint64_t m = n - i < chunk ? n - i : chunk;
                CK(cudaMemcpy(dx, hx + i * sw, m * sw * 4, cudaMemcpyHostToDevice));
                CK(cudaMemcpy(df, hf + i, m, cudaMemcpyHostToDevice));
                reinsert<<<grid, 256>>>(p, (const uint32_t *)dx, (const uint8_t *)df, m, g->d_gc);
                CK_LAUNCH("reinsert");
            }
        }
        gx_mark("  grow: reinserted");
        gx_release(g, dx);
        gx_release(g, df);
        dx = df = NULL;
        gx_mark("  grow: vector buffers freed");
        unsigned long long gc2[4];
        CK(cudaMemcpy(gc2, g->d_gc, 4 * 8, cudaMemcpyDeviceToHost));
        {
            /* error and init_slot are all the kernels changed */
            struct gpu_ctl dc;
            CK(cudaMemcpy(&dc, g->d_ctl, sizeof dc, cudaMemcpyDeviceToHost));
            ctl->error = dc.error;
            ctl->stop = dc.stop;
            ctl->init_slot = dc.init_slot;
        }
        if (ctl->error)
            goto out;
        const unsigned long long pushed = gc2[2] < p.q_cap ? gc2[2] : p.q_cap;
        ctl->n_claimed = n - (gc[1] - pushed);
        ctl->q_in_len = pushed;
        ctl->q_in_head = 0;
        ctl->q_out_len = 0;
        ctl->n_saved = 0;
        p.q_in = g->q[0];
        p.q_out = g->q[1];
        *cur_out = 1;
        if (p.saved)
            CK(cudaMemset(p.saved, 0, (size_t)blocks * (p.T + 1) * 8));
    }
    st->grows++;
    st->table_slots = p.nbuckets * p.spb;
    st->table_bytes = p.nbuckets * p.bw * 4ull;
out:
    if (dx)
        gx_release(g, dx);
    if (df)
        gx_release(g, df);
    free(hx);
    free(hf);
    st->grow_seconds += gx_now() - t0;
    return rc;
}

static void *kernel_ptr(int tex, int occ2, int prof, int fast, int share)
{
    /* the fast generator reads its own tables with plain loads: no
     * texture variant; lane sharing only where some run of local moves is
     * long (its registers cost the other images a few per cent) */
    if (fast && share) {
        if (prof)
            return occ2 ? (void *)explore_tile<false, true, true, true, true>
                        : (void *)explore_tile<false, false, true, true, true>;
        return occ2 ? (void *)explore_tile<false, true, false, true, true>
                    : (void *)explore_tile<false, false, false, true, true>;
    }
    if (fast) {
        if (prof)
            return occ2 ? (void *)explore_tile<false, true, true, true> : (void *)explore_tile<false, false, true, true>;
        return occ2 ? (void *)explore_tile<false, true, false, true> : (void *)explore_tile<false, false, false, true>;
    }
    if (prof) {
        if (tex)
            return occ2 ? (void *)explore_tile<true, true, true, false> : (void *)explore_tile<true, false, true, false>;
        return occ2 ? (void *)explore_tile<false, true, true, false> : (void *)explore_tile<false, false, true, false>;
    }
    if (tex)
        return occ2 ? (void *)explore_tile<true, true, false, false> : (void *)explore_tile<true, false, false, false>;
    return occ2 ? (void *)explore_tile<false, true, false, false> : (void *)explore_tile<false, false, false, false>;
}

extern "C" int explore_gpu_tuned(const struct image *img, const struct explore_options *opt_in,
                                 const struct gpu_tuning *tun_in, struct explore_result *res,
                                 struct gpu_run_stats *stats, struct wx_error *err)
{
    static const struct explore_options no_opt = {};
    static const struct gpu_tuning no_tun = {-1, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0};
    const struct explore_options *opt = opt_in ? opt_in : &no_opt;
    const struct gpu_tuning *tun = tun_in ? tun_in : &no_tun;
    const double t0 = gx_now();
    if (gx_tl_on < 0) {
        const char *tl = getenv("WARPEX_GPU_TIMELINE");
        gx_tl_on = tl && *tl && strcmp(tl, "0") != 0;
    }
    gx_tl_t0 = t0;
    gx_mark0("start");
    struct gx gxs;
    struct gx *g = &gxs;
    memset(g, 0, sizeof *g);
    struct gx_fast_host fh;
    memset(&fh, 0, sizeof fh);
    struct gpu_params &p = g->p;
    struct gpu_ctl ctl;
    memset(&ctl, 0, sizeof ctl);
    memset(res, 0, sizeof *res);
    res->backend = "gpu";
    struct gpu_run_stats st;
    memset(&st, 0, sizeof st);
    int rc = WX_OK;
    cudaEvent_t ev0 = NULL, ev1 = NULL;

    /* input errors first, so they read the same with or without a GPU */
    if ((rc = succ_check_image(img, err)))
        return rc;
    if (img->probabilistic) /* as explore_seq: the product is an MDP */
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "probabilistic network: its product is an MDP, "
                       "explored by the CPU MDP explorer (explorer/explore_mdp.h), not by the GPU explorer");
    int ndevices = 0;
    if (cudaGetDeviceCount(&ndevices) != cudaSuccess || ndevices <= 0) {
        (void)cudaGetLastError();
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "no CUDA device: --backend gpu is unavailable here");
    }
    gx_mark0("cudaGetDeviceCount");
    /* Host work that needs no device comes before the first call that
     * waits for the CUDA context: the CLI creates the context on a thread
     * while the front end runs, and where the front end is quick (the
     * families: 1 ms) that wait is 60-80 ms (H100), in which the successor
     * bound and the fast generator's tables (abp d=4000: 18 ms) are free. */
    int fast_eligible, fast_built;
    uint64_t bound0;
    if (tun->generator < 0 || tun->generator > 3) {
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0,
                     "GPU generator must be 0 (default), 1 (fast), 2 (general) or 3 (fast, anchored rules), not %d",
                     tun->generator);
        goto out;
    }
    if (tun->group_size && (tun->group_size > 32 || (tun->group_size & (tun->group_size - 1)))) {
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "GPU group size must be a power of two <= 32, not %u",
                     tun->group_size);
        goto out;
    }
    bound0 = gx_successor_bound(img);
    /* the fast generator (one thread per state) unless a group size or the
     * general generator is asked for */
    fast_eligible = gx_fast_eligible(img);
    fast_built = fast_eligible &&
                 (tun->generator == 1 || tun->generator == 3 || (tun->generator == 0 && tun->group_size <= 1)) &&
                 gx_fast_build(img, &fh, tun->generator == 3) == WX_OK;
    gx_mark0("successor bound, fast generator tables");
    CK(cudaSetDevice(0));
    gx_mark0("cudaSetDevice (waits for the context)");
    CK(cudaGetDeviceProperties(&g->prop, 0));
    gx_mark0("cudaGetDeviceProperties");
    if (g->prop.major < 9)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "CUDA device %s is sm_%d%d; this warpex is built for sm_90",
                       g->prop.name, g->prop.major, g->prop.minor);
    memcpy(res->device, g->prop.name, sizeof res->device - 1);
    res->device[sizeof res->device - 1] = '\0';

    {
        /* ---- layout ---- */
        const uint32_t n = img->n_comps, W = img->words;
        const int props = opt->trace || opt->stop_on_deadlock || opt->action_match;
        const int want_graph = opt->sink != NULL || opt->keep_device_graph;
        const int level = props || tun->level_sync == 1;
        const int need_ids = opt->keep_vectors || want_graph || props;
        /* Can the last data word reach the control codes?  Bound it by the
         * fields it holds (each at most its bit length of ones). */
        uint64_t maxlast = 0;
        const uint32_t lo = 32 * (W - 1);
        for (uint32_t c = 0; c < n; c++) {
            const uint32_t fb = img->first_bit[c], fe = img->first_bit[c + 1];
            if (fe <= lo || fe == fb)
                continue;
            uint64_t mx = 1;
            while (mx < img->comp_states[c])
                mx <<= 1;
            mx -= 1;
            maxlast |= fb >= lo ? mx << (fb - lo) : mx >> (lo - fb);
        }
        uint32_t SW = maxlast > 0x7ffffffdull ? W + 1 : W;
        /* One-shot inserts take slots of 4, 8 or 16 bytes: three-word
         * vectors get an all-zero fourth word as their control word, so
         * that table and cache install them with one 128-bit CAS instead of
         * reserve/write/publish (bench/RESULTS.md, tenth session) */
        const int oneshot_wide = (tun->insert_protocol == 0 || tun->insert_protocol == 1) && GX_ONESHOT_WIDE &&
                                 !(opt->gpu.compact_slots && SW == 3);
        if (SW == 3 && oneshot_wide)
            SW = 4;
        p.sw = SW;
        p.lines = SW <= 32 ? 1 : (SW + 31) / 32;
        p.bw = 32 * p.lines;
        p.spb = SW <= 32 ? 32 / SW : 1;
        p.probe_bound = opt->gpu.probe_bound ? opt->gpu.probe_bound : GX_PROBE_BOUND;
        p.level_mode = level;
        p.stop_on_deadlock = opt->stop_on_deadlock;
        p.record_only = opt->finish_after_violation;
        p.want_edges = want_graph;
        p.scan_chunk = GX_SCAN_CHUNK;
        p.oneshot = (SW <= 2 && (tun->insert_protocol == 1 ||
                                  ((tun->insert_protocol == 0 || tun->insert_protocol == 3) && GX_ONESHOT))) ||
                    (SW == 4 && oneshot_wide);
        st.oneshot = (int)p.oneshot;
        p.thread_rwp = !p.oneshot && SW <= 32 && tun->insert_protocol != 3;
        p.prof = tun->profile == 1;

        uint64_t bound = bound0; /* the fast generator's tables may lower it */
        /* fewer threads per state than components (each then handles
         * several) measured faster: more states in flight per block */
        uint32_t G = gx_pow2_at_least(n ? n : 1);
        if (G > GX_MAX_GROUP)
            G = GX_MAX_GROUP;
        if (tun->group_size)
            G = tun->group_size;
        st.fast_eligible = fast_eligible;
        if (fast_built) {
            p.fast = 1;
            G = 1;
            if (fh.bound < bound)
                bound = fh.bound;
        }
        st.fast_anchored = (int)fh.anchored;
        st.fast_gen = (int)p.fast;
        p.G = G;
        p.log2G = 0;
        while ((1u << p.log2G) < G)
            p.log2G++;
        uint32_t threads = opt->gpu.threads ? opt->gpu.threads : p.fast ? GX_FAST_THREADS : (SW > 32 ? 128 : GX_THREADS);
        /* The sets hold twice the successors of the states that use them:
         * every state when a graph is recorded (its edges come from the
         * set), else with the fast generator only those it cannot prove
         * duplicate-free (fast_state.dedup), whose bound may be far lower
         * (gx_fast_anchor; abp d=4000: its states with 4 000 successors
         * never use the set).  A state past its set fails loudly
         * (GPU_ERR_DEDUPE), never miscounts. */
        const uint64_t set_bound = p.fast && !want_graph && fh.set_bound < bound ? fh.set_bound : bound;
        uint32_t D = 16;
        while (D < 2 * set_bound && D < GX_MAX_DEDUPE)
            D *= 2;
        if (p.fast && !opt->gpu.threads) {
            /* One successor set of D entries (20 bytes each with its list)
             * per state in flight: with one state per thread, images whose
             * successor bound is large would need tens of gigabytes of
             * sets, so fewer threads per block when they would pass a
             * GX_FAST_SET_SHARE-th of the device memory (down to 64 = the
             * states in flight of the general generator's default groups
             * of 8). */
            const uint64_t sms = (uint64_t)g->prop.multiProcessorCount;
            while (threads > 64 && 2 * sms * threads * D * 20 > g->prop.totalGlobalMem / GX_FAST_SET_SHARE)
                threads /= 2;
        }
        if (threads % 32 || threads > GPU_MAX_THREADS || threads < 32) {
            rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "GPU threads per block must be a multiple of 32 in 32..%u, not %u",
                         GPU_MAX_THREADS, threads);
            goto out;
        }
        const uint32_t T = threads / G;
        p.T = T;
        p.D = D;

        /* ---- shared memory ---- */
        const int use_tex_req = opt->gpu.use_textures != 0; /* -1 default: textures */
        int use_tex = use_tex_req;
        {
            int lim_attr = 0;
            CK(cudaDeviceGetAttribute(&lim_attr, cudaDevAttrMaxTexture1DLinearWidth, 0));
            const size_t lim = (size_t)lim_attr;
            const size_t big = (size_t)img->n_entries > img->proc_offsets[n] ? img->n_entries : img->proc_offsets[n];
            if (big + 1 > lim || (size_t)img->n_rules * img->mask_words + 1 > lim)
                use_tex = 0;
        }
        st.textures = use_tex && !p.fast;
        cudaFuncAttributes fa;
        const int occ2 = tun->occupancy2 == 1 || (tun->occupancy2 < 0 && GX_OCC2);
        st.occupancy2 = occ2;
        gx_mark("layout");
        CK(cudaFuncGetAttributes(&fa, kernel_ptr(use_tex, occ2, (int)p.prof, (int)p.fast, (int)fh.share)));
        gx_mark("cudaFuncGetAttributes (module load)");
        const uint32_t bps = tun->blocks_per_sm ? tun->blocks_per_sm : 2;
        size_t budget = g->prop.sharedMemPerMultiprocessor / bps;
        budget = budget > g->prop.reservedSharedMemPerBlock ? budget - g->prop.reservedSharedMemPerBlock : 0;
        budget = budget > fa.sharedSizeBytes ? budget - fa.sharedSizeBytes : 0;
        if (budget > g->prop.sharedMemPerBlockOptin - fa.sharedSizeBytes)
            budget = g->prop.sharedMemPerBlockOptin - fa.sharedSizeBytes;
        budget &= ~(size_t)15;
        size_t off = 0;
#define SEG(field, bytes)                                                                          \
    do {                                                                                           \
        field = (uint32_t)off;                                                                     \
        off += ((size_t)(bytes) + 15) & ~(size_t)15;                                               \
    } while (0)
        SEG(p.off_tile_vec[0], (size_t)T * SW * 4);
        SEG(p.off_tile_vec[1], (size_t)T * SW * 4);
        SEG(p.off_tile_slot[0], (size_t)T * 8);
        SEG(p.off_tile_slot[1], (size_t)T * 8);
        SEG(p.off_scratch, (size_t)threads * SW * 4);
        SEG(p.off_grp_n, (size_t)T * 4);
        /* successor set: D pairs of 16 bytes and its entry list of D words */
        const size_t grp_bytes = p.fast ? 0 : (size_t)T * n * 16, ded_bytes = (size_t)T * D * 20;
        /* a cache row: the vector, its global slot where edges or an action
         * violation will look it up, its parent and label with traces.
         * Plain exploration keeps the vector alone, so more rows fit: with
         * 512 threads, milner n=22 and tokenring n=21 (3 words) 7 238 rows
         * instead of 3 102, philosophers n=12 (2 words) 11 626 instead of
         * 3 875, and the successors sent straight to the table fell from
         * 633 M to 34 M, 499 M to 23 M and 212 M to 0.06 M: kernels 10-12 %
         * faster (H100, 2026-11-27, bench/RESULTS.md).  The flush scans
         * every row, though, and one-word vectors lose: buffers n=27 got
         * 24 788 rows and 27 % slower kernels for 15.7 M fewer direct
         * inserts, so they keep the row count of the full layout
         * (count_bytes) */
        p.cache_gslot = want_graph || opt->action_match != NULL;
        const size_t row_bytes = (size_t)SW * 4 + (p.cache_gslot ? 8 : 0) + (opt->trace ? 8 : 0);
        const size_t count_bytes = SW == 1 ? (size_t)SW * 4 + 16 : row_bytes;
        const size_t min_cache = GX_MIN_CACHE * row_bytes + 64;
        p.dedupe_global = off + grp_bytes + ded_bytes + min_cache > budget || ded_bytes > budget / 3;
        p.grpbuf_global = off + grp_bytes + (p.dedupe_global ? 0 : ded_bytes) + min_cache > budget;
        if (!p.grpbuf_global)
            SEG(p.off_grpbuf, grp_bytes);
        if (!p.dedupe_global) {
            SEG(p.off_dedupe, (size_t)T * D * 16);
            SEG(p.off_dedlist, (size_t)T * D * 4);
        }
        if (off + min_cache > budget) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "vectors of %u words need more shared memory than a block has with %u threads: use fewer threads",
                         SW, threads);
            goto out;
        }
        uint64_t C = (budget - off - 64) / count_bytes;
        if (tun->cache_slots && tun->cache_slots < C)
            C = tun->cache_slots;
        if (C < 1)
            C = 1;
        p.C = (uint32_t)C;
        p.cache_probes = tun->cache_probes ? tun->cache_probes
                         : p.oneshot && SW == 4 ? GX_CACHE_PROBES_WIDE
                                                : GX_CACHE_PROBES;
        SEG(p.off_cache, C * SW * 4);
        SEG(p.off_cache_gslot, p.cache_gslot ? C * 8 : 0);
        SEG(p.off_cache_par, opt->trace ? C * 4 : 0);
        SEG(p.off_cache_lab, opt->trace ? C * 4 : 0);
#undef SEG
        const size_t smem = off;
        void *kern = kernel_ptr(use_tex, occ2, (int)p.prof, (int)p.fast, (int)fh.share);
        CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        int nb = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kern, (int)threads, smem));
        if (nb <= 0) {
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                         "the exploration kernel cannot run with %u threads and %zu bytes of shared memory per block "
                         "(registers %d, static shared %zu)",
                         threads, smem, fa.numRegs, (size_t)fa.sharedSizeBytes);
            goto out;
        }
        if (tun->blocks_per_sm && (uint32_t)nb > tun->blocks_per_sm)
            nb = (int)tun->blocks_per_sm;
        const uint32_t blocks = opt->gpu.blocks ? opt->gpu.blocks : (uint32_t)nb * g->prop.multiProcessorCount;
        st.blocks = blocks;
        st.threads = threads;
        st.smem_bytes = (uint32_t)smem;
        st.cache_slots = p.C;
        st.dedupe_slots = D;
        st.group_size = G;
        st.slot_words = SW;
        st.level_sync = level;

        gx_mark("shared memory plan, occupancy");
        /* ---- upload the image ---- */
        struct gpu_image &gi = p.img;
        gi.n_comps = n;
        gi.words = W;
        gi.act_bits = img->act_bits;
        gi.mask_words = img->mask_words;
        gi.n_labels = img->n_labels;
        gi.n_classes = img->n_classes;
        void *d;
        if ((rc = gx_upload(g, &d, img->proc_offsets, (n + 1) * 4ull, "proc_offsets", err)))
            goto out;
        gi.proc_off = (const uint32_t *)d;
        if ((rc = gx_upload(g, &d, img->state_offsets, img->proc_offsets[n] * 4ull, "state_offsets", err)))
            goto out;
        gi.state_off = (const uint32_t *)d;
        if ((rc = gx_upload(g, &d, img->first_bit, (n + 1) * 4ull, "first_bit", err)))
            goto out;
        gi.first_bit = (const uint32_t *)d;
        if ((rc = gx_upload(g, &d, img->state_bits, n * 4ull, "state_bits", err)))
            goto out;
        gi.state_bits = (const uint32_t *)d;
        if ((rc = gx_upload(g, &d, img->class_rule_start, img->n_classes ? (img->n_classes + 1) * 4ull : 0,
                            "class_rule_start", err)))
            goto out;
        gi.class_rule_start = (const uint32_t *)d;
        if ((rc = gx_upload(g, &d, img->class_result, img->n_classes * 4ull, "class_result", err)))
            goto out;
        gi.class_result = (const uint32_t *)d;
        if ((rc = gx_upload(g, &d, img->rule_mask, (size_t)img->n_rules * img->mask_words * 4, "rule_mask", err)))
            goto out;
        gi.rule_mask = (const uint32_t *)d;
        if ((rc = gx_upload(g, &d, img->trans, (size_t)img->n_entries * 8, "transition entries", err)))
            goto out;
        gi.trans = (const uint2 *)d;
        if (p.fast) {
            struct gpu_fast &fx = p.fx;
            const size_t dw = fh.dw;
            if ((rc = gx_upload(g, &d, fh.comp, n * sizeof(uint4), "fast generator: components", err)))
                goto out;
            fx.comp = (const uint4 *)d;
            if ((rc = gx_upload(g, &d, fh.seg, (fh.nseg + 1) * sizeof(gpu_fseg), "fast generator: segments", err)))
                goto out;
            fx.seg = (const gpu_fseg *)d;
            if ((rc = gx_upload(g, &d, fh.loc_lab, (fh.nloc + 1) * 4, "fast generator: local labels", err)))
                goto out;
            fx.loc_lab = (const uint32_t *)d;
            if ((rc = gx_upload(g, &d, fh.loc_d, (fh.nloc + 1) * dw * 8, "fast generator: local deltas", err)))
                goto out;
            fx.loc_d = (const unsigned long long *)d;
            if ((rc = gx_upload(g, &d, fh.grp, (fh.ngrp + 1) * sizeof(uint4), "fast generator: groups", err)))
                goto out;
            fx.grp = (const uint4 *)d;
            if ((rc = gx_upload(g, &d, fh.d, (fh.nsync + 1) * dw * 8, "fast generator: sync deltas", err)))
                goto out;
            fx.d = (const unsigned long long *)d;
            if ((rc = gx_upload(g, &d, fh.rmask, (fh.nrules + 1) * 8, "fast generator: rule masks", err)))
                goto out;
            fx.rmask = (const unsigned long long *)d;
            if ((rc = gx_upload(g, &d, fh.rinfo, (fh.nrules + 1) * sizeof(uint2), "fast generator: rules", err)))
                goto out;
            fx.rinfo = (const uint2 *)d;
            if ((rc = gx_upload(g, &d, fh.arule, (fh.narule + 1) * 4, "fast generator: anchored rules", err)))
                goto out;
            fx.arule = (const uint32_t *)d;
            gx_fast_scalars(&fh, &fx);
        }
        if (opt->action_match) {
            if ((rc = gx_upload(g, &d, opt->action_match, img->n_labels, "action flags", err)))
                goto out;
            gi.action = (const uint8_t *)d;
        }
        if (use_tex) {
            if ((rc = gx_texture(g, &gi.t_proc_off, gi.proc_off, n + 1, 0, err)) ||
                (rc = gx_texture(g, &gi.t_state_off, gi.state_off, img->proc_offsets[n], 0, err)) ||
                (rc = gx_texture(g, &gi.t_first_bit, gi.first_bit, n + 1, 0, err)) ||
                (rc = gx_texture(g, &gi.t_state_bits, gi.state_bits, n, 0, err)) ||
                (rc = gx_texture(g, &gi.t_class_rule_start, gi.class_rule_start, img->n_classes + 1, 0, err)) ||
                (rc = gx_texture(g, &gi.t_class_result, gi.class_result, img->n_classes, 0, err)) ||
                (rc = gx_texture(g, &gi.t_rule_mask, gi.rule_mask, (size_t)img->n_rules * img->mask_words, 0, err)) ||
                (rc = gx_texture(g, &gi.t_trans, gi.trans, img->n_entries, 1, err)))
                goto out;
        }

        gx_mark("image uploaded");
        /* ---- fixed allocations ---- */
        if ((rc = gx_malloc(g, &d, sizeof(struct gpu_ctl), "control block", err)))
            goto out;
        g->d_ctl = (struct gpu_ctl *)d;
        p.ctl = g->d_ctl;
        if (!level) {
            if ((rc = gx_malloc(g, &d, (size_t)blocks * (T + 1) * 8, "saved tiles", err)))
                goto out;
            p.saved = (unsigned long long *)d;
            CK(cudaMemset(p.saved, 0, (size_t)blocks * (T + 1) * 8));
        }
        if (p.grpbuf_global) {
            if ((rc = gx_malloc(g, &d, (size_t)blocks * T * n * 16, "group buffers", err)))
                goto out;
            p.grpbuf_g = (uint32_t *)d;
        }
        if (p.dedupe_global) {
            /* empty once here; every iteration empties what it used */
            if ((rc = gx_malloc(g, &d, (size_t)blocks * T * D * 16, "successor sets", err)))
                goto out;
            p.dedupe_g = d;
            CK(cudaMemset(p.dedupe_g, 0xff, (size_t)blocks * T * D * 16));
            if ((rc = gx_malloc(g, &d, (size_t)blocks * T * D * 4, "successor lists", err)))
                goto out;
            p.dedlist_g = (uint32_t *)d;
        }
        gx_mark("fixed allocations (saved tiles %zu B, successor sets %s)", (size_t)blocks * (T + 1) * 8,
                p.dedupe_global ? "global" : "shared");
        size_t freeb = 0, totalb = 0;
        CK(cudaMemGetInfo(&freeb, &totalb));
        gx_mark("cudaMemGetInfo: free %zu", freeb);
        if (want_graph) {
            /* One iteration of all blocks writes at most per_iter = blocks *
             * T * min(bound, D) edges (D bounds a state's distinct
             * successors, or the exploration fails with GPU_ERR_DEDUPE
             * first).  The buffer holds at least one such iteration; a
             * block starts an iteration only while e_fill <= e_guard =
             * e_cap - per_iter (the guard in explore_tile, which proves
             * that the buffer cannot overflow), and the host stages the
             * buffer before a launch when e_fill > e_guard.
             * Size: 20 bytes an edge; the default is 1/50 of the free
             * memory in entries (40 % of it), so that after the
             * exploration, with the table released, the edges and the CSR
             * sort's workspace (28 bytes an edge) fit together and a graph
             * of up to ~1.5 10^9 edges on an 80 GB device is never staged
             * through host memory. */
            const uint64_t per_state = bound < D ? (bound ? bound : 1) : D;
            const uint64_t min_cap = (uint64_t)blocks * T * per_state;
            uint64_t ec = freeb / 50;
            if (opt->gpu.hash_bytes) {
                /* a table of a given size comes first: the edges get what
                 * it leaves (less the slack), 20 bytes each */
                const uint64_t want = opt->gpu.hash_bytes + GX_SLACK;
                const uint64_t left = freeb > want ? (freeb - want) / 20 : 0;
                if (left < ec)
                    ec = left;
            }
            if (ec > 0x7ffffff0ull)
                ec = 0x7ffffff0ull; /* CUB sorts count items in int */
            if (tun->edge_cap)
                ec = tun->edge_cap;
            if (ec < min_cap)
                ec = min_cap;
            p.e_cap = ec;
            if ((rc = gx_malloc(g, &d, ec * 8, "edge sources", err)))
                goto out;
            p.e_src = (unsigned long long *)d;
            if ((rc = gx_malloc(g, &d, ec * 8, "edge targets", err)))
                goto out;
            p.e_dst = (unsigned long long *)d;
            if ((rc = gx_malloc(g, &d, ec * 4, "edge labels", err)))
                goto out;
            p.e_lab = (uint32_t *)d;
            CK(cudaMemGetInfo(&freeb, &totalb));
        }

        /* ---- table, queues, parents: sized together ---- */
        const uint64_t bucket_bytes = (uint64_t)p.bw * 4;
        const uint64_t per_bucket = bucket_bytes + p.spb * ((opt->trace ? 12 : 0) + (level ? 16 : 2)) +
                                    (need_ids ? 8 : 0);
        uint64_t nbuckets;
        if (opt->gpu.hash_bytes) {
            nbuckets = opt->gpu.hash_bytes / bucket_bytes;
        } else {
            uint64_t avail = freeb > GX_SLACK + freeb / 20 ? freeb - GX_SLACK - freeb / 20 : freeb / 2;
            if (opt->memory_bytes && opt->memory_bytes < avail)
                avail = opt->memory_bytes;
            nbuckets = avail / per_bucket;
        }
        if (nbuckets < 1) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "GPU hash table of %llu bytes holds no bucket of %llu bytes",
                         (unsigned long long)opt->gpu.hash_bytes, (unsigned long long)bucket_bytes);
            goto out;
        }
        if (nbuckets > 0x7fffff00ull)
            nbuckets = 0x7fffff00ull; /* CUB scans count items in int */
        /* Growing table.  Allocating and clearing all free memory costs
         * 0.1-0.4 s, more than exploring 10^7 states takes.  In the
         * asynchronous mode without a graph only the table and the work
         * lists hold slot numbers, so the table can start small and be
         * replaced by one 8x larger (gx_grow: compact, rehash) whenever
         * the next launch could take it past a quarter full, up to the
         * size computed above (nb_max).  A table that would pass nb_max / 4
         * is nb_max at once: every table before the last is at most a
         * quarter of the limit, so the copied-out vectors (at most its
         * size) always fit beside it, and the last growth starts from at
         * most a quarter-full quarter, whose vectors nearly always fit in
         * the slack beside the largest table (else they wait in host
         * memory, gx_grow).  A growing table that fills within
         * one launch restarts the exploration with nb_max (exact, just
         * slower).  A fixed size (hash_bytes), traces, properties and the
         * graph use nb_max from the start. */
        const uint64_t nb_max = nbuckets;
        uint64_t nb_cur = nb_max;
        int growing = 0;

        st.table_max_bytes = nb_max * bucket_bytes;
        uint64_t grow_from = tun->grow_from;
        int default_size = 0;
        if (!grow_from) {
            /* benchmarks may override the default from the environment */
            const char *e = getenv("WARPEX_GPU_GROW_FROM");
            if (!(e && *e)) {
                grow_from = GX_GROW_FROM, default_size = 1;
                const uint64_t by_slots = (GX_GROW_FROM_SLOTS + p.spb - 1) / p.spb * bucket_bytes;
                if (by_slots > grow_from)
                    grow_from = by_slots;
            } else if (!strcmp(e, "none")) {
                grow_from = ~0ull;
            } else if (wx_parse_size(e, &grow_from) || grow_from == 0) {
                rc = wx_fail(err, WX_EINPUT, NULL, 0, 0,
                             "WARPEX_GPU_GROW_FROM must be a size (e.g. 16G) or none, not '%s'", e);
                goto out;
            }
        }
        if (!level && !want_graph && !opt->gpu.hash_bytes && grow_from != ~0ull) {
            uint64_t nb0 = grow_from / bucket_bytes;
            /* the default at most a quarter of the limit, so that it still
             * grows where less memory is free (a MIG slice, a shared card)
             * instead of clearing all of it at once; on an 80 GB card the
             * quarter is 13-17 GB, above the default */
            if (default_size && nb0 > nb_max / 4)
                nb0 = nb_max / 4;
            if (nb0 < 1)
                nb0 = 1;
            if (nb0 <= nb_max / 4) {
                nb_cur = nb0;
                growing = 1;
            }
        }
        if ((rc = gx_malloc(g, &d, 4 * 8, "growth counters", err)))
            goto out;
        g->d_gc = (unsigned long long *)d;
        if (opt->trace) {
            if ((rc = gx_malloc(g, &d, nb_max * p.spb * 8, "parent links", err)))
                goto out;
            p.parent = (unsigned long long *)d;
            if ((rc = gx_malloc(g, &d, nb_max * p.spb * 4, "parent labels", err)))
                goto out;
            p.parent_label = (uint32_t *)d;
        }

        uint32_t iters = opt->gpu.iterations ? opt->gpu.iterations : (level ? 0 : GX_ITERATIONS);
        if (want_graph) {
            const uint64_t per_iter = (uint64_t)blocks * T * (bound < D ? (bound ? bound : 1) : D);
            p.e_guard = p.e_cap - per_iter; /* e_cap >= per_iter above */
        }
        st.edge_cap = p.e_cap;
        p.iterations = iters;
        p.end_blocks = level ? 0 : (blocks * GX_END_SHARE / 4 ? blocks * GX_END_SHARE / 4 : 1);
        p.q_grab = T;
        st.iters_per_launch = iters;
        CK(cudaEventCreate(&ev0));
        CK(cudaEventCreate(&ev1));

        gx_mark("table plan: %llu buckets now, %llu at most (%llu bytes)", (unsigned long long)nb_cur,
                (unsigned long long)nb_max, (unsigned long long)(nb_max * bucket_bytes));
    restart:
        /* ---- the table (again, after a restart) and the initial state ---- */
        if ((rc = gx_table(g, nb_cur, level, tun, err)))
            goto out;
        gx_mark("table allocated and cleared");
        st.table_slots = p.nbuckets * p.spb;
        st.table_bytes = p.nbuckets * bucket_bytes;
        memset(&ctl, 0, sizeof ctl);
        if (p.saved)
            CK(cudaMemset(p.saved, 0, (size_t)blocks * (T + 1) * 8));
        p.q_out = g->q[0];
        p.q_in = g->q[1];
        CK(cudaMemset(g->d_ctl, 0, sizeof ctl));
        insert_initial<<<1, 32>>>(p);
        CK_LAUNCH("insert_initial");
        CK(cudaMemcpy(&ctl, g->d_ctl, sizeof ctl, cudaMemcpyDeviceToHost));
        gx_mark("initial state");
        if (ctl.error) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "GPU hash table too small for the initial state");
            goto out;
        }

        /* ---- launches ---- */
        int cur_out = 0;
        uint64_t q_in_len = 0; /* swap: the initial state becomes the input */
        unsigned long long last_progress_key[2] = {~0ull, ~0ull};
        unsigned long long last_states = 0;
        int stalls = 0;
        uint32_t depth = 0;
        double next_progress = gx_now() + 1.0;
        /* First swap. */
        q_in_len = ctl.q_out_len;
        ctl.q_out_len = 0;
        ctl.q_in_len = q_in_len;
        ctl.q_in_head = 0;
        cur_out = 1;
        p.q_in = g->q[0];
        p.q_out = g->q[1];
        if (st.setup_seconds == 0)
            st.setup_seconds = gx_now() - t0;
        for (;;) {
            if (growing) {
                /* the next launch may add as many states as the last one:
                 * keep the table at most a quarter full */
                const unsigned long long delta = ctl.n_states - last_states;
                const uint64_t want = 4 * (ctl.n_states + 2 * delta);
                if (want > p.nbuckets * p.spb) {
                    uint64_t nb = p.nbuckets;
                    while (nb < nb_max && want > nb * p.spb)
                        nb = nb * 8 <= nb_max / 4 ? nb * 8 : nb_max;
                    gx_mark("grow to %llu buckets at %llu states: start", (unsigned long long)nb, ctl.n_states);
                    if ((rc = gx_grow(g, nb, level, tun, blocks, &ctl, &cur_out, &st, err)))
                        goto out;
                    gx_mark("grow: done");
                    if (ctl.error)
                        break;
                    growing = p.nbuckets < nb_max;
                }
            }
            last_states = ctl.n_states;
            ctl.scan_enabled = !level && ctl.n_states > ctl.n_claimed;
            ctl.scan_cursor = 0;
            ctl.n_saved = 0;
            ctl.blocks_done = 0;
            if (!level) {
                /* a short input queue is shared out over the blocks, not
                 * taken a whole tile at a time by the first few */
                const uint64_t pending = ctl.q_in_len > ctl.q_in_head ? ctl.q_in_len - ctl.q_in_head : 0;
                const uint64_t share = (pending + blocks - 1) / blocks;
                p.q_grab = share == 0 ? 1u : share < T ? (uint32_t)share : T;
            }
            if (ctl.scan_enabled)
                st.scans++;
            CK(cudaMemcpy(g->d_ctl, &ctl, sizeof ctl, cudaMemcpyHostToDevice));
            CK(cudaEventRecord(ev0));
            {
                void *args[] = {&p};
                if ((rc = gx_cuda(err, cudaLaunchKernel(kern, dim3(blocks), dim3(threads), args, smem, 0),
                                  "cudaLaunchKernel(explore_tile)")))
                    goto out;
            }
            if ((rc = gx_cuda(err, cudaGetLastError(), "launch of explore_tile")))
                goto out;
            CK(cudaEventRecord(ev1));
            CK(cudaEventSynchronize(ev1));
            if ((rc = gx_cuda(err, cudaDeviceSynchronize(), "explore_tile")))
                goto out;
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, ev0, ev1));
            st.kernel_seconds += ms * 1e-3;
            st.launches++;
            CK(cudaMemcpy(&ctl, g->d_ctl, sizeof ctl, cudaMemcpyDeviceToHost));
            gx_mark("launch %llu: kernel %.3f ms, states %llu, claimed %llu, expanded %llu", st.launches, ms,
                    ctl.n_states, ctl.n_claimed, ctl.n_expanded);
            if (ctl.error == GPU_ERR_TABLE_FULL && growing) {
                /* a growing table filled within one launch: the launch's
                 * expansions are incomplete; start over with the largest
                 * table (sets and lists are emptied as at the start) */
                nb_cur = nb_max;
                growing = 0;
                st.restarts++;
                if (p.dedupe_global)
                    CK(cudaMemset(p.dedupe_g, 0xff, (size_t)blocks * T * D * 16));
                if (p.grpbuf_global)
                    CK(cudaMemset(p.grpbuf_g, 0, (size_t)blocks * T * n * 16));
                goto restart;
            }
            if (ctl.error)
                break;
            if (ctl.viol_dead_claim && !p.record_only)
                break;
            if (ctl.viol_act_claim && !opt->stop_on_deadlock && !p.record_only)
                break;
            if (want_graph && ctl.e_fill > p.e_guard) {
                const double ts = gx_now();
                if ((rc = gx_stage_edges(g, ctl.e_fill, err)))
                    goto out;
                st.staged_edges += ctl.e_fill;
                st.stage_seconds += gx_now() - ts;
                ctl.e_fill = 0;
            }
            if (ctl.q_in_head >= ctl.q_in_len) {
                /* input drained: the output becomes the input */
                if (level && ctl.viol_act_claim && !p.record_only)
                    break; /* its level is complete and has no deadlock */
                if (level && ctl.viol_act_claim && !ctl.viol_dead_claim)
                    p.stop_on_deadlock = 0; /* record_only: a deeper deadlock must not replace it */
                const uint64_t outlen = ctl.q_out_len < p.q_cap ? ctl.q_out_len : p.q_cap;
                if (level && outlen)
                    depth++;
                p.q_in = g->q[cur_out];
                p.q_out = g->q[cur_out ^ 1];
                cur_out ^= 1;
                ctl.q_in_len = outlen;
                ctl.q_in_head = 0;
                ctl.q_out_len = 0;
            }
            const uint64_t pending_q = ctl.q_in_head < ctl.q_in_len ? ctl.q_in_len - ctl.q_in_head : 0;
            if (pending_q == 0 && ctl.n_saved == 0 && ctl.n_states == ctl.n_claimed && ctl.q_out_len == 0)
                break; /* no work anywhere */
            /* A launch that changed nothing twice in a row is a bug, not a
             * state space: report it rather than spin. */
            if (ctl.n_claimed == last_progress_key[0] && ctl.n_expanded == last_progress_key[1]) {
                if (++stalls >= 3) {
                    rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                                 "GPU explorer made no progress (states %llu, claimed %llu, expanded %llu, "
                                 "queued %llu)",
                                 ctl.n_states, ctl.n_claimed, ctl.n_expanded, (unsigned long long)pending_q);
                    goto out;
                }
            } else {
                stalls = 0;
            }
            last_progress_key[0] = ctl.n_claimed;
            last_progress_key[1] = ctl.n_expanded;
            if (opt->progress && gx_now() >= next_progress) {
                struct explore_stats ps;
                memset(&ps, 0, sizeof ps);
                ps.states = ctl.n_states;
                ps.transitions = ctl.n_trans;
                ps.bytes = g->bytes;
                ps.depth = depth;
                ps.seconds = gx_now() - t0;
                opt->progress(opt->progress_ctx, &ps);
                next_progress = gx_now() + 1.0;
            }
        }

        gx_mark("launches done");
        /* ---- results ---- */
        res->states = ctl.n_states;
        res->transitions = ctl.n_trans;
        res->deadlocks = ctl.n_dead;
        res->depth = level ? depth : 0;
        res->bytes = g->peak;
        if (ctl.error) {
            const char *why = ctl.error == GPU_ERR_TABLE_FULL ? "the GPU hash table is full (probe bound exhausted)"
                              : ctl.error == GPU_ERR_DEDUPE  ? "a state has more distinct successors than the "
                                                               "per-state set holds"
                              : ctl.error == GPU_ERR_EDGES   ? "the GPU edge buffer overflowed within one launch"
                              : ctl.error == GPU_ERR_COMBOS  ? "a rule has more than 2^62 combinations in one state"
                              : ctl.error == GPU_ERR_SPIN    ? "internal error: a reserved table slot was never "
                                                               "published"
                              : ctl.error == GPU_ERR_CACHE_SPIN ? "internal error: a reserved block-cache row was "
                                                                  "never published"
                              : ctl.error == GPU_ERR_REHASH  ? "internal error: growing the table met a vector "
                                                               "twice"
                                                             : "internal GPU queue overflow";
            rc = wx_fail(err,
                         ctl.error == GPU_ERR_SPIN || ctl.error == GPU_ERR_CACHE_SPIN || ctl.error == GPU_ERR_QUEUE ||
                                 ctl.error == GPU_ERR_REHASH
                             ? WX_ESYSTEM
                             : WX_ELIMIT,
                         NULL, 0, 0, "%s after %llu states and %llu transitions (table %llu bytes, %llu slots of %u words; "
                         "per-state set %u)",
                         why, ctl.n_states, ctl.n_trans, (unsigned long long)st.table_bytes,
                         (unsigned long long)(p.nbuckets * p.spb), SW, D);
            goto out;
        }
        int violation = 0;
        uint64_t vslot = 0;
        if (ctl.viol_dead_claim) {
            res->violation = VIOLATION_DEADLOCK;
            vslot = ctl.viol_dead_slot;
            violation = 1;
        } else if (ctl.viol_act_claim) {
            res->violation = VIOLATION_ACTION;
            vslot = ctl.viol_act_slot;
            violation = 1;
        }
        res->complete = !violation || p.record_only;
        if (res->complete && ctl.n_expanded != ctl.n_states) {
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU explorer lost work: %llu states stored, %llu expanded",
                         ctl.n_states, ctl.n_expanded);
            res->complete = false;
            goto out;
        }

        /* ---- dense ids ---- */
        uint64_t r0 = 0;
        const double tids = gx_now();
        if (need_ids) {
            if ((rc = gx_malloc(g, &d, (p.nbuckets + 1) * 8, "bucket prefix sums", err)))
                goto out;
            g->d_prefix = (unsigned long long *)d;
            count_buckets<<<2 * g->prop.multiProcessorCount * 4, 256>>>(p, g->d_prefix);
            CK_LAUNCH("count_buckets");
            size_t tb = 0;
            CK(cub::DeviceScan::ExclusiveSum(NULL, tb, g->d_prefix, g->d_prefix, (long long)p.nbuckets + 1));
            void *tmp = NULL;
            if ((rc = gx_malloc(g, &tmp, tb, "scan workspace", err)))
                goto out;
            CK(cub::DeviceScan::ExclusiveSum(tmp, tb, g->d_prefix, g->d_prefix, (long long)p.nbuckets + 1));
            CK_LAUNCH("prefix scan");
            unsigned long long total = 0;
            CK(cudaMemcpy(&total, g->d_prefix + p.nbuckets, 8, cudaMemcpyDeviceToHost));
            if (total != ctl.n_states) {
                rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU table holds %llu vectors but %llu were counted",
                             total, ctl.n_states);
                goto out;
            }
            const uint64_t bk0 = ctl.init_slot / p.spb;
            unsigned long long pre0 = 0;
            CK(cudaMemcpy(&pre0, g->d_prefix + bk0, 8, cudaMemcpyDeviceToHost));
            r0 = pre0 + (ctl.init_slot - bk0 * p.spb);
        }
        st.ids_seconds = gx_now() - tids;
        if (violation) {
            if ((rc = gx_slot_id(g, vslot, r0, &res->violation_state, err)))
                goto out;
        }
        if (violation && opt->trace) {
            /* parent chain, from the violation back to the initial state */
            uint64_t len = res->violation == VIOLATION_ACTION ? 1 : 0;
            size_t cap = 64, m = 0;
            unsigned long long *chain = (unsigned long long *)malloc(cap * 8);
            uint32_t *labs = (uint32_t *)malloc(cap * 4);
            if (!chain || !labs) {
                free(chain), free(labs);
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory building a trace");
                goto out;
            }
            for (unsigned long long s = vslot;;) {
                if (m == cap) {
                    cap *= 2;
                    unsigned long long *c2 = (unsigned long long *)realloc(chain, cap * 8);
                    uint32_t *l2 = (uint32_t *)realloc(labs, cap * 4);
                    if (c2)
                        chain = c2;
                    if (l2)
                        labs = l2;
                    if (!c2 || !l2) {
                        free(chain), free(labs);
                        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory building a trace");
                        goto out;
                    }
                }
                unsigned long long par = 0;
                uint32_t pl = 0;
                cudaError_t e1 = cudaMemcpy(&par, p.parent + s, 8, cudaMemcpyDeviceToHost);
                cudaError_t e2 = cudaMemcpy(&pl, p.parent_label + s, 4, cudaMemcpyDeviceToHost);
                if (e1 != cudaSuccess || e2 != cudaSuccess || m > ctl.n_states) {
                    free(chain), free(labs);
                    rc = e1 != cudaSuccess || e2 != cudaSuccess
                             ? gx_cuda(err, e1 != cudaSuccess ? e1 : e2, "reading parent links")
                             : wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU parent links form a cycle");
                    goto out;
                }
                chain[m] = s;
                labs[m] = pl;
                m++;
                if (par == GPU_NO_SLOT)
                    break;
                s = par;
            }
            len += m - 1;
            struct trace *tr = &res->trace;
            tr->len = (uint32_t)len;
            tr->labels = (uint32_t *)malloc((len ? len : 1) * 4);
            tr->states = (uint64_t *)malloc((len + 1) * 8);
            tr->vectors = (uint32_t *)malloc((len + 1) * W * 4);
            if (!tr->labels || !tr->states || !tr->vectors) {
                free(chain), free(labs);
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory building a trace");
                goto out;
            }
            /* chain[m-1] is the initial state; chain[0] the violation state */
            for (size_t i = 0; i < m && !rc; i++) {
                const size_t pos = m - 1 - i;
                rc = gx_slot_id(g, chain[i], r0, &tr->states[pos], err);
                if (!rc)
                    rc = gx_slot_vector(g, chain[i], W, tr->vectors + pos * W, err);
                if (pos > 0)
                    tr->labels[pos - 1] = labs[i];
            }
            free(chain), free(labs);
            if (rc)
                goto out;
            if (res->violation == VIOLATION_ACTION) {
                tr->labels[len - 1] = ctl.viol_label;
                if ((rc = gx_slot_id(g, ctl.viol_act_dst, r0, &tr->states[len], err)))
                    goto out;
                memcpy(tr->vectors + len * W, ctl.viol_vec, (size_t)W * 4);
                if (W == SW)
                    tr->vectors[len * W + W - 1] &= GPU_LOW31;
            }
        }
        if (opt->keep_vectors) {
            const uint64_t ns = ctl.n_states;
            res->vectors = (uint32_t *)malloc((ns ? ns : 1) * W * 4);
            if (!res->vectors) {
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory for %llu vectors",
                             (unsigned long long)ns);
                goto out;
            }
            /* stage in chunks of at most 64 MiB */
            uint64_t chunk = (64ull << 20) / (W * 4ull);
            if (chunk > ns)
                chunk = ns ? ns : 1;
            void *sp = NULL;
            if ((rc = gx_malloc(g, &sp, chunk * W * 4, "vector staging", err)))
                goto out;
            uint32_t *stage = (uint32_t *)sp;
            for (uint64_t lo2 = 0; lo2 < ns; lo2 += chunk) {
                const uint64_t hi2 = lo2 + chunk < ns ? lo2 + chunk : ns;
                gather_vectors<<<2 * g->prop.multiProcessorCount * 4, 256>>>(p, g->d_prefix, r0, lo2, hi2, W,
                                                                             stage);
                CK_LAUNCH("gather_vectors");
                CK(cudaMemcpy(res->vectors + lo2 * W, stage, (hi2 - lo2) * W * 4, cudaMemcpyDeviceToHost));
            }
        }
        if (want_graph) {
            const double tg = gx_now();
            const uint64_t on_dev = ctl.e_fill;
            const uint64_t total_e = on_dev + g->h_n;
            int done = 0;
            if (opt->keep_device_graph && total_e > p.e_cap && total_e < 0x7fffffffull) {
                /* more edges than the exploration's buffer: the table and
                 * the queues are no longer needed, so one buffer for all of
                 * them fits where they were */
                gx_release(g, p.table);
                p.table = NULL;
                gx_release(g, g->q[0]);
                gx_release(g, g->q[1]);
                g->q[0] = g->q[1] = NULL;
                void *ns = NULL, *nd = NULL, *nl = NULL;
                if ((rc = gx_malloc(g, &ns, total_e * 8, "all edge sources", err)) ||
                    (rc = gx_malloc(g, &nd, total_e * 8, "all edge targets", err)) ||
                    (rc = gx_malloc(g, &nl, total_e * 4, "all edge labels", err)))
                    goto out;
                CK(cudaMemcpy(ns, p.e_src, on_dev * 8, cudaMemcpyDeviceToDevice));
                CK(cudaMemcpy(nd, p.e_dst, on_dev * 8, cudaMemcpyDeviceToDevice));
                CK(cudaMemcpy(nl, p.e_lab, on_dev * 4, cudaMemcpyDeviceToDevice));
                gx_release(g, p.e_src);
                gx_release(g, p.e_dst);
                gx_release(g, p.e_lab);
                p.e_src = (unsigned long long *)ns;
                p.e_dst = (unsigned long long *)nd;
                p.e_lab = (uint32_t *)nl;
                p.e_cap = total_e;
            }
            if (total_e == 0 && opt->keep_device_graph) {
                /* no edges: the graph is its offsets, all zero */
                struct device_csr *dg = &res->device_graph;
                if (cudaMalloc(&dg->d_offsets, (ctl.n_states + 1) * 8) != cudaSuccess) {
                    (void)cudaGetLastError();
                    rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "no device memory to keep the graph on the GPU");
                    goto out;
                }
                CK(cudaMemset(dg->d_offsets, 0, (ctl.n_states + 1) * 8));
                dg->n_vertices = ctl.n_states;
                done = 1;
            }
            if (total_e && total_e <= p.e_cap && total_e < 0x7fffffffull) {
                /* everything fits on the device: staged edges after the
                 * resident ones, ids, then CSR order (by source) with CUB;
                 * the table is no longer needed and makes room */
                if (g->h_n) {
                    CK(cudaMemcpy(p.e_src + on_dev, g->h_src, g->h_n * 8, cudaMemcpyHostToDevice));
                    CK(cudaMemcpy(p.e_dst + on_dev, g->h_dst, g->h_n * 8, cudaMemcpyHostToDevice));
                    CK(cudaMemcpy(p.e_lab + on_dev, g->h_lab, g->h_n * 4, cudaMemcpyHostToDevice));
                }
                if ((rc = gx_map_edges(g, p.e_src, p.e_dst, total_e, r0, err)))
                    goto out;
                gx_release(g, p.table);
                p.table = NULL;
                gx_release(g, g->q[0]);
                gx_release(g, g->q[1]);
                g->q[0] = g->q[1] = NULL;
                int r = gx_emit_csr(g, opt, total_e, ctl.n_states, res, err);
                if (r == 1 && opt->keep_device_graph) {
                    rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                                 "no device memory to sort the %llu edges into a graph kept on the GPU",
                                 (unsigned long long)total_e);
                    goto out;
                }
                if (r == 1) /* no room to sort: in the order found */
                    r = gx_emit_device(opt, p.e_src, p.e_dst, p.e_lab, total_e, err);
                if ((rc = r))
                    goto out;
                done = 1;
            }
            if (!done && opt->keep_device_graph) {
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                             "the %llu edges do not fit in device memory at once: the graph cannot be kept "
                             "on the GPU (use --backend cpu)", (unsigned long long)total_e);
                goto out;
            }
            if (!done) {
                /* too many to hold at once: in the order found, what is
                 * still on the device first, then the staged batches
                 * through the device buffer */
                if ((rc = gx_map_edges(g, p.e_src, p.e_dst, on_dev, r0, err)) ||
                    (rc = gx_emit_device(opt, p.e_src, p.e_dst, p.e_lab, on_dev, err)))
                    goto out;
                for (uint64_t i = 0; i < g->h_n;) {
                    const uint64_t m = g->h_n - i < p.e_cap ? g->h_n - i : p.e_cap;
                    CK(cudaMemcpy(p.e_src, g->h_src + i, m * 8, cudaMemcpyHostToDevice));
                    CK(cudaMemcpy(p.e_dst, g->h_dst + i, m * 8, cudaMemcpyHostToDevice));
                    CK(cudaMemcpy(p.e_lab, g->h_lab + i, m * 4, cudaMemcpyHostToDevice));
                    if ((rc = gx_map_edges(g, p.e_src, p.e_dst, m, r0, err)) ||
                        (rc = gx_emit_device(opt, p.e_src, p.e_dst, p.e_lab, m, err)))
                        goto out;
                    i += m;
                }
            }
            st.graph_seconds = gx_now() - tg;
        }
    }

out:
    if (stats) {
        st.device_bytes = g->peak;
        for (int k = 0; k < GPU_PROF_N; k++)
            st.prof[k] = ctl.prof[k];
        st.iterations = ctl.iterations;
        st.direct_inserts = ctl.direct_inserts;
        st.cache_inserts = ctl.cache_inserts;
        st.scan_claims = ctl.scan_claims;
        *stats = st;
    }
    if (rc) {
        explore_device_csr_free(&res->device_graph);
        res->complete = false;
        if (!res->states) {
            res->states = ctl.n_states;
            res->transitions = ctl.n_trans;
            res->deadlocks = ctl.n_dead;
        }
    }
    gx_mark("results");
    if (ev0)
        cudaEventDestroy(ev0);
    if (ev1)
        cudaEventDestroy(ev1);
    gx_free(g);
    gx_mark("device memory freed");
    gx_fast_free(&fh);
    res->seconds = gx_now() - t0;
    gx_mark0("end");
    return rc;
}

extern "C" int explore_gpu(const struct image *img, const struct explore_options *opt, struct explore_result *res,
                           struct wx_error *err)
{
    return explore_gpu_tuned(img, opt, NULL, res, NULL, err);
}
