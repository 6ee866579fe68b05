/*
 * plan.cu -- the GPU explorer's plan, before any large allocation: the
 * slot layout (slot words, one-shot or reserve/write/publish inserts), the
 * generator and threads per state, threads per block and the successor
 * sets' size (gx_plan_layout); the shared-memory plan of a block and the
 * kernel variant (gx_plan_shared); the edge buffer (gx_plan_edges); the
 * table's size and whether it grows (gx_plan_table).  Defaults are in
 * util/config.h ("GPU explorer").
 *
 * Modes.  Without properties the exploration is asynchronous (GPUexplore's
 * scheme: several iterations per launch, successors forwarded into the
 * block's own next tile); ids are dense but not BFS-ordered and depth is not
 * tracked (reported 0).  With a trace, stop_on_deadlock, action_match or
 * --por (so that the reduced graph's depth is the CPU's) it is
 * level-synchronous (one BFS level per queue swap), so traces are shortest,
 * depth is exact and violations follow explore_int.h's rules: a deadlock
 * stops at once; an action violation stops at once, or, with
 * stop_on_deadlock, at the end of its level unless a deadlock of that level
 * is found (the shorter trace).
 */
#include <string.h>

#include "gx.h"

static uint32_t gx_pow2_at_least(uint64_t x)
{
    uint32_t p = 1;
    while (p < x && p < 0x80000000u)
        p <<= 1;
    return p;
}

/* Slot layout, generator, threads per block, successor-set size. */
int gx_plan_layout(struct gx *g, struct wx_error *err)
{
    int rc = WX_OK;
    const struct image *img = g->img;
    const struct explore_options *opt = g->opt;
    const struct gpu_tuning *tun = g->tun;
    struct gpu_params &p = g->p;
    struct gpu_run_stats &st = g->st;
    const struct gx_fast_host &fh = g->fh;
    const int fast_eligible = g->fast_eligible, fast_built = g->fast_built;
    const uint64_t bound0 = g->bound0;
    {
        const uint32_t n = img->n_comps, W = img->words;
        const int props = opt->trace || opt->stop_on_deadlock || opt->action_match;
        const int want_graph = opt->sink != NULL || opt->keep_device_graph;
        /* --por explores level by level, so that its depth is the CPU's */
        const int level = props || tun->level_sync == 1 || opt->por;
        const int need_ids = opt->keep_vectors || want_graph || props;
        /* Can the last data word reach the control codes?  Bound it by the
         * fields it holds (each at most its bit length of ones). */
        uint64_t maxlast = 0;
        const uint32_t lo = 32 * (W - 1);
        for (uint32_t c = 0; c < n; c++) {
            const uint32_t fb = img->first_bit[c], fe = img->first_bit[c + 1];
            if (fe <= lo || fe == fb)
                continue;
            uint64_t mx = 1;
            while (mx < img->comp_states[c])
                mx <<= 1;
            mx -= 1;
            maxlast |= fb >= lo ? mx << (fb - lo) : mx >> (lo - fb);
        }
        uint32_t SW = maxlast > 0x7ffffffdull ? W + 1 : W;
        /* One-shot inserts take slots of 4, 8 or 16 bytes: three-word
         * vectors get an all-zero fourth word as their control word, so
         * that table and cache install them with one 128-bit CAS instead of
         * reserve/write/publish */
        const int oneshot_wide = (tun->insert_protocol == 0 || tun->insert_protocol == 1) && GX_ONESHOT_WIDE &&
                                 !(opt->gpu.compact_slots && SW == 3);
        if (SW == 3 && oneshot_wide)
            SW = 4;
        p.sw = SW;
        p.lines = SW <= 32 ? 1 : (SW + 31) / 32;
        p.bw = 32 * p.lines;
        p.spb = SW <= 32 ? 32 / SW : 1;
        p.probe_bound = opt->gpu.probe_bound ? opt->gpu.probe_bound : GX_PROBE_BOUND;
        p.level_mode = level;
        p.stop_on_deadlock = opt->stop_on_deadlock;
        p.record_only = opt->finish_after_violation;
        p.want_edges = want_graph;
        p.scan_chunk = GX_SCAN_CHUNK;
        p.oneshot = (SW <= 2 && (tun->insert_protocol == 1 ||
                                  ((tun->insert_protocol == 0 || tun->insert_protocol == 3) && GX_ONESHOT))) ||
                    (SW == 4 && oneshot_wide);
        st.oneshot = (int)p.oneshot;
        p.thread_rwp = !p.oneshot && SW <= 32 && tun->insert_protocol != 3;
        p.prof = tun->profile == 1;

        uint64_t bound = bound0; /* the fast generator's tables may lower it */
        /* fewer threads per state than components (each then handles
         * several) measured faster: more states in flight per block */
        uint32_t G = gx_pow2_at_least(n ? n : 1);
        if (G > GX_MAX_GROUP)
            G = GX_MAX_GROUP;
        if (tun->group_size)
            G = tun->group_size;
        st.fast_eligible = fast_eligible;
        if (fast_built) {
            p.fast = 1;
            G = 1;
            if (fh.bound < bound)
                bound = fh.bound;
        }
        st.fast_anchored = (int)fh.anchored;
        st.fast_gen = (int)p.fast;
        p.G = G;
        p.log2G = 0;
        while ((1u << p.log2G) < G)
            p.log2G++;
        uint32_t threads = opt->gpu.threads ? opt->gpu.threads : p.fast ? GX_FAST_THREADS : (SW > 32 ? GX_WIDE_THREADS : GX_THREADS);
        /* The sets hold twice the successors of the states that use them:
         * every state when a graph is recorded (its edges come from the
         * set), else with the fast generator only those it cannot prove
         * duplicate-free (fast_state.dedup), whose bound may be far lower
         * (gx_fast_anchor; abp d=4000: its states with 4 000 successors
         * never use the set).  A state past its set fails loudly
         * (GPU_ERR_DEDUPE), never miscounts. */
        const uint64_t set_bound = p.fast && !want_graph && fh.set_bound < bound ? fh.set_bound : bound;
        uint32_t D = 16;
        while (D < 2 * set_bound && D < GX_MAX_DEDUPE)
            D *= 2;
        if (p.fast && !opt->gpu.threads) {
            /* One successor set of D entries (20 bytes each with its list)
             * per state in flight: with one state per thread, images whose
             * successor bound is large would need tens of gigabytes of
             * sets, so fewer threads per block when they would pass a
             * GX_FAST_SET_SHARE-th of the device memory (down to 64 = the
             * states in flight of the general generator's default groups
             * of 8). */
            const uint64_t sms = (uint64_t)g->prop.multiProcessorCount;
            while (threads > 64 && 2 * sms * threads * D * 20 > g->prop.totalGlobalMem / GX_FAST_SET_SHARE)
                threads /= 2;
        }
        if (threads % 32 || threads > GPU_MAX_THREADS || threads < 32) {
            rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "GPU threads per block must be a multiple of 32 in 32..%u, not %u",
                         GPU_MAX_THREADS, threads);
            goto out;
        }
        const uint32_t T = threads / G;
        p.T = T;
        p.D = D;

        g->level = level;
        g->want_graph = want_graph;
        g->need_ids = need_ids;
        g->props = props;
        g->por_proviso = opt->por && explore_por_visible(img, opt);
        g->bound = bound;
        g->threads = threads;
        g->T = T;
        g->D = D;
    }
out:
    return rc;
}


/* One state's reduction scratch in 32-bit words (por_core_scratch_words;
 * UINT64_MAX / 8 where the rules' parts overflow its arithmetic). */
static uint64_t gx_por_scratch_words(const struct image *img)
{
    uint64_t parts = 0;
    for (size_t i = 0; i < (size_t)img->n_rules * img->mask_words; i++)
        parts += (uint64_t)__builtin_popcount(img->rule_mask[i]);
    return parts < UINT32_MAX / 2
               ? por_core_scratch_words(img->n_comps, (uint32_t)parts, (img->n_rules + 63) / 64, img->words,
                                        GX_POR_BITS)
               : UINT64_MAX / 8;
}

/* --por: the reduction's scratch (one state's per thread, in global memory)
 * within gpu_options.por_scratch bytes (default 1/GX_POR_SCRATCH_SHARE of
 * device memory): a grid that would take more launches fewer blocks
 * (unless --blocks named it: its allocation then says whether it fits);
 * refused (exit 3) where one block's does not fit. */
static int gx_por_blocks(const struct gx *g, uint32_t threads, int may_shrink, uint32_t *blocks,
                         struct wx_error *err)
{
    const struct image *img = g->img;
    const uint64_t words = gx_por_scratch_words(img);
    const uint64_t per_block = (uint64_t)threads * words * 4;
    const uint64_t cap = g->opt->gpu.por_scratch ? g->opt->gpu.por_scratch
                                                 : g->prop.totalGlobalMem / GX_POR_SCRATCH_SHARE;
    if (words >= UINT64_MAX / 8 / threads || per_block > cap)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "--por on the GPU: one block's reduction scratch (%u threads, %llu bytes a state for %u "
                       "components and %u rules) is more than the %llu bytes it may take; use --backend cpu",
                       threads, (unsigned long long)words * 4, img->n_comps, img->n_rules, (unsigned long long)cap);
    if (may_shrink && (uint64_t)*blocks * per_block > cap)
        *blocks = (uint32_t)(cap / per_block);
    return WX_OK;
}

/* The block's shared memory: tiles, scratch, group buffers and successor
 * sets where they fit, the block cache with the rest; the kernel variant,
 * its occupancy and the grid. */
int gx_plan_shared(struct gx *g, struct wx_error *err)
{
    int rc = WX_OK;
    const struct image *img = g->img;
    const struct explore_options *opt = g->opt;
    const struct gpu_tuning *tun = g->tun;
    struct gpu_params &p = g->p;
    struct gpu_run_stats &st = g->st;
    const struct gx_fast_host &fh = g->fh;
    const uint32_t n = img->n_comps, SW = p.sw, threads = g->threads, T = g->T, D = g->D, G = p.G;
    const int level = g->level, want_graph = g->want_graph;
    {
        const int use_tex_req = opt->gpu.use_textures != 0; /* -1 default: textures */
        int use_tex = use_tex_req;
        {
            int lim_attr = 0;
            CUDA_CHECK(cudaDeviceGetAttribute(&lim_attr, cudaDevAttrMaxTexture1DLinearWidth, 0));
            const size_t lim = (size_t)lim_attr;
            const size_t big = (size_t)img->n_entries > img->proc_offsets[n] ? img->n_entries : img->proc_offsets[n];
            if (big + 1 > lim || (size_t)img->n_rules * img->mask_words + 1 > lim)
                use_tex = 0;
        }
        st.textures = use_tex && !p.fast;
        cudaFuncAttributes fa;
        const int occ2 = tun->occupancy2 == 1 || (tun->occupancy2 < 0 && GX_OCC2);
        st.occupancy2 = occ2;
        gx_mark(g, "layout");
        const int share = fh.share && !opt->por; /* a loaned record is outside the reduced set */
        CUDA_CHECK(cudaFuncGetAttributes(&fa, gx_kernel_ptr(use_tex, occ2, (int)p.prof, (int)p.fast, share, (int)opt->por)));
        gx_mark(g, "cudaFuncGetAttributes (module load)");
        const uint32_t bps = tun->blocks_per_sm ? tun->blocks_per_sm : 2;
        size_t budget = g->prop.sharedMemPerMultiprocessor / bps;
        budget = budget > g->prop.reservedSharedMemPerBlock ? budget - g->prop.reservedSharedMemPerBlock : 0;
        budget = budget > fa.sharedSizeBytes ? budget - fa.sharedSizeBytes : 0;
        if (budget > g->prop.sharedMemPerBlockOptin - fa.sharedSizeBytes)
            budget = g->prop.sharedMemPerBlockOptin - fa.sharedSizeBytes;
        budget &= ~(size_t)15;
        size_t off = 0;
#define SEG(field, bytes)                                                                          \
    do {                                                                                           \
        field = (uint32_t)off;                                                                     \
        off += ((size_t)(bytes) + 15) & ~(size_t)15;                                               \
    } while (0)
        SEG(p.off_tile_vec[0], (size_t)T * SW * 4);
        SEG(p.off_tile_vec[1], (size_t)T * SW * 4);
        SEG(p.off_tile_slot[0], (size_t)T * 8);
        SEG(p.off_tile_slot[1], (size_t)T * 8);
        SEG(p.off_scratch, (size_t)threads * SW * 4);
        SEG(p.off_grp_n, (size_t)T * 4);
        /* successor set: D pairs of 16 bytes and its entry list of D words */
        const size_t grp_bytes = p.fast ? 0 : (size_t)T * n * 16, ded_bytes = (size_t)T * D * 20;
        /* a cache row: the vector, its global slot where edges or an action
         * violation will look it up, its parent and label with traces.
         * Plain exploration keeps the vector alone, so more rows fit and
         * fewer successors go straight to the table.  The flush scans
         * every row, though, and for one-word vectors the extra rows cost
         * more than they save, so they keep the row count of the full
         * layout (count_bytes) */
        p.cache_gslot = want_graph || opt->action_match != NULL;
        const size_t row_bytes = (size_t)SW * 4 + (p.cache_gslot ? 8 : 0) + (opt->trace ? 8 : 0);
        const size_t count_bytes = SW == 1 ? (size_t)SW * 4 + 16 : row_bytes;
        const size_t min_cache = GX_MIN_CACHE * row_bytes + 64;
        p.dedupe_global = off + grp_bytes + ded_bytes + min_cache > budget || ded_bytes > budget / 3;
        p.grpbuf_global = off + grp_bytes + (p.dedupe_global ? 0 : ded_bytes) + min_cache > budget;
        if (!p.grpbuf_global)
            SEG(p.off_grpbuf, grp_bytes);
        if (!p.dedupe_global) {
            SEG(p.off_dedupe, (size_t)T * D * 16);
            SEG(p.off_dedlist, (size_t)T * D * 4);
        }
        if (off + min_cache > budget) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "vectors of %u words need more shared memory than a block has with %u threads: use fewer threads",
                         SW, threads);
            goto out;
        }
        uint64_t C = (budget - off - 64) / count_bytes;
        if (tun->cache_slots && tun->cache_slots < C)
            C = tun->cache_slots;
        if (C < 1)
            C = 1;
        p.C = (uint32_t)C;
        p.cache_probes = tun->cache_probes ? tun->cache_probes
                         : p.oneshot && SW == 4 ? GX_CACHE_PROBES_WIDE
                                                : GX_CACHE_PROBES;
        SEG(p.off_cache, C * SW * 4);
        SEG(p.off_cache_gslot, p.cache_gslot ? C * 8 : 0);
        SEG(p.off_cache_par, opt->trace ? C * 4 : 0);
        SEG(p.off_cache_lab, opt->trace ? C * 4 : 0);
#undef SEG
        const size_t smem = off;
        void *kern = gx_kernel_ptr(use_tex, occ2, (int)p.prof, (int)p.fast, share, (int)opt->por);
        CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        int nb = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kern, (int)threads, smem));
        if (nb <= 0) {
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                         "the exploration kernel cannot run with %u threads and %zu bytes of shared memory per block "
                         "(registers %d, static shared %zu)",
                         threads, smem, fa.numRegs, (size_t)fa.sharedSizeBytes);
            goto out;
        }
        if (tun->blocks_per_sm && (uint32_t)nb > tun->blocks_per_sm)
            nb = (int)tun->blocks_per_sm;
        uint32_t blocks = opt->gpu.blocks ? opt->gpu.blocks : (uint32_t)nb * g->prop.multiProcessorCount;
        if (opt->por) {
            if ((rc = gx_por_blocks(g, threads, !opt->gpu.blocks, &blocks, err)) != WX_OK)
                goto out;
            gx_mark(g, "--por grid: %u blocks of %u threads, %s generator", blocks, threads, p.fast ? "fast" : "general");
        }
        st.blocks = blocks;
        st.threads = threads;
        st.smem_bytes = (uint32_t)smem;
        st.cache_slots = p.C;
        st.dedupe_slots = D;
        st.group_size = G;
        st.slot_words = SW;
        st.level_sync = level;

        g->use_tex = use_tex;
        g->occ2 = occ2;
        g->smem = smem;
        g->kern = kern;
        g->blocks = blocks;
    }
out:
    return rc;
}

/* The edge buffer, allocated before the table (want_graph); *freeb is
 * then the free device memory left. */
int gx_plan_edges(struct gx *g, size_t *freeb, struct wx_error *err)
{
    int rc = WX_OK;
    const struct explore_options *opt = g->opt;
    const struct gpu_tuning *tun = g->tun;
    struct gpu_params &p = g->p;
    const uint64_t bound = g->bound;
    const uint32_t blocks = g->blocks, T = g->T, D = g->D;
    size_t totalb = 0;
    void *d;
    {
        /* One iteration of all blocks writes at most per_iter = blocks *
         * T * min(bound, D) edges (D bounds a state's distinct
         * successors, or the exploration fails with GPU_ERR_DEDUPE
         * first).  The buffer holds at least one such iteration; a
         * block starts an iteration only while e_fill <= e_guard =
         * e_cap - per_iter (the guard in explore_tile, which proves
         * that the buffer cannot overflow), and the host stages the
         * buffer before a launch when e_fill > e_guard.
         * Size: 20 bytes an edge; the default is 1/50 of the free
         * memory in entries (40 % of it), so that after the
         * exploration, with the table released, the edges and the CSR
         * sort's workspace (28 bytes an edge) fit together and a graph
         * of up to ~1.5 10^9 edges on an 80 GB device is never staged
         * through host memory. */
        const uint64_t per_state = bound < D ? (bound ? bound : 1) : D;
        const uint64_t min_cap = (uint64_t)blocks * T * per_state;
        uint64_t ec = *freeb / GX_EDGE_SHARE;
        if (opt->gpu.hash_bytes) {
            /* a table of a given size comes first: the edges get what
             * it leaves (less the slack), 20 bytes each */
            const uint64_t want = opt->gpu.hash_bytes + GX_SLACK;
            const uint64_t left = *freeb > want ? (*freeb - want) / 20 : 0;
            if (left < ec)
                ec = left;
        }
        if (ec > 0x7ffffff0ull)
            ec = 0x7ffffff0ull; /* CUB sorts count items in int */
        if (tun->edge_cap)
            ec = tun->edge_cap;
        if (ec < min_cap)
            ec = min_cap;
        p.e_cap = ec;
        if ((rc = gx_malloc(g, &d, ec * 8, "edge sources", err)))
            goto out;
        p.e_src = (unsigned long long *)d;
        if ((rc = gx_malloc(g, &d, ec * 8, "edge targets", err)))
            goto out;
        p.e_dst = (unsigned long long *)d;
        if ((rc = gx_malloc(g, &d, ec * 4, "edge labels", err)))
            goto out;
        p.e_lab = (uint32_t *)d;
        CUDA_CHECK(cudaMemGetInfo(freeb, &totalb));
    }
out:
    return rc;
}

/* The table's size (buckets at most, and to start with) and the
 * allocations sized by it; iterations per launch and the edge guard. */
int gx_plan_table(struct gx *g, size_t freeb, struct wx_error *err)
{
    int rc = WX_OK;
    const struct explore_options *opt = g->opt;
    const struct gpu_tuning *tun = g->tun;
    struct gpu_params &p = g->p;
    struct gpu_run_stats &st = g->st;
    const int level = g->level, want_graph = g->want_graph, need_ids = g->need_ids;
    const uint64_t bound = g->bound;
    const uint32_t blocks = g->blocks, T = g->T, D = g->D;
    void *d;
    {
        const uint64_t bucket_bytes = (uint64_t)p.bw * 4;
        const uint64_t per_bucket = bucket_bytes + p.spb * ((opt->trace ? 12 : 0) + (level ? 16 : 2)) +
                                    (need_ids ? 8 : 0) + (g->por_proviso ? p.spb * 9 : 0);
        uint64_t nbuckets;
        if (opt->gpu.hash_bytes) {
            nbuckets = opt->gpu.hash_bytes / bucket_bytes;
        } else {
            uint64_t avail = freeb > GX_SLACK + freeb / 20 ? freeb - GX_SLACK - freeb / 20 : freeb / 2;
            if (opt->memory_bytes && opt->memory_bytes < avail)
                avail = opt->memory_bytes;
            nbuckets = avail / per_bucket;
        }
        if (nbuckets < 1) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "GPU hash table of %llu bytes holds no bucket of %llu bytes",
                         (unsigned long long)opt->gpu.hash_bytes, (unsigned long long)bucket_bytes);
            goto out;
        }
        if (nbuckets > 0x7fffff00ull)
            nbuckets = 0x7fffff00ull; /* CUB scans count items in int */
        /* Growing table.  Allocating and clearing all free memory takes
         * longer than exploring 10^7 states.  In the
         * asynchronous mode without a graph only the table and the work
         * lists hold slot numbers, so the table can start small and be
         * replaced by one 8x larger (gx_grow: compact, rehash) whenever
         * the next launch could take it past a quarter full, up to the
         * size computed above (nb_max).  A table that would pass nb_max / 4
         * is nb_max at once: every table before the last is at most a
         * quarter of the limit, so the copied-out vectors (at most its
         * size) always fit beside it, and the last growth starts from at
         * most a quarter-full quarter, whose vectors nearly always fit in
         * the slack beside the largest table (else they wait in host
         * memory, gx_grow).  A growing table that fills within
         * one launch restarts the exploration with nb_max (exact, just
         * slower).  A fixed size (hash_bytes), traces, properties and the
         * graph use nb_max from the start. */
        const uint64_t nb_max = nbuckets;
        uint64_t nb_cur = nb_max;
        int growing = 0;

        st.table_max_bytes = nb_max * bucket_bytes;
        uint64_t grow_from = tun->grow_from;
        int default_size = 0;
        if (!grow_from)
            grow_from = opt->gpu.grow_from; /* 0: the default; UINT64_MAX: no growth */
        if (!grow_from) {
            grow_from = GX_GROW_FROM, default_size = 1;
            const uint64_t by_slots = (GX_GROW_FROM_SLOTS + p.spb - 1) / p.spb * bucket_bytes;
            if (by_slots > grow_from)
                grow_from = by_slots;
        }
        /* Level by level (--por without visible labels, the level_sync
         * tuning), the table may grow at the start of a level as between
         * asynchronous launches (gx_explore): not where a slot must keep
         * naming its state (parent links of traces and properties, the
         * proviso's queue and marks). */
        const int may_grow = !level || (GX_LEVEL_GROW && !g->props && !g->por_proviso);
        if (may_grow && !want_graph && !opt->gpu.hash_bytes && grow_from != ~0ull) {
            uint64_t nb0 = grow_from / bucket_bytes;
            /* the default at most a quarter of the limit, so that it still
             * grows where less memory is free (a MIG slice, a shared card)
             * instead of clearing all of it at once; on an 80 GB card the
             * quarter is 13-17 GB, above the default */
            if (default_size && nb0 > nb_max / 4)
                nb0 = nb_max / 4;
            if (nb0 < 1)
                nb0 = 1;
            if (nb0 <= nb_max / 4) {
                nb_cur = nb0;
                growing = 1;
            }
        }
        if ((rc = gx_malloc(g, &d, 4 * 8, "growth counters", err)))
            goto out;
        g->d_gc = (unsigned long long *)d;
        if (opt->trace) {
            if ((rc = gx_malloc(g, &d, nb_max * p.spb * 8, "parent links", err)))
                goto out;
            p.parent = (unsigned long long *)d;
            if ((rc = gx_malloc(g, &d, nb_max * p.spb * 4, "parent labels", err)))
                goto out;
            p.parent_label = (uint32_t *)d;
        }
        if (g->por_proviso) { /* level mode: the table has nb_max buckets from the start */
            if ((rc = gx_malloc(g, &d, nb_max * p.spb * 8, "partial-order reduction proviso queue", err)))
                goto out;
            g->por_q = (unsigned long long *)d;
            if ((rc = gx_malloc(g, &d, nb_max * p.spb, "partial-order reduction proviso marks", err)))
                goto out;
            g->por_fresh = (uint8_t *)d;
            CUDA_CHECK(cudaMemset(g->por_fresh, 0, nb_max * p.spb));
            CUDA_CHECK(gx_por_symbols(g->por_fresh, g->por_q));
        }

        uint32_t iters = opt->gpu.iterations ? opt->gpu.iterations : (level ? 0 : GX_ITERATIONS);
        if (want_graph) {
            const uint64_t per_iter = (uint64_t)blocks * T * (bound < D ? (bound ? bound : 1) : D);
            p.e_guard = p.e_cap - per_iter; /* e_cap >= per_iter above */
        }
        st.edge_cap = p.e_cap;
        p.iterations = iters;
        p.end_blocks = level ? 0 : (blocks * GX_END_SHARE / 4 ? blocks * GX_END_SHARE / 4 : 1);
        p.q_grab = T;
        st.iters_per_launch = iters;
        CUDA_CHECK(cudaEventCreate(&g->ev0));
        CUDA_CHECK(cudaEventCreate(&g->ev1));

        gx_mark(g, "table plan: %llu buckets now, %llu at most (%llu bytes)", (unsigned long long)nb_cur,
                (unsigned long long)nb_max, (unsigned long long)(nb_max * bucket_bytes));
        g->bucket_bytes = bucket_bytes;
        g->nb_max = nb_max;
        g->nb_cur = nb_cur;
        g->growing = growing;
    }
out:
    return rc;
}
