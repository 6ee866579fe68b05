/*
 * por.c -- stubborn sets from the image (the theory and the proviso are in
 * por.h).
 */
#include "por.h"
#include "../util/config.h"

#include <stdlib.h>
#include <string.h>

/* ---- set-up ---- */

/* The tables while they are built (p->t holds them read-only after). */
struct por_build {
    uint32_t *rule_class, *part_start, *part, *crule_start, *crule, *seg_sync, *seg_local;
    uint64_t *offer_bits, *blk;
    uint32_t *seg_rule_start, *seg_rule;
    uint32_t *seg_anch_start, *seg_anch, *seg_peer_start, *seg_peer, *seg_multi_start, *seg_multi;
    uint32_t class_words, rule_words;
};

/* Participants per rule and rules per component, from the rule masks;
 * pos: n scratch counters, zero. */
static int por_rules(struct por *p, struct por_build *b, const struct image *img, uint32_t *pos)
{
    const uint32_t nr = img->n_rules, mw = img->mask_words;
    size_t parts = 0;
    for (size_t i = 0; i < (size_t)nr * mw; i++)
        parts += (size_t)__builtin_popcount(img->rule_mask[i]);
    p->parts = parts;
    b->part = malloc((parts + 1) * sizeof *b->part);
    b->crule = malloc((parts + 1) * sizeof *b->crule);
    p->s.adj = malloc((parts + 1) * sizeof *p->s.adj);
    if (!b->part || !b->crule || !p->s.adj)
        return -1;
    size_t q = 0;
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++)
            b->rule_class[r] = k;
    for (uint32_t r = 0; r < nr; r++) {
        b->part_start[r] = (uint32_t)q;
        for (uint32_t w = 0; w < mw; w++)
            for (uint32_t m = img->rule_mask[(size_t)r * mw + w]; m; m &= m - 1) {
                uint32_t c = w * 32 + (uint32_t)__builtin_ctz(m);
                b->part[q++] = c;
                b->crule_start[c + 1]++;
            }
    }
    b->part_start[nr] = (uint32_t)q;
    for (uint32_t c = 0; c < p->n; c++)
        b->crule_start[c + 1] += b->crule_start[c];
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t i = b->part_start[r]; i < b->part_start[r + 1]; i++)
            b->crule[pos[b->part[i]]++ + b->crule_start[b->part[i]]] = r;
    return 0;
}

/* Per segment: where its sync entries start, how many local targets, and
 * (when they fit POR_OFFER_BYTES) the set of classes it offers. */
static void por_segments(struct por *p, struct por_build *b, const struct image *img)
{
    const size_t nseg = img->proc_offsets[p->n];
    b->class_words = (img->n_classes + 63) / 64;
    if (nseg * b->class_words * 8 <= POR_OFFER_BYTES)
        b->offer_bits = calloc(nseg * b->class_words + 1, 8);
    for (uint32_t c = 0; c < p->n; c++) {
        const uint32_t sb = img->state_bits[c], slots = image_entry_slots(img->act_bits, sb);
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            const uint32_t seg = img->proc_offsets[c] + s;
            uint32_t i = img->state_offsets[seg], local = 0;
            for (; i < img->state_offsets[seg + 1] && !image_entry_is_sync(img->trans[i]); i++)
                for (uint32_t k = 0; k < slots && image_entry_target(img->trans[i], img->act_bits, sb, k)
                                                      != UINT32_MAX; k++)
                    local++;
            b->seg_sync[seg] = i;
            b->seg_local[seg] = local;
            for (; b->offer_bits && i < img->state_offsets[seg + 1]; i++) {
                const uint32_t k = image_entry_label(img->trans[i], img->act_bits);
                b->offer_bits[(size_t)seg * b->class_words + (k >> 6)] |= 1ull << (k & 63);
            }
        }
    }
}

/* Per segment (when they fit POR_OFFER_BYTES): the rules its component
 * takes part in but blocks there (offers no entry of the rule's class).
 * p->t answers the offers already. */
static void por_blocked(struct por *p, struct por_build *b, const struct image *img)
{
    const size_t nseg = img->proc_offsets[p->n];
    if (img->n_rules == 0 || nseg * b->rule_words * 8 > POR_OFFER_BYTES)
        return;
    b->blk = calloc(nseg * b->rule_words + 1, 8);
    if (!b->blk)
        return;
    for (uint32_t r = 0; r < img->n_rules; r++)
        for (uint32_t i = b->part_start[r]; i < b->part_start[r + 1]; i++) {
            const uint32_t c = b->part[i];
            for (uint32_t seg = img->proc_offsets[c]; seg < img->proc_offsets[c + 1]; seg++)
                if (!por_core_offers(&p->t, seg, b->rule_class[r]))
                    b->blk[seg * b->rule_words + (r >> 6)] |= 1ull << (r & 63);
        }
}

/* Appends to the list of segment seg of component c the rules of class k
 * that c takes part in; false when the lists outgrow POR_OFFER_BYTES. */
static bool seg_class_rules(struct por_build *b, const struct image *img, uint32_t c, uint32_t k, size_t *q,
                            size_t cap)
{
    const uint32_t mw = img->mask_words;
    for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++)
        if (img->rule_mask[(size_t)r * mw + c / 32] >> (c % 32) & 1) {
            if (*q == cap)
                return false;
            b->seg_rule[(*q)++] = r;
        }
    return true;
}

/* Per segment (when they fit POR_OFFER_BYTES): the rules its component
 * takes part in and does not block there -- those of the classes it
 * offers, ascending (rules are numbered class by class).  Component c has
 * comp_states[c] + 1 offsets; the last one starts an empty list. */
static void por_seg_rules(struct por *p, struct por_build *b, const struct image *img)
{
    const size_t nseg = img->proc_offsets[p->n], cap = POR_OFFER_BYTES / sizeof *b->seg_rule;
    b->seg_rule_start = malloc((nseg + 1) * sizeof *b->seg_rule_start);
    b->seg_rule = malloc(cap * sizeof *b->seg_rule);
    bool ok = b->seg_rule_start && b->seg_rule;
    size_t q = 0;
    for (uint32_t c = 0; c < p->n && ok; c++)
        for (uint32_t seg = img->proc_offsets[c]; seg < img->proc_offsets[c + 1] && ok; seg++) {
            b->seg_rule_start[seg] = (uint32_t)q;
            if (seg - img->proc_offsets[c] == img->comp_states[c])
                continue; /* c's end offset: no segment */
            uint32_t prev = UINT32_MAX;
            for (uint32_t i = b->seg_sync[seg]; i < img->state_offsets[seg + 1] && ok; i++) {
                const uint32_t k = image_entry_label(img->trans[i], img->act_bits);
                if (k != prev)
                    ok = seg_class_rules(b, img, c, k, &q, cap);
                prev = k;
            }
        }
    if (ok && q < UINT32_MAX) {
        b->seg_rule_start[nseg] = (uint32_t)q;
        uint32_t *t = realloc(b->seg_rule, (q + 1) * sizeof *t);
        if (t)
            b->seg_rule = t;
        return;
    }
    free(b->seg_rule_start), free(b->seg_rule);
    b->seg_rule_start = b->seg_rule = NULL;
}

/* Each rule's anchor (into anchor, n_rules): the participant with the
 * fewest local states offering the rule's class (ties: the lowest); false
 * when out of memory. */
static bool por_anchors(const struct por *p, const struct por_build *b, const struct image *img, uint32_t *anchor)
{
    const uint32_t nr = img->n_rules, nk = img->n_classes;
    uint32_t *cnt = calloc((size_t)nk + 1, sizeof *cnt), *fewest = malloc(((size_t)nr + 1) * sizeof *fewest);
    if (!cnt || !fewest) {
        free(cnt), free(fewest);
        return false;
    }
    for (uint32_t r = 0; r < nr; r++)
        fewest[r] = UINT32_MAX;
    for (uint32_t c = 0; c < p->n; c++) {
        memset(cnt, 0, (size_t)nk * sizeof *cnt);
        for (uint32_t seg = img->proc_offsets[c]; seg < img->proc_offsets[c] + img->comp_states[c]; seg++)
            for (uint32_t i = b->seg_sync[seg], prev = UINT32_MAX; i < img->state_offsets[seg + 1]; i++) {
                const uint32_t k = image_entry_label(img->trans[i], img->act_bits);
                cnt[k] += k != prev;
                prev = k;
            }
        for (uint32_t i = b->crule_start[c]; i < b->crule_start[c + 1]; i++) {
            const uint32_t r = b->crule[i];
            if (cnt[b->rule_class[r]] < fewest[r])
                fewest[r] = cnt[b->rule_class[r]], anchor[r] = c;
        }
    }
    free(cnt), free(fewest);
    return true;
}

/* Component c's segment seg's share of the split lists (por_split): its
 * listed rules it anchors, its peers (seen: n stamps, stamp this
 * segment's), its rules of three or more participants. */
static void por_split_seg(struct por_build *b, uint32_t c, uint32_t seg, const uint32_t *anchor, uint32_t *seen,
                          uint32_t stamp, size_t *qa, size_t *qp, size_t *qm)
{
    b->seg_anch_start[seg] = (uint32_t)*qa, b->seg_peer_start[seg] = (uint32_t)*qp;
    b->seg_multi_start[seg] = (uint32_t)*qm;
    const size_t p0 = *qp;
    for (uint32_t q = b->seg_rule_start[seg]; q < b->seg_rule_start[seg + 1]; q++) {
        const uint32_t r = b->seg_rule[q], pb = b->part_start[r], np = b->part_start[r + 1] - pb;
        if (anchor[r] == c)
            b->seg_anch[(*qa)++] = r;
        if (np >= 3)
            b->seg_multi[(*qm)++] = r;
        const uint32_t o = np == 2 ? b->part[b->part[pb] == c ? pb + 1 : pb] : UINT32_MAX;
        if (o != UINT32_MAX && seen[o] != stamp) {
            seen[o] = stamp;
            size_t k = (*qp)++; /* insertion into the segment's ascending peers */
            while (k > p0 && b->seg_peer[k - 1] > o)
                b->seg_peer[k] = b->seg_peer[k - 1], k--;
            b->seg_peer[k] = o;
        }
    }
}

/* With the per-segment rule lists: their split (por_tables: seg_anch,
 * seg_peer, seg_multi), each list at most as long as seg_rule; without
 * memory for it, none. */
static void por_split(struct por *p, struct por_build *b, const struct image *img)
{
    const size_t nseg = img->proc_offsets[p->n];
    if (!b->seg_rule)
        return;
    const size_t len = (size_t)b->seg_rule_start[nseg] + 1;
    uint32_t *anchor = malloc(((size_t)img->n_rules + 1) * sizeof *anchor);
    uint32_t *seen = calloc((size_t)p->n + 1, sizeof *seen);
    uint32_t **lists[] = {&b->seg_anch_start, &b->seg_anch, &b->seg_peer_start, &b->seg_peer,
                          &b->seg_multi_start, &b->seg_multi};
    bool ok = anchor && seen && por_anchors(p, b, img, anchor);
    for (int i = 0; i < 6; i++)
        *lists[i] = ok ? malloc((i % 2 ? len : nseg + 1) * sizeof **lists[i]) : NULL, ok = ok && *lists[i];
    if (ok) {
        size_t qa = 0, qp = 0, qm = 0;
        uint32_t stamp = 0;
        for (uint32_t c = 0; c < p->n; c++)
            for (uint32_t seg = img->proc_offsets[c]; seg < img->proc_offsets[c + 1]; seg++)
                por_split_seg(b, c, seg, anchor, seen, ++stamp, &qa, &qp, &qm);
        b->seg_anch_start[nseg] = (uint32_t)qa, b->seg_peer_start[nseg] = (uint32_t)qp;
        b->seg_multi_start[nseg] = (uint32_t)qm;
    } else {
        for (int i = 0; i < 6; i++)
            free(*lists[i]), *lists[i] = NULL;
    }
    free(anchor), free(seen);
}

/* p->t from b and the image's arrays. */
static void por_tables_of(struct por *p, const struct por_build *b, const struct image *img)
{
    struct por_tables *t = &p->t;
    t->n = p->n, t->n_rules = img->n_rules, t->rule_words = b->rule_words, t->class_words = b->class_words;
    t->act_bits = img->act_bits;
    t->proc_offsets = img->proc_offsets, t->state_offsets = img->state_offsets, t->first_bit = img->first_bit;
    t->trans = img->trans;
    t->rule_class = b->rule_class, t->part_start = b->part_start, t->part = b->part;
    t->crule_start = b->crule_start, t->crule = b->crule;
    t->seg_sync = b->seg_sync, t->seg_local = b->seg_local;
    t->offer_bits = b->offer_bits, t->blk = b->blk;
    t->seg_rule_start = b->seg_rule_start, t->seg_rule = b->seg_rule;
    t->seg_anch_start = b->seg_anch_start, t->seg_anch = b->seg_anch;
    t->seg_peer_start = b->seg_peer_start, t->seg_peer = b->seg_peer;
    t->seg_multi_start = b->seg_multi_start, t->seg_multi = b->seg_multi;
}

/* The per-state scratch (p->s; adj comes with por_rules); false when out
 * of memory. */
static bool por_scratch_alloc(struct por *p, uint32_t n, uint32_t nr, uint32_t rule_words)
{
    struct por_scratch *s = &p->s;
    s->seg = malloc(((size_t)n + 1) * sizeof *s->seg);
    s->rule_state = calloc((size_t)nr + 1, sizeof *s->rule_state);
    s->rule_low = calloc((size_t)nr + 1, sizeof *s->rule_low);
    s->best = malloc(((size_t)n + 1) * sizeof *s->best);
    s->own = calloc((size_t)n + 1, sizeof *s->own);
    s->adj_start = malloc(((size_t)n + 1) * sizeof *s->adj_start);
    s->index = malloc(((size_t)n + 1) * sizeof *s->index);
    s->lowlink = malloc(((size_t)n + 1) * sizeof *s->lowlink);
    s->scc = malloc(((size_t)n + 1) * sizeof *s->scc);
    s->stack = malloc(((size_t)n + 1) * sizeof *s->stack);
    s->call = malloc(((size_t)n + 1) * sizeof *s->call);
    s->iter = malloc(((size_t)n + 1) * sizeof *s->iter);
    s->scc_cost = malloc(((size_t)n + 1) * sizeof *s->scc_cost);
    s->scc_low = malloc(((size_t)n + 1) * sizeof *s->scc_low);
    s->scc_live = malloc(((size_t)n + 1) * sizeof *s->scc_live);
    s->en = calloc((size_t)rule_words + 1, sizeof *s->en);
    if (n <= POR_BITS_MAX) {
        s->succ = malloc(((size_t)n + 1) * sizeof *s->succ);
        s->pred = malloc(((size_t)n + 1) * sizeof *s->pred);
        if (!s->succ || !s->pred)
            return false;
    }
    return s->seg && s->rule_state && s->rule_low && s->best && s->own && s->adj_start && s->index && s->lowlink
           && s->scc && s->stack && s->call && s->iter && s->scc_cost && s->scc_low && s->scc_live && s->en;
}

int por_init(struct por *p, const struct image *img, const uint8_t *visible, struct wx_error *err)
{
    memset(p, 0, sizeof *p);
    const uint32_t n = img->n_comps, nr = img->n_rules, nseg = img->proc_offsets[n];
    p->img = img, p->visible = visible, p->n = n, p->words = img->words;
    for (uint32_t l = 0; visible && l < img->n_labels; l++)
        p->proviso |= visible[l] != 0;
    if (!p->proviso)
        p->visible = NULL;
    struct por_build b = {0};
    b.rule_words = (nr + 63) / 64;
    b.rule_class = malloc(((size_t)nr + 1) * sizeof *b.rule_class);
    b.part_start = malloc(((size_t)nr + 1) * sizeof *b.part_start);
    b.crule_start = calloc((size_t)n + 2, sizeof *b.crule_start);
    b.seg_sync = malloc(((size_t)nseg + 1) * sizeof *b.seg_sync);
    b.seg_local = malloc(((size_t)nseg + 1) * sizeof *b.seg_local);
    p->mask = calloc((size_t)img->words + 1, sizeof *p->mask);
    bool ok = por_scratch_alloc(p, n, nr, b.rule_words) && b.rule_class && b.part_start && b.crule_start
              && b.seg_sync && b.seg_local && p->mask && por_rules(p, &b, img, p->s.own) == 0;
    por_tables_of(p, &b, img); /* so that por_free frees what there is */
    if (!ok) {
        por_free(p);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "partial-order reduction: out of memory");
    }
    por_segments(p, &b, img);
    por_tables_of(p, &b, img);
    por_blocked(p, &b, img);
    por_seg_rules(p, &b, img);
    por_split(p, &b, img);
    por_tables_of(p, &b, img);
    return WX_OK;
}

void por_free(struct por *p)
{
    struct por_tables *t = &p->t;
    struct por_scratch *s = &p->s;
    free((void *)t->rule_class);
    free((void *)t->part_start);
    free((void *)t->part);
    free((void *)t->crule_start);
    free((void *)t->crule);
    free((void *)t->seg_sync);
    free((void *)t->seg_local);
    free((void *)t->offer_bits);
    free((void *)t->blk);
    free((void *)t->seg_rule_start);
    free((void *)t->seg_rule);
    free((void *)t->seg_anch_start), free((void *)t->seg_anch);
    free((void *)t->seg_peer_start), free((void *)t->seg_peer);
    free((void *)t->seg_multi_start), free((void *)t->seg_multi);
    free(s->en);
    free(s->seg);
    free(s->rule_state);
    free(s->rule_low);
    free(s->best);
    free(s->own);
    free(s->adj_start);
    free(s->adj);
    free(s->index);
    free(s->lowlink);
    free(s->scc);
    free(s->stack);
    free(s->call);
    free(s->iter);
    free(s->scc_cost);
    free(s->scc_low);
    free(s->scc_live);
    free(s->succ);
    free(s->pred);
    free(p->mask);
    free(p->tmp);
    free(p->tmph);
    memset(p, 0, sizeof *p);
}

void por_drop_sets(struct por *p, int all)
{
    struct por_tables *t = &p->t;
    free((void *)t->offer_bits), free((void *)t->blk);
    t->offer_bits = NULL, t->blk = NULL;
    if (!all)
        return;
    const uint32_t **a[] = {&t->seg_rule_start, &t->seg_rule, &t->seg_anch_start, &t->seg_anch,
                            &t->seg_peer_start, &t->seg_peer, &t->seg_multi_start, &t->seg_multi};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        free((void *)*a[i]), *a[i] = NULL;
}

/* One table into buf at *q (8-byte words), its address as seen from base;
 * NULL stays NULL. */
static const void *pack_one(uint64_t *buf, uint64_t *base, size_t *q, const void *a, size_t bytes)
{
    if (!a)
        return NULL;
    const size_t at = *q;
    if (buf)
        memcpy(buf + at, a, bytes);
    *q += (bytes + 7) / 8;
    return base + at;
}

size_t por_pack(const struct por *p, uint64_t *buf, uint64_t *base, struct por_tables *dt)
{
    const struct por_tables *t = &p->t;
    const size_t nr = t->n_rules, n = t->n, nseg = p->img->proc_offsets[n];
    size_t q = 0;
    *dt = *t;
    dt->proc_offsets = dt->state_offsets = dt->first_bit = NULL;
    dt->trans = NULL;
    dt->rule_class = pack_one(buf, base, &q, t->rule_class, (nr + 1) * 4);
    dt->part_start = pack_one(buf, base, &q, t->part_start, (nr + 1) * 4);
    dt->part = pack_one(buf, base, &q, t->part, (p->parts + 1) * 4);
    dt->crule_start = pack_one(buf, base, &q, t->crule_start, (n + 2) * 4);
    dt->crule = pack_one(buf, base, &q, t->crule, (p->parts + 1) * 4);
    dt->seg_sync = pack_one(buf, base, &q, t->seg_sync, (nseg + 1) * 4);
    dt->seg_local = pack_one(buf, base, &q, t->seg_local, (nseg + 1) * 4);
    dt->offer_bits = pack_one(buf, base, &q, t->offer_bits, (nseg * t->class_words + 1) * 8);
    dt->blk = pack_one(buf, base, &q, t->blk, (nseg * t->rule_words + 1) * 8);
    dt->seg_rule_start = pack_one(buf, base, &q, t->seg_rule_start, (nseg + 1) * 4);
    dt->seg_rule = pack_one(buf, base, &q, t->seg_rule,
                            t->seg_rule ? ((size_t)t->seg_rule_start[nseg] + 1) * 4 : 0);
    const size_t len = t->seg_rule ? ((size_t)t->seg_rule_start[nseg] + 1) * 4 : 0;
    dt->seg_anch_start = pack_one(buf, base, &q, t->seg_anch_start, (nseg + 1) * 4);
    dt->seg_anch = pack_one(buf, base, &q, t->seg_anch, len);
    dt->seg_peer_start = pack_one(buf, base, &q, t->seg_peer_start, (nseg + 1) * 4);
    dt->seg_peer = pack_one(buf, base, &q, t->seg_peer, len);
    dt->seg_multi_start = pack_one(buf, base, &q, t->seg_multi_start, (nseg + 1) * 4);
    dt->seg_multi = pack_one(buf, base, &q, t->seg_multi, len);
    return q;
}

/* ---- the records ---- */

/* Moves the records that only the chosen components' moves can produce
 * (or self-loops) to the front, stably; *r gets their number. */
static int partition(struct por *p, struct succ_gen *g, const uint32_t *vec, size_t *r, struct wx_error *err)
{
    const uint32_t words = p->words, st = g->stride;
    const size_t n = g->n;
    if (n > p->tmp_cap) {
        size_t cap = p->tmp_cap ? p->tmp_cap : 64;
        while (cap < n)
            cap *= 2;
        uint32_t *t = realloc(p->tmp, cap * st * sizeof *t);
        if (t)
            p->tmp = t;
        uint64_t *h = t ? realloc(p->tmph, cap * sizeof *h) : NULL;
        if (!h)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "partial-order reduction: out of memory");
        p->tmph = h, p->tmp_cap = cap;
    }
    por_core_mask(&p->t, &p->s, words, p->mask);
    size_t m = 0, o = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t *rec = g->rec + i * st;
        if (por_core_keep(p->mask, words, vec, rec + 1)) {
            if (m != i) {
                memmove(g->rec + m * st, rec, st * sizeof *rec);
                if (g->unordered)
                    g->hash[m] = g->hash[i];
            }
            m++;
        } else {
            memcpy(p->tmp + o * st, rec, st * sizeof *rec);
            if (g->unordered)
                p->tmph[o] = g->hash[i];
            o++;
        }
    }
    memcpy(g->rec + m * st, p->tmp, o * st * sizeof *p->tmp);
    if (g->unordered)
        memcpy(g->hash + m, p->tmph, o * sizeof *p->tmph);
    *r = m > 0 ? m : n;
    return WX_OK;
}

int por_reduce(struct por *p, struct succ_gen *g, const uint32_t *vec, size_t *r, struct wx_error *err)
{
    const struct image *img = p->img;
    *r = g->n;
    if (g->n < 2)
        return WX_OK;
    if (p->visible)
        for (size_t i = 0; i < g->n; i++)
            if (p->visible[succ_label(g, i)])
                return WX_OK;
    if (++p->s.sstamp == 0) {
        memset(p->s.rule_state, 0, img->n_rules * sizeof *p->s.rule_state);
        p->s.sstamp = 1;
    }
    if (!por_core_state(&p->t, &p->s, vec))
        return WX_OK;
    int rc = partition(p, g, vec, r, err);
    if (rc)
        *r = g->n;
    return rc;
}
