/*
 * randnet.c -- random EXP networks (see randnet.h).
 *
 * Test code: allocation failure aborts (rn_xmalloc), which is acceptable in
 * a test program and keeps the generator readable.
 *
 * "avoid_ambiguous" keeps the generator where the semantics texts are
 * explicit, so that a disagreement with the pipeline is a bug and not a
 * reading: no hide/cut/rename pattern that matches the hidden label or the
 * termination label, no "cut all but" (would it cut hidden steps?), no
 * "all but" above a termination label, no vector par over an operand that
 * can terminate ("exit" in vectors is not described), no global and local
 * interface naming the same label, local elements listed by enough
 * operands.  Without it those constructs are drawn too, and the oracle's
 * documented choices (naive.h) decide.  Always: no L#0 beside another
 * element for L (exp.open warns, warpex rejects it).
 *
 * One translation unit: this file (utilities, the leaves' files and the
 * driver randnet_generate) includes randnet_tree.c (tree construction),
 * randnet_print.c (EXP text), randnet_leaves.c (labels and component
 * LTSs), randnet_ops.c (random operators), randnet_prio.c (random prio)
 * and randsugar.c (the CCS, CSP and mCRL syntaxes).
 */
#include "randnet.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ utilities */

static void *rn_xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p)
        abort();
    return p;
}

static void *rn_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        abort();
    return q;
}

static char *rn_strdup(const char *s)
{
    size_t n = strlen(s);
    char *c = rn_xmalloc(n + 1);
    memcpy(c, s, n + 1);
    return c;
}

/* splitmix64: small, good enough, and fully determined by the seed */
struct rng { uint64_t s; };

static uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(struct rng *r, uint32_t n)
{
    return n ? (uint32_t)(rng_next(r) % n) : 0;
}

/* true with probability pct % */
static bool rng_pct(struct rng *r, uint32_t pct)
{
    return rng_below(r, 100) < pct;
}

#include "randnet_tree.c"

#include "randnet_print.c"

#include "randnet_leaves.c"

#include "randnet_ops.c"

#include "randnet_prio.c"

int randnet_leaf(void *ctx, const char *path, struct naive_lts *out, struct wx_error *err)
{
    struct randnet *rn = ctx;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t c = 0; c < rn->n_comps; c++) {
        const char *nm = rn->comp_names[c];
        size_t bl = strlen(base);
        if (strcmp(nm, base) == 0 || (strncmp(nm, base, bl) == 0 && strcmp(nm + bl, ".aut") == 0)) {
            const struct naive_lts *l = &rn->comps[c];
            memset(out, 0, sizeof *out);
            out->n_states = l->n_states;
            out->initial = l->initial;
            out->n_trans = l->n_trans;
            out->src = rn_xmalloc(l->n_trans * sizeof *out->src);
            out->dst = rn_xmalloc(l->n_trans * sizeof *out->dst);
            out->label = rn_xmalloc(l->n_trans * sizeof *out->label);
            for (size_t j = 0; j < l->n_trans; j++) {
                out->src[j] = l->src[j];
                out->dst[j] = l->dst[j];
                out->label[j] = rn_strdup(l->label[j]);
            }
            return WX_OK;
        }
    }
    return wx_fail(err, WX_EINPUT, path, 0, 0, "no such generated component");
}

/* Writes one component in a random but valid AUT spelling. */
static int write_comp(struct rng *st, const char *path, const struct naive_lts *l,
                      struct wx_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot create: %s", strerror(errno));
    const char *eol = rng_pct(st, 5) ? "\r\n" : "\n";
    const char *trail = rng_pct(st, 30) ? " " : "";
    fprintf(f, rng_pct(st, 50) ? "des (%u, %zu, %u)%s%s" : "des(%u,%zu,%u)%s%s", l->initial,
            l->n_trans, l->n_states, trail, eol);
    for (size_t j = 0; j < l->n_trans; j++) {
        const char *lab = l->label[j];
        if (is_idf(lab) && rng_pct(st, 50))
            fprintf(f, "(%u, %s, %u)%s%s", l->src[j], lab, l->dst[j], trail, eol);
        else
            fprintf(f, "(%u,\"%s\",%u)%s%s", l->src[j], lab, l->dst[j], trail, eol);
    }
    if (fclose(f) != 0)
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "write failed");
    return WX_OK;
}

static void rn_clear(struct randnet *rn)
{
    exp_node_free(rn->root);
    rn->root = NULL;
    for (size_t c = 0; c < rn->n_comps; c++) {
        naive_lts_free(&rn->comps[c]);
        free(rn->comp_names[c]);
    }
    free(rn->comps);
    free(rn->comp_names);
    rn->comps = NULL;
    rn->comp_names = NULL;
    rn->n_comps = 0;
    free(rn->exp_text);
    rn->exp_text = NULL;
    free(rn->header);
    rn->header = NULL;
    for (size_t i = 0; i < 3 * rn->n_comm; i++)
        free(rn->comm[i]);
    free(rn->comm);
    rn->comm = NULL;
    rn->n_comm = 0;
    for (size_t i = 0; i < rn->n_incl; i++)
        free(rn->incl_names[i]);
    free(rn->incl);
    free(rn->incl_names);
    rn->incl = NULL;
    rn->incl_names = NULL;
    rn->n_incl = 0;
}

/* EXP text of `n` as written in the files: included subtrees by name,
 * except `self` (the subtree whose own file this is). */
static char *rn_print_files(const struct randnet *rn, const struct exp_node *n,
                            const struct exp_node *self, uint64_t style)
{
    struct sb b = { 0 };
    struct pctx st = { .r = { style }, .n_incl = rn->n_incl,
                       .incl = (const struct exp_node *const *)rn->incl,
                       .incl_names = rn->incl_names, .self = self,
                       .lower = rn->lang == EXP_LANG_LOTOS };
    print_node(&b, &st, n, 0);
    sb_str(&b, "\n");
    return b.s;
}

#include "randsugar.c"

int randnet_generate(uint64_t seed, const struct randnet_params *pin, struct randnet *rn,
                     struct wx_error *err)
{
    struct randnet_params p = pin ? *pin : (struct randnet_params){ 0 };
    if (!pin)
        p.avoid_ambiguous = true;
    if (!p.max_states)
        p.max_states = 5000;
    if (!p.max_leaves)
        p.max_leaves = 6;
    if (!p.max_depth)
        p.max_depth = 4;
    memset(rn, 0, sizeof *rn);
    rn->seed = seed;
    wx_error_clear(err);
    for (uint32_t attempt = 0; attempt < 200; attempt++) {
        struct gen g = { 0 };
        g.r.s = seed * 0x2545f4914f6cdd1dull + attempt * 0x9e3779b97f4a7c15ull + 1;
        rng_next(&g.r);
        g.rn = rn;
        g.p = &p;
        /* variants: another hidden label (one seed in 7), stochastic labels
         * (one seed in 6) */
        rn->hidden = seed % 7 == 3 ? "tau" : "i";
        rn->rate = seed % 6 == 1;
        /* LOTOS reference language (one seed in 13): labels folded */
        rn->lang = seed % 13 == 5 ? EXP_LANG_LOTOS : EXP_LANG_NONE;
        if (rn->lang == EXP_LANG_LOTOS) {
            rn->rate = false;
            rn->hidden = "i";
        }
        g.limit = 4 * p.max_states;
        rn->attempts = attempt + 1;
        /* one seed in five may use up to twice the leaves: wider vectors */
        uint32_t leaves = 1 + rng_below(&g.r, seed % 5 == 0 ? 2 * p.max_leaves : p.max_leaves);
        struct lset L = { 0 };
        rn->has_prio = rn->prio_refused = rn->prio_cyclic = false;
        if (p.sugar && seed % 9 == 4) {
            /* CCS, CSP or mCRL syntax (randsugar.c) */
            static const enum exp_lang sl[] = { EXP_LANG_CCS, EXP_LANG_CSP, EXP_LANG_MCRL };
            rn->lang = sl[seed / 9 % 3];
            rn->hidden = rn->lang == EXP_LANG_MCRL ? "tau" : "t";
            rn->rate = false;
            rn->root = sugar_root(&g);
            subtree_labels(&g, rn->root, &L);
            rn->header = sugar_header(rn);
        } else {
            rn->root = gen_node(&g, 0, leaves, &L);
        }
        rn->root = gen_prio(&g, rn->root, &L);
        lset_free(&L);
        if (!g.failed) {
            struct naive_options o = { 0 };
            o.max_states = p.max_states;
            o.hidden = rn->hidden;
            o.rate = rn->rate;
            o.lang = rn->lang;
            o.leaf = randnet_leaf;
            o.leaf_ctx = rn;
            struct naive_result res;
            struct wx_error e2;
            /* prefer products with some room to differ: tiny ones are
             * redrawn a few times */
            int nrc = naive_explore(rn->root, &o, &res, &e2);
            if ((nrc == WX_OK && (res.states >= 6 || attempt >= 4)) ||
                (nrc == WX_EINPUT && rn->prio_cyclic)) {
                /* accepted: write the files */
                rn->exp_text = rn_print_files(rn, rn->root, NULL, rng_next(&g.r));
                const char *parent = p.tmp_parent ? p.tmp_parent : getenv("TMPDIR");
                if (!parent || !*parent)
                    parent = "/tmp";
                snprintf(rn->dir, sizeof rn->dir, "%s/warpex-randnet-XXXXXX", parent);
                if (!mkdtemp(rn->dir)) {
                    rn_clear(rn);
                    return wx_fail(err, WX_ESYSTEM, rn->dir, 0, 0, "mkdtemp: %s", strerror(errno));
                }
                struct rng st = { rng_next(&g.r) };
                for (size_t c = 0; c < rn->n_comps; c++) {
                    char path[800];
                    snprintf(path, sizeof path, "%s/%s", rn->dir, rn->comp_names[c]);
                    int rc = write_comp(&st, path, &rn->comps[c], err);
                    if (rc != WX_OK) {
                        randnet_free(rn, true);
                        return rc;
                    }
                }
                for (size_t i = 0; i < rn->n_incl; i++) {
                    /* parenthesised, so that CADP's textual inclusion and a
                     * parenthesised substitution mean the same */
                    char path[800];
                    snprintf(path, sizeof path, "%s/%s", rn->dir, rn->incl_names[i]);
                    char *t = rn_print_files(rn, rn->incl[i], rn->incl[i], rng_next(&g.r));
                    FILE *f = fopen(path, "w");
                    if (f) {
                        fprintf(f, "(* included by randnet.exp *)\n(%s)\n", t);
                        if (fclose(f) != 0)
                            f = NULL;
                    }
                    free(t);
                    if (!f) {
                        randnet_free(rn, true);
                        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot write");
                    }
                }
                snprintf(rn->exp_path, sizeof rn->exp_path, "%s/randnet.exp", rn->dir);
                FILE *f = fopen(rn->exp_path, "w");
                if (!f) {
                    randnet_free(rn, true);
                    return wx_fail(err, WX_ESYSTEM, rn->exp_path, 0, 0, "cannot create");
                }
                static const char *const hdr[] = { "lotos behaviour\n", "behaviour\n",
                                                   "lotos behavior\n" };
                fprintf(f, "(* randnet seed %llu *)\n-- generated by tests/randnet\n%s%s",
                        (unsigned long long)seed,
                        rn->header ? rn->header
                        : rn->lang == EXP_LANG_LOTOS ? hdr[seed % 3] : "", rn->exp_text);
                fclose(f);
                return WX_OK;
            }
        }
        rn_clear(rn);
    }
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "seed %llu: no network below %u states",
                   (unsigned long long)seed, p.max_states);
}

void randnet_free(struct randnet *rn, bool remove_files)
{
    if (remove_files && rn->dir[0]) {
        for (size_t c = 0; c < rn->n_comps; c++) {
            char path[800];
            snprintf(path, sizeof path, "%s/%s", rn->dir, rn->comp_names[c]);
            unlink(path);
        }
        for (size_t i = 0; i < rn->n_incl; i++) {
            char path[800];
            snprintf(path, sizeof path, "%s/%s", rn->dir, rn->incl_names[i]);
            unlink(path);
        }
        if (rn->exp_path[0])
            unlink(rn->exp_path);
        rmdir(rn->dir);
    }
    rn_clear(rn);
    memset(rn, 0, sizeof *rn);
}
