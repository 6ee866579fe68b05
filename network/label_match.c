#include "label_match.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define NGROUPS 10 /* \0 .. \9 */

size_t label_gate_len(const char *label)
{
    return strcspn(label, "!?( \t");
}

char *label_fold_upper(const char *s, bool regex)
{
    size_t n = strlen(s);
    char *r = malloc(n + 1);
    if (!r)
        return NULL;
    memcpy(r, s, n + 1);
    if (!regex) {
        for (size_t i = 0; i < n; i++)
            r[i] = (char)toupper((unsigned char)r[i]);
        return r;
    }
    bool in_bracket = false;
    for (size_t i = 0; i < n; i++) {
        if (!in_bracket) {
            if (r[i] == '\\') {
                i++; /* the escaped character keeps its case: \w, \1, \< */
                continue;
            }
            if (r[i] == '[') {
                in_bracket = true;
                /* a ']' right after '[' or '[^' is a member, not the end */
                if (r[i + 1] == '^')
                    i++;
                if (r[i + 1] == ']')
                    i++;
                continue;
            }
            r[i] = (char)toupper((unsigned char)r[i]);
            continue;
        }
        /* inside a bracket expression: backslash is literal there */
        if (r[i] == ']') {
            in_bracket = false;
            continue;
        }
        if (r[i] == '[' && r[i + 1] == ':') {
            const char *end = strstr(r + i + 2, ":]");
            if (end) {
                i = (size_t)(end - r) + 1; /* "[:alpha:]" is a keyword: keep it */
                continue;
            }
        }
        r[i] = (char)toupper((unsigned char)r[i]);
    }
    return r;
}

void label_match_free(struct label_match *m)
{
    if (m->re)
        for (size_t i = 0; i < m->n; i++)
            regfree(&m->re[i]);
    if (m->tmpl)
        for (size_t i = 0; i < m->n; i++)
            free(m->tmpl[i]);
    free(m->re);
    free(m->tmpl);
    memset(m, 0, sizeof *m);
}

int label_match_compile(struct label_match *m, enum exp_mode mode, size_t n,
                        char *const *pats, char *const *tmpls, bool fold,
                        const char *file, struct exp_loc loc,
                        struct wx_error *err)
{
    memset(m, 0, sizeof *m);
    m->mode = mode;
    m->re = calloc(n ? n : 1, sizeof *m->re);
    if (tmpls)
        m->tmpl = calloc(n ? n : 1, sizeof *m->tmpl);
    if (!m->re || (tmpls && !m->tmpl)) {
        label_match_free(m);
        return wx_fail(err, WX_ESYSTEM, file, loc.line, loc.col, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        char *p = fold ? label_fold_upper(pats[i], true) : strdup(pats[i]);
        if (!p) {
            label_match_free(m);
            return wx_fail(err, WX_ESYSTEM, file, loc.line, loc.col, "out of memory");
        }
        int rc = regcomp(&m->re[m->n], p, 0); /* basic REs, with groups */
        if (rc != 0) {
            char why[256];
            regerror(rc, &m->re[m->n], why, sizeof why);
            regfree(&m->re[m->n]);
            label_match_free(m);
            wx_fail(err, WX_EINPUT, file, loc.line, loc.col,
                    "invalid regular expression \"%s\": %s", p, why);
            free(p);
            return WX_EINPUT;
        }
        free(p);
        m->n++;
        if (tmpls) {
            m->tmpl[i] = fold ? label_fold_upper(tmpls[i], true) : strdup(tmpls[i]);
            if (!m->tmpl[i]) {
                label_match_free(m);
                return wx_fail(err, WX_ESYSTEM, file, loc.line, loc.col, "out of memory");
            }
        }
    }
    return WX_OK;
}

/* Does re match s[0..len) entirely?  pm receives the groups (NGROUPS). */
static bool match_entire(const regex_t *re, const char *s, size_t len, regmatch_t *pm)
{
    pm[0].rm_so = 0;
    pm[0].rm_eo = (regoff_t)len;
    if (regexec(re, s, NGROUPS, pm, REG_STARTEND) != 0)
        return false;
    return pm[0].rm_so == 0 && (size_t)pm[0].rm_eo == len;
}

/* Does re match some substring of s[from..len)?  Offsets in pm are relative
 * to s, and the text before `from` serves as context (so ^ and \< do not
 * match in the middle of the label). */
static bool match_from(const regex_t *re, const char *s, size_t from, size_t len,
                       regmatch_t *pm)
{
    pm[0].rm_so = (regoff_t)from;
    pm[0].rm_eo = (regoff_t)len;
    return regexec(re, s, NGROUPS, pm, REG_STARTEND) == 0;
}

static bool matches(const struct label_match *m, size_t k, const char *label,
                    regmatch_t *pm)
{
    size_t len = strlen(label);
    switch (m->mode) {
    case EXP_MODE_GATE:
        return match_entire(&m->re[k], label, label_gate_len(label), pm);
    case EXP_MODE_TOTAL:
        return match_entire(&m->re[k], label, len, pm);
    default: /* PARTIAL, SINGLE, MULTIPLE */
        return match_from(&m->re[k], label, 0, len, pm);
    }
}

long label_match_find(const struct label_match *m, const char *label)
{
    regmatch_t pm[NGROUPS];
    for (size_t k = 0; k < m->n; k++)
        if (matches(m, k, label, pm))
            return (long)k;
    return -1;
}

/* A growable output string. */
struct sbuf {
    char *s;
    size_t len, cap;
    bool oom;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *t = realloc(b->s, cap);
        if (!t) {
            b->oom = true;
            return;
        }
        b->s = t;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

/* Appends the template expanded against the match pm on subject s. */
static void expand(struct sbuf *b, const char *tmpl, const char *s, const regmatch_t *pm)
{
    for (const char *t = tmpl; *t; t++) {
        if (*t == '&') {
            sb_put(b, s + pm[0].rm_so, (size_t)(pm[0].rm_eo - pm[0].rm_so));
        } else if (*t == '\\' && t[1] >= '0' && t[1] <= '9') {
            const regmatch_t *g = &pm[t[1] - '0'];
            if (g->rm_so >= 0 && g->rm_eo >= g->rm_so)
                sb_put(b, s + g->rm_so, (size_t)(g->rm_eo - g->rm_so));
            t++;
        } else if (*t == '\\' && (t[1] == '&' || t[1] == '\\')) {
            sb_put(b, t + 1, 1);
            t++;
        } else {
            sb_put(b, t, 1);
        }
    }
}

int label_match_rewrite(const struct label_match *m, const char *label, char **out)
{
    regmatch_t pm[NGROUPS];
    size_t len = strlen(label);
    for (size_t k = 0; k < m->n; k++) {
        if (!matches(m, k, label, pm))
            continue;
        struct sbuf b = {0};
        sb_put(&b, "", 0); /* an empty result is still a string */
        switch (m->mode) {
        case EXP_MODE_GATE:
            expand(&b, m->tmpl[k], label, pm);
            sb_put(&b, label + label_gate_len(label), len - label_gate_len(label));
            break;
        case EXP_MODE_TOTAL:
            expand(&b, m->tmpl[k], label, pm);
            break;
        case EXP_MODE_MULTIPLE: {
            size_t pos = 0;
            long prev_end = -1; /* end of the last non-empty match */
            while (pos <= len && match_from(&m->re[k], label, pos, len, pm)) {
                size_t so = (size_t)pm[0].rm_so, eo = (size_t)pm[0].rm_eo;
                sb_put(&b, label + pos, so - pos);
                if (so == eo && (long)so == prev_end) {
                    /* empty match glued to the previous one: skip a char */
                } else {
                    expand(&b, m->tmpl[k], label, pm);
                    if (eo > so) {
                        prev_end = (long)eo;
                        pos = eo;
                        continue;
                    }
                }
                if (so >= len) { /* empty match at the end: done */
                    pos = len + 1;
                    break;
                }
                sb_put(&b, label + so, 1);
                pos = so + 1;
            }
            if (pos <= len)
                sb_put(&b, label + pos, len - pos);
            break;
        }
        default: /* SINGLE (and PARTIAL, which rename never uses) */
            sb_put(&b, label, (size_t)pm[0].rm_so);
            expand(&b, m->tmpl[k], label, pm);
            sb_put(&b, label + pm[0].rm_eo, len - (size_t)pm[0].rm_eo);
            break;
        }
        if (b.oom) {
            free(b.s);
            return -1;
        }
        *out = b.s;
        return 1;
    }
    return 0;
}
