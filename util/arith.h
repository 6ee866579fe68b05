/*
 * arith.h -- small integer helpers shared by the modules: bit lengths,
 * greatest common divisors, qsort comparators for unsigned keys, and
 * geometric growth of arrays.
 * Header-only (static inline); usable from any C module.
 */
#ifndef WX_ARITH_H
#define WX_ARITH_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Number of bits needed to write v in binary (0 for v == 0). */
static inline uint32_t wx_bitlen(uint64_t v)
{
    uint32_t b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

/* Greatest common divisor (Euclid); wx_gcd64(0, b) == b. */
static inline uint64_t wx_gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* qsort comparators: ascending unsigned 32- and 64-bit keys. */
static inline int wx_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static inline int wx_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The first index in [lo, hi) of the ascending array a whose value is at
 * least key; hi when there is none. */
static inline uint32_t wx_lower_bound_u32(const uint32_t *a, uint32_t lo, uint32_t hi, uint32_t key)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Makes the array *p (of *cap elements of elem bytes) hold at least need
 * elements, doubling from min_cap so that n appends cost O(n).  On failure
 * (-1) the array is unchanged. */
static inline int wx_reserve(void **p, size_t *cap, size_t need, size_t elem, size_t min_cap)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : min_cap;
    while (c < need)
        c *= 2;
    if (c > SIZE_MAX / elem)
        return -1;
    void *q = realloc(*p, c * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Resizes each of n parallel arrays to cap elements: *ptrs[i] holds
 * elements of sizes[i] bytes; a NULL entry of ptrs is skipped.  On failure
 * (-1) the arrays already resized keep their new (larger) size and none is
 * freed, so the caller's old capacity stays valid for all of them. */
static inline int wx_resize_all(size_t cap, size_t n, void **const ptrs[], const size_t sizes[])
{
    for (size_t i = 0; i < n; i++) {
        if (!ptrs[i])
            continue;
        if (cap > SIZE_MAX / sizes[i])
            return -1;
        void *q = realloc(*ptrs[i], (cap ? cap : 1) * sizes[i]);
        if (!q)
            return -1;
        *ptrs[i] = q;
    }
    return 0;
}

/* wx_reserve for parallel arrays (wx_resize_all's ptrs and sizes): makes
 * each hold at least need elements, doubling *cap from min_cap.  On
 * failure (-1) *cap is unchanged and still valid for all of them. */
static inline int wx_reserve_all(size_t *cap, size_t need, size_t min_cap, size_t n,
                                 void **const ptrs[], const size_t sizes[])
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : min_cap;
    while (c < need)
        c *= 2;
    if (wx_resize_all(c, n, ptrs, sizes) != 0)
        return -1;
    *cap = c;
    return 0;
}

#endif
