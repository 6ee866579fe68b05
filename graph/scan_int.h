/*
 * scan_int.h -- internal to graph/: a line scanner over an in-memory buffer
 * for the text formats (.mtx, .tra, edge lists).  Every failure is a located
 * wx_error (file:line:col, 1-based byte columns); lines end in LF, a CR
 * before it is ignored; blanks are spaces and tabs.
 */
#ifndef WX_GRAPH_SCAN_INT_H
#define WX_GRAPH_SCAN_INT_H

#include <stdint.h>

#include "../util/error.h"

struct scan {
    const char *name;            /* for error locations */
    const char *begin;           /* the whole buffer is [begin, end); may be
                                    NULL, then [p, end) at the first check */
    const char *p, *end;         /* unread part of the buffer */
    const char *ls, *le;         /* current line [ls, le), CR and LF excluded */
    const char *c;               /* cursor within the current line */
    uint64_t line;               /* 1-based number of the current line */
    struct wx_error *err;
};

int scan_line(const struct scan *s);                 /* clamped to INT32_MAX */
int scan_col(const struct scan *s, const char *at);  /* clamped to INT32_MAX */
/* "expected EXPECTED, found ..." at the cursor / at `at`; returns code. */
int scan_fail_here(struct scan *s, int code, const char *expected);
int scan_fail_at(struct scan *s, const char *at, int code, const char *expected);
/* Advances to the next line; 0 at the end of the buffer. */
int scan_next_line(struct scan *s);
void scan_skip_blanks(struct scan *s);
/* Next line that is neither blank nor starts (after blanks) with one of the
 * characters of `comments`; cursor at its first non-blank; 0 at the end. */
int scan_next_content_line(struct scan *s, const char *comments);
/* At the end of the line after optional blanks? */
int scan_at_eol(struct scan *s);
/* An unsigned decimal ending at a blank or the end of the line. */
int scan_read_u64(struct scan *s, uint64_t *v, const char *what);
/* The next blank-separated token (after blanks), copied NUL-terminated into
 * buf (size bytes); *tok points at it in the input.  An empty or too long
 * token is a located error naming `what`. */
int scan_token(struct scan *s, char *buf, size_t size, const char **tok, const char *what);

/* The id-plausibility rule of util/input.h for the buffer's size: an id or
 * a declared vertex/state count `v` (WHAT, e.g. "source vertex") above
 * wx_id_limit(bytes) is a WX_EINPUT at `at` stating the rule; WX_OK else. */
int scan_check_id(struct scan *s, const char *at, uint64_t v, const char *what);

/* Reads the whole file into a malloc'ed buffer (works on pipes such as
 * /dev/stdin too); the caller frees *data.  Opened as util/input.h says
 * (a directory is "PATH: is a directory", exit 2); the text must not hold a
 * NUL byte, so an endless stream of them (/dev/zero) fails at once. */
#include <stddef.h>
int scan_slurp(const char *path, char **data, size_t *len, struct wx_error *err);

/* The whole file, read only: a regular non-empty file is mapped (mmap: no
 * copy into a private buffer, and its pages come straight from the page
 * cache, faulted in by whichever thread reads them first), anything else
 * (pipes, /dev/stdin, an empty file, a failed mmap) is read as scan_slurp
 * does.  The text is not NUL-terminated.  Release with scan_unmap.  A file
 * truncated by someone else while mapped makes its reader fault (SIGBUS),
 * as with any mapped input. */
struct scan_file {
    const char *data;
    size_t len;
    size_t mapped; /* bytes mapped; 0: data is malloc'ed */
};
int scan_map(const char *path, struct scan_file *f, struct wx_error *err);
void scan_unmap(struct scan_file *f);

#endif
