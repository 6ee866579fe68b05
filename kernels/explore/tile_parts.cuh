/*
 * tile_parts.cuh -- device pieces of the GPU explorer's kernels: the
 * block's bookkeeping (struct blk), the block cache's reset, the tile's
 * places, the placement of new states (next tile, else output queue, else
 * left new for a scanner), the global-table inserts of one successor, the
 * table scan for work and the deadlock record.  explore_tile (tile.cu)
 * is built from them; the growth and finishing kernels (table.cu, ids.cu)
 * use gpu_set_error.
 */
#ifndef WX_TILE_PARTS_CUH
#define WX_TILE_PARTS_CUH

#include "gpu_cache.cuh"
#include "gpu_expand.cuh"
#include "gpu_int.cuh"
#include "gpu_table.cuh"

__device__ __forceinline__ void gpu_set_error(const gpu_params &p, uint32_t code)
{
    atomicCAS(&p.ctl->error, 0u, code);
    __threadfence();
    atomicExch(&p.ctl->stop, 1u);
}

/* --por (general generator): the reduced set of the group's state, by
 * its lane 0 with the construction the CPU explorers use
 * (explorer/por_core.h), in the tile place's scratch.  Returns the mask of
 * the chosen components' fields (img.words words) when the state is
 * reduced, NULL when it is expanded in full.  Every lane of the warp calls
 * it (__syncwarp). */
__device__ __forceinline__ const uint32_t *por_begin(const gpu_params &p, uint32_t grp, uint32_t gl, bool active,
                                                     const uint32_t *src)
{
    uint32_t *base = p.por_scratch + ((size_t)blockIdx.x * p.T + grp) * p.por_words;
    struct por_scratch s;
    uint32_t *mask = por_core_carve(&s, base, p.por.n, p.por_parts, p.por.rule_words, GX_POR_BITS);
    if (gl == 0 && active) {
        const bool red = por_core_state(&p.por, &s, src);
        por_core_mask(&p.por, &s, p.img.words, mask);
        mask[p.img.words] = red;
    }
    __syncwarp();
    return active && mask[p.img.words] ? mask : nullptr;
}

/* --por: a reduced state's set has enabled moves, so it keeps some of
 * its records (por.h); none kept would count a deadlock that is not one,
 * so it is an error instead.  Every lane of the warp calls it. */
__device__ __forceinline__ void por_end(const gpu_params &p, uint32_t G, uint32_t gl, const uint32_t *mask,
                                        uint32_t ngen)
{
    for (uint32_t o = 1; o < G; o <<= 1)
        ngen += __shfl_xor_sync(GPU_FULL, ngen, o);
    if (gl == 0 && mask && ngen == 0)
        gpu_set_error(p, GPU_ERR_POR);
}

/* --por proviso, pass 1 (gpu_params.por_pass): whether this thread's
 * record (has: it holds one in scr) leads to a state first reached in this
 * level.  Every target is in the table (pass 0 inserted it), so the
 * lookups find it and change nothing; one that does not is an error.
 * scratch: the block's rows (the warp-wide lookups read a lane's row).
 * Every lane of the warp calls it. */
__device__ __forceinline__ bool por_probe(const gpu_params &p, const uint8_t *fresh_marks, bool has, const uint32_t *scr,
                                          const uint32_t *scratch, uint32_t tid, uint32_t lane, uint32_t sw)
{
    bool fresh = false;
    const unsigned long long h = has ? gpu_hash(scr, sw) : 0;
    if (p.oneshot || p.thread_rwp) {
        if (has) {
            unsigned long long slot = 0;
            const int r = p.oneshot ? tbl_find_or_install_thread(p, scr, h, gpu_hash2(h), &slot)
                                    : tbl_find_or_reserve_thread(p, scr, h, gpu_hash2(h), &slot);
            if (r == TBL_FOUND)
                fresh = fresh_marks[slot] != 0;
            else
                gpu_set_error(p, GPU_ERR_POR);
        }
        return fresh;
    }
    uint32_t need = __ballot_sync(GPU_FULL, has);
    if (need)
        __syncwarp();
    while (need) {
        const uint32_t ld = __ffs(need) - 1;
        need &= need - 1;
        const unsigned long long hl = __shfl_sync(GPU_FULL, h, ld);
        const uint32_t *vl = scratch + (size_t)((tid & ~31u) + ld) * sw;
        unsigned long long slot = 0;
        const int r = tbl_find_or_reserve(p, vl, hl, gpu_hash2(hl), &slot);
        __syncwarp();
        if (lane == ld) {
            if (r == TBL_FOUND)
                fresh = fresh_marks[slot] != 0;
            else
                gpu_set_error(p, GPU_ERR_POR);
        }
    }
    return fresh;
}

/* --por proviso, pass 1: a reduced state (mask) is queued (q, its length
 * in p.ctl->por_q_len) for pass 2 when it has an enabled visible
 * transition (vis) or none of its reduced targets is new (fresh): the CPU
 * explorers expand it in full (explorer/por.h).  Every lane of the warp
 * calls it. */
__device__ __forceinline__ void por_check_end(const gpu_params &p, unsigned long long *q, uint32_t G, uint32_t gl,
                                              const uint32_t *mask, unsigned long long src_slot, bool fresh, bool vis)
{
    uint32_t f = fresh, v = vis;
    for (uint32_t o = 1; o < G; o <<= 1) {
        f |= __shfl_xor_sync(GPU_FULL, f, o);
        v |= __shfl_xor_sync(GPU_FULL, v, o);
    }
    if (gl == 0 && mask && (v || !f))
        q[atomicAdd(&p.ctl->por_q_len, 1ull)] = src_slot;
}

/* Per-block bookkeeping in static shared memory. */
struct blk {
    unsigned int cur_n, next_n, pos, stop, qgot, edges_full, ended;
    int viol_row;
    unsigned long long qh;
    unsigned long long states, claimed, expanded, trans, dead, direct, cached, scan_claims, iters;
};

/* Empties the block cache (whole block): the control words, or, for
 * cache_install's one-shot rows, every word. */
__device__ __forceinline__ void cache_clear(const gpu_params &p, uint32_t *cache)
{
    const uint32_t sw = p.sw, C = p.C;
    if (p.oneshot) {
        const size_t words = (size_t)C * sw;
        for (size_t i = threadIdx.x; i < words; i += blockDim.x)
            cache[i] = GPU_EMPTY;
    } else {
        for (uint32_t i = threadIdx.x; i < C; i += blockDim.x)
            cache[(size_t)i * sw + sw - 1] = GPU_EMPTY;
    }
}

/* Profiling (explore_tile's PROF): adds the cycles since *t to prof[k]
 * (shared: summed over the block's phases, thread 0, and over its warps'
 * expansion parts, lane 0; GPU_PROF_*), restarts *t. */
__device__ __forceinline__ void prof_lap(unsigned long long *prof, uint32_t k, unsigned long long *t)
{
    const unsigned long long now = clock64();
    atomicAdd(&prof[k], now - *t);
    *t = now;
}

/* Tile places.  The states of a tile have ranks 0, 1, ... (fill order);
 * with the fast generator (one thread per state, T = blockDim.x) rank k
 * sits at place (k % warps) * 32 + k / warps, which thread expands it, so
 * that a tile of fewer states than threads spreads them over all warps:
 * each warp then keeps idle lanes that take slices of its long runs of
 * local moves (fx_share; abp's ready sender, 4 000 moves), instead of one
 * warp holding all of the tile's states while the others idle.  The
 * general generator keeps place = rank.  A bijection of [0, T). */
__device__ __forceinline__ uint32_t tile_place(const gpu_params &p, uint32_t rank)
{
    if (!p.fast)
        return rank;
    const uint32_t warps = p.T >> 5;
    return (rank % warps) * 32u + rank / warps;
}

__device__ __forceinline__ uint32_t tile_rank(const gpu_params &p, uint32_t place)
{
    if (!p.fast)
        return place;
    return (place & 31u) * (p.T >> 5) + (place >> 5);
}

/* Places a new state (the caller has counted it in b.states): the block's
 * next tile (async), else the output queue.  Returns its place in the next
 * tile, or 0xffffffff; *placed is false when neither had room (the caller
 * leaves or makes it NEW, so a scanner takes it).  Records the parent link
 * when traces are kept. */
__device__ __forceinline__ uint32_t place_new(const gpu_params &p, blk &b, unsigned long long slot,
                                              unsigned long long src_slot, uint32_t lab, bool *placed)
{
    uint32_t fpos = 0xffffffffu;
    *placed = true;
    if (!p.level_mode) {
        const unsigned int pos = atomicAdd(&b.next_n, 1u);
        if (pos < p.T)
            fpos = tile_place(p, pos);
    }
    if (fpos == 0xffffffffu) {
        const unsigned long long q = atomicAdd(&p.ctl->q_out_len, 1ull);
        if (q < p.q_cap)
            p.q_out[q] = slot;
        else if (p.level_mode)
            gpu_set_error(p, GPU_ERR_QUEUE);
        else
            *placed = false;
    }
    if (*placed)
        atomicAdd(&b.claimed, 1ull);
    if (p.parent) {
        p.parent[slot] = src_slot;
        p.parent_label[slot] = lab;
    }
    return fpos;
}

/* One-shot inserts (p.oneshot): the vector at `slot` was just installed
 * NEW by this thread.  Claim it (a scanner may have been first), then place
 * it (place_new); a state that finds no place is made NEW again (the
 * atomicOr), so a scanner takes it.  Returns its place in the next tile,
 * or 0xffffffff. */
__device__ __forceinline__ uint32_t place_installed(const gpu_params &p, blk &b, unsigned long long slot,
                                                    unsigned long long src_slot, uint32_t lab)
{
    atomicAdd(&b.states, 1ull);
    uint32_t *ctlw = tbl_slot_ptr(p, slot) + p.sw - 1;
    if (!(atomicAnd(ctlw, GPU_LOW31) & GPU_NEW_BIT))
        return 0xffffffffu; /* a scanner claimed it */
    bool placed;
    const uint32_t fpos = place_new(p, b, slot, src_slot, lab, &placed);
    if (!placed)
        atomicOr(ctlw, GPU_NEW_BIT);
    return fpos;
}

/* The flush's insert of one cache row by one thread (p.oneshot): as
 * insert_global, without warp collectives.  Returns the slot, or
 * GPU_NO_SLOT (table full). */
__device__ __forceinline__ unsigned long long insert_one(const gpu_params &p, blk &b, const uint32_t *v,
                                                         unsigned long long h, unsigned long long src_slot,
                                                         uint32_t lab, uint32_t *next_vec,
                                                         unsigned long long *next_slot)
{
    unsigned long long slot = 0;
    const int r = tbl_find_or_install_thread(p, v, h, gpu_hash2(h), &slot);
    if (r == TBL_FULL || r == TBL_SPIN) {
        gpu_set_error(p, r == TBL_FULL ? GPU_ERR_TABLE_FULL : GPU_ERR_SPIN);
        return GPU_NO_SLOT;
    }
    if (r == TBL_FOUND)
        return slot;
    const uint32_t fpos = place_installed(p, b, slot, src_slot, lab);
    if (fpos != 0xffffffffu) {
        for (uint32_t q = 0; q < p.sw; q++)
            next_vec[(size_t)fpos * p.sw + q] = v[q];
        next_slot[fpos] = slot;
    }
    return slot;
}

/* The flush's reserve/write/publish insert of one cache row by one thread
 * (p.thread_rwp): as insert_global, without warp collectives.  The new
 * vector is placed (next tile, else queue, else left new) while its slot
 * is reserved, then published.  Returns the slot, or GPU_NO_SLOT. */
__device__ __forceinline__ unsigned long long insert_one_rwp(const gpu_params &p, blk &b, const uint32_t *v,
                                                             unsigned long long h, unsigned long long src_slot,
                                                             uint32_t lab, uint32_t *next_vec,
                                                             unsigned long long *next_slot)
{
    unsigned long long slot = 0;
    const int r = tbl_find_or_reserve_thread(p, v, h, gpu_hash2(h), &slot);
    if (r == TBL_FULL || r == TBL_SPIN) {
        gpu_set_error(p, r == TBL_FULL ? GPU_ERR_TABLE_FULL : GPU_ERR_SPIN);
        return GPU_NO_SLOT;
    }
    if (r == TBL_FOUND)
        return slot;
    atomicAdd(&b.states, 1ull);
    bool placed;
    const uint32_t fpos = place_new(p, b, slot, src_slot, lab, &placed);
    const uint32_t flag = placed ? 0 : GPU_NEW_BIT;
    if (fpos != 0xffffffffu) {
        for (uint32_t q = 0; q < p.sw; q++)
            next_vec[(size_t)fpos * p.sw + q] = v[q];
        next_slot[fpos] = slot;
    }
    tbl_publish_thread(p, slot, v, flag);
    return slot;
}

/* Stores a vector that is not in the cache, reserve/write/publish (the
 * one-shot layouts insert one vector per thread, insert_one); see
 * gpu_table.cuh for the protocol and tile.cu (top) for the
 * placement of new states.  Whole warp, converged.  Returns the slot, or
 * GPU_NO_SLOT (table full). */
__device__ __noinline__ unsigned long long insert_global(const gpu_params &p, blk &b, const uint32_t *v,
                                                         unsigned long long h, unsigned long long src_slot,
                                                         uint32_t lab, uint32_t *next_vec,
                                                         unsigned long long *next_slot)
{
    const uint32_t lane = threadIdx.x & 31u;
    unsigned long long slot = 0;
    const int r = tbl_find_or_reserve(p, v, h, gpu_hash2(h), &slot);
    /* every lane has read the key (often the leader lane's scratch row,
     * which its owner overwrites with its next successor) */
    __syncwarp();
    if (r == TBL_FULL || r == TBL_SPIN) {
        if (lane == 0)
            gpu_set_error(p, r == TBL_FULL ? GPU_ERR_TABLE_FULL : GPU_ERR_SPIN);
        return GPU_NO_SLOT;
    }
    if (r == TBL_FOUND)
        return slot;
    uint32_t flag = 0, fpos = 0xffffffffu;
    if (lane == 0) {
        atomicAdd(&b.states, 1ull);
        bool placed;
        fpos = place_new(p, b, slot, src_slot, lab, &placed);
        flag = placed ? 0 : GPU_NEW_BIT;
    }
    fpos = __shfl_sync(GPU_FULL, fpos, 0);
    flag = __shfl_sync(GPU_FULL, flag, 0);
    if (fpos != 0xffffffffu) {
        for (uint32_t q = lane; q < p.sw; q += 32)
            next_vec[(size_t)fpos * p.sw + q] = v[q];
        if (lane == 0)
            next_slot[fpos] = slot;
    }
    tbl_publish(p, slot, v, flag);
    return slot;
}

/* Scans buckets for states left new (async mode, queue overflow) and claims
 * them into the tile from b.pos on.  Whole warp. */
__device__ __forceinline__ void scan_for_work(const gpu_params &p, blk &b, uint32_t *tile_vec,
                                              unsigned long long *tile_slot)
{
    const uint32_t lane = threadIdx.x & 31u;
    const uint32_t sw = p.sw;
    for (;;) {
        unsigned long long c0 = 0;
        if (lane == 0)
            c0 = *(volatile unsigned int *)&b.pos >= p.T ? p.nbuckets
                                                           : atomicAdd(&p.ctl->scan_cursor, (unsigned long long)p.scan_chunk);
        c0 = __shfl_sync(GPU_FULL, c0, 0);
        if (c0 >= p.nbuckets)
            return;
        const unsigned long long c1 = min(c0 + p.scan_chunk, p.nbuckets);
        for (unsigned long long bk = c0; bk < c1; bk++) {
            uint32_t *base = p.table + bk * p.bw;
            bool isnew = false;
            uint32_t ctlpos = 0;
            if (p.lines == 1) {
                const bool isctl = lane < p.spb * sw && lane % sw == sw - 1;
                const uint32_t w = isctl ? ld_relaxed(base + lane) : GPU_EMPTY;
                isnew = isctl && ctl_published(w) && (w & GPU_NEW_BIT);
                ctlpos = lane;
            } else if (lane == 0) {
                const uint32_t w = ld_relaxed(base + sw - 1);
                isnew = ctl_published(w) && (w & GPU_NEW_BIT);
                ctlpos = sw - 1;
            }
            uint32_t m = __ballot_sync(GPU_FULL, isnew);
            while (m) {
                const uint32_t cl = __ffs(m) - 1;
                m &= m - 1;
                const uint32_t cpos = __shfl_sync(GPU_FULL, ctlpos, cl);
                unsigned int pos = 0;
                uint32_t won = 0;
                if (lane == 0)
                    pos = atomicAdd(&b.pos, 1u);
                pos = __shfl_sync(GPU_FULL, pos, 0);
                if (pos >= p.T)
                    return;
                if (lane == 0) {
                    const uint32_t old = atomicAnd(base + cpos, GPU_LOW31);
                    won = (old & GPU_NEW_BIT) && ctl_published(old);
                }
                won = __shfl_sync(GPU_FULL, won, 0);
                const unsigned long long slot = bk * p.spb + cpos / sw;
                pos = tile_place(p, pos);
                if (won) {
                    __threadfence();
                    __syncwarp();
                    tbl_read(p, slot, tile_vec + (size_t)pos * sw);
                    if (lane == 0) {
                        tile_slot[pos] = slot;
                        atomicAdd(&b.claimed, 1ull);
                        atomicAdd(&b.scan_claims, 1ull);
                    }
                } else if (lane == 0) {
                    tile_slot[pos] = GPU_NO_SLOT;
                }
            }
        }
    }
}

__device__ __forceinline__ void record_deadlock(const gpu_params &p, unsigned long long slot)
{
    if (atomicCAS(&p.ctl->viol_dead_claim, 0u, 1u) == 0u) {
        p.ctl->viol_dead_slot = slot;
        __threadfence();
        if (!p.record_only)
            atomicExch(&p.ctl->stop, 1u);
    }
}

#endif
