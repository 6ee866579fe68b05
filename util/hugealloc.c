/*
 * hugealloc.c -- transparent huge-page advice for large arrays (hugealloc.h).
 */
#include "hugealloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20) /* bytes: x86-64's transparent huge page */

void wx_advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t b = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_HUGEPAGE); /* advice only: failure is harmless */
#else
    (void)p, (void)bytes;
#endif
}

void *wx_big_alloc(size_t bytes, int huge)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p && huge)
        wx_advise_huge(p, bytes);
    return p;
}

void *wx_big_zalloc(size_t bytes, int huge)
{
    void *p = calloc(bytes ? bytes : 1, 1);
    if (p && huge)
        wx_advise_huge(p, bytes);
    return p;
}
