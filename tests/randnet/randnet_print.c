/*
 * randnet_print.c -- EXP text of a tree (rn_print), in a
 * layout and label spelling drawn from a style seed.
 *
 * Part of randnet.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

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

/* The mode word of hide, cut, rename or prio: always when it is not the
 * default (gate), else sometimes ("gate" written out). */
static void print_mode(struct sb *b, struct pctx *st, const struct exp_node *n)
{
    if (n->mode != EXP_MODE_GATE || rng_pct(&st->r, 30)) {
        sb_str(b, mode_word(n->mode));
        sb_str(b, " ");
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
        print_mode(b, st, n);
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
        print_mode(b, st, n);
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
        print_mode(b, st, n);
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
