/*
 * successors.c -- the successor generator (semantics in successors.h).
 */
#include "successors.h"

#include <stdlib.h>
#include <string.h>

/* Below this many records an insertion sort beats qsort_r's call overhead. */
#define SMALL_SORT 24

/* ---- image checks ---- */

static int bad(struct wx_error *err, const char *what, uint32_t a, uint32_t b)
{
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, "malformed image: %s (%u, %u)", what, a, b);
}

int succ_check_image(const struct image *img, struct wx_error *err)
{
    const uint32_t n = img->n_comps;
    if (img->words == 0 || img->words > IMAGE_MAX_WORDS)
        return bad(err, "words per vector out of range", img->words, IMAGE_MAX_WORDS);
    if (img->act_bits == 0 || img->act_bits > IMAGE_MAX_ACT_BITS)
        return bad(err, "act_bits out of range", img->act_bits, IMAGE_MAX_ACT_BITS);
    if (img->mask_words != (n + 31) / 32)
        return bad(err, "mask_words is not ceil(n_comps / 32)", img->mask_words, n);
    if (n && (!img->first_bit || !img->comp_states || !img->proc_offsets || !img->state_bits))
        return bad(err, "missing component arrays", n, 0);
    if (img->first_bit && img->first_bit[0] != 0)
        return bad(err, "first_bit[0] is not 0", img->first_bit[0], 0);
    for (uint32_t c = 0; c < n; c++) {
        uint32_t w = img->first_bit[c + 1] - img->first_bit[c];
        if (img->first_bit[c + 1] < img->first_bit[c] || w > 32)
            return bad(err, "field width of component out of range", c, w);
        if (img->comp_states[c] == 0 || (w < 32 && img->comp_states[c] > (1ull << w)))
            return bad(err, "states of component do not fit its field", c, img->comp_states[c]);
        if (img->state_bits[c] == 0 || img->state_bits[c] > 63 - img->act_bits
            || (img->state_bits[c] < 32 && img->comp_states[c] >= (1u << img->state_bits[c])))
            return bad(err, "slot width of component cannot hold its states", c, img->state_bits[c]);
    }
    if (n && img->first_bit[n] > 32 * img->words)
        return bad(err, "fields extend beyond the vector", img->first_bit[n], img->words);
    if (n && img->proc_offsets[0] != 0)
        return bad(err, "proc_offsets[0] is not 0", img->proc_offsets[0], 0);
    for (uint32_t c = 0; c < n; c++)
        if (img->proc_offsets[c + 1] - img->proc_offsets[c] != img->comp_states[c] + 1)
            return bad(err, "component does not have comp_states + 1 state offsets", c, img->comp_states[c]);
    if (img->n_classes && (!img->class_result || !img->class_rule_start))
        return bad(err, "missing class arrays", img->n_classes, 0);
    for (uint32_t k = 0; k < img->n_classes; k++) {
        if (img->class_result[k] >= img->n_labels)
            return bad(err, "result label of class out of range", k, img->class_result[k]);
        if (img->class_rule_start[k + 1] < img->class_rule_start[k])
            return bad(err, "class rule ranges not ascending", k, img->class_rule_start[k]);
    }
    if ((img->n_classes ? img->class_rule_start[img->n_classes] : 0) != img->n_rules
        || (img->n_classes && img->class_rule_start[0] != 0))
        return bad(err, "class rule ranges do not cover the rules", img->n_classes, img->n_rules);
    for (uint32_t r = 0; r < img->n_rules; r++) {
        uint32_t any = 0;
        for (uint32_t w = 0; w < img->mask_words; w++) {
            uint32_t m = img->rule_mask[(size_t)r * img->mask_words + w];
            if (w == img->mask_words - 1 && n % 32 && (m >> (n % 32)))
                return bad(err, "rule names a component beyond n_comps", r, n);
            any |= m;
        }
        if (!any)
            return bad(err, "rule has no participant", r, 0);
    }
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t *so = img->state_offsets + img->proc_offsets[c];
        const uint32_t sb = img->state_bits[c];
        const uint32_t slots = image_entry_slots(img->act_bits, sb);
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            if (so[s + 1] < so[s] || so[s + 1] > img->n_entries)
                return bad(err, "entry segment out of range: component, state", c, s);
            int seen_sync = 0;
            uint32_t last_class = 0;
            for (uint32_t i = so[s]; i < so[s + 1]; i++) {
                uint64_t e = img->trans[i];
                uint32_t l = image_entry_label(e, img->act_bits);
                if (image_entry_is_sync(e)) {
                    if (l >= img->n_classes)
                        return bad(err, "class id out of range in entry", i, l);
                    if (seen_sync && l < last_class)
                        return bad(err, "sync entries not sorted by class in entry", i, l);
                    seen_sync = 1, last_class = l;
                } else {
                    if (seen_sync)
                        return bad(err, "local entry after a sync entry", i, l);
                    if (l >= img->n_labels)
                        return bad(err, "label id out of range in entry", i, l);
                }
                int empty_seen = 0;
                for (uint32_t k = 0; k < slots; k++) {
                    uint32_t t = image_entry_target(e, img->act_bits, sb, k);
                    if (t == UINT32_MAX)
                        empty_seen = 1;
                    else if (empty_seen)
                        return bad(err, "filled slot after an empty one in entry", i, k);
                    else if (t >= img->comp_states[c])
                        return bad(err, "target out of range in entry", i, t);
                }
                /* Bits above the last slot must be clear. */
                uint32_t used = 1 + img->act_bits + slots * sb;
                if (used < 64 && (e >> used))
                    return bad(err, "stray bits above the slots in entry", i, used);
            }
        }
    }
    return WX_OK;
}

/* ---- set-up ---- */

int succ_init(struct succ_gen *g, const struct image *img, struct wx_error *err)
{
    memset(g, 0, sizeof *g);
    const uint32_t n = img->n_comps;
    g->img = img;
    g->words = img->words;
    g->stride = img->words + 1;

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
    g->max_groups = max_groups;

    size_t parts = 0;
    for (size_t i = 0; i < (size_t)img->n_rules * img->mask_words; i++)
        parts += (size_t)__builtin_popcount(img->rule_mask[i]);

    g->cap = 16;
    g->rec = malloc(g->cap * g->stride * 4);
    g->rec2 = malloc(g->cap * g->stride * 4);
    g->order_cap = 16;
    g->order = malloc(g->order_cap * sizeof *g->order);
    g->groups = malloc((max_groups + 1) * sizeof *g->groups);
    g->group_of = malloc(((size_t)n + 1) * sizeof *g->group_of);
    g->present = calloc((size_t)img->mask_words + 1, sizeof *g->present);
    g->targets_cap = 64;
    g->targets = malloc(g->targets_cap * sizeof *g->targets);
    g->rule_part_start = malloc(((size_t)img->n_rules + 1) * sizeof *g->rule_part_start);
    g->rule_part = malloc((parts + 1) * sizeof *g->rule_part);
    g->parts = malloc(((size_t)n + 1) * sizeof *g->parts);
    g->odo = malloc(((size_t)n + 1) * sizeof *g->odo);
    g->cur = malloc((size_t)g->words * sizeof *g->cur);
    if (!g->rec || !g->rec2 || !g->order || !g->groups || !g->group_of || !g->present || !g->targets
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
    return WX_OK;
}

void succ_free(struct succ_gen *g)
{
    free(g->rec);
    free(g->rec2);
    free(g->order);
    free(g->groups);
    free(g->group_of);
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
    if (!a || !b)
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
    memcpy(r + 1, vec, (size_t)g->words * 4);
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

static int group_cmp(const void *x, const void *y)
{
    uint64_t a = ((const struct succ_group *)x)->key, b = ((const struct succ_group *)y)->key;
    return a < b ? -1 : a > b;
}

/* Fires the rules of class k, whose groups are g->groups[gi .. gj). */
static int fire_class(struct succ_gen *g, uint32_t k, size_t gi, size_t gj, const uint32_t *vec,
                      struct wx_error *err)
{
    const struct image *img = g->img;
    const uint32_t mw = img->mask_words;
    int rc = WX_OK;
    for (size_t x = gi; x < gj; x++) {
        uint32_t c = (uint32_t)g->groups[x].key;
        g->present[c >> 5] |= 1u << (c & 31);
        g->group_of[c] = (uint32_t)x;
        g->groups[x].tcount = UINT32_MAX;
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
            struct succ_group *gr = &g->groups[g->group_of[c]];
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
    for (size_t x = gi; x < gj; x++) {
        uint32_t c = (uint32_t)g->groups[x].key;
        g->present[c >> 5] &= ~(1u << (c & 31));
    }
    return rc;
}

/* ---- the generator ---- */

int succ_expand(struct succ_gen *g, const uint32_t *vec, struct wx_error *err)
{
    const struct image *img = g->img;
    const uint32_t n = img->n_comps, ab = img->act_bits;
    size_t ng = 0;
    g->n = 0;

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
        /* Sync entries: one group per class, in class order. */
        while (i < end) {
            uint32_t k = image_entry_label(img->trans[i], ab), j = i + 1;
            while (j < end && image_entry_label(img->trans[j], ab) == k)
                j++;
            g->groups[ng].key = (uint64_t)k << 32 | c;
            g->groups[ng].begin = i;
            g->groups[ng].end = j;
            ng++;
            i = j;
        }
    }
    if (ng > 1) {
        /* Groups arrive sorted by component, then class; order by class. */
        if (ng <= SMALL_SORT) {
            for (size_t i = 1; i < ng; i++) {
                struct succ_group x = g->groups[i];
                size_t j = i;
                while (j > 0 && g->groups[j - 1].key > x.key) {
                    g->groups[j] = g->groups[j - 1];
                    j--;
                }
                g->groups[j] = x;
            }
        } else {
            qsort(g->groups, ng, sizeof *g->groups, group_cmp);
        }
    }
    for (size_t gi = 0; gi < ng;) {
        uint32_t k = (uint32_t)(g->groups[gi].key >> 32);
        size_t gj = gi + 1;
        while (gj < ng && (uint32_t)(g->groups[gj].key >> 32) == k)
            gj++;
        if (fire_class(g, k, gi, gj, vec, err))
            return WX_ELIMIT;
        gi = gj;
    }
    return sort_unique(g, err);
}
