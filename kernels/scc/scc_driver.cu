/*
 * scc_driver.cu -- the GPU SCC decomposition's pipeline and public entry points
 * (kernels/scc_gpu.h, analysis/scc.h; where each step lives:
 * kernels/scc/scc_int.cuh).
 */
#include "scc_int.cuh"

/* The work space's fields, and the arrays every path needs: reg, col and
 * reach (the relabelling and the counts use them) and the counters. */
static int work_init(struct scc_work *w, const struct dgraph *dg, uint32_t *d_comp,
                     const struct scc_gpu_tuning *tu, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = dg->n_vertices;
    int dev = 0, sms = 0, smem_max = 0;
    w->n = (uint32_t)n64;
    w->off = dg->d_offsets;
    w->tgt = dg->d_targets;
    w->rep = d_comp;
    w->level = 1;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    w->grid_levels = (unsigned)(sms > 0 ? sms : 1) * LEVEL_BLOCKS_PER_SM;
    w->sms = sms > 0 ? sms : 1;
    w->all_live = 1;
    w->chain_hops = tu->chain_hops;
    w->pivot_local = tu->pivot_local;
    w->pivot_wide = tu->pivot_wide;
    w->trim_detect = tu->trim_detect < TRIM_DETECT_MAX ? tu->trim_detect : TRIM_DETECT_MAX;
    /* the detection's sets take TRIM_DETECT_SMEM bytes of shared memory per
     * block (H100 / H200: 227 KB allowed); without them, no detection (the
     * same result, slower on DAG-like graphs) */
    CUDA_CHECK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if ((unsigned)smem_max < TRIM_DETECT_SMEM)
        w->trim_detect = 0;
    w->coop_blocks_per_sm = tu->coop_blocks_per_sm;
    if (tu->persistent) {
        int coop = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
        w->coop = coop != 0; /* else the per-level engine */
    }
    CUDA_CHECK(cudaMalloc((void **)&w->reg, n64 * sizeof *w->reg));
    CUDA_CHECK(cudaMalloc((void **)&w->col, n64 * sizeof *w->col));
    CUDA_CHECK(cudaMalloc((void **)&w->reach, n64 * sizeof *w->reach));
    CUDA_CHECK(cudaMalloc((void **)&w->cnt, CNT_N * sizeof *w->cnt));
    CUDA_CHECK(cudaMemset(w->cnt, 0, CNT_N * sizeof *w->cnt));
    w->m = dg->n_edges;
out:
    return rc;
}

static void work_free(struct scc_work *w)
{
    cudaFree(w->roff_own);
    cudaFree(w->rsrc_own);
    cudaFree(w->reg);
    cudaFree(w->col);
    cudaFree(w->reach);
    cudaFree(w->stamp_a);
    cudaFree(w->stamp_b);
    cudaFree(w->qa0);
    cudaFree(w->qa1);
    cudaFree(w->qb0);
    cudaFree(w->qb1);
    cudaFree(w->cnt);
    cudaFree(w->fb_best);
    cudaFree(w->fb_mark);
    cudaFree(w->fb_pos);
    cudaFree(w->fb_temp);
}

/* The searches' work space (stamps and queues; the connected components
 * need none), the transpose, and every vertex live in region 0. */
static int search_setup(struct scc_work *w, const struct dgraph *dg, uint32_t *d_comp,
                        const struct scc_gpu_tuning *tu, struct scc_gpu_stats *st,
                        struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = dg->n_vertices;
    CUDA_CHECK(cudaMalloc((void **)&w->stamp_a, n64 * sizeof *w->stamp_a));
    CUDA_CHECK(cudaMalloc((void **)&w->stamp_b, n64 * sizeof *w->stamp_b));
    CUDA_CHECK(cudaMalloc((void **)&w->qa0, n64 * sizeof *w->qa0));
    CUDA_CHECK(cudaMalloc((void **)&w->qa1, n64 * sizeof *w->qa1));
    CUDA_CHECK(cudaMalloc((void **)&w->qb0, n64 * sizeof *w->qb0));
    CUDA_CHECK(cudaMalloc((void **)&w->qb1, n64 * sizeof *w->qb1));
    rc = scc_transpose(w, dg, tu, st, err);
    if (rc != WX_OK)
        goto out;
    CUDA_CHECK(cudaMemset(d_comp, 0xff, n64 * sizeof *d_comp));
    CUDA_CHECK(cudaMemset(w->reg, 0, n64 * sizeof *w->reg));
    CUDA_CHECK(cudaMemset(w->stamp_a, 0, n64 * sizeof *w->stamp_a));
    CUDA_CHECK(cudaMemset(w->stamp_b, 0, n64 * sizeof *w->stamp_b));
    CUDA_CHECK(cudaDeviceSynchronize());
out:
    return rc;
}

/* The rounds after the pivot search. */
struct rounds {
    int dir;         /* the next colour round's direction */
    uint32_t nreg;   /* regions are dense below nreg (until a colour round) */
    uint32_t fb_max; /* multi-source rounds at most */
};

/* One round: a trim, then a multi-source round or a colour round (*live
 * decreases; the caller stops at live 0 or w->aborted). */
static int one_round(struct scc_work *w, struct rounds *ro, uint64_t *live,
                     struct scc_gpu_stats *st, const struct scc_gpu_tuning *tu,
                     struct wx_error *err)
{
    const uint32_t levels0 = w->levels, r = st->rounds + st->fb_rounds;
    if (r < SCC_GPU_ROUND_INFO)
        st->round_live[r] = *live;
    scc_arm_budget(w, *live, tu);
    const double ta = scc_now_ms();
    int rc = scc_trim_phase(w, live, st, tu, err);
    if (rc != WX_OK)
        return rc;
    const double tb = scc_now_ms();
    st->trim_ms += tb - ta;
    if (*live == 0 || w->aborted)
        return WX_OK;
    /* multi-source rounds first: after a colour round the regions are
     * colours, no longer dense */
    const int fb =
        st->rounds == 0 && st->fb_rounds < ro->fb_max && 3ull * ro->nreg + 3 <= UINT32_MAX;
    rc = fb ? scc_fb_round(w, &ro->nreg, live, st, err) : scc_colour_round(w, ro->dir, live, err);
    if (rc != WX_OK)
        return rc;
    const double tc = scc_now_ms();
    if (fb) {
        st->fb_ms += tc - ta;
    } else {
        st->rounds++;
        st->colour_ms += tc - tb;
        if (tu->colour_dir < 2)
            ro->dir = !ro->dir;
    }
    if (r < SCC_GPU_ROUND_INFO) {
        st->round_levels[r] = w->levels - levels0;
        st->round_ms[r] = tc - ta;
    }
    return WX_OK;
}

/* Steps 2-4: trim, one pivot search, multi-source rounds, then trim and
 * colour rounds; the CPU takes the residue when forced or when the GPU
 * phases outlast the budget (w->aborted). */
static int decompose(struct scc_work *w, const struct scc_gpu_tuning *tu, struct scc_gpu_stats *st,
                     struct wx_error *err)
{
    uint64_t live = w->n;
    double ta = scc_now_ms();
    int rc = scc_trim_phase(w, &live, st, tu, err);
    if (rc != WX_OK)
        return rc;
    w->all_live = 0;
    double tb = scc_now_ms();
    st->trim_ms += tb - ta;
    if (live > 0 && tu->residue == 2) {
        st->residue_reason = 2;
        if ((rc = scc_cpu_residue(w, &live, st, err)) != WX_OK)
            return rc;
    }
    scc_arm_budget(w, live, tu);
    if (live > 0 && tu->pivot && (rc = scc_pivot_phase(w, &live, st, err)) != WX_OK)
        return rc;
    st->pivot_ms = scc_now_ms() - tb;
    st->pivot_levels = w->levels;
    struct rounds ro;
    ro.dir = tu->colour_dir == 1 || tu->colour_dir == 3;
    ro.nreg = tu->pivot ? 4 : 1;
    ro.fb_max = w->coop ? tu->fb_rounds : 0;
    while (live > 0 && !w->aborted)
        if ((rc = one_round(w, &ro, &live, st, tu, err)) != WX_OK)
            return rc;
    if (w->aborted && live > 0) {
        st->residue_reason = 1;
        if ((rc = scc_cpu_residue(w, &live, st, err)) != WX_OK)
            return rc;
    }
    st->levels = w->levels;
    return WX_OK;
}

extern "C" int scc_gpu_device_tuned(const struct dgraph *dg, uint32_t *d_comp,
                                    struct scc_result *out, struct scc_gpu_stats *st_out,
                                    const struct scc_gpu_tuning *tu, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = dg->n_vertices, m = dg->n_edges;
    struct scc_gpu_stats st;
    struct scc_work w;
    double t0, t;
    memset(&st, 0, sizeof st);
    memset(&w, 0, sizeof w);
    memset(out, 0, sizeof *out);
    out->n_vertices = n64;
    if (st_out)
        memset(st_out, 0, sizeof *st_out);
    if (n64 == 0)
        return WX_OK;
    if (n64 > UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "GPU SCC: at most 2^32 - 1 vertices");
    if (m >= ((uint64_t)1 << 38))
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "GPU SCC: %llu edges; the GPU decomposition supports fewer than 2^38 "
                       "(use --backend cpu)", (unsigned long long)m);
    t0 = scc_now_ms();
    if ((rc = work_init(&w, dg, d_comp, tu, err)) != WX_OK)
        goto out;
    st.alloc_ms = scc_now_ms() - t0;
    /* 1. the connected components of a symmetric graph, or the transpose */
    if (m && tu->symmetric && (rc = scc_symmetric_check(&w, dg, d_comp, &st, err)) != WX_OK)
        goto out;
    if (w.symmetric) {
        if ((rc = scc_components(dg, d_comp, err)) != WX_OK)
            goto out;
        st.components = 1;
        t = scc_now_ms();
        st.transpose_ms = t - t0;
        st.pivot_ms = t - t0 - st.alloc_ms - st.symmetric_ms; /* the components' time */
    } else {
        if ((rc = search_setup(&w, dg, d_comp, tu, &st, err)) != WX_OK)
            goto out;
        st.transpose_ms = scc_now_ms() - t0;
        /* 2-4. */
        if ((rc = decompose(&w, tu, &st, err)) != WX_OK)
            goto out;
    }
    /* 5. canonical ids, 6. counts */
    t = scc_now_ms();
    if ((rc = scc_relabel(&w, d_comp, out, err)) != WX_OK)
        goto out;
    st.relabel_ms = scc_now_ms() - t;
    t = scc_now_ms();
    if ((rc = scc_count(&w, dg, d_comp, out, err)) != WX_OK)
        goto out;
    st.stats_ms = scc_now_ms() - t;
    st.total_ms = scc_now_ms() - t0;
out:
    work_free(&w);
    if (rc != WX_OK) {
        memset(out, 0, sizeof *out);
        cudaGetLastError(); /* leave no stale launch error behind */
    } else if (st_out) {
        *st_out = st;
    }
    return rc;
}

extern "C" int scc_gpu_device(const struct dgraph *dg, uint32_t *d_comp,
                              struct scc_result *out, struct scc_gpu_stats *st_out,
                              struct wx_error *err)
{
    struct scc_gpu_tuning t;
    scc_tuning_current(&t);
    return scc_gpu_device_tuned(dg, d_comp, out, st_out, &t, err);
}

extern "C" int scc_gpu_available(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
        cudaGetLastError(); /* clear the sticky-free error state */
        return 0;
    }
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return major >= 9;
}

extern "C" int scc_gpu_ids_new(uint64_t n, uint32_t **d_comp, struct wx_error *err)
{
    int rc = WX_OK;
    *d_comp = NULL;
    CUDA_CHECK(cudaMalloc((void **)d_comp, (n ? n : 1) * sizeof **d_comp));
out:
    return rc;
}

extern "C" int scc_gpu_ids_download(const uint32_t *d_comp, uint64_t n, uint32_t *host,
                                    struct wx_error *err)
{
    int rc = WX_OK;
    if (n)
        CUDA_CHECK(cudaMemcpy(host, d_comp, n * sizeof *host, cudaMemcpyDeviceToHost));
out:
    return rc;
}

extern "C" void scc_gpu_ids_free(uint32_t *d_comp)
{
    cudaFree(d_comp);
}

extern "C" int scc_gpu(const struct csr *g, struct scc_result *out, struct wx_error *err)
{
    int rc = WX_OK;
    struct dgraph dg;
    uint32_t *d_comp = NULL;
    memset(&dg, 0, sizeof dg);
    memset(out, 0, sizeof *out);
    out->n_vertices = g->n_vertices;
    if (!scc_gpu_available())
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "GPU SCC: no usable CUDA device (compute capability >= 9.0); use --backend cpu");
    if (g->n_vertices == 0)
        return WX_OK;
    if (g->n_vertices > UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "GPU SCC: at most 2^32 - 1 vertices");
    rc = dgraph_upload(g, 0, &dg, err);
    if (rc != WX_OK)
        return rc;
    rc = scc_gpu_ids_new(g->n_vertices, &d_comp, err);
    if (rc != WX_OK)
        goto out;
    rc = scc_gpu_device(&dg, d_comp, out, NULL, err);
    if (rc != WX_OK)
        goto out;
    out->comp = (uint32_t *)malloc(g->n_vertices * sizeof *out->comp);
    if (!out->comp) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory for %llu component ids",
                     (unsigned long long)g->n_vertices);
        goto out;
    }
    CUDA_CHECK(
        cudaMemcpy(out->comp, d_comp, g->n_vertices * sizeof *out->comp, cudaMemcpyDeviceToHost));
out:
    cudaFree(d_comp);
    dgraph_free(&dg);
    if (rc != WX_OK) {
        free(out->comp);
        memset(out, 0, sizeof *out);
    }
    return rc;
}
