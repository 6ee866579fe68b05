/*
 * gpu_ref.h -- what the GPU tests compare against: a random image
 * generator (struct image built directly, following network/image.h) and a
 * deliberately plain reference explorer over the image semantics, written
 * independently of kernels/ (different structure: classes visited by rule,
 * successors collected then sorted and uniqued).
 *
 * Header-only (static functions) so that both GPU test programs can include
 * it; host C11.
 */
#ifndef WX_GPU_REF_H
#define WX_GPU_REF_H

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../network/image.h"
#ifndef NO_FRONTEND
#include "../../parser/network_build.h"

/* The image of a network file (.exp or .aut) with the default options; the
 * network itself is freed.  Returns the front end's status (err set). */
static int ref_image_from_file(const char *path, struct image *img, struct wx_error *err)
{
    struct network net;
    struct net_options no;
    memset(&no, 0, sizeof no);
    wx_error_clear(err);
    int rc = network_from_file(path, &no, &net, err);
    if (rc != WX_OK)
        return rc;
    rc = image_compile(&net, img, err);
    network_free(&net);
    return rc;
}
#endif

/* ---- random numbers (splitmix64) ---- */
struct rng {
    uint64_t s;
};

static uint64_t rnd64(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rndu(struct rng *r, uint32_t n)
{
    return n ? (uint32_t)(rnd64(r) % n) : 0;
}

static uint32_t bits_for(uint64_t maxval)
{
    uint32_t b = 0;
    while (b < 64 && (maxval >> b))
        b++;
    return b;
}

/* ---- image building ---- */

struct gen_params {
    uint32_t comps_min, comps_max;
    uint32_t states_max;      /* states per component, 1..states_max */
    uint32_t one_state_comps; /* extra components with a single state */
    uint32_t n_labels;        /* result labels */
    uint32_t n_classes;
    uint32_t local_max;       /* local transitions per state, 0..local_max */
    uint32_t sync_max;        /* targets per (state, class), 1..sync_max */
    uint32_t sync_pct;        /* chance (%) that a state offers a class */
    uint32_t dup_pct;         /* chance (%) of a duplicated target */
    uint32_t split_pct;       /* chance (%) of a partial (split) entry */
    uint32_t extra_width;     /* up to this many extra bits per field */
    uint32_t wide_fields;     /* 1: fields of 24..32 bits (wide vectors) */
    uint32_t full_last;       /* 1: pack the last word up to bit 30,
                                 2: up to bit 31 (forces an extra control word) */
    uint64_t product_max;     /* bound on the product of component sizes */
    uint32_t cycle;           /* 1: each ordinary component also has a local
                                 cycle 0 -> 1 -> ... -> 0 (all states reachable) */
};

struct tlist {
    uint32_t n, cap;
    uint32_t *t;
};

static void tl_add(struct tlist *l, uint32_t t)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->t = (uint32_t *)realloc(l->t, l->cap * sizeof *l->t);
        if (!l->t)
            abort();
    }
    l->t[l->n++] = t;
}

struct ebuf {
    uint64_t *e;
    uint32_t n, cap;
};

static void eb_add(struct ebuf *b, uint64_t e)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->e = (uint64_t *)realloc(b->e, b->cap * sizeof *b->e);
        if (!b->e)
            abort();
    }
    b->e[b->n++] = e;
}

/* Packs targets (one label) into entries, randomly leaving entries partial. */
static void pack_entries(struct ebuf *b, struct rng *r, const struct gen_params *gp, uint32_t sync,
                         uint32_t label, const uint32_t *t, uint32_t nt, uint32_t act_bits, uint32_t sb)
{
    const uint32_t slots = image_entry_slots(act_bits, sb);
    uint32_t i = 0;
    while (i < nt) {
        uint32_t take = nt - i < slots ? nt - i : slots;
        if (take > 1 && rndu(r, 100) < gp->split_pct)
            take = 1 + rndu(r, take - 1);
        uint64_t e = (uint64_t)sync | ((uint64_t)label << 1);
        for (uint32_t k = 0; k < take; k++)
            e |= (uint64_t)(t[i + k] + 1) << (1 + act_bits + k * sb);
        eb_add(b, e);
        i += take;
    }
}

/* Builds a random image; see gen_params.  Aborts on OOM (test code). */
static void img_random(struct image *img, struct rng *r, const struct gen_params *gp)
{
    memset(img, 0, sizeof *img);
    uint32_t nmain = gp->comps_min + rndu(r, gp->comps_max - gp->comps_min + 1);
    uint32_t nfix = nmain + gp->one_state_comps;
    /* widths of the ordinary components */
    uint32_t *states = (uint32_t *)calloc(nfix + 64, 4);
    uint32_t *width = (uint32_t *)calloc(nfix + 64, 4);
    uint64_t prod = 1;
    uint32_t total = 0;
    for (uint32_t c = 0; c < nfix; c++) {
        uint32_t s = c < nmain ? 1 + rndu(r, gp->states_max) : 1;
        while (s > 1 && prod * s > gp->product_max)
            s--;
        prod *= s;
        states[c] = s;
        uint32_t w = bits_for(s - 1);
        if (gp->wide_fields)
            w = 24 + rndu(r, 9);
        else if (gp->extra_width)
            w += rndu(r, gp->extra_width + 1);
        if (w > 32)
            w = 32;
        width[c] = w;
        total += w;
    }
    /* padding: one-bit, two-state components that fill a fresh last word up
     * to bit 30 (full_last 1) or 31 (full_last 2), so the last word can be
     * all ones and the table needs an extra control word */
    uint32_t npad = 0;
    if (gp->full_last) {
        const uint32_t w0 = (total + 31) / 32 + 1;
        const uint32_t target = gp->full_last == 1 ? 32 * w0 - 1 : 32 * w0;
        npad = target - total;
        for (uint32_t i = 0; i < npad; i++) {
            states[nfix + i] = 2;
            width[nfix + i] = 1;
        }
        total = target;
    }
    const uint32_t n = nfix + npad;
    img->n_comps = n;
    img->comp_states = states;
    img->first_bit = (uint32_t *)calloc(n + 1, 4);
    for (uint32_t c = 0; c < n; c++)
        img->first_bit[c + 1] = img->first_bit[c] + width[c];
    free(width);
    uint32_t words = gp->full_last == 2 ? total / 32 : (total + 1 + 31) / 32;
    img->words = words ? words : 1;

    /* labels, classes, rules */
    img->n_labels = gp->n_labels ? gp->n_labels : 1;
    img->n_classes = n >= 2 ? gp->n_classes : 0;
    const uint32_t maxid = img->n_labels > img->n_classes ? img->n_labels : img->n_classes;
    img->act_bits = bits_for(maxid - 1 ? maxid - 1 : 1) + rndu(r, 3);
    if (img->act_bits > 31)
        img->act_bits = 31;
    img->mask_words = (n + 31) / 32;
    img->hidden = 0xffffffffu;
    img->class_result = (uint32_t *)calloc(img->n_classes ? img->n_classes : 1, 4);
    img->class_rule_start = (uint32_t *)calloc(img->n_classes + 1, 4);
    uint32_t mw = img->mask_words ? img->mask_words : 1;
    uint32_t *part = (uint32_t *)calloc((size_t)(img->n_classes ? img->n_classes : 1) * mw, 4);
    uint32_t nrules = 0, rcap = 16;
    img->rule_mask = (uint32_t *)calloc((size_t)rcap * mw, 4);
    for (uint32_t k = 0; k < img->n_classes; k++) {
        img->class_result[k] = rndu(r, img->n_labels);
        uint32_t np = 2 + rndu(r, (n < 5 ? n : 5) - 1);
        uint32_t chosen[5], nc = 0;
        while (nc < np) {
            uint32_t c = rndu(r, n);
            int dup = 0;
            for (uint32_t i = 0; i < nc; i++)
                dup |= chosen[i] == c;
            if (!dup)
                chosen[nc++] = c;
        }
        for (uint32_t i = 0; i < nc; i++)
            part[(size_t)k * mw + chosen[i] / 32] |= 1u << (chosen[i] % 32);
        img->class_rule_start[k] = nrules;
        uint32_t nr = 1 + rndu(r, 3);
        for (uint32_t j = 0; j < nr; j++) {
            /* a subset of the participants with >= 2 members (all of them
             * for the first rule) */
            uint32_t m[8] = {0};
            uint32_t cnt = 0;
            for (uint32_t i = 0; i < nc; i++)
                if (j == 0 || rndu(r, 2)) {
                    m[chosen[i] / 32] |= 1u << (chosen[i] % 32);
                    cnt++;
                }
            if (cnt < 2)
                continue;
            int same = 0;
            for (uint32_t q = img->class_rule_start[k]; q < nrules; q++) {
                int eq = 1;
                for (uint32_t w = 0; w < mw; w++)
                    eq &= img->rule_mask[(size_t)q * mw + w] == (w < 8 ? m[w] : 0);
                same |= eq;
            }
            if (same)
                continue;
            if (nrules == rcap) {
                rcap *= 2;
                img->rule_mask = (uint32_t *)realloc(img->rule_mask, (size_t)rcap * mw * 4);
            }
            for (uint32_t w = 0; w < mw; w++)
                img->rule_mask[(size_t)nrules * mw + w] = w < 8 ? m[w] : 0;
            nrules++;
        }
    }
    img->class_rule_start[img->n_classes] = nrules;
    img->n_rules = nrules;

    /* transitions */
    img->state_bits = (uint32_t *)calloc(n ? n : 1, 4);
    img->proc_offsets = (uint32_t *)calloc(n + 1, 4);
    for (uint32_t c = 0; c < n; c++) {
        uint32_t sb = bits_for(img->comp_states[c]) + rndu(r, 3);
        if (sb > 63 - img->act_bits)
            sb = 63 - img->act_bits;
        img->state_bits[c] = sb;
        img->proc_offsets[c + 1] = img->proc_offsets[c] + img->comp_states[c] + 1;
    }
    img->state_offsets = (uint32_t *)calloc(img->proc_offsets[n] ? img->proc_offsets[n] : 1, 4);
    struct ebuf eb = {0};
    struct tlist tl = {0};
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t ns = img->comp_states[c], sb = img->state_bits[c];
        for (uint32_t s = 0; s < ns; s++) {
            img->state_offsets[img->proc_offsets[c] + s] = eb.n;
            /* local: a few labels, each with a few targets (padding
             * components: only the first four, and rarely) */
            uint32_t nl = rndu(r, gp->local_max + 1);
            if (c >= nfix)
                nl = c < nfix + 4 && rndu(r, 100) < 20 ? 1 : 0;
            if (gp->cycle && c < nmain && ns > 1) {
                uint32_t t = (s + 1) % ns;
                pack_entries(&eb, r, gp, 0, rndu(r, img->n_labels), &t, 1, img->act_bits, sb);
            }
            for (uint32_t i = 0; i < nl; i++) {
                uint32_t lab = rndu(r, img->n_labels);
                tl.n = 0;
                uint32_t nt = 1 + rndu(r, 2);
                for (uint32_t j = 0; j < nt; j++) {
                    tl_add(&tl, rndu(r, ns));
                    if (rndu(r, 100) < gp->dup_pct)
                        tl_add(&tl, tl.t[tl.n - 1]);
                }
                pack_entries(&eb, r, gp, 0, lab, tl.t, tl.n, img->act_bits, sb);
            }
            for (uint32_t k = 0; k < img->n_classes; k++) {
                if (!(part[(size_t)k * mw + c / 32] >> (c % 32) & 1))
                    continue;
                if (rndu(r, 100) >= gp->sync_pct || c >= nfix + 4)
                    continue;
                tl.n = 0;
                uint32_t nt = 1 + rndu(r, gp->sync_max);
                for (uint32_t j = 0; j < nt; j++) {
                    tl_add(&tl, rndu(r, ns));
                    if (rndu(r, 100) < gp->dup_pct)
                        tl_add(&tl, tl.t[tl.n - 1]);
                }
                pack_entries(&eb, r, gp, 1, k, tl.t, tl.n, img->act_bits, sb);
            }
        }
        img->state_offsets[img->proc_offsets[c] + ns] = eb.n;
    }
    img->trans = eb.e ? eb.e : (uint64_t *)calloc(1, 8);
    img->n_entries = eb.n;
    /* max_class_entries (informative) */
    img->max_class_entries = 0;
    free(tl.t);
    free(part);
}

/* ---- reference explorer ---- */

struct vset { /* open addressing set of vectors, ids in insertion order */
    uint32_t words;
    uint64_t n, cap; /* cap: power of two */
    uint64_t *slot;  /* id + 1, 0 = empty */
    uint32_t *vec;   /* n * words */
    uint64_t vcap;
};

static uint64_t vhash(const uint32_t *v, uint32_t w)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < w; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static void vs_init(struct vset *s, uint32_t words)
{
    memset(s, 0, sizeof *s);
    s->words = words;
    s->cap = 1024;
    s->slot = (uint64_t *)calloc(s->cap, 8);
    s->vcap = 1024;
    s->vec = (uint32_t *)malloc(s->vcap * words * 4);
}

static void vs_free(struct vset *s)
{
    free(s->slot);
    free(s->vec);
}

/* id of v, or UINT64_MAX */
static uint64_t vs_find(const struct vset *s, const uint32_t *v)
{
    for (uint64_t i = vhash(v, s->words) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->slot[i])
            return UINT64_MAX;
        uint64_t id = s->slot[i] - 1;
        if (!memcmp(s->vec + id * s->words, v, s->words * 4))
            return id;
    }
}

/* inserts; returns id, *added = 1 when new */
static uint64_t vs_put(struct vset *s, const uint32_t *v, int *added)
{
    uint64_t id = vs_find(s, v);
    *added = 0;
    if (id != UINT64_MAX)
        return id;
    if (2 * (s->n + 1) > s->cap) {
        uint64_t nc = s->cap * 2;
        uint64_t *ns = (uint64_t *)calloc(nc, 8);
        for (uint64_t j = 0; j < s->n; j++) {
            uint64_t i = vhash(s->vec + j * s->words, s->words) & (nc - 1);
            while (ns[i])
                i = (i + 1) & (nc - 1);
            ns[i] = j + 1;
        }
        free(s->slot);
        s->slot = ns;
        s->cap = nc;
    }
    if (s->n == s->vcap) {
        s->vcap *= 2;
        s->vec = (uint32_t *)realloc(s->vec, s->vcap * s->words * 4);
        if (!s->vec)
            abort();
    }
    memcpy(s->vec + s->n * s->words, v, s->words * 4);
    uint64_t i = vhash(v, s->words) & (s->cap - 1);
    while (s->slot[i])
        i = (i + 1) & (s->cap - 1);
    s->slot[i] = s->n + 1;
    *added = 1;
    return s->n++;
}

/* successors: records of 1 + words (label, vector) */
struct succs {
    uint32_t words, n, cap;
    uint32_t *rec;
};

static void sc_add(struct succs *o, uint32_t label, const uint32_t *v)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->rec = (uint32_t *)realloc(o->rec, (size_t)o->cap * (1 + o->words) * 4);
        if (!o->rec)
            abort();
    }
    uint32_t *r = o->rec + (size_t)o->n * (1 + o->words);
    r[0] = label;
    memcpy(r + 1, v, o->words * 4);
    o->n++;
}

static uint32_t g_sort_words;
static int rec_cmp(const void *a, const void *b)
{
    return memcmp(a, b, (1 + g_sort_words) * 4);
}

/* Sorts o's records and drops repeats. */
static void sc_sort_unique(struct succs *o)
{
    const uint32_t W = o->words;
    if (o->n < 2)
        return;
    g_sort_words = W;
    qsort(o->rec, o->n, (1 + W) * 4, rec_cmp);
    uint32_t m = 1;
    for (uint32_t i = 1; i < o->n; i++)
        if (memcmp(o->rec + (size_t)i * (1 + W), o->rec + (size_t)(m - 1) * (1 + W), (1 + W) * 4))
            memcpy(o->rec + (size_t)m++ * (1 + W), o->rec + (size_t)i * (1 + W), (1 + W) * 4);
    o->n = m;
}

/* Targets of component c in local state s for class k (sync) */
static void class_targets(const struct image *img, uint32_t c, uint32_t s, uint32_t k, struct tlist *out)
{
    out->n = 0;
    const uint32_t sb = img->state_bits[c];
    const uint32_t a = img->state_offsets[img->proc_offsets[c] + s];
    const uint32_t b = img->state_offsets[img->proc_offsets[c] + s + 1];
    for (uint32_t e = a; e < b; e++) {
        uint64_t ent = img->trans[e];
        if (!image_entry_is_sync(ent) || image_entry_label(ent, img->act_bits) != k)
            continue;
        for (uint32_t q = 0; q < image_entry_slots(img->act_bits, sb); q++) {
            uint32_t t = image_entry_target(ent, img->act_bits, sb, q);
            if (t == 0xffffffffu)
                break;
            tl_add(out, t);
        }
    }
}

/* All distinct (label, vector) successors of v, sorted. */
static void ref_succ(const struct image *img, const uint32_t *v, struct succs *o)
{
    const uint32_t n = img->n_comps, W = img->words;
    o->words = W;
    o->n = 0;
    uint32_t cur[64 + 1];
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t fb = img->first_bit[c], w = img->first_bit[c + 1] - fb;
        const uint32_t s = image_get_field(v, fb, w);
        const uint32_t sb = img->state_bits[c];
        const uint32_t a = img->state_offsets[img->proc_offsets[c] + s];
        const uint32_t b = img->state_offsets[img->proc_offsets[c] + s + 1];
        for (uint32_t e = a; e < b; e++) {
            uint64_t ent = img->trans[e];
            if (image_entry_is_sync(ent))
                continue;
            for (uint32_t q = 0; q < image_entry_slots(img->act_bits, sb); q++) {
                uint32_t t = image_entry_target(ent, img->act_bits, sb, q);
                if (t == 0xffffffffu)
                    break;
                memcpy(cur, v, W * 4);
                image_set_field(cur, fb, w, t);
                sc_add(o, image_entry_label(ent, img->act_bits), cur);
            }
        }
    }
    struct tlist tl[64];
    memset(tl, 0, sizeof tl);
    uint32_t pc[64];
    for (uint32_t k = 0; k < img->n_classes; k++) {
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            uint32_t np = 0, ok = 1;
            for (uint32_t c = 0; c < n && ok; c++) {
                if (!(img->rule_mask[(size_t)r * img->mask_words + c / 32] >> (c % 32) & 1))
                    continue;
                if (np == 64)
                    abort(); /* test networks keep rules small */
                const uint32_t fb = img->first_bit[c], w = img->first_bit[c + 1] - fb;
                class_targets(img, c, image_get_field(v, fb, w), k, &tl[np]);
                pc[np] = c;
                ok = tl[np].n > 0;
                np++;
            }
            if (!ok)
                continue;
            /* odometer */
            uint32_t odo[64] = {0};
            for (;;) {
                memcpy(cur, v, W * 4);
                for (uint32_t i = 0; i < np; i++) {
                    const uint32_t c = pc[i], fb = img->first_bit[c];
                    image_set_field(cur, fb, img->first_bit[c + 1] - fb, tl[i].t[odo[i]]);
                }
                sc_add(o, img->class_result[k], cur);
                uint32_t i = 0;
                while (i < np && ++odo[i] == tl[i].n)
                    odo[i++] = 0;
                if (i == np)
                    break;
            }
        }
    }
    for (uint32_t i = 0; i < 64; i++)
        free(tl[i].t);
    sc_sort_unique(o);
}

struct ref_edge {
    uint64_t src, dst;
    uint32_t label;
};

struct ref_result {
    uint64_t states, transitions, deadlocks;
    uint32_t depth;           /* largest BFS level */
    struct vset set;          /* all states, BFS order */
    uint32_t *level;          /* per state id */
    uint32_t min_dead_level;  /* UINT32_MAX when none */
    uint32_t min_act_level;   /* source level of a flagged transition */
    struct ref_edge *edges;   /* when asked */
    uint64_t nedges;
    int too_big;
};

static void ref_free(struct ref_result *r)
{
    vs_free(&r->set);
    free(r->level);
    free(r->edges);
}

static int edge_cmp(const void *a, const void *b)
{
    const struct ref_edge *x = (const struct ref_edge *)a, *y = (const struct ref_edge *)b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return 0;
}

/* Full BFS; action may be NULL.  Stops (too_big) beyond max_states. */
static void ref_explore(const struct image *img, const uint8_t *action, int want_edges, uint64_t max_states,
                        struct ref_result *r)
{
    memset(r, 0, sizeof *r);
    const uint32_t W = img->words;
    vs_init(&r->set, W);
    r->min_dead_level = r->min_act_level = UINT32_MAX;
    uint32_t zero[64] = {0};
    int added;
    vs_put(&r->set, zero, &added);
    uint64_t lcap = 1024, ecap = 0;
    r->level = (uint32_t *)malloc(lcap * 4);
    r->level[0] = 0;
    struct succs o = {0};
    for (uint64_t s = 0; s < r->set.n; s++) {
        if (r->set.n > max_states) {
            r->too_big = 1;
            break;
        }
        uint32_t v[64];
        memcpy(v, r->set.vec + s * W, W * 4);
        ref_succ(img, v, &o);
        const uint32_t lv = r->level[s];
        if (lv > r->depth)
            r->depth = lv;
        if (o.n == 0) {
            r->deadlocks++;
            if (lv < r->min_dead_level)
                r->min_dead_level = lv;
        }
        r->transitions += o.n;
        for (uint32_t i = 0; i < o.n; i++) {
            const uint32_t *rec = o.rec + (size_t)i * (1 + W);
            uint64_t id = vs_put(&r->set, rec + 1, &added);
            if (added) {
                if (r->set.n > lcap) {
                    lcap *= 2;
                    r->level = (uint32_t *)realloc(r->level, lcap * 4);
                }
                r->level[id] = lv + 1;
            }
            if (action && action[rec[0]] && lv < r->min_act_level)
                r->min_act_level = lv;
            if (want_edges) {
                if (r->nedges == ecap) {
                    ecap = ecap ? 2 * ecap : 1024;
                    r->edges = (struct ref_edge *)realloc(r->edges, ecap * sizeof *r->edges);
                }
                r->edges[r->nedges].src = s;
                r->edges[r->nedges].dst = id;
                r->edges[r->nedges].label = rec[0];
                r->nedges++;
            }
        }
    }
    free(o.rec);
    r->states = r->set.n;
    if (want_edges && r->nedges)
        qsort(r->edges, r->nedges, sizeof *r->edges, edge_cmp);
}

/* Is (label, w) a successor of v? */
static int ref_is_succ(const struct image *img, const uint32_t *v, uint32_t label, const uint32_t *w)
{
    struct succs o = {0};
    ref_succ(img, v, &o);
    int found = 0;
    for (uint32_t i = 0; i < o.n && !found; i++) {
        const uint32_t *rec = o.rec + (size_t)i * (1 + img->words);
        found = rec[0] == label && !memcmp(rec + 1, w, img->words * 4);
    }
    free(o.rec);
    return found;
}

static uint32_t ref_n_succ(const struct image *img, const uint32_t *v)
{
    struct succs o = {0};
    ref_succ(img, v, &o);
    uint32_t n = o.n;
    free(o.rec);
    return n;
}

#endif
