/*
 * test_exp_parse.c -- the EXP 2.0 front end (parser/exp.l, exp.y, exp_ast.c).
 *
 *  1. Constructs: each input is parsed and its tree, printed in a compact
 *     form (dump below), is compared with the tree written by hand.
 *  2. Details the dump does not show: locations, header/lang, escapes,
 *     degrees, has_local flags.
 *  3. Malformed inputs: every file of tests/bad/exp is listed in its EXPECT
 *     manifest with the line:col and a part of the one message expected.
 *  4. Good files (tests/good/exp): parse, with hand-written dumps for some.
 *  5. Round trip on every tree parsed: print it back as EXP text (fully
 *     bracketed, every label quoted), parse that, compare the dumps -- an
 *     oracle independent of the grammar's disambiguation rules.
 *  6. Fuzz: random byte/token mutations of valid inputs (seed printed); the
 *     parser must return cleanly (ok with a well-formed tree, or one located
 *     error and no tree), deterministically.
 *  7. Limits: deep nesting, long operator chains, big par.
 *
 * Dump notation: L(path); hide.MODE(p,..)[B], "!" after the mode = all but;
 * cut likewise; rename.MODE(l->r,..)[B]; vpar.gate|label<a*_*b->r,..>[B|..];
 * par.gate|label{GLOBAL}[LOCAL->B|..] with GLOBAL "all" or L#N,.. .
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parser/exp_ast.h"

/* ---- a growable string ---------------------------------------------------- */

struct sb {
    char *s;
    size_t n, cap;
};

static void sb_putn(struct sb *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void sb_puts(struct sb *b, const char *s) { sb_putn(b, s, strlen(s)); }

__attribute__((format(printf, 2, 3)))
static void sb_printf(struct sb *b, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    sb_puts(b, tmp);
}

/* ---- dump ------------------------------------------------------------------- */

static const char *const mode_txt[] = { "gate", "total", "partial", "single", "multiple" };

static void dump_iface(struct sb *b, const struct exp_iface *i)
{
    for (size_t k = 0; k < i->n; k++) {
        if (k)
            sb_puts(b, ",");
        sb_puts(b, i->el[k].label);
        if (i->el[k].degree >= 0)
            sb_printf(b, "#%d", i->el[k].degree);
    }
}

static void dump_node(struct sb *b, const struct exp_node *n)
{
    size_t i, k;

    switch (n->kind) {
    case EXP_PAR_COMM:
        sb_puts(b, n->ccs ? "ccs{" : "comm{");
        for (i = 0; i < n->n_pats; i++)
            sb_printf(b, "%s%s|%s=%s", i ? "," : "", n->pats[i], n->repls[i], n->comm_res[i]);
        sb_puts(b, "}[");
        dump_node(b, n->ops[0]);
        sb_puts(b, "|");
        dump_node(b, n->ops[1]);
        sb_puts(b, "]");
        return;
    case EXP_PRIO:
        sb_printf(b, "prio.%s(", mode_txt[n->mode]);
        for (i = 0; i < n->n_prio; i++) {
            sb_puts(b, i ? ";" : "");
            for (size_t j = 0; j < n->prio[i].n; j++) {
                const struct exp_prio_set *x = &n->prio[i].sets[j];
                sb_printf(b, "%s%s", j ? ">" : "", x->all_but ? "~" : "");
                for (size_t k = 0; k < x->n; k++)
                    sb_printf(b, "%s%s", k ? "," : "", x->pats[k]);
            }
        }
        sb_puts(b, ")[");
        dump_node(b, n->body);
        sb_puts(b, "]");
        return;
    case EXP_LEAF:
        sb_printf(b, "L(");
        sb_puts(b, n->path);
        sb_puts(b, ")");
        break;
    case EXP_HIDE:
    case EXP_CUT:
        sb_puts(b, n->kind == EXP_HIDE ? "hide." : "cut.");
        sb_puts(b, mode_txt[n->mode]);
        sb_puts(b, n->all_but ? "!(" : "(");
        for (i = 0; i < n->n_pats; i++) {
            if (i)
                sb_puts(b, ",");
            sb_puts(b, n->pats[i]);
        }
        sb_puts(b, ")[");
        dump_node(b, n->body);
        sb_puts(b, "]");
        break;
    case EXP_RENAME:
        sb_puts(b, "rename.");
        sb_puts(b, mode_txt[n->mode]);
        sb_puts(b, "(");
        for (i = 0; i < n->n_pats; i++) {
            if (i)
                sb_puts(b, ",");
            sb_puts(b, n->pats[i]);
            sb_puts(b, "->");
            sb_puts(b, n->repls[i]);
        }
        sb_puts(b, ")[");
        dump_node(b, n->body);
        sb_puts(b, "]");
        break;
    case EXP_PAR_VECTORS:
        sb_puts(b, n->label_mode ? "vpar.label<" : "vpar.gate<");
        for (i = 0; i < n->n_vecs; i++) {
            if (i)
                sb_puts(b, ",");
            for (k = 0; k < n->vecs[i].n; k++) {
                if (k)
                    sb_puts(b, "*");
                sb_puts(b, n->vecs[i].comp[k] ? n->vecs[i].comp[k] : "_");
            }
            sb_puts(b, "->");
            sb_puts(b, n->vecs[i].result);
        }
        sb_puts(b, ">[");
        for (i = 0; i < n->n_ops; i++) {
            if (i)
                sb_puts(b, "|");
            dump_node(b, n->ops[i]);
        }
        sb_puts(b, "]");
        break;
    case EXP_PAR_GENERAL:
        sb_puts(b, n->label_mode ? "par.label{" : "par.gate{");
        if (n->global_all)
            sb_puts(b, "all");
        dump_iface(b, &n->global);
        sb_puts(b, "}[");
        for (i = 0; i < n->n_ops; i++) {
            if (i)
                sb_puts(b, "|");
            if (n->has_local[i]) {
                dump_iface(b, &n->locals[i]);
                sb_puts(b, "->");
            }
            dump_node(b, n->ops[i]);
        }
        sb_puts(b, "]");
        break;
    }
}

static char *dump(const struct exp_file *f)
{
    struct sb b = { 0 };
    dump_node(&b, f->root);
    return b.s;
}

/* ---- structural invariants of a tree the parser returned ------------------ */

static int well_formed(const struct exp_node *n)
{
    size_t i;

    if (!n || n->loc.line < 1 || n->loc.col < 1)
        return 0;
    switch (n->kind) {
    case EXP_PAR_COMM:
        return n->n_ops == 2 && well_formed(n->ops[0]) && well_formed(n->ops[1]) &&
               (n->ccs ? n->n_pats == 0 : !n->n_pats || (n->repls && n->comm_res));
    case EXP_PRIO:
        if (!n->n_prio)
            return 0;
        for (i = 0; i < n->n_prio; i++) {
            if (n->prio[i].n < 2)
                return 0;
            for (size_t j = 0; j < n->prio[i].n; j++)
                if (!n->prio[i].sets[j].n)
                    return 0;
        }
        return well_formed(n->body);
    case EXP_LEAF:
        return n->path && n->path[0];
    case EXP_HIDE:
    case EXP_CUT:
        if (n->mode != EXP_MODE_GATE && n->mode != EXP_MODE_TOTAL && n->mode != EXP_MODE_PARTIAL)
            return 0;
        for (i = 0; i < n->n_pats; i++)
            if (!n->pats[i])
                return 0;
        return well_formed(n->body);
    case EXP_RENAME:
        if (n->mode == EXP_MODE_PARTIAL || n->n_pats < 1)
            return 0;
        for (i = 0; i < n->n_pats; i++)
            if (!n->pats[i] || !n->repls[i])
                return 0;
        return well_formed(n->body);
    case EXP_PAR_VECTORS:
        if (n->n_ops < 1 || n->n_vecs < 1)
            return 0;
        for (i = 0; i < n->n_vecs; i++)
            if (n->vecs[i].n != n->n_ops || !n->vecs[i].result)
                return 0;
        for (i = 0; i < n->n_ops; i++)
            if (!well_formed(n->ops[i]))
                return 0;
        return 1;
    case EXP_PAR_GENERAL:
        if (n->n_ops < 2 || !n->locals || !n->has_local || (n->global_all && n->global.n))
            return 0;
        for (i = 0; i < n->n_ops; i++)
            if (!well_formed(n->ops[i]) || (!n->has_local[i] && n->locals[i].n) ||
                (n->has_local[i] && !n->locals[i].n))
                return 0;
        return 1;
    }
    return 0;
}

/* ---- printing a tree back as EXP text -------------------------------------- */

static void put_quoted(struct sb *b, const char *s)
{
    sb_puts(b, "\"");
    for (; *s; s++) {
        switch (*s) {
        case '"': sb_puts(b, "\\\""); break;
        case '\\': sb_puts(b, "\\\\"); break;
        case '\a': sb_puts(b, "\\a"); break;
        case '\b': sb_puts(b, "\\b"); break;
        case '\f': sb_puts(b, "\\f"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\v': sb_puts(b, "\\v"); break;
        default: sb_putn(b, s, 1); break;
        }
    }
    sb_puts(b, "\"");
}

static void print_iface(struct sb *b, const struct exp_iface *i)
{
    for (size_t k = 0; k < i->n; k++) {
        if (k)
            sb_puts(b, ", ");
        put_quoted(b, i->el[k].label);
        if (i->el[k].degree >= 0)
            sb_printf(b, " #%d", i->el[k].degree);
    }
}

static void print_node(struct sb *b, const struct exp_node *n)
{
    size_t i, k;

    switch (n->kind) {
    case EXP_PAR_COMM: /* the comm declarations: print_file */
        sb_puts(b, "(");
        print_node(b, n->ops[0]);
        sb_puts(b, n->ccs ? ") | (" : ") || (");
        print_node(b, n->ops[1]);
        sb_puts(b, ")");
        return;
    case EXP_PRIO:
        sb_puts(b, mode_txt[n->mode]);
        sb_puts(b, " prio ");
        for (i = 0; i < n->n_prio; i++)
            for (size_t j = 0; j < n->prio[i].n; j++) {
                const struct exp_prio_set *x = &n->prio[i].sets[j];
                sb_puts(b, j ? "> " : "");
                sb_puts(b, x->all_but ? "all but " : "");
                for (size_t k = 0; k < x->n; k++) {
                    sb_puts(b, k ? ", " : "");
                    put_quoted(b, x->pats[k]);
                }
                sb_puts(b, " ");
            }
        sb_puts(b, "in ");
        print_node(b, n->body);
        sb_puts(b, " end prio");
        return;
    case EXP_LEAF:
        put_quoted(b, n->path);
        return;
    case EXP_HIDE:
    case EXP_CUT:
        sb_puts(b, mode_txt[n->mode]);
        sb_puts(b, n->kind == EXP_HIDE ? " hide " : " cut ");
        if (n->all_but)
            sb_puts(b, "all but ");
        for (i = 0; i < n->n_pats; i++) {
            if (i)
                sb_puts(b, ", ");
            put_quoted(b, n->pats[i]);
        }
        sb_puts(b, " in ");
        print_node(b, n->body);
        sb_puts(b, n->kind == EXP_HIDE ? " end hide" : " end cut");
        return;
    case EXP_RENAME:
        sb_puts(b, mode_txt[n->mode]);
        sb_puts(b, " rename ");
        for (i = 0; i < n->n_pats; i++) {
            if (i)
                sb_puts(b, ", ");
            put_quoted(b, n->pats[i]);
            sb_puts(b, " -> ");
            put_quoted(b, n->repls[i]);
        }
        sb_puts(b, " in ");
        print_node(b, n->body);
        sb_puts(b, " end rename");
        return;
    case EXP_PAR_VECTORS:
        sb_puts(b, n->label_mode ? "label par using " : "gate par using ");
        for (i = 0; i < n->n_vecs; i++) {
            if (i)
                sb_puts(b, ",\n  ");
            for (k = 0; k < n->vecs[i].n; k++) {
                if (k)
                    sb_puts(b, (i & 1) ? " || " : " * ");   /* both separators */
                if (n->vecs[i].comp[k])
                    put_quoted(b, n->vecs[i].comp[k]);
                else
                    sb_puts(b, "_");
            }
            sb_puts(b, " -> ");
            put_quoted(b, n->vecs[i].result);
        }
        sb_puts(b, " in ");
        for (i = 0; i < n->n_ops; i++) {
            sb_puts(b, i ? " || (" : "(");
            print_node(b, n->ops[i]);
            sb_puts(b, ")");
        }
        sb_puts(b, " end par");
        return;
    case EXP_PAR_GENERAL:
        sb_puts(b, n->label_mode ? "label par " : "gate par ");
        if (n->global_all)
            sb_puts(b, "all in ");
        else if (n->global.n) {
            print_iface(b, &n->global);
            sb_puts(b, " in ");
        }
        for (i = 0; i < n->n_ops; i++) {
            if (i)
                sb_puts(b, " || ");
            if (n->has_local[i]) {
                print_iface(b, &n->locals[i]);
                sb_puts(b, " -> ");
            }
            sb_puts(b, "(");
            print_node(b, n->ops[i]);
            sb_puts(b, ")");
        }
        sb_puts(b, " end par");
        return;
    }
}

/* The first mCRL parallel node of the tree (each carries the file's comm
 * declarations), or NULL. */
static const struct exp_node *comm_node(const struct exp_node *n)
{
    const struct exp_node *c = NULL;
    if (!n)
        return NULL;
    if (n->kind == EXP_PAR_COMM && !n->ccs)
        return n;
    for (size_t i = 0; !c && i < n->n_ops; i++)
        c = comm_node(n->ops[i]);
    return c ? c : comm_node(n->body);
}

static char *print_file(const struct exp_file *f)
{
    static const char *const lang[] = { "", "lotos ", "elotos ", "ccs ", "csp ", "mcrl " };
    struct sb b = { 0 };

    sb_puts(&b, "(* printed back *)\n");
    if (f->has_header) {
        sb_puts(&b, lang[f->lang]);
        sb_puts(&b, "behaviour\n");
    }
    const struct exp_node *c = comm_node(f->root);
    for (size_t i = 0; c && i < c->n_pats; i++)
        sb_printf(&b, "%s\"%s\" | \"%s\" = \"%s\"", i ? ", " : "comm ", c->pats[i],
                  c->repls[i], c->comm_res[i]);
    if (c && c->n_pats)
        sb_puts(&b, " end comm\n");
    print_node(&b, f->root);
    sb_puts(&b, "\n");
    return b.s;
}

/* Prints f back, reparses, and compares the dumps and header fields. */
static int round_trip(const struct exp_file *f, char *why, size_t whysize)
{
    char *text = print_file(f), *d1 = dump(f), *d2 = NULL;
    struct exp_file *g = NULL;
    struct wx_error e;
    int ok;

    if (exp_parse_string(text, strlen(text), "printed", &g, &e) != WX_OK) {
        char buf[1100];
        wx_error_format(&e, buf, sizeof buf);
        snprintf(why, whysize, "reparse failed: %.900s", buf);
        ok = 0;
    } else {
        d2 = dump(g);
        ok = !strcmp(d1, d2) && g->lang == f->lang && g->has_header == f->has_header;
        if (!ok)
            snprintf(why, whysize, "reparsed tree differs: %.300s", d2);
    }
    exp_file_free(g);
    free(text);
    free(d1);
    free(d2);
    return ok;
}

/* ---- helpers ---------------------------------------------------------------- */

static struct exp_file *parse(const char *text, struct wx_error *e)
{
    struct exp_file *f = NULL;
    exp_parse_string(text, strlen(text), "t.exp", &f, e);
    return f;
}

static void err_text(const struct wx_error *e, char *buf, size_t size)
{
    wx_error_format(e, buf, size);
}

/* ---- 1. constructs ---------------------------------------------------------- */

struct good_case {
    const char *in, *tree;
};

static const struct good_case goods[] = {
    /* leaves */
    { "a.aut", "L(a.aut)" },
    { "A", "L(A)" },
    { "x_1.bcg", "L(x_1.bcg)" },
    { "sub.exp", "L(sub.exp)" },
    { "\"dir/x y.aut\"", "L(dir/x y.aut)" },
    { "\"noext\"", "L(noext)" },
    { "\"v1.2/readme.txt\"", "L(v1.2/readme.txt)" },
    { "((a.aut))", "L(a.aut)" },
    /* LOTOS parallel operators, right associative, desugared */
    { "a || b", "par.gate{all}[L(a)|L(b)]" },
    { "a ||| b", "par.gate{}[L(a)|L(b)]" },
    { "a |[G, \"H !1\"]| b", "par.gate{G,H !1}[L(a)|L(b)]" },
    { "a |[]| b", "par.gate{}[L(a)|L(b)]" },
    { "a ||| b |[G]| c", "par.gate{}[L(a)|par.gate{G}[L(b)|L(c)]]" },
    { "a |[G]| b ||| c || d", "par.gate{G}[L(a)|par.gate{}[L(b)|par.gate{all}[L(c)|L(d)]]]" },
    { "(a ||| b) |[G]| c", "par.gate{G}[par.gate{}[L(a)|L(b)]|L(c)]" },
    /* LOTOS hide: body extends right; optional end hide */
    { "hide G in a ||| b", "hide.gate(G)[par.gate{}[L(a)|L(b)]]" },
    { "hide in a", "hide.gate()[L(a)]" },
    { "hide G, H in a end hide", "hide.gate(G,H)[L(a)]" },
    { "a ||| hide G in b ||| c", "par.gate{}[L(a)|hide.gate(G)[par.gate{}[L(b)|L(c)]]]" },
    { "(hide G in a) ||| b", "par.gate{}[hide.gate(G)[L(a)]|L(b)]" },
    { "hide G in a end hide ||| b", "par.gate{}[hide.gate(G)[L(a)]|L(b)]" },
    /* dangling end hide: closes the innermost */
    { "hide G in hide H in a end hide", "hide.gate(G)[hide.gate(H)[L(a)]]" },
    { "hide G in hide H in a end hide end hide", "hide.gate(G)[hide.gate(H)[L(a)]]" },
    { "hide G in hide H in a end hide ||| b", "hide.gate(G)[par.gate{}[hide.gate(H)[L(a)]|L(b)]]" },
    { "hide G in total hide H in a end hide", "hide.gate(G)[hide.total(H)[L(a)]]" },
    { "rename A -> B in hide G in a end hide end rename",
      "rename.gate(A->B)[hide.gate(G)[L(a)]]" },
    { "rename A -> B in (hide G in a) end rename", "rename.gate(A->B)[hide.gate(G)[L(a)]]" },
    /* generalised hide */
    { "gate hide G in a end hide", "hide.gate(G)[L(a)]" },
    { "total hide \"G !1\" in a end hide", "hide.total(G !1)[L(a)]" },
    { "partial hide all but A, B in a end hide", "hide.partial!(A,B)[L(a)]" },
    { "hide all but A in a end hide", "hide.gate!(A)[L(a)]" },
    { "hide all but in a end hide", "hide.gate!()[L(a)]" },
    { "hide A in a || b end hide", "hide.gate(A)[par.gate{all}[L(a)|L(b)]]" },
    /* cut */
    { "cut A in a end cut", "cut.gate(A)[L(a)]" },
    { "total cut all but \"A.*\" in a end cut", "cut.total!(A.*)[L(a)]" },
    { "partial cut in a ||| b end cut", "cut.partial()[par.gate{}[L(a)|L(b)]]" },
    /* rename */
    { "rename A -> B in a end rename", "rename.gate(A->B)[L(a)]" },
    { "total rename \"A !1\" -> \"rate 0.1\", B -> C in a end rename",
      "rename.total(A !1->rate 0.1,B->C)[L(a)]" },
    { "single rename a -> b in x end rename", "rename.single(a->b)[L(x)]" },
    { "multiple rename a -> b in x end rename", "rename.multiple(a->b)[L(x)]" },
    { "gate rename a -> b in x end rename", "rename.gate(a->b)[L(x)]" },
    /* keywords as quoted labels */
    { "hide \"cut\", \"all\", \"end\" in a", "hide.gate(cut,all,end)[L(a)]" },
    { "rename \"hide\" -> \"par\" in a end rename", "rename.gate(hide->par)[L(a)]" },
    { "\"hide\" ||| \"par.aut\"", "par.gate{}[L(hide)|L(par.aut)]" },
    /* generalised parallel */
    { "par a || b end par", "par.gate{}[L(a)|L(b)]" },
    { "par all in a || b || c end par", "par.gate{all}[L(a)|L(b)|L(c)]" },
    { "par G in a || b end par", "par.gate{G}[L(a)|L(b)]" },
    { "gate par G #2, H#0, \"K !1\" in a || b || c end par",
      "par.gate{G#2,H#0,K !1}[L(a)|L(b)|L(c)]" },
    { "label par G -> a || H, G -> b end par", "par.label{}[G->L(a)|H,G->L(b)]" },
    { "par all in G#2 -> a || b || \"x\"#1 -> c end par",
      "par.gate{all}[G#2->L(a)|L(b)|x#1->L(c)]" },
    { "par G in a || b || c end par", "par.gate{G}[L(a)|L(b)|L(c)]" },
    { "par G in (a || b) || c end par", "par.gate{G}[par.gate{all}[L(a)|L(b)]|L(c)]" },
    { "par a || par b || c end par end par", "par.gate{}[L(a)|par.gate{}[L(b)|L(c)]]" },
    { "par a || hide G in b || c end hide end par",
      "par.gate{}[L(a)|hide.gate(G)[par.gate{all}[L(b)|L(c)]]]" },
    { "par G -> hide H in a end hide || b end par", "par.gate{}[G->hide.gate(H)[L(a)]|L(b)]" },
    /* vectors */
    { "par using a -> b in x end par", "vpar.gate<a->b>[L(x)]" },
    { "label par using a * _ * \"b !1\" -> c, _ * d * e -> \"f !2\" in x || y || z end par",
      "vpar.label<a*_*b !1->c,_*d*e->f !2>[L(x)|L(y)|L(z)]" },
    { "gate par using a || b -> c, _ || b -> b in x || y end par", "vpar.gate<a*b->c,_*b->b>[L(x)|L(y)]" },
    { "par using _ * _ -> \"all\" in x || hide G in y end hide end par",
      "vpar.gate<_*_->all>[L(x)|hide.gate(G)[L(y)]]" },
    { "par using a * b -> c in (x ||| y) || total rename a -> b in z end rename end par",
      "vpar.gate<a*b->c>[par.gate{}[L(x)|L(y)]|rename.total(a->b)[L(z)]]" },
    /* comments and layout */
    { "(* c1 *) a (** c2 **) ||| -- c3 ||| x\n b (* multi\nline * ) *)",
      "par.gate{}[L(a)|L(b)]" },
    { "(**)a", "L(a)" },
    { "a -->b", "L(a)" },
    { "\ta\r\n|||\fb\v", "par.gate{}[L(a)|L(b)]" },
    /* escapes */
    { "hide \"\\\"q\\\" \\\\ \\( \\n \\x41 \\101 \\t\" in a", "hide.gate(\"q\" \\ \\( \\n \\x41 \\101 \t)[L(a)]" },
};

static void test_constructs(void)
{
    size_t i;

    for (i = 0; i < sizeof goods / sizeof goods[0]; i++) {
        struct wx_error e;
        struct exp_file *f;
        char buf[1200];

        if (!goods[i].tree)
            continue;
        f = parse(goods[i].in, &e);
        if (!f) {
            err_text(&e, buf, sizeof buf);
            check(0, "parse construct %zu '%s': %s", i, goods[i].in, buf);
            continue;
        }
        char *d = dump(f);
        buf[0] = '\0';
        if (!strcmp(d, goods[i].tree))
            check(1, "parse construct %zu: %s", i, goods[i].tree);
        else
            check(0, "parse construct %zu '%s': expected %s, found %s", i, goods[i].in,
                  goods[i].tree, d);
        check(well_formed(f->root) && round_trip(f, buf, sizeof buf),
              "construct %zu well formed, prints back to the same tree%s%s", i,
              buf[0] ? ": " : "", buf);
        free(d);
        exp_file_free(f);
    }
}

/* ---- 2. details ------------------------------------------------------------- */

static void test_details(void)
{
    struct wx_error e;
    struct exp_file *f;
    const struct exp_node *n;
    static const struct { const char *in; enum exp_lang lang; bool hdr; } hdrs[] = {
        { "a", EXP_LANG_NONE, false },
        { "behaviour a", EXP_LANG_LOTOS, true },
        { "behavior a", EXP_LANG_LOTOS, true },
        { "lotos behaviour a", EXP_LANG_LOTOS, true },
        { "elotos behavior a", EXP_LANG_ELOTOS, true },
        { "ccs behaviour a", EXP_LANG_CCS, true },
        { "csp behaviour a", EXP_LANG_CSP, true },
        { "mcrl behaviour a ||| b", EXP_LANG_MCRL, true },
    };

    for (size_t i = 0; i < sizeof hdrs / sizeof hdrs[0]; i++) {
        f = parse(hdrs[i].in, &e);
        check(f && f->lang == hdrs[i].lang && f->has_header == hdrs[i].hdr,
              "header of '%s': lang %d, has_header %d", hdrs[i].in, (int)hdrs[i].lang, hdrs[i].hdr);
        exp_file_free(f);
    }

    /* node locations: first token of each construct (the mode keyword when written) */
    f = parse("-- c\n(* x\n *) total hide G in\n  a |||\n   label par using x -> y in\n"
              "   \"b.aut\" end par end hide", &e);
    n = f ? f->root : NULL;
    check(n && n->loc.line == 3 && n->loc.col == 5, "hide located at its mode: 3:5, found %d:%d",
          n ? n->loc.line : 0, n ? n->loc.col : 0);
    n = n ? n->body : NULL;
    check(n && n->kind == EXP_PAR_GENERAL && n->loc.line == 4 && n->loc.col == 3,
          "LOTOS ||| located at its left operand: 4:3");
    check(n && n->ops[1]->loc.line == 5 && n->ops[1]->loc.col == 4 &&
          n->ops[1]->vecs[0].loc.line == 5 && n->ops[1]->vecs[0].loc.col == 20,
          "label par and its vector located: 5:4 and 5:20");
    check(n && n->ops[1]->ops[0]->loc.line == 6 && n->ops[1]->ops[0]->loc.col == 4,
          "leaf located: 6:4");
    exp_file_free(f);

    /* sync elements: degrees (-1 when absent), own locations, has_local */
    f = parse("par G #3, H in\n  K -> a || b\n  || L#0, M -> c end par", &e);
    n = f ? f->root : NULL;
    check(n && n->global.n == 2 && n->global.el[0].degree == 3 && n->global.el[1].degree == -1 &&
          n->global.el[1].loc.line == 1 && n->global.el[1].loc.col == 11,
          "global interface G#3, H: degrees 3 and -1, H at 1:11");
    check(n && n->n_ops == 3 && n->has_local[0] && !n->has_local[1] && n->has_local[2] &&
          n->locals[0].n == 1 && n->locals[1].n == 0 && n->locals[2].n == 2 &&
          n->locals[2].el[0].degree == 0 && n->locals[2].el[1].degree == -1 &&
          n->locals[2].el[0].loc.line == 3 && n->locals[2].el[0].loc.col == 6,
          "local interfaces: K / none / L#0, M (L at 3:6)");
    check(n && !n->global_all && !n->label_mode, "par flags: not all, gate mode");
    exp_file_free(f);

    /* LOTOS desugaring: two operands, empty local interfaces */
    f = parse("a |[G,\n  H]| b", &e);
    n = f ? f->root : NULL;
    check(n && n->kind == EXP_PAR_GENERAL && n->n_ops == 2 && !n->has_local[0] &&
          !n->has_local[1] && n->locals[0].n == 0 && n->global.n == 2 &&
          n->global.el[0].degree == -1 && n->global.el[1].degree == -1 && !n->global_all &&
          n->global.el[1].loc.line == 2 && n->global.el[1].loc.col == 3,
          "a |[G, H]| b = gate par G, H in a || b end par (H located at 2:3)");
    exp_file_free(f);

    /* escapes, byte by byte: \a \b \f \r \t \v \' \" \? \\ decoded; others kept */
    f = parse("\"\\a\\b\\f\\r\\t\\v\\'\\\"\\?\\\\|\\n\\0\\x7\\(\\1\\z\"", &e);
    check(f && !strcmp(f->root->path, "\a\b\f\r\t\v'\"?\\|\\n\\0\\x7\\(\\1\\z"),
          "escapes: ANSI-C ones decoded except \\n, octal, hex; others kept literally");
    exp_file_free(f);
    f = parse("\"ends with backslash\\\\\"", &e);
    check(f && !strcmp(f->root->path, "ends with backslash\\"), "\"...\\\\\" ends in one backslash");
    exp_file_free(f);
    f = parse("hide \"\" in a", &e);
    check(f && f->root->n_pats == 1 && f->root->pats[0][0] == '\0', "empty quoted label kept");
    exp_file_free(f);

    /* API: embedded NUL through the length, NULL name, files */
    {
        const char txt[] = "a.aut\0garbage";
        struct exp_file *g = (struct exp_file *)1;
        int rc = exp_parse_string(txt, 5, NULL, &g, &e);
        check(rc == WX_OK && g && !strcmp(g->root->path, "a.aut") && !strcmp(g->name, "<string>"),
              "length bounds the input; NULL name becomes <string>");
        exp_file_free(g);
        rc = exp_parse_string(txt, sizeof txt - 1, "nul.exp", &g, &e);
        check(rc == WX_EINPUT && !g && e.line == 1 && e.col == 6 && strstr(e.msg, "0x00"),
              "NUL byte inside the length is an error at 1:6");
    }
    {
        struct exp_file *g = (struct exp_file *)1;
        int rc = exp_parse_file("tests/no/such/file.exp", &g, &e);
        check(rc == WX_EINPUT && !g && strstr(e.msg, "cannot open") &&
              !strcmp(e.file, "tests/no/such/file.exp"), "missing file: WX_EINPUT, cannot open");
        g = (struct exp_file *)1;
        rc = exp_parse_file("tests", &g, &e);
        check(rc == WX_EINPUT && !g && !strcmp(e.msg, "is a directory"),
              "a directory: WX_EINPUT, 'is a directory' (found %d '%s')", rc, e.msg);
    }
}

/* ---- 3. bad inputs ---------------------------------------------------------- */

static void test_bad_files(void)
{
    FILE *m = fopen("tests/bad/exp/EXPECT", "r");
    char line[1024];
    int listed = 0, unsupported = 0;

    if (!check(m != NULL, "open tests/bad/exp/EXPECT"))
        return;
    while (fgets(line, sizeof line, m)) {
        char name[256], path[512], sub[512], buf[1200];
        int l, c, off = 0;
        struct exp_file *f = (struct exp_file *)1;
        struct wx_error e;

        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%255s %d %d %n", name, &l, &c, &off) != 3 || !off) {
            check(0, "EXPECT line malformed: %s", line);
            continue;
        }
        snprintf(sub, sizeof sub, "%s", line + off);
        sub[strcspn(sub, "\n")] = '\0';
        snprintf(path, sizeof path, "tests/bad/exp/%s", name);
        int rc = exp_parse_file(path, &f, &e);
        err_text(&e, buf, sizeof buf);
        if (rc == WX_EINPUT && e.code == WX_EINPUT && f == NULL && e.line == l && e.col == c &&
            !strcmp(e.file, path) && strstr(e.msg, sub))
            check(1, "bad %s rejected at %d:%d: %s", name, l, c, e.msg);
        else
            check(0, "bad %s: expected %d:%d '%s', found rc %d: %s", name, l, c, sub, rc, buf);
        listed++;
        unsupported += strstr(sub, "not supported yet") != NULL;
    }
    fclose(m);
    check(listed >= 30, "at least 30 malformed inputs (%d)", listed);
    check(unsupported >= 2, "unsupported constructs covered (%d)", unsupported);

    /* Every file in the folder is listed (no silently skipped input). */
    FILE *ls = popen("ls tests/bad/exp", "r");
    int files = 0;
    if (ls) {
        while (fgets(line, sizeof line, ls))
            files += strcmp(line, "EXPECT\n") != 0;
        pclose(ls);
    }
    CHECK_EQ_U64(files, listed, "files in tests/bad/exp listed in EXPECT");
}

/* ---- 4. good files ---------------------------------------------------------- */

static const struct { const char *file, *tree; } good_files[] = {
    { "svl_lotos.exp",
      "hide.gate(SEND,RECV)[par.gate{RECV,ACK}[par.gate{SEND,ACK}[L(sender.aut)|L(medium.aut)]|"
      "par.gate{}[L(receiver)|par.gate{all}[L(logger.aut)|L(monitor)]]]]" },
    { "dangling.exp",
      "hide.gate(A)[par.gate{}[hide.gate(B)[hide.gate(C)[L(x.aut)]]|"
      "rename.gate(cut->all)[hide.gate(D)[L(y.aut)]]]]" },
    { "crlf.exp", "hide.gate(A)[par.gate{}[L(x.aut)|L(y.aut)]]" },
    { "gate_vectors.exp",
      "vpar.gate<G1*_*G3->G13,_*G2*G3->G23,G !1*_*_->G>[L(p1.aut)|hide.gate(X)[L(p2.aut)]|L(p3)]" },
    { "generalised.exp",
      "hide.total!(DONE,ERR .*)[par.gate{WORK#2,START}[PRED1,SUCC1->L(unit1.aut)|"
      "PRED1#2,SUCC1->cut.partial(DEBUG)[L(unit2.aut)]|"
      "hide.gate(INTERNAL)[par.gate{}[L(unit3.aut)|L(unit4.aut)]]|"
      "rename.multiple(\\([a-z]*\\)_old->\\1_new,b->c)[rename.single(a->x)["
      "par.label{all}[L(a.aut)|L(b.bcg)]]]]]" },
    { "dft_vectors.exp",
      "hide.gate(FAIL_A,FAIL_B,ACTIVATE !0 !TRUE)[vpar.label<FAIL !0*FAIL !1*_->FAIL_A,"
      "FAIL !0*_*FAIL !1->FAIL_B,_*ACTIVATE !0 !TRUE*_->ACTIVATE !0 !TRUE,_*_*ONLINE !1->ONLINE,"
      "DOWN*_*_->DOWN>[L(expfiles/toplevel.aut)|rename.total(RATE_FAIL !1 !2->rate 0.1,"
      "RATE_FAIL !2 !2->rate 0.2)[L(expfiles/be_a.aut)]|rename.total(RATE_FAIL !1 !2->rate 0.5)"
      "[L(expfiles/be_b.aut)]]]" },
};

static void test_good_files(void)
{
    FILE *ls = popen("ls tests/good/exp", "r");
    char name[512];
    int n = 0;

    if (!check(ls != NULL, "list tests/good/exp"))
        return;
    while (fgets(name, sizeof name, ls)) {
        char path[600], buf[1200];
        struct exp_file *f;
        struct wx_error e;
        const char *want = NULL;

        name[strcspn(name, "\n")] = '\0';
        snprintf(path, sizeof path, "tests/good/exp/%s", name);
        for (size_t i = 0; i < sizeof good_files / sizeof good_files[0]; i++)
            if (!strcmp(good_files[i].file, name))
                want = good_files[i].tree;
        int rc = exp_parse_file(path, &f, &e);
        err_text(&e, buf, sizeof buf);
        if (!check(rc == WX_OK && f, "good %s parses%s%s", name, rc ? ": " : "", rc ? buf : ""))
            continue;
        char *d = dump(f);
        if (want)
            check(!strcmp(d, want), "good %s: tree as written%s%s%s%s", name,
                  strcmp(d, want) ? ": expected " : "", strcmp(d, want) ? want : "",
                  strcmp(d, want) ? ", found " : "", strcmp(d, want) ? d : "");
        buf[0] = '\0';
        check(well_formed(f->root) && round_trip(f, buf, sizeof buf),
              "good %s well formed, prints back to the same tree %s", name, buf);
        free(d);
        exp_file_free(f);
        n++;
    }
    pclose(ls);
    check(n >= 5, "good files parsed (%d)", n);
}

/* ---- 6. fuzz ------------------------------------------------------------------ */

static uint64_t rng;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const char *const dict[] = {
    "end", "hide", "par", "rename", "cut", "in", "all", "but", "using", "prio", "gate",
    "label", "total", "single", "->", "||", "|||", "|[", "]|", "(*", "*)", "--", "\"", "\\",
    "(", ")", ",", "*", "_", "#", "#2", "\n", " ", "a.aut", "\"x\"", "G", "end hide",
    "end par", "[", "|", "comm", "behaviour", "lotos", "mcrl", "\x00", "\xff",
};

/* One random edit of buf[0..*len) in place (buf has room for 64 more bytes). */
static void mutate(char *buf, size_t *len)
{
    size_t n = *len, pos = n ? next() % (n + 1) : 0, k;

    switch (next() % 5) {
    case 0: /* delete 1..4 bytes */
        if (n) {
            pos = next() % n;
            k = 1 + next() % 4;
            if (k > n - pos)
                k = n - pos;
            memmove(buf + pos, buf + pos + k, n - pos - k);
            *len = n - k;
        }
        break;
    case 1: { /* insert a random byte */
        memmove(buf + pos + 1, buf + pos, n - pos);
        buf[pos] = (char)(next() & 0xff);
        *len = n + 1;
        break;
    }
    case 2: { /* insert a token */
        const char *t = dict[next() % (sizeof dict / sizeof dict[0])];
        k = strlen(t) ? strlen(t) : 1;   /* "\x00" is one NUL byte */
        memmove(buf + pos + k, buf + pos, n - pos);
        memcpy(buf + pos, t, k);
        *len = n + k;
        break;
    }
    case 3: /* overwrite a byte with a printable one */
        if (n)
            buf[next() % n] = (char)(32 + next() % 95);
        break;
    default: /* duplicate a short span */
        if (n) {
            size_t from = next() % n;
            k = 1 + next() % 8;
            if (k > n - from)
                k = n - from;
            char span[8];
            memcpy(span, buf + from, k);
            memmove(buf + pos + k, buf + pos, n - pos);
            memcpy(buf + pos, span, k);
            *len = n + k;
        }
        break;
    }
}

/* Parses buf and returns a description of the outcome (heap), or NULL when
 * the outcome itself breaks the contract (why says how). */
static char *outcome(const char *buf, size_t len, char *why, size_t whysize)
{
    struct exp_file *f = (struct exp_file *)1;
    struct wx_error e;
    int rc = exp_parse_string(buf, len, "fuzz.exp", &f, &e);
    size_t lines = 1;

    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    if (rc == WX_OK) {
        char *d;
        if (!f || !well_formed(f->root)) {
            snprintf(why, whysize, "ok but tree missing or malformed");
            exp_file_free(f == (struct exp_file *)1 ? NULL : f);
            return NULL;
        }
        if (!round_trip(f, why, whysize)) {
            exp_file_free(f);
            return NULL;
        }
        d = dump(f);
        exp_file_free(f);
        return d;
    }
    if (f != NULL || (rc != WX_EINPUT && rc != WX_ELIMIT) || e.code != rc || !e.msg[0] ||
        strcmp(e.file, "fuzz.exp") || e.line < 1 || e.col < 1 || (size_t)e.line > lines ||
        (size_t)e.col > len + 1) {
        snprintf(why, whysize, "bad error outcome: rc %d, tree %p, at %d:%d '%s'", rc, (void *)f,
                 e.line, e.col, e.msg);
        return NULL;
    }
    char *s = malloc(strlen(e.msg) + 32);
    sprintf(s, "%d:%d %s", e.line, e.col, e.msg);
    return s;
}

static void test_fuzz(uint64_t seed, int rounds)
{
    enum { CAP = 4096 };
    static char buf[CAP + 64 * 8];
    const char *sources[sizeof goods / sizeof goods[0] + 8];
    size_t ns = 0;
    int ok = 1, parsed = 0, failed = 0;
    char why[1024] = "";

    for (size_t i = 0; i < sizeof goods / sizeof goods[0]; i++)
        sources[ns++] = goods[i].in;
    rng = seed ? seed : 1;
    for (int r = 0; r < rounds && ok; r++) {
        const char *src = sources[next() % ns];
        size_t len = strlen(src);
        int edits = 1 + (int)(next() % 4);
        memcpy(buf, src, len);
        for (int k = 0; k < edits && len < CAP; k++)
            mutate(buf, &len);
        char *a = outcome(buf, len, why, sizeof why);
        char *b = a ? outcome(buf, len, why, sizeof why) : NULL;
        if (!a || !b || strcmp(a, b)) {
            if (a && b)
                snprintf(why, sizeof why, "not deterministic: '%s' vs '%s'", a, b);
            check(0, "fuzz seed %llu round %d: %s; input '%.*s'", (unsigned long long)seed, r, why,
                  (int)len, buf);
            ok = 0;
        } else if (a[0] >= '0' && a[0] <= '9') {
            failed++;
        } else {
            parsed++;
        }
        free(a);
        free(b);
    }
    if (ok)
        check(1, "fuzz seed %llu: %d mutants parsed cleanly (%d accepted, %d rejected)",
              (unsigned long long)seed, rounds, parsed, failed);
}

/* ---- 7. limits ---------------------------------------------------------------- */

static void test_limits(void)
{
    enum { DEEP = 100000, CHAIN = 4000, WIDE = 20000 };
    struct sb b = { 0 };
    struct wx_error e;
    struct exp_file *f;

    for (int i = 0; i < DEEP; i++)
        sb_puts(&b, "(");
    sb_puts(&b, "a");
    for (int i = 0; i < DEEP; i++)
        sb_puts(&b, ")");
    f = parse(b.s, &e);
    check(!f && e.code == WX_EINPUT && strstr(e.msg, "nested too deeply") && e.line == 1 && e.col > 1,
          "%d nested parentheses: WX_EINPUT 'nested too deeply' (found %d '%s')", DEEP, e.code, e.msg);
    exp_file_free(f);

    b.n = 0;
    for (int i = 0; i < CHAIN; i++)
        sb_puts(&b, "a ||| ");
    sb_puts(&b, "a");
    f = parse(b.s, &e);
    int depth = 0;
    for (const struct exp_node *n = f ? f->root : NULL; n && n->kind == EXP_PAR_GENERAL; n = n->ops[1])
        depth++;
    check(f && depth == CHAIN, "chain of %d '|||' parses right-nested (depth %d)", CHAIN, depth);
    exp_file_free(f);
    for (int i = 0; i < CHAIN; i++)
        sb_puts(&b, " ||| a");
    f = parse(b.s, &e);
    check(!f && e.code == WX_EINPUT && strstr(e.msg, "par ... end par"),
          "chain of %d '|||' exceeds the depth limit cleanly (WX_EINPUT)", 2 * CHAIN);
    exp_file_free(f);

    b.n = 0;
    sb_puts(&b, "par ");
    for (int i = 0; i < WIDE; i++)
        sb_puts(&b, i ? " || G -> a" : "G -> a");
    sb_puts(&b, " end par");
    f = parse(b.s, &e);
    check(f && f->root->n_ops == WIDE && f->root->has_local[WIDE - 1], "par with %d operands", WIDE);
    exp_file_free(f);
    free(b.s);
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 20240611u;
    int rounds = argc > 2 ? atoi(argv[2]) : 50000;

    test_constructs();
    test_details();
    test_bad_files();
    test_good_files();
    test_fuzz(seed, rounds);
    test_fuzz(seed + 1, rounds / 4);
    test_limits();
    return check_exit();
}
