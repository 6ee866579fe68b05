/*
 * oracle.c -- the reference explorers of test_image.c: a
 * bounded BFS over a successor function that reads only the network or
 * only the image, and the canonical comparison of two explorations.
 *
 * Part of test_image.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

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
