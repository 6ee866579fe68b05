/*
 * ovi.cu -- valiter_solve_ovi_gpu: optimistic value iteration on the GPU
 * (analysis/valiter.h, OPTIMISTIC VALUE ITERATION: the algorithm and why
 * its bounds are sound; the CPU twin is analysis/valiter_ovi.c).
 *
 * The system goes up once as for interval iteration (solve.cu's steps 1
 * and 2: the kind, packed or raw, tiles), and the two phases run the
 * kind's own sweep kernels (sweep_kernels.cuh) with flags in their `rel`
 * argument (vi_int.cuh):
 *   iteration     plain sweeps of lo with VX_CLAMP: lo = max(lo, F(lo)),
 *                 VX_VIOL where the change exceeds err (the plain-VI rule);
 *   verification  interval sweeps of (lo, u) with VX_VERIFY: lo = max(lo,
 *                 F(lo)), u = min(u, F(u)), VX_VIOL where F(u) > u, VX_CROSS
 *                 where F(u) < the new lo; the sweeps stop after the first
 *                 sweep without VX_VIOL (u is a pre-fixpoint) or with
 *                 VX_CROSS (vx_halt).
 * Between the phases small kernels move lo between the plain vector and
 * the kind's interval layout ((lo, u) pairs, or two vectors), make the
 * guess, and after a verified guess lower hi and test the stopping rule
 * (a flag, or at the watched states only).  The sweep budget, the halving
 * of err and the order of the decisions are valiter_ovi.c's.
 *
 * Rounding: the sweeps are interval iteration's (each bound rounded as
 * there), the guess lo + epsilon (relative: lo + epsilon lo) is rounded
 * with __dmul_rn / __dadd_rn as the CPU rounds it, so with Jacobi kinds
 * the bounds, sweep counts and guesses equal the CPU twin's Jacobi OVI bit
 * for bit.  In-place kinds (VI_GAUSS_SEIDEL) are sound (valiter.h's
 * argument for in-place verification) but, as for interval iteration,
 * neither bit-identical nor deterministic.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vi_int.cuh"

/* The guess u = min(hb, lo + epsilon), relative: lo + epsilon lo where
 * lo > 0 (valiter_ovi.c's ovi_guess), into the pairs x2 = (lo, u) or u. */
static __global__ void vx_ovi_guess(const double *__restrict__ lo, const double *__restrict__ hb, ull n,
                                    double eps, int rel, double2 *x2, double *u)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x) {
        const double l = lo[s], h = hb[s];
        const double d = (rel & VX_REL) && l > 0 ? __dmul_rn(eps, l) : eps;
        const double g = __dadd_rn(l, d), v = g < h ? g : h;
        if (x2)
            x2[s] = make_double2(l, v);
        else
            u[s] = v;
    }
}

/* After verification sweeps: lo into the plain vector (from the pairs
 * x2, else it is there already); when down (F(u) <= u held), hb = min(hb,
 * u) and, with all, bad[0] = 1 where (lo, hb) break the stopping rule. */
static __global__ void vx_ovi_take(const double2 *__restrict__ x2, const double *__restrict__ u, double *lo,
                                   double *hb, ull n, int down, int all, double eps, int rel, unsigned *bad)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x) {
        double l, v;
        if (x2) {
            const double2 p = x2[s];
            l = p.x, v = p.y;
            lo[s] = l;
        } else {
            l = lo[s], v = u[s];
        }
        if (!down)
            continue;
        const double h0 = hb[s], h = v < h0 ? v : h0;
        hb[s] = h;
        const double g = h - l;
        if (all && (((rel & VX_REL) && l > 0) ? !(g <= eps * l) : !(g <= eps)))
            bad[0] = 1; /* benign: every writer stores 1 */
    }
}

/* bad[0] = 1 where a watched state's (lo, hb) breaks the stopping rule. */
static __global__ void vx_ovi_watched(const double *__restrict__ lo, const double *__restrict__ hb,
                                      const uint32_t *__restrict__ watch, ull nw, double eps, int rel, unsigned *bad)
{
    for (ull i = blockIdx.x * (ull)blockDim.x + threadIdx.x; i < nw; i += (ull)gridDim.x * blockDim.x) {
        const uint32_t s = watch[i];
        const double l = lo[s], g = hb[s] - l;
        if (((rel & VX_REL) && l > 0) ? !(g <= eps * l) : !(g <= eps))
            bad[0] = 1;
    }
}

/* One optimistic solve's device state: the plain lower vectors lo[2], the
 * interval layout (pairs x2[2], or lo[2] with u[2]), the upper bound
 * proved so far (hb) and the sweepers of the two phases. */
struct vx_ovi {
    struct vx_solve *S;
    struct vx_sweeper pl, iv; /* iteration (plain) and verification (interval) sweeps */
    double *lo[2], *u[2], *x2[2], *hb;
    unsigned *bad;
    const uint32_t *watch;
    ull used, max, guesses, timed;
    float ms;
};

/* The sweepers read buffers 0 and 1 as the solve holds them now. */
static void ovi_bind(struct vx_ovi *O)
{
    for (int i = 0; i < 2; i++) {
        O->pl.dlo[i] = O->lo[i], O->pl.x2[i] = NULL, O->pl.dhi[i] = NULL;
        O->iv.dlo[i] = O->lo[i], O->iv.dhi[i] = O->u[i], O->iv.x2[i] = O->x2[i];
    }
}

static void ovi_swap(double **p)
{
    double *t = p[0];
    p[0] = p[1], p[1] = t;
}

/* Up to cap sweeps of sw from buffer 0; the last iterate then in buffer 0
 * (Jacobi buffers are symmetric: the pointers are swapped). */
static int ovi_run(struct vx_ovi *O, struct vx_sweeper *sw, ull cap, int *halted, struct wx_error *err)
{
    ull d = 0;
    float ms = 0;
    ovi_bind(O);
    int rc = vx_sweeps(sw, cap, &d, halted, &ms, err);
    if (rc)
        return rc;
    O->used += d, O->timed += d, O->ms += ms;
    if (!sw->inpl && (d & 1)) {
        if (sw == &O->pl)
            ovi_swap(O->lo);
        else if (O->x2[0])
            ovi_swap(O->x2);
        else
            ovi_swap(O->lo), ovi_swap(O->u);
    }
    return WX_OK;
}

/* Steps 2 and 3 of a round: the guess and its verification sweeps; *done
 * when a guess was verified and the stopping rule holds. */
static int ovi_verify(struct vx_ovi *O, int *done, struct wx_error *err)
{
    int rc = WX_OK, halted = 0;
    const struct vi_params *par = O->S->par;
    const ull n = O->S->n;
    const int rel = par->relative ? VX_REL : 0;
    unsigned hbad = 0;
    ull budget = O->used * VI_OVI_VERIFY_FACTOR;
    budget = budget > VI_OVI_VERIFY_MIN ? budget : VI_OVI_VERIFY_MIN;
    budget = budget < O->max - O->used ? budget : O->max - O->used;
    *done = 0;
    vx_ovi_guess<<<vx_blocks(n), VI_GPU_THREADS>>>(O->lo[0], O->hb, n, par->epsilon, rel, (double2 *)O->x2[0],
                                                   O->u[0]);
    CUDA_CHECK_LAUNCH("vx_ovi_guess");
    O->guesses++;
    if (!budget) /* the sweeps ran out with the lower-bound phase (lo is in lo[0]) */
        goto out;
    O->iv.eps = par->epsilon, O->iv.rel = rel | VX_VERIFY;
    if ((rc = ovi_run(O, &O->iv, budget, &halted, err)))
        goto out;
    {
        const int down = halted && !(O->iv.flags & VX_VIOL);
        CUDA_CHECK(cudaMemset(O->bad, 0, sizeof(unsigned)));
        vx_ovi_take<<<vx_blocks(n), VI_GPU_THREADS>>>((const double2 *)O->x2[0], O->u[0], O->lo[0], O->hb, n, down,
                                                      O->watch == NULL, par->epsilon, rel, O->bad);
        CUDA_CHECK_LAUNCH("vx_ovi_take");
        if (!down)
            goto out;
        if (O->watch) {
            vx_ovi_watched<<<vx_blocks(par->n_watch), VI_GPU_THREADS>>>(O->lo[0], O->hb, O->watch, par->n_watch,
                                                                        par->epsilon, rel, O->bad);
            CUDA_CHECK_LAUNCH("vx_ovi_watched");
        }
        CUDA_CHECK(cudaMemcpy(&hbad, O->bad, sizeof hbad, cudaMemcpyDeviceToHost));
        *done = !hbad;
    }
out:
    return rc;
}

/* The rounds until the rule holds (*ok = 1) or the sweeps run out. */
static int ovi_rounds(struct vx_ovi *O, int *ok, struct wx_error *err)
{
    int rc = WX_OK, halted = 0;
    const struct vi_params *par = O->S->par;
    const int rel = par->relative ? VX_REL : 0;
    double e = par->epsilon;
    *ok = 0;
    while (O->used < O->max) {
        /* iteration: the lower bound alone until it moves by e at most */
        O->pl.eps = e, O->pl.rel = rel | VX_CLAMP;
        if ((rc = ovi_run(O, &O->pl, O->max - O->used, &halted, err)) || !halted)
            return rc;
        if ((rc = ovi_verify(O, ok, err)) || *ok)
            return rc;
        e /= 2;
    }
    return WX_OK;
}

/* The stopping rule at every state, or at every watched one (host). */
static int ovi_done_host(const struct vi_params *par, ull n, const double *lo, const double *hi)
{
    const ull m = par->n_watch ? par->n_watch : n;
    for (ull i = 0; i < m; i++) {
        const ull s = par->n_watch ? par->watch[i] : i;
        const double g = hi[s] - lo[s];
        if (!((par->relative && lo[s] > 0) ? g <= par->epsilon * lo[s] : g <= par->epsilon))
            return 0;
    }
    return 1;
}

/* The buffers beyond solve.cu's: a second plain lo where the kind's
 * interval layout has none, the proved upper bound, the flag, the watch
 * list; the sweepers of both phases. */
static int ovi_setup(struct vx_ovi *O, struct vx_sweeper *sw, struct wx_error *err)
{
    int rc = WX_OK;
    struct vx_solve *S = O->S;
    const struct vi_params *par = S->par;
    const ull n = S->n;
    O->lo[0] = S->dlo[0], O->lo[1] = S->dlo[1];
    O->x2[0] = S->x2[0], O->x2[1] = S->x2[1];
    O->u[0] = S->dhi[0], O->u[1] = S->dhi[1];
    if (!O->lo[1] && !S->inpl)
        VX_AL(&S->mem, O->lo[1], n * sizeof(double), "lower values");
    VX_AL(&S->mem, O->hb, n * sizeof(double), "upper values (proved)");
    VX_AL(&S->mem, O->bad, sizeof(unsigned), "stopping flag");
    CUDA_CHECK(cudaMemcpy(O->hb, S->dhi[0], n * sizeof(double), cudaMemcpyDeviceToDevice));
    if (par->n_watch) {
        void *dw = NULL;
        VX_UP(&S->mem, dw, par->watch, par->n_watch * sizeof *par->watch, "watched states");
        O->watch = (const uint32_t *)dw;
    }
    O->iv = *sw;
    O->pl = *sw;
    O->pl.iv = 0;
    if ((rc = vx_grid_of(S, &O->pl, 0, err)))
        goto out;
    O->pl.pers = S->pers;
out:
    return rc;
}

extern "C" int valiter_solve_ovi_gpu(const struct vi_system *sys, const struct vi_params *par, double *lo,
                                     double *hi, struct vi_stats *stats, struct wx_error *err)
{
    const double t0 = vx_now();
    int rc = WX_OK, ok = 1;
    struct vx_solve S;
    struct vx_sweeper sw;
    struct vx_ovi O;
    memset(&S, 0, sizeof S);
    memset(&sw, 0, sizeof sw);
    memset(&O, 0, sizeof O);
    S.sys = sys, S.par = par, S.iv = 1, S.ovi = 1;
    S.n = sys->n_states, S.nc = sys->n_choices, S.ne = sys->n_entries;
    S.st.bytes_per_sweep = 8 * (S.n + 1) + 8 * (S.nc + 1) + 8 * S.nc + 12 * S.ne + 2 * 16 * S.n;
    if (!hi)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "optimistic value iteration needs an upper-bound vector");
    if ((rc = vx_solve_check(sys, par, err)) || S.n == 0 || ovi_done_host(par, S.n, lo, hi)) {
        if (!rc && stats)
            *stats = S.st;
        return rc;
    }
    O.S = &S, O.max = par->max_iterations;
    if ((rc = vx_solve_begin(&S, &sw, lo, hi, err)) || (rc = ovi_setup(&O, &sw, err)) ||
        (rc = ovi_rounds(&O, &ok, err)))
        goto out;
    CUDA_CHECK(cudaMemcpy(lo, O.lo[0], S.n * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hi, O.hb, S.n * sizeof(double), cudaMemcpyDeviceToHost));
    if (!ok)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "value iteration did not converge after %llu sweeps (epsilon %g%s)",
                     (unsigned long long)O.used, par->epsilon, par->relative ? ", relative" : "");
out:
    S.st.iterations = O.used, S.st.guesses = O.guesses;
    S.st.sweep_seconds = O.timed ? (double)O.ms * 1e-3 / (double)O.timed : 0;
    vx_solve_end(&S);
    S.st.seconds = vx_now() - t0;
    if (stats)
        *stats = S.st;
    return rc;
}
