/*
 * timer.h -- the host's one clock: wx_now() is seconds on CLOCK_MONOTONIC
 * (never steps with the wall clock), as a double, for durations only:
 * t0 = wx_now(); ...; seconds = wx_now() - t0.  Thread-safe.
 */
#ifndef WX_TIMER_H
#define WX_TIMER_H

#include <time.h>

static inline double wx_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
