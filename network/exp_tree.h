/*
 * exp_tree.h -- the operator tree of an EXP 2.0 composition: the input of
 * the network transforms (network_transform.h, label_match.h), which give
 * each operator its meaning.
 *
 * The parser builds it from text (parser/exp_ast.h: exp_parse_file, and
 * exp_file_free, which releases it), with no semantics attached: labels and
 * patterns are kept as written (strings already unescaped, identifiers as
 * text), LOTOS parallel operators are represented as EXP_PAR_GENERAL nodes
 * exactly as the EXP manual defines them (A || B = gate par all in A || B end
 * par; A ||| B = gate par A || B end par; A |[G]| B = gate par G in A || B end
 * par).  The types live here, below the parser, so that the layers go one
 * way: network/ reads trees, parser/ makes them.
 *
 * Ownership: an exp_file owns its whole tree; exp_file_free releases it.
 * All strings are NUL-terminated and heap-allocated.
 */
#ifndef WX_EXP_TREE_H
#define WX_EXP_TREE_H

#include <stdbool.h>
#include <stddef.h>

enum exp_lang { EXP_LANG_NONE, EXP_LANG_LOTOS, EXP_LANG_ELOTOS, EXP_LANG_CCS,
                EXP_LANG_CSP, EXP_LANG_MCRL };

enum exp_kind {
    EXP_LEAF,        /* path */
    EXP_HIDE,        /* mode, all_but, pats, body */
    EXP_CUT,         /* mode, all_but, pats, body */
    EXP_RENAME,      /* mode, pats -> repls, body */
    EXP_PAR_VECTORS, /* label_mode, vecs, ops */
    EXP_PAR_GENERAL, /* label_mode, global iface, ops with local ifaces */
    EXP_PAR_COMM,    /* ops[0] | ops[1] (CCS) or ops[0] || ops[1] (mCRL):
                        interleaving plus binary communication, see ccs,
                        pats/repls/comm_res */
    EXP_PRIO         /* mode, prio rules, body */
};

/* Label matching modes: hide/cut use GATE, TOTAL, PARTIAL; rename uses GATE,
 * TOTAL, SINGLE, MULTIPLE.  The default when none is written is GATE. */
enum exp_mode { EXP_MODE_GATE, EXP_MODE_TOTAL, EXP_MODE_PARTIAL,
                EXP_MODE_SINGLE, EXP_MODE_MULTIPLE };

struct exp_loc {
    int line, col;       /* 1-based position of the construct's first token */
};

struct exp_sync_el {     /* an interface element L or L#N */
    char *label;
    int degree;          /* -1 when no #N was written */
    struct exp_loc loc;
};

struct exp_iface {
    size_t n;
    struct exp_sync_el *el;
};

struct exp_vector {      /* E1 * ... * En -> R */
    size_t n;
    char **comp;         /* n entries; NULL stands for "_" */
    char *result;
    struct exp_loc loc;
};

/* One side of a priority rule: [all but] L1, ..., Ln (patterns matched in
 * the prio node's mode): the labels matching some Li, or with all_but those
 * matching none. */
struct exp_prio_set {
    bool all_but;
    size_t n;
    char **pats;
    struct exp_loc loc;
};

/* X1 > X2 > ... > Xn (n >= 2): every label of Xi has priority over every
 * label of Xj for i < j.  The rules of one prio node together, closed
 * transitively, must give a strict order on the body's labels. */
struct exp_prio_rule {
    size_t n;
    struct exp_prio_set *sets;
};

struct exp_node {
    enum exp_kind kind;
    struct exp_loc loc;

    char *path;                  /* EXP_LEAF: the file name as written */

    enum exp_mode mode;          /* HIDE, CUT, RENAME */
    bool all_but;                /* HIDE, CUT */
    bool keep_term;              /* CUT: never cut the termination gate (the
                                    operands of CSP [{A} || {B}]) */
    size_t n_pats;
    char **pats;                 /* HIDE, CUT: patterns; RENAME: left sides */
    char **repls;                /* RENAME: right sides (n_pats);
                                    PAR_COMM (mCRL): comm pats[i] | repls[i] */
    char **comm_res;             /* PAR_COMM (mCRL): = comm_res[i] (n_pats) */
    bool ccs;                    /* PAR_COMM: CCS (L with its co-name gives the
                                    hidden label) rather than mCRL comm */
    const char *form;            /* the operator as written when the parser
                                    built this node for another syntax (e.g.
                                    "LOTOS A |[G]| B", "CCS B \\ L"); a
                                    static string, NULL otherwise (names only
                                    the node in `warpex info`) */
    struct exp_node *body;       /* HIDE, CUT, RENAME, PRIO */
    size_t n_prio;
    struct exp_prio_rule *prio;  /* PRIO: its rules, in the order written */

    bool label_mode;             /* PAR_*: "label par" rather than "gate par" */
    size_t n_vecs;
    struct exp_vector *vecs;     /* PAR_VECTORS */
    bool global_all;             /* PAR_GENERAL: "par all in" (also LOTOS ||) */
    struct exp_iface global;     /* PAR_GENERAL: global interface (may be empty) */
    size_t n_ops;
    struct exp_node **ops;       /* PAR_*: operands, >= 1 (>= 2 for GENERAL) */
    struct exp_iface *locals;    /* PAR_GENERAL: n_ops local interfaces */
    bool *has_local;             /* PAR_GENERAL: n_ops, "S ->" written */
};

struct exp_file {
    char *name;                  /* file name used in messages */
    enum exp_lang lang;          /* from the header keyword */
    bool has_header;
    struct exp_node *root;
};

#endif
