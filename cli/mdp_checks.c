/*
 * mdp_checks.c -- --deadlock, --action, --trace, --scc and --mec on an
 * explored MDP (mdp_checks.h).
 */
#include "mdp_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strtab.h"

int mdp_checks_prepare(const struct cli_options *o, const struct image *img, struct mdp_checks *c,
                       struct wx_error *err)
{
    memset(c, 0, sizeof *c);
    c->state = c->choice = MDP_REACH_NONE;
    c->n_labels = img->n_labels;
    if (!o->action)
        return WX_OK;
    uint32_t matched = 0;
    int rc = cli_match_actions(img, o->action, &c->match, &matched, err);
    if (rc == WX_OK && matched == 0 && !o->quiet)
        fprintf(stderr, "warpex: note: no label of the network matches '%s'\n", o->action);
    return rc;
}

/* The support graph's SCCs (--scc, --scc-out). */
static int run_scc(const struct cli_options *o, const struct mdp *m, struct mdp_checks *c,
                   struct wx_error *err)
{
    struct csr g;
    double t0 = wx_now();
    int rc = mdp_support_graph(m, &g, err);
    if (rc == WX_OK)
        rc = c->on_gpu ? scc_gpu(&g, &c->scc, err) : scc_cpu(&g, &c->scc, err);
    mdp_support_free(&g);
    c->scc_seconds = wx_now() - t0;
    c->have_scc = rc == WX_OK;
    if (rc == WX_OK && o->scc_out)
        rc = cli_write_ids(o->scc_out, c->scc.comp, c->scc.n_vertices, UINT32_MAX, err);
    return rc;
}

static int run_mec(const struct cli_options *o, const struct mdp *m, struct mdp_checks *c,
                   struct wx_error *err)
{
    double t0 = wx_now();
    int rc = c->on_gpu ? mec_gpu(m, &c->mec, err) : mec_cpu(m, &c->mec, err);
    c->mec_seconds = wx_now() - t0;
    c->have_mec = rc == WX_OK;
    if (rc == WX_OK && o->mec_out)
        rc = cli_write_ids(o->mec_out, c->mec.mec, c->mec.n_states, MEC_NONE, err);
    return rc;
}

int mdp_checks_run(const struct cli_options *o, const struct mdp_explore_result *r, bool on_gpu,
                   struct mdp_checks *c, struct wx_error *err)
{
    const struct mdp *m = &r->mdp;
    int rc = WX_OK;
    c->on_gpu = on_gpu;
    if (o->deadlock || o->action) {
        mdp_first_violation(m, r->choice_label, c->match, c->n_labels, o->deadlock,
                            &c->state, &c->choice);
        c->violated = c->state != MDP_REACH_NONE;
    }
    if (c->violated && o->trace) {
        rc = mdp_bfs_trace(m, c->state, &c->trace, err);
        c->have_trace = rc == WX_OK;
    }
    if (rc == WX_OK && (o->scc || o->scc_out))
        rc = run_scc(o, m, c, err);
    if (rc == WX_OK && (o->mec || o->mec_out))
        rc = run_mec(o, m, c, err);
    return rc;
}

static const char *name_of(const struct image *img, uint32_t l)
{
    return l < img->n_labels ? strtab_str(img->labels, l) : "tau";
}

/* State s's vector, or a word for the fresh state 0 (it has none). */
static void put_vector(const struct image *img, const struct network *net,
                       const struct mdp_explore_result *r, uint32_t s, int json)
{
    if (s == 0 && r->fresh_initial)
        fputs(json ? "null" : "(before the initial distribution)", stdout);
    else
        cli_print_vector(stdout, img, net, r->vectors + (size_t)s * img->words, json);
}

static void json_trace(const struct cli_options *o, const struct image *img,
                       const struct network *net, const struct mdp_explore_result *r,
                       const struct mdp_trace *t)
{
    printf(", \"trace_probability\": %.17g, \"trace\": [", t->probability);
    for (uint32_t i = 0; i <= t->len; i++) {
        printf("%s{\"state\": %u", i ? ", " : "", t->states[i]);
        if (i > 0) {
            uint64_t ch = t->choices[i - 1];
            printf(", \"label\": ");
            cli_json_string(stdout, name_of(img, r->choice_label[ch]));
            printf(", \"choice\": %llu, \"probability\": %.17g",
                   (unsigned long long)(ch - r->mdp.state_start[t->states[i - 1]]), t->probs[i - 1]);
        }
        if (o->trace_states && r->vectors) {
            printf(", \"vector\": ");
            put_vector(img, net, r, t->states[i], 1);
        }
        printf("}");
    }
    printf("]");
}

void mdp_checks_json(const struct cli_options *o, const struct image *img,
                     const struct network *net, const struct mdp_explore_result *r,
                     const struct mdp_checks *c)
{
    if (c->have_scc) {
        const struct scc_result *s = &c->scc;
        printf(", \"sccs\": %llu, \"trivial_sccs\": %llu, \"largest_scc\": %llu, "
               "\"bottom_sccs\": %llu, \"bottom_trivial_sccs\": %llu, \"scc_backend\": \"%s\", "
               "\"scc_seconds\": %.6f",
               (unsigned long long)s->n_sccs, (unsigned long long)s->n_trivial,
               (unsigned long long)s->largest, (unsigned long long)s->n_bottom,
               (unsigned long long)s->n_bottom_trivial, c->on_gpu ? "gpu" : "cpu", c->scc_seconds);
    }
    if (c->have_mec) {
        const struct mec_result *m = &c->mec;
        printf(", \"mecs\": %llu, \"states_in_mecs\": %llu, \"choices_in_mecs\": %llu, "
               "\"largest_mec\": %llu, \"singleton_mecs\": %llu, \"mec_rounds\": %llu, "
               "\"mec_backend\": \"%s\", \"mec_seconds\": %.6f",
               (unsigned long long)m->n_mecs, (unsigned long long)m->states_in_mecs,
               (unsigned long long)m->choices_in_mecs, (unsigned long long)m->largest,
               (unsigned long long)m->n_singletons, (unsigned long long)m->rounds,
               c->on_gpu ? "gpu" : "cpu", c->mec_seconds);
    }
    if (!(o->deadlock || o->action))
        return;
    if (!c->violated) {
        printf(", \"violation\": null");
        return;
    }
    printf(", \"violation\": \"%s\", \"violation_state\": %llu",
           c->choice == MDP_REACH_NONE ? "deadlock" : "action", (unsigned long long)c->state);
    if (c->choice != MDP_REACH_NONE) {
        printf(", \"violation_label\": ");
        cli_json_string(stdout, name_of(img, r->choice_label[c->choice]));
    }
    if (c->have_trace)
        json_trace(o, img, net, r, &c->trace);
}

static void text_trace(const struct cli_options *o, const struct image *img,
                       const struct network *net, const struct mdp_explore_result *r,
                       const struct mdp_trace *t)
{
    printf("trace (%u step%s, shortest; probability %.12g under the choices taken):\n", t->len,
           t->len == 1 ? "" : "s", t->probability);
    for (uint32_t i = 0; i <= t->len; i++) {
        if (i == 0) {
            printf("  %4u  (initial state)  [state 0]", 0u);
        } else {
            uint64_t ch = t->choices[i - 1];
            printf("  %4u  %s  p=%.12g  [choice %llu of state %u -> state %u]", i,
                   name_of(img, r->choice_label[ch]), t->probs[i - 1],
                   (unsigned long long)(ch - r->mdp.state_start[t->states[i - 1]]),
                   t->states[i - 1], t->states[i]);
        }
        if (o->trace_states && r->vectors) {
            printf("  ");
            put_vector(img, net, r, t->states[i], 0);
        }
        printf("\n");
    }
}

void mdp_checks_text(const struct cli_options *o, const struct image *img,
                     const struct network *net, const struct mdp_explore_result *r,
                     const struct mdp_checks *c)
{
    const char *where = c->on_gpu ? "gpu" : "cpu";
    if (c->have_scc) {
        const struct scc_result *s = &c->scc;
        printf("SCCs:         %llu (%llu trivial, %llu non-trivial covering %llu states; support "
               "graph)\n",
               (unsigned long long)s->n_sccs, (unsigned long long)s->n_trivial,
               (unsigned long long)(s->n_sccs - s->n_trivial), (unsigned long long)s->n_in_nontrivial);
        printf("largest SCC:  %llu states\n", (unsigned long long)s->largest);
        printf("bottom SCCs:  %llu (%llu of them deadlock states)\n", (unsigned long long)s->n_bottom,
               (unsigned long long)s->n_bottom_trivial);
        printf("SCC time:     %.3f s (%s)\n", c->scc_seconds, where);
    }
    if (c->have_mec) {
        const struct mec_result *m = &c->mec;
        printf("MECs:         %llu (%llu of one state), %llu states and %llu choices inside, "
               "largest %llu\n",
               (unsigned long long)m->n_mecs, (unsigned long long)m->n_singletons,
               (unsigned long long)m->states_in_mecs, (unsigned long long)m->choices_in_mecs,
               (unsigned long long)m->largest);
        printf("MEC time:     %.3f s (%s, %llu rounds)\n", c->mec_seconds, where,
               (unsigned long long)m->rounds);
    }
    if (!(o->deadlock || o->action))
        return;
    if (!c->violated) {
        printf("result:       no violation: %s%s%s\n", o->deadlock ? "no deadlock" : "",
               o->deadlock && o->action ? ", " : "",
               o->action ? "no reachable choice matches the action" : "");
        return;
    }
    if (c->choice == MDP_REACH_NONE) {
        printf("result:       violation: a deadlock is reachable\n");
        printf("deadlock:     state %llu has no choice\n", (unsigned long long)c->state);
    } else {
        printf("result:       violation: a choice matching the action is reachable\n");
        printf("action:       state %llu has a choice labelled '%s' (matches '%s')\n",
               (unsigned long long)c->state, name_of(img, r->choice_label[c->choice]), o->action);
    }
    if (c->have_trace)
        text_trace(o, img, net, r, &c->trace);
}

void mdp_checks_free(struct mdp_checks *c)
{
    free(c->match);
    mdp_trace_free(&c->trace);
    scc_result_free(&c->scc);
    mec_result_free(&c->mec);
    memset(c, 0, sizeof *c);
}
