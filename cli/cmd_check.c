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
 * all states' values / an optimal choice per state (one property only), to
 * FILE.tmp renamed to FILE on success.  Exit status: 0, 2 (usage or input
 * error, located), 3 (no convergence or other limit), 4 (system).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/mdpcheck.h"
#include "../analysis/prop.h"
#include "../analysis/propcheck.h"
#include "../analysis/valiter.h"
#include "../graph/drn.h"
#include "../graph/mdp.h"
#include "../graph/mdp_lab.h"
#include "../analysis/mec.h"
#include "../analysis/scc.h"
#include "../kernels/hostpin.h"
#include "../util/outfile.h"
#include "cli.h"
#include "../util/size.h"
#include "check_report.h"
#include "gpu_probe.h"

/* ---- the timeline (WARPEX_TIMELINE set and not "0") ----
 * One stderr line per phase boundary: seconds since cmd_check began, the
 * wall clock in nanoseconds since the epoch (to set against `date +%s%N`
 * taken around the process: what lies before the first line is process
 * start, what lies after the last is exit, i.e. the CUDA driver's
 * teardown), and the event.  mdpcheck's phases come through its trace
 * hook, the GPU calls through the wrappers below (each returns only when
 * its device work is done: they end with a synchronising copy). */
static struct {
    int on;
    double t0; /* wx_now() at the start */
} tl;

static void tl_start(void)
{
    const char *v = getenv("WARPEX_TIMELINE");
    tl.on = v && *v && strcmp(v, "0") != 0;
    tl.t0 = wx_now();
}

static void tl_mark(const char *fmt, ...)
{
    if (!tl.on)
        return;
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    char ev[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev, sizeof ev, fmt, ap);
    va_end(ap);
    fprintf(stderr, "timeline %9.6f s  wall %lld%09ld  %s\n", (wx_now() - tl.t0),
            (long long)rt.tv_sec, (long)rt.tv_nsec, ev);
}

static void tl_trace(void *arg, const char *event)
{
    (void)arg;
    tl_mark("%s", event);
}

/* The backend's functions, wrapped for the timeline (CLI-only state: one
 * check at a time). */
static mdpcheck_precompute_fn tl_pre_fn;
static mdpcheck_precompute2_fn tl_pre2_fn;
static mdpcheck_solve_fn tl_solve_fn;
static mdpcheck_mec_fn tl_mec_fn;

static const char *tl_pre_name(enum vi_precomp which)
{
    return which == VI_PMAX0 ? "Prob0A (Pmax = 0)" : which == VI_PMAX1 ? "Prob1E (Pmax = 1)"
         : which == VI_PMIN0 ? "Prob0E (Pmin = 0)" : "Prob1A (Pmin = 1)";
}

static int tl_pre(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                  enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    tl_mark("precomputation %s: start", tl_pre_name(which));
    int rc = tl_pre_fn(m, allowed, target, which, out, err);
    tl_mark("precomputation %s: done", tl_pre_name(which));
    return rc;
}

static int tl_pre2(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                   enum vi_precomp a, uint8_t *out_a, enum vi_precomp b, uint8_t *out_b,
                   struct wx_error *err)
{
    tl_mark("precomputation %s + %s: start", tl_pre_name(a), tl_pre_name(b));
    int rc = tl_pre2_fn(m, allowed, target, a, out_a, b, out_b, err);
    tl_mark("precomputation %s + %s: done", tl_pre_name(a), tl_pre_name(b));
    return rc;
}

static int tl_solve(const struct vi_system *sys, const struct vi_params *par, double *lo,
                    double *hi, struct vi_stats *stats, struct wx_error *err)
{
    tl_mark("solve: start (%llu states, %llu choices, %llu transitions)",
            (unsigned long long)sys->n_states, (unsigned long long)sys->n_choices,
            (unsigned long long)sys->n_entries);
    int rc = tl_solve_fn(sys, par, lo, hi, stats, err);
    tl_mark("solve: end (%llu sweeps)", (unsigned long long)(stats ? stats->iterations : 0));
    return rc;
}

static int tl_mec(const struct mdp *m, struct mec_result *out, struct wx_error *err)
{
    tl_mark("MEC decomposition: start (%llu states)", (unsigned long long)m->n_states);
    int rc = tl_mec_fn(m, out, err);
    tl_mark("MEC decomposition: end (%llu MECs, %llu rounds; GPU setup %.6f, attractor %.6f, "
            "rounds %.6f, teardown %.6f s)",
            (unsigned long long)out->n_mecs, (unsigned long long)out->rounds, out->setup_seconds,
            out->attractor_seconds, out->refine_seconds, out->teardown_seconds);
    return rc;
}

struct check_options {
    const char *input, *lab, *sta, *props_file, *values_out, *sched_out;
    const char **props, **srew, **trew; /* --prop, --srew, --trew may repeat */
    int n_props, n_srew, n_trew;
    int sound, topological, policy, json, quiet, relative, threads;
    int inplace; /* --solver inplace: solver is VI_GAUSS_SEIDEL, the GPU may run it */
    int solver_given; /* --solver named: topological on the CPU with jacobi = by levels */
    int method_given; /* --method named: else the default may be topological (auto) */
    uint64_t gpu_memory; /* --gpu-memory, bytes; 0 = what is free */
    enum vi_method solver;
    double epsilon;
    uint64_t max_iterations;
    enum cli_backend backend;
};

static int need_arg(int argc, char **argv, int *i, const char **v, struct wx_error *err)
{
    if (*i + 1 >= argc)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "option '%s' needs an argument", argv[*i]);
    *v = argv[++*i];
    return WX_OK;
}

static int parse_options(int argc, char **argv, int first, struct check_options *o,
                         struct wx_error *err)
{
    memset(o, 0, sizeof *o);
    o->sound = 1;
    o->epsilon = 1e-6;
    o->max_iterations = 1000000;
    o->solver = VI_JACOBI;
    o->props = calloc((size_t)argc, sizeof *o->props);
    o->srew = calloc((size_t)argc, sizeof *o->srew);
    o->trew = calloc((size_t)argc, sizeof *o->trew);
    if (!o->props || !o->srew || !o->trew)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    int rc;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (cli_is_help(a))
            return cli_usage("check", stdout), CLI_HELP;
        if (!strcmp(a, "--json"))
            o->json = 1;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            o->quiet = 1;
        else if (!strcmp(a, "--relative"))
            o->relative = 1;
        else if (!strcmp(a, "--lab") || !strcmp(a, "--srew") || !strcmp(a, "--trew") ||
                 !strcmp(a, "--sta") ||
                 !strcmp(a, "--props") || !strcmp(a, "--values") || !strcmp(a, "--scheduler") ||
                 !strcmp(a, "--prop")) {
            if ((rc = need_arg(argc, argv, &i, &v, err)) != WX_OK)
                return rc;
            if (!strcmp(a, "--lab"))
                o->lab = v;
            else if (!strcmp(a, "--srew"))
                o->srew[o->n_srew++] = v;
            else if (!strcmp(a, "--trew"))
                o->trew[o->n_trew++] = v;
            else if (!strcmp(a, "--sta"))
                o->sta = v;
            else if (!strcmp(a, "--props"))
                o->props_file = v;
            else if (!strcmp(a, "--values"))
                o->values_out = v;
            else if (!strcmp(a, "--scheduler"))
                o->sched_out = v;
            else
                o->props[o->n_props++] = v;
        } else if (!strcmp(a, "--method")) {
            if ((rc = need_arg(argc, argv, &i, &v, err)) != WX_OK)
                return rc;
            o->topological = o->policy = 0;
            o->method_given = 1;
            if (!strcmp(v, "ii"))
                o->sound = 1;
            else if (!strcmp(v, "vi"))
                o->sound = 0;
            else if (!strcmp(v, "topological") || !strcmp(v, "topo"))
                o->sound = 1, o->topological = 1;
            else if (!strcmp(v, "pi"))
                o->sound = 1, o->policy = 1;
            else
                return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                               "--method takes ii (interval iteration, sound), pi (policy "
                               "iteration with certified bounds, sound), topological "
                               "(interval iteration SCC by SCC) or vi (plain value "
                               "iteration, unsound), not '%s'", v);
        } else if (!strcmp(a, "--solver")) {
            if ((rc = need_arg(argc, argv, &i, &v, err)) != WX_OK)
                return rc;
            o->inplace = 0;
            o->solver_given = 1;
            if (!strcmp(v, "jacobi"))
                o->solver = VI_JACOBI;
            else if (!strcmp(v, "gs"))
                o->solver = VI_GAUSS_SEIDEL;
            else if (!strcmp(v, "inplace"))
                o->solver = VI_GAUSS_SEIDEL, o->inplace = 1;
            else
                return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                               "--solver takes jacobi, gs or inplace, not '%s'", v);
        } else if (!strcmp(a, "--backend")) {
            if ((rc = need_arg(argc, argv, &i, &v, err)) != WX_OK)
                return rc;
            if ((rc = cli_backend_parse(v, &o->backend, err)) != WX_OK)
                return rc;
        } else if (!strcmp(a, "--epsilon")) {
            if ((rc = need_arg(argc, argv, &i, &v, err)) != WX_OK)
                return rc;
            char *end;
            errno = 0;
            o->epsilon = strtod(v, &end);
            if (*end || errno || !(o->epsilon > 0) || !(o->epsilon < 1))
                return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                               "--epsilon takes a number in (0, 1), not '%s'", v);
        } else if (!strcmp(a, "--gpu-memory")) {
            if ((rc = need_arg(argc, argv, &i, &v, err)) != WX_OK)
                return rc;
            if (wx_parse_size(v, &o->gpu_memory) || o->gpu_memory == 0)
                return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                               "--gpu-memory takes a positive size in bytes (suffix K, M, G or T), "
                               "not '%s'", v);
        } else if (!strcmp(a, "--max-iterations") || !strcmp(a, "--threads")) {
            if ((rc = need_arg(argc, argv, &i, &v, err)) != WX_OK)
                return rc;
            char *end;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            int thr = a[2] == 't';
            if (*end || errno || v[0] == '-' || !v[0] || (thr ? x > 1024 : x == 0))
                return wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s takes %s, not '%s'", a,
                               thr ? "a number of threads 0..1024 (0: all cores)"
                                   : "a positive number",
                               v);
            if (thr)
                o->threads = (int)x;
            else
                o->max_iterations = x;
        } else if (a[0] == '-' && a[1])
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown option '%s' for check", a);
        else if (o->input)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "check takes one MODEL ('%s' and '%s' given)",
                           o->input, a);
        else
            o->input = a;
    }
    if (!o->input || (!o->n_props && !o->props_file))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "usage: warpex check MODEL.tra|MODEL.drn [--lab F] [--srew F] [--trew F] "
                       "--prop 'Pmax=? [ F \"goal\" ]' | --props FILE [options] (see warpex help)");
    return WX_OK;
}

struct values_arg {
    const struct mdpcheck_result *r;
    const struct mdp_sta *sta; /* NULL: no valuations */
};

static int put_values(FILE *f, const void *arg)
{
    const struct values_arg *va = arg;
    const struct mdpcheck_result *r = va->r;
    for (uint64_t s = 0; s < r->n_states; s++) {
        double lo = r->lo[s], hi = r->hi[s], mid = isinf(lo) ? lo : 0.5 * (lo + hi);
        if (fprintf(f, "%llu %.17g %.17g %.17g%s%s\n", (unsigned long long)s, mid, lo, hi,
                    va->sta ? " " : "", va->sta ? va->sta->text + va->sta->offset[s] : "") < 0)
            return 1;
    }
    return 0;
}

static int put_scheduler(FILE *f, const void *arg)
{
    const struct mdpcheck_result *r = arg;
    for (uint64_t s = 0; s < r->n_states; s++)
        if (fprintf(f, "%llu %lld\n", (unsigned long long)s, (long long)r->choice[s]) < 0)
            return 1;
    return 0;
}

static void json_double(double v)
{
    if (isinf(v))
        printf("\"inf\"");
    else
        printf("%.17g", v);
}

static const char *backend_name(enum cli_backend b)
{
    return b == CLI_BACKEND_GPU ? "gpu" : "cpu";
}

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

int cmd_check(int argc, char **argv, int first, struct wx_error *err)
{
    struct check_options o;
    struct mdp m = {0};
    struct mdp_labels labels = {0};
    struct mdp_reward_models rew = {0};
    struct mdp_sta sta = {0};
    int have_sta = 0;
    struct property *props = NULL;
    size_t n_props = 0, n_file = 0;
    struct gpu_probe probe = {0};
    double t_start = wx_now();
    tl_start();
    tl_mark("check: start");
    uint8_t *initial = NULL;
    int *reward_of = NULL;
    struct mdpcheck_job *job0 = NULL; /* property 1, prepared during the GPU probe */
    int have_labels = 0;
    int rc = parse_options(argc, argv, first, &o, err);
    if (rc != WX_OK)
        goto out;

    /* the backend: the usage errors now, the GPU probe (and CUDA context
     * creation) on a thread while the model is read, the choice after it */
    enum cli_backend bk = o.backend;
    int want_gpu = bk != CLI_BACKEND_CPU && (o.solver != VI_GAUSS_SEIDEL || o.inplace);
    if (o.solver == VI_GAUSS_SEIDEL && !o.inplace && o.backend == CLI_BACKEND_GPU) {
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0,
                     "--solver gs is CPU only (the GPU runs Jacobi sweeps, or in-place sweeps "
                     "with --solver inplace): use --backend cpu");
        goto out;
    }
    if (o.policy && (o.solver_given || o.relative)) {
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0,
                     "--method pi takes no --solver (its sweeps are Jacobi) and needs the "
                     "absolute stopping rule (no --relative)");
        goto out;
    }
    if (o.policy)
        o.solver = VI_POLICY;
    if (o.topological && o.solver_given && (o.solver != VI_JACOBI || o.inplace)) {
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0,
                     "--method topological takes --solver jacobi (level by level, the GPU's "
                     "way) or no --solver (CPU: SCC by SCC, Gauss-Seidel)");
        goto out;
    }
    if (want_gpu) /* the context is created while the model is read */
        gpu_probe_start(&probe, valiter_gpu_init, tl_mark);

    /* the properties first: a typo should not wait for a large model */
    if (o.props_file && (rc = prop_read_file(o.props_file, &props, &n_file, err)) != WX_OK)
        goto out;
    n_props = n_file + (size_t)o.n_props;
    struct property *np = realloc(props, (n_props ? n_props : 1) * sizeof *np);
    if (!np) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        n_props = n_file;
        goto out;
    }
    props = np;
    for (int i = 0; i < o.n_props; i++) {
        if ((rc = prop_parse(o.props[i], "--prop", i + 1, &props[n_file + (size_t)i], err)) !=
            WX_OK) {
            n_props = n_file + (size_t)i;
            goto out;
        }
    }
    for (size_t i = 0; i < n_props && o.backend == CLI_BACKEND_GPU; i++)
        if (props[i].steps >= 0 || props[i].path == PATH_CUMULATIVE) {
            rc = wx_fail(err, WX_EINPUT, props[i].file, props[i].line, 1,
                         "%s: step-bounded properties (F<=k, U<=k, G<=k, C<=k) are solved on "
                         "the CPU only: use --backend cpu or auto", props[i].text);
            goto out;
        }
    if ((o.values_out || o.sched_out) && n_props != 1) {
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0,
                     "--values and --scheduler need exactly one property (%zu given)", n_props);
        goto out;
    }
    { /* the inputs may not be overwritten; the outputs are checked now */
        const char *in[] = {o.input, o.lab, o.sta, o.props_file};
        const char *outs[] = {o.values_out, o.sched_out};
        rc = cli_guard_files(in, 4, outs, 2, err);
        for (int i = 0; i < o.n_srew && rc == WX_OK; i++)
            rc = cli_guard_files(&o.srew[i], 1, NULL, 0, err);
        for (int i = 0; i < o.n_trew && rc == WX_OK; i++)
            rc = cli_guard_files(&o.trew[i], 1, NULL, 0, err);
        if (rc != WX_OK)
            goto out;
    }

    /* the model */
    double t0 = wx_now();
    size_t il = strlen(o.input);
    int is_drn = il > 4 && !strcmp(o.input + il - 4, ".drn");
    if (is_drn) {
        if (o.lab || o.n_srew || o.n_trew || o.sta) {
            rc = wx_fail(err, WX_EINPUT, NULL, 0, 0,
                         "a .drn file holds its own labels and rewards: --lab, --srew, "
                         "--trew and --sta are for .tra models");
            goto out;
        }
        if ((rc = drn_read_models(o.input, &m, &labels, &rew, err)) != WX_OK)
            goto out;
        have_labels = 1;
    } else {
        tl_mark("read .tra: start");
        if ((rc = mdp_read(o.input, &m, err)) != WX_OK)
            goto out;
        tl_mark("read .tra: done");
        if (o.lab) {
            if ((rc = mdp_labels_read(o.lab, m.n_states, &labels, err)) != WX_OK)
                goto out;
            have_labels = 1;
            tl_mark("read .lab: done");
        }
        if ((rc = read_reward_files(&o, &m, &rew, err)) != WX_OK)
            goto out;
        if (o.sta) {
            if ((rc = mdp_sta_read(o.sta, m.n_states, &sta, err)) != WX_OK)
                goto out;
            have_sta = 1;
        }
    }
    double read_s = (wx_now() - t0);
    tl_mark("model read");

    /* initial states: the "init" label, else state 0 */
    initial = calloc(m.n_states ? m.n_states : 1, 1);
    if (!initial) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        goto out;
    }
    int init_id = have_labels ? mdp_labels_find(&labels, "init") : -1;
    uint64_t n_init = 0;
    for (uint64_t s = 0; s < m.n_states; s++) {
        initial[s] = init_id >= 0 ? (uint8_t)mdp_labels_has(&labels, init_id, s) : s == 0;
        n_init += initial[s];
    }
    if (m.n_states == 0) {
        rc = wx_fail(err, WX_EINPUT, o.input, 0, 0, "the model has no state");
        goto out;
    }

    /* every label of every property exists: checked before any output, by
     * evaluating the formulas on state 0 alone (an unknown label fails
     * whatever the states; mdpcheck_run evaluates them on all states) */
    {
        uint8_t tmp[1];
        struct mdp first = m;
        first.n_states = 1;
        for (size_t i = 0; i < n_props && rc == WX_OK; i++) {
            const struct mdp_labels *lp = have_labels ? &labels : NULL;
            rc = prop_check_model(&props[i], &m, err);
            if (rc == WX_OK && props[i].phi2)
                rc = prop_eval(&props[i], props[i].phi2, &first, lp, initial, tmp, err);
            if (rc == WX_OK && props[i].phi1)
                rc = prop_eval(&props[i], props[i].phi1, &first, lp, initial, tmp, err);
        }
        if (rc != WX_OK)
            goto out;
    }

    /* every reward reference names a structure of the model */
    if (!(reward_of = calloc(n_props ? n_props : 1, sizeof *reward_of))) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n_props; i++)
        if ((rc = prop_reward_model(&props[i], &rew, &reward_of[i], err)) != WX_OK)
            goto out;

    /* the options that do not depend on the backend */
    struct mdpcheck_options mo = {.sound = o.sound, .solver = o.solver, .epsilon = o.epsilon,
                                  .relative = o.relative, .max_iterations = o.max_iterations,
                                  .threads = o.threads, .scheduler = o.sched_out != NULL,
                                  .topological = o.topological,
                                  .device_memory = o.gpu_memory};
    cli_vi_gpu_env(&mo.vi_gpu);
    if (tl.on)
        mo.trace = tl_trace;
    /* Huge pages for the large work arrays when a GPU may be used: then
     * they are warmed while the context is created, and on the H100's host
     * (THP "madvise") the warming then finished inside that wait, where
     * with 4 KiB pages it was cut short (2026-11-22, bench/RESULTS.md).
     * Diagnostic knobs (bench/bench_check_e2e.sh --var): WARPEX_CHECK_WARM=0
     * skips the warming, WARPEX_CHECK_HUGEPAGES=0 or 1 overrides the advice. */
    const char *hp_knob = getenv("WARPEX_CHECK_HUGEPAGES"), *knob;
    mo.huge_pages = hp_knob && *hp_knob ? *hp_knob == '1'
                                        : want_gpu && !(atomic_load(&probe.done) && !probe.usable);
    knob = getenv("WARPEX_CHECK_WARM");
    int warm = !(knob && *knob == '0');

    /* While the GPU probe still creates the CUDA context (0.15 s on the
     * H100, longer than the read of a 10^6-state model), the first
     * property's CPU-side work is done: its state formulas, and its work
     * arrays allocated and touched until the probe is done
     * (mdpcheck_prepare, warm).  Nothing of it depends on the backend. */
    if (want_gpu && n_props && !probe.joined && prop_is_basic(&props[0])) {
        tl_mark("property 1: prepare (while the GPU probe runs)");
        const struct mdp_rewards *pr0 =
            props[0].kind >= PROP_RMIN && rew.n ? &rew.models[reward_of[0]] : NULL;
        if ((rc = mdpcheck_prepare(&m, have_labels ? &labels : NULL, pr0, initial, &props[0], &mo,
                                   warm, &probe.done, &job0, err)) != WX_OK)
            goto out;
        tl_mark("property 1: prepared");
    }

    /* the backend, now that the probe has had the read's time */
    int gpu_ok = want_gpu && gpu_probe_join(&probe);
    if (want_gpu)
        tl_mark("GPU probe joined (waited %.6f s)", probe.wait_seconds);
    if (!want_gpu)
        bk = CLI_BACKEND_CPU;
    else if (bk == CLI_BACKEND_AUTO)
        bk = gpu_ok ? CLI_BACKEND_GPU : CLI_BACKEND_CPU;
    if (bk == CLI_BACKEND_GPU && !gpu_ok) {
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0,
                     "--backend gpu: no usable CUDA device (or a build without CUDA)");
        goto out;
    }

    /* topological: level by level on the GPU, and on the CPU with --solver
     * jacobi (the GPU's twin); else SCC by SCC with Gauss-Seidel */
    int levels = o.topological && (bk == CLI_BACKEND_GPU || o.solver_given);
    const char *solver_name = levels ? "levels"
                              : o.topological ? "topological"
                              : o.inplace ? "inplace"
                              : o.policy ? "policy"
                              : o.solver == VI_GAUSS_SEIDEL ? "gs" : "jacobi";
    if (o.json) {
        printf("{\"model\": {\"file\": ");
        cli_json_string(stdout, o.input);
        printf(", \"type\": \"%s\", \"states\": %llu, \"choices\": %llu, "
               "\"transitions\": %llu, \"initial_states\": %llu, \"read_seconds\": %.6f}, "
               "\"backend\": \"%s\", \"method\": \"%s\", \"solver\": \"%s\", \"sound\": %s, \"epsilon\": %g, "
               "\"relative\": %s, \"gpu_init_seconds\": %.6f, \"gpu_wait_seconds\": %.6f, "
               "\"properties\": [",
               m.is_dtmc ? "dtmc" : "mdp", (unsigned long long)m.n_states,
               (unsigned long long)m.n_choices, (unsigned long long)m.n_entries,
               (unsigned long long)n_init, read_s, backend_name(bk), o.topological ? "topological" : o.policy ? "pi" : o.sound ? "ii" : "vi",
               solver_name,
               o.sound ? "true" : "false", o.epsilon, o.relative ? "true" : "false",
               probe.seconds, probe.wait_seconds);
    } else {
        printf("model: %s, %llu states, %llu choices, %llu transitions, %llu initial state%s\n",
               m.is_dtmc ? "DTMC" : "MDP", (unsigned long long)m.n_states,
               (unsigned long long)m.n_choices, (unsigned long long)m.n_entries,
               (unsigned long long)n_init, n_init == 1 ? "" : "s");
        if (init_id < 0)
            printf("note: no \"init\" label: state 0 is taken as the initial state\n");
        printf("method: %s, epsilon %g (%s), backend %s%s\n",
               levels        ? "interval iteration, level by level of the SCC graph (sound)"
               : o.topological ? "interval iteration, SCC by SCC (sound)"
               : o.policy    ? "policy iteration with certified bounds (sound)"
               : o.sound     ? "interval iteration (sound)"
                             : "value iteration (UNSOUND: no error bound on the result)",
               o.epsilon, o.relative ? "relative" : "absolute", backend_name(bk),
               o.topological || o.policy ? ""
               : bk == CLI_BACKEND_CPU
                   ? (o.solver == VI_GAUSS_SEIDEL ? ", Gauss-Seidel" : ", Jacobi")
                   : (o.inplace ? ", in-place sweeps (sound; not bit-identical to the CPU)" : ""));
        if (!o.quiet)
            fprintf(stderr, "warpex: read %.3f s\n", read_s);
    }
    fflush(stdout);
    tl_mark("initial states, labels checked, header printed");

    if (!(hp_knob && *hp_knob))
        mo.huge_pages = bk == CLI_BACKEND_GPU;
    /* The arrays copied to the GPU are page-locked during the
     * precomputation (mdpcheck.h).  Measured on the H100 (2026-11-22):
     * the MEC upload and the solve's got ~5 and ~10 ms faster, the
     * precomputation about as much slower (both use the driver at once), so
     * the whole stayed the same; kept for the solve, which gains more on
     * larger systems.  WARPEX_CHECK_PIN=0 leaves them pageable. */
    knob = getenv("WARPEX_CHECK_PIN");
    if (bk == CLI_BACKEND_GPU && !(knob && *knob == '0'))
        mo.pin = hostpin_register, mo.unpin = hostpin_unregister;
    if (bk == CLI_BACKEND_GPU) {
        mo.precompute = valiter_precompute_gpu;
        mo.precompute2 = valiter_precompute2_gpu;
        mo.solve = valiter_solve_gpu;
        mo.mec = mec_gpu;
        mo.scc = scc_gpu;
    }
    if (levels)
        mo.solve_levels = bk == CLI_BACKEND_GPU ? valiter_solve_levels_gpu : valiter_solve_levels_cpu;
    if (tl.on) {
        tl_pre_fn = mo.precompute ? mo.precompute : valiter_precompute_cpu;
        tl_solve_fn = mo.solve ? mo.solve : valiter_solve_cpu;
        tl_mec_fn = mo.mec ? mo.mec : mec_cpu;
        mo.precompute = tl_pre;
        if (mo.precompute2) {
            tl_pre2_fn = mo.precompute2;
            mo.precompute2 = tl_pre2;
        }
        mo.solve = tl_solve;
        mo.mec = tl_mec;
    }
    size_t n_false = 0, n_undecided = 0, first_false = 0, first_undecided = 0;
    for (size_t i = 0; i < n_props; i++) {
        struct property *p = &props[i];
        struct mdpcheck_result r;
        struct propcheck_info info = {.result = PROP_TRUE, .epsilon = o.epsilon, .tries = 1};
        const struct mdp_rewards *pr = p->kind >= PROP_RMIN && rew.n ? &rew.models[reward_of[i]] : NULL;
        if (p->kind >= PROP_RMIN && !pr && !o.quiet)
            fprintf(stderr, "warpex: note: %s: no rewards given (--srew/--trew): all rewards are 0\n",
                    p->text);
        tl_mark("property %zu: start", i + 1);
        if (i == 0 && job0) {
            struct mdpcheck_job *j = job0;
            job0 = NULL; /* finish consumes it */
            rc = mdpcheck_finish(j, &mo, &r, err);
        } else
            rc = propcheck_run(&m, have_labels ? &labels : NULL, pr, initial, p, &mo, &r, &info,
                               err);
        tl_mark("property %zu: checked", i + 1);
        if (rc != WX_OK) {
            if (o.json)
                printf("]}\n");
            goto out;
        }
        if (info.result == PROP_FALSE && !n_false++)
            first_false = i + 1;
        if (info.result == PROP_UNDECIDED && !n_undecided++)
            first_undecided = i + 1;
        struct values_arg va = {&r, have_sta ? &sta : NULL};
        if (o.values_out && (rc = outfile_write(o.values_out, put_values, &va, err)) != WX_OK)
            goto next;
        if (o.sched_out && (rc = outfile_write(o.sched_out, put_scheduler, &r, err)) != WX_OK)
            goto next;
        if (o.json) {
            cli_json_property_head(stdout, i == 0, p, pr, reward_of[i]);
            printf(", \"initial\": [");
            int k = 0;
            for (uint64_t s = 0; s < m.n_states; s++) {
                if (!initial[s])
                    continue;
                double lo = r.lo[s], hi = r.hi[s], mid = isinf(lo) ? lo : 0.5 * (lo + hi);
                printf("%s{\"state\": %llu, \"value\": ", k++ ? ", " : "", (unsigned long long)s);
                json_double(mid);
                printf(", \"lo\": ");
                json_double(lo);
                printf(", \"hi\": ");
                json_double(hi);
                check_report_json_state(stdout, p, lo, hi);
                if (have_sta) {
                    printf(", \"valuation\": ");
                    cli_json_string(stdout, sta.text + sta.offset[s]);
                }
                printf("}");
            }
            printf("]");
            check_report_json(stdout, p, &r, initial, &info);
            printf(", \"target_states\": %llu, \"yes_states\": %llu, \"no_states\": %llu, "
                   "\"maybe_states\": %llu, \"infinite_states\": %llu, \"system_states\": %llu, "
                   "\"system_choices\": %llu, \"system_transitions\": %llu, "
                   "\"mecs_collapsed\": %llu, \"blocks\": %llu, \"levels\": %llu, \"level_sweeps\": %llu, "
                   "\"groups\": %llu, \"iterations\": %llu, \"bound_iterations\": %llu, "
                   "\"precomputation_seconds\": %.6f, \"build_seconds\": %.6f, \"mec_seconds\": %.6f, "
                   "\"solve_seconds\": %.6f, \"sweep_seconds\": %.9f, \"bytes_per_sweep\": %llu",
                   (unsigned long long)r.n_target, (unsigned long long)r.n_yes,
                   (unsigned long long)r.n_no, (unsigned long long)r.n_maybe,
                   (unsigned long long)r.n_infinite, (unsigned long long)r.sys_states,
                   (unsigned long long)r.sys_choices, (unsigned long long)r.sys_entries,
                   (unsigned long long)r.mecs_collapsed, (unsigned long long)r.blocks,
                   (unsigned long long)r.levels, (unsigned long long)r.stats.level_sweeps,
                   (unsigned long long)r.stats.groups, (unsigned long long)r.iterations,
                   (unsigned long long)r.bound_iterations, r.precomp_seconds, r.build_seconds,
                   r.mec_seconds, r.solve_seconds, r.stats.sweep_seconds,
                   (unsigned long long)r.stats.bytes_per_sweep);
            if (o.policy)
                printf(", \"policy_rounds\": %llu, \"products\": %llu, \"certified\": %s",
                       (unsigned long long)r.stats.policy_rounds,
                       (unsigned long long)r.stats.products, r.stats.certified ? "true" : "false");
            printf("}");
        } else {
            printf("\nproperty %zu%s%s%s: %s\n", i + 1, p->name ? " \"" : "",
                   p->name ? p->name : "", p->name ? "\"" : "", p->text);
            if (pr && pr->name)
                printf("  rewards: structure \"%s\"\n", pr->name);
            else if (pr)
                printf("  rewards: structure %d (unnamed)\n", reward_of[i] + 1);
            int shown = 0;
            for (uint64_t s = 0; s < m.n_states; s++) {
                if (!initial[s])
                    continue;
                if (shown++ == 10) {
                    printf("  ... (%llu initial states; --values FILE has all)\n",
                           (unsigned long long)n_init);
                    break;
                }
                double lo = r.lo[s], hi = r.hi[s];
                if (p->cmp != PROP_QUERY)
                    check_report_state(stdout, p, lo, hi, s);
                else if (isinf(lo))
                    printf("  result: inf (target not reached almost surely) at state %llu",
                           (unsigned long long)s);
                else if (o.sound)
                    printf("  result: %.12g in [%.12g, %.12g] at state %llu", 0.5 * (lo + hi),
                           lo, hi, (unsigned long long)s);
                else
                    printf("  result: %.12g at state %llu (UNSOUND: value iteration, no "
                           "error bound)",
                           lo, (unsigned long long)s);
                if (have_sta)
                    printf(" %s", sta.text + sta.offset[s]);
                printf("\n");
            }
            check_report_summary(stdout, p, &r, initial, n_init, &info);
            if (info.bounded)
                goto printed;
            printf("  states: %llu target, %llu %s, %llu %s, %llu maybe",
                   (unsigned long long)r.n_target, (unsigned long long)r.n_yes,
                   p->kind >= PROP_RMIN ? "settled" : "yes", (unsigned long long)(p->kind >= PROP_RMIN ? r.n_infinite : r.n_no),
                   p->kind >= PROP_RMIN ? "infinite" : "no", (unsigned long long)r.n_maybe);
            printf("; system %llu states, %llu choices, %llu transitions",
                   (unsigned long long)r.sys_states, (unsigned long long)r.sys_choices,
                   (unsigned long long)r.sys_entries);
            if (r.mecs_collapsed)
                printf(" (%llu MECs collapsed)", (unsigned long long)r.mecs_collapsed);
            if (r.blocks)
                printf(", %llu SCCs", (unsigned long long)r.blocks);
            if (r.levels && o.topological)
                printf(" in %llu levels", (unsigned long long)r.levels);
            if (r.stats.groups > 1)
                printf(", solved in %llu groups (--gpu-memory)", (unsigned long long)r.stats.groups);
            printf("\n  iterations: %llu", (unsigned long long)r.iterations);
            if (r.bound_iterations)
                printf(" (%llu for the reward upper bound)", (unsigned long long)r.bound_iterations);
            if (o.policy)
                printf(", %llu policies, %llu products with a policy's matrix, %s",
                       (unsigned long long)r.stats.policy_rounds,
                       (unsigned long long)r.stats.products,
                       r.stats.certified ? "certified"
                       : r.stats.policy_rounds ? "certificate failed: interval iteration finished"
                                               : "interval iteration sufficed");
            printf("; time: precomputation %.3f s, system %.3f s, solve %.3f s\n",
                   r.precomp_seconds, r.build_seconds, r.solve_seconds);
        }
    printed:
        fflush(stdout);
        tl_mark("property %zu: printed", i + 1);
    next:
        mdpcheck_result_free(&r);
        if (rc != WX_OK) {
            if (o.json)
                printf("]}\n");
            goto out;
        }
    }
    if (o.json) /* all but process start-up and exit */
        printf("], \"seconds\": %.6f}\n", (wx_now() - t_start));
    /* PRISM's P~p answers: undecided is a limit (exit 3), false a violation (exit 1) */
    if (n_undecided)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                     "%zu comparison%s undecided (the first: property %zu): the bound lies "
                     "within the value's interval", n_undecided, n_undecided == 1 ? "" : "s",
                     first_undecided);
    else if (n_false)
        rc = wx_fail(err, WX_EVIOLATION, NULL, 0, 0, "%zu propert%s false (the first: property %zu)",
                     n_false, n_false == 1 ? "y is" : "ies are", first_false);
out:
    mdpcheck_job_free(job0);
    gpu_probe_join(&probe);
    free(o.props);
    free(o.srew);
    free(o.trew);
    free(reward_of);
    free(initial);
    prop_free_all(props, n_props);
    mdp_labels_free(&labels);
    mdp_reward_models_free(&rew);
    mdp_sta_free(&sta);
    mdp_free(&m);
    tl_mark("check: freed, returning (what follows is exit)");
    return rc;
}
