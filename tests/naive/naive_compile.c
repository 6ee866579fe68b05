/*
 * naive_compile.c -- compilation of the EXP tree into oracle
 * nodes: leaves loaded, patterns compiled, interfaces and prio relations
 * resolved; and the nodes' release.
 *
 * Part of naive.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ------------------------------------------------------------- compilation */

static int file_exists(const char *p)
{
    FILE *f = fopen(p, "r");
    if (!f)
        return 0;
    fclose(f);
    return 1;
}

/* Resolves a leaf name: as written (working directory), then base_dir. */
static char *resolve(struct nx *x, const char *path)
{
    size_t n = strlen(path);
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    bool add_ext = dot == NULL;
    char *name = nx_realloc(x, NULL, n + 5);
    snprintf(name, n + 5, "%s%s", path, add_ext ? ".aut" : "");
    if (file_exists(name) || name[0] == '/' || !x->opt->base_dir)
        return name;
    size_t bl = strlen(x->opt->base_dir);
    char *alt = nx_realloc(x, NULL, bl + strlen(name) + 2);
    sprintf(alt, "%s/%s", x->opt->base_dir, name);
    if (file_exists(alt)) {
        free(name);
        return alt;
    }
    free(alt);
    return name;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static struct nnode *compile(struct nx *x, const struct exp_node *e);

static void compile_leaf(struct nx *x, struct nnode *n, const struct exp_node *e)
{
    struct naive_lts l;
    memset(&l, 0, sizeof l);
    int rc;
    char *path = NULL;
    if (x->opt->leaf) {
        rc = x->opt->leaf(x->opt->leaf_ctx, e->path, &l, x->err);
    } else {
        if (ends_with(e->path, ".bcg") || ends_with(e->path, ".seq") || ends_with(e->path, ".fc2"))
            nx_fail(x, WX_EINPUT, &e->loc, "%s: only .aut leaves are supported", e->path);
        path = resolve(x, e->path);
        rc = naive_read_aut(path, &l, x->err);
        free(path);
    }
    if (rc != WX_OK) {
        naive_lts_free(&l);
        longjmp(x->fail, 1);
    }
    if (l.n_states == 0 || l.initial >= l.n_states) {
        naive_lts_free(&l);
        nx_fail(x, WX_EINPUT, &e->loc, "%s: bad initial state", e->path);
    }
    /* counting sort by source state */
    n->n_states = l.n_states;
    n->initial = l.initial;
    n->off = calloc((size_t)l.n_states + 1, sizeof *n->off);
    n->tlab = malloc((l.n_trans ? l.n_trans : 1) * sizeof *n->tlab);
    n->tdst = malloc((l.n_trans ? l.n_trans : 1) * sizeof *n->tdst);
    bool bad = !n->off || !n->tlab || !n->tdst;
    for (size_t j = 0; !bad && j < l.n_trans; j++)
        bad = l.src[j] >= l.n_states || l.dst[j] >= l.n_states;
    if (bad) {
        naive_lts_free(&l);
        nx_fail(x, n->off && n->tlab && n->tdst ? WX_EINPUT : WX_ESYSTEM, &e->loc,
                "%s: state out of range or out of memory", e->path);
    }
    for (size_t j = 0; j < l.n_trans; j++)
        n->off[l.src[j] + 1]++;
    for (uint32_t s = 0; s < l.n_states; s++)
        n->off[s + 1] += n->off[s];
    uint32_t *fill = calloc(l.n_states, sizeof *fill);
    if (!fill) {
        naive_lts_free(&l);
        nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
    }
    for (size_t j = 0; j < l.n_trans; j++) {
        uint32_t s = l.src[j], p = n->off[s] + fill[s]++;
        uint32_t id = strtab_intern(x->tab, l.label[j], strlen(l.label[j]));
        if (id == UINT32_MAX) {
            free(fill);
            naive_lts_free(&l);
            nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
        }
        n->tlab[p] = id;
        n->tdst[p] = l.dst[j];
    }
    free(fill);
    naive_lts_free(&l);
    n->lo = x->n_leaves++;
    n->hi = n->lo + 1;
}

static void compile_iface(struct nx *x, const struct exp_iface *f, size_t *nout, struct sel **out)
{
    *out = nx_calloc(x, f->n, sizeof **out);
    *nout = f->n;
    for (size_t i = 0; i < f->n; i++) {
        uint32_t id = nx_oplabel(x, f->el[i].label);
        if (id == x->hidden || (x->term != NX_NONE && nx_gate(x, id) == x->term))
            nx_fail(x, WX_EINPUT, &f->el[i].loc,
                    "the hidden and termination labels may not appear in an interface");
        (*out)[i].key = id;
        (*out)[i].degree = f->el[i].degree;
    }
}

static void compile_fill(struct nx *x, struct nnode *n, const struct exp_node *e);

/* Is label text s in set q of prio node n (patterns in the node's mode)? */
static bool prio_in_set(struct nx *x, struct nnode *n, size_t q, uint32_t id)
{
    bool hit = false;
    for (size_t k = n->set_first[q]; k < n->set_first[q + 1] && !hit; k++)
        hit = node_match(x, n, k, id);
    return hit != n->set_all_but[q];
}

/* The relation on the body's labels: the rules' pairs, closed transitively
 * (Warshall), which must leave no label above itself. */
static void prio_relation(struct nx *x, struct nnode *n)
{
    size_t m = n->n_names;
    n->above = nx_calloc(x, m * m, 1);
    uint32_t *ids = nx_calloc(x, m, sizeof *ids);
    for (size_t a = 0; a < m; a++)
        ids[a] = nx_intern_str(x, n->names[a]);
    size_t maxid = 0;
    for (size_t a = 0; a < m; a++)
        maxid = ids[a] > maxid ? ids[a] : maxid;
    n->uidx_n = maxid + 1;
    n->uidx = nx_realloc(x, n->uidx, n->uidx_n * sizeof *n->uidx);
    for (size_t i = 0; i < n->uidx_n; i++)
        n->uidx[i] = NX_NONE;
    for (size_t a = 0; a < m; a++)
        n->uidx[ids[a]] = (uint32_t)a;
    uint8_t *in = nx_calloc(x, n->n_sets * (m ? m : 1), 1);   /* in[q * m + a] */
    for (size_t q = 0; q < n->n_sets; q++)
        for (size_t a = 0; a < m; a++)
            in[q * m + a] = prio_in_set(x, n, q, ids[a]);
    for (size_t r = 0; r < n->n_rules; r++)
        for (size_t i = n->rule_first[r]; i < n->rule_first[r + 1]; i++)
            for (size_t j = i + 1; j < n->rule_first[r + 1]; j++)
                for (size_t a = 0; a < m; a++)
                    for (size_t b = 0; in[i * m + a] && b < m; b++)
                        if (in[j * m + b])
                            n->above[a * m + b] = 1;
    free(in);
    for (size_t k = 0; k < m; k++)
        for (size_t a = 0; a < m; a++)
            if (n->above[a * m + k])
                for (size_t b = 0; b < m; b++)
                    n->above[a * m + b] |= n->above[k * m + b];
    for (size_t a = 0; a < m; a++)
        if (n->above[a * m + a]) {
            free(ids);
            nx_fail(x, WX_EINPUT, &n->loc, "prio: cyclic priorities: '%s' above itself",
                    n->names[a]);
        }
    free(ids);
}

/* [mode] prio rules in B end prio: the patterns, B, and the relation on
 * B's static alphabet. */
static void compile_prio(struct nx *x, struct nnode *n, const struct exp_node *e)
{
    if (e->mode != EXP_MODE_GATE && e->mode != EXP_MODE_TOTAL && e->mode != EXP_MODE_PARTIAL)
        nx_fail(x, WX_EINPUT, &e->loc, "matching mode not allowed for prio");
    n->mode = e->mode;
    size_t np = 0, ns = 0;
    for (size_t r = 0; r < e->n_prio; r++)
        for (size_t i = 0; i < e->prio[r].n; i++, ns++)
            np += e->prio[r].sets[i].n;
    n->re = nx_calloc(x, np, sizeof *n->re);
    n->re_ok = nx_calloc(x, np, sizeof *n->re_ok);
    n->n_pats = np;
    n->set_first = nx_calloc(x, ns + 1, sizeof *n->set_first);
    n->set_all_but = nx_calloc(x, ns, sizeof *n->set_all_but);
    n->rule_first = nx_calloc(x, e->n_prio + 1, sizeof *n->rule_first);
    n->n_sets = ns;
    n->n_rules = e->n_prio;
    size_t q = 0, k = 0;
    for (size_t r = 0; r < e->n_prio; r++) {
        n->rule_first[r] = q;
        for (size_t i = 0; i < e->prio[r].n; i++, q++) {
            const struct exp_prio_set *set = &e->prio[r].sets[i];
            n->set_first[q] = k;
            n->set_all_but[q] = set->all_but;
            for (size_t p = 0; p < set->n; p++, k++) {
                char *pat = nx_opstring(x, set->pats[p]);
                int rc = regcomp(&n->re[k], pat, 0);
                free(pat);
                if (rc != 0)
                    nx_fail(x, WX_EINPUT, &set->loc, "bad regular expression \"%s\"",
                            set->pats[p]);
                n->re_ok[k] = true;
            }
        }
    }
    n->set_first[ns] = k;
    n->rule_first[e->n_prio] = q;
    n->body = compile(x, e->body);
    n->lo = x->n_leaves;
    compile_fill(x, n->body, e->body);
    n->hi = x->n_leaves;
    alphabet(x, n->body);
    n->names = nx_calloc(x, n->body->n_alpha ? n->body->n_alpha : 1, sizeof *n->names);
    for (size_t i = 0; i < n->body->n_alpha; i++) {
        if (!(n->names[i] = strdup(strtab_str(x->tab, n->body->alpha[i]))))
            nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
        n->n_names++;
    }
    prio_relation(x, n);
}

static struct nnode *compile(struct nx *x, const struct exp_node *e)
{
    /* The node is linked into its parent (or x->root) by the caller before
     * any failure can happen below, so cleanup finds it. */
    struct nnode *n = nx_calloc(x, 1, sizeof *n);
    n->kind = e->kind;
    n->loc = e->loc;
    return n;
}

/* Fills a node created by compile() (split so the node is reachable from
 * the tree before anything inside it can fail). */
static void compile_fill(struct nx *x, struct nnode *n, const struct exp_node *e)
{
    switch (e->kind) {
    case EXP_PRIO:
        compile_prio(x, n, e);
        return;
    case EXP_LEAF:
        if (ends_with(e->path, ".exp")) {
            if (!x->opt->parse)
                nx_fail(x, WX_EINPUT, &e->loc, "%s: .exp inclusion needs a parser", e->path);
            char *path = resolve(x, e->path);
            struct exp_file *f = NULL;
            int rc = x->opt->parse(path, &f, x->err);
            free(path);
            if (rc != WX_OK)
                longjmp(x->fail, 1);
            x->files = nx_realloc(x, x->files, (x->n_files + 1) * sizeof *x->files);
            x->files[x->n_files++] = f;
            /* as if parenthesised: the node becomes the included root */
            n->kind = f->root->kind;
            n->loc = f->root->loc;
            compile_fill(x, n, f->root);
            return;
        }
        compile_leaf(x, n, e);
        return;
    case EXP_HIDE:
    case EXP_CUT:
    case EXP_RENAME:
        n->mode = e->mode;
        n->all_but = e->all_but;
        n->keep_term = e->keep_term;
        n->re = nx_calloc(x, e->n_pats, sizeof *n->re);
        n->re_ok = nx_calloc(x, e->n_pats, sizeof *n->re_ok);
        if (e->kind == EXP_RENAME)
            n->repl = nx_calloc(x, e->n_pats, sizeof *n->repl);
        n->n_pats = e->n_pats;
        if (e->kind == EXP_RENAME ? e->mode == EXP_MODE_PARTIAL
                                  : e->mode == EXP_MODE_SINGLE || e->mode == EXP_MODE_MULTIPLE)
            nx_fail(x, WX_EINPUT, &e->loc, "matching mode not allowed for this operator");
        for (size_t k = 0; k < e->n_pats; k++) {
            char *pat = nx_opstring(x, e->pats[k]);
            int rc = regcomp(&n->re[k], pat, 0);
            free(pat);
            if (rc != 0)
                nx_fail(x, WX_EINPUT, &e->loc, "bad regular expression \"%s\"", e->pats[k]);
            n->re_ok[k] = true;
            if (e->kind == EXP_RENAME)
                n->repl[k] = nx_opstring(x, e->repls[k]);
        }
        n->body = compile(x, e->body);
        n->lo = x->n_leaves;
        compile_fill(x, n->body, e->body);
        n->hi = x->n_leaves;
        return;
    case EXP_PAR_VECTORS:
    case EXP_PAR_GENERAL:
    case EXP_PAR_COMM:
        n->ccs = e->ccs;
        if (e->kind == EXP_PAR_COMM) {
            n->n_comm = e->n_pats;
            n->comm_a = nx_calloc(x, e->n_pats + 1, sizeof *n->comm_a);
            n->comm_b = nx_calloc(x, e->n_pats + 1, sizeof *n->comm_b);
            n->comm_c = nx_calloc(x, e->n_pats + 1, sizeof *n->comm_c);
            for (size_t i = 0; i < e->n_pats; i++) {
                n->comm_a[i] = nx_oplabel(x, e->pats[i]);
                n->comm_b[i] = nx_oplabel(x, e->repls[i]);
                n->comm_c[i] = nx_oplabel(x, e->comm_res[i]);
            }
        }
        if (e->n_ops < 1 || e->n_ops > NX_MAX_OPS)
            nx_fail(x, WX_EINPUT, &e->loc, "par with %zu operands (1..%d supported)", e->n_ops,
                    NX_MAX_OPS);
        n->label_mode = e->label_mode;
        n->ops = nx_calloc(x, e->n_ops, sizeof *n->ops);
        n->n_ops = e->n_ops;
        if (e->kind == EXP_PAR_VECTORS) {
            n->vcomp = nx_calloc(x, e->n_vecs * e->n_ops, sizeof *n->vcomp);
            n->vres = nx_calloc(x, e->n_vecs, sizeof *n->vres);
            n->n_vecs = e->n_vecs;
            for (size_t v = 0; v < e->n_vecs; v++) {
                const struct exp_vector *vc = &e->vecs[v];
                if (vc->n != e->n_ops)
                    nx_fail(x, WX_EINPUT, &vc->loc, "vector has %zu elements for %zu operands",
                            vc->n, e->n_ops);
                for (size_t k = 0; k < vc->n; k++) {
                    uint32_t id = vc->comp[k] ? nx_oplabel(x, vc->comp[k]) : NX_NONE;
                    if (id == x->hidden)
                        nx_fail(x, WX_EINPUT, &vc->loc, "hidden label in a vector");
                    n->vcomp[v * e->n_ops + k] = id;
                }
                n->vres[v] = nx_oplabel(x, vc->result);
            }
        } else {
            n->global_all = e->global_all;
            compile_iface(x, &e->global, &n->n_glob, &n->glob);
            n->n_lif = nx_calloc(x, e->n_ops, sizeof *n->n_lif);
            n->lif = nx_calloc(x, e->n_ops, sizeof *n->lif);
            for (size_t k = 0; k < e->n_ops; k++)
                if (e->locals && (!e->has_local || e->has_local[k]))
                    compile_iface(x, &e->locals[k], &n->n_lif[k], &n->lif[k]);
        }
        n->lo = x->n_leaves;
        for (size_t k = 0; k < e->n_ops; k++) {
            n->ops[k] = compile(x, e->ops[k]);
            compile_fill(x, n->ops[k], e->ops[k]);
        }
        n->hi = x->n_leaves;
        return;
    }
    nx_fail(x, WX_EINPUT, &e->loc, "unknown node kind %d", (int)e->kind);
}

static void node_free(struct nnode *n)
{
    if (!n)
        return;
    free(n->out.lab);
    free(n->out.vec);
    free(n->off);
    free(n->tlab);
    free(n->tdst);
    free(n->comm_a), free(n->comm_b), free(n->comm_c);
    for (size_t k = 0; k < n->n_pats; k++) {
        if (n->re_ok && n->re_ok[k])
            regfree(&n->re[k]);
        if (n->repl)
            free(n->repl[k]);
    }
    free(n->re);
    free(n->re_ok);
    free(n->repl);
    free(n->memo);
    free(n->set_first), free(n->rule_first), free(n->set_all_but);
    for (size_t i = 0; i < n->n_names; i++)
        free(n->names[i]);
    free(n->names), free(n->uidx), free(n->above);
    free(n->alpha), free(n->scratch);
    node_free(n->body);
    for (size_t k = 0; k < n->n_ops; k++) {
        node_free(n->ops[k]);
        if (n->lif)
            free(n->lif[k]);
    }
    free(n->ops);
    free(n->vcomp);
    free(n->vres);
    free(n->glob);
    free(n->n_lif);
    free(n->lif);
    free(n);
}

/* Every leaf's initial state, into vec. */
static void initial_vector(struct nnode *n, uint32_t *vec)
{
    if (n->kind == EXP_LEAF) {
        vec[n->lo] = n->initial;
        return;
    }
    if (n->body)
        initial_vector(n->body, vec);
    for (size_t k = 0; k < n->n_ops; k++)
        initial_vector(n->ops[k], vec);
}
