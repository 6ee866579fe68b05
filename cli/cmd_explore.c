/*
 * cmd_explore.c -- `warpex explore`: load, compile, explore, check, report.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/lts_checks.h"
#include "../analysis/scc.h"
#include "../kernels/scc_gpu.h"
#include "../util/strtab.h"
#include "../util/config.h"
#include "cli.h"
#include "dist.h"
#include "gpu_probe.h"
#include "outputs.h"
#include "signals.h"

static void progress(void *ctx, const struct explore_stats *s)
{
    (void)ctx;
    double rate = s->seconds > 0 ? s->states / s->seconds : 0;
    fprintf(stderr, "warpex: %llu states, %llu transitions, depth %u, %.3g states/s, %.1f MiB, %.0f s\n",
            (unsigned long long)s->states, (unsigned long long)s->transitions, s->depth, rate,
            s->bytes / 1048576.0, s->seconds);
}

/* Flags every label matching the --action regex; counts the matches. */
int cli_match_actions(const struct image *img, const char *re_text, uint8_t **flags,
                         uint32_t *matched, struct wx_error *err)
{
    regex_t re;
    int rc = regcomp(&re, re_text, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &re, msg, sizeof msg);
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "bad --action regex '%s': %s", re_text, msg);
    }
    *flags = calloc(img->n_labels ? img->n_labels : 1, 1);
    if (!*flags) {
        regfree(&re);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    }
    *matched = 0;
    for (uint32_t l = 0; l < img->n_labels; l++)
        if (l != img->hidden && regexec(&re, strtab_str(img->labels, l), 0, NULL, 0) == 0) {
            (*flags)[l] = 1;
            (*matched)++;
        }
    regfree(&re);
    return WX_OK;
}

/* Prints a state vector as the components' states, numbered as in their
 * input files (the image numbers them from 0 in BFS order). */
void cli_print_vector(FILE *out, const struct image *img, const struct network *net,
                      const uint32_t *vec, int json)
{
    fputs(json ? "[" : "(", out);
    for (uint32_t c = 0; c < img->n_comps; c++) {
        uint32_t s = image_get_field(vec, img->first_bit[c], img->first_bit[c + 1] - img->first_bit[c]);
        if (net->n_comps == img->n_comps && net->comps[c].orig_state && s < net->comps[c].n_states)
            s = net->comps[c].orig_state[s];
        fprintf(out, "%s%u", c ? ", " : "", s);
    }
    fputs(json ? "]" : ")", out);
}

/* The asynchronous GPU mode does not track BFS levels and reports depth 0;
 * any exploration with more than one state has depth >= 1 when tracked. */
static int depth_known(const struct explore_result *r)
{
    return r->depth > 0 || r->states <= 1;
}

static const char *violation_name(enum explore_violation v)
{
    return v == VIOLATION_DEADLOCK ? "deadlock" : v == VIOLATION_ACTION ? "action" : NULL;
}

/* SCCs of the graph the GPU explorer left on the device; the component ids
 * are downloaded only when wanted (out->comp stays NULL otherwise). */
static int scc_of_device_graph(const struct dgraph *dg, bool want_ids, struct scc_result *out,
                               uint32_t **keep_ids, struct wx_error *err)
{
    uint32_t *d_comp = NULL;
    int rc = scc_gpu_ids_new(dg->n_vertices, &d_comp, err);
    if (rc == WX_OK)
        rc = scc_gpu_device(dg, d_comp, out, NULL, err);
    if (rc == WX_OK && want_ids && dg->n_vertices) {
        out->comp = malloc(dg->n_vertices * sizeof *out->comp);
        rc = out->comp ? scc_gpu_ids_download(d_comp, dg->n_vertices, out->comp, err)
                       : wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory for %llu SCC ids",
                                 (unsigned long long)dg->n_vertices);
        if (rc != WX_OK)
            scc_result_free(out);
    }
    if (rc == WX_OK && keep_ids)
        *keep_ids = d_comp; /* the caller's now (scc_gpu_ids_free) */
    else
        scc_gpu_ids_free(d_comp);
    return rc;
}

/* The SCC summary of an explored state space (explore --scc). */
static void report_scc_text(const struct scc_result *s, const char *where, double seconds)
{
    printf("SCCs:         %llu (%llu trivial, %llu non-trivial covering %llu states)\n",
           (unsigned long long)s->n_sccs, (unsigned long long)s->n_trivial,
           (unsigned long long)(s->n_sccs - s->n_trivial), (unsigned long long)s->n_in_nontrivial);
    printf("largest SCC:  %llu states\n", (unsigned long long)s->largest);
    printf("bottom SCCs:  %llu (%llu of them deadlock states)\n", (unsigned long long)s->n_bottom,
           (unsigned long long)s->n_bottom_trivial);
    printf("SCC time:     %.3f s (%s)\n", seconds, where);
}

/* The MEC summary (explore --mec): the LTS read as an MDP of Dirac choices. */
static void report_mec_text(const struct lts_mecs *m)
{
    printf("MECs:         %llu (%llu of one state), %llu states and %llu transitions inside, "
           "largest %llu\n",
           (unsigned long long)m->n_mecs, (unsigned long long)m->n_singletons,
           (unsigned long long)m->states_in_mecs, (unsigned long long)m->choices_in_mecs,
           (unsigned long long)m->largest);
}

/* The outcome of --livelock / --reversible (checked only after a complete
 * exploration without an explorer violation). */
struct lts_outcome {
    bool checked;
    struct lts_lasso lasso;        /* --livelock */
    struct lts_reversibility rev;  /* --reversible */
};

static const char *label_name(const struct image *img, uint32_t l)
{
    return l < img->n_labels ? strtab_str(img->labels, l) : "?";
}

/* A path of the explored graph as JSON steps: {"state", "label" (all but the
 * first), "vector" (--trace-states)}. */
static void json_path(const struct cli_options *o, const struct image *img,
                      const struct network *net, const struct explore_result *r,
                      const struct lts_path *p)
{
    printf("[");
    for (uint32_t i = 0; p->states && i <= p->len; i++) {
        printf("%s{\"state\": %u", i ? ", " : "", p->states[i]);
        if (i > 0) {
            printf(", \"label\": ");
            cli_json_string(stdout, label_name(img, p->labels[i - 1]));
        }
        if (o->trace_states && r->vectors) {
            printf(", \"vector\": ");
            cli_print_vector(stdout, img, net, r->vectors + (size_t)p->states[i] * img->words, 1);
        }
        printf("}");
    }
    printf("]");
}

static void json_lts(const struct cli_options *o, const struct image *img,
                     const struct network *net, const struct explore_result *r,
                     const struct lts_outcome *c)
{
    if (o->livelock) {
        printf(", \"livelock\": %s", !c->checked ? "null" : c->lasso.found ? "true" : "false");
        if (c->checked)
            printf(", \"tau_cyclic_states\": %llu", (unsigned long long)c->lasso.n_tau_cyclic);
        if (c->checked && c->lasso.found) {
            printf(", \"lasso\": {\"prefix\": ");
            json_path(o, img, net, r, &c->lasso.prefix);
            printf(", \"cycle\": ");
            json_path(o, img, net, r, &c->lasso.cycle);
            printf("}");
        }
    }
    if (o->reversible) {
        printf(", \"reversible\": %s", !c->checked ? "null" : c->rev.reversible ? "true" : "false");
        if (c->checked && !c->rev.reversible) {
            printf(", \"irreversible_state\": %u, \"states_cannot_return\": %llu, "
                   "\"irreversible_trace\": ",
                   c->rev.state, (unsigned long long)c->rev.n_cannot_return);
            json_path(o, img, net, r, &c->rev.trace);
        }
    }
}

/* Text lines of a path: step, label, [state id], (vector). */
static void text_path(const struct cli_options *o, const struct image *img,
                      const struct network *net, const struct explore_result *r,
                      const struct lts_path *p, const char *first)
{
    for (uint32_t i = 0; p->states && i <= p->len; i++) {
        printf("  %4u  %s  [state %u]", i, i ? label_name(img, p->labels[i - 1]) : first,
               p->states[i]);
        if (o->trace_states && r->vectors) {
            printf("  ");
            cli_print_vector(stdout, img, net, r->vectors + (size_t)p->states[i] * img->words, 0);
        }
        printf("\n");
    }
}

static void report_lts_text(const struct cli_options *o, const struct image *img,
                            const struct network *net, const struct explore_result *r,
                            const struct lts_outcome *c)
{
    const char *why = "exploration stopped at the first violation";
    if (o->livelock && !c->checked) {
        printf("livelock:     not checked: %s\n", why);
    } else if (o->livelock && c->lasso.found) {
        const struct lts_lasso *l = &c->lasso;
        printf("result:       violation: a livelock (a reachable cycle of hidden steps)\n");
        printf("livelock:     state %u lies on a cycle of hidden steps ('%s') reachable from the "
               "initial state (%llu such states)\n",
               l->cycle.states[0], label_name(img, img->hidden), (unsigned long long)l->n_tau_cyclic);
        printf("lasso prefix (%u step%s, shortest to any such state):\n", l->prefix.len,
               l->prefix.len == 1 ? "" : "s");
        text_path(o, img, net, r, &l->prefix, "(initial state)");
        printf("lasso cycle (%u hidden step%s, shortest through state %u):\n", l->cycle.len,
               l->cycle.len == 1 ? "" : "s", l->cycle.states[0]);
        text_path(o, img, net, r, &l->cycle, "(cycle start)");
    } else if (o->livelock) {
        printf("result:       no livelock: %s\n", img->hidden == UINT32_MAX
                                                     ? "the network has no hidden label"
                                                     : "no reachable cycle of hidden steps");
    }
    if (o->reversible && !c->checked) {
        printf("reversible:   not checked: %s\n", why);
    } else if (o->reversible && !c->rev.reversible) {
        printf("result:       violation: not reversible\n");
        printf("reversible:   no: state %u cannot return to the initial state (%llu of %llu "
               "states cannot)\n",
               c->rev.state, (unsigned long long)c->rev.n_cannot_return,
               (unsigned long long)c->rev.n_reachable);
        printf("trace to state %u (%u step%s, shortest):\n", c->rev.state, c->rev.trace.len,
               c->rev.trace.len == 1 ? "" : "s");
        text_path(o, img, net, r, &c->rev.trace, "(initial state)");
    } else if (o->reversible) {
        printf("result:       reversible: every reachable state can return to the initial state\n");
    }
}

/* One exploration of an LTS network: what explore_main sets up, runs,
 * analyses and reports. */
struct explore_run {
    struct cli_options *o;
    struct cli_dist *dist;         /* under mpirun with >= 2 ranks, else NULL */
    struct image img;
    struct network net;
    struct explore_options eo;
    uint8_t *flags;                /* --action: 1 per matching label        */
    enum explore_backend backend;
    bool lts_checks;               /* --livelock or --reversible            */
    bool keep_graph;               /* the outputs collect the graph in memory */
    bool scc_on_gpu, device_only;  /* device_only: the graph stays there    */
    struct outputs out;
    struct explore_result res;
    bool violated;                 /* a violation in a finished exploration */
    /* the analyses of a complete exploration */
    struct scc_result scc;
    bool have_scc;
    double scc_seconds;
    const char *scc_where;
    struct lts_mecs mecs;
    bool have_mecs;
    struct cli_cycle cyc;
    bool have_cyc;
    struct lts_outcome lts;
};

/* The opening of the JSON object: model, backend and the exploration's
 * counts. */
static void json_counts(const struct cli_options *o, const struct image *img,
                        const struct explore_result *r, const struct cli_dist *dist)
{
    printf("{\"model\": ");
    cli_json_string(stdout, o->input);
    printf(", \"backend\": \"%s\", \"threads\": %u, \"device\": ", r->backend ? r->backend : "",
           r->threads);
    cli_json_string(stdout, r->device);
    printf(", \"components\": %u, \"words_per_state\": %u", img->n_comps, img->words);
    printf(", \"complete\": %s, \"states\": %llu, \"transitions\": %llu, \"deadlocks\": %llu",
           r->complete ? "true" : "false", (unsigned long long)r->states,
           (unsigned long long)r->transitions, (unsigned long long)r->deadlocks);
    if (depth_known(r))
        printf(", \"depth\": %u", r->depth);
    else
        printf(", \"depth\": null");
    printf(", \"seconds\": %.6f, \"bytes\": %llu", r->seconds, (unsigned long long)r->bytes);
    if (o->por)
        printf(", \"por\": true");
    printf(", \"store\": \"%s\", \"bytes_per_state\": %.2f", r->store ? r->store : "flat",
           r->states ? (double)r->bytes / r->states : 0.0);
    if (r->flat_full)
        printf(", \"flat_full_after\": %llu", (unsigned long long)r->flat_full);
    if (dist)
        cli_dist_json(dist);
}

/* The fields of --scc, --cycle-mean and --mec (those that ran). */
static void json_analyses(const struct explore_run *x)
{
    const struct cli_options *o = x->o;
    const struct explore_result *r = &x->res;
    if (x->have_scc && o->scc) {
        const struct scc_result *scc = &x->scc;
        printf(", \"sccs\": %llu, \"trivial_sccs\": %llu, \"largest_scc\": %llu, \"bottom_sccs\": %llu",
               (unsigned long long)scc->n_sccs, (unsigned long long)scc->n_trivial,
               (unsigned long long)scc->largest, (unsigned long long)scc->n_bottom);
        printf(", \"scc_backend\": \"%s\", \"scc_seconds\": %.6f", x->scc_where, x->scc_seconds);
    }
    if (x->have_cyc) {
        const struct cli_cycle *cyc = &x->cyc;
        printf(", \"cycle_mean\": ");
        cli_cycle_print(cyc, true);
        if (o->trace_states && r->vectors && cyc->r.best.has_cycle) {
            printf(", \"cycle_vectors\": [");
            for (uint64_t i = 0; i < cyc->r.cycle_len; i++) {
                printf("%s", i ? ", " : "");
                cli_print_vector(stdout, &x->img, &x->net, r->vectors + (size_t)cyc->r.cycle[i] * x->img.words,
                             1);
            }
            printf("]");
        }
    }
    if (x->have_mecs) {
        const struct lts_mecs *mecs = &x->mecs;
        printf(", \"mecs\": %llu, \"states_in_mecs\": %llu, \"transitions_in_mecs\": %llu, "
               "\"largest_mec\": %llu, \"singleton_mecs\": %llu",
               (unsigned long long)mecs->n_mecs, (unsigned long long)mecs->states_in_mecs,
               (unsigned long long)mecs->choices_in_mecs, (unsigned long long)mecs->largest,
               (unsigned long long)mecs->n_singletons);
    }
}

/* The explorer's --trace as JSON steps (the trace of a violation). */
static void json_trace(const struct cli_options *o, const struct image *img,
                       const struct network *net, const struct explore_result *r)
{
    printf(", \"trace\": [");
    for (uint32_t i = 0; i <= r->trace.len && r->trace.states; i++) {
        printf("%s{\"state\": %llu", i ? ", " : "", (unsigned long long)r->trace.states[i]);
        if (i > 0) {
            printf(", \"label\": ");
            cli_json_string(stdout, strtab_str(img->labels, r->trace.labels[i - 1]));
        }
        if (o->trace_states && r->trace.vectors) {
            printf(", \"vector\": ");
            cli_print_vector(stdout, img, net, r->trace.vectors + (size_t)i * img->words, 1);
        }
        printf("}");
    }
    printf("]");
}

static void report_json(const struct explore_run *x, int rc)
{
    const struct cli_options *o = x->o;
    const struct explore_result *r = &x->res;
    const struct lts_outcome *lts = &x->lts;
    json_counts(o, &x->img, r, x->dist);
    json_analyses(x);
    json_lts(o, &x->img, &x->net, r, lts);
    printf(", \"status\": \"%s\"", rc == WX_OK ? "ok" : rc == WX_EVIOLATION ? "violation"
                                   : rc == WX_ELIMIT ? "limit" : rc == WX_EINTERRUPT ? "interrupted"
                                   : "error");
    const char *v = violation_name(r->violation);
    if (v) {
        printf(", \"violation\": \"%s\"", v);
        if (o->trace && (r->trace.labels || r->trace.len == 0))
            json_trace(o, &x->img, &x->net, r);
    } else if (lts->checked && o->livelock && lts->lasso.found) {
        printf(", \"violation\": \"livelock\"");
    } else if (lts->checked && o->reversible && !lts->rev.reversible) {
        printf(", \"violation\": \"irreversible\"");
    } else {
        printf(", \"violation\": null");
    }
    printf("}\n");
}

static void report_text(const struct cli_options *o, const struct image *img,
                        const struct explore_result *r)
{
    printf("model:        %s (%u component%s, %u word%s per state)\n", o->input, img->n_comps,
           img->n_comps == 1 ? "" : "s", img->words, img->words == 1 ? "" : "s");
    printf("backend:      %s", r->backend ? r->backend : "?");
    if (r->device[0])
        printf(" (%s)", r->device);
    else if (r->threads)
        printf(" (%u thread%s)", r->threads, r->threads == 1 ? "" : "s");
    printf("\n");
    if (o->por)
        printf("reduction:    partial-order (the counts are the reduced graph's)\n");
    const char *partial = r->complete ? "" : " (partial)";
    printf("states:       %llu%s\n", (unsigned long long)r->states, partial);
    printf("transitions:  %llu%s\n", (unsigned long long)r->transitions, partial);
    printf("deadlocks:    %llu%s\n", (unsigned long long)r->deadlocks, partial);
    if (depth_known(r))
        printf("BFS depth:    %u%s\n", r->depth, partial);
    else
        printf("BFS depth:    not tracked (asynchronous GPU exploration)\n");
    printf("time:         %.3f s", r->seconds);
    if (r->seconds > 0)
        printf(" (%.3g states/s, %.3g transitions/s)", r->states / r->seconds,
               r->transitions / r->seconds);
    printf("\n");
    if (r->states)
        printf("memory:       %.1f MiB (%.1f bytes/state, %s store)\n", r->bytes / 1048576.0,
               (double)r->bytes / r->states, r->store ? r->store : "flat");
}

static void report_violation(const struct cli_options *o, const struct image *img,
                             const struct network *net, const struct explore_result *r)
{
    printf("result:       violation: %s\n", r->violation == VIOLATION_DEADLOCK
                                                ? "a deadlock is reachable"
                                                : "a transition matching the action is reachable");
    if (r->violation == VIOLATION_DEADLOCK)
        printf("deadlock:     state %llu has no successor\n", (unsigned long long)r->violation_state);
    else
        printf("action:       a transition matching '%s' is reachable from state %llu\n", o->action,
               (unsigned long long)r->violation_state);
    if (r->complete)
        printf("              exploration went on for the outputs and analyses asked for; counts are "
               "complete\n");
    else
        printf("              exploration stopped at the first violation; counts are partial\n");
    if (!o->trace)
        return;
    const struct trace *t = &r->trace;
    printf("trace (%u step%s, shortest):\n", t->len, t->len == 1 ? "" : "s");
    for (uint32_t i = 0; i <= t->len; i++) {
        if (i == 0)
            printf("  %4u  (initial state)", 0u);
        else
            printf("  %4u  %s", i, strtab_str(img->labels, t->labels[i - 1]));
        if (o->trace_states && t->vectors) {
            printf("  ");
            cli_print_vector(stdout, img, net, t->vectors + (size_t)i * img->words, 0);
        }
        printf("\n");
    }
}

/* What needs the whole product: with any of it, a --deadlock / --action
 * violation is recorded and the exploration goes on (unless
 * --stop-at-first); without, stopping at the first violation is cheaper. */
static bool needs_whole_product(const struct cli_options *o)
{
    return o->aut_out || o->csr_out || o->scc || o->scc_out || o->mec || o->mec_out || o->cycle_mean ||
           o->livelock || o->reversible;
}

/* --mdp-out, --prop, --props and --reward on a network without a
 * distribution. */
static int refuse_mdp_options(const struct cli_options *o, struct wx_error *err)
{
    if (!(o->mdp_out || o->n_props || o->props_file || o->n_rewards || o->prop_method_given))
        return WX_OK;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                   "%s applies to probabilistic networks, and no component of %s has a "
                   "distribution (for an LTS: --mec, or 'warpex check' on a PRISM model)",
                   o->mdp_out     ? "--mdp-out"
                   : o->props_file ? "--props"
                   : o->n_props    ? "--prop"
                   : o->n_rewards  ? "--reward"
                                   : "--method",
                   o->input);
}

/* The explorer's options from the command line; --action's labels. */
static int set_options(struct explore_run *x, struct wx_error *err)
{
    const struct cli_options *o = x->o;
    struct explore_options *eo = &x->eo;
    memset(eo, 0, sizeof *eo);
    eo->threads = o->threads;
    eo->memory_bytes = o->memory;
    eo->store = o->store;
    eo->stop_on_deadlock = o->deadlock;
    eo->finish_after_violation = (o->deadlock || o->action) && needs_whole_product(o) && !o->stop_at_first;
    eo->trace = o->trace;
    eo->por = o->por;
    /* --livelock / --reversible print vectors of arbitrary states by id. */
    x->lts_checks = o->livelock || o->reversible;
    eo->keep_vectors = (x->lts_checks || o->cycle_mean) && o->trace_states;
    eo->gpu = o->gpu;
    if (!o->quiet && !o->json) {
        eo->progress = progress;
        eo->progress_ctx = NULL;
    }
    if (!o->action)
        return WX_OK;
    uint32_t matched = 0;
    int rc = cli_match_actions(&x->img, o->action, &x->flags, &matched, err);
    if (rc != WX_OK)
        return rc;
    if (matched == 0 && !o->quiet)
        fprintf(stderr, "warpex: note: no label of the network matches '%s'\n", o->action);
    eo->action_match = x->flags;
    return WX_OK;
}

/* --backend auto: the GPU when one is usable. */
static int choose_backend(struct explore_run *x, struct wx_error *err)
{
    const struct cli_options *o = x->o;
    char gpu_name[128];
    x->backend = o->backend;
    if (x->img.prio_n && o->por)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "--por with a prio is not supported: a priority "
                       "makes a transition depend on every other one leaving the state");
    if (x->img.prio_n && x->backend == EXPLORE_AUTO && image_prio_above_labels(&x->img) > GX_PRIO_MAX_ABOVE)
        x->backend = EXPLORE_CPU; /* past the GPU filter's bit mask (util/config.h) */
    if (o->por && o->store == STORE_TREE)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "--por with --store tree is not supported yet: "
                       "the reduction's proviso reads the flat table (use --store flat)");
    if (x->dist) {
        x->backend = EXPLORE_CPU; /* cli_dist_begin refused the others */
        return WX_OK;
    }
    if (o->por && !GX_AUTO_POR && x->backend == EXPLORE_AUTO)
        x->backend = EXPLORE_CPU; /* the CPU's reduction until the GPU's speed is measured (util/config.h) */
    if (x->backend == EXPLORE_AUTO && o->store == STORE_TREE) {
        x->backend = EXPLORE_CPU; /* the GPU's tree run: asked for only (--backend gpu) until measured */
    } else if (x->backend == EXPLORE_AUTO) {
        if (gpu_available(gpu_name, sizeof gpu_name)) {
            x->backend = EXPLORE_GPU;
        } else {
            x->backend = EXPLORE_CPU;
            cli_cpu_notice(o->quiet);
        }
    } else if (x->backend == EXPLORE_GPU && !gpu_available(gpu_name, sizeof gpu_name)) {
        return cli_no_gpu(err);
    }
    return WX_OK;
}

/* The sink of the ranks > 0 under mpirun: the distributed explorer hands
 * every edge to rank 0's sink, and needs one here only to know that it
 * must collect them (explorer/explore_dist.h). */
static int rank0_only(void *ctx, const struct product_edge *e, size_t n, struct wx_error *err)
{
    (void)ctx, (void)e, (void)n;
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal error: an edge for a rank other than 0");
}

/* Under mpirun, on the ranks > 0: no file and no analysis here (rank 0
 * writes and analyses), only the placeholder sink when rank 0 has one. */
static int open_no_outputs(struct explore_run *x)
{
    static struct edge_sink placeholder = { rank0_only, NULL };
    const struct cli_options *o = x->o;
    memset(&x->out, 0, sizeof x->out);
    if (o->aut_out || o->csr_out || o->scc || o->mec || x->lts_checks || o->cycle_mean)
        x->eo.sink = &placeholder;
    return WX_OK;
}

/* Where the explored graph goes: --scc, --livelock and --reversible
 * analyse it, which the outputs module collects in memory when asked to
 * keep it; then the outputs are opened. */
static int open_outputs(struct explore_run *x, struct wx_error *err)
{
    const struct cli_options *o = x->o;
    if (o->cycle_mean && !o->weight)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--cycle-mean needs --weight REGEX (its first capture group is a label's weight, "
                       "e.g. 'cost ([0-9]+)')");
    if (x->dist && x->dist->rank > 0)
        return open_no_outputs(x);
    x->keep_graph = o->scc || o->mec || x->lts_checks || o->cycle_mean;
    /* On the GPU the SCC decomposition runs on the GPU too.  When nothing
     * else needs the graph on the host (--mec, --livelock, --reversible and
     * the output files read it there), it never leaves the device: the
     * explorer hands its CSR straight to scc_gpu_device. */
    x->scc_on_gpu = x->backend == EXPLORE_GPU && scc_gpu_available();
    const bool host_needs = o->mec || x->lts_checks || o->aut_out || o->csr_out;
    x->device_only = x->scc_on_gpu && (o->scc || o->cycle_mean) && !host_needs &&
                     (!o->cycle_mean || cyclemean_gpu_available());
    if (x->device_only) {
        x->keep_graph = false;
        x->eo.keep_device_graph = true;
    }
    int rc = outputs_open(&x->out, o, &x->img, x->keep_graph, err);
    if (rc == WX_OK && outputs_active(&x->out))
        x->eo.sink = &x->out.sink;
    return rc;
}

/* The exploration.  During it SIGINT / SIGTERM stop the explorer, which
 * returns the partial counts (cli/signals.h); the outputs are then removed
 * (analyse).  A violation of a finished exploration
 * (finish_after_violation) still gets its outputs and analyses; exit 1 is
 * set after them. */
static int run_explorer(struct explore_run *x, struct wx_error *err)
{
    memset(&x->res, 0, sizeof x->res);
    x->eo.cancel = cli_signals_flag();
    cli_signals_cooperate(true);
    int rc = x->dist ? cli_dist_explore(x->dist, &x->img, &x->eo, &x->res, err)
                     : explore_run(x->backend, &x->img, &x->eo, &x->res, err);
    rc = cli_signals_end(rc, err);
    if (x->res.flat_full && !x->o->quiet && !x->o->json)
        fprintf(stderr, "warpex: note: the flat state store was full after %llu states; explored again "
                        "with the tree store (--store tree)\n", (unsigned long long)x->res.flat_full);
    if (rc == WX_EINTERRUPT)
        x->res.complete = false;
    x->violated = rc == WX_OK && x->res.violation != VIOLATION_NONE;
    if (x->violated && !x->res.complete)
        rc = WX_EVIOLATION;
    return rc;
}

/* --scc (and --cycle-mean on a graph kept on the device): the SCCs, on the
 * GPU when it explored. */
static int run_scc(struct explore_run *x, struct csr *graph, struct wx_error *err)
{
    const struct cli_options *o = x->o;
    int rc = WX_OK;
    double ts = wx_now();
    if (x->device_only) {
        uint32_t *d_comp = NULL;
        rc = scc_of_device_graph(&x->res.device_graph, o->scc_out != NULL, &x->scc,
                                 o->cycle_mean ? &d_comp : NULL, err);
        x->have_scc = rc == WX_OK;
        if (rc == WX_OK && o->cycle_mean) {
            rc = cli_cycle_of_device(&x->cyc, &x->res.device_graph, d_comp, &x->scc, x->img.labels,
                                     o->input, o->weight, o->default_weight, o->cycle_mean == 2, err);
            x->have_cyc = rc == WX_OK;
        }
        scc_gpu_ids_free(d_comp);
    } else if (o->scc || o->mec) {
        rc = x->scc_on_gpu ? scc_gpu(graph, &x->scc, err) : scc_cpu(graph, &x->scc, err);
        x->have_scc = rc == WX_OK;
    }
    x->scc_seconds = (wx_now() - ts);
    dgraph_free(&x->res.device_graph);
    if (rc == WX_OK && o->scc_out)
        rc = cli_write_ids(o->scc_out, x->scc.comp, x->scc.n_vertices, UINT32_MAX, err);
    return rc;
}

/* The analyses of a complete exploration: SCCs, MECs, livelock,
 * reversibility, cycle mean; WX_EVIOLATION when one of them (or the
 * explorer) found a violation. */
static int analyse(struct explore_run *x, struct wx_error *err)
{
    const struct cli_options *o = x->o;
    struct lts_outcome *lts = &x->lts;
    struct csr graph;
    int rc = outputs_finish(&x->out, x->res.states, x->keep_graph ? &graph : NULL, err);
    if (rc == WX_OK)
        rc = run_scc(x, &graph, err);
    else
        dgraph_free(&x->res.device_graph);
    if (rc == WX_OK && o->mec) {
        rc = lts_mecs_from_scc(&graph, &x->scc, &x->mecs, err);
        x->have_mecs = rc == WX_OK;
    }
    if (rc == WX_OK && o->mec_out)
        rc = cli_write_ids(o->mec_out, x->mecs.mec, graph.n_vertices, LTS_NO_MEC, err);
    if (rc == WX_OK && o->livelock)
        rc = lts_find_livelock(&graph, x->img.hidden, &lts->lasso, err);
    if (rc == WX_OK && o->reversible)
        rc = lts_check_reversible(&graph, graph.initial, &lts->rev, err);
    lts->checked = rc == WX_OK && x->lts_checks;
    const bool lts_violated =
        lts->checked && ((o->livelock && lts->lasso.found) || (o->reversible && !lts->rev.reversible));
    if (rc == WX_OK && o->cycle_mean && !x->device_only) {
        /* last: it takes the graph over */
        rc = cli_cycle_of_graph(&x->cyc, &graph, o->input, o->weight, o->default_weight, o->cycle_mean == 2,
                                x->backend == EXPLORE_GPU ? CLI_BACKEND_GPU : CLI_BACKEND_CPU, err);
        x->have_cyc = rc == WX_OK;
    }
    if (x->keep_graph)
        csr_free(&graph);
    if (rc == WX_OK && (x->violated || lts_violated))
        rc = WX_EVIOLATION;
    return rc;
}

/* An incomplete exploration: no output file, no analysis. */
static void abandon(struct explore_run *x, int rc)
{
    const struct cli_options *o = x->o;
    outputs_abort(&x->out);
    if ((o->aut_out || o->csr_out) && !o->quiet && rc == WX_EVIOLATION)
        fprintf(stderr, "warpex: exploration stopped early; no output file written\n");
    if ((o->scc || o->mec) && !o->quiet && rc == WX_EVIOLATION)
        fprintf(stderr, "warpex: exploration stopped early; no SCC/MEC decomposition\n");
    if (x->lts_checks && !o->quiet && rc == WX_EVIOLATION)
        fprintf(stderr, "warpex: exploration stopped early; --livelock/--reversible not checked\n");
}

/* The text report of an exploration that ended with WX_OK or
 * WX_EVIOLATION. */
static void report_all_text(const struct explore_run *x)
{
    const struct cli_options *o = x->o;
    const struct explore_result *res = &x->res;
    report_text(o, &x->img, res);
    if (x->dist)
        cli_dist_text(x->dist);
    if (x->have_scc && o->scc)
        report_scc_text(&x->scc, x->scc_where, x->scc_seconds);
    if (x->have_mecs)
        report_mec_text(&x->mecs);
    if (x->have_cyc) {
        const struct cli_cycle *cyc = &x->cyc;
        cli_cycle_print(cyc, false);
        if (o->trace_states && res->vectors && cyc->r.best.has_cycle) {
            printf("critical cycle states (component states as in their files):\n");
            for (uint64_t i = 0; i < cyc->r.cycle_len; i++) {
                printf("  [state %u]  ", cyc->r.cycle[i]);
                cli_print_vector(stdout, &x->img, &x->net, res->vectors + (size_t)cyc->r.cycle[i] * x->img.words,
                             0);
                printf("\n");
            }
        }
    }
    if (res->violation != VIOLATION_NONE)
        report_violation(o, &x->img, &x->net, res);
    else if (o->deadlock || o->action)
        printf("result:       no violation: %s%s%s\n", o->deadlock ? "no deadlock" : "",
               o->deadlock && o->action ? ", " : "",
               o->action ? "no reachable transition matches the action" : "");
    report_lts_text(o, &x->img, &x->net, res, &x->lts);
}

static void report(const struct explore_run *x, int rc)
{
    const struct explore_result *res = &x->res;
    if (x->dist && x->dist->rank > 0)
        return; /* rank 0 reports */
    if (x->o->json) {
        report_json(x, rc);
    } else if (rc == WX_OK || rc == WX_EVIOLATION) {
        report_all_text(x);
    } else if ((rc == WX_ELIMIT || rc == WX_EINTERRUPT) && res->states) {
        fprintf(stderr, "warpex: stopped after %llu states and %llu transitions (incomplete: "
                        "these are not the counts of the state space)\n",
                (unsigned long long)res->states, (unsigned long long)res->transitions);
    }
}

/* Explores x->img (an LTS network), analyses and reports. */
static int explore_lts(struct explore_run *x, struct wx_error *err)
{
    int rc = refuse_mdp_options(x->o, err);
    if (rc == WX_OK)
        rc = set_options(x, err);
    if (rc == WX_OK)
        rc = choose_backend(x, err);
    if (rc == WX_OK)
        rc = open_outputs(x, err);
    if (rc != WX_OK)
        return rc;
    x->scc_where = x->device_only ? "gpu (graph kept on the device)" : x->scc_on_gpu ? "gpu" : "cpu";
    rc = run_explorer(x, err);
    if (rc == WX_OK && x->res.complete && x->dist && x->dist->rank > 0)
        rc = x->violated ? WX_EVIOLATION : WX_OK; /* rank 0 analyses (cli_dist_end) */
    else if (rc == WX_OK && x->res.complete)
        rc = analyse(x, err);
    else
        abandon(x, rc);
    report(x, rc);
    scc_result_free(&x->scc);
    lts_mecs_free(&x->mecs);
    if (x->have_cyc)
        cli_cycle_free(&x->cyc);
    lts_lasso_free(&x->lts.lasso);
    lts_reversibility_free(&x->lts.rev);
    explore_result_free(&x->res);
    return rc;
}

static int explore_main(struct cli_options *o, struct cli_dist *dist, struct wx_error *err)
{
    if (o->stop_at_first && !o->deadlock && !o->action)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "--stop-at-first applies with --deadlock or --action");
    if (o->por && needs_whole_product(o))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "--por explores a reduced graph; --aut, --csr, --scc, --mec, "
                       "--cycle-mean, --livelock and --reversible need the whole product (drop --por)");
    struct explore_run x;
    memset(&x, 0, sizeof x);
    x.o = o;
    x.dist = dist;
    int rc = cli_load_image(o, &x.img, &x.net, err);
    if (rc != WX_OK)
        return rc;
    if (x.img.probabilistic && o->por) /* an MDP: cli/cmd_explore_mdp.c */
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "--por applies to networks of LTSs; %s is probabilistic",
                     o->input);
    else if (x.img.probabilistic && dist)
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s is probabilistic: its MDP is explored without mpirun",
                     o->input);
    else if (x.img.probabilistic)
        rc = cli_explore_mdp(o, &x.img, &x.net, err);
    else
        rc = explore_lts(&x, err);
    free(x.flags);
    image_free(&x.img);
    network_free(&x.net);
    return rc;
}

int cmd_explore(struct cli_options *o, struct wx_error *err)
{
    int rank, ranks = cli_dist_ranks(&rank);
    if (ranks >= 2) { /* started by mpirun: the distributed explorer */
        struct cli_dist d;
        int rc = cli_dist_begin(&d, o, rank, ranks, err);
        if (rc == WX_OK)
            rc = explore_main(o, &d, err);
        return cli_dist_end(&d, rc, err);
    }
    /* Where the GPU may run, its CUDA context is created on a thread while
     * the network is parsed and built; the GPU explorer's first CUDA call
     * waits for whatever is left of it (and counts that in its seconds). */
    struct gpu_probe probe;
    const bool probing = o->backend == EXPLORE_AUTO || o->backend == EXPLORE_GPU;
    if (probing)
        gpu_probe_start(&probe, gpu_start, NULL);
    int rc = explore_main(o, NULL, err);
    if (probing)
        gpu_probe_join(&probe);
    return rc;
}
