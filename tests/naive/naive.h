/*
 * naive.h -- the independent oracle: explores an EXP network directly on its
 * syntax tree (parser/exp_ast.h) by structural operational semantics.
 *
 * Nothing here is shared with network/ (flattening), network/image or
 * explorer/: the semantics of every operator is implemented again, from the
 * text of docs/formats.md (EXP operators; and CADP's exp(LOCAL)
 * page it paraphrases), as simply as possible.  Simple over fast: meant for
 * product spaces up to ~10^5 states.
 *
 * States.  A leaf's state is a state of its LTS; hide/rename/cut have the
 * state of their body; a par node has the tuple of its operands' states.
 * Hence a product state is the vector of the leaf states, leaves numbered
 * left to right; each node covers a contiguous range of that vector.  The
 * initial state takes every leaf's own initial state (which may be non-zero).
 *
 * Transitions of a node are computed on the fly from its children's:
 *   leaf     its LTS transitions;
 *   hide     labels matching (or, with "all but", matching none of) the
 *            patterns become the hidden label;
 *   cut      such transitions are removed;
 *   rename   the first rule whose left side matches rewrites the label
 *            (gate / total / single / multiple; POSIX basic regexes with
 *            back-references \1..\9 in the right side);
 *   par using vectors:  a vector fires when every non-"_" operand has a
 *            transition whose label matches its element (label mode: equal
 *            label; gate mode: equal gate, all participants carrying the
 *            same offers, result = R followed by those offers); hidden (and
 *            --rate/--prob asynchronous) transitions interleave; other
 *            visible transitions are blocked;
 *   prio     [mode] prio X1 > X2 > ... in B: each rule relates every
 *            label of B in Xi to every label of B in Xj (i < j; a set is
 *            the labels matching one of its patterns in the mode, or with
 *            "all but" none); "labels of B" are B's static alphabet, the
 *            labels B's transitions can carry whether or not a reachable
 *            state shows them (as CADP's exp.open checks the order before
 *            exploring): a leaf's are the labels of its LTS reachable from
 *            its initial state in the LTS alone; hide / cut / rename map
 *            them; a vector par has its operands' hidden and asynchronous
 *            labels and each vector result whose elements all match labels
 *            of their operands' alphabets (gate mode: with equal offers); a
 *            generalised par its operands' asynchronous labels and each
 *            label L for which some participant set has L in every
 *            member's alphabet; CCS | / mCRL || both operands' labels and
 *            every communication of one label of each; a prio its body's.
 *            The relation, closed transitively, must
 *            leave no label above itself (else WX_EINPUT).  In a state of B
 *            a transition fires unless B has another, in the same state,
 *            whose label is above its label.  The hidden label takes part
 *            like any label matched by a pattern.  Any position: under a
 *            par, in another prio (computed on the sub-behaviour's states);
 *   generalised par (LOTOS ||, |||, |[G]| included): for a visible label L
 *            the allowed sets of participating operands are the union of:
 *            all operands when gate(L) is the termination gate; all operands
 *            for "all" or a global element L; every N-subset for a global
 *            L#N; the operands listing L (without degree) for a local L;
 *            every N-subset of the operands listing L#N for a local L#N;
 *            {k} for every operand k whose global and local interfaces name
 *            no element for L.  A set fires when each member can do exactly
 *            label L; the result is L.  Elements name gates in gate mode and
 *            full labels in label mode.
 *
 * Conventions where the texts are silent (documented choices):
 *   - the hidden label is never hidden again, cut or renamed (branching
 *     bisimulation is a congruence for hide/cut/rename in CADP, which would
 *     fail if a hidden step could be cut or made visible); every other
 *     label, the termination label included, is an ordinary label for
 *     hide/cut/rename;
 *   - a label renamed to exactly the hidden string is hidden;
 *   - in gate mode, the offers of a label are the text after its gate
 *     (the leading blank included), compared byte for byte;
 *   - multiple rename replaces non-overlapping leftmost-longest matches from
 *     left to right (an empty match copies one character and moves on).
 *
 * Counts: states = distinct reachable vectors, transitions = distinct
 * (source, label text, target) triples, deadlocks = reachable states without
 * any outgoing transition.
 *
 * Reentrant (no global state; concurrent calls need their own leaf
 * callbacks to be thread-safe); allocates only during the call and frees
 * everything before returning.
 */
#ifndef WX_TESTS_NAIVE_H
#define WX_TESTS_NAIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "parser/exp_ast.h"
#include "util/error.h"

/* An LTS as the oracle sees it: states 0 .. n_states-1, any initial state,
 * transitions in any order (duplicates allowed), labels as strings. */
struct naive_lts {
    uint32_t n_states, initial;
    size_t n_trans;
    uint32_t *src, *dst;   /* n_trans each */
    char **label;          /* n_trans NUL-terminated strings, owned */
};

void naive_lts_free(struct naive_lts *l);

/* Reads an Aldebaran file with the oracle's own small reader (leftmost /
 * rightmost quote rule for quoted labels).  Errors: WX_EINPUT with
 * file:line, WX_ESYSTEM when the file cannot be opened. */
int naive_read_aut(const char *path, struct naive_lts *out, struct wx_error *err);

/* Writes l as an .aut file (labels always quoted except the bare "i"). */
int naive_write_aut(const char *path, const struct naive_lts *l, struct wx_error *err);

/* Supplies the LTS of a leaf.  `path` is the leaf name as written in the
 * EXP file.  Return WX_OK and fill *out, or a WX_E* code with err filled. */
typedef int (*naive_leaf_fn)(void *ctx, const char *path, struct naive_lts *out,
                             struct wx_error *err);

/* Parses an included "x.exp" leaf (e.g. exp_parse_file). */
typedef int (*naive_parse_fn)(const char *path, struct exp_file **out, struct wx_error *err);
typedef void (*naive_free_fn)(struct exp_file *f);

struct naive_options {
    const char *hidden;       /* NULL: language default ("i", "t", "tau") */
    const char *termination;  /* NULL: language default ("exit", "delta", none) */
    enum exp_lang lang;       /* reference language (defaults above, case) */
    bool case_sensitive;      /* false: LOTOS/CCS/CSP fold operator labels up */
    bool rate, prob;          /* "rate ..." / "prob ..." labels always async */
    uint64_t max_states;      /* 0: no limit; else WX_ELIMIT beyond it */
    /* Leaves.  leaf == NULL: naive_read_aut on the path resolved against the
     * working directory, then against base_dir (extension-less = .aut). */
    naive_leaf_fn leaf;
    void *leaf_ctx;
    const char *base_dir;     /* may be NULL */
    naive_parse_fn parse;     /* NULL: "x.exp" leaves are an error */
    naive_free_fn free_file;
    FILE *aut_out;            /* non-NULL: the product is written as .aut */
    /* non-NULL: called once per distinct label of a reachable transition
     * (hidden = it is the hidden label; count = distinct transitions with
     * that label), after the exploration. */
    void (*label_fn)(void *ctx, const char *label, bool hidden, uint64_t count);
    void *label_ctx;
};

struct naive_result {
    uint64_t states, transitions, deadlocks;
    uint32_t depth;           /* BFS levels below the initial state */
    uint32_t n_leaves;        /* length of the state vector */
};

/* Explores the product of the tree rooted at `root`.  Errors: WX_EINPUT for
 * an ill-formed tree (bad regex, vector arity, unknown leaf), WX_ELIMIT past
 * max_states (counts so far in *res), WX_ESYSTEM on I/O failure or OOM. */
int naive_explore(const struct exp_node *root, const struct naive_options *opt,
                  struct naive_result *res, struct wx_error *err);

/* Convenience: the whole file (root + header language; a bare "behaviour"
 * header means LOTOS; opt->lang, when not NONE, overrides the header). */
int naive_explore_file(const struct exp_file *f, const struct naive_options *opt,
                       struct naive_result *res, struct wx_error *err);

#endif
