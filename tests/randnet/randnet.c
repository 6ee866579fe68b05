/*
 * randnet.c -- random EXP networks (see randnet.h).
 *
 * Test code: allocation failure aborts (rn_xmalloc), which is acceptable in
 * a test program and keeps the generator readable.
 *
 * "avoid_ambiguous" keeps the generator where the semantics texts are
 * explicit, so that a disagreement with the pipeline is a bug and not a
 * reading: no hide/cut/rename pattern that matches the hidden label or the
 * termination label, no "cut all but" (would it cut hidden steps?), no
 * "all but" above a termination label, no vector par over an operand that
 * can terminate ("exit" in vectors is not described), no global and local
 * interface naming the same label, local elements listed by enough
 * operands.  Without it those constructs are drawn too, and the oracle's
 * documented choices (naive.h) decide.  Always: no L#0 beside another
 * element for L (exp.open warns, warpex rejects it).
 */
#include "randnet.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ utilities */

static void *rn_xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p)
        abort();
    return p;
}

static void *rn_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        abort();
    return q;
}

static char *rn_strdup(const char *s)
{
    size_t n = strlen(s);
    char *c = rn_xmalloc(n + 1);
    memcpy(c, s, n + 1);
    return c;
}

/* splitmix64: small, good enough, and fully determined by the seed */
struct rng { uint64_t s; };

static uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(struct rng *r, uint32_t n)
{
    return n ? (uint32_t)(rng_next(r) % n) : 0;
}

/* true with probability pct % */
static bool rng_pct(struct rng *r, uint32_t pct)
{
    return rng_below(r, 100) < pct;
}

/* ---------------------------------------------------- tree construction */

static struct exp_node *node_new(enum exp_kind k)
{
    struct exp_node *n = rn_xmalloc(sizeof *n);
    n->kind = k;
    n->loc.line = n->loc.col = 1;
    return n;
}

struct exp_node *rn_leaf(const char *path)
{
    struct exp_node *n = node_new(EXP_LEAF);
    n->path = rn_strdup(path);
    return n;
}

static struct exp_node *rn_unary(enum exp_kind k, enum exp_mode mode, bool all_but, size_t n,
                                 const char *const *pats, const char *const *repls,
                                 struct exp_node *body)
{
    struct exp_node *e = node_new(k);
    e->mode = mode;
    e->all_but = all_but;
    e->n_pats = n;
    e->pats = rn_xmalloc(n * sizeof *e->pats);
    if (repls)
        e->repls = rn_xmalloc(n * sizeof *e->repls);
    for (size_t i = 0; i < n; i++) {
        e->pats[i] = rn_strdup(pats[i]);
        if (repls)
            e->repls[i] = rn_strdup(repls[i]);
    }
    e->body = body;
    return e;
}

struct exp_node *rn_hide(enum exp_mode mode, bool all_but, size_t n, const char *const *pats,
                         struct exp_node *body)
{
    return rn_unary(EXP_HIDE, mode, all_but, n, pats, NULL, body);
}

struct exp_node *rn_cut(enum exp_mode mode, bool all_but, size_t n, const char *const *pats,
                        struct exp_node *body)
{
    return rn_unary(EXP_CUT, mode, all_but, n, pats, NULL, body);
}

struct exp_node *rn_rename(enum exp_mode mode, size_t n, const char *const *lhs,
                           const char *const *rhs, struct exp_node *body)
{
    return rn_unary(EXP_RENAME, mode, false, n, lhs, rhs, body);
}

struct exp_node *rn_prio(enum exp_mode mode, struct exp_node *body)
{
    struct exp_node *e = node_new(EXP_PRIO);
    e->mode = mode;
    e->body = body;
    return e;
}

void rn_add_prio_rule(struct exp_node *prio)
{
    prio->prio = rn_xrealloc(prio->prio, (prio->n_prio + 1) * sizeof *prio->prio);
    prio->prio[prio->n_prio++] = (struct exp_prio_rule){ 0 };
}

void rn_add_prio_set(struct exp_node *prio, bool all_but, size_t n, const char *const *pats)
{
    struct exp_prio_rule *r = &prio->prio[prio->n_prio - 1];
    r->sets = rn_xrealloc(r->sets, (r->n + 1) * sizeof *r->sets);
    struct exp_prio_set *x = &r->sets[r->n++];
    *x = (struct exp_prio_set){ .all_but = all_but, .n = n, .loc = { 1, 1 } };
    x->pats = rn_xmalloc(n * sizeof *x->pats);
    for (size_t i = 0; i < n; i++)
        x->pats[i] = rn_strdup(pats[i]);
}

static struct exp_node *rn_par(enum exp_kind k, bool label_mode, size_t n_ops,
                               struct exp_node *const *ops)
{
    struct exp_node *e = node_new(k);
    e->label_mode = label_mode;
    e->n_ops = n_ops;
    e->ops = rn_xmalloc(n_ops * sizeof *e->ops);
    for (size_t i = 0; i < n_ops; i++)
        e->ops[i] = ops[i];
    if (k == EXP_PAR_GENERAL) {
        e->locals = rn_xmalloc(n_ops * sizeof *e->locals);
        e->has_local = rn_xmalloc(n_ops * sizeof *e->has_local);
    }
    return e;
}

struct exp_node *rn_par_vectors(bool label_mode, size_t n_ops, struct exp_node *const *ops)
{
    return rn_par(EXP_PAR_VECTORS, label_mode, n_ops, ops);
}

void rn_add_vector(struct exp_node *par, const char *const *comps, const char *result)
{
    par->vecs = rn_xrealloc(par->vecs, (par->n_vecs + 1) * sizeof *par->vecs);
    struct exp_vector *v = &par->vecs[par->n_vecs++];
    memset(v, 0, sizeof *v);
    v->n = par->n_ops;
    v->comp = rn_xmalloc(v->n * sizeof *v->comp);
    for (size_t i = 0; i < v->n; i++)
        v->comp[i] = comps[i] ? rn_strdup(comps[i]) : NULL;
    v->result = rn_strdup(result);
    v->loc.line = v->loc.col = 1;
}

struct exp_node *rn_par_general(bool label_mode, bool all, size_t n_ops,
                                struct exp_node *const *ops)
{
    struct exp_node *e = rn_par(EXP_PAR_GENERAL, label_mode, n_ops, ops);
    e->global_all = all;
    return e;
}

static void iface_add(struct exp_iface *f, const char *label, int degree)
{
    f->el = rn_xrealloc(f->el, (f->n + 1) * sizeof *f->el);
    struct exp_sync_el *s = &f->el[f->n++];
    s->label = rn_strdup(label);
    s->degree = degree;
    s->loc.line = s->loc.col = 1;
}

void rn_add_global(struct exp_node *par, const char *label, int degree)
{
    iface_add(&par->global, label, degree);
}

void rn_add_local(struct exp_node *par, size_t op, const char *label, int degree)
{
    par->has_local[op] = true;
    iface_add(&par->locals[op], label, degree);
}

struct exp_node *rn_lotos_sync(struct exp_node *a, struct exp_node *b)
{
    struct exp_node *ops[2] = { a, b };
    return rn_par_general(false, true, 2, ops);
}

struct exp_node *rn_lotos_interleave(struct exp_node *a, struct exp_node *b)
{
    struct exp_node *ops[2] = { a, b };
    return rn_par_general(false, false, 2, ops);
}

struct exp_node *rn_lotos_par(size_t n, const char *const *gates, struct exp_node *a,
                              struct exp_node *b)
{
    struct exp_node *ops[2] = { a, b };
    struct exp_node *e = rn_par_general(false, false, 2, ops);
    for (size_t i = 0; i < n; i++)
        rn_add_global(e, gates[i], -1);
    return e;
}

static void iface_free(struct exp_iface *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->el[i].label);
    free(f->el);
}

void rn_free(struct exp_node *n)
{
    if (!n)
        return;
    free(n->path);
    for (size_t i = 0; i < n->n_pats; i++) {
        free(n->pats[i]);
        if (n->repls)
            free(n->repls[i]);
    }
    for (size_t i = 0; n->comm_res && i < n->n_pats; i++)
        free(n->comm_res[i]);
    free(n->pats);
    free(n->repls);
    free(n->comm_res);
    for (size_t r = 0; r < n->n_prio; r++) {
        for (size_t i = 0; i < n->prio[r].n; i++) {
            for (size_t k = 0; k < n->prio[r].sets[i].n; k++)
                free(n->prio[r].sets[i].pats[k]);
            free(n->prio[r].sets[i].pats);
        }
        free(n->prio[r].sets);
    }
    free(n->prio);
    rn_free(n->body);
    for (size_t v = 0; v < n->n_vecs; v++) {
        for (size_t i = 0; i < n->vecs[v].n; i++)
            free(n->vecs[v].comp[i]);
        free(n->vecs[v].comp);
        free(n->vecs[v].result);
    }
    free(n->vecs);
    iface_free(&n->global);
    for (size_t i = 0; i < n->n_ops; i++) {
        rn_free(n->ops[i]);
        if (n->locals)
            iface_free(&n->locals[i]);
    }
    free(n->ops);
    free(n->locals);
    free(n->has_local);
    free(n);
}

/* -------------------------------------------------------------- printing */

struct sb { char *s; size_t n, cap; };

/* Printing context: the style generator, and the subtrees that are printed
 * as an included "x.exp" leaf (randnet only; `self` is the subtree whose own
 * file is being printed). */
struct pctx {
    struct rng r;
    size_t n_incl;
    const struct exp_node *const *incl;
    char *const *incl_names;
    const struct exp_node *self;
    bool lower;          /* write operator labels in lower case */
};

static void sb_put(struct sb *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->s = rn_xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

static void sb_str(struct sb *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3)))
static void sb_fmt(struct sb *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    sb_str(b, tmp);
}

static const char *const rn_keywords[] = {
    "all", "behavior", "behaviour", "but", "ccs", "comm", "csp", "cut", "elotos", "end",
    "gate", "hide", "in", "label", "lotos", "mcrl", "multiple", "par", "partial", "prio",
    "rename", "single", "total", "using", NULL
};

static bool is_idf(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')) ||
        s[n - 1] == '_')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    for (size_t k = 0; rn_keywords[k]; k++)
        if (strcmp(s, rn_keywords[k]) == 0)
            return false;
    return true;
}

/* A label / pattern / file name: IDF when allowed and the style says so,
 * else a string literal.  Backslashes are written raw (kept by the lexer
 * because \(, \), \1, \{ are no ANSI-C escapes) or doubled. */
static void print_label(struct sb *b, struct pctx *st, const char *s0)
{
    char low[512];
    const char *s = s0;
    if (st->lower) {
        size_t i = 0;
        for (; s0[i] && i + 1 < sizeof low; i++)
            low[i] = (char)tolower((unsigned char)s0[i]);
        low[i] = 0;
        s = low;
    }
    if (is_idf(s) && rng_pct(&st->r, 60)) {
        sb_str(b, s);
        return;
    }
    bool dbl = rng_pct(&st->r, 50);
    sb_str(b, "\"");
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            sb_str(b, "\\\"");
        else if (*p == '\\' && (dbl || strchr("abfrtv\\'\"?", p[1])))
            sb_str(b, "\\\\");
        else
            sb_put(b, p, 1);
    }
    sb_str(b, "\"");
}

static void print_list(struct sb *b, struct pctx *st, size_t n, char *const *l)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_str(b, rng_pct(&st->r, 50) ? ", " : ",");
        print_label(b, st, l[i]);
    }
}

static void print_iface(struct sb *b, struct pctx *st, const struct exp_iface *f)
{
    for (size_t i = 0; i < f->n; i++) {
        if (i)
            sb_str(b, ", ");
        print_label(b, st, f->el[i].label);
        if (f->el[i].degree >= 0)
            sb_fmt(b, rng_pct(&st->r, 50) ? "#%d" : " # %d", f->el[i].degree);
    }
}

static const char *mode_word(enum exp_mode m)
{
    switch (m) {
    case EXP_MODE_TOTAL: return "total";
    case EXP_MODE_PARTIAL: return "partial";
    case EXP_MODE_SINGLE: return "single";
    case EXP_MODE_MULTIPLE: return "multiple";
    default: return "gate";
    }
}

static void print_node(struct sb *b, struct pctx *st, const struct exp_node *n, int indent);
static bool print_sugar(struct sb *b, struct pctx *st, const struct exp_node *n, int indent);

static void nl(struct sb *b, int indent)
{
    sb_str(b, "\n");
    for (int i = 0; i < indent; i++)
        sb_str(b, "  ");
}

/* An operand inside par / LOTOS operators: parenthesised when it would print
 * as a LOTOS infix operator or a LOTOS hide (or just by style). */
static void print_operand(struct sb *b, struct pctx *st, const struct exp_node *n, int indent)
{
    bool paren = n->kind == EXP_PAR_GENERAL || n->kind == EXP_HIDE || rng_pct(&st->r, 10);
    if (paren)
        sb_str(b, "(");
    print_node(b, st, n, indent);
    if (paren)
        sb_str(b, ")");
}

static void print_node(struct sb *b, struct pctx *st, const struct exp_node *n, int indent)
{
    for (size_t i = 0; i < st->n_incl; i++) {
        if (st->incl[i] == n && n != st->self) {
            sb_str(b, "\"");
            sb_str(b, st->incl_names[i]);
            sb_str(b, "\"");
            return;
        }
    }
    if (print_sugar(b, st, n, indent))
        return;
    switch (n->kind) {
    case EXP_PAR_COMM: /* only with a form (randsugar.c) */
        return;
    case EXP_PRIO:
        if (n->mode != EXP_MODE_GATE || rng_pct(&st->r, 30)) {
            sb_str(b, mode_word(n->mode));
            sb_str(b, " ");
        }
        sb_str(b, "prio");
        for (size_t r = 0; r < n->n_prio; r++) {
            nl(b, indent + 1);
            for (size_t i = 0; i < n->prio[r].n; i++) {
                if (i)
                    sb_str(b, " > ");
                if (n->prio[r].sets[i].all_but)
                    sb_str(b, "all but ");
                print_list(b, st, n->prio[r].sets[i].n, n->prio[r].sets[i].pats);
            }
        }
        nl(b, indent);
        sb_str(b, "in");
        nl(b, indent + 1);
        print_operand(b, st, n->body, indent + 1);
        nl(b, indent);
        sb_str(b, "end prio");
        return;
    case EXP_LEAF: {
        size_t l = strlen(n->path);
        bool aut = l > 4 && strcmp(n->path + l - 4, ".aut") == 0;
        char base[512];
        snprintf(base, sizeof base, "%.*s", (int)(aut ? l - 4 : l), n->path);
        uint32_t r = rng_below(&st->r, 10);
        if (aut && is_idf(base) && r < 2)
            sb_str(b, base);                    /* extension-less IDF */
        else if (aut && is_idf(base) && r < 4)
            sb_str(b, n->path);                 /* IDF.aut */
        else {
            sb_str(b, "\"");
            sb_str(b, n->path);
            sb_str(b, "\"");
        }
        return;
    }
    case EXP_HIDE:
    case EXP_CUT:
        if (n->kind == EXP_HIDE && n->mode == EXP_MODE_GATE && !n->all_but && n->n_pats > 0 &&
            rng_pct(&st->r, 40)) {
            /* LOTOS hide: its body extends right, so the caller's parentheses
             * (print_operand) or ours close it */
            sb_str(b, "(hide ");
            print_list(b, st, n->n_pats, n->pats);
            sb_str(b, " in");
            nl(b, indent + 1);
            print_operand(b, st, n->body, indent + 1);
            sb_str(b, rng_pct(&st->r, 30) ? " end hide)" : ")");
            return;
        }
        if (n->mode != EXP_MODE_GATE || rng_pct(&st->r, 30)) {
            sb_str(b, mode_word(n->mode));
            sb_str(b, " ");
        }
        sb_str(b, n->kind == EXP_HIDE ? "hide " : "cut ");
        if (n->all_but)
            sb_str(b, "all but ");
        print_list(b, st, n->n_pats, n->pats);
        sb_str(b, " in");
        nl(b, indent + 1);
        print_operand(b, st, n->body, indent + 1);
        nl(b, indent);
        sb_str(b, n->kind == EXP_HIDE ? "end hide" : "end cut");
        return;
    case EXP_RENAME:
        if (n->mode != EXP_MODE_GATE || rng_pct(&st->r, 30)) {
            sb_str(b, mode_word(n->mode));
            sb_str(b, " ");
        }
        sb_str(b, "rename ");
        for (size_t i = 0; i < n->n_pats; i++) {
            if (i)
                sb_str(b, ", ");
            print_label(b, st, n->pats[i]);
            sb_str(b, " -> ");
            print_label(b, st, n->repls[i]);
        }
        sb_str(b, " in");
        nl(b, indent + 1);
        print_operand(b, st, n->body, indent + 1);
        nl(b, indent);
        sb_str(b, "end rename");
        return;
    case EXP_PAR_VECTORS: {
        if (n->label_mode)
            sb_str(b, "label ");
        else if (rng_pct(&st->r, 30))
            sb_str(b, "gate ");
        sb_str(b, "par using");
        bool star = rng_pct(&st->r, 70);
        for (size_t v = 0; v < n->n_vecs; v++) {
            nl(b, indent + 1);
            for (size_t k = 0; k < n->vecs[v].n; k++) {
                if (k)
                    sb_str(b, star ? " * " : " || ");
                if (n->vecs[v].comp[k])
                    print_label(b, st, n->vecs[v].comp[k]);
                else
                    sb_str(b, "_");
            }
            sb_str(b, " -> ");
            print_label(b, st, n->vecs[v].result);
            if (v + 1 < n->n_vecs)
                sb_str(b, ",");
        }
        nl(b, indent);
        sb_str(b, "in");
        for (size_t k = 0; k < n->n_ops; k++) {
            nl(b, indent + 1);
            if (k)
                sb_str(b, "|| ");
            print_operand(b, st, n->ops[k], indent + 2);
        }
        nl(b, indent);
        sb_str(b, "end par");
        return;
    }
    case EXP_PAR_GENERAL: {
        bool locals = false;
        for (size_t k = 0; k < n->n_ops; k++)
            locals |= n->has_local && n->has_local[k];
        bool plain = true;
        for (size_t i = 0; i < n->global.n; i++)
            plain &= n->global.el[i].degree < 0;
        if (!n->label_mode && n->n_ops == 2 && !locals && plain &&
            !(n->global_all && n->global.n) && rng_pct(&st->r, 60)) {
            /* LOTOS infix form; the caller parenthesises us */
            print_operand(b, st, n->ops[0], indent);
            nl(b, indent);
            if (n->global_all)
                sb_str(b, "|| ");
            else if (n->global.n == 0)
                sb_str(b, "||| ");
            else {
                sb_str(b, "|[");
                for (size_t i = 0; i < n->global.n; i++) {
                    if (i)
                        sb_str(b, ", ");
                    print_label(b, st, n->global.el[i].label);
                }
                sb_str(b, "]| ");
            }
            print_operand(b, st, n->ops[1], indent);
            return;
        }
        if (n->label_mode)
            sb_str(b, "label ");
        else if (rng_pct(&st->r, 30))
            sb_str(b, "gate ");
        sb_str(b, "par");
        if (n->global_all) {
            sb_str(b, " all in");
        } else if (n->global.n) {
            sb_str(b, " ");
            print_iface(b, st, &n->global);
            sb_str(b, " in");
        }
        for (size_t k = 0; k < n->n_ops; k++) {
            nl(b, indent + 1);
            if (k)
                sb_str(b, "|| ");
            if (n->has_local && n->has_local[k]) {
                print_iface(b, st, &n->locals[k]);
                sb_str(b, " -> ");
            }
            print_operand(b, st, n->ops[k], indent + 2);
        }
        nl(b, indent);
        sb_str(b, "end par");
        return;
    }
    }
}

char *rn_print(const struct exp_node *n, uint64_t style_seed)
{
    struct sb b = { 0 };
    struct pctx st = { .r = { style_seed } };
    print_node(&b, &st, n, 0);
    sb_str(&b, "\n");
    return b.s;
}

/* ------------------------------------------------------------- generator */

struct lset {                /* a set of label strings */
    size_t n;
    char **s;
};

static bool lset_has(const struct lset *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->s[i], s) == 0)
            return true;
    return false;
}

static void lset_add(struct lset *l, const char *s)
{
    if (lset_has(l, s))
        return;
    l->s = rn_xrealloc(l->s, (l->n + 1) * sizeof *l->s);
    l->s[l->n++] = rn_strdup(s);
}

static void lset_free(struct lset *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    memset(l, 0, sizeof *l);
}

/* Visible, non-stochastic labels: the ones worth naming in operators. */
static void lset_fn(void *ctx, const char *label, bool hidden, uint64_t count)
{
    if (!hidden && strncmp(label, "rate ", 5) != 0 && !strstr(label, "; rate "))
        lset_add(ctx, label);
}

static size_t gate_of(const char *s)
{
    size_t i = 0;
    while (s[i] && !strchr("!?( \t", s[i]))
        i++;
    return i;
}

/* keys (gates, or whole labels in label mode) of a label set */
static void lset_keys(const struct lset *l, bool label_mode, struct lset *out)
{
    for (size_t i = 0; i < l->n; i++) {
        if (label_mode) {
            lset_add(out, l->s[i]);
        } else {
            char g[256];
            snprintf(g, sizeof g, "%.*s", (int)gate_of(l->s[i]), l->s[i]);
            lset_add(out, g);
        }
    }
}

struct gen {
    struct rng r;
    struct randnet *rn;
    const struct randnet_params *p;
    uint32_t limit;          /* states bound for subtree explorations */
    bool failed;             /* a subtree was too large: start over */
};

static const char *const gates_u[] = { "a", "b", "c", "d" };
static const char *const offers_u[] = { "", " !1", " !2" };
static const char *const res_gates[] = { "a", "b", "c", "d", "x", "y" };

static char *random_label(struct rng *r, bool with_new)
{
    char buf[64];
    const char *g = with_new ? res_gates[rng_below(r, 6)] : gates_u[rng_below(r, 4)];
    snprintf(buf, sizeof buf, "%s%s", g, offers_u[rng_below(r, 3)]);
    return rn_strdup(buf);
}

/* A fresh component LTS; returns its index. */
static size_t new_comp(struct gen *g)
{
    struct rng *r = &g->r;
    struct randnet *rn = g->rn;
    struct naive_lts l = { 0 };
    /* mostly 1-6 states; rarely a larger one with a wide fan-out, so that a
     * (state, label) has more targets than one image entry holds */
    bool big = rng_pct(r, 4);
    l.n_states = big ? 8 + rng_below(r, 13) : 1 + rng_below(r, 6);
    l.initial = rng_pct(r, 30) ? rng_below(r, l.n_states) : 0;
    /* the component's own alphabet */
    char *alpha[8];
    size_t na = 0;
    bool offers = rng_pct(r, 50);
    size_t want = 2 + rng_below(r, 3);
    for (size_t i = 0; i < want; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s%s", gates_u[rng_below(r, 4)],
                 offers ? offers_u[rng_below(r, 3)] : "");
        alpha[na++] = rn_strdup(buf);
    }
    if (rng_pct(r, 50))
        alpha[na++] = rn_strdup(rn->hidden);
    if (strcmp(rn->hidden, "i") != 0 && rng_pct(r, 30))
        alpha[na++] = rn_strdup("i");          /* visible here */
    if (rn->rate && rng_pct(r, 50))
        alpha[na++] = rn_strdup(rng_pct(r, 50) ? "rate 0.5" : "b !1; rate 2");
    if (rng_pct(r, 8))
        alpha[na++] = rn_strdup("exit");
    if (rn->lang == EXP_LANG_LOTOS)          /* LOTOS gates are upper case */
        for (size_t i = 0; i < na; i++)
            if (strcmp(alpha[i], rn->hidden) != 0 && strcmp(alpha[i], "exit") != 0)
                for (char *c = alpha[i]; *c; c++)
                    *c = (char)toupper((unsigned char)*c);
    size_t cap = 128;
    l.src = rn_xmalloc(cap * sizeof *l.src);
    l.dst = rn_xmalloc(cap * sizeof *l.dst);
    l.label = rn_xmalloc(cap * sizeof *l.label);
#define ADD(S, L, D)                                                                      \
    do {                                                                                  \
        if (l.n_trans < cap) {                                                            \
            l.src[l.n_trans] = (S);                                                       \
            l.label[l.n_trans] = rn_strdup(L);                                            \
            l.dst[l.n_trans] = (D);                                                       \
            l.n_trans++;                                                                  \
        }                                                                                 \
    } while (0)
    for (uint32_t s = 0; s < l.n_states; s++) {
        uint32_t m = rng_pct(r, 12) ? 0 : 1 + rng_below(r, 3);
        for (uint32_t k = 0; k < m; k++)
            ADD(s, alpha[rng_below(r, (uint32_t)na)], rng_below(r, l.n_states));
    }
    if (l.n_states >= 3 && (big || rng_pct(r, 40))) {
        /* nondeterminism: one (state, label) with >= 3 targets */
        uint32_t s = rng_below(r, l.n_states);
        const char *lab = alpha[rng_below(r, (uint32_t)na)];
        uint32_t t0 = rng_below(r, l.n_states), nt = 3 + rng_below(r, l.n_states - 2);
        if (big)
            nt = l.n_states;
        for (uint32_t k = 0; k < nt && k < l.n_states; k++)
            ADD(s, lab, (t0 + k) % l.n_states);
    }
    if (l.n_trans > 0 && rng_pct(r, 15)) {
        size_t j = rng_below(r, (uint32_t)l.n_trans);
        ADD(l.src[j], l.label[j], l.dst[j]);   /* duplicate line */
    }
#undef ADD
    for (size_t i = 0; i < na; i++)
        free(alpha[i]);
    size_t c = rn->n_comps++;
    rn->comps = rn_xrealloc(rn->comps, rn->n_comps * sizeof *rn->comps);
    rn->comp_names = rn_xrealloc(rn->comp_names, rn->n_comps * sizeof *rn->comp_names);
    rn->comps[c] = l;
    char name[64];
    snprintf(name, sizeof name, "randnet_c%zu.aut", c);
    rn->comp_names[c] = rn_strdup(name);
    return c;
}

/* Visible labels a subtree really produces (explored alone). */
static void subtree_labels(struct gen *g, const struct exp_node *n, struct lset *out)
{
    struct naive_options o = { 0 };
    o.max_states = g->limit;
    o.hidden = g->rn->hidden;
    o.rate = g->rn->rate;
    o.lang = g->rn->lang;
    o.leaf = randnet_leaf;
    o.leaf_ctx = g->rn;
    o.label_fn = lset_fn;
    o.label_ctx = out;
    struct naive_result res;
    struct wx_error err;
    if (naive_explore(n, &o, &res, &err) != WX_OK)
        g->failed = true;
}

static bool re_matches(const char *pat, enum exp_mode mode, const char *label)
{
    regex_t re;
    if (regcomp(&re, pat, 0) != 0)
        return true;                      /* treat as "unsafe" */
    char subj[256];
    size_t len = strlen(label);
    if (mode == EXP_MODE_GATE)
        len = gate_of(label);
    snprintf(subj, sizeof subj, "%.*s", (int)len, label);
    regmatch_t m[1];
    bool hit;
    if (mode == EXP_MODE_PARTIAL || mode == EXP_MODE_SINGLE || mode == EXP_MODE_MULTIPLE)
        hit = regexec(&re, subj, 1, m, 0) == 0;
    else
        hit = regexec(&re, subj, 1, m, 0) == 0 && m[0].rm_so == 0 &&
              (size_t)m[0].rm_eo == strlen(subj);
    regfree(&re);
    return hit;
}

/* A pattern for hide/cut/rename in `mode`, drawn from labels L. */
static char *random_pattern(struct rng *r, enum exp_mode mode, const struct lset *L)
{
    static const char *const gate_re[] = { "[ab]", "[^a]", ".", "a*b", "[a-c]", "x*y", "[cd]" };
    static const char *const total_re[] = { "a .*", ".* !1", "[ab] !.", "[a-d]", ".*",
                                            "[a-y]*", "c\\( !2\\)*" };
    static const char *const part_re[] = { "!1", "a", "!", "[bc]", "1", "x" };
    char buf[256];
    if (L->n && rng_pct(r, 60)) {
        const char *s = L->s[rng_below(r, (uint32_t)L->n)];
        if (mode == EXP_MODE_GATE)
            snprintf(buf, sizeof buf, "%.*s", (int)gate_of(s), s);
        else if (mode == EXP_MODE_TOTAL)
            snprintf(buf, sizeof buf, "%s", s);
        else                                  /* a piece of a label */
            snprintf(buf, sizeof buf, "%s", strlen(s) > 2 && rng_pct(r, 50) ? s + 2 : s);
        return rn_strdup(buf);
    }
    if (mode == EXP_MODE_GATE)
        return rn_strdup(gate_re[rng_below(r, 7)]);
    if (mode == EXP_MODE_TOTAL)
        return rn_strdup(total_re[rng_below(r, 7)]);
    return rn_strdup(part_re[rng_below(r, 6)]);
}

/* A rename rule in `mode`; fills *lhs, *rhs. */
static void random_rule(struct rng *r, enum exp_mode mode, const struct lset *L, char **lhs,
                        char **rhs)
{
    static const char *const repl_g[] = { "x", "y", "a", "b", "c", "d" };
    switch (mode) {
    case EXP_MODE_GATE:
        switch (rng_below(r, 3)) {
        case 0:
            *lhs = random_pattern(r, mode, L);
            *rhs = rn_strdup(repl_g[rng_below(r, 6)]);
            return;
        case 1:
            *lhs = rn_strdup("\\([ab]\\)");
            *rhs = rn_strdup(rng_pct(r, 50) ? "\\1x" : "\\1\\1");
            return;
        default:
            *lhs = rn_strdup("[cd]");
            *rhs = rn_strdup("y");
            return;
        }
    case EXP_MODE_TOTAL:
        switch (rng_below(r, 3)) {
        case 0:
            *lhs = random_pattern(r, mode, L);
            *rhs = random_label(r, true);
            return;
        case 1:
            *lhs = rn_strdup("\\([a-d]\\) !\\([12]\\)");
            *rhs = rn_strdup(rng_pct(r, 50) ? "\\1 !\\2\\2" : "x !\\2");
            return;
        default:
            *lhs = rn_strdup("\\([a-d]\\)");
            *rhs = rn_strdup("\\1 !1");
            return;
        }
    case EXP_MODE_SINGLE: {
        static const char *const l[] = { "[12]", "a", "!1", "[a-d]", "b" };
        static const char *const rr[] = { "2", "bb", "!2", "x", "d !1" };
        uint32_t k = rng_below(r, 5);
        *lhs = rn_strdup(l[k]);
        *rhs = rn_strdup(rr[k]);
        return;
    }
    default: {
        static const char *const l[] = { "[ab]", "1", "[a-d]", "!", "\\([ab]\\)\\([cd]\\)" };
        static const char *const rr[] = { "c", "2", "z", "?", "\\2\\1" };
        uint32_t k = rng_below(r, 5);
        *lhs = rn_strdup(l[k]);
        *rhs = rn_strdup(rr[k]);
        return;
    }
    }
}

/* Is pattern set acceptable under avoid_ambiguous for operator kind k? */
static bool patterns_safe(const struct gen *g, enum exp_kind k, enum exp_mode mode,
                          size_t n, char *const *pats, const struct lset *L)
{
    if (!g->p->avoid_ambiguous)
        return true;
    for (size_t i = 0; i < n; i++) {
        char pat[256];                  /* as the reader folds it */
        snprintf(pat, sizeof pat, "%s", pats[i]);
        if (g->rn->lang == EXP_LANG_LOTOS)
            for (char *c = pat; *c; c++)
                *c = (char)toupper((unsigned char)*c);
        if (k != EXP_HIDE && re_matches(pat, mode, g->rn->hidden))
            return false;
        if (re_matches(pat, mode, "exit"))
            return false;
        for (size_t j = 0; j < L->n; j++)
            if (strncmp(L->s[j], "exit", 4) == 0 && gate_of(L->s[j]) == 4 &&
                re_matches(pat, mode, L->s[j]))
                return false;
    }
    return true;
}

static bool lset_has_exit(const struct lset *L)
{
    for (size_t i = 0; i < L->n; i++)
        if (gate_of(L->s[i]) == 4 && strncmp(L->s[i], "exit", 4) == 0)
            return true;
    return false;
}

/* Wraps n in a random hide / cut / rename; L = n's labels. */
static struct exp_node *wrap_unary(struct gen *g, struct exp_node *n, const struct lset *L)
{
    struct rng *r = &g->r;
    for (int attempt = 0; attempt < 8; attempt++) {
        uint32_t kind = rng_below(r, 100);
        enum exp_kind k = kind < 45 ? EXP_HIDE : kind < 85 ? EXP_RENAME : EXP_CUT;
        enum exp_mode mode;
        if (k == EXP_RENAME) {
            static const enum exp_mode rm[] = { EXP_MODE_GATE, EXP_MODE_TOTAL, EXP_MODE_SINGLE,
                                                EXP_MODE_MULTIPLE };
            mode = rm[rng_below(r, 4)];
        } else {
            static const enum exp_mode hm[] = { EXP_MODE_GATE, EXP_MODE_GATE, EXP_MODE_TOTAL,
                                                EXP_MODE_PARTIAL };
            mode = hm[rng_below(r, 4)];
        }
        bool all_but = k != EXP_RENAME && rng_pct(r, 20);
        if (all_but && g->p->avoid_ambiguous && (k == EXP_CUT || lset_has_exit(L)))
            all_but = false;
        size_t np = 1 + rng_below(r, 3);
        char *pats[3], *repls[3];
        for (size_t i = 0; i < np; i++) {
            if (k == EXP_RENAME)
                random_rule(r, mode, L, &pats[i], &repls[i]);
            else
                pats[i] = random_pattern(r, mode, L);
        }
        bool ok = patterns_safe(g, k, mode, np, pats, L);
        struct exp_node *res = NULL;
        if (ok) {
            if (k == EXP_RENAME)
                res = rn_rename(mode, np, (const char *const *)pats, (const char *const *)repls, n);
            else if (k == EXP_HIDE)
                res = rn_hide(mode, all_but, np, (const char *const *)pats, n);
            else
                res = rn_cut(mode, all_but, np, (const char *const *)pats, n);
        }
        for (size_t i = 0; i < np; i++) {
            free(pats[i]);
            if (k == EXP_RENAME)
                free(repls[i]);
        }
        if (res)
            return res;
    }
    return n;
}

static struct exp_node *gen_node(struct gen *g, uint32_t depth, uint32_t leaves,
                                 struct lset *labels);

static void pick_from(struct rng *r, const struct lset *L, bool label_mode, char *buf,
                      size_t size)
{
    if (L->n == 0 || rng_pct(r, 8)) {
        char *s = random_label(r, false);
        if (label_mode)
            snprintf(buf, size, "%s", s);
        else
            snprintf(buf, size, "%.*s", (int)gate_of(s), s);
        free(s);
        return;
    }
    const char *s = L->s[rng_below(r, (uint32_t)L->n)];
    if (label_mode)
        snprintf(buf, size, "%s", s);
    else
        snprintf(buf, size, "%.*s", (int)gate_of(s), s);
}

static struct exp_node *gen_vectors(struct gen *g, size_t k, struct exp_node **ops,
                                    struct lset *ls)
{
    struct rng *r = &g->r;
    bool label_mode = rng_pct(r, 50);
    struct exp_node *par = rn_par_vectors(label_mode, k, ops);
    /* drop termination labels from the choice (they cannot occur: see
     * avoid_ambiguous) */
    size_t nv = 1 + rng_below(r, 4);
    char bufs[8][64];
    const char *comps[8];
    for (size_t v = 0; v < nv; v++) {
        bool any = false;
        for (size_t i = 0; i < k; i++) {
            if (rng_pct(r, 55) || (!any && i + 1 == k)) {
                pick_from(r, &ls[i], label_mode, bufs[i], sizeof bufs[i]);
                comps[i] = bufs[i];
                any = true;
            } else {
                comps[i] = NULL;
            }
        }
        char res[64];
        if (label_mode && g->rn->lang != EXP_LANG_LOTOS && rng_pct(r, 5)) {
            snprintf(res, sizeof res, "%s", g->rn->hidden);
        } else {
            char *s = random_label(r, true);
            if (label_mode)
                snprintf(res, sizeof res, "%s", s);
            else
                snprintf(res, sizeof res, "%.*s", (int)gate_of(s), s);
            free(s);
        }
        rn_add_vector(par, comps, res);
    }
    /* single-participant vectors for most labels, so that operands move
     * (identity results mostly, sometimes a new name) */
    for (size_t i = 0; i < k; i++) {
        struct lset keys = { 0 };
        lset_keys(&ls[i], label_mode, &keys);
        for (size_t q = 0; q < keys.n; q++) {
            if (!rng_pct(r, 65))
                continue;
            for (size_t j = 0; j < k; j++)
                comps[j] = NULL;
            snprintf(bufs[i], sizeof bufs[i], "%s", keys.s[q]);
            comps[i] = bufs[i];
            rn_add_vector(par, comps, rng_pct(r, 80) ? bufs[i] : res_gates[rng_below(r, 6)]);
        }
        lset_free(&keys);
    }
    return par;
}

/* Does the global interface hold key#0? */
static bool global_zero(const struct exp_node *par, const char *key)
{
    for (size_t q = 0; q < par->global.n; q++)
        if (strcmp(par->global.el[q].label, key) == 0 && par->global.el[q].degree == 0)
            return true;
    return false;
}

static struct exp_node *gen_general(struct gen *g, size_t k, struct exp_node **ops,
                                    struct lset *ls)
{
    struct rng *r = &g->r;
    bool label_mode = rng_pct(r, 25);
    struct lset keys = { 0 };
    for (size_t i = 0; i < k; i++)
        lset_keys(&ls[i], label_mode, &keys);
    /* termination never in an interface */
    for (size_t i = 0; i < keys.n; i++)
        if (gate_of(keys.s[i]) == 4 && strncmp(keys.s[i], "exit", 4) == 0) {
            free(keys.s[i]);
            keys.s[i--] = keys.s[--keys.n];
        }
    uint32_t gr = rng_below(r, 100);
    struct exp_node *par = rn_par_general(label_mode, gr < 10, k, ops);
    struct lset used = { 0 };
    if (gr >= 10 && gr < 65 && keys.n) {
        size_t ne = 1 + rng_below(r, 3);
        for (size_t e = 0; e < ne; e++) {
            const char *key = keys.s[rng_below(r, (uint32_t)keys.n)];
            bool dup = lset_has(&used, key);
            int d = -1;
            if (rng_pct(r, 40) || dup) {
                d = 1 + (int)rng_below(r, (uint32_t)k);   /* 1 .. k */
                if (!dup && rng_pct(r, 8))
                    d = 0;
            }
            if (dup && global_zero(par, key))
                continue;      /* well-formed: no L#0 beside another L */
            rn_add_global(par, key, d);
            lset_add(&used, key);
        }
    }
    if (rng_pct(r, 35) && keys.n) {
        size_t nl_ = 1 + rng_below(r, 2);
        for (size_t e = 0; e < nl_; e++) {
            const char *key = keys.s[rng_below(r, (uint32_t)keys.n)];
            if (lset_has(&used, key) && (g->p->avoid_ambiguous || par->global_all ||
                                         global_zero(par, key)))
                continue;
            if (par->global_all && g->p->avoid_ambiguous)
                continue;
            lset_add(&used, key);
            int d = rng_pct(r, 50) ? -1 : (int)(1 + rng_below(r, (uint32_t)k));
            size_t listed = 0;
            for (size_t i = 0; i < k; i++) {
                if (rng_pct(r, 65)) {
                    rn_add_local(par, i, key, d);
                    listed++;
                }
            }
            /* well-formed: a local L in >= 2 interfaces, L#N in >= N */
            size_t need = g->p->avoid_ambiguous ? (d < 0 ? 2 : (size_t)d) : 1;
            for (size_t i = 0; listed < need && i < k; i++) {
                bool has = false;
                for (size_t q = 0; q < par->locals[i].n; q++)
                    has |= strcmp(par->locals[i].el[q].label, key) == 0;
                if (!has) {
                    rn_add_local(par, i, key, d);
                    listed++;
                }
            }
        }
    }
    lset_free(&keys);
    lset_free(&used);
    return par;
}

static struct exp_node *gen_node(struct gen *g, uint32_t depth, uint32_t leaves,
                                 struct lset *labels)
{
    struct rng *r = &g->r;
    struct exp_node *n;
    if (leaves <= 1 || depth >= g->p->max_depth) {
        size_t c;
        if (g->rn->n_comps > 0 && rng_pct(r, 15))
            c = rng_below(r, (uint32_t)g->rn->n_comps);   /* the same file again */
        else
            c = new_comp(g);
        n = rn_leaf(g->rn->comp_names[c]);
    } else {
        uint32_t kind = rng_below(r, 100);
        size_t k = 2 + rng_below(r, leaves < 4 ? leaves - 1 : 3);   /* 2 .. min(4, leaves) */
        if (kind < 10)
            k = 1;                                          /* one-operand vector par */
        bool vectors = kind < 45;
        struct exp_node *ops[4];
        struct lset ls[4] = { 0 };
        uint32_t left = leaves;
        for (size_t i = 0; i < k; i++) {
            uint32_t rest = (uint32_t)(k - i - 1);
            uint32_t share = i + 1 == k ? left : 1 + rng_below(r, left - rest);
            left -= share;
            ops[i] = gen_node(g, depth + 1, share, &ls[i]);
        }
        bool exit_op = false;
        for (size_t i = 0; i < k; i++)
            exit_op |= lset_has_exit(&ls[i]);
        if (k == 1 || (vectors && !(exit_op && g->p->avoid_ambiguous)))
            n = gen_vectors(g, k, ops, ls);
        else
            n = gen_general(g, k, ops, ls);
        for (size_t i = 0; i < k; i++)
            lset_free(&ls[i]);
    }
    if (n->kind != EXP_LEAF && rng_pct(r, 8)) {
        /* this subtree goes to its own file, included as "randnet_subK.exp" */
        struct randnet *rn = g->rn;
        rn->incl = rn_xrealloc(rn->incl, (rn->n_incl + 1) * sizeof *rn->incl);
        rn->incl_names = rn_xrealloc(rn->incl_names, (rn->n_incl + 1) * sizeof *rn->incl_names);
        char name[64];
        snprintf(name, sizeof name, "randnet_sub%zu.exp", rn->n_incl);
        rn->incl[rn->n_incl] = n;
        rn->incl_names[rn->n_incl++] = rn_strdup(name);
    }
    struct lset L = { 0 };
    subtree_labels(g, n, &L);
    for (int w = 0; w < 2 && !g->failed && rng_pct(r, 30); w++) {
        n = wrap_unary(g, n, &L);
        lset_free(&L);
        subtree_labels(g, n, &L);
    }
    *labels = L;
    return n;
}

/* ---- priorities ---- */

static bool exp_prio_rule_ok(const struct exp_node *p);

/* One side of a prio rule: 1-2 patterns drawn from L (sometimes the hidden
 * label), "all but" one time in seven. */
static void add_random_set(struct gen *g, struct exp_node *p, const struct lset *L)
{
    struct rng *r = &g->r;
    size_t np = 1 + rng_below(r, 2);
    char *pats[2];
    for (size_t i = 0; i < np; i++)
        pats[i] = p->mode != EXP_MODE_PARTIAL && rng_pct(r, 10) ? rn_strdup(g->rn->hidden)
                                                                 : random_pattern(r, p->mode, L);
    rn_add_prio_set(p, rng_pct(r, 14), np, (const char *const *)pats);
    for (size_t i = 0; i < np; i++)
        free(pats[i]);
}

/* Does the naive explorer accept tree n (an acyclic priority)? */
static bool prio_accepted(struct gen *g, const struct exp_node *n)
{
    struct naive_options o = { 0 };
    o.max_states = g->limit;
    o.hidden = g->rn->hidden;
    o.lang = g->rn->lang;
    o.leaf = randnet_leaf;
    o.leaf_ctx = g->rn;
    struct naive_result res;
    struct wx_error err;
    return naive_explore(n, &o, &res, &err) == WX_OK;
}

/* A prio over `body` (labels L) whose rules are acyclic on the body's
 * labels, or a cyclic one when `cyclic` (two labels of L above each other);
 * NULL when no acyclic draw was found. */
static struct exp_node *random_prio(struct gen *g, struct exp_node *body, const struct lset *L,
                                    bool cyclic)
{
    struct rng *r = &g->r;
    static const enum exp_mode pm[] = { EXP_MODE_GATE, EXP_MODE_GATE, EXP_MODE_TOTAL,
                                        EXP_MODE_PARTIAL };
    if (cyclic) {
        if (L->n < 2)
            return NULL;
        size_t a = rng_below(r, (uint32_t)L->n), b = (a + 1 + rng_below(r, (uint32_t)L->n - 1)) % L->n;
        struct exp_node *p = rn_prio(EXP_MODE_TOTAL, body);
        for (int k = 0; k < 2; k++) {
            rn_add_prio_rule(p);
            rn_add_prio_set(p, false, 1, (const char *const *)&L->s[k ? b : a]);
            rn_add_prio_set(p, false, 1, (const char *const *)&L->s[k ? a : b]);
        }
        return p;
    }
    for (int attempt = 0; attempt < 8; attempt++) {
        struct exp_node *p = rn_prio(pm[rng_below(r, 4)], body);
        size_t nr = 1 + rng_below(r, 3);
        for (size_t i = 0; i < nr; i++) {
            rn_add_prio_rule(p);
            size_t ns = 2 + (rng_pct(r, 25) ? 1 : 0);
            for (size_t k = 0; k < ns; k++)
                add_random_set(g, p, L);
        }
        bool ok = exp_prio_rule_ok(p) && prio_accepted(g, p);
        if (ok)
            return p;
        p->body = NULL;
        rn_free(p);
    }
    return NULL;
}

/* Does some rule name one pattern in two of its sets, neither "all but"
 * (the parser refuses that as a label above itself)? */
static bool exp_prio_rule_ok(const struct exp_node *p)
{
    for (size_t r = 0; r < p->n_prio; r++) {
        const struct exp_prio_rule *ru = &p->prio[r];
        for (size_t i = 0; i < ru->n; i++)
            for (size_t j = i + 1; j < ru->n; j++)
                for (size_t a = 0; !ru->sets[i].all_but && a < ru->sets[i].n; a++)
                    for (size_t b = 0; !ru->sets[j].all_but && b < ru->sets[j].n; b++)
                        if (strcmp(ru->sets[i].pats[a], ru->sets[j].pats[b]) == 0)
                            return false;
    }
    return true;
}

/* Labels the tree names though a reachable state may never show them:
 * every leaf label, on reachable states of its LTS or not, and every vector
 * result (gate mode: with each offers of the pool).  Prio patterns drawn
 * from these also name labels of a body's static alphabet that no reachable
 * state shows, and labels outside it. */
static void static_extras(const struct randnet *rn, const struct exp_node *n, struct lset *out)
{
    if (n->kind == EXP_LEAF) {
        for (size_t c = 0; c < rn->n_comps; c++)
            if (strcmp(rn->comp_names[c], n->path) == 0)
                for (size_t j = 0; j < rn->comps[c].n_trans; j++)
                    lset_fn(out, rn->comps[c].label[j],
                            strcmp(rn->comps[c].label[j], rn->hidden) == 0, 1);
        return;
    }
    for (size_t v = 0; v < n->n_vecs; v++)
        for (size_t o = 0; o < (n->label_mode ? 1 : 3); o++) {
            char buf[300];
            snprintf(buf, sizeof buf, "%s%s", n->vecs[v].result, n->label_mode ? "" : offers_u[o]);
            lset_add(out, buf);
        }
    if (n->body)
        static_extras(rn, n->body, out);
    for (size_t k = 0; k < n->n_ops; k++)
        static_extras(rn, n->ops[k], out);
}

/* The root of a seed, maybe under a priority: above every par (then
 * sometimes a hide / rename / cut above it), or in a form warpex refuses
 * (cyclic rules, a prio in a prio, a prio under a par: rn->prio_refused). */
static struct exp_node *gen_prio(struct gen *g, struct exp_node *root, const struct lset *L)
{
    struct rng *r = &g->r;
    if (!g->p->prio || g->failed || g->rn->rate || !rng_pct(r, 35))
        return root;
    uint32_t form = rng_below(r, 100);
    if (form < 8) {
        struct exp_node *p = random_prio(g, root, L, true);
        if (!p)
            return root;
        g->rn->prio_refused = g->rn->prio_cyclic = true;
        return p;
    }
    struct lset L1 = { 0 };
    for (size_t i = 0; i < L->n; i++)
        lset_add(&L1, L->s[i]);
    if (rng_pct(r, 40))
        static_extras(g->rn, root, &L1);
    struct exp_node *p = random_prio(g, root, &L1, false);
    lset_free(&L1);
    if (!p)
        return root;
    g->rn->has_prio = true;
    struct lset L2 = { 0 };
    subtree_labels(g, p, &L2);
    if (form < 15) {
        struct exp_node *q = random_prio(g, p, &L2, false);
        if (q) {
            g->rn->prio_refused = true;
            p = q;
        }
    } else if (form < 22) {
        size_t c = new_comp(g);
        p = rn_lotos_interleave(p, rn_leaf(g->rn->comp_names[c]));
        g->rn->prio_refused = true;
    } else if (rng_pct(r, 45)) {
        p = wrap_unary(g, p, &L2);
    }
    lset_free(&L2);
    return p;
}

int randnet_leaf(void *ctx, const char *path, struct naive_lts *out, struct wx_error *err)
{
    struct randnet *rn = ctx;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t c = 0; c < rn->n_comps; c++) {
        const char *nm = rn->comp_names[c];
        size_t bl = strlen(base);
        if (strcmp(nm, base) == 0 || (strncmp(nm, base, bl) == 0 && strcmp(nm + bl, ".aut") == 0)) {
            const struct naive_lts *l = &rn->comps[c];
            memset(out, 0, sizeof *out);
            out->n_states = l->n_states;
            out->initial = l->initial;
            out->n_trans = l->n_trans;
            out->src = rn_xmalloc(l->n_trans * sizeof *out->src);
            out->dst = rn_xmalloc(l->n_trans * sizeof *out->dst);
            out->label = rn_xmalloc(l->n_trans * sizeof *out->label);
            for (size_t j = 0; j < l->n_trans; j++) {
                out->src[j] = l->src[j];
                out->dst[j] = l->dst[j];
                out->label[j] = rn_strdup(l->label[j]);
            }
            return WX_OK;
        }
    }
    return wx_fail(err, WX_EINPUT, path, 0, 0, "no such generated component");
}

/* Writes one component in a random but valid AUT spelling. */
static int write_comp(struct rng *st, const char *path, const struct naive_lts *l,
                      struct wx_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot create: %s", strerror(errno));
    const char *eol = rng_pct(st, 5) ? "\r\n" : "\n";
    const char *trail = rng_pct(st, 30) ? " " : "";
    fprintf(f, rng_pct(st, 50) ? "des (%u, %zu, %u)%s%s" : "des(%u,%zu,%u)%s%s", l->initial,
            l->n_trans, l->n_states, trail, eol);
    for (size_t j = 0; j < l->n_trans; j++) {
        const char *lab = l->label[j];
        if (is_idf(lab) && rng_pct(st, 50))
            fprintf(f, "(%u, %s, %u)%s%s", l->src[j], lab, l->dst[j], trail, eol);
        else
            fprintf(f, "(%u,\"%s\",%u)%s%s", l->src[j], lab, l->dst[j], trail, eol);
    }
    if (fclose(f) != 0)
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "write failed");
    return WX_OK;
}

static void rn_clear(struct randnet *rn)
{
    rn_free(rn->root);
    rn->root = NULL;
    for (size_t c = 0; c < rn->n_comps; c++) {
        naive_lts_free(&rn->comps[c]);
        free(rn->comp_names[c]);
    }
    free(rn->comps);
    free(rn->comp_names);
    rn->comps = NULL;
    rn->comp_names = NULL;
    rn->n_comps = 0;
    free(rn->exp_text);
    rn->exp_text = NULL;
    free(rn->header);
    rn->header = NULL;
    for (size_t i = 0; i < 3 * rn->n_comm; i++)
        free(rn->comm[i]);
    free(rn->comm);
    rn->comm = NULL;
    rn->n_comm = 0;
    for (size_t i = 0; i < rn->n_incl; i++)
        free(rn->incl_names[i]);
    free(rn->incl);
    free(rn->incl_names);
    rn->incl = NULL;
    rn->incl_names = NULL;
    rn->n_incl = 0;
}

/* EXP text of `n` as written in the files: included subtrees by name,
 * except `self` (the subtree whose own file this is). */
static char *rn_print_files(const struct randnet *rn, const struct exp_node *n,
                            const struct exp_node *self, uint64_t style)
{
    struct sb b = { 0 };
    struct pctx st = { .r = { style }, .n_incl = rn->n_incl,
                       .incl = (const struct exp_node *const *)rn->incl,
                       .incl_names = rn->incl_names, .self = self,
                       .lower = rn->lang == EXP_LANG_LOTOS };
    print_node(&b, &st, n, 0);
    sb_str(&b, "\n");
    return b.s;
}

#include "randsugar.c"

int randnet_generate(uint64_t seed, const struct randnet_params *pin, struct randnet *rn,
                     struct wx_error *err)
{
    struct randnet_params p = pin ? *pin : (struct randnet_params){ 0 };
    if (!pin)
        p.avoid_ambiguous = true;
    if (!p.max_states)
        p.max_states = 5000;
    if (!p.max_leaves)
        p.max_leaves = 6;
    if (!p.max_depth)
        p.max_depth = 4;
    memset(rn, 0, sizeof *rn);
    rn->seed = seed;
    wx_error_clear(err);
    for (uint32_t attempt = 0; attempt < 200; attempt++) {
        struct gen g = { 0 };
        g.r.s = seed * 0x2545f4914f6cdd1dull + attempt * 0x9e3779b97f4a7c15ull + 1;
        rng_next(&g.r);
        g.rn = rn;
        g.p = &p;
        /* variants: another hidden label (one seed in 7), stochastic labels
         * (one seed in 6) */
        rn->hidden = seed % 7 == 3 ? "tau" : "i";
        rn->rate = seed % 6 == 1;
        /* LOTOS reference language (one seed in 13): labels folded */
        rn->lang = seed % 13 == 5 ? EXP_LANG_LOTOS : EXP_LANG_NONE;
        if (rn->lang == EXP_LANG_LOTOS) {
            rn->rate = false;
            rn->hidden = "i";
        }
        g.limit = 4 * p.max_states;
        rn->attempts = attempt + 1;
        /* one seed in five may use up to twice the leaves: wider vectors */
        uint32_t leaves = 1 + rng_below(&g.r, seed % 5 == 0 ? 2 * p.max_leaves : p.max_leaves);
        struct lset L = { 0 };
        rn->has_prio = rn->prio_refused = rn->prio_cyclic = false;
        if (p.sugar && seed % 9 == 4) {
            /* CCS, CSP or mCRL syntax (randsugar.c) */
            static const enum exp_lang sl[] = { EXP_LANG_CCS, EXP_LANG_CSP, EXP_LANG_MCRL };
            rn->lang = sl[seed / 9 % 3];
            rn->hidden = rn->lang == EXP_LANG_MCRL ? "tau" : "t";
            rn->rate = false;
            rn->root = sugar_root(&g);
            subtree_labels(&g, rn->root, &L);
            rn->header = sugar_header(rn);
        } else {
            rn->root = gen_node(&g, 0, leaves, &L);
        }
        rn->root = gen_prio(&g, rn->root, &L);
        lset_free(&L);
        if (!g.failed) {
            struct naive_options o = { 0 };
            o.max_states = p.max_states;
            o.hidden = rn->hidden;
            o.rate = rn->rate;
            o.lang = rn->lang;
            o.leaf = randnet_leaf;
            o.leaf_ctx = rn;
            struct naive_result res;
            struct wx_error e2;
            /* prefer products with some room to differ: tiny ones are
             * redrawn a few times */
            int nrc = naive_explore(rn->root, &o, &res, &e2);
            if ((nrc == WX_OK && (res.states >= 6 || attempt >= 4)) ||
                (nrc == WX_EINPUT && rn->prio_cyclic)) {
                /* accepted: write the files */
                rn->exp_text = rn_print_files(rn, rn->root, NULL, rng_next(&g.r));
                const char *parent = p.tmp_parent ? p.tmp_parent : getenv("TMPDIR");
                if (!parent || !*parent)
                    parent = "/tmp";
                snprintf(rn->dir, sizeof rn->dir, "%s/warpex-randnet-XXXXXX", parent);
                if (!mkdtemp(rn->dir)) {
                    rn_clear(rn);
                    return wx_fail(err, WX_ESYSTEM, rn->dir, 0, 0, "mkdtemp: %s", strerror(errno));
                }
                struct rng st = { rng_next(&g.r) };
                for (size_t c = 0; c < rn->n_comps; c++) {
                    char path[800];
                    snprintf(path, sizeof path, "%s/%s", rn->dir, rn->comp_names[c]);
                    int rc = write_comp(&st, path, &rn->comps[c], err);
                    if (rc != WX_OK) {
                        randnet_free(rn, true);
                        return rc;
                    }
                }
                for (size_t i = 0; i < rn->n_incl; i++) {
                    /* parenthesised, so that CADP's textual inclusion and a
                     * parenthesised substitution mean the same */
                    char path[800];
                    snprintf(path, sizeof path, "%s/%s", rn->dir, rn->incl_names[i]);
                    char *t = rn_print_files(rn, rn->incl[i], rn->incl[i], rng_next(&g.r));
                    FILE *f = fopen(path, "w");
                    if (f) {
                        fprintf(f, "(* included by randnet.exp *)\n(%s)\n", t);
                        if (fclose(f) != 0)
                            f = NULL;
                    }
                    free(t);
                    if (!f) {
                        randnet_free(rn, true);
                        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot write");
                    }
                }
                snprintf(rn->exp_path, sizeof rn->exp_path, "%s/randnet.exp", rn->dir);
                FILE *f = fopen(rn->exp_path, "w");
                if (!f) {
                    randnet_free(rn, true);
                    return wx_fail(err, WX_ESYSTEM, rn->exp_path, 0, 0, "cannot create");
                }
                static const char *const hdr[] = { "lotos behaviour\n", "behaviour\n",
                                                   "lotos behavior\n" };
                fprintf(f, "(* randnet seed %llu *)\n-- generated by tests/randnet\n%s%s",
                        (unsigned long long)seed,
                        rn->header ? rn->header
                        : rn->lang == EXP_LANG_LOTOS ? hdr[seed % 3] : "", rn->exp_text);
                fclose(f);
                return WX_OK;
            }
        }
        rn_clear(rn);
    }
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "seed %llu: no network below %u states",
                   (unsigned long long)seed, p.max_states);
}

void randnet_free(struct randnet *rn, bool remove_files)
{
    if (remove_files && rn->dir[0]) {
        for (size_t c = 0; c < rn->n_comps; c++) {
            char path[800];
            snprintf(path, sizeof path, "%s/%s", rn->dir, rn->comp_names[c]);
            unlink(path);
        }
        for (size_t i = 0; i < rn->n_incl; i++) {
            char path[800];
            snprintf(path, sizeof path, "%s/%s", rn->dir, rn->incl_names[i]);
            unlink(path);
        }
        if (rn->exp_path[0])
            unlink(rn->exp_path);
        rmdir(rn->dir);
    }
    rn_clear(rn);
    memset(rn, 0, sizeof *rn);
}
