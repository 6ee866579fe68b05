/* net_leaf.c -- a leaf LTS as a one-component network. */
#include "net_int.h"
#include "../util/arith.h"

#include <stdlib.h>
#include <string.h>

int net_leaf(struct net_ctx *ctx, struct lts *l, uint32_t initial,
             const char *name, struct network *out, struct wx_error *err)
{
    network_init(out, ctx->labels, ctx->hidden);
    if (!out->rule_start || lts_prune_from(l, initial) != 0) {
        lts_free(l);
        net_discard(out);
        return wx_fail(err, WX_ESYSTEM, name, 0, 0, "out of memory");
    }
    /* the labels this component uses, after pruning: a label only on
     * unreachable transitions must not become a rule (it would change which
     * labels a par sees, e.g. for "par all") */
    uint64_t n = l->n_trans;
    uint32_t *lab = malloc((n ? n : 1) * sizeof *lab);
    if (!lab) {
        lts_free(l);
        net_discard(out);
        return wx_fail(err, WX_ESYSTEM, name, 0, 0, "out of memory");
    }
    memcpy(lab, l->label, n * sizeof *lab);
    qsort(lab, n, sizeof *lab, wx_cmp_u32);
    if (network_add_comp(out, l, name) < 0) {
        free(lab);
        lts_free(l);
        net_discard(out);
        return wx_fail(err, WX_ESYSTEM, name, 0, 0, "out of memory");
    }
    struct rule_buf b;
    rule_buf_init(&b, ctx);
    uint32_t comp = 0;
    int rc = WX_OK;
    for (uint64_t i = 0; i < n && rc == WX_OK; i++)
        if (i == 0 || lab[i] != lab[i - 1])
            rc = rule_buf_add(&b, 1, &comp, &lab[i], lab[i]);
    free(lab);
    if (rc == WX_OK)
        rc = rule_buf_install(&b, out);
    if (rc != WX_OK) {
        rule_buf_free(&b);
        net_discard(out);
        return wx_fail(err, rc, name, 0, 0,
                       rc == WX_ELIMIT ? "too many labels in one LTS" : "out of memory");
    }
    return WX_OK;
}
