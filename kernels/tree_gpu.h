/*
 * tree_gpu.h -- the tree store's fold on the GPU (kernels/explore/tree.cu):
 * the building block of a tree-compressed GPU explorer, tested against the
 * CPU twin (hash/treestore.h) by tests/gpu/test_gpu_tree.c.  Not yet used
 * by the GPU explorer (docs/storage.md, "On the GPU", lists what that
 * needs).  The device side is kernels/explore/gpu_tree.cuh.
 *
 * Shape: the CPU twin's (hash/treeshape.h, treestore.h), so that a host
 * that picks a shape from a sample folds alike on both sides -- leaves
 * [lo, lo + n) of the shape's leaf order fold to the word itself when
 * n == 1, else to the node of the pair (fold of the node's left leaves,
 * fold of the rest); a vector of k >= 2 words is identified by its root
 * pair (the values of the root's two subtrees), kept in a table of its
 * own.  The device walks the shape's inner nodes in postorder
 * (tree_shape_postorder): no recursion, whatever the shape's depth.
 *
 * Tables: open addressing over 64-bit slots, a slot holding a pair as
 * left | right << 32, TREE_GPU_EMPTY (all ones) when free.  Unlike the CPU
 * twin's, an entry's index is its slot (fixed-size tables: no growth, no
 * store beside the slots), so a node costs 8 bytes over the load.  The pair
 * whose two values are all ones would read as EMPTY: it is never stored,
 * and the value TREE_GPU_ONES stands for it (so any subtree of all-ones
 * words folds to TREE_GPU_ONES; node tables have fewer than TREE_GPU_ONES
 * slots).  The all-ones vector's root is the index root_slots.
 *
 * Insert: one warp per vector (all 32 lanes on one pair at a time, bottom
 * up); a probe reads 32 consecutive slots, one per lane (a 256-byte
 * window), compares them all (__ballot_sync), and the lane of the first
 * empty slot claims it with one 64-bit atomicCAS(EMPTY -> pair).  A slot
 * changes only EMPTY -> pair, and an inserter claims only the first empty
 * slot of its probe order, every slot before it having been seen holding
 * another pair: so a pair is stored once (a second inserter of it meets the
 * first one's slot, either filled or as a lost CAS that returns the pair),
 * and no slot is ever seen half written (one 64-bit store).
 */
#ifndef WX_TREE_GPU_H
#define WX_TREE_GPU_H

#include <stdint.h>

#include "../hash/treeshape.h"
#include "../util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TREE_GPU_EMPTY 0xffffffffffffffffull
#define TREE_GPU_ONES 0xffffffffu

/* Host copies of the device tables after a fold, and its shape. */
struct tree_gpu_tables {
    struct tree_shape shape;
    uint64_t node_slots, root_slots; /* multiples of 32 */
    uint64_t *nodes, *roots;         /* malloc'ed; free with tree_gpu_tables_free */
};

/* 1 when a usable CUDA device exists (0 in builds without CUDA). */
int tree_gpu_available(void);

/* Folds the n vectors vecs (words 2 .. 64 words each) along shape (NULL:
 * the balanced one) into fresh device tables of at least node_slots and root_slots slots (rounded up to
 * multiples of 32; node_slots below TREE_GPU_ONES), all vectors at once
 * on many warps.  root[i]: the root index of vector i; fresh[i]: 1 for
 * exactly one vector of each distinct value (the one whose CAS claimed its
 * root).  out (not NULL) receives the tables.  WX_ELIMIT when a table
 * filled up (with *out and the outputs undefined), WX_EINPUT on bad
 * arguments, WX_ESYSTEM without a device. */
int tree_gpu_fold(const uint32_t *vecs, uint64_t n, uint32_t words, const struct tree_shape *shape,
                  uint64_t node_slots, uint64_t root_slots, uint64_t *root, uint8_t *fresh,
                  struct tree_gpu_tables *out, struct wx_error *err);

void tree_gpu_tables_free(struct tree_gpu_tables *t);

/* A store that lives across calls, as an explorer needs: device tables of
 * at least node_slots and root_slots slots (rounded as tree_gpu_fold's),
 * filled batch by batch. */
struct tree_gpu;

/* WX_EINPUT on bad arguments (shape NULL: balanced), WX_ELIMIT when the
 * device has not the memory, WX_ESYSTEM without a device. */
int tree_gpu_new(struct tree_gpu **out, uint32_t words, const struct tree_shape *shape, uint64_t node_slots,
                 uint64_t root_slots, struct wx_error *err);
void tree_gpu_free(struct tree_gpu *t);

/* Puts the n vectors vecs: root[i] their root indices, fresh[i] 1 for
 * exactly one vector of each value absent before the call.  The _dev form
 * takes device arrays, the other host ones.  WX_ELIMIT when a table filled
 * up (the message names it): the pairs put stay valid, the outputs of the
 * call are undefined. */
int tree_gpu_put(struct tree_gpu *t, const uint32_t *vecs, uint64_t n, uint64_t *root, uint8_t *fresh,
                 struct wx_error *err);
int tree_gpu_put_dev(struct tree_gpu *t, const uint32_t *d_vecs, uint64_t n, uint64_t *d_root, uint8_t *d_fresh,
                     struct wx_error *err);

/* Dense numbers of the roots stored so far, in slot order: the n root
 * indices root[i] become their ranks in [0, *count), *count the number of
 * distinct vectors stored (the all-ones vector's root, if stored, ranks
 * last).  Host arrays, or device ones with _dev.  No put may run at the
 * same time. */
int tree_gpu_ranks(struct tree_gpu *t, uint64_t *root, uint64_t n, uint64_t *count, struct wx_error *err);
int tree_gpu_ranks_dev(struct tree_gpu *t, uint64_t *d_root, uint64_t n, uint64_t *count, struct wx_error *err);

/* Device bytes of the tables; slots of the root table (the all-ones
 * vector's root index is this number). */
uint64_t tree_gpu_bytes(const struct tree_gpu *t);
uint64_t tree_gpu_root_slots(const struct tree_gpu *t);

/* The vectors of the n root indices d_root into d_vecs (n * words words),
 * device arrays. */
int tree_gpu_unfold_dev(const struct tree_gpu *t, const uint64_t *d_root, uint64_t n, uint32_t *d_vecs,
                        struct wx_error *err);

/* Every stored vector by id into the device array d_vecs (count * words
 * words, count the stored vectors): a root's id is its rank
 * (tree_gpu_ranks) with ranks 0 and r0 swapped, so the root of rank r0
 * comes first.  No put may run at the same time. */
int tree_gpu_unfold_ranked_dev(struct tree_gpu *t, uint64_t r0, uint32_t *d_vecs, uint64_t count,
                               struct wx_error *err);

/* Host copies of the tables (free with tree_gpu_tables_free). */
int tree_gpu_download(const struct tree_gpu *t, struct tree_gpu_tables *out, struct wx_error *err);

/* Unfolds the value v of leaves [lo, lo + cnt) of t's shape into vec
 * (words in their own places); *pos walks the shape's inner nodes in
 * preorder (the root is 0); vals (not NULL) gets the value of inner node p
 * at p - 1, as treestore_get_tree's. */
static inline void tree_gpu_unfold_value(const struct tree_gpu_tables *t, uint32_t v, uint32_t lo, uint32_t cnt,
                                         uint32_t *pos, uint32_t *vec, uint32_t *vals)
{
    if (cnt == 1) {
        vec[t->shape.perm[lo]] = v;
        return;
    }
    if (vals)
        vals[*pos - 1] = v;
    const uint32_t nl = t->shape.left[(*pos)++];
    uint32_t a = TREE_GPU_ONES, b = TREE_GPU_ONES;
    if (v != TREE_GPU_ONES) {
        a = (uint32_t)t->nodes[v];
        b = (uint32_t)(t->nodes[v] >> 32);
    }
    tree_gpu_unfold_value(t, a, lo, nl, pos, vec, vals);
    tree_gpu_unfold_value(t, b, lo + nl, cnt - nl, pos, vec, vals);
}

/* The vector of root index r, and (vals not NULL) the values of the inner
 * nodes below the root in preorder. */
static inline void tree_gpu_unfold_tree(const struct tree_gpu_tables *t, uint64_t r, uint32_t *vec, uint32_t *vals)
{
    const uint32_t words = t->shape.words, nl = t->shape.left[0];
    uint32_t a = TREE_GPU_ONES, b = TREE_GPU_ONES, pos = 1;
    if (r < t->root_slots) {
        a = (uint32_t)t->roots[r];
        b = (uint32_t)(t->roots[r] >> 32);
    }
    tree_gpu_unfold_value(t, a, 0, nl, &pos, vec, vals);
    tree_gpu_unfold_value(t, b, nl, words - nl, &pos, vec, vals);
}

/* The vector of root index r. */
static inline void tree_gpu_unfold(const struct tree_gpu_tables *t, uint64_t r, uint32_t *vec)
{
    tree_gpu_unfold_tree(t, r, vec, NULL);
}

#ifdef __cplusplus
}
#endif

#endif
