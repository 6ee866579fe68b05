/*
 * nogpu_explore_mdp.c -- the GPU MDP explorer's entry points in a build
 * made without nvcc (instead of kernels/explore_mdp/): unavailable.
 */
#include <string.h>

#include "explore_mdp_gpu.h"

#define NO_CUDA \
    "this warpex was built without CUDA (nvcc was not found): the GPU MDP explorer is unavailable"

int explore_mdp_gpu_available(void)
{
    return 0;
}

int explore_mdp_gpu_tuned(const struct image *img, const struct explore_options *opt, bool exact,
                          const struct mdp_gpu_tuning *tuning, struct mdp_explore_result *res,
                          struct wx_error *err)
{
    (void)img, (void)opt, (void)exact, (void)tuning;
    memset(res, 0, sizeof *res);
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}

int explore_mdp_gpu(const struct image *img, const struct explore_options *opt, bool exact,
                    struct mdp_explore_result *res, struct wx_error *err)
{
    return explore_mdp_gpu_tuned(img, opt, exact, NULL, res, err);
}
