/*
 * pool.h -- the host's worker threads: a fixed team, a parallel for, a
 * barrier (plain, or with one member acting alone at it), and one-off
 * background tasks.  Host code starts threads only through this module.
 *
 * A pool is a team of `size` members.  Member 0 is the thread that calls
 * wx_pool_run / wx_pool_for; members 1 .. size-1 are threads started by
 * wx_pool_new that sleep between jobs and end in wx_pool_free.  One thread
 * at a time drives a pool (jobs do not nest and are not queued); two
 * concurrent users take two pools.
 *
 * Determinism: the pool adds none of its own.  wx_pool_for cuts [0, n) into
 * the same chunks whatever the team size, so a loop whose chunk i writes only
 * its own items (or slot i of a per-chunk array, combined in chunk order
 * afterwards) gives the same bits on any number of threads.
 *
 * Failures: a thread that cannot be started only makes the team smaller
 * (wx_pool_size says how big it is); wx_pool_new returns NULL only when out
 * of memory.  Every function accepts a NULL pool as a team of one.
 */
#ifndef WX_POOL_H
#define WX_POOL_H

#include <pthread.h>
#include <stdint.h>

/* The most members a pool has (a requested size above it is cut); also the
 * largest --threads the CLI accepts. */
#define WX_POOL_MAX 256

struct wx_pool;

/* The team size wx_pool_new(threads) aims at: threads <= 0 means one per
 * online CPU; the result is in [1, WX_POOL_MAX]. */
int wx_pool_threads(int threads);

/* A pool of wx_pool_threads(threads) members (fewer where threads cannot be
 * started); allocates. */
struct wx_pool *wx_pool_new(int threads);
void wx_pool_free(struct wx_pool *p);
int wx_pool_size(const struct wx_pool *p);

/* One job for the whole team: fn(arg, member, size) runs on every member at
 * once (member 0 on the caller) and wx_pool_run returns when all have
 * returned.  Members may meet at wx_pool_barrier. */
void wx_pool_run(struct wx_pool *p, void (*fn)(void *arg, int member, int size), void *arg);

/* Inside a wx_pool_run job: waits until every member has arrived. */
void wx_pool_barrier(struct wx_pool *p);

/* Inside a wx_pool_run job: a barrier at which the last member to arrive
 * runs its fn(arg) (when fn is not NULL) before anyone leaves, alone, so
 * fn may change what every member reads next; each member returns only
 * after fn has returned and sees its writes.  Members may call it from
 * different places in their code (a member in mid-work meets one that has
 * finished); every member calls it equally often per job. */
void wx_pool_meet(struct wx_pool *p, void (*fn)(void *arg), void *arg);

/* Parallel for: [0, n) in `chunks` contiguous chunks, chunk i = [n*i/chunks,
 * n*(i+1)/chunks), fn(arg, lo, hi, i) once per chunk; member m runs chunks
 * m, m + size, ... in order (chunk 0 on the caller).  Returns when all are
 * done.  chunks < 1 counts as 1. */
void wx_pool_for(struct wx_pool *p, uint64_t n, int chunks,
                 void (*fn)(void *arg, uint64_t lo, uint64_t hi, int chunk), void *arg);

/* A background task: fn(arg) on a thread of its own, while the caller goes
 * on; wx_task_join waits for it.  Where no thread can be started,
 * wx_task_start runs fn(arg) itself before it returns, so the task always
 * has run once wx_task_join returns. */
struct wx_task {
    pthread_t tid;
    int started;
};
void wx_task_start(struct wx_task *t, void *(*fn)(void *), void *arg);
void wx_task_join(struct wx_task *t);

#endif
