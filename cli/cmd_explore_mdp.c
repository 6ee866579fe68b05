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
#include "../graph/mdp_lab.h"
#include "../parser/aut.h"
#include "../util/arith.h"
#include "../util/strtab.h"
#include "../util/outfile.h"
#include "check_report.h"
#include "cli.h"
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

/* A label PRISM's .lab files and the property syntax can carry. */
static int nameable(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s == '"' || (unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

/* The atomic propositions of the explored MDP (header comment). */
static int build_labels(const struct image *img, const struct mdp_explore_result *r,
                        struct mdp_labels *lab, uint32_t *skipped, struct wx_error *err)
{
    const struct mdp *m = &r->mdp;
    *skipped = 0;
    mdp_labels_init(lab, m->n_states);
    int *id = malloc(((size_t)img->n_labels + 1) * sizeof *id);
    if (!id || mdp_labels_add(lab, "init") != 0 || mdp_labels_add(lab, "deadlock") != 1) {
        free(id);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    }
    for (uint32_t l = 0; l < img->n_labels; l++)
        id[l] = -1;
    if (m->n_states)
        mdp_labels_set(lab, 0, 0);
    for (uint64_t s = 0; s < m->n_states; s++) {
        if (m->state_start[s] == m->state_start[s + 1])
            mdp_labels_set(lab, 1, s);
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            uint32_t l = r->choice_label[c];
            if (l >= img->n_labels)
                continue;
            if (id[l] == -1) {
                const char *name = strtab_str(img->labels, l);
                if (!nameable(name) || !strcmp(name, "init") || !strcmp(name, "deadlock")) {
                    id[l] = -2;
                    (*skipped)++;
                    continue;
                }
                id[l] = mdp_labels_add(lab, name);
                if (id[l] < 0) {
                    free(id);
                    return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
                }
            }
            if (id[l] >= 0)
                mdp_labels_set(lab, id[l], s);
        }
    }
    free(id);
    return WX_OK;
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

/* SPEC = [NAME:]REGEX=VALUE: NAME up to the first ':', VALUE after the
 * last '=' (so REGEX may hold both; an empty NAME is the unnamed one). */
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
        const char *spec = o->rewards[i], *eq = strrchr(spec, '='), *colon = strchr(spec, ':');
        int line = (int)i + 1;
        if (!eq)
            return wx_fail(err, WX_EINPUT, "--reward", line, 1,
                           "'%s': expected [NAME:]REGEX=VALUE", spec);
        char *end;
        errno = 0;
        double v = strtod(eq + 1, &end);
        if (eq[1] == 0 || *end || errno || !isfinite(v) || v < 0)
            return wx_fail(err, WX_EINPUT, "--reward", line, (int)(eq + 1 - spec) + 1,
                           "'%s': the reward must be a finite number >= 0", eq + 1);
        const char *rx = spec;
        char *name = NULL;
        if (colon && colon < eq) {
            rx = colon + 1;
            if (colon > spec && !(name = strndup(spec, (size_t)(colon - spec))))
                return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
            if (name && !nameable(name)) {
                free(name);
                return wx_fail(err, WX_EINPUT, "--reward", line, 1,
                               "a reward structure's name cannot hold '\"' or control bytes");
            }
        }
        int model = name ? mdp_reward_models_find(&ri->rm, name) : unnamed;
        if (model < 0) {
            model = mdp_reward_models_add(&ri->rm);
            if (model < 0) {
                free(name);
                return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
            }
            ri->rm.models[model].name = name, name = NULL;
            if (!ri->rm.models[model].name)
                unnamed = model;
        }
        free(name);
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
        if (!hits) {
            int rc2 = wx_fail(err, WX_EINPUT, "--reward", line, (int)(rx - spec) + 1,
                              "'%s' matches no action of the network", text);
            free(text);
            return rc2;
        }
        free(text);
        ri->value[i] = v;
        ri->model[i] = model;
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

int cli_explore_mdp(struct cli_options *o, const struct image *img, const struct network *net,
                    struct wx_error *err)
{
    (void)net;
    if (o->deadlock)
        return refuse("--deadlock (use --prop 'Pmax=? [ F \"deadlock\" ]')", err);
    if (o->action)
        return refuse("--action (use --prop 'Pmax=? [ F \"ACTION\" ]')", err);
    if (o->trace)
        return refuse("--trace", err);
    if (o->csr_out)
        return refuse("--csr", err);
    if (o->scc || o->mec)
        return refuse(o->scc ? "--scc" : "--mec (write --mdp-out BASE and run 'warpex mec BASE.tra')", err);
    if (o->livelock || o->reversible)
        return refuse(o->livelock ? "--livelock" : "--reversible", err);
    if (o->cycle_mean)
        return refuse("--cycle-mean", err);
    if (o->backend == EXPLORE_GPU)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "probabilistic networks are explored on the CPU only (not yet on the GPU): "
                       "use --backend cpu");
    if (o->backend == EXPLORE_AUTO && !o->quiet)
        fprintf(stderr, "warpex: probabilistic network: exploring the MDP on the CPU\n");

    /* the properties first: a typo should not wait for the exploration */
    struct property *props = NULL;
    size_t n_props = 0, n_file = 0;
    struct mdp_explore_result r;
    struct mdp_labels labels;
    struct reward_items ri;
    uint8_t *initial = NULL, *tmp = NULL;
    int *reward_of = NULL;
    memset(&r, 0, sizeof r);
    memset(&ri, 0, sizeof ri);
    memset(&labels, 0, sizeof labels);
    int rc = WX_OK;
    if (o->props_file && (rc = prop_read_file(o->props_file, &props, &n_file, err)) != WX_OK)
        return rc;
    n_props = n_file + (size_t)o->n_props;
    struct property *np = realloc(props, (n_props ? n_props : 1) * sizeof *np);
    if (!np) {
        prop_free_all(props, n_file);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    }
    props = np;
    for (int i = 0; i < o->n_props; i++)
        if ((rc = prop_parse(o->props[i], "--prop", i + 1, &props[n_file + (size_t)i], err)) != WX_OK) {
            n_props = n_file + (size_t)i;
            goto out;
        }
    if ((rc = reward_items_parse(o, img, &ri, err)) != WX_OK)
        goto out;
    if (n_props && !(reward_of = calloc(n_props, sizeof *reward_of))) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n_props; i++) {
        if (props[i].kind >= PROP_RMIN && !ri.rm.n) {
            rc = wx_fail(err, WX_EINPUT, props[i].file, props[i].line, 1,
                         "%s: an explored network has rewards only through --reward "
                         "[NAME:]REGEX=VALUE", props[i].text);
            goto out;
        }
        if ((rc = prop_reward_model(&props[i], &ri.rm, &reward_of[i], err)) != WX_OK)
            goto out;
    }

    struct explore_options eo;
    memset(&eo, 0, sizeof eo);
    eo.memory_bytes = o->memory;
    eo.threads = o->backend == EXPLORE_SEQ ? 1 : o->threads;
    const char *bk = o->backend == EXPLORE_SEQ ? "seq" : "cpu";
    if (!o->quiet && !o->json)
        eo.progress = progress;
    eo.cancel = cli_signals_flag();
    cli_signals_cooperate(true);
    rc = explore_mdp(img, &eo, o->aut_out != NULL, &r, err);
    rc = cli_signals_end(rc, err);
    if (rc != WX_OK) {
        if (o->json) {
            printf("{\"model\": ");
            cli_json_string(stdout, o->input);
            printf(", \"probabilistic\": true, \"backend\": \"%s\", \"complete\": false, "
                   "\"states\": %llu, \"choices\": %llu, \"transitions\": %llu, \"status\": \"%s\"}\n",
                   bk, (unsigned long long)r.mdp.n_states, (unsigned long long)r.mdp.n_choices,
                   (unsigned long long)r.mdp.n_entries,
                   rc == WX_ELIMIT ? "limit" : rc == WX_EINTERRUPT ? "interrupted" : "error");
        }
        if ((rc == WX_ELIMIT || rc == WX_EINTERRUPT) && r.mdp.n_states && !o->quiet)
            fprintf(stderr, "warpex: stopped after %llu states and %llu choices (incomplete: "
                            "these are not the counts of the MDP)\n",
                    (unsigned long long)r.mdp.n_states, (unsigned long long)r.mdp.n_choices);
        goto out;
    }
    const struct mdp *m = &r.mdp;
    uint32_t skipped = 0;
    if ((rc = reward_fill(img, &r, &ri, err)) != WX_OK)
        goto out;
    if ((rc = build_labels(img, &r, &labels, &skipped, err)) != WX_OK)
        goto out;
    if (skipped && !o->quiet)
        fprintf(stderr, "warpex: note: %u action name%s cannot be atomic propositions (a '\"' or "
                        "control byte, or the reserved \"init\"/\"deadlock\")\n",
                skipped, skipped == 1 ? "" : "s");
    initial = calloc(m->n_states ? m->n_states : 1, 1);
    tmp = malloc(m->n_states ? m->n_states : 1);
    if (!initial || !tmp) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        goto out;
    }
    initial[0] = 1;
    for (size_t i = 0; i < n_props && rc == WX_OK; i++) { /* every label exists */
        rc = prop_check_model(&props[i], m, err);
        if (rc == WX_OK && props[i].phi2)
            rc = prop_eval(&props[i], props[i].phi2, m, &labels, initial, tmp, err);
        if (rc == WX_OK && props[i].phi1)
            rc = prop_eval(&props[i], props[i].phi1, m, &labels, initial, tmp, err);
    }
    if (rc != WX_OK)
        goto out;

    if (o->mdp_out && (rc = write_mdp_files(o->mdp_out, img, &r, &labels, &ri.rm, err)) != WX_OK)
        goto out;

    if (o->aut_out && (rc = write_aut(o->aut_out, img, &r, err)) != WX_OK)
        goto out;

    bool gpu_vi = o->backend == EXPLORE_AUTO && n_props && valiter_gpu_available();
    if (o->json) {
        printf("{\"model\": ");
        cli_json_string(stdout, o->input);
        printf(", \"probabilistic\": true, \"backend\": \"%s\", \"threads\": %u, \"components\": %u, "
               "\"words_per_state\": %u, \"complete\": true, \"states\": %llu, \"choices\": %llu, "
               "\"transitions\": %llu, \"deadlocks\": %llu, \"depth\": %u, \"fresh_initial\": %s, "
               "\"seconds\": %.6f, \"bytes\": %llu, \"status\": \"ok\"",
               bk, r.threads, img->n_comps, img->words, (unsigned long long)m->n_states,
               (unsigned long long)m->n_choices, (unsigned long long)m->n_entries,
               (unsigned long long)r.deadlocks, r.depth, r.fresh_initial ? "true" : "false",
               r.seconds, (unsigned long long)r.bytes);
        if (n_props)
            printf(", \"check_backend\": \"%s\", \"epsilon\": %g, \"properties\": [",
                   gpu_vi ? "gpu" : "cpu", o->epsilon > 0 ? o->epsilon : 1e-6);
    } else {
        printf("model:        %s (%u component%s, %u word%s per state; probabilistic: an MDP)\n",
               o->input, img->n_comps, img->n_comps == 1 ? "" : "s", img->words,
               img->words == 1 ? "" : "s");
        printf("backend:      %s (MDP explorer, CPU, %u thread%s)\n", bk, r.threads,
               r.threads == 1 ? "" : "s");
        printf("states:       %llu%s\n", (unsigned long long)m->n_states,
               r.fresh_initial ? " (state 0 precedes the initial distribution)" : "");
        printf("choices:      %llu\n", (unsigned long long)m->n_choices);
        printf("transitions:  %llu (choice entries: target and probability)\n",
               (unsigned long long)m->n_entries);
        printf("deadlocks:    %llu\n", (unsigned long long)r.deadlocks);
        printf("BFS depth:    %u\n", r.depth);
        printf("time:         %.3f s\n", r.seconds);
        if (m->n_states)
            printf("memory:       %.1f MiB\n", r.bytes / 1048576.0);
        if (o->mdp_out) {
            printf("MDP written:  %s.tra, %s.lab", o->mdp_out, o->mdp_out);
            if (ri.rm.n == 1)
                printf(", %s.trew", o->mdp_out);
            else if (ri.rm.n)
                printf(", %s1.trew ... %s%zu.trew", o->mdp_out, o->mdp_out, ri.rm.n);
            putchar('\n');
        }
        if (o->aut_out)
            printf("MDP written:  %s (probabilistic .aut)\n", o->aut_out);
    }
    fflush(stdout);

    struct mdpcheck_options mo = {.sound = 1, .solver = VI_JACOBI,
                                  .epsilon = o->epsilon > 0 ? o->epsilon : 1e-6,
                                  .max_iterations = 1000000};
    cli_vi_gpu_env(&mo.vi_gpu);
    if (gpu_vi) {
        mo.precompute = valiter_precompute_gpu;
        mo.solve = valiter_solve_gpu;
    }
    size_t n_false = 0, n_undecided = 0;
    for (size_t i = 0; i < n_props; i++) {
        struct property *p = &props[i];
        struct mdpcheck_result cr;
        struct propcheck_info info;
        const struct mdp_rewards *pr = p->kind >= PROP_RMIN ? &ri.rm.models[reward_of[i]] : NULL;
        rc = propcheck_run(m, &labels, pr, initial, p, &mo, &cr, &info, err);
        if (rc != WX_OK) {
            if (o->json)
                printf("]}\n");
            goto out;
        }
        double lo = cr.lo[0], hi = cr.hi[0];
        n_false += info.result == PROP_FALSE;
        n_undecided += info.result == PROP_UNDECIDED;
        if (o->json) {
            cli_json_property_head(stdout, i == 0, p, pr, pr ? reward_of[i] : 0);
            printf(", \"value\": ");
            json_double(0.5 * (lo + hi));
            printf(", \"lo\": ");
            json_double(lo);
            printf(", \"hi\": ");
            json_double(hi);
            check_report_json_state(stdout, p, lo, hi);
            check_report_json(stdout, p, &cr, initial, &info);
            printf(", \"iterations\": %llu, \"maybe_states\": %llu", (unsigned long long)cr.iterations,
                   (unsigned long long)cr.n_maybe);
            putchar('}');
        } else {
            printf("\nproperty %zu%s%s%s: %s\n", i + 1, p->name ? " \"" : "", p->name ? p->name : "",
                   p->name ? "\"" : "", p->text);
            if (p->cmp != PROP_QUERY)
                check_report_state(stdout, p, lo, hi, 0);
            else
                printf("  result: %.12g in [%.12g, %.12g] at the initial state", 0.5 * (lo + hi),
                       lo, hi);
            printf("\n");
            check_report_summary(stdout, p, &cr, initial, 1, &info);
            if (!info.bounded)
                printf("  states: %llu target, %llu yes, %llu no, %llu maybe; iterations %llu (%s, "
                   "interval iteration, epsilon %g)\n",
                   (unsigned long long)cr.n_target, (unsigned long long)cr.n_yes,
                   (unsigned long long)cr.n_no, (unsigned long long)cr.n_maybe,
                   (unsigned long long)cr.iterations, gpu_vi ? "gpu" : "cpu", mo.epsilon);
            if (pr)
                printf("  rewards: structure %d%s%s%s (action rewards); %llu state%s of infinite "
                       "expected reward\n",
                       reward_of[i] + 1, pr->name ? " \"" : "", pr->name ? pr->name : "",
                       pr->name ? "\"" : "", (unsigned long long)cr.n_infinite,
                       cr.n_infinite == 1 ? "" : "s");
        }
        mdpcheck_result_free(&cr);
    }
    if (o->json)
        printf("%s}\n", n_props ? "]" : "");
    if (n_undecided) /* as check: undecided exit 3, false exit 1 */
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "%zu comparison%s undecided", n_undecided,
                     n_undecided == 1 ? "" : "s");
    else if (n_false)
        rc = wx_fail(err, WX_EVIOLATION, NULL, 0, 0, "%zu propert%s false", n_false,
                     n_false == 1 ? "y is" : "ies are");
out:
    free(initial), free(tmp), free(reward_of);
    reward_items_free(&ri);
    mdp_labels_free(&labels);
    mdp_explore_result_free(&r);
    prop_free_all(props, n_props);
    return rc;
}
