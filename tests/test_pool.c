/*
 * test_pool.c -- util/pool (team jobs, barrier, parallel for, background
 * tasks) and util/hugealloc.
 *  - wx_pool_run: every member runs once per job, with the right size; a
 *    barrier between two phases makes every phase-1 write visible to all;
 *    100 jobs in a row on one pool (the wake-up protocol).
 *  - wx_pool_for: every index of [0, n) exactly once, chunk i exactly
 *    [n*i/c, n*(i+1)/c), for team sizes 1..9 and chunk counts 1..17 (more
 *    and fewer chunks than members), and a NULL pool (a team of one);
 *    per-chunk sums combined in chunk order are bit-identical for every
 *    team size.
 *  - wx_pool_meet: per meeting, fn runs exactly once, on the last member
 *    to arrive (it sees every member's write of that round), and every
 *    member leaves seeing fn's write; members meet from two different call
 *    sites; team sizes 1..9 and a NULL pool.
 *  - wx_pool_threads: 0 is the online CPUs, capped at WX_POOL_MAX, like
 *    any larger request; a pool asked for more has WX_POOL_MAX members.
 *  - wx_task: the task has run once wx_task_join returns.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "../util/hugealloc.h"
#include "../util/pool.h"
#include "check.h"

struct run_job {
    atomic_int ran[WX_POOL_MAX];
    atomic_int bad_size;
    int size;
    int phase1[WX_POOL_MAX];
    atomic_int seen_all;
    struct wx_pool *pool;
};

static void run_fn(void *arg, int member, int size)
{
    struct run_job *j = arg;
    atomic_fetch_add(&j->ran[member], 1);
    if (size != j->size)
        atomic_store(&j->bad_size, 1);
    j->phase1[member] = member + 1;
    wx_pool_barrier(j->pool);
    int all = 1;
    for (int i = 0; i < size; i++)
        all &= j->phase1[i] == i + 1;
    atomic_fetch_add(&j->seen_all, all);
    wx_pool_barrier(j->pool); /* nobody leaves before everyone has read */
}

struct for_job {
    uint64_t n;
    int chunks;
    atomic_int *hits;
    atomic_int bad_bounds;
    double part[64];
};

static void for_fn(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    struct for_job *j = arg;
    const uint64_t c = (uint64_t)j->chunks;
    if (lo != j->n * (uint64_t)chunk / c || hi != j->n * (uint64_t)(chunk + 1) / c)
        atomic_store(&j->bad_bounds, 1);
    double s = 0;
    for (uint64_t i = lo; i < hi; i++) {
        atomic_fetch_add(&j->hits[i], 1);
        s += 1.0 / (double)(i + 1);
    }
    j->part[chunk] = s;
}

#define MEET_ROUNDS 200

struct meet_job {
    struct wx_pool *pool;
    int size;
    int wrote[WX_POOL_MAX]; /* round + 1, written before each meeting */
    int round;              /* the round fn last decided, under the meeting */
    int calls;              /* fn calls so far */
    atomic_int bad;
};

static void meet_fn(void *arg)
{
    struct meet_job *j = arg;
    const int round = j->calls;
    for (int i = 0; i < j->size; i++)
        if (j->wrote[i] != round + 1)
            atomic_store(&j->bad, 1); /* run before the last arrival */
    j->round = round;
    j->calls++;
}

static void meet_member(void *arg, int member, int size)
{
    struct meet_job *j = arg;
    for (int r = 0; r < MEET_ROUNDS; r++) {
        j->wrote[member] = r + 1;
        if ((member + r) % 2) /* the two call sites of explore_cpu: idle, and in mid-work */
            wx_pool_meet(j->pool, meet_fn, j);
        else
            wx_pool_meet(j->pool, meet_fn, j);
        if (j->round != r || j->calls != r + 1)
            atomic_store(&j->bad, 1);
        wx_pool_meet(j->pool, NULL, NULL); /* nobody writes round r+1 before all have read */
    }
}

/* meetings with one member acting alone */
static void test_meet(void)
{
    int meet_ok = 1;
    for (int t = 0; t <= 9; t++) { /* t = 0: NULL pool */
        struct meet_job *j = calloc(1, sizeof *j);
        j->pool = t ? wx_pool_new(t) : NULL;
        j->size = wx_pool_size(j->pool);
        wx_pool_run(j->pool, meet_member, j);
        const int ok = !atomic_load(&j->bad) && j->calls == MEET_ROUNDS;
        meet_ok &= ok;
        if (!ok)
            check(0, "wx_pool_meet, team of %d: bad %d, %d calls of fn for %d meetings", j->size,
                  atomic_load(&j->bad), j->calls, MEET_ROUNDS);
        wx_pool_free(j->pool);
        free(j);
    }
    check(meet_ok, "wx_pool_meet: fn once per meeting, after every arrival, seen by all (teams 1..9, NULL)");
}

/* team sizes asked for */
static void test_threads(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int want_all = cpus < 1 ? 1 : cpus > WX_POOL_MAX ? WX_POOL_MAX : (int)cpus;
    check(wx_pool_threads(0) == want_all && wx_pool_threads(-3) == want_all,
          "wx_pool_threads(0 or less) = online CPUs (%d, capped at %d): %d", want_all, WX_POOL_MAX,
          wx_pool_threads(0));
    check(wx_pool_threads(5) == 5 && wx_pool_threads(WX_POOL_MAX) == WX_POOL_MAX &&
              wx_pool_threads(WX_POOL_MAX + 1) == WX_POOL_MAX && wx_pool_threads(1 << 30) == WX_POOL_MAX,
          "wx_pool_threads: a request is kept up to WX_POOL_MAX and cut above it");
    struct wx_pool *big = wx_pool_new(WX_POOL_MAX * 4);
    check(big && wx_pool_size(big) <= WX_POOL_MAX && wx_pool_size(big) >= 1,
          "a pool asked for %d members has at most %d (%d)", WX_POOL_MAX * 4, WX_POOL_MAX,
          wx_pool_size(big));
    wx_pool_free(big);
}

static void *task_fn(void *arg)
{
    *(int *)arg += 1;
    return NULL;
}

int main(void)
{
    /* team jobs and the barrier */
    int runs_ok = 1, sizes_ok = 1;
    for (int t = 1; t <= 9; t++) {
        struct wx_pool *p = wx_pool_new(t);
        if (!check(p != NULL, "pool of %d: created", t))
            continue;
        sizes_ok &= wx_pool_size(p) == t;
        for (int rep = 0; rep < 100; rep++) {
            struct run_job *j = calloc(1, sizeof *j);
            j->size = wx_pool_size(p);
            j->pool = p;
            wx_pool_run(p, run_fn, j);
            for (int i = 0; i < j->size; i++)
                runs_ok &= atomic_load(&j->ran[i]) == 1;
            runs_ok &= !atomic_load(&j->bad_size) && atomic_load(&j->seen_all) == j->size;
            free(j);
        }
        wx_pool_free(p);
    }
    check(sizes_ok, "pools of 1..9 members have the size asked for");
    check(runs_ok, "100 team jobs per pool: each member once, right size, barrier orders the phases");

    test_meet();
    test_threads();

    /* parallel for */
    const uint64_t n = 10007;
    atomic_int *hits = calloc(n, sizeof *hits);
    int cover_ok = 1, bounds_ok = 1, same_bits = 1;
    for (int c = 1; c <= 17; c++) {
        double ref = 0;
        for (int t = 0; t <= 9; t++) { /* t = 0: NULL pool */
            struct wx_pool *p = t ? wx_pool_new(t) : NULL;
            struct for_job j = {.n = n, .chunks = c, .hits = hits};
            for (uint64_t i = 0; i < n; i++)
                atomic_store(&hits[i], 0);
            wx_pool_for(p, n, c, for_fn, &j);
            for (uint64_t i = 0; i < n; i++)
                cover_ok &= atomic_load(&hits[i]) == 1;
            bounds_ok &= !atomic_load(&j.bad_bounds);
            double sum = 0;
            for (int k = 0; k < c; k++)
                sum += j.part[k];
            if (t == 0)
                ref = sum;
            same_bits &= memcmp(&sum, &ref, sizeof sum) == 0;
            wx_pool_free(p);
        }
    }
    free(hits);
    check(cover_ok, "wx_pool_for: every index exactly once (1..17 chunks, teams of 1..9 and NULL)");
    check(bounds_ok, "wx_pool_for: chunk i is [n*i/c, n*(i+1)/c)");
    check(same_bits, "per-chunk sums combined in chunk order: the same bits on every team size");
    check(wx_pool_size(NULL) == 1, "a NULL pool is a team of one");

    /* background task */
    int count = 0;
    struct wx_task task;
    wx_task_start(&task, task_fn, &count);
    wx_task_join(&task);
    check(count == 1, "wx_task: ran once by the time wx_task_join returned (%d)", count);

    /* huge-page advice: allocation works, memory usable, any size */
    int alloc_ok = 1;
    size_t sizes[] = {0, 1, 4096, (size_t)3 << 20, (size_t)9 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *a = wx_big_alloc(sizes[i], 1), *z = wx_big_zalloc(sizes[i], 1);
        alloc_ok &= a && z;
        if (a && z && sizes[i]) {
            memset(a, 7, sizes[i]);
            alloc_ok &= a[sizes[i] - 1] == 7 && z[sizes[i] - 1] == 0 && z[0] == 0;
        }
        free(a), free(z);
    }
    check(alloc_ok, "wx_big_alloc / wx_big_zalloc (advised): usable, zeroed where asked, sizes 0..9 MiB");
    return check_exit();
}
