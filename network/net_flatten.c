/* net_flatten.c -- an EXP tree to one flat network, bottom-up: leaves through
 * the leaf source, every operator through its transform. */
#include "net_int.h"

#include <stdio.h>
#include <stdlib.h>

#include "../util/config.h"

static const char *mode_name(enum exp_mode m)
{
    static const char *const name[] = {"gate", "total", "partial", "single", "multiple"};
    return (unsigned)m < sizeof name / sizeof *name ? name[m] : "?";
}

static int flatten_match(struct net_ctx *ctx, const struct exp_node *node,
                         const struct net_leaf_source *src, struct network *out,
                         struct wx_error *err)
{
    bool rename = node->kind == EXP_RENAME;
    bool ok_mode = rename ? node->mode != EXP_MODE_PARTIAL
                          : node->mode <= EXP_MODE_PARTIAL;
    if (!ok_mode)
        return wx_fail(err, WX_EINPUT, ctx->file, node->loc.line, node->loc.col,
                       "matching mode \"%s\" is not allowed for %s",
                       mode_name(node->mode),
                       rename ? "rename" : node->kind == EXP_HIDE ? "hide" : "cut");
    struct label_match m;
    int rc = label_match_compile(&m, node->mode, node->n_pats, node->pats,
                                 rename ? node->repls : NULL, ctx->fold, ctx->file,
                                 node->loc, err);
    if (rc != WX_OK)
        return rc;
    rc = net_flatten(ctx, node->body, src, out, err);
    if (rc == WX_OK) {
        if (node->kind == EXP_HIDE)
            rc = net_hide(ctx, out, &m, node->all_but, err);
        else if (node->kind == EXP_CUT)
            rc = net_cut(ctx, out, &m, node->all_but, node->keep_term, err);
        else
            rc = net_rename(ctx, out, &m, err);
    }
    label_match_free(&m);
    return rc;
}

static int flatten_par(struct net_ctx *ctx, const struct exp_node *node,
                       const struct net_leaf_source *src, struct network *out,
                       struct wx_error *err)
{
    size_t n = node->n_ops;
    if (n == 0)
        return wx_fail(err, WX_EINPUT, ctx->file, node->loc.line, node->loc.col,
                       "parallel composition without operands");
    struct network *ops = calloc(n, sizeof *ops);
    if (!ops)
        return wx_fail(err, WX_ESYSTEM, ctx->file, node->loc.line, node->loc.col,
                       "out of memory");
    for (size_t i = 0; i < n; i++) {
        int rc = net_flatten(ctx, node->ops[i], src, &ops[i], err);
        if (rc == WX_OK && ops[i].prio_n) {
            net_discard(&ops[i]);
            rc = wx_fail(err, WX_EINPUT, ctx->file, node->ops[i]->loc.line, node->ops[i]->loc.col,
                         "not supported yet: a prio inside a parallel composition (only a prio "
                         "above every parallel operator is applied)");
        }
        if (rc != WX_OK) {
            net_discard_all(ops, i);
            free(ops);
            return rc;
        }
    }
    int rc = node->kind == EXP_PAR_VECTORS   ? net_par_vectors(ctx, ops, n, node, out, err)
             : node->kind == EXP_PAR_COMM    ? net_par_comm(ctx, ops, node, out, err)
                                             : net_par_general(ctx, ops, n, node, out, err);
    free(ops); /* the transforms consumed the operands */
    return rc;
}

static int flatten_node(struct net_ctx *ctx, const struct exp_node *root,
                        const struct net_leaf_source *src, struct network *out,
                        struct wx_error *err)
{
    switch (root->kind) {
    case EXP_LEAF:
        return src->load(src->user, ctx, root, ctx->file, out, err);
    case EXP_HIDE:
    case EXP_CUT:
    case EXP_RENAME:
        return flatten_match(ctx, root, src, out, err);
    case EXP_PAR_VECTORS:
    case EXP_PAR_GENERAL:
    case EXP_PAR_COMM:
        return flatten_par(ctx, root, src, out, err);
    case EXP_PRIO: {
        if (root->mode > EXP_MODE_PARTIAL)
            return wx_fail(err, WX_EINPUT, ctx->file, root->loc.line, root->loc.col,
                           "matching mode \"%s\" is not allowed for prio", mode_name(root->mode));
        int rc = net_flatten(ctx, root->body, src, out, err);
        return rc == WX_OK ? net_prio(ctx, out, root, err) : rc;
    }
    }
    return wx_fail(err, WX_ESYSTEM, ctx->file, root->loc.line, root->loc.col,
                   "internal error: unknown EXP node kind %d", (int)root->kind);
}

/* The construct of node n as `warpex info` names it. */
static void construct_name(const struct exp_node *n, char *buf, size_t len)
{
    static const char *const par_name[] = {"gate par", "label par"};
    if (n->form) {
        snprintf(buf, len, "%s", n->form);
        return;
    }
    switch (n->kind) {
    case EXP_LEAF:
        snprintf(buf, len, "leaf \"%s\"", n->path);
        return;
    case EXP_HIDE:
    case EXP_CUT:
        snprintf(buf, len, "%s %s%s", mode_name(n->mode), n->kind == EXP_HIDE ? "hide" : "cut",
                 n->all_but ? " all but" : "");
        return;
    case EXP_RENAME:
        snprintf(buf, len, "%s rename", mode_name(n->mode));
        return;
    case EXP_PAR_VECTORS:
        snprintf(buf, len, "%s using vectors", par_name[n->label_mode]);
        return;
    case EXP_PAR_GENERAL:
        snprintf(buf, len, "%s", par_name[n->label_mode]);
        return;
    case EXP_PAR_COMM:
        snprintf(buf, len, "%s", n->ccs ? "CCS A | B" : "mCRL A || B");
        return;
    case EXP_PRIO:
        snprintf(buf, len, "%s prio", mode_name(n->mode));
        return;
    }
    snprintf(buf, len, "?");
}

/* One line of the flattening log: where, what, and the network after it. */
static void log_step(const struct net_ctx *ctx, const struct exp_node *n, const struct network *net)
{
    char what[256];
    construct_name(n, what, sizeof what);
    uint32_t sync = 0, below = 0;
    for (uint32_t r = 0; r < net->n_rules; r++)
        sync += net->rule_start[r + 1] - net->rule_start[r] > 1;
    for (uint32_t l = 0; l < net->prio_n; l++)
        below += net->prio_above_start[l + 1] > net->prio_above_start[l];
    fprintf(ctx->log, "  %*s%s:%d:%d %s: %u component%s, %u rule%s (%u synchronising)",
            2 * (ctx->depth - 1), "", ctx->file ? ctx->file : "?", n->loc.line, n->loc.col, what,
            net->n_comps, net->n_comps == 1 ? "" : "s", net->n_rules, net->n_rules == 1 ? "" : "s",
            sync);
    if (n->kind == EXP_PRIO)
        fprintf(ctx->log, ", %u label%s below others", below, below == 1 ? "" : "s");
    fputc('\n', ctx->log);
}

/* One parse bounds the depth of one file's tree, but a leaf may include
 * another .exp file: the levels are counted across inclusions, so the
 * recursion stays bounded whatever the files. */
int net_flatten(struct net_ctx *ctx, const struct exp_node *root,
                const struct net_leaf_source *src, struct network *out,
                struct wx_error *err)
{
    if (ctx->depth >= WX_EXP_MAX_DEPTH)
        return wx_fail(err, WX_EINPUT, ctx->file, root->loc.line, root->loc.col,
                       "behaviour nested too deeply (more than %d levels, counting the "
                       ".exp files included)", WX_EXP_MAX_DEPTH);
    ctx->depth++;
    int rc = flatten_node(ctx, root, src, out, err);
    if (rc == WX_OK && ctx->log)
        log_step(ctx, root, out);
    ctx->depth--;
    return rc;
}
