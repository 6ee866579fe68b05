/*
 * env_scc.c -- WARPEX_SCC_TUNING, the strategy knobs of the GPU SCC
 * decomposition (docs/tuning.md), read here and handed to the kernels with
 * scc_gpu_set_tuning: library code never reads the environment.
 */
#include <stdlib.h>

#include "../kernels/scc_gpu.h"
#include "cli.h"

int cli_scc_gpu_env(struct wx_error *err)
{
    const char *e = getenv("WARPEX_SCC_TUNING");
    if (!e || !*e || !scc_gpu_available())
        return WX_OK; /* without a usable GPU the knobs select nothing */
    struct scc_gpu_tuning t;
    scc_gpu_tuning_default(&t);
    int rc = scc_gpu_tuning_parse(e, &t, err);
    if (rc != WX_OK)
        return rc;
    scc_gpu_set_tuning(&t);
    return WX_OK;
}
