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
        struct scc_gpu_graph dg;
        wx_error_clear(&err);
        rc = scc_gpu_upload(&g, &dg, &err);
        if (rc == WX_OK) /* a CUDA build on a machine whose driver has no device may upload nothing */
            scc_gpu_graph_free(&dg);
        check(1, "no GPU: scc_gpu_upload returns (rc %d)", rc);
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
