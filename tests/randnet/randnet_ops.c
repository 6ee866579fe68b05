/*
 * randnet_ops.c -- random operators over the leaves: hide, cut
 * and rename patterns, vector and general parallel composition, and the
 * recursive tree generator gen_node.
 *
 * Part of randnet.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

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
