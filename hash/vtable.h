/*
 * vtable.h -- an exact, lock-free table of fixed-width state vectors that
 * assigns dense ids 0, 1, 2, ... in insertion order.
 *
 * Layout.  Two arrays:
 *   - the store: vectors by id, `words` 32-bit words each (id i at
 *     store[i * words]); ids are dense, so the store is also the state array
 *     of a BFS (a level is an id range);
 *   - the slots: an open-addressing array (linear probing, any size: the home
 *     slot is the high half of hash * nslots) of 64-bit words
 *         0                          empty
 *         tag << 40 | RESERVED       claimed, vector being written
 *         tag << 40 | DEAD           claimed, but the store was full
 *         tag << 40 | (id + 1)       published: the vector of `id`
 *     where tag is 24 bits of the vector's 64-bit hash that the home index
 *     does not use, and the low 40 bits hold id + 1 (so ids < 2^40 - 2).
 *     (Keyed tables, vtable_new_keyed, put the vector itself in the slot
 *     instead: one 64-bit word, or two for 3-4 words.)
 *
 * Insert protocol (vtable_lookup with VTABLE_INSERT).  Walk the probe
 * sequence from the home slot:
 *   - an empty slot: the vector is absent.  CAS it empty -> tag|RESERVED.
 *     On success take a fresh id (fetch_add on the id counter), copy the
 *     vector into store[id] with plain stores, then publish tag|(id+1) with a
 *     release store.  On CAS failure re-examine the same slot: someone else
 *     claimed it, possibly for this very vector.
 *   - a slot with another tag: a different vector; go on.
 *   - tag|RESERVED with our tag: wait (spin, then yield) until it becomes
 *     published or DEAD; a reader never compares against a half-written
 *     vector.
 *   - tag|(id+1) with our tag: compare store[id]; equal -> FOUND.
 * Slots only ever change empty -> RESERVED -> PUBLISHED/DEAD, never back, so
 * every inserter of a vector walks past the first slot claimed for it before
 * it meets an empty slot: two threads can never give one vector two ids.
 *
 * Memory ordering (C11).  The publishing store is memory_order_release and
 * every slot load (including a failed CAS) is memory_order_acquire, so a
 * thread that sees a published slot also sees the complete vector in the
 * store.  The claim CAS itself publishes nothing (it is acquire on success
 * only because C11 forbids a failure order stronger than the success one).  The
 * id counter is a relaxed fetch_add: only its atomicity matters.
 *
 * Capacity.  The store holds at most max_states vectors (fixed at creation,
 * reserved as lazily committed memory, so only used pages cost RAM; store
 * and slot arrays ask for transparent huge pages).  The slot array starts
 * small and grows by doubling, up to max_slots (~ max_states /
 * VTABLE_MAX_LOAD), but only at a quiet point: the caller guarantees that
 * no lookup runs between vtable_grow_begin and vtable_grow_end
 * (vtable_grow_part may run on many threads at once).  An insert returns
 * FULL once the current slot array has reached VTABLE_MAX_LOAD, or the
 * store is exhausted: the caller may then grow (vtable_can_grow) and retry,
 * or treat FULL as a resource limit.  FULL never hides a FOUND: the probe
 * sequence is searched first.  The inserts that cross half load and the
 * maximum load raise flags (want_grow, over) that the others read instead
 * of the id counter, so the counter's cache line sees one atomic add per
 * insert and nothing else; threads racing past the `over` check overshoot
 * the maximum load by at most one insert each.
 *
 * Thread safety: vtable_lookup(_hashed), vtable_prefetch(_vector),
 * vtable_count, vtable_vector (of a published id) and vtable_wants_grow may
 * be called concurrently; everything else only at a quiet point.
 */
#ifndef WX_VTABLE_H
#define WX_VTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/error.h"

enum vtable_mode { VTABLE_FIND, VTABLE_INSERT };

enum vtable_outcome {
    VTABLE_FOUND,    /* present; *id is its id */
    VTABLE_INSERTED, /* absent and inserted (INSERT mode); *id is the new id */
    VTABLE_ABSENT,   /* absent (FIND mode only) */
    VTABLE_FULL      /* absent and no room (INSERT mode only) */
};

/* Slots may be filled up to this load (a fraction of nslots) before an
 * insert reports FULL; growth is wanted at two thirds of it (load 1/2), so
 * a growing table runs at loads between 1/4 and 3/4.  While growing, the old
 * and the new slot array coexist (1.5 times the slot bytes, briefly). */
#define VTABLE_MAX_LOAD_NUM 3u
#define VTABLE_MAX_LOAD_DEN 4u

/* The largest id + 1 a slot can hold. */
#define VTABLE_ID_LIMIT ((1ull << 40) - 2)

struct vtable;

/* Bytes a table needs per stored state at its largest (store plus slots at
 * the maximum load), for budgeting: words * 4 + ceil(slot bytes / max load),
 * where the slot bytes are those of the larger kind for that width (16 for
 * 3 or 4 words, whose keyed slots are wide, else 8), on every platform: one
 * budget admits the same number of states whatever kind an explorer picks. */
uint64_t vtable_bytes_per_state(uint32_t words);

/* The number of states a budget of `bytes` allows when each state also
 * costs `extra` bytes outside the table (parent links, ...). */
uint64_t vtable_states_for_budget(uint64_t bytes, uint32_t words, uint64_t extra);

/* Allocates a table for vectors of `words` words (1 .. 64) holding at most
 * max_states vectors (1 .. VTABLE_ID_LIMIT).  WX_ELIMIT when the memory
 * cannot be reserved. */
int vtable_new(struct vtable **out, uint32_t words, uint64_t max_states, struct wx_error *err);

/* Keyed tables: for vectors of 1 .. vtable_keyed_max_words() words whose
 * callers never need the id of a vector found (only of one inserted).  A
 * slot then holds the vector itself instead of tag | id: for 1 or 2 words
 * one 64-bit key (the vector's bits with bit 63 set; bit 63 is never part
 * of a field, image.h), for 3 or 4 words a wide key of two 64-bit words
 * (16-byte slots, four to a cache line; the high word has bit 63 set, the
 * reserved bit 31 of the last word for 4 words).  A lookup of a present
 * vector reads one slot line and never the store, and an insert claims the
 * slot with the complete key in one CAS (16 bytes wide for wide keys;
 * nothing to wait for).
 * Differences from vtable_new's tables:
 *   - FOUND sets *id to VTABLE_NO_ID;
 *   - vtable_insert_block takes a fresh id into its block before it claims
 *     a slot, so a full store gives FULL with nothing claimed;
 *   - INSERT through vtable_lookup(_hashed) (no id block) must not run
 *     concurrently with any other insert (it is for set-up and tests).
 * Everything else (growth, id blocks, close_blocks, the store, the budget
 * per state) is the same.  WX_EINPUT when words > vtable_keyed_max_words(). */
int vtable_new_keyed(struct vtable **out, uint32_t words, uint64_t max_states, struct wx_error *err);

/* The widest vector a keyed table takes: 4 words where a 16-byte CAS
 * exists (x86-64: cmpxchg16b), else 2. */
uint32_t vtable_keyed_max_words(void);

/* The id reported for a FOUND vector by a keyed table. */
#define VTABLE_NO_ID UINT64_MAX

/* Growth wanted only at the maximum load (3/4) instead of at 1/2: a
 * growing table then runs at loads between 3/8 and 3/4 -- fewer slot bytes
 * per vector, longer probes.  Right after creation (or at a quiet point). */
void vtable_grow_when_full(struct vtable *t);

/* True for a table made by vtable_new_keyed. */
bool vtable_keyed(const struct vtable *t);
void vtable_free(struct vtable *t);

/* The one probe routine: finds vec, or (INSERT) inserts it.  *id is set for
 * FOUND and INSERTED.  Never blocks except to wait for a concurrent insert
 * of a vector with the same tag to publish.  hash must be
 * vtable_hash(vec, words). */
enum vtable_outcome vtable_lookup_hashed(struct vtable *t, const uint32_t *vec, uint64_t hash,
                                         enum vtable_mode mode, uint64_t *id);

/* vtable_lookup_hashed with the hash computed here. */
enum vtable_outcome vtable_lookup(struct vtable *t, const uint32_t *vec, enum vtable_mode mode,
                                  uint64_t *id);

/* Id blocks.  With one shared counter every insert of every thread does an
 * atomic add on one cache line and writes the store line next to the one
 * another thread just wrote; beyond a few threads that line ping-pong is
 * the bottleneck.  vtable_insert_block instead takes ids from the caller's
 * private block, refilled with vtable_set_block's number of ids at a time
 * (a thread's vectors then lie together in the store).  A block's unused
 * tail is a hole in the id range; vtable_close_blocks, at a quiet point,
 * closes every block and moves the highest vectors into the holes (slot,
 * store and the caller's per-id data through `moved`), so ids are dense
 * again, as without blocks: at a quiet point, ids 0 .. vtable_count - 1
 * are exactly the stored vectors.  Ids handed out before the last close
 * below the new count never move; others may (callers that keep ids of
 * fresh vectors outside the table, such as an edge sink, use blocks of 1). */
struct vtable_ids {
    uint64_t next, end;       /* unused ids [next, end); start zeroed */
};

/* vtable_lookup_hashed(VTABLE_INSERT) with the id taken from *ids. */
enum vtable_outcome vtable_insert_block(struct vtable *t, const uint32_t *vec, uint64_t hash,
                                        struct vtable_ids *ids, uint64_t *id);
/* Ids per block (default 1; 0 counts as 1).  At a quiet point. */
void vtable_set_block(struct vtable *t, uint32_t ids_per_block);
/* Closes the n blocks (zeroes them) and makes the ids dense, calling
 * moved(ctx, from, to) for every vector renumbered.  At a quiet point.
 * WX_ELIMIT when out of memory. */
int vtable_close_blocks(struct vtable *t, struct vtable_ids *ids, unsigned n,
                        void (*moved)(void *ctx, uint64_t from, uint64_t to), void *ctx,
                        struct wx_error *err);

/* The renumbering behind vtable_close_blocks, for any table whose ids are
 * handed out in blocks (hash/ptable.c too): of the ids [0, top), the n
 * blocks' unused tails are holes; the highest ids outside the holes fill
 * the holes below the real count, in ascending order, one fill(ctx, from,
 * to) each.  Zeroes the blocks and sets *real to the dense count.
 * WX_ELIMIT when out of memory. */
int vtable_ids_close(uint64_t top, struct vtable_ids *ids, unsigned n,
                     void (*fill)(void *ctx, uint64_t from, uint64_t to), void *ctx, uint64_t *real,
                     struct wx_error *err);

/* Starts loading the home slot of a hash into the cache.  A caller with
 * several vectors to look up hashes and prefetches a few ahead, so that
 * the cache misses of the probes overlap (the table is far larger than the
 * caches, and each probe is one random access). */
void vtable_prefetch(const struct vtable *t, uint64_t hash);

/* The second stage: when the home slot of hash (prefetched a while ago)
 * holds a published id with the hash's tag, starts loading that id's
 * stored vector, which the lookup will compare.  A hint only. */
void vtable_prefetch_vector(const struct vtable *t, uint64_t hash);

/* Number of ids handed out, at most max_states (exact at a quiet point;
 * while inserts run, ids counted here may not be published yet). */
uint64_t vtable_count(const struct vtable *t);

/* The vector of a published id (words words, read-only). */
const uint32_t *vtable_vector(const struct vtable *t, uint64_t id);

uint64_t vtable_max_states(const struct vtable *t);
uint64_t vtable_slots(const struct vtable *t);

/* Bytes in use: the slot array plus the used part of the store. */
uint64_t vtable_bytes(const struct vtable *t);

/* True when the slot array can still double (it is below max_slots). */
bool vtable_can_grow(const struct vtable *t);

/* True when growth is possible and an insert took the load past 1/2. */
bool vtable_wants_grow(const struct vtable *t);

/* Growth, at a quiet point: begin allocates the larger slot array (WX_ELIMIT
 * when that fails); part re-inserts ids [begin, end) -- any number of
 * threads, disjoint ranges covering [0, vtable_count) -- and end installs the
 * new array and frees the old. */
int vtable_grow_begin(struct vtable *t, struct wx_error *err);
void vtable_grow_part(struct vtable *t, uint64_t begin, uint64_t end);
void vtable_grow_end(struct vtable *t);

/* The other way to re-insert, between vtable_grow_begin and _end: the
 * vectors of slots [begin, end) of the current (old) slot array, any
 * number of threads on disjoint ranges covering [0, vtable_slots(t)), in
 * place of vtable_grow_part.  For keyed tables this reads the old array
 * in order and, since the home slot is monotone in the hash
 * (high bits of hash * nslots), writes the new one nearly in order too:
 * no random access, unlike vtable_grow_part's random writes.  Tables with
 * ids in their slots re-insert the whole store in the call with begin 0
 * (vtable_grow_part's order) and nothing in the others. */
void vtable_grow_slots(struct vtable *t, uint64_t begin, uint64_t end);

/* Hands the store to the caller (free() it): vtable_count(t) * words words
 * by id.  The table is unusable afterwards except for vtable_free. */
uint32_t *vtable_take_store(struct vtable *t);

/* The 64-bit hash of a vector used by the table (exposed for tests). */
uint64_t vtable_hash(const uint32_t *vec, uint32_t words);

/* The same hash, inline for callers that hash every successor. */
static inline uint64_t vtable_fmix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static inline uint64_t vtable_hash_inline(const uint32_t *vec, uint32_t words)
{
    /* Up to 2 words: one finaliser round on the vector read as a 64-bit
     * integer -- a bijection, so distinct vectors never share a hash, and
     * every output bit depends on every input bit (the table uses the high
     * bits for the home slot, the low ones for tags).  The explorers hash
     * every successor: half the work of the general chain below. */
    if (words <= 2)
        return vtable_fmix64(((uint64_t)vec[0] | (words > 1 ? (uint64_t)vec[1] << 32 : 0))
                             ^ (0x9e3779b97f4a7c15ull ^ ((uint64_t)words << 56)));
    uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)words << 56);
    uint32_t i = 0;
    for (; i + 2 <= words; i += 2) {
        uint64_t k = (uint64_t)vec[i] | (uint64_t)vec[i + 1] << 32;
        h = (h ^ vtable_fmix64(k)) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    if (i < words)
        h = (h ^ vtable_fmix64((uint64_t)vec[i] + 0x632be59bd9b4e019ull)) * 0x9e3779b97f4a7c15ull;
    return vtable_fmix64(h);
}

#endif
