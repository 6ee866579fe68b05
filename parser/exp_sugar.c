/*
 * exp_sugar.c -- the CCS, CSP and mCRL operators of EXP 2.0 expressed with
 * the generic nodes (hide, cut, rename, general par) where their meaning is
 * exactly one of those, and the binary communication node (EXP_PAR_COMM)
 * where it is not.  docs/formats.md states each equivalence.
 *
 * Labels written in these operators are names, not patterns: they become
 * POSIX basic regular expressions that match exactly that text (escape),
 * and replacement templates that produce exactly that text (tmpl).
 */
#include "exp_int.h"

#include <stdlib.h>
#include <string.h>

/* The text s as a basic regular expression matching only s. */
static char *escape(const char *s)
{
    size_t n = strlen(s), k = 0;
    char *d = malloc(2 * n + 1);
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (strchr(".[]\\*^$", s[i]))
            d[k++] = '\\';
        d[k++] = s[i];
    }
    d[k] = '\0';
    return d;
}

/* The text s as a rename template producing s. */
static char *tmpl(const char *s)
{
    size_t n = strlen(s), k = 0;
    char *d = malloc(2 * n + 1);
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' || s[i] == '&')
            d[k++] = '\\';
        d[k++] = s[i];
    }
    d[k] = '\0';
    return d;
}

char *exp_ccs_coname(const char *label)
{
    if (label[0] == '\'')
        return exp_strndup(label + 1, strlen(label) - 1);
    size_t n = strlen(label);
    char *d = malloc(n + 2);
    if (d) {
        d[0] = '\'';
        memcpy(d + 1, label, n + 1);
    }
    return d;
}

/* A gate-mode hide/cut node over body with the escaped labels of ls (and
 * their co-names when `conames`). */
static struct exp_node *match_node(enum exp_kind kind, struct exp_node *body,
                                   struct exp_strlist *ls, bool conames, int line, int col)
{
    struct exp_node *n = exp_node_new(kind, line, col);
    struct exp_strlist *pats = exp_strlist_new();
    bool ok = n && pats;
    for (size_t i = 0; ok && i < ls->n; i++) {
        char *co = conames ? exp_ccs_coname(ls->v[i]) : NULL;
        char *e = escape(ls->v[i]), *ec = co ? escape(co) : NULL;
        free(co);
        if (!e || (conames && !ec)) {
            free(e);
            free(ec);
            ok = false;
            break;
        }
        ok = exp_strlist_push(pats, e) == 0; /* consumes e */
        if (conames)
            ok = ok ? exp_strlist_push(pats, ec) == 0 : (free(ec), false);
    }
    exp_strlist_free(ls);
    if (!ok) {
        exp_strlist_free(pats);
        exp_node_free(n);
        exp_node_free(body);
        return NULL;
    }
    exp_strlist_take(pats, &n->n_pats, &n->pats);
    n->body = body;
    return n;
}

struct exp_node *exp_ccs_restrict(struct exp_node *body, struct exp_strlist *ls,
                                  int line, int col)
{
    return match_node(EXP_CUT, body, ls, true, line, col);
}

struct exp_node *exp_csp_hide(struct exp_node *body, struct exp_strlist *ls,
                              int line, int col)
{
    return match_node(EXP_HIDE, body, ls, false, line, col);
}

/* A gate-mode rename of old[i] to new[i] (and of their co-names). */
static struct exp_node *rename_node(struct exp_node *body, char **old, char **new_,
                                    size_t n, bool conames, int line, int col)
{
    struct exp_node *r = exp_node_new(EXP_RENAME, line, col);
    struct exp_pairlist *p = exp_pairlist_new();
    bool ok = r && p;
    for (size_t i = 0; ok && i < n; i++) {
        ok = exp_pairlist_push(p, escape(old[i]), tmpl(new_[i])) == 0;
        if (ok && conames) {
            char *co = exp_ccs_coname(old[i]), *cn = exp_ccs_coname(new_[i]);
            ok = co && cn && exp_pairlist_push(p, escape(co), tmpl(cn)) == 0;
            free(co);
            free(cn);
        }
    }
    for (size_t i = 0; ok && i < p->l.n; i++)
        ok = p->l.v[i] && p->r.v[i];
    if (!ok) {
        exp_pairlist_free(p);
        exp_node_free(r);
        exp_node_free(body);
        return NULL;
    }
    r->n_pats = p->l.n;
    r->pats = p->l.v;
    r->repls = p->r.v;
    free(p);
    r->body = body;
    return r;
}

struct exp_node *exp_ccs_relabel(struct exp_node *body, struct exp_pairlist *p,
                                 int line, int col)
{
    struct exp_node *n = rename_node(body, p->r.v, p->l.v, p->l.n, true, line, col);
    exp_pairlist_free(p);
    return n;
}

struct exp_node *exp_csp_rename(struct exp_node *body, struct exp_pairlist *p,
                                int line, int col)
{
    struct exp_node *n = rename_node(body, p->l.v, p->r.v, p->l.n, false, line, col);
    exp_pairlist_free(p);
    return n;
}

static bool listed(const struct exp_strlist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return true;
    return false;
}

static struct exp_strlist *copy_list(const struct exp_strlist *l)
{
    struct exp_strlist *c = exp_strlist_new();
    for (size_t i = 0; c && i < l->n; i++) {
        char *d = exp_strndup(l->v[i], strlen(l->v[i]));
        if (!d || exp_strlist_push(c, d) < 0) {
            exp_strlist_free(c);
            return NULL;
        }
    }
    return c;
}

int exp_csp_alpha_par(struct exp_node *p, struct exp_strlist *a, struct exp_strlist *b,
                      struct exp_node *l, struct exp_node *r)
{
    int line = p->loc.line, col = p->loc.col;
    bool ok = true;
    for (size_t i = 0; ok && i < a->n; i++) {
        if (listed(b, a->v[i])) {
            char *d = exp_strndup(a->v[i], strlen(a->v[i]));
            ok = d && exp_iface_push(&p->global, d, -1, line, col) == 0;
        }
    }
    struct exp_strlist *ca = ok ? copy_list(a) : NULL, *cb = ok ? copy_list(b) : NULL;
    exp_strlist_free(a);
    exp_strlist_free(b);
    struct exp_node *cl = ca ? match_node(EXP_CUT, l, ca, false, line, col) : NULL;
    if (!ca)
        exp_node_free(l);
    struct exp_node *cr = cb ? match_node(EXP_CUT, r, cb, false, line, col) : NULL;
    if (!cb)
        exp_node_free(r);
    if (!cl || !cr) {
        exp_node_free(cl);
        exp_node_free(cr);
        return -1;
    }
    cl->all_but = cr->all_but = true;
    cl->keep_term = cr->keep_term = true; /* it synchronises, as in every par */
    p->ops = calloc(2, sizeof *p->ops);
    p->locals = calloc(2, sizeof *p->locals);
    p->has_local = calloc(2, sizeof *p->has_local);
    if (!p->ops || !p->locals || !p->has_local) {
        exp_node_free(cl);
        exp_node_free(cr);
        return -1;
    }
    p->n_ops = 2;
    p->ops[0] = cl;
    p->ops[1] = cr;
    return 0;
}

static char **copy_strs(char *const *v, size_t n, bool *ok)
{
    char **c = calloc(n ? n : 1, sizeof *c);
    *ok = *ok && c;
    for (size_t i = 0; *ok && i < n; i++)
        *ok = (c[i] = exp_strndup(v[i], strlen(v[i]))) != NULL;
    return c;
}

struct exp_node *exp_comm_par(bool ccs, const struct exp_pairlist *comm,
                              const struct exp_strlist *res,
                              struct exp_node *l, struct exp_node *r, int line, int col)
{
    struct exp_node *n = exp_node_new(EXP_PAR_COMM, line, col);
    bool ok = n && (n->ops = calloc(2, sizeof *n->ops)) != NULL;
    if (ok && !ccs && comm) {
        n->n_pats = comm->l.n;
        n->pats = copy_strs(comm->l.v, comm->l.n, &ok);
        n->repls = copy_strs(comm->r.v, comm->r.n, &ok);
        n->comm_res = copy_strs(res->v, res->n, &ok);
    }
    if (!ok) {
        exp_node_free(n);
        exp_node_free(l);
        exp_node_free(r);
        return NULL;
    }
    n->ccs = ccs;
    n->n_ops = 2;
    n->ops[0] = l;
    n->ops[1] = r;
    return n;
}
