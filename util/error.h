/*
 * error.h -- how failures travel in warpex.
 *
 * Every fallible function returns an int status (WX_OK == 0 or one of the
 * WX_E* codes below) and fills a caller-owned struct wx_error.  Nothing below
 * cli/ prints an error or calls exit(): the CLI formats the error as one line
 *     file:line:col: message
 * (location parts omitted when unknown) and exits with the status as the
 * process exit code.  The codes therefore equal the documented exit codes,
 * with one refinement: WX_EINTERRUPT (a run stopped by SIGINT or SIGTERM)
 * exits with 128 + the signal's number, the shell's convention, i.e. 130
 * for SIGINT (its own value) and 143 for SIGTERM.
 *
 * Exit codes of warpex:
 *     0    ok
 *     1    a checked property is violated (with its trace when asked)
 *     2    usage error, malformed or unsupported input, an output path that
 *          cannot be written as asked (a directory, a socket, a pipe for a
 *          seekable output, one of the run's input files)
 *     3    a resource limit was hit (memory budget, table, encoding)
 *     4    system error: I/O (a failed write, standard output included),
 *          CUDA, internal error
 *     130  interrupted by SIGINT  (128 + 2)
 *     143  interrupted by SIGTERM (128 + 15)
 */
#ifndef WX_ERROR_H
#define WX_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    WX_OK = 0,
    WX_EVIOLATION = 1, /* a checked property is violated (not an error)   */
    WX_EINPUT = 2,     /* usage error or malformed / unsupported input     */
    WX_ELIMIT = 3,     /* a resource limit was hit (memory, table, encoding)*/
    WX_ESYSTEM = 4,    /* I/O failure, CUDA failure, internal error         */
    WX_EINTERRUPT = 130 /* stopped by a signal (SIGINT/SIGTERM); the CLI
                           exits with 128 + that signal's number           */
};

struct wx_error {
    int code;          /* one of the WX_E* codes; WX_OK when no error      */
    char file[256];    /* file the problem is in, "" when none             */
    int line, col;     /* 1-based; 0 when unknown                          */
    char msg[768];
};

/* Clears e (code = WX_OK, empty strings). */
void wx_error_clear(struct wx_error *e);

/* Fills e and returns code, so callers can write `return wx_fail(...)`.
 * file may be NULL; line/col may be 0.  The message and the file name are
 * stored escaped (wx_escape): a message quoting input never sends raw
 * control bytes (ESC ...) to the terminal. */
int wx_fail(struct wx_error *e, int code, const char *file, int line, int col,
            const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Copies src[0..n) into dst (size bytes, always NUL-terminated, cut short
 * when full) with every byte a terminal could act on written as \xNN:
 * control bytes (< 0x20, 0x7f), UTF-8 C1 controls (U+0080..U+009F) and bytes
 * that are not part of valid UTF-8.  Printable ASCII and valid UTF-8 are
 * kept.  Returns the length written. */
size_t wx_escape(char *dst, size_t size, const char *src, size_t n);

/* Formats e as "file:line:col: msg" into buf (always NUL-terminated). */
void wx_error_format(const struct wx_error *e, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
