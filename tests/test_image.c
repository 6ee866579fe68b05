/*
 * test_image.c -- the image compiler (network/image.c) and the GPUexplore
 * .gpf reader/writer (parser/gpf.c).
 *
 *  (a) decode: every image is decoded back, through the image.h accessors
 *      only, into local moves and synchronising rules with per-participant
 *      transition relations, and compared with the network it came from;
 *      structural invariants of the layout are checked on the way;
 *  (b) product: a small BFS explorer that reads only the image and one that
 *      reads only the network (network.h semantics) must find the same states,
 *      transitions and deadlocks;
 *  (c) limits: every encoding limit fails loudly with WX_ELIMIT;
 *  (d) .gpf: a hand-encoded file (from the format notes, not from our writer)
 *      reads to the right product and our writer reproduces it byte for
 *      byte; image -> .gpf -> image keeps the reachable states and the
 *      unlabelled transition relation; malformed files in tests/bad/gpf/
 *      fail at the line/column their manifest EXPECT names; mutated files
 *      never crash the reader.
 *
 * Usage: test_image [SEED]        run the tests (default seed fixed, printed)
 *        test_image --traffic     print the worked example of docs/image.md
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../explorer/explore.h"
#include "../network/image.h"
#include "../network/network.h"
#include "../parser/network_build.h"
#include "../parser/gpf.h"
#include "../util/strtab.h"
#include "check.h"

#define DEFAULT_SEED 20240611u
#define N_RANDOM 260          /* random networks */
#define LEVEL_CAP 1500        /* BFS stops after the level that passes this many states */
#define HARD_STATES 400000    /* give up (skip) beyond this */
#define HARD_EDGES 4000000

static void die(const char *what)
{
    fprintf(stdout, "FAIL internal: %s\n", what);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

/* Reads a whole file (NUL-terminated); NULL when it cannot be opened. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap + 1);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = xrealloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* ------------------------------------------------------------ random */

static uint64_t rng;

static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rn(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }
static int chance(uint32_t percent) { return rn(100) < percent; }

/* ------------------------------------------------------------ network building */

static uint32_t lab(struct network *net, const char *s)
{
    uint32_t id = strtab_intern(net->labels, s, strlen(s));
    if (id == UINT32_MAX)
        die("strtab");
    return id;
}

static void net_new(struct network *net, const char *hidden)
{
    struct strtab *t = strtab_new();
    if (!t)
        die("strtab_new");
    network_init(net, t, strtab_intern(t, hidden, strlen(hidden)));
}

/* spec: "src label dst; src label dst; ..." */
static void add_comp(struct network *net, const char *name, uint32_t n_states, const char *spec)
{
    struct lts l;
    lts_init(&l, n_states);
    const char *p = spec;
    while (p && *p) {
        unsigned s, d;
        char word[64];
        int used = 0;
        if (sscanf(p, " %u %63s %u %n", &s, word, &d, &used) < 3)
            break;
        if (lts_add(&l, s, lab(net, word), d) != 0)
            die("lts_add");
        p += used;
        if (*p == ';')
            p++;
    }
    if (lts_finish(&l) != 0 || network_add_comp(net, &l, name) < 0)
        die("add_comp");
}

/* spec: "comp:label comp:label ..." */
static void add_rule(struct network *net, const char *result, const char *spec)
{
    uint32_t comp[64], label[64], n = 0;
    const char *p = spec;
    while (*p) {
        unsigned c;
        char word[64];
        int used = 0;
        if (sscanf(p, " %u:%63s%n", &c, word, &used) < 2)
            break;
        comp[n] = c;
        label[n++] = lab(net, word);
        p += used;
    }
    if (network_add_rule(net, n, comp, label, lab(net, result)) != 0)
        die("add_rule");
}

/* ------------------------------------------------------------ tuple sets */

struct tset {
    uint32_t w;          /* uint32 per key */
    uint32_t *keys;      /* n * w */
    uint64_t n, cap;
    uint64_t *tab;       /* index + 1, 0 = empty */
    uint64_t tcap;       /* power of two */
};

static uint64_t hash_key(const uint32_t *k, uint32_t w)
{
    uint64_t h = 0x12345678abcdefull ^ w;
    for (uint32_t i = 0; i < w; i++) {
        h ^= k[i];
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h;
}

static void tset_init(struct tset *s, uint32_t w)
{
    memset(s, 0, sizeof *s);
    s->w = w;
    s->tcap = 1024;
    s->tab = calloc(s->tcap, sizeof *s->tab);
    if (!s->tab)
        die("calloc");
}

static void tset_free(struct tset *s)
{
    free(s->keys);
    free(s->tab);
}

/* Index of key; *added = 1 when it was new. */
static uint64_t tset_add(struct tset *s, const uint32_t *key, int *added)
{
    if (2 * (s->n + 1) > s->tcap) {
        uint64_t nc = s->tcap * 2;
        uint64_t *t = calloc(nc, sizeof *t);
        if (!t)
            die("calloc");
        for (uint64_t i = 0; i < s->n; i++) {
            uint64_t h = hash_key(s->keys + i * s->w, s->w) & (nc - 1);
            while (t[h])
                h = (h + 1) & (nc - 1);
            t[h] = i + 1;
        }
        free(s->tab);
        s->tab = t;
        s->tcap = nc;
    }
    uint64_t h = hash_key(key, s->w) & (s->tcap - 1);
    while (s->tab[h]) {
        uint64_t i = s->tab[h] - 1;
        if (memcmp(s->keys + i * s->w, key, s->w * sizeof *key) == 0) {
            *added = 0;
            return i;
        }
        h = (h + 1) & (s->tcap - 1);
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->keys = xrealloc(s->keys, s->cap * s->w * sizeof *s->keys + 4);
    }
    if (s->w)
        memcpy(s->keys + s->n * s->w, key, s->w * sizeof *key);
    s->tab[h] = s->n + 1;
    *added = 1;
    return s->n++;
}

/* ------------------------------------------------------------ successor generators */

/* Successors of one state: labels[i] and tuples [i * w, (i+1) * w). */
struct succs {
    uint32_t w;
    uint32_t *labels, *tuples;
    size_t n, cap;
};

static uint32_t *succ_push(struct succs *o, uint32_t label)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->labels = xrealloc(o->labels, o->cap * sizeof *o->labels);
        o->tuples = xrealloc(o->tuples, o->cap * (o->w + 1) * sizeof *o->tuples);
    }
    o->labels[o->n] = label;
    return o->tuples + o->n++ * o->w;
}

typedef void (*next_fn)(const void *model, const uint32_t *src, struct succs *out);

/* Network semantics (network.h), straight from the definition. */
static void net_next(const void *model, const uint32_t *src, struct succs *out)
{
    const struct network *net = model;
    uint64_t lo[64], hi[64], cur[64];
    for (uint32_t r = 0; r < net->n_rules; r++) {
        uint32_t a = net->rule_start[r], n = net->rule_start[r + 1] - a, ok = 1;
        if (n > 64)
            die("rule too long for the test explorer");
        for (uint32_t i = 0; i < n && ok; i++) {
            const struct lts *l = &net->comps[net->part_comp[a + i]];
            uint32_t s = src[net->part_comp[a + i]], want = net->part_label[a + i];
            uint64_t x = l->offsets[s], e = l->offsets[s + 1];
            while (x < e && l->label[x] != want)
                x++;
            uint64_t y = x;
            while (y < e && l->label[y] == want)
                y++;
            lo[i] = cur[i] = x;
            hi[i] = y;
            ok = x < y;
        }
        if (!ok)
            continue;
        for (;;) {
            uint32_t *t = succ_push(out, net->rule_result[r]);
            memcpy(t, src, out->w * sizeof *t);
            for (uint32_t i = 0; i < n; i++)
                t[net->part_comp[a + i]] = net->comps[net->part_comp[a + i]].dst[cur[i]];
            uint32_t i = n;
            while (i > 0) {
                i--;
                if (++cur[i] < hi[i])
                    break;
                cur[i] = lo[i];
                if (i == 0)
                    goto next_rule;
            }
            if (n == 0)
                break;
        }
    next_rule:;
    }
}

/* Image semantics (image.h), using only its fields and accessors. */
struct img_model {
    const struct image *img;
    uint32_t *vec, *tmp;       /* words each */
    uint32_t *tg;              /* per-participant target lists, scratch */
    size_t cap_tg;
    uint64_t *groups;          /* (class << 32) | comp, scratch */
    uint32_t *g_lo, *g_hi;     /* per group: entry range */
    size_t cap_groups;
};

static uint32_t field_of(const struct image *img, const uint32_t *vec, uint32_t c)
{
    return image_get_field(vec, img->first_bit[c], img->first_bit[c + 1] - img->first_bit[c]);
}

static void set_of(const struct image *img, uint32_t *vec, uint32_t c, uint32_t v)
{
    image_set_field(vec, img->first_bit[c], img->first_bit[c + 1] - img->first_bit[c], v);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void img_emit(const struct image *img, const uint32_t *vec, uint32_t label, struct succs *out)
{
    uint32_t *t = succ_push(out, label);
    for (uint32_t c = 0; c < img->n_comps; c++)
        t[c] = field_of(img, vec, c);
}

static void img_next(const void *model, const uint32_t *src, struct succs *out)
{
    struct img_model *m = (struct img_model *)model;
    const struct image *img = m->img;
    uint32_t ab = img->act_bits;
    memset(m->vec, 0, img->words * sizeof *m->vec);
    for (uint32_t c = 0; c < img->n_comps; c++)
        set_of(img, m->vec, c, src[c]);
    size_t ng = 0;
    for (uint32_t c = 0; c < img->n_comps; c++) {
        uint32_t s = field_of(img, m->vec, c), sb = img->state_bits[c];
        uint32_t x = img->state_offsets[img->proc_offsets[c] + s];
        uint32_t e = img->state_offsets[img->proc_offsets[c] + s + 1];
        for (; x < e && !image_entry_is_sync(img->trans[x]); x++)
            for (uint32_t k = 0; k < image_entry_slots(ab, sb); k++) {
                uint32_t t = image_entry_target(img->trans[x], ab, sb, k);
                if (t == UINT32_MAX)
                    break;
                memcpy(m->tmp, m->vec, img->words * sizeof *m->tmp);
                set_of(img, m->tmp, c, t);
                img_emit(img, m->tmp, image_entry_label(img->trans[x], ab), out);
            }
        while (x < e) { /* one group per class present here */
            uint32_t k = image_entry_label(img->trans[x], ab), y = x;
            while (y < e && image_entry_label(img->trans[y], ab) == k)
                y++;
            if (ng == m->cap_groups) {
                m->cap_groups = m->cap_groups ? 2 * m->cap_groups : 64;
                m->groups = xrealloc(m->groups, m->cap_groups * sizeof *m->groups);
                m->g_lo = xrealloc(m->g_lo, m->cap_groups * sizeof *m->g_lo);
                m->g_hi = xrealloc(m->g_hi, m->cap_groups * sizeof *m->g_hi);
            }
            m->groups[ng++] = ((uint64_t)k << 32) | c;
            x = y;
        }
    }
    /* recover each group's range after sorting by (class, comp) */
    if (ng > 1)
        qsort(m->groups, ng, sizeof *m->groups, cmp_u64);
    for (size_t g = 0; g < ng; g++) {
        uint32_t k = (uint32_t)(m->groups[g] >> 32), c = (uint32_t)m->groups[g];
        uint32_t s = field_of(img, m->vec, c);
        uint32_t x = img->state_offsets[img->proc_offsets[c] + s];
        uint32_t e = img->state_offsets[img->proc_offsets[c] + s + 1];
        while (x < e && (!image_entry_is_sync(img->trans[x]) || image_entry_label(img->trans[x], ab) != k))
            x++;
        uint32_t y = x;
        while (y < e && image_entry_label(img->trans[y], ab) == k)
            y++;
        m->g_lo[g] = x, m->g_hi[g] = y;
    }
    uint32_t part[4096], nt[4096], start[4096], cur[4096];
    for (size_t g = 0; g < ng;) {
        uint32_t k = (uint32_t)(m->groups[g] >> 32);
        size_t g2 = g;
        while (g2 < ng && (uint32_t)(m->groups[g2] >> 32) == k)
            g2++;
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            const uint32_t *mask = img->rule_mask + (size_t)r * img->mask_words;
            uint32_t np = 0, ok = 1;
            size_t ntg = 0;
            for (uint32_t c = 0; c < img->n_comps && ok; c++) {
                if (!(mask[c / 32] >> (c % 32) & 1))
                    continue;
                size_t gi = g;
                while (gi < g2 && (uint32_t)m->groups[gi] != c)
                    gi++;
                if (gi == g2) {
                    ok = 0;
                    break;
                }
                part[np] = c;
                start[np] = (uint32_t)ntg;
                uint32_t sb = img->state_bits[c];
                for (uint32_t x = m->g_lo[gi]; x < m->g_hi[gi]; x++)
                    for (uint32_t q = 0; q < image_entry_slots(ab, sb); q++) {
                        uint32_t t = image_entry_target(img->trans[x], ab, sb, q);
                        if (t == UINT32_MAX)
                            break;
                        if (ntg == m->cap_tg) {
                            m->cap_tg = m->cap_tg ? 2 * m->cap_tg : 256;
                            m->tg = xrealloc(m->tg, m->cap_tg * sizeof *m->tg);
                        }
                        m->tg[ntg++] = t;
                    }
                nt[np] = (uint32_t)ntg - start[np];
                cur[np] = 0;
                np++;
            }
            if (!ok || np == 0)
                continue;
            for (;;) {
                memcpy(m->tmp, m->vec, img->words * sizeof *m->tmp);
                for (uint32_t i = 0; i < np; i++)
                    set_of(img, m->tmp, part[i], m->tg[start[i] + cur[i]]);
                img_emit(img, m->tmp, img->class_result[k], out);
                uint32_t i = np;
                while (i > 0) {
                    i--;
                    if (++cur[i] < nt[i])
                        break;
                    cur[i] = 0;
                    if (i == 0)
                        goto done;
                }
            }
        done:;
        }
        g = g2;
    }
}

/* ------------------------------------------------------------ bounded BFS */

struct edge {
    uint64_t src, dst;
    uint32_t label;
};

struct prod {
    struct tset states;       /* tuples, discovery (BFS) order */
    struct edge *edges;
    size_t n_edges, cap_edges;
    uint64_t expanded;        /* states [0, expanded) were expanded */
    uint64_t deadlocks;
    int complete, gave_up;
};

static void prod_free(struct prod *p)
{
    tset_free(&p->states);
    free(p->edges);
}

/* Level-synchronous BFS: stops after the first level at whose end more than
 * LEVEL_CAP states are known.  The set of states within a depth, and so
 * everything compared below, does not depend on the exploration order. */
static void explore(next_fn next, const void *model, uint32_t n_comps, struct prod *p)
{
    memset(p, 0, sizeof *p);
    tset_init(&p->states, n_comps);
    uint32_t *zero = calloc(n_comps + 1, sizeof *zero);
    uint32_t *src = xmalloc((n_comps + 1) * sizeof *src);
    int added;
    tset_add(&p->states, zero, &added);
    struct succs out = {.w = n_comps};
    uint64_t level_end = 1, i = 0;
    for (;;) {
        for (; i < level_end; i++) {
            memcpy(src, p->states.keys + i * n_comps, n_comps * sizeof *src);
            out.n = 0;
            next(model, src, &out);
            if (out.n == 0)
                p->deadlocks++;
            for (size_t j = 0; j < out.n; j++) {
                uint64_t d = tset_add(&p->states, out.tuples + j * n_comps, &added);
                if (p->n_edges == p->cap_edges) {
                    p->cap_edges = p->cap_edges ? 2 * p->cap_edges : 1024;
                    p->edges = xrealloc(p->edges, p->cap_edges * sizeof *p->edges);
                }
                p->edges[p->n_edges++] = (struct edge){i, d, out.labels[j]};
            }
            if (p->states.n > HARD_STATES || p->n_edges > HARD_EDGES) {
                p->gave_up = 1;
                goto out;
            }
        }
        p->expanded = level_end;
        if (level_end == p->states.n) {
            p->complete = 1;
            break;
        }
        if (p->states.n > LEVEL_CAP)
            break;
        level_end = p->states.n;
    }
out:
    free(out.labels), free(out.tuples), free(zero), free(src);
}

/* ---- canonical comparison of two explorations ---- */

static const struct tset *sort_set;

static int cmp_idx_tuple(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    const uint32_t *kx = sort_set->keys + x * sort_set->w, *ky = sort_set->keys + y * sort_set->w;
    for (uint32_t i = 0; i < sort_set->w; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

static int cmp_edge(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* Renumbers states by sorted tuple; returns sorted unique edges (labels
 * replaced by 0 when !labelled) in *out and the rank array in *rank_out. */
static size_t canon(struct prod *p, int labelled, struct edge **out, uint64_t **order_out)
{
    uint64_t n = p->states.n;
    uint64_t *order = xmalloc(n * sizeof *order), *rank = xmalloc(n * sizeof *rank);
    for (uint64_t i = 0; i < n; i++)
        order[i] = i;
    sort_set = &p->states;
    qsort(order, n, sizeof *order, cmp_idx_tuple);
    for (uint64_t i = 0; i < n; i++)
        rank[order[i]] = i;
    struct edge *e = xmalloc(p->n_edges * sizeof *e);
    for (size_t i = 0; i < p->n_edges; i++)
        e[i] = (struct edge){rank[p->edges[i].src], rank[p->edges[i].dst], labelled ? p->edges[i].label : 0};
    qsort(e, p->n_edges, sizeof *e, cmp_edge);
    size_t m = 0;
    for (size_t i = 0; i < p->n_edges; i++)
        if (m == 0 || cmp_edge(&e[i], &e[m - 1]) != 0)
            e[m++] = e[i];
    free(rank);
    *out = e;
    *order_out = order;
    return m;
}

/* Compares two explorations; returns 1 when equal, else prints why. */
static int same_product(struct prod *a, struct prod *b, int labelled, char *why, size_t why_len)
{
    why[0] = '\0';
    if (a->gave_up || b->gave_up) {
        snprintf(why, why_len, "exploration gave up");
        return 0;
    }
    if (a->states.n != b->states.n || a->expanded != b->expanded || a->complete != b->complete ||
        a->deadlocks != b->deadlocks) {
        snprintf(why, why_len, "states %llu vs %llu, expanded %llu vs %llu, deadlocks %llu vs %llu",
                 (unsigned long long)a->states.n, (unsigned long long)b->states.n,
                 (unsigned long long)a->expanded, (unsigned long long)b->expanded,
                 (unsigned long long)a->deadlocks, (unsigned long long)b->deadlocks);
        return 0;
    }
    struct edge *ea, *eb;
    uint64_t *oa, *ob;
    size_t na = canon(a, labelled, &ea, &oa), nb = canon(b, labelled, &eb, &ob);
    int ok = 1;
    for (uint64_t i = 0; i < a->states.n && ok; i++)
        if (memcmp(a->states.keys + oa[i] * a->states.w, b->states.keys + ob[i] * b->states.w,
                   a->states.w * sizeof(uint32_t)) != 0) {
            snprintf(why, why_len, "state sets differ (sorted position %llu)", (unsigned long long)i);
            ok = 0;
        }
    if (ok && na != nb) {
        snprintf(why, why_len, "%zu vs %zu distinct transitions", na, nb);
        ok = 0;
    }
    for (size_t i = 0; ok && i < na; i++)
        if (cmp_edge(&ea[i], &eb[i]) != 0) {
            snprintf(why, why_len, "transition sets differ at %zu", i);
            ok = 0;
        }
    free(ea), free(eb), free(oa), free(ob);
    return ok;
}

static size_t distinct_edges(struct prod *p)
{
    struct edge *e;
    uint64_t *o;
    size_t n = canon(p, 1, &e, &o);
    free(e), free(o);
    return n;
}

static const char *check_layout(const struct image *img, char *buf, size_t len);

/* Explores an image; one that breaks the layout invariants (which would send
 * the explorer out of bounds) is not explored and counts as "gave up". */
static void explore_image(const struct image *img, struct prod *p)
{
    char buf[256];
    if (check_layout(img, buf, sizeof buf) != NULL) {
        memset(p, 0, sizeof *p);
        tset_init(&p->states, img->n_comps);
        p->gave_up = 1;
        return;
    }
    struct img_model m = {.img = img};
    m.vec = xmalloc((img->words + 1) * sizeof *m.vec);
    m.tmp = xmalloc((img->words + 1) * sizeof *m.tmp);
    explore(img_next, &m, img->n_comps, p);
    free(m.vec), free(m.tmp), free(m.tg), free(m.groups), free(m.g_lo), free(m.g_hi);
}

/* ------------------------------------------------------------ (a) decode */

struct quad {
    uint32_t c, s, l, t;
};

static int cmp_quad(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct quad)) == 0 ? 0 : (
        ((const struct quad *)a)->c != ((const struct quad *)b)->c ? (((const struct quad *)a)->c < ((const struct quad *)b)->c ? -1 : 1) :
        ((const struct quad *)a)->s != ((const struct quad *)b)->s ? (((const struct quad *)a)->s < ((const struct quad *)b)->s ? -1 : 1) :
        ((const struct quad *)a)->l != ((const struct quad *)b)->l ? (((const struct quad *)a)->l < ((const struct quad *)b)->l ? -1 : 1) :
        (((const struct quad *)a)->t < ((const struct quad *)b)->t ? -1 : 1));
}

static size_t quads_unique(struct quad *q, size_t n)
{
    if (n < 2)
        return n;
    qsort(q, n, sizeof *q, cmp_quad);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (cmp_quad(&q[i], &q[m - 1]) != 0)
            q[m++] = q[i];
    return m;
}

/* A rule as a flat uint32 sequence: result, #participants, then per
 * participant: comp, #pairs, (src, dst) pairs sorted. */
struct flat {
    uint32_t *v;
    size_t n, cap;
};

static void flat_push(struct flat *f, uint32_t x)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 32;
        f->v = xrealloc(f->v, f->cap * sizeof *f->v);
    }
    f->v[f->n++] = x;
}

static int cmp_flat(const void *a, const void *b)
{
    const struct flat *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    for (size_t i = 0; i < x->n; i++)
        if (x->v[i] != y->v[i])
            return x->v[i] < y->v[i] ? -1 : 1;
    return 0;
}

/* Structural invariants of an image (image.h), through its fields and
 * accessors.  Returns NULL or a description of the first violation. */
static const char *check_layout(const struct image *img, char *buf, size_t len)
{
    uint32_t n = img->n_comps;
    if (img->first_bit[0] != 0)
        return "first_bit[0] != 0";
    for (uint32_t c = 0; c < n; c++) {
        uint32_t w = img->first_bit[c + 1] - img->first_bit[c], need = 0;
        while ((1ull << need) < img->comp_states[c])
            need++;
        if (w != need) {
            snprintf(buf, len, "component %u: field width %u, expected ceil(log2 %u) = %u", c, w,
                     img->comp_states[c], need);
            return buf;
        }
        uint32_t sb = 0;
        while ((1ull << sb) <= img->comp_states[c])
            sb++;
        if (img->state_bits[c] != sb) {
            snprintf(buf, len, "component %u: state_bits %u, expected %u", c, img->state_bits[c], sb);
            return buf;
        }
        if (image_entry_slots(img->act_bits, sb) == 0)
            return "zero slots";
        if (img->proc_offsets[c + 1] - img->proc_offsets[c] != img->comp_states[c] + 1)
            return "proc_offsets do not give n_states + 1 offsets";
    }
    if (img->first_bit[n] > 32 * img->words - 1 || img->words != img->first_bit[n] / 32 + 1)
        return "words wrong or bit 31 of the last word used";
    if (img->act_bits < 1 || img->act_bits > IMAGE_MAX_ACT_BITS || img->mask_words != (n + 31) / 32)
        return "act_bits or mask_words";
    uint32_t most = 0;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t sb = img->state_bits[c], ab = img->act_bits, slots = image_entry_slots(ab, sb);
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            uint32_t a = img->state_offsets[img->proc_offsets[c] + s];
            uint32_t b = img->state_offsets[img->proc_offsets[c] + s + 1];
            if (a > b || b > img->n_entries)
                return "state offsets not monotone";
            int seen_sync = 0;
            uint32_t prev_k = 0, run = 0;
            for (uint32_t x = a; x < b; x++) {
                uint64_t e = img->trans[x];
                uint32_t used = 1 + ab + slots * sb;
                if (used < 64 && (e >> used) != 0)
                    return "bits above the last slot";
                int empty = 0, filled = 0;
                for (uint32_t k = 0; k < slots; k++) {
                    uint32_t t = image_entry_target(e, ab, sb, k);
                    if (t == UINT32_MAX) {
                        empty = 1;
                        continue;
                    }
                    if (empty)
                        return "filled slot after an empty one";
                    if (t >= img->comp_states[c])
                        return "target out of range";
                    filled++;
                }
                if (!filled)
                    return "entry without targets";
                uint32_t l = image_entry_label(e, ab);
                if (!image_entry_is_sync(e)) {
                    if (seen_sync)
                        return "local entry after a sync entry";
                    if (l >= img->n_labels)
                        return "local label out of range";
                    continue;
                }
                if (l >= img->n_classes)
                    return "class id out of range";
                if (seen_sync && l < prev_k)
                    return "sync entries not sorted by class";
                run = (seen_sync && l == prev_k) ? run + 1 : 1;
                if (run > most)
                    most = run;
                seen_sync = 1;
                prev_k = l;
            }
        }
    }
    if (most != img->max_class_entries) {
        snprintf(buf, len, "max_class_entries %u, observed %u", img->max_class_entries, most);
        return buf;
    }
    if (img->class_rule_start[0] != 0 || img->class_rule_start[img->n_classes] != img->n_rules)
        return "class_rule_start bounds";
    for (uint32_t k = 0; k < img->n_classes; k++) {
        if (img->class_rule_start[k] >= img->class_rule_start[k + 1])
            return "class without rules";
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            uint32_t bits = 0;
            for (uint32_t c = 0; c < 32 * img->mask_words; c++)
                if (img->rule_mask[(size_t)r * img->mask_words + c / 32] >> (c % 32) & 1) {
                    if (c >= n)
                        return "rule mask names a missing component";
                    bits++;
                }
            if (bits < 2)
                return "sync rule with < 2 participants";
        }
    }
    return NULL;
}

/* Decodes img back to (local moves, sync rules) and compares with net. */
static int check_decode(const struct network *net, const struct image *img, const char *tag)
{
    char buf[256];
    const char *bad = check_layout(img, buf, sizeof buf);
    if (bad)
        return check(0, "decode %s: layout: %s", tag, bad);
    if (img->n_comps != net->n_comps)
        return check(0, "decode %s: component count", tag);
    for (uint32_t c = 0; c < net->n_comps; c++)
        if (img->comp_states[c] != net->comps[c].n_states)
            return check(0, "decode %s: states of component %u", tag, c);
    if (img->n_labels != strtab_count(net->labels) || img->hidden != net->hidden)
        return check(0, "decode %s: label table", tag);
    for (uint32_t l = 0; l < img->n_labels; l++)
        if (strcmp(strtab_str(img->labels, l), strtab_str(net->labels, l)) != 0)
            return check(0, "decode %s: label %u text", tag, l);

    /* local moves */
    size_t nq = 0, cq = 1024, nr = 0, cr = 1024;
    struct quad *qi = xmalloc(cq * sizeof *qi), *qn = xmalloc(cr * sizeof *qn);
    for (uint32_t c = 0; c < img->n_comps; c++) {
        uint32_t ab = img->act_bits, sb = img->state_bits[c];
        for (uint32_t s = 0; s < img->comp_states[c]; s++)
            for (uint32_t x = img->state_offsets[img->proc_offsets[c] + s];
                 x < img->state_offsets[img->proc_offsets[c] + s + 1]; x++) {
                if (image_entry_is_sync(img->trans[x]))
                    continue;
                for (uint32_t k = 0; k < image_entry_slots(ab, sb); k++) {
                    uint32_t t = image_entry_target(img->trans[x], ab, sb, k);
                    if (t == UINT32_MAX)
                        break;
                    if (nq == cq)
                        qi = xrealloc(qi, (cq *= 2) * sizeof *qi);
                    qi[nq++] = (struct quad){c, s, image_entry_label(img->trans[x], ab), t};
                }
            }
    }
    for (uint32_t r = 0; r < net->n_rules; r++) {
        uint32_t a = net->rule_start[r];
        if (net->rule_start[r + 1] - a != 1)
            continue;
        const struct lts *l = &net->comps[net->part_comp[a]];
        for (uint64_t x = 0; x < l->n_trans; x++)
            if (l->label[x] == net->part_label[a]) {
                if (nr == cr)
                    qn = xrealloc(qn, (cr *= 2) * sizeof *qn);
                qn[nr++] = (struct quad){net->part_comp[a], l->src[x], net->rule_result[r], l->dst[x]};
            }
    }
    size_t ui = quads_unique(qi, nq), un = quads_unique(qn, nr);
    int ok = ui == nq && ui == un && (ui == 0 || memcmp(qi, qn, ui * sizeof *qi) == 0);
    if (!ok) {
        free(qi), free(qn);
        return check(0, "decode %s: local moves differ (%zu image entries-targets, %zu unique, %zu expected)",
                     tag, nq, ui, un);
    }
    free(qi), free(qn);

    /* sync rules with their participants' relations */
    struct flat *fi = xmalloc((img->n_rules + 1) * sizeof *fi);
    struct flat *fn = xmalloc((net->n_rules + 1) * sizeof *fn);
    size_t nfi = 0, nfn = 0;
    uint64_t *pairs = NULL;
    size_t cap_pairs = 0;
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            struct flat f = {0};
            const uint32_t *mask = img->rule_mask + (size_t)r * img->mask_words;
            uint32_t np = 0;
            for (uint32_t c = 0; c < img->n_comps; c++)
                np += mask[c / 32] >> (c % 32) & 1;
            flat_push(&f, img->class_result[k]);
            flat_push(&f, np);
            for (uint32_t c = 0; c < img->n_comps; c++) {
                if (!(mask[c / 32] >> (c % 32) & 1))
                    continue;
                size_t npairs = 0;
                uint32_t ab = img->act_bits, sb = img->state_bits[c];
                for (uint32_t s = 0; s < img->comp_states[c]; s++)
                    for (uint32_t x = img->state_offsets[img->proc_offsets[c] + s];
                         x < img->state_offsets[img->proc_offsets[c] + s + 1]; x++) {
                        if (!image_entry_is_sync(img->trans[x]) || image_entry_label(img->trans[x], ab) != k)
                            continue;
                        for (uint32_t q = 0; q < image_entry_slots(ab, sb); q++) {
                            uint32_t t = image_entry_target(img->trans[x], ab, sb, q);
                            if (t == UINT32_MAX)
                                break;
                            if (npairs == cap_pairs)
                                pairs = xrealloc(pairs, (cap_pairs = cap_pairs ? 2 * cap_pairs : 256) * sizeof *pairs);
                            pairs[npairs++] = ((uint64_t)s << 32) | t;
                        }
                    }
                if (npairs > 1)
                    qsort(pairs, npairs, sizeof *pairs, cmp_u64);
                flat_push(&f, c);
                flat_push(&f, (uint32_t)npairs);
                for (size_t i = 0; i < npairs; i++) {
                    flat_push(&f, (uint32_t)(pairs[i] >> 32));
                    flat_push(&f, (uint32_t)pairs[i]);
                }
            }
            fi[nfi++] = f;
        }
    for (uint32_t r = 0; r < net->n_rules; r++) {
        uint32_t a = net->rule_start[r], np = net->rule_start[r + 1] - a;
        if (np < 2)
            continue;
        struct flat f = {0};
        flat_push(&f, net->rule_result[r]);
        flat_push(&f, np);
        for (uint32_t i = 0; i < np; i++) {
            const struct lts *l = &net->comps[net->part_comp[a + i]];
            size_t npairs = 0;
            for (uint64_t x = 0; x < l->n_trans; x++)
                if (l->label[x] == net->part_label[a + i])
                    npairs++;
            flat_push(&f, net->part_comp[a + i]);
            flat_push(&f, (uint32_t)npairs);
            for (uint64_t x = 0; x < l->n_trans; x++)
                if (l->label[x] == net->part_label[a + i]) {
                    flat_push(&f, l->src[x]);
                    flat_push(&f, l->dst[x]);
                }
        }
        fn[nfn++] = f;
    }
    qsort(fi, nfi, sizeof *fi, cmp_flat);
    qsort(fn, nfn, sizeof *fn, cmp_flat);
    ok = nfi == nfn;
    for (size_t i = 0; ok && i < nfi; i++)
        ok = cmp_flat(&fi[i], &fn[i]) == 0;
    for (size_t i = 0; i < nfi; i++)
        free(fi[i].v);
    for (size_t i = 0; i < nfn; i++)
        free(fn[i].v);
    free(fi), free(fn), free(pairs);
    return check(ok, "decode %s: %u components, %u entries, %u classes, %u sync rules%s", tag, img->n_comps,
                 img->n_entries, img->n_classes, img->n_rules, ok ? "" : ": sync rules differ");
}

/* ------------------------------------------------------------ random networks */

struct profile {
    const char *name;
    uint32_t comps_lo, comps_hi;
    uint32_t pool;          /* label pool size (besides "i") */
    uint32_t alpha;         /* labels per component, at most */
    uint32_t states_hi;     /* states, at most (some components get 1) */
    uint32_t wide_pct;      /* % of components with 40..400 states */
    uint32_t nondet_pct;    /* % of states with a 3..12-target label */
    uint32_t parts_hi;      /* participants per sync rule, at most */
};

static const struct profile profiles[] = {
    {"small", 1, 6, 6, 4, 6, 0, 10, 3},
    {"wide", 33, 45, 8, 3, 3, 8, 5, 3},
    {"labels", 2, 6, 300, 40, 6, 0, 10, 3},
    {"nondet", 2, 4, 6, 4, 60, 20, 40, 2},
    {"straddle", 8, 20, 10, 4, 5, 40, 5, 4},
};
#define N_PROFILES (sizeof profiles / sizeof profiles[0])

/* A random network; the seed decides everything. */
static void random_network(uint64_t seed, struct network *net, const char **pname)
{
    rng = seed;
    const struct profile *pr = &profiles[seed % N_PROFILES];
    *pname = pr->name;
    net_new(net, "i");
    char name[32];
    uint32_t pool = 2 + rn(pr->pool);
    for (uint32_t l = 0; l < pool; l++) {
        snprintf(name, sizeof name, "a%u", l);
        lab(net, name);
    }
    uint32_t nl = strtab_count(net->labels); /* label 0 = "i" */
    uint32_t nc = pr->comps_lo + rn(pr->comps_hi - pr->comps_lo + 1);
    uint32_t alpha[64][48], na[64];
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t ns = chance(15) ? 1 : 1 + rn(pr->states_hi);
        if (chance(pr->wide_pct))
            ns = 40 + rn(361);
        na[c] = 1 + rn(pr->alpha < nl - 1 ? pr->alpha : nl - 1);
        for (uint32_t i = 0; i < na[c]; i++)
            alpha[c][i] = 1 + rn(nl - 1);
        if (chance(30))
            alpha[c][na[c]++] = 0; /* hidden transitions too */
        struct lts l;
        lts_init(&l, ns);
        for (uint32_t s = 0; s < ns; s++) {
            uint32_t deg = rn(4);
            if (ns > 20)
                deg = rn(3);
            if (s == 0 && deg == 0)
                deg = 1; /* fewer trivial products */
            for (uint32_t d = 0; d < deg; d++)
                if (lts_add(&l, s, alpha[c][rn(na[c])], rn(ns)) != 0)
                    die("lts_add");
            if (chance(pr->nondet_pct)) {
                uint32_t lbl = alpha[c][rn(na[c])], k = 3 + rn(10);
                for (uint32_t d = 0; d < k; d++)
                    if (lts_add(&l, s, lbl, rn(ns)) != 0)
                        die("lts_add");
            }
        }
        snprintf(name, sizeof name, "c%u.aut", c);
        if (lts_finish(&l) != 0 || network_add_comp(net, &l, name) < 0)
            die("add comp");
    }
    /* single-participant rules, sometimes two results for one label */
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t i = 0; i < na[c]; i++) {
            uint32_t l = alpha[c][i];
            if (l == 0 || chance(50)) {
                uint32_t res = chance(50) ? l : rn(nl);
                if (network_add_rule(net, 1, &c, &l, res) != 0)
                    die("rule");
                if (chance(20)) {
                    res = rn(nl);
                    if (network_add_rule(net, 1, &c, &l, res) != 0)
                        die("rule");
                }
            }
        }
    /* random multi-participant rules, results from a small set so that
     * classes merge and conflict */
    uint32_t nres = 1 + rn(4), nrules = nc >= 2 ? 1 + rn(2 * nc + 2) : 0;
    for (uint32_t r = 0; r < nrules; r++) {
        uint32_t np = 2 + rn(pr->parts_hi - 1), comp[8], label[8];
        if (np > nc)
            np = nc;
        for (uint32_t i = 0; i < np; i++) {
            uint32_t c, dup;
            do {
                c = rn(nc);
                dup = 0;
                for (uint32_t j = 0; j < i; j++)
                    dup |= comp[j] == c;
            } while (dup);
            comp[i] = c;
            uint32_t l = alpha[c][rn(na[c])];
            label[i] = l == 0 ? 1 + rn(nl - 1) : l; /* no hidden label in vectors */
        }
        if (network_add_rule(net, np, comp, label, 1 + rn(nres < nl - 1 ? nres : nl - 1)) != 0)
            die("rule");
    }
    /* 2 of 3 (and sometimes all 3) on one result */
    if (nc >= 3 && chance(60)) {
        uint32_t c[3], l[3], res = rn(nl);
        c[0] = rn(nc);
        do
            c[1] = rn(nc);
        while (c[1] == c[0]);
        do
            c[2] = rn(nc);
        while (c[2] == c[0] || c[2] == c[1]);
        for (int i = 0; i < 3; i++) {
            l[i] = alpha[c[i]][rn(na[c[i]])];
            if (l[i] == 0)
                l[i] = 1;
        }
        for (int i = 0; i < 3; i++) {
            uint32_t pc[2] = {c[i], c[(i + 1) % 3]}, pl[2] = {l[i], l[(i + 1) % 3]};
            if (network_add_rule(net, 2, pc, pl, res) != 0)
                die("rule");
        }
        if (chance(40) && network_add_rule(net, 3, c, l, res) != 0)
            die("rule");
    }
    if (network_normalise(net) != 0)
        die("normalise");
}

/* ------------------------------------------------------------ hand-made networks */

/* The worked example of docs/image.md: a traffic light and a pedestrian.
 * Built by hand exactly as network_from_exp builds examples/traffic/traffic.exp
 * (label par using; hidden transitions interleave as single-participant
 * rules with result i). */
static void traffic_network(struct network *net)
{
    net_new(net, "i");
    /* light: 0 red, 1 green, 2 yellow */
    add_comp(net, "light.aut", 3, "0 is_red 0; 0 go_green 1; 1 go_yellow 2; 2 go_red 0");
    /* pedestrian: 0 at the kerb, 1 crossing, 2 across; wandering back is hidden */
    add_comp(net, "pedestrian.aut", 3, "0 safe 0; 0 cross 1; 1 arrive 2; 2 safe 2; 2 i 0");
    add_rule(net, "green", "0:go_green 1:safe");
    add_rule(net, "yellow", "0:go_yellow");
    add_rule(net, "red", "0:go_red");
    add_rule(net, "crossing", "0:is_red 1:cross");
    add_rule(net, "arrive", "1:arrive");
    add_rule(net, "i", "1:i");
    if (network_normalise(net) != 0)
        die("normalise");
}

static void print_bits(FILE *out, uint64_t v, uint32_t n)
{
    for (uint32_t i = n; i > 0; i--)
        fputc((v >> (i - 1)) & 1 ? '1' : '0', out);
}

/* Prints every entry of an image, decoded field by field. */
static void print_entries(const struct image *img)
{
    for (uint32_t c = 0; c < img->n_comps; c++)
        for (uint32_t s = 0; s < img->comp_states[c]; s++)
            for (uint32_t x = img->state_offsets[img->proc_offsets[c] + s];
                 x < img->state_offsets[img->proc_offsets[c] + s + 1]; x++) {
                uint64_t e = img->trans[x];
                uint32_t ab = img->act_bits, sb = img->state_bits[c];
                uint32_t slots = image_entry_slots(ab, sb);
                printf("trans[%u] (comp %u, state %u) = 0x%016llx\n  ", x, c, s, (unsigned long long)e);
                uint32_t used_slots = 0;
                while (used_slots < slots && image_entry_target(e, ab, sb, used_slots) != UINT32_MAX)
                    used_slots++;
                printf("bits 63..%u: 0 (", 1 + ab + used_slots * sb);
                if (used_slots < slots)
                    printf("empty slots %u..%u", used_slots, slots - 1);
                if (1 + ab + slots * sb < 64)
                    printf("%sunused bit%s", used_slots < slots ? ", " : "", 1 + ab + slots * sb < 63 ? "s" : "");
                printf(") ");
                for (uint32_t k = used_slots; k > 0; k--) {
                    printf("slot%u:", k - 1);
                    print_bits(stdout, (e >> (1 + ab + (k - 1) * sb)) & ((1ull << sb) - 1), sb);
                    printf(" ");
                }
                printf("label:");
                print_bits(stdout, image_entry_label(e, ab), ab);
                printf(" sync:%u\n  = %s %s", (unsigned)image_entry_is_sync(e),
                       image_entry_is_sync(e) ? "sync, class" : "local, label",
                       image_entry_is_sync(e) ? "" : strtab_str(img->labels, image_entry_label(e, ab)));
                if (image_entry_is_sync(e))
                    printf("%u", image_entry_label(e, ab));
                printf(", targets");
                for (uint32_t k = 0; k < slots; k++) {
                    uint32_t t = image_entry_target(e, ab, sb, k);
                    if (t == UINT32_MAX)
                        break;
                    printf(" %u", t);
                }
                printf("\n");
            }
}

/* The two smaller illustrations of docs/image.md: an entry with several
 * targets, and fields straddling a word boundary. */
static void print_more_examples(void)
{
    struct network net;
    struct image img;
    struct wx_error err;
    net_new(&net, "i");
    add_comp(&net, "dice.aut", 7, "0 roll 1; 0 roll 2; 0 roll 3; 0 roll 4; 0 roll 5; 0 roll 6");
    add_rule(&net, "roll", "0:roll");
    network_normalise(&net);
    if (image_compile(&net, &img, &err) == WX_OK) {
        printf("\n== dice: act_bits %u, state_bits %u, slots %u\n", img.act_bits, img.state_bits[0],
               image_entry_slots(img.act_bits, img.state_bits[0]));
        print_entries(&img);
        image_free(&img);
    }
    network_free(&net);
    net_new(&net, "i");
    for (int c = 0; c < 4; c++)
        add_comp(&net, "w.aut", 500, "0 a 1");
    if (image_compile(&net, &img, &err) == WX_OK) {
        uint32_t vec[IMAGE_MAX_WORDS] = {0}, val[4] = {1, 2, 3, 499};
        printf("\n== straddle: first_bit =");
        for (uint32_t c = 0; c <= img.n_comps; c++)
            printf(" %u", img.first_bit[c]);
        printf(", words = %u\nvector (1, 2, 3, 499):", img.words);
        for (uint32_t c = 0; c < img.n_comps; c++)
            set_of(&img, vec, c, val[c]);
        for (uint32_t w = 0; w < img.words; w++) {
            printf(" word %u = 0x%08x = ", w, vec[w]);
            print_bits(stdout, vec[w], 32);
        }
        printf("\nread back:");
        for (uint32_t c = 0; c < img.n_comps; c++)
            printf(" %u", field_of(&img, vec, c));
        printf("\n");
        image_free(&img);
    }
    network_free(&net);
}

/* Prints the arrays of the traffic image (built from examples/traffic/traffic.exp
 * by the EXP front end) for docs/image.md. */
static int print_traffic(void)
{
    struct network net;
    struct image img;
    struct wx_error err;
    struct net_options opt;
    memset(&opt, 0, sizeof opt);
    if (network_from_exp("examples/traffic/traffic.exp", &opt, &net, &err) != WX_OK) {
        printf("traffic.exp: %s:%d:%d: %s (run from the repository root)\n", err.file, err.line, err.col, err.msg);
        return 1;
    }
    if (image_compile(&net, &img, &err) != WX_OK) {
        printf("compile failed: %s\n", err.msg);
        return 1;
    }
    printf("== image_print_info\n");
    image_print_info(&img, stdout);
    printf("\n== arrays\n");
    printf("words = %u, act_bits = %u, n_entries = %u, n_classes = %u, n_rules = %u, mask_words = %u, "
           "max_class_entries = %u\n",
           img.words, img.act_bits, img.n_entries, img.n_classes, img.n_rules, img.mask_words,
           img.max_class_entries);
    printf("first_bit     =");
    for (uint32_t c = 0; c <= img.n_comps; c++)
        printf(" %u", img.first_bit[c]);
    printf("\nstate_bits    =");
    for (uint32_t c = 0; c < img.n_comps; c++)
        printf(" %u", img.state_bits[c]);
    printf("\nproc_offsets  =");
    for (uint32_t c = 0; c <= img.n_comps; c++)
        printf(" %u", img.proc_offsets[c]);
    printf("\nstate_offsets =");
    for (uint32_t i = 0; i < img.proc_offsets[img.n_comps]; i++)
        printf(" %u", img.state_offsets[i]);
    printf("\nclass_result  =");
    for (uint32_t k = 0; k < img.n_classes; k++)
        printf(" %u (%s)", img.class_result[k], strtab_str(img.labels, img.class_result[k]));
    printf("\nclass_rule_start =");
    for (uint32_t k = 0; k <= img.n_classes; k++)
        printf(" %u", img.class_rule_start[k]);
    printf("\nrule_mask     =");
    for (uint32_t r = 0; r < img.n_rules * img.mask_words; r++)
        printf(" 0x%08x", img.rule_mask[r]);
    printf("\n\n== entries (bit 63 .. bit 0)\n");
    print_entries(&img);
    struct prod p;
    explore_image(&img, &p);
    printf("\n== product: %llu states, %zu transitions, %llu deadlocks\n", (unsigned long long)p.states.n,
           distinct_edges(&p), (unsigned long long)p.deadlocks);
    for (uint64_t i = 0; i < p.states.n; i++) {
        uint32_t vec[IMAGE_MAX_WORDS] = {0};
        for (uint32_t c = 0; c < img.n_comps; c++)
            set_of(&img, vec, c, p.states.keys[i * img.n_comps + c]);
        printf("state (");
        for (uint32_t c = 0; c < img.n_comps; c++)
            printf("%s%u", c ? ", " : "", p.states.keys[i * img.n_comps + c]);
        printf(") vector word 0 = 0x%08x = ", vec[0]);
        print_bits(stdout, vec[0], 32);
        printf("\n");
    }
    prod_free(&p);
    const char *gpf = "tests/out/traffic.gpf";
    if (gpf_write(&img, gpf, &err) == WX_OK) {
        printf("\n== %s\n", gpf);
        FILE *f = fopen(gpf, "r");
        int ch;
        while (f && (ch = fgetc(f)) != EOF)
            putchar(ch);
        if (f)
            fclose(f);
    }
    image_free(&img);
    network_free(&net);
    print_more_examples();
    return 0;
}

/* ------------------------------------------------------------ tests */

static int compile_ok(const struct network *net, struct image *img, const char *tag)
{
    struct wx_error err;
    wx_error_clear(&err);
    int rc = image_compile(net, img, &err);
    if (rc != WX_OK)
        check(0, "compile %s: rc %d: %s", tag, rc, err.msg);
    return rc == WX_OK;
}

/* Explores net and img both ways and compares; returns 1 if equal. */
static int check_product(const struct network *net, const struct image *img, const char *tag, int *skipped)
{
    struct prod a, b;
    explore(net_next, net, net->n_comps, &a);
    explore_image(img, &b);
    char why[200];
    int ok;
    if (a.gave_up && b.gave_up) { /* both too large; a broken image gives up alone */
        (*skipped)++;
        ok = 1;
        printf("note: %s: product too large for the test explorer, skipped\n", tag);
    } else {
        ok = same_product(&a, &b, 1, why, sizeof why);
        check(ok, "product %s: %llu states (%s), %zu transitions, %llu deadlocks%s%s", tag,
              (unsigned long long)a.states.n, a.complete ? "complete" : "bounded", distinct_edges(&a),
              (unsigned long long)a.deadlocks, ok ? "" : ": ", why);
    }
    prod_free(&a);
    prod_free(&b);
    return ok;
}

static void test_hand_made(void)
{
    struct network net;
    struct image img;
    int skipped = 0;

    /* traffic, by hand (light: r g y; pedestrian: kerb K, crossing C, across A):
     *   rK -green-> gK, rK -crossing-> rC;   gK -yellow-> yK;   yK -red-> rK;
     *   rC -arrive-> rA;   rA -green-> gA, rA -i-> rK;   gA -yellow-> yA, gA -i-> gK;
     *   yA -red-> rA, yA -i-> yK.
     * 7 states, 11 transitions, no deadlock; gC and yC (light not red while
     * crossing) are unreachable. */
    traffic_network(&net);
    if (compile_ok(&net, &img, "traffic")) {
        if (check_decode(&net, &img, "traffic"))
            check_product(&net, &img, "traffic", &skipped);
        struct prod p;
        explore_image(&img, &p);
        CHECK_EQ_U64(p.states.n, 7, "traffic: reachable states");
        CHECK_EQ_U64(distinct_edges(&p), 11, "traffic: transitions");
        CHECK_EQ_U64(p.deadlocks, 0, "traffic: deadlocks");
        prod_free(&p);
        CHECK_EQ_U64(img.n_classes, 2, "traffic: classes");
        CHECK_EQ_U64(img.words, 1, "traffic: words");
        char *txt = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&txt, &len);
        image_print_info(&img, f);
        fclose(f);
        check(strstr(txt, "light.aut:go_green * pedestrian.aut:safe -> green") != NULL &&
                  strstr(txt, "pedestrian.aut:i -> i") != NULL && strstr(txt, "light.aut: 3 states, 4 transitions") != NULL &&
                  strstr(txt, "4 bits in 1 word") != NULL,
              "traffic: image_print_info names components, rules and layout");
        free(txt);
        image_free(&img);
    }
    network_free(&net);

    /* 2 of 3: one class with three rules */
    net_new(&net, "i");
    for (int c = 0; c < 3; c++)
        add_comp(&net, "x.aut", 2, "0 a 1");
    add_rule(&net, "a", "0:a 1:a");
    add_rule(&net, "a", "0:a 2:a");
    add_rule(&net, "a", "1:a 2:a");
    network_normalise(&net);
    if (compile_ok(&net, &img, "2of3")) {
        check(img.n_classes == 1 && img.n_rules == 3, "2of3: one class, three rules (found %u, %u)",
              img.n_classes, img.n_rules);
        check_decode(&net, &img, "2of3");
        struct prod p;
        explore_image(&img, &p);
        check(p.states.n == 4 && distinct_edges(&p) == 3 && p.deadlocks == 3,
              "2of3: 4 states, 3 transitions, 3 deadlocks (found %llu, %zu, %llu)",
              (unsigned long long)p.states.n, distinct_edges(&p), (unsigned long long)p.deadlocks);
        prod_free(&p);
        image_free(&img);
    }
    network_free(&net);

    /* conflicting component labels: two classes with one result */
    net_new(&net, "i");
    add_comp(&net, "A", 2, "0 a 1; 0 c 1");
    add_comp(&net, "B", 2, "0 b 1");
    add_comp(&net, "C", 2, "0 d 1");
    add_rule(&net, "r", "0:a 1:b");
    add_rule(&net, "r", "0:c 2:d");
    network_normalise(&net);
    if (compile_ok(&net, &img, "conflict")) {
        check(img.n_classes == 2 && img.class_result[0] == img.class_result[1],
              "conflict: A uses a and c, so two classes of result r (found %u)", img.n_classes);
        if (check_decode(&net, &img, "conflict"))
            check_product(&net, &img, "conflict", &skipped);
        image_free(&img);
    }
    network_free(&net);

    /* many targets: more than one entry per (component, state, class) */
    net_new(&net, "i");
    {
        char spec[8192] = "";
        size_t at = 0;
        for (int t = 1; t <= 150; t++)
            at += (size_t)snprintf(spec + at, sizeof spec - at, "0 a %d; ", t);
        add_comp(&net, "big", 200, spec);
        add_comp(&net, "small", 2, "0 a 1");
    }
    add_rule(&net, "a", "0:a 1:a");
    add_rule(&net, "solo", "0:a");
    network_normalise(&net);
    if (compile_ok(&net, &img, "fanout")) {
        uint32_t slots = image_entry_slots(img.act_bits, img.state_bits[0]);
        CHECK_EQ_U64(img.max_class_entries, (150 + slots - 1) / slots, "fanout: entries for 150 targets, %u slots",
                     slots);
        if (check_decode(&net, &img, "fanout"))
            check_product(&net, &img, "fanout", &skipped);
        struct prod p;
        explore_image(&img, &p);
        CHECK_EQ_U64(p.states.n, 1 + 150 + 150, "fanout: states");
        prod_free(&p);
        image_free(&img);
    }
    network_free(&net);

    /* a 1-state component, no rules: one state, a deadlock */
    net_new(&net, "i");
    add_comp(&net, "one", 1, "0 a 0");
    network_normalise(&net);
    if (compile_ok(&net, &img, "one-state")) {
        check(img.first_bit[1] == 0 && img.words == 1 && img.n_entries == 0,
              "one-state: 0-bit field, 1 word, no entries (a is blocked)");
        struct prod p;
        explore_image(&img, &p);
        check(p.states.n == 1 && p.deadlocks == 1, "one-state: 1 state, 1 deadlock");
        prod_free(&p);
        image_free(&img);
    }
    network_free(&net);

    /* no components at all: the empty vector is the only state */
    net_new(&net, "i");
    if (compile_ok(&net, &img, "empty")) {
        check(img.words == 1 && img.n_entries == 0 && img.mask_words == 0, "empty network compiles");
        image_free(&img);
    }
    network_free(&net);

}

/* examples/traffic/traffic.exp through the EXP front end: the same product,
 * labels compared by text, as the hand-built network of the docs. */
static void test_traffic_exp(void)
{
    struct net_options opt;
    memset(&opt, 0, sizeof opt);
    struct network exp_net, hand_net;
    struct image exp_img, hand_img;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = network_from_exp("examples/traffic/traffic.exp", &opt, &exp_net, &err);
    if (!check(rc == WX_OK, "traffic.exp reads (%s:%d:%d: %s)", err.file, err.line, err.col, err.msg))
        return;
    traffic_network(&hand_net);
    if (compile_ok(&exp_net, &exp_img, "traffic.exp")) {
        if (check_decode(&exp_net, &exp_img, "traffic.exp") && compile_ok(&hand_net, &hand_img, "traffic")) {
            struct prod a, b;
            explore_image(&exp_img, &a);
            explore_image(&hand_img, &b);
            int mapped = 1;
            for (size_t i = 0; i < a.n_edges; i++) {
                const char *t = strtab_str(exp_img.labels, a.edges[i].label);
                uint32_t id = strtab_find(hand_img.labels, t, strlen(t));
                mapped &= id != UINT32_MAX;
                a.edges[i].label = id;
            }
            char why[200];
            check(mapped && same_product(&a, &b, 1, why, sizeof why) && exp_img.n_classes == 2 &&
                      exp_img.words == 1,
                  "traffic.exp = the documented hand-built network: same states and labelled transitions, "
                  "2 classes, 1 word %s",
                  why);
            prod_free(&a);
            prod_free(&b);
            image_free(&hand_img);
        }
        image_free(&exp_img);
    }
    network_free(&exp_net);
    network_free(&hand_net);
}

static void test_random(uint64_t seed0, int *n_fit_gpf)
{
    int skipped = 0, wide = 0, straddle = 0, one_state = 0, many_labels = 0, nondet3 = 0, two_of_three = 0;
    char tag[96];
    for (uint32_t i = 0; i < N_RANDOM; i++) {
        uint64_t seed = seed0 * 1000003u + i;
        struct network net;
        const char *pname;
        random_network(seed, &net, &pname);
        snprintf(tag, sizeof tag, "random %s seed=%llu", pname, (unsigned long long)seed);
        struct image img;
        if (!compile_ok(&net, &img, tag)) {
            network_free(&net);
            continue;
        }
        /* coverage of the features the brief asks for */
        wide += img.n_comps > 32;
        for (uint32_t c = 0; c < img.n_comps; c++) {
            if (img.first_bit[c] / 32 != (img.first_bit[c + 1] - 1) / 32 && img.first_bit[c + 1] > img.first_bit[c]) {
                straddle++;
                break;
            }
        }
        for (uint32_t c = 0; c < img.n_comps; c++)
            if (img.comp_states[c] == 1) {
                one_state++;
                break;
            }
        many_labels += img.n_labels > 100;
        for (uint32_t c = 0, found = 0; c < net.n_comps && !found; c++) {
            const struct lts *l = &net.comps[c];
            for (uint64_t x = 0; x + 2 < l->n_trans && !found; x++)
                found = l->src[x] == l->src[x + 2] && l->label[x] == l->label[x + 2];
            nondet3 += found;
        }
        for (uint32_t k = 0; k < img.n_classes; k++)
            if (img.class_rule_start[k + 1] - img.class_rule_start[k] >= 3) {
                two_of_three++;
                break;
            }
        /* a wrong image can send the explorers out of bounds: explore only
         * images that decode correctly */
        int ok = check_decode(&net, &img, tag) && check_product(&net, &img, tag, &skipped);
        if (!ok) {
            image_free(&img);
            network_free(&net);
            continue;
        }

        /* gpf round trip where GPUexplore's limits allow it */
        char path[64];
        snprintf(path, sizeof path, "tests/out/test_image_%d.gpf", (int)getpid());
        struct wx_error err;
        wx_error_clear(&err);
        int rc = gpf_write(&img, path, &err);
        if (rc == WX_OK) {
            /* GPUexplore's flag bits: fields >= 1 bit, bit 30 of int 0 never
             * set, bits 30..31 of the last int outside every field */
            size_t tl;
            char *txt = slurp(path, &tl), *q = txt;
            long hdr[5 + 33];
            int nh = 0;
            while (txt && nh < 5 + 33 && *q) {
                hdr[nh++] = strtol(q, &q, 10);
                while (*q == '\n')
                    q++;
            }
            long np = nh > 1 ? hdr[1] : 0, sv = nh > 4 ? (hdr[4] + 31) / 32 : 0, flags_ok = nh >= 6 + np;
            for (long c = 0; flags_ok && c < np; c++) {
                /* a field may span bit 30 of int 0 (the writer widens the
                 * field before a gap) as long as its values never reach it */
                long a = hdr[5 + c], b = hdr[6 + c];
                flags_ok = b > a && (a > 30 || b <= 30 || img.comp_states[c] <= (1ul << (30 - a)));
            }
            flags_ok = flags_ok && hdr[5 + np] <= 32 * sv - 2;
            check(flags_ok, "gpf %s: written vector fields avoid GPUexplore's flag bits", tag);
            free(txt);
            struct image back;
            rc = gpf_read(path, &back, &err);
            if (rc != WX_OK) {
                check(0, "gpf round trip %s: read back failed: %s:%d:%d: %s", tag, err.file, err.line, err.col,
                      err.msg);
            } else {
                struct prod a, b;
                explore_image(&img, &a);
                explore_image(&back, &b);
                char why[200];
                if (a.gave_up && b.gave_up) {
                    skipped++;
                } else {
                    int same = same_product(&a, &b, 0, why, sizeof why);
                    check(same, "gpf round trip %s: %llu states, same unlabelled graph%s%s", tag,
                          (unsigned long long)a.states.n, same ? "" : ": ", why);
                }
                prod_free(&a);
                prod_free(&b);
                image_free(&back);
                (*n_fit_gpf)++;
            }
            remove(path);
        } else {
            check(rc == WX_ELIMIT && err.msg[0],
                  "gpf write %s refused with a limit: %s", tag, err.msg);
        }
        image_free(&img);
        network_free(&net);
    }
    printf("note: seed %llu: %d random networks; %d >32 components, %d with a straddling field, %d with a "
           "1-state component, %d with >100 labels, %d with >=3 targets per label, %d with a >=3-rule class, "
           "%d skipped (too large)\n",
           (unsigned long long)seed0, N_RANDOM, wide, straddle, one_state, many_labels, nondet3, two_of_three,
           skipped);
    check(wide >= 20 && straddle >= 20 && one_state >= 50 && many_labels >= 20 && nondet3 >= 50 &&
              two_of_three >= 20 && skipped <= N_RANDOM / 20,
          "random networks cover the required features (seed %llu)", (unsigned long long)seed0);
}

static int expect_limit(const struct network *net, const struct image_limits *lim, const char *what,
                        const char *substr)
{
    struct image img;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = lim ? image_compile_limited(net, lim, &img, &err) : image_compile(net, &img, &err);
    if (rc == WX_OK)
        image_free(&img);
    return check(rc == WX_ELIMIT && strstr(err.msg, substr) != NULL, "limit %s: WX_ELIMIT naming '%s' (rc %d: %s)",
                 what, substr, rc, err.msg);
}

static int expect_ok(const struct network *net, const struct image_limits *lim, const char *what)
{
    struct image img;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = image_compile_limited(net, lim, &img, &err);
    if (rc == WX_OK)
        image_free(&img);
    return check(rc == WX_OK, "limit %s: just within the limit compiles (rc %d: %s)", what, rc, err.msg);
}

static void test_limits(void)
{
    struct network net;
    struct image_limits lim;

    /* vector wider than IMAGE_MAX_WORDS: 2048 one-bit fields + the flag bit */
    net_new(&net, "i");
    for (int c = 0; c < 2048; c++)
        add_comp(&net, "bit", 2, "0 a 1");
    expect_limit(&net, NULL, "2048 two-state components", "IMAGE_MAX_WORDS");
    network_free(&net);
    net_new(&net, "i");
    for (int c = 0; c < 2047; c++)
        add_comp(&net, "bit", 2, "0 a 1");
    image_default_limits(&lim);
    expect_ok(&net, &lim, "2047 two-state components (64 words)");
    network_free(&net);

    /* the same boundary at one word, through the limits */
    image_default_limits(&lim);
    lim.max_words = 1;
    net_new(&net, "i");
    for (int c = 0; c < 31; c++)
        add_comp(&net, "bit", 2, "0 a 1");
    expect_ok(&net, &lim, "31 one-bit fields in 1 word");
    add_comp(&net, "bit", 2, "0 a 1");
    expect_limit(&net, &lim, "32 one-bit fields in 1 word", "words");
    network_free(&net);

    /* act_bits: 4 classes fit 2 bits, 5 do not */
    image_default_limits(&lim);
    lim.max_act_bits = 2;
    net_new(&net, "i");
    add_comp(&net, "A", 2, "0 a 1");
    add_comp(&net, "B", 2, "0 a 1");
    for (int k = 0; k < 4; k++) {
        char r[16];
        snprintf(r, sizeof r, "r%d", k);
        add_rule(&net, r, "0:a 1:a");
    }
    network_normalise(&net);
    expect_ok(&net, &lim, "4 classes in 2 label bits");
    add_rule(&net, "r4", "0:a 1:a");
    network_normalise(&net);
    expect_limit(&net, &lim, "5 classes in 2 label bits", "IMAGE_MAX_ACT_BITS");
    network_free(&net);
    /* local result ids count too */
    net_new(&net, "i");
    add_comp(&net, "A", 2, "0 a 1");
    lab(&net, "x1"), lab(&net, "x2"), lab(&net, "x3");
    add_rule(&net, "x4", "0:a");
    network_normalise(&net);
    expect_limit(&net, &lim, "local result label id 5 in 2 label bits", "largest local result label id 5");
    network_free(&net);

    /* entries */
    image_default_limits(&lim);
    lim.max_entries = 3;
    net_new(&net, "i");
    add_comp(&net, "A", 4, "0 a 1; 1 a 2; 2 a 3");
    add_rule(&net, "a", "0:a");
    network_normalise(&net);
    expect_ok(&net, &lim, "3 entries");
    network_free(&net);
    net_new(&net, "i");
    add_comp(&net, "A", 5, "0 a 1; 1 a 2; 2 a 3; 3 a 4");
    add_rule(&net, "a", "0:a");
    network_normalise(&net);
    expect_limit(&net, &lim, "4 entries with max 3", "transition entries");
    network_free(&net);

    /* rule-mask words */
    image_default_limits(&lim);
    lim.max_rule_words = 2;
    net_new(&net, "i");
    add_comp(&net, "A", 2, "0 a 1; 0 b 1; 0 c 1");
    add_comp(&net, "B", 2, "0 a 1");
    add_rule(&net, "r", "0:a 1:a");
    add_rule(&net, "s", "0:b 1:a");
    network_normalise(&net);
    expect_ok(&net, &lim, "2 rule words");
    add_rule(&net, "t", "0:c 1:a");
    network_normalise(&net);
    expect_limit(&net, &lim, "3 rule words with max 2", "rule-mask words");
    network_free(&net);

    /* component state counts beyond the image's 31-bit state ids, and state
     * offsets beyond 32 bits: checked before any transition is read, so fake
     * components without arrays are enough */
    net_new(&net, "i");
    {
        struct lts fake;
        memset(&fake, 0, sizeof fake);
        fake.n_states = 0x80000000u;
        network_add_comp(&net, &fake, "huge");
    }
    expect_limit(&net, NULL, "component with 2^31 states", "LTS_MAX_STATES");
    net.comps[0].n_states = 0x7fffffffu;
    {
        struct lts fake;
        memset(&fake, 0, sizeof fake);
        fake.n_states = 0x7fffffffu;
        network_add_comp(&net, &fake, "huge2");
    }
    expect_limit(&net, NULL, "two components of 2^31-1 states", "state offsets are 32-bit");
    for (uint32_t c = 0; c < net.n_comps; c++)
        net.comps[c].n_states = 0; /* nothing was allocated: keep lts_free happy */
    network_free(&net);

    /* malformed networks are input errors, not crashes */
    net_new(&net, "i");
    add_comp(&net, "A", 2, "0 a 1");
    add_comp(&net, "B", 2, "0 a 1");
    add_rule(&net, "a", "0:a 1:a");
    net.part_comp[0] = 1; /* now 1, 1: not strictly ascending */
    {
        struct image img;
        struct wx_error err;
        int rc = image_compile(&net, &img, &err);
        check(rc == WX_EINPUT && strstr(err.msg, "ascending"), "malformed rule rejected: %s", err.msg);
    }
    net.part_comp[0] = 0;
    net.rule_start[1] = 0; /* rule 0 now has no participants */
    {
        struct image img;
        struct wx_error err;
        int rc = image_compile(&net, &img, &err);
        check(rc == WX_EINPUT && strstr(err.msg, "no participants"), "empty rule rejected: %s", err.msg);
    }
    net.rule_start[1] = 2;
    network_free(&net);

    /* GPUexplore limits, on writing */
    char path[64];
    snprintf(path, sizeof path, "tests/out/test_image_lim_%d.gpf", (int)getpid());
    struct image img;
    struct wx_error err;
    net_new(&net, "i");
    for (int c = 0; c < 32; c++)
        add_comp(&net, "p", 2, "0 a 1");
    if (compile_ok(&net, &img, "32 comps")) {
        int rc = gpf_write(&img, path, &err);
        check(rc == WX_ELIMIT && strstr(err.msg, "at most 31 processes") && access(path, F_OK) != 0,
              "gpf limit: 32 processes refused, no file left (%s)", err.msg);
        image_free(&img);
    }
    network_free(&net);
    net_new(&net, "i");
    for (int c = 0; c < 31; c++) /* 31 fields of 11 bits: 341 + 2 bits > 9 ints */
        add_comp(&net, "p", 2048, "0 a 1");
    if (compile_ok(&net, &img, "wide vector")) {
        int rc = gpf_write(&img, path, &err);
        check(rc == WX_ELIMIT && strstr(err.msg, "MAX_SIZE"), "gpf limit: 11 ints refused (%s)", err.msg);
        image_free(&img);
    }
    network_free(&net);
    net_new(&net, "i");
    add_comp(&net, "big", 1u << 20, "0 a 1");
    add_comp(&net, "B", 2, "0 a 1");
    for (int k = 0; k < 1025; k++) { /* 1025 classes: 11 label bits + 21 slot bits > 31 */
        char r[16];
        snprintf(r, sizeof r, "r%d", k);
        add_rule(&net, r, "0:a 1:a");
    }
    network_normalise(&net);
    if (compile_ok(&net, &img, "act+state")) {
        int rc = gpf_write(&img, path, &err);
        check(rc == WX_ELIMIT && strstr(err.msg, "31 bits of a GPUexplore entry"),
              "gpf limit: bits_act + bits_state > 31 refused (%s)", err.msg);
        image_free(&img);
    }
    network_free(&net);
    remove(path);
}

/* The two-process example encoded by hand from the format notes (§3.1), not
 * by our writer:
 *   p0: 2 states, 0 -a-> 1 (sync label 0), 1 -local-> 0
 *   p1: 3 states, 0 -a-> 1 (sync label 0), 1 -local-> 2, 2 -local-> 0
 *   rule for label 0: {p0, p1}
 * Vector: p0 bit 0, p1 bits 1..2.  Entries (bits_act 1, 2-bit slots, 15
 * slots): sync a->1 = 1 | 0<<1 | (1+1)<<2 = 9; local ->0 = 1<<2 = 4;
 * local ->2 = 3<<2 = 12.  Offsets (3 bits, 10 per word): p0 {0,1,2} =
 * 0 | 1<<3 | 2<<6 = 136; p1 {2,3,4,5} = 2 | 3<<3 | 4<<6 | 5<<9 = 2842.
 * Rules: one word holding mask 0b11; offsets {0,1} at 1 bit: 0 | 1<<1 = 2.
 * Product: 6 states (all pairs except none: (0,0) (1,1) (0,1) (1,2) (0,2)
 * (1,0)), no deadlock. */
static const char hand_gpf[] =
    "0\n2\n1\n15\n5\n"     /* liveness, nr_procs, bits_act, proc_nrstates, bits_statevector */
    "0\n1\n3\n"            /* firstbit */
    "2\n2\n"               /* bits_state */
    "3\n1\n"               /* nbits_offset, max_buf_ints */
    "0\n1\n2\n"            /* proc_offsets_start */
    "136\n2842\n"          /* proc_offsets */
    "5\n9\n4\n9\n12\n4\n"  /* nr_trans, entries */
    "1\n1\n2\n"            /* nbits_syncbits_offset, nr_syncbits_offsets, offsets */
    "1\n3\n";              /* nr_syncbits, rules */

static void hand_gpf_network(struct network *net)
{
    net_new(net, "i");
    add_comp(net, "p0", 2, "0 a 1; 1 x 0");
    add_comp(net, "p1", 3, "0 a 1; 1 y 2; 2 y 0");
    add_rule(net, "a", "0:a 1:a");
    add_rule(net, "x", "0:x");
    add_rule(net, "y", "1:y");
    network_normalise(net);
}

static void test_gpf_hand(void)
{
    struct image img;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = gpf_parse(hand_gpf, sizeof hand_gpf - 1, "hand.gpf", &img, &err);
    check(rc == WX_OK, "gpf hand-encoded file reads (%s:%d:%d: %s)", err.file, err.line, err.col, err.msg);
    if (rc == WX_OK) {
        struct prod p;
        explore_image(&img, &p);
        check(p.states.n == 6 && p.deadlocks == 0 && img.n_comps == 2 && img.comp_states[0] == 2 &&
                  img.comp_states[1] == 3,
              "gpf hand-encoded file: 6 states, no deadlock, 2 and 3 process states (found %llu, %llu)",
              (unsigned long long)p.states.n, (unsigned long long)p.deadlocks);
        /* and the same graph as the network it encodes */
        struct network net;
        struct image ref;
        hand_gpf_network(&net);
        if (compile_ok(&net, &ref, "hand network")) {
            struct prod q;
            explore_image(&ref, &q);
            char why[200];
            check(same_product(&p, &q, 0, why, sizeof why), "gpf hand-encoded file = its network, unlabelled %s",
                  why);
            prod_free(&q);
            /* our writer, from the network, produces exactly the hand encoding */
            char path[64];
            snprintf(path, sizeof path, "tests/out/test_image_hand_%d.gpf", (int)getpid());
            rc = gpf_write(&ref, path, &err);
            size_t len = 0;
            char *txt = rc == WX_OK ? slurp(path, &len) : NULL;
            check(txt && len == sizeof hand_gpf - 1 && memcmp(txt, hand_gpf, len) == 0,
                  "gpf writer reproduces the hand encoding byte for byte");
            free(txt);
            remove(path);
            image_free(&ref);
        }
        network_free(&net);
        prod_free(&p);
        /* CR LF line ends, blanks around numbers and a missing final LF are fine */
        {
            char crlf[1024];
            size_t n = 0;
            for (const char *q = hand_gpf; *q; q++) {
                if (*q == '\n' && q[1] != '\0')
                    crlf[n++] = ' ', crlf[n++] = '\r';
                if (*q != '\n' || q[1] != '\0')
                    crlf[n++] = *q;
            }
            struct image img2;
            rc = gpf_parse(crlf, n, "crlf.gpf", &img2, &err);
            check(rc == WX_OK, "gpf: CR LF, trailing blanks and no final newline accepted (%s)", err.msg);
            if (rc == WX_OK)
                image_free(&img2);
        }
        /* labels are the documented synthetic ones */
        check(strtab_find(img.labels, "local", 5) != UINT32_MAX && strtab_find(img.labels, "L0", 2) != UINT32_MAX &&
                  img.hidden == UINT32_MAX,
              "gpf labels: local and L0, nothing hidden");
        image_free(&img);
    }
    /* the traffic example's .gpf is regenerated exactly (regression) */
    struct network net;
    traffic_network(&net);
    if (compile_ok(&net, &img, "traffic for gpf")) {
        char path[64];
        snprintf(path, sizeof path, "tests/out/test_image_traffic_%d.gpf", (int)getpid());
        rc = gpf_write(&img, path, &err);
        size_t la = 0, lb = 0;
        char *a = rc == WX_OK ? slurp(path, &la) : NULL, *b = slurp("examples/traffic/traffic.gpf", &lb);
        check(a && b && la == lb && memcmp(a, b, la) == 0, "gpf: examples/traffic/traffic.gpf is what the writer "
                                                           "produces for the traffic network");
        free(a), free(b);
        remove(path);
        struct image back;
        rc = gpf_read("examples/traffic/traffic.gpf", &back, &err);
        if (check(rc == WX_OK, "gpf: examples/traffic/traffic.gpf reads (%s)", err.msg)) {
            struct prod p;
            explore_image(&back, &p);
            CHECK_EQ_U64(p.states.n, 7, "gpf: traffic.gpf states");
            prod_free(&p);
            image_free(&back);
        }
        image_free(&img);
    }
    network_free(&net);
}

/* The bundled example networks (examples/counts.tsv, counts known
 * independently of warpex): compiled images explored by explore_seq give the
 * listed counts, and after image -> .gpf -> image the same state count. */
static void test_gpf_examples(void)
{
    size_t len;
    char *tsv = slurp("examples/counts.tsv", &len);
    if (!check(tsv != NULL, "examples/counts.tsv exists"))
        return;
    char path[64];
    snprintf(path, sizeof path, "tests/out/test_image_ex_%d.gpf", (int)getpid());
    int n = 0;
    for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
        char fam[64], params[64], file[256];
        unsigned long long st, tr, dl;
        if (sscanf(line, "%63s %63s %255s %llu %llu %llu", fam, params, file, &st, &tr, &dl) != 6 ||
            strstr(file, "examples/large/") || st > 60000)
            continue;
        struct net_options opt;
        memset(&opt, 0, sizeof opt);
        struct network net;
        struct image img, back;
        struct wx_error err;
        if (!check(network_from_exp(file, &opt, &net, &err) == WX_OK, "example %s reads (%s)", file, err.msg))
            continue;
        int rc = image_compile(&net, &img, &err);
        network_free(&net);
        if (!check(rc == WX_OK, "example %s compiles (%s)", file, err.msg))
            continue;
        struct explore_options eo;
        memset(&eo, 0, sizeof eo);
        struct explore_result r, r2;
        memset(&r, 0, sizeof r);
        memset(&r2, 0, sizeof r2);
        rc = explore_seq(&img, &eo, &r, &err);
        check(rc == WX_OK && r.states == st && r.transitions == tr && r.deadlocks == dl,
              "example %s: explore_seq on the image gives counts.tsv's %llu/%llu/%llu (found %llu/%llu/%llu)", file,
              st, tr, dl, (unsigned long long)r.states, (unsigned long long)r.transitions,
              (unsigned long long)r.deadlocks);
        rc = gpf_write(&img, path, &err);
        if (rc == WX_OK && (rc = gpf_read(path, &back, &err)) == WX_OK) {
            rc = explore_seq(&back, &eo, &r2, &err);
            image_free(&back);
        }
        check(rc == WX_OK && r2.states == st, "example %s: image -> .gpf -> image keeps %llu states (%llu; %s)",
              file, st, (unsigned long long)r2.states, err.msg);
        explore_result_free(&r);
        explore_result_free(&r2);
        image_free(&img);
        n++;
    }
    remove(path);
    free(tsv);
    check(n >= 20, "examples checked through .gpf: %d", n);
}

/* tests/bad/gpf/EXPECT: "file line col substring..." per line; every .gpf in
 * the folder must be listed. */
static void test_gpf_bad(void)
{
    size_t len;
    char *manifest = slurp("tests/bad/gpf/EXPECT", &len);
    if (!check(manifest != NULL, "tests/bad/gpf/EXPECT exists"))
        return;
    int n = 0;
    char listed[8192] = " ";
    for (char *line = strtok(manifest, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char file[128];
        int eline, ecol, used = 0;
        if (sscanf(line, "%127s %d %d %n", file, &eline, &ecol, &used) < 3) {
            check(0, "EXPECT line unreadable: %s", line);
            continue;
        }
        const char *sub = line + used;
        char path[256];
        snprintf(path, sizeof path, "tests/bad/gpf/%s", file);
        strncat(listed, file, sizeof listed - strlen(listed) - 2);
        strcat(listed, " ");
        struct image img;
        struct wx_error err;
        wx_error_clear(&err);
        int rc = gpf_read(path, &img, &err);
        if (rc == WX_OK)
            image_free(&img);
        check(rc == WX_EINPUT && err.line == eline && err.col == ecol && strstr(err.msg, sub) != NULL &&
                  strcmp(err.file, path) == 0,
              "bad gpf %s: expected %d:%d '%s', found rc %d %s:%d:%d: %s", file, eline, ecol, sub, rc, err.file,
              err.line, err.col, err.msg);
        n++;
    }
    free(manifest);
    check(n >= 15, "at least 15 malformed .gpf files (%d)", n);
    /* every file in the folder is in the manifest */
    FILE *ls = popen("ls tests/bad/gpf", "r");
    char name[256];
    int unlisted = 0;
    while (ls && fgets(name, sizeof name, ls)) {
        name[strcspn(name, "\n")] = '\0';
        if (strcmp(name, "EXPECT") == 0)
            continue;
        char key[260];
        snprintf(key, sizeof key, " %s ", name);
        if (!strstr(listed, key)) {
            printf("note: %s is not in EXPECT\n", name);
            unlisted++;
        }
    }
    if (ls)
        pclose(ls);
    check(unlisted == 0, "every file in tests/bad/gpf is listed in EXPECT");
}

/* Mutated files: the reader returns OK or WX_EINPUT, never crashes, and an
 * accepted file gives an image that can be explored. */
static void test_gpf_fuzz(uint64_t seed0)
{
    struct network net;
    struct image img;
    struct wx_error err;
    char path[64];
    snprintf(path, sizeof path, "tests/out/test_image_fuzz_%d.gpf", (int)getpid());
    /* base texts: the hand file and the traffic file */
    char *base[2];
    size_t blen[2];
    base[0] = xmalloc(sizeof hand_gpf);
    memcpy(base[0], hand_gpf, sizeof hand_gpf);
    blen[0] = sizeof hand_gpf - 1;
    traffic_network(&net);
    base[1] = NULL;
    if (compile_ok(&net, &img, "fuzz base") && gpf_write(&img, path, &err) == WX_OK)
        base[1] = slurp(path, &blen[1]);
    image_free(&img);
    network_free(&net);
    remove(path);
    if (!base[1]) {
        check(0, "fuzz: no base text");
        free(base[0]);
        return;
    }
    rng = seed0 ^ 0xf00dull;
    int accepted = 0, rejected = 0, other = 0;
    for (int it = 0; it < 3000; it++) {
        int which = it & 1;
        size_t n = blen[which];
        char *t = xmalloc(n + 64);
        memcpy(t, base[which], n);
        int muts = 1 + (int)rn(3);
        for (int m = 0; m < muts; m++) {
            /* find line boundaries */
            size_t pos = n ? rn((uint32_t)n) : 0;
            switch (rn(6)) {
            case 0: /* change a digit */
                if (n && t[pos] >= '0' && t[pos] <= '9')
                    t[pos] = (char)('0' + rn(10));
                break;
            case 1: /* truncate */
                n = pos;
                break;
            case 2: { /* delete a line */
                size_t a = pos, b = pos;
                while (a > 0 && t[a - 1] != '\n')
                    a--;
                while (b < n && t[b] != '\n')
                    b++;
                if (b < n)
                    b++;
                memmove(t + a, t + b, n - b);
                n -= b - a;
                break;
            }
            case 3: /* insert a random byte */
                if (n < blen[which] + 60) {
                    memmove(t + pos + 1, t + pos, n - pos);
                    t[pos] = (char)rn(256);
                    n++;
                }
                break;
            case 4: { /* replace a line by a random number */
                size_t a = pos, b = pos;
                while (a > 0 && t[a - 1] != '\n')
                    a--;
                while (b < n && t[b] != '\n')
                    b++;
                char num[24];
                int k = snprintf(num, sizeof num, "%d", (int)(rnd() >> (rn(40) + 24)) - (int)rn(3));
                if (n - (b - a) + (size_t)k < blen[which] + 60) {
                    memmove(t + a + k, t + b, n - b);
                    memcpy(t + a, num, (size_t)k);
                    n = n - (b - a) + (size_t)k;
                }
                break;
            }
            default: /* flip a bit of a number */
                if (n && t[pos] >= '0' && t[pos] <= '9')
                    t[pos] = (char)('0' + ((t[pos] - '0') ^ (1 << rn(3))) % 10);
                break;
            }
        }
        struct image g;
        wx_error_clear(&err);
        int rc = gpf_parse(t, n, "fuzz.gpf", &g, &err);
        if (rc == WX_OK) {
            accepted++;
            char buf[256];
            const char *bad = check_layout(&g, buf, sizeof buf);
            if (bad) {
                check(0, "fuzz %d (seed %llu): accepted file gives a bad image: %s", it, (unsigned long long)seed0,
                      bad);
                other++;
            }
            struct prod p;
            explore_image(&g, &p);
            prod_free(&p);
            image_free(&g);
        } else if (rc == WX_EINPUT && err.line > 0) {
            rejected++;
        } else {
            other++;
            check(0, "fuzz %d: rc %d without a line: %s", it, rc, err.msg);
        }
        free(t);
    }
    free(base[0]), free(base[1]);
    check(other == 0 && rejected > 1000, "fuzz (seed %llu): 3000 mutated .gpf files, %d accepted, %d rejected with "
                                         "a location, none crashed",
          (unsigned long long)seed0, accepted, rejected);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--traffic") == 0)
        return print_traffic();
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : DEFAULT_SEED;
    if (system("mkdir -p tests/out") != 0)
        die("mkdir tests/out");
    printf("note: seed %llu (run bin/tests/test_image SEED to repeat)\n", (unsigned long long)seed);
    test_hand_made();
    test_traffic_exp();
    test_limits();
    int fit = 0;
    test_random(seed, &fit);
    check(fit >= 150, "gpf round trip ran on %d random networks (>= 150)", fit);
    test_gpf_hand();
    test_gpf_examples();
    test_gpf_bad();
    test_gpf_fuzz(seed);
    return check_exit();
}
