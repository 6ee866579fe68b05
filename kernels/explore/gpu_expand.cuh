/*
 * gpu_expand.cuh -- successor generation by vector groups (the general
 * generator), the fast generator (one thread per state, precompiled XOR
 * deltas and blocked-rule masks; at the end of this file), and the small
 * per-state successor set that makes transition counts exact.
 *
 * Vector groups.  A state is expanded by a group of G threads (G a power of
 * two, G <= 32, groups aligned inside a warp); thread g of a group handles
 * components g, g + G, g + 2G, ... so networks with more than 32 components
 * work with G = 32.  Every loop below is executed in lock-step by the whole
 * warp (warp-uniform trip counts, decided by __any_sync), so the shuffles and
 * ballots always have all 32 lanes; a group with nothing left to do idles.
 *
 * Order of generation for one state (each lane yields at most one successor
 * per round; the round's successors are then inserted, see tile.cu):
 *   LOCAL  each thread walks the local entries of its components, one target
 *          per round (slot by slot: nondeterministic local targets all
 *          appear).  While doing so it records, per component, where its
 *          sync entries start and where its segment ends (group buffer);
 *   SELECT the group takes the smallest class id k among the components'
 *          next sync entries (min over the group by xor-shuffles), and every
 *          thread gathers, for each of its components, the range of its
 *          class-k entries and the number of their targets (all entries, all
 *          filled slots: 3, 4, ... entries of one class are all enumerated);
 *   RULES  the rules of class k are owned round-robin by the group's threads
 *          (rule r by thread (r - first) mod G, so each rule is checked
 *          once); an owner whose rule has every participant enabled
 *          enumerates the cartesian product of the participants' targets by
 *          mixed-radix decoding of a 64-bit combination index, one successor
 *          per round;
 *   then SELECT again until no component has sync entries left (classes are
 *   taken in increasing order because each component's sync entries are
 *   sorted by class), then DONE.  A class that only one component offers
 *   cannot fire (rules have >= 2 participants): SELECT also finds the
 *   second smallest class k2 and lets that component jump to its first
 *   class >= k2 by binary search.
 * The group buffer holds 4 words per component: next sync entry, segment
 * end, first class-k entry, number of class-k targets (0 = not enabled).
 * Writes to it happen before a __syncwarp() that precedes every read by
 * another lane of the group.
 *
 * Exact transition counts.  Two generators may yield the same (label,
 * target) from one state (self-loops of different components, rules of one
 * label with overlapping effects, ...).  Each yielded successor is first
 * located -- a block-cache row or, if the cache was full, a global table
 * slot; either identifies the vector exactly within the iteration
 * (gpu_cache.cuh) -- and the pair (location, label) is inserted into the
 * group's successor set with one 128-bit atomicCAS per probe (sm_90).  Only
 * pairs new to the set count as transitions.  (The fast generator skips the
 * set for states it proves free of duplicate pairs when no graph is
 * recorded; see "the fast generator" below.)
 *
 * The set is sized for the worst case (D >= twice the image's bound on a
 * state's successors, up to GX_MAX_DEDUPE; with the fast generator and no
 * graph, the bound of the states that use the set, plan.cu's
 * set_bound), which can be thousands of entries when one component offers
 * thousands of actions (abp d=4000 with edges: D = 8192, 128 KiB per
 * group; without, D = 16: its sender offers them only in states without
 * self-loops) although most states have a handful of successors.  So the set is never cleared or scanned whole per state:
 * the thread that inserts a new pair appends its entry number to the
 * group's entry list (D words beside the set, count in shared memory);
 * the edge writer walks that list, and the same list clears exactly the
 * entries used, after the iteration's edges are written.  A set is thus
 * empty whenever an expansion starts (global sets: memset once at
 * allocation; shared ones: cleared at launch start), and the cost per
 * state is proportional to its successors, not to D.
 */
#ifndef WX_GPU_EXPAND_CUH
#define WX_GPU_EXPAND_CUH

#include "../../network/image.h"
#include "gpu_int.cuh"
#include "gpu_table.cuh"

struct __align__(16) gpu_pair {
    unsigned long long loc, label;
};

template <bool TEX> struct gimg {
    static __device__ __forceinline__ uint32_t u32(const uint32_t *p, cudaTextureObject_t t, uint32_t i)
    {
        if (TEX)
            return tex1Dfetch<unsigned int>(t, (int)i);
        return __ldg(p + i);
    }
    static __device__ __forceinline__ unsigned long long entry(const gpu_image &g, uint32_t i)
    {
        uint2 x;
        if (TEX)
            x = tex1Dfetch<uint2>(g.t_trans, (int)i);
        else
            x = __ldg(g.trans + i);
        return (unsigned long long)x.x | ((unsigned long long)x.y << 32);
    }
    static __device__ __forceinline__ uint32_t first_bit(const gpu_image &g, uint32_t c)
    {
        return u32(g.first_bit, g.t_first_bit, c);
    }
    static __device__ __forceinline__ uint32_t state_bits(const gpu_image &g, uint32_t c)
    {
        return u32(g.state_bits, g.t_state_bits, c);
    }
};

/* Number of filled slots of an entry. */
__device__ __forceinline__ uint32_t entry_filled(unsigned long long e, uint32_t act_bits, uint32_t sb)
{
    const uint32_t slots = image_entry_slots(act_bits, sb);
    uint32_t k = 0;
    while (k < slots && image_entry_target(e, act_bits, sb, k) != 0xffffffffu)
        k++;
    return k;
}

/* Target number d (0-based) among the filled slots of the entries from a. */
template <bool TEX>
__device__ __forceinline__ uint32_t nth_target(const gpu_image &g, uint32_t a, uint32_t d, uint32_t sb)
{
    for (uint32_t e = a;; e++) {
        const unsigned long long ent = gimg<TEX>::entry(g, e);
        const uint32_t f = entry_filled(ent, g.act_bits, sb);
        if (d < f)
            return image_entry_target(ent, g.act_bits, sb, d);
        d -= f;
    }
}

/* First entry in [lo, hi) (sync entries of one component, sorted by class)
 * whose class is >= k; hi when there is none. */
template <bool TEX>
__device__ __forceinline__ uint32_t first_class_at_least(const gpu_image &g, uint32_t lo, uint32_t hi, uint32_t k)
{
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (image_entry_label(gimg<TEX>::entry(g, mid), g.act_bits) < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Inserts (loc, label) into a successor set of D (power of two) entries.
 * 1 new (*at = its entry), 0 already there, -1 set full. */
__device__ __forceinline__ int pair_insert(gpu_pair *set, uint32_t D, unsigned long long loc, uint32_t label,
                                           uint32_t *at)
{
    const gpu_pair empty = {~0ull, ~0ull};
    const gpu_pair key = {loc, (unsigned long long)label};
    uint32_t s = (uint32_t)gpu_mix64(loc * 0x9e3779b97f4a7c15ull + label) & (D - 1);
    for (uint32_t j = 0; j < D; j++, s = (s + 1) & (D - 1)) {
        const gpu_pair old = atomicCAS(&set[s], empty, key);
        if (old.loc == empty.loc && old.label == empty.label) {
            *at = s;
            return 1;
        }
        if (old.loc == key.loc && old.label == key.label)
            return 0;
    }
    return -1;
}

enum { PH_LOCAL = 0, PH_SELECT = 1, PH_RULES = 2, PH_DONE = 3 };

/* Per-lane generator state of one state's expansion. */
struct gen_state {
    int phase;
    /* LOCAL */
    uint32_t c, e, e_end, k;
    bool cinit;
    /* RULES */
    uint32_t cls, r, r_end, cur_rule;
    unsigned long long combo, ncombo;
};

/* The generator's state at the start of a state's expansion. */
__device__ __forceinline__ void gen_begin(gen_state &st, bool active, uint32_t gl)
{
    st.phase = active ? PH_LOCAL : PH_DONE;
    st.c = gl;
    st.e = st.e_end = st.k = 0;
    st.cinit = false;
    st.cls = st.r = st.r_end = st.cur_rule = 0;
    st.combo = st.ncombo = 0;
}

__device__ __forceinline__ void copy_words(uint32_t *dst, const uint32_t *src, uint32_t n)
{
    for (uint32_t q = 0; q < n; q++)
        dst[q] = src[q];
}

/* LOCAL: next local successor of this lane into scr, or false when the
 * lane's components are exhausted (then the group buffer has cur/end of all
 * of them). */
template <bool TEX>
__device__ __forceinline__ bool next_local(const gpu_image &g, gen_state &st, uint32_t G, const uint32_t *src,
                                           uint32_t *scr, uint32_t sw, uint32_t *gb, uint32_t *lab)
{
    const uint32_t n = g.n_comps;
    for (;;) {
        if (st.c >= n)
            return false;
        const uint32_t c = st.c;
        const uint32_t sb = gimg<TEX>::state_bits(g, c);
        if (!st.cinit) {
            const uint32_t fb = gimg<TEX>::first_bit(g, c);
            const uint32_t width = gimg<TEX>::first_bit(g, c + 1) - fb;
            const uint32_t s = image_get_field(src, fb, width);
            const uint32_t pi = gimg<TEX>::u32(g.proc_off, g.t_proc_off, c) + s;
            st.e = gimg<TEX>::u32(g.state_off, g.t_state_off, pi);
            st.e_end = gimg<TEX>::u32(g.state_off, g.t_state_off, pi + 1);
            st.k = 0;
            st.cinit = true;
            gb[c * 4 + 1] = st.e_end;
        }
        if (st.e < st.e_end) {
            const unsigned long long ent = gimg<TEX>::entry(g, st.e);
            if (!image_entry_is_sync(ent)) {
                if (st.k < image_entry_slots(g.act_bits, sb)) {
                    const uint32_t t = image_entry_target(ent, g.act_bits, sb, st.k);
                    if (t != 0xffffffffu) {
                        st.k++;
                        const uint32_t fb = gimg<TEX>::first_bit(g, c);
                        const uint32_t width = gimg<TEX>::first_bit(g, c + 1) - fb;
                        copy_words(scr, src, sw);
                        image_set_field(scr, fb, width, t);
                        *lab = image_entry_label(ent, g.act_bits);
                        return true;
                    }
                }
                st.e++;
                st.k = 0;
                continue;
            }
        }
        gb[c * 4 + 0] = st.e; /* first sync entry, or the segment end */
        st.c += G;
        st.cinit = false;
    }
}

/* SELECT, part 2 (after the group agreed on class k): gather this lane's
 * components' class-k entries; set up the rule iterator. */
template <bool TEX>
__device__ __forceinline__ void gather_class(const gpu_image &g, gen_state &st, uint32_t gl, uint32_t G,
                                             uint32_t *gb, uint32_t k)
{
    const uint32_t n = g.n_comps;
    for (uint32_t c = gl; c < n; c += G) {
        uint32_t cur = gb[c * 4 + 0];
        const uint32_t end = gb[c * 4 + 1];
        const uint32_t a = cur;
        uint32_t cnt = 0;
        if (cur < end) {
            const uint32_t sb = gimg<TEX>::state_bits(g, c);
            for (; cur < end; cur++) {
                const unsigned long long ent = gimg<TEX>::entry(g, cur);
                if (image_entry_label(ent, g.act_bits) != k)
                    break;
                cnt += entry_filled(ent, g.act_bits, sb);
            }
        }
        gb[c * 4 + 0] = cur;
        gb[c * 4 + 2] = a;
        gb[c * 4 + 3] = cnt;
    }
    st.cls = k;
    st.r = gimg<TEX>::u32(g.class_rule_start, g.t_class_rule_start, k) + gl;
    st.r_end = gimg<TEX>::u32(g.class_rule_start, g.t_class_rule_start, k + 1);
    st.combo = st.ncombo = 0;
}

/* RULES: next successor of this lane's rules of class st.cls.  *overflow is
 * set when a rule has more than 2^62 combinations. */
template <bool TEX>
__device__ __forceinline__ bool next_rule(const gpu_image &g, gen_state &st, uint32_t G, const uint32_t *src,
                                          uint32_t *scr, uint32_t sw, const uint32_t *gb, uint32_t *lab,
                                          bool *overflow)
{
    const uint32_t mw = g.mask_words;
    for (;;) {
        if (st.combo < st.ncombo) {
            copy_words(scr, src, sw);
            unsigned long long x = st.combo;
            for (uint32_t w = 0; w < mw; w++) {
                uint32_t m = gimg<TEX>::u32(g.rule_mask, g.t_rule_mask, st.cur_rule * mw + w);
                while (m) {
                    const uint32_t c = w * 32 + (__ffs(m) - 1);
                    m &= m - 1;
                    const uint32_t cnt = gb[c * 4 + 3];
                    uint32_t d = 0;
                    if (cnt > 1) {
                        d = (uint32_t)(x % cnt);
                        x /= cnt;
                    }
                    const uint32_t sb = gimg<TEX>::state_bits(g, c);
                    const uint32_t t = nth_target<TEX>(g, gb[c * 4 + 2], d, sb);
                    const uint32_t fb = gimg<TEX>::first_bit(g, c);
                    image_set_field(scr, fb, gimg<TEX>::first_bit(g, c + 1) - fb, t);
                }
            }
            st.combo++;
            *lab = gimg<TEX>::u32(g.class_result, g.t_class_result, st.cls);
            return true;
        }
        if (st.r >= st.r_end)
            return false;
        /* Is rule r enabled, and how many combinations does it have? */
        unsigned long long nc = 1;
        for (uint32_t w = 0; w < mw && nc; w++) {
            uint32_t m = gimg<TEX>::u32(g.rule_mask, g.t_rule_mask, st.r * mw + w);
            while (m) {
                const uint32_t c = w * 32 + (__ffs(m) - 1);
                m &= m - 1;
                const uint32_t cnt = gb[c * 4 + 3];
                if (cnt == 0) {
                    nc = 0;
                    break;
                }
                if (nc > (1ull << 62) / cnt) {
                    *overflow = true;
                    nc = 0;
                    break;
                }
                nc *= cnt;
            }
        }
        st.cur_rule = st.r;
        st.r += G;
        st.combo = 0;
        st.ncombo = nc;
    }
}

/* One round of the general generator for the group of G lanes (gl: this
 * lane's index in it, gmask: the group's lanes): SELECT picks the next
 * class the group's components offer (or skips a class only one component
 * offers), then each lane yields at most one successor of its components'
 * local entries (LOCAL) or of its rules of the chosen class (RULES) into
 * scr / *lab; the group returns to SELECT when none of its lanes had one.
 * Every lane of the warp calls it (shuffles and ballots span the warp). */
template <bool TEX>
__device__ __forceinline__ bool gen_next(const gpu_image &g, gen_state &st, uint32_t G, uint32_t gl, uint32_t gmask,
                                         const uint32_t *src, uint32_t *scr, uint32_t sw, uint32_t *gb, uint32_t *lab,
                                         bool *ovf)
{
    __syncwarp();
    /* the two smallest classes offered next by the group's
     * components (each component's next sync entry counts once) */
    uint32_t kmin = 0xffffffffu, k2 = 0xffffffffu;
    if (st.phase == PH_SELECT)
        for (uint32_t c = gl; c < g.n_comps; c += G) {
            const uint32_t e = gb[c * 4 + 0];
            if (e < gb[c * 4 + 1]) {
                const uint32_t k = image_entry_label(gimg<TEX>::entry(g, e), g.act_bits);
                if (k < kmin)
                    k2 = kmin, kmin = k;
                else if (k < k2)
                    k2 = k;
            }
        }
    for (uint32_t o = 1; o < G; o <<= 1) {
        const uint32_t a = __shfl_xor_sync(GPU_FULL, kmin, o), b2 = __shfl_xor_sync(GPU_FULL, k2, o);
        k2 = min(max(kmin, a), min(k2, b2));
        kmin = min(kmin, a);
    }
    if (st.phase == PH_SELECT) {
        if (kmin == 0xffffffffu) {
            st.phase = PH_DONE;
        } else if (kmin < k2) {
            /* One component alone offers the classes below k2
             * (the others' next classes are >= k2 and their
             * entries are sorted by class), and every rule has
             * at least two participants (image_check), so
             * none of them can fire: that component jumps to
             * its first entry of class >= k2 (binary search),
             * as the CPU generator does.  A channel offering
             * thousands of data values then costs a few probes
             * per state, not one round per value. */
            for (uint32_t c = gl; c < g.n_comps; c += G) {
                const uint32_t e = gb[c * 4 + 0], end = gb[c * 4 + 1];
                if (e < end && image_entry_label(gimg<TEX>::entry(g, e), g.act_bits) == kmin)
                    gb[c * 4 + 0] = first_class_at_least<TEX>(g, e + 1, end, k2);
            }
        } else {
            gather_class<TEX>(g, st, gl, G, gb, kmin);
            st.phase = PH_RULES;
        }
    }
    __syncwarp();

    bool has = false;
    if (st.phase == PH_LOCAL)
        has = next_local<TEX>(g, st, G, src, scr, sw, gb, lab);
    else if (st.phase == PH_RULES)
        has = next_rule<TEX>(g, st, G, src, scr, sw, gb, lab, ovf);
    const uint32_t hb = __ballot_sync(GPU_FULL, has);
    if ((st.phase == PH_LOCAL || st.phase == PH_RULES) && (hb & gmask) == 0)
        st.phase = PH_SELECT;
    return has;
}

/* The priority (gpu_int.cuh) on the general generator's record (has, lab):
 * in pass 0 it only marks the label in `on` and returns true (the record
 * goes no further); in pass 1 it drops a record below a marked label or
 * cut, and shows the others' labels. */
__device__ __forceinline__ bool prio_step(const gpu_image &g, uint32_t pass, unsigned long long &on, bool &has,
                                          uint32_t &lab)
{
    if (pass == 0) {
        if (has)
            on |= g.prio_mark[lab];
        return true;
    }
    if (has) {
        if ((g.prio_block[lab] & on) || g.prio_out[lab] == IMAGE_PRIO_CUT)
            has = false;
        else
            lab = g.prio_out[lab];
    }
    return false;
}

/* Between the priority's passes: the group's marks ORed together (every
 * lane of the warp calls it), and the generator back at the state's start. */
__device__ __forceinline__ void prio_restart(gen_state &st, unsigned long long &on, uint32_t G, bool active,
                                             uint32_t gl)
{
    for (uint32_t o = 1; o < G; o <<= 1)
        on |= __shfl_xor_sync(GPU_FULL, on, o);
    gen_begin(st, active, gl);
}

/* ---- the fast generator (gpu_params.fast; one thread per state, G == 1) ----
 *
 * For images with vectors of <= 4 words and 1..64 components
 * (gx_fast_build in fastgen.cu decides; the general generator above
 * serves every other image, and gpu_tuning.generator forces either).  The
 * vector is read as one or two 64-bit words (lo, hi).  A component in
 * local state s moving to t changes it by the XOR delta (s ^ t) <<
 * first_bit, so the tables hold, per component state (a segment, indexed
 * like state_offsets), its local moves as (label, delta), its sync targets
 * as groups of deltas by class (sorted by class), and the mask of rules it
 * blocks (it takes part in the rule but offers no entry of the rule's
 * class).  A rule fires exactly when no participant blocks it (image.h:
 * every participant needs a class-k entry), so the rules that fire are
 *     all rules & ~(OR over the components of their segments' masks);
 * a fired rule's successors are the product of its participants' class
 * groups (mixed-radix decoding of a combination index, 64-bit, overflow
 * above 2^62 reported as for the general generator).  Masks hold 128
 * rules; beyond (abp d=4000 has 16 004) the rules are ANCHORED: each at
 * one participant, listed in that participant's states that offer its
 * class (gx_fast_anchor), so a state visits the rules of its components'
 * lists -- a superset of those that fire, usually a handful -- and keeps
 * those whose every participant offers the class (fx_group finds none
 * otherwise).
 *
 * Per state: BEGIN reads every component's segment once (blocked rules,
 * self-loop flag, which components have local moves); then each round
 * yields at most one successor: LOCAL walks the local moves of the
 * components that have some, RULES the fired rules and their
 * combinations.  Every yielded record is a real transition of the state
 * (the same (label, target) set as the general generator, possibly in
 * another order), so the downstream dedupe, edges, traces are unchanged.
 *
 * Skipping the successor set.  Two records of one state whose movers all
 * have non-zero deltas differ in their sets of movers, so they can be
 * equal only when (a) a segment has two local entries with the same
 * (label, target), (b) a segment repeats a target within a class, or (c)
 * two rules with the same result label have the same participants;
 * gx_fast_build checks (a)-(c) once (always_dedup).  Otherwise equal
 * records need a mover with delta 0, i.e. a segment with a self-loop
 * entry (bit 31 of gpu_fseg.ngrp; width-0 components have only
 * self-loops).  A state with none of these yields distinct pairs, and
 * when no graph is recorded each of them counts as a transition without
 * the set (fast_state.dedup == false). */
/* The fast generator also runs on the host (explore_gpu_fast_*, for the
 * CPU tests of its tables): table reads are read-only loads on the device
 * and plain loads on the host. */
template <typename T> __host__ __device__ __forceinline__ T fx_ld(const T *p)
{
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

/* 1 + the index of the lowest set bit of x, 0 when x == 0 */
__host__ __device__ __forceinline__ int fx_ffsll(unsigned long long x)
{
#ifdef __CUDA_ARCH__
    return __ffsll((long long)x);
#else
    return __builtin_ffsll((long long)x);
#endif
}

/* FX_LOAN: this lane's own state is done and it works off a slice of
 * another lane's local moves (lane sharing, below; device only) */
enum { FX_LOCAL = 0, FX_RULES = 1, FX_DONE = 2, FX_LOAN = 3 };

struct fast_state {
    int phase;
    bool dedup;                          /* this state needs the successor set */
    unsigned long long lo, hi;           /* the source vector */
    unsigned long long locm;             /* components whose local moves are left */
    uint32_t j, jend;                    /* LOCAL: current component's moves;
                                            LOAN: the slice of the lender's */
    unsigned long long on0, on1;         /* RULES, masks: fired rules not yet
                                            visited; anchored: on0 = components
                                            whose rule lists are left, on1 = the
                                            current list's next | end << 32 */
    uint32_t r;                          /* RULES: current rule; LOAN: the
                                            lender (fx_share) */
    unsigned long long combo, ncombo;    /* its next combination, and count */
};

__host__ __device__ __forceinline__ uint32_t fx_field(unsigned long long lo, unsigned long long hi, uint4 cm)
{
    const uint32_t sh = cm.y, w = cm.z;
    if (w == 0)
        return 0;
    unsigned long long x;
    if (sh >= 64)
        x = hi >> (sh - 64);
    else {
        x = lo >> sh;
        if (sh + w > 64)
            x |= hi << (64 - sh);
    }
    return (uint32_t)(x & ((1ull << w) - 1));
}

__host__ __device__ __forceinline__ uint32_t fx_seg_index(const gpu_fast &f, unsigned long long lo, unsigned long long hi,
                                                 uint32_t c)
{
    const uint4 cm = fx_ld(f.comp + c);
    return cm.x + fx_field(lo, hi, cm);
}

/* The segment's group of class k; (0, 0, 0, 0) when it has none (with
 * masks never: a rule that fired was not blocked; anchored: the other
 * participants are checked here). */
__host__ __device__ __forceinline__ uint4 fx_group(const gpu_fast &f, uint32_t si, uint32_t k)
{
    const uint4 sg = fx_ld((const uint4 *)(f.seg + si) + 1);
    uint32_t lo = sg.z, hi = sg.z + (sg.w & GPU_LOW31);
    if (lo == hi)
        return make_uint4(0, 0, 0, 0);
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (fx_ld(&f.grp[mid].x) <= k)
            lo = mid;
        else
            hi = mid;
    }
    const uint4 g = fx_ld(f.grp + lo);
    return g.x == k ? g : make_uint4(0, 0, 0, 0);
}

/* Writes src ^ (dlo, dhi) (the vector's W data words; a control word
 * beyond them is copied). */
__host__ __device__ __forceinline__ void fx_write(uint32_t *scr, const uint32_t *src, uint32_t sw, uint32_t W,
                                         unsigned long long dlo, unsigned long long dhi)
{
    const uint32_t d[4] = {(uint32_t)dlo, (uint32_t)(dlo >> 32), (uint32_t)dhi, (uint32_t)(dhi >> 32)};
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (uint32_t q = 0; q < 4; q++)
        if (q < W)
            scr[q] = src[q] ^ d[q];
    for (uint32_t q = W; q < sw; q++)
        scr[q] = src[q];
}

/* BEGIN: one pass over the components. */
__host__ __device__ __forceinline__ void fx_begin(const gpu_fast &f, fast_state &st, uint32_t n, uint32_t W,
                                         const uint32_t *src, bool active)
{
    st.phase = active ? FX_LOCAL : FX_DONE;
    st.lo = st.hi = 0;
    st.locm = 0;
    st.j = st.jend = 0;
    st.on0 = st.on1 = 0;
    st.r = 0;
    st.combo = st.ncombo = 0;
    st.dedup = f.always_dedup != 0;
    if (!active)
        return;
    st.lo = src[0] | (W > 1 ? (unsigned long long)src[1] << 32 : 0ull);
    st.hi = W > 2 ? (src[2] | (W > 3 ? (unsigned long long)src[3] << 32 : 0ull)) : 0ull;
    unsigned long long b0 = 0, b1 = 0;
    uint32_t self = 0;
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t si = fx_seg_index(f, st.lo, st.hi, c);
        const ulonglong2 blk = fx_ld((const ulonglong2 *)(f.seg + si));
        const uint4 sg = fx_ld((const uint4 *)(f.seg + si) + 1);
        b0 |= blk.x;
        b1 |= blk.y;
        self |= sg.w;
        if (sg.y)
            st.locm |= 1ull << c;
        if (f.anchored && blk.y)
            st.on0 |= 1ull << c;
    }
    st.dedup |= (self >> 31) != 0;
    if (!f.anchored) {
        st.on0 = f.all0 & ~b0;
        st.on1 = f.all1 & ~b1;
    }
}

/* Local move j (an index into loc_d / loc_lab) of the state src, into scr. */
__host__ __device__ __forceinline__ void fx_local(const gpu_fast &f, uint32_t j, const uint32_t *src, uint32_t *scr,
                                         uint32_t sw, uint32_t W, uint32_t *lab)
{
    const uint32_t dw = f.dw;
    const unsigned long long dlo = fx_ld(f.loc_d + (size_t)j * dw);
    const unsigned long long dhi = dw > 1 ? fx_ld(f.loc_d + (size_t)j * dw + 1) : 0ull;
    fx_write(scr, src, sw, W, dlo, dhi);
    *lab = fx_ld(f.loc_lab + j);
}

/* Next successor of this lane's state into scr, or false when it has no
 * more (then phase is FX_DONE).  *overflow as in next_rule. */
__host__ __device__ __forceinline__ bool fx_next(const gpu_fast &f, fast_state &st, const uint32_t *src, uint32_t *scr,
                                        uint32_t sw, uint32_t W, uint32_t *lab, bool *overflow)
{
    const uint32_t dw = f.dw;
    if (st.phase == FX_LOCAL) {
        for (;;) {
            if (st.j < st.jend) {
                fx_local(f, st.j++, src, scr, sw, W, lab);
                return true;
            }
            if (!st.locm) {
                st.phase = FX_RULES;
                break;
            }
            const uint32_t c = fx_ffsll(st.locm) - 1;
            st.locm &= st.locm - 1;
            const uint4 sg = fx_ld((const uint4 *)(f.seg + fx_seg_index(f, st.lo, st.hi, c)) + 1);
            st.j = sg.x;
            st.jend = sg.x + sg.y;
        }
    }
    if (st.phase != FX_RULES)
        return false;
    for (;;) {
        if (st.combo < st.ncombo) {
            /* combination st.combo >= 1 (0 was yielded when the rule began) */
            const uint2 ri = fx_ld(f.rinfo + st.r);
            unsigned long long x = st.combo++, dlo = 0, dhi = 0;
            for (unsigned long long m = fx_ld(f.rmask + st.r); m; m &= m - 1) {
                const uint32_t c = fx_ffsll(m) - 1;
                const uint4 g = fx_group(f, fx_seg_index(f, st.lo, st.hi, c), ri.x);
                uint32_t i = 0;
                if (g.z > 1) {
                    i = (uint32_t)(x % g.z);
                    x /= g.z;
                }
                dlo ^= fx_ld(f.d + (size_t)(g.y + i) * dw);
                if (dw > 1)
                    dhi ^= fx_ld(f.d + (size_t)(g.y + i) * dw + 1);
            }
            fx_write(scr, src, sw, W, dlo, dhi);
            *lab = ri.y;
            return true;
        }
        uint32_t r;
        if (f.anchored) {
            /* the next rule anchored at one of the state's components; it
             * fires when every participant offers its class (nc > 0 below) */
            if ((uint32_t)st.on1 < (uint32_t)(st.on1 >> 32)) {
                r = fx_ld(f.arule + (uint32_t)st.on1);
                st.on1++;
            } else if (st.on0) {
                const uint32_t c = fx_ffsll(st.on0) - 1;
                st.on0 &= st.on0 - 1;
                const ulonglong2 blk = fx_ld((const ulonglong2 *)(f.seg + fx_seg_index(f, st.lo, st.hi, c)));
                st.on1 = blk.x | (blk.x + blk.y) << 32;
                continue;
            } else {
                st.phase = FX_DONE;
                return false;
            }
        } else if (st.on0) {
            r = fx_ffsll(st.on0) - 1;
            st.on0 &= st.on0 - 1;
        } else if (st.on1) {
            r = 64 + fx_ffsll(st.on1) - 1;
            st.on1 &= st.on1 - 1;
        } else {
            st.phase = FX_DONE;
            return false;
        }
        /* rule r fires: count its combinations, yield the first */
        const uint2 ri = fx_ld(f.rinfo + r);
        unsigned long long nc = 1, dlo = 0, dhi = 0;
        for (unsigned long long m = fx_ld(f.rmask + r); m; m &= m - 1) {
            const uint32_t c = fx_ffsll(m) - 1;
            const uint4 g = fx_group(f, fx_seg_index(f, st.lo, st.hi, c), ri.x);
            if (g.z == 0) {
                nc = 0;
                break;
            }
            if (nc > (1ull << 62) / g.z) {
                *overflow = true;
                nc = 0;
                break;
            }
            nc *= g.z;
            dlo ^= fx_ld(f.d + (size_t)g.y * dw);
            if (dw > 1)
                dhi ^= fx_ld(f.d + (size_t)g.y * dw + 1);
        }
        if (nc == 0)
            continue;
        st.r = r;
        st.combo = 1;
        st.ncombo = nc;
        fx_write(scr, src, sw, W, dlo, dhi);
        *lab = ri.y;
        return true;
    }
}

/* ---- lane sharing (fast generator, device only) ----
 *
 * One thread per state leaves a warp waiting on its heaviest state: abp's
 * sender offers each of its d data values as a local move, so a state with
 * the sender ready keeps its warp for d rounds (d = 4000) while the other
 * lanes' states are done after a handful.  So, in every round in which
 * some lanes have nothing left, the lane with the longest remaining run of
 * local moves of one component (at least GPU_SHARE_MIN; its own, or one it
 * took over) keeps the first of k = idle + 1 equal slices of it and the
 * idle lanes take the others: a LOAN.  A lane works its loan off before
 * anything else and may pass part of it on in a later round, so a long run
 * is halved again as lanes fall idle one by one.
 *
 * Exactness.  The slices partition [j, jend) of the run, and the donor
 * stops at the end of its own slice, so every local move of the state is
 * generated exactly once, by one lane or another, from the same source
 * vector (the donor state's tile row, read-only while the tile expands)
 * and by the same code (fx_local).  Every record of a loan belongs to the
 * lender state: it goes through that state's successor set when the state
 * uses one (the set takes concurrent inserts: pair_insert's 128-bit CAS),
 * is appended to that state's entry list, names that state's slot as the
 * parent of a new state (traces) and as the source of an action
 * violation, and counts as one of its transitions when the set takes it
 * as new or, without the set, always (the records of one state are
 * distinct by gx_fast_build's proof, wherever they are generated).  The
 * borrower adds that count to its own nedge: only the block's sum of them
 * is kept.  A loan's records do not count in the borrower's ngen, which
 * alone says whether the borrower's state is a deadlock (a lender has
 * moves left, so it is none).  A loan never leaves its warp.
 *
 * LOAN: fast_state.r = the lender's lane | FX_LOAN_SET when its records go
 * through its successor set (its slot is the tile's, not kept: a loan
 * lives in fields the borrower's own, finished, expansion no longer uses) */
#define FX_LOAN_SET 32u

#ifdef __CUDACC__
/* One round's sharing decision for the whole warp (all 32 lanes call it).
 * use_set: whether this lane's own state uses its successor set. */
__device__ __forceinline__ void fx_share(fast_state &fs, uint32_t lane, bool use_set)
{
    const uint32_t idle = __ballot_sync(0xffffffffu, fs.phase == FX_DONE);
    if (idle == 0)
        return;
    const bool run = fs.phase == FX_LOCAL || fs.phase == FX_LOAN;
    const uint32_t left = run ? fs.jend - fs.j : 0u;
    /* the donor: the longest run (ties: the highest lane): the longest run
     * is what bounds the warp's remaining rounds, so it is split first */
    const uint32_t key = left >= GPU_SHARE_MIN ? min(left, 0x7ffffffu) << 5 | lane : 0u;
    const uint32_t top = __reduce_max_sync(0xffffffffu, key);
    if (top == 0)
        return;
    const uint32_t d = top & 31u;
    const uint32_t dj = __shfl_sync(0xffffffffu, fs.j, d), djend = __shfl_sync(0xffffffffu, fs.jend, d);
    const uint32_t from =
        __shfl_sync(0xffffffffu, fs.phase == FX_LOAN ? fs.r : lane | (use_set ? FX_LOAN_SET : 0u), d);
    /* k slices of chunk >= 1 moves cover the run (k * chunk >= its length);
     * the donor keeps the first, idle lane number r (1..k-1) the r-th,
     * none when it would start at the end */
    const uint32_t k = __popc(idle) + 1u, chunk = (djend - dj + k - 1u) / k;
    if (lane == d) {
        fs.jend = dj + chunk;
    } else if (idle >> lane & 1u) {
        const uint32_t r = __popc(idle & ((1u << lane) - 1u)) + 1u;
        const uint32_t j = min(dj + r * chunk, djend);
        if (j < djend) {
            fs.phase = FX_LOAN;
            fs.j = j;
            fs.jend = min(j + chunk, djend);
            fs.r = from;
        }
    }
}
#endif

#endif
