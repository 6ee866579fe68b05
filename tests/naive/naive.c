/*
 * naive.c -- the oracle explorer of naive.h: structural operational
 * semantics of the EXP tree, computed on the fly, breadth-first.
 *
 * Test programs include this file directly (the Makefile links each
 * tests/test_*.c alone against libwarpex.a), so everything but the API of
 * naive.h is static.
 *
 * Errors and out-of-memory inside the exploration unwind with longjmp to
 * naive_explore, which frees everything reachable from the context; so no
 * resource may live only in a local variable across a call that can fail.
 */
#include "naive.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/strtab.h"

#define NX_NONE 0xffffffffu   /* no label / "_" / unknown */
#define NX_CUT 0xfffffffeu    /* memo value: transition removed */
#define NX_MAX_OPS 64         /* participant sets are 64-bit masks */

/* ------------------------------------------------------------------ LTS I/O */

void naive_lts_free(struct naive_lts *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n_trans; i++)
        free(l->label[i]);
    free(l->label);
    free(l->src);
    free(l->dst);
    memset(l, 0, sizeof *l);
}

static int aut_push(struct naive_lts *l, size_t *cap, uint32_t s, const char *lab, size_t len,
                    uint32_t d)
{
    if (l->n_trans == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        uint32_t *ns = realloc(l->src, nc * sizeof *ns);
        if (!ns)
            return -1;
        l->src = ns;
        uint32_t *nd = realloc(l->dst, nc * sizeof *nd);
        if (!nd)
            return -1;
        l->dst = nd;
        char **nl = realloc(l->label, nc * sizeof *nl);
        if (!nl)
            return -1;
        l->label = nl;
        *cap = nc;
    }
    char *c = malloc(len + 1);
    if (!c)
        return -1;
    memcpy(c, lab, len);
    c[len] = 0;
    l->src[l->n_trans] = s;
    l->dst[l->n_trans] = d;
    l->label[l->n_trans] = c;
    l->n_trans++;
    return 0;
}

/* Parses an unsigned decimal at *p (blanks skipped first). */
static int aut_num(const char **p, uint64_t *v)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    uint64_t x = 0;
    while (isdigit((unsigned char)*s)) {
        x = x * 10 + (uint64_t)(*s - '0');
        if (x > 0xffffffffull)
            return -1;
        s++;
    }
    *v = x;
    *p = s;
    return 0;
}

static int aut_sym(const char **p, char c)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s != c)
        return -1;
    *p = s + 1;
    return 0;
}

int naive_read_aut(const char *path, struct naive_lts *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f)
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot open: %s", strerror(errno));
    char *line = NULL;
    size_t lcap = 0, tcap = 0;
    ssize_t n;
    int lineno = 0, rc = WX_OK;
    uint64_t init = 0, ntr = 0, nst = 0;
    bool header = false;
    while ((n = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            continue;
        if (!header) {
            /* des ( initial , transitions , states ) */
            if (strncmp(p, "des", 3) != 0) {
                rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "expected 'des' header");
                break;
            }
            p += 3;
            if (aut_sym(&p, '(') || aut_num(&p, &init) || aut_sym(&p, ',') || aut_num(&p, &ntr) ||
                aut_sym(&p, ',') || aut_num(&p, &nst) || aut_sym(&p, ')')) {
                rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "malformed header");
                break;
            }
            if (nst == 0 || init >= nst) {
                rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "bad state count or initial state");
                break;
            }
            header = true;
            continue;
        }
        /* ( src , label , dst ): the label lies between the first comma and
         * the last comma; a quoted label between the leftmost and the
         * rightmost quote (quotes inside are part of it). */
        uint64_t s, d;
        const char *q = p;
        if (aut_sym(&q, '(') || aut_num(&q, &s) || aut_sym(&q, ',')) {
            rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "malformed transition");
            break;
        }
        const char *lq = strchr(q, '"'), *rq = strrchr(q, '"');
        const char *lab, *labend, *rest;
        if (lq && rq > lq) {
            lab = lq + 1;
            labend = rq;
            rest = rq + 1;
        } else {
            const char *lc = strrchr(q, ',');
            if (!lc) {
                rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "malformed transition");
                break;
            }
            lab = q;
            labend = lc;
            rest = lc;
            while (lab < labend && (*lab == ' ' || *lab == '\t'))
                lab++;
            while (labend > lab && (labend[-1] == ' ' || labend[-1] == '\t'))
                labend--;
        }
        if (aut_sym(&rest, ',') || aut_num(&rest, &d) || aut_sym(&rest, ')')) {
            rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "malformed transition");
            break;
        }
        if (s >= nst || d >= nst) {
            rc = wx_fail(err, WX_EINPUT, path, lineno, 1, "state out of range");
            break;
        }
        if (aut_push(out, &tcap, (uint32_t)s, lab, (size_t)(labend - lab), (uint32_t)d)) {
            rc = wx_fail(err, WX_ESYSTEM, path, lineno, 1, "out of memory");
            break;
        }
    }
    free(line);
    fclose(f);
    if (rc == WX_OK && !header)
        rc = wx_fail(err, WX_EINPUT, path, 0, 0, "missing 'des' header");
    if (rc == WX_OK && out->n_trans != ntr)
        rc = wx_fail(err, WX_EINPUT, path, lineno, 0, "header announces %llu transitions, found %zu",
                     (unsigned long long)ntr, out->n_trans);
    if (rc != WX_OK) {
        naive_lts_free(out);
        return rc;
    }
    out->n_states = (uint32_t)nst;
    out->initial = (uint32_t)init;
    return WX_OK;
}

int naive_write_aut(const char *path, const struct naive_lts *l, struct wx_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot create: %s", strerror(errno));
    fprintf(f, "des (%u, %zu, %u)\n", l->initial, l->n_trans, l->n_states);
    for (size_t i = 0; i < l->n_trans; i++) {
        if (strcmp(l->label[i], "i") == 0)
            fprintf(f, "(%u, i, %u)\n", l->src[i], l->dst[i]);
        else
            fprintf(f, "(%u, \"%s\", %u)\n", l->src[i], l->label[i], l->dst[i]);
    }
    if (fclose(f) != 0)
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "write failed");
    return WX_OK;
}

/* ------------------------------------------------------------- the context */

/* Transitions of one node in the current product state: label ids and the
 * new values of the node's slice of the state vector (width words each). */
struct tlist {
    size_t n, cap;
    uint32_t width;
    uint32_t *lab;
    uint32_t *vec;
};

struct sel { uint32_t key; int degree; };   /* interface element, -1 = none */

struct nnode {
    enum exp_kind kind;
    struct exp_loc loc;
    uint32_t lo, hi;             /* slice [lo, hi) of the state vector */
    struct tlist out;            /* successors in the current state */

    /* leaf: transitions of state s are tlab/tdst[off[s] .. off[s+1]) */
    uint32_t n_states, initial;
    uint32_t *off, *tlab, *tdst;

    /* hide / cut / rename */
    enum exp_mode mode;
    bool all_but;
    bool keep_term;              /* cut: the termination gate is never cut */
    size_t n_pats;
    regex_t *re;
    bool *re_ok;                 /* which re[] were compiled (to free) */
    char **repl;                 /* rename right sides (owned copies) */
    uint32_t *memo;              /* label id -> result id / NX_CUT / NX_NONE */
    size_t memo_n;
    struct nnode *body;

    /* prio: set q holds the patterns re[set_first[q] .. set_first[q + 1]),
     * rule r the sets rule_first[r] .. rule_first[r + 1]; the relation is
     * computed on the body's static alphabet (names[0 .. n_names), row u of
     * label id l is uidx[l]): above[a * n_names + b] = label a above b */
    size_t n_sets, n_rules;
    size_t *set_first, *rule_first;
    bool *set_all_but;
    size_t n_names;
    char **names;
    uint32_t *uidx;
    size_t uidx_n;
    uint8_t *above;

    /* the static alphabet (alphabet()): sorted distinct label ids, computed
     * once; scratch: the leaf search's marks and stack while it runs */
    bool has_alpha;
    size_t n_alpha, cap_alpha;
    uint32_t *alpha;
    void *scratch;

    /* CCS | and mCRL ||: comm_a[i] | comm_b[i] = comm_c[i] (gate ids) */
    bool ccs;
    size_t n_comm;
    uint32_t *comm_a, *comm_b, *comm_c;

    /* par */
    bool label_mode;
    size_t n_ops;
    struct nnode **ops;
    size_t n_vecs;
    uint32_t *vcomp;             /* n_vecs * n_ops: label / gate id or NX_NONE */
    uint32_t *vres;              /* n_vecs result label ids */
    bool global_all;
    size_t n_glob;
    struct sel *glob;
    size_t *n_lif;               /* per operand */
    struct sel **lif;
};

struct nx {
    jmp_buf fail;
    enum exp_lang lang;          /* the reference language of this exploration */
    struct wx_error *err;
    const struct naive_options *opt;
    struct strtab *tab;
    uint32_t hidden, term;       /* term: gate id of termination, NX_NONE */
    bool fold;
    /* lazily computed per-label facts, indexed by label id */
    uint32_t *gate, *offers;     /* ids of the gate text and the offers text */
    uint8_t *async;              /* 0 unknown, 1 no, 2 yes */
    size_t info_n;
    struct nnode *root;
    uint32_t n_leaves;
    struct exp_file **files;     /* included .exp files */
    size_t n_files;
    /* exploration */
    uint32_t *states;            /* n_states * n_leaves */
    uint32_t *level;
    uint64_t n_states, cap_states;
    uint64_t *slot;              /* hash table of id + 1, 0 = empty */
    uint64_t n_slot;
    uint64_t *pairs;             /* one state's edges: label << 40 | target id */
    size_t n_pairs, cap_pairs;
    uint64_t *edges;             /* aut_out: src, label, dst triples */
    size_t n_edges, cap_edges;
    char *buf;                   /* scratch string */
    size_t cap_buf;
    uint64_t *masks;             /* participant sets scratch */
    size_t n_masks, cap_masks;
    uint32_t *labs;              /* distinct labels scratch */
    size_t n_labs, cap_labs;
    uint32_t *cur;               /* the state being expanded */
    uint64_t *seen;              /* label_fn: reachable edges per label */
    size_t n_seen;
};

__attribute__((noreturn, format(printf, 4, 5)))
static void nx_fail(struct nx *x, int code, const struct exp_loc *loc, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    wx_fail(x->err, code, NULL, loc ? loc->line : 0, loc ? loc->col : 0, "%s", msg);
    longjmp(x->fail, 1);
}

static void *nx_realloc(struct nx *x, void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
    return q;
}

static void *nx_calloc(struct nx *x, size_t n, size_t size)
{
    void *q = calloc(n ? n : 1, size);
    if (!q)
        nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
    return q;
}

/* Grows *p (element size `size`) so that index `need - 1` is valid. */
static void nx_grow(struct nx *x, void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    *p = nx_realloc(x, *p, nc * size);
    *cap = nc;
}

static uint32_t nx_intern(struct nx *x, const char *s, size_t len)
{
    uint32_t id = strtab_intern(x->tab, s, len);
    if (id == UINT32_MAX)
        nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
    return id;
}

static uint32_t nx_intern_str(struct nx *x, const char *s)
{
    return nx_intern(x, s, strlen(s));
}

/* Operator labels, folded to upper case for LOTOS/CCS/CSP unless --case.
 * Interns the result. */
static uint32_t nx_oplabel(struct nx *x, const char *s)
{
    if (!x->fold)
        return nx_intern_str(x, s);
    size_t n = strlen(s);
    nx_grow(x, (void **)&x->buf, &x->cap_buf, n + 1, 1);
    for (size_t i = 0; i < n; i++)
        x->buf[i] = (char)toupper((unsigned char)s[i]);
    return nx_intern(x, x->buf, n);
}

/* Same folding, returning an owned copy (patterns, right sides). */
static char *nx_opstring(struct nx *x, const char *s)
{
    size_t n = strlen(s);
    char *c = nx_realloc(x, NULL, n + 1);
    for (size_t i = 0; i <= n; i++)
        c[i] = x->fold ? (char)toupper((unsigned char)s[i]) : s[i];
    return c;
}

/* Length of the gate of a label: up to the first '!', '?', '(', blank, tab. */
static size_t gate_len(const char *s)
{
    size_t i = 0;
    while (s[i] && s[i] != '!' && s[i] != '?' && s[i] != '(' && s[i] != ' ' && s[i] != '\t')
        i++;
    return i;
}

static void nx_info(struct nx *x, uint32_t id)
{
    if (id < x->info_n && x->gate[id] != NX_NONE)
        return;
    if (id >= x->info_n) {
        size_t nn = x->info_n ? x->info_n : 64;
        while (nn <= id)
            nn *= 2;
        x->gate = nx_realloc(x, x->gate, nn * sizeof *x->gate);
        x->offers = nx_realloc(x, x->offers, nn * sizeof *x->offers);
        x->async = nx_realloc(x, x->async, nn);
        for (size_t i = x->info_n; i < nn; i++) {
            x->gate[i] = x->offers[i] = NX_NONE;
            x->async[i] = 0;
        }
        x->info_n = nn;
    }
    /* a private copy: the label text must stay valid while interning */
    size_t len = strtab_len(x->tab, id);
    char *tmp = nx_realloc(x, NULL, len + 1);
    memcpy(tmp, strtab_str(x->tab, id), len + 1);
    size_t g = gate_len(tmp);
    uint32_t gid = strtab_intern(x->tab, tmp, g);
    uint32_t oid = strtab_intern(x->tab, tmp + g, len - g);
    bool as = id == x->hidden;
    if (x->opt->rate && (strncmp(tmp, "rate ", 5) == 0 || strstr(tmp, "; rate ")))
        as = true;
    if (x->opt->prob && (strncmp(tmp, "prob ", 5) == 0 || strstr(tmp, "; prob ")))
        as = true;
    free(tmp);
    if (gid == UINT32_MAX || oid == UINT32_MAX)
        nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
    /* gid/oid may exceed info_n now; they get their own info when asked */
    x->gate[id] = gid;
    x->offers[id] = oid;
    x->async[id] = as ? 2 : 1;
}

static uint32_t nx_gate(struct nx *x, uint32_t id)
{
    nx_info(x, id);
    return x->gate[id];
}

static uint32_t nx_offers(struct nx *x, uint32_t id)
{
    nx_info(x, id);
    return x->offers[id];
}

/* Hidden transitions (and --rate/--prob labels) never synchronise. */
static bool nx_async(struct nx *x, uint32_t id)
{
    nx_info(x, id);
    return x->async[id] == 2;
}

static bool nx_is_term(struct nx *x, uint32_t id)
{
    return x->term != NX_NONE && nx_gate(x, id) == x->term;
}

/* ------------------------------------------------------------ transitions */

static void tl_reset(struct tlist *t, uint32_t width)
{
    t->n = 0;
    t->width = width;
}

/* Appends a transition and returns its slice to fill. */
static uint32_t *tl_push(struct nx *x, struct tlist *t, uint32_t lab)
{
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 8;
        t->lab = nx_realloc(x, t->lab, nc * sizeof *t->lab);
        t->vec = nx_realloc(x, t->vec, nc * (t->width ? t->width : 1) * sizeof *t->vec);
        t->cap = nc;
    }
    t->lab[t->n] = lab;
    return t->vec + t->n++ * t->width;
}

/* ---------------------------------------------------------------- regexes */

/* Whole-string match: with POSIX leftmost-longest matching, a match of the
 * whole string exists iff the leftmost-longest match spans it. */
static bool re_full(const regex_t *re, const char *s, size_t len)
{
    regmatch_t m[1];
    if (regexec(re, s, 1, m, 0) != 0)
        return false;
    return m[0].rm_so == 0 && (size_t)m[0].rm_eo == len;
}

static bool re_any(const regex_t *re, const char *s)
{
    return regexec(re, s, 0, NULL, 0) == 0;
}

/* Does label `id` match pattern k of node n in the node's mode? */
static bool node_match(struct nx *x, struct nnode *n, size_t k, uint32_t id)
{
    const char *s = strtab_str(x->tab, id);
    switch (n->mode) {
    case EXP_MODE_TOTAL:
        return re_full(&n->re[k], s, strlen(s));
    case EXP_MODE_PARTIAL:
        return re_any(&n->re[k], s);
    default: {                                     /* gate */
        size_t g = gate_len(s);
        nx_grow(x, (void **)&x->buf, &x->cap_buf, g + 1, 1);
        memcpy(x->buf, s, g);
        x->buf[g] = 0;
        return re_full(&n->re[k], x->buf, g);
    }
    }
}

/* Appends to the growing string (*out, *len, *cap). */
static void sb_add(struct nx *x, char **out, size_t *len, size_t *cap, const char *s, size_t n)
{
    nx_grow(x, (void **)out, cap, *len + n + 1, 1);
    memcpy(*out + *len, s, n);
    *len += n;
    (*out)[*len] = 0;
}

/* Appends the replacement r with \1..\9 taken from the groups of subject s
 * (an unmatched group gives ""); "\\" gives one backslash; every other
 * character, other backslashes included, is copied. */
static void expand_repl(struct nx *x, char **out, size_t *len, size_t *cap, const char *r,
                        const char *s, const regmatch_t *m)
{
    for (const char *p = r; *p; p++) {
        if (p[0] == '\\' && p[1] >= '1' && p[1] <= '9') {
            const regmatch_t *g = &m[p[1] - '0'];
            if (g->rm_so >= 0)
                sb_add(x, out, len, cap, s + g->rm_so, (size_t)(g->rm_eo - g->rm_so));
            p++;
        } else if (p[0] == '\\' && p[1] == '\\') {
            sb_add(x, out, len, cap, "\\", 1);
            p++;
        } else {
            sb_add(x, out, len, cap, p, 1);
        }
    }
}

/* Tries rename rule k on label id; returns the new id or NX_NONE. */
static uint32_t rename_rule(struct nx *x, struct nnode *n, size_t k, uint32_t id)
{
    regmatch_t m[10];
    size_t slen = strtab_len(x->tab, id);
    char *s = nx_realloc(x, NULL, slen + 1);     /* stable copy of the label */
    memcpy(s, strtab_str(x->tab, id), slen + 1);
    char *out = NULL;
    size_t len = 0, cap = 0;
    uint32_t res = NX_NONE;
    const regex_t *re = &n->re[k];
    const char *r = n->repl[k];
    sb_add(x, &out, &len, &cap, "", 0);
    switch (n->mode) {
    case EXP_MODE_TOTAL:
        if (regexec(re, s, 10, m, 0) == 0 && m[0].rm_so == 0 && (size_t)m[0].rm_eo == slen) {
            expand_repl(x, &out, &len, &cap, r, s, m);
            res = 0;
        }
        break;
    case EXP_MODE_SINGLE:
        if (regexec(re, s, 10, m, 0) == 0) {
            sb_add(x, &out, &len, &cap, s, (size_t)m[0].rm_so);
            expand_repl(x, &out, &len, &cap, r, s, m);
            sb_add(x, &out, &len, &cap, s + m[0].rm_eo, slen - (size_t)m[0].rm_eo);
            res = 0;
        }
        break;
    case EXP_MODE_MULTIPLE: {
        size_t pos = 0;
        bool any = false;
        long last_end = -1;          /* no empty match right after a match */
        while (pos <= slen && regexec(re, s + pos, 10, m, pos ? REG_NOTBOL : 0) == 0) {
            size_t so = pos + (size_t)m[0].rm_so, eo = pos + (size_t)m[0].rm_eo;
            if (so == eo && (long)so == last_end) {
                if (so >= slen)
                    break;
                sb_add(x, &out, &len, &cap, s + pos, so - pos + 1);
                pos = so + 1;
                continue;
            }
            any = true;
            sb_add(x, &out, &len, &cap, s + pos, so - pos);
            expand_repl(x, &out, &len, &cap, r, s + pos, m);
            last_end = (long)eo;
            if (eo == so) {
                if (so >= slen) {
                    pos = slen + 1;
                    break;
                }
                sb_add(x, &out, &len, &cap, s + so, 1);
                pos = so + 1;
            } else {
                pos = eo;
            }
        }
        if (any) {
            if (pos <= slen)
                sb_add(x, &out, &len, &cap, s + pos, slen - pos);
            res = 0;
        }
        break;
    }
    default: {                                     /* gate */
        size_t g = gate_len(s);
        char save = s[g];
        s[g] = 0;
        bool hit = regexec(re, s, 10, m, 0) == 0 && m[0].rm_so == 0 && (size_t)m[0].rm_eo == g;
        if (hit)
            expand_repl(x, &out, &len, &cap, r, s, m);
        s[g] = save;
        if (hit) {
            sb_add(x, &out, &len, &cap, s + g, slen - g);
            res = 0;
        }
        break;
    }
    }
    if (res == 0) {
        uint32_t id2 = strtab_intern(x->tab, out, len);
        free(out);
        free(s);
        if (id2 == UINT32_MAX)
            nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
        return id2;
    }
    free(out);
    free(s);
    return NX_NONE;
}

/* The label a hide/cut/rename node turns `id` into (NX_CUT: removed). */
static uint32_t node_relabel(struct nx *x, struct nnode *n, uint32_t id)
{
    if (id < n->memo_n && n->memo[id] != NX_NONE)
        return n->memo[id];
    uint32_t res = id;
    if (id != x->hidden) {
        if (n->kind == EXP_RENAME) {
            for (size_t k = 0; k < n->n_pats; k++) {
                uint32_t r = rename_rule(x, n, k, id);
                if (r != NX_NONE) {
                    res = r;
                    break;
                }
            }
        } else {
            bool m = false;
            for (size_t k = 0; k < n->n_pats && !m; k++)
                m = node_match(x, n, k, id);
            if ((n->all_but ? !m : m) && !(n->keep_term && nx_is_term(x, id)))
                res = n->kind == EXP_HIDE ? x->hidden : NX_CUT;
        }
    }
    if (id >= n->memo_n) {
        size_t nn = n->memo_n ? n->memo_n : 64;
        while (nn <= id)
            nn *= 2;
        n->memo = nx_realloc(x, n->memo, nn * sizeof *n->memo);
        for (size_t i = n->memo_n; i < nn; i++)
            n->memo[i] = NX_NONE;
        n->memo_n = nn;
    }
    n->memo[id] = res;
    return res;
}

/* -------------------------------------------------------------- successors */

static void succ(struct nx *x, struct nnode *n, const uint32_t *vec);

/* Emits one par transition: the node's slice with operand k's slices
 * replaced by the chosen transitions chosen[k] (SIZE_MAX = does not move). */
static void par_emit(struct nx *x, struct nnode *n, const uint32_t *vec, const size_t *chosen,
                     uint32_t lab)
{
    uint32_t w = n->hi - n->lo;
    uint32_t *dst = tl_push(x, &n->out, lab);
    memcpy(dst, vec + n->lo, w * sizeof *dst);
    for (size_t k = 0; k < n->n_ops; k++) {
        if (chosen[k] == SIZE_MAX)
            continue;
        struct nnode *o = n->ops[k];
        memcpy(dst + (o->lo - n->lo), o->out.vec + chosen[k] * o->out.width,
               (o->hi - o->lo) * sizeof *dst);
    }
}

/* Vector enumeration: participant positions part[0..np), choice so far. */
static void vec_rec(struct nx *x, struct nnode *n, const uint32_t *vec, size_t v,
                    const size_t *part, size_t np, size_t i, size_t *chosen, uint32_t offers)
{
    if (i == np) {
        uint32_t res = n->vres[v];
        if (!n->label_mode && offers != NX_NONE) {
            /* gate mode: R followed by the participants' common offers */
            size_t rl = strtab_len(x->tab, res), ol = strtab_len(x->tab, offers);
            char *t = nx_realloc(x, NULL, rl + ol + 1);
            memcpy(t, strtab_str(x->tab, res), rl);
            memcpy(t + rl, strtab_str(x->tab, offers), ol);
            t[rl + ol] = 0;
            uint32_t id = strtab_intern(x->tab, t, rl + ol);
            free(t);
            if (id == UINT32_MAX)
                nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
            res = id;
        }
        par_emit(x, n, vec, chosen, res);
        return;
    }
    size_t k = part[i];
    uint32_t want = n->vcomp[v * n->n_ops + k];
    struct tlist *t = &n->ops[k]->out;
    for (size_t j = 0; j < t->n; j++) {
        uint32_t lab = t->lab[j];
        if (nx_async(x, lab))
            continue;
        uint32_t off = offers;
        if (n->label_mode) {
            if (lab != want)
                continue;
        } else {
            if (nx_gate(x, lab) != want)
                continue;
            uint32_t o = nx_offers(x, lab);
            if (i > 0 && o != offers)
                continue;
            off = o;
        }
        chosen[k] = j;
        vec_rec(x, n, vec, v, part, np, i + 1, chosen, off);
        chosen[k] = SIZE_MAX;
    }
}

static void succ_vectors(struct nx *x, struct nnode *n, const uint32_t *vec, size_t *chosen,
                         size_t *part)
{
    for (size_t k = 0; k < n->n_ops; k++) {
        struct tlist *t = &n->ops[k]->out;
        for (size_t j = 0; j < t->n; j++) {
            if (!nx_async(x, t->lab[j]))
                continue;
            chosen[k] = j;
            par_emit(x, n, vec, chosen, t->lab[j]);
            chosen[k] = SIZE_MAX;
        }
    }
    for (size_t v = 0; v < n->n_vecs; v++) {
        size_t np = 0;
        for (size_t k = 0; k < n->n_ops; k++)
            if (n->vcomp[v * n->n_ops + k] != NX_NONE)
                part[np++] = k;
        if (np > 0)
            vec_rec(x, n, vec, v, part, np, 0, chosen, NX_NONE);
    }
}

static void add_mask(struct nx *x, uint64_t m)
{
    if (!m)
        return;
    nx_grow(x, (void **)&x->masks, &x->cap_masks, x->n_masks + 1, sizeof *x->masks);
    x->masks[x->n_masks++] = m;
}

/* Adds every subset of `elig` with exactly `size` members. */
static void add_subsets(struct nx *x, uint64_t elig, int size)
{
    if (size <= 0)
        return;
    for (uint64_t s = elig;; s = (s - 1) & elig) {
        if (s && __builtin_popcountll(s) == size)
            add_mask(x, s);
        if (!s)
            break;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Participant sets of label `lab` in a generalised par (see naive.h). */
static void general_sets(struct nx *x, struct nnode *n, uint32_t lab)
{
    x->n_masks = 0;
    uint64_t all = n->n_ops == 64 ? ~0ull : (1ull << n->n_ops) - 1;
    if (nx_is_term(x, lab)) {
        add_mask(x, all);
        return;
    }
    uint32_t key = n->label_mode ? lab : nx_gate(x, lab);
    bool in_global = n->global_all;
    if (n->global_all)
        add_mask(x, all);
    for (size_t e = 0; e < n->n_glob; e++) {
        if (n->glob[e].key != key)
            continue;
        in_global = true;
        if (n->glob[e].degree < 0)
            add_mask(x, all);
        else
            add_subsets(x, all, n->glob[e].degree);
    }
    /* local elements: group by degree */
    for (size_t k = 0; k < n->n_ops; k++) {
        bool in_local = false;
        for (size_t e = 0; e < n->n_lif[k]; e++) {
            if (n->lif[k][e].key != key)
                continue;
            in_local = true;
            int d = n->lif[k][e].degree;
            uint64_t elig = 0;       /* operands listing the same element */
            for (size_t j = 0; j < n->n_ops; j++)
                for (size_t f = 0; f < n->n_lif[j]; f++)
                    if (n->lif[j][f].key == key && n->lif[j][f].degree == d)
                        elig |= 1ull << j;
            if (d < 0)
                add_mask(x, elig);
            else
                add_subsets(x, elig, d);
        }
        if (!in_global && !in_local)
            add_mask(x, 1ull << k);
    }
    if (x->n_masks > 1) {
        qsort(x->masks, x->n_masks, sizeof *x->masks, cmp_u64);
        size_t u = 1;
        for (size_t i = 1; i < x->n_masks; i++)
            if (x->masks[i] != x->masks[u - 1])
                x->masks[u++] = x->masks[i];
        x->n_masks = u;
    }
}

/* Cartesian product over the members of `mask` of their `lab` transitions. */
static void general_rec(struct nx *x, struct nnode *n, const uint32_t *vec, uint64_t mask,
                        uint32_t lab, size_t k, size_t *chosen)
{
    while (k < n->n_ops && !(mask >> k & 1))
        k++;
    if (k == n->n_ops) {
        par_emit(x, n, vec, chosen, lab);
        return;
    }
    struct tlist *t = &n->ops[k]->out;
    for (size_t j = 0; j < t->n; j++) {
        if (t->lab[j] != lab)
            continue;
        chosen[k] = j;
        general_rec(x, n, vec, mask, lab, k + 1, chosen);
        chosen[k] = SIZE_MAX;
    }
}

static void succ_general(struct nx *x, struct nnode *n, const uint32_t *vec, size_t *chosen)
{
    x->n_labs = 0;
    for (size_t k = 0; k < n->n_ops; k++) {
        struct tlist *t = &n->ops[k]->out;
        for (size_t j = 0; j < t->n; j++) {
            if (nx_async(x, t->lab[j])) {
                chosen[k] = j;
                par_emit(x, n, vec, chosen, t->lab[j]);
                chosen[k] = SIZE_MAX;
                continue;
            }
            nx_grow(x, (void **)&x->labs, &x->cap_labs, x->n_labs + 1, sizeof *x->labs);
            x->labs[x->n_labs++] = t->lab[j];
        }
    }
    /* x->labs / x->masks are shared scratch: copy the label list first */
    size_t nl = x->n_labs;
    uint32_t *labs = nx_realloc(x, NULL, (nl ? nl : 1) * sizeof *labs);
    if (nl) {
        memcpy(labs, x->labs, nl * sizeof *labs);
        qsort(labs, nl, sizeof *labs, cmp_u32);
    }
    for (size_t i = 0; i < nl; i++) {
        if (i > 0 && labs[i] == labs[i - 1])
            continue;
        general_sets(x, n, labs[i]);
        for (size_t m = 0; m < x->n_masks; m++)
            general_rec(x, n, vec, x->masks[m], labs[i], 0, chosen);
    }
    free(labs);
}

/* The label whose text is `pre` followed by the text of `id` minus its
 * first `skip` bytes (a CCS co-name, or an mCRL result with offers). */
static uint32_t cat_label(struct nx *x, const char *pre, uint32_t id, size_t skip)
{
    size_t pl = strlen(pre), il = strtab_len(x->tab, id) - skip;
    char *t = nx_realloc(x, NULL, pl + il + 1);
    memcpy(t, pre, pl);
    memcpy(t + pl, strtab_str(x->tab, id) + skip, il);
    t[pl + il] = 0;
    uint32_t r = strtab_intern(x->tab, t, pl + il);
    free(t);
    if (r == UINT32_MAX)
        nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
    return r;
}

/* The label two operand transitions a, b communicate to, or NX_NONE. */
static uint32_t comm_of(struct nx *x, struct nnode *n, uint32_t a, uint32_t b)
{
    if (a == x->hidden || b == x->hidden || nx_async(x, a) || nx_async(x, b))
        return NX_NONE;
    if (n->ccs) {
        const char *t = strtab_str(x->tab, a);
        uint32_t co = t[0] == '\'' ? cat_label(x, "", a, 1) : cat_label(x, "'", a, 0);
        return co == b ? x->hidden : NX_NONE;
    }
    if (nx_offers(x, a) != nx_offers(x, b))
        return NX_NONE;
    uint32_t ga = nx_gate(x, a), gb = nx_gate(x, b);
    for (size_t i = 0; i < n->n_comm; i++) {
        if ((ga == n->comm_a[i] && gb == n->comm_b[i]) ||
            (ga == n->comm_b[i] && gb == n->comm_a[i]))
            return cat_label(x, strtab_str(x->tab, n->comm_c[i]), nx_offers(x, a), 0);
    }
    return NX_NONE;
}

/* CCS | and mCRL ||: every transition of either side, plus each pair of
 * transitions that communicate. */
static void succ_comm(struct nx *x, struct nnode *n, const uint32_t *vec, size_t *chosen)
{
    for (size_t k = 0; k < 2; k++) {
        struct tlist *t = &n->ops[k]->out;
        for (size_t j = 0; j < t->n; j++) {
            chosen[k] = j;
            par_emit(x, n, vec, chosen, t->lab[j]);
            chosen[k] = SIZE_MAX;
        }
    }
    struct tlist *l = &n->ops[0]->out, *r = &n->ops[1]->out;
    for (size_t i = 0; i < l->n; i++) {
        for (size_t j = 0; j < r->n; j++) {
            uint32_t c = comm_of(x, n, l->lab[i], r->lab[j]);
            if (c == NX_NONE)
                continue;
            chosen[0] = i, chosen[1] = j;
            par_emit(x, n, vec, chosen, c);
            chosen[0] = chosen[1] = SIZE_MAX;
        }
    }
}

/* prio: a transition of the body fires unless the body also has, in the same
 * state, a transition whose label is above its own. */
static void succ_prio(struct nx *x, struct nnode *n, const uint32_t *vec)
{
    succ(x, n->body, vec);
    struct tlist *b = &n->body->out;
    for (size_t j = 0; j < b->n; j++) {
        uint32_t l = b->lab[j];
        uint32_t u = l < n->uidx_n ? n->uidx[l] : NX_NONE;
        if (u == NX_NONE)
            nx_fail(x, WX_EINPUT, &n->loc,
                    "oracle: label '%s' missing from the prio body's alphabet",
                    strtab_str(x->tab, l));
        bool blocked = false;
        for (size_t i = 0; i < b->n && !blocked; i++) {
            uint32_t h = b->lab[i];
            uint32_t v = h < n->uidx_n ? n->uidx[h] : NX_NONE;
            blocked = v != NX_NONE && n->above[(size_t)v * n->n_names + u];
        }
        if (blocked)
            continue;
        uint32_t *d = tl_push(x, &n->out, l);
        memcpy(d, b->vec + j * b->width, b->width * sizeof *d);
    }
}

static void succ(struct nx *x, struct nnode *n, const uint32_t *vec)
{
    tl_reset(&n->out, n->hi - n->lo);
    switch (n->kind) {
    case EXP_PRIO:
        succ_prio(x, n, vec);
        break;
    case EXP_LEAF: {
        uint32_t s = vec[n->lo];
        for (uint32_t j = n->off[s]; j < n->off[s + 1]; j++)
            *tl_push(x, &n->out, n->tlab[j]) = n->tdst[j];
        break;
    }
    case EXP_HIDE:
    case EXP_CUT:
    case EXP_RENAME: {
        succ(x, n->body, vec);
        struct tlist *b = &n->body->out;
        for (size_t j = 0; j < b->n; j++) {
            uint32_t l = node_relabel(x, n, b->lab[j]);
            if (l == NX_CUT)
                continue;
            uint32_t *d = tl_push(x, &n->out, l);
            memcpy(d, b->vec + j * b->width, b->width * sizeof *d);
        }
        break;
    }
    case EXP_PAR_VECTORS:
    case EXP_PAR_GENERAL:
    case EXP_PAR_COMM: {
        for (size_t k = 0; k < n->n_ops; k++)
            succ(x, n->ops[k], vec);
        /* scratch for the recursion; freed right away, so allocation
         * failure inside leaks at most these two blocks */
        size_t *chosen = nx_realloc(x, NULL, 2 * n->n_ops * sizeof *chosen);
        for (size_t k = 0; k < n->n_ops; k++)
            chosen[k] = SIZE_MAX;
        if (n->kind == EXP_PAR_VECTORS)
            succ_vectors(x, n, vec, chosen, chosen + n->n_ops);
        else if (n->kind == EXP_PAR_COMM)
            succ_comm(x, n, vec, chosen);
        else
            succ_general(x, n, vec, chosen);
        free(chosen);
        break;
    }
    }
}

/* -------------------------------------------------------- static alphabets */

/* A node's static alphabet: the labels its transitions can carry, whether or
 * not a reachable state of the whole network shows them, computed on the
 * tree alone (a prio relates these; see naive.h):
 *   leaf      the labels of the transitions reachable from its initial state
 *             in the LTS alone;
 *   hide/cut/rename   each label of the body mapped as a transition would be
 *             (node_relabel), cut labels dropped;
 *   prio      its body's;
 *   vectors   the hidden and asynchronous labels of every operand, and the
 *             result of each vector whose every element some operand label
 *             matches (gate mode: one label per element, all with the same
 *             offers, the result followed by them);
 *   general   the asynchronous labels of every operand, and each other label
 *             L of an operand for which some participant set (general_sets)
 *             has every member's alphabet contain L;
 *   CCS/mCRL  both operands' labels and every communication (comm_of) of a
 *             label of the left one with a label of the right one. */

static void alphabet(struct nx *x, struct nnode *n);

static void al_add(struct nx *x, struct nnode *n, uint32_t id)
{
    nx_grow(x, (void **)&n->alpha, &n->cap_alpha, n->n_alpha + 1, sizeof *n->alpha);
    n->alpha[n->n_alpha++] = id;
}

static bool al_has(const struct nnode *n, uint32_t id)
{
    size_t a = 0, b = n->n_alpha;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (n->alpha[m] < id)
            a = m + 1;
        else
            b = m;
    }
    return a < n->n_alpha && n->alpha[a] == id;
}

/* Has operand o a label that is not asynchronous, whose gate is g and whose
 * offers are `offers`? */
static bool al_has_gate(struct nx *x, const struct nnode *o, uint32_t g, uint32_t offers)
{
    for (size_t i = 0; i < o->n_alpha; i++)
        if (!nx_async(x, o->alpha[i]) && nx_gate(x, o->alpha[i]) == g &&
            nx_offers(x, o->alpha[i]) == offers)
            return true;
    return false;
}

static void alpha_leaf(struct nx *x, struct nnode *n)
{
    n->scratch = nx_calloc(x, n->n_states, 1 + sizeof(uint32_t));
    uint32_t *stack = n->scratch;
    uint8_t *seen = (uint8_t *)(stack + n->n_states);
    size_t top = 0;
    seen[n->initial] = 1;
    stack[top++] = n->initial;
    while (top > 0) {
        uint32_t s = stack[--top];
        for (uint32_t j = n->off[s]; j < n->off[s + 1]; j++) {
            al_add(x, n, n->tlab[j]);
            if (!seen[n->tdst[j]]) {
                seen[n->tdst[j]] = 1;
                stack[top++] = n->tdst[j];
            }
        }
    }
    free(n->scratch);
    n->scratch = NULL;
}

static void alpha_vectors(struct nx *x, struct nnode *n)
{
    for (size_t k = 0; k < n->n_ops; k++)
        for (size_t i = 0; i < n->ops[k]->n_alpha; i++)
            if (nx_async(x, n->ops[k]->alpha[i]))
                al_add(x, n, n->ops[k]->alpha[i]);
    for (size_t v = 0; v < n->n_vecs; v++) {
        const uint32_t *c = n->vcomp + v * n->n_ops;
        size_t first = 0;
        while (first < n->n_ops && c[first] == NX_NONE)
            first++;
        if (first == n->n_ops)
            continue;
        if (n->label_mode) {
            bool all = true;
            for (size_t k = 0; k < n->n_ops && all; k++)
                all = c[k] == NX_NONE || (!nx_async(x, c[k]) && al_has(n->ops[k], c[k]));
            if (all)
                al_add(x, n, n->vres[v]);
            continue;
        }
        const struct nnode *o = n->ops[first];
        for (size_t i = 0; i < o->n_alpha; i++) {
            uint32_t l = o->alpha[i];
            if (nx_async(x, l) || nx_gate(x, l) != c[first])
                continue;
            uint32_t offers = nx_offers(x, l);
            bool all = true;
            for (size_t k = first + 1; k < n->n_ops && all; k++)
                all = c[k] == NX_NONE || al_has_gate(x, n->ops[k], c[k], offers);
            if (all)
                al_add(x, n, cat_label(x, strtab_str(x->tab, n->vres[v]), offers, 0));
        }
    }
}

static void alpha_general(struct nx *x, struct nnode *n)
{
    for (size_t k = 0; k < n->n_ops; k++)
        for (size_t i = 0; i < n->ops[k]->n_alpha; i++) {
            uint32_t l = n->ops[k]->alpha[i];
            if (nx_async(x, l)) {
                al_add(x, n, l);
                continue;
            }
            general_sets(x, n, l);
            for (size_t m = 0; m < x->n_masks; m++) {
                bool all = true;
                for (size_t j = 0; j < n->n_ops && all; j++)
                    all = !(x->masks[m] >> j & 1) || al_has(n->ops[j], l);
                if (all) {
                    al_add(x, n, l);
                    break;
                }
            }
        }
}

static void alpha_comm(struct nx *x, struct nnode *n)
{
    const struct nnode *a = n->ops[0], *b = n->ops[1];
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < n->ops[k]->n_alpha; i++)
            al_add(x, n, n->ops[k]->alpha[i]);
    for (size_t i = 0; i < a->n_alpha; i++)
        for (size_t j = 0; j < b->n_alpha; j++) {
            uint32_t c = comm_of(x, n, a->alpha[i], b->alpha[j]);
            if (c != NX_NONE)
                al_add(x, n, c);
        }
}

/* Computes n->alpha (and its children's) once. */
static void alphabet(struct nx *x, struct nnode *n)
{
    if (n->has_alpha)
        return;
    if (n->body)
        alphabet(x, n->body);
    for (size_t k = 0; k < n->n_ops; k++)
        alphabet(x, n->ops[k]);
    switch (n->kind) {
    case EXP_LEAF:
        alpha_leaf(x, n);
        break;
    case EXP_PRIO:
        for (size_t i = 0; i < n->body->n_alpha; i++)
            al_add(x, n, n->body->alpha[i]);
        break;
    case EXP_HIDE:
    case EXP_CUT:
    case EXP_RENAME:
        for (size_t i = 0; i < n->body->n_alpha; i++) {
            uint32_t l = node_relabel(x, n, n->body->alpha[i]);
            if (l != NX_CUT)
                al_add(x, n, l);
        }
        break;
    case EXP_PAR_VECTORS:
        alpha_vectors(x, n);
        break;
    case EXP_PAR_GENERAL:
        alpha_general(x, n);
        break;
    case EXP_PAR_COMM:
        alpha_comm(x, n);
        break;
    }
    if (n->n_alpha > 1) {
        qsort(n->alpha, n->n_alpha, sizeof *n->alpha, cmp_u32);
        size_t u = 1;
        for (size_t i = 1; i < n->n_alpha; i++)
            if (n->alpha[i] != n->alpha[u - 1])
                n->alpha[u++] = n->alpha[i];
        n->n_alpha = u;
    }
    n->has_alpha = true;
}

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

/* ------------------------------------------------------------ exploration */

static uint64_t hash_vec(const uint32_t *v, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < n; i++) {
        h ^= v[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
    }
    return h;
}

/* Returns the id of vector v, inserting it (at BFS level lvl) when new. */
static uint64_t find_or_add(struct nx *x, const uint32_t *v, uint32_t lvl, bool *added)
{
    uint32_t w = x->n_leaves;
    if (2 * (x->n_states + 1) > x->n_slot) {
        uint64_t ns = x->n_slot ? 2 * x->n_slot : 1024;
        uint64_t *t = nx_calloc(x, ns, sizeof *t);
        for (uint64_t i = 0; i < x->n_slot; i++) {
            uint64_t id = x->slot[i];
            if (!id)
                continue;
            uint64_t h = hash_vec(x->states + (id - 1) * w, w) & (ns - 1);
            while (t[h])
                h = (h + 1) & (ns - 1);
            t[h] = id;
        }
        free(x->slot);
        x->slot = t;
        x->n_slot = ns;
    }
    uint64_t h = hash_vec(v, w) & (x->n_slot - 1);
    for (;; h = (h + 1) & (x->n_slot - 1)) {
        uint64_t id = x->slot[h];
        if (!id)
            break;
        if (memcmp(x->states + (id - 1) * w, v, w * sizeof *v) == 0) {
            *added = false;
            return id - 1;
        }
    }
    if (x->opt->max_states && x->n_states >= x->opt->max_states)
        nx_fail(x, WX_ELIMIT, NULL, "more than %llu states",
                (unsigned long long)x->opt->max_states);
    if (x->n_states == x->cap_states) {
        uint64_t nc = x->cap_states ? 2 * x->cap_states : 256;
        x->states = nx_realloc(x, x->states, nc * (w ? w : 1) * sizeof *x->states);
        x->level = nx_realloc(x, x->level, nc * sizeof *x->level);
        x->cap_states = nc;
    }
    uint64_t id = x->n_states++;
    memcpy(x->states + id * w, v, w * sizeof *v);
    x->level[id] = lvl;
    x->slot[h] = id + 1;
    *added = true;
    return id;
}

static void explore(struct nx *x, struct naive_result *res)
{
    uint32_t w = x->n_leaves;
    uint32_t *cur = x->cur = nx_calloc(x, w, sizeof *cur);
    initial_vector(x->root, cur);
    bool added;
    find_or_add(x, cur, 0, &added);
    for (uint64_t s = 0; s < x->n_states; s++) {
        memcpy(cur, x->states + s * w, w * sizeof *cur);
        succ(x, x->root, cur);
        struct tlist *t = &x->root->out;
        x->n_pairs = 0;
        for (size_t j = 0; j < t->n; j++) {
            uint64_t d = find_or_add(x, t->vec + j * t->width, x->level[s] + 1, &added);
            nx_grow(x, (void **)&x->pairs, &x->cap_pairs, x->n_pairs + 2, sizeof *x->pairs);
            x->pairs[x->n_pairs++] = (uint64_t)t->lab[j] << 40 | d;
            if (d >= (1ull << 40))
                nx_fail(x, WX_ELIMIT, NULL, "too many states for the oracle");
        }
        if (x->n_pairs)
            qsort(x->pairs, x->n_pairs, sizeof *x->pairs, cmp_u64);
        uint64_t distinct = 0;
        for (size_t j = 0; j < x->n_pairs; j++) {
            if (j > 0 && x->pairs[j] == x->pairs[j - 1])
                continue;
            distinct++;
            if (x->opt->label_fn) {
                uint32_t l = (uint32_t)(x->pairs[j] >> 40);
                if (l >= x->n_seen) {
                    size_t nn = x->n_seen ? x->n_seen : 64;
                    while (nn <= l)
                        nn *= 2;
                    x->seen = nx_realloc(x, x->seen, nn * sizeof *x->seen);
                    memset(x->seen + x->n_seen, 0, (nn - x->n_seen) * sizeof *x->seen);
                    x->n_seen = nn;
                }
                x->seen[l]++;
            }
            if (x->opt->aut_out) {
                nx_grow(x, (void **)&x->edges, &x->cap_edges, 3 * (x->n_edges + 1),
                        sizeof *x->edges);
                x->edges[3 * x->n_edges] = s;
                x->edges[3 * x->n_edges + 1] = x->pairs[j] >> 40;
                x->edges[3 * x->n_edges + 2] = x->pairs[j] & ((1ull << 40) - 1);
                x->n_edges++;
            }
        }
        res->transitions += distinct;
        if (distinct == 0)
            res->deadlocks++;
        res->states = x->n_states;
        if (x->level[s] > res->depth)
            res->depth = x->level[s];
    }
}

static void write_product(struct nx *x, FILE *f)
{
    fprintf(f, "des (0, %zu, %llu)\n", x->n_edges, (unsigned long long)x->n_states);
    for (size_t e = 0; e < x->n_edges; e++) {
        const char *l = strtab_str(x->tab, (uint32_t)x->edges[3 * e + 1]);
        if ((uint32_t)x->edges[3 * e + 1] == x->hidden)
            fprintf(f, "(%llu, i, %llu)\n", (unsigned long long)x->edges[3 * e],
                    (unsigned long long)x->edges[3 * e + 2]);
        else
            fprintf(f, "(%llu, \"%s\", %llu)\n", (unsigned long long)x->edges[3 * e], l,
                    (unsigned long long)x->edges[3 * e + 2]);
    }
}

static void nx_cleanup(struct nx *x)
{
    node_free(x->root);
    for (size_t i = 0; i < x->n_files; i++)
        if (x->opt->free_file)
            x->opt->free_file(x->files[i]);
    free(x->files);
    strtab_free(x->tab);
    free(x->gate);
    free(x->offers);
    free(x->async);
    free(x->states);
    free(x->level);
    free(x->slot);
    free(x->pairs);
    free(x->edges);
    free(x->buf);
    free(x->masks);
    free(x->labs);
    free(x->cur);
    free(x->seen);
}

static int explore_lang(const struct exp_node *root, enum exp_lang lang,
                        const struct naive_options *opt, struct naive_result *res,
                        struct wx_error *err)
{
    /* volatile: read after longjmp */
    struct nx *volatile x = calloc(1, sizeof *x);
    memset(res, 0, sizeof *res);
    wx_error_clear(err);
    if (!x)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "out of memory");
    x->err = err;
    x->opt = opt;
    x->lang = lang;
    if (setjmp(x->fail)) {
        int code = err->code ? err->code : WX_ESYSTEM;
        res->states = x->n_states;
        nx_cleanup(x);
        free(x);
        return code;
    }
    x->tab = strtab_new();
    if (!x->tab)
        nx_fail(x, WX_ESYSTEM, NULL, "out of memory");
    const char *hidden = opt->hidden, *term = opt->termination;
    if (!hidden)
        hidden = lang == EXP_LANG_CCS || lang == EXP_LANG_CSP ? "t"
                 : lang == EXP_LANG_MCRL                       ? "tau"
                                                               : "i";
    if (!term)
        term = lang == EXP_LANG_CSP                              ? "delta"
               : lang == EXP_LANG_CCS || lang == EXP_LANG_MCRL ? NULL
                                                                : "exit";
    x->fold = !opt->case_sensitive &&
              (lang == EXP_LANG_LOTOS || lang == EXP_LANG_CCS || lang == EXP_LANG_CSP);
    x->hidden = nx_intern_str(x, hidden);
    x->term = term ? nx_intern_str(x, term) : NX_NONE;
    if (!root)
        nx_fail(x, WX_EINPUT, NULL, "empty behaviour");
    x->root = compile(x, root);
    compile_fill(x, x->root, root);
    res->n_leaves = x->n_leaves;
    explore(x, res);
    if (opt->aut_out)
        write_product(x, opt->aut_out);
    for (size_t l = 0; opt->label_fn && l < x->n_seen; l++)
        if (x->seen[l])
            opt->label_fn(opt->label_ctx, strtab_str(x->tab, (uint32_t)l), l == x->hidden,
                          x->seen[l]);
    nx_cleanup(x);
    free(x);
    return WX_OK;
}

int naive_explore(const struct exp_node *root, const struct naive_options *opt,
                  struct naive_result *res, struct wx_error *err)
{
    return explore_lang(root, opt->lang, opt, res, err);
}

int naive_explore_file(const struct exp_file *f, const struct naive_options *opt,
                       struct naive_result *res, struct wx_error *err)
{
    /* a bare "behaviour" header means LOTOS */
    enum exp_lang lang = opt->lang != EXP_LANG_NONE ? opt->lang
                         : f->lang == EXP_LANG_NONE && f->has_header ? EXP_LANG_LOTOS
                                                                       : f->lang;
    return explore_lang(f->root, lang, opt, res, err);
}
