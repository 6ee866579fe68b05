/*
 * treestore.c -- tree-compressed vector storage over two vector tables; the
 * layout and the insert protocol are described in treestore.h.
 */
#include "treestore.h"
#include "ptable.h"
#include "treeshape.h"
#include "../util/config.h"

#include <stdlib.h>
#include <string.h>

struct treestore {
    uint32_t words;
    struct ptable *roots;    /* root pairs (the vector itself, words <= 2) */
    struct ptable *nodes;    /* inner pairs; NULL for words <= 2 */
    bool grow_roots, grow_nodes; /* what the running growth rebuilds */
    uint64_t budget, extra;  /* treestore_set_budget; 0: none */
    uint64_t work_nodes;     /* grow_part items [0, work_nodes) are nodes */
    struct tree_shape shape; /* the fold (treeshape.h); balanced by default */
    bool identity;           /* shape.perm is the identity */
};

/* The vector in the shape's leaf order: vec itself when that is the
 * identity, else buf filled. */
static inline const uint32_t *leaves(const struct treestore *s, const uint32_t *vec, uint32_t *buf)
{
    if (s->identity || !vec)
        return vec;
    for (uint32_t i = 0; i < s->words; i++)
        buf[i] = vec[s->shape.perm[i]];
    return buf;
}

/* Pairs of ptable_bytes_per_pair() (+ extra) bytes in `bytes`, within a
 * pair table's capacity. */
static uint64_t pairs_for(uint64_t bytes, uint64_t extra)
{
    const uint64_t n = bytes / (ptable_bytes_per_pair() + extra);
    return n < PTABLE_MAX_PAIRS ? n : PTABLE_MAX_PAIRS;
}

void treestore_plan(uint64_t bytes, uint32_t words, uint64_t extra, uint64_t *max_states,
                    uint64_t *max_nodes)
{
    *max_states = pairs_for(bytes, extra);
    *max_nodes = words <= 2 ? 0 : pairs_for(bytes, 0);
}

static int store_new(struct treestore **out, uint32_t words, uint64_t max_states, uint64_t max_nodes,
                     bool keyed, struct wx_error *err);

int treestore_new(struct treestore **out, uint32_t words, uint64_t max_states, uint64_t max_nodes,
                  struct wx_error *err)
{
    return store_new(out, words, max_states, max_nodes, false, err);
}

int treestore_new_keyed(struct treestore **out, uint32_t words, uint64_t max_states, uint64_t max_nodes,
                        struct wx_error *err)
{
    return store_new(out, words, max_states, max_nodes, true, err);
}

static int store_new(struct treestore **out, uint32_t words, uint64_t max_states, uint64_t max_nodes,
                     bool keyed, struct wx_error *err)
{
    (void)keyed; /* the pair tables' slots hold ids: FOUND has its id */
    *out = NULL;
    if (words == 0 || words > 64)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "tree store: %u words per vector is out of range", words);
    struct treestore *s = calloc(1, sizeof *s);
    if (!s)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "tree store: out of memory");
    s->words = words;
    tree_shape_balanced(words, &s->shape);
    s->identity = true;
    int rc = ptable_new(&s->roots, max_states > PTABLE_MAX_PAIRS ? PTABLE_MAX_PAIRS : max_states, err);
    if (!rc && words > 2) {
        if (max_nodes == 0)
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "tree store: memory budget too small for a node table");
        else
            rc = ptable_new(&s->nodes, max_nodes > TREESTORE_MAX_NODES ? TREESTORE_MAX_NODES : max_nodes, err);
    }
    if (rc) {
        treestore_free(s);
        return rc;
    }
    *out = s;
    return WX_OK;
}

void treestore_free(struct treestore *s)
{
    if (!s)
        return;
    ptable_free(s->roots);
    ptable_free(s->nodes);
    free(s);
}

int treestore_set_shape(struct treestore *s, const struct tree_shape *sh, struct wx_error *err)
{
    if (sh->words != s->words || !tree_shape_valid(sh))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "tree store: not a shape of %u words", s->words);
    if (treestore_count(s) != 0)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "tree store: the shape is set before the first insert");
    s->shape = *sh;
    s->identity = true;
    for (uint32_t i = 0; i < s->words; i++)
        s->identity = s->identity && sh->perm[i] == i;
    return WX_OK;
}

const struct tree_shape *treestore_shape(const struct treestore *s) { return &s->shape; }

/* ---- folding ---- */

/* A reference vector whose subtree values are known (treestore_get_tree):
 * subtrees of the folded vector equal to the reference's take its values
 * without a lookup.  vals are in preorder (pos counts the subtrees of two
 * or more words passed so far). */
struct ref {
    const uint32_t *vec, *vals;
};

/* The value of leaves [lo, lo + n) (n >= 1) of vec, in the shape's leaf
 * order: the word itself, or the index of
 * the node holding its halves' values, put into the node table on the way
 * (FIND mode: only looked up; ABSENT when missing).  Returns FOUND (or
 * INSERTED, whichever the top node got), ABSENT or FULL. */
static enum vtable_outcome fold(struct treestore *s, const uint32_t *vec, uint32_t lo, uint32_t n,
                                enum vtable_mode mode, const struct ref *ref, uint32_t *pos, uint32_t *val)
{
    if (n == 1) {
        *val = vec[lo];
        return VTABLE_FOUND;
    }
    const uint32_t p = (*pos)++;
    if (ref && !memcmp(vec + lo, ref->vec + lo, n * 4u)) {
        *val = ref->vals[p];
        *pos += n - 2; /* skip the subtree's other n - 2 inner nodes */
        return VTABLE_FOUND;
    }
    const uint32_t nl = s->shape.left[p + 1];
    uint32_t pair[2];
    enum vtable_outcome o;
    if ((o = fold(s, vec, lo, nl, mode, ref, pos, &pair[0])) > VTABLE_INSERTED
        || (o = fold(s, vec, lo + nl, n - nl, mode, ref, pos, &pair[1])) > VTABLE_INSERTED)
        return o;
    uint64_t idx;
    o = ptable_lookup(s->nodes, pair, vtable_hash_inline(pair, 2), mode, &idx);
    *val = (uint32_t)idx; /* < TREESTORE_MAX_NODES: fits */
    return o;
}

/* The pair (or, words <= 2, the vector) to look up in the root table:
 * FOUND when every inner node is present, else ABSENT or FULL. */
static enum vtable_outcome fold_root(struct treestore *s, const uint32_t *vec, enum vtable_mode mode,
                                     const struct ref *ref, uint32_t root[2])
{
    if (s->words <= 2) {
        root[0] = vec[0];
        root[1] = s->words > 1 ? vec[1] : 0;
        return VTABLE_FOUND;
    }
    const uint32_t nl = s->shape.left[0];
    uint32_t pos = 0;
    enum vtable_outcome o;
    if ((o = fold(s, vec, 0, nl, mode, ref, &pos, &root[0])) > VTABLE_INSERTED
        || (o = fold(s, vec, nl, s->words - nl, mode, ref, &pos, &root[1])) > VTABLE_INSERTED)
        return o;
    return VTABLE_FOUND;
}

uint64_t treestore_root_hash(const struct treestore *s, const uint32_t root[2])
{
    return vtable_hash_inline(root, 2);
}

enum vtable_outcome treestore_insert_root(struct treestore *s, const uint32_t root[2], uint64_t hash,
                                          struct vtable_ids *ids, uint64_t *id)
{
    if (ids)
        return ptable_insert_block(s->roots, root, hash, ids, id);
    return ptable_lookup(s->roots, root, hash, VTABLE_INSERT, id);
}

enum vtable_outcome treestore_fold(struct treestore *s, const uint32_t *vec, const uint32_t *ref_vec,
                                   const uint32_t *ref_vals, uint32_t root[2])
{
    uint32_t b1[TREE_SHAPE_MAX_WORDS], b2[TREE_SHAPE_MAX_WORDS];
    const struct ref ref = { leaves(s, ref_vec, b2), ref_vals };
    return fold_root(s, leaves(s, vec, b1), VTABLE_INSERT, ref_vec ? &ref : NULL, root) == VTABLE_FULL ? VTABLE_FULL
                                                                                       : VTABLE_FOUND;
}

enum vtable_outcome treestore_insert(struct treestore *s, const uint32_t *vec, struct vtable_ids *ids,
                                     uint64_t *id)
{
    uint32_t root[2], b[TREE_SHAPE_MAX_WORDS];
    if (fold_root(s, leaves(s, vec, b), VTABLE_INSERT, NULL, root) == VTABLE_FULL)
        return VTABLE_FULL;
    return treestore_insert_root(s, root, treestore_root_hash(s, root), ids, id);
}

enum vtable_outcome treestore_find(struct treestore *s, const uint32_t *vec, uint64_t *id)
{
    uint32_t root[2], b[TREE_SHAPE_MAX_WORDS];
    if (fold_root(s, leaves(s, vec, b), VTABLE_FIND, NULL, root) != VTABLE_FOUND)
        return VTABLE_ABSENT;
    return ptable_lookup(s->roots, root, treestore_root_hash(s, root), VTABLE_FIND, id);
}

/* The pairs of two words (the lowest nodes: their hashes need no lookup)
 * of words [lo, lo + n) that differ from ref's: their home slots (stage 0)
 * or the pairs those point to (stage 1) start loading. */
static void prefetch_pairs(const struct treestore *s, const uint32_t *vec, const uint32_t *ref, uint32_t lo,
                           uint32_t n, int stage, uint32_t *pos)
{
    if (n < 2)
        return;
    const uint32_t p = (*pos)++;
    if (!memcmp(vec + lo, ref + lo, n * 4u)) {
        *pos += n - 2;
        return;
    }
    if (n == 2) {
        const uint64_t h = vtable_hash_inline(vec + lo, 2);
        if (stage == 0)
            ptable_prefetch(s->nodes, h);
        else
            ptable_prefetch_pair(s->nodes, h);
        return;
    }
    const uint32_t nl = s->shape.left[p + 1];
    prefetch_pairs(s, vec, ref, lo, nl, stage, pos);
    prefetch_pairs(s, vec, ref, lo + nl, n - nl, stage, pos);
}

void treestore_prefetch_fold(const struct treestore *s, const uint32_t *vec, const uint32_t *ref_vec, int stage)
{
    if (s->words <= 2)
        return;
    uint32_t b1[TREE_SHAPE_MAX_WORDS], b2[TREE_SHAPE_MAX_WORDS], pos = 0;
    vec = leaves(s, vec, b1);
    ref_vec = leaves(s, ref_vec, b2);
    const uint32_t nl = s->shape.left[0];
    prefetch_pairs(s, vec, ref_vec, 0, nl, stage, &pos);
    prefetch_pairs(s, vec, ref_vec, nl, s->words - nl, stage, &pos);
}

void treestore_prefetch_root(const struct treestore *s, uint64_t hash) { ptable_prefetch(s->roots, hash); }

void treestore_prefetch_root_pair(const struct treestore *s, uint64_t hash)
{
    ptable_prefetch_pair(s->roots, hash);
}

/* ---- unfolding ---- */

/* Writes the words of leaves [lo, lo + n) that value v stands for; vals
 * (when not NULL) gets the values of the subtrees in preorder. */
static void unfold(const struct treestore *s, uint32_t v, uint32_t lo, uint32_t n, uint32_t *vec,
                   uint32_t *vals, uint32_t *pos)
{
    if (n == 1) {
        vec[s->shape.perm[lo]] = v;
        return;
    }
    const uint32_t p = (*pos)++;
    if (vals)
        vals[p] = v;
    const uint32_t nl = s->shape.left[p + 1];
    const uint32_t *pair = ptable_pair(s->nodes, v);
    unfold(s, pair[0], lo, nl, vec, vals, pos);
    unfold(s, pair[1], lo + nl, n - nl, vec, vals, pos);
}

void treestore_get_tree(const struct treestore *s, uint64_t id, uint32_t *vec, uint32_t *vals)
{
    const uint32_t *root = ptable_pair(s->roots, id);
    if (s->words <= 2) {
        memcpy(vec, root, s->words * 4u);
        return;
    }
    const uint32_t nl = s->shape.left[0];
    uint32_t pos = 0;
    unfold(s, root[0], 0, nl, vec, vals, &pos);
    unfold(s, root[1], nl, s->words - nl, vec, vals, &pos);
}

void treestore_get(const struct treestore *s, uint64_t id, uint32_t *vec)
{
    treestore_get_tree(s, id, vec, NULL);
}

/* ---- sizes ---- */

uint32_t treestore_words(const struct treestore *s) { return s->words; }
uint64_t treestore_count(const struct treestore *s) { return ptable_count(s->roots); }
uint64_t treestore_nodes(const struct treestore *s) { return s->nodes ? ptable_count(s->nodes) : 0; }

uint64_t treestore_root_slots(const struct treestore *s) { return ptable_slots(s->roots); }

uint64_t treestore_bytes(const struct treestore *s)
{
    return ptable_bytes(s->roots) + (s->nodes ? ptable_bytes(s->nodes) : 0);
}

/* ---- growth ---- */

void treestore_set_budget(struct treestore *s, uint64_t bytes, uint64_t extra)
{
    s->budget = bytes;
    s->extra = extra;
}

/* The most a table of `slots` 4-byte slots costs before it wants to grow
 * again: its slots and, at the maximum load, its entries' pairs plus
 * `extra` bytes each. */
static uint64_t worst_bytes(uint64_t slots, uint64_t extra)
{
    return slots * 4 + slots / PTABLE_MAX_LOAD_DEN * PTABLE_MAX_LOAD_NUM * (8 + extra);
}

static uint64_t grown(const struct ptable *t, bool grow)
{
    return grow ? ptable_next_slots(t) : ptable_slots(t);
}

/* Whether growing the roots / nodes (as asked) keeps the budget. */
static bool fits(const struct treestore *s, bool roots, bool nodes)
{
    if (!s->budget)
        return true;
    uint64_t b = worst_bytes(grown(s->roots, roots), s->extra);
    if (s->nodes)
        b += worst_bytes(grown(s->nodes, nodes), 0);
    return b <= s->budget;
}

/* Which tables to grow now: those that want to, within the budget (both
 * when both fit, else the one that fits, roots first). */
static void pick_growth(const struct treestore *s, bool *roots, bool *nodes)
{
    bool r = ptable_wants_grow(s->roots), n = s->nodes && ptable_wants_grow(s->nodes);
    if (r && n && fits(s, true, true)) {
        *roots = *nodes = true;
        return;
    }
    *roots = r && fits(s, true, false);
    *nodes = !*roots && n && fits(s, false, true);
}

bool treestore_wants_grow(const struct treestore *s)
{
    bool r, n;
    pick_growth(s, &r, &n);
    return r || n;
}

bool treestore_can_grow(const struct treestore *s) { return treestore_wants_grow(s); }

int treestore_grow_begin(struct treestore *s, struct wx_error *err)
{
    pick_growth(s, &s->grow_roots, &s->grow_nodes);
    s->work_nodes = s->grow_nodes ? ptable_count(s->nodes) : 0;
    int rc = WX_OK;
    if (s->grow_nodes)
        rc = ptable_grow_begin(s->nodes, err);
    if (!rc && s->grow_roots && (rc = ptable_grow_begin(s->roots, err)) && s->grow_nodes) {
        ptable_grow_part(s->nodes, 0, s->work_nodes); /* finish the begun one */
        ptable_grow_end(s->nodes);
    }
    if (rc)
        s->grow_nodes = s->grow_roots = false;
    return rc;
}

uint64_t treestore_grow_work(const struct treestore *s)
{
    return s->work_nodes + (s->grow_roots ? ptable_count(s->roots) : 0);
}

void treestore_grow_part(struct treestore *s, uint64_t begin, uint64_t end)
{
    const uint64_t k = s->work_nodes;
    if (begin < k)
        ptable_grow_part(s->nodes, begin, end < k ? end : k);
    if (end > k)
        ptable_grow_part(s->roots, (begin > k ? begin : k) - k, end - k);
}

void treestore_grow_end(struct treestore *s)
{
    if (s->grow_nodes)
        ptable_grow_end(s->nodes);
    if (s->grow_roots)
        ptable_grow_end(s->roots);
    s->grow_nodes = s->grow_roots = false;
    s->work_nodes = 0;
}

int treestore_full_error(const struct treestore *s, struct wx_error *err)
{
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                   "memory budget exhausted after %llu states (tree store: %llu nodes, %llu bytes); "
                   "raise it (--memory)",
                   (unsigned long long)treestore_count(s), (unsigned long long)treestore_nodes(s),
                   (unsigned long long)treestore_bytes(s));
}

int treestore_put(struct treestore *s, const uint32_t *vec, uint64_t *id, struct wx_error *err)
{
    enum vtable_outcome o;
    while ((o = treestore_insert(s, vec, NULL, id)) == VTABLE_FULL) {
        if (!treestore_can_grow(s))
            return treestore_full_error(s, err), -1;
        if (treestore_grow_begin(s, err))
            return -1;
        treestore_grow_part(s, 0, treestore_grow_work(s));
        treestore_grow_end(s);
    }
    return o == VTABLE_INSERTED;
}

/* ---- id blocks ---- */

void treestore_set_block(struct treestore *s, uint32_t ids_per_block) { ptable_set_block(s->roots, ids_per_block); }

int treestore_close_blocks(struct treestore *s, struct vtable_ids *ids, unsigned n,
                           void (*moved)(void *ctx, uint64_t from, uint64_t to), void *ctx,
                           struct wx_error *err)
{
    return ptable_close_blocks(s->roots, ids, n, moved, ctx, err);
}
