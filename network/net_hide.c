/* net_hide.c -- [mode] hide [all but] LL in B end hide: matching visible
 * results become the hidden label (rules and participants are unchanged);
 * above a priority, the shown labels do (network.h). */
#include "net_int.h"

#include <stdlib.h>

int net_hide(struct net_ctx *ctx, struct network *net,
             const struct label_match *m, bool all_but, struct wx_error *err)
{
    /* decide once per label: 0 = undecided, 1 = hide, 2 = keep */
    uint32_t nl = strtab_count(ctx->labels);
    unsigned char *memo = calloc(nl ? nl : 1, 1);
    if (!memo) {
        net_discard(net);
        return wx_fail(err, WX_ESYSTEM, ctx->file, 0, 0, "out of memory");
    }
    uint32_t *val = net->prio_n ? net->prio_out : net->rule_result;
    uint32_t n = net->prio_n ? net->prio_n : net->n_rules;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t res = val[r];
        if (res == ctx->hidden || res == NETWORK_PRIO_CUT)
            continue;
        if (!memo[res]) {
            bool hit = label_match_find(m, strtab_str(ctx->labels, res)) >= 0;
            memo[res] = hit != all_but ? 1 : 2;
        }
        if (memo[res] == 1)
            val[r] = ctx->hidden;
    }
    free(memo);
    return WX_OK;
}
