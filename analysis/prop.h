/*
 * prop.h -- the property syntax of `warpex check`: a small PRISM-style
 * language for reachability probabilities and expected rewards.
 *
 * GRAMMAR (blanks between tokens are free):
 *     property := ( "P" | "R" [ reward ] ) [ "min" | "max" ] query "[" path "]"
 *     query    := "=" "?"  |  cmp NUMBER        cmp := "<" | "<=" | ">" | ">="
 *     reward   := "{" '"' NAME '"' "}"  |  "{" N "}"    (N >= 1, PRISM's
 *                 R{"name"} / R{N}: the reward structure of that name, or the
 *                 N-th; without it, the first)
 *     path     := "F" [ steps ] phi  |  phi "U" [ steps ] phi
 *               |  "G" [ steps ] phi  |  "C" "<=" K
 *                 (P: F, U, G; R: F without steps, C)
 *     steps    := "<=" K  |  "<" K          (K a decimal integer; "<K" is
 *                 "<=K-1", K >= 1; at most PROP_MAX_STEPS)
 *     phi      := or
 *     or       := and { "|" and }
 *     and      := not { "&" not }
 *     not      := "!" not | atom
 *     atom     := '"' NAME '"' | "true" | "false" | "(" phi ")"
 * NUMBER is a decimal (digits, optional fraction and exponent): for P in
 * [0, 1], for R finite and >= 0.
 * WITHOUT min/max, PRISM's reading: P~p / R~r must hold for every
 * scheduler, so ">" and ">=" take the minimum and "<" and "<=" the maximum;
 * "=?" needs a model with at most one choice per state (a DTMC: min = max),
 * which prop_check_model checks.
 * A label NAME is any run of bytes other than '"' and control bytes.
 * "init" and "deadlock" are labels like the others: when the model has no
 * label of that name, "init" means the model's initial states and
 * "deadlock" the states without a choice (prop_eval).
 *
 * In a property FILE (prop_read_file) each non-blank line that is not a
 * comment ("//" or "#" first) is one property, optionally named
 * ( "NAME": property ) and optionally ended by ';' (the .props files of
 * tests/data/mdp use both).  PRISM definition lines (starting with
 * "label ", "const " or "formula ") are read past: the exported .lab file
 * already carries their labels.
 *
 * ERRORS are WX_EINPUT, located: the file (or "property" for --prop text),
 * line and 1-based byte column of the offending token; prop_eval locates an
 * unknown label the same way.
 *
 * THREAD SAFETY: reentrant.
 */
#ifndef WX_PROP_H
#define WX_PROP_H

#include <stdint.h>

#include "../graph/mdp.h"
#include "../graph/mdp_lab.h"
#include "../util/error.h"

enum prop_kind { PROP_PMIN, PROP_PMAX, PROP_RMIN, PROP_RMAX };
/* "=?" (a value) or a comparison with a bound (true or false). */
enum prop_cmp { PROP_QUERY, PROP_LT, PROP_LE, PROP_GT, PROP_GE };
/* The path formula: PATH_UNTIL is "F phi2" (phi1 NULL) and "phi1 U phi2";
 * PATH_GLOBALLY "G phi2"; PATH_CUMULATIVE "C<=k" (no formula). */
enum prop_path { PATH_UNTIL, PATH_GLOBALLY, PATH_CUMULATIVE };
/* Largest step bound K (PRISM's int). */
#define PROP_MAX_STEPS 2147483647LL
/* prop_decide's answers. */
enum { PROP_FALSE = 0, PROP_TRUE = 1, PROP_UNDECIDED = -1 };
enum phi_op { PHI_TRUE, PHI_FALSE, PHI_LABEL, PHI_NOT, PHI_AND, PHI_OR };

struct phi {
    enum phi_op op;
    char *label;          /* PHI_LABEL: the name (owned)                   */
    int col;              /* column of the token, for errors              */
    struct phi *a, *b;    /* operands (owned)                              */
};

struct property {
    enum prop_kind kind;  /* min or max: as written, else PRISM's reading  */
    int opt_given;        /* "min"/"max" written                           */
    enum prop_cmp cmp;
    double bound;         /* the p of P~p, the r of R~r                    */
    enum prop_path path;
    int64_t steps;        /* step bound of F, U, G, C; -1: unbounded       */
    struct phi *phi1;     /* left of U; NULL otherwise (owned)             */
    struct phi *phi2;     /* F, U: the target; G: the invariant; NULL for C
                             (owned)                                       */
    char *text;           /* the property as written, trimmed (owned)      */
    char *name;           /* its name in a file, or NULL (owned)           */
    char *reward_name;    /* R{"NAME"}: NAME (owned), else NULL            */
    int reward_index;     /* R{N}: N (1-based), else 0                     */
    int reward_col;       /* column of the reward reference, for errors   */
    char file[256];       /* where it came from, for errors                */
    int line;
};

/* Parses text (one property, no name, no ';').  file/line locate errors
 * (file may be NULL: "property").  On error *out is zeroed. */
int prop_parse(const char *text, const char *file, int line, struct property *out,
               struct wx_error *err);
void prop_free(struct property *p);

/* Reads a property file: *props (malloc'ed array of *n) is freed with
 * prop_free_all. */
int prop_read_file(const char *path, struct property **props, size_t *n, struct wx_error *err);
void prop_free_all(struct property *props, size_t n);

/* Evaluates phi on every state: out[s] = 1 or 0 (n_states bytes).
 * initial (n_states bytes, may be NULL) gives "init" when there is no such
 * label.  WX_EINPUT (located at the property) for an unknown label. */
int prop_eval(const struct property *p, const struct phi *phi, const struct mdp *m,
              const struct mdp_labels *labels, const uint8_t *initial, uint8_t *out,
              struct wx_error *err);

/* "Pmax", "Pmin", "Rmax", "Rmin". */
const char *prop_kind_name(enum prop_kind k);
/* "=?", "<", "<=", ">", ">=". */
const char *prop_cmp_name(enum prop_cmp c);

/* 1 for the forms that mdpcheck_run solves as they are: "=?" of an
 * unbounded F or U (with or without min/max). */
int prop_is_basic(const struct property *p);

/* The answer of a comparison whose value is known to lie in [lo, hi]
 * (lo <= hi; +inf allowed for rewards): PROP_TRUE when every value in
 * [lo, hi] satisfies it, PROP_FALSE when none does, else PROP_UNDECIDED.
 * Never called for PROP_QUERY. */
int prop_decide(const struct property *p, double lo, double hi);

/* Whether p can be checked on m: "=?" without min/max needs at most one
 * choice per state.  WX_EINPUT, located at the property, otherwise. */
int prop_check_model(const struct property *p, const struct mdp *m, struct wx_error *err);
/* Which of rm's reward structures a reward property uses: R{"name"} the one
 * of that name, R{N} the N-th, plain R the first (*index = 0; also for
 * P properties).  WX_EINPUT, located at the reference, when the name is
 * unknown or N exceeds rm->n. */
int prop_reward_model(const struct property *p, const struct mdp_reward_models *rm, int *index,
                      struct wx_error *err);


#endif
