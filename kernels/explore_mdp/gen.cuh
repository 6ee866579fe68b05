/*
 * gen.cuh -- the choices of one state on the device, as explore_mdp.c makes
 * them: the raw choices (counted, then generated into a batch's scratch),
 * each choice's outcomes sorted by vector, the choices sorted canonically
 * and the repeated ones dropped.  One thread per state.
 *
 * Orders are explore_mdp.c's: vectors compare as memcmp compares them (byte
 * by byte in memory order: on a little-endian device, word by word with
 * each word byte-swapped), a choice by (label, number of outcomes, then
 * outcome by outcome: vector, probability).  Probabilities are the
 * component doubles multiplied in ascending participant order, exact
 * fractions reduced at every step and den 0 (sticky) past 64 bits.
 */
#ifndef WX_MDPX_GEN_CUH
#define WX_MDPX_GEN_CUH

#include <stdint.h>

extern "C" {
#include "../../network/image.h"
#include "../../explorer/mdp_rules.h"
}
#include "../explore_mdp_gpu.h"

/* The image's probabilistic tables on the device. */
struct mdpx_img {
    uint32_t n_comps, words, n_classes, hidden;
    const uint32_t *first_bit, *proc_offsets, *pchoice_offsets, *pchoice_key, *pchoice_start;
    const uint32_t *ptarget;
    const double *pprob;
    const uint64_t *pnum, *pden;
    const uint32_t *pinit_start, *pinit_state;
    const double *pinit_prob;
    const uint64_t *pinit_num, *pinit_den;
    const uint32_t *class_result, *rule_part_start, *rule_part;
    /* the rules by anchor (explorer/mdp_rules.h) */
    const uint32_t *anch_start, *anch_class, *anch_rule_start, *anch_rule;
    /* or by masks (mask_words > 0; explorer/mdp_rules.h) */
    uint32_t mask_words;
    const unsigned long long *mask_blocked, *mask_valid;
    const uint32_t *rule_class;
    uint32_t prio_n;          /* the priority (image.h); 0: none */
    const uint32_t *prio_above_start, *prio_above, *prio_out;
};

/* A choice removed by the priority: it sorts after every other choice of
 * its state, and mdpx_canonical stops there. */
#define MDPX_DROPPED 0xffffffffu

/* The raw choices of a batch: choice i has label lab[i] and outcomes
 * [start[i], start[i] + n[i]); outcome o has vec[o * words ..], prob[o],
 * num[o], den[o] (num/den only when exact). */
struct mdpx_raw {
    uint32_t *lab, *n;
    uint64_t *start;
    uint32_t *perm;          /* per choice: the state's choices, canonical */
    uint32_t *vec;
    double *prob;
    uint64_t *num, *den;
    bool exact;
};

__device__ __forceinline__ uint32_t mdpx_local(const mdpx_img &m, const uint32_t *vec, uint32_t c)
{
    return image_get_field(vec, m.first_bit[c], m.first_bit[c + 1] - m.first_bit[c]);
}

/* Component c's choices in local state s: [*a, *b) (all keys). */
__device__ __forceinline__ void mdpx_choices(const mdpx_img &m, uint32_t c, uint32_t s, uint32_t *a,
                                             uint32_t *b)
{
    *a = m.pchoice_offsets[m.proc_offsets[c] + s];
    *b = m.pchoice_offsets[m.proc_offsets[c] + s + 1];
}

/* The choices of component c in state s with key `key` (explore_mdp.c's
 * key_range). */
__device__ void mdpx_key_range(const mdpx_img &m, uint32_t c, uint32_t s, uint32_t key, uint32_t *a,
                               uint32_t *b)
{
    uint32_t lo, hi, end;
    mdpx_choices(m, c, s, &lo, &end);
    hi = end;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m.pchoice_key[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    *a = lo;
    while (lo < end && m.pchoice_key[lo] == key)
        lo++;
    *b = lo;
}

__device__ __forceinline__ uint64_t mdpx_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* *n / *d *= n2 / d2, reduced; *d = 0 (sticky) past 64 bits (frac_mul). */
__device__ void mdpx_frac_mul(uint64_t *n, uint64_t *d, uint64_t n2, uint64_t d2)
{
    if (*d == 0)
        return;
    uint64_t g1 = mdpx_gcd(*n, d2), g2 = mdpx_gcd(n2, *d);
    uint64_t a = *n / g1, b = n2 / g2, c = *d / g2, e = d2 / g1;
    if (__umul64hi(a, b) || __umul64hi(c, e)) {
        *n = 0, *d = 0;
        return;
    }
    *n = a * b, *d = c * e;
}

/* Calls f(k, rule, UINT32_MAX, 0, 0) for every valid rule that no
 * component's mask blocks in state vec, in ascending order. */
template <typename F>
__device__ __forceinline__ void mdpx_each_masked(const mdpx_img &m, const uint32_t *vec, F f)
{
    for (uint32_t w = 0; w < m.mask_words; w++) {
        unsigned long long open = m.mask_valid[w];
        for (uint32_t c = 0; c < m.n_comps && open; c++)
            open &= ~m.mask_blocked[(size_t)(m.proc_offsets[c] + mdpx_local(m, vec, c)) * m.mask_words + w];
        while (open) {
            const uint32_t r = w * 64 + (uint32_t)(__ffsll((long long)open) - 1);
            open &= open - 1;
            if (!f(m.rule_class[r], r, UINT32_MAX, 0u, 0u))
                return;
        }
    }
}

/* Calls f(k, rule, c, lo, hi) for every rule of state vec, as explore_mdp.c
 * meets them: by masks, or by anchor -- every rule anchored at a class that
 * some component c offers (each class of a segment once; [lo, hi): c's
 * class-k choices). */
template <typename F>
__device__ __forceinline__ void mdpx_each_rule(const mdpx_img &m, const uint32_t *vec, F f)
{
    if (m.mask_words) {
        mdpx_each_masked(m, vec, f);
        return;
    }
    for (uint32_t c = 0; c < m.n_comps; c++) {
        uint32_t a, b;
        mdpx_choices(m, c, mdpx_local(m, vec, c), &a, &b);
        uint32_t cur = m.anch_start[c], run = a;
        for (uint32_t i = a; i < b; i++) {
            const uint32_t key = m.pchoice_key[i];
            if (i == a || m.pchoice_key[i - 1] != key)
                run = i;
            if (!(key & IMAGE_PCHOICE_SYNC) || (i + 1 < b && m.pchoice_key[i + 1] == key))
                continue;
            const uint32_t k = key & ~IMAGE_PCHOICE_SYNC, p = mdp_rules_find(m.anch_start, m.anch_class, c, &cur, k);
            if (p == UINT32_MAX)
                continue;
            for (uint32_t j = m.anch_rule_start[p]; j < m.anch_rule_start[p + 1]; j++)
                if (!f(k, m.anch_rule[j], c, run, i + 1))
                    return;
        }
    }
}

/* Participant c's class-k choices: [lo, hi) of the anchor, or searched. */
__device__ __forceinline__ void mdpx_part_range(const mdpx_img &m, const uint32_t *vec, uint32_t c, uint32_t k,
                                                uint32_t anchor, uint32_t alo, uint32_t ahi, uint32_t *lo,
                                                uint32_t *hi)
{
    if (c == anchor)
        *lo = alo, *hi = ahi;
    else
        mdpx_key_range(m, c, mdpx_local(m, vec, c), IMAGE_PCHOICE_SYNC | k, lo, hi);
}

/* Per-thread cursors of one rule's participants. */
struct mdpx_odo {
    uint32_t lo[MDPX_GPU_MAX_PARTS], hi[MDPX_GPU_MAX_PARTS], odo[MDPX_GPU_MAX_PARTS];
};

/* Raw counts of state vec (fresh: the fresh state 0): choices and
 * outcomes; false when a count passes 2^31 (the caller reports it). */
__device__ bool mdpx_count(const mdpx_img &m, const uint32_t *vec, bool fresh, uint32_t *n_ch,
                           uint32_t *n_out)
{
    uint64_t ch = 0, out = 0;
    if (fresh) {
        uint64_t p = 1;
        for (uint32_t c = 0; c < m.n_comps && p < (1ull << 31); c++)
            p *= m.pinit_start[c + 1] - m.pinit_start[c];
        *n_ch = 1, *n_out = (uint32_t)(p < (1ull << 31) ? p : 1ull << 31);
        return p < (1ull << 31);
    }
    for (uint32_t c = 0; c < m.n_comps; c++) {
        uint32_t a, b;
        mdpx_choices(m, c, mdpx_local(m, vec, c), &a, &b);
        for (uint32_t i = a; i < b && !(m.pchoice_key[i] & IMAGE_PCHOICE_SYNC); i++)
            ch++, out += m.pchoice_start[i + 1] - m.pchoice_start[i];
    }
    bool ok = true;
    mdpx_each_rule(m, vec, [&](uint32_t k, uint32_t r, uint32_t an, uint32_t alo, uint32_t ahi) {
        uint32_t n = m.rule_part_start[r + 1] - m.rule_part_start[r];
        uint64_t rc = 1, ro = 1;
        for (uint32_t j = 0; j < n && rc; j++) {
            uint32_t c = m.rule_part[m.rule_part_start[r] + j], a, b;
            mdpx_part_range(m, vec, c, k, an, alo, ahi, &a, &b);
            uint64_t sz = m.pchoice_start[b] - m.pchoice_start[a];
            rc = rc * (b - a) < (1ull << 31) ? rc * (b - a) : 1ull << 31;
            ro = ro * sz < (1ull << 31) ? ro * sz : 1ull << 31;
        }
        if (rc) /* anchored rules have participants */
            ch += rc, out += ro;
        ok = ch < (1ull << 31) && out < (1ull << 31);
        return ok;
    });
    if (!ok)
        return false;
    *n_ch = (uint32_t)ch, *n_out = (uint32_t)out;
    return ch < (1ull << 31) && out < (1ull << 31);
}

/* One raw choice: the product of the participants' choices odo[0..n)
 * (parts[j] their components), written at choice ci, outcomes from *o. */
__device__ void mdpx_emit(const mdpx_img &m, const mdpx_raw &r, const uint32_t *vec, uint32_t label,
                          const uint32_t *parts, const uint32_t *odo, uint32_t n, uint64_t ci,
                          uint64_t *o)
{
    const uint32_t w = m.words;
    uint32_t todo[MDPX_GPU_MAX_PARTS];
    r.lab[ci] = label;
    r.start[ci] = *o;
    for (uint32_t j = 0; j < n; j++)
        todo[j] = m.pchoice_start[odo[j]];
    uint32_t count = 0;
    for (;;) {
        uint32_t *cur = r.vec + *o * w;
        for (uint32_t i = 0; i < w; i++)
            cur[i] = vec[i];
        double p = 1.0;
        uint64_t pn = 1, pd = 1;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t c = parts[j];
            image_set_field(cur, m.first_bit[c], m.first_bit[c + 1] - m.first_bit[c], m.ptarget[todo[j]]);
            p *= m.pprob[todo[j]];
            if (r.exact)
                mdpx_frac_mul(&pn, &pd, m.pnum[todo[j]], m.pden[todo[j]]);
        }
        r.prob[*o] = p;
        if (r.exact)
            r.num[*o] = pn, r.den[*o] = pd;
        (*o)++, count++;
        uint32_t j = n;
        bool done = n == 0;
        while (j > 0) {
            j--;
            if (++todo[j] < m.pchoice_start[odo[j] + 1])
                break;
            todo[j] = m.pchoice_start[odo[j]];
            if (j == 0)
                done = true;
        }
        if (done)
            break;
    }
    r.n[ci] = count;
}

/* The fresh state's one choice: the product of the initial distributions,
 * labelled with the hidden label.  Only the components starting in a
 * distribution of two or more states vary (fewer than 31 of them: the
 * count of the outcomes passed mdpx_count); their odometer runs in
 * ascending component order, the last fastest, as gen_initial's. */
__device__ void mdpx_emit_initial(const mdpx_img &m, const mdpx_raw &r, uint64_t ci, uint64_t *o)
{
    const uint32_t w = m.words, nc = m.n_comps;
    uint32_t vary[MDPX_GPU_MAX_PARTS], todo[MDPX_GPU_MAX_PARTS], nv = 0;
    r.lab[ci] = m.hidden;
    r.start[ci] = *o;
    for (uint32_t c = 0; c < nc && nv < MDPX_GPU_MAX_PARTS; c++)
        if (m.pinit_start[c + 1] - m.pinit_start[c] > 1)
            todo[nv] = m.pinit_start[c], vary[nv++] = c;
    uint32_t count = 0;
    for (;;) {
        uint32_t *cur = r.vec + *o * w;
        for (uint32_t i = 0; i < w; i++)
            cur[i] = 0;
        double p = 1.0;
        uint64_t pn = 1, pd = 1;
        for (uint32_t c = 0, v = 0; c < nc; c++) {
            uint32_t t = v < nv && vary[v] == c ? todo[v++] : m.pinit_start[c];
            image_set_field(cur, m.first_bit[c], m.first_bit[c + 1] - m.first_bit[c], m.pinit_state[t]);
            p *= m.pinit_prob[t];
            if (r.exact)
                mdpx_frac_mul(&pn, &pd, m.pinit_num[t], m.pinit_den[t]);
        }
        r.prob[*o] = p;
        if (r.exact)
            r.num[*o] = pn, r.den[*o] = pd;
        (*o)++, count++;
        uint32_t v = nv;
        bool done = nv == 0;
        while (v > 0) {
            v--;
            if (++todo[v] < m.pinit_start[vary[v] + 1])
                break;
            todo[v] = m.pinit_start[vary[v]];
            if (v == 0)
                done = true;
        }
        if (done)
            break;
    }
    r.n[ci] = count;
}

/* All raw choices of state vec from choice ci and outcome o on. */
__device__ void mdpx_generate(const mdpx_img &m, const mdpx_raw &r, const uint32_t *vec, uint64_t ci,
                              uint64_t o)
{
    mdpx_odo x;
    for (uint32_t c = 0; c < m.n_comps; c++) {
        uint32_t a, b;
        mdpx_choices(m, c, mdpx_local(m, vec, c), &a, &b);
        for (uint32_t i = a; i < b && !(m.pchoice_key[i] & IMAGE_PCHOICE_SYNC); i++)
            mdpx_emit(m, r, vec, m.pchoice_key[i], &c, &i, 1, ci++, &o);
    }
    mdpx_each_rule(m, vec, [&](uint32_t k, uint32_t rr, uint32_t an, uint32_t alo, uint32_t ahi) {
        const uint32_t *parts = m.rule_part + m.rule_part_start[rr];
        uint32_t n = m.rule_part_start[rr + 1] - m.rule_part_start[rr], j;
        for (j = 0; j < n; j++) {
            mdpx_part_range(m, vec, parts[j], k, an, alo, ahi, &x.lo[j], &x.hi[j]);
            if (x.lo[j] == x.hi[j])
                return true;
            x.odo[j] = x.lo[j];
        }
        for (bool more = true; more;) {
            mdpx_emit(m, r, vec, m.class_result[k], parts, x.odo, n, ci++, &o);
            more = false;
            for (j = n; j > 0;) {
                j--;
                if (++x.odo[j] < x.hi[j]) {
                    more = true;
                    break;
                }
                x.odo[j] = x.lo[j];
            }
        }
        return true;
    });
}

/* Is label a above label b (the image's lists are ascending)? */
__device__ bool mdpx_above(const mdpx_img &m, uint32_t a, uint32_t b)
{
    uint32_t lo = m.prio_above_start[b], hi = m.prio_above_start[b + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m.prio_above[mid] == a)
            return true;
        if (m.prio_above[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* The priority on the state's raw choices [c0, c0 + nch), as explore_mdp.c
 * applies it: a choice below the label of another choice, or cut, becomes
 * MDPX_DROPPED; the others show their labels.  perm is the scratch for
 * the new labels (mdpx_canonical fills it afterwards). */
__device__ void mdpx_prio(const mdpx_img &m, const mdpx_raw &r, uint64_t c0, uint32_t nch)
{
    uint32_t *next = r.perm + c0;
    for (uint32_t i = 0; i < nch; i++) {
        const uint32_t l = r.lab[c0 + i];
        bool blocked = m.prio_out[l] == IMAGE_PRIO_CUT;
        for (uint32_t j = 0; j < nch && !blocked; j++)
            blocked = m.prio_above_start[l + 1] > m.prio_above_start[l] && mdpx_above(m, r.lab[c0 + j], l);
        next[i] = blocked ? MDPX_DROPPED : m.prio_out[l];
    }
    for (uint32_t i = 0; i < nch; i++)
        r.lab[c0 + i] = next[i];
}

/* memcmp's order of two vectors of w words. */
__device__ __forceinline__ int mdpx_vcmp(const uint32_t *a, const uint32_t *b, uint32_t w)
{
    for (uint32_t i = 0; i < w; i++)
        if (a[i] != b[i])
            return __byte_perm(a[i], 0, 0x0123) < __byte_perm(b[i], 0, 0x0123) ? -1 : 1;
    return 0;
}

__device__ void mdpx_swap_outcome(const mdpx_raw &r, uint32_t w, uint64_t x, uint64_t y)
{
    for (uint32_t i = 0; i < w; i++) {
        uint32_t t = r.vec[x * w + i];
        r.vec[x * w + i] = r.vec[y * w + i];
        r.vec[y * w + i] = t;
    }
    double tp = r.prob[x];
    r.prob[x] = r.prob[y], r.prob[y] = tp;
    if (r.exact) {
        uint64_t t = r.num[x];
        r.num[x] = r.num[y], r.num[y] = t;
        t = r.den[x];
        r.den[x] = r.den[y], r.den[y] = t;
    }
}

/* Sorts choice ci's outcomes by vector (insertion sort, in place). */
__device__ void mdpx_sort_outcomes(const mdpx_raw &r, uint32_t w, uint64_t ci)
{
    const uint64_t a = r.start[ci], n = r.n[ci];
    for (uint64_t i = 1; i < n; i++)
        for (uint64_t j = i; j > 0 && mdpx_vcmp(r.vec + (a + j) * w, r.vec + (a + j - 1) * w, w) < 0; j--)
            mdpx_swap_outcome(r, w, a + j, a + j - 1);
}

/* explore_mdp.c's cmp_choice on raw choices x and y. */
__device__ int mdpx_ccmp(const mdpx_raw &r, uint32_t w, uint64_t x, uint64_t y)
{
    if (r.lab[x] != r.lab[y])
        return r.lab[x] < r.lab[y] ? -1 : 1;
    if (r.n[x] != r.n[y])
        return r.n[x] < r.n[y] ? -1 : 1;
    for (uint32_t i = 0; i < r.n[x]; i++) {
        uint64_t ox = r.start[x] + i, oy = r.start[y] + i;
        int c = mdpx_vcmp(r.vec + ox * w, r.vec + oy * w, w);
        if (c)
            return c;
        if (r.prob[ox] != r.prob[oy])
            return r.prob[ox] < r.prob[oy] ? -1 : 1;
    }
    return 0;
}

/* The state's choices [c0, c0 + nch): outcomes sorted, then perm[c0 ..]
 * lists the distinct choices in canonical order first; returns their
 * number, and in *n_out their outcomes. */
__device__ uint32_t mdpx_canonical(const mdpx_raw &r, uint32_t w, uint64_t c0, uint32_t nch,
                                   uint32_t *n_out)
{
    uint32_t *perm = r.perm + c0;
    for (uint32_t i = 0; i < nch; i++) {
        mdpx_sort_outcomes(r, w, c0 + i);
        perm[i] = i;
    }
    for (uint32_t i = 1; i < nch; i++) {
        uint32_t v = perm[i], j = i;
        for (; j > 0 && mdpx_ccmp(r, w, c0 + v, c0 + perm[j - 1]) < 0; j--)
            perm[j] = perm[j - 1];
        perm[j] = v;
    }
    uint32_t d = 0, outs = 0;
    for (uint32_t i = 0; i < nch; i++) {
        if (r.lab[c0 + perm[i]] == MDPX_DROPPED)
            break; /* the priority's dropped choices sort last */
        if (d > 0 && mdpx_ccmp(r, w, c0 + perm[d - 1], c0 + perm[i]) == 0)
            continue;
        perm[d++] = perm[i];
        outs += r.n[c0 + perm[i]];
    }
    *n_out = outs;
    return d;
}

#endif
