/*
 * bounded.c -- k steps of Bellman backups with both roundings (the
 * problems and the soundness argument are in bounded.h).
 */
#include <fenv.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounded.h"
#include "../util/config.h"
#include "../util/pool.h"

/* x_{i+1}(s) from x = x_i (bounded.h), in the current rounding mode. */
static double backup(const struct bounded_problem *bp, uint64_t s, const double *x)
{
    const struct mdp *m = bp->m;
    uint64_t c0 = m->state_start[s], c1 = m->state_start[s + 1];
    switch (bp->kind) {
    case BOUNDED_UNTIL:
        if (bp->target[s])
            return 1;
        if ((bp->allowed && !bp->allowed[s]) || c0 == c1)
            return 0;
        break;
    case BOUNDED_GLOBALLY:
        if (!bp->allowed[s])
            return 0;
        if (c0 == c1)
            return 1;
        break;
    case BOUNDED_CUMULATIVE:
        if (c0 == c1)
            return 0;
        break;
    }
    const double *rs = bp->rew ? bp->rew->state : NULL, *rc = bp->rew ? bp->rew->choice : NULL;
    int cumulative = bp->kind == BOUNDED_CUMULATIVE;
    double best = 0;
    for (uint64_t c = c0; c < c1; c++) {
        double v = 0;
        for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
            v += m->probs[e] * x[m->targets[e]];
        if (cumulative) {
            if (rc)
                v += rc[c];
            if (rs)
                v += rs[s];
        }
        if (c == c0 || (bp->maximize ? v > best : v < best))
            best = v;
    }
    return best;
}

struct sweep {
    const struct bounded_problem *bp;
    const double *lo, *hi; /* x_i's bounds */
    double *nlo, *nhi;     /* x_{i+1}'s */
    uint8_t *changed;      /* per chunk: some bound moved */
};

/* One backup of the states [a, b): lo rounded down, hi rounded up.  The
 * rounding mode belongs to the thread; fesetround is an opaque call, so no
 * arithmetic on the vectors (read after it) is moved across it. */
static void sweep_chunk(void *arg, uint64_t a, uint64_t b, int chunk)
{
    struct sweep *sw = arg;
    int old = fegetround();
    fesetround(FE_DOWNWARD);
    for (uint64_t s = a; s < b; s++)
        sw->nlo[s] = backup(sw->bp, s, sw->lo);
    fesetround(FE_UPWARD);
    for (uint64_t s = a; s < b; s++)
        sw->nhi[s] = backup(sw->bp, s, sw->hi);
    fesetround(old);
    uint8_t ch = 0;
    for (uint64_t s = a; s < b && !ch; s++)
        ch = sw->nlo[s] != sw->lo[s] || sw->nhi[s] != sw->hi[s];
    sw->changed[chunk] = ch;
}

static int chunks_for(int threads, uint64_t n)
{
    long t = threads > 0 ? threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (t < 1)
        t = 1;
    if (t > WX_POOL_MAX)
        t = WX_POOL_MAX;
    if ((uint64_t)t > n / WX_BOUNDED_GRAIN)
        t = (long)(n / WX_BOUNDED_GRAIN);
    return t < 1 ? 1 : (int)t;
}

int bounded_solve(const struct bounded_problem *bp, double *lo, double *hi,
                  uint64_t *steps_fixed, struct wx_error *err)
{
    uint64_t n = bp->m->n_states;
    int chunks = chunks_for(bp->threads, n);
    double *tlo = malloc((n ? n : 1) * sizeof *tlo), *thi = malloc((n ? n : 1) * sizeof *thi);
    uint8_t *changed = calloc((size_t)chunks, 1);
    struct wx_pool *pool = chunks > 1 ? wx_pool_new(chunks) : NULL;
    if (!tlo || !thi || !changed) {
        free(tlo), free(thi), free(changed);
        wx_pool_free(pool);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (step-bounded property)");
    }
    for (uint64_t s = 0; s < n; s++) {
        double x0 = bp->kind == BOUNDED_UNTIL ? bp->target[s]
                  : bp->kind == BOUNDED_GLOBALLY ? bp->allowed[s] : 0;
        lo[s] = hi[s] = x0;
    }
    /* x_i in (cur_lo, cur_hi), x_{i+1} into the other pair */
    double *cur_lo = lo, *cur_hi = hi, *nxt_lo = tlo, *nxt_hi = thi;
    uint64_t i = 0;
    for (; i < bp->steps; i++) {
        struct sweep sw = {bp, cur_lo, cur_hi, nxt_lo, nxt_hi, changed};
        wx_pool_for(pool, n, chunks, sweep_chunk, &sw);
        int moved = 0;
        for (int c = 0; c < chunks; c++)
            moved |= changed[c];
        if (!moved)
            break;
        double *t = cur_lo;
        cur_lo = nxt_lo, nxt_lo = t;
        t = cur_hi;
        cur_hi = nxt_hi, nxt_hi = t;
    }
    if (cur_lo != lo) {
        memcpy(lo, cur_lo, n * sizeof *lo);
        memcpy(hi, cur_hi, n * sizeof *hi);
    }
    if (steps_fixed)
        *steps_fixed = i;
    wx_pool_free(pool);
    free(tlo), free(thi), free(changed);
    return WX_OK;
}
