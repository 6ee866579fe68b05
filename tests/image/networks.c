/*
 * networks.c -- the networks test_image.c compiles: random
 * ones drawn from profiles, hand-made ones, and the worked traffic-light
 * example of docs/image.md (--traffic).
 *
 * Part of test_image.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ------------------------------------------------------------ random networks */

struct profile {
    const char *name;
    uint32_t comps_lo, comps_hi;
    uint32_t pool;          /* label pool size (besides "i") */
    uint32_t alpha;         /* labels per component, at most */
    uint32_t states_hi;     /* states, at most (some components get 1) */
    uint32_t wide_pct;      /* % of components with 40..400 states */
    uint32_t nondet_pct;    /* % of states with a 3..12-target label */
    uint32_t parts_hi;      /* participants per sync rule, at most */
};

static const struct profile profiles[] = {
    {"small", 1, 6, 6, 4, 6, 0, 10, 3},
    {"wide", 33, 45, 8, 3, 3, 8, 5, 3},
    {"labels", 2, 6, 300, 40, 6, 0, 10, 3},
    {"nondet", 2, 4, 6, 4, 60, 20, 40, 2},
    {"straddle", 8, 20, 10, 4, 5, 40, 5, 4},
};
#define N_PROFILES (sizeof profiles / sizeof profiles[0])

/* A random network; the seed decides everything. */
static void random_network(uint64_t seed, struct network *net, const char **pname)
{
    rng = seed;
    const struct profile *pr = &profiles[seed % N_PROFILES];
    *pname = pr->name;
    net_new(net, "i");
    char name[32];
    uint32_t pool = 2 + rn(pr->pool);
    for (uint32_t l = 0; l < pool; l++) {
        snprintf(name, sizeof name, "a%u", l);
        lab(net, name);
    }
    uint32_t nl = strtab_count(net->labels); /* label 0 = "i" */
    uint32_t nc = pr->comps_lo + rn(pr->comps_hi - pr->comps_lo + 1);
    uint32_t alpha[64][48], na[64];
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t ns = chance(15) ? 1 : 1 + rn(pr->states_hi);
        if (chance(pr->wide_pct))
            ns = 40 + rn(361);
        na[c] = 1 + rn(pr->alpha < nl - 1 ? pr->alpha : nl - 1);
        for (uint32_t i = 0; i < na[c]; i++)
            alpha[c][i] = 1 + rn(nl - 1);
        if (chance(30))
            alpha[c][na[c]++] = 0; /* hidden transitions too */
        struct lts l;
        lts_init(&l, ns);
        for (uint32_t s = 0; s < ns; s++) {
            uint32_t deg = rn(4);
            if (ns > 20)
                deg = rn(3);
            if (s == 0 && deg == 0)
                deg = 1; /* fewer trivial products */
            for (uint32_t d = 0; d < deg; d++)
                if (lts_add(&l, s, alpha[c][rn(na[c])], rn(ns)) != 0)
                    die("lts_add");
            if (chance(pr->nondet_pct)) {
                uint32_t lbl = alpha[c][rn(na[c])], k = 3 + rn(10);
                for (uint32_t d = 0; d < k; d++)
                    if (lts_add(&l, s, lbl, rn(ns)) != 0)
                        die("lts_add");
            }
        }
        snprintf(name, sizeof name, "c%u.aut", c);
        if (lts_finish(&l) != 0 || network_add_comp(net, &l, name) < 0)
            die("add comp");
    }
    /* single-participant rules, sometimes two results for one label */
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t i = 0; i < na[c]; i++) {
            uint32_t l = alpha[c][i];
            if (l == 0 || chance(50)) {
                uint32_t res = chance(50) ? l : rn(nl);
                if (network_add_rule(net, 1, &c, &l, res) != 0)
                    die("rule");
                if (chance(20)) {
                    res = rn(nl);
                    if (network_add_rule(net, 1, &c, &l, res) != 0)
                        die("rule");
                }
            }
        }
    /* random multi-participant rules, results from a small set so that
     * classes merge and conflict */
    uint32_t nres = 1 + rn(4), nrules = nc >= 2 ? 1 + rn(2 * nc + 2) : 0;
    for (uint32_t r = 0; r < nrules; r++) {
        uint32_t np = 2 + rn(pr->parts_hi - 1), comp[8], label[8];
        if (np > nc)
            np = nc;
        for (uint32_t i = 0; i < np; i++) {
            uint32_t c, dup;
            do {
                c = rn(nc);
                dup = 0;
                for (uint32_t j = 0; j < i; j++)
                    dup |= comp[j] == c;
            } while (dup);
            comp[i] = c;
            uint32_t l = alpha[c][rn(na[c])];
            label[i] = l == 0 ? 1 + rn(nl - 1) : l; /* no hidden label in vectors */
        }
        if (network_add_rule(net, np, comp, label, 1 + rn(nres < nl - 1 ? nres : nl - 1)) != 0)
            die("rule");
    }
    /* 2 of 3 (and sometimes all 3) on one result */
    if (nc >= 3 && chance(60)) {
        uint32_t c[3], l[3], res = rn(nl);
        c[0] = rn(nc);
        do
            c[1] = rn(nc);
        while (c[1] == c[0]);
        do
            c[2] = rn(nc);
        while (c[2] == c[0] || c[2] == c[1]);
        for (int i = 0; i < 3; i++) {
            l[i] = alpha[c[i]][rn(na[c[i]])];
            if (l[i] == 0)
                l[i] = 1;
        }
        for (int i = 0; i < 3; i++) {
            uint32_t pc[2] = {c[i], c[(i + 1) % 3]}, pl[2] = {l[i], l[(i + 1) % 3]};
            if (network_add_rule(net, 2, pc, pl, res) != 0)
                die("rule");
        }
        if (chance(40) && network_add_rule(net, 3, c, l, res) != 0)
            die("rule");
    }
    if (network_normalise(net) != 0)
        die("normalise");
}

/* ------------------------------------------------------------ hand-made networks */

/* The worked example of docs/image.md: a traffic light and a pedestrian.
 * Built by hand exactly as network_from_exp builds examples/traffic/traffic.exp
 * (label par using; hidden transitions interleave as single-participant
 * rules with result i). */
static void traffic_network(struct network *net)
{
    net_new(net, "i");
    /* light: 0 red, 1 green, 2 yellow */
    add_comp(net, "light.aut", 3, "0 is_red 0; 0 go_green 1; 1 go_yellow 2; 2 go_red 0");
    /* pedestrian: 0 at the kerb, 1 crossing, 2 across; wandering back is hidden */
    add_comp(net, "pedestrian.aut", 3, "0 safe 0; 0 cross 1; 1 arrive 2; 2 safe 2; 2 i 0");
    add_rule(net, "green", "0:go_green 1:safe");
    add_rule(net, "yellow", "0:go_yellow");
    add_rule(net, "red", "0:go_red");
    add_rule(net, "crossing", "0:is_red 1:cross");
    add_rule(net, "arrive", "1:arrive");
    add_rule(net, "i", "1:i");
    if (network_normalise(net) != 0)
        die("normalise");
}

static void print_bits(FILE *out, uint64_t v, uint32_t n)
{
    for (uint32_t i = n; i > 0; i--)
        fputc((v >> (i - 1)) & 1 ? '1' : '0', out);
}

/* Prints every entry of an image, decoded field by field. */
static void print_entries(const struct image *img)
{
    for (uint32_t c = 0; c < img->n_comps; c++)
        for (uint32_t s = 0; s < img->comp_states[c]; s++)
            for (uint32_t x = img->state_offsets[img->proc_offsets[c] + s];
                 x < img->state_offsets[img->proc_offsets[c] + s + 1]; x++) {
                uint64_t e = img->trans[x];
                uint32_t ab = img->act_bits, sb = img->state_bits[c];
                uint32_t slots = image_entry_slots(ab, sb);
                printf("trans[%u] (comp %u, state %u) = 0x%016llx\n  ", x, c, s, (unsigned long long)e);
                uint32_t used_slots = 0;
                while (used_slots < slots && image_entry_target(e, ab, sb, used_slots) != UINT32_MAX)
                    used_slots++;
                printf("bits 63..%u: 0 (", 1 + ab + used_slots * sb);
                if (used_slots < slots)
                    printf("empty slots %u..%u", used_slots, slots - 1);
                if (1 + ab + slots * sb < 64)
                    printf("%sunused bit%s", used_slots < slots ? ", " : "", 1 + ab + slots * sb < 63 ? "s" : "");
                printf(") ");
                for (uint32_t k = used_slots; k > 0; k--) {
                    printf("slot%u:", k - 1);
                    print_bits(stdout, (e >> (1 + ab + (k - 1) * sb)) & ((1ull << sb) - 1), sb);
                    printf(" ");
                }
                printf("label:");
                print_bits(stdout, image_entry_label(e, ab), ab);
                printf(" sync:%u\n  = %s %s", (unsigned)image_entry_is_sync(e),
                       image_entry_is_sync(e) ? "sync, class" : "local, label",
                       image_entry_is_sync(e) ? "" : strtab_str(img->labels, image_entry_label(e, ab)));
                if (image_entry_is_sync(e))
                    printf("%u", image_entry_label(e, ab));
                printf(", targets");
                for (uint32_t k = 0; k < slots; k++) {
                    uint32_t t = image_entry_target(e, ab, sb, k);
                    if (t == UINT32_MAX)
                        break;
                    printf(" %u", t);
                }
                printf("\n");
            }
}

/* The two smaller illustrations of docs/image.md: an entry with several
 * targets, and fields straddling a word boundary. */
static void print_more_examples(void)
{
    struct network net;
    struct image img;
    struct wx_error err;
    net_new(&net, "i");
    add_comp(&net, "dice.aut", 7, "0 roll 1; 0 roll 2; 0 roll 3; 0 roll 4; 0 roll 5; 0 roll 6");
    add_rule(&net, "roll", "0:roll");
    network_normalise(&net);
    if (image_compile(&net, &img, &err) == WX_OK) {
        printf("\n== dice: act_bits %u, state_bits %u, slots %u\n", img.act_bits, img.state_bits[0],
               image_entry_slots(img.act_bits, img.state_bits[0]));
        print_entries(&img);
        image_free(&img);
    }
    network_free(&net);
    net_new(&net, "i");
    for (int c = 0; c < 4; c++)
        add_comp(&net, "w.aut", 500, "0 a 1");
    if (image_compile(&net, &img, &err) == WX_OK) {
        uint32_t vec[IMAGE_MAX_WORDS] = {0}, val[4] = {1, 2, 3, 499};
        printf("\n== straddle: first_bit =");
        for (uint32_t c = 0; c <= img.n_comps; c++)
            printf(" %u", img.first_bit[c]);
        printf(", words = %u\nvector (1, 2, 3, 499):", img.words);
        for (uint32_t c = 0; c < img.n_comps; c++)
            set_of(&img, vec, c, val[c]);
        for (uint32_t w = 0; w < img.words; w++) {
            printf(" word %u = 0x%08x = ", w, vec[w]);
            print_bits(stdout, vec[w], 32);
        }
        printf("\nread back:");
        for (uint32_t c = 0; c < img.n_comps; c++)
            printf(" %u", field_of(&img, vec, c));
        printf("\n");
        image_free(&img);
    }
    network_free(&net);
}

/* Prints the arrays of the traffic image (built from examples/traffic/traffic.exp
 * by the EXP front end) for docs/image.md. */
static int print_traffic(void)
{
    struct network net;
    struct image img;
    struct wx_error err;
    struct net_options opt;
    memset(&opt, 0, sizeof opt);
    if (network_from_exp("examples/traffic/traffic.exp", &opt, &net, &err) != WX_OK) {
        printf("traffic.exp: %s:%d:%d: %s (run from the repository root)\n", err.file, err.line, err.col, err.msg);
        return 1;
    }
    if (image_compile(&net, &img, &err) != WX_OK) {
        printf("compile failed: %s\n", err.msg);
        return 1;
    }
    printf("== image_print_info\n");
    image_print_info(&img, stdout);
    printf("\n== arrays\n");
    printf("words = %u, act_bits = %u, n_entries = %u, n_classes = %u, n_rules = %u, mask_words = %u, "
           "max_class_entries = %u\n",
           img.words, img.act_bits, img.n_entries, img.n_classes, img.n_rules, img.mask_words,
           img.max_class_entries);
    printf("first_bit     =");
    for (uint32_t c = 0; c <= img.n_comps; c++)
        printf(" %u", img.first_bit[c]);
    printf("\nstate_bits    =");
    for (uint32_t c = 0; c < img.n_comps; c++)
        printf(" %u", img.state_bits[c]);
    printf("\nproc_offsets  =");
    for (uint32_t c = 0; c <= img.n_comps; c++)
        printf(" %u", img.proc_offsets[c]);
    printf("\nstate_offsets =");
    for (uint32_t i = 0; i < img.proc_offsets[img.n_comps]; i++)
        printf(" %u", img.state_offsets[i]);
    printf("\nclass_result  =");
    for (uint32_t k = 0; k < img.n_classes; k++)
        printf(" %u (%s)", img.class_result[k], strtab_str(img.labels, img.class_result[k]));
    printf("\nclass_rule_start =");
    for (uint32_t k = 0; k <= img.n_classes; k++)
        printf(" %u", img.class_rule_start[k]);
    printf("\nrule_mask     =");
    for (uint32_t r = 0; r < img.n_rules * img.mask_words; r++)
        printf(" 0x%08x", img.rule_mask[r]);
    printf("\n\n== entries (bit 63 .. bit 0)\n");
    print_entries(&img);
    struct prod p;
    explore_image(&img, &p);
    printf("\n== product: %llu states, %zu transitions, %llu deadlocks\n", (unsigned long long)p.states.n,
           distinct_edges(&p), (unsigned long long)p.deadlocks);
    for (uint64_t i = 0; i < p.states.n; i++) {
        uint32_t vec[IMAGE_MAX_WORDS] = {0};
        for (uint32_t c = 0; c < img.n_comps; c++)
            set_of(&img, vec, c, p.states.keys[i * img.n_comps + c]);
        printf("state (");
        for (uint32_t c = 0; c < img.n_comps; c++)
            printf("%s%u", c ? ", " : "", p.states.keys[i * img.n_comps + c]);
        printf(") vector word 0 = 0x%08x = ", vec[0]);
        print_bits(stdout, vec[0], 32);
        printf("\n");
    }
    prod_free(&p);
    const char *gpf = "tests/out/traffic.gpf";
    if (gpf_write(&img, gpf, &err) == WX_OK) {
        printf("\n== %s\n", gpf);
        FILE *f = fopen(gpf, "r");
        int ch;
        while (f && (ch = fgetc(f)) != EOF)
            putchar(ch);
        if (f)
            fclose(f);
    }
    image_free(&img);
    network_free(&net);
    print_more_examples();
    return 0;
}
