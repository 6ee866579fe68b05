/*
 * check.h -- the assertions of warpex's C tests.
 *
 * Each check prints one line, "PASS name" or "FAIL name: details"; a failing
 * check says what was expected, what was found and (for random tests) the
 * seed.  tests/run.sh counts these lines across all test programs, so a test
 * program's main() ends with `return check_exit();`.
 */
#ifndef WX_CHECK_H
#define WX_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int check_failures, check_passes;

__attribute__((format(printf, 2, 3), unused))
static int check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(ok ? "PASS " : "FAIL ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
    if (ok)
        check_passes++;
    else
        check_failures++;
    return ok;
}

/* Compares two unsigned 64-bit values: FAIL line shows both. */
#define CHECK_EQ_U64(found, expected, ...)                                         \
    do {                                                                           \
        unsigned long long f_ = (unsigned long long)(found);                       \
        unsigned long long e_ = (unsigned long long)(expected);                    \
        char n_[512];                                                              \
        snprintf(n_, sizeof n_, __VA_ARGS__);                                      \
        check(f_ == e_, "%s: expected %llu, found %llu", n_, e_, f_);              \
    } while (0)

__attribute__((unused)) static int check_exit(void)
{
    return check_failures ? 1 : 0;
}

#endif
