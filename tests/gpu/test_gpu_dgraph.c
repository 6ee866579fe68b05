/*
 * test_gpu_dgraph.c -- the device graph (graph/dgraph.h) on a GPU machine:
 * uploads of random labelled graphs come back unchanged (offsets, targets,
 * labels), dgraph_labels_at agrees with the host labels, bad requests fail
 * (an edge out of range, labels of an unlabelled graph), a view borrows
 * without freeing, and the GPU stages that take a struct dgraph agree with
 * their host-array twins on the same graph: scc_gpu_device with scc_cpu, and
 * cyclemean_howard_gpu_device (weights from labels) with
 * cyclemean_howard_gpu (the same weights as a host array: the same optimum,
 * component and per-component answers).  Built and run by
 * bench/gpu_test.sh only (not by `make test`).
 *
 *   test_gpu_dgraph [--quick] [--seed N] [--probe]
 *
 * Graphs: 0..2000 vertices (--quick: up to 60), self-loops and parallel
 * edges with distinct labels, a graph without edges, an unlabelled one.
 * The seed is printed; --seed replays.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/cyclemean.h"
#include "analysis/scc.h"
#include "graph/csr.h"
#include "graph/dgraph.h"
#include "kernels/scc_gpu.h"
#include "tests/check.h"
#include "tests/rng.h"

#define N_LABELS 7

static int quick;

/* A random graph of n vertices and about n * deg edges with labels below
 * N_LABELS (csr_builder: sorted, duplicates dropped). */
static int random_graph(uint64_t n, uint64_t deg, int labelled, struct csr *g)
{
    struct wx_error err;
    wx_error_clear(&err);
    struct csr_builder *b = csr_builder_new();
    int rc = b ? WX_OK : WX_ELIMIT;
    for (uint64_t i = 0; n && i < n * deg && rc == WX_OK; i++)
        rc = csr_builder_add(b, rnd_below(n), labelled ? (uint32_t)rnd_below(N_LABELS) : 0, rnd_below(n), &err);
    if (rc != WX_OK) {
        csr_builder_free(b);
        return rc;
    }
    rc = csr_builder_finish(b, n, NULL, g, &err);
    if (rc == WX_OK && !labelled) {
        free(g->labels);
        g->labels = NULL;
    }
    return rc;
}

/* Upload, download and label lookups of g. */
static void round_trip(const char *tag, const struct csr *g)
{
    struct dgraph dg;
    struct wx_error err;
    wx_error_clear(&err);
    const uint64_t n = g->n_vertices, m = g->n_edges;
    uint64_t *off = malloc((n + 1) * sizeof *off);
    uint32_t *tgt = malloc((m + 1) * sizeof *tgt), *lab = malloc((m + 1) * sizeof *lab);
    int rc = dgraph_upload(g, 1, &dg, &err);
    if (!check(rc == WX_OK && dg.owned && dg.n_vertices == n && dg.n_edges == m,
               "%s: upload (%llu vertices, %llu edges)%s%s", tag, (unsigned long long)n,
               (unsigned long long)m, rc ? ": " : "", rc ? err.msg : ""))
        goto out;
    check((dg.d_labels != NULL) == (g->labels != NULL && m > 0), "%s: labels on the device iff labelled", tag);
    rc = dgraph_download(&dg, off, tgt, g->labels ? lab : NULL, &err);
    check(rc == WX_OK && !memcmp(off, g->offsets, (n + 1) * sizeof *off) &&
              (m == 0 || !memcmp(tgt, g->targets, m * sizeof *tgt)) &&
              (m == 0 || !g->labels || !memcmp(lab, g->labels, m * sizeof *lab)),
          "%s: the download equals the host graph%s%s", tag, rc ? ": " : "", rc ? err.msg : "");
    if (g->labels && m) {
        uint64_t k = 1 + rnd_below(m < 50 ? m : 50);
        uint64_t *edges = malloc(k * sizeof *edges);
        uint32_t *got = malloc(k * sizeof *got);
        for (uint64_t i = 0; i < k; i++)
            edges[i] = rnd_below(m);
        rc = dgraph_labels_at(&dg, edges, k, got, &err);
        int same = rc == WX_OK;
        for (uint64_t i = 0; same && i < k; i++)
            same = got[i] == g->labels[edges[i]];
        check(same, "%s: dgraph_labels_at of %llu edges%s%s", tag, (unsigned long long)k, rc ? ": " : "",
              rc ? err.msg : "");
        edges[0] = m;
        rc = dgraph_labels_at(&dg, edges, 1, got, &err);
        check(rc == WX_EINPUT, "%s: edge %llu of %llu is refused (rc %d)", tag, (unsigned long long)m,
              (unsigned long long)m, rc);
        free(edges);
        free(got);
    } else if (m) {
        uint64_t e0 = 0;
        uint32_t l0;
        rc = dgraph_labels_at(&dg, &e0, 1, &l0, &err);
        check(rc == WX_EINPUT, "%s: labels of an unlabelled graph are refused (rc %d)", tag, rc);
    }
    /* a view of the same arrays: freeing it leaves them to the owner */
    struct dgraph view = dgraph_view(dg.n_vertices, dg.n_edges, dg.d_offsets, dg.d_targets, dg.d_labels);
    dgraph_free(&view);
    rc = dgraph_download(&dg, off, tgt, NULL, &err);
    check(rc == WX_OK && view.d_offsets == NULL && !memcmp(off, g->offsets, (n + 1) * sizeof *off),
          "%s: freeing a view keeps the owner's arrays%s%s", tag, rc ? ": " : "", rc ? err.msg : "");
    dgraph_free(&dg);
    check(dg.d_offsets == NULL && dg.n_vertices == 0 && !dg.owned, "%s: dgraph_free zeroes", tag);
out:
    free(off), free(tgt), free(lab);
}

/* scc_gpu_device and cyclemean_howard_gpu_device on the uploaded g against
 * scc_cpu and cyclemean_howard_gpu (host arrays) on g itself. */
static void stages(const char *tag, const struct csr *g, const int64_t *label_weight)
{
    struct dgraph dg;
    struct scc_result c, r;
    struct cm_result want[2], got[2];
    struct wx_error err;
    wx_error_clear(&err);
    memset(&dg, 0, sizeof dg), memset(&c, 0, sizeof c), memset(&r, 0, sizeof r);
    memset(want, 0, sizeof want), memset(got, 0, sizeof got);
    const uint64_t n = g->n_vertices, m = g->n_edges;
    uint32_t *d_comp = NULL, *ids = malloc((n + 1) * sizeof *ids);
    int64_t *w = malloc((m + 1) * sizeof *w);
    for (uint64_t e = 0; e < m; e++)
        w[e] = label_weight[g->labels[e]];
    int rc = scc_cpu(g, &c, &err);
    if (rc == WX_OK)
        rc = dgraph_upload(g, 1, &dg, &err);
    if (rc == WX_OK)
        rc = scc_gpu_ids_new(n, &d_comp, &err);
    if (rc == WX_OK)
        rc = scc_gpu_device(&dg, d_comp, &r, NULL, &err);
    if (rc == WX_OK)
        rc = scc_gpu_ids_download(d_comp, n, ids, &err);
    if (!check(rc == WX_OK && r.n_sccs == c.n_sccs && r.largest == c.largest &&
                   (n == 0 || !memcmp(ids, c.comp, n * sizeof *ids)),
               "%s: scc_gpu_device on the dgraph equals scc_cpu (%llu SCCs)%s%s", tag,
               (unsigned long long)c.n_sccs, rc ? ": " : "", rc ? err.msg : ""))
        goto out;
    struct cm_graph hg = {n, m, g->offsets, g->targets, w, NULL};
    for (int max = 0; max < 2; max++) {
        rc = cyclemean_howard_gpu(&hg, &c, max, &want[max], &err);
        if (rc == WX_OK)
            rc = cyclemean_howard_gpu_device(&dg, d_comp, label_weight, N_LABELS, &r, max, &got[max], &err);
        int same = rc == WX_OK && got[max].n_sccs == want[max].n_sccs &&
                   got[max].best.has_cycle == want[max].best.has_cycle &&
                   (!want[max].best.has_cycle ||
                    (got[max].best.num == want[max].best.num && got[max].best.den == want[max].best.den &&
                     got[max].best_scc == want[max].best_scc && got[max].cycle_len > 0));
        for (uint64_t k = 0; same && k < want[max].n_sccs; k++) {
            const struct cm_value *a = &got[max].per_scc[k], *b = &want[max].per_scc[k];
            same = a->has_cycle == b->has_cycle && (!a->has_cycle || (a->num == b->num && a->den == b->den));
        }
        check(same,
              "%s: %s cycle mean from the dgraph's labels equals the host-array solve (%lld/%lld)%s%s", tag,
              max ? "max" : "min", (long long)want[max].best.num, (long long)want[max].best.den, rc ? ": " : "",
              rc ? err.msg : "");
    }
    if (m) {
        struct dgraph bare = dgraph_view(dg.n_vertices, dg.n_edges, dg.d_offsets, dg.d_targets, NULL);
        struct cm_result x;
        rc = cyclemean_howard_gpu_device(&bare, d_comp, label_weight, N_LABELS, &r, 0, &x, &err);
        check(rc == WX_EINPUT, "%s: the device cycle mean refuses an unlabelled graph (rc %d)", tag, rc);
    }
out:
    for (int max = 0; max < 2; max++)
        cm_result_free(&want[max]), cm_result_free(&got[max]);
    scc_gpu_ids_free(d_comp);
    dgraph_free(&dg);
    scc_result_free(&c);
    scc_result_free(&r);
    free(ids);
    free(w);
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--probe"))
            return scc_gpu_available() ? 0 : 1;
        else {
            fprintf(stderr, "usage: test_gpu_dgraph [--quick] [--seed N] [--probe]\n");
            return 2;
        }
    }
    if (!scc_gpu_available()) {
        check(0, "gpu: no usable CUDA device; test_gpu_dgraph needs one");
        return check_exit();
    }
    printf("# test_gpu_dgraph seed %llu%s\n", (unsigned long long)seed, quick ? " (quick)" : "");
    rng_state = seed | 1;
    const int count = quick ? 6 : 60;
    for (int i = 0; i < count; i++) {
        char tag[64];
        const uint64_t n = i == 0 ? 1 : 1 + rnd_below(quick ? 60 : i % 3 ? 200 : 2000);
        const uint64_t deg = i == 1 ? 0 : 1 + rnd_below(3);
        const int labelled = i != 2;
        struct csr g;
        snprintf(tag, sizeof tag, "graph %d (seed %llu)", i, (unsigned long long)seed);
        if (!check(random_graph(n, deg, labelled, &g) == WX_OK, "%s: built", tag))
            continue;
        round_trip(tag, &g);
        if (labelled) {
            int64_t lw[N_LABELS];
            for (int l = 0; l < N_LABELS; l++)
                lw[l] = (int64_t)rnd_below(2001) - 1000;
            stages(tag, &g, lw);
        }
        csr_free(&g);
    }
    printf("# %d passed, %d failed (seed %llu)\n", check_passes, check_failures, (unsigned long long)seed);
    return check_exit();
}
