/*
 * cmd_check.c -- `warpex check MODEL --prop P ...`: probabilistic model
 * checking of MDPs and DTMCs (analysis/mdpcheck.h): sound interval
 * iteration by default, plain value iteration (--method vi, labelled
 * UNSOUND) on request.
 *
 * MODEL is a PRISM explicit .tra (with --lab, --srew, --trew, --sta) or a Storm
 * .drn file (labels and rewards inside; graph/drn.h).  Every property of
 * --prop (repeatable) and --props FILE is checked in turn; the output gives
 * the value (midpoint and [lo, hi]) at every initial state, the state
 * classes, iterations and the time split.  --values and --scheduler write
 * all states' values / an optimal choice per state (one property only)
 * through util/outfile.h (FILE is replaced only when complete).  Exit
 * status: 0, 2 (usage or input error, located), 3 (no convergence or other
 * limit), 4 (system).
 *
 * This file holds the steps of a run in order (cmd_check at the end); the
 * options, the report and the timeline are in check_options.c,
 * check_report.c and check_timeline.c (check.h).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/bounded.h"
#include "../analysis/mec.h"
#include "../analysis/scc.h"
#include "../analysis/valiter.h"
#include "../graph/drn.h"
#include "../kernels/hostpin.h"
#include "../util/timer.h"
#include "../util/config.h"
#include "check.h"
#include "mdp_dev_bind.h"

/* Each --srew / --trew file joins the structure of its name (PRISM's
 * '# Reward structure "NAME"' header; unnamed files form one unnamed
 * structure), in the order the names first appear: so stem1.srew with
 * stem1.trew and stem2.srew with stem2.trew pair up as PRISM wrote them. */
static int read_reward_files(const struct check_options *o, const struct mdp *m,
                             struct mdp_reward_models *rm, struct wx_error *err)
{
    for (int pass = 0; pass < 2; pass++) {
        int n = pass ? o->n_trew : o->n_srew;
        for (int i = 0; i < n; i++) {
            const char *path = pass ? o->trew[i] : o->srew[i];
            struct mdp_rewards tmp = {0};
            int rc = pass ? mdp_trew_read(path, m, &tmp, err) : mdp_srew_read(path, m, &tmp, err);
            if (rc != WX_OK)
                return rc;
            int j = -1;
            for (size_t k = 0; k < rm->n && j < 0; k++) {
                const struct mdp_rewards *r = &rm->models[k];
                int same = tmp.name ? r->name && !strcmp(r->name, tmp.name) : !r->name;
                if (same)
                    j = (int)k;
            }
            if (j >= 0 && (pass ? rm->models[j].choice : rm->models[j].state)) {
                rc = wx_fail(err, WX_EINPUT, path, 0, 0,
                             "a second %s file for the reward structure %s%s%s",
                             pass ? "--trew" : "--srew", tmp.name ? "\"" : "(unnamed)",
                             tmp.name ? tmp.name : "", tmp.name ? "\"" : "");
                mdp_rewards_free(&tmp);
                return rc;
            }
            if (j < 0 && (j = mdp_reward_models_add(rm)) < 0) {
                mdp_rewards_free(&tmp);
                return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
            }
            struct mdp_rewards *r = &rm->models[j];
            if (!r->name) {
                r->name = tmp.name;
                tmp.name = NULL;
            }
            if (pass)
                r->choice = tmp.choice, tmp.choice = NULL;
            else
                r->state = tmp.state, tmp.state = NULL;
            mdp_rewards_free(&tmp);
        }
    }
    return WX_OK;
}

/* The combinations of options that cannot work, refused before any work;
 * whether the GPU may be wanted (c->want_gpu). */
static int check_combinations(struct check_run *c, struct wx_error *err)
{
    struct check_options *o = &c->o;
    c->bk = o->backend;
    c->want_gpu = c->bk != CLI_BACKEND_CPU && (o->solver != VI_GAUSS_SEIDEL || o->inplace);
    if (o->solver == VI_GAUSS_SEIDEL && !o->inplace && o->backend == CLI_BACKEND_GPU)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--solver gs is CPU only (the GPU runs Jacobi sweeps, or in-place sweeps "
                       "with --solver inplace): use --backend cpu");
    if (o->policy && (o->solver_given || o->relative))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--method pi takes no --solver (its sweeps are Jacobi) and needs the "
                       "absolute stopping rule (no --relative)");
    if (o->policy)
        o->solver = VI_POLICY;
    if (o->svi && o->backend == CLI_BACKEND_GPU)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--method svi runs on the CPU only: use --backend cpu or auto");
    if (o->svi) /* the whole check on the CPU: the GPU would only wait */
        c->want_gpu = 0, c->bk = CLI_BACKEND_CPU;
    if (o->topological && o->solver_given && (o->solver != VI_JACOBI || o->inplace))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--method topological takes --solver jacobi (level by level, the GPU's "
                       "way) or no --solver (CPU: SCC by SCC, Gauss-Seidel)");
    return WX_OK;
}

/* The properties (a typo should not wait for a large model), and the
 * files: the inputs may not be overwritten, the outputs are checked now. */
static int read_properties(struct check_run *c, struct wx_error *err)
{
    const struct check_options *o = &c->o;
    int rc = cli_read_props(o->props_file, o->props, o->n_props, &c->props, &c->n_props, err);
    if (rc != WX_OK)
        return rc;
    if ((o->values_out || o->sched_out) && c->n_props != 1)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--values and --scheduler need exactly one property (%zu given)", c->n_props);
    const char *in[] = {o->input, o->lab, o->sta, o->props_file};
    const char *outs[] = {o->values_out, o->sched_out};
    rc = cli_guard_files(in, 4, outs, 2, err);
    for (int i = 0; i < o->n_srew && rc == WX_OK; i++)
        rc = cli_guard_files(&o->srew[i], 1, NULL, 0, err);
    for (int i = 0; i < o->n_trew && rc == WX_OK; i++)
        rc = cli_guard_files(&o->trew[i], 1, NULL, 0, err);
    return rc;
}

/* A .tra model with its --lab, --srew / --trew and --sta files. */
static int read_tra(struct check_run *c, struct wx_error *err)
{
    const struct check_options *o = &c->o;
    int rc;
    check_tl_mark("read .tra: start");
    if ((rc = mdp_read(o->input, &c->m, err)) != WX_OK)
        return rc;
    check_tl_mark("read .tra: done");
    if (o->lab) {
        if ((rc = mdp_labels_read(o->lab, c->m.n_states, &c->labels, err)) != WX_OK)
            return rc;
        c->have_labels = 1;
        check_tl_mark("read .lab: done");
    }
    if ((rc = read_reward_files(o, &c->m, &c->rew, err)) != WX_OK)
        return rc;
    if (o->sta) {
        if ((rc = mdp_sta_read(o->sta, c->m.n_states, &c->sta, err)) != WX_OK)
            return rc;
        c->have_sta = 1;
    }
    return WX_OK;
}

/* The model (a .drn file holds its labels and rewards), then its initial
 * states: the "init" label, else state 0. */
static int read_model(struct check_run *c, struct wx_error *err)
{
    const struct check_options *o = &c->o;
    double t0 = wx_now();
    size_t il = strlen(o->input);
    int rc;
    if (il > 4 && !strcmp(o->input + il - 4, ".drn")) {
        if (o->lab || o->n_srew || o->n_trew || o->sta)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                           "a .drn file holds its own labels and rewards: --lab, --srew, "
                           "--trew and --sta are for .tra models");
        if ((rc = drn_read_models(o->input, &c->m, &c->labels, &c->rew, err)) != WX_OK)
            return rc;
        c->have_labels = 1;
    } else if ((rc = read_tra(c, err)) != WX_OK) {
        return rc;
    }
    c->read_s = (wx_now() - t0);
    check_tl_mark("model read");

    if (!(c->initial = calloc(c->m.n_states ? c->m.n_states : 1, 1)))
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    c->init_id = c->have_labels ? mdp_labels_find(&c->labels, "init") : -1;
    for (uint64_t s = 0; s < c->m.n_states; s++) {
        c->initial[s] = c->init_id >= 0 ? (uint8_t)mdp_labels_has(&c->labels, c->init_id, s) : s == 0;
        c->n_init += c->initial[s];
    }
    if (c->m.n_states == 0)
        return wx_fail(err, WX_EINPUT, o->input, 0, 0, "the model has no state");
    return WX_OK;
}

/* Every label of every property exists, checked before any output by
 * evaluating the formulas on state 0 alone (an unknown label fails
 * whatever the states; mdpcheck_run evaluates them on all states); every
 * reward reference names a structure of the model. */
static int check_references(struct check_run *c, struct wx_error *err)
{
    uint8_t tmp[1];
    struct mdp first = c->m;
    first.n_states = 1;
    const struct mdp_labels *lp = c->have_labels ? &c->labels : NULL;
    int rc = WX_OK;
    for (size_t i = 0; i < c->n_props && rc == WX_OK; i++) {
        const struct property *p = &c->props[i];
        rc = prop_check_model(p, &c->m, err);
        if (rc == WX_OK && p->phi2)
            rc = prop_eval(p, p->phi2, &first, lp, c->initial, tmp, err);
        if (rc == WX_OK && p->phi1)
            rc = prop_eval(p, p->phi1, &first, lp, c->initial, tmp, err);
    }
    if (rc != WX_OK)
        return rc;
    if (!(c->reward_of = calloc(c->n_props ? c->n_props : 1, sizeof *c->reward_of)))
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < c->n_props; i++)
        if ((rc = prop_reward_model(&c->props[i], &c->rew, &c->reward_of[i], err)) != WX_OK)
            return rc;
    return WX_OK;
}

/* Property i's reward structure (NULL for P properties, or no rewards). */
static const struct mdp_rewards *rewards_of(const struct check_run *c, size_t i)
{
    return c->props[i].kind >= PROP_RMIN && c->rew.n ? &c->rew.models[c->reward_of[i]] : NULL;
}

/* The options that do not depend on the backend; while the GPU probe
 * still creates the CUDA context (0.15 s on the H100, longer than the read
 * of a 10^6-state model), the first property's CPU-side work: its state
 * formulas, and its work arrays allocated and touched until the probe is
 * done (mdpcheck_prepare, warm).  Nothing of it depends on the backend. */
static int prepare(struct check_run *c, struct wx_error *err)
{
    const struct check_options *o = &c->o;
    struct mdpcheck_options *mo = &c->mo;
    *mo = (struct mdpcheck_options){.sound = o->sound, .solver = o->solver, .epsilon = o->epsilon,
                                    .relative = o->relative, .max_iterations = o->max_iterations,
                                    .threads = o->threads, .scheduler = o->sched_out != NULL,
                                    .topological = o->topological,
                                    .optimistic = o->optimistic, .svi = o->svi,
                                    .device_memory = o->gpu_memory,
                                    .initial_only = !o->values_out && !o->sched_out &&
                                                    !o->all_states};
    cli_vi_gpu_env(&mo->vi_gpu);
    check_tl_hook(mo);
    /* Huge pages for the large work arrays when a GPU may be used: they
     * are warmed while the context is created, and on a host with THP
     * "madvise" huge pages let the warming finish inside that wait, where
     * 4 KiB pages cut it short (bench/history/results-2026-11.md).
     * Diagnostic knobs (bench/bench_check_e2e.sh --var): WARPEX_CHECK_WARM=0
     * skips the warming, WARPEX_CHECK_HUGEPAGES=0 or 1 overrides the advice. */
    c->hp_knob = getenv("WARPEX_CHECK_HUGEPAGES");
    mo->huge_pages = c->hp_knob && *c->hp_knob
                         ? *c->hp_knob == '1'
                         : c->want_gpu && !(atomic_load(&c->probe.done) && !c->probe.usable);
    const char *knob = getenv("WARPEX_CHECK_WARM");
    int warm = !(knob && *knob == '0');
    if (!(c->want_gpu && c->n_props && !c->probe.joined && prop_is_basic(&c->props[0])))
        return WX_OK;
    check_tl_mark("property 1: prepare (while the GPU probe runs)");
    int rc = mdpcheck_prepare(&c->m, c->have_labels ? &c->labels : NULL, rewards_of(c, 0), c->initial,
                              &c->props[0], mo, warm, &c->probe.done, &c->job0, err);
    if (rc == WX_OK)
        check_tl_mark("property 1: prepared");
    return rc;
}

/* --method auto, now that the backend is known (docs/valiter.md, the
 * rule): without --solver, optimistic value iteration (no upper bound
 * converging slowly from its trivial start, no upper-bound phase for
 * rewards): on the CPU with Gauss-Seidel sweeps SCC by SCC in the
 * topological order (fewest sweeps), on the GPU with its Jacobi sweeps when VI_GPU_AUTO_OVI
 * (util/config.h) allows it; with a --solver named, interval iteration. */
static void check_auto_method(struct check_run *c)
{
    struct check_options *o = &c->o;
    if (!o->auto_method || o->solver_given || (c->bk == CLI_BACKEND_GPU && !VI_GPU_AUTO_OVI))
        return;
    o->optimistic = c->mo.optimistic = 1;
    if (c->bk == CLI_BACKEND_CPU)
        o->solver = c->mo.solver = VI_GAUSS_SEIDEL, c->mo.ovi_blocks = 1;
}

/* The backend, now that the probe has had the read's time. */
static int settle_backend(struct check_run *c, struct wx_error *err)
{
    int gpu_ok = c->want_gpu && gpu_probe_join(&c->probe);
    if (c->want_gpu)
        check_tl_mark("GPU probe joined (waited %.6f s)", c->probe.wait_seconds);
    if (!c->want_gpu)
        c->bk = CLI_BACKEND_CPU;
    else if (c->bk == CLI_BACKEND_AUTO)
        c->bk = gpu_ok ? CLI_BACKEND_GPU : CLI_BACKEND_CPU;
    if (c->bk == CLI_BACKEND_GPU && !gpu_ok)
        return cli_no_gpu(err);
    /* topological: level by level on the GPU, and on the CPU with --solver
     * jacobi (the GPU's twin); else SCC by SCC with Gauss-Seidel */
    c->levels = c->o.topological && (c->bk == CLI_BACKEND_GPU || c->o.solver_given);
    check_auto_method(c);
    return WX_OK;
}

/* --backend gpu: the model uploaded once for every property's
 * precomputation, cut and system build (mdp_dev_bind.h).  Where device
 * memory is short, or with WARPEX_CHECK_DEVICE=0, each step uploads what it
 * reads. */
static int bind_device(struct check_run *c, struct wx_error *err)
{
    const char *knob = getenv("WARPEX_CHECK_DEVICE");
    if (c->bk != CLI_BACKEND_GPU || (knob && *knob == '0'))
        return WX_OK;
    struct wx_error e = {0};
    int rc = mdp_dev_upload(&c->m, &c->dev, &e);
    if (rc == WX_ELIMIT)
        return WX_OK;
    if (rc != WX_OK) {
        *err = e;
        return rc;
    }
    cli_dev_bind_options(&c->mo);
    cli_dev_bind(&c->m, &c->dev);
    check_tl_mark("model uploaded to the GPU");
    return WX_OK;
}

/* The backend's functions in c->mo. */
static int set_backend_functions(struct check_run *c, struct wx_error *err)
{
    struct mdpcheck_options *mo = &c->mo;
    const int gpu = c->bk == CLI_BACKEND_GPU;
    if (!(c->hp_knob && *c->hp_knob))
        mo->huge_pages = gpu;
    /* The arrays copied to the GPU are page-locked during the
     * precomputation (mdpcheck.h): the MEC upload and the solve's get
     * faster, the precomputation (the driver busy with both) about as much
     * slower, and the solve's gain grows with the system
     * (bench/history/results-2026-11.md).  WARPEX_CHECK_PIN=0 leaves them
     * pageable. */
    const char *knob = getenv("WARPEX_CHECK_PIN");
    if (gpu && !(knob && *knob == '0'))
        mo->pin = hostpin_register, mo->unpin = hostpin_unregister;
    if (gpu) {
        mo->precompute = valiter_precompute_gpu;
        mo->precompute2 = valiter_precompute2_gpu;
        mo->solve = valiter_solve_gpu;
        mo->solve_ovi = valiter_solve_ovi_gpu;
        mo->mec = mec_gpu;
        mo->scc = scc_gpu;
        mo->bounded = bounded_solve_gpu;
    }
    if (c->levels)
        mo->solve_levels = gpu ? valiter_solve_levels_gpu : valiter_solve_levels_cpu;
    int rc = bind_device(c, err);
    check_tl_wrap(mo);
    return rc;
}

/* Checks property i and reports it (and its --values / --scheduler). */
static int check_property(struct check_run *c, size_t i, struct wx_error *err)
{
    const struct property *p = &c->props[i];
    const struct mdp_rewards *pr = rewards_of(c, i);
    struct mdpcheck_result r;
    struct propcheck_info info = {.result = PROP_TRUE, .epsilon = c->o.epsilon, .tries = 1};
    int rc;
    if (p->kind >= PROP_RMIN && !pr && !c->o.quiet)
        fprintf(stderr, "warpex: note: %s: no rewards given (--srew/--trew): all rewards are 0\n",
                p->text);
    check_tl_mark("property %zu: start", i + 1);
    if (i == 0 && c->job0) {
        struct mdpcheck_job *j = c->job0;
        c->job0 = NULL; /* finish consumes it */
        rc = mdpcheck_finish(j, &c->mo, &r, err);
    } else {
        rc = propcheck_run(&c->m, c->have_labels ? &c->labels : NULL, pr, c->initial, p, &c->mo,
                           &r, &info, err);
    }
    if (rc == WX_ELIMIT && cli_dev_release(&c->dev)) { /* maybe the device memory the model holds */
        info = (struct propcheck_info){.result = PROP_TRUE, .epsilon = c->o.epsilon, .tries = 1};
        rc = propcheck_run(&c->m, c->have_labels ? &c->labels : NULL, pr, c->initial, p, &c->mo,
                           &r, &info, err);
    }
    check_tl_mark("property %zu: checked", i + 1);
    if (rc != WX_OK)
        return rc;
    if (info.result == PROP_FALSE && !c->n_false++)
        c->first_false = i + 1;
    if (info.result == PROP_UNDECIDED && !c->n_undecided++)
        c->first_undecided = i + 1;
    if ((rc = check_write_outputs(c, &r, err)) == WX_OK) {
        check_print_property(c, i, &r, &info);
        check_tl_mark("property %zu: printed", i + 1);
    }
    mdpcheck_result_free(&r);
    return rc;
}

/* PRISM's P~p answers: undecided is a limit (exit 3), false a violation
 * (exit 1). */
static int comparisons_verdict(const struct check_run *c, struct wx_error *err)
{
    if (c->n_undecided)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "%zu comparison%s undecided (the first: property %zu): the bound lies "
                       "within the value's interval", c->n_undecided,
                       c->n_undecided == 1 ? "" : "s", c->first_undecided);
    if (c->n_false)
        return wx_fail(err, WX_EVIOLATION, NULL, 0, 0, "%zu propert%s false (the first: property %zu)",
                       c->n_false, c->n_false == 1 ? "y is" : "ies are", c->first_false);
    return WX_OK;
}

static void check_run_free(struct check_run *c)
{
    mdpcheck_job_free(c->job0);
    cli_dev_release(&c->dev);
    gpu_probe_join(&c->probe);
    check_options_free(&c->o);
    free(c->reward_of);
    free(c->initial);
    prop_free_all(c->props, c->n_props);
    mdp_labels_free(&c->labels);
    mdp_reward_models_free(&c->rew);
    mdp_sta_free(&c->sta);
    mdp_free(&c->m);
}

/* The steps up to the report's header: options, properties, model, the
 * backend (its GPU probe on a thread while the model is read). */
static int check_setup(struct check_run *c, int argc, char **argv, int first, struct wx_error *err)
{
    int rc = check_parse_options(argc, argv, first, &c->o, err);
    if (rc == WX_OK)
        rc = check_combinations(c, err);
    if (rc != WX_OK)
        return rc;
    if (c->want_gpu) /* the context is created while the model is read */
        gpu_probe_start(&c->probe, valiter_gpu_init, check_tl_mark);
    if ((rc = read_properties(c, err)) == WX_OK && (rc = read_model(c, err)) == WX_OK &&
        (rc = check_references(c, err)) == WX_OK && (rc = prepare(c, err)) == WX_OK)
        rc = settle_backend(c, err);
    return rc;
}

int cmd_check(int argc, char **argv, int first, struct wx_error *err)
{
    struct check_run c;
    memset(&c, 0, sizeof c);
    c.t_start = wx_now();
    check_tl_start();
    check_tl_mark("check: start");
    int rc = check_setup(&c, argc, argv, first, err);
    if (rc == WX_OK)
        rc = set_backend_functions(&c, err);
    if (rc == WX_OK) {
        check_print_header(&c);
        check_tl_mark("initial states, labels checked, header printed");
        for (size_t i = 0; i < c.n_props && rc == WX_OK; i++)
            rc = check_property(&c, i, err);
        check_print_end(&c, rc);
        if (rc == WX_OK)
            rc = comparisons_verdict(&c, err);
    }
    check_run_free(&c);
    check_tl_mark("check: freed, returning (what follows is exit)");
    return rc;
}
