#include "lts.h"

#include "../util/arith.h"

#include <stdlib.h>
#include <string.h>

void lts_init(struct lts *l, uint32_t n_states)
{
    memset(l, 0, sizeof *l);
    l->n_states = n_states;
}

/* ---- distributions ---- */

struct dent {
    uint32_t state;
    uint64_t num, den;
};

static int cmp_dent(const void *a, const void *b)
{
    const struct dent *x = a, *y = b;
    return x->state < y->state ? -1 : x->state > y->state;
}

/* x + y for reduced fractions whose sum is at most 1 (so it fits whenever
 * the common denominator does); 0 on overflow. */
static int frac_add(uint64_t *n, uint64_t *d, uint64_t n2, uint64_t d2)
{
    uint64_t g = wx_gcd64(*d, d2), l;
    if (__builtin_mul_overflow(*d / g, d2, &l))
        return 0;
    unsigned __int128 s = (unsigned __int128)*n * (l / *d) + (unsigned __int128)n2 * (l / d2);
    if (s > l)
        return 0; /* more than 1: the caller's contract is broken */
    uint64_t sn = (uint64_t)s, h = wx_gcd64(sn, l);
    *n = sn / h;
    *d = l / h;
    return 1;
}

uint32_t lts_add_dist(struct lts *l, uint32_t n, const uint32_t *state, const uint64_t *num,
                      const uint64_t *den)
{
    struct dent *e = malloc((n ? n : 1) * sizeof *e);
    if (!e)
        return UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t g = wx_gcd64(num[i], den[i]);
        e[i] = (struct dent){state[i], num[i] / g, den[i] / g};
    }
    qsort(e, n, sizeof *e, cmp_dent);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (m > 0 && e[m - 1].state == e[i].state) {
            if (!frac_add(&e[m - 1].num, &e[m - 1].den, e[i].num, e[i].den)) {
                free(e);
                return UINT32_MAX;
            }
        } else {
            e[m++] = e[i];
        }
    }
    if (m == 1) {
        uint32_t s = e[0].state;
        free(e);
        return s;
    }
    uint64_t used = l->dist_start ? l->dist_start[l->n_dists] : 0;
    if (l->n_dists >= LTS_MAX_STATES - 1) {
        free(e);
        return UINT32_MAX;
    }
    if (l->n_dists + 2 > l->dist_cap) {
        uint64_t cap = l->dist_cap ? 2 * l->dist_cap : 16;
        uint64_t *p = realloc(l->dist_start, cap * sizeof *p);
        if (!p) {
            free(e);
            return UINT32_MAX;
        }
        if (!l->dist_start)
            p[0] = 0;
        l->dist_start = p;
        l->dist_cap = cap;
    }
    size_t entry_cap = l->dist_entry_cap;
    void **const arrays[] = {(void **)&l->dist_state, (void **)&l->dist_num, (void **)&l->dist_den};
    const size_t sizes[] = {sizeof *l->dist_state, sizeof *l->dist_num, sizeof *l->dist_den};
    if (wx_reserve_all(&entry_cap, used + m, 64, 3, arrays, sizes) != 0) {
        free(e);
        return UINT32_MAX;
    }
    l->dist_entry_cap = entry_cap;
    for (uint32_t i = 0; i < m; i++) {
        l->dist_state[used + i] = e[i].state;
        l->dist_num[used + i] = e[i].num;
        l->dist_den[used + i] = e[i].den;
    }
    free(e);
    l->dist_start[l->n_dists + 1] = used + m;
    return LTS_DST_DISTRIBUTION | l->n_dists++;
}

static const struct lts *cmp_dist_lts; /* qsort has no context argument */

static int cmp_dist(const void *a, const void *b)
{
    const struct lts *l = cmp_dist_lts;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t i = l->dist_start[x], ie = l->dist_start[x + 1];
    uint64_t j = l->dist_start[y], je = l->dist_start[y + 1];
    for (; i < ie && j < je; i++, j++) {
        if (l->dist_state[i] != l->dist_state[j])
            return l->dist_state[i] < l->dist_state[j] ? -1 : 1;
        /* compare num/den exactly: num_i * den_j vs num_j * den_i */
        unsigned __int128 p = (unsigned __int128)l->dist_num[i] * l->dist_den[j];
        unsigned __int128 q = (unsigned __int128)l->dist_num[j] * l->dist_den[i];
        if (p != q)
            return p < q ? -1 : 1;
    }
    if (i < ie || j < je)
        return i < ie ? 1 : -1;
    return x < y ? -1 : x > y; /* stable: equal contents keep id order */
}

static int same_dist(const struct lts *l, uint32_t x, uint32_t y)
{
    uint64_t i = l->dist_start[x], ie = l->dist_start[x + 1];
    uint64_t j = l->dist_start[y], je = l->dist_start[y + 1];
    if (ie - i != je - j)
        return 0;
    for (; i < ie; i++, j++)
        if (l->dist_state[i] != l->dist_state[j] || l->dist_num[i] != l->dist_num[j] ||
            l->dist_den[i] != l->dist_den[j])
            return 0;
    return 1;
}

/* Makes the distributions canonical (lts.h): entries sorted by state
 * (callers that renumber states leave them unsorted), only the used ones
 * kept, no two equal, sorted by content; dst[] and init_dist remapped.
 * 0 or -1 (OOM). */
static int canon_dists(struct lts *l)
{
    uint32_t nd = l->n_dists;
    for (uint32_t d = 0; d < nd; d++) {
        uint64_t a = l->dist_start[d], b = l->dist_start[d + 1];
        for (uint64_t i = a + 1; i < b; i++) { /* insertion sort: short */
            uint32_t s = l->dist_state[i];
            uint64_t n = l->dist_num[i], q = l->dist_den[i], j = i;
            for (; j > a && l->dist_state[j - 1] > s; j--) {
                l->dist_state[j] = l->dist_state[j - 1];
                l->dist_num[j] = l->dist_num[j - 1];
                l->dist_den[j] = l->dist_den[j - 1];
            }
            l->dist_state[j] = s, l->dist_num[j] = n, l->dist_den[j] = q;
        }
    }
    uint32_t *order = malloc((nd ? nd : 1) * sizeof *order);
    uint32_t *map = malloc((nd ? nd : 1) * sizeof *map);
    if (!order || !map) {
        free(order), free(map);
        return -1;
    }
    for (uint32_t d = 0; d < nd; d++)
        map[d] = 0;
    for (uint64_t i = 0; i < l->n_trans; i++)
        if (l->dst[i] & LTS_DST_DISTRIBUTION)
            map[l->dst[i] & ~LTS_DST_DISTRIBUTION] = 1;
    if (l->init_dist)
        map[l->init_dist - 1] = 1;
    uint32_t nu = 0;
    uint64_t entries = 0;
    for (uint32_t d = 0; d < nd; d++)
        if (map[d])
            order[nu++] = d;
    cmp_dist_lts = l;
    qsort(order, nu, sizeof *order, cmp_dist);
    uint32_t nn = 0;
    for (uint32_t k = 0; k < nu; k++) {
        if (k == 0 || !same_dist(l, order[k], order[k - 1])) {
            nn++;
            entries += l->dist_start[order[k] + 1] - l->dist_start[order[k]];
        }
        map[order[k]] = nn - 1;
    }
    uint64_t *st = malloc((nn + 1) * sizeof *st);
    uint32_t *ds = malloc((entries ? entries : 1) * sizeof *ds);
    uint64_t *dn = malloc((entries ? entries : 1) * sizeof *dn);
    uint64_t *dd = malloc((entries ? entries : 1) * sizeof *dd);
    if (!st || !ds || !dn || !dd) {
        free(order), free(map), free(st), free(ds), free(dn), free(dd);
        return -1;
    }
    uint64_t at = 0;
    st[0] = 0;
    for (uint32_t k = 0, o = 0; k < nu; k++) {
        if (k > 0 && map[order[k]] == map[order[k - 1]])
            continue;
        for (uint64_t i = l->dist_start[order[k]]; i < l->dist_start[order[k] + 1]; i++, at++) {
            ds[at] = l->dist_state[i];
            dn[at] = l->dist_num[i];
            dd[at] = l->dist_den[i];
        }
        st[++o] = at;
    }
    for (uint64_t i = 0; i < l->n_trans; i++)
        if (l->dst[i] & LTS_DST_DISTRIBUTION)
            l->dst[i] = LTS_DST_DISTRIBUTION | map[l->dst[i] & ~LTS_DST_DISTRIBUTION];
    if (l->init_dist)
        l->init_dist = map[l->init_dist - 1] + 1;
    free(l->dist_start), free(l->dist_state), free(l->dist_num), free(l->dist_den);
    l->dist_start = st, l->dist_state = ds, l->dist_num = dn, l->dist_den = dd;
    l->n_dists = nn;
    l->dist_cap = nn + 1;
    l->dist_entry_cap = entries;
    if (nn == 0) { /* nothing probabilistic is left: the plain form */
        free(l->dist_start), free(l->dist_state), free(l->dist_num), free(l->dist_den);
        l->dist_start = NULL, l->dist_state = NULL, l->dist_num = NULL, l->dist_den = NULL;
        l->dist_cap = l->dist_entry_cap = 0;
    }
    free(order), free(map);
    return 0;
}

/* Capacity is kept in the offsets pointer's slot until lts_finish() builds
 * the real offsets; a separate field would leak into the public struct. */
static uint64_t cap_of(const struct lts *l)
{
    return l->offsets ? l->offsets[0] : 0;
}

static int grow_to(struct lts *l, uint64_t ncap)
{
    void **const arrays[] = {(void **)&l->src, (void **)&l->label, (void **)&l->dst};
    const size_t sizes[] = {sizeof *l->src, sizeof *l->label, sizeof *l->dst};
    if (wx_resize_all(ncap, 3, arrays, sizes) != 0)
        return -1;
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
    if (l->n_dists && canon_dists(l) != 0)
        return -1;
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
#define VISIT(x)                                   \
    do {                                           \
        uint32_t x_ = (x);                         \
        if (newid[x_] == UINT32_MAX) {             \
            newid[x_] = tail;                      \
            order[tail++] = x_;                    \
        }                                          \
    } while (0)
    /* every state of a distribution, in its (ascending) order */
#define VISIT_DST(d)                                                             \
    do {                                                                         \
        uint32_t d_ = (d);                                                       \
        if (d_ & LTS_DST_DISTRIBUTION) {                                         \
            d_ &= ~LTS_DST_DISTRIBUTION;                                         \
            for (uint64_t k_ = l->dist_start[d_]; k_ < l->dist_start[d_ + 1]; k_++) \
                VISIT(l->dist_state[k_]);                                        \
        } else {                                                                 \
            VISIT(d_);                                                           \
        }                                                                        \
    } while (0)
    l->init_dist = 0;
    if (initial & LTS_DST_DISTRIBUTION)
        l->init_dist = (initial & ~LTS_DST_DISTRIBUTION) + 1;
    VISIT_DST(initial);
    while (head < tail) {
        uint32_t s = order[head++];
        for (uint64_t i = l->offsets[s]; i < l->offsets[s + 1]; i++)
            VISIT_DST(l->dst[i]);
    }
#undef VISIT_DST
#undef VISIT
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
        if (newid[l->src[i]] != UINT32_MAX) {
            uint32_t d = l->dst[i];
            t[m++] = (struct triple){newid[l->src[i]], l->label[i],
                                     d & LTS_DST_DISTRIBUTION ? d : newid[d]};
        }
    int rc = 0;
    if (l->n_dists) {
        /* renumber the distributions' states; canon_dists (through a
         * temporary view of the triples' dsts) re-sorts and renumbers them */
        for (uint64_t k = 0; k < l->dist_start[l->n_dists]; k++)
            l->dist_state[k] = newid[l->dist_state[k]]; /* UINT32_MAX: unused dist */
        uint32_t *save = l->dst;
        uint64_t save_n = l->n_trans;
        uint32_t *tmp = malloc((m ? m : 1) * sizeof *tmp);
        if (!tmp) {
            free(t), free(order), free(newid);
            return -1;
        }
        for (uint64_t i = 0; i < m; i++)
            tmp[i] = t[i].dst;
        l->dst = tmp, l->n_trans = m;
        rc = canon_dists(l);
        for (uint64_t i = 0; i < m; i++)
            t[i].dst = tmp[i];
        l->dst = save, l->n_trans = save_n;
        free(tmp);
    }
    qsort(t, m, sizeof *t, cmp_triple);
    l->n_states = tail;
    if (rc == 0)
        rc = rebuild(l, t, m);
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
    dst->dist_start = NULL, dst->dist_state = NULL, dst->dist_num = NULL, dst->dist_den = NULL;
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
    if (src->n_dists) {
        uint64_t ne = src->dist_start[src->n_dists];
        dst->dist_start = malloc(((size_t)src->n_dists + 1) * sizeof *dst->dist_start);
        dst->dist_state = malloc((ne ? ne : 1) * sizeof *dst->dist_state);
        dst->dist_num = malloc((ne ? ne : 1) * sizeof *dst->dist_num);
        dst->dist_den = malloc((ne ? ne : 1) * sizeof *dst->dist_den);
        if (!dst->dist_start || !dst->dist_state || !dst->dist_num || !dst->dist_den) {
            lts_free(dst);
            return -1;
        }
        memcpy(dst->dist_start, src->dist_start, ((size_t)src->n_dists + 1) * sizeof *dst->dist_start);
        memcpy(dst->dist_state, src->dist_state, ne * sizeof *dst->dist_state);
        memcpy(dst->dist_num, src->dist_num, ne * sizeof *dst->dist_num);
        memcpy(dst->dist_den, src->dist_den, ne * sizeof *dst->dist_den);
        dst->dist_cap = src->n_dists + 1;
        dst->dist_entry_cap = ne;
    }
    return 0;
}

void lts_free(struct lts *l)
{
    free(l->src), free(l->label), free(l->dst), free(l->offsets), free(l->orig_state);
    l->src = l->label = l->dst = l->orig_state = NULL;
    l->offsets = NULL;
    l->n_trans = 0;
    free(l->dist_start), free(l->dist_state), free(l->dist_num), free(l->dist_den);
    l->dist_start = NULL, l->dist_state = NULL, l->dist_num = NULL, l->dist_den = NULL;
    l->n_dists = 0;
    l->dist_cap = l->dist_entry_cap = 0;
    l->init_dist = 0;
}
