/*
 * ptable.h -- an exact, lock-free set of pairs of 32-bit words with dense
 * ids 0, 1, 2, ... in insertion order and 4-byte slots: the tables of the
 * tree store (hash/treestore.h).
 *
 * The protocol is hash/vtable.h's (reserve / write / publish, the same
 * memory ordering, the same id blocks, growth at quiet points, FULL at
 * the load limit); only the slot is narrower.  Layout:
 *   - the store: pairs by id (8 bytes each), reserved lazily;
 *   - the slots: linear probing over 32-bit words
 *         0                     empty
 *         tag << b | RESERVED   claimed, pair being written
 *         tag << b | DEAD       claimed, but the store was full
 *         tag << b | (id + 1)   published: the pair of `id`
 *     where b, the width of the id field, is the fewest bits that hold
 *     every id the current slot array admits (ids stay below nslots; an id
 *     that does not fit makes the insert FULL), and tag is 32 - b bits of
 *     the pair's hash that the home slot does not use.  So small tables
 *     have wide tags and large ones narrow tags (none at 2^31 slots): a
 *     tag mismatch skips a slot without reading the store, a match is
 *     confirmed against the stored pair.  Growth re-inserts every pair
 *     with the new array's b.
 * A pair costs 8 bytes of store plus 4 bytes of slot at the table's load,
 * where vtable.h's slots take 8.  The table grows only at its maximum load
 * (PTABLE_MAX_LOAD, util/config.h) and by PTABLE_GROWTH rather than doubling, so the
 * load stays high.
 *
 * Thread safety as vtable.h: lookups, inserts, prefetches, count, pair
 * (of a published id) and wants_grow concurrently; the rest at quiet
 * points.
 */
#ifndef WX_PTABLE_H
#define WX_PTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "vtable.h"
#include "../util/error.h"

/* The most pairs a table holds: the slot array (max / load) stays below
 * 2^32 - 3, so an id field of 32 bits is the widest needed. */
#define PTABLE_MAX_PAIRS (3ull << 30)

struct ptable;

/* Bytes per pair at the maximum load (store plus slot), for budgets. */
uint64_t ptable_bytes_per_pair(void);

int ptable_new(struct ptable **out, uint64_t max_pairs, struct wx_error *err);
void ptable_free(struct ptable *t);

/* Finds or (INSERT) inserts pair; hash = vtable_hash_inline(pair, 2).
 * FOUND, INSERTED (with *id), ABSENT (FIND) or FULL. */
enum vtable_outcome ptable_lookup(struct ptable *t, const uint32_t pair[2], uint64_t hash,
                                  enum vtable_mode mode, uint64_t *id);
/* An insert whose id comes from the caller's block (vtable_insert_block). */
enum vtable_outcome ptable_insert_block(struct ptable *t, const uint32_t pair[2], uint64_t hash,
                                        struct vtable_ids *ids, uint64_t *id);

void ptable_prefetch(const struct ptable *t, uint64_t hash);
void ptable_prefetch_pair(const struct ptable *t, uint64_t hash);

uint64_t ptable_count(const struct ptable *t);
const uint32_t *ptable_pair(const struct ptable *t, uint64_t id);
uint64_t ptable_slots(const struct ptable *t);
/* Bytes in use: the slot array plus the used part of the store. */
uint64_t ptable_bytes(const struct ptable *t);
/* The slots after one more growth (the current number when at the top). */
uint64_t ptable_next_slots(const struct ptable *t);

bool ptable_can_grow(const struct ptable *t);
/* True when an insert reached the maximum load and the table can grow. */
bool ptable_wants_grow(const struct ptable *t);

/* Growth at a quiet point: begin allocates, part re-inserts ids
 * [begin, end) (threads on disjoint ranges covering [0, count)), end
 * installs the new array. */
int ptable_grow_begin(struct ptable *t, struct wx_error *err);
void ptable_grow_part(struct ptable *t, uint64_t begin, uint64_t end);
void ptable_grow_end(struct ptable *t);

/* Id blocks, as vtable_set_block / vtable_close_blocks. */
void ptable_set_block(struct ptable *t, uint32_t ids_per_block);
int ptable_close_blocks(struct ptable *t, struct vtable_ids *ids, unsigned n,
                        void (*moved)(void *ctx, uint64_t from, uint64_t to), void *ctx, struct wx_error *err);

#endif
