/*
 * test_network.c -- EXP flattening (network/net_*.c, label_match.c).
 *
 * Every construct gets a tiny hand-written network whose flattened product is
 * explored by a brute-force BFS written here, straight from the semantics
 * comment of network.h, and compared with hand-computed state/transition
 * counts and per-label transition counts.  A random differential test then
 * compares the flattened product with a direct, per-state interpretation of
 * the EXP tree (no rules at all) on random trees over random LTSs.
 *
 * Trees are built by hand here (independent of the EXP parser); leaves are
 * in-memory LTSs served through a net_leaf_source.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../network/label_match.h"
#include "../network/network_transform.h"
#include "check.h"

/* ------------------------------------------------------------------ */
/* Building trees by hand                                               */

static struct exp_loc at(int line, int col)
{
    return (struct exp_loc){line, col};
}

static char *sdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static struct exp_node *node_new(enum exp_kind k)
{
    struct exp_node *n = calloc(1, sizeof *n);
    n->kind = k;
    n->loc = at(1, 1);
    return n;
}

static struct exp_node *LEAF(const char *path)
{
    struct exp_node *n = node_new(EXP_LEAF);
    n->path = sdup(path);
    return n;
}

static size_t count(const char *const *v)
{
    size_t n = 0;
    while (v[n])
        n++;
    return n;
}

/* hide/cut: pats is NULL-terminated */
static struct exp_node *MATCH(enum exp_kind k, enum exp_mode mode, bool all_but,
                              const char *const *pats, struct exp_node *body)
{
    struct exp_node *n = node_new(k);
    n->mode = mode;
    n->all_but = all_but;
    n->n_pats = count(pats);
    n->pats = calloc(n->n_pats + 1, sizeof *n->pats);
    for (size_t i = 0; i < n->n_pats; i++)
        n->pats[i] = sdup(pats[i]);
    n->body = body;
    n->loc = at(3, 7);
    return n;
}
#define HIDE(mode, allbut, body, ...) \
    MATCH(EXP_HIDE, mode, allbut, (const char *const[]){__VA_ARGS__, NULL}, body)
#define CUT(mode, allbut, body, ...) \
    MATCH(EXP_CUT, mode, allbut, (const char *const[]){__VA_ARGS__, NULL}, body)

/* rename: pairs "L", "R", ... NULL */
static struct exp_node *RENAME_(enum exp_mode mode, const char *const *pairs,
                                struct exp_node *body)
{
    struct exp_node *n = node_new(EXP_RENAME);
    n->mode = mode;
    n->n_pats = count(pairs) / 2;
    n->pats = calloc(n->n_pats + 1, sizeof *n->pats);
    n->repls = calloc(n->n_pats + 1, sizeof *n->repls);
    for (size_t i = 0; i < n->n_pats; i++) {
        n->pats[i] = sdup(pairs[2 * i]);
        n->repls[i] = sdup(pairs[2 * i + 1]);
    }
    n->body = body;
    n->loc = at(4, 2);
    return n;
}
#define RENAME(mode, body, ...) RENAME_(mode, (const char *const[]){__VA_ARGS__, NULL}, body)

static char *trim(const char *s, size_t len)
{
    while (len && (*s == ' '))
        s++, len--;
    while (len && s[len - 1] == ' ')
        len--;
    return strndup(s, len);
}

/* "a * _ * b -> r": vector k gets location (10 + k, 3) */
static void parse_vector(const char *spec, struct exp_vector *v, int k)
{
    const char *arrow = strstr(spec, "->");
    v->result = trim(arrow + 2, strlen(arrow + 2));
    v->n = 1;
    for (const char *p = spec; p < arrow; p++)
        v->n += *p == '*';
    v->comp = calloc(v->n, sizeof *v->comp);
    const char *s = spec;
    for (size_t i = 0; i < v->n; i++) {
        const char *e = memchr(s, '*', (size_t)(arrow - s));
        if (!e)
            e = arrow;
        char *t = trim(s, (size_t)(e - s));
        if (strcmp(t, "_") == 0) {
            free(t);
            t = NULL;
        }
        v->comp[i] = t;
        s = e + 1;
    }
    v->loc = at(10 + k, 3);
}

static struct exp_node *VPAR_(bool label_mode, const char *const *vecs,
                              struct exp_node *const *ops)
{
    struct exp_node *n = node_new(EXP_PAR_VECTORS);
    n->label_mode = label_mode;
    n->n_vecs = count(vecs);
    n->vecs = calloc(n->n_vecs + 1, sizeof *n->vecs);
    for (size_t i = 0; i < n->n_vecs; i++)
        parse_vector(vecs[i], &n->vecs[i], (int)i);
    while (ops[n->n_ops])
        n->n_ops++;
    n->ops = calloc(n->n_ops, sizeof *n->ops);
    memcpy(n->ops, ops, n->n_ops * sizeof *n->ops);
    n->loc = at(9, 1);
    return n;
}
#define VECS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define OPS(...) ((struct exp_node *const[]){__VA_ARGS__, NULL})
#define VPAR(label_mode, vecs, ops) VPAR_(label_mode, vecs, ops)

/* "G#2, H": element k gets location (line, 5 + 10 k) */
static void parse_iface(const char *spec, struct exp_iface *f, int line)
{
    memset(f, 0, sizeof *f);
    if (!spec || !*spec)
        return;
    f->n = 1;
    for (const char *p = spec; *p; p++)
        f->n += *p == ',';
    f->el = calloc(f->n, sizeof *f->el);
    const char *s = spec;
    for (size_t i = 0; i < f->n; i++) {
        const char *e = strchr(s, ',');
        if (!e)
            e = s + strlen(s);
        char *t = trim(s, (size_t)(e - s));
        char *hash = strchr(t, '#');
        f->el[i].degree = -1;
        if (hash) {
            f->el[i].degree = atoi(hash + 1);
            *hash = '\0';
            char *u = trim(t, strlen(t));
            free(t);
            t = u;
        }
        f->el[i].label = t;
        f->el[i].loc = at(line, 5 + 10 * (int)i);
        s = *e ? e + 1 : e;
    }
}

/* global: NULL/"" none, "all" for par all; locals: NULL (no locals) or one
 * string per operand, NULL for "no S ->" */
static struct exp_node *GPAR(bool label_mode, const char *global,
                             struct exp_node *const *ops, const char *const *locals)
{
    struct exp_node *n = node_new(EXP_PAR_GENERAL);
    n->label_mode = label_mode;
    if (global && strcmp(global, "all") == 0)
        n->global_all = true;
    else
        parse_iface(global, &n->global, 20);
    while (ops[n->n_ops])
        n->n_ops++;
    n->ops = calloc(n->n_ops, sizeof *n->ops);
    memcpy(n->ops, ops, n->n_ops * sizeof *n->ops);
    n->locals = calloc(n->n_ops, sizeof *n->locals);
    n->has_local = calloc(n->n_ops, sizeof *n->has_local);
    for (size_t i = 0; locals && i < n->n_ops; i++)
        if (locals[i]) {
            n->has_local[i] = true;
            parse_iface(locals[i], &n->locals[i], 30 + (int)i);
        }
    n->loc = at(19, 1);
    return n;
}
#define LOCALS(...) ((const char *const[]){__VA_ARGS__})

static void iface_free(struct exp_iface *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->el[i].label);
    free(f->el);
}

static void tree_free(struct exp_node *n)
{
    if (!n)
        return;
    free(n->path);
    for (size_t i = 0; i < n->n_pats; i++) {
        free(n->pats[i]);
        if (n->repls)
            free(n->repls[i]);
    }
    free(n->pats), free(n->repls);
    tree_free(n->body);
    for (size_t v = 0; v < n->n_vecs; v++) {
        for (size_t i = 0; i < n->vecs[v].n; i++)
            free(n->vecs[v].comp[i]);
        free(n->vecs[v].comp), free(n->vecs[v].result);
    }
    free(n->vecs);
    iface_free(&n->global);
    for (size_t i = 0; i < n->n_ops; i++) {
        tree_free(n->ops[i]);
        if (n->locals)
            iface_free(&n->locals[i]);
    }
    free(n->ops), free(n->locals), free(n->has_local);
    free(n);
}

/* ------------------------------------------------------------------ */
/* In-memory leaves: "NSTATES|src:label:dst|...", initial state given    */

struct mem_leaf {
    const char *name, *spec;
    uint32_t initial;
};

static struct mem_leaf *g_leaves; /* the table a test's leaves come from */

static int mem_lts(struct strtab *labels, const char *spec, struct lts *l)
{
    char *s = strdup(spec), *save = NULL;
    char *tok = strtok_r(s, "|", &save);
    lts_init(l, (uint32_t)atoi(tok));
    while ((tok = strtok_r(NULL, "|", &save))) {
        char *c1 = strchr(tok, ':'), *c2 = strrchr(tok, ':');
        *c1 = *c2 = '\0';
        uint32_t lab = strtab_intern(labels, c1 + 1, strlen(c1 + 1));
        lts_add(l, (uint32_t)atoi(tok), lab, (uint32_t)atoi(c2 + 1));
    }
    free(s);
    return lts_finish(l);
}

static int mem_load(void *user, struct net_ctx *ctx, const struct exp_node *node,
                    const char *exp_file, struct network *out, struct wx_error *err)
{
    struct mem_leaf *tab = user;
    for (size_t i = 0; tab[i].name; i++)
        if (strcmp(tab[i].name, node->path) == 0) {
            struct lts l;
            mem_lts(ctx->labels, tab[i].spec, &l);
            return net_leaf(ctx, &l, tab[i].initial, tab[i].name, out, err);
        }
    return wx_fail(err, WX_EINPUT, exp_file, node->loc.line, node->loc.col,
                   "no leaf %s", node->path);
}

/* ------------------------------------------------------------------ */
/* Brute-force explorer of a struct network, straight from network.h     */

struct xres {
    uint64_t states, trans, deadlocks;
    char labels[1024]; /* "A:2 B:1 i:3": transitions per result label, sorted */
};

struct vset { /* open-addressing set of state vectors */
    uint32_t width;
    uint64_t n, cap;
    uint32_t *vec;    /* n * width */
    uint64_t *slot;   /* cap; id + 1 */
};

static uint64_t vhash(const uint32_t *v, uint32_t w)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < w; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return h;
}

static uint64_t vset_put(struct vset *s, const uint32_t *v)
{
    if (2 * (s->n + 1) > s->cap) {
        uint64_t cap = s->cap ? 2 * s->cap : 64;
        uint64_t *slot = calloc(cap, sizeof *slot);
        for (uint64_t i = 0; i < s->n; i++) {
            uint64_t h = vhash(s->vec + i * s->width, s->width) & (cap - 1);
            while (slot[h])
                h = (h + 1) & (cap - 1);
            slot[h] = i + 1;
        }
        free(s->slot);
        s->slot = slot;
        s->cap = cap;
        s->vec = realloc(s->vec, cap * (s->width ? s->width : 1) * sizeof *s->vec);
    }
    uint64_t h = vhash(v, s->width) & (s->cap - 1);
    for (; s->slot[h]; h = (h + 1) & (s->cap - 1)) {
        uint64_t id = s->slot[h] - 1;
        if (memcmp(s->vec + id * s->width, v, s->width * sizeof *v) == 0)
            return id;
    }
    memcpy(s->vec + s->n * s->width, v, s->width * sizeof *v);
    s->slot[h] = ++s->n;
    return s->n - 1;
}

struct triple {
    uint64_t src, dst;
    uint32_t label;
};

static int cmp_triple(const void *a, const void *b)
{
    const struct triple *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

struct lab_count {
    const char *text;
    uint64_t n;
};

static int cmp_lab(const void *a, const void *b)
{
    return strcmp(((const struct lab_count *)a)->text, ((const struct lab_count *)b)->text);
}

/* Renders per-label counts of `n` distinct transitions into buf. */
static void render_labels(const struct strtab *labels, const struct triple *t, size_t n,
                          char *buf, size_t size)
{
    uint32_t nl = strtab_count(labels);
    struct lab_count *lc = calloc(nl ? nl : 1, sizeof *lc);
    for (uint32_t i = 0; i < nl; i++)
        lc[i].text = strtab_str(labels, i);
    for (size_t i = 0; i < n; i++)
        lc[t[i].label].n++;
    qsort(lc, nl, sizeof *lc, cmp_lab);
    buf[0] = '\0';
    for (uint32_t i = 0; i < nl; i++)
        if (lc[i].n) {
            size_t len = strlen(buf);
            snprintf(buf + len, size - len, "%s%s:%llu", len ? " " : "", lc[i].text,
                     (unsigned long long)lc[i].n);
        }
    free(lc);
}

static struct xres explore(const struct network *net)
{
    struct xres r;
    memset(&r, 0, sizeof r);
    uint32_t w = net->n_comps;
    struct vset set = {.width = w};
    uint32_t *cur = calloc(w + 1, sizeof *cur), *nxt = calloc(w + 1, sizeof *nxt);
    vset_put(&set, cur); /* the initial state (0, ..., 0) */
    struct triple *tr = NULL;
    size_t ntr = 0, cap = 0;
    for (uint64_t id = 0; id < set.n; id++) {
        memcpy(cur, set.vec + id * w, w * sizeof *cur);
        uint64_t before = ntr;
        for (uint32_t rr = 0; rr < net->n_rules; rr++) {
            uint32_t s0 = net->rule_start[rr], np = net->rule_start[rr + 1] - s0;
            /* per participant, the list of matching transitions (indices) */
            uint64_t lo[64], hi[64], pos[64];
            bool fires = np <= 64;
            for (uint32_t p = 0; p < np && fires; p++) {
                const struct lts *c = &net->comps[net->part_comp[s0 + p]];
                uint32_t st = cur[net->part_comp[s0 + p]];
                lo[p] = UINT64_MAX;
                for (uint64_t t = c->offsets[st]; t < c->offsets[st + 1]; t++)
                    if (c->label[t] == net->part_label[s0 + p]) {
                        if (lo[p] == UINT64_MAX)
                            lo[p] = t;
                        hi[p] = t + 1;
                    }
                fires = lo[p] != UINT64_MAX;
                pos[p] = lo[p];
            }
            if (!fires)
                continue;
            for (;;) {
                memcpy(nxt, cur, w * sizeof *nxt);
                bool ok = true;
                for (uint32_t p = 0; p < np; p++) {
                    const struct lts *c = &net->comps[net->part_comp[s0 + p]];
                    if (c->label[pos[p]] != net->part_label[s0 + p])
                        ok = false; /* a gap inside [lo, hi) */
                    nxt[net->part_comp[s0 + p]] = c->dst[pos[p]];
                }
                if (ok) {
                    uint64_t d = vset_put(&set, nxt);
                    if (ntr == cap)
                        tr = realloc(tr, (cap = cap ? 2 * cap : 256) * sizeof *tr);
                    tr[ntr++] = (struct triple){id, d, net->rule_result[rr]};
                }
                uint32_t p = np;
                while (p > 0 && ++pos[p - 1] == hi[p - 1]) {
                    pos[p - 1] = lo[p - 1];
                    p--;
                }
                if (p == 0)
                    break;
            }
        }
        if (ntr == before)
            r.deadlocks++;
    }
    if (ntr)
        qsort(tr, ntr, sizeof *tr, cmp_triple);
    size_t m = 0;
    for (size_t i = 0; i < ntr; i++)
        if (m == 0 || cmp_triple(&tr[m - 1], &tr[i]) != 0)
            tr[m++] = tr[i];
    r.states = set.n;
    r.trans = m;
    render_labels(net->labels, tr, m, r.labels, sizeof r.labels);
    free(tr), free(cur), free(nxt), free(set.vec), free(set.slot);
    return r;
}

/* ------------------------------------------------------------------ */
/* Building a network from a hand-made tree                             */

struct bopt {
    enum exp_lang lang;
    bool rate, prob, case_sensitive;
    uint64_t max_rules;
};

static int build(struct exp_node *root, const struct bopt *o, struct network *out,
                 struct wx_error *err)
{
    static const struct bopt none = {0};
    if (!o)
        o = &none;
    struct net_ctx ctx = {0};
    ctx.rate = o->rate, ctx.prob = o->prob, ctx.max_rules = o->max_rules;
    ctx.file = "t.exp";
    wx_error_clear(err);
    int rc = net_ctx_init(&ctx, o->lang, false, NULL, o->case_sensitive, err);
    struct net_leaf_source src = {mem_load, g_leaves};
    if (rc == WX_OK)
        rc = net_flatten(&ctx, root, &src, out, err);
    if (rc != WX_OK) {
        strtab_free(ctx.labels);
        return rc;
    }
    network_normalise(out);
    out->labels = ctx.labels;
    return WX_OK;
}

/* Builds, explores and compares; frees the tree. */
static void expect(const char *name, struct exp_node *root, const struct bopt *o,
                   uint64_t states, uint64_t trans, const char *labels)
{
    struct network net;
    struct wx_error err;
    int rc = build(root, o, &net, &err);
    tree_free(root);
    if (!check(rc == WX_OK, "%s: builds (%s)", name, rc ? err.msg : "ok"))
        return;
    struct xres r = explore(&net);
    CHECK_EQ_U64(r.states, states, "%s: states", name);
    CHECK_EQ_U64(r.trans, trans, "%s: transitions", name);
    check(strcmp(r.labels, labels) == 0, "%s: labels: expected \"%s\", found \"%s\"",
          name, labels, r.labels);
    network_free(&net);
}

/* Builds and expects an error with a code, a location and a message part. */
static void expect_error(const char *name, struct exp_node *root, const struct bopt *o,
                         int code, int line, int col, const char *part)
{
    struct network net;
    struct wx_error err;
    int rc = build(root, o, &net, &err);
    tree_free(root);
    if (rc == WX_OK) {
        network_free(&net);
        check(0, "%s: expected error %d, built fine", name, code);
        return;
    }
    check(rc == code && err.code == code, "%s: code %d (found %d)", name, code, rc);
    check(err.line == line && err.col == col && strcmp(err.file, "t.exp") == 0,
          "%s: located at t.exp:%d:%d (found %s:%d:%d)", name, line, col, err.file,
          err.line, err.col);
    check(strstr(err.msg, part) != NULL, "%s: message mentions \"%s\" (found \"%s\")",
          name, part, err.msg);
}

/* ------------------------------------------------------------------ */
/* label_match                                                          */

static void test_gate_len(void)
{
    CHECK_EQ_U64(label_gate_len("G !1 ?x"), 1, "gate of \"G !1 ?x\"");
    CHECK_EQ_U64(label_gate_len("PUT(1, 2)"), 3, "gate of \"PUT(1, 2)\"");
    CHECK_EQ_U64(label_gate_len("AB?x"), 2, "gate of \"AB?x\"");
    CHECK_EQ_U64(label_gate_len("A\tx"), 1, "gate of tab label");
    CHECK_EQ_U64(label_gate_len("ABC"), 3, "gate of plain gate");
    CHECK_EQ_U64(label_gate_len(""), 0, "gate of empty label");
}

static void test_fold(void)
{
    struct { const char *in; bool re; const char *out; } c[] = {
        {"get !x", false, "GET !X"},
        {"a\\w*[[:alpha:]b]\\(x\\)\\1", true, "A\\w*[[:alpha:]B]\\(X\\)\\1"},
        {"[]a]b", true, "[]A]B"},
        {"[^]a]x", true, "[^]A]X"},
        {"[[:alpha:][=e=]x]y", true, "[[:alpha:][=E=]X]Y"}, /* [=e=] names a char */
        {"[\\w]", true, "[\\W]"}, /* backslash is literal inside brackets */
        {"x\\<y\\>", true, "X\\<Y\\>"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char *f = label_fold_upper(c[i].in, c[i].re);
        check(strcmp(f, c[i].out) == 0, "fold \"%s\": expected \"%s\", found \"%s\"",
              c[i].in, c[i].out, f);
        free(f);
    }
}

static int find(enum exp_mode mode, const char *pat, const char *label)
{
    struct label_match m;
    struct wx_error err;
    char *p[1] = {(char *)pat};
    if (label_match_compile(&m, mode, 1, p, NULL, false, "f", at(1, 1), &err) != WX_OK)
        return -2;
    long k = label_match_find(&m, label);
    label_match_free(&m);
    return (int)k;
}

static void test_find(void)
{
    struct { enum exp_mode mode; const char *pat, *label; int hit; } c[] = {
        {EXP_MODE_GATE, "G", "G !1", 0},
        {EXP_MODE_GATE, "G", "GH !1", -1},
        {EXP_MODE_GATE, "G.*", "GH !1", 0},
        {EXP_MODE_GATE, ".*H", "GH(1)", 0},
        {EXP_MODE_GATE, "G !1", "G !1", -1}, /* offers are not part of the gate */
        {EXP_MODE_TOTAL, "G", "G !1", -1},
        {EXP_MODE_TOTAL, "G !1", "G !1", 0},
        {EXP_MODE_TOTAL, "G !.*", "G !1 !2", 0},
        {EXP_MODE_TOTAL, "G", "G", 0},
        {EXP_MODE_TOTAL, "a\\|ab", "ab", 0},   /* alternation: not anchored badly */
        {EXP_MODE_TOTAL, "ab\\|a", "ab", 0},
        {EXP_MODE_TOTAL, "x\\|ab", "ab", 0},
        {EXP_MODE_TOTAL, "\\(a*\\)b\\1", "aabaa", 0}, /* back-reference */
        {EXP_MODE_TOTAL, "\\(a*\\)b\\1", "aaba", -1},
        {EXP_MODE_TOTAL, "a\\{2\\}", "aa", 0},
        {EXP_MODE_TOTAL, "a\\{2\\}", "aaa", -1},
        {EXP_MODE_TOTAL, "a+", "aa", -1},     /* basic RE: + is literal */
        {EXP_MODE_TOTAL, "a+", "a+", 0},
        {EXP_MODE_TOTAL, "*a", "*a", 0},      /* leading * is literal */
        {EXP_MODE_PARTIAL, "!1", "G !1", 0},
        {EXP_MODE_PARTIAL, "!3", "G !1", -1},
        {EXP_MODE_PARTIAL, "^!1", "G !1", -1},
        {EXP_MODE_PARTIAL, "\\<1", "G !1", 0},
        {EXP_MODE_SINGLE, "1", "G !1", 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        CHECK_EQ_U64((long long)find(c[i].mode, c[i].pat, c[i].label) + 2,
                     c[i].hit + 2, "match mode %d \"%s\" on \"%s\" (+2)", c[i].mode,
                     c[i].pat, c[i].label);
    struct label_match m;
    struct wx_error err;
    char *p[3] = {"A", "B", "A"};
    label_match_compile(&m, EXP_MODE_GATE, 3, p, NULL, false, "f", at(1, 1), &err);
    CHECK_EQ_U64(label_match_find(&m, "B !1"), 1, "first matching pattern index");
    label_match_free(&m);
    char *bad[1] = {"a\\(b"};
    int rc = label_match_compile(&m, EXP_MODE_TOTAL, 1, bad, NULL, false, "f.exp",
                                 at(7, 9), &err);
    check(rc == WX_EINPUT && err.line == 7 && err.col == 9 && strstr(err.msg, "a\\(b"),
          "invalid regex is WX_EINPUT at the operator (%d %s:%d:%d %s)", rc, err.file,
          err.line, err.col, err.msg);
}

static void rewrite_case(enum exp_mode mode, const char *pat, const char *tmpl,
                         const char *label, const char *expect)
{
    struct label_match m;
    struct wx_error err;
    char *p[1] = {(char *)pat}, *t[1] = {(char *)tmpl};
    if (!check(label_match_compile(&m, mode, 1, p, t, false, "f", at(1, 1), &err) == 0,
               "compile \"%s\"", pat))
        return;
    char *out = NULL;
    int hit = label_match_rewrite(&m, label, &out);
    if (!expect)
        check(hit == 0, "rewrite mode %d \"%s\"->\"%s\" on \"%s\": no match (%d)", mode,
              pat, tmpl, label, hit);
    else
        check(hit == 1 && strcmp(out, expect) == 0,
              "rewrite mode %d \"%s\"->\"%s\" on \"%s\": expected \"%s\", found \"%s\"",
              mode, pat, tmpl, label, expect, hit == 1 ? out : "(no match)");
    free(out);
    label_match_free(&m);
}

static void test_rewrite(void)
{
    rewrite_case(EXP_MODE_TOTAL, "G", "H", "G", "H");
    rewrite_case(EXP_MODE_TOTAL, "G", "H", "G !1", NULL);
    rewrite_case(EXP_MODE_TOTAL, "\\([a-zA-Z0-9]*\\) \\(!.*\\)", "\\1 !1 \\2", "PUT !2 !3",
                 "PUT !1 !2 !3"); /* the exp(LOCAL) manual's example */
    rewrite_case(EXP_MODE_TOTAL, "PUT !\\([A-Z]*\\) !\\([A-Z]*\\)", "PUT !\\2 !\\1",
                 "PUT !ABC !XYZ", "PUT !XYZ !ABC"); /* caesar_rename_1's example */
    rewrite_case(EXP_MODE_TOTAL, "RATE_FAIL !1 !2", "rate 0.1", "RATE_FAIL !1 !2", "rate 0.1");
    rewrite_case(EXP_MODE_TOTAL, "G\\(.*\\)", "<&>[\\1]\\&\\\\", "Gx", "<Gx>[x]&\\");
    rewrite_case(EXP_MODE_TOTAL, "\\(a\\)\\|b", "[\\1]", "b", "[]"); /* unset group */
    rewrite_case(EXP_MODE_GATE, "G", "H", "G !1 !G", "H !1 !G");
    rewrite_case(EXP_MODE_GATE, "G", "H", "GG !1", NULL);
    rewrite_case(EXP_MODE_GATE, "\\(.*\\)_OUT", "\\1_IN", "X_OUT(3)", "X_IN(3)");
    rewrite_case(EXP_MODE_GATE, "G", "G !0", "G !1", "G !0 !1");
    rewrite_case(EXP_MODE_SINGLE, "G", "H", "AG !G", "AH !G");
    rewrite_case(EXP_MODE_SINGLE, "1*", "X", "G !1", "XG !1"); /* leftmost, empty */
    rewrite_case(EXP_MODE_MULTIPLE, "G", "H", "AG !G", "AH !H");
    rewrite_case(EXP_MODE_MULTIPLE, "x*", "-", "abxd", "-a-b-d-"); /* as GNU sed with s, x*, -, g */
    rewrite_case(EXP_MODE_MULTIPLE, "\\<[0-9]", "N", "A !1 !23", "A !N !N3");
    rewrite_case(EXP_MODE_MULTIPLE, "^A", "B", "AAA", "BAA");
    rewrite_case(EXP_MODE_MULTIPLE, "Z", "Y", "AAA", NULL);
    /* first matching rule wins, no cascading */
    struct label_match m;
    struct wx_error err;
    char *p[2] = {"A", "B"}, *t[2] = {"B", "A"};
    label_match_compile(&m, EXP_MODE_TOTAL, 2, p, t, false, "f", at(1, 1), &err);
    char *out = NULL;
    check(label_match_rewrite(&m, "A", &out) == 1 && strcmp(out, "B") == 0,
          "swap A->B, B->A: A becomes B (%s)", out ? out : "-");
    free(out);
    out = NULL;
    check(label_match_rewrite(&m, "B", &out) == 1 && strcmp(out, "A") == 0,
          "swap A->B, B->A: B becomes A (%s)", out ? out : "-");
    free(out);
    label_match_free(&m);
    /* folding keeps back-references in templates */
    char *p2[1] = {"\\(g\\)!\\(x\\)"}, *t2[1] = {"\\2h\\1"};
    label_match_compile(&m, EXP_MODE_TOTAL, 1, p2, t2, true, "f", at(1, 1), &err);
    out = NULL;
    check(label_match_rewrite(&m, "G!X", &out) == 1 && strcmp(out, "XHG") == 0,
          "folded rename keeps \\1: expected XHG, found %s", out ? out : "-");
    free(out);
    label_match_free(&m);
}

/* ------------------------------------------------------------------ */
/* Leaves, hide, cut, rename                                            */

static struct mem_leaf leaves[] = {
    /* 3 reachable states; state 3 and label C unreachable */
    {"abi", "4|0:A:1|1:B:2|2:i:0|3:C:0", 0},
    /* same shape, initial state 2 */
    {"init2", "3|2:A:0|0:B:1|1:C:2", 2},
    /* labels with offers */
    {"offers", "4|0:A !1:1|0:A !2:2|0:B !1:3|0:AB:3", 0},
    {"cutme", "3|0:A:1|0:B:2|1:C:0", 0},
    {"renme", "3|0:A:1|1:B:2|2:C:0", 0},
    {"hid", "2|0:i:1|1:A:0", 0},
    /* two handshaking processes */
    {"P", "2|0:a:1|1:b:0", 0},
    {"Q", "2|0:a:1|1:c:0", 0},
    {"PG", "3|0:G !1:1|0:G !2:2|1:i:1", 0},
    {"QH", "3|0:H !1:1|0:H !3:2", 0},
    {"g1", "2|0:G:1", 0},
    {"PA", "2|0:A:1|1:B:0", 0},
    {"QA", "2|0:A:1|1:C:0", 0},
    {"ex1", "2|0:exit:1", 0},
    {"ex2", "3|0:A:1|1:exit:2", 0},
    {"rate", "3|0:a:1|0:rate 0.5:2|0:LOSS; rate 2e-3:2|0:prob 1/2:2|0:RATE_X:2", 0},
    {"up", "2|0:a:1|1:b:0", 0},
    {"upcase", "2|0:A:1|1:B !X:0", 0},
    {"big", "2|0:a:1|0:a:0|1:a:0|1:a:1", 0},
    {"csp1", "3|0:t:1|1:delta:2|0:delta:2", 0},
    {"big8", "1|0:a1:0|0:a2:0|0:a3:0|0:a4:0|0:a5:0|0:a6:0|0:a7:0|0:a8:0", 0},
    {NULL, NULL, 0},
};

static void test_leaf_and_unary(void)
{
    expect("leaf", LEAF("abi"), NULL, 3, 3, "A:1 B:1 i:1");
    expect("leaf with initial state 2", LEAF("init2"), NULL, 3, 3, "A:1 B:1 C:1");
    expect("gate hide A", HIDE(EXP_MODE_GATE, false, LEAF("offers"), "A"), NULL, 4, 4,
           "AB:1 B !1:1 i:2");
    expect("gate hide regex A.*", HIDE(EXP_MODE_GATE, false, LEAF("offers"), "A.*"), NULL,
           4, 4, "B !1:1 i:3");
    expect("total hide A", HIDE(EXP_MODE_TOTAL, false, LEAF("offers"), "A"), NULL, 4, 4,
           "A !1:1 A !2:1 AB:1 B !1:1");
    expect("total hide A !1", HIDE(EXP_MODE_TOTAL, false, LEAF("offers"), "A !1"), NULL,
           4, 4, "A !2:1 AB:1 B !1:1 i:1");
    expect("partial hide !1", HIDE(EXP_MODE_PARTIAL, false, LEAF("offers"), "!1"), NULL,
           4, 4, "A !2:1 AB:1 i:2");
    /* B !1 and AB both go 0 -> 3: hidden, they are one transition */
    expect("gate hide all but A", HIDE(EXP_MODE_GATE, true, LEAF("offers"), "A"), NULL, 4,
           3, "A !1:1 A !2:1 i:1");
    expect("hide all but nothing-matching hides all", HIDE(EXP_MODE_TOTAL, true,
           LEAF("abi"), "Z"), NULL, 3, 3, "i:3");
    expect("cut A", CUT(EXP_MODE_GATE, false, LEAF("cutme"), "A"), NULL, 2, 1, "B:1");
    expect("cut all but A", CUT(EXP_MODE_GATE, true, LEAF("cutme"), "A"), NULL, 2, 1,
           "A:1");
    expect("cut never cuts the hidden label", CUT(EXP_MODE_PARTIAL, true, LEAF("hid"),
           "Z"), NULL, 2, 1, "i:1");
    expect("rename swap, first rule wins, no cascading",
           RENAME(EXP_MODE_TOTAL, LEAF("renme"), "A", "B", "B", "A", "A", "C"), NULL, 3,
           3, "A:1 B:1 C:1");
    expect("rename with back-references",
           RENAME(EXP_MODE_TOTAL, LEAF("offers"), "\\([A-Z]*\\) !\\(.*\\)", "\\2 \\1"),
           NULL, 4, 4, "1 A:1 1 B:1 2 A:1 AB:1");
    expect("gate rename keeps offers", RENAME(EXP_MODE_GATE, LEAF("offers"), "A", "Z"),
           NULL, 4, 4, "AB:1 B !1:1 Z !1:1 Z !2:1");
    expect("single rename", RENAME(EXP_MODE_SINGLE, LEAF("offers"), "1", "9"), NULL, 4, 4,
           "A !2:1 A !9:1 AB:1 B !9:1");
    expect("multiple rename", RENAME(EXP_MODE_MULTIPLE, LEAF("offers"), "[AB]", "x"),
           NULL, 4, 4, "x !1:2 x !2:1 xx:1");
    expect("rename to the hidden text hides", RENAME(EXP_MODE_TOTAL, LEAF("renme"), "B",
           "i"), NULL, 3, 3, "A:1 C:1 i:1");
    expect("rename never touches the hidden label",
           RENAME(EXP_MODE_TOTAL, LEAF("hid"), "i", "X"), NULL, 2, 2, "A:1 i:1");
    expect("rename merges labels", RENAME(EXP_MODE_GATE, LEAF("offers"), "A.*", "A"),
           NULL, 4, 4, "A:1 A !1:1 A !2:1 B !1:1");
    expect("hide above rename above cut",
           HIDE(EXP_MODE_TOTAL, false,
                RENAME(EXP_MODE_TOTAL, CUT(EXP_MODE_TOTAL, false, LEAF("cutme"), "B"), "A",
                       "X"), "C"),
           NULL, 2, 2, "X:1 i:1");
}

/* ------------------------------------------------------------------ */
/* Parallel composition with synchronisation vectors                    */

static void test_vectors(void)
{
    expect("label par: handshake + single-participant vectors",
           VPAR(true, VECS("a * a -> s", "b * _ -> b", "_ * c -> c"), OPS(LEAF("P"), LEAF("Q"))),
           NULL, 4, 5, "b:2 c:2 s:1");
    expect("label par: unmatched visible labels are blocked",
           VPAR(true, VECS("a * a -> s", "_ * c -> c"), OPS(LEAF("P"), LEAF("Q"))), NULL,
           3, 2, "c:1 s:1");
    expect("label par: vectors naming absent labels block everything",
           VPAR(true, VECS("a * a -> a"), OPS(LEAF("g1"), LEAF("g1"))), NULL, 1, 0, "");
    expect("one operand rule serves several vectors",
           VPAR(true, VECS("a * _ -> x", "a * a -> y", "_ * a -> z"), OPS(LEAF("P"), LEAF("Q"))),
           NULL, 4, 5, "x:2 y:1 z:2");
    expect("gate par: identical offers, result R + offers",
           VPAR(false, VECS("G * H -> K"), OPS(LEAF("PG"), LEAF("QH"))), NULL, 2, 2,
           "K !1:1 i:1");
    expect("gate par: gate vectors interleave each offer",
           VPAR(false, VECS("G * _ -> G", "_ * H -> X"), OPS(LEAF("PG"), LEAF("QH"))), NULL,
           9, 15, "G !1:3 G !2:3 X !1:3 X !3:3 i:3");
    expect("label par over offers labels",
           VPAR(true, VECS("G !2 * H !3 -> Z", "G !1 * _ -> Y"), OPS(LEAF("PG"), LEAF("QH"))),
           NULL, 3, 3, "Y:1 Z:1 i:1");
    expect("hidden transitions interleave in vector par",
           VPAR(true, VECS("A * _ -> A"), OPS(LEAF("hid"), LEAF("hid"))), NULL, 4, 6,
           "A:2 i:4");
    expect("three-way vector with a hole",
           VPAR(true, VECS("a * _ * a -> t", "b * _ * _ -> b", "_ * _ * c -> c"),
                OPS(LEAF("P"), LEAF("g1"), LEAF("Q"))),
           NULL, 4, 5, "b:2 c:2 t:1");
    expect("nondeterminism: all combinations of operand transitions",
           VPAR(true, VECS("a * a -> s"), OPS(LEAF("big"), LEAF("big"))), NULL, 4, 16, "s:16");
    expect("hide above a vector par",
           HIDE(EXP_MODE_GATE, false,
                VPAR(true, VECS("a * a -> s", "b * _ -> b", "_ * c -> c"),
                     OPS(LEAF("P"), LEAF("Q"))), "s", "c"),
           NULL, 4, 5, "b:2 i:3");
    expect("nested vector pars",
           VPAR(true, VECS("s * a -> u", "b * _ -> b", "c * _ -> c", "_ * b -> d"),
                OPS(VPAR(true, VECS("a * a -> s", "b * _ -> b", "_ * c -> c"),
                         OPS(LEAF("P"), LEAF("Q"))),
                    LEAF("P"))),
           NULL, 8, 13, "b:4 c:4 d:4 u:1");
    struct bopt rate = {.rate = true}, prob = {.prob = true};
    expect("stochastic labels are blocked without --rate",
           VPAR(true, VECS("a * _ -> a"), OPS(LEAF("rate"), LEAF("g1"))), NULL, 2, 1, "a:1");
    expect("--rate: rate labels interleave",
           VPAR(true, VECS("a * _ -> a"), OPS(LEAF("rate"), LEAF("g1"))), &rate, 3, 3,
           "LOSS; rate 2e-3:1 a:1 rate 0.5:1");
    expect("--prob: prob labels interleave",
           VPAR(true, VECS("a * _ -> a"), OPS(LEAF("rate"), LEAF("g1"))), &prob, 3, 2,
           "a:1 prob 1/2:1");
}

/* ------------------------------------------------------------------ */
/* Generalised parallel composition                                     */

static void test_general(void)
{
    expect("LOTOS |[A]|", GPAR(false, "A", OPS(LEAF("PA"), LEAF("QA")), NULL), NULL, 4, 5,
           "A:1 B:2 C:2");
    expect("LOTOS ||: labels of one side only are blocked",
           GPAR(false, "all", OPS(LEAF("PA"), LEAF("QA")), NULL), NULL, 2, 1, "A:1");
    expect("LOTOS |||", GPAR(false, NULL, OPS(LEAF("PA"), LEAF("QA")), NULL), NULL, 4, 8,
           "A:4 B:2 C:2");
    expect("gate mode matches gates, sync needs identical labels",
           GPAR(false, "G", OPS(LEAF("PG"), LEAF("PG")), NULL), NULL, 3, 3, "G !1:1 G !2:1 i:1");
    expect("label mode element matches one full label",
           GPAR(true, "G !1", OPS(LEAF("PG"), LEAF("PG")), NULL), NULL, 5, 6,
           "G !1:1 G !2:4 i:1");
    expect("G#2 of 3", GPAR(false, "G#2", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")), NULL), NULL,
           4, 3, "G:3");
    expect("G#2, G#3 of 3", GPAR(false, "G#2, G#3", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")),
                                 NULL), NULL, 5, 4, "G:4");
    expect("G#1: asynchronous", GPAR(false, "G#1", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")),
                                     NULL), NULL, 8, 12, "G:12");
    expect("G#1, G#2", GPAR(false, "G#1, G#2", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")), NULL),
           NULL, 8, 18, "G:18");
    expect("G#0 forbids", GPAR(false, "G#0", OPS(LEAF("g1"), LEAF("g1")), NULL), NULL, 1, 0,
           "");
    expect("G#4 of 3 yields nothing", GPAR(false, "G#4", OPS(LEAF("g1"), LEAF("g1"),
                                                               LEAF("g1")), NULL),
           NULL, 1, 0, "");
    expect("local G#2: any 2 of the 3 listing it, the 4th interleaves",
           GPAR(false, "", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1"), LEAF("g1")),
                LOCALS("G#2", "G#2", "G#2", NULL)),
           NULL, 8, 10, "G:10");
    expect("local L: operands listing it all synchronise, others interleave",
           GPAR(false, NULL, OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")), LOCALS("G", NULL, "G")),
           NULL, 4, 4, "G:4");
    expect("local L#0 forbids in that operand only",
           GPAR(false, NULL, OPS(LEAF("g1"), LEAF("g1")), LOCALS("G#0", NULL)), NULL, 2, 1,
           "G:1");
    expect("global and local elements apply nondeterministically",
           GPAR(false, "G#3", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")), LOCALS("G", "G", NULL)),
           NULL, 3, 2, "G:2");
    expect("exit synchronises all operands of |||",
           GPAR(false, NULL, OPS(LEAF("ex1"), LEAF("ex2")), NULL), NULL, 3, 2, "A:1 exit:1");
    expect("exit synchronises even with |[A]|",
           GPAR(false, "A", OPS(LEAF("ex2"), LEAF("ex2")), NULL), NULL, 3, 2, "A:1 exit:1");
    expect("hidden transitions interleave in generalised par",
           GPAR(false, "all", OPS(LEAF("hid"), LEAF("hid")), NULL), NULL, 4, 5, "A:1 i:4");
    expect("nested: hide above |[a]| of a vector par and a leaf",
           HIDE(EXP_MODE_TOTAL, false,
                GPAR(true, "s", OPS(VPAR(true, VECS("a * a -> s", "b * _ -> b", "_ * c -> c"),
                                         OPS(LEAF("P"), LEAF("Q"))),
                                    RENAME(EXP_MODE_TOTAL, LEAF("P"), "a", "s")),
                     NULL),
                "b"),
           NULL, 8, 13, "c:4 i:8 s:1");
    struct bopt rate = {.rate = true};
    expect("--rate in generalised par: rate labels never synchronise",
           GPAR(false, "all", OPS(LEAF("rate"), LEAF("rate")), NULL), &rate, 5, 11,
           "LOSS; rate 2e-3:4 RATE_X:1 a:1 prob 1/2:1 rate 0.5:4");
    struct bopt lotos = {.lang = EXP_LANG_LOTOS}, lotos_case = {.lang = EXP_LANG_LOTOS,
                                                                .case_sensitive = true};
    expect("LOTOS folds operator labels to upper case",
           HIDE(EXP_MODE_GATE, false, LEAF("upcase"), "b"), &lotos, 2, 2, "A:1 i:1");
    expect("--case keeps them as written",
           HIDE(EXP_MODE_GATE, false, LEAF("upcase"), "b"), &lotos_case, 2, 2, "A:1 B !X:1");
    expect("no reference language: case-sensitive",
           HIDE(EXP_MODE_GATE, false, LEAF("upcase"), "b"), NULL, 2, 2, "A:1 B !X:1");
    expect("LOTOS vector elements and results fold",
           VPAR(false, VECS("a * _ -> x", "b * _ -> y"), OPS(LEAF("upcase"), LEAF("g1"))), &lotos,
           2, 2, "X:1 Y !X:1");
}

static void test_languages(void)
{
    struct { enum exp_lang lang; bool header; const char *hidden, *term; bool fold; } c[] = {
        {EXP_LANG_NONE, false, "i", "exit", false},
        {EXP_LANG_NONE, true, "i", "exit", true}, /* plain "behaviour" = LOTOS */
        {EXP_LANG_LOTOS, true, "i", "exit", true},
        {EXP_LANG_ELOTOS, true, "i", "exit", false},
        {EXP_LANG_CCS, true, "t", NULL, true},
        {EXP_LANG_CSP, true, "t", "delta", true},
        {EXP_LANG_MCRL, true, "tau", NULL, false},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        struct net_ctx ctx = {0};
        struct wx_error err;
        net_ctx_init(&ctx, c[i].lang, c[i].header, NULL, false, &err);
        bool term_ok = c[i].term ? ctx.termination && strcmp(ctx.termination, c[i].term) == 0
                                 : ctx.termination == NULL;
        check(strcmp(strtab_str(ctx.labels, ctx.hidden), c[i].hidden) == 0 && term_ok &&
                  ctx.fold == c[i].fold,
              "language %d (header %d): hidden \"%s\", termination %s, fold %d", c[i].lang,
              c[i].header, c[i].hidden, c[i].term ? c[i].term : "none", c[i].fold);
        strtab_free(ctx.labels);
    }
    struct net_ctx ctx = {0};
    struct wx_error err;
    net_ctx_init(&ctx, EXP_LANG_CCS, true, "tau", true, &err);
    check(strcmp(strtab_str(ctx.labels, ctx.hidden), "tau") == 0 && !ctx.fold,
          "--hidden and --case override the language");
    strtab_free(ctx.labels);
    struct bopt csp = {.lang = EXP_LANG_CSP};
    expect("CSP: t is hidden, delta synchronises",
           GPAR(false, NULL, OPS(LEAF("csp1"), LEAF("csp1")), NULL), &csp, 5, 8,
           "delta:4 t:4");
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */

/* eight rules with result "a": renaming merges a1..a8 */
static struct exp_node *B8(void)
{
    return RENAME(EXP_MODE_TOTAL, LEAF("big8"), "a.", "a");
}

static void test_errors(void)
{
    expect_error("vector length", VPAR(true, VECS("a * a -> s", "a -> s"),
                                       OPS(LEAF("P"), LEAF("Q"))),
                 NULL, WX_EINPUT, 11, 3, "1 elements but the par has 2");
    expect_error("hidden label on the left of a vector",
                 VPAR(true, VECS("a * a -> s", "_ * i -> s"), OPS(LEAF("P"), LEAF("Q"))), NULL,
                 WX_EINPUT, 11, 3, "hidden label");
    expect_error("vector of _ only", VPAR(true, VECS("_ * _ -> s"), OPS(LEAF("P"), LEAF("Q"))),
                 NULL, WX_EINPUT, 10, 3, "no element other than");
    expect_error("gate vector element with offers",
                 VPAR(false, VECS("G !1 * _ -> s"), OPS(LEAF("PG"), LEAF("Q"))), NULL,
                 WX_EINPUT, 10, 3, "not a gate");
    expect_error("hidden label in a global interface",
                 GPAR(false, "A, i", OPS(LEAF("P"), LEAF("Q")), NULL), NULL, WX_EINPUT, 20, 15,
                 "hidden label");
    expect_error("hidden label in a local interface",
                 GPAR(false, NULL, OPS(LEAF("P"), LEAF("Q")), LOCALS(NULL, "i")), NULL,
                 WX_EINPUT, 31, 5, "hidden label");
    expect_error("termination gate in an interface",
                 GPAR(false, "exit", OPS(LEAF("P"), LEAF("Q")), NULL), NULL, WX_EINPUT, 20, 5,
                 "termination gate");
    expect_error("gate interface element with offers",
                 GPAR(false, "G !1", OPS(LEAF("P"), LEAF("Q")), NULL), NULL, WX_EINPUT, 20, 5,
                 "without offers");
    expect_error("global G#0 with G#2",
                 GPAR(false, "G#2, G#0", OPS(LEAF("g1"), LEAF("g1")), NULL), NULL, WX_EINPUT,
                 20, 15, "G#0");
    expect_error("global G#0 with a local G",
                 GPAR(false, "G#0", OPS(LEAF("g1"), LEAF("g1")), LOCALS("G", "G")), NULL,
                 WX_EINPUT, 20, 5, "G#0");
    expect_error("local G#0 with G in the same local interface",
                 GPAR(false, NULL, OPS(LEAF("g1"), LEAF("g1")), LOCALS("G#1", "G, G#0")), NULL,
                 WX_EINPUT, 31, 15, "G#0");
    expect_error("local G#0 with a global G",
                 GPAR(false, "G", OPS(LEAF("g1"), LEAF("g1")), LOCALS(NULL, "G#0")), NULL,
                 WX_EINPUT, 31, 5, "G#0");
    expect_error("invalid regex in hide", HIDE(EXP_MODE_TOTAL, false, LEAF("P"), "a\\{1"),
                 NULL, WX_EINPUT, 3, 7, "invalid regular expression");
    expect_error("invalid regex in rename",
                 RENAME(EXP_MODE_TOTAL, LEAF("P"), "[a", "b"), NULL, WX_EINPUT, 4, 2,
                 "invalid regular expression");
    expect_error("partial rename is not a mode", RENAME(EXP_MODE_PARTIAL, LEAF("P"), "a", "b"),
                 NULL, WX_EINPUT, 4, 2, "not allowed");
    expect_error("missing leaf is reported by the leaf source at the leaf",
                 HIDE(EXP_MODE_GATE, false, LEAF("nope"), "a"), NULL, WX_EINPUT, 1, 1,
                 "no leaf nope");
    /* the explosion guard: 8 x 8 x 8 = 512 rules for one vector */
    struct bopt small = {.max_rules = 100};
    expect_error("rule explosion guard (vectors)",
                 VPAR(true, VECS("a * a * a -> s"), OPS(B8(), B8(), B8())),
                 &small, WX_ELIMIT, 9, 1, "more than 100");
    expect_error("rule explosion guard (generalised par)",
                 GPAR(false, "all", OPS(B8(), B8(), B8()), NULL),
                 &small, WX_ELIMIT, 19, 1, "more than 100");
    struct bopt enough = {.max_rules = 512};
    expect("just below the guard",
           VPAR(true, VECS("a * a * a -> s"), OPS(B8(), B8(), B8())), &enough, 1, 1, "s:1");
}

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
    if (ntr)
        qsort(tr, ntr, sizeof *tr, cmp_triple);
    size_t m = 0;
    for (size_t i = 0; i < ntr; i++)
        if (m == 0 || cmp_triple(&tr[m - 1], &tr[i]) != 0)
            tr[m++] = tr[i];
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
            tree_free(root);
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
        tree_free(root);
    }
    check(bad == 0, "random differential test, seed %llu: %d trees agree", (unsigned long long)seed,
          built);
    printf("random trees: %d with transitions, %d with >= 10 states, at most %llu states, "
           "%llu transitions in all\n", moving, big, (unsigned long long)max_states,
           (unsigned long long)sum_trans);
    g_leaves = leaves;
}

/* ------------------------------------------------------------------ */
/* Files: leaf resolution, inclusion, errors located in files           */
#include <unistd.h>

#include "../parser/network_build.h"

static char g_tmp[64];

static void put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", g_tmp, rel);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static const char *tpath(const char *rel)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_tmp, rel);
    return buf[k];
}

static void expect_file(const char *name, const char *path, const struct net_options *o,
                        uint64_t states, uint64_t trans, const char *labels)
{
    struct network net;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = network_from_file(path, o, &net, &err);
    char msg[1200];
    wx_error_format(&err, msg, sizeof msg);
    if (!check(rc == WX_OK, "%s: builds (%s)", name, rc ? msg : "ok"))
        return;
    struct xres r = explore(&net);
    CHECK_EQ_U64(r.states, states, "%s: states", name);
    CHECK_EQ_U64(r.trans, trans, "%s: transitions", name);
    check(strcmp(r.labels, labels) == 0, "%s: labels: expected \"%s\", found \"%s\"",
          name, labels, r.labels);
    network_free(&net);
}

static void expect_file_error(const char *name, const char *path,
                              const struct net_options *o, int code, const char *file,
                              int line, int col, const char *part)
{
    struct network net;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = network_from_file(path, o, &net, &err);
    if (rc == WX_OK) {
        network_free(&net);
        check(0, "%s: expected an error, built fine", name);
        return;
    }
    char msg[1200];
    wx_error_format(&err, msg, sizeof msg);
    check(rc == code, "%s: code %d (found %d: %s)", name, code, rc, msg);
    check(strcmp(err.file, file) == 0 && err.line == line && (col < 0 || err.col == col),
          "%s: located at %s:%d:%d (found %s)", name, file, line, col, msg);
    check(strstr(err.msg, part) != NULL, "%s: message mentions \"%s\" (found \"%s\")", name,
          part, msg);
}

static void test_files(void)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = '\0';
    snprintf(g_tmp, sizeof g_tmp, "/tmp/wx_test_network_XXXXXX");
    if (!check(mkdtemp(g_tmp) != NULL, "temporary directory"))
        return;
    char sub[128];
    snprintf(sub, sizeof sub, "%s/sub", g_tmp);
    mkdir(sub, 0700);
    put("sub/a.aut", "des (0, 2, 2)\n(0, A, 1)\n(1, B, 0)\n");
    put("sub/b.aut", "des (1, 3, 3)\n(1, A, 0)\n(0, C, 1)\n(2, \"D !1\", 0)\n"); /* initial 1 */
    put("a.aut", "des (0, 1, 2)\n(0, A, 1)\n"); /* the working-directory one */
    put("sub/top.exp",
        "(* leaves resolve next to this file *)\n"
        "label par using\n"
        "  A * A -> S, B * _ -> B, _ * C -> C\n"
        "in \"a.aut\" || b end par\n");
    put("sub/inc.exp", "hide S in \"top.exp\" end hide\n");
    put("sub/cwd.exp", "\"a.aut\"\n");
    put("sub/cyc.exp", "hide A in\n  \"cyc.exp\" end hide\n");
    put("sub/bcg.exp", "\"model.bcg\"\n");
    put("sub/m.bcg", "");
    put("sub/onlybcg.exp", "hide A in m end hide\n");
    put("sub/miss.exp", "hide A in\n  \"nothere.aut\" end hide\n");
    put("sub/bad.aut", "des (0, 2, 2)\n(0, A, 1)\n(1, B 0)\n");
    put("sub/badleaf.exp", "\"a.aut\" ||| \"bad.aut\"\n");
    put("sub/vlen.exp", "label par using\n  A * A -> S,\n  B * _ * _ -> B\nin a || b end par\n");
    put("sub/incbad.exp", "hide A in \"vlen.exp\" end hide\n");
    put("sub/lotos.exp", "lotos behaviour\nhide a in \"a.aut\"\n");
    put("sub/tau.aut", "des (0, 2, 2)\n(0, tau, 1)\n(1, i, 0)\n");
    put("sub/dft.exp",
        "hide FAIL in\n"
        "label par using\n"
        "  FAIL * _ -> FAIL,\n"
        "  _ * \"GO !1\" -> GO\n"
        "in\n"
        "  total rename \"RATE_FAIL !1 !2\" -> \"rate 0.1\" in \"dft.aut\" end rename\n"
        "  || \"go.aut\"\n"
        "end par end hide\n");
    put("sub/dft.aut", "des (0, 2, 3)\n(0, \"RATE_FAIL !1 !2\", 1)\n(1, FAIL, 2)\n");
    put("sub/go.aut", "des (0, 1, 2)\n(0, \"GO !1\", 1)\n");
    put("sub/x.txt", "");

    expect_file("leaves next to the .exp, extension-less name, initial state 1",
                tpath("sub/top.exp"), NULL, 4, 5, "B:2 C:2 S:1");
    expect_file(".exp leaf included (as if parenthesised)", tpath("sub/inc.exp"), NULL, 4, 5,
                "B:2 C:2 i:1");
    expect_file("AUT file alone, initial state renumbered", tpath("sub/b.aut"), NULL, 2, 2,
                "A:1 C:1");
    struct net_options tau = {.hidden = "tau"};
    struct network net;
    struct wx_error err;
    if (network_from_file(tpath("sub/tau.aut"), &tau, &net, &err) == WX_OK) {
        check(strcmp(strtab_str(net.labels, net.hidden), "tau") == 0,
              "--hidden tau names the hidden label");
        network_free(&net);
    } else {
        check(0, "--hidden tau: %s", err.msg);
    }
    put("sub/dups.aut", "des (0, 3, 2)\n(0, A, 1)\n(0, A, 1)\n(1, B, 0)\n");
    put("sub/dups.exp", "\"a.aut\" ||| \"dups.aut\"\n");
    if (network_from_file(tpath("sub/dups.exp"), NULL, &net, &err) == WX_OK) {
        check(net.n_comps == 2 && net.comps[0].n_duplicates == 0 &&
                  net.comps[1].n_duplicates == 1 && strstr(net.comp_names[1], "dups.aut"),
              "dropped duplicate lines stay countable per component (for -v)");
        network_free(&net);
    } else {
        check(0, "dups.exp: %s", err.msg);
    }
    expect_file("LOTOS header folds operator labels", tpath("sub/lotos.exp"), NULL, 2, 2,
                "B:1 i:1");
    struct net_options cs = {.case_sensitive = true};
    expect_file("LOTOS header with --case", tpath("sub/lotos.exp"), &cs, 2, 2, "A:1 B:1");
    struct net_options rate = {.rate = true};
    expect_file("DFTCalc shape with --rate", tpath("sub/dft.exp"), &rate, 6, 7,
                "GO:3 i:2 rate 0.1:2");
    expect_file("DFTCalc shape without --rate: rate labels blocked", tpath("sub/dft.exp"),
                NULL, 2, 1, "GO:1");
    /* the working directory first, like CADP */
    if (chdir(g_tmp) == 0) {
        expect_file("working directory first", "sub/cwd.exp", NULL, 2, 1, "A:1");
        if (chdir(cwd) != 0)
            check(0, "chdir back");
    }
    expect_file("else the .exp's directory", tpath("sub/cwd.exp"), NULL, 2, 2, "A:1 B:1");

    char f[256];
    snprintf(f, sizeof f, "%s", tpath("sub/cyc.exp"));
    expect_file_error("inclusion cycle", f, NULL, WX_EINPUT, f, 2, 3, "includes itself");
    snprintf(f, sizeof f, "%s", tpath("sub/bcg.exp"));
    expect_file_error(".bcg leaf", f, NULL, WX_EINPUT, f, 1, 1,
                      "bcg_io model.bcg model.aut");
    snprintf(f, sizeof f, "%s", tpath("sub/onlybcg.exp"));
    expect_file_error("extension-less leaf with only a .bcg", f, NULL, WX_EINPUT, f, 1, 11,
                      "bcg_io");
    snprintf(f, sizeof f, "%s", tpath("sub/miss.exp"));
    expect_file_error("missing leaf, at the leaf in the .exp", f, NULL, WX_EINPUT, f, 2, 3,
                      "cannot find \"nothere.aut\"");
    expect_file_error("error inside a leaf, at the leaf's line", tpath("sub/badleaf.exp"), NULL,
                      WX_EINPUT, tpath("sub/bad.aut"), 3, -1, "");
    snprintf(f, sizeof f, "%s", tpath("sub/vlen.exp"));
    expect_file_error("vector length, at the vector", f, NULL, WX_EINPUT, f, 3, 3,
                      "but the par has 2");
    expect_file_error("error in an included .exp, in that file", tpath("sub/incbad.exp"), NULL,
                      WX_EINPUT, f, 3, 3, "but the par has 2");
    snprintf(f, sizeof f, "%s", tpath("sub/x.txt"));
    expect_file_error("unknown extension", f, NULL, WX_EINPUT, f, 0, 0, "unknown input format");
    snprintf(f, sizeof f, "%s", tpath("sub/m.bcg"));
    expect_file_error("BCG file given directly", f, NULL, WX_EINPUT, f, 0, 0, "bcg_io");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", g_tmp);
}

/* ------------------------------------------------------------------ */
/* The bundled examples against their independently known counts        */
/*
 * examples/counts.tsv lists networks with state/transition/deadlock counts
 * computed by examples/gen.py from closed forms and its own explorer over the
 * model (not over our flattening).  Every committed row up to EX_MAX states
 * is built here with network_from_file from the repository root (leaves found
 * through the .exp's directory) and explored with the brute-force explorer.
 */
#define EX_MAX 20000

static void test_examples(void)
{
    FILE *f = fopen("examples/counts.tsv", "r");
    if (!f) {
        printf("note: examples/counts.tsv not found (run from the repository root)\n");
        return;
    }
    char line[1024];
    int rows = 0;
    if (!fgets(line, sizeof line, f)) /* header */
        line[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        char fam[64], params[64], file[512];
        unsigned long long st, tr, dl;
        if (sscanf(line, "%63[^\t]\t%63[^\t]\t%511[^\t]\t%llu\t%llu\t%llu", fam, params, file,
                   &st, &tr, &dl) != 6 || st > EX_MAX || access(file, R_OK) != 0)
            continue;
        struct network net;
        struct wx_error err;
        int rc = network_from_file(file, NULL, &net, &err);
        if (!check(rc == WX_OK, "example %s %s builds (%s)", fam, params, rc ? err.msg : "ok"))
            continue;
        struct xres r = explore(&net);
        check(r.states == st && r.trans == tr && r.deadlocks == dl,
              "example %s %s: expected %llu states %llu transitions %llu deadlocks, found "
              "%llu %llu %llu", fam, params, st, tr, dl, (unsigned long long)r.states,
              (unsigned long long)r.trans, (unsigned long long)r.deadlocks);
        network_free(&net);
        rows++;
    }
    fclose(f);
    check(rows > 0, "examples: %d rows checked", rows);
}

int main(void)
{
    g_leaves = leaves;
    test_gate_len();
    test_fold();
    test_find();
    test_rewrite();
    test_leaf_and_unary();
    test_vectors();
    test_general();
    test_languages();
    test_errors();
    test_files();
    test_examples();
    uint64_t seed = 20240611;
    const char *env = getenv("WX_TEST_SEED");
    if (env)
        seed = strtoull(env, NULL, 0);
    printf("random seed %llu (set WX_TEST_SEED to change)\n", (unsigned long long)seed);
    test_random(seed, 3000);
    return check_exit();
}
