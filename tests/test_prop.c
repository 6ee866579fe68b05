/*
 * test_prop.c -- analysis/prop: the property parser and evaluator.
 *
 *  - Accepted properties: kinds, F and U, precedence (! over & over |),
 *    parentheses, blanks, true/false; the evaluation of each on a small
 *    labelled model is compared with the set written by hand.
 *  - Random formulas: 300 random boolean formulas over 3 labels are printed,
 *    parsed and evaluated on every state, against a direct evaluation of
 *    the generated tree (so parsing and precedence are checked together).
 *  - Errors: each malformed property gives WX_EINPUT at the right column.
 *  - Property files: names, ';', comments, PRISM definition lines, and
 *    errors located at file:line:col.
 *  - "init" and "deadlock" without such labels.
 *  - PRISM's other forms: comparisons P~p / R~r (with and without min/max,
 *    and which of min or max each takes), step bounds of F, U, G and C
 *    (<=k and <k), prop_decide's truth table at and around the bound, and
 *    prop_check_model's refusal of P=? on an MDP.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/prop.h"
#include "graph/mdp.h"
#include "graph/mdp_lab.h"
#include "tests/check.h"
#include "tests/rng.h"

/* 8 states; labels a = {0,1,2,3}, b = {0,1,4,5}, c = {0,2,4,6}; state 7
 * has no choice (a deadlock); the others a self-loop. */
static struct mdp model;
static struct mdp_labels labels;

static void setup(void)
{
    static uint64_t ss[9], cs[8];
    static uint32_t tg[7];
    static double pr[7];
    for (int s = 0; s < 8; s++)
        ss[s + 1] = s < 7 ? (uint64_t)s + 1 : 7;
    for (int c = 0; c < 8; c++)
        cs[c] = (uint64_t)c;
    for (int e = 0; e < 7; e++)
        tg[e] = (uint32_t)e, pr[e] = 1;
    model = (struct mdp){.n_states = 8, .n_choices = 7, .n_entries = 7, .state_start = ss,
                         .choice_start = cs, .targets = tg, .probs = pr};
    mdp_labels_init(&labels, 8);
    const char *names[] = {"a", "b", "c"};
    for (int l = 0; l < 3; l++) {
        int id = mdp_labels_add(&labels, names[l]);
        for (int s = 0; s < 8; s++)
            if (!((s >> (2 - l)) & 1))
                mdp_labels_set(&labels, id, (uint64_t)s);
    }
}

/* The set of phi2 as a bit mask over the 8 states. */
static int eval_mask(const struct property *p, const struct phi *f, const uint8_t *initial,
                     struct wx_error *err)
{
    uint8_t out[8];
    if (prop_eval(p, f, &model, &labels, initial, out, err) != WX_OK)
        return -1;
    int m = 0;
    for (int s = 0; s < 8; s++)
        m |= out[s] << s;
    return m;
}

static void accepts(const char *text, enum prop_kind kind, int until, int mask2)
{
    struct property p;
    struct wx_error err;
    if (!check(prop_parse(text, NULL, 1, &p, &err) == WX_OK, "parses: %s", text)) {
        printf("  %s\n", err.msg);
        return;
    }
    int m = eval_mask(&p, p.phi2, NULL, &err);
    check(p.kind == kind && (p.phi1 != NULL) == until && m == mask2,
          "%s: kind %s, %s, target set 0x%02x (expected 0x%02x)", text, prop_kind_name(p.kind),
          p.phi1 ? "U" : "F", m, mask2);
    prop_free(&p);
}

static void rejects(const char *text, int col, const char *msg)
{
    struct property p;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = prop_parse(text, NULL, 1, &p, &err);
    if (rc == WX_OK) {
        rc = p.phi2 && eval_mask(&p, p.phi2, NULL, &err) < 0 ? err.code : WX_OK;
        if (rc == WX_OK && p.phi1)
            rc = eval_mask(&p, p.phi1, NULL, &err) < 0 ? err.code : WX_OK;
        prop_free(&p);
    }
    check(rc == WX_EINPUT && err.col == col && strstr(err.msg, msg) &&
              !strcmp(err.file, "property") && err.line == 1,
          "rejects '%s' at column %d with '%s' (found %d at %s:%d:%d: %s)", text, col, msg, rc,
          err.file, err.line, err.col, err.msg);
}

/* ---- random formulas ---- */

/* Writes a random formula of depth <= d into buf and returns its mask. */
/* R{"name"} and R{N}: the reference is kept, with its column. */
static void reward_references(void)
{
    struct property p;
    struct wx_error err;
    check(prop_parse("R{\"time\"}min=? [ F \"a\" ]", NULL, 1, &p, &err) == WX_OK &&
              p.kind == PROP_RMIN && p.reward_name && !strcmp(p.reward_name, "time") &&
              p.reward_index == 0 && p.reward_col == 3,
          "R{\"time\"}min keeps the name");
    prop_free(&p);
    check(prop_parse("R{ 12 }max=? [ F \"a\" ]", NULL, 1, &p, &err) == WX_OK &&
              p.kind == PROP_RMAX && !p.reward_name && p.reward_index == 12 && p.reward_col == 4,
          "R{ 12 }max keeps the index");
    prop_free(&p);
    check(prop_parse("Rmax=? [ F \"a\" ]", NULL, 1, &p, &err) == WX_OK && !p.reward_name &&
              p.reward_index == 0,
          "plain Rmax has no reference");
    prop_free(&p);
}

static int gen(char *buf, size_t size, int d)
{
    static const int lab_mask[3] = {0x0f, 0x33, 0x55};
    unsigned k = d <= 0 ? (unsigned)rnd_below(5) : (unsigned)rnd_below(9);
    char l[512], r[512];
    switch (k) {
    case 0: case 1: case 2:
        snprintf(buf, size, "%s\"%c\"", rnd_below(3) ? "" : " ", 'a' + k);
        return lab_mask[k];
    case 3:
        snprintf(buf, size, "true");
        return 0xff;
    case 4:
        snprintf(buf, size, "false");
        return 0;
    case 5: {
        int m = gen(l, sizeof l, d - 1);
        if (snprintf(buf, size, "!%s", l) >= (int)size)
            buf[0] = 0;
        return ~m & 0xff;
    }
    case 6: {
        int m = gen(l, sizeof l, d - 1);
        if (snprintf(buf, size, "( %s)", l) >= (int)size)
            buf[0] = 0;
        return m;
    }
    default: {
        /* binary: parenthesise both operands so the mask is unambiguous,
         * except at random when precedence makes the result the same */
        int a = gen(l, sizeof l, d - 1), b = gen(r, sizeof r, d - 1);
        int and = k == 7;
        if (snprintf(buf, size, "(%s %c %s)", l, and ? '&' : '|', r) >= (int)size)
            buf[0] = 0; /* cannot happen at depth 4 */
        return and ? (a & b) : (a | b);
    }
    }
}

static void random_formulas(void)
{
    int bad = 0;
    for (uint64_t seed = 1; seed <= 300 && !bad; seed++) {
        rng_state = seed * 0x9E3779B97F4A7C15ull + 7;
        char f[600], text[700];
        int m = gen(f, sizeof f, 4);
        snprintf(text, sizeof text, "Pmin=? [ F %s ]", f);
        struct property p;
        struct wx_error err;
        if (prop_parse(text, NULL, 1, &p, &err) != WX_OK) {
            bad = !check(0, "seed %llu: %s does not parse: %s", (unsigned long long)seed, text,
                         err.msg);
            continue;
        }
        int got = eval_mask(&p, p.phi2, NULL, &err);
        if (got != m)
            bad = !check(0, "seed %llu: %s gives 0x%02x, expected 0x%02x", (unsigned long long)seed,
                         text, got, m);
        prop_free(&p);
    }
    check(!bad, "300 random formulas: parsed and evaluated as generated");
    /* precedence without parentheses */
    accepts("Pmax=? [ F \"a\" | \"b\" & \"c\" ]", PROP_PMAX, 0, 0x0f | (0x33 & 0x55));
    accepts("Pmax=? [ F !\"a\" & \"b\" ]", PROP_PMAX, 0, ~0x0f & 0x33 & 0xff);
    accepts("Pmax=? [ F \"a\" & \"b\" | \"c\" ]", PROP_PMAX, 0, (0x0f & 0x33) | 0x55);
    accepts("Pmax=? [ F !!\"a\" ]", PROP_PMAX, 0, 0x0f);
}

/* A parsed form: comparison, bound, path, steps, kind and opt_given. */
static void form(const char *text, enum prop_cmp cmp, double bound, enum prop_path path,
                 int64_t steps, enum prop_kind kind, int opt_given)
{
    struct property p;
    struct wx_error err;
    if (!check(prop_parse(text, NULL, 1, &p, &err) == WX_OK, "parses: %s", text)) {
        printf("  %s\n", err.msg);
        return;
    }
    check(p.cmp == cmp && p.bound == bound && p.path == path && p.steps == steps &&
              p.kind == kind && p.opt_given == opt_given && prop_is_basic(&p) ==
              (cmp == PROP_QUERY && path == PATH_UNTIL && steps < 0),
          "%s: cmp %s bound %g path %d steps %lld kind %s opt %d", text, prop_cmp_name(p.cmp),
          p.bound, (int)p.path, (long long)p.steps, prop_kind_name(p.kind), p.opt_given);
    prop_free(&p);
}

static void decides(const char *text, double lo, double hi, int expect)
{
    struct property p;
    struct wx_error err;
    if (prop_parse(text, NULL, 1, &p, &err) != WX_OK) {
        check(0, "parses: %s: %s", text, err.msg);
        return;
    }
    int d = prop_decide(&p, lo, hi);
    check(d == expect, "%s on [%.17g, %.17g]: %d (expected %d)", text, lo, hi, d, expect);
    prop_free(&p);
}

static void comparisons_and_paths(void)
{
    /* without min/max: > and >= take the minimum, < and <= the maximum */
    form("P>=0.5 [ F \"a\" ]", PROP_GE, 0.5, PATH_UNTIL, -1, PROP_PMIN, 0);
    form("P>0.25 [ F \"a\" ]", PROP_GT, 0.25, PATH_UNTIL, -1, PROP_PMIN, 0);
    form("P<1e-3 [ F \"a\" ]", PROP_LT, 1e-3, PATH_UNTIL, -1, PROP_PMAX, 0);
    form("P <= .5 [ F \"a\" ]", PROP_LE, 0.5, PATH_UNTIL, -1, PROP_PMAX, 0);
    form("Pmax>=1 [ F \"a\" ]", PROP_GE, 1, PATH_UNTIL, -1, PROP_PMAX, 1);
    form("Pmin<0 [ F \"a\" ]", PROP_LT, 0, PATH_UNTIL, -1, PROP_PMIN, 1);
    form("P=? [ F \"a\" ]", PROP_QUERY, 0, PATH_UNTIL, -1, PROP_PMAX, 0);
    form("R{\"r\"}<=2.5 [ F \"a\" ]", PROP_LE, 2.5, PATH_UNTIL, -1, PROP_RMAX, 0);
    form("R>3 [ C<=4 ]", PROP_GT, 3, PATH_CUMULATIVE, 4, PROP_RMIN, 0);
    form("Rmax=? [ C<=0 ]", PROP_QUERY, 0, PATH_CUMULATIVE, 0, PROP_RMAX, 1);
    /* step bounds: <=k is k, <k is k-1 */
    form("Pmax=? [ F<=10 \"a\" ]", PROP_QUERY, 0, PATH_UNTIL, 10, PROP_PMAX, 1);
    form("Pmax=? [ F < 10 \"a\" ]", PROP_QUERY, 0, PATH_UNTIL, 9, PROP_PMAX, 1);
    form("Pmin=? [ \"a\" U<=3 \"b\" ]", PROP_QUERY, 0, PATH_UNTIL, 3, PROP_PMIN, 1);
    form("Pmin=? [ G \"a\" ]", PROP_QUERY, 0, PATH_GLOBALLY, -1, PROP_PMIN, 1);
    form("P>=0.9 [ G<=0 \"a\" ]", PROP_GE, 0.9, PATH_GLOBALLY, 0, PROP_PMIN, 0);
    form("Pmax=? [ F<=2147483647 \"a\" ]", PROP_QUERY, 0, PATH_UNTIL, PROP_MAX_STEPS, PROP_PMAX, 1);
    accepts("Pmax=? [ \"a\" U<=1 \"c\" & !\"b\" ]", PROP_PMAX, 1, 0x55 & ~0x33 & 0xff);
    accepts("Pmin=? [ G !\"a\" ]", PROP_PMIN, 0, 0xf0);

    rejects("P>=1.5 [ F \"a\" ]", 4, "a probability bound must lie in [0, 1]");
    rejects("P>=-1 [ F \"a\" ]", 4, "a number");
    rejects("P>=inf [ F \"a\" ]", 4, "a number");
    rejects("P>= [ F \"a\" ]", 5, "a number");
    rejects("P==0.5 [ F \"a\" ]", 3, "'?'");
    rejects("Pmax=? [ F<=x \"a\" ]", 13, "a number of steps");
    rejects("Pmax=? [ F<0 \"a\" ]", 12, "'<0' bounds no step");
    rejects("Pmax=? [ F<=2147483648 \"a\" ]", 13, "step bound too large");
    rejects("Pmax=? [ C<=3 ]", 10, "C<=k (cumulative reward) is a reward path");
    rejects("Rmax=? [ C<3 ]", 11, "'<=' (C<=k)");
    rejects("Rmax=? [ C ]", 12, "'<=' and a number of steps");
    rejects("Rmax=? [ G \"a\" ]", 10, "not G");
    rejects("Rmax=? [ F<=3 \"a\" ]", 10, "without a step bound");
    rejects("Rmax>=1e999 [ F \"a\" ]", 7, "a reward bound must be finite");

    /* prop_decide: at, just below and just above the bound */
    double b = 0.5, below = nextafter(b, 0), above = nextafter(b, 1);
    decides("P>=0.5 [ F \"a\" ]", b, b, PROP_TRUE);
    decides("P>=0.5 [ F \"a\" ]", below, b, PROP_UNDECIDED);
    decides("P>=0.5 [ F \"a\" ]", 0.1, below, PROP_FALSE);
    decides("P>0.5 [ F \"a\" ]", b, above, PROP_UNDECIDED);
    decides("P>0.5 [ F \"a\" ]", above, 1, PROP_TRUE);
    decides("P>0.5 [ F \"a\" ]", 0, b, PROP_FALSE);
    decides("P<=0.5 [ F \"a\" ]", b, b, PROP_TRUE);
    decides("P<=0.5 [ F \"a\" ]", b, above, PROP_UNDECIDED);
    decides("P<=0.5 [ F \"a\" ]", above, 1, PROP_FALSE);
    decides("P<0.5 [ F \"a\" ]", 0, below, PROP_TRUE);
    decides("P<0.5 [ F \"a\" ]", below, b, PROP_UNDECIDED);
    decides("P<0.5 [ F \"a\" ]", b, b, PROP_FALSE);
    decides("R<=1e300 [ F \"a\" ]", INFINITY, INFINITY, PROP_FALSE);
    decides("R>=0 [ F \"a\" ]", INFINITY, INFINITY, PROP_TRUE);

    /* P=? needs at most one choice per state (the model above has one) */
    struct property p;
    struct wx_error err;
    prop_parse("P=? [ F \"a\" ]", NULL, 1, &p, &err);
    check(prop_check_model(&p, &model, &err) == WX_OK, "P=? on a model with one choice per state");
    uint64_t ss[9] = {0, 2, 2, 2, 2, 2, 2, 2, 2}, cs[3] = {0, 1, 2};
    uint32_t tg[2] = {0, 1};
    double pr[2] = {1, 1};
    struct mdp two = {.n_states = 8, .n_choices = 2, .n_entries = 2, .state_start = ss,
                      .choice_start = cs, .targets = tg, .probs = pr};
    check(prop_check_model(&p, &two, &err) == WX_EINPUT && strstr(err.msg, "Pmin=? or Pmax=?"),
          "P=? on an MDP: %s", err.msg);
    prop_free(&p);
    prop_parse("P>=0.5 [ F \"a\" ]", NULL, 1, &p, &err);
    check(prop_check_model(&p, &two, &err) == WX_OK, "P>=p on an MDP (the minimum)");
    prop_free(&p);
}

static void files(void)
{
    char path[] = "/tmp/warpex_prop_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs("// a comment\n# another\n\nlabel \"x\" = s=1;\nconst int K = 2;\n"
          "\"first\": Pmax=? [ F \"a\" ];\n  Rmin=? [ F \"b\" ]  \n\"third\" : Pmin=? [ \"a\" U \"c\" ] ;\n",
          f);
    fclose(f);
    struct property *props;
    size_t n;
    struct wx_error err;
    int rc = prop_read_file(path, &props, &n, &err);
    check(rc == WX_OK && n == 3 && props[0].name && !strcmp(props[0].name, "first") &&
              !props[1].name && props[2].name && !strcmp(props[2].name, "third") &&
              props[0].line == 6 && props[1].kind == PROP_RMIN && props[2].phi1 &&
              !strcmp(props[1].text, "Rmin=? [ F \"b\" ]"),
          "property file: 3 properties, names, lines, comments and definitions skipped (%s)",
          rc ? err.msg : "ok");
    if (rc == WX_OK)
        prop_free_all(props, n);
    f = fopen(path, "w");
    fputs("Pmax=? [ F \"a\" ]\n\"bad\": Pmax=? [ F \"a\" & ];\n", f);
    fclose(f);
    rc = prop_read_file(path, &props, &n, &err);
    check(rc == WX_EINPUT && err.line == 2 && err.col == 25 && !strcmp(err.file, path),
          "property file error located at line 2 col 25 (found %d:%d: %s)", err.line, err.col,
          err.msg);
    f = fopen(path, "w");
    fputs("// nothing\n", f);
    fclose(f);
    rc = prop_read_file(path, &props, &n, &err);
    check(rc == WX_EINPUT && strstr(err.msg, "no property"), "empty property file: %s", err.msg);
    remove(path);
    rc = prop_read_file(path, &props, &n, &err);
    check(rc == WX_EINPUT, "missing property file: %s", err.msg);
}

int main(void)
{
    setup();
    accepts("Pmax=? [ F \"a\" ]", PROP_PMAX, 0, 0x0f);
    accepts("Pmin=?[F\"b\"]", PROP_PMIN, 0, 0x33);
    accepts("  Rmax=? [ F true ]  ", PROP_RMAX, 0, 0xff);
    accepts("Rmin =? [ F false ]", PROP_RMIN, 0, 0);
    accepts("Pmax=? [ \"a\" U \"c\" & !\"b\" ]", PROP_PMAX, 1, 0x55 & ~0x33 & 0xff);
    accepts("Pmin=? [ (\"a\" | \"b\") U (\"c\") ]", PROP_PMIN, 1, 0x55);
    accepts("Pmax=? [ F \"deadlock\" ]", PROP_PMAX, 0, 0x80);
    accepts("Pmax=? [ F\"a\"|(\"b\")]", PROP_PMAX, 0, 0x0f | 0x33);
    random_formulas();

    /* "init" from the initial-state vector when there is no such label */
    struct property p;
    struct wx_error err;
    prop_parse("Pmax=? [ F \"init\" ]", NULL, 1, &p, &err);
    uint8_t init[8] = {0, 0, 1, 0, 0, 0, 0, 0};
    check(eval_mask(&p, p.phi2, init, &err) == 0x04, "\"init\" without a label: the initial states");
    check(eval_mask(&p, p.phi2, NULL, &err) < 0 && strstr(err.msg, "unknown label \"init\""),
          "\"init\" without label nor initial states: an error");
    prop_free(&p);

    rejects("Pmax=? [ F \"zz\" ]", 12, "unknown label \"zz\"");
    rejects("Pmax=? [ F \"a\" & ]", 18, "expected a state formula");
    rejects("Pmax=? [ X \"a\" ]", 10, "expected a state formula");
    rejects("Pmax=? [ \"a\" G \"a\" ]", 14, "'U' (phi1 U phi2) or ']'");
    rejects("Pavg=? [ F \"a\" ]", 1, "Pmin, Pmax, P, Rmin, Rmax or R");
    rejects("Pmax=0.5 [ F \"a\" ]", 6, "'?'");
    rejects("Pmax [ F \"a\" ]", 6, "'=?', '<', '<=', '>' or '>='");
    rejects("Pmax=? F \"a\"", 8, "'['");
    rejects("Pmax=? [ F \"a\" ] x", 18, "the end of the property");
    rejects("Pmax=? [ F \"a\"", 15, "']'");
    rejects("Pmax=? [ F (\"a\" ]", 17, "')'");
    rejects("Pmax=? [ F \"a ]", 16, "'\"' closing the label name");
    rejects("Pmax=? [ F \"\" ]", 12, "a label name between the quotes");
    rejects("Rmax=? [ \"a\" U \"b\" ]", 10, "reward properties take F phi or C<=k, not U");
    rejects("P{\"time\"}min=? [ F \"a\" ]", 2, "'min' or 'max' (only R takes a reward structure");
    rejects("R{0}min=? [ F \"a\" ]", 3, "a reward structure: {\"name\"} or {N}");
    rejects("R{x}min=? [ F \"a\" ]", 3, "a reward structure: {\"name\"} or {N}");
    rejects("R{\"\"}min=? [ F \"a\" ]", 4, "a reward structure's name");
    rejects("R{\"time}min=? [ F \"a\" ]", 20, "'}'");
    rejects("R{2 min=? [ F \"a\" ]", 5, "'}'");
    rejects("R{99999999}min=? [ F \"a\" ]", 3, "reward structure index out of range");
    reward_references();
    rejects("Pmax=? [ F \"a\" U \"b\" ]", 16, "']'");
    rejects("Pmax=? [ F Fa ]", 12, "a state formula");
    rejects("", 1, "expected P or R");
    comparisons_and_paths();
    files();
    mdp_labels_free(&labels);
    return check_exit();
}
