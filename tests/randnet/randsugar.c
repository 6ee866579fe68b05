/*
 * randsugar.c -- random networks in the CCS, CSP and mCRL syntaxes of EXP
 * 2.0 (randnet.h, params.sugar), included by randnet.c.
 *
 * The tree is built as the parser builds it for that syntax (the
 * equivalences of docs/formats.md, which parser/exp_sugar.c implements):
 *   CCS   A | B        PAR_COMM, ccs
 *         B \ {L..}    gate cut of each L and its co-name ('L / L)
 *         B [N/O, ..]  gate rename O -> N and 'O -> 'N
 *   CSP   A [| {G..} |] B          generalised par, global G
 *         A [{X..} || {Y..}] B     generalised par, global X & Y, over
 *                                  "cut all but X" (keeping the
 *                                  termination gate) of A, the same with Y of B
 *         B \ {L..}    gate hide
 *         B [[O <- N, ..]]  gate rename O -> N
 *   mCRL  A || B       PAR_COMM with the file's "comm a | b = c" list
 *         B \ {L..}    as in CCS (the parser reads "\" as restriction
 *                      outside CSP)
 * and LOTOS ||| in every one.  Labels written in these operators are names
 * the parser escapes into exact patterns; the names drawn here contain no
 * regex or template special character, so name and pattern coincide.  Each
 * such node carries a `form`, by which print_sugar writes it back in its
 * own syntax, every operand and the node itself parenthesised.
 *
 * Leaf labels: CCS gates A..D and co-names 'A..'D; CSP gates A..D and
 * sometimes "delta" (termination); mCRL gates a..d with offers "", "(1)",
 * "(2)".  CCS and CSP fold operator labels to upper case, so leaf gates are
 * upper case.  Hidden: "t" (CCS, CSP), "tau" (mCRL).
 */

static const char *const sugar_up[] = { "A", "B", "C", "D" };
static const char *const sugar_low[] = { "a", "b", "c", "d" };
static const char *const sugar_new[] = { "A", "B", "C", "D", "X", "Y" };

/* A fresh component for the sugar languages; returns its index. */
static size_t sugar_comp(struct gen *g)
{
    struct rng *r = &g->r;
    struct randnet *rn = g->rn;
    struct naive_lts l = { 0 };
    l.n_states = 1 + rng_below(r, 5);
    l.initial = rng_pct(r, 20) ? rng_below(r, l.n_states) : 0;
    char *alpha[8];
    size_t na = 0;
    size_t want = 2 + rng_below(r, 3);
    for (size_t i = 0; i < want; i++) {
        char buf[32];
        if (rn->lang == EXP_LANG_MCRL) {
            static const char *const off[] = { "", "(1)", "(2)" };
            snprintf(buf, sizeof buf, "%s%s", sugar_low[rng_below(r, 4)], off[rng_below(r, 3)]);
        } else {
            bool co = rn->lang == EXP_LANG_CCS && rng_pct(r, 45);
            snprintf(buf, sizeof buf, "%s%s", co ? "'" : "", sugar_up[rng_below(r, 4)]);
        }
        alpha[na++] = rn_strdup(buf);
    }
    if (rng_pct(r, 40))
        alpha[na++] = rn_strdup(rn->hidden);
    if (rn->lang == EXP_LANG_CSP && rng_pct(r, 10))
        alpha[na++] = rn_strdup("delta");
    l.src = rn_xmalloc(32 * sizeof *l.src);
    l.dst = rn_xmalloc(32 * sizeof *l.dst);
    l.label = rn_xmalloc(32 * sizeof *l.label);
    for (uint32_t s = 0; s < l.n_states; s++) {
        uint32_t m = rng_pct(r, 12) ? 0 : 1 + rng_below(r, 3);
        for (uint32_t k = 0; k < m && l.n_trans < 32; k++, l.n_trans++) {
            l.src[l.n_trans] = s;
            l.label[l.n_trans] = rn_strdup(alpha[rng_below(r, (uint32_t)na)]);
            l.dst[l.n_trans] = rng_below(r, l.n_states);
        }
    }
    for (size_t i = 0; i < na; i++)
        free(alpha[i]);
    return rn_push_comp(rn, l);
}

/* 1-2 distinct gate names of the language (upper case for CCS/CSP). */
static size_t sugar_names(struct rng *r, enum exp_lang lang, const char **out)
{
    const char *const *pool = lang == EXP_LANG_MCRL ? sugar_low : sugar_up;
    size_t a = rng_below(r, 4), n = 1 + rng_below(r, 2);
    out[0] = pool[a];
    if (n == 2)
        out[1] = pool[(a + 1 + rng_below(r, 3)) % 4];
    return n;
}

static struct exp_node *sugar_comm_par(struct randnet *rn, struct exp_node *a,
                                       struct exp_node *b)
{
    struct exp_node *ops[2] = { a, b };
    struct exp_node *n = rn_par(EXP_PAR_COMM, false, 2, ops);
    n->ccs = rn->lang == EXP_LANG_CCS;
    n->form = n->ccs ? "CCS A | B" : "mCRL A || B";
    if (!n->ccs && rn->n_comm) {
        n->n_pats = rn->n_comm;
        n->pats = rn_xmalloc(rn->n_comm * sizeof *n->pats);
        n->repls = rn_xmalloc(rn->n_comm * sizeof *n->repls);
        n->comm_res = rn_xmalloc(rn->n_comm * sizeof *n->comm_res);
        for (size_t i = 0; i < rn->n_comm; i++) {
            n->pats[i] = rn_strdup(rn->comm[3 * i]);
            n->repls[i] = rn_strdup(rn->comm[3 * i + 1]);
            n->comm_res[i] = rn_strdup(rn->comm[3 * i + 2]);
        }
    }
    return n;
}

/* CCS restriction / CSP hiding of names[0..k); restriction adds co-names. */
static struct exp_node *sugar_match(enum exp_lang lang, size_t k, const char **names,
                                    struct exp_node *body)
{
    bool csp = lang == EXP_LANG_CSP;
    char co[4][16];
    const char *pats[4];
    size_t np = 0;
    for (size_t i = 0; i < k; i++) {
        pats[np++] = names[i];
        if (!csp) {
            snprintf(co[i], sizeof co[i], "'%s", names[i]);
            pats[np++] = co[i];
        }
    }
    struct exp_node *n = csp ? rn_hide(EXP_MODE_GATE, false, np, pats, body)
                             : rn_cut(EXP_MODE_GATE, false, np, pats, body);
    n->form = csp ? "CSP hiding B \\ L" : "CCS restriction B \\ L";
    return n;
}

/* CCS relabelling (with co-names) or CSP renaming of distinct old names. */
static struct exp_node *sugar_rename(struct rng *r, enum exp_lang lang, struct exp_node *body)
{
    const char *old[2], *new_[2];
    size_t k = sugar_names(r, lang, old);
    for (size_t i = 0; i < k; i++)
        new_[i] = sugar_new[rng_below(r, 6)];
    bool ccs = lang == EXP_LANG_CCS;
    char co[4][16];
    const char *l[4], *rr[4];
    size_t np = 0;
    for (size_t i = 0; i < k; i++) {
        l[np] = old[i], rr[np++] = new_[i];
        if (ccs) {
            snprintf(co[2 * i], sizeof co[0], "'%s", old[i]);
            snprintf(co[2 * i + 1], sizeof co[0], "'%s", new_[i]);
            l[np] = co[2 * i], rr[np++] = co[2 * i + 1];
        }
    }
    struct exp_node *n = rn_rename(EXP_MODE_GATE, np, l, rr, body);
    n->form = ccs ? "CCS relabelling B [N/O]" : "CSP renaming B [[O <- N]]";
    return n;
}

/* CSP A [| G |] B or A [{X} || {Y}] B. */
static struct exp_node *sugar_csp_par(struct rng *r, struct exp_node *a, struct exp_node *b)
{
    const char *g[2], *x[2], *y[2];
    if (rng_pct(r, 50)) {
        size_t k = rng_pct(r, 15) ? 0 : sugar_names(r, EXP_LANG_CSP, g);
        struct exp_node *n = rn_lotos_par(k, g, a, b);
        n->form = "CSP A [| G |] B";
        return n;
    }
    size_t kx = sugar_names(r, EXP_LANG_CSP, x), ky = sugar_names(r, EXP_LANG_CSP, y);
    struct exp_node *ca = rn_cut(EXP_MODE_GATE, true, kx, x, a);
    struct exp_node *cb = rn_cut(EXP_MODE_GATE, true, ky, y, b);
    ca->keep_term = cb->keep_term = true;
    struct exp_node *n = rn_lotos_interleave(ca, cb);
    for (size_t i = 0; i < kx; i++)
        for (size_t j = 0; j < ky; j++)
            if (strcmp(x[i], y[j]) == 0)
                rn_add_global(n, x[i], -1);
    n->form = "CSP alphabetised A [{..} || {..}] B";
    return n;
}

/* A random subtree with `leaves` leaves. */
static struct exp_node *sugar_node(struct gen *g, uint32_t depth, uint32_t leaves)
{
    struct rng *r = &g->r;
    enum exp_lang lang = g->rn->lang;
    struct exp_node *n;
    if (leaves <= 1 || depth >= 3) {
        size_t c = sugar_comp(g);      /* before reading comp_names, which it moves */
        n = rn_leaf(g->rn->comp_names[c]);
    } else {
        uint32_t left = 1 + rng_below(r, leaves - 1);
        struct exp_node *a = sugar_node(g, depth + 1, left);
        struct exp_node *b = sugar_node(g, depth + 1, leaves - left);
        if (rng_pct(r, 15))
            n = rn_lotos_interleave(a, b);
        else if (lang == EXP_LANG_CSP)
            n = sugar_csp_par(r, a, b);
        else
            n = sugar_comm_par(g->rn, a, b);
    }
    if (rng_pct(r, 35)) {
        if (rng_pct(r, 50)) {
            const char *names[2];
            size_t k = sugar_names(r, lang, names);
            n = sugar_match(lang, k, names, n);
        } else if (lang != EXP_LANG_MCRL) {
            n = sugar_rename(r, lang, n);
        }
    }
    return n;
}

/* The mCRL comm list: 1-3 declarations on distinct unordered pairs. */
static void sugar_comm_decls(struct gen *g)
{
    struct randnet *rn = g->rn;
    static const char *const res[] = { "x", "y", "a", "c" };
    size_t want = 1 + rng_below(&g->r, 3);
    for (size_t t = 0; t < 8 && rn->n_comm < want; t++) {
        const char *a = sugar_low[rng_below(&g->r, 4)], *b = sugar_low[rng_below(&g->r, 4)];
        bool dup = false;
        for (size_t i = 0; i < rn->n_comm; i++)
            dup |= (!strcmp(rn->comm[3 * i], a) && !strcmp(rn->comm[3 * i + 1], b)) ||
                   (!strcmp(rn->comm[3 * i], b) && !strcmp(rn->comm[3 * i + 1], a));
        if (dup)
            continue;
        rn->comm = rn_xrealloc(rn->comm, 3 * (rn->n_comm + 1) * sizeof *rn->comm);
        rn->comm[3 * rn->n_comm] = rn_strdup(a);
        rn->comm[3 * rn->n_comm + 1] = rn_strdup(b);
        rn->comm[3 * rn->n_comm + 2] = rn_strdup(res[rng_below(&g->r, 4)]);
        rn->n_comm++;
    }
}

/* The root of a sugar seed in language `lang` (rn->lang set by the caller). */
static struct exp_node *sugar_root(struct gen *g)
{
    if (g->rn->lang == EXP_LANG_MCRL)
        sugar_comm_decls(g);
    return sugar_node(g, 0, 1 + rng_below(&g->r, 4));
}

/* The file header of a sugar seed: language, and mCRL's comm list. */
static char *sugar_header(const struct randnet *rn)
{
    struct sb b = { 0 };
    sb_str(&b, rn->lang == EXP_LANG_CCS ? "ccs behaviour\n"
               : rn->lang == EXP_LANG_CSP ? "csp behaviour\n"
                                          : "mcrl behaviour\n");
    for (size_t i = 0; i < rn->n_comm; i++)
        sb_fmt(&b, "%s%s | %s = %s", i ? ",\n     " : "comm ", rn->comm[3 * i],
               rn->comm[3 * i + 1], rn->comm[3 * i + 2]);
    if (rn->n_comm)
        sb_str(&b, "\nend comm\n");
    return b.s;
}

static void sugar_operand(struct sb *b, struct pctx *st, const struct exp_node *n, int indent)
{
    sb_str(b, "(");
    print_node(b, st, n, indent);
    sb_str(b, ")");
}

/* "{l1, l2}" (or a lone label sometimes) of every `step`-th name. */
static void sugar_set(struct sb *b, struct pctx *st, size_t n, char *const *l, size_t step)
{
    bool braces = n > step || rng_pct(&st->r, 60);
    if (braces)
        sb_str(b, "{");
    for (size_t i = 0; i < n; i += step) {
        if (i)
            sb_str(b, ", ");
        print_label(b, st, l[i]);
    }
    if (braces)
        sb_str(b, "}");
}

/* Writes a node built by this file in its own syntax; false for others. */
static bool print_sugar(struct sb *b, struct pctx *st, const struct exp_node *n, int indent)
{
    const char *f = n->form;
    if (!f)
        return false;
    sb_str(b, "(");
    if (!strcmp(f, "CCS A | B") || !strcmp(f, "mCRL A || B")) {
        sugar_operand(b, st, n->ops[0], indent + 1);
        nl(b, indent);
        sb_str(b, n->ccs ? "| " : "|| ");
        sugar_operand(b, st, n->ops[1], indent + 1);
    } else if (!strcmp(f, "CCS restriction B \\ L") || !strcmp(f, "CSP hiding B \\ L")) {
        sugar_operand(b, st, n->body, indent + 1);
        sb_str(b, " \\ ");
        sugar_set(b, st, n->n_pats, n->pats, n->kind == EXP_CUT ? 2 : 1);
    } else if (!strcmp(f, "CCS relabelling B [N/O]")) {
        sugar_operand(b, st, n->body, indent + 1);
        sb_str(b, " [");
        for (size_t i = 0; i < n->n_pats; i += 2) {
            sb_str(b, i ? ", " : "");
            print_label(b, st, n->repls[i]);
            sb_str(b, "/");
            print_label(b, st, n->pats[i]);
        }
        sb_str(b, "]");
    } else if (!strcmp(f, "CSP renaming B [[O <- N]]")) {
        sugar_operand(b, st, n->body, indent + 1);
        sb_str(b, " [[");
        for (size_t i = 0; i < n->n_pats; i++) {
            sb_str(b, i ? ", " : "");
            print_label(b, st, n->pats[i]);
            sb_str(b, " <- ");
            print_label(b, st, n->repls[i]);
        }
        sb_str(b, "]]");
    } else if (!strcmp(f, "CSP A [| G |] B")) {
        sugar_operand(b, st, n->ops[0], indent + 1);
        nl(b, indent);
        sb_str(b, "[| {");
        for (size_t i = 0; i < n->global.n; i++) {
            sb_str(b, i ? ", " : "");
            print_label(b, st, n->global.el[i].label);
        }
        sb_str(b, "} |] ");
        sugar_operand(b, st, n->ops[1], indent + 1);
    } else {                                     /* CSP alphabetised */
        sugar_operand(b, st, n->ops[0]->body, indent + 1);
        nl(b, indent);
        sb_str(b, "[{");
        for (size_t i = 0; i < n->ops[0]->n_pats; i++) {
            sb_str(b, i ? ", " : "");
            print_label(b, st, n->ops[0]->pats[i]);
        }
        sb_str(b, "} || {");
        for (size_t i = 0; i < n->ops[1]->n_pats; i++) {
            sb_str(b, i ? ", " : "");
            print_label(b, st, n->ops[1]->pats[i]);
        }
        sb_str(b, "}] ");
        sugar_operand(b, st, n->ops[1]->body, indent + 1);
    }
    sb_str(b, ")");
    return true;
}
