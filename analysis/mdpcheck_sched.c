/*
 * mdpcheck_sched.c -- step 6 of mdpcheck.h: the optimal memoryless
 * scheduler.
 */
#include <math.h>
#include <stdlib.h>

#include "mdpcheck_int.h"

/* The value of choice c (of state s) on the full value vector v. */
static double q_value(const struct ctx *x, uint32_t s, uint64_t c, const double *v)
{
    const struct mdp *m = x->m;
    double q = x->is_reward ? choice_reward(x, s, c) : 0;
    for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
        q += m->probs[e] * v[m->targets[e]];
    return q;
}

/* The predecessor index of the model and the scheduler being built. */
struct sched {
    struct ctx *x;
    int64_t *ch;        /* n_states: the local choice, -1 while none */
    uint64_t *pstart;   /* n_states + 2: the choices entering each state */
    uint64_t *pchoice;  /* (CSR over pstart) */
    uint32_t *owner;    /* n_choices: the state of each choice */
    uint32_t *queue;    /* n_states */
};

static void sched_free(struct sched *sc)
{
    free(sc->ch), free(sc->pstart), free(sc->pchoice), free(sc->owner), free(sc->queue);
}

static int sched_index(struct sched *sc, struct wx_error *err)
{
    const struct mdp *m = sc->x->m;
    uint64_t n = m->n_states;
    sc->ch = malloc(n * sizeof *sc->ch);
    sc->pstart = calloc(n + 2, sizeof *sc->pstart);
    sc->pchoice = malloc((m->n_entries ? m->n_entries : 1) * sizeof *sc->pchoice);
    sc->owner = malloc((m->n_choices ? m->n_choices : 1) * sizeof *sc->owner);
    sc->queue = malloc(n * sizeof *sc->queue);
    if (!sc->ch || !sc->pstart || !sc->pchoice || !sc->owner || !sc->queue)
        return oom(err);
    for (uint64_t s = 0; s < n; s++) {
        sc->ch[s] = -1;
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            sc->owner[c] = (uint32_t)s;
    }
    for (uint64_t e = 0; e < m->n_entries; e++)
        sc->pstart[m->targets[e] + 2]++;
    for (uint64_t t = 0; t < n; t++)
        sc->pstart[t + 2] += sc->pstart[t + 1];
    for (uint64_t c = 0; c < m->n_choices; c++)
        for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
            sc->pchoice[sc->pstart[m->targets[e] + 1]++] = c;
    return WX_OK;
}

/* Whether choice c of s joins the backward search of phase 0 (Pmax's S1
 * attractor: c stays inside S1) or 1 (a maybe state's optimal choice on v,
 * within the stopping tolerance). */
static int sched_good(const struct ctx *x, int phase, uint32_t s, uint64_t c, const double *v)
{
    const struct mdp *m = x->m;
    if (phase == 0) {
        if (x->cls[s] != CLS_YES)
            return 0;
        for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
            if (x->cls[m->targets[e]] != CLS_YES)
                return 0;
        return 1;
    }
    if (x->cls[s] != CLS_MAYBE || !x->ok[c])
        return 0;
    double eps = x->o->epsilon;
    double q = q_value(x, s, c, v), tol = x->o->relative ? eps * fabs(v[s]) : eps;
    return fabs(q - v[s]) <= tol + 1e-12;
}

/* The backward searches from the target: the chosen choices keep reaching
 * it (needed for Pmax and Rmin). */
static void sched_attract(struct sched *sc, const double *v)
{
    const struct ctx *x = sc->x;
    const struct mdp *m = x->m;
    uint64_t n = m->n_states, head = 0, tail = 0;
    /* seeds: the targets; for Pmax the S1 states then join by the Prob1E
     * attractor (choices that stay inside S1) */
    for (uint64_t s = 0; s < n; s++) {
        if (x->target[s] && (x->cls[s] == CLS_YES)) {
            if (m->state_start[s] < m->state_start[s + 1])
                sc->ch[s] = 0;
            sc->queue[tail++] = (uint32_t)s;
        }
    }
    for (int phase = 0; phase < 2; phase++) {
        if (phase == 1) {
            /* every S1 state is a seed of the maybe-state search; Pmin's S1
             * (and Pmax's S1 the attractor missed, none in theory) take
             * their first choice */
            head = tail = 0;
            for (uint64_t s = 0; s < n; s++)
                if (x->cls[s] == CLS_YES) {
                    if (sc->ch[s] < 0 && m->state_start[s] < m->state_start[s + 1])
                        sc->ch[s] = 0;
                    sc->queue[tail++] = (uint32_t)s;
                }
        } else if (x->p->kind != PROP_PMAX)
            continue;
        while (head < tail) {
            uint32_t t = sc->queue[head++];
            for (uint64_t i = sc->pstart[t]; i < sc->pstart[t + 1]; i++) {
                uint64_t c = sc->pchoice[i];
                uint32_t s = sc->owner[c];
                if (sc->ch[s] >= 0 || x->target[s])
                    continue;
                if (sched_good(x, phase, s, c, v)) {
                    sc->ch[s] = (int64_t)(c - m->state_start[s]);
                    sc->queue[tail++] = s;
                }
            }
        }
    }
}

/* Rmax's infinite states: a choice that misses the target with positive
 * probability: inside Z = Prob0E a choice that stays in Z, elsewhere the
 * first step of a path into Z (backward search from Z). */
static int sched_infinite(struct sched *sc, struct wx_error *err)
{
    const struct ctx *x = sc->x;
    const struct mdp *m = x->m;
    uint64_t n = m->n_states, head = 0, tail = 0;
    uint8_t *z = malloc(n);
    int rc = z ? valiter_precompute_cpu(m, NULL, x->target, VI_PMIN0, z, err) : oom(err);
    if (rc != WX_OK) {
        free(z);
        return rc;
    }
    for (uint64_t s = 0; s < n; s++) {
        if (!z[s])
            continue;
        sc->queue[tail++] = (uint32_t)s;
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            int stay = 1;
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1] && stay; e++)
                stay = z[m->targets[e]];
            if (stay) {
                sc->ch[s] = (int64_t)(c - m->state_start[s]);
                break;
            }
        }
    }
    while (head < tail) {
        uint32_t t = sc->queue[head++];
        for (uint64_t i = sc->pstart[t]; i < sc->pstart[t + 1]; i++) {
            uint64_t c = sc->pchoice[i];
            uint32_t s = sc->owner[c];
            if (z[s] || sc->ch[s] >= 0 || x->cls[s] != CLS_INF)
                continue;
            sc->ch[s] = (int64_t)(c - m->state_start[s]);
            sc->queue[tail++] = s;
        }
    }
    free(z);
    return WX_OK;
}

/* The states still without a choice: a maybe state's best usable choice on
 * v; Pmin's S0 a choice that stays in S0; else the first. */
static void sched_rest(struct sched *sc, const double *v)
{
    const struct ctx *x = sc->x;
    const struct mdp *m = x->m;
    int64_t *ch = sc->ch;
    for (uint64_t s = 0; s < m->n_states; s++) {
        uint64_t c0 = m->state_start[s], c1 = m->state_start[s + 1];
        if (ch[s] >= 0 || c0 == c1)
            continue;
        ch[s] = 0;
        if (x->cls[s] == CLS_MAYBE) { /* best usable choice */
            double best = 0;
            int have = 0;
            for (uint64_t c = c0; c < c1; c++) {
                if (!x->ok[c])
                    continue;
                double q = q_value(x, (uint32_t)s, c, v);
                if (!have || (x->maximize ? q > best : q < best)) {
                    best = q;
                    ch[s] = (int64_t)(c - c0);
                    have = 1;
                }
            }
        } else if (x->cls[s] == CLS_NO && x->p->kind == PROP_PMIN) {
            for (uint64_t c = c0; c < c1; c++) { /* stay in S0 */
                int stay = 1;
                for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1] && stay; e++)
                    stay = x->cls[m->targets[e]] == CLS_NO;
                if (stay) {
                    ch[s] = (int64_t)(c - c0);
                    break;
                }
            }
        }
    }
}

int mdpc_extract_scheduler(struct ctx *x, const double *v, struct mdpcheck_result *r,
                           struct wx_error *err)
{
    struct sched sc = {.x = x};
    int rc = sched_index(&sc, err);
    if (rc == WX_OK) {
        sched_attract(&sc, v);
        if (x->p->kind == PROP_RMAX && r->n_infinite)
            rc = sched_infinite(&sc, err);
    }
    if (rc != WX_OK) {
        sched_free(&sc);
        return rc;
    }
    sched_rest(&sc, v);
    r->choice = sc.ch;
    sc.ch = NULL;
    sched_free(&sc);
    return WX_OK;
}
