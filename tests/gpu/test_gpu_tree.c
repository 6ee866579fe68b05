/*
 * test_gpu_tree.c -- the tree store's fold on the GPU (kernels/tree_gpu.h)
 * against its CPU twin (hash/treestore.h).
 *
 *   test_gpu_tree [--quick] [--seed N] [--probe]
 *
 * Random vectors of 2 .. 64 words, with duplicates, shared sub-vectors and
 * all-ones words (the encoding's corner), folded on the GPU by many warps
 * at once: the number of fresh roots must equal the CPU twin's number of
 * distinct vectors, every root must unfold to its vector, and two vectors
 * must share a root exactly when they are equal.  Tiny tables must give
 * WX_ELIMIT.  Seeds are printed; --seed replays.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../hash/treestore.h"
#include "../../kernels/tree_gpu.h"
#include "../check.h"
#include "../rng.h"

static uint32_t *random_vectors(uint64_t n, uint32_t words)
{
    uint32_t *p = malloc(n * words * 4);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t *v = p + i * words;
        if (i > 0 && rnd_below(4) == 0) {
            memcpy(v, p + rnd_below(i) * words, words * 4);
            continue;
        }
        const int ones = rnd_below(50) == 0; /* an all-ones vector, now and then */
        for (uint32_t w = 0; w < words; w++)
            v[w] = ones || rnd_below(16) == 0 ? 0xffffffffu
                 : rnd_below(4) == 0         ? (uint32_t)rnd()
                                             : (uint32_t)rnd_below(3 + w % 4);
    }
    return p;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_fold(uint32_t words, uint64_t n)
{
    const unsigned long long seed = rng_state;
    uint32_t *vecs = random_vectors(n, words);
    uint64_t *root = malloc(n * sizeof *root), *cpu_id = malloc(n * sizeof *cpu_id);
    uint8_t *fresh = malloc(n);
    struct tree_gpu_tables t;
    struct wx_error e;
    int rc = tree_gpu_fold(vecs, n, words, 4 * n * words + 64, 2 * n + 64, root, fresh, &t, &e);
    if (!check(rc == WX_OK, "fold %u words, %llu vectors: rc %d %s", words, (unsigned long long)n, rc,
               rc ? e.msg : "")) {
        free(vecs), free(root), free(cpu_id), free(fresh);
        return;
    }
    /* The CPU twin: ids of the distinct vectors. */
    struct treestore *s;
    uint64_t ms, mn;
    treestore_plan(1ull << 30, words, 0, &ms, &mn);
    treestore_new(&s, words, ms, mn, &e);
    for (uint64_t i = 0; i < n; i++)
        treestore_put(s, vecs + i * words, &cpu_id[i], &e);
    const uint64_t distinct = treestore_count(s);
    uint64_t nfresh = 0, bad_unfold = 0, bad_map = 0;
    uint64_t *root_of = malloc(distinct * sizeof *root_of);
    for (uint64_t k = 0; k < distinct; k++)
        root_of[k] = UINT64_MAX;
    uint32_t buf[64];
    for (uint64_t i = 0; i < n; i++) {
        nfresh += fresh[i];
        tree_gpu_unfold(&t, words, root[i], buf);
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
    check(nfresh == distinct && bad_unfold == 0 && bad_map == 0 && dup_roots == 0,
          "fold %u words, %llu vectors: %llu fresh roots (CPU twin: %llu distinct), %llu wrong unfolds, "
          "%llu split vectors, %llu shared roots (seed %llu)",
          words, (unsigned long long)n, (unsigned long long)nfresh, (unsigned long long)distinct,
          (unsigned long long)bad_unfold, (unsigned long long)bad_map, (unsigned long long)dup_roots, seed);
    free(root_of);
    treestore_free(s);
    tree_gpu_tables_free(&t);
    free(vecs), free(root), free(cpu_id), free(fresh);
}

static void test_full(void)
{
    const uint64_t n = 5000;
    uint32_t *vecs = random_vectors(n, 6);
    uint64_t *root = malloc(n * sizeof *root);
    uint8_t *fresh = malloc(n);
    struct tree_gpu_tables t;
    struct wx_error e;
    int rc = tree_gpu_fold(vecs, n, 6, 64, 1u << 16, root, fresh, &t, &e);
    check(rc == WX_ELIMIT, "64 node slots for %llu vectors: WX_ELIMIT (rc %d: %s)", (unsigned long long)n, rc,
          e.msg);
    rc = tree_gpu_fold(vecs, n, 6, 1u << 16, 64, root, fresh, &t, &e);
    check(rc == WX_ELIMIT, "64 root slots for %llu vectors: WX_ELIMIT (rc %d: %s)", (unsigned long long)n, rc,
          e.msg);
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
        test_fold(widths[k], quick ? 2000 : widths[k] <= 8 ? 400000 : 60000);
    test_full();
    return check_exit();
}
