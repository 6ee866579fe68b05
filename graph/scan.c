/*
 * scan.c -- the line scanner shared by the text graph readers (graph_read.c,
 * mdp.c); contract in scan_int.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan_int.h"
#include "../util/input.h"

int scan_col(const struct scan *s, const char *at)
{
    uint64_t c = (uint64_t)(at - s->ls) + 1;
    return c > INT32_MAX ? INT32_MAX : (int)c;
}

int scan_line(const struct scan *s)
{
    return s->line > INT32_MAX ? INT32_MAX : (int)s->line;
}

/* Describes what stands at s->c, for "expected X, found Y" messages. */
static void scan_describe(const struct scan *s, char *buf, size_t size)
{
    if (s->c >= s->le) {
        snprintf(buf, size, "end of line");
        return;
    }
    unsigned char ch = (unsigned char)*s->c;
    if (ch < 0x20 || ch >= 0x7f) {
        snprintf(buf, size, "byte 0x%02x", ch);
        return;
    }
    size_t n = 0;
    while (s->c + n < s->le && n < 24 && s->c[n] != ' ' && s->c[n] != '\t')
        n++;
    snprintf(buf, size, "'%.*s'", (int)n, s->c);
}

int scan_fail_here(struct scan *s, int code, const char *expected)
{
    char found[64];
    scan_describe(s, found, sizeof found);
    return wx_fail(s->err, code, s->name, scan_line(s), scan_col(s, s->c), "expected %s, found %s",
                   expected, found);
}

/* Advances to the next line; 0 at the end of the buffer. */
int scan_next_line(struct scan *s)
{
    if (s->p >= s->end)
        return 0;
    const char *nl = memchr(s->p, '\n', (size_t)(s->end - s->p));
    s->ls = s->p;
    s->le = nl ? nl : s->end;
    s->p = nl ? nl + 1 : s->end;
    while (s->le > s->ls && s->le[-1] == '\r')
        s->le--;
    s->c = s->ls;
    s->line++;
    return 1;
}

void scan_skip_blanks(struct scan *s)
{
    while (s->c < s->le && (*s->c == ' ' || *s->c == '\t'))
        s->c++;
}

/* Advances to the next line that is neither blank nor starts (after blanks)
 * with a character of `comments`; the cursor is at its first non-blank. */
int scan_next_content_line(struct scan *s, const char *comments)
{
    while (scan_next_line(s)) {
        scan_skip_blanks(s);
        /* strchr finds the terminator too: a NUL byte is content (an error) */
        if (s->c < s->le && (*s->c == '\0' || !strchr(comments, *s->c)))
            return 1;
    }
    return 0;
}

/* At end of line after optional blanks? */
int scan_at_eol(struct scan *s)
{
    scan_skip_blanks(s);
    return s->c >= s->le;
}

/* Reads an unsigned decimal number (after blanks) that must end at a blank or
 * the end of the line. */
int scan_read_u64(struct scan *s, uint64_t *v, const char *what)
{
    scan_skip_blanks(s);
    if (s->c >= s->le || !isdigit((unsigned char)*s->c))
        return scan_fail_here(s, WX_EINPUT, what);
    const char *start = s->c;
    uint64_t x = 0;
    while (s->c < s->le && isdigit((unsigned char)*s->c)) {
        unsigned d = (unsigned)(*s->c - '0');
        if (x > (UINT64_MAX - d) / 10) {
            s->c = start;
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, start),
                           "%s out of range (more than 64 bits)", what);
        }
        x = x * 10 + d;
        s->c++;
    }
    if (s->c < s->le && *s->c != ' ' && *s->c != '\t')
        return scan_fail_here(s, WX_EINPUT, "a blank or the end of the line after a number");
    *v = x;
    return WX_OK;
}

int scan_check_id(struct scan *s, const char *at, uint64_t v, const char *what)
{
    if (!s->begin)
        s->begin = s->p;
    uint64_t bytes = (uint64_t)(s->end - s->begin);
    if (v <= wx_id_limit(bytes))
        return WX_OK;
    char rule[128];
    wx_id_limit_text(bytes, rule, sizeof rule);
    return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                   "%s %llu is implausible for a file of %llu bytes: %s", what, (unsigned long long)v, (unsigned long long)bytes,
                   rule);
}

int scan_fail_at(struct scan *s, const char *at, int code, const char *expected)
{
    const char *save = s->c;
    s->c = at;
    int rc = scan_fail_here(s, code, expected);
    s->c = save;
    return rc;
}

/* Reads the whole file (works on pipes such as /dev/stdin too); text: a
 * NUL byte stops the read with a located error. */
int scan_slurp(const char *path, char **data, size_t *len, struct wx_error *err)
{
    return wx_input_read_path(path, WX_INPUT_TEXT, -1, data, len, err);
}

int scan_token(struct scan *s, char *buf, size_t size, const char **tok, const char *what)
{
    scan_skip_blanks(s);
    *tok = s->c;
    while (s->c < s->le && *s->c != ' ' && *s->c != '\t')
        s->c++;
    size_t len = (size_t)(s->c - *tok);
    if (len == 0 || len >= size)
        return scan_fail_at(s, *tok, WX_EINPUT, what);
    memcpy(buf, *tok, len);
    buf[len] = 0;
    return WX_OK;
}

int scan_map(const char *path, struct scan_file *f, struct wx_error *err)
{
    memset(f, 0, sizeof *f);
    int fd;
    struct stat st;
    int rc = wx_input_open(path, &fd, &st, err);
    if (rc != WX_OK)
        return rc;
    if (S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            close(fd);
            /* read ahead: the readers go through the text once, front to back */
            (void)madvise(p, (size_t)st.st_size, MADV_WILLNEED);
            f->data = p;
            f->len = f->mapped = (size_t)st.st_size;
            return WX_OK;
        }
    }
    char *buf;
    rc = wx_input_read_fd(fd, path, WX_INPUT_TEXT, -1, &buf, &f->len, err);
    close(fd);
    if (rc == WX_OK)
        f->data = buf;
    return rc;
}

void scan_unmap(struct scan_file *f)
{
    if (f->mapped)
        munmap((void *)f->data, f->mapped);
    else
        free((void *)f->data);
    memset(f, 0, sizeof *f);
}
