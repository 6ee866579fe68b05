/*
 * gpu_table.cuh -- the global state table: "warp-the-line" buckets, bounded
 * double hashing, and an exact insert for vectors of several words.
 *
 * Layout.  The table is nbuckets buckets of bw = 32 * lines words (one
 * 128-byte line when a vector has at most 32 words).  A bucket holds
 * spb = bw / sw vectors of sw words each; vector k occupies words
 * [k*sw, (k+1)*sw) of its bucket, a vector never straddles buckets, and the
 * words after spb*sw are unused.  Slot numbers are global:
 * slot = bucket * spb + k (64-bit, tables may exceed 2^32 words).
 *
 * The control word.  The last word of a stored vector (word sw-1) is its
 * control word.  Bit 31 is the new/old flag (1 = new: inserted, not yet
 * claimed by anyone for expansion); bits 0..30 are data: the vector's last
 * word, whose bit 31 the image guarantees free, or, when the host found that
 * the last data word could take the values 0x7ffffffe/0x7fffffff, an extra
 * all-zero word appended to every vector (sw = words + 1).  Two values are
 * therefore never published and serve as codes:
 *     GPU_EMPTY    0xffffffff  the slot is free (the table is memset to 0xff)
 *     GPU_RESERVED 0xfffffffe  an inserter owns the slot and is writing it
 * A control word only moves EMPTY -> RESERVED -> published(new or old), and
 * a published one only ever clears its new bit.  Data words are written once,
 * between RESERVED and published.
 *
 * Insert (tbl_find_or_reserve + tbl_publish), all 32 lanes of a warp:
 *   1. read the bucket with relaxed loads, one word per lane (phase 1);
 *   2. slots whose control word is published and whose low 31 bits equal the
 *      key's last word are candidates; if there are any (and sw > 1), every
 *      lane executes __threadfence() (acquire side: orders the control-word
 *      reads before what follows), __syncwarp() (makes the fence of the lane
 *      that read the control word precede the other lanes' next loads), and
 *      the bucket is read again (phase 2).  Data words of a slot whose
 *      control word was seen published in phase 1 are final in phase 2:
 *      the writer stored them before its release (step 5);
 *   3. a candidate whose phase-2 data words all equal the key: FOUND;
 *   4. otherwise, a RESERVED slot might be receiving this very key: re-read
 *      the bucket until it is published (the writer is a running warp that
 *      only has to finish step 5), then compare again;
 *   5. otherwise the first EMPTY slot is claimed with atomicCAS(EMPTY ->
 *      RESERVED) by the lane holding its control word.  On success the warp
 *      owns the slot: tbl_publish writes the data words with relaxed stores,
 *      each writing lane executes __threadfence(), the warp __syncwarp()s,
 *      and lane 0 executes __threadfence() and atomicExch()es the control
 *      word to (key | flag) (release: all data stores precede it for any
 *      warp that later observes the control word and fences, as in step 2).
 *      On CAS failure the bucket is read again (someone else took the slot,
 *      possibly for this key);
 *   6. a bucket with neither EMPTY nor RESERVED slots and no match is full:
 *      go to the next bucket of the probe sequence; after probe_bound
 *      buckets the insert fails (TBL_FULL, reported as WX_ELIMIT).
 * Why a key is stored at most once: slots of a bucket fill in order (an
 * inserter only claims the first EMPTY slot, and slots never become EMPTY
 * again), and an inserter passes a bucket only when it is full and every
 * slot in it was published and compared.  So an inserter that reaches the
 * first empty slot of bucket i has compared the key with every vector that
 * was or is being stored in buckets 0..i of its probe sequence, and any
 * concurrent inserter of the same key either finished (found in phase 2),
 * is writing (waited for in step 4) or loses the CAS race and re-reads.
 * No reader ever compares a half-written vector: it only compares slots
 * whose control word it saw published, after the fence and warp barrier.
 *
 * Claim.  A state is expanded by whoever clears its new bit: the inserter
 * (which publishes it old when it already holds a place in a tile or queue)
 * or a scanner (atomicAnd on a control word seen published-new; the old
 * value tells whether this scanner won).  Each state is thus expanded once.
 */
#ifndef WX_GPU_TABLE_CUH
#define WX_GPU_TABLE_CUH

#include "gpu_int.cuh"
#include "gpu_mix.cuh"

enum { TBL_FOUND = 0, TBL_RESERVED = 1, TBL_FULL = 2, TBL_SPIN = 3 };

__device__ __forceinline__ uint32_t ld_relaxed(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void st_relaxed(uint32_t *p, uint32_t v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Hash of a key (sw words, flag clear); any pointer (shared or global). */
__device__ __forceinline__ unsigned long long gpu_hash(const uint32_t *v, uint32_t sw)
{
    unsigned long long h = 0x9e3779b97f4a7c15ull ^ sw;
    uint32_t i = 0;
    for (; i + 1 < sw; i += 2) {
        unsigned long long x = (unsigned long long)v[i] | ((unsigned long long)v[i + 1] << 32);
        h = (h ^ x) * 0x9e3779b97f4a7c15ull;
        h = (h << 31) | (h >> 33);
    }
    if (i < sw) {
        h = (h ^ v[i]) * 0x9e3779b97f4a7c15ull;
        h = (h << 31) | (h >> 33);
    }
    return gpu_mix64(h);
}

__device__ __forceinline__ unsigned long long gpu_hash2(unsigned long long h)
{
    return gpu_mix64(h ^ 0xd6e8feb86659fd93ull) | 1ull;
}

__device__ __forceinline__ uint32_t *tbl_slot_ptr(const gpu_params &p, unsigned long long slot)
{
    unsigned long long b = slot / p.spb;
    uint32_t k = (uint32_t)(slot - b * p.spb);
    return p.table + b * p.bw + (unsigned long long)k * p.sw;
}

__device__ __forceinline__ bool ctl_published(uint32_t w)
{
    return w != GPU_EMPTY && w != GPU_RESERVED;
}

/* Steps 1-6 above; whole warp, converged, same v/h1/h2 in every lane.
 * v: the key (sw words, control word without flag), shared or global.
 * Returns TBL_FOUND or TBL_RESERVED with *slot, or TBL_FULL, or TBL_SPIN
 * (a slot still reserved after GPU_SPIN_NS: a bug, reported rather than
 * hung on).  Only a RESERVED slot makes the loops wait: every other re-read
 * follows a failed CAS, i.e. a slot that was filled, at most spb per bucket. */
static __device__ __noinline__ int tbl_find_or_reserve(const gpu_params &p, const uint32_t *v,
                                                unsigned long long h1, unsigned long long h2,
                                                unsigned long long *slot)
{
    const uint32_t lane = threadIdx.x & 31u;
    const uint32_t sw = p.sw;
    const uint32_t key_ctl = v[sw - 1];
    if (p.lines == 1) {
        const uint32_t used = p.spb * sw;
        const bool inslot = lane < used;
        const uint32_t off = inslot ? lane % sw : 0;
        const bool isctl = inslot && off == sw - 1;
        const uint32_t mine = inslot ? v[off] : 0;
        unsigned long long t0 = 0; /* start of a wait for a RESERVED slot (gpu_wait_expired) */
        for (uint32_t i = 0; i < p.probe_bound; i++) {
            const unsigned long long b = __umul64hi(h1 + (unsigned long long)i * h2, p.nbuckets);
            uint32_t *base = p.table + b * p.bw;
            for (;;) {
                const uint32_t w = inslot ? ld_relaxed(base + lane) : GPU_EMPTY;
                const uint32_t res = __ballot_sync(GPU_FULL, isctl && w == GPU_RESERVED);
                const uint32_t emp = __ballot_sync(GPU_FULL, isctl && w == GPU_EMPTY);
                uint32_t cand = __ballot_sync(GPU_FULL, isctl && ctl_published(w) && (w & GPU_LOW31) == key_ctl);
                if (cand) {
                    uint32_t mism = 0;
                    if (sw > 1) {
                        __threadfence();
                        __syncwarp();
                        const uint32_t w2 = (inslot && !isctl) ? ld_relaxed(base + lane) : 0;
                        mism = __ballot_sync(GPU_FULL, inslot && !isctl && w2 != mine);
                    }
                    while (cand) {
                        const uint32_t cl = __ffs(cand) - 1;
                        const uint32_t k = cl / sw;
                        const uint32_t range = sw == 32 ? GPU_FULL : (((1u << sw) - 1u) << (k * sw));
                        if ((mism & range) == 0) {
                            *slot = b * p.spb + k;
                            return TBL_FOUND;
                        }
                        cand &= cand - 1;
                    }
                }
                if (res) {
                    if (__any_sync(GPU_FULL, gpu_wait_expired(&t0)))
                        return TBL_SPIN;
                    continue;
                }
                if (emp) {
                    const uint32_t el = __ffs(emp) - 1;
                    uint32_t old = 0;
                    if (lane == el)
                        old = atomicCAS(base + el, GPU_EMPTY, GPU_RESERVED);
                    old = __shfl_sync(GPU_FULL, old, el);
                    if (old == GPU_EMPTY) {
                        *slot = b * p.spb + el / sw;
                        return TBL_RESERVED;
                    }
                    continue;
                }
                break; /* full, key absent: next bucket */
            }
        }
        return TBL_FULL;
    }
    /* sw > 32: one vector per bucket of p.lines lines. */
    const uint32_t lc = (sw - 1) & 31u, jc = (sw - 1) >> 5;
    unsigned long long t0 = 0; /* start of a wait for a RESERVED slot (gpu_wait_expired) */
    for (uint32_t i = 0; i < p.probe_bound; i++) {
        const unsigned long long b = __umul64hi(h1 + (unsigned long long)i * h2, p.nbuckets);
        uint32_t *base = p.table + b * p.bw;
        for (;;) {
            uint32_t myc = 0;
            if (lane == lc)
                myc = ld_relaxed(base + jc * 32u + lc);
            const uint32_t ctl = __shfl_sync(GPU_FULL, myc, lc);
            if (ctl == GPU_RESERVED) {
                if (__any_sync(GPU_FULL, gpu_wait_expired(&t0)))
                    return TBL_SPIN;
                continue;
            }
            if (ctl == GPU_EMPTY) {
                uint32_t old = 0;
                if (lane == lc)
                    old = atomicCAS(base + sw - 1, GPU_EMPTY, GPU_RESERVED);
                old = __shfl_sync(GPU_FULL, old, lc);
                if (old == GPU_EMPTY) {
                    *slot = b;
                    return TBL_RESERVED;
                }
                continue;
            }
            if ((ctl & GPU_LOW31) == key_ctl) {
                __threadfence();
                __syncwarp();
                bool mm = false;
                for (uint32_t q = lane; q < sw - 1; q += 32)
                    if (ld_relaxed(base + q) != v[q])
                        mm = true;
                if (!__any_sync(GPU_FULL, mm)) {
                    *slot = b;
                    return TBL_FOUND;
                }
            }
            break;
        }
    }
    return TBL_FULL;
}

__device__ __forceinline__ unsigned long long ld_relaxed64(const uint32_t *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

/* One 16-byte slot, read with one 128-bit access (a scalar .b128 load: the
 * whole slot from one moment, never part of a CAS that installs it). */
__device__ __forceinline__ gpu_u128 ld_relaxed128(const uint32_t *p)
{
    gpu_u128 v;
    asm volatile("{\n\t.reg .b128 t;\n\tld.relaxed.gpu.global.b128 t, [%2];\n\tmov.b128 {%0, %1}, t;\n\t}"
                 : "=l"(v.lo), "=l"(v.hi)
                 : "l"(p)
                 : "memory");
    return v;
}

/* The new bit of a 16-byte slot, in its high half (key128). */
#define GPU_NEW_BIT_HI ((unsigned long long)GPU_NEW_BIT << 32)

/* The whole one-shot insert of a 16-byte slot by one thread into the
 * bucket at base: reads two slots at a time (both loads in flight
 * together), and on the first EMPTY one installs key | new bit with one
 * 128-bit atomicCAS, whose returned value decides at once (EMPTY: ours;
 * the key: found; another key: that slot is final, go on).  1 installed,
 * 0 found, -1 the bucket is full without the key; *k = the slot. */
__device__ __forceinline__ int tbl_bucket_install128(uint32_t *base, uint32_t spb, gpu_u128 key, uint32_t *k)
{
    const gpu_u128 empty = GPU_EMPTY128, nkey = {key.lo, key.hi | GPU_NEW_BIT_HI};
    for (uint32_t s0 = 0; s0 < spb; s0 += 2) {
        gpu_u128 w[2];
        w[0] = ld_relaxed128(base + 4 * s0);
        w[1] = s0 + 1 < spb ? ld_relaxed128(base + 4 * s0 + 4) : empty;
        for (uint32_t j = 0; j < 2 && s0 + j < spb; j++) {
            gpu_u128 x = w[j];
            if (gpu_u128_eq(x, empty)) {
                x = atomicCAS((gpu_u128 *)(base + 4 * (s0 + j)), empty, nkey);
                if (gpu_u128_eq(x, empty)) {
                    *k = s0 + j;
                    return 1;
                }
            }
            if (x.lo == key.lo && (x.hi & ~GPU_NEW_BIT_HI) == key.hi) {
                *k = s0 + j;
                return 0;
            }
        }
    }
    return -1;
}

/* One-shot insert, for slots of sw = 1, 2 or 4 words (p.oneshot; vectors
 * of three words get a fourth, all-zero control word for it, plan.cu),
 * by one thread (one line per bucket).  A slot of one, two or four words is
 * 4-, 8- or 16-byte aligned, so it can be read with one load and written
 * with one atomicCAS (128 bits: sm_90): a reader sees either EMPTY or the
 * whole vector, never a part of it.  So no slot is ever RESERVED, no fence
 * is needed before comparing, and the whole vector is installed by
 *     atomicCAS(slot, EMPTY, key | GPU_NEW_BIT)
 * on the first EMPTY slot of the bucket.  The reasoning of the general
 * protocol carries over: slots still fill in order, a CAS succeeds only on
 * the first EMPTY slot of the reader's view, whose earlier slots it
 * compared, and a failed CAS shows the slot's final content.  The new
 * vector is published NEW (unclaimed); the caller then claims it with
 * atomicAnd like a scanner would (place_installed), so the rule "whoever
 * clears the new bit expands the state" still decides.
 * The thread reads the bucket 16 bytes at a time (two 8-byte loads, each
 * single-copy atomic; 16-byte slots: tbl_bucket_install128) and stops at
 * the first match or the first EMPTY slot.  Stopping there is sound
 * because slots fill in order: a slot after an EMPTY one was EMPTY too when
 * this thread read it, and an inserter of the same key must fill the EMPTY
 * slot first.  With the table sized from free memory most buckets hold a
 * slot or two, so one read usually decides, and 32 threads of a warp insert
 * 32 vectors at once (a warp-wide insert pays one memory round trip per
 * vector).  Returns TBL_FOUND, TBL_RESERVED (meaning: installed by this
 * thread), TBL_FULL or TBL_SPIN. */
static __device__ __noinline__ int tbl_find_or_install_thread(const gpu_params &p, const uint32_t *v, unsigned long long h1,
                                                       unsigned long long h2, unsigned long long *slot)
{
    const uint32_t sw = p.sw, spb = p.spb;
    if (sw == 4) {
        const gpu_u128 key = key128(v);
        for (uint32_t i = 0; i < p.probe_bound; i++) {
            const unsigned long long b = __umul64hi(h1 + (unsigned long long)i * h2, p.nbuckets);
            uint32_t k = 0;
            const int r = tbl_bucket_install128(p.table + b * p.bw, spb, key, &k);
            if (r >= 0) {
                *slot = b * spb + k;
                return r ? TBL_RESERVED : TBL_FOUND;
            }
        }
        return TBL_FULL;
    }
    const unsigned long long key = sw == 1 ? (unsigned long long)v[0]
                                           : ((unsigned long long)v[1] << 32) | v[0];
    const unsigned long long empty = sw == 1 ? GPU_EMPTY : ~0ull;
    const unsigned long long newbit = sw == 1 ? GPU_NEW_BIT : (unsigned long long)GPU_NEW_BIT << 32;
    const uint32_t per16 = 4 / sw; /* slots per 16 bytes */
    uint32_t spins = 0;
    for (uint32_t i = 0; i < p.probe_bound; i++) {
        const unsigned long long b = __umul64hi(h1 + (unsigned long long)i * h2, p.nbuckets);
        uint32_t *base = p.table + b * p.bw;
    again:
        if (++spins > GPU_SPIN_LIMIT)
            return TBL_SPIN;
        for (uint32_t s0 = 0; s0 < spb; s0 += per16) {
            const unsigned long long x0 = ld_relaxed64(base + s0 * sw), x1 = ld_relaxed64(base + s0 * sw + 2);
            for (uint32_t j = 0; j < per16; j++) {
                const unsigned long long x = j < per16 / 2 ? x0 : x1;
                const uint32_t jj = j % (per16 / 2);
                const unsigned long long w = sw == 1 ? (x >> (32 * jj)) & 0xffffffffull : x;
                if (w == empty) {
                    const uint32_t el = s0 + j;
                    const unsigned long long old =
                        sw == 1 ? (unsigned long long)atomicCAS(base + el, GPU_EMPTY, (uint32_t)key | GPU_NEW_BIT)
                                : atomicCAS((unsigned long long *)(base + 2 * el), ~0ull, key | newbit);
                    if (old == empty) {
                        *slot = b * spb + el;
                        return TBL_RESERVED;
                    }
                    goto again; /* taken meanwhile, maybe for this key */
                }
                if ((w & ~newbit) == key) {
                    *slot = b * spb + s0 + j;
                    return TBL_FOUND;
                }
            }
        }
        /* full, key absent: next bucket */
    }
    return TBL_FULL;
}

/* The reserve/write/publish insert by one thread (sw <= 32: one line per
 * bucket), for the cache flush: steps 1-6 above with the bucket's slots
 * read one after the other, stopping at the first match or the first
 * EMPTY slot.  Slot k's control word is read; EMPTY: claim it with
 * atomicCAS(EMPTY -> RESERVED) (on failure read slot k again: it was
 * taken, maybe for this key); RESERVED: re-read until it is published
 * (its writer is running and only has to finish tbl_publish_thread);
 * published with the key's last word: __threadfence() (acquire, as in
 * step 2), then compare the data words.  Sound for the reasons given
 * above: slots fill in order, so when this thread claims slot k it has
 * compared every vector stored or being stored before it, and a
 * concurrent inserter of the same key has finished (found), is waited
 * for, or loses the CAS.  Each thread of a warp inserts its own row at
 * once, instead of the warp inserting 32 rows one after the other, which
 * made the flush of three-word vectors dominate the kernel.  Returns TBL_FOUND or TBL_RESERVED
 * with *slot, or TBL_FULL, or TBL_SPIN. */
static __device__ __noinline__ int tbl_find_or_reserve_thread(const gpu_params &p, const uint32_t *v,
                                                       unsigned long long h1, unsigned long long h2,
                                                       unsigned long long *slot)
{
    const uint32_t sw = p.sw, spb = p.spb;
    const uint32_t key_ctl = v[sw - 1];
    uint32_t spins = 0;
    unsigned long long t0 = 0; /* start of a wait for a RESERVED slot (gpu_wait_expired) */
    for (uint32_t i = 0; i < p.probe_bound; i++) {
        const unsigned long long b = __umul64hi(h1 + (unsigned long long)i * h2, p.nbuckets);
        uint32_t *base = p.table + b * p.bw;
        for (uint32_t k = 0; k < spb;) {
            uint32_t *s = base + k * sw;
            const uint32_t c = ld_relaxed(s + sw - 1);
            if (c == GPU_EMPTY) {
                if (atomicCAS(s + sw - 1, GPU_EMPTY, GPU_RESERVED) == GPU_EMPTY) {
                    *slot = b * spb + k;
                    return TBL_RESERVED;
                }
                if (++spins > GPU_SPIN_LIMIT)
                    return TBL_SPIN;
                continue; /* taken meanwhile, maybe for this key: read it again */
            }
            if (c == GPU_RESERVED) {
                if (gpu_wait_expired(&t0))
                    return TBL_SPIN;
                continue;
            }
            if ((c & GPU_LOW31) == key_ctl) {
                __threadfence();
                bool eq = true;
                for (uint32_t q = 0; q + 1 < sw && eq; q++)
                    eq = ld_relaxed(s + q) == v[q];
                if (eq) {
                    *slot = b * spb + k;
                    return TBL_FOUND;
                }
            }
            k++;
        }
        /* full, key absent: next bucket */
    }
    return TBL_FULL;
}

/* Step 5, second half, by the one thread that reserved `slot`: the data
 * words, the release fence, then the control word (key | flag). */
__device__ __forceinline__ void tbl_publish_thread(const gpu_params &p, unsigned long long slot, const uint32_t *v,
                                                   uint32_t flag)
{
    uint32_t *base = tbl_slot_ptr(p, slot);
    for (uint32_t q = 0; q + 1 < p.sw; q++)
        st_relaxed(base + q, v[q]);
    __threadfence();
    atomicExch(base + p.sw - 1, v[p.sw - 1] | flag);
}

/* Step 5, second half: the warp that reserved `slot` writes the key and
 * publishes it with `flag` (GPU_NEW_BIT or 0).  Whole warp, converged. */
__device__ __forceinline__ void tbl_publish(const gpu_params &p, unsigned long long slot,
                                            const uint32_t *v, uint32_t flag)
{
    const uint32_t lane = threadIdx.x & 31u;
    uint32_t *base = tbl_slot_ptr(p, slot);
    for (uint32_t q = lane; q + 1 < p.sw; q += 32)
        st_relaxed(base + q, v[q]);
    __threadfence();
    __syncwarp();
    if (lane == 0) {
        __threadfence();
        atomicExch(base + p.sw - 1, v[p.sw - 1] | flag);
    }
    __syncwarp();
}

/* Copies a published vector out of the table into dst (sw words, flag
 * cleared), whole warp.  The caller must have observed the control word
 * published and fenced, or be in a later launch than the publisher. */
__device__ __forceinline__ void tbl_read(const gpu_params &p, unsigned long long slot, uint32_t *dst)
{
    const uint32_t lane = threadIdx.x & 31u;
    const uint32_t *base = tbl_slot_ptr(p, slot);
    for (uint32_t q = lane; q < p.sw; q += 32) {
        uint32_t w = ld_relaxed(base + q);
        dst[q] = q == p.sw - 1 ? (w & GPU_LOW31) : w;
    }
    __syncwarp();
}

#endif
