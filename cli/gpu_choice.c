/*
 * gpu_choice.c -- what the commands say when they cannot use a GPU: one
 * error for `--backend gpu` without a usable GPU (exit 2 everywhere), and
 * the notice of `--backend auto` falling back to the CPU.
 *
 * A CPU-only build (the Makefile defines WX_HAVE_CUDA only when nvcc is
 * present) has no GPU to look for: its make said so once, and its runs do
 * not repeat it.
 */
#include <stdio.h>

#include "cli.h"

int cli_gpu_built(void)
{
#ifdef WX_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

int cli_no_gpu(struct wx_error *err)
{
    if (cli_gpu_built())
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--backend gpu: no usable CUDA device (compute capability 9.0; use --backend cpu)");
    return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                   "--backend gpu: this warpex was built without CUDA (nvcc was not found, or NVCC= "
                   "was given; use --backend cpu)");
}

void cli_cpu_notice(int quiet)
{
    if (!quiet && cli_gpu_built())
        fprintf(stderr, "warpex: no GPU found; using the CPU backend\n");
}
