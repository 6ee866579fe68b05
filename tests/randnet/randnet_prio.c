/*
 * randnet_prio.c -- random prio operators: rules and sets
 * drawn from a subtree's labels, kept when the parser would accept them.
 *
 * Part of randnet.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

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
        exp_node_free(p);
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
