/*
 * test_explore.c -- the CPU explorers (explore_seq, explore_cpu) and the
 * successor generator, against a naive reference written here directly
 * from the image definition in network/image.h (own bit reading, own entry
 * decoding, no ordering assumptions, recursive cartesian product, own BFS).
 *
 * On hundreds of random small images (seeded; WX_SEED changes the seed,
 * WX_IMAGES the count): successors of every reachable state; states,
 * transitions, deadlocks and depth of seq and cpu (1, 2, 4, 7 threads)
 * against the reference; the set of kept vectors and the BFS-level order of
 * ids; edge sinks (exactly `transitions` distinct, real edges); violations
 * (kind, shortest length, replayed traces); WX_ELIMIT on tiny budgets.
 * Then hand-made images for the corner cases (0-width and straddling
 * fields, > 32 components, >= 3 entries of one class, duplicates) with known
 * counts, and malformed images.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "explorer/explore.h"
#include "explorer/successors.h"
#include "hash/vtable.h"
#include "hash/ptable.h"

static unsigned long long seed = 7031;

#include "image_builder.h"

/* The random part runs thousands of checks: those pass silently (counted)
 * and fail loudly, and each image then gets one summary PASS/FAIL line. */
static unsigned long quiet_passes;

__attribute__((format(printf, 2, 3))) static int qcheck(int ok, const char *fmt, ...)
{
    if (ok) {
        quiet_passes++;
        return 1;
    }
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
    check_failures++;
    return 0;
}

#define QCHECK_EQ_U64(found, expected, ...)                                        \
    do {                                                                           \
        unsigned long long f_ = (unsigned long long)(found);                       \
        unsigned long long e_ = (unsigned long long)(expected);                    \
        char n_[512];                                                              \
        snprintf(n_, sizeof n_, __VA_ARGS__);                                      \
        qcheck(f_ == e_, "%s: expected %llu, found %llu", n_, e_, f_);             \
    } while (0)

/* ======================================================================
 * The naive reference.
 * ====================================================================== */

static uint32_t nv_get(const struct image *img, const uint32_t *v, uint32_t c)
{
    uint32_t x = 0;
    for (uint32_t b = img->first_bit[c]; b < img->first_bit[c + 1]; b++)
        x |= ((v[b / 32] >> (b % 32)) & 1u) << (b - img->first_bit[c]);
    return x;
}

static void nv_set(const struct image *img, uint32_t *v, uint32_t c, uint32_t x)
{
    for (uint32_t b = img->first_bit[c]; b < img->first_bit[c + 1]; b++) {
        uint32_t bit = (x >> (b - img->first_bit[c])) & 1u;
        v[b / 32] = (v[b / 32] & ~(1u << (b % 32))) | bit << (b % 32);
    }
}

/* Targets of component c in local state s for (sync, lab): all entries of
 * the segment, all non-empty slots, in no assumed order. */
static uint32_t nv_targets(const struct image *img, uint32_t c, uint32_t s, uint32_t sync, uint32_t lab,
                           uint32_t *out)
{
    uint32_t m = 0, ab = img->act_bits, sb = img->state_bits[c];
    uint32_t lo = img->state_offsets[img->proc_offsets[c] + s], hi = img->state_offsets[img->proc_offsets[c] + s + 1];
    for (uint32_t i = lo; i < hi; i++) {
        uint64_t e = img->trans[i];
        if ((e & 1) != sync || ((e >> 1) & ((1ull << ab) - 1)) != lab)
            continue;
        for (uint32_t k = 0; 1 + ab + (k + 1) * sb <= 64; k++) {
            uint64_t t = (e >> (1 + ab + k * sb)) & ((1ull << sb) - 1);
            if (t)
                out[m++] = (uint32_t)(t - 1);
        }
    }
    return m;
}

struct succs {
    uint32_t words, n, cap;
    uint32_t *rec; /* n records: label, vector */
};

static void sc_add(struct succs *o, uint32_t label, const uint32_t *v)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 64;
        o->rec = realloc(o->rec, (size_t)o->cap * (o->words + 1) * 4);
    }
    uint32_t *r = o->rec + (size_t)o->n * (o->words + 1);
    r[0] = label;
    memcpy(r + 1, v, o->words * 4);
    o->n++;
}

static uint32_t sc_words;
static int rec_cmp(const void *x, const void *y) { return memcmp(x, y, (sc_words + 1) * 4); }

static void sc_sort_unique(struct succs *o)
{
    sc_words = o->words;
    if (o->n > 1)
        qsort(o->rec, o->n, (o->words + 1) * 4, rec_cmp);
    uint32_t m = 0, st = o->words + 1;
    for (uint32_t i = 0; i < o->n; i++)
        if (!m || memcmp(o->rec + (size_t)(m - 1) * st, o->rec + (size_t)i * st, st * 4))
            memmove(o->rec + (size_t)m++ * st, o->rec + (size_t)i * st, st * 4);
    o->n = m;
}

static void nv_product(const struct image *img, uint32_t *v, const uint32_t *parts, uint32_t np,
                       uint32_t **tg, const uint32_t *tn, uint32_t i, uint32_t label, struct succs *o)
{
    if (i == np) {
        sc_add(o, label, v);
        return;
    }
    uint32_t old = nv_get(img, v, parts[i]);
    for (uint32_t k = 0; k < tn[i]; k++) {
        nv_set(img, v, parts[i], tg[i][k]);
        nv_product(img, v, parts, np, tg, tn, i + 1, label, o);
    }
    nv_set(img, v, parts[i], old);
}

/* All distinct successors of v, sorted by (label, vector bytes). */
static void nv_succ(const struct image *img, const uint32_t *v, struct succs *o)
{
    uint32_t w = img->words, buf[64];
    uint32_t tmpv[IMAGE_MAX_WORDS];
    static uint32_t tg_store[128][256];
    uint32_t *tg[128], tn[128], parts[128];
    o->words = w;
    o->n = 0;
    for (uint32_t c = 0; c < img->n_comps; c++) {
        uint32_t s = nv_get(img, v, c);
        for (uint32_t l = 0; l < img->n_labels; l++) {
            uint32_t m = nv_targets(img, c, s, 0, l, buf);
            for (uint32_t k = 0; k < m; k++) {
                memcpy(tmpv, v, w * 4);
                nv_set(img, tmpv, c, buf[k]);
                sc_add(o, l, tmpv);
            }
        }
    }
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            uint32_t np = 0, ok = 1;
            for (uint32_t c = 0; c < img->n_comps; c++)
                if (img->rule_mask[(size_t)r * img->mask_words + c / 32] >> (c % 32) & 1) {
                    tg[np] = tg_store[np];
                    tn[np] = nv_targets(img, c, nv_get(img, v, c), 1, k, tg[np]);
                    ok &= tn[np] > 0;
                    parts[np++] = c;
                }
            if (ok) {
                memcpy(tmpv, v, w * 4);
                nv_product(img, tmpv, parts, np, tg, tn, 0, img->class_result[k], o);
            }
        }
    sc_sort_unique(o);
}

/* A naive BFS with a chained hash map. */
struct ref {
    uint32_t words;
    uint64_t n, cap, transitions, deadlocks;
    uint32_t depth;
    uint32_t *vec;      /* by reference id (BFS order) */
    uint32_t *dep;      /* BFS depth */
    uint64_t *head, nhead, *next;
    int too_big;
};

static uint64_t ref_hash(const uint32_t *v, uint32_t w)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < w; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return h;
}

/* Reference id of v, or UINT64_MAX. */
static uint64_t ref_find(const struct ref *r, const uint32_t *v)
{
    for (uint64_t i = r->head[ref_hash(v, r->words) % r->nhead]; i != UINT64_MAX; i = r->next[i])
        if (!memcmp(r->vec + i * r->words, v, r->words * 4))
            return i;
    return UINT64_MAX;
}

static void ref_explore(const struct image *img, struct ref *r, uint64_t limit)
{
    memset(r, 0, sizeof *r);
    r->words = img->words;
    r->cap = limit + 1;
    r->vec = malloc(r->cap * r->words * 4);
    r->dep = malloc(r->cap * 4);
    r->next = malloc(r->cap * 8);
    r->nhead = 4099;
    r->head = malloc(r->nhead * 8);
    for (uint64_t i = 0; i < r->nhead; i++)
        r->head[i] = UINT64_MAX;
    struct succs o = { 0 };
    memset(r->vec, 0, r->words * 4);
    r->dep[0] = 0;
    r->next[0] = UINT64_MAX;
    r->head[ref_hash(r->vec, r->words) % r->nhead] = 0;
    r->n = 1;
    for (uint64_t i = 0; i < r->n; i++) {
        nv_succ(img, r->vec + i * r->words, &o);
        if (o.n == 0)
            r->deadlocks++;
        r->transitions += o.n;
        for (uint32_t k = 0; k < o.n; k++) {
            const uint32_t *v = o.rec + (size_t)k * (o.words + 1) + 1;
            if (ref_find(r, v) != UINT64_MAX)
                continue;
            if (r->n == limit) {
                r->too_big = 1;
                free(o.rec);
                return;
            }
            memcpy(r->vec + r->n * r->words, v, r->words * 4);
            r->dep[r->n] = r->dep[i] + 1;
            if (r->dep[r->n] > r->depth)
                r->depth = r->dep[r->n];
            uint64_t h = ref_hash(v, r->words) % r->nhead;
            r->next[r->n] = r->head[h];
            r->head[h] = r->n++;
        }
    }
    free(o.rec);
}

static void ref_free(struct ref *r)
{
    free(r->vec), free(r->dep), free(r->next), free(r->head);
}

/* ======================================================================
 * Checks of one run against the reference.
 * ====================================================================== */

struct sink_rec {
    pthread_mutex_t m;
    struct product_edge *e;
    uint64_t n, cap;
    int fail_after; /* > 0: fail (WX_ESYSTEM) on the call that passes this many edges */
};

static int sink_emit(void *ctx, const struct product_edge *edges, size_t n, struct wx_error *err)
{
    struct sink_rec *s = ctx;
    pthread_mutex_lock(&s->m);
    if (s->n + n > s->cap) {
        while (s->n + n > s->cap)
            s->cap = s->cap ? s->cap * 2 : 1024;
        s->e = realloc(s->e, s->cap * sizeof *s->e);
    }
    memcpy(s->e + s->n, edges, n * sizeof *edges);
    s->n += n;
    int fail = s->fail_after && s->n >= (uint64_t)s->fail_after;
    pthread_mutex_unlock(&s->m);
    return fail ? wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "sink refused") : WX_OK;
}

static int edge_cmp(const void *x, const void *y)
{
    const struct product_edge *a = x, *b = y;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->label != b->label)
        return a->label < b->label ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    return 0;
}

/* Is (label, w) among the reference successors of v? */
static int is_successor(const struct image *img, const uint32_t *v, uint32_t label, const uint32_t *w)
{
    struct succs o = { 0 };
    nv_succ(img, v, &o);
    int found = 0;
    for (uint32_t k = 0; k < o.n && !found; k++) {
        const uint32_t *r = o.rec + (size_t)k * (o.words + 1);
        found = r[0] == label && !memcmp(r + 1, w, img->words * 4);
    }
    free(o.rec);
    return found;
}

/* kept vectors == the reference set, id 0 = zero, depth nondecreasing in id */
static void check_vectors(const struct image *img, const struct ref *r, const struct explore_result *res,
                          const char *what)
{
    if (!qcheck(res->vectors != NULL, "%s: vectors kept", what))
        return;
    uint32_t w = img->words;
    uint8_t *seen = calloc(r->n + 1, 1);
    uint64_t unknown = 0, dup = 0, order = 0;
    uint32_t last = 0;
    for (uint64_t id = 0; id < res->states; id++) {
        uint64_t x = ref_find(r, res->vectors + id * w);
        if (x == UINT64_MAX) {
            unknown++;
            continue;
        }
        if (seen[x]++)
            dup++;
        if (r->dep[x] < last)
            order++;
        last = r->dep[x];
    }
    int zero = 1;
    for (uint32_t i = 0; i < w; i++)
        zero &= res->vectors[i] == 0;
    qcheck(zero, "%s: id 0 is the all-zero vector (seed %llu)", what, seed);
    qcheck(unknown == 0 && dup == 0, "%s: kept vectors are the reachable ones, each once "
          "(unknown %llu, duplicate %llu; seed %llu)", what, (unsigned long long)unknown,
          (unsigned long long)dup, seed);
    QCHECK_EQ_U64(order, 0, "%s: ids in BFS level order (seed %llu)", what, seed);
    free(seen);
}

static void check_edges(const struct image *img, const struct explore_result *res, struct sink_rec *s,
                        const char *what)
{
    QCHECK_EQ_U64(s->n, res->transitions, "%s: sink got `transitions` edges (seed %llu)", what, seed);
    if (s->n > 1)
        qsort(s->e, s->n, sizeof *s->e, edge_cmp);
    uint64_t dup = 0, bad = 0, src = UINT64_MAX;
    struct succs o = { 0 }; /* reference successors of src (edges come sorted by src) */
    for (uint64_t i = 0; i < s->n; i++) {
        const struct product_edge *e = &s->e[i];
        if (i && edge_cmp(&s->e[i - 1], e) == 0)
            dup++;
        if (e->src >= res->states || e->dst >= res->states) {
            bad++;
            continue;
        }
        if (e->src != src)
            nv_succ(img, res->vectors + e->src * img->words, &o), src = e->src;
        int found = 0;
        for (uint32_t k = 0; k < o.n && !found; k++) {
            const uint32_t *r = o.rec + (size_t)k * (o.words + 1);
            found = r[0] == e->label && !memcmp(r + 1, res->vectors + e->dst * img->words, img->words * 4);
        }
        bad += !found;
    }
    free(o.rec);
    qcheck(dup == 0 && bad == 0, "%s: sink edges distinct and real (dup %llu, bad %llu; seed %llu)", what,
          (unsigned long long)dup, (unsigned long long)bad, seed);
}

/* Expected violation from the reference: kind and trace length. */
static void ref_violation(const struct image *img, const struct ref *r, int dl, const uint8_t *act,
                          enum explore_violation *kind, uint32_t *len)
{
    uint32_t dmin = UINT32_MAX, amin = UINT32_MAX;
    struct succs o = { 0 };
    for (uint64_t i = 0; i < r->n; i++) {
        if (r->dep[i] >= dmin && r->dep[i] >= amin)
            continue;
        nv_succ(img, r->vec + i * r->words, &o);
        if (o.n == 0 && dl && r->dep[i] < dmin)
            dmin = r->dep[i];
        for (uint32_t k = 0; act && k < o.n; k++)
            if (act[o.rec[(size_t)k * (o.words + 1)]] && r->dep[i] < amin)
                amin = r->dep[i];
    }
    free(o.rec);
    *kind = VIOLATION_NONE, *len = 0;
    if (dmin != UINT32_MAX && (amin == UINT32_MAX || dmin <= amin))
        *kind = VIOLATION_DEADLOCK, *len = dmin;
    else if (amin != UINT32_MAX)
        *kind = VIOLATION_ACTION, *len = amin + 1;
}

static void check_violation(const struct image *img, const struct ref *r, const struct explore_options *opt,
                            const struct explore_result *res, const char *what)
{
    enum explore_violation kind;
    uint32_t len;
    ref_violation(img, r, opt->stop_on_deadlock, opt->action_match, &kind, &len);
    QCHECK_EQ_U64(res->violation, kind, "%s: violation kind (seed %llu)", what, seed);
    if (kind == VIOLATION_NONE || res->violation != kind)
        return;
    qcheck(!res->complete, "%s: a violation stops the exploration", what);
    if (!opt->trace)
        return;
    const struct trace *t = &res->trace;
    QCHECK_EQ_U64(t->len, len, "%s: trace is shortest (seed %llu)", what, seed);
    if (t->len != len || !t->states || !t->vectors)
        return;
    uint32_t w = img->words;
    int ok = t->states[0] == 0, zero = 1;
    for (uint32_t i = 0; i < w; i++)
        zero &= t->vectors[i] == 0;
    uint32_t bad_steps = 0, bad_ids = 0;
    for (uint32_t i = 0; i < t->len; i++)
        bad_steps += !is_successor(img, t->vectors + (size_t)i * w, t->labels[i], t->vectors + (size_t)(i + 1) * w);
    for (uint32_t i = 0; i <= t->len && res->vectors; i++)
        bad_ids += t->states[i] >= res->states || memcmp(res->vectors + t->states[i] * w, t->vectors + (size_t)i * w, w * 4);
    struct succs o = { 0 };
    nv_succ(img, t->vectors + (size_t)t->len * w, &o);
    int end_ok = kind == VIOLATION_DEADLOCK ? o.n == 0 && res->violation_state == t->states[t->len]
                                            : opt->action_match[t->labels[t->len - 1]]
                                                  && res->violation_state == t->states[t->len - 1];
    free(o.rec);
    qcheck(ok && zero && bad_steps == 0 && bad_ids == 0 && end_ok,
          "%s: trace replays (start %d/%d, bad steps %u, bad ids %u, end %d; seed %llu)", what, ok, zero,
          bad_steps, bad_ids, end_ok, seed);
}

/* ======================================================================
 * One random image through everything.
 * ====================================================================== */

static const unsigned thread_counts[] = { 1, 2, 4, 7 };
#define TEST_MEMORY (64ull << 20)

static int run(int cpu, unsigned threads, const struct image *img, struct explore_options *opt,
               struct explore_result *res, struct wx_error *err)
{
    opt->threads = threads;
    return cpu ? explore_cpu(img, opt, res, err) : explore_seq(img, opt, res, err);
}

static void test_image(const struct image *img, const struct ref *r, uint64_t *rng, unsigned idx)
{
    char what[160];
    struct wx_error err;
    struct explore_result res;

    /* Successors of every reachable state, against the reference, with
     * both class-merging strategies, sorted and unordered (hash-deduplicated,
     * hashes reused by explore_cpu's table lookups). */
    struct succ_gen g;
    struct succs o = { 0 };
    uint64_t diff = 0, bad_hash = 0;
    for (int mode = 0; mode < 4; mode++) {
        if (!qcheck(succ_init(&g, img, &err) == WX_OK, "image %u: succ_init", idx))
            continue;
        g.strategy = (mode & 1) ? SUCC_COUNTING : SUCC_HEAP;
        g.unordered = mode >= 2;
        for (uint64_t i = 0; i < r->n; i++) {
            nv_succ(img, r->vec + i * r->words, &o);
            if (succ_expand(&g, r->vec + i * r->words, &err) != WX_OK || g.n != o.n) {
                diff++;
                continue;
            }
            for (size_t k = 0; g.unordered && k < g.n; k++)
                bad_hash += g.hash[k] != vtable_hash(succ_vector(&g, k), img->words);
            struct succs mine = { .words = img->words };
            for (size_t k = 0; k < g.n; k++)
                sc_add(&mine, succ_label(&g, k), succ_vector(&g, k));
            sc_sort_unique(&mine);
            if (mine.n != o.n || (o.n && memcmp(mine.rec, o.rec, (size_t)o.n * (o.words + 1) * 4)))
                diff++;
            free(mine.rec);
        }
        succ_free(&g);
    }
    free(o.rec);
    QCHECK_EQ_U64(diff, 0, "image %u: successors == reference on %llu states, sorted and unordered (seed %llu)",
                 idx, (unsigned long long)r->n, seed);
    QCHECK_EQ_U64(bad_hash, 0, "image %u: unordered mode's hashes equal vtable_hash (seed %llu)", idx, seed);

    /* Full explorations: seq and cpu x threads, vectors and sinks; flat,
     * and tree-compressed for seq, cpu/2 and cpu/7 (seq's ids must be the
     * same with either store: it is deterministic). */
    uint32_t *seq_flat = NULL;
    for (int tree = 0; tree <= 1; tree++)
    for (int cpu = 0; cpu <= 1; cpu++)
        for (unsigned ti = 0; ti < (cpu ? 4u : 1u); ti++) {
            if (tree && cpu && ti % 2 == 0)
                continue;
            struct sink_rec s = { .m = PTHREAD_MUTEX_INITIALIZER };
            struct edge_sink sink = { sink_emit, &s };
            struct explore_options opt = { .memory_bytes = TEST_MEMORY, .keep_vectors = true, .sink = &sink,
                                           .store = tree ? STORE_TREE : STORE_FLAT };
            snprintf(what, sizeof what, "image %u %s/%u%s", idx, cpu ? "cpu" : "seq", thread_counts[ti],
                     tree ? " tree" : "");
            int rc = run(cpu, thread_counts[ti], img, &opt, &res, &err);
            if (!qcheck(rc == WX_OK, "%s: explores (rc %d: %s)", what, rc, err.msg))
                continue;
            qcheck(res.complete && res.violation == VIOLATION_NONE, "%s: complete, no violation", what);
            QCHECK_EQ_U64(res.states, r->n, "%s: states (seed %llu)", what, seed);
            QCHECK_EQ_U64(res.transitions, r->transitions, "%s: transitions (seed %llu)", what, seed);
            QCHECK_EQ_U64(res.deadlocks, r->deadlocks, "%s: deadlocks (seed %llu)", what, seed);
            QCHECK_EQ_U64(res.depth, r->depth, "%s: depth (seed %llu)", what, seed);
            check_vectors(img, r, &res, what);
            check_edges(img, &res, &s, what);
            if (!cpu && !tree && res.vectors)
                seq_flat = malloc(res.states * img->words * 4),
                memcpy(seq_flat, res.vectors, res.states * img->words * 4);
            if (!cpu && tree)
                qcheck(seq_flat && res.vectors && !memcmp(seq_flat, res.vectors, res.states * img->words * 4),
                       "%s: the same ids as seq flat (seed %llu)", what, seed);
            qcheck(!strcmp(res.store, tree && img->words > 2 ? "tree" : "flat"), "%s: store reported", what);
            explore_result_free(&res);
            free(s.e);
        }
    free(seq_flat);

    /* Violations: deadlocks and/or a random flagged label, with traces. */
    uint8_t *act = calloc(img->n_labels + 1, 1);
    act[rnd(rng, img->n_labels)] = 1;
    for (int variant = 0; variant < 3; variant++) {
        for (unsigned run_i = 0; run_i < 7; run_i++) {
            /* runs 5 and 6: seq and cpu/4 with the tree store */
            const int tree = run_i >= 5;
            int cpu = run_i > 0 && run_i != 5;
            unsigned th = tree ? (cpu ? 4 : 1) : cpu ? thread_counts[run_i - 1] : 1;
            struct explore_options opt = {
                .memory_bytes = TEST_MEMORY, .trace = variant != 2 || run_i % 2, .keep_vectors = true,
                .stop_on_deadlock = variant != 1, .action_match = variant ? act : NULL,
                .store = tree ? STORE_TREE : STORE_FLAT,
            };
            snprintf(what, sizeof what, "image %u violation variant %d %s/%u%s", idx, variant,
                     cpu ? "cpu" : "seq", th, tree ? " tree" : "");
            int rc = run(cpu, th, img, &opt, &res, &err);
            if (!qcheck(rc == WX_OK, "%s: returns WX_OK (rc %d: %s)", what, rc, err.msg))
                continue;
            check_violation(img, r, &opt, &res, what);
            explore_result_free(&res);
        }
    }
    free(act);

    /* A budget of fewer states than reachable: WX_ELIMIT, partial counts. */
    if (r->n >= 4) {
        uint64_t k = 1 + rnd(rng, (uint32_t)(r->n - 2));
        for (unsigned run_i = 0; run_i < 5; run_i++) {
            /* runs 3 and 4: seq and cpu/2 with the tree store, whose roots
             * may take the whole budget (a few states' worth, at least 8,
             * leaves room for the first state's nodes) */
            const int tree = run_i >= 3;
            if (tree && (img->words <= 2 || k < 8))
                continue;
            int cpu = run_i == 1 || run_i == 2 || run_i == 4;
            int tr = rnd(rng, 2);
            struct explore_options opt = { .trace = tr, .keep_vectors = true,
                                           .store = tree ? STORE_TREE : STORE_FLAT };
            opt.memory_bytes = k * ((tree ? ptable_bytes_per_pair() : vtable_bytes_per_state(img->words)) + (tr ? 12 : 0));
            snprintf(what, sizeof what, "image %u budget of %llu states %s/%u%s", idx, (unsigned long long)k,
                     cpu ? "cpu" : "seq", cpu ? thread_counts[run_i % 3] : 1, tree ? " tree" : "");
            int rc = run(cpu, cpu ? thread_counts[run_i % 3] : 1, img, &opt, &res, &err);
            qcheck(rc == WX_ELIMIT && !res.complete && res.states <= k && res.states > 0
                      && res.transitions <= r->transitions,
                  "%s: WX_ELIMIT with partial counts (rc %d, complete %d, states %llu; seed %llu)", what, rc,
                  res.complete, (unsigned long long)res.states, seed);
            explore_result_free(&res);
        }
    }
}

static void test_random(unsigned want)
{
    uint64_t rng = seed;
    unsigned done = 0, rejected = 0, attempts = 0;
    uint64_t total_states = 0, max_words = 0, multi_mask = 0;
    struct tb *b = malloc(sizeof *b);
    while (done < want && attempts < want * 20) {
        attempts++;
        tb_random(b, &rng);
        struct image img;
        tb_build(b, &img, &rng);
        struct wx_error err;
        if (!qcheck(image_check(&img, &err) == WX_OK, "random image %u is well-formed: %s (seed %llu)",
                   attempts, err.msg, seed)) {
            image_free(&img);
            continue;
        }
        struct ref r;
        ref_explore(&img, &r, 3000);
        if (r.too_big) {
            rejected++;
        } else {
            int before = check_failures;
            unsigned long passes = quiet_passes;
            test_image(&img, &r, &rng, done);
            check(check_failures == before, "random image %u (%u components, %u words, %llu states): %lu checks",
                  done, img.n_comps, img.words, (unsigned long long)r.n, quiet_passes - passes);
            done++;
            total_states += r.n;
            if (img.words > max_words)
                max_words = img.words;
            multi_mask += img.mask_words > 1;
        }
        ref_free(&r);
        image_free(&img);
    }
    free(b);
    check(done == want, "random images: %u tested (%u too large skipped), %llu states in all, "
          "up to %llu words, %llu with > 32 components (seed %llu)", done, rejected,
          (unsigned long long)total_states, (unsigned long long)max_words, (unsigned long long)multi_mask, seed);
}

/* ======================================================================
 * Hand-made images with known answers.
 * ====================================================================== */

static void explore_both(const struct image *img, const char *name, uint64_t states, uint64_t trans,
                         uint64_t deadlocks)
{
    for (unsigned i = 0; i < 3; i++) {
        struct explore_options opt = { .memory_bytes = TEST_MEMORY, .threads = i == 2 ? 3 : 0 };
        struct explore_result res;
        struct wx_error err;
        int rc = i == 0 ? explore_seq(img, &opt, &res, &err)
               : i == 1 ? explore_run(EXPLORE_AUTO, img, &opt, &res, &err)
                        : explore_cpu(img, &opt, &res, &err);
        const char *be = i == 0 ? "seq" : i == 1 ? "auto" : "cpu/3";
        if (!check(rc == WX_OK, "%s %s: explores (%s)", name, be, err.msg))
            continue;
        CHECK_EQ_U64(res.states, states, "%s %s: states", name, be);
        CHECK_EQ_U64(res.transitions, trans, "%s %s: transitions", name, be);
        CHECK_EQ_U64(res.deadlocks, deadlocks, "%s %s: deadlocks", name, be);
        check(res.complete, "%s %s: complete", name, be);
        explore_result_free(&res);
    }
}

static void test_known(void)
{
    uint64_t rng = seed ^ 0x5555;
    struct tb *b = calloc(1, sizeof *b);
    struct image img;

    /* Three independent cycles of 2, 3 and 4 states: 24 states, each with
     * 3 successors.  A fourth, 1-state component (a 0-width field) with a
     * self-loop adds one transition per state back to the state itself. */
    uint32_t sizes[4] = { 2, 3, 4, 1 };
    b->n = 4, b->n_labels = 4;
    for (uint32_t c = 0; c < 4; c++) {
        b->states[c] = sizes[c];
        b->width[c] = bits_for(sizes[c] - 1);
        for (uint32_t s = 0; s < sizes[c]; s++)
            tb_add(b, c, s, 0, c, (s + 1) % sizes[c]);
    }
    tb_build(b, &img, &rng);
    check(img.first_bit[4] - img.first_bit[3] == 0, "cycles: last field has width 0");
    explore_both(&img, "cycles 2x3x4 + 1-state self-loop", 24, 24 * 4, 0);
    image_free(&img);

    /* Straddling fields: chains of 20 and 100 states in fields of 5 and 7
     * bits that cross word boundaries (bits 30..34 and 62..68), behind wide
     * 1-state components. */
    memset(b, 0, sizeof *b);
    b->n = 5, b->n_labels = 5;
    uint32_t widths[5] = { 30, 5, 27, 7, 3 };
    uint32_t st[5] = { 1, 20, 1, 100, 2 };
    for (uint32_t c = 0; c < 5; c++) {
        b->states[c] = st[c];
        b->width[c] = widths[c];
        for (uint32_t s = 0; s < st[c]; s++)
            if (st[c] > 1)
                tb_add(b, c, s, 0, c, s + 1 < st[c] ? s + 1 : s); /* chain ending in a self-loop */
    }
    tb_build(b, &img, &rng);
    check(img.first_bit[1] == 30 && img.first_bit[2] == 35 && img.first_bit[3] == 62 && img.first_bit[4] == 69,
          "straddle: fields at 30..34 and 62..68 cross words");
    /* 20 * 100 * 2 states; each has 3 successors with distinct labels. */
    explore_both(&img, "straddling chains", 4000, 12000, 0);
    image_free(&img);

    /* One class with >= 3 entries per participant: act_bits 31 leaves
     * 32 bits, slots of 8 bits: 4 per entry, but max_per_entry 1 puts one
     * target in each.  Two components sync on class 0; c0 has 4 targets
     * from state 0, c1 has 3: 12 successors, all deadlocks. */
    memset(b, 0, sizeof *b);
    b->n = 2, b->n_labels = 1, b->n_classes = 1, b->act_bits = 31, b->max_per_entry = 1;
    b->states[0] = 5, b->states[1] = 4;
    b->width[0] = 3, b->width[1] = 2;
    b->sbits[0] = b->sbits[1] = 8;
    for (uint32_t t = 1; t <= 4; t++)
        tb_add(b, 0, 0, 1, 0, t);
    for (uint32_t t = 1; t <= 3; t++)
        tb_add(b, 1, 0, 1, 0, t);
    uint32_t both[2] = { 0, 1 };
    tb_rule(b, 0, 2, both);
    tb_build(b, &img, &rng);
    uint32_t e0 = img.state_offsets[1] - img.state_offsets[0];
    check(e0 == 4, "many entries: component 0 has 4 class-0 entries in state 0 (found %u)", e0);
    explore_both(&img, "4 x 3 entries of one class", 13, 12, 12);
    image_free(&img);

    /* > 32 components: 40 two-state components; rule {3, 37} on class 0,
     * rule {3, 37, 39} on class 0 too (same label; c39 self-loop makes its
     * successor a duplicate of the first rule's), and class 1 {0, 33}. */
    memset(b, 0, sizeof *b);
    b->n = 40, b->n_labels = 3, b->n_classes = 2;
    b->class_result[0] = 1, b->class_result[1] = 2;
    for (uint32_t c = 0; c < 40; c++)
        b->states[c] = 2, b->width[c] = 1;
    tb_add(b, 3, 0, 1, 0, 1);
    tb_add(b, 37, 0, 1, 0, 1);
    tb_add(b, 39, 0, 1, 0, 0);
    tb_add(b, 0, 0, 1, 1, 1);
    tb_add(b, 33, 0, 1, 1, 1);
    uint32_t r1[2] = { 3, 37 }, r2[3] = { 3, 37, 39 }, r3[2] = { 0, 33 };
    tb_rule(b, 0, 2, r1);
    tb_rule(b, 0, 3, r2);
    tb_rule(b, 1, 2, r3);
    tb_build(b, &img, &rng);
    check(img.mask_words == 2, "40 components: 2 mask words");
    /* Two independent one-shot syncs: 4 states, 4 transitions, 1 deadlock. */
    explore_both(&img, "40 components, duplicate rule successors", 4, 4, 1);
    image_free(&img);

    /* No component at all: one state, a deadlock. */
    memset(b, 0, sizeof *b);
    b->n_labels = 1;
    tb_build(b, &img, &rng);
    explore_both(&img, "no components", 1, 0, 1);
    image_free(&img);
    free(b);
}

/* A deadlock of depth d beats an action violation from depth d (its trace
 * is shorter) even when the action's source is expanded first: initial
 * state -a-> A (id 1), -b-> B (id 2); A -flag-> C; B is a deadlock. */
static void test_deadlock_beats_action(void)
{
    uint64_t rng = seed;
    struct tb *b = calloc(1, sizeof *b);
    struct image img;
    b->n = 1, b->n_labels = 3;
    b->states[0] = 4, b->width[0] = 2;
    tb_add(b, 0, 0, 0, 0, 1);
    tb_add(b, 0, 0, 0, 1, 2);
    tb_add(b, 0, 1, 0, 2, 3);
    tb_add(b, 0, 3, 0, 0, 3);
    tb_build(b, &img, &rng);
    const uint8_t flag[3] = { 0, 0, 1 };
    for (unsigned i = 0; i < 4; i++) {
        struct explore_options opt = { .memory_bytes = TEST_MEMORY, .threads = i, .trace = true,
                                       .stop_on_deadlock = true, .action_match = flag };
        struct explore_result res;
        struct wx_error err;
        int rc = i == 0 ? explore_seq(&img, &opt, &res, &err) : explore_cpu(&img, &opt, &res, &err);
        /* States by their vectors, not ids: explore_cpu numbers A and B in
         * generation order, which follows tb_build's shuffled entries. */
        const uint32_t w = img.words;
        check(rc == WX_OK && res.violation == VIOLATION_DEADLOCK && res.trace.len == 1 && res.trace.labels[0] == 1
                  && res.trace.vectors[w] == 2 && res.violation_state == res.trace.states[1],
              "deadlock beats a same-level action: %s/%u (violation %d, len %u)", i ? "cpu" : "seq", i,
              (int)res.violation, res.trace.len);
        explore_result_free(&res);
        opt.stop_on_deadlock = false;
        rc = i == 0 ? explore_seq(&img, &opt, &res, &err) : explore_cpu(&img, &opt, &res, &err);
        check(rc == WX_OK && res.violation == VIOLATION_ACTION && res.trace.len == 2
                  && res.violation_state == res.trace.states[1] && res.trace.labels[0] == 0
                  && res.trace.labels[1] == 2 && res.trace.vectors[w] == 1 && res.trace.vectors[2 * w] == 3,
              "without --deadlock the action is reported: %s/%u", i ? "cpu" : "seq", i);
        explore_result_free(&res);
    }
    image_free(&img);
    free(b);
}

static void test_bad(void)
{
    uint64_t rng = seed;
    struct tb *b = calloc(1, sizeof *b);
    struct image img;
    struct explore_result res;
    struct wx_error err;
    b->n = 2, b->n_labels = 1, b->n_classes = 1;
    b->states[0] = 2, b->states[1] = 2, b->width[0] = b->width[1] = 1;
    tb_add(b, 0, 0, 1, 0, 1);
    tb_add(b, 1, 0, 1, 0, 1);
    uint32_t both[2] = { 0, 1 };
    tb_rule(b, 0, 2, both);
    tb_build(b, &img, &rng);
    check(image_check(&img, &err) == WX_OK, "bad: base image is fine");

    uint64_t keep = img.trans[0];
    img.trans[0] = keep | (uint64_t)3 << (1 + img.act_bits); /* target 2 of a 2-state component */
    check(explore_seq(&img, NULL, &res, &err) == WX_EINPUT, "bad: target out of range rejected (%s)", err.msg);
    check(explore_cpu(&img, NULL, &res, &err) == WX_EINPUT, "bad: cpu rejects it too");
    img.trans[0] = (keep & ~((1ull << (1 + img.act_bits)) - 2)) | (uint64_t)1 << 1; /* class 1 of 1 */
    check(image_check(&img, &err) == WX_EINPUT, "bad: class id out of range rejected (%s)", err.msg);
    img.trans[0] = keep;
    img.first_bit[2] = 40;
    check(image_check(&img, &err) == WX_EINPUT, "bad: field beyond the vector rejected (%s)", err.msg);
    img.first_bit[2] = 2;
    img.rule_mask[0] |= 4;
    check(image_check(&img, &err) == WX_EINPUT, "bad: rule naming a missing component rejected (%s)",
          err.msg);
    img.rule_mask[0] = 3;
    img.words = 0;
    check(image_check(&img, &err) == WX_EINPUT, "bad: zero words rejected");
    img.words = 1;
    check(image_check(&img, &err) == WX_OK, "bad: restored image is fine");
    /* A budget below one state. */
    struct explore_options opt = { .memory_bytes = 3 };
    check(explore_seq(&img, &opt, &res, &err) == WX_ELIMIT && res.states == 0 && !res.complete,
          "budget below one state: seq WX_ELIMIT, 0 states");
    check(explore_cpu(&img, &opt, &res, &err) == WX_ELIMIT && res.states == 0 && !res.complete,
          "budget below one state: cpu WX_ELIMIT, 0 states");
    /* A failing sink aborts with its code. */
    struct sink_rec s = { .m = PTHREAD_MUTEX_INITIALIZER, .fail_after = 1 };
    struct edge_sink sink = { sink_emit, &s };
    opt = (struct explore_options){ .sink = &sink, .memory_bytes = TEST_MEMORY };
    check(explore_cpu(&img, &opt, &res, &err) == WX_ESYSTEM && !res.complete, "failing sink: cpu stops with its code");
    explore_result_free(&res);
    s.n = 0;
    check(explore_seq(&img, &opt, &res, &err) == WX_ESYSTEM && !res.complete, "failing sink: seq stops with its code");
    explore_result_free(&res);
    free(s.e);
    image_free(&img);
    free(b);
}

/* Growth of the parallel table across many levels, with more states than
 * the table's first slot array holds: a product of cycles. */
static void test_growth(void)
{
    uint64_t rng = seed;
    struct tb *b = calloc(1, sizeof *b);
    struct image img;
    b->n = 5, b->n_labels = 2;
    uint32_t sz[5] = { 7, 9, 11, 13, 5 };
    for (uint32_t c = 0; c < 5; c++) {
        b->states[c] = sz[c], b->width[c] = bits_for(sz[c] - 1);
        for (uint32_t s = 0; s < sz[c]; s++) {
            tb_add(b, c, s, 0, 0, (s + 1) % sz[c]);
            if (c == 3)
                tb_add(b, c, s, 0, 1, (s + 2) % sz[c]);
        }
    }
    tb_build(b, &img, &rng);
    uint64_t n = 7 * 9 * 11 * 13 * 5;
    explore_both(&img, "product of cycles 7x9x11x13x5", n, n * 6, 0);
    for (unsigned th = 1; th <= 8; th *= 2) {
        struct explore_options opt = { .threads = th, .memory_bytes = TEST_MEMORY, .keep_vectors = true,
                                       .trace = true, .action_match = (const uint8_t *)"\0\1" };
        struct explore_result res;
        struct wx_error err;
        /* The label-1 transition is enabled in the initial state. */
        int rc = explore_cpu(&img, &opt, &res, &err);
        check(rc == WX_OK && res.violation == VIOLATION_ACTION && res.trace.len == 1,
              "growth model cpu/%u: action found at depth 0", th);
        explore_result_free(&res);
    }
    image_free(&img);
    free(b);
}

static uint32_t vec_words; /* cmp_vec's width */

static int cmp_vec(const void *a, const void *b)
{
    return memcmp(a, b, vec_words * sizeof(uint32_t));
}

/* The tree store through many growths: a product of cycles, 45045 states,
 * in vectors of `words` words (fields of the given widths), explored by seq
 * and cpu on 1 .. 8 threads, keyed roots (no sink) and id roots (a sink),
 * with budgets from roomy to just enough; the state set must equal seq
 * flat's, and seq tree's ids too.  With 4 words of 20-bit fields the root
 * table grows; with 3 words where the first pair spans every field, the
 * node table grows too (while workers are in mid-expansion). */
static void test_growth_tree(const uint32_t width[5], uint32_t words)
{
    uint64_t rng = seed ^ 0x7777;
    struct tb *b = calloc(1, sizeof *b);
    struct image img;
    b->n = 5, b->n_labels = 2;
    uint32_t sz[5] = { 7, 9, 11, 13, 5 };
    for (uint32_t c = 0; c < 5; c++) {
        b->states[c] = sz[c], b->width[c] = width[c];
        for (uint32_t s = 0; s < sz[c]; s++) {
            tb_add(b, c, s, 0, 0, (s + 1) % sz[c]);
            if (c == 3)
                tb_add(b, c, s, 0, 1, (s + 2) % sz[c]);
        }
    }
    tb_build(b, &img, &rng);
    const uint64_t n = 7 * 9 * 11 * 13 * 5;
    const uint32_t w = img.words;
    check(w == words, "tree growth model: %u words per state (%u)", words, w);
    struct explore_options fo = { .memory_bytes = TEST_MEMORY, .keep_vectors = true };
    struct explore_result flat, res;
    struct wx_error err;
    if (!check(explore_seq(&img, &fo, &flat, &err) == WX_OK && flat.states == n, "tree growth model: seq flat"))
        return;
    uint32_t *sorted = malloc(n * w * 4);
    memcpy(sorted, flat.vectors, n * w * 4);
    vec_words = w;
    qsort(sorted, n, w * 4, cmp_vec);
    static const uint64_t budgets[] = { 64ull << 20, 8ull << 20, 4ull << 20 };
    for (int bi = 0; bi < 3; bi++)
        for (unsigned th = 0; th <= 8; th = th ? th * 2 : 1)
            for (int with_sink = 0; with_sink <= 1; with_sink++) {
                struct sink_rec sr = { .m = PTHREAD_MUTEX_INITIALIZER };
                struct edge_sink sink = { sink_emit, &sr };
                struct explore_options opt = { .threads = th, .memory_bytes = budgets[bi], .keep_vectors = true,
                                               .store = STORE_TREE, .sink = with_sink ? &sink : NULL };
                int rc = th ? explore_cpu(&img, &opt, &res, &err) : explore_seq(&img, &opt, &res, &err);
                char what[128];
                snprintf(what, sizeof what, "tree growth %uw %s/%u, %llu MiB%s", w, th ? "cpu" : "seq", th,
                         (unsigned long long)(budgets[bi] >> 20), with_sink ? ", sink" : "");
                int same = 0;
                if (rc == WX_OK && res.states == n && res.vectors) {
                    if (!th) {
                        same = !memcmp(res.vectors, flat.vectors, n * w * 4);
                    } else {
                        qsort(res.vectors, n, w * 4, cmp_vec);
                        same = !memcmp(res.vectors, sorted, n * w * 4);
                    }
                }
                check(rc == WX_OK && res.complete && same && res.transitions == flat.transitions &&
                      res.depth == flat.depth && (!with_sink || sr.n == flat.transitions) && !strcmp(res.store, "tree"),
                      "%s: rc %d, %llu states, %llu transitions, %llu edges, depth %u, %s vectors as seq flat "
                      "(%.1f bytes/state)", what, rc, (unsigned long long)res.states,
                      (unsigned long long)res.transitions, (unsigned long long)sr.n, res.depth,
                      same ? "same" : "OTHER", res.states ? (double)res.bytes / res.states : 0.0);
                explore_result_free(&res);
                free(sr.e);
            }
    /* A budget the roots outgrow: exit code 3's WX_ELIMIT, partial counts. */
    struct explore_options small = { .threads = 2, .memory_bytes = 1ull << 20, .store = STORE_TREE };
    int rc = explore_cpu(&img, &small, &res, &err);
    check(rc == WX_ELIMIT && !res.complete && res.states > 0 && res.states < n && strstr(err.msg, "tree store"),
          "tree growth %uw, 1 MiB: WX_ELIMIT after %llu states: %s", w, (unsigned long long)res.states, err.msg);
    explore_result_free(&res);
    free(sorted);
    explore_result_free(&flat);
    image_free(&img);
    free(b);
}

int main(void)
{
    const char *s = getenv("WX_SEED");
    if (s)
        seed = strtoull(s, NULL, 0);
    unsigned images = 200;
    if ((s = getenv("WX_IMAGES")))
        images = (unsigned)strtoul(s, NULL, 0);
    printf("# test_explore seed %llu, %u random images (set WX_SEED / WX_IMAGES to change)\n", seed, images);
    test_known();
    test_deadlock_beats_action();
    test_bad();
    test_growth();
    static const uint32_t wide[5] = { 20, 20, 20, 20, 20 }, spanning[5] = { 14, 14, 14, 14, 20 };
    test_growth_tree(wide, 4);
    test_growth_tree(spanning, 3);
    test_random(images);
    return check_exit();
}
