/*
 * bench_synth.c -- throughput and parallel efficiency of the CPU explorers
 * on synthetic images built directly (no parser needed):
 *
 *   cycles N K     N independent K-state cycles: K^N states, N successors
 *                  each (pure interleaving, local entries only)
 *   buffers N D    a chain of N one-place buffers passing D values: the first
 *                  takes any value (local), neighbours hand a value on by
 *                  synchronising (one class per link and value), the last
 *                  drops it (local): (D+1)^N states
 *
 * Options: --threads 1,2,4   thread counts for explore_cpu (default 1 and all
 *                            online cores);  --seq  also time explore_seq;
 *          --pad BITS        a leading 1-state component BITS (<= 32) wide (moves the
 *                            other fields: more words, straddling fields);
 *          --memory BYTES    budget (default: explore_default_memory()).
 * One line per run; efficiency = (time with the first thread count x that
 * count) / (time x threads).  Build: see bench/bench_cpu.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explorer/explore.h"
#include "../tests/image_builder.h"

static void build_cycles(struct tb *b, uint32_t n, uint32_t k, uint32_t pad)
{
    uint32_t c0 = pad ? 1 : 0;
    b->n = n + c0, b->n_labels = n;
    if (pad)
        b->states[0] = 1, b->width[0] = pad;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = c0 + i;
        b->states[c] = k, b->width[c] = bits_for(k - 1);
        for (uint32_t s = 0; s < k; s++)
            tb_add(b, c, s, 0, i, (s + 1) % k);
    }
}

static void build_buffers(struct tb *b, uint32_t n, uint32_t d, uint32_t pad)
{
    uint32_t c0 = pad ? 1 : 0;
    b->n = n + c0, b->n_labels = 3; /* 0 in, 1 pass, 2 out */
    if (pad)
        b->states[0] = 1, b->width[0] = pad;
    for (uint32_t i = 0; i < n; i++)
        b->states[c0 + i] = d + 1, b->width[c0 + i] = bits_for(d);
    for (uint32_t v = 1; v <= d; v++) {
        tb_add(b, c0, 0, 0, 0, v);             /* first buffer: in */
        tb_add(b, c0 + n - 1, v, 0, 2, 0);     /* last buffer: out */
    }
    for (uint32_t i = 0; i + 1 < n; i++)
        for (uint32_t v = 1; v <= d; v++) {
            uint32_t k = b->n_classes++;
            uint32_t pair[2] = { c0 + i, c0 + i + 1 };
            b->class_result[k] = 1;
            tb_rule(b, k, 2, pair);
            tb_add(b, c0 + i, v, 1, k, 0);     /* give v */
            tb_add(b, c0 + i + 1, 0, 1, k, v); /* take v */
        }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s cycles N K | buffers N D [--threads T,..] [--seq] [--pad BITS] [--memory BYTES]\n",
                argv[0]);
        return 2;
    }
    uint32_t a = (uint32_t)atoi(argv[2]), p = (uint32_t)atoi(argv[3]), pad = 0;
    unsigned threads[32], nt = 0;
    int seq = 0;
    uint64_t memory = 0;
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--seq"))
            seq = 1;
        else if (!strcmp(argv[i], "--pad") && i + 1 < argc && atoi(argv[i + 1]) >= 0 && atoi(argv[i + 1]) <= 32)
            pad = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--memory") && i + 1 < argc)
            memory = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            for (char *s = strtok(argv[++i], ","); s && nt < 32; s = strtok(NULL, ","))
                threads[nt++] = (unsigned)atoi(s);
        else {
            fprintf(stderr, "bench_synth: bad argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!nt) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads[nt++] = 1;
        if (c > 1)
            threads[nt++] = (unsigned)c;
    }
    struct tb *b = calloc(1, sizeof *b);
    if (!strcmp(argv[1], "cycles") && a >= 1 && a <= 100 && p >= 1)
        build_cycles(b, a, p, pad);
    else if (!strcmp(argv[1], "buffers") && a >= 2 && a <= 60 && p >= 1 && (a - 1) * p <= 64)
        build_buffers(b, a, p, pad);
    else {
        fprintf(stderr, "bench_synth: bad model\n");
        return 2;
    }
    uint64_t rng = 1;
    struct image img;
    tb_build(b, &img, &rng);
    free(b);
    printf("# %s %u %u: %u components, %u words per vector, %u classes\n", argv[1], a, p, img.n_comps,
           img.words, img.n_classes);
    printf("%-8s %7s %12s %13s %9s %12s %12s %9s %6s\n", "backend", "threads", "states", "transitions",
           "seconds", "states/s", "trans/s", "B/state", "eff");
    double base = 0;
    unsigned base_t = 0;
    for (unsigned i = 0; i < nt + (unsigned)seq; i++) {
        int is_seq = seq && i == 0;
        unsigned t = is_seq ? 1 : threads[i - (unsigned)seq];
        struct explore_options opt = { .threads = t, .memory_bytes = memory };
        struct explore_result res;
        struct wx_error err;
        int rc = is_seq ? explore_seq(&img, &opt, &res, &err) : explore_cpu(&img, &opt, &res, &err);
        if (rc) {
            fprintf(stderr, "bench_synth: %s\n", err.msg);
            return rc;
        }
        char eff[16] = "";
        if (!is_seq) {
            if (!base_t)
                base = res.seconds * t, base_t = t;
            snprintf(eff, sizeof eff, "%.2f", base / (res.seconds * t));
        }
        printf("%-8s %7u %12llu %13llu %9.3f %12.0f %12.0f %9.1f %6s\n", res.backend, res.threads,
               (unsigned long long)res.states, (unsigned long long)res.transitions, res.seconds,
               res.states / res.seconds, res.transitions / res.seconds, (double)res.bytes / res.states, eff);
        fflush(stdout);
        explore_result_free(&res);
    }
    image_free(&img);
    return 0;
}
