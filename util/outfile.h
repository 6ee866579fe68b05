/*
 * outfile.h -- every file warpex writes goes through here.
 *
 * outfile_open() looks at what the output path names and picks one of two
 * ways of writing it:
 *
 *   REPLACE   the path is absent or a regular file (a symbolic link is
 *             followed to its target, also when that target does not exist
 *             yet; the link itself is never replaced).  The content goes to a
 *             fresh temporary file in the target's directory, named
 *             ".NAME.wx-XXXXXX" by mkstemp (so no user file is ever
 *             clobbered by the temporary), and outfile_commit() renames it
 *             over the target.  Until then the target is untouched: a failed
 *             or aborted write leaves an existing file as it was and removes
 *             the temporary.  A replaced file keeps its permission bits (and,
 *             where allowed, its owner); a new one gets 0666 minus the umask.
 *   IN PLACE  the path is a character or block device or a FIFO (/dev/null,
 *             /dev/full, a tty, a named pipe), or a descriptor alias of this
 *             process (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
 *             opened with O_APPEND when it leads to a regular file).  It is
 *             opened O_WRONLY without O_CREAT or O_TRUNC and written
 *             directly; it is never unlinked, renamed or truncated, so an
 *             abort cannot undo what was written.  Opening a FIFO blocks
 *             until a reader opens it, as a shell redirection does.
 *
 * Refused (WX_EINPUT, nothing created): a directory, a socket, a special file
 * that cannot be opened for writing, a non-seekable target (FIFO, tty) when
 * the writer asked for OUTFILE_SEEKABLE, and a path that is the same file
 * (device and inode) as one passed to outfile_protect() -- the run's inputs.
 * Failing to create the temporary or to write is WX_ESYSTEM.
 *
 * Write errors: a writer that uses outfile_stream() may ignore the results
 * of individual fprintf/fputs calls; outfile_commit() checks the stream's
 * error flag, fflush and fclose, and fails (WX_ESYSTEM, with the errno text
 * of the first failed write, e.g. "No space left on device") when any failed.
 * A writer using outfile_fd() directly reports its own write errors and calls
 * outfile_abort() on them.
 *
 * Interrupts: the path of every temporary file that exists is kept in a
 * fixed registry (at most OUTFILE_MAX_TEMPS at a time, util/config.h) from
 * just after its creation until it is renamed or removed.
 * outfile_remove_temps() unlinks them all and is async-signal-safe, for a
 * signal handler of the CLI (this module installs no handler).
 *
 * THREAD SAFETY: one outfile is used by one thread at a time; opening,
 * committing and aborting distinct outfiles from several threads is safe.
 * outfile_protect() is for the main thread, before outputs are opened.
 */
#ifndef WX_OUTFILE_H
#define WX_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of outfile_open / outfile_check. */
enum {
    OUTFILE_SEEKABLE = 1  /* the writer repositions (pwrite): refuse FIFOs,
                             sockets and other non-seekable targets */
};

struct outfile;

/* Opens path for writing as described above; *out is a new outfile
 * (released by outfile_commit or outfile_abort).  On failure *out is NULL,
 * err is filled and nothing was created. */
int outfile_open(const char *path, unsigned flags, struct outfile **out, struct wx_error *err);

/* The checks of outfile_open without creating or opening anything (a FIFO
 * is not opened), so that a command can refuse a bad output path before a
 * long computation.  WX_OK or the error outfile_open would give. */
int outfile_check(const char *path, unsigned flags, struct wx_error *err);

/* The descriptor to write to (positioned at 0 for a new or replaced file). */
int outfile_fd(const struct outfile *o);

/* A stdio stream on the descriptor, made on the first call (NULL when out of
 * memory).  Do not mix it with writes to outfile_fd(). */
FILE *outfile_stream(struct outfile *o);

/* true when the target is written in place (no temporary). */
bool outfile_in_place(const struct outfile *o);

/* The path the user gave (for messages). */
const char *outfile_path(const struct outfile *o);

/* Flushes and closes the output and, for a temporary, renames it over the
 * target.  Frees o.  WX_OK, or WX_ESYSTEM when any write, the flush, the
 * close or the rename failed (then the temporary is removed). */
int outfile_commit(struct outfile *o, struct wx_error *err);

/* Closes the output and removes its temporary (a target written in place is
 * left as it is).  Frees o; NULL is a no-op. */
void outfile_abort(struct outfile *o);

/* Opens path, calls write(stream, arg) (which returns non-zero on a failure
 * it saw; it need not check each call), and commits; the one-shot form of
 * the above. */
int outfile_write(const char *path, int (*write)(FILE *, const void *), const void *arg,
                  struct wx_error *err);

/* Records path as an input of this run: outputs naming the same file are
 * refused.  A path that does not exist or is not a regular file is ignored.
 * 0, or -1 when out of memory. */
int outfile_protect(const char *path);

/* Forgets every protected input (for tests). */
void outfile_unprotect_all(void);

/* Unlinks every registered temporary file.  Async-signal-safe. */
void outfile_remove_temps(void);

#ifdef __cplusplus
}
#endif

#endif
