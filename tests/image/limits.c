/*
 * limits.c -- (c) limits: every encoding limit of the
 * image compiler and the .gpf writer fails loudly with WX_ELIMIT.
 *
 * Part of test_image.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

static int expect_limit(const struct network *net, const struct image_limits *lim, const char *what,
                        const char *substr)
{
    struct image img;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = lim ? image_compile_limited(net, lim, &img, &err) : image_compile(net, &img, &err);
    if (rc == WX_OK)
        image_free(&img);
    return check(rc == WX_ELIMIT && strstr(err.msg, substr) != NULL, "limit %s: WX_ELIMIT naming '%s' (rc %d: %s)",
                 what, substr, rc, err.msg);
}

static int expect_ok(const struct network *net, const struct image_limits *lim, const char *what)
{
    struct image img;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = image_compile_limited(net, lim, &img, &err);
    if (rc == WX_OK)
        image_free(&img);
    return check(rc == WX_OK, "limit %s: just within the limit compiles (rc %d: %s)", what, rc, err.msg);
}

static void test_limits(void)
{
    struct network net;
    struct image_limits lim;

    /* vector wider than IMAGE_MAX_WORDS: 2048 one-bit fields + the flag bit */
    net_new(&net, "i");
    for (int c = 0; c < 2048; c++)
        add_comp(&net, "bit", 2, "0 a 1");
    expect_limit(&net, NULL, "2048 two-state components", "IMAGE_MAX_WORDS");
    network_free(&net);
    net_new(&net, "i");
    for (int c = 0; c < 2047; c++)
        add_comp(&net, "bit", 2, "0 a 1");
    image_default_limits(&lim);
    expect_ok(&net, &lim, "2047 two-state components (64 words)");
    network_free(&net);

    /* the same boundary at one word, through the limits */
    image_default_limits(&lim);
    lim.max_words = 1;
    net_new(&net, "i");
    for (int c = 0; c < 31; c++)
        add_comp(&net, "bit", 2, "0 a 1");
    expect_ok(&net, &lim, "31 one-bit fields in 1 word");
    add_comp(&net, "bit", 2, "0 a 1");
    expect_limit(&net, &lim, "32 one-bit fields in 1 word", "words");
    network_free(&net);

    /* act_bits: 4 classes fit 2 bits, 5 do not */
    image_default_limits(&lim);
    lim.max_act_bits = 2;
    net_new(&net, "i");
    add_comp(&net, "A", 2, "0 a 1");
    add_comp(&net, "B", 2, "0 a 1");
    for (int k = 0; k < 4; k++) {
        char r[16];
        snprintf(r, sizeof r, "r%d", k);
        add_rule(&net, r, "0:a 1:a");
    }
    network_normalise(&net);
    expect_ok(&net, &lim, "4 classes in 2 label bits");
    add_rule(&net, "r4", "0:a 1:a");
    network_normalise(&net);
    expect_limit(&net, &lim, "5 classes in 2 label bits", "IMAGE_MAX_ACT_BITS");
    network_free(&net);
    /* local result ids count too */
    net_new(&net, "i");
    add_comp(&net, "A", 2, "0 a 1");
    lab(&net, "x1"), lab(&net, "x2"), lab(&net, "x3");
    add_rule(&net, "x4", "0:a");
    network_normalise(&net);
    expect_limit(&net, &lim, "local result label id 5 in 2 label bits", "largest local result label id 5");
    network_free(&net);

    /* entries */
    image_default_limits(&lim);
    lim.max_entries = 3;
    net_new(&net, "i");
    add_comp(&net, "A", 4, "0 a 1; 1 a 2; 2 a 3");
    add_rule(&net, "a", "0:a");
    network_normalise(&net);
    expect_ok(&net, &lim, "3 entries");
    network_free(&net);
    net_new(&net, "i");
    add_comp(&net, "A", 5, "0 a 1; 1 a 2; 2 a 3; 3 a 4");
    add_rule(&net, "a", "0:a");
    network_normalise(&net);
    expect_limit(&net, &lim, "4 entries with max 3", "transition entries");
    network_free(&net);

    /* rule-mask words */
    image_default_limits(&lim);
    lim.max_rule_words = 2;
    net_new(&net, "i");
    add_comp(&net, "A", 2, "0 a 1; 0 b 1; 0 c 1");
    add_comp(&net, "B", 2, "0 a 1");
    add_rule(&net, "r", "0:a 1:a");
    add_rule(&net, "s", "0:b 1:a");
    network_normalise(&net);
    expect_ok(&net, &lim, "2 rule words");
    add_rule(&net, "t", "0:c 1:a");
    network_normalise(&net);
    expect_limit(&net, &lim, "3 rule words with max 2", "rule-mask words");
    network_free(&net);

    /* component state counts beyond the image's 31-bit state ids, and state
     * offsets beyond 32 bits: checked before any transition is read, so fake
     * components without arrays are enough */
    net_new(&net, "i");
    {
        struct lts fake;
        memset(&fake, 0, sizeof fake);
        fake.n_states = 0x80000000u;
        network_add_comp(&net, &fake, "huge");
    }
    expect_limit(&net, NULL, "component with 2^31 states", "LTS_MAX_STATES");
    net.comps[0].n_states = 0x7fffffffu;
    {
        struct lts fake;
        memset(&fake, 0, sizeof fake);
        fake.n_states = 0x7fffffffu;
        network_add_comp(&net, &fake, "huge2");
    }
    expect_limit(&net, NULL, "two components of 2^31-1 states", "state offsets are 32-bit");
    for (uint32_t c = 0; c < net.n_comps; c++)
        net.comps[c].n_states = 0; /* nothing was allocated: keep lts_free happy */
    network_free(&net);

    /* malformed networks are input errors, not crashes */
    net_new(&net, "i");
    add_comp(&net, "A", 2, "0 a 1");
    add_comp(&net, "B", 2, "0 a 1");
    add_rule(&net, "a", "0:a 1:a");
    net.part_comp[0] = 1; /* now 1, 1: not strictly ascending */
    {
        struct image img;
        struct wx_error err;
        int rc = image_compile(&net, &img, &err);
        check(rc == WX_EINPUT && strstr(err.msg, "ascending"), "malformed rule rejected: %s", err.msg);
    }
    net.part_comp[0] = 0;
    net.rule_start[1] = 0; /* rule 0 now has no participants */
    {
        struct image img;
        struct wx_error err;
        int rc = image_compile(&net, &img, &err);
        check(rc == WX_EINPUT && strstr(err.msg, "no participants"), "empty rule rejected: %s", err.msg);
    }
    net.rule_start[1] = 2;
    network_free(&net);

    /* GPUexplore limits, on writing */
    char path[64];
    snprintf(path, sizeof path, "tests/out/test_image_lim_%d.gpf", (int)getpid());
    struct image img;
    struct wx_error err;
    net_new(&net, "i");
    for (int c = 0; c < 32; c++)
        add_comp(&net, "p", 2, "0 a 1");
    if (compile_ok(&net, &img, "32 comps")) {
        int rc = gpf_write(&img, path, &err);
        check(rc == WX_ELIMIT && strstr(err.msg, "at most 31 processes") && access(path, F_OK) != 0,
              "gpf limit: 32 processes refused, no file left (%s)", err.msg);
        image_free(&img);
    }
    network_free(&net);
    net_new(&net, "i");
    for (int c = 0; c < 31; c++) /* 31 fields of 11 bits: 341 + 2 bits > 9 ints */
        add_comp(&net, "p", 2048, "0 a 1");
    if (compile_ok(&net, &img, "wide vector")) {
        int rc = gpf_write(&img, path, &err);
        check(rc == WX_ELIMIT && strstr(err.msg, "MAX_SIZE"), "gpf limit: 11 ints refused (%s)", err.msg);
        image_free(&img);
    }
    network_free(&net);
    net_new(&net, "i");
    add_comp(&net, "big", 1u << 20, "0 a 1");
    add_comp(&net, "B", 2, "0 a 1");
    for (int k = 0; k < 1025; k++) { /* 1025 classes: 11 label bits + 21 slot bits > 31 */
        char r[16];
        snprintf(r, sizeof r, "r%d", k);
        add_rule(&net, r, "0:a 1:a");
    }
    network_normalise(&net);
    if (compile_ok(&net, &img, "act+state")) {
        int rc = gpf_write(&img, path, &err);
        check(rc == WX_ELIMIT && strstr(err.msg, "31 bits of a GPUexplore entry"),
              "gpf limit: bits_act + bits_state > 31 refused (%s)", err.msg);
        image_free(&img);
    }
    network_free(&net);
    remove(path);
}
