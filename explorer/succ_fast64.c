/*
 * succ_fast64.c -- the fast path on vectors of 1 or 2 words read as one
 * 64-bit integer: firing a rule, the loop, simple and pair forms, and the
 * choice of form for a state (succ_fast_expand).
 */
#include "succ_fast.h"

/* Fires rule r from state v: the product of its participants' groups. */
int succ_fast_fire(struct succ_gen *g, uint32_t r, uint32_t label, uint64_t v, struct wx_error *err)
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

static int fire64(struct succ_gen *g, uint32_t r, uint32_t label, const void *v, struct wx_error *err)
{
    return succ_fast_fire(g, r, label, *(const uint64_t *)v, err);
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
        if (succ_grow_output(g, err))
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
        if (succ_grow_output(g, err))
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

/* The loop form (any shape). */
static int fast_expand_loop(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
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

int succ_fast_expand(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err)
{
    if (g->fast_mask && g->fast->mask)
        return succ_mask_expand(g, vec, dedup, err);
    if (g->fast->wide)
        return succ_wide_expand(g, vec, dedup, err);
    if (g->fast_pair && g->fast_simple)
        return g->fast->simple_groups == 1 ? fast_expand_pair1(g, vec, dedup, err)
                                           : fast_expand_pair2(g, vec, dedup, err);
    if (g->fast_simple)
        return g->fast->simple_groups == 1 ? fast_expand_simple1(g, vec, dedup, err)
                                           : fast_expand_simple2(g, vec, dedup, err);
    return fast_expand_loop(g, vec, dedup, err);
}
