/*
 * vecset.c -- the sequential vector set (contract in vecset.h).
 */
#include "vecset.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_vec(const uint32_t *v, uint32_t words)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < words; i++)
        h = (h ^ v[i]) * 0x100000001b3ull;
    h ^= h >> 31;
    h *= 0x7fb5d329728ea185ull;
    h ^= h >> 27;
    return h;
}

static inline int same_vec(const uint32_t *a, const uint32_t *b, uint32_t words)
{
    for (uint32_t k = 0; k < words; k++) /* short vectors: cheaper than memcmp's call */
        if (a[k] != b[k])
            return 0;
    return 1;
}

/* The slot holding v, or the empty one ending its probe from `home`. */
static uint64_t *probe_from(const struct vecset *s, const uint32_t *v, uint64_t home)
{
    const uint64_t mask = s->n_index - 1;
    uint64_t i = home;
    while (s->index[i] && !same_vec(s->vec + (s->index[i] - 1) * s->words, v, s->words))
        i = (i + 1) & mask;
    return &s->index[i];
}

static uint64_t *slot_of(const struct vecset *s, const uint32_t *v)
{
    return probe_from(s, v, hash_vec(v, s->words) & (s->n_index - 1));
}

int vecset_find(const struct vecset *s, const uint32_t *v, uint64_t *id)
{
    const uint64_t slot = *slot_of(s, v);
    if (!slot)
        return 0;
    *id = slot - 1;
    return 1;
}

/* How far ahead vecset_find_many prefetches: the index slot of lookup
 * k + VECSET_AHEAD_SLOT, the vector that slot names for k + VECSET_AHEAD_VEC
 * (the home slots in between wait in a ring of VECSET_AHEAD_SLOT). */
#define VECSET_AHEAD_SLOT 16
#define VECSET_AHEAD_VEC 8

void vecset_find_many(const struct vecset *s, const uint32_t *v, size_t n, uint64_t *id)
{
    const uint32_t w = s->words;
    const uint64_t mask = s->n_index - 1;
    uint64_t home[VECSET_AHEAD_SLOT];
    for (size_t k = 0; k < n && k < VECSET_AHEAD_SLOT; k++)
        home[k] = hash_vec(v + k * w, w) & mask;
    for (size_t k = 0; k < n; k++) {
        const uint64_t h = home[k % VECSET_AHEAD_SLOT];
        if (k + VECSET_AHEAD_SLOT < n) {
            const uint64_t f = hash_vec(v + (k + VECSET_AHEAD_SLOT) * w, w) & mask;
            home[k % VECSET_AHEAD_SLOT] = f;
            __builtin_prefetch(&s->index[f]);
        }
        if (k + VECSET_AHEAD_VEC < n) {
            const uint64_t x = s->index[home[(k + VECSET_AHEAD_VEC) % VECSET_AHEAD_SLOT]];
            if (x)
                __builtin_prefetch(s->vec + (x - 1) * w);
        }
        const uint64_t slot = *probe_from(s, v + k * w, h);
        id[k] = slot ? slot - 1 : UINT64_MAX;
    }
}

static int grow_index(struct vecset *s, struct wx_error *err)
{
    uint64_t *old = s->index, n = s->n_index;
    s->n_index = n * 2;
    s->index = calloc(s->n_index, sizeof *s->index);
    if (!s->index) {
        s->index = old, s->n_index = n;
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory growing the state set");
    }
    for (uint64_t i = 0; i < n; i++)
        if (old[i])
            *slot_of(s, s->vec + (old[i] - 1) * s->words) = old[i];
    free(old);
    return WX_OK;
}

int vecset_init(struct vecset *s, uint32_t words, uint64_t max, struct wx_error *err)
{
    memset(s, 0, sizeof *s);
    s->words = words;
    s->max = max;
    s->n_index = 1024;
    s->index = calloc(s->n_index, sizeof *s->index);
    if (!s->index)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    return WX_OK;
}

void vecset_free(struct vecset *s)
{
    free(s->vec);
    free(s->index);
    memset(s, 0, sizeof *s);
}

static int append(struct vecset *s, const uint32_t *v, uint64_t *id, struct wx_error *err)
{
    if (s->count == s->max) {
        wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                "memory budget exhausted after %llu states; raise it (--memory)",
                (unsigned long long)s->count);
        return -1;
    }
    if (s->count == s->cap) {
        uint64_t cap = s->cap ? s->cap * 2 : 1024;
        if (cap > s->max)
            cap = s->max;
        uint32_t *nv = realloc(s->vec, cap * s->words * 4);
        if (!nv) {
            wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory storing %llu states",
                    (unsigned long long)cap);
            return -1;
        }
        s->vec = nv;
        s->cap = cap;
    }
    memcpy(s->vec + s->count * s->words, v, s->words * 4u);
    *id = s->count++;
    return WX_OK;
}

int vecset_put(struct vecset *s, const uint32_t *v, uint64_t *id, struct wx_error *err)
{
    uint64_t *slot = slot_of(s, v);
    if (*slot) {
        *id = *slot - 1;
        return 0;
    }
    if (append(s, v, id, err))
        return -1;
    *slot = *id + 1; /* the slot is still v's: nothing moved the index */
    if (s->count * 2 > s->n_index && grow_index(s, err))
        return -1;
    return 1;
}

int vecset_add_hidden(struct vecset *s, const uint32_t *v, uint64_t *id, struct wx_error *err)
{
    return append(s, v, id, err) ? -1 : WX_OK;
}
