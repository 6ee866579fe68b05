/*
 * table.cu -- the GPU explorer's state table and work queues: allocation
 * (gx_table) and growth (gx_grow).
 *
 * The table (with the work queues, parent links and bucket prefix sums)
 * takes the device's free memory less a slack, or options.gpu.hash_bytes
 * for the table alone, or at most options.memory_bytes (plan.cu).  In the
 * asynchronous mode without a graph that is only the table's limit: it
 * starts at GX_GROW_FROM (or GX_GROW_FROM_SLOTS slots where slots are wider)
 * and grows (gx_grow).
 */
#include <stdlib.h>

#include "gx.h"

/* Work-queue entries for a table of `slots` slots. */
uint64_t gx_qcap(int level, const struct gpu_tuning *tun, uint64_t slots)
{
    uint64_t qcap;
    if (level)
        qcap = slots;
    else if (tun->queue_cap)
        qcap = tun->queue_cap;
    else
        qcap = slots / 8 > (1ull << 20) ? slots / 8 : (slots < (1ull << 20) ? slots : (1ull << 20));
    return qcap < 1 ? 1 : qcap;
}

/* (Re)allocates the table of nb buckets, cleared, and the two work queues
 * sized for it; the old ones (if any) are freed first. */
int gx_table(struct gx *g, uint64_t nb, struct wx_error *err)
{
    int rc = WX_OK;
    const int level = g->level;
    const struct gpu_tuning *tun = g->tun;
    struct gpu_params &p = g->p;
    void *d = NULL;
    if (p.table)
        gx_release(g, p.table);
    for (int i = 0; i < 2; i++)
        if (g->q[i])
            gx_release(g, g->q[i]);
    p.table = NULL;
    g->q[0] = g->q[1] = NULL;
    const uint64_t bytes = nb * p.bw * 4ull;
    if ((rc = gx_malloc(g, &d, bytes, "the state table", err)))
        return rc;
    p.table = (uint32_t *)d;
    p.nbuckets = nb;
    gx_mark(g, "  table: cudaMalloc %llu bytes", (unsigned long long)bytes);
    CUDA_CHECK(cudaMemset(p.table, 0xff, bytes));
    gx_mark(g, "  table: cleared");
    {
        const uint64_t qcap = gx_qcap(level, tun, nb * p.spb);
        for (int i = 0; i < 2; i++) {
            if ((rc = gx_malloc(g, &d, qcap * 8, "work queues", err)))
                return rc;
            g->q[i] = (unsigned long long *)d;
        }
        p.q_cap = qcap;
    }
out:
    return rc;
}

/* Replaces the table by one of nb buckets (asynchronous mode without a
 * graph, between launches; see table_kernels.cuh, "growing the table").
 * g->ctl is the host's copy of the control block: the pending work is
 * moved into the new input queue (or left new for the scanners) and g->ctl
 * is set up for the next launch.  A kernel error (table full, ...) is left
 * in g->ctl.error for the caller. */
int gx_grow(struct gx *g, uint64_t nb, struct wx_error *err)
{
    const int level = g->level;
    const struct gpu_tuning *tun = g->tun;
    const uint32_t blocks = g->blocks;
    struct gpu_ctl *ctl = &g->ctl;
    struct gpu_run_stats *st = &g->st;
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    const double t0 = gx_now();
    const uint32_t sw = p.sw;
    const unsigned long long n = ctl->n_states;
    const int grid = 4 * g->prop.multiProcessorCount;
    void *dx = NULL, *df = NULL;
    uint32_t *hx = NULL;
    uint8_t *hf = NULL;
    unsigned long long gc[4] = {0, 0, 0, 0};
    CUDA_CHECK(cudaMemcpy(g->d_ctl, ctl, sizeof *ctl, cudaMemcpyHostToDevice));
    /* 1. the pending states become new again */
    if (ctl->q_in_head < ctl->q_in_len) {
        CUDA_CHECK_NAMED(gx_launch_mark_pending(p, p.q_in + ctl->q_in_head, ctl->q_in_len - ctl->q_in_head, grid),
                         "launch of mark_pending");
    }
    {
        const unsigned long long outn = ctl->q_out_len < p.q_cap ? ctl->q_out_len : p.q_cap;
        if (outn) {
            CUDA_CHECK_NAMED(gx_launch_mark_pending(p, p.q_out, outn, grid), "launch of mark_pending");
        }
    }
    if (p.saved) {
        CUDA_CHECK_NAMED(gx_launch_mark_saved(p, blocks), "launch of mark_saved");
    }
    /* 2. every vector out, with its new bit */
    if ((rc = gx_malloc(g, &dx, n * sw * 4, "table growth (vectors)", err)) ||
        (rc = gx_malloc(g, &df, n, "table growth (flags)", err)))
        goto out;
    CUDA_CHECK(cudaMemset(g->d_gc, 0, 4 * 8));
    gx_mark(g, "  grow: pending marked, vector buffers allocated");
    CUDA_CHECK_NAMED(gx_launch_compact_table(p, (uint32_t *)dx, (uint8_t *)df, n, g->d_gc, grid),
                     "launch of compact_table");
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "compact_table");
    gx_mark(g, "  grow: compacted %llu vectors", n);
    CUDA_CHECK(cudaMemcpy(gc, g->d_gc, 4 * 8, cudaMemcpyDeviceToHost));
    if (gc[0] != n) {
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "growing the GPU table: it holds %llu vectors but %llu were counted",
                     gc[0], n);
        goto out;
    }
    {
        /* 3. the new table; the vectors wait in host memory when they do
         * not fit beside it (the last growth of a large exploration) */
        gx_release(g, p.table);
        gx_release(g, g->q[0]);
        gx_release(g, g->q[1]);
        p.table = NULL;
        g->q[0] = g->q[1] = NULL;
        gx_mark(g, "  grow: old table freed");
        size_t fr = 0, tot = 0;
        CUDA_CHECK(cudaMemGetInfo(&fr, &tot));
        const uint64_t need = nb * p.bw * 4ull + 2 * gx_qcap(level, tun, nb * p.spb) * 8 + (256ull << 20);
        if (fr < need || tun->grow_via_host) {
            hx = (uint32_t *)malloc(n * sw * 4 + 1);
            hf = (uint8_t *)malloc(n + 1);
            if (!hx || !hf) {
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory growing the GPU table");
                goto out;
            }
            CUDA_CHECK(cudaMemcpy(hx, dx, n * sw * 4, cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaMemcpy(hf, df, n, cudaMemcpyDeviceToHost));
            gx_release(g, dx);
            gx_release(g, df);
            dx = df = NULL;
        }
        if ((rc = gx_table(g, nb, err)))
            goto out;
        /* 4. rehash; the new states into q[0], the next input queue */
        p.q_out = g->q[0];
        CUDA_CHECK(cudaMemset(g->d_gc, 0, 4 * 8));
        if (!hx) {
            CUDA_CHECK_NAMED(gx_launch_reinsert(p, (const uint32_t *)dx, (const uint8_t *)df, n, g->d_gc, grid),
                             "launch of reinsert");
            CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "reinsert");
        } else {
            uint64_t chunk = (256ull << 20) / (sw * 4 + 1);
            if (chunk > n)
                chunk = n ? n : 1;
            if ((rc = gx_malloc(g, &dx, chunk * sw * 4, "table growth (chunk)", err)) ||
                (rc = gx_malloc(g, &df, chunk, "table growth (chunk flags)", err)))
                goto out;
            for (uint64_t i = 0; i < n; i += chunk) {
                const uint64_t m = n - i < chunk ? n - i : chunk;
                CUDA_CHECK(cudaMemcpy(dx, hx + i * sw, m * sw * 4, cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemcpy(df, hf + i, m, cudaMemcpyHostToDevice));
                CUDA_CHECK_NAMED(gx_launch_reinsert(p, (const uint32_t *)dx, (const uint8_t *)df, m, g->d_gc, grid),
                                 "launch of reinsert");
                CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "reinsert");
            }
        }
        gx_mark(g, "  grow: reinserted");
        gx_release(g, dx);
        gx_release(g, df);
        dx = df = NULL;
        gx_mark(g, "  grow: vector buffers freed");
        unsigned long long gc2[4];
        CUDA_CHECK(cudaMemcpy(gc2, g->d_gc, 4 * 8, cudaMemcpyDeviceToHost));
        {
            /* error and init_slot are all the kernels changed */
            struct gpu_ctl dc;
            CUDA_CHECK(cudaMemcpy(&dc, g->d_ctl, sizeof dc, cudaMemcpyDeviceToHost));
            ctl->error = dc.error;
            ctl->stop = dc.stop;
            ctl->init_slot = dc.init_slot;
        }
        if (ctl->error)
            goto out;
        const unsigned long long pushed = gc2[2] < p.q_cap ? gc2[2] : p.q_cap;
        ctl->n_claimed = n - (gc[1] - pushed);
        ctl->q_in_len = pushed;
        ctl->q_in_head = 0;
        ctl->q_out_len = 0;
        ctl->n_saved = 0;
        p.q_in = g->q[0];
        p.q_out = g->q[1];
        g->cur_out = 1;
        if (p.saved)
            CUDA_CHECK(cudaMemset(p.saved, 0, (size_t)blocks * (p.T + 1) * 8));
    }
    st->grows++;
    st->table_slots = p.nbuckets * p.spb;
    st->table_bytes = p.nbuckets * p.bw * 4ull;
out:
    if (dx)
        gx_release(g, dx);
    if (df)
        gx_release(g, df);
    free(hx);
    free(hf);
    st->grow_seconds += gx_now() - t0;
    return rc;
}
