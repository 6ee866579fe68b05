/*
 * por.c -- stubborn sets from the image (the theory and the proviso are in
 * por.h).
 */
#include "por.h"
#include "../util/config.h"

#include <stdlib.h>
#include <string.h>

static inline bool offers_seg(const struct por *p, uint32_t seg, uint32_t k);

/* ---- set-up ---- */

/* Participants per rule and rules per component, from the rule masks. */
static int por_rules(struct por *p, const struct image *img)
{
    const uint32_t nr = img->n_rules, mw = img->mask_words;
    size_t parts = 0;
    for (size_t i = 0; i < (size_t)nr * mw; i++)
        parts += (size_t)__builtin_popcount(img->rule_mask[i]);
    p->part = malloc((parts + 1) * sizeof *p->part);
    p->crule = malloc((parts + 1) * sizeof *p->crule);
    p->adj = malloc((parts + 1) * sizeof *p->adj);
    if (!p->part || !p->crule || !p->adj)
        return -1;
    size_t q = 0;
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++)
            p->rule_class[r] = k;
    for (uint32_t r = 0; r < nr; r++) {
        p->part_start[r] = (uint32_t)q;
        for (uint32_t w = 0; w < mw; w++)
            for (uint32_t m = img->rule_mask[(size_t)r * mw + w]; m; m &= m - 1) {
                uint32_t c = w * 32 + (uint32_t)__builtin_ctz(m);
                p->part[q++] = c;
                p->crule_start[c + 1]++;
            }
    }
    p->part_start[nr] = (uint32_t)q;
    for (uint32_t c = 0; c < p->n; c++)
        p->crule_start[c + 1] += p->crule_start[c];
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t i = p->part_start[r]; i < p->part_start[r + 1]; i++)
            p->crule[p->own[p->part[i]]++ + p->crule_start[p->part[i]]] = r;
    return 0;
}

/* Per segment: where its sync entries start, how many local targets, and
 * (when they fit POR_OFFER_BYTES) the set of classes it offers. */
static void por_segments(struct por *p, const struct image *img)
{
    const size_t nseg = img->proc_offsets[p->n];
    p->class_words = (img->n_classes + 63) / 64;
    if (nseg * p->class_words * 8 <= POR_OFFER_BYTES)
        p->offer_bits = calloc(nseg * p->class_words + 1, 8);
    for (uint32_t c = 0; c < p->n; c++) {
        const uint32_t sb = img->state_bits[c], slots = image_entry_slots(img->act_bits, sb);
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            const uint32_t seg = img->proc_offsets[c] + s;
            uint32_t i = img->state_offsets[seg], local = 0;
            for (; i < img->state_offsets[seg + 1] && !image_entry_is_sync(img->trans[i]); i++)
                for (uint32_t k = 0; k < slots && image_entry_target(img->trans[i], img->act_bits, sb, k)
                                                      != UINT32_MAX; k++)
                    local++;
            p->seg_sync[seg] = i;
            p->seg_local[seg] = local;
            for (; p->offer_bits && i < img->state_offsets[seg + 1]; i++) {
                const uint32_t k = image_entry_label(img->trans[i], img->act_bits);
                p->offer_bits[(size_t)seg * p->class_words + (k >> 6)] |= 1ull << (k & 63);
            }
        }
    }
}

/* Per segment (when they fit POR_OFFER_BYTES): the rules its component
 * takes part in but blocks there (offers no entry of the rule's class). */
static void por_blocked(struct por *p, const struct image *img)
{
    const size_t nseg = img->proc_offsets[p->n];
    if (img->n_rules == 0 || nseg * p->rule_words * 8 > POR_OFFER_BYTES)
        return;
    p->blk = calloc(nseg * p->rule_words + 1, 8);
    if (!p->blk)
        return;
    for (uint32_t r = 0; r < img->n_rules; r++)
        for (uint32_t i = p->part_start[r]; i < p->part_start[r + 1]; i++) {
            const uint32_t c = p->part[i];
            for (uint32_t seg = img->proc_offsets[c]; seg < img->proc_offsets[c + 1]; seg++)
                if (!offers_seg(p, seg, p->rule_class[r]))
                    p->blk[seg * p->rule_words + (r >> 6)] |= 1ull << (r & 63);
        }
}

/* Appends to the list of segment seg of component c the rules of class k
 * that c takes part in; false when the lists outgrow POR_OFFER_BYTES. */
static bool seg_class_rules(struct por *p, uint32_t c, uint32_t k, size_t *q, size_t cap)
{
    const struct image *img = p->img;
    const uint32_t mw = img->mask_words;
    for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++)
        if (img->rule_mask[(size_t)r * mw + c / 32] >> (c % 32) & 1) {
            if (*q == cap)
                return false;
            p->seg_rule[(*q)++] = r;
        }
    return true;
}

/* Per segment (when they fit POR_OFFER_BYTES): the rules its component
 * takes part in and does not block there -- those of the classes it
 * offers, ascending (rules are numbered class by class).  Component c has
 * comp_states[c] + 1 offsets; the last one starts an empty list. */
static void por_seg_rules(struct por *p, const struct image *img)
{
    const size_t nseg = img->proc_offsets[p->n], cap = POR_OFFER_BYTES / sizeof *p->seg_rule;
    p->seg_rule_start = malloc((nseg + 1) * sizeof *p->seg_rule_start);
    p->seg_rule = malloc(cap * sizeof *p->seg_rule);
    bool ok = p->seg_rule_start && p->seg_rule;
    size_t q = 0;
    for (uint32_t c = 0; c < p->n && ok; c++)
        for (uint32_t seg = img->proc_offsets[c]; seg < img->proc_offsets[c + 1] && ok; seg++) {
            p->seg_rule_start[seg] = (uint32_t)q;
            if (seg - img->proc_offsets[c] == img->comp_states[c])
                continue; /* c's end offset: no segment */
            uint32_t prev = UINT32_MAX;
            for (uint32_t i = p->seg_sync[seg]; i < img->state_offsets[seg + 1] && ok; i++) {
                const uint32_t k = image_entry_label(img->trans[i], img->act_bits);
                if (k != prev)
                    ok = seg_class_rules(p, c, k, &q, cap);
                prev = k;
            }
        }
    if (ok && q < UINT32_MAX) {
        p->seg_rule_start[nseg] = (uint32_t)q;
        uint32_t *t = realloc(p->seg_rule, (q + 1) * sizeof *t);
        if (t)
            p->seg_rule = t;
        return;
    }
    free(p->seg_rule_start), free(p->seg_rule);
    p->seg_rule_start = p->seg_rule = NULL;
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
    p->rule_class = malloc(((size_t)nr + 1) * sizeof *p->rule_class);
    p->part_start = malloc(((size_t)nr + 1) * sizeof *p->part_start);
    p->crule_start = calloc((size_t)n + 2, sizeof *p->crule_start);
    p->seg_sync = malloc(((size_t)nseg + 1) * sizeof *p->seg_sync);
    p->seg_local = malloc(((size_t)nseg + 1) * sizeof *p->seg_local);
    p->seg = malloc(((size_t)n + 1) * sizeof *p->seg);
    p->rule_state = calloc((size_t)nr + 1, sizeof *p->rule_state);
    p->rule_low = calloc((size_t)nr + 1, sizeof *p->rule_low);
    p->best = malloc(((size_t)n + 1) * sizeof *p->best);
    p->own = calloc((size_t)n + 1, sizeof *p->own);
    p->adj_start = malloc(((size_t)n + 1) * sizeof *p->adj_start);
    p->index = malloc(((size_t)n + 1) * sizeof *p->index);
    p->lowlink = malloc(((size_t)n + 1) * sizeof *p->lowlink);
    p->scc = malloc(((size_t)n + 1) * sizeof *p->scc);
    p->stack = malloc(((size_t)n + 1) * sizeof *p->stack);
    p->call = malloc(((size_t)n + 1) * sizeof *p->call);
    p->iter = malloc(((size_t)n + 1) * sizeof *p->iter);
    p->scc_cost = malloc(((size_t)n + 1) * sizeof *p->scc_cost);
    p->scc_root = malloc(((size_t)n + 1) * sizeof *p->scc_root);
    p->scc_live = malloc(((size_t)n + 1) * sizeof *p->scc_live);
    p->mask = calloc((size_t)img->words + 1, sizeof *p->mask);
    p->rule_words = (nr + 63) / 64;
    p->en = calloc((size_t)p->rule_words + 1, sizeof *p->en);
    if (!p->rule_class || !p->part_start || !p->crule_start || !p->seg_sync || !p->seg_local || !p->seg
        || !p->rule_state || !p->rule_low || !p->best || !p->own || !p->adj_start || !p->index || !p->lowlink
        || !p->scc || !p->stack || !p->call || !p->iter || !p->scc_cost || !p->scc_root || !p->scc_live || !p->mask || !p->en
        || por_rules(p, img)) {
        por_free(p);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "partial-order reduction: out of memory");
    }
    por_segments(p, img);
    por_blocked(p, img);
    por_seg_rules(p, img);
    return WX_OK;
}

void por_free(struct por *p)
{
    free(p->rule_class);
    free(p->part_start);
    free(p->part);
    free(p->crule_start);
    free(p->crule);
    free(p->seg_sync);
    free(p->seg_local);
    free(p->offer_bits);
    free(p->blk);
    free(p->en);
    free(p->seg_rule_start);
    free(p->seg_rule);
    free(p->seg);
    free(p->rule_state);
    free(p->rule_low);
    free(p->best);
    free(p->own);
    free(p->adj_start);
    free(p->adj);
    free(p->index);
    free(p->lowlink);
    free(p->scc);
    free(p->stack);
    free(p->call);
    free(p->iter);
    free(p->scc_cost);
    free(p->scc_root);
    free(p->scc_live);
    free(p->mask);
    free(p->tmp);
    free(p->tmph);
    memset(p, 0, sizeof *p);
}

/* ---- the closure ---- */

/* Whether segment seg offers class k: a bit of its class set, or (images
 * too large for the sets) a binary search in its sync entries, which are
 * sorted by class. */
static inline bool offers_seg(const struct por *p, uint32_t seg, uint32_t k)
{
    const struct image *img = p->img;
    if (p->offer_bits)
        return p->offer_bits[(size_t)seg * p->class_words + (k >> 6)] >> (k & 63) & 1;
    uint32_t lo = p->seg_sync[seg], hi = img->state_offsets[seg + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (image_entry_label(img->trans[mid], img->act_bits) < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < img->state_offsets[seg + 1] && image_entry_label(img->trans[lo], img->act_bits) == k;
}

/* Whether component c, a participant of rule r, blocks it in this state
 * (offers no entry of r's class). */
static inline bool blocks(const struct por *p, uint32_t c, uint32_t r)
{
    if (p->blk)
        return p->blk[(size_t)p->seg[c] * p->rule_words + (r >> 6)] >> (r & 63) & 1;
    return !offers_seg(p, p->seg[c], p->rule_class[r]);
}

/* The blocker that disabled rule r's necessary enabling set is taken from
 * (por.h): of its blocking participants, the one of fewest enabled moves
 * (ties: the lowest); computed once per state. */
static uint32_t blocker(struct por *p, uint32_t r)
{
    if (p->rule_state[r] == p->sstamp)
        return p->rule_low[r];
    uint32_t low = UINT32_MAX;
    for (uint32_t i = p->part_start[r]; i < p->part_start[r + 1]; i++)
        if (blocks(p, p->part[i], r) && (low == UINT32_MAX || p->own[p->part[i]] < p->own[low]))
            low = p->part[i];
    p->rule_state[r] = p->sstamp;
    p->rule_low[r] = low;
    return low;
}

static inline bool rule_enabled(const struct por *p, uint32_t r)
{
    return p->en[r >> 6] >> (r & 63) & 1;
}

/* Adds each enabled rule to its lowest participant's moves. */
static void count_rules(struct por *p)
{
    for (uint32_t w = 0; w < p->rule_words; w++)
        for (uint64_t m = p->en[w]; m; m &= m - 1) {
            const uint32_t r = w * 64 + (uint32_t)__builtin_ctzll(m);
            p->own[p->part[p->part_start[r]]]++;
        }
}

/* The rules enabled in this state (those that no component blocks) into
 * p->en; then each component's enabled moves: its local targets plus,
 * attributed to r's lowest participant, every enabled rule r. */
static void enabled_rules(struct por *p)
{
    const uint32_t rw = p->rule_words, nr = p->img->n_rules;
    for (uint32_t w = 0; w < rw; w++)
        p->en[w] = 0;
    for (uint32_t c = 0; c < p->n; c++)
        p->own[c] = p->seg_local[p->seg[c]];
    if (!p->blk) {
        for (uint32_t r = 0; r < nr; r++) {
            bool on = true;
            for (uint32_t i = p->part_start[r]; i < p->part_start[r + 1] && on; i++)
                on = !blocks(p, p->part[i], r);
            p->en[r >> 6] |= (uint64_t)on << (r & 63);
        }
        count_rules(p);
        return;
    }
    for (uint32_t c = 0; c < p->n; c++) {
        const uint64_t *b = p->blk + (size_t)p->seg[c] * rw;
        for (uint32_t w = 0; w < rw; w++)
            p->en[w] |= b[w];
    }
    for (uint32_t w = 0; w < rw; w++) {
        const uint32_t bits = nr - 64 * w >= 64 ? 64 : nr - 64 * w;
        p->en[w] = ~p->en[w] & (bits == 64 ? ~0ull : (1ull << bits) - 1);
    }
    count_rules(p);
}

/* The dependency graph of this state: an edge c -> c' for each rule r of c
 * that (a) or (b) of por.h asks to follow from c -- r enabled: the next
 * participant of r after c, cyclically (so all of P(r) is reachable from
 * each of them, and they share an SCC); r disabled and c not blocking it:
 * its chosen blocker (blocker()); c blocking r: none.  The set reachable
 * from a component is then closed under (a) and (b). */
static void build_graph(struct por *p)
{
    uint32_t e = 0;
    for (uint32_t c = 0; c < p->n; c++) {
        p->adj_start[c] = e;
        /* The rules of c in ascending order: those it does not block (from
         * the segment's list), or all of them. */
        const uint32_t *list = p->seg_rule ? p->seg_rule + p->seg_rule_start[p->seg[c]] : p->crule + p->crule_start[c];
        const uint32_t len = p->seg_rule ? p->seg_rule_start[p->seg[c] + 1] - p->seg_rule_start[p->seg[c]]
                                         : p->crule_start[c + 1] - p->crule_start[c];
        for (uint32_t q = 0; q < len; q++) {
            const uint32_t r = list[q], b = p->part_start[r], end = p->part_start[r + 1];
            if (rule_enabled(p, r)) {
                uint32_t i = b;
                while (p->part[i] != c)
                    i++;
                p->adj[e++] = p->part[i + 1 < end ? i + 1 : b];
            } else if (!blocks(p, c, r)) {
                p->adj[e++] = blocker(p, r);
            }
        }
    }
    p->adj_start[p->n] = e;
}

/* Tarjan's algorithm, iteratively, from component v: numbers the SCCs in
 * the order they complete (every SCC reachable from another completes
 * first) into p->scc, and marks an SCC a candidate when it has enabled
 * moves and reaches no other SCC with any: the sets reachable from those
 * are the closed sets of fewest enabled moves (a set reachable from X
 * contains the one reachable from any SCC X reaches). */
static void tarjan(struct por *p, uint32_t v, uint32_t *counter, uint32_t *nscc, uint32_t *sp)
{
    uint32_t depth = 0;
    p->call[depth] = v, p->iter[depth] = p->adj_start[v];
    p->index[v] = p->lowlink[v] = ++*counter;
    p->stack[(*sp)++] = v, p->scc[v] = UINT32_MAX - 1; /* on the stack */
    for (;;) {
        const uint32_t u = p->call[depth];
        if (p->iter[depth] < p->adj_start[u + 1]) {
            const uint32_t w = p->adj[p->iter[depth]++];
            if (p->index[w] == 0) {
                p->index[w] = p->lowlink[w] = ++*counter;
                p->stack[(*sp)++] = w, p->scc[w] = UINT32_MAX - 1;
                depth++;
                p->call[depth] = w, p->iter[depth] = p->adj_start[w];
            } else if (p->scc[w] == UINT32_MAX - 1 && p->index[w] < p->lowlink[u]) {
                p->lowlink[u] = p->index[w];
            }
            continue;
        }
        if (p->lowlink[u] == p->index[u]) {
            /* u roots an SCC: pop it, sum its moves, look at its exits. */
            const uint32_t id = (*nscc)++;
            uint32_t cost = 0, first = *sp;
            do {
                first--;
                p->scc[p->stack[first]] = id;
            } while (p->stack[first] != u);
            bool reaches = false;
            for (uint32_t i = first; i < *sp; i++) {
                const uint32_t c = p->stack[i];
                cost += p->own[c];
                for (uint32_t j = p->adj_start[c]; j < p->adj_start[c + 1]; j++)
                    reaches |= p->scc[p->adj[j]] != id && p->scc_live[p->scc[p->adj[j]]];
            }
            p->scc_live[id] = reaches || cost > 0;
            p->scc_cost[id] = reaches ? 0 : cost;
            p->scc_root[id] = u;
            *sp = first;
        }
        if (depth == 0)
            return;
        depth--;
        const uint32_t parent = p->call[depth];
        if (p->lowlink[u] < p->lowlink[parent])
            p->lowlink[parent] = p->lowlink[u];
    }
}

/* The candidate SCC of fewest enabled moves (ties: the first completed);
 * its components into p->best.  False when it holds every component. */
static bool choose(struct por *p)
{
    build_graph(p);
    memset(p->index, 0, p->n * sizeof *p->index);
    uint32_t counter = 0, nscc = 0, sp = 0;
    for (uint32_t c = 0; c < p->n; c++)
        if (p->index[c] == 0)
            tarjan(p, c, &counter, &nscc, &sp);
    uint32_t best = UINT32_MAX;
    for (uint32_t k = 0; k < nscc; k++)
        if (p->scc_cost[k] > 0 && (best == UINT32_MAX || p->scc_cost[k] < p->scc_cost[best]))
            best = k;
    p->nbest = 0;
    if (best == UINT32_MAX)
        return false;
    for (uint32_t c = 0; c < p->n; c++)
        if (p->scc[c] == best)
            p->best[p->nbest++] = c;
    return p->nbest < p->n;
}

/* ---- the records ---- */

/* Moves the records that only the chosen components' moves can produce
 * (or self-loops) to the front, stably; *r gets their number. */
static int partition(struct por *p, struct succ_gen *g, const uint32_t *vec, size_t *r, struct wx_error *err)
{
    const struct image *img = p->img;
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
    memset(p->mask, 0, words * sizeof *p->mask);
    for (uint32_t i = 0; i < p->nbest; i++) {
        const uint32_t c = p->best[i];
        for (uint32_t b = img->first_bit[c]; b < img->first_bit[c + 1]; b++)
            p->mask[b >> 5] |= 1u << (b & 31);
    }
    size_t m = 0, o = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t *rec = g->rec + i * st;
        uint32_t moved = 0, diff = 0;
        for (uint32_t w = 0; w < words; w++) {
            moved |= (rec[1 + w] ^ vec[w]) & p->mask[w];
            diff |= rec[1 + w] ^ vec[w];
        }
        if (moved || !diff) {
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
    if (++p->sstamp == 0) {
        memset(p->rule_state, 0, img->n_rules * sizeof *p->rule_state);
        p->sstamp = 1;
    }
    for (uint32_t c = 0; c < p->n; c++)
        p->seg[c] = img->proc_offsets[c]
                    + image_get_field(vec, img->first_bit[c], img->first_bit[c + 1] - img->first_bit[c]);
    enabled_rules(p);
    if (!choose(p))
        return WX_OK;
    int rc = partition(p, g, vec, r, err);
    if (rc)
        *r = g->n;
    return rc;
}
