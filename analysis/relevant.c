/*
 * relevant.c -- the maybe states that the initial states' value depends on
 * (contract and closure argument in relevant.h).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../util/pool.h"
#include "relevant.h"

/* Forward breadth-first search from the initial states over the states of
 * class `skip` (the former maybe states), which turn back into `maybe` as
 * they are reached: the class doubles as the visited mark (claimed by a
 * compare-and-swap, so each state joins one frontier once), level by level
 * on a team of threads.  The set reached is the same whatever the team;
 * only the order inside a frontier varies, and nothing reads it. */
struct bfs {
    const struct mdp *m;
    const uint8_t *ok;
    uint8_t *cls;
    uint8_t maybe, skip;
    const uint32_t *front; /* this level */
    uint32_t *next;        /* the next one, filled through `fill` */
    _Atomic uint64_t fill;
};

enum { BFS_FLUSH = 256, BFS_GRAIN = 4096 };

static void bfs_flush(struct bfs *b, const uint32_t *buf, unsigned k)
{
    uint64_t at = atomic_fetch_add_explicit(&b->fill, k, memory_order_relaxed);
    memcpy(b->next + at, buf, k * sizeof *buf);
}

static void bfs_chunk(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    (void)chunk;
    struct bfs *b = arg;
    const struct mdp *m = b->m;
    uint32_t buf[BFS_FLUSH];
    unsigned k = 0;
    for (uint64_t i = lo; i < hi; i++) {
        uint32_t s = b->front[i];
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            if (b->ok && !b->ok[c])
                continue;
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++) {
                uint32_t t = m->targets[e];
                _Atomic uint8_t *a = (_Atomic uint8_t *)&b->cls[t];
                uint8_t want = b->skip;
                if (atomic_load_explicit(a, memory_order_relaxed) != b->skip ||
                    !atomic_compare_exchange_strong_explicit(a, &want, b->maybe, memory_order_relaxed,
                                                             memory_order_relaxed))
                    continue;
                buf[k++] = t;
                if (k == BFS_FLUSH) {
                    bfs_flush(b, buf, k);
                    k = 0;
                }
            }
        }
    }
    if (k)
        bfs_flush(b, buf, k);
}

/* total: the states of class skip; the search stops once all are reached. */
static void reach(struct bfs *b, const uint8_t *initial, uint64_t total, uint32_t *q0, uint32_t *q1,
                  int threads)
{
    uint64_t n = b->m->n_states, len = 0, reached;
    for (uint64_t s = 0; s < n; s++)
        if (initial[s] && b->cls[s] == b->skip) {
            b->cls[s] = b->maybe;
            q0[len++] = (uint32_t)s;
        }
    reached = len;
    int t = wx_pool_threads(threads);
    struct wx_pool *pool = t > 1 ? wx_pool_new(t) : NULL;
    while (len && reached < total) {
        b->front = q0, b->next = q1;
        atomic_store_explicit(&b->fill, 0, memory_order_relaxed);
        int chunks = len / BFS_GRAIN < (uint64_t)t * 4 ? (int)(len / BFS_GRAIN) : t * 4;
        wx_pool_for(len < BFS_GRAIN ? NULL : pool, len, chunks, bfs_chunk, b);
        len = atomic_load_explicit(&b->fill, memory_order_relaxed);
        reached += len;
        uint32_t *q = q0;
        q0 = q1, q1 = q;
    }
    wx_pool_free(pool);
}

int relevant_restrict(const struct mdp *m, const uint8_t *ok, const uint8_t *initial,
                      uint8_t *cls, uint8_t maybe, uint8_t skip, int threads, uint32_t *loc,
                      uint32_t *back, uint64_t *n_maybe, struct wx_error *err)
{
    uint64_t n = m->n_states, total = 0;
    uint32_t *q0 = malloc((n ? n : 1) * sizeof *q0), *q1 = malloc((n ? n : 1) * sizeof *q1);
    if (!q0 || !q1) {
        free(q0), free(q1);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (relevant states)");
    }
    for (uint64_t s = 0; s < n; s++)
        if (cls[s] == maybe) {
            cls[s] = skip;
            total++;
        }
    struct bfs b = {.m = m, .ok = ok, .cls = cls, .maybe = maybe, .skip = skip};
    reach(&b, initial, total, q0, q1, threads);
    free(q0), free(q1);
    uint64_t k = 0;
    for (uint64_t s = 0; s < n; s++) {
        if (cls[s] == maybe) {
            loc[s] = (uint32_t)k;
            back[k++] = (uint32_t)s;
        } else
            loc[s] = UINT32_MAX;
    }
    *n_maybe = k;
    return WX_OK;
}

int relevant_watch(uint64_t n_states, const uint8_t *initial, const uint32_t *sid,
                   uint64_t n_sys, uint32_t **watch, uint64_t *n_watch, struct wx_error *err)
{
    *watch = NULL;
    *n_watch = 0;
    if (!n_sys)
        return WX_OK;
    uint8_t *mark = calloc(n_sys, 1);
    if (!mark)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (initial states)");
    uint64_t k = 0;
    for (uint64_t s = 0; s < n_states; s++)
        if (initial[s] && sid[s] != UINT32_MAX && !mark[sid[s]]) {
            mark[sid[s]] = 1;
            k++;
        }
    uint32_t *w = k ? malloc(k * sizeof *w) : NULL;
    if (k && !w) {
        free(mark);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (initial states)");
    }
    uint64_t j = 0;
    for (uint64_t t = 0; t < n_sys && j < k; t++)
        if (mark[t])
            w[j++] = (uint32_t)t;
    free(mark);
    *watch = w;
    *n_watch = k;
    return WX_OK;
}
