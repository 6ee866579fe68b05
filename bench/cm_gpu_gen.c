/*
 * cm_gpu_gen.c -- SPRAND-like random graphs for the cycle-mean benchmark,
 * and the benchmark driver: GPU Howard (cyclemean_howard_gpu) against the
 * CPU Howard (cyclemean_howard_cpu, when the library has it: built with
 * -DHAVE_CYCLEMEAN_CPU) on the same graph in the same run.
 *
 *   cm_gpu_gen --n N --m M [--seed S] [--wmin A] [--wmax B] [--tmax T]
 *              [--max] [--reps R] [--no-cpu] [--write FILE.dimacs]
 *
 * The graph is SPRAND's shape (Cherkassky, Goldberg, Radzik): a Hamiltonian
 * cycle 0 -> 1 -> ... -> n-1 -> 0 plus m - n arcs with uniformly random ends
 * (no self-loops, parallel arcs possible), weights uniform in [A, B]
 * (default [1, 10000]), transit times uniform in [1, T] when T > 1 (cycle
 * ratio), else none (cycle mean).  Deterministic for a seed.  --write
 * also stores it in the DIMACS-style format of Dasdan's suite (`p sprand n
 * m`, `a u v w [t]`, 1-based), so other peers (LEMON) can read the same
 * graph.
 *
 * Output: human-readable lines, then one machine-readable line
 *   RESULT n m problem scc_s gpu_s gpu_rounds cpu_s cpu_rounds num den same
 * (gpu_s: the fastest of R timed calls after one warm-up call, the whole
 * cyclemean_howard_gpu call -- allocation, host-to-device copies, solve,
 * copies back; cpu_s: one call; same: 1 when the optima are identical
 * fractions, "-" when the CPU did not run).  Exit 1 when they differ or a
 * solver fails.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/cyclemean.h"
#include "../analysis/scc.h"

static uint64_t rs;

static uint64_t rnd(void)
{
    rs ^= rs >> 12;
    rs ^= rs << 25;
    rs ^= rs >> 27;
    return rs * 0x2545F4914F6CDD1Dull;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what, const struct wx_error *err)
{
    fprintf(stderr, "cm_gpu_gen: %s: %s\n", what, err ? err->msg : "out of memory");
    exit(2);
}

int main(int argc, char **argv)
{
    uint64_t n = 1000000, m = 10000000, seed = 1;
    int64_t wmin = 1, wmax = 10000, tmax = 1;
    int maximize = 0, reps = 3, no_cpu = 0;
    const char *write = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--max"))
            maximize = 1;
        else if (!strcmp(a, "--no-cpu"))
            no_cpu = 1;
        else if (v && !strcmp(a, "--n"))
            n = strtoull(v, NULL, 10), i++;
        else if (v && !strcmp(a, "--m"))
            m = strtoull(v, NULL, 10), i++;
        else if (v && !strcmp(a, "--seed"))
            seed = strtoull(v, NULL, 10), i++;
        else if (v && !strcmp(a, "--wmin"))
            wmin = strtoll(v, NULL, 10), i++;
        else if (v && !strcmp(a, "--wmax"))
            wmax = strtoll(v, NULL, 10), i++;
        else if (v && !strcmp(a, "--tmax"))
            tmax = strtoll(v, NULL, 10), i++;
        else if (v && !strcmp(a, "--reps"))
            reps = atoi(v), i++;
        else if (v && !strcmp(a, "--write"))
            write = v, i++;
        else {
            fprintf(stderr, "usage: cm_gpu_gen --n N --m M [--seed S] [--wmin A] [--wmax B] "
                            "[--tmax T] [--max] [--reps R] [--no-cpu] [--write FILE]\n");
            return 2;
        }
    }
    if (n < 1 || n >= 0xffffffffull || m < n || wmin > wmax || tmax < 1 || reps < 1) {
        fprintf(stderr, "cm_gpu_gen: need 1 <= n < 2^32 - 1, m >= n, wmin <= wmax, tmax >= 1\n");
        return 2;
    }

    /* Generate: the Hamiltonian cycle, then random arcs; CSR by counting. */
    double t0 = now();
    rs = seed * 0x9E3779B97F4A7C15ull + 12345;
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    uint64_t *off = calloc(n + 1, sizeof *off);
    uint32_t *tgt = malloc(m * sizeof *tgt);
    int64_t *w = malloc(m * sizeof *w), *t = tmax > 1 ? malloc(m * sizeof *t) : NULL;
    uint64_t *fill = malloc((n + 1) * sizeof *fill);
    if (!src || !dst || !off || !tgt || !w || (tmax > 1 && !t) || !fill)
        die("generating", NULL);
    for (uint64_t i = 0; i < m; i++) {
        src[i] = (uint32_t)(i < n ? i : rnd() % n);
        dst[i] = (uint32_t)(i < n ? (i + 1) % n : rnd() % n);
        while (i >= n && n > 1 && dst[i] == src[i]) /* random arcs: no self-loops */
            dst[i] = (uint32_t)(rnd() % n);
        off[src[i] + 1]++;
    }
    for (uint64_t v = 0; v < n; v++)
        off[v + 1] += off[v];
    memcpy(fill, off, (n + 1) * sizeof *fill);
    const uint64_t span = (uint64_t)(wmax - wmin) + 1;
    for (uint64_t i = 0; i < m; i++) {
        uint64_t k = fill[src[i]]++;
        tgt[k] = dst[i];
        w[k] = wmin + (int64_t)(rnd() % span);
        if (t)
            t[k] = 1 + (int64_t)(rnd() % (uint64_t)tmax);
    }
    free(src), free(dst), free(fill);
    printf("graph: SPRAND-like, n %" PRIu64 ", m %" PRIu64 ", weights [%" PRId64 ", %" PRId64
           "], %s, seed %" PRIu64 " (generated in %.2f s)\n", n, m, wmin, wmax,
           t ? "transit times" : "no transit times", seed, now() - t0);

    if (write) {
        FILE *f = fopen(write, "w");
        if (!f)
            die("--write", NULL);
        fprintf(f, "p sprand %" PRIu64 " %" PRIu64 "\n", n, m);
        for (uint64_t u = 0; u < n; u++)
            for (uint64_t e = off[u]; e < off[u + 1]; e++) {
                if (t)
                    fprintf(f, "a %" PRIu64 " %u %" PRId64 " %" PRId64 "\n", u + 1, tgt[e] + 1,
                            w[e], t[e]);
                else
                    fprintf(f, "a %" PRIu64 " %u %" PRId64 "\n", u + 1, tgt[e] + 1, w[e]);
            }
        if (fclose(f))
            die("--write", NULL);
        printf("written: %s\n", write);
    }

    struct wx_error err;
    wx_error_clear(&err);
    struct csr c = {.n_vertices = n, .n_edges = m, .offsets = off, .targets = tgt};
    struct scc_result scc;
    t0 = now();
    if (scc_cpu(&c, &scc, &err) != WX_OK)
        die("scc_cpu", &err);
    const double scc_s = now() - t0;
    printf("scc_cpu: %" PRIu64 " components, largest %" PRIu64 ", %.3f s\n", scc.n_sccs,
           scc.largest, scc_s);
    const struct cm_graph g = {n, m, off, tgt, w, t};

    if (!cyclemean_gpu_available()) {
        fprintf(stderr, "cm_gpu_gen: no usable GPU\n");
        return 2;
    }
    struct cm_result gr;
    double gpu_s = 1e30;
    for (int r = 0; r <= reps; r++) { /* call 0 warms up (CUDA context) */
        t0 = now();
        if (cyclemean_howard_gpu(&g, &scc, maximize, &gr, &err) != WX_OK)
            die("cyclemean_howard_gpu", &err);
        const double s = now() - t0;
        printf("gpu call %d: %.4f s, %" PRIu64 " rounds, optimum %" PRId64 "/%" PRId64
               " (cycle of %" PRIu64 " edges)%s\n", r, s, gr.iterations, gr.best.num, gr.best.den,
               gr.cycle_len, r == 0 ? " (warm-up)" : "");
        if (r > 0 && s < gpu_s)
            gpu_s = s;
        if (r < reps) {
            free(gr.cycle), free(gr.cycle_edges), free(gr.per_scc);
        }
    }

    double cpu_s = -1;
    uint64_t cpu_rounds = 0;
    const char *same = "-";
#ifdef HAVE_CYCLEMEAN_CPU
    if (!no_cpu) {
        struct cm_result cr;
        t0 = now();
        if (cyclemean_howard_cpu(&g, &scc, maximize, &cr, &err) != WX_OK)
            die("cyclemean_howard_cpu", &err);
        cpu_s = now() - t0;
        cpu_rounds = cr.iterations;
        same = cr.best.has_cycle == gr.best.has_cycle && cr.best.num == gr.best.num &&
                       cr.best.den == gr.best.den
                   ? "1"
                   : "0";
        printf("cpu howard: %.4f s, %" PRIu64 " rounds, optimum %" PRId64 "/%" PRId64 "\n", cpu_s,
               cr.iterations, cr.best.num, cr.best.den);
        cm_result_free(&cr);
    }
#else
    (void)no_cpu;
#endif
    printf("RESULT %" PRIu64 " %" PRIu64 " %s %.4f %.4f %" PRIu64 " %.4f %" PRIu64 " %" PRId64
           " %" PRId64 " %s\n", n, m, maximize ? "max" : "min", scc_s, gpu_s, gr.iterations, cpu_s,
           cpu_rounds, gr.best.num, gr.best.den, same);
    free(gr.cycle), free(gr.cycle_edges), free(gr.per_scc);
    scc_result_free(&scc);
    free(off), free(tgt), free(w), free(t);
    return same[0] == '0' ? 1 : 0;
}
