/*
 * test_treestore.c -- the tree-compressed state store (hash/treestore.h).
 *
 * Against an independent reference (hash/vecset.h: its own hash and probe
 * loop): random vectors of 1 .. 40 words with duplicates and shared
 * sub-vectors, inserted one thread at a time (ids must equal the
 * reference's, in first-occurrence order) and from several threads at once
 * (util/pool.h; every distinct vector exactly one id, all threads agree,
 * ids dense, each id unfolds to its vector); growth from the smallest
 * tables; full node and root tables (WX_ELIMIT with the counts reached,
 * nothing lost).  Seed: WX_SEED (default fixed), printed.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "tree_shape_rand.h"
#include "hash/treeshape.h"
#include "hash/treestore.h"
#include "hash/vecset.h"
#include "kernels/tree_gpu.h"
#include "util/pool.h"

/* n random vectors of `words` words: each word from a few values (so
 * sub-vectors repeat, as in real networks), some words wide, and a fifth of
 * the vectors copies of earlier ones. */
static uint32_t *random_vectors(uint64_t n, uint32_t words)
{
    uint32_t *p = malloc(n * words * 4);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t *v = p + i * words;
        if (i > 0 && rnd_below(5) == 0) {
            memcpy(v, p + rnd_below(i) * words, words * 4);
            continue;
        }
        for (uint32_t w = 0; w < words; w++)
            v[w] = rnd_below(4) == 0 ? (uint32_t)rnd() : (uint32_t)rnd_below(3 + w % 5);
        v[words - 1] &= 0x7fffffffu; /* image.h: bit 31 of the last word is never a field */
    }
    return p;
}

static const char *shape_name(const struct tree_shape *sh) { return sh ? "random shape" : "balanced"; }

/* One thread, growing from the smallest tables: ids equal the reference's,
 * with the balanced shape (sh NULL) or sh. */
static void test_sequential(uint32_t words, uint64_t n, const struct tree_shape *sh)
{
    uint32_t *vecs = random_vectors(n, words);
    struct treestore *s;
    struct vecset ref;
    struct wx_error e;
    uint64_t max_states, max_nodes;
    treestore_plan(1ull << 30, words, 0, &max_states, &max_nodes);
    check(treestore_new(&s, words, max_states, max_nodes, &e) == WX_OK, "new %u words", words);
    if (sh)
        check(treestore_set_shape(s, sh, &e) == WX_OK, "set a %u-word shape", words);
    vecset_init(&ref, words, n + 2000, &e);
    uint64_t bad_id = 0, bad_added = 0, bad_get = 0, absent = 0;
    uint32_t buf[64];
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t *v = vecs + i * words;
        uint64_t id, rid;
        int put = treestore_put(s, v, &id, &e);
        int rput = vecset_put(&ref, v, &rid, &e);
        bad_added += put != rput;
        bad_id += id != rid;
    }
    for (uint64_t id = 0; id < ref.count; id++) {
        treestore_get(s, id, buf);
        bad_get += memcmp(buf, ref.vec + id * words, words * 4) != 0;
        uint64_t f;
        bad_get += treestore_find(s, ref.vec + id * words, &f) != VTABLE_FOUND || f != id;
    }
    /* vectors never inserted: the reference says which */
    for (int k = 0; k < 200; k++) {
        for (uint32_t w = 0; w < words; w++)
            buf[w] = (uint32_t)rnd_below(3 + w % 5);
        buf[words - 1] &= 0x7fffffffu;
        uint64_t f, rf;
        int in_ref = vecset_find(&ref, buf, &rf);
        enum vtable_outcome o = treestore_find(s, buf, &f);
        absent += in_ref ? (o != VTABLE_FOUND || f != rf) : o != VTABLE_ABSENT;
    }
    /* Two-step inserts against a reference state (treestore_fold): the
     * root of b folded with a's subtree values is b's root; a vector that
     * is new gets the id a plain find then reports. */
    uint64_t bad_fold = 0;
    uint32_t va[64], vals[64], root[2];
    for (int k = 0; k < 2000 && ref.count > 0; k++) {
        uint64_t a = rnd_below(ref.count), b = rnd_below(ref.count), id, f;
        treestore_get_tree(s, a, va, vals);
        const uint32_t *vb = ref.vec + b * words;
        if (k % 2) { /* a new vector: a's with one word changed */
            memcpy(buf, va, words * 4);
            buf[rnd_below(words)] ^= 1u << rnd_below(words > 1 ? 31 : 30);
            vb = buf;
        }
        enum vtable_outcome o = treestore_fold(s, vb, va, vals, root);
        while (o == VTABLE_FULL || (o = treestore_insert_root(s, root, treestore_root_hash(s, root), NULL, &id))
                                       == VTABLE_FULL) {
            treestore_grow_begin(s, &e);
            treestore_grow_part(s, 0, treestore_grow_work(s));
            treestore_grow_end(s);
            o = treestore_fold(s, vb, va, vals, root);
        }
        if (k % 2 == 0)
            bad_fold += o != VTABLE_FOUND || id != b;
        else
            bad_fold += treestore_find(s, vb, &f) != VTABLE_FOUND || f != id;
        if (k % 2 && o == VTABLE_INSERTED)
            vecset_put(&ref, vb, &f, &e), bad_fold += f != id;
    }
    check(bad_fold == 0, "two-step inserts %u words, %s: %llu wrong (seed %llu)", words, shape_name(sh),
          (unsigned long long)bad_fold, (unsigned long long)rng_state);
    check(bad_added == 0 && bad_id == 0 && bad_get == 0 && absent == 0 && treestore_count(s) == ref.count,
          "sequential %u words, %s, %llu vectors (%llu distinct, %llu nodes, %.1f bytes/state): "
          "added/id/get/find mismatches %llu/%llu/%llu/%llu (seed %llu)",
          words, shape_name(sh), (unsigned long long)n, (unsigned long long)ref.count,
          (unsigned long long)treestore_nodes(s), (double)treestore_bytes(s) / (ref.count ? ref.count : 1),
          (unsigned long long)bad_added, (unsigned long long)bad_id, (unsigned long long)bad_get,
          (unsigned long long)absent, (unsigned long long)rng_state);
    treestore_free(s);
    vecset_free(&ref);
    free(vecs);
}

/* ---- concurrent inserts ---- */

struct conc {
    struct treestore *s;
    const uint32_t *vecs;
    uint32_t words;
    uint64_t n;
    uint64_t *ids;           /* nthreads * n: each thread's answer */
    uint64_t *next;          /* per thread: next index to insert */
    struct vtable_ids *blk;  /* per thread: its id block */
    _Atomic int full;
    _Atomic uint64_t inserted;
};

/* Member m inserts every vector, in an order of its own (a stride walk),
 * until a FULL: then the round ends for it, to grow at the quiet point. */
static void conc_job(void *arg, int m, int size)
{
    struct conc *c = arg;
    const uint64_t stride = 2 * (uint64_t)m + 1; /* odd; n is a power of 2 */
    for (; c->next[m] < c->n; c->next[m]++) {
        const uint64_t i = (c->next[m] * stride + (uint64_t)m * 977) % c->n;
        uint64_t id;
        enum vtable_outcome o = treestore_insert(c->s, c->vecs + i * c->words, &c->blk[m], &id);
        if (o == VTABLE_FULL) {
            atomic_store(&c->full, 1);
            return;
        }
        if (o == VTABLE_INSERTED)
            atomic_fetch_add(&c->inserted, 1);
        c->ids[(uint64_t)m * c->n + i] = id;
    }
}

static void grow_part(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    treestore_grow_part(arg, lo, hi);
}

/* Closing the blocks renumbers ids: the threads' answers follow. */
struct moves {
    uint64_t n, from[1024], to[1024];
};

static void on_moved(void *ctx, uint64_t from, uint64_t to)
{
    struct moves *mv = ctx;
    if (mv->n < 1024)
        mv->from[mv->n] = from, mv->to[mv->n] = to;
    mv->n++;
}

static void close_and_remap(struct conc *c, int nt)
{
    struct moves mv = { 0 };
    struct wx_error e;
    check(treestore_close_blocks(c->s, c->blk, (unsigned)nt, on_moved, &mv, &e) == WX_OK && mv.n <= 1024,
          "close blocks (%llu ids moved)", (unsigned long long)mv.n);
    for (uint64_t i = 0; i < (uint64_t)nt * c->n && mv.n; i++)
        for (uint64_t k = 0; k < mv.n && k < 1024; k++)
            if (c->ids[i] == mv.from[k]) {
                c->ids[i] = mv.to[k];
                break;
            }
}

/* Rounds until every thread inserted everything; growth (after closing the
 * id blocks, as the explorer does) at the quiet point between rounds. */
static void conc_round(struct conc *c, struct wx_pool *pool, int nt)
{
    struct wx_error e;
    for (int round = 0;; round++) {
        atomic_store(&c->full, 0);
        wx_pool_run(pool, conc_job, c);
        close_and_remap(c, nt);
        if (!atomic_load(&c->full))
            return;
        if (!treestore_can_grow(c->s) || treestore_grow_begin(c->s, &e) != WX_OK) {
            check(0, "concurrent: FULL without growth");
            return;
        }
        wx_pool_for(pool, treestore_grow_work(c->s), nt * 4, grow_part, c->s);
        treestore_grow_end(c->s);
    }
}

static void test_concurrent(uint32_t words, uint64_t n, int nt)
{
    struct conc c = { .words = words, .n = n };
    uint32_t *vecs = random_vectors(n, words);
    c.vecs = vecs;
    struct wx_error e;
    uint64_t max_states, max_nodes;
    treestore_plan(1ull << 30, words, 0, &max_states, &max_nodes);
    treestore_new(&c.s, words, max_states, max_nodes, &e);
    treestore_set_block(c.s, 16);
    if (words >= 5) { /* the fold along a random shape */
        struct tree_shape sh;
        random_shape(words, &sh);
        treestore_set_shape(c.s, &sh, &e);
    }
    struct wx_pool *pool = wx_pool_new(nt);
    nt = wx_pool_size(pool);
    c.ids = malloc(nt * n * sizeof *c.ids);
    c.next = calloc(nt, sizeof *c.next);
    c.blk = calloc(nt, sizeof *c.blk);
    for (uint64_t i = 0; i < nt * n; i++)
        c.ids[i] = UINT64_MAX;
    conc_round(&c, pool, nt);
    struct vecset ref;
    vecset_init(&ref, words, n, &e);
    uint64_t disagree = 0, bad_get = 0, dup = 0;
    uint32_t buf[64];
    for (uint64_t i = 0; i < n; i++) {
        uint64_t rid;
        vecset_put(&ref, vecs + i * words, &rid, &e);
    }
    const uint64_t count = treestore_count(c.s);
    uint8_t *seen = calloc(count ? count : 1, 1);
    for (uint64_t r = 0; r < ref.count; r++) {
        uint64_t f;
        if (treestore_find(c.s, ref.vec + r * words, &f) != VTABLE_FOUND || f >= count) {
            bad_get++;
            continue;
        }
        dup += seen[f]++ != 0;
        treestore_get(c.s, f, buf);
        bad_get += memcmp(buf, ref.vec + r * words, words * 4) != 0;
    }
    /* Every thread's answer for vector i is the id the store finds for it. */
    for (uint64_t i = 0; i < n; i++) {
        uint64_t f = UINT64_MAX;
        treestore_find(c.s, vecs + i * words, &f);
        for (int m = 0; m < nt; m++)
            if (c.ids[(uint64_t)m * n + i] != f) {
                disagree++;
                break;
            }
    }
    check(count == ref.count && atomic_load(&c.inserted) == ref.count && disagree == 0 && bad_get == 0 && dup == 0,
          "concurrent %d threads, %u words, %llu vectors: %llu states (reference %llu), %llu inserted, "
          "%llu disagreements, %llu bad, %llu duplicate ids (seed %llu)",
          nt, words, (unsigned long long)n, (unsigned long long)count, (unsigned long long)ref.count,
          (unsigned long long)atomic_load(&c.inserted), (unsigned long long)disagree,
          (unsigned long long)bad_get, (unsigned long long)dup, (unsigned long long)rng_state);
    free(seen);
    vecset_free(&ref);
    wx_pool_free(pool);
    free(c.ids), free(c.next), free(c.blk);
    treestore_free(c.s);
    free(vecs);
}

/* Keyed roots (treestore_new_keyed), from several threads: FOUND has no
 * id, so the check is that the ids 0 .. count - 1 unfold to exactly the
 * distinct vectors, each once. */
static void test_keyed(uint32_t words, uint64_t n, int nt)
{
    struct conc c = { .words = words, .n = n };
    uint32_t *vecs = random_vectors(n, words);
    c.vecs = vecs;
    struct wx_error e;
    uint64_t max_states, max_nodes;
    treestore_plan(1ull << 30, words, 0, &max_states, &max_nodes);
    treestore_new_keyed(&c.s, words, max_states, max_nodes, &e);
    treestore_set_block(c.s, 16);
    struct wx_pool *pool = wx_pool_new(nt);
    nt = wx_pool_size(pool);
    c.ids = malloc(nt * n * sizeof *c.ids);
    c.next = calloc(nt, sizeof *c.next);
    c.blk = calloc(nt, sizeof *c.blk);
    conc_round(&c, pool, nt);
    struct vecset ref, got;
    vecset_init(&ref, words, n, &e);
    vecset_init(&got, words, n, &e);
    uint64_t id, missing = 0, dup = 0;
    for (uint64_t i = 0; i < n; i++)
        vecset_put(&ref, vecs + i * words, &id, &e);
    const uint64_t count = treestore_count(c.s);
    uint32_t buf[64];
    for (uint64_t k = 0; k < count; k++) {
        treestore_get(c.s, k, buf);
        dup += vecset_put(&got, buf, &id, &e) != 1;
        missing += !vecset_find(&ref, buf, &id);
    }
    check(count == ref.count && atomic_load(&c.inserted) == ref.count && dup == 0 && missing == 0,
          "keyed roots, %d threads, %u words: %llu states (reference %llu), %llu duplicates, %llu unknown "
          "(seed %llu)", nt, words, (unsigned long long)count, (unsigned long long)ref.count,
          (unsigned long long)dup, (unsigned long long)missing, (unsigned long long)rng_state);
    vecset_free(&ref), vecset_free(&got);
    wx_pool_free(pool);
    free(c.ids), free(c.next), free(c.blk);
    treestore_free(c.s);
    free(vecs);
}

/* ---- shapes ---- */

/* n vectors like a lockstep network beside a free component: words
 * 0 .. words - 2 follow one counter of 100 values, the last word varies on
 * its own. */
static uint32_t *lockstep_vectors(uint64_t n, uint32_t words)
{
    uint32_t *p = malloc(n * words * 4);
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t c = (uint32_t)rnd_below(100);
        for (uint32_t w = 0; w + 1 < words; w++)
            p[i * words + w] = c * 7 + w;
        p[i * words + words - 1] = (uint32_t)rnd_below(1u << 20) << 7 | c;
    }
    return p;
}

/* Nodes of a store holding vecs with shape sh (NULL: balanced). */
static uint64_t nodes_with(uint32_t words, const uint32_t *vecs, uint64_t n, const struct tree_shape *sh)
{
    struct treestore *s;
    struct wx_error e;
    uint64_t max_states, max_nodes, id;
    treestore_plan(1ull << 28, words, 0, &max_states, &max_nodes);
    treestore_new(&s, words, max_states, max_nodes, &e);
    if (sh)
        treestore_set_shape(s, sh, &e);
    for (uint64_t i = 0; i < n; i++)
        treestore_put(s, vecs + i * words, &id, &e);
    const uint64_t nodes = treestore_nodes(s);
    treestore_free(s);
    return nodes;
}

/* Shapes: random ones are valid and broken ones are not; a store takes a
 * shape only while empty; the greedy choice puts a word that varies on its
 * own next to the root and saves the nodes the balanced shape spends. */
static void test_shapes(void)
{
    struct tree_shape sh;
    struct wx_error e;
    uint64_t bad = 0;
    for (int k = 0; k < 500; k++) {
        const uint32_t words = 1 + (uint32_t)rnd_below(64);
        random_shape(words, &sh);
        bad += !tree_shape_valid(&sh);
        if (words >= 2) {
            struct tree_shape b = sh;
            b.perm[0] = k % 2 ? b.perm[1] : (uint8_t)words; /* a repeated word, or none such */
            bad += tree_shape_valid(&b);
            b = sh;
            b.left[rnd_below(words - 1)] = k % 2 ? 0 : 64;
            bad += tree_shape_valid(&b);
        }
    }
    check(bad == 0, "500 random shapes valid, their broken copies not: %llu wrong (seed %llu)",
          (unsigned long long)bad, (unsigned long long)rng_state);

    struct treestore *s;
    uint64_t max_states, max_nodes, id;
    treestore_plan(1ull << 24, 6, 0, &max_states, &max_nodes);
    treestore_new(&s, 6, max_states, max_nodes, &e);
    random_shape(7, &sh);
    int wrong_words = treestore_set_shape(s, &sh, &e);
    random_shape(6, &sh);
    int empty = treestore_set_shape(s, &sh, &e);
    uint32_t v[6] = { 1, 2, 3, 4, 5, 6 };
    treestore_put(s, v, &id, &e);
    int late = treestore_set_shape(s, &sh, &e);
    check(wrong_words == WX_EINPUT && empty == WX_OK && late == WX_EINPUT,
          "set_shape: a 7-word shape on 6 words %d, while empty %d, after an insert %d (want 2, 0, 2)",
          wrong_words, empty, late);
    treestore_free(s);

    static const uint32_t lw[] = { 3, 8, 33 };
    for (size_t k = 0; k < sizeof lw / sizeof *lw; k++) {
        const uint32_t words = lw[k];
        const uint64_t n = 20000;
        uint32_t *vecs = lockstep_vectors(n, words);
        tree_shape_pick(words, vecs, 4096, &sh, &e);
        const uint64_t picked = nodes_with(words, vecs, n, &sh), bal = nodes_with(words, vecs, n, NULL);
        check(tree_shape_valid(&sh) && sh.left[0] == words - 1 && sh.perm[words - 1] == words - 1
                  && picked <= 100 * (words - 2) && (words == 3 || picked < bal / 10),
              "picked shape, %u lockstep words: root splits %u + 1 leaves (want %u + 1, last word %u), "
              "%llu nodes (balanced: %llu) (seed %llu)",
              words, sh.left[0], words - 1, sh.perm[words - 1], (unsigned long long)picked,
              (unsigned long long)bal, (unsigned long long)rng_state);
        free(vecs);
    }
    static const uint32_t rw[] = { 1, 2, 3, 4, 9, 32, 64 };
    for (size_t k = 0; k < sizeof rw / sizeof *rw; k++) {
        uint32_t *vecs = random_vectors(3000, rw[k]);
        struct tree_shape bal;
        tree_shape_balanced(rw[k], &bal);
        int rc = tree_shape_pick(rw[k], vecs, 3000, &sh, &e);
        check(rc == WX_OK && tree_shape_valid(&sh) && (rw[k] > 2 || !memcmp(&sh, &bal, sizeof sh)),
              "picked shape of random %u-word vectors is valid (seed %llu)", rw[k],
              (unsigned long long)rng_state);
        free(vecs);
    }
    tree_shape_pick(5, NULL, 0, &sh, &e);
    struct tree_shape bal;
    tree_shape_balanced(5, &bal);
    check(!memcmp(&sh, &bal, sizeof sh), "an empty sample gives the balanced shape");
}

/* ---- full tables ---- */

/* A store with room for max_states roots and max_nodes nodes: inserting
 * until it refuses gives WX_ELIMIT with the counts in the message, and
 * every vector accepted before stays found and unfolds to itself. */
static void test_full(uint32_t words, uint64_t max_states, uint64_t max_nodes, const char *what)
{
    const uint64_t n = 4096;
    uint32_t *vecs = random_vectors(n, words);
    struct treestore *s;
    struct wx_error e;
    treestore_new(&s, words, max_states, max_nodes, &e);
    uint64_t i, id, accepted = 0;
    int put = 0;
    for (i = 0; i < n && (put = treestore_put(s, vecs + i * words, &id, &e)) >= 0; i++)
        accepted += put;
    char want[64];
    snprintf(want, sizeof want, "after %llu states", (unsigned long long)treestore_count(s));
    check(put < 0 && e.code == WX_ELIMIT && strstr(e.msg, want) && strstr(e.msg, "nodes"),
          "full %s table: refused at vector %llu with \"%s\" (seed %llu)", what, (unsigned long long)i,
          put < 0 ? e.msg : "(not refused)", (unsigned long long)rng_state);
    uint64_t lost = 0;
    uint32_t buf[64];
    for (uint64_t j = 0; j < i; j++) {
        uint64_t f;
        if (treestore_find(s, vecs + j * words, &f) != VTABLE_FOUND) {
            lost++;
            continue;
        }
        treestore_get(s, f, buf);
        lost += memcmp(buf, vecs + j * words, words * 4) != 0;
    }
    check(lost == 0 && treestore_count(s) == accepted && accepted <= max_states,
          "full %s table: %llu accepted states all found (%llu lost, count %llu)", what,
          (unsigned long long)accepted, (unsigned long long)lost, (unsigned long long)treestore_count(s));
    treestore_free(s);
    free(vecs);
}

/* ---- the GPU fold's host model ---- */

/* Find-or-put of a pair in a host table of kernels/tree_gpu.h's layout
 * (64-bit slots, EMPTY all ones), probing linearly from an independent
 * hash: the slot. */
static uint64_t model_put(uint64_t *tab, uint64_t slots, uint64_t key)
{
    uint64_t i = (key * 0x9e3779b97f4a7c15ull >> 17) % slots;
    while (tab[i] != TREE_GPU_EMPTY && tab[i] != key)
        i = i + 1 == slots ? 0 : i + 1;
    tab[i] = key;
    return i;
}

/* v folded as the GPU folds it (tree_shape_postorder's order, subtrees of
 * all-ones words standing for TREE_GPU_ONES) into t: its root index.
 * keys (not NULL) gets position << 32 | value of each inner node below the
 * root. */
static uint64_t model_fold(struct tree_gpu_tables *t, const struct tree_shape_order *o, const uint32_t *v,
                           uint64_t *keys)
{
    uint32_t val[TREE_SHAPE_MAX_WORDS - 1];
    uint64_t pair = 0;
    for (uint32_t j = 0; j < o->inner; j++) {
        const uint32_t x = o->a[j] < TREE_SHAPE_NODE ? v[o->a[j]] : val[o->a[j] - TREE_SHAPE_NODE];
        const uint32_t y = o->b[j] < TREE_SHAPE_NODE ? v[o->b[j]] : val[o->b[j] - TREE_SHAPE_NODE];
        pair = (uint64_t)x | (uint64_t)y << 32;
        if (j + 1 < o->inner) {
            val[j] = pair == TREE_GPU_EMPTY ? TREE_GPU_ONES : (uint32_t)model_put(t->nodes, t->node_slots, pair);
            keys[j] = (uint64_t)j << 32 | val[j];
        }
    }
    return pair == TREE_GPU_EMPTY ? t->root_slots : model_put(t->roots, t->root_slots, pair);
}


/* Distinct (position, value) of the store's inner nodes below the roots:
 * as many as distinct (position, sub-vector), whatever the numbering. */
static uint64_t store_positions(const struct treestore *s, uint32_t words)
{
    const uint64_t n = treestore_count(s), per = words > 2 ? words - 2 : 0;
    uint64_t *k = malloc((n * per + 1) * sizeof *k);
    uint32_t vec[TREE_SHAPE_MAX_WORDS], vals[TREE_SHAPE_MAX_WORDS];
    for (uint64_t id = 0; id < n; id++) {
        treestore_get_tree(s, id, vec, vals);
        for (uint64_t p = 0; p < per; p++)
            k[id * per + p] = p << 32 | vals[p];
    }
    const uint64_t d = distinct_keys(k, n * per);
    free(k);
    return d;
}

/* tree_shape_postorder and tree_gpu_unfold, through the host model of the
 * GPU fold, against the CPU store on the same shape: every root unfolds to
 * its vector, equal vectors share a root and only they, and the inner
 * nodes stand for as many (position, sub-vector) as the store's. */
static void test_gpu_model(uint32_t words, uint64_t n, int ones)
{
    struct tree_shape sh;
    struct tree_shape_order o;
    struct wx_error e;
    random_shape(words, &sh);
    tree_shape_postorder(&sh, &o);
    uint32_t *vecs = random_vectors(n, words);
    for (uint64_t i = 0; ones && i < n * words; i++)
        if (rnd_below(8) == 0)
            vecs[i] = 0xffffffffu;
    struct tree_gpu_tables t = { .shape = sh, .node_slots = 2 * n * words + 64, .root_slots = 2 * n + 64 };
    t.nodes = malloc(t.node_slots * 8);
    t.roots = malloc(t.root_slots * 8);
    memset(t.nodes, 0xff, t.node_slots * 8);
    memset(t.roots, 0xff, t.root_slots * 8);
    struct treestore *s;
    uint64_t ms, mn;
    treestore_plan(1ull << 28, words, 0, &ms, &mn);
    treestore_new(&s, words, ms, mn, &e);
    treestore_set_shape(s, &sh, &e);
    uint64_t *root_of = malloc(n * sizeof *root_of), bad = 0, roots = 0;
    const uint64_t per = words > 2 ? words - 2 : 0;
    uint64_t *keys = malloc((n * per + 1) * sizeof *keys), *ukeys = malloc((n * per + 1) * sizeof *ukeys);
    for (uint64_t i = 0; i < n; i++)
        root_of[i] = UINT64_MAX;
    uint32_t buf[TREE_SHAPE_MAX_WORDS];
    for (uint64_t i = 0; i < n; i++) {
        uint64_t id;
        const uint64_t r = model_fold(&t, &o, vecs + i * words, keys + i * per);
        treestore_put(s, vecs + i * words, &id, &e);
        uint32_t vals[TREE_SHAPE_MAX_WORDS];
        tree_gpu_unfold_tree(&t, r, buf, vals);
        bad += memcmp(buf, vecs + i * words, words * 4u) != 0;
        for (uint64_t p = 0; p < per; p++)
            ukeys[i * per + p] = p << 32 | vals[p];
        roots += root_of[id] == UINT64_MAX;
        bad += root_of[id] != UINT64_MAX && root_of[id] != r;
        root_of[id] = r;
    }
    uint64_t nodes = 0, used_roots = 0;
    for (uint64_t i = 0; i < t.node_slots; i++)
        nodes += t.nodes[i] != TREE_GPU_EMPTY;
    for (uint64_t i = 0; i < t.root_slots; i++)
        used_roots += t.roots[i] != TREE_GPU_EMPTY;
    const uint64_t cpu_pos = store_positions(s, words), pos = distinct_keys(keys, n * per);
    const uint64_t upos = distinct_keys(ukeys, n * per);
    const uint64_t cpu_nodes = words > 2 ? treestore_nodes(s) : 0;
    uint64_t any_ones_root = 0; /* the all-ones vector's root is not a slot */
    for (uint64_t k = 0; k < treestore_count(s); k++)
        any_ones_root += root_of[k] == t.root_slots;
    check(bad == 0 && roots == treestore_count(s) && used_roots + any_ones_root == roots &&
              pos == cpu_pos && upos == pos && nodes <= pos && cpu_nodes <= cpu_pos && o.inner == words - 1,
          "GPU fold model, %u words, random shape%s: %llu wrong, %llu roots (%llu slots, store %llu), "
          "%llu nodes for %llu positional values (store %llu for %llu) (seed %llu)",
          words, ones ? ", all-ones words" : "", (unsigned long long)bad, (unsigned long long)roots,
          (unsigned long long)used_roots, (unsigned long long)treestore_count(s), (unsigned long long)nodes,
          (unsigned long long)pos, (unsigned long long)cpu_nodes, (unsigned long long)cpu_pos,
          (unsigned long long)rng_state);
    treestore_free(s);
    tree_gpu_tables_free(&t);
    free(root_of);
    free(keys);
    free(ukeys);
    free(vecs);
}

int main(void)
{
    const char *env = getenv("WX_SEED");
    rng_state = env ? strtoull(env, NULL, 0) : 20261206;
    if (!rng_state)
        rng_state = 1;
    printf("seed %llu (WX_SEED)\n", (unsigned long long)rng_state);
    static const uint32_t widths[] = { 1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 32, 33, 40, 64 };
    for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
        struct tree_shape sh;
        random_shape(widths[k], &sh);
        test_sequential(widths[k], widths[k] <= 8 ? 100000 : 20000, NULL);
        test_sequential(widths[k], widths[k] <= 8 ? 50000 : 10000, &sh);
    }
    test_shapes();
    static const uint32_t gw[] = { 2, 3, 6, 17, 40, 64 };
    for (size_t k = 0; k < sizeof gw / sizeof *gw; k++) {
        test_gpu_model(gw[k], 20000, 0);
        test_gpu_model(gw[k], 20000, 1);
    }
    static const uint32_t cw[] = { 2, 3, 5, 9, 33 };
    for (size_t k = 0; k < sizeof cw / sizeof *cw; k++)
        test_concurrent(cw[k], 1u << 16, 4);
    test_keyed(3, 1u << 16, 4);
    test_keyed(7, 1u << 15, 3);
    test_full(5, 1000, 1u << 20, "root");
    test_full(5, 1u << 20, 500, "node");
    test_full(2, 700, 0, "root (2 words)");
    return check_exit();
}
