/*
 * gpf.c -- (d) .gpf: a hand-encoded file, the writer's
 * round trip, the example files, malformed files and mutated files.
 *
 * Part of test_image.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* The two-process example encoded by hand from the format notes (§3.1), not
 * by our writer:
 *   p0: 2 states, 0 -a-> 1 (sync label 0), 1 -local-> 0
 *   p1: 3 states, 0 -a-> 1 (sync label 0), 1 -local-> 2, 2 -local-> 0
 *   rule for label 0: {p0, p1}
 * Vector: p0 bit 0, p1 bits 1..2.  Entries (bits_act 1, 2-bit slots, 15
 * slots): sync a->1 = 1 | 0<<1 | (1+1)<<2 = 9; local ->0 = 1<<2 = 4;
 * local ->2 = 3<<2 = 12.  Offsets (3 bits, 10 per word): p0 {0,1,2} =
 * 0 | 1<<3 | 2<<6 = 136; p1 {2,3,4,5} = 2 | 3<<3 | 4<<6 | 5<<9 = 2842.
 * Rules: one word holding mask 0b11; offsets {0,1} at 1 bit: 0 | 1<<1 = 2.
 * Product: 6 states (all pairs except none: (0,0) (1,1) (0,1) (1,2) (0,2)
 * (1,0)), no deadlock. */
static const char hand_gpf[] =
    "0\n2\n1\n15\n5\n"     /* liveness, nr_procs, bits_act, proc_nrstates, bits_statevector */
    "0\n1\n3\n"            /* firstbit */
    "2\n2\n"               /* bits_state */
    "3\n1\n"               /* nbits_offset, max_buf_ints */
    "0\n1\n2\n"            /* proc_offsets_start */
    "136\n2842\n"          /* proc_offsets */
    "5\n9\n4\n9\n12\n4\n"  /* nr_trans, entries */
    "1\n1\n2\n"            /* nbits_syncbits_offset, nr_syncbits_offsets, offsets */
    "1\n3\n";              /* nr_syncbits, rules */

static void hand_gpf_network(struct network *net)
{
    net_new(net, "i");
    add_comp(net, "p0", 2, "0 a 1; 1 x 0");
    add_comp(net, "p1", 3, "0 a 1; 1 y 2; 2 y 0");
    add_rule(net, "a", "0:a 1:a");
    add_rule(net, "x", "0:x");
    add_rule(net, "y", "1:y");
    network_normalise(net);
}

static void test_gpf_hand(void)
{
    struct image img;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = gpf_parse(hand_gpf, sizeof hand_gpf - 1, "hand.gpf", &img, &err);
    check(rc == WX_OK, "gpf hand-encoded file reads (%s:%d:%d: %s)", err.file, err.line, err.col, err.msg);
    if (rc == WX_OK) {
        struct prod p;
        explore_image(&img, &p);
        check(p.states.n == 6 && p.deadlocks == 0 && img.n_comps == 2 && img.comp_states[0] == 2 &&
                  img.comp_states[1] == 3,
              "gpf hand-encoded file: 6 states, no deadlock, 2 and 3 process states (found %llu, %llu)",
              (unsigned long long)p.states.n, (unsigned long long)p.deadlocks);
        /* and the same graph as the network it encodes */
        struct network net;
        struct image ref;
        hand_gpf_network(&net);
        if (compile_ok(&net, &ref, "hand network")) {
            struct prod q;
            explore_image(&ref, &q);
            char why[200];
            check(same_product(&p, &q, 0, why, sizeof why), "gpf hand-encoded file = its network, unlabelled %s",
                  why);
            prod_free(&q);
            /* our writer, from the network, produces exactly the hand encoding */
            char path[64];
            snprintf(path, sizeof path, "tests/out/test_image_hand_%d.gpf", (int)getpid());
            rc = gpf_write(&ref, path, &err);
            size_t len = 0;
            char *txt = rc == WX_OK ? slurp(path, &len) : NULL;
            check(txt && len == sizeof hand_gpf - 1 && memcmp(txt, hand_gpf, len) == 0,
                  "gpf writer reproduces the hand encoding byte for byte");
            free(txt);
            remove(path);
            image_free(&ref);
        }
        network_free(&net);
        prod_free(&p);
        /* CR LF line ends, blanks around numbers and a missing final LF are fine */
        {
            char crlf[1024];
            size_t n = 0;
            for (const char *q = hand_gpf; *q; q++) {
                if (*q == '\n' && q[1] != '\0')
                    crlf[n++] = ' ', crlf[n++] = '\r';
                if (*q != '\n' || q[1] != '\0')
                    crlf[n++] = *q;
            }
            struct image img2;
            rc = gpf_parse(crlf, n, "crlf.gpf", &img2, &err);
            check(rc == WX_OK, "gpf: CR LF, trailing blanks and no final newline accepted (%s)", err.msg);
            if (rc == WX_OK)
                image_free(&img2);
        }
        /* labels are the documented synthetic ones */
        check(strtab_find(img.labels, "local", 5) != UINT32_MAX && strtab_find(img.labels, "L0", 2) != UINT32_MAX &&
                  img.hidden == UINT32_MAX,
              "gpf labels: local and L0, nothing hidden");
        image_free(&img);
    }
    /* the traffic example's .gpf is regenerated exactly (regression) */
    struct network net;
    traffic_network(&net);
    if (compile_ok(&net, &img, "traffic for gpf")) {
        char path[64];
        snprintf(path, sizeof path, "tests/out/test_image_traffic_%d.gpf", (int)getpid());
        rc = gpf_write(&img, path, &err);
        size_t la = 0, lb = 0;
        char *a = rc == WX_OK ? slurp(path, &la) : NULL, *b = slurp("examples/traffic/traffic.gpf", &lb);
        check(a && b && la == lb && memcmp(a, b, la) == 0, "gpf: examples/traffic/traffic.gpf is what the writer "
                                                           "produces for the traffic network");
        free(a), free(b);
        remove(path);
        struct image back;
        rc = gpf_read("examples/traffic/traffic.gpf", &back, &err);
        if (check(rc == WX_OK, "gpf: examples/traffic/traffic.gpf reads (%s)", err.msg)) {
            struct prod p;
            explore_image(&back, &p);
            CHECK_EQ_U64(p.states.n, 7, "gpf: traffic.gpf states");
            prod_free(&p);
            image_free(&back);
        }
        image_free(&img);
    }
    network_free(&net);
}

/* The bundled example networks (examples/counts.tsv, counts known
 * independently of warpex): compiled images explored by explore_seq give the
 * listed counts, and after image -> .gpf -> image the same state count. */
static void test_gpf_examples(void)
{
    size_t len;
    char *tsv = slurp("examples/counts.tsv", &len);
    if (!check(tsv != NULL, "examples/counts.tsv exists"))
        return;
    char path[64];
    snprintf(path, sizeof path, "tests/out/test_image_ex_%d.gpf", (int)getpid());
    int n = 0;
    for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
        char fam[64], params[64], file[256];
        unsigned long long st, tr, dl;
        if (sscanf(line, "%63s %63s %255s %llu %llu %llu", fam, params, file, &st, &tr, &dl) != 6 ||
            strstr(file, "examples/large/") || st > 60000)
            continue;
        struct net_options opt;
        memset(&opt, 0, sizeof opt);
        struct network net;
        struct image img, back;
        struct wx_error err;
        if (!check(network_from_exp(file, &opt, &net, &err) == WX_OK, "example %s reads (%s)", file, err.msg))
            continue;
        int rc = image_compile(&net, &img, &err);
        network_free(&net);
        if (!check(rc == WX_OK, "example %s compiles (%s)", file, err.msg))
            continue;
        struct explore_options eo;
        memset(&eo, 0, sizeof eo);
        struct explore_result r, r2;
        memset(&r, 0, sizeof r);
        memset(&r2, 0, sizeof r2);
        rc = explore_seq(&img, &eo, &r, &err);
        check(rc == WX_OK && r.states == st && r.transitions == tr && r.deadlocks == dl,
              "example %s: explore_seq on the image gives counts.tsv's %llu/%llu/%llu (found %llu/%llu/%llu)", file,
              st, tr, dl, (unsigned long long)r.states, (unsigned long long)r.transitions,
              (unsigned long long)r.deadlocks);
        rc = gpf_write(&img, path, &err);
        if (rc == WX_OK && (rc = gpf_read(path, &back, &err)) == WX_OK) {
            rc = explore_seq(&back, &eo, &r2, &err);
            image_free(&back);
        }
        check(rc == WX_OK && r2.states == st, "example %s: image -> .gpf -> image keeps %llu states (%llu; %s)",
              file, st, (unsigned long long)r2.states, err.msg);
        explore_result_free(&r);
        explore_result_free(&r2);
        image_free(&img);
        n++;
    }
    remove(path);
    free(tsv);
    check(n >= 20, "examples checked through .gpf: %d", n);
}

/* tests/bad/gpf/EXPECT: "file line col substring..." per line; every .gpf in
 * the folder must be listed. */
static void test_gpf_bad(void)
{
    size_t len;
    char *manifest = slurp("tests/bad/gpf/EXPECT", &len);
    if (!check(manifest != NULL, "tests/bad/gpf/EXPECT exists"))
        return;
    int n = 0;
    char listed[8192] = " ";
    for (char *line = strtok(manifest, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char file[128];
        int eline, ecol, used = 0;
        if (sscanf(line, "%127s %d %d %n", file, &eline, &ecol, &used) < 3) {
            check(0, "EXPECT line unreadable: %s", line);
            continue;
        }
        const char *sub = line + used;
        char path[256];
        snprintf(path, sizeof path, "tests/bad/gpf/%s", file);
        strncat(listed, file, sizeof listed - strlen(listed) - 2);
        strcat(listed, " ");
        struct image img;
        struct wx_error err;
        wx_error_clear(&err);
        int rc = gpf_read(path, &img, &err);
        if (rc == WX_OK)
            image_free(&img);
        check(rc == WX_EINPUT && err.line == eline && err.col == ecol && strstr(err.msg, sub) != NULL &&
                  strcmp(err.file, path) == 0,
              "bad gpf %s: expected %d:%d '%s', found rc %d %s:%d:%d: %s", file, eline, ecol, sub, rc, err.file,
              err.line, err.col, err.msg);
        n++;
    }
    free(manifest);
    check(n >= 15, "at least 15 malformed .gpf files (%d)", n);
    /* every file in the folder is in the manifest */
    FILE *ls = popen("ls tests/bad/gpf", "r");
    char name[256];
    int unlisted = 0;
    while (ls && fgets(name, sizeof name, ls)) {
        name[strcspn(name, "\n")] = '\0';
        if (strcmp(name, "EXPECT") == 0)
            continue;
        char key[260];
        snprintf(key, sizeof key, " %s ", name);
        if (!strstr(listed, key)) {
            printf("note: %s is not in EXPECT\n", name);
            unlisted++;
        }
    }
    if (ls)
        pclose(ls);
    check(unlisted == 0, "every file in tests/bad/gpf is listed in EXPECT");
}

/* Mutated files: the reader returns OK or WX_EINPUT, never crashes, and an
 * accepted file gives an image that can be explored. */
static void test_gpf_fuzz(uint64_t seed0)
{
    struct network net;
    struct image img;
    struct wx_error err;
    char path[64];
    snprintf(path, sizeof path, "tests/out/test_image_fuzz_%d.gpf", (int)getpid());
    /* base texts: the hand file and the traffic file */
    char *base[2];
    size_t blen[2];
    base[0] = xmalloc(sizeof hand_gpf);
    memcpy(base[0], hand_gpf, sizeof hand_gpf);
    blen[0] = sizeof hand_gpf - 1;
    traffic_network(&net);
    base[1] = NULL;
    if (compile_ok(&net, &img, "fuzz base") && gpf_write(&img, path, &err) == WX_OK)
        base[1] = slurp(path, &blen[1]);
    image_free(&img);
    network_free(&net);
    remove(path);
    if (!base[1]) {
        check(0, "fuzz: no base text");
        free(base[0]);
        return;
    }
    rng = seed0 ^ 0xf00dull;
    int accepted = 0, rejected = 0, other = 0;
    for (int it = 0; it < 3000; it++) {
        int which = it & 1;
        size_t n = blen[which];
        char *t = xmalloc(n + 64);
        memcpy(t, base[which], n);
        int muts = 1 + (int)rn(3);
        for (int m = 0; m < muts; m++) {
            /* find line boundaries */
            size_t pos = n ? rn((uint32_t)n) : 0;
            switch (rn(6)) {
            case 0: /* change a digit */
                if (n && t[pos] >= '0' && t[pos] <= '9')
                    t[pos] = (char)('0' + rn(10));
                break;
            case 1: /* truncate */
                n = pos;
                break;
            case 2: { /* delete a line */
                size_t a = pos, b = pos;
                while (a > 0 && t[a - 1] != '\n')
                    a--;
                while (b < n && t[b] != '\n')
                    b++;
                if (b < n)
                    b++;
                memmove(t + a, t + b, n - b);
                n -= b - a;
                break;
            }
            case 3: /* insert a random byte */
                if (n < blen[which] + 60) {
                    memmove(t + pos + 1, t + pos, n - pos);
                    t[pos] = (char)rn(256);
                    n++;
                }
                break;
            case 4: { /* replace a line by a random number */
                size_t a = pos, b = pos;
                while (a > 0 && t[a - 1] != '\n')
                    a--;
                while (b < n && t[b] != '\n')
                    b++;
                char num[24];
                int k = snprintf(num, sizeof num, "%d", (int)(rnd() >> (rn(40) + 24)) - (int)rn(3));
                if (n - (b - a) + (size_t)k < blen[which] + 60) {
                    memmove(t + a + k, t + b, n - b);
                    memcpy(t + a, num, (size_t)k);
                    n = n - (b - a) + (size_t)k;
                }
                break;
            }
            default: /* flip a bit of a number */
                if (n && t[pos] >= '0' && t[pos] <= '9')
                    t[pos] = (char)('0' + ((t[pos] - '0') ^ (1 << rn(3))) % 10);
                break;
            }
        }
        struct image g;
        wx_error_clear(&err);
        int rc = gpf_parse(t, n, "fuzz.gpf", &g, &err);
        if (rc == WX_OK) {
            accepted++;
            char buf[256];
            const char *bad = check_layout(&g, buf, sizeof buf);
            if (bad) {
                check(0, "fuzz %d (seed %llu): accepted file gives a bad image: %s", it, (unsigned long long)seed0,
                      bad);
                other++;
            }
            struct prod p;
            explore_image(&g, &p);
            prod_free(&p);
            image_free(&g);
        } else if (rc == WX_EINPUT && err.line > 0) {
            rejected++;
        } else {
            other++;
            check(0, "fuzz %d: rc %d without a line: %s", it, rc, err.msg);
        }
        free(t);
    }
    free(base[0]), free(base[1]);
    check(other == 0 && rejected > 1000, "fuzz (seed %llu): 3000 mutated .gpf files, %d accepted, %d rejected with "
                                         "a location, none crashed",
          (unsigned long long)seed0, accepted, rejected);
}
