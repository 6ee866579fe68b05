/*
 * policy.cu -- certified policy iteration on the GPU (analysis/valiter.h,
 * VI_POLICY), steps 2-4 of the contract; solve.cu runs steps 1 and 5 (the
 * sweeps) and calls these in between.
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
 * Measurements of the phases: bench/history/valiter.md.
 *
 * Determinism: the bounds are deterministic (every reduction has a fixed
 * order); they differ from the CPU twin's only in the order of the
 * additions inside dot products.
 */
#include <cooperative_groups.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "vi_int.cuh"

namespace cg = cooperative_groups;

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
static __global__ void __launch_bounds__(VI_GPU_PI_THREADS)
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
static __global__ void __launch_bounds__(VI_GPU_PI_THREADS)
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
static __global__ void __launch_bounds__(VI_GPU_PI_THREADS)
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
    __shared__ double sh[VI_GPU_PI_THREADS / 32][3];
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
        for (unsigned k = 0; k < VI_GPU_PI_THREADS / 32; k++)
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
    __shared__ double sg[3][VI_GPU_PI_THREADS / 32];
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
        for (unsigned w = 0; w < VI_GPU_PI_THREADS / 32; w++)
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
static __global__ void __launch_bounds__(VI_GPU_PI_THREADS)
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
    FILE *trace;      /* par->gpu.pi_trace: per-phase device times (NULL: none) */
};

/* One launch of a grid-stride policy kernel over the states. */
#define PI_GRID(n) vx_blocks(n), VI_GPU_PI_THREADS

static int vx_pi_sync(struct vx_pi *P, struct wx_error *err)
{
    int rc = WX_OK;
    CUDA_CHECK(cudaMemcpy(P->hpc, P->pc, sizeof(vx_pictl), cudaMemcpyDeviceToHost));
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
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)fn, dim3(P->kblocks), dim3(VI_GPU_PI_THREADS), args, 0, 0));
    CUDA_CHECK_LAUNCH("vx_bicg");
    if ((rc = vx_pi_sync(P, err)))
        goto out;
    st->products += P->hpc->kproducts;
    *ok = P->hpc->kstatus == 1;
    if (P->trace)
        fprintf(P->trace, "pi: bicgstab %s: %u iterations, %llu products, %.3f ms (%d blocks)\n",
                c ? "x" : "w", P->hpc->kiters, (unsigned long long)P->hpc->kproducts, (vx_now() - t0) * 1e3,
                P->kblocks);
out:
    return rc;
}

#define PI_CLEAR(field)                                                                            \
    CUDA_CHECK(cudaMemset((char *)P->pc + offsetof(vx_pictl, field), 0, sizeof(((vx_pictl *)0)->field)))

/* Steps 2-4 of the contract on the device, from the lower and upper
 * bounds in dlo / dhi (which the certificate's proved halves tighten).
 * *certified = 1: dlo / dhi are the answer; 0: step 5 must finish.
 * *sweeps counts the whole-operator applications (greedy policies, the
 * certificate). */
int vx_policy(struct vx_pi *P, const struct vi_params *par, double *dlo, double *dhi, ull *sweeps,
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
    CUDA_CHECK_LAUNCH("vx_pi_greedy");
    ++*sweeps;
    rows<<<PI_GRID(n)>>>(P->q, P->sig, P->row, P->bsig);
    CUDA_CHECK_LAUNCH("vx_pi_rows");
    CUDA_CHECK(cudaMemcpyAsync(P->x, dlo, n * sizeof(double), cudaMemcpyDeviceToDevice));
    for (int round = 1; round <= rounds; round++) {
        if ((rc = vx_pi_krylov(P, P->bsig, P->x, VI_PI_TOL, st, &ok, err)) || !ok)
            goto out; /* a breakdown or no convergence: step 5 */
        st->policy_rounds++;
        PI_CLEAR(count);
        greedy<<<PI_GRID(n)>>>(P->q, P->x, 1, par->epsilon, P->sig, &P->pc->count);
        CUDA_CHECK_LAUNCH("vx_pi_greedy");
        ++*sweeps;
        if ((rc = vx_pi_sync(P, err)))
            goto out;
        if (P->trace)
            fprintf(P->trace, "pi: round %d: %llu improvable states\n", round, (unsigned long long)P->hpc->count);
        if (!P->hpc->count)
            break;
        rows<<<PI_GRID(n)>>>(P->q, P->sig, P->row, P->bsig);
        CUDA_CHECK_LAUNCH("vx_pi_rows");
    }
    if (P->trace)
        fprintf(P->trace, "pi: policy rounds %.3f ms\n", (vx_now() - t0) * 1e3), t0 = vx_now();

    /* step 3: w, the largest expected time over the near-tied choices N(s);
     * each round's solve starts from the last w (the first from 1), and a
     * failed solve after the first leaves the last round's w */
    {
        void (*wswitch)(vx_pis, const double *, const double *, double, uint32_t *, unsigned long long *,
                        unsigned *) = P->pk ? (P->mx ? vx_pi_wswitch<true, true> : vx_pi_wswitch<true, false>)
                                            : (P->mx ? vx_pi_wswitch<false, true> : vx_pi_wswitch<false, false>);
        CUDA_CHECK(cudaMemcpyAsync(P->tau, P->sig, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
        rows<<<PI_GRID(n)>>>(P->q, P->tau, P->row, NULL);
        CUDA_CHECK_LAUNCH("vx_pi_rows");
        vx_fill<<<PI_GRID(n)>>>(P->w, n, 1.0);
        CUDA_CHECK_LAUNCH("vx_fill");
        for (int wr = 1; wr <= VI_PI_W_ROUNDS; wr++) {
            if (wr > 1)
                CUDA_CHECK(cudaMemcpyAsync(P->wb, P->w, n * sizeof(double), cudaMemcpyDeviceToDevice));
            if ((rc = vx_pi_krylov(P, NULL, P->w, VI_PI_W_TOL, st, &ok, err)))
                goto out;
            if (!ok) {
                if (wr == 1)
                    goto out; /* step 5 */
                CUDA_CHECK(cudaMemcpyAsync(P->w, P->wb, n * sizeof(double), cudaMemcpyDeviceToDevice));
                break;
            }
            PI_CLEAR(count);
            PI_CLEAR(bad);
            wswitch<<<PI_GRID(n)>>>(P->q, P->x, P->w, gamma, P->tau, &P->pc->count, P->pc->bad);
            CUDA_CHECK_LAUNCH("vx_pi_wswitch");
            if ((rc = vx_pi_sync(P, err)))
                goto out;
            if (P->trace)
                fprintf(P->trace, "pi: w round %d: %llu switches%s\n", wr, (unsigned long long)P->hpc->count,
                        P->hpc->bad[0] ? ", a w not finite or not positive" : "");
            if (P->hpc->bad[0])
                goto out; /* step 5 */
            if (!P->hpc->count)
                break;
            rows<<<PI_GRID(n)>>>(P->q, P->tau, P->row, NULL);
            CUDA_CHECK_LAUNCH("vx_pi_rows");
        }
        PI_CLEAR(wmax_bits);
        PI_CLEAR(bad);
        vx_maxgap<<<PI_GRID(n)>>>(NULL, P->w, 1, n, &P->pc->wmax_bits);
        CUDA_CHECK_LAUNCH("vx_maxgap (w)");
        if ((rc = vx_pi_sync(P, err)))
            goto out;
        memcpy(&wmax, &P->hpc->wmax_bits, sizeof wmax);
    }
    if (P->trace)
        fprintf(P->trace, "pi: w rounds %.3f ms, max w %.6g\n", (vx_now() - t0) * 1e3, wmax), t0 = vx_now();

    /* step 4: the certificate (l in r, u in p0, F(l) in v0, F(u) in v1) */
    {
        void (*cert)(vx_pis, const double *, const double *, double *, double *, unsigned *) =
            P->pk ? (P->mx ? vx_pi_cert<true, true> : vx_pi_cert<true, false>)
                  : (P->mx ? vx_pi_cert<false, true> : vx_pi_cert<false, false>);
        delta = par->epsilon / (2 * wmax);
        vx_pi_bounds<<<PI_GRID(n)>>>(P->x, P->w, delta, n, P->r, P->p0);
        CUDA_CHECK_LAUNCH("vx_pi_bounds");
        cert<<<PI_GRID(n)>>>(P->q, P->r, P->p0, P->v0, P->v1, P->pc->bad);
        CUDA_CHECK_LAUNCH("vx_pi_cert");
        ++*sweeps;
        if ((rc = vx_pi_sync(P, err)))
            goto out;
        const int okl = !P->hpc->bad[1], oku = !P->hpc->bad[2];
        vx_pi_apply<<<PI_GRID(n)>>>(P->v0, P->v1, okl, oku, n, par->epsilon, dlo, dhi, P->pc->bad);
        CUDA_CHECK_LAUNCH("vx_pi_apply");
        if ((rc = vx_pi_sync(P, err)))
            goto out;
        *certified = okl && oku && !P->hpc->bad[3];
        if (P->trace)
            fprintf(P->trace, "pi: certificate %.3f ms: delta %.3g, F(l) >= l %s, F(u) <= u %s, gap %s\n",
                    (vx_now() - t0) * 1e3, delta, okl ? "holds" : "fails", oku ? "holds" : "fails",
                    P->hpc->bad[3] ? "too wide" : "ok");
    }
out:
    return rc;
}

/* Can the policy steps run on this device (cooperative launch)? */
int vx_pi_possible(const struct vi_system *sys)
{
    int dev = 0, coop = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return coop && sys->n_choices <= 0xfffffffeull && sys->n_entries <= 0xfffffffeull;
}

/* The policy steps' device state (vi_int.cuh). */
int vx_pi_setup(struct vx_pi **PP, struct vx_mem *m, const struct vi_system *sys, const vx_sys *sy, int packed,
                const struct vi_params *par, struct wx_error *err)
{
    int rc = WX_OK;
    const ull n = sys->n_states, nc = sys->n_choices, ne = sys->n_entries;
    void *p_;
    int dev = 0, sms = 0, per_sm = 0;
    struct vx_pi *P = *PP = (struct vx_pi *)calloc(1, sizeof *P);
    if (!P)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (policy iteration)");
    P->pk = packed, P->mx = par->maximize;
    P->trace = par->gpu.pi_trace;
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
        vx_pi_expand<<<vx_blocks(sy->ntiles * 32), VI_GPU_THREADS>>>(sy->trec, sy->ntiles, sy->psst, sy->pcho, n, nc, ne,
                                                                 (uint32_t *)P->q.ss32, (uint32_t *)P->q.cs32);
        CUDA_CHECK_LAUNCH("vx_pi_expand");
    } else {
        P->q.tg = sy->tg, P->q.pr = sy->pr, P->q.b = sy->b;
        P->q.ss32 = sy->ss32, P->q.cs32 = sy->cs32;
        for (int k = 0; k < 2; k++) {
            const ull len = k ? nc + 1 : n + 1;
            if (k ? P->q.cs32 : P->q.ss32)
                continue;
            if ((rc = vx_alloc(m, &p_, len * sizeof(uint32_t), "offsets (32-bit)", err)) ||
                (rc = vx_narrow_copy(k ? sy->cs : sy->ss, len, (uint32_t *)p_, err)))
                goto out;
            if (k)
                P->q.cs32 = (const uint32_t *)p_;
            else
                P->q.ss32 = (const uint32_t *)p_;
        }
    }
    {
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, packed ? vx_bicg<true> : vx_bicg<false>,
                                                          VI_GPU_PI_THREADS, 0));
        /* par->gpu.pi_blocks: at most that many blocks per SM (measurements) */
        const int cap = par->gpu.pi_blocks;
        if (cap > 0 && cap < per_sm)
            per_sm = cap;
        if (per_sm < 1) {
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "policy iteration: the BiCGSTAB kernel cannot be launched");
            goto out;
        }
        const ull need = (n + VI_GPU_PI_THREADS - 1) / VI_GPU_PI_THREADS, most = (ull)sms * (ull)per_sm;
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
        CUDA_CHECK(cudaMemset(P->pc, 0, sizeof(vx_pictl)));
    }
    if (!P->hpc)
        CUDA_CHECK(cudaHostAlloc((void **)&P->hpc, sizeof(vx_pictl), cudaHostAllocDefault));
out:
    return rc;
}

void vx_pi_free(struct vx_pi *P)
{
    if (P && P->hpc)
        cudaFreeHost(P->hpc);
    free(P);
}

/* *gap = the largest hi - lo of the sweeps' buffer buf. */
int vx_pi_gap(struct vx_pi *P, const struct vx_sweeper *sw, ull n, int buf, double *gap, struct wx_error *err)
{
    int rc = WX_OK;
    const double *l = sw->x2[0] ? sw->x2[buf] : sw->dlo[buf], *h = sw->x2[0] ? sw->x2[buf] + 1 : sw->dhi[buf];
    PI_CLEAR(gmax_bits);
    vx_maxgap<<<PI_GRID(n)>>>(l, h, sw->x2[0] ? 2 : 1, n, &P->pc->gmax_bits);
    CUDA_CHECK_LAUNCH("vx_maxgap");
    if ((rc = vx_pi_sync(P, err)))
        goto out;
    memcpy(gap, &P->hpc->gmax_bits, sizeof *gap);
out:
    return rc;
}
