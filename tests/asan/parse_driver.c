/*
 * parse_driver.c -- runs one input reader over one file, for
 * tests/t_asan_parsers.sh (built there with AddressSanitizer and UBSan).
 *
 *   parse_driver exp FILE     EXP parser (exp_parse_file)
 *   parse_driver aut FILE     AUT reader (aut_read; only when built with
 *                             WX_HAVE_AUT, i.e. parser/aut_read.c exists)
 *   parse_driver oom FILE...  allocation-failure injection for the EXP
 *                             parser (built with WX_OOM_HARNESS, the parser
 *                             sources compiled with -Dmalloc=wx_oom_malloc
 *                             -Dcalloc=wx_oom_calloc -Drealloc=wx_oom_realloc):
 *                             for each file, parses it once counting the
 *                             allocations, then once more per allocation k,
 *                             making exactly the k-th fail.  Each such parse
 *                             must fail with WX_ELIMIT (or the file's own
 *                             error when that came first), return no tree and
 *                             leak nothing (LeakSanitizer checks at exit).
 *
 * Exit status: 10 parsed, 11 rejected with a proper error (code, message,
 * file and, for EXP input errors, line and column), 12 the reader broke its
 * contract (printed), 2 usage.  Anything else is a crash or a sanitizer
 * abort.  One line on stdout says what happened.
 */
#include <stdio.h>
#include <string.h>

#include "parser/exp_ast.h"
#include "util/error.h"
#ifdef WX_HAVE_AUT
#include "network/lts.h"
#include "parser/aut.h"
#include "util/strtab.h"
#endif

enum { PARSED = 10, REJECTED = 11, BROKEN = 12 };

static int report_error(int rc, const struct wx_error *e, const char *path, int need_loc)
{
    char buf[1200];

    wx_error_format(e, buf, sizeof buf);
    if (rc != e->code || (rc != WX_EINPUT && rc != WX_ELIMIT && rc != WX_ESYSTEM) || !e->msg[0] ||
        strcmp(e->file, path) || (need_loc && rc == WX_EINPUT && (e->line < 1 || e->col < 1))) {
        printf("contract broken: status %d, error '%s'\n", rc, buf);
        return BROKEN;
    }
    printf("rejected: %s\n", buf);
    return REJECTED;
}

static int run_exp(const char *path)
{
    struct exp_file *f = (struct exp_file *)1;
    struct wx_error e;
    int rc = exp_parse_file(path, &f, &e);

    if (rc != WX_OK) {
        if (f != NULL) {
            printf("contract broken: error %d but a tree was returned\n", rc);
            return BROKEN;
        }
        return report_error(rc, &e, path, 1);
    }
    if (!f || !f->root) {
        printf("contract broken: success without a tree\n");
        return BROKEN;
    }
    printf("parsed\n");
    exp_file_free(f);
    return PARSED;
}

static int run_aut(const char *path)
{
#ifdef WX_HAVE_AUT
    struct strtab *t = strtab_new();
    struct lts l;
    uint32_t init = 0;
    struct wx_error e;
    int rc, status;

    if (!t) {
        printf("out of memory\n");
        return BROKEN;
    }
    memset(&l, 0, sizeof l);
    rc = aut_read(path, t, &l, &init, &e);
    if (rc == WX_OK) {
        printf("parsed: %u states, %llu transitions\n", l.n_states, (unsigned long long)l.n_trans);
        status = PARSED;
    } else {
        status = report_error(rc, &e, path, 1);
    }
    lts_free(&l);
    strtab_free(t);
    return status;
#else
    (void)path;
    printf("AUT reader not built\n");
    return 2;
#endif
}

#ifdef WX_OOM_HARNESS
#include <stdlib.h>

static long oom_target = -1, oom_count;
static int oom_hit;

static int oom_fail_now(void)
{
    if (++oom_count == oom_target) {
        oom_hit = 1;
        return 1;
    }
    return 0;
}

void *wx_oom_malloc(size_t n);
void *wx_oom_calloc(size_t n, size_t m);
void *wx_oom_realloc(void *p, size_t n);
void *wx_oom_malloc(size_t n) { return oom_fail_now() ? NULL : malloc(n); }
void *wx_oom_calloc(size_t n, size_t m) { return oom_fail_now() ? NULL : calloc(n, m); }
void *wx_oom_realloc(void *p, size_t n) { return oom_fail_now() ? NULL : realloc(p, n); }

static int run_oom(int nfiles, char **files)
{
    int status = PARSED;
    for (int i = 0; i < nfiles; i++) {
        struct exp_file *f = NULL;
        struct wx_error e;
        long n0, k, bad = 0;
        int rc0;

        oom_target = -1;
        oom_count = 0;
        rc0 = exp_parse_file(files[i], &f, &e);
        exp_file_free(f);
        n0 = oom_count;
        for (k = 1; k <= n0; k++) {
            int rc;
            f = (struct exp_file *)1;
            oom_target = k;
            oom_count = 0;
            oom_hit = 0;
            rc = exp_parse_file(files[i], &f, &e);
            if (!oom_hit || rc == WX_OK || f != NULL || !e.msg[0] ||
                (rc != WX_ELIMIT && rc != rc0)) {
                if (bad++ == 0)
                    printf("contract broken in %s: allocation %ld of %ld failed: hit %d, status %d "
                           "(without failure %d), tree %p, '%s'\n", files[i], k, n0, oom_hit, rc,
                           rc0, (void *)f, e.msg);
                if (f != NULL && f != (struct exp_file *)1)
                    exp_file_free(f);
            }
        }
        oom_target = -1;
        if (bad)
            status = BROKEN;
        else
            printf("%s: %ld allocations, each failure reported\n", files[i], n0);
    }
    return status;
}
#endif

int main(int argc, char **argv)
{
#ifdef WX_OOM_HARNESS
    if (argc >= 3 && !strcmp(argv[1], "oom"))
        return run_oom(argc - 2, argv + 2);
#endif
    if (argc == 3 && !strcmp(argv[1], "exp"))
        return run_exp(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "aut"))
        return run_aut(argv[2]);
    fprintf(stderr, "usage: parse_driver exp|aut FILE\n");
    return 2;
}
