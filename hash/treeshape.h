/*
 * treeshape.h -- the shape of the tree a tree store (hash/treestore.h)
 * folds its vectors into, and its choice from a sample of vectors.
 *
 * A shape is a binary tree whose leaves are the k words of a vector, in
 * the order perm (leaf position i holds word perm[i]), so that every
 * subtree covers a contiguous range of positions; left[j] is the number of
 * leaves of the left subtree of the j-th internal node in preorder
 * (left[0]: the root).  The balanced shape (perm the identity, left half
 * ceil(n / 2) everywhere) is the default.
 *
 * A node costs a table entry for every distinct value of the words below
 * it, so a good shape groups the words whose values are correlated (taken
 * together they have few distinct values) low in the tree and keeps a word
 * that varies on its own next to the root.  tree_shape_pick chooses one
 * greedily from a sample: starting from the k words as k subtrees, it
 * joins the two subtrees whose joint values are the fewest in the sample
 * (ties: the fewer leaves, then the lower words), until one tree remains.
 */
#ifndef WX_TREESHAPE_H
#define WX_TREESHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/error.h"

#ifdef __cplusplus
extern "C" { /* the GPU tree store (kernels/explore/tree.cu) calls these */
#endif

#define TREE_SHAPE_MAX_WORDS 64

struct tree_shape {
    uint32_t words;
    uint8_t perm[TREE_SHAPE_MAX_WORDS]; /* leaf position -> word */
    uint8_t left[TREE_SHAPE_MAX_WORDS]; /* internal nodes in preorder: leaves on the left */
};

/* The balanced shape of words (1 .. TREE_SHAPE_MAX_WORDS) words. */
void tree_shape_balanced(uint32_t words, struct tree_shape *sh);

/* The greedy shape for the n vectors of `sample` (n * words words; n == 0
 * gives the balanced shape).  WX_ELIMIT when out of memory. */
int tree_shape_pick(uint32_t words, const uint32_t *sample, size_t n, struct tree_shape *sh,
                    struct wx_error *err);

/* True when sh is a shape of its words: perm a permutation, every left
 * count between 1 and its node's leaves - 1. */
bool tree_shape_valid(const struct tree_shape *sh);

/* A shape's inner nodes in postorder, each given by its two operands, so
 * that a fold needs no recursion (the GPU fold, kernels/tree_gpu.h): an
 * operand below TREE_SHAPE_NODE is a word of the vector (the leaf's word,
 * perm applied), TREE_SHAPE_NODE + k the value of the k-th inner node of
 * this order.  Children come before their parent; the last inner node
 * (inner - 1) is the root.  words >= 2. */
#define TREE_SHAPE_NODE 0x80u
struct tree_shape_order {
    uint32_t inner;                      /* words - 1 */
    uint8_t a[TREE_SHAPE_MAX_WORDS - 1]; /* left operands */
    uint8_t b[TREE_SHAPE_MAX_WORDS - 1]; /* right operands */
};

void tree_shape_postorder(const struct tree_shape *sh, struct tree_shape_order *o);

#ifdef __cplusplus
}
#endif

#endif
