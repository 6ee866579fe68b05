/*
 * graph.cu -- the recorded edges (an edge sink, or keep_device_graph):
 * staged to host memory while exploring when the device buffer fills,
 * mapped to dense ids after it batch by batch into 32-bit arrays, sorted by
 * source with CUB into CSR order, then emitted to the sink in batches
 * and/or kept on the device as res->device_graph (a struct dgraph,
 * graph/dgraph.h).  The table is gone by then, so the graph may take the
 * whole device: 12 bytes an edge to hold, 24 at the sort's peak.
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

/* Emits n edges (host arrays, endpoints dense ids of type Id) to the sink
 * in batches. */
template <typename Id>
static int gx_emit(const struct explore_options *opt, const Id *src, const Id *dst, const uint32_t *lab, size_t n,
                   struct wx_error *err)
{
    enum { BATCH = 1 << 16 };
    struct product_edge *buf = (struct product_edge *)malloc(BATCH * sizeof *buf);
    if (!buf)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory emitting edges");
    int rc = WX_OK;
    for (size_t i = 0; i < n && !rc;) {
        size_t m = n - i < BATCH ? n - i : BATCH;
        for (size_t j = 0; j < m; j++) {
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

/* Downloads n edges held in device arrays (endpoints: dense ids of type
 * Id) in batches of at most 2^24 and emits them to the sink in that order.
 * The one way edges leave the device: CSR-sorted or in the order found. */
template <typename Id>
static int gx_emit_device(const struct explore_options *opt, const Id *d_src, const Id *d_dst,
                          const uint32_t *d_lab, uint64_t n, struct wx_error *err)
{
    int rc = WX_OK;
    if (n == 0)
        return WX_OK;
    const uint64_t batch = n < (1ull << 24) ? n : (1ull << 24);
    Id *hs = (Id *)malloc(batch * sizeof(Id));
    Id *hd = (Id *)malloc(batch * sizeof(Id));
    uint32_t *hl = (uint32_t *)malloc(batch * 4);
    if (!hs || !hd || !hl) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory emitting edges");
        goto out;
    }
    for (uint64_t i = 0; i < n && !rc; i += batch) {
        const uint64_t m = n - i < batch ? n - i : batch;
        CUDA_CHECK(cudaMemcpy(hs, d_src + i, m * sizeof(Id), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(hd, d_dst + i, m * sizeof(Id), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(hl, d_lab + i, m * 4, cudaMemcpyDeviceToHost));
        rc = gx_emit(opt, hs, hd, hl, m, err);
    }
out:
    free(hs), free(hd), free(hl);
    return rc;
}

/* out[i] = the low 32 bits of a[i]: dense ids below 2^32 - 1. */
__global__ void narrow_u64(const unsigned long long *a, uint32_t *out, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = (uint32_t)a[i];
}

/* v[i] = dst[i] in the low and lab[i] in the high 32 bits: an edge's
 * payload, sorted along its source. */
__global__ void pack_payload(const uint32_t *dst, const uint32_t *lab, unsigned long long *v, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        v[i] = (unsigned long long)lab[i] << 32 | dst[i];
}

__global__ void unpack_payload(const unsigned long long *v, uint32_t *dst, uint32_t *lab, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        dst[i] = (uint32_t)v[i];
        lab[i] = (uint32_t)(v[i] >> 32);
    }
}

/* offsets[v] = the first position of source v in the sorted src[0..n), for
 * v in 0..n_states (so offsets[n_states] == n): position i fills the
 * offsets of the sources after src[i-1] up to src[i], position n the rest. */
__global__ void offsets_from_sorted(const uint32_t *src, unsigned long long n, unsigned long long n_states,
                                    uint64_t *offsets)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i <= n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long from = i ? src[i - 1] + 1ull : 0, to = i < n ? src[i] : n_states;
        for (unsigned long long v = from; v <= to && v <= n_states; v++)
            offsets[v] = i;
    }
}

/* Walks the recorded edges batch by batch: the first s->on_dev in the
 * device buffer, then the staged host arrays through that buffer; each
 * batch's endpoints are mapped to dense ids in place (s->map), then handed
 * to visit.  The buffer's contents are lost. */
static int gx_edge_batches(struct gx *g, const struct gx_edge_source *s,
                           int (*visit)(struct gx *, void *, uint64_t m, struct wx_error *), void *vctx,
                           struct wx_error *err)
{
    int rc = WX_OK;
    if (s->on_dev && ((rc = s->map(g, s->ctx, s->d_src, s->d_dst, s->on_dev, err)) ||
                      (rc = visit(g, vctx, s->on_dev, err))))
        return rc;
    for (uint64_t i = 0; i < g->h_n;) {
        const uint64_t m = g->h_n - i < s->cap ? g->h_n - i : s->cap;
        CUDA_CHECK(cudaMemcpy(s->d_src, g->h_src + i, m * 8, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(s->d_dst, g->h_dst + i, m * 8, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(s->d_lab, g->h_lab + i, m * 4, cudaMemcpyHostToDevice));
        if ((rc = s->map(g, s->ctx, s->d_src, s->d_dst, m, err)) || (rc = visit(g, vctx, m, err)))
            return rc;
        i += m;
    }
out:
    return rc;
}

struct gx_put {
    const struct gx_edge_source *s;
    struct gx_edges *e;
};

/* visit: the batch in the source's buffer narrowed into e after its fill. */
static int gx_put_batch(struct gx *g, void *ctx, uint64_t m, struct wx_error *err)
{
    (void)g;
    int rc = WX_OK;
    struct gx_put *x = (struct gx_put *)ctx;
    narrow_u64<<<256, 256>>>(x->s->d_src, x->e->src + x->e->fill, m);
    CUDA_CHECK_LAUNCH("narrow_u64");
    narrow_u64<<<256, 256>>>(x->s->d_dst, x->e->dst + x->e->fill, m);
    CUDA_CHECK_LAUNCH("narrow_u64");
    CUDA_CHECK(cudaMemcpy(x->e->lab + x->e->fill, x->s->d_lab, m * 4, cudaMemcpyDeviceToDevice));
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "edge ids");
    x->e->fill += m;
out:
    return rc;
}

/* visit: the batch emitted to the sink as it is. */
static int gx_emit_batch(struct gx *g, void *ctx, uint64_t m, struct wx_error *err)
{
    const struct gx_edge_source *s = (const struct gx_edge_source *)ctx;
    return gx_emit_device(g->opt, s->d_src, s->d_dst, s->d_lab, m, err);
}

int gx_emit_found(struct gx *g, const struct gx_edge_source *s, struct wx_error *err)
{
    return gx_edge_batches(g, s, gx_emit_batch, (void *)s, err);
}

int gx_edges_open(struct gx *g, struct gx_edges *e, uint64_t n, struct wx_error *err)
{
    void *a = NULL, *b = NULL, *c = NULL;
    memset(e, 0, sizeof *e);
    int rc = gx_malloc(g, &a, n * 4, "edge sources", err);
    if (!rc && !(rc = gx_malloc(g, &b, n * 4, "edge targets", err)))
        rc = gx_malloc(g, &c, n * 4, "edge labels", err);
    if (rc) {
        gx_release(g, a), gx_release(g, b);
        return rc;
    }
    e->src = (uint32_t *)a, e->dst = (uint32_t *)b, e->lab = (uint32_t *)c, e->n = n;
    return WX_OK;
}

void gx_edges_close(struct gx *g, struct gx_edges *e)
{
    gx_release(g, e->src), gx_release(g, e->dst), gx_release(g, e->lab);
    memset(e, 0, sizeof *e);
}

int gx_edges_fill(struct gx *g, struct gx_edges *e, const struct gx_edge_source *s, struct wx_error *err)
{
    struct gx_put x = {s, e};
    int rc = gx_edge_batches(g, s, gx_put_batch, &x, err);
    if (!rc && e->fill != e->n)
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU explorer: %llu edges collected, %llu expected",
                     (unsigned long long)e->fill, (unsigned long long)e->n);
    return rc;
}

/* The graph kept on the device: offsets from the sorted sources, the
 * targets and labels unpacked from the sorted payloads into arrays it
 * owns (they leave g's bookkeeping). */
static int gx_keep_graph(struct gx *g, const uint32_t *src, const unsigned long long *v, uint64_t n,
                         uint64_t n_states, struct wx_error *err)
{
    int rc = WX_OK;
    struct dgraph *dg = &g->res->device_graph;
    memset(dg, 0, sizeof *dg);
    dg->owned = 1;
    if (cudaMalloc(&dg->d_offsets, (n_states + 1) * 8) != cudaSuccess ||
        cudaMalloc(&dg->d_targets, n * 4) != cudaSuccess || cudaMalloc(&dg->d_labels, n * 4) != cudaSuccess) {
        (void)cudaGetLastError();
        dgraph_free(dg);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "no device memory to keep the graph (%llu states, %llu edges) on the GPU",
                       (unsigned long long)n_states, (unsigned long long)n);
    }
    offsets_from_sorted<<<256, 256>>>(src, n, n_states, dg->d_offsets);
    CUDA_CHECK_LAUNCH("offsets_from_sorted");
    unpack_payload<<<256, 256>>>(v, dg->d_targets, dg->d_labels, n);
    CUDA_CHECK_LAUNCH("unpack_payload");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "device graph");
    dg->n_vertices = n_states;
    dg->n_edges = n;
out:
    return rc;
}

/* e's edges in CSR order: one stable radix sort of the sources with each
 * edge's (target, label) as an 8-byte payload, so that the peak is 24
 * bytes an edge (sources and payloads, each twice) and the payload's
 * targets and labels come apart again only into the arrays that stay;
 * then emitted to the sink and/or kept as the device graph.  Returns 1,
 * e untouched, when the free memory is short of the sort's. */
static int gx_edges_sort(struct gx *g, struct gx_edges *e, uint64_t n_states, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n = e->n;
    void *k2 = NULL, *v = NULL, *v2 = NULL, *tmp = NULL;
    int bits = 1;
    while (bits < 32 && (n_states >> bits))
        bits++;
    size_t tb = 0, fr = 0, tot = 0;
    cub::DoubleBuffer<uint32_t> keys(e->src, NULL);
    cub::DoubleBuffer<unsigned long long> vals(NULL, NULL);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, tb, keys, vals, (long long)n, 0, bits));
    /* beyond e's 12 bytes an edge: the payloads and the sort's second
     * buffers (12 more), the workspace, the kept graph's offsets */
    CUDA_CHECK(cudaMemGetInfo(&fr, &tot));
    if (fr < n * 12 + tb + (n_states + 1) * 8 + (64u << 20))
        return 1;
    if ((rc = gx_malloc(g, &v, n * 8, "edge payloads", err)))
        goto out;
    pack_payload<<<256, 256>>>(e->dst, e->lab, (unsigned long long *)v, n);
    CUDA_CHECK_LAUNCH("pack_payload");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "edge payloads");
    gx_release(g, e->dst), gx_release(g, e->lab);
    e->dst = e->lab = NULL;
    if ((rc = gx_malloc(g, &k2, n * 4, "sorted edge sources", err)) ||
        (rc = gx_malloc(g, &v2, n * 8, "sorted edge payloads", err)) ||
        (rc = gx_malloc(g, &tmp, tb, "edge sort workspace", err)))
        goto out;
    keys = cub::DoubleBuffer<uint32_t>(e->src, (uint32_t *)k2);
    vals = cub::DoubleBuffer<unsigned long long>((unsigned long long *)v, (unsigned long long *)v2);
    CUDA_CHECK_NAMED(cub::DeviceRadixSort::SortPairs(tmp, tb, keys, vals, (long long)n, 0, bits),
                     "cub::DeviceRadixSort::SortPairs");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "edge sort");
    gx_release(g, tmp), tmp = NULL;
    gx_release(g, keys.Alternate()), gx_release(g, vals.Alternate());
    e->src = keys.Current(), v = vals.Current(), k2 = v2 = NULL;
    if (g->opt->keep_device_graph && (rc = gx_keep_graph(g, e->src, (unsigned long long *)v, n, n_states, err)))
        goto out;
    if (g->opt->sink) {
        /* targets and labels of the sorted order into the arrays the
         * payloads came from (the graph's, when kept) */
        uint32_t *t = g->res->device_graph.d_targets, *l = g->res->device_graph.d_labels;
        if (!g->opt->keep_device_graph) {
            void *a = NULL, *b = NULL;
            if ((rc = gx_malloc(g, &a, n * 4, "sorted edge targets", err)) ||
                (rc = gx_malloc(g, &b, n * 4, "sorted edge labels", err))) {
                gx_release(g, a);
                goto out;
            }
            e->dst = t = (uint32_t *)a, e->lab = l = (uint32_t *)b;
            unpack_payload<<<256, 256>>>((unsigned long long *)v, t, l, n);
            CUDA_CHECK_LAUNCH("unpack_payload");
        }
        rc = gx_emit_device(g->opt, e->src, t, l, n, err);
    }
out:
    gx_release(g, k2), gx_release(g, v), gx_release(g, v2), gx_release(g, tmp);
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

int gx_edges_csr(struct gx *g, struct gx_edges *e, uint64_t n_states, struct wx_error *err)
{
    const bool keep = g->opt->keep_device_graph;
    int rc = e->n ? gx_edges_sort(g, e, n_states, err) : keep ? gx_empty_graph(n_states, g->res, err) : WX_OK;
    if (rc == 1 && !keep) /* no room to sort: in the order found */
        rc = gx_emit_device(g->opt, e->src, e->dst, e->lab, e->n, err);
    else if (rc == 1 || (rc == WX_ELIMIT && keep)) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", rc == 1 ? "too little free memory" : err->msg);
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "no device memory to sort the %llu edges into a graph kept on the "
                     "GPU: %s", (unsigned long long)e->n, why);
    }
    gx_edges_close(g, e);
    return rc;
}

int gx_edges_out(struct gx *g, const struct gx_edge_source *s, uint64_t n, uint64_t n_states,
                 struct wx_error *err)
{
    const bool keep = g->opt->keep_device_graph;
    struct gx_edges e;
    if (n_states >= 0xffffffffull) {
        if (keep)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "%llu states: the GPU analyses take at most 2^32 - 2 "
                           "(use --backend cpu)", (unsigned long long)n_states);
        return gx_emit_found(g, s, err);
    }
    if (n == 0) {
        memset(&e, 0, sizeof e);
        return gx_edges_csr(g, &e, n_states, err);
    }
    if (g->tun->edges_found_order && !keep)
        return gx_emit_found(g, s, err);
    int rc = gx_edges_open(g, &e, n, err);
    if (rc == WX_ELIMIT && !keep)
        return gx_emit_found(g, s, err);
    if (rc == WX_ELIMIT)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "no device memory to hold the %llu edges (12 bytes each) of the "
                       "graph kept on the GPU", (unsigned long long)n);
    if (rc || (rc = gx_edges_fill(g, &e, s, err))) {
        gx_edges_close(g, &e);
        return rc;
    }
    s->done(g, s->ctx);
    return gx_edges_csr(g, &e, n_states, err);
}

/* The flat explorer's map: slots to ids by the bucket prefix sums. */
static int gx_map_flat(struct gx *g, void *ctx, unsigned long long *src, unsigned long long *dst, uint64_t m,
                       struct wx_error *err)
{
    return gx_map_edges(g, src, dst, m, *(const uint64_t *)ctx, err);
}

/* After the fill: the exploration's edge buffer makes room for the sort. */
static void gx_done_flat(struct gx *g, void *ctx)
{
    (void)ctx;
    gx_release(g, g->p.e_src), gx_release(g, g->p.e_dst), gx_release(g, g->p.e_lab);
    g->p.e_src = g->p.e_dst = NULL;
    g->p.e_lab = NULL;
}

int gx_graph(struct gx *g, uint64_t r0, struct wx_error *err)
{
    struct gpu_params &p = g->p;
    const uint64_t n = g->ctl.e_fill + g->h_n;
    struct gx_edge_source s = {p.e_src, p.e_dst, p.e_lab, p.e_cap, g->ctl.e_fill, gx_map_flat, gx_done_flat, &r0};
    /* the table and the queues are done with (ids come from the prefix
     * sums): the edges take their room */
    gx_release(g, p.table);
    gx_release(g, g->q[0]), gx_release(g, g->q[1]);
    p.table = NULL;
    g->q[0] = g->q[1] = NULL;
    return gx_edges_out(g, &s, n, g->ctl.n_states, err);
}
