/*
 * valiter.h -- the numeric and graph cores of MDP model checking
 * (reachability probabilities and expected rewards), CPU and GPU twins.
 *
 * This header is the contract between the property layer (property parsing,
 * choosing S0/S1, collapsing end components, bounds, schedulers: CPU code
 * in analysis/) and the two implementations of the expensive cores:
 * analysis/valiter.c (CPU: multi-threaded Jacobi, sequential Gauss-Seidel)
 * and kernels/vi/ (GPU).  Both implementations must accept exactly
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
 * deterministic (see kernels/vi/sweep_kernels.cuh, vi_sweep_tiles2).  More than max_iterations
 * sweeps is an error (WX_ELIMIT, "did not converge after N sweeps"), never
 * a silently early answer.
 *
 * WATCHED STATES (par->watch, n_watch > 0; interval iteration with
 * VI_JACOBI or VI_GAUSS_SEIDEL in valiter_solve_cpu and valiter_solve_gpu,
 * valiter_solve_ovi_cpu, valiter_solve_ovi_gpu and valiter_solve_svi_cpu).  The solve also
 * stops after the first sweep where every watched state meets the stopping
 * rule, whether or not the others do: lo and hi stay valid bounds at every
 * state after every sweep, so the watched states' intervals are sound and
 * within epsilon, the others' sound but possibly wider.  The stopping
 * decision reads the same vectors for any number of threads, so the result
 * stays bit-identical across thread counts.  VI_POLICY honours it in its
 * interval-iteration steps (1 and 5 below), on both twins.  The GPU
 * decides on the device after every sweep (kernels/vi/sweeps.cu), so its
 * Jacobi sweeps stop after the same sweep as the CPU's: bounds and sweep
 * counts stay bit-identical with a watch list too; persistent sweep kinds
 * run their launched twins then.  Plain value iteration and the block and
 * level solves ignore the watch list (they stop by the rule at every
 * state, which implies it).
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
#include <stdio.h>

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

/* VI_POLICY: certified policy iteration (below); sound, interval mode with
 * the absolute rule only -- with hi == NULL or par->relative it is plain
 * VI_JACOBI. */
enum vi_method { VI_JACOBI, VI_GAUSS_SEIDEL, VI_POLICY };

/* The GPU sweep kernels ("kinds", kernels/vi/sweep_kernels.cuh).  The
 * numbers are stable: tests, benchmarks (valiter_gpu_set_kernel,
 * valiter_gpu_last_kind) and WARPEX_VI_KERNEL name kinds by them.
 * valiter_solve_gpu chooses one itself (VI_KERNEL_AUTO); a pinned kind it
 * cannot run on the system at hand falls back as kernels/vi/solve.cu says
 * (e.g. a packed kind on a system that cannot be packed).  Every kind gives
 * the same values (in-place kinds: sound, not bit-identical).  Kinds marked
 * "measurement" are never chosen automatically (kernels/vi/sweep_variants.cu). */
enum vi_kernel {
    VI_KERNEL_AUTO = 0,
    VI_KERNEL_CHOICES = 1,               /* measurement: G lanes per state over its choices */
    VI_KERNEL_ENTRIES = 2,               /* measurement: G lanes per state over each choice's entries */
    VI_KERNEL_TILES = 3,                 /* tiles, 64-bit offsets (when 32-bit ones do not fit) */
    VI_KERNEL_TILES_6B = 4,              /* measurement: kind 3 capped for 6 blocks per SM */
    VI_KERNEL_TILES2 = 5,                /* measurement: tiles2, Jacobi (kind 7's Jacobi twin) */
    VI_KERNEL_TILES2_LATE = 6,           /* measurement: kind 5 without its early loads */
    VI_KERNEL_TILES2_INPLACE = 7,        /* tiles2 in place: unpacked VI_GAUSS_SEIDEL */
    VI_KERNEL_PACKED_EVICT = 8,          /* packed, evict-first loads */
    VI_KERNEL_PACKED_INPLACE_EVICT = 9,  /* packed in place, evict-first */
    VI_KERNEL_PACKED_CACHED = 10,        /* packed, cached loads */
    VI_KERNEL_PACKED_INPLACE_CACHED = 11,/* packed in place, cached */
    VI_KERNEL_PACKED_AHEAD = 12,         /* measurement: packed, entry words a tile ahead */
    VI_KERNEL_PACKED_AHEAD_INPLACE = 13, /* measurement: kind 12 in place */
    VI_KERNEL_PERSIST_CACHED = 14,       /* persistent packed, cached loads */
    VI_KERNEL_PERSIST_EVICT = 15,        /* persistent packed, evict-first */
    VI_KERNEL_TILES3 = 16,               /* tiles3: unpacked Jacobi */
    VI_KERNEL_TILES3_PERSIST = 17,       /* measurement: tiles3, persistent */
    VI_KERNEL_LAST = VI_KERNEL_TILES3_PERSIST
};

/* Knobs of the GPU solvers for measurements and tests (all zero: the
 * defaults).  Library code never reads the environment: the CLI fills
 * these from the variables documented in docs/tuning.md. */
struct vi_gpu_tuning {
    enum vi_kernel kernel;   /* pinned sweep kernel (VI_KERNEL_AUTO: chosen) */
    int kernel_group;        /* kinds 1 and 2: lanes per state (0: 32)       */
    int persist_blocks;      /* persistent and tiles3 sweeps: blocks per SM at
                                most (0: as many as fit)                     */
    int pi_blocks;           /* VI_POLICY's BiCGSTAB: blocks per SM at most
                                (0: as many as fit)                          */
    FILE *pi_trace;          /* VI_POLICY: per-phase device times are written
                                here (NULL: not traced)                      */
};

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
    uint64_t pi_sweeps;      /* VI_POLICY: step 1's sweeps at most (0:
                                VI_PI_SWEEPS; tests use 1 to reach the policy
                                steps on small systems)                       */
    struct vi_gpu_tuning gpu; /* GPU only: kernel pins and caps (above)      */
    const uint32_t *watch;   /* n_watch system states (see WATCHED STATES);
                                NULL/0: the rule at every state            */
    uint64_t n_watch;
};

struct vi_stats {
    uint64_t iterations;     /* sweeps done (VI_POLICY: every application of
                                the whole operator, see below)                */
    uint64_t products;       /* VI_POLICY: products with one policy's matrix */
    uint64_t policy_rounds;  /* VI_POLICY: policies evaluated (step 2)       */
    int certified;           /* VI_POLICY: 1 when the certificate gave the
                                answer, 0 when interval iteration did        */
    double seconds;          /* wall time of the solve (GPU: incl. transfers) */
    double sweep_seconds;    /* GPU: mean device time per sweep; CPU: mean    */
    uint64_t bytes_per_sweep;/* bytes a sweep must stream (for bandwidth)     */
    uint64_t level_sweeps;   /* level solves: sweeps of single levels, summed */
    uint64_t guesses;        /* optimistic VI: upper-bound guesses made      */
    uint64_t groups;         /* GPU level solve: groups of levels uploaded
                                one after the other (1: all fitted at once);
                                a level too big for the budget alone is swept
                                in chunks and counts once per chunk upload  */
};

/* CERTIFIED POLICY ITERATION (par->method == VI_POLICY, hi != NULL, absolute
 * rule).  Interval iteration needs as many sweeps as the slowest mode of
 * the operator takes to shrink by epsilon (consensus N=6 K=2: 5 069); policy
 * iteration needs a handful of linear solves with ONE choice per state,
 * which a Krylov method does in a few hundred products with that sparse
 * matrix.  The answer is not trusted but proved: the bounds it returns
 * satisfy F(l) >= l and F(u) <= u state by state, which in these systems
 * (the property layer leaves no end component in which a scheduler could
 * stay forever without cost, so every scheduler that is not proper has an
 * infinite cost: Bertsekas and Tsitsiklis's stochastic shortest path
 * conditions) puts the unique fixpoint x* between them: F^k(l) rises to x*,
 * F^k(u) falls to x*.  As for interval iteration, "proved" assumes the
 * computed F equals the exact one (rounding is not accounted for).
 * Both twins follow these steps; they differ only in the order of the
 * additions inside dot products, so CPU and GPU bounds are not bit-identical
 * but each certified (they overlap and both hold x*).
 *   1. Interval iteration (Jacobi, as above) for at most K = VI_PI_SWEEPS
 *      sweeps (par->pi_sweeps when set); when it converges within them that
 *      is the answer (no policy step, certified = 0: identical to
 *      VI_JACOBI).  With K >= 2 it runs in two parts, K/2 sweeps and K -
 *      K/2, and g1, g2 = the largest hi - lo after each; when g2 < g1 and
 *      (K - K/2) ln(g2 / epsilon) / ln(g1 / g2) <= VI_PI_CONTINUE (the
 *      sweeps still needed if the gap keeps shrinking at that rate),
 *      interval iteration simply goes on to the end (step 5 without the
 *      policy steps: policy_rounds = 0, certified = 0).
 *   2. Policy rounds, at most VI_PI_ROUNDS.  v = the lower bound.  sigma =
 *      the greedy policy of v: per state the first choice (in choice order)
 *      whose value b[c] + sum p x[t] on v is the best (max or min).  Then
 *      x = the solution of (I - P_sigma) x = b_sigma by BiCGSTAB from x = v
 *      (below, tolerance VI_PI_TOL).  Improvable states: those where some
 *      choice's value on x beats x[s] by more than VI_PI_IMPROVE *
 *      epsilon * (1 + |x[s]|) (smaller gains are the solve's noise) (max: above, min: below); if none, step 3; else sigma
 *      switches to the best choice (first in choice order) AT THOSE STATES
 *      ONLY and the next round solves from v = x.  After the last round x
 *      goes on to step 3 as it is (the certificate decides).
 *   3. w, a bound on the expected number of steps: gamma = epsilon / 2;
 *      N(s) = the choices c of s with value on x within gamma of x[s]
 *      (max: >= x[s] - gamma, min: <= x[s] + gamma; sigma's choice is in
 *      it); tau = sigma; at most VI_PI_W_ROUNDS rounds: w = the solution of
 *      (I - P_tau) w = 1 by BiCGSTAB from w = 1 (tolerance VI_PI_W_TOL);
 *      tau switches at every state where some c in N(s) has sum p w[t]
 *      greater than tau's by more than VI_PI_IMPROVE_W * (1 + tau's) to the
 *      first such c with the largest sum; no switch ends the rounds.  When
 *      a w solve after the first fails, the previous round's w goes on.
 *      A non-finite or non-positive w at some state fails the method (step
 *      5; w >= 1 in exact arithmetic, but the solve's tolerance allows w a
 *      hair below 1 where all mass leaves at once).
 *   4. delta = epsilon / (2 max w), l = x - delta w, u = x + delta w.  One
 *      sweep (as interval iteration's, same arithmetic) gives F(l) and
 *      F(u).  If F(l)[s] >= l[s] at every state, lo = max(lo, F(l)); if
 *      F(u)[s] <= u[s] at every state, hi = min(hi, F(u)) (each half is
 *      proved on its own).  Both proved and hi - lo <= epsilon everywhere:
 *      done, certified = 1.  (Why it holds: for sigma optimal and w the
 *      largest expected time over near-tied choices, F(l) >= l + delta and
 *      F(u) <= u at every state in exact arithmetic, up to the error of x.)
 *   5. Otherwise, and whenever a BiCGSTAB solve breaks down (a zero
 *      denominator, a non-finite value) or misses its tolerance within
 *      VI_PI_KRYLOV_MAX iterations: interval iteration (Jacobi) from the
 *      current lo and hi until the stopping rule, certified = 0.  The sweep
 *      budget max_iterations counts every sweep of steps 1, 2 (one per
 *      greedy policy), 4 and 5.
 * BiCGSTAB (van der Vorst 1992) for A y = c, A = I - P (y = A y computed as
 * y[s] - sum over the policy's entries): r = c - A y; shadow residual
 * rh[i] = 0.5 + 0.5 * (splitmix64(i + 1) >> 11) * 2^-53 (the same on both
 * twins; rh = r breaks down at once here: r's support moves); rho = alpha
 * = omega = 1, p = v = 0; each iteration: rho1 = (rh, r), beta = (rho1 /
 * rho) (alpha / omega), p = r + beta (p - omega v), v = A p, alpha = rho1 /
 * (rh, v), s = r - alpha v; if ||s||_2 <= tol ||c||_2: y += alpha p, stop;
 * t = A s, omega = (t, s) / (t, t), y += alpha p + omega s, r = s - omega
 * t, rho = rho1; stop when ||r||_2 <= tol ||c||_2.  Two products with P per
 * iteration plus one for the first residual (stats->products). */
#define VI_PI_SWEEPS 200
#define VI_PI_CONTINUE 1000
#define VI_PI_ROUNDS 30
#define VI_PI_TOL 1e-11
#define VI_PI_IMPROVE 1e-4
#define VI_PI_W_ROUNDS 8
#define VI_PI_W_TOL 1e-6
#define VI_PI_IMPROVE_W 1e-9
#define VI_PI_KRYLOV_MAX 5000

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

/* OPTIMISTIC VALUE ITERATION (Hartmanns and Kaminski, "Optimistic Value
 * Iteration", CAV 2020; CPU and GPU twins, an addition to the contract
 * above).
 * Interval iteration moves both bounds every sweep, and the upper one
 * often converges slowly from its trivial start; OVI iterates the lower
 * bound alone, then guesses an upper bound just above it and proves the
 * guess.  lo (n_states) holds a lower bound on entry, hi an upper bound
 * (+INFINITY allowed: none known, e.g. for expected rewards); on return
 * both are tighter bounds that meet the stopping rule at every state, or
 * with par->watch at every watched state.  Rounds:
 *   1. Iteration: sweeps lo = max(lo, F(lo)) until no state changes by more
 *      than err (the plain-VI rule, absolute or relative; err = epsilon in
 *      the first round).
 *   2. Guess: u = min(hi, lo + epsilon), relative: lo (1 + epsilon) where
 *      lo > 0.
 *   3. Verification: at most max(VI_OVI_VERIFY_MIN, VI_OVI_VERIFY_FACTOR x
 *      the sweeps so far) sweeps of both lo = max(lo, F(lo)) and u = min(u,
 *      F(u)) (one pass over the entries, interval iteration's arithmetic;
 *      the min lets the guess settle where a state's value hardly leaks
 *      out, which a plain F(u) would undo by rounding).  When a sweep finds
 *      F(u) <= u at every state, hi = min(hi, F(u)); the rule then holds
 *      (hi <= the guess <= lo + epsilon) and the solve ends.
 *      When F(u) < lo somewhere, or the sweeps run out, err = err / 2 and
 *      the next round starts from the current lo (step 1).
 * Why the bounds are sound: lo only ever grows from a lower bound by F, so
 * it stays below the least fixpoint x* (F is monotone).  A u with F(u) <= u
 * is a pre-fixpoint: the least fixpoint lies below every pre-fixpoint
 * (Knaster-Tarski), so x* <= u, and x* <= F(u) <= u by monotonicity.  In
 * a Gauss-Seidel sweep (in place) each new u(s) is F applied to a vector
 * that is >= the final one wherever it was not yet updated, so when no
 * state's u went up, F(final u) <= final u as well.  As for interval
 * iteration, "proved" assumes the computed F equals the exact one.  The
 * property layer's systems have one fixpoint (no end components left
 * where a scheduler could stay without cost), so lo converges to x* and
 * the guesses come ever closer above it; that one is then verified is the
 * method's bet, not a theorem: more than max_iterations sweeps in all
 * (steps 1 and 3) is WX_ELIMIT, as for the other solvers.
 * stats->guesses counts the guesses.  Jacobi sweeps give
 * bit-identical bounds for any number of threads, and the GPU twin's
 * Jacobi sweeps the same bounds, sweep counts and guesses as the CPU's
 * (the same sweeps, rounding and decisions: kernels/vi/ovi.cu); the
 * GPU's in-place sweeps (VI_GAUSS_SEIDEL) are sound, not bit-identical.
 * The GPU's answers for an empty system, or bounds that already meet the
 * rule, are the CPU's (no sweep); WX_EINPUT in a build without CUDA. */
int valiter_solve_ovi_cpu(const struct vi_system *sys, const struct vi_params *par, double *lo,
                          double *hi, struct vi_stats *stats, struct wx_error *err);
int valiter_solve_ovi_gpu(const struct vi_system *sys, const struct vi_params *par, double *lo,
                          double *hi, struct vi_stats *stats, struct wx_error *err);

/* Optimistic value iteration with the iteration phase block by block
 * (Gauss-Seidel, CPU): the blocks of valiter_solve_blocks_cpu (SCCs in
 * topological order, each reading only itself and the blocks before it)
 * have their lower bounds swept one block after the other, each until it
 * settles (its sweep moves it by err at most, and the distance left,
 * estimated from the contraction between sweeps, is within
 * VI_OVI_SETTLED_MARGIN err; a block of one state without a self-loop: one
 * sweep), so settled blocks are not swept again; the
 * verification phase then sweeps all states, as above, and so do the
 * stopping rule and the soundness argument (only the order of the
 * lower-bound updates differs, and every one of them is F applied to lower
 * bounds).  stats->iterations counts state updates over the number of
 * states, rounded up.  Not bit-identical to valiter_solve_ovi_cpu. */
int valiter_solve_ovi_blocks_cpu(const struct vi_system *sys, const struct vi_params *par,
                                 const uint64_t *block_start, uint64_t n_blocks, double *lo,
                                 double *hi, struct vi_stats *stats, struct wx_error *err);

/* SOUND VALUE ITERATION (Quatmann and Katoen, "Sound Value Iteration",
 * CAV 2018; CPU only, an addition to the twin contract).  No upper-bound
 * phase and no guess: from x = 0, y = 1 every sweep computes per state the
 * pair of one choice c,
 *     x'(s) = b[c] + sum p x(t)   (what is collected within k sweeps),
 *     y'(s) =        sum p y(t)   (the probability to be still inside),
 * so (x, y) belongs to some k-step scheduler.  Let v be the fixpoint.
 * Any scheduler's pair gives v(s) >= x(s) + y(s) min v (max) or
 * v(s) <= x(s) + y(s) max v (min); at the state where v is smallest
 * (largest) that solves to min v >= min_s x/(1-y) (max v <= max_s x/(1-y))
 * once every y < 1.  The other side needs the choices: c is the best at
 * the weight w = the current upper bound u (max) or lower bound l (min),
 * value x + w y (an infinite w orders by y, then x; ties: the smaller y);
 * the DECISION VALUE d is the max (min: min) over all sweeps and states of
 * (x_a - x_c) / (y_c - y_a) over the choices a with y_a < y_c, the weight
 * at which a would overtake c.  Every choice made is then the best for
 * every weight in [d, u] (min: [l, d]), so x + w y = F^k(w) there; with
 * w = u that is >= F^k(v) = v, and if max v > d, with w = max v the same
 * argument as above gives max v <= max_s x/(1-y).  After each sweep with
 * every y < 1:
 *     max: l = max(l, min_s x/(1-y)),         u = min(u, max(d, max_s x/(1-y)))
 *     min: l = max(l, min(d, min_s x/(1-y))), u = min(u, max_s x/(1-y))
 * (l, u start as the smallest entry of lo and the largest of hi: 0 and 1
 * for probabilities, +infinity allowed for rewards); each state's bounds
 * are x + y l and x + y u, kept within lo and hi as given.  The solve
 * stops after the first sweep where they meet the stopping rule at every
 * state (with par->watch: every watched state), the paper's rule y (u - l)
 * <= epsilon on this interval contract.  The same holds for in-place
 * (Gauss-Seidel) sweeps: a pair read from a successor is one of a
 * scheduler stopped earlier, and the arguments above hold for any
 * stopping.  The property layer's systems leave every scheduler's y to 0
 * (no end components where one could stay without cost), which is what
 * ends the solve even where d keeps u up; more than max_iterations sweeps
 * is WX_ELIMIT.  As for interval iteration, "sound" assumes the computed
 * sums equal the exact ones.  Jacobi sweeps give bit-identical bounds for
 * any number of threads (the per-thread results are minima and maxima). */
int valiter_solve_svi_cpu(const struct vi_system *sys, const struct vi_params *par, double *lo,
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
