/*
 * test_scc_gpu_api.c -- the GPU SCC entry points as seen from a build that
 * may have no GPU (make test runs everywhere): without a usable device,
 * scc_gpu_available() says 0 and scc_gpu() fails with WX_EINPUT and an
 * empty result (never a silent answer); with one, scc_gpu equals scc_cpu on
 * a few small graphs (the thorough comparison is tests/gpu/test_gpu_scc.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scc.h"
#include "kernels/scc_gpu.h"
#include "tests/check.h"
#include "tests/rng.h"

static int build(uint64_t n, uint64_t m, struct csr *g)
{
    struct csr_builder *b = csr_builder_new();
    struct wx_error err;
    wx_error_clear(&err);
    for (uint64_t i = 0; i < m; i++)
        if (csr_builder_add(b, rnd_below(n), 0, rnd_below(n), &err) != WX_OK) {
            csr_builder_free(b);
            return -1;
        }
    return csr_builder_finish(b, n, NULL, g, &err);
}

int main(void)
{
    struct wx_error err;
    wx_error_clear(&err);
    rng_state = 4242;
    struct csr g;
    if (!check(build(50, 90, &g) == WX_OK, "graph built"))
        return check_exit();
    struct scc_result r;
    memset(&r, 0xab, sizeof r);
    if (!scc_gpu_available()) {
        int rc = scc_gpu(&g, &r, &err);
        check(rc == WX_EINPUT && r.comp == NULL && r.n_sccs == 0,
              "no GPU: scc_gpu fails with exit code 2 and an empty result (rc %d: %s)", rc, err.msg);
        check(strstr(err.msg, "CUDA") != NULL, "no GPU: the message names CUDA ('%s')", err.msg);
        struct dgraph dg;
        memset(&dg, 0xab, sizeof dg);
        wx_error_clear(&err);
        rc = dgraph_upload(&g, 1, &dg, &err);
        check(rc == WX_OK || (dg.d_offsets == NULL && dg.d_targets == NULL && dg.d_labels == NULL &&
                              dg.n_vertices == 0 && !dg.owned),
              "no GPU: a failed dgraph_upload leaves a zeroed graph (rc %d)", rc);
        dgraph_free(&dg); /* a CUDA build on a machine whose driver has no device may upload nothing */
        check(dg.d_offsets == NULL && dg.n_edges == 0, "dgraph_free zeroes the graph");
        /* a view's arrays belong to someone else: freeing it only forgets
         * them (these pointers were never allocated) */
        uint64_t fake_off[2] = {0, 0};
        uint32_t fake_tgt[1] = {0};
        dg = dgraph_view(1, 0, fake_off, fake_tgt, NULL);
        check(!dg.owned && dg.n_vertices == 1 && dg.d_offsets == fake_off, "dgraph_view borrows");
        dgraph_free(&dg);
        check(dg.d_offsets == NULL && dg.d_targets == NULL && dg.n_vertices == 0,
              "dgraph_free of a view zeroes it");
        scc_result_free(&r);
    } else {
        for (int i = 0; i < 20; i++) {
            struct csr h;
            struct scc_result c, d;
            build(1 + rnd_below(300), rnd_below(600), &h);
            int ok = scc_cpu(&h, &c, &err) == WX_OK && scc_gpu(&h, &d, &err) == WX_OK &&
                     c.n_sccs == d.n_sccs && c.n_trivial == d.n_trivial && c.largest == d.largest &&
                     c.n_bottom == d.n_bottom &&
                     !memcmp(c.comp, d.comp, h.n_vertices * sizeof *c.comp);
            check(ok, "GPU: graph %d (%llu vertices) decomposes as Tarjan does%s%s", i,
                  (unsigned long long)h.n_vertices, ok ? "" : ": ", ok ? "" : err.msg);
            scc_result_free(&c);
            scc_result_free(&d);
            csr_free(&h);
        }
    }
    csr_free(&g);
    return check_exit();
}
