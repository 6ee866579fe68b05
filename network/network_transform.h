/*
 * network_transform.h -- the EXP operators as transforms on flat networks.
 *
 * EXP's meaning is built bottom-up: a leaf LTS becomes a one-component
 * network; every operator maps networks to a network.  All networks of one
 * build share one label table and one hidden label, described by a
 * struct net_ctx; the label table belongs to the build, not to the
 * intermediate networks (free those with net_discard(); only the finished
 * network takes ownership of the table, see parser/network_build.c).
 *
 * Each operator works on rule *results*, i.e. on the visible alphabet of its
 * operand network (network.h: a rule's result is the label the product
 * transition carries):
 *   net_leaf   component c with label set A  ->  rules {(c,l)} -> l, l in A;
 *   net_hide   matching visible results become the hidden label;
 *   net_cut    rules with a matching visible result are removed;
 *   net_rename matching visible results are rewritten (first rule wins);
 *   net_par_vectors, net_par_general   combine operand rules into rules whose
 *              participants are the union of the operands' participants.
 * The hidden label is never matched by hide, cut or rename: renaming or
 * cutting tau would break the congruence of weak equivalences that CADP's
 * manual promises for these operators (renaming a visible label *to* the
 * hidden text, on the other hand, hides it).
 *
 * Parallel operators: rules whose result is hidden always interleave (they
 * are passed through unchanged); with ctx->rate / ctx->prob, rules whose
 * result is a stochastic label ("rate R", "L; rate R", "prob P", "L; prob P",
 * R/P a number) also always interleave and match no vector or interface.
 *
 * Errors are WX_EINPUT located at the construct (ctx->file, AST location),
 * WX_ELIMIT when a result would exceed ctx->max_rules rules (or 2^32-1
 * participants), WX_ESYSTEM when out of memory.  A failed transform has
 * freed its operand networks; an in-place transform leaves *net freed too.
 */
#ifndef WX_NETWORK_TRANSFORM_H
#define WX_NETWORK_TRANSFORM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "exp_tree.h"
#include "label_match.h"
#include "network.h"

#define NET_MAX_RULES_DEFAULT (1u << 26) /* rules in any one network */

struct net_ctx {
    struct strtab *labels;   /* shared by every network of the build */
    uint32_t hidden;         /* id of the hidden label */
    const char *termination; /* termination gate ("exit"); NULL = none */
    bool fold;               /* fold EXP labels to upper case (LOTOS/CCS/CSP) */
    bool rate, prob;         /* stochastic labels always interleave */
    uint64_t max_rules;      /* explosion guard; 0 = NET_MAX_RULES_DEFAULT */
    const char *file;        /* EXP file that errors are located in */
    FILE *log;               /* NULL, or where net_flatten writes one line
                                per operator (`warpex info`) */
    int depth;               /* tree levels being flattened, counting those of
                                the including files: net_flatten refuses more
                                than WX_EXP_MAX_DEPTH (its recursion bound) */
};

/* Sets the language-dependent fields (hidden label text, termination gate,
 * folding) of ctx for reference language `lang` (EXP_LANG_NONE with a
 * "behaviour" header means LOTOS), creating ctx->labels when NULL.  `hidden`
 * overrides the language's hidden label when not NULL.  0 or WX_ESYSTEM. */
int net_ctx_init(struct net_ctx *ctx, enum exp_lang lang, bool has_header,
                 const char *hidden, bool case_sensitive, struct wx_error *err);

/* Frees everything net owns except the shared label table. */
void net_discard(struct network *net);

/* Is s[0..len) the termination gate of ctx (case-insensitive when labels
 * are folded)?  False when the language has none. */
bool net_is_termination(const struct net_ctx *ctx, const char *s, size_t len);

/* Is label id a stochastic label that interleaves under ctx's options? */
bool net_is_stochastic(const struct net_ctx *ctx, uint32_t label);

/* Does label text s read "KW N" or "LABEL; KW N" (KW "rate" or "prob", N a
 * number or a fraction), whatever the options? */
bool net_stochastic_text(const char *s, const char *kw);

/* One component: takes *l (a finished LTS; lts.h), prunes it to the states
 * reachable from `initial`, renumbering initial to 0, and adds one
 * single-participant rule per label it uses. */
int net_leaf(struct net_ctx *ctx, struct lts *l, uint32_t initial,
             const char *name, struct network *out, struct wx_error *err);

/* In place.  `all_but`: hide (cut) the visible results matching none. */
int net_hide(struct net_ctx *ctx, struct network *net,
             const struct label_match *m, bool all_but, struct wx_error *err);
/* net_cut with `keep_term` never cuts results whose gate is the termination
 * gate. */
int net_cut(struct net_ctx *ctx, struct network *net, const struct label_match *m,
            bool all_but, bool keep_term, struct wx_error *err);
/* [mode] prio X1 > X2 ... (node): the priority relation on net's results
 * (network.h); WX_EINPUT when it is cyclic or net already has one. */
int net_prio(struct net_ctx *ctx, struct network *net, const struct exp_node *node,
             struct wx_error *err);
int net_rename(struct net_ctx *ctx, struct network *net,
               const struct label_match *m, struct wx_error *err);

/* [gate|label] par using vecs in ops[0] || ... || ops[n-1] end par.
 * Consumes ops[0..n) (their components move to *out in order). */
int net_par_vectors(struct net_ctx *ctx, struct network *ops, size_t n,
                    const struct exp_node *par, struct network *out,
                    struct wx_error *err);

/* [gate|label] par [all | S in] [S1 ->] B1 || ... end par (also LOTOS ||,
 * |||, |[G]| as the parser desugars them).  Consumes ops[0..n). */
int net_par_general(struct net_ctx *ctx, struct network *ops, size_t n,
                    const struct exp_node *par, struct network *out,
                    struct wx_error *err);

/* CCS  ops[0] | ops[1]  and mCRL  ops[0] || ops[1]  (par->ccs; mCRL's comm
 * declarations in par->pats / repls / comm_res): interleaving plus binary
 * communication (net_comm.c).  Consumes ops[0..2). */
int net_par_comm(struct net_ctx *ctx, struct network *ops, const struct exp_node *par,
                 struct network *out, struct wx_error *err);

/* Where the leaves of a tree come from.  `load` builds the network of leaf
 * `node` (node->path as written) of the EXP file `exp_file`, e.g. with
 * net_leaf, or by flattening an included .exp. */
struct net_leaf_source {
    int (*load)(void *user, struct net_ctx *ctx, const struct exp_node *node,
                const char *exp_file, struct network *out, struct wx_error *err);
    void *user;
};

/* Flattens the tree `root` of EXP file ctx->file bottom-up.  The result is
 * not normalised and does not own ctx->labels. */
int net_flatten(struct net_ctx *ctx, const struct exp_node *root,
                const struct net_leaf_source *src, struct network *out,
                struct wx_error *err);

#endif
