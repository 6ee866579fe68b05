/*
 * succ_fast128.c -- the fast path on vectors of 3 or 4 words read as one
 * 128-bit integer: the loop and pair forms (the simple form is not
 * specialised for 128 bits).  Kept apart from the 64-bit code so that the
 * common 1- and 2-word images pay nothing for it.
 */
#include "succ_fast.h"

int succ_wide_fire(struct succ_gen *g, uint32_t r, uint32_t label, u128 v, struct wx_error *err)
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
    return succ_wide_fire(g, r, label, *(const u128 *)v, err);
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

/* The pair form (see fast_expand_pair) on 128-bit vectors, for a constant
 * number of words (3 or 4) and group slots (1 or 2). */
static inline __attribute__((always_inline)) int w_expand_pair(struct succ_gen *g, const uint32_t *vec, bool *dedup,
                                                               struct wx_error *err, const uint32_t words,
                                                               const uint32_t groups)
{
    struct succ_fast *f = g->fast;
    const uint32_t nc = f->n, none = f->n_rules, st = words + 1;
    while (g->cap < g->n + (2 + 2 * (size_t)groups) * nc + 2)
        if (succ_grow_output(g, err))
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

int succ_wide_expand(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    if (!(g->fast_pair && g->fast_simple))
        return w_expand_loop(g, vec, dedup, err);
    if (g->words == 3)
        return g->fast->simple_groups == 1 ? w_expand_pair31(g, vec, dedup, err)
                                           : w_expand_pair32(g, vec, dedup, err);
    return g->fast->simple_groups == 1 ? w_expand_pair41(g, vec, dedup, err)
                                       : w_expand_pair42(g, vec, dedup, err);
}
