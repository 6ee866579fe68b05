/*
 * operators.c -- each construct on a tiny hand-made
 * network: leaves, hide, cut, rename, vector and generalised parallel
 * composition, the languages; and the construction errors.
 *
 * Part of test_network.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ------------------------------------------------------------------ */
/* Leaves, hide, cut, rename                                            */

static struct mem_leaf leaves[] = {
    /* 3 reachable states; state 3 and label C unreachable */
    {"abi", "4|0:A:1|1:B:2|2:i:0|3:C:0", 0},
    /* same shape, initial state 2 */
    {"init2", "3|2:A:0|0:B:1|1:C:2", 2},
    /* labels with offers */
    {"offers", "4|0:A !1:1|0:A !2:2|0:B !1:3|0:AB:3", 0},
    {"cutme", "3|0:A:1|0:B:2|1:C:0", 0},
    {"renme", "3|0:A:1|1:B:2|2:C:0", 0},
    {"hid", "2|0:i:1|1:A:0", 0},
    /* two handshaking processes */
    {"P", "2|0:a:1|1:b:0", 0},
    {"Q", "2|0:a:1|1:c:0", 0},
    {"PG", "3|0:G !1:1|0:G !2:2|1:i:1", 0},
    {"QH", "3|0:H !1:1|0:H !3:2", 0},
    {"g1", "2|0:G:1", 0},
    {"PA", "2|0:A:1|1:B:0", 0},
    {"QA", "2|0:A:1|1:C:0", 0},
    {"ex1", "2|0:exit:1", 0},
    {"ex2", "3|0:A:1|1:exit:2", 0},
    {"rate", "3|0:a:1|0:rate 0.5:2|0:LOSS; rate 2e-3:2|0:prob 1/2:2|0:RATE_X:2", 0},
    {"up", "2|0:a:1|1:b:0", 0},
    {"upcase", "2|0:A:1|1:B !X:0", 0},
    {"big", "2|0:a:1|0:a:0|1:a:0|1:a:1", 0},
    {"csp1", "3|0:t:1|1:delta:2|0:delta:2", 0},
    {"big8", "1|0:a1:0|0:a2:0|0:a3:0|0:a4:0|0:a5:0|0:a6:0|0:a7:0|0:a8:0", 0},
    {NULL, NULL, 0},
};

static void test_leaf_and_unary(void)
{
    expect("leaf", LEAF("abi"), NULL, 3, 3, "A:1 B:1 i:1");
    expect("leaf with initial state 2", LEAF("init2"), NULL, 3, 3, "A:1 B:1 C:1");
    expect("gate hide A", HIDE(EXP_MODE_GATE, false, LEAF("offers"), "A"), NULL, 4, 4,
           "AB:1 B !1:1 i:2");
    expect("gate hide regex A.*", HIDE(EXP_MODE_GATE, false, LEAF("offers"), "A.*"), NULL,
           4, 4, "B !1:1 i:3");
    expect("total hide A", HIDE(EXP_MODE_TOTAL, false, LEAF("offers"), "A"), NULL, 4, 4,
           "A !1:1 A !2:1 AB:1 B !1:1");
    expect("total hide A !1", HIDE(EXP_MODE_TOTAL, false, LEAF("offers"), "A !1"), NULL,
           4, 4, "A !2:1 AB:1 B !1:1 i:1");
    expect("partial hide !1", HIDE(EXP_MODE_PARTIAL, false, LEAF("offers"), "!1"), NULL,
           4, 4, "A !2:1 AB:1 i:2");
    /* B !1 and AB both go 0 -> 3: hidden, they are one transition */
    expect("gate hide all but A", HIDE(EXP_MODE_GATE, true, LEAF("offers"), "A"), NULL, 4,
           3, "A !1:1 A !2:1 i:1");
    expect("hide all but nothing-matching hides all", HIDE(EXP_MODE_TOTAL, true,
           LEAF("abi"), "Z"), NULL, 3, 3, "i:3");
    expect("cut A", CUT(EXP_MODE_GATE, false, LEAF("cutme"), "A"), NULL, 2, 1, "B:1");
    expect("cut all but A", CUT(EXP_MODE_GATE, true, LEAF("cutme"), "A"), NULL, 2, 1,
           "A:1");
    expect("cut never cuts the hidden label", CUT(EXP_MODE_PARTIAL, true, LEAF("hid"),
           "Z"), NULL, 2, 1, "i:1");
    expect("rename swap, first rule wins, no cascading",
           RENAME(EXP_MODE_TOTAL, LEAF("renme"), "A", "B", "B", "A", "A", "C"), NULL, 3,
           3, "A:1 B:1 C:1");
    expect("rename with back-references",
           RENAME(EXP_MODE_TOTAL, LEAF("offers"), "\\([A-Z]*\\) !\\(.*\\)", "\\2 \\1"),
           NULL, 4, 4, "1 A:1 1 B:1 2 A:1 AB:1");
    expect("gate rename keeps offers", RENAME(EXP_MODE_GATE, LEAF("offers"), "A", "Z"),
           NULL, 4, 4, "AB:1 B !1:1 Z !1:1 Z !2:1");
    expect("single rename", RENAME(EXP_MODE_SINGLE, LEAF("offers"), "1", "9"), NULL, 4, 4,
           "A !2:1 A !9:1 AB:1 B !9:1");
    expect("multiple rename", RENAME(EXP_MODE_MULTIPLE, LEAF("offers"), "[AB]", "x"),
           NULL, 4, 4, "x !1:2 x !2:1 xx:1");
    expect("rename to the hidden text hides", RENAME(EXP_MODE_TOTAL, LEAF("renme"), "B",
           "i"), NULL, 3, 3, "A:1 C:1 i:1");
    expect("rename never touches the hidden label",
           RENAME(EXP_MODE_TOTAL, LEAF("hid"), "i", "X"), NULL, 2, 2, "A:1 i:1");
    expect("rename merges labels", RENAME(EXP_MODE_GATE, LEAF("offers"), "A.*", "A"),
           NULL, 4, 4, "A:1 A !1:1 A !2:1 B !1:1");
    expect("hide above rename above cut",
           HIDE(EXP_MODE_TOTAL, false,
                RENAME(EXP_MODE_TOTAL, CUT(EXP_MODE_TOTAL, false, LEAF("cutme"), "B"), "A",
                       "X"), "C"),
           NULL, 2, 2, "X:1 i:1");
}

/* ------------------------------------------------------------------ */
/* Parallel composition with synchronisation vectors                    */

static void test_vectors(void)
{
    expect("label par: handshake + single-participant vectors",
           VPAR(true, VECS("a * a -> s", "b * _ -> b", "_ * c -> c"), OPS(LEAF("P"), LEAF("Q"))),
           NULL, 4, 5, "b:2 c:2 s:1");
    expect("label par: unmatched visible labels are blocked",
           VPAR(true, VECS("a * a -> s", "_ * c -> c"), OPS(LEAF("P"), LEAF("Q"))), NULL,
           3, 2, "c:1 s:1");
    expect("label par: vectors naming absent labels block everything",
           VPAR(true, VECS("a * a -> a"), OPS(LEAF("g1"), LEAF("g1"))), NULL, 1, 0, "");
    expect("one operand rule serves several vectors",
           VPAR(true, VECS("a * _ -> x", "a * a -> y", "_ * a -> z"), OPS(LEAF("P"), LEAF("Q"))),
           NULL, 4, 5, "x:2 y:1 z:2");
    expect("gate par: identical offers, result R + offers",
           VPAR(false, VECS("G * H -> K"), OPS(LEAF("PG"), LEAF("QH"))), NULL, 2, 2,
           "K !1:1 i:1");
    expect("gate par: gate vectors interleave each offer",
           VPAR(false, VECS("G * _ -> G", "_ * H -> X"), OPS(LEAF("PG"), LEAF("QH"))), NULL,
           9, 15, "G !1:3 G !2:3 X !1:3 X !3:3 i:3");
    expect("label par over offers labels",
           VPAR(true, VECS("G !2 * H !3 -> Z", "G !1 * _ -> Y"), OPS(LEAF("PG"), LEAF("QH"))),
           NULL, 3, 3, "Y:1 Z:1 i:1");
    expect("hidden transitions interleave in vector par",
           VPAR(true, VECS("A * _ -> A"), OPS(LEAF("hid"), LEAF("hid"))), NULL, 4, 6,
           "A:2 i:4");
    expect("three-way vector with a hole",
           VPAR(true, VECS("a * _ * a -> t", "b * _ * _ -> b", "_ * _ * c -> c"),
                OPS(LEAF("P"), LEAF("g1"), LEAF("Q"))),
           NULL, 4, 5, "b:2 c:2 t:1");
    expect("nondeterminism: all combinations of operand transitions",
           VPAR(true, VECS("a * a -> s"), OPS(LEAF("big"), LEAF("big"))), NULL, 4, 16, "s:16");
    expect("hide above a vector par",
           HIDE(EXP_MODE_GATE, false,
                VPAR(true, VECS("a * a -> s", "b * _ -> b", "_ * c -> c"),
                     OPS(LEAF("P"), LEAF("Q"))), "s", "c"),
           NULL, 4, 5, "b:2 i:3");
    expect("nested vector pars",
           VPAR(true, VECS("s * a -> u", "b * _ -> b", "c * _ -> c", "_ * b -> d"),
                OPS(VPAR(true, VECS("a * a -> s", "b * _ -> b", "_ * c -> c"),
                         OPS(LEAF("P"), LEAF("Q"))),
                    LEAF("P"))),
           NULL, 8, 13, "b:4 c:4 d:4 u:1");
    struct bopt rate = {.rate = true}, prob = {.prob = true};
    expect("stochastic labels are blocked without --rate",
           VPAR(true, VECS("a * _ -> a"), OPS(LEAF("rate"), LEAF("g1"))), NULL, 2, 1, "a:1");
    expect("--rate: rate labels interleave",
           VPAR(true, VECS("a * _ -> a"), OPS(LEAF("rate"), LEAF("g1"))), &rate, 3, 3,
           "LOSS; rate 2e-3:1 a:1 rate 0.5:1");
    expect("--prob: prob labels interleave",
           VPAR(true, VECS("a * _ -> a"), OPS(LEAF("rate"), LEAF("g1"))), &prob, 3, 2,
           "a:1 prob 1/2:1");
}

/* ------------------------------------------------------------------ */
/* Generalised parallel composition                                     */

static void test_general(void)
{
    expect("LOTOS |[A]|", GPAR(false, "A", OPS(LEAF("PA"), LEAF("QA")), NULL), NULL, 4, 5,
           "A:1 B:2 C:2");
    expect("LOTOS ||: labels of one side only are blocked",
           GPAR(false, "all", OPS(LEAF("PA"), LEAF("QA")), NULL), NULL, 2, 1, "A:1");
    expect("LOTOS |||", GPAR(false, NULL, OPS(LEAF("PA"), LEAF("QA")), NULL), NULL, 4, 8,
           "A:4 B:2 C:2");
    expect("gate mode matches gates, sync needs identical labels",
           GPAR(false, "G", OPS(LEAF("PG"), LEAF("PG")), NULL), NULL, 3, 3, "G !1:1 G !2:1 i:1");
    expect("label mode element matches one full label",
           GPAR(true, "G !1", OPS(LEAF("PG"), LEAF("PG")), NULL), NULL, 5, 6,
           "G !1:1 G !2:4 i:1");
    expect("G#2 of 3", GPAR(false, "G#2", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")), NULL), NULL,
           4, 3, "G:3");
    expect("G#2, G#3 of 3", GPAR(false, "G#2, G#3", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")),
                                 NULL), NULL, 5, 4, "G:4");
    expect("G#1: asynchronous", GPAR(false, "G#1", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")),
                                     NULL), NULL, 8, 12, "G:12");
    expect("G#1, G#2", GPAR(false, "G#1, G#2", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")), NULL),
           NULL, 8, 18, "G:18");
    expect("G#0 forbids", GPAR(false, "G#0", OPS(LEAF("g1"), LEAF("g1")), NULL), NULL, 1, 0,
           "");
    expect("G#4 of 3 yields nothing", GPAR(false, "G#4", OPS(LEAF("g1"), LEAF("g1"),
                                                               LEAF("g1")), NULL),
           NULL, 1, 0, "");
    expect("local G#2: any 2 of the 3 listing it, the 4th interleaves",
           GPAR(false, "", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1"), LEAF("g1")),
                LOCALS("G#2", "G#2", "G#2", NULL)),
           NULL, 8, 10, "G:10");
    expect("local L: operands listing it all synchronise, others interleave",
           GPAR(false, NULL, OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")), LOCALS("G", NULL, "G")),
           NULL, 4, 4, "G:4");
    expect("local L#0 forbids in that operand only",
           GPAR(false, NULL, OPS(LEAF("g1"), LEAF("g1")), LOCALS("G#0", NULL)), NULL, 2, 1,
           "G:1");
    expect("global and local elements apply nondeterministically",
           GPAR(false, "G#3", OPS(LEAF("g1"), LEAF("g1"), LEAF("g1")), LOCALS("G", "G", NULL)),
           NULL, 3, 2, "G:2");
    expect("exit synchronises all operands of |||",
           GPAR(false, NULL, OPS(LEAF("ex1"), LEAF("ex2")), NULL), NULL, 3, 2, "A:1 exit:1");
    expect("exit synchronises even with |[A]|",
           GPAR(false, "A", OPS(LEAF("ex2"), LEAF("ex2")), NULL), NULL, 3, 2, "A:1 exit:1");
    expect("hidden transitions interleave in generalised par",
           GPAR(false, "all", OPS(LEAF("hid"), LEAF("hid")), NULL), NULL, 4, 5, "A:1 i:4");
    expect("nested: hide above |[a]| of a vector par and a leaf",
           HIDE(EXP_MODE_TOTAL, false,
                GPAR(true, "s", OPS(VPAR(true, VECS("a * a -> s", "b * _ -> b", "_ * c -> c"),
                                         OPS(LEAF("P"), LEAF("Q"))),
                                    RENAME(EXP_MODE_TOTAL, LEAF("P"), "a", "s")),
                     NULL),
                "b"),
           NULL, 8, 13, "c:4 i:8 s:1");
    struct bopt rate = {.rate = true};
    expect("--rate in generalised par: rate labels never synchronise",
           GPAR(false, "all", OPS(LEAF("rate"), LEAF("rate")), NULL), &rate, 5, 11,
           "LOSS; rate 2e-3:4 RATE_X:1 a:1 prob 1/2:1 rate 0.5:4");
    struct bopt lotos = {.lang = EXP_LANG_LOTOS}, lotos_case = {.lang = EXP_LANG_LOTOS,
                                                                .case_sensitive = true};
    expect("LOTOS folds operator labels to upper case",
           HIDE(EXP_MODE_GATE, false, LEAF("upcase"), "b"), &lotos, 2, 2, "A:1 i:1");
    expect("--case keeps them as written",
           HIDE(EXP_MODE_GATE, false, LEAF("upcase"), "b"), &lotos_case, 2, 2, "A:1 B !X:1");
    expect("no reference language: case-sensitive",
           HIDE(EXP_MODE_GATE, false, LEAF("upcase"), "b"), NULL, 2, 2, "A:1 B !X:1");
    expect("LOTOS vector elements and results fold",
           VPAR(false, VECS("a * _ -> x", "b * _ -> y"), OPS(LEAF("upcase"), LEAF("g1"))), &lotos,
           2, 2, "X:1 Y !X:1");
}

static void test_languages(void)
{
    struct { enum exp_lang lang; bool header; const char *hidden, *term; bool fold; } c[] = {
        {EXP_LANG_NONE, false, "i", "exit", false},
        {EXP_LANG_NONE, true, "i", "exit", true}, /* plain "behaviour" = LOTOS */
        {EXP_LANG_LOTOS, true, "i", "exit", true},
        {EXP_LANG_ELOTOS, true, "i", "exit", false},
        {EXP_LANG_CCS, true, "t", NULL, true},
        {EXP_LANG_CSP, true, "t", "delta", true},
        {EXP_LANG_MCRL, true, "tau", NULL, false},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        struct net_ctx ctx = {0};
        struct wx_error err;
        net_ctx_init(&ctx, c[i].lang, c[i].header, NULL, false, &err);
        bool term_ok = c[i].term ? ctx.termination && strcmp(ctx.termination, c[i].term) == 0
                                 : ctx.termination == NULL;
        check(strcmp(strtab_str(ctx.labels, ctx.hidden), c[i].hidden) == 0 && term_ok &&
                  ctx.fold == c[i].fold,
              "language %d (header %d): hidden \"%s\", termination %s, fold %d", c[i].lang,
              c[i].header, c[i].hidden, c[i].term ? c[i].term : "none", c[i].fold);
        strtab_free(ctx.labels);
    }
    struct net_ctx ctx = {0};
    struct wx_error err;
    net_ctx_init(&ctx, EXP_LANG_CCS, true, "tau", true, &err);
    check(strcmp(strtab_str(ctx.labels, ctx.hidden), "tau") == 0 && !ctx.fold,
          "--hidden and --case override the language");
    strtab_free(ctx.labels);
    struct bopt csp = {.lang = EXP_LANG_CSP};
    expect("CSP: t is hidden, delta synchronises",
           GPAR(false, NULL, OPS(LEAF("csp1"), LEAF("csp1")), NULL), &csp, 5, 8,
           "delta:4 t:4");
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */

/* eight rules with result "a": renaming merges a1..a8 */
static struct exp_node *B8(void)
{
    return RENAME(EXP_MODE_TOTAL, LEAF("big8"), "a.", "a");
}

static void test_errors(void)
{
    expect_error("vector length", VPAR(true, VECS("a * a -> s", "a -> s"),
                                       OPS(LEAF("P"), LEAF("Q"))),
                 NULL, WX_EINPUT, 11, 3, "1 elements but the par has 2");
    expect_error("hidden label on the left of a vector",
                 VPAR(true, VECS("a * a -> s", "_ * i -> s"), OPS(LEAF("P"), LEAF("Q"))), NULL,
                 WX_EINPUT, 11, 3, "hidden label");
    expect_error("vector of _ only", VPAR(true, VECS("_ * _ -> s"), OPS(LEAF("P"), LEAF("Q"))),
                 NULL, WX_EINPUT, 10, 3, "no element other than");
    expect_error("gate vector element with offers",
                 VPAR(false, VECS("G !1 * _ -> s"), OPS(LEAF("PG"), LEAF("Q"))), NULL,
                 WX_EINPUT, 10, 3, "not a gate");
    expect_error("hidden label in a global interface",
                 GPAR(false, "A, i", OPS(LEAF("P"), LEAF("Q")), NULL), NULL, WX_EINPUT, 20, 15,
                 "hidden label");
    expect_error("hidden label in a local interface",
                 GPAR(false, NULL, OPS(LEAF("P"), LEAF("Q")), LOCALS(NULL, "i")), NULL,
                 WX_EINPUT, 31, 5, "hidden label");
    expect_error("termination gate in an interface",
                 GPAR(false, "exit", OPS(LEAF("P"), LEAF("Q")), NULL), NULL, WX_EINPUT, 20, 5,
                 "termination gate");
    expect_error("gate interface element with offers",
                 GPAR(false, "G !1", OPS(LEAF("P"), LEAF("Q")), NULL), NULL, WX_EINPUT, 20, 5,
                 "without offers");
    expect_error("global G#0 with G#2",
                 GPAR(false, "G#2, G#0", OPS(LEAF("g1"), LEAF("g1")), NULL), NULL, WX_EINPUT,
                 20, 15, "G#0");
    expect_error("global G#0 with a local G",
                 GPAR(false, "G#0", OPS(LEAF("g1"), LEAF("g1")), LOCALS("G", "G")), NULL,
                 WX_EINPUT, 20, 5, "G#0");
    expect_error("local G#0 with G in the same local interface",
                 GPAR(false, NULL, OPS(LEAF("g1"), LEAF("g1")), LOCALS("G#1", "G, G#0")), NULL,
                 WX_EINPUT, 31, 15, "G#0");
    expect_error("local G#0 with a global G",
                 GPAR(false, "G", OPS(LEAF("g1"), LEAF("g1")), LOCALS(NULL, "G#0")), NULL,
                 WX_EINPUT, 31, 5, "G#0");
    expect_error("invalid regex in hide", HIDE(EXP_MODE_TOTAL, false, LEAF("P"), "a\\{1"),
                 NULL, WX_EINPUT, 3, 7, "invalid regular expression");
    expect_error("invalid regex in rename",
                 RENAME(EXP_MODE_TOTAL, LEAF("P"), "[a", "b"), NULL, WX_EINPUT, 4, 2,
                 "invalid regular expression");
    expect_error("partial rename is not a mode", RENAME(EXP_MODE_PARTIAL, LEAF("P"), "a", "b"),
                 NULL, WX_EINPUT, 4, 2, "not allowed");
    expect_error("missing leaf is reported by the leaf source at the leaf",
                 HIDE(EXP_MODE_GATE, false, LEAF("nope"), "a"), NULL, WX_EINPUT, 1, 1,
                 "no leaf nope");
    /* the explosion guard: 8 x 8 x 8 = 512 rules for one vector */
    struct bopt small = {.max_rules = 100};
    expect_error("rule explosion guard (vectors)",
                 VPAR(true, VECS("a * a * a -> s"), OPS(B8(), B8(), B8())),
                 &small, WX_ELIMIT, 9, 1, "more than 100");
    expect_error("rule explosion guard (generalised par)",
                 GPAR(false, "all", OPS(B8(), B8(), B8()), NULL),
                 &small, WX_ELIMIT, 19, 1, "more than 100");
    struct bopt enough = {.max_rules = 512};
    expect("just below the guard",
           VPAR(true, VECS("a * a * a -> s"), OPS(B8(), B8(), B8())), &enough, 1, 1, "s:1");
}
