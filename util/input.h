/*
 * input.h -- what every reader does before it parses: open the input the
 * same way, read a stream (pipe, device) without trusting it, and judge a
 * declared count or an id against the size of the input.
 *
 * Errors are wx_errors with code WX_EINPUT (exit 2) for anything the user
 * named wrongly: a missing or unreadable path, a directory ("PATH: is a
 * directory"), a NUL byte in a text stream; WX_ELIMIT when memory runs out.
 *
 * THREAD SAFETY: reentrant.
 */
#ifndef WX_INPUT_H
#define WX_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens path read-only; *fd is the descriptor (the caller closes it) and *st
 * its fstat.  A directory, or a path that cannot be opened or stat'ed, is
 * WX_EINPUT ("is a directory", "cannot open: REASON"), *fd = -1. */
int wx_input_open(const char *path, int *fd, struct stat *st, struct wx_error *err);

/* How wx_input_read_fd treats the bytes of the stream. */
enum wx_input_mode {
    WX_INPUT_TEXT,   /* a NUL byte is a located error at once (never text) */
    WX_INPUT_BINARY  /* any byte */
};

/* Reads fd to its end into a malloc'ed buffer (*data, *len; the caller
 * frees it; one spare byte after the data is allocated and set to 0).  In
 * TEXT mode the first NUL byte stops the read with "path:LINE:COL: NUL byte
 * (0x00): not a text file", so /dev/zero fails at once; stop_byte >= 0 ends
 * the read early at that byte (kept in the buffer; -1: none), for formats
 * that ignore what follows it. */
int wx_input_read_fd(int fd, const char *path, enum wx_input_mode mode, int stop_byte,
                     char **data, size_t *len, struct wx_error *err);

/* The whole of path (regular file or stream) read as wx_input_read_fd. */
int wx_input_read_path(const char *path, enum wx_input_mode mode, int stop_byte, char **data,
                       size_t *len, struct wx_error *err);

/* The largest id (vertex, state) or declared vertex/state count a file of
 * `bytes` bytes may name: WX_IDS_PER_BYTE * bytes + WX_IDS_FLOOR
 * (util/config.h says why). */
uint64_t wx_id_limit(uint64_t bytes);

/* The text to append to an error about an id above wx_id_limit, e.g.
 * "ids above 16 * file bytes + 1048576 (= 1048864 here) are refused". */
void wx_id_limit_text(uint64_t bytes, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
