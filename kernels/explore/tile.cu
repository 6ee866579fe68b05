/*
 * tile.cu -- the exploration kernel explore_tile (one launch = several
 * iterations of fill / expand / flush / edges per block) and the
 * initial-state insert; the host picks the kernel variant (gx_kernel_ptr).
 *
 * One iteration of a block (explore_tile):
 *   fill    (tile_fill) the tile (T = threads / G states) keeps the states
 *           forwarded by the previous iteration; free places are taken from
 *           the input queue (q_in, written by the previous launch), then,
 *           when the host enabled it, by scanning the table for states
 *           still marked new (claim = atomic clear of the new bit);
 *   expand  (tile_expand) each vector group (FAST: each thread) expands one
 *           tile state (gpu_expand.cuh); successors go to the block cache,
 *           or straight to the global table when the cache is full (one
 *           thread per successor where the flush also inserts one row per
 *           thread, else one warp-wide insert after the other);
 *   flush   (tile_flush) the cache rows go into the global table: one row
 *           per thread with one-CAS inserts (slots of 1, 2 or 4 words), else
 *           one row per thread (slots of <= 32 words) or one row at a time
 *           per warp with reserve/write/publish (gpu_table.cuh); a vector
 *           that turns out to be new is, while its slot is still reserved,
 *           given a place: the block's next tile (async mode: forwarding),
 *           else the output queue, else (async, queue full) it is published
 *           new and left for a scanner.  Whoever places it publishes it old:
 *           it is claimed, and will be expanded exactly once;
 *   edges   (tile_edges) with an edge sink each group writes its state's
 *           distinct edges, from its successor set's entry list
 *           (gpu_expand.cuh), at consecutive positions reserved by one
 *           atomicAdd per warp (so a group's lanes write neighbouring
 *           entries); then every group empties the set entries it used.
 * Level mode (traces, properties): no forwarding, every new state goes to
 * q_out, and a launch only drains q_in, so the states of one launch
 * sequence between two queue swaps are exactly one BFS level, and the
 * first inserter of a state (a parent of the previous level) records the
 * BFS-tree edge used for shortest traces.
 * Determinism: counts, deadlocks and edges (up to renumbering) are
 * deterministic; slots, ids and the order of edges vary from run to run.
 *
 * The steps are __forceinline__ functions called from the one loop of
 * explore_tile, and the kernel must compile to the same code as the
 * undivided kernel did: `nvcc -Xptxas -v` must report the same registers,
 * spills and shared memory for every variant (the OCC2 variants run at the
 * 64-register limit with spills, and their spill counts react to any change
 * of the code's shape).  So the steps take the kernel's values (tid, lane,
 * sw, ...) as parameters instead of recomputing them, and the parts whose
 * extraction changed the report stay in the kernel: the block's start and
 * the body of the expansion loop (class selection of the general generator,
 * the successor set, the action check).  All the explorer's kernels are one
 * translation unit (table_kernels.cuh).
 */
#include "gx.h"
#include "tile_parts.cuh"

/* --por proviso (gpu_params.por_pass): one byte per table slot, 1 while
 * its state was first reached in the current level's pass 0; the states
 * that pass 1 queues for pass 2.  Set by gx_por_symbols, not parameters:
 * gpu_params keeps its size. */
static __device__ const uint8_t *gx_por_fresh;
static __device__ unsigned long long *gx_por_q;

/* The per-state successor set and its entry list of tile place grp:
 * global (p.dedupe_global) or in shared memory. */
__device__ __forceinline__ gpu_pair *tile_set(const gpu_params &p, unsigned char *smem, uint32_t grp)
{
    return p.dedupe_global ? (gpu_pair *)p.dedupe_g + ((size_t)blockIdx.x * p.T + grp) * p.D
                           : (gpu_pair *)(smem + p.off_dedupe) + (size_t)grp * p.D;
}

__device__ __forceinline__ uint32_t *tile_set_list(const gpu_params &p, unsigned char *smem, uint32_t grp)
{
    return p.dedupe_global ? p.dedlist_g + ((size_t)blockIdx.x * p.T + grp) * p.D
                           : (uint32_t *)(smem + p.off_dedlist) + (size_t)grp * p.D;
}

/* Thread 0, at an iteration's start: whether to stop (b.stop), whether the
 * edge buffer is too full to start one (b.edges_full), whether enough
 * blocks have left to end this one (b.ended). */
__device__ __forceinline__ void tile_gate(const gpu_params &p, blk &b, uint32_t it)
{
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
     * to all blocks instead of waiting for one block's whole
     * iteration budget while the others idle.
     * Monotone counter, read as it is: a stale value only ends
     * the block one iteration later. */
    b.ended = p.end_blocks && it > 0 && *(volatile unsigned int *)&p.ctl->blocks_done >= p.end_blocks;
}

/* Fill: the tile's free places from the input queue, then (when enabled)
 * by scanning the table.  Returns the tile's state count. */
template <bool PROF>
__device__ __forceinline__ uint32_t tile_fill(const gpu_params &p, blk &b, uint32_t *const *tile_vec,
                                              unsigned long long *const *tile_slot, int cur,
                                              unsigned long long *prof, unsigned long long &pt)
{
    const uint32_t tid = threadIdx.x, sw = p.sw, T = p.T;
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
         * would keep the lanes past sw idle) */
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
    return b.cur_n;
}

/* After a group's expansion: its transitions and, for an expanded state
 * without successors, a deadlock. */
__device__ __forceinline__ void expand_count(const gpu_params &p, blk &b, uint32_t G, uint32_t gl, bool active,
                                             unsigned long long src_slot, uint32_t ngen, uint32_t nedge)
{
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

/* Async mode: takes back the states forwarded at the end of the last
 * launch (claimed, not yet expanded) into tile 0.  (The kernel's values
 * are passed in, not recomputed: the kernel then compiles as before the
 * split, see the top of this file.) */
__device__ __forceinline__ void tile_resume(const gpu_params &p, blk &b, uint32_t *tile_vec,
                                             unsigned long long *tile_slot, uint32_t tid, uint32_t lane,
                                             uint32_t warp, uint32_t nwarps, uint32_t sw, uint32_t T)
{
    unsigned long long *sv = p.saved + (size_t)blockIdx.x * (T + 1);
    const uint32_t ns = (uint32_t)sv[0];
    for (uint32_t j = warp; j < ns; j += nwarps) {
        const unsigned long long slot = sv[1 + j];
        if (lane == 0)
            tile_slot[tile_place(p, j)] = slot;
        tbl_read(p, slot, tile_vec + (size_t)tile_place(p, j) * sw);
    }
    __syncthreads();
    if (tid == 0) {
        b.cur_n = ns;
        sv[0] = 0;
    }
    __syncthreads();
}

/* Locates a successor (has: this thread holds one in scr): the block cache,
 * else (cache full) the global table, one thread per successor with the
 * per-thread inserts, else one warp-wide insert after the other.  *loc: its
 * location (a cache row, or a table slot | GPU_LOC_GLOBAL); *row: the cache
 * row tried. */
template <bool PROF>
__device__ __forceinline__ void succ_locate(const gpu_params &p, blk &b, bool has, uint32_t *scr, uint32_t lab,
                                             uint32_t e_grp, unsigned long long e_slot, uint32_t *cache,
                                             uint32_t *scratch, uint32_t *c_par, uint32_t *c_lab,
                                             uint32_t *const *tile_vec, unsigned long long *const *tile_slot, int cur,
                                             unsigned long long *prof, unsigned long long &wt, uint32_t tid,
                                             uint32_t lane, uint32_t sw, uint32_t C, unsigned long long &loc,
                                             uint32_t &row)
{
    unsigned long long h = 0;
    int cres = CACHE_FULL;
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
        if (has && cres == CACHE_FULL) {
            const unsigned long long gs =
                p.oneshot ? insert_one(p, b, scr, h, e_slot, lab, tile_vec[cur ^ 1], tile_slot[cur ^ 1])
                          : insert_one_rwp(p, b, scr, h, e_slot, lab, tile_vec[cur ^ 1], tile_slot[cur ^ 1]);
            loc = gs | GPU_LOC_GLOBAL;
        }
        need = 0;
    }
    if (need)
        __syncwarp();
    while (need) {
        const uint32_t ld = __ffs(need) - 1;
        need &= need - 1;
        const unsigned long long hl = __shfl_sync(GPU_FULL, h, ld);
        const uint32_t labl = __shfl_sync(GPU_FULL, lab, ld);
        const unsigned long long srcl = __shfl_sync(GPU_FULL, e_slot, ld);
        const uint32_t *vl = scratch + (size_t)((tid & ~31u) + ld) * sw;
        const unsigned long long gs = insert_global(p, b, vl, hl, srcl, labl, tile_vec[cur ^ 1], tile_slot[cur ^ 1]);
        if (lane == ld)
            loc = gs | GPU_LOC_GLOBAL;
    }
}

/* Flush: every cache row into the global table (see the file's top). */
__device__ __forceinline__ void tile_flush(const gpu_params &p, blk &b, uint32_t *const *tile_vec,
                                           unsigned long long *const *tile_slot, int cur, uint32_t *cache,
                                           unsigned long long *c_gslot, uint32_t *c_par, uint32_t *c_lab)
{
    const uint32_t tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5, nwarps = blockDim.x >> 5;
    const uint32_t sw = p.sw, C = p.C;
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
}

/* Edges of the expanded states (with an edge sink), and every group
 * empties the successor-set entries it used; then the target of an action
 * violation found in the cache gets its table slot. */
__device__ __forceinline__ void tile_edges(const gpu_params &p, blk &b, unsigned char *smem,
                                           unsigned long long *const *tile_slot, int cur,
                                           unsigned long long *c_gslot, uint32_t *grp_n)
{
    const uint32_t tid = threadIdx.x, lane = tid & 31u;
    const uint32_t G = p.G, gl = lane & (G - 1), grp = tid >> p.log2G;
    const gpu_pair *ded = tile_set(p, smem, grp);
    const uint32_t *dl = tile_set_list(p, smem, grp);
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
    if (tid == 0) {
        /* volatile: no other thread may load it speculatively */
        const int vr = *(volatile int *)&b.viol_row;
        if (vr >= 0) {
            p.ctl->viol_act_dst = c_gslot[vr];
            b.viol_row = -1;
        }
    }
}

/* Block end: the forwarded states parked when the iteration budget is spent
 * (async mode), and the block's counters added to the control block. */
template <bool PROF>
__device__ __forceinline__ void tile_finish(const gpu_params &p, blk &b, bool save,
                                            unsigned long long *const *tile_slot, int cur,
                                            unsigned long long *prof)
{
    const uint32_t tid = threadIdx.x, T = p.T;
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

/* The first transition labelled with a --action label, claimed by one
 * thread in the whole grid: its source slot, label and target (a global
 * slot, or the row of the block's cache that flush resolves); stops the
 * exploration unless deadlocks are searched too or everything is recorded. */
__device__ __forceinline__ void record_action(const gpu_params &p, blk &b, unsigned long long e_slot, uint32_t lab,
                                              const uint32_t *scr, uint32_t sw, unsigned long long loc, uint32_t row)
{
    if (atomicCAS(&p.ctl->viol_act_claim, 0u, 1u) != 0u)
        return;
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


/* A launch's start, every thread of the block: the block's counters zero,
 * the block cache and the successor-set counts emptied; shared successor
 * sets start as garbage and are cleared, global ones were left empty by the
 * previous launch (or the allocation's memset). */
template <bool PROF>
__device__ __forceinline__ void tile_start(const gpu_params &p, blk &b, unsigned long long *prof, uint32_t *cache,
                                           uint32_t *grp_n, unsigned char *smem, uint32_t tid)
{
    if (tid == 0) {
        b.cur_n = b.next_n = b.pos = b.stop = b.qgot = b.edges_full = b.ended = 0;
        b.viol_row = -1;
        b.qh = 0;
        b.states = b.claimed = b.expanded = b.trans = b.dead = b.direct = b.cached = b.scan_claims = b.iters = 0;
    }
    if (PROF && tid < GPU_PROF_N)
        prof[tid] = 0;
    cache_clear(p, cache);
    for (uint32_t i = tid; i < p.T; i += blockDim.x)
        grp_n[i] = 0;
    if (!p.dedupe_global) {
        gpu_pair *all = (gpu_pair *)(smem + p.off_dedupe);
        for (uint32_t i = tid; i < p.T * p.D; i += blockDim.x)
            all[i] = gpu_pair{~0ull, ~0ull};
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
 * kernel keeps the registers that costs.  POR (general generator, p.por_on):
 * each state's records outside its stubborn set are dropped (por_begin),
 * or, with visible labels, the passes of the cycle proviso (p.por_pass,
 * gpu_int.cuh); the kernels without it are the ones --por never runs. */
template <bool TEX, bool OCC2, bool PROF, bool FAST, bool SHARE = false, bool POR = false>
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

    uint32_t *grp_n = (uint32_t *)(smem + p.off_grp_n);
    tile_start<PROF>(p, b, prof, cache, grp_n, smem, tid);
    __syncthreads();

    if (p.saved)
        tile_resume(p, b, tile_vec[0], tile_slot[0], tid, lane, warp, nwarps, sw, T);

    bool save = false;
    unsigned long long pt = 0; /* PROF: thread 0's phase clock */
    if (PROF && tid == 0)
        pt = clock64();
    for (uint32_t it = 0;; it++) {
        if (tid == 0)
            tile_gate(p, b, it);
        __syncthreads();
        if (b.stop)
            break;
        if ((p.iterations && it == p.iterations) || b.edges_full || b.ended) {
            save = true;
            break;
        }

        const uint32_t tile_n = tile_fill<PROF>(p, b, tile_vec, tile_slot, cur, prof, pt);
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
            gpu_pair *ded = tile_set(p, smem, grp);
            uint32_t *dl = tile_set_list(p, smem, grp);

            gen_state st;
            fast_state fs;
            if (FAST) {
                fx_begin(p.fx, fs, n, p.img.words, src, active);
            } else {
                gen_begin(st, active, gl);
            }
            /* FAST: a state with distinct records by construction counts
             * them without the successor set unless edges are recorded */
            const bool use_set = !FAST || fs.dedup || p.want_edges;
            uint32_t ngen = 0, nedge = 0;
            bool ovf = false;
            unsigned long long wt = 0; /* PROF: lane 0's clock */
            if (PROF && lane == 0)
                wt = clock64();

            /* A priority (general generator only) takes two passes over the
             * state's transitions: the first marks the labels that leave it,
             * the second drops those below a marked label or cut. */
            const bool prio = !FAST && p.img.prio_n;
            unsigned long long prio_on = 0;
            /* --por: the records outside the state's reduced set are
             * dropped as they are generated (por_begin) */
            const uint32_t *por_mask = POR ? por_begin(p, grp, gl, active, src) : nullptr;
            /* --por proviso pass 1 (p.por_pass): a reduced target first
             * reached in this level, an enabled visible transition */
            bool por_fresh = false, por_vis = false;
            for (uint32_t pass = prio ? 0u : 1u; pass < 2; pass++) {
            if (prio && pass == 1)
                prio_restart(st, prio_on, G, active, gl);
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
                    has = gen_next<TEX>(p.img, st, G, gl, gmask, src, scr, sw, gb, &lab, &ovf);
                }
                if (prio && prio_step(p.img, pass, prio_on, has, lab))
                    continue;
                if (POR && p.por_pass == 1) {
                    if (has && por_mask && p.img.action && lab < p.img.n_labels && p.img.action[lab])
                        por_vis = true;
                    if (!por_mask || por_fresh)
                        has = false; /* nothing left to learn */
                }
                /* pass 2 expands the records that passes 0 and 1 drop */
                if (POR && por_mask && has && por_core_keep(por_mask, p.img.words, src, scr) == (p.por_pass == 2))
                    has = false;
                if (POR && p.por_pass == 1) {
                    por_fresh |= por_probe(p, gx_por_fresh, has, scr, scratch, tid, lane, sw);
                    continue;
                }
                if (PROF && lane == 0)
                    prof_lap(prof, GPU_PROF_GEN, &wt);
                /* the state this record belongs to (a loan's: the lender's) */
                const uint32_t e_grp = borrowed ? (tid & ~31u) + (fs.r & 31u) : grp;
                const unsigned long long e_slot = borrowed ? tile_slot[cur][e_grp] : src_slot;

                unsigned long long loc = 0;
                uint32_t row = 0;
                succ_locate<PROF>(p, b, has, scr, lab, e_grp, e_slot, cache, scratch, c_par, c_lab, tile_vec,
                                  tile_slot, cur, prof, wt, tid, lane, sw, C, loc, row);
                if (PROF && lane == 0)
                    prof_lap(prof, GPU_PROF_GLOBAL, &wt);
                if (has) {
                    gpu_pair *e_ded = FAST && borrowed ? tile_set(p, smem, e_grp) : ded;
                    uint32_t *e_dl = FAST && borrowed ? tile_set_list(p, smem, e_grp) : dl;
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
                    if (p.img.action && lab < p.img.n_labels && p.img.action[lab])
                        record_action(p, b, e_slot, lab, scr, sw, loc, row);
                }
                if (PROF) {
                    __syncwarp();
                    if (lane == 0)
                        prof_lap(prof, GPU_PROF_DEDUPE, &wt);
                }
            }
            }
            if (__any_sync(GPU_FULL, ovf) && lane == 0)
                gpu_set_error(p, GPU_ERR_COMBOS);
            if (POR && p.por_pass == 1) {
                por_check_end(p, gx_por_q, G, gl, por_mask, src_slot, por_fresh, por_vis);
            } else {
                if (POR && p.por_pass == 0)
                    por_end(p, G, gl, por_mask, ngen);
                /* pass 2: the state has successors (pass 0 kept some) */
                expand_count(p, b, G, gl, active, src_slot, POR && p.por_pass == 2 ? ngen + 1 : ngen, nedge);
            }
        }
        __syncthreads();
        if (PROF && tid == 0)
            prof_lap(prof, GPU_PROF_EXPAND, &pt);

        tile_flush(p, b, tile_vec, tile_slot, cur, cache, c_gslot, c_par, c_lab);
        __syncthreads();
        if (PROF && tid == 0)
            prof_lap(prof, GPU_PROF_FLUSH, &pt);

        tile_edges(p, b, smem, tile_slot, cur, c_gslot, grp_n);
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

    tile_finish<PROF>(p, b, save, tile_slot, cur, prof);

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

/* The growth and finishing kernels, in this translation unit (see
 * table_kernels.cuh). */
#include "table_kernels.cuh"
#include "ids_kernels.cuh"

/* Runs insert_initial (the table and the control block cleared); a full
 * table is left in g->ctl.error. */
int gx_insert_initial(struct gx *g, struct wx_error *err)
{
    int rc = WX_OK;
    insert_initial<<<1, 32>>>(g->p);
    CUDA_CHECK_LAUNCH("insert_initial");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "insert_initial");
    CUDA_CHECK(cudaMemcpy(&g->ctl, g->d_ctl, sizeof g->ctl, cudaMemcpyDeviceToHost));
out:
    return rc;
}

/* --por proviso: fresh[q[i]] = v for the n slots of q. */
__global__ void por_mark(const unsigned long long *q, unsigned long long n, uint8_t *fresh, uint8_t v)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        fresh[q[i]] = v;
}

cudaError_t gx_launch_por_mark(const unsigned long long *q, unsigned long long n, uint8_t *fresh, uint8_t v, int grid)
{
    por_mark<<<grid, 256>>>(q, n, fresh, v);
    return cudaGetLastError();
}

cudaError_t gx_por_symbols(uint8_t *fresh, unsigned long long *q)
{
    cudaError_t e = cudaMemcpyToSymbol(gx_por_fresh, &fresh, sizeof fresh);
    return e != cudaSuccess ? e : cudaMemcpyToSymbol(gx_por_q, &q, sizeof q);
}

/* The explore_tile variant for the plan.  The fast generator reads its own
 * tables with plain loads: no texture variant; lane sharing only where
 * some run of local moves is long (its registers cost the other images a
 * few per cent) and never with --por (a loaned record is another state's,
 * outside this state's reduced set); the reducing variants with --por (on
 * the fast generator only where util/config.h's GX_POR_FAST compiles
 * them). */
void *gx_kernel_ptr(int tex, int occ2, int prof, int fast, int share, int por)
{
#if GX_POR_FAST
    if (por && fast) {
        if (prof)
            return occ2 ? (void *)explore_tile<false, true, true, true, false, true>
                        : (void *)explore_tile<false, false, true, true, false, true>;
        return occ2 ? (void *)explore_tile<false, true, false, true, false, true>
                    : (void *)explore_tile<false, false, false, true, false, true>;
    }
#endif
    if (por) {
        if (prof)
            return tex ? (occ2 ? (void *)explore_tile<true, true, true, false, false, true>
                               : (void *)explore_tile<true, false, true, false, false, true>)
                       : (occ2 ? (void *)explore_tile<false, true, true, false, false, true>
                               : (void *)explore_tile<false, false, true, false, false, true>);
        return tex ? (occ2 ? (void *)explore_tile<true, true, false, false, false, true>
                           : (void *)explore_tile<true, false, false, false, false, true>)
                   : (occ2 ? (void *)explore_tile<false, true, false, false, false, true>
                           : (void *)explore_tile<false, false, false, false, false, true>);
    }
    if (fast && share) {
        if (prof)
            return occ2 ? (void *)explore_tile<false, true, true, true, true>
                        : (void *)explore_tile<false, false, true, true, true>;
        return occ2 ? (void *)explore_tile<false, true, false, true, true>
                    : (void *)explore_tile<false, false, false, true, true>;
    }
    if (fast) {
        if (prof)
            return occ2 ? (void *)explore_tile<false, true, true, true> : (void *)explore_tile<false, false, true, true>;
        return occ2 ? (void *)explore_tile<false, true, false, true> : (void *)explore_tile<false, false, false, true>;
    }
    if (prof) {
        if (tex)
            return occ2 ? (void *)explore_tile<true, true, true, false> : (void *)explore_tile<true, false, true, false>;
        return occ2 ? (void *)explore_tile<false, true, true, false> : (void *)explore_tile<false, false, true, false>;
    }
    if (tex)
        return occ2 ? (void *)explore_tile<true, true, false, false> : (void *)explore_tile<true, false, false, false>;
    return occ2 ? (void *)explore_tile<false, true, false, false> : (void *)explore_tile<false, false, false, false>;
}
