/* net_hide.c -- [mode] hide [all but] LL in B end hide: matching visible
 * results become the hidden label (rules and participants are unchanged). */
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
    for (uint32_t r = 0; r < net->n_rules; r++) {
        uint32_t res = net->rule_result[r];
        if (res == ctx->hidden)
            continue;
        if (!memo[res]) {
            bool hit = label_match_find(m, strtab_str(ctx->labels, res)) >= 0;
            memo[res] = hit != all_but ? 1 : 2;
        }
        if (memo[res] == 1)
            net->rule_result[r] = ctx->hidden;
    }
    free(memo);
    return WX_OK;
}
