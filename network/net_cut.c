/* net_cut.c -- [mode] cut [all but] LL in B end cut: rules whose visible
 * result matches are removed, so the transitions they produced vanish.
 * Hidden results are never cut; with keep_term, neither is the termination
 * gate.  Above a priority the rules stay (they still take part in it) and
 * their shown labels become NETWORK_PRIO_CUT (network.h). */
#include "net_int.h"

#include <stdlib.h>

/* One decision per label: 1 = cut, 2 = keep. */
static unsigned char cut_decision(struct net_ctx *ctx, const struct label_match *m, bool all_but,
                                  bool keep_term, uint32_t res)
{
    const char *s = strtab_str(ctx->labels, res);
    bool hit = label_match_find(m, s) >= 0;
    if (keep_term && net_is_termination(ctx, s, label_gate_len(s)))
        return 2;
    return hit != all_but ? 1 : 2;
}

static int cut_shown(struct net_ctx *ctx, struct network *net, const struct label_match *m,
                     bool all_but, bool keep_term)
{
    for (uint32_t l = 0; l < net->prio_n; l++) {
        uint32_t res = net->prio_out[l];
        if (res != ctx->hidden && res != NETWORK_PRIO_CUT &&
            cut_decision(ctx, m, all_but, keep_term, res) == 1)
            net->prio_out[l] = NETWORK_PRIO_CUT;
    }
    return WX_OK;
}

int net_cut(struct net_ctx *ctx, struct network *net, const struct label_match *m,
            bool all_but, bool keep_term, struct wx_error *err)
{
    if (net->prio_n)
        return cut_shown(ctx, net, m, all_but, keep_term);
    uint32_t nl = strtab_count(ctx->labels);
    unsigned char *memo = calloc(nl ? nl : 1, 1); /* 1 = cut, 2 = keep */
    struct rule_buf b;
    rule_buf_init(&b, ctx);
    int rc = memo ? WX_OK : WX_ESYSTEM;
    for (uint32_t r = 0; r < net->n_rules && rc == WX_OK; r++) {
        uint32_t res = net->rule_result[r];
        if (res != ctx->hidden && !memo[res])
            memo[res] = cut_decision(ctx, m, all_but, keep_term, res);
        if (res == ctx->hidden || memo[res] == 2)
            rc = rule_buf_copy(&b, net, r, 0);
    }
    free(memo);
    if (rc == WX_OK)
        rc = rule_buf_install(&b, net);
    if (rc != WX_OK) {
        rule_buf_free(&b);
        net_discard(net);
        return wx_fail(err, WX_ESYSTEM, ctx->file, 0, 0, "out of memory");
    }
    return WX_OK;
}
