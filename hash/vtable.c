/*
 * vtable.c -- the lock-free vector table; the protocol and its memory
 * ordering are described in vtable.h.
 */
#include "vtable.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define ID_BITS 40u
#define ID_MASK ((1ull << ID_BITS) - 1)
#define TAG_MASK ((1ull << (64u - ID_BITS)) - 1)
#define SLOT_RESERVED ID_MASK          /* id field all ones */
#define SLOT_DEAD (ID_MASK - 1)        /* claimed, store was full */

/* Slot arrays start at this many slots (8 bytes each): small models stay
 * small, large ones double a dozen or so times. */
#define INITIAL_SLOTS (1ull << 15)

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
    uint64_t load_limit;     /* ids allowed at the current nslots */

    _Atomic uint64_t *next_slots; /* during growth */
    uint64_t next_nslots;

    /* The id counter is hammered by every inserter: keep it off the line
     * of the read-mostly fields above. */
    _Alignas(64) _Atomic uint64_t next_id;
    char pad[64 - sizeof(uint64_t)];
};

/* ---- hashing ---- */

static inline uint64_t fmix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

uint64_t vtable_hash(const uint32_t *vec, uint32_t words)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)words << 56);
    uint32_t i = 0;
    for (; i + 2 <= words; i += 2) {
        uint64_t k = (uint64_t)vec[i] | (uint64_t)vec[i + 1] << 32;
        h = (h ^ fmix64(k)) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    if (i < words)
        h = (h ^ fmix64((uint64_t)vec[i] + 0x632be59bd9b4e019ull)) * 0x9e3779b97f4a7c15ull;
    return fmix64(h);
}

/* The home slot uses the high bits of hash * nslots (any nslots works), the
 * tag the low 24 bits of the hash. */
static inline uint64_t home_slot(uint64_t h, uint64_t nslots)
{
    return (uint64_t)(((unsigned __int128)h * nslots) >> 64);
}

static inline uint64_t slot_tag(uint64_t h) { return h & TAG_MASK; }

/* ---- sizing ---- */

uint64_t vtable_bytes_per_state(uint32_t words)
{
    /* 8 bytes per slot at a load of NUM/DEN, rounded up. */
    return (uint64_t)words * 4u + (8u * VTABLE_MAX_LOAD_DEN + VTABLE_MAX_LOAD_NUM - 1) / VTABLE_MAX_LOAD_NUM;
}

uint64_t vtable_states_for_budget(uint64_t bytes, uint32_t words, uint64_t extra)
{
    uint64_t n = bytes / (vtable_bytes_per_state(words) + extra);
    return n > VTABLE_ID_LIMIT ? VTABLE_ID_LIMIT : n;
}

static uint64_t limit_for(uint64_t nslots, uint64_t max_states)
{
    uint64_t l = nslots / VTABLE_MAX_LOAD_DEN * VTABLE_MAX_LOAD_NUM
                 + nslots % VTABLE_MAX_LOAD_DEN * VTABLE_MAX_LOAD_NUM / VTABLE_MAX_LOAD_DEN;
    return l < max_states ? l : max_states;
}

int vtable_new(struct vtable **out, uint32_t words, uint64_t max_states, struct wx_error *err)
{
    *out = NULL;
    if (words == 0 || words > 64)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "vector table: %u words per vector is out of range", words);
    if (max_states == 0 || max_states > VTABLE_ID_LIMIT)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "vector table: a capacity of %llu states is out of range",
                       (unsigned long long)max_states);
    struct vtable *t = calloc(1, sizeof *t);
    if (!t)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "vector table: out of memory");
    t->words = words;
    t->max_states = max_states;
    /* Enough slots that the load limit admits max_states, plus slack. */
    t->max_slots = max_states / VTABLE_MAX_LOAD_NUM * VTABLE_MAX_LOAD_DEN
                   + (max_states % VTABLE_MAX_LOAD_NUM) * VTABLE_MAX_LOAD_DEN / VTABLE_MAX_LOAD_NUM + 2;
    t->nslots = t->max_slots < INITIAL_SLOTS ? t->max_slots : INITIAL_SLOTS;
    t->load_limit = limit_for(t->nslots, max_states);
    /* The store is malloc'ed, not calloc'ed: large blocks come from mmap and
     * are committed page by page as ids fill them. */
    if (max_states > SIZE_MAX / 4 / words)
        goto oom;
    t->store = malloc((size_t)max_states * words * 4u);
    t->slots = calloc((size_t)t->nslots, sizeof *t->slots);
    if (!t->store || !t->slots)
        goto oom;
    atomic_init(&t->next_id, 0);
    *out = t;
    return WX_OK;
oom:
    free(t->store);
    free(t->slots);
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
    free(t->slots);
    free(t->next_slots);
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

void vtable_prefetch(const struct vtable *t, uint64_t hash)
{
    __builtin_prefetch(&t->slots[home_slot(hash, t->nslots)], 1, 3);
}

enum vtable_outcome vtable_lookup(struct vtable *t, const uint32_t *vec, enum vtable_mode mode,
                                  uint64_t *id)
{
    return vtable_lookup_hashed(t, vec, vtable_hash(vec, t->words), mode, id);
}

enum vtable_outcome vtable_lookup_hashed(struct vtable *t, const uint32_t *vec, uint64_t h,
                                         enum vtable_mode mode, uint64_t *id)
{
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
                 * is never given back). */
                if (atomic_load_explicit(&t->next_id, memory_order_relaxed) >= t->load_limit)
                    return VTABLE_FULL;
                if (!atomic_compare_exchange_strong_explicit(slot, &s, tag | SLOT_RESERVED,
                                                             memory_order_acquire, memory_order_acquire))
                    continue; /* s now holds the winner's value: re-examine */
                uint64_t fresh = atomic_fetch_add_explicit(&t->next_id, 1, memory_order_relaxed);
                if (fresh >= t->max_states) {
                    /* Several threads passed the load check at once and the
                     * store is exhausted.  DEAD keeps the chain intact;
                     * waiters skip it as a non-matching slot. */
                    atomic_store_explicit(slot, tag | SLOT_DEAD, memory_order_release);
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
    return t->nslots * 8u + vtable_count(t) * t->words * 4u;
}

bool vtable_can_grow(const struct vtable *t) { return t->nslots < t->max_slots; }

bool vtable_wants_grow(const struct vtable *t)
{
    return t->nslots < t->max_slots
           && atomic_load_explicit(&((struct vtable *)t)->next_id, memory_order_relaxed) >= t->load_limit / 3 * 2;
}

/* ---- growth (quiet points only) ---- */

int vtable_grow_begin(struct vtable *t, struct wx_error *err)
{
    uint64_t n = t->nslots * 2 < t->max_slots ? t->nslots * 2 : t->max_slots;
    t->next_slots = calloc((size_t)n, sizeof *t->next_slots);
    if (!t->next_slots)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "vector table: out of memory growing to %llu slots",
                       (unsigned long long)n);
    t->next_nslots = n;
    return WX_OK;
}

/* Ids re-inserted per batch while growing: their hashes are computed and
 * their home slots prefetched before the first CAS of the batch. */
#define GROW_BATCH 16

void vtable_grow_part(struct vtable *t, uint64_t begin, uint64_t end)
{
    const uint64_t n = t->next_nslots;
    uint64_t hs[GROW_BATCH];
    for (uint64_t id = begin; id < end; id++) {
        uint64_t k = (id - begin) % GROW_BATCH;
        if (k == 0)
            for (uint64_t j = 0; j < GROW_BATCH && id + j < end; j++) {
                hs[j] = vtable_hash(t->store + (id + j) * t->words, t->words);
                __builtin_prefetch(&t->next_slots[home_slot(hs[j], n)], 1, 3);
            }
        uint64_t h = hs[k];
        uint64_t v = slot_tag(h) << ID_BITS | (id + 1);
        uint64_t i = home_slot(h, n);
        /* Distinct ids hold distinct vectors: no comparison, just the first
         * empty slot.  Other threads fill the same array concurrently, hence
         * the CAS; nothing reads the array until vtable_grow_end. */
        for (;;) {
            uint64_t expect = 0;
            if (atomic_compare_exchange_strong_explicit(&t->next_slots[i], &expect, v,
                                                        memory_order_relaxed, memory_order_relaxed))
                break;
            if (++i == n)
                i = 0;
        }
    }
}

void vtable_grow_end(struct vtable *t)
{
    free(t->slots);
    t->slots = t->next_slots;
    t->nslots = t->next_nslots;
    t->next_slots = NULL;
    t->next_nslots = 0;
    t->load_limit = limit_for(t->nslots, t->max_states);
}

uint32_t *vtable_take_store(struct vtable *t)
{
    uint32_t *s = t->store;
    t->store = NULL;
    return s;
}
