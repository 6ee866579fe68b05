/*
 * match.c -- label_match: gate lengths, folding,
 * pattern search and rewriting by hand-written cases.
 *
 * Part of test_network.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ------------------------------------------------------------------ */
/* label_match                                                          */

static void test_gate_len(void)
{
    CHECK_EQ_U64(label_gate_len("G !1 ?x"), 1, "gate of \"G !1 ?x\"");
    CHECK_EQ_U64(label_gate_len("PUT(1, 2)"), 3, "gate of \"PUT(1, 2)\"");
    CHECK_EQ_U64(label_gate_len("AB?x"), 2, "gate of \"AB?x\"");
    CHECK_EQ_U64(label_gate_len("A\tx"), 1, "gate of tab label");
    CHECK_EQ_U64(label_gate_len("ABC"), 3, "gate of plain gate");
    CHECK_EQ_U64(label_gate_len(""), 0, "gate of empty label");
}

static void test_fold(void)
{
    struct { const char *in; bool re; const char *out; } c[] = {
        {"get !x", false, "GET !X"},
        {"a\\w*[[:alpha:]b]\\(x\\)\\1", true, "A\\w*[[:alpha:]B]\\(X\\)\\1"},
        {"[]a]b", true, "[]A]B"},
        {"[^]a]x", true, "[^]A]X"},
        {"[[:alpha:][=e=]x]y", true, "[[:alpha:][=E=]X]Y"}, /* [=e=] names a char */
        {"[\\w]", true, "[\\W]"}, /* backslash is literal inside brackets */
        {"x\\<y\\>", true, "X\\<Y\\>"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char *f = label_fold_upper(c[i].in, c[i].re);
        check(strcmp(f, c[i].out) == 0, "fold \"%s\": expected \"%s\", found \"%s\"",
              c[i].in, c[i].out, f);
        free(f);
    }
}

static int find(enum exp_mode mode, const char *pat, const char *label)
{
    struct label_match m;
    struct wx_error err;
    char *p[1] = {(char *)pat};
    if (label_match_compile(&m, mode, 1, p, NULL, false, "f", at(1, 1), &err) != WX_OK)
        return -2;
    long k = label_match_find(&m, label);
    label_match_free(&m);
    return (int)k;
}

static void test_find(void)
{
    struct { enum exp_mode mode; const char *pat, *label; int hit; } c[] = {
        {EXP_MODE_GATE, "G", "G !1", 0},
        {EXP_MODE_GATE, "G", "GH !1", -1},
        {EXP_MODE_GATE, "G.*", "GH !1", 0},
        {EXP_MODE_GATE, ".*H", "GH(1)", 0},
        {EXP_MODE_GATE, "G !1", "G !1", -1}, /* offers are not part of the gate */
        {EXP_MODE_TOTAL, "G", "G !1", -1},
        {EXP_MODE_TOTAL, "G !1", "G !1", 0},
        {EXP_MODE_TOTAL, "G !.*", "G !1 !2", 0},
        {EXP_MODE_TOTAL, "G", "G", 0},
        {EXP_MODE_TOTAL, "a\\|ab", "ab", 0},   /* alternation: not anchored badly */
        {EXP_MODE_TOTAL, "ab\\|a", "ab", 0},
        {EXP_MODE_TOTAL, "x\\|ab", "ab", 0},
        {EXP_MODE_TOTAL, "\\(a*\\)b\\1", "aabaa", 0}, /* back-reference */
        {EXP_MODE_TOTAL, "\\(a*\\)b\\1", "aaba", -1},
        {EXP_MODE_TOTAL, "a\\{2\\}", "aa", 0},
        {EXP_MODE_TOTAL, "a\\{2\\}", "aaa", -1},
        {EXP_MODE_TOTAL, "a+", "aa", -1},     /* basic RE: + is literal */
        {EXP_MODE_TOTAL, "a+", "a+", 0},
        {EXP_MODE_TOTAL, "*a", "*a", 0},      /* leading * is literal */
        {EXP_MODE_PARTIAL, "!1", "G !1", 0},
        {EXP_MODE_PARTIAL, "!3", "G !1", -1},
        {EXP_MODE_PARTIAL, "^!1", "G !1", -1},
        {EXP_MODE_PARTIAL, "\\<1", "G !1", 0},
        {EXP_MODE_SINGLE, "1", "G !1", 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        CHECK_EQ_U64((long long)find(c[i].mode, c[i].pat, c[i].label) + 2,
                     c[i].hit + 2, "match mode %d \"%s\" on \"%s\" (+2)", c[i].mode,
                     c[i].pat, c[i].label);
    struct label_match m;
    struct wx_error err;
    char *p[3] = {"A", "B", "A"};
    label_match_compile(&m, EXP_MODE_GATE, 3, p, NULL, false, "f", at(1, 1), &err);
    CHECK_EQ_U64(label_match_find(&m, "B !1"), 1, "first matching pattern index");
    label_match_free(&m);
    char *bad[1] = {"a\\(b"};
    int rc = label_match_compile(&m, EXP_MODE_TOTAL, 1, bad, NULL, false, "f.exp",
                                 at(7, 9), &err);
    check(rc == WX_EINPUT && err.line == 7 && err.col == 9 && strstr(err.msg, "a\\(b"),
          "invalid regex is WX_EINPUT at the operator (%d %s:%d:%d %s)", rc, err.file,
          err.line, err.col, err.msg);
}

static void rewrite_case(enum exp_mode mode, const char *pat, const char *tmpl,
                         const char *label, const char *expect)
{
    struct label_match m;
    struct wx_error err;
    char *p[1] = {(char *)pat}, *t[1] = {(char *)tmpl};
    if (!check(label_match_compile(&m, mode, 1, p, t, false, "f", at(1, 1), &err) == 0,
               "compile \"%s\"", pat))
        return;
    char *out = NULL;
    int hit = label_match_rewrite(&m, label, &out);
    if (!expect)
        check(hit == 0, "rewrite mode %d \"%s\"->\"%s\" on \"%s\": no match (%d)", mode,
              pat, tmpl, label, hit);
    else
        check(hit == 1 && strcmp(out, expect) == 0,
              "rewrite mode %d \"%s\"->\"%s\" on \"%s\": expected \"%s\", found \"%s\"",
              mode, pat, tmpl, label, expect, hit == 1 ? out : "(no match)");
    free(out);
    label_match_free(&m);
}

static void test_rewrite(void)
{
    rewrite_case(EXP_MODE_TOTAL, "G", "H", "G", "H");
    rewrite_case(EXP_MODE_TOTAL, "G", "H", "G !1", NULL);
    rewrite_case(EXP_MODE_TOTAL, "\\([a-zA-Z0-9]*\\) \\(!.*\\)", "\\1 !1 \\2", "PUT !2 !3",
                 "PUT !1 !2 !3"); /* the exp(LOCAL) manual's example */
    rewrite_case(EXP_MODE_TOTAL, "PUT !\\([A-Z]*\\) !\\([A-Z]*\\)", "PUT !\\2 !\\1",
                 "PUT !ABC !XYZ", "PUT !XYZ !ABC"); /* caesar_rename_1's example */
    rewrite_case(EXP_MODE_TOTAL, "RATE_FAIL !1 !2", "rate 0.1", "RATE_FAIL !1 !2", "rate 0.1");
    rewrite_case(EXP_MODE_TOTAL, "G\\(.*\\)", "<&>[\\1]\\&\\\\", "Gx", "<Gx>[x]&\\");
    rewrite_case(EXP_MODE_TOTAL, "\\(a\\)\\|b", "[\\1]", "b", "[]"); /* unset group */
    rewrite_case(EXP_MODE_GATE, "G", "H", "G !1 !G", "H !1 !G");
    rewrite_case(EXP_MODE_GATE, "G", "H", "GG !1", NULL);
    rewrite_case(EXP_MODE_GATE, "\\(.*\\)_OUT", "\\1_IN", "X_OUT(3)", "X_IN(3)");
    rewrite_case(EXP_MODE_GATE, "G", "G !0", "G !1", "G !0 !1");
    rewrite_case(EXP_MODE_SINGLE, "G", "H", "AG !G", "AH !G");
    rewrite_case(EXP_MODE_SINGLE, "1*", "X", "G !1", "XG !1"); /* leftmost, empty */
    rewrite_case(EXP_MODE_MULTIPLE, "G", "H", "AG !G", "AH !H");
    rewrite_case(EXP_MODE_MULTIPLE, "x*", "-", "abxd", "-a-b-d-"); /* as GNU sed with s, x*, -, g */
    rewrite_case(EXP_MODE_MULTIPLE, "\\<[0-9]", "N", "A !1 !23", "A !N !N3");
    rewrite_case(EXP_MODE_MULTIPLE, "^A", "B", "AAA", "BAA");
    rewrite_case(EXP_MODE_MULTIPLE, "Z", "Y", "AAA", NULL);
    /* first matching rule wins, no cascading */
    struct label_match m;
    struct wx_error err;
    char *p[2] = {"A", "B"}, *t[2] = {"B", "A"};
    label_match_compile(&m, EXP_MODE_TOTAL, 2, p, t, false, "f", at(1, 1), &err);
    char *out = NULL;
    check(label_match_rewrite(&m, "A", &out) == 1 && strcmp(out, "B") == 0,
          "swap A->B, B->A: A becomes B (%s)", out ? out : "-");
    free(out);
    out = NULL;
    check(label_match_rewrite(&m, "B", &out) == 1 && strcmp(out, "A") == 0,
          "swap A->B, B->A: B becomes A (%s)", out ? out : "-");
    free(out);
    label_match_free(&m);
    /* folding keeps back-references in templates */
    char *p2[1] = {"\\(g\\)!\\(x\\)"}, *t2[1] = {"\\2h\\1"};
    label_match_compile(&m, EXP_MODE_TOTAL, 1, p2, t2, true, "f", at(1, 1), &err);
    out = NULL;
    check(label_match_rewrite(&m, "G!X", &out) == 1 && strcmp(out, "XHG") == 0,
          "folded rename keeps \\1: expected XHG, found %s", out ? out : "-");
    free(out);
    label_match_free(&m);
}
