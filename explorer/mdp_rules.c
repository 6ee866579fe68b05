/*
 * mdp_rules.c -- the rules of a probabilistic image by anchor (mdp_rules.h).
 */
#include "mdp_rules.h"

#include <stdlib.h>
#include <string.h>

#include "../util/arith.h"
#include "../util/config.h"

/* (component, class) pairs: offers counted per pair, rules filed per pair. */
struct triple {
    uint32_t c, k, r;
};

static int cmp_triple(const void *a, const void *b)
{
    const struct triple *x = a, *y = b;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return x->r < y->r ? -1 : x->r > y->r;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Every rule's participants (rule_mask) into r->part_start / r->part. */
static int participants(const struct image *img, struct mdp_rules *r)
{
    uint64_t n = 0;
    for (uint64_t w = 0; w < (uint64_t)img->n_rules * img->mask_words; w++)
        n += (uint64_t)__builtin_popcount(img->rule_mask[w]);
    r->part_start = malloc(((size_t)img->n_rules + 1) * sizeof *r->part_start);
    r->part = malloc((n ? n : 1) * sizeof *r->part);
    if (!r->part_start || !r->part)
        return -1;
    n = 0;
    for (uint32_t k = 0; k < img->n_rules; k++) {
        r->part_start[k] = (uint32_t)n;
        const uint32_t *m = img->rule_mask + (size_t)k * img->mask_words;
        for (uint32_t c = 0; c < img->n_comps; c++)
            if (m[c / 32] >> (c % 32) & 1)
                r->part[n++] = c;
    }
    r->part_start[img->n_rules] = (uint32_t)n;
    return 0;
}

/* Per component, the classes its segments offer with the number of local
 * states offering each: offer_cls[offer_start[c] ..] ascending, counts in
 * offer_n.  Allocates the three arrays. */
struct offers {
    uint32_t *start, *cls, *n;
};

static int count_offers(const struct image *img, struct offers *o)
{
    const uint32_t nc = img->n_comps;
    const size_t cap = img->n_pchoices; /* at most one class per choice */
    o->start = malloc(((size_t)nc + 1) * sizeof *o->start);
    o->cls = malloc((cap ? cap : 1) * sizeof *o->cls);
    o->n = malloc((cap ? cap : 1) * sizeof *o->n);
    if (!o->start || !o->cls || !o->n)
        return -1;
    size_t m = 0;
    for (uint32_t c = 0; c < nc; c++) {
        const size_t base = m;
        o->start[c] = (uint32_t)base;
        /* component c's local states are the offsets [proc_offsets[c],
         * proc_offsets[c + 1] - 1): the last offset ends the last state */
        for (uint32_t s = img->proc_offsets[c]; s + 1 < img->proc_offsets[c + 1]; s++) {
            uint32_t last = UINT32_MAX;
            for (uint32_t i = img->pchoice_offsets[s]; i < img->pchoice_offsets[s + 1]; i++) {
                const uint32_t key = img->pchoice_key[i];
                if (!(key & IMAGE_PCHOICE_SYNC) || key == last)
                    continue; /* one count per state and class */
                last = key;
                o->cls[m++] = key & ~IMAGE_PCHOICE_SYNC;
            }
        }
        qsort(o->cls + base, m - base, sizeof *o->cls, cmp_u32);
        size_t d = base;
        for (size_t i = base; i < m; i++) {
            if (d > base && o->cls[d - 1] == o->cls[i]) {
                o->n[d - 1]++;
                continue;
            }
            o->cls[d] = o->cls[i], o->n[d++] = 1;
        }
        m = d;
    }
    o->start[nc] = (uint32_t)m;
    return 0;
}

/* The number of component c's local states offering class k. */
static uint32_t offered(const struct offers *o, uint32_t c, uint32_t k)
{
    const uint32_t i = wx_lower_bound_u32(o->cls, o->start[c], o->start[c + 1], k);
    return i < o->start[c + 1] && o->cls[i] == k ? o->n[i] : 0;
}

/* The triples (anchor, class, rule) of the rules that can fire, sorted. */
static struct triple *anchor_rules(const struct image *img, const struct mdp_rules *r,
                                   const struct offers *o, size_t *n_out)
{
    struct triple *t = malloc((img->n_rules ? img->n_rules : 1) * sizeof *t);
    size_t n = 0;
    if (!t)
        return NULL;
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t rr = img->class_rule_start[k]; rr < img->class_rule_start[k + 1]; rr++) {
            uint32_t best = UINT32_MAX, best_n = UINT32_MAX;
            for (uint32_t j = r->part_start[rr]; j < r->part_start[rr + 1]; j++) {
                const uint32_t m = offered(o, r->part[j], k);
                if (m < best_n)
                    best = r->part[j], best_n = m;
            }
            if (best != UINT32_MAX && best_n > 0) /* else it never fires */
                t[n++] = (struct triple){best, k, rr};
        }
    qsort(t, n, sizeof *t, cmp_triple);
    *n_out = n;
    return t;
}

/* The triples grouped into the anchored pairs. */
static int file_rules(const struct image *img, struct mdp_rules *r, const struct triple *t, size_t n)
{
    uint32_t pairs = 0;
    for (size_t i = 0; i < n; i++)
        pairs += i == 0 || t[i].c != t[i - 1].c || t[i].k != t[i - 1].k;
    r->n_anch = pairs;
    r->anch_start = calloc((size_t)img->n_comps + 1, sizeof *r->anch_start);
    r->anch_class = malloc((pairs ? pairs : 1) * sizeof *r->anch_class);
    r->rule_start = malloc(((size_t)pairs + 1) * sizeof *r->rule_start);
    r->rule = malloc((n ? n : 1) * sizeof *r->rule);
    if (!r->anch_start || !r->anch_class || !r->rule_start || !r->rule)
        return -1;
    uint32_t p = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || t[i].c != t[i - 1].c || t[i].k != t[i - 1].k) {
            r->anch_class[p] = t[i].k;
            r->rule_start[p++] = (uint32_t)i;
            r->anch_start[t[i].c + 1]++;
        }
        r->rule[i] = t[i].r;
    }
    r->rule_start[pairs] = (uint32_t)n;
    for (uint32_t c = 0; c < img->n_comps; c++)
        r->anch_start[c + 1] += r->anch_start[c];
    return 0;
}

/* Does local state ls (an index into pchoice_offsets) offer class k? */
static int offers_class(const struct image *img, uint32_t ls, uint32_t k)
{
    const uint32_t key = IMAGE_PCHOICE_SYNC | k, end = img->pchoice_offsets[ls + 1];
    const uint32_t i = wx_lower_bound_u32(img->pchoice_key, img->pchoice_offsets[ls], end, key);
    return i < end && img->pchoice_key[i] == key;
}

/* The anchors' rules tried per state: per component the mean over its
 * local states of the rules anchored at the classes offered there. */
static double anchor_tries(const struct image *img, const struct mdp_rules *r)
{
    double sum = 0;
    for (uint32_t c = 0; c < img->n_comps; c++) {
        const uint32_t first = img->proc_offsets[c], end = img->proc_offsets[c + 1] - 1;
        uint64_t tries = 0;
        for (uint32_t ls = first; ls < end; ls++) {
            uint32_t cur = r->anch_start[c];
            for (uint32_t i = img->pchoice_offsets[ls]; i < img->pchoice_offsets[ls + 1]; i++) {
                const uint32_t key = img->pchoice_key[i];
                if (!(key & IMAGE_PCHOICE_SYNC) ||
                    (i + 1 < img->pchoice_offsets[ls + 1] && img->pchoice_key[i + 1] == key))
                    continue;
                const uint32_t p = mdp_rules_find(r->anch_start, r->anch_class, c, &cur, key & ~IMAGE_PCHOICE_SYNC);
                if (p != UINT32_MAX)
                    tries += r->rule_start[p + 1] - r->rule_start[p];
            }
        }
        sum += end > first ? (double)tries / (end - first) : 0;
    }
    return sum;
}

/* The masks (mdp_rules.h); -1 when out of memory. */
static int build_masks(const struct image *img, struct mdp_rules *r, uint32_t words)
{
    const uint32_t n_ls = img->proc_offsets[img->n_comps];
    r->blocked = calloc((size_t)n_ls * words, sizeof *r->blocked);
    r->valid = calloc(words, sizeof *r->valid);
    r->rule_class = malloc(((size_t)img->n_rules + 1) * sizeof *r->rule_class);
    if (!r->blocked || !r->valid || !r->rule_class)
        return -1;
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t rr = img->class_rule_start[k]; rr < img->class_rule_start[k + 1]; rr++) {
            r->rule_class[rr] = k;
            if (r->part_start[rr] < r->part_start[rr + 1])
                r->valid[rr / 64] |= 1ull << (rr % 64);
            for (uint32_t j = r->part_start[rr]; j < r->part_start[rr + 1]; j++) {
                const uint32_t c = r->part[j];
                for (uint32_t ls = img->proc_offsets[c]; ls + 1 < img->proc_offsets[c + 1]; ls++)
                    if (!offers_class(img, ls, k))
                        r->blocked[(size_t)ls * words + rr / 64] |= 1ull << (rr % 64);
            }
        }
    r->mask_words = words;
    return 0;
}

/* The masks when `walk` wants them (mdp_rules.h); -1 when out of memory. */
static int pick_walk(const struct image *img, enum mdp_rule_walk walk, struct mdp_rules *r)
{
    const uint64_t words = ((uint64_t)img->n_rules + 63) / 64;
    const uint64_t bytes = (uint64_t)img->proc_offsets[img->n_comps] * words * 8;
    if (walk == MDP_WALK_ANCHORS || words == 0 || bytes > MDP_MASK_MAX_BYTES)
        return 0;
    if (walk == MDP_WALK_AUTO && (words > MDP_MASK_MAX_WORDS ||
                                  (double)img->n_comps * (double)words >
                                      MDP_MASK_COST_RATIO * anchor_tries(img, r)))
        return 0;
    return build_masks(img, r, (uint32_t)words);
}

int mdp_rules_build(const struct image *img, enum mdp_rule_walk walk, struct mdp_rules *r,
                    struct wx_error *err)
{
    struct offers o = {0};
    struct triple *t = NULL;
    size_t n = 0;
    memset(r, 0, sizeof *r);
    r->n_rules = img->n_rules;
    int bad = participants(img, r) != 0 || count_offers(img, &o) != 0 ||
              !(t = anchor_rules(img, r, &o, &n)) || file_rules(img, r, t, n) != 0 ||
              pick_walk(img, walk, r) != 0;
    free(o.start), free(o.cls), free(o.n), free(t);
    if (bad) {
        mdp_rules_free(r);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    }
    return WX_OK;
}

void mdp_rules_free(struct mdp_rules *r)
{
    free(r->part_start), free(r->part), free(r->anch_start), free(r->anch_class);
    free(r->rule_start), free(r->rule);
    free(r->blocked), free(r->valid), free(r->rule_class);
    memset(r, 0, sizeof *r);
}
