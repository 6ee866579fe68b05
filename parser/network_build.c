/* network_build.c -- EXP and AUT files to a flat network (network_build.h),
 * the front end's last step (it reads files, so it sits in parser/):
 * file names, leaf resolution, .exp inclusion; the meaning itself is in the
 * transforms (network_transform.h).
 *
 * Decisions (exp(LOCAL) leaves room, or we differ on purpose):
 *   - A leaf NAME is looked up as written (absolute, or relative to the
 *     working directory, like exp.open), then relative to the directory of
 *     the .exp file that names it.  NAME without a known extension means
 *     NAME.aut (exp.open tries NAME.bcg first; we cannot read BCG, and say so
 *     when only NAME.bcg exists).  .bcg, .seq and .fc2 leaves are WX_EINPUT
 *     at the leaf, with a bcg_io conversion hint for BCG.
 *   - "x.exp" leaves are flattened as if parenthesised (exp.open pastes the
 *     text, which can parse differently: "a.exp" || B with a.exp = hide G in
 *     A means hide G in (A || B) there, (hide G in A) || B here).  They use
 *     the including file's reference language, hidden label and folding (a
 *     network has one hidden label).  Cycles (compared by realpath) and
 *     nesting deeper than MAX_INCLUDE_DEPTH are WX_EINPUT at the leaf.
 *   - Errors: in a leaf file, at the leaf file's line (the AUT reader's
 *     location); a missing leaf, at the leaf in the .exp that names it; an
 *     EXP construct, at the construct in the file that contains it.
 *   - net_options.verbose is not acted on here (nothing below cli/ prints):
 *     the duplicate transitions dropped from each leaf stay countable in
 *     comps[c].n_duplicates.
 */
#include "network_build.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../network/network_transform.h"
#include "aut.h"
#include "exp_ast.h"

#define MAX_INCLUDE_DEPTH 64

static int load_leaf(void *user, struct net_ctx *ctx, const struct exp_node *node,
                     const char *exp_file, struct network *out, struct wx_error *err);

struct file_source {
    char *stack[MAX_INCLUDE_DEPTH]; /* canonical names of the .exp files being
                                       flattened (malloc'd), outermost first */
    int depth;
};

/* A name to compare files by: realpath, or the path when that fails. */
static char *canonical(const char *path)
{
    char *r = realpath(path, NULL);
    return r ? r : strdup(path);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* Length of the directory part of path, with its '/', or 0. */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* Finds `name`: as given (absolute, or relative to the working directory,
 * like CADP), else relative to the directory of exp_file.  Returns a malloc'd
 * path, or NULL with *oom set when out of memory. */
static char *resolve(const char *name, const char *exp_file, bool *oom)
{
    *oom = false;
    if (is_file(name)) {
        char *p = strdup(name);
        *oom = !p;
        return p;
    }
    size_t d = exp_file ? dir_len(exp_file) : 0;
    if (name[0] == '/' || d == 0)
        return NULL;
    char *p = malloc(d + strlen(name) + 1);
    if (!p) {
        *oom = true;
        return NULL;
    }
    memcpy(p, exp_file, d);
    strcpy(p + d, name);
    if (is_file(p))
        return p;
    free(p);
    return NULL;
}

static int include_exp(struct file_source *fs, struct net_ctx *ctx,
                       const struct exp_node *node, const char *exp_file,
                       const char *path, struct network *out, struct wx_error *err)
{
    char *canon = canonical(path);
    if (!canon)
        return wx_fail(err, WX_ESYSTEM, exp_file, node->loc.line, node->loc.col,
                       "out of memory");
    for (int i = 0; i < fs->depth; i++)
        if (strcmp(fs->stack[i], canon) == 0) {
            free(canon);
            return wx_fail(err, WX_EINPUT, exp_file, node->loc.line, node->loc.col,
                           "\"%s\" includes itself (inclusion cycle)", path);
        }
    if (fs->depth == MAX_INCLUDE_DEPTH) {
        free(canon);
        return wx_fail(err, WX_EINPUT, exp_file, node->loc.line, node->loc.col,
                       "EXP files nested more than %d deep", MAX_INCLUDE_DEPTH);
    }
    struct exp_file *f = NULL;
    int rc = exp_parse_file(path, &f, err);
    if (rc != WX_OK) {
        free(canon);
        return rc;
    }
    /* the included behaviour is flattened as if parenthesised, under the
     * including file's language settings (one hidden label per network) */
    const char *saved = ctx->file;
    ctx->file = f->name ? f->name : path;
    fs->stack[fs->depth++] = canon;
    struct net_leaf_source src = {load_leaf, fs};
    rc = net_flatten(ctx, f->root, &src, out, err);
    free(fs->stack[--fs->depth]);
    ctx->file = saved;
    exp_file_free(f);
    return rc;
}

static int read_aut_leaf(struct net_ctx *ctx, const char *path, struct network *out,
                         struct wx_error *err)
{
    struct lts l;
    uint32_t initial = 0;
    memset(&l, 0, sizeof l);
    int rc = aut_read_prob(path, ctx->labels, &l, &initial, err);
    if (rc != WX_OK)
        return rc;
    return net_leaf(ctx, &l, initial, path, out, err);
}

/* The leaf is missing: say where we looked, and whether a .bcg is there. */
static int not_found(const char *name, const char *want, bool has_ext,
                     const char *exp_file, int line, int col, struct wx_error *err)
{
    size_t d = exp_file ? dir_len(exp_file) : 0;
    if (!has_ext) {
        size_t n = strlen(name);
        char *bcg = malloc(n + 5);
        bool oom = !bcg;
        char *found = NULL;
        if (bcg) {
            memcpy(bcg, name, n);
            strcpy(bcg + n, ".bcg");
            found = resolve(bcg, exp_file, &oom);
        }
        if (found) {
            wx_fail(err, WX_EINPUT, exp_file, line, col,
                    "\"%s\" not found, only the BCG file \"%s\", which warpex "
                    "cannot read; convert it with CADP: bcg_io %s %s", want, found,
                    found, want);
            free(found), free(bcg);
            return WX_EINPUT;
        }
        free(bcg);
        if (oom)
            return wx_fail(err, WX_ESYSTEM, exp_file, line, col, "out of memory");
    }
    if (d == 0 || want[0] == '/')
        return wx_fail(err, WX_EINPUT, exp_file, line, col, "cannot find \"%s\"", want);
    return wx_fail(err, WX_EINPUT, exp_file, line, col,
                   "cannot find \"%s\" (looked in the working directory and in "
                   "\"%.*s\")", want, (int)d, exp_file);
}

static int load_leaf(void *user, struct net_ctx *ctx, const struct exp_node *node,
                     const char *exp_file, struct network *out, struct wx_error *err)
{
    struct file_source *fs = user;
    const char *name = node->path;
    int line = node->loc.line, col = node->loc.col;
    if (ends_with(name, ".bcg"))
        return wx_fail(err, WX_EINPUT, exp_file, line, col,
                       "\"%s\" is a BCG file, which warpex cannot read; convert it "
                       "with CADP: bcg_io %s %.*s.aut", name, name,
                       (int)(strlen(name) - 4), name);
    if (ends_with(name, ".seq") || ends_with(name, ".fc2"))
        return wx_fail(err, WX_EINPUT, exp_file, line, col,
                       "\"%s\": not supported yet: %s leaves (convert to AUT)", name,
                       ends_with(name, ".seq") ? "SEQ" : "FC2");
    bool is_exp = ends_with(name, ".exp"), has_ext = is_exp || ends_with(name, ".aut");
    char *want = malloc(strlen(name) + 5);
    if (!want)
        return wx_fail(err, WX_ESYSTEM, exp_file, line, col, "out of memory");
    strcpy(want, name);
    if (!has_ext)
        strcat(want, ".aut"); /* CADP tries NAME.bcg first; we read AUT only */
    bool oom;
    char *path = resolve(want, exp_file, &oom);
    if (!path) {
        int rc = oom ? wx_fail(err, WX_ESYSTEM, exp_file, line, col, "out of memory")
                     : not_found(name, want, has_ext, exp_file, line, col, err);
        free(want);
        return rc;
    }
    free(want);
    int rc = is_exp ? include_exp(fs, ctx, node, exp_file, path, out, err)
                    : read_aut_leaf(ctx, path, out, err);
    free(path);
    return rc;
}

/* The build's context for the options and the language of `f` (NULL: AUT). */
static int build_ctx(struct net_ctx *ctx, const struct net_options *opt,
                     const struct exp_file *f, const char *file, struct wx_error *err)
{
    static const struct net_options none = {0};
    if (!opt)
        opt = &none;
    memset(ctx, 0, sizeof *ctx);
    ctx->rate = opt->rate;
    ctx->prob = opt->prob;
    ctx->file = file;
    ctx->log = opt->log;
    return net_ctx_init(ctx, f ? f->lang : EXP_LANG_NONE, f ? f->has_header : false,
                        opt->hidden, opt->case_sensitive, err);
}

/* Normalises the finished network and hands it the label table. */
static int finish(struct net_ctx *ctx, struct network *net, const char *file,
                  struct wx_error *err)
{
    if (network_normalise(net) != 0) {
        net_discard(net);
        strtab_free(ctx->labels);
        return wx_fail(err, WX_ESYSTEM, file, 0, 0, "out of memory");
    }
    net->labels = ctx->labels;
    net->hidden = ctx->hidden;
    return WX_OK;
}

int network_from_exp(const char *path, const struct net_options *opt,
                     struct network *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    struct exp_file *f = NULL;
    int rc = exp_parse_file(path, &f, err);
    if (rc != WX_OK)
        return rc;
    const char *name = f->name ? f->name : path;
    struct net_ctx ctx;
    rc = build_ctx(&ctx, opt, f, name, err);
    if (rc == WX_OK) {
        struct file_source fs = {.stack = {canonical(path)}, .depth = 1};
        struct net_leaf_source src = {load_leaf, &fs};
        rc = fs.stack[0] ? net_flatten(&ctx, f->root, &src, out, err)
                         : wx_fail(err, WX_ESYSTEM, name, 0, 0, "out of memory");
        free(fs.stack[0]);
        if (rc == WX_OK)
            rc = finish(&ctx, out, name, err);
        else
            strtab_free(ctx.labels);
    } else {
        strtab_free(ctx.labels);
    }
    exp_file_free(f);
    if (rc != WX_OK)
        memset(out, 0, sizeof *out);
    return rc;
}

int network_from_aut(const char *path, const struct net_options *opt,
                     struct network *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    struct net_ctx ctx;
    int rc = build_ctx(&ctx, opt, NULL, path, err);
    if (rc == WX_OK)
        rc = read_aut_leaf(&ctx, path, out, err);
    if (rc == WX_OK)
        return finish(&ctx, out, path, err);
    strtab_free(ctx.labels);
    memset(out, 0, sizeof *out);
    return rc;
}

int network_from_file(const char *path, const struct net_options *opt,
                      struct network *out, struct wx_error *err)
{
    if (ends_with(path, ".exp"))
        return network_from_exp(path, opt, out, err);
    if (ends_with(path, ".aut"))
        return network_from_aut(path, opt, out, err);
    memset(out, 0, sizeof *out);
    if (ends_with(path, ".bcg"))
        return wx_fail(err, WX_EINPUT, path, 0, 0,
                       "BCG files cannot be read; convert it with CADP: bcg_io %s %.*s.aut",
                       path, (int)(strlen(path) - 4), path);
    return wx_fail(err, WX_EINPUT, path, 0, 0,
                   "unknown input format (expected a .exp or .aut file)");
}
