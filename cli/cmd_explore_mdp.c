/*
 * cmd_explore_mdp.c -- `warpex explore` on a probabilistic network: the
 * sequential MDP explorer (explorer/explore_mdp.h), the PRISM explicit
 * export (--mdp-out BASE: BASE.tra, BASE.lab, and the .trew files of the
 * reward structures) and Pmin/Pmax/Rmin/Rmax properties checked on the MDP
 * in memory (--prop, --props; analysis/mdpcheck.h).
 *
 * Rewards are action rewards (PRISM's "[a] true : v" items):
 * --reward [NAME:]REGEX=VALUE gives VALUE to every choice whose action
 * matches the POSIX extended REGEX (anywhere in the name; the hidden action
 * by its name too); the items of one NAME (or the unnamed items) add up to
 * one structure, numbered in order of first appearance for R{N}.  An item
 * that matches no action of the network is an error: a typo must not give
 * zero rewards silently.
 *
 * Atomic propositions of an explored MDP: "init" (state 0), "deadlock" (no
 * choice), and every action name "a": the states where a choice labelled
 * a is enabled.  Reaching an a-enabled state is what "doing a" can be
 * reduced to for Pmax (a scheduler that reaches such a state may take the a
 * choice there next, and one doing a must pass through one); for Pmin a
 * scheduler may reach an a-enabled state and choose something else, so
 * there the network should make the marker action the only choice of the
 * states where it is enabled (the consensus example's agree/disagree
 * loops).  Action names "init" and "deadlock" keep the reserved meaning.
 * Every label name of the network (its label table: the components'
 * labels and the results of its synchronisation vectors) is a proposition,
 * so an action that no reachable state enables -- or that no rule can ever
 * fire -- holds nowhere ("is err reachable?" answers 0); a name that occurs
 * nowhere in the network stays unknown (exit 2: a typo must not answer 0).
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/mdpcheck.h"
#include "../analysis/prop.h"
#include "../analysis/propcheck.h"
#include "../analysis/valiter.h"
#include "../explorer/explore_mdp.h"
#include "../explorer/mdp_aps.h"
#include "../graph/mdp_lab.h"
#include "../explorer/mdp_rules.h"
#include "../kernels/explore_mdp_gpu.h"
#include "../parser/aut.h"
#include "../util/arith.h"
#include "../util/strtab.h"
#include "../util/outfile.h"
#include "../util/config.h"
#include "cli.h"
#include "mdp_checks.h"
#include "mdp_dev_bind.h"
#include "check.h"
#include "prop_report.h"
#include "signals.h"

static void progress(void *ctx, const struct explore_stats *s)
{
    (void)ctx;
    fprintf(stderr, "warpex: %llu states, %llu choices, depth %u, %.1f MiB, %.0f s\n",
            (unsigned long long)s->states, (unsigned long long)s->transitions, s->depth,
            s->bytes / 1048576.0, s->seconds);
}

static const char *choice_name(const struct image *img, uint32_t l)
{
    return l < img->n_labels ? strtab_str(img->labels, l) : "tau";
}

/* Every label a property names exists: mdp_aps_build declares every name
 * of the network, so this is known before the exploration (a typo must
 * not wait for it).  The formulas are evaluated on one state. */
static int check_names(const struct image *img, const struct property *props, size_t n,
                       struct wx_error *err)
{
    struct mdp_labels lab;
    mdp_labels_init(&lab, 1);
    int *id = malloc(((size_t)img->n_labels + 1) * sizeof *id);
    uint32_t skipped = 0;
    int rc = id && mdp_labels_add(&lab, "init") == 0 && mdp_labels_add(&lab, "deadlock") == 1
                 ? WX_OK
                 : WX_ELIMIT;
    for (uint32_t l = 0; l < img->n_labels && rc == WX_OK; l++) {
        id[l] = -1;
        if (mdp_aps_id(img, l, id, &lab, &skipped) == -1)
            rc = WX_ELIMIT;
    }
    if (rc != WX_OK)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    uint64_t starts[2] = {0, 0};
    struct mdp one = {.n_states = 1, .state_start = starts, .choice_start = starts};
    uint8_t init = 1, out;
    for (size_t i = 0; i < n && rc == WX_OK; i++) {
        if (props[i].phi2)
            rc = prop_eval(&props[i], props[i].phi2, &one, &lab, &init, &out, err);
        if (rc == WX_OK && props[i].phi1)
            rc = prop_eval(&props[i], props[i].phi1, &one, &lab, &init, &out, err);
    }
    free(id);
    mdp_labels_free(&lab);
    return rc;
}

struct tra_arg {
    const struct image *img;
    const struct mdp_explore_result *r;
};

/* PRISM's explicit MDP: "S C T", then "SRC CHOICE DST PROB [ACTION]";
 * probabilities with 17 significant digits (the doubles exactly); an action
 * is written when it is one blank-free token. */
static int put_tra(FILE *f, const void *arg)
{
    const struct tra_arg *a = arg;
    const struct mdp *m = &a->r->mdp;
    if (fprintf(f, "%llu %llu %llu\n", (unsigned long long)m->n_states,
                (unsigned long long)m->n_choices, (unsigned long long)m->n_entries) < 0)
        return 1;
    for (uint64_t s = 0; s < m->n_states; s++)
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            const char *name = choice_name(a->img, a->r->choice_label[c]);
            int token = *name != 0;
            for (const char *p = name; *p && token; p++)
                token = *p != ' ' && *p != '\t' && (unsigned char)*p >= 0x20 && *p != 0x7f;
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                if (fprintf(f, "%llu %llu %u %.17g%s%s\n", (unsigned long long)s,
                            (unsigned long long)(c - m->state_start[s]), m->targets[e], m->probs[e],
                            token ? " " : "", token ? name : "") < 0)
                    return 1;
        }
    return 0;
}

static int put_lab(FILE *f, const void *arg)
{
    const struct mdp_labels *l = arg;
    for (uint32_t i = 0; i < l->n_labels; i++)
        if (fprintf(f, "%s%u=\"%s\"", i ? " " : "", i, l->names[i]) < 0)
            return 1;
    if (fputc('\n', f) == EOF)
        return 1;
    for (uint64_t s = 0; s < l->n_states; s++) {
        int any = 0;
        for (uint32_t i = 0; i < l->n_labels; i++)
            if (mdp_labels_has(l, (int)i, s)) {
                if ((any ? fprintf(f, " %u", i) : fprintf(f, "%llu: %u", (unsigned long long)s, i)) < 0)
                    return 1;
                any = 1;
            }
        if (any && fputc('\n', f) == EOF)
            return 1;
    }
    return 0;
}

/* The MDP in mCRL2's probabilistic .aut syntax: one line per choice, the
 * exact probabilities as fractions (state 0 initial, BFS numbering). */
static int write_aut(const char *path, const struct image *img, const struct mdp_explore_result *r,
                     struct wx_error *err)
{
    const struct mdp *m = &r->mdp;
    struct aut_writer *w;
    int rc = aut_writer_open(path, &w, err);
    if (rc != WX_OK)
        return rc;
    aut_writer_expect(w, m->state_start[m->n_states], m->n_states); /* one line per choice */
    uint64_t *dst = NULL;
    size_t cap = 0;
    int writer_failed = 0;
    for (uint64_t s = 0; s < m->n_states && rc == WX_OK; s++)
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1] && rc == WX_OK; c++) {
            uint64_t a = m->choice_start[c], n = m->choice_start[c + 1] - a;
            if (n > UINT32_MAX || wx_reserve((void **)&dst, &cap, n, sizeof *dst, 64) != 0) {
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory writing %s", path);
                break;
            }
            for (uint64_t e = a; e < a + n; e++) {
                if (r->entry_den[e] == 0) {
                    rc = wx_fail(err, WX_ELIMIT, path, 0, 0,
                                 "the probability of a transition of state %llu is a fraction beyond "
                                 "64 bits (about %.17g): it cannot be written exactly",
                                 (unsigned long long)s, m->probs[e]);
                    break;
                }
                dst[e - a] = m->targets[e];
            }
            if (rc != WX_OK)
                break;
            const char *name = choice_name(img, r->choice_label[c]);
            rc = aut_writer_add_dist(w, s, name, strlen(name), (uint32_t)n, dst, r->entry_num + a,
                                     r->entry_den + a);
            writer_failed = rc != WX_OK;
        }
    free(dst);
    if (rc != WX_OK && !writer_failed) {
        aut_writer_abort(w); /* removes the file */
        return rc;
    }
    /* on a writer failure, close reports it in full and removes the file */
    return aut_writer_close(w, m->n_states, err);
}

/* The --reward items: each with its structure, compiled before the
 * exploration so that a typo does not wait for it. */
struct reward_items {
    size_t n;
    regex_t *re;
    double *value;
    int *model;
    struct mdp_reward_models rm; /* names only until reward_fill */
};

static void reward_items_free(struct reward_items *ri)
{
    for (size_t i = 0; i < ri->n; i++)
        regfree(&ri->re[i]);
    free(ri->re), free(ri->value), free(ri->model);
    mdp_reward_models_free(&ri->rm);
    memset(ri, 0, sizeof *ri);
}

/* The structure of a --reward item: NAME before the first ':' when that
 * comes before eq (an empty NAME is the unnamed one), found or added
 * (*model); *rx: where the item's REGEX starts. */
static int reward_item_model(struct reward_items *ri, const char *spec, const char *eq, int line,
                             int *unnamed, int *model, const char **rx, struct wx_error *err)
{
    const char *colon = strchr(spec, ':');
    char *name = NULL;
    *rx = spec;
    if (colon && colon < eq) {
        *rx = colon + 1;
        if (colon > spec && !(name = strndup(spec, (size_t)(colon - spec))))
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        if (name && !mdp_aps_nameable(name)) {
            free(name);
            return wx_fail(err, WX_EINPUT, "--reward", line, 1,
                           "a reward structure's name cannot hold '\"' or control bytes");
        }
    }
    *model = name ? mdp_reward_models_find(&ri->rm, name) : *unnamed;
    if (*model < 0) {
        *model = mdp_reward_models_add(&ri->rm);
        if (*model < 0) {
            free(name);
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        }
        ri->rm.models[*model].name = name, name = NULL;
        if (!ri->rm.models[*model].name)
            *unnamed = *model;
    }
    free(name);
    return WX_OK;
}

/* Compiles item i's REGEX (from rx up to eq) into ri->re[i]; it must match
 * an action of the network. */
static int reward_item_regex(struct reward_items *ri, size_t i, const char *spec, const char *rx,
                             const char *eq, const struct image *img, struct wx_error *err)
{
    int line = (int)i + 1;
    char *text = strndup(rx, (size_t)(eq - rx));
    if (!text)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    int rc = *text ? regcomp(&ri->re[i], text, REG_EXTENDED | REG_NOSUB) : -1;
    if (rc != 0) {
        char msg[256] = "empty";
        if (rc > 0)
            regerror(rc, &ri->re[i], msg, sizeof msg);
        free(text);
        return wx_fail(err, WX_EINPUT, "--reward", line, (int)(rx - spec) + 1,
                       "bad regular expression: %s", msg);
    }
    ri->n = i + 1; /* re[i] is compiled: reward_items_free frees it */
    int hits = 0;
    for (uint32_t l = 0; l < img->n_labels && !hits; l++)
        hits = regexec(&ri->re[i], strtab_str(img->labels, l), 0, NULL, 0) == 0;
    if (!hits)
        rc = wx_fail(err, WX_EINPUT, "--reward", line, (int)(rx - spec) + 1,
                     "'%s' matches no action of the network", text);
    free(text);
    return hits ? WX_OK : rc;
}

/* SPEC = [NAME:]REGEX=VALUE: NAME up to the first ':', VALUE after the
 * last '=' (so REGEX may hold both; an empty NAME is the unnamed one). */
static int reward_item_parse(struct reward_items *ri, size_t i, const char *spec,
                             const struct image *img, int *unnamed, struct wx_error *err)
{
    const char *eq = strrchr(spec, '='), *rx = spec;
    int line = (int)i + 1, model = -1, rc;
    if (!eq)
        return wx_fail(err, WX_EINPUT, "--reward", line, 1,
                       "'%s': expected [NAME:]REGEX=VALUE", spec);
    char *end;
    errno = 0;
    double v = strtod(eq + 1, &end);
    if (eq[1] == 0 || *end || errno || !isfinite(v) || v < 0)
        return wx_fail(err, WX_EINPUT, "--reward", line, (int)(eq + 1 - spec) + 1,
                       "'%s': the reward must be a finite number >= 0", eq + 1);
    if ((rc = reward_item_model(ri, spec, eq, line, unnamed, &model, &rx, err)) != WX_OK ||
        (rc = reward_item_regex(ri, i, spec, rx, eq, img, err)) != WX_OK)
        return rc;
    ri->value[i] = v;
    ri->model[i] = model;
    return WX_OK;
}

/* The --reward items of o, each with its structure. */
static int reward_items_parse(const struct cli_options *o, const struct image *img,
                              struct reward_items *ri, struct wx_error *err)
{
    memset(ri, 0, sizeof *ri);
    size_t n = (size_t)o->n_rewards;
    if (!n)
        return WX_OK;
    ri->re = calloc(n, sizeof *ri->re);
    ri->value = calloc(n, sizeof *ri->value);
    ri->model = calloc(n, sizeof *ri->model);
    if (!ri->re || !ri->value || !ri->model)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    int unnamed = -1;
    for (size_t i = 0; i < n; i++) {
        int rc = reward_item_parse(ri, i, o->rewards[i], img, &unnamed, err);
        if (rc != WX_OK)
            return rc;
    }
    return WX_OK;
}

/* Each structure's choice rewards: the sum of its items matching the
 * choice's action (0 for the fresh initial choice without a label). */
static int reward_fill(const struct image *img, const struct mdp_explore_result *r,
                       struct reward_items *ri, struct wx_error *err)
{
    const struct mdp *m = &r->mdp;
    size_t nl = (size_t)img->n_labels;
    double *per_label = calloc((nl ? nl : 1) * (ri->rm.n ? ri->rm.n : 1), sizeof *per_label);
    if (!per_label)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < ri->n; i++)
        for (uint32_t l = 0; l < img->n_labels; l++)
            if (regexec(&ri->re[i], strtab_str(img->labels, l), 0, NULL, 0) == 0)
                per_label[(size_t)ri->model[i] * nl + l] += ri->value[i];
    for (size_t k = 0; k < ri->rm.n; k++) {
        double *c = calloc(m->n_choices ? m->n_choices : 1, sizeof *c);
        if (!c) {
            free(per_label);
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        }
        for (uint64_t j = 0; j < m->n_choices; j++)
            c[j] = r->choice_label[j] < nl ? per_label[k * nl + r->choice_label[j]] : 0;
        ri->rm.models[k].choice = c;
    }
    free(per_label);
    return WX_OK;
}

struct trew_arg {
    const struct mdp *m;
    const struct mdp_rewards *rew;
};

/* PRISM's transition rewards of an MDP: "S C N", then "SRC CHOICE DST
 * REWARD" for every entry of a rewarded choice (PRISM repeats a choice's
 * reward on each of its lines); the structure's name in PRISM's header
 * comment, which `warpex check --trew` reads back. */
static int put_trew(FILE *f, const void *arg)
{
    const struct trew_arg *a = arg;
    const struct mdp *m = a->m;
    uint64_t lines = 0;
    for (uint64_t c = 0; c < m->n_choices; c++)
        if (a->rew->choice[c] != 0)
            lines += m->choice_start[c + 1] - m->choice_start[c];
    if (a->rew->name && fprintf(f, "# Reward structure \"%s\"\n", a->rew->name) < 0)
        return 1;
    if (fprintf(f, "%llu %llu %llu\n", (unsigned long long)m->n_states,
                (unsigned long long)m->n_choices, (unsigned long long)lines) < 0)
        return 1;
    for (uint64_t s = 0; s < m->n_states; s++)
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            double v = a->rew->choice[c];
            if (v == 0)
                continue;
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                if (fprintf(f, "%llu %llu %u %.17g\n", (unsigned long long)s,
                            (unsigned long long)(c - m->state_start[s]), m->targets[e], v) < 0)
                    return 1;
        }
    return 0;
}

/* BASE.tra, BASE.lab and the reward files: BASE.trew for one structure,
 * BASE1.trew ... BASEk.trew for several.  Nothing is replaced unless every
 * file was written (a failure committing one of them, a rename, can still
 * leave the earlier ones replaced). */
static int write_mdp_files(const char *base, const struct image *img,
                           const struct mdp_explore_result *r, const struct mdp_labels *labels,
                           const struct mdp_reward_models *rm, struct wx_error *err)
{
    size_t n = strlen(base), files = 2 + rm->n;
    char **paths = calloc(files, sizeof *paths);
    if (!paths)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    int rc = WX_OK;
    for (size_t i = 0; i < files && rc == WX_OK; i++) {
        if (!(paths[i] = malloc(n + 32))) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
            break;
        }
        if (i < 2)
            snprintf(paths[i], n + 32, "%s%s", base, i ? ".lab" : ".tra");
        else if (rm->n == 1)
            snprintf(paths[i], n + 32, "%s.trew", base);
        else
            snprintf(paths[i], n + 32, "%s%zu.trew", base, i - 1);
    }
    /* Every file is written before any is committed, so a failure leaves
     * every existing file as it was (targets written in place excepted). */
    struct outfile **outs = calloc(files, sizeof *outs);
    if (!outs && rc == WX_OK)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    struct tra_arg ta = {img, r};
    for (size_t i = 0; i < files && rc == WX_OK; i++) {
        struct trew_arg wa = {&r->mdp, i >= 2 ? &rm->models[i - 2] : NULL};
        FILE *f = NULL;
        if ((rc = outfile_open(paths[i], 0, &outs[i], err)) != WX_OK)
            break;
        if (!(f = outfile_stream(outs[i]))) {
            rc = wx_fail(err, WX_ELIMIT, paths[i], 0, 0, "out of memory");
            break;
        }
        /* a write failure stops the writer; the commit below reports it */
        if (i == 0)
            put_tra(f, &ta);
        else if (i == 1)
            put_lab(f, labels);
        else
            put_trew(f, &wa);
    }
    for (size_t i = 0; i < files && outs; i++) {
        if (rc == WX_OK && outs[i])
            rc = outfile_commit(outs[i], err);
        else
            outfile_abort(outs[i]);
    }
    free(outs);
    for (size_t i = 0; i < files; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

static int refuse(const char *what, struct wx_error *err)
{
    return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                   "%s is not available for probabilistic networks yet (they are explored as "
                   "MDPs: use --mdp-out, --prop or --props)", what);
}

static void json_double(double v)
{
    if (isinf(v))
        printf("\"inf\"");
    else
        printf("%.17g", v);
}

/* The options that do not apply to a probabilistic network; --backend
 * gpu without a usable device. */
static int refuse_options(const struct cli_options *o, struct wx_error *err)
{
    if (o->stop_at_first)
        return refuse("--stop-at-first (the MDP is explored whole, then checked)", err);
    if (o->csr_out)
        return refuse("--csr", err);
    if (o->livelock || o->reversible)
        return refuse(o->livelock ? "--livelock" : "--reversible", err);
    if (o->cycle_mean)
        return refuse("--cycle-mean", err);
    if (o->backend == EXPLORE_GPU && !explore_mdp_gpu_available())
        return cli_no_gpu(err);
    return WX_OK;
}

/* One exploration of a probabilistic network and the check of its
 * properties: what cli_explore_mdp's steps share. */
struct mdp_run {
    const struct cli_options *o;
    const struct image *img;
    const struct network *net;
    const char *bk;                /* the explorer's name: "seq", "cpu", "gpu" */
    bool auto_backend;             /* --backend auto: the properties on the
                                      GPU where one is usable                 */
    struct property *props;
    size_t n_props;
    int *reward_of;                /* per property: its reward structure      */
    struct reward_items ri;
    struct mdp_explore_result r;
    struct mdp_labels labels;
    uint8_t *initial, *tmp;        /* per state: initial (state 0); scratch   */
    bool gpu_vi;                   /* the properties are solved on the GPU    */
    struct mdp_dev dev;            /* --backend gpu with properties: the
                                      explored MDP kept on the device (zeroed
                                      when not kept)                          */
    struct mdp_checks checks;      /* --deadlock, --action, --scc, --mec      */
};

/* --backend auto: the GPU MDP explorer where a GPU is usable (the same MDP
 * as the CPU's, bench/RESULTS.md: 145x the 16-core CPU) and no --memory
 * budget is given (the GPU's limit is its device memory), else the CPU,
 * with the one-line notice where no GPU is found. */
static void choose_backend(struct mdp_run *x, struct cli_options *o)
{
    x->auto_backend = o->backend == EXPLORE_AUTO;
    if (!x->auto_backend)
        return;
    const int gpu = explore_mdp_gpu_available();
    o->backend = gpu && !o->memory ? EXPLORE_GPU : EXPLORE_CPU;
    if (!gpu)
        cli_cpu_notice(o->quiet);
}

/* --backend gpu with properties keeps the explored MDP on the device for
 * the precomputation; WARPEX_MDP_DEVICE=0 (docs/tuning.md) downloads it
 * only, as before (the tests compare both ways). */
static bool keep_on_device(const struct mdp_run *x)
{
    const char *e = getenv("WARPEX_MDP_DEVICE");
    return x->o->backend == EXPLORE_GPU && x->n_props && !(e && strcmp(e, "0") == 0);
}

/* Whether something other than the properties reads the explored MDP on
 * the host: an output file, a check, a decomposition or state vectors. */
static bool host_reads_mdp(const struct cli_options *o)
{
    return o->mdp_out || o->aut_out || o->deadlock || o->action || o->trace || o->scc || o->scc_out || o->mec ||
           o->mec_out || o->trace_states;
}

/* --backend gpu asked for nothing that reads the MDP (no property, output
 * file, check or state vectors): it stays on the device and only its counts
 * come back (the download of a 10^8-state MDP costs more than exploring
 * it). */
static bool counts_only(const struct mdp_run *x)
{
    return x->o->backend == EXPLORE_GPU && !x->n_props && !host_reads_mdp(x->o);
}

/* The MDP kept on the device with properties and nothing else that reads
 * its choices: the host gets its skeleton (state offsets and choice
 * labels: the propositions and rewards), and the rest comes down only
 * where a host step of the check asks for it (fetch_model): Pmin and Rmax
 * never do. */
static bool skeleton_only(const struct mdp_run *x)
{
    return MDP_GPU_SKELETON && keep_on_device(x) && !host_reads_mdp(x->o);
}

/* mdpcheck_options.host_model: the explored MDP's choices, targets and
 * probabilities from the device into the skeleton. */
static int fetch_model(void *ctx, struct wx_error *err)
{
    struct mdp_run *x = ctx;
    check_tl_mark("the MDP's choices: to the host");
    int rc = mdp_dev_download_rest(&x->dev, &x->r.mdp, err);
    check_tl_mark("the MDP's choices: on the host");
    return rc;
}

/* The properties and the --reward items, before the exploration (a typo
 * should not wait for it); every reward property names a structure. */
static int read_properties(struct mdp_run *x, struct wx_error *err)
{
    const struct cli_options *o = x->o;
    int rc = cli_read_props(o->props_file, o->props, o->n_props, &x->props, &x->n_props, err);
    if (rc != WX_OK || (rc = reward_items_parse(o, x->img, &x->ri, err)) != WX_OK)
        return rc;
    if (x->n_props && !(x->reward_of = calloc(x->n_props, sizeof *x->reward_of)))
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < x->n_props; i++) {
        const struct property *p = &x->props[i];
        if (p->kind >= PROP_RMIN && !x->ri.rm.n)
            return wx_fail(err, WX_EINPUT, p->file, p->line, 1,
                           "%s: an explored network has rewards only through --reward "
                           "[NAME:]REGEX=VALUE", p->text);
        if ((rc = prop_reward_model(p, &x->ri.rm, &x->reward_of[i], err)) != WX_OK)
            return rc;
    }
    if ((rc = check_names(x->img, x->props, x->n_props, err)) != WX_OK)
        return rc;
    if (o->prop_method_given && !x->n_props)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "--method says how --prop is solved: give --prop or --props");
    return mdp_checks_prepare(o, x->img, &x->checks, err);
}

/* WARPEX_MDP_RULES=anchors|masks (docs/tuning.md): how the explorers find
 * a state's rules; anything else, or unset, lets them choose. */
static int rule_walk_env(void)
{
    const char *e = getenv("WARPEX_MDP_RULES");
    return !e ? MDP_WALK_AUTO
           : !strcmp(e, "anchors") ? MDP_WALK_ANCHORS
           : !strcmp(e, "masks")   ? MDP_WALK_MASKS
                                   : MDP_WALK_AUTO;
}

/* The exploration; after a failure the partial counts (JSON, or a note on
 * stderr for a limit or an interrupt). */
static int run_explorer(struct mdp_run *x, struct wx_error *err)
{
    const struct cli_options *o = x->o;
    const struct mdp *m = &x->r.mdp;
    struct explore_options eo;
    memset(&eo, 0, sizeof eo);
    eo.memory_bytes = o->memory;
    eo.threads = o->backend == EXPLORE_SEQ ? 1 : o->threads;
    if (!o->quiet && !o->json)
        eo.progress = progress;
    eo.keep_vectors = o->trace_states;
    eo.mdp_rule_walk = rule_walk_env();
    eo.cancel = cli_signals_flag();
    cli_signals_cooperate(true);
    struct mdp_gpu_tuning tu = {.timeline = o->gpu.timeline};
    const bool counts = counts_only(x);
    const int host = counts ? 0 : skeleton_only(x) ? 2 : 1;
    int rc = keep_on_device(x) || counts
                 ? explore_mdp_gpu_dev(x->img, &eo, o->aut_out != NULL, &tu, host, &x->r, &x->dev, err)
             : o->backend == EXPLORE_GPU
                 ? explore_mdp_gpu_tuned(x->img, &eo, o->aut_out != NULL, &tu, &x->r, err)
                 : explore_mdp(x->img, &eo, o->aut_out != NULL, &x->r, err);
    rc = cli_signals_end(rc, err);
    if (rc == WX_OK)
        return rc;
    if (o->json) {
        printf("{\"model\": ");
        cli_json_string(stdout, o->input);
        printf(", \"probabilistic\": true, \"backend\": \"%s\", \"complete\": false, "
               "\"states\": %llu, \"choices\": %llu, \"transitions\": %llu, \"status\": \"%s\"}\n",
               x->bk, (unsigned long long)m->n_states, (unsigned long long)m->n_choices,
               (unsigned long long)m->n_entries,
               rc == WX_ELIMIT ? "limit" : rc == WX_EINTERRUPT ? "interrupted" : "error");
    }
    if ((rc == WX_ELIMIT || rc == WX_EINTERRUPT) && m->n_states && !o->quiet)
        fprintf(stderr, "warpex: stopped after %llu states and %llu choices (incomplete: "
                        "these are not the counts of the MDP)\n",
                (unsigned long long)m->n_states, (unsigned long long)m->n_choices);
    return rc;
}

/* The explored MDP's rewards and atomic propositions; every label of
 * every property exists. */
static int label_mdp(struct mdp_run *x, struct wx_error *err)
{
    const struct mdp *m = &x->r.mdp;
    uint32_t skipped = 0;
    int rc = reward_fill(x->img, &x->r, &x->ri, err);
    if (rc != WX_OK || (rc = mdp_aps_build(x->img, &x->r.mdp, x->r.choice_label, (int)x->o->threads, &x->labels,
                                           &skipped, err)) != WX_OK)
        return rc;
    if (skipped && !x->o->quiet)
        fprintf(stderr, "warpex: note: %u action name%s cannot be atomic propositions (a '\"' or "
                        "control byte, or the reserved \"init\"/\"deadlock\")\n",
                skipped, skipped == 1 ? "" : "s");
    x->initial = calloc(m->n_states ? m->n_states : 1, 1);
    x->tmp = malloc(m->n_states ? m->n_states : 1);
    if (!x->initial || !x->tmp)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    x->initial[0] = 1;
    for (size_t i = 0; i < x->n_props && rc == WX_OK; i++) {
        const struct property *p = &x->props[i];
        rc = prop_check_model(p, m, err);
        if (rc == WX_OK && p->phi2)
            rc = prop_eval(p, p->phi2, m, &x->labels, x->initial, x->tmp, err);
        if (rc == WX_OK && p->phi1)
            rc = prop_eval(p, p->phi1, m, &x->labels, x->initial, x->tmp, err);
    }
    return rc;
}

/* The method --prop runs (auto: the one auto picks). */
static enum cli_prop_method method_run(const struct mdp_run *x)
{
    if (x->o->prop_method != CLI_PM_AUTO)
        return x->o->prop_method;
    return x->gpu_vi && !VI_GPU_AUTO_OVI ? CLI_PM_II : CLI_PM_OVI;
}

static const char *method_name(const struct mdp_run *x)
{
    return cli_prop_method_names[method_run(x)];
}

static const char *method_text(const struct mdp_run *x)
{
    static const char *const text[] = {"auto", "interval iteration", "optimistic value iteration",
                                       "certified policy iteration"};
    return text[method_run(x)];
}

static void json_header(const struct mdp_run *x)
{
    const struct cli_options *o = x->o;
    const struct image *img = x->img;
    const struct mdp *m = &x->r.mdp;
    printf("{\"model\": ");
    cli_json_string(stdout, o->input);
    printf(", \"probabilistic\": true, \"backend\": \"%s\", \"threads\": %u, \"components\": %u, "
           "\"words_per_state\": %u, \"complete\": true, \"states\": %llu, \"choices\": %llu, "
           "\"transitions\": %llu, \"deadlocks\": %llu, \"depth\": %u, \"fresh_initial\": %s, "
           "\"seconds\": %.6f, \"bytes\": %llu, \"status\": \"%s\"",
           x->bk, x->r.threads, img->n_comps, img->words, (unsigned long long)m->n_states,
           (unsigned long long)m->n_choices, (unsigned long long)m->n_entries,
           (unsigned long long)x->r.deadlocks, x->r.depth, x->r.fresh_initial ? "true" : "false",
           x->r.seconds, (unsigned long long)x->r.bytes, x->checks.violated ? "violation" : "ok");
    mdp_checks_json(o, img, x->net, &x->r, &x->checks);
    if (x->n_props)
        printf(", \"check_backend\": \"%s\", \"mdp_device\": %s, \"epsilon\": %g, \"method\": \"%s\", "
               "\"method_auto\": %s, \"properties\": [",
               x->gpu_vi ? "gpu" : "cpu", x->dev.owned ? "true" : "false",
               o->epsilon > 0 ? o->epsilon : 1e-6, method_name(x), o->prop_method == CLI_PM_AUTO ? "true" : "false");
}

static void text_header(const struct mdp_run *x)
{
    const struct cli_options *o = x->o;
    const struct image *img = x->img;
    const struct mdp *m = &x->r.mdp;
    printf("model:        %s (%u component%s, %u word%s per state; probabilistic: an MDP)\n",
           o->input, img->n_comps, img->n_comps == 1 ? "" : "s", img->words,
           img->words == 1 ? "" : "s");
    if (o->backend == EXPLORE_GPU)
        printf("backend:      gpu (MDP explorer, GPU)\n");
    else
        printf("backend:      %s (MDP explorer, CPU, %u thread%s)\n", x->bk, x->r.threads,
               x->r.threads == 1 ? "" : "s");
    printf("states:       %llu%s\n", (unsigned long long)m->n_states,
           x->r.fresh_initial ? " (state 0 precedes the initial distribution)" : "");
    printf("choices:      %llu\n", (unsigned long long)m->n_choices);
    printf("transitions:  %llu (choice entries: target and probability)\n",
           (unsigned long long)m->n_entries);
    printf("deadlocks:    %llu\n", (unsigned long long)x->r.deadlocks);
    printf("BFS depth:    %u\n", x->r.depth);
    printf("time:         %.3f s\n", x->r.seconds);
    if (m->n_states)
        printf("memory:       %.1f MiB\n", x->r.bytes / 1048576.0);
    if (o->mdp_out) {
        printf("MDP written:  %s.tra, %s.lab", o->mdp_out, o->mdp_out);
        if (x->ri.rm.n == 1)
            printf(", %s.trew", o->mdp_out);
        else if (x->ri.rm.n)
            printf(", %s1.trew ... %s%zu.trew", o->mdp_out, o->mdp_out, x->ri.rm.n);
        putchar('\n');
    }
    if (o->aut_out)
        printf("MDP written:  %s (probabilistic .aut)\n", o->aut_out);
    mdp_checks_text(o, x->img, x->net, &x->r, &x->checks);
}

/* Property i's value at the initial state: a JSON element or a text
 * block. */
static void print_property(const struct mdp_run *x, size_t i, const struct mdp_rewards *pr,
                           const struct mdpcheck_result *cr, const struct propcheck_info *info,
                           double epsilon)
{
    const struct property *p = &x->props[i];
    double lo = cr->lo[0], hi = cr->hi[0];
    if (x->o->json) {
        cli_json_property_head(stdout, i == 0, p, pr, pr ? x->reward_of[i] : 0);
        printf(", \"value\": ");
        json_double(0.5 * (lo + hi));
        printf(", \"lo\": ");
        json_double(lo);
        printf(", \"hi\": ");
        json_double(hi);
        check_report_json_state(stdout, p, lo, hi);
        check_report_json(stdout, p, cr, x->initial, info);
        printf(", \"iterations\": %llu, \"maybe_states\": %llu, \"cut_device\": %s, \"system_device\": %s",
               (unsigned long long)cr->iterations, (unsigned long long)cr->n_maybe,
               cr->cut_backend ? "true" : "false", cr->system_backend ? "true" : "false");
        putchar('}');
        return;
    }
    printf("\nproperty %zu%s%s%s: %s\n", i + 1, p->name ? " \"" : "", p->name ? p->name : "",
           p->name ? "\"" : "", p->text);
    if (p->cmp != PROP_QUERY)
        check_report_state(stdout, p, lo, hi, 0);
    else
        printf("  result: %.12g in [%.12g, %.12g] at the initial state", 0.5 * (lo + hi), lo, hi);
    printf("\n");
    check_report_summary(stdout, p, cr, x->initial, 1, info);
    if (!info->bounded)
        printf("  states: %llu target, %llu yes, %llu no, %llu maybe; iterations %llu (%s, "
               "%s, epsilon %g)\n",
               (unsigned long long)cr->n_target, (unsigned long long)cr->n_yes,
               (unsigned long long)cr->n_no, (unsigned long long)cr->n_maybe,
               (unsigned long long)cr->iterations, x->gpu_vi ? "gpu" : "cpu", method_text(x), epsilon);
    if (cr->system_backend)
        printf("  system: built on the GPU from the explored MDP in GPU memory\n");
    if (pr)
        printf("  rewards: structure %d%s%s%s (action rewards); %llu state%s of infinite "
               "expected reward\n",
               x->reward_of[i] + 1, pr->name ? " \"" : "", pr->name ? pr->name : "",
               pr->name ? "\"" : "", (unsigned long long)cr->n_infinite,
               cr->n_infinite == 1 ? "" : "s");
}

/* --method as mdpcheck options: auto as check's --method auto (OVI: on the
 * GPU Jacobi sweeps when VI_GPU_AUTO_OVI, on the CPU Gauss-Seidel SCC by
 * SCC), ii and ovi with Jacobi sweeps, pi check's certified policy
 * iteration. */
static void method_options(const struct mdp_run *x, struct mdpcheck_options *mo)
{
    switch (x->o->prop_method) {
    case CLI_PM_AUTO:
        if (x->gpu_vi)
            mo->optimistic = VI_GPU_AUTO_OVI;
        else
            mo->optimistic = mo->ovi_blocks = 1, mo->solver = VI_GAUSS_SEIDEL;
        break;
    case CLI_PM_II:
        break;
    case CLI_PM_OVI:
        mo->optimistic = 1;
        break;
    case CLI_PM_PI:
        mo->solver = VI_POLICY;
        break;
    }
}

/* Every property checked on the MDP in memory (method_options), and
 * printed; the JSON object closed. */
static int check_properties(struct mdp_run *x, struct wx_error *err)
{
    const struct cli_options *o = x->o;
    struct mdpcheck_options mo = {.sound = 1, .solver = VI_JACOBI,
                                  .epsilon = o->epsilon > 0 ? o->epsilon : 1e-6,
                                  .max_iterations = 1000000, .initial_only = 1};
    cli_vi_gpu_env(&mo.vi_gpu);
    method_options(x, &mo);
    if (x->gpu_vi) {
        mo.precompute = valiter_precompute_gpu;
        mo.solve = valiter_solve_gpu;
        mo.solve_ovi = valiter_solve_ovi_gpu;
        mo.bounded = bounded_solve_gpu;
        mo.huge_pages = 1; /* as check's GPU backend: the work arrays run to gigabytes */
        if (x->dev.owned) { /* check's GPU backend: the MEC collapse on the GPU too */
            cli_dev_bind_options(&mo);
            mo.mec = mec_gpu;
            cli_dev_bind(&x->r.mdp, &x->dev);
            mo.host_model = fetch_model, mo.host_model_ctx = x; /* a skeleton's rest on demand */
        }
    }
    check_tl_hook(&mo);
    check_tl_wrap(&mo);
    size_t n_false = 0, n_undecided = 0;
    for (size_t i = 0; i < x->n_props; i++) {
        struct property *p = &x->props[i];
        struct mdpcheck_result cr;
        struct propcheck_info info;
        const struct mdp_rewards *pr = p->kind >= PROP_RMIN ? &x->ri.rm.models[x->reward_of[i]] : NULL;
        int rc = propcheck_run(&x->r.mdp, &x->labels, pr, x->initial, p, &mo, &cr, &info, err);
        /* maybe the device memory the MDP holds: the check again on the
         * host's copy (a skeleton completed first) */
        if (rc == WX_ELIMIT && x->dev.owned && (rc = mdpcheck_need_model(&mo, &x->r.mdp, err)) == WX_OK &&
            cli_dev_release(&x->dev)) {
            mo.host_model = NULL;
            rc = propcheck_run(&x->r.mdp, &x->labels, pr, x->initial, p, &mo, &cr, &info, err);
        }
        if (rc != WX_OK) {
            cli_dev_bind(NULL, NULL);
            if (o->json)
                printf("]}\n");
            return rc;
        }
        n_false += info.result == PROP_FALSE;
        n_undecided += info.result == PROP_UNDECIDED;
        print_property(x, i, pr, &cr, &info, mo.epsilon);
        mdpcheck_result_free(&cr);
    }
    cli_dev_bind(NULL, NULL);
    if (o->json)
        printf("%s}\n", x->n_props ? "]" : "");
    if (n_undecided) /* as check: undecided exit 3, false exit 1 */
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "%zu comparison%s undecided", n_undecided,
                       n_undecided == 1 ? "" : "s");
    if (n_false)
        return wx_fail(err, WX_EVIOLATION, NULL, 0, 0, "%zu propert%s false", n_false,
                       n_false == 1 ? "y is" : "ies are");
    return WX_OK;
}

/* The steps after the refusals: properties, exploration, labels, the
 * output files, the report and the properties' values. */
static int explore_and_check(struct mdp_run *x, struct wx_error *err)
{
    const struct cli_options *o = x->o;
    int rc;
    check_tl_start();
    if ((rc = read_properties(x, err)) != WX_OK)
        return rc;
    check_tl_mark("explore: start");
    if ((rc = run_explorer(x, err)) != WX_OK)
        return rc;
    check_tl_mark("explore: done (%llu states)", (unsigned long long)x->r.mdp.n_states);
    if (counts_only(x))
        mdp_dev_free(&x->dev); /* nothing reads it: the report needs the counts only */
    else if ((rc = label_mdp(x, err)) != WX_OK)
        return rc;
    check_tl_mark("labels: done");
    if (o->mdp_out &&
        (rc = write_mdp_files(o->mdp_out, x->img, &x->r, &x->labels, &x->ri.rm, err)) != WX_OK)
        return rc;
    if (o->aut_out && (rc = write_aut(o->aut_out, x->img, &x->r, err)) != WX_OK)
        return rc;
    if ((rc = mdp_checks_run(o, &x->r, o->backend == EXPLORE_GPU, &x->checks, err)) != WX_OK)
        return rc;
    x->gpu_vi = (x->auto_backend || o->backend == EXPLORE_GPU) && x->n_props &&
                valiter_gpu_available();
    if (o->json)
        json_header(x);
    else
        text_header(x);
    fflush(stdout);
    check_tl_mark("checks: done");
    rc = check_properties(x, err);
    check_tl_mark("properties: done");
    return rc == WX_OK && x->checks.violated ? WX_EVIOLATION : rc;
}

int cli_explore_mdp(struct cli_options *o, const struct image *img, const struct network *net,
                    struct wx_error *err)
{
    int rc = refuse_options(o, err);
    if (rc != WX_OK)
        return rc;
    struct mdp_run x;
    memset(&x, 0, sizeof x);
    x.o = o;
    x.img = img;
    x.net = net;
    choose_backend(&x, o);
    x.bk = o->backend == EXPLORE_SEQ ? "seq" : o->backend == EXPLORE_GPU ? "gpu" : "cpu";
    rc = explore_and_check(&x, err);
    free(x.initial), free(x.tmp), free(x.reward_of);
    reward_items_free(&x.ri);
    mdp_labels_free(&x.labels);
    mdp_explore_result_free(&x.r);
    mdp_dev_free(&x.dev);
    mdp_checks_free(&x.checks);
    prop_free_all(x.props, x.n_props);
    return rc;
}
