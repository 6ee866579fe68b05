/*
 * test_gpu_tree.c -- the tree store's fold on the GPU (kernels/tree_gpu.h)
 * against its CPU twin (hash/treestore.h).
 *
 *   test_gpu_tree [--quick] [--seed N] [--probe]
 *
 * Random vectors of 2 .. 64 words, with duplicates, shared sub-vectors and
 * all-ones words (the encoding's corner), folded on the GPU by many warps
 * at once along three shapes -- balanced, picked from a sample as the
 * explorers do (tree_shape_pick), and random -- with the CPU twin folding
 * along the same shape: the number of fresh roots must equal the CPU
 * twin's number of distinct vectors, every root must unfold to its
 * vector, two vectors must share a root exactly when they are equal, and
 * the inner nodes must stand for the CPU twin's (position, sub-vector)s:
 * as many distinct (position, value) below the roots on both sides, with
 * no more nodes stored than those.
 * The store that lives across calls (tree_gpu_new/put/ranks, as an
 * explorer uses it): vectors put in batches are fresh once over all
 * batches, keep their roots, and tree_gpu_ranks numbers the distinct ones
 * densely (0 .. distinct - 1, equal ranks exactly for equal vectors).
 * Tiny tables must give WX_ELIMIT, and a shape of other words WX_EINPUT.
 * Seeds are printed; --seed replays.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../hash/treeshape.h"
#include "../../hash/treestore.h"
#include "../../kernels/tree_gpu.h"
#include "../check.h"
#include "../rng.h"
#include "../tree_shape_rand.h"

static uint32_t *random_vectors(uint64_t n, uint32_t words, int ones_ok)
{
    uint32_t *p = malloc(n * words * 4);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t *v = p + i * words;
        if (i > 0 && rnd_below(4) == 0) {
            memcpy(v, p + rnd_below(i) * words, words * 4);
            continue;
        }
        const int ones = ones_ok && rnd_below(50) == 0; /* an all-ones vector, now and then */
        for (uint32_t w = 0; w < words; w++) {
            v[w] = ones || (ones_ok && rnd_below(16) == 0) ? 0xffffffffu
                 : rnd_below(4) == 0                        ? (uint32_t)rnd()
                                                            : (uint32_t)rnd_below(3 + w % 4);
            if (!ones_ok && v[w] == 0xffffffffu)
                v[w] = 0;
        }
    }
    return p;
}


enum { SHAPE_BALANCED, SHAPE_PICKED, SHAPE_RANDOM };
static const char *const shape_names[] = { "balanced", "picked", "random" };


/* Occupied slots of a host table. */
static uint64_t used_slots(const uint64_t *tab, uint64_t slots)
{
    uint64_t k = 0;
    for (uint64_t i = 0; i < slots; i++)
        k += tab[i] != TREE_GPU_EMPTY;
    return k;
}

/* The CPU twin along sh: ids of the vectors (cpu_id), distinct vectors,
 * distinct (position, value) of the inner nodes below the roots. */
static void cpu_twin(const uint32_t *vecs, uint64_t n, uint32_t words, const struct tree_shape *sh,
                     uint64_t *cpu_id, uint64_t *distinct, uint64_t *positions)
{
    struct treestore *s;
    struct wx_error e;
    uint64_t ms, mn;
    treestore_plan(1ull << 30, words, 0, &ms, &mn);
    treestore_new(&s, words, ms, mn, &e);
    check(treestore_set_shape(s, sh, &e) == WX_OK, "CPU twin takes the %u-word shape", words);
    for (uint64_t i = 0; i < n; i++)
        treestore_put(s, vecs + i * words, &cpu_id[i], &e);
    *distinct = treestore_count(s);
    const uint64_t per = words > 2 ? words - 2 : 0;
    uint64_t *k = malloc((*distinct * per + 1) * sizeof *k);
    uint32_t vec[TREE_SHAPE_MAX_WORDS], vals[TREE_SHAPE_MAX_WORDS];
    for (uint64_t id = 0; id < *distinct; id++) {
        treestore_get_tree(s, id, vec, vals);
        for (uint64_t p = 0; p < per; p++)
            k[id * per + p] = p << 32 | vals[p];
    }
    *positions = distinct_keys(k, *distinct * per);
    free(k);
    treestore_free(s);
}

static void test_fold(uint32_t words, uint64_t n, int kind, int ones_ok)
{
    const unsigned long long seed = rng_state;
    uint32_t *vecs = random_vectors(n, words, ones_ok);
    uint64_t *root = malloc(n * sizeof *root), *cpu_id = malloc(n * sizeof *cpu_id);
    uint8_t *fresh = malloc(n);
    struct tree_gpu_tables t;
    struct tree_shape sh;
    struct wx_error e;
    tree_shape_balanced(words, &sh);
    if (kind == SHAPE_PICKED)
        check(tree_shape_pick(words, vecs, n < 4096 ? n : 4096, &sh, &e) == WX_OK, "pick a %u-word shape", words);
    else if (kind == SHAPE_RANDOM)
        random_shape(words, &sh);
    int rc = tree_gpu_fold(vecs, n, words, kind == SHAPE_BALANCED ? NULL : &sh, 4 * n * words + 64, 2 * n + 64,
                           root, fresh, &t, &e);
    if (!check(rc == WX_OK, "fold %u words, %llu vectors, %s shape: rc %d %s", words, (unsigned long long)n,
               shape_names[kind], rc, rc ? e.msg : "")) {
        free(vecs), free(root), free(cpu_id), free(fresh);
        return;
    }
    uint64_t distinct, cpu_pos;
    cpu_twin(vecs, n, words, &sh, cpu_id, &distinct, &cpu_pos);
    const uint64_t per = words > 2 ? words - 2 : 0;
    uint64_t *keys = malloc((n * per + 1) * sizeof *keys);
    uint64_t nfresh = 0, bad_unfold = 0, bad_map = 0;
    uint64_t *root_of = malloc(distinct * sizeof *root_of);
    for (uint64_t k = 0; k < distinct; k++)
        root_of[k] = UINT64_MAX;
    uint32_t buf[64], vals[64];
    for (uint64_t i = 0; i < n; i++) {
        nfresh += fresh[i];
        tree_gpu_unfold_tree(&t, root[i], buf, vals);
        for (uint64_t p = 0; p < per; p++)
            keys[i * per + p] = p << 32 | vals[p];
        bad_unfold += memcmp(buf, vecs + i * words, words * 4) != 0;
        /* equal vectors <=> equal roots: the CPU id -> GPU root map is a
         * function, and (counted below) injective */
        if (root_of[cpu_id[i]] == UINT64_MAX)
            root_of[cpu_id[i]] = root[i];
        bad_map += root_of[cpu_id[i]] != root[i];
    }
    uint64_t dup_roots = 0;
    qsort(root_of, distinct, sizeof *root_of, cmp_u64);
    for (uint64_t k = 1; k < distinct; k++)
        dup_roots += root_of[k] == root_of[k - 1];
    const uint64_t gpu_nodes = used_slots(t.nodes, t.node_slots);
    const uint64_t pos = distinct_keys(keys, n * per);
    const int nodes_ok = pos == cpu_pos && gpu_nodes <= pos;
    check(nfresh == distinct && bad_unfold == 0 && bad_map == 0 && dup_roots == 0 && nodes_ok,
          "fold %u words, %llu vectors, %s shape%s: %llu fresh roots (CPU twin: %llu distinct), %llu wrong "
          "unfolds, %llu split vectors, %llu shared roots, %llu nodes for %llu positional values (CPU twin: %llu) "
          "(seed %llu)",
          words, (unsigned long long)n, shape_names[kind], ones_ok ? "" : ", no all-ones word",
          (unsigned long long)nfresh, (unsigned long long)distinct, (unsigned long long)bad_unfold,
          (unsigned long long)bad_map, (unsigned long long)dup_roots, (unsigned long long)gpu_nodes,
          (unsigned long long)pos, (unsigned long long)cpu_pos, seed);
    free(root_of);
    free(keys);
    tree_gpu_tables_free(&t);
    free(vecs), free(root), free(cpu_id), free(fresh);
}

/* Batches into one store, then dense ranks. */
static void test_batches(uint32_t words, uint64_t n, int nbatch)
{
    const unsigned long long seed = rng_state;
    uint32_t *vecs = random_vectors(n, words, words % 2);
    uint64_t *root = malloc(n * sizeof *root), *rank = malloc(n * sizeof *rank), *cpu_id = malloc(n * sizeof *cpu_id);
    uint8_t *fresh = malloc(n);
    struct tree_shape sh;
    struct wx_error e;
    struct tree_gpu *t;
    check(tree_shape_pick(words, vecs, n < 4096 ? n : 4096, &sh, &e) == WX_OK, "pick a %u-word shape", words);
    int rc = tree_gpu_new(&t, words, &sh, 4 * n * words + 64, 2 * n + 64, &e);
    for (int b = 0; rc == WX_OK && b < nbatch; b++) {
        const uint64_t lo = n * b / nbatch, hi = n * (b + 1) / nbatch;
        rc = tree_gpu_put(t, vecs + lo * words, hi - lo, root + lo, fresh + lo, &e);
    }
    uint64_t count = 0;
    memcpy(rank, root, n * sizeof *rank);
    if (rc == WX_OK)
        rc = tree_gpu_ranks(t, rank, n, &count, &e);
    if (!check(rc == WX_OK, "%d batches of %u-word vectors: rc %d %s", nbatch, words, rc, rc ? e.msg : "")) {
        tree_gpu_free(t);
        free(vecs), free(root), free(rank), free(cpu_id), free(fresh);
        return;
    }
    uint64_t distinct, cpu_pos, nfresh = 0, bad_map = 0, out_of_range = 0, hit = 0;
    cpu_twin(vecs, n, words, &sh, cpu_id, &distinct, &cpu_pos);
    uint64_t *rank_of = malloc(distinct * sizeof *rank_of);
    uint8_t *seen = calloc(distinct ? distinct : 1, 1);
    for (uint64_t k = 0; k < distinct; k++)
        rank_of[k] = UINT64_MAX;
    for (uint64_t i = 0; i < n; i++) {
        nfresh += fresh[i];
        if (rank_of[cpu_id[i]] == UINT64_MAX)
            rank_of[cpu_id[i]] = rank[i];
        bad_map += rank_of[cpu_id[i]] != rank[i];
        if (rank[i] >= distinct) {
            out_of_range++;
            continue;
        }
        hit += !seen[rank[i]];
        seen[rank[i]] = 1;
    }
    check(nfresh == distinct && count == distinct && bad_map == 0 && out_of_range == 0 && hit == distinct,
          "%d batches of %llu %u-word vectors: %llu fresh, %llu ranked (CPU twin: %llu distinct), %llu split "
          "vectors, %llu ranks out of range, %llu ranks used (seed %llu)",
          nbatch, (unsigned long long)n, words, (unsigned long long)nfresh, (unsigned long long)count,
          (unsigned long long)distinct, (unsigned long long)bad_map, (unsigned long long)out_of_range,
          (unsigned long long)hit, seed);
    tree_gpu_free(t);
    free(rank_of), free(seen);
    free(vecs), free(root), free(rank), free(cpu_id), free(fresh);
}

static void test_full(void)
{
    const uint64_t n = 5000;
    uint32_t *vecs = random_vectors(n, 6, 1);
    uint64_t *root = malloc(n * sizeof *root);
    uint8_t *fresh = malloc(n);
    struct tree_gpu_tables t;
    struct wx_error e;
    int rc = tree_gpu_fold(vecs, n, 6, NULL, 64, 1u << 16, root, fresh, &t, &e);
    check(rc == WX_ELIMIT, "64 node slots for %llu vectors: WX_ELIMIT (rc %d: %s)", (unsigned long long)n, rc,
          e.msg);
    rc = tree_gpu_fold(vecs, n, 6, NULL, 1u << 16, 64, root, fresh, &t, &e);
    check(rc == WX_ELIMIT, "64 root slots for %llu vectors: WX_ELIMIT (rc %d: %s)", (unsigned long long)n, rc,
          e.msg);
    struct tree_shape sh;
    tree_shape_balanced(5, &sh);
    rc = tree_gpu_fold(vecs, n, 6, &sh, 1u << 16, 1u << 16, root, fresh, &t, &e);
    check(rc == WX_EINPUT, "a 5-word shape for 6-word vectors: WX_EINPUT (rc %d: %s)", rc, e.msg);
    free(vecs), free(root), free(fresh);
}

int main(int argc, char **argv)
{
    int quick = 0;
    unsigned long long seed = (unsigned long long)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--probe"))
            return tree_gpu_available() ? 0 : 1;
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
    }
    if (!tree_gpu_available()) {
        printf("SKIP test_gpu_tree: no usable GPU\n");
        return 0;
    }
    rng_state = seed ? seed : 1;
    printf("seed %llu\n", seed);
    static const uint32_t widths[] = { 2, 3, 4, 5, 8, 13, 32, 33, 64 };
    for (size_t k = 0; k < sizeof widths / sizeof *widths; k++)
        for (int kind = SHAPE_BALANCED; kind <= SHAPE_RANDOM; kind++)
            for (int ones_ok = 1; ones_ok >= 0; ones_ok--)
                test_fold(widths[k], quick ? 2000 : widths[k] <= 8 ? 200000 : 30000, kind, ones_ok);
    static const uint32_t bw[] = { 2, 3, 7, 33 };
    for (size_t k = 0; k < sizeof bw / sizeof *bw; k++)
        test_batches(bw[k], quick ? 3000 : 100000, 1 + (int)k * 3);
    test_full();
    return check_exit();
}
