/*
 * scc.cu -- strongly connected components on the GPU: the twin of
 * analysis/scc.c (same struct scc_result, same canonical numbering).
 *
 * PIPELINE (scc_gpu_device):
 *   1. transpose: in-edges by a CUB radix sort of (target, source) pairs;
 *      in-offsets from the sorted keys (no atomics).
 *   2. trim: a live vertex without a live in- or out-neighbour (other than
 *      itself) in its own region is a singleton SCC.  Sweeps are repeated
 *      while they remove a noticeable share of the live vertices
 *      (TRIM_MIN_SHARE): trimming peels DAG-like parts one layer per sweep,
 *      and colouring finishes what remains in few rounds anyway.
 *   3. colour: every live vertex v gets fw[v] = the largest id that reaches
 *      v and bw[v] = the largest id v reaches, both within v's region, by
 *      in-place (Gauss-Seidel) pull sweeps over the in- and out-edges,
 *      alternating the vertex order so that chains propagate in either
 *      direction; until a sweep changes nothing.  Then fw[v] == bw[v] == c
 *      means c reaches v and v reaches c: v belongs to c's SCC, of which c
 *      is the largest vertex.  Every other live vertex moves to the region
 *      keyed by the pair (fw, bw): members of one SCC share both values, so
 *      no SCC crosses regions, and the pair is unique to its old region
 *      (fw[v] lies in v's old region).  Each round finishes at least the
 *      SCC of the largest vertex of every region, so it terminates.
 *      Rounds alternate with trimming.
 *   4. relabel: the representative of a component (its vertex found in 3,
 *      or the trimmed vertex) maps to its smallest member (warp-aggregated
 *      atomicMin), a CUB exclusive scan over "v is its component's smallest
 *      member" numbers the components canonically (analysis/scc.h).
 *   5. counts: sizes and "edge leaves" / "self-loop" flags per component
 *      (warp-aggregated atomics), then one reduction over the components.
 *
 * DETERMINISM: the partition and the canonical ids are deterministic; the
 * number of sweeps may vary from run to run (in-place updates race, below).
 *
 * BENIGN RACES (global memory only; no shared memory is used):
 *   - trim: rep[] is written by its owner while neighbours read it.  A
 *     neighbour seen as already trimmed is a singleton SCC, hence not in
 *     v's SCC, so ignoring it is right; seen as live, it only delays v.
 *   - colour: fw[v]/bw[v] are written only by v's thread and only grow,
 *     and every value ever stored is the id of a vertex that reaches v (fw)
 *     or that v reaches (bw) inside the region.  A stale read is a smaller
 *     such value, so the fixpoint is unchanged; a sweep in which no value
 *     changed read only final values, so its fixpoint test is exact.
 *   - the changed flags are written with the same value by many threads.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "../analysis/scc.h"
#include "scc_gpu.h"
}

#define SCC_UNSET 0xffffffffu
#define SCC_BLOCK 256
#define FULL_MASK 0xffffffffu

/* Tunables (why: see the pipeline comment). */
#define TRIM_MIN_SHARE 64     /* keep trimming while a sweep removes >= live/64 */
#define TRIM_MAX_SWEEPS 64    /* per round */
#define SWEEP_BATCH_MAX 8     /* colour sweeps launched between host checks */

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

/* ---- trimming ---- */

/* One trim sweep; *count += vertices trimmed.  rep[v] == SCC_UNSET marks a
 * live vertex; a trimmed vertex is its own representative. */
__global__ void scc_trim(uint32_t n, const uint64_t *off, const uint32_t *tgt, const uint64_t *roff,
                         const uint32_t *rsrc, uint32_t *rep, const uint64_t *reg,
                         unsigned long long *count)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool trimmed = false;
    if (v < n && rep[v] == SCC_UNSET) {
        uint64_t r = reg[v];
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

/* ---- colouring ---- */

__global__ void scc_colour_init(uint32_t n, const uint32_t *rep, uint32_t *fw, uint32_t *bw)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && rep[v] == SCC_UNSET)
        fw[v] = bw[v] = (uint32_t)v;
}

/* One in-place pull sweep (see BENIGN RACES); reverse = visit vertices in
 * decreasing id order.  *changed = 1 when any value grew. */
__global__ void scc_colour_sweep(uint32_t n, const uint64_t *off, const uint32_t *tgt,
                                 const uint64_t *roff, const uint32_t *rsrc, const uint32_t *rep,
                                 const uint64_t *reg, uint32_t *fw, uint32_t *bw, int reverse,
                                 unsigned *changed)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t v = reverse ? (uint32_t)(n - 1 - i) : (uint32_t)i;
    if (rep[v] != SCC_UNSET)
        return;
    uint64_t r = reg[v];
    uint32_t f0 = fw[v], b0 = bw[v], f = f0, b = b0;
    for (uint64_t e = roff[v]; e < roff[v + 1]; e++) {
        uint32_t u = rsrc[e];
        if (rep[u] == SCC_UNSET && reg[u] == r)
            f = max(f, fw[u]);
    }
    for (uint64_t e = off[v]; e < off[v + 1]; e++) {
        uint32_t w = tgt[e];
        if (rep[w] == SCC_UNSET && reg[w] == r)
            b = max(b, bw[w]);
    }
    if (f != f0)
        fw[v] = f;
    if (b != b0)
        bw[v] = b;
    if (f != f0 || b != b0)
        *changed = 1;
}

/* fw == bw: v joins the SCC of vertex fw; else v moves to region (fw, bw).
 * *live += vertices still live afterwards. */
__global__ void scc_colour_finish(uint32_t n, uint32_t *rep, uint64_t *reg, const uint32_t *fw,
                                  const uint32_t *bw, unsigned long long *live)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool still = false;
    if (v < n && rep[v] == SCC_UNSET) {
        uint32_t f = fw[v], b = bw[v];
        if (f == b) {
            rep[v] = f;
        } else {
            reg[v] = (uint64_t)f << 32 | b;
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
    if (v < n)
        for (uint64_t e = off[v]; e < off[v + 1]; e++) {
            uint32_t w = tgt[e];
            if (comp[w] != c)
                lf |= CF_LEAVES;
            else if (w == v)
                lf |= CF_SELF;
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

extern "C" int scc_gpu_device(const struct scc_gpu_graph *dg, uint32_t *d_comp,
                              struct scc_result *out, struct scc_gpu_stats *st_out,
                              struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = dg->n_vertices, m = dg->n_edges;
    struct scc_gpu_stats st;
    memset(&st, 0, sizeof st);
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

    uint64_t *roff = NULL, *reg = NULL;
    uint32_t *rsrc = NULL, *fw = NULL, *bw = NULL, *keys = NULL, *src = NULL;
    unsigned long long *cnt = NULL; /* [0] trim count, [1] live count, [2..] summary */
    unsigned *changed = NULL;
    void *temp = NULL;
    size_t temp_bytes = 0;
    unsigned long long h_cnt[2 + SUM_N];
    unsigned h_changed[SWEEP_BATCH_MAX];
    double t0 = now_ms(), t;

    CK(cudaMalloc((void **)&roff, (n64 + 1) * sizeof *roff));
    CK(cudaMalloc((void **)&reg, n64 * sizeof *reg));
    CK(cudaMalloc((void **)&fw, n64 * sizeof *fw));
    CK(cudaMalloc((void **)&bw, n64 * sizeof *bw));
    CK(cudaMalloc((void **)&cnt, sizeof h_cnt));
    CK(cudaMalloc((void **)&changed, sizeof h_changed));
    if (m)
        CK(cudaMalloc((void **)&rsrc, m * sizeof *rsrc));

    /* 1. transpose */
    if (m) {
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
    scc_offsets_from_keys<<<grid_for(m + 1), SCC_BLOCK>>>(keys, m, n, roff);
    CK_LAUNCH();
    CK(cudaFree(keys));
    keys = NULL;
    CK(cudaMemset(d_comp, 0xff, n64 * sizeof *d_comp));
    CK(cudaMemset(reg, 0, n64 * sizeof *reg));
    CK(cudaDeviceSynchronize());
    t = now_ms();
    st.transpose_ms = t - t0;

    /* 2-3. trim and colour rounds */
    {
        uint64_t live = n64;
        uint32_t batch = 2, sweep_no = 0;
        while (live > 0) {
            double ta = now_ms();
            for (uint32_t s = 0; s < TRIM_MAX_SWEEPS && live > 0; s++) {
                CK(cudaMemset(cnt, 0, sizeof(unsigned long long)));
                scc_trim<<<gv, SCC_BLOCK>>>(n, dg->d_offsets, dg->d_targets, roff, rsrc, d_comp,
                                            reg, cnt);
                CK_LAUNCH();
                CK(cudaMemcpy(h_cnt, cnt, sizeof(unsigned long long), cudaMemcpyDeviceToHost));
                st.trim_sweeps++;
                st.trimmed += h_cnt[0];
                live -= h_cnt[0];
                if (h_cnt[0] == 0 || h_cnt[0] * TRIM_MIN_SHARE < live)
                    break;
            }
            double tb = now_ms();
            st.trim_ms += tb - ta;
            if (live == 0)
                break;
            scc_colour_init<<<gv, SCC_BLOCK>>>(n, d_comp, fw, bw);
            CK_LAUNCH();
            for (;;) {
                CK(cudaMemset(changed, 0, batch * sizeof *changed));
                for (uint32_t k = 0; k < batch; k++, sweep_no++) {
                    scc_colour_sweep<<<gv, SCC_BLOCK>>>(n, dg->d_offsets, dg->d_targets, roff, rsrc,
                                                        d_comp, reg, fw, bw, (int)(sweep_no & 1),
                                                        changed + k);
                    CK_LAUNCH();
                }
                st.colour_sweeps += batch;
                CK(cudaMemcpy(h_changed, changed, batch * sizeof *changed, cudaMemcpyDeviceToHost));
                int settled = 0;
                for (uint32_t k = 0; k < batch; k++)
                    settled |= h_changed[k] == 0;
                if (settled)
                    break;
                if (batch < SWEEP_BATCH_MAX)
                    batch *= 2;
            }
            CK(cudaMemset(cnt + 1, 0, sizeof(unsigned long long)));
            scc_colour_finish<<<gv, SCC_BLOCK>>>(n, d_comp, reg, fw, bw, cnt + 1);
            CK_LAUNCH();
            CK(cudaMemcpy(h_cnt + 1, cnt + 1, sizeof(unsigned long long), cudaMemcpyDeviceToHost));
            if (h_cnt[1] >= live) {
                rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                             "GPU SCC: internal error: a colouring round finished no vertex "
                             "(%llu live)", (unsigned long long)live);
                goto out;
            }
            live = h_cnt[1];
            st.rounds++;
            st.colour_ms += now_ms() - tb;
        }
    }
    t = now_ms();

    /* 4. canonical ids: minv in fw, first flags in bw, positions in reg */
    {
        uint32_t *minv = fw, *first = bw, *pos = (uint32_t *)reg;
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

    /* 5. counts: size in fw, flags in bw */
    {
        uint32_t *size = fw, *flags = bw;
        unsigned long long *sum = cnt + 2;
        CK(cudaMemset(size, 0, out->n_sccs * sizeof *size));
        CK(cudaMemset(flags, 0, out->n_sccs * sizeof *flags));
        CK(cudaMemset(sum, 0, SUM_N * sizeof *sum));
        scc_comp_stats<<<gv, SCC_BLOCK>>>(n, dg->d_offsets, dg->d_targets, d_comp, size, flags);
        CK_LAUNCH();
        scc_summary<<<grid_for(out->n_sccs), SCC_BLOCK>>>((uint32_t)out->n_sccs, size, flags, sum);
        CK_LAUNCH();
        CK(cudaMemcpy(h_cnt + 2, sum, SUM_N * sizeof *sum, cudaMemcpyDeviceToHost));
        out->n_trivial = h_cnt[2 + SUM_TRIVIAL];
        out->n_in_nontrivial = h_cnt[2 + SUM_NONTRIV_V];
        out->largest = h_cnt[2 + SUM_LARGEST];
        out->n_bottom = h_cnt[2 + SUM_BOTTOM];
        out->n_bottom_trivial = h_cnt[2 + SUM_BOTTOM_TRIV];
    }
    st.stats_ms = now_ms() - t;
    st.total_ms = now_ms() - t0;

out:
    cudaFree(temp);
    cudaFree(keys);
    cudaFree(src);
    cudaFree(roff);
    cudaFree(reg);
    cudaFree(fw);
    cudaFree(bw);
    cudaFree(rsrc);
    cudaFree(cnt);
    cudaFree(changed);
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
