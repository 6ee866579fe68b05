/*
 * cuda_check.cuh -- the one way warpex checks CUDA calls.
 *
 * Every CUDA API call and every kernel launch in kernels/ goes through
 * CUDA_CHECK / CUDA_CHECK_LAUNCH.  A failure becomes a struct wx_error with
 * one mapping of CUDA errors to exit codes:
 *   cudaErrorMemoryAllocation  -> WX_ELIMIT  (exit 3: out of device memory)
 *   anything else              -> WX_ESYSTEM (exit 4: device or driver error)
 * The message names the call (its source text or a caller's description) and
 * the file and line of the check, e.g.
 *   "CUDA error in cudaMalloc(&d, n) (scc.cu:210): out of memory (cudaErrorMemoryAllocation)".
 *
 * The macros expect two names in scope, as every launcher in kernels/ has:
 *   int rc;                  the launcher's status, returned at `out:`
 *   struct wx_error *err;    the caller's error
 * and a label `out:` that releases what the launcher holds and returns rc.
 */
#ifndef WX_CUDA_CHECK_CUH
#define WX_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include "../util/error.h"

/* Fills err from e (e != cudaSuccess) and returns the status; clears CUDA's
 * sticky last error so that a later check reports its own failure. */
static inline int wx_cuda_fail(struct wx_error *err, cudaError_t e, const char *what,
                               const char *file, int line)
{
    (void)cudaGetLastError();
    const char *base = file;
    for (const char *p = file; *p; p++)
        if (*p == '/')
            base = p + 1;
    return wx_fail(err, e == cudaErrorMemoryAllocation ? WX_ELIMIT : WX_ESYSTEM, NULL, 0, 0,
                   "CUDA error in %s (%s:%d): %s (%s)", what, base, line, cudaGetErrorString(e),
                   cudaGetErrorName(e));
}

/* WX_OK, or the status of a failed CUDA result e (err filled). */
static inline int wx_cuda_status(struct wx_error *err, cudaError_t e, const char *what,
                                 const char *file, int line)
{
    return e == cudaSuccess ? WX_OK : wx_cuda_fail(err, e, what, file, line);
}

#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t cuda_check_e_ = (call);                                                        \
        if (cuda_check_e_ != cudaSuccess) {                                                        \
            rc = wx_cuda_fail(err, cuda_check_e_, #call, __FILE__, __LINE__);                      \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* After a launch: a configuration error shows at once; an execution error
 * shows at the next synchronising call, which is checked too. */
#define CUDA_CHECK_LAUNCH(what) CUDA_CHECK_NAMED(cudaGetLastError(), "launch of " what)

/* CUDA_CHECK with a description instead of the call's text. */
#define CUDA_CHECK_NAMED(call, what)                                                               \
    do {                                                                                           \
        cudaError_t cuda_check_e_ = (call);                                                        \
        if (cuda_check_e_ != cudaSuccess) {                                                        \
            rc = wx_cuda_fail(err, cuda_check_e_, what, __FILE__, __LINE__);                       \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

#endif
