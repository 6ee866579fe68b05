/*
 * sweep_variants.cu -- sweep kinds kept for measurements only: never chosen
 * automatically, each selected only by a pin (valiter_gpu_set_kernel, or
 * par->gpu.kernel, which the CLI fills from WARPEX_VI_KERNEL=kind[,group]).
 * They give the same values as the automatic kinds (tests/gpu compares
 * them).  Whether each stays is to be decided by one measurement on the
 * device (bench/history/valiter.md has the earlier ones):
 *   VI_KERNEL_CHOICES (1)          G lanes per state over its choices
 *                                  (group G = 1, 2, 4, 8, 16 or 32)
 *   VI_KERNEL_ENTRIES (2)          G lanes per state over each choice's
 *                                  entries (G = 8 or 32)
 *   VI_KERNEL_TILES_6B (4)         the tiles kernel capped for 6 blocks per SM
 *   VI_KERNEL_TILES2 (5)           tiles2, Jacobi (the automatic in-place
 *                                  kind's Jacobi twin; tiles3 replaced it)
 *   VI_KERNEL_TILES2_LATE (6)      tiles2 without its early loads
 *   VI_KERNEL_PACKED_AHEAD (12)    packed, entry words a tile ahead
 *   VI_KERNEL_PACKED_AHEAD_INPLACE (13)  the same in place
 *   VI_KERNEL_TILES3_PERSIST (17)  tiles3, persistent
 * The kernels of 4, 5, 6, 12 and 13 are instantiations of the automatic
 * kinds' templates (sweep_kernels.cuh); 1, 2 and 17 are kernels of their
 * own, below.
 */
#include "sweep_kernels.cuh"

/* Sweep it: G lanes per state, lanes over the state's choices. */
template <int G, bool IV, bool MX>
static __global__ void __launch_bounds__(VI_GPU_THREADS)
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
static __global__ void __launch_bounds__(VI_GPU_THREADS)
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

/* Persistent tiles3 sweeps (VI_KERNEL_TILES3_PERSIST): vi_sweep_persist's protocol (sweeps
 * it0 .. it1 in one cooperative launch, a grid barrier after each, the grid
 * stopping at the first sweep that met the stopping rule) over vx_tile3.
 * The values are written by other SMs between sweeps of the launch, so
 * they are loaded through L2 (__ldcg), as in vi_sweep_persist. */
template <bool IV, bool MX>
static __global__ void __launch_bounds__(VI_GPU_THREADS, VI_GPU_T3_BLOCKS)
    vi_sweep_persist3(vx_sys sy, double *xa, double *xb, vx_ctl *ctl, ull it0, ull it1, double eps, int rel,
                      const uint32_t *watch, ull n_watch)
{
    __shared__ __align__(16) double sb[VI_GPU_THREADS / 32][VI_GPU_TILE_ENTRIES * (IV ? 2 : 1)];
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
        if (vx_persist_stop<IV>(ctl, it, nx, watch, n_watch, eps, rel) || it >= it1)
            return;
    }
}

template <bool IV, bool MX>
static vx_sweep_fn vx_variant2(int kind, int g)
{
    switch (kind) {
    case VI_KERNEL_TILES2: return vi_sweep_tiles2<IV, MX, true, false>;
    case VI_KERNEL_TILES2_LATE: return vi_sweep_tiles2<IV, MX, false, false>;
    case VI_KERNEL_PACKED_AHEAD: return vi_sweep_packed<IV, MX, false, true, true>;
    case VI_KERNEL_PACKED_AHEAD_INPLACE: return vi_sweep_packed<IV, MX, true, true, true>;
    case VI_KERNEL_TILES_6B: return vi_sweep_tiles<IV, MX, 6>; /* more resident warps, fewer registers */
    case VI_KERNEL_ENTRIES: return g == 8 ? vi_sweep_entries<8, IV, MX> : vi_sweep_entries<32, IV, MX>;
    default: break;
    }
    switch (g) { /* VI_KERNEL_CHOICES */
    case 1: return vi_sweep_choices<1, IV, MX>;
    case 2: return vi_sweep_choices<2, IV, MX>;
    case 4: return vi_sweep_choices<4, IV, MX>;
    case 8: return vi_sweep_choices<8, IV, MX>;
    case 16: return vi_sweep_choices<16, IV, MX>;
    default: return vi_sweep_choices<32, IV, MX>;
    }
}

vx_sweep_fn vx_pick_variant(int iv, int mx, int kind, int g)
{
    if (iv)
        return mx ? vx_variant2<true, true>(kind, g) : vx_variant2<true, false>(kind, g);
    return mx ? vx_variant2<false, true>(kind, g) : vx_variant2<false, false>(kind, g);
}

/* VI_KERNEL_TILES3_PERSIST, the one persistent variant. */
vx_persist_fn vx_pick_persist_variant(int iv, int mx, int kind)
{
    (void)kind;
    if (iv)
        return mx ? vi_sweep_persist3<true, true> : vi_sweep_persist3<true, false>;
    return mx ? vi_sweep_persist3<false, true> : vi_sweep_persist3<false, false>;
}
