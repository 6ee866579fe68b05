/*
 * randnet_tree.c -- construction and release of EXP trees
 * (the rn_* builders of randnet.h).
 *
 * Part of randnet.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

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

