/*
 * test_gpu_valiter.c -- the GPU value-iteration cores (kernels/vi/)
 * against plain references written here, and against the CPU twin
 * (analysis/valiter.c) when the library has it (-DHAVE_VALITER_CPU).
 * Interval solves also run with a watch list (valiter.h WATCHED STATES):
 * GPU, CPU twin and reference stop after the same sweep, bit-identical.
 *
 *   test_gpu_valiter [--quick] [--seed N] [--probe] [--skip-levels] [--policy-only | --skip-policy | --ovi-only]
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
 * OPTIMISTIC VALUE ITERATION (valiter_solve_ovi_gpu): random systems and
 * the repository's MDPs with Storm's values, tests/gpu/valiter/ovi.c.
 *
 * Seeds are printed; --seed replays.  --quick is the small subset that the
 * sanitizers run; --skip-levels leaves the level solves out (for runs
 * under a time limit that concern the whole-system sweeps); --policy-only
 * runs VI_POLICY's tests alone, --skip-policy all others, --ovi-only
 * optimistic value iteration's alone.
 *
 * One translation unit: this file (hooks, random numbers, the hand-made
 * cases, main) includes tests/gpu/valiter/: precompute.c, solve.c,
 * levels.c, limits.c, policy.c and ovi.c.
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

static int quick, ref_only, skip_levels, policy_only, skip_policy, ovi_only;
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

#include "valiter/precompute.c"

#include "valiter/solve.c"

#include "valiter/levels.c"

#include "valiter/limits.c"

#include "valiter/policy.c"

#include "valiter/ovi.c"

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
        else if (!strcmp(argv[i], "--ovi-only"))
            ovi_only = policy_only = skip_levels = skip_policy = 1; /* optimistic VI's tests alone */
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
    if (!ref_only && policy_only && !ovi_only)
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
    ovi_tests(seed, quick ? 6 : 120);
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
