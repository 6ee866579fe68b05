/*
 * test_hash.c -- the lock-free vector table (hash/vtable.h).
 *
 * Concurrent inserts of overlapping random multi-word vectors from many
 * threads, each in its own order: every distinct vector must get exactly one
 * id, all threads must agree on it, ids must be dense and the stored vector
 * of each id must be the vector.  Growth is exercised between rounds (with
 * the re-insertion itself spread over threads) and FULL over capacity.
 * Seed: WX_SEED (default fixed), printed.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hash/vtable.h"

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned long long seed = 20240611;

/* A pool of distinct vectors: vector i has a distinct first word-pair (i in
 * it) and random other words, so some share hash-relevant parts. */
static uint32_t *make_pool(uint64_t k, uint32_t words, uint64_t *rng)
{
    uint32_t *p = malloc(k * words * 4);
    for (uint64_t i = 0; i < k; i++) {
        uint32_t *v = p + i * words;
        for (uint32_t w = 0; w < words; w++)
            v[w] = (uint32_t)rng_next(rng) & 0x3u; /* few values: many near-duplicates */
        v[0] = (uint32_t)i;                        /* makes them distinct */
        if (words > 1)
            v[words - 1] = (uint32_t)(i * 2654435761u) & 0x7fffffffu;
    }
    return p;
}

struct job {
    struct vtable *t;
    const uint32_t *pool;
    uint32_t words;
    uint64_t begin, end;  /* pool range of this round */
    uint64_t *ids;        /* per pool index, this thread's result (UINT64_MAX = FULL) */
    uint64_t seed;
    uint64_t inserted, found, full;
    /* growth */
    uint64_t gb, ge;
    /* id blocks (vtable_insert_block) when block > 0 */
    uint32_t block;
    struct vtable_ids blk;
};

static void *insert_job(void *arg)
{
    struct job *j = arg;
    uint64_t n = j->end - j->begin, rng = j->seed;
    uint64_t *perm = malloc(n * sizeof *perm);
    for (uint64_t i = 0; i < n; i++)
        perm[i] = j->begin + i;
    for (uint64_t i = n; i > 1; i--) {
        uint64_t r = rng_next(&rng) % i, x = perm[i - 1];
        perm[i - 1] = perm[r], perm[r] = x;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t id = UINT64_MAX;
        const uint32_t *v = j->pool + perm[i] * j->words;
        enum vtable_outcome o = j->block ? vtable_insert_block(j->t, v, vtable_hash(v, j->words), &j->blk, &id)
                                         : vtable_lookup(j->t, v, VTABLE_INSERT, &id);
        if (o == VTABLE_INSERTED)
            j->inserted++;
        else if (o == VTABLE_FOUND)
            j->found++;
        else
            j->full++, id = UINT64_MAX;
        j->ids[perm[i]] = id;
    }
    free(perm);
    return NULL;
}

static void *grow_job(void *arg)
{
    struct job *j = arg;
    vtable_grow_part(j->t, j->gb, j->ge);
    return NULL;
}

static void run_threads(struct job *jobs, unsigned n, void *(*fn)(void *))
{
    pthread_t tid[64];
    for (unsigned i = 0; i < n; i++)
        pthread_create(&tid[i], NULL, fn, &jobs[i]);
    for (unsigned i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
}

static void *grow_slots_job(void *arg)
{
    struct job *j = arg;
    vtable_grow_slots(j->t, j->gb, j->ge);
    return NULL;
}

/* Grows t with its re-insertion split over n threads: by id ranges
 * (vtable_grow_part), and every other time by ranges of the old slot array
 * (vtable_grow_slots, which for these id tables re-inserts everything in
 * the range starting at 0 and nothing in the others). */
static void grow_parallel(struct vtable *t, struct job *jobs, unsigned n)
{
    static unsigned calls;
    const bool by_slots = calls++ % 2;
    struct wx_error e;
    uint64_t c = by_slots ? vtable_slots(t) : vtable_count(t);
    check(vtable_grow_begin(t, &e) == WX_OK, "grow_begin at %llu slots", (unsigned long long)vtable_slots(t));
    for (unsigned i = 0; i < n; i++) {
        jobs[i].gb = c * i / n;
        jobs[i].ge = c * (i + 1) / n;
    }
    run_threads(jobs, n, by_slots ? grow_slots_job : grow_job);
    vtable_grow_end(t);
}

/* Every vector with an id: all threads agree, ids dense and bijective,
 * store matches.  Returns the number of vectors with an id. */
static uint64_t check_ids(struct vtable *t, const uint32_t *pool, uint32_t words, uint64_t k,
                          struct job *jobs, unsigned n, const char *what)
{
    uint64_t count = vtable_count(t), with_id = 0, disagree = 0, bad_store = 0, dup = 0;
    uint8_t *seen = calloc(count ? count : 1, 1);
    for (uint64_t i = 0; i < k; i++) {
        uint64_t id = UINT64_MAX;
        for (unsigned j = 0; j < n; j++) {
            uint64_t x = jobs[j].ids[i];
            if (x == UINT64_MAX)
                continue;
            if (id == UINT64_MAX)
                id = x;
            else if (id != x)
                disagree++;
        }
        /* A FIND must agree too (some vectors may have an id only seen by
         * a FIND when every insert of it reported FULL: not possible here,
         * every insert of a stored vector finds it). */
        uint64_t fid;
        enum vtable_outcome o = vtable_lookup(t, pool + i * words, VTABLE_FIND, &fid);
        if (id == UINT64_MAX) {
            if (o == VTABLE_FOUND)
                id = fid; /* inserted by a racing thread after this one saw FULL */
            else
                continue;
        } else if (o != VTABLE_FOUND || fid != id) {
            disagree++;
        }
        with_id++;
        if (id >= count || seen[id]++)
            dup++;
        else if (memcmp(vtable_vector(t, id), pool + i * words, words * 4u) != 0)
            bad_store++;
    }
    CHECK_EQ_U64(disagree, 0, "%s: ids agree between threads and FIND (seed %llu)", what, seed);
    CHECK_EQ_U64(dup, 0, "%s: ids distinct and below count (seed %llu)", what, seed);
    CHECK_EQ_U64(bad_store, 0, "%s: stored vectors match (seed %llu)", what, seed);
    CHECK_EQ_U64(with_id, count, "%s: ids dense: vectors with an id == count (seed %llu)", what, seed);
    free(seen);
    return with_id;
}

/* vtable_close_blocks' renumbering, recorded for the test's id arrays. */
struct moves {
    uint64_t *to;     /* by old id */
    uint8_t *flag;
    uint64_t n;       /* vectors renumbered */
    uint64_t holes;   /* unused block ids closed */
};

static void record_move(void *ctx, uint64_t from, uint64_t to)
{
    struct moves *m = ctx;
    m->to[from] = to, m->flag[from] = 1, m->n++;
}

/* A quiet point with id blocks: closes them and renumbers the ids the
 * threads saw in pool range [b, e). */
static void close_round(struct vtable *t, struct job *jobs, unsigned n, uint64_t b, uint64_t e,
                        struct moves *m)
{
    struct vtable_ids blk[64];
    for (unsigned j = 0; j < n; j++)
        blk[j] = jobs[j].blk, m->holes += blk[j].end - blk[j].next;
    struct wx_error err;
    const uint64_t before = m->n;
    check(vtable_close_blocks(t, blk, n, record_move, m, &err) == WX_OK, "close_blocks");
    for (unsigned j = 0; j < n; j++) {
        jobs[j].blk = blk[j];
        for (uint64_t i = b; i < e && m->n > before; i++)
            if (jobs[j].ids[i] != UINT64_MAX && m->flag[jobs[j].ids[i]])
                jobs[j].ids[i] = m->to[jobs[j].ids[i]];
    }
    memset(m->flag, 0, vtable_max_states(t));
}

/* block == 0: ids from the shared counter; else blocks of that many ids,
 * closed at the end of every round (the explorer's quiet points). */
static void test_concurrent_growing(uint32_t words, unsigned nthreads, uint64_t k, uint64_t round, uint32_t block)
{
    if (block > 1 && round % block == 0)
        check(0, "test_concurrent_growing: round %llu must not be a multiple of block %u",
              (unsigned long long)round, block);
    char what[96];
    snprintf(what, sizeof what, "growing words=%u threads=%u k=%llu block=%u", words, nthreads,
             (unsigned long long)k, block);
    uint64_t rng = seed ^ words ^ ((uint64_t)nthreads << 20);
    uint32_t *pool = make_pool(k, words, &rng);
    struct vtable *t;
    struct wx_error e;
    if (!check(vtable_new(&t, words, k * 4, &e) == WX_OK, "%s: vtable_new", what))
        return;
    struct job jobs[64];
    memset(jobs, 0, sizeof jobs);
    for (unsigned j = 0; j < nthreads; j++) {
        jobs[j].t = t, jobs[j].pool = pool, jobs[j].words = words;
        jobs[j].ids = malloc(k * sizeof(uint64_t));
        for (uint64_t i = 0; i < k; i++)
            jobs[j].ids[i] = UINT64_MAX;
        jobs[j].seed = rng_next(&rng);
        jobs[j].block = block;
    }
    struct moves mv = {calloc(k * 4, sizeof(uint64_t)), calloc(k * 4, 1), 0, 0};
    if (block)
        vtable_set_block(t, block);
    unsigned grows = 0;
    uint64_t full = 0, inserted = 0;
    for (uint64_t b = 0; b < k; b += round) {
        /* Grow as an explorer does at a quiet point: when wanted, and here
         * also ahead of a round that would pass the load limit (3/4). */
        while (vtable_can_grow(t)
               && (vtable_wants_grow(t) || (vtable_count(t) + round) * 4 > vtable_slots(t) * 3))
            grow_parallel(t, jobs, nthreads), grows++;
        for (unsigned j = 0; j < nthreads; j++)
            jobs[j].begin = b, jobs[j].end = b + round < k ? b + round : k;
        run_threads(jobs, nthreads, insert_job);
        if (block)
            close_round(t, jobs, nthreads, jobs[0].begin, jobs[0].end, &mv);
    }
    for (unsigned j = 0; j < nthreads; j++)
        full += jobs[j].full, inserted += jobs[j].inserted;
    /* Every round inserts exactly end - begin new vectors, split among the
     * threads' blocks in any way; a round size that is not a multiple of
     * block leaves at least one hole at its close whatever the schedule. */
    if (block > 1)
        check(mv.holes > 0, "%s: closing blocks left %llu unused ids (%llu vectors renumbered)", what,
              (unsigned long long)mv.holes, (unsigned long long)mv.n);
    free(mv.to), free(mv.flag);
    CHECK_EQ_U64(full, 0, "%s: no FULL below capacity", what);
    CHECK_EQ_U64(inserted, k, "%s: exactly one INSERTED per distinct vector", what);
    CHECK_EQ_U64(vtable_count(t), k, "%s: count", what);
    check(grows > 0, "%s: the table grew (%u times, %llu slots)", what, grows,
          (unsigned long long)vtable_slots(t));
    check_ids(t, pool, words, k, jobs, nthreads, what);
    for (unsigned j = 0; j < nthreads; j++)
        free(jobs[j].ids);
    vtable_free(t);
    free(pool);
}

static void test_concurrent_full(uint32_t words, unsigned nthreads, uint64_t cap, uint64_t k)
{
    char what[96];
    snprintf(what, sizeof what, "full words=%u threads=%u cap=%llu k=%llu", words, nthreads,
             (unsigned long long)cap, (unsigned long long)k);
    uint64_t rng = seed ^ cap ^ ((uint64_t)words << 40);
    uint32_t *pool = make_pool(k, words, &rng);
    struct vtable *t;
    struct wx_error e;
    if (!check(vtable_new(&t, words, cap, &e) == WX_OK, "%s: vtable_new", what))
        return;
    check(!vtable_can_grow(t), "%s: a small table starts at its largest", what);
    struct job jobs[64];
    memset(jobs, 0, sizeof jobs);
    uint64_t full = 0, inserted = 0;
    for (unsigned j = 0; j < nthreads; j++) {
        jobs[j].t = t, jobs[j].pool = pool, jobs[j].words = words;
        jobs[j].ids = malloc(k * sizeof(uint64_t));
        jobs[j].seed = rng_next(&rng);
        jobs[j].begin = 0, jobs[j].end = k;
    }
    run_threads(jobs, nthreads, insert_job);
    for (unsigned j = 0; j < nthreads; j++)
        full += jobs[j].full, inserted += jobs[j].inserted;
    check(full > 0, "%s: FULL reported (%llu times)", what, (unsigned long long)full);
    CHECK_EQ_U64(vtable_count(t), cap, "%s: filled exactly to capacity", what);
    CHECK_EQ_U64(inserted, cap, "%s: INSERTED count == capacity", what);
    check_ids(t, pool, words, k, jobs, nthreads, what);
    for (unsigned j = 0; j < nthreads; j++)
        free(jobs[j].ids);
    vtable_free(t);
    free(pool);
}

static void test_basic(void)
{
    struct vtable *t;
    struct wx_error e;
    check(vtable_new(&t, 0, 10, &e) == WX_EINPUT, "words 0 rejected");
    check(vtable_new(&t, 2, 0, &e) == WX_ELIMIT, "capacity 0 is a limit");
    if (!check(vtable_new(&t, 2, 100, &e) == WX_OK, "vtable_new 2 words"))
        return;
    uint32_t a[2] = { 1, 2 }, b[2] = { 2, 1 }, z[2] = { 0, 0 };
    uint64_t id = 99;
    check(vtable_lookup(t, a, VTABLE_FIND, &id) == VTABLE_ABSENT, "FIND in an empty table: ABSENT");
    check(vtable_lookup(t, z, VTABLE_INSERT, &id) == VTABLE_INSERTED && id == 0, "zero vector gets id 0");
    check(vtable_lookup(t, a, VTABLE_INSERT, &id) == VTABLE_INSERTED && id == 1, "a gets id 1");
    check(vtable_lookup(t, b, VTABLE_INSERT, &id) == VTABLE_INSERTED && id == 2, "b gets id 2");
    check(vtable_lookup(t, a, VTABLE_INSERT, &id) == VTABLE_FOUND && id == 1, "a again: FOUND 1");
    check(vtable_lookup(t, b, VTABLE_FIND, &id) == VTABLE_FOUND && id == 2, "FIND b: 2");
    CHECK_EQ_U64(vtable_count(t), 3, "count after 3 inserts");
    check(vtable_bytes(t) >= 3 * 8, "bytes counts the store");
    check(vtable_hash(a, 2) != vtable_hash(b, 2), "hash tells word order apart");
    vtable_free(t);

    /* Budget arithmetic. */
    uint64_t per = vtable_bytes_per_state(3);
    CHECK_EQ_U64(per, 3 * 4 + 22, "bytes per state of 3 words (12 + 16/0.75 rounded up: wide keyed slots)");
    CHECK_EQ_U64(vtable_bytes_per_state(2), 2 * 4 + 11, "bytes per state of 2 words (8 + 8/0.75 rounded up)");
    CHECK_EQ_U64(vtable_bytes_per_state(4), 4 * 4 + 22, "bytes per state of 4 words (16 + 16/0.75 rounded up)");
    CHECK_EQ_U64(vtable_bytes_per_state(5), 5 * 4 + 11, "bytes per state of 5 words (20 + 8/0.75 rounded up)");
    CHECK_EQ_U64(vtable_states_for_budget(per * 1000 + per - 1, 3, 0), 1000, "states for a budget");
    CHECK_EQ_U64(vtable_states_for_budget((per + 12) * 10, 3, 12), 10, "states for a budget with extras");
    CHECK_EQ_U64(vtable_states_for_budget(per - 1, 3, 0), 0, "budget below one state");

    /* Capacity 1: the second vector is FULL and the first still FOUND. */
    if (check(vtable_new(&t, 1, 1, &e) == WX_OK, "vtable_new capacity 1")) {
        uint32_t x = 7, y = 8;
        check(vtable_lookup(t, &x, VTABLE_INSERT, &id) == VTABLE_INSERTED, "capacity 1: first inserted");
        check(vtable_lookup(t, &y, VTABLE_INSERT, &id) == VTABLE_FULL, "capacity 1: second FULL");
        check(vtable_lookup(t, &x, VTABLE_INSERT, &id) == VTABLE_FOUND && id == 0,
              "capacity 1: FULL never hides FOUND");
        check(vtable_lookup(t, &y, VTABLE_FIND, &id) == VTABLE_ABSENT, "capacity 1: rejected one ABSENT");
        CHECK_EQ_U64(vtable_count(t), 1, "capacity 1: count");
        uint32_t *s = vtable_take_store(t);
        check(s && s[0] == 7, "take_store hands over the vectors");
        free(s);
        vtable_free(t);
    }
}

int main(void)
{
    const char *s = getenv("WX_SEED");
    if (s)
        seed = strtoull(s, NULL, 0);
    printf("# test_hash seed %llu (set WX_SEED to change)\n", seed);
    test_basic();
    test_concurrent_growing(1, 8, 120000, 15000, 0);
    test_concurrent_growing(3, 8, 150000, 20000, 0);
    test_concurrent_growing(7, 5, 60000, 9000, 0);
    test_concurrent_growing(1, 8, 120000, 15000, 64);
    test_concurrent_growing(2, 6, 80000, 7001, 5); /* rounds not multiples of 5: holes */
    test_concurrent_growing(3, 3, 50000, 333, 1);
    test_concurrent_full(2, 8, 1000, 3000);
    test_concurrent_full(5, 16, 5000, 9000);
    test_concurrent_full(1, 3, 1, 50);
    return check_exit();
}
