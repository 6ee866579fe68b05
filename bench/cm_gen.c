/*
 * cm_gen.c -- SPRAND-like random graphs for the cycle-mean benchmarks, as
 * DIMACS ("p sp N M", "a U V W [T]", 1-based) on stdout.
 *
 *   cm_gen N M [--seed S] [--wmin A] [--wmax B] [--transit TMAX]
 *
 * Like Cherkassky-Goldberg-Radzik's SPRAND (the generator of Dasdan's
 * cycle-mean experiments): a Hamiltonian cycle 1 -> 2 -> ... -> N -> 1, so the
 * graph is strongly connected, plus M - N arcs between uniformly random
 * endpoints; weights uniform in [A, B] (default 1 .. 10000), transit times
 * uniform in [1, TMAX] when --transit is given.  Deterministic for a seed
 * (xorshift64*).  Built with: cc -O2 -o cm_gen bench/cm_gen.c
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t st = 88172645463325252ull;

static uint64_t rnd(void)
{
    st ^= st >> 12;
    st ^= st << 25;
    st ^= st >> 27;
    return st * 0x2545F4914F6CDD1Dull;
}

static uint64_t below(uint64_t n)
{
    return rnd() % n;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: cm_gen N M [--seed S] [--wmin A] [--wmax B] [--transit TMAX]\n");
        return 2;
    }
    uint64_t n = strtoull(argv[1], NULL, 10), m = strtoull(argv[2], NULL, 10), tmax = 0;
    long long wmin = 1, wmax = 10000;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            st = strtoull(argv[i + 1], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
        else if (!strcmp(argv[i], "--wmin"))
            wmin = strtoll(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--wmax"))
            wmax = strtoll(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--transit"))
            tmax = strtoull(argv[i + 1], NULL, 10);
        else {
            fprintf(stderr, "cm_gen: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (n < 1 || m < n || wmax < wmin || n >= UINT32_MAX) {
        fprintf(stderr, "cm_gen: need 1 <= N <= M, wmin <= wmax\n");
        return 2;
    }
    static char buf[1 << 20];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    printf("c SPRAND-like: Hamiltonian cycle + %" PRIu64 " random arcs\np sp %" PRIu64
           " %" PRIu64 "\n", m - n, n, m);
    uint64_t span = (uint64_t)(wmax - wmin) + 1;
    for (uint64_t e = 0; e < m; e++) {
        uint64_t u = e < n ? e : below(n), v = e < n ? (e + 1) % n : below(n);
        long long w = wmin + (long long)below(span);
        if (tmax)
            printf("a %" PRIu64 " %" PRIu64 " %lld %" PRIu64 "\n", u + 1, v + 1, w,
                   1 + below(tmax));
        else
            printf("a %" PRIu64 " %" PRIu64 " %lld\n", u + 1, v + 1, w);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
