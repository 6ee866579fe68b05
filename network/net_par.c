/* net_par.c -- [gate|label] par using V1, ..., Vk in B1 || ... || Bn end par.
 *
 * Vector E1 * ... * En -> R fires when every operand i with Ei != _ fires one
 * of its rules whose result matches Ei: in label mode the result equals Ei
 * and the product is labelled R; in gate mode the result's gate equals Ei,
 * all chosen results carry the same offers O (the text after the gate) and
 * the product is labelled R O.  Each choice of one rule per participating
 * operand gives one flattened rule: the union of their participants (the
 * operands' components are disjoint), result R (O).  Vectors apply
 * independently, so one operand rule may serve several vectors.  Operand
 * rules with a hidden (or, with --rate/--prob, stochastic) result are passed
 * through; visible rules that serve no vector are dropped, i.e. blocked.
 */
#include "net_int.h"

#include <stdlib.h>
#include <string.h>

struct vec_op {          /* one operand's visible rules, sorted by key */
    uint32_t n;
    uint32_t *rule;
};

struct key_ctx {
    const struct network *net;
    const struct strtab *labels;
    bool gate;
};

/* Order of (gate, offers) pairs; strings compared bytewise, shorter first. */
static int cmp_text(const char *a, size_t la, const char *b, size_t lb)
{
    int c = memcmp(a, b, la < lb ? la : lb);
    if (c)
        return c;
    return la < lb ? -1 : la > lb;
}

static int cmp_rule_key(const void *x, const void *y, void *arg)
{
    const struct key_ctx *k = arg;
    uint32_t rx = k->net->rule_result[*(const uint32_t *)x];
    uint32_t ry = k->net->rule_result[*(const uint32_t *)y];
    if (!k->gate)
        return rx < ry ? -1 : rx > ry;
    const char *a = strtab_str(k->labels, rx), *b = strtab_str(k->labels, ry);
    size_t ga = label_gate_len(a), gb = label_gate_len(b);
    int c = cmp_text(a, ga, b, gb);
    return c ? c : strcmp(a + ga, b + gb);
}

/* Compares rule r's key with the probe (gate g[0..gl), offers o or, when o is
 * NULL, any offers); label mode compares the result id with `id`. */
static int cmp_probe(const struct key_ctx *k, uint32_t r, uint32_t id,
                     const char *g, size_t gl, const char *o)
{
    uint32_t res = k->net->rule_result[r];
    if (!k->gate)
        return res < id ? -1 : res > id;
    const char *s = strtab_str(k->labels, res);
    size_t gs = label_gate_len(s);
    int c = cmp_text(s, gs, g, gl);
    if (c || !o)
        return c;
    return strcmp(s + gs, o);
}

/* [*lo, *hi): the rules of op whose key equals the probe. */
static void equal_range(const struct key_ctx *k, const struct vec_op *op,
                        uint32_t id, const char *g, size_t gl, const char *o,
                        uint32_t *lo, uint32_t *hi)
{
    uint32_t a = 0, b = op->n;
    while (a < b) { /* first not less */
        uint32_t m = a + (b - a) / 2;
        if (cmp_probe(k, op->rule[m], id, g, gl, o) < 0)
            a = m + 1;
        else
            b = m;
    }
    *lo = a;
    b = op->n;
    while (a < b) { /* first greater */
        uint32_t m = a + (b - a) / 2;
        if (cmp_probe(k, op->rule[m], id, g, gl, o) <= 0)
            a = m + 1;
        else
            b = m;
    }
    *hi = a;
}

/* A vector checked and prepared: elements folded, positions that move. */
struct vec_prep {
    size_t k;            /* participating operands */
    size_t *pos;         /* their indices, ascending */
    char **el;           /* k elements (folded) */
    char *result;        /* folded result text */
};

static void prep_free(struct vec_prep *v)
{
    for (size_t i = 0; i < v->k; i++)
        free(v->el[i]);
    free(v->pos), free(v->el), free(v->result);
    memset(v, 0, sizeof *v);
}

static char *fold_dup(const struct net_ctx *ctx, const char *s)
{
    return ctx->fold ? label_fold_upper(s, false) : strdup(s);
}

static int prep_vector(struct net_ctx *ctx, const struct exp_vector *v, size_t n,
                       bool label_mode, struct vec_prep *p, struct wx_error *err)
{
    memset(p, 0, sizeof *p);
    int line = v->loc.line, col = v->loc.col;
    if (v->n != n)
        return wx_fail(err, WX_EINPUT, ctx->file, line, col,
                       "synchronisation vector has %zu elements but the par has %zu operands",
                       v->n, n);
    const char *hidden = strtab_str(ctx->labels, ctx->hidden);
    p->pos = malloc((n ? n : 1) * sizeof *p->pos);
    p->el = calloc(n ? n : 1, sizeof *p->el);
    p->result = fold_dup(ctx, v->result);
    if (!p->pos || !p->el || !p->result) {
        prep_free(p);
        return wx_fail(err, WX_ESYSTEM, ctx->file, line, col, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if (!v->comp[i])
            continue; /* "_" */
        char *e = fold_dup(ctx, v->comp[i]);
        if (!e) {
            prep_free(p);
            return wx_fail(err, WX_ESYSTEM, ctx->file, line, col, "out of memory");
        }
        p->pos[p->k] = i;
        p->el[p->k++] = e;
        if (strcmp(e, hidden) == 0 || strcmp(v->comp[i], hidden) == 0) {
            prep_free(p);
            return wx_fail(err, WX_EINPUT, ctx->file, line, col,
                           "the hidden label \"%s\" may not appear on the left of a "
                           "synchronisation vector (element %zu)", hidden, i + 1);
        }
        if (!label_mode && (e[0] == '\0' || label_gate_len(e) != strlen(e))) {
            int rc = wx_fail(err, WX_EINPUT, ctx->file, line, col,
                             "element %zu \"%s\" of a gate-mode vector is not a gate "
                             "(it has offers); write \"label par using\" to match "
                             "full labels", i + 1, e);
            prep_free(p);
            return rc;
        }
    }
    if (p->k == 0) {
        prep_free(p);
        return wx_fail(err, WX_EINPUT, ctx->file, line, col,
                       "synchronisation vector has no element other than \"_\"");
    }
    return WX_OK;
}

static int one_vector(struct net_ctx *ctx, struct rule_buf *b, struct network *ops,
                      const uint32_t *offset, const struct vec_op *vo,
                      const struct key_ctx *keys, const struct vec_prep *p,
                      bool label_mode, uint32_t *lo, uint32_t *hi, uint32_t **rules,
                      struct product_scratch *sc)
{
    for (size_t j = 0; j < p->k; j++)
        rules[j] = vo[p->pos[j]].rule;
    if (label_mode) {
        uint32_t res = net_intern(ctx, p->result, strlen(p->result));
        if (res == UINT32_MAX)
            return WX_ESYSTEM;
        for (size_t j = 0; j < p->k; j++) {
            uint32_t id = strtab_find(ctx->labels, p->el[j], strlen(p->el[j]));
            if (id == UINT32_MAX)
                return WX_OK; /* no operand rule carries this label */
            equal_range(&keys[p->pos[j]], &vo[p->pos[j]], id, NULL, 0, NULL,
                        &lo[j], &hi[j]);
        }
        return rule_buf_product(b, ops, offset, p->k, p->pos, rules, lo, hi, res, sc);
    }
    /* gate mode: walk the offers groups of the first position */
    size_t p0 = p->pos[0];
    uint32_t a, z;
    equal_range(&keys[p0], &vo[p0], 0, p->el[0], strlen(p->el[0]), NULL, &a, &z);
    size_t rlen = strlen(p->result);
    while (a < z) {
        const char *s = strtab_str(ctx->labels, ops[p0].rule_result[vo[p0].rule[a]]);
        const char *offers = s + label_gate_len(s);
        lo[0] = a;
        for (hi[0] = a + 1; hi[0] < z; hi[0]++) {
            const char *t = strtab_str(ctx->labels, ops[p0].rule_result[vo[p0].rule[hi[0]]]);
            if (strcmp(t + label_gate_len(t), offers) != 0)
                break;
        }
        a = hi[0];
        for (size_t j = 1; j < p->k; j++)
            equal_range(&keys[p->pos[j]], &vo[p->pos[j]], 0, p->el[j],
                        strlen(p->el[j]), offers, &lo[j], &hi[j]);
        size_t olen = strlen(offers);
        char *rs = malloc(rlen + olen + 1);
        if (!rs)
            return WX_ESYSTEM;
        memcpy(rs, p->result, rlen);
        memcpy(rs + rlen, offers, olen + 1);
        uint32_t res = net_intern(ctx, rs, rlen + olen);
        free(rs);
        if (res == UINT32_MAX)
            return WX_ESYSTEM;
        int rc = rule_buf_product(b, ops, offset, p->k, p->pos, rules, lo, hi, res, sc);
        if (rc != WX_OK)
            return rc;
    }
    return WX_OK;
}

int net_par_vectors(struct net_ctx *ctx, struct network *ops, size_t n,
                    const struct exp_node *par, struct network *out,
                    struct wx_error *err)
{
    bool label_mode = par->label_mode;
    network_init(out, ctx->labels, ctx->hidden);
    struct vec_prep *prep = calloc(par->n_vecs ? par->n_vecs : 1, sizeof *prep);
    struct vec_op *vo = calloc(n ? n : 1, sizeof *vo);
    struct key_ctx *keys = calloc(n ? n : 1, sizeof *keys);
    uint32_t *offset = calloc(n ? n : 1, sizeof *offset);
    uint32_t *lo = malloc((n ? n : 1) * sizeof *lo), *hi = malloc((n ? n : 1) * sizeof *hi);
    uint32_t **rules = malloc((n ? n : 1) * sizeof *rules);
    struct product_scratch sc = {0};
    struct rule_buf b;
    rule_buf_init(&b, ctx);
    int rc = WX_OK;
    if (!out->rule_start || !prep || !vo || !keys || !offset || !lo || !hi || !rules) {
        rc = wx_fail(err, WX_ESYSTEM, ctx->file, par->loc.line, par->loc.col,
                     "out of memory");
        goto done;
    }
    for (size_t v = 0; v < par->n_vecs; v++)
        if ((rc = prep_vector(ctx, &par->vecs[v], n, label_mode, &prep[v], err)) != WX_OK)
            goto done;
    /* components, in operand order; hidden/stochastic rules pass through;
     * visible ones are indexed by key */
    for (size_t i = 0; i < n && rc == WX_OK; i++) {
        offset[i] = out->n_comps;
        if (net_move_comps(out, &ops[i]) != WX_OK) {
            rc = WX_ESYSTEM;
            break;
        }
        vo[i].rule = malloc((ops[i].n_rules ? ops[i].n_rules : 1) * sizeof *vo[i].rule);
        if (!vo[i].rule) {
            rc = WX_ESYSTEM;
            break;
        }
        for (uint32_t r = 0; r < ops[i].n_rules && rc == WX_OK; r++) {
            uint32_t res = ops[i].rule_result[r];
            if (res == ctx->hidden || net_is_stochastic(ctx, res))
                rc = rule_buf_copy(&b, &ops[i], r, offset[i]);
            else
                vo[i].rule[vo[i].n++] = r;
        }
        keys[i] = (struct key_ctx){&ops[i], ctx->labels, !label_mode};
        qsort_r(vo[i].rule, vo[i].n, sizeof *vo[i].rule, cmp_rule_key, &keys[i]);
    }
    for (size_t v = 0; v < par->n_vecs && rc == WX_OK; v++)
        rc = one_vector(ctx, &b, ops, offset, vo, keys, &prep[v], label_mode, lo, hi,
                        rules, &sc);
    if (rc == WX_OK)
        rc = rule_buf_install(&b, out);
    if (rc != WX_OK)
        rc = rule_buf_fail(rc, ctx, &b, par->loc, err);
done:
    for (size_t v = 0; prep && v < par->n_vecs; v++)
        prep_free(&prep[v]);
    for (size_t i = 0; vo && i < n; i++)
        free(vo[i].rule);
    free(prep), free(vo), free(keys), free(offset), free(lo), free(hi), free(rules);
    product_scratch_free(&sc);
    rule_buf_free(&b);
    net_discard_all(ops, n);
    if (rc != WX_OK)
        net_discard(out);
    return rc;
}
