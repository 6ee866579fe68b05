#include "lts.h"

#include "../util/arith.h"

#include <stdlib.h>
#include <string.h>

void lts_init(struct lts *l, uint32_t n_states)
{
    memset(l, 0, sizeof *l);
    l->n_states = n_states;
}

/* Capacity is kept in the offsets pointer's slot until lts_finish() builds
 * the real offsets; a separate field would leak into the public struct. */
static uint64_t cap_of(const struct lts *l)
{
    return l->offsets ? l->offsets[0] : 0;
}

static int grow_to(struct lts *l, uint64_t ncap)
{
    uint32_t *s = realloc(l->src, ncap * sizeof *s);
    if (!s)
        return -1;
    l->src = s;
    uint32_t *a = realloc(l->label, ncap * sizeof *a);
    if (!a)
        return -1;
    l->label = a;
    uint32_t *d = realloc(l->dst, ncap * sizeof *d);
    if (!d)
        return -1;
    l->dst = d;
    if (!l->offsets && !(l->offsets = malloc(sizeof *l->offsets)))
        return -1;
    l->offsets[0] = ncap;
    return 0;
}

int lts_reserve(struct lts *l, uint64_t n)
{
    return n > cap_of(l) ? grow_to(l, n) : 0;
}

int lts_add(struct lts *l, uint32_t src, uint32_t label, uint32_t dst)
{
    uint64_t cap = cap_of(l);
    if (l->n_trans == cap && grow_to(l, cap ? cap * 2 : 64) != 0)
        return -1;
    l->src[l->n_trans] = src;
    l->label[l->n_trans] = label;
    l->dst[l->n_trans] = dst;
    l->n_trans++;
    return 0;
}

struct triple {
    uint32_t src, label, dst;
};

static int cmp_triple(const void *a, const void *b)
{
    const struct triple *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return 0;
}

/* Rebuilds src/label/dst/offsets from an array of triples (sorted, unique). */
static int rebuild(struct lts *l, struct triple *t, uint64_t n)
{
    uint32_t *src = malloc((n ? n : 1) * sizeof *src);
    uint32_t *lab = malloc((n ? n : 1) * sizeof *lab);
    uint32_t *dst = malloc((n ? n : 1) * sizeof *dst);
    uint64_t *off = calloc((size_t)l->n_states + 1, sizeof *off);
    if (!src || !lab || !dst || !off) {
        free(src), free(lab), free(dst), free(off);
        return -1;
    }
    for (uint64_t i = 0; i < n; i++) {
        src[i] = t[i].src;
        lab[i] = t[i].label;
        dst[i] = t[i].dst;
        off[t[i].src + 1]++;
    }
    for (uint32_t s = 0; s < l->n_states; s++)
        off[s + 1] += off[s];
    free(l->src), free(l->label), free(l->dst), free(l->offsets);
    l->src = src, l->label = lab, l->dst = dst, l->offsets = off;
    l->n_trans = n;
    return 0;
}

/* Linear in the number of transitions: a counting sort by source gives the
 * offsets directly; each state's (usually short) segment is then sorted on
 * the key label<<32 | dst and compacted in place, dropping duplicates.  This
 * is what makes reading a 300 MB .aut file I/O-bound rather than sort-bound. */
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
    /* off[s] serves as the fill cursor of segment s; afterwards it holds the
     * segment's end, i.e. the old off[s + 1]. */
    for (uint64_t i = 0; i < n; i++)
        key[off[l->src[i]]++] = (uint64_t)l->label[i] << 32 | l->dst[i];
    uint64_t m = 0, b = 0;
    for (uint64_t s = 0; s < ns; s++) {
        uint64_t e = off[s];
        if (e - b > 32) {
            qsort(key + b, e - b, sizeof *key, wx_cmp_u64);
        } else {
            for (uint64_t i = b + 1; i < e; i++) {
                uint64_t k = key[i], j = i;
                for (; j > b && key[j - 1] > k; j--)
                    key[j] = key[j - 1];
                key[j] = k;
            }
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

int lts_prune_from(struct lts *l, uint32_t initial)
{
    uint32_t n = l->n_states;
    uint32_t *order = malloc((size_t)n * sizeof *order);
    uint32_t *newid = malloc((size_t)n * sizeof *newid);
    if (!order || !newid) {
        free(order), free(newid);
        return -1;
    }
    for (uint32_t s = 0; s < n; s++)
        newid[s] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    order[tail++] = initial;
    newid[initial] = 0;
    while (head < tail) {
        uint32_t s = order[head++];
        for (uint64_t i = l->offsets[s]; i < l->offsets[s + 1]; i++)
            if (newid[l->dst[i]] == UINT32_MAX) {
                newid[l->dst[i]] = tail;
                order[tail++] = l->dst[i];
            }
    }
    uint64_t m = 0;
    for (uint64_t i = 0; i < l->n_trans; i++)
        if (newid[l->src[i]] != UINT32_MAX)
            m++;
    struct triple *t = malloc((m ? m : 1) * sizeof *t);
    if (!t) {
        free(order), free(newid);
        return -1;
    }
    m = 0;
    for (uint64_t i = 0; i < l->n_trans; i++)
        if (newid[l->src[i]] != UINT32_MAX)
            t[m++] = (struct triple){newid[l->src[i]], l->label[i], newid[l->dst[i]]};
    qsort(t, m, sizeof *t, cmp_triple);
    l->n_states = tail;
    int rc = rebuild(l, t, m);
    if (rc == 0) {
        /* order[] maps new numbers to previous ones; compose with any
         * earlier map so orig_state always names the file's states. */
        if (l->orig_state)
            for (uint32_t s = 0; s < tail; s++)
                order[s] = l->orig_state[order[s]];
        free(l->orig_state);
        l->orig_state = order;
        order = NULL;
    }
    free(t), free(order), free(newid);
    return rc;
}

int lts_copy(struct lts *dst, const struct lts *src)
{
    uint64_t n = src->n_trans ? src->n_trans : 1;
    *dst = *src;
    dst->orig_state = NULL; /* not shared: copied below */
    dst->src = malloc(n * sizeof *dst->src);
    dst->label = malloc(n * sizeof *dst->label);
    dst->dst = malloc(n * sizeof *dst->dst);
    dst->offsets = malloc(((size_t)src->n_states + 1) * sizeof *dst->offsets);
    if (!dst->src || !dst->label || !dst->dst || !dst->offsets) {
        lts_free(dst);
        return -1;
    }
    memcpy(dst->src, src->src, src->n_trans * sizeof *dst->src);
    memcpy(dst->label, src->label, src->n_trans * sizeof *dst->label);
    memcpy(dst->dst, src->dst, src->n_trans * sizeof *dst->dst);
    memcpy(dst->offsets, src->offsets, ((size_t)src->n_states + 1) * sizeof *dst->offsets);
    if (src->orig_state) {
        dst->orig_state = malloc((size_t)src->n_states * sizeof *dst->orig_state);
        if (!dst->orig_state) {
            lts_free(dst);
            return -1;
        }
        memcpy(dst->orig_state, src->orig_state, (size_t)src->n_states * sizeof *dst->orig_state);
    }
    return 0;
}

void lts_free(struct lts *l)
{
    free(l->src), free(l->label), free(l->dst), free(l->offsets), free(l->orig_state);
    l->src = l->label = l->dst = l->orig_state = NULL;
    l->offsets = NULL;
    l->n_trans = 0;
}
