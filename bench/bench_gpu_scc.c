/*
 * bench_gpu_scc.c -- times the GPU SCC decomposition against Tarjan on one
 * graph, for bench/bench_gpu_scc.sh.
 *
 *   bench_gpu_scc FILE [--name NAME] [--reps R] [--no-tarjan]
 *
 * FILE is a graphgen .egr (little-endian int32 n, int32 m, int32
 * offsets[n+1], int32 targets[m]; ../shared/tools/graphgen.c) or anything
 * graph_read accepts.  Uploads the graph once (timed), runs the device
 * decomposition once to warm up and R more times (best and median of the
 * whole decomposition, graph already on the device; phases of the best
 * run), downloads the ids, runs Tarjan (scc_cpu, one core) and compares
 * the partitions (canonical ids and counts).  The last line is
 *   RESULT name n m sccs largest best_ms median_ms upload_ms download_ms
 *          transpose_ms trim_ms pivot_ms colour_ms relabel_ms stats_ms rounds
 *          trim_sweeps levels tarjan_ms equal
 * Exit 1 when the partitions differ, 2/3/4 on errors (wx codes).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/scc.h"
#include "../graph/graph_read.h"
#include "../kernels/scc_gpu.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

/* The .egr reader (bench only: the format has no magic and 32-bit sizes). */
static int read_egr(const char *path, struct csr *g, struct wx_error *err)
{
    memset(g, 0, sizeof *g);
    FILE *f = fopen(path, "rb");
    if (!f)
        return wx_fail(err, WX_EINPUT, path, 0, 0, "cannot open");
    int32_t hdr[2];
    int rc = WX_OK;
    if (fread(hdr, 4, 2, f) != 2 || hdr[0] < 0 || hdr[1] < 0) {
        rc = wx_fail(err, WX_EINPUT, path, 0, 0, "bad .egr header");
        goto out;
    }
    g->n_vertices = (uint64_t)hdr[0];
    g->n_edges = (uint64_t)hdr[1];
    g->offsets = malloc((g->n_vertices + 1) * sizeof *g->offsets);
    g->targets = malloc((g->n_edges ? g->n_edges : 1) * sizeof *g->targets);
    int32_t *off = malloc((g->n_vertices + 1) * sizeof *off);
    if (!g->offsets || !g->targets || !off) {
        free(off);
        rc = wx_fail(err, WX_ELIMIT, path, 0, 0, "out of memory");
        goto out;
    }
    if (fread(off, 4, g->n_vertices + 1, f) != g->n_vertices + 1 ||
        fread(g->targets, 4, g->n_edges, f) != g->n_edges) {
        free(off);
        rc = wx_fail(err, WX_EINPUT, path, 0, 0, "truncated .egr");
        goto out;
    }
    for (uint64_t v = 0; v <= g->n_vertices; v++)
        g->offsets[v] = (uint64_t)(uint32_t)off[v];
    free(off);
    if (g->offsets[0] != 0 || g->offsets[g->n_vertices] != g->n_edges) {
        rc = wx_fail(err, WX_EINPUT, path, 0, 0, "offsets do not span the edges");
        goto out;
    }
    for (uint64_t v = 0; v < g->n_vertices; v++)
        if (g->offsets[v] > g->offsets[v + 1]) {
            rc = wx_fail(err, WX_EINPUT, path, 0, 0, "offsets decrease");
            goto out;
        }
    for (uint64_t e = 0; e < g->n_edges; e++)
        if (g->targets[e] >= g->n_vertices) {
            rc = wx_fail(err, WX_EINPUT, path, 0, 0, "target out of range");
            goto out;
        }
out:
    fclose(f);
    if (rc != WX_OK)
        csr_free(g);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *name = NULL;
    int reps = 5, tarjan = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--name") && i + 1 < argc)
            name = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-tarjan"))
            tarjan = 0;
        else if (!path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: bench_gpu_scc FILE [--name NAME] [--reps R] [--no-tarjan]\n");
            return 2;
        }
    }
    if (!path || reps < 1 || reps > 100) {
        fprintf(stderr, "usage: bench_gpu_scc FILE [--name NAME] [--reps R] [--no-tarjan]\n");
        return 2;
    }
    if (!name)
        name = path;
    struct wx_error err;
    wx_error_clear(&err);
    struct csr g;
    double t = now_ms();
    int rc = has_suffix(path, ".egr") ? read_egr(path, &g, &err) : graph_read(path, &g, &err);
    if (rc != WX_OK) {
        fprintf(stderr, "bench_gpu_scc: %s: %s\n", path, err.msg);
        return rc;
    }
    fprintf(stderr, "# %s: %llu vertices, %llu edges, read in %.0f ms\n", name,
            (unsigned long long)g.n_vertices, (unsigned long long)g.n_edges, now_ms() - t);

    struct scc_gpu_graph dg;
    uint32_t *d_comp = NULL;
    t = now_ms();
    rc = scc_gpu_upload(&g, &dg, &err);
    double upload_ms = now_ms() - t;
    if (rc == WX_OK)
        rc = scc_gpu_ids_new(g.n_vertices, &d_comp, &err);
    struct scc_result r;
    struct scc_gpu_stats st, best;
    memset(&best, 0, sizeof best);
    double times[101];
    for (int k = 0; k <= reps && rc == WX_OK; k++) {
        rc = scc_gpu_device(&dg, d_comp, &r, &st, &err);
        if (rc != WX_OK)
            break;
        fprintf(stderr,
                "# run %d: %.3f ms (transpose %.3f, trim %.3f in %u sweeps (%llu vertices), pivot "
                "%.3f in %u levels (SCC of %llu), colour %.3f in %u rounds, %u levels in all, "
                "relabel %.3f, counts %.3f)\n",
                k, st.total_ms, st.transpose_ms, st.trim_ms, st.trim_sweeps,
                (unsigned long long)st.trimmed, st.pivot_ms, st.pivot_levels,
                (unsigned long long)st.pivot_scc, st.colour_ms, st.rounds, st.levels,
                st.relabel_ms, st.stats_ms);
        if (k == 0)
            continue; /* warm-up */
        times[k - 1] = st.total_ms;
        if (k == 1 || st.total_ms < best.total_ms)
            best = st;
    }
    uint32_t *ids = NULL;
    double download_ms = 0;
    if (rc == WX_OK) {
        ids = malloc(g.n_vertices * sizeof *ids + 1);
        t = now_ms();
        rc = ids ? scc_gpu_ids_download(d_comp, g.n_vertices, ids, &err)
                 : wx_fail(&err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        download_ms = now_ms() - t;
    }
    scc_gpu_ids_free(d_comp);
    scc_gpu_graph_free(&dg);
    if (rc != WX_OK) {
        fprintf(stderr, "bench_gpu_scc: %s: GPU: %s\n", name, err.msg);
        free(ids);
        csr_free(&g);
        return rc;
    }
    qsort(times, (size_t)reps, sizeof *times, cmp_double);

    double tarjan_ms = -1;
    int equal = -1;
    if (tarjan) {
        struct scc_result c;
        t = now_ms();
        rc = scc_cpu(&g, &c, &err);
        tarjan_ms = now_ms() - t;
        if (rc != WX_OK) {
            fprintf(stderr, "bench_gpu_scc: %s: Tarjan: %s\n", name, err.msg);
            free(ids);
            csr_free(&g);
            return rc;
        }
        equal = c.n_sccs == r.n_sccs && c.n_trivial == r.n_trivial && c.largest == r.largest &&
                c.n_bottom == r.n_bottom && c.n_bottom_trivial == r.n_bottom_trivial &&
                c.n_in_nontrivial == r.n_in_nontrivial &&
                (g.n_vertices == 0 || !memcmp(c.comp, ids, g.n_vertices * sizeof *ids));
        scc_result_free(&c);
    }
    printf("RESULT %s %llu %llu %llu %llu %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %u "
           "%u %u %.1f %s\n",
           name, (unsigned long long)g.n_vertices, (unsigned long long)g.n_edges,
           (unsigned long long)r.n_sccs, (unsigned long long)r.largest, best.total_ms,
           times[(reps - 1) / 2], upload_ms, download_ms, best.transpose_ms, best.trim_ms,
           best.pivot_ms, best.colour_ms, best.relabel_ms, best.stats_ms, best.rounds,
           best.trim_sweeps, best.levels, tarjan_ms, equal < 0 ? "n/a" : equal ? "yes" : "NO");
    free(ids);
    csr_free(&g);
    return equal == 0 ? 1 : 0;
}
