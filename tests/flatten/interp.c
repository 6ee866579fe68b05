/*
 * interp.c -- the differential test: a direct
 * interpreter of the EXP tree against the flattened network on random
 * trees over random LTSs.
 *
 * Part of test_network.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ------------------------------------------------------------------ */
/* Differential test: a direct interpreter of the EXP tree               */
/*
 * The interpreter knows nothing of rules: in a product state (the vector of
 * every leaf's state, leaves in left-to-right order, original numbering) it
 * computes the successors of each node from its operands' successors, with
 * string labels, following exp(LOCAL) operator by operator.  Its product
 * must have the same numbers of states and transitions, label by label, as
 * the flattened network.
 */

struct imove {
    char *label;
    uint32_t *vec; /* the whole product vector after the move */
};

struct imoves {
    size_t n, cap;
    struct imove *m;
};

struct ictx {
    uint32_t width;          /* number of leaves */
    const struct mem_leaf *tab;
    bool rate, prob;
    const char *hidden;
    struct { const struct exp_node *node; struct label_match m; } cache[64];
    size_t ncache;
};

static void im_push(struct imoves *ms, const char *label, size_t len, const uint32_t *vec,
                    uint32_t w)
{
    if (ms->n == ms->cap)
        ms->m = realloc(ms->m, (ms->cap = ms->cap ? 2 * ms->cap : 16) * sizeof *ms->m);
    ms->m[ms->n].label = strndup(label, len);
    ms->m[ms->n].vec = malloc((w ? w : 1) * sizeof(uint32_t));
    memcpy(ms->m[ms->n].vec, vec, w * sizeof(uint32_t));
    ms->n++;
}

static void im_free(struct imoves *ms)
{
    for (size_t i = 0; i < ms->n; i++)
        free(ms->m[i].label), free(ms->m[i].vec);
    free(ms->m);
    memset(ms, 0, sizeof *ms);
}

static size_t n_leaves(const struct exp_node *n)
{
    if (n->kind == EXP_LEAF)
        return 1;
    if (n->body)
        return n_leaves(n->body);
    size_t k = 0;
    for (size_t i = 0; i < n->n_ops; i++)
        k += n_leaves(n->ops[i]);
    return k;
}

static const struct label_match *imatch(struct ictx *c, const struct exp_node *n)
{
    for (size_t i = 0; i < c->ncache; i++)
        if (c->cache[i].node == n)
            return &c->cache[i].m;
    struct wx_error err;
    label_match_compile(&c->cache[c->ncache].m, n->mode, n->n_pats, n->pats,
                        n->kind == EXP_RENAME ? n->repls : NULL, false, "i", at(1, 1), &err);
    c->cache[c->ncache].node = n;
    return &c->cache[c->ncache++].m;
}

/* "KW NUMBER" or "KW P/Q", possibly after "LABEL;" (renames can make them) */
static bool i_kw(const char *l, const char *kw)
{
    const char *semi = strrchr(l, ';');
    if (semi)
        l = semi + 1;
    while (*l == ' ')
        l++;
    double x, y;
    int end = -1;
    char fmt[32];
    snprintf(fmt, sizeof fmt, "%s %%lf%%n", kw);
    if (sscanf(l, fmt, &x, &end) == 1 && end > 0 && l[end] == '\0')
        return true;
    snprintf(fmt, sizeof fmt, "%s %%lf/%%lf%%n", kw);
    end = -1;
    return sscanf(l, fmt, &x, &y, &end) == 2 && end > 0 && l[end] == '\0';
}

static bool i_stoch(const struct ictx *c, const char *l)
{
    return (c->rate && i_kw(l, "rate")) || (c->prob && i_kw(l, "prob"));
}

static bool i_gate_eq(const char *label, const char *gate)
{
    size_t g = label_gate_len(label);
    return strlen(gate) == g && strncmp(label, gate, g) == 0;
}

static void isucc(struct ictx *c, const struct exp_node *n, size_t first, const uint32_t *st,
                  struct imoves *out);

/* All choices of one move per listed operand (lists[j]), merged into st. */
static void icombine(struct ictx *c, const uint32_t *st, size_t k, struct imoves **lists,
                     const size_t *lo, const size_t *hi, const char *label,
                     struct imoves *out)
{
    size_t idx[16] = {0};
    for (size_t j = 0; j < k; j++)
        if (lists[j]->n == 0)
            return;
    uint32_t *v = malloc(c->width * sizeof *v);
    for (;;) {
        memcpy(v, st, c->width * sizeof *v);
        for (size_t j = 0; j < k; j++)
            memcpy(v + lo[j], lists[j]->m[idx[j]].vec + lo[j], (hi[j] - lo[j]) * sizeof *v);
        im_push(out, label, strlen(label), v, c->width);
        size_t j = k;
        while (j > 0 && ++idx[j - 1] == lists[j - 1]->n) {
            idx[j - 1] = 0;
            j--;
        }
        if (j == 0)
            break;
    }
    free(v);
}

/* Moves of `ms` whose label is exactly `label` (copies). */
static void ifilter(const struct imoves *ms, const char *label, uint32_t w, struct imoves *out)
{
    for (size_t i = 0; i < ms->n; i++)
        if (strcmp(ms->m[i].label, label) == 0)
            im_push(out, ms->m[i].label, strlen(ms->m[i].label), ms->m[i].vec, w);
}

static bool sync_iface_has(const struct exp_iface *f, const char *key, int degree)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->el[i].label, key) == 0 && (degree == -2 || f->el[i].degree == degree))
            return true;
    return false;
}

static void add_pat(unsigned *pats, size_t *np, unsigned mask)
{
    for (size_t q = 0; q < *np; q++)
        if (pats[q] == mask)
            return;
    pats[(*np)++] = mask;
}

static void isucc(struct ictx *c, const struct exp_node *n, size_t first, const uint32_t *st,
                  struct imoves *out)
{
    uint32_t w = c->width;
    if (n->kind == EXP_LEAF) {
        const struct mem_leaf *lf = NULL;
        for (size_t i = 0; c->tab[i].name; i++)
            if (strcmp(c->tab[i].name, n->path) == 0)
                lf = &c->tab[i];
        char *spec = strdup(lf->spec), *save = NULL;
        uint32_t *v = malloc(w * sizeof *v);
        strtok_r(spec, "|", &save);
        for (char *tok; (tok = strtok_r(NULL, "|", &save));) {
            char *c1 = strchr(tok, ':'), *c2 = strrchr(tok, ':');
            if ((uint32_t)atoi(tok) != st[first])
                continue;
            memcpy(v, st, w * sizeof *v);
            v[first] = (uint32_t)atoi(c2 + 1);
            im_push(out, c1 + 1, (size_t)(c2 - c1 - 1), v, w);
        }
        free(v), free(spec);
        /* a leaf's transitions are a set */
        for (size_t i = 0; i < out->n; i++)
            for (size_t j = i + 1; j < out->n; j++)
                if (strcmp(out->m[i].label, out->m[j].label) == 0 &&
                    out->m[i].vec[first] == out->m[j].vec[first]) {
                    free(out->m[j].label), free(out->m[j].vec);
                    out->m[j--] = out->m[--out->n];
                }
        return;
    }
    if (n->kind == EXP_HIDE || n->kind == EXP_CUT || n->kind == EXP_RENAME) {
        struct imoves in = {0};
        isucc(c, n->body, first, st, &in);
        const struct label_match *m = imatch(c, n);
        for (size_t i = 0; i < in.n; i++) {
            const char *l = in.m[i].label;
            bool hidden = strcmp(l, c->hidden) == 0;
            if (n->kind == EXP_RENAME) {
                char *to = NULL;
                if (!hidden && label_match_rewrite(m, l, &to) == 1) {
                    im_push(out, to, strlen(to), in.m[i].vec, w);
                    free(to);
                } else {
                    im_push(out, l, strlen(l), in.m[i].vec, w);
                }
                continue;
            }
            bool hit = !hidden && (label_match_find(m, l) >= 0) != n->all_but;
            if (n->kind == EXP_HIDE)
                im_push(out, hit ? c->hidden : l, strlen(hit ? c->hidden : l), in.m[i].vec, w);
            else if (!hit)
                im_push(out, l, strlen(l), in.m[i].vec, w);
        }
        im_free(&in);
        return;
    }
    size_t k = n->n_ops;
    struct imoves ops[8] = {{0}};
    size_t lo[8], hi[8], at_leaf = first;
    for (size_t i = 0; i < k; i++) {
        lo[i] = at_leaf;
        hi[i] = at_leaf += n_leaves(n->ops[i]);
        isucc(c, n->ops[i], lo[i], st, &ops[i]);
    }
    /* interleaving moves: hidden and stochastic */
    for (size_t i = 0; i < k; i++)
        for (size_t x = 0; x < ops[i].n; x++) {
            const char *l = ops[i].m[x].label;
            if (strcmp(l, c->hidden) == 0 || i_stoch(c, l))
                im_push(out, l, strlen(l), ops[i].m[x].vec, w);
        }
    if (n->kind == EXP_PAR_VECTORS) {
        for (size_t v = 0; v < n->n_vecs; v++) {
            const struct exp_vector *vec = &n->vecs[v];
            /* candidate moves per position; gate mode: by offers of position p0 */
            size_t p0 = 0;
            while (!vec->comp[p0])
                p0++;
            for (size_t x = 0; x < ops[p0].n; x++) {
                const char *l0 = ops[p0].m[x].label;
                if (strcmp(l0, c->hidden) == 0 || i_stoch(c, l0))
                    continue;
                bool ok0 = n->label_mode ? strcmp(l0, vec->comp[p0]) == 0
                                         : i_gate_eq(l0, vec->comp[p0]);
                if (!ok0)
                    continue;
                const char *offers = n->label_mode ? "" : l0 + label_gate_len(l0);
                /* x fixed at p0 (dedupe: only the first move of each label) */
                struct imoves lists[8] = {{0}};
                struct imoves *lp[8];
                size_t llo[8], lhi[8], kk = 0;
                for (size_t i = 0; i < k; i++) {
                    if (!vec->comp[i])
                        continue;
                    for (size_t y = 0; y < ops[i].n; y++) {
                        const char *l = ops[i].m[y].label;
                        if (strcmp(l, c->hidden) == 0 || i_stoch(c, l))
                            continue;
                        bool ok = i == p0 ? y == x
                                  : n->label_mode ? strcmp(l, vec->comp[i]) == 0
                                                  : i_gate_eq(l, vec->comp[i]) &&
                                                        strcmp(l + label_gate_len(l), offers) == 0;
                        if (ok)
                            im_push(&lists[kk], l, strlen(l), ops[i].m[y].vec, w);
                    }
                    lp[kk] = &lists[kk];
                    llo[kk] = lo[i], lhi[kk] = hi[i];
                    kk++;
                }
                char res[256];
                snprintf(res, sizeof res, "%s%s", vec->result, offers);
                icombine(c, st, kk, lp, llo, lhi, res, out);
                for (size_t j = 0; j < kk; j++)
                    im_free(&lists[j]);
            }
        }
    } else {
        /* every visible label present: its participant patterns */
        for (size_t i0 = 0; i0 < k; i0++)
            for (size_t x0 = 0; x0 < ops[i0].n; x0++) {
                const char *a = ops[i0].m[x0].label;
                if (strcmp(a, c->hidden) == 0 || i_stoch(c, a))
                    continue;
                bool seen = false; /* handle each label once */
                for (size_t i = 0; i <= i0 && !seen; i++)
                    for (size_t x = 0; x < (i == i0 ? x0 : ops[i].n) && !seen; x++)
                        seen = strcmp(ops[i].m[x].label, a) == 0;
                if (seen)
                    continue;
                struct imoves with[8] = {{0}};
                for (size_t i = 0; i < k; i++)
                    ifilter(&ops[i], a, w, &with[i]);
                char key[256];
                snprintf(key, sizeof key, "%.*s", (int)(n->label_mode ? strlen(a)
                                                                      : label_gate_len(a)), a);
                /* patterns as bit masks over operands, deduplicated */
                unsigned pats[512];
                size_t np = 0;
                unsigned all = (1u << k) - 1;
                if (i_gate_eq(a, "exit")) {
                    add_pat(pats, &np, all);
                } else {
                    bool global = n->global_all || sync_iface_has(&n->global, key, -2);
                    if (n->global_all || sync_iface_has(&n->global, key, -1))
                        add_pat(pats, &np, all);
                    for (int d = 1; d <= (int)k; d++)
                        if (sync_iface_has(&n->global, key, d))
                            for (unsigned m = 1; m <= all; m++)
                                if ((unsigned)__builtin_popcount(m) == (unsigned)d)
                                    add_pat(pats, &np, m);
                    for (int d = -1; d <= (int)k; d++) {
                        if (d == 0)
                            continue;
                        unsigned listing = 0;
                        for (size_t i = 0; i < k; i++)
                            if (n->has_local[i] && sync_iface_has(&n->locals[i], key, d))
                                listing |= 1u << i;
                        if (!listing)
                            continue;
                        if (d == -1)
                            add_pat(pats, &np, listing);
                        else
                            for (unsigned m = 1; m <= all; m++)
                                if ((m & ~listing) == 0 &&
                                    (unsigned)__builtin_popcount(m) == (unsigned)d)
                                    add_pat(pats, &np, m);
                    }
                    for (size_t i = 0; i < k; i++)
                        if (!global && !(n->has_local[i] &&
                                         sync_iface_has(&n->locals[i], key, -2)))
                            add_pat(pats, &np, 1u << i);
                }
                /* the same full pattern can come out of several elements: the
                 * product transitions are a set anyway */
                for (size_t q = 0; q < np; q++) {
                    struct imoves *lp[8];
                    size_t llo[8], lhi[8], kk = 0;
                    for (size_t i = 0; i < k; i++)
                        if (pats[q] >> i & 1) {
                            lp[kk] = &with[i];
                            llo[kk] = lo[i], lhi[kk] = hi[i];
                            kk++;
                        }
                    icombine(c, st, kk, lp, llo, lhi, a, out);
                }
                for (size_t i = 0; i < k; i++)
                    im_free(&with[i]);
            }
    }
    for (size_t i = 0; i < k; i++)
        im_free(&ops[i]);
}

/* Explores the tree directly; same result shape as explore(). */
static struct xres iexplore(struct ictx *c, const struct exp_node *root)
{
    struct xres r;
    memset(&r, 0, sizeof r);
    uint32_t w = c->width;
    struct vset set = {.width = w};
    uint32_t *init = calloc(w + 1, sizeof *init);
    size_t leaf = 0;
    /* initial vector: each leaf's initial state, in left-to-right order */
    const struct exp_node *stack[64];
    size_t sp = 0;
    stack[sp++] = root;
    while (sp) {
        const struct exp_node *n = stack[--sp];
        if (n->kind == EXP_LEAF) {
            for (size_t i = 0; c->tab[i].name; i++)
                if (strcmp(c->tab[i].name, n->path) == 0)
                    init[leaf] = c->tab[i].initial;
            leaf++;
        } else if (n->body) {
            stack[sp++] = n->body;
        } else {
            for (size_t i = n->n_ops; i-- > 0;)
                stack[sp++] = n->ops[i];
        }
    }
    vset_put(&set, init);
    struct strtab *labels = strtab_new();
    struct triple *tr = NULL;
    size_t ntr = 0, cap = 0;
    for (uint64_t id = 0; id < set.n; id++) {
        uint32_t *cur = malloc((w ? w : 1) * sizeof *cur);
        memcpy(cur, set.vec + id * w, w * sizeof *cur);
        struct imoves ms = {0};
        isucc(c, root, 0, cur, &ms);
        for (size_t i = 0; i < ms.n; i++) {
            uint64_t d = vset_put(&set, ms.m[i].vec);
            if (ntr == cap)
                tr = realloc(tr, (cap = cap ? 2 * cap : 256) * sizeof *tr);
            tr[ntr++] = (struct triple){id, d, strtab_intern(labels, ms.m[i].label,
                                                             strlen(ms.m[i].label))};
        }
        if (ms.n == 0)
            r.deadlocks++;
        im_free(&ms);
        free(cur);
    }
    const size_t m = triples_unique(tr, ntr);
    r.states = set.n;
    r.trans = m;
    render_labels(labels, tr, m, r.labels, sizeof r.labels);
    strtab_free(labels);
    free(tr), free(init), free(set.vec), free(set.slot);
    return r;
}

/* --- random trees --- */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33) % n;
}

static const char *const r_labels[] = {"A", "A !1", "A !2", "B", "B !1", "C !2", "i", "i",
                                       "exit", "rate 0.5", "prob 1/2"};
static const char *const r_hide_pats[] = {"A", "B", "A.*", "[AB]", "!1", ".*2", "C !2",
                                          "B\\|C", "exit"};
static const char *const r_ren[][2] = {{"A", "B"}, {"B", "A"}, {"\\(.\\) !\\(.\\)", "\\2 \\1"},
                                       {"[AB]", "C"}, {"1", "2"}, {"A", "i"}, {"B", "A !1"},
                                       {".*", "x&"}};
static const char *const r_gates[] = {"A", "B", "C", "exit"};
static const char *const r_full[] = {"A", "A !1", "B !1", "C !2", "B"};

static char r_leaf_names[16][8];
static char r_leaf_specs[16][256];
static struct mem_leaf r_tab[17];
static int r_nleaves;

static struct exp_node *r_leaf(void)
{
    int k = r_nleaves++;
    snprintf(r_leaf_names[k], sizeof r_leaf_names[k], "r%d", k);
    uint32_t ns = 1 + rnd(4), nt = rnd(3) + rnd(8);
    int len = snprintf(r_leaf_specs[k], sizeof r_leaf_specs[k], "%u", ns);
    for (uint32_t t = 0; t < nt; t++)
        len += snprintf(r_leaf_specs[k] + len, sizeof r_leaf_specs[k] - (size_t)len,
                        "|%u:%s:%u", rnd(ns), r_labels[rnd(11)], rnd(ns));
    r_tab[k] = (struct mem_leaf){r_leaf_names[k], r_leaf_specs[k], rnd(ns)};
    r_tab[k + 1] = (struct mem_leaf){NULL, NULL, 0};
    return LEAF(r_leaf_names[k]);
}

static struct exp_node *r_tree(int depth)
{
    uint32_t what = depth <= 0 || r_nleaves >= 6 ? 0 : rnd(7);
    switch (what) {
    case 0:
        return r_leaf();
    case 1:
    case 2: {
        static const enum exp_mode modes[] = {EXP_MODE_GATE, EXP_MODE_TOTAL, EXP_MODE_PARTIAL};
        const char *p[3] = {r_hide_pats[rnd(9)], r_hide_pats[rnd(9)], NULL};
        if (rnd(2))
            p[1] = NULL;
        return MATCH(what == 1 ? EXP_HIDE : EXP_CUT, modes[rnd(3)], rnd(4) == 0, p,
                     r_tree(depth - 1));
    }
    case 3: {
        static const enum exp_mode modes[] = {EXP_MODE_GATE, EXP_MODE_TOTAL, EXP_MODE_SINGLE,
                                              EXP_MODE_MULTIPLE};
        uint32_t a = rnd(8), b = rnd(8);
        const char *p[5] = {r_ren[a][0], r_ren[a][1], r_ren[b][0], r_ren[b][1], NULL};
        if (rnd(2))
            p[2] = NULL;
        return RENAME_(modes[rnd(4)], p, r_tree(depth - 1));
    }
    case 4:
    case 5: {
        size_t k = 1 + rnd(3);
        bool label_mode = rnd(2);
        struct exp_node *ops[4] = {NULL};
        for (size_t i = 0; i < k; i++)
            ops[i] = r_tree(depth - 1);
        char specs[8][128];
        const char *vecs[9] = {NULL};
        size_t nv = 1 + rnd(8);
        for (size_t v = 0; v < nv; v++) {
            int len = 0;
            bool any = false;
            for (size_t i = 0; i < k; i++) {
                const char *e = "_";
                if (rnd(2 + (v & 1)) || (!any && i + 1 == k)) {
                    e = label_mode ? r_full[rnd(5)] : r_gates[rnd(4)];
                    any = true;
                }
                len += snprintf(specs[v] + len, sizeof specs[v] - (size_t)len, "%s%s",
                                i ? " * " : "", e);
            }
            static const char *const res[] = {"X", "Y", "A", "exit", "i"};
            snprintf(specs[v] + len, sizeof specs[v] - (size_t)len, " -> %s", res[rnd(5)]);
            vecs[v] = specs[v];
        }
        return VPAR_(label_mode, vecs, ops);
    }
    default: {
        size_t k = 2 + rnd(2);
        bool label_mode = rnd(2);
        struct exp_node *ops[4] = {NULL};
        for (size_t i = 0; i < k; i++)
            ops[i] = r_tree(depth - 1);
        /* interfaces: no #0 (its misuse is an error, tested by hand) */
        char g[64] = "", l[3][64];
        const char *locals[3] = {NULL, NULL, NULL};
        uint32_t gk = rnd(4);
        const char *gl = NULL;
        if (gk == 1) {
            gl = "all";
        } else if (gk >= 2) {
            int len = 0;
            for (uint32_t e = 0, ne = 1 + rnd(2); e < ne; e++) {
                const char *el = label_mode ? r_full[rnd(5)] : r_gates[rnd(3)];
                int d = (int)rnd(5) - 1; /* -1 (none), 0 -> none, 1..3 */
                len += d >= 1 ? snprintf(g + len, sizeof g - (size_t)len, "%s%s#%d", e ? ", " : "",
                                         el, d)
                              : snprintf(g + len, sizeof g - (size_t)len, "%s%s", e ? ", " : "", el);
            }
            gl = g;
        }
        for (size_t i = 0; i < k; i++)
            if (rnd(2)) {
                const char *el = label_mode ? r_full[rnd(5)] : r_gates[rnd(3)];
                int d = (int)rnd(4) - 1;
                if (d >= 1)
                    snprintf(l[i], sizeof l[i], "%s#%d", el, d);
                else
                    snprintf(l[i], sizeof l[i], "%s", el);
                locals[i] = l[i];
            }
        return GPAR(label_mode, gl, ops, locals);
    }
    }
}

static void test_random(uint64_t seed, int cases)
{
    int bad = 0, built = 0, moving = 0, big = 0;
    uint64_t max_states = 0, sum_trans = 0;
    for (int t = 0; t < cases && bad < 5; t++) {
        rng_state = seed + (uint64_t)t * 0x9e3779b97f4a7c15ull;
        rnd(2);
        r_nleaves = 0;
        struct exp_node *root = r_tree(3);
        struct bopt o = {.rate = rnd(2), .prob = rnd(2)};
        struct ictx c = {.width = (uint32_t)n_leaves(root), .tab = r_tab, .rate = o.rate,
                         .prob = o.prob, .hidden = "i"};
        g_leaves = r_tab;
        struct network net;
        struct wx_error err;
        int rc = build(root, &o, &net, &err);
        if (rc != WX_OK) {
            /* only a vector result "i" next to ... never: every generated tree
             * is valid, so a failure is a bug */
            check(0, "random seed %llu case %d: build failed: %s",
                  (unsigned long long)seed, t, err.msg);
            bad++;
            exp_node_free(root);
            continue;
        }
        built++;
        struct xres a = explore(&net), b = iexplore(&c, root);
        moving += a.trans > 0;
        big += a.states >= 10;
        sum_trans += a.trans;
        if (a.states > max_states)
            max_states = a.states;
        bool same = a.states == b.states && a.trans == b.trans && strcmp(a.labels, b.labels) == 0;
        if (!same) {
            check(0, "random seed %llu case %d: flattened %llu states %llu trans [%s], "
                     "interpreted %llu states %llu trans [%s]",
                  (unsigned long long)seed, t, (unsigned long long)a.states,
                  (unsigned long long)a.trans, a.labels, (unsigned long long)b.states,
                  (unsigned long long)b.trans, b.labels);
            bad++;
        }
        network_free(&net);
        for (size_t i = 0; i < c.ncache; i++)
            label_match_free(&c.cache[i].m);
        exp_node_free(root);
    }
    check(bad == 0, "random differential test, seed %llu: %d trees agree", (unsigned long long)seed,
          built);
    printf("random trees: %d with transitions, %d with >= 10 states, at most %llu states, "
           "%llu transitions in all\n", moving, big, (unsigned long long)max_states,
           (unsigned long long)sum_trans);
    g_leaves = leaves;
}
