/*
 * cyclemean.cu -- the GPU twin of cyclemean_howard_cpu: Howard's policy
 * iteration for the minimum / maximum cycle ratio (analysis/cyclemean.h),
 * every non-trivial SCC at once, exact.
 *
 * ALGORITHM (after the seed paper's parallel Howard).  The maximum is the
 * minimum for negated weights (w' = -w; the answer's numerator is negated
 * back), so the kernels only minimise.  A vertex is ACTIVE when it lies in a
 * non-trivial SCC, i.e. has an out-edge inside its own component; edges
 * leaving a component are ignored throughout, so all components are solved
 * concurrently by the same launches.  The policy is a vector pol[v] (one
 * chosen out-edge per active vertex); its successor vector succ[v] makes the
 * policy graph a functional graph: every weakly connected part ("region")
 * holds exactly one cycle.  One round:
 *   1. cm_succ_indeg: succ[] and in-degrees in the policy graph (atomics).
 *   2. cm_trim: iterated trimming of in-degree-0 vertices.  Each thread
 *      starts at a vertex of in-degree 0 in a snapshot taken before the
 *      launch and, whenever its decrement takes a successor's in-degree to
 *      0, goes on with that successor itself -- so exactly one thread
 *      removes each non-cycle vertex and the whole elimination is ONE launch
 *      (no host loop over trimming levels).  What keeps in-degree > 0 is
 *      exactly the union of the policy cycles.
 *   3. cm_lead_step x R: each cycle is identified by its smallest vertex (its
 *      HANDLE), by pointer doubling over the cycle (R = bit length of the
 *      largest SCC, so 2^R exceeds every cycle length).
 *   4. cm_path_step x R: pointer jumping over all active vertices towards the
 *      handle of their region (the handle points to itself with zero sums):
 *      every vertex learns its handle and the exact integer sums W(v), T(v)
 *      of weights and transit times along its policy path to the handle.
 *      This replaces the paper's backward breadth-first value propagation
 *      along precomputed predecessor lists: pointer jumping needs R
 *      launches however deep the policy trees are, where a level-by-level
 *      propagation needs one launch per tree level (thousands on random
 *      graphs with 10^6 vertices), so no predecessor lists are built.
 *   5. cm_cycle_ratio: each handle h computes its cycle's ratio exactly,
 *      Wc = w'(pol h) + W(succ h), Tc = t(pol h) + T(succ h), reduced by
 *      their gcd: eta = p / q (q > 0).  Equal ratios therefore have
 *      identical (p, q).
 *   6. cm_values: every vertex gets its region's eta and its value, scaled by
 *      q so that it is an integer: X(v) = q W(v) - p T(v) (__int128).  Then
 *      X(v) = q w'(e) - p t(e) + X(succ v) for the policy edge e at every
 *      vertex, the handle included (X = 0 there and the cycle sums to 0).
 *   7. cm_improve: per vertex in parallel, first by ratio (switch to the
 *      first edge whose target's region has a strictly smaller eta), else
 *      among the edges whose target has the same eta by value (switch to the
 *      first edge with q w'(e) - p t(e) + X(v) strictly below X(u)); the
 *      current edge is kept on ties, and the handle of an unchanged cycle
 *      stays its smallest vertex, which is what makes policy iteration
 *      terminate.  A device flag counts changes; the host reads that one
 *      word per round (the only round trip; all launches of a round are
 *      queued without synchronisation).
 *
 * EXACTNESS.  Ratios are reduced fractions of exact int64 sums (|sum| <=
 * s (2^31 - 1) < 2^63 for a component of s < 2^32 vertices) and are compared
 * by 128-bit cross multiplication.  Values are exact scaled integers in
 * __int128: |X| <= 2 s^2 Wmax Tmax and every improvement candidate is below
 * 2 (s^2 + s) Wmax Tmax, which the host checks to be < 2^126 before starting
 * (Wmax = max |w|, Tmax = max t over the edges inside components), else
 * WX_ELIMIT.  With exact arithmetic the final round, which changes nothing,
 * IS the optimality certificate: for every edge e = (u, v) inside a
 * component eta(v) >= eta(u), hence eta is constant on each SCC (checked on
 * the host), and X(u) <= q w'(e) - p t(e) + X(v); summing the latter around
 * any cycle C gives q w'(C) - p t(C) >= 0, i.e. ratio(C) >= p / q, which the
 * policy cycle attains.  The host finally recomputes the reported critical
 * cycle's ratio from the input and checks that it equals the optimum.  A
 * round limit (CM_MAX_ROUNDS) turns non-termination into an error.
 *
 * DETERMINISM.  Everything is deterministic run to run (the trimming order
 * varies, its result does not); the optimum is unique, the critical cycle is
 * the policy cycle of the smallest vertex of the lowest-numbered optimal
 * component and may differ from the CPU twin's (tests compare its ratio).
 *
 * MEMORY (device): the graph (8 (n+1) + 12 m bytes, 20 m with transit
 * times) plus about 160 bytes per vertex (the pointer-jumping state and the
 * per-vertex record are 32-byte structs, so that each random gather is one
 * memory sector).
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "../analysis/cyclemean.h"
}
#include "cuda_check.cuh"

typedef __int128 i128;

#define CM_THREADS 256u
#define CM_MAX_ROUNDS 1000000ull /* policy-improvement rounds before giving up */
#define CM_NO_EDGE 0xffffffffffffffffull
#define CM_WLIMIT 2147483647ll    /* |w| and t bound of the contract */

/* Per-vertex record read by cm_improve for every edge's target: one 32-byte
 * sector, so an edge costs one random sector.  x is the value scaled by the
 * q of the region's ratio, h the region's handle (its ratio is cp/cq[h]; few
 * handles, so those reads hit the cache), comp the vertex's component --
 * written for every vertex by cm_init, so that edges leaving a component
 * are recognised without a second random read. */
struct __align__(16) cm_vrec {
    i128 x;
    uint32_t h, comp;
};

/* Pointer-jumping state of a vertex: sums of w' and t over the next 2^k
 * policy steps and the vertex reached (one 32-byte sector per gather). */
struct __align__(16) cm_pstate {
    long long W, T;
    uint32_t nx, pad;
};

/* Input statistics over the edges inside components (cm_init). */
struct cm_stats {
    unsigned int wmax;      /* max |w|, valid when bad_w == 0 */
    unsigned int tmax;      /* max t, valid when bad_t == 0 */
    unsigned int bad_w;     /* some |w| > 2^31 - 1 */
    unsigned int bad_t;     /* some t < 1 or t > 2^31 - 1 */
    unsigned int changed;   /* cm_improve: vertices that switched */
    unsigned int nonuniform;/* cm_check_uniform: an edge inside a component
                               joins two different ratios */
};

/* Device view of the graph and the working vectors of one solve. */
struct cm_dev {
    uint64_t n;
    const uint64_t *off;
    const uint32_t *tgt;
    const long long *w;     /* input weights (sign applied in the kernels) */
    const long long *t;     /* transit times or NULL (all 1) */
    const uint32_t *comp;
    long long sgn;          /* 1: minimise w, -1: minimise -w (maximum) */
    uint64_t *pol;          /* chosen edge per vertex, CM_NO_EDGE if inactive */
    uint32_t *succ;
    unsigned int *deg, *deg0;
    uint32_t *lead[2], *jump[2];  /* cycle handle doubling */
    struct cm_pstate *ps[2];      /* path pointer jumping */
    long long *cp, *cq;           /* cycle ratio at handles */
    struct cm_vrec *rec;
    struct cm_stats *stats;
    unsigned int *progress;       /* 2 R words per round: did doubling step k
                                     change anything (lead: [0, R), path: [R, 2R)) */
};

static __device__ __forceinline__ long long cm_w(const cm_dev &d, uint64_t e)
{
    return d.sgn * d.w[e];
}

static __device__ __forceinline__ long long cm_t(const cm_dev &d, uint64_t e)
{
    return d.t ? d.t[e] : 1;
}

static __device__ __forceinline__ int cm_less(long long p1, long long q1, long long p2, long long q2)
{
    return (i128)p1 * q2 < (i128)p2 * q1; /* q1, q2 > 0 */
}

static __device__ __forceinline__ uint64_t cm_tid(void)
{
    return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

/* Input checks, the statistics for the overflow bound, and the initial
 * policy: the first lightest edge inside the component (weights only). */
__global__ void cm_init(cm_dev d)
{
    const uint64_t v = cm_tid();
    unsigned int wmax = 0, tmax = 0, bad_w = 0, bad_t = 0;
    if (v < d.n) {
        const uint32_t c = d.comp[v];
        uint64_t best = CM_NO_EDGE;
        long long bw = 0;
        for (uint64_t e = d.off[v]; e < d.off[v + 1]; e++) {
            if (d.comp[d.tgt[e]] != c)
                continue;
            const long long w = d.w[e], t = cm_t(d, e);
            if (w > CM_WLIMIT || w < -CM_WLIMIT)
                bad_w = 1;
            else
                wmax = max(wmax, (unsigned int)(w < 0 ? -w : w));
            if (t < 1 || t > CM_WLIMIT)
                bad_t = 1;
            else
                tmax = max(tmax, (unsigned int)t);
            const long long ws = d.sgn * w;
            if (best == CM_NO_EDGE || ws < bw)
                best = e, bw = ws;
        }
        d.pol[v] = best;
        cm_vrec r;
        r.x = 0;
        r.h = 0xffffffffu;
        r.comp = c;
        d.rec[v] = r;
    }
    /* Every lane reaches here (no early return): full-mask reductions. */
    wmax = __reduce_max_sync(0xffffffffu, wmax);
    tmax = __reduce_max_sync(0xffffffffu, tmax);
    bad_w = __reduce_or_sync(0xffffffffu, bad_w);
    bad_t = __reduce_or_sync(0xffffffffu, bad_t);
    if ((threadIdx.x & 31u) == 0) {
        if (wmax)
            atomicMax(&d.stats->wmax, wmax);
        if (tmax)
            atomicMax(&d.stats->tmax, tmax);
        if (bad_w)
            atomicOr(&d.stats->bad_w, 1u);
        if (bad_t)
            atomicOr(&d.stats->bad_t, 1u);
    }
}

/* Step 1: successors and in-degrees of the policy graph (deg zeroed). */
__global__ void cm_succ_indeg(cm_dev d)
{
    const uint64_t v = cm_tid();
    if (v >= d.n || d.pol[v] == CM_NO_EDGE)
        return;
    const uint32_t s = d.tgt[d.pol[v]];
    d.succ[v] = s;
    atomicAdd(&d.deg[s], 1u);
}

/* Step 2: trimming.  deg0 is a snapshot of deg before the launch, so the
 * start set is fixed; a thread continues with a successor only when its own
 * decrement took that successor's in-degree from 1 to 0, so every removed
 * vertex is handled by exactly one thread (the atomic decides who). */
__global__ void cm_trim(cm_dev d)
{
    const uint64_t v = cm_tid();
    if (v >= d.n || d.pol[v] == CM_NO_EDGE || d.deg0[v] != 0)
        return;
    uint32_t u = (uint32_t)v;
    for (;;) {
        const uint32_t s = d.succ[u];
        if (atomicSub(&d.deg[s], 1u) != 1u)
            break;
        u = s;
    }
}

static __device__ __forceinline__ int cm_on_cycle(const cm_dev &d, uint64_t v)
{
    return d.pol[v] != CM_NO_EDGE && d.deg[v] > 0;
}

/* Records that doubling step k changed something: one vote per warp.  Every
 * lane of the warp calls this (the step kernels return early only when the
 * whole grid does, see cm_settled; blocks are whole warps).  The flag is
 * monotone (only ever set to 1), so the unsynchronised pre-read is a benign
 * race: at worst a few warps set it redundantly. */
static __device__ __forceinline__ void cm_note_progress(unsigned int *flag, int changed)
{
    if (__any_sync(0xffffffffu, changed) && (threadIdx.x & 31u) == 0 &&
        !*(volatile unsigned int *)flag)
        atomicOr(flag, 1u);
}

/* A doubling step after a step that changed nothing has nothing to do: then
 * the two buffers hold the same answer (see cm_lead_step / cm_path_step),
 * so later steps return at once and the caller's final buffer index stays
 * right.  progress[k - 1] was written by the previous launch. */
static __device__ __forceinline__ int cm_settled(const unsigned int *progress, int k)
{
    return k > 0 && progress[k - 1] == 0;
}

/* Step 3: handle (smallest vertex) of each policy cycle by pointer
 * doubling; after round k lead[v] is the minimum of the 2^k cycle vertices
 * from v on.  Double-buffered: reads [a], writes [1 - a]. */
__global__ void cm_lead_init(cm_dev d)
{
    const uint64_t v = cm_tid();
    if (v >= d.n || !cm_on_cycle(d, v))
        return;
    d.lead[0][v] = (uint32_t)v;
    d.jump[0][v] = d.succ[v];
}

/* Settling: when no lead changes in step k, lead_k[v] <= lead_k[v + 2^k]
 * around every cycle, so all of v's orbit under +2^k has one lead; the
 * windows of length 2^k from that orbit (spaced gcd(2^k, L) <= 2^k apart)
 * cover the cycle, so every lead is already the cycle's minimum. */
__global__ void cm_lead_step(cm_dev d, int a, int k)
{
    if (cm_settled(d.progress, k)) /* the same for every thread */
        return;
    const uint64_t v = cm_tid();
    int changed = 0;
    if (v < d.n && cm_on_cycle(d, v)) {
        const uint32_t j = d.jump[a][v];
        const uint32_t l = min(d.lead[a][v], d.lead[a][j]);
        changed = l != d.lead[a][v];
        d.lead[1 - a][v] = l;
        d.jump[1 - a][v] = d.jump[a][j];
    }
    cm_note_progress(&d.progress[k], changed);
}

/* Step 4: pointer jumping towards the handle; nx[v] is the vertex 2^k
 * policy steps ahead (or the handle, which points to itself with zero
 * sums), W/T the sums of w' and t over those steps. */
__global__ void cm_path_init(cm_dev d, int la)
{
    const uint64_t v = cm_tid();
    if (v >= d.n || d.pol[v] == CM_NO_EDGE)
        return;
    cm_pstate p;
    p.pad = 0;
    if (cm_on_cycle(d, v) && d.lead[la][v] == (uint32_t)v) {
        p.nx = (uint32_t)v;
        p.W = 0;
        p.T = 0;
    } else {
        const uint64_t e = d.pol[v];
        p.nx = d.succ[v];
        p.W = cm_w(d, e);
        p.T = cm_t(d, e);
    }
    d.ps[0][v] = p;
}

/* Settling: when every nx[v] already is a handle (nx[j] == j, W[j] = T[j]
 * = 0), the step copies buffer a to 1 - a unchanged. */
__global__ void cm_path_step(cm_dev d, int a, int k)
{
    if (cm_settled(d.progress, k)) /* the same for every thread */
        return;
    const uint64_t v = cm_tid();
    int changed = 0;
    if (v < d.n && d.pol[v] != CM_NO_EDGE) {
        cm_pstate p = d.ps[a][v];
        const cm_pstate q = d.ps[a][p.nx];
        changed = q.nx != p.nx;
        p.W += q.W;
        p.T += q.T;
        p.nx = q.nx;
        d.ps[1 - a][v] = p;
    }
    cm_note_progress(&d.progress[k], changed);
}

static __device__ long long cm_gcd(long long a, long long b)
{
    a = a < 0 ? -a : a;
    while (b) {
        const long long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Step 5: the exact reduced ratio of each policy cycle, at its handle. */
__global__ void cm_cycle_ratio(cm_dev d, int a)
{
    const uint64_t h = cm_tid();
    if (h >= d.n || d.pol[h] == CM_NO_EDGE || d.ps[a][h].nx != (uint32_t)h)
        return;
    const uint64_t e = d.pol[h];
    const uint32_t s = d.succ[h];
    const cm_pstate ps = d.ps[a][s];
    const long long wc = cm_w(d, e) + ps.W, tc = cm_t(d, e) + ps.T;
    const long long g = cm_gcd(wc, tc); /* tc >= 1, so g >= 1 */
    d.cp[h] = wc / g;
    d.cq[h] = tc / g;
}

/* Step 6: ratio and scaled value of every vertex. */
__global__ void cm_values(cm_dev d, int a)
{
    const uint64_t v = cm_tid();
    if (v >= d.n || d.pol[v] == CM_NO_EDGE)
        return;
    const cm_pstate ps = d.ps[a][v];
    cm_vrec r;
    r.h = ps.nx;
    r.comp = d.comp[v];
    r.x = (i128)d.cq[r.h] * ps.W - (i128)d.cp[r.h] * ps.T;
    d.rec[v] = r;
}

/* Step 7: policy improvement (ratio first, then value; strict
 * improvements only, the first best edge wins).  Reads rec[] only; pol[u]
 * is written by thread u alone. */
__global__ void cm_improve(cm_dev d)
{
    const uint64_t u = cm_tid();
    if (u >= d.n || d.pol[u] == CM_NO_EDGE)
        return;
    const cm_vrec me = d.rec[u];
    const long long mp = d.cp[me.h], mq = d.cq[me.h];
    const uint64_t e0 = d.pol[u];
    uint64_t be = e0;
    long long bp = mp, bq = mq;
    i128 bx = me.x;
    int by_ratio = 0;
    for (uint64_t e = d.off[u]; e < d.off[u + 1]; e++) {
        const cm_vrec r = d.rec[d.tgt[e]];
        if (r.comp != me.comp)
            continue;
        /* The same handle means the same ratio; another handle may still
         * have an equal ratio (then (p, q) are identical: reduced). */
        long long p = mp, q = mq;
        if (r.h != me.h)
            p = d.cp[r.h], q = d.cq[r.h];
        if (cm_less(p, q, bp, bq)) {
            bp = p, bq = q, be = e, by_ratio = 1;
        } else if (!by_ratio && p == mp && q == mq) {
            const i128 x = (i128)mq * cm_w(d, e) - (i128)mp * cm_t(d, e) + r.x;
            if (x < bx)
                bx = x, be = e;
        }
    }
    if (be != e0) {
        d.pol[u] = be;
        atomicAdd(&d.stats->changed, 1u);
    }
}

/* After convergence: every edge inside a component must join equal ratios
 * (implied by the final round's "no improvement" in a strongly connected
 * component; checked anyway, an internal error otherwise). */
__global__ void cm_check_uniform(cm_dev d)
{
    const uint64_t u = cm_tid();
    if (u >= d.n || d.pol[u] == CM_NO_EDGE)
        return;
    const cm_vrec me = d.rec[u];
    const long long mp = d.cp[me.h], mq = d.cq[me.h];
    for (uint64_t e = d.off[u]; e < d.off[u + 1]; e++) {
        const cm_vrec r = d.rec[d.tgt[e]];
        if (r.comp == me.comp && (d.cp[r.h] != mp || d.cq[r.h] != mq)) {
            atomicOr(&d.stats->nonuniform, 1u);
            return;
        }
    }
}

/* Per component k: the ratio and handle seen from its smallest vertex
 * first[k] (UINT64_MAX: none), so only n_sccs answers travel back. */
__global__ void cm_gather(cm_dev d, int a, const uint64_t *first, uint64_t n_sccs,
                          long long *gp, long long *gq, uint32_t *gh)
{
    const uint64_t k = cm_tid();
    if (k >= n_sccs)
        return;
    const uint64_t v = first[k];
    if (v == UINT64_MAX || d.pol[v] == CM_NO_EDGE) {
        gq[k] = 0; /* no cycle */
        return;
    }
    const uint32_t h = d.ps[a][v].nx;
    gp[k] = d.cp[h];
    gq[k] = d.cq[h];
    gh[k] = h;
}

/* ---- host side ---------------------------------------------------------- */

/* Wall-clock seconds of the calling thread's last cyclemean_howard_gpu call,
 * by phase: [0] allocation and host-to-device copies, [1] input checks and
 * initial policy, [2] policy iteration, [3] answers back and the critical
 * cycle.  For the benchmark driver (bench/cm_gpu_gen.c), which declares it
 * itself; not part of the module's API. */
static thread_local double cm_phase[4];

/* Edge weights of a graph kept on the device: the weight of its label. */
__global__ void cm_label_weights(const uint32_t *labels, uint64_t m, const long long *lw, long long *w)
{
    for (uint64_t e = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; e < m; e += (uint64_t)gridDim.x * blockDim.x)
        w[e] = lw[labels[e]];
}

/* first[k] = the smallest vertex of component k (first[] preset to all ones). */
__global__ void cm_first(cm_dev d, unsigned long long *first)
{
    const uint64_t v = cm_tid();
    if (v < d.n)
        atomicMin(&first[d.comp[v]], (unsigned long long)v);
}

/* One thread walks the final policy's cycle through h: its vertices and
 * edges (at most limit), the sums of the input weights and transit times,
 * and its length (0 when it does not close within limit steps). */
__global__ void cm_walk(cm_dev d, uint32_t h, uint64_t limit, uint32_t *cyc, uint64_t *edges, long long *out)
{
    if (blockIdx.x || threadIdx.x)
        return;
    uint64_t len = 0;
    long long W = 0, T = 0;
    uint32_t u = h;
    do {
        const uint64_t e = d.pol[u];
        cyc[len] = u, edges[len] = e;
        W += d.w[e];
        T += d.t ? d.t[e] : 1;
        u = d.tgt[e];
        len++;
    } while (u != h && len < limit);
    out[0] = u == h ? (long long)len : 0, out[1] = W, out[2] = T;
}

extern "C" void cyclemean_gpu_phase_times(double out[4])
{
    for (int i = 0; i < 4; i++)
        out[i] = cm_phase[i];
}

static double cm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

extern "C" int cyclemean_gpu_available(void)
{
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
    return prop.major >= 9; /* built for sm_90 */
}

static int cm_less_host(long long p1, long long q1, long long p2, long long q2)
{
    return (i128)p1 * q2 < (i128)p2 * q1;
}

static long long cm_gcd_host(long long a, long long b)
{
    a = a < 0 ? -a : a;
    while (b) {
        const long long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static int cm_bits(uint64_t s)
{
    int r = 0;
    while (s) {
        r++;
        s >>= 1;
    }
    return r;
}

/* A graph already on the device (cyclemean_howard_gpu_device) with its SCC
 * ids there; its weights come from its labels through a host table. */
struct cm_borrowed {
    const struct dgraph *g;
    const uint32_t *d_comp;
    const int64_t *label_weight;
    uint32_t n_labels;
};

/* The state of one solve: the device view, the allocations to free, the
 * launch geometry. */
struct cm_solve {
    cm_dev d;
    void *allocs[32];
    int n_allocs;
    uint64_t n, m;
    int R;              /* doubling steps: bit length of the largest SCC */
    long long sgn;      /* 1: minimum, -1: maximum */
    unsigned int blocks; /* one thread per vertex */
};

/* A device buffer of bytes (+ 16, so that 0 is fine), freed with the solve. */
static int cm_alloc(struct cm_solve *S, void **ptr, size_t bytes, const char *what,
                    struct wx_error *err)
{
    int rc = WX_OK;
    void *p = NULL;
    if (S->n_allocs == (int)(sizeof S->allocs / sizeof *S->allocs))
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                       "cycle mean (GPU): internal error: too many buffers");
    CUDA_CHECK_NAMED(cudaMalloc(&p, bytes + 16), what);
    S->allocs[S->n_allocs++] = p;
    *ptr = p;
out:
    return rc;
}

/* ptr = a device buffer of count elements (rc, err and out in scope). */
#define DALLOC(S, ptr, count)                                                                      \
    do {                                                                                           \
        void *p_ = NULL;                                                                           \
        rc = cm_alloc((S), &p_, (size_t)(count) * sizeof *(ptr), "cudaMalloc of " #ptr, err);     \
        if (rc != WX_OK)                                                                           \
            goto out;                                                                              \
        *(void **)&(ptr) = p_;                                                                     \
    } while (0)

/* One thread per vertex (blocks in scope). */
#define LAUNCH(kernel, ...)                                                                        \
    do {                                                                                           \
        kernel<<<blocks, CM_THREADS>>>(__VA_ARGS__);                                               \
        CUDA_CHECK_LAUNCH(#kernel);                                                                \
    } while (0)

/* The graph on the device: copied from the host arrays g, or borrowed from
 * dg (the SCC ids there too) with the weights gathered from its labels. */
static int cm_upload(struct cm_solve *S, const struct cm_graph *g, const struct cm_borrowed *dg,
                     const struct scc_result *scc, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n = S->n, m = S->m;
    uint64_t *off;
    uint32_t *tgt, *comp;
    long long *w, *t = NULL;
    DALLOC(S, w, m);
    if (g) {
        DALLOC(S, off, n + 1);
        DALLOC(S, tgt, m);
        if (g->transit)
            DALLOC(S, t, m);
        DALLOC(S, comp, n);
        CUDA_CHECK(cudaMemcpy(off, g->offsets, (n + 1) * sizeof *off, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(tgt, g->targets, m * sizeof *tgt, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(w, g->weights, m * sizeof *w, cudaMemcpyHostToDevice));
        if (t)
            CUDA_CHECK(cudaMemcpy(t, g->transit, m * sizeof *t, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(comp, scc->comp, n * sizeof *comp, cudaMemcpyHostToDevice));
    } else {
        off = dg->g->d_offsets;
        tgt = dg->g->d_targets;
        comp = (uint32_t *)dg->d_comp;
        long long *lw;
        DALLOC(S, lw, dg->n_labels);
        CUDA_CHECK(cudaMemcpy(lw, dg->label_weight, dg->n_labels * sizeof *lw,
                              cudaMemcpyHostToDevice));
        if (m) {
            cm_label_weights<<<1024, CM_THREADS>>>(dg->g->d_labels, m, lw, w);
            CUDA_CHECK_LAUNCH("cm_label_weights");
        }
    }
    S->d.n = n, S->d.off = off, S->d.tgt = tgt, S->d.w = w, S->d.t = t, S->d.comp = comp;
    S->d.sgn = S->sgn;
out:
    return rc;
}

/* The working vectors of the policy iteration (struct cm_dev). */
static int cm_alloc_work(struct cm_solve *S, struct wx_error *err)
{
    int rc = WX_OK;
    cm_dev *d = &S->d;
    const uint64_t n = S->n;
    DALLOC(S, d->pol, n);
    DALLOC(S, d->succ, n);
    DALLOC(S, d->deg, n);
    DALLOC(S, d->deg0, n);
    for (int i = 0; i < 2; i++) {
        DALLOC(S, d->lead[i], n);
        DALLOC(S, d->jump[i], n);
        DALLOC(S, d->ps[i], n);
    }
    DALLOC(S, d->cp, n);
    DALLOC(S, d->cq, n);
    DALLOC(S, d->rec, n);
    DALLOC(S, d->stats, 1);
    DALLOC(S, d->progress, 2 * (S->R + 1));
    CUDA_CHECK(cudaMemset(d->stats, 0, sizeof *d->stats));
    CUDA_CHECK(cudaDeviceSynchronize());
out:
    return rc;
}

/* Input checks and the initial policy (cm_init); the overflow bound of the
 * header comment, with a factor 2 of margin: 2 (s^2 + s) Wmax Tmax < 2^126. */
static int cm_check_input(struct cm_solve *S, const struct scc_result *scc, struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned int blocks = S->blocks;
    struct cm_stats st;
    LAUNCH(cm_init, S->d);
    CUDA_CHECK(cudaMemcpy(&st, S->d.stats, sizeof st, cudaMemcpyDeviceToHost));
    if (st.bad_w)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "cycle mean (GPU): a weight on a cycle is outside [-(2^31 - 1), 2^31 - 1]");
    if (st.bad_t)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "cycle mean (GPU): a transit time on a cycle is outside [1, 2^31 - 1]");
    {
        const long double s = (long double)scc->largest;
        const long double bound =
            2.0L * (s * s + s) * ((long double)st.wmax + 1.0L) * (long double)st.tmax;
        if (bound >= 85070591730234615865843651857942052864.0L /* 2^126 */)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                           "cycle mean (GPU): a component of %llu vertices with |w| up to %u and "
                           "transit times up to %u may overflow the 128-bit exact values",
                           (unsigned long long)scc->largest, st.wmax, st.tmax);
    }
out:
    return rc;
}

/* Policy iteration until a round changes nothing (steps 1-7 of the header
 * comment, one host round trip per round); *b: the buffer holding the
 * final policy's evaluation; out->iterations: the rounds. */
static int cm_iterate(struct cm_solve *S, int *b, struct cm_result *out, struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned int blocks = S->blocks;
    const uint64_t n = S->n;
    const int R = S->R;
    const cm_dev d = S->d;
    uint64_t rounds = 0;
    for (;;) {
        if (rounds >= CM_MAX_ROUNDS) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "cycle mean (GPU): no convergence after %llu policy-iteration rounds",
                         (unsigned long long)rounds);
            goto out;
        }
        rounds++;
        CUDA_CHECK(cudaMemsetAsync(d.deg, 0, n * sizeof *d.deg));
        CUDA_CHECK(cudaMemsetAsync(&d.stats->changed, 0, sizeof d.stats->changed));
        CUDA_CHECK(cudaMemsetAsync(d.progress, 0, 2 * (R + 1) * sizeof *d.progress));
        LAUNCH(cm_succ_indeg, d);
        CUDA_CHECK(cudaMemcpyAsync(d.deg0, d.deg, n * sizeof *d.deg, cudaMemcpyDeviceToDevice));
        LAUNCH(cm_trim, d);
        LAUNCH(cm_lead_init, d);
        int a = 0;
        for (int k = 0; k < R; k++, a = 1 - a)
            LAUNCH(cm_lead_step, d, a, k);
        LAUNCH(cm_path_init, d, a);
        *b = 0;
        cm_dev dp = d;
        dp.progress = d.progress + R; /* the path steps' own flags */
        for (int k = 0; k < R; k++, *b = 1 - *b)
            LAUNCH(cm_path_step, dp, *b, k);
        LAUNCH(cm_cycle_ratio, d, *b);
        LAUNCH(cm_values, d, *b);
        LAUNCH(cm_improve, d);
        unsigned int changed = 0;
        CUDA_CHECK(cudaMemcpy(&changed, &d.stats->changed, sizeof changed, cudaMemcpyDeviceToHost));
        if (!changed)
            break; /* the evaluation of this final policy is in buffer *b */
    }
out:
    out->iterations = rounds;
    return rc;
}

/* Per component: the ratio must be the same at every vertex (the
 * certificate's first half, checked on the device); the answer, in the
 * input's sign, is read at the component's smallest vertex (only n_sccs
 * answers travel back).  gh[k]: the handle seen from component k. */
static int cm_gather_answers(struct cm_solve *S, int b, const struct scc_result *scc,
                             struct cm_result *out, uint32_t *gh, struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned int blocks = S->blocks;
    const uint64_t K = scc->n_sccs;
    struct cm_stats st;
    long long *h_gp = (long long *)malloc(K * sizeof *h_gp);
    long long *h_gq = (long long *)malloc(K * sizeof *h_gq);
    uint64_t *d_first;
    long long *d_gp, *d_gq;
    uint32_t *d_gh;
    LAUNCH(cm_check_uniform, S->d);
    CUDA_CHECK(cudaMemcpy(&st, S->d.stats, sizeof st, cudaMemcpyDeviceToHost));
    if (st.nonuniform) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                     "cycle mean (GPU): internal error: a component's ratio is not uniform "
                     "after convergence");
        goto out;
    }
    if (!h_gp || !h_gq) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "cycle mean (GPU): out of memory");
        goto out;
    }
    /* each component's first (smallest) vertex, on the device */
    DALLOC(S, d_first, K);
    DALLOC(S, d_gp, K);
    DALLOC(S, d_gq, K);
    DALLOC(S, d_gh, K);
    CUDA_CHECK(cudaMemset(d_first, 0xff, K * sizeof *d_first));
    LAUNCH(cm_first, S->d, (unsigned long long *)d_first);
    cm_gather<<<(unsigned int)((K + CM_THREADS - 1) / CM_THREADS), CM_THREADS>>>(
        S->d, b, d_first, K, d_gp, d_gq, d_gh);
    CUDA_CHECK_LAUNCH("cm_gather");
    CUDA_CHECK(cudaMemcpy(h_gp, d_gp, K * sizeof *h_gp, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_gq, d_gq, K * sizeof *h_gq, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gh, d_gh, K * sizeof *gh, cudaMemcpyDeviceToHost));
    for (uint64_t k = 0; k < K; k++) {
        struct cm_value *cv = &out->per_scc[k];
        if (h_gq[k] > 0)
            cv->has_cycle = 1, cv->num = S->sgn * h_gp[k], cv->den = h_gq[k];
    }
out:
    free(h_gp);
    free(h_gq);
    return rc;
}

/* The optimal component (the first of the best ratio) into out->best. */
static int cm_pick_best(const struct scc_result *scc, int maximize, struct cm_result *out,
                        struct wx_error *err)
{
    uint64_t best = UINT64_MAX;
    for (uint64_t k = 0; k < scc->n_sccs; k++) {
        const struct cm_value *cv = &out->per_scc[k];
        if (!cv->has_cycle)
            continue;
        if (best == UINT64_MAX ||
            (maximize ? cm_less_host(out->per_scc[best].num, out->per_scc[best].den, cv->num, cv->den)
                      : cm_less_host(cv->num, cv->den, out->per_scc[best].num,
                                     out->per_scc[best].den)))
            best = k;
    }
    if (best == UINT64_MAX)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                       "cycle mean (GPU): internal error: non-trivial components but no cycle");
    out->best = out->per_scc[best];
    out->best_scc = (uint32_t)best;
    return WX_OK;
}

/* The critical cycle: the policy cycle through the handle h of the optimal
 * component's smallest vertex, walked on the device and re-checked against
 * the input weights there. */
static int cm_critical_cycle(struct cm_solve *S, uint32_t h, const struct scc_result *scc,
                             struct cm_result *out, struct wx_error *err)
{
    int rc = WX_OK;
    uint32_t *d_cyc;
    uint64_t *d_cedges, len;
    long long *d_sums, sums[3];
    DALLOC(S, d_cyc, scc->largest + 1);
    DALLOC(S, d_cedges, scc->largest + 1);
    DALLOC(S, d_sums, 3);
    cm_walk<<<1, 1>>>(S->d, h, scc->largest, d_cyc, d_cedges, d_sums);
    CUDA_CHECK_LAUNCH("cm_walk");
    CUDA_CHECK(cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost));
    len = (uint64_t)sums[0];
    if (len == 0) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                     "cycle mean (GPU): internal error: the critical policy cycle does not close");
        goto out;
    }
    out->cycle = (uint32_t *)malloc(len * sizeof *out->cycle);
    out->cycle_edges = (uint64_t *)malloc(len * sizeof *out->cycle_edges);
    if (!out->cycle || !out->cycle_edges) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "cycle mean (GPU): out of memory");
        goto out;
    }
    out->cycle_len = len;
    CUDA_CHECK(cudaMemcpy(out->cycle, d_cyc, len * sizeof *out->cycle, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out->cycle_edges, d_cedges, len * sizeof *out->cycle_edges,
                          cudaMemcpyDeviceToHost));
    {
        const long long sw = sums[1], stt = sums[2]; /* |sums| < 2^32 * 2^31: no overflow */
        const long long gg = cm_gcd_host(sw, stt);
        if (sw / gg != out->best.num || stt / gg != out->best.den)
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                         "cycle mean (GPU): internal error: the critical cycle's ratio %lld/%lld "
                         "differs from the optimum %lld/%lld", sw / gg, stt / gg,
                         (long long)out->best.num, (long long)out->best.den);
    }
out:
    return rc;
}

/* Steps after the input checks: the policy iteration, the answers per
 * component, the optimum and its critical cycle. */
static int cm_solve_run(struct cm_solve *S, const struct scc_result *scc, int maximize,
                        struct cm_result *out, double *t_phase, struct wx_error *err)
{
    int b = 0;
    uint32_t *gh = (uint32_t *)malloc((scc->n_sccs ? scc->n_sccs : 1) * sizeof *gh);
    int rc = gh ? cm_iterate(S, &b, out, err)
                : wx_fail(err, WX_ELIMIT, NULL, 0, 0, "cycle mean (GPU): out of memory");
    cm_phase[2] = cm_now() - *t_phase;
    *t_phase = cm_now();
    if (rc == WX_OK)
        rc = cm_gather_answers(S, b, scc, out, gh, err);
    if (rc == WX_OK)
        rc = cm_pick_best(scc, maximize, out, err);
    if (rc == WX_OK)
        rc = cm_critical_cycle(S, gh[out->best_scc], scc, out, err);
    free(gh);
    return rc;
}

/* The solve, from host arrays (g) or from a graph already on the device
 * (dg, with the SCC ids there too; exactly one of them is given). */
static int howard(const struct cm_graph *g, const struct cm_borrowed *dg, const struct scc_result *scc,
                  int maximize, struct cm_result *out, struct wx_error *err)
{
    int rc = WX_OK;
    struct cm_solve S;
    double t_phase = cm_now();
    memset(out, 0, sizeof *out);
    memset(&S, 0, sizeof S);
    S.n = g ? g->n_vertices : dg->g->n_vertices;
    S.m = g ? g->n_edges : dg->g->n_edges;
    for (int i = 0; i < 4; i++)
        cm_phase[i] = 0;
    if (scc->n_vertices != S.n)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "cycle mean (GPU): the SCC result has %llu vertices, the graph %llu",
                       (unsigned long long)scc->n_vertices, (unsigned long long)S.n);
    if (S.n >= 0xffffffffull)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "cycle mean (GPU): %llu vertices; the limit is 2^32 - 2",
                       (unsigned long long)S.n);
    out->n_sccs = scc->n_sccs;
    if (scc->n_sccs) {
        out->per_scc = (struct cm_value *)calloc(scc->n_sccs, sizeof *out->per_scc);
        if (!out->per_scc)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "cycle mean (GPU): out of memory");
    }
    if (scc->n_in_nontrivial == 0)
        return WX_OK; /* acyclic: no cycle, nothing to solve */
    S.blocks = (unsigned int)((S.n + CM_THREADS - 1) / CM_THREADS);
    S.R = cm_bits(scc->largest);
    S.sgn = maximize ? -1 : 1;
    rc = cm_upload(&S, g, dg, scc, err);
    if (rc == WX_OK)
        rc = cm_alloc_work(&S, err);
    cm_phase[0] = cm_now() - t_phase;
    t_phase = cm_now();
    if (rc == WX_OK)
        rc = cm_check_input(&S, scc, err);
    cm_phase[1] = cm_now() - t_phase;
    t_phase = cm_now();
    if (rc == WX_OK)
        rc = cm_solve_run(&S, scc, maximize, out, &t_phase, err);
    for (int i = 0; i < S.n_allocs; i++)
        cudaFree(S.allocs[i]);
    cm_phase[3] = cm_now() - t_phase;
    if (rc != WX_OK) {
        free(out->cycle);
        free(out->cycle_edges);
        free(out->per_scc);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

extern "C" int cyclemean_howard_gpu(const struct cm_graph *g, const struct scc_result *scc,
                                    int maximize, struct cm_result *out, struct wx_error *err)
{
    return howard(g, NULL, scc, maximize, out, err);
}

extern "C" int cyclemean_howard_gpu_device(const struct dgraph *g, const uint32_t *d_comp,
                                           const int64_t *label_weight, uint32_t n_labels,
                                           const struct scc_result *scc, int maximize, struct cm_result *out,
                                           struct wx_error *err)
{
    if (g->n_edges && !g->d_labels) {
        memset(out, 0, sizeof *out);
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "cycle mean (GPU): the device graph has no labels to weigh its edges");
    }
    const struct cm_borrowed b = {g, d_comp, label_weight, n_labels};
    return howard(NULL, &b, scc, maximize, out, err);
}
