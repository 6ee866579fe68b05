/*
 * test_naive.c -- the oracle checked by hand: one small network per EXP
 * construct, with state / transition / deadlock counts (and label sets)
 * computed by hand in the comments; plus the oracle's .aut reader, its
 * error paths, and the random generator's own invariants (determinism,
 * product bound, files readable back with the same product).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "naive/naive.c"
#include "randnet/randnet.c"

static char dir[256];

/* Component LTSs used below, written as .aut files into `dir`. */
static const struct { const char *name, *text; } comps[] = {
    /* P: 0 -a-> 1 -b-> 0 */
    { "P", "des (0, 2, 2)\n(0, a, 1)\n(1, b, 0)\n" },
    /* Q: 0 -a-> 1 -c-> 0 */
    { "Q", "des (0, 2, 2)\n(0, a, 1)\n(1, \"c\", 0)\n" },
    /* R: initial 2; 2 -a-> 2; 0 -b-> 1 unreachable */
    { "R", "des (2, 2, 3)\n(2, a, 2)\n(0, b, 1)\n" },
    /* A: 0 -g !1-> 1, 0 -g !2-> 2 */
    { "A", "des (0, 2, 3)\n(0, \"g !1\", 1)\n(0, \"g !2\", 2)\n" },
    /* B: 0 -h !1-> 1, 0 -h !3-> 2 */
    { "B", "des (0, 2, 3)\n(0, \"h !1\", 1)\n(0, \"h !3\", 2)\n" },
    /* C: 0 -i-> 1 -a-> 0 */
    { "C", "des (0, 2, 2)\n(0, i, 1)\n(1, a, 0)\n" },
    /* N: 0 -a-> 1, 2, 3 */
    { "N", "des (0, 3, 4)\n(0, a, 1)\n(0, a, 2)\n(0, a, 3)\n" },
    /* M: 0 -a-> 1, 2 (with a duplicate line) */
    { "M", "des (0, 3, 3)\r\n(0, a, 1) \r\n(0, a, 2)\r\n(0, a, 2)\r\n" },
    /* G: 0 -a-> 1 */
    { "G", "des (0, 1, 2)\n(0, a, 1)\n" },
    /* E: 0 -exit-> 1 */
    { "E", "des (0, 1, 2)\n(0, exit, 1)\n" },
    /* F: 0 -a-> 1 -exit-> 2 */
    { "F", "des (0, 2, 3)\n(0, a, 1)\n(1, exit, 2)\n" },
    /* W: quoted label with embedded quotes */
    { "W", "des (0, 1, 2)\n(0, \"MSG !\"a,b\" !\"x\"\", 1)\n" },
    /* for the EXP manual's examples */
    { "F1", "des (0, 2, 3)\n(0, b, 1)\n(0, c, 2)\n" },
    { "F2", "des (0, 1, 2)\n(0, b, 1)\n" },
    { "F4", "des (0, 1, 2)\n(0, c, 1)\n" },
    { "V1", "des (0, 2, 3)\n(0, \"G1 !5\", 1)\n(0, H, 2)\n" },
    { "V2", "des (0, 2, 3)\n(0, \"G2 !5\", 1)\n(0, \"G2 !6\", 2)\n" },
    { "V3", "des (0, 2, 3)\n(0, \"G3 !5\", 1)\n(0, X, 2)\n" },
    /* PP: 0 -A-> 1, 0 -B-> 2, 1 -C-> 0;  QQ: 0 -B-> 1 -D-> 0 (tests/t_prio.sh's) */
    { "PP", "des (0, 3, 3)\n(0, A, 1)\n(0, B, 2)\n(1, C, 0)\n" },
    { "QQ", "des (0, 2, 2)\n(0, B, 1)\n(1, D, 0)\n" },
    /* ZY: 0 -Z-> 1 -Y-> 1 */
    { "ZY", "des (0, 2, 2)\n(0, Z, 1)\n(1, Y, 1)\n" },
    /* UX: 0 -A-> 1, 0 -B-> 1; 2 -X-> 0 unreachable */
    { "UX", "des (0, 3, 3)\n(0, A, 1)\n(0, B, 1)\n(2, X, 0)\n" },
    /* H: 0 -i-> 1, 0 -a-> 2 */
    { "H", "des (0, 2, 3)\n(0, i, 1)\n(0, a, 2)\n" },
    /* T: 0 -i-> 1 -exit-> 2, plus 0 -t-> 0 */
    { "T", "des (0, 3, 3)\n(0, i, 1)\n(1, exit, 2)\n(0, t, 0)\n" },
};

static struct naive_options opts(void)
{
    struct naive_options o = { 0 };
    o.base_dir = dir;
    return o;
}

/* Sorted "|"-joined label set collector. */
struct labs { char text[1024]; char *l[64]; size_t n; };

static void collect(void *ctx, const char *label, bool hidden, uint64_t count)
{
    struct labs *L = ctx;
    if (L->n < 64)
        L->l[L->n++] = strdup(hidden ? "<i>" : label);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Explores n, checks counts, optionally the label set; frees n. */
static void expect(const char *name, struct exp_node *n, uint64_t states, uint64_t trans,
                   uint64_t dead, const char *labels)
{
    struct naive_options o = opts();
    struct labs L = { .n = 0 };
    o.label_fn = collect;
    o.label_ctx = &L;
    struct naive_result r;
    struct wx_error err;
    int rc = naive_explore(n, &o, &r, &err);
    if (!check(rc == WX_OK, "%s: explores (%s)", name, rc ? err.msg : "ok")) {
        exp_node_free(n);
        return;
    }
    CHECK_EQ_U64(r.states, states, "%s: states", name);
    CHECK_EQ_U64(r.transitions, trans, "%s: transitions", name);
    CHECK_EQ_U64(r.deadlocks, dead, "%s: deadlocks", name);
    qsort(L.l, L.n, sizeof *L.l, cmp_str);
    L.text[0] = 0;
    for (size_t i = 0; i < L.n; i++) {
        if (i)
            strcat(L.text, "|");
        strncat(L.text, L.l[i], sizeof L.text - strlen(L.text) - 2);
        free(L.l[i]);
    }
    if (labels)
        check(strcmp(L.text, labels) == 0, "%s: labels: expected \"%s\", found \"%s\"", name,
              labels, L.text);
    exp_node_free(n);
}

static void expect_error(const char *name, struct exp_node *n, int code)
{
    struct naive_options o = opts();
    o.max_states = 3;
    struct naive_result r;
    struct wx_error err;
    int rc = naive_explore(n, &o, &r, &err);
    check(rc == code, "%s: expected error %d, found %d (%s)", name, code, rc, err.msg);
    exp_node_free(n);
}

#define L(x) rn_leaf(x)
#define ARR(...) ((const char *const[]){ __VA_ARGS__ })
#define OPS(...) ((struct exp_node *const[]){ __VA_ARGS__ })

static void test_basic(void)
{
    expect("leaf P", L("P"), 2, 2, 0, "a|b");
    expect("leaf P.aut", L("P.aut"), 2, 2, 0, "a|b");
    expect("leaf R, initial 2, unreachable part", L("R"), 1, 1, 0, "a");
    /* P || Q: a synchronises, then b and c (in "all") are blocked */
    expect("P || Q", rn_lotos_sync(L("P"), L("Q")), 2, 1, 1, "a");
    /* P ||| Q: 4 states, 2 moves each */
    expect("P ||| Q", rn_lotos_interleave(L("P"), L("Q")), 4, 8, 0, "a|b|c");
    /* P |[a]| Q: (00)-a->(11)-b->(01)-c->(00), (11)-c->(10)-b->(00) */
    expect("P |[a]| Q", rn_lotos_par(1, ARR("a"), L("P"), L("Q")), 4, 5, 0, "a|b|c");
    expect("hide a in P |[a]| Q",
           rn_hide(EXP_MODE_GATE, false, 1, ARR("a"), rn_lotos_par(1, ARR("a"), L("P"), L("Q"))),
           4, 5, 0, "<i>|b|c");
    /* N || M: 3 * 2 joint targets */
    expect("N || M nondeterminism", rn_lotos_sync(L("N"), L("M")), 7, 6, 6, "a");
    /* exit synchronises even in |||: (00)-a->(01)-exit->(12) */
    expect("E ||| F exit", rn_lotos_interleave(L("E"), L("F")), 3, 2, 1, "a|exit");
    /* T ||| T: i and t interleave, exit synchronises */
    expect("T ||| T", rn_lotos_interleave(L("T"), L("T")), 5, 8, 1, "<i>|exit|t");
}

static void test_vectors(void)
{
    /* label mode: a*a->x, b*_->b: (00)-x->(11)-b->(01), then stuck */
    struct exp_node *v = rn_par_vectors(true, 2, OPS(L("P"), L("Q")));
    rn_add_vector(v, ARR("a", "a"), "x");
    rn_add_vector(v, ARR("b", NULL), "b");
    expect("label vectors", v, 3, 2, 1, "b|x");

    /* gate mode: offers must agree; result = R + offers */
    v = rn_par_vectors(false, 2, OPS(L("A"), L("B")));
    rn_add_vector(v, ARR("g", "h"), "r");
    rn_add_vector(v, ARR("g", NULL), "s");
    expect("gate vectors with offers", v, 4, 3, 3, "r !1|s !1|s !2");

    /* the same in label mode: "g !1" * "h !1" -> "r" */
    v = rn_par_vectors(true, 2, OPS(L("A"), L("B")));
    rn_add_vector(v, ARR("g !1", "h !1"), "r");
    expect("label vectors with offers", v, 2, 1, 1, "r");

    /* hidden steps interleave; the same file twice is two components */
    v = rn_par_vectors(false, 2, OPS(L("C"), L("C")));
    rn_add_vector(v, ARR("a", "a"), "a");
    expect("hidden interleaving in vectors", v, 4, 5, 0, "<i>|a");

    /* one operand, one single-participant vector; unmatched b blocked */
    v = rn_par_vectors(false, 1, OPS(L("P")));
    rn_add_vector(v, ARR("a"), "z");
    expect("one-operand vector par", v, 2, 1, 1, "z");

    /* one transition in several vectors; results may coincide */
    v = rn_par_vectors(true, 2, OPS(L("G"), L("G")));
    rn_add_vector(v, ARR("a", NULL), "a");
    rn_add_vector(v, ARR("a", "a"), "a");
    rn_add_vector(v, ARR("a", "a"), "a");   /* duplicate vector: same triple */
    /* (00)-a->(10) and (00)-a->(11); nobody moves alone from (10): the
     * second operand has no single-participant vector */
    expect("overlapping vectors", v, 3, 2, 2, "a");

    /* vector result "i" is a hidden step */
    v = rn_par_vectors(true, 1, OPS(L("G")));
    rn_add_vector(v, ARR("a"), "i");
    expect("vector result i", v, 2, 1, 1, "<i>");

    /* nested: vector par inside LOTOS par */
    v = rn_par_vectors(true, 2, OPS(L("P"), L("Q")));
    rn_add_vector(v, ARR("a", "a"), "a");
    rn_add_vector(v, ARR("b", NULL), "b");
    rn_add_vector(v, ARR(NULL, "c"), "c");
    /* (00)-a->(11), then b, c interleave back to (00): 4 states; with G
     * synchronising on a (all): G moves once, then a is blocked */
    expect("vector par inside ||", rn_lotos_sync(v, L("G")), 2, 1, 1, "a");
}

static void test_general(void)
{
    /* any 2 of 3 */
    struct exp_node *p = rn_par_general(false, false, 3, OPS(L("G"), L("G"), L("G")));
    rn_add_global(p, "a", 2);
    expect("par a#2", p, 4, 3, 3, "a");
    /* a#1 and a#2: all 8 subsets, 6 + 3*3 + 3*1 transitions */
    p = rn_par_general(false, false, 3, OPS(L("G"), L("G"), L("G")));
    rn_add_global(p, "a", 1);
    rn_add_global(p, "a", 2);
    expect("par a#1, a#2", p, 8, 18, 1, "a");
    /* a#0 forbids a */
    p = rn_par_general(false, false, 2, OPS(L("G"), L("G")));
    rn_add_global(p, "a", 0);
    expect("par a#0", p, 1, 0, 1, "");
    /* locals: operands 0 and 1 synchronise, 2 runs alone */
    p = rn_par_general(false, false, 3, OPS(L("G"), L("G"), L("G")));
    rn_add_local(p, 0, "a", -1);
    rn_add_local(p, 1, "a", -1);
    expect("local a", p, 4, 4, 1, "a");
    /* local a#2 everywhere = global a#2 */
    p = rn_par_general(false, false, 3, OPS(L("G"), L("G"), L("G")));
    for (size_t k = 0; k < 3; k++)
        rn_add_local(p, k, "a", 2);
    expect("local a#2", p, 4, 3, 3, "a");
    /* global a (all 3) and local a#2 among 0, 1: (000)-a->(111), (110);
     * from (110) nothing (a needs all, or 0 and 1) */
    p = rn_par_general(false, false, 3, OPS(L("G"), L("G"), L("G")));
    rn_add_global(p, "a", -1);
    rn_add_local(p, 0, "a", 2);
    rn_add_local(p, 1, "a", 2);
    expect("global a + local a#2", p, 3, 2, 2, "a");
    /* label mode: "g !1" synchronises, "g !2" runs alone:
     * (00)-g!1->(11), (00)-g!2->(20),(02), (20)-g!2->(22), (02)-g!2->(22) */
    p = rn_par_general(true, false, 2, OPS(L("A"), L("A")));
    rn_add_global(p, "g !1", -1);
    expect("label par", p, 5, 5, 2, "g !1|g !2");
    /* gate mode: gate g synchronises, labels must be identical */
    p = rn_par_general(false, false, 2, OPS(L("A"), L("A")));
    rn_add_global(p, "g", -1);
    expect("gate par identical labels", p, 3, 2, 2, "g !1|g !2");
    /* all in label mode = every label */
    p = rn_par_general(true, true, 2, OPS(L("P"), L("Q")));
    expect("label par all", p, 2, 1, 1, "a");
}

/* The examples of CADP's exp(LOCAL) page, with small leaves. */
static void test_manual_examples(void)
{
    /* gate par G in G1#2, G2 -> f1 || G1#2 -> f2 || G1#2 -> f3 || G2 -> f4
     * with G = a, G1 = b, G2 = c: (0000) -b-> 1100, 1010, 0110 (any two of
     * f1..f3), -c-> 2001 (f1 with f4); 0110 -c-> 2111; 2001 -b-> 2111 */
    struct exp_node *p =
        rn_par_general(false, false, 4, OPS(L("F1"), L("F2"), L("F2"), L("F4")));
    rn_add_global(p, "a", -1);
    rn_add_local(p, 0, "b", 2);
    rn_add_local(p, 0, "c", -1);
    rn_add_local(p, 1, "b", 2);
    rn_add_local(p, 2, "b", 2);
    rn_add_local(p, 3, "c", -1);
    expect("manual: local G1#2 and G2", p, 6, 6, 3, "b|c");
    /* gate par G#1, G#2 -> f1 || G#1, G#2 -> f2 || G#1, G#2 -> f3: pairs or
     * alone, as with the global a#1, a#2 */
    p = rn_par_general(false, false, 3, OPS(L("G"), L("G"), L("G")));
    for (size_t k = 0; k < 3; k++) {
        rn_add_local(p, k, "a", 1);
        rn_add_local(p, k, "a", 2);
    }
    expect("manual: local G#1, G#2", p, 8, 18, 1, "a");
    /* gate par using G1 || _ || G3 -> G13, G1 || G2 || _ -> G12,
     * G1 || _ || _ -> G1, H || _ || _ -> H: offers carried to the results;
     * "G2 !6" and X fit no vector and are blocked */
    p = rn_par_vectors(false, 3, OPS(L("V1"), L("V2"), L("V3")));
    rn_add_vector(p, ARR("G1", NULL, "G3"), "G13");
    rn_add_vector(p, ARR("G1", "G2", NULL), "G12");
    rn_add_vector(p, ARR("G1", NULL, NULL), "G1");
    rn_add_vector(p, ARR("H", NULL, NULL), "H");
    expect("manual: vectors", p, 5, 4, 4, "G1 !5|G12 !5|G13 !5|H");
}

static void test_hide_cut_rename(void)
{
    expect("total hide", rn_hide(EXP_MODE_TOTAL, false, 1, ARR("g !1"), L("A")), 3, 2, 2,
           "<i>|g !2");
    expect("gate hide regex", rn_hide(EXP_MODE_GATE, false, 1, ARR("[gh]"), L("A")), 3, 2, 2,
           "<i>");
    expect("partial hide", rn_hide(EXP_MODE_PARTIAL, false, 1, ARR("2"), L("A")), 3, 2, 2,
           "<i>|g !1");
    expect("hide all but", rn_hide(EXP_MODE_TOTAL, true, 1, ARR("g !1"), L("A")), 3, 2, 2,
           "<i>|g !1");
    expect("gate hide of offers-less pattern misses", rn_hide(EXP_MODE_GATE, false, 1,
           ARR("g !1"), L("A")), 3, 2, 2, "g !1|g !2");
    expect("gate cut", rn_cut(EXP_MODE_GATE, false, 1, ARR("g"), L("A")), 1, 0, 1, "");
    expect("total cut", rn_cut(EXP_MODE_TOTAL, false, 1, ARR("g !1"), L("A")), 2, 1, 1, "g !2");
    expect("partial cut", rn_cut(EXP_MODE_PARTIAL, false, 1, ARR("2"), L("A")), 2, 1, 1, "g !1");
    expect("cut all but keeps hidden", rn_cut(EXP_MODE_GATE, true, 1, ARR("b"), L("C")), 2, 1, 1,
           "<i>");
    expect("cut never removes hidden", rn_cut(EXP_MODE_TOTAL, false, 1, ARR("."), L("C")), 2, 1, 1,
           "<i>");
    expect("gate rename", rn_rename(EXP_MODE_GATE, 1, ARR("g"), ARR("h"), L("A")), 3, 2, 2,
           "h !1|h !2");
    expect("gate rename back-reference",
           rn_rename(EXP_MODE_GATE, 1, ARR("\\(g\\)"), ARR("\\1\\1"), L("A")), 3, 2, 2,
           "gg !1|gg !2");
    expect("total rename groups",
           rn_rename(EXP_MODE_TOTAL, 1, ARR("\\(g\\) !\\([12]\\)"), ARR("x\\2 !\\1"), L("A")), 3,
           2, 2, "x1 !g|x2 !g");
    expect("total rename needs whole label",
           rn_rename(EXP_MODE_TOTAL, 1, ARR("g"), ARR("h"), L("A")), 3, 2, 2, "g !1|g !2");
    expect("single rename", rn_rename(EXP_MODE_SINGLE, 1, ARR("[g!]"), ARR("?"), L("A")), 3, 2, 2,
           "? !1|? !2");
    expect("multiple rename", rn_rename(EXP_MODE_MULTIPLE, 1, ARR("[g1]"), ARR("z"), L("A")), 3, 2,
           2, "z !2|z !z");
    expect("first rule wins, no cascade",
           rn_rename(EXP_MODE_GATE, 2, ARR("g", "h"), ARR("h", "k"), L("A")), 3, 2, 2,
           "h !1|h !2");
    expect("rename never touches hidden",
           rn_rename(EXP_MODE_TOTAL, 1, ARR(".*"), ARR("x"), L("C")), 2, 2, 0, "<i>|x");
    expect("rename to i hides", rn_rename(EXP_MODE_TOTAL, 1, ARR("a"), ARR("i"), L("G")), 2, 1, 1,
           "<i>");
    /* rename merges labels: transitions to different targets stay distinct */
    expect("rename merging", rn_rename(EXP_MODE_GATE, 1, ARR("[ab]"), ARR("z"), L("P")), 2, 2, 0,
           "z");
    /* rename then synchronise: A's g becomes h, then h !1 syncs with B */
    struct exp_node *p = rn_par_general(false, false, 2,
        OPS(rn_rename(EXP_MODE_GATE, 1, ARR("g"), ARR("h"), L("A")), L("B")));
    rn_add_global(p, "h", -1);
    expect("rename below par", p, 2, 1, 1, "h !1");
    /* hide above a sync: the synchronised label becomes hidden */
    expect("hide above vectors",
           rn_hide(EXP_MODE_GATE, false, 1, ARR("r"), ({
               struct exp_node *v = rn_par_vectors(false, 2, OPS(L("A"), L("B")));
               rn_add_vector(v, ARR("g", "h"), "r");
               v;
           })),
           2, 1, 1, "<i>");
    /* merged distinct labels onto one triple: both A transitions hidden, 2
     * distinct targets, so still 2 triples */
    expect("hide merging", rn_hide(EXP_MODE_PARTIAL, false, 1, ARR("g"), L("A")), 3, 2, 2, "<i>");
}

/* prio with one rule "X1 > X2 ..." given as sets of one pattern each
 * ("!" before a pattern: all but it), added to p. */
static struct exp_node *prio_rule(struct exp_node *p, size_t n, const char *const *sets)
{
    rn_add_prio_rule(p);
    for (size_t i = 0; i < n; i++) {
        bool all_but = sets[i][0] == '!';
        const char *pat = sets[i] + all_but;
        rn_add_prio_set(p, all_but, 1, &pat);
    }
    return p;
}

#define PQ() rn_lotos_interleave(L("PP"), L("QQ"))

static void test_prio(void)
{
    /* PP ||| QQ alone: 6 states, 12 transitions (t_prio.sh) */
    expect("prio A > B", prio_rule(rn_prio(EXP_MODE_GATE, PQ()), 2, ARR("A", "B")), 4, 7, 0,
           NULL);
    struct exp_node *p = prio_rule(rn_prio(EXP_MODE_GATE, PQ()), 2, ARR("A", "D"));
    expect("prio A > D D > B", prio_rule(p, 2, ARR("D", "B")), 4, 6, 0, NULL);
    expect("prio all but A > A", prio_rule(rn_prio(EXP_MODE_GATE, PQ()), 2, ARR("!A", "A")), 4,
           6, 0, NULL);
    expect("total prio", prio_rule(rn_prio(EXP_MODE_TOTAL, PQ()), 2, ARR("A", "B")), 4, 7, 0,
           NULL);
    expect("hide above prio",
           rn_hide(EXP_MODE_GATE, false, 1, ARR("A"),
                   prio_rule(rn_prio(EXP_MODE_GATE, PQ()), 2, ARR("A", "B"))), 4, 7, 0, NULL);
    /* a cut transition above the prio still blocks: only A was possible */
    expect("cut above prio",
           rn_cut(EXP_MODE_GATE, false, 1, ARR("A"),
                  prio_rule(rn_prio(EXP_MODE_GATE, PQ()), 2, ARR("A", "B"))), 1, 0, 1, "");
    expect("prio over a synchronisation",
           prio_rule(rn_prio(EXP_MODE_GATE, rn_lotos_par(1, ARR("B"), L("PP"), L("QQ"))), 2,
                     ARR("A", "B")), 2, 2, 0, "A|C");
    /* under a par: PP's B is blocked by PP's A only, QQ's B always fires */
    expect("prio under a par",
           rn_lotos_interleave(prio_rule(rn_prio(EXP_MODE_GATE, L("PP")), 2, ARR("A", "B")),
                               L("QQ")), 4, 8, 0, "A|B|C|D");
    /* nested: the inner prio removes B, so the outer B > A never blocks A */
    expect("nested prio",
           prio_rule(rn_prio(EXP_MODE_GATE,
                             prio_rule(rn_prio(EXP_MODE_GATE, L("PP")), 2, ARR("A", "B"))),
                     2, ARR("B", "A")), 2, 2, 0, "A|C");
    /* the hidden label takes part when a pattern matches it */
    expect("hidden above by all but",
           prio_rule(rn_prio(EXP_MODE_GATE, L("H")), 2, ARR("!a", "a")), 2, 1, 1, "<i>");
    expect("hidden named", prio_rule(rn_prio(EXP_MODE_GATE, L("H")), 2, ARR("a", "i")), 2, 1, 1,
           "a");
    expect("other labels leave i alone",
           prio_rule(rn_prio(EXP_MODE_GATE, L("H")), 2, ARR("a", "b")), 3, 2, 2, "<i>|a");
    /* the relation lives on the body's labels: X names none */
    p = prio_rule(rn_prio(EXP_MODE_GATE, L("PP")), 2, ARR("A", "X"));
    expect("rules on absent labels", prio_rule(p, 2, ARR("X", "A")), 3, 3, 1, NULL);
    /* ... but X > B, A > X give A > B when X is in the body's static
     * alphabet, though no reachable state shows it: PP and ZY with
     * A * Y -> X (never reached), B * Z -> W; A blocks B in the initial
     * state: 3 states (A, W, C), where 4 without the prio */
    struct exp_node *v = rn_par_vectors(false, 2, OPS(L("PP"), L("ZY")));
    rn_add_vector(v, ARR("A", NULL), "A");
    rn_add_vector(v, ARR("B", NULL), "B");
    rn_add_vector(v, ARR("C", NULL), "C");
    rn_add_vector(v, ARR("B", "Z"), "W");
    rn_add_vector(v, ARR("A", "Y"), "X");
    p = prio_rule(rn_prio(EXP_MODE_GATE, v), 2, ARR("A", "X"));
    expect("closure through an unreached label", prio_rule(p, 2, ARR("X", "B")), 3, 3, 1,
           "A|C|W");
    /* a leaf label only on states its LTS cannot reach is no label of the
     * alphabet: UX's X closes nothing, A and B both fire */
    p = prio_rule(rn_prio(EXP_MODE_GATE, L("UX")), 2, ARR("A", "X"));
    expect("no closure through an unreachable leaf label", prio_rule(p, 2, ARR("X", "B")), 2,
           2, 1, "A|B");
    /* PP |[C]| QQ: QQ never offers C, so C is no label of the par and
     * A > C, C > B relate nothing (as without the prio); PP ||| QQ has C,
     * so A > B: only A leaves the initial state, then C */
    p = prio_rule(rn_prio(EXP_MODE_GATE, rn_lotos_par(1, ARR("C"), L("PP"), L("QQ"))), 2,
                  ARR("A", "C"));
    expect("no closure through a blocked synchronisation", prio_rule(p, 2, ARR("C", "B")), 6,
           10, 0, "A|B|D");
    p = prio_rule(rn_prio(EXP_MODE_GATE, PQ()), 2, ARR("A", "C"));
    expect("closure through an interleaved label", prio_rule(p, 2, ARR("C", "B")), 2, 2, 0,
           "A|C");
    p = prio_rule(rn_prio(EXP_MODE_GATE, L("PP")), 2, ARR("A", "B"));
    expect_error("cyclic prio", prio_rule(p, 2, ARR("B", "A")), WX_EINPUT);
    expect_error("all but cycle",
                 prio_rule(rn_prio(EXP_MODE_PARTIAL, L("PP")), 3, ARR("!B", "A", "B")), WX_EINPUT);
    expect_error("single prio", prio_rule(rn_prio(EXP_MODE_SINGLE, L("PP")), 2, ARR("A", "B")),
                 WX_EINPUT);
}

static void test_errors_and_reader(void)
{
    expect_error("bad regex", rn_hide(EXP_MODE_GATE, false, 1, ARR("\\("), L("P")), WX_EINPUT);
    struct exp_node *v = rn_par_vectors(false, 2, OPS(L("P"), L("Q")));
    rn_add_vector(v, ARR("a", "a"), "x");
    free(v->vecs[0].comp[1]);                 /* arity mismatch */
    v->vecs[0].n = 1;
    expect_error("vector arity", v, WX_EINPUT);
    v = rn_par_vectors(false, 1, OPS(L("P")));
    rn_add_vector(v, ARR("i"), "x");
    expect_error("hidden label in vector", v, WX_EINPUT);
    expect_error("missing leaf", L("nosuchfile"), WX_ESYSTEM);
    expect_error("bcg leaf", L("x.bcg"), WX_EINPUT);
    expect_error("state limit", rn_lotos_interleave(L("P"), L("Q")), WX_ELIMIT);
    expect_error("exp leaf without parser", L("x.exp"), WX_EINPUT);

    /* quoted label with embedded quotes */
    char path[512];
    snprintf(path, sizeof path, "%s/W.aut", dir);
    struct naive_lts l;
    struct wx_error err;
    int rc = naive_read_aut(path, &l, &err);
    check(rc == WX_OK && l.n_trans == 1 && strcmp(l.label[0], "MSG !\"a,b\" !\"x\"") == 0,
          "aut reader: embedded quotes (%s)", rc ? err.msg : l.label[0]);
    naive_lts_free(&l);
    /* bad files */
    static const char *const bad[] = {
        "(0, a, 1)\n",                          /* no header */
        "des (0, 2, 2)\n(0, a, 1)\n",           /* count mismatch */
        "des (0, 1, 2)\n(0, a, 2)\n",           /* state out of range */
        "des (3, 0, 2)\n",                      /* initial out of range */
        "des (0, 0, 0)\n",                      /* no states */
        "des (0, 1, 2)\n(0 a 1)\n",             /* malformed line */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(path, sizeof path, "%s/bad%zu.aut", dir, i);
        FILE *f = fopen(path, "w");
        fputs(bad[i], f);
        fclose(f);
        rc = naive_read_aut(path, &l, &err);
        check(rc == WX_EINPUT,
              "aut reader rejects bad file %zu (%d: %s)", i, rc, err.msg);
        if (rc == WX_OK)
            naive_lts_free(&l);
        unlink(path);
    }
}

/* The generator: deterministic, within bounds, and its files read back
 * (with the oracle's reader) give the same product as its in-memory tree. */
static void test_randnet(void)
{
    int bad = 0;
    uint64_t total_states = 0, max_states = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        struct randnet a, b;
        struct wx_error err;
        if (!check(randnet_generate(seed, NULL, &a, &err) == WX_OK, "randnet seed %llu: %s",
                   (unsigned long long)seed, err.msg))
            continue;
        if (randnet_generate(seed, NULL, &b, &err) == WX_OK) {
            bad += strcmp(a.exp_text, b.exp_text) != 0;
            randnet_free(&b, true);
        } else {
            bad++;
        }
        struct naive_options o = { 0 };
        o.leaf = randnet_leaf;
        o.leaf_ctx = &a;
        o.hidden = a.hidden;
        o.rate = a.rate;
        o.lang = a.lang;
        struct naive_result r1, r2;
        int rc1 = naive_explore(a.root, &o, &r1, &err);
        struct naive_options o2 = { 0 };
        o2.base_dir = a.dir;
        o2.hidden = a.hidden;
        o2.rate = a.rate;
        o2.lang = a.lang;
        int rc2 = naive_explore(a.root, &o2, &r2, &err);
        if (!check(rc1 == WX_OK && rc2 == WX_OK && r1.states == r2.states &&
                       r1.transitions == r2.transitions && r1.deadlocks == r2.deadlocks &&
                       r1.states <= 5000,
                   "randnet seed %llu: memory vs files (%llu/%llu/%llu vs %llu/%llu/%llu) %s",
                   (unsigned long long)seed, (unsigned long long)r1.states,
                   (unsigned long long)r1.transitions, (unsigned long long)r1.deadlocks,
                   (unsigned long long)r2.states, (unsigned long long)r2.transitions,
                   (unsigned long long)r2.deadlocks, a.dir)) {
            randnet_free(&a, false);
            continue;
        }
        total_states += r1.states;
        if (r1.states > max_states)
            max_states = r1.states;
        randnet_free(&a, true);
    }
    check(bad == 0, "randnet: same seed, same text (%d differ)", bad);
    printf("randnet: 60 seeds, %llu states in all, largest %llu\n",
           (unsigned long long)total_states, (unsigned long long)max_states);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/warpex-naive-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        check(0, "mkdtemp");
        return check_exit();
    }
    for (size_t i = 0; i < sizeof comps / sizeof *comps; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.aut", dir, comps[i].name);
        FILE *f = fopen(path, "w");
        fputs(comps[i].text, f);
        fclose(f);
    }
    test_basic();
    test_vectors();
    test_general();
    test_manual_examples();
    test_hide_cut_rename();
    test_prio();
    test_errors_and_reader();
    test_randnet();
    for (size_t i = 0; i < sizeof comps / sizeof *comps; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.aut", dir, comps[i].name);
        unlink(path);
    }
    rmdir(dir);
    return check_exit();
}
