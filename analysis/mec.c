/*
 * mec.c -- maximal end components by SCC refinement (definition, algorithm
 * and numbering: mec.h).
 *
 * Invariant between steps: a live choice belongs to a live state and, once
 * the worklist is drained, has only live successors (a state's death kills
 * every choice leading into it); a live state has live_count > 0 live
 * choices.  When a round kills no choice, every live choice stays inside its
 * SCC and every live state keeps one, so each SCC of live states is an end
 * component; no removed state or choice can be in one (each was removed
 * because it could not stay inside any component that the current
 * over-approximation allows), so they are the maximal ones.
 */
#include <stdlib.h>
#include <string.h>

#include "mec.h"
#include "scc.h"

struct work {
    const struct mdp *m;
    uint8_t *state_live, *choice_live;
    uint32_t *live_count;   /* live choices per state */
    uint32_t *owner;        /* state of each choice */
    uint64_t *rev_start;    /* n_states + 1: choices with an entry into t are */
    uint64_t *rev_choice;   /* rev_choice[rev_start[t] .. rev_start[t+1]) */
    uint32_t *stack;        /* states that died, their predecessors not yet visited */
    uint64_t sp;
};

static void kill_choice(struct work *w, uint64_t c)
{
    w->choice_live[c] = 0;
    uint32_t s = w->owner[c];
    if (--w->live_count[s] == 0 && w->state_live[s]) {
        w->state_live[s] = 0;
        w->stack[w->sp++] = s; /* each state is pushed at most once */
    }
}

/* Kills the live choices leading into dead states, transitively. */
static void drain(struct work *w)
{
    while (w->sp) {
        uint32_t t = w->stack[--w->sp];
        for (uint64_t i = w->rev_start[t]; i < w->rev_start[t + 1]; i++)
            if (w->choice_live[w->rev_choice[i]])
                kill_choice(w, w->rev_choice[i]);
    }
}

static int oom(struct wx_error *err)
{
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory computing MECs");
}

/* The work arrays, the graph's and out->mec; -1 when out of memory (what
 * was had is freed by work_free). */
static int work_alloc(struct work *w, struct csr *g, struct mec_result *out)
{
    const uint64_t n = w->m->n_states, nc = w->m->n_choices, ne = w->m->n_entries;
    w->state_live = malloc(n);
    w->choice_live = malloc(nc ? nc : 1);
    w->live_count = malloc(n * sizeof *w->live_count);
    w->owner = malloc((nc ? nc : 1) * sizeof *w->owner);
    w->rev_start = calloc(n + 1, sizeof *w->rev_start);
    w->rev_choice = malloc((ne ? ne : 1) * sizeof *w->rev_choice);
    w->stack = malloc(n * sizeof *w->stack);
    g->offsets = malloc((n + 1) * sizeof *g->offsets);
    g->targets = malloc((ne ? ne : 1) * sizeof *g->targets);
    out->mec = malloc(n * sizeof *out->mec);
    return w->state_live && w->choice_live && w->live_count && w->owner && w->rev_start &&
                   w->rev_choice && w->stack && g->offsets && g->targets && out->mec
               ? 0
               : -1;
}

static void work_free(struct work *w, struct csr *g)
{
    free(g->offsets);
    free(g->targets);
    free(w->state_live);
    free(w->choice_live);
    free(w->live_count);
    free(w->owner);
    free(w->rev_start);
    free(w->rev_choice);
    free(w->stack);
}

/* Everything live, owners, live counts and the predecessor index (counting
 * sort by target; a choice with two entries into t is listed twice,
 * harmless); then the states without a choice die, transitively. */
static void work_start(struct work *w)
{
    const struct mdp *m = w->m;
    const uint64_t n = m->n_states, nc = m->n_choices, ne = m->n_entries;
    for (uint64_t s = 0; s < n; s++) {
        w->state_live[s] = 1;
        w->live_count[s] = (uint32_t)(m->state_start[s + 1] - m->state_start[s]);
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            w->owner[c] = (uint32_t)s;
    }
    memset(w->choice_live, 1, nc);
    for (uint64_t e = 0; e < ne; e++)
        w->rev_start[m->targets[e] + 1]++;
    for (uint64_t t = 0; t < n; t++)
        w->rev_start[t + 1] += w->rev_start[t];
    for (uint64_t c = 0; c < nc; c++)
        for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
            w->rev_choice[w->rev_start[m->targets[e]]++] = c;
    for (uint64_t t = n; t > 0; t--) /* the fill advanced each start to the next one's */
        w->rev_start[t] = w->rev_start[t - 1];
    w->rev_start[0] = 0;

    for (uint64_t s = 0; s < n; s++)
        if (w->live_count[s] == 0) {
            w->state_live[s] = 0;
            w->stack[w->sp++] = (uint32_t)s;
        }
    drain(w);
}

/* g := the graph of live states under live choices. */
static void live_graph(const struct work *w, struct csr *g)
{
    const struct mdp *m = w->m;
    const uint64_t n = m->n_states;
    uint64_t k = 0;
    for (uint64_t s = 0; s < n; s++) {
        g->offsets[s] = k;
        if (!w->state_live[s])
            continue;
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            if (w->choice_live[c])
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                    g->targets[k++] = m->targets[e];
    }
    g->offsets[n] = k;
    g->n_edges = k;
}

/* Kills every live choice with an entry leaving its state's SCC (r), then
 * what dies with them; returns how many choices it killed directly. */
static uint64_t kill_leaving(struct work *w, const struct scc_result *r)
{
    const struct mdp *m = w->m;
    uint64_t killed = 0;
    for (uint64_t s = 0; s < m->n_states; s++) {
        if (!w->state_live[s])
            continue;
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            if (!w->choice_live[c])
                continue;
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                if (r->comp[m->targets[e]] != r->comp[s]) {
                    kill_choice(w, c);
                    killed++;
                    break;
                }
        }
    }
    drain(w);
    return killed;
}

/* The live SCCs (r) are the MECs: out gets them numbered by smallest state,
 * their statistics, and (taken from w) the live choices. */
static int number_mecs(struct work *w, const struct scc_result *r, struct mec_result *out,
                       struct wx_error *err)
{
    const uint64_t n = w->m->n_states, nc = w->m->n_choices;
    uint32_t *map = malloc((r->n_sccs ? r->n_sccs : 1) * sizeof *map);
    uint64_t *size = calloc(n, sizeof *size);
    if (!map || !size) {
        free(map), free(size);
        return oom(err);
    }
    memset(map, 0xff, r->n_sccs * sizeof *map);
    for (uint64_t s = 0; s < n; s++) {
        if (!w->state_live[s]) {
            out->mec[s] = MEC_NONE;
            continue;
        }
        uint32_t *id = &map[r->comp[s]];
        if (*id == MEC_NONE)
            *id = (uint32_t)out->n_mecs++;
        out->mec[s] = *id;
        size[*id]++;
        out->states_in_mecs++;
    }
    for (uint64_t i = 0; i < out->n_mecs; i++) {
        if (size[i] > out->largest)
            out->largest = size[i];
        out->n_singletons += size[i] == 1;
    }
    free(size);
    free(map);
    for (uint64_t c = 0; c < nc; c++)
        out->choices_in_mecs += w->choice_live[c];
    if (nc) {
        out->choice_in = w->choice_live; /* live choices are exactly the MECs' */
        w->choice_live = NULL;
    }
    return WX_OK;
}

int mec_cpu(const struct mdp *m, struct mec_result *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    out->n_states = m->n_states;
    out->n_choices = m->n_choices;
    if (m->n_states == 0)
        return WX_OK;

    struct work w = {.m = m};
    struct csr g = {.n_vertices = m->n_states};
    struct scc_result r = {0};
    int rc = work_alloc(&w, &g, out) != 0 ? oom(err) : WX_OK;
    if (rc == WX_OK) {
        work_start(&w);
        /* Refine until a round kills no choice (see the top of the file). */
        do {
            live_graph(&w, &g);
            scc_result_free(&r);
            if ((rc = scc_cpu(&g, &r, err)) != WX_OK)
                break;
            out->rounds++;
        } while (kill_leaving(&w, &r) > 0);
    }
    if (rc == WX_OK)
        rc = number_mecs(&w, &r, out, err);
    scc_result_free(&r);
    work_free(&w, &g);
    if (rc != WX_OK)
        mec_result_free(out);
    return rc;
}

void mec_result_free(struct mec_result *out)
{
    free(out->mec);
    free(out->choice_in);
    memset(out, 0, sizeof *out);
}
