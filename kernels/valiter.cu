/*
 * valiter.cu -- the GPU twin of analysis/valiter.c: graph precomputation
 * (Prob0A/0E/1A/1E) and the value-iteration sweep (plain or interval).
 * Contract: analysis/valiter.h.
 *
 * PRECOMPUTATION.  The MDP is uploaded once per call (valiter_precompute2_gpu:
 * once for two sets, which mdpcheck asks for Pmax and Pmin: on the H100 the
 * 75 MB upload of consensus N=6 K=2 takes ~12 ms at 6-8 GB/s pageable); a
 * predecessor index (for each
 * state t, the choices with an entry into t) is built on the device by
 * sorting (target, choice) pairs with CUB's radix sort and a binary search
 * per state for the row starts.  Every set is a least fixpoint computed by a
 * frontier-based backward search (one kernel launch per BFS level, levels
 * launched in batches with the frontier size kept on the device):
 *     EXISTS  s joins R when s is eligible and some (usable) choice of s has
 *             an entry into R            (Prob0A; Prob1A's second phase;
 *                                         Prob1E's inner fixpoint)
 *     FORALL  s joins R when s is eligible and every choice of s has an
 *             entry into R: a per-choice "hit" flag and a per-state counter
 *             of choices not yet hit     (Prob0E)
 * with eligible = allowed and not a target (targets are the seeds).  A
 * deadlock state has no choice, so FORALL never adds it (its counter starts
 * at 0 and is never decremented).  Prob1A = complement of the states that
 * reach Prob0E's set through eligible states; Prob1E is the nested fixpoint
 * U := R(U) with R(U) the EXISTS search restricted to choices whose entries
 * all stay in U.  The sets are deterministic (fixpoints); the frontier order
 * inside a level varies from run to run and is never observed.
 *
 * NUMERIC CORE.  The system is uploaded once; each sweep is one launch of a
 * warp-cooperative kernel over "row groups" (a state's choices and entries
 * are consecutive in memory, so a warp working on consecutive states streams
 * one contiguous stretch of targets/probs).  The default:
 *     vi_sweep_tiles       one warp per tile of consecutive states (<= 32
 *                          states, <= 256 entries; built on the host once per
 *                          solve).  The warp streams the tile's targets and
 *                          probabilities with fully coalesced loads, gathers
 *                          x[t] for all of them at once (32 independent loads
 *                          per step) and keeps the products in shared memory;
 *                          lane j then sums state j's choices from shared
 *                          memory.  A state with more than 256 entries is a
 *                          tile of its own, summed by the warp.
 * What runs (see each kernel's comment): for unpacked Jacobi sweeps
 * vi_sweep_tiles3 (kind 16: vi_sweep_tiles2's tiles and arithmetic with
 * every load of a tile issued at once; 77 % of the H100's copy bandwidth on
 * 1.2e8 entries), vi_sweep_tiles2's in-place form (kind 7) for in-place
 * sweeps (level solves: vi_sweep_levels), and, where the system has few
 * distinct numbers, the packed twin vi_sweep_packed (kinds 8-11: 1-byte
 * dictionary indices instead of 8-byte probabilities and constants, targets
 * and indices in one 32-bit word, byte offsets inside a tile; the automatic
 * choice wherever it applies).  Packed Jacobi sweeps run PERSISTENT
 * (vi_sweep_persist, kinds 14/15, the automatic choice where the device
 * allows cooperative launch): one launch runs a chunk of sweeps with
 * a grid barrier between sweeps and the convergence test after each (same
 * sweeps, same values).  The packed arrays are built on the host with all
 * cores (vx_pack_phase1/2) and only they go up: the raw system is never
 * uploaded for a packed solve.
 * Two further kernels are kept for shapes and measurements (pinned with
 * valiter_gpu_set_kernel; on the H100 the tiles kernel was as fast or faster
 * on every shape measured, bench/RESULTS.md):
 *     vi_sweep_choices<G>  G lanes per state, lane j takes the state's
 *                          choices j, j+G, ...; each choice is summed
 *                          sequentially; min/max over the group by shuffles.
 *     vi_sweep_entries<G>  G lanes per state, the state's choices in turn,
 *                          each choice's entries read G at a time (one entry
 *                          per lane, coalesced) and summed in entry order by
 *                          a shuffle chain.
 * All three sum a choice as b[c] + p0*x0 + p1*x1 + ... in entry order with
 * separately rounded products and sums (__dmul_rn/__dadd_rn: no fused
 * multiply-add), exactly as the CPU twin does, so the two agree bit for bit
 * and take the same number of sweeps.  Min/max are order-independent.
 * Interval iteration clamps as the CPU twin does: lo never decreases, hi
 * never increases.
 *
 * CONVERGENCE ON THE DEVICE.  Sweep k (1-based) ORs "some state of mine
 * violates the stopping rule" into ctl.viol[k % 3].  Before doing anything,
 * sweep k looks at ctl.viol[(k-1) % 3]: zero means sweep k-1 converged, so
 * sweep k records done_iter = k-1 and returns without writing, as does every
 * later launch (ctl.done).  Block 0 of sweep k zeroes viol[(k+1) % 3], the
 * slot sweep k+1 will count into (last read by sweep k-1, which has
 * finished).  The host therefore enqueues sweeps in batches (4, 8, ... up to
 * VX_BATCH_MAX) with an asynchronous copy of ctl after each batch, keeps two
 * batches in flight and never waits per sweep; launches after convergence
 * are no-ops that cost a few microseconds.  The persistent kernels keep this
 * protocol with a chunk of sweeps per launch: between sweeps of a launch
 * the grid meets at a barrier and reads viol[k % 3] itself.
 *
 * BYTES PER SWEEP (stats.bytes_per_sweep) counts what a sweep must stream at
 * least in the representation its kernel reads: 8 B per state (state
 * offsets; 4 B with vi_sweep_tiles2's 32-bit copies, 1 B packed), 16 B per
 * choice (choice offsets 8 B or 4 B, constants 8 B; 2 B packed), 12 B per
 * entry (target, probability; 4 B packed),
 * and per vector (lo, and hi for interval iteration) one read and one write
 * of 8 B per state.  The gathers x[t[e]] and the tile table are not counted:
 * with local targets the caches serve the gathers.
 *
 * MEASURED, persistent packed sweeps (H100, 2026-11-22, vi helper's runs 1
 * and 2 of the sixth session): consensus N=6 K=2 34.8-35.0 us per sweep
 * evict-first (kind 15, the default here), 37.6-37.8 cached (14), against
 * 38.0-38.2 launched (8; main: 38.3-39.0); capped to 1, 2, 3 blocks per SM
 * (WARPEX_VI_PERSIST_BLOCKS) 99, 55, 43 us.  Solve 0.198-0.204 s against
 * main's 0.247-0.248 s in the same run: 5069 x 34.8 us of sweeps plus
 * ~22 ms of set-up and read-back (main: ~50 ms: the raw system uploaded
 * and packed on the device).  Nsight Compute on the first launch (64
 * sweeps): L1/shared-memory pipe 80 % busy, L2 45 %, DRAM 21 %, 32 warps
 * per SM (limit: registers and shared memory), 15.5 cycles per issued
 * instruction, 38 % of them waiting on L1TEX (scratch, dictionaries,
 * gathers, spills: 14.9 M spill requests in 64 sweeps) -- the next lever
 * is fewer shared-memory wavefronts per tile (one 16-byte access per
 * (lo, hi) product instead of two 8-byte ones) and no spills, not
 * launches or DRAM bytes.  Issuing a tile's gathers all at once before the
 * products (measured as kinds 16-18, removed): 47.5 us (more spills), 39.7
 * at 3 blocks per SM without spills -- slower.  20 M states / 120 M
 * entries, few numbers: 1.095-1.10 ms per sweep (14 and 15) against
 * 1.15-1.17 (8) and 1.17-1.20 (10).
 *
 * MEASURED, packed sweeps (H100, 2026-11-22, vi helper's runs 2-3 in
 * bench/RESULTS.md; copy 3.02 TB/s): consensus N=6 K=2's Pmax system
 * 37.8-38.1 us per interval sweep (unpacked kind 5: 62.0-62.9 us; the
 * first packed version, which loaded choice words round by round: 48.9),
 * solve 0.229-0.236 s instead of 0.341-0.345 s, bit-identical values and
 * 5069 sweeps; evict-first 37.8-38.0 us vs cached 40.3; loading the next
 * tile's entry words ahead (kind 12: 100 bytes of spills) 47.3-47.7 us,
 * slower.  20 M states / 120 M entries with few numbers, local targets:
 * 1.13-1.19 ms per sweep against 1.58-1.60 ms unpacked (= 2.43-2.55 TB/s of
 * the unpacked representation's bytes; 1.06-1.10 TB/s of its own), uniform
 * targets 4.31-4.43 ms against 5.16.
 *
 * MEASURED (H200, 2026-11-21, bench/bench_gpu_valiter.sh; copy 4.24 TB/s):
 * tiles2 vs tiles, ms per interval sweep: local targets 1.43 vs 1.59, uniform
 * targets 3.69 vs 6.45, 50-entry choices 1.01 vs 1.48; kind 6 (tiles2
 * without the early loads) within 1.3% of kind 5 on all three; on the small
 * consensus N=6 K=2 system (0.65 M states, 100 MB per sweep) 57 us vs 55 us
 * per sweep (latency-bound: a few tiles per warp).  In-place sweeps (kind 7)
 * there: 4841-4849 sweeps instead of 5069 (-4.5 %), 53.8-54.4 us each
 * (H200, 2026-11-21, vi2): solve 0.294 s instead of 0.320 s.
 *
 * LIMITS.  A backward search costs one launch per BFS level (a few us even
 * when the frontier is tiny: a deep, chain-like MDP pays for its depth), and
 * up to VX_BATCH_MAX - 1 empty launches after it ended; the whole MDP (and,
 * for valiter_solve_gpu, the whole system) must fit in device memory; the
 * level solve at the end of this file uploads the system in groups.
 *
 * TOPOLOGICAL LEVELS (valiter_solve_levels_gpu, last section): measured on
 * the H200 (2026-11-22) on consensus N=6 K=2's Pmax system (30 levels, six
 * cyclic ones needing 2452-4908 sweeps each): 26 726 level sweeps in
 * 0.52 s, about 20 us each, against 5069 whole-system sweeps in 0.31 s;
 * loading small levels' slices cached instead of evict-first (the L2
 * policy below) changed nothing measurable (0.518-0.538 s).
 *
 * CERTIFIED POLICY ITERATION (VI_POLICY): the section before
 * valiter_solve_gpu; the sweeps of its steps 1 and 5 are the ones above.
 *
 * Determinism: values, iteration counts and sets are deterministic.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cooperative_groups.h>
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <pthread.h>
#include <unistd.h>

extern "C" {
#include "../analysis/valiter.h"
}

namespace cg = cooperative_groups;

/* ---- tunables ---- */
#define VX_THREADS 256u     /* threads per block, every kernel */
#define VX_BATCH_MIN 4u     /* sweeps in the first batch */
#define VX_BATCH_MAX 64u    /* sweeps per batch at most: bounds the no-op launches after convergence */
#define VX_FRONT_LANES 8u   /* lanes per frontier state in the backward search */
#ifndef VX_FRONT_BLOCKS_PER_SM
/* blocks per SM of a search level (8: the device full); 2 measured no faster on consensus N=6 K=2's
 * 124-launch searches (H100, 2026-11-22: precomputation 0.061-0.073 s against 0.060-0.065 s) */
#define VX_FRONT_BLOCKS_PER_SM 8
#endif
#define VX_LONG_CHOICE 12.0 /* mean entries per choice above which the entry-parallel sweep is used */
#define VX_TILE_STATES 32u    /* states per tile of vi_sweep_tiles: one per lane */
#define VX_TILE_ENTRIES 256u  /* entries per tile (shared memory: 8 B per entry and vector per warp) */
#define VX_FULL 0xffffffffu
#define VX_DICT 256u          /* packed sweep: distinct probabilities (and constants) at most */
#define VX_PK_TILE 255u       /* packed sweep: entries and choices per tile at most (byte offsets) */
/* persistent packed sweeps (vi_sweep_persist, the automatic choice for packed Jacobi sweeps):
 * sweeps per launch, VX_PCHUNK_MIN in the first, doubling up to VX_PCHUNK_MAX (a launch after
 * convergence returns at once) */
#define VX_PCHUNK_MIN 64u
#define VX_PCHUNK_MAX 4096u
/* Default sweep kernel: 5 = vi_sweep_tiles2 (interleaved bounds, 32-bit
 * offsets; kind 3 when the offsets do not fit 32 bits), 3 = vi_sweep_tiles
 * (the default before kind 5); 0 = pick kind 1 or 2 by shape.  Kind 4 is
 * the tiles kernel capped for 6 blocks per SM (40 registers, a few spills):
 * measured 2.5x slower, kept for tuning on other devices. */
#define VX_DEFAULT_KIND 5

/* Kernel choice, normally automatic; valiter_gpu_set_kernel() pins it for
 * tests and benchmarks (process-wide; not thread-safe). */
static int vx_force_kind = 0, vx_force_group = 0;
/* The kind the last valiter_solve_gpu call ran (tests: a pinned packed kind
 * falls back to kind 5 when the system cannot be packed). */
static int vx_last_kind = 0;

extern "C" int valiter_gpu_last_kind(void)
{
    return vx_last_kind;
}

/* The pinned kind: valiter_gpu_set_kernel's, else the environment's
 * WARPEX_VI_KERNEL=kind[,group] (for A/B measurements with one binary,
 * e.g. WARPEX_VI_KERNEL=5: the unpacked sweep), else 0 (automatic). */
static int vx_pinned(int *group)
{
    *group = vx_force_group;
    if (vx_force_kind)
        return vx_force_kind;
    const char *e = getenv("WARPEX_VI_KERNEL");
    if (!e || !*e)
        return 0;
    char *end;
    long k = strtol(e, &end, 10);
    *group = *end == ',' ? (int)strtol(end + 1, NULL, 10) : 32;
    return k > 0 && k <= 15 ? (int)k : 0;
}

extern "C" void valiter_gpu_set_kernel(int kind, int group)
{
    vx_force_kind = kind;
    vx_force_group = group;
}

static double vx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int vx_cuda(struct wx_error *err, cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return WX_OK;
    (void)cudaGetLastError();
    return wx_fail(err, e == cudaErrorMemoryAllocation ? WX_ELIMIT : WX_ESYSTEM, NULL, 0, 0,
                   "CUDA error in %s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

#define CK(call)                                                                                   \
    do {                                                                                           \
        if ((rc = vx_cuda(err, (call), #call)))                                                    \
            goto out;                                                                              \
    } while (0)

/* A launch: configuration errors show here, execution errors at the next
 * synchronising call (which is checked too). */
#define CK_LAUNCH(what)                                                                            \
    do {                                                                                           \
        if ((rc = vx_cuda(err, cudaGetLastError(), "launch of " what)))                            \
            goto out;                                                                              \
    } while (0)

/* Device allocations of one call, released together. */
struct vx_mem {
    void *p[32];
    int n;
};

static int vx_alloc(struct vx_mem *m, void **ptr, size_t bytes, const char *what, struct wx_error *err)
{
    *ptr = NULL;
    if (m->n == (int)(sizeof m->p / sizeof m->p[0]))
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal: too many device buffers (%s)", what);
    cudaError_t e = cudaMalloc(ptr, bytes ? bytes : 16);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *ptr = NULL;
        return wx_fail(err, e == cudaErrorMemoryAllocation ? WX_ELIMIT : WX_ESYSTEM, NULL, 0, 0,
                       "cannot allocate %zu bytes of device memory for %s: %s", bytes, what,
                       cudaGetErrorString(e));
    }
    m->p[m->n++] = *ptr;
    return WX_OK;
}

static int vx_upload(struct vx_mem *m, void **ptr, const void *src, size_t bytes, const char *what,
                     struct wx_error *err)
{
    int rc = vx_alloc(m, ptr, bytes, what, err);
    if (rc == WX_OK && bytes)
        rc = vx_cuda(err, cudaMemcpy(*ptr, src, bytes, cudaMemcpyHostToDevice), what);
    return rc;
}

static void vx_free_all(struct vx_mem *m)
{
    for (int i = 0; i < m->n; i++)
        cudaFree(m->p[i]);
    m->n = 0;
}

/* Blocks for a grid-stride kernel: enough to fill the device, no more than
 * the work needs. */
static int vx_sms = 0; /* SMs of the device (vx_blocks sets it) */

static unsigned vx_blocks(uint64_t threads_needed)
{
    if (!vx_sms) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&vx_sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
            (void)cudaGetLastError();
            vx_sms = 132;
        }
    }
    uint64_t b = (threads_needed + VX_THREADS - 1) / VX_THREADS;
    uint64_t cap = (uint64_t)vx_sms * (2048 / VX_THREADS);
    if (b > cap)
        b = cap;
    return b ? (unsigned)b : 1u;
}

extern "C" int valiter_gpu_available(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        return 0;
    }
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return major >= 9; /* built for sm_90 */
}

extern "C" int valiter_gpu_init(void)
{
    if (!valiter_gpu_available())
        return 0;
    /* cudaFree(NULL) is the customary way to force context creation */
    if (cudaFree(NULL) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    (void)vx_blocks(1); /* caches the SM count */
    return 1;
}

/* ======================================================================
 * Precomputation
 * ====================================================================== */

typedef unsigned long long ull;

/* Device view of the MDP plus the search state. */
struct vx_graph {
    ull n, nc, ne;
    const ull *ss, *cs;   /* state_start, choice_start */
    const uint32_t *tg;   /* targets */
    const uint8_t *allowed, *target; /* allowed may be NULL */
    uint32_t *cstate;     /* owner of each choice */
    ull *echoice;         /* choice of each entry (entry order) */
    uint32_t *pkey;       /* sorted targets (scratch) */
    ull *pchoice;         /* choices sorted by the target of their entry */
    ull *pstart;          /* n + 1: state t's predecessors are pchoice[pstart[t] .. pstart[t+1]) */
    uint8_t *elig;        /* allowed and not a target */
    uint32_t *mark;       /* R: nonzero = in the set */
    uint32_t *umark;      /* Prob1E's U */
    uint32_t *front[2];   /* frontiers (capacity n: a state is pushed once per search) */
    ull *count;           /* device: [1]: bad-input flag */
    ull *lvl;             /* device: BFS level counters (vx_search) */
    uint32_t *hit;        /* FORALL: choice has an entry into R */
    ull *rem;             /* FORALL: choices of the state not yet hit */
    uint8_t *usable;      /* Prob1E: choice's entries all in U */
    uint8_t *res;         /* n bytes: the answer */
    int reach_valid;      /* mark = the states reaching T (a VI_PMAX0 run's search) */
    ull reach;            /* their number */
};

static __global__ void vx_owner(const ull *__restrict__ ss, const ull *__restrict__ cs,
                                const uint32_t *__restrict__ tg, ull n, uint32_t *cstate, ull *echoice,
                                ull *bad)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x)
        for (ull c = ss[s]; c < ss[s + 1]; c++) {
            cstate[c] = (uint32_t)s;
            for (ull e = cs[c]; e < cs[c + 1]; e++) {
                echoice[e] = c;
                if (tg[e] >= n)
                    *bad = 1; /* benign: every writer stores 1 */
            }
        }
}

/* pstart[t] = first index of key t in the sorted keys (lower bound). */
static __global__ void vx_row_starts(const uint32_t *__restrict__ key, ull ne, ull n, ull *pstart)
{
    for (ull t = blockIdx.x * (ull)blockDim.x + threadIdx.x; t <= n; t += (ull)gridDim.x * blockDim.x) {
        ull lo = 0, hi = ne;
        while (lo < hi) {
            ull mid = lo + (hi - lo) / 2;
            if (key[mid] < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        pstart[t] = lo;
    }
}

static __global__ void vx_init_states(const ull *__restrict__ ss, const uint8_t *__restrict__ allowed,
                                      const uint8_t *__restrict__ target, ull n, uint8_t *elig, ull *rem)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x) {
        elig[s] = (!allowed || allowed[s]) && !target[s];
        if (rem)
            rem[s] = ss[s + 1] - ss[s];
    }
}

/* Marks and pushes every s with set[s] != 0 (the seeds of a search). */
static __global__ void vx_seed(const uint8_t *__restrict__ set, ull n, uint32_t *mark, uint32_t *front,
                               ull *count)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x)
        if (set[s]) {
            mark[s] = 1;
            front[atomicAdd(count, 1ull)] = (uint32_t)s;
        }
}

enum { VX_EXISTS = 0, VX_FORALL = 1 };

/* One BFS level backwards: VX_FRONT_LANES lanes per frontier state walk its
 * predecessor choices.  mark[s] is claimed with atomicCAS, so each state is
 * pushed once; the plain read before the CAS is only a shortcut (a stale 0
 * costs a failed CAS, never a double push).  FORALL: the first arrival at
 * choice c (atomicExch on hit[c]) decrements the owner's counter once per
 * choice; the arrival that takes it to 0 may add the owner. */
template <int RULE>
static __global__ void __launch_bounds__(VX_THREADS)
    vx_expand(const uint32_t *__restrict__ front, ull *lvl, ull level, uint32_t *next,
              const ull *__restrict__ pstart, const ull *__restrict__ pchoice,
              const uint32_t *__restrict__ cstate, const uint8_t *__restrict__ elig,
              const uint8_t *__restrict__ usable, uint32_t *mark, uint32_t *hit, ull *rem)
{
    /* level counters (see vx_search): this level's frontier size is
     * lvl[level % 3] (final: written by the previous launch), pushes go to
     * lvl[(level + 1) % 3] (zeroed by the previous launch), and
     * lvl[(level + 2) % 3] -- the previous level's input, no longer read --
     * is zeroed here for the next launch; lvl[3] sums the frontier sizes */
    const ull nfront = lvl[level % 3];
    ull *nnext = &lvl[(level + 1) % 3];
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        lvl[(level + 2) % 3] = 0;
        lvl[3] += nfront;
    }
    const ull tid = blockIdx.x * (ull)blockDim.x + threadIdx.x;
    const ull ngroups = (ull)gridDim.x * blockDim.x / VX_FRONT_LANES;
    const unsigned gl = threadIdx.x % VX_FRONT_LANES;
    for (ull i = tid / VX_FRONT_LANES; i < nfront; i += ngroups) {
        const uint32_t t = front[i];
        const ull k1 = pstart[t + 1];
        for (ull k = pstart[t] + gl; k < k1; k += VX_FRONT_LANES) {
            const ull c = pchoice[k];
            const uint32_t s = cstate[c];
            if (RULE == VX_EXISTS) {
                if ((usable && !usable[c]) || !elig[s] || *(volatile uint32_t *)&mark[s])
                    continue;
            } else {
                if (atomicExch(&hit[c], 1u) != 0u)
                    continue;
                if (atomicAdd(&rem[s], ~0ull) != 1ull || !elig[s])
                    continue;
            }
            if (atomicCAS(&mark[s], 0u, 1u) == 0u)
                next[atomicAdd(nnext, 1ull)] = s;
        }
    }
}

/* usable[c] = 0 when some entry of c leaves U (usable preset to 1). */
static __global__ void vx_usable(const uint32_t *__restrict__ tg, const ull *__restrict__ echoice, ull ne,
                                 const uint32_t *__restrict__ u, uint8_t *usable)
{
    for (ull e = blockIdx.x * (ull)blockDim.x + threadIdx.x; e < ne; e += (ull)gridDim.x * blockDim.x)
        if (!u[tg[e]])
            usable[echoice[e]] = 0; /* benign: every writer stores 0 */
}

static __global__ void vx_result(const uint32_t *__restrict__ mark, ull n, int invert, uint8_t *res)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x)
        res[s] = (uint8_t)((mark[s] != 0) ^ (invert != 0));
}

/* Backward search from the states with seeds[s] set, into g->mark (cleared
 * first).  Sets *in_r to the number of states in R.  The BFS levels are
 * launched in batches (VX_BATCH_MIN doubling up to VX_BATCH_MAX) without a
 * read-back per level: each vx_expand launch finds its frontier size on the
 * device (g->lvl, three rotating slots), a launch after the search ended
 * reads an empty frontier and does nothing, and the host reads the counters
 * once per batch (a deep search paid one synchronising copy per level). */
static int vx_search(struct vx_graph *g, int rule, const uint8_t *seeds, const uint8_t *usable, ull *in_r,
                     struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned bn = vx_blocks(g->n);
    /* grid-stride over any frontier; at most VX_FRONT_BLOCKS_PER_SM blocks
     * per SM: most levels' frontiers are small, and an empty block still
     * costs its launch */
    unsigned bf = vx_blocks(g->n * (ull)VX_FRONT_LANES);
    if (bf > (unsigned)vx_sms * VX_FRONT_BLOCKS_PER_SM)
        bf = (unsigned)vx_sms * VX_FRONT_BLOCKS_PER_SM;
    ull level = 0, batch = VX_BATCH_MIN, h[4];
    CK(cudaMemset(g->mark, 0, g->n * sizeof(uint32_t)));
    CK(cudaMemset(g->lvl, 0, 4 * sizeof(ull)));
    vx_seed<<<bn, VX_THREADS>>>(seeds, g->n, g->mark, g->front[0], &g->lvl[0]);
    CK_LAUNCH("vx_seed");
    for (;;) {
        for (ull j = 0; j < batch; j++, level++) {
            uint32_t *in = g->front[level & 1], *out = g->front[(level + 1) & 1];
            if (rule == VX_EXISTS)
                vx_expand<VX_EXISTS><<<bf, VX_THREADS>>>(in, g->lvl, level, out, g->pstart, g->pchoice, g->cstate,
                                                         g->elig, usable, g->mark, NULL, NULL);
            else
                vx_expand<VX_FORALL><<<bf, VX_THREADS>>>(in, g->lvl, level, out, g->pstart, g->pchoice, g->cstate,
                                                         g->elig, NULL, g->mark, g->hit, g->rem);
            CK_LAUNCH("vx_expand");
        }
        CK(cudaMemcpy(h, g->lvl, sizeof h, cudaMemcpyDeviceToHost));
        if (h[level % 3] == 0) /* the frontier the next level would read */
            break;
        if (batch < VX_BATCH_MAX)
            batch *= 2;
    }
    *in_r = h[3];
out:
    return rc;
}

/* Uploads the MDP and the sets, builds the predecessor index and the
 * buffers of every search (the Prob0E counters when forall, Prob1E's
 * fixpoint set when fix) into *g; every buffer joins *mem. */
static int vx_pre_setup(const struct mdp *m, const uint8_t *allowed, const uint8_t *target, int forall, int fix,
                        struct vx_graph *g, struct vx_mem *mem, struct wx_error *err)
{
    int rc = WX_OK;
    void *tmp = NULL;
    size_t tmp_bytes = 0;
    ull bad = 0;
    int bits = 1;
    const ull n = m->n_states, nc = m->n_choices, ne = m->n_entries;
    memset(g, 0, sizeof *g);
    g->n = n, g->nc = nc, g->ne = ne;
    while (bits < 32 && (n >> bits))
        bits++;
    const unsigned bn = vx_blocks(n + 1);

#define PUP(ptr, src, bytes, what)                                                                  \
    do {                                                                                           \
        void *p_;                                                                                  \
        if ((rc = vx_upload(mem, &p_, (src), (bytes), (what), err)))                               \
            goto out;                                                                              \
        (ptr) = (decltype(ptr))p_;                                                                 \
    } while (0)
#define PAL(ptr, bytes, what)                                                                       \
    do {                                                                                           \
        void *p_;                                                                                  \
        if ((rc = vx_alloc(mem, &p_, (bytes), (what), err)))                                       \
            goto out;                                                                              \
        (ptr) = (decltype(ptr))p_;                                                                 \
    } while (0)

    PUP(g->ss, m->state_start, (n + 1) * sizeof(ull), "state offsets");
    PUP(g->cs, m->choice_start, (nc + 1) * sizeof(ull), "choice offsets");
    PUP(g->tg, m->targets, ne * sizeof(uint32_t), "targets");
    PUP(g->target, target, n, "target set");
    if (allowed)
        PUP(g->allowed, allowed, n, "allowed set");
    PAL(g->cstate, nc * sizeof(uint32_t), "choice owners");
    PAL(g->echoice, ne * sizeof(ull), "entry choices");
    PAL(g->pkey, ne * sizeof(uint32_t), "predecessor keys");
    PAL(g->pchoice, ne * sizeof(ull), "predecessor choices");
    PAL(g->pstart, (n + 1) * sizeof(ull), "predecessor offsets");
    PAL(g->elig, n, "eligible set");
    PAL(g->mark, n * sizeof(uint32_t), "search set");
    PAL(g->front[0], n * sizeof(uint32_t), "frontier");
    PAL(g->front[1], n * sizeof(uint32_t), "frontier");
    PAL(g->count, 2 * sizeof(ull), "counters");
    PAL(g->lvl, 4 * sizeof(ull), "level counters");
    PAL(g->res, n, "result");
    if (forall) {
        PAL(g->hit, nc * sizeof(uint32_t), "choice flags");
        PAL(g->rem, n * sizeof(ull), "choice counters");
    }
    if (fix) {
        PAL(g->umark, n * sizeof(uint32_t), "fixpoint set");
        PAL(g->usable, nc, "usable choices");
    }

    /* predecessor index */
    CK(cudaMemset(g->count, 0, 2 * sizeof(ull)));
    vx_owner<<<bn, VX_THREADS>>>(g->ss, g->cs, g->tg, n, g->cstate, g->echoice, g->count + 1);
    CK_LAUNCH("vx_owner");
    CK(cudaMemcpy(&bad, g->count + 1, sizeof bad, cudaMemcpyDeviceToHost));
    if (bad) {
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "precomputation: an MDP entry goes to a state >= %llu", n);
        goto out;
    }
    if (ne) {
        CK(cub::DeviceRadixSort::SortPairs(NULL, tmp_bytes, g->tg, g->pkey, g->echoice, g->pchoice, (long long)ne, 0,
                                           bits));
        PAL(tmp, tmp_bytes, "sort workspace");
        CK(cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, g->tg, g->pkey, g->echoice, g->pchoice, (long long)ne, 0,
                                           bits));
    }
    vx_row_starts<<<bn, VX_THREADS>>>(g->pkey, ne, n, g->pstart);
    CK_LAUNCH("vx_row_starts");
out:
    return rc;
#undef PUP
#undef PAL
}

/* One precomputation on a set-up graph.  After VI_PMAX0, g->mark holds
 * the states that reach the target (g->reach_valid, g->reach states): the
 * first round of Prob1E's fixpoint (U = all states, every choice usable) is
 * exactly that search, so a VI_PMAX1 run after it starts from there. */
static int vx_pre_run(struct vx_graph *g, enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    int rc = WX_OK;
    ull in_r = 0;
    const ull n = g->n, nc = g->nc, ne = g->ne;
    const unsigned bn = vx_blocks(n + 1), be = vx_blocks(ne);
    /* eligible states; the Prob0E counters start at each state's choice count */
    vx_init_states<<<bn, VX_THREADS>>>(g->ss, g->allowed, g->target, n, g->elig,
                                       which == VI_PMIN0 || which == VI_PMIN1 ? g->rem : NULL);
    CK_LAUNCH("vx_init_states");

    switch (which) {
    case VI_PMAX0: /* complement of: backward reachable from T through eligible states */
        if ((rc = vx_search(g, VX_EXISTS, g->target, NULL, &in_r, err)))
            goto out;
        vx_result<<<bn, VX_THREADS>>>(g->mark, n, 1, g->res);
        CK_LAUNCH("vx_result");
        g->reach_valid = 1, g->reach = in_r;
        break;
    case VI_PMIN0:
    case VI_PMIN1:
        if (nc)
            CK(cudaMemset(g->hit, 0, nc * sizeof(uint32_t)));
        if ((rc = vx_search(g, VX_FORALL, g->target, NULL, &in_r, err)))
            goto out;
        vx_result<<<bn, VX_THREADS>>>(g->mark, n, 1, g->res); /* Prob0E */
        CK_LAUNCH("vx_result");
        g->reach_valid = 0;
        if (which == VI_PMIN1) {
            /* Pmin < 1 exactly where Prob0E's set is reachable through eligible states */
            if ((rc = vx_search(g, VX_EXISTS, g->res, NULL, &in_r, err)))
                goto out;
            vx_result<<<bn, VX_THREADS>>>(g->mark, n, 1, g->res);
            CK_LAUNCH("vx_result");
        }
        break;
    case VI_PMAX1: {
        /* U := all; repeat U := R(U) until |R(U)| == |U| (R(U) is a subset of U) */
        ull in_u = n;
        uint32_t *u = g->umark;
        if (g->reach_valid) { /* R(all states), from the VI_PMAX0 run just before */
            CK(cudaMemcpy(u, g->mark, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
            in_u = g->reach;
        } else
            CK(cudaMemset(u, 0x01, n * sizeof(uint32_t)));
        g->reach_valid = 0;
        for (;;) {
            if (nc)
                CK(cudaMemset(g->usable, 1, nc));
            vx_usable<<<be, VX_THREADS>>>(g->tg, g->echoice, ne, u, g->usable);
            CK_LAUNCH("vx_usable");
            in_r = 0;
            if ((rc = vx_search(g, VX_EXISTS, g->target, g->usable, &in_r, err)))
                goto out;
            uint32_t *r = g->mark;
            g->mark = u; /* the old U becomes the next search's scratch */
            u = r;
            if (in_r == in_u)
                break;
            in_u = in_r;
        }
        g->umark = g->mark, g->mark = u; /* both stay owned by the graph's memory */
        vx_result<<<bn, VX_THREADS>>>(u, n, 0, g->res);
        CK_LAUNCH("vx_result");
        break;
    }
    }
    CK(cudaMemcpy(out, g->res, n, cudaMemcpyDeviceToHost));
out:
    return rc;
}

/* The checks shared by both entry points. */
static int vx_pre_check(const struct mdp *m, const uint8_t *target, enum vi_precomp which, struct wx_error *err)
{
    const ull n = m->n_states, nc = m->n_choices, ne = m->n_entries;
    if (!target)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "precomputation: no target set");
    if (which != VI_PMAX0 && which != VI_PMIN0 && which != VI_PMAX1 && which != VI_PMIN1)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown precomputation %d", (int)which);
    if (n == 0)
        return WX_OK;
    if (n > 0xffffffffull)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "more than 2^32 - 1 states");
    if (m->state_start[0] != 0 || m->state_start[n] != nc || m->choice_start[0] != 0 || m->choice_start[nc] != ne)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "precomputation: inconsistent MDP offsets");
    if (!valiter_gpu_available())
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "no usable CUDA device (sm_90 or newer) for the precomputation");
    return WX_OK;
}

/* k precomputations (1 or 2) on one upload of the MDP and one predecessor
 * index. */
static int vx_precompute(const struct mdp *m, const uint8_t *allowed, const uint8_t *target, int k,
                         const enum vi_precomp *which, uint8_t *const *out, struct wx_error *err)
{
    int rc, forall = 0, fix = 0;
    for (int i = 0; i < k; i++) {
        if ((rc = vx_pre_check(m, target, which[i], err)) != WX_OK)
            return rc;
        forall |= which[i] == VI_PMIN0 || which[i] == VI_PMIN1;
        fix |= which[i] == VI_PMAX1;
    }
    if (m->n_states == 0)
        return WX_OK;
    struct vx_mem mem = {{0}, 0};
    struct vx_graph g;
    rc = vx_pre_setup(m, allowed, target, forall, fix, &g, &mem, err);
    for (int i = 0; i < k && rc == WX_OK; i++)
        rc = vx_pre_run(&g, which[i], out[i], err);
    vx_free_all(&mem);
    return rc;
}

extern "C" int valiter_precompute_gpu(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                                      enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    return vx_precompute(m, allowed, target, 1, &which, &out, err);
}

extern "C" int valiter_precompute2_gpu(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                                       enum vi_precomp a, uint8_t *out_a, enum vi_precomp b, uint8_t *out_b,
                                       struct wx_error *err)
{
    const enum vi_precomp which[2] = {a, b};
    uint8_t *const out[2] = {out_a, out_b};
    return vx_precompute(m, allowed, target, 2, which, out, err);
}

/* Device buffers of the calls below (a struct vx_mem named mem in scope). */
#define UP(ptr, src, bytes, what)                                                                  \
    do {                                                                                           \
        void *p_;                                                                                  \
        if ((rc = vx_upload(&mem, &p_, (src), (bytes), (what), err)))                              \
            goto out;                                                                              \
        (ptr) = (decltype(ptr))p_;                                                                 \
    } while (0)
#define AL(ptr, bytes, what)                                                                       \
    do {                                                                                           \
        void *p_;                                                                                  \
        if ((rc = vx_alloc(&mem, &p_, (bytes), (what), err)))                                      \
            goto out;                                                                              \
        (ptr) = (decltype(ptr))p_;                                                                 \
    } while (0)

/* ======================================================================
 * Numeric core
 * ====================================================================== */

/* Device view of a vi_system. */
struct vx_sys {
    const ull *__restrict__ ss, *__restrict__ cs;
    const uint32_t *__restrict__ tg;
    const double *__restrict__ pr, *__restrict__ b;
    ull n;
    const uint32_t *__restrict__ tiles; /* vi_sweep_tiles: tile k = states [tiles[k], tiles[k+1]) */
    ull ntiles;
    /* vi_sweep_tiles2: the offsets as 32-bit copies (n_choices and n_entries < 2^32) and
     * the tiles as records (first state, its first choice, its first entry, 0) */
    const uint32_t *__restrict__ ss32, *__restrict__ cs32;
    const uint4 *__restrict__ trec;
    /* vi_sweep_packed (see there): entries as target | probability index << pshift,
     * choices as (end of its entries in its tile) | constant index << 8,
     * states as the end of their choices in their tile; the dictionaries
     * hold VX_DICT doubles each (unused slots 0) */
    const uint32_t *__restrict__ pent;
    const uint16_t *__restrict__ pcho;
    const uint8_t *__restrict__ psst;
    const double *__restrict__ pdict, *__restrict__ bdict;
    uint32_t pshift; /* packed entries: target bits (32 - index bits, <= 31) */
};

/* Sweep control block (device memory; see the file comment). */
struct vx_ctl {
    unsigned int viol[3];
    unsigned int done;
    ull done_iter;
};

/* Called by every thread first: nonzero when this sweep must not run
 * because an earlier sweep converged.  All threads of the launch get the
 * same answer: viol[(it-1) % 3] is final (its sweep has finished) and
 * nobody writes it during this launch; done only goes 0 -> 1 in a launch
 * where every thread sees viol == 0. */
static __device__ __forceinline__ int vx_stopped(vx_ctl *ctl, ull it)
{
    if (*(volatile unsigned *)&ctl->done)
        return 1;
    if (it > 1 && *(volatile unsigned *)&ctl->viol[(it - 1) % 3] == 0) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            ctl->done = 1;
            ctl->done_iter = it - 1;
        }
        return 1;
    }
    return 0;
}

/* The end of sweep it, in every thread of the block: records whether any
 * thread violated the stopping rule, and block 0 clears the flag of sweep
 * it + 1 (see the protocol above).  Contains a block barrier. */
static __device__ __forceinline__ void vx_sweep_done(vx_ctl *ctl, ull it, int bad)
{
    if (__syncthreads_or(bad) && threadIdx.x == 0)
        atomicOr(&ctl->viol[it % 3], 1u);
    if (blockIdx.x == 0 && threadIdx.x == 0)
        ctl->viol[(it + 1) % 3] = 0;
}

template <bool MX>
static __device__ __forceinline__ double vx_opt(double best, double v)
{
    return MX ? (v > best ? v : best) : (v < best ? v : best);
}

/* A tile's warp scratch holds one double per slot (lower bound only) or
 * two (interval sweeps: lower, upper).  The tile kernels' three passes --
 * entry products, choice sums, state optimum -- read and write it only
 * through these, in the same order as the CPU twin.  V2: a pair is one
 * 16-byte access (the scratch must then be 16-byte aligned) instead of two
 * 8-byte ones (nvcc merges kind 5's two into one already, where it can
 * prove the alignment). */
template <bool IV, bool V2 = false>
static __device__ __forceinline__ void vx_scr_put(double *sw, uint32_t i, double l, double h)
{
    if (IV && V2)
        reinterpret_cast<double2 *>(sw)[i] = make_double2(l, h);
    else if (IV) {
        sw[2 * i] = l;
        sw[2 * i + 1] = h;
    } else
        sw[i] = l;
}

/* Slot f of the scratch: (lower, upper), or (lower, 0). */
template <bool IV, bool V2>
static __device__ __forceinline__ double2 vx_scr_get(const double *sw, uint32_t f)
{
    if (IV && V2)
        return reinterpret_cast<const double2 *>(sw)[f];
    if (IV)
        return make_double2(sw[2 * f], sw[2 * f + 1]);
    return make_double2(sw[f], 0.0);
}

/* al (ah) += slots f0 .. f1 - 1, in slot order. */
template <bool IV, bool V2 = false>
static __device__ __forceinline__ void vx_scr_sum(const double *sw, uint32_t f0, uint32_t f1, double &al, double &ah)
{
    for (uint32_t f = f0; f < f1; f++) {
        const double2 v = vx_scr_get<IV, V2>(sw, f);
        al = __dadd_rn(al, v.x);
        if (IV)
            ah = __dadd_rn(ah, v.y);
    }
}

/* bl (bh) = the optimum of themselves and slots k0 .. k1 - 1. */
template <bool IV, bool MX, bool V2 = false>
static __device__ __forceinline__ void vx_scr_opt(const double *sw, uint32_t k0, uint32_t k1, double &bl, double &bh)
{
    for (uint32_t q = k0; q < k1; q++) {
        const double2 v = vx_scr_get<IV, V2>(sw, q);
        bl = vx_opt<MX>(bl, v.x);
        if (IV)
            bh = vx_opt<MX>(bh, v.y);
    }
}

/* al (ah) += lanes 0 .. m - 1's pl (ph), in lane order: a choice's
 * products, one per lane, summed in entry order as the CPU twin does. */
template <bool IV>
static __device__ __forceinline__ void vx_shfl_sum(double pl, double ph, unsigned m, double &al, double &ah)
{
    for (unsigned j = 0; j < m; j++) {
        al = __dadd_rn(al, __shfl_sync(VX_FULL, pl, j));
        if (IV)
            ah = __dadd_rn(ah, __shfl_sync(VX_FULL, ph, j));
    }
}

/* Writes state s's new value(s) and says whether s violates the stopping
 * rule (the CPU twin's gap_ok/change_ok; NaN counts as a violation). */
template <bool IV>
static __device__ __forceinline__ int vx_store(ull s, double l, double h, const double *__restrict__ lo,
                                               const double *__restrict__ hi, double *nlo, double *nhi,
                                               double eps, int rel)
{
    if (IV) {
        const double ol = lo[s], oh = hi[s];
        l = l > ol ? l : ol;
        h = h < oh ? h : oh;
        nlo[s] = l;
        nhi[s] = h;
        const double g = h - l;
        return (rel && l > 0) ? !(g <= eps * l) : !(g <= eps);
    }
    const double d = fabs(l - lo[s]);
    nlo[s] = l;
    return rel ? !(d <= eps * fabs(l)) : !(d <= eps);
}

/* vx_store2 (below) with the old value(s) (ol, oh) given: the tiles3
 * sweeps load them early.  Kept apart from vx_store2 so that the kernels
 * measured before compile to the same code. */
template <bool IV>
static __device__ __forceinline__ int vx_fin(ull s, double l, double h, double ol, double oh, double *nx, double eps,
                                             int rel)
{
    if (IV) {
        l = l > ol ? l : ol;
        h = h < oh ? h : oh;
        reinterpret_cast<double2 *>(nx)[s] = make_double2(l, h);
        const double g = h - l;
        return (rel && l > 0) ? !(g <= eps * l) : !(g <= eps);
    }
    const double d = fabs(l - ol);
    nx[s] = l;
    return rel ? !(d <= eps * fabs(l)) : !(d <= eps);
}

/* vx_store for vi_sweep_tiles2's vectors: IV: x and nx are (lo, hi) pairs.
 * INPL: x == nx (in-place sweeps): the old value is read through L2. */
template <bool IV, bool INPL>
static __device__ __forceinline__ int vx_store2(ull s, double l, double h, const double *x, double *nx,
                                                double eps, int rel)
{
    if (IV) {
        const double2 o = INPL ? __ldcg(reinterpret_cast<const double2 *>(x) + s)
                               : reinterpret_cast<const double2 *>(x)[s];
        l = l > o.x ? l : o.x;
        h = h < o.y ? h : o.y;
        reinterpret_cast<double2 *>(nx)[s] = make_double2(l, h);
        const double g = h - l;
        return (rel && l > 0) ? !(g <= eps * l) : !(g <= eps);
    }
    const double d = fabs(l - (INPL ? __ldcg(x + s) : x[s]));
    nx[s] = l;
    return rel ? !(d <= eps * fabs(l)) : !(d <= eps);
}

/* Sweep it: G lanes per state, lanes over the state's choices. */
template <int G, bool IV, bool MX>
static __global__ void __launch_bounds__(VX_THREADS)
    vi_sweep_choices(vx_sys sy, const double *__restrict__ lo, const double *__restrict__ hi, double *nlo,
                     double *nhi, vx_ctl *ctl, ull it, double eps, int rel)
{
    if (vx_stopped(ctl, it))
        return;
    const unsigned lane = threadIdx.x & 31u, gl = lane % G;
    const ull per_warp = 32 / G;
    const ull warp = (blockIdx.x * (ull)blockDim.x + threadIdx.x) >> 5;
    const ull stride = (((ull)gridDim.x * blockDim.x) >> 5) * per_warp;
    const double worst = MX ? -INFINITY : INFINITY;
    int bad = 0;
    /* warp-uniform loop: every lane reaches the full-warp shuffles */
    for (ull base = warp * per_warp; base < sy.n; base += stride) {
        const ull s = base + lane / G;
        double bl = worst, bh = worst;
        if (s < sy.n) {
            const ull c1 = sy.ss[s + 1];
            for (ull c = sy.ss[s] + gl; c < c1; c += G) {
                const ull e1 = sy.cs[c + 1];
                double al = sy.b[c], ah = al;
                for (ull e = sy.cs[c]; e < e1; e++) {
                    const uint32_t t = sy.tg[e];
                    const double p = sy.pr[e];
                    al = __dadd_rn(al, __dmul_rn(p, lo[t]));
                    if (IV)
                        ah = __dadd_rn(ah, __dmul_rn(p, hi[t]));
                }
                bl = vx_opt<MX>(bl, al);
                if (IV)
                    bh = vx_opt<MX>(bh, ah);
            }
        }
#pragma unroll
        for (int off = G / 2; off > 0; off >>= 1) {
            bl = vx_opt<MX>(bl, __shfl_xor_sync(VX_FULL, bl, off));
            if (IV)
                bh = vx_opt<MX>(bh, __shfl_xor_sync(VX_FULL, bh, off));
        }
        if (s < sy.n && gl == 0)
            bad |= vx_store<IV>(s, bl, bh, lo, hi, nlo, nhi, eps, rel);
    }
    vx_sweep_done(ctl, it, bad);
}

/* Sweep it: G lanes per state, the state's choices in turn, each choice's
 * entries G at a time (lane j loads entry j of the chunk), summed in entry
 * order by a shuffle chain (all lanes of the group hold the same sum). */
template <int G, bool IV, bool MX>
static __global__ void __launch_bounds__(VX_THREADS)
    vi_sweep_entries(vx_sys sy, const double *__restrict__ lo, const double *__restrict__ hi, double *nlo,
                     double *nhi, vx_ctl *ctl, ull it, double eps, int rel)
{
    if (vx_stopped(ctl, it))
        return;
    const unsigned lane = threadIdx.x & 31u, gl = lane % G;
    const unsigned gmask = G == 32 ? VX_FULL : (((1u << G) - 1u) << (lane & ~(unsigned)(G - 1)));
    const ull per_warp = 32 / G;
    const ull warp = (blockIdx.x * (ull)blockDim.x + threadIdx.x) >> 5;
    const ull stride = (((ull)gridDim.x * blockDim.x) >> 5) * per_warp;
    int bad = 0;
    for (ull base = warp * per_warp; base < sy.n; base += stride) {
        const ull s = base + lane / G;
        if (s >= sy.n)
            continue; /* whole group: s is the group's */
        double bl = MX ? -INFINITY : INFINITY, bh = bl;
        const ull c1 = sy.ss[s + 1];
        for (ull c = sy.ss[s]; c < c1; c++) {
            const ull e1 = sy.cs[c + 1];
            double al = sy.b[c], ah = al;
            for (ull eb = sy.cs[c]; eb < e1; eb += G) {
                const ull e = eb + gl;
                double pl = 0, ph = 0;
                if (e < e1) {
                    const uint32_t t = sy.tg[e];
                    const double p = sy.pr[e];
                    pl = __dmul_rn(p, lo[t]);
                    if (IV)
                        ph = __dmul_rn(p, hi[t]);
                }
                const unsigned k1 = e1 - eb < (ull)G ? (unsigned)(e1 - eb) : (unsigned)G;
                for (unsigned k = 0; k < k1; k++) {
                    al = __dadd_rn(al, __shfl_sync(gmask, pl, k, G));
                    if (IV)
                        ah = __dadd_rn(ah, __shfl_sync(gmask, ph, k, G));
                }
            }
            bl = vx_opt<MX>(bl, al);
            if (IV)
                bh = vx_opt<MX>(bh, ah);
        }
        if (gl == 0)
            bad |= vx_store<IV>(s, bl, bh, lo, hi, nlo, nhi, eps, rel);
    }
    vx_sweep_done(ctl, it, bad);
}

/* Sweep it, one warp per tile of consecutive states (at most
 * VX_TILE_STATES states and VX_TILE_ENTRIES entries; a state with more
 * entries is a tile of its own).  The warp first streams the tile's entries
 * with fully coalesced loads (lane i takes entries i, i+32, ...), gathers
 * x[t] for all of them at once and keeps the products p * x[t] in shared
 * memory; then lane j sums state j's choices from shared memory in entry
 * order (b[c] + p0 x0 + p1 x1 + ..., as everywhere).  A single-state tile
 * too big for shared memory is summed by the warp with a shuffle chain. */
template <bool IV, bool MX, int MINB>
static __global__ void __launch_bounds__(VX_THREADS, MINB)
    vi_sweep_tiles(vx_sys sy, const double *__restrict__ lo, const double *__restrict__ hi, double *nlo,
                   double *nhi, vx_ctl *ctl, ull it, double eps, int rel)
{
    __shared__ double sl[VX_THREADS / 32][VX_TILE_ENTRIES];
    __shared__ double sh[IV ? VX_THREADS / 32 : 1][IV ? VX_TILE_ENTRIES : 1];
    if (vx_stopped(ctl, it))
        return;
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    const ull warp = (blockIdx.x * (ull)blockDim.x + threadIdx.x) >> 5;
    const ull nwarps = ((ull)gridDim.x * blockDim.x) >> 5;
    const double worst = MX ? -INFINITY : INFINITY;
    int bad = 0;
    for (ull k = warp; k < sy.ntiles; k += nwarps) { /* warp-uniform */
        const ull s0 = sy.tiles[k], s1 = sy.tiles[k + 1];
        const ull e0 = sy.cs[sy.ss[s0]], ne = sy.cs[sy.ss[s1]] - e0;
        if (ne <= VX_TILE_ENTRIES) {
            /* unrolled: several independent loads and gathers in flight per lane */
#pragma unroll 4
            for (unsigned i = lane; i < (unsigned)ne; i += 32) {
                const uint32_t t = sy.tg[e0 + i];
                const double p = sy.pr[e0 + i];
                sl[w][i] = __dmul_rn(p, lo[t]);
                if (IV)
                    sh[w][i] = __dmul_rn(p, hi[t]);
            }
            __syncwarp();
            const ull s = s0 + lane;
            if (s < s1) {
                double bl = worst, bh = worst;
                const ull c1 = sy.ss[s + 1];
                for (ull c = sy.ss[s]; c < c1; c++) {
                    const ull f1 = sy.cs[c + 1] - e0;
                    double al = sy.b[c], ah = al;
                    for (ull f = sy.cs[c] - e0; f < f1; f++) {
                        al = __dadd_rn(al, sl[w][f]);
                        if (IV)
                            ah = __dadd_rn(ah, sh[w][f]);
                    }
                    bl = vx_opt<MX>(bl, al);
                    if (IV)
                        bh = vx_opt<MX>(bh, ah);
                }
                bad |= vx_store<IV>(s, bl, bh, lo, hi, nlo, nhi, eps, rel);
            }
            __syncwarp(); /* the next tile overwrites the products */
        } else {
            /* one state (s1 == s0 + 1) */
            double bl = worst, bh = worst;
            const ull c1 = sy.ss[s0 + 1];
            for (ull c = sy.ss[s0]; c < c1; c++) {
                const ull f1 = sy.cs[c + 1];
                double al = sy.b[c], ah = al;
                for (ull fb = sy.cs[c]; fb < f1; fb += 32) {
                    const ull f = fb + lane;
                    double pl = 0, ph = 0;
                    if (f < f1) {
                        const uint32_t t = sy.tg[f];
                        const double p = sy.pr[f];
                        pl = __dmul_rn(p, lo[t]);
                        if (IV)
                            ph = __dmul_rn(p, hi[t]);
                    }
                    vx_shfl_sum<IV>(pl, ph, f1 - fb < 32 ? (unsigned)(f1 - fb) : 32u, al, ah);
                }
                bl = vx_opt<MX>(bl, al);
                if (IV)
                    bh = vx_opt<MX>(bh, ah);
            }
            if (lane == 0)
                bad |= vx_store<IV>(s0, bl, bh, lo, hi, nlo, nhi, eps, rel);
        }
    }
    vx_sweep_done(ctl, it, bad);
}


/* Sweep it, the default kernel (kind 5): tiles as in vi_sweep_tiles (at
 * most VX_TILE_STATES states, VX_TILE_ENTRIES entries and VX_TILE_ENTRIES
 * choices; a bigger state is a tile of its own), with four changes that cut
 * the bytes moved and the serial work per tile:
 *  - interval iteration keeps lo and hi interleaved ((lo, hi) pairs,
 *    16 B per state): one gather x[t] fetches both bounds from one 32 B
 *    sector instead of two sectors from two arrays (the gathers, not the
 *    streamed arrays, are most of the traffic when targets are spread);
 *  - state and choice offsets are 32-bit copies (4 B instead of 8 B each);
 *  - the streamed arrays (targets, probabilities, constants, offsets) are
 *    read with __ldcs (evict-first: they are used once per sweep and should
 *    not push the gathered vector out of L2);
 *  - a tile is one 16 B record (first state, choice, entry), loaded one
 *    tile ahead, and the offsets phases (2) and (3) need are loaded before
 *    phase (1): fewer chained memory round trips per tile (small systems
 *    are latency-bound: a few tiles per warp, each a chain of loads);
 *  - three phases per tile: (1) the warp stages the products p * x[t] of
 *    the tile's entries in shared memory; (2) lane j sums choices j, j+32,
 *    ... (coalesced offset and constant loads; long choices of one state are
 *    summed by several lanes at once instead of one); (3) lane j takes the
 *    optimum over state j's choice values from shared memory.
 * Arithmetic as in every kernel: each choice b + p0 x0 + p1 x1 + ... in
 * entry order with separately rounded products and sums, the optimum over
 * the choices in choice order, so values are bit-identical to the CPU twin.
 * Vectors: IV: x is (lo, hi) pairs (n double2 as 2n doubles); plain VI: x
 * is lo.  The unused pointer arguments keep vx_sweep_fn's signature.
 *
 * IN-PLACE SWEEPS (INPL, kind 7; --solver gs with --backend gpu): x == nx,
 * so a sweep reads bounds that other warps have already raised (lo) or
 * lowered (hi) in the same sweep, as Gauss-Seidel does, in whatever order
 * the warps happen to run.  Gathers and the old value go through L2
 * (__ldcg; the read-only path would not see this launch's writes).  SOUND:
 * the operator is monotone and lo only rises, hi only falls (the clamp), so
 * every bound read -- old, new, or one double of a pair from each -- is a
 * valid bound, and each state's lo (hi) after sweep k is at least (at most)
 * the Jacobi iterate after k sweeps: the stopping rule, checked on the
 * values written, holds no later than with Jacobi sweeps, and values only
 * tighten after they were checked.  Not bit-identical to the CPU and not
 * deterministic (sweep counts and last digits vary from run to run). */
template <bool IV, bool INPL>
static __device__ __forceinline__ void vx_pair(const double *x, uint32_t t, double &l, double &h)
{
    if (IV) {
        const double2 v = INPL ? __ldcg(reinterpret_cast<const double2 *>(x) + t)
                               : __ldg(reinterpret_cast<const double2 *>(x) + t);
        l = v.x, h = v.y;
    } else {
        l = INPL ? __ldcg(x + t) : __ldg(x + t), h = 0;
    }
}

/* Loads of the streamed arrays: evict-first (ST: used once per sweep, they
 * should not push the gathered vector out of L2), or cached (a level solve
 * whose slice fits in L2 sweeps the same slice again and again). */
template <bool ST, typename T>
static __device__ __forceinline__ T vx_ld(const T *p)
{
    return ST ? __ldcs(p) : __ldg(p);
}

/* How a tile sweep loads the values x: VX_X_RO through the read-only path
 * (__ldg: a launch that never writes what it reads), VX_X_L2 through L2
 * only (__ldcg: in-place sweeps, and the persistent sweeps, whose vectors
 * other SMs write between sweeps of the launch). */
enum { VX_X_RO, VX_X_L2 };

template <bool IV, int XL>
static __device__ __forceinline__ void vx_xget(const double *x, uint32_t t, double &l, double &h)
{
    if (IV) {
        const double2 *p = reinterpret_cast<const double2 *>(x) + t;
        const double2 v = XL == VX_X_RO ? __ldg(p) : __ldcg(p);
        l = v.x, h = v.y;
    } else {
        l = XL == VX_X_RO ? __ldg(x + t) : __ldcg(x + t), h = 0;
    }
}

/* A tile of one state s0 with choices [c0, c1) too big for the warp's
 * scratch: each choice's entries 32 at a time, summed in entry order by a
 * shuffle chain (lane 0 stores; returns its verdict). */
template <bool IV, bool MX, int XL, bool ST>
static __device__ __forceinline__ int vx_tile_big(const vx_sys &sy, uint32_t s0, uint32_t c0, uint32_t c1,
                                                  const double *x, double *nx, double eps, int rel, unsigned lane)
{
    double bl = MX ? -INFINITY : INFINITY, bh = bl;
    for (uint32_t c = c0; c < c1; c++) {
        const uint32_t f1 = vx_ld<ST>(sy.cs32 + c + 1);
        double al = vx_ld<ST>(sy.b + c), ah = al;
        for (uint32_t fb = vx_ld<ST>(sy.cs32 + c); fb < f1; fb += 32) {
            const uint32_t f = fb + lane;
            double pl = 0, ph = 0;
            if (f < f1) {
                const uint32_t t = vx_ld<ST>(sy.tg + f);
                const double p = vx_ld<ST>(sy.pr + f);
                double l, h;
                vx_xget<IV, XL>(x, t, l, h);
                pl = __dmul_rn(p, l);
                if (IV)
                    ph = __dmul_rn(p, h);
            }
            vx_shfl_sum<IV>(pl, ph, f1 - fb < 32 ? f1 - fb : 32u, al, ah);
        }
        bl = vx_opt<MX>(bl, al);
        if (IV)
            bh = vx_opt<MX>(bh, ah);
    }
    if (lane == 0)
        return vx_store2<IV, XL == VX_X_L2>(s0, bl, bh, x, nx, eps, rel);
    return 0;
}

/* One tile of vi_sweep_tiles2 (records ta, tb: its first state, choice and
 * entry, and those of the next tile), by the whole warp: returns whether a
 * state of this lane violates the stopping rule.  sw: the warp's shared
 * buffer.  Every lane reaches the same __syncwarp calls. */
template <bool IV, bool MX, bool EARLY, bool INPL, bool ST>
static __device__ __forceinline__ int vx_tile2(const vx_sys &sy, uint4 ta, uint4 tb, const double *x, double *nx,
                                               double eps, int rel, double *sw, unsigned lane)
{
    const double worst = MX ? -INFINITY : INFINITY;
    const uint32_t s0 = ta.x, s1 = tb.x, c0 = ta.y, c1 = tb.y, e0 = ta.z, ne = tb.z - ta.z;
    const uint32_t nch = c1 - c0;
    if (ne <= VX_TILE_ENTRIES && nch <= VX_TILE_ENTRIES) {
        /* loads of phases (2) and (3) issued early: their latency hides
         * behind phase (1) */
        const uint32_t s = s0 + lane;
        uint32_t k0 = 0, k1 = 0, g0 = 0, g1 = 0;
        double b0 = 0;
        if (EARLY && s < s1)
            k0 = vx_ld<ST>(sy.ss32 + s) - c0, k1 = vx_ld<ST>(sy.ss32 + s + 1) - c0;
        if (EARLY && lane < nch)
            g0 = vx_ld<ST>(sy.cs32 + c0 + lane) - e0, g1 = vx_ld<ST>(sy.cs32 + c0 + lane + 1) - e0,
            b0 = vx_ld<ST>(sy.b + c0 + lane);
        /* (1) products */
#pragma unroll 4
        for (uint32_t i = lane; i < ne; i += 32) {
            const uint32_t t = vx_ld<ST>(sy.tg + e0 + i);
            const double p = vx_ld<ST>(sy.pr + e0 + i);
            double l, h;
            vx_pair<IV, INPL>(x, t, l, h);
            vx_scr_put<IV>(sw, i, __dmul_rn(p, l), IV ? __dmul_rn(p, h) : 0.0);
        }
        __syncwarp();
        /* (2) choice values, kept in registers until every lane has read
         * its products (the values then overwrite them) */
        double vl[VX_TILE_ENTRIES / 32], vh[VX_TILE_ENTRIES / 32];
#pragma unroll
        for (int r = 0; r < (int)(VX_TILE_ENTRIES / 32); r++) {
            const uint32_t j = lane + 32u * (uint32_t)r;
            vl[r] = vh[r] = 0;
            if (j < nch) {
                uint32_t f0 = g0, f1 = g1;
                double al = b0;
                if (!EARLY || r > 0)
                    f0 = vx_ld<ST>(sy.cs32 + c0 + j) - e0, f1 = vx_ld<ST>(sy.cs32 + c0 + j + 1) - e0,
                    al = vx_ld<ST>(sy.b + c0 + j);
                double ah = al;
                vx_scr_sum<IV>(sw, f0, f1, al, ah);
                vl[r] = al, vh[r] = ah;
            }
        }
        __syncwarp();
#pragma unroll
        for (int r = 0; r < (int)(VX_TILE_ENTRIES / 32); r++) {
            const uint32_t j = lane + 32u * (uint32_t)r;
            if (j < nch)
                vx_scr_put<IV>(sw, j, vl[r], vh[r]);
        }
        __syncwarp();
        /* (3) optimum per state, in choice order */
        if (!EARLY && s < s1)
            k0 = vx_ld<ST>(sy.ss32 + s) - c0, k1 = vx_ld<ST>(sy.ss32 + s + 1) - c0;
        double bl = worst, bh = worst;
        if (s < s1)
            vx_scr_opt<IV, MX>(sw, k0, k1, bl, bh);
        __syncwarp(); /* the next tile overwrites the buffer */
        if (s >= s1)
            return 0;
        return vx_store2<IV, INPL>(s, bl, bh, x, nx, eps, rel);
    }
    return vx_tile_big<IV, MX, INPL ? VX_X_L2 : VX_X_RO, ST>(sy, s0, c0, c1, x, nx, eps, rel, lane);
}

template <bool IV, bool MX, bool EARLY, bool INPL>
static __global__ void __launch_bounds__(VX_THREADS, 4) /* <= 64 registers: 4 blocks (32 warps) per SM */
    vi_sweep_tiles2(vx_sys sy, const double *x, const double *__restrict__ unused_in,
                    double *nx, double *unused_out, vx_ctl *ctl, ull it, double eps, int rel)
{
    /* IV: pairs (lo, hi) of products, then of choice values; plain: lo only */
    __shared__ double sb[VX_THREADS / 32][VX_TILE_ENTRIES * (IV ? 2 : 1)];
    (void)unused_in, (void)unused_out;
    if (vx_stopped(ctl, it))
        return;
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    const ull warp = (blockIdx.x * (ull)blockDim.x + threadIdx.x) >> 5;
    const ull nwarps = ((ull)gridDim.x * blockDim.x) >> 5;
    double *sw = sb[w];
    int bad = 0;
    /* the tile records of this warp's next tile are loaded one tile ahead */
    uint4 ta = make_uint4(0, 0, 0, 0), tb = ta;
    if (EARLY && warp < sy.ntiles)
        ta = __ldcs(sy.trec + warp), tb = __ldcs(sy.trec + warp + 1);
    for (ull k = warp; k < sy.ntiles; k += nwarps) { /* warp-uniform */
        if (!EARLY)
            ta = __ldcs(sy.trec + k), tb = __ldcs(sy.trec + k + 1);
        const uint4 ca = ta, cb = tb;
        if (EARLY && k + nwarps < sy.ntiles)
            ta = __ldcs(sy.trec + k + nwarps), tb = __ldcs(sy.trec + k + nwarps + 1);
        bad |= vx_tile2<IV, MX, EARLY, INPL, true>(sy, ca, cb, x, nx, eps, rel, sw, lane);
    }
    vx_sweep_done(ctl, it, bad);
}

/* TILES3 SWEEPS (kind 16, the automatic choice for Jacobi sweeps of systems
 * that packing does not take; kind 17 persistent): the tiles of
 * vi_sweep_tiles2 (at most VX_TILE_STATES states and VX_TILE_ENTRIES
 * entries, but at most VX_T3_CHOICES choices: the host builds them with
 * that limit; a bigger state is a tile of its own, vx_tile_big), its arrays
 * (32-bit offsets, (lo, hi) pairs), arithmetic and order, so values are
 * bit-identical to the CPU twin.  What changed is when the loads go out.
 * Kind 5's SASS waits one memory round trip per round of 32 entries (its
 * entry loop has a data-dependent trip count, so ptxas cannot hoist a
 * round's loads above the previous round's exit test), one per round of
 * choices after the first and one for the old value at the end: ~9 chained
 * round trips per tile of ~180 entries, and 32 resident warps do not hide
 * them (Nsight Compute, H100: 78 % of the stalls on L1TEX data, 0.41
 * eligible warps per scheduler, DRAM 58 %, L2 69 %).  Here every load of
 * the tile's system is issued at once, before the gathers: the entries of
 * all 8 rounds, the choice ends and constants of all 4 rounds, the state
 * ends -- unconditionally (a lane past the end reads the last element
 * again; predicated or branched loads are what ptxas sinks next to their
 * use, one round at a time), and a choice starts where the previous lane's
 * ends, a state likewise (shuffles: each offset is read once).  The old
 * value is loaded after phase (1), behind phases (2) and (3).  That needs
 * registers: 80 per thread (VX_T3_BLOCKS = 3 blocks, 24 warps per SM); in
 * SASS the tile's gathers then go out in two batches of four rounds.
 * Measured on the H100 (sweep7's call, bench/RESULTS.md): 20 M states /
 * 120 M entries, local targets, 1.238-1.242 ms per interval sweep against
 * kind 5's 1.599-1.610 ms in the same process (2.32 TB/s of the kernel's
 * own bytes = 77 % of the 3.02 TB/s copy); removed after that run, all
 * slower there: asking L2 to prefetch the warp's next tile
 * (cp.async.bulk.prefetch.L2, five ranges per tile: 1.86 ms), the same
 * with a swizzled scratch (1.91), at 4 blocks per SM with 64 registers
 * (2.46), and persistent with prefetch (1.87 with the values through L2,
 * 2.15 through L1).  Kind 17 runs vx_tile3 persistently
 * (vi_sweep_persist3: vi_sweep_persist's protocol); it has not been timed
 * without the prefetch. */
#define VX_T3_CHOICES 128u
#define VX_T3_BLOCKS 3 /* blocks per SM: <= 80 registers, for a whole tile's loads in flight */
/* The automatic kernel for Jacobi sweeps of a system that packing does not
 * take (5 before the tiles3 sweeps) */
#define VX_UNPACKED_KIND 16

/* One tile (records ta, tb) by the whole warp, as vx_tile2: returns whether
 * a state of this lane violates the stopping rule. */
template <bool IV, bool MX, int XL>
static __device__ __forceinline__ int vx_tile3(const vx_sys &sy, uint4 ta, uint4 tb, const double *x, double *nx,
                                               double eps, int rel, double *sw, unsigned lane)
{
    constexpr int R = (int)(VX_TILE_ENTRIES / 32), RC = (int)(VX_T3_CHOICES / 32);
    const uint32_t s0 = ta.x, s1 = tb.x, c0 = ta.y, e0 = ta.z;
    const uint32_t nch = tb.y - ta.y, ne = tb.z - ta.z;
    if (ne > VX_TILE_ENTRIES || nch > VX_T3_CHOICES) /* one state */
        return vx_tile_big<IV, MX, XL, true>(sy, s0, c0, tb.y, x, nx, eps, rel, lane);
    const uint32_t s = s0 + lane;
    /* every load of the tile's system at once, unconditionally (a lane
     * past the end reads the last element again) */
    const uint32_t k1 = __ldcs(sy.ss32 + (s < s1 ? s : s1 - 1) + 1) - c0;
    uint32_t ce[RC], et[R];
    double cb[RC], ep[R];
#pragma unroll
    for (int r = 0; r < RC; r++) {
        const uint32_t j = lane + 32u * (uint32_t)r, jj = j < nch ? j : nch - 1; /* nch >= 1 */
        ce[r] = __ldcs(sy.cs32 + c0 + jj + 1) - e0;
        cb[r] = __ldcs(sy.b + c0 + jj);
    }
    const uint32_t elast = ne ? ne - 1 : 0; /* ne == 0: index e0 is read only if it exists */
    const bool any = ne > 0;
#pragma unroll
    for (int r = 0; r < R; r++) {
        const uint32_t i = lane + 32u * (uint32_t)r;
        et[r] = any ? __ldcs(sy.tg + e0 + (i < ne ? i : elast)) : 0u;
        ep[r] = any ? __ldcs(sy.pr + e0 + (i < ne ? i : elast)) : 0.0;
    }
    /* (1) products */
#pragma unroll
    for (int r = 0; r < R; r++) {
        const uint32_t i = lane + 32u * (uint32_t)r;
        if (i < ne) {
            double l, h;
            vx_xget<IV, XL>(x, et[r], l, h);
            vx_scr_put<IV, true>(sw, i, __dmul_rn(ep[r], l), IV ? __dmul_rn(ep[r], h) : 0.0);
        }
    }
    __syncwarp();
    double ol = 0, oh = 0; /* the old value(s), for phase (3) */
    if (s < s1)
        vx_xget<IV, XL>(x, s, ol, oh);
    /* (2) choice values, kept in registers until every lane has read its
     * products (the values then overwrite them) */
    double vl[RC], vh[RC];
    uint32_t prev = 0; /* the end of the previous round's last choice */
#pragma unroll
    for (int r = 0; r < RC; r++) {
        const uint32_t j = lane + 32u * (uint32_t)r;
        const uint32_t up = __shfl_up_sync(VX_FULL, ce[r], 1), f0 = lane ? up : prev;
        prev = __shfl_sync(VX_FULL, ce[r], 31);
        vl[r] = vh[r] = 0;
        if (j < nch) {
            double al = cb[r], ah = al;
            vx_scr_sum<IV, true>(sw, f0, ce[r], al, ah);
            vl[r] = al, vh[r] = ah;
        }
    }
    __syncwarp();
#pragma unroll
    for (int r = 0; r < RC; r++) {
        const uint32_t j = lane + 32u * (uint32_t)r;
        if (j < nch)
            vx_scr_put<IV, true>(sw, j, vl[r], vh[r]);
    }
    __syncwarp();
    /* (3) optimum per state, in choice order */
    const uint32_t kup = __shfl_up_sync(VX_FULL, k1, 1), k0 = lane ? kup : 0u;
    double bl = MX ? -INFINITY : INFINITY, bh = bl;
    if (s < s1)
        vx_scr_opt<IV, MX, true>(sw, k0, k1, bl, bh);
    __syncwarp(); /* the next tile overwrites the buffer */
    if (s >= s1)
        return 0;
    return vx_fin<IV>(s, bl, bh, ol, oh, nx, eps, rel);
}

/* This warp's tiles of one sweep (tile records loaded one tile ahead). */
template <bool IV, bool MX, int XL>
static __device__ __forceinline__ int vx_sweep3(const vx_sys &sy, const double *x, double *nx, double eps, int rel,
                                                double *sw, unsigned lane, ull warp, ull nwarps)
{
    int bad = 0;
    uint4 ta = make_uint4(0, 0, 0, 0), tb = ta;
    if (warp < sy.ntiles)
        ta = __ldcs(sy.trec + warp), tb = __ldcs(sy.trec + warp + 1);
    for (ull k = warp; k < sy.ntiles; k += nwarps) { /* warp-uniform */
        const uint4 ca = ta, cb = tb;
        if (k + nwarps < sy.ntiles)
            ta = __ldcs(sy.trec + k + nwarps), tb = __ldcs(sy.trec + k + nwarps + 1);
        bad |= vx_tile3<IV, MX, XL>(sy, ca, cb, x, nx, eps, rel, sw, lane);
    }
    return bad;
}

template <bool IV, bool MX>
static __global__ void __launch_bounds__(VX_THREADS, VX_T3_BLOCKS)
    vi_sweep_tiles3(vx_sys sy, const double *x, const double *__restrict__ unused_in, double *nx,
                    double *unused_out, vx_ctl *ctl, ull it, double eps, int rel)
{
    __shared__ __align__(16) double sb[VX_THREADS / 32][VX_TILE_ENTRIES * (IV ? 2 : 1)];
    (void)unused_in, (void)unused_out;
    if (vx_stopped(ctl, it))
        return;
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    const ull warp = (blockIdx.x * (ull)blockDim.x + threadIdx.x) >> 5;
    const ull nwarps = ((ull)gridDim.x * blockDim.x) >> 5;
    const int bad = vx_sweep3<IV, MX, VX_X_RO>(sy, x, nx, eps, rel, sb[w], lane, warp, nwarps);
    vx_sweep_done(ctl, it, bad);
}

/* Persistent tiles3 sweeps (kind 17): vi_sweep_persist's protocol (sweeps
 * it0 .. it1 in one cooperative launch, a grid barrier after each, the grid
 * stopping at the first sweep that met the stopping rule) over vx_tile3.
 * The values are written by other SMs between sweeps of the launch, so
 * they are loaded through L2 (__ldcg), as in vi_sweep_persist. */
template <bool IV, bool MX>
static __global__ void __launch_bounds__(VX_THREADS, VX_T3_BLOCKS)
    vi_sweep_persist3(vx_sys sy, double *xa, double *xb, vx_ctl *ctl, ull it0, ull it1, double eps, int rel)
{
    __shared__ __align__(16) double sb[VX_THREADS / 32][VX_TILE_ENTRIES * (IV ? 2 : 1)];
    if (vx_stopped(ctl, it0)) /* the same answer in every thread of the grid */
        return;
    cg::grid_group grid = cg::this_grid();
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    const ull warp = (blockIdx.x * (ull)blockDim.x + threadIdx.x) >> 5;
    const ull nwarps = ((ull)gridDim.x * blockDim.x) >> 5;
    for (ull it = it0;; it++) {
        const double *x = (it & 1) ? xa : xb;
        double *nx = (it & 1) ? xb : xa;
        const int bad = vx_sweep3<IV, MX, VX_X_L2>(sy, x, nx, eps, rel, sb[w], lane, warp, nwarps);
        vx_sweep_done(ctl, it, bad); /* as in vi_sweep_persist */
        grid.sync();
        if (*(volatile unsigned *)&ctl->viol[it % 3] == 0) {
            if (blockIdx.x == 0 && threadIdx.x == 0) {
                ctl->done = 1;
                ctl->done_iter = it;
            }
            return;
        }
        if (it >= it1)
            return;
    }
}

/* PACKED SWEEPS (kinds 8-11, the default where the system allows): the
 * tiles of vi_sweep_tiles2 over a compact copy of the system built on the
 * device once per solve (vx_pack_*), for systems with few distinct numbers,
 * as the models of PRISM-style languages have (consensus N=6 K=2: 2
 * probabilities, 3 constants):
 *   entry e     4 B: target | probability index << pshift, the index in the
 *                    fewest bits (>= 1) that hold it, the target in the
 *                    rest (pshift = 31 bits with 2 probabilities, 24 with
 *                    256; n <= 2^pshift)
 *   choice c    2 B: end of c's entries relative to its tile's first entry
 *                    (8 bits; tiles hold <= 255 entries) | constant index << 8
 *   state s     1 B: end of s's choices relative to its tile's first choice
 *                    (tiles hold <= 255 choices)
 * against 12 B, 12 B and 4 B unpacked: consensus N=6 K=2's Pmax system
 * streams 42 MB per interval sweep instead of 104 MB.  A tile issues all
 * its loads of the system at once (state ends, choice words, entry words:
 * one memory round trip), then all its gathers; starts come from the
 * previous lane's end by shuffles.  Conditions (else kind 5 runs): <= 256
 * distinct probabilities and constants, no state with more than 255
 * entries or choices, n <= 2^pshift, and the packed copy fits in the free
 * device memory next to the uploaded system.  The two dictionaries (<= VX_DICT doubles each, the exact values
 * of the system) are staged in shared memory per block.  A choice's start is
 * the previous choice's end (0 for a tile's first choice), likewise a
 * state's.  Arithmetic, order and results are those of vi_sweep_tiles2
 * (the dictionary returns the very doubles of the system): bit-identical to
 * the CPU twin.  ST: evict-first loads of the streamed arrays (a system
 * larger than L2) or cached loads (it fits: it stays in L2 from sweep to
 * sweep).  INPL: in-place sweeps as kind 7. */
/* Entry words of the tile [ta, tb): lane j gets words j, j+32, ... */
template <bool ST>
static __device__ __forceinline__ void vx_words(const vx_sys &sy, uint4 ta, uint4 tb, unsigned lane,
                                                uint32_t (&ew)[VX_TILE_ENTRIES / 32])
{
    const uint32_t ne = tb.z - ta.z;
#pragma unroll
    for (int r = 0; r < (int)(VX_TILE_ENTRIES / 32); r++) {
        const uint32_t j = lane + 32u * (uint32_t)r;
        ew[r] = j < ne ? vx_ld<ST>(sy.pent + ta.z + j) : 0u;
    }
}

/* PF: the entry words come in ewin (loaded one tile ahead by the caller). */
template <bool IV, bool MX, bool INPL, bool ST, bool PF>
static __device__ __forceinline__ int vx_tile_packed(const vx_sys &sy, uint4 ta, uint4 tb, const double *x,
                                                     double *nx, double eps, int rel, double *sw,
                                                     const double *pd, const double *bd, unsigned lane,
                                                     const uint32_t (&ewin)[VX_TILE_ENTRIES / 32])
{
    constexpr int R = (int)(VX_TILE_ENTRIES / 32); /* rounds of 32 entries or choices */
    const double worst = MX ? -INFINITY : INFINITY;
    const uint32_t s0 = ta.x, s1 = tb.x, c0 = ta.y, e0 = ta.z;
    const uint32_t nch = tb.y - ta.y, ne = tb.z - ta.z;
    const uint32_t s = s0 + lane, tmask = (1u << sy.pshift) - 1u;
    /* every global load of the tile's system at once (one memory round
     * trip; small systems are latency-bound): lane j holds state s0 + j's
     * end, choice words j, j+32, ... and entry words j, j+32, ...; a start
     * is the previous lane's (or round's) end, fetched by shuffles */
    const uint32_t k1 = s < s1 ? (uint32_t)vx_ld<ST>(sy.psst + s) : 0u;
    uint32_t cw[R], ew[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        const uint32_t j = lane + 32u * (uint32_t)r;
        cw[r] = j < nch ? (uint32_t)vx_ld<ST>(sy.pcho + c0 + j) : 0u;
        ew[r] = PF ? ewin[r] : j < ne ? vx_ld<ST>(sy.pent + e0 + j) : 0u;
    }
    const uint32_t k0up = __shfl_up_sync(VX_FULL, k1, 1), k0 = lane ? k0up : 0u;
    /* (1) products: all gathers in flight together */
#pragma unroll
    for (int r = 0; r < R; r++) {
        const uint32_t i = lane + 32u * (uint32_t)r;
        if (i < ne) {
            const uint32_t w = ew[r];
            double l, h;
            vx_pair<IV, INPL>(x, w & tmask, l, h);
            const double p = pd[w >> sy.pshift];
            vx_scr_put<IV>(sw, i, __dmul_rn(p, l), IV ? __dmul_rn(p, h) : 0.0);
        }
    }
    __syncwarp();
    /* (2) choice values */
    double vl[R], vh[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        const uint32_t j = lane + 32u * (uint32_t)r;
        const uint32_t up = __shfl_up_sync(VX_FULL, cw[r] & 0xffu, 1);
        const uint32_t prev = __shfl_sync(VX_FULL, r ? cw[r > 0 ? r - 1 : 0] & 0xffu : 0u, 31);
        vl[r] = vh[r] = 0;
        if (j < nch) {
            const uint32_t f0 = lane ? up : prev, f1 = cw[r] & 0xffu;
            double al = bd[cw[r] >> 8], ah = al;
            vx_scr_sum<IV>(sw, f0, f1, al, ah);
            vl[r] = al, vh[r] = ah;
        }
    }
    __syncwarp();
#pragma unroll
    for (int r = 0; r < R; r++) {
        const uint32_t j = lane + 32u * (uint32_t)r;
        if (j < nch)
            vx_scr_put<IV>(sw, j, vl[r], vh[r]);
    }
    __syncwarp();
    /* (3) optimum per state, in choice order */
    double bl = worst, bh = worst;
    if (s < s1)
        vx_scr_opt<IV, MX>(sw, k0, k1, bl, bh);
    __syncwarp(); /* the next tile overwrites the buffer */
    if (s >= s1)
        return 0;
    return vx_store2<IV, INPL>(s, bl, bh, x, nx, eps, rel);
}

/* PF (kinds 12, 13): the next tile's entry words are loaded while this
 * tile is processed (its records two tiles ahead), so a tile's gathers
 * start at once: one memory round trip per tile fewer, more registers. */
template <bool IV, bool MX, bool INPL, bool ST, bool PF>
static __global__ void __launch_bounds__(VX_THREADS, 4)
    vi_sweep_packed(vx_sys sy, const double *x, const double *__restrict__ unused_in, double *nx,
                    double *unused_out, vx_ctl *ctl, ull it, double eps, int rel)
{
    __shared__ double sb[VX_THREADS / 32][VX_TILE_ENTRIES * (IV ? 2 : 1)];
    __shared__ double pd[VX_DICT], bd[VX_DICT];
    (void)unused_in, (void)unused_out;
    if (vx_stopped(ctl, it)) /* the same answer in every thread */
        return;
    for (unsigned i = threadIdx.x; i < VX_DICT; i += blockDim.x)
        pd[i] = sy.pdict[i], bd[i] = sy.bdict[i];
    __syncthreads();
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    const ull warp = (blockIdx.x * (ull)blockDim.x + threadIdx.x) >> 5;
    const ull nwarps = ((ull)gridDim.x * blockDim.x) >> 5;
    double *sw = sb[w];
    int bad = 0;
    uint4 ta = make_uint4(0, 0, 0, 0), tb = ta, na = ta, nb = ta;
    uint32_t ew[VX_TILE_ENTRIES / 32];
    if (warp < sy.ntiles)
        ta = vx_ld<ST>(sy.trec + warp), tb = vx_ld<ST>(sy.trec + warp + 1);
    if (PF && warp + nwarps < sy.ntiles)
        na = vx_ld<ST>(sy.trec + warp + nwarps), nb = vx_ld<ST>(sy.trec + warp + nwarps + 1);
    if (PF && warp < sy.ntiles)
        vx_words<ST>(sy, ta, tb, lane, ew);
    for (ull k = warp; k < sy.ntiles; k += nwarps) { /* warp-uniform */
        const uint4 ca = ta, cb = tb;
        if (PF) {
            uint32_t cur[VX_TILE_ENTRIES / 32];
#pragma unroll
            for (int r = 0; r < (int)(VX_TILE_ENTRIES / 32); r++)
                cur[r] = ew[r];
            ta = na, tb = nb;
            if (k + nwarps < sy.ntiles)
                vx_words<ST>(sy, ta, tb, lane, ew);
            if (k + 2 * nwarps < sy.ntiles)
                na = vx_ld<ST>(sy.trec + k + 2 * nwarps), nb = vx_ld<ST>(sy.trec + k + 2 * nwarps + 1);
            bad |= vx_tile_packed<IV, MX, INPL, ST, true>(sy, ca, cb, x, nx, eps, rel, sw, pd, bd, lane, cur);
        } else {
            if (k + nwarps < sy.ntiles)
                ta = vx_ld<ST>(sy.trec + k + nwarps), tb = vx_ld<ST>(sy.trec + k + nwarps + 1);
            bad |= vx_tile_packed<IV, MX, INPL, ST, false>(sy, ca, cb, x, nx, eps, rel, sw, pd, bd, lane, ew);
        }
    }
    vx_sweep_done(ctl, it, bad);
}

/* PERSISTENT packed sweeps (kinds 14, 15): one cooperative launch runs
 * sweeps it0, it0 + 1, ... it1 of vi_sweep_packed's Jacobi sweep (the same
 * tiles, arithmetic and values: bit-identical to the CPU twin, the same
 * sweep count), the grid meeting at a grid barrier after each sweep, where
 * every block reads the sweep's violation flag and the grid stops at the
 * first sweep that met the stopping rule (done, done_iter as vx_stopped
 * records them; the host's batch protocol above is unchanged, a launch
 * being a chunk of sweeps).  What it saves per sweep: the launch and block
 * start-up, the control-block and dictionary loads before the first tile,
 * and the drain of the grid (a barrier instead).  The value vectors are
 * written by other SMs between sweeps of the same launch, so their loads
 * go through L2 (vx_tile_packed's INPL loads, __ldcg): an SM's L1 could
 * hold a line of the vector it read two sweeps ago.  The system arrays are
 * read-only in the launch: kind 14 loads them cached (a system that fits
 * in L2 with the vectors stays there from sweep to sweep), kind 15
 * evict-first.  xa/xb: the vectors of odd/even sweeps' reads (x[0] and
 * x[1] of the host's double buffer: sweep it reads x[(it-1) & 1]). */
template <bool IV, bool MX, bool ST>
static __global__ void __launch_bounds__(VX_THREADS, 4)
    vi_sweep_persist(vx_sys sy, double *xa, double *xb, vx_ctl *ctl, ull it0, ull it1, double eps, int rel)
{
    __shared__ double sb[VX_THREADS / 32][VX_TILE_ENTRIES * (IV ? 2 : 1)];
    __shared__ double pd[VX_DICT], bd[VX_DICT];
    if (vx_stopped(ctl, it0)) /* the same answer in every thread of the grid: no barrier is left waiting */
        return;
    cg::grid_group grid = cg::this_grid();
    for (unsigned i = threadIdx.x; i < VX_DICT; i += blockDim.x)
        pd[i] = sy.pdict[i], bd[i] = sy.bdict[i];
    __syncthreads();
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    const ull warp = (blockIdx.x * (ull)blockDim.x + threadIdx.x) >> 5;
    const ull nwarps = ((ull)gridDim.x * blockDim.x) >> 5;
    double *sw = sb[w];
    uint32_t ew[VX_TILE_ENTRIES / 32]; /* unused (no words ahead) */
#pragma unroll
    for (int r = 0; r < (int)(VX_TILE_ENTRIES / 32); r++)
        ew[r] = 0;
    for (ull it = it0;; it++) {
        const double *x = (it & 1) ? xa : xb;
        double *nx = (it & 1) ? xb : xa;
        int bad = 0;
        uint4 ta = make_uint4(0, 0, 0, 0), tb = ta;
        if (warp < sy.ntiles)
            ta = vx_ld<false>(sy.trec + warp), tb = vx_ld<false>(sy.trec + warp + 1);
        for (ull k = warp; k < sy.ntiles; k += nwarps) { /* warp-uniform */
            const uint4 ca = ta, cb = tb;
            if (k + nwarps < sy.ntiles)
                ta = vx_ld<false>(sy.trec + k + nwarps), tb = vx_ld<false>(sy.trec + k + nwarps + 1);
            bad |= vx_tile_packed<IV, MX, true, ST, false>(sy, ca, cb, x, nx, eps, rel, sw, pd, bd, lane, ew);
        }
        /* vx_sweep_done: viol[it % 3] collects this sweep; viol[(it + 1) % 3]
         * (last read after sweep it - 2's barrier) is cleared for the next */
        vx_sweep_done(ctl, it, bad);
        grid.sync(); /* this sweep's values and flag are visible to the grid */
        if (*(volatile unsigned *)&ctl->viol[it % 3] == 0) {
            if (blockIdx.x == 0 && threadIdx.x == 0) {
                ctl->done = 1;
                ctl->done_iter = it;
            }
            return;
        }
        if (it >= it1)
            return;
    }
}

/* (lo, hi) pairs <-> two arrays, for vi_sweep_tiles2's interval vectors */
static __global__ void vx_interleave(const double *__restrict__ lo, const double *__restrict__ hi, ull n, double2 *x)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x)
        x[s] = make_double2(lo[s], hi[s]);
}

static __global__ void vx_deinterleave(const double2 *__restrict__ x, ull n, double *lo, double *hi)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x) {
        const double2 v = x[s];
        lo[s] = v.x, hi[s] = v.y;
    }
}

/* 32-bit copy of 64-bit offsets whose values are known to fit. */
static __global__ void vx_narrow(const ull *__restrict__ a, ull n, uint32_t *b)
{
    for (ull i = blockIdx.x * (ull)blockDim.x + threadIdx.x; i < n; i += (ull)gridDim.x * blockDim.x)
        b[i] = (uint32_t)a[i];
}

typedef void (*vx_sweep_fn)(vx_sys, const double *, const double *, double *, double *, vx_ctl *, ull, double, int);

template <bool IV, bool MX>
static vx_sweep_fn vx_pick2(int kind, int g)
{
    if (kind == 5)
        return vi_sweep_tiles2<IV, MX, true, false>;
    if (kind == 6) /* kind 5 without the early loads (for measurements) */
        return vi_sweep_tiles2<IV, MX, false, false>;
    if (kind == 7) /* kind 5 in place (VI_GAUSS_SEIDEL) */
        return vi_sweep_tiles2<IV, MX, true, true>;
    if (kind == 8) /* packed, evict-first loads */
        return vi_sweep_packed<IV, MX, false, true, false>;
    if (kind == 9) /* packed in place, evict-first */
        return vi_sweep_packed<IV, MX, true, true, false>;
    if (kind == 10) /* packed, cached loads */
        return vi_sweep_packed<IV, MX, false, false, false>;
    if (kind == 11) /* packed in place, cached */
        return vi_sweep_packed<IV, MX, true, false, false>;
    if (kind == 12) /* packed, evict-first, entry words a tile ahead */
        return vi_sweep_packed<IV, MX, false, true, true>;
    if (kind == 13) /* the same in place */
        return vi_sweep_packed<IV, MX, true, true, true>;
    if (kind == 16) /* tiles3: a tile's loads at once (the default for unpacked Jacobi sweeps) */
        return vi_sweep_tiles3<IV, MX>;
    if (kind == 3)
        return vi_sweep_tiles<IV, MX, 1>;
    if (kind == 4) /* more resident warps, fewer registers */
        return vi_sweep_tiles<IV, MX, 6>;
    if (kind == 2)
        return g == 8 ? vi_sweep_entries<8, IV, MX> : vi_sweep_entries<32, IV, MX>;
    switch (g) {
    case 1: return vi_sweep_choices<1, IV, MX>;
    case 2: return vi_sweep_choices<2, IV, MX>;
    case 4: return vi_sweep_choices<4, IV, MX>;
    case 8: return vi_sweep_choices<8, IV, MX>;
    case 16: return vi_sweep_choices<16, IV, MX>;
    default: return vi_sweep_choices<32, IV, MX>;
    }
}

static vx_sweep_fn vx_pick(int iv, int mx, int kind, int g)
{
    if (iv)
        return mx ? vx_pick2<true, true>(kind, g) : vx_pick2<true, false>(kind, g);
    return mx ? vx_pick2<false, true>(kind, g) : vx_pick2<false, false>(kind, g);
}

/* The kernel for a system's shape: kind 3 (tiles) by default; kind 1 =
 * lanes over choices with G the power of two nearest above the mean choices
 * per state; kind 2 = lanes over entries when choices are long (G = 8, or 32
 * from 24 entries on). */
static void vx_shape(const struct vi_system *sys, int *kind, int *g)
{
    double epc = sys->n_choices ? (double)sys->n_entries / (double)sys->n_choices : 0;
    double cps = sys->n_states ? (double)sys->n_choices / (double)sys->n_states : 1;
    int pg = 0, pk = vx_pinned(&pg);
    if (pk) {
        *kind = pk;
        *g = pg;
    } else if (VX_DEFAULT_KIND == 3 || VX_DEFAULT_KIND == 5) {
        *kind = VX_DEFAULT_KIND;
        *g = 32;
    } else if (epc > VX_LONG_CHOICE) {
        *kind = 2;
        *g = epc >= 24 ? 32 : 8;
    } else {
        *kind = 1;
        int k = 1;
        while (k < 32 && (double)k < cps)
            k *= 2;
        *g = k;
    }
    if (*kind >= 5 && (sys->n_choices > 0xfffffffeull || sys->n_entries > 0xfffffffeull))
        *kind = 3; /* the compact offsets would not fit (in-place sweeps need them: Jacobi) */
    if (*kind >= 3)
        *g = 32;
    else if (*kind == 2)
        *g = *g == 8 ? 8 : 32;
    else if (*g != 1 && *g != 2 && *g != 4 && *g != 8 && *g != 16)
        *g = 32;
}

/* Greedy tiles for vi_sweep_tiles(2): consecutive states of [a, n), at
 * most VX_TILE_STATES of them, lim entries and clim choices, or one state
 * alone.  tiles has room for n - a + 1; returns the number of tiles k
 * (tiles[k] == n). */
static ull vx_make_tiles_lim(const struct vi_system *sys, ull a, ull n, uint32_t *tiles, ull lim, ull clim)
{
    const uint64_t *ss = sys->state_start, *cs = sys->choice_start;
    ull k = 0, s = a;
    while (s < n) {
        tiles[k++] = (uint32_t)s;
        ull acc = cs[ss[s + 1]] - cs[ss[s]], accc = ss[s + 1] - ss[s];
        ull cnt = 1;
        s++;
        if (acc > lim || accc > clim)
            continue;
        while (s < n && cnt < VX_TILE_STATES) {
            const ull e = cs[ss[s + 1]] - cs[ss[s]], c = ss[s + 1] - ss[s];
            if (acc + e > lim || accc + c > clim)
                break;
            acc += e, accc += c, cnt++, s++;
        }
    }
    tiles[k] = (uint32_t)n;
    return k;
}

static ull vx_make_tiles(const struct vi_system *sys, ull a, ull n, uint32_t *tiles)
{
    return vx_make_tiles_lim(sys, a, n, tiles, VX_TILE_ENTRIES, VX_TILE_ENTRIES);
}

/* The distinct bit patterns of v[0..n) when there are at most VX_DICT of
 * them: sorted into keys, *nk set, returns 1; else 0.  A small open-
 * addressing set; consecutive equal values (the common case: a model's few
 * probabilities repeat) cost one compare. */
static int vx_dict(const double *v, ull n, unsigned long long *keys, uint32_t *nk)
{
    enum { SLOTS = 4 * VX_DICT };
    unsigned long long tab[SLOTS];
    unsigned char used[SLOTS];
    memset(used, 0, sizeof used);
    uint32_t cnt = 0;
    unsigned long long last = 0;
    int have_last = 0;
    for (ull i = 0; i < n; i++) {
        unsigned long long k;
        memcpy(&k, &v[i], sizeof k);
        if (have_last && k == last)
            continue;
        last = k, have_last = 1;
        unsigned h = (unsigned)((k * 0x9e3779b97f4a7c15ull) >> 54) % SLOTS;
        while (used[h] && tab[h] != k)
            h = (h + 1) % SLOTS;
        if (used[h])
            continue;
        if (cnt == VX_DICT)
            return 0;
        used[h] = 1, tab[h] = k, keys[cnt++] = k;
    }
    /* insertion sort: <= 256 keys */
    for (uint32_t i = 1; i < cnt; i++) {
        const unsigned long long k = keys[i];
        uint32_t j = i;
        while (j > 0 && keys[j - 1] > k)
            keys[j] = keys[j - 1], j--;
        keys[j] = k;
    }
    *nk = cnt;
    return 1;
}

/* Target bits of a packed entry word with nk distinct probabilities (the
 * rest holds the probability's index): n must be <= 2^this. */
static uint32_t vx_pack_shift(uint32_t nk)
{
    uint32_t bits = 1;
    while ((1u << bits) < nk)
        bits++;
    return 32 - bits;
}

/* ---- packing on the host ----
 * The packed sweep's arrays are built on the host with all cores and only
 * they go up (5.4 B per entry for consensus N=6 K=2 instead of the 26 B of
 * the raw system, which the packed kernel never reads): phase 1 checks the
 * shape (every state has 1..VX_PK_TILE choices and at most VX_PK_TILE
 * entries) and collects the distinct probabilities and constants of a
 * range of states per thread; phase 2 (after the dictionaries are merged
 * and the tiles made) writes the packed words of a range of tiles per
 * thread and checks the targets.  Deterministic: the words do not depend on
 * the thread count. */
struct vx_hpack {
    const struct vi_system *sys;
    unsigned nt;
    /* phase 1, per thread: 0 packable range, 1 a state without a choice, 2 a
     * state too big or more than VX_DICT distinct numbers, 3 out of memory;
     * the range's tiles (first states, ntl of them: the greedy tiles of
     * vx_make_tiles_lim over the thread's range alone -- where the ranges
     * meet a tile may be shorter than the serial greedy one's; tiles only
     * divide the work, values do not depend on them) */
    int p1[64];
    unsigned long long pk[64][VX_DICT], bk[64][VX_DICT];
    uint32_t npk[64], nbk[64];
    uint32_t *tl[64];
    ull ntl[64];
    /* phase 2: thread t writes the records of its tiles from trec + off[t] */
    uint4 *trec;
    ull off[64];
    const unsigned long long *keys, *bkeys;
    uint32_t nkeys, nbkeys, shift;
    uint32_t *pent;
    uint16_t *pcho;
    uint8_t *psst;
    int badt[64]; /* a target >= n in this thread's range */
};

struct vx_job {
    struct vx_hpack *h;
    unsigned t;
    void (*fn)(struct vx_hpack *, unsigned);
};

static void *vx_job_run(void *a)
{
    struct vx_job *j = (struct vx_job *)a;
    j->fn(j->h, j->t);
    return NULL;
}

/* fn(h, t) for t < h->nt, on h->nt threads (the caller's included); a
 * thread that cannot be created runs on the caller afterwards. */
static void vx_par(struct vx_hpack *h, void (*fn)(struct vx_hpack *, unsigned))
{
    pthread_t tid[64];
    struct vx_job job[64];
    int started[64];
    for (unsigned t = 1; t < h->nt; t++) {
        job[t].h = h, job[t].t = t, job[t].fn = fn;
        started[t] = pthread_create(&tid[t], NULL, vx_job_run, &job[t]) == 0;
    }
    fn(h, 0);
    for (unsigned t = 1; t < h->nt; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            fn(h, t);
    }
}

static void vx_pack_phase1(struct vx_hpack *h, unsigned t)
{
    const struct vi_system *sys = h->sys;
    const uint64_t *ss = sys->state_start, *cs = sys->choice_start;
    const ull n = sys->n_states, a = n * t / h->nt, z = n * (t + 1) / h->nt;
    h->p1[t] = 0;
    for (ull s = a; s < z; s++) {
        if (ss[s + 1] <= ss[s]) {
            h->p1[t] = 1;
            return;
        }
        if (ss[s + 1] - ss[s] > VX_PK_TILE || cs[ss[s + 1]] - cs[ss[s]] > VX_PK_TILE)
            h->p1[t] = 2;
    }
    if (h->p1[t])
        return;
    if (!vx_dict(sys->probs + cs[ss[a]], cs[ss[z]] - cs[ss[a]], h->pk[t], &h->npk[t]) ||
        !vx_dict(sys->b + ss[a], ss[z] - ss[a], h->bk[t], &h->nbk[t])) {
        h->p1[t] = 2;
        return;
    }
    h->tl[t] = (uint32_t *)malloc((z - a + 1) * sizeof(uint32_t));
    if (!h->tl[t]) {
        h->p1[t] = 3;
        return;
    }
    h->ntl[t] = vx_make_tiles_lim(sys, a, z, h->tl[t], VX_PK_TILE, VX_PK_TILE);
}

/* Index of key among keys[0..nk) (sorted, present by construction). */
static uint32_t vx_hfind(const unsigned long long *keys, uint32_t nk, const double *v)
{
    unsigned long long k;
    memcpy(&k, v, sizeof k);
    uint32_t lo = 0, hi = nk;
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (keys[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void vx_pack_phase2(struct vx_hpack *h, unsigned t)
{
    const struct vi_system *sys = h->sys;
    const uint64_t *ss = sys->state_start, *cs = sys->choice_start;
    const ull n = sys->n_states, z = n * (t + 1) / h->nt, nk = h->ntl[t];
    const uint32_t *tg = sys->targets, *tl = h->tl[t];
    const double *pr = sys->probs, *b = sys->b;
    int bad = 0;
    /* the last probability's index: consecutive entries mostly repeat one */
    unsigned long long lastk = 0;
    uint32_t lasti = 0;
    int have = 0;
    for (ull k = 0; k < nk; k++) {
        const uint32_t sa = tl[k], sb = k + 1 < nk ? tl[k + 1] : (uint32_t)z;
        const uint4 ta = make_uint4(sa, (uint32_t)ss[sa], (uint32_t)cs[ss[sa]], 0),
                    tb = make_uint4(sb, (uint32_t)ss[sb], (uint32_t)cs[ss[sb]], 0);
        h->trec[h->off[t] + k] = ta;
        for (uint32_t s = ta.x; s < tb.x; s++)
            h->psst[s] = (uint8_t)(ss[s + 1] - ta.y);
        for (uint32_t c = ta.y; c < tb.y; c++)
            h->pcho[c] = (uint16_t)((cs[c + 1] - ta.z) | vx_hfind(h->bkeys, h->nbkeys, &b[c]) << 8);
        for (uint32_t e = ta.z; e < tb.z; e++) {
            unsigned long long pk;
            memcpy(&pk, &pr[e], sizeof pk);
            if (!have || pk != lastk)
                lastk = pk, lasti = vx_hfind(h->keys, h->nkeys, &pr[e]), have = 1;
            bad |= tg[e] >= n;
            h->pent[e] = tg[e] | lasti << h->shift;
        }
    }
    h->badt[t] = bad;
}

static int vx_cmp_key(const void *a, const void *b)
{
    const unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

/* Merges the threads' dictionaries (sorted, distinct) into keys; 0 when
 * more than VX_DICT. */
static int vx_merge_dicts(const unsigned long long (*k)[VX_DICT], const uint32_t *nk, unsigned nt,
                          unsigned long long *keys, uint32_t *nkeys)
{
    unsigned long long *all = (unsigned long long *)malloc((size_t)nt * VX_DICT * sizeof *all);
    if (!all)
        return -1;
    size_t m = 0;
    for (unsigned t = 0; t < nt; t++)
        for (uint32_t i = 0; i < nk[t]; i++)
            all[m++] = k[t][i];
    qsort(all, m, sizeof *all, vx_cmp_key);
    uint32_t c = 0;
    int ok = 1;
    for (size_t i = 0; i < m && ok; i++) {
        if (i && all[i] == all[i - 1])
            continue;
        if (c == VX_DICT)
            ok = 0;
        else
            keys[c++] = all[i];
    }
    free(all);
    *nkeys = c;
    return ok;
}

/* Threads for host packing: all cores up to 64, one per 256 Ki entries. */
static unsigned vx_pack_threads(const struct vi_system *sys)
{
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    ull want = sys->n_entries / (256u << 10) + 1;
    if (c < 1)
        c = 1;
    if (c > 64)
        c = 64;
    if (want > (ull)c)
        want = (ull)c;
    if (want > sys->n_states)
        want = sys->n_states ? sys->n_states : 1;
    return (unsigned)want;
}

/* Checks what a bad system could turn into out-of-bounds reads: a target
 * >= n (bad[0]) or a state without a choice (bad[1]). */
static __global__ void vx_check_system(vx_sys sy, ull ne, unsigned *bad)
{
    const ull stride = (ull)gridDim.x * blockDim.x;
    for (ull i = blockIdx.x * (ull)blockDim.x + threadIdx.x; i < ne; i += stride)
        if (sy.tg[i] >= sy.n)
            bad[0] = 1; /* benign: every writer stores 1 */
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < sy.n; s += stride)
        if (sy.ss[s + 1] <= sy.ss[s])
            bad[1] = 1;
}

typedef void (*vx_persist_fn)(vx_sys, double *, double *, vx_ctl *, ull, ull, double, int);

template <bool IV, bool MX>
static vx_persist_fn vx_pick_persist2(int kind)
{
    switch (kind) {
    case 14: return vi_sweep_persist<IV, MX, false>;
    case 15: return vi_sweep_persist<IV, MX, true>;
    default: return vi_sweep_persist3<IV, MX>; /* 17 */
    }
}

static vx_persist_fn vx_pick_persist(int iv, int mx, int kind)
{
    if (iv)
        return mx ? vx_pick_persist2<true, true>(kind) : vx_pick_persist2<true, false>(kind);
    return mx ? vx_pick_persist2<false, true>(kind) : vx_pick_persist2<false, false>(kind);
}

/* Host packing (struct vx_hpack) of sys, phase 1: *packable = 1 and the
 * dictionaries when the packed sweep can take sys; WX_EINPUT for a state
 * without a choice. */
static int vx_pack_plan(struct vx_hpack *hp, const struct vi_system *sys, unsigned long long *pkeys, uint32_t *npk,
                        unsigned long long *bkeys, uint32_t *nbk, int *packable, struct wx_error *err)
{
    *packable = 0;
    hp->sys = sys;
    hp->nt = vx_pack_threads(sys);
    vx_par(hp, vx_pack_phase1);
    int big = 0;
    for (unsigned t = 0; t < hp->nt; t++) {
        if (hp->p1[t] == 1)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: a state without a choice");
        if (hp->p1[t] == 3)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration tiles)");
        big |= hp->p1[t] == 2;
    }
    if (big)
        return WX_OK;
    const int a = vx_merge_dicts(hp->pk, hp->npk, hp->nt, pkeys, npk);
    const int b = a > 0 ? vx_merge_dicts(hp->bk, hp->nbk, hp->nt, bkeys, nbk) : a;
    if (a < 0 || b < 0)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration dictionaries)");
    *packable = a && b && sys->n_states <= (1ull << vx_pack_shift(*npk));
    return WX_OK;
}

/* What the sweep loop (vx_sweeps) needs of a solve. */
struct vx_sweeper {
    int pers, inpl, iv;
    vx_sweep_fn fn;
    vx_persist_fn pfn;
    unsigned blocks;
    vx_sys sy;
    double *x2[2], *dlo[2], *dhi[2];
    vx_ctl *ctl, *hctl; /* hctl: pinned, 2 slots */
    cudaEvent_t ev_start, ev[2];
    double eps;
    int rel;
};

/* Up to max_it sweeps (>= 1) from buffer 0 (x2[0], or dlo[0] / dhi[0]),
 * numbered 1, 2, ... with a fresh control block; stops after the first
 * sweep that meets the stopping rule.  *done = sweeps done, *converged,
 * *ms = device time of the sweeps; the last iterate is in buffer
 * (inpl ? 0 : *done & 1).  Not converging within max_it is no error here. */
static int vx_sweeps(struct vx_sweeper *sw, ull max_it, ull *done, int *converged, float *ms, struct wx_error *err)
{
    int rc = WX_OK;
    const int pers = sw->pers, inpl = sw->inpl, iv = sw->iv;
    const unsigned blocks = sw->blocks;
    double **x2 = sw->x2, **dlo = sw->dlo, **dhi = sw->dhi;
    vx_ctl *ctl = sw->ctl, *hctl = sw->hctl;
    ull launched = 0, done_iter = 0;
    *converged = 0;
    *ms = 0;
    CK(cudaMemset(ctl, 0, sizeof(vx_ctl)));
    CK(cudaEventRecord(sw->ev_start));
    {
        /* up to two batches in flight; slot i's copy of ctl lands in hctl[i];
         * persistent kinds: a batch is one launch of up to `batch` sweeps */
        ull batch = pers ? VX_PCHUNK_MIN : VX_BATCH_MIN, last_of[2] = {0, 0};
        const ull bmax = pers ? VX_PCHUNK_MAX : VX_BATCH_MAX;
        int pending = 0, head = 0, seen = 0; /* pending batches: slots head, head^1 */
        for (;;) {
            while (pending < 2 && launched < max_it) {
                const ull k = batch < max_it - launched ? batch : max_it - launched;
                if (pers) {
                    double *xa = x2[0] ? x2[0] : dlo[0], *xb = x2[0] ? x2[1] : dlo[1];
                    ull it0 = launched + 1, it1 = launched + k;
                    double eps = sw->eps;
                    int rel = sw->rel;
                    void *args[] = {&sw->sy, &xa, &xb, &ctl, &it0, &it1, &eps, &rel};
                    CK(cudaLaunchCooperativeKernel((const void *)sw->pfn, dim3(blocks), dim3(VX_THREADS), args, 0, 0));
                    CK_LAUNCH("vi_sweep_persist");
                    launched += k;
                }
                for (ull j = 0; !pers && j < k; j++) {
                    const ull it = ++launched;
                    const int r = inpl ? 0 : (int)((it - 1) & 1), w = inpl ? 0 : (int)(it & 1);
                    if (x2[0])
                        sw->fn<<<blocks, VX_THREADS>>>(sw->sy, x2[r], NULL, x2[w], NULL, ctl, it, sw->eps, sw->rel);
                    else
                        sw->fn<<<blocks, VX_THREADS>>>(sw->sy, dlo[r], iv ? dhi[r] : NULL, dlo[w], iv ? dhi[w] : NULL,
                                                       ctl, it, sw->eps, sw->rel);
                    CK_LAUNCH("vi_sweep");
                }
                const int slot = (head + pending) & 1;
                CK(cudaMemcpyAsync(&hctl[slot], ctl, sizeof(vx_ctl), cudaMemcpyDeviceToHost));
                CK(cudaEventRecord(sw->ev[slot]));
                last_of[slot] = launched;
                pending++;
                if (batch < bmax)
                    batch *= 2;
            }
            if (!pending)
                break;
            CK(cudaEventSynchronize(sw->ev[head]));
            seen = head;
            const vx_ctl *h = &hctl[head];
            const ull last = last_of[head];
            if (h->done) {
                *converged = 1;
                done_iter = h->done_iter;
            } else if (h->viol[last % 3] == 0) {
                *converged = 1; /* the batch's last sweep converged; the next batch (if any) is no-ops */
                done_iter = last;
            }
            if (*converged) {
                CK(cudaEventElapsedTime(ms, sw->ev_start, sw->ev[head]));
                break;
            }
            head ^= 1;
            pending--;
        }
        if (!*converged) {
            CK(cudaEventElapsedTime(ms, sw->ev_start, sw->ev[seen]));
            done_iter = launched;
        }
        CK(cudaDeviceSynchronize());
    }
out:
    *done = done_iter;
    return rc;
}

/* ======================================================================
 * Certified policy iteration (valiter.h, VI_POLICY)
 *
 * Step 1 is vx_sweeps in two parts (K/2 and K - K/2 sweeps, K =
 * VI_PI_SWEEPS or par->pi_sweeps), the largest gap after each from a
 * reduction (vx_maxgap), and the contract's rule whether interval
 * iteration simply goes on; the system stays on the
 * device in whatever form the sweeps read (packed or unpacked), and the
 * steps below read it through vx_pis: 32-bit state and choice offsets
 * (for a packed system expanded once on the device from the tiles), and
 * entries and constants from the packed words and dictionaries or from the
 * raw arrays.  The few whole-system steps (greedy policy, improvable
 * states, w switching, the certificate sweep) are simple kernels of one
 * thread per state; the arithmetic of a choice's value is the sweeps'
 * (b[c] + p0 x0 + p1 x1 + ... in entry order, each product and sum rounded
 * on its own: state_update2 in analysis/valiter.c), so the certificate
 * compares exactly the F the interval sweeps apply.
 *
 * BiCGSTAB runs as ONE cooperative launch per linear solve (vx_bicg): every
 * thread owns rows i = its global index + k * grid size, the scalars live
 * in registers (every block computes the same ones), and each iteration
 * meets at three grid barriers:
 *   A  p = r + beta (p' - omega v'), v = A p;     partial (rh, v)
 *   B  s = r - alpha v, t = A s;                  partials (s, s), (t, s), (t, t)
 *   C  y += alpha p + omega s, r = s - omega t;   partials (rh, r), (r, r)
 * A product gathers its operand at the targets, which other threads are
 * writing in the same phase: A computes p[t] from r, p', v' at t (the
 * previous p and v are double-buffered), B computes s[t] from r and v at t
 * -- the same separately rounded operations as the owner's, so the same
 * doubles -- which saves a barrier per product.  A dot product: each
 * thread sums its rows in order, the block by a fixed shuffle tree, the
 * grid by every block summing the blocks' partials in block order (all
 * blocks get the same bits: the decisions are uniform, and the result is
 * deterministic).  Cross-block data is loaded through L2 (__ldcg).
 *
 * MEASURED (H100, 2026-11-27, helper pi9's call 2; WARPEX_PI_TRACE=1 prints
 * the phases): consensus N=6 K=2's Pmax system (647 014 states, 3.0 M
 * choices, 3.7 M entries), VI_POLICY 0.049-0.051 s against interval
 * iteration's 0.187-0.189 s in the same process: set-up (host packing,
 * uploads) ~10 ms, step 1 200 sweeps 7.0 ms, x 188 BiCGSTAB iterations
 * 9.9 ms and 7 policy rounds 11.0 ms in all, w 167 + 187 iterations 18.9
 * ms, certificate 0.09 ms: certified, 1102 products.  A BiCGSTAB
 * iteration costs ~53 us on 528 blocks (~194 bytes per state streamed:
 * the vectors, 52 MB, just exceed L2); with the partials read by three
 * warps (call 1) it was ~48 us -- compared across calls, not A/B.
 * ====================================================================== */

#define VX_PI_THREADS 256u

/* Test hooks: caps below the contract's VI_PI_ROUNDS and VI_PI_KRYLOV_MAX
 * (0 = the contract's), so that the tests reach the fallback (step 5), and
 * a cap on BiCGSTAB's blocks (0: as many as fit), so that small systems
 * too have threads with several rows. */
static int vx_pi_rounds_cap = 0, vx_pi_krylov_cap = 0, vx_pi_blocks_cap = 0;

extern "C" void valiter_gpu_set_pi_limits(int rounds, int krylov_iterations, int krylov_blocks)
{
    vx_pi_rounds_cap = rounds;
    vx_pi_krylov_cap = krylov_iterations;
    vx_pi_blocks_cap = krylov_blocks;
}

/* The system as the policy steps read it. */
struct vx_pis {
    const uint32_t *__restrict__ ss32, *__restrict__ cs32; /* n + 1, n_choices + 1 */
    const uint32_t *__restrict__ tg;                       /* unpacked */
    const double *__restrict__ pr, *__restrict__ b;
    const uint32_t *__restrict__ pent; /* packed (vx_sys's fields) */
    const uint16_t *__restrict__ pcho;
    const double *__restrict__ pdict, *__restrict__ bdict;
    uint32_t pshift;
    ull n;
};

template <bool PK>
static __device__ __forceinline__ void vx_pi_entry(const vx_pis &q, uint32_t e, uint32_t &t, double &p)
{
    if (PK) {
        const uint32_t w = __ldg(q.pent + e);
        t = w & ((1u << q.pshift) - 1u);
        p = __ldg(q.pdict + (w >> q.pshift));
    } else {
        t = __ldg(q.tg + e);
        p = __ldg(q.pr + e);
    }
}

template <bool PK>
static __device__ __forceinline__ double vx_pi_const(const vx_pis &q, uint32_t c)
{
    return PK ? __ldg(q.bdict + (__ldg(q.pcho + c) >> 8)) : __ldg(q.b + c);
}

/* v + sum p x[t] over choice c's entries, in entry order, each product
 * and sum rounded on its own (the sweeps' arithmetic) */
template <bool PK>
static __device__ __forceinline__ double vx_pi_accumulate(const vx_pis &q, uint32_t c, const double *x, double v)
{
    for (uint32_t e = __ldg(q.cs32 + c), e1 = __ldg(q.cs32 + c + 1); e < e1; e++) {
        uint32_t t;
        double p;
        vx_pi_entry<PK>(q, e, t, p);
        v = __dadd_rn(v, __dmul_rn(p, x[t]));
    }
    return v;
}

/* Choice c's value on x. */
template <bool PK>
static __device__ __forceinline__ double vx_pi_value(const vx_pis &q, uint32_t c, const double *x)
{
    return vx_pi_accumulate<PK>(q, c, x, vx_pi_const<PK>(q, c));
}

/* sum p w[t] over choice c's entries, from 0 */
template <bool PK>
static __device__ __forceinline__ double vx_pi_pw(const vx_pis &q, uint32_t c, const double *w)
{
    return vx_pi_accumulate<PK>(q, c, w, 0.0);
}

/* The contract's shadow residual rh[i] (exact: the scaling is by powers of 2). */
static __device__ __forceinline__ double vx_pi_shadow(ull i)
{
    ull z = i + 1 + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return 0.5 + 0.5 * ((double)(z >> 11) * 0x1p-53);
}

/* Control block of the policy steps (device memory, read back whole). */
struct vx_pictl {
    unsigned long long count;     /* switched states */
    unsigned long long wmax_bits; /* largest w (a positive double's bits order as integers) */
    unsigned long long gmax_bits; /* largest hi - lo (vx_maxgap) */
    unsigned bad[4];              /* 0: a w not finite or <= 0; 1: F(l) >= l fails; 2: F(u) <= u fails; 3: gap */
    int kstatus;                  /* BiCGSTAB: 1 converged, 2 breakdown, 3 no convergence */
    unsigned kiters;
    unsigned long long kproducts;
};

/* count += the block's sum of mine (one atomic per block) */
static __device__ __forceinline__ void vx_pi_count(unsigned long long mine, unsigned long long *count)
{
    __shared__ unsigned long long sc;
    if (threadIdx.x == 0)
        sc = 0;
    __syncthreads();
    for (int off = 16; off; off >>= 1)
        mine += __shfl_xor_sync(VX_FULL, mine, off);
    if ((threadIdx.x & 31u) == 0 && mine)
        atomicAdd(&sc, mine);
    __syncthreads();
    if (threadIdx.x == 0 && sc)
        atomicAdd(count, sc);
}

/* The packed system's 32-bit offsets, from its tiles (one warp per tile). */
static __global__ void vx_pi_expand(const uint4 *__restrict__ trec, ull ntiles, const uint8_t *__restrict__ psst,
                                    const uint16_t *__restrict__ pcho, ull n, ull nc, ull ne, uint32_t *ss32,
                                    uint32_t *cs32)
{
    const unsigned lane = threadIdx.x & 31u;
    const ull nw = ((ull)gridDim.x * blockDim.x) >> 5;
    for (ull k = (blockIdx.x * (ull)blockDim.x + threadIdx.x) >> 5; k < ntiles; k += nw) {
        const uint4 ta = trec[k], tb = trec[k + 1];
        for (uint32_t s = ta.x + lane; s < tb.x; s += 32)
            ss32[s] = ta.y + (s == ta.x ? 0u : (uint32_t)psst[s - 1]);
        for (uint32_t c = ta.y + lane; c < tb.y; c += 32)
            cs32[c] = ta.z + (c == ta.y ? 0u : (uint32_t)(pcho[c - 1] & 0xffu));
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        ss32[n] = (uint32_t)nc, cs32[nc] = (uint32_t)ne;
}

/* improve == 0: sig = the greedy policy of x (per state the first choice
 * with the best value).  improve == 1: at the states where the best value
 * beats x[s] by more than VI_PI_IMPROVE eps (1 + |x[s]|), sig switches to
 * the first best choice; count += those states. */
template <bool PK, bool MX>
static __global__ void __launch_bounds__(VX_PI_THREADS)
    vx_pi_greedy(vx_pis q, const double *__restrict__ x, int improve, double eps, uint32_t *sig,
                 unsigned long long *count)
{
    unsigned long long mine = 0;
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < q.n; s += (ull)gridDim.x * blockDim.x) {
        const uint32_t c0 = q.ss32[s], c1 = q.ss32[s + 1];
        double best = 0;
        uint32_t bc = c0;
        for (uint32_t c = c0; c < c1; c++) {
            const double v = vx_pi_value<PK>(q, c, x);
            if (c == c0 || (MX ? v > best : v < best))
                best = v, bc = c;
        }
        if (!improve)
            sig[s] = bc;
        else {
            const double xs = x[s], margin = __dmul_rn(__dmul_rn(VI_PI_IMPROVE, eps), __dadd_rn(1.0, fabs(xs)));
            if (MX ? best > __dadd_rn(xs, margin) : best < __dsub_rn(xs, margin))
                sig[s] = bc, mine++;
        }
    }
    if (improve)
        vx_pi_count(mine, count);
}

/* The policy's rows: row[s] = the entries of choice pol[s]; bsig[s] = its
 * constant (when bsig is not NULL). */
template <bool PK>
static __global__ void vx_pi_rows(vx_pis q, const uint32_t *__restrict__ pol, uint2 *row, double *bsig)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < q.n; s += (ull)gridDim.x * blockDim.x) {
        const uint32_t c = pol[s];
        row[s] = make_uint2(q.cs32[c], q.cs32[c + 1]);
        if (bsig)
            bsig[s] = vx_pi_const<PK>(q, c);
    }
}

/* Step 3's switch: N(s) = the choices whose value on x is within gamma of
 * x[s]; tau switches where the largest sum p w[t] over N(s) beats tau's by
 * more than VI_PI_IMPROVE_W (1 + tau's), to the first choice with the
 * largest; count += those states.  bad[0] when some w is not finite or not
 * positive (those states do not switch). */
template <bool PK, bool MX>
static __global__ void __launch_bounds__(VX_PI_THREADS)
    vx_pi_wswitch(vx_pis q, const double *__restrict__ x, const double *__restrict__ w, double gamma, uint32_t *tau,
                  unsigned long long *count, unsigned *bad)
{
    unsigned long long mine = 0;
    int b = 0;
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < q.n; s += (ull)gridDim.x * blockDim.x) {
        const double ws = w[s];
        if (!(ws > 0) || !isfinite(ws)) {
            b = 1;
            continue;
        }
        const double xs = x[s], lim = MX ? __dsub_rn(xs, gamma) : __dadd_rn(xs, gamma);
        const uint32_t tc = tau[s], c1 = q.ss32[s + 1];
        const double cur = vx_pi_pw<PK>(q, tc, w);
        double best = cur;
        uint32_t bc = tc;
        for (uint32_t c = q.ss32[s]; c < c1; c++) {
            const double v = vx_pi_value<PK>(q, c, x);
            if (MX ? v < lim : v > lim)
                continue;
            const double f = vx_pi_pw<PK>(q, c, w);
            if (f > best)
                best = f, bc = c;
        }
        if (bc != tc && best > __dadd_rn(cur, __dmul_rn(VI_PI_IMPROVE_W, __dadd_rn(1.0, cur))))
            tau[s] = bc, mine++;
    }
    vx_pi_count(mine, count);
    if (__syncthreads_or(b) && threadIdx.x == 0)
        atomicOr(bad, 1u);
}

/* The largest w (positive and finite: vx_pi_wswitch checked it). */
/* The largest hi - lo, or hi alone when lo is NULL (the entries of state s
 * at lo[s * stride], hi[s * stride]: interleaved pairs or two arrays), at
 * least 0, into *gmax_bits (atomicMax on the bits: the values are >= 0);
 * as the twin's max_gap, NaN gaps are passed over. */
static __global__ void vx_maxgap(const double *__restrict__ lo, const double *__restrict__ hi, ull stride, ull n,
                                 unsigned long long *gmax_bits)
{
    double m = 0;
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x) {
        const double d = lo ? hi[s * stride] - lo[s * stride] : hi[s * stride];
        m = d > m ? d : m;
    }
    for (int off = 16; off; off >>= 1) {
        const double o = __shfl_xor_sync(VX_FULL, m, off);
        m = o > m ? o : m;
    }
    if ((threadIdx.x & 31u) == 0)
        atomicMax(gmax_bits, (unsigned long long)__double_as_longlong(m));
}

/* l = x - delta w, u = x + delta w */
static __global__ void vx_pi_bounds(const double *__restrict__ x, const double *__restrict__ w, double delta, ull n,
                                    double *l, double *u)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x) {
        const double dw = __dmul_rn(delta, w[s]);
        l[s] = __dsub_rn(x[s], dw);
        u[s] = __dadd_rn(x[s], dw);
    }
}

/* One interval sweep's F on (l, u) (state_update2: the first choice's
 * value, then better ones) into fl, fu; bad[1] when F(l) >= l fails at
 * some state, bad[2] when F(u) <= u does (NaN fails). */
template <bool PK, bool MX>
static __global__ void __launch_bounds__(VX_PI_THREADS)
    vx_pi_cert(vx_pis q, const double *__restrict__ l, const double *__restrict__ u, double *fl, double *fu,
               unsigned *bad)
{
    int bl = 0, bu = 0;
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < q.n; s += (ull)gridDim.x * blockDim.x) {
        const uint32_t c0 = q.ss32[s], c1 = q.ss32[s + 1];
        double vl = 0, vu = 0;
        for (uint32_t c = c0; c < c1; c++) {
            double al = vx_pi_const<PK>(q, c), au = al;
            for (uint32_t e = q.cs32[c], e1 = q.cs32[c + 1]; e < e1; e++) {
                uint32_t t;
                double p;
                vx_pi_entry<PK>(q, e, t, p);
                al = __dadd_rn(al, __dmul_rn(p, l[t]));
                au = __dadd_rn(au, __dmul_rn(p, u[t]));
            }
            if (c == c0)
                vl = al, vu = au;
            else if (MX)
                vl = al > vl ? al : vl, vu = au > vu ? au : vu;
            else
                vl = al < vl ? al : vl, vu = au < vu ? au : vu;
        }
        fl[s] = vl;
        fu[s] = vu;
        bl |= !(vl >= l[s]);
        bu |= !(vu <= u[s]);
    }
    if (__syncthreads_or(bl) && threadIdx.x == 0)
        atomicOr(&bad[1], 1u);
    if (__syncthreads_or(bu) && threadIdx.x == 0)
        atomicOr(&bad[2], 1u);
}

/* Each proved half tightens its bound: lo = max(lo, F(l)) when okl, hi =
 * min(hi, F(u)) when oku; bad[3] when hi - lo <= eps fails somewhere. */
static __global__ void vx_pi_apply(const double *__restrict__ fl, const double *__restrict__ fu, int okl, int oku,
                                   ull n, double eps, double *lo, double *hi, unsigned *bad)
{
    int b = 0;
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x) {
        double l = lo[s], h = hi[s];
        if (okl) {
            const double v = fl[s];
            l = v > l ? v : l;
            lo[s] = l;
        }
        if (oku) {
            const double v = fu[s];
            h = v < h ? v : h;
            hi[s] = h;
        }
        b |= !(h - l <= eps);
    }
    if (__syncthreads_or(b) && threadIdx.x == 0)
        atomicOr(&bad[3], 1u);
}

/* Block sums of a0..a(nq-1) into part[k * gridDim.x + blockIdx.x]: a
 * fixed shuffle tree per warp, the warps in order. */
static __device__ __forceinline__ void vx_kb_put(int nq, double a0, double a1, double a2, double *part)
{
    __shared__ double sh[VX_PI_THREADS / 32][3];
    const unsigned lane = threadIdx.x & 31u, wp = threadIdx.x >> 5;
    for (int off = 16; off; off >>= 1) {
        a0 = __dadd_rn(a0, __shfl_xor_sync(VX_FULL, a0, off));
        a1 = __dadd_rn(a1, __shfl_xor_sync(VX_FULL, a1, off));
        a2 = __dadd_rn(a2, __shfl_xor_sync(VX_FULL, a2, off));
    }
    if (lane == 0)
        sh[wp][0] = a0, sh[wp][1] = a1, sh[wp][2] = a2;
    __syncthreads();
    if (threadIdx.x < (unsigned)nq) {
        double s = 0;
        for (unsigned k = 0; k < VX_PI_THREADS / 32; k++)
            s = __dadd_rn(s, sh[k][threadIdx.x]);
        part[threadIdx.x * gridDim.x + blockIdx.x] = s;
    }
    __syncthreads();
}

/* After the grid barrier: tot[k] = the sum of the blocks' partials k, the
 * same bits in every block: thread j sums partials j, j + blockDim, ... in
 * order, then the block's fixed tree (every thread takes part: a block
 * reads the grid's partials in one round of loads). */
static __device__ __forceinline__ void vx_kb_get(int nq, const double *part, double *tot)
{
    __shared__ double sg[3][VX_PI_THREADS / 32];
    const unsigned lane = threadIdx.x & 31u, wp = threadIdx.x >> 5;
    double a[3] = {0, 0, 0};
#pragma unroll
    for (int k = 0; k < 3; k++) {
        if (k >= nq)
            break;
        for (unsigned j = threadIdx.x; j < gridDim.x; j += blockDim.x)
            a[k] = __dadd_rn(a[k], __ldcg(part + k * gridDim.x + j));
        for (int off = 16; off; off >>= 1)
            a[k] = __dadd_rn(a[k], __shfl_xor_sync(VX_FULL, a[k], off));
        if (lane == 0)
            sg[k][wp] = a[k];
    }
    __syncthreads();
    if (threadIdx.x < (unsigned)nq) {
        double t = 0;
        for (unsigned w = 0; w < VX_PI_THREADS / 32; w++)
            t = __dadd_rn(t, sg[threadIdx.x][w]);
        tot[threadIdx.x] = t;
    }
    __syncthreads();
}

/* (A x)[i] part: sum over row i of p * (the operand at t), where the
 * operand is computed by op from the target's index (see vx_bicg). */
template <bool PK, typename OP>
static __device__ __forceinline__ double vx_pi_rowsum(const vx_pis &q, uint2 rw, OP op)
{
    double sum = 0;
    for (uint32_t e = rw.x; e < rw.y; e++) {
        uint32_t t;
        double p;
        vx_pi_entry<PK>(q, e, t, p);
        sum = __dadd_rn(sum, __dmul_rn(p, op(t)));
    }
    return sum;
}

/* BiCGSTAB for (I - P) y = c (c NULL: all ones), P = the policy's rows;
 * y holds the start on entry.  The contract's iteration (valiter.h), one
 * cooperative launch (see the section comment).  r, p0, p1, v0, v1, tv:
 * n doubles each; part: 9 doubles per block. */
template <bool PK>
static __global__ void __launch_bounds__(VX_PI_THREADS)
    vx_bicg(vx_pis q, const uint2 *__restrict__ row, const double *__restrict__ c, double *y, double *r, double *p0,
            double *p1, double *v0, double *v1, double *tv, double *part, vx_pictl *kc, double tol, unsigned maxit)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ double tot[3];
    const ull n = q.n, i0 = blockIdx.x * (ull)blockDim.x + threadIdx.x, st = (ull)gridDim.x * blockDim.x;
    double *pa = part, *pb = part + 3 * gridDim.x, *pc = part + 6 * gridDim.x;

    /* r = c - A y, p = v = 0 */
    double a0 = 0, a1 = 0, a2 = 0;
    for (ull i = i0; i < n; i += st) {
        const double sum = vx_pi_rowsum<PK>(q, __ldg(row + i), [&](uint32_t t) { return y[t]; });
        const double ci = c ? __ldg(c + i) : 1.0, ri = __dsub_rn(ci, __dsub_rn(y[i], sum));
        r[i] = ri;
        p0[i] = 0;
        v0[i] = 0;
        a0 = __dadd_rn(a0, __dmul_rn(ci, ci));
        a1 = __dadd_rn(a1, __dmul_rn(vx_pi_shadow(i), ri));
    }
    vx_kb_put(2, a0, a1, 0, pc);
    grid.sync();
    vx_kb_get(2, pc, tot);
    const double bn = sqrt(tot[0]), lim = tol * bn;
    double rho1 = tot[1], rho = 1, alpha = 1, omega = 1;
    ull prod = 1;
    int status = 0;
    unsigned it = 0;
    if (bn == 0) { /* c = 0: y = 0 */
        for (ull i = i0; i < n; i += st)
            y[i] = 0;
        status = 1;
    }
    while (!status) {
        if (it == maxit) {
            status = 3;
            break;
        }
        it++;
        const double *po = (it & 1) ? p0 : p1, *vo = (it & 1) ? v0 : v1;
        double *pn = (it & 1) ? p1 : p0, *vn = (it & 1) ? v1 : v0;
        if (rho1 == 0 || !isfinite(rho1) || omega == 0) {
            status = 2;
            break;
        }
        const double beta = (rho1 / rho) * (alpha / omega);
        /* A: p = r + beta (p' - omega v'), v = A p */
        auto pnew = [&](uint32_t t) {
            return __dadd_rn(__ldcg(r + t), __dmul_rn(beta, __dsub_rn(__ldcg(po + t), __dmul_rn(omega, __ldcg(vo + t)))));
        };
        a0 = 0;
        for (ull i = i0; i < n; i += st) {
            const double pi = pnew((uint32_t)i);
            const double vi = __dsub_rn(pi, vx_pi_rowsum<PK>(q, __ldg(row + i), pnew));
            pn[i] = pi;
            vn[i] = vi;
            a0 = __dadd_rn(a0, __dmul_rn(vx_pi_shadow(i), vi));
        }
        vx_kb_put(1, a0, 0, 0, pa);
        grid.sync();
        vx_kb_get(1, pa, tot);
        if (tot[0] == 0 || !isfinite(tot[0])) {
            status = 2;
            break;
        }
        alpha = rho1 / tot[0];
        /* B: s = r - alpha v, t = A s */
        auto snew = [&](uint32_t t) { return __dsub_rn(__ldcg(r + t), __dmul_rn(alpha, __ldcg(vn + t))); };
        a0 = a1 = a2 = 0;
        for (ull i = i0; i < n; i += st) {
            const double si = snew((uint32_t)i);
            const double ti = __dsub_rn(si, vx_pi_rowsum<PK>(q, __ldg(row + i), snew));
            tv[i] = ti;
            a0 = __dadd_rn(a0, __dmul_rn(si, si));
            a1 = __dadd_rn(a1, __dmul_rn(ti, si));
            a2 = __dadd_rn(a2, __dmul_rn(ti, ti));
        }
        vx_kb_put(3, a0, a1, a2, pb);
        grid.sync();
        vx_kb_get(3, pb, tot);
        if (sqrt(tot[0]) <= lim) { /* y += alpha p: one product this iteration */
            for (ull i = i0; i < n; i += st)
                y[i] = __dadd_rn(y[i], __dmul_rn(alpha, __ldcg(pn + i)));
            prod += 1;
            status = 1;
            break;
        }
        prod += 2;
        if (tot[2] == 0 || !isfinite(tot[2]) || !isfinite(tot[1])) {
            status = 2;
            break;
        }
        omega = tot[1] / tot[2];
        /* C: y += alpha p + omega s, r = s - omega t */
        a0 = a1 = 0;
        for (ull i = i0; i < n; i += st) {
            const double si = snew((uint32_t)i), ti = tv[i];
            y[i] = __dadd_rn(y[i], __dadd_rn(__dmul_rn(alpha, __ldcg(pn + i)), __dmul_rn(omega, si)));
            const double ri = __dsub_rn(si, __dmul_rn(omega, ti));
            a0 = __dadd_rn(a0, __dmul_rn(vx_pi_shadow(i), ri));
            a1 = __dadd_rn(a1, __dmul_rn(ri, ri));
            /* r[i] is read by other threads' gathers of phase B only (done) */
            r[i] = ri;
        }
        vx_kb_put(2, a0, a1, 0, pc);
        grid.sync();
        vx_kb_get(2, pc, tot);
        rho = rho1;
        rho1 = tot[0];
        if (!isfinite(tot[1]))
            status = 2;
        else if (sqrt(tot[1]) <= lim)
            status = 1;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        kc->kstatus = status;
        kc->kiters = it;
        kc->kproducts = prod;
    }
}

/* Fills x[0..n) with v. */
static __global__ void vx_fill(double *x, ull n, double v)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x)
        x[s] = v;
}


typedef void (*vx_bicg_fn)(vx_pis, const uint2 *, const double *, double *, double *, double *, double *, double *,
                           double *, double *, double *, vx_pictl *, double, unsigned);

/* Device state of the policy steps (vx_policy). */
struct vx_pi {
    vx_pis q;
    int pk, mx;
    uint32_t *sig, *tau;
    uint2 *row;
    double *bsig, *x, *w, *wb, *r, *p0, *p1, *v0, *v1, *tv, *part;
    vx_pictl *pc; /* device */
    vx_pictl *hpc; /* pinned host copy */
    unsigned kblocks; /* vx_bicg's cooperative grid */
    int trace;       /* WARPEX_PI_TRACE: per-phase device times on stderr */
};

/* One launch of a grid-stride policy kernel over the states. */
#define PI_GRID(n) vx_blocks(n), VX_PI_THREADS

static int vx_pi_sync(struct vx_pi *P, struct wx_error *err)
{
    int rc = WX_OK;
    CK(cudaMemcpy(P->hpc, P->pc, sizeof(vx_pictl), cudaMemcpyDeviceToHost));
out:
    return rc;
}

/* BiCGSTAB on the rows in P->row: (I - P) y = c.  *ok = converged. */
static int vx_pi_krylov(struct vx_pi *P, const double *c, double *y, double tol, struct vi_stats *st, int *ok,
                        struct wx_error *err)
{
    int rc = WX_OK;
    vx_bicg_fn fn = P->pk ? vx_bicg<true> : vx_bicg<false>;
    unsigned maxit = vx_pi_krylov_cap > 0 ? (unsigned)vx_pi_krylov_cap : VI_PI_KRYLOV_MAX;
    const double t0 = vx_now();
    void *args[] = {&P->q, &P->row, &c,     &y,      &P->r, &P->p0, &P->p1, &P->v0,
                    &P->v1, &P->tv, &P->part, &P->pc, &tol,  &maxit};
    CK(cudaLaunchCooperativeKernel((const void *)fn, dim3(P->kblocks), dim3(VX_PI_THREADS), args, 0, 0));
    CK_LAUNCH("vx_bicg");
    if ((rc = vx_pi_sync(P, err)))
        goto out;
    st->products += P->hpc->kproducts;
    *ok = P->hpc->kstatus == 1;
    if (P->trace)
        fprintf(stderr, "pi: bicgstab %s: %u iterations, %llu products, %.3f ms (%d blocks)\n",
                c ? "x" : "w", P->hpc->kiters, (unsigned long long)P->hpc->kproducts, (vx_now() - t0) * 1e3,
                P->kblocks);
out:
    return rc;
}

#define PI_CLEAR(field)                                                                            \
    CK(cudaMemset((char *)P->pc + offsetof(vx_pictl, field), 0, sizeof(((vx_pictl *)0)->field)))

/* Steps 2-4 of the contract on the device, from the lower and upper
 * bounds in dlo / dhi (which the certificate's proved halves tighten).
 * *certified = 1: dlo / dhi are the answer; 0: step 5 must finish.
 * *sweeps counts the whole-operator applications (greedy policies, the
 * certificate). */
static int vx_policy(struct vx_pi *P, const struct vi_params *par, double *dlo, double *dhi, ull *sweeps,
                     struct vi_stats *st, int *certified, struct wx_error *err)
{
    int rc = WX_OK, ok = 0;
    const ull n = P->q.n;
    const int rounds = vx_pi_rounds_cap > 0 ? vx_pi_rounds_cap : VI_PI_ROUNDS;
    const double gamma = par->epsilon / 2;
    double t0 = vx_now(), wmax = 0, delta = 0;
    void (*greedy)(vx_pis, const double *, int, double, uint32_t *, unsigned long long *) =
        P->pk ? (P->mx ? vx_pi_greedy<true, true> : vx_pi_greedy<true, false>)
              : (P->mx ? vx_pi_greedy<false, true> : vx_pi_greedy<false, false>);
    void (*rows)(vx_pis, const uint32_t *, uint2 *, double *) = P->pk ? vx_pi_rows<true> : vx_pi_rows<false>;
    *certified = 0;

    /* step 2: sigma = the greedy policy of the lower bound, x from it */
    greedy<<<PI_GRID(n)>>>(P->q, dlo, 0, par->epsilon, P->sig, NULL);
    CK_LAUNCH("vx_pi_greedy");
    ++*sweeps;
    rows<<<PI_GRID(n)>>>(P->q, P->sig, P->row, P->bsig);
    CK_LAUNCH("vx_pi_rows");
    CK(cudaMemcpyAsync(P->x, dlo, n * sizeof(double), cudaMemcpyDeviceToDevice));
    for (int round = 1; round <= rounds; round++) {
        if ((rc = vx_pi_krylov(P, P->bsig, P->x, VI_PI_TOL, st, &ok, err)) || !ok)
            goto out; /* a breakdown or no convergence: step 5 */
        st->policy_rounds++;
        PI_CLEAR(count);
        greedy<<<PI_GRID(n)>>>(P->q, P->x, 1, par->epsilon, P->sig, &P->pc->count);
        CK_LAUNCH("vx_pi_greedy");
        ++*sweeps;
        if ((rc = vx_pi_sync(P, err)))
            goto out;
        if (P->trace)
            fprintf(stderr, "pi: round %d: %llu improvable states\n", round, (unsigned long long)P->hpc->count);
        if (!P->hpc->count)
            break;
        rows<<<PI_GRID(n)>>>(P->q, P->sig, P->row, P->bsig);
        CK_LAUNCH("vx_pi_rows");
    }
    if (P->trace)
        fprintf(stderr, "pi: policy rounds %.3f ms\n", (vx_now() - t0) * 1e3), t0 = vx_now();

    /* step 3: w, the largest expected time over the near-tied choices N(s);
     * each round's solve starts from the last w (the first from 1), and a
     * failed solve after the first leaves the last round's w */
    {
        void (*wswitch)(vx_pis, const double *, const double *, double, uint32_t *, unsigned long long *,
                        unsigned *) = P->pk ? (P->mx ? vx_pi_wswitch<true, true> : vx_pi_wswitch<true, false>)
                                            : (P->mx ? vx_pi_wswitch<false, true> : vx_pi_wswitch<false, false>);
        CK(cudaMemcpyAsync(P->tau, P->sig, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
        rows<<<PI_GRID(n)>>>(P->q, P->tau, P->row, NULL);
        CK_LAUNCH("vx_pi_rows");
        vx_fill<<<PI_GRID(n)>>>(P->w, n, 1.0);
        CK_LAUNCH("vx_fill");
        for (int wr = 1; wr <= VI_PI_W_ROUNDS; wr++) {
            if (wr > 1)
                CK(cudaMemcpyAsync(P->wb, P->w, n * sizeof(double), cudaMemcpyDeviceToDevice));
            if ((rc = vx_pi_krylov(P, NULL, P->w, VI_PI_W_TOL, st, &ok, err)))
                goto out;
            if (!ok) {
                if (wr == 1)
                    goto out; /* step 5 */
                CK(cudaMemcpyAsync(P->w, P->wb, n * sizeof(double), cudaMemcpyDeviceToDevice));
                break;
            }
            PI_CLEAR(count);
            PI_CLEAR(bad);
            wswitch<<<PI_GRID(n)>>>(P->q, P->x, P->w, gamma, P->tau, &P->pc->count, P->pc->bad);
            CK_LAUNCH("vx_pi_wswitch");
            if ((rc = vx_pi_sync(P, err)))
                goto out;
            if (P->trace)
                fprintf(stderr, "pi: w round %d: %llu switches%s\n", wr, (unsigned long long)P->hpc->count,
                        P->hpc->bad[0] ? ", a w not finite or not positive" : "");
            if (P->hpc->bad[0])
                goto out; /* step 5 */
            if (!P->hpc->count)
                break;
            rows<<<PI_GRID(n)>>>(P->q, P->tau, P->row, NULL);
            CK_LAUNCH("vx_pi_rows");
        }
        PI_CLEAR(wmax_bits);
        PI_CLEAR(bad);
        vx_maxgap<<<PI_GRID(n)>>>(NULL, P->w, 1, n, &P->pc->wmax_bits);
        CK_LAUNCH("vx_maxgap (w)");
        if ((rc = vx_pi_sync(P, err)))
            goto out;
        memcpy(&wmax, &P->hpc->wmax_bits, sizeof wmax);
    }
    if (P->trace)
        fprintf(stderr, "pi: w rounds %.3f ms, max w %.6g\n", (vx_now() - t0) * 1e3, wmax), t0 = vx_now();

    /* step 4: the certificate (l in r, u in p0, F(l) in v0, F(u) in v1) */
    {
        void (*cert)(vx_pis, const double *, const double *, double *, double *, unsigned *) =
            P->pk ? (P->mx ? vx_pi_cert<true, true> : vx_pi_cert<true, false>)
                  : (P->mx ? vx_pi_cert<false, true> : vx_pi_cert<false, false>);
        delta = par->epsilon / (2 * wmax);
        vx_pi_bounds<<<PI_GRID(n)>>>(P->x, P->w, delta, n, P->r, P->p0);
        CK_LAUNCH("vx_pi_bounds");
        cert<<<PI_GRID(n)>>>(P->q, P->r, P->p0, P->v0, P->v1, P->pc->bad);
        CK_LAUNCH("vx_pi_cert");
        ++*sweeps;
        if ((rc = vx_pi_sync(P, err)))
            goto out;
        const int okl = !P->hpc->bad[1], oku = !P->hpc->bad[2];
        vx_pi_apply<<<PI_GRID(n)>>>(P->v0, P->v1, okl, oku, n, par->epsilon, dlo, dhi, P->pc->bad);
        CK_LAUNCH("vx_pi_apply");
        if ((rc = vx_pi_sync(P, err)))
            goto out;
        *certified = okl && oku && !P->hpc->bad[3];
        if (P->trace)
            fprintf(stderr, "pi: certificate %.3f ms: delta %.3g, F(l) >= l %s, F(u) <= u %s, gap %s\n",
                    (vx_now() - t0) * 1e3, delta, okl ? "holds" : "fails", oku ? "holds" : "fails",
                    P->hpc->bad[3] ? "too wide" : "ok");
    }
out:
    return rc;
}

/* Can the policy steps run on this device (cooperative launch)? */
static int vx_pi_possible(const struct vi_system *sys)
{
    int dev = 0, coop = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return coop && sys->n_choices <= 0xfffffffeull && sys->n_entries <= 0xfffffffeull;
}

/* The policy steps' device state (buffers in mem) for the uploaded system
 * sy (packed or not). */
static int vx_pi_setup(struct vx_pi *P, struct vx_mem *m, const struct vi_system *sys, const vx_sys *sy, int packed,
                       int maximize, struct wx_error *err)
{
    int rc = WX_OK;
    const ull n = sys->n_states, nc = sys->n_choices, ne = sys->n_entries;
    void *p_;
    int dev = 0, sms = 0, per_sm = 0;
    P->pk = packed, P->mx = maximize;
    P->q.n = n;
    if (packed) {
        P->q.pent = sy->pent, P->q.pcho = sy->pcho, P->q.pdict = sy->pdict, P->q.bdict = sy->bdict;
        P->q.pshift = sy->pshift;
        if ((rc = vx_alloc(m, &p_, (n + 1) * sizeof(uint32_t), "state offsets (32-bit)", err)))
            goto out;
        P->q.ss32 = (const uint32_t *)p_;
        if ((rc = vx_alloc(m, &p_, (nc + 1) * sizeof(uint32_t), "choice offsets (32-bit)", err)))
            goto out;
        P->q.cs32 = (const uint32_t *)p_;
        vx_pi_expand<<<vx_blocks(sy->ntiles * 32), VX_THREADS>>>(sy->trec, sy->ntiles, sy->psst, sy->pcho, n, nc, ne,
                                                                 (uint32_t *)P->q.ss32, (uint32_t *)P->q.cs32);
        CK_LAUNCH("vx_pi_expand");
    } else {
        P->q.tg = sy->tg, P->q.pr = sy->pr, P->q.b = sy->b;
        P->q.ss32 = sy->ss32, P->q.cs32 = sy->cs32;
        for (int k = 0; k < 2; k++) {
            const ull len = k ? nc + 1 : n + 1;
            if (k ? P->q.cs32 : P->q.ss32)
                continue;
            if ((rc = vx_alloc(m, &p_, len * sizeof(uint32_t), "offsets (32-bit)", err)))
                goto out;
            vx_narrow<<<vx_blocks(len), VX_THREADS>>>(k ? sy->cs : sy->ss, len, (uint32_t *)p_);
            CK_LAUNCH("vx_narrow");
            if (k)
                P->q.cs32 = (const uint32_t *)p_;
            else
                P->q.ss32 = (const uint32_t *)p_;
        }
    }
    {
        CK(cudaGetDevice(&dev));
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, packed ? vx_bicg<true> : vx_bicg<false>,
                                                          VX_PI_THREADS, 0));
        /* WARPEX_PI_BLOCKS=k: at most k blocks per SM for BiCGSTAB (measurements) */
        const char *e = getenv("WARPEX_PI_BLOCKS");
        const int cap = e && *e ? atoi(e) : 0;
        if (cap > 0 && cap < per_sm)
            per_sm = cap;
        if (per_sm < 1) {
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "policy iteration: the BiCGSTAB kernel cannot be launched");
            goto out;
        }
        const ull need = (n + VX_PI_THREADS - 1) / VX_PI_THREADS, most = (ull)sms * (ull)per_sm;
        P->kblocks = (unsigned)(need < most ? need : most);
        if (vx_pi_blocks_cap > 0 && P->kblocks > (unsigned)vx_pi_blocks_cap)
            P->kblocks = (unsigned)vx_pi_blocks_cap;
        if (!P->kblocks)
            P->kblocks = 1;
    }
    {
        /* one slab: sig, tau, row, then 10 vectors, the partials, the control block */
        const size_t a = 256, nv = ((n * sizeof(double) + a - 1) / a) * a, ni = ((n * sizeof(uint32_t) + a - 1) / a) * a;
        const size_t parts = ((9 * (size_t)P->kblocks * sizeof(double) + a - 1) / a) * a;
        const size_t bytes = 2 * ni + nv /* row: 8 B per state */ + 10 * nv + parts + sizeof(vx_pictl);
        if ((rc = vx_alloc(m, &p_, bytes, "policy iteration vectors", err)))
            goto out;
        char *q = (char *)p_;
        P->sig = (uint32_t *)q, q += ni;
        P->tau = (uint32_t *)q, q += ni;
        P->row = (uint2 *)q, q += nv;
        double **vec[10] = {&P->bsig, &P->x, &P->w, &P->wb, &P->r, &P->p0, &P->p1, &P->v0, &P->v1, &P->tv};
        for (int k = 0; k < 10; k++)
            *vec[k] = (double *)q, q += nv;
        P->part = (double *)q, q += parts;
        P->pc = (vx_pictl *)q;
        CK(cudaMemset(P->pc, 0, sizeof(vx_pictl)));
    }
    if (!P->hpc)
        CK(cudaHostAlloc((void **)&P->hpc, sizeof(vx_pictl), cudaHostAllocDefault));
out:
    return rc;
}

/* The sweeps' iterate in buffer buf moved to buffer 0, where vx_sweeps
 * starts (a fresh sequence of sweeps: Jacobi depends on the values only). */
static int vx_to_buf0(struct vx_sweeper *sw, ull n, int buf, struct wx_error *err)
{
    int rc = WX_OK;
    if (buf <= 0)
        return WX_OK;
    if (sw->x2[0])
        CK(cudaMemcpyAsync(sw->x2[0], sw->x2[1], 2 * n * sizeof(double), cudaMemcpyDeviceToDevice));
    else {
        CK(cudaMemcpyAsync(sw->dlo[0], sw->dlo[1], n * sizeof(double), cudaMemcpyDeviceToDevice));
        if (sw->iv)
            CK(cudaMemcpyAsync(sw->dhi[0], sw->dhi[1], n * sizeof(double), cudaMemcpyDeviceToDevice));
    }
out:
    return rc;
}

/* *gap = the largest hi - lo of the sweeps' buffer buf. */
static int vx_pi_gap(struct vx_pi *P, const struct vx_sweeper *sw, ull n, int buf, double *gap, struct wx_error *err)
{
    int rc = WX_OK;
    const double *l = sw->x2[0] ? sw->x2[buf] : sw->dlo[buf], *h = sw->x2[0] ? sw->x2[buf] + 1 : sw->dhi[buf];
    PI_CLEAR(gmax_bits);
    vx_maxgap<<<PI_GRID(n)>>>(l, h, sw->x2[0] ? 2 : 1, n, &P->pc->gmax_bits);
    CK_LAUNCH("vx_maxgap");
    if ((rc = vx_pi_sync(P, err)))
        goto out;
    memcpy(gap, &P->hpc->gmax_bits, sizeof *gap);
out:
    return rc;
}

extern "C" int valiter_solve_gpu(const struct vi_system *sys, const struct vi_params *par, double *lo, double *hi,
                                 struct vi_stats *stats, struct wx_error *err)
{
    const double t0 = vx_now();
    int rc = WX_OK;
    struct vx_mem mem = {{0}, 0};
    struct vi_stats st;
    memset(&st, 0, sizeof st);
    const ull n = sys->n_states, nc = sys->n_choices, ne = sys->n_entries;
    const int iv = hi != NULL;
    /* minimal bytes a sweep streams: the system once, each vector read once
     * and written once (the gathers x[t[e]] are not counted: they hit the
     * cache when targets are local) */
    st.bytes_per_sweep = 8 * (n + 1) + 8 * (nc + 1) + 8 * nc + 12 * ne + (uint64_t)(iv ? 2 : 1) * 16 * n;
    vx_sys sy;
    vx_ctl *ctl = NULL;
    vx_ctl *hctl = NULL; /* pinned, 2 slots */
    double *dlo[2] = {NULL, NULL}, *dhi[2] = {NULL, NULL};
    double *x2[2] = {NULL, NULL}; /* kind 5, interval: (lo, hi) pairs */
    unsigned *dbad = NULL, hbad[2] = {0, 0};
    cudaEvent_t ev_start = NULL, ev[2] = {NULL, NULL};
    int kind, g, g0, inpl, packed = 0, pers = 0, t3 = 0;
    unsigned long long pkeys[VX_DICT], bkeys[VX_DICT];
    uint32_t npk = 0, nbk = 0;
    ull done_iter = 0, max_it;
    int converged = 0;
    float ms = 0;
    unsigned blocks;
    vx_sweep_fn fn = NULL;
    vx_persist_fn pfn = NULL;
    struct vx_hpack *hp = NULL;
    float sweep_ms = 0;        /* device time of the Jacobi sweeps (steps 1 and 5 of VI_POLICY) */
    ull sweeps_timed = 0;
    int res_buf = 0;           /* the answer: sweep buffer res_buf, or -1: dlo[0] / dhi[0] */
    int pi = 0;                /* VI_POLICY's steps 2-5 may follow the sweeps */
    struct vx_pi P;
    memset(&P, 0, sizeof P);
    const char *pitr = getenv("WARPEX_PI_TRACE");
    const int pitrace = pitr && *pitr && *pitr != '0';

    if (!(par->epsilon > 0))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "epsilon must be > 0 (got %g)", par->epsilon);
    if (n == 0) {
        if (stats)
            *stats = st;
        return WX_OK;
    }
    if (n > 0xffffffffull)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "more than 2^32 - 1 states");
    if (sys->state_start[0] != 0 || sys->state_start[n] != nc || sys->choice_start[0] != 0 ||
        sys->choice_start[nc] != ne)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: inconsistent system offsets");
    if (!valiter_gpu_available())
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "no usable CUDA device (sm_90 or newer) for value iteration");
    max_it = par->max_iterations ? par->max_iterations : 1; /* the CPU twin also sweeps at least once */
    pi = par->method == VI_POLICY && iv && !par->relative && vx_pi_possible(sys);
    memset(&sy, 0, sizeof sy);
    sy.n = n;

    vx_shape(sys, &kind, &g);
    /* packed sweeps (vi_sweep_packed, vi_sweep_persist): the default where
     * the system allows it, or pinned (kinds 8-15, which fall back to kind
     * 5, or 7 in place, where it does not).  Packed on the host: the raw
     * system never goes up (the packed copy is smaller than it, so no
     * memory check beyond the allocations' own). */
    if ((kind == 5 && !vx_pinned(&g0)) || (kind >= 8 && kind <= 15)) {
        const int pinned = kind >= 8;
        int packable = 0;
        hp = (struct vx_hpack *)calloc(1, sizeof *hp);
        if (!hp)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration packing)");
        if ((rc = vx_pack_plan(hp, sys, pkeys, &npk, bkeys, &nbk, &packable, err)))
            goto out;
        if (packable) {
            if (!pinned) {
                int dev = 0, l2 = 0, coop = 0;
                CK(cudaGetDevice(&dev));
                CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
                CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
                /* evict-first loads of the streamed arrays when the two
                 * value vectors fit in half of L2 (they then stay there), cached
                 * loads when they do not; persistent sweeps (Jacobi, where the
                 * device can launch them cooperatively) before launched ones.
                 * H100, consensus N=6 K=2: persistent evict-first 34.95 us per
                 * sweep, persistent cached 37.8, launched evict-first 38.0,
                 * launched cached 40.3; 20 M states / 120 M entries: persistent
                 * 1.10 ms either way, launched 1.17 / 1.20 (vi run 1,
                 * 2026-11-22) */
                const int evict = (ull)(iv ? 2 : 1) * 16 * n <= (ull)l2 / 2;
                if (coop && par->method != VI_GAUSS_SEIDEL)
                    kind = evict ? 15 : 14;
                else
                    kind = evict ? 8 : 10;
            }
        } else if (pinned)
            kind = kind == 9 || kind == 11 || kind == 13 ? 7 : 5;
        else
            kind = par->method == VI_GAUSS_SEIDEL ? 5 : VX_UNPACKED_KIND;
    }
    if (par->method == VI_GAUSS_SEIDEL && (kind == 5 || kind == 8 || kind == 10 || kind == 12))
        kind += kind == 5 ? 2 : 1; /* in-place sweeps (see vi_sweep_tiles2) */
    if (par->method == VI_GAUSS_SEIDEL && (kind == 14 || kind == 15))
        kind = kind == 14 ? 11 : 9; /* persistent sweeps are Jacobi: the in-place packed sweep */
    if (par->method == VI_GAUSS_SEIDEL && (kind == 16 || kind == 17))
        kind = 7; /* the tiles3 sweeps are Jacobi: kind 5's in-place twin */
    inpl = kind == 7 || kind == 9 || kind == 11 || kind == 13;
    packed = kind >= 8 && kind <= 15;
    t3 = kind == 16 || kind == 17;
    pers = kind == 14 || kind == 15 || kind == 17;

    if (packed) {
        /* tiles, then the packed words (host, all cores), then the uploads:
         * tile records, dictionaries, packed arrays, the vectors */
        sy.ntiles = 0;
        for (unsigned t = 0; t < hp->nt; t++)
            hp->off[t] = sy.ntiles, sy.ntiles += hp->ntl[t];
        uint4 *hr = (uint4 *)malloc((sy.ntiles + 1) * sizeof(uint4));
        uint32_t *pe = hr ? (uint32_t *)malloc((ne ? ne : 1) * sizeof(uint32_t)) : NULL;
        uint16_t *pc = pe ? (uint16_t *)malloc((nc ? nc : 1) * sizeof(uint16_t)) : NULL;
        uint8_t *ps = pc ? (uint8_t *)malloc(n) : NULL;
        if (!ps) {
            free(hr), free(pe), free(pc);
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration packing)");
            goto out;
        }
        hr[sy.ntiles] = make_uint4((uint32_t)n, (uint32_t)nc, (uint32_t)ne, 0);
        sy.pshift = vx_pack_shift(npk);
        hp->trec = hr;
        hp->keys = pkeys, hp->nkeys = npk, hp->bkeys = bkeys, hp->nbkeys = nbk, hp->shift = sy.pshift;
        hp->pent = pe, hp->pcho = pc, hp->psst = ps;
        vx_par(hp, vx_pack_phase2);
        int badt = 0;
        for (unsigned t = 0; t < hp->nt; t++)
            badt |= hp->badt[t];
        double pv[VX_DICT], bv[VX_DICT];
        memset(pv, 0, sizeof pv), memset(bv, 0, sizeof bv);
        memcpy(pv, pkeys, npk * sizeof(double));
        memcpy(bv, bkeys, nbk * sizeof(double));
        void *p_ = NULL;
        if (badt)
            rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: an entry goes to a state >= %llu", n);
        if (!rc && !(rc = vx_upload(&mem, &p_, hr, (sy.ntiles + 1) * sizeof(uint4), "tile records", err)))
            sy.trec = (const uint4 *)p_;
        if (!rc && !(rc = vx_upload(&mem, &p_, pe, (ne ? ne : 1) * sizeof(uint32_t), "packed entries", err)))
            sy.pent = (const uint32_t *)p_;
        if (!rc && !(rc = vx_upload(&mem, &p_, pc, (nc ? nc : 1) * sizeof(uint16_t), "packed choices", err)))
            sy.pcho = (const uint16_t *)p_;
        if (!rc && !(rc = vx_upload(&mem, &p_, ps, n, "packed states", err)))
            sy.psst = (const uint8_t *)p_;
        free(hr), free(pe), free(pc), free(ps);
        if (rc)
            goto out;
        UP(sy.pdict, pv, sizeof pv, "probability dictionary");
        UP(sy.bdict, bv, sizeof bv, "constant dictionary");
        if (iv) { /* interleaved on the device (a host loop would cost ~4 ms of page faults here) */
            UP(dlo[0], lo, n * sizeof(double), "lower values");
            UP(dhi[0], hi, n * sizeof(double), "upper values");
            AL(x2[0], 2 * n * sizeof(double), "value pairs");
            AL(x2[1], 2 * n * sizeof(double), "value pairs");
            vx_interleave<<<vx_blocks(n), VX_THREADS>>>(dlo[0], dhi[0], n, (double2 *)x2[0]);
            CK_LAUNCH("vx_interleave");
        } else {
            UP(dlo[0], lo, n * sizeof(double), "lower values");
            AL(dlo[1], n * sizeof(double), "lower values");
        }
        AL(ctl, sizeof(vx_ctl), "sweep control");
        CK(cudaMemset(ctl, 0, sizeof(vx_ctl)));
        /* what this kernel must stream: 1 B per state, 2 B per choice, 4 B per entry */
        st.bytes_per_sweep = n + 2 * nc + 4 * ne + (uint64_t)(iv ? 2 : 1) * 16 * n;
    } else {
        UP(sy.ss, sys->state_start, (n + 1) * sizeof(ull), "state offsets");
        UP(sy.cs, sys->choice_start, (nc + 1) * sizeof(ull), "choice offsets");
        UP(sy.tg, sys->targets, ne * sizeof(uint32_t), "targets");
        UP(sy.pr, sys->probs, ne * sizeof(double), "probabilities");
        UP(sy.b, sys->b, nc * sizeof(double), "constants");
        UP(dlo[0], lo, n * sizeof(double), "lower values");
        AL(dlo[1], n * sizeof(double), "lower values");
        if (iv) {
            UP(dhi[0], hi, n * sizeof(double), "upper values");
            AL(dhi[1], n * sizeof(double), "upper values");
        }
        AL(ctl, sizeof(vx_ctl), "sweep control");
        AL(dbad, 2 * sizeof(unsigned), "input check");
        CK(cudaMemset(ctl, 0, sizeof(vx_ctl)));
        CK(cudaMemset(dbad, 0, 2 * sizeof(unsigned)));
        vx_check_system<<<vx_blocks(ne > n ? ne : n), VX_THREADS>>>(sy, ne, dbad);
        CK_LAUNCH("vx_check_system");
        CK(cudaMemcpy(hbad, dbad, sizeof hbad, cudaMemcpyDeviceToHost));
        if (hbad[0]) {
            rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: an entry goes to a state >= %llu", n);
            goto out;
        }
        if (hbad[1]) {
            rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: a state without a choice");
            goto out;
        }
    }
    if (kind >= 5 && !packed) {
        /* 32-bit offsets; interval bounds as (lo, hi) pairs in x2[0..1] */
        uint32_t *p32;
        AL(p32, (n + 1) * sizeof(uint32_t), "state offsets (32-bit)");
        vx_narrow<<<vx_blocks(n + 1), VX_THREADS>>>(sy.ss, n + 1, p32);
        CK_LAUNCH("vx_narrow");
        sy.ss32 = p32;
        AL(p32, (nc + 1) * sizeof(uint32_t), "choice offsets (32-bit)");
        vx_narrow<<<vx_blocks(nc + 1), VX_THREADS>>>(sy.cs, nc + 1, p32);
        CK_LAUNCH("vx_narrow");
        sy.cs32 = p32;
        if (iv) {
            AL(x2[0], 2 * n * sizeof(double), "value pairs");
            AL(x2[1], 2 * n * sizeof(double), "value pairs");
            vx_interleave<<<vx_blocks(n), VX_THREADS>>>(dlo[0], dhi[0], n, (double2 *)x2[0]);
            CK_LAUNCH("vx_interleave");
        }
        /* what this kernel must stream: 4 B per state and per choice offset */
        st.bytes_per_sweep = 4 * (n + 1) + 4 * (nc + 1) + 8 * nc + 12 * ne + (uint64_t)(iv ? 2 : 1) * 16 * n;
        uint32_t *ht = (uint32_t *)malloc((n + 1) * sizeof(uint32_t));
        uint4 *hr = ht ? (uint4 *)malloc((n + 1) * sizeof(uint4)) : NULL;
        if (!hr) {
            free(ht);
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration tiles)");
            goto out;
        }
        sy.ntiles = vx_make_tiles_lim(sys, 0, n, ht, VX_TILE_ENTRIES, t3 ? VX_T3_CHOICES : VX_TILE_ENTRIES);
        for (ull k = 0; k <= sy.ntiles; k++) {
            const uint64_t c = sys->state_start[ht[k]];
            hr[k] = make_uint4(ht[k], (uint32_t)c, (uint32_t)sys->choice_start[c], 0);
        }
        free(ht);
        void *p_;
        rc = vx_upload(&mem, &p_, hr, (sy.ntiles + 1) * sizeof(uint4), "tile records", err);
        free(hr);
        if (rc)
            goto out;
        sy.trec = (const uint4 *)p_;
    } else if (kind >= 3 && !packed) {
        uint32_t *ht = (uint32_t *)malloc((n + 1) * sizeof(uint32_t));
        if (!ht) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration tiles)");
            goto out;
        }
        sy.ntiles = vx_make_tiles(sys, 0, n, ht);
        void *p_;
        rc = vx_upload(&mem, &p_, ht, (sy.ntiles + 1) * sizeof(uint32_t), "tiles", err);
        free(ht);
        if (rc)
            goto out;
        sy.tiles = (const uint32_t *)p_;
    }
    {
        int per_sm = 0, dev = 0, sms = 0;
        CK(cudaGetDevice(&dev));
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        if (pers) {
            int coop = 0;
            pfn = vx_pick_persist(iv, par->maximize, kind);
            CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pfn, VX_THREADS, 0));
            if (!coop || per_sm < 1) /* a persistent kind the device cannot launch: the launched sweeps */
                kind = kind == 14 ? 10 : kind == 15 ? 8 : 16, pers = 0;
        }
        if (!pers) {
            fn = vx_pick(iv, par->maximize, kind, g);
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, VX_THREADS, 0));
        }
        /* WARPEX_VI_PERSIST_BLOCKS=k: at most k blocks per SM for the
         * persistent and the tiles3 sweeps (measurements; tests: a warp
         * then sweeps several tiles) */
        const char *e = getenv("WARPEX_VI_PERSIST_BLOCKS");
        const int bcap = e && *e ? atoi(e) : 0;
        if ((pers || t3) && bcap > 0 && bcap < per_sm)
            per_sm = bcap;
        const ull lanes = kind >= 3 ? sy.ntiles * 32 : n * (ull)g;
        const ull need = (lanes + VX_THREADS - 1) / VX_THREADS;
        const ull cap = (ull)sms * (per_sm > 0 ? per_sm : 1);
        blocks = (unsigned)(need < cap ? need : cap);
        if (!blocks)
            blocks = 1;
    }
    vx_last_kind = kind;
    CK(cudaHostAlloc((void **)&hctl, 2 * sizeof(vx_ctl), cudaHostAllocDefault));
    CK(cudaEventCreate(&ev_start));
    CK(cudaEventCreate(&ev[0]));
    CK(cudaEventCreate(&ev[1]));

    {
        struct vx_sweeper sw;
        memset(&sw, 0, sizeof sw);
        sw.pers = pers, sw.inpl = inpl, sw.iv = iv, sw.fn = fn, sw.pfn = pfn, sw.blocks = blocks, sw.sy = sy;
        for (int i = 0; i < 2; i++)
            sw.x2[i] = x2[i], sw.dlo[i] = dlo[i], sw.dhi[i] = dhi[i], sw.ev[i] = ev[i];
        sw.ctl = ctl, sw.hctl = hctl, sw.ev_start = ev_start;
        sw.eps = par->epsilon, sw.rel = par->relative;
        res_buf = 0;
        /* VI_POLICY's step 1: K sweeps, in two parts (K/2, K - K/2) with the
         * largest gap after each; or the whole solve */
        const ull K = par->pi_sweeps ? par->pi_sweeps : VI_PI_SWEEPS;
        const ull part_len[2] = {pi ? (K >= 2 ? K / 2 : K) : max_it, pi && K >= 2 ? K - K / 2 : 0};
        double gap[2] = {0, 0}, tp = vx_now();
        ull used = 0, d = 0;
        if (pi) {
            if ((rc = vx_pi_setup(&P, &mem, sys, &sy, packed, par->maximize, err)))
                goto out;
            P.trace = pitrace;
        }
        for (int part = 0; part < 2 && part_len[part] && !converged && used < max_it; part++) {
            if ((rc = vx_to_buf0(&sw, n, res_buf, err)))
                goto out;
            const ull cap = part_len[part] < max_it - used ? part_len[part] : max_it - used;
            if ((rc = vx_sweeps(&sw, cap, &d, &converged, &ms, err)))
                goto out;
            used += d, sweep_ms += ms, sweeps_timed += d;
            res_buf = inpl ? 0 : (int)(d & 1);
            if (pi && K >= 2 && !converged && (rc = vx_pi_gap(&P, &sw, n, res_buf, &gap[part], err)))
                goto out;
        }
        done_iter = used;
        if (pitrace)
            fprintf(stderr, "pi: setup %.3f ms; %llu sweeps %.3f ms (device %.3f ms)%s, gaps %.3g %.3g\n",
                    (tp - t0) * 1e3, (unsigned long long)used, (vx_now() - tp) * 1e3, (double)sweep_ms,
                    converged ? ", converged" : "", gap[0], gap[1]);
        int policy = pi && !converged && used < max_it;
        if (policy && K >= 2 && gap[1] < gap[0] &&
            (double)(K - K / 2) * log(gap[1] / par->epsilon) / log(gap[0] / gap[1]) <= VI_PI_CONTINUE)
            policy = 0; /* interval iteration is about to finish: it goes on (step 5 alone) */
        if (pi && !converged && used < max_it && !policy) {
            if ((rc = vx_to_buf0(&sw, n, res_buf, err)) || (rc = vx_sweeps(&sw, max_it - used, &d, &converged, &ms, err)))
                goto out;
            used += d, sweep_ms += ms, sweeps_timed += d;
            res_buf = inpl ? 0 : (int)(d & 1);
            done_iter = used;
            if (pitrace)
                fprintf(stderr, "pi: interval iteration goes on: %llu sweeps%s\n", (unsigned long long)d,
                        converged ? ", converged" : "");
        }
        if (policy) {
            /* steps 2-4 on plain (lo, hi) arrays in dlo[0], dhi[0] */
            if (x2[0]) {
                vx_deinterleave<<<vx_blocks(n), VX_THREADS>>>((const double2 *)x2[res_buf], n, dlo[0], dhi[0]);
                CK_LAUNCH("vx_deinterleave");
            } else if (res_buf) {
                CK(cudaMemcpyAsync(dlo[0], dlo[1], n * sizeof(double), cudaMemcpyDeviceToDevice));
                CK(cudaMemcpyAsync(dhi[0], dhi[1], n * sizeof(double), cudaMemcpyDeviceToDevice));
            }
            res_buf = -1;
            int certified = 0;
            tp = vx_now();
            if ((rc = vx_policy(&P, par, dlo[0], dhi[0], &used, &st, &certified, err)))
                goto out;
            if (pitrace)
                fprintf(stderr, "pi: steps 2-4 %.3f ms, %s\n", (vx_now() - tp) * 1e3,
                        certified ? "certified" : "not certified: interval iteration finishes");
            done_iter = used;
            if (certified) { /* as the twin: the proof stands even past max_iterations */
                st.certified = 1;
                converged = 1;
            } else if (used < max_it) {
                /* step 5: interval iteration from the improved bounds */
                ull d5 = 0;
                if (x2[0]) {
                    vx_interleave<<<vx_blocks(n), VX_THREADS>>>(dlo[0], dhi[0], n, (double2 *)x2[0]);
                    CK_LAUNCH("vx_interleave");
                }
                tp = vx_now();
                if ((rc = vx_sweeps(&sw, max_it - used, &d5, &converged, &ms, err)))
                    goto out;
                if (pitrace)
                    fprintf(stderr, "pi: step 5: %llu sweeps %.3f ms%s\n", (unsigned long long)d5,
                            (vx_now() - tp) * 1e3, converged ? ", converged" : "");
                sweep_ms += ms;
                sweeps_timed += d5;
                done_iter = used + d5;
                res_buf = inpl ? 0 : (int)(d5 & 1);
            }
        }
    }
    {
        if (res_buf >= 0 && x2[0]) {
            vx_deinterleave<<<vx_blocks(n), VX_THREADS>>>((const double2 *)x2[res_buf], n, dlo[0], dhi[0]);
            CK_LAUNCH("vx_deinterleave");
            res_buf = 0;
        }
        const int w = res_buf > 0 ? res_buf : 0;
        CK(cudaMemcpy(lo, dlo[w], n * sizeof(double), cudaMemcpyDeviceToHost));
        if (iv)
            CK(cudaMemcpy(hi, dhi[w], n * sizeof(double), cudaMemcpyDeviceToHost));
    }
    st.iterations = done_iter;
    st.sweep_seconds = sweeps_timed ? (double)sweep_ms * 1e-3 / (double)sweeps_timed : 0;
    if (!converged)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "value iteration did not converge after %llu sweeps",
                     (unsigned long long)done_iter);
out:
    if (ev_start)
        cudaEventDestroy(ev_start);
    for (int i = 0; i < 2; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    if (P.hpc)
        cudaFreeHost(P.hpc);
    if (hctl)
        cudaFreeHost(hctl);
    vx_free_all(&mem);
    if (hp)
        for (unsigned t = 0; t < hp->nt; t++)
            free(hp->tl[t]);
    free(hp);
    st.seconds = vx_now() - t0;
    if (stats)
        *stats = st;
    return rc;
}


/* ======================================================================
 * Topological solving by levels (valiter.h, valiter_solve_levels_gpu)
 *
 * The value vectors stay on the device, as two (lo, hi)-pair buffers (lo
 * alone for plain VI); the system goes up in GROUPS of consecutive levels
 * that fit the budget (one group when it all fits).  Every launch of
 * vi_sweep_levels is the same: it reads which level to sweep from the
 * level control block (ctl.level, final since the previous launch ended),
 * sweeps that level's tiles from buffer ctl.rbuf into the other one
 * (Jacobi; the arithmetic of vi_sweep_tiles2, so bit-identical to the CPU
 * twin), and the last block to finish (a ticket counter, as in the CUDA
 * samples' threadFenceReduction) decides for the next launch: the level
 * met the stopping rule (or is acyclic: one sweep is exact) -> next level,
 * else another sweep, or a failure after max_iterations sweeps.  The host
 * only enqueues launches in batches and looks at a copy of ctl once per
 * batch, never per level; launches after the group's last level return at
 * once.  A level just finished has its final values in one buffer only:
 * the next launch also copies them into the other, so that every later
 * sweep, whichever buffer it reads, sees final values below its level.
 *
 * A level whose slice alone exceeds the budget is swept in CHUNKS of its
 * tiles, uploaded one after the other for every sweep (last_chunk = 0 for
 * all but the last: the sweep's decision waits for the last one).  Slow,
 * but it never needs more than the vectors and one chunk.
 *
 * The group's arrays are indexed with the system's own (absolute) state,
 * choice and entry numbers through base pointers shifted by the group's
 * first state/choice/entry (p - base + i, with base <= i: every access
 * stays inside the uploaded slice).
 * ====================================================================== */

/* A level of the uploaded group: tile records [t0, t1) of the group's
 * upload, states [s0, s1); cached: its slice fits in L2, so the streamed
 * arrays are loaded cached instead of evict-first. */
struct vx_level {
    uint32_t t0, t1, s0, s1, acyclic, cached;
};

/* Level control block (device memory). */
struct vx_lctl {
    unsigned level;        /* the level the next launch sweeps (global number)  */
    unsigned rbuf;         /* buffer holding the current iterate: 0 or 1        */
    unsigned viol;         /* some state of this sweep violated the rule        */
    unsigned arrived;      /* blocks of this launch done (ticket counter)       */
    unsigned sweep;        /* sweeps of the current level so far                */
    unsigned fail;         /* 1: max_iterations reached; 2: acyclic level missed the rule */
    unsigned fail_level, fail_sweeps;
    unsigned copy_s0, copy_s1; /* states to copy from buffer rbuf to the other  */
    unsigned pad[2];
    ull level_sweeps, updates;
};

/* Fraction of the L2 cache below which a level's slice is loaded cached
 * (always or never caching measured the same on consensus N=6 K=2, H200:
 * bench/RESULTS.md, topo helper's section). */
#define VX_L2_FRACTION 0.5

template <bool IV, bool MX>
static __global__ void __launch_bounds__(VX_THREADS, 4)
    vi_sweep_levels(vx_sys sy, const vx_level *__restrict__ lvt, unsigned lev_begin, unsigned lev_end, double *xa,
                    double *xb, vx_lctl *ctl, ull max_it, double eps, int rel, int last_chunk)
{
    __shared__ double sb[VX_THREADS / 32][VX_TILE_ENTRIES * (IV ? 2 : 1)];
    __shared__ int last;
    /* ctl is only written by the previous launches' last blocks (and this
     * launch's last block after every block has read it) */
    const unsigned L = *(volatile unsigned *)&ctl->level;
    if (L >= lev_end || L < lev_begin || *(volatile unsigned *)&ctl->fail)
        return;
    const unsigned r = *(volatile unsigned *)&ctl->rbuf;
    const unsigned cp0 = *(volatile unsigned *)&ctl->copy_s0, cp1 = *(volatile unsigned *)&ctl->copy_s1;
    const vx_level lv = lvt[L - lev_begin];
    /* only as many blocks as the level's tiles (and the copy) need take
     * part (and take a ticket); the rest leave at once: a small level does
     * not pay for the grid of the group's biggest */
    const ull wanted = ((ull)(lv.t1 - lv.t0) * 32 + (cp1 - cp0) / 4 + VX_THREADS - 1) / VX_THREADS;
    const unsigned part = (unsigned)(wanted < 1 ? 1 : wanted < gridDim.x ? wanted : gridDim.x);
    if (blockIdx.x >= part)
        return;
    const double *x = r ? xb : xa;
    double *nx = r ? xa : xb;
    const ull tid = blockIdx.x * (ull)blockDim.x + threadIdx.x, nthreads = (ull)part * blockDim.x;
    for (ull s = cp0 + tid; s < cp1; s += nthreads) {
        if (IV)
            reinterpret_cast<double2 *>(nx)[s] = reinterpret_cast<const double2 *>(x)[s];
        else
            nx[s] = x[s];
    }
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    const ull warp = tid >> 5, nwarps = nthreads >> 5;
    int bad = 0;
    for (ull k = lv.t0 + warp; k < lv.t1; k += nwarps) { /* warp-uniform */
        const uint4 ta = __ldg(sy.trec + k), tb = __ldg(sy.trec + k + 1);
        if (lv.cached)
            bad |= vx_tile2<IV, MX, true, false, false>(sy, ta, tb, x, nx, eps, rel, sb[w], lane);
        else
            bad |= vx_tile2<IV, MX, true, false, true>(sy, ta, tb, x, nx, eps, rel, sb[w], lane);
    }
    bad = __syncthreads_or(bad);
    if (threadIdx.x == 0) {
        if (bad)
            atomicOr(&ctl->viol, 1u);
        __threadfence(); /* this block's viol before its ticket */
        last = atomicAdd(&ctl->arrived, 1u) == part - 1;
    }
    __syncthreads();
    if (!last || threadIdx.x != 0)
        return;
    /* the last block: every other block has read ctl and published viol */
    __threadfence();
    ctl->arrived = 0;
    ctl->copy_s0 = ctl->copy_s1 = 0;
    if (!last_chunk)
        return; /* the sweep goes on with the level's next chunk */
    const unsigned viol = atomicOr(&ctl->viol, 0u);
    const unsigned sweep = ctl->sweep + 1;
    ctl->viol = 0;
    ctl->rbuf = r ^ 1u;
    ctl->updates += lv.s1 - lv.s0;
    if (!viol || (lv.acyclic && !IV)) { /* plain VI: an acyclic level is final */
        ctl->level_sweeps += sweep;
        ctl->sweep = 0;
        ctl->copy_s0 = lv.s0;
        ctl->copy_s1 = lv.s1;
        ctl->level = L + 1;
    } else if (lv.acyclic || sweep >= max_it) {
        ctl->level_sweeps += sweep;
        ctl->fail = lv.acyclic ? 2 : 1;
        ctl->fail_level = L;
        ctl->fail_sweeps = sweep;
    } else
        ctl->sweep = sweep;
}

typedef void (*vx_level_fn)(vx_sys, const vx_level *, unsigned, unsigned, double *, double *, vx_lctl *, ull, double,
                            int, int);

static vx_level_fn vx_pick_level(int iv, int mx)
{
    if (iv)
        return mx ? vi_sweep_levels<true, true> : vi_sweep_levels<true, false>;
    return mx ? vi_sweep_levels<false, true> : vi_sweep_levels<false, false>;
}

/* A group: levels [l0, l1) whole, or (chunk) tiles [t0, t1) of level l0 alone. */
struct vx_group {
    ull l0, l1, t0, t1;
    int chunk, last_chunk;
};

#define VX_ALIGN 256ull
static ull vx_round(ull b)
{
    return (b + VX_ALIGN - 1) / VX_ALIGN * VX_ALIGN;
}

/* Device bytes of the slice of tiles [t0, t1) (states, choices, entries they
 * cover) plus nl level records, each array rounded up as carved. */
static ull vx_slice_bytes(const struct vi_system *sys, const uint32_t *tiles, ull t0, ull t1, ull nl)
{
    const ull s0 = tiles[t0], s1 = tiles[t1];
    const ull c0 = sys->state_start[s0], c1 = sys->state_start[s1];
    const ull e0 = sys->choice_start[c0], e1 = sys->choice_start[c1];
    return vx_round(4 * (s1 - s0 + 1)) + vx_round(4 * (c1 - c0 + 1)) + vx_round(8 * (c1 - c0 + 1)) +
           vx_round(4 * (e1 - e0 + 1)) + vx_round(8 * (e1 - e0 + 1)) + vx_round(16 * (t1 - t0 + 1)) +
           vx_round(sizeof(vx_level) * (nl ? nl : 1));
}

extern "C" int valiter_solve_levels_gpu(const struct vi_system *sys, const struct vi_params *par,
                                        const struct vi_levels *lvs, double *lo, double *hi,
                                        struct vi_stats *stats, struct wx_error *err)
{
    const double t0 = vx_now();
    int rc = WX_OK;
    struct vx_mem mem = {{0}, 0};
    struct vi_stats st;
    memset(&st, 0, sizeof st);
    const ull n = sys->n_states, nc = sys->n_choices, ne = sys->n_entries, nlev = lvs->n_levels;
    const int iv = hi != NULL;
    const ull vbytes = iv ? 16 : 8; /* per state and buffer */
    st.bytes_per_sweep = 4 * (n + 1) + 4 * (nc + 1) + 8 * nc + 12 * ne + (uint64_t)(iv ? 2 : 1) * 16 * n;
    uint32_t *tiles = NULL, *ltile = NULL, *hss = NULL, *hcs = NULL;
    uint4 *hrec = NULL;
    vx_level *hlv = NULL;
    double *hx = NULL;
    struct vx_group *groups = NULL;
    ull ngroups = 0, ntiles = 0;
    vx_lctl *ctl = NULL, *hctl = NULL;
    double *xb[2] = {NULL, NULL};
    char *arena = NULL;
    cudaEvent_t ev_start = NULL, ev_end = NULL, ev[2] = {NULL, NULL};
    float ms = 0;
    vx_level_fn fn = vx_pick_level(iv, par->maximize);
    if (!(par->epsilon > 0))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "epsilon must be > 0 (got %g)", par->epsilon);
    if (lvs->level_start[0] != 0 || lvs->level_start[nlev] != n)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: inconsistent levels");
    if (n == 0) {
        if (stats)
            *stats = st;
        return WX_OK;
    }
    if (n >= 0xffffffffull || nc >= 0xffffffffull || ne >= 0xffffffffull || nlev >= 0xffffffffull)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "topological solving on the GPU takes fewer than 2^32 - 1 states, choices and "
                       "transitions (use --backend cpu)");
    if (sys->state_start[0] != 0 || sys->state_start[n] != nc || sys->choice_start[0] != 0 ||
        sys->choice_start[nc] != ne)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: inconsistent system offsets");
    for (ull s = 0; s < n; s++)
        if (sys->state_start[s + 1] <= sys->state_start[s])
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: a state without a choice");
    for (ull e = 0; e < ne; e++)
        if (sys->targets[e] >= n)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: an entry goes to a state >= %llu", n);
    if (!valiter_gpu_available())
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "no usable CUDA device (sm_90 or newer) for value iteration");
    const ull max_it = par->max_iterations ? par->max_iterations : 1;

    /* host side: 32-bit offsets, tiles level by level, tile records */
    tiles = (uint32_t *)malloc((n + nlev + 1) * sizeof *tiles);
    ltile = (uint32_t *)malloc((nlev + 1) * sizeof *ltile);
    hss = (uint32_t *)malloc((n + 1) * sizeof *hss);
    hcs = (uint32_t *)malloc((nc + 1) * sizeof *hcs);
    hx = (double *)malloc(n * vbytes);
    if (!tiles || !ltile || !hss || !hcs || !hx) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value iteration)");
        goto out;
    }
    for (ull s = 0; s <= n; s++)
        hss[s] = (uint32_t)sys->state_start[s];
    for (ull c = 0; c <= nc; c++)
        hcs[c] = (uint32_t)sys->choice_start[c];
    for (ull L = 0; L < nlev; L++) {
        ltile[L] = (uint32_t)ntiles;
        const ull a = lvs->level_start[L], z = lvs->level_start[L + 1];
        if (z > a)
            ntiles += vx_make_tiles(sys, a, z, tiles + ntiles);
    }
    ltile[nlev] = (uint32_t)ntiles;
    tiles[ntiles] = (uint32_t)n;
    hrec = (uint4 *)malloc((ntiles + 1) * sizeof *hrec);
    hlv = (vx_level *)malloc((nlev ? nlev : 1) * sizeof *hlv);
    if (!hrec || !hlv) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value iteration)");
        goto out;
    }
    for (ull k = 0; k <= ntiles; k++) {
        const ull c = sys->state_start[tiles[k]];
        hrec[k] = make_uint4(tiles[k], (uint32_t)c, (uint32_t)sys->choice_start[c], 0);
    }
    {
        /* the budget: the vectors, then groups of levels, or chunks of a level */
        size_t freeb = 0, totalb = 0;
        CK(cudaMemGetInfo(&freeb, &totalb));
        ull budget = (ull)freeb > (64ull << 20) ? (ull)freeb - (64ull << 20) : 0; /* room for CUDA's own needs */
        if (par->device_memory && par->device_memory < budget)
            budget = par->device_memory;
        const ull fixed = 2 * vx_round(n * vbytes) + vx_round(sizeof(vx_lctl));
        ull smallest = 0; /* the biggest single tile: every chunk holds one at least */
        for (ull k = 0; k < ntiles; k++) {
            const ull b = vx_slice_bytes(sys, tiles, k, k + 1, 1);
            smallest = b > smallest ? b : smallest;
        }
        if (budget < fixed + smallest)
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "topological solving on the GPU needs at least %llu bytes of device memory "
                         "(the value vectors and one tile), %llu available%s",
                         fixed + smallest, budget, par->device_memory ? " (--gpu-memory)" : "");
        if (rc)
            goto out;
        const ull sbudget = budget - fixed;
        int l2 = 0, dev = 0;
        CK(cudaGetDevice(&dev));
        CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        const double frac = VX_L2_FRACTION;
        groups = (struct vx_group *)malloc((nlev + ntiles + 1) * sizeof *groups);
        if (!groups) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value iteration)");
            goto out;
        }
        ull arena_bytes = 0;
        for (ull L = 0; L < nlev;) {
            const ull tl0 = ltile[L], tl1 = ltile[L + 1];
            if (vx_slice_bytes(sys, tiles, tl0, tl1, 1) > sbudget) {
                /* a level alone too big: chunks of its tiles */
                for (ull t = tl0; t < tl1;) {
                    ull u = t + 1;
                    while (u < tl1 && vx_slice_bytes(sys, tiles, t, u + 1, 1) <= sbudget)
                        u++;
                    const ull b = vx_slice_bytes(sys, tiles, t, u, 1);
                    if (b > sbudget) {
                        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                                     "topological solving on the GPU: one tile of level %llu needs %llu bytes "
                                     "beside the value vectors, %llu available",
                                     L, b, sbudget);
                        goto out;
                    }
                    arena_bytes = b > arena_bytes ? b : arena_bytes;
                    groups[ngroups++] = (struct vx_group){L, L + 1, t, u, 1, u == tl1};
                    t = u;
                }
                L++;
                continue;
            }
            ull M = L + 1;
            while (M < nlev && vx_slice_bytes(sys, tiles, tl0, ltile[M + 1], M + 1 - L) <= sbudget)
                M++;
            const ull b = vx_slice_bytes(sys, tiles, tl0, ltile[M], M - L);
            arena_bytes = b > arena_bytes ? b : arena_bytes;
            groups[ngroups++] = (struct vx_group){L, M, tl0, ltile[M], 0, 1};
            L = M;
        }
        for (ull L = 0; L < nlev; L++) {
            const ull a = lvs->level_start[L], z = lvs->level_start[L + 1];
            const ull lb = vx_slice_bytes(sys, tiles, ltile[L], ltile[L + 1], 1) + 2 * (z - a) * vbytes;
            hlv[L].t0 = ltile[L];
            hlv[L].t1 = ltile[L + 1];
            hlv[L].s0 = (uint32_t)a;
            hlv[L].s1 = (uint32_t)z;
            hlv[L].acyclic = lvs->acyclic[L];
            hlv[L].cached = (double)lb <= frac * (double)l2;
        }
        st.groups = ngroups;
        /* device buffers */
        void *p_;
        if ((rc = vx_alloc(&mem, &p_, n * vbytes, "values", err)))
            goto out;
        xb[0] = (double *)p_;
        if ((rc = vx_alloc(&mem, &p_, n * vbytes, "values", err)))
            goto out;
        xb[1] = (double *)p_;
        if ((rc = vx_alloc(&mem, &p_, sizeof(vx_lctl), "level control", err)))
            goto out;
        ctl = (vx_lctl *)p_;
        if ((rc = vx_alloc(&mem, &p_, arena_bytes, "system slices", err)))
            goto out;
        arena = (char *)p_;
    }
    /* initial vectors into both buffers */
    for (ull s = 0; s < n; s++) {
        if (iv)
            hx[2 * s] = lo[s], hx[2 * s + 1] = hi[s];
        else
            hx[s] = lo[s];
    }
    CK(cudaMemcpy(xb[0], hx, n * vbytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(xb[1], hx, n * vbytes, cudaMemcpyHostToDevice));
    CK(cudaMemset(ctl, 0, sizeof(vx_lctl)));
    CK(cudaHostAlloc((void **)&hctl, 2 * sizeof(vx_lctl), cudaHostAllocDefault));
    CK(cudaEventCreate(&ev_start));
    CK(cudaEventCreate(&ev_end));
    CK(cudaEventCreate(&ev[0]));
    CK(cudaEventCreate(&ev[1]));
    int per_sm, sms, dev;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, VX_THREADS, 0));
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaEventRecord(ev_start));
    for (ull gi = 0; gi < ngroups; gi++) {
        const struct vx_group *g = &groups[gi];
        /* upload the slice: states/choices/entries the group's tiles cover */
        const ull s0 = tiles[g->t0], s1 = tiles[g->t1];
        const ull c0 = sys->state_start[s0], c1 = sys->state_start[s1];
        const ull e0 = sys->choice_start[c0], e1 = sys->choice_start[c1];
        const ull nl = g->l1 - g->l0;
        char *p = arena;
        uint32_t *dss = (uint32_t *)p;
        p += vx_round(4 * (s1 - s0 + 1));
        uint32_t *dcs = (uint32_t *)p;
        p += vx_round(4 * (c1 - c0 + 1));
        double *db = (double *)p;
        p += vx_round(8 * (c1 - c0 + 1));
        uint32_t *dtg = (uint32_t *)p;
        p += vx_round(4 * (e1 - e0 + 1));
        double *dpr = (double *)p;
        p += vx_round(8 * (e1 - e0 + 1));
        uint4 *drec = (uint4 *)p;
        p += vx_round(16 * (g->t1 - g->t0 + 1));
        vx_level *dlv = (vx_level *)p;
        /* the level records of the group, tile indices relative to its upload */
        CK(cudaMemcpy(dss, hss + s0, 4 * (s1 - s0 + 1), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dcs, hcs + c0, 4 * (c1 - c0 + 1), cudaMemcpyHostToDevice));
        if (c1 > c0)
            CK(cudaMemcpy(db, sys->b + c0, 8 * (c1 - c0), cudaMemcpyHostToDevice));
        if (e1 > e0) {
            CK(cudaMemcpy(dtg, sys->targets + e0, 4 * (e1 - e0), cudaMemcpyHostToDevice));
            CK(cudaMemcpy(dpr, sys->probs + e0, 8 * (e1 - e0), cudaMemcpyHostToDevice));
        }
        CK(cudaMemcpy(drec, hrec + g->t0, 16 * (g->t1 - g->t0 + 1), cudaMemcpyHostToDevice));
        for (ull L = g->l0; L < g->l1; L++) {
            vx_level v = hlv[L];
            if (g->chunk)
                v.t0 = (uint32_t)g->t0, v.t1 = (uint32_t)g->t1;
            v.t0 -= (uint32_t)g->t0;
            v.t1 -= (uint32_t)g->t0;
            CK(cudaMemcpy(dlv + (L - g->l0), &v, sizeof v, cudaMemcpyHostToDevice));
        }
        vx_sys sy;
        memset(&sy, 0, sizeof sy);
        sy.n = n;
        /* base pointers shifted so that absolute numbers index them (see above) */
        sy.ss32 = dss - s0;
        sy.cs32 = dcs - c0;
        sy.b = db - c0;
        sy.tg = dtg - e0;
        sy.pr = dpr - e0;
        sy.trec = drec;
        ull widest = 0;
        for (ull L = g->l0; L < g->l1; L++) {
            const ull w = g->chunk ? g->t1 - g->t0 : (ull)hlv[L].t1 - hlv[L].t0;
            widest = w > widest ? w : widest;
        }
        const ull need = (widest * 32 + VX_THREADS - 1) / VX_THREADS, cap = (ull)sms * (per_sm > 0 ? per_sm : 1);
        const unsigned blocks = (unsigned)(need < 1 ? 1 : need < cap ? need : cap);
        if (g->chunk) {
            /* one launch per chunk; the level's decision after its last chunk */
            fn<<<blocks, VX_THREADS>>>(sy, dlv, (unsigned)g->l0, (unsigned)g->l1, xb[0], xb[1], ctl, max_it,
                                       par->epsilon, par->relative, g->last_chunk);
            CK_LAUNCH("vi_sweep_levels");
            if (!g->last_chunk)
                continue;
            CK(cudaMemcpy(hctl, ctl, sizeof(vx_lctl), cudaMemcpyDeviceToHost));
            if (hctl->fail)
                break;
            if (hctl->level == g->l0) {
                /* another sweep of the level: back to its first chunk */
                while (gi > 0 && groups[gi - 1].chunk && groups[gi - 1].l0 == g->l0)
                    gi--;
                gi--;
            }
            continue;
        }
        /* a resident group: batches of launches, two in flight, the level
         * switches decided on the device; a batch at least as long as the
         * levels left (each needs a sweep) */
        ull batch = nl > VX_BATCH_MIN ? nl : VX_BATCH_MIN;
        int pending = 0, head = 0, done = 0;
        while (!done) {
            while (pending < 2) {
                for (ull j = 0; j < batch; j++) {
                    fn<<<blocks, VX_THREADS>>>(sy, dlv, (unsigned)g->l0, (unsigned)g->l1, xb[0], xb[1], ctl, max_it,
                                               par->epsilon, par->relative, 1);
                    CK_LAUNCH("vi_sweep_levels");
                }
                const int slot = (head + pending) & 1;
                CK(cudaMemcpyAsync(&hctl[slot], ctl, sizeof(vx_lctl), cudaMemcpyDeviceToHost));
                CK(cudaEventRecord(ev[slot]));
                pending++;
                batch = batch < VX_BATCH_MAX ? (batch * 2 < VX_BATCH_MAX ? batch * 2 : VX_BATCH_MAX) : batch;
            }
            CK(cudaEventSynchronize(ev[head]));
            if (hctl[head].fail || hctl[head].level >= g->l1)
                done = 1;
            head ^= 1;
            pending--;
        }
        CK(cudaDeviceSynchronize()); /* the slice is overwritten next */
        CK(cudaMemcpy(hctl, ctl, sizeof(vx_lctl), cudaMemcpyDeviceToHost));
        if (hctl->fail)
            break;
    }
    CK(cudaEventRecord(ev_end));
    CK(cudaEventSynchronize(ev_end));
    CK(cudaEventElapsedTime(&ms, ev_start, ev_end));
    CK(cudaMemcpy(hctl, ctl, sizeof(vx_lctl), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hx, xb[hctl->rbuf], n * vbytes, cudaMemcpyDeviceToHost));
    for (ull s = 0; s < n; s++) {
        if (iv)
            lo[s] = hx[2 * s], hi[s] = hx[2 * s + 1];
        else
            lo[s] = hx[s];
    }
    st.level_sweeps = hctl->level_sweeps;
    st.iterations = (hctl->updates + n - 1) / n;
    st.sweep_seconds = st.iterations ? (double)ms * 1e-3 / (double)st.iterations : 0;
    if (hctl->fail == 2)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                     "value iteration: level %u meets the %s stopping rule only as well as the levels "
                     "below it allow (use --method ii)",
                     hctl->fail_level, par->relative ? "relative" : "absolute");
    else if (hctl->fail)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                     "value iteration did not converge after %u sweeps of level %u (epsilon %g%s)",
                     hctl->fail_sweeps, hctl->fail_level, par->epsilon, par->relative ? ", relative" : "");
    else if (hctl->level != nlev)
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal: level solve stopped at level %u of %llu",
                     hctl->level, nlev);
out:
    if (ev_start)
        cudaEventDestroy(ev_start);
    if (ev_end)
        cudaEventDestroy(ev_end);
    for (int i = 0; i < 2; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    if (hctl)
        cudaFreeHost(hctl);
    vx_free_all(&mem);
    free(tiles), free(ltile), free(hss), free(hcs), free(hx), free(hrec), free(hlv), free(groups);
    st.seconds = vx_now() - t0;
    if (stats)
        *stats = st;
    return rc;
}
