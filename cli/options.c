#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../network/net_lint.h"
#include "../parser/gpf.h"
#include "../util/strtab.h"
#include "../util/pool.h"
#include "cli.h"
#include "../util/size.h"

static bool errors_muted;

void cli_mute_errors(bool on)
{
    errors_muted = on;
}

void cli_print_error(const struct wx_error *e)
{
    if (errors_muted)
        return;
    char buf[2048];
    wx_error_format(e, buf, sizeof buf);
    fprintf(stderr, "warpex: %s\n", buf);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
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

/* The GPU explorer's environment knobs (docs/tuning.md, "GPU explorer"):
 * WARPEX_GPU_TIMELINE (1: print where the time goes),
 * WARPEX_GPU_POR_SCRATCH (SIZE: the bound of --por's scratch),
 * WARPEX_GPU_GENERATOR (auto, fast or general: the successor generator) and
 * WARPEX_GPU_GROW_FROM (SIZE or none: the first size of a growing table). */
static int cli_gpu_env(struct gpu_options *g, struct wx_error *err)
{
    const char *tl = getenv("WARPEX_GPU_TIMELINE");
    g->timeline = tl && *tl && strcmp(tl, "0") != 0;
    const char *gen = getenv("WARPEX_GPU_GENERATOR");
    if (gen && *gen) {
        if (!strcmp(gen, "auto")) g->generator = 0;
        else if (!strcmp(gen, "fast")) g->generator = 1;
        else if (!strcmp(gen, "general")) g->generator = 2;
        else return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                            "WARPEX_GPU_GENERATOR must be auto, fast or general, not '%s'", gen);
    }
    const char *ps = getenv("WARPEX_GPU_POR_SCRATCH");
    if (ps && *ps && (wx_parse_size(ps, &g->por_scratch) || g->por_scratch == 0))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "WARPEX_GPU_POR_SCRATCH must be a size (e.g. 2G), not '%s'", ps);
    const char *e = getenv("WARPEX_GPU_GROW_FROM");
    if (!(e && *e))
        return WX_OK;
    if (!strcmp(e, "none"))
        g->grow_from = UINT64_MAX;
    else if (wx_parse_size(e, &g->grow_from) || g->grow_from == 0)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "WARPEX_GPU_GROW_FROM must be a size (e.g. 16G) or none, not '%s'",
                       e);
    return WX_OK;
}

/* The arguments cli_parse walks through: argv[i] is the current one. */
struct args {
    int argc, i;
    char **argv;
};

/* What an option group's parser returns for an option of another group. */
#define NOT_MINE (-2)

/* The value after option a (the next argument). */
static int need_value(struct args *x, const char *a, const char **val, struct wx_error *err)
{
    if (x->i + 1 >= x->argc)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "option %s needs a value", a);
    *val = x->argv[++x->i];
    return WX_OK;
}

static int bad_value(const char *val, const char *a, struct wx_error *err)
{
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, "bad value '%s' for %s", val, a);
}

/* Option a's value as a count 1..max (a multiple of `multiple`). */
static int count_value(struct args *x, const char *a, unsigned long long max, unsigned multiple,
                       uint32_t *out, struct wx_error *err)
{
    const char *val = NULL;
    unsigned long long n;
    int rc = need_value(x, a, &val, err);
    if (rc != WX_OK)
        return rc;
    if (parse_uint(val, max, &n) || n == 0 || n % multiple)
        return bad_value(val, a, err);
    *out = (uint32_t)n;
    return WX_OK;
}

/* --threads: 0 (all cores) to WX_POOL_MAX. */
static int threads_value(struct args *x, const char *a, unsigned *out, struct wx_error *err)
{
    const char *val = NULL;
    unsigned long long n;
    int rc = need_value(x, a, &val, err);
    if (rc != WX_OK)
        return rc;
    if (parse_uint(val, WX_POOL_MAX, &n))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "--threads takes 0 (all cores) to %d, not '%s'",
                       WX_POOL_MAX, val);
    *out = (unsigned)n;
    return WX_OK;
}

/* Option a's value as a positive size in bytes (suffix K, M, G or T). */
static int size_value(struct args *x, const char *a, uint64_t *out, struct wx_error *err)
{
    const char *val = NULL;
    int rc = need_value(x, a, &val, err);
    if (rc != WX_OK)
        return rc;
    if (wx_parse_size(val, out) || *out == 0)
        return bad_value(val, a, err);
    return WX_OK;
}

/* --backend, --threads, --memory and the GPU explorer's knobs. */
static int opt_backend(struct cli_options *o, const char *a, struct args *x, struct wx_error *err)
{
    const char *val = NULL;
    int rc;
    if (!strcmp(a, "--backend")) {
        if ((rc = need_value(x, a, &val, err)) != WX_OK)
            return rc;
        o->backend_given = true;
        if (!strcmp(val, "auto")) o->backend = EXPLORE_AUTO;
        else if (!strcmp(val, "gpu")) o->backend = EXPLORE_GPU;
        else if (!strcmp(val, "cpu")) o->backend = EXPLORE_CPU;
        else if (!strcmp(val, "seq")) o->backend = EXPLORE_SEQ;
        else return bad_value(val, a, err);
        return WX_OK;
    }
    if (!strcmp(a, "--store")) {
        if ((rc = need_value(x, a, &val, err)) != WX_OK)
            return rc;
        if (!strcmp(val, "auto")) o->store = STORE_AUTO;
        else if (!strcmp(val, "flat")) o->store = STORE_FLAT;
        else if (!strcmp(val, "tree")) o->store = STORE_TREE;
        else return bad_value(val, a, err);
        return WX_OK;
    }
    if (!strcmp(a, "--threads"))
        return threads_value(x, a, &o->threads, err);
    if (!strcmp(a, "--memory"))
        return size_value(x, a, &o->memory, err);
    if (!strcmp(a, "--hash-memory"))
        return size_value(x, a, &o->gpu.hash_bytes, err);
    if (!strcmp(a, "-b") || !strcmp(a, "--blocks"))
        return count_value(x, a, 1u << 30, 1, &o->gpu.blocks, err);
    if (!strcmp(a, "-t") || !strcmp(a, "--gpu-threads"))
        return count_value(x, a, 1024, 32, &o->gpu.threads, err);
    if (!strcmp(a, "-k") || !strcmp(a, "--iterations"))
        return count_value(x, a, 1u << 20, 1, &o->gpu.iterations, err);
    if (!strcmp(a, "--probe-bound"))
        return count_value(x, a, 1u << 20, 1, &o->gpu.probe_bound, err);
    if (!strcmp(a, "--no-textures"))
        o->gpu.use_textures = 0;
    else if (!strcmp(a, "--compact-slots"))
        o->gpu.compact_slots = 1;
    else
        return NOT_MINE;
    return WX_OK;
}

/* What explore checks and analyses: violations, traces, SCCs, MECs,
 * livelock, reversibility, cycle mean. */
static int opt_checks(struct cli_options *o, const char *a, struct args *x, struct wx_error *err)
{
    const char *val = NULL;
    int rc;
    if (!strcmp(a, "--action") || !strcmp(a, "--scc-out") || !strcmp(a, "--cycle-mean") ||
        !strcmp(a, "--weight") || !strcmp(a, "--default-weight") || !strcmp(a, "--mec-out")) {
        if ((rc = need_value(x, a, &val, err)) != WX_OK)
            return rc;
    }
    if (!strcmp(a, "--deadlock"))
        o->deadlock = true;
    else if (!strcmp(a, "--stop-at-first"))
        o->stop_at_first = true;
    else if (!strcmp(a, "--por"))
        o->por = true;
    else if (!strcmp(a, "--action"))
        o->action = val;
    else if (!strcmp(a, "--scc"))
        o->scc = true;
    else if (!strcmp(a, "--scc-out"))
        o->scc = true, o->scc_out = val;
    else if (!strcmp(a, "--cycle-mean")) {
        if (strcmp(val, "min") && strcmp(val, "max"))
            return bad_value(val, a, err);
        o->cycle_mean = val[1] == 'i' ? 1 : 2;
    } else if (!strcmp(a, "--weight"))
        o->weight = val;
    else if (!strcmp(a, "--default-weight"))
        o->default_weight = val;
    else if (!strcmp(a, "--mec"))
        o->mec = true;
    else if (!strcmp(a, "--mec-out"))
        o->mec = true, o->mec_out = val;
    else if (!strcmp(a, "--livelock"))
        o->livelock = true;
    else if (!strcmp(a, "--reversible"))
        o->reversible = true;
    else if (!strcmp(a, "--trace"))
        o->trace = true;
    else if (!strcmp(a, "--trace-states"))
        o->trace = o->trace_states = true;
    else
        return NOT_MINE;
    return WX_OK;
}

/* The network's reading (--hidden, --rate, --prob, --case), the output
 * files and the messages. */
static int opt_io(struct cli_options *o, const char *a, struct args *x, struct wx_error *err)
{
    const char *val = NULL;
    int rc;
    if (!strcmp(a, "--aut") || !strcmp(a, "--csr") || !strcmp(a, "--hidden") || !strcmp(a, "--to")) {
        if ((rc = need_value(x, a, &val, err)) != WX_OK)
            return rc;
    }
    if (!strcmp(a, "--aut"))
        o->aut_out = val;
    else if (!strcmp(a, "--csr"))
        o->csr_out = val;
    else if (!strcmp(a, "--json"))
        o->json = true;
    else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
        o->quiet = true;
    else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
        o->verbose++;
        o->net.verbose = true;
    } else if (!strcmp(a, "--hidden")) {
        if (!*val)
            return bad_value(val, a, err);
        o->net.hidden = val;
    } else if (!strcmp(a, "--rate"))
        o->net.rate = true;
    else if (!strcmp(a, "--prob"))
        o->net.prob = true;
    else if (!strcmp(a, "--case"))
        o->net.case_sensitive = true;
    else if (!strcmp(a, "--to")) {
        if (strcmp(val, "aut") && strcmp(val, "gpf"))
            return bad_value(val, a, err);
        o->to = val;
    } else
        return NOT_MINE;
    return WX_OK;
}

const char *const cli_prop_method_names[4] = {"auto", "ii", "ovi", "pi"};

/* explore --method auto | ii | ovi | pi: how --prop's values are solved. */
static int parse_prop_method(struct cli_options *o, const char *val, struct wx_error *err)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(val, cli_prop_method_names[i])) {
            o->prop_method = (enum cli_prop_method)i;
            o->prop_method_given = 1;
            return WX_OK;
        }
    return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                   "explore --method takes auto, ii (interval iteration), ovi (optimistic value "
                   "iteration) or pi (certified policy iteration), not '%s'; for the other methods "
                   "write the MDP with --mdp-out and use 'warpex check'", val);
}

/* Probabilistic networks: --mdp-out, --prop, --reward, --props, --epsilon, --method. */
static int opt_mdp(struct cli_options *o, const char *a, struct args *x, struct wx_error *err)
{
    const char *val = NULL;
    int rc;
    if (strcmp(a, "--mdp-out") && strcmp(a, "--prop") && strcmp(a, "--reward") && strcmp(a, "--props") &&
        strcmp(a, "--epsilon") && strcmp(a, "--method"))
        return NOT_MINE;
    if ((rc = need_value(x, a, &val, err)) != WX_OK)
        return rc;
    if (!strcmp(a, "--method"))
        return parse_prop_method(o, val, err);
    if (!strcmp(a, "--mdp-out")) {
        if (!*val)
            return bad_value(val, a, err);
        o->mdp_out = val;
    } else if (!strcmp(a, "--prop")) {
        o->props[o->n_props++] = val;
    } else if (!strcmp(a, "--reward")) {
        o->rewards[o->n_rewards++] = val;
    } else if (!strcmp(a, "--props")) {
        o->props_file = val;
    } else {
        char *end;
        errno = 0;
        o->epsilon = strtod(val, &end);
        if (*end || errno || !(o->epsilon > 0) || !(o->epsilon < 1))
            return bad_value(val, a, err);
    }
    return WX_OK;
}

/* Which commands an option belongs to: the network's reading and the
 * messages are everyone's, --to is convert's, the rest explore's (convert
 * --to aut explores, so it takes them too, but for --aut: OUT is its
 * output). */
enum opt_owner { OWN_NETWORK, OWN_CONVERT, OWN_EXPLORE };

static enum opt_owner io_owner(const char *a)
{
    if (!strcmp(a, "--to"))
        return OWN_CONVERT;
    if (!strcmp(a, "--aut") || !strcmp(a, "--csr") || !strcmp(a, "--json"))
        return OWN_EXPLORE;
    return OWN_NETWORK;
}

/* The options given are the command's (first_explore: the first explore
 * option given, or NULL). */
static int check_owners(const char *command, const struct cli_options *o, const char *first_explore,
                        struct wx_error *err)
{
    if (!strcmp(command, "explore")) {
        if (o->to)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                           "--to is convert's option; explore writes files with --aut, --csr or "
                           "--mdp-out");
        return WX_OK;
    }
    bool to_aut = !strcmp(command, "convert") && o->to && !strcmp(o->to, "aut");
    if (first_explore && !to_aut)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s%s does not take '%s': it does not explore "
                       "(try 'warpex %s --help')", command, strcmp(command, "convert") ? "" : " --to gpf",
                       first_explore, command);
    if (to_aut && o->aut_out)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "convert --to aut writes OUT: leave out --aut (or use 'warpex explore')");
    return WX_OK;
}

int cli_parse(int argc, char **argv, int first, const char *command,
              struct cli_options *o, struct wx_error *err)
{
    const char *first_explore = NULL;
    const char *positional[2] = {NULL, NULL};
    int npos = 0;

    memset(o, 0, sizeof *o);
    o->backend = EXPLORE_AUTO;
    o->props = calloc((size_t)argc + 1, sizeof *o->props);
    o->rewards = calloc((size_t)argc + 1, sizeof *o->rewards);
    if (!o->props || !o->rewards)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    o->gpu.use_textures = -1;
    struct args x = {argc, first, argv};
    for (; x.i < argc; x.i++) {
        const char *a = argv[x.i];
        if (cli_is_help(a))
            return cli_usage(command, stdout), CLI_HELP;
        enum opt_owner owner = OWN_EXPLORE;
        int rc = opt_backend(o, a, &x, err);
        if (rc == NOT_MINE)
            rc = opt_checks(o, a, &x, err);
        if (rc == NOT_MINE && (rc = opt_io(o, a, &x, err)) != NOT_MINE)
            owner = io_owner(a);
        if (rc == NOT_MINE)
            rc = opt_mdp(o, a, &x, err);
        if (rc != NOT_MINE) {
            if (rc != WX_OK)
                return rc;
            if (owner == OWN_EXPLORE && !first_explore)
                first_explore = a;
        } else if (a[0] == '-' && a[1]) {
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unknown option '%s' (try 'warpex help')", a);
        } else {
            if (npos == 2)
                return wx_fail(err, WX_EINPUT, NULL, 0, 0, "unexpected argument '%s'", a);
            positional[npos++] = a;
        }
    }
    int rc = cli_gpu_env(&o->gpu, err);
    if (rc)
        return rc;
    int want = strcmp(command, "convert") ? 1 : 2;
    if (npos != want)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s needs %s (try 'warpex help')", command,
                       want == 1 ? "one input FILE" : "an input FILE and an output file");
    if (!strcmp(command, "convert") && !o->to) /* from OUT's extension */
        o->to = has_suffix(positional[1], ".aut")   ? "aut"
                : has_suffix(positional[1], ".gpf") ? "gpf"
                                                    : NULL;
    if (!strcmp(command, "convert") && !o->to)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "convert needs --to aut or --to gpf (or an output file ending in .aut or "
                       ".gpf)");
    o->input = positional[0];
    o->output = positional[1];
    return check_owners(command, o, first_explore, err);
}

void cli_options_free(struct cli_options *o)
{
    free(o->props);
    o->props = NULL;
    free(o->rewards);
    o->rewards = NULL;
}

/* Where a hidden-looking label comes from, for the warning's hint. */
static const char *hidden_habit(const char *name)
{
    return !strcmp(name, "tau") ? "mCRL2 writes hidden steps as 'tau'"
           : !strcmp(name, "i") ? "CADP writes hidden steps as 'i'"
                                : "CCS and CSP write hidden steps as 't'";
}

static void warn_special(const struct network *net, const struct net_lint_special *k, const char *what,
                         const char *option)
{
    if (k->n_blocked)
        fprintf(stderr, "warpex: warning: label '%s'%s looks like a %s but is blocked by the "
                        "synchronisation: without %s it is an ordinary action (add %s to interleave it)\n",
                strtab_str(net->labels, k->blocked), k->n_blocked > 1 ? " (and others like it)" : "", what,
                option, option);
    if (k->n_synced)
        fprintf(stderr, "warpex: warning: label '%s'%s looks like a %s but synchronises as an ordinary "
                        "action (add %s to interleave it)\n",
                strtab_str(net->labels, k->synced), k->n_synced > 1 ? " (and others like it)" : "", what,
                option);
}

/* Warnings for labels that other tools treat specially (net_lint.h): one
 * line each on stderr; they never change a result or an exit code. */
static void warn_labels(const struct cli_options *o, const struct network *net)
{
    struct net_lint l;
    struct wx_error e;
    if (net_lint(net, o->net.rate, o->net.prob, &l, &e) != WX_OK)
        return; /* out of memory: the build will say so */
    const char *hidden = strtab_str(net->labels, net->hidden);
    if (l.hidden_like != UINT32_MAX) {
        const char *like = strtab_str(net->labels, l.hidden_like);
        if (!l.hidden_occurs)
            fprintf(stderr, "warpex: warning: label '%s' is treated as visible: the hidden label is '%s' "
                            "and no transition carries it (%s: use --hidden %s)\n",
                    like, hidden, hidden_habit(like), like);
        else if (strcmp(like, "t") && (!strcmp(hidden, "i") || !strcmp(hidden, "tau")))
            fprintf(stderr, "warpex: warning: the components use both 'i' and 'tau'; only '%s' is hidden, "
                            "'%s' stays visible (choose with --hidden)\n", hidden, like);
    } else if (o->livelock && !l.hidden_occurs) {
        fprintf(stderr, "warpex: warning: --livelock: no transition carries the hidden label '%s', so no "
                        "livelock can be found (name the hidden label with --hidden LABEL)\n", hidden);
    }
    warn_special(net, &l.rate, "Markovian rate", "--rate");
    warn_special(net, &l.prob, "probability", "--prob");
}

int cli_load_image(const struct cli_options *o, struct image *img, struct network *keep,
                   struct wx_error *err)
{
    if (keep)
        memset(keep, 0, sizeof *keep);
    /* The inputs are protected and the outputs checked before the work:
     * an output that cannot be written as asked is refused now. */
    const char *in[] = {o->input, o->props_file};
    const char *out[] = {o->csr_out, o->scc_out, o->mec_out, o->output, o->aut_out};
    int rc = cli_guard_files(in, 2, NULL, 0, err);
    if (rc != WX_OK)
        return rc;
    if (has_suffix(o->input, ".gpf")) {
        rc = cli_guard_files(NULL, 0, out, 5, err);
        return rc == WX_OK ? gpf_read(o->input, img, err) : rc;
    }
    struct network net;
    if (!has_suffix(o->input, ".exp") && !has_suffix(o->input, ".aut") &&
        !has_suffix(o->input, ".bcg"))
        return wx_fail(err, WX_EINPUT, o->input, 0, 0,
                       "unknown input format (expected a .exp, .aut or .gpf file)");
    rc = network_from_file(o->input, &o->net, &net, err);
    if (rc != WX_OK)
        return rc;
    /* the component files are inputs too (an .exp network's .aut files) */
    for (uint32_t c = 0; c < net.n_comps && rc == WX_OK; c++)
        rc = cli_guard_files((const char *const *)&net.comp_names[c], 1, NULL, 0, err);
    if (rc == WX_OK)
        rc = cli_guard_files(NULL, 0, out, 5, err);
    if (rc != WX_OK) {
        network_free(&net);
        return rc;
    }
    if (o->verbose)
        for (uint32_t c = 0; c < net.n_comps; c++)
            if (net.comps[c].n_duplicates)
                fprintf(stderr, "warpex: %s: %llu duplicate transition line%s dropped\n",
                        net.comp_names[c], (unsigned long long)net.comps[c].n_duplicates,
                        net.comps[c].n_duplicates == 1 ? "" : "s");
    if (!o->quiet)
        warn_labels(o, &net);
    rc = image_compile(&net, img, err);
    if (rc == WX_OK && keep)
        *keep = net;
    else
        network_free(&net);
    return rc;
}
