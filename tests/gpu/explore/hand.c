/*
 * hand.c -- hand-made images for the GPU explorer's known pitfalls
 * (long runs of local moves shared by a warp's idle lanes among them), and
 * the bundled examples (with the front end and explore_seq).
 *
 * Part of test_gpu.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ---- hand-made images ---- */

/* A builder for small explicit images: components with explicit entries. */
struct hb {
    struct image img;
    uint32_t ne;
};

static void hb_init(struct hb *h, uint32_t n, const uint32_t *states, uint32_t n_labels, uint32_t n_classes)
{
    memset(h, 0, sizeof *h);
    struct image *img = &h->img;
    img->n_comps = n;
    img->comp_states = (uint32_t *)calloc(n ? n : 1, 4);
    img->first_bit = (uint32_t *)calloc(n + 1, 4);
    img->state_bits = (uint32_t *)calloc(n ? n : 1, 4);
    img->proc_offsets = (uint32_t *)calloc(n + 1, 4);
    for (uint32_t c = 0; c < n; c++) {
        img->comp_states[c] = states[c];
        img->first_bit[c + 1] = img->first_bit[c] + bits_for(states[c] - 1);
        img->state_bits[c] = bits_for(states[c]);
        img->proc_offsets[c + 1] = img->proc_offsets[c] + states[c] + 1;
    }
    img->words = (img->first_bit[n] + 1 + 31) / 32;
    img->n_labels = n_labels;
    img->n_classes = n_classes;
    img->act_bits = 4;
    img->mask_words = (n + 31) / 32;
    img->state_offsets = (uint32_t *)calloc(img->proc_offsets[n] + 1, 4);
    img->trans = (uint64_t *)calloc(4096, 8);
    img->class_result = (uint32_t *)calloc(n_classes + 1, 4);
    img->class_rule_start = (uint32_t *)calloc(n_classes + 1, 4);
    img->rule_mask = (uint32_t *)calloc(64, 4);
    img->hidden = 0xffffffffu;
}

/* Entries of (c, s), given in order: for each, sync flag, label/class,
 * targets (up to 3, -1 ends).  Call for states in order. */
static void hb_state(struct hb *h, uint32_t c, uint32_t s, uint32_t nent, const int (*ents)[5])
{
    struct image *img = &h->img;
    img->state_offsets[img->proc_offsets[c] + s] = h->ne;
    for (uint32_t i = 0; i < nent; i++) {
        uint64_t e = (uint64_t)ents[i][0] | ((uint64_t)ents[i][1] << 1);
        for (int k = 0; k < 3 && ents[i][2 + k] >= 0; k++)
            e |= (uint64_t)(ents[i][2 + k] + 1) << (1 + img->act_bits + k * img->state_bits[c]);
        img->trans[h->ne++] = e;
    }
    img->state_offsets[img->proc_offsets[c] + s + 1] = h->ne;
    img->n_entries = h->ne;
}

static void hb_rule(struct hb *h, uint32_t k, uint32_t mask)
{
    struct image *img = &h->img;
    img->rule_mask[img->n_rules++] = mask;
    for (uint32_t j = k + 1; j <= img->n_classes; j++)
        img->class_rule_start[j] = img->n_rules;
}

static void test_case(const char *tag, const struct image *img, uint64_t expect_states, uint64_t expect_trans)
{
    struct ref_result ref;
    ref_explore(img, NULL, 1, 1u << 22, &ref);
    char t[256];
    snprintf(t, sizeof t, "%s: reference counts", tag);
    CHECK_EQ_U64(ref.states * 1000000 + ref.transitions, expect_states * 1000000 + expect_trans, "%s", t);
    struct cfg c;
    cfg_default(&c);
    c.go.hash_bytes = 1 << 20;
    run_one(tag, img, &ref, NULL, &c, 0);
    c.tun.level_sync = 1;
    c.edges = 1;
    c.keep = 1;
    c.go.use_textures = 0;
    run_one(tag, img, &ref, NULL, &c, 0);
    c.dead = 1;
    c.trace = 1;
    run_one(tag, img, &ref, NULL, &c, 0);
#ifdef HAVE_EXPLORE_SEQ
    seq_compare(tag, img, &ref);
#endif
    ref_free(&ref);
}

/* Long runs of local moves, shared by the idle lanes of a warp (fx_share
 * in kernels/explore/gpu_expand.cuh).  Component 0: state 0 has L local moves to
 * 1..L (labels 0..12 in turn), state i >= 1 returns to 0 (label 13) unless
 * i % 7 == 0; component 1: state 0 has M moves to 1..M (label 14), the
 * others none.  The initial state is alone in its tile, so 31 lanes idle
 * at once take slices of its run; at depth 1, 40 states with a run of L
 * and 700 with a run of M share within their warps, and at depth 2 the
 * 28 000 states with one move or none (4 000 deadlocks) lend their lanes.
 * variant 0: no duplicates and no self-loop, so no successor set without
 * edges (the duplicate-free proof); 1: component 1's state 0 self-loops
 * (label 15), so the states with it in state 0 use the set and lend or
 * borrow among states without one; 2: state 0 of component 0 offers its
 * first move (label 0 to 1) twice more, at the end of its run: every
 * state uses the set, and the copies, taken by other lanes than the
 * original, must be removed; 3: component 0's returning states self-loop
 * (label 15), so the states with one of them use the set (42 records at
 * most: the back move, the self-loop and component 1's run of 40, shared
 * by lanes that borrow into the set) and those with component 0 in state
 * 0 (its run of 700) do not: without edges the sets are sized for 42
 * (gpu_run_stats.dedupe_slots 128, not 2048), as abp's are for its
 * waiting sender.  Runs: test_case's three, the first label-12
 * move flagged (a violation found by a borrowing lane: its source is the
 * lender's state), and one warp per block (not in the --quick subset). */
static void shared_runs(int variant)
{
    enum { L = 700, M = 40 };
    struct hb h;
    uint32_t st[2] = {L + 1, M + 1};
    hb_init(&h, 2, st, 16, 0);
    const int extra = variant == 2 ? 2 : 0;
    int (*e)[5] = (int (*)[5])calloc(L + extra, sizeof *e);
    for (int i = 0; i < L + extra; i++) {
        e[i][0] = 0;
        e[i][1] = i < L ? i % 13 : 0;
        e[i][2] = i < L ? i + 1 : 1;
        e[i][3] = e[i][4] = -1;
    }
    hb_state(&h, 0, 0, L + extra, (const int (*)[5])e);
    for (int i = 1; i <= L; i++) {
        int back[2][5] = {{0, 13, 0, -1, -1}, {0, 15, i, -1, -1}};
        hb_state(&h, 0, (uint32_t)i, i % 7 ? 1 + (variant == 3) : 0, back);
    }
    int (*f)[5] = (int (*)[5])calloc(M + 1, sizeof *f);
    for (int y = 0; y < M; y++) {
        f[y][0] = 0, f[y][1] = 14, f[y][2] = y + 1, f[y][3] = f[y][4] = -1;
    }
    f[M][0] = 0, f[M][1] = 15, f[M][2] = 0, f[M][3] = f[M][4] = -1;
    hb_state(&h, 1, 0, M + (variant == 1), (const int (*)[5])f);
    for (int y = 1; y <= M; y++)
        hb_state(&h, 1, (uint32_t)y, 0, NULL);
    free(e);
    free(f);
    /* component 0 moves: L from i = 0, one from each i % 7 != 0 (600),
     * for every y; component 1: M from y = 0 for every i (plus the
     * self-loop); variant 3: component 0's self-loops */
    const uint64_t states = (uint64_t)(L + 1) * (M + 1);
    const uint64_t trans = (uint64_t)(M + 1) * (L + L - L / 7) + (uint64_t)(L + 1) * (M + (variant == 1)) +
                           (variant == 3 ? (uint64_t)(M + 1) * (L - L / 7) : 0);
    char tag[64];
    snprintf(tag, sizeof tag, "shared runs, variant %d", variant);
    /* the set as the variants intend: the fast generator's tables, on the
     * host, at the initial state and at (0, 1) */
    struct wx_error err;
    wx_error_clear(&err);
    struct explore_gpu_fast *fx = explore_gpu_fast_open(&h.img, 0, &err);
    int always = -1, set0 = -1, set1 = -1;
    if (fx) {
        uint64_t bound = 0, set_bound = 0, cnt = 0;
        int anchored = 0;
        explore_gpu_fast_info(fx, &bound, &set_bound, &always, &anchored);
        uint32_t v[2] = {0, 0};
        explore_gpu_fast_successors(fx, v, NULL, NULL, 0, &cnt, &set0, &err);
        v[0] = 1u << h.img.first_bit[1]; /* component 1 in state 1 */
        explore_gpu_fast_successors(fx, v, NULL, NULL, 0, &cnt, &set1, &err);
        explore_gpu_fast_close(fx);
    }
    check(fx && always == (variant == 2) && set0 == (variant == 1 || variant == 2) && set1 == (variant == 2),
          "%s: fast tables: always_dedup %d, set at the initial state %d and at (0, 1) %d (%s)", tag, always, set0,
          set1, err.msg);
    test_case(tag, &h.img, states, trans);
    if (variant == 3) {
        /* the sets sized for the states that use them (explore.cu, set_bound) */
        struct ref_result r3;
        ref_explore(&h.img, NULL, 0, 1u << 22, &r3);
        struct cfg c3;
        cfg_default(&c3);
        c3.go.hash_bytes = 1 << 20;
        const char *t3 = "shared runs, variant 3, sets";
        run_one(t3, &h.img, &r3, NULL, &c3, 0);
        check(last_stats.fast_gen && last_stats.dedupe_slots == 128,
              "%s: without edges, successor sets of %u entries (expected 128: twice the 42 records of a state "
              "that uses one, not the 741 of the initial state)",
              t3, last_stats.dedupe_slots);
        ref_free(&r3);
    }

    uint8_t act[16] = {0};
    act[12] = 1;
    struct ref_result ref;
    ref_explore(&h.img, act, 1, 1u << 22, &ref);
    check(ref.deadlocks == (uint64_t)(L / 7) * M && ref.min_act_level == 0,
          "%s: reference deadlocks %llu (expected %u), flagged action at depth %u (expected 0)", tag,
          (unsigned long long)ref.deadlocks, (L / 7) * M, ref.min_act_level);
    struct cfg c;
    cfg_default(&c);
    c.go.hash_bytes = 1 << 20;
    c.action = 1;
    c.trace = 1;
    c.keep = 1;
    snprintf(tag, sizeof tag, "shared runs, variant %d, action", variant);
    run_one(tag, &h.img, &ref, act, &c, 0);
    if (quick) { /* the sanitizers: enough */
        ref_free(&ref);
        image_free(&h.img);
        return;
    }
    cfg_default(&c);
    c.go.hash_bytes = 1 << 20;
    c.go.threads = 32;
    c.go.blocks = 2;
    c.edges = 1;
    c.keep = 1;
    snprintf(tag, sizeof tag, "shared runs, variant %d, 32 threads", variant);
    run_one(tag, &h.img, &ref, NULL, &c, 0);
    c.edges = 0;
    c.keep = 0;
    run_one(tag, &h.img, &ref, NULL, &c, 0);
    ref_free(&ref);
    image_free(&h.img);
}

static void hand_made(void)
{
    struct hb h;
    /* 1. one component, one state, nothing: 1 state, a deadlock */
    {
        uint32_t st[1] = {1};
        hb_init(&h, 1, st, 1, 0);
        hb_state(&h, 0, 0, 0, NULL);
        test_case("single state", &h.img, 1, 0);
        image_free(&h.img);
    }
    /* 2. a chain of 100 states: depth 99, trace of 99 steps */
    {
        uint32_t st[1] = {100};
        hb_init(&h, 1, st, 2, 0);
        for (uint32_t s = 0; s < 100; s++) {
            int e[1][5] = {{0, (int)(s % 2), (int)s + 1, -1, -1}};
            hb_state(&h, 0, s, s < 99 ? 1 : 0, e);
        }
        test_case("chain of 100", &h.img, 100, 99);
        image_free(&h.img);
    }
    /* 3. two self-loops with one label from one state: one transition
     * (GPUexplore-style counting would say 2) */
    {
        uint32_t st[2] = {2, 2};
        hb_init(&h, 2, st, 2, 0);
        int e0[2][5] = {{0, 1, 0, -1, -1}, {0, 0, 1, -1, -1}};
        hb_state(&h, 0, 0, 2, e0);
        hb_state(&h, 0, 1, 0, NULL);
        int e1[1][5] = {{0, 1, 0, -1, -1}};
        hb_state(&h, 1, 0, 1, e1);
        hb_state(&h, 1, 1, 0, NULL);
        /* (0,0): a->(0,0) twice, 0->(1,0); (1,0): a->self */
        test_case("duplicate self-loops", &h.img, 2, 3);
        image_free(&h.img);
    }
    /* 4. three entries of one class in one state (GPUexplore's public code
     * loses targets here): 3 x 2 = 6 successors */
    {
        uint32_t st[2] = {4, 3};
        hb_init(&h, 2, st, 1, 1);
        int e0[3][5] = {{1, 0, 1, -1, -1}, {1, 0, 2, -1, -1}, {1, 0, 3, -1, -1}};
        hb_state(&h, 0, 0, 3, e0);
        for (uint32_t s = 1; s < 4; s++)
            hb_state(&h, 0, s, 0, NULL);
        int e1[2][5] = {{1, 0, 1, -1, -1}, {1, 0, 2, -1, -1}};
        hb_state(&h, 1, 0, 2, e1);
        hb_state(&h, 1, 1, 0, NULL);
        hb_state(&h, 1, 2, 0, NULL);
        hb_rule(&h, 0, 3);
        test_case("three entries per class", &h.img, 7, 6);
        image_free(&h.img);
    }
    /* 5. two rules of one class that give the same successor (the extra
     * participant self-loops): counted once */
    {
        uint32_t st[3] = {2, 2, 1};
        hb_init(&h, 3, st, 1, 1);
        int a0[1][5] = {{1, 0, 1, -1, -1}};
        hb_state(&h, 0, 0, 1, a0);
        hb_state(&h, 0, 1, 0, NULL);
        hb_state(&h, 1, 0, 1, a0);
        hb_state(&h, 1, 1, 0, NULL);
        int a2[1][5] = {{1, 0, 0, -1, -1}};
        hb_state(&h, 2, 0, 1, a2);
        hb_rule(&h, 0, 3);
        hb_rule(&h, 0, 7);
        test_case("overlapping rules", &h.img, 2, 1);
        image_free(&h.img);
    }
    /* 6. no components at all: one state */
    {
        hb_init(&h, 0, NULL, 1, 0);
        test_case("no components", &h.img, 1, 0);
        /* marked probabilistic: refused (its product is an MDP) */
        h.img.probabilistic = 1;
        struct explore_result res;
        struct wx_error err;
        wx_error_clear(&err);
        const int rc = explore_gpu(&h.img, NULL, &res, &err);
        check(rc == WX_EINPUT && strstr(err.msg, "probabilistic"), "gpu probabilistic image refused: rc %d (%s)", rc,
              err.msg);
        h.img.probabilistic = 0;
        image_free(&h.img);
    }
    /* 7. a wide fan-out (abp d=4000 has a state with 4000 actions): state 0
     * of component 0 reaches 3000 states (1000 entries of 3 targets) plus
     * one duplicate (label 0, target 1 again), each of those returns to 0;
     * component 1 cycles through 3 states.  The successor bound makes the
     * per-state set 8192 entries, in global memory: its entry lists must
     * leave it empty after every state, with and without the edge sink,
     * across iterations and launches.  3001 x 3 states; from (0, x):
     * 3000 + 1 transitions, from (i, x), i >= 1: 2. */
    {
        enum { K = 3000 };
        uint32_t st[2] = {K + 1, 3};
        hb_init(&h, 2, st, 16, 0);
        int (*e0)[5] = (int (*)[5])calloc(K / 3 + 1, sizeof *e0);
        for (int i = 0; i < K / 3; i++) {
            e0[i][0] = 0;
            e0[i][1] = i % 16;
            e0[i][2] = 3 * i + 1, e0[i][3] = 3 * i + 2, e0[i][4] = 3 * i + 3;
        }
        e0[K / 3][0] = 0, e0[K / 3][1] = 0, e0[K / 3][2] = 1, e0[K / 3][3] = -1, e0[K / 3][4] = -1;
        hb_state(&h, 0, 0, K / 3 + 1, (const int (*)[5])e0);
        free(e0);
        for (uint32_t s = 1; s <= K; s++) {
            int b[1][5] = {{0, (int)(s % 15) + 1, 0, -1, -1}};
            hb_state(&h, 0, s, 1, b);
        }
        for (uint32_t s = 0; s < 3; s++) {
            int cy[1][5] = {{0, 3, (int)((s + 1) % 3), -1, -1}};
            hb_state(&h, 1, s, 1, cy);
        }
        test_case("wide fan-out", &h.img, 3 * (K + 1), 3 * (K + 1 + 2 * K));
        if (quick) { /* the sanitizers: the three runs above suffice */
            image_free(&h.img);
            shared_runs(1);
            shared_runs(2);
            shared_runs(3);
            return;
        }
        struct ref_result ref;
        ref_explore(&h.img, NULL, 1, 1u << 22, &ref);
        struct cfg c;
        /* one iteration per launch, few blocks, async: sets reused by many
         * states in many launches */
        cfg_default(&c);
        c.go.hash_bytes = 1 << 20;
        c.go.iterations = 1;
        c.go.blocks = 2;
        c.edges = 1;
        c.keep = 1;
        run_one("wide fan-out, 1 iteration per launch", &h.img, &ref, NULL, &c, 0);
        c.tun.edge_cap = 4096;
        c.go.iterations = 3;
        run_one("wide fan-out, small edge buffer", &h.img, &ref, NULL, &c, 0);
        ref_free(&ref);
        image_free(&h.img);
    }
    /* 8. long runs of local moves shared among a warp's lanes */
    for (int v = 0; v < 4; v++)
        shared_runs(v);
}

#if defined(HAVE_FRONTEND) && defined(HAVE_EXPLORE_SEQ)
/* The committed example networks against examples/counts.tsv (counts known
 * independently of warpex), in async, level and trace modes; traces
 * replayed; explore_seq's trace length compared. */
static void examples(const char *tsv)
{
    FILE *f = fopen(tsv, "r");
    if (!f) {
        check(0, "gpu examples: cannot open %s", tsv);
        return;
    }
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char fam[64], params[64], file[512];
        unsigned long long st, tr, dl;
        if (sscanf(line, "%63s %63s %511s %llu %llu %llu", fam, params, file, &st, &tr, &dl) != 6)
            continue;
        FILE *probe = fopen(file, "r");
        if (!probe)
            continue; /* examples/large/... exist only after gen.py --large */
        fclose(probe);
        if (st > 2000000)
            continue;
        struct wx_error err;
        struct image img;
        if (ref_image_from_file(file, &img, &err)) {
            check(0, "gpu example %s: front end: %s", file, err.msg);
            continue;
        }
        n++;
        for (int mode = 0; mode < 5; mode++) {
            struct explore_options opt;
            memset(&opt, 0, sizeof opt);
            opt.gpu.use_textures = -1;
            struct gpu_tuning tun;
            memset(&tun, 0, sizeof tun);
            tun.level_sync = mode == 1 ? 1 : -1;
            tun.occupancy2 = -1;
            /* mode 3: async, the general generator; 4: async, fast with anchored rule lists */
            tun.generator = mode == 3 ? 2 : mode == 4 ? 3 : 0;
            if (mode == 2) {
                opt.stop_on_deadlock = true;
                opt.trace = true;
            }
            opt.gpu.hash_bytes = (st * 4 + 1024) * 4 * (img.words + 1);
            struct explore_result res;
            struct gpu_run_stats gs;
            wx_error_clear(&err);
            int rc = explore_gpu_tuned(&img, &opt, &tun, &res, &gs, &err);
            if (mode != 2) {
                check(rc == 0 && res.complete && res.states == st && res.transitions == tr && res.deadlocks == dl,
                      "gpu example %s %s (%s generator): states %llu/%llu transitions %llu/%llu deadlocks %llu/%llu %s",
                      file, mode == 1 ? "level" : "async",
                      gs.fast_gen ? (gs.fast_anchored ? "fast anchored" : "fast") : "general",
                      (unsigned long long)res.states, st, (unsigned long long)res.transitions, tr,
                      (unsigned long long)res.deadlocks, dl, rc ? err.msg : "");
            } else if (dl == 0) {
                check(rc == 0 && res.complete && res.violation == VIOLATION_NONE && res.states == st,
                      "gpu example %s --deadlock: none found, states %llu/%llu %s", file,
                      (unsigned long long)res.states, st, rc ? err.msg : "");
            } else {
                /* the shortest trace, replayed; its length as explore_seq's */
                struct explore_result sr;
                struct wx_error e2;
                wx_error_clear(&e2);
                int src = explore_seq(&img, &opt, &sr, &e2);
                int ok = rc == 0 && res.violation == VIOLATION_DEADLOCK && src == 0 &&
                         sr.violation == VIOLATION_DEADLOCK && res.trace.len == sr.trace.len && res.trace.states &&
                         res.trace.states[0] == 0;
                const uint32_t W = img.words;
                for (uint32_t i = 0; ok && i < res.trace.len; i++)
                    ok = ref_is_succ(&img, res.trace.vectors + (size_t)i * W, res.trace.labels[i],
                                     res.trace.vectors + (size_t)(i + 1) * W);
                ok = ok && ref_n_succ(&img, res.trace.vectors + (size_t)res.trace.len * W) == 0;
                check(ok, "gpu example %s --deadlock --trace: GPU trace of %u steps replayed, explore_seq %u %s", file,
                      res.trace.len, sr.trace.len, rc ? err.msg : "");
                res_free(&sr);
            }
            res_free(&res);
        }
        image_free(&img);
    }
    fclose(f);
    check(n > 0, "gpu examples: %d example networks run", n);
}
#endif
