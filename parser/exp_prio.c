/*
 * exp_prio.c -- the builders of "prio" nodes for the EXP grammar
 * (parser/exp.y): label sets, rules X1 > X2 > ... and their release.
 * Each builder takes ownership of its arguments, also when it fails (NULL
 * or -1 means out of memory).
 */
#include "exp_int.h"

#include <stdlib.h>
#include <string.h>

static void set_clear(struct exp_prio_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->pats[i]);
    free(s->pats);
}

void exp_prio_rule_free(struct exp_prio_rule *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        set_clear(&r->sets[i]);
    free(r->sets);
    free(r);
}

void exp_prio_rules_clear(size_t n, struct exp_prio_rule *rules)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < rules[i].n; j++)
            set_clear(&rules[i].sets[j]);
        free(rules[i].sets);
    }
    free(rules);
}

/* Appends the set "[all but] l" to r (a new rule when r is NULL). */
struct exp_prio_rule *exp_prio_rule_push(struct exp_prio_rule *r, bool all_but,
                                         struct exp_strlist *l, int line, int col)
{
    if (!r && !(r = calloc(1, sizeof *r))) {
        exp_strlist_free(l);
        return NULL;
    }
    struct exp_prio_set *grown = realloc(r->sets, (r->n + 1) * sizeof *grown);
    if (!grown) {
        exp_strlist_free(l);
        exp_prio_rule_free(r);
        return NULL;
    }
    r->sets = grown;
    struct exp_prio_set *s = &r->sets[r->n++];
    s->all_but = all_but;
    s->loc.line = line;
    s->loc.col = col;
    exp_strlist_take(l, &s->n, &s->pats);
    return r;
}

/* Appends the one set of `one` to r; NULL (both freed) when out of memory. */
struct exp_prio_rule *exp_prio_rule_join(struct exp_prio_rule *r, struct exp_prio_rule *one)
{
    struct exp_prio_set *grown = realloc(r->sets, (r->n + 1) * sizeof *grown);
    if (!grown) {
        exp_prio_rule_free(r);
        exp_prio_rule_free(one);
        return NULL;
    }
    r->sets = grown;
    r->sets[r->n++] = one->sets[0];
    free(one->sets);
    free(one);
    return r;
}

/* The first pattern written in both an earlier and a later set of r, where
 * neither is "all but" (a label above itself), or NULL. */
const char *exp_prio_rule_self(const struct exp_prio_rule *r)
{
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = i + 1; j < r->n; j++) {
            if (r->sets[i].all_but || r->sets[j].all_but)
                continue;
            for (size_t a = 0; a < r->sets[i].n; a++)
                for (size_t b = 0; b < r->sets[j].n; b++)
                    if (!strcmp(r->sets[i].pats[a], r->sets[j].pats[b]))
                        return r->sets[i].pats[a];
        }
    return NULL;
}

/* Moves rule r (a single set is no rule: the caller checks r->n >= 2) into
 * the prio node n. */
int exp_prio_node_push(struct exp_node *n, struct exp_prio_rule *r)
{
    struct exp_prio_rule *grown = realloc(n->prio, (n->n_prio + 1) * sizeof *grown);
    if (!grown) {
        exp_prio_rule_free(r);
        return -1;
    }
    n->prio = grown;
    n->prio[n->n_prio++] = *r;
    free(r);
    return 0;
}

/* r > one (one a rule of one set): the joined rule, or NULL after recording
 * the error (out of memory, or a label written on both sides of a '>' at
 * line:col). */
struct exp_prio_rule *exp_prio_chain(struct exp_pstate *ps, struct exp_prio_rule *r,
                                     struct exp_prio_rule *one, int line, int col)
{
    if (!(r = exp_prio_rule_join(r, one))) {
        exp_poom(ps, line, col);
        return NULL;
    }
    const char *self = exp_prio_rule_self(r);
    if (self) {
        exp_perr(ps, line, col, "label '%s' cannot have priority over itself", self);
        exp_prio_rule_free(r);
        return NULL;
    }
    return r;
}
