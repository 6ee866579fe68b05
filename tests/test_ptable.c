/*
 * test_ptable.c -- the pair table with 4-byte slots (hash/ptable.h).
 *
 * Against an independent reference (hash/vecset.h): random pairs with many
 * duplicates inserted from several threads at once, without id blocks (as
 * the node table) and with them (as the root table), growing from the
 * smallest array through many sizes (so the id field widens and the tag
 * narrows): every distinct pair exactly one id, all threads agree, ids
 * dense, each id's pair stored; FIND of pairs never inserted is ABSENT; a
 * table at its capacity answers FULL and keeps everything it took.  Seed:
 * WX_SEED (default fixed), printed.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "hash/ptable.h"
#include "hash/vecset.h"
#include "util/pool.h"

struct conc {
    struct ptable *t;
    const uint32_t *pairs;
    uint64_t n;
    uint64_t *ids;          /* nthreads * n */
    uint64_t *next;         /* per thread */
    struct vtable_ids *blk; /* per thread, or NULL: no blocks */
    _Atomic int full;
};

static void job(void *arg, int m, int size)
{
    struct conc *c = arg;
    const uint64_t stride = 2 * (uint64_t)m + 1;
    for (; c->next[m] < c->n; c->next[m]++) {
        const uint64_t i = (c->next[m] * stride + (uint64_t)m * 31) % c->n;
        const uint32_t *p = c->pairs + 2 * i;
        const uint64_t h = vtable_hash_inline(p, 2);
        uint64_t id;
        enum vtable_outcome o = c->blk ? ptable_insert_block(c->t, p, h, &c->blk[m], &id)
                                       : ptable_lookup(c->t, p, h, VTABLE_INSERT, &id);
        if (o == VTABLE_FULL) {
            atomic_store(&c->full, 1);
            return;
        }
        c->ids[(uint64_t)m * c->n + i] = id;
    }
}

/* The answers of closed blocks' moved ids follow them (few: at most one
 * block per thread). */
struct moves {
    uint64_t n, from[4096], to[4096];
};

static void on_moved(void *ctx, uint64_t from, uint64_t to)
{
    struct moves *mv = ctx;
    if (mv->n < 4096)
        mv->from[mv->n] = from, mv->to[mv->n] = to;
    mv->n++;
}

static void run_rounds(struct conc *c, struct wx_pool *pool, int nt, uint64_t *grows)
{
    struct wx_error e;
    for (;;) {
        atomic_store(&c->full, 0);
        wx_pool_run(pool, job, c);
        if (c->blk) {
            struct moves *mv = calloc(1, sizeof *mv);
            ptable_close_blocks(c->t, c->blk, (unsigned)nt, on_moved, mv, &e);
            check(mv->n <= 4096, "close blocks moved %llu ids", (unsigned long long)mv->n);
            for (uint64_t i = 0; i < (uint64_t)nt * c->n && mv->n; i++)
                for (uint64_t k = 0; k < mv->n; k++)
                    if (c->ids[i] == mv->from[k]) {
                        c->ids[i] = mv->to[k];
                        break;
                    }
            free(mv);
        }
        if (!atomic_load(&c->full) || !ptable_can_grow(c->t))
            return;
        ptable_grow_begin(c->t, &e);
        ptable_grow_part(c->t, 0, ptable_count(c->t));
        ptable_grow_end(c->t);
        ++*grows;
    }
}

static void test_concurrent(uint64_t n, int nt, bool blocks, uint32_t spread)
{
    uint32_t *pairs = malloc(n * 8);
    for (uint64_t i = 0; i < 2 * n; i++)
        pairs[i] = rnd_below(4) ? (uint32_t)rnd_below(spread) : (uint32_t)rnd();
    struct conc c = { .pairs = pairs, .n = n };
    struct wx_error e;
    check(ptable_new(&c.t, n + 64, &e) == WX_OK, "new table of %llu pairs", (unsigned long long)n + 64);
    struct wx_pool *pool = wx_pool_new(nt);
    nt = wx_pool_size(pool);
    c.ids = malloc(nt * n * sizeof *c.ids);
    c.next = calloc(nt, sizeof *c.next);
    if (blocks) {
        c.blk = calloc(nt, sizeof *c.blk);
        ptable_set_block(c.t, 8);
    }
    uint64_t grows = 0;
    run_rounds(&c, pool, nt, &grows);
    struct vecset ref;
    vecset_init(&ref, 2, n, &e);
    uint64_t rid, disagree = 0, bad = 0, absent = 0;
    for (uint64_t i = 0; i < n; i++)
        vecset_put(&ref, pairs + 2 * i, &rid, &e);
    const uint64_t count = ptable_count(c.t);
    uint8_t *seen = calloc(count ? count : 1, 1);
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t id = c.ids[i];
        for (int m = 1; m < nt; m++)
            disagree += c.ids[(uint64_t)m * n + i] != id;
        if (id >= count || memcmp(ptable_pair(c.t, id), pairs + 2 * i, 8)) {
            bad++;
            continue;
        }
        seen[id] = 1;
    }
    uint64_t unseen = 0;
    for (uint64_t id = 0; id < count; id++)
        unseen += !seen[id];
    for (int k = 0; k < 1000; k++) {
        uint32_t p[2] = { (uint32_t)rnd(), (uint32_t)rnd() | 1u << 31 };
        uint64_t id;
        absent += (ptable_lookup(c.t, p, vtable_hash_inline(p, 2), VTABLE_FIND, &id) != VTABLE_ABSENT)
                  != vecset_find(&ref, p, &id);
    }
    check(count == ref.count && disagree == 0 && bad == 0 && unseen == 0 && absent == 0,
          "%d threads, %s, %llu pairs (%llu distinct, reference %llu, %llu growths to %llu slots): "
          "%llu disagreements, %llu bad ids, %llu ids unused, %llu wrong finds (seed %llu)",
          nt, blocks ? "id blocks" : "no blocks", (unsigned long long)n, (unsigned long long)count,
          (unsigned long long)ref.count, (unsigned long long)grows, (unsigned long long)ptable_slots(c.t),
          (unsigned long long)disagree, (unsigned long long)bad, (unsigned long long)unseen,
          (unsigned long long)absent, (unsigned long long)rng_state);
    check(ptable_bytes(c.t) == ptable_slots(c.t) * 4 + count * 8, "bytes: 4 per slot, 8 per pair");
    free(seen);
    vecset_free(&ref);
    wx_pool_free(pool);
    free(c.ids), free(c.next), free(c.blk), free(pairs);
    ptable_free(c.t);
}

/* A table of capacity cap: FULL once cap pairs are in, everything kept. */
static void test_full(uint64_t cap)
{
    struct ptable *t;
    struct wx_error e;
    check(ptable_new(&t, cap, &e) == WX_OK, "new table of %llu pairs", (unsigned long long)cap);
    uint64_t i, id, lost = 0;
    enum vtable_outcome o = VTABLE_INSERTED;
    for (i = 0; i < 4 * cap && o != VTABLE_FULL; i++) {
        uint32_t p[2] = { (uint32_t)i, (uint32_t)(i * 7) };
        while ((o = ptable_lookup(t, p, vtable_hash_inline(p, 2), VTABLE_INSERT, &id)) == VTABLE_FULL
               && ptable_can_grow(t)) {
            ptable_grow_begin(t, &e);
            ptable_grow_part(t, 0, ptable_count(t));
            ptable_grow_end(t);
        }
    }
    for (uint64_t j = 0; j < ptable_count(t); j++) {
        uint32_t p[2] = { (uint32_t)j, (uint32_t)(j * 7) };
        lost += ptable_lookup(t, p, vtable_hash_inline(p, 2), VTABLE_FIND, &id) != VTABLE_FOUND || id != j;
    }
    check(o == VTABLE_FULL && ptable_count(t) == cap && lost == 0,
          "full table of %llu: FULL after %llu pairs, %llu lost", (unsigned long long)cap,
          (unsigned long long)ptable_count(t), (unsigned long long)lost);
    ptable_free(t);
}

int main(void)
{
    const char *env = getenv("WX_SEED");
    rng_state = env ? strtoull(env, NULL, 0) : 20261207;
    if (!rng_state)
        rng_state = 1;
    printf("seed %llu (WX_SEED)\n", (unsigned long long)rng_state);
    test_concurrent(1u << 18, 4, false, 600);
    test_concurrent(1u << 18, 4, true, 600);
    test_concurrent(1u << 16, 3, false, 20);
    test_concurrent(1u << 20, 2, true, 1u << 20);
    test_full(1000);
    test_full(100000);
    return check_exit();
}
