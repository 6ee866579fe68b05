/*
 * prop.c -- parser and evaluator of warpex check's properties (grammar in
 * prop.h).  A hand-written recursive-descent parser over the text: each
 * function starts with the rule it recognises.
 */
#include <ctype.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prop.h"
#include "../util/config.h"
#include "../util/input.h"

struct parser {
    const char *text, *p;
    const char *file;
    int line;
    int depth;             /* '!' and '(' levels open: at most WX_MAX_NESTING */
    struct wx_error *err;
};

static int col(const struct parser *ps, const char *at)
{
    return (int)(at - ps->text) + 1;
}

static void skip(struct parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t')
        ps->p++;
}

static int fail(struct parser *ps, const char *at, const char *expected)
{
    char found[48];
    if (!*at)
        snprintf(found, sizeof found, "the end of the property");
    else if ((unsigned char)*at < 0x20 || (unsigned char)*at >= 0x7f)
        snprintf(found, sizeof found, "byte 0x%02x", (unsigned char)*at);
    else {
        int n = 0;
        while (at[n] && at[n] != ' ' && n < 20)
            n++;
        snprintf(found, sizeof found, "'%.*s'", n, at);
    }
    return wx_fail(ps->err, WX_EINPUT, ps->file ? ps->file : "property", ps->line,
                   col(ps, at), "expected %s, found %s", expected, found);
}

/* Enters one level of '!' or '(' at `at`; the recursion below is bounded
 * by WX_MAX_NESTING levels, so no input can overflow the stack. */
static int enter(struct parser *ps, const char *at)
{
    if (++ps->depth <= WX_MAX_NESTING)
        return WX_OK;
    return wx_fail(ps->err, WX_EINPUT, ps->file ? ps->file : "property", ps->line, col(ps, at),
                   "formula nested too deeply (more than %d levels of '!' and '(')",
                   WX_MAX_NESTING);
}

static int oom(struct parser *ps)
{
    return wx_fail(ps->err, WX_ELIMIT, NULL, 0, 0, "out of memory (property)");
}

/* Does the text at p start with keyword kw, not followed by a name byte? */
static int keyword(struct parser *ps, const char *kw)
{
    size_t n = strlen(kw);
    if (strncmp(ps->p, kw, n) != 0)
        return 0;
    char c = ps->p[n];
    if (isalnum((unsigned char)c) || c == '_')
        return 0;
    ps->p += n;
    return 1;
}

/* Recurses into right operands only, whose depth the nesting limit bounds
 * (a right operand deeper than one level needs parentheses); the left
 * operands -- a chain "a | b | c ..." and '!' -- are walked in a loop. */
static void phi_free(struct phi *f)
{
    while (f) {
        struct phi *next = f->a;
        phi_free(f->b);
        free(f->label);
        free(f);
        f = next;
    }
}

static struct phi *node(enum phi_op op, int c)
{
    struct phi *f = calloc(1, sizeof *f);
    if (f) {
        f->op = op;
        f->col = c;
    }
    return f;
}

static int parse_or(struct parser *ps, struct phi **out);

/* atom := '"' NAME '"' | "true" | "false" | "(" phi ")" */
static int parse_atom(struct parser *ps, struct phi **out)
{
    skip(ps);
    const char *at = ps->p;
    if (*ps->p == '"') {
        const char *name = ++ps->p;
        while (*ps->p && *ps->p != '"' && (unsigned char)*ps->p >= 0x20)
            ps->p++;
        if (*ps->p != '"')
            return fail(ps, ps->p, "'\"' closing the label name");
        if (ps->p == name)
            return fail(ps, at, "a label name between the quotes");
        struct phi *f = node(PHI_LABEL, col(ps, at));
        if (!f || !(f->label = strndup(name, (size_t)(ps->p - name)))) {
            free(f);
            return oom(ps);
        }
        ps->p++;
        *out = f;
        return WX_OK;
    }
    if (keyword(ps, "true") || keyword(ps, "false")) {
        if (!(*out = node(at[0] == 't' ? PHI_TRUE : PHI_FALSE, col(ps, at))))
            return oom(ps);
        return WX_OK;
    }
    if (*ps->p == '(') {
        int rc = enter(ps, ps->p);
        if (rc != WX_OK)
            return rc;
        ps->p++;
        rc = parse_or(ps, out);
        ps->depth--;
        if (rc != WX_OK)
            return rc;
        skip(ps);
        if (*ps->p != ')') {
            phi_free(*out);
            *out = NULL;
            return fail(ps, ps->p, "')'");
        }
        ps->p++;
        return WX_OK;
    }
    return fail(ps, at, "a state formula (\"label\", true, false, !, or '(')");
}

/* not := "!" not | atom */
static int parse_not(struct parser *ps, struct phi **out)
{
    skip(ps);
    if (*ps->p == '!') {
        int rc = enter(ps, ps->p);
        if (rc != WX_OK)
            return rc;
        struct phi *f = node(PHI_NOT, col(ps, ps->p));
        if (!f)
            return oom(ps);
        ps->p++;
        rc = parse_not(ps, &f->a);
        ps->depth--;
        if (rc != WX_OK) {
            free(f);
            return rc;
        }
        *out = f;
        return WX_OK;
    }
    return parse_atom(ps, out);
}

/* and := not { "&" not };  or := and { "|" and } */
static int parse_binary(struct parser *ps, struct phi **out, char opch, enum phi_op op,
                        int (*sub)(struct parser *, struct phi **))
{
    struct phi *l = NULL;
    int rc = sub(ps, &l);
    if (rc != WX_OK)
        return rc;
    for (;;) {
        skip(ps);
        if (*ps->p != opch)
            break;
        struct phi *f = node(op, col(ps, ps->p));
        if (!f) {
            phi_free(l);
            return oom(ps);
        }
        ps->p++;
        f->a = l;
        if ((rc = sub(ps, &f->b)) != WX_OK) {
            phi_free(f);
            return rc;
        }
        l = f;
    }
    *out = l;
    return WX_OK;
}

static int parse_and(struct parser *ps, struct phi **out)
{
    return parse_binary(ps, out, '&', PHI_AND, parse_not);
}

static int parse_or(struct parser *ps, struct phi **out)
{
    return parse_binary(ps, out, '|', PHI_OR, parse_and);
}

/* "{" ( '"' NAME '"' | INDEX ) "}" after R: which reward structure. */
static int parse_reward_ref(struct parser *ps, struct property *out)
{
    ps->p++; /* '{' */
    skip(ps);
    out->reward_col = col(ps, ps->p);
    if (*ps->p == '"') {
        const char *b = ++ps->p;
        while (*ps->p && *ps->p != '"' && (unsigned char)*ps->p >= 0x20)
            ps->p++;
        if (*ps->p != '"')
            return fail(ps, ps->p, "'\"' closing the reward structure's name");
        if (ps->p == b)
            return fail(ps, ps->p, "a reward structure's name");
        if (!(out->reward_name = strndup(b, (size_t)(ps->p - b))))
            return oom(ps);
        ps->p++;
    } else if (*ps->p >= '1' && *ps->p <= '9') {
        long v = 0;
        while (isdigit((unsigned char)*ps->p)) {
            v = v * 10 + (*ps->p++ - '0');
            if (v > 1000000)
                return wx_fail(ps->err, WX_EINPUT, ps->file ? ps->file : "property", ps->line,
                               out->reward_col, "reward structure index out of range");
        }
        out->reward_index = (int)v;
    } else {
        return fail(ps, ps->p, "a reward structure: {\"name\"} or {N}, N >= 1");
    }
    skip(ps);
    if (*ps->p != '}')
        return fail(ps, ps->p, "'}'");
    ps->p++;
    return WX_OK;
}

static int fail_at(struct parser *ps, const char *at, const char *msg)
{
    return wx_fail(ps->err, WX_EINPUT, ps->file ? ps->file : "property", ps->line, col(ps, at),
                   "%s", msg);
}

/* NUMBER := digits [ "." digits ] [ ("e"|"E") ["+"|"-"] digits ], digits
 * before or after the point: the bound of P~p / R~r.  Only this shape goes
 * to strtod (no "inf", "nan" or hexadecimal). */
static int parse_number(struct parser *ps, double *out)
{
    const char *b = ps->p, *q = b;
    int digits = 0;
    while (isdigit((unsigned char)*q))
        q++, digits++;
    if (*q == '.')
        for (q++; isdigit((unsigned char)*q); q++)
            digits++;
    if (!digits)
        return fail(ps, b, "a number (the bound p of P~p or r of R~r)");
    if (*q == 'e' || *q == 'E') {
        const char *e = q + 1;
        if (*e == '+' || *e == '-')
            e++;
        if (isdigit((unsigned char)*e)) {
            while (isdigit((unsigned char)*e))
                e++;
            q = e;
        }
    }
    char buf[64];
    if ((size_t)(q - b) >= sizeof buf)
        return fail_at(ps, b, "the bound has too many digits");
    memcpy(buf, b, (size_t)(q - b));
    buf[q - b] = 0;
    *out = strtod(buf, NULL);
    ps->p = q;
    return WX_OK;
}

/* query := "=" "?" | ("<" | "<=" | ">" | ">=") NUMBER */
static int parse_query(struct parser *ps, struct property *out, int is_r)
{
    skip(ps);
    const char *at = ps->p;
    if (*ps->p == '=') {
        ps->p++;
        skip(ps);
        if (*ps->p != '?')
            return fail(ps, ps->p, "'?' (P=? asks for the value; P>=p, P<p, ... compare it)");
        ps->p++;
        out->cmp = PROP_QUERY;
        return WX_OK;
    }
    if (*ps->p != '<' && *ps->p != '>')
        return fail(ps, at, "'=?', '<', '<=', '>' or '>='");
    int lt = *ps->p++ == '<', eq = *ps->p == '=';
    ps->p += eq;
    out->cmp = lt ? (eq ? PROP_LE : PROP_LT) : (eq ? PROP_GE : PROP_GT);
    skip(ps);
    const char *num = ps->p;
    int rc = parse_number(ps, &out->bound);
    if (rc != WX_OK)
        return rc;
    if (!(out->bound <= (is_r ? DBL_MAX : 1.0)))
        return fail_at(ps, num, is_r ? "a reward bound must be finite"
                                     : "a probability bound must lie in [0, 1]");
    return WX_OK;
}

/* steps := "<=" K | "<" K, after F, U, G or C (K a decimal integer) */
static int parse_steps(struct parser *ps, struct property *out, int need)
{
    skip(ps);
    out->steps = -1;
    if (*ps->p != '<') {
        if (need)
            return fail(ps, ps->p, "'<=' and a number of steps (C<=k)");
        return WX_OK;
    }
    const char *at = ps->p++;
    int eq = *ps->p == '=';
    ps->p += eq;
    if (need && !eq)
        return fail(ps, at, "'<=' (C<=k)");
    skip(ps);
    const char *num = ps->p;
    if (!isdigit((unsigned char)*ps->p))
        return fail(ps, ps->p, "a number of steps");
    long long k = 0;
    while (isdigit((unsigned char)*ps->p)) {
        k = k * 10 + (*ps->p++ - '0');
        if (k > PROP_MAX_STEPS)
            return fail_at(ps, num, "step bound too large (at most 2147483647)");
    }
    if (!eq && k == 0)
        return fail_at(ps, num, "'<0' bounds no step: write '<=0' for the states themselves");
    out->steps = eq ? k : k - 1;
    return WX_OK;
}

/* path := "F" [steps] phi | phi "U" [steps] phi | "G" [steps] phi | "C" "<=" K */
static int parse_path(struct parser *ps, struct property *out, int is_r)
{
    skip(ps);
    const char *at = ps->p;
    int rc;
    if (keyword(ps, "C")) {
        if (!is_r)
            return fail_at(ps, at, "C<=k (cumulative reward) is a reward path: R=? [ C<=k ]");
        out->path = PATH_CUMULATIVE;
        return parse_steps(ps, out, 1);
    }
    if (keyword(ps, "F") || keyword(ps, "G")) {
        out->path = *at == 'G' ? PATH_GLOBALLY : PATH_UNTIL;
        if (is_r && *at == 'G')
            return fail_at(ps, at, "reward properties take F phi or C<=k, not G");
        if ((rc = parse_steps(ps, out, 0)) != WX_OK)
            return rc;
        if (is_r && out->steps >= 0)
            return fail_at(ps, at, "reward properties take F phi without a step bound "
                                   "(C<=k accumulates k steps)");
        return parse_or(ps, &out->phi2);
    }
    if ((rc = parse_or(ps, &out->phi1)) != WX_OK)
        return rc;
    skip(ps);
    const char *u_at = ps->p;
    if (!keyword(ps, "U"))
        return fail(ps, u_at, "'U' (phi1 U phi2) or ']'");
    if (is_r)
        return fail_at(ps, at, "reward properties take F phi or C<=k, not U");
    if ((rc = parse_steps(ps, out, 0)) != WX_OK)
        return rc;
    return parse_or(ps, &out->phi2);
}

/* property := ("P" | "R" [ "{" ref "}" ]) ["min"|"max"] query "[" path "]" */
static int parse_property(struct parser *ps, struct property *out)
{
    int rc;
    skip(ps);
    const char *at = ps->p;
    int is_r;
    if (*ps->p == 'P' || *ps->p == 'R')
        is_r = *ps->p++ == 'R';
    else
        return fail(ps, at, "P or R (Pmin=?, Pmax=?, P>=p, R{\"name\"}min=?, ...)");
    if (*ps->p == '{') {
        if (!is_r)
            return fail(ps, ps->p, "'min' or 'max' (only R takes a reward structure {...})");
        if ((rc = parse_reward_ref(ps, out)) != WX_OK)
            return rc;
    }
    int mx = -1;
    if (keyword(ps, "min"))
        mx = 0;
    else if (keyword(ps, "max"))
        mx = 1;
    else if (isalnum((unsigned char)*ps->p) || *ps->p == '_')
        return fail(ps, at, "Pmin, Pmax, P, Rmin, Rmax or R");
    if ((rc = parse_query(ps, out, is_r)) != WX_OK)
        return rc;
    out->opt_given = mx >= 0;
    if (mx < 0) /* holds for every scheduler: the minimum must exceed p, the maximum stay below */
        mx = !(out->cmp == PROP_GT || out->cmp == PROP_GE);
    out->kind = is_r ? (mx ? PROP_RMAX : PROP_RMIN) : (mx ? PROP_PMAX : PROP_PMIN);
    skip(ps);
    if (*ps->p != '[')
        return fail(ps, ps->p, "'['");
    ps->p++;
    if ((rc = parse_path(ps, out, is_r)) != WX_OK)
        return rc;
    skip(ps);
    if (*ps->p != ']')
        return fail(ps, ps->p, "']'");
    ps->p++;
    skip(ps);
    if (*ps->p)
        return fail(ps, ps->p, "the end of the property");
    return WX_OK;
}

int prop_parse(const char *text, const char *file, int line, struct property *out,
               struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    out->steps = -1;
    struct parser ps = {.text = text, .p = text, .file = file, .line = line, .err = err};
    int rc = parse_property(&ps, out);
    if (rc == WX_OK) {
        const char *b = text, *e = text + strlen(text);
        while (*b == ' ' || *b == '\t')
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (!(out->text = strndup(b, (size_t)(e - b))))
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (property)");
        snprintf(out->file, sizeof out->file, "%s", file ? file : "property");
        out->line = line;
    }
    if (rc != WX_OK)
        prop_free(out);
    return rc;
}

void prop_free(struct property *p)
{
    phi_free(p->phi1);
    phi_free(p->phi2);
    free(p->text);
    free(p->name);
    free(p->reward_name);
    memset(p, 0, sizeof *p);
}

void prop_free_all(struct property *props, size_t n)
{
    for (size_t i = 0; i < n; i++)
        prop_free(&props[i]);
    free(props);
}

int prop_read_file(const char *path, struct property **props, size_t *n, struct wx_error *err)
{
    *props = NULL;
    *n = 0;
    char *data;
    size_t len;
    int rc = wx_input_read_path(path, WX_INPUT_TEXT, -1, &data, &len, err);
    if (rc != WX_OK)
        return rc;
    char *buf = malloc(len + 1); /* one line at a time, NUL-terminated */
    if (!buf) {
        free(data);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (properties)");
    }
    int line = 0;
    size_t cap = 0;
    for (const char *p = data, *end = data + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t ll = (size_t)((nl ? nl : end) - p);
        line++;
        memcpy(buf, p, ll);
        buf[ll] = 0;
        p = nl ? nl + 1 : end;
        while (ll && buf[ll - 1] == '\r')
            buf[--ll] = 0;
        char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#' || (s[0] == '/' && s[1] == '/'))
            continue;
        /* PRISM definitions (label/const/formula ...;): the exported .lab
         * already holds their labels, so they are read past */
        if (!strncmp(s, "label ", 6) || !strncmp(s, "const ", 6) || !strncmp(s, "formula ", 8))
            continue;
        /* optional "NAME": prefix and ';' end; the parser sees the rest with
         * its columns preserved (blanked, not removed) */
        char *name = NULL;
        if (*s == '"') {
            char *q = strchr(s + 1, '"');
            char *c = q ? q + 1 : NULL;
            while (c && (*c == ' ' || *c == '\t'))
                c++;
            if (c && *c == ':') {
                name = strndup(s + 1, (size_t)(q - s - 1));
                memset(buf, ' ', (size_t)(c + 1 - buf));
            }
        }
        char *e = buf + strlen(buf);
        while (e > buf && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (e > buf && e[-1] == ';')
            e[-1] = ' ';
        if (cap == *n) {
            cap = cap ? 2 * cap : 8;
            struct property *np = realloc(*props, cap * sizeof *np);
            if (!np) {
                free(name);
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (properties)");
                break;
            }
            *props = np;
        }
        rc = prop_parse(buf, path, line, &(*props)[*n], err);
        if (rc != WX_OK) {
            free(name);
            break;
        }
        (*props)[(*n)++].name = name;
    }
    /* located at the end of the file: where a property was looked for last */
    if (rc == WX_OK && *n == 0)
        rc = wx_fail(err, WX_EINPUT, path, line + (len == 0 || data[len - 1] == '\n'), 1,
                     "no property in the file");
    free(data);
    free(buf);
    if (rc != WX_OK) {
        prop_free_all(*props, *n);
        *props = NULL;
        *n = 0;
    }
    return rc;
}

static int eval(const struct property *p, const struct phi *f, const struct mdp *m,
                const struct mdp_labels *labels, const uint8_t *initial, uint8_t *out,
                struct wx_error *err)
{
    uint64_t n = m->n_states;
    int rc;
    switch (f->op) {
    case PHI_TRUE:
    case PHI_FALSE:
        memset(out, f->op == PHI_TRUE, n);
        return WX_OK;
    case PHI_LABEL: {
        int id = labels ? mdp_labels_find(labels, f->label) : -1;
        if (id >= 0) {
            for (uint64_t s = 0; s < n; s++)
                out[s] = (uint8_t)mdp_labels_has(labels, id, s);
            return WX_OK;
        }
        if (!strcmp(f->label, "init") && initial) {
            memcpy(out, initial, n);
            return WX_OK;
        }
        if (!strcmp(f->label, "deadlock")) {
            for (uint64_t s = 0; s < n; s++)
                out[s] = m->state_start[s] == m->state_start[s + 1];
            return WX_OK;
        }
        return wx_fail(err, WX_EINPUT, p->file, p->line, f->col,
                       "unknown label \"%s\"%s", f->label,
                       labels ? "" : " (no labels given: use --lab)");
    }
    case PHI_NOT:
        if ((rc = eval(p, f->a, m, labels, initial, out, err)) != WX_OK)
            return rc;
        for (uint64_t s = 0; s < n; s++)
            out[s] = !out[s];
        return WX_OK;
    case PHI_AND:
    case PHI_OR: {
        /* A chain "a1 op a2 op ... ak" is a left spine of k - 1 binary
         * nodes, as long as the input: evaluated bottom-up in a loop, so the
         * recursion goes only into right operands (bounded by the nesting
         * limit), with one scratch vector for the whole chain. */
        size_t k = 0;
        const struct phi *g = f;
        for (; g->op == PHI_AND || g->op == PHI_OR; g = g->a)
            k++;
        const struct phi **spine = malloc(k * sizeof *spine);
        uint8_t *tmp = malloc(n ? n : 1);
        if (!spine || !tmp) {
            free(spine), free(tmp);
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        }
        size_t i = k;
        for (g = f; g->op == PHI_AND || g->op == PHI_OR; g = g->a)
            spine[--i] = g;
        rc = eval(p, g, m, labels, initial, out, err);
        for (i = 0; rc == WX_OK && i < k; i++) {
            if ((rc = eval(p, spine[i]->b, m, labels, initial, tmp, err)) != WX_OK)
                break;
            for (uint64_t s = 0; s < n; s++)
                out[s] = spine[i]->op == PHI_AND ? (out[s] & tmp[s]) : (out[s] | tmp[s]);
        }
        free(spine);
        free(tmp);
        return rc;
    }
    }
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "bad formula node");
}

int prop_eval(const struct property *p, const struct phi *phi, const struct mdp *m,
              const struct mdp_labels *labels, const uint8_t *initial, uint8_t *out,
              struct wx_error *err)
{
    return eval(p, phi, m, labels, initial, out, err);
}

const char *prop_kind_name(enum prop_kind k)
{
    switch (k) {
    case PROP_PMIN: return "Pmin";
    case PROP_PMAX: return "Pmax";
    case PROP_RMIN: return "Rmin";
    case PROP_RMAX: return "Rmax";
    }
    return "?";
}

const char *prop_cmp_name(enum prop_cmp c)
{
    switch (c) {
    case PROP_QUERY: return "=?";
    case PROP_LT: return "<";
    case PROP_LE: return "<=";
    case PROP_GT: return ">";
    case PROP_GE: return ">=";
    }
    return "?";
}

int prop_is_basic(const struct property *p)
{
    return p->cmp == PROP_QUERY && p->path == PATH_UNTIL && p->steps < 0;
}

int prop_decide(const struct property *p, double lo, double hi)
{
    double b = p->bound;
    switch (p->cmp) {
    case PROP_GE: return lo >= b ? PROP_TRUE : hi < b ? PROP_FALSE : PROP_UNDECIDED;
    case PROP_GT: return lo > b ? PROP_TRUE : hi <= b ? PROP_FALSE : PROP_UNDECIDED;
    case PROP_LE: return hi <= b ? PROP_TRUE : lo > b ? PROP_FALSE : PROP_UNDECIDED;
    case PROP_LT: return hi < b ? PROP_TRUE : lo >= b ? PROP_FALSE : PROP_UNDECIDED;
    case PROP_QUERY: break;
    }
    return PROP_UNDECIDED;
}

int prop_check_model(const struct property *p, const struct mdp *m, struct wx_error *err)
{
    if (p->opt_given || p->cmp != PROP_QUERY)
        return WX_OK;
    for (uint64_t s = 0; s < m->n_states; s++)
        if (m->state_start[s + 1] - m->state_start[s] > 1)
            return wx_fail(err, WX_EINPUT, p->file, p->line, 1,
                           "%c=? needs %cmin=? or %cmax=? on an MDP (state %llu has %llu "
                           "choices)", p->text[0], p->text[0], p->text[0], (unsigned long long)s,
                           (unsigned long long)(m->state_start[s + 1] - m->state_start[s]));
    return WX_OK;
}

int prop_reward_model(const struct property *p, const struct mdp_reward_models *rm, int *index,
                      struct wx_error *err)
{
    *index = 0;
    if (p->kind < PROP_RMIN)
        return WX_OK;
    if (p->reward_name) {
        int j = mdp_reward_models_find(rm, p->reward_name);
        if (j < 0) {
            char have[256] = "";
            size_t used = 0;
            for (size_t k = 0; k < rm->n && used + 1 < sizeof have; k++) {
                int w = snprintf(have + used, sizeof have - used, "%s\"%s\"", k ? ", " : "",
                                 rm->models[k].name ? rm->models[k].name : "");
                used += w > 0 ? (size_t)w : 0;
            }
            return wx_fail(err, WX_EINPUT, p->file, p->line, p->reward_col,
                           "no reward structure named \"%s\" (the model has %s%s)",
                           p->reward_name, rm->n ? "" : "none", have);
        }
        *index = j;
    } else if (p->reward_index) {
        if ((size_t)p->reward_index > rm->n)
            return wx_fail(err, WX_EINPUT, p->file, p->line, p->reward_col,
                           "reward structure %d asked for, the model has %zu", p->reward_index,
                           rm->n);
        *index = p->reward_index - 1;
    }
    return WX_OK;
}
