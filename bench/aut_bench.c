/*
 * aut_bench.c -- timing driver for aut_read (bench/aut_read.sh).
 *
 * usage: aut_bench FILE [REPEATS]
 * Reads FILE REPEATS times (default 3) with aut_read into a fresh strtab and
 * prints, per run, wall and CPU time and MB/s (MB = 10^6 bytes of file), plus the
 * time of a bare memchr pass over the mapped file (the line-splitting floor).
 * The file is in the page cache after the first run; the first run includes
 * page faults of the mapping either way.  After the first run the LTS is
 * written back with aut_write (to /tmp, removed after) and that is timed too.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "parser/aut.h"

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
/* CPU time of this (single-threaded) process: on a shared, loaded machine it
 * excludes the time the process waited for a core, which wall time does not. */
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [REPEATS]\n", argv[0]);
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    struct stat st;
    if (stat(argv[1], &st) != 0)
        return perror(argv[1]), 1;
    double mb = (double)st.st_size / 1e6;

    int fd = open(argv[1], O_RDONLY);
    const char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    double t0 = now();
    size_t lines = 0;
    for (const char *p = m, *e = m + st.st_size; p < e; lines++) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        p = nl ? nl + 1 : e;
    }
    double t1 = now();
    printf("memchr line split: %zu lines, %.3f s, %.0f MB/s\n", lines, t1 - t0,
           mb / (t1 - t0));
    munmap((void *)m, (size_t)st.st_size);
    close(fd);

    double best = 1e30, best_cpu = 1e30;
    for (int r = 0; r < reps; r++) {
        struct strtab *labels = strtab_new();
        struct lts l;
        uint32_t init;
        struct wx_error err;
        t0 = now();
        double c0 = cpu();
        int rc = aut_read(argv[1], labels, &l, &init, &err);
        double c1 = cpu();
        t1 = now();
        if (rc != WX_OK) {
            char b[1200];
            wx_error_format(&err, b, sizeof b);
            fprintf(stderr, "%s\n", b);
            return rc;
        }
        printf("aut_read run %d: %.1f MB, %u states, %llu transitions (%llu duplicates), "
               "%u labels: %.3f s wall, %.0f MB/s; %.3f s CPU, %.0f MB/s\n", r + 1, mb,
               l.n_states, (unsigned long long)l.n_trans, (unsigned long long)l.n_duplicates,
               strtab_count(labels), t1 - t0, mb / (t1 - t0), c1 - c0, mb / (c1 - c0));
        if (t1 - t0 < best)
            best = t1 - t0;
        if (c1 - c0 < best_cpu)
            best_cpu = c1 - c0;
        if (r == 0 && (l.n_trans == 0 || l.src != NULL)) { /* not with the stub */
            /* The writer, once: the LTS just read, back to /tmp. */
            char out[] = "/tmp/warpex_bench_write.aut";
            t0 = now();
            c0 = cpu();
            rc = aut_write(out, &l, labels, &err);
            c1 = cpu();
            t1 = now();
            struct stat ws;
            if (rc == WX_OK && stat(out, &ws) == 0) {
                double wmb = (double)ws.st_size / 1e6;
                printf("aut_write: %llu transitions, %.1f MB: %.3f s wall, %.0f MB/s; "
                       "%.3f s CPU, %.0f MB/s\n", (unsigned long long)l.n_trans, wmb,
                       t1 - t0, wmb / (t1 - t0), c1 - c0, wmb / (c1 - c0));
            }
            unlink(out);
        }
        lts_free(&l);
        strtab_free(labels);
    }
    printf("aut_read best: %.0f MB/s wall, %.0f MB/s CPU\n", mb / best, mb / best_cpu);
    return 0;
}
