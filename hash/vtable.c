/*
 * vtable.c -- the lock-free vector table; the protocol and its memory
 * ordering are described in vtable.h.
 */
#include "vtable.h"
#include "../util/hugealloc.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ID_BITS 40u
#define ID_MASK ((1ull << ID_BITS) - 1)
#define TAG_MASK ((1ull << (64u - ID_BITS)) - 1)
#define SLOT_RESERVED ID_MASK          /* id field all ones */
#define SLOT_DEAD (ID_MASK - 1)        /* claimed, store was full */

/* Slot arrays start at this many slots (8 bytes each): small models stay
 * small, large ones double a dozen or so times. */
#define INITIAL_SLOTS (1ull << 15)

/* Growth is wanted at this load (vtable.h: 1/2; a build-time knob for
 * benchmarks, it must stay below VTABLE_MAX_LOAD). */
#ifndef GROW_LOAD_NUM
#define GROW_LOAD_NUM 1u
#define GROW_LOAD_DEN 2u
#endif

/* Spins before a waiting reader starts yielding: a publisher normally needs
 * a few dozen nanoseconds, but it may be preempted on a busy machine. */
#define SPINS_BEFORE_YIELD 256

struct vtable {
    uint32_t words;
    uint64_t max_states;     /* store capacity, in vectors */
    uint64_t max_slots;      /* slot array ceiling */
    uint32_t *store;         /* max_states * words, lazily committed */

    _Atomic uint64_t *slots; /* nslots */
    uint64_t nslots;
    uint64_t grow_at;        /* ids at which growth is wanted: load 1/2,
                                or 3/4 (vtable_grow_when_full) */
    bool grow_when_full;     /* vtable_grow_when_full */
    uint64_t load_limit;     /* ids at which inserts turn FULL: load 3/4,
                                or max_states at the largest size */
    /* Flags that spare inserters from reading next_id: set (once per slot
     * array) by the inserter whose fresh id crosses grow_at / load_limit,
     * cleared when the array is replaced.  Read-mostly, so they may share
     * this cache line with the fields above. */
    _Atomic int want_grow;
    _Atomic int over;

    _Atomic uint64_t *next_slots; /* during growth */
    uint64_t next_nslots;

    uint64_t block;          /* ids per block (vtable_insert_block), >= 1 */
    bool keyed;              /* slots hold keys (vtable_new_keyed) */
    uint32_t slot_words;     /* 64-bit words per slot: 2 for wide keys
                                (keyed, 3 or 4 words per vector), else 1 */

    /* The id counter is written by every insert: keep it off the line of
     * the read-mostly fields above (the struct is allocated 64-aligned). */
    _Alignas(64) _Atomic uint64_t next_id;
    char pad[64 - sizeof(uint64_t)];
};

/* ---- hashing ---- */

uint64_t vtable_hash(const uint32_t *vec, uint32_t words)
{
    return vtable_hash_inline(vec, words);
}

/* The home slot uses the high bits of hash * nslots (any nslots works), the
 * tag the low 24 bits of the hash. */
static inline uint64_t home_slot(uint64_t h, uint64_t nslots)
{
    return (uint64_t)(((unsigned __int128)h * nslots) >> 64);
}

static inline uint64_t slot_tag(uint64_t h) { return h & TAG_MASK; }

/* The slot value of a vector in a keyed table: never 0 (empty). */
#define KEY_FLAG (1ull << 63)
static inline uint64_t vec_key(const uint32_t *vec, uint32_t words)
{
    return KEY_FLAG | vec[0] | (words > 1 ? (uint64_t)vec[1] << 32 : 0);
}

/* Wide keys (keyed tables of 3 or 4 words): a slot is two 64-bit words,
 * lo = vec[0] | vec[1] << 32 and hi = KEY_FLAG | vec[2] | vec[3] << 32 (no
 * vec[3] for 3 words); hi is never 0 in a filled slot.  The pair is claimed
 * with one 16-byte compare-and-swap (x86-64's cmpxchg16b), so a slot goes
 * from (0, 0) to its final key in one step and is never seen half written:
 * a reader loads hi, and only when hi != 0 loads lo, which the same locked
 * instruction wrote (the line was held exclusively while it wrote both, and
 * the slot never changes again).  Other platforms have no wide keys
 * (vtable_keyed_max_words() == 2). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define WIDE_KEYS 1
static inline bool cas16(_Atomic uint64_t *slot, uint64_t *lo, uint64_t *hi, uint64_t new_lo, uint64_t new_hi)
{
    bool ok;
    __asm__ __volatile__("lock cmpxchg16b %1"
                         : "=@ccz"(ok), "+m"(*(volatile unsigned __int128 *)slot), "+a"(*lo), "+d"(*hi)
                         : "b"(new_lo), "c"(new_hi)
                         : "memory");
    return ok;
}
#else
#define WIDE_KEYS 0
#endif

static inline void wide_key(const uint32_t *vec, uint32_t words, uint64_t *lo, uint64_t *hi)
{
    *lo = vec[0] | (uint64_t)vec[1] << 32;
    *hi = KEY_FLAG | vec[2] | (words > 3 ? (uint64_t)vec[3] << 32 : 0);
}

/* ---- memory ---- */

/* Slot arrays: zeroed, lazily committed anonymous mappings, released with
 * slots_free (munmap gives large arrays straight back to the system).  n is
 * in 64-bit words (slots * slot_words). */
static _Atomic uint64_t *slots_alloc(uint64_t n)
{
    size_t bytes = (size_t)n * sizeof(uint64_t);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    wx_advise_huge(p, bytes);
    return p;
}

static void slots_free(_Atomic uint64_t *s, uint64_t n)
{
    if (s)
        munmap((void *)s, (size_t)n * sizeof(uint64_t));
}

/* ---- sizing ---- */

/* 64-bit words per slot of a keyed table of `words` words. */
static uint32_t keyed_slot_words(uint32_t words) { return words > 2 ? 2 : 1; }

uint32_t vtable_keyed_max_words(void) { return WIDE_KEYS ? 4 : 2; }

uint64_t vtable_bytes_per_state(uint32_t words)
{
    /* The larger slot of the two table kinds (16 bytes for keyed 3- and
     * 4-word vectors, else 8) at a load of NUM/DEN, rounded up: one budget
     * then admits the same number of states whichever kind an explorer
     * picks (and on every platform). */
    const uint32_t sb = 8u * (words >= 3 && words <= 4 ? 2 : 1);
    return (uint64_t)words * 4u + (sb * VTABLE_MAX_LOAD_DEN + VTABLE_MAX_LOAD_NUM - 1) / VTABLE_MAX_LOAD_NUM;
}

uint64_t vtable_states_for_budget(uint64_t bytes, uint32_t words, uint64_t extra)
{
    uint64_t n = bytes / (vtable_bytes_per_state(words) + extra);
    return n > VTABLE_ID_LIMIT ? VTABLE_ID_LIMIT : n;
}

/* Sets the limits for the current nslots. */
static void set_limits(struct vtable *t)
{
    uint64_t n = t->nslots;
    uint64_t l = n / VTABLE_MAX_LOAD_DEN * VTABLE_MAX_LOAD_NUM + n % VTABLE_MAX_LOAD_DEN * VTABLE_MAX_LOAD_NUM / VTABLE_MAX_LOAD_DEN;
    t->load_limit = l < t->max_states ? l : t->max_states;
    const uint64_t g = t->grow_when_full ? l : n / GROW_LOAD_DEN * GROW_LOAD_NUM;
    t->grow_at = n < t->max_slots ? g : UINT64_MAX;
    atomic_store_explicit(&t->want_grow, 0, memory_order_relaxed);
    atomic_store_explicit(&t->over, 0, memory_order_relaxed);
}

static int table_new(struct vtable **out, uint32_t words, uint64_t max_states, bool keyed, struct wx_error *err);

int vtable_new(struct vtable **out, uint32_t words, uint64_t max_states, struct wx_error *err)
{
    return table_new(out, words, max_states, false, err);
}

int vtable_new_keyed(struct vtable **out, uint32_t words, uint64_t max_states, struct wx_error *err)
{
    if (words > vtable_keyed_max_words()) {
        *out = NULL;
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "keyed vector table: %u words per vector (at most %u here)",
                       words, vtable_keyed_max_words());
    }
    return table_new(out, words, max_states, true, err);
}

bool vtable_keyed(const struct vtable *t) { return t->keyed; }

void vtable_grow_when_full(struct vtable *t)
{
    t->grow_when_full = true;
    set_limits(t);
}

static int table_new(struct vtable **out, uint32_t words, uint64_t max_states, bool keyed, struct wx_error *err)
{
    *out = NULL;
    if (words == 0 || words > 64)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "vector table: %u words per vector is out of range", words);
    if (max_states == 0 || max_states > VTABLE_ID_LIMIT)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "vector table: a capacity of %llu states is out of range",
                       (unsigned long long)max_states);
    struct vtable *t = aligned_alloc(64, (sizeof *t + 63) / 64 * 64);
    if (t)
        memset(t, 0, sizeof *t);
    if (!t)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "vector table: out of memory");
    t->words = words;
    t->max_states = max_states;
    t->block = 1;
    t->keyed = keyed;
    t->slot_words = keyed ? keyed_slot_words(words) : 1;
    /* Enough slots that the load limit admits max_states, plus slack. */
    t->max_slots = max_states / VTABLE_MAX_LOAD_NUM * VTABLE_MAX_LOAD_DEN
                   + (max_states % VTABLE_MAX_LOAD_NUM) * VTABLE_MAX_LOAD_DEN / VTABLE_MAX_LOAD_NUM + 2;
    t->nslots = t->max_slots < INITIAL_SLOTS ? t->max_slots : INITIAL_SLOTS;
    set_limits(t);
    /* The store is malloc'ed, not calloc'ed: large blocks come from mmap and
     * are committed page by page as ids fill them. */
    if (max_states > SIZE_MAX / 4 / words)
        goto oom;
    t->store = malloc((size_t)max_states * words * 4u);
    t->slots = slots_alloc(t->nslots * t->slot_words);
    if (!t->store || !t->slots)
        goto oom;
    wx_advise_huge(t->store, (size_t)max_states * words * 4u);
    atomic_init(&t->next_id, 0);
    *out = t;
    return WX_OK;
oom:
    free(t->store);
    slots_free(t->slots, t->nslots * t->slot_words);
    free(t);
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                   "vector table: cannot reserve %llu states of %u words (%llu bytes); lower the memory budget",
                   (unsigned long long)max_states, words,
                   (unsigned long long)(max_states * vtable_bytes_per_state(words)));
}

void vtable_free(struct vtable *t)
{
    if (!t)
        return;
    free(t->store);
    slots_free(t->slots, t->nslots * t->slot_words);
    slots_free(t->next_slots, t->next_nslots * t->slot_words);
    free(t);
}

/* ---- the probe routine ---- */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Waits until a RESERVED slot is published or marked DEAD; returns its
 * final value (acquire, so a published vector is visible). */
static uint64_t wait_published(_Atomic uint64_t *slot)
{
    unsigned spins = 0;
    for (;;) {
        uint64_t s = atomic_load_explicit(slot, memory_order_acquire);
        if ((s & ID_MASK) != SLOT_RESERVED)
            return s;
        if (++spins < SPINS_BEFORE_YIELD)
            cpu_relax();
        else
            sched_yield();
    }
}

/* Vectors are a few words: an inline loop beats a call to memcmp. */
static inline int same(const uint32_t *a, const uint32_t *b, uint32_t words)
{
    uint32_t d = 0;
    for (uint32_t i = 0; i < words; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

/* The home slot is prefetched for writing (1): an insert then finds its
 * line exclusive.  A build-time knob for benchmarks: 0 asks for a shared
 * line, which is all the ~90 % of lookups that find their vector need. */
#ifndef PREFETCH_RW
#define PREFETCH_RW 1
#endif

void vtable_prefetch(const struct vtable *t, uint64_t hash)
{
    __builtin_prefetch(&t->slots[home_slot(hash, t->nslots) * t->slot_words], PREFETCH_RW, 3);
}

void vtable_prefetch_vector(const struct vtable *t, uint64_t hash)
{
    if (t->keyed)
        return; /* lookups never read the store */
    /* A relaxed peek: a stale or torn view only costs a useless prefetch. */
    uint64_t s = atomic_load_explicit(&t->slots[home_slot(hash, t->nslots)], memory_order_relaxed);
    uint64_t f = s & ID_MASK;
    if ((s & ~ID_MASK) == slot_tag(hash) << ID_BITS && f != 0 && f < SLOT_DEAD)
        __builtin_prefetch(t->store + (f - 1) * t->words, 0, 3);
}

enum vtable_outcome vtable_lookup(struct vtable *t, const uint32_t *vec, enum vtable_mode mode,
                                  uint64_t *id)
{
    return vtable_lookup_hashed(t, vec, vtable_hash(vec, t->words), mode, id);
}

/* A fresh id for a claimed slot: from the caller's block when it has one
 * left, else from the shared counter (a block of `block` ids when ids is
 * given, else one).  UINT64_MAX when the store is exhausted. */
static inline uint64_t take_id(struct vtable *t, struct vtable_ids *ids)
{
    if (ids && ids->next < ids->end)
        return ids->next++;
    const uint64_t want = ids ? t->block : 1;
    const uint64_t fresh = atomic_fetch_add_explicit(&t->next_id, want, memory_order_relaxed);
    if (fresh >= t->max_states)
        return UINT64_MAX;
    const uint64_t end = t->max_states - fresh < want ? t->max_states : fresh + want;
    if (ids)
        ids->next = fresh + 1, ids->end = end;
    /* The flags look at the whole block: thresholds are crossed a little
     * early, never late. */
    if (end >= t->grow_at || end >= t->load_limit) {
        if (end >= t->grow_at && !atomic_load_explicit(&t->want_grow, memory_order_relaxed))
            atomic_store_explicit(&t->want_grow, 1, memory_order_relaxed);
        if (end >= t->load_limit && !atomic_load_explicit(&t->over, memory_order_relaxed))
            atomic_store_explicit(&t->over, 1, memory_order_relaxed);
    }
    return fresh;
}

static enum vtable_outcome lookup(struct vtable *t, const uint32_t *vec, uint64_t h, enum vtable_mode mode,
                                  uint64_t *id, struct vtable_ids *ids);

enum vtable_outcome vtable_lookup_hashed(struct vtable *t, const uint32_t *vec, uint64_t h,
                                         enum vtable_mode mode, uint64_t *id)
{
    return lookup(t, vec, h, mode, id, NULL);
}


/* Keyed tables: the probe compares keys; an insert holds a fresh id in its
 * block before it claims a slot (so a full store claims nothing: a claimed
 * key is a stored vector, always), and consumes it only when its CAS wins.
 * Without a block (single-threaded use only, vtable.h) the id comes from
 * the counter just before the claim, which then cannot lose.
 *
 * hold_id makes sure *b (ids, or `one` without a block) holds an id for the
 * claim; false when the store is exhausted (FULL, `over` set). */
static inline bool hold_id(struct vtable *t, struct vtable_ids *ids, struct vtable_ids *one)
{
    struct vtable_ids *b = ids ? ids : one;
    if (b->next < b->end)
        return true;
    /* Refill before claiming: take_id hands out the block's first id and
     * keeps the rest in b; give the first back. */
    uint64_t f = take_id(t, ids);
    if (f == UINT64_MAX) {
        atomic_store_explicit(&t->over, 1, memory_order_relaxed);
        return false;
    }
    if (ids)
        ids->next = f; /* unconsumed until the claim wins */
    else
        one->next = f, one->end = f + 1;
    return true;
}

/* A lost claim without a block (only with a forbidden concurrent insert):
 * gives the id taken for it back. */
static inline void release_one(struct vtable *t, struct vtable_ids *ids, const struct vtable_ids *one)
{
    if (!ids && one->next < one->end)
        atomic_store_explicit(&t->next_id, one->next, memory_order_relaxed);
}

/* The claim won: consumes the held id and stores the vector under it. */
static inline uint64_t use_id(struct vtable *t, struct vtable_ids *ids, struct vtable_ids *one, const uint32_t *vec)
{
    struct vtable_ids *b = ids ? ids : one;
    const uint64_t fresh = b->next++;
    memcpy(t->store + fresh * t->words, vec, (size_t)t->words * 4u);
    return fresh;
}

static __attribute__((noinline)) enum vtable_outcome lookup_keyed(struct vtable *t, const uint32_t *vec, uint64_t h,
                                                                   enum vtable_mode mode, uint64_t *id,
                                                                   struct vtable_ids *ids)
{
    const uint64_t key = vec_key(vec, t->words);
    const uint64_t n = t->nslots;
    uint64_t i = home_slot(h, n);
    for (uint64_t probes = 0; probes < n; probes++) {
        _Atomic uint64_t *slot = &t->slots[i];
        uint64_t s = atomic_load_explicit(slot, memory_order_relaxed);
        for (;;) {
            if (s == key) {
                *id = VTABLE_NO_ID;
                return VTABLE_FOUND;
            }
            if (s != 0)
                break;
            if (mode == VTABLE_FIND)
                return VTABLE_ABSENT;
            struct vtable_ids one = { 0, 0 };
            if (atomic_load_explicit(&t->over, memory_order_relaxed) || !hold_id(t, ids, &one))
                return VTABLE_FULL;
            /* Relaxed is enough: a reader that sees the key needs nothing
             * else (FOUND ids are not reported), and the store line is
             * read by the explorer only after a quiet point. */
            if (!atomic_compare_exchange_strong_explicit(slot, &s, key, memory_order_relaxed,
                                                         memory_order_relaxed)) {
                release_one(t, ids, &one);
                continue; /* s holds the winner's key: re-examine */
            }
            *id = use_id(t, ids, &one, vec);
            return VTABLE_INSERTED;
        }
        if (++i == n)
            i = 0;
    }
    return mode == VTABLE_FIND ? VTABLE_ABSENT : VTABLE_FULL;
}

#if WIDE_KEYS
/* lookup_keyed for wide keys (two words per slot, see wide_key). */
static __attribute__((noinline)) enum vtable_outcome lookup_wide(struct vtable *t, const uint32_t *vec, uint64_t h,
                                                                  enum vtable_mode mode, uint64_t *id,
                                                                  struct vtable_ids *ids)
{
    uint64_t klo, khi;
    wide_key(vec, t->words, &klo, &khi);
    const uint64_t n = t->nslots;
    uint64_t i = home_slot(h, n);
    for (uint64_t probes = 0; probes < n; probes++) {
        _Atomic uint64_t *slot = &t->slots[2 * i];
        uint64_t hi = atomic_load_explicit(slot + 1, memory_order_acquire);
        uint64_t lo = hi ? atomic_load_explicit(slot, memory_order_relaxed) : 0;
        for (;;) {
            if (hi == khi && lo == klo) {
                *id = VTABLE_NO_ID;
                return VTABLE_FOUND;
            }
            if (hi != 0)
                break;
            if (mode == VTABLE_FIND)
                return VTABLE_ABSENT;
            struct vtable_ids one = { 0, 0 };
            if (atomic_load_explicit(&t->over, memory_order_relaxed) || !hold_id(t, ids, &one))
                return VTABLE_FULL;
            lo = 0; /* expect an empty slot: (0, 0) */
            if (!cas16(slot, &lo, &hi, klo, khi)) {
                release_one(t, ids, &one);
                continue; /* (lo, hi) holds the winner's key: re-examine */
            }
            *id = use_id(t, ids, &one, vec);
            return VTABLE_INSERTED;
        }
        if (++i == n)
            i = 0;
    }
    return mode == VTABLE_FIND ? VTABLE_ABSENT : VTABLE_FULL;
}
#endif

static enum vtable_outcome lookup(struct vtable *t, const uint32_t *vec, uint64_t h, enum vtable_mode mode,
                                  uint64_t *id, struct vtable_ids *ids)
{
#if WIDE_KEYS
    if (t->slot_words == 2)
        return lookup_wide(t, vec, h, mode, id, ids);
#endif
    if (t->keyed)
        return lookup_keyed(t, vec, h, mode, id, ids);
    const uint32_t words = t->words;
    const uint64_t tag = slot_tag(h) << ID_BITS;
    const uint64_t n = t->nslots;
    uint64_t i = home_slot(h, n);

    for (uint64_t probes = 0; probes < n; probes++) {
        _Atomic uint64_t *slot = &t->slots[i];
        uint64_t s = atomic_load_explicit(slot, memory_order_acquire);
        for (;;) {
            if (s == 0) {
                if (mode == VTABLE_FIND)
                    return VTABLE_ABSENT;
                /* Absent.  The load check comes before the claim so that a
                 * FULL table keeps its probe chains intact (a claimed slot
                 * is never given back).  Threads racing past it overshoot
                 * load_limit by at most one insert each: the slot array
                 * has room for that (load 3/4 < 1). */
                if (atomic_load_explicit(&t->over, memory_order_relaxed))
                    return VTABLE_FULL;
                if (!atomic_compare_exchange_strong_explicit(slot, &s, tag | SLOT_RESERVED,
                                                             memory_order_acquire, memory_order_acquire))
                    continue; /* s now holds the winner's value: re-examine */
                const uint64_t fresh = take_id(t, ids);
                if (fresh == UINT64_MAX) {
                    /* Several threads passed the load check at once and the
                     * store is exhausted.  DEAD keeps the chain intact;
                     * waiters skip it as a non-matching slot. */
                    atomic_store_explicit(slot, tag | SLOT_DEAD, memory_order_release);
                    atomic_store_explicit(&t->over, 1, memory_order_relaxed);
                    return VTABLE_FULL;
                }
                memcpy(t->store + fresh * words, vec, (size_t)words * 4u);
                atomic_store_explicit(slot, tag | (fresh + 1), memory_order_release);
                *id = fresh;
                return VTABLE_INSERTED;
            }
            if ((s & ~ID_MASK) != tag)
                break; /* another vector: next slot */
            uint64_t f = s & ID_MASK;
            if (f == SLOT_RESERVED) {
                s = wait_published(slot);
                continue;
            }
            if (f == SLOT_DEAD)
                break;
            if (same(t->store + (f - 1) * words, vec, words)) {
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

/* The explorers' insert.  Keyed tables: most lookups find their vector in
 * its home slot (the line the explorer prefetched); that case is answered
 * here, without the probe loop's frame (~20 instructions of register saves
 * and restores per lookup); every other case runs the full loop from the
 * home slot again (a relaxed re-read: the same answer a single pass would
 * give, since a key once in a slot stays there until growth). */
enum vtable_outcome vtable_insert_block(struct vtable *t, const uint32_t *vec, uint64_t h,
                                        struct vtable_ids *ids, uint64_t *id)
{
#if WIDE_KEYS
    if (t->slot_words == 2) {
        uint64_t klo, khi;
        wide_key(vec, t->words, &klo, &khi);
        _Atomic uint64_t *slot = &t->slots[2 * home_slot(h, t->nslots)];
        if (atomic_load_explicit(slot + 1, memory_order_acquire) == khi
            && atomic_load_explicit(slot, memory_order_relaxed) == klo) {
            *id = VTABLE_NO_ID;
            return VTABLE_FOUND;
        }
        return lookup_wide(t, vec, h, VTABLE_INSERT, id, ids);
    }
#endif
    if (t->keyed) {
        if (atomic_load_explicit(&t->slots[home_slot(h, t->nslots)], memory_order_relaxed) == vec_key(vec, t->words)) {
            *id = VTABLE_NO_ID;
            return VTABLE_FOUND;
        }
        return lookup_keyed(t, vec, h, VTABLE_INSERT, id, ids);
    }
    return lookup(t, vec, h, VTABLE_INSERT, id, ids);
}

/* ---- accessors ---- */

uint64_t vtable_count(const struct vtable *t)
{
    uint64_t c = atomic_load_explicit(&((struct vtable *)t)->next_id, memory_order_relaxed);
    return c < t->max_states ? c : t->max_states;
}

const uint32_t *vtable_vector(const struct vtable *t, uint64_t id)
{
    return t->store + id * t->words;
}

uint64_t vtable_max_states(const struct vtable *t) { return t->max_states; }
uint64_t vtable_slots(const struct vtable *t) { return t->nslots; }

uint64_t vtable_bytes(const struct vtable *t)
{
    return t->nslots * 8u * t->slot_words + vtable_count(t) * t->words * 4u;
}

bool vtable_can_grow(const struct vtable *t) { return t->nslots < t->max_slots; }

bool vtable_wants_grow(const struct vtable *t)
{
    return atomic_load_explicit(&((struct vtable *)t)->want_grow, memory_order_relaxed) != 0;
}

/* ---- growth (quiet points only) ---- */

int vtable_grow_begin(struct vtable *t, struct wx_error *err)
{
    uint64_t n = t->nslots * 2 < t->max_slots ? t->nslots * 2 : t->max_slots;
    t->next_slots = slots_alloc(n * t->slot_words);
    if (!t->next_slots)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "vector table: out of memory growing to %llu slots",
                       (unsigned long long)n);
    t->next_nslots = n;
    return WX_OK;
}

/* Growth's claim of a slot in the next array: the first empty one from
 * slot i on (distinct entries need no comparison), by CAS because other
 * threads fill the same array; nothing reads it until vtable_grow_end. */
static inline void claim_next(struct vtable *t, uint64_t i, uint64_t n, uint64_t v)
{
    for (;;) {
        uint64_t expect = 0;
        if (atomic_compare_exchange_strong_explicit(&t->next_slots[i], &expect, v, memory_order_relaxed,
                                                    memory_order_relaxed))
            return;
        if (++i == n)
            i = 0;
    }
}

#if WIDE_KEYS
static inline void claim_next_wide(struct vtable *t, uint64_t i, uint64_t n, uint64_t klo, uint64_t khi)
{
    for (;;) {
        uint64_t lo = 0, hi = 0;
        if (atomic_load_explicit(&t->next_slots[2 * i + 1], memory_order_relaxed) == 0
            && cas16(&t->next_slots[2 * i], &lo, &hi, klo, khi))
            return;
        if (++i == n)
            i = 0;
    }
}
#endif

/* Ids re-inserted per batch while growing: their hashes are computed and
 * their home slots prefetched before the first CAS of the batch. */
#define GROW_BATCH 16

void vtable_grow_part(struct vtable *t, uint64_t begin, uint64_t end)
{
    const uint64_t n = t->next_nslots;
    const uint32_t words = t->words, sw = t->slot_words;
    uint64_t hs[GROW_BATCH];
    for (uint64_t id = begin; id < end; id++) {
        uint64_t k = (id - begin) % GROW_BATCH;
        if (k == 0)
            for (uint64_t j = 0; j < GROW_BATCH && id + j < end; j++) {
                hs[j] = vtable_hash(t->store + (id + j) * words, words);
                __builtin_prefetch(&t->next_slots[home_slot(hs[j], n) * sw], 1, 3);
            }
        const uint64_t h = hs[k];
        const uint32_t *vec = t->store + id * words;
        uint64_t i = home_slot(h, n);
#if WIDE_KEYS
        if (sw == 2) {
            uint64_t klo, khi;
            wide_key(vec, words, &klo, &khi);
            claim_next_wide(t, i, n, klo, khi);
            continue;
        }
#endif
        claim_next(t, i, n, t->keyed ? vec_key(vec, words) : slot_tag(h) << ID_BITS | (id + 1));
    }
}

/* Keyed tables: the key of slot i of the current array as a vector (the
 * inverse of vec_key / wide_key: bit 63 is the flag, never a field bit);
 * false for an empty slot. */
static inline bool slot_vector(const struct vtable *t, uint64_t i, uint32_t *vec)
{
    const uint32_t words = t->words;
    if (t->slot_words == 2) {
        uint64_t hi = atomic_load_explicit(&t->slots[2 * i + 1], memory_order_relaxed);
        if (!hi)
            return false;
        uint64_t lo = atomic_load_explicit(&t->slots[2 * i], memory_order_relaxed);
        vec[0] = (uint32_t)lo, vec[1] = (uint32_t)(lo >> 32), vec[2] = (uint32_t)hi;
        if (words > 3)
            vec[3] = (uint32_t)(hi >> 32) & 0x7fffffffu;
        return true;
    }
    uint64_t s = atomic_load_explicit(&t->slots[i], memory_order_relaxed);
    if (!s)
        return false;
    vec[0] = (uint32_t)s;
    if (words > 1)
        vec[1] = (uint32_t)(s >> 32) & 0x7fffffffu;
    return true;
}

/* Re-insertion without atomic read-modify-writes (keyed tables, the new
 * array exactly twice the old one; GROW_PRIVATE 0 turns it off for
 * measurements).  Each caller re-inserts the clusters -- maximal runs of
 * full slots of the old array, cyclically -- whose preceding empty slot
 * lies in its range [begin, end): so a cluster that starts in the range is
 * followed to its end even beyond `end`, and one that enters the range
 * from before is left to the range where it started.  The callers' ranges
 * partition [0, N) and the old array has an empty slot, so every cluster
 * is re-inserted exactly once.
 *
 * Why plain stores are exact: let a range's clusters lie in old slots
 * (Z, Y), cyclically, Z and Y empty (Y: the first empty slot at or after
 * `end`; the next range's first cluster starts after Y, so the next range's
 * (Z', Y') has Z' = Y).  Linear probing never passes an empty slot, so the
 * entries in (Z, Y) have old home slots in (Z, Y), and since the new array
 * has 2N slots and home_slot(h, 2N) = floor(2 h N / 2^64) is 2 or 2 + 1
 * times home_slot(h, N), new homes in [2Z + 2, 2Y - 1].  No probe passes
 * P = 2Y - 1: if one did, the maximal run of full new slots containing its
 * home, [x, P] (x >= 2Z + 2, as slots 2Z and 2Z + 1 are nobody's), would
 * hold P - x + 1 entries with new homes >= x plus the one probing, all with
 * old homes >= (x - 1) / 2 and so old slots in [(x - 1) / 2, Y): at most
 * Y - (x - 1) / 2 entries, and P - x + 2 <= Y - (x - 1) / 2 gives x >= 2Y + 1
 * > P.  So each range writes only the new slots [2Z + 2, 2Y - 1], which no
 * other range writes, and never reads another range's slots either:
 * relaxed loads and stores suffice (nothing reads the new array before
 * vtable_grow_end, after the callers' join).  The locked CAS per entry of
 * the shared version (below) is gone, and with it its drain of the store
 * buffer, which serialised the first-touch misses of the new array. */
#ifndef GROW_PRIVATE
#define GROW_PRIVATE 1
#endif

static inline bool old_full(const struct vtable *t, uint64_t k)
{
    return atomic_load_explicit(&t->slots[k * t->slot_words + t->slot_words - 1], memory_order_relaxed) != 0;
}

static void grow_private(struct vtable *t, uint64_t begin, uint64_t end)
{
    const uint64_t N = t->nslots, n = t->next_nslots;
    const uint32_t words = t->words, sw = t->slot_words;
    uint64_t z = begin;
    while (z < end && old_full(t, z))
        z++;
    if (z == end)
        return; /* no cluster starts here: the range before re-inserts them */
    uint32_t vec[4];
    /* u runs over unwrapped positions; stop at the first empty slot at or
     * after `end` (which starts the next range's clusters). */
    for (uint64_t u = z + 1;; u++) {
        const uint64_t k = u < N ? u : u - N;
        if (!slot_vector(t, k, vec)) {
            if (u >= end)
                return;
            continue;
        }
        uint64_t i = home_slot(vtable_hash_inline(vec, words), n);
        if (sw == 2) {
            const uint64_t klo = atomic_load_explicit(&t->slots[2 * k], memory_order_relaxed);
            const uint64_t khi = atomic_load_explicit(&t->slots[2 * k + 1], memory_order_relaxed);
            while (atomic_load_explicit(&t->next_slots[2 * i + 1], memory_order_relaxed) != 0)
                if (++i == n)
                    i = 0;
            atomic_store_explicit(&t->next_slots[2 * i], klo, memory_order_relaxed);
            atomic_store_explicit(&t->next_slots[2 * i + 1], khi, memory_order_relaxed);
            continue;
        }
        const uint64_t v = atomic_load_explicit(&t->slots[k], memory_order_relaxed);
        while (atomic_load_explicit(&t->next_slots[i], memory_order_relaxed) != 0)
            if (++i == n)
                i = 0;
        atomic_store_explicit(&t->next_slots[i], v, memory_order_relaxed);
    }
}

void vtable_grow_slots(struct vtable *t, uint64_t begin, uint64_t end)
{
    if (!t->keyed) { /* the slots hold ids: re-insert those of the store */
        if (begin == 0)
            vtable_grow_part(t, 0, vtable_count(t));
        return;
    }
    end = end < t->nslots ? end : t->nslots;
    if (GROW_PRIVATE && t->next_nslots == 2 * t->nslots && vtable_count(t) < t->nslots) {
        grow_private(t, begin, end);
        return;
    }
    const uint64_t n = t->next_nslots;
    const uint32_t words = t->words, sw = t->slot_words;
    (void)sw; /* only wide keys look at it */
    uint32_t vec[4];
    for (uint64_t k = begin; k < end; k++) {
        if (!slot_vector(t, k, vec))
            continue;
        uint64_t i = home_slot(vtable_hash_inline(vec, words), n);
        /* CAS: threads fill neighbouring ranges of the new array. */
#if WIDE_KEYS
        if (sw == 2) {
            const uint64_t klo = atomic_load_explicit(&t->slots[2 * k], memory_order_relaxed);
            const uint64_t khi = atomic_load_explicit(&t->slots[2 * k + 1], memory_order_relaxed);
            claim_next_wide(t, i, n, klo, khi);
            continue;
        }
#endif
        claim_next(t, i, n, atomic_load_explicit(&t->slots[k], memory_order_relaxed));
    }
}

void vtable_grow_end(struct vtable *t)
{
    slots_free(t->slots, t->nslots * t->slot_words);
    t->slots = t->next_slots;
    t->nslots = t->next_nslots;
    t->next_slots = NULL;
    t->next_nslots = 0;
    set_limits(t);
}

uint32_t *vtable_take_store(struct vtable *t)
{
    uint32_t *s = t->store;
    t->store = NULL;
    return s;
}

/* ---- id blocks ---- */

void vtable_set_block(struct vtable *t, uint32_t ids_per_block)
{
    t->block = ids_per_block ? ids_per_block : 1;
}

/* Renumbers the stored vector `from` as `to` (quiet point): its slot is the
 * one on its probe sequence holding tag | (from + 1). */
static void move_id(struct vtable *t, uint64_t from, uint64_t to)
{
    const uint32_t *v = t->store + from * t->words;
    if (t->keyed) { /* the slot holds the vector, not the id */
        memcpy(t->store + to * t->words, v, (size_t)t->words * 4u);
        return;
    }
    const uint64_t h = vtable_hash(v, t->words);
    const uint64_t want = slot_tag(h) << ID_BITS | (from + 1);
    for (uint64_t i = home_slot(h, t->nslots);; i = i + 1 == t->nslots ? 0 : i + 1)
        if (atomic_load_explicit(&t->slots[i], memory_order_relaxed) == want) {
            atomic_store_explicit(&t->slots[i], slot_tag(h) << ID_BITS | (to + 1), memory_order_relaxed);
            break;
        }
    memcpy(t->store + to * t->words, v, (size_t)t->words * 4u);
}

static int range_cmp(const void *a, const void *b)
{
    const struct vtable_ids *x = a, *y = b;
    return x->next < y->next ? -1 : x->next > y->next;
}

int vtable_ids_close(uint64_t top, struct vtable_ids *ids, unsigned n,
                     void (*fill)(void *ctx, uint64_t from, uint64_t to), void *ctx, uint64_t *real,
                     struct wx_error *err)
{
    /* The holes: every block's unused tail below top (ids beyond the store
     * were never handed out). */
    struct vtable_ids *h = malloc((n ? n : 1) * sizeof *h);
    if (!h)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory closing id blocks");
    unsigned nh = 0;
    uint64_t holes = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t b = ids[i].next, e = ids[i].end < top ? ids[i].end : top;
        ids[i].next = ids[i].end = 0;
        if (b < e) {
            h[nh].next = b, h[nh].end = e;
            holes += e - b;
            nh++;
        }
    }
    qsort(h, nh, sizeof *h, range_cmp);
    *real = top - holes;
    /* Fill the holes below `real` in ascending order with the highest ids
     * that are not holes (all of them >= real), so ids stay dense. */
    int hi = (int)nh - 1;     /* the hole range at or below src */
    uint64_t src = top;       /* next candidate is src - 1 */
    for (unsigned k = 0; k < nh && h[k].next < *real; k++) {
        for (uint64_t to = h[k].next; to < h[k].end && to < *real; to++) {
            for (;;) {
                src--;
                while (hi >= 0 && h[hi].next > src)
                    hi--;
                if (hi < 0 || src >= h[hi].end)
                    break; /* not in a hole */
                src = h[hi].next; /* skip the hole: continue below it */
            }
            fill(ctx, src, to);
        }
    }
    free(h);
    return WX_OK;
}

struct close_ctx {
    struct vtable *t;
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

int vtable_close_blocks(struct vtable *t, struct vtable_ids *ids, unsigned n,
                        void (*moved)(void *ctx, uint64_t from, uint64_t to), void *ctx,
                        struct wx_error *err)
{
    struct close_ctx c = {t, moved, ctx};
    uint64_t real;
    int rc = vtable_ids_close(vtable_count(t), ids, n, close_fill, &c, &real, err);
    if (rc == WX_OK)
        atomic_store_explicit(&t->next_id, real, memory_order_relaxed);
    return rc;
}
