/*
 * successors.c -- the successor generator (semantics in successors.h).
 */
#include "successors.h"
#include "../hash/vtable.h"

#include <stdlib.h>
#include <string.h>

static void fast_init(struct succ_gen *g);

/* The most classes one component state may offer for the fast path (it
 * visits every offer; the general path's strategies skip lone ones). */
#define FAST_MAX_GROUPS 16u
/* The most memory one generator's fast-path tables may take. */
#define FAST_MAX_BYTES (64u << 20)

/* Below this many records an insertion sort beats qsort_r's call overhead. */
#define SMALL_SORT 24

/* ---- set-up ---- */

int succ_init(struct succ_gen *g, const struct image *img, struct wx_error *err)
{
    memset(g, 0, sizeof *g);
    const uint32_t n = img->n_comps;
    g->img = img;
    g->words = img->words;
    g->stride = img->words + 1;

    /* Few classes (relative to components): counting sort; many: heap. */
    g->strategy = img->n_classes <= 16u * n + 64 ? SUCC_COUNTING : SUCC_HEAP;
    /* The most groups one state can have: per component, the most sync
     * entries in one segment (each entry starts at most one group). */
    size_t max_groups = 0;
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t *so = img->state_offsets + img->proc_offsets[c];
        uint32_t most = 0;
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            uint32_t k = 0;
            for (uint32_t i = so[s]; i < so[s + 1]; i++)
                k += image_entry_is_sync(img->trans[i]);
            if (k > most)
                most = k;
        }
        max_groups += most;
    }
    size_t parts = 0;
    for (size_t i = 0; i < (size_t)img->n_rules * img->mask_words; i++)
        parts += (size_t)__builtin_popcount(img->rule_mask[i]);

    g->cap = 16;
    g->rec = malloc(g->cap * g->stride * 4);
    g->rec2 = malloc(g->cap * g->stride * 4);
    g->hash = malloc(g->cap * sizeof *g->hash);
    g->order_cap = 16;
    g->order = malloc(g->order_cap * sizeof *g->order);
    g->groups = malloc(((size_t)n + 1) * sizeof *g->groups);
    g->group_of = malloc(((size_t)n + 1) * sizeof *g->group_of);
    g->run_comp = malloc(((size_t)n + 1) * sizeof *g->run_comp);
    g->run_pos = malloc(((size_t)n + 1) * sizeof *g->run_pos);
    g->run_end = malloc(((size_t)n + 1) * sizeof *g->run_end);
    g->run_key = malloc(((size_t)n + 1) * sizeof *g->run_key);
    g->cut = malloc((max_groups + 1) * sizeof *g->cut);
    g->sorted = malloc((max_groups + 1) * sizeof *g->sorted);
    g->class_count = calloc((size_t)img->n_classes + 1, sizeof *g->class_count);
    g->class_start = malloc(((size_t)img->n_classes + 1) * sizeof *g->class_start);
    g->heap = malloc(((size_t)n + 1) * sizeof *g->heap);
    g->present = calloc((size_t)img->mask_words + 1, sizeof *g->present);
    g->targets_cap = 64;
    g->targets = malloc(g->targets_cap * sizeof *g->targets);
    g->rule_part_start = malloc(((size_t)img->n_rules + 1) * sizeof *g->rule_part_start);
    g->rule_part = malloc((parts + 1) * sizeof *g->rule_part);
    g->parts = malloc(((size_t)n + 1) * sizeof *g->parts);
    g->odo = malloc(((size_t)n + 1) * sizeof *g->odo);
    g->cur = malloc((size_t)g->words * sizeof *g->cur);
    if (!g->rec || !g->rec2 || !g->hash || !g->order || !g->groups || !g->group_of || !g->run_comp || !g->run_pos
        || !g->run_end || !g->run_key || !g->cut || !g->sorted || !g->class_count || !g->class_start || !g->heap || !g->present || !g->targets
        || !g->rule_part_start || !g->rule_part || !g->parts || !g->odo || !g->cur) {
        succ_free(g);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "successor generator: out of memory");
    }
    size_t p = 0;
    for (uint32_t r = 0; r < img->n_rules; r++) {
        g->rule_part_start[r] = (uint32_t)p;
        for (uint32_t w = 0; w < img->mask_words; w++)
            for (uint32_t m = img->rule_mask[(size_t)r * img->mask_words + w]; m; m &= m - 1)
                g->rule_part[p++] = w * 32 + (uint32_t)__builtin_ctz(m);
    }
    g->rule_part_start[img->n_rules] = (uint32_t)p;
    fast_init(g);
    return WX_OK;
}

static void fast_free(struct succ_fast *f);

void succ_free(struct succ_gen *g)
{
    fast_free(g->fast);
    free(g->rec);
    free(g->rec2);
    free(g->hash);
    free(g->dd);
    free(g->order);
    free(g->groups);
    free(g->group_of);
    free(g->run_comp);
    free(g->run_pos);
    free(g->run_end);
    free(g->run_key);
    free(g->cut);
    free(g->sorted);
    free(g->class_count);
    free(g->class_start);
    free(g->heap);
    free(g->present);
    free(g->targets);
    free(g->rule_part_start);
    free(g->rule_part);
    free(g->parts);
    free(g->odo);
    free(g->cur);
    memset(g, 0, sizeof *g);
}

/* ---- output ---- */

static int grow_output(struct succ_gen *g, struct wx_error *err)
{
    size_t cap = g->cap * 2;
    uint32_t *a = realloc(g->rec, cap * g->stride * 4);
    if (a)
        g->rec = a;
    uint32_t *b = a ? realloc(g->rec2, cap * g->stride * 4) : NULL;
    if (b)
        g->rec2 = b;
    uint64_t *h = b ? realloc(g->hash, cap * sizeof *h) : NULL;
    if (h)
        g->hash = h;
    if (!a || !b || !h)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "out of memory: a state has more than %zu successors", g->cap);
    g->cap = cap;
    return WX_OK;
}

static inline int emit(struct succ_gen *g, uint32_t label, const uint32_t *vec, struct wx_error *err)
{
    if (g->n == g->cap && grow_output(g, err))
        return WX_ELIMIT;
    uint32_t *r = g->rec + g->n * g->stride;
    r[0] = label;
    /* A few words: a loop beats the call to memcpy. */
    for (uint32_t w = 0; w < g->words; w++)
        r[1 + w] = vec[w];
    g->n++;
    return WX_OK;
}

/* Orders records by label, then vector bytes. */
static inline int rec_cmp(const uint32_t *a, const uint32_t *b, uint32_t words)
{
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return memcmp(a + 1, b + 1, (size_t)words * 4);
}

static int order_cmp(const void *x, const void *y, void *ctx)
{
    const struct succ_gen *g = ctx;
    return rec_cmp(g->rec + (size_t)*(const uint32_t *)x * g->stride,
                   g->rec + (size_t)*(const uint32_t *)y * g->stride, g->words);
}

/* Sorts the records and drops duplicates. */
static int sort_unique(struct succ_gen *g, struct wx_error *err)
{
    const size_t n = g->n, st = g->stride;
    if (n < 2)
        return WX_OK;
    if (n > UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "a state has more than 2^32 successors");
    if (n > g->order_cap) {
        size_t cap = g->order_cap;
        while (cap < n)
            cap *= 2;
        uint32_t *o = realloc(g->order, cap * sizeof *o);
        if (!o)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory sorting %zu successors", n);
        g->order = o, g->order_cap = cap;
    }
    uint32_t *o = g->order;
    for (size_t i = 0; i < n; i++)
        o[i] = (uint32_t)i;
    if (n <= SMALL_SORT) {
        for (size_t i = 1; i < n; i++) {
            uint32_t x = o[i];
            size_t j = i;
            while (j > 0 && rec_cmp(g->rec + (size_t)o[j - 1] * st, g->rec + (size_t)x * st, g->words) > 0) {
                o[j] = o[j - 1];
                j--;
            }
            o[j] = x;
        }
    } else {
        qsort_r(o, n, sizeof *o, order_cmp, g);
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t *r = g->rec + (size_t)o[i] * st;
        if (m && rec_cmp(g->rec2 + (m - 1) * st, r, g->words) == 0)
            continue;
        memcpy(g->rec2 + m * st, r, st * 4);
        m++;
    }
    uint32_t *t = g->rec;
    g->rec = g->rec2, g->rec2 = t;
    g->n = m;
    return WX_OK;
}

/* Unordered mode: hashes every record and drops duplicates, keeping the
 * first of each in generation order.  Few records (the common case): all
 * pairs are compared by hash first -- a few dozen 64-bit compares, no
 * sorting, no calls.  Many: an open-addressing set of record indices. */
#define SMALL_UNIQUE 32

static inline int rec_same(const uint32_t *a, const uint32_t *b, uint32_t stride)
{
    uint32_t d = 0;
    for (uint32_t i = 0; i < stride; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

static int hash_unique(struct succ_gen *g, struct wx_error *err)
{
    const size_t n = g->n;
    const uint32_t st = g->stride, words = g->words;
    uint32_t *rec = g->rec;
    uint64_t *h = g->hash;
    for (size_t i = 0; i < n; i++)
        h[i] = vtable_hash_inline(rec + i * st + 1, words);
    if (n < 2)
        return WX_OK;
    size_t m = 0;
    if (n <= SMALL_UNIQUE) {
        for (size_t i = 0; i < n; i++) {
            const uint32_t *r = rec + i * st;
            size_t j = 0;
            for (; j < m; j++)
                if (h[j] == h[i] && rec_same(rec + j * st, r, st))
                    break;
            if (j < m)
                continue;
            if (m != i) {
                for (uint32_t w = 0; w < st; w++)
                    rec[m * st + w] = r[w];
                h[m] = h[i];
            }
            m++;
        }
        g->n = m;
        return WX_OK;
    }
    if (n > UINT32_MAX - 1)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "a state has more than 2^32 successors");
    size_t cap = 64;
    while (cap < 2 * n)
        cap *= 2;
    if (cap > g->dd_cap) {
        uint32_t *d = realloc(g->dd, cap * sizeof *d);
        if (!d)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory: %zu successors", n);
        g->dd = d, g->dd_cap = cap;
    }
    uint32_t *d = g->dd;
    memset(d, 0, cap * sizeof *d);
    for (size_t i = 0; i < n; i++) {
        const uint32_t *r = rec + i * st;
        /* The label is mixed in: records that differ only by label must
         * not pile up on one probe chain. */
        size_t k = (size_t)((h[i] ^ (uint64_t)r[0] * 0x9e3779b97f4a7c15ull) >> 7) & (cap - 1);
        int dup = 0;
        for (; d[k]; k = (k + 1) & (cap - 1))
            if (h[d[k] - 1] == h[i] && rec_same(rec + (size_t)(d[k] - 1) * st, r, st)) {
                dup = 1;
                break;
            }
        if (dup)
            continue;
        if (m != i) {
            memcpy(rec + m * st, r, (size_t)st * 4);
            h[m] = h[i];
        }
        d[k] = (uint32_t)(m + 1);
        m++;
    }
    g->n = m;
    return WX_OK;
}

/* ---- synchronisation ---- */

/* Gathers the targets of group gi (all its entries, all filled slots). */
static int gather(struct succ_gen *g, uint32_t c, struct succ_group *gr, size_t *used, struct wx_error *err)
{
    const struct image *img = g->img;
    const uint32_t sb = img->state_bits[c], slots = image_entry_slots(img->act_bits, sb);
    gr->tbegin = (uint32_t)*used;
    for (uint32_t i = gr->begin; i < gr->end; i++) {
        uint64_t e = img->trans[i];
        for (uint32_t k = 0; k < slots; k++) {
            uint32_t t = image_entry_target(e, img->act_bits, sb, k);
            if (t == UINT32_MAX)
                break; /* filled slots come first */
            if (*used == g->targets_cap) {
                uint32_t *a = realloc(g->targets, g->targets_cap * 2 * sizeof *a);
                if (!a)
                    return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "successor generator: out of memory");
                g->targets = a, g->targets_cap *= 2;
            }
            g->targets[(*used)++] = t;
        }
    }
    gr->tcount = (uint32_t)(*used - gr->tbegin);
    return WX_OK;
}

/* Emits the cartesian product of the participants' targets (odometer over
 * g->parts[0..m), the last participant varying fastest). */
static int product(struct succ_gen *g, uint32_t m, uint32_t label, const uint32_t *vec, struct wx_error *err)
{
    struct succ_part *p = g->parts;
    for (uint32_t i = 0; i < m; i++)
        if (p[i].count == 0)
            return WX_OK;
    memcpy(g->cur, vec, (size_t)g->words * 4);
    for (uint32_t i = 0; i < m; i++) {
        g->odo[i] = 0;
        image_set_field(g->cur, p[i].first, p[i].width, p[i].targets[0]);
    }
    for (;;) {
        if (emit(g, label, g->cur, err))
            return WX_ELIMIT;
        uint32_t i = m;
        while (i > 0) {
            i--;
            if (++g->odo[i] < p[i].count) {
                image_set_field(g->cur, p[i].first, p[i].width, p[i].targets[g->odo[i]]);
                break;
            }
            g->odo[i] = 0;
            image_set_field(g->cur, p[i].first, p[i].width, p[i].targets[0]);
            if (i == 0)
                return WX_OK;
        }
        if (m == 0)
            return WX_OK;
    }
}

/* Fires the rules of class k, whose groups (one per offering component)
 * are grp[0 .. nb). */
static int fire_class(struct succ_gen *g, uint32_t k, struct succ_group *grp, uint32_t nb, const uint32_t *vec,
                      struct wx_error *err)
{
    const struct image *img = g->img;
    const uint32_t mw = img->mask_words;
    int rc = WX_OK;
    for (uint32_t x = 0; x < nb; x++) {
        uint32_t c = (uint32_t)grp[x].key;
        g->present[c >> 5] |= 1u << (c & 31);
        g->group_of[c] = (uint32_t)x;
        grp[x].tcount = UINT32_MAX;
    }
    size_t used = 0;
    for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1] && rc == WX_OK; r++) {
        const uint32_t *mask = img->rule_mask + (size_t)r * mw;
        uint32_t missing = 0;
        for (uint32_t w = 0; w < mw; w++)
            missing |= mask[w] & ~g->present[w];
        if (missing)
            continue;
        uint32_t m = 0;
        for (uint32_t q = g->rule_part_start[r]; q < g->rule_part_start[r + 1]; q++) {
            uint32_t c = g->rule_part[q];
            struct succ_group *gr = &grp[g->group_of[c]];
            if (gr->tcount == UINT32_MAX && (rc = gather(g, c, gr, &used, err)))
                break;
            g->parts[m].first = img->first_bit[c];
            g->parts[m].width = img->first_bit[c + 1] - img->first_bit[c];
            g->parts[m].tbegin = gr->tbegin;
            g->parts[m].count = gr->tcount;
            m++;
        }
        if (rc)
            break;
        /* Pointers only now: gathering may have moved g->targets. */
        for (uint32_t i = 0; i < m; i++)
            g->parts[i].targets = g->targets + g->parts[i].tbegin;
        rc = product(g, m, img->class_result[k], vec, err);
    }
    for (uint32_t x = 0; x < nb; x++) {
        uint32_t c = (uint32_t)grp[x].key;
        g->present[c >> 5] &= ~(1u << (c & 31));
    }
    return rc;
}

/* ---- merging the components' class runs ---- */

/* Sets the heap key of run r from its cursor: class << 32 | component,
 * unique per run, so the heap order is total. */
static inline void run_rekey(struct succ_gen *g, uint32_t r)
{
    g->run_key[r] = (uint64_t)image_entry_label(g->img->trans[g->run_pos[r]], g->img->act_bits) << 32
                    | g->run_comp[r];
}

static void heap_down(struct succ_gen *g, uint32_t i, uint32_t n)
{
    uint32_t *h = g->heap;
    const uint64_t *key = g->run_key;
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < n && key[h[l]] < key[h[m]])
            m = l;
        if (l + 1 < n && key[h[l + 1]] < key[h[m]])
            m = l + 1;
        if (m == i)
            return;
        uint32_t t = h[i];
        h[i] = h[m], h[m] = t;
        i = m;
    }
}

/* First entry in [lo, hi) of a class-sorted run whose class is >= k. */
static uint32_t lower_bound_class(const struct image *img, uint32_t lo, uint32_t hi, uint32_t k)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (image_entry_label(img->trans[mid], img->act_bits) < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Visits the classes offered by at least two components, in increasing
 * class order, and fires each.  A class offered by one component alone
 * cannot fire (every sync rule has >= 2 participants, image_check),
 * so when the smallest run's class is below every other run's, that run
 * jumps (binary search) to the next class another run offers: a channel
 * offering hundreds of classes in one state costs a few probes, not one
 * step per class. */
static int fire_classes(struct succ_gen *g, uint32_t nruns, const uint32_t *vec, struct wx_error *err)
{
    const struct image *img = g->img;
    uint32_t *h = g->heap, n = nruns;
    for (uint32_t i = 0; i < n; i++)
        h[i] = i, run_rekey(g, i);
    for (uint32_t i = n / 2; i-- > 0;)
        heap_down(g, i, n);
    while (n > 1) {
        uint32_t r = h[0], k = (uint32_t)(g->run_key[r] >> 32);
        uint32_t k2 = (uint32_t)(g->run_key[h[1]] >> 32);
        if (n > 2 && (uint32_t)(g->run_key[h[2]] >> 32) < k2)
            k2 = (uint32_t)(g->run_key[h[2]] >> 32);
        if (k < k2) {
            /* Only run r offers classes k .. k2-1: skip them. */
            uint32_t p = lower_bound_class(img, g->run_pos[r] + 1, g->run_end[r], k2);
            if (p == g->run_end[r])
                h[0] = h[--n];
            else
                g->run_pos[r] = p, run_rekey(g, r);
            heap_down(g, 0, n);
            continue;
        }
        /* At least two runs are at class k: pop all of them (components
         * come out in increasing order). */
        uint32_t nb = 0;
        while (n > 0 && (uint32_t)(g->run_key[h[0]] >> 32) == k) {
            uint32_t q = h[0], i = g->run_pos[q], j = i + 1;
            while (j < g->run_end[q] && image_entry_label(img->trans[j], img->act_bits) == k)
                j++;
            g->groups[nb++] = (struct succ_group){ .key = g->run_key[q], .begin = i, .end = j };
            g->run_pos[q] = j;
            if (j == g->run_end[q])
                h[0] = h[--n];
            else
                run_rekey(g, q);
            heap_down(g, 0, n);
        }
        if (fire_class(g, k, g->groups, nb, vec, err))
            return WX_ELIMIT;
    }
    return WX_OK;
}

/* The same for images with few classes (SUCC_COUNTING): the runs are cut
 * into groups, counted per class, and a counting sort orders them --
 * O(groups + n_classes) per state, where the heap costs a few comparisons
 * per group (many components, each offering one or two classes). */
static int fire_classes_counting(struct succ_gen *g, uint32_t nruns, const uint32_t *vec, struct wx_error *err)
{
    const struct image *img = g->img;
    uint32_t ng = 0;
    for (uint32_t r = 0; r < nruns; r++)
        for (uint32_t i = g->run_pos[r], end = g->run_end[r]; i < end;) {
            uint32_t k = image_entry_label(img->trans[i], img->act_bits), j = i + 1;
            while (j < end && image_entry_label(img->trans[j], img->act_bits) == k)
                j++;
            g->cut[ng++] = (struct succ_group){ .key = (uint64_t)k << 32 | g->run_comp[r], .begin = i, .end = j };
            g->class_count[k]++;
            i = j;
        }
    /* Prefix sums over the classes, then scatter: stable, so each class's
     * groups stay in component order. */
    uint32_t acc = 0;
    for (uint32_t k = 0; k < img->n_classes; k++) {
        uint32_t c = g->class_count[k];
        g->class_start[k] = acc;
        acc += c;
    }
    for (uint32_t x = 0; x < ng; x++) {
        uint32_t k = (uint32_t)(g->cut[x].key >> 32);
        g->sorted[g->class_start[k]++] = g->cut[x];
    }
    /* class_start[k] now ends class k's groups. */
    int rc = WX_OK;
    for (uint32_t k = 0; k < img->n_classes; k++) {
        uint32_t c = g->class_count[k];
        g->class_count[k] = 0;
        if (c >= 2 && rc == WX_OK)
            rc = fire_class(g, k, g->sorted + g->class_start[k] - c, c, vec, err);
    }
    return rc;
}

/* ---- the fast path: vectors of <= 4 words, <= 64 components ----
 *
 * The vector is read as one 64-bit word v (1 or 2 words; 3 or 4 words: a
 * 128-bit one, further below, with the same data).  A component in local state s
 * moving to t changes v by the XOR delta (s ^ t) << first_bit, so succ_init
 * precompiles, per component state (a "segment", indexed like
 * state_offsets), its local moves as (label, delta) and its class-k
 * targets as groups of deltas; a successor is v ^ (XOR of the movers'
 * deltas).  Rules are indexed by their lowest participant: when that
 * component offers the rule's class, the rule is tested against the set of
 * components offering the class (one 64-bit mask), so a state costs
 * O(components + offers + rules tested) with no sorting or merging.
 *
 * Duplicates.  Two records of one state with every mover's delta non-zero
 * differ in exactly their sets of movers; so they can be equal only when
 *   (a) one segment has two local entries with the same (label, target), or
 *   (b) one segment has a class whose entries repeat a target, or
 *   (c) two rules with the same result label have the same participants;
 * and otherwise only when some mover stays put (delta 0: a self-loop, or a
 * component of width 0).  succ_init checks (a)-(c) once (any of them:
 * every state is deduplicated); a segment with a self-loop marks the
 * states that visit it.  All other states' records are distinct as
 * generated, and deduplication is skipped. */

struct fcomp {
    uint64_t mask;            /* field mask, unshifted */
    uint32_t base;            /* proc_offsets[c]: segment of local state 0 */
    uint32_t shift;           /* first_bit[c] */
};

struct fseg {
    uint32_t loc, nloc;       /* local moves [loc, loc + nloc) */
    uint32_t grp, ngrp;       /* groups [grp, grp + ngrp) */
    uint32_t self;            /* 1: some entry here is a self-loop */
};

/* A segment with at most 2 local moves and 2 groups, inline: the common
 * case, expanded without a data-dependent branch per component (those
 * mispredict about once per component: the loop counts follow the local
 * states).  Unused moves are dummies; an absent group has cls ==
 * n_classes, a class whose present mask is never 0, so it is never
 * "touched". */
struct fsimple {
    uint64_t d0, d1;          /* local deltas */
    uint32_t l0, l1;          /* their labels */
    uint32_t nloc;            /* 0 .. 2 */
    uint32_t self;
    uint32_t cls[2], grp[2];  /* the groups' classes and indices */
    /* The pair form (struct succ_fast.pair): each group's one delta, the
     * one rule whose lowest participant this component is (n_rules: none),
     * and the class again, with a per-component dummy instead of
     * n_classes (no two components share a dummy's present mask). */
    uint64_t gd[2];
    uint32_t rule[2], pcls[2];
    uint64_t gdh[2];          /* wide images: the high halves of gd, */
    uint64_t d0h, d1h;        /* d0 and d1 */
};

struct fgrp {
    uint32_t cls;
    uint32_t d, nd;           /* deltas [d, d + nd) */
    uint32_t r, nr;           /* rorder[r .. r + nr): the class's rules whose
                                 lowest participant is this component */
};

struct foffer {
    uint32_t grp, comp;
    int32_t next;             /* the class's previous offer, -1 at the end */
};

struct succ_fast {
    uint32_t n;
    bool always_dedup;
    struct fcomp *comp;       /* n */
    struct fseg *seg;         /* proc_offsets[n] */
    uint32_t *loc_label;
    uint64_t *loc_delta;
    uint64_t *loc_delta_hi;   /* wide images (3 or 4 words): high halves */
    struct fgrp *grp;
    uint64_t *delta;
    uint64_t *delta_hi;       /* wide images: high halves */
    bool wide;                /* 3 or 4 words: 128-bit vectors */
    uint32_t *rorder;         /* rules by (class, lowest participant) */
    uint64_t *rmask;          /* n_rules */
    /* Per-state scratch: present[k] == 0 and head[k] == -1 between calls. */
    uint64_t *present;        /* n_classes */
    int32_t *head;            /* n_classes */
    uint32_t *touched;        /* n_classes */
    struct foffer *offer;     /* most groups one state can have (at least
                                 n for the simple form) */
    struct fsimple *simple;   /* per segment, when every segment fits */
    uint32_t simple_groups;   /* 1 or 2: the most groups of a segment */
    /* The pair form: the simple form where moreover every rule has 2
     * participants, every group 1 target and at most 1 rule as lowest
     * participant.  A state then needs no offer lists at all: every
     * component tests its (at most one) rule per group against the
     * present masks and writes the successor, counted only if it fires. */
    bool pair;
    uint32_t n_rules;
    uint32_t *rother, *rlabel; /* n_rules + 1: the other participant, the
                                 result label (index n_rules: a sentinel) */
    const struct fsimple **xs; /* n: each component's segment this state */
    uint32_t *comp_grp;       /* n: the component's group in the class fired */
    /* The mask form (see mask_init): per segment, the rules the component
     * blocks there, and its first two local moves inline. */
    struct fmask *mask;       /* per segment; NULL: no mask form */
    uint32_t mask_words;      /* 1 or 2: 64-bit words of rule bits */
    uint32_t mask_loc;        /* 1 or 2: inline local moves written per
                                 component (1 when no segment has 2) */
    uint64_t mask_all[2];     /* the bits of existing rules */
    uint32_t *mrule_cls;      /* n_rules: each rule's class */
    uint32_t *segi;           /* n: each component's segment this state */
};

/* The mask form's per-segment record, one cache line.  blk has bit r set
 * when the component takes part in rule r but offers no entry of r's class
 * in this local state: then r cannot fire.  A rule fires exactly when no
 * participant blocks it, so the rules that fire in a state are
 *     all_rules & ~(OR over components c of blk(c, s_c))
 * -- one OR per component instead of a test per component and group.  The
 * first two local moves are inline (written without a branch, counted by
 * nloc); more marks segments with further ones (taken from struct fseg). */
struct fmask {
    uint64_t blk[2];
    uint64_t d0, d1;          /* local deltas, low 64 bits */
    uint64_t d0h, d1h;        /* high halves (3- and 4-word images) */
    uint32_t l0, l1;          /* their labels */
    uint16_t nloc;            /* min(local moves, 2) */
    uint8_t flags;            /* MASK_SELF | MASK_MORE */
} __attribute__((aligned(64)));
#define MASK_SELF 1u          /* some entry here is a self-loop */
#define MASK_MORE 2u          /* more than 2 local moves */

static void fast_free(struct succ_fast *f)
{
    if (!f)
        return;
    free(f->comp);
    free(f->seg);
    free(f->loc_label);
    free(f->loc_delta);
    free(f->loc_delta_hi);
    free(f->delta_hi);
    free(f->grp);
    free(f->delta);
    free(f->rorder);
    free(f->rmask);
    free(f->present);
    free(f->head);
    free(f->touched);
    free(f->offer);
    free(f->comp_grp);
    free(f->simple);
    free(f->rother);
    free(f->rlabel);
    free(f->xs);
    free(f->mask);
    free(f->mrule_cls);
    free(f->segi);
    free(f);
}

static int u64_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Rules ordered by (class, lowest participant); ties by rule id. */
static int rule_cmp(const void *x, const void *y, void *ctx)
{
    const uint64_t *rmask = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    int la = __builtin_ctzll(rmask[a]), lb = __builtin_ctzll(rmask[b]);
    if (la != lb)
        return la < lb ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Rules (result label, mask): (c) of the duplicate conditions. */
struct rkey { uint64_t mask; uint32_t result; };
static int rkey_cmp(const void *x, const void *y)
{
    const struct rkey *a = x, *b = y;
    if (a->result != b->result)
        return a->result < b->result ? -1 : 1;
    return a->mask < b->mask ? -1 : a->mask > b->mask;
}

/* Sets up the pair form when the image allows it (f->simple is built). */
static void pair_init(struct succ_gen *g, struct succ_fast *f, uint32_t nseg)
{
    const struct image *img = g->img;
    const uint32_t nr = img->n_rules;
    for (uint32_t r = 0; r < nr; r++)
        if (g->rule_part_start[r + 1] - g->rule_part_start[r] != 2)
            return;
    for (uint32_t i = 0; i < nseg; i++)
        for (uint32_t q = 0; q < f->seg[i].ngrp; q++) {
            const struct fgrp *gr = &f->grp[f->seg[i].grp + q];
            if (gr->nd != 1 || gr->nr > 1)
                return;
        }
    f->rother = malloc(((size_t)nr + 1) * sizeof *f->rother);
    f->rlabel = malloc(((size_t)nr + 1) * sizeof *f->rlabel);
    f->xs = malloc(f->n * sizeof *f->xs);
    if (!f->rother || !f->rlabel || !f->xs)
        return; /* freed with f */
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            f->rother[r] = g->rule_part[g->rule_part_start[r] + 1];
            f->rlabel[r] = img->class_result[k];
        }
    f->rother[nr] = 0, f->rlabel[nr] = 0, f->rmask[nr] = ~0ull;
    for (uint32_t c = 0; c < f->n; c++)
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            const uint32_t i = img->proc_offsets[c] + s;
            const struct fseg *sg = &f->seg[i];
            struct fsimple *x = &f->simple[i];
            for (uint32_t q = 0; q < 2; q++) {
                if (q < sg->ngrp) {
                    const struct fgrp *gr = &f->grp[sg->grp + q];
                    x->gd[q] = f->delta[gr->d];
                    x->gdh[q] = f->wide ? f->delta_hi[gr->d] : 0;
                    x->rule[q] = gr->nr ? f->rorder[gr->r] : nr;
                    x->pcls[q] = gr->cls;
                } else {
                    x->gd[q] = 0, x->gdh[q] = 0, x->rule[q] = nr;
                    x->pcls[q] = img->n_classes + 1 + c;
                }
            }
        }
    f->n_rules = nr;
    f->pair = true;
}

/* Sets up the mask form (struct fmask) when the image has at most
 * 64 * FAST_MASK_WORDS rules; f->seg and f->grp are built.  Exact: rule r
 * (class k, participants P) fires in a state iff every c in P has a
 * class-k group in its segment (image.h), i.e. iff no c in P has bit r of
 * blk set; a component outside P never sets bit r.  Records and the
 * duplicate analysis are those of the other forms (the same deltas, the
 * same rules fired with the same groups). */
#define FAST_MASK_WORDS 2u
static void mask_init(struct succ_gen *g, struct succ_fast *f, uint32_t nseg)
{
    const struct image *img = g->img;
    const uint32_t nr = img->n_rules;
    if (nr > 64 * FAST_MASK_WORDS)
        return;
    f->mask = aligned_alloc(64, ((size_t)nseg + 1) * sizeof *f->mask);
    f->mrule_cls = malloc(((size_t)nr + 1) * sizeof *f->mrule_cls);
    f->segi = malloc(((size_t)f->n + 1) * sizeof *f->segi);
    if (!f->mask || !f->mrule_cls || !f->segi) {
        free(f->mask), free(f->mrule_cls), free(f->segi);
        f->mask = NULL, f->mrule_cls = NULL, f->segi = NULL;
        return;
    }
    memset(f->mask, 0, ((size_t)nseg + 1) * sizeof *f->mask);
    f->mask_words = nr > 64 ? 2 : 1;
    f->mask_all[0] = nr >= 64 ? ~0ull : (1ull << nr) - 1;
    f->mask_all[1] = nr <= 64 ? 0 : nr == 128 ? ~0ull : (1ull << (nr - 64)) - 1;
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++)
            f->mrule_cls[r] = k;
    f->mask_loc = 1;
    for (uint32_t i = 0; i < nseg; i++) {
        const struct fseg *sg = &f->seg[i];
        struct fmask *x = &f->mask[i];
        if (sg->nloc > 1)
            f->mask_loc = 2;
        x->nloc = (uint16_t)(sg->nloc < 2 ? sg->nloc : 2);
        x->flags = (uint8_t)((sg->self ? MASK_SELF : 0) | (sg->nloc > 2 ? MASK_MORE : 0));
        if (sg->nloc > 0)
            x->l0 = f->loc_label[sg->loc], x->d0 = f->loc_delta[sg->loc],
            x->d0h = f->wide ? f->loc_delta_hi[sg->loc] : 0;
        if (sg->nloc > 1)
            x->l1 = f->loc_label[sg->loc + 1], x->d1 = f->loc_delta[sg->loc + 1],
            x->d1h = f->wide ? f->loc_delta_hi[sg->loc + 1] : 0;
    }
    /* blk: for every participant c of rule r, the states of c without a
     * group of r's class. */
    for (uint32_t r = 0; r < nr; r++) {
        const uint32_t k = f->mrule_cls[r];
        for (uint32_t q = g->rule_part_start[r]; q < g->rule_part_start[r + 1]; q++) {
            const uint32_t c = g->rule_part[q];
            for (uint32_t s = 0; s < img->comp_states[c]; s++) {
                const uint32_t i = img->proc_offsets[c] + s;
                const struct fseg *sg = &f->seg[i];
                bool offers = false;
                for (uint32_t x = sg->grp; x < sg->grp + sg->ngrp; x++)
                    offers |= f->grp[x].cls == k;
                if (!offers)
                    f->mask[i].blk[r >> 6] |= 1ull << (r & 63);
            }
        }
    }
}

/* The fast path's table sizes for an image: targets of local and sync
 * entries, groups, the most groups per component summed over components
 * (offers), the largest segment. */
struct fast_sizes {
    size_t nloc, nsync, ngrp, max_offers, seg_max;
};

/* Counts the sizes; 0 when the image does not qualify (a state offering
 * more than FAST_MAX_GROUPS classes, counts beyond 32 bits, or tables
 * beyond FAST_MAX_BYTES). */
static bool fast_size(const struct image *img, struct fast_sizes *z)
{
    const uint32_t n = img->n_comps, ab = img->act_bits, nseg = img->proc_offsets[n];
    memset(z, 0, sizeof *z);
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t sb = img->state_bits[c], slots = image_entry_slots(ab, sb);
        size_t most = 0;
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            const uint32_t *so = img->state_offsets + img->proc_offsets[c] + s;
            size_t groups = 0, targets = 0;
            uint32_t last = UINT32_MAX;
            for (uint32_t i = so[0]; i < so[1]; i++) {
                uint64_t e = img->trans[i];
                uint32_t cnt = 0;
                while (cnt < slots && image_entry_target(e, ab, sb, cnt) != UINT32_MAX)
                    cnt++;
                targets += cnt;
                if (image_entry_is_sync(e)) {
                    z->nsync += cnt;
                    uint32_t k = image_entry_label(e, ab);
                    groups += k != last;
                    last = k;
                } else {
                    z->nloc += cnt;
                }
            }
            z->ngrp += groups;
            if (groups > most)
                most = groups;
            if (targets > z->seg_max)
                z->seg_max = targets;
        }
        z->max_offers += most;
        if (most > FAST_MAX_GROUPS)
            return false;
    }
    if (z->nloc > UINT32_MAX / 2 || z->nsync > UINT32_MAX / 2 || z->ngrp > UINT32_MAX / 2)
        return false;
    /* Every thread's generator builds its own copy: components with
     * millions of states keep the general path rather than multiply that. */
    const size_t per_target = img->words > 2 ? 20 : 12;
    return (size_t)nseg * (sizeof(struct fseg) + sizeof(struct fsimple)) + (z->nloc + z->nsync) * per_target
               + z->ngrp * sizeof(struct fgrp) <= FAST_MAX_BYTES;
}

/* Allocates the tables of sizes z (NULL when memory is short). */
static struct succ_fast *fast_alloc(const struct image *img, const struct fast_sizes *z)
{
    const uint32_t n = img->n_comps, nseg = img->proc_offsets[n];
    struct succ_fast *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->n = n;
    f->comp = malloc(n * sizeof *f->comp);
    f->seg = calloc((size_t)nseg + 1, sizeof *f->seg);
    f->loc_label = malloc((z->nloc + 1) * sizeof *f->loc_label);
    f->loc_delta = malloc((z->nloc + 1) * sizeof *f->loc_delta);
    f->grp = malloc((z->ngrp + 1) * sizeof *f->grp);
    f->delta = malloc((z->nsync + 1) * sizeof *f->delta);
    f->wide = img->words > 2;
    if (f->wide) {
        f->loc_delta_hi = malloc((z->nloc + 1) * sizeof *f->loc_delta_hi);
        f->delta_hi = malloc((z->nsync + 1) * sizeof *f->delta_hi);
    }
    f->rorder = malloc(((size_t)img->n_rules + 1) * sizeof *f->rorder);
    f->rmask = malloc(((size_t)img->n_rules + 1) * sizeof *f->rmask);
    f->present = calloc((size_t)img->n_classes + 2 + n, sizeof *f->present);
    f->head = malloc(((size_t)img->n_classes + 1) * sizeof *f->head);
    f->touched = malloc(((size_t)img->n_classes + 1) * sizeof *f->touched);
    f->offer = malloc((z->max_offers + 2 * (size_t)n + 1) * sizeof *f->offer);
    f->comp_grp = malloc(n * sizeof *f->comp_grp);
    if (!f->comp || !f->seg || !f->loc_label || !f->loc_delta || !f->grp || !f->delta || !f->rorder || !f->rmask
        || !f->present || !f->head || !f->touched || !f->offer || !f->comp_grp
        || (f->wide && (!f->loc_delta_hi || !f->delta_hi))) {
        fast_free(f);
        return NULL;
    }
    for (uint32_t k = 0; k < img->n_classes; k++)
        f->head[k] = -1;
    return f;
}

/* Rules: masks, (c), and the order by (class, lowest participant); rk:
 * n_rules + 1 records of scratch. */
static void fast_rules(struct succ_fast *f, const struct image *img, struct rkey *rk)
{
    for (uint32_t r = 0; r < img->n_rules; r++) {
        const uint32_t *m = img->rule_mask + (size_t)r * img->mask_words;
        f->rmask[r] = m[0] | (img->mask_words > 1 ? (uint64_t)m[1] << 32 : 0);
        f->rorder[r] = r;
    }
    for (uint32_t k = 0; k < img->n_classes; k++) {
        uint32_t b = img->class_rule_start[k], e = img->class_rule_start[k + 1];
        qsort_r(f->rorder + b, e - b, sizeof *f->rorder, rule_cmp, f->rmask);
        for (uint32_t r = b; r < e; r++)
            rk[r] = (struct rkey){ .mask = f->rmask[r], .result = img->class_result[k] };
    }
    qsort(rk, img->n_rules, sizeof *rk, rkey_cmp);
    for (uint32_t r = 1; r < img->n_rules; r++)
        if (rk[r].result == rk[r - 1].result && rk[r].mask == rk[r - 1].mask)
            f->always_dedup = true;
}

/* Where fast_segment writes next: local entries, sync entries, groups. */
struct fast_fill {
    size_t xl, xs, xg;
};

/* The segment of state s of component c: its deltas, groups and
 * self-loops, and (a), (b); keys: scratch of seg_max + 1. */
static void fast_segment(struct succ_fast *f, const struct image *img, uint32_t c, uint32_t s,
                         struct fast_fill *x, uint64_t *keys)
{
    const uint32_t ab = img->act_bits, first = img->first_bit[c];
    const uint32_t sb = img->state_bits[c], slots = image_entry_slots(ab, sb);
    const uint32_t si = img->proc_offsets[c] + s;
    const uint32_t *so = img->state_offsets + si;
    struct fseg *sg = &f->seg[si];
    sg->loc = (uint32_t)x->xl, sg->grp = (uint32_t)x->xg;
    size_t nk = 0;
    uint32_t last = UINT32_MAX;
    for (uint32_t i = so[0]; i < so[1]; i++) {
        uint64_t e = img->trans[i];
        uint32_t lab = image_entry_label(e, ab), sync = image_entry_is_sync(e);
        if (sync && lab != last) {
            /* A new group: its rules are the class-lab rules whose
             * lowest participant is c (a range of rorder). */
            uint32_t b = img->class_rule_start[lab], e2 = img->class_rule_start[lab + 1];
            while (b < e2 && (uint32_t)__builtin_ctzll(f->rmask[f->rorder[b]]) < c)
                b++;
            uint32_t r = b;
            while (r < e2 && (uint32_t)__builtin_ctzll(f->rmask[f->rorder[r]]) == c)
                r++;
            f->grp[x->xg++] = (struct fgrp){ .cls = lab, .d = (uint32_t)x->xs, .nd = 0, .r = b, .nr = r - b };
            sg->ngrp++;
            last = lab;
        }
        for (uint32_t k = 0; k < slots; k++) {
            uint32_t t = image_entry_target(e, ab, sb, k);
            if (t == UINT32_MAX)
                break;
            const unsigned __int128 dw = (unsigned __int128)(s ^ t) << first;
            const uint64_t d = (uint64_t)dw, dh = (uint64_t)(dw >> 64);
            sg->self |= s == t;
            keys[nk++] = (uint64_t)sync << 63 | (uint64_t)lab << 32 | t;
            if (sync) {
                if (f->wide)
                    f->delta_hi[x->xs] = dh;
                f->delta[x->xs++] = d;
                f->grp[x->xg - 1].nd++;
            } else {
                f->loc_label[x->xl] = lab;
                if (f->wide)
                    f->loc_delta_hi[x->xl] = dh;
                f->loc_delta[x->xl++] = d;
                sg->nloc++;
            }
        }
    }
    qsort(keys, nk, sizeof *keys, u64_cmp);
    for (size_t i = 1; i < nk; i++)
        if (keys[i] == keys[i - 1])
            f->always_dedup = true;
}

/* Segments of every component: deltas, groups, self-loops, and (a), (b). */
static void fast_segments(struct succ_fast *f, const struct image *img, uint64_t *keys)
{
    struct fast_fill x = {0, 0, 0};
    for (uint32_t c = 0; c < f->n; c++) {
        const uint32_t first = img->first_bit[c], width = img->first_bit[c + 1] - first;
        f->comp[c] = (struct fcomp){ .mask = width ? (~0ull >> (64 - width)) : 0, .base = img->proc_offsets[c],
                                     .shift = first };
        for (uint32_t s = 0; s < img->comp_states[c]; s++)
            fast_segment(f, img, c, s, &x, keys);
    }
}

/* The simple form, when every segment fits it (then the pair form when
 * the image allows it). */
static void simple_init(struct succ_gen *g, struct succ_fast *f, uint32_t nseg)
{
    const struct image *img = g->img;
    bool fits = true;
    for (uint32_t i = 0; i < nseg; i++)
        fits &= f->seg[i].nloc <= 2 && f->seg[i].ngrp <= 2;
    if (!fits || !(f->simple = calloc((size_t)nseg + 1, sizeof *f->simple)))
        return;
    for (uint32_t i = 0; i < nseg; i++) {
        const struct fseg *sg = &f->seg[i];
        struct fsimple *x = &f->simple[i];
        x->nloc = sg->nloc;
        if (sg->nloc > 0)
            x->l0 = f->loc_label[sg->loc], x->d0 = f->loc_delta[sg->loc],
            x->d0h = f->wide ? f->loc_delta_hi[sg->loc] : 0;
        if (sg->nloc > 1)
            x->l1 = f->loc_label[sg->loc + 1], x->d1 = f->loc_delta[sg->loc + 1],
            x->d1h = f->wide ? f->loc_delta_hi[sg->loc + 1] : 0;
        for (uint32_t q = 0; q < 2; q++) {
            x->cls[q] = q < sg->ngrp ? f->grp[sg->grp + q].cls : img->n_classes;
            x->grp[q] = sg->grp + q;
        }
        x->self = sg->self;
    }
    f->simple_groups = 1;
    for (uint32_t i = 0; i < nseg; i++)
        if (f->seg[i].ngrp > 1)
            f->simple_groups = 2;
    f->present[img->n_classes] = ~0ull;
    f->head[img->n_classes] = -1;
    pair_init(g, f, nseg);
}

/* Builds g->fast, or leaves it NULL when the image does not qualify (or
 * memory is short: the general path then serves). */
static void fast_init(struct succ_gen *g)
{
    const struct image *img = g->img;
    const uint32_t n = img->n_comps;
    /* Images with many classes per component (a channel offering hundreds
     * of data in one state) are the general path's heap strategy, which
     * jumps over the classes only one component offers; the fast path would
     * visit every offer (measured: abp d=1300 13x slower). */
    if (img->words > 4 || n == 0 || n > 64 || g->strategy == SUCC_HEAP)
        return;
    const uint32_t nseg = img->proc_offsets[n];
    struct fast_sizes z;
    if (!fast_size(img, &z))
        return;
    struct succ_fast *f = fast_alloc(img, &z);
    uint64_t *keys = malloc((z.seg_max + 1) * sizeof *keys);
    struct rkey *rk = malloc(((size_t)img->n_rules + 1) * sizeof *rk);
    if (!f || !keys || !rk) {
        free(keys);
        free(rk);
        fast_free(f);
        return;
    }
    fast_rules(f, img, rk);
    fast_segments(f, img, keys);
    free(keys);
    free(rk);
    simple_init(g, f, nseg);
    mask_init(g, f, nseg);
    g->fast = f;
    g->use_fast = true;
    g->fast_dedup_all = f->always_dedup;
    g->fast_simple = f->simple != NULL;
    g->fast_pair = f->pair;
    g->fast_mask = f->mask != NULL;
}

static inline int fast_emit(struct succ_gen *g, uint32_t label, uint64_t v, struct wx_error *err)
{
    if (g->n == g->cap && grow_output(g, err))
        return WX_ELIMIT;
    uint32_t *r = g->rec + g->n * g->stride;
    r[0] = label;
    r[1] = (uint32_t)v;
    if (g->words > 1)
        r[2] = (uint32_t)(v >> 32);
    g->n++;
    return WX_OK;
}

/* Fires rule r from state v: the product of its participants' groups. */
static int fast_fire(struct succ_gen *g, uint32_t r, uint32_t label, uint64_t v, struct wx_error *err)
{
    const struct succ_fast *f = g->fast;
    const uint32_t *part = g->rule_part + g->rule_part_start[r];
    const uint32_t m = g->rule_part_start[r + 1] - g->rule_part_start[r];
    uint64_t acc = v;
    bool single = true;
    for (uint32_t i = 0; i < m; i++) {
        const struct fgrp *gr = &f->grp[f->comp_grp[part[i]]];
        if (gr->nd != 1) {
            single = false;
            if (gr->nd == 0)
                return WX_OK;
        }
        acc ^= f->delta[gr->d];
    }
    if (single)
        return fast_emit(g, label, acc, err);
    /* Odometer over the participants' deltas (acc holds the first of each). */
    uint32_t odo[64] = { 0 };
    for (;;) {
        if (fast_emit(g, label, acc, err))
            return WX_ELIMIT;
        uint32_t i = m;
        for (;;) {
            if (i == 0)
                return WX_OK;
            i--;
            const struct fgrp *gr = &f->grp[f->comp_grp[part[i]]];
            const uint64_t *d = f->delta + gr->d;
            uint32_t o = odo[i];
            if (o + 1 < gr->nd) {
                acc ^= d[o] ^ d[o + 1];
                odo[i] = o + 1;
                break;
            }
            acc ^= d[o] ^ d[0];
            odo[i] = 0;
        }
    }
}

/* A rule firing on a packed vector of either width (64 or 128 bits), so
 * that one loop serves both; the callers pass a constant function, which
 * the compiler inlines. */
typedef int (*fire_fn)(struct succ_gen *g, uint32_t r, uint32_t label, const void *v,
                       struct wx_error *err);

/* Fires the touched classes offered by >= 2 components, resets the
 * per-class scratch. */
static inline int fire_touched(struct succ_gen *g, const void *v, uint32_t nt, fire_fn fire,
                               struct wx_error *err)
{
    struct succ_fast *f = g->fast;
    const struct image *img = g->img;
    int rc = WX_OK;
    for (uint32_t t = 0; t < nt; t++) {
        const uint32_t k = f->touched[t];
        const uint64_t p = f->present[k];
        if ((p & (p - 1)) && rc == WX_OK) {
            for (int32_t o = f->head[k]; o >= 0; o = f->offer[o].next)
                f->comp_grp[f->offer[o].comp] = f->offer[o].grp;
            for (int32_t o = f->head[k]; o >= 0 && rc == WX_OK; o = f->offer[o].next) {
                const struct fgrp *gr = &f->grp[f->offer[o].grp];
                for (uint32_t x = gr->r, e = gr->r + gr->nr; x < e; x++) {
                    const uint32_t r = f->rorder[x];
                    if ((f->rmask[r] & ~p) == 0 && (rc = fire(g, r, img->class_result[k], v, err)))
                        break;
                }
            }
        }
        f->present[k] = 0;
        f->head[k] = -1;
    }
    return rc;
}

static int fire64(struct succ_gen *g, uint32_t r, uint32_t label, const void *v, struct wx_error *err)
{
    return fast_fire(g, r, label, *(const uint64_t *)v, err);
}

static int fast_fire_touched(struct succ_gen *g, uint64_t v, uint32_t nt, struct wx_error *err)
{
    return fire_touched(g, &v, nt, fire64, err);
}

/* The simple form (struct fsimple): no branch per component.  Both local
 * records are written and n advances by the real count, so the output
 * needs room for 2 records per component beyond n up front. */
static inline __attribute__((always_inline)) int fast_expand_simple(struct succ_gen *g, const uint32_t *vec,
                                                                    bool *dedup, struct wx_error *err,
                                                                    const uint32_t groups)
{
    struct succ_fast *f = g->fast;
    const uint32_t nc = f->n, st = g->stride, dummy = g->img->n_classes;
    while (g->cap < g->n + 2 * (size_t)nc + 2)
        if (grow_output(g, err))
            return WX_ELIMIT;
    const uint64_t v = vec[0] | (g->words > 1 ? (uint64_t)vec[1] << 32 : 0);
    uint32_t self = f->always_dedup, nt = 0;
    int32_t no = 0;
    size_t n = g->n;
    uint32_t *rec = g->rec;
    for (uint32_t c = 0; c < nc; c++) {
        const struct fcomp *fc = &f->comp[c];
        const struct fsimple *x = &f->simple[fc->base + ((v >> fc->shift) & fc->mask)];
        self |= x->self;
        uint32_t *r = rec + n * st;
        const uint64_t a = v ^ x->d0, b = v ^ x->d1;
        r[0] = x->l0;
        r[1] = (uint32_t)a;
        r[st] = x->l1;
        r[st + 1] = (uint32_t)b;
        if (st > 2) {
            r[2] = (uint32_t)(a >> 32);
            r[st + 2] = (uint32_t)(b >> 32);
        }
        n += x->nloc;
        for (uint32_t q = 0; q < groups; q++) {
            const uint32_t k = x->cls[q];
            f->touched[nt] = k;
            nt += f->present[k] == 0;
            f->present[k] |= 1ull << c;
            f->offer[no] = (struct foffer){ .grp = x->grp[q], .comp = c, .next = f->head[k] };
            f->head[k] = no++;
        }
    }
    g->n = n;
    f->head[dummy] = -1;
    *dedup = self != 0;
    return fast_fire_touched(g, v, nt, err);
}

/* The pair form (struct succ_fast.pair): three passes over the components
 * -- local moves and present masks; each group's rule, written always and
 * counted when it fires; clearing the masks -- with no data-dependent
 * branch.  The output needs room for 2 + 2 * groups records per
 * component beyond n. */
static inline __attribute__((always_inline)) int fast_expand_pair(struct succ_gen *g, const uint32_t *vec,
                                                                  bool *dedup, struct wx_error *err,
                                                                  const uint32_t groups)
{
    struct succ_fast *f = g->fast;
    const uint32_t nc = f->n, st = g->stride, none = f->n_rules;
    while (g->cap < g->n + (2 + 2 * (size_t)groups) * nc + 2)
        if (grow_output(g, err))
            return WX_ELIMIT;
    const uint64_t v = vec[0] | (g->words > 1 ? (uint64_t)vec[1] << 32 : 0);
    const struct fsimple **xs = f->xs;
    uint64_t *present = f->present;
    uint32_t self = f->always_dedup;
    size_t n = g->n;
    uint32_t *rec = g->rec;
    for (uint32_t c = 0; c < nc; c++) {
        const struct fcomp *fc = &f->comp[c];
        const struct fsimple *x = &f->simple[fc->base + ((v >> fc->shift) & fc->mask)];
        xs[c] = x;
        self |= x->self;
        uint32_t *r = rec + n * st;
        const uint64_t a = v ^ x->d0, b = v ^ x->d1;
        r[0] = x->l0;
        r[1] = (uint32_t)a;
        r[st] = x->l1;
        r[st + 1] = (uint32_t)b;
        if (st > 2) {
            r[2] = (uint32_t)(a >> 32);
            r[st + 2] = (uint32_t)(b >> 32);
        }
        n += x->nloc;
        for (uint32_t q = 0; q < groups; q++)
            present[x->pcls[q]] |= 1ull << c;
    }
    for (uint32_t c = 0; c < nc; c++) {
        const struct fsimple *x = xs[c];
        for (uint32_t q = 0; q < groups; q++) {
            const uint32_t r = x->rule[q], k = x->pcls[q];
            const struct fsimple *y = xs[f->rother[r]];
            const uint64_t d2 = groups == 1 || y->pcls[0] == k ? y->gd[0] : y->gd[1];
            const uint64_t w = v ^ x->gd[q] ^ d2;
            uint32_t *o = rec + n * st;
            o[0] = f->rlabel[r];
            o[1] = (uint32_t)w;
            if (st > 2)
                o[2] = (uint32_t)(w >> 32);
            n += (r != none) & ((f->rmask[r] & ~present[k]) == 0);
        }
    }
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t q = 0; q < groups; q++)
            present[xs[c]->pcls[q]] = 0;
    g->n = n;
    *dedup = self != 0;
    return WX_OK;
}

static int fast_expand_pair1(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    return fast_expand_pair(g, vec, dedup, err, 1);
}

static int fast_expand_pair2(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    return fast_expand_pair(g, vec, dedup, err, 2);
}

/* The simple form specialised for 1 and 2 group slots per segment (an
 * always-empty second slot would cost milner-like images ~15 %). */
static int fast_expand_simple1(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    return fast_expand_simple(g, vec, dedup, err, 1);
}

static int fast_expand_simple2(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    return fast_expand_simple(g, vec, dedup, err, 2);
}

/* ---- the fast path for 3 and 4 words: the same forms on 128-bit vectors
 * (deltas split into the low and high arrays).  Kept apart from the 64-bit
 * code so that the common 1- and 2-word images pay nothing for it. ---- */

typedef unsigned __int128 u128;

static inline u128 w_load(const uint32_t *vec, uint32_t words)
{
    u128 v = (u128)vec[0] | (u128)vec[1] << 32 | (u128)vec[2] << 64;
    if (words > 3)
        v |= (u128)vec[3] << 96;
    return v;
}

static inline u128 w_join(uint64_t lo, uint64_t hi) { return (u128)hi << 64 | lo; }

static inline void w_store(uint32_t *r, uint32_t label, u128 v, uint32_t words)
{
    r[0] = label;
    r[1] = (uint32_t)v;
    r[2] = (uint32_t)(v >> 32);
    r[3] = (uint32_t)(v >> 64);
    if (words > 3)
        r[4] = (uint32_t)(v >> 96);
}

static inline int w_emit(struct succ_gen *g, uint32_t label, u128 v, struct wx_error *err)
{
    if (g->n == g->cap && grow_output(g, err))
        return WX_ELIMIT;
    w_store(g->rec + g->n * g->stride, label, v, g->words);
    g->n++;
    return WX_OK;
}

static inline uint32_t w_field(u128 v, const struct fcomp *fc)
{
    return (uint32_t)((uint64_t)(v >> fc->shift) & fc->mask);
}

static int w_fire(struct succ_gen *g, uint32_t r, uint32_t label, u128 v, struct wx_error *err)
{
    const struct succ_fast *f = g->fast;
    const uint32_t *part = g->rule_part + g->rule_part_start[r];
    const uint32_t m = g->rule_part_start[r + 1] - g->rule_part_start[r];
    u128 acc = v;
    bool single = true;
    for (uint32_t i = 0; i < m; i++) {
        const struct fgrp *gr = &f->grp[f->comp_grp[part[i]]];
        if (gr->nd != 1) {
            single = false;
            if (gr->nd == 0)
                return WX_OK;
        }
        acc ^= w_join(f->delta[gr->d], f->delta_hi[gr->d]);
    }
    if (single)
        return w_emit(g, label, acc, err);
    uint32_t odo[64] = { 0 };
    for (;;) {
        if (w_emit(g, label, acc, err))
            return WX_ELIMIT;
        uint32_t i = m;
        for (;;) {
            if (i == 0)
                return WX_OK;
            i--;
            const struct fgrp *gr = &f->grp[f->comp_grp[part[i]]];
            const uint32_t d = gr->d, o = odo[i];
            if (o + 1 < gr->nd) {
                acc ^= w_join(f->delta[d + o] ^ f->delta[d + o + 1], f->delta_hi[d + o] ^ f->delta_hi[d + o + 1]);
                odo[i] = o + 1;
                break;
            }
            acc ^= w_join(f->delta[d + o] ^ f->delta[d], f->delta_hi[d + o] ^ f->delta_hi[d]);
            odo[i] = 0;
        }
    }
}

static int fire128(struct succ_gen *g, uint32_t r, uint32_t label, const void *v, struct wx_error *err)
{
    return w_fire(g, r, label, *(const u128 *)v, err);
}

/* The loop form (any shape). */
static int w_expand_loop(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    struct succ_fast *f = g->fast;
    const u128 v = w_load(vec, g->words);
    uint32_t self = f->always_dedup, nt = 0;
    int32_t no = 0;
    for (uint32_t c = 0; c < f->n; c++) {
        const struct fcomp *fc = &f->comp[c];
        const struct fseg *sg = &f->seg[fc->base + w_field(v, fc)];
        self |= sg->self;
        for (uint32_t j = sg->loc, e = sg->loc + sg->nloc; j < e; j++)
            if (w_emit(g, f->loc_label[j], v ^ w_join(f->loc_delta[j], f->loc_delta_hi[j]), err))
                return WX_ELIMIT;
        for (uint32_t x = sg->grp, e = sg->grp + sg->ngrp; x < e; x++) {
            uint32_t k = f->grp[x].cls;
            if (!f->present[k])
                f->touched[nt++] = k;
            f->present[k] |= 1ull << c;
            f->offer[no] = (struct foffer){ .grp = x, .comp = c, .next = f->head[k] };
            f->head[k] = no++;
        }
    }
    int rc = fire_touched(g, &v, nt, fire128, err);
    *dedup = self != 0;
    return rc;
}

/* A record of a wide image from the vector's two 64-bit halves (lo = words
 * 0-1, hi = words 2-3), words a constant: the halves are stored as they
 * are, without going through a 128-bit value (which gcc spills). */
static inline __attribute__((always_inline)) void w_put(uint32_t *r, uint32_t label, uint64_t lo, uint64_t hi,
                                                      const uint32_t words)
{
    r[0] = label;
    memcpy(r + 1, &lo, 8);
    if (words > 3)
        memcpy(r + 3, &hi, 8);
    else
        r[3] = (uint32_t)hi;
}

/* The pair form (see fast_expand_pair) on 128-bit vectors, for a constant
 * number of words (3 or 4) and group slots (1 or 2). */
static inline __attribute__((always_inline)) int w_expand_pair(struct succ_gen *g, const uint32_t *vec, bool *dedup,
                                                               struct wx_error *err, const uint32_t words,
                                                               const uint32_t groups)
{
    struct succ_fast *f = g->fast;
    const uint32_t nc = f->n, none = f->n_rules, st = words + 1;
    while (g->cap < g->n + (2 + 2 * (size_t)groups) * nc + 2)
        if (grow_output(g, err))
            return WX_ELIMIT;
    const u128 v = w_load(vec, words);
    const uint64_t lo = (uint64_t)v, hi = (uint64_t)(v >> 64);
    const struct fsimple **xs = f->xs;
    uint64_t *present = f->present;
    uint32_t self = f->always_dedup;
    size_t n = g->n;
    uint32_t *rec = g->rec;
    for (uint32_t c = 0; c < nc; c++) {
        const struct fcomp *fc = &f->comp[c];
        const struct fsimple *x = &f->simple[fc->base + w_field(v, fc)];
        xs[c] = x;
        self |= x->self;
        uint32_t *r = rec + n * st;
        w_put(r, x->l0, lo ^ x->d0, hi ^ x->d0h, words);
        w_put(r + st, x->l1, lo ^ x->d1, hi ^ x->d1h, words);
        n += x->nloc;
        for (uint32_t q = 0; q < groups; q++)
            present[x->pcls[q]] |= 1ull << c;
    }
    for (uint32_t c = 0; c < nc; c++) {
        const struct fsimple *x = xs[c];
        for (uint32_t q = 0; q < groups; q++) {
            const uint32_t r = x->rule[q], k = x->pcls[q];
            const struct fsimple *y = xs[f->rother[r]];
            const uint32_t yq = groups == 1 || y->pcls[0] == k ? 0 : 1;
            w_put(rec + n * st, f->rlabel[r], lo ^ x->gd[q] ^ y->gd[yq], hi ^ x->gdh[q] ^ y->gdh[yq], words);
            n += (r != none) & ((f->rmask[r] & ~present[k]) == 0);
        }
    }
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t q = 0; q < groups; q++)
            present[xs[c]->pcls[q]] = 0;
    g->n = n;
    *dedup = self != 0;
    return WX_OK;
}

static int w_expand_pair31(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    return w_expand_pair(g, vec, dedup, err, 3, 1);
}

static int w_expand_pair32(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    return w_expand_pair(g, vec, dedup, err, 3, 2);
}

static int w_expand_pair41(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    return w_expand_pair(g, vec, dedup, err, 4, 1);
}

static int w_expand_pair42(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    return w_expand_pair(g, vec, dedup, err, 4, 2);
}

/* The mask form (struct fmask): one pass over the components reads each
 * one's segment record, writes its first two local moves without a branch
 * and ORs its blocked rules; then only the rules that fire are visited
 * (each participant's group of the rule's class found in its segment, the
 * product built by fast_fire / w_fire).  For a constant number of words
 * (1-4), rule-mask words (1-2) and inline local moves written per
 * component (1-2: images whose segments all have at most one local move,
 * the common case, write one record, not two).  The output needs room for
 * 2 records per component beyond n up front; further records are emitted
 * with checks. */
static inline __attribute__((always_inline)) int mask_expand(struct succ_gen *g, const uint32_t *vec, bool *dedup,
                                                             struct wx_error *err, const uint32_t words,
                                                             const uint32_t mw, const uint32_t loc)
{
    struct succ_fast *f = g->fast;
    const uint32_t nc = f->n, st = words + 1;
    while (g->cap < g->n + 2 * (size_t)nc + 2)
        if (grow_output(g, err))
            return WX_ELIMIT;
    const u128 v = words > 2 ? w_load(vec, words) : (u128)(vec[0] | (words > 1 ? (uint64_t)vec[1] << 32 : 0));
    const uint64_t lo = (uint64_t)v, hi = (uint64_t)(v >> 64);
    const struct fmask *mask = f->mask;
    uint32_t *segi = f->segi;
    uint64_t b0 = 0, b1 = 0;
    uint32_t flags = f->always_dedup ? MASK_SELF : 0;
    size_t n = g->n;
    uint32_t *rec = g->rec;
    for (uint32_t c = 0; c < nc; c++) {
        const struct fcomp *fc = &f->comp[c];
        const uint32_t i = fc->base + (words > 2 ? w_field(v, fc) : (uint32_t)((lo >> fc->shift) & fc->mask));
        const struct fmask *x = &mask[i];
        segi[c] = i;
        b0 |= x->blk[0];
        if (mw > 1)
            b1 |= x->blk[1];
        flags |= x->flags;
        uint32_t *r = rec + n * st;
        if (words > 2) {
            w_put(r, x->l0, lo ^ x->d0, hi ^ x->d0h, words);
            if (loc > 1)
                w_put(r + st, x->l1, lo ^ x->d1, hi ^ x->d1h, words);
        } else {
            const uint64_t a = lo ^ x->d0;
            r[0] = x->l0;
            r[1] = (uint32_t)a;
            if (words > 1)
                r[2] = (uint32_t)(a >> 32);
            if (loc > 1) {
                const uint64_t b = lo ^ x->d1;
                r[st] = x->l1;
                r[st + 1] = (uint32_t)b;
                if (words > 1)
                    r[st + 2] = (uint32_t)(b >> 32);
            }
        }
        n += x->nloc;
    }
    g->n = n;
    if (flags & MASK_MORE)
        for (uint32_t c = 0; c < nc; c++) {
            const struct fseg *sg = &f->seg[segi[c]];
            for (uint32_t j = sg->loc + 2; j < sg->loc + sg->nloc; j++) {
                const int rc = words > 2 ? w_emit(g, f->loc_label[j], v ^ w_join(f->loc_delta[j], f->loc_delta_hi[j]), err)
                                         : fast_emit(g, f->loc_label[j], lo ^ f->loc_delta[j], err);
                if (rc)
                    return WX_ELIMIT;
            }
        }
    *dedup = (flags & MASK_SELF) != 0;
    const struct image *img = g->img;
    for (uint32_t w = 0; w < mw; w++)
        for (uint64_t on = f->mask_all[w] & ~(w ? b1 : b0); on; on &= on - 1) {
            const uint32_t r = w * 64 + (uint32_t)__builtin_ctzll(on), k = f->mrule_cls[r];
            const uint32_t label = img->class_result[k];
            /* Every participant has a class-k group (it does not block r);
             * the common case, one target each, is emitted here. */
            uint64_t alo = lo, ahi = hi;
            uint32_t single = 1;
            for (uint32_t q = g->rule_part_start[r]; q < g->rule_part_start[r + 1]; q++) {
                const uint32_t c = g->rule_part[q];
                uint32_t x = f->seg[segi[c]].grp;
                while (f->grp[x].cls != k)
                    x++;
                f->comp_grp[c] = x;
                const struct fgrp *gr = &f->grp[x];
                single &= gr->nd == 1;
                alo ^= f->delta[gr->d]; /* d <= nsync: in range even when nd == 0 */
                if (words > 2)
                    ahi ^= f->delta_hi[gr->d];
            }
            int rc;
            if (single)
                rc = words > 2 ? w_emit(g, label, w_join(alo, ahi), err) : fast_emit(g, label, alo, err);
            else
                rc = words > 2 ? w_fire(g, r, label, v, err) : fast_fire(g, r, label, lo, err);
            if (rc)
                return WX_ELIMIT;
        }
    return WX_OK;
}

#define MASK_FORM(W, M, L)                                                                              \
    static int mask_expand_##W##M##L(struct succ_gen *g, const uint32_t *vec, bool *dedup,             \
                                     struct wx_error *err)                                             \
    {                                                                                                   \
        return mask_expand(g, vec, dedup, err, W, M, L);                                               \
    }
#define MASK_FORMS(W) MASK_FORM(W, 1, 1) MASK_FORM(W, 1, 2) MASK_FORM(W, 2, 1) MASK_FORM(W, 2, 2)
MASK_FORMS(1)
MASK_FORMS(2)
MASK_FORMS(3)
MASK_FORMS(4)

typedef int (*expand_fn)(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err);
/* [words - 1][mask words - 1][inline local moves - 1] */
static const expand_fn mask_forms[4][2][2] = {
    { { mask_expand_111, mask_expand_112 }, { mask_expand_121, mask_expand_122 } },
    { { mask_expand_211, mask_expand_212 }, { mask_expand_221, mask_expand_222 } },
    { { mask_expand_311, mask_expand_312 }, { mask_expand_321, mask_expand_322 } },
    { { mask_expand_411, mask_expand_412 }, { mask_expand_421, mask_expand_422 } },
};

static int fast_expand(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    if (g->fast_mask && g->fast->mask)
        return mask_forms[g->words - 1][g->fast->mask_words - 1][g->fast->mask_loc - 1](g, vec, dedup, err);
    if (g->fast->wide) { /* the simple form is not specialised for 128 bits */
        if (!(g->fast_pair && g->fast_simple))
            return w_expand_loop(g, vec, dedup, err);
        if (g->words == 3)
            return g->fast->simple_groups == 1 ? w_expand_pair31(g, vec, dedup, err)
                                               : w_expand_pair32(g, vec, dedup, err);
        return g->fast->simple_groups == 1 ? w_expand_pair41(g, vec, dedup, err)
                                           : w_expand_pair42(g, vec, dedup, err);
    }
    if (g->fast_pair && g->fast_simple)
        return g->fast->simple_groups == 1 ? fast_expand_pair1(g, vec, dedup, err)
                                           : fast_expand_pair2(g, vec, dedup, err);
    if (g->fast_simple)
        return g->fast->simple_groups == 1 ? fast_expand_simple1(g, vec, dedup, err)
                                           : fast_expand_simple2(g, vec, dedup, err);
    struct succ_fast *f = g->fast;
    const uint64_t v = vec[0] | (g->words > 1 ? (uint64_t)vec[1] << 32 : 0);
    uint32_t self = f->always_dedup, nt = 0;
    int32_t no = 0;
    for (uint32_t c = 0; c < f->n; c++) {
        const struct fcomp *fc = &f->comp[c];
        const struct fseg *sg = &f->seg[fc->base + ((v >> fc->shift) & fc->mask)];
        self |= sg->self;
        for (uint32_t j = sg->loc, e = sg->loc + sg->nloc; j < e; j++)
            if (fast_emit(g, f->loc_label[j], v ^ f->loc_delta[j], err))
                return WX_ELIMIT;
        for (uint32_t x = sg->grp, e = sg->grp + sg->ngrp; x < e; x++) {
            uint32_t k = f->grp[x].cls;
            if (!f->present[k])
                f->touched[nt++] = k;
            f->present[k] |= 1ull << c;
            f->offer[no] = (struct foffer){ .grp = x, .comp = c, .next = f->head[k] };
            f->head[k] = no++;
        }
    }
    *dedup = self != 0;
    return fast_fire_touched(g, v, nt, err);
}

/* Unordered mode without duplicates to remove: only the hashes. */
static void hash_all(struct succ_gen *g)
{
    const size_t n = g->n;
    const uint32_t st = g->stride, words = g->words;
    const uint32_t *rec = g->rec + 1;
    uint64_t *h = g->hash;
    if (words == 1)
        for (size_t i = 0; i < n; i++)
            h[i] = vtable_hash_inline(rec + i * st, 1);
    else if (words == 2)
        for (size_t i = 0; i < n; i++)
            h[i] = vtable_hash_inline(rec + i * st, 2);
    else if (words == 3)
        for (size_t i = 0; i < n; i++)
            h[i] = vtable_hash_inline(rec + i * st, 3);
    else if (words == 4)
        for (size_t i = 0; i < n; i++)
            h[i] = vtable_hash_inline(rec + i * st, 4);
    else
        for (size_t i = 0; i < n; i++)
            h[i] = vtable_hash_inline(rec + i * st, words);
}

/* ---- the generator ---- */

int succ_expand(struct succ_gen *g, const uint32_t *vec, struct wx_error *err)
{
    const struct image *img = g->img;
    const uint32_t n = img->n_comps, ab = img->act_bits;
    uint32_t nruns = 0;
    g->n = 0;

    if (g->fast && g->use_fast) {
        bool dedup;
        if (fast_expand(g, vec, &dedup, err))
            return WX_ELIMIT;
        if (!g->unordered)
            return sort_unique(g, err);
        if (dedup)
            return hash_unique(g, err);
        hash_all(g);
        return WX_OK;
    }

    memcpy(g->cur, vec, (size_t)g->words * 4);
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t first = img->first_bit[c], width = img->first_bit[c + 1] - first;
        const uint32_t s = image_get_field(vec, first, width);
        const uint32_t *so = img->state_offsets + img->proc_offsets[c] + s;
        const uint32_t sb = img->state_bits[c], slots = image_entry_slots(ab, sb);
        uint32_t i = so[0];
        const uint32_t end = so[1];
        /* Local entries: the component moves alone.  g->cur is vec with
         * only this field rewritten, restored after the loop. */
        for (; i < end && !image_entry_is_sync(img->trans[i]); i++) {
            uint64_t e = img->trans[i];
            uint32_t label = image_entry_label(e, ab);
            for (uint32_t k = 0; k < slots; k++) {
                uint32_t t = image_entry_target(e, ab, sb, k);
                if (t == UINT32_MAX)
                    break;
                image_set_field(g->cur, first, width, t);
                if (emit(g, label, g->cur, err))
                    return WX_ELIMIT;
            }
        }
        image_set_field(g->cur, first, width, s);
        /* Sync entries, sorted by class: this component's run. */
        if (i < end) {
            g->run_comp[nruns] = c;
            g->run_pos[nruns] = i;
            g->run_end[nruns++] = end;
        }
    }
    if (nruns > 1
        && (g->strategy == SUCC_COUNTING ? fire_classes_counting(g, nruns, vec, err) : fire_classes(g, nruns, vec, err)))
        return WX_ELIMIT;
    return g->unordered ? hash_unique(g, err) : sort_unique(g, err);
}
