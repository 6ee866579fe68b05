/*
 * residue.cu -- step 4b of the GPU SCC (kernels/scc/scc_int.cuh): the CPU
 * residue (tuning residue).  Each GPU phase gets a budget of residue_ns per
 * live item (coop.cu); an engine past it stops at its next level (device
 * clock, checked by one thread between levels), and the live subgraph -- a
 * union of SCCs, so its SCCs are the graph's -- is compacted on the GPU,
 * decomposed by Tarjan on the host, and each live vertex's representative
 * (its component's smallest member) copied back.  On paths this replaces
 * one thread walking every dependent step.
 */
#include <cub/cub.cuh>

#include "scc_dev.cuh"

/* ---- the CPU residue: the live subgraph, compacted ---- */

__global__ void scc_live_flags(uint32_t n, const uint32_t *rep, uint32_t *flag)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        flag[v] = rep[v] == SCC_UNSET;
}

/* For live v (compact id newid[v]): its original id and its number of
 * live out-neighbours.  Edges to finished vertices are dropped: the live
 * vertices are a union of SCCs, whose SCCs are those of the subgraph they
 * induce. */
__global__ void scc_res_degrees(uint32_t n, const uint64_t *off, const uint32_t *tgt,
                                const uint32_t *rep, const uint32_t *newid, uint64_t *cdeg,
                                uint32_t *orig)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || rep[v] != SCC_UNSET)
        return;
    uint64_t d = 0;
    for (uint64_t e = off[v]; e < off[v + 1]; e++)
        d += rep[tgt[e]] == SCC_UNSET;
    cdeg[newid[v]] = d;
    orig[newid[v]] = (uint32_t)v;
}

__global__ void scc_res_fill(uint32_t n, const uint64_t *off, const uint32_t *tgt,
                             const uint32_t *rep, const uint32_t *newid, const uint64_t *coff,
                             uint32_t *ctgt)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || rep[v] != SCC_UNSET)
        return;
    uint64_t k = coff[newid[v]];
    for (uint64_t e = off[v]; e < off[v + 1]; e++) {
        uint32_t w = tgt[e];
        if (rep[w] == SCC_UNSET)
            ctgt[k++] = newid[w];
    }
}

__global__ void scc_res_scatter(uint32_t nl, const uint32_t *orig, const uint32_t *hrep, uint32_t *rep)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nl)
        rep[orig[i]] = hrep[i];
}

/* ---- host side ---- */

/* The live subgraph, compacted on the device (compaction keeps the order
 * of the vertices): nl vertices, ml edges, CSR coff / ctgt, orig[i] the
 * original id of compact vertex i.  cdeg (nl + 1 words) is scratch. */
struct residue {
    uint64_t nl, ml;
    uint64_t *cdeg, *coff;
    uint32_t *orig, *ctgt;
};

static void residue_free(struct residue *r)
{
    cudaFree(r->cdeg);
    cudaFree(r->coff);
    cudaFree(r->orig);
    cudaFree(r->ctgt);
}

/* Flags, a scan for the new ids (in w->reach), live out-degrees, a scan
 * for the offsets, the targets.  r->nl == 0: nothing live. */
static int residue_compact(struct scc_work *w, uint64_t live, struct residue *r,
                           struct wx_error *err)
{
    int rc = WX_OK;
    const unsigned gv = grid_for(w->n);
    uint32_t *flag = w->col, *newid = w->reach, last[2];
    void *temp = NULL;
    size_t temp_bytes = 0;
    scc_live_flags<<<gv, SCC_BLOCK>>>(w->n, w->rep, flag);
    CUDA_CHECK_LAUNCH("scc_live_flags");
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, flag, newid, (int64_t)w->n));
    CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, flag, newid, (int64_t)w->n));
    CUDA_CHECK(cudaFree(temp));
    temp = NULL;
    CUDA_CHECK(cudaMemcpy(&last[0], newid + w->n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&last[1], flag + w->n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
    r->nl = (uint64_t)last[0] + last[1];
    if (r->nl != live) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                     "GPU SCC: internal error: %llu live vertices counted, %llu found",
                     (unsigned long long)live, (unsigned long long)r->nl);
        goto out;
    }
    if (r->nl == 0)
        goto out;
    CUDA_CHECK(cudaMalloc((void **)&r->cdeg, (r->nl + 1) * sizeof *r->cdeg));
    CUDA_CHECK(cudaMalloc((void **)&r->coff, (r->nl + 1) * sizeof *r->coff));
    CUDA_CHECK(cudaMalloc((void **)&r->orig, r->nl * sizeof *r->orig));
    CUDA_CHECK(cudaMemset(r->cdeg, 0, (r->nl + 1) * sizeof *r->cdeg));
    scc_res_degrees<<<gv, SCC_BLOCK>>>(w->n, w->off, w->tgt, w->rep, newid, r->cdeg, r->orig);
    CUDA_CHECK_LAUNCH("scc_res_degrees");
    CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, r->cdeg, r->coff, (int64_t)r->nl + 1));
    CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
    CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(temp, temp_bytes, r->cdeg, r->coff, (int64_t)r->nl + 1));
    CUDA_CHECK(cudaFree(temp));
    temp = NULL;
    CUDA_CHECK(cudaMemcpy(&r->ml, r->coff + r->nl, sizeof r->ml, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMalloc((void **)&r->ctgt, (r->ml ? r->ml : 1) * sizeof *r->ctgt));
    scc_res_fill<<<gv, SCC_BLOCK>>>(w->n, w->off, w->tgt, w->rep, newid, r->coff, r->ctgt);
    CUDA_CHECK_LAUNCH("scc_res_fill");
out:
    cudaFree(temp);
    return rc;
}

/* Tarjan over the compacted subgraph on the host; res->comp[i] becomes the
 * representative (original id of the smallest member) of compact vertex
 * i's component. */
static int residue_tarjan(const struct residue *r, struct scc_result *res, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t nl = r->nl, ml = r->ml;
    uint64_t *hoff = (uint64_t *)malloc((nl + 1) * sizeof *hoff);
    uint32_t *htgt = (uint32_t *)malloc((ml ? ml : 1) * sizeof *htgt);
    uint32_t *horig = (uint32_t *)malloc(nl * sizeof *horig), *repr = NULL;
    struct csr h;
    if (!hoff || !htgt || !horig) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                     "GPU SCC: out of host memory for the CPU residue (%llu vertices, %llu edges)",
                     (unsigned long long)nl, (unsigned long long)ml);
        goto out;
    }
    CUDA_CHECK(cudaMemcpy(hoff, r->coff, (nl + 1) * sizeof *hoff, cudaMemcpyDeviceToHost));
    if (ml)
        CUDA_CHECK(cudaMemcpy(htgt, r->ctgt, ml * sizeof *htgt, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(horig, r->orig, nl * sizeof *horig, cudaMemcpyDeviceToHost));
    memset(&h, 0, sizeof h);
    h.n_vertices = nl;
    h.n_edges = ml;
    h.offsets = hoff;
    h.targets = htgt;
    rc = scc_cpu(&h, res, err);
    if (rc != WX_OK)
        goto out;
    /* canonical ids: a component's first vertex in compact order is its
     * smallest member (compaction keeps the order) */
    repr = (uint32_t *)malloc((res->n_sccs ? res->n_sccs : 1) * sizeof *repr);
    if (!repr) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "GPU SCC: out of host memory");
        goto out;
    }
    for (uint64_t c = 0; c < res->n_sccs; c++)
        repr[c] = SCC_UNSET;
    for (uint64_t i = 0; i < nl; i++) {
        uint32_t c = res->comp[i];
        if (repr[c] == SCC_UNSET)
            repr[c] = horig[i];
        res->comp[i] = repr[c];
    }
out:
    free(hoff);
    free(htgt);
    free(horig);
    free(repr);
    return rc;
}

/* Hands the live rest to the CPU: compacts the subgraph induced by the
 * live vertices on the GPU, copies it to the host, runs Tarjan
 * (analysis/scc.h), and writes each live vertex's representative (the
 * smallest member of its component) back into rep. */
int scc_cpu_residue(struct scc_work *w, uint64_t *live, struct scc_gpu_stats *st,
                    struct wx_error *err)
{
    int rc = WX_OK;
    const double t0 = scc_now_ms();
    struct residue r;
    struct scc_result res;
    memset(&r, 0, sizeof r);
    memset(&res, 0, sizeof res);
    rc = residue_compact(w, *live, &r, err);
    if (rc != WX_OK || r.nl == 0)
        goto out;
    rc = residue_tarjan(&r, &res, err);
    if (rc != WX_OK)
        goto out;
    CUDA_CHECK(cudaMemcpy(r.cdeg, res.comp, r.nl * sizeof(uint32_t), cudaMemcpyHostToDevice));
    scc_res_scatter<<<grid_for(r.nl), SCC_BLOCK>>>((uint32_t)r.nl, r.orig, (const uint32_t *)r.cdeg,
                                                   w->rep);
    CUDA_CHECK_LAUNCH("scc_res_scatter");
    CUDA_CHECK(cudaDeviceSynchronize());
    st->residue_n = r.nl;
    st->residue_m = r.ml;
    *live = 0;
out:
    scc_result_free(&res);
    residue_free(&r);
    st->residue_ms += scc_now_ms() - t0;
    return rc;
}
