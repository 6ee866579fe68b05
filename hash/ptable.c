/*
 * ptable.c -- the pair table with 4-byte slots; the layout is described in
 * ptable.h, the protocol and its memory ordering in vtable.h.
 */
#include "ptable.h"
#include "../util/config.h"
#include "../util/hugealloc.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define INITIAL_SLOTS (1ull << 15)
#define SPINS_BEFORE_YIELD 256

struct ptable {
    uint64_t max_pairs, max_slots;
    uint32_t *store;          /* pairs by id, lazily committed */
    _Atomic uint32_t *slots;
    uint64_t nslots;
    unsigned bits;            /* width of the id field of slots */
    uint64_t load_limit;      /* ids at which inserts turn FULL */
    _Atomic int over;         /* an insert reached load_limit */
    _Atomic uint32_t *next_slots;
    uint64_t next_nslots;
    unsigned next_bits;
    uint64_t block;
    _Alignas(64) _Atomic uint64_t next_id;
    char pad[64 - sizeof(uint64_t)];
};

/* ---- slots ---- */

/* The id field of an array of n slots holds id + 1 for every id below 2n:
 * ids stay below the load limit 7n/8 plus what racing inserts and id
 * blocks (at most n/8 in all, treestore.h) take beyond it.  Two values at
 * the top of the field are RESERVED and DEAD. */
static unsigned id_bits(uint64_t n)
{
    unsigned b = 1;
    while (b < 32 && (1ull << b) < 2 * n + 3)
        b++;
    return b;
}

static inline uint32_t reserved(unsigned b) { return (uint32_t)((1ull << b) - 1); }
static inline uint32_t dead(unsigned b) { return (uint32_t)((1ull << b) - 2); }
static inline uint32_t id_mask(unsigned b) { return (uint32_t)((1ull << b) - 1); }

/* The tag: the low 32 - b bits of the hash, above the id field. */
static inline uint32_t slot_tag(uint64_t h, unsigned b)
{
    return (uint32_t)((h & ((1ull << (32 - b)) - 1)) << b);
}

static inline uint64_t home_slot(uint64_t h, uint64_t n) { return (uint64_t)(((unsigned __int128)h * n) >> 64); }

static _Atomic uint32_t *slots_alloc(uint64_t n)
{
    size_t bytes = (size_t)n * 4u;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    wx_advise_huge(p, bytes);
    return p;
}

static void slots_free(_Atomic uint32_t *s, uint64_t n)
{
    if (s)
        munmap((void *)s, (size_t)n * 4u);
}

/* ---- sizing ---- */

uint64_t ptable_bytes_per_pair(void)
{
    return 8 + (4 * PTABLE_MAX_LOAD_DEN + PTABLE_MAX_LOAD_NUM - 1) / PTABLE_MAX_LOAD_NUM;
}

static void set_limits(struct ptable *t)
{
    const uint64_t n = t->nslots;
    const uint64_t l = n / PTABLE_MAX_LOAD_DEN * PTABLE_MAX_LOAD_NUM
                       + n % PTABLE_MAX_LOAD_DEN * PTABLE_MAX_LOAD_NUM / PTABLE_MAX_LOAD_DEN;
    t->load_limit = l < t->max_pairs ? l : t->max_pairs;
    t->bits = id_bits(n);
    atomic_store_explicit(&t->over, 0, memory_order_relaxed);
}

int ptable_new(struct ptable **out, uint64_t max_pairs, struct wx_error *err)
{
    *out = NULL;
    if (max_pairs == 0 || max_pairs > PTABLE_MAX_PAIRS)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "pair table: a capacity of %llu pairs is out of range",
                       (unsigned long long)max_pairs);
    struct ptable *t = aligned_alloc(64, (sizeof *t + 63) / 64 * 64);
    if (!t)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "pair table: out of memory");
    memset(t, 0, sizeof *t);
    t->max_pairs = max_pairs;
    t->block = 1;
    t->max_slots = max_pairs / PTABLE_MAX_LOAD_NUM * PTABLE_MAX_LOAD_DEN
                   + max_pairs % PTABLE_MAX_LOAD_NUM * PTABLE_MAX_LOAD_DEN / PTABLE_MAX_LOAD_NUM + 2;
    t->nslots = t->max_slots < INITIAL_SLOTS ? t->max_slots : INITIAL_SLOTS;
    set_limits(t);
    t->store = malloc((size_t)max_pairs * 8u);
    t->slots = slots_alloc(t->nslots);
    if (!t->store || !t->slots) {
        ptable_free(t);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "pair table: cannot reserve %llu pairs; lower the memory budget",
                       (unsigned long long)max_pairs);
    }
    wx_advise_huge(t->store, (size_t)max_pairs * 8u);
    atomic_init(&t->next_id, 0);
    *out = t;
    return WX_OK;
}

void ptable_free(struct ptable *t)
{
    if (!t)
        return;
    free(t->store);
    slots_free(t->slots, t->nslots);
    slots_free(t->next_slots, t->next_nslots);
    free(t);
}

/* ---- lookup ---- */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static uint32_t wait_published(_Atomic uint32_t *slot, unsigned b)
{
    unsigned spins = 0;
    for (;;) {
        uint32_t s = atomic_load_explicit(slot, memory_order_acquire);
        if ((s & id_mask(b)) != reserved(b))
            return s;
        if (++spins < SPINS_BEFORE_YIELD)
            cpu_relax();
        else
            sched_yield();
    }
}

/* A fresh id (vtable.c's take_id without the growth flag: a tree table
 * asks to grow only when full); UINT64_MAX when the store is exhausted. */
static inline uint64_t take_id(struct ptable *t, struct vtable_ids *ids)
{
    if (ids && ids->next < ids->end)
        return ids->next++;
    const uint64_t want = ids ? t->block : 1;
    const uint64_t fresh = atomic_fetch_add_explicit(&t->next_id, want, memory_order_relaxed);
    if (fresh >= t->max_pairs)
        return UINT64_MAX;
    const uint64_t end = t->max_pairs - fresh < want ? t->max_pairs : fresh + want;
    if (ids)
        ids->next = fresh + 1, ids->end = end;
    if (end >= t->load_limit && !atomic_load_explicit(&t->over, memory_order_relaxed))
        atomic_store_explicit(&t->over, 1, memory_order_relaxed);
    return fresh;
}

static enum vtable_outcome lookup(struct ptable *t, const uint32_t pair[2], uint64_t h, enum vtable_mode mode,
                                  uint64_t *id, struct vtable_ids *ids)
{
    const unsigned b = t->bits;
    const uint32_t tag = slot_tag(h, b), mask = id_mask(b);
    const uint64_t n = t->nslots;
    uint64_t i = home_slot(h, n);
    for (uint64_t probes = 0; probes < n; probes++) {
        _Atomic uint32_t *slot = &t->slots[i];
        uint32_t s = atomic_load_explicit(slot, memory_order_acquire);
        for (;;) {
            if (s == 0) {
                if (mode == VTABLE_FIND)
                    return VTABLE_ABSENT;
                if (atomic_load_explicit(&t->over, memory_order_relaxed))
                    return VTABLE_FULL;
                if (!atomic_compare_exchange_strong_explicit(slot, &s, tag | reserved(b), memory_order_acquire,
                                                             memory_order_acquire))
                    continue;
                const uint64_t fresh = take_id(t, ids);
                /* fresh + 1 < dead(b) always (id_bits); checked all the same. */
                if (fresh == UINT64_MAX || fresh + 1 >= dead(b)) {
                    atomic_store_explicit(slot, tag | dead(b), memory_order_release);
                    atomic_store_explicit(&t->over, 1, memory_order_relaxed);
                    return VTABLE_FULL;
                }
                t->store[2 * fresh] = pair[0];
                t->store[2 * fresh + 1] = pair[1];
                atomic_store_explicit(slot, tag | (uint32_t)(fresh + 1), memory_order_release);
                *id = fresh;
                return VTABLE_INSERTED;
            }
            if ((s & ~mask) != tag)
                break;
            const uint32_t f = s & mask;
            if (f == reserved(b)) {
                s = wait_published(slot, b);
                continue;
            }
            if (f == dead(b))
                break;
            const uint32_t *p = t->store + 2 * (uint64_t)(f - 1);
            if (p[0] == pair[0] && p[1] == pair[1]) {
                *id = f - 1;
                return VTABLE_FOUND;
            }
            break;
        }
        if (++i == n)
            i = 0;
    }
    return mode == VTABLE_FIND ? VTABLE_ABSENT : VTABLE_FULL;
}

enum vtable_outcome ptable_lookup(struct ptable *t, const uint32_t pair[2], uint64_t hash, enum vtable_mode mode,
                                  uint64_t *id)
{
    return lookup(t, pair, hash, mode, id, NULL);
}

enum vtable_outcome ptable_insert_block(struct ptable *t, const uint32_t pair[2], uint64_t hash,
                                        struct vtable_ids *ids, uint64_t *id)
{
    return lookup(t, pair, hash, VTABLE_INSERT, id, ids);
}

void ptable_prefetch(const struct ptable *t, uint64_t hash)
{
    __builtin_prefetch(&t->slots[home_slot(hash, t->nslots)], 1, 3);
}

void ptable_prefetch_pair(const struct ptable *t, uint64_t hash)
{
    const unsigned b = t->bits;
    const uint32_t s = atomic_load_explicit(&t->slots[home_slot(hash, t->nslots)], memory_order_relaxed);
    const uint32_t f = s & id_mask(b);
    if ((s & ~id_mask(b)) == slot_tag(hash, b) && f != 0 && f < dead(b))
        __builtin_prefetch(t->store + 2 * (uint64_t)(f - 1), 0, 3);
}

/* ---- accessors ---- */

uint64_t ptable_count(const struct ptable *t)
{
    uint64_t c = atomic_load_explicit(&((struct ptable *)t)->next_id, memory_order_relaxed);
    return c < t->max_pairs ? c : t->max_pairs;
}

const uint32_t *ptable_pair(const struct ptable *t, uint64_t id) { return t->store + 2 * id; }
uint64_t ptable_slots(const struct ptable *t) { return t->nslots; }
uint64_t ptable_bytes(const struct ptable *t) { return t->nslots * 4u + ptable_count(t) * 8u; }
bool ptable_can_grow(const struct ptable *t) { return t->nslots < t->max_slots; }

bool ptable_wants_grow(const struct ptable *t)
{
    return ptable_can_grow(t) && atomic_load_explicit(&((struct ptable *)t)->over, memory_order_relaxed);
}

uint64_t ptable_next_slots(const struct ptable *t)
{
    uint64_t n = t->nslots / PTABLE_GROWTH_DEN * PTABLE_GROWTH_NUM;
    if (n <= t->nslots)
        n = t->nslots + 1;
    return n < t->max_slots ? n : t->max_slots;
}

/* ---- growth ---- */

int ptable_grow_begin(struct ptable *t, struct wx_error *err)
{
    const uint64_t n = ptable_next_slots(t);
    t->next_slots = slots_alloc(n);
    if (!t->next_slots)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "pair table: out of memory growing to %llu slots",
                       (unsigned long long)n);
    t->next_nslots = n;
    t->next_bits = id_bits(n);
    return WX_OK;
}

#define GROW_BATCH 16

void ptable_grow_part(struct ptable *t, uint64_t begin, uint64_t end)
{
    const uint64_t n = t->next_nslots;
    const unsigned b = t->next_bits;
    uint64_t hs[GROW_BATCH];
    for (uint64_t id = begin; id < end; id++) {
        const uint64_t k = (id - begin) % GROW_BATCH;
        if (k == 0)
            for (uint64_t j = 0; j < GROW_BATCH && id + j < end; j++) {
                hs[j] = vtable_hash_inline(t->store + 2 * (id + j), 2);
                __builtin_prefetch(&t->next_slots[home_slot(hs[j], n)], 1, 3);
            }
        const uint32_t v = slot_tag(hs[k], b) | (uint32_t)(id + 1);
        for (uint64_t i = home_slot(hs[k], n);; i = i + 1 == n ? 0 : i + 1) {
            uint32_t expect = 0;
            if (atomic_compare_exchange_strong_explicit(&t->next_slots[i], &expect, v, memory_order_relaxed,
                                                        memory_order_relaxed))
                break;
        }
    }
}

void ptable_grow_end(struct ptable *t)
{
    slots_free(t->slots, t->nslots);
    t->slots = t->next_slots;
    t->nslots = t->next_nslots;
    t->next_slots = NULL;
    t->next_nslots = 0;
    set_limits(t);
}

/* ---- id blocks ---- */

void ptable_set_block(struct ptable *t, uint32_t ids_per_block) { t->block = ids_per_block ? ids_per_block : 1; }

static void move_id(struct ptable *t, uint64_t from, uint64_t to)
{
    const uint32_t *p = t->store + 2 * from;
    const uint64_t h = vtable_hash_inline(p, 2);
    const unsigned b = t->bits;
    const uint32_t want = slot_tag(h, b) | (uint32_t)(from + 1);
    for (uint64_t i = home_slot(h, t->nslots);; i = i + 1 == t->nslots ? 0 : i + 1)
        if (atomic_load_explicit(&t->slots[i], memory_order_relaxed) == want) {
            atomic_store_explicit(&t->slots[i], slot_tag(h, b) | (uint32_t)(to + 1), memory_order_relaxed);
            break;
        }
    t->store[2 * to] = p[0];
    t->store[2 * to + 1] = p[1];
}

struct close_ctx {
    struct ptable *t;
    void (*moved)(void *ctx, uint64_t from, uint64_t to);
    void *ctx;
};

static void close_fill(void *arg, uint64_t from, uint64_t to)
{
    struct close_ctx *c = arg;
    move_id(c->t, from, to);
    if (c->moved)
        c->moved(c->ctx, from, to);
}

/* vtable_close_blocks' renumbering (vtable_ids_close) on the pairs. */
int ptable_close_blocks(struct ptable *t, struct vtable_ids *ids, unsigned n,
                        void (*moved)(void *ctx, uint64_t from, uint64_t to), void *ctx, struct wx_error *err)
{
    struct close_ctx c = {t, moved, ctx};
    uint64_t real;
    int rc = vtable_ids_close(ptable_count(t), ids, n, close_fill, &c, &real, err);
    if (rc == WX_OK)
        atomic_store_explicit(&t->next_id, real, memory_order_relaxed);
    return rc;
}
