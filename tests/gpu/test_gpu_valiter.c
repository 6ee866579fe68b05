/*
 * test_gpu_valiter.c -- the GPU value-iteration cores (kernels/vi/)
 * against plain references written here, and against the CPU twin
 * (analysis/valiter.c) when the library has it (-DHAVE_VALITER_CPU).
 * Interval solves also run with a watch list (valiter.h WATCHED STATES):
 * GPU, CPU twin and reference stop after the same sweep, bit-identical.
 *
 *   test_gpu_valiter [--quick] [--seed N] [--probe] [--skip-levels] [--policy-only | --skip-policy]
 *
 * PRECOMPUTATION.  Random MDPs of several shapes (mixed, deterministic,
 * heavily nondeterministic, clustered end components, absorbing states,
 * deadlocks, long chains, restricted allowed sets, duplicate entries); for
 * each, all four sets (Prob0A/0E/1A/1E) from the GPU must be identical to
 * the textbook fixpoints computed here by naive round-robin iteration to
 * stability.  Prob1A is computed here in two independent ways (PRISM's
 * nested greatest fixpoint and "cannot reach Prob0E's set"), which must
 * agree with each other too.
 *
 * NUMERIC CORE.  Random systems (short and long choices, few and many
 * choices per state, constant-only choices), min and max, interval
 * iteration and plain VI, absolute and relative stopping rules; the GPU
 * (auto kernel, a pinned random kernel variant, and the tiles3 kinds 16
 * and 17) must take exactly the reference's number of Jacobi sweeps and
 * give its values within 1e-12 relative (bit-identical is expected, and
 * counted: same summation order, no FMA).  On the big systems the tiles3
 * kinds run again on one block per SM, so that every warp sweeps several
 * tiles (the next tile's records and L2 prefetch).  Their tile limits (128
 * choices, 256 entries; a bigger state is a tile of its own) are pinned by
 * hand-made systems around both limits.  The
 * sweep limit: max_iterations = reference sweeps converges, one fewer is
 * WX_ELIMIT with the reference's iterates after that many sweeps.  Bad
 * inputs are rejected with WX_EINPUT.
 *
 * IN-PLACE SWEEPS (VI_GAUSS_SEIDEL on the GPU; not bit-identical, not
 * deterministic): on every interval case, the GPU's [lo, hi] must meet the
 * stopping rule, must contain the value (it must overlap the interval of a
 * reference solve to 1e-11, which contains it too), and take at most the
 * reference's number of Jacobi sweeps (monotonicity: an in-place iterate is
 * never worse than the Jacobi iterate of the same sweep).
 *
 * TOPOLOGICAL LEVELS.  Random systems with a level structure (chains of
 * tiny levels, a few big cyclic levels, mixed, states wider than a tile;
 * acyclic levels among them): the GPU level solve must equal the CPU twin
 * (valiter_solve_levels_cpu) bit for bit (values, level sweeps, outcome,
 * including max_iterations failures), again under a random device-memory
 * cap that forces groups of levels and chunks of one level; with the
 * absolute rule the interval must meet it at every state, overlap a tight
 * whole-system reference interval, and overlap plain interval iteration's
 * (GPU) with midpoints within epsilon.
 *
 * CERTIFIED POLICY ITERATION (VI_POLICY, valiter.h).  Random systems
 * without end components (slow leaks, so that interval iteration needs
 * more than VI_PI_SWEEPS sweeps; mass-1 choices that move forward; exact
 * duplicates of choices (ties); rewards-like constants > 1; few distinct
 * numbers: the packed sweeps; a few big ones), min and max: the answer
 * must hold the value (overlap a reference interval of width 1e-12 from
 * interval iteration), meet hi - lo <= eps everywhere and stay inside the
 * initial bounds; where step 1 decides (convergence, or the gap's rate says
 * interval iteration is about to finish: predicted here from the
 * reference's sweeps) it must be interval iteration's answer bit for bit;
 * under the contract's limits most solves must be certified; the CPU twin
 * (when linked) must overlap and agree on the certified flag in >= 95 % of
 * the solves.  Test hooks force the fallback (BiCGSTAB capped at one
 * iteration: step 5 then is interval iteration from step 1's bounds, bit
 * for bit, with the greedy sweeps counted), a single policy round (a
 * policy that may not be optimal: only proved halves may tighten), a step
 * 1 of one sweep (pi_sweeps = 1), and BiCGSTAB on 1-3 blocks (threads with
 * several rows).  Hand-made: an end component left in (BiCGSTAB breaks
 * down, interval iteration runs out of sweeps), a slow 4-cycle with a
 * known value (0.5) for min and max.
 *
 * Seeds are printed; --seed replays.  --quick is the small subset that the
 * sanitizers run; --skip-levels leaves the level solves out (for runs
 * under a time limit that concern the whole-system sweeps); --policy-only
 * runs VI_POLICY's tests alone, --skip-policy all others.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/valiter.h"
#include "tests/check.h"

/* kernels/vi/: pins the sweep kernel (0 = automatic; kind 1 = lanes
 * over choices with group 1..32, kind 2 = lanes over entries, group 8|32,
 * kind 3 = tiles staged in shared memory, kind 4 = the same with more
 * resident warps, kind 5 = tiles with interleaved bounds and 32-bit offsets,
 * kind 6 = kind 5 without its early loads, kind 7 = kind 5 in place, kinds
 * 8-15 = packed sweeps (the default where the system has few distinct
 * numbers; see valiter_gpu_last_kind below), kind 16 = the tiles3 sweep
 * (a tile's loads at once; the default for unpacked Jacobi solves), kind
 * 17 = the same persistent (Jacobi only: in place they run kind 7)) */
void valiter_gpu_set_kernel(int kind, int group);
/* the kind the last valiter_solve_gpu ran (kinds 8-11: packed sweeps, 8/10
 * Jacobi with evict-first/cached loads, 9/11 in place; a pinned packed kind
 * falls back to 5 (7 in place) when the system cannot be packed; 12/13:
 * packed with the next tile's entry words loaded ahead; 14/15: persistent
 * packed Jacobi sweeps, one cooperative launch for many sweeps, cached /
 * evict-first loads: the default for packed Jacobi solves) */
int valiter_gpu_last_kind(void);

static int quick, ref_only, skip_levels, policy_only, skip_policy;
static uint64_t n_bitwise, n_compared;

/* ---- random numbers (splitmix64, seeded per instance) ---- */
struct rng {
    uint64_t s;
};

static uint64_t rnd64(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rndu(struct rng *r, uint32_t n)
{
    return n ? (uint32_t)(rnd64(r) % n) : 0;
}

static double rndf(struct rng *r) /* [0, 1) */
{
    return (double)(rnd64(r) >> 11) * (1.0 / 9007199254740992.0);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    return p;
}

/* ======================================================================
 * Random MDPs
 * ====================================================================== */

enum { MK_MIXED, MK_DET, MK_NONDET, MK_CLUSTER, MK_ABSORB, MK_CHAIN, MK_SPARSE, MK_LARGE, MK_KINDS };
static const char *const mk_name[] = {"mixed", "deterministic", "nondeterministic", "end-components",
                                      "absorbing", "chain", "sparse-target", "large"};

/* Builds a random MDP of kind k plus allowed (or NULL) and target sets. */
static void gen_mdp(struct rng *r, int k, struct mdp *m, uint8_t **allowed, uint8_t **target)
{
    uint32_t n;
    switch (k) {
    case MK_LARGE: n = 1000 + rndu(r, quick ? 500 : 4000); break;
    case MK_CHAIN: n = 20 + rndu(r, 300); break;
    default: n = 1 + rndu(r, quick ? 30 : 120); break;
    }
    uint32_t csize = k == MK_CLUSTER ? 2 + rndu(r, 6) : 1;
    /* first pass: choice and entry counts */
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss);
    uint32_t *nch = xmalloc(n * sizeof *nch);
    uint64_t nc = 0;
    for (uint32_t s = 0; s < n; s++) {
        uint32_t c;
        switch (k) {
        case MK_DET: c = rndu(r, 20) ? 1 : 0; break;
        case MK_NONDET: c = 5 + rndu(r, 16); break;
        case MK_ABSORB: c = 1 + rndu(r, 3); break;
        case MK_CHAIN: c = 1 + rndu(r, 2); break;
        default: c = rndu(r, 10) ? 1 + rndu(r, 4) : 0; break; /* ~10% deadlocks */
        }
        nch[s] = c;
        ss[s] = nc;
        nc += c;
    }
    ss[n] = nc;
    uint64_t *cs = xmalloc((nc + 1) * sizeof *cs);
    uint32_t *ne_of = xmalloc((nc ? nc : 1) * sizeof *ne_of);
    uint64_t ne = 0;
    for (uint64_t c = 0; c < nc; c++) {
        uint32_t e = k == MK_DET ? 1 + rndu(r, 3) : 1 + rndu(r, rndu(r, 4) ? 3 : 8);
        ne_of[c] = e;
        cs[c] = ne;
        ne += e;
    }
    cs[nc] = ne;
    uint32_t *tg = xmalloc((ne ? ne : 1) * sizeof *tg);
    double *pr = xmalloc((ne ? ne : 1) * sizeof *pr);
    /* absorbing states: one probability-1 self-loop choice */
    uint8_t *absorb = calloc(n, 1);
    if (k == MK_ABSORB)
        for (uint32_t s = 0; s < n; s++)
            absorb[s] = rndu(r, 3) == 0;
    for (uint32_t s = 0; s < n; s++) {
        for (uint64_t c = ss[s]; c < ss[s + 1]; c++) {
            double sum = 0;
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++) {
                uint32_t t;
                if (absorb[s])
                    t = s;
                else if (k == MK_CLUSTER && rndu(r, 12)) /* mostly inside the cluster */
                    t = (s / csize) * csize + rndu(r, csize);
                else if (k == MK_CHAIN)
                    t = rndu(r, 4) ? (s + 1 < n ? s + 1 : s) : (rndu(r, 2) ? s : rndu(r, s + 1));
                else if (rndu(r, 6) == 0)
                    t = s; /* self-loop */
                else if (e > cs[c] && rndu(r, 10) == 0)
                    t = tg[e - 1]; /* duplicate entry */
                else
                    t = rndu(r, n);
                if (t >= n)
                    t = n - 1;
                tg[e] = t;
                pr[e] = 0.05 + rndf(r);
                sum += pr[e];
            }
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++)
                pr[e] /= sum;
        }
    }
    m->n_states = n, m->n_choices = nc, m->n_entries = ne;
    m->state_start = ss, m->choice_start = cs, m->targets = tg, m->probs = pr, m->is_dtmc = 0;
    *target = xmalloc(n);
    uint32_t tdens = k == MK_SPARSE ? 40 : 3 + rndu(r, 12);
    for (uint32_t s = 0; s < n; s++)
        (*target)[s] = rndu(r, tdens) == 0;
    if (k == MK_CHAIN) /* reach the end of the chain */
        (*target)[n - 1] = 1;
    *allowed = NULL;
    if (rndu(r, 2) || k == MK_SPARSE) {
        *allowed = xmalloc(n);
        uint32_t keep = 60 + rndu(r, 40);
        for (uint32_t s = 0; s < n; s++)
            (*allowed)[s] = rndu(r, 100) < keep;
    }
    free(nch);
    free(ne_of);
    free(absorb);
}

/* ======================================================================
 * Reference precomputation: the textbook fixpoints, iterated naively
 * (every round re-examines every state) until nothing changes.
 * ====================================================================== */

static int ref_elig(const uint8_t *allowed, const uint8_t *target, uint64_t s)
{
    return (!allowed || allowed[s]) && !target[s];
}

/* s in R when some choice (usable) has an entry into R; seeds given in r. */
static void ref_exists(const struct mdp *m, const uint8_t *allowed, const uint8_t *target, const uint8_t *usable,
                       uint8_t *r)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint64_t s = 0; s < m->n_states; s++) {
            if (r[s] || !ref_elig(allowed, target, s))
                continue;
            for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1] && !r[s]; c++) {
                if (usable && !usable[c])
                    continue;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                    if (r[m->targets[e]]) {
                        r[s] = 1, changed = 1;
                        break;
                    }
            }
        }
    }
}

static void ref_precompute(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                           enum vi_precomp which, uint8_t *out, int *formulations_agree)
{
    uint64_t n = m->n_states;
    uint8_t *r = xmalloc(n), *u = xmalloc(n), *v = xmalloc(n);
    uint8_t *usable = xmalloc(m->n_choices);
    switch (which) {
    case VI_PMAX0: /* Pmax > 0: least fixpoint, some choice reaches R */
        memcpy(r, target, n);
        ref_exists(m, allowed, target, NULL, r);
        for (uint64_t s = 0; s < n; s++)
            out[s] = !r[s];
        break;
    case VI_PMIN0: /* Pmin > 0: least fixpoint, every choice (at least one) reaches R */
        memcpy(r, target, n);
        for (int changed = 1; changed;) {
            changed = 0;
            for (uint64_t s = 0; s < n; s++) {
                uint64_t c0 = m->state_start[s], c1 = m->state_start[s + 1];
                if (r[s] || !ref_elig(allowed, target, s) || c0 == c1)
                    continue;
                int all = 1;
                for (uint64_t c = c0; c < c1 && all; c++) {
                    int hit = 0;
                    for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                        hit |= r[m->targets[e]];
                    all = hit;
                }
                if (all)
                    r[s] = 1, changed = 1;
            }
        }
        for (uint64_t s = 0; s < n; s++)
            out[s] = !r[s];
        break;
    case VI_PMAX1: /* nu U. mu V. T + {s eligible : exists c: succ(c) in U and succ(c) meets V} */
        memset(u, 1, n);
        for (;;) {
            for (uint64_t c = 0; c < m->n_choices; c++) {
                usable[c] = 1;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                    usable[c] &= u[m->targets[e]];
            }
            memcpy(v, target, n);
            ref_exists(m, allowed, target, usable, v);
            if (!memcmp(u, v, n))
                break;
            memcpy(u, v, n);
        }
        memcpy(out, u, n);
        break;
    case VI_PMIN1: {
        /* (a) PRISM's nested fixpoint: nu U. mu V. T + {s eligible with a
         * choice : for all c: succ(c) in U and succ(c) meets V} */
        memset(u, 1, n);
        for (;;) {
            memcpy(v, target, n);
            for (int changed = 1; changed;) {
                changed = 0;
                for (uint64_t s = 0; s < n; s++) {
                    uint64_t c0 = m->state_start[s], c1 = m->state_start[s + 1];
                    if (v[s] || !ref_elig(allowed, target, s) || c0 == c1)
                        continue;
                    int all = 1;
                    for (uint64_t c = c0; c < c1 && all; c++) {
                        int in_u = 1, meets = 0;
                        for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                            in_u &= u[m->targets[e]], meets |= v[m->targets[e]];
                        all = in_u && meets;
                    }
                    if (all)
                        v[s] = 1, changed = 1;
                }
            }
            if (!memcmp(u, v, n))
                break;
            memcpy(u, v, n);
        }
        memcpy(out, u, n);
        /* (b) complement of the states that reach Prob0E's set through eligible states */
        ref_precompute(m, allowed, target, VI_PMIN0, r, NULL);
        ref_exists(m, allowed, target, NULL, r);
        int agree = 1;
        for (uint64_t s = 0; s < n; s++)
            agree &= out[s] == !r[s];
        if (formulations_agree)
            *formulations_agree = agree;
        break;
    }
    }
    free(r), free(u), free(v), free(usable);
}

static const char *const which_name[] = {"Pmax=0 (Prob0A)", "Pmin=0 (Prob0E)", "Pmax=1 (Prob1E)", "Pmin=1 (Prob1A)"};

static uint64_t first_diff(const uint8_t *a, const uint8_t *b, uint64_t n)
{
    for (uint64_t s = 0; s < n; s++)
        if (a[s] != b[s])
            return s;
    return n;
}

static void precompute_instance(uint64_t seed, int k)
{
    struct rng r = {seed};
    struct mdp m;
    uint8_t *allowed, *target;
    gen_mdp(&r, k, &m, &allowed, &target);
    uint64_t n = m.n_states;
    uint8_t *ref = xmalloc(n), *got = xmalloc(n);
    char tag[200];
    snprintf(tag, sizeof tag, "precompute %s seed=%llu n=%llu choices=%llu entries=%llu allowed=%s",
             mk_name[k], (unsigned long long)seed, (unsigned long long)n, (unsigned long long)m.n_choices,
             (unsigned long long)m.n_entries, allowed ? "subset" : "all");
    int ok = 1;
    char why[1200] = "";
    for (int w = VI_PMAX0; w <= VI_PMIN1; w++) {
        int agree = 1;
        ref_precompute(&m, allowed, target, (enum vi_precomp)w, ref, &agree);
        if (!agree) {
            ok = 0;
            snprintf(why, sizeof why, "the two reference formulations of Prob1A disagree");
            break;
        }
        struct wx_error err;
        wx_error_clear(&err);
        memset(got, 0xee, n);
        int rc = ref_only ? 0 : valiter_precompute_gpu(&m, allowed, target, (enum vi_precomp)w, got, &err);
        uint64_t d = rc ? 0 : first_diff(ref, got, n);
        if (!ref_only && (rc || d < n)) {
            ok = 0;
            if (rc)
                snprintf(why, sizeof why, "%s: GPU returned %d: %s", which_name[w], rc, err.msg);
            else
                snprintf(why, sizeof why, "%s: state %llu expected %d, GPU %d", which_name[w],
                         (unsigned long long)d, ref[d], got[d]);
            break;
        }
#ifdef HAVE_VALITER_CPU
        memset(got, 0xee, n);
        rc = valiter_precompute_cpu(&m, allowed, target, (enum vi_precomp)w, got, &err);
        d = rc ? 0 : first_diff(ref, got, n);
        if (rc || d < n) {
            ok = 0;
            if (rc)
                snprintf(why, sizeof why, "%s: CPU twin returned %d: %s", which_name[w], rc, err.msg);
            else
                snprintf(why, sizeof why, "%s: state %llu expected %d, CPU twin %d", which_name[w],
                         (unsigned long long)d, ref[d], got[d]);
            break;
        }
#endif
    }
    check(ok, "%s: four sets identical%s%s", tag, ok ? "" : ": ", why);
    free(ref), free(got), free(allowed), free(target);
    mdp_free(&m);
}

/* ======================================================================
 * Random systems and the reference Jacobi solver
 * ====================================================================== */

struct sysbuf {
    struct vi_system sys;
    uint64_t *ss, *cs;
    uint32_t *tg;
    double *pr, *b;
};

enum { SK_SHORT, SK_LONG, SK_WIDE, SK_DTMC, SK_MIXED, SK_BIG, SK_DICT, SK_DICT_BIG, SK_KINDS };
static const char *const sk_name[] = {"short-choices", "long-choices", "many-choices", "dtmc", "mixed", "big",
                                      "few-numbers", "few-numbers-big"};

/* leak: every choice keeps at most 1 - leak_min of its mass inside the
 * system (a contraction: interval iteration converges); full_mass allows
 * choices of mass 1 (plain VI only). */
static void gen_system(struct rng *r, int k, int full_mass, struct sysbuf *sb)
{
    uint32_t n;
    /* few-numbers: a PRISM-like model's handful of distinct probabilities
     * and constants (the packed sweep's dictionaries) */
    const int dict = k == SK_DICT || k == SK_DICT_BIG;
    switch (k) {
    case SK_BIG: n = 20000 + rndu(r, 40000); break;
    case SK_DICT_BIG: n = quick ? 3000 : 20000 + rndu(r, 40000); break;
    case SK_LONG: n = 1 + rndu(r, quick ? 20 : 200); break;
    default: n = 1 + rndu(r, quick ? 40 : 300); break;
    }
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss);
    uint64_t nc = 0;
    for (uint32_t s = 0; s < n; s++) {
        ss[s] = nc;
        switch (k) {
        case SK_DTMC: nc += 1; break;
        case SK_WIDE: nc += rndu(r, 16) ? 10 + rndu(r, 40) : 257 + rndu(r, 100); break; /* > 256: a tile alone */
        case SK_LONG: nc += 1 + rndu(r, 4); break;
        case SK_MIXED: nc += rndu(r, 8) ? 1 + rndu(r, 5) : 20 + rndu(r, 30); break;
        default: nc += 1 + rndu(r, 4); break;
        }
    }
    ss[n] = nc;
    uint64_t *cs = xmalloc((nc + 1) * sizeof *cs);
    uint64_t ne = 0;
    for (uint64_t c = 0; c < nc; c++) {
        cs[c] = ne;
        uint32_t e;
        switch (k) {
        case SK_LONG: e = 10 + rndu(r, 70); break;
        case SK_MIXED: e = rndu(r, 10) ? rndu(r, 4) : 5 + rndu(r, 60); break;
        default: e = rndu(r, 12) ? 1 + rndu(r, 4) : 0; break; /* some constant-only choices */
        }
        ne += e;
    }
    cs[nc] = ne;
    uint32_t *tg = xmalloc((ne ? ne : 1) * sizeof *tg);
    double *pr = xmalloc((ne ? ne : 1) * sizeof *pr);
    double *b = xmalloc((nc ? nc : 1) * sizeof *b);
    for (uint32_t s = 0; s < n; s++)
        for (uint64_t c = ss[s]; c < ss[s + 1]; c++) {
            double leak = full_mass && rndu(r, 2) ? 0 : 0.05 + 0.5 * rndf(r);
            if (dict)
                leak = full_mass && rndu(r, 2) ? 0 : 0.125 * (1 + rndu(r, 3));
            if (cs[c] == cs[c + 1])
                leak = 1;
            if (dict) {
                const uint64_t cnt = cs[c + 1] - cs[c];
                for (uint64_t e = cs[c]; e < cs[c + 1]; e++) {
                    tg[e] = rndu(r, 5) == 0 ? s : rndu(r, 2) ? (uint32_t)((s + rndu(r, 64)) % n) : rndu(r, n);
                    pr[e] = (1 - leak) / (double)cnt;
                }
                b[c] = leak * 0.25 * rndu(r, 5);
                continue;
            }
            double sum = 0;
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++) {
                uint32_t t;
                if (rndu(r, 5) == 0)
                    t = s;
                else if (rndu(r, 2)) /* local, as in explored state spaces */
                    t = (uint32_t)((s + rndu(r, 64)) % n);
                else
                    t = rndu(r, n);
                tg[e] = t;
                pr[e] = 0.01 + rndf(r);
                sum += pr[e];
            }
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++)
                pr[e] = pr[e] / sum * (1 - leak);
            b[c] = leak * rndf(r);
        }
    sb->ss = ss, sb->cs = cs, sb->tg = tg, sb->pr = pr, sb->b = b;
    sb->sys = (struct vi_system){n, nc, ne, ss, cs, tg, pr, b};
}

static void sys_free(struct sysbuf *sb)
{
    free(sb->ss), free(sb->cs), free(sb->tg), free(sb->pr), free(sb->b);
}

/* One Jacobi sweep value of state s: first choice, then the better ones
 * (b[c] + sum in entry order, each product rounded on its own). */
static double ref_state(const struct vi_system *y, uint64_t s, const double *x, int mx)
{
    double best = 0;
    for (uint64_t c = y->state_start[s]; c < y->state_start[s + 1]; c++) {
        volatile double v = y->b[c]; /* volatile: keep each step a separately rounded double op */
        for (uint64_t e = y->choice_start[c]; e < y->choice_start[c + 1]; e++) {
            volatile double p = y->probs[e] * x[y->targets[e]];
            v = v + p;
        }
        if (c == y->state_start[s] || (mx ? v > best : v < best))
            best = v;
    }
    return best;
}

/* The watched states (valiter.h WATCHED STATES) of the reference and of
 * solve_and_compare's solves while watch_case runs; none otherwise. */
static const uint32_t *g_watch;
static uint64_t g_nwatch;

/* Sequential Jacobi with the contract's stopping rules (interval
 * iteration with g_watch: also stops once every watched state meets the
 * rule).  Returns 1 when it converged within max_it sweeps; *iters =
 * sweeps done. */
static int ref_solve(const struct vi_system *y, int mx, double eps, int rel, uint64_t max_it, double *lo,
                     double *hi, uint64_t *iters)
{
    uint64_t n = y->n_states;
    double *nlo = xmalloc(n * sizeof *nlo), *nhi = hi ? xmalloc(n * sizeof *nhi) : NULL;
    int conv = 0;
    uint64_t k = 0;
    while (k < max_it && !conv) {
        k++;
        conv = 1;
        for (uint64_t s = 0; s < n; s++) {
            double l = ref_state(y, s, lo, mx);
            if (hi) {
                double h = ref_state(y, s, hi, mx);
                if (!(l > lo[s]))
                    l = lo[s];
                if (!(h < hi[s]))
                    h = hi[s];
                nlo[s] = l, nhi[s] = h;
                double g = h - l;
                conv &= (rel && l > 0) ? g <= eps * l : g <= eps;
            } else {
                double d = fabs(l - lo[s]);
                conv &= rel ? d <= eps * fabs(l) : d <= eps;
                nlo[s] = l;
            }
        }
        memcpy(lo, nlo, n * sizeof *lo);
        if (hi)
            memcpy(hi, nhi, n * sizeof *hi);
        if (hi && g_nwatch && !conv) {
            int all = 1;
            for (uint64_t i = 0; i < g_nwatch; i++) {
                const uint32_t s = g_watch[i];
                const double g = hi[s] - lo[s];
                all &= (rel && lo[s] > 0) ? g <= eps * lo[s] : g <= eps;
            }
            conv = all;
        }
    }
    free(nlo), free(nhi);
    *iters = k;
    return conv;
}

/* Largest relative difference; counts bit-identical vectors. */
static double vec_diff(const double *a, const double *b, uint64_t n, uint64_t *at)
{
    double worst = 0;
    int same = 1;
    *at = 0;
    for (uint64_t s = 0; s < n; s++) {
        if (a[s] != b[s])
            same = 0;
        double d = fabs(a[s] - b[s]) / (fabs(b[s]) > 1 ? fabs(b[s]) : 1);
        if (!(d <= worst)) /* NaN counts as worst */
            worst = d, *at = s;
    }
    n_compared++;
    n_bitwise += same;
    return worst;
}

/* par.gpu.persist_blocks of the solves below (0: as many blocks as fit) */
static int persist_cap;

struct solve_case {
    int mx, rel, interval;
    double eps;
    uint64_t max_it;
};

/* Runs the GPU (under the pinned kernel, if any) and checks against the
 * reference outcome (converged, iterations, lo, hi). */
static int solve_and_compare(const char *tag, const struct vi_system *y, const struct solve_case *sc,
                             const double *lo0, const double *hi0, int ref_conv, uint64_t ref_it,
                             const double *rlo, const double *rhi, int kind, int group)
{
    uint64_t n = y->n_states;
    double *lo = xmalloc(n * sizeof *lo), *hi = sc->interval ? xmalloc(n * sizeof *hi) : NULL;
    memcpy(lo, lo0, n * sizeof *lo);
    if (hi)
        memcpy(hi, hi0, n * sizeof *hi);
    struct vi_params par = {sc->mx, sc->eps, sc->rel, sc->max_it, VI_JACOBI, 0, 0, 0, {0}, NULL, 0};
    par.gpu.persist_blocks = persist_cap;
    par.watch = g_watch, par.n_watch = g_nwatch;
    struct vi_stats st;
    struct wx_error err;
    wx_error_clear(&err);
    valiter_gpu_set_kernel(kind, group);
    int rc = valiter_solve_gpu(y, &par, lo, hi, &st, &err);
    valiter_gpu_set_kernel(0, 0);
    uint64_t at = 0, at2 = 0;
    double dl = vec_diff(lo, rlo, n, &at), dh = hi ? vec_diff(hi, rhi, n, &at2) : 0;
    int want_rc = ref_conv ? WX_OK : WX_ELIMIT;
    int ok = rc == want_rc && st.iterations == ref_it && dl <= 1e-12 && dh <= 1e-12;
    check(ok, "%s kernel=%d/%d: rc %d (want %d) sweeps %llu (want %llu) lo diff %.3g at %llu (%.17g vs %.17g) hi diff %.3g%s%s",
          tag, kind, group, rc, want_rc, (unsigned long long)st.iterations, (unsigned long long)ref_it, dl,
          (unsigned long long)at, lo[at], rlo[at], dh, rc ? ": " : "", rc ? err.msg : "");
    free(lo), free(hi);
    return ok;
}

static uint64_t n_inplace, n_inplace_sweeps, n_jacobi_sweeps;

/* In-place (VI_GAUSS_SEIDEL) interval solve on the GPU against a tight
 * reference interval [tlo, thi] (NULL: the reference did not converge:
 * the stopping rule and sweep bound are still checked). */
static void inplace_check(const char *tag, const struct vi_system *y, const struct solve_case *sc, const double *lo0,
                          const double *hi0, uint64_t ref_it, const double *tlo, const double *thi, int kind)
{
    uint64_t n = y->n_states;
    double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi);
    memcpy(lo, lo0, n * sizeof *lo);
    memcpy(hi, hi0, n * sizeof *hi);
    struct vi_params par = {sc->mx, sc->eps, sc->rel, sc->max_it, VI_GAUSS_SEIDEL, 0, 0, 0, {0}, NULL, 0};
    struct vi_stats st;
    struct wx_error err;
    wx_error_clear(&err);
    valiter_gpu_set_kernel(kind, 32);
    int rc = valiter_solve_gpu(y, &par, lo, hi, &st, &err);
    valiter_gpu_set_kernel(0, 0);
    const int ran = valiter_gpu_last_kind();
    uint64_t bad = n;
    const char *why = "";
    for (uint64_t s = 0; s < n && rc == WX_OK && bad == n; s++) {
        double g = hi[s] - lo[s];
        int stop = (sc->rel && lo[s] > 0) ? g <= sc->eps * lo[s] : g <= sc->eps;
        if (!stop)
            bad = s, why = "stopping rule";
        else if (tlo && !(lo[s] <= thi[s] + 1e-12 && tlo[s] <= hi[s] + 1e-12))
            bad = s, why = "does not contain the value";
        else if (!(lo[s] >= lo0[s] && hi[s] <= hi0[s]))
            bad = s, why = "left the initial bounds";
    }
    n_inplace++;
    n_inplace_sweeps += st.iterations;
    n_jacobi_sweeps += ref_it;
    check(rc == WX_OK && bad == n && st.iterations <= ref_it && (ran == 7 || ran == 9 || ran == 11 || ran == 13) &&
              (!kind || ran == kind),
          "%s in-place (pinned %d, ran %d): rc %d%s%s, %llu sweeps (Jacobi %llu)%s%s at %llu [%.17g, %.17g] ref [%.17g, %.17g]", tag, kind, ran, rc,
          rc ? ": " : "", rc ? err.msg : "", (unsigned long long)st.iterations, (unsigned long long)ref_it,
          bad < n ? ", " : "", why, (unsigned long long)(bad < n ? bad : 0), bad < n ? lo[bad] : 0,
          bad < n ? hi[bad] : 0, tlo && bad < n ? tlo[bad] : 0, thi && bad < n ? thi[bad] : 0);
    free(lo), free(hi);
}

static uint64_t n_watch_cases, n_watch_earlier;

/* Interval iteration with a watch list of 1..3 random states: the GPU
 * (the automatic kind, and a pinned one: persistent kinds run their
 * launched twins then) and the CPU twin stop after the reference's sweep,
 * bit-identical; never later than without the list (ref_it). */
static void watch_case(const char *tag, struct rng *r, const struct vi_system *y, const struct solve_case *sc,
                       const double *lo0, const double *hi0, uint64_t ref_it)
{
    uint64_t n = y->n_states;
    uint32_t w[3];
    uint64_t nw = 1 + rndu(r, 3);
    for (uint64_t i = 0; i < nw; i++)
        w[i] = rndu(r, (uint32_t)n);
    double *rlo = xmalloc(n * sizeof *rlo), *rhi = xmalloc(n * sizeof *rhi);
    memcpy(rlo, lo0, n * sizeof *rlo);
    memcpy(rhi, hi0, n * sizeof *rhi);
    g_watch = w, g_nwatch = nw;
    uint64_t wit;
    int conv = ref_solve(y, sc->mx, sc->eps, sc->rel, sc->max_it, rlo, rhi, &wit);
    char t2[400];
    snprintf(t2, sizeof t2, "%s watch=%llu states", tag, (unsigned long long)nw);
    if (check(conv && wit <= ref_it, "%s: reference converged (%llu sweeps, %llu without)", t2,
              (unsigned long long)wit, (unsigned long long)ref_it)) {
        static const int kinds[] = {3, 5, 8, 10, 14, 15, 16, 17};
        n_watch_cases++;
        n_watch_earlier += wit < ref_it;
        if (!ref_only) {
            solve_and_compare(t2, y, sc, lo0, hi0, 1, wit, rlo, rhi, 0, 0);
            solve_and_compare(t2, y, sc, lo0, hi0, 1, wit, rlo, rhi, kinds[rndu(r, 8)], 32);
        }
#ifdef HAVE_VALITER_CPU
        double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi);
        memcpy(lo, lo0, n * sizeof *lo);
        memcpy(hi, hi0, n * sizeof *hi);
        struct vi_params par = {sc->mx, sc->eps, sc->rel, sc->max_it, VI_JACOBI, 2, 0, 0, {0}, NULL, 0};
        par.watch = w, par.n_watch = nw;
        struct vi_stats st;
        struct wx_error err;
        wx_error_clear(&err);
        int rc = valiter_solve_cpu(y, &par, lo, hi, &st, &err);
        uint64_t at, at2 = 0;
        double dl = vec_diff(lo, rlo, n, &at), dh = vec_diff(hi, rhi, n, &at2);
        check(rc == WX_OK && st.iterations == wit && dl == 0 && dh == 0,
              "%s: CPU twin rc %d sweeps %llu (want %llu) lo diff %.3g hi diff %.3g", t2, rc,
              (unsigned long long)st.iterations, (unsigned long long)wit, dl, dh);
        free(lo), free(hi);
#endif
    }
    g_watch = NULL, g_nwatch = 0;
    free(rlo), free(rhi);
}

static void solve_instance(uint64_t seed, int k)
{
    struct rng r = {seed};
    struct solve_case sc;
    sc.interval = rndu(&r, 3) != 0;
    sc.mx = (int)rndu(&r, 2);
    sc.rel = rndu(&r, 4) == 0;
    sc.eps = rndu(&r, 2) || k == SK_BIG ? 1e-6 : pow(10, -2.0 - rndu(&r, 7));
    if (quick) /* few sweeps under the sanitizers */
        sc.eps = rndu(&r, 2) ? 1e-2 : 1e-3;
    sc.max_it = 1000000;
    /* plain VI from a random start only on contractions (a mass-1 cycle
     * could make Jacobi oscillate); from 0 it rises monotonically */
    int start_random = !sc.interval && rndu(&r, 3) == 0;
    struct sysbuf sb;
    gen_system(&r, k, !sc.interval && !start_random, &sb);
    const struct vi_system *y = &sb.sys;
    uint64_t n = y->n_states;
    double *lo0 = xmalloc(n * sizeof *lo0), *hi0 = xmalloc(n * sizeof *hi0);
    for (uint64_t s = 0; s < n; s++) {
        lo0[s] = start_random ? rndf(&r) : 0;
        hi0[s] = 1;
    }
    char tag[256];
    snprintf(tag, sizeof tag, "solve %s seed=%llu n=%llu choices=%llu entries=%llu %s %s %s eps=%g", sk_name[k],
             (unsigned long long)seed, (unsigned long long)n, (unsigned long long)y->n_choices,
             (unsigned long long)y->n_entries, sc.interval ? "interval" : "plain-vi", sc.mx ? "max" : "min",
             sc.rel ? "relative" : "absolute", sc.eps);
    double *rlo = xmalloc(n * sizeof *rlo), *rhi = xmalloc(n * sizeof *rhi);
    memcpy(rlo, lo0, n * sizeof *rlo);
    memcpy(rhi, hi0, n * sizeof *rhi);
    uint64_t ref_it;
    int conv = ref_solve(y, sc.mx, sc.eps, sc.rel, sc.max_it, rlo, sc.interval ? rhi : NULL, &ref_it);
    if (!check(conv, "%s: reference converged (%llu sweeps)", tag, (unsigned long long)ref_it))
        goto done;
    if (ref_only)
        goto twin;
    solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, 0, 0);
    const int dict = k == SK_DICT || k == SK_DICT_BIG;
    if (dict) {
        const int ran = valiter_gpu_last_kind();
        check(ran == 8 || ran == 10 || ran == 14 || ran == 15, "%s: the default is a packed sweep (ran kind %d)", tag, ran);
    }
    {
        /* a pinned kernel variant: all must give the same answer (a packed
         * kind where the system cannot be packed runs kind 5) */
        static const int groups1[] = {1, 2, 4, 8, 16, 32}, kinds[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 15};
        int kind = kinds[rndu(&r, 11)];
        int group = kind == 1 ? groups1[rndu(&r, 6)] : (rndu(&r, 2) ? 8 : 32);
        solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, kind, group);
    }
    {
        /* every tiles3 kind (unpacked, even where packing applies):
         * bit-identical, and the pinned kind really ran */
        for (int t3 = 16; t3 <= 17; t3++) {
            solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, t3, 32);
            check(valiter_gpu_last_kind() == t3, "%s: pinned kind %d ran (ran %d)", tag, t3, valiter_gpu_last_kind());
        }
        if (k == SK_BIG || k == SK_DICT_BIG) {
            persist_cap = 1; /* par.gpu.persist_blocks */
            for (int t3 = 16; t3 <= 17; t3++)
                solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, t3, 32);
            persist_cap = 0;
        }
    }
    if (dict) {
        /* packed on (both load policies) and off: bit-identical, and the
         * pinned kind really ran */
        static const int pk[] = {8, 10, 12, 14, 15, 5};
        for (int i = 0; i < 6; i++) {
            solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, pk[i], 32);
            check(valiter_gpu_last_kind() == pk[i], "%s: pinned kind %d ran (ran %d)", tag, pk[i],
                  valiter_gpu_last_kind());
        }
        if (k == SK_DICT_BIG) {
            /* persistent sweeps on a grid of one block per SM: a warp then
             * sweeps several tiles (as on big systems) */
            persist_cap = 1; /* par.gpu.persist_blocks */
            solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, 15, 32);
            solve_and_compare(tag, y, &sc, lo0, hi0, 1, ref_it, rlo, rhi, 14, 32);
            persist_cap = 0;
        }
    }
    if (sc.interval) {
        /* the value lies in a tight reference interval */
        double *tlo = xmalloc(n * sizeof *tlo), *thi = xmalloc(n * sizeof *thi);
        memcpy(tlo, lo0, n * sizeof *tlo);
        memcpy(thi, hi0, n * sizeof *thi);
        uint64_t tit;
        int tconv = ref_solve(y, sc.mx, 1e-11, 0, quick ? 20000 : 200000, tlo, thi, &tit);
        inplace_check(tag, y, &sc, lo0, hi0, ref_it, tconv ? tlo : NULL, tconv ? thi : NULL, 0);
        if (dict) { /* packed in place (both load policies) and unpacked in place */
            inplace_check(tag, y, &sc, lo0, hi0, ref_it, tconv ? tlo : NULL, tconv ? thi : NULL, 9);
            inplace_check(tag, y, &sc, lo0, hi0, ref_it, tconv ? tlo : NULL, tconv ? thi : NULL, 11);
            inplace_check(tag, y, &sc, lo0, hi0, ref_it, tconv ? tlo : NULL, tconv ? thi : NULL, 13);
            inplace_check(tag, y, &sc, lo0, hi0, ref_it, tconv ? tlo : NULL, tconv ? thi : NULL, 7);
        }
        free(tlo), free(thi);
    }
twin:
    if (sc.interval)
        watch_case(tag, &r, y, &sc, lo0, hi0, ref_it);
#ifdef HAVE_VALITER_CPU
    {
        double *lo = xmalloc(n * sizeof *lo), *hi = sc.interval ? xmalloc(n * sizeof *hi) : NULL;
        memcpy(lo, lo0, n * sizeof *lo);
        if (hi)
            memcpy(hi, hi0, n * sizeof *hi);
        struct vi_params par = {sc.mx, sc.eps, sc.rel, sc.max_it, VI_JACOBI, 2, 0, 0, {0}, NULL, 0};
        struct vi_stats st;
        struct wx_error err;
        wx_error_clear(&err);
        int rc = valiter_solve_cpu(y, &par, lo, hi, &st, &err);
        uint64_t at, at2 = 0;
        double dl = vec_diff(lo, rlo, n, &at), dh = hi ? vec_diff(hi, rhi, n, &at2) : 0;
        check(rc == WX_OK && st.iterations == ref_it && dl <= 1e-12 && dh <= 1e-12,
              "%s: CPU twin rc %d sweeps %llu (want %llu) lo diff %.3g hi diff %.3g", tag, rc,
              (unsigned long long)st.iterations, (unsigned long long)ref_it, dl, dh);
        free(lo), free(hi);
    }
#endif
    /* the sweep limit: exactly enough converges, one fewer is WX_ELIMIT
     * with the reference's iterates after that many sweeps */
    if (!ref_only && rndu(&r, 4) == 0 && ref_it >= 2) {
        struct solve_case lim = sc;
        lim.max_it = ref_it;
        solve_and_compare(tag, y, &lim, lo0, hi0, 1, ref_it, rlo, rhi, 0, 0);
        lim.max_it = ref_it - 1;
        memcpy(rlo, lo0, n * sizeof *rlo);
        memcpy(rhi, hi0, n * sizeof *rhi);
        uint64_t it2;
        int c2 = ref_solve(y, sc.mx, sc.eps, sc.rel, lim.max_it, rlo, sc.interval ? rhi : NULL, &it2);
        char t2[400];
        snprintf(t2, sizeof t2, "%s limit=%llu", tag, (unsigned long long)lim.max_it);
        solve_and_compare(t2, y, &lim, lo0, hi0, c2, it2, rlo, rhi, 0, 0);
    }
done:
    free(lo0), free(hi0), free(rlo), free(rhi);
    sys_free(&sb);
}

/* ======================================================================
 * Topological solving by levels (valiter_solve_levels_gpu / _cpu)
 * ====================================================================== */

enum { LK_CHAIN, LK_FEW, LK_MIXED, LK_WIDE, LK_KINDS };
static const char *const lk_name[] = {"chain", "few-big", "mixed", "wide-states"};
static uint64_t n_level_cases, n_level_grouped, n_level_chunked;

struct levbuf {
    uint64_t *ls, nl;
    uint8_t *acyc;
};

/* A system with a level structure: level sizes by shape, every entry of a
 * state of level L goes to a state of level <= L, only lower levels when L
 * is acyclic (then no self loop either).  Contractions (leak >= 0.05). */
static void gen_levels(struct rng *r, int k, struct sysbuf *sb, struct levbuf *lb)
{
    uint64_t nl;
    switch (k) {
    case LK_CHAIN: nl = 1 + rndu(r, quick ? 30 : 400); break;
    case LK_FEW: nl = 1 + rndu(r, 5); break;
    default: nl = 1 + rndu(r, quick ? 12 : 60); break;
    }
    uint64_t *ls = xmalloc((nl + 1) * sizeof *ls);
    uint8_t *acyc = xmalloc(nl);
    uint64_t n = 0;
    for (uint64_t L = 0; L < nl; L++) {
        ls[L] = n;
        uint32_t sz;
        switch (k) {
        case LK_CHAIN: sz = 1 + rndu(r, 4); acyc[L] = rndu(r, 4) != 0; break;
        case LK_FEW: sz = 1 + rndu(r, quick ? 300 : 3000); acyc[L] = rndu(r, 5) == 0; break;
        case LK_WIDE: sz = 1 + rndu(r, 20); acyc[L] = rndu(r, 2); break;
        default: sz = rndu(r, 3) ? 1 + rndu(r, 30) : 1 + rndu(r, quick ? 200 : 1500); acyc[L] = rndu(r, 2); break;
        }
        n += sz;
    }
    ls[nl] = n;
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss);
    uint64_t nc = 0;
    for (uint64_t s = 0; s < n; s++) {
        ss[s] = nc;
        nc += k == LK_WIDE && rndu(r, 8) == 0 ? 257 + rndu(r, 40) : 1 + rndu(r, 4); /* > 256: a tile alone */
    }
    ss[n] = nc;
    uint64_t *cs = xmalloc((nc + 1) * sizeof *cs);
    uint64_t ne = 0;
    for (uint64_t c = 0; c < nc; c++) {
        cs[c] = ne;
        ne += rndu(r, 10) ? 1 + rndu(r, 4) : (k == LK_WIDE ? 300 + rndu(r, 100) : 0);
    }
    cs[nc] = ne;
    uint32_t *tg = xmalloc((ne ? ne : 1) * sizeof *tg);
    double *pr = xmalloc((ne ? ne : 1) * sizeof *pr);
    double *b = xmalloc((nc ? nc : 1) * sizeof *b);
    uint64_t L = 0;
    for (uint64_t s = 0; s < n; s++) {
        while (s >= ls[L + 1])
            L++;
        const uint64_t a = ls[L], z = ls[L + 1];
        for (uint64_t c = ss[s]; c < ss[s + 1]; c++) {
            double leak = 0.05 + 0.5 * rndf(r), sum = 0;
            uint64_t e1 = cs[c];
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++) {
                uint64_t t;
                if (!acyc[L] && (a == 0 || rndu(r, 2)))
                    t = rndu(r, 3) ? a + rndu(r, (uint32_t)(z - a)) : s; /* own level */
                else if (a > 0)
                    t = rndu(r, 2) && L > 0 ? ls[L - 1] + rndu(r, (uint32_t)(a - ls[L - 1])) : rndu(r, (uint32_t)a);
                else
                    continue; /* an acyclic bottom level: constants only */
                tg[e1] = (uint32_t)t;
                pr[e1] = 0.01 + rndf(r);
                sum += pr[e1++];
            }
            /* entries skipped: close the gap by moving the rest of the layout */
            uint64_t drop = cs[c + 1] - e1;
            if (drop) {
                for (uint64_t c2 = c + 1; c2 <= nc; c2++)
                    cs[c2] -= drop;
                ne -= drop;
            }
            if (cs[c] == cs[c + 1])
                leak = 1;
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++)
                pr[e] = pr[e] / sum * (1 - leak);
            b[c] = leak * rndf(r);
        }
    }
    sb->ss = ss, sb->cs = cs, sb->tg = tg, sb->pr = pr, sb->b = b;
    sb->sys = (struct vi_system){n, nc, ne, ss, cs, tg, pr, b};
    lb->ls = ls, lb->acyc = acyc, lb->nl = nl;
}

/* The GPU level solve under a device-memory cap (0: none); a cap below the
 * minimum the solver states is raised until it is enough. */
static int levels_gpu(const struct vi_system *y, const struct vi_params *par0, const struct vi_levels *lv,
                      uint64_t cap, const double *lo0, const double *hi0, double *lo, double *hi,
                      struct vi_stats *st, struct wx_error *err)
{
    uint64_t n = y->n_states;
    struct vi_params par = *par0;
    par.device_memory = cap;
    for (;;) {
        memcpy(lo, lo0, n * sizeof *lo);
        if (hi)
            memcpy(hi, hi0, n * sizeof *hi);
        wx_error_clear(err);
        int rc = valiter_solve_levels_gpu(y, &par, lv, lo, hi, st, err);
        if (rc == WX_ELIMIT && par.device_memory && strstr(err->msg, "needs at least")) {
            par.device_memory *= 2;
            continue;
        }
        return rc;
    }
}

static void levels_instance(uint64_t seed, int k)
{
    struct rng r = {seed};
    struct sysbuf sb;
    struct levbuf lb;
    gen_levels(&r, k, &sb, &lb);
    const struct vi_system *y = &sb.sys;
    const struct vi_levels lv = {lb.nl, lb.ls, lb.acyc};
    uint64_t n = y->n_states;
    int interval = rndu(&r, 4) != 0, mx = (int)rndu(&r, 2), rel = rndu(&r, 5) == 0;
    double eps = quick ? (rndu(&r, 2) ? 1e-2 : 1e-3) : pow(10, -2.0 - rndu(&r, 6));
    uint64_t max_it = rndu(&r, 10) == 0 ? 1 + rndu(&r, 3) : 1000000;
    struct vi_params par = {mx, eps, rel, max_it, VI_JACOBI, 0, 0, 0, {0}, NULL, 0};
    char tag[300];
    snprintf(tag, sizeof tag, "levels %s seed=%llu n=%llu levels=%llu choices=%llu entries=%llu %s %s %s eps=%g max_it=%llu",
             lk_name[k], (unsigned long long)seed, (unsigned long long)n, (unsigned long long)lb.nl,
             (unsigned long long)y->n_choices, (unsigned long long)y->n_entries, interval ? "interval" : "plain-vi",
             mx ? "max" : "min", rel ? "relative" : "absolute", eps, (unsigned long long)max_it);
    double *lo0 = xmalloc(n * sizeof *lo0), *hi0 = xmalloc(n * sizeof *hi0);
    for (uint64_t s = 0; s < n; s++)
        lo0[s] = 0, hi0[s] = 1;
    double *clo = xmalloc(n * sizeof *clo), *chi = xmalloc(n * sizeof *chi);
    double *glo = xmalloc(n * sizeof *glo), *ghi = xmalloc(n * sizeof *ghi);
    double *h = interval ? chi : NULL, *gh = interval ? ghi : NULL;
    struct vi_stats cst, gst;
    struct wx_error err;
    memcpy(clo, lo0, n * sizeof *clo);
    memcpy(chi, hi0, n * sizeof *chi);
    wx_error_clear(&err);
    int crc = valiter_solve_levels_cpu(y, &par, &lv, clo, h, &cst, &err);
    n_level_cases++;
    if (ref_only)
        goto sound;
    int grc = levels_gpu(y, &par, &lv, 0, lo0, hi0, glo, gh, &gst, &err);
    uint64_t at = 0, at2 = 0;
    double dl = vec_diff(glo, clo, n, &at), dh = interval ? vec_diff(ghi, chi, n, &at2) : 0;
    check(grc == crc && (grc != WX_OK || (dl == 0 && dh == 0 && gst.level_sweeps == cst.level_sweeps &&
                                         gst.iterations == cst.iterations)),
          "%s: GPU = CPU twin: rc %d/%d, level sweeps %llu/%llu, lo diff %.3g at %llu, hi diff %.3g at %llu (%s)", tag,
          grc, crc, (unsigned long long)gst.level_sweeps, (unsigned long long)cst.level_sweeps, dl,
          (unsigned long long)at, dh, (unsigned long long)at2, grc ? err.msg : "");
    if (grc == WX_OK && crc == WX_OK) {
        /* grouped under a device-memory cap: bit-identical again */
        double *qlo = xmalloc(n * sizeof *qlo), *qhi = xmalloc(n * sizeof *qhi);
        const uint64_t vec = 2 * ((n * (interval ? 16 : 8) + 255) / 256 * 256) + 256;
        const uint64_t sysb = 4 * n + 12 * y->n_choices + 12 * y->n_entries + 16 * n + 8192;
        const uint64_t cap = vec + 1 + (uint64_t)(rndf(&r) * rndf(&r) * (double)sysb);
        struct vi_stats qst;
        int qrc = levels_gpu(y, &par, &lv, cap, lo0, hi0, qlo, interval ? qhi : NULL, &qst, &err);
        double ql = vec_diff(qlo, clo, n, &at), qh = interval ? vec_diff(qhi, chi, n, &at2) : 0;
        check(qrc == WX_OK && ql == 0 && qh == 0 && qst.level_sweeps == cst.level_sweeps,
              "%s: GPU with --gpu-memory %llu (%llu groups) = ungrouped: rc %d, lo diff %.3g, hi diff %.3g (%s)", tag,
              (unsigned long long)cap, (unsigned long long)qst.groups, qrc, ql, qh, qrc ? err.msg : "");
        n_level_grouped += qst.groups > 1;
        n_level_chunked += qst.groups > lb.nl;
        free(qlo), free(qhi);
    }
sound:
    if (crc == WX_OK && interval && !rel) {
        /* sound: the stopping rule holds, and [lo, hi] holds the value (it
         * overlaps a tight whole-system reference interval, which holds it
         * too), as does plain interval iteration's (GPU, whole system) */
        double *tlo = xmalloc(n * sizeof *tlo), *thi = xmalloc(n * sizeof *thi);
        memcpy(tlo, lo0, n * sizeof *tlo);
        memcpy(thi, hi0, n * sizeof *thi);
        uint64_t tit;
        int tconv = ref_solve(y, mx, 1e-11, 0, quick ? 20000 : 200000, tlo, thi, &tit);
        double *plo = xmalloc(n * sizeof *plo), *phi = xmalloc(n * sizeof *phi);
        memcpy(plo, lo0, n * sizeof *plo);
        memcpy(phi, hi0, n * sizeof *phi);
        struct vi_params pp = par;
        pp.max_iterations = 1000000;
        struct vi_stats pst;
        wx_error_clear(&err);
        int prc = ref_only ? valiter_solve_cpu(y, &pp, plo, phi, &pst, &err)
                           : valiter_solve_gpu(y, &pp, plo, phi, &pst, &err);
        uint64_t bad = n, pbad = n;
        for (uint64_t s = 0; s < n && bad == n; s++)
            if (!(clo[s] <= chi[s] && chi[s] - clo[s] <= eps) ||
                (tconv && !(clo[s] <= thi[s] + 1e-12 && tlo[s] <= chi[s] + 1e-12)))
                bad = s;
        for (uint64_t s = 0; s < n && pbad == n; s++)
            if (!(plo[s] <= chi[s] && clo[s] <= phi[s]) ||
                fabs(0.5 * (plo[s] + phi[s]) - 0.5 * (clo[s] + chi[s])) > eps)
                pbad = s;
        check(tconv && bad == n, "%s: topological interval sound at every state (first bad %llu)", tag,
              (unsigned long long)bad);
        check(prc == WX_OK && pbad == n,
              "%s: plain interval iteration (%llu sweeps) overlaps, midpoints within eps (first bad %llu; "
              "topological: %llu equivalent sweeps)", tag, (unsigned long long)pst.iterations,
              (unsigned long long)pbad, (unsigned long long)cst.iterations);
        free(tlo), free(thi), free(plo), free(phi);
    }
    free(lo0), free(hi0), free(clo), free(chi), free(glo), free(ghi);
    free(lb.ls), free(lb.acyc);
    sys_free(&sb);
}

/* ======================================================================
 * Hand-made cases and bad inputs
 * ====================================================================== */

/* The packed sweep's limits: 256 distinct probabilities (or constants) are
 * packed, 257 are not; a state with 255 entries is packed, one with 256 is
 * not.  Pinned kind 8 falls back to kind 5 where it cannot pack; the values
 * are the reference's either way. */
static void packed_case(const char *what, uint32_t n, uint32_t big_entries, uint32_t nprob, uint32_t nb, int want)
{
    /* state s: one choice; state 0 has big_entries entries (or 1), others 1 */
    uint64_t ne = (uint64_t)n - 1 + (big_entries ? big_entries : 1);
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss), *cs = xmalloc((n + 1) * sizeof *cs);
    uint32_t *tg = xmalloc(ne * sizeof *tg);
    double *pr = xmalloc(ne * sizeof *pr), *b = xmalloc(n * sizeof *b);
    uint64_t e = 0;
    for (uint32_t s = 0; s < n; s++) {
        ss[s] = s, cs[s] = e;
        uint32_t m = s == 0 && big_entries ? big_entries : 1;
        for (uint32_t j = 0; j < m; j++, e++) {
            tg[e] = (s + 1 + j) % n;
            /* nprob distinct values 0.25 + i/4096 (divided by m in state 0) */
            pr[e] = (0.25 + (double)(e % nprob) / 4096.0) / m;
        }
        b[s] = 0.25 * (double)(s % nb) / (double)nb;
    }
    ss[n] = n, cs[n] = e;
    struct vi_system y = {n, n, ne, ss, cs, tg, pr, b};
    struct solve_case sc = {1, 0, 1, 1e-9, 1000000};
    double *lo0 = xmalloc(n * sizeof *lo0), *hi0 = xmalloc(n * sizeof *hi0);
    double *rlo = xmalloc(n * sizeof *rlo), *rhi = xmalloc(n * sizeof *rhi);
    for (uint32_t s = 0; s < n; s++) /* constants < 0.25, mass <= 0.3125: values < 0.37 */
        lo0[s] = rlo[s] = 0, hi0[s] = rhi[s] = 1;
    uint64_t it;
    int conv = ref_solve(&y, 1, sc.eps, 0, sc.max_it, rlo, rhi, &it);
    char tag[200];
    snprintf(tag, sizeof tag, "packed limits: %s", what);
    if (check(conv, "%s: reference converged", tag)) {
        solve_and_compare(tag, &y, &sc, lo0, hi0, 1, it, rlo, rhi, 8, 32);
        check(valiter_gpu_last_kind() == want, "%s: pinned kind 8 ran kind %d (want %d)", tag,
              valiter_gpu_last_kind(), want);
        solve_and_compare(tag, &y, &sc, lo0, hi0, 1, it, rlo, rhi, 12, 32);
        check(valiter_gpu_last_kind() == (want == 8 ? 12 : 5), "%s: pinned kind 12 ran kind %d", tag,
              valiter_gpu_last_kind());
        solve_and_compare(tag, &y, &sc, lo0, hi0, 1, it, rlo, rhi, 14, 32);
        check(valiter_gpu_last_kind() == (want == 8 ? 14 : 5), "%s: pinned kind 14 ran kind %d", tag,
              valiter_gpu_last_kind());
    }
    free(ss), free(cs), free(tg), free(pr), free(b), free(lo0), free(hi0), free(rlo), free(rhi);
}

static void packed_limits(void)
{
    packed_case("256 probabilities", 600, 0, 256, 3, 8);
    packed_case("257 probabilities", 600, 0, 257, 3, 5);
    packed_case("256 constants", 600, 0, 3, 256, 8);
    packed_case("257 constants", 600, 0, 3, 257, 5);
    packed_case("a state with 255 entries", 600, 255, 4, 3, 8);
    packed_case("a state with 256 entries", 600, 256, 4, 3, 5);
}

/* The tiles3 sweeps' limits: a tile holds at most 128 choices and 256
 * entries, a bigger state is a tile of its own (swept by the whole warp).
 * n states; state 0 (and, with twice, state 1) has nch choices holding ne
 * entries in all, spread evenly (choices without an entry when ne < nch),
 * the others 1-3 choices of 0-3 entries.  Every tiles3 kind against the
 * reference, min and max, interval and plain. */
static void t3_case(uint32_t n, uint32_t nch, uint32_t ne, int twice, uint64_t seed)
{
    struct rng r = {seed};
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss), *cs = NULL;
    uint64_t nc = 0, nent = 0;
    for (int pass = 0; pass < 2; pass++) {
        struct rng q = {seed * 7 + 1};
        nc = 0, nent = 0;
        for (uint32_t s = 0; s < n; s++) {
            const int big = s == 0 || (twice && s == 1);
            const uint32_t k = big ? nch : 1 + rndu(&q, 3);
            if (pass)
                ss[s] = nc;
            for (uint32_t c = 0; c < k; c++, nc++) {
                uint32_t m;
                if (big) /* ne spread evenly over the choices (some empty when ne < nch) */
                    m = ne / k + (c < ne % k);
                else
                    m = rndu(&q, 4);
                if (pass)
                    cs[nc] = nent;
                nent += m;
            }
        }
        if (!pass)
            cs = xmalloc((nc + 1) * sizeof *cs);
    }
    ss[n] = nc, cs[nc] = nent;
    uint32_t *tg = xmalloc((nent ? nent : 1) * sizeof *tg);
    double *pr = xmalloc((nent ? nent : 1) * sizeof *pr), *b = xmalloc(nc * sizeof *b);
    for (uint64_t c = 0; c < nc; c++) {
        const uint64_t m = cs[c + 1] - cs[c];
        for (uint64_t e = cs[c]; e < cs[c + 1]; e++)
            tg[e] = rndu(&r, n), pr[e] = (0.3 + 0.6 * rndf(&r)) / (double)m * 0.95;
        b[c] = 0.05 * rndf(&r);
    }
    struct vi_system y = {n, nc, nent, ss, cs, tg, pr, b};
    double *lo0 = xmalloc(n * sizeof *lo0), *hi0 = xmalloc(n * sizeof *hi0);
    double *rlo = xmalloc(n * sizeof *rlo), *rhi = xmalloc(n * sizeof *rhi);
    for (int v = 0; v < 4; v++) {
        struct solve_case sc = {v & 1, 0, v < 2, 1e-9, 1000000};
        for (uint32_t s = 0; s < n; s++)
            lo0[s] = rlo[s] = 0, hi0[s] = rhi[s] = 1;
        uint64_t it;
        int conv = ref_solve(&y, sc.mx, sc.eps, 0, sc.max_it, rlo, sc.interval ? rhi : NULL, &it);
        char tag[200];
        snprintf(tag, sizeof tag, "tiles3 limits: n=%u, %s with %u choices and %u entries, %s %s", n,
                 twice ? "states 0 and 1" : "state 0", nch, ne, sc.interval ? "interval" : "plain-vi",
                 sc.mx ? "max" : "min");
        if (!check(conv, "%s: reference converged", tag))
            continue;
        for (int t3 = 16; t3 <= 17; t3++)
            solve_and_compare(tag, &y, &sc, lo0, hi0, 1, it, rlo, rhi, t3, 32);
    }
    free(ss), free(cs), free(tg), free(pr), free(b), free(lo0), free(hi0), free(rlo), free(rhi);
}

static void t3_limits(void)
{
    static const uint32_t chs[] = {1, 127, 128, 129, 200, 257}, ens[] = {0, 255, 256, 257, 600};
    uint64_t seed = 77;
    for (unsigned i = 0; i < sizeof chs / sizeof chs[0]; i++)
        for (unsigned j = 0; j < sizeof ens / sizeof ens[0]; j++) {
            if (quick && (i + j) % 3)
                continue;
            t3_case(quick ? 300 : 3000, chs[i], ens[j], (i + j) & 1, seed++);
        }
}

/* ======================================================================
 * Certified policy iteration (VI_POLICY)
 * ====================================================================== */

/* kernels/vi/'s test hook: caps of the policy rounds and of the
 * BiCGSTAB iterations per solve (0 = the contract's VI_PI_ROUNDS,
 * VI_PI_KRYLOV_MAX), and of BiCGSTAB's blocks (0 = as many as fit) */
void valiter_gpu_set_pi_limits(int rounds, int krylov_iterations, int krylov_blocks);

enum { PK_SMALL, PK_FORWARD, PK_TIED, PK_REWARD, PK_DICT, PK_DTMC, PK_BIG, PK_DICT_BIG, PK_KINDS };
static const char *const pk_name[] = {"small",   "forward-mass-1", "tied-choices", "rewards",
                                      "few-numbers", "dtmc",       "big",          "few-numbers-big"};
static uint64_t n_pi_cases, n_pi_policy, n_pi_certified, n_pi_fallback, n_pi_forced, n_pi_forced_exact,
    n_pi_twin, n_pi_twin_flags_differ, n_pi_twin_rounds_differ;

/* Systems without end components, for both min and max: every choice
 * leaks mass out of the system (slowly: small leaks take interval
 * iteration past VI_PI_SWEEPS), or (forward) moves all its mass to
 * higher-numbered states, so every cycle leaks.  Self loops, constant-only
 * choices, exact duplicates of the previous choice (tied), rewards-like
 * constants > 1.  *hi_bound: a valid upper bound on the values. */
static void gen_pi_system(struct rng *r, int k, struct sysbuf *sb, double *hi_bound)
{
    uint32_t n;
    const int dict = k == PK_DICT || k == PK_DICT_BIG, big = k == PK_BIG || k == PK_DICT_BIG;
    switch (k) {
    case PK_BIG: n = quick ? 2000 : 5000 + rndu(r, 10000); break;
    case PK_DICT_BIG: n = quick ? 2000 : 10000 + rndu(r, 15000); break;
    default: n = 1 + rndu(r, quick ? 40 : 150); break;
    }
    const double lmin = big ? 0.01 : 0.002 + 0.01 * rndf(r), bscale = k == PK_REWARD ? 1 + 20 * rndf(r) : 1;
    uint64_t *ss = xmalloc((n + 1) * sizeof *ss);
    uint64_t nc = 0;
    for (uint32_t s = 0; s < n; s++) {
        ss[s] = nc;
        nc += k == PK_DTMC ? 1 : 1 + rndu(r, 5);
    }
    ss[n] = nc;
    uint64_t *cs = xmalloc((nc + 1) * sizeof *cs);
    uint8_t *dup = xmalloc(nc), *fwd = xmalloc(nc);
    uint64_t ne = 0;
    for (uint32_t s = 0; s < n; s++)
        for (uint64_t c = ss[s]; c < ss[s + 1]; c++) {
            cs[c] = ne;
            dup[c] = c > ss[s] && (k == PK_TIED ? rndu(r, 2) == 0 : rndu(r, 10) == 0);
            fwd[c] = !dup[c] && s + 1 < n && (k == PK_FORWARD ? rndu(r, 4) != 0 : rndu(r, 8) == 0);
            if (dup[c])
                ne += cs[c] - cs[c - 1];
            else
                ne += rndu(r, 12) || fwd[c] ? 1 + rndu(r, 4) : 0; /* some constant-only choices */
        }
    cs[nc] = ne;
    uint32_t *tg = xmalloc((ne ? ne : 1) * sizeof *tg);
    double *pr = xmalloc((ne ? ne : 1) * sizeof *pr), *b = xmalloc((nc ? nc : 1) * sizeof *b);
    double worst = 1; /* the smallest leak of a leaking choice */
    for (uint32_t s = 0; s < n; s++)
        for (uint64_t c = ss[s]; c < ss[s + 1]; c++) {
            const uint64_t cnt = cs[c + 1] - cs[c];
            if (dup[c]) {
                memcpy(tg + cs[c], tg + cs[c - 1], cnt * sizeof *tg);
                memcpy(pr + cs[c], pr + cs[c - 1], cnt * sizeof *pr);
                b[c] = b[c - 1];
                continue;
            }
            double leak = dict ? (1 + rndu(r, 3)) / 256.0 * (big ? 4 : 1) : lmin + (rndu(r, 2) ? 0 : 0.05 * rndf(r));
            if (fwd[c])
                leak = 0;
            if (!cnt)
                leak = 1;
            if (leak > 0 && leak < worst)
                worst = leak;
            double sum = 0;
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++) {
                uint32_t t;
                if (fwd[c])
                    t = s + 1 + rndu(r, rndu(r, 2) ? (n - s - 1 < 8 ? n - s - 1 : 8) : n - s - 1);
                else if (rndu(r, 5) == 0)
                    t = s; /* self loop */
                else if (rndu(r, 2))
                    t = (uint32_t)((s + rndu(r, 64)) % n);
                else
                    t = rndu(r, n);
                tg[e] = t;
                pr[e] = dict ? 1 : 0.01 + rndf(r);
                sum += pr[e];
            }
            for (uint64_t e = cs[c]; e < cs[c + 1]; e++)
                pr[e] = dict ? (1 - leak) / (double)cnt : pr[e] / sum * (1 - leak);
            b[c] = dict ? leak * 0.25 * rndu(r, 5) : leak * bscale * rndf(r);
        }
    free(dup), free(fwd);
    /* values <= bscale * (most steps to leave) ... bounded by bscale / worst
     * per leaking step; forward chains add at most n steps of no leak */
    *hi_bound = bscale * (1 + (double)n) / worst;
    if (k != PK_REWARD)
        *hi_bound = 1; /* b <= leak: probabilities */
    sb->ss = ss, sb->cs = cs, sb->tg = tg, sb->pr = pr, sb->b = b;
    sb->sys = (struct vi_system){n, nc, ne, ss, cs, tg, pr, b};
}

/* The general checks of a VI_POLICY answer; returns the first bad state (n: none). */
static uint64_t pi_bad_state(const struct vi_system *y, double eps, const double *lo, const double *hi,
                             const double *lo0, const double *hi0, const double *tlo, const double *thi,
                             const char **why)
{
    const uint64_t n = y->n_states;
    for (uint64_t s = 0; s < n; s++) {
        const double tol = 1e-13 * (1 + fabs(thi[s]));
        if (!(hi[s] - lo[s] <= eps))
            return *why = "hi - lo > eps", s;
        if (!(lo[s] >= lo0[s] && hi[s] <= hi0[s]))
            return *why = "left the initial bounds", s;
        if (!(lo[s] <= thi[s] + tol && hi[s] >= tlo[s] - tol))
            return *why = "misses the value (tight reference interval)", s;
    }
    return *why = "", n;
}

/* What VI_POLICY's step 1 leads to (valiter.h), by the reference's
 * Jacobi sweeps: 0 interval iteration converges within K sweeps, 1 it goes
 * on to the end (the gap shrinks fast enough), 2 the policy steps run. */
static int pi_route(const struct vi_system *y, int mx, double eps, uint64_t K, const double *lo0, const double *hi0)
{
    const uint64_t n = y->n_states;
    double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi), g[2] = {0, 0};
    memcpy(lo, lo0, n * sizeof *lo), memcpy(hi, hi0, n * sizeof *hi);
    int route = 2;
    uint64_t it;
    for (int part = 0; part < (K >= 2 ? 2 : 1); part++) {
        if (ref_solve(y, mx, eps, 0, K >= 2 ? (part ? K - K / 2 : K / 2) : K, lo, hi, &it)) {
            route = 0;
            break;
        }
        for (uint64_t s = 0; s < n; s++)
            g[part] = hi[s] - lo[s] > g[part] ? hi[s] - lo[s] : g[part];
    }
    if (route == 2 && K >= 2 && g[1] < g[0] &&
        (double)(K - K / 2) * log(g[1] / eps) / log(g[0] / g[1]) <= VI_PI_CONTINUE)
        route = 1;
    free(lo), free(hi);
    return route;
}

static void pi_instance(uint64_t seed, int k)
{
    struct rng r = {seed};
    struct sysbuf sb;
    double hb;
    const int mx = (int)rndu(&r, 2);
    const double eps = quick ? 1e-6 : rndu(&r, 3) ? 1e-6 : pow(10, -4.0 - rndu(&r, 5));
    gen_pi_system(&r, k, &sb, &hb);
    const struct vi_system *y = &sb.sys;
    const uint64_t n = y->n_states;
    double *lo0 = xmalloc(n * sizeof *lo0), *hi0 = xmalloc(n * sizeof *hi0);
    for (uint64_t s = 0; s < n; s++)
        lo0[s] = 0, hi0[s] = hb;
    char tag[256];
    snprintf(tag, sizeof tag, "policy %s seed=%llu n=%llu choices=%llu entries=%llu %s eps=%g", pk_name[k],
             (unsigned long long)seed, (unsigned long long)n, (unsigned long long)y->n_choices,
             (unsigned long long)y->n_entries, mx ? "max" : "min", eps);
    /* references: interval iteration to eps (sweeps, iterates) and tight */
    double *rlo = xmalloc(n * sizeof *rlo), *rhi = xmalloc(n * sizeof *rhi);
    double *tlo = xmalloc(n * sizeof *tlo), *thi = xmalloc(n * sizeof *thi);
    memcpy(rlo, lo0, n * sizeof *rlo), memcpy(rhi, hi0, n * sizeof *rhi);
    memcpy(tlo, lo0, n * sizeof *tlo), memcpy(thi, hi0, n * sizeof *thi);
    uint64_t ref_it = 0, tit = 0;
    const int conv = ref_solve(y, mx, eps, 0, 5000000, rlo, rhi, &ref_it);
    const int tconv = ref_solve(y, mx, 1e-12 * hb, 0, 20000000, tlo, thi, &tit);
    double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi);
    if (!check(conv && tconv, "%s: references converged (%llu, %llu sweeps)", tag, (unsigned long long)ref_it,
               (unsigned long long)tit))
        goto done;
    const int few_blocks = 1 + (int)rndu(&r, 3);
    for (int pass = 0; pass < 5; pass++) {
        /* 0: the contract; 1: BiCGSTAB capped at 1 iteration (mostly step
         * 5 from step 1's bounds: Jacobi's answer, with the greedy sweeps
         * added); 2: one policy round (a policy that may not be optimal:
         * the certificate decides, halves on their own); 3: step 1 of a
         * single sweep (pi_sweeps = 1: the policy steps from rough bounds);
         * 4: BiCGSTAB on 1-3 blocks (threads with several rows, few partials) */
        const uint64_t K = pass == 3 ? 1 : VI_PI_SWEEPS;
        const int route = pi_route(y, mx, eps, K, lo0, hi0);
        memcpy(lo, lo0, n * sizeof *lo), memcpy(hi, hi0, n * sizeof *hi);
        struct vi_params par = {mx, eps, 0, 10000000, VI_POLICY, 0, 0, pass == 3 ? 1 : 0, {0}, NULL, 0};
        struct vi_stats st;
        struct wx_error err;
        wx_error_clear(&err);
        memset(&st, 0, sizeof st);
        valiter_gpu_set_pi_limits(pass == 2 ? 1 : 0, pass == 1 ? 1 : 0, pass == 4 ? few_blocks : 0);
        const int rc = valiter_solve_gpu(y, &par, lo, hi, &st, &err);
        valiter_gpu_set_pi_limits(0, 0, 0);
        const char *why = "";
        const uint64_t bad = rc == WX_OK ? pi_bad_state(y, eps, lo, hi, lo0, hi0, tlo, thi, &why) : 0;
        int ok = rc == WX_OK && bad == n && (st.certified == 0 || st.certified == 1);
        const char *what = "";
        uint64_t at;
        if (ok && route < 2) { /* interval iteration alone: identical to VI_JACOBI */
            ok = st.certified == 0 && st.iterations == ref_it && st.products == 0 && st.policy_rounds == 0 &&
                 vec_diff(lo, rlo, n, &at) == 0 && vec_diff(hi, rhi, n, &at) == 0;
            what = ok ? "" : ", expected interval iteration's answer and sweeps";
        } else if (ok && !st.certified) {
            ok = st.iterations > K;
            if (pass == 1 && st.iterations == ref_it + 1 + st.policy_rounds && !memcmp(lo, rlo, n * sizeof *lo) &&
                !memcmp(hi, rhi, n * sizeof *hi))
                n_pi_forced_exact++; /* no certificate reached: step 5 went on from step 1's bounds */
        } else if (ok) /* certified by the policy steps */
            ok = st.policy_rounds >= 1 && st.products >= 3 && st.iterations >= K + 3;
        check(ok, "%s pass %d: rc %d%s%s, route %d, certified %d, %llu sweeps (interval iteration %llu), %llu rounds, %llu products%s%s%s at %llu [%.17g, %.17g] tight [%.17g, %.17g]",
              tag, pass, rc, rc ? ": " : "", rc ? err.msg : "", route, st.certified,
              (unsigned long long)st.iterations, (unsigned long long)ref_it, (unsigned long long)st.policy_rounds,
              (unsigned long long)st.products, what, bad < n ? ", " : "", why,
              (unsigned long long)(bad < n ? bad : 0), bad < n ? lo[bad] : 0, bad < n ? hi[bad] : 0,
              bad < n ? tlo[bad] : 0, bad < n ? thi[bad] : 0);
        if (route < 2)
            continue;
        n_pi_cases++;
        if (pass == 0 || pass == 3 || pass == 4) {
            n_pi_policy++;
            n_pi_certified += st.certified == 1;
            n_pi_fallback += st.certified == 0;
        } else
            n_pi_forced += st.certified == 0;
#ifdef HAVE_VALITER_CPU
        if (pass == 0 || pass == 3) { /* the CPU twin: overlapping intervals, the same certified flag (counted) */
            double *clo = xmalloc(n * sizeof *clo), *chi = xmalloc(n * sizeof *chi);
            memcpy(clo, lo0, n * sizeof *clo), memcpy(chi, hi0, n * sizeof *chi);
            struct vi_params cpar = par;
            cpar.threads = 2;
            struct vi_stats cst;
            memset(&cst, 0, sizeof cst);
            wx_error_clear(&err);
            const int crc = valiter_solve_cpu(y, &cpar, clo, chi, &cst, &err);
            uint64_t cbad = n;
            for (uint64_t s = 0; s < n && crc == WX_OK && cbad == n; s++) {
                const double tol = 1e-13 * (1 + fabs(thi[s]));
                if (!(clo[s] <= hi[s] + tol && lo[s] <= chi[s] + tol))
                    cbad = s;
            }
            check(crc == WX_OK && cbad == n,
                  "%s pass %d: CPU twin rc %d%s%s, [lo, hi] overlap the GPU's%s (CPU certified %d, %llu rounds, %llu products, %llu sweeps; GPU %d, %llu, %llu, %llu)",
                  tag, pass, crc, crc ? ": " : "", crc ? err.msg : "", cbad < n ? " NOT" : "", cst.certified,
                  (unsigned long long)cst.policy_rounds, (unsigned long long)cst.products,
                  (unsigned long long)cst.iterations, st.certified, (unsigned long long)st.policy_rounds,
                  (unsigned long long)st.products, (unsigned long long)st.iterations);
            n_pi_twin++;
            n_pi_twin_flags_differ += cst.certified != st.certified;
            n_pi_twin_rounds_differ += cst.policy_rounds != st.policy_rounds;
            if (cst.certified != st.certified || cst.policy_rounds != st.policy_rounds)
                printf("# %s pass %d: the twins differ: certified CPU %d GPU %d, rounds CPU %llu GPU %llu, sweeps CPU %llu GPU %llu\n",
                       tag, pass, cst.certified, st.certified, (unsigned long long)cst.policy_rounds,
                       (unsigned long long)st.policy_rounds, (unsigned long long)cst.iterations,
                       (unsigned long long)st.iterations);
            free(clo), free(chi);
        }
#endif
    }
done:
    free(lo0), free(hi0), free(rlo), free(rhi), free(tlo), free(thi), free(lo), free(hi);
    sys_free(&sb);
}

/* Hand-made: an end component left in (the greedy policy's matrix is
 * singular): BiCGSTAB breaks down, interval iteration takes over and runs
 * out of sweeps; relative and plain modes are VI_JACOBI. */
static void pi_hand_made(void)
{
    uint64_t lss[] = {0, 1}, lcs[] = {0, 1};
    uint32_t ltg[] = {0};
    double lpr[] = {1}, lb[] = {0};
    struct vi_system y3 = {1, 1, 1, lss, lcs, ltg, lpr, lb};
    double l3 = 0, h3 = 1;
    struct vi_params par = {1, 1e-9, 0, 500, VI_POLICY, 0, 0, 0, {0}, NULL, 0};
    struct vi_stats st;
    struct wx_error err;
    wx_error_clear(&err);
    memset(&st, 0, sizeof st);
    int rc = valiter_solve_gpu(&y3, &par, &l3, &h3, &st, &err);
    check(rc == WX_ELIMIT && st.iterations == 500 && l3 == 0 && h3 == 1 && st.certified == 0,
          "policy: end component left in: WX_ELIMIT after 500 sweeps (%d, %llu, certified %d: %s)", rc,
          (unsigned long long)st.iterations, st.certified, err.msg);
    /* max_iterations below VI_PI_SWEEPS: interval iteration's WX_ELIMIT */
    par.max_iterations = 50;
    l3 = 0, h3 = 1;
    wx_error_clear(&err);
    rc = valiter_solve_gpu(&y3, &par, &l3, &h3, &st, &err);
    check(rc == WX_ELIMIT && st.iterations == 50, "policy: 50 sweeps allowed: WX_ELIMIT after 50 (%d, %llu)", rc,
          (unsigned long long)st.iterations);
    /* a slow 4-cycle: x_i = 0.0005 + 0.999 x_(i+1 mod 4), and state 0 may
     * also leave with a constant (0.2 for max, 0.8 for min) that the cycle's
     * value 0.5 beats: interval iteration needs ~20 000 sweeps; the greedy
     * policy after VI_PI_SWEEPS takes the constant, the next round the cycle */
    uint64_t css[] = {0, 2, 3, 4, 5}, ccs[] = {0, 1, 1, 2, 3, 4};
    uint32_t ctg[] = {1, 2, 3, 0};
    double cpr[] = {0.999, 0.999, 0.999, 0.999}, cb[] = {0.0005, 0.2, 0.0005, 0.0005, 0.0005};
    struct vi_system yc = {4, 5, 4, css, ccs, ctg, cpr, cb};
    for (int mx = 0; mx < 2; mx++) {
        cb[1] = mx ? 0.2 : 0.8;
        double lo[4] = {0, 0, 0, 0}, hi[4] = {1, 1, 1, 1};
        struct vi_params pp = {mx, 1e-9, 0, 10000000, VI_POLICY, 0, 0, 0, {0}, NULL, 0};
        wx_error_clear(&err);
        memset(&st, 0, sizeof st);
        rc = valiter_solve_gpu(&yc, &pp, lo, hi, &st, &err);
        const double want0 = 0.5;
        check(rc == WX_OK && lo[0] <= want0 + 1e-15 && hi[0] >= want0 - 1e-15 && hi[0] - lo[0] <= 1e-9 &&
                  st.certified == 1 && st.policy_rounds >= 1,
              "policy: slow 4-cycle %s: x0 in [%.17g, %.17g] (want %.17g), certified %d, %llu rounds, %llu products, %llu sweeps (%d: %s)",
              mx ? "max" : "min", lo[0], hi[0], want0, st.certified, (unsigned long long)st.policy_rounds,
              (unsigned long long)st.products, (unsigned long long)st.iterations, rc, err.msg);
    }
}

static void hand_made(void)
{
    /* 0 -(a: 0.5 to 1, 0.5 to T)-> ; 0 -(b: self-loop 1)- ; 1 -(0.5 to 0, 0.5 to T)- ; 2 = T
     * 3: deadlock, 4: only to 3.  Pmax(0) = Pmax(1) = 1, Pmin(0) = 0, Pmin(1) = 0.5 */
    uint64_t ss[] = {0, 2, 3, 4, 4, 5};
    uint64_t cs[] = {0, 2, 3, 5, 6, 7};
    uint32_t tg[] = {1, 2, 0, 0, 2, 2, 3};
    double pr[] = {0.5, 0.5, 1, 0.5, 0.5, 1, 1};
    struct mdp m = {5, 5, 7, ss, cs, tg, pr, 0};
    uint8_t target[] = {0, 0, 1, 0, 0};
    const uint8_t want[4][5] = {{0, 0, 0, 1, 1}, {1, 0, 0, 1, 1}, {1, 1, 1, 0, 0}, {0, 0, 1, 0, 0}};
    for (int w = 0; w < 4; w++) {
        uint8_t out[5];
        struct wx_error err;
        wx_error_clear(&err);
        int rc = valiter_precompute_gpu(&m, NULL, target, (enum vi_precomp)w, out, &err);
        check(rc == 0 && !memcmp(out, want[w], 5), "hand-made MDP %s: rc %d, sets %d%d%d%d%d (want %d%d%d%d%d)",
              which_name[w], rc, out[0], out[1], out[2], out[3], out[4], want[w][0], want[w][1], want[w][2],
              want[w][3], want[w][4]);
    }
    struct wx_error err;
    uint8_t out[5];
    wx_error_clear(&err);
    check(valiter_precompute_gpu(&m, NULL, NULL, VI_PMAX0, out, &err) == WX_EINPUT, "precompute without target: WX_EINPUT");
    tg[6] = 7;
    wx_error_clear(&err);
    int rc = valiter_precompute_gpu(&m, NULL, target, VI_PMAX0, out, &err);
    check(rc == WX_EINPUT, "precompute with an entry to state 7 of 5: WX_EINPUT (%d: %s)", rc, err.msg);
    tg[6] = 3;

    /* a 2-state system: x0 = max(0.5 + 0.5 x1, 0.1), x1 = 0.25 + 0.5 x0 -> x0 = 5/6, x1 = 2/3 */
    uint64_t vss[] = {0, 2, 3};
    uint64_t vcs[] = {0, 1, 1, 2};
    uint32_t vtg[] = {1, 0};
    double vpr[] = {0.5, 0.5}, vb[] = {0.5, 0.1, 0.25};
    struct vi_system y = {2, 3, 2, vss, vcs, vtg, vpr, vb};
    struct vi_params par = {1, 1e-9, 0, 10000, VI_JACOBI, 0, 0, 0, {0}, NULL, 0};
    double lo[2] = {0, 0}, hi[2] = {1, 1};
    struct vi_stats st;
    wx_error_clear(&err);
    rc = valiter_solve_gpu(&y, &par, lo, hi, &st, &err);
    check(rc == 0 && fabs(lo[0] - 5.0 / 6) <= 1e-9 && fabs(hi[0] - 5.0 / 6) <= 1e-9 && lo[0] <= 5.0 / 6 + 1e-15 &&
              hi[0] >= 5.0 / 6 - 1e-15 && fabs(lo[1] - 2.0 / 3) <= 1e-9,
          "hand-made system: rc %d, x0 in [%.12f, %.12f] (5/6), x1 %.12f (2/3), %llu sweeps, %.3g s/sweep, %llu bytes/sweep",
          rc, lo[0], hi[0], lo[1], (unsigned long long)st.iterations, st.sweep_seconds,
          (unsigned long long)st.bytes_per_sweep);
    par.epsilon = 0;
    wx_error_clear(&err);
    check(valiter_solve_gpu(&y, &par, lo, hi, &st, &err) == WX_EINPUT, "epsilon 0: WX_EINPUT");
    par.epsilon = 1e-9;
    vtg[1] = 2;
    wx_error_clear(&err);
    rc = valiter_solve_gpu(&y, &par, lo, hi, &st, &err);
    check(rc == WX_EINPUT, "system entry to state 2 of 2: WX_EINPUT (%d: %s)", rc, err.msg);
    vtg[1] = 0;
    uint64_t bss[] = {0, 3, 3};
    struct vi_system y2 = {2, 3, 2, bss, vcs, vtg, vpr, vb};
    wx_error_clear(&err);
    rc = valiter_solve_gpu(&y2, &par, lo, hi, &st, &err);
    check(rc == WX_EINPUT, "system state without a choice: WX_EINPUT (%d: %s)", rc, err.msg);
    packed_limits();
    t3_limits();
    pi_hand_made();
    /* no convergence: x = x (mass 1 self-loop), lo 0, hi 1 never meet */
    uint64_t lss[] = {0, 1}, lcs[] = {0, 1};
    uint32_t ltg[] = {0};
    double lpr[] = {1}, lb[] = {0};
    struct vi_system y3 = {1, 1, 1, lss, lcs, ltg, lpr, lb};
    double l3 = 0, h3 = 1;
    par.max_iterations = 77;
    wx_error_clear(&err);
    rc = valiter_solve_gpu(&y3, &par, &l3, &h3, &st, &err);
    check(rc == WX_ELIMIT && st.iterations == 77 && l3 == 0 && h3 == 1,
          "end component left in: WX_ELIMIT after 77 sweeps (%d, %llu: %s)", rc, (unsigned long long)st.iterations,
          err.msg);
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--skip-levels"))
            skip_levels = 1;
        else if (!strcmp(argv[i], "--policy-only"))
            policy_only = skip_levels = 1; /* VI_POLICY's tests alone */
        else if (!strcmp(argv[i], "--skip-policy"))
            skip_policy = 1; /* all but VI_POLICY's (to split a run in two) */
        else if (!strcmp(argv[i], "--ref-only"))
            ref_only = 1; /* no GPU: the references (and the CPU twin, if linked) only */
        else if (!strcmp(argv[i], "--probe"))
            return valiter_gpu_available() ? 0 : 1;
        else if (!strcmp(argv[i], "--images") || !strcmp(argv[i], "--big"))
            i += !strcmp(argv[i], "--images"); /* test_gpu's options: ignored */
    }
    if (!ref_only && !valiter_gpu_available()) {
        check(0, "gpu: no usable CUDA device; test_gpu_valiter needs one");
        return check_exit();
    }
#ifdef HAVE_VALITER_CPU
    const char *twin = "with the CPU twin";
#else
    const char *twin = "without the CPU twin";
#endif
    printf("# test_gpu_valiter seed %llu%s, %s\n", (unsigned long long)seed, quick ? " (quick)" : "", twin);
    if (!ref_only && !policy_only)
        hand_made();
    if (!ref_only && policy_only)
        pi_hand_made();
    const int np = policy_only ? 0 : quick ? 12 : 400, ns = policy_only ? 0 : quick ? 10 : 400;
    clock_t t0 = clock();
    for (int i = 0; i < np; i++)
        precompute_instance(seed + (uint64_t)i, i % MK_KINDS);
    printf("# precomputation: %d instances, %.1f s CPU time\n", np, (double)(clock() - t0) / CLOCKS_PER_SEC);
    t0 = clock();
    for (int i = 0; i < ns; i++) {
        int k = i % SK_KINDS;
        if (k == SK_BIG && (quick || i % (SK_KINDS * 8) != SK_BIG))
            k = SK_MIXED; /* a few big systems only */
        if (k == SK_DICT_BIG && !quick && i % (SK_KINDS * 8) != SK_DICT_BIG)
            k = SK_DICT;
        solve_instance(seed + 1000003 + (uint64_t)i, k);
    }
    printf("# numeric core: %d instances, %.1f s CPU time\n", ns, (double)(clock() - t0) / CLOCKS_PER_SEC);
    if (ns)
        check(n_watch_cases > 0 && n_watch_earlier > 0,
              "watched states: %llu interval solves with a watch list, %llu of them stopped before "
              "the rule held everywhere", (unsigned long long)n_watch_cases,
              (unsigned long long)n_watch_earlier);
    t0 = clock();
    const int npi = ref_only || skip_policy ? 0 : quick ? 6 : 96;
    for (int i = 0; i < npi; i++) {
        int k = i % PK_KINDS;
        if ((k == PK_BIG || k == PK_DICT_BIG) && !quick && i % (PK_KINDS * 8) >= PK_KINDS)
            k = PK_SMALL; /* a few big systems only (their tight references are slow) */
        if (quick && (k == PK_BIG || k == PK_DICT_BIG))
            k = PK_DICT;
        pi_instance(seed + 3000017 + (uint64_t)i, k);
    }
    printf("# policy iteration: %d instances, %llu solves past VI_PI_SWEEPS (%llu with the contract's limits: %llu certified, %llu by interval iteration; %llu forced to interval iteration, %llu of them exactly Jacobi's), %.1f s CPU time\n",
           npi, (unsigned long long)n_pi_cases, (unsigned long long)n_pi_policy, (unsigned long long)n_pi_certified,
           (unsigned long long)n_pi_fallback, (unsigned long long)n_pi_forced, (unsigned long long)n_pi_forced_exact,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    if (npi) {
        check(n_pi_certified > 0 && n_pi_certified * 4 >= n_pi_policy * 3,
              "policy iteration: most solves past VI_PI_SWEEPS certified (%llu of %llu)",
              (unsigned long long)n_pi_certified, (unsigned long long)n_pi_policy);
        check(n_pi_forced_exact > 0, "policy iteration: the fallback ran (%llu forced, %llu exactly Jacobi's)",
              (unsigned long long)n_pi_forced, (unsigned long long)n_pi_forced_exact);
    }
#ifdef HAVE_VALITER_CPU
    if (npi) {
        printf("# policy iteration vs the CPU twin: %llu compared, certified flags differ in %llu, policy rounds in %llu\n",
               (unsigned long long)n_pi_twin, (unsigned long long)n_pi_twin_flags_differ,
               (unsigned long long)n_pi_twin_rounds_differ);
        check(n_pi_twin_flags_differ * 20 <= n_pi_twin, "policy iteration: the twins' certified flags agree in >= 95%% of the solves (%llu of %llu differ)",
              (unsigned long long)n_pi_twin_flags_differ, (unsigned long long)n_pi_twin);
    }
#endif
    t0 = clock();
    const int nlv = skip_levels ? 0 : quick ? 8 : 160;
    for (int i = 0; i < nlv; i++)
        levels_instance(seed + 2000003 + (uint64_t)i, i % LK_KINDS);
    printf("# levels: %d instances (%llu grouped by a memory cap, %llu with chunked levels), %.1f s CPU time\n", nlv,
           (unsigned long long)n_level_grouped, (unsigned long long)n_level_chunked,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    if (!ref_only && !quick && !skip_levels)
        check(n_level_grouped > 0 && n_level_chunked > 0, "levels: some solves ran in groups (%llu) and chunks (%llu)",
              (unsigned long long)n_level_grouped, (unsigned long long)n_level_chunked);
    check(n_bitwise == n_compared && (n_compared > 0 || policy_only), "%llu of %llu compared vectors bit-identical to the reference",
          (unsigned long long)n_bitwise, (unsigned long long)n_compared);
    if (!ref_only)
        printf("# in-place sweeps: %llu interval solves, %llu sweeps in all (Jacobi: %llu)\n",
               (unsigned long long)n_inplace, (unsigned long long)n_inplace_sweeps,
               (unsigned long long)n_jacobi_sweeps);
    printf("# %d passed, %d failed; %llu of %llu compared vectors bit-identical to the reference\n", check_passes,
           check_failures, (unsigned long long)n_bitwise, (unsigned long long)n_compared);
    return check_exit();
}
