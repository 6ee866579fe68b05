/*
 * test_succ_fast.c -- the CPU explorer's fast paths against its general
 * paths on the same inputs:
 *   - the successor generator's fast path (vectors of <= 4 words, <= 64
 *     components; 64- and 128-bit forms: XOR deltas, rules by lowest participant, deduplication
 *     skipped where succ_init proves it unnecessary) against the general
 *     path (use_fast = false), which test_explore checks against a naive
 *     reference: the same set of (label, vector) records for every
 *     reachable state, sorted and unordered, no duplicate in the unordered
 *     output, hashes equal to vtable_hash;
 *   - random images built to reach every case of the duplicate analysis:
 *     "clean" images (no repeated (label, target) in a segment, no repeated
 *     class target, no two rules with the same result and participants,
 *     with or without self-loops) where deduplication is skipped, and
 *     images with exactly one of the three kinds of repeats;
 *   - keyed vector tables (vtable_new_keyed: vector in the slot, 64-bit
 *     keys for 1-2 words, 128-bit wide keys for 3-4 words on x86-64):
 *     basic operations (vectors equal in one half of a wide key), concurrent
 *     inserts with id blocks, growth and block closing, a full store (FULL,
 *     nothing claimed that is not stored);
 *   - explore_cpu without an edge sink (keyed table, wide keys for the 3-
 *     and 4-word images) on 1..4 threads against a BFS of our own over the
 *     general generator: states, transitions, deadlocks, depth, the set of
 *     vectors.
 * WX_SEED changes the seed; failures print it.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "explorer/explore.h"
#include "explorer/successors.h"
#include "hash/vtable.h"
#include "image_builder.h"

static unsigned long long seed = 90210;
static unsigned long quiet_ok;

/* Thousands of checks pass silently; a failure prints a FAIL line. */
#define QCHECK(cond, ...)                                                          \
    do {                                                                           \
        if (cond)                                                                  \
            quiet_ok++;                                                            \
        else                                                                       \
            check(0, __VA_ARGS__);                                                 \
    } while (0)

/* ---- random images ---- */

enum flavour { CLEAN, CLEAN_SELF, DUP_LOCAL, DUP_CLASS, DUP_RULE, MESSY, N_FLAVOURS };
static const char *flavour_name[] = { "clean", "clean+self-loops", "repeated local", "repeated class target",
                                      "repeated rule", "messy" };

static int has_tr(const struct tb *b, uint32_t c, uint32_t s, uint32_t sync, uint32_t lab, uint32_t t)
{
    for (uint32_t i = 0; i < b->ntr; i++)
        if (b->tr[i].c == c && b->tr[i].s == s && b->tr[i].sync == sync && b->tr[i].lab == lab && b->tr[i].tgt == t)
            return 1;
    return 0;
}

/* A target for (c, s): never s itself unless self-loops are allowed. */
static uint32_t pick_target(const struct tb *b, uint64_t *rng, uint32_t c, uint32_t s, int self)
{
    uint32_t n = b->states[c];
    if (n == 1)
        return 0; /* only a self-loop exists; callers skip it when !self */
    uint32_t t = rnd(rng, n);
    if (!self && t == s)
        t = (t + 1 + rnd(rng, n - 1)) % n;
    return t;
}

static int same_rule(const struct tb *b, uint32_t q, uint32_t r)
{
    if (b->class_result[b->rule_class[q]] != b->class_result[b->rule_class[r]] || b->rule_np[q] != b->rule_np[r])
        return 0;
    for (uint32_t i = 0; i < b->rule_np[q]; i++) {
        int in = 0;
        for (uint32_t j = 0; j < b->rule_np[r]; j++)
            in |= b->rule_comp[q][i] == b->rule_comp[r][j];
        if (!in)
            return 0;
    }
    return 1;
}

static void tb_random_fast(struct tb *b, uint64_t *rng, enum flavour fl)
{
    memset(b, 0, sizeof *b);
    const int messy = fl == MESSY, self = fl == CLEAN_SELF || messy;
    /* One image in six has many rules per class (often > 64: the mask
     * form's second mask word; sometimes > 128: no mask form), among
     * enough components for that many distinct rules. */
    const int many = rnd(rng, 6) == 0;
    uint32_t kind = many ? 3 + rnd(rng, 5) : rnd(rng, 8);
    b->n = kind < 3 ? 2 + rnd(rng, 4) : kind < 7 ? 6 + rnd(rng, 12) : 33 + rnd(rng, 28);
    b->n_labels = 1 + rnd(rng, 6);
    b->n_classes = 1 + rnd(rng, rnd(rng, 4) == 0 ? 30 : 6);
    if (many)
        b->n_classes = 16 + rnd(rng, 15);
    if (rnd(rng, 4) == 0)
        b->max_per_entry = 1 + rnd(rng, 3);
    if (rnd(rng, 5) == 0)
        b->act_bits = 10 + rnd(rng, 20);
    /* Field bits: vectors of 1-2 words (the 64-bit fast path) or, for
     * half of the images, up to 4 words (the 128-bit one). */
    const int wide = rnd(rng, 2) == 0;
    uint32_t budget = wide ? 62 + rnd(rng, 62) : 60;
    for (uint32_t c = 0; c < b->n; c++) {
        uint32_t left = b->n - c;
        uint32_t maxw = (budget - (left - 1)) < 4 ? budget - (left - 1) : 4;
        uint32_t st = 1 + rnd(rng, 1u << (maxw ? maxw : 0));
        if (st > 6)
            st = 2 + rnd(rng, 5);
        while (bits_for(st - 1) > maxw)
            st--;
        b->states[c] = st;
        b->width[c] = bits_for(st - 1);
        if (b->width[c] == 0 && rnd(rng, 3) == 0 && budget - (left - 1) > 1)
            b->width[c] = 1; /* a wider field than needed */
        if (wide && budget > left + 1) /* padding: fields straddle words */
            b->width[c] += rnd(rng, 1 + (budget - left - 1 < 12 ? budget - left - 1 : 12));
        budget -= b->width[c] ? b->width[c] : 0;
        if (budget < left)
            budget = left;
    }
    for (uint32_t k = 0; k < b->n_classes; k++)
        b->class_result[k] = rnd(rng, b->n_labels);
    /* A third of the images in the fast path's simple shape (<= 2 local
     * transitions and <= 2 classes per component state), a third in its
     * pair shape (moreover one 2-participant rule per class, one target
     * per class and component state). */
    const int shape = rnd(rng, 3);
    /* Rules: each of 2..4 distinct components; no two with the same result
     * and participants unless the flavour asks for exactly that. */
    for (uint32_t k = 0; k < b->n_classes; k++) {
        uint32_t nr = shape == 2 ? 1 : 1 + rnd(rng, many ? 9 : 3);
        for (uint32_t q = 0; q < nr && b->nrules < 250; q++) {
            uint32_t comps[4], m = shape == 2 ? 2 : 2 + rnd(rng, 3);
            if (m > b->n)
                m = b->n;
            uint32_t got = 0;
            while (got < m) {
                uint32_t c = rnd(rng, b->n), dup = 0;
                for (uint32_t j = 0; j < got; j++)
                    dup |= comps[j] == c;
                if (!dup)
                    comps[got++] = c;
            }
            tb_rule(b, k, m, comps);
            int repeat = 0;
            for (uint32_t r = 0; r + 1 < b->nrules; r++)
                repeat |= same_rule(b, r, b->nrules - 1);
            if (repeat && !messy)
                b->nrules--;
        }
    }
    if (fl == DUP_RULE && b->nrules > 0 && b->nrules < 250) {
        /* Copy a rule into another class with the same result (or the same
         * class: a repeated rule). */
        uint32_t q = rnd(rng, b->nrules), k = rnd(rng, b->n_classes);
        b->class_result[k] = b->class_result[b->rule_class[q]];
        tb_rule(b, k, b->rule_np[q], b->rule_comp[q]);
    }
    double active = b->n <= 6 ? 0.9 : 5.0 / b->n;
    for (uint32_t c = 0; c < b->n; c++) {
        int act = rnd(rng, 1000) < active * 1000;
        for (uint32_t s = 0; s < b->states[c]; s++) {
            int classes = 0;
            if (act && rnd(rng, 4) != 0) {
                uint32_t m = 1 + rnd(rng, shape ? 2 : 3);
                for (uint32_t i = 0; i < m; i++) {
                    uint32_t lab = rnd(rng, b->n_labels), t = pick_target(b, rng, c, s, self);
                    if ((t == s && !self) || (!messy && has_tr(b, c, s, 0, lab, t)))
                        continue;
                    tb_add(b, c, s, 0, lab, t);
                }
            }
            for (uint32_t k = 0; k < b->n_classes; k++) {
                int in = 0;
                for (uint32_t q = 0; q < b->nrules; q++)
                    for (uint32_t i = 0; i < b->rule_np[q]; i++)
                        in |= b->rule_class[q] == k && b->rule_comp[q][i] == c;
                if (!in || rnd(rng, 10) < 3 || (shape && classes == 2))
                    continue;
                classes++;
                uint32_t m = shape == 2 ? 1 : 1 + rnd(rng, rnd(rng, 3) == 0 ? 5 : 2);
                for (uint32_t i = 0; i < m; i++) {
                    uint32_t t = pick_target(b, rng, c, s, self);
                    if ((t == s && !self) || (!messy && has_tr(b, c, s, 1, k, t)))
                        continue;
                    tb_add(b, c, s, 1, k, t);
                }
            }
        }
    }
    /* One deliberate repeat, on a transition of a component state. */
    if ((fl == DUP_LOCAL || fl == DUP_CLASS) && b->ntr > 0) {
        for (uint32_t tries = 0; tries < 50; tries++) {
            struct ttr x = b->tr[rnd(rng, b->ntr)];
            if ((fl == DUP_CLASS) != (x.sync != 0))
                continue;
            if (fl == DUP_LOCAL && rnd(rng, 2)) {
                /* Another local label hidden to the same result label is the
                 * realistic source; here: the same (label, target) twice. */
                tb_add(b, x.c, x.s, 0, x.lab, x.tgt);
            } else {
                tb_add(b, x.c, x.s, x.sync, x.lab, x.tgt);
            }
            break;
        }
    }
}

/* ---- our own BFS over the general generator ---- */

struct ref {
    uint64_t states, transitions, deadlocks;
    uint32_t depth;
    uint32_t *vec; /* states * words, BFS order */
    int too_big;
};

static void ref_explore(const struct image *img, struct ref *r, uint64_t limit)
{
    memset(r, 0, sizeof *r);
    struct wx_error err;
    struct vtable *t;
    struct succ_gen g;
    if (vtable_new(&t, img->words, limit + 1, &err) || succ_init(&g, img, &err)) {
        r->too_big = 1;
        return;
    }
    g.use_fast = false;
    uint32_t zero[IMAGE_MAX_WORDS] = { 0 };
    uint64_t id;
    vtable_lookup(t, zero, VTABLE_INSERT, &id);
    uint64_t lb = 0, le = 1;
    while (lb < le && !r->too_big) {
        for (uint64_t s = lb; s < le && !r->too_big; s++) {
            if (succ_expand(&g, vtable_vector(t, s), &err)) {
                r->too_big = 1;
                break;
            }
            r->transitions += g.n;
            r->deadlocks += g.n == 0;
            for (size_t i = 0; i < g.n; i++)
                if (vtable_lookup(t, succ_vector(&g, i), VTABLE_INSERT, &id) == VTABLE_FULL) {
                    r->too_big = 1;
                    break;
                }
        }
        lb = le, le = vtable_count(t);
        if (lb < le)
            r->depth++;
    }
    r->states = vtable_count(t);
    r->vec = malloc((r->states ? r->states : 1) * img->words * 4);
    memcpy(r->vec, vtable_vector(t, 0), r->states * img->words * 4);
    succ_free(&g);
    vtable_free(t);
}

/* ---- successor sets ---- */

static uint32_t cmp_words;
static int rec_cmp(const void *x, const void *y) { return memcmp(x, y, (cmp_words + 1) * 4); }

/* Copies g's records, sorted; returns the count; *dups = adjacent equal. */
static size_t sorted_copy(const struct succ_gen *g, uint32_t **out, size_t *cap, size_t *dups)
{
    const size_t st = g->stride;
    if (g->n > *cap) {
        *cap = g->n * 2;
        *out = realloc(*out, *cap * st * 4);
    }
    memcpy(*out, g->rec, g->n * st * 4);
    cmp_words = g->words;
    qsort(*out, g->n, st * 4, rec_cmp);
    *dups = 0;
    for (size_t i = 1; i < g->n; i++)
        *dups += memcmp(*out + (i - 1) * st, *out + i * st, st * 4) == 0;
    return g->n;
}

static unsigned long simple_images, loop_images, pair_images, wide_images, general_only;
/* The mask form: images it served; of them with > 64 rules (two mask
 * words), 3-4 words, > 32 components, segments beyond the simple shape
 * (> 2 local moves or groups), <= 64 rules on 1-2 words. */
static unsigned long mask_images, mask_shapes[5];
/* Wide images in the pair form, by words (3, 4): each has its own
 * specialisation (successors.c). */
static unsigned long wide_pair[2];

/* Returns whether the fast path applied to the image. */
static bool test_generator(const struct image *img, const struct ref *r, const char *what, unsigned long *dedup_free)
{
    struct wx_error err;
    struct succ_gen fast, gen;
    if (succ_init(&fast, img, &err) != WX_OK || succ_init(&gen, img, &err) != WX_OK) {
        check(0, "%s: succ_init", what);
        return false;
    }
    gen.use_fast = false;
    if (!fast.fast) {
        /* A component state offering more classes than the fast path
         * visits (FAST_MAX_GROUPS): the general path serves this image. */
        general_only++;
        succ_free(&fast);
        succ_free(&gen);
        return false;
    }
    uint32_t *a = NULL, *b = NULL;
    size_t ca = 0, cb = 0, da, db;
    uint64_t diff = 0, dups = 0, bad_hash = 0;
    /* Every form of the fast path that applies, on the same image: pair,
     * simple (branch-free), loop, mask. */
    const bool simple = fast.fast_simple, pair = fast.fast_pair && simple, mask = fast.fast_mask;
    simple_images += simple, loop_images++, pair_images += pair, wide_images += img->words > 2;
    mask_images += mask;
    mask_shapes[0] += mask && img->n_rules > 64;
    mask_shapes[1] += mask && img->words > 2;
    mask_shapes[2] += mask && img->n_comps > 32;
    mask_shapes[3] += mask && !simple;
    mask_shapes[4] += mask && img->n_rules > 0 && img->n_rules <= 64 && img->words <= 2;
    if (pair && img->words >= 3 && img->words <= 4)
        wide_pair[img->words - 3]++;
    for (int mode = 0; mode < 8; mode++) {
        const int unordered = mode & 1, form = mode / 2; /* 0 pair, 1 simple, 2 loop, 3 mask */
        if ((form == 0 && !pair) || (form == 1 && !simple) || (form == 3 && !mask))
            continue;
        fast.unordered = gen.unordered = unordered;
        fast.fast_mask = form == 3;
        fast.fast_pair = form == 0;
        fast.fast_simple = form <= 1;
        for (uint64_t i = 0; i < r->states; i++) {
            const uint32_t *v = r->vec + i * img->words;
            if (succ_expand(&fast, v, &err) || succ_expand(&gen, v, &err)) {
                diff++;
                continue;
            }
            size_t na = sorted_copy(&fast, &a, &ca, &da), nb = sorted_copy(&gen, &b, &cb, &db);
            dups += da;
            if (na != nb || memcmp(a, b, na * fast.stride * 4))
                diff++;
            for (size_t k = 0; unordered && k < fast.n; k++)
                bad_hash += fast.hash[k] != vtable_hash(succ_vector(&fast, k), img->words);
        }
    }
    if (!fast.fast_dedup_all)
        (*dedup_free)++;
    QCHECK(diff == 0, "%s: fast == general successors on %llu states (seed %llu)", what,
           (unsigned long long)r->states, seed);
    QCHECK(dups == 0, "%s: fast output has no duplicates (%llu found; seed %llu)", what, (unsigned long long)dups,
           seed);
    QCHECK(bad_hash == 0, "%s: fast path hashes == vtable_hash (seed %llu)", what, seed);
    free(a), free(b);
    succ_free(&fast);
    succ_free(&gen);
    return true;
}

static int vec_cmp(const void *x, const void *y) { return memcmp(x, y, cmp_words * 4); }

/* Images of 3 or 4 words that explore_cpu ran on with wide keys. */
static unsigned long wide_keyed_images;

static void test_explorers(const struct image *img, const struct ref *r, const char *what)
{
    if (img->words >= 3 && img->words <= vtable_keyed_max_words())
        wide_keyed_images++;
    static const unsigned threads[] = { 1, 2, 3, 4 };
    cmp_words = img->words;
    uint32_t *want = malloc((r->states ? r->states : 1) * img->words * 4);
    memcpy(want, r->vec, r->states * img->words * 4);
    qsort(want, r->states, img->words * 4, vec_cmp);
    for (unsigned ti = 0; ti < 5; ti++) {
        struct explore_options opt = { .memory_bytes = 64ull << 20, .keep_vectors = true };
        struct explore_result res;
        struct wx_error err;
        int rc = ti < 4 ? (opt.threads = threads[ti], explore_cpu(img, &opt, &res, &err))
                        : explore_seq(img, &opt, &res, &err);
        const char *be = ti < 4 ? "cpu" : "seq";
        unsigned th = ti < 4 ? threads[ti] : 1;
        if (rc != WX_OK) {
            check(0, "%s %s/%u: explores (rc %d: %s)", what, be, th, rc, err.msg);
            continue;
        }
        QCHECK(res.complete && res.states == r->states && res.transitions == r->transitions
                   && res.deadlocks == r->deadlocks && res.depth == r->depth,
               "%s %s/%u: states %llu/%llu transitions %llu/%llu deadlocks %llu/%llu depth %u/%u (seed %llu)", what,
               be, th, (unsigned long long)res.states, (unsigned long long)r->states,
               (unsigned long long)res.transitions, (unsigned long long)r->transitions,
               (unsigned long long)res.deadlocks, (unsigned long long)r->deadlocks, res.depth, r->depth, seed);
        if (res.states == r->states && res.vectors) {
            cmp_words = img->words;
            qsort(res.vectors, res.states, img->words * 4, vec_cmp);
            QCHECK(memcmp(res.vectors, want, r->states * img->words * 4) == 0,
                   "%s %s/%u: the same set of vectors (seed %llu)", what, be, th, seed);
        }
        explore_result_free(&res);
    }
    free(want);
}

static void test_random(unsigned per_flavour)
{
    uint64_t rng = seed;
    struct tb *b = malloc(sizeof *b);
    for (int fl = 0; fl < N_FLAVOURS; fl++) {
        unsigned done = 0, attempts = 0, fast_done = 0;
        unsigned long dedup_free = 0, before = (unsigned long)check_failures;
        uint64_t states = 0;
        while (done < per_flavour && attempts < per_flavour * 20) {
            attempts++;
            tb_random_fast(b, &rng, (enum flavour)fl);
            struct image img;
            tb_build(b, &img, &rng);
            struct wx_error err;
            if (img.words > 4 || image_check(&img, &err) != WX_OK) {
                image_free(&img);
                continue;
            }
            struct ref r;
            ref_explore(&img, &r, 4000);
            if (!r.too_big && r.states > 1) {
                char what[96];
                snprintf(what, sizeof what, "%s image %u (%u comps, %u words)", flavour_name[fl], done, img.n_comps,
                         img.words);
                fast_done += test_generator(&img, &r, what, &dedup_free);
                test_explorers(&img, &r, what);
                states += r.states;
                done++;
            }
            free(r.vec);
            image_free(&img);
        }
        check(done == per_flavour && (unsigned long)check_failures == before,
              "%s images: %u tested, %llu states, fast == general, explore_cpu without a sink (keyed table) == reference "
              "(seed %llu)", flavour_name[fl], done, (unsigned long long)states, seed);
        /* The analysis must skip deduplication on clean images and must not
         * on images with a repeat. */
        if (fl == CLEAN || fl == CLEAN_SELF)
            check(dedup_free == fast_done, "%s images: deduplication skipped (outside self-loops) on %lu of %u",
                  flavour_name[fl], dedup_free, fast_done);
        else if (fl != MESSY)
            check(dedup_free < fast_done, "%s images: the repeat is detected (%lu of %u dedup-free)",
                  flavour_name[fl], dedup_free, fast_done);
    }
    free(b);
}

/* ---- hand-made images with known counts ---- */

/* dedup_all: the fast path's verdict; -1: the image must keep the general
 * path (no fast tables). */
static void known(struct tb *b, const char *name, uint64_t states, uint64_t trans, int dedup_all)
{
    uint64_t rng = seed;
    struct image img;
    tb_build(b, &img, &rng);
    struct wx_error err;
    struct succ_gen g;
    if (check(succ_init(&g, &img, &err) == WX_OK, "%s: succ_init", name)) {
        if (dedup_all < 0)
            check(g.fast == NULL, "%s: no fast path (general path)", name);
        else
            check(g.fast && g.fast_dedup_all == dedup_all, "%s: fast path, deduplicate every state: %d", name,
                  dedup_all);
        succ_free(&g);
    }
    for (unsigned th = 1; th <= 3; th += 2) {
        struct explore_options opt = { .memory_bytes = 16ull << 20, .threads = th };
        struct explore_result res;
        if (check(explore_cpu(&img, &opt, &res, &err) == WX_OK, "%s cpu/%u explores", name, th)) {
            CHECK_EQ_U64(res.states, states, "%s cpu/%u: states", name, th);
            CHECK_EQ_U64(res.transitions, trans, "%s cpu/%u: transitions", name, th);
        }
        explore_result_free(&res);
    }
    image_free(&img);
}

static void test_known(void)
{
    struct tb *b = calloc(1, sizeof *b);
    /* Two 2-state components toggling with label 0, plus a self-loop with
     * label 1 in each state of both: 4 states; per state 2 toggles and one
     * distinct self-loop record (two generated): 12 transitions. */
    memset(b, 0, sizeof *b);
    b->n = 2, b->n_labels = 2;
    for (uint32_t c = 0; c < 2; c++) {
        b->states[c] = 2, b->width[c] = 1;
        for (uint32_t s = 0; s < 2; s++) {
            tb_add(b, c, s, 0, 0, 1 - s);
            tb_add(b, c, s, 0, 1, s);
        }
    }
    known(b, "self-loops in two components", 4, 12, 0);

    /* The same (label, target) twice in one segment: 2 states, 2 transitions. */
    memset(b, 0, sizeof *b);
    b->n = 1, b->n_labels = 1, b->states[0] = 2, b->width[0] = 1;
    for (uint32_t s = 0; s < 2; s++)
        tb_add(b, 0, s, 0, 0, 1 - s), tb_add(b, 0, s, 0, 0, 1 - s);
    known(b, "repeated local (label, target)", 2, 2, 1);

    /* Two classes with the same result label and the same participants
     * {0, 1}: both fire the same joint toggle: 2 states, 2 transitions. */
    memset(b, 0, sizeof *b);
    b->n = 2, b->n_labels = 1, b->n_classes = 2;
    uint32_t both[2] = { 0, 1 };
    for (uint32_t k = 0; k < 2; k++) {
        b->class_result[k] = 0;
        tb_rule(b, k, 2, both);
    }
    for (uint32_t c = 0; c < 2; c++) {
        b->states[c] = 2, b->width[c] = 1;
        for (uint32_t s = 0; s < 2; s++)
            for (uint32_t k = 0; k < 2; k++)
                tb_add(b, c, s, 1, k, 1 - s);
    }
    known(b, "two classes, same result and participants", 2, 2, 1);

    /* Toggles synchronised by many rules of one class: 12 two-state
     * components, a rule for every pair (66 rules: the mask form's two
     * mask words) toggling both: the even-weight vectors, 2^11 states, 66
     * transitions each.  Then every triple of 11 components (165 rules:
     * beyond the mask form, which must decline): all 2^11 vectors, 165
     * transitions each. */
    for (uint32_t np = 2; np <= 3; np++) {
        memset(b, 0, sizeof *b);
        b->n = np == 2 ? 12 : 11, b->n_labels = 1, b->n_classes = 1;
        for (uint32_t c = 0; c < b->n; c++) {
            b->states[c] = 2, b->width[c] = 1;
            for (uint32_t s = 0; s < 2; s++)
                tb_add(b, c, s, 1, 0, 1 - s);
        }
        for (uint32_t i = 0; i < b->n; i++)
            for (uint32_t j = i + 1; j < b->n; j++) {
                if (np == 2)
                    tb_rule(b, 0, 2, (uint32_t[]){ i, j });
                for (uint32_t l = j + 1; np == 3 && l < b->n; l++)
                    tb_rule(b, 0, 3, (uint32_t[]){ i, j, l });
            }
        uint64_t rng = seed;
        struct image img;
        tb_build(b, &img, &rng);
        struct wx_error err;
        struct succ_gen g;
        if (check(succ_init(&g, &img, &err) == WX_OK, "%u rules: succ_init", b->nrules)) {
            check(g.fast && g.fast_mask == (np == 2), "%u rules: mask form %s", b->nrules,
                  np == 2 ? "used (two mask words)" : "declined (> 128 rules)");
            succ_free(&g);
        }
        image_free(&img);
        char name[64];
        snprintf(name, sizeof name, "%u-participant rules on every %u components", np, np);
        known(b, name, 2048, 2048ull * b->nrules, 0);
    }

    /* Milner-like ring of 6 cyclers (no self-loops, unique rules): clean. */
    memset(b, 0, sizeof *b);
    b->n = 6, b->n_labels = 2, b->n_classes = 1;
    b->class_result[0] = 0;
    for (uint32_t c = 0; c < 6; c++) {
        uint32_t pair[2] = { c, (c + 1) % 6 };
        tb_rule(b, 0, 2, pair);
        b->states[c] = 2, b->width[c] = 1;
    }
    /* Every component offers class 0 in both states (0 -> 1, 1 -> 0), so
     * every adjacent pair toggles together: the even-parity vectors, 32,
     * each with 6 distinct successors. */
    for (uint32_t c = 0; c < 6; c++) {
        tb_add(b, c, 0, 1, 0, 1);
        tb_add(b, c, 1, 1, 0, 0);
    }
    known(b, "ring of 6 toggling pairs", 32, 192, 0);

    /* A component state offering 20 classes (more than the fast path
     * visits; the general path skips lone offers): both components offer
     * all 20 in state 0, each class's rule {0, 1} fires with its own
     * label: 2 states, 20 transitions. */
    memset(b, 0, sizeof *b);
    b->n = 2, b->n_labels = 20, b->n_classes = 20;
    for (uint32_t k = 0; k < 20; k++) {
        b->class_result[k] = k;
        tb_rule(b, k, 2, both);
    }
    for (uint32_t c = 0; c < 2; c++) {
        b->states[c] = 2, b->width[c] = 1;
        for (uint32_t k = 0; k < 20; k++)
            tb_add(b, c, 0, 1, k, 1);
    }
    known(b, "a state offering 20 classes", 2, 20, -1);
    free(b);
}

/* ---- keyed tables ---- */

struct kjob {
    struct vtable *t;
    const uint32_t *pool;
    uint32_t words;
    uint64_t begin, end, inserted, found, full;
    struct vtable_ids blk;
    uint64_t seed;
};

static void *kinsert(void *arg)
{
    struct kjob *j = arg;
    uint64_t rng = j->seed;
    /* Every thread inserts every vector of the range, in its own order. */
    uint64_t n = j->end - j->begin, off = n ? rng_next(&rng) % n : 0;
    for (uint64_t x = 0; x < n; x++) {
        const uint32_t *v = j->pool + (j->begin + (x + off) % n) * j->words;
        uint64_t id;
        enum vtable_outcome o = vtable_insert_block(j->t, v, vtable_hash(v, j->words), &j->blk, &id);
        if (o == VTABLE_INSERTED)
            j->inserted++;
        else if (o == VTABLE_FOUND)
            j->found += id == VTABLE_NO_ID;
        else
            j->full++;
    }
    return NULL;
}

static uint32_t *distinct_pool(uint64_t k, uint32_t words, uint64_t *rng)
{
    uint32_t *p = malloc(k * words * 4);
    for (uint64_t i = 0; i < k; i++) {
        uint32_t *v = p + i * words;
        if (words >= 3) {
            /* Wide keys: pairs (2m, 2m + 1) share the low 64 bits and
             * differ in the high ones; the high 64 bits take few values, so
             * most vectors share them with many others.  Distinct: m is in
             * word 0, the pair's bit in word 2.  Bit 31 of the last word
             * stays clear (image.h). */
            uint64_t m = i / 2;
            v[0] = (uint32_t)m;
            v[1] = (uint32_t)(m * 2654435761u) ^ (uint32_t)(m >> 32);
            v[2] = (uint32_t)(i & 1) | (uint32_t)(i % 7) << 1 | (words == 3 ? (uint32_t)(i % 3) << 29 : 0);
            if (words == 4)
                v[3] = (uint32_t)(i % 5) << 27 | (uint32_t)(rng_next(rng) & 1);
            continue;
        }
        /* Distinct by construction: i in the low bits, noise above. */
        uint64_t x = i | (rng_next(rng) & 0x7fffffffull) << 32;
        if (words == 1)
            x = (uint32_t)((i * 2654435761u) & 0x7fffffffu);
        else
            x &= ~(1ull << 63);
        v[0] = (uint32_t)x;
        if (words == 2)
            v[1] = (uint32_t)(x >> 32) & 0x7fffffffu;
    }
    return p;
}

static void kgrow(struct vtable *t, unsigned n)
{
    struct wx_error err;
    if (vtable_grow_begin(t, &err))
        return;
    uint64_t c = vtable_count(t), step = (c + n - 1) / (n ? n : 1);
    for (unsigned i = 0; i < n; i++) {
        uint64_t b = i * step, e = b + step < c ? b + step : c;
        if (b < e)
            vtable_grow_part(t, b, e);
    }
    vtable_grow_end(t);
}

/* kgrow through vtable_grow_slots: n threads on uneven, adjacent ranges of
 * the old slot array (a cut every ~slots/n, moved by up to a quarter of
 * that), so neighbouring ranges' clusters meet in the new array. */
struct sjob {
    struct vtable *t;
    uint64_t b, e;
};

static void *sgrow(void *arg)
{
    struct sjob *j = arg;
    vtable_grow_slots(j->t, j->b, j->e);
    return NULL;
}

static void kgrow_slots(struct vtable *t, unsigned n, uint64_t *rng)
{
    struct wx_error err;
    if (vtable_grow_begin(t, &err))
        return;
    struct sjob jobs[8];
    pthread_t tid[8];
    n = n < 1 ? 1 : n > 8 ? 8 : n;
    const uint64_t slots = vtable_slots(t), step = slots / n;
    for (unsigned i = 0; i < n; i++) {
        uint64_t b = i * step + (i && step >= 4 ? rng_next(rng) % (step / 4) : 0);
        jobs[i].t = t, jobs[i].b = b;
        if (i)
            jobs[i - 1].e = b;
    }
    jobs[n - 1].e = slots;
    for (unsigned i = 0; i < n; i++)
        pthread_create(&tid[i], NULL, sgrow, &jobs[i]);
    for (unsigned i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
    vtable_grow_end(t);
}

/* Re-insertion by slot ranges (vtable_grow_slots; doubling: its private
 * form) of half-full keyed tables cut into many tiny ranges (0-3 slots:
 * ranges inside one cluster, empty ranges, clusters crossing several
 * ranges), re-inserted in a random order, with clusters that wrap around
 * the end of the old array (six vectors homed on its last 4 slots): every
 * vector found afterwards, absent ones absent, the count unchanged; then
 * once more on the doubled table. */
static void test_grow_clusters(void)
{
    const uint32_t maxw = vtable_keyed_max_words();
    for (uint32_t words = 1; words <= maxw; words++) {
        uint64_t rng = seed ^ (0x5eedull * words);
        unsigned bad = 0, trials = 0, doubled = 0;
        const uint64_t npool = 150000;
        uint32_t *pool = distinct_pool(npool, words, &rng);
        uint8_t *used = calloc(npool, 1);
        uint64_t *cut = malloc(70000 * sizeof *cut);
        uint32_t *order = malloc(70000 * sizeof *order);
        for (unsigned trial = 0; trial < 2; trial++) {
            struct vtable *t;
            struct wx_error err;
            if (vtable_new_keyed(&t, words, 1u << 18, &err)) {
                bad++;
                continue;
            }
            const uint64_t nslots = vtable_slots(t);
            memset(used, 0, npool);
            uint64_t id, in = 0, tail = 0;
            /* Six vectors homed on the last 4 slots, then random ones. */
            for (uint64_t i = 0; i < npool && tail < 6; i++)
                if ((uint64_t)(((unsigned __int128)vtable_hash(pool + i * words, words) * nslots) >> 64) + 4 >= nslots
                    && vtable_lookup(t, pool + i * words, VTABLE_INSERT, &id) == VTABLE_INSERTED)
                    used[i] = 1, tail++, in++;
            while (in * 2 + 2 < nslots) {
                const uint64_t i = rng_next(&rng) % npool;
                if (!used[i] && vtable_lookup(t, pool + i * words, VTABLE_INSERT, &id) == VTABLE_INSERTED)
                    used[i] = 1, in++;
            }
            for (int round = 0; round < 2; round++) {
                const uint64_t n = vtable_slots(t);
                if (vtable_grow_begin(t, &err)) {
                    bad++;
                    break;
                }
                uint64_t nc = 0;
                for (uint64_t b = 0; b < n && nc < 69999;)
                    cut[nc++] = b, b += rng_next(&rng) % 4;
                cut[nc] = n;
                for (uint32_t i = 0; i < nc; i++)
                    order[i] = i;
                for (uint32_t i = (uint32_t)nc; i > 1; i--) {
                    uint32_t j = (uint32_t)(rng_next(&rng) % i), x = order[i - 1];
                    order[i - 1] = order[j], order[j] = x;
                }
                for (uint32_t i = 0; i < nc; i++)
                    vtable_grow_slots(t, cut[order[i]], cut[order[i] + 1]);
                vtable_grow_end(t);
                doubled += vtable_slots(t) == 2 * n;
                int ok = vtable_count(t) == in;
                for (uint64_t i = 0; i < npool; i++)
                    ok &= (vtable_lookup(t, pool + i * words, VTABLE_FIND, &id) == VTABLE_FOUND) == used[i];
                bad += !ok;
            }
            trials++;
            vtable_free(t);
        }
        check(bad == 0 && doubled == 2 * trials && trials == 2,
              "keyed %u words: %u half-full tables (a cluster wrapping the end) re-inserted by tiny shuffled slot "
              "ranges, twice each (%u doublings): every vector found, absent ones absent (%u failed; seed %llu)",
              words, trials, doubled, bad, seed);
        free(pool), free(used), free(cut), free(order);
    }
}

static void test_keyed(void)
{
    struct vtable *t;
    struct wx_error err;
    const uint32_t maxw = vtable_keyed_max_words();
    check(maxw == 2 || maxw == 4, "keyed: at most %u words per vector", maxw);
    check(vtable_new_keyed(&t, maxw + 1, 10, &err) == WX_EINPUT && t == NULL, "keyed: %u words rejected", maxw + 1);
    if (check(vtable_new_keyed(&t, 2, 100, &err) == WX_OK && vtable_keyed(t), "keyed: 2-word table")) {
        uint32_t z[2] = { 0, 0 }, a[2] = { 5, 0x7fffffff }, b[2] = { 5, 0 };
        uint64_t id;
        check(vtable_lookup(t, a, VTABLE_FIND, &id) == VTABLE_ABSENT, "keyed: FIND in an empty table");
        check(vtable_lookup(t, z, VTABLE_INSERT, &id) == VTABLE_INSERTED && id == 0, "keyed: zero vector id 0");
        check(vtable_lookup(t, a, VTABLE_INSERT, &id) == VTABLE_INSERTED && id == 1, "keyed: a id 1");
        check(vtable_lookup(t, b, VTABLE_INSERT, &id) == VTABLE_INSERTED && id == 2, "keyed: b (same low word) id 2");
        check(vtable_lookup(t, a, VTABLE_INSERT, &id) == VTABLE_FOUND && id == VTABLE_NO_ID,
              "keyed: a again FOUND, no id");
        check(vtable_lookup(t, z, VTABLE_FIND, &id) == VTABLE_FOUND, "keyed: FIND zero");
        check(vtable_count(t) == 3 && memcmp(vtable_vector(t, 1), a, 8) == 0 && memcmp(vtable_vector(t, 2), b, 8) == 0,
              "keyed: count and store");
        vtable_free(t);
    }
    /* Wide keys: vectors equal in one 64-bit half, the all-zero vector, the
     * largest allowed words. */
    for (uint32_t words = 3; words <= maxw; words++) {
        if (!check(vtable_new_keyed(&t, words, 100, &err) == WX_OK && vtable_keyed(t), "keyed: %u-word table", words))
            continue;
        uint32_t v[6][4] = {
            { 0, 0, 0, 0 },
            { 1, 0, 0, 0 },                            /* low half differs from the zero vector */
            { 0, 0, 1, 0 },                            /* high half differs */
            { 1, 0, 1, 0 },
            { 0xffffffff, 0xffffffff, 0x7fffffff, 0 }, /* 3 words: every bit but the flag */
            { 0xffffffff, 0xffffffff, 0xffffffff, 0x7fffffff },
        };
        if (words == 3)
            v[5][2] = 0x7ffffffe;
        uint64_t id;
        check(vtable_lookup(t, v[0], VTABLE_FIND, &id) == VTABLE_ABSENT, "keyed %u: FIND in an empty table", words);
        int ok = 1;
        for (unsigned i = 0; i < 6; i++)
            ok &= vtable_lookup(t, v[i], VTABLE_INSERT, &id) == VTABLE_INSERTED && id == i;
        check(ok, "keyed %u: 6 vectors, pairwise equal in one half, inserted with ids 0..5", words);
        ok = 1;
        for (unsigned i = 0; i < 6; i++) {
            ok &= vtable_lookup(t, v[i], VTABLE_INSERT, &id) == VTABLE_FOUND && id == VTABLE_NO_ID;
            ok &= vtable_lookup(t, v[i], VTABLE_FIND, &id) == VTABLE_FOUND;
            ok &= memcmp(vtable_vector(t, i), v[i], words * 4) == 0;
        }
        uint32_t other[4] = { 0, 1, 0, 0 };
        ok &= vtable_lookup(t, other, VTABLE_FIND, &id) == VTABLE_ABSENT;
        check(ok && vtable_count(t) == 6, "keyed %u: found again without an id, stored, an absent one ABSENT", words);
        check(vtable_bytes(t) == vtable_slots(t) * 16 + 6 * words * 4, "keyed %u: 16-byte slots", words);
        vtable_free(t);
    }
    check(vtable_new(&t, 1, 10, &err) == WX_OK && !vtable_keyed(t), "vtable_new is not keyed");
    vtable_free(t);

    /* Concurrent inserts with blocks, growth and block closing at quiet
     * points, 1 and 2 words. */
    for (uint32_t words = 1; words <= maxw; words++)
        for (unsigned nth = 1; nth <= 4; nth += 3) {
            uint64_t rng = seed ^ words ^ nth, k = 60000, round = 7000;
            uint32_t *pool = distinct_pool(k, words, &rng);
            if (vtable_new_keyed(&t, words, k + 100, &err)) {
                check(0, "keyed concurrent: vtable_new_keyed");
                free(pool);
                continue;
            }
            vtable_set_block(t, 13);
            struct kjob jobs[4];
            memset(jobs, 0, sizeof jobs);
            uint64_t grows = 0, moved = 0;
            for (uint64_t b0 = 0; b0 < k; b0 += round) {
                while (vtable_can_grow(t) && (vtable_wants_grow(t) || (vtable_count(t) + round * 2) * 4 > vtable_slots(t) * 3)) {
                    /* Both ways to re-insert: by ids (1 thread's rounds),
                     * by slot ranges on 3 threads (4 threads' rounds). */
                    if (nth == 1)
                        kgrow(t, nth);
                    else
                        kgrow_slots(t, 3, &rng);
                    grows++;
                }
                pthread_t tid[4];
                for (unsigned j = 0; j < nth; j++) {
                    jobs[j].t = t, jobs[j].pool = pool, jobs[j].words = words;
                    jobs[j].begin = b0, jobs[j].end = b0 + round < k ? b0 + round : k;
                    jobs[j].seed = rng_next(&rng);
                    pthread_create(&tid[j], NULL, kinsert, &jobs[j]);
                }
                for (unsigned j = 0; j < nth; j++)
                    pthread_join(tid[j], NULL);
                struct vtable_ids blk[4];
                for (unsigned j = 0; j < nth; j++)
                    blk[j] = jobs[j].blk;
                uint64_t before = vtable_count(t);
                vtable_close_blocks(t, blk, nth, NULL, NULL, &err);
                moved += before - vtable_count(t);
                for (unsigned j = 0; j < nth; j++)
                    jobs[j].blk = blk[j];
            }
            uint64_t ins = 0, found = 0, full = 0;
            for (unsigned j = 0; j < nth; j++)
                ins += jobs[j].inserted, found += jobs[j].found, full += jobs[j].full;
            char what[80];
            snprintf(what, sizeof what, "keyed concurrent words=%u threads=%u", words, nth);
            CHECK_EQ_U64(ins, k, "%s: one INSERTED per vector", what);
            CHECK_EQ_U64(found, k * (nth - 1), "%s: the rest FOUND without an id", what);
            CHECK_EQ_U64(full, 0, "%s: no FULL", what);
            CHECK_EQ_U64(vtable_count(t), k, "%s: count (ids dense after closing)", what);
            check(grows > 0, "%s: grew %llu times, %llu ids of unused blocks closed", what,
                  (unsigned long long)grows, (unsigned long long)moved);
            /* The store holds exactly the pool. */
            cmp_words = words;
            uint32_t *s = malloc(k * words * 4);
            memcpy(s, vtable_vector(t, 0), k * words * 4);
            qsort(s, k, words * 4, vec_cmp);
            qsort(pool, k, words * 4, vec_cmp);
            check(memcmp(s, pool, k * words * 4) == 0, "%s: store == inserted set", what);
            uint64_t miss = 0, id;
            for (uint64_t i = 0; i < k; i++)
                miss += vtable_lookup(t, pool + i * words, VTABLE_FIND, &id) != VTABLE_FOUND;
            CHECK_EQ_U64(miss, 0, "%s: every vector FOUND after growth and closing", what);
            free(s);
            free(pool);
            vtable_free(t);
        }

    /* A full store: FULL, and every key in the table is a stored vector
     * (FIND succeeds only for the stored ones). */
    for (uint32_t words = 2; words <= maxw; words++)
    for (unsigned nth = 1; nth <= 4; nth += 3) {
        uint64_t rng = seed * 3 + nth + words, k = 5000, cap = 700;
        uint32_t *pool = distinct_pool(k, words, &rng);
        vtable_new_keyed(&t, words, cap, &err);
        vtable_set_block(t, 8);
        while (vtable_can_grow(t))
            kgrow(t, 1);
        struct kjob jobs[4];
        memset(jobs, 0, sizeof jobs);
        pthread_t tid[4];
        for (unsigned j = 0; j < nth; j++) {
            jobs[j] = (struct kjob){ .t = t, .pool = pool, .words = words, .begin = 0, .end = k, .seed = rng_next(&rng) };
            pthread_create(&tid[j], NULL, kinsert, &jobs[j]);
        }
        uint64_t full = 0, ins = 0;
        for (unsigned j = 0; j < nth; j++) {
            pthread_join(tid[j], NULL);
            full += jobs[j].full, ins += jobs[j].inserted;
        }
        struct vtable_ids blk[4];
        for (unsigned j = 0; j < nth; j++)
            blk[j] = jobs[j].blk;
        vtable_close_blocks(t, blk, nth, NULL, NULL, &err);
        uint64_t n = vtable_count(t), present = 0, id;
        for (uint64_t i = 0; i < k; i++)
            present += vtable_lookup(t, pool + i * words, VTABLE_FIND, &id) == VTABLE_FOUND;
        check(full > 0 && n <= cap && ins == n && present == n,
              "keyed full words=%u threads=%u: FULL reported (%llu), %llu stored <= %llu, inserted == stored == keys present (%llu, %llu)",
              words, nth, (unsigned long long)full, (unsigned long long)n, (unsigned long long)cap, (unsigned long long)ins,
              (unsigned long long)present);
        free(pool);
        vtable_free(t);
    }
}

int main(void)
{
    const char *s = getenv("WX_SEED");
    if (s)
        seed = strtoull(s, NULL, 10);
    test_keyed();
    test_grow_clusters();
    test_known();
    test_random(25);
    check(wide_images > 10, "fast path: %lu images of 3 or 4 words (128-bit vectors)", wide_images);
    check(wide_pair[0] > 0 && wide_pair[1] > 0, "fast path: pair form on %lu images of 3 words, %lu of 4 words",
          wide_pair[0], wide_pair[1]);
    check(vtable_keyed_max_words() < 3 || wide_keyed_images > 10,
          "explore_cpu: %lu images of 3 or 4 words explored with wide keys (keyed up to %u words here)",
          wide_keyed_images, vtable_keyed_max_words());
    check(general_only * 10 < loop_images, "fast path: refused on %lu images (a state offering > 16 classes), "
          "applied on %lu", general_only, loop_images);
    check(pair_images > 10 && simple_images > pair_images && loop_images > simple_images,
          "fast path: %lu images in the pair form, %lu in the simple form, %lu in the loop form (each also in "
          "the later forms)", pair_images, simple_images, loop_images);
    /* Two mask words are certain in test_known's 66-rule image; random
     * images reach them only now and then. */
    check(mask_images > 10 && mask_shapes[1] > 0 && mask_shapes[2] > 0 && mask_shapes[3] > 0 && mask_shapes[4] > 0,
          "fast path: mask form on %lu images (> 64 rules %lu, 3-4 words %lu, > 32 components %lu, beyond the "
          "simple shape %lu, <= 64 rules on 1-2 words %lu)",
          mask_images, mask_shapes[0], mask_shapes[1], mask_shapes[2], mask_shapes[3], mask_shapes[4]);
    check(1, "%lu further checks passed quietly", quiet_ok);
    return check_exit();
}
