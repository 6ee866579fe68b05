/*
 * gpu_probe.h -- the GPU probe and CUDA context creation on a thread of
 * their own, so that the driver's start-up (~0.15 s on the H100, the
 * critical path of a short GPU run) overlaps the command's reading and
 * front end instead of adding to them.
 *
 * (cli/main.c sets CUDA_DEVICE_MAX_CONNECTIONS=1 before any of it: the
 * context then starts ~0.05 s sooner.)  The thread calls init (a module's "probe and create the
 * context" function, which returns 1 when the GPU is usable); any thread
 * may use the GPU once gpu_probe_join returned 1.  Without a thread the
 * probe runs in line.  mark, when not NULL, is called on the probe thread
 * at its start and end (the check command's timeline).
 */
#ifndef WX_CLI_GPU_PROBE_H
#define WX_CLI_GPU_PROBE_H

#include <stdatomic.h>

#include "../util/pool.h"

struct gpu_probe {
    struct wx_task task;     /* the probe thread (util/pool.h)            */
    int joined, usable;
    atomic_int done;         /* set by the probe thread when it is done   */
    double seconds;          /* the probe's own duration                  */
    double wait_seconds;     /* how long the joining thread waited for it */
    int (*init)(void);
    void (*mark)(const char *fmt, ...);
};

void gpu_probe_start(struct gpu_probe *g, int (*init)(void), void (*mark)(const char *fmt, ...));
/* Waits for the probe (once); returns 1 when the GPU is usable. */
int gpu_probe_join(struct gpu_probe *g);

#endif
