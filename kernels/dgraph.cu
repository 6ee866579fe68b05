/*
 * dgraph.cu -- upload, download, label lookup and release of the device
 * graph (graph/dgraph.h).  Every CUDA call is checked (cuda_check.cuh).
 */
#include <stdlib.h>
#include <string.h>

#include "../graph/dgraph.h"
#include "cuda_check.cuh"

extern "C" void dgraph_free(struct dgraph *dg)
{
    if (!dg)
        return;
    if (dg->owned) {
        cudaFree(dg->d_offsets);
        cudaFree(dg->d_targets);
        cudaFree(dg->d_labels);
    }
    memset(dg, 0, sizeof *dg);
}

extern "C" int dgraph_upload(const struct csr *g, int with_labels, struct dgraph *dg, struct wx_error *err)
{
    int rc = WX_OK;
    memset(dg, 0, sizeof *dg);
    if (g->n_vertices > UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "device graph: at most 2^32 - 1 vertices");
    dg->n_vertices = g->n_vertices;
    dg->n_edges = g->n_edges;
    dg->owned = 1;
    CUDA_CHECK(cudaMalloc((void **)&dg->d_offsets, (g->n_vertices + 1) * sizeof(uint64_t)));
    CUDA_CHECK(cudaMemcpy(dg->d_offsets, g->offsets, (g->n_vertices + 1) * sizeof(uint64_t),
                          cudaMemcpyHostToDevice));
    if (g->n_edges) {
        CUDA_CHECK(cudaMalloc((void **)&dg->d_targets, g->n_edges * sizeof(uint32_t)));
        CUDA_CHECK(cudaMemcpy(dg->d_targets, g->targets, g->n_edges * sizeof(uint32_t),
                              cudaMemcpyHostToDevice));
    }
    if (g->n_edges && with_labels && g->labels) {
        CUDA_CHECK(cudaMalloc((void **)&dg->d_labels, g->n_edges * sizeof(uint32_t)));
        CUDA_CHECK(cudaMemcpy(dg->d_labels, g->labels, g->n_edges * sizeof(uint32_t),
                              cudaMemcpyHostToDevice));
    }
out:
    if (rc != WX_OK)
        dgraph_free(dg);
    return rc;
}

extern "C" int dgraph_download(const struct dgraph *dg, uint64_t *offsets, uint32_t *targets, uint32_t *labels,
                               struct wx_error *err)
{
    int rc = WX_OK;
    if (labels && dg->n_edges && !dg->d_labels)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "device graph download: the graph has no labels");
    CUDA_CHECK_NAMED(cudaMemcpy(offsets, dg->d_offsets, (dg->n_vertices + 1) * 8, cudaMemcpyDeviceToHost),
                     "device graph download");
    if (dg->n_edges)
        CUDA_CHECK_NAMED(cudaMemcpy(targets, dg->d_targets, dg->n_edges * 4, cudaMemcpyDeviceToHost),
                         "device graph download");
    if (labels && dg->n_edges)
        CUDA_CHECK_NAMED(cudaMemcpy(labels, dg->d_labels, dg->n_edges * 4, cudaMemcpyDeviceToHost),
                         "device graph download");
out:
    return rc;
}

__global__ void gather_labels(const uint32_t *labels, const uint64_t *edges, uint64_t k, uint32_t *out)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < k; i += (uint64_t)gridDim.x * blockDim.x)
        out[i] = labels[edges[i]];
}

extern "C" int dgraph_labels_at(const struct dgraph *dg, const uint64_t *edges, uint64_t k, uint32_t *labels,
                                struct wx_error *err)
{
    uint64_t *d_e = NULL;
    uint32_t *d_l = NULL;
    int rc = WX_OK;
    for (uint64_t i = 0; i < k; i++)
        if (edges[i] >= dg->n_edges)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "edge %llu of %llu: out of range",
                           (unsigned long long)edges[i], (unsigned long long)dg->n_edges);
    if (k == 0)
        return WX_OK;
    if (!dg->d_labels)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "device graph: no labels to look up");
    CUDA_CHECK_NAMED(cudaMalloc(&d_e, k * 8), "edge list");
    CUDA_CHECK_NAMED(cudaMalloc(&d_l, k * 4), "edge labels");
    CUDA_CHECK_NAMED(cudaMemcpy(d_e, edges, k * 8, cudaMemcpyHostToDevice), "edge list");
    gather_labels<<<64, 256>>>(dg->d_labels, d_e, k, d_l);
    CUDA_CHECK_LAUNCH("gather_labels");
    CUDA_CHECK_NAMED(cudaMemcpy(labels, d_l, k * 4, cudaMemcpyDeviceToHost), "edge labels");
out:
    cudaFree(d_e);
    cudaFree(d_l);
    return rc;
}
