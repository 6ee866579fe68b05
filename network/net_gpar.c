/* net_gpar.c -- [gate|label] par [all | S in] [S1 ->] B1 || ... || [Sn ->] Bn
 * end par, the E-LOTOS/LNT generalised parallel (and LOTOS ||, |||, |[G]|,
 * which the parser desugars into it).
 *
 * Expansion at label level, over the visible labels actually present among
 * the operands' rule results.  For a label a, an interface element matches
 * when its text equals gate(a) (gate mode) or a (label mode).  The element
 * set yields *participant patterns* (sets of operands), which apply
 * nondeterministically (the manual: "the corresponding synchronisation rules
 * apply nondeterministically"):
 *   - global L          all n operands;
 *   - global L#N, N>0   every N-subset of the operands;
 *   - "par all in"      as global L for every label;
 *   - local L           the operands whose local interface lists L;
 *   - local L#N, N>0    every N-subset of the operands listing L#N;
 *   - L#0               no pattern (forbids L where listed);
 *   - an operand whose global and local interfaces match nothing runs a
 *     asynchronously: pattern {i}.
 * Labels whose gate is the termination gate (ctx->termination, "exit" by
 * default; compared case-insensitively when labels are folded) always
 * synchronise all operands, whatever the interfaces say.
 * For a pattern S, every choice of one rule with result a per operand in S
 * gives one flattened rule (union of participants, result a): LOTOS
 * rendezvous, identical full labels.  Hidden and stochastic rules interleave.
 *
 * Hard errors (WX_EINPUT at the element): the hidden label or the
 * termination gate in an interface; in gate mode an element with offers;
 * L#0 together with L or L#N (N > 0) in the global interface, or in the
 * same local interface, or L#0 global with L in any local interface.
 * exp.open's other well-formedness checks are warnings there; here they are
 * silently accepted with the meaning above (e.g. a global L#N with fewer
 * than N operands yields no rule, so L is blocked).
 */
#include "net_int.h"
#include "../util/arith.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct gel {              /* one interface element, folded */
    char *text;
    int degree;           /* -1: none written */
    struct exp_loc loc;
};

struct giface {
    size_t n;
    struct gel *el;
};

static void giface_free(struct giface *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->el[i].text);
    free(f->el);
    memset(f, 0, sizeof *f);
}

static int prep_iface(struct net_ctx *ctx, const struct exp_iface *in, bool label_mode,
                      struct giface *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    out->el = calloc(in->n ? in->n : 1, sizeof *out->el);
    if (!out->el)
        return wx_fail(err, WX_ESYSTEM, ctx->file, 0, 0, "out of memory");
    const char *hidden = strtab_str(ctx->labels, ctx->hidden);
    for (size_t i = 0; i < in->n; i++) {
        const struct exp_sync_el *e = &in->el[i];
        char *t = ctx->fold ? label_fold_upper(e->label, false) : strdup(e->label);
        if (!t) {
            giface_free(out);
            return wx_fail(err, WX_ESYSTEM, ctx->file, e->loc.line, e->loc.col,
                           "out of memory");
        }
        out->el[out->n++] = (struct gel){t, e->degree, e->loc};
        const char *why = NULL;
        if (strcmp(t, hidden) == 0 || strcmp(e->label, hidden) == 0)
            why = "the hidden label may not appear in a synchronisation interface";
        else if (net_is_termination(ctx, t, label_gate_len(t)))
            why = "the termination gate may not appear in a synchronisation interface "
                  "(it always synchronises all operands)";
        else if (!label_mode && (t[0] == '\0' || label_gate_len(t) != strlen(t)))
            why = "in gate mode an interface element must be a gate without offers "
                  "(write \"label par\" to synchronise on full labels)";
        if (why) {
            int rc = wx_fail(err, WX_EINPUT, ctx->file, e->loc.line, e->loc.col,
                             "\"%s\": %s", e->label, why);
            giface_free(out);
            return rc;
        }
    }
    return WX_OK;
}

/* L#0 must not be mixed with L or L#N, N > 0 (exp(LOCAL) well-formedness). */
static int check_zero(struct net_ctx *ctx, const struct giface *glob,
                      const struct giface *loc, size_t n, struct wx_error *err)
{
    for (size_t f = 0; f <= n; f++) {
        const struct giface *z = f == 0 ? glob : &loc[f - 1];
        for (size_t i = 0; i < z->n; i++) {
            if (z->el[i].degree != 0)
                continue;
            const char *L = z->el[i].text;
            /* the same interface, the global one, and for a global L#0 every
             * local one */
            for (size_t g = 0; g <= n; g++) {
                const struct giface *w = g == 0 ? glob : &loc[g - 1];
                if (!(w == z || g == 0 || f == 0))
                    continue;
                for (size_t j = 0; j < w->n; j++)
                    if (w->el[j].degree != 0 && strcmp(w->el[j].text, L) == 0) {
                        const struct exp_loc *at = &z->el[i].loc;
                        return wx_fail(err, WX_EINPUT, ctx->file, at->line, at->col,
                                       "\"%s#0\" forbids \"%s\", which the %s "
                                       "interface also lists with a positive or no "
                                       "degree", L, L, g == 0 ? "global" : "local");
                    }
            }
        }
    }
    return WX_OK;
}

struct gpar {             /* working state of one expansion */
    struct net_ctx *ctx;
    struct rule_buf *b;
    struct network *ops;
    size_t n;
    const uint32_t *offset;
    uint32_t **vis;       /* per operand: visible rules sorted by result id */
    uint32_t *nvis;
    uint32_t *lo, *hi;    /* per operand: range of the current label */
    size_t *op;           /* pattern being emitted */
    uint32_t *plo, *phi;
    uint32_t **prules;
    size_t *comb;         /* subset enumeration */
    size_t *cand;
    struct product_scratch sc;
};

/* Emits the rules of pattern op[0..k) for label a. */
static int emit(struct gpar *g, size_t k, uint32_t a)
{
    for (size_t j = 0; j < k; j++) {
        size_t i = g->op[j];
        g->plo[j] = g->lo[i];
        g->phi[j] = g->hi[i];
        g->prules[j] = g->vis[i];
    }
    return rule_buf_product(g->b, g->ops, g->offset, k, g->op, g->prules, g->plo,
                            g->phi, a, &g->sc);
}

/* Emits every N-subset of the m candidates cand[0..m) (ascending). */
static int emit_subsets(struct gpar *g, size_t m, size_t N, uint32_t a)
{
    if (N == 0 || N > m)
        return WX_OK;
    for (size_t j = 0; j < N; j++)
        g->comb[j] = j;
    for (;;) {
        for (size_t j = 0; j < N; j++)
            g->op[j] = g->cand[g->comb[j]];
        int rc = emit(g, N, a);
        if (rc != WX_OK)
            return rc;
        size_t j = N; /* next combination in lexicographic order */
        while (j > 0 && g->comb[j - 1] == m - N + (j - 1))
            j--;
        if (j == 0)
            return WX_OK;
        g->comb[j - 1]++;
        for (size_t x = j; x < N; x++)
            g->comb[x] = g->comb[x - 1] + 1;
    }
}

static bool has_degree(const int *d, size_t nd, int x)
{
    for (size_t i = 0; i < nd; i++)
        if (d[i] == x)
            return true;
    return false;
}

/* Does interface f have an element matching key[0..len)?  Adds the degrees
 * of the matching elements to the distinct list deg[0..*nd). */
static bool iface_match(const struct giface *f, const char *key, size_t len,
                        int *deg, size_t *nd)
{
    bool any = false;
    for (size_t i = 0; i < f->n; i++) {
        const char *t = f->el[i].text;
        if (strlen(t) != len || memcmp(t, key, len) != 0)
            continue;
        any = true;
        if (deg && !has_degree(deg, *nd, f->el[i].degree))
            deg[(*nd)++] = f->el[i].degree;
    }
    return any;
}

static int one_label(struct gpar *g, uint32_t a, const struct exp_node *par,
                     const struct giface *glob, const struct giface *loc,
                     int *gdeg, int *ldeg, bool *constrained)
{
    struct net_ctx *ctx = g->ctx;
    size_t n = g->n;
    for (size_t i = 0; i < n; i++) { /* rules of operand i with result a */
        uint32_t x = 0, y = g->nvis[i];
        while (x < y) {
            uint32_t m = x + (y - x) / 2;
            if (g->ops[i].rule_result[g->vis[i][m]] < a)
                x = m + 1;
            else
                y = m;
        }
        g->lo[i] = x;
        for (y = x; y < g->nvis[i] && g->ops[i].rule_result[g->vis[i][y]] == a; y++)
            ;
        g->hi[i] = y;
    }
    const char *s = strtab_str(ctx->labels, a);
    size_t gl = label_gate_len(s);
    if (net_is_termination(ctx, s, gl)) {
        for (size_t i = 0; i < n; i++)
            g->op[i] = i;
        return emit(g, n, a);
    }
    size_t klen = par->label_mode ? strlen(s) : gl;
    size_t ngd = 0;
    iface_match(glob, s, klen, gdeg, &ngd);
    if (par->global_all && !has_degree(gdeg, ngd, -1))
        gdeg[ngd++] = -1;
    int rc = WX_OK;
    for (size_t d = 0; d < ngd && rc == WX_OK; d++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (gdeg[d] == -1 || g->lo[i] < g->hi[i])
                g->cand[m++] = i;
        rc = emit_subsets(g, m, gdeg[d] == -1 ? n : (size_t)gdeg[d], a);
    }
    /* local interfaces: distinct degrees over all operands */
    size_t nld = 0;
    for (size_t i = 0; i < n; i++) {
        constrained[i] = ngd > 0;
        if (iface_match(&loc[i], s, klen, ldeg, &nld))
            constrained[i] = true;
    }
    for (size_t d = 0; d < nld && rc == WX_OK; d++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            /* operand i lists the label with degree ldeg[d]? */
            bool lists = false;
            for (size_t e = 0; e < loc[i].n; e++) {
                const struct gel *el = &loc[i].el[e];
                if (el->degree == ldeg[d] && strlen(el->text) == klen &&
                    memcmp(el->text, s, klen) == 0)
                    lists = true;
            }
            if (lists && (ldeg[d] == -1 || g->lo[i] < g->hi[i]))
                g->cand[m++] = i;
        }
        if (ldeg[d] == -1) {
            for (size_t j = 0; j < m; j++)
                g->op[j] = g->cand[j];
            rc = m ? emit(g, m, a) : WX_OK;
        } else {
            rc = emit_subsets(g, m, (size_t)ldeg[d], a);
        }
    }
    for (size_t i = 0; i < n && rc == WX_OK; i++)
        if (!constrained[i] && g->lo[i] < g->hi[i]) {
            g->op[0] = i;
            rc = emit(g, 1, a);
        }
    return rc;
}

static int cmp_by_result(const void *x, const void *y, void *arg)
{
    const struct network *net = arg;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    uint32_t ra = net->rule_result[a], rb = net->rule_result[b];
    if (ra != rb)
        return ra < rb ? -1 : 1;
    return a < b ? -1 : a > b;
}

int net_par_general(struct net_ctx *ctx, struct network *ops, size_t n,
                    const struct exp_node *par, struct network *out,
                    struct wx_error *err)
{
    network_init(out, ctx->labels, ctx->hidden);
    struct giface glob = {0};
    struct giface *loc = calloc(n ? n : 1, sizeof *loc);
    uint32_t *offset = calloc(n ? n : 1, sizeof *offset);
    uint32_t *labels = NULL;
    size_t nlab = 0;
    int *gdeg = NULL, *ldeg = NULL;
    bool *constrained = calloc(n ? n : 1, sizeof *constrained);
    struct rule_buf b;
    rule_buf_init(&b, ctx);
    struct gpar g = {.ctx = ctx, .b = &b, .ops = ops, .n = n, .offset = offset};
    size_t nn = n ? n : 1;
    g.vis = calloc(nn, sizeof *g.vis);
    g.nvis = calloc(nn, sizeof *g.nvis);
    g.lo = malloc(nn * sizeof *g.lo), g.hi = malloc(nn * sizeof *g.hi);
    g.op = malloc(nn * sizeof *g.op), g.cand = malloc(nn * sizeof *g.cand);
    g.comb = malloc(nn * sizeof *g.comb);
    g.plo = malloc(nn * sizeof *g.plo), g.phi = malloc(nn * sizeof *g.phi);
    g.prules = malloc(nn * sizeof *g.prules);
    int rc = WX_OK;
    if (!out->rule_start || !loc || !offset || !constrained || !g.vis || !g.nvis ||
        !g.lo || !g.hi || !g.op || !g.cand || !g.comb || !g.plo || !g.phi || !g.prules) {
        rc = wx_fail(err, WX_ESYSTEM, ctx->file, par->loc.line, par->loc.col,
                     "out of memory");
        goto done;
    }
    if ((rc = prep_iface(ctx, &par->global, par->label_mode, &glob, err)) != WX_OK)
        goto done;
    size_t max_el = glob.n + 1;
    for (size_t i = 0; i < n; i++) {
        static const struct exp_iface none = {0, NULL};
        const struct exp_iface *li = par->locals && par->has_local && par->has_local[i]
                                         ? &par->locals[i] : &none;
        if ((rc = prep_iface(ctx, li, par->label_mode, &loc[i], err)) != WX_OK)
            goto done;
        max_el += loc[i].n;
    }
    if ((rc = check_zero(ctx, &glob, loc, n, err)) != WX_OK)
        goto done;
    gdeg = malloc(max_el * sizeof *gdeg);
    ldeg = malloc(max_el * sizeof *ldeg);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += ops[i].n_rules;
    labels = malloc((total ? total : 1) * sizeof *labels);
    if (!gdeg || !ldeg || !labels) {
        rc = WX_ESYSTEM;
        goto fail;
    }
    /* components; hidden/stochastic rules pass through; index the rest */
    for (size_t i = 0; i < n && rc == WX_OK; i++) {
        offset[i] = out->n_comps;
        if (net_move_comps(out, &ops[i]) != WX_OK) {
            rc = WX_ESYSTEM;
            break;
        }
        g.vis[i] = malloc((ops[i].n_rules ? ops[i].n_rules : 1) * sizeof *g.vis[i]);
        if (!g.vis[i]) {
            rc = WX_ESYSTEM;
            break;
        }
        for (uint32_t r = 0; r < ops[i].n_rules && rc == WX_OK; r++) {
            uint32_t res = ops[i].rule_result[r];
            if (res == ctx->hidden || net_is_stochastic(ctx, res)) {
                rc = rule_buf_copy(&b, &ops[i], r, offset[i]);
            } else {
                g.vis[i][g.nvis[i]++] = r;
                labels[nlab++] = res;
            }
        }
        qsort_r(g.vis[i], g.nvis[i], sizeof *g.vis[i], cmp_by_result, &ops[i]);
    }
    if (rc != WX_OK)
        goto fail;
    qsort(labels, nlab, sizeof *labels, wx_cmp_u32);
    for (size_t x = 0; x < nlab && rc == WX_OK; x++)
        if (x == 0 || labels[x] != labels[x - 1])
            rc = one_label(&g, labels[x], par, &glob, loc, gdeg, ldeg, constrained);
    if (rc == WX_OK)
        rc = rule_buf_install(&b, out);
fail:
    if (rc != WX_OK)
        rc = rule_buf_fail(rc, ctx, &b, par->loc, err);
done:
    giface_free(&glob);
    for (size_t i = 0; loc && i < n; i++)
        giface_free(&loc[i]);
    for (size_t i = 0; g.vis && i < n; i++)
        free(g.vis[i]);
    free(loc), free(offset), free(labels), free(gdeg), free(ldeg), free(constrained);
    free(g.vis), free(g.nvis), free(g.lo), free(g.hi), free(g.op), free(g.cand);
    free(g.comb), free(g.plo), free(g.phi), free(g.prules);
    product_scratch_free(&g.sc);
    rule_buf_free(&b);
    net_discard_all(ops, n);
    if (rc != WX_OK)
        net_discard(out);
    return rc;
}
