/*
 * valiter.c -- the CPU twins of the value-iteration cores (contract:
 * valiter.h): the Prob0/Prob1 graph precomputations and the numeric solver
 * (multi-threaded Jacobi, sequential Gauss-Seidel; interval or plain value
 * iteration).
 *
 * PRECOMPUTATION.  All four sets come from backward searches over a
 * predecessor index (for every state t, the choices with an entry to t):
 *   Prob0A (Pmax = 0): complement of the states that reach T through A by
 *       some choice: one backward BFS from T.
 *   Prob0E (Pmin = 0): complement of the least R with R = T + {s in A with
 *       >= 1 choice, every choice of s has a successor in R}: a BFS with a
 *       per-state count of choices that do not yet hit R.
 *   Prob1A (Pmin = 1): Pmin(s) < 1 iff some path through A \ T reaches a
 *       state of Z = Prob0E (a scheduler can go there with positive
 *       probability and then avoid T for ever; conversely a memoryless
 *       scheduler that misses T with positive probability ends up in such
 *       a state).  So Prob1A is the complement of the backward BFS from Z
 *       through states of A \ T.
 *   Prob1E (Pmax = 1): the nested fixpoint of Forejt et al.: U = all; repeat
 *       { V = backward BFS from T through A using only choices whose
 *       successors all lie in U; U = V } until U is stable.
 * Deadlock states (no choice) are never added by a search that needs a
 * choice, so they reach T only when in T.
 *
 * SOLVER.  A Jacobi sweep computes every state's new value from the previous
 * vector, so its result does not depend on how states are split among
 * threads: single- and multi-threaded runs give bit-identical vectors.
 * Threads own contiguous state ranges of about equal entry counts and meet
 * at a barrier after each sweep; thread 0 then decides whether to stop.  In
 * interval iteration the new lower value is max(old, update) and the new
 * upper value min(old, update): the exact sequences are monotone anyway, and
 * this keeps rounding from ever moving a bound the wrong way.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "valiter.h"
#include "valiter_int.h"
#include "../util/pool.h"
#include "../util/timer.h"

/* ---- precomputation ---- */

struct pred_index {
    uint64_t *start;   /* n_states + 1 */
    uint64_t *choice;  /* n_entries: choices with an entry into the state */
    uint32_t *owner;   /* n_choices: the state of each choice */
};

static void pred_free(struct pred_index *p)
{
    free(p->start);
    free(p->choice);
    free(p->owner);
}

static int pred_build(const struct mdp *m, struct pred_index *p)
{
    uint64_t n = m->n_states;
    p->start = calloc(n + 2, sizeof *p->start);
    p->choice = malloc((m->n_entries ? m->n_entries : 1) * sizeof *p->choice);
    p->owner = malloc((m->n_choices ? m->n_choices : 1) * sizeof *p->owner);
    if (!p->start || !p->choice || !p->owner) {
        pred_free(p);
        return 0;
    }
    for (uint64_t s = 0; s < n; s++)
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            p->owner[c] = (uint32_t)s;
    for (uint64_t e = 0; e < m->n_entries; e++)
        p->start[m->targets[e] + 2]++;
    for (uint64_t t = 0; t < n; t++)
        p->start[t + 2] += p->start[t + 1];
    for (uint64_t c = 0; c < m->n_choices; c++)
        for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
            p->choice[p->start[m->targets[e] + 1]++] = c;
    return 1;
}

/* Backward search from the states with in_r set: a state s joins when
 * eligible[s] and some choice c of s with (usable == NULL || usable[c]) has
 * an entry into R.  in_r is updated in place; queue has n_states room. */
static void backward_exists(const struct pred_index *p, uint64_t n, uint8_t *in_r,
                            const uint8_t *eligible, const uint8_t *usable, uint32_t *queue)
{
    uint64_t head = 0, tail = 0;
    for (uint64_t s = 0; s < n; s++)
        if (in_r[s])
            queue[tail++] = (uint32_t)s;
    while (head < tail) {
        uint32_t t = queue[head++];
        for (uint64_t i = p->start[t]; i < p->start[t + 1]; i++) {
            uint64_t c = p->choice[i];
            uint32_t s = p->owner[c];
            if (in_r[s] || !eligible[s] || (usable && !usable[c]))
                continue;
            in_r[s] = 1;
            queue[tail++] = s;
        }
    }
}

int valiter_precompute_cpu(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                           enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    uint64_t n = m->n_states;
    if (n == 0)
        return WX_OK;
    struct pred_index p;
    if (!pred_build(m, &p))
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (precomputation)");
    uint8_t *r = calloc(n, 1), *elig = malloc(n), *usable = NULL;
    uint32_t *queue = malloc(n * sizeof *queue);
    uint64_t *pending = NULL;
    int rc = WX_OK;
    if (!r || !elig || !queue) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (precomputation)");
        goto done;
    }
    /* eligible: allowed and not a target (targets are in R from the start) */
    for (uint64_t s = 0; s < n; s++)
        elig[s] = (!allowed || allowed[s]) && !target[s];

    switch (which) {
    case VI_PMAX0:
        memcpy(r, target, n);
        backward_exists(&p, n, r, elig, NULL, queue);
        for (uint64_t s = 0; s < n; s++)
            out[s] = !r[s];
        break;
    case VI_PMIN0:
    case VI_PMIN1: {
        /* Prob0E's complement R: s joins when all its choices hit R */
        pending = malloc(n * sizeof *pending);
        usable = calloc(m->n_choices ? m->n_choices : 1, 1); /* here: "hits R" */
        if (!pending || !usable) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (precomputation)");
            goto done;
        }
        uint64_t head = 0, tail = 0;
        for (uint64_t s = 0; s < n; s++) {
            pending[s] = m->state_start[s + 1] - m->state_start[s];
            r[s] = target[s];
            if (r[s])
                queue[tail++] = (uint32_t)s;
        }
        while (head < tail) {
            uint32_t t = queue[head++];
            for (uint64_t i = p.start[t]; i < p.start[t + 1]; i++) {
                uint64_t c = p.choice[i];
                if (usable[c])
                    continue;
                usable[c] = 1;
                uint32_t s = p.owner[c];
                if (--pending[s] == 0 && !r[s] && elig[s]) {
                    r[s] = 1;
                    queue[tail++] = s;
                }
            }
        }
        if (which == VI_PMIN0) {
            for (uint64_t s = 0; s < n; s++)
                out[s] = !r[s];
            break;
        }
        /* Prob1A: Z = complement of r; grow Z backwards through A \ T */
        for (uint64_t s = 0; s < n; s++)
            r[s] = !r[s];
        backward_exists(&p, n, r, elig, NULL, queue);
        for (uint64_t s = 0; s < n; s++)
            out[s] = !r[s];
        break;
    }
    case VI_PMAX1: {
        usable = malloc(m->n_choices ? m->n_choices : 1);
        uint8_t *u = malloc(n);
        if (!usable || !u) {
            free(u);
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (precomputation)");
            goto done;
        }
        memset(u, 1, n);
        for (;;) {
            for (uint64_t c = 0; c < m->n_choices; c++) {
                uint8_t ok = 1;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1] && ok; e++)
                    ok = u[m->targets[e]];
                usable[c] = ok;
            }
            memcpy(r, target, n);
            backward_exists(&p, n, r, elig, usable, queue);
            int changed = memcmp(r, u, n) != 0;
            memcpy(u, r, n);
            if (!changed)
                break;
        }
        for (uint64_t s = 0; s < n; s++)
            out[s] = u[s];
        free(u);
        break;
    }
    default:
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown precomputation %d", (int)which);
    }
done:
    free(r);
    free(elig);
    free(queue);
    free(pending);
    free(usable);
    pred_free(&p);
    return rc;
}

/* ---- numeric solver ---- */

/* Do all watched states meet the interval stopping rule (valiter.h:
 * WATCHED STATES)?  0 without a watch list. */
static int watched_ok(const struct vi_params *par, const double *lo, const double *hi)
{
    if (!par->n_watch || !hi)
        return 0;
    for (uint64_t i = 0; i < par->n_watch; i++) {
        uint32_t s = par->watch[i];
        if (!gap_ok(lo[s], hi[s], par->epsilon, par->relative))
            return 0;
    }
    return 1;
}

struct solver {
    const struct vi_system *sys;
    const struct vi_params *par;
    struct wx_pool *pool;       /* the solve's threads (util/pool.h) */
    uint64_t *range;            /* pool size + 1 state boundaries */
    double *lo[2], *hi[2];      /* Jacobi buffers: cur = [k & 1] */
    int *thread_ok;             /* per thread: its states met the rule */
    uint64_t iterations;
    int stop, converged;
};

static void jacobi_worker(void *arg, int id, int size)
{
    struct solver *sv = arg;
    const struct vi_system *sys = sv->sys;
    const struct vi_params *par = sv->par;
    uint64_t s0 = sv->range[id], s1 = sv->range[id + 1];
    int mx = par->maximize, rel = par->relative;
    double eps = par->epsilon;
    for (uint64_t k = 0;; k++) {
        int cur = (int)(k & 1), nxt = cur ^ 1;
        const double *lo = sv->lo[cur], *hi = sv->hi[cur];
        double *nlo = sv->lo[nxt], *nhi = sv->hi[nxt];
        int ok = 1;
        if (hi) {
            for (uint64_t s = s0; s < s1; s++) {
                double l, h;
                state_update2(sys, s, lo, hi, mx, &l, &h);
                l = l > lo[s] ? l : lo[s];
                h = h < hi[s] ? h : hi[s];
                nlo[s] = l;
                nhi[s] = h;
                ok &= gap_ok(l, h, eps, rel);
            }
        } else {
            for (uint64_t s = s0; s < s1; s++) {
                double l = state_update(sys, s, lo, mx);
                ok &= change_ok(lo[s], l, eps, rel);
                nlo[s] = l;
            }
        }
        sv->thread_ok[id] = ok;
        wx_pool_barrier(sv->pool);
        if (id == 0) {
            int all = 1;
            for (int t = 0; t < size; t++)
                all &= sv->thread_ok[t];
            sv->iterations = k + 1;
            sv->converged = all || watched_ok(par, sv->lo[nxt], sv->hi[nxt]);
            sv->stop = sv->converged || sv->iterations >= par->max_iterations;
        }
        wx_pool_barrier(sv->pool);
        if (sv->stop)
            break;
    }
}

/* One Gauss-Seidel sweep over states [a, z), in place: 1 when every one of
 * them meets the stopping rule. */
static int gs_sweep(const struct vi_system *sys, uint64_t a, uint64_t z, double *lo, double *hi, int mx,
                    double eps, int rel)
{
    int ok = 1;
    for (uint64_t s = a; s < z; s++) {
        if (hi) {
            double l, h;
            state_update2(sys, s, lo, hi, mx, &l, &h);
            lo[s] = l > lo[s] ? l : lo[s];
            hi[s] = h < hi[s] ? h : hi[s];
            ok &= gap_ok(lo[s], hi[s], eps, rel);
        } else {
            double l = state_update(sys, s, lo, mx);
            ok &= change_ok(lo[s], l, eps, rel);
            lo[s] = l;
        }
    }
    return ok;
}

static int solve_gauss_seidel(const struct vi_system *sys, const struct vi_params *par,
                              double *lo, double *hi, uint64_t *iters)
{
    for (uint64_t k = 0; k < par->max_iterations; k++) {
        const int ok = gs_sweep(sys, 0, sys->n_states, lo, hi, par->maximize, par->epsilon, par->relative);
        *iters = k + 1;
        if (ok || watched_ok(par, lo, hi))
            return 1;
    }
    return 0;
}

int valiter_solve_blocks_cpu(const struct vi_system *sys, const struct vi_params *par,
                             const uint64_t *block_start, uint64_t n_blocks, double *lo,
                             double *hi, struct vi_stats *stats, struct wx_error *err)
{
    double t0 = wx_now();
    int mx = par->maximize, rel = par->relative;
    double eps = par->epsilon;
    uint64_t updates = 0, worst = 0, worst_block = 0;
    int converged = 1;
    if (!(par->epsilon > 0))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "epsilon must be > 0 (got %g)", par->epsilon);
    for (uint64_t k = 0; k < n_blocks && converged; k++) {
        uint64_t a = block_start[k], z = block_start[k + 1], sweeps = 0;
        int ok = 0;
        while (!ok && sweeps < par->max_iterations) {
            ok = gs_sweep(sys, a, z, lo, hi, mx, eps, rel);
            sweeps++;
            updates += z - a;
        }
        if (sweeps > worst)
            worst = sweeps, worst_block = k;
        converged = ok;
    }
    struct vi_stats st = {0};
    uint64_t n = sys->n_states;
    st.iterations = n ? (updates + n - 1) / n : 0;
    st.seconds = wx_now() - t0;
    st.sweep_seconds = st.iterations ? st.seconds / (double)st.iterations : 0;
    st.bytes_per_sweep = vi_sweep_bytes(sys, hi ? 2 : 1);
    if (stats)
        *stats = st;
    if (!converged)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "value iteration did not converge after %llu sweeps of block %llu "
                       "(epsilon %g%s)",
                       (unsigned long long)worst, (unsigned long long)worst_block, par->epsilon,
                       par->relative ? ", relative" : "");
    return WX_OK;
}

/* Topological solving by levels (valiter.h): Jacobi sweeps level by
 * level.  The new values of a level go to scratch arrays first and are
 * copied back after the sweep, so every update of a sweep reads the
 * previous iterate of its level, exactly as the GPU twin's sweeps do. */
int valiter_solve_levels_cpu(const struct vi_system *sys, const struct vi_params *par,
                             const struct vi_levels *lv, double *lo, double *hi,
                             struct vi_stats *stats, struct wx_error *err)
{
    double t0 = wx_now();
    int mx = par->maximize, rel = par->relative;
    double eps = par->epsilon;
    uint64_t n = sys->n_states, widest = 0, updates = 0, level_sweeps = 0;
    if (!(eps > 0))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "epsilon must be > 0 (got %g)", eps);
    if (lv->level_start[0] != 0 || lv->level_start[lv->n_levels] != n)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: inconsistent levels");
    for (uint64_t L = 0; L < lv->n_levels; L++) {
        uint64_t w = lv->level_start[L + 1] - lv->level_start[L];
        widest = w > widest ? w : widest;
    }
    double *nl = malloc((widest ? widest : 1) * sizeof *nl);
    double *nh = hi ? malloc((widest ? widest : 1) * sizeof *nh) : NULL;
    if (!nl || (hi && !nh)) {
        free(nl), free(nh);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value iteration)");
    }
    int rc = WX_OK;
    for (uint64_t L = 0; L < lv->n_levels && rc == WX_OK; L++) {
        uint64_t a = lv->level_start[L], z = lv->level_start[L + 1], sweeps = 0;
        for (;;) {
            int ok = 1;
            for (uint64_t s = a; s < z; s++) {
                if (hi) {
                    double l, h;
                    state_update2(sys, s, lo, hi, mx, &l, &h);
                    l = l > lo[s] ? l : lo[s];
                    h = h < hi[s] ? h : hi[s];
                    nl[s - a] = l, nh[s - a] = h;
                    ok &= gap_ok(l, h, eps, rel);
                } else {
                    double l = state_update(sys, s, lo, mx);
                    ok &= change_ok(lo[s], l, eps, rel);
                    nl[s - a] = l;
                }
            }
            memcpy(lo + a, nl, (z - a) * sizeof *lo);
            if (hi)
                memcpy(hi + a, nh, (z - a) * sizeof *hi);
            sweeps++;
            updates += z - a;
            if (ok || (lv->acyclic[L] && !hi)) /* plain VI: an acyclic level is final */
                break;
            if (lv->acyclic[L]) {
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                             "value iteration: level %llu meets the %s stopping rule only as well "
                             "as the levels below it allow (use --method ii)",
                             (unsigned long long)L, rel ? "relative" : "absolute");
                break;
            }
            if (sweeps >= par->max_iterations) {
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                             "value iteration did not converge after %llu sweeps of level %llu "
                             "(epsilon %g%s)",
                             (unsigned long long)sweeps, (unsigned long long)L, eps,
                             rel ? ", relative" : "");
                break;
            }
        }
        level_sweeps += sweeps;
    }
    free(nl), free(nh);
    struct vi_stats st = {0};
    st.iterations = n ? (updates + n - 1) / n : 0;
    st.level_sweeps = level_sweeps;
    st.seconds = wx_now() - t0;
    st.sweep_seconds = st.iterations ? st.seconds / (double)st.iterations : 0;
    st.bytes_per_sweep = vi_sweep_bytes(sys, hi ? 2 : 1);
    if (stats)
        *stats = st;
    return rc;
}

/* Interval or plain value iteration, Jacobi or Gauss-Seidel. */
static int solve_interval(const struct vi_system *sys, const struct vi_params *par, double *lo,
                          double *hi, struct vi_stats *stats, struct wx_error *err)
{
    double t0 = wx_now();
    uint64_t n = sys->n_states;
    struct vi_stats st = {0};
    int k = hi ? 2 : 1;
    st.bytes_per_sweep = vi_sweep_bytes(sys, k);
    if (!(par->epsilon > 0))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "epsilon must be > 0 (got %g)", par->epsilon);
    if (n == 0) {
        if (stats)
            *stats = st;
        return WX_OK;
    }
    int converged = 0;
    if (par->method == VI_GAUSS_SEIDEL) {
        converged = solve_gauss_seidel(sys, par, lo, hi, &st.iterations);
    } else {
        struct solver sv = {.sys = sys, .par = par};
        int want = valiter_threads(sys, par);
        sv.range = malloc(((size_t)want + 1) * sizeof *sv.range);
        sv.thread_ok = calloc((size_t)want, sizeof *sv.thread_ok);
        sv.lo[0] = lo;
        sv.lo[1] = malloc(n * sizeof(double));
        sv.hi[0] = hi;
        sv.hi[1] = hi ? malloc(n * sizeof(double)) : NULL;
        sv.pool = want > 1 ? wx_pool_new(want) : NULL;
        if (!sv.range || !sv.thread_ok || !sv.lo[1] || (hi && !sv.hi[1]) || (want > 1 && !sv.pool)) {
            free(sv.range), free(sv.thread_ok), free(sv.lo[1]), free(sv.hi[1]), wx_pool_free(sv.pool);
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value iteration)");
        }
        const int started = wx_pool_size(sv.pool); /* at most want */
        /* split by work: entries plus one per state, so empty rows count */
        uint64_t total = sys->n_entries + n, t = 0;
        sv.range[0] = 0;
        for (int i = 1; i < started; i++) {
            uint64_t goal = total / (uint64_t)started * (uint64_t)i;
            while (t < n && sys->choice_start[sys->state_start[t]] + t < goal)
                t++;
            sv.range[i] = t;
        }
        sv.range[started] = n;
        wx_pool_run(sv.pool, jacobi_worker, &sv);
        st.iterations = sv.iterations;
        converged = sv.converged;
        if (sv.iterations & 1) { /* the last sweep wrote buffer 1 */
            memcpy(lo, sv.lo[1], n * sizeof(double));
            if (hi)
                memcpy(hi, sv.hi[1], n * sizeof(double));
        }
        free(sv.range), free(sv.thread_ok), free(sv.lo[1]), free(sv.hi[1]), wx_pool_free(sv.pool);
    }
    return vi_finish(&st, t0, converged, par, stats, err);
}

/* ---- certified policy iteration (valiter.h, VI_POLICY) ----
 *
 * Steps 2-4 run as one SPMD routine on all solver threads: each thread owns
 * a fixed range of PI_CHUNK-state chunks, and every scalar (dot products,
 * counts, maxima) is the sum of per-chunk partials added in chunk order by
 * every thread alike.  So all threads take the same branches, and the
 * result does not depend on the number of threads (the chunks, not the
 * threads, fix the order of the additions). */

#define PI_CHUNK 4096
#define PI_SLOTS 8

enum { PI_OK, PI_BREAKDOWN, PI_MAXIT };

struct pi_run {
    const struct vi_system *sys;
    int mx;
    double eps;
    uint64_t n, nchunks;
    struct wx_pool *pool; /* the run's threads (util/pool.h) */
    double *part; /* nchunks x PI_SLOTS partial sums */
    double *lo, *hi;
    double *x, *w, *wb, *rh, *r, *p, *v, *s, *t, *c;
    uint64_t *pol, *tau;
    /* outcome, written by thread 0 */
    uint64_t products, rounds, sweeps;
    int certified;
};

static uint64_t splitmix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The sum over all chunks of partial slot j, in chunk order. */
static double pi_sum(const struct pi_run *pr, int j)
{
    double a = 0;
    for (uint64_t k = 0; k < pr->nchunks; k++)
        a += pr->part[k * PI_SLOTS + j];
    return a;
}

static double pi_max(const struct pi_run *pr, int j)
{
    double a = -INFINITY;
    for (uint64_t k = 0; k < pr->nchunks; k++)
        a = pr->part[k * PI_SLOTS + j] > a ? pr->part[k * PI_SLOTS + j] : a;
    return a;
}

/* y = (I - P_pol) z at state s. */
static inline double pi_apply(const struct vi_system *sys, const uint64_t *pol, const double *z,
                              uint64_t s)
{
    double q = 0;
    uint64_t c = pol[s];
    for (uint64_t e = sys->choice_start[c]; e < sys->choice_start[c + 1]; e++)
        q += sys->probs[e] * z[sys->targets[e]];
    return z[s] - q;
}

/* The entries' part of choice c on z (without b). */
static inline double pi_flow(const struct vi_system *sys, uint64_t c, const double *z)
{
    double q = 0;
    for (uint64_t e = sys->choice_start[c]; e < sys->choice_start[c + 1]; e++)
        q += sys->probs[e] * z[sys->targets[e]];
    return q;
}

/* The first choice of s with the best value on z. */
static inline uint64_t pi_best(const struct vi_system *sys, uint64_t s, const double *z, int mx,
                               double *best_out)
{
    uint64_t c = sys->state_start[s], bc = c;
    double best = choice_value(sys, c, z);
    for (c++; c < sys->state_start[s + 1]; c++) {
        double v = choice_value(sys, c, z);
        if (mx ? v > best : v < best)
            best = v, bc = c;
    }
    *best_out = best;
    return bc;
}

#define PI_FOR(pr, k0, k1, s)                                                                  \
    for (uint64_t s = (k0) * PI_CHUNK, s##_end = (k1) * PI_CHUNK < (pr)->n ? (k1) * PI_CHUNK   \
                                                                          : (pr)->n;           \
         s < s##_end; s++)
#define PI_PART(pr, s, j) ((pr)->part[((s) / PI_CHUNK) * PI_SLOTS + (j)])

/* BiCGSTAB for (I - P_pol) y = c from y (valiter.h), on the calling
 * thread's chunks [k0, k1); every thread calls it with the same arguments.
 * Returns PI_OK, PI_BREAKDOWN or PI_MAXIT. */
static int pi_bicgstab(struct pi_run *pr, int id, uint64_t k0, uint64_t k1, const uint64_t *pol,
                       double *y, double tol)
{
    const struct vi_system *sys = pr->sys;
    double *r = pr->r, *rh = pr->rh, *p = pr->p, *v = pr->v, *s = pr->s, *t = pr->t,
           *c = pr->c;
    for (uint64_t k = k0; k < k1; k++)
        pr->part[k * PI_SLOTS + 0] = pr->part[k * PI_SLOTS + 1] = 0;
    PI_FOR(pr, k0, k1, i) {
        r[i] = c[i] - pi_apply(sys, pol, y, i);
        p[i] = v[i] = 0;
        PI_PART(pr, i, 0) += rh[i] * r[i];
        PI_PART(pr, i, 1) += c[i] * c[i];
    }
    wx_pool_barrier(pr->pool);
    double rho1 = pi_sum(pr, 0), bn = sqrt(pi_sum(pr, 1)), rho = 1, alpha = 1, omega = 1;
    if (id == 0)
        pr->products++;
    wx_pool_barrier(pr->pool); /* slots 0, 1 are read before they are reused */
    if (bn == 0) { /* c = 0: y = 0 */
        PI_FOR(pr, k0, k1, i) y[i] = 0;
        wx_pool_barrier(pr->pool);
        return PI_OK;
    }
    for (int it = 1; it <= VI_PI_KRYLOV_MAX; it++) {
        if (rho1 == 0 || !isfinite(rho1) || omega == 0)
            return PI_BREAKDOWN;
        double beta = (rho1 / rho) * (alpha / omega);
        PI_FOR(pr, k0, k1, i) p[i] = r[i] + beta * (p[i] - omega * v[i]);
        wx_pool_barrier(pr->pool);
        for (uint64_t k = k0; k < k1; k++)
            pr->part[k * PI_SLOTS + 2] = 0;
        PI_FOR(pr, k0, k1, i) {
            v[i] = pi_apply(sys, pol, p, i);
            PI_PART(pr, i, 2) += rh[i] * v[i];
        }
        wx_pool_barrier(pr->pool);
        double rv = pi_sum(pr, 2);
        if (rv == 0 || !isfinite(rv))
            return PI_BREAKDOWN;
        alpha = rho1 / rv;
        for (uint64_t k = k0; k < k1; k++)
            pr->part[k * PI_SLOTS + 3] = 0;
        PI_FOR(pr, k0, k1, i) {
            s[i] = r[i] - alpha * v[i];
            PI_PART(pr, i, 3) += s[i] * s[i];
        }
        wx_pool_barrier(pr->pool);
        double sn = sqrt(pi_sum(pr, 3));
        if (id == 0)
            pr->products++;
        if (sn <= tol * bn) {
            PI_FOR(pr, k0, k1, i) y[i] += alpha * p[i];
            wx_pool_barrier(pr->pool);
            return PI_OK;
        }
        for (uint64_t k = k0; k < k1; k++)
            pr->part[k * PI_SLOTS + 4] = pr->part[k * PI_SLOTS + 5] = 0;
        PI_FOR(pr, k0, k1, i) {
            t[i] = pi_apply(sys, pol, s, i);
            PI_PART(pr, i, 4) += t[i] * s[i];
            PI_PART(pr, i, 5) += t[i] * t[i];
        }
        wx_pool_barrier(pr->pool);
        double ts = pi_sum(pr, 4), tt = pi_sum(pr, 5);
        if (id == 0)
            pr->products++;
        if (tt == 0 || !isfinite(tt) || !isfinite(ts))
            return PI_BREAKDOWN;
        omega = ts / tt;
        for (uint64_t k = k0; k < k1; k++)
            pr->part[k * PI_SLOTS + 6] = pr->part[k * PI_SLOTS + 7] = 0;
        PI_FOR(pr, k0, k1, i) {
            y[i] += alpha * p[i] + omega * s[i];
            r[i] = s[i] - omega * t[i];
            PI_PART(pr, i, 6) += r[i] * r[i];
            PI_PART(pr, i, 7) += rh[i] * r[i];
        }
        wx_pool_barrier(pr->pool);
        double rn = sqrt(pi_sum(pr, 6));
        rho = rho1;
        rho1 = pi_sum(pr, 7);
        if (!isfinite(rn))
            return PI_BREAKDOWN;
        if (rn <= tol * bn)
            return PI_OK;
    }
    return PI_MAXIT;
}

/* Steps 2-4 of valiter.h on one thread's chunks. */
static void pi_worker(void *arg, int id, int size)
{
    struct pi_run *pr = arg;
    const struct vi_system *sys = pr->sys;
    const int mx = pr->mx;
    const uint64_t k0 = pr->nchunks * (uint64_t)id / (uint64_t)size,
                   k1 = pr->nchunks * (uint64_t)(id + 1) / (uint64_t)size;
    double *x = pr->x, *w = pr->w, *c = pr->c, *lo = pr->lo, *hi = pr->hi;
    uint64_t *pol = pr->pol, *tau = pr->tau;

    /* step 2: the greedy policy of the lower bound, then policy rounds */
    PI_FOR(pr, k0, k1, i) {
        double best;
        pol[i] = pi_best(sys, i, lo, mx, &best);
        x[i] = lo[i];
        pr->rh[i] = 0.5 + 0.5 * (double)(splitmix64(i + 1) >> 11) * 0x1p-53;
    }
    if (id == 0)
        pr->sweeps++;
    int failed = 0;
    for (int round = 0; round < VI_PI_ROUNDS; round++) {
        PI_FOR(pr, k0, k1, i) c[i] = sys->b[pol[i]];
        wx_pool_barrier(pr->pool);
        if (pi_bicgstab(pr, id, k0, k1, pol, x, VI_PI_TOL) != PI_OK) {
            failed = 1;
            break;
        }
        for (uint64_t k = k0; k < k1; k++)
            pr->part[k * PI_SLOTS + 0] = 0;
        PI_FOR(pr, k0, k1, i) {
            double best;
            uint64_t bc = pi_best(sys, i, x, mx, &best);
            double margin = VI_PI_IMPROVE * pr->eps * (1 + fabs(x[i]));
            if (mx ? best > x[i] + margin : best < x[i] - margin) {
                pol[i] = bc;
                PI_PART(pr, i, 0) += 1;
            }
        }
        wx_pool_barrier(pr->pool);
        double improvable = pi_sum(pr, 0);
        if (id == 0)
            pr->rounds++, pr->sweeps++;
        wx_pool_barrier(pr->pool);
        if (improvable == 0)
            break;
    }

    /* step 3: w, the largest expected time over the near-tied choices */
    const double gamma = pr->eps / 2;
    double *wb = pr->wb;
    PI_FOR(pr, k0, k1, i) tau[i] = pol[i], w[i] = 1, c[i] = 1;
    wx_pool_barrier(pr->pool);
    for (int round = 0; round < VI_PI_W_ROUNDS && !failed; round++) {
        if (round > 0)
            PI_FOR(pr, k0, k1, i) wb[i] = w[i];
        if (pi_bicgstab(pr, id, k0, k1, tau, w, VI_PI_W_TOL) != PI_OK) {
            if (round == 0) {
                failed = 1;
                break;
            }
            PI_FOR(pr, k0, k1, i) w[i] = wb[i]; /* the last round's w */
            wx_pool_barrier(pr->pool);
            break;
        }
        for (uint64_t k = k0; k < k1; k++)
            pr->part[k * PI_SLOTS + 0] = pr->part[k * PI_SLOTS + 1] = 0;
        PI_FOR(pr, k0, k1, i) {
            if (!(w[i] > 0) || !isfinite(w[i])) {
                PI_PART(pr, i, 1) += 1;
                continue;
            }
            double cur = pi_flow(sys, tau[i], w), best = cur;
            uint64_t bc = tau[i];
            for (uint64_t ch = sys->state_start[i]; ch < sys->state_start[i + 1]; ch++) {
                double q = choice_value(sys, ch, x);
                if (mx ? q < x[i] - gamma : q > x[i] + gamma)
                    continue;
                double f = pi_flow(sys, ch, w);
                if (f > best)
                    best = f, bc = ch;
            }
            if (bc != tau[i] && best > cur + VI_PI_IMPROVE_W * (1 + cur)) {
                tau[i] = bc;
                PI_PART(pr, i, 0) += 1;
            }
        }
        wx_pool_barrier(pr->pool);
        double switched = pi_sum(pr, 0), bad = pi_sum(pr, 1);
        wx_pool_barrier(pr->pool);
        if (bad > 0)
            failed = 1;
        if (switched == 0)
            break;
    }

    /* step 4: the certificate */
    if (!failed) {
        for (uint64_t k = k0; k < k1; k++)
            pr->part[k * PI_SLOTS + 0] = -INFINITY;
        PI_FOR(pr, k0, k1, i) PI_PART(pr, i, 0) = w[i] > PI_PART(pr, i, 0) ? w[i] : PI_PART(pr, i, 0);
        wx_pool_barrier(pr->pool);
        const double delta = pr->eps / (2 * pi_max(pr, 0));
        double *l = pr->p, *u = pr->v, *fl = pr->s, *fu = pr->t;
        PI_FOR(pr, k0, k1, i) l[i] = x[i] - delta * w[i], u[i] = x[i] + delta * w[i];
        for (uint64_t k = k0; k < k1; k++)
            pr->part[k * PI_SLOTS + 1] = pr->part[k * PI_SLOTS + 2] = 0;
        wx_pool_barrier(pr->pool);
        PI_FOR(pr, k0, k1, i) {
            state_update2(sys, i, l, u, mx, &fl[i], &fu[i]);
            PI_PART(pr, i, 1) += !(fl[i] >= l[i]);
            PI_PART(pr, i, 2) += !(fu[i] <= u[i]);
        }
        wx_pool_barrier(pr->pool);
        const int lower_ok = pi_sum(pr, 1) == 0, upper_ok = pi_sum(pr, 2) == 0;
        for (uint64_t k = k0; k < k1; k++)
            pr->part[k * PI_SLOTS + 3] = 0;
        PI_FOR(pr, k0, k1, i) {
            if (lower_ok && fl[i] > lo[i])
                lo[i] = fl[i];
            if (upper_ok && fu[i] < hi[i])
                hi[i] = fu[i];
            PI_PART(pr, i, 3) += !gap_ok(lo[i], hi[i], pr->eps, 0);
        }
        wx_pool_barrier(pr->pool);
        if (id == 0) {
            pr->sweeps++;
            pr->certified = lower_ok && upper_ok && pi_sum(pr, 3) == 0;
        }
    }
}

/* Interval iteration (Jacobi) for at most cap more sweeps of par's budget
 * (st->iterations already spent): 1 when it converged.  *rc is WX_OK when
 * it converged or stopped at cap with budget left, else the error (the
 * budget spent: "did not converge after N sweeps" counting them all). */
static int ii_steps(const struct vi_system *sys, const struct vi_params *par, double *lo,
                    double *hi, uint64_t cap, struct vi_stats *st, int *rc, struct wx_error *err)
{
    struct vi_params p = *par;
    p.method = VI_JACOBI;
    const uint64_t left = par->max_iterations > st->iterations ? par->max_iterations - st->iterations : 0;
    p.max_iterations = cap < left ? cap : left;
    struct vi_stats s = {0};
    int r = p.max_iterations ? solve_interval(sys, &p, lo, hi, &s, err) : WX_ELIMIT;
    st->iterations += s.iterations;
    *rc = r;
    if (r == WX_ELIMIT && s.iterations == p.max_iterations) {
        if (p.max_iterations < left)
            *rc = WX_OK;
        else
            *rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                          "value iteration did not converge after %llu sweeps (epsilon %g)",
                          (unsigned long long)st->iterations, par->epsilon);
    }
    return r == WX_OK;
}

static double max_gap(const double *lo, const double *hi, uint64_t n)
{
    double g = 0;
    for (uint64_t s = 0; s < n; s++)
        g = hi[s] - lo[s] > g ? hi[s] - lo[s] : g;
    return g;
}

static int solve_policy(const struct vi_system *sys, const struct vi_params *par, double *lo,
                        double *hi, struct vi_stats *stats, struct wx_error *err)
{
    double t0 = wx_now();
    struct vi_stats st = {0};
    const uint64_t k = par->pi_sweeps ? par->pi_sweeps : VI_PI_SWEEPS;
    int rc, done;
    /* step 1, in two halves when it can, to see how fast the gap closes */
    if (k >= 2) {
        done = ii_steps(sys, par, lo, hi, k / 2, &st, &rc, err);
        if (!done && rc == WX_OK) {
            const double g1 = max_gap(lo, hi, sys->n_states);
            done = ii_steps(sys, par, lo, hi, k - k / 2, &st, &rc, err);
            const double g2 = max_gap(lo, hi, sys->n_states);
            if (!done && rc == WX_OK && g2 < g1 &&
                (double)(k - k / 2) * log(g2 / par->epsilon) / log(g1 / g2) <= VI_PI_CONTINUE) {
                ii_steps(sys, par, lo, hi, UINT64_MAX, &st, &rc, err);
                goto finish;
            }
        }
    } else {
        done = ii_steps(sys, par, lo, hi, k, &st, &rc, err);
    }
    if (done || rc != WX_OK)
        goto finish;
    const uint64_t n = sys->n_states, nchunks = (n + PI_CHUNK - 1) / PI_CHUNK;
    struct pi_run pr = {.sys = sys, .mx = par->maximize, .eps = par->epsilon, .n = n,
                        .nchunks = nchunks, .lo = lo, .hi = hi};
    int want = valiter_threads(sys, par);
    if ((uint64_t)want > nchunks)
        want = (int)nchunks;
    double **vec[] = {&pr.x, &pr.w, &pr.wb, &pr.rh, &pr.r, &pr.p, &pr.v, &pr.s, &pr.t, &pr.c};
    int oom = 0;
    for (size_t i = 0; i < sizeof vec / sizeof *vec; i++)
        oom |= !(*vec[i] = malloc(n * sizeof(double)));
    pr.pol = malloc(n * sizeof *pr.pol);
    pr.tau = malloc(n * sizeof *pr.tau);
    pr.part = malloc(nchunks * PI_SLOTS * sizeof *pr.part);
    pr.pool = want > 1 ? wx_pool_new(want) : NULL;
    if (oom || !pr.pol || !pr.tau || !pr.part || (want > 1 && !pr.pool)) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (policy iteration)");
        goto out;
    }
    wx_pool_run(pr.pool, pi_worker, &pr);
    st.iterations += pr.sweeps;
    st.products = pr.products;
    st.policy_rounds = pr.rounds;
    st.certified = pr.certified;
    if (!pr.certified) /* step 5 */
        ii_steps(sys, par, lo, hi, UINT64_MAX, &st, &rc, err);
out:
    for (size_t i = 0; i < sizeof vec / sizeof *vec; i++)
        free(*vec[i]);
    free(pr.pol), free(pr.tau), free(pr.part), wx_pool_free(pr.pool);
finish:
    st.seconds = wx_now() - t0;
    st.sweep_seconds = st.iterations ? st.seconds / (double)st.iterations : 0;
    if (stats)
        *stats = st;
    return rc;
}

int valiter_solve_cpu(const struct vi_system *sys, const struct vi_params *par, double *lo,
                      double *hi, struct vi_stats *stats, struct wx_error *err)
{
    if (par->method == VI_POLICY && hi && !par->relative && par->epsilon > 0 && sys->n_states)
        return solve_policy(sys, par, lo, hi, stats, err);
    return solve_interval(sys, par, lo, hi, stats, err);
}
