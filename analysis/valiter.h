/*
 * valiter.h -- the numeric and graph cores of MDP model checking
 * (reachability probabilities and expected rewards), CPU and GPU twins.
 *
 * This header is the contract between the property layer (property parsing,
 * choosing S0/S1, collapsing end components, bounds, schedulers: CPU code
 * in analysis/) and the two implementations of the expensive cores:
 * analysis/valiter.c (CPU: multi-threaded Jacobi, sequential Gauss-Seidel)
 * and kernels/valiter.cu (GPU).  Both implementations must accept exactly
 * the same inputs and give the same answers (graph cores: identical sets;
 * numeric core: the same stopping rule, values within the stated epsilon).
 *
 * GRAPH CORE (precomputation).  Over an MDP (graph/mdp.h) with a set of
 * allowed states A ("phi1", NULL = all states) and target states T
 * ("phi2"), for the property  phi1 U phi2  (F phi2 is A = all):
 *     VI_PMAX0  {s : Pmax(s) = 0}   PRISM's Prob0A  (no scheduler reaches T)
 *     VI_PMIN0  {s : Pmin(s) = 0}   PRISM's Prob0E  (some scheduler avoids T)
 *     VI_PMAX1  {s : Pmax(s) = 1}   PRISM's Prob1E
 *     VI_PMIN1  {s : Pmin(s) = 1}   PRISM's Prob1A
 * (definitions and the fixpoint algorithms: Forejt, Kwiatkowska, Norman,
 * Parker, "Automated verification techniques for probabilistic systems",
 * SFM 2011, Section 4.)  A state without any choice is a deadlock: it
 * reaches T only if it is in T.  The result is a 0/1 byte per state.
 *
 * NUMERIC CORE.  A "system" is a small MDP-like structure built by the
 * property layer from the maybe-states: states 0..n-1 (renumbered maybe
 * states, possibly with end components collapsed), each with >= 1 choice;
 * choice c has a constant b[c] (one-step probability into S1 for
 * probabilities, the choice's expected reward for rewards) and entries to
 * system states only (mass to S0 or S1 is folded into b or dropped).  The
 * value vector is the least fixpoint of
 *     x[s] = opt_{c of s} ( b[c] + sum_{e of c} p[e] * x[t[e]] ),  opt = min|max.
 * Interval iteration (sound, default) iterates lo (from the given lower
 * bound, usually 0) and hi (from the given upper bound) together and stops
 * after the first sweep where every state has hi - lo <= epsilon
 * (absolute), or hi - lo <= epsilon * lo (relative; a state with lo == 0
 * needs hi - lo <= epsilon); the property layer guarantees that both
 * sequences converge to the same fixpoint (no end components left where
 * they would stop hi from coming down).  Plain value iteration (unsound,
 * hi == NULL) stops after the first sweep whose largest change
 * |x_new - x_old| is <= epsilon (absolute) or <= epsilon * |x_new|
 * (relative).  Each sweep is Jacobi (reads the previous vector) in the
 * multi-threaded CPU solver and on the GPU; VI_GAUSS_SEIDEL updates in
 * place: on the CPU sequentially in state order, on the GPU (the default
 * tile kernel; other kernels stay Jacobi) asynchronously -- a sweep reads
 * whatever other warps already wrote in it.  Both stay sound (monotone
 * operator: every value read is a valid bound) and never take more sweeps
 * than Jacobi, but neither is bit-identical to Jacobi, and the GPU's is not
 * deterministic (see kernels/valiter.cu, vi_sweep_tiles2).  More than max_iterations
 * sweeps is an error (WX_ELIMIT, "did not converge after N sweeps"), never
 * a silently early answer.
 *
 * Values are doubles.  Both implementations round monotonically in the
 * same direction (no fused multiply-add tricks that differ between them are
 * relied on); CPU and GPU Jacobi sweeps agree bit for bit (checked by
 * tests/gpu/test_gpu_valiter.c), and any two sound answers overlap.
 *
 * THREAD SAFETY: reentrant; inputs are only read.
 */
#ifndef WX_VALITER_H
#define WX_VALITER_H

#include <stdint.h>

#include "../graph/mdp.h"
#include "../util/error.h"

enum vi_precomp { VI_PMAX0, VI_PMIN0, VI_PMAX1, VI_PMIN1 };

/* out[s] = 1 when state s is in the set named by which, else 0 (n_states
 * bytes, caller-allocated).  allowed may be NULL (all states); target must
 * not.  Returns WX_OK, WX_ELIMIT when out of (device) memory, WX_EINPUT for
 * the GPU version in a build without CUDA. */
int valiter_precompute_cpu(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                           enum vi_precomp which, uint8_t *out, struct wx_error *err);
int valiter_precompute_gpu(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                           enum vi_precomp which, uint8_t *out, struct wx_error *err);
/* Two sets for the same m, allowed and target in one call (out_a, out_b as
 * two valiter_precompute_gpu calls would fill them): the MDP is uploaded
 * and its predecessor index built once, and a Prob1E after a Prob0A starts
 * from the Prob0A search's reachable set.  Same returns. */
int valiter_precompute2_gpu(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                            enum vi_precomp a, uint8_t *out_a, enum vi_precomp b, uint8_t *out_b,
                            struct wx_error *err);

/* The numeric system (see above).  Same layout rules as struct mdp: every
 * state has >= 1 choice, every choice >= 1 entry OR only a constant
 * (choice_start[c] == choice_start[c+1] is allowed here: a choice that goes
 * entirely to S0/S1), probabilities in (0, 1], their sum per choice <= 1. */
struct vi_system {
    uint64_t n_states, n_choices, n_entries;
    const uint64_t *state_start;  /* n_states + 1  */
    const uint64_t *choice_start; /* n_choices + 1 */
    const uint32_t *targets;      /* n_entries, < n_states */
    const double *probs;          /* n_entries */
    const double *b;              /* n_choices */
};

enum vi_method { VI_JACOBI, VI_GAUSS_SEIDEL };

struct vi_params {
    int maximize;            /* 1: opt = max, 0: opt = min                    */
    double epsilon;          /* > 0                                           */
    int relative;            /* relative instead of absolute stopping rule    */
    uint64_t max_iterations; /* sweeps allowed before WX_ELIMIT               */
    enum vi_method method;   /* GPU: VI_GAUSS_SEIDEL = in-place sweeps        */
    int threads;             /* CPU Jacobi threads, 0 = all cores             */
    uint64_t device_memory;  /* GPU level solve: device bytes it may use at
                                most (0: what is free); below what the whole
                                system needs it solves in groups (below)     */
};

struct vi_stats {
    uint64_t iterations;     /* sweeps done                                   */
    double seconds;          /* wall time of the solve (GPU: incl. transfers) */
    double sweep_seconds;    /* GPU: mean device time per sweep; CPU: mean    */
    uint64_t bytes_per_sweep;/* bytes a sweep must stream (for bandwidth)     */
    uint64_t level_sweeps;   /* level solves: sweeps of single levels, summed */
    uint64_t groups;         /* GPU level solve: groups of levels uploaded
                                one after the other (1: all fitted at once);
                                a level too big for the budget alone is swept
                                in chunks and counts once per chunk upload  */
};

/* Solves sys.  lo (n_states) holds the initial lower bound on entry and the
 * final lower values on return; hi likewise for the upper bound, or NULL
 * for plain (unsound) value iteration, where lo is the iterate.  Returns
 * WX_OK, WX_ELIMIT (no convergence within max_iterations: lo/hi then hold
 * the last iterates; or out of memory), WX_EINPUT for the GPU version in a
 * build without CUDA. */
int valiter_solve_cpu(const struct vi_system *sys, const struct vi_params *par, double *lo,
                      double *hi, struct vi_stats *stats, struct wx_error *err);
int valiter_solve_gpu(const struct vi_system *sys, const struct vi_params *par, double *lo,
                      double *hi, struct vi_stats *stats, struct wx_error *err);

/* Topological solving (CPU only, sequential; an addition to the twin
 * contract above, which it leaves unchanged).  The states of sys are
 * grouped into blocks k = [block_start[k], block_start[k+1]), k <
 * n_blocks, block_start[0] == 0, block_start[n_blocks] == n_states, such
 * that every entry of a state of block k goes to a state of block <= k (the
 * SCCs of the system in reverse topological order).  Block 0 first, each
 * block is swept Gauss-Seidel style until all its states meet the stopping
 * rule above (interval or plain), and never again: the blocks it leads to
 * are final by then.  max_iterations bounds the sweeps of each block.
 * stats->iterations counts equivalent full sweeps (state updates divided by
 * n_states, rounded up). */
int valiter_solve_blocks_cpu(const struct vi_system *sys, const struct vi_params *par,
                             const uint64_t *block_start, uint64_t n_blocks, double *lo,
                             double *hi, struct vi_stats *stats, struct wx_error *err);

/* Topological solving by LEVELS (CPU and GPU twins).  The states of sys
 * are grouped into levels L = [level_start[L], level_start[L+1]), L <
 * n_levels, such that every entry of a state of level L goes to a state of
 * level <= L (the level of an SCC of the system is 0 when it leads to no
 * other SCC, else 1 + the largest level of the SCCs it leads to; a level's
 * states are the states of its SCCs, which do not lead to one another).
 * acyclic[L] == 1 promises that no state of level L has an entry to a state
 * of level L (all its SCCs are single states without a self loop).  Level 0
 * first, each level is swept with JACOBI sweeps (the previous iterate of the
 * level's states; final values below it) until all its states meet the
 * stopping rule, and never again; an acyclic level is final after exactly
 * one sweep (its values depend on lower levels only), and its states must
 * then meet the rule too.  max_iterations bounds the sweeps of each level;
 * a level that misses it, or an acyclic level whose states inherit too
 * wide a gap (possible only with the relative rule), is WX_ELIMIT.
 *
 * The two twins give BIT-IDENTICAL lo/hi and level_sweeps (same arithmetic
 * as valiter_solve_cpu's Jacobi sweep, same order of levels, same stopping
 * decisions).  The GPU version keeps the whole value vector on the device
 * and uploads the system in GROUPS of consecutive levels that fit
 * par->device_memory (or the free device memory): a group's levels are
 * swept one after the other without host round trips (the level switch is
 * decided on the device); a level that does not fit on its own is swept in
 * chunks of states, each uploaded in turn, every sweep.  Grouping never
 * changes a value.  It needs 32 bytes per system state on the device (two
 * (lo, hi) vectors) plus one tile of the system; less is WX_ELIMIT.
 * stats->iterations counts equivalent full sweeps (state updates divided by
 * n_states, rounded up). */
struct vi_levels {
    uint64_t n_levels;
    const uint64_t *level_start; /* n_levels + 1 */
    const uint8_t *acyclic;      /* n_levels */
};

int valiter_solve_levels_cpu(const struct vi_system *sys, const struct vi_params *par,
                             const struct vi_levels *lv, double *lo, double *hi,
                             struct vi_stats *stats, struct wx_error *err);
int valiter_solve_levels_gpu(const struct vi_system *sys, const struct vi_params *par,
                             const struct vi_levels *lv, double *lo, double *hi,
                             struct vi_stats *stats, struct wx_error *err);

/* 1 when valiter_*_gpu can run here (a CUDA build and a usable device). */
int valiter_gpu_available(void);

/* valiter_gpu_available(), and when it says yes, also creates the CUDA
 * context of the device (the first CUDA calls of a process pay for driver
 * and context start-up, 0.1 s or more), so that a caller can overlap that
 * cost with other work by calling this on a thread of its own: the context
 * is the process's primary context, used by every thread afterwards.
 * Returns 1 when the GPU is usable (context created), else 0. */
int valiter_gpu_init(void);

#endif
