/*
 * ids.cu -- after the exploration: dense state ids, the violation's trace
 * and the state vectors.
 *
 * Slots of a bucket fill in order, so the published slots of bucket b are
 * k = 0 .. count(b)-1, and rank(slot) = prefix[b] + k numbers the states
 * densely in slot order (count_buckets, then a prefix scan).  The initial
 * state must get id 0: ids are ranks with ranks 0 and r0 = rank(initial)
 * swapped.
 */
#include <cub/device/device_scan.cuh>

#include <stdlib.h>
#include <string.h>

#include "gx.h"

/* rank -> id with the initial state first */
static uint64_t gx_id_of_rank(uint64_t r, uint64_t r0)
{
    return r == r0 ? 0 : (r == 0 ? r0 : r);
}

/* Id of one slot (host side, through the prefix array). */
int gx_slot_id(struct gx *g, uint64_t slot, uint64_t r0, uint64_t *id, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t bk = slot / g->p.spb;
    unsigned long long pre = 0;
    CUDA_CHECK(cudaMemcpy(&pre, g->d_prefix + bk, 8, cudaMemcpyDeviceToHost));
    *id = gx_id_of_rank(pre + (slot - bk * g->p.spb), r0);
out:
    return rc;
}

/* Reads the words of a stored vector (flag stripped) into v (img words). */
static int gx_slot_vector(struct gx *g, uint64_t slot, uint32_t words, uint32_t *v, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t bk = slot / g->p.spb;
    const uint32_t *src = g->p.table + bk * g->p.bw + (slot - bk * g->p.spb) * g->p.sw;
    CUDA_CHECK(cudaMemcpy(v, src, (size_t)words * 4, cudaMemcpyDeviceToHost));
    if (words == g->p.sw)
        v[words - 1] &= GPU_LOW31;
out:
    return rc;
}

/* Maps the table slots of n edges (device arrays) to dense ids in place. */
int gx_map_edges(struct gx *g, unsigned long long *d_src, unsigned long long *d_dst, uint64_t n, uint64_t r0,
                        struct wx_error *err)
{
    int rc = WX_OK;
    if (n == 0)
        return WX_OK;
    CUDA_CHECK_NAMED(gx_launch_map_slots(g->d_prefix, g->p.spb, r0, d_src, n), "launch of map_slots");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "map_slots");
    CUDA_CHECK_NAMED(gx_launch_map_slots(g->d_prefix, g->p.spb, r0, d_dst, n), "launch of map_slots");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "map_slots");
out:
    return rc;
}

/* The bucket prefix sums (g->d_prefix) and the rank of the initial state
 * (*r0), when the results need dense ids. */
int gx_dense_ids(struct gx *g, uint64_t *r0, struct wx_error *err)
{
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    const struct gpu_ctl &ctl = g->ctl;
    void *d;
    *r0 = 0;
    {
        if ((rc = gx_malloc(g, &d, (p.nbuckets + 1) * 8, "bucket prefix sums", err)))
            goto out;
        g->d_prefix = (unsigned long long *)d;
        CUDA_CHECK_NAMED(gx_launch_count_buckets(p, g->d_prefix, 2 * g->prop.multiProcessorCount * 4),
                         "launch of count_buckets");
        CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "count_buckets");
        size_t tb = 0;
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, tb, g->d_prefix, g->d_prefix, (long long)p.nbuckets + 1));
        void *tmp = NULL;
        if ((rc = gx_malloc(g, &tmp, tb, "scan workspace", err)))
            goto out;
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, tb, g->d_prefix, g->d_prefix, (long long)p.nbuckets + 1));
        CUDA_CHECK_LAUNCH("prefix scan");
        CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "prefix scan");
        unsigned long long total = 0;
        CUDA_CHECK(cudaMemcpy(&total, g->d_prefix + p.nbuckets, 8, cudaMemcpyDeviceToHost));
        if (total != ctl.n_states) {
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU table holds %llu vectors but %llu were counted",
                         total, ctl.n_states);
            goto out;
        }
        const uint64_t bk0 = ctl.init_slot / p.spb;
        unsigned long long pre0 = 0;
        CUDA_CHECK(cudaMemcpy(&pre0, g->d_prefix + bk0, 8, cudaMemcpyDeviceToHost));
        *r0 = pre0 + (ctl.init_slot - bk0 * p.spb);
    }
out:
    return rc;
}

/* The trace to the violation at slot vslot: its parent chain back to the
 * initial state, with ids, vectors and labels, into g->res->trace. */
int gx_trace(struct gx *g, uint64_t vslot, uint64_t r0, struct wx_error *err)
{
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    const struct gpu_ctl &ctl = g->ctl;
    struct explore_result *res = g->res;
    const uint32_t W = g->img->words, SW = p.sw;
    {
        /* parent chain, from the violation back to the initial state */
        uint64_t len = res->violation == VIOLATION_ACTION ? 1 : 0;
        size_t cap = 64, m = 0;
        unsigned long long *chain = (unsigned long long *)malloc(cap * 8);
        uint32_t *labs = (uint32_t *)malloc(cap * 4);
        if (!chain || !labs) {
            free(chain), free(labs);
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory building a trace");
            goto out;
        }
        for (unsigned long long s = vslot;;) {
            if (m == cap) {
                cap *= 2;
                unsigned long long *c2 = (unsigned long long *)realloc(chain, cap * 8);
                uint32_t *l2 = (uint32_t *)realloc(labs, cap * 4);
                if (c2)
                    chain = c2;
                if (l2)
                    labs = l2;
                if (!c2 || !l2) {
                    free(chain), free(labs);
                    rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory building a trace");
                    goto out;
                }
            }
            unsigned long long par = 0;
            uint32_t pl = 0;
            cudaError_t e1 = cudaMemcpy(&par, p.parent + s, 8, cudaMemcpyDeviceToHost);
            cudaError_t e2 = cudaMemcpy(&pl, p.parent_label + s, 4, cudaMemcpyDeviceToHost);
            if (e1 != cudaSuccess || e2 != cudaSuccess || m > ctl.n_states) {
                free(chain), free(labs);
                rc = e1 != cudaSuccess || e2 != cudaSuccess
                         ? wx_cuda_fail(err, e1 != cudaSuccess ? e1 : e2, "reading parent links", __FILE__, __LINE__)
                         : wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU parent links form a cycle");
                goto out;
            }
            chain[m] = s;
            labs[m] = pl;
            m++;
            if (par == GPU_NO_SLOT)
                break;
            s = par;
        }
        len += m - 1;
        struct trace *tr = &res->trace;
        tr->len = (uint32_t)len;
        tr->labels = (uint32_t *)malloc((len ? len : 1) * 4);
        tr->states = (uint64_t *)malloc((len + 1) * 8);
        tr->vectors = (uint32_t *)malloc((len + 1) * W * 4);
        if (!tr->labels || !tr->states || !tr->vectors) {
            free(chain), free(labs);
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory building a trace");
            goto out;
        }
        /* chain[m-1] is the initial state; chain[0] the violation state */
        for (size_t i = 0; i < m && !rc; i++) {
            const size_t pos = m - 1 - i;
            rc = gx_slot_id(g, chain[i], r0, &tr->states[pos], err);
            if (!rc)
                rc = gx_slot_vector(g, chain[i], W, tr->vectors + pos * W, err);
            if (pos > 0)
                tr->labels[pos - 1] = labs[i];
        }
        free(chain), free(labs);
        if (rc)
            goto out;
        if (res->violation == VIOLATION_ACTION) {
            tr->labels[len - 1] = ctl.viol_label;
            if ((rc = gx_slot_id(g, ctl.viol_act_dst, r0, &tr->states[len], err)))
                goto out;
            memcpy(tr->vectors + len * W, ctl.viol_vec, (size_t)W * 4);
            if (W == SW)
                tr->vectors[len * W + W - 1] &= GPU_LOW31;
        }
    }
out:
    return rc;
}

/* Every state's vector, by id, into g->res->vectors (keep_vectors). */
int gx_vectors(struct gx *g, uint64_t r0, struct wx_error *err)
{
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    struct explore_result *res = g->res;
    const struct gpu_ctl &ctl = g->ctl;
    const uint32_t W = g->img->words;
    {
        const uint64_t ns = ctl.n_states;
        res->vectors = (uint32_t *)malloc((ns ? ns : 1) * W * 4);
        if (!res->vectors) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory for %llu vectors",
                         (unsigned long long)ns);
            goto out;
        }
        /* stage in chunks of at most 64 MiB */
        uint64_t chunk = (64ull << 20) / (W * 4ull);
        if (chunk > ns)
            chunk = ns ? ns : 1;
        void *sp = NULL;
        if ((rc = gx_malloc(g, &sp, chunk * W * 4, "vector staging", err)))
            goto out;
        uint32_t *stage = (uint32_t *)sp;
        for (uint64_t lo2 = 0; lo2 < ns; lo2 += chunk) {
            const uint64_t hi2 = lo2 + chunk < ns ? lo2 + chunk : ns;
            CUDA_CHECK_NAMED(gx_launch_gather_vectors(p, g->d_prefix, r0, lo2, hi2, W, stage,
                                                      2 * g->prop.multiProcessorCount * 4),
                             "launch of gather_vectors");
            CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "gather_vectors");
            CUDA_CHECK(cudaMemcpy(res->vectors + lo2 * W, stage, (hi2 - lo2) * W * 4, cudaMemcpyDeviceToHost));
        }
    }
out:
    return rc;
}
