/*
 * vi_bench.c -- synthetic MDPs for value iteration, generated in memory
 * with all host cores, and timings of the GPU sweep (kernels/vi/)
 * against a multi-threaded CPU Jacobi sweep in the same run.
 *
 *   vi_bench [--states N] [--choices C] [--entries E] [--window W]
 *            [--threads T] [--eps X] [--cpu-sweeps K] [--variants]
 *            [--kinds K1,K2,.. [--rounds R] [--sweeps S]] [--no-solve] [--no-cpu]
 *            [--precompute] [--name NAME] [--copy] [--levels W [--level-cyclic]]
 *            [--policy [--pi-sweeps K]]
 *
 * GENERATOR.  N states; state s has 1..2C-1 choices (mean C; exactly 1
 * when C == 1); each choice 1..2E-1 entries (mean E); entry targets are
 * s + d with |d| <= W (mod N; "local", as in BFS-numbered state spaces)
 * or uniform when W == 0; each choice keeps 0.9 of its mass in the system
 * (a contraction), b = 0.1 * u.  Deterministic for a given size (each
 * thread's RNG is seeded by its state range).
 *
 * WHAT IS MEASURED.  GPU: valiter_solve_gpu (interval iteration, max, lo = 0,
 * hi = 1, eps) to convergence: sweeps, device time per sweep, and the
 * effective bandwidth bytes_per_sweep / sweep time, where bytes_per_sweep
 * counts what a sweep must stream at least: state offsets 8 B per state,
 * choice offsets and constants 16 B per choice, 12 B per entry (4 B target
 * + 8 B probability), and per vector (lo, hi) one read and one write of
 * 8 B per state.  The gathers x[t[e]] are not counted (with local targets
 * they are served by the caches), nor the tile records (16 B per tile of
 * ~30 states: 0.4 % of the local MDP's bytes).  What the library reports
 * (vi_stats.bytes_per_sweep) is what the kernel that ran must stream: for
 * kind 5 and the tiles3 kinds 16-17, 4 B per state offset and per choice
 * offset (32-bit copies), 8 B per constant, 12 B per entry, and 32 B per
 * state for the (lo, hi) pair read once and written once.  --variants also
 * times every sweep kernel variant for 40 sweeps; --kinds times only the
 * listed kinds, S sweeps each (default 40), R rounds in turn (default 1:
 * alternating kinds in one process, for A/B); --no-solve skips the solve
 * to convergence, --no-cpu the CPU peers.  CPU: a pthreads Jacobi interval sweep with the
 * same arithmetic on T threads (default: all cores), --cpu-sweeps sweeps
 * (the CPU twin valiter_solve_cpu too, when linked with
 * -DHAVE_VALITER_CPU).  --copy measures the device-to-device copy
 * bandwidth (bytes read + written) for the ceiling.  --precompute times
 * the four graph precomputations on the same graph (1% targets).
 * --policy also solves with VI_POLICY (certified policy iteration; step 1
 * capped at K sweeps, default VI_PI_SWEEPS: the generator's systems
 * converge within ~130 sweeps at 1e-6, so K < 100 is what reaches the
 * policy steps).
 * Output: "key=value" lines, one "ROW|..." line per measurement for the
 * table that bench/bench_gpu_valiter.sh prints.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "analysis/valiter.h"

void valiter_gpu_set_kernel(int kind, int group);
int valiter_gpu_last_kind(void);

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "vi_bench: out of memory (%zu bytes)\n", n);
        exit(3);
    }
    return p;
}

struct gen {
    uint64_t n, c_mean, e_mean, window;
    int threads;
    int few; /* --few-numbers: probabilities 0.9 / m, constants 0.1 * k / 8 */
    /* pass 1: per-thread counts; pass 2: fill */
    uint64_t *ss, *cs;
    uint32_t *tg;
    double *pr, *b;
    uint64_t *t_choices, *t_entries; /* per thread */
};

struct gen_job {
    struct gen *g;
    int id, pass;
};

static uint64_t nchoices(uint64_t *r, uint64_t mean)
{
    return mean <= 1 ? 1 : 1 + mix(r) % (2 * mean - 1);
}

static void *gen_worker(void *arg)
{
    struct gen_job *j = arg;
    struct gen *g = j->g;
    uint64_t s0 = g->n * (uint64_t)j->id / (uint64_t)g->threads;
    uint64_t s1 = g->n * (uint64_t)(j->id + 1) / (uint64_t)g->threads;
    /* r: the shape (same sequence in both passes), rv: the values */
    uint64_t r = 0x1234567ull + s0, rv = 0x9abcdefull + s0 * 3;
    if (j->pass == 1) {
        uint64_t c = 0, e = 0;
        for (uint64_t s = s0; s < s1; s++) {
            uint64_t k = nchoices(&r, g->c_mean);
            c += k;
            for (uint64_t i = 0; i < k; i++)
                e += nchoices(&r, g->e_mean);
        }
        g->t_choices[j->id] = c;
        g->t_entries[j->id] = e;
        return NULL;
    }
    uint64_t c = 0, e = 0;
    for (int t = 0; t < j->id; t++)
        c += g->t_choices[t], e += g->t_entries[t];
    for (uint64_t s = s0; s < s1; s++) {
        uint64_t k = nchoices(&r, g->c_mean);
        g->ss[s] = c;
        for (uint64_t i = 0; i < k; i++, c++) {
            uint64_t m = nchoices(&r, g->e_mean);
            g->cs[c] = e;
            double sum = 0;
            for (uint64_t x = 0; x < m; x++) {
                uint64_t z = mix(&rv);
                uint64_t t;
                if (g->window) {
                    uint64_t d = z % (2 * g->window + 1);
                    t = (s + g->n * 4 + d - g->window) % g->n;
                } else {
                    t = z % g->n;
                }
                g->tg[e + x] = (uint32_t)t;
                g->pr[e + x] = 0.05 + (double)(z >> 40) * (1.0 / 16777216.0);
                sum += g->pr[e + x];
            }
            for (uint64_t x = 0; x < m; x++)
                g->pr[e + x] = g->few ? 0.9 / (double)m : g->pr[e + x] / sum * 0.9;
            g->b[c] = g->few ? 0.1 * (double)(mix(&rv) % 9) / 8.0
                             : 0.1 * (double)(mix(&rv) >> 11) * (1.0 / 9007199254740992.0);
            e += m;
        }
    }
    return NULL;
}

static void generate(struct gen *g, struct vi_system *y)
{
    pthread_t tid[256];
    struct gen_job jobs[256];
    g->t_choices = calloc((size_t)g->threads, sizeof(uint64_t));
    g->t_entries = calloc((size_t)g->threads, sizeof(uint64_t));
    for (int pass = 1; pass <= 2; pass++) {
        if (pass == 2) {
            uint64_t nc = 0, ne = 0;
            for (int t = 0; t < g->threads; t++)
                nc += g->t_choices[t], ne += g->t_entries[t];
            g->ss = xmalloc((g->n + 1) * 8);
            g->cs = xmalloc((nc + 1) * 8);
            g->b = xmalloc(nc * 8);
            g->tg = xmalloc(ne * 4);
            g->pr = xmalloc(ne * 8);
            g->ss[g->n] = nc;
            g->cs[nc] = ne;
            *y = (struct vi_system){g->n, nc, ne, g->ss, g->cs, g->tg, g->pr, g->b};
        }
        for (int t = 0; t < g->threads; t++) {
            jobs[t] = (struct gen_job){g, t, pass};
            pthread_create(&tid[t], NULL, gen_worker, &jobs[t]);
        }
        for (int t = 0; t < g->threads; t++)
            pthread_join(tid[t], NULL);
    }
}

/* ---- CPU peer: pthreads Jacobi interval sweeps (max), same arithmetic ---- */
struct cpu_job {
    const struct vi_system *y;
    const double *lo, *hi;
    double *nlo, *nhi;
    uint64_t s0, s1;
};

static inline double cpu_state(const struct vi_system *y, uint64_t s, const double *x)
{
    double best = -INFINITY;
    for (uint64_t c = y->state_start[s]; c < y->state_start[s + 1]; c++) {
        double v = y->b[c];
        for (uint64_t e = y->choice_start[c]; e < y->choice_start[c + 1]; e++)
            v += y->probs[e] * x[y->targets[e]];
        if (v > best)
            best = v;
    }
    return best;
}

static void *cpu_worker(void *arg)
{
    struct cpu_job *j = arg;
    for (uint64_t s = j->s0; s < j->s1; s++) {
        double l = cpu_state(j->y, s, j->lo), h = cpu_state(j->y, s, j->hi);
        j->nlo[s] = l > j->lo[s] ? l : j->lo[s];
        j->nhi[s] = h < j->hi[s] ? h : j->hi[s];
    }
    return NULL;
}

/* Mean seconds per sweep over k sweeps on T threads (threads started per
 * sweep: a few tens of microseconds, negligible at these sizes). */
static double cpu_sweeps(const struct vi_system *y, int threads, int k)
{
    uint64_t n = y->n_states;
    double *v[4];
    for (int i = 0; i < 4; i++)
        v[i] = xmalloc(n * 8);
    for (uint64_t s = 0; s < n; s++)
        v[0][s] = 0, v[1][s] = 1;
    pthread_t tid[256];
    struct cpu_job jobs[256];
    double t0 = now_s();
    for (int it = 0; it < k; it++) {
        const double *lo = v[(it & 1) ? 2 : 0], *hi = v[(it & 1) ? 3 : 1];
        double *nlo = v[(it & 1) ? 0 : 2], *nhi = v[(it & 1) ? 1 : 3];
        for (int t = 0; t < threads; t++) {
            jobs[t] = (struct cpu_job){y, lo, hi, nlo, nhi, n * (uint64_t)t / (uint64_t)threads,
                                       n * (uint64_t)(t + 1) / (uint64_t)threads};
            pthread_create(&tid[t], NULL, cpu_worker, &jobs[t]);
        }
        for (int t = 0; t < threads; t++)
            pthread_join(tid[t], NULL);
    }
    double dt = (now_s() - t0) / k;
    for (int i = 0; i < 4; i++)
        free(v[i]);
    return dt;
}

static double copy_bandwidth(void)
{
    size_t bytes = (size_t)2 << 30;
    void *a = NULL, *b = NULL;
    cudaEvent_t e0, e1;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess)
        return 0;
    cudaMemset(a, 1, bytes);
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    float best = 1e30f;
    for (int i = 0; i < 10; i++) {
        cudaEventRecord(e0, 0);
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (ms < best)
            best = ms;
    }
    cudaFree(a);
    cudaFree(b);
    return 2.0 * (double)bytes / (best * 1e-3);
}

static const char *name = "synthetic";

static void row(const char *what, const struct vi_system *y, const char *dev, uint64_t sweeps, double sweep_s,
                uint64_t bytes, double total_s, const char *note)
{
    printf("ROW|%s|%s|%.3g M|%.3g M|%s|%llu|%.3f|%.0f|%.2f|%s\n", name, what, y->n_states / 1e6,
           y->n_entries / 1e6, dev, (unsigned long long)sweeps, sweep_s * 1e3, bytes / sweep_s / 1e9, total_s, note);
    fflush(stdout);
}

static int gpu_solve_method(const struct vi_system *y, double eps, uint64_t max_it, int kind, int group,
                            enum vi_method method, uint64_t pi_sweeps, struct vi_stats *st, double *lo_out0,
                            char *msg, size_t msz)
{
    uint64_t n = y->n_states;
    double *lo = xmalloc(n * 8), *hi = xmalloc(n * 8);
    for (uint64_t s = 0; s < n; s++)
        lo[s] = 0, hi[s] = 1;
    struct vi_params par = {1, eps, 0, max_it, method, 0, 0, pi_sweeps, {0}, NULL, 0};
    struct wx_error err;
    wx_error_clear(&err);
    valiter_gpu_set_kernel(kind, group);
    int rc = valiter_solve_gpu(y, &par, lo, hi, st, &err);
    valiter_gpu_set_kernel(0, 0);
    snprintf(msg, msz, "%s", rc ? err.msg : "");
    if (lo_out0)
        *lo_out0 = lo[0];
    free(lo);
    free(hi);
    return rc;
}

static int gpu_solve(const struct vi_system *y, double eps, uint64_t max_it, int kind, int group,
                     struct vi_stats *st, double *lo_out0, char *msg, size_t msz)
{
    return gpu_solve_method(y, eps, max_it, kind, group, VI_JACOBI, 0, st, lo_out0, msg, msz);
}

/* --levels W: the targets remapped into levels of W states (level L =
 * states [L W, (L+1) W)): level 0 keeps its entries inside itself, every
 * other level sends them to the level below (acyclic), or with
 * --level-cyclic half of them into its own level.  Then plain interval
 * iteration on the GPU, the GPU level solve (also under a device-memory
 * cap of a quarter of the system: groups), and the CPU level twin (one
 * thread, bit-identical values expected) when small enough. */
static void levels_bench(struct vi_system *y, uint64_t w, int cyclic, double eps)
{
    uint64_t n = y->n_states, nl = (n + w - 1) / w;
    uint32_t *tg = (uint32_t *)y->targets;
    for (uint64_t s = 0; s < n; s++) {
        uint64_t L = s / w, a = L * w, z = a + w < n ? a + w : n;
        for (uint64_t e = y->choice_start[y->state_start[s]]; e < y->choice_start[y->state_start[s + 1]]; e++) {
            uint64_t t = tg[e];
            if (L == 0 || (cyclic && (t & 1)))
                tg[e] = (uint32_t)(a + t % (z - a));
            else
                tg[e] = (uint32_t)(a - w + t % w);
        }
    }
    uint64_t *ls = xmalloc((nl + 1) * 8);
    uint8_t *ac = xmalloc(nl);
    for (uint64_t L = 0; L <= nl; L++)
        ls[L] = L * w < n ? L * w : n;
    for (uint64_t L = 0; L < nl; L++)
        ac[L] = L > 0 && !cyclic;
    struct vi_levels lv = {nl, ls, ac};
    double *lo = xmalloc(n * 8), *hi = xmalloc(n * 8), *clo = xmalloc(n * 8), *chi = xmalloc(n * 8);
    struct vi_stats st;
    struct wx_error err;
    char note[1400], what[128];
    uint64_t sysb = 4 * n + 12 * y->n_choices + 12 * y->n_entries;
    for (int run = 0; run < 4; run++) {
        for (uint64_t s = 0; s < n; s++)
            lo[s] = 0, hi[s] = 1;
        struct vi_params par = {1, eps, 0, 10000000, VI_JACOBI, 0, 0, 0, {0}, NULL, 0};
        wx_error_clear(&err);
        double t1 = now_s();
        int rc;
        if (run == 0)
            rc = valiter_solve_gpu(y, &par, lo, hi, &st, &err);
        else if (run < 3) {
            par.device_memory = run == 2 ? 32 * n + sysb / 4 : 0;
            rc = valiter_solve_levels_gpu(y, &par, &lv, lo, hi, &st, &err);
            if (run == 1)
                memcpy(clo, lo, n * 8), memcpy(chi, hi, n * 8);
        } else {
            if (n > 4000000)
                break;
            rc = valiter_solve_levels_cpu(y, &par, &lv, lo, hi, &st, &err);
        }
        double dt = now_s() - t1;
        int same = run >= 2 && !memcmp(lo, clo, n * 8) && !memcmp(hi, chi, n * 8);
        snprintf(what, sizeof what, "%s", run == 0 ? "GPU interval, whole system" : run == 1 ? "GPU topological levels"
                                          : run == 2 ? "GPU topological levels, 1/4 memory" : "CPU twin levels, 1 thread");
        snprintf(note, sizeof note, "%llu levels of %llu%s, %llu level sweeps, %llu groups, %.2f us/level, lo[0]=%.9f%s%s%.300s",
                 (unsigned long long)nl, (unsigned long long)w, cyclic ? " (cyclic)" : "", (unsigned long long)st.level_sweeps,
                 (unsigned long long)st.groups, dt * 1e6 / (double)nl, lo[0], run >= 2 ? (same ? ", bit-identical to GPU levels" : ", DIFFERS from GPU levels") : "",
                 rc ? ", ERROR " : "", rc ? err.msg : "");
        row(what, y, run == 3 ? "CPU 1 thread" : "GPU", st.iterations, st.sweep_seconds, st.bytes_per_sweep, dt, note);
    }
    free(lo), free(hi), free(clo), free(chi), free(ls), free(ac);
}

int main(int argc, char **argv)
{
    struct gen g = {.n = 10000000, .c_mean = 3, .e_mean = 3, .window = 1000, .threads = 0};
    double eps = 1e-6;
    int cpu_k = 5, variants = 0, precompute = 0, copy = 0, gen_only = 0, level_cyclic = 0;
    int nkinds = 0, kind_list[32], rounds = 1, no_solve = 0, no_cpu = 0, policy = 0;
    uint64_t pi_sweeps = 0;
    uint64_t kind_sweeps = 40;
    uint64_t level_width = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";
        if (!strcmp(a, "--states")) g.n = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--choices")) g.c_mean = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--entries")) g.e_mean = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--window")) g.window = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--threads")) g.threads = atoi(v), i++;
        else if (!strcmp(a, "--eps")) eps = atof(v), i++;
        else if (!strcmp(a, "--cpu-sweeps")) cpu_k = atoi(v), i++;
        else if (!strcmp(a, "--name")) name = v, i++;
        else if (!strcmp(a, "--variants")) variants = 1;
        else if (!strcmp(a, "--precompute")) precompute = 1;
        else if (!strcmp(a, "--copy")) copy = 1;
        else if (!strcmp(a, "--levels")) level_width = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--level-cyclic")) level_cyclic = 1;
        else if (!strcmp(a, "--few-numbers")) g.few = 1;
        else if (!strcmp(a, "--kinds")) {
            for (char *q = (char *)v; *q && nkinds < 32; q++) {
                kind_list[nkinds++] = (int)strtol(q, &q, 10);
                if (*q != ',')
                    break;
            }
            i++;
        }
        else if (!strcmp(a, "--rounds")) rounds = atoi(v), i++;
        else if (!strcmp(a, "--sweeps")) kind_sweeps = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--no-solve")) no_solve = 1;
        else if (!strcmp(a, "--policy")) policy = 1;
        else if (!strcmp(a, "--pi-sweeps")) pi_sweeps = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--no-cpu")) no_cpu = 1;
        else if (!strcmp(a, "--gen-only")) gen_only = 1; /* no GPU: generator and CPU peer */
        else {
            fprintf(stderr, "vi_bench: unknown option %s\n", a);
            return 2;
        }
    }
    if (g.threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        g.threads = c < 1 ? 1 : c > 256 ? 256 : (int)c;
    }
    if (!gen_only && !valiter_gpu_available()) {
        fprintf(stderr, "vi_bench: no usable GPU\n");
        return 4;
    }
    if (copy && !gen_only)
        printf("copy_bandwidth_GBps=%.0f\n", copy_bandwidth() / 1e9);
    struct vi_system y;
    double t0 = now_s();
    generate(&g, &y);
    printf("name=%s states=%llu choices=%llu entries=%llu window=%llu generated_s=%.2f threads=%d\n", name,
           (unsigned long long)y.n_states, (unsigned long long)y.n_choices, (unsigned long long)y.n_entries,
           (unsigned long long)g.window, now_s() - t0, g.threads);
    fflush(stdout);

    struct vi_stats st;
    char msg[800];
    if (gen_only) {
        double cs = cpu_sweeps(&y, g.threads, cpu_k);
        printf("cpu_sweep_ms=%.3f threads=%d\n", cs * 1e3, g.threads);
        return 0;
    }
    double v0 = 0;
    {
        /* warm-up (context creation, module load) on a one-state system */
        uint64_t wss[] = {0, 1}, wcs[] = {0, 1};
        uint32_t wtg[] = {0};
        double wpr[] = {0.5}, wb[] = {0.5};
        struct vi_system w = {1, 1, 1, wss, wcs, wtg, wpr, wb};
        gpu_solve(&w, 1e-3, 1000, 0, 0, &st, NULL, msg, sizeof msg);
    }
    if (level_width) {
        levels_bench(&y, level_width, level_cyclic, eps);
        return 0;
    }
    char note[1600];
    /* the unpacked representation's bytes (kind 5: 4 B offsets, 8 B
     * constants, 12 B per entry), to compare a packed kernel's time with */
    const uint64_t bytes5 = 4 * (y.n_states + 1) + 4 * (y.n_choices + 1) + 8 * y.n_choices + 12 * y.n_entries +
                            32 * y.n_states;
    if (!no_solve) {
        int rc = gpu_solve(&y, eps, 100000, 0, 0, &st, &v0, msg, sizeof msg);
        snprintf(note, sizeof note, "auto kernel (ran kind %d), interval to %g%s%s, lo[0]=%.9f; unpacked bytes: %.0f GB/s",
                 valiter_gpu_last_kind(), eps, rc ? ", ERROR " : "", msg, v0,
                 st.sweep_seconds > 0 ? bytes5 / st.sweep_seconds / 1e9 : 0.0);
        row("GPU interval solve", &y, "GPU", st.iterations, st.sweep_seconds, st.bytes_per_sweep, st.seconds, note);
    }
    if (!no_solve && policy) {
        int rc = gpu_solve_method(&y, eps, 100000, 0, 0, VI_POLICY, pi_sweeps, &st, &v0, msg, sizeof msg);
        snprintf(note, sizeof note, "VI_POLICY (step 1: %llu sweeps at most), %s, %llu policies, %llu products%s%s, lo[0]=%.9f",
                 (unsigned long long)(pi_sweeps ? pi_sweeps : VI_PI_SWEEPS),
                 st.certified ? "certified" : st.policy_rounds ? "certificate failed" : "interval iteration",
                 (unsigned long long)st.policy_rounds, (unsigned long long)st.products, rc ? ", ERROR " : "", msg, v0);
        row("GPU policy iteration", &y, "GPU", st.iterations, st.sweep_seconds, st.bytes_per_sweep, st.seconds, note);
    }
    for (int rd = 1; rd <= rounds; rd++)
        for (int i = 0; i < nkinds; i++) {
            double l0 = 0;
            int rc = gpu_solve(&y, 1e-300, kind_sweeps, kind_list[i], 32, &st, &l0, msg, sizeof msg);
            char what[96];
            snprintf(what, sizeof what, "GPU sweep, pinned kind %d (ran %d), round %d", kind_list[i],
                     valiter_gpu_last_kind(), rd);
            /* rc is WX_ELIMIT (the sweep limit) when all went well */
            snprintf(note, sizeof note, "%llu sweeps; lo[0]=%.17g%s; unpacked bytes: %.0f GB/s",
                     (unsigned long long)kind_sweeps, l0,
                     rc == WX_ELIMIT && st.iterations == kind_sweeps ? "" : ", UNEXPECTED OUTCOME",
                     st.sweep_seconds > 0 ? bytes5 / st.sweep_seconds / 1e9 : 0.0);
            row(what, &y, "GPU", st.iterations, st.sweep_seconds, st.bytes_per_sweep, st.seconds, note);
        }
    if (variants) {
        static const int kinds[][2] = {{16, 32}, {17, 32}, {5, 32}, {8, 32}, {10, 32}, {12, 32}, {14, 32}, {15, 32}, {6, 32}, {3, 32}, {4, 32}, {1, 1}, {1, 2}, {1, 4}, {1, 8}, {2, 8}, {2, 32}};
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
            gpu_solve(&y, 1e-300, 40, kinds[i][0], kinds[i][1], &st, NULL, msg, sizeof msg);
            char what[96];
            if (kinds[i][0] >= 16) {
                snprintf(what, sizeof what, "GPU sweep tiles3%s (ran kind %d)", kinds[i][0] == 17 ? ", persistent" : "",
                         valiter_gpu_last_kind());
                row(what, &y, "GPU", st.iterations, st.sweep_seconds, st.bytes_per_sweep, st.seconds, "40 sweeps, pinned kernel");
                continue;
            }
            if (kinds[i][0] >= 8) {
                snprintf(what, sizeof what, "GPU sweep packed, %s loads (ran kind %d)",
                         kinds[i][0] == 8    ? "evict-first"
                         : kinds[i][0] == 12 ? "evict-first, words ahead"
                         : kinds[i][0] == 14 ? "persistent, cached"
                         : kinds[i][0] == 15 ? "persistent, evict-first"
                                             : "cached",
                         valiter_gpu_last_kind());
                char nt[200];
                snprintf(nt, sizeof nt, "40 sweeps, pinned kernel; unpacked bytes: %.0f GB/s",
                         bytes5 / st.sweep_seconds / 1e9);
                row(what, &y, "GPU", st.iterations, st.sweep_seconds, st.bytes_per_sweep, st.seconds, nt);
                continue;
            }
            if (kinds[i][0] >= 3)
                snprintf(what, sizeof what, "GPU sweep tiles%s",
                         kinds[i][0] == 5 ? "2 (pairs, 32-bit offsets)" : kinds[i][0] == 6 ? "2 without early loads" : kinds[i][0] == 4 ? " (6 blocks/SM)" : "");
            else
                snprintf(what, sizeof what, "GPU sweep %s G=%d", kinds[i][0] == 1 ? "choices" : "entries", kinds[i][1]);
            row(what, &y, "GPU", st.iterations, st.sweep_seconds, st.bytes_per_sweep, st.seconds, "40 sweeps, pinned kernel");
        }
    }
    if (no_cpu)
        goto precomp;
    uint64_t bytes = st.bytes_per_sweep;
    double cs = cpu_sweeps(&y, g.threads, cpu_k);
    char cn[64];
    snprintf(cn, sizeof cn, "CPU %d threads", g.threads);
    row("CPU interval sweep (bench peer)", &y, cn, (uint64_t)cpu_k, cs, bytes, cs * cpu_k, "pthreads Jacobi, same arithmetic");
#ifdef HAVE_VALITER_CPU
    {
        uint64_t n = y.n_states;
        double *lo = xmalloc(n * 8), *hi = xmalloc(n * 8);
        for (uint64_t s = 0; s < n; s++)
            lo[s] = 0, hi[s] = 1;
        struct vi_params par = {1, 1e-300, 0, (uint64_t)cpu_k, VI_JACOBI, g.threads, 0, 0, {0}, NULL, 0};
        struct wx_error err;
        wx_error_clear(&err);
        double t1 = now_s();
        valiter_solve_cpu(&y, &par, lo, hi, &st, &err);
        double dt = now_s() - t1;
        row("CPU twin valiter_solve_cpu", &y, cn, (uint64_t)cpu_k, dt / cpu_k, bytes, dt, "analysis/valiter.c, Jacobi");
        free(lo);
        free(hi);
    }
#endif
precomp:
    if (precompute) {
        struct mdp m = {y.n_states, y.n_choices, y.n_entries, (uint64_t *)y.state_start, (uint64_t *)y.choice_start,
                        (uint32_t *)y.targets, (double *)y.probs, 0};
        uint8_t *target = xmalloc(y.n_states), *out = xmalloc(y.n_states), *out2 = xmalloc(y.n_states);
        uint64_t r = 99;
        for (uint64_t s = 0; s < y.n_states; s++)
            target[s] = mix(&r) % 100 == 0;
        static const char *pn[] = {"Prob0A", "Prob0E", "Prob1E", "Prob1A"};
        for (int w = 0; w < 4; w++) {
            struct wx_error err;
            wx_error_clear(&err);
            double t1 = now_s();
            int prc = valiter_precompute_gpu(&m, NULL, target, (enum vi_precomp)w, out, &err);
            double dt = now_s() - t1;
            uint64_t cnt = 0;
            for (uint64_t s = 0; s < y.n_states; s++)
                cnt += out[s];
            char what[64], nt[900];
            snprintf(what, sizeof what, "GPU precompute %s", pn[w]);
            snprintf(nt, sizeof nt, "%llu states in the set%s%s", (unsigned long long)cnt, prc ? ", ERROR " : "",
                     prc ? err.msg : "");
            printf("ROW|%s|%s|%.3g M|%.3g M|GPU|-|-|-|%.2f|%s\n", name, what, y.n_states / 1e6, y.n_entries / 1e6, dt, nt);
#ifdef HAVE_VALITER_CPU
            t1 = now_s();
            prc = valiter_precompute_cpu(&m, NULL, target, (enum vi_precomp)w, out2, &err);
            dt = now_s() - t1;
            snprintf(what, sizeof what, "CPU twin precompute %s", pn[w]);
            snprintf(nt, sizeof nt, "%s", prc ? err.msg : memcmp(out, out2, y.n_states) ? "SETS DIFFER FROM GPU" : "same set as GPU");
            printf("ROW|%s|%s|%.3g M|%.3g M|CPU 1 thread|-|-|-|%.2f|%s\n", name, what, y.n_states / 1e6, y.n_entries / 1e6, dt, nt);
#endif
            fflush(stdout);
        }
        free(target);
        free(out);
        free(out2);
    }
    return 0;
}
