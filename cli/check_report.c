/*
 * check_report.c -- what `warpex check` prints (check.h): the header with
 * the model and the method, one block per property, and the --values /
 * --scheduler files.
 */
#include <math.h>
#include <stdio.h>

#include "../util/outfile.h"
#include "../util/timer.h"
#include "check.h"

static const char *backend_name(enum cli_backend b)
{
    return b == CLI_BACKEND_GPU ? "gpu" : "cpu";
}

static void json_double(double v)
{
    if (isinf(v))
        printf("\"inf\"");
    else
        printf("%.17g", v);
}

static void json_header(const struct check_run *c)
{
    const struct check_options *o = &c->o;
    const struct mdp *m = &c->m;
    const char *solver_name = c->levels ? "levels"
                              : o->topological ? "topological"
                              : o->inplace ? "inplace"
                              : o->policy ? "policy"
                              : o->solver == VI_GAUSS_SEIDEL ? "gs" : "jacobi";
    printf("{\"model\": {\"file\": ");
    cli_json_string(stdout, o->input);
    printf(", \"type\": \"%s\", \"states\": %llu, \"choices\": %llu, "
           "\"transitions\": %llu, \"initial_states\": %llu, \"read_seconds\": %.6f}, "
           "\"backend\": \"%s\", \"method\": \"%s\",%s \"solver\": \"%s\", \"sound\": %s, \"epsilon\": %g, "
           "\"relative\": %s, \"gpu_init_seconds\": %.6f, \"gpu_wait_seconds\": %.6f, "
           "\"model_device\": %s, \"properties\": [",
           m->is_dtmc ? "dtmc" : "mdp", (unsigned long long)m->n_states,
           (unsigned long long)m->n_choices, (unsigned long long)m->n_entries,
           (unsigned long long)c->n_init, c->read_s, backend_name(c->bk),
           o->topological ? "topological" : o->policy ? "pi" : o->optimistic ? "ovi"
           : o->svi ? "svi" : o->sound ? "ii" : "vi",
           o->auto_method ? " \"method_auto\": true," : "",
           solver_name,
           o->sound ? "true" : "false", o->epsilon, o->relative ? "true" : "false",
           c->probe.seconds, c->probe.wait_seconds, c->dev.owned ? "true" : "false");
}

static void text_header(const struct check_run *c)
{
    const struct check_options *o = &c->o;
    const struct mdp *m = &c->m;
    printf("model: %s, %llu states, %llu choices, %llu transitions, %llu initial state%s\n",
           m->is_dtmc ? "DTMC" : "MDP", (unsigned long long)m->n_states,
           (unsigned long long)m->n_choices, (unsigned long long)m->n_entries,
           (unsigned long long)c->n_init, c->n_init == 1 ? "" : "s");
    if (c->init_id < 0)
        printf("note: no \"init\" label: state 0 is taken as the initial state\n");
    printf("method: %s%s, epsilon %g (%s), backend %s%s\n",
           c->levels       ? "interval iteration, level by level of the SCC graph (sound)"
           : o->topological ? "interval iteration, SCC by SCC (sound)"
           : o->policy    ? "policy iteration with certified bounds (sound)"
           : o->optimistic && c->mo.ovi_blocks ? "optimistic value iteration, SCC by SCC (sound)"
           : o->optimistic ? "optimistic value iteration (sound)"
           : o->svi       ? "sound value iteration (sound)"
           : o->sound     ? "interval iteration (sound)"
                          : "value iteration (UNSOUND: no error bound on the result)",
           o->auto_method ? " (--method auto)" : "", o->epsilon, o->relative ? "relative" : "absolute", backend_name(c->bk),
           o->topological || o->policy ? ""
           : c->bk == CLI_BACKEND_CPU
               ? (o->solver == VI_GAUSS_SEIDEL ? ", Gauss-Seidel" : ", Jacobi")
               : (o->inplace ? ", in-place sweeps (sound; not bit-identical to the CPU)" : ""));
    if (!o->quiet)
        fprintf(stderr, "warpex: read %.3f s\n", c->read_s);
}

void check_print_header(const struct check_run *c)
{
    if (c->o.json)
        json_header(c);
    else
        text_header(c);
    fflush(stdout);
}

/* The value at every initial state: {"state", "value", "lo", "hi"[,
 * "valuation"]}. */
static void json_initial(const struct check_run *c, const struct property *p,
                         const struct mdpcheck_result *r)
{
    int k = 0;
    for (uint64_t s = 0; s < c->m.n_states; s++) {
        if (!c->initial[s])
            continue;
        double lo = r->lo[s], hi = r->hi[s], mid = isinf(lo) ? lo : 0.5 * (lo + hi);
        printf("%s{\"state\": %llu, \"value\": ", k++ ? ", " : "", (unsigned long long)s);
        json_double(mid);
        printf(", \"lo\": ");
        json_double(lo);
        printf(", \"hi\": ");
        json_double(hi);
        check_report_json_state(stdout, p, lo, hi);
        if (c->have_sta) {
            printf(", \"valuation\": ");
            cli_json_string(stdout, c->sta.text + c->sta.offset[s]);
        }
        printf("}");
    }
}

static void json_property(const struct check_run *c, size_t i, const struct mdp_rewards *pr,
                          const struct mdpcheck_result *r, const struct propcheck_info *info)
{
    cli_json_property_head(stdout, i == 0, &c->props[i], pr, c->reward_of[i]);
    printf(", \"initial\": [");
    json_initial(c, &c->props[i], r);
    printf("]");
    check_report_json(stdout, &c->props[i], r, c->initial, info);
    printf(", \"solved_for\": \"%s\", \"relevant_states\": %llu, \"cut_device\": %s, \"system_device\": %s",
           r->initial_only ? "initial" : "all", (unsigned long long)r->n_relevant,
           r->cut_backend ? "true" : "false", r->system_backend ? "true" : "false");
    printf(", \"target_states\": %llu, \"yes_states\": %llu, \"no_states\": %llu, "
           "\"maybe_states\": %llu, \"infinite_states\": %llu, \"system_states\": %llu, "
           "\"system_choices\": %llu, \"system_transitions\": %llu, "
           "\"mecs_collapsed\": %llu, \"blocks\": %llu, \"levels\": %llu, \"level_sweeps\": %llu, "
           "\"groups\": %llu, \"iterations\": %llu, \"bound_iterations\": %llu, "
           "\"precomputation_seconds\": %.6f, \"build_seconds\": %.6f, \"mec_seconds\": %.6f, "
           "\"solve_seconds\": %.6f, \"sweep_seconds\": %.9f, \"bytes_per_sweep\": %llu",
           (unsigned long long)r->n_target, (unsigned long long)r->n_yes,
           (unsigned long long)r->n_no, (unsigned long long)r->n_maybe,
           (unsigned long long)r->n_infinite, (unsigned long long)r->sys_states,
           (unsigned long long)r->sys_choices, (unsigned long long)r->sys_entries,
           (unsigned long long)r->mecs_collapsed, (unsigned long long)r->blocks,
           (unsigned long long)r->levels, (unsigned long long)r->stats.level_sweeps,
           (unsigned long long)r->stats.groups, (unsigned long long)r->iterations,
           (unsigned long long)r->bound_iterations, r->precomp_seconds, r->build_seconds,
           r->mec_seconds, r->solve_seconds, r->stats.sweep_seconds,
           (unsigned long long)r->stats.bytes_per_sweep);
    if (c->o.optimistic)
        printf(", \"guesses\": %llu", (unsigned long long)r->stats.guesses);
    if (c->o.policy)
        printf(", \"policy_rounds\": %llu, \"products\": %llu, \"certified\": %s",
               (unsigned long long)r->stats.policy_rounds,
               (unsigned long long)r->stats.products, r->stats.certified ? "true" : "false");
    printf("}");
}

/* "result:" lines for the first 10 initial states. */
static void text_initial(const struct check_run *c, const struct property *p,
                         const struct mdpcheck_result *r)
{
    int shown = 0;
    for (uint64_t s = 0; s < c->m.n_states; s++) {
        if (!c->initial[s])
            continue;
        if (shown++ == 10) {
            printf("  ... (%llu initial states; --values FILE has all)\n",
                   (unsigned long long)c->n_init);
            break;
        }
        double lo = r->lo[s], hi = r->hi[s];
        if (p->cmp != PROP_QUERY)
            check_report_state(stdout, p, lo, hi, s);
        else if (isinf(lo))
            printf("  result: inf (target not reached almost surely) at state %llu",
                   (unsigned long long)s);
        else if (c->o.sound)
            printf("  result: %.12g in [%.12g, %.12g] at state %llu", 0.5 * (lo + hi),
                   lo, hi, (unsigned long long)s);
        else
            printf("  result: %.12g at state %llu (UNSOUND: value iteration, no "
                   "error bound)",
                   lo, (unsigned long long)s);
        if (c->have_sta)
            printf(" %s", c->sta.text + c->sta.offset[s]);
        printf("\n");
    }
}

/* The "states:" and "iterations:" lines: state classes, the solved
 * system, iterations and the time split. */
static void text_stats(const struct check_run *c, const struct property *p,
                       const struct mdpcheck_result *r)
{
    const int reward = p->kind >= PROP_RMIN;
    printf("  states: %llu target, %llu %s, %llu %s, %llu maybe",
           (unsigned long long)r->n_target, (unsigned long long)r->n_yes,
           reward ? "settled" : "yes", (unsigned long long)(reward ? r->n_infinite : r->n_no),
           reward ? "infinite" : "no", (unsigned long long)r->n_maybe);
    if (r->initial_only && !r->n_relevant)
        printf(" (the initial states are decided by the precomputation)");
    else if (r->initial_only)
        printf(" (%llu solved: those the initial states reach)", (unsigned long long)r->n_relevant);
    printf("; system %llu states, %llu choices, %llu transitions",
           (unsigned long long)r->sys_states, (unsigned long long)r->sys_choices,
           (unsigned long long)r->sys_entries);
    if (r->mecs_collapsed)
        printf(" (%llu MECs collapsed)", (unsigned long long)r->mecs_collapsed);
    if (r->blocks)
        printf(", %llu SCCs", (unsigned long long)r->blocks);
    if (r->levels && c->o.topological)
        printf(" in %llu levels", (unsigned long long)r->levels);
    if (r->stats.groups > 1)
        printf(", solved in %llu groups (--gpu-memory)", (unsigned long long)r->stats.groups);
    printf("\n  iterations: %llu", (unsigned long long)r->iterations);
    if (r->bound_iterations)
        printf(" (%llu for the reward upper bound)", (unsigned long long)r->bound_iterations);
    if (c->o.optimistic && r->iterations)
        printf(", %llu upper-bound guess%s", (unsigned long long)r->stats.guesses,
               r->stats.guesses == 1 ? "" : "es");
    if (c->o.policy)
        printf(", %llu policies, %llu products with a policy's matrix, %s",
               (unsigned long long)r->stats.policy_rounds,
               (unsigned long long)r->stats.products,
               r->stats.certified ? "certified"
               : r->stats.policy_rounds ? "certificate failed: interval iteration finished"
                                        : "interval iteration sufficed");
    printf("; time: precomputation %.3f s, system %.3f s, solve %.3f s\n",
           r->precomp_seconds, r->build_seconds, r->solve_seconds);
}

static void text_property(const struct check_run *c, size_t i, const struct mdp_rewards *pr,
                          const struct mdpcheck_result *r, const struct propcheck_info *info)
{
    const struct property *p = &c->props[i];
    printf("\nproperty %zu%s%s%s: %s\n", i + 1, p->name ? " \"" : "",
           p->name ? p->name : "", p->name ? "\"" : "", p->text);
    if (pr && pr->name)
        printf("  rewards: structure \"%s\"\n", pr->name);
    else if (pr)
        printf("  rewards: structure %d (unnamed)\n", c->reward_of[i] + 1);
    text_initial(c, p, r);
    check_report_summary(stdout, p, r, c->initial, c->n_init, info);
    if (!info->bounded)
        text_stats(c, p, r);
}

void check_print_property(const struct check_run *c, size_t i, const struct mdpcheck_result *r,
                          const struct propcheck_info *info)
{
    const struct property *p = &c->props[i];
    const struct mdp_rewards *pr =
        p->kind >= PROP_RMIN && c->rew.n ? &c->rew.models[c->reward_of[i]] : NULL;
    if (c->o.json)
        json_property(c, i, pr, r, info);
    else
        text_property(c, i, pr, r, info);
    fflush(stdout);
}

void check_print_end(const struct check_run *c, int rc)
{
    if (!c->o.json)
        return;
    if (rc != WX_OK)
        printf("]}\n");
    else /* all but process start-up and exit */
        printf("], \"seconds\": %.6f}\n", (wx_now() - c->t_start));
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

int check_write_outputs(const struct check_run *c, const struct mdpcheck_result *r,
                        struct wx_error *err)
{
    struct values_arg va = {r, c->have_sta ? &c->sta : NULL};
    int rc = WX_OK;
    if (c->o.values_out && (rc = outfile_write(c->o.values_out, put_values, &va, err)) != WX_OK)
        return rc;
    if (c->o.sched_out && (rc = outfile_write(c->o.sched_out, put_scheduler, r, err)) != WX_OK)
        return rc;
    return WX_OK;
}
