/*
 * succ_fast_init.c -- building the fast path's tables from the image
 * (succ_fast.h): per component state its local moves and class groups as
 * XOR deltas, the rules by lowest participant, the duplicate analysis, and
 * the simple, pair and mask forms where the image allows them.
 */
#include "succ_fast.h"

#include <stdlib.h>
#include <string.h>

void succ_fast_free(struct succ_fast *f)
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
        succ_fast_free(f);
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
void succ_fast_init(struct succ_gen *g)
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
        succ_fast_free(f);
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
