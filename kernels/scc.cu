/*
 * scc.cu -- strongly connected components on the GPU: the twin of
 * analysis/scc.c (same struct scc_result, same canonical numbering).
 *
 * PIPELINE (scc_gpu_device):
 *   1. transpose: in-edges by a CUB radix sort of (target, source) pairs;
 *      in-offsets from the sorted keys (no atomics).  Option: counting
 *      (in-degree atomics, scan, scatter), faster on local targets but much
 *      slower on random ones.
 *      By default (transpose_sort 2) counting is chosen when >= 90 % of
 *      1024 sampled edges stay within max(65536, n/256) ids of their
 *      source.  The interleaved segment layout (tuning segment_degree) is
 *      built here when asked for; the trim sweeps read it.
 *      Symmetric graphs (tuning symmetric, default on): when a sample of
 *      1024 edges and then every edge u -> v is matched by as many v -> u
 *      (degrees <= 64), the SCCs are the connected components, found by
 *      union-find (scc_cc_*: no transposition, no trim, no search); the
 *      rest of the pipeline is skipped.
 *   2. trim: a live vertex without a live in- or out-neighbour (other than
 *      itself) in its own region is a singleton SCC.  The first trim (every
 *      vertex live, one region) peels to the fixpoint, Kahn-style, in one
 *      persistent launch (scc_trim_coop); later ones are topology-driven
 *      sweeps, repeated while a sweep removes at least 1/TRIM_MIN_SHARE of
 *      the live vertices (a Kahn pass must first count every live edge;
 *      sweeps that stop when they stop paying cost less there).
 *      Small-SCC detection at every peeling level of the first trim
 *      (tuning trim_detect, default 20; see scc_trim_body): a grid-DAG
 *      decomposes inside the trim.
 *   3. pivot: one forward-backward search from the live vertex with the
 *      largest (in+1)(out+1) degree product, both directions at once over
 *      one flag byte per vertex (scc_pivot_coop): the intersection is the
 *      pivot's SCC -- on graphs with a giant SCC (tori, random graphs,
 *      most state spaces) this removes most vertices in O(n + m) work,
 *      where label propagation would need many label changes per vertex.
 *      The rest splits into the regions "forward only", "backward only"
 *      and "neither", which no SCC crosses.  A frontier vertex of more
 *      than pivot_wide (32) edges is expanded by its whole warp (state
 *      spaces have hubs), and a thread takes up to pivot_local (2) of the vertices it
 *      has just claimed on itself, depth first, so a level covers several
 *      BFS levels.
 *   3b. multi-source rounds (Li et al., tuning fb_rounds, default 8), each
 *      after a trim: every region (dense ids) elects a pivot, all pivots
 *      search forward and backward at once within their regions, their
 *      SCCs are finished, and every region splits into (forward only,
 *      backward only, neither) subregions numbered densely by a CUB prefix
 *      sum over 3 codes per region.  A few rounds help on chains of
 *      SCCs; all rounds multi-source would take a round per SCC.
 *   4. colour rounds, alternating direction, each after a trim: every live
 *      vertex gets col = the largest id that reaches it (or, in odd rounds,
 *      that it reaches) within its region, by data-driven max propagation
 *      (only vertices whose label grew push again); a colour's root (col ==
 *      own id) then searches back within its colour: the vertices reached
 *      form the root's SCC (col[v] == c and v reaches c, and c reaches v
 *      since c is v's colour).  The others move to the region "colour c":
 *      SCC members share their colour, and c lies in v's old region, so the
 *      regions stay disjoint.  Every round finishes at least the SCC of
 *      each region's largest vertex, so the loop terminates; ids in a
 *      topological-like order (grid-DAGs, BFS-numbered state spaces) make
 *      most vertices their own root in the first round, and alternating
 *      the direction handles the reverse order.
 *   4b. CPU residue (tuning residue): each GPU phase gets a budget of
 *      residue_ns per live item; an engine past it stops at its next level
 *      (device clock, checked by one thread between levels), and the live
 *      subgraph -- a union of SCCs, so its SCCs are the graph's -- is
 *      compacted on the GPU, decomposed by Tarjan on the host, and each
 *      live vertex's representative (its component's smallest member)
 *      copied back.  On paths this replaces one thread walking every
 *      dependent step.
 *   5. relabel: the representative of a component (the pivot, the colour
 *      root, or the trimmed vertex) maps to its smallest member
 *      (warp-aggregated atomicMin), and a CUB exclusive scan over "v is its
 *      component's smallest member" numbers the components canonically.
 *   6. counts: sizes and "edge leaves" / "self-loop" flags per component
 *      (warp-aggregated atomics), then one reduction over the components;
 *      none for a single SCC of >= 2 vertices (its counts are known).
 *
 * ENGINES.  Steps 2-4 run in persistent cooperative kernels (one launch
 * per trim, search or propagation; see "persistent engines" below) where
 * the device allows cooperative launch; struct scc_gpu_tuning.persistent
 * = 0 selects the engine of one launch per level (scc_push_level,
 * scc_trim), the fallback where cooperative launch is unavailable.
 *
 * DETERMINISM: the partition and the canonical ids are deterministic; the
 * number of sweeps may vary from run to run (in-place updates race, below).
 *
 * BENIGN RACES (global memory only; the detection's shared-memory sets are
 * each thread's own, and a warp's member list is fenced by __syncwarp):
 *   - trim: rep[] is written by its owner while neighbours read it.  A
 *     neighbour seen as already trimmed is a singleton SCC, hence not in
 *     v's SCC, so ignoring it is right; seen as live, it only delays v.
 *   - push levels: see the comment of scc_push_level; the persistent
 *     engines: see theirs (flag bits and counts change only by atomics;
 *     labels only grow).
 *   - connected components: see scc_cc_find (links by CAS on a root;
 *     path halving writes ancestors only).
 */
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cub/cub.cuh>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "../analysis/scc.h"
#include "scc_gpu.h"
}

namespace cg = cooperative_groups;

#define SCC_UNSET 0xffffffffu
#define SCC_BLOCK 256
#define FULL_MASK 0xffffffffu

/* Tunables (why: see the pipeline comment). */
#define TRIM_MIN_SHARE 64     /* default: trim again while a sweep removes >= live/64 */
#define TRIM_MAX_SWEEPS 64    /* default: per trim phase */
#define LEVEL_BATCH_MAX 16    /* push levels launched between host checks */
#define LEVEL_BLOCKS_PER_SM 8 /* grid of a push level: SMs * this blocks of SCC_BLOCK */

/* Flag bits of the pivot search, one byte per vertex (so that the 8 M
 * vertices of a large graph take 8 MB, resident in L2). */
#define PF_FWD 1u
#define PF_BWD 2u
#define PF_OUT 4u /* not live (trimmed before the search) */

#define SCC_COOP_BLOCK 1024  /* threads per block of the persistent engines */
#define CHAIN_HOPS 4096       /* default: path steps a persistent-engine thread follows per item */
#define LOCAL_SAMPLE 1024     /* edges sampled to choose the transposition */
#define LOCAL_NEAR 65536      /* "local" edge: |target - source| <= this (or n / 256) */
#define FB_ROUNDS 8           /* default: multi-source rounds before the colouring (bench/history/scc.md) */
#define RESIDUE_NS 10         /* default: GPU budget per residue item before the CPU takes it, ns
                                 (below Tarjan's own cost per item; bench/history/scc.md) */
#define RESIDUE_MAX (1ull << 25) /* default: largest residue (vertices + edges) for the CPU */
#define PIVOT_LOCAL 2         /* default: vertices a pivot-search thread takes on per item
                                 (fewer levels per search; bench/history/scc.md) */
#define PIVOT_WIDE 32         /* default: degree above which a warp expands a vertex together
                                 (hubs of state spaces; bench/history/scc.md) */

/* Component flags of the counting pass. */
#define CF_LEAVES 1u          /* an edge leaves the component */
#define CF_SELF 2u            /* a self-loop inside it */

static int cuda_fail(struct wx_error *err, cudaError_t e, const char *what, int line)
{
    if (e == cudaErrorMemoryAllocation)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "GPU SCC: out of device memory (%s, scc.cu:%d)", what, line);
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU SCC: CUDA error '%s' in %s (scc.cu:%d)",
                   cudaGetErrorString(e), what, line);
}

#define CK(call)                                                       \
    do {                                                               \
        cudaError_t e_ = (call);                                       \
        if (e_ != cudaSuccess) {                                       \
            rc = cuda_fail(err, e_, #call, __LINE__);                  \
            goto out;                                                  \
        }                                                              \
    } while (0)
#define CK_LAUNCH() CK(cudaGetLastError())

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static unsigned grid_for(uint64_t n)
{
    return (unsigned)((n + SCC_BLOCK - 1) / SCC_BLOCK);
}

/* ---- transposition ---- */

/* src[e] = the source of edge e (one thread per vertex). */
__global__ void scc_edge_sources(const uint64_t *off, uint32_t n, uint32_t *src)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n)
        return;
    for (uint64_t e = off[v]; e < off[v + 1]; e++)
        src[e] = (uint32_t)v;
}

/* roff[v] = the first position i of the sorted keys with keys[i] >= v: the
 * thread of position i (0 <= i <= m) writes it for keys[i-1] < v <= keys[i]
 * (with keys[-1] = -1 and keys[m] = n), so every v in [0, n] is written
 * exactly once. */
__global__ void scc_offsets_from_keys(const uint32_t *keys, uint64_t m, uint32_t n, uint64_t *roff)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > m)
        return;
    uint64_t a = i == 0 ? 0 : (uint64_t)keys[i - 1] + 1;
    uint64_t b = i == m ? (uint64_t)n : (uint64_t)keys[i];
    for (uint64_t v = a; v <= b; v++)
        roff[v] = i;
}

/* deg[t] += 1 per edge into t (one thread per edge). */
__global__ void scc_in_degrees(const uint32_t *tgt, uint64_t m, uint64_t *deg)
{
    uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < m)
        atomicAdd((unsigned long long *)&deg[tgt[e]], 1ull);
}

/* rsrc[roff[t] + cursor[t]++] = u for every edge u -> t (one thread per
 * source vertex; cursor starts at 0). */
__global__ void scc_scatter_sources(uint32_t n, const uint64_t *off, const uint32_t *tgt,
                                    const uint64_t *roff, uint64_t *cursor, uint32_t *rsrc)
{
    uint64_t u = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n)
        return;
    for (uint64_t e = off[u]; e < off[u + 1]; e++) {
        uint32_t t = tgt[e];
        rsrc[roff[t] + atomicAdd((unsigned long long *)&cursor[t], 1ull)] = (uint32_t)u;
    }
}

/* The source of edge e: the u with off[u] <= e < off[u + 1] (binary search
 * in off, n vertices). */
static __device__ __forceinline__ uint64_t scc_source_of_edge(const uint64_t *off, uint32_t n, uint64_t e)
{
    uint64_t lo = 0, hi = n; /* off[lo] <= e < off[hi] */
    while (hi - lo > 1) {
        uint64_t mid = (lo + hi) / 2;
        if (off[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Locality probe for the choice of transposition (tuning transpose_sort
 * 2): for k edges spread evenly over the edge array, *count += 1 when
 * |target - source| <= near (the source by binary search in off). */
__global__ void scc_locality(const uint64_t *off, const uint32_t *tgt, uint32_t n, uint64_t m,
                             uint32_t k, uint64_t near, unsigned long long *count)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k)
        return;
    const uint64_t e = m * i / k, lo = scc_source_of_edge(off, n, e);
    uint64_t t = tgt[e];
    if ((t > lo ? t - lo : lo - t) <= near)
        atomicAdd(count, 1ull);
}

/* ---- symmetric graphs: the graph as its own transpose ---- */

#define SYM_MAX_DEG 64 /* the check gives up on vertices of more edges */

/* Edge u -> v is matched when v's list holds u as often as u's holds v
 * (then every vertex's in-multiset equals its out-multiset, so off/tgt
 * serve as the transpose, multiplicities included: the trim counts rely
 * on them). */
__device__ static bool scc_sym_edge(const uint64_t *off, const uint32_t *tgt, uint32_t u, uint32_t v)
{
    if (u == v)
        return true;
    const uint64_t bu = off[u], eu = off[u + 1], bv = off[v], ev = off[v + 1];
    if (eu - bu > SYM_MAX_DEG || ev - bv > SYM_MAX_DEG)
        return false;
    uint32_t cu = 0, cv = 0;
    for (uint64_t e = bu; e < eu; e++)
        cu += tgt[e] == v;
    for (uint64_t e = bv; e < ev; e++)
        cv += tgt[e] == u;
    return cu == cv;
}

/* *bad += 1 for each of k edges spread over the edge array (the source
 * by binary search) that is not matched. */
__global__ void scc_sym_probe(const uint64_t *off, const uint32_t *tgt, uint32_t n, uint64_t m,
                              uint32_t k, unsigned long long *bad)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k)
        return;
    const uint64_t e = m * i / k, lo = scc_source_of_edge(off, n, e);
    if (!scc_sym_edge(off, tgt, (uint32_t)lo, tgt[e]))
        atomicAdd(bad, 1ull);
}

/* *bad = 1 when some edge of some vertex is not matched (one thread per
 * vertex; stops early once *bad is set).  Also the first step of the
 * connected components below: parent[u] = the smallest of u and its
 * neighbours (discarded when the graph is not symmetric). */
__global__ void scc_sym_check(const uint64_t *off, const uint32_t *tgt, uint32_t n,
                              unsigned long long *bad, uint32_t *parent)
{
    uint64_t u = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n)
        return;
    uint32_t low = (uint32_t)u;
    const uint64_t b = off[u], end = off[u + 1];
    if (end - b > SYM_MAX_DEG) {
        *bad = 1;
        return;
    }
    for (uint64_t e = b; e < end; e++) {
        const uint32_t v = tgt[e];
        low = min(low, v);
        if (*(volatile unsigned long long *)bad)
            return;
        if (!scc_sym_edge(off, tgt, (uint32_t)u, v)) {
            *bad = 1;
            return;
        }
    }
    parent[u] = low;
}

/* ---- symmetric graphs: SCCs are the connected components ----
 *
 * In a symmetric graph every edge lies on a cycle (u -> v -> u), so the
 * SCCs are the connected components of the underlying undirected graph,
 * found by union-find without any search (no levels: a 200^3 torus has
 * diameter 300, which cost the pivot search ~100 grid-wide levels).
 * parent[] is a forest with parent[v] <= v (a root r has parent[r] == r):
 * links put the larger of two roots under the smaller, so every root is
 * the smallest member of its tree and, at the end, parent[v] = the
 * smallest member of v's component -- the representative scc_gpu's
 * relabelling expects.  Races: links are CAS on a root's own entry (only
 * a root is ever re-pointed by a link); path halving overwrites
 * parent[x] with a proper ancestor of x, which stays an ancestor as trees
 * only merge, so a stale read only lengthens a walk. */
__device__ __forceinline__ static uint32_t scc_cc_find(uint32_t *parent, uint32_t v)
{
    volatile uint32_t *p = parent;
    uint32_t up = p[v];
    while (up != v) {
        const uint32_t upup = p[up];
        if (upup != up)
            p[v] = upup; /* halving: v skips its parent */
        v = up;
        up = upup;
    }
    return v;
}

/* Unites the components of every edge u -> v with v < u (the reverse edge
 * covers v < u's mirror), one thread per vertex. */
__global__ void scc_cc_hook(const uint64_t *off, const uint32_t *tgt, uint32_t n, uint32_t *parent)
{
    uint64_t u = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n)
        return;
    for (uint64_t e = off[u], end = off[u + 1]; e < end; e++) {
        const uint32_t v = tgt[e];
        if (v >= u)
            continue;
        uint32_t ru = scc_cc_find(parent, (uint32_t)u), rv = scc_cc_find(parent, v);
        while (ru != rv) {
            const uint32_t hi = max(ru, rv), lo = min(ru, rv);
            const uint32_t seen = atomicCAS(&parent[hi], hi, lo);
            if (seen == hi)
                break; /* linked */
            /* hi was linked elsewhere meanwhile: retry from the new roots */
            ru = scc_cc_find(parent, hi);
            rv = scc_cc_find(parent, lo);
        }
    }
}

/* parent[v] = v's root, the smallest member of its component (no links
 * any more).  The walk only reads: halving here could overwrite a root
 * another thread has just stored with an older, inner ancestor, so each
 * thread writes its own entry only. */
__global__ void scc_cc_flatten(uint32_t n, uint32_t *parent)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n)
        return;
    volatile uint32_t *p = parent;
    uint32_t r = p[v], up;
    while ((up = p[r]) != r)
        r = up;
    p[v] = r;
}

/* ---- trimming ---- */

/* One trim sweep; *count += vertices trimmed.  rep[v] == SCC_UNSET marks a
 * live vertex; a trimmed vertex is its own representative. */
__global__ void scc_trim(uint32_t n, const uint64_t *off, const uint32_t *tgt, const uint64_t *roff,
                         const uint32_t *rsrc, uint32_t *rep, const uint32_t *reg,
                         unsigned long long *count)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool trimmed = false;
    if (v < n && rep[v] == SCC_UNSET) {
        uint32_t r = reg[v];
        bool has_out = false, has_in = false;
        for (uint64_t e = off[v]; e < off[v + 1] && !has_out; e++) {
            uint32_t w = tgt[e];
            has_out = w != v && rep[w] == SCC_UNSET && reg[w] == r;
        }
        for (uint64_t e = roff[v]; has_out && e < roff[v + 1] && !has_in; e++) {
            uint32_t u = rsrc[e];
            has_in = u != v && rep[u] == SCC_UNSET && reg[u] == r;
        }
        if (!has_out || !has_in) {
            rep[v] = (uint32_t)v;
            trimmed = true;
        }
    }
    unsigned b = __ballot_sync(FULL_MASK, trimmed);
    if ((threadIdx.x & 31) == 0 && b)
        atomicAdd(count, (unsigned long long)__popc(b));
}

/* ---- the interleaved segment layout (Wijs, Katoen, Bosnacki) ----
 *
 * Vertices in segments of 32 (segment s = vertices 32s .. 32s+31, one per
 * lane of a warp); edge j < D of the vertex of lane i is stored at
 * adj[32 * (base[s] + j) + i], so when a warp's lanes read their j-th
 * edges the 32 reads fall in one 128-byte line instead of 32 places.  A
 * segment is as wide as its largest degree, capped at D (the out-degree
 * bound); edges j >= D of high-degree vertices stay in the original CSR,
 * which serves as the overflow (no copy).  Built on the device from the CSR
 * (a warp max per segment, a CUB scan, a scatter). */
struct scc_seg {
    const uint64_t *base; /* nseg + 1 row offsets (a row = 32 words) */
    const uint32_t *adj;
    uint32_t d;           /* the degree bound D (0: no layout) */
};

__device__ __forceinline__ static uint32_t scc_seg_edge(const struct scc_seg &sg, const uint64_t *off,
                                                        const uint32_t *adj, uint64_t v, uint64_t j)
{
    return j < sg.d ? sg.adj[32 * (sg.base[v >> 5] + j) + (v & 31)] : adj[off[v] + j];
}

__global__ void scc_seg_width(uint32_t n, uint64_t nseg, const uint64_t *off, uint32_t d,
                              uint64_t *width)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t deg = v < n ? off[v + 1] - off[v] : 0;
    uint32_t mx = __reduce_max_sync(FULL_MASK, (uint32_t)(deg < d ? deg : d));
    if ((threadIdx.x & 31) == 0 && (v >> 5) < nseg)
        width[v >> 5] = mx;
}

__global__ void scc_seg_fill(uint32_t n, const uint64_t *off, const uint32_t *adj, uint32_t d,
                             const uint64_t *base, uint32_t *sadj)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n)
        return;
    uint64_t deg = off[v + 1] - off[v], row = base[v >> 5];
    for (uint64_t j = 0; j < deg && j < d; j++)
        sadj[32 * (row + j) + (v & 31)] = adj[off[v] + j];
}

/* scc_trim over the segment layouts fs (out-edges) and bs (in-edges). */
__global__ void scc_trim_seg(uint32_t n, const uint64_t *off, const uint32_t *tgt,
                             const uint64_t *roff, const uint32_t *rsrc, struct scc_seg fs,
                             struct scc_seg bs, uint32_t *rep, const uint32_t *reg,
                             unsigned long long *count)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool trimmed = false;
    if (v < n && rep[v] == SCC_UNSET) {
        uint32_t r = reg[v];
        bool has_out = false, has_in = false;
        for (uint64_t j = 0, deg = off[v + 1] - off[v]; j < deg && !has_out; j++) {
            uint32_t w = scc_seg_edge(fs, off, tgt, v, j);
            has_out = w != v && rep[w] == SCC_UNSET && reg[w] == r;
        }
        for (uint64_t j = 0, deg = roff[v + 1] - roff[v]; has_out && j < deg && !has_in; j++) {
            uint32_t u = scc_seg_edge(bs, roff, rsrc, v, j);
            has_in = u != v && rep[u] == SCC_UNSET && reg[u] == r;
        }
        if (!has_out || !has_in) {
            rep[v] = (uint32_t)v;
            trimmed = true;
        }
    }
    unsigned b = __ballot_sync(FULL_MASK, trimmed);
    if ((threadIdx.x & 31) == 0 && b)
        atomicAdd(count, (unsigned long long)__popc(b));
}

/* ---- data-driven propagation (pivot search, colouring, reach) ----
 *
 * A "side" is one propagation: labels lab[] pushed along the edges adj[]
 * of off[] (the CSR for "forward", the transpose for "backward"), from the
 * vertices of the level's queue, within the pusher's region (and colour,
 * when COL): w takes max(lab[w], lab[v]) by atomicMax, and w joins the next
 * level's queue the first time its label grows in a level (stamp[w] holds
 * the last level w was queued for; levels are numbered globally, so the
 * stamps need no reset).  Queues are double-buffered by level parity;
 * their lengths rotate over three counters: level L reads cnt[L % 3],
 * appends to cnt[(L+1) % 3] and clears cnt[(L+2) % 3] (read by level L-1,
 * written next by level L+1), so levels run back to back without the host.
 * The first level of a propagation may take "all live vertices" instead of
 * a queue.  A propagation is finished when a level starts with empty queues.
 * Correctness: whenever lab[w] grows, w is in the next queue (or already
 * is, and pushes its latest label when processed, after the kernel
 * boundary), so at the end lab[w] >= lab[v] on every in-region edge v -> w:
 * lab[w] is the maximum over the vertices that reach w, i.e. the fixpoint.
 * Races: labels only grow (atomicMax); the early "lab[w] >= label" test
 * reads a possibly stale, smaller value and then only costs an atomic.
 */
struct scc_side {
    const uint64_t *off;
    const uint32_t *adj;
    uint32_t *lab, *stamp;
    uint32_t *q0, *q1;
    unsigned long long *cnt; /* 3 rotating queue lengths */
};

__device__ static uint32_t scc_vload(const uint32_t *p)
{
    return *(const volatile uint32_t *)p;
}

/* Vertices a thread queues per item before it falls back to one atomic
 * per vertex (only high-degree vertices ever do). */
#define PUSH_CAP 8

/* One push level.  The loop over the level's items runs warp-uniformly (the
 * bound is the same for the whole block), so that at its end all 32 lanes
 * flush the vertices they queued together: a warp-wide inclusive scan per
 * side gives each lane its offset and lane 31 reserves the warp's space with
 * one atomicAdd per side.  (Appending with one atomic per vertex, or per
 * group of lanes that happen to be converged, made the queue counter the
 * bottleneck: tens of microseconds per level on frontiers of 10^4-10^6.) */
/* The warp-wide queue flush of the push levels, for two queues (a, b): each
 * lane appends its nb buffered vertices to the queue of its side. */
__device__ __forceinline__ static void scc_flush2(bool first, uint32_t nb, const uint32_t *buf,
                                                  uint32_t *next_a, unsigned long long *ncnt_a,
                                                  uint32_t *next_b, unsigned long long *ncnt_b)
{
    const unsigned lane = threadIdx.x & 31;
    uint32_t ka = first ? nb : 0, kb = first ? 0 : nb, sa = ka, sb = kb;
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t ta = __shfl_up_sync(FULL_MASK, sa, d), tb = __shfl_up_sync(FULL_MASK, sb, d);
        if ((int)lane >= d) {
            sa += ta;
            sb += tb;
        }
    }
    unsigned long long base_a = 0, base_b = 0;
    if (lane == 31) {
        if (sa)
            base_a = atomicAdd(ncnt_a, (unsigned long long)sa);
        if (sb)
            base_b = atomicAdd(ncnt_b, (unsigned long long)sb);
    }
    base_a = __shfl_sync(FULL_MASK, base_a, 31);
    base_b = __shfl_sync(FULL_MASK, base_b, 31);
    uint32_t *q = first ? next_a : next_b;
    unsigned long long pos = first ? base_a + sa - ka : base_b + sb - kb;
    for (uint32_t j = 0; j < nb; j++)
        q[pos + j] = buf[j];
}

template <bool COL>
__global__ void scc_push_level(uint32_t n, struct scc_side a, struct scc_side b, int two,
                               uint32_t level, int all, const uint32_t *rep, const uint32_t *reg,
                               const uint32_t *col)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        a.cnt[(level + 2) % 3] = 0;
        if (two)
            b.cnt[(level + 2) % 3] = 0;
    }
    const uint64_t ca = all ? n : a.cnt[level % 3];
    const uint64_t cb = two ? (all ? n : b.cnt[level % 3]) : 0;
    const uint64_t total = ca + cb;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint32_t *next_a = (level & 1) ? a.q0 : a.q1, *next_b = (level & 1) ? b.q0 : b.q1;
    unsigned long long *ncnt_a = a.cnt + (level + 1) % 3, *ncnt_b = b.cnt + (level + 1) % 3;
    for (uint64_t i0 = (uint64_t)blockIdx.x * blockDim.x; i0 < total; i0 += stride) {
        const uint64_t i = i0 + threadIdx.x;
        const bool first = i < ca;
        uint32_t buf[PUSH_CAP];
        uint32_t nb = 0;
        if (i < total) {
            /* the side's fields, selected one by one (no local-memory copy) */
            const uint64_t k = first ? i : i - ca;
            const uint64_t *off = first ? a.off : b.off;
            const uint32_t *adj = first ? a.adj : b.adj;
            uint32_t *lab = first ? a.lab : b.lab;
            uint32_t *stamp = first ? a.stamp : b.stamp;
            const uint32_t *cur = (level & 1) ? (first ? a.q1 : b.q1) : (first ? a.q0 : b.q0);
            const uint32_t v = all ? (uint32_t)k : cur[k];
            const uint32_t label = (all && rep[v] != SCC_UNSET) ? 0 : scc_vload(&lab[v]);
            if (label != 0) { /* 0 never raises a label */
                const uint32_t r = reg[v];
                const uint32_t cv = COL ? col[v] : 0;
                for (uint64_t e = off[v]; e < off[v + 1]; e++) {
                    const uint32_t w = adj[e];
                    if (rep[w] != SCC_UNSET || reg[w] != r || (COL && col[w] != cv))
                        continue;
                    if (scc_vload(&lab[w]) >= label)
                        continue;
                    if (atomicMax(&lab[w], label) < label &&
                        atomicExch(&stamp[w], level + 1) != level + 1) {
                        if (nb < PUSH_CAP) {
                            buf[nb++] = w;
                        } else {
                            unsigned long long *nc = first ? ncnt_a : ncnt_b;
                            (first ? next_a : next_b)[atomicAdd(nc, 1ull)] = w;
                        }
                    }
                }
            }
        }
        scc_flush2(first, nb, buf, next_a, ncnt_a, next_b, ncnt_b);
    }
}

/* Pivot election: the live vertex with the largest (in+1)*(out+1) degree
 * product (ties to the larger id), as a 64-bit key max. */
__global__ void scc_pivot_key(uint32_t n, const uint64_t *off, const uint64_t *roff,
                              const uint32_t *rep, unsigned long long *best)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long key = 0;
    if (v < n && rep[v] == SCC_UNSET) {
        uint64_t p = (off[v + 1] - off[v] + 1) * (roff[v + 1] - roff[v] + 1);
        key = (p > 0x7fffffffull ? 0x7fffffffull : p) << 32 | v;
        key |= 1ull << 63; /* a live vertex beats "none" even with key 0 */
    }
    for (int d = 16; d; d >>= 1) {
        unsigned long long o = __shfl_down_sync(FULL_MASK, key, d);
        key = o > key ? o : key;
    }
    if ((threadIdx.x & 31) == 0 && key && *best < key)
        atomicMax(best, key);
}

/* After the pivot's forward (fl) and backward (bl) searches: both -> the
 * pivot's SCC; otherwise the region becomes 1 + fl + 2 bl (all live
 * vertices were in region 0 before, so these keys are unique). */
__global__ void scc_pivot_finish(uint32_t n, uint32_t pivot, uint32_t *rep, uint32_t *reg,
                                 const uint32_t *fl, const uint32_t *bl, unsigned long long *live)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool still = false;
    if (v < n && rep[v] == SCC_UNSET) {
        uint32_t f = fl[v] != 0, b = bl[v] != 0;
        if (f && b) {
            rep[v] = pivot;
        } else {
            reg[v] = 1 + f + 2 * b;
            still = true;
        }
    }
    unsigned bal = __ballot_sync(FULL_MASK, still);
    if ((threadIdx.x & 31) == 0 && bal)
        atomicAdd(live, (unsigned long long)__popc(bal));
}

/* The pivot search's flags (one byte per vertex, four per word): PF_OUT for
 * vertices no longer live, both directions for the pivot. */
__global__ void scc_pivot_flags_init(uint32_t n, uint32_t pivot, const uint32_t *rep, uint32_t *flags)
{
    uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * k >= n)
        return;
    uint32_t word = 0;
    for (uint32_t j = 0; j < 4; j++) {
        uint64_t v = 4 * k + j;
        uint32_t f = v >= n || rep[v] != SCC_UNSET ? PF_OUT : v == pivot ? PF_FWD | PF_BWD : 0;
        word |= f << (8 * j);
    }
    flags[k] = word;
}

/* As scc_pivot_finish, from the flags; sym: only the forward search ran
 * (a symmetric graph: reaching and being reached are the same). */
__global__ void scc_pivot_finish_flags(uint32_t n, uint32_t pivot, uint32_t *rep, uint32_t *reg,
                                       const uint32_t *flags, int sym, unsigned long long *live)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool still = false;
    if (v < n && rep[v] == SCC_UNSET) {
        uint32_t fl = (flags[v >> 2] >> (8 * (v & 3))) & 0xffu;
        uint32_t f = (fl & PF_FWD) != 0, b = sym ? f : (fl & PF_BWD) != 0;
        if (f && b) {
            rep[v] = pivot;
        } else {
            reg[v] = 1 + f + 2 * b;
            still = true;
        }
    }
    unsigned bal = __ballot_sync(FULL_MASK, still);
    if ((threadIdx.x & 31) == 0 && bal)
        atomicAdd(live, (unsigned long long)__popc(bal));
}

/* Colour labels are vertex id + 1 (so that 0 means "nothing"); reach
 * flags start at 0. */
__global__ void scc_colour_init(uint32_t n, const uint32_t *rep, uint32_t *col, uint32_t *reach)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && rep[v] == SCC_UNSET) {
        col[v] = (uint32_t)v + 1;
        reach[v] = 0;
    }
}

/* A colour's root (col == own id + 1) reaches itself. */
__global__ void scc_colour_roots(uint32_t n, const uint32_t *rep, const uint32_t *col, uint32_t *reach)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && rep[v] == SCC_UNSET && col[v] == (uint32_t)v + 1)
        reach[v] = 1;
}

/* Reached -> the SCC of the colour's root; otherwise the region becomes
 * the colour (unique: the root lies in v's old region). */
__global__ void scc_colour_finish(uint32_t n, uint32_t *rep, uint32_t *reg, const uint32_t *col,
                                  const uint32_t *reach, unsigned long long *live)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool still = false;
    if (v < n && rep[v] == SCC_UNSET) {
        if (reach[v]) {
            rep[v] = col[v] - 1;
        } else {
            reg[v] = col[v];
            still = true;
        }
    }
    unsigned bal = __ballot_sync(FULL_MASK, still);
    if ((threadIdx.x & 31) == 0 && bal)
        atomicAdd(live, (unsigned long long)__popc(bal));
}

/* ---- canonical relabelling ---- */

/* minv[rep[v]] = min over the component; warp-aggregated so that a giant
 * component costs one atomic per warp at most (and none once the minimum
 * is in place, as ids are visited in increasing order). */
__global__ void scc_min_member(uint32_t n, const uint32_t *rep, uint32_t *minv)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t key = v < n ? rep[v] : SCC_UNSET;
    unsigned peers = __match_any_sync(FULL_MASK, key);
    uint32_t lo = __reduce_min_sync(peers, (uint32_t)(v < n ? v : SCC_UNSET));
    if (v < n && (threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1) && minv[key] > lo)
        atomicMin(&minv[key], lo);
}

__global__ void scc_first_flags(uint32_t n, const uint32_t *rep, const uint32_t *minv, uint32_t *first)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        first[v] = minv[rep[v]] == v;
}

/* comp[v] = pos[minv[rep[v]]], in place over rep (each thread reads and
 * writes only its own rep entry). */
__global__ void scc_canon(uint32_t n, uint32_t *rep_comp, const uint32_t *minv, const uint32_t *pos)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        rep_comp[v] = pos[minv[rep_comp[v]]];
}

/* ---- counts ---- */

/* size[c] and flags[c] for the canonical ids (warp-aggregated atomics). */
__global__ void scc_comp_stats(uint32_t n, const uint64_t *off, const uint32_t *tgt,
                               const uint32_t *comp, uint32_t *size, uint32_t *flags)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t c = v < n ? comp[v] : SCC_UNSET;
    uint32_t lf = 0;
    /* a vertex of more than 32 edges is read by its whole warp (hubs) */
    const bool wide = v < n && off[v + 1] - off[v] > 32;
    if (v < n && !wide)
        for (uint64_t e = off[v]; e < off[v + 1]; e++) {
            uint32_t w = tgt[e];
            if (comp[w] != c)
                lf |= CF_LEAVES;
            else if (w == v)
                lf |= CF_SELF;
        }
    const unsigned lane = threadIdx.x & 31;
    for (unsigned todo = __ballot_sync(FULL_MASK, wide); todo; todo &= todo - 1) {
        const int src = __ffs(todo) - 1;
        const uint64_t u = __shfl_sync(FULL_MASK, v, src);
        const uint32_t cu = __shfl_sync(FULL_MASK, c, src);
        uint32_t f = 0;
        for (uint64_t b = off[u], end = off[u + 1]; b < end; b += 32) {
            const uint64_t e = b + lane;
            if (e < end) {
                const uint32_t w = tgt[e];
                if (comp[w] != cu)
                    f |= CF_LEAVES;
                else if (w == u)
                    f |= CF_SELF;
            }
        }
        f = __reduce_or_sync(FULL_MASK, f);
        if ((int)lane == src)
            lf = f;
    }
    unsigned peers = __match_any_sync(FULL_MASK, c);
    uint32_t orf = __reduce_or_sync(peers, lf);
    if (v < n && (threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1)) {
        atomicAdd(&size[c], (uint32_t)__popc(peers));
        if (orf && (flags[c] & orf) != orf)
            atomicOr(&flags[c], orf);
    }
}

enum { SUM_TRIVIAL, SUM_NONTRIV_V, SUM_LARGEST, SUM_BOTTOM, SUM_BOTTOM_TRIV, SUM_N };

__device__ static unsigned long long warp_sum64(unsigned long long x)
{
    for (int d = 16; d; d >>= 1)
        x += __shfl_down_sync(FULL_MASK, x, d);
    return x;
}

__device__ static unsigned long long warp_max64(unsigned long long x)
{
    for (int d = 16; d; d >>= 1) {
        unsigned long long y = __shfl_down_sync(FULL_MASK, x, d);
        x = y > x ? y : x;
    }
    return x;
}

__global__ void scc_summary(uint32_t n_sccs, const uint32_t *size, const uint32_t *flags,
                            unsigned long long *sum)
{
    uint64_t c = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long triv = 0, nontriv_v = 0, largest = 0, bottom = 0, bottom_triv = 0;
    if (c < n_sccs) {
        uint32_t s = size[c], f = flags[c];
        int trivial = s == 1 && !(f & CF_SELF);
        triv = trivial;
        nontriv_v = trivial ? 0 : s;
        largest = s;
        bottom = !(f & CF_LEAVES);
        bottom_triv = bottom && trivial;
    }
    triv = warp_sum64(triv);
    nontriv_v = warp_sum64(nontriv_v);
    largest = warp_max64(largest);
    bottom = warp_sum64(bottom);
    bottom_triv = warp_sum64(bottom_triv);
    if ((threadIdx.x & 31) == 0) {
        if (triv) atomicAdd(&sum[SUM_TRIVIAL], triv);
        if (nontriv_v) atomicAdd(&sum[SUM_NONTRIV_V], nontriv_v);
        if (largest) atomicMax(&sum[SUM_LARGEST], largest);
        if (bottom) atomicAdd(&sum[SUM_BOTTOM], bottom);
        if (bottom_triv) atomicAdd(&sum[SUM_BOTTOM_TRIV], bottom_triv);
    }
}

/* ---- persistent (cooperative) engines ----
 *
 * The per-level launches above cost tens of microseconds per level (launch,
 * an idle grid, the host's checks), which dominated graphs of high diameter
 * (a 3-D torus: 300 levels; a state space with one long cycle: 10^4 - 10^6).
 * The kernels below run a whole propagation, a whole search or a whole trim
 * in ONE cooperative launch: the grid (all blocks resident) processes a
 * level, meets at a grid barrier (cg::grid_group::sync, a few microseconds),
 * and reads the next level's queue length, which every thread sees equal
 * after the barrier, so all leave the loop together when both queues are
 * empty.  Queue lengths rotate over three counters as in scc_push_level.
 * Data written by other blocks within the launch (queues, labels, flags,
 * counters) is read through L2 (__ldcg / volatile), never through L1.
 *
 * CHAIN FOLLOWING: a thread that finds exactly one new vertex processes it
 * itself at once instead of queueing it, up to chain_hops times per item, so
 * a path of length L costs L dependent steps of one thread rather than L
 * levels of the whole grid.  Sound because every engine here is monotone:
 * the result is a fixpoint that does not depend on the processing order,
 * only on every vertex being processed after its last change (see each
 * engine).
 */


__device__ __forceinline__ static unsigned long long scc_ldcg64(const unsigned long long *p)
{
    return __ldcg(p);
}


__device__ __forceinline__ static uint32_t scc_flag_load(const uint32_t *words, uint32_t v)
{
    return (((const volatile uint32_t *)words)[v >> 2] >> (8 * (v & 3))) & 0xffu;
}

/* Sets bit in v's flag byte; true when this call set it and v is live
 * (setting a bit of a PF_OUT vertex is harmless: nothing reads them). */
__device__ __forceinline__ static bool scc_flag_claim(uint32_t *words, uint32_t v, uint32_t bit)
{
    const uint32_t sh = 8 * (v & 3);
    return !((atomicOr(&words[v >> 2], bit << sh) >> sh) & (bit | PF_OUT));
}

/* The level driver of the persistent engines.  B::level(level, ca, cb,
 * every, i0, stride, hops) processes the level's items i0 + threadIdx.x,
 * i0 + stride + threadIdx.x, ... (< ca + cb; i0 a multiple of blockDim.x,
 * so loops are warp-uniform), appending to the next level's queues.
 *   - A level of more than blockDim.x items runs on the whole grid, then a
 *     grid barrier.
 *   - A stretch of levels of at most blockDim.x items each runs on block 0
 *     alone, levels separated by __syncthreads (a fraction of a grid
 *     barrier's cost: a graph whose frontier stays narrow for 10^4 levels
 *     pays block barriers, not grid barriers); the other blocks wait at the
 *     grid barrier that ends the stretch, then read the level reached from
 *     *lv (written by block 0 before that barrier).
 *   - Levels of at most CHAIN_FRONTIER items allow chain following (hops).
 * The queue lengths cnt_a / cnt_b (NULL: one queue) rotate over three
 * counters as in scc_push_level; the exit test reads the same counter,
 * finished before a barrier, in every thread, so all threads leave
 * together.  Returns the number of the first level not run. */
#define CHAIN_FRONTIER 32

/* The device clock (ns), for the CPU-residue budget. */
__device__ __forceinline__ static unsigned long long scc_now_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* budget_ns (0: none): thread 0 of block 0 compares the device clock with
 * its start plus the budget after every level and, past it, sets *abort_f;
 * every thread reads the flag after the barrier that ends the level (or
 * the block-0 stretch), so all leave together.  The caller then discards
 * the engine's partial labels or flags (only finished SCCs were written to
 * rep, and those are right). */
template <bool BUDGET, class B>
__device__ static uint32_t scc_run_levels(B &body, uint32_t level, unsigned long long *cnt_a,
                                          unsigned long long *cnt_b, int all, uint64_t n,
                                          uint32_t chain_hops, unsigned long long *lv,
                                          unsigned long long budget_ns, unsigned long long *abort_f)
{
    cg::grid_group grid = cg::this_grid();
    const bool timer = BUDGET && blockIdx.x == 0 && threadIdx.x == 0;
    const unsigned long long t_end = timer ? scc_now_ns() + budget_ns : 0;
    for (int k = 0;; k++) {
        const bool every = all && k == 0;
        uint64_t ca = every ? n : scc_ldcg64(cnt_a + level % 3);
        uint64_t cb = cnt_b ? (every ? n : scc_ldcg64(cnt_b + level % 3)) : 0;
        uint64_t total = ca + cb;
        if (total == 0)
            break;
        if (!every && total <= blockDim.x) {
            if (blockIdx.x == 0) {
                for (;;) {
                    if (threadIdx.x == 0) {
                        cnt_a[(level + 2) % 3] = 0;
                        if (cnt_b)
                            cnt_b[(level + 2) % 3] = 0;
                    }
                    body.level(level, ca, cb, false, 0, blockDim.x,
                               total <= CHAIN_FRONTIER ? chain_hops : 0);
                    if (timer && scc_now_ns() > t_end)
                        *abort_f = 1;
                    __threadfence();
                    __syncthreads();
                    level++;
                    ca = scc_ldcg64(cnt_a + level % 3);
                    cb = cnt_b ? scc_ldcg64(cnt_b + level % 3) : 0;
                    total = ca + cb;
                    if (total == 0 || total > blockDim.x || (BUDGET && scc_ldcg64(abort_f)))
                        break;
                }
                if (threadIdx.x == 0)
                    *lv = level;
            }
            grid.sync();
            level = (uint32_t)scc_ldcg64(lv);
            if (BUDGET && scc_ldcg64(abort_f))
                break;
            continue;
        }
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            cnt_a[(level + 2) % 3] = 0;
            if (cnt_b)
                cnt_b[(level + 2) % 3] = 0;
        }
        body.level(level, ca, cb, every, (uint64_t)blockIdx.x * blockDim.x,
                   (uint64_t)gridDim.x * blockDim.x, total <= CHAIN_FRONTIER ? chain_hops : 0);
        if (timer && scc_now_ns() > t_end)
            *abort_f = 1;
        grid.sync();
        level++;
        if (BUDGET && scc_ldcg64(abort_f))
            break;
    }
    return level;
}

/* Appends w to the next queue of its side: buffered, or at once when the
 * buffer is full. */
#define SCC_APPEND(first, w)                                                           \
    do {                                                                               \
        if (nb < PUSH_CAP)                                                             \
            buf[nb++] = (w);                                                           \
        else                                                                           \
            ((first) ? next_a : next_b)[atomicAdd((first) ? ncnt_a : ncnt_b, 1ull)] = (w); \
    } while (0)

/* The pivot's forward (queue a, over off/tgt) and backward (queue b, over
 * roff/rsrc) reachability.  A vertex joins a side's queue once, when its
 * flag bit is claimed (atomicOr), so each side visits each vertex and edge
 * once; a thread that claims exactly one vertex follows it (it owns it). */
template <bool REG>
struct scc_pivot_body {
    const uint64_t *off, *roff;
    const uint32_t *tgt, *rsrc;
    uint32_t *flags, *qa0, *qa1, *qb0, *qb1;
    unsigned long long *cnt_a, *cnt_b;
    const uint32_t *reg; /* REG: the multi-source searches stay in their regions
                            (else one search: all live vertices in one region) */
    uint32_t local;      /* wide frontiers: buffered vertices a thread takes
                            on at once per item, depth first (0: none) */
    uint32_t wide;       /* a vertex of more edges than this on its side is
                            expanded by its whole warp (0: never) */

    /* The warp-shared expansion of the items whose lanes set is_wide: for
     * each in turn, the 32 lanes take consecutive edges (coalesced reads),
     * and the vertices claimed in one step are appended with one atomic
     * per warp.  Without it one thread walks a hub's edges alone (state
     * spaces have in-degree hubs), the overflow of the 8-entry buffer going
     * to one contended counter. */
    __device__ void expand_wide(bool is_wide, uint32_t wv, bool wfirst, uint32_t *next_a,
                                unsigned long long *ncnt_a, uint32_t *next_b,
                                unsigned long long *ncnt_b)
    {
        const unsigned lane = threadIdx.x & 31;
        unsigned todo = __ballot_sync(FULL_MASK, is_wide);
        while (todo) {
            const int src = __ffs(todo) - 1;
            todo &= todo - 1;
            const uint32_t v = __shfl_sync(FULL_MASK, wv, src);
            const bool f = __shfl_sync(FULL_MASK, (int)wfirst, src) != 0;
            const uint64_t *o = f ? off : roff;
            const uint32_t *adj = f ? tgt : rsrc;
            const uint32_t bit = f ? PF_FWD : PF_BWD;
            uint32_t *q = f ? next_a : next_b;
            unsigned long long *qc = f ? ncnt_a : ncnt_b;
            const uint32_t rv = REG ? reg[v] : 0;
            const uint64_t end = o[v + 1];
            for (uint64_t b = o[v]; b < end; b += 32) {
                const uint64_t e = b + lane;
                bool got = false;
                uint32_t w = 0;
                if (e < end) {
                    w = adj[e];
                    got = !(REG && reg[w] != rv) && !(scc_flag_load(flags, w) & (bit | PF_OUT)) &&
                          scc_flag_claim(flags, w, bit);
                }
                const unsigned gm = __ballot_sync(FULL_MASK, got);
                if (gm) {
                    unsigned long long base = 0;
                    if (lane == 0)
                        base = atomicAdd(qc, (unsigned long long)__popc(gm));
                    base = __shfl_sync(FULL_MASK, base, 0);
                    if (got)
                        q[base + __popc(gm & ((1u << lane) - 1))] = w;
                }
            }
        }
    }

    __device__ void level(uint32_t level, uint64_t ca, uint64_t cb, bool, uint64_t i0s,
                          uint64_t stride, uint32_t hops)
    {
        const uint64_t total = ca + cb;
        const uint32_t *cur_a = (level & 1) ? qa1 : qa0, *cur_b = (level & 1) ? qb1 : qb0;
        uint32_t *next_a = (level & 1) ? qa0 : qa1, *next_b = (level & 1) ? qb0 : qb1;
        unsigned long long *ncnt_a = cnt_a + (level + 1) % 3, *ncnt_b = cnt_b + (level + 1) % 3;
        for (uint64_t i0 = i0s; i0 < total; i0 += stride) {
            const uint64_t i = i0 + threadIdx.x;
            const bool first = i < ca;
            uint32_t buf[PUSH_CAP];
            uint32_t nb = 0, wv = 0;
            bool is_wide = false;
            if (i < total) {
                const uint64_t *o = first ? off : roff;
                const uint32_t *adj = first ? tgt : rsrc;
                const uint32_t bit = first ? PF_FWD : PF_BWD;
                uint32_t v = first ? __ldcg(cur_a + i) : __ldcg(cur_b + (i - ca));
                const uint32_t rv = REG ? reg[v] : 0; /* a chain stays in v's region */
                uint32_t steps = 0;
                if (wide && o[v + 1] - o[v] > wide) {
                    is_wide = true; /* below, with the whole warp */
                    wv = v;
                }
                for (uint32_t hop = 0; !is_wide; hop++) {
                    uint32_t found = 0, last = 0;
                    for (uint64_t e = o[v], end = o[v + 1]; e < end; e++) {
                        const uint32_t w = adj[e];
                        if (REG && reg[w] != rv)
                            continue;
                        /* the plain read saves atomics on wide frontiers;
                         * a chain step (hops) goes straight to the atomic,
                         * one memory round trip less per step */
                        if (!hops && (scc_flag_load(flags, w) & (bit | PF_OUT)))
                            continue;
                        if (!scc_flag_claim(flags, w, bit))
                            continue;
                        found++;
                        last = w;
                        SCC_APPEND(first, w);
                    }
                    /* one new vertex, the only one buffered: follow it */
                    if (found == 1 && nb == 1 && hop < hops) {
                        nb = 0;
                        v = last;
                        continue;
                    }
                    /* local expansion: take the newest buffered vertex on at
                     * once (this thread claimed it, so it owns it) while the
                     * buffer stays at most half full (a full one spills to
                     * single atomics) */
                    if (nb == 0 || steps >= local || nb > PUSH_CAP / 2)
                        break;
                    const uint32_t c = buf[nb - 1];
                    if (wide && o[c + 1] - o[c] > wide)
                        break; /* a wide one waits for the next level's warp */
                    steps++;
                    nb--;
                    v = c;
                }
            }
            scc_flush2(first, nb, buf, next_a, ncnt_a, next_b, ncnt_b);
            if (wide)
                expand_wide(is_wide, wv, first, next_a, ncnt_a, next_b, ncnt_b);
        }
    }
};

template <bool REG, bool BUDGET>
__global__ void __launch_bounds__(SCC_COOP_BLOCK, 1)
scc_pivot_coop(uint32_t level0, uint32_t chain_hops, struct scc_pivot_body<REG> body,
               unsigned long long *lv, unsigned long long budget_ns, unsigned long long *abort_f)
{
    uint32_t level = scc_run_levels<BUDGET>(body, level0, body.cnt_a, body.cnt_b, 0, 0, chain_hops, lv,
                                    budget_ns, abort_f);
    cg::this_grid().sync(); /* every block has read *lv */
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *lv = level;
}

/* Max-label propagation (the colouring, and the roots' searches when COL):
 * scc_push_level's rule.  Chain following: a thread whose item raised
 * exactly one label processes that vertex at once WITHOUT stamping it, so a
 * later raise by another thread still queues it (stamp unchanged); the
 * walker reads the label afresh, so every raise is followed by a push of
 * the raised value or a larger one -- the invariant of scc_push_level. */
template <bool COL>
struct scc_label_body {
    uint32_t n;
    struct scc_side a, b;
    const uint32_t *rep, *reg, *col;

    __device__ void level(uint32_t level, uint64_t ca, uint64_t cb, bool every, uint64_t i0s,
                          uint64_t stride, uint32_t hops)
    {
        const uint64_t total = ca + cb;
        uint32_t *next_a = (level & 1) ? a.q0 : a.q1, *next_b = (level & 1) ? b.q0 : b.q1;
        unsigned long long *ncnt_a = a.cnt + (level + 1) % 3, *ncnt_b = b.cnt + (level + 1) % 3;
        for (uint64_t i0 = i0s; i0 < total; i0 += stride) {
            const uint64_t i = i0 + threadIdx.x;
            const bool first = i < ca;
            uint32_t buf[PUSH_CAP];
            uint32_t nb = 0;
            if (i < total) {
                const uint64_t k = first ? i : i - ca;
                const uint64_t *off = first ? a.off : b.off;
                const uint32_t *adj = first ? a.adj : b.adj;
                uint32_t *lab = first ? a.lab : b.lab;
                uint32_t *stamp = first ? a.stamp : b.stamp;
                const uint32_t *cur = (level & 1) ? (first ? a.q1 : b.q1) : (first ? a.q0 : b.q0);
                uint32_t v = every ? (uint32_t)k : __ldcg(cur + k);
                bool skip = every && rep[v] != SCC_UNSET;
                for (uint32_t hop = 0; !skip; hop++) {
                    const uint32_t label = scc_vload(&lab[v]);
                    if (label == 0) /* 0 never raises a label */
                        break;
                    const uint32_t r = reg[v];
                    const uint32_t cv = COL ? col[v] : 0;
                    uint32_t raised = 0, one = 0;
                    for (uint64_t e = off[v], end = off[v + 1]; e < end; e++) {
                        const uint32_t w = adj[e];
                        if (rep[w] != SCC_UNSET || reg[w] != r || (COL && col[w] != cv))
                            continue;
                        if (scc_vload(&lab[w]) >= label)
                            continue;
                        if (atomicMax(&lab[w], label) >= label)
                            continue;
                        if (raised++ == 0) {
                            one = w; /* decided after the loop: follow or queue */
                            continue;
                        }
                        if (raised == 2 && atomicExch(&stamp[one], level + 1) != level + 1)
                            SCC_APPEND(first, one);
                        if (atomicExch(&stamp[w], level + 1) != level + 1)
                            SCC_APPEND(first, w);
                    }
                    if (raised != 1)
                        break;
                    if (hop >= hops) {
                        if (atomicExch(&stamp[one], level + 1) != level + 1)
                            SCC_APPEND(first, one);
                        break;
                    }
                    v = one;
                }
            }
            scc_flush2(first, nb, buf, next_a, ncnt_a, next_b, ncnt_b);
        }
    }
};

template <bool COL, bool BUDGET>
__global__ void __launch_bounds__(SCC_COOP_BLOCK, 1)
scc_label_coop(struct scc_label_body<COL> body, int two, uint32_t level0, int all,
               uint32_t chain_hops, unsigned long long *lv, unsigned long long budget_ns,
               unsigned long long *abort_f)
{
    uint32_t level = scc_run_levels<BUDGET>(body, level0, body.a.cnt, two ? body.b.cnt : NULL, all,
                                    body.n, chain_hops, lv, budget_ns, abort_f);
    cg::this_grid().sync();
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *lv = level;
}

/* Trimming to the fixpoint (Kahn-style peeling instead of topology
 * sweeps): cin[v] / cout[v] count v's live in- / out-neighbours other than
 * v in v's region, with multiplicity; a vertex whose count reaches 0 is
 * claimed (rep: SCC_UNSET -> itself, by CAS, so once) and queued; a claimed
 * vertex decrements the counts of its live same-region neighbours once per
 * edge.  The fixpoint is that of iterated trim-1 sweeps (a live vertex has a
 * live in- and out-neighbour), whatever the order.
 *
 * SMALL-SCC DETECTION (tuning trim_detect = K, first trim only): peeling
 * stalls at the first non-trivial SCC on every path (a 200^3 grid-DAG with
 * back edges: 580 of 8 M vertices peeled).  So each peeling level has two
 * phases.  P: the level's queue is released as above, and so are the
 * SCCs found by the last D; a decrement that leaves a count in
 * [1, TRIM_DETECT_COUNT] makes the vertex a candidate of this level (once,
 * by a stamp).  A thread whose queue item claims exactly one vertex may
 * release that one at once (tuning trim_hops on wide levels, chain_hops
 * on narrow ones): the fixpoint does not depend on the order, and a claim
 * is still released exactly once, by its claimer.  Grid barrier.  D: every candidate v computes its backward
 * closure B (the live vertices reaching v) and, when |B| <= K, its SCC
 * exactly: S = {x in B : v reaches x within B} (a path from v to a vertex
 * reaching v stays among the vertices reaching v); else the same with the
 * forward closure.  The live set is a union of SCCs, so S is v's SCC in
 * the whole graph.  rep does not change during D (no claims there), so two
 * candidates of one SCC compute the same S; in the next P one CAS on
 * rep[min S] elects the claimer, which writes rep = min S for all of S
 * before any member is released (its lanes' warp releases the members
 * together).  A member of a non-trivial S keeps an in- and out-count >= 1
 * from S's own edges until then, so no concurrent Kahn claim can take it
 * as a singleton.  Grid barrier.  The SCC S of a vertex becomes findable
 * when its last outside predecessor (successor) is finished, and that
 * release lowers a member's count: so detection at every level follows the
 * peeling front (a CPU model of the grid-DAG: 253 levels, against 1 591
 * levels and 70 passes when detection waited for the queue to run dry).
 * The first D tries TRIM_DETECT_MIN_TRIES closures only; detection stops
 * for good once fewer than 1 in TRIM_DETECT_YIELD closures found an SCC
 * (on a random graph: after one D phase of failed closures). */
#define TRIM_DETECT_MAX 24     /* largest closure (compile-time bound of K: two sets of K
                                  words per thread in shared memory, 96 KB per block) */
#define TRIM_DETECT 20         /* default K: a smaller bound shortens a level's slowest
                                  closure, a larger one finds more SCCs in the trim
                                  (bench/history/scc.md) */
#ifndef TRIM_DETECT_BLOCK
#define TRIM_DETECT_BLOCK 512  /* threads per block of the trim with detection (-D to
                                  try others): 512 leaves the detection without register
                                  spills (bench/history/scc.md) */
#endif
#define TRIM_DETECT_SMEM (2u * TRIM_DETECT_MAX * TRIM_DETECT_BLOCK * 4u)
#define TRIM_HOPS 1            /* default of tuning trim_hops (each level waits for its
                                  longest chain; bench/history/scc.md) */
#define TRIM_DETECT_COUNT 2    /* a decrement leaving a count in [1, this] makes a candidate,
                                  whose closure is tried in that direction */
#define TRIM_DETECT_YIELD 16   /* detection stops when SCCs found * this < closures tried */
#define TRIM_DETECT_MIN_TRIES 1024 /* ... once this many closures were tried (the first D
                                     tries no more) */
#define TRIM_DETECT_EDGES 1024 /* edges a closure may read before it gives up (hubs) */
#define CAND_CAP 4             /* candidates a thread buffers per item before single atomics */
/* Round trips issued together (-D to try others; more costs registers:
 * bench/history/scc.md). */
#ifndef RELEASE_GROUP
#define RELEASE_GROUP 8        /* edges of a released vertex whose updates are issued together */
#endif
#ifndef TRIM_VISIT
#define TRIM_VISIT 2           /* closure members a detection thread visits at once */
#endif
#ifndef TRIM_GROUP
#define TRIM_GROUP 8           /* their edges whose loads are issued together */
#endif
static_assert(TRIM_DETECT_MAX <= 32, "a closure's edge masks are 32-bit words");
struct scc_trim_body {
    const uint64_t *off, *roff;
    const uint32_t *tgt, *rsrc, *reg;
    uint32_t *rep, *cin, *cout, *q0, *q1;
    unsigned long long *cnt;
    unsigned long long mine; /* this thread's claims */
    uint32_t detect;         /* K (0: no detection) */
    uint32_t pass;           /* the detection pass candidates are collected for */
    uint32_t *cand0, *cand1; /* candidate lists, by pass parity */
    unsigned long long *ccnt; /* their lengths [2] */
    uint32_t *cstamp;        /* the last pass a vertex was made a candidate for */
    int one_region;          /* every live vertex in one region (no reg reads) */
    uint32_t wide_hops;      /* detection's P: chain steps per queue item on levels wider
                                than CHAIN_FRONTIER (tuning trim_hops) */

    /* v is claimed (rep already set, by this thread): lower its live
     * neighbours' counts, claim those reaching 0 (queued through buf), and
     * make those left in [1, detect) candidates.  Returns the claims. */
    __device__ uint32_t release(uint32_t v, uint32_t *buf, uint32_t &nb, uint32_t &last,
                                uint32_t *next_a, unsigned long long *ncnt_a, uint32_t *cbuf,
                                uint32_t &cn)
    {
        /* Latency, not bandwidth, bounds a peeling level (frontiers of a few
         * hundred vertices, each thread a chain of dependent round trips):
         * edges go in groups of RELEASE_GROUP (out- and in-edges in one
         * list) whose decrements are issued together, and
         * there is no "is w live" read before the decrement -- a finished
         * vertex's count no longer matters (its claim CAS fails), and a live
         * w is still lowered exactly once per edge from each claimed
         * in-neighbour.  One region (the first trim): no region reads. */
        const uint32_t r = one_region ? 0 : reg[v];
        const uint64_t ob = off[v], oe = off[v + 1], rb = roff[v], re = roff[v + 1];
        /* out-edges (lowering cin) then in-edges (lowering cout) as one
         * list, so that a vertex of a few edges each way is one group */
        const uint64_t dout = oe - ob, tot = dout + (re - rb);
        uint32_t found = 0;
        for (uint64_t s0 = 0; s0 < tot; s0 += RELEASE_GROUP) {
            uint32_t w[RELEASE_GROUP], old[RELEASE_GROUP], res[RELEASE_GROUP];
            uint32_t ok = 0, cand = 0;
#pragma unroll
            for (int k = 0; k < RELEASE_GROUP; k++) {
                const uint64_t sl = s0 + k;
                w[k] = sl < dout ? tgt[ob + sl] : sl < tot ? rsrc[rb + (sl - dout)] : v;
            }
            /* the decrements, and with them (when detecting) the
             * targets' liveness reads for the candidate test: a stale
             * "live" only makes a candidate that D skips (it re-reads
             * rep), so the read need not wait for the decrement */
            uint32_t live[RELEASE_GROUP];
#pragma unroll
            for (int k = 0; k < RELEASE_GROUP; k++) {
                if (w[k] != v && (one_region || reg[w[k]] == r))
                    ok |= 1u << k;
                old[k] = (ok >> k) & 1u ? atomicSub(&(s0 + k < dout ? cin : cout)[w[k]], 1u) : 0u;
                live[k] = detect && ((ok >> k) & 1u) ? scc_vload(&rep[w[k]]) : 0u;
            }
            /* then the candidates' stamps and the claims' CAS, their
             * round trips together */
#pragma unroll
            for (int k = 0; k < RELEASE_GROUP; k++)
                if (((ok >> k) & 1u) && detect && old[k] >= 2u && old[k] <= TRIM_DETECT_COUNT + 1 &&
                    live[k] == SCC_UNSET)
                    cand |= 1u << k;
#pragma unroll
            for (int k = 0; k < RELEASE_GROUP; k++)
                res[k] = (cand >> k) & 1u ? atomicExch(&cstamp[w[k]], pass)
                         : ((ok >> k) & 1u) && old[k] == 1u ? atomicCAS(&rep[w[k]], SCC_UNSET, w[k])
                                                            : 0u;
#pragma unroll
            for (int k = 0; k < RELEASE_GROUP; k++) {
                if (((cand >> k) & 1u) && res[k] != pass) {
                    if (cn < CAND_CAP)
                        cbuf[cn++] = w[k];
                    else
                        ((pass & 1) ? cand1 : cand0)[atomicAdd(&ccnt[pass & 1], 1ull)] = w[k];
                } else if (((ok >> k) & 1u) && old[k] == 1u && res[k] == SCC_UNSET) {
                    mine++;
                    found++;
                    last = w[k];
                    if (nb < PUSH_CAP)
                        buf[nb++] = w[k];
                    else
                        next_a[atomicAdd(ncnt_a, 1ull)] = w[k];
                }
            }
        }
        return found;
    }

    __device__ void level(uint32_t level, uint64_t ca, uint64_t, bool, uint64_t i0s,
                          uint64_t stride, uint32_t hops)
    {
        const uint32_t *cur = (level & 1) ? q1 : q0;
        uint32_t *next_a = (level & 1) ? q0 : q1, *next_b = next_a;
        unsigned long long *ncnt_a = cnt + (level + 1) % 3, *ncnt_b = ncnt_a;
        for (uint64_t i0 = i0s; i0 < ca; i0 += stride) {
            const uint64_t i = i0 + threadIdx.x;
            uint32_t buf[PUSH_CAP], cbuf[CAND_CAP];
            uint32_t nb = 0, cn = 0;
            if (i < ca) {
                uint32_t v = __ldcg(cur + i);
                for (uint32_t hop = 0;; hop++) {
                    uint32_t last = 0;
                    const uint32_t found = release(v, buf, nb, last, next_a, ncnt_a, cbuf, cn);
                    if (found != 1 || nb != 1 || hop >= hops)
                        break;
                    nb = 0;
                    v = last;
                }
            }
            scc_flush2(true, nb, buf, next_a, ncnt_a, next_b, ncnt_b);
            if (detect) { /* the same in every thread: warp-uniform */
                uint32_t *cl = (pass & 1) ? cand1 : cand0;
                scc_flush2(true, cn, cbuf, cl, ccnt + (pass & 1), cl, ccnt + (pass & 1));
            }
        }
    }

    /* v's SCC into scc[] (returns its size), when v's backward (dir 0) or
     * forward (dir 1) closure B among live vertices has at most K vertices;
     * 0 otherwise.  Reads rep, which no thread writes meanwhile.
     *
     * clo and scc are this thread's sets in shared memory, entry j at
     * [j * blockDim.x] (scans of local arrays miss L1).  clo[j] is B's j-th member
     * in discovery order; while B grows, scc[j] is a bit mask over B: bit
     * t set when the edge between clo[t] and clo[j] goes the closure's way
     * (dir 0: clo[t] -> clo[j]; dir 1: clo[j] -> clo[t]).  Every live
     * neighbour of a visited member is in B, so once every member is
     * visited the masks hold all of B's internal edges, and
     *   S = {x in B : v reaches x within B}   (dir 0; dir 1: x reaches v)
     * is the fixpoint of "x joins S when mask[x] meets S", the same
     * formula both ways.  This replaced a second pass over S's members'
     * edges in global memory.
     *
     * Latency, not bandwidth, bounds a D phase (each thread one closure, a
     * chain of dependent round trips; the level waits for the slowest):
     * so members are visited TRIM_VISIT at a time, their offsets loaded
     * together, and their edges in groups of TRIM_GROUP whose target loads
     * and then liveness loads are issued together; one scan of clo looks
     * up a whole group. */
    __device__ uint32_t small_scc(uint32_t v, int dir, uint32_t *clo, uint32_t *scc) const
    {
        const uint64_t *o = dir ? off : roff;
        const uint32_t *adj = dir ? tgt : rsrc;
        const uint32_t r = one_region ? 0 : reg[v], bd = blockDim.x;
        uint32_t k = 1, edges = 0;
        clo[0] = v;
        scc[0] = 0;
        for (uint32_t i = 0; i < k;) {
            /* the next TRIM_VISIT members (the BFS queue is clo itself) */
            uint64_t b[TRIM_VISIT];
            uint32_t cum[TRIM_VISIT]; /* edges of members i .. i + j, inclusive */
            const uint32_t nv = min(k - i, (uint32_t)TRIM_VISIT);
#pragma unroll
            for (uint32_t j = 0; j < TRIM_VISIT; j++) {
                const uint32_t u = clo[bd * (i + (j < nv ? j : 0))];
                b[j] = o[u];
                cum[j] = j < nv ? (uint32_t)min(o[u + 1] - b[j], (uint64_t)TRIM_DETECT_EDGES + 1) : 0;
            }
#pragma unroll
            for (uint32_t j = 1; j < TRIM_VISIT; j++)
                cum[j] += cum[j - 1];
            edges += cum[TRIM_VISIT - 1];
            if (edges > TRIM_DETECT_EDGES)
                return 0;
            const uint32_t tot = cum[TRIM_VISIT - 1];
            for (uint32_t s0 = 0; s0 < tot; s0 += TRIM_GROUP) {
                uint32_t w[TRIM_GROUP], at[TRIM_GROUP], live = 0;
#pragma unroll
                for (uint32_t j = 0; j < TRIM_GROUP; j++) {
                    const uint32_t sl = s0 + j;
                    uint32_t m = 0; /* the member slot sl belongs to */
#pragma unroll
                    for (uint32_t q = 0; q + 1 < TRIM_VISIT; q++)
                        m += sl >= cum[q];
                    w[j] = sl < tot ? adj[b[m] + (sl - (m ? cum[m - 1] : 0))] : SCC_UNSET;
                }
#pragma unroll
                for (uint32_t j = 0; j < TRIM_GROUP; j++)
                    if (w[j] != SCC_UNSET && __ldcg(&rep[w[j]]) == SCC_UNSET &&
                        (one_region || reg[w[j]] == r))
                        live |= 1u << j;
                /* positions in B (SCC_UNSET: not yet there) */
#pragma unroll
                for (uint32_t j = 0; j < TRIM_GROUP; j++)
                    at[j] = SCC_UNSET;
                for (uint32_t t = 0; live && t < k; t++) {
                    const uint32_t x = clo[bd * t];
#pragma unroll
                    for (uint32_t j = 0; j < TRIM_GROUP; j++)
                        at[j] = x == w[j] ? t : at[j];
                }
#pragma unroll
                for (uint32_t j = 0; j < TRIM_GROUP; j++) {
                    if (!((live >> j) & 1u))
                        continue;
                    /* a repeat of an earlier target of this group (parallel
                     * edges, or both members' neighbour) appended just now */
#pragma unroll
                    for (uint32_t q = 0; q < j; q++)
                        if (at[j] == SCC_UNSET && ((live >> q) & 1u) && w[q] == w[j])
                            at[j] = at[q];
                    if (at[j] == SCC_UNSET) {
                        if (k == detect)
                            return 0; /* more than K */
                        clo[bd * k] = w[j];
                        scc[bd * k] = 0;
                        at[j] = k++;
                        /* its offsets are read when it is visited, a few
                         * round trips from now: fetch them into L2 (no
                         * register waits for a prefetch) */
                        asm volatile("prefetch.L2 [%0];" ::"l"(o + w[j]));
                    }
                    const uint32_t sl = s0 + j;
                    uint32_t m = 0;
#pragma unroll
                    for (uint32_t q = 0; q + 1 < TRIM_VISIT; q++)
                        m += sl >= cum[q];
                    scc[bd * (i + m)] |= 1u << at[j];
                }
            }
            i += nv;
        }
        /* the closure is complete: S from the masks (Gauss-Seidel sweeps,
         * at most |S| + 1 of them), then S's members into scc[] (entry s
         * is written after mask s and all before it were last read) */
        uint32_t in_s = 1u;
        for (bool grew = true; grew;) {
            grew = false;
            for (uint32_t t = 1; t < k; t++)
                if (!((in_s >> t) & 1u) && (scc[bd * t] & in_s)) {
                    in_s |= 1u << t;
                    grew = true;
                }
        }
        uint32_t s = 0;
        for (uint32_t t = 0; t < k; t++)
            if ((in_s >> t) & 1u)
                scc[bd * s++] = clo[bd * t];
        return s;
    }
};

/* all_live: every vertex is live and in one region, so the counts are
 * degrees less self-loops (no neighbour reads).  *removed += claims.
 * cnt: the queue's three counters, all 0 on entry.  DETECT: small-SCC
 * detection between peeling stretches (see scc_trim_body); dstat[0..2]
 * += passes, SCCs found, their vertices; dstat[3..4] += closures tried,
 * SCCs they found; dstat[5..6] += device time of the P and D phases, ns;
 * body.ccnt[0..1] and dstat[3..4] 0 on entry, body.cstamp all 0. */
extern __shared__ uint32_t scc_dsm[]; /* the detection's sets (TRIM_DETECT_SMEM bytes) */

template <bool BUDGET, bool DETECT>
__global__ void __launch_bounds__(DETECT ? TRIM_DETECT_BLOCK : SCC_COOP_BLOCK, 1)
scc_trim_coop(uint32_t n, uint32_t level0, int all_live, uint32_t chain_hops,
              struct scc_trim_body body, unsigned long long *removed, unsigned long long *lv,
              unsigned long long budget_ns, unsigned long long *abort_f, unsigned long long *dstat)
{
    cg::grid_group grid = cg::this_grid();
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    body.mine = 0;
    /* pass 1: counts (no claims yet, so that every count matches the
     * decrements its neighbours' later claims make) */
    for (uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        if (body.rep[v] != SCC_UNSET)
            continue;
        uint32_t ci = 0, co = 0;
        if (all_live) {
            uint32_t self = 0;
            for (uint64_t e = body.off[v]; e < body.off[v + 1]; e++)
                self += body.tgt[e] == v;
            co = (uint32_t)min(body.off[v + 1] - body.off[v] - self, (uint64_t)UINT32_MAX);
            ci = (uint32_t)min(body.roff[v + 1] - body.roff[v] - self, (uint64_t)UINT32_MAX);
        } else {
            const uint32_t r = body.reg[v];
            for (uint64_t e = body.off[v]; e < body.off[v + 1]; e++) {
                const uint32_t w = body.tgt[e];
                co += w != v && body.rep[w] == SCC_UNSET && body.reg[w] == r;
            }
            for (uint64_t e = body.roff[v]; co && e < body.roff[v + 1]; e++) {
                const uint32_t u = body.rsrc[e];
                ci += u != v && body.rep[u] == SCC_UNSET && body.reg[u] == r;
            }
        }
        body.cin[v] = ci;
        body.cout[v] = co;
    }
    grid.sync();
    /* pass 2: the first claims, queued for level0 (the first detection
     * candidates are the vertices the first stretch touches: a scan for
     * small counts here found nothing more on the grid-DAG model) */
    {
        uint32_t *q = (level0 & 1) ? body.q1 : body.q0;
        unsigned long long *c = body.cnt + level0 % 3;
        for (uint64_t i0 = (uint64_t)blockIdx.x * blockDim.x; i0 < n; i0 += stride) {
            const uint64_t v = i0 + threadIdx.x;
            uint32_t buf[1];
            uint32_t nb = 0;
            if (v < n && body.rep[v] == SCC_UNSET && (body.cin[v] == 0 || body.cout[v] == 0)) {
                body.rep[v] = (uint32_t)v;
                buf[nb++] = (uint32_t)v;
                body.mine++;
            }
            scc_flush2(true, nb, buf, q, c, q, c);
        }
    }
    grid.sync();
    uint32_t level = level0;
    if (!DETECT) {
        level = scc_run_levels<BUDGET>(body, level, body.cnt, NULL, 0, 0, chain_hops, lv, budget_ns,
                                       abort_f);
    } else {
        /* Per level: P (peel: claim the SCCs the last D found, release
         * them and the level's queue), barrier, D (the closures of the
         * candidates P made; rep is frozen), barrier.  Every exit and stop
         * test reads values finished before the barrier just passed and not
         * written again before the next one, so all threads decide alike. */
        const uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
        const bool timer = BUDGET && blockIdx.x == 0 && threadIdx.x == 0;
        const unsigned long long t_end = timer ? scc_now_ns() + budget_ns : 0;
        uint32_t *clo = scc_dsm + threadIdx.x, *scc = clo + TRIM_DETECT_MAX * blockDim.x;
        uint32_t s = 0; /* this thread's SCC from the last D, in scc[] */
        unsigned long long finds_before = 0;
        /* where a level's time goes (thread 0 of block 0, device clock,
         * barriers included): P and D phases, ns; the loop's last P counts
         * as P */
        const bool clocked = blockIdx.x == 0 && threadIdx.x == 0;
        unsigned long long t_p = 0, t_d = 0, t_mark = clocked ? scc_now_ns() : 0;
        bool detecting = true;
        for (;;) {
            /* ---- P ---- */
            body.pass = level; /* candidates of this level: list level & 1, stamp level */
            if (!detecting)
                body.detect = 0;
            const uint64_t ca = scc_ldcg64(body.cnt + level % 3);
            /* this thread's first queue item, read now so that the round
             * trip overlaps the election below */
            const uint64_t i0s = (uint64_t)blockIdx.x * blockDim.x;
            const uint32_t *cur = (level & 1) ? body.q1 : body.q0;
            const uint32_t vq0 = i0s + threadIdx.x < ca ? __ldcg(cur + i0s + threadIdx.x) : 0;
            if (blockIdx.x == 0 && threadIdx.x == 0) {
                body.cnt[(level + 2) % 3] = 0;
                body.ccnt[(level + 1) & 1] = 0; /* read in the last D, refilled from the next */
            }
            if (s) {
                /* duplicates of one SCC computed the same S: one CAS elects */
                uint32_t r = scc[0];
                for (uint32_t j = 1; j < s; j++)
                    r = min(r, scc[j * blockDim.x]);
                if (atomicCAS(&body.rep[r], SCC_UNSET, r) == SCC_UNSET) {
                    for (uint32_t j = 0; j < s; j++)
                        body.rep[scc[j * blockDim.x]] = r;
                    body.mine += s;
                } else {
                    s = 0;
                }
            }
            {
                /* the counts, one atomic per warp: tens of thousands of
                 * same-address atomics per level would queue at one L2
                 * slice */
                const unsigned long long sccs = warp_sum64(s ? 1ull : 0ull),
                                         members = warp_sum64(s);
                if ((threadIdx.x & 31) == 0 && sccs) {
                    atomicAdd(dstat + 1, sccs);
                    atomicAdd(dstat + 2, members);
                }
            }
            {
                /* the claimed SCCs are released as Kahn claims are (rep is
                 * written for all of S first: see the exactness note
                 * above), their members spread over the warp's lanes: one
                 * thread releasing an SCC of 24 alone held up the whole
                 * level.  The member list lives in the warp's closure sets
                 * (dead after D): position p at clo of lane p % 32, entry
                 * p / 32. */
                const unsigned lane = threadIdx.x & 31;
                uint32_t incl = s;
                for (int d = 1; d < 32; d <<= 1) {
                    const uint32_t t = __shfl_up_sync(FULL_MASK, incl, d);
                    if ((int)lane >= d)
                        incl += t;
                }
                const uint32_t total = __shfl_sync(FULL_MASK, incl, 31);
                uint32_t *wl = scc_dsm + (threadIdx.x & ~31u); /* the warp's list */
                for (uint32_t j = 0, p = incl - s; j < s; j++, p++)
                    wl[(p & 31) + (p >> 5) * blockDim.x] = scc[j * blockDim.x];
                __syncwarp();
                uint32_t *q = (level & 1) ? body.q0 : body.q1;
                unsigned long long *qc = body.cnt + (level + 1) % 3;
                uint32_t *cl = (level & 1) ? body.cand1 : body.cand0;
                unsigned long long *cc = body.ccnt + (level & 1);
                /* one loop over both: the SCC members (32 per warp and
                 * round) and the level's queue (grid-strided, chains
                 * followed on narrow levels as in body.level), so that a
                 * thread's two releases share one pair of warp flushes */
                const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
                const uint32_t hops = ca <= CHAIN_FRONTIER ? chain_hops : body.wide_hops;
                for (uint64_t p0 = 0, i0 = i0s; p0 < total || i0 < ca; p0 += 32, i0 += stride) {
                    /* warp-uniform: total is the warp's, i0 the block's */
                    const uint64_t p = p0 + lane, i = i0 + threadIdx.x;
                    uint32_t buf[PUSH_CAP], cbuf[CAND_CAP], nb = 0, cn = 0, last = 0;
                    if (p < total)
                        body.release(wl[(p & 31) + (p >> 5) * blockDim.x], buf, nb, last, q, qc,
                                     cbuf, cn);
                    if (i < ca) {
                        uint32_t v = i0 == i0s ? vq0 : __ldcg(cur + i);
                        for (uint32_t hop = 0;; hop++) {
                            /* follow v's one new claim at once when it is
                             * the only vertex buffered */
                            const uint32_t found = body.release(v, buf, nb, last, q, qc, cbuf, cn);
                            if (found != 1 || nb != 1 || hop >= hops)
                                break;
                            nb = 0;
                            v = last;
                        }
                    }
                    scc_flush2(true, nb, buf, q, qc, q, qc);
                    scc_flush2(true, cn, cbuf, cl, cc, cl, cc);
                }
                __syncwarp(); /* the list is read before D overwrites the sets */
                s = 0;
            }
            if (timer && scc_now_ns() > t_end)
                *abort_f = 1;
            grid.sync();
            if (clocked) {
                const unsigned long long t = scc_now_ns();
                t_p += t - t_mark;
                t_mark = t;
            }
            if ((BUDGET && scc_ldcg64(abort_f)) || !detecting) {
                level++;
                break;
            }
            /* ---- D ---- */
            const uint64_t cp = scc_ldcg64(body.ccnt + (level & 1));
            const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
            /* the first closures are a sample: on graphs where they do
             * not pay (a random graph: ~10^5 candidates, ~0 SCCs) the
             * first D stops detection after TRIM_DETECT_MIN_TRIES tries */
            const uint64_t lim = scc_ldcg64(dstat + 3) < TRIM_DETECT_MIN_TRIES
                                     ? min(stride, (uint64_t)TRIM_DETECT_MIN_TRIES) : stride;
            uint64_t found = 0;
            if (cp) {
                unsigned long long tried = 0;
                const uint32_t *cl = (level & 1) ? body.cand1 : body.cand0;
                if (tid < cp && tid < lim) {
                    const uint32_t v = __ldcg(cl + tid);
                    /* three independent loads, one round trip */
                    const uint32_t rv = __ldcg(&body.rep[v]), ci = __ldcg(&body.cin[v]),
                                   co = __ldcg(&body.cout[v]);
                    if (rv == SCC_UNSET) {
                        if (ci <= TRIM_DETECT_COUNT)
                            s = body.small_scc(v, 0, clo, scc);
                        if (!s && co <= TRIM_DETECT_COUNT)
                            s = body.small_scc(v, 1, clo, scc);
                        tried = 1;
                    }
                }
                { /* one atomic per warp (see P) */
                    const unsigned long long tries = warp_sum64(tried), finds = warp_sum64(s ? 1ull : 0ull);
                    if ((threadIdx.x & 31) == 0 && tries) {
                        atomicAdd(dstat + 3, tries);
                        atomicAdd(dstat + 4, finds);
                    }
                }
                /* more candidates than threads: the rest wait a level
                 * (stamped for it, so that a list never holds a vertex
                 * twice: at most n entries); beyond a sample they are
                 * dropped (a candidate only ever speeds the peeling up) */
                for (uint64_t i = lim + tid; lim == stride && i < cp; i += stride) {
                    const uint32_t v = __ldcg(cl + i);
                    uint32_t *nl = (level & 1) ? body.cand0 : body.cand1;
                    if (atomicExch(&body.cstamp[v], level + 1) != level + 1)
                        nl[atomicAdd(body.ccnt + ((level + 1) & 1), 1ull)] = v;
                }
                if (blockIdx.x == 0 && threadIdx.x == 0)
                    dstat[0]++;
                grid.sync();
                const unsigned long long tries = scc_ldcg64(dstat + 3), finds = scc_ldcg64(dstat + 4);
                found = finds - finds_before;
                finds_before = finds;
                /* too few closures pay: detection off for good (one more
                 * P claims the SCCs found) */
                if (tries >= TRIM_DETECT_MIN_TRIES && finds * TRIM_DETECT_YIELD < tries)
                    detecting = false;
            }
            const uint64_t next = scc_ldcg64(body.cnt + (level + 1) % 3);
            level++;
            if (clocked) {
                const unsigned long long t = scc_now_ns();
                t_d += t - t_mark;
                t_mark = t;
            }
            if (next == 0 && found == 0 && (cp <= lim || lim < stride))
                break;
        }
        if (clocked) {
            dstat[5] += t_p;
            dstat[6] += t_d;
        }
        if (!detecting && !(BUDGET && scc_ldcg64(abort_f))) {
            /* finish the peeling without detection */
            body.detect = 0;
            level = scc_run_levels<BUDGET>(body, level, body.cnt, NULL, 0, 0, chain_hops, lv,
                                           budget_ns, abort_f);
        }
    }
    unsigned long long mine = warp_sum64(body.mine);
    if ((threadIdx.x & 31) == 0 && mine)
        atomicAdd(removed, mine);
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *lv = level;
}

__device__ __forceinline__ static unsigned long long scc_vload64(const unsigned long long *p)
{
    return *(const volatile unsigned long long *)p;
}

/* ---- multi-source partition (Li et al.) ----
 * Regions are dense ids 0 .. R-1 here.  Election: per region, the live
 * vertex of largest (in+1)(out+1) degree product (ties to the larger id):
 * a 64-bit key max per region, reduced within each warp first (lanes of
 * one region agree by __match_any_sync), so a region of millions of
 * vertices costs one atomic per warp at most and none once its maximum is
 * in place. */
__global__ void scc_fb_elect(uint32_t n, const uint64_t *off, const uint64_t *roff,
                             const uint32_t *rep, const uint32_t *reg, unsigned long long *best)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const bool live = v < n && rep[v] == SCC_UNSET;
    const uint32_t r = live ? reg[v] : SCC_UNSET;
    uint32_t score = 0;
    if (live) {
        uint64_t p = (off[v + 1] - off[v] + 1) * (roff[v + 1] - roff[v] + 1);
        score = p > 0x7fffffffull ? 0x7fffffffu : (uint32_t)p;
    }
    const unsigned peers = __match_any_sync(FULL_MASK, r);
    const uint32_t smax = __reduce_max_sync(peers, score);
    const uint32_t vmax = __reduce_max_sync(peers, live && score == smax ? (uint32_t)v : 0u);
    if (live && (threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1)) {
        unsigned long long key = 1ull << 63 | (unsigned long long)smax << 32 | vmax;
        if (scc_vload64(&best[r]) < key)
            atomicMax(&best[r], key);
    }
}

/* The multi-source search's flags (as scc_pivot_flags_init, one thread per
 * four vertices) with every region's elected pivot in both queues (the
 * counters ca / cb start at 0). */
__global__ void scc_fb_init(uint32_t n, const uint32_t *rep, const uint32_t *reg,
                            const unsigned long long *best, uint32_t *flags, uint32_t *qa,
                            unsigned long long *ca, uint32_t *qb, unsigned long long *cb)
{
    uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t buf[4], nb = 0;
    if (4 * k < n) { /* no early return: the whole warp flushes below */
        uint32_t word = 0;
        for (uint32_t j = 0; j < 4; j++) {
            uint64_t v = 4 * k + j;
            uint32_t f = PF_OUT;
            if (v < n && rep[v] == SCC_UNSET) {
                f = 0;
                if ((uint32_t)best[reg[v]] == (uint32_t)v) {
                    f = PF_FWD | PF_BWD;
                    buf[nb++] = (uint32_t)v;
                }
            }
            word |= f << (8 * j);
        }
        flags[k] = word;
    }
    scc_flush2(true, nb, buf, qa, ca, qa, ca);
    scc_flush2(true, nb, buf, qb, cb, qb, cb);
}

/* Reached both ways -> the pivot's SCC; otherwise the subregion code
 * 3 * region + (forward) + 2 (backward), marked for the renumbering. */
__global__ void scc_fb_finish(uint32_t n, uint32_t *rep, uint32_t *reg,
                              const unsigned long long *best, const uint32_t *flags,
                              uint32_t *mark, unsigned long long *live)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool still = false;
    if (v < n && rep[v] == SCC_UNSET) {
        uint32_t fl = (flags[v >> 2] >> (8 * (v & 3))) & 0xffu;
        uint32_t f = (fl & PF_FWD) != 0, b = (fl & PF_BWD) != 0;
        uint32_t r = reg[v];
        if (f && b) {
            rep[v] = (uint32_t)best[r];
        } else {
            uint32_t code = 3 * r + f + 2 * b;
            reg[v] = code;
            mark[code] = 1;
            still = true;
        }
    }
    unsigned bal = __ballot_sync(FULL_MASK, still);
    if ((threadIdx.x & 31) == 0 && bal)
        atomicAdd(live, (unsigned long long)__popc(bal));
}

/* Subregion codes -> dense region ids (the exclusive prefix sum of the
 * marks). */
__global__ void scc_fb_renumber(uint32_t n, const uint32_t *rep, uint32_t *reg, const uint32_t *pos)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && rep[v] == SCC_UNSET)
        reg[v] = pos[reg[v]];
}

/* ---- the CPU residue: the live subgraph, compacted ---- */

__global__ void scc_live_flags(uint32_t n, const uint32_t *rep, uint32_t *flag)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        flag[v] = rep[v] == SCC_UNSET;
}

/* For live v (compact id newid[v]): its original id and its number of
 * live out-neighbours.  Edges to finished vertices are dropped: the live
 * vertices are a union of SCCs, whose SCCs are those of the subgraph they
 * induce. */
__global__ void scc_res_degrees(uint32_t n, const uint64_t *off, const uint32_t *tgt,
                                const uint32_t *rep, const uint32_t *newid, uint64_t *cdeg,
                                uint32_t *orig)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || rep[v] != SCC_UNSET)
        return;
    uint64_t d = 0;
    for (uint64_t e = off[v]; e < off[v + 1]; e++)
        d += rep[tgt[e]] == SCC_UNSET;
    cdeg[newid[v]] = d;
    orig[newid[v]] = (uint32_t)v;
}

__global__ void scc_res_fill(uint32_t n, const uint64_t *off, const uint32_t *tgt,
                             const uint32_t *rep, const uint32_t *newid, const uint64_t *coff,
                             uint32_t *ctgt)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || rep[v] != SCC_UNSET)
        return;
    uint64_t k = coff[newid[v]];
    for (uint64_t e = off[v]; e < off[v + 1]; e++) {
        uint32_t w = tgt[e];
        if (rep[w] == SCC_UNSET)
            ctgt[k++] = newid[w];
    }
}

__global__ void scc_res_scatter(uint32_t nl, const uint32_t *orig, const uint32_t *hrep, uint32_t *rep)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nl)
        rep[orig[i]] = hrep[i];
}

/* ---- host side ---- */

extern "C" int scc_gpu_available(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
        cudaGetLastError(); /* clear the sticky-free error state */
        return 0;
    }
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return major >= 9;
}

extern "C" void scc_gpu_graph_free(struct scc_gpu_graph *dg)
{
    if (!dg)
        return;
    cudaFree(dg->d_offsets);
    cudaFree(dg->d_targets);
    memset(dg, 0, sizeof *dg);
}

extern "C" int scc_gpu_upload(const struct csr *g, struct scc_gpu_graph *dg, struct wx_error *err)
{
    int rc = WX_OK;
    memset(dg, 0, sizeof *dg);
    dg->n_vertices = g->n_vertices;
    dg->n_edges = g->n_edges;
    if (g->n_vertices > UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "GPU SCC: at most 2^32 - 1 vertices");
    CK(cudaMalloc((void **)&dg->d_offsets, (g->n_vertices + 1) * sizeof(uint64_t)));
    CK(cudaMemcpy(dg->d_offsets, g->offsets, (g->n_vertices + 1) * sizeof(uint64_t),
                  cudaMemcpyHostToDevice));
    if (g->n_edges) {
        CK(cudaMalloc((void **)&dg->d_targets, g->n_edges * sizeof(uint32_t)));
        CK(cudaMemcpy(dg->d_targets, g->targets, g->n_edges * sizeof(uint32_t),
                      cudaMemcpyHostToDevice));
    }
out:
    if (rc != WX_OK)
        scc_gpu_graph_free(dg);
    return rc;
}

/* The persistent kernels, for their cached grids: each engine with and
 * without the CPU-residue budget (+1), the pivot engine also with region
 * checks (the multi-source rounds).  The variants without exist so that the
 * common path carries none of that code (see coop_kernel). */
enum { COOP_PIVOT = 0, COOP_PIVOT_REG = 2, COOP_LABEL = 4, COOP_LABEL_COL = 6, COOP_TRIM = 8,
       COOP_TRIM_DETECT = 10, COOP_N = 12 };

/* Device work space of one decomposition. */
struct scc_work {
    uint32_t n;
    unsigned grid_levels;        /* blocks of a push level (grid-stride) */
    const uint64_t *off, *roff;
    const uint32_t *tgt, *rsrc;
    uint32_t *rep;               /* == the caller's d_comp */
    uint32_t *reg;
    uint32_t *col, *reach, *stamp_a, *stamp_b, *qa0, *qa1, *qb0, *qb1;
    unsigned long long *cnt;     /* CNT_* below */
    uint32_t level;              /* the next push level's number (global) */
    uint32_t levels;             /* levels run, for the stats */
    int coop;                    /* the persistent engines (else one launch per level) */
    uint32_t chain_hops;         /* of the persistent engines */
    uint32_t pivot_local;        /* tuning pivot_local */
    uint32_t pivot_wide;         /* tuning pivot_wide */
    uint32_t trim_detect;        /* tuning trim_detect, at most TRIM_DETECT_MAX */
    int symmetric;               /* the graph is its own transpose (roff == off) */
    unsigned coop_grid[COOP_N];  /* their grids, by COOP_* (0: not computed yet) */
    unsigned coop_blocks_per_sm; /* 0: as many as fit */
    int all_live;                /* every vertex live, all in region 0 (no trim yet) */
    int sms;
    uint64_t m;                  /* edges of the graph */
    double deadline_ms;          /* CPU-residue budget: host clock (now_ms) when
                                    the GPU phases give up (0: no budget) */
    int aborted;                 /* an engine gave up: hand the residue to the CPU */
    unsigned long long *fb_best; /* multi-source rounds: per region, the elected key */
    uint32_t *fb_mark, *fb_pos;  /* per subregion code (3 per region), and its scan */
    void *fb_temp;               /* the scan's CUB work space */
    size_t fb_temp_bytes;
    struct scc_seg fseg, bseg;   /* segment layouts of the out- and in-edges (d 0: none) */
    uint64_t *seg_base[2];       /* their row offsets (owned) */
    uint32_t *seg_adj[2];        /* their edges (owned) */
};

enum { CNT_TRIM = 0, CNT_LIVE = 1, CNT_SUM = 2, CNT_A = CNT_SUM + SUM_N, CNT_B = CNT_A + 3,
       CNT_PIVOT = CNT_B + 3, CNT_LEVEL = CNT_PIVOT + 1, CNT_ABORT = CNT_LEVEL + 1,
       CNT_Q = CNT_ABORT + 1, CNT_CAND = CNT_Q + 3, CNT_DSTAT = CNT_CAND + 2,
       CNT_N = CNT_DSTAT + 7 };


/* Launches a persistent kernel with all its blocks resident: as many per SM
 * as fit (or w->coop_blocks_per_sm, if fewer), times the SMs. */
static int coop_launch_smem(struct scc_work *w, int which, const void *func, void **args,
                            size_t smem, unsigned block, struct wx_error *err)
{
    int rc = WX_OK;
    if (!w->coop_grid[which]) {
        int per_sm = 0;
        if (smem > 48 * 1024)
            CK(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)block, smem));
        if (per_sm < 1) {
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                         "GPU SCC: a persistent kernel does not fit on an SM");
            goto out;
        }
        if (w->coop_blocks_per_sm && (unsigned)per_sm > w->coop_blocks_per_sm)
            per_sm = (int)w->coop_blocks_per_sm;
        w->coop_grid[which] = (unsigned)per_sm * (unsigned)w->sms;
    }
    CK(cudaLaunchCooperativeKernel(func, dim3(w->coop_grid[which]), dim3(block), args, smem,
                                   0));
out:
    return rc;
}

static int coop_launch(struct scc_work *w, int which, const void *func, void **args,
                       struct wx_error *err)
{
    return coop_launch_smem(w, which, func, args, 0, SCC_COOP_BLOCK, err);
}

/* After a persistent engine: w->level from the kernel's last level, and
 * whether it gave up on the CPU-residue budget. */
static int coop_levels(struct scc_work *w, struct wx_error *err)
{
    int rc = WX_OK;
    unsigned long long lv[2] = {0, 0}; /* CNT_LEVEL, CNT_ABORT */
    CK(cudaMemcpy(lv, w->cnt + CNT_LEVEL, sizeof lv, cudaMemcpyDeviceToHost));
    w->levels += (uint32_t)lv[0] - w->level;
    w->level = (uint32_t)lv[0];
    if (lv[1])
        w->aborted = 1;
out:
    return rc;
}

/* The budget left for the next engine, ns (0: none); sets w->aborted when
 * it is already spent (the caller then launches nothing). */
static unsigned long long budget_left(struct scc_work *w)
{
    if (w->deadline_ms <= 0)
        return 0;
    double left = w->deadline_ms - now_ms();
    if (left <= 0) {
        w->aborted = 1;
        return 0;
    }
    return (unsigned long long)(left * 1e6) + 1;
}

/* Starts a budget for the residue of *live vertices (edges estimated at
 * the graph's average degree), or none when the residue is too large for
 * the CPU (or residue != 1). */
static void arm_budget(struct scc_work *w, uint64_t live, const struct scc_gpu_tuning *tu)
{
    w->deadline_ms = 0;
    if (tu->residue != 1 || live == 0)
        return;
    double items = (double)live + (double)live * (double)w->m / (double)w->n;
    if (items > (double)tu->residue_max)
        return;
    w->deadline_ms = now_ms() + items * tu->residue_ns * 1e-6;
    if (w->deadline_ms <= 0)
        w->deadline_ms = 1e-9; /* "armed", even at a clock of 0 */
}

static struct scc_side make_side(const struct scc_work *w, int backward, uint32_t *lab, int b_side)
{
    struct scc_side s;
    s.off = backward ? w->roff : w->off;
    s.adj = backward ? w->rsrc : w->tgt;
    s.lab = lab;
    s.stamp = b_side ? w->stamp_b : w->stamp_a;
    s.q0 = b_side ? w->qb0 : w->qa0;
    s.q1 = b_side ? w->qb1 : w->qa1;
    s.cnt = w->cnt + (b_side ? CNT_B : CNT_A);
    return s;
}

/* Runs a propagation (side a, and b when two) to its end.  all: the first
 * level pushes from every live vertex; else each side's queue for the
 * current level holds its first init_a / init_b entries (written by the
 * caller at parity w->level & 1).  col: restrict pushes to equal colours. */
static int propagate(struct scc_work *w, struct scc_side a, struct scc_side b, int two, int all,
                     uint64_t init_a, uint64_t init_b, const uint32_t *col, struct wx_error *err)
{
    int rc = WX_OK;
    unsigned long long h[3];
    uint32_t batch = 2;
    int first = all;
    for (int side = 0; side < 1 + two; side++) {
        h[w->level % 3] = side ? init_b : init_a;
        h[(w->level + 1) % 3] = 0;
        h[(w->level + 2) % 3] = 0;
        CK(cudaMemcpy(side ? b.cnt : a.cnt, h, sizeof h, cudaMemcpyHostToDevice));
    }
    if (w->coop) {
        uint32_t level = w->level, hops = w->chain_hops;
        unsigned long long *lv = w->cnt + CNT_LEVEL, *ab = w->cnt + CNT_ABORT;
        unsigned long long bud = budget_left(w);
        if (w->aborted)
            return WX_OK;
        if (col) {
            struct scc_label_body<true> body = {w->n, a, b, w->rep, w->reg, col};
            void *args[] = {&body, &two, &level, &all, &hops, &lv, &bud, &ab};
            rc = bud ? coop_launch(w, COOP_LABEL_COL + 1, (const void *)scc_label_coop<true, true>, args, err)
                     : coop_launch(w, COOP_LABEL_COL, (const void *)scc_label_coop<true, false>, args, err);
        } else {
            struct scc_label_body<false> body = {w->n, a, b, w->rep, w->reg, NULL};
            void *args[] = {&body, &two, &level, &all, &hops, &lv, &bud, &ab};
            rc = bud ? coop_launch(w, COOP_LABEL + 1, (const void *)scc_label_coop<false, true>, args, err)
                     : coop_launch(w, COOP_LABEL, (const void *)scc_label_coop<false, false>, args, err);
        }
        if (rc == WX_OK)
            rc = coop_levels(w, err);
        return rc;
    }
    for (;;) {
        for (uint32_t k = 0; k < batch; k++) {
            if (col)
                scc_push_level<true><<<w->grid_levels, SCC_BLOCK>>>(w->n, a, b, two, w->level, first,
                                                                   w->rep, w->reg, col);
            else
                scc_push_level<false><<<w->grid_levels, SCC_BLOCK>>>(w->n, a, b, two, w->level, first,
                                                                    w->rep, w->reg, NULL);
            CK_LAUNCH();
            first = 0;
            w->level++;
            w->levels++;
        }
        unsigned long long ca = 0, cb = 0;
        CK(cudaMemcpy(&ca, a.cnt + w->level % 3, sizeof ca, cudaMemcpyDeviceToHost));
        if (two)
            CK(cudaMemcpy(&cb, b.cnt + w->level % 3, sizeof cb, cudaMemcpyDeviceToHost));
        if (ca == 0 && cb == 0)
            break;
        if (w->deadline_ms > 0 && now_ms() > w->deadline_ms) {
            w->aborted = 1; /* the labels are discarded */
            break;
        }
        if (batch < LEVEL_BATCH_MAX)
            batch *= 2;
    }
out:
    return rc;
}

/* Trim sweeps while they pay (TRIM_MIN_SHARE); *live decreases. */
static int trim_phase(struct scc_work *w, uint64_t *live, struct scc_gpu_stats *st,
                      const struct scc_gpu_tuning *tu, struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned gv = grid_for(w->n);
    if (tu->trim_min_share == 0)
        return WX_OK;
    /* Kahn peeling to the fixpoint while the counts are plain degrees; later
     * (regions split) its counting pass costs a pass over every live edge
     * per phase, and topology sweeps that stop when they stop paying cost
     * less (bench/history/scc.md) */
    if (w->coop && w->all_live) {
        unsigned long long removed = 0, dstat[7];
        CK(cudaMemset(w->cnt + CNT_TRIM, 0, sizeof removed));
        CK(cudaMemset(w->cnt + CNT_Q, 0, 3 * sizeof removed));
        CK(cudaMemset(w->cnt + CNT_CAND, 0, 9 * sizeof removed)); /* CNT_CAND, CNT_DSTAT */
        uint32_t n = w->n, level = w->level, hops = w->chain_hops;
        int all_live = w->all_live;
        /* detection: candidate lists in qb0 / qb1, stamps in stamp_b (reset
         * below: the label engines need them 0) */
        struct scc_trim_body body = {w->off, w->roff, w->tgt, w->rsrc, w->reg, w->rep, w->col,
                                     w->reach, w->qa0, w->qa1, w->cnt + CNT_Q, 0,
                                     w->trim_detect, 0, w->qb0, w->qb1, w->cnt + CNT_CAND,
                                     w->stamp_b, all_live, tu->trim_hops};
        unsigned long long *rem = w->cnt + CNT_TRIM, *lv = w->cnt + CNT_LEVEL;
        unsigned long long *ab = w->cnt + CNT_ABORT, bud = budget_left(w);
        unsigned long long *ds = w->cnt + CNT_DSTAT;
        if (w->aborted)
            return WX_OK;
        void *args[] = {&n, &level, &all_live, &hops, &body, &rem, &lv, &bud, &ab, &ds};
        if (w->trim_detect)
            rc = bud ? coop_launch_smem(w, COOP_TRIM_DETECT + 1,
                                        (const void *)scc_trim_coop<true, true>, args,
                                        TRIM_DETECT_SMEM, TRIM_DETECT_BLOCK, err)
                     : coop_launch_smem(w, COOP_TRIM_DETECT, (const void *)scc_trim_coop<false, true>,
                                        args, TRIM_DETECT_SMEM, TRIM_DETECT_BLOCK, err);
        else
            rc = bud ? coop_launch(w, COOP_TRIM + 1, (const void *)scc_trim_coop<true, false>, args,
                                   err)
                     : coop_launch(w, COOP_TRIM, (const void *)scc_trim_coop<false, false>, args,
                                   err);
        if (rc != WX_OK)
            goto out;
        if (w->trim_detect) {
            CK(cudaMemcpy(dstat, w->cnt + CNT_DSTAT, sizeof dstat, cudaMemcpyDeviceToHost));
            CK(cudaMemset(w->stamp_b, 0, (uint64_t)w->n * sizeof *w->stamp_b));
            st->detect_passes += (uint32_t)dstat[0];
            st->detect_sccs += dstat[1];
            st->detect_vertices += dstat[2];
            st->detect_tries += dstat[3];
            st->detect_p_ms += 1e-6 * (double)dstat[5];
            st->detect_d_ms += 1e-6 * (double)dstat[6];
        }
        CK(cudaMemcpy(&removed, w->cnt + CNT_TRIM, sizeof removed, cudaMemcpyDeviceToHost));
        uint32_t levels0 = w->levels;
        rc = coop_levels(w, err);
        if (rc != WX_OK)
            goto out;
        st->trim_sweeps += w->levels - levels0;
        w->levels = levels0; /* trim levels are counted as sweeps, not push levels */
        st->trimmed += removed;
        *live -= removed;
        w->all_live = 0;
        return WX_OK;
    }
    for (uint32_t s = 0; s < tu->trim_max_sweeps && *live > 0; s++) {
        unsigned long long trimmed = 0;
        CK(cudaMemset(w->cnt + CNT_TRIM, 0, sizeof trimmed));
        if (w->fseg.d)
            scc_trim_seg<<<gv, SCC_BLOCK>>>(w->n, w->off, w->tgt, w->roff, w->rsrc, w->fseg, w->bseg,
                                            w->rep, w->reg, w->cnt + CNT_TRIM);
        else
            scc_trim<<<gv, SCC_BLOCK>>>(w->n, w->off, w->tgt, w->roff, w->rsrc, w->rep, w->reg,
                                        w->cnt + CNT_TRIM);
        CK_LAUNCH();
        CK(cudaMemcpy(&trimmed, w->cnt + CNT_TRIM, sizeof trimmed, cudaMemcpyDeviceToHost));
        st->trim_sweeps++;
        st->trimmed += trimmed;
        *live -= trimmed;
        if (trimmed == 0 || trimmed * tu->trim_min_share < *live)
            break;
    }
out:
    return rc;
}

/* Forward-backward search from one pivot (the giant-SCC step); all live
 * vertices must be in region 0. */
static int pivot_phase(struct scc_work *w, uint64_t *live, struct scc_gpu_stats *st,
                       struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned gv = grid_for(w->n);
    unsigned long long key = 0, left = 0;
    uint32_t one = 1, pivot;
    struct scc_side a = make_side(w, 0, w->col, 0), b = make_side(w, 1, w->reach, 1);
    CK(cudaMemset(w->cnt + CNT_PIVOT, 0, sizeof key));
    scc_pivot_key<<<gv, SCC_BLOCK>>>(w->n, w->off, w->roff, w->rep, w->cnt + CNT_PIVOT);
    CK_LAUNCH();
    CK(cudaMemcpy(&key, w->cnt + CNT_PIVOT, sizeof key, cudaMemcpyDeviceToHost));
    if (!key)
        goto out; /* no live vertex */
    pivot = (uint32_t)key;
    if (w->coop) {
        uint32_t *flags = w->col; /* one byte per vertex */
        unsigned long long h[3] = {0, 0, 0};
        h[w->level % 3] = 1;
        scc_pivot_flags_init<<<grid_for((w->n + 3) / 4), SCC_BLOCK>>>(w->n, pivot, w->rep, flags);
        CK_LAUNCH();
        CK(cudaMemcpy(w->cnt + CNT_A, h, sizeof h, cudaMemcpyHostToDevice));
        if (w->symmetric)
            h[w->level % 3] = 0; /* backward reach == forward reach: one search */
        CK(cudaMemcpy(w->cnt + CNT_B, h, sizeof h, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(((w->level & 1) ? w->qa1 : w->qa0), &pivot, sizeof pivot, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(((w->level & 1) ? w->qb1 : w->qb0), &pivot, sizeof pivot, cudaMemcpyHostToDevice));
        uint32_t level = w->level, hops = w->chain_hops;
        struct scc_pivot_body<false> body = {w->off, w->roff, w->tgt, w->rsrc, flags, w->qa0,
                                             w->qa1, w->qb0, w->qb1, w->cnt + CNT_A, w->cnt + CNT_B,
                                             NULL, w->pivot_local, w->pivot_wide};
        unsigned long long *lv = w->cnt + CNT_LEVEL, *ab = w->cnt + CNT_ABORT;
        unsigned long long bud = budget_left(w);
        if (w->aborted)
            goto out;
        void *args[] = {&level, &hops, &body, &lv, &bud, &ab};
        rc = bud ? coop_launch(w, COOP_PIVOT + 1, (const void *)scc_pivot_coop<false, true>, args, err)
                 : coop_launch(w, COOP_PIVOT, (const void *)scc_pivot_coop<false, false>, args, err);
        if (rc == WX_OK)
            rc = coop_levels(w, err);
        if (rc != WX_OK || w->aborted)
            goto out;
        CK(cudaMemset(w->cnt + CNT_LIVE, 0, sizeof left));
        scc_pivot_finish_flags<<<gv, SCC_BLOCK>>>(w->n, pivot, w->rep, w->reg, flags,
                                                  w->symmetric, w->cnt + CNT_LIVE);
        CK_LAUNCH();
        CK(cudaMemcpy(&left, w->cnt + CNT_LIVE, sizeof left, cudaMemcpyDeviceToHost));
        st->pivot_scc = *live - left;
        *live = left;
        goto out;
    }
    CK(cudaMemset(w->col, 0, (uint64_t)w->n * sizeof *w->col));
    CK(cudaMemset(w->reach, 0, (uint64_t)w->n * sizeof *w->reach));
    CK(cudaMemcpy(w->col + pivot, &one, sizeof one, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(w->reach + pivot, &one, sizeof one, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(((w->level & 1) ? a.q1 : a.q0), &pivot, sizeof pivot, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(((w->level & 1) ? b.q1 : b.q0), &pivot, sizeof pivot, cudaMemcpyHostToDevice));
    rc = propagate(w, a, b, 1, 0, 1, 1, NULL, err);
    if (rc != WX_OK || w->aborted)
        goto out;
    CK(cudaMemset(w->cnt + CNT_LIVE, 0, sizeof left));
    scc_pivot_finish<<<gv, SCC_BLOCK>>>(w->n, pivot, w->rep, w->reg, w->col, w->reach,
                                        w->cnt + CNT_LIVE);
    CK_LAUNCH();
    CK(cudaMemcpy(&left, w->cnt + CNT_LIVE, sizeof left, cudaMemcpyDeviceToHost));
    st->pivot_scc = *live - left;
    *live = left;
out:
    return rc;
}

/* One colouring round: colours by the largest id reaching (dir 0) or
 * reached from (dir 1) each vertex, then each colour's root reaches back. */
static int colour_round(struct scc_work *w, int dir, uint64_t *live, struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned gv = grid_for(w->n);
    unsigned long long left = 0;
    scc_colour_init<<<gv, SCC_BLOCK>>>(w->n, w->rep, w->col, w->reach);
    CK_LAUNCH();
    rc = propagate(w, make_side(w, dir, w->col, 0), make_side(w, dir, w->col, 0), 0, 1, 0, 0, NULL,
                   err);
    if (rc != WX_OK || w->aborted)
        goto out;
    scc_colour_roots<<<gv, SCC_BLOCK>>>(w->n, w->rep, w->col, w->reach);
    CK_LAUNCH();
    rc = propagate(w, make_side(w, !dir, w->reach, 1), make_side(w, !dir, w->reach, 1), 0, 1, 0, 0,
                   w->col, err);
    if (rc != WX_OK || w->aborted)
        goto out;
    CK(cudaMemset(w->cnt + CNT_LIVE, 0, sizeof left));
    scc_colour_finish<<<gv, SCC_BLOCK>>>(w->n, w->rep, w->reg, w->col, w->reach, w->cnt + CNT_LIVE);
    CK_LAUNCH();
    CK(cudaMemcpy(&left, w->cnt + CNT_LIVE, sizeof left, cudaMemcpyDeviceToHost));
    if (left >= *live) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                     "GPU SCC: internal error: a colouring round finished no vertex (%llu live)",
                     (unsigned long long)*live);
        goto out;
    }
    *live = left;
out:
    return rc;
}

/* Builds the segment layout of off/adj with degree bound d into side k of
 * w (k 0: out-edges, 1: in-edges). */
static int seg_build(struct scc_work *w, int k, const uint64_t *off, const uint32_t *adj, uint32_t d,
                     struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t nseg = ((uint64_t)w->n + 31) / 32;
    uint64_t *width = NULL, rows = 0;
    void *temp = NULL;
    size_t temp_bytes = 0;
    CK(cudaMalloc((void **)&width, (nseg + 1) * sizeof *width));
    CK(cudaMalloc((void **)&w->seg_base[k], (nseg + 1) * sizeof *w->seg_base[k]));
    CK(cudaMemset(width, 0, (nseg + 1) * sizeof *width));
    scc_seg_width<<<grid_for(nseg * 32), SCC_BLOCK>>>(w->n, nseg, off, d, width);
    CK_LAUNCH();
    CK(cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, width, w->seg_base[k], (int64_t)nseg + 1));
    CK(cudaMalloc(&temp, temp_bytes));
    CK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, width, w->seg_base[k], (int64_t)nseg + 1));
    CK(cudaMemcpy(&rows, w->seg_base[k] + nseg, sizeof rows, cudaMemcpyDeviceToHost));
    CK(cudaMalloc((void **)&w->seg_adj[k], (rows ? rows : 1) * 32 * sizeof(uint32_t)));
    scc_seg_fill<<<grid_for(w->n), SCC_BLOCK>>>(w->n, off, adj, d, w->seg_base[k], w->seg_adj[k]);
    CK_LAUNCH();
    {
        struct scc_seg *sg = k ? &w->bseg : &w->fseg;
        sg->base = w->seg_base[k];
        sg->adj = w->seg_adj[k];
        sg->d = d;
    }
out:
    cudaFree(width);
    cudaFree(temp);
    return rc;
}

/* One multi-source round (Li et al.): every region (dense ids 0 .. *nreg-1)
 * elects a pivot, all pivots search forward and backward at once within
 * their regions (the pivot engine with region checks), each pivot's SCC is
 * finished, and the rest splits into (forward only, backward only,
 * neither) subregions, numbered densely by a prefix sum over the codes.
 * Every region finishes >= 1 SCC (its pivot's), so *live decreases. */
static int fb_round(struct scc_work *w, uint32_t *nreg, uint64_t *live, struct scc_gpu_stats *st,
                    struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned gv = grid_for(w->n);
    const uint64_t R = *nreg, codes = 3 * R;
    unsigned long long pivots = 0, left = 0;
    uint32_t *flags = w->col; /* one byte per vertex */
    uint32_t last[2];
    if (!w->fb_best) {
        /* regions are at most n + 1 (dense, or the four after the pivot) */
        const uint64_t cap = 3 * ((uint64_t)w->n + 4);
        CK(cudaMalloc((void **)&w->fb_best, ((uint64_t)w->n + 4) * sizeof *w->fb_best));
        CK(cudaMalloc((void **)&w->fb_mark, cap * sizeof *w->fb_mark));
        CK(cudaMalloc((void **)&w->fb_pos, cap * sizeof *w->fb_pos));
        CK(cub::DeviceScan::ExclusiveSum(NULL, w->fb_temp_bytes, w->fb_mark, w->fb_pos, (int64_t)cap));
        CK(cudaMalloc(&w->fb_temp, w->fb_temp_bytes));
    }
    CK(cudaMemset(w->fb_best, 0, R * sizeof *w->fb_best));
    scc_fb_elect<<<gv, SCC_BLOCK>>>(w->n, w->off, w->roff, w->rep, w->reg, w->fb_best);
    CK_LAUNCH();
    CK(cudaMemset(w->cnt + CNT_A, 0, 3 * sizeof pivots));
    CK(cudaMemset(w->cnt + CNT_B, 0, 3 * sizeof pivots));
    scc_fb_init<<<grid_for(((uint64_t)w->n + 3) / 4), SCC_BLOCK>>>(
        w->n, w->rep, w->reg, w->fb_best, flags, (w->level & 1) ? w->qa1 : w->qa0,
        w->cnt + CNT_A + w->level % 3, (w->level & 1) ? w->qb1 : w->qb0, w->cnt + CNT_B + w->level % 3);
    CK_LAUNCH();
    CK(cudaMemcpy(&pivots, w->cnt + CNT_A + w->level % 3, sizeof pivots, cudaMemcpyDeviceToHost));
    st->fb_pivots += pivots;
    {
        uint32_t level = w->level, hops = w->chain_hops;
        struct scc_pivot_body<true> body = {w->off, w->roff, w->tgt, w->rsrc, flags, w->qa0,
                                            w->qa1, w->qb0, w->qb1, w->cnt + CNT_A, w->cnt + CNT_B,
                                            w->reg, w->pivot_local, w->pivot_wide};
        unsigned long long *lv = w->cnt + CNT_LEVEL, *ab = w->cnt + CNT_ABORT;
        unsigned long long bud = budget_left(w);
        if (w->aborted)
            goto out;
        void *args[] = {&level, &hops, &body, &lv, &bud, &ab};
        rc = bud ? coop_launch(w, COOP_PIVOT_REG + 1, (const void *)scc_pivot_coop<true, true>, args,
                               err)
                 : coop_launch(w, COOP_PIVOT_REG, (const void *)scc_pivot_coop<true, false>, args, err);
        if (rc == WX_OK)
            rc = coop_levels(w, err);
        if (rc != WX_OK || w->aborted)
            goto out;
    }
    CK(cudaMemset(w->fb_mark, 0, codes * sizeof *w->fb_mark));
    CK(cudaMemset(w->cnt + CNT_LIVE, 0, sizeof left));
    scc_fb_finish<<<gv, SCC_BLOCK>>>(w->n, w->rep, w->reg, w->fb_best, flags, w->fb_mark,
                                     w->cnt + CNT_LIVE);
    CK_LAUNCH();
    CK(cub::DeviceScan::ExclusiveSum(w->fb_temp, w->fb_temp_bytes, w->fb_mark, w->fb_pos,
                                     (int64_t)codes));
    scc_fb_renumber<<<gv, SCC_BLOCK>>>(w->n, w->rep, w->reg, w->fb_pos);
    CK_LAUNCH();
    CK(cudaMemcpy(&left, w->cnt + CNT_LIVE, sizeof left, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&last[0], w->fb_pos + codes - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&last[1], w->fb_mark + codes - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
    if (left >= *live || pivots == 0) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                     "GPU SCC: internal error: a multi-source round finished no vertex (%llu live, "
                     "%llu pivots)", (unsigned long long)*live, pivots);
        goto out;
    }
    *nreg = last[0] + last[1];
    *live = left;
    st->fb_rounds++;
out:
    return rc;
}

/* Hands the live rest to the CPU: compacts the subgraph induced by the
 * live vertices on the GPU (flags, a scan for the new ids, live
 * out-degrees, a scan for the offsets, the targets), copies it to the
 * host, runs Tarjan (analysis/scc.h), and writes each live vertex's
 * representative (the smallest member of its component) back into rep. */
static int cpu_residue(struct scc_work *w, uint64_t *live, struct scc_gpu_stats *st,
                       struct wx_error *err)
{
    int rc = WX_OK;
    const double t0 = now_ms();
    const unsigned gv = grid_for(w->n);
    uint32_t *flag = w->col, *newid = w->reach, last[2];
    uint64_t *cdeg = NULL, *coff = NULL, *hoff = NULL, nl = 0, ml = 0;
    uint32_t *orig = NULL, *ctgt = NULL, *horig = NULL, *htgt = NULL;
    void *temp = NULL;
    size_t temp_bytes = 0;
    struct scc_result res;
    memset(&res, 0, sizeof res);
    scc_live_flags<<<gv, SCC_BLOCK>>>(w->n, w->rep, flag);
    CK_LAUNCH();
    CK(cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, flag, newid, (int64_t)w->n));
    CK(cudaMalloc(&temp, temp_bytes));
    CK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, flag, newid, (int64_t)w->n));
    CK(cudaFree(temp));
    temp = NULL;
    CK(cudaMemcpy(&last[0], newid + w->n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&last[1], flag + w->n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
    nl = (uint64_t)last[0] + last[1];
    if (nl != *live) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                     "GPU SCC: internal error: %llu live vertices counted, %llu found",
                     (unsigned long long)*live, (unsigned long long)nl);
        goto out;
    }
    if (nl == 0)
        goto out;
    CK(cudaMalloc((void **)&cdeg, (nl + 1) * sizeof *cdeg));
    CK(cudaMalloc((void **)&coff, (nl + 1) * sizeof *coff));
    CK(cudaMalloc((void **)&orig, nl * sizeof *orig));
    CK(cudaMemset(cdeg, 0, (nl + 1) * sizeof *cdeg));
    scc_res_degrees<<<gv, SCC_BLOCK>>>(w->n, w->off, w->tgt, w->rep, newid, cdeg, orig);
    CK_LAUNCH();
    CK(cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, cdeg, coff, (int64_t)nl + 1));
    CK(cudaMalloc(&temp, temp_bytes));
    CK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, cdeg, coff, (int64_t)nl + 1));
    CK(cudaFree(temp));
    temp = NULL;
    CK(cudaMemcpy(&ml, coff + nl, sizeof ml, cudaMemcpyDeviceToHost));
    CK(cudaMalloc((void **)&ctgt, (ml ? ml : 1) * sizeof *ctgt));
    scc_res_fill<<<gv, SCC_BLOCK>>>(w->n, w->off, w->tgt, w->rep, newid, coff, ctgt);
    CK_LAUNCH();
    hoff = (uint64_t *)malloc((nl + 1) * sizeof *hoff);
    htgt = (uint32_t *)malloc((ml ? ml : 1) * sizeof *htgt);
    horig = (uint32_t *)malloc(nl * sizeof *horig);
    if (!hoff || !htgt || !horig) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                     "GPU SCC: out of host memory for the CPU residue (%llu vertices, %llu edges)",
                     (unsigned long long)nl, (unsigned long long)ml);
        goto out;
    }
    CK(cudaMemcpy(hoff, coff, (nl + 1) * sizeof *hoff, cudaMemcpyDeviceToHost));
    if (ml)
        CK(cudaMemcpy(htgt, ctgt, ml * sizeof *htgt, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(horig, orig, nl * sizeof *horig, cudaMemcpyDeviceToHost));
    {
        struct csr h;
        memset(&h, 0, sizeof h);
        h.n_vertices = nl;
        h.n_edges = ml;
        h.offsets = hoff;
        h.targets = htgt;
        rc = scc_cpu(&h, &res, err);
        if (rc != WX_OK)
            goto out;
        /* canonical ids: a component's first vertex in compact order is its
         * smallest member (compaction keeps the order); htgt is free now */
        uint32_t *repr = htgt;
        if (ml < res.n_sccs) {
            free(htgt);
            htgt = repr = (uint32_t *)malloc(res.n_sccs * sizeof *repr);
            if (!repr) {
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "GPU SCC: out of host memory");
                goto out;
            }
        }
        for (uint64_t c = 0; c < res.n_sccs; c++)
            repr[c] = SCC_UNSET;
        for (uint64_t i = 0; i < nl; i++) {
            uint32_t c = res.comp[i];
            if (repr[c] == SCC_UNSET)
                repr[c] = horig[i];
            res.comp[i] = repr[c];
        }
    }
    CK(cudaMemcpy(cdeg, res.comp, nl * sizeof(uint32_t), cudaMemcpyHostToDevice));
    scc_res_scatter<<<grid_for(nl), SCC_BLOCK>>>((uint32_t)nl, orig, (const uint32_t *)cdeg, w->rep);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
    st->residue_n = nl;
    st->residue_m = ml;
    *live = 0;
out:
    scc_result_free(&res);
    cudaFree(temp);
    cudaFree(cdeg);
    cudaFree(coff);
    cudaFree(orig);
    cudaFree(ctgt);
    free(hoff);
    free(htgt);
    free(horig);
    st->residue_ms += now_ms() - t0;
    return rc;
}

extern "C" void scc_gpu_tuning_default(struct scc_gpu_tuning *t)
{
    /* every field, also those whose default is 0: scc_gpu_device's tuning
     * lives on the stack (segment_degree was once left out here, and the
     * stack's garbage built a segment layout in every decomposition) */
    memset(t, 0, sizeof *t);
    t->trim_min_share = TRIM_MIN_SHARE;
    t->trim_max_sweeps = TRIM_MAX_SWEEPS;
    t->pivot = 1;
    t->colour_dir = 0;
    t->persistent = 1;
    t->chain_hops = CHAIN_HOPS;
    t->coop_blocks_per_sm = 0;
    t->transpose_sort = 2;
    t->fb_rounds = FB_ROUNDS;
    t->residue = 1;
    t->residue_ns = RESIDUE_NS;
    t->residue_max = RESIDUE_MAX;
    t->pivot_local = PIVOT_LOCAL;
    t->pivot_wide = PIVOT_WIDE;
    t->trim_detect = TRIM_DETECT;
    t->trim_hops = TRIM_HOPS;
    t->symmetric = 1;
}

extern "C" int scc_gpu_tuning_parse(const char *spec, struct scc_gpu_tuning *t, struct wx_error *err)
{
    const char *p = spec;
    while (*p) {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        if (!eq || eq > end)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                           "SCC tuning '%s': expected NAME=VALUE items separated by commas", spec);
        char *e = NULL;
        unsigned long long v = strtoull(eq + 1, &e, 0);
        size_t len = (size_t)(eq - p);
        if (e != end || eq + 1 == end)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "SCC tuning '%s': bad number for '%.*s'", spec,
                           (int)len, p);
#define TUNE(name, field, type)                                                \
        if (len == strlen(name) && !strncmp(p, name, len)) {                   \
            t->field = (type)v;                                                \
            goto next;                                                         \
        }
        TUNE("trim_min_share", trim_min_share, uint32_t)
        TUNE("trim_max_sweeps", trim_max_sweeps, uint32_t)
        TUNE("pivot", pivot, int)
        TUNE("colour_dir", colour_dir, int)
        TUNE("persistent", persistent, int)
        TUNE("chain_hops", chain_hops, uint32_t)
        TUNE("coop_blocks_per_sm", coop_blocks_per_sm, uint32_t)
        TUNE("transpose_sort", transpose_sort, int)
        TUNE("fb_rounds", fb_rounds, uint32_t)
        TUNE("residue", residue, int)
        TUNE("residue_ns", residue_ns, uint32_t)
        TUNE("residue_max", residue_max, uint64_t)
        TUNE("segment_degree", segment_degree, uint32_t)
        TUNE("pivot_local", pivot_local, uint32_t)
        TUNE("pivot_wide", pivot_wide, uint32_t)
        TUNE("trim_detect", trim_detect, uint32_t)
        TUNE("trim_hops", trim_hops, uint32_t)
        TUNE("symmetric", symmetric, int)
#undef TUNE
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "SCC tuning '%s': unknown field '%.*s'", spec,
                       (int)len, p);
    next:
        p = *end ? end + 1 : end;
    }
    return WX_OK;
}

/* The process-wide strategy of scc_gpu_device (scc_gpu_set_tuning). */
static struct scc_gpu_tuning process_tuning;
static bool process_tuning_set;

extern "C" void scc_gpu_set_tuning(const struct scc_gpu_tuning *t)
{
    process_tuning_set = t != NULL;
    if (t)
        process_tuning = *t;
}

extern "C" int scc_gpu_device(const struct scc_gpu_graph *dg, uint32_t *d_comp,
                              struct scc_result *out, struct scc_gpu_stats *st_out,
                              struct wx_error *err)
{
    struct scc_gpu_tuning t;
    if (process_tuning_set)
        t = process_tuning;
    else
        scc_gpu_tuning_default(&t);
    return scc_gpu_device_tuned(dg, d_comp, out, st_out, &t, err);
}

extern "C" int scc_gpu_device_tuned(const struct scc_gpu_graph *dg, uint32_t *d_comp,
                                    struct scc_result *out, struct scc_gpu_stats *st_out,
                                    const struct scc_gpu_tuning *tu, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = dg->n_vertices, m = dg->n_edges;
    struct scc_gpu_stats st;
    struct scc_work w;
    memset(&st, 0, sizeof st);
    memset(&w, 0, sizeof w);
    memset(out, 0, sizeof *out);
    out->n_vertices = n64;
    if (st_out)
        memset(st_out, 0, sizeof *st_out);
    if (n64 == 0)
        return WX_OK;
    if (n64 > UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "GPU SCC: at most 2^32 - 1 vertices");
    if (m >= ((uint64_t)1 << 38))
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "GPU SCC: %llu edges; the GPU decomposition supports fewer than 2^38 "
                       "(use --backend cpu)", (unsigned long long)m);
    const uint32_t n = (uint32_t)n64;
    const unsigned gv = grid_for(n64);
    uint64_t *roff = NULL;
    uint32_t *rsrc = NULL, *keys = NULL, *src = NULL;
    void *temp = NULL;
    size_t temp_bytes = 0;
    unsigned long long h_sum[SUM_N];
    double t0 = now_ms(), t;
    int dev = 0, sms = 0, sorted = 1;

    w.n = n;
    w.off = dg->d_offsets;
    w.tgt = dg->d_targets;
    w.rep = d_comp;
    w.level = 1;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    w.grid_levels = (unsigned)(sms > 0 ? sms : 1) * LEVEL_BLOCKS_PER_SM;
    w.sms = sms > 0 ? sms : 1;
    w.all_live = 1;
    w.chain_hops = tu->chain_hops;
    w.pivot_local = tu->pivot_local;
    w.pivot_wide = tu->pivot_wide;
    w.trim_detect = tu->trim_detect < TRIM_DETECT_MAX ? tu->trim_detect : TRIM_DETECT_MAX;
    {
        /* the detection's sets take TRIM_DETECT_SMEM bytes of shared memory
         * per block (H100 / H200: 227 KB allowed); without them, no
         * detection (the same result, slower on DAG-like graphs) */
        int smem_max = 0;
        CK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        if ((unsigned)smem_max < TRIM_DETECT_SMEM)
            w.trim_detect = 0;
    }
    w.coop_blocks_per_sm = tu->coop_blocks_per_sm;
    if (tu->persistent) {
        int coop = 0;
        CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
        w.coop = coop != 0; /* else the per-level engine */
    }
    /* the relabelling and the counts use reg, col and reach; the
     * searches the rest (not allocated for the connected components) */
    CK(cudaMalloc((void **)&w.reg, n64 * sizeof *w.reg));
    CK(cudaMalloc((void **)&w.col, n64 * sizeof *w.col));
    CK(cudaMalloc((void **)&w.reach, n64 * sizeof *w.reach));
    CK(cudaMalloc((void **)&w.cnt, CNT_N * sizeof *w.cnt));
    CK(cudaMemset(w.cnt, 0, CNT_N * sizeof *w.cnt));
    w.m = m;
    st.alloc_ms = now_ms() - t0;

    /* 1. transpose (none when the graph is symmetric) */
    if (m && tu->symmetric) {
        /* a sample first, so that other graphs pay one small launch */
        const double ts = now_ms();
        const uint32_t k = m < LOCAL_SAMPLE ? (uint32_t)m : LOCAL_SAMPLE;
        unsigned long long bad = 0;
        CK(cudaMemset(w.cnt + CNT_TRIM, 0, sizeof bad));
        scc_sym_probe<<<grid_for(k), SCC_BLOCK>>>(dg->d_offsets, dg->d_targets, n, m, k,
                                                 w.cnt + CNT_TRIM);
        CK_LAUNCH();
        CK(cudaMemcpy(&bad, w.cnt + CNT_TRIM, sizeof bad, cudaMemcpyDeviceToHost));
        if (!bad) {
            scc_sym_check<<<gv, SCC_BLOCK>>>(dg->d_offsets, dg->d_targets, n, w.cnt + CNT_TRIM,
                                             d_comp);
            CK_LAUNCH();
            CK(cudaMemcpy(&bad, w.cnt + CNT_TRIM, sizeof bad, cudaMemcpyDeviceToHost));
        }
        st.symmetric = w.symmetric = !bad;
        st.symmetric_ms = now_ms() - ts;
    }
    if (w.symmetric && tu->symmetric == 1) {
        /* the SCCs are the connected components: d_comp holds the first
         * parents (scc_sym_check); every vertex is finished here */
        scc_cc_hook<<<gv, SCC_BLOCK>>>(dg->d_offsets, dg->d_targets, n, d_comp);
        CK_LAUNCH();
        scc_cc_flatten<<<gv, SCC_BLOCK>>>(n, d_comp);
        CK_LAUNCH();
        CK(cudaDeviceSynchronize());
        st.components = 1;
        t = now_ms();
        st.transpose_ms = t - t0;
        st.pivot_ms = t - t0 - st.alloc_ms - st.symmetric_ms; /* the components' time */
        goto decomposed;
    }
    CK(cudaMalloc((void **)&w.stamp_a, n64 * sizeof *w.stamp_a));
    CK(cudaMalloc((void **)&w.stamp_b, n64 * sizeof *w.stamp_b));
    CK(cudaMalloc((void **)&w.qa0, n64 * sizeof *w.qa0));
    CK(cudaMalloc((void **)&w.qa1, n64 * sizeof *w.qa1));
    CK(cudaMalloc((void **)&w.qb0, n64 * sizeof *w.qb0));
    CK(cudaMalloc((void **)&w.qb1, n64 * sizeof *w.qb1));
    if (w.symmetric) {
        w.roff = dg->d_offsets;
        w.rsrc = dg->d_targets;
        sorted = 0;
        goto transposed;
    }
    CK(cudaMalloc((void **)&roff, (n64 + 1) * sizeof *roff));
    if (m)
        CK(cudaMalloc((void **)&rsrc, m * sizeof *rsrc));
    w.roff = roff;
    w.rsrc = rsrc;
    sorted = tu->transpose_sort != 0;
    if (m && tu->transpose_sort == 2) {
        /* auto: counting when >= 90 % of a sample of edges stay within
         * LOCAL_NEAR ids (or n / 256) of their source: the in-degree
         * atomics then hit a small window, while random targets make them
         * much slower than the sort */
        const uint32_t k = m < LOCAL_SAMPLE ? (uint32_t)m : LOCAL_SAMPLE;
        const uint64_t near = n64 / 256 > LOCAL_NEAR ? n64 / 256 : LOCAL_NEAR;
        unsigned long long hits = 0;
        CK(cudaMemset(w.cnt + CNT_TRIM, 0, sizeof hits));
        scc_locality<<<grid_for(k), SCC_BLOCK>>>(dg->d_offsets, dg->d_targets, n, m, k, near,
                                                w.cnt + CNT_TRIM);
        CK_LAUNCH();
        CK(cudaMemcpy(&hits, w.cnt + CNT_TRIM, sizeof hits, cudaMemcpyDeviceToHost));
        sorted = hits * 10 < (unsigned long long)k * 9;
    }
    st.transpose_sorted = sorted;
    if (m && !sorted) {
        /* counting: in-degrees (atomics), a scan, a scatter at per-target
         * cursors; in-list order is arbitrary (nothing depends on it) */
        uint64_t *deg = NULL;
        CK(cudaMalloc((void **)&deg, (n64 + 1) * sizeof *deg));
        CK(cudaMemset(deg, 0, (n64 + 1) * sizeof *deg));
        scc_in_degrees<<<grid_for(m), SCC_BLOCK>>>(dg->d_targets, m, deg);
        CK_LAUNCH();
        CK(cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, deg, roff, (int64_t)n64 + 1));
        CK(cudaMalloc(&temp, temp_bytes));
        CK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, deg, roff, (int64_t)n64 + 1));
        CK(cudaMemset(deg, 0, (n64 + 1) * sizeof *deg));
        scc_scatter_sources<<<gv, SCC_BLOCK>>>(n, dg->d_offsets, dg->d_targets, roff, deg, rsrc);
        CK_LAUNCH();
        cudaError_t e1 = cudaFree(temp), e2 = cudaFree(deg);
        temp = NULL;
        CK(e1);
        CK(e2);
    } else if (m) {
        int bits = 1;
        while (bits < 32 && ((uint64_t)1 << bits) < n64)
            bits++;
        CK(cudaMalloc((void **)&keys, m * sizeof *keys));
        CK(cudaMalloc((void **)&src, m * sizeof *src));
        scc_edge_sources<<<gv, SCC_BLOCK>>>(dg->d_offsets, n, src);
        CK_LAUNCH();
        CK(cub::DeviceRadixSort::SortPairs(NULL, temp_bytes, dg->d_targets, keys, src, rsrc,
                                           (int64_t)m, 0, bits));
        CK(cudaMalloc(&temp, temp_bytes));
        CK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dg->d_targets, keys, src, rsrc,
                                           (int64_t)m, 0, bits));
        CK(cudaFree(temp));
        temp = NULL;
        CK(cudaFree(src));
        src = NULL;
    }
    if (!m || sorted) {
        scc_offsets_from_keys<<<grid_for(m + 1), SCC_BLOCK>>>(keys, m, n, roff);
        CK_LAUNCH();
        CK(cudaFree(keys));
        keys = NULL;
    }
transposed:
    if (tu->segment_degree && m && tu->trim_min_share) {
        /* the sweeps are the layout's only user: both layouts or neither */
        rc = seg_build(&w, 0, w.off, w.tgt, tu->segment_degree, err);
        if (rc == WX_OK)
            rc = seg_build(&w, 1, w.roff, w.rsrc, tu->segment_degree, err);
        if (rc != WX_OK)
            goto out;
        if (!w.bseg.d)
            w.fseg.d = 0;
    }
    CK(cudaMemset(d_comp, 0xff, n64 * sizeof *d_comp));
    CK(cudaMemset(w.reg, 0, n64 * sizeof *w.reg));
    CK(cudaMemset(w.stamp_a, 0, n64 * sizeof *w.stamp_a));
    CK(cudaMemset(w.stamp_b, 0, n64 * sizeof *w.stamp_b));
    CK(cudaDeviceSynchronize());
    t = now_ms();
    st.transpose_ms = t - t0;

    /* 2-3. trim, one pivot search, multi-source rounds, then trim and
     * colour rounds; the CPU takes the residue when forced or when the GPU
     * phases outlast the budget (w.aborted) */
    {
        uint64_t live = n64;
        double ta = now_ms();
        rc = trim_phase(&w, &live, &st, tu, err);
        if (rc != WX_OK)
            goto out;
        w.all_live = 0;
        double tb = now_ms();
        st.trim_ms += tb - ta;
        if (live > 0 && tu->residue == 2) {
            st.residue_reason = 2;
            rc = cpu_residue(&w, &live, &st, err);
            if (rc != WX_OK)
                goto out;
        }
        arm_budget(&w, live, tu);
        if (live > 0 && tu->pivot) {
            rc = pivot_phase(&w, &live, &st, err);
            if (rc != WX_OK)
                goto out;
        }
        st.pivot_ms = now_ms() - tb;
        st.pivot_levels = w.levels;
        int dir = tu->colour_dir == 1 || tu->colour_dir == 3;
        uint32_t nreg = tu->pivot ? 4 : 1; /* regions are dense below nreg */
        const uint32_t fb_max = w.coop ? tu->fb_rounds : 0;
        while (live > 0 && !w.aborted) {
            uint32_t levels0 = w.levels, r = st.rounds + st.fb_rounds;
            if (r < SCC_GPU_ROUND_INFO)
                st.round_live[r] = live;
            arm_budget(&w, live, tu);
            ta = now_ms();
            rc = trim_phase(&w, &live, &st, tu, err);
            if (rc != WX_OK)
                goto out;
            tb = now_ms();
            st.trim_ms += tb - ta;
            if (live == 0 || w.aborted)
                break;
            /* multi-source rounds first: after a colour round the regions
             * are colours, no longer dense */
            const int fb = st.rounds == 0 && st.fb_rounds < fb_max && 3ull * nreg + 3 <= UINT32_MAX;
            if (fb)
                rc = fb_round(&w, &nreg, &live, &st, err);
            else
                rc = colour_round(&w, dir, &live, err);
            if (rc != WX_OK)
                goto out;
            double tc = now_ms();
            if (fb) {
                st.fb_ms += tc - ta;
            } else {
                st.rounds++;
                st.colour_ms += tc - tb;
                if (tu->colour_dir < 2)
                    dir = !dir;
            }
            if (r < SCC_GPU_ROUND_INFO) {
                st.round_levels[r] = w.levels - levels0;
                st.round_ms[r] = tc - ta;
            }
        }
        if (w.aborted && live > 0) {
            st.residue_reason = 1;
            rc = cpu_residue(&w, &live, &st, err);
            if (rc != WX_OK)
                goto out;
        }
        st.levels = w.levels;
    }
decomposed:
    t = now_ms();

    /* 4. canonical ids: minv in col, first flags in reach, positions in reg */
    {
        uint32_t *minv = w.col, *first = w.reach, *pos = (uint32_t *)w.reg;
        CK(cudaMemset(minv, 0xff, n64 * sizeof *minv));
        scc_min_member<<<gv, SCC_BLOCK>>>(n, d_comp, minv);
        CK_LAUNCH();
        scc_first_flags<<<gv, SCC_BLOCK>>>(n, d_comp, minv, first);
        CK_LAUNCH();
        temp_bytes = 0;
        CK(cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, first, pos, (int64_t)n));
        CK(cudaMalloc(&temp, temp_bytes));
        CK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, first, pos, (int64_t)n));
        CK(cudaFree(temp));
        temp = NULL;
        uint32_t last[2];
        CK(cudaMemcpy(&last[0], pos + n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&last[1], first + n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
        out->n_sccs = (uint64_t)last[0] + last[1];
        scc_canon<<<gv, SCC_BLOCK>>>(n, d_comp, minv, pos);
        CK_LAUNCH();
        CK(cudaDeviceSynchronize());
    }
    st.relabel_ms = now_ms() - t;
    t = now_ms();

    /* 5. counts: size in col, flags in reach.  One SCC of two or more
     * vertices needs no pass over the edges: it is non-trivial whatever its
     * self-loops, and no edge can leave it (tori, most state spaces) */
    if (out->n_sccs == 1 && n64 >= 2) {
        out->n_trivial = 0;
        out->n_in_nontrivial = n64;
        out->largest = n64;
        out->n_bottom = 1;
        out->n_bottom_trivial = 0;
    } else {
        uint32_t *size = w.col, *flags = w.reach;
        unsigned long long *sum = w.cnt + CNT_SUM;
        CK(cudaMemset(size, 0, out->n_sccs * sizeof *size));
        CK(cudaMemset(flags, 0, out->n_sccs * sizeof *flags));
        CK(cudaMemset(sum, 0, SUM_N * sizeof *sum));
        scc_comp_stats<<<gv, SCC_BLOCK>>>(n, dg->d_offsets, dg->d_targets, d_comp, size, flags);
        CK_LAUNCH();
        scc_summary<<<grid_for(out->n_sccs), SCC_BLOCK>>>((uint32_t)out->n_sccs, size, flags, sum);
        CK_LAUNCH();
        CK(cudaMemcpy(h_sum, sum, SUM_N * sizeof *sum, cudaMemcpyDeviceToHost));
        out->n_trivial = h_sum[SUM_TRIVIAL];
        out->n_in_nontrivial = h_sum[SUM_NONTRIV_V];
        out->largest = h_sum[SUM_LARGEST];
        out->n_bottom = h_sum[SUM_BOTTOM];
        out->n_bottom_trivial = h_sum[SUM_BOTTOM_TRIV];
    }
    st.stats_ms = now_ms() - t;
    st.total_ms = now_ms() - t0;

out:
    cudaFree(temp);
    cudaFree(keys);
    cudaFree(src);
    cudaFree(roff);
    cudaFree(rsrc);
    cudaFree(w.reg);
    cudaFree(w.col);
    cudaFree(w.reach);
    cudaFree(w.stamp_a);
    cudaFree(w.stamp_b);
    cudaFree(w.qa0);
    cudaFree(w.qa1);
    cudaFree(w.qb0);
    cudaFree(w.qb1);
    cudaFree(w.cnt);
    cudaFree(w.fb_best);
    cudaFree(w.fb_mark);
    cudaFree(w.fb_pos);
    cudaFree(w.fb_temp);
    for (int k = 0; k < 2; k++) {
        cudaFree(w.seg_base[k]);
        cudaFree(w.seg_adj[k]);
    }
    if (rc != WX_OK) {
        memset(out, 0, sizeof *out);
        cudaGetLastError(); /* leave no stale launch error behind */
    } else if (st_out) {
        *st_out = st;
    }
    return rc;
}

extern "C" int scc_gpu_ids_new(uint64_t n, uint32_t **d_comp, struct wx_error *err)
{
    int rc = WX_OK;
    *d_comp = NULL;
    CK(cudaMalloc((void **)d_comp, (n ? n : 1) * sizeof **d_comp));
out:
    return rc;
}

extern "C" int scc_gpu_ids_download(const uint32_t *d_comp, uint64_t n, uint32_t *host,
                                    struct wx_error *err)
{
    int rc = WX_OK;
    if (n)
        CK(cudaMemcpy(host, d_comp, n * sizeof *host, cudaMemcpyDeviceToHost));
out:
    return rc;
}

extern "C" void scc_gpu_ids_free(uint32_t *d_comp)
{
    cudaFree(d_comp);
}

extern "C" int scc_gpu(const struct csr *g, struct scc_result *out, struct wx_error *err)
{
    int rc = WX_OK;
    struct scc_gpu_graph dg;
    uint32_t *d_comp = NULL;
    memset(&dg, 0, sizeof dg);
    memset(out, 0, sizeof *out);
    out->n_vertices = g->n_vertices;
    if (!scc_gpu_available())
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "GPU SCC: no usable CUDA device (compute capability >= 9.0); use --backend cpu");
    if (g->n_vertices == 0)
        return WX_OK;
    rc = scc_gpu_upload(g, &dg, err);
    if (rc != WX_OK)
        return rc;
    rc = scc_gpu_ids_new(g->n_vertices, &d_comp, err);
    if (rc != WX_OK)
        goto out;
    rc = scc_gpu_device(&dg, d_comp, out, NULL, err);
    if (rc != WX_OK)
        goto out;
    out->comp = (uint32_t *)malloc(g->n_vertices * sizeof *out->comp);
    if (!out->comp) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory for %llu component ids",
                     (unsigned long long)g->n_vertices);
        goto out;
    }
    CK(cudaMemcpy(out->comp, d_comp, g->n_vertices * sizeof *out->comp, cudaMemcpyDeviceToHost));
out:
    cudaFree(d_comp);
    scc_gpu_graph_free(&dg);
    if (rc != WX_OK) {
        free(out->comp);
        memset(out, 0, sizeof *out);
    }
    return rc;
}
