/*
 * valiter_ovi.c -- optimistic value iteration on the CPU (valiter.h,
 * OPTIMISTIC VALUE ITERATION: the algorithm and why its bounds are sound).
 *
 * Sweeps are Jacobi (multi-threaded: each thread a fixed range of states
 * of about equal entry counts, new values into second buffers, so the
 * result does not depend on the number of threads) or, with
 * VI_GAUSS_SEIDEL, sequential and in place in state order.  Every sweep
 * rounds each bound exactly as interval iteration's sweep does
 * (valiter_int.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "valiter.h"
#include "valiter_int.h"
#include "../util/config.h"
#include "../util/pool.h"
#include "../util/timer.h"

struct ovi {
    const struct vi_system *sys;
    int mx, rel, jacobi;
    double err;            /* iteration phase: the change allowed per sweep  */
    double *lo[2], *u[2];  /* current = [cur]; Gauss-Seidel uses [0] only   */
    int cur;
    int verify;            /* 0: lower bound only; 1: lower bound and guess */
    uint64_t a, z;         /* the states swept: all, or one block (Gauss-Seidel) */
    uint64_t updates;      /* state updates so far (sweeps of blocks count their share) */
    const uint64_t *block_start; /* NULL, or the lower bound block by block */
    uint64_t n_blocks;
    struct wx_pool *pool;
    int chunks;
    uint64_t *range;       /* chunks + 1 state boundaries                  */
    uint8_t *ok, *down, *cross; /* per chunk, of the last sweep             */
    double dmax;           /* by blocks: the largest change of the last
                              lower-bound sweep (relative where rel)        */
};

/* States [a, z) of one sweep.  Lower bound: l = max(lo, F(lo)), ok while
 * every change is within err.  Verification: also F(u); down while F(u) <=
 * u (u is then a pre-fixpoint), cross once F(u) < l somewhere (u is below
 * the lower bound there: no upper bound); u = min(u, F(u)). */
static void ovi_range(struct ovi *o, uint64_t a, uint64_t z, int chunk)
{
    const struct vi_system *sys = o->sys;
    const int nxt = o->jacobi ? o->cur ^ 1 : o->cur;
    const double *lo = o->lo[o->cur], *u = o->u[o->cur];
    double *nlo = o->lo[nxt], *nu = o->u[nxt];
    int ok = 1, down = 1, cross = 0;
    double dmax = 0;
    for (uint64_t s = a; s < z; s++) {
        double l, h;
        if (o->verify) {
            state_update2(sys, s, lo, u, o->mx, &l, &h);
            l = l > lo[s] ? l : lo[s];
            down &= h <= u[s];
            cross |= h < l;
            nu[s] = h < u[s] ? h : u[s];
        } else {
            l = state_update(sys, s, lo, o->mx);
            l = l > lo[s] ? l : lo[s];
            ok &= change_ok(lo[s], l, o->err, o->rel);
            if (o->block_start) {
                const double d = o->rel && l > 0 ? (l - lo[s]) / l : l - lo[s];
                dmax = d > dmax ? d : dmax;
            }
        }
        nlo[s] = l;
    }
    if (o->block_start)
        o->dmax = dmax;
    o->ok[chunk] = (uint8_t)ok;
    o->down[chunk] = (uint8_t)down;
    o->cross[chunk] = (uint8_t)cross;
}

static void ovi_chunk(void *arg, uint64_t i0, uint64_t i1, int chunk)
{
    struct ovi *o = arg;
    (void)chunk;
    for (uint64_t i = i0; i < i1; i++)
        ovi_range(o, o->range[i], o->range[i + 1], (int)i);
}

/* One sweep; *ok, *down, *cross over all states. */
static void ovi_sweep(struct ovi *o, int verify, int *ok, int *down, int *cross)
{
    o->verify = verify;
    if (o->jacobi) {
        wx_pool_for(o->pool, (uint64_t)o->chunks, o->chunks, ovi_chunk, o);
        o->cur ^= 1;
    } else {
        ovi_range(o, o->a, o->z, 0);
    }
    o->updates += o->z - o->a;
    *ok = *down = 1;
    *cross = 0;
    for (int i = 0; i < (o->jacobi ? o->chunks : 1); i++) {
        *ok &= o->ok[i];
        *down &= o->down[i];
        *cross |= o->cross[i];
    }
}

/* The stopping rule at every state, or at every watched one. */
static int ovi_done(const struct vi_params *par, uint64_t n, const double *lo, const double *hi)
{
    if (par->n_watch) {
        for (uint64_t i = 0; i < par->n_watch; i++)
            if (!gap_ok(lo[par->watch[i]], hi[par->watch[i]], par->epsilon, par->relative))
                return 0;
        return 1;
    }
    for (uint64_t s = 0; s < n; s++)
        if (!gap_ok(lo[s], hi[s], par->epsilon, par->relative))
            return 0;
    return 1;
}

/* The guess: u = lo + epsilon (relative: lo (1 + epsilon) where lo > 0), at
 * most the upper bound known. */
static void ovi_guess(const struct vi_params *par, uint64_t n, const double *lo, const double *hi,
                      double *u)
{
    for (uint64_t s = 0; s < n; s++) {
        double d = par->relative && lo[s] > 0 ? par->epsilon * lo[s] : par->epsilon;
        double g = lo[s] + d;
        u[s] = g < hi[s] ? g : hi[s];
    }
}

static int ovi_alloc(struct ovi *o, const struct vi_params *par, double *lo)
{
    const struct vi_system *sys = o->sys;
    uint64_t n = sys->n_states;
    int want = o->jacobi ? valiter_threads(sys, par) : 1;
    o->lo[0] = lo;
    o->u[0] = malloc(n * sizeof(double));
    if (o->jacobi) {
        o->lo[1] = malloc(n * sizeof(double));
        o->u[1] = malloc(n * sizeof(double));
        o->pool = want > 1 ? wx_pool_new(want) : NULL;
        o->chunks = want > 1 && o->pool ? wx_pool_size(o->pool) : 1;
    } else {
        o->chunks = 1;
    }
    o->range = malloc(((size_t)o->chunks + 1) * sizeof *o->range);
    o->ok = malloc((size_t)o->chunks * 3);
    if (!o->u[0] || (o->jacobi && (!o->lo[1] || !o->u[1])) || !o->range || !o->ok ||
        (want > 1 && !o->pool))
        return 0;
    o->down = o->ok + o->chunks;
    o->cross = o->down + o->chunks;
    /* split by work: entries plus one per state, so empty rows count */
    uint64_t total = sys->n_entries + n, t = 0;
    o->range[0] = 0;
    for (int i = 1; i < o->chunks; i++) {
        uint64_t goal = total / (uint64_t)o->chunks * (uint64_t)i;
        while (t < n && sys->choice_start[sys->state_start[t]] + t < goal)
            t++;
        o->range[i] = t;
    }
    o->range[o->chunks] = n;
    return 1;
}

static void ovi_free(struct ovi *o)
{
    free(o->u[0]), free(o->lo[1]), free(o->u[1]), free(o->range), free(o->ok);
    wx_pool_free(o->pool);
}

/* A block of one state without a self-loop: one update settles it. */
static int acyclic_single(const struct vi_system *sys, uint64_t s)
{
    for (uint64_t c = sys->state_start[s]; c < sys->state_start[s + 1]; c++)
        for (uint64_t e = sys->choice_start[c]; e < sys->choice_start[c + 1]; e++)
            if (sys->targets[e] == s)
                return 0;
    return 1;
}

/* Has a block's lower bound settled: changes d after prev, within err, and
 * the distance left to the fixpoint, estimated from the contraction rho =
 * d / prev as d rho / (1 - rho), within VI_OVI_SETTLED_MARGIN err (a block that converges
 * slowly moves little per sweep while still far from its values, and a
 * guess above such a lower bound fails)?  Only a heuristic for when to
 * guess: soundness rests on the verification. */
static int settled_est(double d, double prev, double err)
{
    if (d <= err * VI_OVI_SETTLED_FLOOR)
        return 1;
    double rho = prev > 0 ? d / prev : 1;
    return rho < 1 && d * rho <= VI_OVI_SETTLED_MARGIN * err * (1 - rho);
}

/* The iteration phase: sweeps of the lower bound alone until none moves it
 * by more than err -- over all states, or block by block in the
 * topological order (each block until its own sweeps settle: the blocks
 * below it are settled already).  1 when it settled within the budget. */
static int ovi_lower(struct ovi *o, uint64_t max)
{
    const uint64_t n = o->sys->n_states;
    int ok, down, cross;
    if (!o->block_start) {
        do
            ovi_sweep(o, 0, &ok, &down, &cross);
        while (!ok && o->updates / n < max);
        return ok;
    }
    for (uint64_t k = 0; k < o->n_blocks; k++) {
        o->a = o->block_start[k], o->z = o->block_start[k + 1];
        const int single = o->z - o->a == 1 && acyclic_single(o->sys, o->a);
        double prev = HUGE_VAL;
        int settled = single;
        do {
            ovi_sweep(o, 0, &ok, &down, &cross);
            settled = single || (ok && settled_est(o->dmax, prev, o->err));
            prev = o->dmax;
        } while (!settled && o->updates / n < max);
        if (!settled)
            return 0;
    }
    o->a = 0, o->z = n;
    return 1;
}

/* The rounds of iteration and verification until the rule holds; returns
 * 1 when it does, 0 when the sweep budget ran out.  *guesses counts;
 * sweeps are counted as o->updates over the number of states. */
static int ovi_rounds(struct ovi *o, const struct vi_params *par, double *hi, uint64_t *guesses)
{
    const uint64_t n = o->sys->n_states, max = par->max_iterations;
    int ok, down, cross;
    o->err = par->epsilon;
    while (o->updates / n < max) {
        if (!ovi_lower(o, max))
            return 0;
        /* verification phase, over all states */
        ovi_guess(par, n, o->lo[o->cur], hi, o->u[o->cur]);
        ++*guesses;
        uint64_t budget = o->updates / n * VI_OVI_VERIFY_FACTOR;
        budget = budget > VI_OVI_VERIFY_MIN ? budget : VI_OVI_VERIFY_MIN;
        for (uint64_t j = 0; j < budget && o->updates / n < max; j++) {
            ovi_sweep(o, 1, &ok, &down, &cross);
            if (down) { /* F(u) <= u: u and F(u) are upper bounds */
                const double *u = o->u[o->cur];
                for (uint64_t s = 0; s < n; s++)
                    hi[s] = u[s] < hi[s] ? u[s] : hi[s];
                if (ovi_done(par, n, o->lo[o->cur], hi))
                    return 1;
                break;
            }
            if (cross)
                break;
        }
        o->err /= 2;
    }
    return 0;
}

static int solve_ovi(const struct vi_system *sys, const struct vi_params *par,
                     const uint64_t *block_start, uint64_t n_blocks, double *lo, double *hi,
                     struct vi_stats *stats, struct wx_error *err)
{
    double t0 = wx_now();
    const uint64_t n = sys->n_states;
    struct vi_stats st = {0};
    st.bytes_per_sweep = vi_sweep_bytes(sys, 2);
    int rc = vi_check_args(par, hi, "optimistic value iteration", err);
    if (rc != WX_OK)
        return rc;
    int converged = 1;
    if (n && !ovi_done(par, n, lo, hi)) {
        struct ovi o = {.sys = sys, .mx = par->maximize, .rel = par->relative,
                        .jacobi = par->method != VI_GAUSS_SEIDEL && !block_start, .z = n,
                        .block_start = block_start, .n_blocks = n_blocks};
        if (!ovi_alloc(&o, par, lo)) {
            ovi_free(&o);
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value iteration)");
        }
        converged = ovi_rounds(&o, par, hi, &st.guesses);
        st.iterations = (o.updates + n - 1) / n;
        if (o.cur) /* the last sweep wrote buffer 1 */
            memcpy(lo, o.lo[1], n * sizeof(double));
        ovi_free(&o);
    }
    return vi_finish(&st, t0, converged, par, stats, err);
}

int valiter_solve_ovi_cpu(const struct vi_system *sys, const struct vi_params *par, double *lo,
                          double *hi, struct vi_stats *stats, struct wx_error *err)
{
    return solve_ovi(sys, par, NULL, 0, lo, hi, stats, err);
}

int valiter_solve_ovi_blocks_cpu(const struct vi_system *sys, const struct vi_params *par,
                                 const uint64_t *block_start, uint64_t n_blocks, double *lo,
                                 double *hi, struct vi_stats *stats, struct wx_error *err)
{
    return solve_ovi(sys, par, block_start, n_blocks, lo, hi, stats, err);
}
