/*
 * dist.c -- `warpex explore` under mpirun (cli/dist.h).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../explorer/dist_mpi.h"
#include "dist.h"

/* A non-negative integer environment variable, or -1. */
static long env_count(const char *name)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s)
        return -1;
    long v = strtol(s, &end, 10);
    return *end || v < 0 ? -1 : v;
}

int cli_dist_ranks(int *rank)
{
    static const char *const vars[][2] = {
        {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
        {"PMI_SIZE", "PMI_RANK"},
    };
    *rank = 0;
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
        long n = env_count(vars[k][0]), r = env_count(vars[k][1]);
        if (n > 0 && r >= 0 && r < n) {
            *rank = (int)r;
            return (int)n;
        }
    }
    return 0;
}

/* The first option given that needs what the distributed explorer does
 * not give yet (the MDP explorer), or NULL; --por with --action is refused
 * by explore_dist, which knows whether the expression matches a label. */
static const char *refused_option(const struct cli_options *o)
{
    return o->mdp_out ? "--mdp-out" : o->n_props ? "--prop" : o->props_file ? "--props"
         : o->n_rewards ? "--reward" : NULL;
}

int cli_dist_begin(struct cli_dist *d, struct cli_options *o, int rank, int ranks, struct wx_error *err)
{
    memset(d, 0, sizeof *d);
    d->rank = rank, d->ranks = ranks;
    if (rank > 0) {
        o->quiet = true;
        cli_mute_errors(true); /* until cli_dist_end knows whose error it is */
    }
    if (o->backend == EXPLORE_SEQ || o->backend == EXPLORE_GPU)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "under mpirun (%d ranks) explore runs the distributed "
                       "CPU explorer: --backend cpu or auto (the distributed GPU explorer does not exist yet)",
                       ranks);
    const char *opt = refused_option(o);
    if (opt)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s is not available under mpirun yet (%d ranks): "
                       "run without mpirun for it", opt, ranks);
    int rc = dist_mpi_start(&d->t, err);
    if (rc != WX_OK)
        return rc;
    d->started = true;
    if (d->t.size != ranks || d->t.rank != rank)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "MPI reports rank %d of %d, the environment rank %d of %d",
                       d->t.rank, d->t.size, rank, ranks);
    return WX_OK;
}

/* The one agreement of every rank (cli/dist.h): the largest status. */
static int agree(struct cli_dist *d, int rc, struct wx_error *err)
{
    uint64_t f = (uint64_t)rc;
    d->agreed = true;
    int trc = d->t.allreduce(d->t.ctx, &f, 1, DIST_MAX, err);
    if (trc != WX_OK || rc != WX_OK)
        return trc != WX_OK ? trc : rc;
    if (f) {
        d->st.peer_failed = true;
        return wx_fail(err, (int)f, NULL, 0, 0, "another rank failed before exploring");
    }
    return WX_OK;
}

int cli_dist_explore(struct cli_dist *d, const struct image *img, const struct explore_options *eo,
                     struct explore_result *res, struct wx_error *err)
{
    int rc = agree(d, WX_OK, err);
    if (rc != WX_OK)
        return rc;
    return explore_dist(img, eo, &d->t, 0, res, &d->st, err);
}

int cli_dist_end(struct cli_dist *d, int rc, struct wx_error *err)
{
    if (!d->started)
        return rc;
    if (!d->agreed && rc != WX_OK && rc != WX_EVIOLATION)
        rc = agree(d, rc, err);
    /* Who prints: rank 0 its own error; another rank its own error when
     * rank 0 has none (then it is that rank's alone). */
    bool own = rc != WX_OK && rc != WX_EVIOLATION && !d->st.peer_failed;
    uint32_t r0[2] = { own, (uint32_t)rc };
    struct wx_error e2;
    bool said = d->t.bcast(d->t.ctx, r0, 2, 0, &e2) == WX_OK;
    if (said && own && (d->rank == 0 || !r0[0])) {
        cli_mute_errors(false);
        cli_print_error(err);
    }
    /* After a common exploration rank 0 alone wrote the outputs and ran
     * the analyses: its status is the run's. */
    if (said && d->agreed && !own)
        rc = (int)r0[1];
    /* printed before the barrier: once a rank exits with a non-zero
     * status, mpirun may end the others */
    cli_mute_errors(true);
    fflush(stdout);
    fflush(stderr);
    /* Everything is said: once a rank exits with a non-zero status,
     * mpirun sends SIGTERM to the others, which are only finishing. */
    signal(SIGTERM, SIG_IGN);
    dist_mpi_end(&d->t);
    dist_stats_free(&d->st);
    return rc;
}

void cli_dist_json(const struct cli_dist *d)
{
    const struct dist_stats *s = &d->st;
    printf(", \"ranks\": %d, \"rank_states\": [", d->ranks);
    for (int r = 0; s->rank_states && r < s->ranks; r++)
        printf("%s%llu", r ? ", " : "", (unsigned long long)s->rank_states[r]);
    printf("], \"rank_bytes\": [");
    for (int r = 0; s->rank_bytes && r < s->ranks; r++)
        printf("%s%llu", r ? ", " : "", (unsigned long long)s->rank_bytes[r]);
    printf("], \"exchange_bytes\": %llu", (unsigned long long)s->exchange_bytes);
}

void cli_dist_text(const struct cli_dist *d)
{
    const struct dist_stats *s = &d->st;
    printf("ranks:        %d (MPI), states per rank:", d->ranks);
    for (int r = 0; s->rank_states && r < s->ranks; r++)
        printf(" %llu", (unsigned long long)s->rank_states[r]);
    printf("; %.1f MiB exchanged\n", s->exchange_bytes / 1048576.0);
}
