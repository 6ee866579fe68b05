/* net_rename.c -- [mode] rename L1 -> R1, ... in B end rename: visible
 * results are rewritten by the first rule that matches (label_match.h); no
 * cascading.  A result rewritten to the hidden label's text becomes hidden;
 * the hidden label itself is never renamed.  Above a priority the shown
 * labels are rewritten (network.h). */
#include "net_int.h"

#include <stdlib.h>
#include <string.h>

#define UNDECIDED UINT32_MAX

int net_rename(struct net_ctx *ctx, struct network *net,
               const struct label_match *m, struct wx_error *err)
{
    uint32_t nl = strtab_count(ctx->labels); /* labels interned below are new */
    uint32_t *memo = malloc((nl ? nl : 1) * sizeof *memo);
    if (!memo) {
        net_discard(net);
        return wx_fail(err, WX_ESYSTEM, ctx->file, 0, 0, "out of memory");
    }
    for (uint32_t i = 0; i < nl; i++)
        memo[i] = UNDECIDED;
    uint32_t *val = net->prio_n ? net->prio_out : net->rule_result;
    uint32_t n = net->prio_n ? net->prio_n : net->n_rules;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t res = val[r];
        if (res == ctx->hidden || res == NETWORK_PRIO_CUT)
            continue;
        if (memo[res] == UNDECIDED) {
            char *to = NULL;
            int hit = label_match_rewrite(m, strtab_str(ctx->labels, res), &to);
            uint32_t id = res;
            if (hit > 0) {
                id = net_intern(ctx, to, strlen(to));
                free(to);
            }
            if (hit < 0 || id == UINT32_MAX) {
                free(memo);
                net_discard(net);
                return wx_fail(err, WX_ESYSTEM, ctx->file, 0, 0, "out of memory");
            }
            memo[res] = id;
        }
        val[r] = memo[res];
    }
    free(memo);
    return WX_OK;
}
