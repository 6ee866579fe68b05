/*
 * test_por.c -- partial-order reduction (explorer/por.h) against full
 * exploration.
 *
 * On random EXP networks (tests/randnet, the generator of the differential
 * tests), random images (tb_random, with up to 72 components) and dense
 * images (tb_dense: every rule of 3 or more participants, mostly disabled,
 * each class with a label of its own -- where a wrong choice of blocker
 * shows) and enabled images (tb_enabled: rules of 3 or more participants,
 * mostly enabled, against conflicting local moves -- where a closure that
 * misses a participant of an enabled rule shows), the full graph is explored once by explore_seq (the reachable
 * labels collected by an edge sink), then with options.por:
 *   - plain (no property; no proviso, por.h), explore_seq and explore_cpu
 *     on 3 threads, and explore_seq with --action matching no label: all
 *     complete, the same reduced counts (states, transitions, deadlocks,
 *     depth: the reduction is deterministic), never more states or
 *     transitions than the full graph, and exactly the full graph's
 *     deadlocks (stubborn sets keep every reachable deadlock; a reduced
 *     graph's deadlock is one of the full graph, so equal numbers mean
 *     equal sets);
 *   - --deadlock with a trace (seq and cpu): a violation iff the full graph
 *     has a deadlock;
 *   - --action for each label alone (seq; cpu on 2 threads for every other
 *     label): a violation iff the label is on a reachable transition, and
 *     without one the full graph's deadlocks under the proviso too.
 * The reduction preserves deadlocks and the reachability of visible
 * actions only (por.h), not stutter traces, so no trace property is
 * checked beyond those.
 * por_reduce gives the same reduced set in every reachable state with all
 * its per-segment sets, without the class sets and blocked rules (the
 * anchored rule lists then find the enabled rules) and without any (class
 * sets, blocked rules, rule lists and their split), which images beyond
 * POR_OFFER_BYTES go without.
 * Every trace is replayed on the full semantics: it starts in the initial
 * state, each step is a transition that succ_expand gives (the generator
 * the differential tests check against the independent oracle), and it
 * ends in a deadlock or with a transition of the flagged label.
 * Hand-made: n independent chains of k states, where the reduced graph is
 * one interleaving: exactly n(k-1)+1 states, n(k-1) transitions and one
 * deadlock, where the full graph has k^n states.
 *
 * A failure prints the seed (WARPEX_POR_SEED=S reruns only that randnet
 * seed and keeps its files; WARPEX_POR_DENSE=R only the dense image of rng
 * state R, WARPEX_POR_ENABLED=R only the enabled image; WARPEX_POR_SEEDS=N
 * sets how many randnet seeds, random images and enabled images, default
 * 300, and 6N dense images, which are small).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "naive/naive.c"
/* randnet.c and image_builder.h both name their generator rng_next. */
#define rng_next randnet_rng_next
#include "randnet/randnet.c"
#undef rng_next
#include "image_builder.h"

#include "explorer/explore.h"
#include "explorer/por.h"
#include "explorer/successors.h"
#include "network/image.h"
#include "network/network.h"
#include "parser/network_build.h"

#define MEMORY (64u << 20)
/* The full graph's budget: networks beyond ~30 000 states are skipped. */
#define FULL_MEMORY (1u << 20)

static unsigned quiet_passes;

/* check() that prints only failures. */
#define QCHECK(ok, ...) ((ok) ? (quiet_passes++, 1) : check(0, __VA_ARGS__))

struct full {
    uint64_t states, transitions, deadlocks;
    uint8_t *reach;           /* n_labels: the label is on a reachable transition */
};

static int mark_labels(void *ctx, const struct product_edge *e, size_t n, struct wx_error *err)
{
    (void)err;
    struct full *f = ctx;
    for (size_t i = 0; i < n; i++)
        f->reach[e[i].label] = 1;
    return WX_OK;
}

/* The full graph; false when it does not fit the budget. */
static bool explore_full(const struct image *img, struct full *f)
{
    memset(f, 0, sizeof *f);
    f->reach = calloc(img->n_labels + 1, 1);
    struct edge_sink sink = { mark_labels, f };
    struct explore_options o = { .memory_bytes = FULL_MEMORY, .sink = &sink };
    struct explore_result res;
    struct wx_error err;
    int rc = explore_seq(img, &o, &res, &err);
    f->states = res.states, f->transitions = res.transitions, f->deadlocks = res.deadlocks;
    bool ok = rc == WX_OK && res.complete;
    explore_result_free(&res);
    return ok;
}

/* Whether (label, to) is a transition of from in the full semantics. */
static bool is_step(struct succ_gen *g, const uint32_t *from, uint32_t label, const uint32_t *to)
{
    struct wx_error err;
    if (succ_expand(g, from, &err))
        return false;
    for (size_t i = 0; i < g->n; i++)
        if (succ_label(g, i) == label && !memcmp(succ_vector(g, i), to, g->words * 4))
            return true;
    return false;
}

/* Replays res's trace; NULL when it is a real path of the full system to
 * the violation, else what is wrong. */
static const char *replay(const struct image *img, const struct explore_result *res, const uint8_t *flags)
{
    const struct trace *tr = &res->trace;
    if (!tr->vectors || !tr->labels)
        return "no trace";
    struct succ_gen g;
    struct wx_error err;
    if (succ_init(&g, img, &err))
        return "succ_init failed";
    const char *why = NULL;
    for (uint32_t w = 0; w < img->words && !why; w++)
        if (tr->vectors[w])
            why = "the trace does not start in the initial state";
    for (uint32_t i = 0; i < tr->len && !why; i++)
        if (!is_step(&g, tr->vectors + (size_t)i * img->words, tr->labels[i],
                     tr->vectors + (size_t)(i + 1) * img->words))
            why = "a step is no transition of the full system";
    if (!why && res->violation == VIOLATION_DEADLOCK) {
        if (succ_expand(&g, tr->vectors + (size_t)tr->len * img->words, &err) || g.n != 0)
            why = "the trace does not end in a deadlock";
    } else if (!why && (tr->len == 0 || !flags[tr->labels[tr->len - 1]])) {
        why = "the trace does not end with a flagged label";
    }
    succ_free(&g);
    return why;
}

/* One reduced exploration. */
static int explore_por(const struct image *img, bool cpu, unsigned threads, bool deadlock, const uint8_t *flags,
                       struct explore_result *res, struct wx_error *err)
{
    struct explore_options o = { .memory_bytes = MEMORY, .por = true, .threads = threads,
                                 .stop_on_deadlock = deadlock, .action_match = flags,
                                 .trace = deadlock || flags };
    return cpu ? explore_cpu(img, &o, res, err) : explore_seq(img, &o, res, err);
}

struct tally {
    unsigned nets, skipped, smaller, deadlocking, actions, traces;
    uint64_t full_states, por_states;
};

/* Plain --por: seq = cpu, never larger, deadlock iff the full graph has one. */
static void check_plain(const struct image *img, const struct full *f, const char *what, struct tally *t)
{
    struct explore_result r[2];
    struct wx_error err;
    for (int k = 0; k < 2; k++) {
        int rc = explore_por(img, k, 3, false, NULL, &r[k], &err);
        const char *be = k ? "cpu/3" : "seq";
        QCHECK(rc == WX_OK && r[k].complete, "%s %s --por: complete (rc %d: %s)", what, be, rc, err.msg);
        QCHECK(r[k].states <= f->states && r[k].transitions <= f->transitions,
               "%s %s --por: %llu states, %llu transitions; the full graph has %llu, %llu", what, be,
               (unsigned long long)r[k].states, (unsigned long long)r[k].transitions,
               (unsigned long long)f->states, (unsigned long long)f->transitions);
        QCHECK(r[k].deadlocks == f->deadlocks, "%s %s --por: %llu deadlocks, full graph %llu", what,
               be, (unsigned long long)r[k].deadlocks, (unsigned long long)f->deadlocks);
    }
    QCHECK(r[0].states == r[1].states && r[0].transitions == r[1].transitions
               && r[0].deadlocks == r[1].deadlocks && r[0].depth == r[1].depth,
           "%s --por: seq %llu/%llu/%llu depth %u, cpu %llu/%llu/%llu depth %u", what,
           (unsigned long long)r[0].states, (unsigned long long)r[0].transitions,
           (unsigned long long)r[0].deadlocks, r[0].depth, (unsigned long long)r[1].states,
           (unsigned long long)r[1].transitions, (unsigned long long)r[1].deadlocks, r[1].depth);
    /* --action matching no label: nothing visible, the plain reduced graph. */
    uint8_t *none = calloc(img->n_labels + 1, 1);
    struct explore_result a;
    int rc = explore_por(img, false, 1, false, none, &a, &err);
    QCHECK(rc == WX_OK && a.states == r[0].states && a.transitions == r[0].transitions,
           "%s --por --action (no label): %llu states, %llu transitions; plain %llu, %llu", what,
           (unsigned long long)a.states, (unsigned long long)a.transitions, (unsigned long long)r[0].states,
           (unsigned long long)r[0].transitions);
    explore_result_free(&a);
    free(none);
    t->full_states += f->states, t->por_states += r[0].states;
    t->smaller += r[0].states < f->states;
    explore_result_free(&r[0]);
    explore_result_free(&r[1]);
}

/* A property run: violation iff expected, its trace replayed; without one,
 * the run is complete and (an --action run, where the proviso applies)
 * finds the full graph's deadlocks -- their number, as the reduced
 * graph's deadlocks are deadlocks of the full one. */
static void check_verdict(const struct image *img, bool cpu, bool deadlock, const uint8_t *flags, bool expected,
                          uint64_t deadlocks, const char *what, struct tally *t)
{
    struct explore_result res;
    struct wx_error err;
    int rc = explore_por(img, cpu, 2, deadlock, flags, &res, &err);
    enum explore_violation want = deadlock ? VIOLATION_DEADLOCK : VIOLATION_ACTION;
    if (QCHECK(rc == WX_OK && (res.violation == want) == expected,
               "%s %s: violation %d, expected %s (rc %d)", what, cpu ? "cpu/2" : "seq", (int)res.violation,
               expected ? "one" : "none", rc)
        && expected) {
        const char *why = replay(img, &res, flags);
        QCHECK(!why, "%s %s: trace of %u steps: %s", what, cpu ? "cpu/2" : "seq", res.trace.len, why);
        t->traces++;
    }
    if (rc == WX_OK && !expected && !deadlock)
        QCHECK(res.complete && res.deadlocks == deadlocks, "%s %s: %llu deadlocks, full graph %llu", what,
               cpu ? "cpu/2" : "seq", (unsigned long long)res.deadlocks, (unsigned long long)deadlocks);
    explore_result_free(&res);
}

/* por_reduce with all its per-segment sets, without the class sets and
 * blocked rules (the anchored lists find the enabled rules), without any
 * (binary searches) and with Tarjan's algorithm instead of the bit sets
 * (por_core.h: the two choices must agree), on every reachable state: the
 * same reduced set, record for record. */
static void check_paths(const struct image *img, const char *what)
{
    struct explore_options o = { .memory_bytes = FULL_MEMORY, .keep_vectors = true };
    struct explore_result res;
    struct wx_error err;
    struct succ_gen g[4];
    struct por p[4];
    if (explore_seq(img, &o, &res, &err) || !res.complete) {
        explore_result_free(&res);
        return;
    }
    for (int k = 0; k < 4; k++)
        if (succ_init(&g[k], img, &err) || por_init(&p[k], img, NULL, &err))
            abort();
    por_drop_sets(&p[1], 0);
    por_drop_sets(&p[2], 1);
    QCHECK(!p[3].s.succ == (img->n_comps > POR_BITS_MAX), "%s: %u components, bit sets %s", what, img->n_comps,
           p[3].s.succ ? "kept" : "missing");
    free(p[3].s.succ), free(p[3].s.pred);
    p[3].s.succ = p[3].s.pred = NULL;
    /* the GPU's configuration (kernels/explore/tile.cu): one carved
     * scratch, no blocker cache, the packed tables; with and without the
     * bit sets (util/config.h GX_POR_BITS) */
    const uint32_t rw = p[0].t.rule_words, n = img->n_comps, parts = (uint32_t)p[0].parts;
    const uint32_t dw = por_core_scratch_words(n, parts, rw, img->words, true);
    uint64_t *dev = calloc(dw + 1, 8);
    uint64_t *packed = malloc(por_pack(&p[0], NULL, NULL, &(struct por_tables){0}) * 8 + 8);
    struct por_tables dt;
    por_pack(&p[0], packed, packed, &dt);
    dt.proc_offsets = img->proc_offsets, dt.state_offsets = img->state_offsets, dt.first_bit = img->first_bit;
    dt.trans = img->trans;
    struct por_scratch ds[2];
    uint32_t *dmask[2];
    for (int b = 0; b < 2; b++)
        dmask[b] = por_core_carve(&ds[b], (uint32_t *)dev + b * dw, n, parts, rw, b);
    bool same = true, dsame = true;
    uint64_t s = 0;
    for (; s < res.states && same && dsame; s++) {
        const uint32_t *v = res.vectors + s * img->words;
        size_t r[4];
        for (int k = 0; k < 4; k++)
            if (succ_expand(&g[k], v, &err) || por_reduce(&p[k], &g[k], v, &r[k], &err))
                abort();
        for (int k = 1; k < 4; k++)
            same &= r[0] == r[k] && g[0].n == g[k].n && !memcmp(g[0].rec, g[k].rec, g[0].n * g[0].stride * 4);
        /* the device's filter keeps exactly por_reduce's first r records
         * (reordered to the front): it has no fallback to the full set */
        for (int b = 0; b < 2; b++) {
            const bool red = por_core_state(&dt, &ds[b], v);
            por_core_mask(&dt, &ds[b], img->words, dmask[b]);
            for (size_t i = 0; i < g[0].n; i++)
                dsame &= (!red || por_core_keep(dmask[b], img->words, v, g[0].rec + i * g[0].stride + 1)) == (i < r[0]);
        }
    }
    QCHECK(same, "%s: por_reduce with and without its sets (or with Tarjan's algorithm) differ in state %llu", what,
           (unsigned long long)s - 1);
    QCHECK(dsame, "%s: the device's configuration (carved scratch, packed tables) differs in state %llu", what,
           (unsigned long long)s - 1);
    free(dev), free(packed);
    for (int k = 0; k < 4; k++)
        succ_free(&g[k]), por_free(&p[k]);
    explore_result_free(&res);
}

static void check_image(const struct image *img, const char *what, struct tally *t)
{
    struct full f;
    if (!explore_full(img, &f)) {
        t->skipped++;
        free(f.reach);
        return;
    }
    t->nets++;
    check_plain(img, &f, what, t);
    check_paths(img, what);
    char name[300];
    for (int cpu = 0; cpu < 2; cpu++) {
        snprintf(name, sizeof name, "%s --deadlock", what);
        check_verdict(img, cpu, true, NULL, f.deadlocks > 0, f.deadlocks, name, t);
    }
    t->deadlocking += f.deadlocks > 0;
    uint8_t *flags = calloc(img->n_labels + 1, 1);
    for (uint32_t l = 0; l < img->n_labels; l++) {
        flags[l] = 1;
        snprintf(name, sizeof name, "%s --action label %u", what, l);
        check_verdict(img, false, false, flags, f.reach[l], f.deadlocks, name, t);
        if (l % 2)
            check_verdict(img, true, false, flags, f.reach[l], f.deadlocks, name, t);
        t->actions += f.reach[l];
        flags[l] = 0;
    }
    free(flags);
    free(f.reach);
}

static void summary(const char *kind, const struct tally *t, unsigned want)
{
    check(t->nets >= want * 9 / 10,
          "%s: %u networks (%u too large skipped), %u reduced; %llu states in all, %llu with --por; "
          "%u with a deadlock, %u reachable labels, %u traces replayed",
          kind, t->nets, t->skipped, t->smaller, (unsigned long long)t->full_states,
          (unsigned long long)t->por_states, t->deadlocking, t->actions, t->traces);
}

/* ---- random EXP networks ---- */

static void randnet_seed(uint64_t seed, bool keep, struct tally *t)
{
    struct randnet rn;
    struct wx_error err;
    struct randnet_params rp = { 0 };
    rp.avoid_ambiguous = true;
    if (randnet_generate(seed, &rp, &rn, &err) != WX_OK) {
        check(0, "randnet seed %llu: generator: %s", (unsigned long long)seed, err.msg);
        return;
    }
    struct net_options no = { 0 };
    no.hidden = rn.hidden;
    no.rate = rn.rate;
    struct network net;
    struct image img;
    int before = check_failures;
    if (network_from_exp(rn.exp_path, &no, &net, &err) == WX_OK) {
        if (image_compile(&net, &img, &err) == WX_OK) {
            char what[64];
            snprintf(what, sizeof what, "randnet seed %llu", (unsigned long long)seed);
            check_image(&img, what, t);
            image_free(&img);
        } else {
            t->skipped++;
        }
        network_free(&net);
    } else {
        t->skipped++;
    }
    if (check_failures != before || keep)
        printf("%sfiles in %s\n", rn.exp_text, rn.dir);
    randnet_free(&rn, check_failures == before && !keep);
}

/* ---- random images ---- */

/* want images of a family (gen draws one into b) from rng state rng, each
 * checked against the full exploration; named "NAME image I (rng R)". */
static void image_family(const char *name, void (*gen)(struct tb *, uint64_t *), uint64_t rng,
                         unsigned want, struct tally *t)
{
    struct tb *b = malloc(sizeof *b);
    for (unsigned i = 0; i < want; i++) {
        uint64_t seed = rng;
        gen(b, &rng);
        struct image img;
        tb_build(b, &img, &rng);
        char what[64];
        snprintf(what, sizeof what, "%s image %u (rng %llu)", name, i, (unsigned long long)seed);
        check_image(&img, what, t);
        image_free(&img);
    }
    free(b);
}

/* One rule of 3 or more distinct participants for each class k (result
 * label k); in[k * 8 + c] set where component c takes part in it. */
static void tb_class_rules(struct tb *b, uint64_t *rng, uint8_t *in)
{
    for (uint32_t k = 0; k < b->n_classes; k++) {
        b->class_result[k] = k;
        uint32_t comps[8], np = 3 + rnd(rng, b->n - 2), m = 0;
        while (m < np) {
            uint32_t c = rnd(rng, b->n), dup = 0;
            for (uint32_t j = 0; j < m; j++)
                dup |= comps[j] == c;
            if (!dup)
                comps[m++] = c, in[k * 8 + c] = 1;
        }
        tb_rule(b, k, np, comps);
    }
}

/* ---- dense images: every rule of 3 or more participants ---- */

/* 3 to 7 components of 2 to 4 states; 1 to 4 classes of one rule each,
 * of 3 or more participants; every state offers each class of its
 * component with probability 1/2, so most rules are disabled with two or
 * more participants that do not block them -- where a wrong blocker (one
 * that does not block) lets the real one move outside the stubborn set and
 * enable the rule.  Local moves (3 states in 4 have one or two) change what
 * a component offers.  Class k's rule makes label k, which no local move
 * makes, so `--action` on label k asks whether that rule ever fires (two
 * rules per class, or labels shared with local moves, hide most wrong
 * reductions: another transition of the label is found instead). */
static void tb_dense(struct tb *b, uint64_t *rng)
{
    memset(b, 0, sizeof *b);
    b->n = 3 + rnd(rng, 5);
    b->n_classes = 1 + rnd(rng, 4);
    b->n_labels = b->n_classes + 1 + rnd(rng, 3);
    for (uint32_t c = 0; c < b->n; c++) {
        b->states[c] = 2 + rnd(rng, 3);
        b->width[c] = bits_for(b->states[c] - 1);
    }
    uint8_t in[4][8] = { { 0 } }; /* in[k][c]: c takes part in a rule of class k */
    tb_class_rules(b, rng, &in[0][0]);
    for (uint32_t c = 0; c < b->n; c++)
        for (uint32_t s = 0; s < b->states[c]; s++) {
            for (uint32_t i = rnd(rng, 4) ? 1 + rnd(rng, 2) : 0; i > 0; i--)
                tb_add(b, c, s, 0, b->n_classes + rnd(rng, b->n_labels - b->n_classes), rnd(rng, b->states[c]));
            for (uint32_t k = 0; k < b->n_classes; k++)
                for (uint32_t i = in[k][c] && rnd(rng, 2) ? 1 + rnd(rng, 2) : 0; i > 0; i--)
                    tb_add(b, c, s, 1, k, rnd(rng, b->states[c]));
        }
}

/* ---- enabled images: rules of 3 or more participants, mostly enabled ---- */

/* 3 to 6 components of 2 to 4 states; 1 to 3 classes of one rule each, of
 * 3 or more participants.  A component's last state is dead (no moves, no
 * offers); every other state offers each class of its component, so a
 * rule is enabled unless a participant is dead.  Half the live states have
 * a local move, to any state but the initial one: it conflicts with the
 * component's rules, and may kill it (disable them all for good) -- so
 * most enabled rules meet a conflicting move of each participant, and most
 * images have deadlocks that depend on the order of moves.  A closure that
 * misses a participant of an enabled rule (por.h (a)) lets its moves run
 * outside the stubborn set and disable the rule, which loses a deadlock or
 * a label.  por.c links a rule's participants in component order and
 * counts an enabled rule as its lowest participant's move, so the last
 * participant, with few moves of its own, is where the cheapest closed set
 * often starts, and its link back to the first is the one that matters.
 * Class k's rule makes label k,
 * component c's local moves label n_classes + c, so `--action` on a label
 * asks whether that rule, or that component's move, ever fires. */
static void tb_enabled(struct tb *b, uint64_t *rng)
{
    memset(b, 0, sizeof *b);
    b->n = 3 + rnd(rng, 4);
    b->n_classes = 1 + rnd(rng, 3);
    b->n_labels = b->n_classes + b->n;
    for (uint32_t c = 0; c < b->n; c++) {
        b->states[c] = 2 + rnd(rng, 3);
        b->width[c] = bits_for(b->states[c] - 1);
    }
    uint8_t in[3][8] = { { 0 } }; /* in[k][c]: c takes part in class k's rule */
    tb_class_rules(b, rng, &in[0][0]);
    for (uint32_t c = 0; c < b->n; c++)
        for (uint32_t s = 0; s + 1 < b->states[c]; s++) {
            if (rnd(rng, 2))
                tb_add(b, c, s, 0, b->n_classes + c, 1 + rnd(rng, b->states[c] - 1));
            for (uint32_t k = 0; k < b->n_classes; k++)
                if (in[k][c])
                    tb_add(b, c, s, 1, k, rnd(rng, b->states[c]));
        }
}

/* ---- n independent chains ---- */

static void chains(uint32_t n, uint32_t k)
{
    struct tb *b = calloc(1, sizeof *b);
    uint64_t rng = 1;
    b->n = n, b->n_labels = n;
    for (uint32_t c = 0; c < n; c++) {
        b->states[c] = k, b->width[c] = bits_for(k - 1);
        for (uint32_t s = 0; s + 1 < k; s++)
            tb_add(b, c, s, 0, c, s + 1);
    }
    struct image img;
    tb_build(b, &img, &rng);
    uint64_t full = 1;
    for (uint32_t c = 0; c < n; c++)
        full *= k;
    for (int cpu = 0; cpu < 2; cpu++) {
        struct explore_result res;
        struct wx_error err;
        int rc = explore_por(&img, cpu, 3, false, NULL, &res, &err);
        const char *be = cpu ? "cpu/3" : "seq";
        check(rc == WX_OK && res.complete, "%u chains of %u: %s --por complete", n, k, be);
        CHECK_EQ_U64(res.states, (uint64_t)n * (k - 1) + 1, "%u chains of %u (%llu states in full): %s --por states",
                     n, k, (unsigned long long)full, be);
        CHECK_EQ_U64(res.transitions, (uint64_t)n * (k - 1), "%u chains of %u: %s --por transitions", n, k, be);
        CHECK_EQ_U64(res.deadlocks, 1, "%u chains of %u: %s --por deadlocks", n, k, be);
        explore_result_free(&res);
    }
    /* The last chain's last step visible: found, trace replayed. */
    uint8_t *flags = calloc(n, 1);
    flags[n - 1] = 1;
    struct tally t = { 0 };
    char what[64];
    snprintf(what, sizeof what, "%u chains of %u, last label visible", n, k);
    check_verdict(&img, false, false, flags, true, 1, what, &t);
    check_verdict(&img, true, false, flags, true, 1, what, &t);
    check(t.traces == 2, "%s: found and replayed", what);
    free(flags);
    image_free(&img);
    free(b);
}

int main(void)
{
    const char *one = getenv("WARPEX_POR_SEED");
    if (one) {
        struct tally t = { 0 };
        randnet_seed(strtoull(one, NULL, 10), true, &t);
        check(1, "randnet seed %s: %u checks passed quietly", one, quiet_passes);
        return check_exit();
    }
    const char *dense = getenv("WARPEX_POR_DENSE");
    if (dense) {
        struct tally t = { 0 };
        image_family("dense", tb_dense, strtoull(dense, NULL, 10), 1, &t);
        check(1, "dense image rng %s: %u checks passed quietly", dense, quiet_passes);
        return check_exit();
    }
    const char *en = getenv("WARPEX_POR_ENABLED");
    if (en) {
        struct tally t = { 0 };
        image_family("enabled", tb_enabled, strtoull(en, NULL, 10), 1, &t);
        check(1, "enabled image rng %s: %u checks passed quietly", en, quiet_passes);
        return check_exit();
    }
    const char *ns = getenv("WARPEX_POR_SEEDS");
    unsigned want = ns ? (unsigned)strtoul(ns, NULL, 10) : 300;
    chains(16, 5);
    chains(3, 4);
    struct tally tr = { 0 }, ti = { 0 };
    for (uint64_t seed = 1; seed <= want; seed++)
        randnet_seed(seed, false, &tr);
    summary("random EXP networks", &tr, want);
    image_family("random", tb_random, 0x9e3779b9ull, want, &ti);
    summary("random images", &ti, want);
    struct tally td = { 0 };
    image_family("dense", tb_dense, 0x5eed0d5eull, 6 * want, &td);
    summary("dense images", &td, 6 * want);
    struct tally te = { 0 };
    image_family("enabled", tb_enabled, 0xe4ab1edull, want, &te);
    summary("enabled images", &te, want);
    check(1, "%u further checks passed quietly", quiet_passes);
    return check_exit();
}
