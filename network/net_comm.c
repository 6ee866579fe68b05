/* net_comm.c -- the binary parallel compositions with a communication
 * function: CCS  B1 | B2  and mCRL  B1 || B2  (with "comm A | B = C").
 *
 * Both operands' rules interleave unchanged (CCS and mCRL keep the
 * individual actions; restriction or encapsulation, i.e. cut, removes them).
 * In addition, a visible rule of B1 with result x and a visible rule of B2
 * with result y give one rule, the union of their participants, with result
 *   CCS   the hidden label, when y is the co-name of x ("a" and "'a");
 *   mCRL  C O, when x = A O and y = B O (or x = B O and y = A O) for a
 *         declaration comm A | B = C, where A, B are gates and O the offers
 *         (the text after the gate, e.g. "(1,2)"), equal on both sides.
 * Hidden and (with --rate/--prob) stochastic results never communicate.
 */
#include "net_int.h"

#include <stdlib.h>
#include <string.h>

struct comm_ctx {
    struct net_ctx *ctx;
    struct network *ops;
    uint32_t offset[2];
    uint32_t *right;        /* B2's visible rules sorted by result */
    uint32_t n_right;
    struct rule_buf *b;
    struct product_scratch sc;
};

static int cmp_result(const void *x, const void *y, void *arg)
{
    const struct network *n = arg;
    uint32_t a = n->rule_result[*(const uint32_t *)x], c = n->rule_result[*(const uint32_t *)y];
    return a < c ? -1 : a > c;
}

/* Adds the rules of left rule `ra` with every right rule whose result is the
 * label text y[0..yl), labelled `res`. */
static int pair_with(struct comm_ctx *c, uint32_t ra, const char *y, size_t yl, uint32_t res)
{
    uint32_t id = strtab_find(c->ctx->labels, y, yl);
    if (id == UINT32_MAX)
        return WX_OK;
    const struct network *r = &c->ops[1];
    uint32_t a = 0, z = c->n_right;
    while (a < z) { /* first rule with result >= id */
        uint32_t m = a + (z - a) / 2;
        if (r->rule_result[c->right[m]] < id)
            a = m + 1;
        else
            z = m;
    }
    uint32_t hi = a;
    while (hi < c->n_right && r->rule_result[c->right[hi]] == id)
        hi++;
    size_t op[2] = {0, 1};
    uint32_t one[1] = {ra}, lo2[2] = {0, a}, hi2[2] = {1, hi};
    uint32_t *rules[2] = {one, c->right};
    return rule_buf_product(c->b, c->ops, c->offset, 2, op, rules, lo2, hi2, res, &c->sc);
}

static char *fold_dup(const struct net_ctx *ctx, const char *s)
{
    return ctx->fold ? label_fold_upper(s, false) : strdup(s);
}

/* mCRL: the communications of left rule ra (result text x). */
static int mcrl_pairs(struct comm_ctx *c, const struct exp_node *par, uint32_t ra, const char *x)
{
    size_t g = label_gate_len(x), ol = strlen(x + g);
    for (size_t i = 0; i < par->n_pats; i++) {
        const char *side[2] = {par->pats[i], par->repls[i]};
        for (int s = 0; s < 2; s++) {
            if (s == 1 && strcmp(side[0], side[1]) == 0)
                break; /* comm a | a = c: one pairing */
            char *me = fold_dup(c->ctx, side[s]), *other = fold_dup(c->ctx, side[1 - s]);
            char *res = fold_dup(c->ctx, par->comm_res[i]);
            char *y = NULL, *z = NULL;
            int rc = WX_ESYSTEM;
            if (me && other && res) {
                rc = WX_OK;
                if (strlen(me) == g && memcmp(me, x, g) == 0) {
                    size_t yl = strlen(other), zl = strlen(res);
                    y = malloc(yl + ol + 1);
                    z = malloc(zl + ol + 1);
                    rc = y && z ? WX_OK : WX_ESYSTEM;
                    if (rc == WX_OK) {
                        memcpy(y, other, yl), memcpy(y + yl, x + g, ol + 1);
                        memcpy(z, res, zl), memcpy(z + zl, x + g, ol + 1);
                        uint32_t rid = net_intern(c->ctx, z, zl + ol);
                        rc = rid == UINT32_MAX ? WX_ESYSTEM
                                               : pair_with(c, ra, y, yl + ol, rid);
                    }
                }
            }
            free(me), free(other), free(res), free(y), free(z);
            if (rc != WX_OK)
                return rc;
        }
    }
    return WX_OK;
}

static bool visible(const struct net_ctx *ctx, uint32_t res)
{
    return res != ctx->hidden && !net_is_stochastic(ctx, res);
}

static int comm_rules(struct comm_ctx *c, const struct exp_node *par)
{
    struct net_ctx *ctx = c->ctx;
    int rc = WX_OK;
    for (int i = 0; i < 2 && rc == WX_OK; i++)
        for (uint32_t r = 0; r < c->ops[i].n_rules && rc == WX_OK; r++)
            rc = rule_buf_copy(c->b, &c->ops[i], r, c->offset[i]);
    for (uint32_t r = 0; r < c->ops[1].n_rules; r++)
        if (visible(ctx, c->ops[1].rule_result[r]))
            c->right[c->n_right++] = r;
    qsort_r(c->right, c->n_right, sizeof *c->right, cmp_result, &c->ops[1]);
    /* the left results are read before pairing interns new labels */
    for (uint32_t r = 0; r < c->ops[0].n_rules && rc == WX_OK; r++) {
        uint32_t x = c->ops[0].rule_result[r];
        if (!visible(ctx, x))
            continue;
        char *xs = strdup(strtab_str(ctx->labels, x));
        if (!xs)
            return WX_ESYSTEM;
        if (par->ccs) {
            char *co = xs[0] == '\'' ? strdup(xs + 1) : malloc(strlen(xs) + 2);
            if (co && xs[0] != '\'')
                co[0] = '\'', strcpy(co + 1, xs);
            rc = co ? pair_with(c, r, co, strlen(co), ctx->hidden) : WX_ESYSTEM;
            free(co);
        } else {
            rc = mcrl_pairs(c, par, r, xs);
        }
        free(xs);
    }
    return rc;
}

int net_par_comm(struct net_ctx *ctx, struct network *ops, const struct exp_node *par,
                 struct network *out, struct wx_error *err)
{
    struct rule_buf b;
    struct comm_ctx c = {.ctx = ctx, .ops = ops, .b = &b};
    network_init(out, ctx->labels, ctx->hidden);
    rule_buf_init(&b, ctx);
    int rc = out->rule_start ? WX_OK : WX_ESYSTEM;
    for (int i = 0; i < 2 && rc == WX_OK; i++) {
        c.offset[i] = out->n_comps;
        rc = net_move_comps(out, &ops[i]);
    }
    if (rc == WX_OK) {
        c.right = malloc((ops[1].n_rules ? ops[1].n_rules : 1) * sizeof *c.right);
        rc = c.right ? comm_rules(&c, par) : WX_ESYSTEM;
    }
    if (rc == WX_OK)
        rc = rule_buf_install(&b, out);
    if (rc != WX_OK)
        rc = rule_buf_fail(rc, ctx, &b, par->loc, err);
    free(c.right);
    product_scratch_free(&c.sc);
    rule_buf_free(&b);
    net_discard_all(ops, 2);
    if (rc != WX_OK)
        net_discard(out);
    return rc;
}
