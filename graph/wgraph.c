/*
 * wgraph.c -- weighted graphs from DIMACS, edge lists, CSR (+ sidecar or
 * label weights) and .aut with label weights (formats: wgraph.h).
 *
 * Text readers collect edges as (src, dst, mantissa, places, transit) in
 * file order, then one finishing pass scales every weight to the common
 * number of decimal places and buckets the edges by source (a stable
 * counting sort, so parallel edges and their order survive).  To locate a
 * scaling overflow without storing a line per edge, the reader remembers,
 * for each number of decimal places, the largest |mantissa| and where it
 * stood: the scaled maximum of each class is what overflows first.
 */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/stat.h>

#include "../parser/aut.h"
#include "csr.h"
#include "scan_int.h"
#include "wgraph.h"

#define MAX_VERTEX_ID (UINT32_MAX - 1ull)
#define WLIMIT 2147483647LL
#define MAX_PLACES 18

/* Edges in file order plus what the finishing pass needs. */
struct collect {
    uint64_t n, cap;
    uint32_t *src, *dst;
    int64_t *mant, *transit;
    uint8_t *places;
    int has_transit;          /* -1 unknown (no edge yet), 0, 1 */
    /* per number of places: largest |mantissa| and its location */
    int64_t worst[MAX_PLACES + 1];
    int worst_line[MAX_PLACES + 1], worst_col[MAX_PLACES + 1];
    int have_worst[MAX_PLACES + 1];
};

static void collect_free(struct collect *c)
{
    free(c->src);
    free(c->dst);
    free(c->mant);
    free(c->transit);
    free(c->places);
    memset(c, 0, sizeof *c);
}

static int collect_push(struct collect *c, uint32_t u, uint32_t v, int64_t mant, unsigned places,
                        int64_t t, int line, int col, struct wx_error *err, const char *name)
{
    if (c->n == c->cap) {
        uint64_t nc = c->cap ? c->cap * 2 : 1024;
        uint32_t *s = realloc(c->src, nc * sizeof *s);
        if (s)
            c->src = s;
        uint32_t *d = realloc(c->dst, nc * sizeof *d);
        if (d)
            c->dst = d;
        int64_t *m = realloc(c->mant, nc * sizeof *m);
        if (m)
            c->mant = m;
        int64_t *tt = realloc(c->transit, nc * sizeof *tt);
        if (tt)
            c->transit = tt;
        uint8_t *p = realloc(c->places, nc);
        if (p)
            c->places = p;
        if (!s || !d || !m || !tt || !p)
            return wx_fail(err, WX_ELIMIT, name, line, 0, "out of memory (%llu edges)",
                           (unsigned long long)c->n);
        c->cap = nc;
    }
    c->src[c->n] = u, c->dst[c->n] = v, c->mant[c->n] = mant, c->places[c->n] = (uint8_t)places;
    c->transit[c->n] = t;
    c->n++;
    int64_t a = mant < 0 ? -mant : mant;
    if (!c->have_worst[places] || a > c->worst[places]) {
        c->have_worst[places] = 1, c->worst[places] = a;
        c->worst_line[places] = line, c->worst_col[places] = col;
    }
    return WX_OK;
}

int wgraph_parse_weight(const char *s, size_t len, int64_t *mant, unsigned *places)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i >= len || !isdigit((unsigned char)s[i]))
        return WX_EINPUT;
    size_t int_start = i;
    while (i < len && isdigit((unsigned char)s[i]))
        i++;
    size_t int_end = i, frac_start = i, frac_end = i;
    if (i < len && s[i] == '.') {
        frac_start = ++i;
        while (i < len && isdigit((unsigned char)s[i]))
            i++;
        frac_end = i;
        if (frac_end == frac_start)
            return WX_EINPUT;
    }
    if (i != len)
        return WX_EINPUT;
    while (frac_end > frac_start && s[frac_end - 1] == '0')
        frac_end--;
    while (int_start < int_end - 1 && s[int_start] == '0')
        int_start++;
    /* significant digits: those after the leading zeros of int . frac */
    size_t lead = 0;
    if (int_end - int_start == 1 && s[int_start] == '0') {
        lead = 1;
        while (frac_start + (lead - 1) < frac_end && s[frac_start + (lead - 1)] == '0')
            lead++;
    }
    if ((int_end - int_start) + (frac_end - frac_start) - lead > MAX_PLACES ||
        frac_end - frac_start > MAX_PLACES)
        return WX_ELIMIT;
    int64_t x = 0;
    for (size_t k = int_start; k < int_end; k++)
        x = x * 10 + (s[k] - '0');
    for (size_t k = frac_start; k < frac_end; k++)
        x = x * 10 + (s[k] - '0');
    *mant = neg ? -x : x;
    *places = (unsigned)(frac_end - frac_start);
    return WX_OK;
}

/* A WEIGHT token at the cursor. */
static int read_weight(struct scan *s, int64_t *mant, unsigned *places, int *col)
{
    scan_skip_blanks(s);
    const char *at = s->c;
    while (s->c < s->le && *s->c != ' ' && *s->c != '\t')
        s->c++;
    *col = scan_col(s, at);
    if (at == s->c) {
        s->c = at;
        return scan_fail_here(s, WX_EINPUT, "a weight (an integer or decimal number)");
    }
    int rc = wgraph_parse_weight(at, (size_t)(s->c - at), mant, places);
    if (rc == WX_ELIMIT)
        return wx_fail(s->err, WX_ELIMIT, s->name, scan_line(s), *col,
                       "weight '%.*s' has more than %d significant digits or decimal places",
                       (int)(s->c - at), at, MAX_PLACES);
    if (rc != WX_OK)
        return scan_fail_at(s, at, WX_EINPUT, "a weight (an integer or decimal number)");
    return WX_OK;
}

/* An optional TRANSIT token, then the end of the line; *t = 0 when absent. */
static int read_transit_eol(struct scan *s, struct collect *c, int64_t *t)
{
    *t = 0;
    if (!scan_at_eol(s)) {
        const char *at = s->c;
        uint64_t x;
        int rc = scan_read_u64(s, &x, "a transit time (an integer >= 1) or the end of the line");
        if (rc != WX_OK)
            return rc;
        if (x < 1 || x > (uint64_t)WLIMIT)
            return wx_fail(s->err, x < 1 ? WX_EINPUT : WX_ELIMIT, s->name, scan_line(s),
                           scan_col(s, at), "transit time %llu: transit times are 1 .. 2^31 - 1",
                           (unsigned long long)x);
        *t = (int64_t)x;
        if (!scan_at_eol(s))
            return scan_fail_here(s, WX_EINPUT, "the end of the line");
    }
    int has = *t != 0;
    if (c->has_transit >= 0 && c->has_transit != has)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, s->c),
                       has ? "a transit time, but earlier edges have none (all or none)"
                           : "no transit time, but earlier edges have one (all or none)");
    c->has_transit = has;
    return WX_OK;
}

static int read_id(struct scan *s, uint64_t base, uint64_t limit, uint32_t *v, const char *what)
{
    scan_skip_blanks(s);
    const char *at = s->c;
    uint64_t x;
    int rc = scan_read_u64(s, &x, what);
    if (rc != WX_OK)
        return rc;
    if (x < base)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                       "%s is 0, but vertices in this format are numbered from 1", what);
    x -= base;
    if (x > MAX_VERTEX_ID)
        return wx_fail(s->err, WX_ELIMIT, s->name, scan_line(s), scan_col(s, at),
                       "%s %llu is too large: graphs have at most 2^32 - 1 vertices", what,
                       (unsigned long long)(x + base));
    if (x >= limit)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                       "%s %llu is out of range: the 'p' line declares %llu vertices", what,
                       (unsigned long long)(x + base), (unsigned long long)limit);
    if ((rc = scan_check_id(s, at, x, what)) != WX_OK)
        return rc;
    *v = (uint32_t)x;
    return WX_OK;
}

/* One edge line's "U V WEIGHT [TRANSIT]" after the cursor. */
static int read_arc(struct scan *s, struct collect *c, uint64_t base, uint64_t limit,
                    uint64_t *max_plus_1)
{
    uint32_t u, v;
    int64_t mant, t;
    unsigned places;
    int col, rc;
    if ((rc = read_id(s, base, limit, &u, "source vertex")) != WX_OK ||
        (rc = read_id(s, base, limit, &v, "target vertex")) != WX_OK ||
        (rc = read_weight(s, &mant, &places, &col)) != WX_OK ||
        (rc = read_transit_eol(s, c, &t)) != WX_OK)
        return rc;
    if ((uint64_t)u + 1 > *max_plus_1)
        *max_plus_1 = (uint64_t)u + 1;
    if ((uint64_t)v + 1 > *max_plus_1)
        *max_plus_1 = (uint64_t)v + 1;
    return collect_push(c, u, v, mant, places, t ? t : 1, scan_line(s), col, s->err, s->name);
}

static int read_edges(struct scan *s, struct collect *c, uint64_t *n)
{
    *n = 0;
    while (scan_next_content_line(s, "#%")) {
        int rc = read_arc(s, c, 0, UINT64_MAX, n);
        if (rc != WX_OK)
            return rc;
    }
    return WX_OK;
}

static int read_dimacs(struct scan *s, struct collect *c, uint64_t *n)
{
    uint64_t declared_m = 0, p_line = 0, dummy = 0;
    int have_p = 0, m_col = 0;
    *n = 0;
    while (scan_next_content_line(s, "")) {
        char kind = *s->c;
        const char *at = s->c;
        s->c++;
        if (s->c < s->le && *s->c != ' ' && *s->c != '\t') {
            s->c = at;
            return scan_fail_here(s, WX_EINPUT, "a line starting 'c', 'p' or 'a'");
        }
        if (kind == 'c')
            continue;
        if (kind == 'p') {
            if (have_p)
                return scan_fail_at(s, at, WX_EINPUT, "one 'p' line only (a second one found)");
            have_p = 1;
            p_line = s->line;
            /* "p [NAME] N M": a NAME is a token that is not a number */
            scan_skip_blanks(s);
            if (s->c < s->le && !isdigit((unsigned char)*s->c))
                while (s->c < s->le && *s->c != ' ' && *s->c != '\t')
                    s->c++;
            uint64_t nn, mm;
            const char *nat;
            scan_skip_blanks(s);
            nat = s->c;
            int rc;
            if ((rc = scan_read_u64(s, &nn, "the number of vertices")) != WX_OK)
                return rc;
            scan_skip_blanks(s);
            m_col = scan_col(s, s->c);
            if ((rc = scan_read_u64(s, &mm, "the number of arcs")) != WX_OK)
                return rc;
            if (!scan_at_eol(s))
                return scan_fail_here(s, WX_EINPUT, "the end of the 'p' line");
            if (nn > MAX_VERTEX_ID + 1)
                return wx_fail(s->err, WX_ELIMIT, s->name, scan_line(s), scan_col(s, nat),
                               "%llu vertices: graphs have at most 2^32 - 1 vertices",
                               (unsigned long long)nn);
            if ((rc = scan_check_id(s, nat, nn, "the number of vertices")) != WX_OK)
                return rc;
            *n = nn;
            declared_m = mm;
            continue;
        }
        if (kind == 'a') {
            if (!have_p)
                return scan_fail_at(s, at, WX_EINPUT, "the 'p' line before the first arc");
            if (c->n == declared_m)
                return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                               "more arcs than the %llu the 'p' line declares",
                               (unsigned long long)declared_m);
            int rc = read_arc(s, c, 1, *n, &dummy);
            if (rc != WX_OK)
                return rc;
            continue;
        }
        s->c = at;
        return scan_fail_here(s, WX_EINPUT, "a line starting 'c', 'p' or 'a'");
    }
    /* at the end of the file: on the line after a final LF */
    if (!have_p)
        return wx_fail(s->err, WX_EINPUT, s->name,
                       scan_line(s) + (s->end == s->begin || s->end[-1] == '\n'), 1,
                       "no 'p' line (expected 'p [NAME] VERTICES ARCS')");
    if (c->n != declared_m) {
        s->line = p_line;
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), m_col,
                       "the 'p' line declares %llu arcs, the file has %llu",
                       (unsigned long long)declared_m, (unsigned long long)c->n);
    }
    return WX_OK;
}

/* Scales every weight to the common number of places (checked) and builds
 * the CSR arrays of out, bucketing by source stably. */
static int finish(struct collect *c, uint64_t n, const char *name, struct wgraph *out,
                  struct wx_error *err)
{
    unsigned scale = 0;
    for (unsigned p = 0; p <= MAX_PLACES; p++)
        if (c->have_worst[p])
            scale = p;
    for (unsigned p = 0; p <= MAX_PLACES; p++) {
        if (!c->have_worst[p])
            continue;
        __int128 x = c->worst[p];
        for (unsigned k = p; k < scale; k++)
            x *= 10;
        if (x > WLIMIT)
            return wx_fail(err, WX_ELIMIT, name, c->worst_line[p], c->worst_col[p],
                           "this weight, scaled by 10^%u to make all %s weights integers, "
                           "exceeds 2^31 - 1 (cycle means need |weight| <= 2147483647 in "
                           "units of 10^-%u)",
                           scale, "the file's", scale);
    }
    out->n_vertices = n;
    out->n_edges = c->n;
    out->scale = scale;
    out->offsets = calloc(n + 1, sizeof *out->offsets);
    out->targets = malloc((c->n ? c->n : 1) * sizeof *out->targets);
    out->weights = malloc((c->n ? c->n : 1) * sizeof *out->weights);
    if (c->has_transit == 1)
        out->transit = malloc((c->n ? c->n : 1) * sizeof *out->transit);
    if (!out->offsets || !out->targets || !out->weights || (c->has_transit == 1 && !out->transit))
        return wx_fail(err, WX_ELIMIT, name, 0, 0, "out of memory (%llu edges)",
                       (unsigned long long)c->n);
    static const int64_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                    100000000, 1000000000};
    for (uint64_t e = 0; e < c->n; e++)
        out->offsets[c->src[e] + 1]++;
    for (uint64_t v = 0; v < n; v++)
        out->offsets[v + 1] += out->offsets[v];
    uint64_t *fill = malloc((n ? n : 1) * sizeof *fill);
    if (!fill)
        return wx_fail(err, WX_ELIMIT, name, 0, 0, "out of memory");
    memcpy(fill, out->offsets, n * sizeof *fill);
    for (uint64_t e = 0; e < c->n; e++) {
        uint64_t at = fill[c->src[e]]++;
        /* scale - places <= 9 here: a larger gap overflowed above unless the
         * mantissa is 0 */
        unsigned gap = scale - c->places[e];
        out->targets[at] = c->dst[e];
        out->weights[at] = c->mant[e] == 0 ? 0 : c->mant[e] * pow10[gap];
        if (out->transit)
            out->transit[at] = c->transit[e];
    }
    free(fill);
    return WX_OK;
}

void wgraph_free(struct wgraph *g)
{
    free(g->offsets);
    free(g->targets);
    free(g->weights);
    free(g->transit);
    free(g->labels);
    if (g->label_names)
        strtab_free(g->label_names);
    memset(g, 0, sizeof *g);
}

int wgraph_label_weights(const struct strtab *names, const uint8_t *used, const struct wgraph_options *o,
                         const char *name, int64_t **weights, unsigned *scale_out, struct wx_error *err)
{
    *weights = NULL;
    if (!o || !o->weight_regex)
        return wx_fail(err, WX_EINPUT, name, 0, 0,
                       "the graph's weights come from its labels: give --weight REGEX (its "
                       "first capture group is the weight, e.g. 'cost ([0-9]+)')");
    regex_t re;
    int rrc = regcomp(&re, o->weight_regex, REG_EXTENDED);
    if (rrc != 0) {
        char msg[256];
        regerror(rrc, &re, msg, sizeof msg);
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "--weight '%s': %s", o->weight_regex, msg);
    }
    if (re.re_nsub < 1) {
        regfree(&re);
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--weight '%s' has no capture group: put the weight in ( ), e.g. "
                       "'cost ([0-9]+)'", o->weight_regex);
    }
    const char *dw = o->default_weight ? o->default_weight : "0";
    int64_t dmant;
    unsigned dplaces;
    if (wgraph_parse_weight(dw, strlen(dw), &dmant, &dplaces) != WX_OK) {
        regfree(&re);
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "--default-weight '%s' is not an integer or decimal number", dw);
    }
    uint32_t nl = strtab_count(names);
    int64_t *lm = malloc((nl ? nl : 1) * sizeof *lm);
    unsigned *lp = malloc((nl ? nl : 1) * sizeof *lp);
    int rc = WX_OK;
    if (!lm || !lp)
        rc = wx_fail(err, WX_ELIMIT, name, 0, 0, "out of memory");
    for (uint32_t l = 0; rc == WX_OK && l < nl; l++) {
        const char *text = strtab_str(names, l);
        regmatch_t mt[2];
        if (regexec(&re, text, 2, mt, 0) == 0 && mt[1].rm_so >= 0) {
            const char *g = text + mt[1].rm_so;
            size_t len = (size_t)(mt[1].rm_eo - mt[1].rm_so);
            int prc = wgraph_parse_weight(g, len, &lm[l], &lp[l]);
            if (prc != WX_OK)
                rc = wx_fail(err, prc, name, 0, 0,
                             "label '%.200s': the capture of --weight is '%.*s', %s", text,
                             (int)(len > 60 ? 60 : len), g,
                             prc == WX_ELIMIT ? "a number with more than 18 digits or decimal places"
                                              : "not an integer or decimal number");
        } else {
            lm[l] = dmant, lp[l] = dplaces;
        }
    }
    regfree(&re);
    /* scale each label's weight (only labels in use matter, but a label's
     * weight is the same everywhere: check all, report the label) */
    unsigned scale = 0; /* labels on no edge do not force a scale */
    for (uint32_t l = 0; rc == WX_OK && l < nl; l++)
        if ((!used || used[l]) && lp[l] > scale)
            scale = lp[l];
    for (uint32_t l = 0; rc == WX_OK && l < nl; l++) {
        if (used && !used[l])
            continue;
        __int128 x = lm[l];
        for (unsigned k = lp[l]; k < scale; k++)
            x *= 10;
        if (x > WLIMIT || x < -WLIMIT)
            rc = wx_fail(err, WX_ELIMIT, name, 0, 0,
                         "label '%.200s' has weight %lld/10^%u, which scaled by 10^%u exceeds "
                         "2^31 - 1 (cycle means need |weight| <= 2147483647 units)",
                         strtab_str(names, l), (long long)lm[l], lp[l], scale);
        lm[l] = (int64_t)x;
    }
    free(lp);
    if (rc != WX_OK) {
        free(lm);
        return rc;
    }
    *weights = lm;
    *scale_out = scale;
    return WX_OK;
}

/* Weights from labels: out->labels and out->label_names are set; every edge
 * gets the weight of its label (regex capture, else the default). */
static int label_weights(struct wgraph *out, const struct wgraph_options *o, const char *name,
                         struct wx_error *err)
{
    uint32_t nl = strtab_count(out->label_names);
    uint8_t *used = calloc(nl ? nl : 1, 1);
    if (!used)
        return wx_fail(err, WX_ELIMIT, name, 0, 0, "out of memory");
    for (uint64_t e = 0; e < out->n_edges; e++)
        used[out->labels[e]] = 1;
    int64_t *lm;
    int rc = wgraph_label_weights(out->label_names, used, o, name, &lm, &out->scale, err);
    free(used);
    if (rc != WX_OK)
        return rc;
    out->weights = malloc((out->n_edges ? out->n_edges : 1) * sizeof *out->weights);
    if (!out->weights)
        rc = wx_fail(err, WX_ELIMIT, name, 0, 0, "out of memory");
    for (uint64_t e = 0; rc == WX_OK && e < out->n_edges; e++)
        out->weights[e] = lm[out->labels[e]];
    free(lm);
    return rc;
}

static int read_aut(const char *data, size_t len, const char *name, int from_file,
                    const struct wgraph_options *o, struct wgraph *out, struct wx_error *err)
{
    out->label_names = strtab_new();
    if (!out->label_names)
        return wx_fail(err, WX_ELIMIT, name, 0, 0, "out of memory");
    struct lts l;
    uint32_t initial;
    int rc = from_file ? aut_read(name, out->label_names, &l, &initial, err)
                       : aut_read_buffer(data, len, name, out->label_names, &l, &initial, err);
    if (rc != WX_OK)
        return rc;
    /* lts: transitions sorted by source, offsets built (lts_finish) */
    out->n_vertices = l.n_states;
    out->n_edges = l.n_trans;
    out->initial = initial;
    out->offsets = l.offsets, l.offsets = NULL;
    out->targets = l.dst, l.dst = NULL;
    out->labels = l.label, l.label = NULL;
    lts_free(&l);
    return label_weights(out, o, name, err);
}

/* CSR weights from the sidecar PATH.weights, one "WEIGHT [TRANSIT]" per edge. */
static int read_sidecar(const char *path, struct wgraph *out, struct wx_error *err,
                        int *missing)
{
    char side[4096];
    if (snprintf(side, sizeof side, "%s.weights", path) >= (int)sizeof side)
        return wx_fail(err, WX_EINPUT, path, 0, 0, "path too long");
    struct stat st;
    *missing = stat(side, &st) != 0;
    if (*missing)
        return WX_EINPUT;
    char *data;
    size_t len;
    int rc = scan_slurp(side, &data, &len, err);
    if (rc != WX_OK)
        return rc;
    struct scan s = {.name = side, .begin = data, .p = data, .end = data + len, .err = err};
    struct collect c = {.has_transit = -1};
    while (rc == WX_OK && scan_next_content_line(&s, "#%")) {
        if (c.n == out->n_edges) {
            rc = wx_fail(err, WX_EINPUT, side, scan_line(&s), scan_col(&s, s.c),
                         "more weight lines than the graph's %llu edges",
                         (unsigned long long)out->n_edges);
            break;
        }
        int64_t mant, t;
        unsigned places;
        int col;
        if ((rc = read_weight(&s, &mant, &places, &col)) != WX_OK ||
            (rc = read_transit_eol(&s, &c, &t)) != WX_OK)
            break;
        rc = collect_push(&c, 0, 0, mant, places, t ? t : 1, scan_line(&s), col, err, side);
    }
    if (rc == WX_OK && c.n != out->n_edges)
        rc = wx_fail(err, WX_EINPUT, side, scan_line(&s) + (len == 0 || data[len - 1] == '\n'), 1,
                     "%llu weight lines for the graph's %llu edges",
                     (unsigned long long)c.n, (unsigned long long)out->n_edges);
    if (rc == WX_OK) {
        /* reuse finish() for the scaling only: a 1-vertex bucket keeps order */
        struct wgraph tmp = {0};
        rc = finish(&c, 1, side, &tmp, err);
        if (rc == WX_OK) {
            out->weights = tmp.weights, tmp.weights = NULL;
            out->transit = tmp.transit, tmp.transit = NULL;
            out->scale = tmp.scale;
        }
        wgraph_free(&tmp);
    }
    collect_free(&c);
    free(data);
    return rc;
}

static int read_csr(const char *path, const struct wgraph_options *o, struct wgraph *out,
                    struct wx_error *err)
{
    struct csr g;
    int rc = csr_read(path, &g, err);
    if (rc != WX_OK)
        return rc;
    out->n_vertices = g.n_vertices;
    out->n_edges = g.n_edges;
    out->initial = g.initial;
    out->offsets = g.offsets;
    out->targets = g.targets;
    out->labels = g.labels;
    out->label_names = g.label_names;
    if (o && o->weight_regex) {
        if (!out->labels)
            return wx_fail(err, WX_EINPUT, path, 0, 0,
                           "--weight needs edge labels, and this CSR file has none");
        return label_weights(out, o, path, err);
    }
    int missing;
    rc = read_sidecar(path, out, err, &missing);
    if (missing)
        return wx_fail(err, WX_EINPUT, path, 0, 0,
                       "no weights: give --weight REGEX (labelled CSR) or the sidecar file "
                       "'%s.weights' (one 'WEIGHT [TRANSIT]' line per edge)", path);
    return rc;
}

int wgraph_from_csr(struct csr *g, const struct wgraph_options *o, struct wgraph *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    if (!g->labels) {
        csr_free(g);
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "--weight needs edge labels, and this graph has none");
    }
    out->n_vertices = g->n_vertices;
    out->n_edges = g->n_edges;
    out->initial = g->initial;
    out->offsets = g->offsets;
    out->targets = g->targets;
    out->labels = g->labels;
    out->label_names = g->label_names;
    out->format = WGRAPH_CSR;
    memset(g, 0, sizeof *g);
    int rc = label_weights(out, o, "--weight", err);
    if (rc != WX_OK)
        wgraph_free(out);
    return rc;
}

static int text_read(const char *data, size_t len, const char *name, enum wgraph_format fmt,
                     struct wgraph *out, struct wx_error *err)
{
    struct scan s = {.name = name, .begin = data, .p = data, .end = data + len, .err = err};
    struct collect c = {.has_transit = -1};
    uint64_t n = 0;
    int rc = fmt == WGRAPH_DIMACS ? read_dimacs(&s, &c, &n) : read_edges(&s, &c, &n);
    if (rc == WX_OK)
        rc = finish(&c, n, name, out, err);
    collect_free(&c);
    return rc;
}

static int check_no_label_options(const struct wgraph_options *o, const char *name,
                                  struct wx_error *err)
{
    if (o && (o->weight_regex || o->default_weight))
        return wx_fail(err, WX_EINPUT, name, 0, 0,
                       "--weight/--default-weight apply to labelled graphs (.aut, labelled "
                       ".csr); this file has its weights in the edge lines");
    return WX_OK;
}

int wgraph_read_buffer(const char *data, size_t len, const char *name, enum wgraph_format fmt,
                       const struct wgraph_options *o, struct wgraph *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    int rc;
    if (fmt == WGRAPH_CSR)
        rc = wx_fail(err, WX_ESYSTEM, name, 0, 0, "CSR binary cannot be read from memory");
    else if (fmt == WGRAPH_AUT)
        rc = read_aut(data, len, name, 0, o, out, err);
    else if ((rc = check_no_label_options(o, name, err)) == WX_OK)
        rc = text_read(data, len, name, fmt, out, err);
    if (rc != WX_OK)
        wgraph_free(out);
    else
        out->format = fmt;
    return rc;
}

/* Is the first content line of data[0..len) DIMACS ("c " / "p " / "a ")? */
static enum wgraph_format sniff_buffer(const char *data, size_t len)
{
    const char *p = data, *end = data + len;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    if (p == end)
        return WGRAPH_EDGES;
    char c1 = p + 1 < end ? p[1] : '\n';
    return (*p == 'c' || *p == 'p' || *p == 'a') &&
                   (c1 == ' ' || c1 == '\t' || c1 == '\n' || c1 == '\r')
               ? WGRAPH_DIMACS
               : WGRAPH_EDGES;
}

/* Sniffs the first content line of a regular file, from its first 64 KiB
 * (a line after more blank bytes than that is read as an edge list); a
 * stream (pipe, device) is not read here -- wgraph_read sniffs what it has
 * read instead -- so nothing here waits on or spins over an endless input. */
static enum wgraph_format sniff(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return WGRAPH_EDGES; /* the reader reports the error */
    enum { HEAD = 1 << 16 };
    FILE *f = fopen(path, "rb");
    char *buf = malloc(HEAD);
    enum wgraph_format fmt = WGRAPH_EDGES;
    if (f && buf)
        fmt = sniff_buffer(buf, fread(buf, 1, HEAD, f));
    if (f)
        fclose(f);
    free(buf);
    return fmt;
}

enum wgraph_format wgraph_format_of(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash)) {
        if (!strcasecmp(dot, ".csr"))
            return WGRAPH_CSR;
        if (!strcasecmp(dot, ".aut"))
            return WGRAPH_AUT;
        if (!strcasecmp(dot, ".dimacs") || !strcasecmp(dot, ".dim") || !strcasecmp(dot, ".gr") ||
            !strcasecmp(dot, ".d"))
            return WGRAPH_DIMACS;
    }
    return sniff(path);
}

int wgraph_read(const char *path, const struct wgraph_options *o, struct wgraph *out,
                struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    enum wgraph_format fmt = wgraph_format_of(path);
    int rc;
    if (fmt == WGRAPH_CSR)
        rc = read_csr(path, o, out, err);
    else if (fmt == WGRAPH_AUT)
        rc = read_aut(NULL, 0, path, 1, o, out, err);
    else if ((rc = check_no_label_options(o, path, err)) == WX_OK) {
        char *data = NULL;
        size_t len = 0;
        rc = scan_slurp(path, &data, &len, err);
        if (rc == WX_OK && fmt == WGRAPH_EDGES)
            fmt = sniff_buffer(data, len); /* a stream was not sniffed before */
        if (rc == WX_OK)
            rc = text_read(data, len, path, fmt, out, err);
        free(data);
    }
    if (rc != WX_OK)
        wgraph_free(out);
    else
        out->format = fmt;
    return rc;
}
