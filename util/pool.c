/*
 * pool.c -- the team of worker threads (contract in pool.h).
 *
 * Members 1 .. size-1 wait on `wake` for the job counter to move past the
 * last job they ran; the caller publishes a job (fn, arg) under the mutex,
 * bumps the counter, runs member 0 and waits on `done` until every helper
 * has reported.  The barrier is sized once, for the team as started.
 * wx_pool_meet counts arrivals under its own mutex; the last arrival runs
 * fn, bumps the meeting's generation and wakes the others, who wait for
 * the generation to move (so a spurious wake-up cannot release them).
 */
#include "pool.h"

#include <stdlib.h>
#include <unistd.h>

struct member {
    struct wx_pool *pool;
    int id;
};

struct wx_pool {
    int size;
    pthread_t tid[WX_POOL_MAX];
    struct member mem[WX_POOL_MAX];
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    uint64_t job;          /* jobs published so far */
    int running;           /* helpers still in the current job */
    int quit;
    void (*fn)(void *arg, int member, int size);
    void *arg;
    pthread_barrier_t barrier;
    pthread_mutex_t meet_mu;
    pthread_cond_t meet_cv;
    int met;               /* members at the current meeting */
    uint64_t meet_gen;     /* meetings completed */
};

static void *member_main(void *a)
{
    struct member *m = a;
    struct wx_pool *p = m->pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->job == seen && !p->quit)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit)
            break;
        seen = p->job;
        void (*fn)(void *, int, int) = p->fn;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->mu);
        fn(arg, m->id, p->size);
        pthread_mutex_lock(&p->mu);
        if (--p->running == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int wx_pool_threads(int threads)
{
    if (threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c < 1 ? 1 : c > WX_POOL_MAX ? WX_POOL_MAX : (int)c;
    }
    return threads > WX_POOL_MAX ? WX_POOL_MAX : threads;
}

struct wx_pool *wx_pool_new(int threads)
{
    threads = wx_pool_threads(threads);
    struct wx_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    pthread_mutex_init(&p->meet_mu, NULL);
    pthread_cond_init(&p->meet_cv, NULL);
    p->size = 1;
    for (int i = 1; i < threads; i++) {
        p->mem[i] = (struct member){p, i};
        if (pthread_create(&p->tid[i], NULL, member_main, &p->mem[i]) != 0)
            break; /* a smaller team: members only ever read p->size in a job */
        p->size = i + 1;
    }
    pthread_barrier_init(&p->barrier, NULL, (unsigned)p->size);
    return p;
}

void wx_pool_free(struct wx_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->size; i++)
        pthread_join(p->tid[i], NULL);
    pthread_barrier_destroy(&p->barrier);
    pthread_cond_destroy(&p->meet_cv);
    pthread_mutex_destroy(&p->meet_mu);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

int wx_pool_size(const struct wx_pool *p)
{
    return p ? p->size : 1;
}

void wx_pool_run(struct wx_pool *p, void (*fn)(void *arg, int member, int size), void *arg)
{
    if (!p || p->size == 1) {
        fn(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->running = p->size - 1;
    p->job++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    fn(arg, 0, p->size);
    pthread_mutex_lock(&p->mu);
    while (p->running > 0)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void wx_pool_barrier(struct wx_pool *p)
{
    if (p && p->size > 1)
        pthread_barrier_wait(&p->barrier);
}

void wx_pool_meet(struct wx_pool *p, void (*fn)(void *arg), void *arg)
{
    if (!p || p->size == 1) {
        if (fn)
            fn(arg);
        return;
    }
    pthread_mutex_lock(&p->meet_mu);
    if (++p->met == p->size) {
        if (fn)
            fn(arg);
        p->met = 0;
        p->meet_gen++;
        pthread_cond_broadcast(&p->meet_cv);
    } else {
        const uint64_t gen = p->meet_gen;
        while (gen == p->meet_gen)
            pthread_cond_wait(&p->meet_cv, &p->meet_mu);
    }
    pthread_mutex_unlock(&p->meet_mu);
}

struct for_job {
    uint64_t n;
    int chunks;
    void (*fn)(void *arg, uint64_t lo, uint64_t hi, int chunk);
    void *arg;
};

static void for_member(void *a, int member, int size)
{
    const struct for_job *j = a;
    const uint64_t c = (uint64_t)j->chunks;
    for (int i = member; i < j->chunks; i += size)
        j->fn(j->arg, j->n * (uint64_t)i / c, j->n * (uint64_t)(i + 1) / c, i);
}

void wx_pool_for(struct wx_pool *p, uint64_t n, int chunks,
                 void (*fn)(void *arg, uint64_t lo, uint64_t hi, int chunk), void *arg)
{
    struct for_job j = {n, chunks < 1 ? 1 : chunks, fn, arg};
    wx_pool_run(p, for_member, &j);
}

void wx_task_start(struct wx_task *t, void *(*fn)(void *), void *arg)
{
    t->started = pthread_create(&t->tid, NULL, fn, arg) == 0;
    if (!t->started)
        fn(arg);
}

void wx_task_join(struct wx_task *t)
{
    if (t->started)
        pthread_join(t->tid, NULL);
    t->started = 0;
}
