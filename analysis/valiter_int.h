/*
 * valiter_int.h -- what the CPU solvers of valiter.c, valiter_ovi.c and
 * valiter_svi.c share: the Bellman update of one state (one bound, or both
 * in one pass over the entries), the stopping rules, and the number of
 * threads.
 */
#ifndef WX_VALITER_INT_H
#define WX_VALITER_INT_H

#include <math.h>
#include <stdint.h>

#include "valiter.h"
#include "../util/error.h"
#include "../util/pool.h"
#include "../util/timer.h"

/* Below this many entries per thread, extra threads cost more than they
 * save (a barrier per sweep is a few microseconds). */
#define VI_ENTRIES_PER_THREAD 32768

/* The value of choice c on vector x. */
static inline double choice_value(const struct vi_system *sys, uint64_t c, const double *x)
{
    double v = sys->b[c];
    for (uint64_t e = sys->choice_start[c]; e < sys->choice_start[c + 1]; e++)
        v += sys->probs[e] * x[sys->targets[e]];
    return v;
}

static inline double state_update(const struct vi_system *sys, uint64_t s, const double *x,
                                  int maximize)
{
    uint64_t c = sys->state_start[s], ce = sys->state_start[s + 1];
    double best = choice_value(sys, c, x);
    for (c++; c < ce; c++) {
        double v = choice_value(sys, c, x);
        if (maximize ? v > best : v < best)
            best = v;
    }
    return best;
}

/* Both bounds of state s in one pass over its entries (interval
 * iteration streams the matrix once per sweep, not twice); each bound is
 * rounded exactly as state_update would round it. */
static inline void state_update2(const struct vi_system *sys, uint64_t s, const double *lo,
                                 const double *hi, int maximize, double *l_out, double *h_out)
{
    uint64_t c = sys->state_start[s], ce = sys->state_start[s + 1];
    double bl = 0, bh = 0;
    for (uint64_t first = c; c < ce; c++) {
        double vl = sys->b[c], vh = vl;
        for (uint64_t e = sys->choice_start[c]; e < sys->choice_start[c + 1]; e++) {
            double p = sys->probs[e];
            uint32_t t = sys->targets[e];
            vl += p * lo[t];
            vh += p * hi[t];
        }
        if (c == first) {
            bl = vl;
            bh = vh;
        } else if (maximize) {
            bl = vl > bl ? vl : bl;
            bh = vh > bh ? vh : bh;
        } else {
            bl = vl < bl ? vl : bl;
            bh = vh < bh ? vh : bh;
        }
    }
    *l_out = bl;
    *h_out = bh;
}

/* Bytes one sweep streams with k value vectors (the bench's bandwidth). */
static inline uint64_t vi_sweep_bytes(const struct vi_system *sys, int k)
{
    const uint64_t n = sys->n_states;
    return 8 * (n + 1) + 8 * (sys->n_choices + 1) + 12 * sys->n_entries + 8 * sys->n_choices +
           (uint64_t)k * (8 * sys->n_entries + 16 * n);
}

/* The arguments a solver that needs both bounds checks first: WX_OK, or
 * WX_EINPUT naming the method. */
static inline int vi_check_args(const struct vi_params *par, const double *hi, const char *method,
                                struct wx_error *err)
{
    if (!(par->epsilon > 0))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "epsilon must be > 0 (got %g)", par->epsilon);
    if (!hi)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s needs an upper-bound vector", method);
    return WX_OK;
}

/* The end of an unbounded solve: timings into st (and *stats), and the
 * error of a solve that did not converge (WX_ELIMIT). */
static inline int vi_finish(struct vi_stats *st, double t0, int converged, const struct vi_params *par,
                            struct vi_stats *stats, struct wx_error *err)
{
    st->seconds = wx_now() - t0;
    st->sweep_seconds = st->iterations ? st->seconds / (double)st->iterations : 0;
    if (stats)
        *stats = *st;
    if (!converged)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "value iteration did not converge after %llu sweeps (epsilon %g%s)",
                       (unsigned long long)st->iterations, par->epsilon,
                       par->relative ? ", relative" : "");
    return WX_OK;
}

/* Does state s meet the stopping rule? */
static inline int gap_ok(double lo, double hi, double eps, int relative)
{
    double g = hi - lo;
    if (relative && lo > 0)
        return g <= eps * lo;
    return g <= eps;
}

static inline int change_ok(double old, double nw, double eps, int relative)
{
    double d = fabs(nw - old);
    if (relative)
        return d <= eps * fabs(nw);
    return d <= eps;
}

/* The solver threads for sys: par->threads (0: all cores, at most one per
 * VI_ENTRIES_PER_THREAD entries), at most one per state. */
static inline int valiter_threads(const struct vi_system *sys, const struct vi_params *par)
{
    int want = wx_pool_threads(par->threads);
    if (par->threads <= 0) {
        uint64_t cap = sys->n_entries / VI_ENTRIES_PER_THREAD + 1;
        if ((uint64_t)want > cap)
            want = (int)cap;
    }
    if ((uint64_t)want > sys->n_states)
        want = (int)sys->n_states;
    return want;
}

#endif
