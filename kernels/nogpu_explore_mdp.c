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

int explore_mdp_gpu_dev(const struct image *img, const struct explore_options *opt, bool exact,
                        const struct mdp_gpu_tuning *tuning, int host_mdp,
                        struct mdp_explore_result *res, struct mdp_dev *dev, struct wx_error *err)
{
    (void)host_mdp;
    if (dev)
        memset(dev, 0, sizeof *dev);
    return explore_mdp_gpu_tuned(img, opt, exact, tuning, res, err);
}

int mdp_dev_download(const struct mdp_dev *d, struct mdp *m, uint32_t **labels,
                     struct wx_error *err)
{
    (void)d;
    memset(m, 0, sizeof *m);
    if (labels)
        *labels = NULL;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}

int mdp_dev_download_rest(const struct mdp_dev *d, struct mdp *m, struct wx_error *err)
{
    (void)d, (void)m;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}

int mdp_dev_upload(const struct mdp *m, struct mdp_dev *d, struct wx_error *err)
{
    (void)m;
    memset(d, 0, sizeof *d);
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}

void mdp_dev_free(struct mdp_dev *d)
{
    memset(d, 0, sizeof *d);
}
