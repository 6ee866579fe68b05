/*
 * test_fast_gen.c -- the GPU explorer's fast generator (kernels/explore/gpu_expand.cuh)
 * run on the host through explore_gpu_fast_* (kernels/explore_gpu.h), so
 * that CI, which has nvcc but no GPU, checks its precompiled tables: for
 * every reachable state of random images (tests/gpu/gpu_ref.h, the GPU
 * tests' generator and reference; > 128 rules included) and of the example
 * networks, with the blocked-rule masks and with the anchored rule lists,
 *   - the records it yields, uniqued, are the reference's successors;
 *   - their number stays within the tables' successor bound (which sizes
 *     the per-state sets on the GPU: a low bound would overflow them), and,
 *     for a state that needs its set, within the set bound (which sizes
 *     the sets when no graph is recorded);
 *   - a state the tables prove free of duplicates (needs_set == 0) yields
 *     no record twice (else the GPU, which then skips the set, would count
 *     a transition twice).
 * A build without CUDA has no tables: the entry point must say so (and
 * nothing else is checked then).
 *
 *   test_fast_gen [--seed N] [--images N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu/gpu_ref.h"
#include "../kernels/explore_gpu.h"

/* Checks every reachable state (at most max_states) of img with one rule
 * search; returns 0 when the image does not allow the fast generator. */
static int check_image(const struct image *img, int anchored, const char *tag, uint64_t max_states)
{
    struct wx_error err;
    wx_error_clear(&err);
    struct explore_gpu_fast *x = explore_gpu_fast_open(img, anchored, &err);
    if (!x)
        return 0;
    uint64_t bound, set_bound;
    int always, anch;
    explore_gpu_fast_info(x, &bound, &set_bound, &always, &anch);
    struct ref_result ref;
    ref_explore(img, NULL, 0, max_states, &ref);
    const uint32_t W = img->words;
    uint64_t cap = 1024, states = 0, records = 0, most = 0, distinct_states = 0;
    uint32_t *labels = malloc(cap * 4), *vecs = malloc(cap * W * 4);
    char why[1024] = "";
    struct succs o = {0}, got = {.words = W};
    for (uint64_t s = 0; s < ref.set.n && !why[0]; s++) {
        const uint32_t *v = ref.set.vec + s * W;
        uint64_t k;
        int needs_set;
        if (explore_gpu_fast_successors(x, v, labels, vecs, cap, &k, &needs_set, &err) != WX_OK) {
            snprintf(why, sizeof why, "state %llu: %s", (unsigned long long)s, err.msg);
            break;
        }
        if (k > cap) { /* again with room for all */
            cap = k;
            labels = realloc(labels, cap * 4), vecs = realloc(vecs, cap * W * 4);
            explore_gpu_fast_successors(x, v, labels, vecs, cap, &k, &needs_set, &err);
        }
        states++, records += k;
        most = k > most ? k : most;
        distinct_states += !needs_set;
        if (k > bound) {
            snprintf(why, sizeof why, "state %llu: %llu records above the bound %llu", (unsigned long long)s,
                     (unsigned long long)k, (unsigned long long)bound);
            break;
        }
        /* the sets of plain exploration are sized by set_bound: a state
         * that needs one must stay within it */
        if (needs_set && k > set_bound) {
            snprintf(why, sizeof why, "state %llu: needs its successor set, %llu records above the set bound %llu",
                     (unsigned long long)s, (unsigned long long)k, (unsigned long long)set_bound);
            break;
        }
        got.n = 0;
        for (uint64_t i = 0; i < k; i++)
            sc_add(&got, labels[i], vecs + i * W);
        sc_sort_unique(&got);
        const uint64_t m = got.n;
        if (!needs_set && m != k) {
            snprintf(why, sizeof why, "state %llu: proven duplicate-free, but %llu of its %llu records repeat",
                     (unsigned long long)s, (unsigned long long)(k - m), (unsigned long long)k);
            break;
        }
        ref_succ(img, v, &o);
        if (o.n != m || (m && memcmp(o.rec, got.rec, m * (1 + W) * 4)))
            snprintf(why, sizeof why, "state %llu: %llu distinct records, the reference %u (or they differ)",
                     (unsigned long long)s, (unsigned long long)m, o.n);
    }
    check(!why[0] && states == ref.set.n && states > 0,
          "%s, %s: %llu states, %llu records (at most %llu a state, bound %llu), %llu proven duplicate-free%s%s%s",
          tag, anch ? "anchored rule lists" : "rule masks", (unsigned long long)states, (unsigned long long)records,
          (unsigned long long)most, (unsigned long long)bound, (unsigned long long)distinct_states,
          always ? " (the tables allow repeats everywhere)" : "", why[0] ? ": " : "", why);
    free(o.rec), free(got.rec);
    free(labels), free(vecs);
    ref_free(&ref);
    explore_gpu_fast_close(x);
    return 1;
}

static void both_searches(const struct image *img, const char *tag, uint64_t max_states)
{
    if (img->n_rules <= 128 && !check_image(img, 0, tag, max_states))
        return; /* not eligible */
    check_image(img, 1, tag, max_states);
}

static const struct {
    const char *name;
    struct gen_params gp;
} kinds[] = {
    {"small", {2, 6, 4, 0, 3, 4, 2, 2, 50, 5, 20, 0, 0, 0, 20000, 0}},
    {"nondet", {2, 5, 5, 0, 2, 3, 1, 6, 70, 10, 50, 0, 0, 0, 20000, 0}},
    {"many-comps", {8, 12, 3, 30, 4, 6, 1, 2, 40, 5, 20, 0, 0, 0, 50000, 0}},
    {"multi-word", {3, 8, 5, 0, 4, 4, 2, 3, 50, 5, 20, 20, 0, 0, 20000, 0}},
    {"many-rules", {4, 6, 4, 0, 4, 45, 1, 3, 40, 5, 20, 10, 0, 0, 50000, 0}},
    {"over-128-rules", {4, 6, 4, 0, 4, 120, 2, 2, 50, 5, 20, 0, 0, 0, 50000, 0}},
};

int main(int argc, char **argv)
{
    uint64_t seed = 20261127;
    uint32_t images = 60;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--images") && i + 1 < argc)
            images = (uint32_t)strtoul(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: %s [--seed N] [--images N]\n", argv[0]);
            return 2;
        }
    }
    /* a build without CUDA: the entry point reports it */
    {
        struct image img;
        struct rng r = {seed};
        img_random(&img, &r, &kinds[0].gp);
        struct wx_error err;
        wx_error_clear(&err);
        struct explore_gpu_fast *x = explore_gpu_fast_open(&img, 1, &err);
        if (x)
            check(1, "the fast generator's tables build on the host");
        else /* any other failure is one */
            check(strstr(err.msg, "without CUDA") != NULL,
                  "a build without CUDA has no fast generator tables, and says so (%s)", err.msg);
        explore_gpu_fast_close(x);
        image_free(&img);
        if (!x)
            return check_exit();
    }

    uint32_t done = 0;
    for (uint32_t i = 0; done < images && i < 20 * images; i++) {
        const uint64_t s = seed + i;
        struct rng r = {s};
        const uint32_t k = (uint32_t)(s % (sizeof kinds / sizeof kinds[0]));
        struct image img;
        img_random(&img, &r, &kinds[k].gp);
        if (img.words > 4 || img.n_comps > 64) {
            image_free(&img);
            continue;
        }
        char tag[160];
        snprintf(tag, sizeof tag, "random %s seed=%llu comps=%u words=%u rules=%u", kinds[k].name,
                 (unsigned long long)s, img.n_comps, img.words, img.n_rules);
        both_searches(&img, tag, 20000);
        image_free(&img);
        done++;
    }
    check(done == images, "%u of %u random images had at most 4 words and 64 components", done, images);

    /* example networks (their own leaves and rules: abp's channels offer every data value) */
    static const char *nets[] = {"examples/abp/abp_d16.exp",          "examples/philosophers/philosophers_n5.exp",
                                 "examples/leader/leader_4321.exp",   "examples/mutex/mutex_n3.exp",
                                 "examples/buffers/buffers_n5_d4.exp", "examples/traffic/traffic.exp"};
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        struct wx_error err;
        struct image img;
        if (ref_image_from_file(nets[i], &img, &err)) {
            check(0, "%s: front end: %s", nets[i], err.msg);
            continue;
        }
        both_searches(&img, nets[i], 200000);
        image_free(&img);
    }
    return check_exit();
}
