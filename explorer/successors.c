/*
 * successors.c -- the successor generator (semantics in successors.h): set-up,
 * the output buffer, sorting and deduplication, and succ_expand, whose general
 * path reads each component's entries here and fires the synchronisations in
 * succ_sync.c; the fast path is succ_fast*.c and succ_mask.c.
 */
#include "successors.h"
#include "succ_int.h"
#include "../hash/vtable.h"

#include <stdlib.h>
#include <string.h>

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
    if (img->prio_n) {
        g->prio_on = calloc(img->prio_n, 1);
        g->prio_marked = malloc((size_t)img->prio_n * sizeof *g->prio_marked);
        if (!g->prio_on || !g->prio_marked) {
            succ_free(g);
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "successor generator: out of memory");
        }
    }
    succ_fast_init(g);
    return WX_OK;
}

void succ_free(struct succ_gen *g)
{
    succ_fast_free(g->fast);
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
    free(g->prio_on);
    free(g->prio_marked);
    memset(g, 0, sizeof *g);
}

/* ---- output ---- */

int succ_grow_output(struct succ_gen *g, struct wx_error *err)
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

/* ---- the priority (image.h) ---- */

/* Drops the records whose label is below a label that leaves the state (a
 * label of some record) or is cut, and shows the others' labels.  The
 * records may then repeat (two labels shown alike): callers unique them. */
static void prio_filter(struct succ_gen *g)
{
    const struct image *img = g->img;
    const size_t n = g->n, st = g->stride;
    uint32_t *rec = g->rec;
    size_t marked = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t l = rec[i * st];
        if (!g->prio_on[l]) {
            g->prio_on[l] = 1;
            g->prio_marked[marked++] = l;
        }
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t l = rec[i * st], out = img->prio_out[l];
        bool blocked = out == IMAGE_PRIO_CUT;
        for (uint32_t j = img->prio_above_start[l]; j < img->prio_above_start[l + 1] && !blocked; j++)
            blocked = g->prio_on[img->prio_above[j]];
        if (blocked)
            continue;
        if (m != i)
            memmove(rec + m * st, rec + i * st, st * sizeof *rec);
        rec[m * st] = out;
        m++;
    }
    for (size_t i = 0; i < marked; i++)
        g->prio_on[g->prio_marked[i]] = 0;
    g->n = m;
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
        if (succ_fast_expand(g, vec, &dedup, err))
            return WX_ELIMIT;
        if (img->prio_n) {
            prio_filter(g);
            dedup = true;
        }
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
                if (succ_emit(g, label, g->cur, err))
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
        && (g->strategy == SUCC_COUNTING ? succ_fire_classes_counting(g, nruns, vec, err) : succ_fire_classes_heap(g, nruns, vec, err)))
        return WX_ELIMIT;
    if (img->prio_n)
        prio_filter(g);
    return g->unordered ? hash_unique(g, err) : sort_unique(g, err);
}
