/*
 * aut_gen.c -- writes a large, realistic .aut file for bench/aut_read.sh.
 *
 * usage: aut_gen OUT MEGABYTES [SEED]
 * Lines look like CADP/DFTRES output: "(src, label, dst) " with a mix of
 * quoted labels with offers (50%), bare identifiers (40%) and the hidden
 * label i (10%), 2000 distinct labels, states drawn from 0..n-1 with n about
 * lines/4.  Deterministic for a given seed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng;
static uint64_t next(void) /* splitmix64 */
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT MEGABYTES [SEED]\n", argv[0]);
        return 2;
    }
    uint64_t bytes = strtoull(argv[2], NULL, 10) << 20;
    rng = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    uint64_t lines = bytes / 34 + 1; /* measured average line length */
    uint64_t states = lines / 4 + 1;
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    /* Header first with a generous count, patched at the end (like CADP). */
    fprintf(f, "des (0, %-20llu, %-12llu)\n", 0ull, (unsigned long long)states);
    uint64_t n = 0, written = 0;
    while (written < bytes) {
        uint64_t r = next();
        uint64_t s = (r >> 8) % states, t = next() % states;
        unsigned k = (unsigned)(r & 0xff), lab = (unsigned)((r >> 40) % 1000);
        int w;
        if (k < 128)
            w = fprintf(f, "(%llu, \"GATE_%u !%u !%s\", %llu) \n", (unsigned long long)s,
                        lab, lab % 7, (lab & 1) ? "TRUE" : "FALSE", (unsigned long long)t);
        else if (k < 230)
            w = fprintf(f, "(%llu, ACT_%u, %llu)\n", (unsigned long long)s, lab,
                        (unsigned long long)t);
        else
            w = fprintf(f, "(%llu, i, %llu)\n", (unsigned long long)s, (unsigned long long)t);
        written += (uint64_t)w;
        n++;
    }
    if (fseek(f, 0, SEEK_SET) != 0)
        return perror("fseek"), 1;
    fprintf(f, "des (0, %-20llu, %-12llu)\n", (unsigned long long)n,
            (unsigned long long)states);
    if (fclose(f) != 0)
        return perror("fclose"), 1;
    printf("%s: %llu transitions, %llu states, %llu bytes\n", argv[1],
           (unsigned long long)n, (unsigned long long)states,
           (unsigned long long)written);
    return 0;
}
