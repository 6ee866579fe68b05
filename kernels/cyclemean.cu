/*
 * cyclemean.cu -- GPU Howard policy iteration for the optimal cycle ratio
 * (analysis/cyclemean.h).  SKELETON: the solver is not implemented yet.
 */
#include <cuda_runtime.h>

extern "C" {
#include "../analysis/cyclemean.h"
}

extern "C" int cyclemean_gpu_available(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        return 0;
    }
    return 1;
}

extern "C" int cyclemean_howard_gpu(const struct cm_graph *g, const struct scc_result *scc,
                                    int maximize, struct cm_result *out, struct wx_error *err)
{
    (void)g, (void)scc, (void)maximize, (void)out;
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "cyclemean_howard_gpu: not implemented yet");
}
