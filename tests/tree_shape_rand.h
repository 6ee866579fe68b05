/*
 * tree_shape_rand.h -- what the tree store's tests share: random tree
 * shapes (hash/treeshape.h; any leaf order, any splits; draws from
 * tests/rng.h) and the count of distinct keys.
 */
#ifndef WX_TESTS_TREE_SHAPE_RAND_H
#define WX_TESTS_TREE_SHAPE_RAND_H

#include <stdint.h>
#include <stdlib.h>

#include "../hash/treeshape.h"
#include "rng.h"

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct values among n keys (sorted in place). */
static inline uint64_t distinct_keys(uint64_t *k, uint64_t n)
{
    qsort(k, n, sizeof *k, cmp_u64);
    uint64_t d = n > 0;
    for (uint64_t i = 1; i < n; i++)
        d += k[i] != k[i - 1];
    return d;
}

/* Internal nodes of a random subtree of n leaves, from *pos on. */
static void random_splits(struct tree_shape *sh, uint32_t n, uint32_t *pos)
{
    if (n < 2)
        return;
    const uint32_t nl = 1 + (uint32_t)rnd_below(n - 1);
    sh->left[(*pos)++] = (uint8_t)nl;
    random_splits(sh, nl, pos);
    random_splits(sh, n - nl, pos);
}

/* A random shape of `words` words. */
static void random_shape(uint32_t words, struct tree_shape *sh)
{
    tree_shape_balanced(words, sh);
    for (uint32_t i = words; i > 1; i--) {
        const uint32_t j = (uint32_t)rnd_below(i);
        const uint8_t t = sh->perm[i - 1];
        sh->perm[i - 1] = sh->perm[j], sh->perm[j] = t;
    }
    uint32_t pos = 0;
    random_splits(sh, words, &pos);
}

#endif
