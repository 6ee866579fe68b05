/*
 * exp.y -- grammar of EXP 2.0 (CADP's exp(LOCAL) format), builds the plain
 * tree of parser/exp_ast.h.  Grammar: docs/formats.md
 * section 2.2.  Semantics (matching, flattening) is not done here.
 *
 * Structure of behaviours, loosest binding first:
 *   beh      = par_expr
 *   par_expr = unary (("||" | "|||" | "|[" GL "]|") par_expr)?   right assoc.
 *            | "hide" GL "in" beh                 LOTOS hide, body extends right
 *   unary    = primary, then unsupported CCS/CSP postfix/infix operators
 *   primary  = leaf | "(" beh ")" | bracketed operators (... "end" KW)
 * Operands inside "par ... end par" are unary: a bare "||" there separates
 * operands, so an infix parallel inside an operand needs parentheses (or a
 * bracketed operator), as the EXP manual requires.
 *
 * The one ambiguity is the dangling "end hide": after "hide G in B", an
 * "end hide" may close this LOTOS hide or an enclosing one.  It closes the
 * innermost, resolved by precedence (the open-hide rule binds looser than
 * KW_END), like the dangling else.  A consequence the manual states too: a
 * LOTOS hide inside a bracketed operator ("rename ... in hide G in B end
 * rename") must be closed with "end hide" or parenthesised; otherwise the
 * "end" is taken for the hide's and the parse fails at "rename".
 *
 * Memory: every semantic value that owns heap memory has a %destructor, so
 * values on the stack are freed when the parse stops.  An action that stops
 * the parse (FAIL/OOM) frees its own right-hand side values first, because
 * bison does not destroy the values of the rule being reduced.
 *
 * Errors: one located message, the first one found (exp_perr); the scanner
 * reports lexical errors itself and returns YYerror.
 *
 * Depth: every level of the tree holds at least two parser stack entries
 * while it is parsed, so with YYMAXDEPTH = WX_EXP_MAX_STACK = 10000 a tree is at most 5000
 * levels deep (deeper input is a located WX_EINPUT): code walking the
 * tree may recurse.  The limit binds chains of LOTOS infix operators (right
 * associative, so each operator nests); "par ... end par" takes any number
 * of operands at one level.
 */
%require "3.6"
%define api.pure full
%define api.prefix {exp_yy}
%define parse.error custom
%define parse.lac full
%locations
%param {struct exp_pstate *ps}

%code requires {
#include "parser/exp_int.h"
}

%code {
#include <limits.h>
#include <setjmp.h>

#include "util/config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The flex header names its entry after a yylex macro when one exists;
 * bison's (yylex -> exp_yylex) is lifted while it is read. */
#define YYSTYPE EXP_YYSTYPE
#define YYLTYPE EXP_YYLTYPE
#undef yylex
#include "exp_lex.h"
#undef yylex
#define yylex exp_yylex

/* Parser stack limit (util/config.h): bounds nesting depth, hence also the
 * recursion depth of exp_node_free and of the walks after the parse. */
#define YYMAXDEPTH WX_EXP_MAX_STACK

static int exp_yylex(YYSTYPE *val, YYLTYPE *loc, struct exp_pstate *ps)
{
    return exp_scan_lex(val, loc, ps->scanner);
}

/* Bison says "memory exhausted" both when its stacks would pass YYMAXDEPTH
 * and when malloc fails; its allocator notes the second case here.  Only
 * stack allocation sites use it, outside any parse state, hence per thread. */
static _Thread_local bool stack_oom;

static void *stack_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        stack_oom = true;
    return p;
}
#define YYMALLOC stack_malloc
#define YYFREE free

static void exp_yyerror(YYLTYPE *loc, struct exp_pstate *ps, const char *msg)
{
    /* Only bison's own messages come here: "memory exhausted". */
    if (stack_oom)
        exp_poom(ps, loc->first_line, loc->first_column);
    else if (ps->err->code == WX_OK && strstr(msg, "exhausted"))
        wx_fail(ps->err, WX_EINPUT, ps->name, loc->first_line, loc->first_column,
                "behaviour nested too deeply (parser stack limit of %d entries; "
                "for long chains of LOTOS operators use 'par ... end par')", YYMAXDEPTH);
    else
        exp_perr(ps, loc->first_line, loc->first_column, "%s", msg);
}

/* Stop the parse with a located error; the action frees its RHS first. */
#define FAIL(loc, ...)                                                        \
    do {                                                                      \
        exp_perr(ps, (loc).first_line, (loc).first_column, __VA_ARGS__);     \
        YYABORT;                                                              \
    } while (0)
#define OOM(loc)                                                              \
    do {                                                                      \
        exp_poom(ps, (loc).first_line, (loc).first_column);                  \
        YYABORT;                                                              \
    } while (0)

/* Label modes as the grammar reads them; LABEL is "label par". */
enum { M_GATE, M_TOTAL, M_PARTIAL, M_SINGLE, M_MULTIPLE, M_LABEL };
static const char *const mode_name[] = { "gate", "total", "partial", "single",
                                         "multiple", "label" };
static const enum exp_mode to_exp_mode[] = { EXP_MODE_GATE, EXP_MODE_TOTAL,
    EXP_MODE_PARTIAL, EXP_MODE_SINGLE, EXP_MODE_MULTIPLE, EXP_MODE_GATE };

static struct exp_node *new_node(enum exp_kind k, YYLTYPE loc)
{
    return exp_node_new(k, loc.first_line, loc.first_column);
}

#define LOC(l) ((struct exp_loc){(l).first_line, (l).first_column})
}

%union {
    char *str;
    int num;
    struct exp_node *node;
    struct exp_strlist *strs;
    struct exp_pairlist *pairs;
    struct exp_veclist *vecs;
    struct exp_vector *vec;
    struct exp_oplist *ops;
    struct exp_iface *iface;
    struct exp_prio_rule *prule;
}

%destructor { free($$); } <str>
%destructor { exp_node_free($$); } <node>
%destructor { exp_strlist_free($$); } <strs>
%destructor { exp_pairlist_free($$); } <pairs>
%destructor { exp_veclist_free($$); } <vecs>
%destructor { exp_vector_free($$); } <vec>
%destructor { exp_oplist_free($$); } <ops>
%destructor { exp_iface_free($$); } <iface>
%destructor { exp_prio_rule_free($$); } <prule>

%token <str> IDF "identifier" STRING "string" FILENAME "file name"
%token <num> NAT "number"
%token KW_ALL "all" KW_BEHAVIOUR "behaviour" KW_BUT "but" KW_CCS "ccs"
       KW_COMM "comm" KW_CSP "csp" KW_CUT "cut" KW_ELOTOS "elotos" KW_END "end"
       KW_GATE "gate" KW_HIDE "hide" KW_IN "in" KW_LABEL "label" KW_LOTOS "lotos"
       KW_MCRL "mcrl" KW_MULTIPLE "multiple" KW_PAR "par" KW_PARTIAL "partial"
       KW_PRIO "prio" KW_RENAME "rename" KW_SINGLE "single" KW_TOTAL "total"
       KW_USING "using"
%token LPAREN "(" RPAREN ")" COMMA "," ARROW "->" LARROW "<-" STAR "*"
       UNDERSCORE "_" HASH "#" GT ">" SLASH "/" BACKSLASH "\\" LBRACE "{"
       RBRACE "}" LBRACK "[" RBRACK "]" BAR "|" BAR2 "||" BAR3 "|||"
       LGATES "|[" RGATES "]|" LCSP "[|" RCSP "|]" LLBRACK "[[" RRBRACK "]]"
       EQUALS "="

%type <num> lang mode par_kw rename_kw prio_kw
%type <node> beh par_expr unary primary leaf lotos_op
%type <node> hide_lotos hide_gen hide_moded cut_head cut_kw cut_pats rename_head par_global prio_head prio_list
%type <strs> label_list label_list_opt comps star_comps bar_comps label_set
%type <str> using_file any_file
%type <pairs> relabel_list csp_ren_list
%type <prule> prio_chain prio_set
%type <str> label comp
%type <pairs> rename_list
%type <vecs> vec_list
%type <vec> vec
%type <ops> operands operand vops
%type <iface> iface gate_list gate_list_opt

/* Dangling "end hide": see the header comment. */
%precedence OPEN_HIDE
%precedence KW_END

%%

file
    : header beh         { ps->root = $2; }
    | header comm_decl beh { ps->root = $3; }
    ;

/* mCRL: comm A1 | B1 = C1, ... end comm, before the behaviour. */
comm_decl
    : KW_COMM {
          if (ps->lang != EXP_LANG_MCRL)
              FAIL(@1, "'comm' declarations belong to the mcrl reference language "
                       "(header 'mcrl behaviour')");
      } comm_list KW_END KW_COMM
    ;

comm_list
    : comm_el
    | comm_list COMMA comm_el
    ;

comm_el
    : label BAR label EQUALS label {
          if (!ps->comm && (!(ps->comm = exp_pairlist_new()) ||
                            !(ps->comm_res = exp_strlist_new()))) {
              free($1), free($3), free($5);
              OOM(@1);
          }
          for (size_t i = 0; i < ps->comm->l.n; i++) {
              bool same = (!strcmp(ps->comm->l.v[i], $1) && !strcmp(ps->comm->r.v[i], $3)) ||
                          (!strcmp(ps->comm->l.v[i], $3) && !strcmp(ps->comm->r.v[i], $1));
              if (same) {
                  free($1), free($3), free($5);
                  FAIL(@1, "communication of these two actions is declared twice");
              }
          }
          if (exp_pairlist_push(ps->comm, $1, $3) < 0) {
              free($5);
              OOM(@1);
          }
          if (exp_strlist_push(ps->comm_res, $5) < 0)
              OOM(@1);
      }
    | label BAR label BAR {
          free($1), free($3);
          FAIL(@4, "mCRL communications are binary here ('A | B = C'); "
                   "multi-party communication is not supported");
      }
    ;

header
    : %empty
    | KW_BEHAVIOUR       { ps->has_header = true; ps->lang = EXP_LANG_LOTOS; }
    | lang KW_BEHAVIOUR  { ps->has_header = true; ps->lang = (enum exp_lang)$1; }
    ;

lang
    : KW_LOTOS           { $$ = EXP_LANG_LOTOS; }
    | KW_ELOTOS          { $$ = EXP_LANG_ELOTOS; }
    | KW_CCS             { $$ = EXP_LANG_CCS; }
    | KW_CSP             { $$ = EXP_LANG_CSP; }
    | KW_MCRL            { $$ = EXP_LANG_MCRL; }
    ;

beh
    : par_expr
    ;

par_expr
    : unary
    | unary lotos_op par_expr {
          $$ = $2;
          $$->loc.line = @1.first_line;
          $$->loc.col = @1.first_column;
          if (exp_binary_par(ps, $$, $1, $3) < 0) {
              exp_node_free($$); /* $1, $3 were freed by exp_binary_par */
              OOM(@2);
          }
      }
    | hide_lotos beh %prec OPEN_HIDE { $$ = $1; $$->body = $2; }
    | unary LBRACK LBRACE label_list_opt RBRACE BAR2 LBRACE label_list_opt RBRACE RBRACK par_expr {
          /* CSP alphabetised parallel */
          if (!($$ = new_node(EXP_PAR_GENERAL, @1))) {
              exp_node_free($1), exp_node_free($11);
              exp_strlist_free($4), exp_strlist_free($8);
              OOM(@2);
          }
          if (exp_csp_alpha_par($$, $4, $8, $1, $11) < 0) {
              exp_node_free($$);
              OOM(@2);
          }
          $$->form = "CSP alphabetised A [{..} || {..}] B";
      }
    ;

/* The LOTOS operators as PAR_GENERAL nodes still lacking their operands:
 * A || B = par all in A || B end par; A ||| B = par A || B end par;
 * A |[GL]| B = par GL in A || B end par. */
lotos_op
    : BAR2 {
          if (!($$ = new_node(ps->lang == EXP_LANG_MCRL ? EXP_PAR_COMM : EXP_PAR_GENERAL, @1)))
              OOM(@1);
          $$->global_all = ps->lang != EXP_LANG_MCRL;
          $$->form = ps->lang == EXP_LANG_MCRL ? "mCRL A || B" : "LOTOS A || B";
      }
    | BAR {
          if (!($$ = new_node(EXP_PAR_COMM, @1)))
              OOM(@1);
          $$->ccs = true;
          $$->form = "CCS A | B";
      }
    | LCSP LBRACE label_list_opt RBRACE RCSP {
          struct exp_strlist *l = $3;
          if (!($$ = new_node(EXP_PAR_GENERAL, @1))) {
              exp_strlist_free(l);
              OOM(@1);
          }
          for (size_t i = 0; i < l->n; i++) {
              if (exp_iface_push(&$$->global, l->v[i], -1, @3.first_line, @3.first_column) < 0) {
                  l->v[i] = NULL;
                  exp_strlist_free(l);
                  exp_node_free($$);
                  OOM(@1);
              }
              l->v[i] = NULL;
          }
          exp_strlist_free(l);
          $$->form = "CSP A [| G |] B";
      }

    | BAR3 {
          if (!($$ = new_node(EXP_PAR_GENERAL, @1)))
              OOM(@1);
          $$->form = "LOTOS A ||| B";
      }
    | LGATES gate_list_opt RGATES {
          if (!($$ = new_node(EXP_PAR_GENERAL, @1))) {
              exp_iface_free($2);
              OOM(@1);
          }
          $$->global = *$2;
          free($2);
          $$->form = "LOTOS A |[G]| B";
      }
    ;

/* The gates of "|[G1, ..., Gn]|" (possibly none): an interface without
 * degrees, each gate with its own location. */
gate_list_opt
    : %empty {
          if (!($$ = exp_iface_new()))
              OOM(@$);
      }
    | gate_list
    ;

gate_list
    : label {
          if (!($$ = exp_iface_new())) {
              free($1);
              OOM(@1);
          }
          if (exp_iface_push($$, $1, -1, @1.first_line, @1.first_column) < 0) {
              exp_iface_free($$);
              OOM(@1);
          }
      }
    | gate_list COMMA label {
          $$ = $1;
          if (exp_iface_push($$, $3, -1, @3.first_line, @3.first_column) < 0) {
              exp_iface_free($$);
              OOM(@3);
          }
      }
    ;

unary
    : primary
    | unary BACKSLASH label_set {
          /* CSP hiding with reference language csp, CCS restriction otherwise */
          if (ps->lang == EXP_LANG_CSP)
              $$ = exp_csp_hide($1, $3, @2.first_line, @2.first_column);
          else
              $$ = exp_ccs_restrict($1, $3, @2.first_line, @2.first_column);
          if (!$$)
              OOM(@2);
          $$->form = ps->lang == EXP_LANG_CSP ? "CSP hiding B \\ L" : "CCS restriction B \\ L";
      }
    | unary LBRACK relabel_list RBRACK {
          if (!($$ = exp_ccs_relabel($1, $3, @2.first_line, @2.first_column)))
              OOM(@2);
          $$->form = "CCS relabelling B [N/O]";
      }
    | unary LLBRACK csp_ren_list RRBRACK {
          if (!($$ = exp_csp_rename($1, $3, @2.first_line, @2.first_column)))
              OOM(@2);
          $$->form = "CSP renaming B [[O <- N]]";
      }
    ;

/* "L" or "{L1, ..., Ln}" after CCS restriction / CSP hiding. */
label_set
    : label {
          if (!($$ = exp_strlist_new())) {
              free($1);
              OOM(@1);
          }
          if (exp_strlist_push($$, $1) < 0) {
              exp_strlist_free($$);
              OOM(@1);
          }
      }
    | LBRACE label_list_opt RBRACE { $$ = $2; }
    ;

/* CCS relabelling N1/O1, ...: new names left, old names right. */
relabel_list
    : label SLASH label {
          if (!($$ = exp_pairlist_new())) {
              free($1), free($3);
              OOM(@1);
          }
          if (exp_pairlist_push($$, $1, $3) < 0) {
              exp_pairlist_free($$);
              OOM(@1);
          }
      }
    | relabel_list COMMA label SLASH label {
          $$ = $1;
          if (exp_pairlist_push($$, $3, $5) < 0) {
              exp_pairlist_free($$);
              OOM(@3);
          }
      }
    ;

/* CSP renaming O1 <- N1, ...: old names left; a name renamed twice would
 * make the renaming a relation, which is refused. */
csp_ren_list
    : label LARROW label {
          if (!($$ = exp_pairlist_new())) {
              free($1), free($3);
              OOM(@1);
          }
          if (exp_pairlist_push($$, $1, $3) < 0) {
              exp_pairlist_free($$);
              OOM(@1);
          }
      }
    | csp_ren_list COMMA label LARROW label {
          $$ = $1;
          for (size_t i = 0; i < $$->l.n; i++) {
              if (!strcmp($$->l.v[i], $3)) {
                  exp_pairlist_free($$);
                  free($3), free($5);
                  FAIL(@3, "CSP renaming renames this event twice: relational renaming "
                           "is not supported");
              }
          }
          if (exp_pairlist_push($$, $3, $5) < 0) {
              exp_pairlist_free($$);
              OOM(@3);
          }
      }
    ;

primary
    : leaf
    | LPAREN beh RPAREN                      { $$ = $2; }
    | hide_lotos beh KW_END KW_HIDE          { $$ = $1; $$->body = $2; }
    | hide_gen beh KW_END KW_HIDE            { $$ = $1; $$->body = $2; }
    | cut_head beh KW_END KW_CUT             { $$ = $1; $$->body = $2; }
    | rename_head beh KW_END KW_RENAME       { $$ = $1; $$->body = $2; }
    | par_kw par_global operands KW_END KW_PAR {
          $$ = $2;
          $$->loc.line = @1.first_line;
          $$->loc.col = @1.first_column;
          $$->label_mode = $1;
          exp_take_ops($$, $3, true);
      }
    | par_kw operands KW_END KW_PAR {
          if (!($$ = new_node(EXP_PAR_GENERAL, @1))) {
              exp_oplist_free($2);
              OOM(@1);
          }
          $$->label_mode = $1;
          exp_take_ops($$, $2, true);
      }
    | par_kw KW_USING vec_list KW_IN vops KW_END KW_PAR {
          if (!($$ = exp_vectors_node(ps, $1, $3, $5, LOC(@1))))
              YYABORT;
      }
    | par_kw KW_USING any_file KW_IN {
          $$ = NULL;
          free($3);
          (void)$1;
          FAIL(@3, "'par using FILE' is not an EXP 2.0 form: the vectors of 'par using' "
                   "are written inline ('par using V1, ... in')");
      }
    | prio_head beh KW_END KW_PRIO        { $$ = $1; $$->body = $2; }
    ;

/* The file name of a "using FILE" form (a vector list starts with a label
 * too: "in" after the name tells them apart). */
using_file
    : STRING
    | IDF
    | FILENAME {
          $$ = $1;
          if (!exp_using_ext_ok($1)) {
              free($1);
              FAIL(@1, "not an EXP 2.0 form: an unquoted file name after 'using' ends "
                       "with .hid, .hide, .ren, .rename or .cut (quote other names)");
          }
      }
    ;

/* The file name of the 'par using FILE' and 'prio using FILE' forms, which
 * the manual does not have (refused with a reason). */
any_file
    : FILENAME
    | STRING
    | IDF
    ;

/* [gate|total|partial] prio X1 > X2 [> ...] ... in  /  prio using FILE in */
prio_head
    : prio_kw prio_list KW_IN {
          $$ = $2;
          $$->mode = to_exp_mode[$1];
          $$->loc.line = @1.first_line;
          $$->loc.col = @1.first_column;
      }
    | prio_kw KW_USING any_file KW_IN {
          free($3);
          (void)$1;
          $$ = NULL;
          FAIL(@2, "'prio using FILE' is not an EXP 2.0 form: priority rules are written "
                   "inline ('prio L1 > L2 in')");
      }
    ;

prio_kw
    : KW_PRIO      { $$ = M_GATE; }
    | mode KW_PRIO {
          if ($1 != M_GATE && $1 != M_TOTAL && $1 != M_PARTIAL)
              FAIL(@1, "mode '%s' is not allowed for prio (gate, total or partial)", mode_name[$1]);
          $$ = $1;
      }
    ;

/* Rules written one after the other: "prio A > B C, D > E in". */
prio_list
    : prio_chain {
          if (!($$ = new_node(EXP_PRIO, @1))) {
              exp_prio_rule_free($1);
              OOM(@1);
          }
          if (exp_prio_node_push($$, $1) < 0) {
              exp_node_free($$);
              OOM(@1);
          }
      }
    | prio_list prio_chain {
          $$ = $1;
          if (exp_prio_node_push($$, $2) < 0) {
              exp_node_free($$);
              OOM(@2);
          }
      }
    ;

/* X1 > X2 > ... > Xn (n >= 2). */
prio_chain
    : prio_set GT prio_set {
          if (!($$ = exp_prio_chain(ps, $1, $3, @2.first_line, @2.first_column)))
              YYABORT;
      }
    | prio_chain GT prio_set {
          if (!($$ = exp_prio_chain(ps, $1, $3, @2.first_line, @2.first_column)))
              YYABORT;
      }
    ;

/* [all but] L1, ..., Lk: a rule of one set, joined by prio_chain. */
prio_set
    : label_list {
          if (!($$ = exp_prio_rule_push(NULL, false, $1, @1.first_line, @1.first_column)))
              OOM(@1);
      }
    | KW_ALL KW_BUT label_list {
          if (!($$ = exp_prio_rule_push(NULL, true, $3, @1.first_line, @1.first_column)))
              OOM(@1);
      }
    ;

leaf
    : STRING {
          const char *why = exp_leaf_problem($1, true);
          if (why) {
              free($1);
              FAIL(@1, "%s", why);
          }
          if (!($$ = new_node(EXP_LEAF, @1))) {
              free($1);
              OOM(@1);
          }
          $$->path = $1;
      }
    | IDF {
          if (!($$ = new_node(EXP_LEAF, @1))) {
              free($1);
              OOM(@1);
          }
          $$->path = $1;
      }
    | FILENAME {
          const char *why = exp_leaf_problem($1, false);
          if (why) {
              free($1);
              FAIL(@1, "%s", why);
          }
          if (!($$ = new_node(EXP_LEAF, @1))) {
              free($1);
              OOM(@1);
          }
          $$->path = $1;
      }
    ;

/* ---- hide, cut, rename heads: the node without its body ---------------- */

hide_lotos
    : KW_HIDE label_list_opt KW_IN {
          if (!($$ = new_node(EXP_HIDE, @1))) {
              exp_strlist_free($2);
              OOM(@1);
          }
          exp_strlist_take($2, &$$->n_pats, &$$->pats);
          $$->form = "LOTOS hide G in B";
      }
    ;

hide_gen
    : KW_HIDE KW_ALL KW_BUT label_list_opt KW_IN {
          if (!($$ = new_node(EXP_HIDE, @1))) {
              exp_strlist_free($4);
              OOM(@1);
          }
          $$->all_but = true;
          exp_strlist_take($4, &$$->n_pats, &$$->pats);
      }
    | KW_HIDE KW_USING using_file KW_IN {
          if (!($$ = exp_using_match(ps, EXP_HIDE, EXP_MODE_GATE, $3, LOC(@3), LOC(@1))))
              YYABORT;
      }
    | hide_moded label_list_opt KW_IN {
          $$ = $1;
          exp_strlist_take($2, &$$->n_pats, &$$->pats);
      }
    | hide_moded KW_ALL KW_BUT label_list_opt KW_IN {
          $$ = $1;
          $$->all_but = true;
          exp_strlist_take($4, &$$->n_pats, &$$->pats);
      }
    | hide_moded KW_USING using_file KW_IN {
          enum exp_mode m = $1->mode;
          exp_node_free($1);
          if (!($$ = exp_using_match(ps, EXP_HIDE, m, $3, LOC(@3), LOC(@1))))
              YYABORT;
      }
    ;

hide_moded
    : mode KW_HIDE {
          if ($1 != M_GATE && $1 != M_TOTAL && $1 != M_PARTIAL)
              FAIL(@1, "mode '%s' is not allowed for hide (gate, total or partial)", mode_name[$1]);
          if (!($$ = new_node(EXP_HIDE, @1)))
              OOM(@1);
          $$->mode = to_exp_mode[$1];
      }
    ;

cut_head
    : cut_kw cut_pats KW_IN {
          $$ = $1;
          $$->all_but = $2->all_but;
          $$->n_pats = $2->n_pats;
          $$->pats = $2->pats;
          $2->n_pats = 0;
          $2->pats = NULL;
          exp_node_free($2);
      }
    ;

cut_kw
    : KW_CUT {
          if (!($$ = new_node(EXP_CUT, @1)))
              OOM(@1);
      }
    | mode KW_CUT {
          if ($1 != M_GATE && $1 != M_TOTAL && $1 != M_PARTIAL)
              FAIL(@1, "mode '%s' is not allowed for cut (gate, total or partial)", mode_name[$1]);
          if (!($$ = new_node(EXP_CUT, @1)))
              OOM(@1);
          $$->mode = to_exp_mode[$1];
      }
    ;

/* The patterns of a cut, carried in a scratch node (only pats/all_but). */
cut_pats
    : label_list_opt {
          if (!($$ = new_node(EXP_CUT, @1))) {
              exp_strlist_free($1);
              OOM(@1);
          }
          exp_strlist_take($1, &$$->n_pats, &$$->pats);
      }
    | KW_ALL KW_BUT label_list_opt {
          if (!($$ = new_node(EXP_CUT, @1))) {
              exp_strlist_free($3);
              OOM(@1);
          }
          $$->all_but = true;
          exp_strlist_take($3, &$$->n_pats, &$$->pats);
      }
    | KW_USING using_file {
          if (!($$ = exp_using_match(ps, EXP_CUT, EXP_MODE_GATE, $2, LOC(@2), LOC(@1))))
              YYABORT;
      }
    ;

rename_head
    : rename_kw rename_list KW_IN {
          if (!($$ = new_node(EXP_RENAME, @1))) {
              exp_pairlist_free($2);
              OOM(@1);
          }
          $$->mode = to_exp_mode[$1];
          $$->n_pats = $2->l.n;
          $$->pats = $2->l.v;
          $$->repls = $2->r.v;
          free($2);
      }
    | rename_kw KW_USING using_file KW_IN {
          if (!($$ = exp_using_match(ps, EXP_RENAME, to_exp_mode[$1], $3, LOC(@3), LOC(@1))))
              YYABORT;
      }
    ;

rename_kw
    : KW_RENAME    { $$ = M_GATE; }
    | mode KW_RENAME {
          if ($1 != M_GATE && $1 != M_TOTAL && $1 != M_SINGLE && $1 != M_MULTIPLE)
              FAIL(@1, "mode '%s' is not allowed for rename (gate, total, single or multiple)",
                   mode_name[$1]);
          $$ = $1;
      }
    ;

rename_list
    : label ARROW label {
          if (!($$ = exp_pairlist_new())) {
              free($1);
              free($3);
              OOM(@1);
          }
          if (exp_pairlist_push($$, $1, $3) < 0) {
              exp_pairlist_free($$);
              OOM(@1);
          }
      }
    | rename_list COMMA label ARROW label {
          $$ = $1;
          if (exp_pairlist_push($$, $3, $5) < 0) {
              exp_pairlist_free($$);
              OOM(@3);
          }
      }
    ;

/* A mode keyword; which modes an operator accepts is checked right after
 * the operator's keyword, so a wrong mode is reported before the body. */
mode
    : KW_GATE      { $$ = M_GATE; }
    | KW_TOTAL     { $$ = M_TOTAL; }
    | KW_PARTIAL   { $$ = M_PARTIAL; }
    | KW_SINGLE    { $$ = M_SINGLE; }
    | KW_MULTIPLE  { $$ = M_MULTIPLE; }
    | KW_LABEL     { $$ = M_LABEL; }
    ;

/* ---- parallel ------------------------------------------------------------ */

par_kw
    : KW_PAR       { $$ = 0; }
    | mode KW_PAR {
          if ($1 != M_GATE && $1 != M_LABEL)
              FAIL(@1, "mode '%s' is not allowed for par (gate or label)", mode_name[$1]);
          $$ = $1 == M_LABEL;
      }
    ;

par_global
    : KW_ALL KW_IN {
          if (!($$ = new_node(EXP_PAR_GENERAL, @1)))
              OOM(@1);
          $$->global_all = true;
      }
    | iface KW_IN {
          if (!($$ = new_node(EXP_PAR_GENERAL, @1))) {
              exp_iface_free($1);
              OOM(@1);
          }
          $$->global = *$1;
          free($1);
      }
    ;

operands
    : operand BAR2 operand {
          $$ = $1;
          if (exp_oplist_append($$, $3) < 0) {
              exp_oplist_free($$);
              OOM(@3);
          }
      }
    | operands BAR2 operand {
          $$ = $1;
          if (exp_oplist_append($$, $3) < 0) {
              exp_oplist_free($$);
              OOM(@3);
          }
      }
    ;

operand
    : unary {
          if (!($$ = exp_oplist_new())) {
              exp_node_free($1);
              OOM(@1);
          }
          if (exp_oplist_push($$, $1, NULL) < 0) {
              exp_oplist_free($$);
              OOM(@1);
          }
      }
    | iface ARROW unary {
          if (!($$ = exp_oplist_new())) {
              exp_iface_free($1);
              exp_node_free($3);
              OOM(@1);
          }
          if (exp_oplist_push($$, $3, $1) < 0) {
              exp_oplist_free($$);
              OOM(@1);
          }
      }
    ;

iface
    : label {
          if (!($$ = exp_iface_new())) {
              free($1);
              OOM(@1);
          }
          if (exp_iface_push($$, $1, -1, @1.first_line, @1.first_column) < 0) {
              exp_iface_free($$);
              OOM(@1);
          }
      }
    | label HASH NAT {
          if (!($$ = exp_iface_new())) {
              free($1);
              OOM(@1);
          }
          if (exp_iface_push($$, $1, $3, @1.first_line, @1.first_column) < 0) {
              exp_iface_free($$);
              OOM(@1);
          }
      }
    | iface COMMA label {
          $$ = $1;
          if (exp_iface_push($$, $3, -1, @3.first_line, @3.first_column) < 0) {
              exp_iface_free($$);
              OOM(@3);
          }
      }
    | iface COMMA label HASH NAT {
          $$ = $1;
          if (exp_iface_push($$, $3, $5, @3.first_line, @3.first_column) < 0) {
              exp_iface_free($$);
              OOM(@3);
          }
      }
    ;

vec_list
    : vec {
          if (!($$ = exp_veclist_new())) {
              exp_vector_free($1);
              OOM(@1);
          }
          if (exp_veclist_push($$, $1) < 0) {
              exp_veclist_free($$);
              OOM(@1);
          }
      }
    | vec_list COMMA vec {
          $$ = $1;
          if (exp_veclist_push($$, $3) < 0) {
              exp_veclist_free($$);
              OOM(@3);
          }
      }
    ;

/* E1 * ... * En -> R, or with "||" between the components (not mixed). */
vec
    : comps ARROW label {
          if (!($$ = exp_vector_new())) {
              exp_strlist_free($1);
              free($3);
              OOM(@1);
          }
          exp_strlist_take($1, &$$->n, &$$->comp);
          $$->result = $3;
          $$->loc.line = @1.first_line;
          $$->loc.col = @1.first_column;
      }
    ;

comps
    : comp {
          if (!($$ = exp_strlist_new())) {
              free($1);
              OOM(@1);
          }
          if (exp_strlist_push($$, $1) < 0) {
              exp_strlist_free($$);
              OOM(@1);
          }
      }
    | star_comps
    | bar_comps
    ;

star_comps
    : comp STAR comp {
          if (!($$ = exp_strlist_new())) {
              free($1);
              free($3);
              OOM(@1);
          }
          if (exp_strlist_push($$, $1) < 0) {
              free($3);
              exp_strlist_free($$);
              OOM(@1);
          }
          if (exp_strlist_push($$, $3) < 0) {
              exp_strlist_free($$);
              OOM(@3);
          }
      }
    | star_comps STAR comp {
          $$ = $1;
          if (exp_strlist_push($$, $3) < 0) {
              exp_strlist_free($$);
              OOM(@3);
          }
      }
    ;

bar_comps
    : comp BAR2 comp {
          if (!($$ = exp_strlist_new())) {
              free($1);
              free($3);
              OOM(@1);
          }
          if (exp_strlist_push($$, $1) < 0) {
              free($3);
              exp_strlist_free($$);
              OOM(@1);
          }
          if (exp_strlist_push($$, $3) < 0) {
              exp_strlist_free($$);
              OOM(@3);
          }
      }
    | bar_comps BAR2 comp {
          $$ = $1;
          if (exp_strlist_push($$, $3) < 0) {
              exp_strlist_free($$);
              OOM(@3);
          }
      }
    ;

comp
    : label
    | UNDERSCORE   { $$ = NULL; }
    ;

/* Operands of "par using": one or more, no interfaces. */
vops
    : unary {
          if (!($$ = exp_oplist_new())) {
              exp_node_free($1);
              OOM(@1);
          }
          if (exp_oplist_push($$, $1, NULL) < 0) {
              exp_oplist_free($$);
              OOM(@1);
          }
      }
    | vops BAR2 unary {
          $$ = $1;
          if (exp_oplist_push($$, $3, NULL) < 0) {
              exp_oplist_free($$);
              OOM(@3);
          }
      }
    ;

/* ---- labels --------------------------------------------------------------- */

label_list_opt
    : %empty {
          if (!($$ = exp_strlist_new()))
              OOM(@$);
      }
    | label_list
    ;

label_list
    : label {
          if (!($$ = exp_strlist_new())) {
              free($1);
              OOM(@1);
          }
          if (exp_strlist_push($$, $1) < 0) {
              exp_strlist_free($$);
              OOM(@1);
          }
      }
    | label_list COMMA label {
          $$ = $1;
          if (exp_strlist_push($$, $3) < 0) {
              exp_strlist_free($$);
              OOM(@3);
          }
      }
    ;

label
    : IDF
    | STRING
    ;

%%

/* Display name of a token in messages: keywords and symbols quoted with
 * single quotes ('end', '->'), categories plain (identifier, end of file). */
static void sym_text(yysymbol_kind_t k, char *buf, size_t size)
{
    switch (k) {
    case YYSYMBOL_YYEOF:
    case YYSYMBOL_IDF:
    case YYSYMBOL_STRING:
    case YYSYMBOL_FILENAME:
    case YYSYMBOL_NAT:
        snprintf(buf, size, "%s", yysymbol_name(k));
        return;
    default:
        snprintf(buf, size, "'%s'", yysymbol_name(k));
        return;
    }
}

/* Tokens that only start unsupported CCS/CSP operators: never worth
 * suggesting in an "expecting" list. */
static bool unsupported_only(yysymbol_kind_t k)
{
    return k == YYSYMBOL_BAR || k == YYSYMBOL_BACKSLASH || k == YYSYMBOL_LBRACK ||
           k == YYSYMBOL_LCSP || k == YYSYMBOL_LLBRACK;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, struct exp_pstate *ps)
{
    enum { MAXEXP = YYNTOKENS };
    yysymbol_kind_t exp[MAXEXP], shown[MAXEXP];
    const YYLTYPE *loc = yypcontext_location(ctx);
    char msg[512], tok[64];
    size_t len;
    int n, i, m = 0;

    sym_text(yypcontext_token(ctx), tok, sizeof tok);
    len = (size_t)snprintf(msg, sizeof msg, "syntax error: unexpected %s", tok);
    n = yypcontext_expected_tokens(ctx, exp, MAXEXP);
    if (n < 0)                          /* LAC ran out of memory */
        return n;
    for (i = 0; i < n; i++)
        if (!unsupported_only(exp[i]))
            shown[m++] = exp[i];
    /* A long list of alternatives helps nobody: name them only when few. */
    if (m > 0 && m <= 6) {
        for (i = 0; i < m && len < sizeof msg; i++) {
            sym_text(shown[i], tok, sizeof tok);
            len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s",
                                    i == 0 ? ", expecting " : i == m - 1 ? " or " : ", ", tok);
        }
    }
    exp_perr(ps, loc->first_line, loc->first_column, "%s", msg);
    return 0;
}

/* ---- driver ----------------------------------------------------------------- */

/* Points the scanner at input[0..size) (ending in two NULs).  Returns -1
 * when flex ran out of memory (its fatal error jumps here); the caller then
 * frees ps->scan_mem.  ps lives in the caller's frame, so its contents are
 * well defined after the jump.  Scanning an in-place buffer never allocates,
 * so no fatal error can happen later (ps->fatal is NULL then). */
static int start_scanner(struct exp_pstate *ps, char *input, size_t size)
{
    jmp_buf jb;

    ps->fatal = &jb;
    if (setjmp(jb) != 0) {
        ps->fatal = NULL;
        return -1;
    }
    exp_scan__scan_buffer(input, size, ps->scanner);
    ps->fatal = NULL;
    return 0;
}

int exp_parse_string(const char *text, size_t len, const char *name,
                     struct exp_file **out, struct wx_error *err)
{
    struct exp_pstate ps;
    struct exp_file *f;
    yyscan_t scanner;
    char *input;
    int rc, i;

    *out = NULL;
    wx_error_clear(err);
    memset(&ps, 0, sizeof ps);
    ps.name = name ? name : "<string>";
    ps.err = err;
    ps.line = ps.col = 1;
    if (len > (size_t)INT_MAX - 2)      /* flex counts buffer bytes in int */
        return wx_fail(err, WX_ELIMIT, ps.name, 0, 0, "input too large (%zu bytes)", len);
    /* The scanner reads the input in place: a copy ending in the two NUL
     * bytes flex requires. */
    input = malloc(len + 2);
    f = calloc(1, sizeof *f);
    if (f)
        f->name = exp_strndup(ps.name, strlen(ps.name));
    if (!input || !f || !f->name) {
        free(input);
        exp_file_free(f);
        return exp_poom(&ps, 0, 0);
    }
    memcpy(input, text, len);
    input[len] = input[len + 1] = '\0';
    if (exp_scan_lex_init_extra(&ps, &scanner) != 0) {
        free(input);
        exp_file_free(f);
        return exp_poom(&ps, 0, 0);
    }
    ps.scanner = scanner;
    if (start_scanner(&ps, input, len + 2) < 0) {
        for (i = 0; i < EXP_SCAN_MEM; i++)
            free(ps.scan_mem[i]);
        free(input);
        exp_file_free(f);
        return exp_poom(&ps, 0, 0);
    }
    stack_oom = false;
    rc = exp_yyparse(&ps);
    exp_scan_lex_destroy(scanner);
    exp_pairlist_free(ps.comm);
    exp_strlist_free(ps.comm_res);
    free(input);
    if (rc != 0 || err->code != WX_OK) {
        exp_node_free(ps.root);
        exp_file_free(f);
        if (err->code == WX_OK)     /* cannot happen: every stop is reported */
            wx_fail(err, WX_ESYSTEM, ps.name, 0, 0, "internal error: parse failed silently");
        return err->code;
    }
    f->lang = ps.lang;
    f->has_header = ps.has_header;
    f->root = ps.root;
    *out = f;
    return WX_OK;
}
