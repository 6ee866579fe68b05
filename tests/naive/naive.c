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
 *
 * One translation unit in five files: this one (the context, labels and
 * regexes, the exploration and the API) includes naive_aut.c (LTS I/O),
 * naive_succ.c (the operators' successors), naive_alpha.c (static
 * alphabets) and naive_compile.c (the tree compiled into oracle nodes).
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

#include "naive_aut.c"

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

#include "naive_succ.c"

#include "naive_alpha.c"

#include "naive_compile.c"

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
