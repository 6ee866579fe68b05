/*
 * test_mdpcheck.c -- mdpcheck_prepare + mdpcheck_finish (analysis/mdpcheck.h)
 * against mdpcheck_run, and the state classes against the precomputation.
 *
 * Random MDPs (global or local targets, with end components, or a DAG
 * without any), up to 40 000 states so that the parallel passes run on
 * several chunks; every property kind, F and U.  The split path -- not
 * warm, warm to the end, warm stopped at once, huge pages advised, work
 * arrays page-locked (a fake locker: each locked block must be unlocked
 * once before it is freed) -- and
 * other thread counts must give bit-identical results (values, classes,
 * system size, MECs, sweeps, scheduler); the counts of yes/no/maybe states
 * must match valiter_precompute_cpu's sets; an unknown label fails in
 * prepare with WX_EINPUT.  Seeds are printed; `--seed N` replays.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/mdpcheck.h"
#include "../analysis/prop.h"
#include "../graph/mdp_lab.h"
#include "check.h"
#include "random_mdp.h"
#include "rng.h"
#include "sysbuild_ref.h"

static int same(const struct mdpcheck_result *a, const struct mdpcheck_result *b)
{
    uint64_t n = a->n_states;
    if (n != b->n_states || a->n_target != b->n_target || a->n_yes != b->n_yes ||
        a->n_no != b->n_no || a->n_maybe != b->n_maybe || a->n_infinite != b->n_infinite ||
        a->sys_states != b->sys_states || a->sys_choices != b->sys_choices ||
        a->sys_entries != b->sys_entries || a->mecs_collapsed != b->mecs_collapsed ||
        a->iterations != b->iterations || memcmp(a->lo, b->lo, n * sizeof *a->lo) ||
        memcmp(a->hi, b->hi, n * sizeof *a->hi))
        return 0;
    return !a->choice == !b->choice &&
           (!a->choice || !memcmp(a->choice, b->choice, n * sizeof *a->choice));
}

/* A fake page-locker: remembers what is locked; unlocking something not
 * locked (or twice) is counted as an error. */
static void *locked[64];
static int n_locked, n_lock_calls, lock_errors;

static int fake_pin(void *p, size_t bytes)
{
    (void)bytes;
    n_lock_calls++;
    for (int i = 0; i < 64; i++)
        if (!locked[i]) {
            locked[i] = p;
            n_locked++;
            return 1;
        }
    return 0;
}

static void fake_unpin(void *p)
{
    for (int i = 0; i < 64; i++)
        if (locked[i] == p) {
            locked[i] = NULL;
            n_locked--;
            return;
        }
    lock_errors++;
}

/* variant: 0 not warm, 1 warm, 2 warm stopped at once,
 * 3 warm + huge pages, 4 warm + page-locking (fake) */
static int split_run(struct inst *x, const struct property *p, struct mdpcheck_options o,
                     int variant, struct mdpcheck_result *r, struct wx_error *err)
{
    atomic_int stop;
    atomic_init(&stop, variant == 2);
    o.huge_pages = variant == 3;
    if (variant == 4)
        o.pin = fake_pin, o.unpin = fake_unpin;
    struct mdpcheck_job *j = NULL;
    int rc = mdpcheck_prepare(&x->m, &x->lab, NULL, NULL, p, &o, variant != 0,
                              variant == 2 ? &stop : NULL, &j, err);
    if (rc != WX_OK)
        return rc;
    return mdpcheck_finish(j, &o, r, err);
}

static uint64_t with_mecs; /* Pmax/Rmin checks whose system collapsed MECs */

/* options.build_system on the host (sysbuild_ref.h), or declining */
static int hook_declines;
static uint64_t hook_builds;

static int host_build(struct mdpcheck_sysbuild *q, struct wx_error *err)
{
    (void)err;
    q->built = 0;
    if (!hook_declines)
        ref_system(q->m, q);
    return WX_OK;
}

/* Random initial states: state 0 and each other one in about one_in. */
static uint8_t *random_initial(uint64_t n, uint64_t one_in)
{
    uint8_t *initial = calloc(n ? n : 1, 1);
    for (uint64_t s = 0; initial && s < n; s++)
        initial[s] = s == 0 || rnd_below(one_in) == 0;
    return initial;
}

/* Sweeps at most in every run here.  Each property runs 10 to 32 times:
 * the checks compare two paths (the same exit status and the same values),
 * which runs that stop at the bound compare as well, and a property that
 * does not converge (an infinite Rmax, say) would otherwise cost each of
 * those runs a million sweeps, with a barrier between the sweeps of the
 * threads (minutes for one seed on two cores). */
#define PATH_CHECK_SWEEPS 20000

/* The build_system hook (built by the reference, or declined) against the
 * host passes, with and without step 2a's cut from random initial states:
 * the same result bit for bit; built exactly for Pmin, Rmax and for Pmax,
 * Rmin without MECs. */
static void check_hook(uint64_t seed, struct inst *x, const struct property *p, const char *text)
{
    uint8_t *initial = random_initial(x->m.n_states, 50);
    struct wx_error err;
    for (int v = 0; v < 4; v++) {
        struct mdpcheck_options o = {.sound = 1, .epsilon = 1e-4, .max_iterations = PATH_CHECK_SWEEPS,
                                     .threads = 1 + 3 * (v & 1), .initial_only = 1};
        const uint8_t *init = v & 2 ? initial : NULL;
        struct mdpcheck_result ref, r;
        int rc0 = mdpcheck_run(&x->m, &x->lab, NULL, init, p, &o, &ref, &err);
        for (hook_declines = 0; hook_declines < 2; hook_declines++) {
            o.build_system = host_build;
            int rc = mdpcheck_run(&x->m, &x->lab, NULL, init, p, &o, &r, &err);
            int want = !hook_declines && (p->kind == PROP_PMIN || p->kind == PROP_RMAX ||
                                          (rc0 == WX_OK && !ref.mecs_collapsed));
            int ok = rc == rc0 && (rc != WX_OK || (same(&ref, &r) && r.n_relevant == ref.n_relevant &&
                                                   r.initial_only == ref.initial_only &&
                                                   r.system_backend == want && !ref.system_backend));
            check(ok, "seed %llu %s: build_system hook (declining %d, variant %d): rc %d vs %d, %s",
                  (unsigned long long)seed, text, hook_declines, v, rc, rc0,
                  rc == WX_OK && rc0 == WX_OK ? (same(&ref, &r) ? "same values" : "DIFFERENT values") : "");
            hook_builds += rc == WX_OK && r.system_backend;
            if (rc == WX_OK)
                mdpcheck_result_free(&r);
        }
        if (rc0 == WX_OK)
            mdpcheck_result_free(&ref);
    }
    free(initial);
}

/* A model held elsewhere (options.host_model): the check sees a skeleton
 * (state_start only) and hooks that read the whole model, as the CLI's
 * GPU hooks read the explored MDP in device memory. */
static const struct mdp *whole;  /* what the hooks read               */
static struct mdp skeleton;      /* what mdpcheck is given            */
static int fetches;              /* host_model calls                  */
static uint64_t skeleton_runs, skeleton_fetchless;

static int whole_precompute(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                            enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    return valiter_precompute_cpu(m == &skeleton ? whole : m, allowed, target, which, out, err);
}

static int whole_build(struct mdpcheck_sysbuild *q, struct wx_error *err)
{
    (void)err;
    q->built = 0;
    if (!hook_declines)
        ref_system(q->m == &skeleton ? whole : q->m, q);
    return WX_OK;
}

static int fetch_whole(void *ctx, struct wx_error *err)
{
    (void)ctx, (void)err;
    fetches++;
    skeleton.choice_start = whole->choice_start;
    skeleton.targets = whole->targets;
    skeleton.probs = whole->probs;
    return WX_OK;
}

/* The same values from the skeleton as from the whole model, with the
 * model fetched at most once, and never for Pmin and Rmax whose system the
 * hook builds (with and without step 2a's cut, with and without a
 * declining hook, and with a scheduler, which needs the model). */
static void check_skeleton(uint64_t seed, struct inst *x, const struct property *p, const char *text)
{
    uint8_t *initial = random_initial(x->m.n_states, 40);
    struct wx_error err;
    whole = &x->m;
    for (int v = 0; v < 8; v++) {
        struct mdpcheck_options o = {.sound = 1, .epsilon = 1e-4, .max_iterations = PATH_CHECK_SWEEPS,
                                     .threads = 1 + (v & 1), .initial_only = 1, .scheduler = (v & 4) != 0,
                                     .precompute = whole_precompute, .build_system = whole_build};
        const uint8_t *init = v & 2 ? initial : NULL;
        for (hook_declines = 0; hook_declines < 2; hook_declines++) {
            struct mdpcheck_result ref, r;
            int rc0 = mdpcheck_run(&x->m, &x->lab, NULL, init, p, &o, &ref, &err);
            skeleton = (struct mdp){.n_states = x->m.n_states, .n_choices = x->m.n_choices,
                                    .n_entries = x->m.n_entries, .state_start = x->m.state_start};
            fetches = 0;
            struct mdpcheck_options os = o;
            os.host_model = fetch_whole;
            int rc = mdpcheck_run(&skeleton, &x->lab, NULL, init, p, &os, &r, &err);
            const int backend = !hook_declines && !o.scheduler && (p->kind == PROP_PMIN || p->kind == PROP_RMAX);
            check(rc == rc0 && (rc != WX_OK || same(&ref, &r)) && fetches == !backend,
                  "seed %llu %s: skeleton (variant %d, declining %d): rc %d vs %d, %s, %d fetches (want %d)",
                  (unsigned long long)seed, text, v, hook_declines, rc, rc0,
                  rc == WX_OK && rc0 == WX_OK ? (same(&ref, &r) ? "same values" : "DIFFERENT values") : "",
                  fetches, !backend);
            skeleton_runs++;
            skeleton_fetchless += fetches == 0;
            if (rc == WX_OK)
                mdpcheck_result_free(&r);
            if (rc0 == WX_OK)
                mdpcheck_result_free(&ref);
        }
    }
    hook_declines = 0;
    free(initial);
}

static const char *texts[] = {"Pmax=? [ F \"t\" ]", "Pmin=? [ F \"t\" ]", "Rmin=? [ F \"t\" ]",
                              "Rmax=? [ F \"t\" ]", "Pmax=? [ \"a\" U \"t\" ]",
                              "Pmin=? [ \"a\" U \"t\" ]"};

static void check_instance(uint64_t seed, uint64_t n, int shape, int probs_only)
{
    struct inst x;
    rng_state = seed;
    gen_mdp(&x, n, shape, 0);
    struct wx_error err;
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
        if (probs_only && (k == 2 || k == 3))
            continue;
        struct property p;
        if (prop_parse(texts[k], NULL, 1, &p, &err) != WX_OK) {
            check(0, "parse %s: %s", texts[k], err.msg);
            continue;
        }
        struct mdpcheck_options o = {.sound = 1, .epsilon = 1e-4, .max_iterations = PATH_CHECK_SWEEPS,
                                     .threads = 1, .scheduler = 1};
        struct mdpcheck_result ref;
        int rc0 = mdpcheck_run(&x.m, &x.lab, NULL, NULL, &p, &o, &ref, &err);
        if (rc0 != WX_OK) {
            /* Rmin/Rmax may legitimately fail to certify; the split path
             * must fail the same way */
            struct mdpcheck_result r;
            int rc = split_run(&x, &p, o, 1, &r, &err);
            check(rc == rc0, "seed %llu n %llu shape %d %s: run exit %d, split %d",
                  (unsigned long long)seed, (unsigned long long)n, shape, texts[k], rc0, rc);
            if (rc == WX_OK)
                mdpcheck_result_free(&r);
            prop_free(&p);
            continue;
        }
        /* classes against the precomputation sets (probabilities only) */
        if (p.kind == PROP_PMAX || p.kind == PROP_PMIN) {
            uint8_t *tg = malloc(n), *al = malloc(n), *s0 = malloc(n), *s1 = malloc(n);
            int t = mdp_labels_find(&x.lab, "t"), a = mdp_labels_find(&x.lab, "a");
            for (uint64_t s = 0; s < n; s++)
                tg[s] = (uint8_t)mdp_labels_has(&x.lab, t, s),
                al[s] = (uint8_t)mdp_labels_has(&x.lab, a, s);
            const uint8_t *alp = p.phi1 ? al : NULL;
            int mx = p.kind == PROP_PMAX;
            valiter_precompute_cpu(&x.m, alp, tg, mx ? VI_PMAX0 : VI_PMIN0, s0, &err);
            valiter_precompute_cpu(&x.m, alp, tg, mx ? VI_PMAX1 : VI_PMIN1, s1, &err);
            uint64_t yes = 0, no = 0;
            for (uint64_t s = 0; s < n; s++)
                yes += s1[s], no += !s1[s] && s0[s];
            check(ref.n_yes == yes && ref.n_no == no && ref.n_maybe == n - yes - no,
                  "seed %llu n %llu shape %d %s: classes yes %llu no %llu maybe %llu, sets say "
                  "%llu %llu %llu",
                  (unsigned long long)seed, (unsigned long long)n, shape, texts[k],
                  (unsigned long long)ref.n_yes, (unsigned long long)ref.n_no,
                  (unsigned long long)ref.n_maybe, (unsigned long long)yes,
                  (unsigned long long)no, (unsigned long long)(n - yes - no));
            free(tg), free(al), free(s0), free(s1);
        }
        with_mecs += ref.mecs_collapsed > 0;
        if (shape == 2 && p.kind == PROP_PMAX)
            check(ref.mecs_collapsed == 0, "seed %llu DAG %s: %llu MECs collapsed",
                  (unsigned long long)seed, texts[k], (unsigned long long)ref.mecs_collapsed);
        for (int v = 0; v < 5; v++)
            for (int th = 0; th < 2; th++) {
                struct mdpcheck_options o2 = o;
                o2.threads = th ? 4 : 1;
                struct mdpcheck_result r;
                int rc = split_run(&x, &p, o2, v, &r, &err);
                check(rc == WX_OK && same(&ref, &r),
                      "seed %llu n %llu shape %d %s: split variant %d threads %d vs mdpcheck_run: %s (rc %d %s)",
                      (unsigned long long)seed, (unsigned long long)n, shape, texts[k], v,
                      o2.threads, rc == WX_OK ? (same(&ref, &r) ? "same" : "DIFFERENT") : "failed", rc,
                      rc == WX_OK ? "" : err.msg);
                if (rc == WX_OK)
                    mdpcheck_result_free(&r);
                if (v == 4)
                    check(n_locked == 0 && lock_errors == 0,
                          "seed %llu %s: page-locking: %d blocks left locked, %d bad unlocks",
                          (unsigned long long)seed, texts[k], n_locked, lock_errors);
            }
        mdpcheck_result_free(&ref);
        check_hook(seed, &x, &p, texts[k]);
        if (n <= 1000) /* the small instances: every path is there */
            check_skeleton(seed, &x, &p, texts[k]);
        prop_free(&p);
    }
    inst_free(&x);
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
    printf("# test_mdpcheck seed %llu\n", (unsigned long long)seed);
    for (int i = 0; i < 20; i++)
        check_instance(seed * 1000003u + (uint64_t)i, 1 + (seed + (uint64_t)i * 7919u) % 300, i % 3, 0);
    /* several chunks of the parallel passes (PAR_GRAIN 4096 states) */
    check_instance(seed * 1000003u + 20, 20000, 0, 1);
    check_instance(seed * 1000003u + 21, 24000, 2, 1);

    check(n_lock_calls > 0, "page-locking was asked for %d blocks (want some)", n_lock_calls);
    /* the MEC path (decomposition, collapse, rebuilt system) ran */
    check(with_mecs > 0, "%llu properties with MECs collapsed (want some)",
          (unsigned long long)with_mecs);

    /* an unknown label fails in prepare, before anything else */
    {
        struct inst x;
        rng_state = seed;
        gen_mdp(&x, 50, 0, 0);
        struct property p;
        struct wx_error err;
        if (prop_parse("Pmax=? [ F \"nosuch\" ]", NULL, 1, &p, &err) == WX_OK) {
            struct mdpcheck_options o = {.sound = 1, .epsilon = 1e-6, .max_iterations = 1000};
            struct mdpcheck_job *j = (struct mdpcheck_job *)&x; /* must be reset to NULL */
            int rc = mdpcheck_prepare(&x.m, &x.lab, NULL, NULL, &p, &o, 1, NULL, &j, &err);
            check(rc == WX_EINPUT && j == NULL && strstr(err.msg, "nosuch"),
                  "unknown label: rc %d (want %d), job %p, '%s'", rc, WX_EINPUT, (void *)j, err.msg);
            prop_free(&p);
        } else
            check(0, "parse: %s", err.msg);
        mdpcheck_job_free(NULL); /* a no-op */
        inst_free(&x);
    }
    check(hook_builds > 0, "the build_system hook built %llu systems", (unsigned long long)hook_builds);
    check(skeleton_fetchless > 0 && skeleton_fetchless < skeleton_runs,
          "skeleton runs: %llu of %llu without fetching the model (want some, not all)",
          (unsigned long long)skeleton_fetchless, (unsigned long long)skeleton_runs);
    printf("# test_mdpcheck: %d passed, %d failed (seed %llu)\n", check_passes, check_failures,
           (unsigned long long)seed);
    return check_exit();
}
