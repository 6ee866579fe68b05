/*
 * mdpcheck_work.c -- the property layer's work arrays (pool, page-locked
 * blocks) and the parallel loops of its passes (mdpcheck_int.h).
 */
#include <stdlib.h>
#include <string.h>

#include "mdpcheck_int.h"
#include "../util/hugealloc.h"
#include "../util/pool.h"

void mdpc_xfree(struct ctx *x, void *p)
{
    if (!p)
        return;
    for (int i = 0; i < POOL_SLOTS; i++)
        if (x->pinned[i] == p) {
            x->unpin(p);
            x->pinned[i] = NULL;
        }
    free(p);
}

/* A block no longer needed, freed at the end rather than now (releasing a
 * page-locked block costs; at the end it overlaps the exit). */
void mdpc_free_later(struct ctx *x, void *p)
{
    if (!p)
        return;
    if (x->n_later < (int)(sizeof x->later / sizeof *x->later))
        x->later[x->n_later++] = p;
    else
        mdpc_xfree(x, p);
}

/* A pool block of at least bytes for slot, or a fresh one (zeroed when
 * zero: pool blocks always are).  The caller owns the result (free()). */
void *mdpc_pool_take(struct ctx *x, int slot, size_t bytes, int zero)
{
    void *p = x->pool[slot];
    if (p && x->pool_bytes[slot] >= bytes) {
        x->pool[slot] = NULL;
        if (zero) /* warming may have stopped early: not all of it is zero */
            memset(p, 0, bytes);
        return p;
    }
    int huge = x->o->huge_pages;
    return zero ? wx_big_zalloc(bytes, huge) : wx_big_alloc(bytes, huge);
}

int mdpc_par_chunks(int threads, uint64_t n)
{
    long t = wx_pool_threads(threads);
    if (t > PAR_MAX)
        t = PAR_MAX;
    if ((uint64_t)t > n / PAR_GRAIN)
        t = (long)(n / PAR_GRAIN);
    return t < 1 ? 1 : (int)t;
}

/* A team of mdpc_par_chunks(threads, n) for this loop alone (the MEC
 * decomposition runs its loops on its own thread beside the system's, so
 * the two never share a team); without one (out of memory), the caller
 * runs every chunk: the same chunks, the same result. */
void mdpc_par_for(int threads, uint64_t n, par_fn fn, void *arg)
{
    int t = mdpc_par_chunks(threads, n);
    struct wx_pool *pool = t > 1 ? wx_pool_new(t) : NULL;
    wx_pool_for(pool, n, t, fn, arg);
    wx_pool_free(pool);
}
