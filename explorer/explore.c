/*
 * explore.c -- backend dispatch, results, and the pieces explore_seq and
 * explore_cpu share (explore_int.h).
 */
#include "explore_int.h"
#include "successors.h"
#include "../hash/treeshape.h"
#include "../hash/treestore.h"
#include "../hash/vecset.h"
#include "../util/config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One run on backend SEQ, CPU or GPU. */
static int explore_on(enum explore_backend backend, const struct image *img, const struct explore_options *opt,
                      struct explore_result *res, struct wx_error *err)
{
    return backend == EXPLORE_SEQ   ? explore_seq(img, opt, res, err)
           : backend == EXPLORE_GPU ? explore_gpu(img, opt, res, err)
                                    : explore_cpu(img, opt, res, err);
}

/* explore_on; store AUTO: flat, and the tree when the flat store fills up
 * (explore.h): a CPU run that has streamed no edge yet, a GPU run whose
 * table filled (it hands edges over only after a complete run). */
static int explore_store_auto(enum explore_backend backend, const struct image *img,
                              const struct explore_options *opt, struct explore_result *res, struct wx_error *err)
{
    int rc = explore_on(backend, img, opt, res, err);
    const bool full = backend == EXPLORE_GPU ? res->store_full : !opt || !opt->sink;
    if (rc != WX_ELIMIT || !full || !opt || opt->store != STORE_AUTO || img->words <= 2 || opt->por || !res->states)
        return rc;
    const uint64_t flat = res->states;
    struct explore_options tree = *opt;
    tree.store = STORE_TREE;
    explore_result_free(res);
    rc = explore_on(backend, img, &tree, res, err);
    res->flat_full = flat;
    return rc;
}

bool explore_por_visible(const struct image *img, const struct explore_options *opt)
{
    for (uint32_t l = 0; opt->action_match && l < img->n_labels; l++)
        if (opt->action_match[l])
            return true;
    return false;
}

int explore_run(enum explore_backend backend, const struct image *img,
                const struct explore_options *opt, struct explore_result *res,
                struct wx_error *err)
{
    /* The LTS explorers would explore the support graph of a probabilistic
     * network and count it as an LTS: never silently (explore_mdp.h). */
    if (img->probabilistic)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "probabilistic network: its product is an MDP, "
                       "built by explore_mdp (explorer/explore_mdp.h), not an LTS");
    if (opt && opt->por && opt->store == STORE_TREE)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "partial-order reduction with the tree store is not "
                       "supported yet: the reduction's proviso reads the flat table");
    if (opt && opt->por && backend == EXPLORE_AUTO && !GX_AUTO_POR)
        return explore_cpu(img, opt, res, err); /* the CPU's reduction (util/config.h GX_AUTO_POR) */
    const bool tree = opt && opt->store == STORE_TREE;
    switch (backend) {
    case EXPLORE_SEQ:
    case EXPLORE_CPU:
    case EXPLORE_GPU:
        return explore_store_auto(backend, img, opt, res, err);
    case EXPLORE_AUTO: {
        char name[128];
        if (!tree && gpu_available(name, sizeof name))
            return explore_store_auto(EXPLORE_GPU, img, opt, res, err);
        return explore_store_auto(EXPLORE_CPU, img, opt, res, err);
    }
    }
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown explorer backend %d", (int)backend);
}

void explore_result_free(struct explore_result *res)
{
    free(res->trace.labels);
    free(res->trace.states);
    free(res->trace.vectors);
    free(res->vectors);
    dgraph_free(&res->device_graph);
    res->trace = (struct trace){0};
    res->vectors = NULL;
}

uint64_t explore_default_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || size <= 0)
        return 1ull << 30; /* unknown: a modest 1 GiB */
    return (uint64_t)pages * (uint64_t)size / 2;
}

/* ---- shared helpers ---- */

const struct explore_options *explore_opts(const struct explore_options *opt)
{
    static const struct explore_options defaults;
    return opt ? opt : &defaults;
}

uint64_t explore_budget(const struct explore_options *opt)
{
    return opt->memory_bytes ? opt->memory_bytes : explore_default_memory();
}

uint64_t explore_extra_bytes(const struct explore_options *opt)
{
    return opt->trace ? sizeof(uint64_t) + sizeof(uint32_t) : 0;
}

void explore_result_init(struct explore_result *res, const char *backend)
{
    memset(res, 0, sizeof *res);
    res->backend = backend;
}

enum explore_store explore_store_pick(const struct explore_options *opt, const struct image *img)
{
    /* A vector of 1 or 2 words is its own root pair (treestore.h): the
     * tree would be the flat table without its keyed fast path. */
    return opt->store == STORE_TREE && img->words > 2 ? STORE_TREE : STORE_FLAT;
}

/* The first TREE_SHAPE_SAMPLE states in BFS order from the all-zero
 * vector, into q. */
static int sample_states(const struct image *img, struct succ_gen *g, struct vecset *q, struct wx_error *err)
{
    uint32_t buf[IMAGE_MAX_WORDS] = { 0 };
    uint64_t id;
    if (vecset_put(q, buf, &id, err) < 0)
        return WX_ELIMIT;
    for (uint64_t s = 0; s < q->count && q->count < TREE_SHAPE_SAMPLE; s++) {
        memcpy(buf, q->vec + s * img->words, img->words * sizeof *buf);
        int rc = succ_expand(g, buf, err);
        if (rc)
            return rc;
        for (size_t i = 0; i < g->n && q->count < TREE_SHAPE_SAMPLE; i++)
            if (vecset_put(q, succ_vector(g, i), &id, err) < 0)
                return WX_ELIMIT;
    }
    return WX_OK;
}

int explore_tree_sample(const struct image *img, struct tree_shape *sh, uint64_t *states, uint64_t *nodes,
                        struct wx_error *err)
{
    struct succ_gen g;
    struct vecset q;
    struct treestore *t = NULL;
    *states = *nodes = 0;
    int rc = succ_init(&g, img, err);
    if (rc)
        return rc;
    if (vecset_init(&q, img->words, TREE_SHAPE_SAMPLE, err)) {
        succ_free(&g);
        return WX_ELIMIT;
    }
    if (!(rc = sample_states(img, &g, &q, err)) && !(rc = tree_shape_pick(img->words, q.vec, q.count, sh, err)) &&
        !(rc = treestore_new(&t, img->words, q.count, q.count * img->words, err)) &&
        !(rc = treestore_set_shape(t, sh, err))) {
        for (uint64_t i = 0; i < q.count && !rc; i++) {
            uint64_t id;
            rc = treestore_put(t, q.vec + i * img->words, &id, err) < 0 ? WX_ELIMIT : WX_OK;
        }
        *states = q.count;
        *nodes = treestore_nodes(t);
    }
    treestore_free(t);
    vecset_free(&q);
    succ_free(&g);
    return rc;
}

int explore_tree_shape(const struct image *img, struct treestore *tree, struct wx_error *err)
{
    if (img->words <= 2)
        return WX_OK;
    struct tree_shape sh;
    uint64_t states, nodes;
    int rc = explore_tree_sample(img, &sh, &states, &nodes, err);
    return rc ? rc : treestore_set_shape(tree, &sh, err);
}

void explore_vector(const struct explore_vectors *v, uint64_t id, uint32_t *out)
{
    if (v->flat)
        memcpy(out, v->flat + id * v->words, (size_t)v->words * 4);
    else
        treestore_get(v->tree, id, out);
}

int explore_unfold_all(struct explore_result *res, const struct treestore *tree, uint64_t n,
                       struct wx_error *err)
{
    const uint32_t words = treestore_words(tree);
    res->vectors = malloc((n ? n : 1) * words * sizeof *res->vectors);
    if (!res->vectors)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory unfolding %llu states",
                       (unsigned long long)n);
    for (uint64_t id = 0; id < n; id++)
        treestore_get(tree, id, res->vectors + id * words);
    return WX_OK;
}

int explore_build_trace(struct explore_result *res, const struct explore_vectors *v,
                        const uint64_t *parent, const uint32_t *label, uint64_t state, int act,
                        uint32_t act_label, uint64_t act_target, struct wx_error *err)
{
    uint64_t len = act ? 1 : 0;
    for (uint64_t s = state; s != 0; s = parent[s])
        len++;
    if (len > UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "trace longer than 2^32 - 1 steps");
    struct trace *tr = &res->trace;
    tr->labels = malloc((len ? len : 1) * sizeof *tr->labels);
    tr->states = malloc((len + 1) * sizeof *tr->states);
    const uint32_t words = v->words;
    tr->vectors = malloc((len + 1) * words * sizeof *tr->vectors);
    if (!tr->labels || !tr->states || !tr->vectors) {
        free(tr->labels), free(tr->states), free(tr->vectors);
        *tr = (struct trace){0};
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory building a trace of %llu steps",
                       (unsigned long long)len);
    }
    tr->len = (uint32_t)len;
    uint64_t i = len;
    if (act) {
        tr->states[i] = act_target;
        tr->labels[i - 1] = act_label;
        i--;
    }
    for (uint64_t s = state;; s = parent[s]) {
        tr->states[i] = s;
        if (s == 0)
            break;
        tr->labels[i - 1] = label[s];
        i--;
    }
    for (uint64_t k = 0; k <= len; k++)
        explore_vector(v, tr->states[k], tr->vectors + k * words);
    return WX_OK;
}
