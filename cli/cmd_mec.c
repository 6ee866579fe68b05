/*
 * cmd_mec.c -- `warpex mec FILE.tra [--json] [--mec-out FILE] [--quiet]`:
 * the maximal end components of an MDP (or DTMC) in PRISM's explicit .tra
 * format (graph/mdp.h, analysis/mec.h).
 *
 * Prints the MDP's size, the number of MECs, the states and choices inside
 * MECs, the largest MEC and the refinement rounds; --mec-out writes the
 * canonical MEC id of every state, or -1 for a state in no MEC, one per line
 * in state order, to FILE.tmp renamed to FILE on success (so an error leaves
 * no FILE).  It parses its own options.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../analysis/mec.h"
#include "../graph/mdp.h"
#include "cli.h"

static int write_mecs(const struct mec_result *r, const char *path, struct wx_error *err)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return wx_fail(err, WX_EINPUT, path, 0, 0, "output path too long");
    FILE *f = fopen(tmp, "w");
    if (!f)
        return wx_fail(err, WX_ESYSTEM, tmp, 0, 0, "cannot create: %s", strerror(errno));
    int bad = 0;
    for (uint64_t s = 0; s < r->n_states && !bad; s++)
        bad = (r->mec[s] == MEC_NONE ? fputs("-1\n", f) : fprintf(f, "%u\n", r->mec[s])) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot write: %s", strerror(e));
    }
    return WX_OK;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

int cmd_mec(int argc, char **argv, int first, struct wx_error *err)
{
    const char *input = NULL, *mec_out = NULL;
    int json = 0, quiet = 0;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json"))
            json = 1;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            quiet = 1;
        else if (!strcmp(a, "--mec-out")) {
            if (++i >= argc)
                return wx_fail(err, WX_EINPUT, NULL, 0, 0, "option '--mec-out' needs a FILE");
            mec_out = argv[i];
        } else if (a[0] == '-' && a[1])
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown option '%s' for mec", a);
        else if (input)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "mec takes one FILE ('%s' and '%s' given)",
                           input, a);
        else
            input = a;
    }
    if (!input)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "usage: warpex mec FILE.tra [--json] [--mec-out FILE]");

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct mdp m;
    int rc = mdp_read(input, &m, err);
    if (rc != WX_OK)
        return rc;
    double read_s = seconds_since(&t0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct mec_result r;
    rc = mec_cpu(&m, &r, err);
    double mec_s = seconds_since(&t0);
    if (rc == WX_OK && mec_out)
        rc = write_mecs(&r, mec_out, err);
    if (rc == WX_OK) {
        unsigned long long ns = m.n_states, nc = m.n_choices, nt = m.n_entries, nm = r.n_mecs,
                           sin = r.states_in_mecs, cin = r.choices_in_mecs, lg = r.largest,
                           n1 = r.n_singletons, rounds = r.rounds;
        if (json) {
            printf("{\"states\": %llu, \"choices\": %llu, \"transitions\": %llu, "
                   "\"dtmc\": %s, \"mecs\": %llu, \"states_in_mecs\": %llu, "
                   "\"choices_in_mecs\": %llu, \"largest_mec\": %llu, \"singleton_mecs\": %llu, "
                   "\"rounds\": %llu, \"read_seconds\": %.6f, \"mec_seconds\": %.6f}\n",
                   ns, nc, nt, m.is_dtmc ? "true" : "false", nm, sin, cin, lg, n1, rounds,
                   read_s, mec_s);
        } else {
            printf("%s: %llu states, %llu choices, %llu transitions\n", m.is_dtmc ? "DTMC" : "MDP",
                   ns, nc, nt);
            printf("MECs: %llu (%llu of one state) covering %llu states and %llu choices\n", nm,
                   n1, sin, cin);
            printf("largest MEC: %llu states\n", lg);
            if (!quiet)
                fprintf(stderr, "warpex: read %.3f s, MEC %.3f s (%llu rounds)\n", read_s, mec_s,
                        rounds);
        }
    }
    mec_result_free(&r);
    mdp_free(&m);
    return rc;
}
