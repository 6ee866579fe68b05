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
 *
 * One translation unit: this file (the fixtures: trees by hand, in-memory
 * leaves, the brute-force explorer, building and expecting; and main)
 * includes tests/flatten/: match.c (label_match), operators.c (each
 * construct and the errors), interp.c (the differential test) and files.c
 * (networks in files and the bundled examples).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../network/label_match.h"
#include "../network/network_transform.h"
#include "../parser/network_build.h"
#include "../parser/exp_ast.h"
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

/* Sorts tr[0..n) and drops repeated triples; returns how many are left. */
static size_t triples_unique(struct triple *tr, size_t n)
{
    if (n)
        qsort(tr, n, sizeof *tr, cmp_triple);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || cmp_triple(&tr[m - 1], &tr[i]) != 0)
            tr[m++] = tr[i];
    return m;
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
    const size_t m = triples_unique(tr, ntr);
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
    exp_node_free(root);
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
    exp_node_free(root);
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

#include "flatten/match.c"

#include "flatten/operators.c"

#include "flatten/interp.c"

#include "flatten/files.c"

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
