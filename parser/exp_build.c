/*
 * exp_build.c -- the node builders the EXP grammar's actions call
 * (parser/exp.y): leaf names, binary parallel operators, operand lists,
 * vector pars and the "using FILE" heads.
 */
#include "exp_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Checks a file name used as a leaf; returns NULL or an error message. */
const char *exp_leaf_problem(const char *path, bool quoted)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');

    if (!*path)
        return "empty file name";
    if (dot && (!slash || dot > slash)) {
        if (!strcasecmp(dot, ".seq"))
            return "not supported yet: SEQ leaves (.seq)";
        if (!strcasecmp(dot, ".fc2"))
            return "not supported yet: FC2 leaves (.fc2)";
        if (!quoted && strcmp(dot, ".aut") && strcmp(dot, ".bcg") && strcmp(dot, ".exp"))
            return "unknown file extension (an unquoted leaf ends in .aut, .bcg or .exp;"
                   " quote other file names)";
    }
    return NULL;
}

/* Turns a partially built PAR_GENERAL node into a binary LOTOS parallel. */
static int lotos_par(struct exp_node *p, struct exp_node *l, struct exp_node *r)
{
    p->ops = calloc(2, sizeof *p->ops);
    p->locals = calloc(2, sizeof *p->locals);
    p->has_local = calloc(2, sizeof *p->has_local);
    if (!p->ops || !p->locals || !p->has_local) {
        exp_node_free(l);
        exp_node_free(r);
        return -1;
    }
    p->n_ops = 2;
    p->ops[0] = l;
    p->ops[1] = r;
    return 0;
}

/* Completes a binary parallel node of lotos_op: LOTOS / CSP operators as
 * PAR_GENERAL, CCS '|' and mCRL '||' as PAR_COMM (with the file's comm
 * declarations). */
int exp_binary_par(struct exp_pstate *ps, struct exp_node *p, struct exp_node *l,
                      struct exp_node *r)
{
    if (p->kind != EXP_PAR_COMM)
        return lotos_par(p, l, r);
    struct exp_node *c = exp_comm_par(p->ccs, ps->comm, ps->comm_res, l, r, p->loc.line,
                                      p->loc.col);
    if (!c)
        return -1;
    /* the caller owns p: move c's contents into it */
    *p = *c;
    free(c);
    return 0;
}

/* A vectors par node; checks every vector's arity.  Consumes v and ops;
 * NULL after recording the error. */
struct exp_node *exp_vectors_node(struct exp_pstate *ps, int label_mode, struct exp_veclist *v,
                                  struct exp_oplist *ops, struct exp_loc loc)
{
    for (size_t i = 0; i < v->n; i++) {
        if (v->v[i].n != ops->n) {
            struct exp_loc l = v->v[i].loc;
            size_t nc = v->v[i].n, no = ops->n;
            exp_veclist_free(v);
            exp_oplist_free(ops);
            /* a vector read from a file is located in it */
            if (ps->err->code == WX_OK)
                exp_perr(ps, l.line, l.col, "vector has %zu component%s but the par has "
                         "%zu operand%s", nc, nc == 1 ? "" : "s", no, no == 1 ? "" : "s");
            return NULL;
        }
    }
    struct exp_node *n = exp_node_new(EXP_PAR_VECTORS, loc.line, loc.col);
    if (!n) {
        exp_veclist_free(v);
        exp_oplist_free(ops);
        exp_poom(ps, loc.line, loc.col);
        return NULL;
    }
    n->label_mode = label_mode;
    n->n_vecs = v->n;
    n->vecs = v->v;
    free(v);
    exp_take_ops(n, ops, false);
    return n;
}

/* Does an unquoted file name (the lexer's FILENAME: IDF.ext) end with one
 * of the extensions the manual allows after 'using'? */
bool exp_using_ext_ok(const char *file)
{
    static const char *const ext[] = {".hid", ".hide", ".ren", ".rename", ".cut"};
    const char *dot = strchr(file, '.');
    for (size_t i = 0; dot && i < sizeof ext / sizeof *ext; i++)
        if (strcmp(dot, ext[i]) == 0)
            return true;
    return !dot;
}

/* The head of "[mode] hide|cut|rename using FILE in" (frees file); NULL
 * after recording the error. */
struct exp_node *exp_using_match(struct exp_pstate *ps, enum exp_kind kind, enum exp_mode mode,
                                 char *file, struct exp_loc floc, struct exp_loc loc)
{
    struct exp_node *n = exp_node_new(kind, loc.line, loc.col);
    int r = -1;
    if (!n) {
        exp_poom(ps, loc.line, loc.col);
    } else if (kind == EXP_RENAME) {
        struct exp_pairlist *p;
        r = exp_using_pairs(ps, file, "rename", floc.line, floc.col, &p);
        if (r == 0) {
            n->n_pats = p->l.n;
            n->pats = p->l.v;
            n->repls = p->r.v;
            free(p);
        }
    } else {
        struct exp_strlist *l;
        r = exp_using_patterns(ps, file, kind == EXP_HIDE ? "hide" : "cut",
                               floc.line, floc.col, &l, &n->all_but);
        if (r == 0)
            exp_strlist_take(l, &n->n_pats, &n->pats);
    }
    free(file);
    if (r < 0) {
        exp_node_free(n);
        return NULL;
    }
    n->mode = mode;
    n->form = kind == EXP_RENAME ? "rename using FILE" : kind == EXP_HIDE ? "hide using FILE"
                                                                          : "cut using FILE";
    return n;
}

/* Moves the operand list into node p (PAR_GENERAL keeps the interfaces). */
void exp_take_ops(struct exp_node *p, struct exp_oplist *l, bool keep_locals)
{
    p->n_ops = l->n;
    p->ops = l->ops;
    if (keep_locals) {
        p->locals = l->locals;
        p->has_local = l->has_local;
    } else {
        free(l->locals);      /* vector operands never carry interfaces */
        free(l->has_local);
    }
    free(l);
}
