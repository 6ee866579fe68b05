#include "network.h"

#include <stdlib.h>
#include <string.h>

void network_init(struct network *net, struct strtab *labels, uint32_t hidden)
{
    memset(net, 0, sizeof *net);
    net->labels = labels;
    net->hidden = hidden;
    /* Invariant: rule_start is never NULL, rule_start[n_rules] is valid. */
    net->rule_start = calloc(1, sizeof *net->rule_start);
}

int network_add_comp(struct network *net, struct lts *l, const char *name)
{
    uint32_t n = net->n_comps;
    struct lts *c = realloc(net->comps, (n + 1) * sizeof *c);
    if (!c)
        return -1;
    net->comps = c;
    char **names = realloc(net->comp_names, (n + 1) * sizeof *names);
    if (!names)
        return -1;
    net->comp_names = names;
    names[n] = strdup(name ? name : "");
    if (!names[n])
        return -1;
    c[n] = *l;
    memset(l, 0, sizeof *l);
    net->n_comps = n + 1;
    return (int)n;
}

/* Grows the rule arrays geometrically, so building k rules costs O(k). */
static int reserve_rules(struct network *net, uint32_t rules, uint32_t parts)
{
    if (rules + 1 > net->rule_cap) {
        uint32_t cap = net->rule_cap ? net->rule_cap * 2 : 16;
        while (cap < rules + 1)
            cap *= 2;
        uint32_t *rs = realloc(net->rule_start, ((size_t)cap + 1) * sizeof *rs);
        if (!rs)
            return -1;
        net->rule_start = rs;
        uint32_t *res = realloc(net->rule_result, (size_t)cap * sizeof *res);
        if (!res)
            return -1;
        net->rule_result = res;
        net->rule_cap = cap;
    }
    if (parts > net->part_cap) {
        uint32_t cap = net->part_cap ? net->part_cap * 2 : 32;
        while (cap < parts)
            cap *= 2;
        uint32_t *pc = realloc(net->part_comp, (size_t)cap * sizeof *pc);
        if (!pc)
            return -1;
        net->part_comp = pc;
        uint32_t *pl = realloc(net->part_label, (size_t)cap * sizeof *pl);
        if (!pl)
            return -1;
        net->part_label = pl;
        net->part_cap = cap;
    }
    return 0;
}

int network_add_rule(struct network *net, uint32_t n, const uint32_t *comp,
                     const uint32_t *label, uint32_t result)
{
    uint32_t r = net->n_rules, base = net->n_rules ? net->rule_start[r] : 0;
    if (reserve_rules(net, r + 1, base + n) != 0)
        return -1;
    uint32_t *pc = net->part_comp, *pl = net->part_label;
    net->rule_start[0] = 0;
    /* insertion sort by component: rules are short */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = base + i;
        while (j > base && pc[j - 1] > comp[i]) {
            pc[j] = pc[j - 1];
            pl[j] = pl[j - 1];
            j--;
        }
        pc[j] = comp[i];
        pl[j] = label[i];
    }
    net->rule_start[r + 1] = base + n;
    net->rule_result[r] = result;
    net->n_rules = r + 1;
    return 0;
}

static const struct network *sort_net; /* qsort has no context argument in C11 */

static int cmp_rule(const void *a, const void *b)
{
    const struct network *n = sort_net;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t lx = n->rule_start[x + 1] - n->rule_start[x];
    uint32_t ly = n->rule_start[y + 1] - n->rule_start[y];
    if (lx != ly)
        return lx < ly ? -1 : 1;
    for (uint32_t i = 0; i < lx; i++) {
        uint32_t px = n->rule_start[x] + i, py = n->rule_start[y] + i;
        if (n->part_comp[px] != n->part_comp[py])
            return n->part_comp[px] < n->part_comp[py] ? -1 : 1;
        if (n->part_label[px] != n->part_label[py])
            return n->part_label[px] < n->part_label[py] ? -1 : 1;
    }
    if (n->rule_result[x] != n->rule_result[y])
        return n->rule_result[x] < n->rule_result[y] ? -1 : 1;
    return 0;
}

int network_normalise(struct network *net)
{
    uint32_t nr = net->n_rules;
    uint32_t *order = malloc((nr ? nr : 1) * sizeof *order);
    uint32_t *rs = malloc((nr + 1) * sizeof *rs);
    uint32_t total = net->rule_start[nr];
    uint32_t *pc = malloc((total ? total : 1) * sizeof *pc);
    uint32_t *pl = malloc((total ? total : 1) * sizeof *pl);
    uint32_t *res = malloc((nr ? nr : 1) * sizeof *res);
    if (!order || !rs || !pc || !pl || !res) {
        free(order), free(rs), free(pc), free(pl), free(res);
        return -1;
    }
    for (uint32_t r = 0; r < nr; r++)
        order[r] = r;
    sort_net = net;
    qsort(order, nr, sizeof *order, cmp_rule);
    uint32_t m = 0, at = 0;
    rs[0] = 0;
    for (uint32_t i = 0; i < nr; i++) {
        if (i > 0 && cmp_rule(&order[i - 1], &order[i]) == 0)
            continue;
        uint32_t r = order[i];
        for (uint32_t p = net->rule_start[r]; p < net->rule_start[r + 1]; p++) {
            pc[at] = net->part_comp[p];
            pl[at] = net->part_label[p];
            at++;
        }
        res[m] = net->rule_result[r];
        rs[++m] = at;
    }
    free(order);
    free(net->rule_start), free(net->part_comp), free(net->part_label), free(net->rule_result);
    net->rule_start = rs, net->part_comp = pc, net->part_label = pl, net->rule_result = res;
    net->n_rules = m;
    net->rule_cap = nr, net->part_cap = total;
    return 0;
}

void network_free(struct network *net)
{
    for (uint32_t c = 0; c < net->n_comps; c++) {
        lts_free(&net->comps[c]);
        free(net->comp_names[c]);
    }
    free(net->comps);
    free(net->comp_names);
    free(net->rule_start), free(net->part_comp), free(net->part_label), free(net->rule_result);
    free(net->prio_above_start), free(net->prio_above), free(net->prio_out);
    strtab_free(net->labels);
    memset(net, 0, sizeof *net);
}
