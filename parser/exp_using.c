/*
 * exp_using.c -- the files of "hide using FILE", "cut using FILE" and
 * "rename using FILE", the only "using FILE" forms of EXP 2.0 (formats in
 * docs/formats.md, EXP section).  The file name is resolved against the
 * directory of the .exp file; errors inside the file are located in it.
 *
 * Line formats (blank lines and lines starting with "--" are skipped):
 *   hide/cut  a first line "hide" / "cut" [all but], then one POSIX basic
 *             regular expression per line, taken literally to the line's end
 *   rename    a first line "rename", then "PATTERN -> REPLACEMENT"
 */
#include "exp_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/config.h"

struct ufile {
    char *path;     /* as resolved */
    char *text;     /* whole file, NUL-terminated */
    char *line;     /* current line (in text, NUL-terminated in place) */
    int lineno;
    char *next;
};

static void ufile_free(struct ufile *u)
{
    free(u->path);
    free(u->text);
}

static int oom(struct exp_pstate *ps, int line, int col)
{
    exp_poom(ps, line, col);
    return -1;
}

static int uerr(struct exp_pstate *ps, const struct ufile *u, const char *at, const char *msg)
{
    if (ps->err->code == WX_OK)
        wx_fail(ps->err, WX_EINPUT, u->path, u->lineno, at ? (int)(at - u->line) + 1 : 1,
                "%s", msg);
    return -1;
}

static int ufile_open(struct exp_pstate *ps, const char *file, int line, int col,
                      struct ufile *u)
{
    memset(u, 0, sizeof *u);
    const char *slash = strrchr(ps->name, '/');
    size_t d = file[0] != '/' && slash ? (size_t)(slash - ps->name) + 1 : 0;
    u->path = malloc(d + strlen(file) + 1);
    if (!u->path)
        return exp_poom(ps, line, col), -1;
    memcpy(u->path, ps->name, d);
    strcpy(u->path + d, file);
    FILE *f = fopen(u->path, "rb");
    if (!f) {
        exp_perr(ps, line, col, "cannot read '%s': %s", u->path, strerror(errno));
        ufile_free(u);
        return -1;
    }
    size_t cap = 4096, n = 0;
    u->text = malloc(cap);
    while (u->text) {
        n += fread(u->text + n, 1, cap - n - 1, f);
        if (n < cap - 1 || cap >= WX_EXP_USING_MAX_BYTES)
            break;
        char *t = realloc(u->text, cap *= 2);
        if (!t)
            free(u->text);
        u->text = t;
    }
    bool bad = ferror(f) || (u->text && n >= cap - 1);
    fclose(f);
    if (!u->text || bad) {
        if (u->text)
            exp_perr(ps, line, col, "cannot read '%s': read error or larger than %d bytes",
                     u->path, WX_EXP_USING_MAX_BYTES);
        else
            exp_poom(ps, line, col);
        ufile_free(u);
        return -1;
    }
    u->text[n] = '\0';
    if (memchr(u->text, '\0', n)) {
        exp_perr(ps, line, col, "'%s' is not a text file (NUL byte)", u->path);
        ufile_free(u);
        return -1;
    }
    u->next = u->text;
    return 0;
}

/* Next line that is neither blank nor a "--" comment, trailing blanks and
 * CR removed; NULL at the end. */
static char *ufile_line(struct ufile *u)
{
    while (u->next && *u->next) {
        char *l = u->next, *e = strchr(l, '\n');
        u->next = e ? e + 1 : NULL;
        if (e)
            *e = '\0';
        else
            e = l + strlen(l);
        while (e > l && strchr(" \t\r", e[-1]))
            *--e = '\0';
        u->lineno++;
        u->line = l;
        while (*l == ' ' || *l == '\t')
            l++;
        if (*l && strncmp(l, "--", 2) != 0)
            return l;
    }
    return NULL;
}

static char *skip_blank(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Checks the first line: kw, optionally followed by "all but" when all_but
 * is not NULL. */
static int header_line(struct exp_pstate *ps, struct ufile *u, const char *kw, bool *all_but)
{
    char *s = ufile_line(u);
    size_t k = strlen(kw);
    if (!s || strncmp(s, kw, k) != 0 || (s[k] && s[k] != ' ' && s[k] != '\t'))
        return uerr(ps, u, s, kw[0] == 'h' ? "the first line must be 'hide' or 'hide all but'"
                              : kw[0] == 'c' ? "the first line must be 'cut' or 'cut all but'"
                                             : "the first line must be 'rename'");
    char *r = skip_blank(s + k);
    if (all_but && strncmp(r, "all", 3) == 0) {
        char *b = skip_blank(r + 3);
        if (b > r + 3 && strcmp(b, "but") == 0) {
            *all_but = true;
            return 0;
        }
    }
    return *r ? uerr(ps, u, r, "unexpected text after the first line's keyword") : 0;
}

int exp_using_patterns(struct exp_pstate *ps, const char *file, const char *kw, int line,
                       int col, struct exp_strlist **out, bool *all_but)
{
    struct ufile u;
    *out = NULL;
    *all_but = false;
    if (ufile_open(ps, file, line, col, &u) < 0)
        return -1;
    struct exp_strlist *l = exp_strlist_new();
    int rc = l ? header_line(ps, &u, kw, all_but) : oom(ps, line, col);
    char *s;
    while (rc == 0 && (s = ufile_line(&u)))
        if (exp_strlist_push(l, exp_strndup(s, strlen(s))) < 0)
            rc = oom(ps, line, col);
    ufile_free(&u);
    if (rc < 0) {
        exp_strlist_free(l);
        return -1;
    }
    *out = l;
    return 0;
}

int exp_using_pairs(struct exp_pstate *ps, const char *file, const char *kw, int line,
                    int col, struct exp_pairlist **out)
{
    struct ufile u;
    const char *sep = "->";
    *out = NULL;
    if (ufile_open(ps, file, line, col, &u) < 0)
        return -1;
    struct exp_pairlist *p = exp_pairlist_new();
    int rc = p ? header_line(ps, &u, kw, NULL) : oom(ps, line, col);
    char *s;
    while (rc == 0 && (s = ufile_line(&u))) {
        char *m = strstr(s, sep);
        if (!m) {
            rc = uerr(ps, &u, s, "expected 'PATTERN -> REPLACEMENT'");
            break;
        }
        char *a = s, *ae = m, *b = skip_blank(m + strlen(sep));
        while (ae > a && (ae[-1] == ' ' || ae[-1] == '\t'))
            ae--;
        if (ae == a || !*b) {
            rc = uerr(ps, &u, ae == a ? s : m, "empty pattern");
            break;
        }
        if (exp_pairlist_push(p, exp_strndup(a, (size_t)(ae - a)),
                              exp_strndup(b, strlen(b))) < 0)
            rc = oom(ps, line, col);
    }
    if (rc == 0 && p->l.n == 0)
        rc = uerr(ps, &u, NULL, "no rule in the file");
    ufile_free(&u);
    if (rc < 0) {
        exp_pairlist_free(p);
        return -1;
    }
    *out = p;
    return 0;
}
