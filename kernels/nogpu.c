/*
 * nogpu.c -- the GPU entry points of a build made without nvcc.  The CLI's
 * `--backend auto` then runs the CPU backend; `--backend gpu` is an error.
 */
#include "../explorer/explore.h"
#include "explore_gpu.h"

int gpu_available(char *name, size_t size)
{
    if (size)
        name[0] = '\0';
    return 0;
}

int gpu_start(void)
{
    return 0;
}

int explore_gpu(const struct image *img, const struct explore_options *opt,
                struct explore_result *res, struct wx_error *err)
{
    (void)img, (void)opt, (void)res;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                   "this warpex was built without CUDA (nvcc was not found): --backend gpu is unavailable");
}

struct explore_gpu_fast *explore_gpu_fast_open(const struct image *img, int anchored, struct wx_error *err)
{
    (void)img, (void)anchored;
    wx_fail(err, WX_EINPUT, NULL, 0, 0, "this warpex was built without CUDA: no fast generator tables");
    return NULL;
}

void explore_gpu_fast_info(const struct explore_gpu_fast *x, uint64_t *bound, uint64_t *set_bound, int *always_dedup,
                           int *anchored)
{
    (void)x;
    *bound = *set_bound = 0, *always_dedup = 0, *anchored = 0;
}

int explore_gpu_fast_successors(const struct explore_gpu_fast *x, const uint32_t *vec, uint32_t *labels,
                                uint32_t *vecs, uint64_t cap, uint64_t *count, int *needs_set, struct wx_error *err)
{
    (void)x, (void)vec, (void)labels, (void)vecs, (void)cap;
    *count = 0, *needs_set = 1;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, "this warpex was built without CUDA: no fast generator tables");
}

void explore_gpu_fast_close(struct explore_gpu_fast *x)
{
    (void)x;
}
