/*
 * outfile.c -- output files: replace by rename, or write in place
 * (contract in outfile.h).
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

struct outfile {
    int fd;
    FILE *f;           /* outfile_stream's stream on fd, or NULL */
    int write_errno;   /* errno of the stream's first failed write, 0 none */
    char *path;        /* as given */
    char *target;      /* REPLACE: the resolved file the temporary replaces */
    char *tmp;         /* REPLACE: the temporary; NULL when in place */
    int slot;          /* registry slot of tmp, -1 when none */
};

/* ---- the registry of temporaries ------------------------------------- */

/* A slot holds a temporary's path (owned by its outfile) or NULL.  The
 * pointer is published after the file exists and cleared after it was
 * renamed or removed, so a signal handler reading the slots unlinks only
 * names that are, or were an instant ago, temporaries; unlinking one that
 * was just renamed away fails harmlessly with ENOENT.  Lock-free pointer
 * atomics are async-signal-safe. */
static _Atomic(char *) temps[OUTFILE_MAX_TEMPS];

static int register_temp(char *path)
{
    for (int i = 0; i < OUTFILE_MAX_TEMPS; i++) {
        char *none = NULL;
        if (atomic_compare_exchange_strong(&temps[i], &none, path))
            return i;
    }
    return -1;
}

static void unregister_temp(int slot)
{
    if (slot >= 0)
        atomic_store(&temps[slot], NULL);
}

void outfile_remove_temps(void)
{
    for (int i = 0; i < OUTFILE_MAX_TEMPS; i++) {
        char *p = atomic_load(&temps[i]);
        if (p)
            unlink(p);
    }
}

/* ---- protected inputs ------------------------------------------------- */

struct file_id {
    dev_t dev;
    ino_t ino;
};
static struct file_id *inputs;
static size_t n_inputs, cap_inputs;

int outfile_protect(const char *path)
{
    struct stat st;
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    for (size_t i = 0; i < n_inputs; i++)
        if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
            return 0;
    if (n_inputs == cap_inputs) {
        size_t cap = cap_inputs ? 2 * cap_inputs : 16;
        struct file_id *p = realloc(inputs, cap * sizeof *p);
        if (!p)
            return -1;
        inputs = p, cap_inputs = cap;
    }
    inputs[n_inputs++] = (struct file_id){st.st_dev, st.st_ino};
    return 0;
}

void outfile_unprotect_all(void)
{
    free(inputs);
    inputs = NULL;
    n_inputs = cap_inputs = 0;
}

static bool is_protected(const struct stat *st)
{
    for (size_t i = 0; i < n_inputs; i++)
        if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
            return true;
    return false;
}

/* ---- what the path names ---------------------------------------------- */

enum way { WAY_REPLACE, WAY_IN_PLACE };

struct target {
    enum way way;
    bool exists;       /* REPLACE: the target exists (st valid) */
    bool append;       /* IN PLACE: a descriptor alias of a regular file */
    struct stat st;
    char *file;        /* REPLACE: the path to rename over (malloc'd) */
};

/* A name for one of this process's descriptors: writing there must reach the
 * descriptor's file as it is (a shell redirection), not replace it. */
static bool is_fd_alias(const char *p)
{
    return !strcmp(p, "/dev/stdout") || !strcmp(p, "/dev/stderr") || !strncmp(p, "/dev/fd/", 8) ||
           !strncmp(p, "/proc/self/fd/", 14);
}

/* The dangling link chain from path to the name it would create: each link
 * read in turn (a relative one from its own directory), at most 40 deep as
 * the kernel allows.  Returns a malloc'd path, or NULL with errno set. */
static char *follow_dangling(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur && hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur; /* the name the link chain ends in */
        char buf[PATH_MAX];
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        buf[n] = 0;
        char *slash = strrchr(cur, '/');
        char *next;
        if (buf[0] == '/' || !slash) {
            next = strdup(buf);
        } else {
            size_t d = (size_t)(slash - cur) + 1;
            next = malloc(d + (size_t)n + 1);
            if (next)
                memcpy(next, cur, d), memcpy(next + d, buf, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    free(cur);
    errno = cur ? ELOOP : ENOMEM;
    return NULL;
}

static int classify(const char *path, unsigned flags, struct target *t, struct wx_error *err)
{
    memset(t, 0, sizeof *t);
    if (!path[0])
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "empty output file name");
    if (stat(path, &t->st) == 0) {
        mode_t m = t->st.st_mode;
        if (S_ISDIR(m))
            return wx_fail(err, WX_EINPUT, path, 0, 0, "is a directory, not an output file");
        if (S_ISSOCK(m))
            return wx_fail(err, WX_EINPUT, path, 0, 0, "is a socket: cannot write an output there");
        if (S_ISREG(m) && is_protected(&t->st))
            return wx_fail(err, WX_EINPUT, path, 0, 0,
                           "is an input of this run: refusing to overwrite it");
        if (!S_ISREG(m) || is_fd_alias(path)) {
            if ((flags & OUTFILE_SEEKABLE) && (S_ISFIFO(m) || (S_ISREG(m) && is_fd_alias(path))))
                return wx_fail(err, WX_EINPUT, path, 0, 0,
                               "this output is completed at its start when done, so it needs a "
                               "seekable file, not a pipe or descriptor: write it to a file first");
            t->way = WAY_IN_PLACE;
            t->append = S_ISREG(m);
            return WX_OK;
        }
        t->way = WAY_REPLACE;
        t->exists = true;
        t->file = realpath(path, NULL); /* follows links; the target exists */
    } else if (errno == ENOENT) {
        t->way = WAY_REPLACE;
        t->file = follow_dangling(path);
    } else {
        return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot write: %s", strerror(errno));
    }
    if (!t->file)
        return wx_fail(err, errno == ENOMEM ? WX_ELIMIT : WX_ESYSTEM, path, 0, 0, "cannot write: %s",
                       strerror(errno));
    return WX_OK;
}

int outfile_check(const char *path, unsigned flags, struct wx_error *err)
{
    struct target t;
    int rc = classify(path, flags, &t, err);
    free(t.file);
    return rc;
}

/* ---- open ------------------------------------------------------------- */

/* The process's umask, read without changing it where /proc tells it. */
static mode_t current_umask(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned m;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &m) == 1) {
            fclose(f);
            return (mode_t)m;
        }
    if (f)
        fclose(f);
    mode_t old = umask(022);
    umask(old);
    return old;
}

static int open_in_place(const char *path, const struct target *t, unsigned flags, struct outfile *o,
                         struct wx_error *err)
{
    o->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (t->append ? O_APPEND : 0));
    if (o->fd < 0)
        return wx_fail(err, errno == ENOMEM ? WX_ELIMIT : WX_EINPUT, path, 0, 0,
                       "cannot be written in place: %s", strerror(errno));
    if ((flags & OUTFILE_SEEKABLE) && lseek(o->fd, 0, SEEK_CUR) < 0) {
        close(o->fd);
        o->fd = -1;
        return wx_fail(err, WX_EINPUT, path, 0, 0,
                       "this output is completed at its start when done, so it needs a "
                       "seekable file, not a pipe or terminal: write it to a file first");
    }
    return WX_OK;
}

/* Creates the temporary next to t->file and registers it. */
static int open_temp(const struct target *t, struct outfile *o, struct wx_error *err)
{
    const char *slash = strrchr(t->file, '/');
    size_t d = slash ? (size_t)(slash - t->file) + 1 : 0;
    const char *base = t->file + d;
    size_t n = d + strlen(base) + 16;
    if (!(o->tmp = malloc(n)))
        return wx_fail(err, WX_ELIMIT, o->path, 0, 0, "out of memory");
    snprintf(o->tmp, n, "%.*s.%s.wx-XXXXXX", (int)d, t->file, base);
    /* Signals are held between creating the file and registering it, so a
     * handler that ends the process never misses it. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    o->fd = mkostemp(o->tmp, O_CLOEXEC);
    int e = errno;
    if (o->fd >= 0 && (o->slot = register_temp(o->tmp)) < 0) {
        close(o->fd), unlink(o->tmp);
        o->fd = -1;
        e = EMFILE;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (o->fd < 0) {
        free(o->tmp);
        o->tmp = NULL;
        return wx_fail(err, WX_ESYSTEM, o->path, 0, 0, "cannot create: %s", strerror(e));
    }
    if (t->exists) {
        if (fchown(o->fd, t->st.st_uid, t->st.st_gid) != 0) {
            /* not the owner (or not allowed to give files away): ours */
        }
        fchmod(o->fd, t->st.st_mode & 07777);
    } else {
        fchmod(o->fd, 0666 & ~current_umask());
    }
    return WX_OK;
}

static void outfile_free(struct outfile *o)
{
    free(o->path);
    free(o->target);
    free(o->tmp);
    free(o);
}

int outfile_open(const char *path, unsigned flags, struct outfile **out, struct wx_error *err)
{
    *out = NULL;
    struct target t;
    int rc = classify(path, flags, &t, err);
    if (rc != WX_OK)
        return rc;
    struct outfile *o = calloc(1, sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        free(o), free(t.file);
        return wx_fail(err, WX_ELIMIT, path, 0, 0, "out of memory");
    }
    o->fd = -1;
    o->slot = -1;
    o->target = t.file;
    rc = t.way == WAY_IN_PLACE ? open_in_place(path, &t, flags, o, err) : open_temp(&t, o, err);
    if (rc != WX_OK) {
        outfile_free(o);
        return rc;
    }
    *out = o;
    return WX_OK;
}

/* ---- writing ------------------------------------------------------------ */

int outfile_fd(const struct outfile *o)
{
    return o->fd;
}

bool outfile_in_place(const struct outfile *o)
{
    return o->tmp == NULL;
}

const char *outfile_path(const struct outfile *o)
{
    return o->path;
}

/* The stream's write function: all of buf, retrying after signals; the
 * first failure's errno is kept for outfile_commit's message. */
static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
    struct outfile *o = cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t r = write(o->fd, buf + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (!o->write_errno)
                o->write_errno = r < 0 ? errno : EIO;
            return 0; /* stdio's "error" for a cookie write */
        }
        done += (size_t)r;
    }
    return (ssize_t)n;
}

static int stream_close(void *cookie)
{
    (void)cookie; /* outfile_commit / abort close the descriptor */
    return 0;
}

FILE *outfile_stream(struct outfile *o)
{
    if (!o->f) {
        cookie_io_functions_t io = {.write = stream_write, .close = stream_close};
        o->f = fopencookie(o, "w", io);
        if (o->f)
            setvbuf(o->f, NULL, _IOFBF, OUTFILE_STREAM_BUFFER);
    }
    return o->f;
}

int outfile_commit(struct outfile *o, struct wx_error *err)
{
    int e = 0;
    if (o->f) {
        bool bad = fflush(o->f) != 0 || ferror(o->f);
        bad |= fclose(o->f) != 0;
        o->f = NULL;
        if (bad)
            e = o->write_errno ? o->write_errno : EIO;
    }
    if (e == 0 && o->write_errno)
        e = o->write_errno;
    if (close(o->fd) != 0 && e == 0)
        e = errno;
    o->fd = -1;
    if (e == 0 && o->tmp && rename(o->tmp, o->target) != 0)
        e = errno;
    if (e != 0) {
        wx_fail(err, WX_ESYSTEM, o->path, 0, 0, "cannot write: %s", strerror(e));
        if (o->tmp)
            unlink(o->tmp);
    }
    unregister_temp(o->slot);
    outfile_free(o);
    return e ? WX_ESYSTEM : WX_OK;
}

void outfile_abort(struct outfile *o)
{
    if (!o)
        return;
    if (o->f)
        fclose(o->f); /* stream_close leaves the descriptor */
    if (o->fd >= 0)
        close(o->fd);
    if (o->tmp)
        unlink(o->tmp);
    unregister_temp(o->slot);
    outfile_free(o);
}

int outfile_write(const char *path, int (*write_fn)(FILE *, const void *), const void *arg,
                  struct wx_error *err)
{
    struct outfile *o;
    int rc = outfile_open(path, 0, &o, err);
    if (rc != WX_OK)
        return rc;
    FILE *f = outfile_stream(o);
    if (!f) {
        outfile_abort(o);
        return wx_fail(err, WX_ELIMIT, path, 0, 0, "out of memory");
    }
    if (write_fn(f, arg) != 0) {
        /* a failure the writer saw: the stream's errno, if it was a write */
        fflush(f);
        if (!o->write_errno) {
            outfile_abort(o);
            return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot write: %s", strerror(EIO));
        }
    }
    return outfile_commit(o, err);
}
