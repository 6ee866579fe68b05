/*
 * aut_lts_bucket.c -- bench-only experiment: a linear-time lts_finish, to
 * measure what aut_read would gain if network/lts.c adopted it (proposal to
 * the owner of lts.c; not part of the library).
 *
 * bench/aut_read.sh links it in front of a copy of lts.o whose lts_finish was
 * made weak (objcopy --weaken-symbol), so only lts_finish is replaced.
 *
 * Algorithm: counting sort of the transitions by source (which yields the
 * offsets directly), then each state's segment is sorted by the key
 * label<<32 | dst (insertion sort for short segments, qsort for long ones)
 * and duplicates are dropped while compacting into the same arrays.  Result
 * and n_duplicates are the same as lts.c's sort-based lts_finish.
 * Relies on lts.c's builder storing offsets as a malloc'ed pointer (or NULL).
 */
#include <stdlib.h>
#include <string.h>

#include "network/lts.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int lts_finish(struct lts *l)
{
    uint64_t n = l->n_trans, ns = l->n_states;
    uint64_t *off = calloc(ns + 1, sizeof *off);
    uint64_t *key = malloc((n ? n : 1) * sizeof *key);
    if (!off || !key) {
        free(off), free(key);
        return -1;
    }
    for (uint64_t i = 0; i < n; i++)
        off[l->src[i] + 1]++;
    for (uint64_t s = 0; s < ns; s++)
        off[s + 1] += off[s];
    /* Scatter with off[s] as the cursor of segment s; afterwards off[s] is the
     * end of segment s, i.e. the old off[s + 1]. */
    for (uint64_t i = 0; i < n; i++)
        key[off[l->src[i]]++] = (uint64_t)l->label[i] << 32 | l->dst[i];
    uint64_t m = 0, b = 0;
    for (uint64_t s = 0; s < ns; s++) {
        uint64_t e = off[s];
        if (e - b > 32)
            qsort(key + b, e - b, sizeof *key, cmp_u64);
        else
            for (uint64_t i = b + 1; i < e; i++) {
                uint64_t k = key[i], j = i;
                for (; j > b && key[j - 1] > k; j--)
                    key[j] = key[j - 1];
                key[j] = k;
            }
        off[s] = m;
        for (uint64_t i = b; i < e; i++)
            if (i == b || key[i] != key[i - 1]) {
                l->src[m] = (uint32_t)s;
                l->label[m] = (uint32_t)(key[i] >> 32);
                l->dst[m] = (uint32_t)key[i];
                m++;
            }
        b = e;
    }
    off[ns] = m;
    free(key);
    free(l->offsets);
    l->offsets = off;
    l->n_duplicates += n - m;
    l->n_trans = m;
    return 0;
}
