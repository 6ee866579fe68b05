/*
 * sweep_kernels.cuh -- the value-iteration sweep kernels (templates).
 *
 * One launch is one sweep (the persistent kernels: a chunk of sweeps) of
 * the whole system, Jacobi (x -> nx) or in place (x == nx), with the
 * convergence protocol of sweeps.cu (vx_stopped first, vx_sweep_done
 * last).  Every kernel works by TILES: one warp per tile of consecutive
 * states (a state's choices and entries are consecutive in memory, so a
 * warp streams one contiguous stretch of targets and probabilities with
 * coalesced loads, gathers x[t] for all of them at once and keeps the
 * products in shared memory; lane j then sums state j's choices).  A state
 * too big for a tile is a tile of its own, summed by the whole warp.
 *
 * Included by sweeps.cu (the kinds chosen automatically) and by
 * sweep_variants.cu (the measurement-only kinds): each instantiates its
 * own kinds, so no kernel is compiled twice.  Which kind runs: sweeps.cu.
 */
#ifndef WX_VI_SWEEP_KERNELS_CUH
#define WX_VI_SWEEP_KERNELS_CUH

#include <cooperative_groups.h>

#include "vi_dev.cuh"

namespace cg = cooperative_groups;

/* Sweep it (VI_KERNEL_TILES; MINB 6: VI_KERNEL_TILES_6B), one warp per tile of consecutive states (at most
 * VX_TILE_STATES states and VI_GPU_TILE_ENTRIES entries; a state with more
 * entries is a tile of its own).  The warp first streams the tile's entries
 * with fully coalesced loads (lane i takes entries i, i+32, ...), gathers
 * x[t] for all of them at once and keeps the products p * x[t] in shared
 * memory; then lane j sums state j's choices from shared memory in entry
 * order (b[c] + p0 x0 + p1 x1 + ..., as everywhere).  A single-state tile
 * too big for shared memory is summed by the warp with a shuffle chain. */
template <bool IV, bool MX, int MINB>
static __global__ void __launch_bounds__(VI_GPU_THREADS, MINB)
    vi_sweep_tiles(vx_sys sy, const double *__restrict__ lo, const double *__restrict__ hi, double *nlo,
                   double *nhi, vx_ctl *ctl, ull it, double eps, int rel)
{
    __shared__ double sl[VI_GPU_THREADS / 32][VI_GPU_TILE_ENTRIES];
    __shared__ double sh[IV ? VI_GPU_THREADS / 32 : 1][IV ? VI_GPU_TILE_ENTRIES : 1];
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
        if (ne <= VI_GPU_TILE_ENTRIES) {
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

/* Sweep it by tiles2 (VI_KERNEL_TILES2, in place VI_KERNEL_TILES2_INPLACE):
 * tiles as in vi_sweep_tiles (at
 * most VX_TILE_STATES states, VI_GPU_TILE_ENTRIES entries and VI_GPU_TILE_ENTRIES
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
 * The tiles and the sums of one tile: vx_tile2 (vi_dev.cuh).
 *
 * IN-PLACE SWEEPS (INPL, VI_KERNEL_TILES2_INPLACE; --solver gs with --backend gpu): x == nx,
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
template <bool IV, bool MX, bool EARLY, bool INPL>
static __global__ void __launch_bounds__(VI_GPU_THREADS, 4) /* <= 64 registers: 4 blocks (32 warps) per SM */
    vi_sweep_tiles2(vx_sys sy, const double *x, const double *__restrict__ unused_in,
                    double *nx, double *unused_out, vx_ctl *ctl, ull it, double eps, int rel)
{
    /* IV: pairs (lo, hi) of products, then of choice values; plain: lo only */
    __shared__ double sb[VI_GPU_THREADS / 32][VI_GPU_TILE_ENTRIES * (IV ? 2 : 1)];
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

/* TILES3 SWEEPS (VI_KERNEL_TILES3, the automatic choice for Jacobi sweeps
 * of systems that packing does not take): the tiles of vi_sweep_tiles2 (at
 * most VX_TILE_STATES states and VI_GPU_TILE_ENTRIES entries, but at most
 * VI_GPU_T3_CHOICES choices: the host builds them with that limit; a bigger
 * state is a tile of its own, vx_tile_big), its arrays (32-bit offsets,
 * (lo, hi) pairs), arithmetic and order, so values are bit-identical to the
 * CPU twin.  What differs is when the loads go out.  vi_sweep_tiles2's
 * code waits one memory round trip per round of 32 entries (its entry loop
 * has a data-dependent trip count, so ptxas cannot hoist a round's loads
 * above the previous round's exit test), one per round of choices after
 * the first and one for the old value at the end: about 9 chained round
 * trips per tile of ~180 entries, which 32 resident warps do not hide.
 * Here every load of the tile's system is issued at once, before the
 * gathers: the entries of all 8 rounds, the choice ends and constants of
 * all 4 rounds, the state ends -- unconditionally (a lane past the end
 * reads the last element again; predicated or branched loads are what
 * ptxas sinks next to their use, one round at a time), and a choice starts
 * where the previous lane's ends, a state likewise (shuffles: each offset
 * is read once).  The old value is loaded after phase (1), behind phases
 * (2) and (3).  That needs registers: 80 per thread (VI_GPU_T3_BLOCKS = 3
 * blocks, 24 warps per SM); the tile's gathers then go out in two batches
 * of four rounds.  The persistent form (VI_KERNEL_TILES3_PERSIST) is a
 * measurement-only variant (sweep_variants.cu).  Measurements:
 * bench/history/valiter.md. */
/* One tile (records ta, tb) by the whole warp, as vx_tile2: returns whether
 * a state of this lane violates the stopping rule. */
template <bool IV, bool MX, int XL>
static __device__ __forceinline__ int vx_tile3(const vx_sys &sy, uint4 ta, uint4 tb, const double *x, double *nx,
                                               double eps, int rel, double *sw, unsigned lane)
{
    constexpr int R = (int)(VI_GPU_TILE_ENTRIES / 32), RC = (int)(VI_GPU_T3_CHOICES / 32);
    const uint32_t s0 = ta.x, s1 = tb.x, c0 = ta.y, e0 = ta.z;
    const uint32_t nch = tb.y - ta.y, ne = tb.z - ta.z;
    if (ne > VI_GPU_TILE_ENTRIES || nch > VI_GPU_T3_CHOICES) /* one state */
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
static __global__ void __launch_bounds__(VI_GPU_THREADS, VI_GPU_T3_BLOCKS)
    vi_sweep_tiles3(vx_sys sy, const double *x, const double *__restrict__ unused_in, double *nx,
                    double *unused_out, vx_ctl *ctl, ull it, double eps, int rel)
{
    __shared__ __align__(16) double sb[VI_GPU_THREADS / 32][VI_GPU_TILE_ENTRIES * (IV ? 2 : 1)];
    (void)unused_in, (void)unused_out;
    if (vx_stopped(ctl, it))
        return;
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    const ull warp = (blockIdx.x * (ull)blockDim.x + threadIdx.x) >> 5;
    const ull nwarps = ((ull)gridDim.x * blockDim.x) >> 5;
    const int bad = vx_sweep3<IV, MX, VX_X_RO>(sy, x, nx, eps, rel, sb[w], lane, warp, nwarps);
    vx_sweep_done(ctl, it, bad);
}

/* PACKED SWEEPS (VI_KERNEL_PACKED_*, the automatic choice for in-place
 * sweeps and where persistent sweeps cannot run): the tiles of
 * vi_sweep_tiles2 over a compact copy of the system built on the host once
 * per solve (pack.cu), for systems with few distinct numbers, as the models
 * of PRISM-style languages have (consensus N=6 K=2: 2 probabilities, 3
 * constants):
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
 * previous lane's end by shuffles.  Conditions (else the unpacked sweeps
 * run, solve.cu): <= 256 distinct probabilities and constants, no state
 * with more than 255 entries or choices, n <= 2^pshift.  The two
 * dictionaries (<= VX_DICT doubles each, the exact values of the system)
 * are staged in shared memory per block.  A choice's start is the previous
 * choice's end (0 for a tile's first choice), likewise a state's.
 * Arithmetic, order and results are those of vi_sweep_tiles2 (the
 * dictionary returns the very doubles of the system): bit-identical to the
 * CPU twin.  ST: evict-first loads of the streamed arrays (used once per
 * sweep, they should not push the value vectors out of L2) or cached loads
 * (where the vectors do not fit in L2 anyway).  INPL: in-place sweeps as
 * VI_KERNEL_TILES2_INPLACE. */
/* Entry words of the tile [ta, tb): lane j gets words j, j+32, ... */
template <bool ST>
static __device__ __forceinline__ void vx_words(const vx_sys &sy, uint4 ta, uint4 tb, unsigned lane,
                                                uint32_t (&ew)[VI_GPU_TILE_ENTRIES / 32])
{
    const uint32_t ne = tb.z - ta.z;
#pragma unroll
    for (int r = 0; r < (int)(VI_GPU_TILE_ENTRIES / 32); r++) {
        const uint32_t j = lane + 32u * (uint32_t)r;
        ew[r] = j < ne ? vx_ld<ST>(sy.pent + ta.z + j) : 0u;
    }
}

/* PF: the entry words come in ewin (loaded one tile ahead by the caller). */
template <bool IV, bool MX, bool INPL, bool ST, bool PF>
static __device__ __forceinline__ int vx_tile_packed(const vx_sys &sy, uint4 ta, uint4 tb, const double *x,
                                                     double *nx, double eps, int rel, double *sw,
                                                     const double *pd, const double *bd, unsigned lane,
                                                     const uint32_t (&ewin)[VI_GPU_TILE_ENTRIES / 32])
{
    constexpr int R = (int)(VI_GPU_TILE_ENTRIES / 32); /* rounds of 32 entries or choices */
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

/* PF (VI_KERNEL_PACKED_AHEAD*, measurement only): the next tile's entry words are loaded while this
 * tile is processed (its records two tiles ahead), so a tile's gathers
 * start at once: one memory round trip per tile fewer, more registers. */
template <bool IV, bool MX, bool INPL, bool ST, bool PF>
static __global__ void __launch_bounds__(VI_GPU_THREADS, 4)
    vi_sweep_packed(vx_sys sy, const double *x, const double *__restrict__ unused_in, double *nx,
                    double *unused_out, vx_ctl *ctl, ull it, double eps, int rel)
{
    __shared__ double sb[VI_GPU_THREADS / 32][VI_GPU_TILE_ENTRIES * (IV ? 2 : 1)];
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
    uint32_t ew[VI_GPU_TILE_ENTRIES / 32];
    if (warp < sy.ntiles)
        ta = vx_ld<ST>(sy.trec + warp), tb = vx_ld<ST>(sy.trec + warp + 1);
    if (PF && warp + nwarps < sy.ntiles)
        na = vx_ld<ST>(sy.trec + warp + nwarps), nb = vx_ld<ST>(sy.trec + warp + nwarps + 1);
    if (PF && warp < sy.ntiles)
        vx_words<ST>(sy, ta, tb, lane, ew);
    for (ull k = warp; k < sy.ntiles; k += nwarps) { /* warp-uniform */
        const uint4 ca = ta, cb = tb;
        if (PF) {
            uint32_t cur[VI_GPU_TILE_ENTRIES / 32];
#pragma unroll
            for (int r = 0; r < (int)(VI_GPU_TILE_ENTRIES / 32); r++)
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

/* PERSISTENT packed sweeps (VI_KERNEL_PERSIST_*): one cooperative launch runs
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
 * read-only in the launch: VI_KERNEL_PERSIST_CACHED loads them cached (a system that fits
 * in L2 with the vectors stays there from sweep to sweep),
 * VI_KERNEL_PERSIST_EVICT
 * evict-first.  xa/xb: the vectors of odd/even sweeps' reads (x[0] and
 * x[1] of the host's double buffer: sweep it reads x[(it-1) & 1]). */
template <bool IV, bool MX, bool ST>
static __global__ void __launch_bounds__(VI_GPU_THREADS, 4)
    vi_sweep_persist(vx_sys sy, double *xa, double *xb, vx_ctl *ctl, ull it0, ull it1, double eps, int rel,
                     const uint32_t *watch, ull n_watch)
{
    __shared__ double sb[VI_GPU_THREADS / 32][VI_GPU_TILE_ENTRIES * (IV ? 2 : 1)];
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
    uint32_t ew[VI_GPU_TILE_ENTRIES / 32]; /* unused (no words ahead) */
#pragma unroll
    for (int r = 0; r < (int)(VI_GPU_TILE_ENTRIES / 32); r++)
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
        if (vx_persist_stop<IV>(ctl, it, nx, watch, n_watch, eps, rel) || it >= it1)
            return;
    }
}

#endif
