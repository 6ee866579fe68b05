/*
 * succ_fast.h -- the fast path's tables and the helpers its files share
 * (succ_fast_init.c builds the tables; succ_fast64.c, succ_fast128.c and
 * succ_mask.c expand states with them).
 */
#ifndef WX_SUCC_FAST_H
#define WX_SUCC_FAST_H

#include "succ_int.h"

#include <string.h>

/* The most classes one component state may offer for the fast path (it
 * visits every offer; the general path's strategies skip lone ones). */
#define FAST_MAX_GROUPS 16u
/* The most memory one generator's fast-path tables may take. */
#define FAST_MAX_BYTES (64u << 20)

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

static inline int fast_emit(struct succ_gen *g, uint32_t label, uint64_t v, struct wx_error *err)
{
    if (g->n == g->cap && succ_grow_output(g, err))
        return WX_ELIMIT;
    uint32_t *r = g->rec + g->n * g->stride;
    r[0] = label;
    r[1] = (uint32_t)v;
    if (g->words > 1)
        r[2] = (uint32_t)(v >> 32);
    g->n++;
    return WX_OK;
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

/* ---- 3 and 4 words: 128-bit vectors (deltas split into the low and high
 * arrays) ---- */

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
    if (g->n == g->cap && succ_grow_output(g, err))
        return WX_ELIMIT;
    w_store(g->rec + g->n * g->stride, label, v, g->words);
    g->n++;
    return WX_OK;
}

static inline uint32_t w_field(u128 v, const struct fcomp *fc)
{
    return (uint32_t)((uint64_t)(v >> fc->shift) & fc->mask);
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

/* Fires rule r from state v: the product of its participants' groups
 * (64-bit vectors: succ_fast64.c; 128-bit: succ_fast128.c). */
int succ_fast_fire(struct succ_gen *g, uint32_t r, uint32_t label, uint64_t v, struct wx_error *err);
int succ_wide_fire(struct succ_gen *g, uint32_t r, uint32_t label, u128 v, struct wx_error *err);

/* The forms for 3 and 4 words other than the mask form (succ_fast128.c),
 * and the mask form for any width (succ_mask.c); both append the records
 * of vec and set *dedup like succ_fast_expand. */
int succ_wide_expand(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err);
int succ_mask_expand(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err);

#endif
