/* net_prio.c -- [mode] prio X1 > X2 > ... in B end prio: the priority
 * relation on B's results (network.h), closed transitively and checked to be
 * a strict order; and the label operators (hide, cut, rename) above it,
 * which then act on the shown labels (prio_out) instead of the rules. */
#include "net_int.h"

#include <stdlib.h>
#include <string.h>

#include "../util/config.h"

#define NONE UINT32_MAX

struct prio_build {
    uint32_t nl;           /* labels of the build when the priority applies */
    uint32_t *idx;         /* nl: row of a result label in the matrix, NONE */
    uint32_t *label;       /* k: label id of each row */
    uint32_t k;            /* rows: the results named by some set */
    uint64_t *above;       /* k x words: bit b of row a: label a above label b */
    uint32_t words;
};

/* The results (rule results, ids < pb->nl) in set x under mode; out[l] = 1. */
static int set_members(struct net_ctx *ctx, const struct network *net, enum exp_mode mode,
                       const struct exp_prio_set *x, unsigned char *out, struct wx_error *err)
{
    struct label_match m;
    int rc = label_match_compile(&m, mode, x->n, x->pats, NULL, ctx->fold, ctx->file, x->loc, err);
    if (rc != WX_OK)
        return rc;
    unsigned char *seen = calloc(strtab_count(ctx->labels) + 1, 1);
    if (!seen) {
        label_match_free(&m);
        return wx_fail(err, WX_ESYSTEM, ctx->file, 0, 0, "out of memory");
    }
    for (uint32_t r = 0; r < net->n_rules; r++) {
        uint32_t res = net->rule_result[r];
        if (seen[res])
            continue;
        seen[res] = 1;
        bool hit = label_match_find(&m, strtab_str(ctx->labels, res)) >= 0;
        out[res] = hit != x->all_but;
    }
    free(seen);
    label_match_free(&m);
    return WX_OK;
}

static int add_row(struct prio_build *pb, uint32_t l, const struct exp_node *node,
                   struct net_ctx *ctx, struct wx_error *err)
{
    if (pb->idx[l] != NONE)
        return WX_OK;
    if (pb->k == WX_PRIO_MAX_LABELS)
        return wx_fail(err, WX_ELIMIT, ctx->file, node->loc.line, node->loc.col,
                       "this prio relates more than %u labels (WX_PRIO_MAX_LABELS)",
                       WX_PRIO_MAX_LABELS);
    pb->idx[l] = pb->k;
    pb->label[pb->k++] = l;
    return WX_OK;
}

/* Direct pairs of every rule: each label of X_i above each of X_j, i < j. */
static int direct_pairs(struct net_ctx *ctx, const struct network *net,
                        const struct exp_node *node, struct prio_build *pb,
                        unsigned char **mem, struct wx_error *err)
{
    size_t at = 0;
    for (size_t r = 0; r < node->n_prio; r++)
        for (size_t i = 0; i < node->prio[r].n; i++, at++) {
            memset(mem[at], 0, pb->nl);
            int rc = set_members(ctx, net, node->mode, &node->prio[r].sets[i], mem[at], err);
            for (uint32_t l = 0; l < pb->nl && rc == WX_OK; l++)
                if (mem[at][l])
                    rc = add_row(pb, l, node, ctx, err);
            if (rc != WX_OK)
                return rc;
        }
    pb->words = (pb->k + 63) / 64;
    pb->above = calloc((size_t)pb->k * (pb->words ? pb->words : 1), sizeof *pb->above);
    if (!pb->above)
        return wx_fail(err, WX_ESYSTEM, ctx->file, 0, 0, "out of memory");
    at = 0;
    for (size_t r = 0; r < node->n_prio; r++) {
        size_t first = at;
        for (size_t i = 0; i < node->prio[r].n; i++)
            for (size_t j = i + 1; j < node->prio[r].n; j++)
                for (uint32_t ra = 0; ra < pb->k; ra++) {
                    if (!mem[first + i][pb->label[ra]])
                        continue;
                    uint64_t *row = pb->above + (size_t)ra * pb->words;
                    for (uint32_t rb = 0; rb < pb->k; rb++)
                        if (mem[first + j][pb->label[rb]])
                            row[rb / 64] |= 1ull << (rb % 64);
                }
        at += node->prio[r].n;
    }
    return WX_OK;
}

/* Warshall's closure on bit rows, then the strict-order check. */
static int close_relation(struct net_ctx *ctx, const struct exp_node *node,
                          struct prio_build *pb, struct wx_error *err)
{
    for (uint32_t m = 0; m < pb->k; m++) {
        const uint64_t *rm = pb->above + (size_t)m * pb->words;
        for (uint32_t a = 0; a < pb->k; a++) {
            uint64_t *ra = pb->above + (size_t)a * pb->words;
            if (ra[m / 64] >> (m % 64) & 1)
                for (uint32_t w = 0; w < pb->words; w++)
                    ra[w] |= rm[w];
        }
    }
    for (uint32_t a = 0; a < pb->k; a++)
        if (pb->above[(size_t)a * pb->words + a / 64] >> (a % 64) & 1)
            return wx_fail(err, WX_EINPUT, ctx->file, node->loc.line, node->loc.col,
                           "the priorities of this prio are cyclic: label '%s' is above itself",
                           strtab_str(ctx->labels, pb->label[a]));
    return WX_OK;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* prio_above as ascending lists per label; prio_out the identity. */
static int install(struct network *net, const struct prio_build *pb)
{
    uint32_t nl = pb->nl;
    uint32_t *start = calloc((size_t)nl + 1, sizeof *start);
    uint32_t *out = malloc((nl ? nl : 1) * sizeof *out);
    if (!start || !out) {
        free(start), free(out);
        return -1;
    }
    size_t total = 0;
    for (uint32_t b = 0; b < pb->k; b++)
        for (uint32_t a = 0; a < pb->k; a++)
            total += pb->above[(size_t)a * pb->words + b / 64] >> (b % 64) & 1;
    uint32_t *above = malloc((total ? total : 1) * sizeof *above);
    if (!above) {
        free(start), free(out);
        return -1;
    }
    size_t at = 0;
    for (uint32_t l = 0; l < nl; l++) {
        out[l] = l;
        start[l] = (uint32_t)at;
        uint32_t b = pb->idx[l];
        for (uint32_t a = 0; b != NONE && a < pb->k; a++)
            if (pb->above[(size_t)a * pb->words + b / 64] >> (b % 64) & 1)
                above[at++] = pb->label[a];
        qsort(above + start[l], at - start[l], sizeof *above, cmp_u32);
    }
    start[nl] = (uint32_t)at;
    net->prio_n = nl;
    net->prio_above_start = start;
    net->prio_above = above;
    net->prio_out = out;
    return 0;
}

int net_prio(struct net_ctx *ctx, struct network *net, const struct exp_node *node,
             struct wx_error *err)
{
    if (net->prio_n) {
        net_discard(net);
        return wx_fail(err, WX_EINPUT, ctx->file, node->loc.line, node->loc.col,
                       "not supported yet: a prio inside another prio (write one prio "
                       "with all the rules)");
    }
    size_t nsets = 0;
    for (size_t r = 0; r < node->n_prio; r++)
        nsets += node->prio[r].n;
    struct prio_build pb = {.nl = strtab_count(ctx->labels)};
    pb.idx = malloc((pb.nl ? pb.nl : 1) * sizeof *pb.idx);
    pb.label = malloc(WX_PRIO_MAX_LABELS * sizeof *pb.label);
    unsigned char **mem = calloc(nsets ? nsets : 1, sizeof *mem);
    int rc = pb.idx && pb.label && mem ? WX_OK : WX_ESYSTEM;
    for (size_t i = 0; i < nsets && rc == WX_OK; i++)
        if (!(mem[i] = malloc(pb.nl ? pb.nl : 1)))
            rc = WX_ESYSTEM;
    if (rc != WX_OK)
        wx_fail(err, WX_ESYSTEM, ctx->file, 0, 0, "out of memory");
    for (uint32_t l = 0; rc == WX_OK && l < pb.nl; l++)
        pb.idx[l] = NONE;
    if (rc == WX_OK)
        rc = direct_pairs(ctx, net, node, &pb, mem, err);
    if (rc == WX_OK)
        rc = close_relation(ctx, node, &pb, err);
    bool any = false; /* a relation relating nothing is the identity: no priority */
    for (uint32_t r = 0; rc == WX_OK && r < pb.k * pb.words && !any; r++)
        any = pb.above[r] != 0;
    if (rc == WX_OK && any && install(net, &pb) < 0)
        rc = wx_fail(err, WX_ESYSTEM, ctx->file, 0, 0, "out of memory");
    for (size_t i = 0; mem && i < nsets; i++)
        free(mem[i]);
    free(mem), free(pb.idx), free(pb.label), free(pb.above);
    if (rc != WX_OK)
        net_discard(net);
    return rc;
}
