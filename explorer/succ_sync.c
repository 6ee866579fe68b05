/*
 * succ_sync.c -- the general path's synchronisation: the classes offered by
 * two or more components in a state are visited in increasing class order
 * (a heap merge of the components' runs, or a counting sort), and each
 * enabled rule of a class fires the cartesian product of its participants'
 * targets (successors.h gives the semantics).
 */
#include "succ_int.h"

#include <stdlib.h>
#include <string.h>

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
        if (succ_emit(g, label, g->cur, err))
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
int succ_fire_classes_heap(struct succ_gen *g, uint32_t nruns, const uint32_t *vec, struct wx_error *err)
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
int succ_fire_classes_counting(struct succ_gen *g, uint32_t nruns, const uint32_t *vec, struct wx_error *err)
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
