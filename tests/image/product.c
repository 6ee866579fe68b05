/*
 * product.c -- (b) product: hand-made, EXP-built and random
 * networks compiled, decoded and explored through the image and through
 * the network, which must agree.
 *
 * Part of test_image.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ------------------------------------------------------------ tests */

static int compile_ok(const struct network *net, struct image *img, const char *tag)
{
    struct wx_error err;
    wx_error_clear(&err);
    int rc = image_compile(net, img, &err);
    if (rc != WX_OK)
        check(0, "compile %s: rc %d: %s", tag, rc, err.msg);
    return rc == WX_OK;
}

/* Explores net and img both ways and compares; returns 1 if equal. */
static int check_product(const struct network *net, const struct image *img, const char *tag, int *skipped)
{
    struct prod a, b;
    explore(net_next, net, net->n_comps, &a);
    explore_image(img, &b);
    char why[200];
    int ok;
    if (a.gave_up && b.gave_up) { /* both too large; a broken image gives up alone */
        (*skipped)++;
        ok = 1;
        printf("note: %s: product too large for the test explorer, skipped\n", tag);
    } else {
        ok = same_product(&a, &b, 1, why, sizeof why);
        check(ok, "product %s: %llu states (%s), %zu transitions, %llu deadlocks%s%s", tag,
              (unsigned long long)a.states.n, a.complete ? "complete" : "bounded", distinct_edges(&a),
              (unsigned long long)a.deadlocks, ok ? "" : ": ", why);
    }
    prod_free(&a);
    prod_free(&b);
    return ok;
}

static void test_hand_made(void)
{
    struct network net;
    struct image img;
    int skipped = 0;

    /* traffic, by hand (light: r g y; pedestrian: kerb K, crossing C, across A):
     *   rK -green-> gK, rK -crossing-> rC;   gK -yellow-> yK;   yK -red-> rK;
     *   rC -arrive-> rA;   rA -green-> gA, rA -i-> rK;   gA -yellow-> yA, gA -i-> gK;
     *   yA -red-> rA, yA -i-> yK.
     * 7 states, 11 transitions, no deadlock; gC and yC (light not red while
     * crossing) are unreachable. */
    traffic_network(&net);
    if (compile_ok(&net, &img, "traffic")) {
        if (check_decode(&net, &img, "traffic"))
            check_product(&net, &img, "traffic", &skipped);
        struct prod p;
        explore_image(&img, &p);
        CHECK_EQ_U64(p.states.n, 7, "traffic: reachable states");
        CHECK_EQ_U64(distinct_edges(&p), 11, "traffic: transitions");
        CHECK_EQ_U64(p.deadlocks, 0, "traffic: deadlocks");
        prod_free(&p);
        CHECK_EQ_U64(img.n_classes, 2, "traffic: classes");
        CHECK_EQ_U64(img.words, 1, "traffic: words");
        char *txt = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&txt, &len);
        image_print_info(&img, f);
        fclose(f);
        check(strstr(txt, "light.aut:go_green * pedestrian.aut:safe -> green") != NULL &&
                  strstr(txt, "pedestrian.aut:i -> i") != NULL && strstr(txt, "light.aut: 3 states, 4 transitions") != NULL &&
                  strstr(txt, "4 bits in 1 word") != NULL,
              "traffic: image_print_info names components, rules and layout");
        free(txt);
        image_free(&img);
    }
    network_free(&net);

    /* 2 of 3: one class with three rules */
    net_new(&net, "i");
    for (int c = 0; c < 3; c++)
        add_comp(&net, "x.aut", 2, "0 a 1");
    add_rule(&net, "a", "0:a 1:a");
    add_rule(&net, "a", "0:a 2:a");
    add_rule(&net, "a", "1:a 2:a");
    network_normalise(&net);
    if (compile_ok(&net, &img, "2of3")) {
        check(img.n_classes == 1 && img.n_rules == 3, "2of3: one class, three rules (found %u, %u)",
              img.n_classes, img.n_rules);
        check_decode(&net, &img, "2of3");
        struct prod p;
        explore_image(&img, &p);
        check(p.states.n == 4 && distinct_edges(&p) == 3 && p.deadlocks == 3,
              "2of3: 4 states, 3 transitions, 3 deadlocks (found %llu, %zu, %llu)",
              (unsigned long long)p.states.n, distinct_edges(&p), (unsigned long long)p.deadlocks);
        prod_free(&p);
        image_free(&img);
    }
    network_free(&net);

    /* conflicting component labels: two classes with one result */
    net_new(&net, "i");
    add_comp(&net, "A", 2, "0 a 1; 0 c 1");
    add_comp(&net, "B", 2, "0 b 1");
    add_comp(&net, "C", 2, "0 d 1");
    add_rule(&net, "r", "0:a 1:b");
    add_rule(&net, "r", "0:c 2:d");
    network_normalise(&net);
    if (compile_ok(&net, &img, "conflict")) {
        check(img.n_classes == 2 && img.class_result[0] == img.class_result[1],
              "conflict: A uses a and c, so two classes of result r (found %u)", img.n_classes);
        if (check_decode(&net, &img, "conflict"))
            check_product(&net, &img, "conflict", &skipped);
        image_free(&img);
    }
    network_free(&net);

    /* many targets: more than one entry per (component, state, class) */
    net_new(&net, "i");
    {
        char spec[8192] = "";
        size_t at = 0;
        for (int t = 1; t <= 150; t++)
            at += (size_t)snprintf(spec + at, sizeof spec - at, "0 a %d; ", t);
        add_comp(&net, "big", 200, spec);
        add_comp(&net, "small", 2, "0 a 1");
    }
    add_rule(&net, "a", "0:a 1:a");
    add_rule(&net, "solo", "0:a");
    network_normalise(&net);
    if (compile_ok(&net, &img, "fanout")) {
        uint32_t slots = image_entry_slots(img.act_bits, img.state_bits[0]);
        CHECK_EQ_U64(img.max_class_entries, (150 + slots - 1) / slots, "fanout: entries for 150 targets, %u slots",
                     slots);
        if (check_decode(&net, &img, "fanout"))
            check_product(&net, &img, "fanout", &skipped);
        struct prod p;
        explore_image(&img, &p);
        CHECK_EQ_U64(p.states.n, 1 + 150 + 150, "fanout: states");
        prod_free(&p);
        image_free(&img);
    }
    network_free(&net);

    /* a 1-state component, no rules: one state, a deadlock */
    net_new(&net, "i");
    add_comp(&net, "one", 1, "0 a 0");
    network_normalise(&net);
    if (compile_ok(&net, &img, "one-state")) {
        check(img.first_bit[1] == 0 && img.words == 1 && img.n_entries == 0,
              "one-state: 0-bit field, 1 word, no entries (a is blocked)");
        struct prod p;
        explore_image(&img, &p);
        check(p.states.n == 1 && p.deadlocks == 1, "one-state: 1 state, 1 deadlock");
        prod_free(&p);
        image_free(&img);
    }
    network_free(&net);

    /* no components at all: the empty vector is the only state */
    net_new(&net, "i");
    if (compile_ok(&net, &img, "empty")) {
        check(img.words == 1 && img.n_entries == 0 && img.mask_words == 0, "empty network compiles");
        image_free(&img);
    }
    network_free(&net);

}

/* examples/traffic/traffic.exp through the EXP front end: the same product,
 * labels compared by text, as the hand-built network of the docs. */
static void test_traffic_exp(void)
{
    struct net_options opt;
    memset(&opt, 0, sizeof opt);
    struct network exp_net, hand_net;
    struct image exp_img, hand_img;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = network_from_exp("examples/traffic/traffic.exp", &opt, &exp_net, &err);
    if (!check(rc == WX_OK, "traffic.exp reads (%s:%d:%d: %s)", err.file, err.line, err.col, err.msg))
        return;
    traffic_network(&hand_net);
    if (compile_ok(&exp_net, &exp_img, "traffic.exp")) {
        if (check_decode(&exp_net, &exp_img, "traffic.exp") && compile_ok(&hand_net, &hand_img, "traffic")) {
            struct prod a, b;
            explore_image(&exp_img, &a);
            explore_image(&hand_img, &b);
            int mapped = 1;
            for (size_t i = 0; i < a.n_edges; i++) {
                const char *t = strtab_str(exp_img.labels, a.edges[i].label);
                uint32_t id = strtab_find(hand_img.labels, t, strlen(t));
                mapped &= id != UINT32_MAX;
                a.edges[i].label = id;
            }
            char why[200];
            check(mapped && same_product(&a, &b, 1, why, sizeof why) && exp_img.n_classes == 2 &&
                      exp_img.words == 1,
                  "traffic.exp = the documented hand-built network: same states and labelled transitions, "
                  "2 classes, 1 word %s",
                  why);
            prod_free(&a);
            prod_free(&b);
            image_free(&hand_img);
        }
        image_free(&exp_img);
    }
    network_free(&exp_net);
    network_free(&hand_net);
}

static void test_random(uint64_t seed0, int *n_fit_gpf)
{
    int skipped = 0, wide = 0, straddle = 0, one_state = 0, many_labels = 0, nondet3 = 0, two_of_three = 0;
    char tag[96];
    for (uint32_t i = 0; i < N_RANDOM; i++) {
        uint64_t seed = seed0 * 1000003u + i;
        struct network net;
        const char *pname;
        random_network(seed, &net, &pname);
        snprintf(tag, sizeof tag, "random %s seed=%llu", pname, (unsigned long long)seed);
        struct image img;
        if (!compile_ok(&net, &img, tag)) {
            network_free(&net);
            continue;
        }
        /* coverage of the features the brief asks for */
        wide += img.n_comps > 32;
        for (uint32_t c = 0; c < img.n_comps; c++) {
            if (img.first_bit[c] / 32 != (img.first_bit[c + 1] - 1) / 32 && img.first_bit[c + 1] > img.first_bit[c]) {
                straddle++;
                break;
            }
        }
        for (uint32_t c = 0; c < img.n_comps; c++)
            if (img.comp_states[c] == 1) {
                one_state++;
                break;
            }
        many_labels += img.n_labels > 100;
        for (uint32_t c = 0, found = 0; c < net.n_comps && !found; c++) {
            const struct lts *l = &net.comps[c];
            for (uint64_t x = 0; x + 2 < l->n_trans && !found; x++)
                found = l->src[x] == l->src[x + 2] && l->label[x] == l->label[x + 2];
            nondet3 += found;
        }
        for (uint32_t k = 0; k < img.n_classes; k++)
            if (img.class_rule_start[k + 1] - img.class_rule_start[k] >= 3) {
                two_of_three++;
                break;
            }
        /* a wrong image can send the explorers out of bounds: explore only
         * images that decode correctly */
        int ok = check_decode(&net, &img, tag) && check_product(&net, &img, tag, &skipped);
        if (!ok) {
            image_free(&img);
            network_free(&net);
            continue;
        }

        /* gpf round trip where GPUexplore's limits allow it */
        char path[64];
        snprintf(path, sizeof path, "tests/out/test_image_%d.gpf", (int)getpid());
        struct wx_error err;
        wx_error_clear(&err);
        int rc = gpf_write(&img, path, &err);
        if (rc == WX_OK) {
            /* GPUexplore's flag bits: fields >= 1 bit, bit 30 of int 0 never
             * set, bits 30..31 of the last int outside every field */
            size_t tl;
            char *txt = slurp(path, &tl), *q = txt;
            long hdr[5 + 33];
            int nh = 0;
            while (txt && nh < 5 + 33 && *q) {
                hdr[nh++] = strtol(q, &q, 10);
                while (*q == '\n')
                    q++;
            }
            long np = nh > 1 ? hdr[1] : 0, sv = nh > 4 ? (hdr[4] + 31) / 32 : 0, flags_ok = nh >= 6 + np;
            for (long c = 0; flags_ok && c < np; c++) {
                /* a field may span bit 30 of int 0 (the writer widens the
                 * field before a gap) as long as its values never reach it */
                long a = hdr[5 + c], b = hdr[6 + c];
                flags_ok = b > a && (a > 30 || b <= 30 || img.comp_states[c] <= (1ul << (30 - a)));
            }
            flags_ok = flags_ok && hdr[5 + np] <= 32 * sv - 2;
            check(flags_ok, "gpf %s: written vector fields avoid GPUexplore's flag bits", tag);
            free(txt);
            struct image back;
            rc = gpf_read(path, &back, &err);
            if (rc != WX_OK) {
                check(0, "gpf round trip %s: read back failed: %s:%d:%d: %s", tag, err.file, err.line, err.col,
                      err.msg);
            } else {
                struct prod a, b;
                explore_image(&img, &a);
                explore_image(&back, &b);
                char why[200];
                if (a.gave_up && b.gave_up) {
                    skipped++;
                } else {
                    int same = same_product(&a, &b, 0, why, sizeof why);
                    check(same, "gpf round trip %s: %llu states, same unlabelled graph%s%s", tag,
                          (unsigned long long)a.states.n, same ? "" : ": ", why);
                }
                prod_free(&a);
                prod_free(&b);
                image_free(&back);
                (*n_fit_gpf)++;
            }
            remove(path);
        } else {
            check(rc == WX_ELIMIT && err.msg[0],
                  "gpf write %s refused with a limit: %s", tag, err.msg);
        }
        image_free(&img);
        network_free(&net);
    }
    printf("note: seed %llu: %d random networks; %d >32 components, %d with a straddling field, %d with a "
           "1-state component, %d with >100 labels, %d with >=3 targets per label, %d with a >=3-rule class, "
           "%d skipped (too large)\n",
           (unsigned long long)seed0, N_RANDOM, wide, straddle, one_state, many_labels, nondet3, two_of_three,
           skipped);
    check(wide >= 20 && straddle >= 20 && one_state >= 50 && many_labels >= 20 && nondet3 >= 50 &&
              two_of_three >= 20 && skipped <= N_RANDOM / 20,
          "random networks cover the required features (seed %llu)", (unsigned long long)seed0);
}
