/*
 * env_vi.c -- the environment knobs of the GPU value-iteration solvers
 * (docs/tuning.md), read here and handed down in struct vi_gpu_tuning:
 * library code never reads the environment.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/valiter.h"
#include "cli.h"

/* A positive integer knob, else 0 (unset, empty, or not a number: ignored). */
static int env_count(const char *name)
{
    const char *e = getenv(name);
    return e && *e ? atoi(e) : 0;
}

void cli_vi_gpu_env(struct vi_gpu_tuning *t)
{
    memset(t, 0, sizeof *t);
    /* WARPEX_VI_KERNEL=kind[,group]: pins the sweep kernel (group: lanes
     * per state of kinds 1 and 2, default 32); an unknown kind is ignored */
    const char *e = getenv("WARPEX_VI_KERNEL");
    if (e && *e) {
        char *end;
        long k = strtol(e, &end, 10);
        if (k > 0 && k <= VI_KERNEL_LAST) {
            t->kernel = (enum vi_kernel)k;
            t->kernel_group = *end == ',' ? (int)strtol(end + 1, NULL, 10) : 32;
        }
    }
    t->persist_blocks = env_count("WARPEX_VI_PERSIST_BLOCKS");
    t->pi_blocks = env_count("WARPEX_PI_BLOCKS");
    e = getenv("WARPEX_PI_TRACE");
    t->pi_trace = e && *e && *e != '0' ? stderr : NULL;
}
