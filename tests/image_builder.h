/*
 * image_builder.h -- builds small network images by hand for tests and
 * benchmarks, straight from image.h's layout: components with their states
 * and field widths, local and synchronising transitions in plain lists, and
 * synchronisation rules per class.  Header-only (static functions); the
 * caller frees an image with image_free() (network/image.h).
 *
 * Encoding choices left open by image.h are randomised with the given rng
 * (order of local entries, how many targets share an entry when
 * max_per_entry is set), so the explorers meet all legal layouts.
 */
#ifndef WX_TEST_IMAGE_BUILDER_H
#define WX_TEST_IMAGE_BUILDER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "network/image.h"

static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint32_t rnd(uint64_t *s, uint32_t n) { return n ? (uint32_t)(rng_next(s) % n) : 0; }

static inline uint32_t bits_for(uint32_t v) /* bits to hold values 0 .. v */
{
    uint32_t b = 0;
    while (b < 32 && (v >> b))
        b++;
    return b;
}

/* A network to encode: n components (at most 128), each with states[c]
 * states in a field of width[c] bits (width may exceed what the states
 * need), slot width sbits[c] (0 = smallest); transitions (component,
 * state, sync?, label or class, target); rules of >= 2 components per
 * class. */
#define TB_MAX_TRANS 16384u

struct ttr { uint32_t c, s, sync, lab, tgt; }; /* lab: label (local) or class (sync) */

struct tb {
    uint32_t n, n_labels, n_classes;
    uint32_t states[128], width[128], sbits[128];
    uint32_t act_bits;           /* 0 = smallest that fits */
    uint32_t max_per_entry;      /* 0 = fill entries; else at most this many targets per entry */
    struct ttr tr[TB_MAX_TRANS];
    uint32_t ntr;
    uint32_t class_result[64];
    uint32_t rule_class[256], rule_np[256], rule_comp[256][128];
    uint32_t nrules;
};

static inline void tb_add(struct tb *b, uint32_t c, uint32_t s, uint32_t sync, uint32_t lab, uint32_t tgt)
{
    if (b->ntr < TB_MAX_TRANS)
        b->tr[b->ntr++] = (struct ttr){ c, s, sync, lab, tgt };
}

static inline void tb_rule(struct tb *b, uint32_t k, uint32_t np, const uint32_t *comps)
{
    b->rule_class[b->nrules] = k;
    b->rule_np[b->nrules] = np;
    memcpy(b->rule_comp[b->nrules], comps, np * 4);
    b->nrules++;
}

static inline int ttr_order(const void *x, const void *y)
{
    const struct ttr *a = x, *b = y;
    if (a->sync != b->sync)
        return a->sync < b->sync ? -1 : 1;
    if (a->lab != b->lab)
        return a->lab < b->lab ? -1 : 1;
    return 0;
}

/* Encodes b into img.  rng shuffles local entry order and splits. */
static inline void tb_build(const struct tb *b, struct image *img, uint64_t *rng)
{
    memset(img, 0, sizeof *img);
    uint32_t n = b->n;
    img->n_comps = n;
    img->n_labels = b->n_labels;
    img->hidden = UINT32_MAX;
    img->first_bit = calloc(n + 1, 4);
    img->comp_states = calloc(n + 1, 4);
    img->state_bits = calloc(n + 1, 4);
    for (uint32_t c = 0; c < n; c++) {
        img->first_bit[c + 1] = img->first_bit[c] + b->width[c];
        img->comp_states[c] = b->states[c];
        img->state_bits[c] = b->sbits[c] ? b->sbits[c] : bits_for(b->states[c]);
    }
    img->words = (img->first_bit[n] + 1 + 31) / 32; /* keep bit 31 of the last word free */
    uint32_t ab = bits_for(b->n_labels ? b->n_labels - 1 : 0);
    uint32_t abk = bits_for(b->n_classes ? b->n_classes - 1 : 0);
    if (abk > ab)
        ab = abk;
    if (ab == 0)
        ab = 1;
    if (b->act_bits > ab)
        ab = b->act_bits;
    img->act_bits = ab;

    img->proc_offsets = calloc(n + 1, 4);
    uint32_t total_states = 0;
    for (uint32_t c = 0; c < n; c++) {
        img->proc_offsets[c] = total_states;
        total_states += b->states[c] + 1;
    }
    img->proc_offsets[n] = total_states;
    img->state_offsets = calloc(total_states + 1, 4);
    img->trans = calloc(4 * b->ntr + 8, 8);
    uint32_t ne = 0;
    struct ttr *tmp = malloc((b->ntr + 1) * sizeof *tmp);
    for (uint32_t c = 0; c < n; c++) {
        uint32_t sb = img->state_bits[c], slots = (63 - ab) / sb;
        for (uint32_t s = 0; s < b->states[c]; s++) {
            img->state_offsets[img->proc_offsets[c] + s] = ne;
            uint32_t m = 0;
            for (uint32_t i = 0; i < b->ntr; i++)
                if (b->tr[i].c == c && b->tr[i].s == s)
                    tmp[m++] = b->tr[i];
            /* Local first, sync by class; within local, shuffle the label
             * groups' order (image.h does not sort local entries). */
            qsort(tmp, m, sizeof *tmp, ttr_order);
            uint32_t nl = 0;
            while (nl < m && !tmp[nl].sync)
                nl++;
            for (uint32_t i = nl; i > 1; i--) {
                uint32_t r = rnd(rng, i);
                struct ttr x = tmp[i - 1];
                tmp[i - 1] = tmp[r], tmp[r] = x;
            }
            /* Group runs of (sync, lab) -- locals are shuffled, so one label
             * may form several runs, which is allowed -- and split each run
             * into entries. */
            for (uint32_t i = 0; i < m;) {
                uint32_t j = i;
                while (j < m && tmp[j].sync == tmp[i].sync && tmp[j].lab == tmp[i].lab)
                    j++;
                for (uint32_t p = i; p < j;) {
                    uint32_t cap = slots;
                    if (b->max_per_entry && b->max_per_entry < cap)
                        cap = 1 + rnd(rng, b->max_per_entry);
                    uint64_t e = tmp[i].sync | (uint64_t)tmp[i].lab << 1;
                    for (uint32_t k = 0; k < cap && p < j; k++, p++)
                        e |= (uint64_t)(tmp[p].tgt + 1) << (1 + ab + k * sb);
                    img->trans[ne++] = e;
                }
                i = j;
            }
        }
        img->state_offsets[img->proc_offsets[c] + b->states[c]] = ne;
    }
    free(tmp);
    img->n_entries = ne;

    img->n_classes = b->n_classes;
    img->class_result = calloc(b->n_classes + 1, 4);
    memcpy(img->class_result, b->class_result, b->n_classes * 4);
    img->class_rule_start = calloc(b->n_classes + 2, 4);
    img->mask_words = (n + 31) / 32;
    img->n_rules = b->nrules;
    img->rule_mask = calloc((size_t)b->nrules * img->mask_words + 1, 4);
    uint32_t r = 0;
    for (uint32_t k = 0; k < b->n_classes; k++) {
        img->class_rule_start[k] = r;
        for (uint32_t q = 0; q < b->nrules; q++) {
            if (b->rule_class[q] != k)
                continue;
            for (uint32_t i = 0; i < b->rule_np[q]; i++) {
                uint32_t c = b->rule_comp[q][i];
                img->rule_mask[(size_t)r * img->mask_words + c / 32] |= 1u << (c % 32);
            }
            r++;
        }
    }
    img->class_rule_start[b->n_classes] = r;
    img->n_rules = r;
    img->max_class_entries = 0;
}

/* A random network.  Large ones (> 32 components) keep most components
 * quiet so that the state space stays small. */
static inline void tb_random(struct tb *b, uint64_t *rng)
{
    memset(b, 0, sizeof *b);
    uint32_t kind = rnd(rng, 10);
    b->n = kind < 4 ? 1 + rnd(rng, 5) : kind < 8 ? 6 + rnd(rng, 12) : 33 + rnd(rng, 40);
    b->n_labels = 1 + rnd(rng, 8);
    /* Mostly a few classes; sometimes many, so that one component offers
     * classes nobody else does (the generator's skip path). */
    b->n_classes = rnd(rng, 4) == 0 ? rnd(rng, 41) : rnd(rng, 7);
    if (rnd(rng, 4) == 0)
        b->act_bits = 10 + rnd(rng, 22);  /* few slots per entry */
    if (rnd(rng, 3) == 0)
        b->max_per_entry = 1 + rnd(rng, 3); /* many entries per class */
    double active = b->n <= 6 ? 0.9 : 5.0 / b->n;
    for (uint32_t c = 0; c < b->n; c++) {
        b->states[c] = 1 + rnd(rng, rnd(rng, 4) == 0 ? 9 : 4);
        uint32_t need = bits_for(b->states[c] - 1);
        b->width[c] = need + (rnd(rng, 5) == 0 ? rnd(rng, 4) : 0);
        if (b->width[c] > 32)
            b->width[c] = 32;
        if (rnd(rng, 6) == 0)
            b->sbits[c] = bits_for(b->states[c]) + rnd(rng, 5);
    }
    for (uint32_t k = 0; k < b->n_classes; k++) {
        b->class_result[k] = rnd(rng, b->n_labels);
        uint32_t nr = 1 + rnd(rng, 3);
        uint32_t pool[6], np = 2 + rnd(rng, 3);
        for (uint32_t i = 0; i < np; i++)
            pool[i] = rnd(rng, b->n);
        for (uint32_t q = 0; q < nr; q++) {
            uint32_t comps[6], m = 0;
            for (uint32_t i = 0; i < np; i++) {
                if (q && rnd(rng, 3) == 0)
                    continue;
                int dup = 0;
                for (uint32_t j = 0; j < m; j++)
                    dup |= comps[j] == pool[i];
                if (!dup)
                    comps[m++] = pool[i];
            }
            if (m >= 2)
                tb_rule(b, k, m, comps);
        }
    }
    for (uint32_t c = 0; c < b->n; c++) {
        int act = rnd(rng, 1000) < active * 1000;
        for (uint32_t s = 0; s < b->states[c]; s++) {
            if (act && rnd(rng, 4) != 0) {
                uint32_t m = 1 + rnd(rng, 3);
                for (uint32_t i = 0; i < m; i++)
                    tb_add(b, c, s, 0, rnd(rng, b->n_labels), rnd(rng, b->states[c]));
            }
            for (uint32_t k = 0; k < b->n_classes; k++) {
                int in = 0;
                for (uint32_t q = 0; q < b->nrules; q++)
                    for (uint32_t i = 0; i < b->rule_np[q]; i++)
                        in |= b->rule_class[q] == k && b->rule_comp[q][i] == c;
                if (!in || rnd(rng, 10) < 4)
                    continue;
                uint32_t m = 1 + rnd(rng, rnd(rng, 3) == 0 ? 6 : 2);
                for (uint32_t i = 0; i < m; i++)
                    tb_add(b, c, s, 1, k, rnd(rng, b->states[c]));
            }
        }
    }
}

#endif
