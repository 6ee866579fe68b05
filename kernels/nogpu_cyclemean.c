/*
 * nogpu_cyclemean.c -- the GPU cycle-mean entry points of a build made
 * without nvcc (kernels/cyclemean.cu replaces this file when nvcc exists):
 * the probe says no and the solver is a WX_EINPUT error, so callers fall
 * back to cyclemean_howard_cpu.
 */
#include "../analysis/cyclemean.h"

int cyclemean_gpu_available(void)
{
    return 0;
}

int cyclemean_howard_gpu(const struct cm_graph *g, const struct scc_result *scc, int maximize,
                         struct cm_result *out, struct wx_error *err)
{
    (void)g, (void)scc, (void)maximize, (void)out;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                   "this warpex was built without CUDA (nvcc was not found): the GPU cycle mean is unavailable");
}

int cyclemean_howard_gpu_device(const struct dgraph *g, const uint32_t *d_comp, const int64_t *label_weight,
                                uint32_t n_labels, const struct scc_result *scc, int maximize,
                                struct cm_result *out, struct wx_error *err)
{
    (void)g, (void)d_comp, (void)label_weight, (void)n_labels, (void)scc, (void)maximize, (void)out;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                   "this warpex was built without CUDA (nvcc was not found): the GPU cycle mean is unavailable");
}
