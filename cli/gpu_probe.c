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
    g->started = pthread_create(&g->tid, NULL, gpu_probe_main, g) == 0;
    if (!g->started) /* no thread: probe in line */
        gpu_probe_main(g), g->joined = 1;
}

int gpu_probe_join(struct gpu_probe *g)
{
    if (g->started && !g->joined) {
        double t0 = wx_now();
        pthread_join(g->tid, NULL);
        g->wait_seconds = (wx_now() - t0);
        g->joined = 1;
    }
    return g->usable;
}
