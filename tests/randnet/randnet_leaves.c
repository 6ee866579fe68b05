/*
 * randnet_leaves.c -- the generator's state, label sets, random
 * labels and the random component LTSs (the leaves).
 *
 * Part of randnet.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

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


/* Appends component l (taking its arrays) as randnet_cN.aut; returns N. */
static size_t rn_push_comp(struct randnet *rn, struct naive_lts l)
{
    size_t c = rn->n_comps++;
    rn->comps = rn_xrealloc(rn->comps, rn->n_comps * sizeof *rn->comps);
    rn->comp_names = rn_xrealloc(rn->comp_names, rn->n_comps * sizeof *rn->comp_names);
    rn->comps[c] = l;
    char name[64];
    snprintf(name, sizeof name, "randnet_c%zu.aut", c);
    rn->comp_names[c] = rn_strdup(name);
    return c;
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
    return rn_push_comp(rn, l);
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
