/*
 * test_aut.c -- tests of the AUT reader and writer (parser/aut.h).
 *
 *   - edge cases of the accepted language, from memory (labels, counts,
 *     duplicates, initial state);
 *   - tests/good/aut/EXPECT and tests/bad/aut/EXPECT: every file with its
 *     expected result / error location (line:col, status, message text);
 *   - the writer: exact output, failure paths remove the file, an aborted
 *     file is recognised;
 *   - random property tests (seeds printed): LTSs with weird labels written
 *     by an independent, randomly formatted writer in this file and by
 *     aut_writer must read back identically; mutated files must either read
 *     or fail with a location inside the file.
 * Environment: WX_SEED=N changes the base seed of the random tests.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parser/aut.h"
#include "tests/check.h"

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */

struct rd {
    int rc;
    struct strtab *t;
    struct lts l;
    uint32_t init;
    struct wx_error err;
};

static void rd_buf(struct rd *r, const char *data, size_t len)
{
    r->t = strtab_new();
    r->rc = aut_read_buffer(data, len, "mem.aut", r->t, &r->l, &r->init, &r->err);
}

static void rd_str(struct rd *r, const char *text)
{
    rd_buf(r, text, strlen(text));
}

static void rd_free(struct rd *r)
{
    lts_free(&r->l);
    strtab_free(r->t);
}

static const char *err_text(const struct wx_error *e)
{
    static char b[1200];
    wx_error_format(e, b, sizeof b);
    return b;
}

/* Label text of transition i. */
static const char *lab(const struct rd *r, uint64_t i)
{
    return strtab_str(r->t, r->l.label[i]);
}

/* Finds transition (src, text, dst); its index or -1. */
static long find_trans(const struct rd *r, uint32_t src, const char *text, uint32_t dst)
{
    for (uint64_t i = 0; i < r->l.n_trans; i++)
        if (r->l.src[i] == src && r->l.dst[i] == dst && strcmp(lab(r, i), text) == 0)
            return (long)i;
    return -1;
}

/* Same LTS over the same strtab (ids compared directly). */
static bool lts_same(const struct lts *a, const struct lts *b, char *why, size_t n)
{
    if (a->n_states != b->n_states) {
        snprintf(why, n, "states %u vs %u", a->n_states, b->n_states);
        return false;
    }
    if (a->n_trans != b->n_trans) {
        snprintf(why, n, "transitions %llu vs %llu", (unsigned long long)a->n_trans,
                 (unsigned long long)b->n_trans);
        return false;
    }
    for (uint64_t i = 0; i < a->n_trans; i++)
        if (a->src[i] != b->src[i] || a->label[i] != b->label[i] || a->dst[i] != b->dst[i]) {
            snprintf(why, n, "transition %llu: (%u,%u,%u) vs (%u,%u,%u)",
                     (unsigned long long)i, a->src[i], a->label[i], a->dst[i], b->src[i],
                     b->label[i], b->dst[i]);
            return false;
        }
    for (uint64_t s = 0; s <= a->n_states; s++)
        if (a->offsets[s] != b->offsets[s]) {
            snprintf(why, n, "offsets[%llu]", (unsigned long long)s);
            return false;
        }
    return true;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t r;
    while ((r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    *len = n;
    return b;
}

/* Prints the start of a failing input with non-printable bytes escaped, so
 * the test log stays text (tests/run.sh greps it). */
static void dump(const char *p, size_t n)
{
    printf("input (first 2000 bytes, escaped):\n");
    for (size_t i = 0; i < n && i < 2000; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\n' || (c >= 0x20 && c < 0x7f && c != '\\'))
            putchar(c);
        else
            printf("\\x%02X", c);
    }
    putchar('\n');
}

static char tmpdir[] = "/tmp/wx_test_aut_XXXXXX";

static const char *tmp_path(const char *name)
{
    static char b[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(b[k], sizeof b[k], "%s/%s", tmpdir, name);
    return b[k];
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ------------------------------------------------------------------------ */
/* edge cases from memory                                                   */

static void test_minimal(void)
{
    struct rd r;
    rd_str(&r, "des (0, 0, 1)\n");
    check(r.rc == WX_OK, "minimal: reads (%s)", err_text(&r.err));
    CHECK_EQ_U64(r.l.n_states, 1, "minimal: states");
    CHECK_EQ_U64(r.l.n_trans, 0, "minimal: transitions");
    CHECK_EQ_U64(r.l.offsets[1], 0, "minimal: offsets[1]");
    rd_free(&r);

    rd_str(&r, "des(0,0,1)");
    check(r.rc == WX_OK, "minimal without blanks or final newline reads (%s)",
          err_text(&r.err));
    rd_free(&r);
}

static void test_embedded_quotes(void)
{
    struct rd r;
    rd_str(&r, "des (0, 3, 5)\n"
               "(4, \"MSG !\"a,b\" !\"x\"\", 1)\n"
               "(0, \"a\", \"b\", 2)\n"
               "(1, \"\"\"\", 3)\n");
    check(r.rc == WX_OK, "embedded quotes: reads (%s)", err_text(&r.err));
    check(find_trans(&r, 4, "MSG !\"a,b\" !\"x\"", 1) >= 0,
          "embedded quotes: CADP manual example label MSG !\"a,b\" !\"x\"");
    check(find_trans(&r, 0, "a\", \"b", 2) >= 0,
          "embedded quotes: leftmost..rightmost quote gives a\", \"b");
    check(find_trans(&r, 1, "\"\"", 3) >= 0, "embedded quotes: \"\"\"\" is the label \"\"");
    rd_free(&r);
}

static void test_same_label(void)
{
    struct rd r;
    rd_str(&r, "des (0, 8, 3)\n"
               "(0, PUT_1, 1)\n(0, \"PUT_1\", 1)\n"  /* same transition twice */
               "(1, *, 2)\n(1, \"*\", 2)\n"
               "(2, i, 0)\n(2, \"i\", 0)\n"
               "(2, tau, 0)\n(2, \"tau\", 1)\n");
    check(r.rc == WX_OK, "quoted = unquoted: reads (%s)", err_text(&r.err));
    CHECK_EQ_U64(strtab_count(r.t), 4, "quoted = unquoted: labels PUT_1 * i tau");
    CHECK_EQ_U64(r.l.n_trans, 5, "quoted = unquoted: distinct transitions");
    CHECK_EQ_U64(r.l.n_duplicates, 3, "quoted = unquoted: duplicates dropped");
    check(strtab_find(r.t, "*", 1) != UINT32_MAX, "quoted = unquoted: '*' interned bare");
    check(strtab_find(r.t, "\"i\"", 3) == UINT32_MAX, "quoted = unquoted: quotes not interned");
    rd_free(&r);
}

static void test_mcrl2_unquoted(void)
{
    struct rd r;
    rd_str(&r, "des (0, 5, 2)\n"
               "(0, a(1, 2), 1)\n"
               "(0, send ( x )  , 1)\n"
               "(0, 1a, 1)\n"
               "(0,b|c,1)\n"
               "(1, \"a(1, 2)\", 0)\n");
    check(r.rc == WX_OK, "mCRL2 unquoted: reads (%s)", err_text(&r.err));
    check(find_trans(&r, 0, "a(1, 2)", 1) >= 0, "mCRL2 unquoted: a(1, 2) up to the last comma");
    check(find_trans(&r, 0, "send ( x )", 1) >= 0,
          "mCRL2 unquoted: outer blanks trimmed, inner kept");
    check(find_trans(&r, 0, "1a", 1) >= 0, "mCRL2 unquoted: 1a");
    check(find_trans(&r, 0, "b|c", 1) >= 0, "mCRL2 unquoted: b|c kept as written");
    check(find_trans(&r, 1, "a(1, 2)", 0) >= 0 && strtab_count(r.t) == 4,
          "mCRL2 unquoted: same text quoted is the same label");
    rd_free(&r);
}

static void test_initial(void)
{
    struct rd r;
    rd_str(&r, "des (3, 4, 5)\n(3, a, 1)\n(1, b, 3)\n(0, c, 3)\n(4, d, 4)\n");
    check(r.rc == WX_OK, "non-zero initial: reads (%s)", err_text(&r.err));
    CHECK_EQ_U64(r.init, 3, "non-zero initial: *initial");
    CHECK_EQ_U64(r.l.n_states, 5, "non-zero initial: file numbering kept");
    check(lts_prune_from(&r.l, r.init) == 0, "non-zero initial: lts_prune_from");
    CHECK_EQ_U64(r.l.n_states, 2, "non-zero initial: reachable states after renumbering");
    CHECK_EQ_U64(r.l.n_trans, 2, "non-zero initial: reachable transitions");
    check(find_trans(&r, 0, "a", 1) >= 0 && find_trans(&r, 1, "b", 0) >= 0,
          "non-zero initial: renumbered 3->0, 1->1");
    rd_free(&r);
}

static void test_layout(void)
{
    struct rd r;
    rd_str(&r, "\n \t\r\n"
               "des (0, 3, 3)  \r\n"
               "\r\n"
               "  (0 ,\"a b\",1)\t \r\n"
               "\t( 1\t,\tc\t,\t2\t)\r\n"
               "\n\n"
               "(2, \"\t x \", 0)\r\r\n"
               "   \n");
    check(r.rc == WX_OK, "layout: CRLF, blanks, blank lines read (%s)", err_text(&r.err));
    check(find_trans(&r, 0, "a b", 1) >= 0, "layout: quoted label with a blank");
    check(find_trans(&r, 1, "c", 2) >= 0, "layout: tabs around tokens");
    check(find_trans(&r, 2, "\t x ", 0) >= 0, "layout: quoted label keeps tab and blanks");
    rd_free(&r);

    rd_str(&r, "des (0, 1, 2)\n(0, a, 1)");
    check(r.rc == WX_OK && r.l.n_trans == 1, "layout: missing final newline (%s)",
          err_text(&r.err));
    rd_free(&r);

    rd_str(&r, "des (000, 1, 0002)\n(001, a, 00)\n");
    check(r.rc == WX_OK && find_trans(&r, 1, "a", 0) >= 0, "layout: leading zeros (%s)",
          err_text(&r.err));
    rd_free(&r);
}

static void test_long_label(void)
{
    size_t n = 200000;
    char *text = malloc(n + 64), *lbl = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        lbl[i] = (char)(' ' + (i * 7) % 95);
    lbl[n] = 0;
    lbl[0] = 'x';
    int k = sprintf(text, "des (0, 1, 1)\n(0, \"");
    memcpy(text + k, lbl, n);
    k += (int)n;
    k += sprintf(text + k, "\", 0)\n");
    struct rd r;
    rd_buf(&r, text, (size_t)k);
    check(r.rc == WX_OK && r.l.n_trans == 1 && strtab_len(r.t, r.l.label[0]) == n &&
              memcmp(lab(&r, 0), lbl, n) == 0,
          "long label: 200000 printable characters byte-exact (%s)", err_text(&r.err));
    rd_free(&r);
    free(text), free(lbl);
}

static void test_eot(void)
{
    static const char a[] = "des (0, 1, 2)\n(0, a, 1)\n\x04" "des (0, 5, 9)\n(7, x\n";
    struct rd r;
    rd_buf(&r, a, sizeof a - 1);
    check(r.rc == WX_OK && r.l.n_trans == 1, "EOT at line start ends the input (%s)",
          err_text(&r.err));
    rd_free(&r);
    static const char b[] = "des (0, 1, 2)\n(0, a, 1) \x04garbage";
    rd_buf(&r, b, sizeof b - 1);
    check(r.rc == WX_OK && r.l.n_trans == 1, "EOT after a complete line ends the input (%s)",
          err_text(&r.err));
    rd_free(&r);
    static const char c[] = "des (0, 0, 1)\x04(0, a, 1)";
    rd_buf(&r, c, sizeof c - 1);
    check(r.rc == WX_OK && r.l.n_trans == 0, "EOT right after the header (%s)",
          err_text(&r.err));
    rd_free(&r);
    static const char d[] = "des (0, 1, 1)\n(0, \"a\x04\", 0)\n";
    rd_buf(&r, d, sizeof d - 1);
    check(r.rc == WX_EINPUT && r.err.line == 2 && r.err.col == 7 &&
              strstr(r.err.msg, "EOT"),
          "EOT inside a quoted label is an error at 2:7 (%s)", err_text(&r.err));
    rd_free(&r);
}

static void test_duplicates_and_labels(void)
{
    struct rd r;
    rd_str(&r, "des (0, 7, 2)\n(0, a, 1)\n(0, a, 1)\n(0,a,1)\n(0, \"\", 1)\n(0,\"\",1)\n"
               "(1, \"caf\xc3\xa9 \xe2\x9c\x93\", 0)\n(1, b, 0)\n");
    check(r.rc == WX_OK, "dedup: reads (%s)", err_text(&r.err));
    CHECK_EQ_U64(r.l.n_trans, 4, "dedup: distinct transitions");
    CHECK_EQ_U64(r.l.n_duplicates, 3, "dedup: duplicate lines counted");
    check(find_trans(&r, 0, "", 1) >= 0, "empty quoted label \"\" is the empty text");
    check(find_trans(&r, 1, "caf\xc3\xa9 \xe2\x9c\x93", 0) >= 0,
          "UTF-8 bytes inside a label are kept byte-exact");
    bool sorted = true;
    for (uint64_t i = 1; i < r.l.n_trans; i++)
        if (r.l.src[i - 1] > r.l.src[i])
            sorted = false;
    check(sorted && r.l.offsets[2] == r.l.n_trans, "dedup: result is a finished LTS");
    rd_free(&r);
}

/* Labels equal in length and in their first and last 8 bytes collide in the
 * reader's label cache; they must still be told apart. */
static void test_label_cache_collisions(void)
{
    struct rd r;
    rd_str(&r, "des (0, 6, 2)\n"
               "(0, \"AAAAAAAA1ZZZZZZZZ\", 1)\n(0, \"AAAAAAAA2ZZZZZZZZ\", 1)\n"
               "(0, AAAAAAAA1ZZZZZZZZ, 0)\n(1, \"AAAAAAAA2ZZZZZZZZ\", 0)\n"
               "(1, ab, 0)\n(1, \"ab\\0\", 0)\n");
    check(r.rc == WX_OK && strtab_count(r.t) == 4 &&
              find_trans(&r, 0, "AAAAAAAA1ZZZZZZZZ", 1) >= 0 &&
              find_trans(&r, 0, "AAAAAAAA2ZZZZZZZZ", 1) >= 0 &&
              find_trans(&r, 0, "AAAAAAAA1ZZZZZZZZ", 0) >= 0 &&
              find_trans(&r, 1, "AAAAAAAA2ZZZZZZZZ", 0) >= 0 &&
              find_trans(&r, 1, "ab\\0", 0) >= 0,
          "labels colliding in the reader's cache stay distinct (%s)", err_text(&r.err));
    rd_free(&r);
}

static void test_errors_in_memory(void)
{
    struct rd r;
    /* A big announced count: the message gives both 64-bit numbers. */
    rd_str(&r, "des (0, 5000000000, 2)\n(0, a, 1)\n");
    check(r.rc == WX_EINPUT && r.err.line == 1 && r.err.col == 9 &&
              strstr(r.err.msg, "5000000000") && strstr(r.err.msg, " 1 transition line"),
          "count mismatch with a 64-bit count names both numbers (%s)", err_text(&r.err));
    check(r.l.n_trans == 0 && r.l.src == NULL && r.init == 0,
          "on error the LTS is left empty");
    rd_free(&r);

    rd_str(&r, "des (0, 1, 2147483647)\n(2147483647, a, 0)\n");
    check(r.rc == WX_EINPUT && r.err.line == 1 && r.err.col == 12 &&
              strstr(r.err.msg, "2147483647 states, implausible for a file of 42 bytes"),
          "a state count the file cannot back is refused at the header (%s)", err_text(&r.err));
    rd_free(&r);
    rd_str(&r, "des (0, 1, 1000000)\n(1000000, a, 0)\n");
    check(r.rc == WX_EINPUT && r.err.line == 2 && r.err.col == 2 &&
              strstr(r.err.msg, "1000000 is out of range"),
          "largest state count: state == nstates rejected (%s)", err_text(&r.err));
    rd_free(&r);

    rd_str(&r, "des (0, 18446744073709551615, 2)\n");
    check(r.rc == WX_EINPUT && strstr(r.err.msg, "64 bits"),
          "transition count UINT64_MAX is rejected, not wrapped (%s)", err_text(&r.err));
    rd_free(&r);

    rd_str(&r, "des (0, 18446744073709551614, 2)\n");
    check(r.rc == WX_EINPUT && strstr(r.err.msg, "18446744073709551614 transitions"),
          "transition count UINT64_MAX-1 is read exactly (%s)", err_text(&r.err));
    rd_free(&r);

    rd_str(&r, "des (0, 1, 3)\n(0, a, 1)\n(0, b, 9)\n");
    check(r.rc == WX_EINPUT && r.err.line == 3 && strcmp(r.err.file, "mem.aut") == 0,
          "an error on a surplus line is still reported (%s)", err_text(&r.err));
    rd_free(&r);
}

static void test_read_paths(void)
{
    struct strtab *t = strtab_new();
    struct lts l;
    uint32_t init;
    struct wx_error e;
    int rc = aut_read(tmp_path("does-not-exist.aut"), t, &l, &init, &e);
    check(rc == WX_EINPUT && strstr(e.msg, "cannot open"),
          "missing file: WX_EINPUT, as in every reader (%s)", err_text(&e));
    rc = aut_read(tmpdir, t, &l, &init, &e);
    check(rc == WX_EINPUT && !strcmp(e.msg, "is a directory"), "directory: WX_EINPUT (%s)",
          err_text(&e));

    /* A pipe is read whole (no mmap). */
    int fd[2];
    if (pipe(fd) == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            close(fd[0]);
            static const char text[] = "des (1, 2, 2)\n(0, \"x y\", 1)\n(1, z, 0)\n";
            ssize_t w = write(fd[1], text, sizeof text - 1);
            _exit(w == (ssize_t)(sizeof text - 1) ? 0 : 1);
        }
        close(fd[1]);
        char p[64];
        snprintf(p, sizeof p, "/dev/fd/%d", fd[0]);
        rc = aut_read(p, t, &l, &init, &e);
        close(fd[0]);
        waitpid(pid, NULL, 0);
        check(rc == WX_OK && l.n_trans == 2 && init == 1, "pipe: read whole (%s)",
              err_text(&e));
        lts_free(&l);
    }
    strtab_free(t);
}

/* ------------------------------------------------------------------------ */
/* manifests                                                                */

/* Every *.aut in dir must be named in names[0..n). */
static void check_all_listed(const char *dir, char names[][64], int n)
{
    DIR *d = opendir(dir);
    if (!check(d != NULL, "%s: directory readable", dir))
        return;
    struct dirent *de;
    int unlisted = 0;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".aut") != 0)
            continue;
        bool found = false;
        for (int i = 0; i < n; i++)
            if (strlen(names[i]) == len - 4 && strncmp(names[i], de->d_name, len - 4) == 0)
                found = true;
        if (!found) {
            printf("unlisted: %s/%s\n", dir, de->d_name);
            unlisted++;
        }
    }
    closedir(d);
    check(unlisted == 0, "%s: every .aut file has an EXPECT row (%d unlisted)", dir, unlisted);
}

typedef int (*reader_fn)(const char *, struct strtab *, struct lts *, uint32_t *,
                         struct wx_error *);

/* Every row of DIR/EXPECT through `read`: status, location, message; and
 * every .aut file of DIR has a row. */
static void test_bad_dir(const char *dir, reader_fn read, int min_cases)
{
    char mpath[128];
    snprintf(mpath, sizeof mpath, "%s/EXPECT", dir);
    FILE *f = fopen(mpath, "r");
    if (!check(f != NULL, "%s readable", mpath))
        return;
    static char names[256][64];
    int n = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char name[64];
        int ln, col, code, off;
        if (line[0] == '#' || sscanf(line, "%63s %d %d %d %n", name, &ln, &col, &code, &off) != 4)
            continue;
        char *sub = line + off;
        sub[strcspn(sub, "\n")] = 0;
        if (n < 256)
            snprintf(names[n++], 64, "%s", name);
        char path[128];
        snprintf(path, sizeof path, "%s/%s.aut", dir, name);
        struct strtab *t = strtab_new();
        struct lts l;
        uint32_t init;
        struct wx_error e;
        int rc = read(path, t, &l, &init, &e);
        check(rc == code && e.line == ln && e.col == col && strstr(e.msg, sub) &&
                  strcmp(e.file, path) == 0 && l.n_trans == 0 && l.n_dists == 0,
              "%s: expected status %d at %d:%d with \"%s\"; got status %d: %s", path,
              code, ln, col, sub, rc, err_text(&e));
        strtab_free(t);
    }
    fclose(f);
    check(n >= min_cases, "%s: %d cases (>= %d)", dir, n, min_cases);
    check_all_listed(dir, names, n);
}

static void test_bad_files(void)
{
    test_bad_dir("tests/bad/aut", aut_read, 25);
    /* distributions: refused by the strict reader, malformed ones by both */
    test_bad_dir("tests/bad/aut_strict", aut_read, 3);
    test_bad_dir("tests/bad/aut_prob", aut_read_prob, 10);
}

/* The probabilistic variant: exact values, canonical distributions,
 * merging, decimals, initial distributions, pruning. */
static void test_prob_reader(void)
{
    static const char text[] =
        "des (0, 6, 6)\n"
        "(0, a, 2 1/3 1)\n"          /* 2 gets 1/3, 1 the remainder 2/3 */
        "(0, a, 1 0.666666666666666666 2)\n" /* not equal to the above: exact */
        "(0, a, 1 2/3 2)\n"          /* equal to the first one: dropped */
        "(1, b, 3 .25 3 0.25 4)\n"   /* 3 twice: 1/2, 4 the remainder 1/2 */
        "(1, c, 0 1/2 0)\n"          /* all mass on 0: a plain transition */
        "(4, d, 4)\n";
    struct strtab *t = strtab_new();
    struct lts l;
    uint32_t init;
    struct wx_error e;
    int rc = aut_read_prob_buffer(text, sizeof text - 1, "p.aut", t, &l, &init, &e);
    if (!check(rc == WX_OK, "prob reader: reads (%s)", err_text(&e))) {
        strtab_free(t);
        return;
    }
    check(init == 0 && l.n_trans == 5 && l.n_duplicates == 1 && l.n_dists == 3,
          "prob reader: 5 transitions (1 duplicate distribution), 3 distributions: %llu %llu %u",
          (unsigned long long)l.n_trans, (unsigned long long)l.n_duplicates, l.n_dists);
    int ok = 1;
    for (uint32_t d = 0; d < l.n_dists; d++) {
        uint64_t sn = 0, sd = 1;
        for (uint64_t k = l.dist_start[d]; k < l.dist_start[d + 1]; k++) {
            ok &= l.dist_num[k] > 0 && l.dist_num[k] < l.dist_den[k];
            ok &= k == l.dist_start[d] || l.dist_state[k] > l.dist_state[k - 1];
            /* sum exactly (small denominators here) */
            sn = sn * l.dist_den[k] + l.dist_num[k] * sd;
            sd *= l.dist_den[k];
        }
        ok &= sn == sd;
    }
    check(ok, "prob reader: distributions sorted, in (0, 1), summing to 1 exactly");
    uint32_t b = strtab_find(t, "b", 1), c = strtab_find(t, "c", 1);
    int found_b = 0, found_c = 0;
    for (uint64_t i = 0; i < l.n_trans; i++) {
        if (l.label[i] == b && (l.dst[i] & LTS_DST_DISTRIBUTION)) {
            uint32_t d = l.dst[i] & ~LTS_DST_DISTRIBUTION;
            uint64_t k = l.dist_start[d];
            found_b = l.dist_start[d + 1] - k == 2 && l.dist_state[k] == 3 && l.dist_num[k] == 1 &&
                      l.dist_den[k] == 2 && l.dist_state[k + 1] == 4 && l.dist_den[k + 1] == 2;
        }
        if (l.label[i] == c)
            found_c = l.dst[i] == 0;
    }
    check(found_b && found_c, "prob reader: duplicate states merged (3: 1/4 + 1/4); a one-state "
                              "distribution is a plain transition");
    /* prune from 0: states 3 and 4 are reachable only through distributions */
    check(lts_prune_from(&l, 0) == 0 && l.n_states == 5 && l.n_dists == 3,
          "prob reader: pruning follows distributions (%u states)", l.n_states);
    lts_free(&l);

    static const char init_text[] = "des (3 1/4 1, 2, 5)\n(1, a, 2)\n(3, b, 1 1/2 3)\n";
    rc = aut_read_prob_buffer(init_text, sizeof init_text - 1, "i.aut", t, &l, &init, &e);
    check(rc == WX_OK && (init & LTS_DST_DISTRIBUTION), "prob reader: initial distribution (%s)",
          err_text(&e));
    if (rc == WX_OK) {
        int pr = lts_prune_from(&l, init);
        check(pr == 0 && l.init_dist != 0 && l.n_states == 3 && l.orig_state[0] == 1 &&
                  l.orig_state[1] == 3 && l.orig_state[2] == 2,
              "prob reader: pruned from the initial distribution {1, 3}, state 4 dropped");
        lts_free(&l);
    }
    /* the strict reader refuses, aut_read_prob accepts, the aut_strict files */
    const char *strict[] = {"header_prob_init", "prob_target", "prob_target_unquoted"};
    for (int i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof path, "tests/bad/aut_strict/%s.aut", strict[i]);
        rc = aut_read_prob(path, t, &l, &init, &e);
        check(rc == WX_OK, "aut_read_prob accepts %s (%s)", path, err_text(&e));
        lts_free(&l);
    }
    strtab_free(t);
}

static void good_labels(const char *name, struct rd *r)
{
    if (strcmp(name, "cadp_quotes") == 0)
        check(find_trans(r, 4, "MSG !\"a,b\" !\"x\"", 1) >= 0 &&
                  find_trans(r, 0, "*", 4) >= 0 && find_trans(r, 1, "*", 2) >= 0 &&
                  find_trans(r, 2, "", 3) >= 0,
              "good/cadp_quotes: label texts");
    if (strcmp(name, "mcrl2_like") == 0)
        check(find_trans(r, 2, "tau", 0) >= 0 && find_trans(r, 0, "send(1, true)", 1) >= 0 &&
                  find_trans(r, 1, "r|s", 3) >= 0 && strtab_find(r->t, "other", 5) == UINT32_MAX,
              "good/mcrl2_like: label texts; nothing read after the EOT");
    if (strcmp(name, "dftres_like") == 0)
        check(find_trans(r, 0, "ACTIVATE !0 !TRUE", 1) >= 0 && find_trans(r, 3, "i", 0) >= 0,
              "good/dftres_like: label texts");
}

/* Reads every good file, checks it, and round-trips it through aut_write. */
static void test_good_files(void)
{
    FILE *f = fopen("tests/good/aut/EXPECT", "r");
    if (!check(f != NULL, "tests/good/aut/EXPECT readable"))
        return;
    static char names[64][64];
    int n = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char name[64];
        unsigned long long init, ns, nt, nd, nl;
        if (line[0] == '#' ||
            sscanf(line, "%63s %llu %llu %llu %llu %llu", name, &init, &ns, &nt, &nd, &nl) != 6)
            continue;
        if (n < 64)
            snprintf(names[n++], 64, "%s", name);
        char path[128];
        snprintf(path, sizeof path, "tests/good/aut/%s.aut", name);
        struct rd r = {0};
        r.t = strtab_new();
        r.rc = aut_read(path, r.t, &r.l, &r.init, &r.err);
        check(r.rc == WX_OK && r.init == init && r.l.n_states == ns && r.l.n_trans == nt &&
                  r.l.n_duplicates == nd && strtab_count(r.t) == nl,
              "good/%s: expected init %llu states %llu trans %llu dups %llu labels %llu; "
              "got rc %d init %u states %u trans %llu dups %llu labels %u (%s)",
              name, init, ns, nt, nd, nl, r.rc, r.init, r.l.n_states,
              (unsigned long long)r.l.n_trans, (unsigned long long)r.l.n_duplicates,
              strtab_count(r.t), err_text(&r.err));
        if (r.rc == WX_OK) {
            good_labels(name, &r);
            /* Round trip needs initial state 0. */
            if (r.init != 0 && lts_prune_from(&r.l, r.init) != 0)
                check(0, "good/%s: prune", name);
            struct wx_error e;
            const char *out = tmp_path("roundtrip.aut");
            int rc = aut_write(out, &r.l, r.t, &e);
            struct lts back;
            uint32_t binit = 99;
            if (rc == WX_OK)
                rc = aut_read(out, r.t, &back, &binit, &e);
            char why[256] = "";
            check(rc == WX_OK && binit == 0 && lts_same(&r.l, &back, why, sizeof why) &&
                      back.n_duplicates == 0,
                  "good/%s: read -> write -> read is identical (%s %s)", name,
                  err_text(&e), why);
            if (rc == WX_OK)
                lts_free(&back);
        }
        rd_free(&r);
    }
    fclose(f);
    check_all_listed("tests/good/aut", names, n);
}

/* ------------------------------------------------------------------------ */
/* writer                                                                   */

static void test_writer_text(void)
{
    struct aut_writer *w;
    struct wx_error e;
    const char *p = tmp_path("w.aut");
    int rc = aut_writer_open(p, &w, &e);
    check(rc == WX_OK, "writer: open (%s)", err_text(&e));
    if (rc)
        return;
    aut_writer_add(w, 0, "a_1", 3, 1);
    aut_writer_add(w, 1, "GET !1", 6, 0);
    aut_writer_add(w, 1, "i", 1, 1);
    aut_writer_add(w, 0, "", 0, 0);
    aut_writer_add(w, 0, "x\"y", 3, 12345678901ull);
    aut_writer_add(w, 0, "1a", 2, 1);
    rc = aut_writer_close(w, 12345678902ull, &e);
    check(rc == WX_OK, "writer: close (%s)", err_text(&e));
    size_t len;
    char *got = slurp(p, &len);
    char want[512];
    int k = snprintf(want, sizeof want, "%-63s\n", "des (0, 6, 12345678902)");
    k += snprintf(want + k, sizeof want - (size_t)k,
                  "(0,a_1,1)\n(1,\"GET !1\",0)\n(1,i,1)\n(0,\"\",0)\n(0,\"x\"y\",12345678901)\n"
                  "(0,\"1a\",1)\n");
    check(got && len == (size_t)k && memcmp(got, want, len) == 0,
          "writer: exact text (header padded to 64 bytes, identifiers bare, others quoted)");
    free(got);

    /* 64-bit state numbers exceed what the reader takes: a located limit error. */
    struct strtab *t = strtab_new();
    struct lts l;
    uint32_t init;
    rc = aut_read(p, t, &l, &init, &e);
    check(rc == WX_ELIMIT && e.line == 1 && e.col == 12,
          "writer: 64-bit state count reads back as a located limit error (%s)", err_text(&e));
    strtab_free(t);
}

/* Counts announced before the first line: an exact header, no padding; a
 * count that disagrees at close is an internal error and nothing is left. */
static void test_writer_expect(void)
{
    struct aut_writer *w;
    struct wx_error e;
    const char *p = tmp_path("exact.aut");
    check(aut_writer_open(p, &w, &e) == WX_OK, "writer expect: open");
    check(aut_writer_expect(w, 2, 3) == WX_OK, "writer expect: before the first line");
    aut_writer_add(w, 0, "a", 1, 1);
    aut_writer_add(w, 1, "b c", 3, 2);
    int rc = aut_writer_close(w, 3, &e);
    check(rc == WX_OK, "writer expect: close (%s)", err_text(&e));
    size_t len;
    char *got = slurp(p, &len);
    const char *want = "des (0, 2, 3)\n(0,a,1)\n(1,\"b c\",2)\n";
    check(got && len == strlen(want) && memcmp(got, want, len) == 0,
          "writer expect: the header is exact, without padding");
    free(got);

    for (int bad = 0; bad < 2; bad++) {
        const char *q = tmp_path("exact_bad.aut");
        check(aut_writer_open(q, &w, &e) == WX_OK, "writer expect: reopen");
        aut_writer_expect(w, 2, 3);
        aut_writer_add(w, 0, "a", 1, 1);
        if (bad)
            aut_writer_add(w, 1, "a", 1, 2);
        rc = aut_writer_close(w, bad ? 4 : 3, &e);
        check(rc == WX_ESYSTEM && strstr(e.msg, "announced") && !exists(q),
              "writer expect: wrong %s at close is refused, file removed (%s)",
              bad ? "state count" : "line count", err_text(&e));
    }

    check(aut_writer_open(p, &w, &e) == WX_OK, "writer expect: reopen late");
    aut_writer_add(w, 0, "a", 1, 0);
    check(aut_writer_expect(w, 1, 1) == WX_ESYSTEM, "writer expect: after a line fails");
    rc = aut_writer_close(w, 1, &e);
    check(rc == WX_ESYSTEM, "writer expect: the late call fails the writer (%s)", err_text(&e));
}

static void test_writer_failures(void)
{
    struct aut_writer *w;
    struct wx_error e;
    const char *p = tmp_path("fail.aut");

    check(aut_writer_open(p, &w, &e) == WX_OK, "writer failure: open");
    check(aut_writer_add(w, 0, "a\nb", 3, 0) == WX_EINPUT,
          "writer failure: newline in a label is refused");
    check(aut_writer_add(w, 0, "ok", 2, 0) == WX_EINPUT, "writer failure: error is sticky");
    int rc = aut_writer_close(w, 1, &e);
    check(rc == WX_EINPUT && strstr(e.msg, "0x0A") && !exists(p),
          "writer failure: close reports it and removes the file (%s)", err_text(&e));

    check(aut_writer_open(p, &w, &e) == WX_OK, "writer failure: reopen");
    aut_writer_add(w, 0, "a", 1, 5);
    rc = aut_writer_close(w, 5, &e);
    check(rc == WX_ESYSTEM && strstr(e.msg, "state 5") && !exists(p),
          "writer failure: a state >= n_states is an internal error, file removed (%s)",
          err_text(&e));

    check(aut_writer_open(p, &w, &e) == WX_OK, "writer failure: reopen 2");
    rc = aut_writer_close(w, 0, &e);
    check(rc == WX_EINPUT && !exists(p), "writer failure: 0 states refused (%s)",
          err_text(&e));

    check(aut_writer_open(p, &w, &e) == WX_OK, "writer failure: reopen 3");
    aut_writer_add(w, 0, "a", 1, 0);
    aut_writer_abort(w);
    check(!exists(p), "writer abort removes the file");

    /* A FIFO cannot take the header rewritten at the end: refused before it
     * is opened (which would block without a reader), and left alone. */
    const char *fifo = tmp_path("fifo.aut");
    struct stat st;
    check(mkfifo(fifo, 0600) == 0, "writer: mkfifo");
    rc = aut_writer_open(fifo, &w, &e);
    check(rc == WX_EINPUT && w == NULL && stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode),
          "writer refuses a FIFO and leaves it alone (%s)", err_text(&e));
    unlink(fifo);
    /* A seekable device is written in place, never replaced. */
    rc = aut_writer_open("/dev/null", &w, &e);
    if (rc == WX_OK) {
        aut_writer_add(w, 0, "a", 1, 0);
        rc = aut_writer_close(w, 1, &e);
    }
    check(rc == WX_OK && stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode),
          "writer writes /dev/null in place and leaves it a device (%s)", err_text(&e));
    rc = aut_writer_open(tmp_path("no/such/dir.aut"), &w, &e);
    check(rc == WX_ESYSTEM && w == NULL, "writer: uncreatable path is WX_ESYSTEM (%s)",
          err_text(&e));

    /* A writer that dies midway leaves PATH alone and '?' in the header of
     * its temporary (".fail.aut.wx-XXXXXX" next to it): flush > 1 MiB of
     * lines, then read the temporary as it is on disk. */
    FILE *old = fopen(p, "w");
    fputs("old content\n", old);
    fclose(old);
    check(aut_writer_open(p, &w, &e) == WX_OK, "writer crash: open");
    for (int i = 0; i < 100000; i++)
        aut_writer_add(w, (uint64_t)i, "SOME_LABEL", 10, (uint64_t)i + 1);
    char half[512] = "";
    DIR *d = opendir(tmpdir);
    for (struct dirent *de; d && (de = readdir(d));)
        if (!strncmp(de->d_name, ".fail.aut.wx-", 13))
            snprintf(half, sizeof half, "%s/%s", tmpdir, de->d_name);
    if (d)
        closedir(d);
    char buf[64] = "";
    old = fopen(p, "r");
    check(old && fgets(buf, sizeof buf, old) && !strcmp(buf, "old content\n"),
          "while writing, the existing file is untouched");
    if (old)
        fclose(old);
    struct strtab *t = strtab_new();
    struct lts l;
    uint32_t init;
    rc = half[0] ? aut_read(half, t, &l, &init, &e) : WX_OK;
    check(rc == WX_EINPUT && e.line == 1 && e.col == 9 && strstr(e.msg, "aborted"),
          "a half-written file is rejected as aborted (%s)", half[0] ? err_text(&e) : "no temporary");
    aut_writer_abort(w);
    check(half[0] && !exists(half) && exists(p), "abort removes the temporary, keeps the file");
    unlink(p);
    strtab_free(t);
}

static void test_writer_giant_label(void)
{
    size_t n = (3u << 20) + 17; /* bigger than the writer's buffer */
    char *lbl = malloc(n);
    for (size_t i = 0; i < n; i++)
        lbl[i] = (char)(i % 3 == 0 ? '"' : i % 3 == 1 ? ',' : 'q');
    struct strtab *t = strtab_new();
    struct lts l;
    lts_init(&l, 2);
    lts_add(&l, 0, strtab_intern(t, "a", 1), 1);
    lts_add(&l, 1, strtab_intern(t, lbl, n), 0);
    lts_add(&l, 1, strtab_intern(t, "b", 1), 1);
    lts_finish(&l);
    struct wx_error e;
    struct lts back;
    uint32_t init;
    const char *p = tmp_path("giant.aut");
    int rc = aut_write(p, &l, t, &e);
    if (rc == WX_OK)
        rc = aut_read(p, t, &back, &init, &e);
    char why[256] = "";
    check(rc == WX_OK && lts_same(&l, &back, why, sizeof why),
          "writer: 3 MiB label of quotes and commas round-trips (%s %s)", err_text(&e), why);
    if (rc == WX_OK)
        lts_free(&back);
    lts_free(&l);
    strtab_free(t);
    free(lbl);
    unlink(p);
}

/* ------------------------------------------------------------------------ */
/* random property tests                                                    */

static uint64_t rng_state;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static unsigned rn(unsigned n) { return (unsigned)(rnd() % n); }

/* A random label text (no control bytes but TAB): identifiers, '*', i, tau,
 * and soup of quotes, commas, parentheses, blanks, UTF-8 and digits. */
static size_t rand_label(char *b)
{
    static const char soup[] = "ab Z09_\",()\t!?*|/\\'.;{}#=-+ \xc3\xa9";
    static const char *fixed[] = {"i", "tau", "*", "PUT_1", "GET !true !7", "a(1, 2)", "\"",
                                  "", " ", "\"\"", ",", "3 1/2 4", "x\"", "\"x"};
    size_t n = 0;
    switch (rn(4)) {
    case 0: {
        const char *s = fixed[rn(sizeof fixed / sizeof *fixed)];
        n = strlen(s);
        memcpy(b, s, n);
        break;
    }
    case 1: /* identifier */
        b[n++] = (char)("aZq"[rn(3)]);
        for (unsigned k = rn(8); k--;)
            b[n++] = "az_09Q"[rn(6)];
        break;
    default:
        for (unsigned k = rn(rn(10) == 0 ? 300 : 12); k--;)
            b[n++] = soup[rn(sizeof soup - 1)];
    }
    return n;
}

static bool plain_ident(const char *s, size_t n)
{
    if (!n || !((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') && !(s[i] >= '0' && s[i] <= '9') &&
            s[i] != '_')
            return false;
    return true;
}

/* May the text be written unquoted (mCRL2 style)? */
static bool can_be_bare(const char *s, size_t n)
{
    if (!n || s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t')
        return false;
    return memchr(s, '"', n) == NULL;
}

struct buf {
    char *p;
    size_t n, cap;
};
static void put(struct buf *b, const char *s, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void puts_(struct buf *b, const char *s) { put(b, s, strlen(s)); }
static void blanks(struct buf *b)
{
    for (unsigned k = rn(4) == 0 ? rn(3) : 0; k--;)
        put(b, rn(2) ? " " : "\t", 1);
}
static void num(struct buf *b, uint64_t v)
{
    char t[32];
    if (rn(10) == 0)
        put(b, "0", 1); /* a leading zero now and then */
    snprintf(t, sizeof t, "%llu", (unsigned long long)v);
    puts_(b, t);
}

/* One random LTS written as a randomly formatted AUT text (independent of
 * aut_writer) into *out; the expected LTS (same label ids as in t) in *exp. */
static void random_case(struct buf *out, struct strtab *t, struct lts *exp, uint32_t *initial,
                        uint64_t *lines)
{
    uint32_t ns = 1 + rn(rn(4) == 0 ? 300 : 12);
    unsigned nlab = 1 + rn(10), ntr = rn(rn(4) == 0 ? 400 : 30);
    char text[10][400];
    size_t tlen[10];
    uint32_t id[10];
    for (unsigned k = 0; k < nlab; k++) {
        tlen[k] = rand_label(text[k]);
        id[k] = strtab_intern(t, text[k], tlen[k]);
    }
    *initial = rn(4) == 0 ? rn(ns) : 0;
    const char *eol = rn(3) == 0 ? "\r\n" : "\n";
    lts_init(exp, ns);
    out->n = 0;
    for (unsigned k = rn(3) == 0 ? rn(3) : 0; k--;)
        puts_(out, eol);
    puts_(out, "des");
    blanks(out), puts_(out, "("), blanks(out), num(out, *initial), blanks(out), puts_(out, ",");
    blanks(out), num(out, ntr), blanks(out), puts_(out, ","), blanks(out), num(out, ns);
    blanks(out), puts_(out, ")"), blanks(out);
    uint32_t ps = 0, pl = 0, pd = 0;
    for (unsigned i = 0; i < ntr; i++) {
        uint32_t s = rn(ns), l = rn(nlab), d = rn(ns);
        if (i > 0 && rn(5) == 0)
            s = ps, l = pl, d = pd; /* a duplicate line */
        ps = s, pl = l, pd = d;
        lts_add(exp, s, id[l], d);
        puts_(out, eol);
        while (rn(8) == 0)
            blanks(out), puts_(out, eol);
        blanks(out), puts_(out, "("), blanks(out), num(out, s), blanks(out), puts_(out, ",");
        blanks(out);
        bool bare = (plain_ident(text[l], tlen[l]) || can_be_bare(text[l], tlen[l])) && rn(2);
        if (!bare)
            puts_(out, "\"");
        put(out, text[l], tlen[l]);
        if (!bare)
            puts_(out, "\"");
        blanks(out), puts_(out, ","), blanks(out), num(out, d), blanks(out), puts_(out, ")");
        blanks(out);
    }
    if (rn(2))
        puts_(out, eol);
    if (rn(6) == 0)
        puts_(out, "\x04(junk after EOT\n\x01");
    lts_finish(exp);
    *lines = ntr;
}

static void test_random_roundtrip(uint64_t base, int cases)
{
    int failed = 0;
    struct buf b = {0};
    for (int c = 0; c < cases && failed < 3; c++) {
        uint64_t seed = base + (uint64_t)c;
        rng_state = seed;
        struct strtab *t = strtab_new();
        struct lts exp, got, back;
        uint32_t init, ginit = 0, binit = 0;
        uint64_t lines;
        random_case(&b, t, &exp, &init, &lines);
        struct wx_error e;
        char why[256] = "";
        int rc = aut_read_buffer(b.p, b.n, "rand.aut", t, &got, &ginit, &e);
        bool ok = rc == WX_OK && ginit == init && lts_same(&exp, &got, why, sizeof why) &&
                  got.n_trans + got.n_duplicates == lines && got.n_duplicates == exp.n_duplicates;
        if (!ok) {
            failed++;
            check(0, "random read: seed %llu: %s %s", (unsigned long long)seed, err_text(&e), why);
            dump(b.p, b.n);
        }
        if (rc == WX_OK) {
            /* Through aut_writer and back (needs initial 0). */
            if (ginit)
                lts_prune_from(&got, ginit);
            const char *p = tmp_path("rand.aut");
            rc = aut_write(p, &got, t, &e);
            if (rc == WX_OK)
                rc = aut_read(p, t, &back, &binit, &e);
            if (rc != WX_OK || binit != 0 || !lts_same(&got, &back, why, sizeof why)) {
                failed++;
                check(0, "random write -> read: seed %llu: %s %s", (unsigned long long)seed,
                      err_text(&e), why);
            }
            if (rc == WX_OK)
                lts_free(&back);
            lts_free(&got);
        }
        lts_free(&exp);
        strtab_free(t);
    }
    free(b.p);
    check(failed == 0, "random round trips: %d cases from seed %llu (WX_SEED to change)",
          cases, (unsigned long long)base);
}

/* Mutates valid random files; each must read or fail with a location that
 * lies inside the file (line <= lines + 1, col <= that line's length + 1). */
static void test_random_mutations(uint64_t base, int cases)
{
    static const char bytes[] = "\"\",,()\n\r\t 0123456789?/*ai\x04\x01\xc3";
    int failed = 0;
    struct buf b = {0};
    for (int c = 0; c < cases && failed < 3; c++) {
        uint64_t seed = base + (uint64_t)c;
        rng_state = seed;
        struct strtab *t = strtab_new();
        struct lts exp, got;
        uint32_t init;
        uint64_t lines;
        random_case(&b, t, &exp, &init, &lines);
        lts_free(&exp);
        if (b.n == 0)
            put(&b, "x", 1);
        for (unsigned k = 1 + rn(3); k-- && b.n > 0;) {
            size_t at = rn((unsigned)b.n);
            if (rn(4) == 0)
                b.n = at; /* truncate */
            else
                b.p[at] = rn(8) == 0 ? '\0' : bytes[rn(sizeof bytes - 1)];
        }
        struct wx_error e;
        int rc = aut_read_buffer(b.p, b.n, "mut.aut", t, &got, &init, &e);
        bool ok;
        if (rc == WX_OK) {
            ok = got.offsets[got.n_states] == got.n_trans;
            lts_free(&got);
        } else {
            /* Find the start and length of line e.line. */
            long ln = 1;
            size_t start = 0;
            for (size_t i = 0; i < b.n && ln < e.line; i++)
                if (b.p[i] == '\n')
                    ln++, start = i + 1;
            size_t len = 0;
            while (start + len < b.n && b.p[start + len] != '\n')
                len++;
            ok = (rc == WX_EINPUT || rc == WX_ELIMIT) && e.line >= 1 && ln == e.line &&
                 e.col >= 1 && (size_t)e.col <= len + 1 && e.msg[0] && got.n_trans == 0;
        }
        if (!ok) {
            failed++;
            check(0, "mutation: seed %llu: rc %d, %s", (unsigned long long)seed, rc, err_text(&e));
            dump(b.p, b.n);
        }
        strtab_free(t);
    }
    free(b.p);
    check(failed == 0, "mutated files read or fail at a location inside the file: %d cases "
          "from seed %llu", cases, (unsigned long long)base);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        check(0, "mkdtemp: %s", strerror(errno));
        return check_exit();
    }
    const char *env = getenv("WX_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : 20240601;

    test_minimal();
    test_embedded_quotes();
    test_same_label();
    test_mcrl2_unquoted();
    test_initial();
    test_layout();
    test_long_label();
    test_eot();
    test_duplicates_and_labels();
    test_label_cache_collisions();
    test_errors_in_memory();
    test_read_paths();
    test_bad_files();
    test_prob_reader();
    test_good_files();
    test_writer_text();
    test_writer_expect();
    test_writer_failures();
    test_writer_giant_label();
    test_random_roundtrip(seed, 2000);
    test_random_mutations(seed, 20000);

    unlink(tmp_path("w.aut"));
    unlink(tmp_path("roundtrip.aut"));
    unlink(tmp_path("rand.aut"));
    rmdir(tmpdir);
    return check_exit();
}
