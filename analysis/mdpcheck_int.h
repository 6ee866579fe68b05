/*
 * mdpcheck_int.h -- what the files of the property layer share (internal
 * to analysis/mdpcheck*.c): the state classes, the work-array pool, the
 * context of one check, and the steps of mdpcheck.h's pipeline, one file
 * each.
 */
#ifndef WX_MDPCHECK_INT_H
#define WX_MDPCHECK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "mdpcheck.h"

enum { CLS_NO, CLS_YES, CLS_MAYBE, CLS_INF, CLS_SKIP };

/* Attempts at a certified reward upper bound before giving up. */
#define BOUND_ATTEMPTS 12

/* ---- large work arrays ----
 * The arrays of the system construction run to hundreds of megabytes on
 * models of 10^6..10^7 states; with options.huge_pages they are advised
 * transparent huge pages (util/hugealloc.h: first-touch faults divided by
 * 512 where THP is on; off by default because on small machines the first
 * touch of a huge page can be slower than 512 small ones). */
/* Work-array slots of the pool (struct ctx), in the order of first use
 * (the order mdpcheck_prepare warms them in).  The sub-MDP of the MEC
 * decomposition and the system are alive at the same time (build_system). */
enum {
    POOL_SUB_STATE_START,  /* (n_states + 1) x 8 */
    POOL_SUB_ECOUNT,       /* (n_states + 1) x 8 */
    POOL_SUB_CHOICE_START, /* (n_choices + 1) x 8 */
    POOL_SUB_TARGETS,      /* n_entries x 4 */
    POOL_STATE_START,      /* (n_states + 1) x 8: the system's */
    POOL_ECOUNT,           /* (n_states + 1) x 8 */
    POOL_CHOICE_START,     /* (n_choices + 1) x 8 */
    POOL_TARGETS,          /* n_entries x 4 */
    POOL_PROBS,            /* n_entries x 8 */
    POOL_B,                /* n_choices x 8 */
    POOL_SLO,              /* n_states x 8 */
    POOL_SHI,              /* n_states x 8 */
    POOL_SLOTS
};

struct ctx {
    const struct mdp *m;
    const struct mdp_rewards *rew;
    const struct property *p;
    const struct mdpcheck_options *o;
    const uint8_t *initial; /* n_states, or NULL */
    int is_reward, maximize;
    uint8_t *cls;       /* n_states */
    uint8_t *target;    /* n_states */
    uint8_t *ok;        /* n_choices: usable choice (Rmin: no risk of infinity) */
    /* the maybe states in order: loc[s] = rank of maybe state s (UINT32_MAX
     * for the others), back[k] = the k-th maybe state (n_maybe used) */
    uint32_t *loc, *back;
    uint64_t n_maybe;
    /* the system */
    uint32_t *sid;      /* n_states: system state of a maybe state */
    uint64_t *state_start, *choice_start;
    uint64_t *block_start, n_blocks; /* after order_topologically: SCCs */
    uint64_t *level_start, n_levels; /* after order_topologically: levels (valiter.h) */
    uint8_t *level_acyclic;
    uint32_t *targets;
    double *probs, *b;
    struct vi_system sys;
    double mec_seconds;
    /* Work arrays allocated (and touched, as far as time allowed) ahead by
     * mdpcheck_prepare, taken by the construction instead of fresh ones
     * (pool_take); each is a malloc block of upper-bound size, owned by the
     * pool until taken.  Empty when not prepared warm. */
    void *pool[POOL_SLOTS];
    size_t pool_bytes[POOL_SLOTS];
    /* pool blocks page-locked through options.pin (released by xfree) */
    void *pinned[POOL_SLOTS];
    void (*unpin)(void *p);
    void *later[8];      /* blocks freed at the end (mdpcheck_job_free) */
    int n_later;
};


static inline double choice_reward(const struct ctx *x, uint32_t s, uint64_t c)
{
    double r = 0;
    if (x->rew && x->rew->state)
        r += x->rew->state[s];
    if (x->rew && x->rew->choice)
        r += x->rew->choice[c];
    return r;
}

static inline void trace(const struct mdpcheck_options *o, const char *event)
{
    if (o->trace)
        o->trace(o->trace_arg, event);
}

static inline int oom(struct wx_error *err)
{
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (model checking)");
}

/* ---- parallel loops of the system construction ----
 * mdpc_par_for(T, n, fn, arg) runs fn(arg, lo, hi, i) on the chunks i = 0 ..
 * mdpc_par_chunks(T, n) - 1 of [0, n) (contiguous, in order; the calling thread
 * takes the first).  Each pass writes only the items of its chunk, at
 * positions a sequential scan fixed before it, or into its own slot i of a
 * per-chunk array, so the result does not depend on the number of
 * threads. */
typedef void (*par_fn)(void *arg, uint64_t lo, uint64_t hi, int chunk);

#define PAR_MAX 64
#define PAR_GRAIN 4096 /* items per thread at least: below, threads cost more than they save */

/* In-place exclusive prefix sum of a[0..n) into a[0..n], a[n] = total. */
static inline void exclusive_scan(uint64_t *a, uint64_t n)
{
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = a[i];
        a[i] = acc;
        acc += v;
    }
    a[n] = acc;
}

struct mdpcheck_job {
    struct ctx x;
    uint8_t *allowed, *yes, *no;
    double *lo, *hi;          /* the result's arrays, handed to finish */
    double label_seconds;
};

/* ---- work arrays (mdpcheck_work.c) ---- */
/* free() for any work array: a page-locked block is released first. */
void mdpc_xfree(struct ctx *x, void *p);
/* A block no longer needed, freed at the end rather than now (releasing a
 * page-locked block costs; at the end it overlaps the exit). */
void mdpc_free_later(struct ctx *x, void *p);
/* A pool block of at least bytes for slot, or a fresh one (zeroed when
 * zero: pool blocks always are).  The caller owns the result (free()). */
void *mdpc_pool_take(struct ctx *x, int slot, size_t bytes, int zero);
/* The chunks of a parallel loop of n items (above), and the loop. */
int mdpc_par_chunks(int threads, uint64_t n);
void mdpc_par_for(int threads, uint64_t n, par_fn fn, void *arg);

/* ---- the steps (mdpcheck.h's pipeline) ---- */
/* Step 3 (mdpcheck_system.c): x->sys from the maybe states (x->loc,
 * x->back, x->n_maybe), MECs collapsed for Pmax and Rmin; sets x->sid. */
int mdpc_build_system(struct ctx *x, struct mdpcheck_result *r, struct wx_error *err);
/* Step 3 (and 2a when cut) through options.build_system (mdpcheck_system.c):
 * x->sys, x->sid and the ranks as the host passes would give them; *built 0
 * when the backend declined (x's classes and ranks untouched then). */
int mdpc_build_system_dev(struct ctx *x, int cut, struct mdpcheck_result *r, int *built,
                          struct wx_error *err);
/* Step 3 (mdpcheck_order.c): x->sys renumbered in topological order of its
 * SCCs (x->block_start, x->level_start, x->level_acyclic). */
int mdpc_order_topologically(struct ctx *x, int bfs_inside, struct wx_error *err);

/* Steps 4 to 6 (mdpcheck_solve.c). */
struct fill_pass {
    double *lo, *hi; /* hi may be NULL */
};
/* A parallel pass: lo = 0, hi = 1 (struct fill_pass). */
void mdpc_fill_bounds(void *arg, uint64_t lo, uint64_t hi, int chunk);
/* One solve of sys through the backend, or block by block (topological). */
int mdpc_run_solve(const struct ctx *x, const struct vi_system *sys, const struct vi_params *par,
                   double *lo, double *hi, struct vi_stats *st, struct wx_error *err);
/* Steps 4 and 5: the bounds *slo, *shi (system states; *shi NULL for
 * plain VI; allocated, also on failure) solved through the backend. */
int mdpc_solve(struct ctx *x, struct mdpcheck_result *r, double **slo, double **shi,
               struct wx_error *err);
/* A certified upper bound w for a reward system (mdpcheck.h, step 4). */
int mdpc_reward_upper_bound(struct ctx *x, const struct vi_params *par, double *w,
                            struct mdpcheck_result *r, struct wx_error *err);
/* Every state's value from its class and the system's solution (a
 * parallel pass: each state is written once). */
struct values_pass {
    const struct ctx *x;
    const double *slo, *shi;
    struct mdpcheck_result *r;
};
void mdpc_values_fill(void *arg, uint64_t lo, uint64_t hi, int chunk);
/* The scheduler (mdpcheck.h, step 6; mdpcheck_sched.c) from the values v. */
int mdpc_extract_scheduler(struct ctx *x, const double *v, struct mdpcheck_result *r,
                           struct wx_error *err);

#endif
