/*
 * succ_mask.c -- the fast path's mask form (struct fmask in succ_fast.h):
 * the rules that fire in a state found by ORing per-component masks of
 * blocked rules, specialised for 1-4 words, 1-2 mask words and 1-2 inline
 * local moves.
 */
#include "succ_fast.h"

/* The mask form (struct fmask): one pass over the components reads each
 * one's segment record, writes its first two local moves without a branch
 * and ORs its blocked rules; then only the rules that fire are visited
 * (each participant's group of the rule's class found in its segment, the
 * product built by succ_fast_fire / succ_wide_fire).  For a constant
 * number of words (1-4), rule-mask words (1-2) and inline local moves written per
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
        if (succ_grow_output(g, err))
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
                rc = words > 2 ? succ_wide_fire(g, r, label, v, err) : succ_fast_fire(g, r, label, lo, err);
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

int succ_mask_expand(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    return mask_forms[g->words - 1][g->fast->mask_words - 1][g->fast->mask_loc - 1](g, vec, dedup, err);
}
