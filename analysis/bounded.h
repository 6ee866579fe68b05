/*
 * bounded.h -- step-bounded properties of an MDP (or DTMC): the value after
 * exactly k steps of Bellman backups, with the rounding of every backup
 * bounded.
 *
 * PROBLEMS (opt = min or max over the choices of a state; x_0 the values of
 * paths of length 0):
 *   BOUNDED_UNTIL  phi1 U<=k phi2 (F<=k phi2: allowed NULL):
 *       x_0(s)     = [target(s)]
 *       x_{i+1}(s) = 1 if target(s); 0 if !allowed(s) or s has no choice;
 *                    else opt_c sum_e p_e x_i(t_e)
 *   BOUNDED_GLOBALLY  G<=k phi (invariant = phi):
 *       x_0(s)     = [phi(s)]
 *       x_{i+1}(s) = 0 if !phi(s); 1 if s has no choice (the path ends
 *                    inside phi); else opt_c sum_e p_e x_i(t_e)
 *     which is 1 - x of F<=k !phi with min and max swapped, computed
 *     directly (no subtraction to round).
 *   BOUNDED_CUMULATIVE  C<=k (the reward of the first k steps: the state
 *     reward of each state left and the transition reward of each choice
 *     taken, PRISM's and Storm's C<=k):
 *       x_0(s)     = 0
 *       x_{i+1}(s) = 0 if s has no choice (the path ends: nothing more is
 *                    earned); else opt_c ( rs(s) + rc(c) + sum_e p_e x_i(t_e) )
 * x_k is the answer: exact, there is no stopping rule.  A state without a
 * choice is handled as the unbounded operators handle it (mdpcheck.h): a
 * path that ends there reaches only what holds there.
 *
 * ROUNDING.  Every backup is computed twice, once with every floating-point
 * operation rounded down (FE_DOWNWARD) into lo and once rounded up into hi.
 * The operator is monotone (probabilities and rewards >= 0, min and max
 * monotone), so by induction lo_i <= x_i <= hi_i, where x_i is the value in
 * exact arithmetic on the model's numbers as read: [lo, hi] holds the exact
 * value, and is a few units in the last place wide.  The rounding mode is
 * set by each thread around its own loop (it is per thread) through a call
 * the compiler cannot move arithmetic across.
 *
 * EARLY END.  When one backup leaves every lo and hi bit-identical, all
 * later ones would too (a backup is a function of the previous vectors):
 * the loop ends there and *steps_fixed says after how many steps.
 *
 * THREADS: `threads` workers (0: all cores, fewer for small models); the
 * result is bit-identical for every thread count (each state is computed
 * from the previous vectors alone).
 */
#ifndef WX_BOUNDED_H
#define WX_BOUNDED_H

#include <stdint.h>

#include "../graph/mdp.h"
#include "../graph/mdp_lab.h"
#include "../util/error.h"

enum bounded_kind { BOUNDED_UNTIL, BOUNDED_GLOBALLY, BOUNDED_CUMULATIVE };

struct bounded_problem {
    const struct mdp *m;
    enum bounded_kind kind;
    const uint8_t *allowed;        /* UNTIL: phi1, NULL for F; GLOBALLY: phi */
    const uint8_t *target;         /* UNTIL: phi2                            */
    const struct mdp_rewards *rew; /* CUMULATIVE: NULL for all rewards 0     */
    int maximize;
    uint64_t steps;                /* k                                      */
    int threads;
};

/* Fills lo and hi (n_states each) with the bounds of x_k; *steps_fixed
 * (may be NULL) = the backups after which the values stopped changing (k
 * when they changed to the end).  WX_ELIMIT when out of memory. */
int bounded_solve(const struct bounded_problem *bp, double *lo, double *hi,
                  uint64_t *steps_fixed, struct wx_error *err);

/* The GPU twin (kernels/bounded.cu): the same bits in lo and hi and the
 * same *steps_fixed; bp->threads is ignored.  Errors: WX_ELIMIT out of
 * device memory, WX_ESYSTEM a device failure, WX_EINPUT built without CUDA
 * (kernels/nogpu_bounded.c). */
int bounded_solve_gpu(const struct bounded_problem *bp, double *lo, double *hi,
                      uint64_t *steps_fixed, struct wx_error *err);

/* bounded_solve or bounded_solve_gpu. */
typedef int (*bounded_solve_fn)(const struct bounded_problem *bp, double *lo, double *hi,
                                uint64_t *steps_fixed, struct wx_error *err);

#endif
