/*
 * prop_report.h -- what `warpex check` prints for the property forms of
 * analysis/propcheck.h beyond a plain value: a comparison's answer at each
 * initial state and over all of them (PRISM's default filter: true when it
 * holds at every initial state), the range of a value over several initial
 * states (PRISM's and Storm's answer then), and the step-bounded method.
 */
#ifndef WX_PROP_REPORT_H
#define WX_PROP_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "../analysis/mdpcheck.h"
#include "../analysis/prop.h"
#include "../analysis/propcheck.h"

/* "  result: true at state S: Pmin = MID in [LO, HI] >= B" (no newline):
 * the line of one initial state for a comparison. */
void check_report_state(FILE *f, const struct property *p, double lo, double hi, uint64_t s);

/* The lines after the initial states' lines: the range over several
 * initial states, a comparison's answer over them, how it was decided, and
 * for a step-bounded property the method and time (in place of the state
 * classes and sweeps of the unbounded ones). */
void check_report_summary(FILE *f, const struct property *p, const struct mdpcheck_result *r,
                          const uint8_t *initial, uint64_t n_init,
                          const struct propcheck_info *info);

/* JSON: `, "holds": true|false|null` of one initial state (nothing for
 * "=?"). */
void check_report_json_state(FILE *f, const struct property *p, double lo, double hi);

/* JSON fields of the property after "initial": path, step_bound,
 * steps_fixed, range, and for a comparison comparison, bound, result
 * (true, false or "undecided"), why, epsilon and tries. */
void check_report_json(FILE *f, const struct property *p, const struct mdpcheck_result *r,
                       const uint8_t *initial, const struct propcheck_info *info);

#endif
