/*
 * gpu_kernels.cuh -- the kernels of the GPU explorer: explore_tile (one
 * launch = several iterations of fill / expand / flush per block), the
 * initial-state insert, and the finishing kernels (dense ids, vectors,
 * edges).  Host code is in explore.cu.
 *
 * One iteration of a block (explore_tile):
 *   fill    the tile (T = threads / G states) keeps the states forwarded by
 *           the previous iteration; free places are taken from the input
 *           queue (q_in, written by the previous launch), then, when the
 *           host enabled it, by scanning the table for states still marked
 *           new (claim = atomic clear of the new bit);
 *   expand  each vector group (FAST: each thread) expands one tile state
 *           (gpu_expand.cuh); successors go to the block cache, or
 *           straight to the global table when the cache is full (one
 *           thread per successor where the flush also inserts one row per
 *           thread, else one warp-wide insert after the other);
 *   flush   the cache rows go into the global table: one row per thread
 *           with one-CAS inserts (slots of 1, 2 or 4 words), else one row
 *           per thread (slots of <= 32 words) or one row at a time per warp
 *           with reserve/write/publish (gpu_table.cuh); a vector
 *           that turns out to be new is, while its slot is still reserved,
 *           given a place: the block's next tile (async mode: forwarding),
 *           else the output queue, else (async, queue full) it is published
 *           new and left for a scanner.  Whoever places it publishes it old:
 *           it is claimed, and will be expanded exactly once;
 *   edges   (edge sink) each group writes its state's distinct edges,
 *           from its successor set's entry list (gpu_expand.cuh), at
 *           consecutive positions reserved by one atomicAdd per warp (so a
 *           group's lanes write neighbouring entries); then every group
 *           empties the set entries it used.
 * Level mode (traces, properties): no forwarding, every new state goes to
 * q_out, and a launch only drains q_in, so the states of one launch
 * sequence between two queue swaps are exactly one BFS level, and the
 * first inserter of a state (a parent of the previous level) records the
 * BFS-tree edge used for shortest traces.
 * Determinism: counts, deadlocks and edges (up to renumbering) are
 * deterministic; slots, ids and the order of edges vary from run to run.
 */
#ifndef WX_GPU_KERNELS_CUH
#define WX_GPU_KERNELS_CUH

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
 * gpu_table.cuh for the protocol and gpu_kernels.cuh (top) for the
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

/* TEX: image reads through textures.  OCC2: compiled for two blocks of
 * GPU_MAX_THREADS per SM (at most 64 registers, some spilled) instead of
 * one (no spills); which is faster is measured (bench/GPU_NOTES.md).
 * PROF: the clock64 phase counters (GPU_PROF_*); a template parameter
 * so that the kernel without them keeps its registers and spills.
 * FAST: the fast generator (p.fast, one thread per state: G == 1) instead
 * of the vector groups' general one (gpu_expand.cuh).  SHARE (with FAST,
 * where some component state has GPU_SHARE_MIN local moves or more): idle
 * lanes take slices of long runs of local moves (fx_share); without it the
 * kernel keeps the registers that costs. */
template <bool TEX, bool OCC2, bool PROF, bool FAST, bool SHARE = false>
__global__ void __launch_bounds__(GPU_MAX_THREADS, OCC2 ? 2 : 1) explore_tile(const __grid_constant__ gpu_params p)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ blk b;
    __shared__ unsigned long long prof[PROF ? GPU_PROF_N : 1];

    const uint32_t tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5, nwarps = blockDim.x >> 5;
    const uint32_t sw = p.sw, T = p.T, C = p.C, n = p.img.n_comps;
    uint32_t *tile_vec[2] = {(uint32_t *)(smem + p.off_tile_vec[0]), (uint32_t *)(smem + p.off_tile_vec[1])};
    unsigned long long *tile_slot[2] = {(unsigned long long *)(smem + p.off_tile_slot[0]),
                                        (unsigned long long *)(smem + p.off_tile_slot[1])};
    uint32_t *scratch = (uint32_t *)(smem + p.off_scratch);
    uint32_t *cache = (uint32_t *)(smem + p.off_cache);
    unsigned long long *c_gslot = (unsigned long long *)(smem + p.off_cache_gslot);
    uint32_t *c_par = (uint32_t *)(smem + p.off_cache_par);
    uint32_t *c_lab = (uint32_t *)(smem + p.off_cache_lab);
    int cur = 0;

    if (tid == 0) {
        b.cur_n = b.next_n = b.pos = b.stop = b.qgot = b.edges_full = b.ended = 0;
        b.viol_row = -1;
        b.qh = 0;
        b.states = b.claimed = b.expanded = b.trans = b.dead = b.direct = b.cached = b.scan_claims = b.iters = 0;
    }
    if (PROF && tid < GPU_PROF_N)
        prof[tid] = 0;
    cache_clear(p, cache);
    /* successor sets: shared ones start as garbage; global ones were left
     * empty by the previous launch (or the allocation's memset) */
    uint32_t *grp_n = (uint32_t *)(smem + p.off_grp_n);
    for (uint32_t i = tid; i < T; i += blockDim.x)
        grp_n[i] = 0;
    if (!p.dedupe_global) {
        gpu_pair *all = (gpu_pair *)(smem + p.off_dedupe);
        for (uint32_t i = tid; i < T * p.D; i += blockDim.x)
            all[i] = gpu_pair{~0ull, ~0ull};
    }
    __syncthreads();

    /* Async mode: take back the states forwarded at the end of the last
     * launch (claimed, not yet expanded). */
    if (p.saved) {
        unsigned long long *sv = p.saved + (size_t)blockIdx.x * (T + 1);
        const uint32_t ns = (uint32_t)sv[0];
        for (uint32_t j = warp; j < ns; j += nwarps) {
            const unsigned long long slot = sv[1 + j];
            if (lane == 0)
                tile_slot[0][tile_place(p, j)] = slot;
            tbl_read(p, slot, tile_vec[0] + (size_t)tile_place(p, j) * sw);
        }
        __syncthreads();
        if (tid == 0) {
            b.cur_n = ns;
            sv[0] = 0;
        }
        __syncthreads();
    }

    bool save = false;
    unsigned long long pt = 0; /* PROF: thread 0's phase clock */
    if (PROF && tid == 0)
        pt = clock64();
    for (uint32_t it = 0;; it++) {
        if (tid == 0) {
            b.stop = *(volatile unsigned int *)&p.ctl->stop;
            /* Edge buffer guard: an iteration starts only while e_fill <=
             * e_guard = e_cap - M, M = blocks * T * (most distinct
             * successors of a state).  Then the buffer cannot overflow:
             * take the last guard check before any moment; edges written
             * since then come from iterations whose check came earlier,
             * at most one per block, so at most M of them.  (An atomic
             * read: the latest value, not a stale one.)  The launch then
             * ends as if its iteration budget were spent, and the host
             * empties the buffer before the next one. */
            b.edges_full = p.want_edges && atomicAdd(&p.ctl->e_fill, 0ull) > p.e_guard;
            /* The launch ends with its slower blocks: once p.end_blocks
             * have left (their budget spent, or out of work), a block
             * parks its tile here, so that the host hands the output queue
             * to all blocks instead of waiting for one block's 64
             * iterations (abp d=4000's first launch: one block, 71 ms).
             * Monotone counter, read as it is: a stale value only ends
             * the block one iteration later. */
            b.ended = p.end_blocks && it > 0 && *(volatile unsigned int *)&p.ctl->blocks_done >= p.end_blocks;
        }
        __syncthreads();
        if (b.stop)
            break;
        if ((p.iterations && it == p.iterations) || b.edges_full || b.ended) {
            save = true;
            break;
        }

        /* ---- fill ---- */
        if (tid == 0) {
            const uint32_t have = b.cur_n, want = min(T - have, p.q_grab);
            b.qgot = 0;
            const unsigned long long len = p.ctl->q_in_len;
            if (want && *(volatile unsigned long long *)&p.ctl->q_in_head < len) {
                const unsigned long long h = atomicAdd(&p.ctl->q_in_head, (unsigned long long)want);
                if (h < len) {
                    b.qh = h;
                    b.qgot = (uint32_t)min((unsigned long long)want, len - h);
                }
            }
        }
        __syncthreads();
        {
            /* one word per thread, all of them at once (a warp per state
             * kept the lanes past sw idle: 8 % of milner n=22's block time) */
            const uint32_t have = b.cur_n, got = b.qgot;
            for (uint32_t i = tid; i < got * sw; i += blockDim.x) {
                const uint32_t j = i / sw, q = i - j * sw, at = tile_place(p, have + j);
                const unsigned long long slot = p.q_in[b.qh + j];
                if (q == 0)
                    tile_slot[cur][at] = slot;
                const uint32_t w = ld_relaxed(tbl_slot_ptr(p, slot) + q);
                tile_vec[cur][(size_t)at * sw + q] = q == sw - 1 ? (w & GPU_LOW31) : w;
            }
        }
        __syncthreads();
        if (tid == 0)
            b.pos = b.cur_n + b.qgot;
        __syncthreads();
        /* decide before any warp moves b.pos */
        const bool do_scan = b.pos < T && *(volatile unsigned int *)&p.ctl->scan_enabled;
        __syncthreads();
        if (PROF && tid == 0)
            prof_lap(prof, GPU_PROF_FILL, &pt);
        if (do_scan)
            scan_for_work(p, b, tile_vec[cur], tile_slot[cur]);
        __syncthreads();
        if (tid == 0)
            b.cur_n = min(b.pos, T);
        if (PROF && tid == 0)
            prof_lap(prof, GPU_PROF_SCAN, &pt);
        __syncthreads();
        const uint32_t tile_n = b.cur_n;
        if (tile_n == 0)
            break;

        /* ---- expand ---- */
        {
            const uint32_t G = p.G, gl = lane & (G - 1), grp = tid >> p.log2G;
            const uint32_t gmask = G == 32 ? GPU_FULL : ((1u << G) - 1u) << (lane & ~(G - 1));
            const bool filled = tile_rank(p, grp) < tile_n; /* G > 1: grp < T = tile_place's bound */
            const bool active = filled && tile_slot[cur][grp] != GPU_NO_SLOT;
            const unsigned long long src_slot = filled ? tile_slot[cur][grp] : GPU_NO_SLOT;
            const uint32_t *src = tile_vec[cur] + (size_t)grp * sw;
            uint32_t *scr = scratch + (size_t)tid * sw;
            uint32_t *gb = p.grpbuf_global ? p.grpbuf_g + ((size_t)blockIdx.x * T + grp) * n * 4
                                           : (uint32_t *)(smem + p.off_grpbuf) + (size_t)grp * n * 4;
            gpu_pair *ded = p.dedupe_global ? (gpu_pair *)p.dedupe_g + ((size_t)blockIdx.x * T + grp) * p.D
                                            : (gpu_pair *)(smem + p.off_dedupe) + (size_t)grp * p.D;
            uint32_t *dl = p.dedupe_global ? p.dedlist_g + ((size_t)blockIdx.x * T + grp) * p.D
                                           : (uint32_t *)(smem + p.off_dedlist) + (size_t)grp * p.D;

            gen_state st;
            fast_state fs;
            if (FAST) {
                fx_begin(p.fx, fs, n, p.img.words, src, active);
            } else {
                st.phase = active ? PH_LOCAL : PH_DONE;
                st.c = gl;
                st.e = st.e_end = st.k = 0;
                st.cinit = false;
                st.cls = st.r = st.r_end = st.cur_rule = 0;
                st.combo = st.ncombo = 0;
            }
            /* FAST: a state with distinct records by construction counts
             * them without the successor set unless edges are recorded */
            const bool use_set = !FAST || fs.dedup || p.want_edges;
            uint32_t ngen = 0, nedge = 0;
            bool ovf = false;
            unsigned long long wt = 0; /* PROF: lane 0's clock */
            if (PROF && lane == 0)
                wt = clock64();

            while (__any_sync(GPU_FULL, FAST ? fs.phase != FX_DONE : st.phase != PH_DONE)) {
                bool has = false, borrowed = false;
                uint32_t lab = 0;
                if (FAST) {
                    if (SHARE)
                        fx_share(fs, lane, use_set);
                    if (SHARE && fs.phase == FX_LOAN) {
                        const uint32_t lender = (tid & ~31u) + (fs.r & 31u); /* G == 1 */
                        fx_local(p.fx, fs.j++, tile_vec[cur] + (size_t)lender * sw, scr, sw, p.img.words, &lab);
                        if (fs.j == fs.jend)
                            fs.phase = FX_DONE;
                        has = borrowed = true;
                    } else {
                        has = fx_next(p.fx, fs, src, scr, sw, p.img.words, &lab, &ovf);
                    }
                } else {
                    __syncwarp();
                    /* the two smallest classes offered next by the group's
                     * components (each component's next sync entry counts once) */
                    uint32_t kmin = 0xffffffffu, k2 = 0xffffffffu;
                    if (st.phase == PH_SELECT)
                        for (uint32_t c = gl; c < n; c += G) {
                            const uint32_t e = gb[c * 4 + 0];
                            if (e < gb[c * 4 + 1]) {
                                const uint32_t k = image_entry_label(gimg<TEX>::entry(p.img, e), p.img.act_bits);
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
                             * at least two participants (succ_check_image), so
                             * none of them can fire: that component jumps to
                             * its first entry of class >= k2 (binary search),
                             * as the CPU generator does.  A channel offering
                             * thousands of data values then costs a few probes
                             * per state, not one round per value. */
                            for (uint32_t c = gl; c < n; c += G) {
                                const uint32_t e = gb[c * 4 + 0], end = gb[c * 4 + 1];
                                if (e < end && image_entry_label(gimg<TEX>::entry(p.img, e), p.img.act_bits) == kmin)
                                    gb[c * 4 + 0] = first_class_at_least<TEX>(p.img, e + 1, end, k2);
                            }
                        } else {
                            gather_class<TEX>(p.img, st, gl, G, gb, kmin);
                            st.phase = PH_RULES;
                        }
                    }
                    __syncwarp();

                    if (st.phase == PH_LOCAL)
                        has = next_local<TEX>(p.img, st, G, src, scr, sw, gb, &lab);
                    else if (st.phase == PH_RULES)
                        has = next_rule<TEX>(p.img, st, G, src, scr, sw, gb, &lab, &ovf);
                    const uint32_t hb = __ballot_sync(GPU_FULL, has);
                    if ((st.phase == PH_LOCAL || st.phase == PH_RULES) && (hb & gmask) == 0)
                        st.phase = PH_SELECT;
                }
                if (PROF && lane == 0)
                    prof_lap(prof, GPU_PROF_GEN, &wt);
                /* the state this record belongs to (a loan's: the lender's) */
                const uint32_t e_grp = borrowed ? (tid & ~31u) + (fs.r & 31u) : grp;
                const unsigned long long e_slot = borrowed ? tile_slot[cur][e_grp] : src_slot;

                /* locate the successor: block cache, else global table */
                unsigned long long h = 0, loc = 0;
                int cres = CACHE_FULL;
                uint32_t row = 0;
                if (has) {
                    h = gpu_hash(scr, sw);
                    cres = p.oneshot ? cache_install(cache, C, p.cache_probes, sw, scr, h, &row)
                                     : cache_insert(cache, C, p.cache_probes, sw, scr, h, &row);
                    if (cres == CACHE_SPIN) {
                        gpu_set_error(p, GPU_ERR_CACHE_SPIN);
                        cres = CACHE_FULL;
                    }
                    if (cres == CACHE_INSERTED && p.parent) {
                        c_par[row] = e_grp;
                        c_lab[row] = lab;
                    }
                    loc = row;
                }
                uint32_t need = __ballot_sync(GPU_FULL, has && cres == CACHE_FULL);
                if (PROF && lane == 0)
                    prof_lap(prof, GPU_PROF_CACHE, &wt);
                if (lane == 0 && need)
                    atomicAdd(&b.direct, (unsigned long long)__popc(need));
                if (p.oneshot || p.thread_rwp) {
                    /* one thread per successor, as the flush does: the
                     * lanes' inserts proceed side by side instead of one
                     * warp-wide insert after the other (with one state per
                     * thread, a full cache sends whole rounds here) */
                    if (has && cres == CACHE_FULL) {
                        const unsigned long long gs =
                            p.oneshot ? insert_one(p, b, scr, h, e_slot, lab, tile_vec[cur ^ 1], tile_slot[cur ^ 1])
                                      : insert_one_rwp(p, b, scr, h, e_slot, lab, tile_vec[cur ^ 1],
                                                       tile_slot[cur ^ 1]);
                        loc = gs | GPU_LOC_GLOBAL;
                    }
                    need = 0;
                }
                if (need)
                    __syncwarp(); /* the lanes' scratch rows, written this round, are read below
                                     by the whole warp (a ballot does not order memory) */
                while (need) {
                    const uint32_t ld = __ffs(need) - 1;
                    need &= need - 1;
                    const unsigned long long hl = __shfl_sync(GPU_FULL, h, ld);
                    const uint32_t labl = __shfl_sync(GPU_FULL, lab, ld);
                    const unsigned long long srcl = __shfl_sync(GPU_FULL, e_slot, ld);
                    const uint32_t *vl = scratch + (size_t)((tid & ~31u) + ld) * sw;
                    const unsigned long long gs = insert_global(p, b, vl, hl, srcl, labl, tile_vec[cur ^ 1],
                                                                tile_slot[cur ^ 1]);
                    if (lane == ld)
                        loc = gs | GPU_LOC_GLOBAL;
                }
                if (PROF && lane == 0)
                    prof_lap(prof, GPU_PROF_GLOBAL, &wt);
                if (has) {
                    gpu_pair *e_ded = ded;
                    uint32_t *e_dl = dl;
                    if (FAST && borrowed) {
                        e_ded = p.dedupe_global ? (gpu_pair *)p.dedupe_g + ((size_t)blockIdx.x * T + e_grp) * p.D
                                                : (gpu_pair *)(smem + p.off_dedupe) + (size_t)e_grp * p.D;
                        e_dl = p.dedupe_global ? p.dedlist_g + ((size_t)blockIdx.x * T + e_grp) * p.D
                                               : (uint32_t *)(smem + p.off_dedlist) + (size_t)e_grp * p.D;
                    }
                    uint32_t at = 0;
                    const bool e_set = borrowed ? (fs.r & FX_LOAN_SET) != 0 : use_set;
                    const int pr = e_set ? pair_insert(e_ded, p.D, loc, lab, &at) : 2;
                    if (pr > 0) {
                        nedge++; /* a loan's too: b.trans is a sum */
                        if (pr == 1)
                            e_dl[atomicAdd(&grp_n[e_grp], 1u)] = at; /* < D: the set holds D */
                    } else if (pr < 0)
                        gpu_set_error(p, GPU_ERR_DEDUPE);
                    if (!borrowed)
                        ngen++; /* this lane's own state: a deadlock when none */
                    if (p.img.action && lab < p.img.n_labels && p.img.action[lab]) {
                        if (atomicCAS(&p.ctl->viol_act_claim, 0u, 1u) == 0u) {
                            p.ctl->viol_act_slot = e_slot;
                            p.ctl->viol_label = lab;
                            for (uint32_t q = 0; q < sw; q++)
                                p.ctl->viol_vec[q] = scr[q];
                            if (loc & GPU_LOC_GLOBAL)
                                p.ctl->viol_act_dst = loc & ~GPU_LOC_GLOBAL;
                            else
                                b.viol_row = (int)row;
                            __threadfence();
                            if (!p.stop_on_deadlock && !p.record_only)
                                atomicExch(&p.ctl->stop, 1u);
                        }
                    }
                }
                if (PROF) {
                    __syncwarp();
                    if (lane == 0)
                        prof_lap(prof, GPU_PROF_DEDUPE, &wt);
                }
            }
            if (__any_sync(GPU_FULL, ovf) && lane == 0)
                gpu_set_error(p, GPU_ERR_COMBOS);
            for (uint32_t o = 1; o < G; o <<= 1) {
                ngen += __shfl_xor_sync(GPU_FULL, ngen, o);
                nedge += __shfl_xor_sync(GPU_FULL, nedge, o);
            }
            /* (FAST: an inactive lane may have found a loan's transitions) */
            if (gl == 0 && nedge)
                atomicAdd(&b.trans, (unsigned long long)nedge);
            if (active && gl == 0) {
                atomicAdd(&b.expanded, 1ull);
                if (ngen == 0) {
                    atomicAdd(&b.dead, 1ull);
                    if (p.stop_on_deadlock)
                        record_deadlock(p, src_slot);
                }
            }
        }
        __syncthreads();
        if (PROF && tid == 0)
            prof_lap(prof, GPU_PROF_EXPAND, &pt);

        /* ---- flush the cache into the global table ---- */
        for (uint32_t base = warp * 32; base < C; base += nwarps * 32) {
            const uint32_t row = base + lane;
            const bool pub = row < C && cache[(size_t)row * sw + sw - 1] != GPU_EMPTY;
            const unsigned long long h = pub ? gpu_hash(cache + (size_t)row * sw, sw) : 0;
            if (pub) {
                /* the warp inserts these rows one after the other: fetch
                 * each row's first bucket into L2 now, so the sequential
                 * probes mostly hit L2 instead of waiting for HBM */
                const unsigned long long bk = __umul64hi(h, p.nbuckets);
                asm volatile("prefetch.global.L2 [%0];" ::"l"(p.table + bk * p.bw));
            }
            uint32_t m = __ballot_sync(GPU_FULL, pub);
            if (lane == 0 && m)
                atomicAdd(&b.cached, (unsigned long long)__popc(m));
            if (p.oneshot) {
                /* one row per thread, all at once */
                if (pub) {
                    const unsigned long long gs =
                        insert_one(p, b, cache + (size_t)row * sw, h, p.parent ? tile_slot[cur][c_par[row]] : 0,
                                   p.parent ? c_lab[row] : 0, tile_vec[cur ^ 1], tile_slot[cur ^ 1]);
                    if (p.cache_gslot)
                        c_gslot[row] = gs;
                }
                continue;
            }
            if (p.thread_rwp) {
                /* one row per thread, reserve/write/publish */
                if (pub) {
                    const unsigned long long gs =
                        insert_one_rwp(p, b, cache + (size_t)row * sw, h, p.parent ? tile_slot[cur][c_par[row]] : 0,
                                       p.parent ? c_lab[row] : 0, tile_vec[cur ^ 1], tile_slot[cur ^ 1]);
                    if (p.cache_gslot)
                        c_gslot[row] = gs;
                }
                continue;
            }
            while (m) {
                const uint32_t ld = __ffs(m) - 1;
                m &= m - 1;
                const uint32_t rl = base + ld;
                const unsigned long long hl = __shfl_sync(GPU_FULL, h, ld);
                const unsigned long long srcl = p.parent ? tile_slot[cur][c_par[rl]] : 0;
                const uint32_t labl = p.parent ? c_lab[rl] : 0;
                const unsigned long long gs = insert_global(p, b, cache + (size_t)rl * sw, hl, srcl, labl,
                                                            tile_vec[cur ^ 1], tile_slot[cur ^ 1]);
                if (lane == 0 && p.cache_gslot)
                    c_gslot[rl] = gs;
            }
        }
        __syncthreads();
        if (PROF && tid == 0)
            prof_lap(prof, GPU_PROF_FLUSH, &pt);

        /* ---- edges of the expanded states; empty the successor sets ---- */
        {
            const uint32_t G = p.G, gl = lane & (G - 1), grp = tid >> p.log2G;
            const gpu_pair *ded = p.dedupe_global
                                      ? (const gpu_pair *)p.dedupe_g + ((size_t)blockIdx.x * T + grp) * p.D
                                      : (const gpu_pair *)(smem + p.off_dedupe) + (size_t)grp * p.D;
            const uint32_t *dl = p.dedupe_global ? p.dedlist_g + ((size_t)blockIdx.x * T + grp) * p.D
                                                 : (const uint32_t *)(smem + p.off_dedlist) + (size_t)grp * p.D;
            const uint32_t cnt = grp_n[grp]; /* 0 for an idle group */
            unsigned long long pos = 0;
            if (p.want_edges) {
                /* one atomicAdd per warp: inclusive scan of the groups'
                 * counts (held by each group's first lane) */
                const uint32_t x = gl == 0 ? cnt : 0;
                const uint32_t incl = gpu_warp_inclusive_sum(x);
                const uint32_t total = __shfl_sync(GPU_FULL, incl, 31);
                unsigned long long base = 0;
                if (lane == 0 && total)
                    base = atomicAdd(&p.ctl->e_fill, (unsigned long long)total);
                base = __shfl_sync(GPU_FULL, base, 0);
                pos = base + __shfl_sync(GPU_FULL, incl - x, lane & ~(G - 1));
            }
            const unsigned long long src_slot = cnt ? tile_slot[cur][grp] : 0;
            gpu_pair *dedw = (gpu_pair *)ded;
            for (uint32_t i = gl; i < cnt; i += G) {
                const uint32_t at = dl[i];
                if (p.want_edges) {
                    const gpu_pair e = ded[at];
                    if (pos + i < p.e_cap) {
                        p.e_src[pos + i] = src_slot;
                        p.e_dst[pos + i] = (e.loc & GPU_LOC_GLOBAL) ? e.loc & ~GPU_LOC_GLOBAL : c_gslot[e.loc];
                        p.e_lab[pos + i] = (uint32_t)e.label;
                    } else {
                        gpu_set_error(p, GPU_ERR_EDGES);
                    }
                }
                dedw[at] = gpu_pair{~0ull, ~0ull};
            }
            __syncwarp();
            if (gl == 0)
                grp_n[grp] = 0;
        }
        if (tid == 0) {
            /* volatile: no other thread may load it speculatively */
            const int vr = *(volatile int *)&b.viol_row;
            if (vr >= 0) {
                p.ctl->viol_act_dst = c_gslot[vr];
                b.viol_row = -1;
            }
        }
        __syncthreads();

        cache_clear(p, cache);
        if (tid == 0) {
            b.cur_n = min(b.next_n, T);
            b.next_n = 0;
            b.iters++;
        }
        cur ^= 1;
        __syncthreads();
        if (PROF && tid == 0)
            prof_lap(prof, GPU_PROF_EDGES, &pt);
    }

    if (tid == 0 && p.end_blocks)
        atomicAdd(&p.ctl->blocks_done, 1u);

    /* Async mode, iteration budget spent: park the forwarded states. */
    if (p.saved) {
        const uint32_t ns = save ? b.cur_n : 0;
        unsigned long long *sv = p.saved + (size_t)blockIdx.x * (T + 1);
        for (uint32_t j = tid; j < ns; j += blockDim.x)
            sv[1 + j] = tile_slot[cur][tile_place(p, j)];
        if (tid == 0) {
            sv[0] = ns;
            if (ns)
                atomicAdd(&p.ctl->n_saved, (unsigned long long)ns);
        }
    }
    if (tid == 0) {
        atomicAdd(&p.ctl->n_states, b.states);
        atomicAdd(&p.ctl->n_claimed, b.claimed);
        atomicAdd(&p.ctl->n_expanded, b.expanded);
        atomicAdd(&p.ctl->n_trans, b.trans);
        atomicAdd(&p.ctl->n_dead, b.dead);
        atomicAdd(&p.ctl->direct_inserts, b.direct);
        atomicAdd(&p.ctl->cache_inserts, b.cached);
        atomicAdd(&p.ctl->scan_claims, b.scan_claims);
        atomicAdd(&p.ctl->iterations, b.iters);
        if (PROF)
            for (uint32_t k = 0; k < GPU_PROF_N; k++)
                atomicAdd(&p.ctl->prof[k], prof[k]);
    }
}

/* Inserts the all-zero initial state, claimed, into q_out[0].  One warp. */
__global__ void insert_initial(const __grid_constant__ gpu_params p)
{
    __shared__ uint32_t v[GPU_MAX_SW];
    const uint32_t lane = threadIdx.x & 31u;
    for (uint32_t q = lane; q < p.sw; q += 32)
        v[q] = 0;
    __syncwarp();
    const unsigned long long h = gpu_hash(v, p.sw);
    unsigned long long slot = 0;
    const int r = tbl_find_or_reserve(p, v, h, gpu_hash2(h), &slot);
    if (r != TBL_RESERVED) {
        if (lane == 0)
            gpu_set_error(p, GPU_ERR_TABLE_FULL);
        return;
    }
    if (lane == 0) {
        p.q_out[0] = slot;
        p.ctl->q_out_len = 1;
        p.ctl->n_states = 1;
        p.ctl->n_claimed = 1;
        p.ctl->init_slot = slot;
        if (p.parent) {
            p.parent[slot] = GPU_NO_SLOT;
            p.parent_label[slot] = 0;
        }
    }
    tbl_publish(p, slot, v, 0);
}

/* ---- growing the table (explore.cu, gx_grow) ----
 * Between launches of the asynchronous mode without a graph, the table is
 * replaced by a larger one.  Only the table and the work lists (queues,
 * saved tiles) hold slot numbers then, so no slot map is needed: the
 * pending states (claimed, not expanded) are marked new again, every
 * stored vector is copied out with its new bit (compact_table), and
 * reinsert stores them in the new table, claiming the new ones into the
 * new input queue (or leaving them new for the scanners when it is full).
 * No exploration kernel runs meanwhile, so plain atomics suffice. */

/* Marks the n states slots[0..n) new again (they were claimed). */
__global__ void mark_pending(const __grid_constant__ gpu_params p, const unsigned long long *slots,
                             unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        atomicOr(tbl_slot_ptr(p, slots[i]) + p.sw - 1, GPU_NEW_BIT);
}

/* The same for the saved tiles, one block per saved tile. */
__global__ void mark_saved(const __grid_constant__ gpu_params p)
{
    const unsigned long long *sv = p.saved + (size_t)blockIdx.x * (p.T + 1);
    const uint32_t ns = (uint32_t)sv[0];
    for (uint32_t j = threadIdx.x; j < ns; j += blockDim.x)
        atomicOr(tbl_slot_ptr(p, sv[1 + j]) + p.sw - 1, GPU_NEW_BIT);
}

/* Copies every stored vector (new bit cleared) to x[0..cap) (sw words
 * each) and its new bit to isnew[]; cnt[0] counts the vectors (all of
 * them, also past cap: the host checks), cnt[1] the new ones.  One thread
 * per bucket; a bucket's published slots are its first ones.  A warp takes
 * 32 neighbouring buckets and reserves their output with one atomicAdd
 * (one per bucket made the single counter the bottleneck: 12-20 ms for a
 * 1 GiB table, H100).  blockDim.x is a multiple of 32. */
__global__ void compact_table(const __grid_constant__ gpu_params p, uint32_t *x, uint8_t *isnew,
                              unsigned long long cap, unsigned long long *cnt)
{
    const uint32_t lane = threadIdx.x & 31u;
    for (unsigned long long b0 = blockIdx.x * (unsigned long long)blockDim.x + (threadIdx.x & ~31u);
         b0 < p.nbuckets; b0 += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long bk = b0 + lane;
        const uint32_t *base = p.table + bk * p.bw;
        uint32_t k = 0, nn = 0;
        if (bk < p.nbuckets)
            while (k < p.spb && ctl_published(base[(size_t)k * p.sw + p.sw - 1]))
                k++;
        const uint32_t incl = gpu_warp_inclusive_sum(k);
        const uint32_t total = __shfl_sync(GPU_FULL, incl, 31);
        unsigned long long at = 0;
        if (lane == 31 && total)
            at = atomicAdd(&cnt[0], (unsigned long long)total);
        at = __shfl_sync(GPU_FULL, at, 31) + (incl - k);
        for (uint32_t j = 0; j < k && at + j < cap; j++) {
            const uint32_t *v = base + (size_t)j * p.sw;
            uint32_t *d = x + (at + j) * p.sw;
            for (uint32_t q = 0; q + 1 < p.sw; q++)
                d[q] = v[q];
            const uint32_t c = v[p.sw - 1];
            d[p.sw - 1] = c & GPU_LOW31;
            isnew[at + j] = (uint8_t)(c >> 31);
            nn += c >> 31;
        }
        nn = __reduce_add_sync(GPU_FULL, nn);
        if (lane == 0 && nn)
            atomicAdd(&cnt[1], (unsigned long long)nn);
    }
}

/* A vector just stored by reinsert (published new): the new ones go to the
 * input queue q_out (claimed) while it has room (cnt[2] counts the
 * attempts), the others are claimed at once. */
__device__ __forceinline__ uint32_t reinsert_flag(const gpu_params &p, unsigned long long slot, uint8_t isnew,
                                                  unsigned long long *cnt)
{
    if (!isnew)
        return 0;
    const unsigned long long q = atomicAdd(&cnt[2], 1ull);
    if (q < p.q_cap) {
        p.q_out[q] = slot;
        return 0;
    }
    return GPU_NEW_BIT;
}

__device__ __forceinline__ bool all_zero(const uint32_t *v, uint32_t sw)
{
    uint32_t o = 0;
    for (uint32_t q = 0; q < sw; q++)
        o |= v[q];
    return o == 0;
}

/* Stores x[0..n) (distinct vectors) in the (new) table p.table. */
__global__ void reinsert(const __grid_constant__ gpu_params p, const uint32_t *x, const uint8_t *isnew,
                         unsigned long long n, unsigned long long *cnt)
{
    const uint32_t sw = p.sw;
    if (sw <= 2 || p.oneshot) {
        /* one thread per vector, installed NEW with one CAS */
        for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
             i += (unsigned long long)gridDim.x * blockDim.x) {
            const uint32_t *v = x + i * sw;
            const unsigned long long h = gpu_hash(v, sw);
            unsigned long long slot = 0;
            const int r = tbl_find_or_install_thread(p, v, h, gpu_hash2(h), &slot);
            if (r != TBL_RESERVED) {
                gpu_set_error(p, r == TBL_FULL ? GPU_ERR_TABLE_FULL : r == TBL_FOUND ? GPU_ERR_REHASH : GPU_ERR_SPIN);
                return;
            }
            if (!reinsert_flag(p, slot, isnew[i], cnt))
                atomicAnd(tbl_slot_ptr(p, slot) + sw - 1, GPU_LOW31);
            if (all_zero(v, sw))
                p.ctl->init_slot = slot;
        }
        return;
    }
    if (p.lines == 1) {
        /* one thread per vector: reserve, write, publish (as the flush;
         * a warp per vector took 13-23 ms for 10-18 M three-word vectors) */
        for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
             i += (unsigned long long)gridDim.x * blockDim.x) {
            const uint32_t *v = x + i * sw;
            const unsigned long long h = gpu_hash(v, sw);
            unsigned long long slot = 0;
            const int r = tbl_find_or_reserve_thread(p, v, h, gpu_hash2(h), &slot);
            if (r != TBL_RESERVED) {
                gpu_set_error(p, r == TBL_FULL ? GPU_ERR_TABLE_FULL : r == TBL_FOUND ? GPU_ERR_REHASH : GPU_ERR_SPIN);
                return;
            }
            const uint32_t flag = reinsert_flag(p, slot, isnew[i], cnt);
            if (all_zero(v, sw))
                p.ctl->init_slot = slot;
            tbl_publish_thread(p, slot, v, flag);
        }
        return;
    }
    /* sw > 32: one warp per vector */
    const uint32_t lane = threadIdx.x & 31u;
    const unsigned long long w0 = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) >> 5;
    const unsigned long long nw = ((unsigned long long)gridDim.x * blockDim.x) >> 5;
    for (unsigned long long i = w0; i < n; i += nw) {
        const uint32_t *v = x + i * sw;
        const unsigned long long h = gpu_hash(v, sw);
        unsigned long long slot = 0;
        const int r = tbl_find_or_reserve(p, v, h, gpu_hash2(h), &slot);
        if (r != TBL_RESERVED) {
            if (lane == 0)
                gpu_set_error(p, r == TBL_FULL ? GPU_ERR_TABLE_FULL : r == TBL_FOUND ? GPU_ERR_REHASH : GPU_ERR_SPIN);
            return;
        }
        uint32_t flag = 0;
        if (lane == 0) {
            flag = reinsert_flag(p, slot, isnew[i], cnt);
            if (all_zero(v, sw))
                p.ctl->init_slot = slot;
        }
        flag = __shfl_sync(GPU_FULL, flag, 0);
        tbl_publish(p, slot, v, flag);
    }
}

/* ---- finishing: dense ids ----
 * Slots of a bucket fill in order, so the published slots of bucket b are
 * k = 0 .. count(b)-1, and rank(slot) = prefix[b] + k numbers the states
 * densely in slot order.  The initial state must get id 0: ids are ranks
 * with ranks 0 and r0 = rank(initial) swapped. */
__global__ void count_buckets(const __grid_constant__ gpu_params p, unsigned long long *counts)
{
    for (unsigned long long bk = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; bk < p.nbuckets;
         bk += (unsigned long long)gridDim.x * blockDim.x) {
        const uint32_t *base = p.table + bk * p.bw;
        uint32_t k = 0;
        while (k < p.spb && ctl_published(base[(size_t)k * p.sw + p.sw - 1]))
            k++;
        counts[bk] = k;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        counts[p.nbuckets] = 0;
}

__device__ __forceinline__ unsigned long long id_of_rank(unsigned long long r, unsigned long long r0)
{
    return r == r0 ? 0 : (r == 0 ? r0 : r);
}

/* Copies the vectors with ids in [lo, hi) to out (words each). */
__global__ void gather_vectors(const __grid_constant__ gpu_params p, const unsigned long long *prefix,
                               unsigned long long r0, unsigned long long lo, unsigned long long hi,
                               uint32_t words, uint32_t *out)
{
    for (unsigned long long bk = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; bk < p.nbuckets;
         bk += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long r = prefix[bk], cnt = prefix[bk + 1] - r;
        for (uint32_t k = 0; k < cnt; k++) {
            const unsigned long long id = id_of_rank(r + k, r0);
            if (id < lo || id >= hi)
                continue;
            const uint32_t *v = p.table + bk * p.bw + (size_t)k * p.sw;
            for (uint32_t q = 0; q < words; q++)
                out[(id - lo) * words + q] = q == p.sw - 1 ? (v[q] & GPU_LOW31) : v[q];
        }
    }
}

/* Maps slot numbers to ids in place. */
__global__ void map_slots(const unsigned long long *prefix, uint32_t spb, unsigned long long r0,
                          unsigned long long *a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long s = a[i], bk = s / spb;
        a[i] = id_of_rank(prefix[bk] + (s - bk * spb), r0);
    }
}

#endif
