/*
 * files.c -- networks read from files: leaf resolution,
 * inclusion, errors located in files; and the bundled examples against
 * their independently known counts.
 *
 * Part of test_network.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ------------------------------------------------------------------ */
/* Files: leaf resolution, inclusion, errors located in files           */

static char g_tmp[64];

static void put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", g_tmp, rel);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static const char *tpath(const char *rel)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_tmp, rel);
    return buf[k];
}

static void expect_file(const char *name, const char *path, const struct net_options *o,
                        uint64_t states, uint64_t trans, const char *labels)
{
    struct network net;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = network_from_file(path, o, &net, &err);
    char msg[1200];
    wx_error_format(&err, msg, sizeof msg);
    if (!check(rc == WX_OK, "%s: builds (%s)", name, rc ? msg : "ok"))
        return;
    struct xres r = explore(&net);
    CHECK_EQ_U64(r.states, states, "%s: states", name);
    CHECK_EQ_U64(r.trans, trans, "%s: transitions", name);
    check(strcmp(r.labels, labels) == 0, "%s: labels: expected \"%s\", found \"%s\"",
          name, labels, r.labels);
    network_free(&net);
}

static void expect_file_error(const char *name, const char *path,
                              const struct net_options *o, int code, const char *file,
                              int line, int col, const char *part)
{
    struct network net;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = network_from_file(path, o, &net, &err);
    if (rc == WX_OK) {
        network_free(&net);
        check(0, "%s: expected an error, built fine", name);
        return;
    }
    char msg[1200];
    wx_error_format(&err, msg, sizeof msg);
    check(rc == code, "%s: code %d (found %d: %s)", name, code, rc, msg);
    check(strcmp(err.file, file) == 0 && err.line == line && (col < 0 || err.col == col),
          "%s: located at %s:%d:%d (found %s)", name, file, line, col, msg);
    check(strstr(err.msg, part) != NULL, "%s: message mentions \"%s\" (found \"%s\")", name,
          part, msg);
}

static void test_files(void)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = '\0';
    snprintf(g_tmp, sizeof g_tmp, "/tmp/wx_test_network_XXXXXX");
    if (!check(mkdtemp(g_tmp) != NULL, "temporary directory"))
        return;
    char sub[128];
    snprintf(sub, sizeof sub, "%s/sub", g_tmp);
    mkdir(sub, 0700);
    put("sub/a.aut", "des (0, 2, 2)\n(0, A, 1)\n(1, B, 0)\n");
    put("sub/b.aut", "des (1, 3, 3)\n(1, A, 0)\n(0, C, 1)\n(2, \"D !1\", 0)\n"); /* initial 1 */
    put("a.aut", "des (0, 1, 2)\n(0, A, 1)\n"); /* the working-directory one */
    put("sub/top.exp",
        "(* leaves resolve next to this file *)\n"
        "label par using\n"
        "  A * A -> S, B * _ -> B, _ * C -> C\n"
        "in \"a.aut\" || b end par\n");
    put("sub/inc.exp", "hide S in \"top.exp\" end hide\n");
    put("sub/cwd.exp", "\"a.aut\"\n");
    put("sub/cyc.exp", "hide A in\n  \"cyc.exp\" end hide\n");
    put("sub/bcg.exp", "\"model.bcg\"\n");
    put("sub/m.bcg", "");
    put("sub/onlybcg.exp", "hide A in m end hide\n");
    put("sub/miss.exp", "hide A in\n  \"nothere.aut\" end hide\n");
    put("sub/bad.aut", "des (0, 2, 2)\n(0, A, 1)\n(1, B 0)\n");
    put("sub/badleaf.exp", "\"a.aut\" ||| \"bad.aut\"\n");
    put("sub/vlen.exp", "label par using\n  A * A -> S,\n  B * _ * _ -> B\nin a || b end par\n");
    put("sub/incbad.exp", "hide A in \"vlen.exp\" end hide\n");
    put("sub/lotos.exp", "lotos behaviour\nhide a in \"a.aut\"\n");
    put("sub/tau.aut", "des (0, 2, 2)\n(0, tau, 1)\n(1, i, 0)\n");
    put("sub/dft.exp",
        "hide FAIL in\n"
        "label par using\n"
        "  FAIL * _ -> FAIL,\n"
        "  _ * \"GO !1\" -> GO\n"
        "in\n"
        "  total rename \"RATE_FAIL !1 !2\" -> \"rate 0.1\" in \"dft.aut\" end rename\n"
        "  || \"go.aut\"\n"
        "end par end hide\n");
    put("sub/dft.aut", "des (0, 2, 3)\n(0, \"RATE_FAIL !1 !2\", 1)\n(1, FAIL, 2)\n");
    put("sub/go.aut", "des (0, 1, 2)\n(0, \"GO !1\", 1)\n");
    put("sub/x.txt", "");

    expect_file("leaves next to the .exp, extension-less name, initial state 1",
                tpath("sub/top.exp"), NULL, 4, 5, "B:2 C:2 S:1");
    expect_file(".exp leaf included (as if parenthesised)", tpath("sub/inc.exp"), NULL, 4, 5,
                "B:2 C:2 i:1");
    expect_file("AUT file alone, initial state renumbered", tpath("sub/b.aut"), NULL, 2, 2,
                "A:1 C:1");
    struct net_options tau = {.hidden = "tau"};
    struct network net;
    struct wx_error err;
    if (network_from_file(tpath("sub/tau.aut"), &tau, &net, &err) == WX_OK) {
        check(strcmp(strtab_str(net.labels, net.hidden), "tau") == 0,
              "--hidden tau names the hidden label");
        network_free(&net);
    } else {
        check(0, "--hidden tau: %s", err.msg);
    }
    put("sub/dups.aut", "des (0, 3, 2)\n(0, A, 1)\n(0, A, 1)\n(1, B, 0)\n");
    put("sub/dups.exp", "\"a.aut\" ||| \"dups.aut\"\n");
    if (network_from_file(tpath("sub/dups.exp"), NULL, &net, &err) == WX_OK) {
        check(net.n_comps == 2 && net.comps[0].n_duplicates == 0 &&
                  net.comps[1].n_duplicates == 1 && strstr(net.comp_names[1], "dups.aut"),
              "dropped duplicate lines stay countable per component (for -v)");
        network_free(&net);
    } else {
        check(0, "dups.exp: %s", err.msg);
    }
    expect_file("LOTOS header folds operator labels", tpath("sub/lotos.exp"), NULL, 2, 2,
                "B:1 i:1");
    struct net_options cs = {.case_sensitive = true};
    expect_file("LOTOS header with --case", tpath("sub/lotos.exp"), &cs, 2, 2, "A:1 B:1");
    struct net_options rate = {.rate = true};
    expect_file("DFTCalc shape with --rate", tpath("sub/dft.exp"), &rate, 6, 7,
                "GO:3 i:2 rate 0.1:2");
    expect_file("DFTCalc shape without --rate: rate labels blocked", tpath("sub/dft.exp"),
                NULL, 2, 1, "GO:1");
    /* the working directory first, like CADP */
    if (chdir(g_tmp) == 0) {
        expect_file("working directory first", "sub/cwd.exp", NULL, 2, 1, "A:1");
        if (chdir(cwd) != 0)
            check(0, "chdir back");
    }
    expect_file("else the .exp's directory", tpath("sub/cwd.exp"), NULL, 2, 2, "A:1 B:1");

    char f[256];
    snprintf(f, sizeof f, "%s", tpath("sub/cyc.exp"));
    expect_file_error("inclusion cycle", f, NULL, WX_EINPUT, f, 2, 3, "includes itself");
    snprintf(f, sizeof f, "%s", tpath("sub/bcg.exp"));
    expect_file_error(".bcg leaf", f, NULL, WX_EINPUT, f, 1, 1,
                      "bcg_io model.bcg model.aut");
    snprintf(f, sizeof f, "%s", tpath("sub/onlybcg.exp"));
    expect_file_error("extension-less leaf with only a .bcg", f, NULL, WX_EINPUT, f, 1, 11,
                      "bcg_io");
    snprintf(f, sizeof f, "%s", tpath("sub/miss.exp"));
    expect_file_error("missing leaf, at the leaf in the .exp", f, NULL, WX_EINPUT, f, 2, 3,
                      "cannot find \"nothere.aut\"");
    expect_file_error("error inside a leaf, at the leaf's line", tpath("sub/badleaf.exp"), NULL,
                      WX_EINPUT, tpath("sub/bad.aut"), 3, -1, "");
    snprintf(f, sizeof f, "%s", tpath("sub/vlen.exp"));
    expect_file_error("vector length, at the vector", f, NULL, WX_EINPUT, f, 3, 3,
                      "but the par has 2");
    expect_file_error("error in an included .exp, in that file", tpath("sub/incbad.exp"), NULL,
                      WX_EINPUT, f, 3, 3, "but the par has 2");
    snprintf(f, sizeof f, "%s", tpath("sub/x.txt"));
    expect_file_error("unknown extension", f, NULL, WX_EINPUT, f, 0, 0, "unknown input format");
    snprintf(f, sizeof f, "%s", tpath("sub/m.bcg"));
    expect_file_error("BCG file given directly", f, NULL, WX_EINPUT, f, 0, 0, "bcg_io");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", g_tmp);
}

/* ------------------------------------------------------------------ */
/* The bundled examples against their independently known counts        */
/*
 * examples/counts.tsv lists networks with state/transition/deadlock counts
 * computed by examples/gen.py from closed forms and its own explorer over the
 * model (not over our flattening).  Every committed row up to EX_MAX states
 * is built here with network_from_file from the repository root (leaves found
 * through the .exp's directory) and explored with the brute-force explorer.
 */
#define EX_MAX 20000

static void test_examples(void)
{
    FILE *f = fopen("examples/counts.tsv", "r");
    if (!f) {
        printf("note: examples/counts.tsv not found (run from the repository root)\n");
        return;
    }
    char line[1024];
    int rows = 0;
    if (!fgets(line, sizeof line, f)) /* header */
        line[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        char fam[64], params[64], file[512];
        unsigned long long st, tr, dl;
        if (sscanf(line, "%63[^\t]\t%63[^\t]\t%511[^\t]\t%llu\t%llu\t%llu", fam, params, file,
                   &st, &tr, &dl) != 6 || st > EX_MAX || access(file, R_OK) != 0)
            continue;
        struct network net;
        struct wx_error err;
        int rc = network_from_file(file, NULL, &net, &err);
        if (!check(rc == WX_OK, "example %s %s builds (%s)", fam, params, rc ? err.msg : "ok"))
            continue;
        struct xres r = explore(&net);
        check(r.states == st && r.trans == tr && r.deadlocks == dl,
              "example %s %s: expected %llu states %llu transitions %llu deadlocks, found "
              "%llu %llu %llu", fam, params, st, tr, dl, (unsigned long long)r.states,
              (unsigned long long)r.trans, (unsigned long long)r.deadlocks);
        network_free(&net);
        rows++;
    }
    fclose(f);
    check(rows > 0, "examples: %d rows checked", rows);
}
