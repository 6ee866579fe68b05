/*
 * input.c -- opening and streaming inputs for every reader (contract in
 * input.h).
 */
#include "input.h"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int wx_input_open(const char *path, int *fd, struct stat *st, struct wx_error *err)
{
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0) {
        if (errno == EISDIR)
            return wx_fail(err, WX_EINPUT, path, 0, 0, "is a directory");
        return wx_fail(err, WX_EINPUT, path, 0, 0, "cannot open: %s", strerror(errno));
    }
    if (fstat(*fd, st) != 0) {
        int e = errno;
        close(*fd);
        *fd = -1;
        return wx_fail(err, WX_EINPUT, path, 0, 0, "cannot stat: %s", strerror(e));
    }
    if (S_ISDIR(st->st_mode)) {
        close(*fd);
        *fd = -1;
        return wx_fail(err, WX_EINPUT, path, 0, 0, "is a directory");
    }
    return WX_OK;
}

/* The line and column of byte `at` of data[0..at], for the NUL error. */
static void locate(const char *data, size_t at, int *line, int *col)
{
    uint64_t l = 1, c = 1;
    for (size_t i = 0; i < at; i++) {
        if (data[i] == '\n')
            l++, c = 1;
        else
            c++;
    }
    *line = l > INT32_MAX ? INT32_MAX : (int)l;
    *col = c > INT32_MAX ? INT32_MAX : (int)c;
}

int wx_input_read_fd(int fd, const char *path, enum wx_input_mode mode, int stop_byte,
                     char **data, size_t *len, struct wx_error *err)
{
    size_t cap = (size_t)1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    *data = NULL;
    *len = 0;
    if (!buf)
        return wx_fail(err, WX_ELIMIT, path, 0, 0, "out of memory reading the file");
    for (;;) {
        if (n == cap) {
            char *nb = cap > SIZE_MAX / 4 ? NULL : realloc(buf, 2 * cap + 1);
            if (!nb) {
                free(buf);
                return wx_fail(err, WX_ELIMIT, path, 0, 0, "out of memory reading the file");
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            return wx_fail(err, e == EISDIR ? WX_EINPUT : WX_ESYSTEM, path, 0, 0,
                           e == EISDIR ? "is a directory" : "cannot read: %s", strerror(e));
        }
        if (r == 0)
            break;
        /* check only the new bytes: each byte is looked at once */
        const char *stop = stop_byte >= 0 ? memchr(buf + n, stop_byte, (size_t)r) : NULL;
        size_t upto = stop ? (size_t)(stop - buf) + 1 : n + (size_t)r;
        const char *nul = mode == WX_INPUT_TEXT ? memchr(buf + n, 0, upto - n) : NULL;
        if (nul) {
            int line, col;
            locate(buf, (size_t)(nul - buf), &line, &col);
            free(buf);
            return wx_fail(err, WX_EINPUT, path, line, col,
                           "NUL byte (0x00): not a text file");
        }
        n = upto;
        if (stop)
            break;
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return WX_OK;
}

int wx_input_read_path(const char *path, enum wx_input_mode mode, int stop_byte, char **data,
                       size_t *len, struct wx_error *err)
{
    int fd;
    struct stat st;
    int rc = wx_input_open(path, &fd, &st, err);
    if (rc != WX_OK)
        return rc;
    rc = wx_input_read_fd(fd, path, mode, stop_byte, data, len, err);
    close(fd);
    return rc;
}

uint64_t wx_id_limit(uint64_t bytes)
{
    if (bytes > (UINT64_MAX - WX_IDS_FLOOR) / WX_IDS_PER_BYTE)
        return UINT64_MAX;
    return WX_IDS_PER_BYTE * bytes + WX_IDS_FLOOR;
}

void wx_id_limit_text(uint64_t bytes, char *buf, size_t size)
{
    snprintf(buf, size, "ids above %llu * file bytes + %llu (= %llu here) are refused",
             (unsigned long long)WX_IDS_PER_BYTE, (unsigned long long)WX_IDS_FLOOR,
             (unsigned long long)wx_id_limit(bytes));
}
