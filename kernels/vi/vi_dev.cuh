/*
 * vi_dev.cuh -- device helpers of the GPU value-iteration sweeps
 * (sweep_kernels.cuh, levels.cu): the convergence protocol's two steps,
 * the warp scratch of a tile, the stores with the stopping rule, and one
 * tile of the tiles2 sweep (also the level solve's).
 *
 * ARITHMETIC, everywhere: a choice's value is b[c] + p0*x0 + p1*x1 + ...
 * in entry order with separately rounded products and sums
 * (__dmul_rn/__dadd_rn: no fused multiply-add), exactly as the CPU twin
 * computes it, so the two agree bit for bit and take the same number of
 * sweeps; min/max are order-independent.  Interval iteration clamps as
 * the CPU twin does: lo never decreases, hi never increases.
 */
#ifndef WX_VI_DEV_CUH
#define WX_VI_DEV_CUH

#include <math.h>

#include "vi_int.cuh"

/* Called by every thread first: nonzero when this sweep must not run
 * because an earlier sweep converged.  All threads of the launch get the
 * same answer: viol[(it-1) % 3] is final (its sweep has finished) and
 * nobody writes it during this launch; done only goes 0 -> 1 in a launch
 * where every thread sees viol == 0. */
static __device__ __forceinline__ int vx_stopped(vx_ctl *ctl, ull it)
{
    if (*(volatile unsigned *)&ctl->done)
        return 1;
    if (it > 1 && vx_halt(*(volatile unsigned *)&ctl->viol[(it - 1) % 3])) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            ctl->done = 1;
            ctl->done_iter = it - 1;
        }
        return 1;
    }
    return 0;
}

/* After sweep it's grid barrier in a persistent launch (every thread):
 * whether the sweeps end with sweep it.  They do when it met the stopping
 * rule, or, for interval iteration with a watch list (n_watch watched
 * states, their (lo, hi) pairs in nx as sweep it wrote them), when every
 * watched state meets it: what vx_watch_check decides between launched
 * sweeps, so the sweep count stays the CPU twin's.  Every block reads only
 * what the barrier made visible and agrees; block 0 records done and
 * done_iter (and in the watch case clears the sweep's flag, as
 * vx_watch_check does; a block that reads the cleared flag stops too). */
template <bool IV>
static __device__ __forceinline__ int vx_persist_stop(vx_ctl *ctl, ull it, const double *nx,
                                                     const uint32_t *watch, ull n_watch, double eps, int rel)
{
    const int halted = __syncthreads_or(vx_halt(*(volatile unsigned *)&ctl->viol[it % 3]));
    int watched = 0;
    if (IV && !halted && n_watch) {
        int bad = 0;
        for (ull i = threadIdx.x; i < n_watch; i += blockDim.x) {
            const double2 v = __ldcg((const double2 *)nx + watch[i]);
            const double g = v.y - v.x;
            bad |= (rel && v.x > 0) ? !(g <= eps * v.x) : !(g <= eps);
        }
        watched = !__syncthreads_or(bad);
    }
    if ((halted || watched) && blockIdx.x == 0 && threadIdx.x == 0) {
        if (watched)
            ctl->viol[it % 3] = 0;
        ctl->done = 1;
        ctl->done_iter = it;
    }
    return halted || watched;
}

/* The end of sweep it, in every thread of the block: records whether any
 * thread violated the stopping rule (VX_VIOL in bad) or saw a guess cross
 * the lower bound (VX_CROSS: one atomic per warp that did), and block 0
 * clears the flags of sweep it + 1 (see the protocol above).  Contains a
 * block barrier. */
static __device__ __forceinline__ void vx_sweep_done(vx_ctl *ctl, ull it, int bad)
{
    if (__ballot_sync(VX_FULL, bad & VX_CROSS) && (threadIdx.x & 31u) == 0)
        atomicOr(&ctl->viol[it % 3], VX_CROSS);
    if (__syncthreads_or(bad & VX_VIOL) && threadIdx.x == 0)
        atomicOr(&ctl->viol[it % 3], VX_VIOL);
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

/* State s's new bounds from l = F(lo)(s), h = F(hi)(s) and the old ones
 * (ol, oh), and its flags (rel: VX_REL, VX_CLAMP, VX_VERIFY; the CPU
 * twins' rules, NaN counting as a violation).  Interval: lo never falls,
 * hi never rises; VX_VIOL when the gap breaks the stopping rule, or with
 * VX_VERIFY when h > oh (F(u) <= u fails at s), VX_CROSS when h < the new
 * lo (valiter_ovi.c's ovi_range).  Plain: VX_VIOL when the change breaks the
 * rule; VX_CLAMP keeps lo from falling first. */
template <bool IV>
static __device__ __forceinline__ int vx_verdict(double &l, double &h, double ol, double oh, double eps, int rel)
{
    if (IV) {
        l = l > ol ? l : ol;
        if (rel & VX_VERIFY) {
            const int f = (h <= oh ? 0 : (int)VX_VIOL) | (h < l ? (int)VX_CROSS : 0);
            h = h < oh ? h : oh;
            return f;
        }
        h = h < oh ? h : oh;
        const double g = h - l;
        return ((rel & VX_REL) && l > 0) ? !(g <= eps * l) : !(g <= eps);
    }
    if (rel & VX_CLAMP)
        l = l > ol ? l : ol;
    const double d = fabs(l - ol);
    return (rel & VX_REL) ? !(d <= eps * fabs(l)) : !(d <= eps);
}

/* Writes state s's new value(s) and returns its flags (vx_verdict). */
template <bool IV>
static __device__ __forceinline__ int vx_store(ull s, double l, double h, const double *__restrict__ lo,
                                               const double *__restrict__ hi, double *nlo, double *nhi,
                                               double eps, int rel)
{
    const int f = vx_verdict<IV>(l, h, lo[s], IV ? hi[s] : 0.0, eps, rel);
    nlo[s] = l;
    if (IV)
        nhi[s] = h;
    return f;
}

/* vx_store2 (below) with the old value(s) (ol, oh) given: the tiles3
 * sweeps load them early. */
template <bool IV>
static __device__ __forceinline__ int vx_fin(ull s, double l, double h, double ol, double oh, double *nx, double eps,
                                             int rel)
{
    const int f = vx_verdict<IV>(l, h, ol, oh, eps, rel);
    if (IV)
        reinterpret_cast<double2 *>(nx)[s] = make_double2(l, h);
    else
        nx[s] = l;
    return f;
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
        return vx_fin<IV>(s, l, h, o.x, o.y, nx, eps, rel);
    }
    return vx_fin<IV>(s, l, h, INPL ? __ldcg(x + s) : x[s], 0.0, nx, eps, rel);
}

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

/* One tile of vi_sweep_tiles2 and vi_sweep_levels (records ta, tb: its first state, choice and
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
    if (ne <= VI_GPU_TILE_ENTRIES && nch <= VI_GPU_TILE_ENTRIES) {
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
        double vl[VI_GPU_TILE_ENTRIES / 32], vh[VI_GPU_TILE_ENTRIES / 32];
#pragma unroll
        for (int r = 0; r < (int)(VI_GPU_TILE_ENTRIES / 32); r++) {
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
        for (int r = 0; r < (int)(VI_GPU_TILE_ENTRIES / 32); r++) {
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

#endif
