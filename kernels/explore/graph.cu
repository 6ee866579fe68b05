/*
 * graph.cu -- the recorded edges (an edge sink, or keep_device_graph):
 * staged to host memory while exploring when the device buffer fills,
 * mapped to dense ids after it, sorted by source with CUB into CSR order,
 * then emitted to the sink in batches and/or kept on the device as
 * res->device_graph (a struct dgraph, graph/dgraph.h).
 */
#include <cub/device/device_radix_sort.cuh>

#include <stdlib.h>
#include <string.h>

#include "gx.h"

/* Appends the device edge buffer's contents to the host staging arrays. */
int gx_stage_edges(struct gx *g, unsigned long long cnt, struct wx_error *err)
{
    int rc = WX_OK;
    if (g->h_n + cnt > g->h_cap) {
        size_t cap = g->h_cap ? g->h_cap : 1 << 20;
        while (cap < g->h_n + cnt)
            cap *= 2;
        unsigned long long *s = (unsigned long long *)realloc(g->h_src, cap * sizeof *s);
        if (s)
            g->h_src = s;
        unsigned long long *d = (unsigned long long *)realloc(g->h_dst, cap * sizeof *d);
        if (d)
            g->h_dst = d;
        uint32_t *l = (uint32_t *)realloc(g->h_lab, cap * sizeof *l);
        if (l)
            g->h_lab = l;
        if (!s || !d || !l)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory staging %llu edges",
                           (unsigned long long)(g->h_n + cnt));
        g->h_cap = cap;
    }
    CUDA_CHECK(cudaMemcpy(g->h_src + g->h_n, g->p.e_src, cnt * 8, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(g->h_dst + g->h_n, g->p.e_dst, cnt * 8, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(g->h_lab + g->h_n, g->p.e_lab, cnt * 4, cudaMemcpyDeviceToHost));
    g->h_n += cnt;
out:
    return rc;
}

/* Emits edges (already mapped to ids) to the sink in batches. */
static int gx_emit(const struct explore_options *opt, const unsigned long long *src, const unsigned long long *dst,
                   const uint32_t *lab, size_t n, struct wx_error *err)
{
    enum { BATCH = 1 << 16 };
    struct product_edge *buf = (struct product_edge *)malloc(BATCH * sizeof *buf);
    if (!buf)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory emitting edges");
    int rc = WX_OK;
    for (size_t i = 0; i < n && !rc;) {
        size_t m = n - i < BATCH ? n - i : BATCH;
        for (size_t j = 0; j < m; j++)
        {
            buf[j].src = src[i + j];
            buf[j].dst = dst[i + j];
            buf[j].label = lab[i + j];
        }
        rc = opt->sink->emit(opt->sink->ctx, buf, m, err);
        i += m;
    }
    free(buf);
    return rc;
}

/* Downloads n edges held in device arrays (endpoints: dense ids) in
 * batches of at most 2^24 and emits them to the sink in that order.  The
 * one way edges leave the device: CSR-sorted or in the order found. */
static int gx_emit_device(const struct explore_options *opt, const unsigned long long *d_src,
                          const unsigned long long *d_dst, const uint32_t *d_lab, uint64_t n, struct wx_error *err)
{
    int rc = WX_OK;
    if (n == 0)
        return WX_OK;
    const uint64_t batch = n < (1ull << 24) ? n : (1ull << 24);
    unsigned long long *hs = (unsigned long long *)malloc(batch * 8);
    unsigned long long *hd = (unsigned long long *)malloc(batch * 8);
    uint32_t *hl = (uint32_t *)malloc(batch * 4);
    if (!hs || !hd || !hl) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory emitting edges");
        goto out;
    }
    for (uint64_t i = 0; i < n && !rc; i += batch) {
        const uint64_t m = n - i < batch ? n - i : batch;
        CUDA_CHECK(cudaMemcpy(hs, d_src + i, m * 8, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(hd, d_dst + i, m * 8, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(hl, d_lab + i, m * 4, cudaMemcpyDeviceToHost));
        rc = gx_emit(opt, hs, hd, hl, m, err);
    }
out:
    free(hs), free(hd), free(hl);
    return rc;
}

__global__ void iota_u32(uint32_t *a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        a[i] = (uint32_t)i;
}

__global__ void permute_edges(const uint32_t *perm, const unsigned long long *dst, const uint32_t *lab,
                              unsigned long long *dst2, uint32_t *lab2, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        dst2[i] = dst[perm[i]];
        lab2[i] = lab[perm[i]];
    }
}

/* offsets[v] = the first position of source v in the sorted src[0..n), for
 * v in 0..n_states (so offsets[n_states] == n): position i fills the
 * offsets of the sources after src[i-1] up to src[i], position n the rest. */
__global__ void offsets_from_sorted(const unsigned long long *src, unsigned long long n, unsigned long long n_states,
                                    uint64_t *offsets)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i <= n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long from = i ? src[i - 1] + 1 : 0, to = i < n ? src[i] : n_states;
        for (unsigned long long v = from; v <= to && v <= n_states; v++)
            offsets[v] = i;
    }
}

__global__ void narrow_u64(const unsigned long long *a, uint32_t *b, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        b[i] = (uint32_t)a[i];
}

/* Edges already mapped to ids, all on the device (src, dst, lab; n of
 * them): sorted by source with CUB (CSR order); with a sink, downloaded and
 * emitted in batches; with keep_device_graph, turned into res->device_graph.
 * Returns 1 (nothing emitted, no error) when the workspace cannot be
 * allocated, so the caller emits them unsorted instead. */
static int gx_emit_csr(struct gx *g, const struct explore_options *opt, unsigned long long n, uint64_t n_states,
                       struct explore_result *res, struct wx_error *err)
{
    int rc = WX_OK;
    void *keys2 = NULL, *idx = NULL, *idx2 = NULL, *dst2 = NULL, *lab2 = NULL, *tmp = NULL;
    int bits = 1;
    while (bits < 64 && (n_states >> bits))
        bits++;
    size_t tb = 0;
    if (cub::DeviceRadixSort::SortPairs(NULL, tb, g->p.e_src, (unsigned long long *)NULL, (const uint32_t *)NULL,
                                        (uint32_t *)NULL, (long long)n, 0, bits) != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    if (cudaMalloc(&keys2, n * 8) != cudaSuccess || cudaMalloc(&idx, n * 4) != cudaSuccess ||
        cudaMalloc(&idx2, n * 4) != cudaSuccess || cudaMalloc(&dst2, n * 8) != cudaSuccess ||
        cudaMalloc(&lab2, n * 4) != cudaSuccess || cudaMalloc(&tmp, tb ? tb : 16) != cudaSuccess) {
        (void)cudaGetLastError();
        rc = 1;
        goto out;
    }
    iota_u32<<<256, 256>>>((uint32_t *)idx, n);
    CUDA_CHECK_LAUNCH("iota_u32");
    CUDA_CHECK_NAMED(cub::DeviceRadixSort::SortPairs(tmp, tb, g->p.e_src, (unsigned long long *)keys2,
                                                     (const uint32_t *)idx, (uint32_t *)idx2, (long long)n, 0, bits),
                     "cub::DeviceRadixSort::SortPairs");
    permute_edges<<<256, 256>>>((const uint32_t *)idx2, g->p.e_dst, g->p.e_lab, (unsigned long long *)dst2,
                                (uint32_t *)lab2, n);
    CUDA_CHECK_LAUNCH("permute_edges");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "edge sort");
    /* the unsorted edges and the sort's workspace make room for the
     * device graph */
    cudaFree(idx), cudaFree(idx2), cudaFree(tmp);
    idx = idx2 = tmp = NULL;
    gx_release(g, g->p.e_src), gx_release(g, g->p.e_dst), gx_release(g, g->p.e_lab);
    g->p.e_src = g->p.e_dst = NULL;
    g->p.e_lab = NULL;
    if (opt->keep_device_graph) {
        struct dgraph *dg = &res->device_graph;
        if (n_states >= 0xffffffffull) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "%llu states: the GPU analyses take at most 2^32 - 2 (use --backend cpu)",
                         (unsigned long long)n_states);
            goto out;
        }
        dg->owned = 1;
        if (cudaMalloc(&dg->d_offsets, (n_states + 1) * 8) != cudaSuccess ||
            (n && cudaMalloc(&dg->d_targets, n * 4) != cudaSuccess) ||
            (n && cudaMalloc(&dg->d_labels, n * 4) != cudaSuccess)) {
            (void)cudaGetLastError();
            dgraph_free(dg);
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "no device memory to keep the graph (%llu states, %llu edges) on the GPU",
                         (unsigned long long)n_states, n);
            goto out;
        }
        offsets_from_sorted<<<256, 256>>>((const unsigned long long *)keys2, n, n_states, dg->d_offsets);
        CUDA_CHECK_LAUNCH("offsets_from_sorted");
        if (n) {
            narrow_u64<<<256, 256>>>((const unsigned long long *)dst2, dg->d_targets, n);
            CUDA_CHECK_LAUNCH("narrow_u64");
            CUDA_CHECK_NAMED(cudaMemcpy(dg->d_labels, lab2, n * 4, cudaMemcpyDeviceToDevice), "device graph labels");
        }
        CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "device graph");
        dg->n_vertices = n_states;
        dg->n_edges = n;
    }
    if (opt->sink)
        rc = gx_emit_device(opt, (const unsigned long long *)keys2, (const unsigned long long *)dst2,
                            (const uint32_t *)lab2, n, err);
out:
    cudaFree(keys2), cudaFree(idx), cudaFree(idx2), cudaFree(dst2), cudaFree(lab2), cudaFree(tmp);
    return rc;
}

/* No edge: the device graph (keep_device_graph) is its offsets, all zero. */
static int gx_empty_graph(uint64_t n_states, struct explore_result *res, struct wx_error *err)
{
    int rc = WX_OK;
    struct dgraph *dg = &res->device_graph;
    dg->owned = 1;
    if (cudaMalloc(&dg->d_offsets, (n_states + 1) * 8) != cudaSuccess) {
        (void)cudaGetLastError();
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "no device memory to keep the graph on the GPU");
    }
    CUDA_CHECK(cudaMemset(dg->d_offsets, 0, (n_states + 1) * 8));
    dg->n_vertices = n_states;
out:
    return rc;
}

int gx_graph_ids(struct gx *g, uint64_t n, uint64_t n_states, struct wx_error *err)
{
    const struct explore_options *opt = g->opt;
    if (n == 0)
        return opt->keep_device_graph ? gx_empty_graph(n_states, g->res, err) : WX_OK;
    int r = gx_emit_csr(g, opt, n, n_states, g->res, err);
    if (r == 1 && opt->keep_device_graph)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "no device memory to sort the %llu edges into a graph kept on the GPU",
                       (unsigned long long)n);
    if (r == 1) /* no room to sort: in the order found */
        r = gx_emit_device(opt, g->p.e_src, g->p.e_dst, g->p.e_lab, n, err);
    return r;
}

/* The recorded edges after the exploration (ids: prefix sums computed,
 * r0 the initial state's rank): all on the device in CSR order when they
 * fit (emitted and/or kept as the device graph), else emitted in the order
 * found, through the device buffer. */
int gx_graph(struct gx *g, uint64_t r0, struct wx_error *err)
{
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    const struct gpu_ctl &ctl = g->ctl;
    const struct explore_options *opt = g->opt;
    struct explore_result *res = g->res;
    {
        const uint64_t on_dev = ctl.e_fill;
        const uint64_t total_e = on_dev + g->h_n;
        int done = 0;
        if (opt->keep_device_graph && total_e > p.e_cap && total_e < 0x7fffffffull) {
            /* more edges than the exploration's buffer: the table and
             * the queues are no longer needed, so one buffer for all of
             * them fits where they were */
            gx_release(g, p.table);
            p.table = NULL;
            gx_release(g, g->q[0]);
            gx_release(g, g->q[1]);
            g->q[0] = g->q[1] = NULL;
            void *ns = NULL, *nd = NULL, *nl = NULL;
            if ((rc = gx_malloc(g, &ns, total_e * 8, "all edge sources", err)) ||
                (rc = gx_malloc(g, &nd, total_e * 8, "all edge targets", err)) ||
                (rc = gx_malloc(g, &nl, total_e * 4, "all edge labels", err)))
                goto out;
            CUDA_CHECK(cudaMemcpy(ns, p.e_src, on_dev * 8, cudaMemcpyDeviceToDevice));
            CUDA_CHECK(cudaMemcpy(nd, p.e_dst, on_dev * 8, cudaMemcpyDeviceToDevice));
            CUDA_CHECK(cudaMemcpy(nl, p.e_lab, on_dev * 4, cudaMemcpyDeviceToDevice));
            gx_release(g, p.e_src);
            gx_release(g, p.e_dst);
            gx_release(g, p.e_lab);
            p.e_src = (unsigned long long *)ns;
            p.e_dst = (unsigned long long *)nd;
            p.e_lab = (uint32_t *)nl;
            p.e_cap = total_e;
        }
        if (total_e == 0 && opt->keep_device_graph) {
            if ((rc = gx_empty_graph(ctl.n_states, res, err)))
                goto out;
            done = 1;
        }
        if (total_e && total_e <= p.e_cap && total_e < 0x7fffffffull) {
            /* everything fits on the device: staged edges after the
             * resident ones, ids, then CSR order (by source) with CUB;
             * the table is no longer needed and makes room */
            if (g->h_n) {
                CUDA_CHECK(cudaMemcpy(p.e_src + on_dev, g->h_src, g->h_n * 8, cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemcpy(p.e_dst + on_dev, g->h_dst, g->h_n * 8, cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemcpy(p.e_lab + on_dev, g->h_lab, g->h_n * 4, cudaMemcpyHostToDevice));
            }
            if ((rc = gx_map_edges(g, p.e_src, p.e_dst, total_e, r0, err)))
                goto out;
            gx_release(g, p.table);
            p.table = NULL;
            gx_release(g, g->q[0]);
            gx_release(g, g->q[1]);
            g->q[0] = g->q[1] = NULL;
            if ((rc = gx_graph_ids(g, total_e, ctl.n_states, err)))
                goto out;
            done = 1;
        }
        if (!done && opt->keep_device_graph) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "the %llu edges do not fit in device memory at once: the graph cannot be kept "
                         "on the GPU (use --backend cpu)", (unsigned long long)total_e);
            goto out;
        }
        if (!done) {
            /* too many to hold at once: in the order found, what is
             * still on the device first, then the staged batches
             * through the device buffer */
            if ((rc = gx_map_edges(g, p.e_src, p.e_dst, on_dev, r0, err)) ||
                (rc = gx_emit_device(opt, p.e_src, p.e_dst, p.e_lab, on_dev, err)))
                goto out;
            for (uint64_t i = 0; i < g->h_n;) {
                const uint64_t m = g->h_n - i < p.e_cap ? g->h_n - i : p.e_cap;
                CUDA_CHECK(cudaMemcpy(p.e_src, g->h_src + i, m * 8, cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemcpy(p.e_dst, g->h_dst + i, m * 8, cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemcpy(p.e_lab, g->h_lab + i, m * 4, cudaMemcpyHostToDevice));
                if ((rc = gx_map_edges(g, p.e_src, p.e_dst, m, r0, err)) ||
                    (rc = gx_emit_device(opt, p.e_src, p.e_dst, p.e_lab, m, err)))
                    goto out;
                i += m;
            }
        }
    }
out:
    return rc;
}
