#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../parser/gpf.h"
#include "../util/strtab.h"
#include "cli.h"
#include "../util/size.h"

void cli_print_error(const struct wx_error *e)
{
    char buf[2048];
    wx_error_format(e, buf, sizeof buf);
    fprintf(stderr, "warpex: %s\n", buf);
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v > max)
        return -1;
    *out = v;
    return 0;
}

int cli_parse(int argc, char **argv, int first, const char *command,
              struct cli_options *o, struct wx_error *err)
{
    const char *positional[2] = {NULL, NULL};
    int npos = 0;

    memset(o, 0, sizeof *o);
    o->backend = EXPLORE_AUTO;
    o->props = calloc((size_t)argc + 1, sizeof *o->props);
    o->rewards = calloc((size_t)argc + 1, sizeof *o->rewards);
    if (!o->props || !o->rewards)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    o->gpu.use_textures = -1;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        unsigned long long n;
#define NEED_VALUE()                                                                   \
    do {                                                                               \
        if (i + 1 >= argc)                                                             \
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "option %s needs a value", a); \
        val = argv[++i];                                                               \
    } while (0)
#define BAD_VALUE() return wx_fail(err, WX_EINPUT, NULL, 0, 0, "bad value '%s' for %s", val, a)
        if (cli_is_help(a))
            return cli_usage(command, stdout), CLI_HELP;
        if (!strcmp(a, "--backend")) {
            NEED_VALUE();
            o->backend_given = true;
            if (!strcmp(val, "auto")) o->backend = EXPLORE_AUTO;
            else if (!strcmp(val, "gpu")) o->backend = EXPLORE_GPU;
            else if (!strcmp(val, "cpu")) o->backend = EXPLORE_CPU;
            else if (!strcmp(val, "seq")) o->backend = EXPLORE_SEQ;
            else BAD_VALUE();
        } else if (!strcmp(a, "--threads")) {
            NEED_VALUE();
            if (parse_uint(val, 4096, &n) || n == 0) BAD_VALUE();
            o->threads = (unsigned)n;
        } else if (!strcmp(a, "--memory")) {
            NEED_VALUE();
            if (wx_parse_size(val, &o->memory) || o->memory == 0) BAD_VALUE();
        } else if (!strcmp(a, "--hash-memory")) {
            NEED_VALUE();
            if (wx_parse_size(val, &o->gpu.hash_bytes) || o->gpu.hash_bytes == 0) BAD_VALUE();
        } else if (!strcmp(a, "-b") || !strcmp(a, "--blocks")) {
            NEED_VALUE();
            if (parse_uint(val, 1u << 30, &n) || n == 0) BAD_VALUE();
            o->gpu.blocks = (uint32_t)n;
        } else if (!strcmp(a, "-t") || !strcmp(a, "--gpu-threads")) {
            NEED_VALUE();
            if (parse_uint(val, 1024, &n) || n == 0 || n % 32) BAD_VALUE();
            o->gpu.threads = (uint32_t)n;
        } else if (!strcmp(a, "-k") || !strcmp(a, "--iterations")) {
            NEED_VALUE();
            if (parse_uint(val, 1u << 20, &n) || n == 0) BAD_VALUE();
            o->gpu.iterations = (uint32_t)n;
        } else if (!strcmp(a, "--probe-bound")) {
            NEED_VALUE();
            if (parse_uint(val, 1u << 20, &n) || n == 0) BAD_VALUE();
            o->gpu.probe_bound = (uint32_t)n;
        } else if (!strcmp(a, "--no-textures")) {
            o->gpu.use_textures = 0;
        } else if (!strcmp(a, "--compact-slots")) {
            o->gpu.compact_slots = 1;
        } else if (!strcmp(a, "--deadlock")) {
            o->deadlock = true;
        } else if (!strcmp(a, "--action")) {
            NEED_VALUE();
            o->action = val;
        } else if (!strcmp(a, "--scc")) {
            o->scc = true;
        } else if (!strcmp(a, "--scc-out")) {
            NEED_VALUE();
            o->scc = true;
            o->scc_out = val;
        } else if (!strcmp(a, "--cycle-mean")) {
            NEED_VALUE();
            if (strcmp(val, "min") && strcmp(val, "max")) BAD_VALUE();
            o->cycle_mean = val[1] == 'i' ? 1 : 2;
        } else if (!strcmp(a, "--weight")) {
            NEED_VALUE();
            o->weight = val;
        } else if (!strcmp(a, "--default-weight")) {
            NEED_VALUE();
            o->default_weight = val;
        } else if (!strcmp(a, "--mec")) {
            o->mec = true;
        } else if (!strcmp(a, "--mec-out")) {
            NEED_VALUE();
            o->mec = true;
            o->mec_out = val;
        } else if (!strcmp(a, "--livelock")) {
            o->livelock = true;
        } else if (!strcmp(a, "--reversible")) {
            o->reversible = true;
        } else if (!strcmp(a, "--trace")) {
            o->trace = true;
        } else if (!strcmp(a, "--trace-states")) {
            o->trace = o->trace_states = true;
        } else if (!strcmp(a, "--aut")) {
            NEED_VALUE();
            o->aut_out = val;
        } else if (!strcmp(a, "--csr")) {
            NEED_VALUE();
            o->csr_out = val;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            o->quiet = true;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose++;
            o->net.verbose = true;
        } else if (!strcmp(a, "--hidden")) {
            NEED_VALUE();
            if (!*val) BAD_VALUE();
            o->net.hidden = val;
        } else if (!strcmp(a, "--rate")) {
            o->net.rate = true;
        } else if (!strcmp(a, "--prob")) {
            o->net.prob = true;
        } else if (!strcmp(a, "--case")) {
            o->net.case_sensitive = true;
        } else if (!strcmp(a, "--mdp-out")) {
            NEED_VALUE();
            if (!*val) BAD_VALUE();
            o->mdp_out = val;
        } else if (!strcmp(a, "--prop")) {
            NEED_VALUE();
            o->props[o->n_props++] = val;
        } else if (!strcmp(a, "--reward")) {
            NEED_VALUE();
            o->rewards[o->n_rewards++] = val;
        } else if (!strcmp(a, "--props")) {
            NEED_VALUE();
            o->props_file = val;
        } else if (!strcmp(a, "--epsilon")) {
            NEED_VALUE();
            char *end;
            errno = 0;
            o->epsilon = strtod(val, &end);
            if (*end || errno || !(o->epsilon > 0) || !(o->epsilon < 1)) BAD_VALUE();
        } else if (!strcmp(a, "--to")) {
            NEED_VALUE();
            if (strcmp(val, "aut") && strcmp(val, "gpf")) BAD_VALUE();
            o->to = val;
        } else if (a[0] == '-' && a[1]) {
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown option '%s' (try 'warpex help')", a);
        } else {
            if (npos == 2)
                return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unexpected argument '%s'", a);
            positional[npos++] = a;
        }
#undef NEED_VALUE
#undef BAD_VALUE
    }
    int want = strcmp(command, "convert") ? 1 : 2;
    if (npos != want)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s needs %s (try 'warpex help')", command,
                       want == 1 ? "one input FILE" : "an input FILE and an output file");
    if (!strcmp(command, "convert") && !o->to)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "convert needs --to aut or --to gpf");
    o->input = positional[0];
    o->output = positional[1];
    return WX_OK;
}

void cli_options_free(struct cli_options *o)
{
    free(o->props);
    o->props = NULL;
    free(o->rewards);
    o->rewards = NULL;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* CADP files hide "i", mCRL2 files hide "tau": components using both suggest
 * a mix where one of them silently stays visible. */
static void warn_two_hidden(const struct network *net)
{
    uint32_t ids[2] = {strtab_find(net->labels, "i", 1), strtab_find(net->labels, "tau", 3)};
    int used[2] = {0, 0};
    for (uint32_t c = 0; c < net->n_comps; c++)
        for (uint64_t t = 0; t < net->comps[c].n_trans; t++)
            for (int k = 0; k < 2; k++)
                used[k] |= net->comps[c].label[t] == ids[k];
    if (used[0] && used[1])
        fprintf(stderr, "warpex: note: the components use both 'i' and 'tau'; only '%s' is hidden "
                        "(choose with --hidden)\n", strtab_str(net->labels, net->hidden));
}

int cli_load_image(const struct cli_options *o, struct image *img, struct network *keep,
                   struct wx_error *err)
{
    if (keep)
        memset(keep, 0, sizeof *keep);
    if (has_suffix(o->input, ".gpf"))
        return gpf_read(o->input, img, err);
    struct network net;
    int rc = network_from_file(o->input, &o->net, &net, err);
    if (rc != WX_OK)
        return rc;
    if (o->verbose)
        for (uint32_t c = 0; c < net.n_comps; c++)
            if (net.comps[c].n_duplicates)
                fprintf(stderr, "warpex: %s: %llu duplicate transition line%s dropped\n",
                        net.comp_names[c], (unsigned long long)net.comps[c].n_duplicates,
                        net.comps[c].n_duplicates == 1 ? "" : "s");
    if (!o->quiet)
        warn_two_hidden(&net);
    rc = image_compile(&net, img, err);
    if (rc == WX_OK && keep)
        *keep = net;
    else
        network_free(&net);
    return rc;
}
