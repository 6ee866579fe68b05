/*
 * text.h -- a growing text buffer for tests that write input files in
 * memory (put() appends printf-style; s is NUL-terminated, len bytes).
 * Header-only; each test program includes it once.
 */
#ifndef WX_TEST_TEXT_H
#define WX_TEST_TEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct text {
    char *s;
    size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap * 2 + (size_t)n + 64;
        t->s = realloc(t->s, t->cap);
    }
}

#endif
