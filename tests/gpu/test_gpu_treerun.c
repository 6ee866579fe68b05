/*
 * test_gpu_treerun.c -- the GPU explorer on the tree store (--store tree,
 * kernels/explore/tree_run.cu) against the plain reference explorer of
 * gpu_ref.h, on random images of 3 or more words (seed printed): states,
 * transitions, deadlocks and depth; every kept vector a reachable state,
 * none twice, the initial state at id 0; --deadlock / --action verdicts
 * and shortest trace lengths, each trace step a transition of the image;
 * every generator (general with random group sizes, fast, fast anchored);
 * tiny tables and tiny queues stop with WX_ELIMIT and partial counts;
 * the recorded edges (an edge sink, the device graph): as many as the
 * reference's transitions, none twice, each a step of the image between
 * the kept vectors of its ids.
 *
 *   test_gpu_treerun [--seed N] [--quick] [--probe]
 */
#define NO_FRONTEND
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../explorer/explore.h"
#include "../../graph/dgraph.h"
#include "../../kernels/explore_gpu.h"
#include "../check.h"
#include "gpu_ref.h"

static int quick;

static const struct gen_params GP_WORDS = {3, 8, 5, 0, 4, 4, 2, 3, 50, 5, 20, 20, 0, 0, 20000, 0};
static const struct gen_params GP_WIDE = {3, 6, 4, 40, 3, 3, 2, 2, 50, 5, 20, 0, 1, 0, 20000, 0};
static const struct gen_params GP_MEDIUM = {4, 7, 8, 0, 4, 5, 2, 3, 40, 3, 20, 2, 0, 0, 200000, 1};
static const struct gen_params GP_FULL2 = {2, 5, 4, 0, 3, 3, 2, 2, 50, 5, 20, 0, 0, 2, 20000, 0};

static void tuning_default(struct gpu_tuning *t)
{
    memset(t, 0, sizeof *t);
    t->level_sync = -1;
    t->occupancy2 = -1;
}

/* Whether v is a successor of u with label lab (the reference's). */
static int is_step(const struct image *img, const uint32_t *u, uint32_t lab, const uint32_t *v)
{
    struct succs o;
    memset(&o, 0, sizeof o);
    ref_succ(img, u, &o);
    int ok = 0;
    for (uint64_t i = 0; i < o.n && !ok; i++)
        ok = o.rec[i * (img->words + 1)] == lab && !memcmp(o.rec + i * (img->words + 1) + 1, v, img->words * 4);
    free(o.rec);
    return ok;
}

static void check_trace(const char *tag, const struct image *img, const struct explore_result *res, uint32_t want_len)
{
    const struct trace *tr = &res->trace;
    const uint32_t W = img->words;
    int ok = tr->len == want_len && tr->states[0] == 0;
    for (uint32_t q = 0; q < W && ok; q++)
        ok = tr->vectors[q] == 0;
    for (uint32_t i = 0; i < tr->len && ok; i++)
        ok = is_step(img, tr->vectors + (size_t)i * W, tr->labels[i], tr->vectors + (size_t)(i + 1) * W);
    check(ok, "%s: trace of %u steps (want %u), a path of the image from the initial state", tag, tr->len, want_len);
}

/* The edges an edge sink receives (one run at a time; the tree run emits
 * from one thread). */
struct edges {
    struct ref_edge *e;
    size_t n, cap;
};

static int collect(void *ctx, const struct product_edge *e, size_t n, struct wx_error *err)
{
    struct edges *x = (struct edges *)ctx;
    if (x->n + n > x->cap) {
        size_t cap = x->cap ? x->cap : 1024;
        while (cap < x->n + n)
            cap *= 2;
        struct ref_edge *p = (struct ref_edge *)realloc(x->e, cap * sizeof *p);
        if (!p)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory collecting edges");
        x->e = p, x->cap = cap;
    }
    for (size_t i = 0; i < n; i++)
        x->e[x->n++] = (struct ref_edge){e[i].src, e[i].dst, e[i].label};
    return WX_OK;
}

/* n edges (ids) of a run with kept vectors: the reference's count, none
 * twice, each a step of the image.  Sorts e. */
static void check_edges(const char *tag, const struct image *img, const struct explore_result *res,
                        const struct ref_result *ref, struct ref_edge *e, uint64_t n)
{
    const uint32_t W = img->words;
    CHECK_EQ_U64(n, ref->transitions, "%s: edges recorded", tag);
    qsort(e, n, sizeof *e, edge_cmp);
    int ok = 1;
    for (uint64_t i = 0; i < n && ok; i++)
        ok = e[i].src < res->states && e[i].dst < res->states && (i == 0 || edge_cmp(&e[i - 1], &e[i]) != 0) &&
             is_step(img, res->vectors + e[i].src * W, e[i].label, res->vectors + e[i].dst * W);
    check(ok, "%s: %llu edges, distinct, each a step of the image between kept vectors", tag, (unsigned long long)n);
}

/* The edges of a complete tree run, through a sink and as the device
 * graph, against the reference. */
static void run_edges(const char *tag, const struct image *img, const struct ref_result *ref,
                      const struct gpu_tuning *tun)
{
    for (int dev = 0; dev < 2; dev++) {
        struct explore_options opt;
        struct explore_result res;
        struct wx_error err;
        struct edges x = {NULL, 0, 0};
        struct edge_sink sink = {collect, &x};
        memset(&opt, 0, sizeof opt);
        opt.store = STORE_TREE;
        opt.keep_vectors = true;
        if (dev)
            opt.keep_device_graph = true;
        else
            opt.sink = &sink;
        if (quick)
            opt.gpu.blocks = 8;
        wx_error_clear(&err);
        char t2[300];
        snprintf(t2, sizeof t2, "%s gen=%d %s", tag, tun->generator, dev ? "device graph" : "edge sink");
        const int rc = explore_gpu_tuned(img, &opt, tun, &res, NULL, &err);
        if (check(rc == WX_OK && res.complete && res.states == ref->states && res.vectors, "%s: rc %d (%s)", t2, rc,
                  err.msg)) {
            if (!dev) {
                check_edges(t2, img, &res, ref, x.e, x.n);
            } else {
                const struct dgraph *dg = &res.device_graph;
                const uint64_t m = dg->n_edges;
                uint64_t *off = (uint64_t *)malloc((dg->n_vertices + 1) * 8);
                uint32_t *tg = (uint32_t *)malloc((m ? m : 1) * 4), *lb = (uint32_t *)malloc((m ? m : 1) * 4);
                struct ref_edge *e = (struct ref_edge *)malloc((m ? m : 1) * sizeof *e);
                if (check(dg->n_vertices == res.states && off && tg && lb && e &&
                              dgraph_download(dg, off, tg, lb, &err) == WX_OK,
                          "%s: %llu vertices, download (%s)", t2, (unsigned long long)dg->n_vertices, err.msg)) {
                    int ok = off[0] == 0 && off[dg->n_vertices] == m;
                    for (uint64_t v = 0; v < dg->n_vertices && ok; v++) {
                        ok = off[v] <= off[v + 1];
                        for (uint64_t k = off[v]; k < off[v + 1] && ok; k++)
                            e[k] = (struct ref_edge){v, tg[k], lb[k]};
                    }
                    if (check(ok, "%s: CSR offsets", t2))
                        check_edges(t2, img, &res, ref, e, m);
                }
                free(off), free(tg), free(lb), free(e);
            }
        }
        free(x.e);
        explore_result_free(&res);
    }
}

/* One run: counts (and vectors) against the reference, or the violation. */
static void run_tree(const char *tag, const struct image *img, const struct ref_result *ref, const uint8_t *act,
                     int dead, int action, const struct gpu_tuning *tun)
{
    struct explore_options opt;
    struct explore_result res;
    struct wx_error err;
    memset(&opt, 0, sizeof opt);
    opt.store = STORE_TREE;
    opt.keep_vectors = !dead && !action;
    opt.trace = dead || action;
    opt.stop_on_deadlock = dead;
    opt.action_match = action ? act : NULL;
    if (quick)
        opt.gpu.blocks = 8;
    wx_error_clear(&err);
    int rc = explore_gpu_tuned(img, &opt, tun, &res, NULL, &err);
    char t2[300];
    snprintf(t2, sizeof t2, "%s gen=%d G=%u%s%s", tag, tun->generator, tun->group_size, dead ? " dead" : "",
             action ? " action" : "");
    if (!check(rc == WX_OK, "%s: rc %d (%s)", t2, rc, err.msg)) {
        explore_result_free(&res);
        return;
    }
    check(res.store && !strcmp(res.store, "tree"), "%s: store %s", t2, res.store ? res.store : "(null)");
    const uint32_t d = dead ? ref->min_dead_level : UINT32_MAX, a = action ? ref->min_act_level : UINT32_MAX;
    if (d != UINT32_MAX && d <= a) {
        check(res.violation == VIOLATION_DEADLOCK, "%s: deadlock found (%d)", t2, (int)res.violation);
        if (res.violation == VIOLATION_DEADLOCK)
            check_trace(t2, img, &res, d);
    } else if (a != UINT32_MAX) {
        check(res.violation == VIOLATION_ACTION, "%s: action found (%d)", t2, (int)res.violation);
        if (res.violation == VIOLATION_ACTION) {
            check_trace(t2, img, &res, a + 1);
            check(res.trace.len > 0 && act[res.trace.labels[res.trace.len - 1]], "%s: the last label is flagged", t2);
        }
    } else {
        check(res.violation == VIOLATION_NONE && res.complete, "%s: no violation, complete", t2);
        CHECK_EQ_U64(res.states, ref->states, "%s: states", t2);
        CHECK_EQ_U64(res.transitions, ref->transitions, "%s: transitions", t2);
        CHECK_EQ_U64(res.deadlocks, ref->deadlocks, "%s: deadlocks", t2);
        CHECK_EQ_U64(res.depth, ref->depth, "%s: depth", t2);
        if (opt.keep_vectors && res.vectors && res.states == ref->states) {
            const uint32_t W = img->words;
            uint8_t *seen = (uint8_t *)calloc(ref->states ? ref->states : 1, 1);
            int ok = 1;
            for (uint32_t q = 0; q < W && ok; q++)
                ok = res.vectors[q] == 0;
            for (uint64_t i = 0; i < res.states && ok; i++) {
                const uint64_t id = vs_find(&ref->set, res.vectors + i * W);
                ok = id != UINT64_MAX && !seen[id];
                if (ok)
                    seen[id] = 1;
            }
            check(ok, "%s: kept vectors are the reachable states, each once, initial first", t2);
            free(seen);
        }
    }
    explore_result_free(&res);
}

/* Tiny tables and tiny queues: WX_ELIMIT with the counts reached. */
static void run_limits(const char *tag, const struct image *img, const struct ref_result *ref)
{
    if (ref->states < 200)
        return;
    for (int k = 0; k < 2; k++) {
        struct explore_options opt;
        struct explore_result res;
        struct wx_error err;
        struct gpu_tuning tun;
        tuning_default(&tun);
        memset(&opt, 0, sizeof opt);
        opt.store = STORE_TREE;
        if (k == 0)
            opt.gpu.hash_bytes = 2048; /* 32 root slots at least, a few windows */
        else
            tun.queue_cap = 3;
        wx_error_clear(&err);
        const int rc = explore_gpu_tuned(img, &opt, &tun, &res, NULL, &err);
        check(rc == WX_ELIMIT && !res.complete && res.states > 0 && res.states < ref->states,
              "%s: %s: WX_ELIMIT with partial counts (rc %d, %llu of %llu states: %s)", tag,
              k ? "queue of 3" : "2 KiB of tables", rc, (unsigned long long)res.states,
              (unsigned long long)ref->states, err.msg);
        explore_result_free(&res);
    }
}

static void random_images(uint64_t seed, uint32_t count)
{
    const struct gen_params *kinds[] = {&GP_WORDS, &GP_WIDE, &GP_MEDIUM, &GP_FULL2};
    const char *names[] = {"multi-word", "wide", "medium", "bit31-used"};
    uint32_t done = 0;
    for (uint64_t s = seed; done < count && s < seed + 50ull * count; s++) {
        struct rng r = {s};
        const uint32_t k = rndu(&r, 4);
        struct image img;
        img_random(&img, &r, kinds[k]);
        if (img.words < 3) {
            image_free(&img);
            continue;
        }
        uint8_t *act = (uint8_t *)calloc(img.n_labels, 1);
        act[rndu(&r, img.n_labels)] = 1;
        struct ref_result ref;
        ref_explore(&img, act, 0, 400000, &ref);
        if (!ref.too_big) {
            char tag[160];
            snprintf(tag, sizeof tag, "random %s seed=%llu comps=%u words=%u", names[k], (unsigned long long)s,
                     img.n_comps, img.words);
            for (int gen = 1; gen <= 3; gen++) {
                struct gpu_tuning tun;
                tuning_default(&tun);
                tun.generator = gen == 1 ? 2 : gen == 2 ? 1 : 3;
                if (tun.generator == 2)
                    tun.group_size = 1u << rndu(&r, 6);
                run_tree(tag, &img, &ref, act, 0, 0, &tun);
                run_tree(tag, &img, &ref, act, 1, rndu(&r, 2), &tun);
                run_tree(tag, &img, &ref, act, 0, 1, &tun);
                if (gen == 1 || !quick)
                    run_edges(tag, &img, &ref, &tun);
            }
            run_limits(tag, &img, &ref);
            done++;
        }
        ref_free(&ref);
        image_free(&img);
        free(act);
    }
    check(done == count, "%u random images of 3 or more words (wanted %u)", done, count);
}

int main(int argc, char **argv)
{
    unsigned long long seed = (unsigned long long)time(NULL);
    char name[128];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--probe"))
            return gpu_available(name, sizeof name) ? 0 : 1;
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
    }
    if (!gpu_available(name, sizeof name)) {
        printf("SKIP test_gpu_treerun: no usable GPU\n");
        return 0;
    }
    printf("seed %llu\n", seed);
    random_images(seed, quick ? 3 : 25);
    return check_exit();
}
