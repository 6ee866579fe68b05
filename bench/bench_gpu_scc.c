/*
 * bench_gpu_scc.c -- times the GPU SCC decomposition against Tarjan on one
 * graph, for bench/bench_gpu_scc.sh.
 *
 *   bench_gpu_scc FILE [--name NAME] [--reps R] [--no-tarjan]
 *                 [--variants | --variants-new | --variant-list NAME,NAME...]
 *
 * FILE is a graphgen .egr (little-endian int32 n, int32 m, int32
 * offsets[n+1], int32 targets[m]; bench/graphgen.c) or anything
 * graph_read accepts.  Uploads the graph once (timed), runs the device
 * decomposition once to warm up and R more times (best and median of the
 * whole decomposition, graph already on the device; phases of the best
 * run), downloads the ids, runs Tarjan (scc_cpu, one core) and compares
 * the partitions (canonical ids and counts).  --variants also times the
 * strategy variants of struct scc_gpu_tuning (VARIANT lines: without the
 * pivot search, without trimming, colouring backward first, one launch per
 * level instead of the persistent engines, without chain following, with
 * 64 chain hops, the transpose by counting instead of a radix sort, 1, 4,
 * 0, 1, 2, 4, 8, 16 or all multi-source rounds, with and without the pivot search, the
 * CPU residue off, forced, or on budgets of 3 or 40 ns per item, the
 * pivot searches without warp-shared wide vertices, without local
 * expansion, or with 4 local steps, the first trim without small-SCC
 * detection or with a closure bound of 16, 18, 20, 22 or 24, with 1 or 2
 * chain steps on wide levels (trim_hops), or the symmetric check off);
 * each variant's ids must equal the default's (IDS DIFFER and exit 1
 * otherwise); --variants-new times only the multi-source and residue
 * variants.
 *   bench_gpu_scc --mec-random N
 * times mec_cpu against mec_gpu (incl. upload and download) on a random MDP
 * of N states and prints MECRESULT name states choices entries mecs rounds
 * gpu_ms cpu_ms equal.  The last line of the SCC mode is
 *   RESULT name n m sccs largest best_ms median_ms upload_ms download_ms
 *          transpose_ms trim_ms pivot_ms colour_ms relabel_ms stats_ms rounds
 *          trim_sweeps levels tarjan_ms equal fb_rounds fb_ms residue_vertices
 *          residue_ms
 * Exit 1 when the partitions differ, 2/3/4 on errors (wx codes).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/mec.h"
#include "../analysis/scc.h"
#include "../graph/graph_read.h"
#include "../kernels/scc_gpu.h"

#define TRIM_DEFAULT_SHARE 64

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

/* --mec-random N: a random MDP of N states (1-3 choices of 1-3 entries,
 * targets within +-3 of the state, as in tests/gpu/test_gpu_mec.c shape 1,
 * plus 1/8 far targets), timed with mec_cpu and mec_gpu; results compared. */
static uint64_t xs = 0x9E3779B97F4A7C15ull;
static uint64_t xr(uint64_t n)
{
    xs ^= xs << 13;
    xs ^= xs >> 7;
    xs ^= xs << 17;
    return xs % n;
}

static int bench_mec(uint64_t n)
{
    struct mdp m;
    memset(&m, 0, sizeof m);
    m.n_states = n;
    m.state_start = calloc(n + 1, sizeof *m.state_start);
    m.choice_start = calloc(3 * n + 1, sizeof *m.choice_start);
    m.targets = malloc(9 * n * sizeof *m.targets);
    m.probs = malloc(9 * n * sizeof *m.probs);
    if (!m.state_start || !m.choice_start || !m.targets || !m.probs)
        return WX_ELIMIT;
    uint64_t c = 0, e = 0;
    for (uint64_t s = 0; s < n; s++) {
        m.state_start[s] = c;
        for (uint64_t j = 1 + xr(3); j > 0; j--) {
            m.choice_start[c++] = e;
            uint64_t len = 1 + xr(3);
            for (uint64_t i = 0; i < len; i++, e++) {
                m.targets[e] = (uint32_t)(xr(8) == 0 ? xr(n) : (s + n + xr(7) - 3) % n);
                m.probs[e] = 1.0 / (double)len;
            }
        }
    }
    m.state_start[n] = c;
    m.choice_start[c] = e;
    m.n_choices = c;
    m.n_entries = e;
    struct wx_error err;
    wx_error_clear(&err);
    struct mec_result a, b;
    double t = now_ms();
    int rc = mec_cpu(&m, &a, &err);
    double cpu_ms = now_ms() - t;
    double gpu_ms = 0, gpu_best = 1e300;
    for (int k = 0; k < 4 && rc == WX_OK; k++) { /* first run warms up */
        if (k)
            mec_result_free(&b);
        t = now_ms();
        rc = mec_gpu(&m, &b, &err);
        gpu_ms = now_ms() - t;
        if (k && gpu_ms < gpu_best)
            gpu_best = gpu_ms;
    }
    if (rc != WX_OK) {
        fprintf(stderr, "bench_gpu_scc: MEC: %s\n", err.msg);
        mdp_free(&m);
        return rc;
    }
    int equal = a.n_mecs == b.n_mecs && a.states_in_mecs == b.states_in_mecs &&
                a.choices_in_mecs == b.choices_in_mecs && a.rounds == b.rounds &&
                !memcmp(a.mec, b.mec, n * sizeof *a.mec) && !memcmp(a.choice_in, b.choice_in, c);
    printf("MECRESULT random-mdp-%llu %llu %llu %llu %llu %llu %.3f %.1f %s\n", (unsigned long long)n,
           (unsigned long long)n, (unsigned long long)c, (unsigned long long)e,
           (unsigned long long)b.n_mecs, (unsigned long long)b.rounds, gpu_best, cpu_ms,
           equal ? "yes" : "NO");
    mec_result_free(&a);
    mec_result_free(&b);
    mdp_free(&m);
    return equal ? 0 : 1;
}

/* Is name one of the comma-separated items of list? */
static int in_list(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t k = end ? (size_t)(end - p) : strlen(p);
        if (k == len && !strncmp(p, name, len))
            return 1;
        p += k + (end != NULL);
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *name = NULL;
    int reps = 5, tarjan = 1, variants_on = 0; /* 2: only the variants of the new paths,
                                                  3: those named in vlist */
    const char *vlist = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--name") && i + 1 < argc)
            name = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-tarjan"))
            tarjan = 0;
        else if (!strcmp(argv[i], "--variants"))
            variants_on = 1;
        else if (!strcmp(argv[i], "--variants-new"))
            variants_on = 2;
        else if (!strcmp(argv[i], "--variant-list") && i + 1 < argc)
            variants_on = 3, vlist = argv[++i];
        else if (!strcmp(argv[i], "--mec-random") && i + 1 < argc)
            return bench_mec(strtoull(argv[++i], NULL, 0));
        else if (!path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: bench_gpu_scc FILE [--name NAME] [--reps R] [--no-tarjan] "
                    "[--variants | --variants-new | --variant-list NAMES]\n");
            return 2;
        }
    }
    if (!path || reps < 1 || reps > 100) {
        fprintf(stderr, "usage: bench_gpu_scc FILE [--name NAME] [--reps R] [--no-tarjan] "
                    "[--variants | --variants-new | --variant-list NAMES]\n");
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

    struct dgraph dg;
    uint32_t *d_comp = NULL;
    t = now_ms();
    rc = dgraph_upload(&g, 0, &dg, &err);
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
                "# run %d: %.3f ms (transpose %.3f %s, trim %.3f in %u sweeps (%llu vertices), pivot "
                "%.3f in %u levels (SCC of %llu), colour %.3f in %u rounds, %u levels in all, "
                "relabel %.3f, counts %.3f; %u multi-source rounds %.3f ms, %llu pivots; CPU "
                "residue %llu vertices %llu edges %.3f ms, reason %d; detection %u passes, %llu "
                "SCCs of %llu vertices, %llu closures, P %.3f ms, D %.3f ms; symmetric %d (check %.3f ms), connected components %d; "
                "allocation %.3f ms)\n",
                k, st.total_ms, st.transpose_ms, st.transpose_sorted ? "sort" : "count", st.trim_ms,
                st.trim_sweeps,
                (unsigned long long)st.trimmed, st.pivot_ms, st.pivot_levels,
                (unsigned long long)st.pivot_scc, st.colour_ms, st.rounds, st.levels,
                st.relabel_ms, st.stats_ms, st.fb_rounds, st.fb_ms,
                (unsigned long long)st.fb_pivots, (unsigned long long)st.residue_n,
                (unsigned long long)st.residue_m, st.residue_ms, st.residue_reason,
                st.detect_passes, (unsigned long long)st.detect_sccs,
                (unsigned long long)st.detect_vertices, (unsigned long long)st.detect_tries,
                st.detect_p_ms, st.detect_d_ms, st.symmetric, st.symmetric_ms, st.components,
                st.alloc_ms);
        if (k == 0)
            continue; /* warm-up */
        times[k - 1] = st.total_ms;
        if (k == 1 || st.total_ms < best.total_ms)
            best = st;
    }
    if (rc == WX_OK) {
        fprintf(stderr, "# colour rounds of the best run (live before, levels, ms):");
        for (uint32_t k = 0; k < best.rounds && k < SCC_GPU_ROUND_INFO; k++)
            fprintf(stderr, " [%llu %u %.2f]", (unsigned long long)best.round_live[k],
                    best.round_levels[k], best.round_ms[k]);
        fprintf(stderr, "\n");
    }
    /* the strategy variants (same ids required), best of reps each */
    static const struct {
        const char *name;
        uint32_t share, sweeps;
        int pivot, dir, persistent;
        uint32_t hops, sort; /* chain_hops (~0u: the default), transpose_sort */
        const char *extra;   /* scc_gpu_tuning_parse spec over the above ("": none) */
        int is_new;          /* a variant of the multi-source / residue paths */
    } variants[] = {
        {"default", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "", 1},
        {"no-pivot", TRIM_DEFAULT_SHARE, 64, 0, 0, 1, ~0u, 2, "", 0},
        {"no-trim", 0, 1, 1, 0, 1, ~0u, 2, "", 0},
        {"colour-backward-first", TRIM_DEFAULT_SHARE, 64, 1, 1, 1, ~0u, 2, "", 0},
        {"per-level-launches", TRIM_DEFAULT_SHARE, 64, 1, 0, 0, ~0u, 2, "", 0},
        {"no-chain-following", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, 0, 2, "", 0},
        {"chain-hops-64", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, 64, 2, "", 0},
        {"counting-transpose", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 0, "", 1},
        {"radix-sort-transpose", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 1, "", 1},
        {"fb-rounds-0", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "fb_rounds=0", 1},
        {"fb-rounds-1", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "fb_rounds=1", 1},
        {"fb-rounds-2", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "fb_rounds=2", 1},
        {"fb-rounds-4", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "fb_rounds=4", 1},
        {"fb-rounds-8", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "fb_rounds=8", 1},
        {"fb-rounds-16", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "fb_rounds=16", 1},
        {"fb-rounds-all", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "fb_rounds=0xffffffff", 1},
        {"no-pivot-fb-all", TRIM_DEFAULT_SHARE, 64, 0, 0, 1, ~0u, 2, "fb_rounds=0xffffffff", 1},
        {"residue-off", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "residue=0", 1},
        {"residue-ns-3", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "residue_ns=3", 1},
        {"residue-ns-40", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "residue_ns=40", 1},
        {"residue-forced", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "residue=2", 1},
        {"pivot-wide-0", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "pivot_wide=0", 1},
        {"pivot-local-0", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "pivot_local=0", 1},
        {"pivot-local-4", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "pivot_local=4", 1},
        {"trim-detect-0", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "trim_detect=0", 1},
        {"trim-detect-16", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "trim_detect=16", 1},
        {"trim-detect-24", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "trim_detect=24", 1},
        {"trim-detect-18", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "trim_detect=18", 1},
        {"trim-detect-20", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "trim_detect=20", 1},
        {"trim-detect-22", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "trim_detect=22", 1},
        {"trim-hops-0", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "trim_hops=0", 1},
        {"trim-hops-1", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "trim_hops=1", 1},
        {"trim-hops-2", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "trim_hops=2", 1},
        {"trim-detect-20-hops-1", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2,
         "trim_detect=20,trim_hops=1", 1},
        {"symmetric-0", TRIM_DEFAULT_SHARE, 64, 1, 0, 1, ~0u, 2, "symmetric=0", 1},
    };
    /* the default's ids, against which every variant's are compared */
    uint32_t *ref_ids = NULL, *var_ids = NULL;
    int ids_differ = 0;
    if (variants_on && rc == WX_OK) {
        ref_ids = malloc(g.n_vertices * sizeof *ref_ids + 1);
        var_ids = malloc(g.n_vertices * sizeof *var_ids + 1);
        rc = ref_ids && var_ids ? scc_gpu_ids_download(d_comp, g.n_vertices, ref_ids, &err)
                                : wx_fail(&err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    }
    for (size_t vi = 0; variants_on && rc == WX_OK && vi < sizeof variants / sizeof *variants; vi++) {
        if (variants_on == 2 && !variants[vi].is_new)
            continue;
        if (variants_on == 3 && !in_list(vlist, variants[vi].name))
            continue;
        struct scc_gpu_tuning tu;
        scc_gpu_tuning_default(&tu);
        tu.trim_min_share = variants[vi].share;
        tu.trim_max_sweeps = variants[vi].sweeps;
        tu.pivot = variants[vi].pivot;
        tu.colour_dir = variants[vi].dir;
        tu.persistent = variants[vi].persistent;
        if (variants[vi].hops != ~0u)
            tu.chain_hops = variants[vi].hops;
        tu.transpose_sort = (int)variants[vi].sort;
        if (*variants[vi].extra && (rc = scc_gpu_tuning_parse(variants[vi].extra, &tu, &err)) != WX_OK)
            break;
        struct scc_result vr;
        struct scc_gpu_stats vs, vbest;
        memset(&vbest, 0, sizeof vbest);
        for (int k = 0; k <= reps && rc == WX_OK; k++) {
            rc = scc_gpu_device_tuned(&dg, d_comp, &vr, &vs, &tu, &err);
            if (rc == WX_OK && k > 0 && (k == 1 || vs.total_ms < vbest.total_ms))
                vbest = vs;
        }
        int same = 0;
        if (rc == WX_OK && (rc = scc_gpu_ids_download(d_comp, g.n_vertices, var_ids, &err)) == WX_OK)
            same = g.n_vertices == 0 || !memcmp(ref_ids, var_ids, g.n_vertices * sizeof *var_ids);
        ids_differ |= !same;
        if (rc == WX_OK)
            printf("VARIANT %s %s %.3f ms (transpose %.3f, trim %.3f in %u sweeps, pivot %.3f, colour "
                   "%.3f in %u rounds, multi-source %.3f in %u rounds, CPU residue %llu vertices "
                   "%.3f ms, %u levels, detection %u passes %llu SCCs %llu closures P %.3f D %.3f) "
                   "sccs %llu %s\n",
                   name, variants[vi].name, vbest.total_ms, vbest.transpose_ms, vbest.trim_ms,
                   vbest.trim_sweeps,
                   vbest.pivot_ms, vbest.colour_ms, vbest.rounds, vbest.fb_ms, vbest.fb_rounds,
                   (unsigned long long)vbest.residue_n, vbest.residue_ms, vbest.levels,
                   vbest.detect_passes, (unsigned long long)vbest.detect_sccs,
                   (unsigned long long)vbest.detect_tries, vbest.detect_p_ms, vbest.detect_d_ms,
                   (unsigned long long)vr.n_sccs,
                   vr.n_sccs != r.n_sccs ? "COUNT DIFFERS" : same ? "same ids" : "IDS DIFFER");
    }
    free(ref_ids);
    free(var_ids);
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
    dgraph_free(&dg);
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
           "%u %u %.1f %s %u %.3f %llu %.3f\n",
           name, (unsigned long long)g.n_vertices, (unsigned long long)g.n_edges,
           (unsigned long long)r.n_sccs, (unsigned long long)r.largest, best.total_ms,
           times[(reps - 1) / 2], upload_ms, download_ms, best.transpose_ms, best.trim_ms,
           best.pivot_ms, best.colour_ms, best.relabel_ms, best.stats_ms, best.rounds,
           best.trim_sweeps, best.levels, tarjan_ms, equal < 0 ? "n/a" : equal ? "yes" : "NO",
           best.fb_rounds, best.fb_ms, (unsigned long long)best.residue_n, best.residue_ms);
    free(ids);
    csr_free(&g);
    return equal == 0 || ids_differ ? 1 : 0;
}
