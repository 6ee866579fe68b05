/*
 * explore.c -- backend dispatch, results, and the pieces explore_seq and
 * explore_cpu share (explore_int.h).
 */
#include "explore_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int explore_run(enum explore_backend backend, const struct image *img,
                const struct explore_options *opt, struct explore_result *res,
                struct wx_error *err)
{
    /* The LTS explorers would explore the support graph of a probabilistic
     * network and count it as an LTS: never silently (explore_mdp.h). */
    if (img->probabilistic)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "probabilistic network: its product is an MDP, "
                       "built by explore_mdp (explorer/explore_mdp.h), not an LTS");
    if (opt && opt->por && backend != EXPLORE_SEQ && backend != EXPLORE_CPU) {
        if (backend == EXPLORE_GPU)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "partial-order reduction runs on the CPU backends "
                           "(seq, cpu), not on the GPU");
        return explore_cpu(img, opt, res, err);
    }
    switch (backend) {
    case EXPLORE_SEQ:
        return explore_seq(img, opt, res, err);
    case EXPLORE_CPU:
        return explore_cpu(img, opt, res, err);
    case EXPLORE_GPU:
        return explore_gpu(img, opt, res, err);
    case EXPLORE_AUTO: {
        char name[128];
        if (gpu_available(name, sizeof name))
            return explore_gpu(img, opt, res, err);
        return explore_cpu(img, opt, res, err);
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
    explore_device_csr_free(&res->device_graph);
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

int explore_build_trace(struct explore_result *res, const uint32_t *store, uint32_t words,
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
        memcpy(tr->vectors + k * words, store + tr->states[k] * words, (size_t)words * 4);
    return WX_OK;
}
