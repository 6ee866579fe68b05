/*
 * standalone.c -- what the standalone analysis commands (scc, mec) share:
 * their option parsing, the per-vertex id file they write, and timing; and
 * what `check` and `explore --prop` share: reading and printing properties.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/prop.h"
#include "../graph/mdp_lab.h"
#include "../util/outfile.h"
#include "cli.h"

int cli_parse_standalone(int argc, char **argv, int first, const char *command,
                         const char *out_option, int gpu_usable, struct standalone_options *o,
                         struct wx_error *err)
{
    memset(o, 0, sizeof *o);
    o->backend = CLI_BACKEND_AUTO;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a))
            return cli_usage(command, stdout), CLI_HELP;
        if (!strcmp(a, "--json"))
            o->json = 1;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            o->quiet = 1;
        else if (!strcmp(a, out_option)) {
            if (++i >= argc)
                return wx_fail(err, WX_EINPUT, NULL, 0, 0, "option '%s' needs a FILE", out_option);
            o->output = argv[i];
        } else if (!strcmp(a, "--backend")) {
            if (++i >= argc)
                return wx_fail(err, WX_EINPUT, NULL, 0, 0, "option --backend needs a value");
            int rc = cli_backend_parse(argv[i], &o->backend, err);
            if (rc != WX_OK)
                return rc;
        } else if (a[0] == '-' && a[1])
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown option '%s' for %s", a, command);
        else if (o->input)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s takes one FILE ('%s' and '%s' given)",
                           command, o->input, a);
        else
            o->input = a;
    }
    if (o->backend == CLI_BACKEND_GPU && !gpu_usable)
        return cli_no_gpu(err);
    if (!o->input)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "usage: warpex %s FILE [--json] [%s FILE]",
                       command, out_option);
    return cli_guard_files(&o->input, 1, &o->output, 1, err);
}

int cli_guard_files(const char *const *inputs, size_t n_in, const char *const *outputs, size_t n_out,
                    struct wx_error *err)
{
    for (size_t i = 0; i < n_in; i++)
        if (inputs[i] && outfile_protect(inputs[i]) != 0)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < n_out; i++) {
        int rc = outputs[i] ? outfile_check(outputs[i], 0, err) : WX_OK;
        if (rc != WX_OK)
            return rc;
    }
    return WX_OK;
}

struct id_list {
    const uint32_t *ids;
    uint64_t n;
    uint32_t none;
};

static int put_ids(FILE *f, const void *arg)
{
    const struct id_list *l = arg;
    for (uint64_t v = 0; v < l->n; v++)
        if ((l->ids[v] == l->none ? fputs("-1\n", f) : fprintf(f, "%u\n", l->ids[v])) < 0)
            return -1; /* stop early; outfile_write reports the write error */
    return 0;
}

int cli_write_ids(const char *path, const uint32_t *ids, uint64_t n, uint32_t none,
                  struct wx_error *err)
{
    struct id_list l = {ids, n, none};
    return outfile_write(path, put_ids, &l, err);
}

int cli_backend_parse(const char *v, enum cli_backend *b, struct wx_error *err)
{
    if (!strcmp(v, "auto"))
        *b = CLI_BACKEND_AUTO;
    else if (!strcmp(v, "gpu"))
        *b = CLI_BACKEND_GPU;
    else if (!strcmp(v, "cpu"))
        *b = CLI_BACKEND_CPU;
    else
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "--backend takes auto, cpu or gpu, not '%s'", v);
    return WX_OK;
}

void cli_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void cli_json_property_head(FILE *out, int first, const struct property *p,
                            const struct mdp_rewards *pr, int reward_index)
{
    fprintf(out, "%s{\"property\": ", first ? "" : ", ");
    cli_json_string(out, p->text);
    if (p->name) {
        fprintf(out, ", \"name\": ");
        cli_json_string(out, p->name);
    }
    fprintf(out, ", \"kind\": \"%s\"", prop_kind_name(p->kind));
    if (pr) {
        fprintf(out, ", \"reward_structure\": ");
        if (pr->name)
            cli_json_string(out, pr->name);
        else
            fprintf(out, "%d", reward_index + 1);
    }
}

enum cli_backend cli_settle_backend(enum cli_backend b, int gpu_usable, int quiet)
{
    if (b != CLI_BACKEND_AUTO)
        return b;
    if (gpu_usable)
        return CLI_BACKEND_GPU;
    cli_cpu_notice(quiet);
    return CLI_BACKEND_CPU;
}

int cli_read_props(const char *file, const char *const *texts, int n_texts, struct property **props,
                   size_t *n, struct wx_error *err)
{
    size_t n_file = 0;
    *props = NULL;
    *n = 0;
    int rc;
    if (file && (rc = prop_read_file(file, props, &n_file, err)) != WX_OK)
        return rc;
    size_t total = n_file + (size_t)n_texts;
    struct property *np = realloc(*props, (total ? total : 1) * sizeof *np);
    if (!np) {
        prop_free_all(*props, n_file);
        *props = NULL;
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    }
    for (int i = 0; i < n_texts; i++)
        if ((rc = prop_parse(texts[i], "--prop", i + 1, &np[n_file + (size_t)i], err)) != WX_OK) {
            prop_free_all(np, n_file + (size_t)i);
            return rc;
        }
    *props = np;
    *n = total;
    return WX_OK;
}
