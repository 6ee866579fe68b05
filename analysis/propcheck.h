/*
 * propcheck.h -- every property form of prop.h on one MDP or DTMC, with
 * bounds that hold the exact value:
 *
 *   "=?" of an unbounded F or U    mdpcheck_run as it is (mdpcheck.h);
 *   G phi (unbounded)              1 - (F !phi with min and max swapped),
 *                                  solved by mdpcheck_run: lo = 1 - hi',
 *                                  hi = 1 - lo'; the scheduler is that of
 *                                  F !phi, which is optimal for G phi too;
 *   F<=k, U<=k, G<=k, C<=k         options.bounded (bounded.h: the CPU's or
 *                                  the GPU's k backups with both roundings,
 *                                  the same bits); no scheduler
 *                                  (an optimal one depends on the step:
 *                                  options.scheduler is WX_EINPUT);
 *   P~p, R~r (a comparison)        the value as above; for an unbounded
 *                                  path, while the comparison is undecided
 *                                  (its bound lies inside [lo, hi], see
 *                                  prop_decide) the value is solved again
 *                                  with epsilon / WX_DECIDE_SHRINK, down to
 *                                  WX_DECIDE_EPSILON_MIN (util/config.h).
 *                                  A try that does not converge ends the
 *                                  refinement (the last converged bounds
 *                                  stay).  Plain value iteration (options.
 *                                  sound == 0) has no bounds to decide with:
 *                                  WX_EINPUT.
 *
 * PRISM's default filter decides a comparison over the initial states: it
 * holds when it holds at every one (info.result PROP_TRUE), fails when it
 * fails at one (PROP_FALSE), and is PROP_UNDECIDED otherwise.  The
 * refinement stops as soon as that is decided.
 *
 * THREAD SAFETY: reentrant; the inputs are only read.
 */
#ifndef WX_PROPCHECK_H
#define WX_PROPCHECK_H

#include <stdint.h>

#include "mdpcheck.h"
#include "prop.h"

struct propcheck_info {
    int bounded;          /* r holds k backups' bounds: no classes, system,
                             iterations or scheduler                      */
    uint64_t steps_fixed; /* bounded: the values stopped changing after
                             this many backups (== steps if they never did) */
    double epsilon;       /* unbounded: the epsilon of the final solve     */
    int tries;            /* unbounded: solves made (1 + refinements)      */
    int result;           /* PROP_TRUE, PROP_FALSE or PROP_UNDECIDED over the
                             initial states (PROP_TRUE for "=?")           */
    char why[1024];       /* PROP_UNDECIDED: why no further try was made   */
};

/* Checks p on m as mdpcheck_run does (same arguments and ownership of *r;
 * initial NULL: state 0 is the initial state for the decision) and fills
 * *info.  Returns WX_OK (whatever the comparison's answer), or
 * mdpcheck_run's errors. */
int propcheck_run(const struct mdp *m, const struct mdp_labels *labels,
                  const struct mdp_rewards *rew, const uint8_t *initial,
                  const struct property *p, const struct mdpcheck_options *o,
                  struct mdpcheck_result *r, struct propcheck_info *info, struct wx_error *err);

/* The comparison of p over the initial states (PRISM's default filter),
 * from the bounds in r; counts by answer in n[0] (false), n[1] (true), n[2]
 * (undecided) when n is not NULL. */
int propcheck_decide(const struct property *p, const struct mdpcheck_result *r,
                     const uint8_t *initial, uint64_t n[3]);

#endif
