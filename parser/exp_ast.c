/*
 * exp_ast.c -- constructors and destructors of the EXP syntax tree, and the
 * small growable lists the grammar uses while building it.
 *
 * Arrays grow by doubling without a stored capacity: an array holding n
 * elements has room for the smallest power of two >= n, so it is reallocated
 * exactly when n is 0 or a power of two (see grow).
 */
#include "exp_int.h"
#include "../util/input.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int exp_perr(struct exp_pstate *ps, int line, int col, const char *fmt, ...)
{
    va_list ap;
    char msg[sizeof ps->err->msg];

    if (ps->err->code != WX_OK)
        return WX_EINPUT;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return wx_fail(ps->err, WX_EINPUT, ps->name, line, col, "%s", msg);
}

int exp_poom(struct exp_pstate *ps, int line, int col)
{
    if (ps->err->code == WX_OK)
        wx_fail(ps->err, WX_ELIMIT, ps->name, line, col, "out of memory while parsing");
    return WX_ELIMIT;
}

/* Makes room for element n of *arr (elements of size sz).  Returns 0 or -1. */
static int grow(void *arr, size_t n, size_t sz)
{
    void **p = arr;
    size_t cap;
    void *q;

    if (n != 0 && (n & (n - 1)) != 0)
        return 0;                       /* room left: capacity is pow2 >= n */
    cap = n ? 2 * n : 1;
    if (cap > SIZE_MAX / sz)
        return -1;
    q = realloc(*p, cap * sz);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

char *exp_strndup(const char *s, size_t len)
{
    char *d = malloc(len + 1);

    if (d) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

char *exp_unescape(const char *body, size_t len)
{
    char *d = malloc(len + 1), *o = d;
    size_t i;

    if (!d)
        return NULL;
    for (i = 0; i < len; i++) {
        char c = body[i];
        if (c == '\\' && i + 1 < len) {
            char e = 0;
            switch (body[i + 1]) {
            case 'a': e = '\a'; break;
            case 'b': e = '\b'; break;
            case 'f': e = '\f'; break;
            case 'r': e = '\r'; break;
            case 't': e = '\t'; break;
            case 'v': e = '\v'; break;
            case '\'': e = '\''; break;
            case '"': e = '"'; break;
            case '?': e = '?'; break;
            case '\\': e = '\\'; break;
            default: break;             /* kept literally: \n, \0, \x, \( ... */
            }
            if (e) {
                *o++ = e;
                i++;
                continue;
            }
        }
        *o++ = c;
    }
    *o = '\0';
    return d;
}

/* ---- nodes -------------------------------------------------------------- */

struct exp_node *exp_node_new(enum exp_kind kind, int line, int col)
{
    struct exp_node *n = calloc(1, sizeof *n);

    if (n) {
        n->kind = kind;
        n->mode = EXP_MODE_GATE;
        n->loc.line = line;
        n->loc.col = col;
    }
    return n;
}

static void free_strs(size_t n, char **v)
{
    size_t i;

    if (!v)
        return;
    for (i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void exp_iface_clear(struct exp_iface *i)
{
    size_t k;

    for (k = 0; k < i->n; k++)
        free(i->el[k].label);
    free(i->el);
    i->el = NULL;
    i->n = 0;
}

void exp_iface_free(struct exp_iface *i)
{
    if (i) {
        exp_iface_clear(i);
        free(i);
    }
}

static void vector_clear(struct exp_vector *v)
{
    free_strs(v->n, v->comp);
    free(v->result);
}

void exp_vector_free(struct exp_vector *v)
{
    if (v) {
        vector_clear(v);
        free(v);
    }
}

/* Recursion depth is bounded by the parser's stack limit (YYMAXDEPTH), so a
 * tree the parser built can always be freed recursively. */
void exp_node_free(struct exp_node *n)
{
    size_t i;

    if (!n)
        return;
    free(n->path);
    free_strs(n->n_pats, n->pats);
    free_strs(n->repls ? n->n_pats : 0, n->repls);
    free_strs(n->comm_res ? n->n_pats : 0, n->comm_res);
    exp_node_free(n->body);
    exp_prio_rules_clear(n->n_prio, n->prio);
    for (i = 0; n->vecs && i < n->n_vecs; i++)
        vector_clear(&n->vecs[i]);
    free(n->vecs);
    exp_iface_clear(&n->global);
    for (i = 0; n->ops && i < n->n_ops; i++) {
        exp_node_free(n->ops[i]);
        if (n->locals)
            exp_iface_clear(&n->locals[i]);
    }
    free(n->ops);
    free(n->locals);
    free(n->has_local);
    free(n);
}

void exp_file_free(struct exp_file *f)
{
    if (!f)
        return;
    free(f->name);
    exp_node_free(f->root);
    free(f);
}

/* ---- lists -------------------------------------------------------------- */

struct exp_strlist *exp_strlist_new(void) { return calloc(1, sizeof(struct exp_strlist)); }
struct exp_pairlist *exp_pairlist_new(void) { return calloc(1, sizeof(struct exp_pairlist)); }
struct exp_veclist *exp_veclist_new(void) { return calloc(1, sizeof(struct exp_veclist)); }
struct exp_oplist *exp_oplist_new(void) { return calloc(1, sizeof(struct exp_oplist)); }
struct exp_iface *exp_iface_new(void) { return calloc(1, sizeof(struct exp_iface)); }
struct exp_vector *exp_vector_new(void) { return calloc(1, sizeof(struct exp_vector)); }

void exp_strlist_free(struct exp_strlist *l)
{
    if (l) {
        free_strs(l->n, l->v);
        free(l);
    }
}

void exp_pairlist_free(struct exp_pairlist *p)
{
    if (p) {
        free_strs(p->l.n, p->l.v);
        free_strs(p->r.n, p->r.v);
        free(p);
    }
}

void exp_veclist_free(struct exp_veclist *l)
{
    size_t i;

    if (!l)
        return;
    for (i = 0; i < l->n; i++)
        vector_clear(&l->v[i]);
    free(l->v);
    free(l);
}

void exp_oplist_free(struct exp_oplist *l)
{
    size_t i;

    if (!l)
        return;
    for (i = 0; i < l->n; i++) {
        exp_node_free(l->ops[i]);
        exp_iface_clear(&l->locals[i]);
    }
    free(l->ops);
    free(l->locals);
    free(l->has_local);
    free(l);
}

int exp_strlist_push(struct exp_strlist *l, char *s)
{
    if (grow(&l->v, l->n, sizeof *l->v) < 0) {
        free(s);
        return -1;
    }
    l->v[l->n++] = s;
    return 0;
}

int exp_pairlist_push(struct exp_pairlist *p, char *lhs, char *rhs)
{
    /* Both sides grow in step (same n), so both have the same capacity. */
    if (grow(&p->l.v, p->l.n, sizeof *p->l.v) < 0 ||
        grow(&p->r.v, p->r.n, sizeof *p->r.v) < 0) {
        free(lhs);
        free(rhs);
        return -1;
    }
    p->l.v[p->l.n++] = lhs;
    p->r.v[p->r.n++] = rhs;
    return 0;
}

int exp_iface_push(struct exp_iface *i, char *label, int degree, int line, int col)
{
    if (grow(&i->el, i->n, sizeof *i->el) < 0) {
        free(label);
        return -1;
    }
    i->el[i->n].label = label;
    i->el[i->n].degree = degree;
    i->el[i->n].loc.line = line;
    i->el[i->n].loc.col = col;
    i->n++;
    return 0;
}

int exp_veclist_push(struct exp_veclist *l, struct exp_vector *v)
{
    if (grow(&l->v, l->n, sizeof *l->v) < 0) {
        exp_vector_free(v);
        return -1;
    }
    l->v[l->n++] = *v;
    free(v);
    return 0;
}

int exp_oplist_push(struct exp_oplist *l, struct exp_node *op, struct exp_iface *local)
{
    /* The three arrays always grow together (same n). */
    if (grow(&l->ops, l->n, sizeof *l->ops) < 0 ||
        grow(&l->locals, l->n, sizeof *l->locals) < 0 ||
        grow(&l->has_local, l->n, sizeof *l->has_local) < 0) {
        exp_node_free(op);
        exp_iface_free(local);
        return -1;
    }
    l->ops[l->n] = op;
    l->has_local[l->n] = local != NULL;
    if (local) {
        l->locals[l->n] = *local;
        free(local);
    } else {
        l->locals[l->n].n = 0;
        l->locals[l->n].el = NULL;
    }
    l->n++;
    return 0;
}

int exp_oplist_append(struct exp_oplist *dst, struct exp_oplist *src)
{
    size_t i;
    int rc = 0;

    for (i = 0; i < src->n; i++) {
        struct exp_iface *loc = NULL;
        struct exp_node *op = src->ops[i];
        src->ops[i] = NULL;
        if (src->has_local[i]) {
            loc = exp_iface_new();
            if (!loc) {
                exp_node_free(op);
                rc = -1;
                break;
            }
            *loc = src->locals[i];
            src->locals[i].n = 0;
            src->locals[i].el = NULL;
        }
        if (exp_oplist_push(dst, op, loc) < 0) {
            rc = -1;
            i++;
            break;
        }
    }
    /* Entries not moved (after a failure) are still owned by src. */
    for (; i < src->n; i++) {
        exp_node_free(src->ops[i]);
        exp_iface_clear(&src->locals[i]);
    }
    src->n = 0;
    exp_oplist_free(src);
    return rc;
}

void exp_strlist_take(struct exp_strlist *l, size_t *n, char ***v)
{
    *n = l->n;
    *v = l->v;
    free(l);
}

/* ---- file entry ---------------------------------------------------------- */

int exp_parse_file(const char *path, struct exp_file **out, struct wx_error *err)
{
    char *buf;
    size_t len;
    int rc;

    *out = NULL;
    wx_error_clear(err);
    if ((rc = wx_input_read_path(path, WX_INPUT_TEXT, -1, &buf, &len, err)) != WX_OK)
        return rc;
    rc = exp_parse_string(buf, len, path, out, err);
    free(buf);
    return rc;
}
