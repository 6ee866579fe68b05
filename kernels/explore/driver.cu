/*
 * driver.cu -- explore_gpu: GPUexplore's on-the-fly exploration rebuilt
 * for CUDA 13 / sm_90, and exact.  This file is the host driver: it checks
 * the input, opens the device, has the exploration planned (plan.cu),
 * uploads the image (memory.cu), runs launches of explore_tile (tile.cu)
 * until no work is left, growing the table between them (table.cu), and
 * turns table slots into dense ids for vectors, traces and edges (ids.cu,
 * graph.cu).  gx.h lists the steps and their files.
 *
 * Every CUDA call and every launch is checked (kernels/cuda_check.cuh):
 * out of device memory is WX_ELIMIT (exit 3), any other CUDA failure
 * WX_ESYSTEM (exit 4) with the call and CUDA's message.  A table that fills
 * up (probe bound exhausted) is WX_ELIMIT with the partial counts and
 * complete = false.
 */
#include <stdlib.h>
#include <string.h>

#include "../../explorer/successors.h"
#include "gx.h"

extern "C" int gpu_available(char *name, size_t size)
{
    if (size)
        name[0] = '\0';
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        return 0;
    }
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (prop.major < 9)
        return 0; /* built for sm_90 */
    if (size) {
        const size_t m = strnlen(prop.name, sizeof prop.name);
        const size_t k = m < size - 1 ? m : size - 1;
        memcpy(name, prop.name, k);
        name[k] = '\0';
    }
    return 1;
}

extern "C" int gpu_start(void)
{
    char none[1];
    if (!gpu_available(none, 0))
        return 0;
    if (cudaSetDevice(0) != cudaSuccess || cudaFree(NULL) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return 1;
}

/* Input errors first, so that they read the same with or without a GPU;
 * then the device and the tuning knobs. */
static int gx_check_por(const struct gx *g, struct wx_error *err);

static int gx_check_input(const struct gx *g, struct wx_error *err)
{
    const struct image *img = g->img;
    const struct gpu_tuning *tun = g->tun;
    int rc;
    if ((rc = image_check(img, err)))
        return rc;
    if (img->probabilistic) /* as explore_seq: the product is an MDP */
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "probabilistic network: its product is an MDP, "
                       "explored by the CPU MDP explorer (explorer/explore_mdp.h), not by the GPU explorer");
    int ndevices = 0;
    if (cudaGetDeviceCount(&ndevices) != cudaSuccess || ndevices <= 0) {
        (void)cudaGetLastError();
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "no CUDA device: --backend gpu is unavailable here");
    }
    gx_mark0(g, "cudaGetDeviceCount");
    if (tun->generator < 0 || tun->generator > 3)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "GPU generator must be 0 (default), 1 (fast), 2 (general) or 3 (fast, anchored rules), not %d",
                       tun->generator);
    if (tun->group_size && (tun->group_size > 32 || (tun->group_size & (tun->group_size - 1))))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "GPU group size must be a power of two <= 32, not %u",
                       tun->group_size);
    return gx_check_por(g, err);
}

/* --por: what the GPU's reduction does not do is refused here, before
 * exploring (a prio); the scratch's size limits the grid (plan.cu). */
static int gx_check_por(const struct gx *g, struct wx_error *err)
{
    if (g->opt->por && g->img->prio_n)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "--por with a prio is not supported");
    return WX_OK;
}

/* Host work that needs no device comes before the first call that waits
 * for the CUDA context: the CLI creates the context on a thread while the
 * front end runs, and where the front end is quick that wait is tens of
 * milliseconds, in which the successor bound and the fast generator's
 * tables are free.  Then the device. */
static int gx_open(struct gx *g, struct wx_error *err)
{
    int rc = WX_OK;
    const struct image *img = g->img;
    const struct gpu_tuning *tun = g->tun;
    g->bound0 = gx_successor_bound(img);
    /* the fast generator (one thread per state) unless a group size or the
     * general generator is asked for (gpu_tuning.generator, else
     * gpu_options.generator), or --por where GX_POR_FAST leaves its
     * reducing kernels out */
    g->fast_eligible = gx_fast_eligible(img);
    const int gen = tun->generator ? tun->generator : g->opt->gpu.generator;
    g->fast_built = g->fast_eligible && (!g->opt->por || GX_POR_FAST) &&
                    (gen == 1 || gen == 3 || (gen == 0 && tun->group_size <= 1)) &&
                    gx_fast_build(img, &g->fh, gen == 3) == WX_OK;
    gx_mark0(g, "successor bound, fast generator tables");
    CUDA_CHECK(cudaSetDevice(0));
    gx_mark0(g, "cudaSetDevice (waits for the context)");
    CUDA_CHECK(cudaGetDeviceProperties(&g->prop, 0));
    gx_mark0(g, "cudaGetDeviceProperties");
    if (g->prop.major < 9)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "CUDA device %s is sm_%d%d; this warpex is built for sm_90",
                       g->prop.name, g->prop.major, g->prop.minor);
    memcpy(g->res->device, g->prop.name, sizeof g->res->device - 1);
    g->res->device[sizeof g->res->device - 1] = '\0';
out:
    return rc;
}

/* The launch loop's own state. */
struct gx_loop {
    unsigned long long last_key[2]; /* claimed and expanded after the last launch */
    unsigned long long last_states;
    int stalls;                     /* launches in a row that changed nothing */
    double next_progress;           /* when to call opt->progress next */
};

/* The table (again, after a restart), the initial state, and the first
 * queue swap: the initial state becomes the input. */
static int gx_begin(struct gx *g, struct gx_loop *lp, struct wx_error *err)
{
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    struct gpu_ctl &ctl = g->ctl;
    if ((rc = gx_table(g, g->nb_cur, err)))
        return rc;
    gx_mark(g, "table allocated and cleared");
    g->st.table_slots = p.nbuckets * p.spb;
    g->st.table_bytes = p.nbuckets * g->bucket_bytes;
    memset(&ctl, 0, sizeof ctl);
    if (p.saved)
        CUDA_CHECK(cudaMemset(p.saved, 0, (size_t)g->blocks * (g->T + 1) * 8));
    p.q_out = g->q[0];
    p.q_in = g->q[1];
    CUDA_CHECK(cudaMemset(g->d_ctl, 0, sizeof ctl));
    if ((rc = gx_insert_initial(g, err)))
        return rc;
    gx_mark(g, "initial state");
    if (ctl.error) {
        g->res->store_full = true;
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "GPU hash table too small for the initial state");
    }
    lp->last_key[0] = lp->last_key[1] = ~0ull;
    lp->last_states = 0;
    lp->stalls = 0;
    lp->next_progress = gx_now() + GX_PROGRESS_SECONDS;
    g->depth = 0;
    g->por_again = 0;
    p.por_pass = 0;
    ctl.q_in_len = ctl.q_out_len;
    ctl.q_out_len = 0;
    ctl.q_in_head = 0;
    g->cur_out = 1;
    p.q_in = g->q[0];
    p.q_out = g->q[1];
    if (g->st.setup_seconds == 0)
        g->st.setup_seconds = gx_now() - g->t0;
out:
    return rc;
}

/* A growing table: before a launch, keep it at most a quarter full (the
 * next launch may add as many states as the last one).  A kernel error
 * of the growth is left in g->ctl.error. */
static int gx_grow_ahead(struct gx *g, const struct gx_loop *lp, struct wx_error *err)
{
    int rc = WX_OK;
    const struct gpu_params &p = g->p;
    const unsigned long long delta = g->ctl.n_states - lp->last_states;
    const uint64_t want = 4 * (g->ctl.n_states + 2 * delta);
    if (want <= p.nbuckets * p.spb)
        return WX_OK;
    uint64_t nb = p.nbuckets;
    while (nb < g->nb_max && want > nb * p.spb)
        nb = nb * GX_GROW_FACTOR <= g->nb_max / 4 ? nb * GX_GROW_FACTOR : g->nb_max;
    gx_mark(g, "grow to %llu buckets at %llu states: start", (unsigned long long)nb, g->ctl.n_states);
    if ((rc = gx_grow(g, nb, err)))
        return rc;
    gx_mark(g, "grow: done");
    if (!g->ctl.error)
        g->growing = g->p.nbuckets < g->nb_max;
    return WX_OK;
}

/* One launch of explore_tile: the control block set up, the kernel timed,
 * the control block read back. */
static int gx_launch(struct gx *g, struct gx_loop *lp, struct wx_error *err)
{
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    struct gpu_ctl &ctl = g->ctl;
    lp->last_states = ctl.n_states;
    ctl.scan_enabled = !g->level && ctl.n_states > ctl.n_claimed;
    ctl.scan_cursor = 0;
    ctl.n_saved = 0;
    ctl.blocks_done = 0;
    if (!g->level) {
        /* a short input queue is shared out over the blocks, not
         * taken a whole tile at a time by the first few */
        const uint64_t pending = ctl.q_in_len > ctl.q_in_head ? ctl.q_in_len - ctl.q_in_head : 0;
        const uint64_t share = (pending + g->blocks - 1) / g->blocks;
        p.q_grab = share == 0 ? 1u : share < g->T ? (uint32_t)share : g->T;
    }
    if (ctl.scan_enabled)
        g->st.scans++;
    CUDA_CHECK(cudaMemcpy(g->d_ctl, &ctl, sizeof ctl, cudaMemcpyHostToDevice));
    {
        float ms = 0;
        if ((rc = gx_timed_launch(g, g->kern, g->blocks, g->threads, &p, g->smem, "explore_tile", &ms, err)))
            return rc;
        CUDA_CHECK(cudaMemcpy(&ctl, g->d_ctl, sizeof ctl, cudaMemcpyDeviceToHost));
        gx_mark(g, "launch %llu: kernel %.3f ms, states %llu, claimed %llu, expanded %llu", g->st.launches, ms,
                ctl.n_states, ctl.n_claimed, ctl.n_expanded);
    }
out:
    return rc;
}

/* A growing table filled within one launch: the launch's expansions are
 * incomplete; the exploration starts over with the largest table (sets
 * and group buffers emptied as at the start). */
static int gx_restart(struct gx *g, struct wx_error *err)
{
    int rc = WX_OK;
    const struct gpu_params &p = g->p;
    g->nb_cur = g->nb_max;
    g->growing = 0;
    g->st.restarts++;
    if (p.dedupe_global)
        CUDA_CHECK(cudaMemset(p.dedupe_g, 0xff, (size_t)g->blocks * g->T * g->D * 16));
    if (p.grpbuf_global)
        CUDA_CHECK(cudaMemset(p.grpbuf_g, 0, (size_t)g->blocks * g->T * g->img->n_comps * 16));
out:
    return rc;
}

/* --por with visible labels, at the end of a pass over level d's states
 * (the input queue drained): the cycle proviso of explorer/por.h.  After
 * pass 0 (each state's reduced set expanded; the output queue holds
 * exactly the states first reached in level d + 1) the states of the
 * output queue are marked fresh and pass 1 goes over level d again,
 * queueing every reduced state with an enabled visible transition or
 * without a fresh reduced target; the marks are cleared, and those states
 * become the input of pass 2, which adds the records outside their reduced
 * sets: together, the full expansion the CPU explorers give them, counted
 * as they count it.  *again = 1 when pass 2 is to run; else the level is
 * complete.  A kernel error is left in g->ctl.error. */
static int gx_por_level(struct gx *g, struct gx_loop *lp, int *again, struct wx_error *err)
{
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    struct gpu_ctl &ctl = g->ctl;
    const int grid = 4 * g->prop.multiProcessorCount;
    *again = 0;
    if (p.por_pass == 2) {
        p.por_pass = 0;
        return WX_OK;
    }
    const unsigned long long outn = ctl.q_out_len < p.q_cap ? ctl.q_out_len : p.q_cap;
    if (outn)
        CUDA_CHECK_NAMED(gx_launch_por_mark(p.q_out, outn, g->por_fresh, 1, grid), "launch of por_mark");
    p.por_pass = 1;
    ctl.q_in_head = 0;
    ctl.por_q_len = 0;
    while (ctl.q_in_head < ctl.q_in_len && !ctl.error && !ctl.stop)
        if ((rc = gx_launch(g, lp, err)))
            return rc;
    if (outn)
        CUDA_CHECK_NAMED(gx_launch_por_mark(p.q_out, outn, g->por_fresh, 0, grid), "launch of por_mark");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "por_mark");
    p.por_pass = 0;
    if (ctl.error || ctl.por_q_len == 0)
        return WX_OK;
    CUDA_CHECK(cudaMemcpy((void *)p.q_in, g->por_q, ctl.por_q_len * 8, cudaMemcpyDeviceToDevice));
    ctl.q_in_len = ctl.por_q_len;
    ctl.q_in_head = 0;
    g->por_again += ctl.por_q_len;
    p.por_pass = 2;
    *again = 1;
out:
    return rc;
}

/* After a launch that found no error and no violation to stop at: stages
 * the edge buffer when it passed its guard, swaps the queues when the input
 * is drained, and decides whether work is left (*done = 1 when not).  A
 * launch that changed nothing three times in a row is a bug, not a state
 * space: reported rather than spun on. */
static int gx_next(struct gx *g, struct gx_loop *lp, int *done, struct wx_error *err)
{
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    struct gpu_ctl &ctl = g->ctl;
    const struct explore_options *opt = g->opt;
    *done = 0;
    if (g->want_graph && ctl.e_fill > p.e_guard) {
        const double ts = gx_now();
        if ((rc = gx_stage_edges(g, ctl.e_fill, err)))
            return rc;
        g->st.staged_edges += ctl.e_fill;
        g->st.stage_seconds += gx_now() - ts;
        ctl.e_fill = 0;
    }
    if (ctl.q_in_head >= ctl.q_in_len) {
        /* input drained: the output becomes the input */
        if (g->level && ctl.viol_act_claim && !p.record_only) {
            *done = 1; /* its level is complete and has no deadlock */
            return WX_OK;
        }
        if (g->level && ctl.viol_act_claim && !ctl.viol_dead_claim)
            p.stop_on_deadlock = 0; /* record_only: a deeper deadlock must not replace it */
        if (g->por_proviso) {
            int again;
            if ((rc = gx_por_level(g, lp, &again, err)))
                return rc;
            if (ctl.error) {
                *done = 1; /* gx_results reports it */
                return WX_OK;
            }
            if (again)
                return WX_OK;
        }
        const uint64_t outlen = ctl.q_out_len < p.q_cap ? ctl.q_out_len : p.q_cap;
        if (g->level && outlen)
            g->depth++;
        p.q_in = g->q[g->cur_out];
        p.q_out = g->q[g->cur_out ^ 1];
        g->cur_out ^= 1;
        ctl.q_in_len = outlen;
        ctl.q_in_head = 0;
        ctl.q_out_len = 0;
    }
    const uint64_t pending_q = ctl.q_in_head < ctl.q_in_len ? ctl.q_in_len - ctl.q_in_head : 0;
    if (pending_q == 0 && ctl.n_saved == 0 && ctl.n_states == ctl.n_claimed && ctl.q_out_len == 0) {
        *done = 1; /* no work anywhere */
        return WX_OK;
    }
    if (ctl.n_claimed == lp->last_key[0] && ctl.n_expanded == lp->last_key[1]) {
        if (++lp->stalls >= 3)
            return wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                           "GPU explorer made no progress (states %llu, claimed %llu, expanded %llu, queued %llu)",
                           ctl.n_states, ctl.n_claimed, ctl.n_expanded, (unsigned long long)pending_q);
    } else {
        lp->stalls = 0;
    }
    lp->last_key[0] = ctl.n_claimed;
    lp->last_key[1] = ctl.n_expanded;
    if (opt->progress && gx_now() >= lp->next_progress) {
        struct explore_stats ps;
        memset(&ps, 0, sizeof ps);
        ps.states = ctl.n_states;
        ps.transitions = ctl.n_trans;
        ps.bytes = g->bytes;
        ps.depth = g->depth;
        ps.seconds = gx_now() - g->t0;
        opt->progress(opt->progress_ctx, &ps);
        lp->next_progress = gx_now() + GX_PROGRESS_SECONDS;
    }
    return WX_OK;
}

/* Launches until no work is left, a violation or a kernel error (left in
 * g->ctl for gx_results). */
static int gx_explore(struct gx *g, struct wx_error *err)
{
    int rc;
    struct gx_loop lp = {};
    const struct gpu_ctl &ctl = g->ctl;
    for (;;) { /* (re)starts */
        if ((rc = gx_begin(g, &lp, err)))
            return rc;
        for (;;) {
            /* level by level only between levels: the input queue whole,
             * nothing of the next level found yet (gx_grow re-queues the
             * pending states of both queues as one) */
            if (g->growing && (!g->level || (ctl.q_in_head == 0 && ctl.q_out_len == 0))) {
                if ((rc = gx_grow_ahead(g, &lp, err)))
                    return rc;
                if (ctl.error)
                    return WX_OK;
            }
            if ((rc = gx_launch(g, &lp, err)))
                return rc;
            if (g->opt->cancel && *g->opt->cancel) { /* counts so far: gx_results */
                g->interrupted = 1;
                return WX_OK;
            }
            if (ctl.error == GPU_ERR_TABLE_FULL && g->growing)
                break;
            if (ctl.error || (!g->p.record_only && (ctl.viol_dead_claim ||
                                                   (ctl.viol_act_claim && !g->opt->stop_on_deadlock))))
                return WX_OK;
            int done;
            if ((rc = gx_next(g, &lp, &done, err)))
                return rc;
            if (done)
                return WX_OK;
        }
        if ((rc = gx_restart(g, err)))
            return rc;
    }
}

/* A kernel error code (gpu_ctl.error) as the call's error: WX_ELIMIT for
 * the limits (table, set, edge buffer, combinations), WX_ESYSTEM for the
 * internal errors. */
static int gx_kernel_error(const struct gx *g, struct wx_error *err)
{
    const struct gpu_ctl &ctl = g->ctl;
    g->res->store_full = ctl.error == GPU_ERR_TABLE_FULL;
    const struct gpu_params &p = g->p;
    const char *why = ctl.error == GPU_ERR_TABLE_FULL ? "the GPU hash table is full (probe bound exhausted)"
                      : ctl.error == GPU_ERR_DEDUPE  ? "a state has more distinct successors than the "
                                                       "per-state set holds"
                      : ctl.error == GPU_ERR_EDGES   ? "the GPU edge buffer overflowed within one launch"
                      : ctl.error == GPU_ERR_COMBOS  ? "a rule has more than 2^62 combinations in one state"
                      : ctl.error == GPU_ERR_SPIN    ? "internal error: a reserved table slot was never "
                                                       "published"
                      : ctl.error == GPU_ERR_CACHE_SPIN ? "internal error: a reserved block-cache row was "
                                                          "never published"
                      : ctl.error == GPU_ERR_REHASH  ? "internal error: growing the table met a vector "
                                                       "twice"
                      : ctl.error == GPU_ERR_POR     ? "internal error: a state's reduced set (--por) kept "
                                                       "none of its successors"
                                                     : "internal GPU queue overflow";
    return wx_fail(err,
                   ctl.error == GPU_ERR_SPIN || ctl.error == GPU_ERR_CACHE_SPIN || ctl.error == GPU_ERR_QUEUE ||
                           ctl.error == GPU_ERR_REHASH || ctl.error == GPU_ERR_POR
                       ? WX_ESYSTEM
                       : WX_ELIMIT,
                   NULL, 0, 0, "%s after %llu states and %llu transitions (table %llu bytes, %llu slots of %u words; "
                   "per-state set %u)",
                   why, ctl.n_states, ctl.n_trans, (unsigned long long)g->st.table_bytes,
                   (unsigned long long)(p.nbuckets * p.spb), p.sw, g->D);
}

/* The results: counts, the violation, then what needs dense ids (the
 * violation's id and trace, the vectors, the graph). */
static int gx_results(struct gx *g, struct wx_error *err)
{
    int rc = WX_OK;
    const struct gpu_ctl &ctl = g->ctl;
    const struct explore_options *opt = g->opt;
    struct explore_result *res = g->res;
    res->states = ctl.n_states;
    res->transitions = ctl.n_trans;
    res->deadlocks = ctl.n_dead;
    res->depth = g->level ? g->depth : 0;
    res->bytes = g->peak;
    if (ctl.error)
        return gx_kernel_error(g, err);
    if (g->interrupted) {
        res->complete = false;
        return wx_fail(err, WX_EINTERRUPT, NULL, 0, 0, "exploration interrupted");
    }
    int violation;
    uint64_t vslot;
    if ((rc = gx_verdict(ctl, g->por_again, g->p.record_only, res, &vslot, &violation, "GPU explorer", err)))
        return rc;
    uint64_t r0 = 0;
    const double tids = gx_now();
    if (g->need_ids && (rc = gx_dense_ids(g, &r0, err)))
        return rc;
    g->st.ids_seconds = gx_now() - tids;
    if (violation && (rc = gx_slot_id(g, vslot, r0, &res->violation_state, err)))
        return rc;
    if (violation && opt->trace && (rc = gx_trace(g, vslot, r0, err)))
        return rc;
    if (opt->keep_vectors && (rc = gx_vectors(g, r0, err)))
        return rc;
    if (g->want_graph) {
        const double tg = gx_now();
        if ((rc = gx_graph(g, r0, err)))
            return rc;
        g->st.graph_seconds = gx_now() - tg;
    }
    return WX_OK;
}

/* Everything up to the first launch: the plan, the image, the fixed
 * allocations, the edge buffer and the table's size. */
static int gx_setup(struct gx *g, struct wx_error *err)
{
    int rc;
    if ((rc = gx_plan_layout(g, err)))
        return rc;
    if ((rc = gx_plan_shared(g, err)))
        return rc;
    gx_mark(g, "shared memory plan, occupancy");
    if ((rc = gx_upload_image(g, err)) || (rc = gx_fixed_allocations(g, err)))
        return rc;
    size_t freeb = 0, totalb = 0;
    CUDA_CHECK(cudaMemGetInfo(&freeb, &totalb));
    gx_mark(g, "cudaMemGetInfo: free %zu", freeb);
    if (g->want_graph && (rc = gx_plan_edges(g, &freeb, err)))
        return rc;
    rc = gx_plan_table(g, freeb, err);
out:
    return rc;
}

extern "C" int explore_gpu_tuned(const struct image *img, const struct explore_options *opt_in,
                                 const struct gpu_tuning *tun_in, struct explore_result *res,
                                 struct gpu_run_stats *stats, struct wx_error *err)
{
    static const struct explore_options no_opt = {};
    static const struct gpu_tuning no_tun = {-1, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0};
    struct gx *g = (struct gx *)calloc(1, sizeof *g);
    memset(res, 0, sizeof *res);
    res->backend = "gpu";
    if (!g)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory");
    g->img = img;
    g->opt = opt_in ? opt_in : &no_opt;
    g->tun = tun_in ? tun_in : &no_tun;
    g->res = res;
    g->t0 = gx_now();
    g->timeline = g->opt->gpu.timeline;
    gx_mark0(g, "start");
    int rc = gx_check_input(g, err);
    const int tree = g->opt->store == STORE_TREE && img->words > 2;
    if (rc == WX_OK && tree)
        rc = gx_tree_check(g, err);
    if (rc == WX_OK)
        rc = gx_open(g, err);
    if (rc == WX_OK && tree) {
        rc = gx_tree_run(g, err);
    } else if (rc == WX_OK) {
        if ((rc = gx_setup(g, err)) == WX_OK)
            rc = gx_explore(g, err);
        if (rc == WX_OK) {
            gx_mark(g, "launches done");
            rc = gx_results(g, err);
        }
    }
    gx_finish_stats(g, stats);
    if (rc) {
        dgraph_free(&res->device_graph);
        res->complete = false;
        if (!res->states) {
            res->states = g->ctl.n_states;
            res->transitions = g->ctl.n_trans;
            res->deadlocks = g->ctl.n_dead;
        }
    }
    gx_mark(g, "results");
    if (g->ev0)
        cudaEventDestroy(g->ev0);
    if (g->ev1)
        cudaEventDestroy(g->ev1);
    gx_free(g);
    gx_mark(g, "device memory freed");
    gx_fast_free(&g->fh);
    res->seconds = gx_now() - g->t0;
    gx_mark0(g, "end");
    free(g);
    return rc;
}

extern "C" int explore_gpu(const struct image *img, const struct explore_options *opt, struct explore_result *res,
                           struct wx_error *err)
{
    return explore_gpu_tuned(img, opt, NULL, res, NULL, err);
}
