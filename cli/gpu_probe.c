/* gpu_probe.c -- see gpu_probe.h. */
#include "gpu_probe.h"

#include <string.h>
#include <time.h>

#include "cli.h"

static void *gpu_probe_main(void *arg)
{
    struct gpu_probe *g = arg;
    double t0 = wx_now();
    if (g->mark)
        g->mark("GPU probe and CUDA context: start (thread)");
    g->usable = g->init();
    g->seconds = (wx_now() - t0);
    atomic_store(&g->done, 1);
    if (g->mark)
        g->mark("GPU probe and CUDA context: done (%s)", g->usable ? "usable" : "no GPU");
    return NULL;
}

void gpu_probe_start(struct gpu_probe *g, int (*init)(void), void (*mark)(const char *fmt, ...))
{
    memset(g, 0, sizeof *g);
    atomic_init(&g->done, 0);
    g->init = init;
    g->mark = mark;
    wx_task_start(&g->task, gpu_probe_main, g); /* no thread: probed in line */
    g->joined = !g->task.started;
}

int gpu_probe_join(struct gpu_probe *g)
{
    if (!g->joined) {
        double t0 = wx_now();
        wx_task_join(&g->task);
        g->wait_seconds = (wx_now() - t0);
        g->joined = 1;
    }
    return g->usable;
}
