/*
 * net_lint.c -- the facts behind the CLI's label warnings (net_lint.h).
 */
#include "net_lint.h"
#include "network_transform.h"

#include <stdlib.h>
#include <string.h>

/* Per-label flags. */
enum {
    L_COMP = 1,    /* labels a component transition */
    L_RESULT = 2,  /* the result of some rule */
    L_SYNC = 4,    /* result or participant label of a rule of >= 2 participants */
};

static void special(struct net_lint_special *k, uint32_t id, uint8_t f)
{
    if (f & L_SYNC) {
        if (k->n_synced++ == 0)
            k->synced = id;
    } else if (!(f & L_RESULT)) {
        if (k->n_blocked++ == 0)
            k->blocked = id;
    }
}

int net_lint(const struct network *net, bool rate_on, bool prob_on, struct net_lint *out,
             struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    out->hidden_like = UINT32_MAX;
    out->rate.blocked = out->rate.synced = out->prob.blocked = out->prob.synced = UINT32_MAX;
    const uint32_t n = strtab_count(net->labels);
    uint8_t *flag = calloc(n ? n : 1, 1);
    if (!flag)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    for (uint32_t c = 0; c < net->n_comps; c++)
        for (uint64_t t = 0; t < net->comps[c].n_trans; t++)
            flag[net->comps[c].label[t]] |= L_COMP;
    for (uint32_t r = 0; r < net->n_rules; r++) {
        const uint32_t b = net->rule_start[r], e = net->rule_start[r + 1];
        const uint8_t sync = e - b > 1 ? L_SYNC : 0;
        flag[net->rule_result[r]] |= L_RESULT | sync;
        for (uint32_t k = b; k < e; k++)
            flag[net->part_label[k]] |= sync;
    }
    out->hidden_occurs = net->hidden < n && (flag[net->hidden] & L_RESULT);
    static const char *const like[] = {"tau", "i", "t"};
    for (size_t k = 0; k < sizeof like / sizeof *like && out->hidden_like == UINT32_MAX; k++) {
        uint32_t id = strtab_find(net->labels, like[k], strlen(like[k]));
        if (id != UINT32_MAX && id != net->hidden && (flag[id] & (L_COMP | L_RESULT)))
            out->hidden_like = id;
    }
    if (!rate_on || !prob_on)
        for (uint32_t id = 0; id < n; id++) {
            if (id == net->hidden)
                continue;
            const char *s = strtab_str(net->labels, id);
            if (!rate_on && net_stochastic_text(s, "rate"))
                special(&out->rate, id, flag[id]);
            else if (!prob_on && net_stochastic_text(s, "prob"))
                special(&out->prob, id, flag[id]);
        }
    free(flag);
    return WX_OK;
}
