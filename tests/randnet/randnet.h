/*
 * randnet.h -- random EXP networks for differential testing, and the small
 * EXP-tree toolkit they are built with.
 *
 * 1. Tree construction (rn_leaf, rn_hide, ...): builds parser/exp_ast.h trees
 *    in memory, with the same layout the parser produces (all strings
 *    heap-allocated), freed with exp_node_free (parser/exp_ast.h).  Hand tests use these too.
 * 2. rn_print: EXP 2.0 text for a tree.  Where several spellings have one
 *    meaning (LOTOS ||, |||, |[G]| vs. generalised par; LOTOS hide vs. gate
 *    hide; "*" vs. "||" in vectors; IDF vs. quoted labels; escaped vs. raw
 *    backslashes) a style seed picks one, so the parser sees all of them.
 * 3. randnet_generate: from a seed, random component LTSs (1-6 states,
 *    offers, nondeterminism with >= 3 targets, hidden steps, unreachable and
 *    non-zero initial states, duplicate lines) written as .aut files into a
 *    fresh temporary directory, and a random .exp composing them (vector
 *    par in gate/label mode, generalised par with global/local interfaces
 *    and #N, LOTOS operators, hide/cut/rename in every mode, sometimes a
 *    subtree in its own .exp file included as a leaf).  With params.prio,
 *    about one seed in three without rate labels puts a prio (gate / total / partial, 1-3
 *    rules of 2-3 sets, patterns from the body's labels, "all but", the
 *    hidden label) above every par, acyclic on the body's labels, and
 *    sometimes a hide / rename / cut above it; a few put instead a form
 *    warpex refuses (rn->prio_refused): cyclic rules, a prio in a prio, a
 *    prio under a par.  Some seeds use the
 *    hidden label "tau" (with "i" visible), stochastic "rate" labels, or a
 *    LOTOS header (labels folded to upper case); with params.sugar, one
 *    seed in nine is written in the CCS, CSP or mCRL syntax instead
 *    (randsugar.c).  The product is kept below
 *    params.max_states (checked with the naive explorer).
 *
 * Deterministic: the same seed and params give the same files, byte for
 * byte.  Not thread-safe (uses no globals, but rn_* share nothing either:
 * one generator per thread is fine).
 */
#ifndef WX_TESTS_RANDNET_H
#define WX_TESTS_RANDNET_H

#include <stdbool.h>
#include <stdint.h>

#include "parser/exp_ast.h"
#include "../naive/naive.h"

/* ---- tree construction (all strings copied; children adopted) ---- */
struct exp_node *rn_leaf(const char *path);
struct exp_node *rn_hide(enum exp_mode mode, bool all_but, size_t n, const char *const *pats,
                         struct exp_node *body);
struct exp_node *rn_cut(enum exp_mode mode, bool all_but, size_t n, const char *const *pats,
                        struct exp_node *body);
struct exp_node *rn_rename(enum exp_mode mode, size_t n, const char *const *lhs,
                           const char *const *rhs, struct exp_node *body);
/* Vector par over n_ops operands; add vectors with rn_add_vector. */
struct exp_node *rn_par_vectors(bool label_mode, size_t n_ops, struct exp_node *const *ops);
/* comps: n_ops entries, NULL = "_". */
void rn_add_vector(struct exp_node *par, const char *const *comps, const char *result);
/* Generalised par (no interfaces yet); add elements below.  degree -1 = none. */
struct exp_node *rn_par_general(bool label_mode, bool all, size_t n_ops,
                                struct exp_node *const *ops);
void rn_add_global(struct exp_node *par, const char *label, int degree);
void rn_add_local(struct exp_node *par, size_t op, const char *label, int degree);
/* LOTOS forms, as the EXP manual defines them. */
struct exp_node *rn_lotos_sync(struct exp_node *a, struct exp_node *b);         /* || */
struct exp_node *rn_lotos_interleave(struct exp_node *a, struct exp_node *b);   /* ||| */
struct exp_node *rn_lotos_par(size_t n, const char *const *gates, struct exp_node *a,
                              struct exp_node *b);                               /* |[G]| */
/* [mode] prio ... in body end prio: start each rule with rn_add_prio_rule,
 * then add its sets X1 > X2 > ... in order with rn_add_prio_set. */
struct exp_node *rn_prio(enum exp_mode mode, struct exp_node *body);
void rn_add_prio_rule(struct exp_node *prio);
void rn_add_prio_set(struct exp_node *prio, bool all_but, size_t n, const char *const *pats);

/* EXP text of a tree (malloc'd, NUL-terminated). */
char *rn_print(const struct exp_node *n, uint64_t style_seed);

/* ---- the generator ---- */
struct randnet_params {
    uint32_t max_states;   /* product bound (default 5000) */
    uint32_t max_leaves;   /* leaf occurrences (default 6; doubled for seeds
                              divisible by 5) */
    uint32_t max_depth;    /* operator nesting (default 4) */
    bool avoid_ambiguous;  /* default true: stay where the semantics texts
                              are explicit (see randnet.c) */
    const char *tmp_parent;/* directory for the temp dir; NULL = $TMPDIR or /tmp */
    bool prio;             /* default false: also draw prio nodes (then the
                              networks of some seeds change, see above) */
    bool sugar;            /* default false: one seed in nine is written in
                              the CCS, CSP or mCRL syntax instead
                              (randsugar.c; those seeds change) */
};

struct randnet {
    uint64_t seed;
    char dir[512];         /* temp directory holding the files */
    char exp_path[600];    /* dir/randnet.exp */
    char *exp_text;
    struct exp_node *root; /* the same tree, built in memory */
    size_t n_comps;        /* distinct .aut files */
    struct naive_lts *comps;
    char **comp_names;     /* leaf names as written in the .exp (file names) */
    uint32_t attempts;     /* candidates drawn before one fit max_states */
    const char *hidden;    /* hidden label of this network: "i", or "tau"
                              for some seeds (then "i" is a visible label);
                              explore with net_options.hidden = this */
    enum exp_lang lang;    /* LOTOS for some seeds: the file has a LOTOS
                              header, leaf labels are upper case and the
                              operators' labels are written in lower case
                              (folded by the reader); explore with
                              naive_options.lang = this */
    bool rate;             /* leaves use "rate R" / "L; rate R" labels:
                              explore with net_options.rate = true */
    bool has_prio;         /* a prio node (above every par) */
    bool prio_refused;     /* a prio form warpex refuses with exit 2: cyclic
                              rules, a prio inside a prio or under a par */
    bool prio_cyclic;      /* cyclic rules: the naive explorer refuses too */
    char *header;          /* sugar seeds: the file's header (language,
                              mCRL comm list), else NULL */
    size_t n_comm;         /* mCRL: comm comm[3i] | comm[3i+1] = comm[3i+2] */
    char **comm;
    size_t n_incl;         /* subtrees written to their own "x.exp" file and
                              included as a leaf (the tree keeps them inline) */
    struct exp_node **incl;
    char **incl_names;
};

/* Draws a network.  Returns WX_OK, or WX_ESYSTEM when files cannot be
 * written, or WX_ELIMIT when no candidate fits after many attempts. */
int randnet_generate(uint64_t seed, const struct randnet_params *p, struct randnet *out,
                     struct wx_error *err);

/* naive_leaf_fn resolving leaf names against r->comps in memory. */
int randnet_leaf(void *r, const char *path, struct naive_lts *out, struct wx_error *err);

/* Frees memory; removes the files and the directory when remove_files. */
void randnet_free(struct randnet *r, bool remove_files);

#endif
