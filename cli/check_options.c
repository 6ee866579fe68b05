/*
 * check_options.c -- the command line of `warpex check` (check.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/size.h"
#include "../util/pool.h"
#include "check.h"

/* The options that take a value (the next argument). */
static const char *const valued[] = {
    "--lab", "--srew", "--trew", "--sta", "--props", "--values", "--scheduler", "--prop",
    "--method", "--solver", "--backend", "--epsilon", "--gpu-memory", "--max-iterations",
    "--threads",
};

static int takes_value(const char *a)
{
    for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
        if (!strcmp(a, valued[k]))
            return 1;
    return 0;
}

static int need_arg(int argc, char **argv, int *i, const char **v, struct wx_error *err)
{
    if (*i + 1 >= argc)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "option '%s' needs an argument", argv[*i]);
    *v = argv[++*i];
    return WX_OK;
}

/* --method auto | ii | ovi | svi | vi | topological (topo) | pi */
static int parse_method(const char *v, struct check_options *o, struct wx_error *err)
{
    o->topological = o->policy = o->optimistic = o->svi = o->auto_method = 0;
    o->method_given = 1;
    if (!strcmp(v, "auto"))
        o->sound = 1, o->auto_method = 1;
    else if (!strcmp(v, "ii"))
        o->sound = 1;
    else if (!strcmp(v, "vi"))
        o->sound = 0;
    else if (!strcmp(v, "topological") || !strcmp(v, "topo"))
        o->sound = 1, o->topological = 1;
    else if (!strcmp(v, "pi"))
        o->sound = 1, o->policy = 1;
    else if (!strcmp(v, "ovi"))
        o->sound = 1, o->optimistic = 1;
    else if (!strcmp(v, "svi"))
        o->sound = 1, o->svi = 1;
    else
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--method takes auto (the fastest sound method expected), ii "
                       "(interval iteration, sound), ovi (optimistic "
                       "value iteration, sound), svi (sound value iteration), pi (policy "
                       "iteration with certified bounds, sound), topological "
                       "(interval iteration SCC by SCC) or vi (plain value "
                       "iteration, unsound), not '%s'", v);
    return WX_OK;
}

/* --solver jacobi | gs | inplace */
static int parse_solver(const char *v, struct check_options *o, struct wx_error *err)
{
    o->inplace = 0;
    o->solver_given = 1;
    if (!strcmp(v, "jacobi"))
        o->solver = VI_JACOBI;
    else if (!strcmp(v, "gs"))
        o->solver = VI_GAUSS_SEIDEL;
    else if (!strcmp(v, "inplace"))
        o->solver = VI_GAUSS_SEIDEL, o->inplace = 1;
    else
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--solver takes jacobi, gs or inplace, not '%s'", v);
    return WX_OK;
}

/* --epsilon, --gpu-memory, --max-iterations and --threads */
static int parse_number(const char *a, const char *v, struct check_options *o, struct wx_error *err)
{
    char *end;
    if (!strcmp(a, "--epsilon")) {
        errno = 0;
        o->epsilon = strtod(v, &end);
        if (*end || errno || !(o->epsilon > 0) || !(o->epsilon < 1))
            return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                           "--epsilon takes a number in (0, 1), not '%s'", v);
        return WX_OK;
    }
    if (!strcmp(a, "--gpu-memory")) {
        if (wx_parse_size(v, &o->gpu_memory) || o->gpu_memory == 0)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                           "--gpu-memory takes a positive size in bytes (suffix K, M, G or T), "
                           "not '%s'", v);
        return WX_OK;
    }
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    int thr = a[2] == 't';
    if (*end || errno || v[0] == '-' || !v[0] || (thr ? x > WX_POOL_MAX : x == 0))
        return thr ? wx_fail(err, WX_EINPUT, NULL, 0, 0,
                             "--threads takes 0 (all cores) to %d, not '%s'", WX_POOL_MAX, v)
                   : wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s takes a positive number, not '%s'",
                             a, v);
    if (thr)
        o->threads = (int)x;
    else
        o->max_iterations = x;
    return WX_OK;
}

/* Option a (one of `valued`) with its value v. */
static int set_value(const char *a, const char *v, struct check_options *o, struct wx_error *err)
{
    if (!strcmp(a, "--lab"))
        o->lab = v;
    else if (!strcmp(a, "--srew"))
        o->srew[o->n_srew++] = v;
    else if (!strcmp(a, "--trew"))
        o->trew[o->n_trew++] = v;
    else if (!strcmp(a, "--sta"))
        o->sta = v;
    else if (!strcmp(a, "--props"))
        o->props_file = v;
    else if (!strcmp(a, "--values"))
        o->values_out = v;
    else if (!strcmp(a, "--scheduler"))
        o->sched_out = v;
    else if (!strcmp(a, "--prop"))
        o->props[o->n_props++] = v;
    else if (!strcmp(a, "--method"))
        return parse_method(v, o, err);
    else if (!strcmp(a, "--solver"))
        return parse_solver(v, o, err);
    else if (!strcmp(a, "--backend"))
        return cli_backend_parse(v, &o->backend, err);
    else
        return parse_number(a, v, o, err);
    return WX_OK;
}

int check_parse_options(int argc, char **argv, int first, struct check_options *o,
                        struct wx_error *err)
{
    memset(o, 0, sizeof *o);
    o->sound = 1;
    o->auto_method = 1; /* --method auto (docs/valiter.md) */
    o->epsilon = 1e-6;
    o->max_iterations = 1000000;
    o->solver = VI_JACOBI;
    o->props = calloc((size_t)argc, sizeof *o->props);
    o->srew = calloc((size_t)argc, sizeof *o->srew);
    o->trew = calloc((size_t)argc, sizeof *o->trew);
    if (!o->props || !o->srew || !o->trew)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    int rc;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (cli_is_help(a))
            return cli_usage("check", stdout), CLI_HELP;
        if (!strcmp(a, "--json"))
            o->json = 1;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            o->quiet = 1;
        else if (!strcmp(a, "--all-states"))
            o->all_states = 1;
        else if (!strcmp(a, "--relative"))
            o->relative = 1;
        else if (takes_value(a)) {
            if ((rc = need_arg(argc, argv, &i, &v, err)) != WX_OK ||
                (rc = set_value(a, v, o, err)) != WX_OK)
                return rc;
        } else if (a[0] == '-' && a[1])
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown option '%s' for check", a);
        else if (o->input)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "check takes one MODEL ('%s' and '%s' given)",
                           o->input, a);
        else
            o->input = a;
    }
    if (!o->input || (!o->n_props && !o->props_file))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "usage: warpex check MODEL.tra|MODEL.drn [--lab F] [--srew F] [--trew F] "
                       "--prop 'Pmax=? [ F \"goal\" ]' | --props FILE [options] (see warpex help)");
    return WX_OK;
}

void check_options_free(struct check_options *o)
{
    free(o->props);
    free(o->srew);
    free(o->trew);
    o->props = o->srew = o->trew = NULL;
}
