/*
 * stress.c -- stress cases for the GPU explorer: full
 * and too small tables, racing multi-word vectors, heavy nondeterminism,
 * wide vectors, and the growing table.
 *
 * Part of test_gpu.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ---- stress ---- */

/* What a drawn image must have (0: no bound). */
struct draw_want {
    uint64_t min_states, max_states, min_trans;
    uint32_t min_words, min_rules, max_rules, min_comps;
};

static int draw_ok(const struct image *img, const struct ref_result *ref, const struct draw_want *w)
{
    return !ref->too_big && ref->states >= w->min_states && (!w->max_states || ref->states <= w->max_states) &&
           ref->transitions >= w->min_trans && img->words >= w->min_words && img->n_rules >= w->min_rules &&
           (!w->max_rules || img->n_rules <= w->max_rules) && img->n_comps >= w->min_comps;
}

/* Draws images from gp until the reference explorer (with edges when
 * `edges`, at most cap states) finds one that meets w, or `tries` draws
 * are spent (the last one is kept). */
static void draw_image(struct image *img, struct ref_result *ref, struct rng *r, const struct gen_params *gp,
                       int edges, uint64_t cap, const struct draw_want *w, int tries)
{
    for (int t = 0;; t++) {
        if (t)
            ref_free(ref), image_free(img);
        img_random(img, r, gp);
        ref_explore(img, NULL, edges, cap, ref);
        if (draw_ok(img, ref, w) || t + 1 >= tries)
            return;
    }
}

/* The growing table on one instance: many growths (one block, one
 * iteration per launch: few states per launch, so the growth rule keeps
 * ahead of the launches), the same through host memory and with the one-thread
 * inserts replaced by reserve/write/publish, a tiny queue (pending states
 * left new for the scanners after a growth), and a first table that one
 * launch overfills (restart with the largest table).  Counts, and with
 * keep_vectors the vectors (initial state first), must be exact. */
static void growth_runs(const char *what, const struct image *img, const struct ref_result *ref)
{
    struct cfg c;
    char tag[256];
    cfg_default(&c);
    c.tun.grow_from = 1024;
    /* the sanitizers: fewer, larger launches (racecheck took over a minute
     * with 1 x 128 threads), without the growth-count checks */
    c.go.blocks = quick ? 2 : 1;
    c.go.threads = quick ? 512 : 32;
    c.go.iterations = 1;
    c.keep = 1;
    snprintf(tag, sizeof tag, "%s, growing table (%u block(s) of %u threads, 1 iteration)", what, c.go.blocks,
             c.go.threads);
    run_one(tag, img, ref, NULL, &c, 0);
    /* (a space of a few hundred states fits the first growth) */
    if (ref->states >= 2000 && !quick)
        check(last_stats.grows >= 2, "%s: %u growths, %u restarts (want >= 2 growths)", tag, last_stats.grows,
              last_stats.restarts);
    c.tun.grow_via_host = 1;
    c.tun.insert_protocol = 2;
    snprintf(tag, sizeof tag, "%s, growing table through host memory, reserve/write/publish", what);
    run_one(tag, img, ref, NULL, &c, 0);
    if (ref->states >= 2000 && !quick)
        check(last_stats.grows >= 2, "%s: %u growths (want >= 2)", tag, last_stats.grows);
    if (quick)
        goto overfill; /* the sanitizers: the two paths above and the restart */
    cfg_default(&c);
    c.tun.grow_from = 4096;
    c.tun.queue_cap = 5;
    c.go.blocks = 3;
    c.go.iterations = 2;
    snprintf(tag, sizeof tag, "%s, growing table, queue of 5", what);
    run_one(tag, img, ref, NULL, &c, 0);
overfill:
    cfg_default(&c);
    c.tun.grow_from = 128;
    c.keep = 1;
    snprintf(tag, sizeof tag, "%s, growing table overfilled by one launch", what);
    run_one(tag, img, ref, NULL, &c, 0);
    /* One launch of one block may expand up to 64 tiles from the initial
     * state, far more than the first table's few slots, and then the run
     * restarts once.  Whether it does depends on the schedule (a launch
     * ends once half of its blocks have left their loop, and the table may
     * grow ahead of the next launch in time), so the counts, checked by
     * run_one, are the promise; more than one restart is a defect. */
    if (ref->states >= 2000)
        check(last_stats.restarts <= 1, "%s: %u restarts (want at most 1)", tag, last_stats.restarts);
}

/* The growing table in the --quick subset (the sanitizer runs): one
 * interleaving space of a few thousand states. */
static void growth_quick(uint64_t seed)
{
    struct rng r = {seed ^ 0x5bd1e995ull};
    struct gen_params gp = {4, 6, 6, 0, 3, 2, 2, 2, 40, 0, 10, 0, 0, 0, 40000, 1};
    struct image img;
    struct ref_result ref;
    const struct draw_want w = {.min_states = 2000, .max_states = 6000};
    draw_image(&img, &ref, &r, &gp, 0, 100000, &w, 200);
    char tag[160];
    snprintf(tag, sizeof tag, "quick growth seed=%llu states=%llu", (unsigned long long)seed,
             (unsigned long long)ref.states);
    growth_runs(tag, &img, &ref);
    ref_free(&ref);
    image_free(&img);
}

static void stress(uint64_t seed, int big)
{
    struct rng r = {seed};
    struct cfg c;
    /* a bigger interleaving space, for the hash table */
    struct gen_params gp = {6, 8, 6, 0, 3, 2, 2, 2, 40, 0, 10, 0, 0, 0, big ? 3000000 : 300000, 1};
    struct image img;
    struct ref_result ref;
    const struct draw_want wi = {.min_states = big ? 200000u : 20000u};
    draw_image(&img, &ref, &r, &gp, 0, big ? 4000000 : 500000, &wi, 50);
    char tag[160];
    snprintf(tag, sizeof tag, "stress interleaving seed=%llu words=%u", (unsigned long long)seed, img.words);
    const uint32_t sw = slot_words_of(&img, 0);
    const uint64_t spb = 32 / sw;
    /* default sizing from free device memory, textures and plain loads */
    cfg_default(&c);
    run_one(tag, &img, &ref, NULL, &c, 0);
    c.go.use_textures = 0;
    run_one(tag, &img, &ref, NULL, &c, 0);
    growth_runs(tag, &img, &ref);
    /* 90% load, long probe chains: exact with a generous probe bound */
    cfg_default(&c);
    c.go.hash_bytes = (uint64_t)((double)ref.states / 0.9 / spb + 1) * 128;
    c.go.probe_bound = 100000;
    run_one("stress 90% load", &img, &ref, NULL, &c, 0);
    c.tun.insert_protocol = 2; /* the reserve/write/publish inserts too */
    run_one("stress 90% load, reserve/write/publish", &img, &ref, NULL, &c, 0);
    c.tun.insert_protocol = 0;
    c.tun.level_sync = 1;
    c.keep = 1;
    run_one("stress 90% load, level", &img, &ref, NULL, &c, 0);
    /* a table with fewer slots than states: WX_ELIMIT, partial counts */
    cfg_default(&c);
    c.go.hash_bytes = (ref.states / 2 / spb + 1) * 128;
    run_one("stress table too small", &img, &ref, NULL, &c, 1);
    c.go.probe_bound = 2;
    c.go.hash_bytes = (uint64_t)((double)ref.states * 0.97 / spb) * 128;
    run_one("stress probe bound 2 at full load", &img, &ref, NULL, &c, 1);
    /* tiny cache, one iteration, tiny queue: the rare paths at scale */
    cfg_default(&c);
    c.tun.cache_slots = 2;
    c.tun.cache_probes = 1;
    c.tun.queue_cap = 7;
    c.go.iterations = 1;
    c.go.hash_bytes = (ref.states * 3 / spb + 1) * 128;
    run_one("stress tiny cache and queue", &img, &ref, NULL, &c, 0);
    c.tun.insert_protocol = 2;
    run_one("stress tiny cache and queue, reserve/write/publish", &img, &ref, NULL, &c, 0);
    c.tun.insert_protocol = 0;
    c.tun.generator = 2;
    run_one("stress tiny cache and queue, general generator", &img, &ref, NULL, &c, 0);
    ref_free(&ref);
    image_free(&img);

    /* many multi-word vectors racing for few buckets */
    struct gen_params gw = {4, 6, 5, 0, 3, 2, 2, 2, 40, 0, 10, 30, 0, 0, 200000, 1};
    const struct draw_want ww = {.min_states = 5000, .min_words = 4};
    draw_image(&img, &ref, &r, &gw, 1, 500000, &ww, 100);
    snprintf(tag, sizeof tag, "stress multi-word race seed=%llu words=%u", (unsigned long long)seed, img.words);
    {
        const uint32_t sw2 = slot_words_of(&img, 0);
        const uint64_t spb2 = sw2 <= 32 ? 32 / sw2 : 1;
        cfg_default(&c);
        c.go.hash_bytes = (uint64_t)((double)ref.states / 0.85 / spb2 + 1) * 128;
        c.go.probe_bound = 100000;
        c.go.iterations = 1;
        c.tun.cache_slots = 3;
        c.tun.cache_probes = 1;
        run_one(tag, &img, &ref, NULL, &c, 0);
        c.edges = 1;
        c.tun.edge_cap = 4096;
        run_one(tag, &img, &ref, NULL, &c, 0);
        growth_runs(tag, &img, &ref);
    }
    ref_free(&ref);
    image_free(&img);

    /* heavy nondeterminism: >= 3 targets per class per state */
    struct gen_params gn = {3, 5, 6, 0, 2, 3, 0, 8, 90, 5, 60, 0, 0, 0, 100000, 0};
    const struct draw_want wn = {.min_trans = 10000};
    draw_image(&img, &ref, &r, &gn, 1, 500000, &wn, 100);
    snprintf(tag, sizeof tag, "stress nondeterminism seed=%llu", (unsigned long long)seed);
    cfg_default(&c);
    c.go.hash_bytes = 64 << 20;
    run_one(tag, &img, &ref, NULL, &c, 0);
    c.edges = 1;
    run_one(tag, &img, &ref, NULL, &c, 0);
    ref_free(&ref);
    image_free(&img);

    /* more than 32 components, several per thread */
    struct gen_params gm = {20, 30, 3, 40, 4, 6, 1, 2, 40, 5, 20, 0, 0, 0, 100000, 0};
    const struct draw_want wm = {.min_states = 1000};
    draw_image(&img, &ref, &r, &gm, 0, 500000, &wm, 100);
    snprintf(tag, sizeof tag, "stress %u components seed=%llu", img.n_comps, (unsigned long long)seed);
    cfg_default(&c);
    c.go.hash_bytes = 64 << 20;
    run_one(tag, &img, &ref, NULL, &c, 0);
    c.tun.group_size = 8;
    run_one(tag, &img, &ref, NULL, &c, 0);
    c.tun.group_size = 0;
    c.tun.generator = 2;
    run_one(tag, &img, &ref, NULL, &c, 0);
    ref_free(&ref);
    image_free(&img);

    /* The fast generator's limits: 65..128 rules (its second word of rule
     * bits), more than 128 rules (anchored rule lists) and more than 64
     * components (the general generator serves them even when the fast one
     * is asked for; run_one checks which ran).  Each with every generator
     * forced, a tiny cache (successors straight to the table, one thread
     * each), and edges. */
    static const struct {
        const char *what;
        struct gen_params gp;
        uint32_t min_rules, max_rules, min_comps;
    } lim[] = {
        {"65..128 rules", {4, 6, 4, 0, 4, 45, 1, 3, 40, 5, 20, 10, 0, 0, 50000, 0}, 65, 128, 0},
        {"> 128 rules", {4, 6, 4, 0, 4, 120, 2, 2, 50, 5, 20, 0, 0, 0, 50000, 0}, 129, UINT32_MAX, 0},
        {"> 64 components", {30, 34, 3, 40, 4, 6, 1, 2, 40, 5, 20, 0, 0, 0, 100000, 0}, 0, UINT32_MAX, 65},
    };
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        const struct draw_want wl = {.min_states = 500, .min_rules = lim[i].min_rules,
                                     .max_rules = lim[i].max_rules, .min_comps = lim[i].min_comps};
        draw_image(&img, &ref, &r, &lim[i].gp, 1, 500000, &wl, 200);
        snprintf(tag, sizeof tag, "stress %s: comps=%u rules=%u seed=%llu", lim[i].what, img.n_comps, img.n_rules,
                 (unsigned long long)seed);
        for (int gen = 1; gen <= 3; gen++) {
            cfg_default(&c);
            c.go.hash_bytes = 64 << 20;
            c.tun.generator = gen;
            run_one(tag, &img, &ref, NULL, &c, 0);
            c.tun.cache_slots = 2;
            c.tun.cache_probes = 1;
            c.go.iterations = 2;
            run_one(tag, &img, &ref, NULL, &c, 0);
            c.edges = 1;
            run_one(tag, &img, &ref, NULL, &c, 0);
        }
        ref_free(&ref);
        image_free(&img);
    }
}
