/*
 * timeline.cu -- the GPU explorer's clock, its timeline and its run
 * statistics.
 *
 * With gpu_options.timeline set (the CLI sets it from WARPEX_GPU_TIMELINE,
 * docs/tuning.md), explore_gpu_tuned prints where its time goes: one line
 * per step on stderr, seconds since the call's start.  Each mark after the
 * device is chosen first waits for the device, so the marks attribute
 * asynchronous work but also serialise it: the timeline's total is not a
 * benchmark.
 */
#include <stdio.h>
#include <time.h>

#include "gx.h"

static_assert(GPU_PROF_N == sizeof(((struct gpu_run_stats *)0)->prof) / sizeof(uint64_t),
              "gpu_run_stats.prof holds GPU_PROF_N counters");

double gx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int gx_timed_launch(struct gx *g, const void *kern, uint32_t blocks, uint32_t threads, void *args, size_t smem,
                    const char *what, float *ms, struct wx_error *err)
{
    int rc = WX_OK;
    void *argv[] = {args};
    *ms = 0;
    CUDA_CHECK(cudaEventRecord(g->ev0));
    CUDA_CHECK_NAMED(cudaLaunchKernel(kern, dim3(blocks), dim3(threads), argv, smem, 0), what);
    CUDA_CHECK_NAMED(cudaGetLastError(), what);
    CUDA_CHECK(cudaEventRecord(g->ev1));
    CUDA_CHECK(cudaEventSynchronize(g->ev1));
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), what);
    CUDA_CHECK(cudaEventElapsedTime(ms, g->ev0, g->ev1));
    g->st.kernel_seconds += *ms * 1e-3;
    g->st.launches++;
out:
    return rc;
}

static void gx_mark_v(const struct gx *g, int sync, const char *fmt, va_list ap)
{
    if (sync) {
        (void)cudaDeviceSynchronize();
        (void)cudaGetLastError();
    }
    fprintf(stderr, "gpu timeline %9.6f ", gx_now() - g->t0);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

/* A mark before the device is chosen: no synchronisation. */
void gx_mark0(const struct gx *g, const char *fmt, ...)
{
    if (!g->timeline)
        return;
    va_list ap;
    va_start(ap, fmt);
    gx_mark_v(g, 0, fmt, ap);
    va_end(ap);
}

void gx_mark(const struct gx *g, const char *fmt, ...)
{
    if (!g->timeline)
        return;
    va_list ap;
    va_start(ap, fmt);
    gx_mark_v(g, 1, fmt, ap);
    va_end(ap);
}

/* The statistics the kernels counted in the control block, with the
 * host's, into *stats (may be NULL). */
void gx_finish_stats(struct gx *g, struct gpu_run_stats *stats)
{
    if (!stats)
        return;
    g->st.device_bytes = g->peak;
    for (int k = 0; k < GPU_PROF_N; k++)
        g->st.prof[k] = g->ctl.prof[k];
    g->st.iterations = g->ctl.iterations;
    g->st.direct_inserts = g->ctl.direct_inserts;
    g->st.cache_inserts = g->ctl.cache_inserts;
    g->st.scan_claims = g->ctl.scan_claims;
    *stats = g->st;
}
