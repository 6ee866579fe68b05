/*
 * treestore.h -- an exact, lock-free set of fixed-width state vectors that
 * stores each vector as a binary tree of pairs (tree compression) and
 * assigns dense ids 0, 1, 2, ... in insertion order, like hash/vtable.h.
 * The layout is described in docs/storage.md.
 *
 * Shape.  A vector of k words (k >= 3) is folded bottom-up along a shape
 * (hash/treeshape.h: the words in a leaf order, and a binary tree over it):
 * the leaves [lo, lo + n) fold to
 *     the word itself                       when n == 1,
 *     node(fold(left part), fold(right))    otherwise,
 * where the left part is the first left[j] leaves of the j-th internal
 * node (preorder).  The default shape is balanced: leaves in word order,
 * left parts of (n + 1) / 2 leaves; treestore_set_shape sets another one
 * before the first insert (explorers pick it from a sample of states:
 * correlated words together, low in the tree).  The shape is fixed for
 * the store's life, so a pair never says whether its halves are words or
 * node indices: unfolding knows it from the position.  Vectors of 1 or 2
 * words are stored as they are (no tree).
 *
 * Tables.  Two pair tables (hash/ptable.h: 4-byte slots holding tag | id,
 * the store holding the pairs by id):
 *   - the node table: the inner pairs of every vector, all levels in one
 *     table (a pair is two 32-bit values whatever its level, so equal pairs
 *     of different levels share one node; one table grows as a whole, where
 *     per-level tables would each need a size of their own).  A node's index
 *     is its id in that table: dense, never moved (this table takes no id
 *     blocks), below TREESTORE_MAX_NODES so that a pair of indices fits two
 *     words;
 *   - the root table: the pair at the top of each vector, k >= 3 (the vector
 *     itself, padded with a zero word, for k <= 2).  A state's id is its
 *     root's id in this table, so ids are dense in insertion order, take id
 *     blocks and close them exactly as vtable.h's do, and store[id] is the
 *     state's root pair.
 * Roots need a table of their own: a pair may be an inner node of one
 * vector and the root of another, and "inserted" must mean "a new state".
 *
 * Insert (treestore_insert): find-or-put of every inner pair, bottom-up
 * (vtable.h's reserve / write / publish protocol, so exact under concurrent
 * inserts: no lost pair, no duplicate, no torn node), then find-or-put of
 * the root pair with the caller's id block.  The outcome is the root's:
 * FOUND, INSERTED or FULL.  FULL leaves the inner nodes already put (they
 * are valid pairs, found again by the retry); it says which table was full
 * through treestore_can_grow.
 *
 * Visibility: a thread that learns a node index (by inserting the node or
 * by an acquire load of its published slot) has seen the node's pair; it
 * puts the index into its parent before publishing the parent with a
 * release store, so whoever sees a published root (acquire, or after a
 * quiet point) sees every pair below it: treestore_get never reads a
 * node that is not written yet.
 *
 * Capacity.  Each table has a fixed maximum (treestore_plan splits a byte
 * budget between them) and grows at quiet points, when it is full (ptable.h).  An insert
 * returns FULL when either table is at its load limit or its store is
 * exhausted; treestore_can_grow says whether growing would help.
 *
 * Thread safety: treestore_insert, treestore_find, treestore_get (of a
 * published id), treestore_count and treestore_wants_grow may be called
 * concurrently; everything else at a quiet point only.
 */
#ifndef WX_TREESTORE_H
#define WX_TREESTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "ptable.h"
#include "vtable.h"
#include "../util/error.h"

struct treestore;

/* The most nodes (and the most states) a store holds: a pair table's
 * capacity, so node indices fit a word. */
#define TREESTORE_MAX_NODES PTABLE_MAX_PAIRS

/* The most roots and inner nodes (0 for words <= 2) a budget of `bytes`
 * could hold if either table had it all, when each state also costs
 * `extra` bytes outside the store (trace links).  The tables share the
 * budget as they grow: see treestore_set_budget. */
void treestore_plan(uint64_t bytes, uint32_t words, uint64_t extra, uint64_t *max_states,
                    uint64_t *max_nodes);

/* Shares a budget of `bytes` between the two tables (at creation, before
 * any growth): a table may grow only while both tables at their sizes
 * then, filled to their maximum load, cost at most `bytes` -- slots, stored
 * pairs, and `extra` bytes per root (the caller's per-state data, counted
 * here so that one budget covers it).  Without a budget (0) each table
 * grows up to its own maximum. */
void treestore_set_budget(struct treestore *s, uint64_t bytes, uint64_t extra);

/* Allocates a store for vectors of `words` words (1 .. 64) with at most
 * max_states states and max_nodes inner nodes (ignored for words <= 2,
 * cut to TREESTORE_MAX_NODES).  WX_ELIMIT when the memory cannot be
 * reserved. */
int treestore_new(struct treestore **out, uint32_t words, uint64_t max_states, uint64_t max_nodes,
                  struct wx_error *err);
/* The same (kept for callers that asked for keyed roots: the pair tables
 * have none, and FOUND reports the state's id). */
int treestore_new_keyed(struct treestore **out, uint32_t words, uint64_t max_states, uint64_t max_nodes,
                        struct wx_error *err);
void treestore_free(struct treestore *s);

/* Sets the shape of the fold (treeshape.h; balanced until then), before
 * the first insert only: WX_EINPUT when sh is not a shape of the store's
 * words or a vector is already in.  The shape changes the bytes a state
 * costs, never the ids or the answers. */
struct tree_shape;
int treestore_set_shape(struct treestore *s, const struct tree_shape *sh, struct wx_error *err);
const struct tree_shape *treestore_shape(const struct treestore *s);

/* Finds or inserts vec; *id is its state id for FOUND and INSERTED.  The
 * id of an insert comes from *ids (vtable_insert_block) when ids is not
 * NULL, else from the shared counter. */
enum vtable_outcome treestore_insert(struct treestore *s, const uint32_t *vec, struct vtable_ids *ids,
                                     uint64_t *id);

/* Finds vec without inserting anything: FOUND (with *id) or ABSENT. */
enum vtable_outcome treestore_find(struct treestore *s, const uint32_t *vec, uint64_t *id);

/* Unfolds the vector of a published id into vec (words words). */
void treestore_get(const struct treestore *s, uint64_t id, uint32_t *vec);

/* Insertion in two steps, for an explorer that inserts the successors of
 * a state it has just unfolded: successors differ from their source in a
 * few words, so most of their subtrees are the source's.
 *   treestore_get_tree unfolds id into vec and, for words > 2, writes the
 *   values (node indices) of its words - 2 inner subtrees into vals, in
 *   preorder of the shape;
 *   treestore_fold puts the inner nodes of vec and gives its root pair:
 *   subtrees whose words equal ref_vec's take ref_vals' values without a
 *   lookup (ref_vec NULL: none does).  FOUND, or FULL (node table);
 *   treestore_insert_root then finds or inserts the root pair, as
 *   treestore_insert does (hash: treestore_root_hash).
 * The prefetches start loading the root's home slot and, later, the root
 * pair it points to (vtable_prefetch, vtable_prefetch_vector). */
void treestore_get_tree(const struct treestore *s, uint64_t id, uint32_t *vec, uint32_t *vals);
enum vtable_outcome treestore_fold(struct treestore *s, const uint32_t *vec, const uint32_t *ref_vec,
                                   const uint32_t *ref_vals, uint32_t root[2]);
uint64_t treestore_root_hash(const struct treestore *s, const uint32_t root[2]);
enum vtable_outcome treestore_insert_root(struct treestore *s, const uint32_t root[2], uint64_t hash,
                                          struct vtable_ids *ids, uint64_t *id);
void treestore_prefetch_root(const struct treestore *s, uint64_t hash);
/* Hints for treestore_fold(vec, ref_vec, ...): the lowest pairs of vec
 * that differ from ref_vec's start loading, their home slots (stage 0) and,
 * a little later, the pairs those slots point to (stage 1).  A caller with
 * several vectors to fold runs stage 0 on all, then stage 1, then folds. */
void treestore_prefetch_fold(const struct treestore *s, const uint32_t *vec, const uint32_t *ref_vec, int stage);
void treestore_prefetch_root_pair(const struct treestore *s, uint64_t hash);

/* Single-threaded find-or-put that grows the tables as needed: 1 added,
 * 0 present, -1 with err filled (WX_ELIMIT: a table is at its maximum --
 * the message gives the states and nodes reached -- or out of memory). */
int treestore_put(struct treestore *s, const uint32_t *vec, uint64_t *id, struct wx_error *err);

/* Fills err with the full-table message (WX_ELIMIT, the counts reached,
 * advising --memory) and returns WX_ELIMIT. */
int treestore_full_error(const struct treestore *s, struct wx_error *err);

uint32_t treestore_words(const struct treestore *s);
/* States (ids handed out; exact at a quiet point) and inner nodes. */
uint64_t treestore_count(const struct treestore *s);
uint64_t treestore_nodes(const struct treestore *s);
/* Slots of the root table now (id blocks are sized from it, vtable.h). */
uint64_t treestore_root_slots(const struct treestore *s);
/* Bytes in use by both tables (slot arrays and used stores). */
uint64_t treestore_bytes(const struct treestore *s);

/* True when a table wants to grow (vtable_wants_grow of either): an insert
 * took it to its maximum load and it can still grow.  After a FULL insert,
 * false means no growth can help (a table is at its maximum). */
bool treestore_wants_grow(const struct treestore *s);
bool treestore_can_grow(const struct treestore *s);

/* Growth, at a quiet point, of the tables that want it: begin allocates
 * (WX_ELIMIT when that fails); part re-inserts the items [begin, end) of
 * [0, treestore_grow_work(s)) -- any number of threads on disjoint ranges
 * covering it -- and end installs the new slot arrays. */
int treestore_grow_begin(struct treestore *s, struct wx_error *err);
uint64_t treestore_grow_work(const struct treestore *s);
void treestore_grow_part(struct treestore *s, uint64_t begin, uint64_t end);
void treestore_grow_end(struct treestore *s);

/* Id blocks of the root table (vtable_set_block / vtable_close_blocks):
 * renumbering a state moves its root pair only; its nodes stay. */
void treestore_set_block(struct treestore *s, uint32_t ids_per_block);
int treestore_close_blocks(struct treestore *s, struct vtable_ids *ids, unsigned n,
                           void (*moved)(void *ctx, uint64_t from, uint64_t to), void *ctx,
                           struct wx_error *err);

#endif
