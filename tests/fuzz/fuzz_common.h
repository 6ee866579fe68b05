/*
 * fuzz_common.h -- helpers shared by the fuzz targets tests/fuzz/fuzz_*.c.
 *
 * Each target defines LLVMFuzzerTestOneInput (libFuzzer's entry point) and is
 * built two ways:
 *   make fuzz        clang -fsanitize=fuzzer,address,undefined (bin/fuzz/)
 *   make test        gcc with tests/fuzz/driver.c as main, sanitized when
 *                    gcc's libasan is there (the smoke run, t_fuzz_smoke.sh)
 * A target must leave nothing allocated after each input (leaks are
 * findings) and checks the invariants its reader promises, not only "no
 * crash": a broken invariant prints what was expected and aborts, which both
 * libFuzzer and the driver report as a finding with the input.
 *
 * Temporary files: readers that take a path get their input through
 * fz_write_file, which writes it into one private directory per process
 * (BASE/wxfuzz.PID, BASE /dev/shm when it exists, else $TMPDIR or /tmp),
 * removed at exit.
 */
#ifndef WX_FUZZ_COMMON_H
#define WX_FUZZ_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant: a finding.  abort() so that libFuzzer saves the input
 * and the driver prints it with its seed. */
#define FZ_CHECK(cond, ...)                                                         \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "fuzz: invariant broken at %s:%d: %s: ", __FILE__,     \
                    __LINE__, #cond);                                               \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
            abort();                                                                \
        }                                                                           \
    } while (0)

/* WX_FUZZ_LAX=1 in the environment skips the checks of defects already
 * known (messages quoting control bytes), so that an exploratory campaign
 * gets past them (with ASAN_OPTIONS=allocator_may_return_null=1, huge
 * allocations then fail cleanly too instead of being reported).  Off by
 * default: the default is the full contract. */
static inline int fz_lax(void)
{
    static int lax = -1;
    if (lax < 0) {
        const char *v = getenv("WX_FUZZ_LAX");
        lax = v && *v && strcmp(v, "0") != 0;
    }
    return lax;
}

/* The error contract of every reader (util/error.h): the status is the
 * error's code, one of the documented codes, and a failure has a message
 * that fits on one line (no control byte but TAB: readers must escape what
 * they quote from the input).  Returns rc. */
static inline int fz_check_error(int rc, const struct wx_error *e)
{
    FZ_CHECK(rc == WX_OK || rc == WX_EINPUT || rc == WX_ELIMIT || rc == WX_ESYSTEM,
             "status %d is not a reader's status", rc);
    if (rc == WX_OK)
        return rc;
    FZ_CHECK(e->code == rc, "status %d but err.code %d", rc, e->code);
    FZ_CHECK(e->msg[0] != '\0', "status %d without a message", rc);
    if (fz_lax())
        return rc;
    for (const char *p = e->msg; *p; p++)
        FZ_CHECK(((unsigned char)*p >= 0x20 && *p != 0x7f) || *p == '\t',
                 "control byte 0x%02x in the message \"%s\"", (unsigned char)*p, e->msg);
    for (const char *p = e->file; *p; p++)
        FZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f, "control byte in the file name");
    return rc;
}

/* data[0..size) as a NUL-terminated string (malloc'ed; caller frees).  Text
 * after an embedded NUL is cut off, as a C-string API would see it. */
static inline char *fz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

static char fz_dir[600];

static inline int fz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    return remove(path);
}

static inline void fz_rm_dir(void)
{
    if (fz_dir[0])
        nftw(fz_dir, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The process's private temporary directory, BASE/wxfuzz.PID, created on
 * first use and removed at exit.  A crash (or libFuzzer's exit on a finding)
 * skips the removal, so directories of processes that no longer exist are
 * removed here first. */
static inline const char *fz_tmpdir(void)
{
    if (fz_dir[0])
        return fz_dir;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    DIR *d = opendir(base);
    for (struct dirent *de; d && (de = readdir(d));) {
        long pid;
        char end;
        if (sscanf(de->d_name, "wxfuzz.%ld%c", &pid, &end) == 1 && pid > 0 &&
            kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
            snprintf(fz_dir, sizeof fz_dir, "%s/%s", base, de->d_name);
            fz_rm_dir();
        }
    }
    if (d)
        closedir(d);
    snprintf(fz_dir, sizeof fz_dir, "%s/wxfuzz.%ld", base, (long)getpid());
    if (mkdir(fz_dir, 0700) != 0 && errno != EEXIST) {
        perror("fuzz: mkdir");
        abort();
    }
    atexit(fz_rm_dir);
    return fz_dir;
}

/* Writes data[0..size) to the file `name` in fz_tmpdir() and returns its path
 * (a static buffer, valid until the next call). */
static inline const char *fz_write_file(const char *name, const void *data, size_t size)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", fz_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror("fuzz: writing a temporary file");
        abort();
    }
    return path;
}

#endif
