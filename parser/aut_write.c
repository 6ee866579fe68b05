/*
 * aut_write.c -- the streaming Aldebaran writer (aut.h): transitions
 * buffered in order, the header written first with room for the counts and
 * rewritten in place when they are known; the output goes to a temporary
 * that replaces the file only when complete (util/outfile.h).
 */
#include "aut.h"
#include "aut_int.h"
#include "../util/outfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Writer                                                                   */

/* The header is rewritten in place, so its line has a fixed width: 63 bytes
 * plus LF, enough for "des (0, " + 20 digits + ", " + 20 digits + ")". */
#define AUT_HEADER_WIDTH 63
#define AUT_WBUF ((size_t)1 << 20) /* output buffer, bytes */

struct aut_writer {
    struct outfile *out;  /* util/outfile.h: a temporary, or a device in place */
    int fd;               /* outfile_fd(out) */
    char *path;           /* owned copy, for messages */
    char *buf;            /* AUT_WBUF bytes; [0, used) pending */
    size_t used;
    uint64_t n_trans;     /* lines written so far */
    uint64_t max_state;   /* largest state added (valid when n_trans > 0) */
    int status;           /* first failure (WX_OK while none) */
    struct wx_error err;  /* its details */
    bool exact;           /* the header was written with the counts below */
    uint64_t want_trans, want_states;
};

static int write_full(int fd, const char *p, size_t n, off_t at, bool positioned)
{
    while (n > 0) {
        ssize_t r = positioned ? pwrite(fd, p, n, at) : write(fd, p, n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += r;
        n -= (size_t)r;
        at += r;
    }
    return 0;
}

static int writer_fail_errno(struct aut_writer *w, const char *what)
{
    if (w->status == WX_OK)
        w->status = wx_fail(&w->err, WX_ESYSTEM, w->path, 0, 0, "cannot %s: %s",
                            what, strerror(errno));
    return w->status;
}

static int writer_flush(struct aut_writer *w)
{
    if (w->used && write_full(w->fd, w->buf, w->used, 0, false) != 0)
        return writer_fail_errno(w, "write");
    w->used = 0;
    return WX_OK;
}

static int writer_put(struct aut_writer *w, const char *p, size_t n)
{
    if (n > AUT_WBUF - w->used) {
        if (writer_flush(w))
            return w->status;
        if (n >= AUT_WBUF) /* a giant label: bypass the buffer */
            return write_full(w->fd, p, n, 0, false) ? writer_fail_errno(w, "write")
                                                     : WX_OK;
    }
    memcpy(w->buf + w->used, p, n);
    w->used += n;
    return WX_OK;
}

/* Decimal digits of v into the end of tmp[20]; returns the first digit. */
static char *u64_text(uint64_t v, char tmp[20])
{
    char *p = tmp + 20;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return p;
}

static bool is_plain_identifier(const char *s, size_t len)
{
    if (len == 0 || !is_alpha((unsigned char)s[0]))
        return false;
    for (size_t i = 1; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!is_alpha(c) && !is_digit(c) && c != '_')
            return false;
    }
    return true;
}

int aut_writer_open(const char *path, struct aut_writer **wp, struct wx_error *err)
{
    *wp = NULL;
    struct aut_writer *w = calloc(1, sizeof *w);
    char *buf = malloc(AUT_WBUF);
    char *copy = strdup(path);
    if (!w || !buf || !copy) {
        free(w), free(buf), free(copy);
        return wx_fail(err, WX_ELIMIT, path, 0, 0, "out of memory");
    }
    w->buf = buf;
    w->path = copy;
    /* The header is rewritten at offset 0 when done: a seekable output. */
    int rc = outfile_open(path, OUTFILE_SEEKABLE, &w->out, err);
    if (rc != WX_OK) {
        free(w->buf), free(w->path), free(w);
        return rc;
    }
    w->fd = outfile_fd(w->out);
    char head[AUT_HEADER_WIDTH + 1];
    memset(head, ' ', AUT_HEADER_WIDTH);
    memcpy(head, "des (0, ?, ?)", 13);
    head[AUT_HEADER_WIDTH] = '\n';
    writer_put(w, head, sizeof head);
    *wp = w;
    return WX_OK;
}

int aut_writer_expect(struct aut_writer *w, uint64_t n_trans, uint64_t n_states)
{
    /* Only the placeholder has been put so far, and it is still in the buffer. */
    if (w->status || w->n_trans || w->used != AUT_HEADER_WIDTH + 1)
        return w->status ? w->status
                         : (w->status = wx_fail(&w->err, WX_ESYSTEM, w->path, 0, 0,
                                   "internal error: aut_writer_expect after the first line"));
    int n = snprintf(w->buf, AUT_HEADER_WIDTH + 1, "des (0, %llu, %llu)",
                     (unsigned long long)n_trans, (unsigned long long)n_states);
    w->buf[n] = '\n';
    w->used = (size_t)n + 1;
    w->exact = true;
    w->want_trans = n_trans;
    w->want_states = n_states;
    return WX_OK;
}

/* The writer's error for a label AUT cannot carry (a control byte), else 0. */
static int check_label(struct aut_writer *w, const char *label, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (is_bad_label_byte((unsigned char)label[i]))
            return w->status = wx_fail(&w->err, WX_EINPUT, w->path, 0, 0,
                                       "label with control byte 0x%02X at offset %zu "
                                       "cannot be written in AUT",
                                       (unsigned char)label[i], i);
    return WX_OK;
}

static void put_u64(struct aut_writer *w, uint64_t v)
{
    char tmp[20], *d = u64_text(v, tmp);
    writer_put(w, d, (size_t)(tmp + 20 - d));
}

/* "(SRC,LABEL," through writer_put (the slow path, any length). */
static void put_head(struct aut_writer *w, uint64_t src, const char *label, size_t len, bool quote)
{
    writer_put(w, "(", 1);
    put_u64(w, src);
    writer_put(w, quote ? ",\"" : ",", quote ? 2 : 1);
    writer_put(w, label, len);
    writer_put(w, quote ? "\"," : ",", quote ? 2 : 1);
}

/* Counts one written line whose largest state is m. */
static int count_line(struct aut_writer *w, uint64_t m)
{
    if (w->status)
        return w->status;
    if (w->n_trans == 0 || m > w->max_state)
        w->max_state = m;
    w->n_trans++;
    return WX_OK;
}

int aut_writer_add(struct aut_writer *w, uint64_t src, const char *label,
                   size_t len, uint64_t dst)
{
    if (w->status || check_label(w, label, len))
        return w->status;
    bool quote = !is_plain_identifier(label, len);
    /* Short lines are assembled in the buffer directly: the fast path. */
    if (len + 48 <= AUT_WBUF - w->used || (writer_flush(w) == WX_OK && len + 48 <= AUT_WBUF)) {
        char tmp[20], *d;
        char *o = w->buf + w->used;
        *o++ = '(';
        d = u64_text(src, tmp);
        memcpy(o, d, (size_t)(tmp + 20 - d)), o += tmp + 20 - d;
        *o++ = ',';
        if (quote)
            *o++ = '"';
        memcpy(o, label, len), o += len;
        if (quote)
            *o++ = '"';
        *o++ = ',';
        d = u64_text(dst, tmp);
        memcpy(o, d, (size_t)(tmp + 20 - d)), o += tmp + 20 - d;
        *o++ = ')';
        *o++ = '\n';
        w->used = (size_t)(o - w->buf);
    } else if (w->status == WX_OK) {
        put_head(w, src, label, len, quote);
        put_u64(w, dst);
        writer_put(w, ")\n", 2);
    }
    return count_line(w, src > dst ? src : dst);
}

int aut_writer_add_dist(struct aut_writer *w, uint64_t src, const char *label, size_t len,
                        uint32_t n, const uint64_t *dst, const uint64_t *num, const uint64_t *den)
{
    if (w->status)
        return w->status;
    if (n == 1)
        return aut_writer_add(w, src, label, len, dst[0]);
    if (check_label(w, label, len))
        return w->status;
    put_head(w, src, label, len, !is_plain_identifier(label, len));
    uint64_t m = src;
    for (uint32_t i = 0; i < n; i++) {
        put_u64(w, dst[i]);
        m = dst[i] > m ? dst[i] : m;
        if (i + 1 == n)
            break;
        writer_put(w, " ", 1);
        put_u64(w, num[i]);
        writer_put(w, "/", 1);
        put_u64(w, den[i]);
        writer_put(w, " ", 1);
    }
    writer_put(w, ")\n", 2);
    return count_line(w, m);
}

static void writer_free(struct aut_writer *w)
{
    free(w->buf);
    free(w->path);
    free(w);
}

void aut_writer_abort(struct aut_writer *w)
{
    if (!w)
        return;
    outfile_abort(w->out);
    writer_free(w);
}

int aut_writer_close(struct aut_writer *w, uint64_t n_states, struct wx_error *err)
{
    if (w->status == WX_OK && n_states == 0)
        w->status = wx_fail(&w->err, WX_EINPUT, w->path, 0, 0,
                            "cannot write an LTS with 0 states (AUT needs the initial state)");
    if (w->status == WX_OK && w->n_trans > 0 && w->max_state >= n_states)
        w->status = wx_fail(&w->err, WX_ESYSTEM, w->path, 0, 0,
                            "internal error: state %llu was written but the LTS has "
                            "only %llu states", (unsigned long long)w->max_state,
                            (unsigned long long)n_states);
    if (w->status == WX_OK && w->exact && (w->n_trans != w->want_trans || n_states != w->want_states))
        w->status = wx_fail(&w->err, WX_ESYSTEM, w->path, 0, 0,
                            "internal error: the header announced %llu transitions and %llu "
                            "states, the writer got %llu and %llu",
                            (unsigned long long)w->want_trans, (unsigned long long)w->want_states,
                            (unsigned long long)w->n_trans, (unsigned long long)n_states);
    if (w->status == WX_OK && writer_flush(w) == WX_OK && !w->exact) {
        char head[AUT_HEADER_WIDTH + 2];
        int n = snprintf(head, sizeof head, "des (0, %llu, %llu)",
                         (unsigned long long)w->n_trans, (unsigned long long)n_states);
        memset(head + n, ' ', (size_t)(AUT_HEADER_WIDTH - n));
        head[AUT_HEADER_WIDTH] = '\n';
        if (write_full(w->fd, head, AUT_HEADER_WIDTH + 1, 0, true) != 0)
            writer_fail_errno(w, "rewrite the header of");
    }
    int rc = w->status;
    if (rc == WX_OK) {
        wx_error_clear(err);
        rc = outfile_commit(w->out, err); /* closes; renames a temporary */
    } else {
        *err = w->err;
        outfile_abort(w->out);
    }
    writer_free(w);
    return rc;
}

int aut_write(const char *path, const struct lts *l, const struct strtab *labels,
              struct wx_error *err)
{
    struct aut_writer *w;
    int rc = aut_writer_open(path, &w, err);
    if (rc)
        return rc;
    aut_writer_expect(w, l->n_trans, l->n_states);
    for (uint64_t i = 0; i < l->n_trans; i++) {
        uint32_t a = l->label[i];
        if (aut_writer_add(w, l->src[i], strtab_str(labels, a), strtab_len(labels, a),
                           l->dst[i]) != WX_OK)
            break;
    }
    return aut_writer_close(w, l->n_states, err);
}
