/*
 * check_timeline.c -- the timeline of `warpex check` (check.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/mec.h"
#include "../analysis/valiter.h"
#include "../util/timer.h"
#include "check.h"

/* ---- the timeline (WARPEX_TIMELINE set and not "0") ----
 * One stderr line per phase boundary: seconds since cmd_check began, the
 * wall clock in nanoseconds since the epoch (to set against `date +%s%N`
 * taken around the process: what lies before the first line is process
 * start, what lies after the last is exit, i.e. the CUDA driver's
 * teardown), and the event.  mdpcheck's phases come through its trace
 * hook, the GPU calls through the wrappers below (each returns only when
 * its device work is done: they end with a synchronising copy). */
static struct {
    int on;
    double t0; /* wx_now() at the start */
} tl;

void check_tl_start(void)
{
    const char *v = getenv("WARPEX_TIMELINE");
    tl.on = v && *v && strcmp(v, "0") != 0;
    tl.t0 = wx_now();
}

void check_tl_mark(const char *fmt, ...)
{
    if (!tl.on)
        return;
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    char ev[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev, sizeof ev, fmt, ap);
    va_end(ap);
    fprintf(stderr, "timeline %9.6f s  wall %lld%09ld  %s\n", (wx_now() - tl.t0),
            (long long)rt.tv_sec, (long)rt.tv_nsec, ev);
}

static void tl_trace(void *arg, const char *event)
{
    (void)arg;
    check_tl_mark("%s", event);
}

/* The backend's functions, wrapped for the timeline (CLI-only state: one
 * check at a time). */
static mdpcheck_precompute_fn tl_pre_fn;
static mdpcheck_precompute2_fn tl_pre2_fn;
static mdpcheck_solve_fn tl_solve_fn;
static mdpcheck_mec_fn tl_mec_fn;

static const char *tl_pre_name(enum vi_precomp which)
{
    return which == VI_PMAX0 ? "Prob0A (Pmax = 0)" : which == VI_PMAX1 ? "Prob1E (Pmax = 1)"
         : which == VI_PMIN0 ? "Prob0E (Pmin = 0)" : "Prob1A (Pmin = 1)";
}

static int tl_pre(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                  enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    check_tl_mark("precomputation %s: start", tl_pre_name(which));
    int rc = tl_pre_fn(m, allowed, target, which, out, err);
    check_tl_mark("precomputation %s: done", tl_pre_name(which));
    return rc;
}

static int tl_pre2(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                   enum vi_precomp a, uint8_t *out_a, enum vi_precomp b, uint8_t *out_b,
                   struct wx_error *err)
{
    check_tl_mark("precomputation %s + %s: start", tl_pre_name(a), tl_pre_name(b));
    int rc = tl_pre2_fn(m, allowed, target, a, out_a, b, out_b, err);
    check_tl_mark("precomputation %s + %s: done", tl_pre_name(a), tl_pre_name(b));
    return rc;
}

static int tl_solve(const struct vi_system *sys, const struct vi_params *par, double *lo,
                    double *hi, struct vi_stats *stats, struct wx_error *err)
{
    check_tl_mark("solve: start (%llu states, %llu choices, %llu transitions)",
            (unsigned long long)sys->n_states, (unsigned long long)sys->n_choices,
            (unsigned long long)sys->n_entries);
    int rc = tl_solve_fn(sys, par, lo, hi, stats, err);
    check_tl_mark("solve: end (%llu sweeps)", (unsigned long long)(stats ? stats->iterations : 0));
    return rc;
}

static int tl_mec(const struct mdp *m, struct mec_result *out, struct wx_error *err)
{
    check_tl_mark("MEC decomposition: start (%llu states)", (unsigned long long)m->n_states);
    int rc = tl_mec_fn(m, out, err);
    check_tl_mark("MEC decomposition: end (%llu MECs, %llu rounds; GPU setup %.6f, attractor %.6f, "
            "rounds %.6f, teardown %.6f s)",
            (unsigned long long)out->n_mecs, (unsigned long long)out->rounds, out->setup_seconds,
            out->attractor_seconds, out->refine_seconds, out->teardown_seconds);
    return rc;
}

void check_tl_hook(struct mdpcheck_options *mo)
{
    if (tl.on)
        mo->trace = tl_trace;
}

void check_tl_wrap(struct mdpcheck_options *mo)
{
    if (!tl.on)
        return;
    tl_pre_fn = mo->precompute ? mo->precompute : valiter_precompute_cpu;
    tl_solve_fn = mo->solve ? mo->solve : valiter_solve_cpu;
    tl_mec_fn = mo->mec ? mo->mec : mec_cpu;
    mo->precompute = tl_pre;
    if (mo->precompute2) {
        tl_pre2_fn = mo->precompute2;
        mo->precompute2 = tl_pre2;
    }
    mo->solve = tl_solve;
    mo->mec = tl_mec;
}
