/*
 * valiter_svi.c -- sound value iteration on the CPU (valiter.h, SOUND
 * VALUE ITERATION: the algorithm and why its bounds are sound).
 *
 * Sweeps are Jacobi (multi-threaded: each thread a fixed range of states
 * of about equal entry counts, new pairs into second buffers; the
 * per-range results are minima and maxima, which do not depend on how the
 * states are split, so neither does the result) or, with VI_GAUSS_SEIDEL,
 * sequential and in place in state order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "valiter.h"
#include "valiter_int.h"
#include "../util/pool.h"
#include "../util/timer.h"

/* What one range of states found in a sweep. */
struct svi_part {
    double rmin, rmax;   /* x / (1 - y) over the range's states          */
    double d;            /* the decision value's contribution            */
    int below1;          /* every y < 1                                  */
    double *scratch;     /* 2 x the most choices of a state: (x, y) each */
};

struct svi {
    const struct vi_system *sys;
    int mx, jacobi;
    double w;              /* the weight of this sweep's decisions          */
    int winf;              /* w is infinite                                */
    double d;              /* the decision value before this sweep         */
    double *x[2], *y[2];   /* current = [cur]; Gauss-Seidel uses [0] only  */
    int cur;
    struct wx_pool *pool;
    int chunks;
    uint64_t *range;       /* chunks + 1 state boundaries                  */
    struct svi_part *part; /* per chunk                                    */
};

/* Is (xa, ya) a better decision than (xb, yb) at an infinite weight w?
 * The value x + w y orders by y first (w > 0: larger; w < 0: smaller),
 * then by x (max: larger; min: smaller). */
static inline int svi_better_inf(int mx, double w, double xa, double ya, double xb, double yb)
{
    if (ya != yb)
        return (w > 0) ? ya > yb : ya < yb;
    return mx ? xa > xb : xa < xb;
}

/* State s: the pair of its best choice at weight o->w into (*xo, *yo): the
 * best value x + w y (max: largest; min: smallest), on a tie the smaller
 * y -- the choice it beats then has a larger y and stays worse at every
 * weight on the safe side.  The weights at which another choice would
 * overtake it go into *d. */
static inline void svi_state(const struct svi *o, uint64_t s, const double *x, const double *y,
                             double *sc, double *xo, double *yo, double *d)
{
    const struct vi_system *sys = o->sys;
    const uint64_t c0 = sys->state_start[s], nc = sys->state_start[s + 1] - c0;
    const double w = o->w, sg = o->mx ? 1 : -1;
    double bx = 0, by = 0, bv = 0;
    uint64_t best = 0;
    for (uint64_t i = 0; i < nc; i++) {
        const uint64_t c = c0 + i;
        double xc = sys->b[c], yc = 0;
        for (uint64_t e = sys->choice_start[c]; e < sys->choice_start[c + 1]; e++) {
            double p = sys->probs[e];
            uint32_t t = sys->targets[e];
            xc += p * x[t];
            yc += p * y[t];
        }
        sc[2 * i] = xc;
        sc[2 * i + 1] = yc;
        const double v = sg * (xc + w * yc);
        const int better = i == 0 ? 1
                           : o->winf ? svi_better_inf(o->mx, w, xc, yc, bx, by)
                                     : v > bv || (v == bv && yc < by);
        if (better)
            bx = xc, by = yc, bv = v, best = i;
    }
    for (uint64_t i = 0; i < nc && nc > 1; i++) {
        const double num = sc[2 * i] - bx, den = by - sc[2 * i + 1];
        /* a choice with a smaller y overtakes below (max) or above (min)
         * num / den; the products spare the division where d stays */
        if (i != best && den > 0 && (o->mx ? num > *d * den : num < *d * den))
            *d = num / den;
    }
    *xo = bx;
    *yo = by;
}

/* One sweep of states [a, z) into part. */
static void svi_range(struct svi *o, uint64_t a, uint64_t z, struct svi_part *part)
{
    const int nxt = o->jacobi ? o->cur ^ 1 : o->cur;
    const double *x = o->x[o->cur], *y = o->y[o->cur];
    double *nx = o->x[nxt], *ny = o->y[nxt];
    double rmin = INFINITY, rmax = -INFINITY, d = o->d;
    int below1 = 1;
    for (uint64_t s = a; s < z; s++) {
        double xs, ys;
        svi_state(o, s, x, y, part->scratch, &xs, &ys, &d);
        nx[s] = xs;
        ny[s] = ys;
        if (ys < 1) {
            double r = xs / (1 - ys);
            rmin = r < rmin ? r : rmin;
            rmax = r > rmax ? r : rmax;
        } else {
            below1 = 0;
        }
    }
    part->rmin = rmin;
    part->rmax = rmax;
    part->d = d;
    part->below1 = below1;
}

static void svi_chunk(void *arg, uint64_t i0, uint64_t i1, int chunk)
{
    struct svi *o = arg;
    (void)chunk;
    for (uint64_t i = i0; i < i1; i++)
        svi_range(o, o->range[i], o->range[i + 1], &o->part[i]);
}

/* One sweep; the parts' results joined into *all. */
static void svi_sweep(struct svi *o, struct svi_part *all)
{
    if (o->jacobi) {
        wx_pool_for(o->pool, (uint64_t)o->chunks, o->chunks, svi_chunk, o);
        o->cur ^= 1;
    } else {
        svi_range(o, 0, o->sys->n_states, &o->part[0]);
    }
    *all = o->part[0];
    for (int i = 1; i < (o->jacobi ? o->chunks : 1); i++) {
        const struct svi_part *p = &o->part[i];
        all->rmin = p->rmin < all->rmin ? p->rmin : all->rmin;
        all->rmax = p->rmax > all->rmax ? p->rmax : all->rmax;
        all->d = o->mx ? (p->d > all->d ? p->d : all->d) : (p->d < all->d ? p->d : all->d);
        all->below1 &= p->below1;
    }
}

/* x + y c, where y == 0 means x whatever c (also an infinite c). */
static inline double svi_bound(double x, double y, double c)
{
    return y == 0 ? x : x + y * c;
}

/* State s's bounds from the pair and the scalar bounds l, u, each kept
 * within the bounds known on entry (lo0, hi0). */
static inline void svi_bounds(const struct svi *o, uint64_t s, double l, double u,
                              const double *lo0, const double *hi0, double *ls, double *us)
{
    const double xs = o->x[o->cur][s], ys = o->y[o->cur][s];
    double a = svi_bound(xs, ys, l), b = svi_bound(xs, ys, u);
    *ls = a > lo0[s] ? a : lo0[s];
    *us = b < hi0[s] ? b : hi0[s];
}

/* The stopping rule at every state, or at every watched one. */
static int svi_done(const struct svi *o, const struct vi_params *par, double l, double u,
                    const double *lo0, const double *hi0)
{
    const uint64_t n = par->n_watch ? par->n_watch : o->sys->n_states;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t s = par->n_watch ? par->watch[i] : i;
        double ls, us;
        svi_bounds(o, s, l, u, lo0, hi0, &ls, &us);
        if (!gap_ok(ls, us, par->epsilon, par->relative))
            return 0;
    }
    return 1;
}

/* The rule on the bounds known on entry (nothing to do when it holds). */
static int bounds_done(const struct vi_params *par, uint64_t n, const double *lo,
                       const double *hi)
{
    const uint64_t k = par->n_watch ? par->n_watch : n;
    for (uint64_t i = 0; i < k; i++) {
        uint64_t s = par->n_watch ? par->watch[i] : i;
        if (!gap_ok(lo[s], hi[s], par->epsilon, par->relative))
            return 0;
    }
    return 1;
}

static int svi_alloc(struct svi *o, const struct vi_params *par)
{
    const struct vi_system *sys = o->sys;
    uint64_t n = sys->n_states, widest = 1;
    for (uint64_t s = 0; s < n; s++) {
        uint64_t k = sys->state_start[s + 1] - sys->state_start[s];
        widest = k > widest ? k : widest;
    }
    int want = o->jacobi ? valiter_threads(sys, par) : 1;
    o->pool = want > 1 ? wx_pool_new(want) : NULL;
    o->chunks = want > 1 && o->pool ? wx_pool_size(o->pool) : 1;
    for (int i = 0; i < (o->jacobi ? 2 : 1); i++) {
        o->x[i] = malloc(n * sizeof(double));
        o->y[i] = malloc(n * sizeof(double));
    }
    o->range = malloc(((size_t)o->chunks + 1) * sizeof *o->range);
    o->part = calloc((size_t)o->chunks, sizeof *o->part);
    int ok = o->x[0] && o->y[0] && (!o->jacobi || (o->x[1] && o->y[1])) && o->range && o->part &&
             !(want > 1 && !o->pool);
    for (int i = 0; ok && i < o->chunks; i++)
        ok = (o->part[i].scratch = malloc(2 * widest * sizeof(double))) != NULL;
    if (!ok)
        return 0;
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
    for (uint64_t s = 0; s < n; s++)
        o->x[0][s] = 0, o->y[0][s] = 1;
    return 1;
}

static void svi_free(struct svi *o)
{
    for (int i = 0; i < 2; i++)
        free(o->x[i]), free(o->y[i]);
    for (int i = 0; o->part && i < o->chunks; i++)
        free(o->part[i].scratch);
    free(o->range), free(o->part);
    wx_pool_free(o->pool);
}

/* Sweeps until the rule holds (1) or the budget runs out (0); lo and hi
 * get the bounds of the last sweep.  *sweeps counts. */
static int svi_rounds(struct svi *o, const struct vi_params *par, double *lo, double *hi,
                      uint64_t *sweeps)
{
    const uint64_t n = o->sys->n_states;
    double l = INFINITY, u = -INFINITY, d = o->mx ? -INFINITY : INFINITY;
    for (uint64_t s = 0; s < n; s++) {
        l = lo[s] < l ? lo[s] : l;
        u = hi[s] > u ? hi[s] : u;
    }
    int done = 0;
    while (!done && *sweeps < par->max_iterations) {
        struct svi_part all;
        o->w = o->mx ? u : l;
        o->winf = isinf(o->w);
        o->d = d;
        svi_sweep(o, &all);
        ++*sweeps;
        d = all.d; /* every part started from d */
        if (all.below1) {
            /* max: l from any scheduler, u needs the decisions (d);
             * min: the other way round */
            double nl = o->mx ? all.rmin : (d < all.rmin ? d : all.rmin);
            double nu = o->mx ? (d > all.rmax ? d : all.rmax) : all.rmax;
            l = nl > l ? nl : l;
            u = nu < u ? nu : u;
        }
        done = svi_done(o, par, l, u, lo, hi);
    }
    for (uint64_t s = 0; s < n; s++) {
        double ls, us;
        svi_bounds(o, s, l, u, lo, hi, &ls, &us);
        lo[s] = ls;
        hi[s] = us;
    }
    return done;
}

int valiter_solve_svi_cpu(const struct vi_system *sys, const struct vi_params *par, double *lo,
                          double *hi, struct vi_stats *stats, struct wx_error *err)
{
    double t0 = wx_now();
    const uint64_t n = sys->n_states;
    struct vi_stats st = {0};
    st.bytes_per_sweep = vi_sweep_bytes(sys, 2);
    int rc = vi_check_args(par, hi, "sound value iteration", err);
    if (rc != WX_OK)
        return rc;
    int converged = 1;
    struct svi o = {.sys = sys, .mx = par->maximize, .jacobi = par->method != VI_GAUSS_SEIDEL};
    if (n && !bounds_done(par, n, lo, hi)) {
        if (!svi_alloc(&o, par)) {
            svi_free(&o);
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value iteration)");
        }
        converged = svi_rounds(&o, par, lo, hi, &st.iterations);
        svi_free(&o);
    }
    return vi_finish(&st, t0, converged, par, stats, err);
}
