/*
 * vi_int.cuh -- internals shared by the GPU value-iteration files
 * (kernels/vi/): the host-side types, the helpers every step uses and the
 * functions one step calls in another.  Device code shared by several
 * files is header-inline (vi_dev.cuh, sweep_kernels.cuh): the kernels are
 * compiled without relocatable device code.
 *
 * Where what lives (the GPU twin of analysis/valiter.c; contract
 * analysis/valiter.h):
 *   common.cu          device memory, grid sizes, the device probe, the
 *                      test hooks (kernel pin, last kind)
 *   precompute.cu      Prob0A/0E/1A/1E by backward searches
 *   sweep_kernels.cuh  the sweep kernels (templates) and the tile helpers
 *   sweeps.cu          the kinds (enum vi_kernel) and the batched sweep loop
 *   sweep_variants.cu  measurement-only kinds, never chosen automatically
 *   pack.cu            tiles and the packed system (built on the host)
 *   policy.cu          certified policy iteration (VI_POLICY)
 *   solve.cu           valiter_solve_gpu: kind choice, uploads, the solve
 *   levels.cu          valiter_solve_levels_gpu: topological levels
 *   ovi.cu             valiter_solve_ovi_gpu: optimistic value iteration
 *                      on the solve's kinds
 *   sysbuild.cu        valiter_system_dev: the maybe-state system built
 *                      from an explored MDP in device memory
 */
#ifndef WX_VI_INT_CUH
#define WX_VI_INT_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

extern "C" {
#include "../../analysis/valiter.h"
#include "../../util/config.h"
}
#include "../cuda_check.cuh"

typedef unsigned long long ull;

/* Structural constants (not tunables: the data layouts depend on them). */
#define VX_TILE_STATES 32u /* states per tile at most: one per lane */
#define VX_FULL 0xffffffffu /* full-warp mask */
#define VX_DICT 256u       /* packed sweep: distinct probabilities (and constants) at most: 1-byte indices */
#define VX_PK_TILE 255u    /* packed sweep: entries and choices per tile at most: 1-byte offsets */

/* ---- common.cu ---- */

/* Device allocations of one call, released together. */
struct vx_mem {
    void *p[32];
    int n;
};

/* cudaMalloc of bytes (16 when 0) recorded in m; WX_ELIMIT when the device
 * memory is exhausted (CUDA_CHECK's mapping). */
int vx_alloc(struct vx_mem *m, void **ptr, size_t bytes, const char *what, struct wx_error *err);
/* vx_alloc, then a copy of bytes from the host. */
int vx_upload(struct vx_mem *m, void **ptr, const void *src, size_t bytes, const char *what,
              struct wx_error *err);
void vx_free_all(struct vx_mem *m);

/* Device buffers of a launcher (rc, err and a label out in scope; m is a
 * struct vx_mem *): ptr = a new buffer of bytes, a copy of src (VX_UP) or
 * uninitialised (VX_AL). */
#define VX_UP(m, ptr, src, bytes, what)                                                            \
    do {                                                                                           \
        void *p_;                                                                                  \
        if ((rc = vx_upload((m), &p_, (src), (bytes), (what), err)))                               \
            goto out;                                                                              \
        (ptr) = (decltype(ptr))p_;                                                                 \
    } while (0)
#define VX_AL(m, ptr, bytes, what)                                                                 \
    do {                                                                                           \
        void *p_;                                                                                  \
        if ((rc = vx_alloc((m), &p_, (bytes), (what), err)))                                      \
            goto out;                                                                              \
        (ptr) = (decltype(ptr))p_;                                                                 \
    } while (0)

extern int vx_sms; /* SMs of the device (vx_blocks sets it) */

/* Blocks of VI_GPU_THREADS for a grid-stride kernel: enough to fill the
 * device, no more than the work needs. */
unsigned vx_blocks(uint64_t threads_needed);

/* b[i] = (uint32_t)a[i] for i < n: 32-bit copies of offsets known to fit. */
int vx_narrow_copy(const ull *a, ull n, uint32_t *b, struct wx_error *err);

/* The kernel pinned for this solve (valiter_gpu_set_kernel's test hook
 * first, then par->gpu.kernel), VI_KERNEL_AUTO when none; *group = its
 * lanes per state (kinds 1 and 2). */
int vx_pinned(const struct vi_params *par, int *group);
extern int vx_last_kind; /* the kind valiter_solve_gpu ran last (valiter_gpu_last_kind) */

static inline double vx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the numeric core's device view ---- */

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

/* Sweep control block (device memory; the protocol: sweeps.cu). */
struct vx_ctl {
    unsigned int viol[3];
    unsigned int done;
    ull done_iter;
};

/* The sweep kernels' int argument `rel` (vx_sweep_fn): VX_REL the relative
 * stopping rule; optimistic value iteration's sweeps (ovi.cu) add
 * VX_CLAMP (plain sweeps: lo = max(lo, F(lo)), the change measured from
 * the old lo) or VX_VERIFY (interval sweeps: the state flags below instead
 * of the stopping rule). */
#define VX_REL 1
#define VX_CLAMP 2
#define VX_VERIFY 4
/* What a state reports (ORed into viol[k % 3] per sweep): VX_VIOL it
 * violates the stopping rule (VX_VERIFY: F(u) > u there, or NaN);
 * VX_CROSS (VX_VERIFY only) F(u) < the new lo there. */
#define VX_VIOL 1u
#define VX_CROSS 2u

/* Does a sweep with flags v end the sweeps?  Every state met the rule
 * (no VX_VIOL), or a guess crossed the lower bound. */
static __host__ __device__ __forceinline__ int vx_halt(unsigned v)
{
    return !(v & VX_VIOL) || (v & VX_CROSS);
}

typedef void (*vx_sweep_fn)(vx_sys, const double *, const double *, double *, double *, vx_ctl *, ull, double, int);
typedef void (*vx_persist_fn)(vx_sys, double *, double *, vx_ctl *, ull, ull, double, int, const uint32_t *, ull);

/* ---- sweeps.cu ---- */

/* What a sweep kind asks of the solve (sweeps.cu's table). */
struct vx_kind {
    unsigned char tiles;      /* swept by tiles: the grid follows the tile count, not the states */
    unsigned char narrow;     /* needs n_choices, n_entries < 2^32 - 1 (32-bit offsets, tile
                                 records or packed words); where they do not fit: VI_KERNEL_TILES */
    unsigned char packed;     /* reads the packed system (pack.cu) */
    unsigned char inplace;    /* in-place sweeps: reads what this sweep wrote (Gauss-Seidel) */
    unsigned char persistent; /* cooperative launches of chunks of sweeps */
    unsigned char tiles3;     /* tiles of at most VI_GPU_T3_CHOICES choices */
    enum vi_kernel gauss_seidel; /* what VI_GAUSS_SEIDEL runs instead (itself: no in-place twin) */
    enum vi_kernel launched;     /* persistent kinds: what runs where cooperative launch cannot */
    enum vi_kernel unpacked;     /* packed kinds: what runs where the system cannot be packed */
};

/* The row of kind k (1 <= k <= VI_KERNEL_LAST). */
const struct vx_kind *vx_kind_of(int k);

/* The launched (persistent) sweep kernel of a kind for interval (iv) or
 * plain sweeps, max (mx) or min; g: lanes per state of kinds 1 and 2. */
vx_sweep_fn vx_pick(int iv, int mx, int kind, int g);
vx_persist_fn vx_pick_persist(int iv, int mx, int kind);
/* sweep_variants.cu: the measurement-only kinds' kernels. */
vx_sweep_fn vx_pick_variant(int iv, int mx, int kind, int g);
vx_persist_fn vx_pick_persist_variant(int iv, int mx, int kind);

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
    const uint32_t *watch; /* device: the watched states (valiter.h WATCHED
                              STATES; interval sweeps only), or NULL       */
    ull n_watch;
    unsigned flags;        /* vx_sweeps' output: the last sweep's viol word
                              (VX_VIOL, VX_CROSS)                             */
};

/* Up to max_it sweeps (>= 1) from buffer 0 (x2[0], or dlo[0] / dhi[0]),
 * numbered 1, 2, ... with a fresh control block; stops after the first
 * sweep that meets the stopping rule (or halts: vx_halt), or with a watch
 * list the first after which every watched state meets it.  sw->flags =
 * the last sweep's flags.  *done = sweeps done, *converged,
 * *ms = device time of the sweeps; the last iterate is in buffer
 * (inpl ? 0 : *done & 1).  Not converging within max_it is no error here. */
int vx_sweeps(struct vx_sweeper *sw, ull max_it, ull *done, int *converged, float *ms, struct wx_error *err);

/* ---- solve.cu (shared with ovi.cu) ---- */

/* One solve's state (the device buffers in mem). */
struct vx_solve {
    const struct vi_system *sys;
    const struct vi_params *par;
    ull n, nc, ne;
    int iv;                   /* interval iteration (hi given) */
    int ovi;                  /* optimistic value iteration (ovi.cu): no watch kernel in the sweeps */
    int kind, g;              /* the sweep kind, lanes per state (kinds 1, 2) */
    int inpl, packed, pers, t3; /* the kind's properties (struct vx_kind) */
    struct vx_mem mem;
    vx_sys sy;
    vx_ctl *ctl, *hctl;       /* hctl: pinned, 2 slots */
    double *dlo[2], *dhi[2];
    double *x2[2];            /* tiled kinds, interval: (lo, hi) pairs */
    cudaEvent_t ev_start, ev[2];
    struct vx_hpack *hp;
    struct vx_pi *P;
    struct vi_stats st;
};

/* Steps 1 and 2 of a solve and the sweeper (solve.cu's comment): the kind,
 * the uploads of the system and of lo (and hi when S->iv), the grid of
 * S->iv's sweeps, the events and the control block.  S->sys, par, n, nc,
 * ne, iv, ovi set by the caller; vx_solve_end releases it all. */
int vx_solve_begin(struct vx_solve *S, struct vx_sweeper *sw, const double *lo, const double *hi,
                   struct wx_error *err);
void vx_solve_end(struct vx_solve *S);
/* The grid (sw->fn or sw->pfn, sw->blocks) of S->kind's sweeps, interval
 * (iv) or plain. */
int vx_grid_of(struct vx_solve *S, struct vx_sweeper *sw, int iv, struct wx_error *err);
/* The input checks of a solve: WX_OK to go on. */
int vx_solve_check(const struct vi_system *sys, const struct vi_params *par, struct wx_error *err);

/* ---- pack.cu ---- */

/* Greedy tiles: consecutive states of [a, n), at most VX_TILE_STATES of
 * them, lim entries and clim choices, or one state alone.  tiles has room
 * for n - a + 1; returns the number of tiles k (tiles[k] == n). */
ull vx_make_tiles_lim(const struct vi_system *sys, ull a, ull n, uint32_t *tiles, ull lim, ull clim);
/* vx_make_tiles_lim with VI_GPU_TILE_ENTRIES entries and choices. */
ull vx_make_tiles(const struct vi_system *sys, ull a, ull n, uint32_t *tiles);

struct vx_hpack; /* host packing (pack.cu) */

/* Phase 1 of host packing: *packable = 1 when the packed sweep can take
 * sys (*hp then holds its dictionaries and tiles); WX_EINPUT for a state
 * without a choice.  *hp is allocated (free it with vx_pack_free, also on
 * failure). */
int vx_pack_plan(struct vx_hpack **hp, const struct vi_system *sys, int *packable, struct wx_error *err);
/* Phase 2: the packed words (host, all cores) and their uploads into
 * sy's tile records, packed arrays and dictionaries (buffers in mem). */
int vx_pack_upload(struct vx_hpack *hp, const struct vi_system *sys, vx_sys *sy, struct vx_mem *mem,
                   struct wx_error *err);
void vx_pack_free(struct vx_hpack *hp);

/* ---- policy.cu (VI_POLICY's steps 2-4) ---- */

struct vx_pi; /* the policy steps' device state */

/* Can the policy steps run on this device (cooperative launch)? */
int vx_pi_possible(const struct vi_system *sys);
/* The policy steps' state for the uploaded system sy (packed or not;
 * buffers in m); *P is allocated (free with vx_pi_free, also on failure). */
int vx_pi_setup(struct vx_pi **P, struct vx_mem *m, const struct vi_system *sys, const vx_sys *sy, int packed,
                const struct vi_params *par, struct wx_error *err);
void vx_pi_free(struct vx_pi *P);
/* *gap = the largest hi - lo of the sweeps' buffer buf. */
int vx_pi_gap(struct vx_pi *P, const struct vx_sweeper *sw, ull n, int buf, double *gap, struct wx_error *err);
/* Steps 2-4 from the bounds in dlo / dhi (which the certificate's proved
 * halves tighten); *certified = 1: dlo / dhi are the answer.  *sweeps
 * counts the whole-operator applications. */
int vx_policy(struct vx_pi *P, const struct vi_params *par, double *dlo, double *dhi, ull *sweeps,
              struct vi_stats *st, int *certified, struct wx_error *err);

#endif
