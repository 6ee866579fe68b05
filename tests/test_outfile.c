/*
 * test_outfile.c -- util/outfile.h: what each kind of target becomes.
 *
 *   - absent / regular file: content arrives only on commit, by rename; an
 *     abort or a failed write leaves the old file (content and mode) alone
 *     and no temporary; a user's NAME.tmp is never touched;
 *   - symlink (to a file, dangling, relative chain): the link survives, its
 *     target gets the content;
 *   - character devices (private nodes made with mknod, as root): written in
 *     place and still devices afterwards; ENOSPC from a "full" node is
 *     WX_ESYSTEM with the errno text, and the node survives;
 *   - FIFO: written in place (a reader held open), refused for
 *     OUTFILE_SEEKABLE without blocking; directory refused;
 *   - protected inputs refused, also through a symlink;
 *   - outfile_remove_temps() removes every temporary in flight.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tests/check.h"
#include "util/outfile.h"

/* A symbolic link the test needs; failing to make it fails the test. */
#define CHECK_SYMLINK(to, at_path)                                                                 \
    do {                                                                                           \
        if (symlink((to), (at_path)) != 0)                                                         \
            check(0, "symlink %s -> %s: %s", (at_path), (to), strerror(errno));                   \
    } while (0)

static char dir[] = "/tmp/wx_test_outfile_XXXXXX";

static const char *at(const char *name)
{
    static char b[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(b[k], sizeof b[k], "%s/%s", dir, name);
    return b[k];
}

/* Number of entries of dir whose names start with prefix ("" = all). */
static int count(const char *prefix)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            !strncmp(de->d_name, prefix, strlen(prefix)))
            n++;
    if (d)
        closedir(d);
    return n;
}

static int temps(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));)
        n += strstr(de->d_name, ".wx-") != NULL;
    if (d)
        closedir(d);
    return n;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* The file's content (static buffer; "" when unreadable). */
static const char *get(const char *path)
{
    static char b[256];
    b[0] = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(b, 1, sizeof b - 1, f);
        b[n] = 0;
        fclose(f);
    }
    return b;
}

static int write_text(const char *path, unsigned flags, const char *text, struct wx_error *e)
{
    struct outfile *o;
    int rc = outfile_open(path, flags, &o, e);
    if (rc != WX_OK)
        return rc;
    fputs(text, outfile_stream(o));
    return outfile_commit(o, e);
}

static int put_hello(FILE *f, const void *arg)
{
    (void)arg;
    return fputs("hello\n", f) < 0;
}

static void test_regular(void)
{
    struct wx_error e;
    struct stat st;
    mode_t um = umask(022);
    check(write_text(at("new.txt"), 0, "one\n", &e) == WX_OK && !strcmp(get(at("new.txt")), "one\n"),
          "new file: content after commit");
    check(stat(at("new.txt"), &st) == 0 && (st.st_mode & 0777) == 0644,
          "new file: mode 0666 minus the umask (found %o)", st.st_mode & 0777);
    umask(um);

    chmod(at("new.txt"), 0640);
    put(at("new.txt.tmp"), "user's own .tmp\n");
    struct outfile *o;
    check(outfile_open(at("new.txt"), 0, &o, &e) == WX_OK && !outfile_in_place(o), "replace: open");
    fputs("two\n", outfile_stream(o));
    fflush(outfile_stream(o));
    check(!strcmp(get(at("new.txt")), "one\n") && temps() == 1,
          "replace: the old file is untouched until commit, one temporary beside it");
    check(outfile_commit(o, &e) == WX_OK && !strcmp(get(at("new.txt")), "two\n"), "replace: commit");
    check(stat(at("new.txt"), &st) == 0 && (st.st_mode & 0777) == 0640,
          "replace: the file keeps its mode (found %o)", st.st_mode & 0777);
    check(!strcmp(get(at("new.txt.tmp")), "user's own .tmp\n") && temps() == 0,
          "replace: a user's NAME.tmp is left alone, no temporary left");

    check(outfile_open(at("new.txt"), 0, &o, &e) == WX_OK, "abort: open");
    fputs("three\n", outfile_stream(o));
    outfile_abort(o);
    check(!strcmp(get(at("new.txt")), "two\n") && temps() == 0, "abort: old content kept, no temporary");

    check(outfile_write(at("hello.txt"), put_hello, NULL, &e) == WX_OK && !strcmp(get(at("hello.txt")), "hello\n"),
          "outfile_write");
    check(outfile_open(at("no/such/dir.txt"), 0, &o, &e) == WX_ESYSTEM && !o,
          "a missing directory is WX_ESYSTEM (%s)", e.msg);
    check(outfile_open(dir, 0, &o, &e) == WX_EINPUT && !o, "a directory is refused (%s)", e.msg);
    check(outfile_open("", 0, &o, &e) == WX_EINPUT && !o, "an empty name is refused");
    unlink(at("new.txt.tmp"));
    unlink(at("new.txt"));
    unlink(at("hello.txt"));
}

static void test_links(void)
{
    struct wx_error e;
    struct stat st;
    put(at("target.txt"), "old\n");
    CHECK_SYMLINK("target.txt", at("link.txt"));
    check(write_text(at("link.txt"), 0, "via link\n", &e) == WX_OK, "symlink: write");
    check(lstat(at("link.txt"), &st) == 0 && S_ISLNK(st.st_mode) && !strcmp(get(at("target.txt")), "via link\n"),
          "symlink: the link survives, its target gets the content");

    /* a dangling relative chain: l1 -> sub/l2 -> ../fresh.txt (absent) */
    mkdir(at("sub"), 0755);
    CHECK_SYMLINK("sub/l2", at("l1"));
    CHECK_SYMLINK("../fresh.txt", at("sub/l2"));
    check(write_text(at("l1"), 0, "fresh\n", &e) == WX_OK && !strcmp(get(at("fresh.txt")), "fresh\n"),
          "dangling symlink chain: the final target is created (%s)", e.msg);
    check(lstat(at("l1"), &st) == 0 && S_ISLNK(st.st_mode) && lstat(at("sub/l2"), &st) == 0 &&
              S_ISLNK(st.st_mode),
          "dangling symlink chain: both links survive");
    check(temps() == 0, "links: no temporary left");
    unlink(at("l1")), unlink(at("sub/l2")), rmdir(at("sub"));
    unlink(at("fresh.txt")), unlink(at("link.txt")), unlink(at("target.txt"));
}

static void test_devices(void)
{
    struct wx_error e;
    struct stat st;
    /* private copies of /dev/null (1,3) and /dev/full (1,7) */
    int made = mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)) == 0 &&
               mknod(at("full"), S_IFCHR | 0666, makedev(1, 7)) == 0;
    if (!check(made, "mknod of private null/full nodes (needs root): %s", made ? "ok" : strerror(errno)))
        return;
    struct outfile *o;
    check(outfile_open(at("null"), OUTFILE_SEEKABLE, &o, &e) == WX_OK && outfile_in_place(o),
          "null: opened in place, seekable");
    fputs("data\n", outfile_stream(o));
    check(outfile_commit(o, &e) == WX_OK, "null: commit");
    check(stat(at("null"), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3),
          "null: still the character device afterwards");

    int rc = write_text(at("full"), 0, "data\n", &e);
    check(rc == WX_ESYSTEM && strstr(e.msg, "No space left"), "full: ENOSPC is WX_ESYSTEM (%s)", e.msg);
    check(stat(at("full"), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7),
          "full: the node survives a failed write");

    /* a symlink to a device: written in place through the link */
    CHECK_SYMLINK("null", at("to_null"));
    check(write_text(at("to_null"), 0, "x\n", &e) == WX_OK && lstat(at("to_null"), &st) == 0 &&
              S_ISLNK(st.st_mode) && stat(at("null"), &st) == 0 && S_ISCHR(st.st_mode),
          "symlink to a device: link and device survive");
    check(temps() == 0, "devices: no temporary left");
    unlink(at("to_null")), unlink(at("null")), unlink(at("full"));
}

static void test_fifo(void)
{
    struct wx_error e;
    struct stat st;
    check(mkfifo(at("fifo"), 0600) == 0, "mkfifo");
    struct outfile *o = NULL;
    /* refused before it is opened: a blocking open would hang the test */
    check(outfile_open(at("fifo"), OUTFILE_SEEKABLE, &o, &e) == WX_EINPUT && !o,
          "FIFO refused for a seekable output (%s)", e.msg);
    check(outfile_check(at("fifo"), 0, &e) == WX_OK, "outfile_check accepts a FIFO without opening it");
    int rd = open(at("fifo"), O_RDONLY | O_NONBLOCK); /* a reader, so that open does not block */
    check(outfile_open(at("fifo"), 0, &o, &e) == WX_OK && outfile_in_place(o), "FIFO: opened in place");
    if (o) {
        fputs("through the pipe\n", outfile_stream(o));
        check(outfile_commit(o, &e) == WX_OK, "FIFO: commit");
    }
    char buf[64] = "";
    ssize_t n = read(rd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    close(rd);
    check(!strcmp(buf, "through the pipe\n"), "FIFO: the reader got the content ('%.16s')", buf);
    check(stat(at("fifo"), &st) == 0 && S_ISFIFO(st.st_mode) && temps() == 0,
          "FIFO: still a FIFO, no temporary");
    unlink(at("fifo"));
}

static void test_protect(void)
{
    struct wx_error e;
    put(at("input.txt"), "input\n");
    CHECK_SYMLINK("input.txt", at("input_link"));
    check(outfile_protect(at("input.txt")) == 0 && outfile_protect(at("absent")) == 0, "protect");
    check(write_text(at("input.txt"), 0, "x", &e) == WX_EINPUT && strstr(e.msg, "input"),
          "an input is refused as output (%s)", e.msg);
    check(write_text(at("input_link"), 0, "x", &e) == WX_EINPUT, "... also through a symlink");
    check(outfile_check(at("input.txt"), 0, &e) == WX_EINPUT, "... and by outfile_check");
    check(!strcmp(get(at("input.txt")), "input\n") && temps() == 0, "the input is untouched");
    outfile_unprotect_all();
    check(write_text(at("input.txt"), 0, "now\n", &e) == WX_OK, "unprotected: written");
    unlink(at("input_link")), unlink(at("input.txt"));
}

static void test_registry(void)
{
    struct wx_error e;
    struct outfile *a = NULL, *b = NULL;
    check(outfile_open(at("a.txt"), 0, &a, &e) == WX_OK && outfile_open(at("b.txt"), 0, &b, &e) == WX_OK,
          "registry: two outputs open");
    check(temps() == 2, "registry: two temporaries exist");
    outfile_remove_temps(); /* what the CLI's signal handler does */
    check(temps() == 0 && count("a.txt") == 0 && count("b.txt") == 0,
          "outfile_remove_temps removes every temporary, creates nothing");
    outfile_abort(a);
    outfile_abort(b);
    check(count("") == 0, "registry: the directory is empty again");
}

int main(void)
{
    if (!mkdtemp(dir)) {
        check(0, "mkdtemp: %s", strerror(errno));
        return check_exit();
    }
    test_regular();
    test_links();
    test_devices();
    test_fifo();
    test_protect();
    test_registry();
    rmdir(dir);
    return check_exit();
}
