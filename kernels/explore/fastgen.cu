/*
 * fastgen.cu -- host side of the successor generators: the bound on one
 * state's successors (which sizes the per-state successor sets and the
 * edge buffer), and the fast generator's tables (gpu_expand.cuh, "fast
 * generator"), built here and uploaded by memory.cu; also the fast
 * generator run on the host (explore_gpu.h), for the CPU tests.
 *
 * Generators.  Images with vectors of <= 4 words, 1..64 components and
 * < 2^31 rules (nearly all real networks) are expanded by the fast
 * generator, one thread per state (gpu_tuning.generator, default), on
 * precompiled XOR deltas and blocked-rule masks (anchored rule lists
 * beyond 128 rules); every other image by vector groups of G threads per
 * state (G = the smallest power of two >= the components, at most
 * GX_MAX_GROUP, or gpu_tuning.group_size).  Both feed the same cache,
 * table, successor set, edges and traces.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_expand.cuh"
#include "gx.h"


/* A group of one component state's sync entries: component, class, targets. */
struct gx_ck {
    uint32_t c, k;
    uint64_t n;
};

static int gx_ck_cmp(const void *a, const void *b)
{
    const struct gx_ck *x = (const struct gx_ck *)a, *y = (const struct gx_ck *)b;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Upper bound on the successors of one state: every local target of each
 * component's richest state, plus, per rule, the product of its
 * participants' largest class-k target counts.  Saturates at 2^62.  (The
 * fast generator's tables give a tighter one: gx_fast_anchor.)  The
 * largest counts per (component, class) come from one sorted list of all
 * groups, so images with thousands of classes and rules (abp d=4000) cost
 * milliseconds, not a search of the list per group and per participant. */
uint64_t gx_successor_bound(const struct image *img)
{
    const uint32_t n = img->n_comps;
    const uint64_t cap = 1ull << 62;
    uint64_t total = 0;
    struct gx_ck *list = NULL;
    size_t nl = 0, capl = 0;
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t *so = img->state_offsets + img->proc_offsets[c];
        const uint32_t sb = img->state_bits[c];
        const uint32_t slots = image_entry_slots(img->act_bits, sb);
        uint64_t maxl = 0;
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            uint64_t l = 0;
            const size_t state_first = nl; /* this state's groups start here */
            for (uint32_t e = so[s]; e < so[s + 1]; e++) {
                const uint64_t ent = img->trans[e];
                uint64_t cnt = 0;
                while (cnt < slots && image_entry_target(ent, img->act_bits, sb, (uint32_t)cnt) != 0xffffffffu)
                    cnt++;
                if (!image_entry_is_sync(ent)) {
                    l += cnt;
                    continue;
                }
                /* sync entries are sorted by class: one group per class */
                const uint32_t k = image_entry_label(ent, img->act_bits);
                if (nl > state_first && list[nl - 1].k == k) {
                    list[nl - 1].n += cnt;
                    continue;
                }
                if (nl == capl) {
                    capl = capl ? 2 * capl : 64;
                    struct gx_ck *nlst = (struct gx_ck *)realloc(list, capl * sizeof *list);
                    if (!nlst) {
                        free(list);
                        return cap;
                    }
                    list = nlst;
                }
                list[nl].c = c, list[nl].k = k, list[nl].n = cnt;
                nl++;
            }
            if (l > maxl)
                maxl = l;
        }
        total += maxl;
    }
    /* the largest group per (component, class) */
    qsort(list, nl, sizeof *list, gx_ck_cmp);
    size_t m = 0;
    for (size_t i = 0; i < nl; i++) {
        if (m && list[m - 1].c == list[i].c && list[m - 1].k == list[i].k) {
            if (list[i].n > list[m - 1].n)
                list[m - 1].n = list[i].n;
        } else {
            list[m++] = list[i];
        }
    }
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            uint64_t prod = 1;
            for (uint32_t c = 0; c < n && prod; c++) {
                if (!(img->rule_mask[(size_t)r * img->mask_words + c / 32] >> (c % 32) & 1))
                    continue;
                const struct gx_ck key = {c, k, 0};
                const struct gx_ck *hit = (const struct gx_ck *)bsearch(&key, list, m, sizeof *list, gx_ck_cmp);
                const uint64_t most = hit ? hit->n : 0;
                prod = most && prod > cap / most ? cap : prod * most;
            }
            total = total + prod > cap ? cap : total + prod;
        }
    free(list);
    return total > cap ? cap : total;
}

/* ---- the fast generator's tables (gpu_expand.cuh, "fast generator") ---- */


void gx_fast_free(struct gx_fast_host *f)
{
    free(f->comp);
    free(f->seg);
    free(f->loc_lab);
    free(f->loc_d);
    free(f->grp);
    free(f->d);
    free(f->rmask);
    free(f->rinfo);
    free(f->arule);
    memset(f, 0, sizeof *f);
}

/* Does the image allow the fast generator?  (Up to 128 rules it finds the
 * rules that fire by masks, beyond by anchored rule lists.) */
int gx_fast_eligible(const struct image *img)
{
    return img->words <= 4 && img->n_comps >= 1 && img->n_comps <= 64 && img->n_rules < (1u << 31) &&
           img->mask_words <= 2 && img->prio_n == 0; /* the general generator applies a priority */
}

/* (s ^ t) << first as dw 64-bit words (first < 128, the value < 2^32). */
static void gx_fast_delta(uint32_t x, uint32_t first, unsigned long long *out, uint32_t dw)
{
    const unsigned long long v = x;
    unsigned long long lo = 0, hi = 0;
    if (first >= 64)
        hi = v << (first - 64);
    else {
        lo = v << first;
        hi = first ? v >> (64 - first) : 0;
    }
    out[0] = lo;
    if (dw > 1)
        out[1] = hi;
}

static int gx_u64_cmp(const void *a, const void *b)
{
    const unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

struct gx_kz {
    uint32_t k, z; /* a group's class and target count */
};

static int gx_kz_cmp(const void *a, const void *b)
{
    const struct gx_kz *x = (const struct gx_kz *)a, *y = (const struct gx_kz *)b;
    return x->k != y->k ? (x->k < y->k ? -1 : 1) : x->z != y->z ? (x->z < y->z ? -1 : 1) : 0;
}

static uint64_t gx_sat_mul(uint64_t a, uint64_t b, uint64_t cap)
{
    return a && b > cap / a ? cap : a * b > cap ? cap : a * b;
}

/* Anchors.  Every rule that can fire is ANCHORED at one participant: the
 * one with the fewest component states offering the rule's class (ties:
 * the lowest component).  A rule fires in a state only if its anchor's
 * local state offers the class, so the rules worth checking in a state
 * are those listed at its components' segments -- with many rules (abp
 * d=4000: 16 004) a handful per state instead of all.  In anchored mode
 * (f->anchored) the lists go to f->arule and each segment's blk0/blk1 hold
 * its list's start and length instead of blocked-rule masks.  The same
 * walk bounds a state's successors by
 *     sum over components c of  max over c's states s of
 *         (local moves of s + sum over the rules anchored at c that s
 *          offers of the product of the participants' largest class groups)
 * (every record a state yields is a local move or a combination of a rule
 * listed at its anchor's segment), which is far below gx_successor_bound's
 * when there are many rules.  A state that needs its successor set when no
 * graph is recorded (fast_state.dedup) has, unless always_dedup, a
 * component c0 in a segment s0 with a self-loop; its records are then at
 * most
 *     here(s0) + sum over components c != c0 of most(c)
 * (here: the bracket above for one segment; most: its maximum over c's
 * segments), and f->set_bound is the largest of these, which sizes the
 * sets: abp d=4000's 4 000 local moves are offered only by sender states
 * without self-loops, so its set bound is a handful while its bound is
 * ~4 000.  WX_ELIMIT when out of host memory or the lists pass 2^28
 * entries. */
static int gx_fast_anchor(const struct image *img, struct gx_fast_host *f)
{
    const uint32_t n = img->n_comps, nr = img->n_rules;
    const uint64_t cap = 1ull << 62;
    int rc = WX_ELIMIT;
    struct gx_kz *kz = (struct gx_kz *)malloc((f->ngrp + 1) * sizeof *kz);
    size_t *cstart = (size_t *)malloc((n + 1) * sizeof *cstart);
    uint32_t *anchor = (uint32_t *)malloc((nr + 1) * sizeof *anchor);
    uint64_t *prod = (uint64_t *)malloc((nr + 1) * sizeof *prod);
    uint64_t *most_c = (uint64_t *)malloc((n + 1) * sizeof *most_c), *self_c = (uint64_t *)malloc((n + 1) * sizeof *self_c);
    size_t na = 0, cap_a = 0;
    uint64_t total = 0, set_bound = 0;
    if (!kz || !cstart || !anchor || !prod || !most_c || !self_c)
        goto out;
    /* per component: its groups' (class, targets), sorted */
    for (uint32_t c = 0; c < n; c++) {
        /* component c's segments are proc_offsets[c] + s, s < comp_states[c] (an
         * image may leave unused slots after them) */
        const size_t s0 = img->proc_offsets[c], s1 = s0 + img->comp_states[c];
        cstart[c] = s0 < s1 ? f->seg[s0].grp : (c ? cstart[c - 1] : 0);
        const size_t g1 = s0 < s1 ? f->seg[s1 - 1].grp + (f->seg[s1 - 1].ngrp & GPU_LOW31) : cstart[c];
        for (size_t x = cstart[c]; x < g1; x++)
            kz[x].k = f->grp[x].x, kz[x].z = f->grp[x].z;
        qsort(kz + cstart[c], g1 - cstart[c], sizeof *kz, gx_kz_cmp);
        cstart[c + 1] = g1;
    }
    for (uint32_t r = 0; r < nr; r++) {
        const uint32_t k = f->rinfo[r].x;
        uint64_t p = 1, best = UINT64_MAX;
        anchor[r] = UINT32_MAX;
        for (unsigned long long m = f->rmask[r]; m; m &= m - 1) {
            const uint32_t c = (uint32_t)__builtin_ctzll(m);
            size_t lo = cstart[c], hi = cstart[c + 1];
            while (lo < hi) { /* first group of class >= k */
                const size_t mid = lo + (hi - lo) / 2;
                if (kz[mid].k < k)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            size_t e = lo;
            while (e < cstart[c + 1] && kz[e].k == k)
                e++;
            if (e == lo) { /* c never offers k: the rule never fires */
                p = 0;
                break;
            }
            p = gx_sat_mul(p, kz[e - 1].z, cap);
            if (e - lo < best)
                best = e - lo, anchor[r] = c;
        }
        prod[r] = p;
        if (!p)
            anchor[r] = UINT32_MAX;
    }
    /* the lists (segment by segment, rules in class order) and the bounds */
    for (uint32_t c = 0; c < n; c++) {
        uint64_t most = 0, most_self = 0;
        int has_self = 0;
        for (size_t si = img->proc_offsets[c]; si < img->proc_offsets[c] + img->comp_states[c]; si++) {
            gpu_fseg *sg = &f->seg[si];
            uint64_t here = sg->nloc;
            const size_t a0 = na;
            for (uint32_t x = sg->grp; x < sg->grp + (sg->ngrp & GPU_LOW31); x++) {
                const uint32_t k = f->grp[x].x;
                for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
                    if (anchor[r] != c)
                        continue;
                    here = here + prod[r] > cap ? cap : here + prod[r];
                    if (!f->anchored)
                        continue;
                    if (na == cap_a) {
                        cap_a = cap_a ? 2 * cap_a : 1024;
                        /* lists beyond 2^28 entries (1 GiB): the general generator instead */
                        uint32_t *nl = cap_a <= (1ull << 28) ? (uint32_t *)realloc(f->arule, cap_a * sizeof *nl) : NULL;
                        if (!nl)
                            goto out;
                        f->arule = nl;
                    }
                    f->arule[na++] = r;
                }
            }
            if (f->anchored)
                sg->blk0 = a0, sg->blk1 = na - a0;
            if (here > most)
                most = here;
            if (sg->ngrp & GPU_NEW_BIT) { /* a self-loop (gx_fast_build) */
                has_self = 1;
                if (here > most_self)
                    most_self = here;
            }
        }
        total = total + most > cap ? cap : total + most;
        most_c[c] = most;
        self_c[c] = has_self ? most_self : UINT64_MAX;
    }
    /* the set bound: total - most(c0) + here(s0), largest over c0 */
    for (uint32_t c = 0; c < n; c++) {
        if (self_c[c] == UINT64_MAX)
            continue;
        /* total saturates at cap; so does the bound (most(c0) <= total) */
        const uint64_t b = total >= cap ? cap : total - most_c[c] + self_c[c];
        if (b > set_bound)
            set_bound = b;
    }
    if (!f->arule && !(f->arule = (uint32_t *)calloc(1, sizeof *f->arule)))
        goto out; /* uploaded even when empty */
    f->narule = na;
    f->bound = total;
    f->set_bound = f->always_dedup ? total : set_bound;
    rc = WX_OK;
out:
    free(kz);
    free(cstart);
    free(anchor);
    free(prod);
    free(most_c);
    free(self_c);
    return rc;
}

/* A rule as gx_fast_build's check (c) sorts them: by participants,
 * result label, class. */
struct gx_rule_key {
    unsigned long long mask;
    uint32_t label, cls;
};

static int gx_rule_cmp(const void *a, const void *b)
{
    const struct gx_rule_key *x = (const struct gx_rule_key *)a, *y = (const struct gx_rule_key *)b;
    if (x->mask != y->mask)
        return x->mask < y->mask ? -1 : 1;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return x->cls < y->cls ? -1 : x->cls > y->cls;
}

/* Blocked rules (mask mode): for each participant c of rule r, the states
 * of c without a group of r's class get bit r in their blk0/blk1. */
static void gx_fast_block_rules(const struct image *img, struct gx_fast_host *f)
{
    const uint32_t nr = img->n_rules;
    for (uint32_t r = 0; r < nr && !f->anchored; r++) {
        const uint32_t k = f->rinfo[r].x;
        for (unsigned long long m = f->rmask[r]; m; m &= m - 1) {
            const uint32_t c = (uint32_t)__builtin_ctzll(m);
            for (uint32_t s = 0; s < img->comp_states[c]; s++) {
                gpu_fseg *sg = &f->seg[img->proc_offsets[c] + s];
                int offers = 0;
                for (uint32_t x = sg->grp; x < sg->grp + (sg->ngrp & GPU_LOW31); x++)
                    offers |= f->grp[x].x == k;
                if (!offers) {
                    if (r < 64)
                        sg->blk0 |= 1ull << r;
                    else
                        sg->blk1 |= 1ull << (r - 64);
                }
            }
        }
    }
}

/* Builds the tables (the image must be eligible); anchored: rule lists
 * instead of blocked-rule masks (forced beyond 128 rules).  WX_ELIMIT when
 * the host is out of memory or a count passes 2^31 (the caller then keeps
 * the general generator). */
int gx_fast_build(const struct image *img, struct gx_fast_host *f, int anchored)
{
    memset(f, 0, sizeof *f);
    f->anchored = anchored || img->n_rules > 128;
    const uint32_t n = img->n_comps, ab = img->act_bits, nr = img->n_rules, mw = img->mask_words;
    const size_t nseg = img->proc_offsets[n];
    f->dw = img->words > 2 ? 2 : 1;
    size_t nloc = 0, nsync = 0, ngrp = 0, seg_max = 0;
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t sb = img->state_bits[c], slots = image_entry_slots(ab, sb);
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            const uint32_t *so = img->state_offsets + img->proc_offsets[c] + s;
            uint32_t last = UINT32_MAX;
            size_t here = 0;
            for (uint32_t i = so[0]; i < so[1]; i++) {
                const uint64_t e = img->trans[i];
                uint32_t cnt = 0;
                while (cnt < slots && image_entry_target(e, ab, sb, cnt) != UINT32_MAX)
                    cnt++;
                here += cnt;
                if (image_entry_is_sync(e)) {
                    nsync += cnt;
                    const uint32_t k = image_entry_label(e, ab);
                    ngrp += k != last;
                    last = k;
                } else {
                    nloc += cnt;
                }
            }
            if (here > seg_max)
                seg_max = here;
        }
    }
    if (nloc > (1u << 31) || nsync > (1u << 31) || ngrp > (1u << 31))
        return WX_ELIMIT;
    f->nseg = nseg, f->nloc = nloc, f->nsync = nsync, f->ngrp = ngrp, f->nrules = nr;
    f->comp = (uint4 *)calloc(n, sizeof *f->comp);
    f->seg = (gpu_fseg *)calloc(nseg + 1, sizeof *f->seg);
    f->loc_lab = (uint32_t *)calloc(nloc + 1, sizeof *f->loc_lab);
    f->loc_d = (unsigned long long *)calloc((nloc + 1) * f->dw, sizeof *f->loc_d);
    f->grp = (uint4 *)calloc(ngrp + 1, sizeof *f->grp);
    f->d = (unsigned long long *)calloc((nsync + 1) * f->dw, sizeof *f->d);
    f->rmask = (unsigned long long *)calloc(nr + 1, sizeof *f->rmask);
    f->rinfo = (uint2 *)calloc(nr + 1, sizeof *f->rinfo);
    unsigned long long *keys = (unsigned long long *)malloc((seg_max + 1) * sizeof *keys);
    unsigned long long *tkeys = (unsigned long long *)malloc((seg_max + 1) * sizeof *tkeys);
    uint8_t *injective = (uint8_t *)malloc(n);
    struct gx_rule_key *order = (struct gx_rule_key *)malloc((nr + 1) * sizeof *order);
    if (!f->comp || !f->seg || !f->loc_lab || !f->loc_d || !f->grp || !f->d || !f->rmask || !f->rinfo || !keys ||
        !tkeys || !injective || !order) {
        free(keys), free(tkeys), free(injective), free(order);
        gx_fast_free(f);
        return WX_ELIMIT;
    }
    memset(injective, 1, n);
    /* rules: participants, class, label */
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            const uint32_t *m = img->rule_mask + (size_t)r * mw;
            f->rmask[r] = m[0] | (mw > 1 ? (unsigned long long)m[1] << 32 : 0ull);
            f->rinfo[r] = make_uint2(k, img->class_result[k]);
        }
    if (!f->anchored) {
        f->all0 = nr >= 64 ? ~0ull : (1ull << nr) - 1;
        f->all1 = nr <= 64 ? 0ull : nr == 128 ? ~0ull : (1ull << (nr - 64)) - 1;
    }
    /* segments: moves, groups, self-loops; (a) and (b) */
    size_t xl = 0, xs = 0, xg = 0;
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t first = img->first_bit[c], width = img->first_bit[c + 1] - first;
        const uint32_t sb = img->state_bits[c], slots = image_entry_slots(ab, sb);
        f->comp[c] = make_uint4(img->proc_offsets[c], first, width, 0);
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            const size_t si = img->proc_offsets[c] + s;
            const uint32_t *so = img->state_offsets + si;
            gpu_fseg *sg = &f->seg[si];
            sg->loc = (uint32_t)xl;
            sg->grp = (uint32_t)xg;
            uint32_t last = UINT32_MAX, self = 0;
            size_t nk = 0, nt = 0;
            for (uint32_t i = so[0]; i < so[1]; i++) {
                const uint64_t e = img->trans[i];
                const uint32_t lab = image_entry_label(e, ab), sync = image_entry_is_sync(e);
                if (sync && lab != last) {
                    f->grp[xg++] = make_uint4(lab, (uint32_t)xs, 0, 0);
                    sg->ngrp++;
                    last = lab;
                }
                for (uint32_t k = 0; k < slots; k++) {
                    const uint32_t t = image_entry_target(e, ab, sb, k);
                    if (t == UINT32_MAX)
                        break;
                    self |= s == t;
                    keys[nk++] = (unsigned long long)sync << 63 | (unsigned long long)lab << 32 | t;
                    if (sync) {
                        tkeys[nt++] = (unsigned long long)t << 32 | lab;
                        gx_fast_delta(s ^ t, first, f->d + xs * f->dw, f->dw);
                        xs++;
                        f->grp[xg - 1].z++;
                    } else {
                        gx_fast_delta(s ^ t, first, f->loc_d + xl * f->dw, f->dw);
                        f->loc_lab[xl++] = lab;
                        sg->nloc++;
                        f->share |= sg->nloc >= GPU_SHARE_MIN;
                    }
                }
            }
            sg->ngrp |= self ? GPU_NEW_BIT : 0u;
            qsort(keys, nk, sizeof *keys, gx_u64_cmp);
            for (size_t i = 1; i < nk; i++)
                if (keys[i] == keys[i - 1])
                    f->always_dedup = 1;
            /* c is class-injective when no local state reaches one target
             * by two classes */
            qsort(tkeys, nt, sizeof *tkeys, gx_u64_cmp);
            for (size_t i = 1; i < nt; i++)
                if (tkeys[i] >> 32 == tkeys[i - 1] >> 32 && tkeys[i] != tkeys[i - 1])
                    injective[c] = 0;
        }
    }
    /* (c) two rules with the same participants and result label can yield
     * the same record only if each participant reaches one target by both
     * classes (or the classes are equal): impossible when a participant is
     * class-injective */
    for (uint32_t r = 0; r < nr; r++)
        order[r].mask = f->rmask[r], order[r].label = f->rinfo[r].y, order[r].cls = f->rinfo[r].x;
    qsort(order, nr, sizeof *order, gx_rule_cmp);
    for (uint32_t i = 1; i < nr && !f->always_dedup; i++) {
        const struct gx_rule_key *a = &order[i - 1], *b = &order[i];
        if (a->mask != b->mask || a->label != b->label)
            continue;
        int guard = a->cls != b->cls ? 0 : -1; /* equal classes: no guard */
        for (unsigned long long m = a->mask; m && guard == 0; m &= m - 1)
            guard = injective[__builtin_ctzll(m)];
        if (guard != 1)
            f->always_dedup = 1;
    }
    free(tkeys), free(injective), free(order);
    gx_fast_block_rules(img, f);
    free(keys);
    const int rc = gx_fast_anchor(img, f);
    if (rc != WX_OK)
        gx_fast_free(f);
    return rc;
}

/* The tables' scalars into the generator's view (its arrays are the
 * device copies on the GPU, the host ones in explore_gpu_fast_open). */
void gx_fast_scalars(const struct gx_fast_host *h, struct gpu_fast *f)
{
    f->anchored = h->anchored;
    f->all0 = h->all0;
    f->all1 = h->all1;
    f->dw = h->dw;
    f->always_dedup = h->always_dedup;
}

/* ---- the fast generator on the host (explore_gpu.h, for the CPU tests) ---- */

struct explore_gpu_fast {
    struct gx_fast_host h;
    struct gpu_fast f;
    uint32_t n, W;
};

extern "C" struct explore_gpu_fast *explore_gpu_fast_open(const struct image *img, int anchored, struct wx_error *err)
{
    if (!gx_fast_eligible(img)) {
        wx_fail(err, WX_ELIMIT, NULL, 0, 0, "the image does not allow the fast generator (%u words, %u components)",
                img->words, img->n_comps);
        return NULL;
    }
    struct explore_gpu_fast *x = (struct explore_gpu_fast *)calloc(1, sizeof *x);
    if (!x || gx_fast_build(img, &x->h, anchored) != WX_OK) {
        free(x);
        wx_fail(err, WX_ELIMIT, NULL, 0, 0, "cannot build the fast generator's tables (out of host memory or past their limits)");
        return NULL;
    }
    struct gpu_fast &f = x->f;
    f.comp = x->h.comp;
    f.seg = x->h.seg;
    f.loc_lab = x->h.loc_lab;
    f.loc_d = x->h.loc_d;
    f.grp = x->h.grp;
    f.d = x->h.d;
    f.rmask = x->h.rmask;
    f.rinfo = x->h.rinfo;
    f.arule = x->h.arule;
    gx_fast_scalars(&x->h, &f);
    x->n = img->n_comps;
    x->W = img->words;
    return x;
}

extern "C" void explore_gpu_fast_info(const struct explore_gpu_fast *x, uint64_t *bound, uint64_t *set_bound,
                                      int *always_dedup, int *anchored)
{
    *bound = x->h.bound;
    *set_bound = x->h.set_bound;
    *always_dedup = (int)x->h.always_dedup;
    *anchored = (int)x->h.anchored;
}

extern "C" int explore_gpu_fast_successors(const struct explore_gpu_fast *x, const uint32_t *vec, uint32_t *labels,
                                           uint32_t *vecs, uint64_t cap, uint64_t *count, int *needs_set,
                                           struct wx_error *err)
{
    fast_state st;
    uint32_t scr[4], lab = 0;
    bool ovf = false;
    uint64_t k = 0;
    fx_begin(x->f, st, x->n, x->W, vec, true);
    *needs_set = st.dedup;
    while (fx_next(x->f, st, vec, scr, x->W, x->W, &lab, &ovf)) {
        if (k < cap) {
            labels[k] = lab;
            memcpy(vecs + k * x->W, scr, x->W * sizeof *scr);
        }
        k++;
    }
    *count = k;
    if (ovf)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "more than 2^62 combinations of one rule");
    return WX_OK;
}

extern "C" void explore_gpu_fast_close(struct explore_gpu_fast *x)
{
    if (!x)
        return;
    gx_fast_free(&x->h);
    free(x);
}
