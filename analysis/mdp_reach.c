/*
 * mdp_reach.c -- the first violation, BFS-tree traces and the support
 * graph of a BFS-numbered MDP (mdp_reach.h).
 */
#include "mdp_reach.h"

#include <stdlib.h>
#include <string.h>

void mdp_first_violation(const struct mdp *m, const uint32_t *choice_label, const uint8_t *match,
                         uint32_t n_labels, bool want_deadlock, uint64_t *state, uint64_t *choice)
{
    *state = *choice = MDP_REACH_NONE;
    for (uint64_t s = 0; s < m->n_states; s++) {
        if (want_deadlock && m->state_start[s] == m->state_start[s + 1]) {
            *state = s;
            return;
        }
        for (uint64_t c = m->state_start[s]; match && c < m->state_start[s + 1]; c++)
            if (choice_label[c] < n_labels && match[choice_label[c]]) {
                *state = s, *choice = c;
                return;
            }
    }
}

void mdp_trace_free(struct mdp_trace *t)
{
    free(t->states), free(t->choices), free(t->entries), free(t->probs);
    memset(t, 0, sizeof *t);
}

/* The parent entry of every state up to target (UINT64_MAX: none yet):
 * the first entry that refers to it, in (state, choice, entry) order.
 * States beyond target are never needed: a parent has a smaller id. */
static void parent_entries(const struct mdp *m, uint64_t target, uint64_t *parent)
{
    for (uint64_t t = 0; t <= target; t++)
        parent[t] = UINT64_MAX;
    for (uint64_t s = 0; s < target; s++)
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++) {
                uint32_t t = m->targets[e];
                if (t <= target && t > s && parent[t] == UINT64_MAX)
                    parent[t] = e;
            }
}

/* The state owning entry e among states [0, hi), and in *choice the
 * choice owning it (binary searches; a state without a choice owns no
 * entry, so the last state whose entries start at or before e owns it). */
static uint64_t entry_state(const struct mdp *m, uint64_t e, uint64_t hi, uint64_t *choice)
{
    uint64_t lo = 0;
    while (hi - lo > 1) { /* the last s with choice_start[state_start[s]] <= e */
        uint64_t mid = lo + (hi - lo) / 2;
        if (m->choice_start[m->state_start[mid]] <= e)
            lo = mid;
        else
            hi = mid;
    }
    uint64_t a = m->state_start[lo], b = m->state_start[lo + 1];
    while (b - a > 1) { /* the last choice of lo starting at or before e */
        uint64_t mid = a + (b - a) / 2;
        if (m->choice_start[mid] <= e)
            a = mid;
        else
            b = mid;
    }
    *choice = a;
    return lo;
}

int mdp_bfs_trace(const struct mdp *m, uint64_t target, struct mdp_trace *out,
                  struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    if (target >= m->n_states)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "trace: state %llu is not a state of the MDP",
                       (unsigned long long)target);
    uint64_t *parent = malloc((target + 1) * sizeof *parent);
    if (!parent)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory for a trace");
    parent_entries(m, target, parent);
    uint32_t len = 0;
    for (uint64_t t = target; t != 0; len++) {
        uint64_t c;
        if (parent[t] == UINT64_MAX) {
            free(parent);
            return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                           "trace: state %llu has no parent of smaller id (not a BFS numbering)",
                           (unsigned long long)t);
        }
        t = entry_state(m, parent[t], t, &c);
    }
    out->len = len;
    out->states = malloc((len + 1) * sizeof *out->states);
    out->choices = malloc((len ? len : 1) * sizeof *out->choices);
    out->entries = malloc((len ? len : 1) * sizeof *out->entries);
    out->probs = malloc((len ? len : 1) * sizeof *out->probs);
    if (!out->states || !out->choices || !out->entries || !out->probs) {
        free(parent);
        mdp_trace_free(out);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory for a trace");
    }
    out->states[len] = (uint32_t)target;
    for (uint64_t t = target, i = len; i > 0; i--) {
        uint64_t c, e = parent[t];
        t = entry_state(m, e, t, &c);
        out->states[i - 1] = (uint32_t)t;
        out->choices[i - 1] = c;
        out->entries[i - 1] = e;
        out->probs[i - 1] = m->probs[e];
    }
    out->probability = 1.0;
    for (uint32_t i = 0; i < len; i++)
        out->probability *= out->probs[i];
    free(parent);
    return WX_OK;
}

int mdp_support_graph(const struct mdp *m, struct csr *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    if (m->n_states > UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "the MDP has 2^32 states or more");
    out->offsets = malloc((m->n_states + 1) * sizeof *out->offsets);
    if (!out->offsets)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory for the support graph");
    for (uint64_t s = 0; s <= m->n_states; s++)
        out->offsets[s] = m->choice_start[m->state_start[s]];
    out->n_vertices = m->n_states;
    out->n_edges = m->n_entries;
    out->targets = m->targets;
    return WX_OK;
}

void mdp_support_free(struct csr *g)
{
    free(g->offsets);
    memset(g, 0, sizeof *g);
}
