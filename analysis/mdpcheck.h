/*
 * mdpcheck.h -- the property layer of MDP model checking: one property
 * (analysis/prop.h) on one MDP with labels and rewards, solved soundly.
 *
 * PIPELINE (mdpcheck_run):
 *  1. phi1/phi2 -> allowed A (NULL for F) and target T.
 *  2. Graph precomputation through the backend's precompute function
 *     (valiter.h; precompute2 for the two sets of Pmax and Pmin in one
 *     call when set): Pmax: S0 = Prob0A, S1 = Prob1E;  Pmin: S0 = Prob0E,
 *     S1 = Prob1A;  Rmin: Prob1E decides finite (Pmax(F T) = 1) vs infinite;
 *     Rmax: Prob1A does (Pmin(F T) = 1).  Reward targets have value 0,
 *     states outside the Prob1 set value +infinity (PRISM's convention).
 *  2a. With options.initial_only (and initial given, no scheduler asked
 *     for): the maybe states are cut down to those reachable from the
 *     initial states through maybe states (analysis/relevant.h); the
 *     others are not solved.  When no initial state is a maybe state the
 *     precomputation has decided the answer: no system, no sweep.
 *  3. The maybe-state system (struct vi_system): maybe states renumbered;
 *     for Pmax the MECs among the maybe states are collapsed into one state
 *     each (their internal choices dropped), so that the upper bound
 *     converges (Haddad-Monmege; Baier et al., CAV 2017); for Rmin the
 *     choices that risk an infinite-reward state are dropped and the MECs of
 *     zero-reward choices are collapsed, which makes the fixpoint unique.
 *     Pmin and Rmax maybe-states contain no end components by construction.
 *     For Gauss-Seidel on the CPU the system is renumbered so that every
 *     SCC comes after the SCCs it leads to (reverse topological order of the
 *     SCC graph): a sweep then passes values down chains within one sweep.
 *     With options.topological the SCCs are solved one after the other,
 *     bottom first, each until its own states meet the stopping rule
 *     (valiter_solve_blocks_cpu), or with options.solve_levels level by
 *     level (valiter.h: all SCCs of one level at once; the GPU's way).
 *     The order sorts the SCCs by level (stably, so each level's states
 *     are contiguous), which keeps it a valid order for both.
 *     The system (and the sub-MDP handed to the MEC decomposition) is
 *     built in two parallel passes, count then fill at prefix-summed
 *     offsets (options.threads; the layout does not depend on them); the
 *     MEC decomposition is options.mec (mec_cpu or mec_gpu: identical
 *     results, canonical ids).  It runs on a thread while the system is
 *     built as if there were no MEC; when it finds MECs the system is
 *     rebuilt with them collapsed (same result as building it after).
 *  4. Bounds: lower 0; upper 1 for probabilities; for rewards an upper
 *     bound is computed and CERTIFIED: plain value iteration on the system
 *     with every choice's reward raised by delta gives w with
 *     F(w) <= w (checked, sweep by sweep of the original operator F); in
 *     these systems every scheduler that satisfies that inequality reaches
 *     the target almost surely, so w >= the true value.
 *     With options.optimistic or options.svi no upper bound is computed
 *     (+infinity): optimistic and sound value iteration prove their own
 *     (valiter.h).
 *  5. Interval iteration (sound, default), optimistic value iteration
 *     (sound, options.optimistic), sound value iteration (sound,
 *     options.svi) or plain value iteration
 *     (unsound) through the backend's solve function.  With initial_only
 *     the initial states' system states are its watch list (valiter.h:
 *     WATCHED STATES): the CPU solve stops once their intervals meet the
 *     stopping rule.
 *  6. Values of every state (lo, hi; equal for plain VI), and on request a
 *     memoryless scheduler: on maybe states an optimal choice (within the
 *     stopping tolerance) chosen by a backward search from the target so
 *     that the chosen choices keep reaching it (needed for Pmax and Rmin);
 *     on Pmax's S1 the Prob1E attractor choice; on Pmin's S0 a choice that
 *     stays in S0.
 *
 * THREAD SAFETY: reentrant; the inputs are only read.
 */
#ifndef WX_MDPCHECK_H
#define WX_MDPCHECK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../graph/mdp.h"
#include "../graph/mdp_lab.h"
#include "../util/error.h"
#include "bounded.h"
#include "mec.h"
#include "prop.h"
#include "scc.h"
#include "sysbuild.h"
#include "valiter.h"

typedef int (*mdpcheck_precompute_fn)(const struct mdp *m, const uint8_t *allowed,
                                      const uint8_t *target, enum vi_precomp which,
                                      uint8_t *out, struct wx_error *err);
/* Two precomputations with the same m, allowed and target in one call
 * (out_a, out_b as two precompute calls would fill them): the GPU uploads
 * the MDP and builds its predecessor index once, and a Prob1E after a
 * Prob0A starts from the Prob0A search's reachable set. */
typedef int (*mdpcheck_precompute2_fn)(const struct mdp *m, const uint8_t *allowed,
                                       const uint8_t *target, enum vi_precomp a, uint8_t *out_a,
                                       enum vi_precomp b, uint8_t *out_b, struct wx_error *err);
typedef int (*mdpcheck_solve_fn)(const struct vi_system *sys, const struct vi_params *par,
                                 double *lo, double *hi, struct vi_stats *stats,
                                 struct wx_error *err);
/* The MEC decomposition of step 3 (analysis/mec.h's contract: canonical
 * ids, choice_in).  It runs on a sub-MDP of the maybe states built here, so
 * mec_cpu and mec_gpu, which return identical results, give identical
 * systems and answers. */
/* Topological solving level by level (valiter_solve_levels_cpu/_gpu). */
typedef int (*mdpcheck_levels_fn)(const struct vi_system *sys, const struct vi_params *par,
                                  const struct vi_levels *lv, double *lo, double *hi,
                                  struct vi_stats *stats, struct wx_error *err);
/* The SCC decomposition of the topological order (analysis/scc.h:
 * scc_cpu or scc_gpu, identical results). */
typedef int (*mdpcheck_scc_fn)(const struct csr *g, struct scc_result *out, struct wx_error *err);
typedef int (*mdpcheck_mec_fn)(const struct mdp *m, struct mec_result *out,
                               struct wx_error *err);

typedef int (*mdpcheck_system_fn)(struct mdpcheck_sysbuild *q, struct wx_error *err);
/* Step 2a by the backend (sysbuild.h; may decline, q->done 0). */
typedef int (*mdpcheck_cut_fn)(struct mdpcheck_cut *q, struct wx_error *err);

struct mdpcheck_options {
    int sound;               /* 1: interval iteration; 0: plain VI (unsound) */
    enum vi_method solver;   /* CPU: Jacobi or Gauss-Seidel; VI_POLICY: the
                                backend's certified policy iteration          */
    double epsilon;          /* > 0                                           */
    int relative;
    uint64_t max_iterations; /* per solve call                                */
    int threads;             /* CPU Jacobi threads, 0 = auto                  */
    int scheduler;           /* fill result.choice                            */
    int initial_only;        /* solve only for the initial states (step 2a;
                                ignored without initial or with scheduler):
                                see mdpcheck_result.initial_only            */
    int optimistic;          /* sound only: optimistic value iteration
                                through solve_ovi (NULL: valiter_solve_ovi_cpu,
                                whatever solve says; solver Jacobi or
                                Gauss-Seidel); rewards need no step-4 upper
                                bound then                                  */
    int ovi_blocks;          /* optimistic with Gauss-Seidel on the CPU (no
                                solve_ovi): SCC by SCC
                                (valiter_solve_ovi_blocks_cpu)             */
    int svi;                 /* sound only: sound value iteration
                                (valiter_solve_svi_cpu), as optimistic      */
    int topological;         /* solve SCC by SCC: valiter_solve_blocks_cpu, or
                                level by level through solve_levels when set;
                                ignores solver, threads, solve               */
    mdpcheck_levels_fn solve_levels; /* NULL: SCC blocks on the CPU          */
    uint64_t device_memory;  /* vi_params.device_memory (GPU level solve)    */
    uint64_t pi_sweeps;      /* vi_params.pi_sweeps (solver VI_POLICY)        */
    struct vi_gpu_tuning vi_gpu; /* vi_params.gpu (GPU kernel pins and caps)  */
    int huge_pages;          /* advise transparent huge pages for the large
                                work arrays (mdpcheck.c: off by default)     */
    /* Page-locking (kernels/hostpin.h; both NULL: none): the prepared work
     * arrays that go to the GPU are locked on a thread while the
     * precomputation runs, and unlocked before they are freed. */
    int (*pin)(void *p, size_t bytes);
    void (*unpin)(void *p);
    mdpcheck_precompute_fn precompute; /* NULL: valiter_precompute_cpu       */
    mdpcheck_precompute2_fn precompute2; /* NULL: two precompute calls where
                                            a property needs two sets          */
    mdpcheck_solve_fn solve;           /* NULL: valiter_solve_cpu            */
    mdpcheck_solve_fn solve_ovi;       /* optimistic: NULL: valiter_solve_ovi_cpu */
    mdpcheck_mec_fn mec;               /* NULL: mec_cpu                      */
    mdpcheck_scc_fn scc;               /* NULL: scc_cpu                      */
    mdpcheck_system_fn build_system;   /* NULL: the system built on the host;
                                          used for Pmin and Rmax, and for Pmax
                                          and Rmin when no MEC is found      */
    mdpcheck_cut_fn cut;               /* NULL: step 2a on the host
                                          (relevant_restrict); used where
                                          build_system is not             */
    bounded_solve_fn bounded;          /* step bounds (propcheck.h); NULL:
                                          bounded_solve                      */
    /* The model's choices and entries on demand.  With host_model set, the
     * model may come as a skeleton: n_states, n_choices, n_entries and
     * state_start, with choice_start, targets and probs NULL (the whole
     * model held elsewhere, e.g. in GPU memory, where the hooks above read
     * it).  Before a step on the host first reads those arrays,
     * host_model(host_model_ctx) is called once to fill them in; the steps
     * that the hooks take over (Pmin and Rmax with build_system) never need
     * them.  NULL: the model is whole. */
    int (*host_model)(void *ctx, struct wx_error *err);
    void *host_model_ctx;
    /* Tracing (off when NULL): called at each phase boundary of
     * mdpcheck_run with a short constant event name, on the calling thread;
     * the CLI prints a timeline from it. */
    void (*trace)(void *arg, const char *event);
    void *trace_arg;
};

struct mdpcheck_result {
    uint64_t n_states;
    double *lo, *hi;         /* n_states values (owned); +INFINITY for an
                                infinite expected reward; lo == hi outside
                                the maybe states (but for those initial_only
                                leaves unsolved, below) and for plain VI   */
    int64_t *choice;         /* n_states local choice numbers, -1 for a
                                state without choice (owned; NULL unless
                                options.scheduler)                          */
    uint64_t n_target, n_yes, n_no, n_maybe, n_infinite;
    /* 1 when solved for the initial states only (options.initial_only
     * applied): then lo/hi are within the stopping rule at the initial
     * states alone; every other state's interval is still sound but may be
     * wider: the maybe states the initial ones do not reach hold the
     * trivial bounds lo = 0, hi = 1 (probabilities) or hi = +INFINITY
     * (rewards: lo = 0 < hi tells them from an infinite value). */
    int initial_only;
    uint64_t n_relevant;     /* maybe states solved: n_maybe, or with
                                initial_only those the initial states reach */
    uint64_t sys_states, sys_choices, sys_entries, mecs_collapsed;
    int system_backend;      /* 1: the system was built by options.build_system */
    int cut_backend;         /* 1: step 2a ran in the backend (options.cut, or
                                build_system with the cut)                  */
    uint64_t blocks;         /* SCCs of the system when ordered (GS, topological) */
    uint64_t levels;         /* topological levels of those SCCs (valiter.h)  */
    uint64_t iterations;     /* sweeps, upper-bound phase included          */
    uint64_t bound_iterations; /* of those, the reward upper-bound phase    */
    double precomp_seconds;  /* labels, Prob0/Prob1                         */
    double build_seconds;    /* system construction incl. MEC collapse      */
    double mec_seconds;      /* of build_seconds, the MEC decomposition     */
    double solve_seconds;    /* numeric solution incl. the bound phase      */
    struct vi_stats stats;   /* of the final solve call                     */
};

/* The whole model m on the host: o->host_model when m is a skeleton
 * (choice_start NULL), else nothing.  WX_ESYSTEM when the hook left it a
 * skeleton; the hook's status otherwise. */
int mdpcheck_need_model(const struct mdpcheck_options *o, const struct mdp *m, struct wx_error *err);

/* Checks p on m.  labels may be NULL (then only true/false/"deadlock"/
 * "init" through initial); rew may be NULL (all rewards 0); initial
 * (n_states bytes) may be NULL.  Fills *r (allocates; mdpcheck_result_free).
 * Returns WX_OK, WX_EINPUT (unknown label, ...), WX_ELIMIT (no convergence
 * within max_iterations, no certified reward bound, out of memory), or the
 * backend's status. */
int mdpcheck_run(const struct mdp *m, const struct mdp_labels *labels,
                 const struct mdp_rewards *rew, const uint8_t *initial,
                 const struct property *p, const struct mdpcheck_options *o,
                 struct mdpcheck_result *r, struct wx_error *err);

void mdpcheck_result_free(struct mdpcheck_result *r);

/* mdpcheck_run in two steps, so that a caller can do the first while it
 * waits for something else (the CLI: for the CUDA context).
 *
 * mdpcheck_prepare does what needs neither the backend nor a device: it
 * evaluates the property's state formulas (target and allowed states:
 * WX_EINPUT for an unknown label), allocates the per-state arrays, and with
 * warm != 0 also allocates the system construction's work arrays at their
 * upper bounds (about 8 x 8 bytes per state, 4 x 8 per choice and 12 per
 * entry; skipped beyond 1/8 of physical memory) and touches their pages on
 * options->threads threads, so that the construction later writes into
 * memory that is already mapped -- until *stop (when not NULL) becomes
 * nonzero: then it returns at once (the rest faults in later, as without
 * warm).  It reads only options->threads, ->huge_pages and ->trace; *job
 * (allocated) holds m, labels, rew, initial and p by reference: they must
 * outlive it.
 *
 * mdpcheck_finish runs the rest with options o (the backend's functions may
 * differ from prepare's options; threads should not) and always consumes
 * the job.  Results are identical to mdpcheck_run's, warm or not.
 * mdpcheck_job_free releases a job that will not be finished (NULL: no-op). */
struct mdpcheck_job;
int mdpcheck_prepare(const struct mdp *m, const struct mdp_labels *labels,
                     const struct mdp_rewards *rew, const uint8_t *initial,
                     const struct property *p, const struct mdpcheck_options *options, int warm,
                     const atomic_int *stop, struct mdpcheck_job **job, struct wx_error *err);
int mdpcheck_finish(struct mdpcheck_job *job, const struct mdpcheck_options *o,
                    struct mdpcheck_result *r, struct wx_error *err);
void mdpcheck_job_free(struct mdpcheck_job *job);

#endif
