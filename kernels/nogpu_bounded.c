/*
 * nogpu_bounded.c -- the GPU step-bounded solve of a build made without
 * nvcc (kernels/bounded.cu replaces this file when nvcc exists): an input
 * error, so callers use bounded_solve.
 */
#include "../analysis/bounded.h"

int bounded_solve_gpu(const struct bounded_problem *bp, double *lo, double *hi,
                      uint64_t *steps_fixed, struct wx_error *err)
{
    (void)bp, (void)lo, (void)hi, (void)steps_fixed;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                   "this warpex was built without CUDA (nvcc was not found): the GPU step-bounded "
                   "solve is unavailable");
}
