/*
 * exp_int.h -- internals shared by the EXP scanner (exp.l), grammar (exp.y)
 * and AST helpers (exp_ast.c).  Not for use outside parser/.
 *
 * Ownership rules of the builders below: every function that takes a heap
 * pointer argument takes ownership of it, also when it fails (it frees what
 * it could not store).  A builder returns 0 on success and -1 when out of
 * memory.  Grammar actions rely on this so that a failed action never leaks
 * and never double-frees.
 */
#ifndef WX_EXP_INT_H
#define WX_EXP_INT_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

#include "exp_ast.h"

/* Most blocks the scanner holds at once: its state, the buffer stack and one
 * buffer (the input itself is the driver's). */
#define EXP_SCAN_MEM 6

/* State of one parse, shared by scanner and parser (the scanner's "extra"). */
struct exp_pstate {
    const char *name;          /* file name used in messages */
    struct wx_error *err;      /* first error wins: see exp_perr */
    void *scanner;             /* the reentrant flex scanner (yyscan_t) */
    int line, col;             /* position of the next unread byte, 1-based */
    enum exp_lang lang;        /* set by the header before the behaviour */
    struct exp_pairlist *comm; /* mCRL comm declarations a | b ... */
    struct exp_strlist *comm_res; /* ... = c; NULL when none */
    bool has_header;
    struct exp_node *root;     /* set when the whole file was parsed */
    /* Scanner memory, tracked so that a flex fatal error (only possible
     * when out of memory while setting up) can release it: see exp.l. */
    void *scan_mem[EXP_SCAN_MEM];
    jmp_buf *fatal;            /* where a flex fatal error jumps to */
};

/* Records an input error (WX_EINPUT) at line:col unless an error is already
 * recorded: the first error found is the one reported.  Returns WX_EINPUT. */
int exp_perr(struct exp_pstate *ps, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records "out of memory" (WX_ELIMIT) at line:col, same first-wins rule. */
int exp_poom(struct exp_pstate *ps, int line, int col);

/* A growable list of owned strings; entries may be NULL ("_" in vectors). */
struct exp_strlist {
    size_t n;
    char **v;
};

/* Left and right sides of rename rules, same length. */
struct exp_pairlist {
    struct exp_strlist l, r;
};

/* Vectors of a "par using". */
struct exp_veclist {
    size_t n;
    struct exp_vector *v;
};

/* Operands of a par; locals/has_local are filled for every operand (empty
 * interface, false when none was written). */
struct exp_oplist {
    size_t n;
    struct exp_node **ops;
    struct exp_iface *locals;
    bool *has_local;
};

/* Allocates a zeroed node of the given kind (mode GATE); NULL on OOM. */
struct exp_node *exp_node_new(enum exp_kind kind, int line, int col);

/* Heap-allocated empty lists; NULL on OOM. */
struct exp_strlist *exp_strlist_new(void);
struct exp_pairlist *exp_pairlist_new(void);
struct exp_veclist *exp_veclist_new(void);
struct exp_oplist *exp_oplist_new(void);
struct exp_iface *exp_iface_new(void);
struct exp_vector *exp_vector_new(void);

void exp_strlist_free(struct exp_strlist *l);
void exp_pairlist_free(struct exp_pairlist *p);
void exp_veclist_free(struct exp_veclist *l);
void exp_oplist_free(struct exp_oplist *l);
void exp_iface_free(struct exp_iface *i);      /* frees the struct too */
void exp_iface_clear(struct exp_iface *i);     /* frees the contents only */
void exp_vector_free(struct exp_vector *v);    /* frees the struct too */

/* Appenders (take ownership of the pointer arguments, see above). */
int exp_strlist_push(struct exp_strlist *l, char *s);
int exp_pairlist_push(struct exp_pairlist *p, char *lhs, char *rhs);
int exp_iface_push(struct exp_iface *i, char *label, int degree, int line, int col);
/* Moves *v's contents into the list and frees the struct v. */
int exp_veclist_push(struct exp_veclist *l, struct exp_vector *v);
/* Appends operand op with local interface *local (moved; NULL = none). */
int exp_oplist_push(struct exp_oplist *l, struct exp_node *op, struct exp_iface *local);
/* Appends all of src's entries to dst and frees src. */
int exp_oplist_append(struct exp_oplist *dst, struct exp_oplist *src);

/* Moves the list's array into *n / *v, leaving the list empty, then frees
 * the list struct. */
void exp_strlist_take(struct exp_strlist *l, size_t *n, char ***v);

/* Duplicates s[0..len) as a NUL-terminated heap string; NULL on OOM. */
char *exp_strndup(const char *s, size_t len);

/* Decodes the body of a quoted EXP string (the text between the quotes) with
 * CADP's escapes: \a \b \f \r \t \v \' \" \? \\ become the character they
 * name; every other backslash (\n, octal, hex, \( ...) is kept literally.
 * Returns a heap string or NULL on OOM. */
char *exp_unescape(const char *body, size_t len);

/* ---- operators of the reference languages, as generic nodes (exp_sugar.c).
 * Each takes ownership of its arguments (also on failure) and returns the
 * new node, or NULL when out of memory.  Labels are matched as gates (the
 * label up to its offers), written literally: the helpers escape them. */

/* The CCS co-name of a label: "'a" for "a" and "a" for "'a" (heap). */
char *exp_ccs_coname(const char *label);
/* CCS  B \ {L, ...}  = gate cut of each L and its co-name. */
struct exp_node *exp_ccs_restrict(struct exp_node *body, struct exp_strlist *ls,
                                  int line, int col);
/* CSP  B \ {G, ...}  = gate hide G, ... in B end hide. */
struct exp_node *exp_csp_hide(struct exp_node *body, struct exp_strlist *ls,
                              int line, int col);
/* CCS  B [N1/O1, ...] (l: new names, r: old names; with co-names) and CSP
 * B [[O1 <- N1, ...]] (l: old, r: new): gate renames, old -> new. */
struct exp_node *exp_ccs_relabel(struct exp_node *body, struct exp_pairlist *p,
                                 int line, int col);
struct exp_node *exp_csp_rename(struct exp_node *body, struct exp_pairlist *p,
                                int line, int col);
/* CSP  B1 [{A} || {B}] B2  = par A&B in (cut all but A in B1) ||
 * (cut all but B in B2) end par (p is the PAR_GENERAL node to fill), where
 * the two cuts keep the termination gate, so that it synchronises as the
 * manual requires. */
int exp_csp_alpha_par(struct exp_node *p, struct exp_strlist *a, struct exp_strlist *b,
                      struct exp_node *l, struct exp_node *r);
/* A CCS or mCRL (comm, res: the declarations, NULL when none) binary
 * parallel composition node of l and r.  The comm lists are copied. */
struct exp_node *exp_comm_par(bool ccs, const struct exp_pairlist *comm,
                              const struct exp_strlist *res,
                              struct exp_node *l, struct exp_node *r, int line, int col);

/* ---- "hide|cut|rename using FILE" (exp_using.c): the file is resolved
 * against the directory of the .exp file (ps->name).  A file that cannot be
 * read is an error at line:col of the .exp file; a malformed line is an
 * error at its own file:line:col.  Return 0, or -1 after recording the
 * error. */
/* hide / cut files: first line "hide" or "cut" (as `kw`), optionally
 * followed by "all but"; then one pattern per line. */
int exp_using_patterns(struct exp_pstate *ps, const char *file, const char *kw, int line,
                       int col, struct exp_strlist **out, bool *all_but);
/* rename files (kw "rename"): first line "rename", then one
 * "PATTERN -> REPLACEMENT" rule per line. */
int exp_using_pairs(struct exp_pstate *ps, const char *file, const char *kw, int line,
                    int col, struct exp_pairlist **out);

/* Priority rules (exp_prio.c); each takes ownership of its arguments, also
 * when it fails (NULL / -1: out of memory). */
struct exp_prio_rule *exp_prio_rule_push(struct exp_prio_rule *r, bool all_but,
                                         struct exp_strlist *l, int line, int col);
struct exp_prio_rule *exp_prio_rule_join(struct exp_prio_rule *r, struct exp_prio_rule *one);
const char *exp_prio_rule_self(const struct exp_prio_rule *r);
struct exp_prio_rule *exp_prio_chain(struct exp_pstate *ps, struct exp_prio_rule *r,
                                     struct exp_prio_rule *one, int line, int col);
int exp_prio_node_push(struct exp_node *n, struct exp_prio_rule *r);
void exp_prio_rule_free(struct exp_prio_rule *r);
void exp_prio_rules_clear(size_t n, struct exp_prio_rule *rules);

/* Node builders for the grammar's actions (exp_build.c).  Those that
 * return NULL have recorded the error in ps; they consume their list and
 * string arguments. */
/* NULL, or why a file name cannot be a leaf. */
const char *exp_leaf_problem(const char *path, bool quoted);
/* Completes binary parallel node p of l and r (LOTOS/CSP as PAR_GENERAL,
 * CCS '|' and mCRL '||' as PAR_COMM); -1 (l and r freed) when out of memory. */
int exp_binary_par(struct exp_pstate *ps, struct exp_node *p, struct exp_node *l,
                   struct exp_node *r);
/* Moves operand list l into p (keep_locals: PAR_GENERAL's interfaces). */
void exp_take_ops(struct exp_node *p, struct exp_oplist *l, bool keep_locals);
/* A vectors par node, every vector's arity checked. */
struct exp_node *exp_vectors_node(struct exp_pstate *ps, int label_mode, struct exp_veclist *v,
                                  struct exp_oplist *ops, struct exp_loc loc);
/* Does an unquoted file name end with an extension the manual allows after 'using'? */
bool exp_using_ext_ok(const char *file);
/* The head of "[mode] hide|cut|rename using FILE in" (frees file). */
struct exp_node *exp_using_match(struct exp_pstate *ps, enum exp_kind kind, enum exp_mode mode,
                                 char *file, struct exp_loc floc, struct exp_loc loc);

#endif
