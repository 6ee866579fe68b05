/*
 * por_core.h -- the per-state stubborn-set construction of por.h, one
 * implementation for the CPU explorers (por.c) and the GPU explorer's
 * general generator (kernels/explore/tile.cu): static inline functions
 * (WX_HD: __host__ __device__ under nvcc) on flat tables and a caller's
 * scratch, neither of which they allocate.
 *
 * struct por_tables: the image's arrays that the construction reads and
 * the structure por_init derives from them (participants of each rule,
 * rules of each component, per segment its sync entries, local targets,
 * class set, blocked rules and rule list); host or device pointers.
 * struct por_scratch: one state's work arrays.  The blocker cache
 * (rule_state, rule_low: n_rules each) is optional: without it a blocker
 * is recomputed where it is asked for -- the same function of the state.
 *
 * por_core_state(t, s, vec) computes state vec's chosen components (the
 * closed set of fewest enabled moves, por.h) into s->best / s->nbest and
 * returns whether they reduce (some, not all); por_core_mask and
 * por_core_keep then tell which successor records stay in the reduced set
 * (they move a chosen component, or are self-loops).
 *
 * The choice depends only on the dependency graph's SCCs, so it has two
 * implementations with one answer: with at most POR_BITS_MAX components
 * (s->succ set) the graph is two bit sets per component and the candidate
 * SCCs are found by forward and backward closures over them, without edge
 * lists or a stack; above, Tarjan's algorithm on edge lists.
 */
#ifndef WX_POR_CORE_H
#define WX_POR_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "../network/image.h"

#ifdef __CUDA_ARCH__
#define POR_CTZ64(x) ((uint32_t)(__ffsll((long long)(x)) - 1))
#else
#define POR_CTZ64(x) ((uint32_t)__builtin_ctzll(x))
#endif

/* Components up to which the dependency graph is kept as bit sets (one
 * 64-bit word per component and direction). */
#define POR_BITS_MAX 64u

struct por_tables {
    uint32_t n, n_rules, rule_words, class_words, act_bits;
    const uint32_t *proc_offsets, *state_offsets, *first_bit; /* the image's */
    const uint64_t *trans;                                   /* the image's */
    const uint32_t *rule_class;     /* n_rules */
    const uint32_t *part_start, *part; /* participants of rule r, ascending */
    const uint32_t *crule_start, *crule; /* rules of component c */
    const uint32_t *seg_sync;       /* per segment: first sync entry */
    const uint32_t *seg_local;      /* per segment: local targets */
    const uint64_t *offer_bits;     /* per segment: classes offered,
                                       class_words each; NULL: too large */
    const uint64_t *blk;            /* per segment: rules blocked there,
                                       rule_words each; NULL: too large */
    const uint32_t *seg_rule_start, *seg_rule; /* per segment: rules taken
                                       part in and not blocked; NULL: too large */
    /* per segment, from its seg_rule list (NULL with it): */
    const uint32_t *seg_anch_start, *seg_anch;   /* the rules its component anchors
                                       (the participant with the fewest local
                                       states offering the rule's class) */
    const uint32_t *seg_peer_start, *seg_peer;   /* the other participants of its
                                       two-participant rules, ascending, once */
    const uint32_t *seg_multi_start, *seg_multi; /* its rules of three or more
                                       participants */
};

struct por_scratch {
    uint32_t *seg;                  /* n: each component's segment */
    uint32_t *own;                  /* n: enabled moves of each component */
    uint32_t *adj_start, *adj;      /* n + 1, parts + 1: the dependency graph */
    uint32_t *index, *lowlink, *scc, *stack, *call, *iter; /* n: Tarjan */
    uint32_t *scc_cost, *scc_low;   /* n: per SCC (its lowest component) */
    uint8_t *scc_live;              /* n: per SCC: it or an SCC it reaches has moves */
    uint32_t *best;                 /* n: the chosen components */
    uint64_t *succ, *pred;          /* n each, or NULL (more than POR_BITS_MAX
                                       components): each component's successors
                                       and predecessors in the dependency graph */
    uint64_t *en;                   /* rule_words: the rules enabled here */
    uint32_t *rule_state, *rule_low;/* n_rules each, or NULL: no blocker cache */
    uint32_t sstamp, nbest;
};

/* Whether segment seg offers class k: a bit of its class set, or a binary
 * search in its sync entries, which are sorted by class. */
WX_HD bool por_core_offers(const struct por_tables *t, uint32_t seg, uint32_t k)
{
    if (t->offer_bits)
        return t->offer_bits[(uint64_t)seg * t->class_words + (k >> 6)] >> (k & 63) & 1;
    uint32_t lo = t->seg_sync[seg], hi = t->state_offsets[seg + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (image_entry_label(t->trans[mid], t->act_bits) < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->state_offsets[seg + 1] && image_entry_label(t->trans[lo], t->act_bits) == k;
}

/* Whether component c, a participant of rule r, blocks it in this state
 * (offers no entry of r's class). */
WX_HD bool por_core_blocks(const struct por_tables *t, const struct por_scratch *s, uint32_t c, uint32_t r)
{
    if (t->blk)
        return t->blk[(uint64_t)s->seg[c] * t->rule_words + (r >> 6)] >> (r & 63) & 1;
    return !por_core_offers(t, s->seg[c], t->rule_class[r]);
}

/* The blocker that disabled rule r's necessary enabling set is taken from
 * (por.h): of its blocking participants, the one of fewest enabled moves
 * (ties: the lowest); cached per state where s has the cache. */
WX_HD uint32_t por_core_blocker(const struct por_tables *t, struct por_scratch *s, uint32_t r)
{
    if (s->rule_state && s->rule_state[r] == s->sstamp)
        return s->rule_low[r];
    uint32_t low = UINT32_MAX;
    for (uint32_t i = t->part_start[r]; i < t->part_start[r + 1]; i++)
        if (por_core_blocks(t, s, t->part[i], r) && (low == UINT32_MAX || s->own[t->part[i]] < s->own[low]))
            low = t->part[i];
    if (s->rule_state) {
        s->rule_state[r] = s->sstamp;
        s->rule_low[r] = low;
    }
    return low;
}

WX_HD bool por_core_rule_enabled(const struct por_scratch *s, uint32_t r)
{
    return s->en[r >> 6] >> (r & 63) & 1;
}

/* The rules enabled in this state (those that no component blocks) into
 * s->en; then each component's enabled moves: its local targets plus,
 * attributed to r's lowest participant, every enabled rule r.  With the
 * blocked sets (blk): the complement of their union.  Else, with the
 * anchored lists: a rule can be enabled only where its anchor offers its
 * class, so each component's segment lists the offered rules it anchors
 * and only their other participants are asked -- a state costs the rules
 * its components anchor and offer, not all rules.  Else every rule is
 * asked. */
WX_HD void por_core_enabled_rules(const struct por_tables *t, struct por_scratch *s)
{
    const uint32_t rw = t->rule_words, nr = t->n_rules;
    for (uint32_t w = 0; w < rw; w++)
        s->en[w] = 0;
    for (uint32_t c = 0; c < t->n; c++)
        s->own[c] = t->seg_local[s->seg[c]];
    if (!t->blk && t->seg_anch) {
        for (uint32_t c = 0; c < t->n; c++) {
            const uint32_t seg = s->seg[c];
            for (uint32_t q = t->seg_anch_start[seg]; q < t->seg_anch_start[seg + 1]; q++) {
                const uint32_t r = t->seg_anch[q];
                bool on = true;
                for (uint32_t i = t->part_start[r]; i < t->part_start[r + 1] && on; i++)
                    on = t->part[i] == c || !por_core_blocks(t, s, t->part[i], r);
                s->en[r >> 6] |= (uint64_t)on << (r & 63);
            }
        }
    } else if (!t->blk) {
        for (uint32_t r = 0; r < nr; r++) {
            bool on = true;
            for (uint32_t i = t->part_start[r]; i < t->part_start[r + 1] && on; i++)
                on = !por_core_blocks(t, s, t->part[i], r);
            s->en[r >> 6] |= (uint64_t)on << (r & 63);
        }
    } else {
        for (uint32_t c = 0; c < t->n; c++) {
            const uint64_t *b = t->blk + (uint64_t)s->seg[c] * rw;
            for (uint32_t w = 0; w < rw; w++)
                s->en[w] |= b[w];
        }
        for (uint32_t w = 0; w < rw; w++) {
            const uint32_t bits = nr - 64 * w >= 64 ? 64 : nr - 64 * w;
            s->en[w] = ~s->en[w] & (bits == 64 ? ~0ull : (1ull << bits) - 1);
        }
    }
    for (uint32_t w = 0; w < rw; w++)
        for (uint64_t m = s->en[w]; m; m &= m - 1) {
            const uint32_t r = w * 64 + POR_CTZ64(m);
            s->own[t->part[t->part_start[r]]]++;
        }
}

/* The edge c -> to of the dependency graph: into the bit sets, or
 * appended to the edge list at e; returns the list's new end. */
WX_HD uint32_t por_core_edge(struct por_scratch *s, uint32_t c, uint32_t to, uint32_t e)
{
    if (s->succ) {
        s->succ[c] |= 1ull << to;
        s->pred[to] |= 1ull << c;
        return e;
    }
    s->adj[e] = to;
    return e + 1;
}

/* The dependency graph of this state: an edge c -> c' for each rule r of c
 * that (a) or (b) of por.h asks to follow from c -- r enabled: the next
 * participant of r after c, cyclically (so all of P(r) is reachable from
 * each of them, and they share an SCC); r disabled and c not blocking it:
 * its chosen blocker (por_core_blocker); c blocking r: none.  The set
 * reachable from a component is then closed under (a) and (b).  Only the
 * set of edges matters (por_core_choose does not depend on their order or
 * repeats), so a run of edges to one target is kept once, and with the
 * per-segment lists the edges of two-participant rules come precomputed. */
WX_HD void por_core_build_graph(const struct por_tables *t, struct por_scratch *s)
{
    uint32_t e = 0;
    if (t->seg_peer) {
        /* A rule of two participants gives c an edge to the other one
         * whether it is enabled (its next participant) or not (c offers
         * its class, so the other one blocks it): per segment, those
         * targets are listed once.  A rule of one participant gives only a
         * self-loop, which changes no SCC. */
        for (uint32_t c = 0; c < t->n; c++) {
            const uint32_t seg = s->seg[c];
            s->adj_start[c] = e;
            for (uint32_t q = t->seg_peer_start[seg]; q < t->seg_peer_start[seg + 1]; q++)
                e = por_core_edge(s, c, t->seg_peer[q], e);
            for (uint32_t q = t->seg_multi_start[seg]; q < t->seg_multi_start[seg + 1]; q++) {
                const uint32_t r = t->seg_multi[q], b = t->part_start[r], end = t->part_start[r + 1];
                uint32_t i = b;
                if (!por_core_rule_enabled(s, r)) {
                    e = por_core_edge(s, c, por_core_blocker(t, s, r), e);
                    continue;
                }
                while (t->part[i] != c)
                    i++;
                e = por_core_edge(s, c, t->part[i + 1 < end ? i + 1 : b], e);
            }
        }
        s->adj_start[t->n] = e;
        return;
    }
    for (uint32_t c = 0; c < t->n; c++) {
        s->adj_start[c] = e;
        /* The rules of c in ascending order: those it does not block (from
         * the segment's list), or all of them. */
        const uint32_t *list = t->seg_rule ? t->seg_rule + t->seg_rule_start[s->seg[c]] : t->crule + t->crule_start[c];
        const uint32_t len = t->seg_rule ? t->seg_rule_start[s->seg[c] + 1] - t->seg_rule_start[s->seg[c]]
                                         : t->crule_start[c + 1] - t->crule_start[c];
        for (uint32_t q = 0; q < len; q++) {
            const uint32_t r = list[q], b = t->part_start[r], end = t->part_start[r + 1];
            uint32_t to;
            if (por_core_rule_enabled(s, r)) {
                uint32_t i = b;
                while (t->part[i] != c)
                    i++;
                to = t->part[i + 1 < end ? i + 1 : b];
            } else if (t->seg_rule || !por_core_blocks(t, s, c, r)) { /* a listed rule: c offers its class */
                /* of two participants, the other one is the only blocker */
                to = end - b == 2 ? t->part[t->part[b] == c ? b + 1 : b] : por_core_blocker(t, s, r);
            } else {
                continue;
            }
            if (s->succ || e == s->adj_start[c] || s->adj[e - 1] != to) /* runs of one target: one edge */
                e = por_core_edge(s, c, to, e);
        }
    }
    s->adj_start[t->n] = e;
}

/* An SCC rooted at u completes in Tarjan's algorithm: its members (stack
 * [.., *sp) down to u) get number id; it is live when it has enabled moves
 * or reaches a live SCC, a candidate (cost > 0) when it has moves and
 * reaches no live SCC. */
WX_HD void por_core_pop_scc(struct por_scratch *s, uint32_t u, uint32_t id, uint32_t *sp)
{
    uint32_t cost = 0, first = *sp;
    do {
        first--;
        s->scc[s->stack[first]] = id;
    } while (s->stack[first] != u);
    bool reaches = false;
    for (uint32_t i = first; i < *sp; i++) {
        const uint32_t c = s->stack[i];
        cost += s->own[c];
        for (uint32_t j = s->adj_start[c]; j < s->adj_start[c + 1]; j++)
            reaches |= s->scc[s->adj[j]] != id && s->scc_live[s->scc[s->adj[j]]];
    }
    uint32_t low = u;
    for (uint32_t i = first; i < *sp; i++)
        low = s->stack[i] < low ? s->stack[i] : low;
    s->scc_live[id] = reaches || cost > 0;
    s->scc_cost[id] = reaches ? 0 : cost;
    s->scc_low[id] = low;
    *sp = first;
}

/* Tarjan's algorithm, iteratively, from component v: numbers the SCCs in
 * the order they complete (every SCC reachable from another completes
 * first) into s->scc, and marks an SCC a candidate when it has enabled
 * moves and reaches no other SCC with any: the sets reachable from those
 * are the closed sets of fewest enabled moves (a set reachable from X
 * contains the one reachable from any SCC X reaches). */
WX_HD void por_core_tarjan(struct por_scratch *s, uint32_t v, uint32_t *counter, uint32_t *nscc, uint32_t *sp)
{
    uint32_t depth = 0;
    s->call[depth] = v, s->iter[depth] = s->adj_start[v];
    s->index[v] = s->lowlink[v] = ++*counter;
    s->stack[(*sp)++] = v, s->scc[v] = UINT32_MAX - 1; /* on the stack */
    for (;;) {
        const uint32_t u = s->call[depth];
        if (s->iter[depth] < s->adj_start[u + 1]) {
            const uint32_t w = s->adj[s->iter[depth]++];
            if (s->index[w] == 0) {
                s->index[w] = s->lowlink[w] = ++*counter;
                s->stack[(*sp)++] = w, s->scc[w] = UINT32_MAX - 1;
                depth++;
                s->call[depth] = w, s->iter[depth] = s->adj_start[w];
            } else if (s->scc[w] == UINT32_MAX - 1 && s->index[w] < s->lowlink[u]) {
                s->lowlink[u] = s->index[w];
            }
            continue;
        }
        if (s->lowlink[u] == s->index[u])
            por_core_pop_scc(s, u, (*nscc)++, sp);
        if (depth == 0)
            return;
        depth--;
        const uint32_t parent = s->call[depth];
        if (s->lowlink[u] < s->lowlink[parent])
            s->lowlink[parent] = s->lowlink[u];
    }
}

/* por_core_choose on bit sets (at most POR_BITS_MAX components).  The
 * live components L (those that reach enabled moves: the backward closure
 * of the movers over the predecessor sets) hold every component that
 * reaches moves, so a candidate SCC -- moves, and no component outside it
 * that it reaches has any -- is exactly a sink SCC of the graph restricted
 * to L.  From each mover c not yet in an SCC, its forward closure F within
 * L and, within F, the components that reach c give c's SCC; it is a
 * candidate when it is all of F.  Ties go to the SCC with the lowest
 * component, as in Tarjan's version.  A graph of one SCC costs three
 * passes over its sets. */
WX_HD bool por_core_choose_bits(const struct por_tables *t, struct por_scratch *s)
{
    const uint32_t n = t->n;
    uint64_t movers = 0;
    for (uint32_t c = 0; c < n; c++) {
        s->succ[c] = s->pred[c] = 0;
        movers |= (uint64_t)(s->own[c] > 0) << c;
    }
    por_core_build_graph(t, s);
    uint64_t live = movers;
    for (uint64_t fr = movers; fr;) { /* the frontier: reached, not yet expanded */
        const uint32_t d = POR_CTZ64(fr);
        fr &= fr - 1;
        const uint64_t nw = s->pred[d] & ~live;
        live |= nw, fr |= nw;
    }
    uint64_t done = 0, best = 0;
    uint32_t best_cost = 0;
    while (movers & ~done) {
        const uint32_t c = POR_CTZ64(movers & ~done);
        uint64_t f = 1ull << c, scc = f;
        for (uint64_t fr = f; fr;) {
            const uint32_t d = POR_CTZ64(fr);
            fr &= fr - 1;
            const uint64_t nw = s->succ[d] & live & ~f;
            f |= nw, fr |= nw;
        }
        for (uint64_t fr = scc; fr;) {
            const uint32_t d = POR_CTZ64(fr);
            fr &= fr - 1;
            const uint64_t nw = s->pred[d] & f & ~scc;
            scc |= nw, fr |= nw;
        }
        done |= scc;
        if (scc != f)
            continue;
        uint32_t cost = 0;
        for (uint64_t m = scc; m; m &= m - 1)
            cost += s->own[POR_CTZ64(m)];
        if (!best || cost < best_cost || (cost == best_cost && POR_CTZ64(scc) < POR_CTZ64(best)))
            best = scc, best_cost = cost;
    }
    s->nbest = 0;
    for (uint64_t m = best; m; m &= m - 1)
        s->best[s->nbest++] = POR_CTZ64(m);
    return s->nbest > 0 && s->nbest < n;
}

/* The candidate SCC of fewest enabled moves (ties: the one with the lowest
 * component, so that the choice depends on the graph's edges only, not on
 * their order); its components into s->best.  False when it holds every
 * component. */
WX_HD bool por_core_choose(const struct por_tables *t, struct por_scratch *s)
{
    if (s->succ)
        return por_core_choose_bits(t, s);
    por_core_build_graph(t, s);
    for (uint32_t c = 0; c < t->n; c++)
        s->index[c] = 0;
    uint32_t counter = 0, nscc = 0, sp = 0;
    for (uint32_t c = 0; c < t->n; c++)
        if (s->index[c] == 0)
            por_core_tarjan(s, c, &counter, &nscc, &sp);
    uint32_t best = UINT32_MAX;
    for (uint32_t k = 0; k < nscc; k++)
        if (s->scc_cost[k] > 0 &&
            (best == UINT32_MAX || s->scc_cost[k] < s->scc_cost[best] ||
             (s->scc_cost[k] == s->scc_cost[best] && s->scc_low[k] < s->scc_low[best])))
            best = k;
    s->nbest = 0;
    if (best == UINT32_MAX)
        return false;
    for (uint32_t c = 0; c < t->n; c++)
        if (s->scc[c] == best)
            s->best[s->nbest++] = c;
    return s->nbest < t->n;
}

/* State vec's chosen components into s->best; true when they reduce.
 * With the blocker cache, s->sstamp must differ from every stamp in
 * s->rule_state (the caller starts a state with ++sstamp, clearing the
 * stamps when it wraps). */
WX_HD bool por_core_state(const struct por_tables *t, struct por_scratch *s, const uint32_t *vec)
{
    for (uint32_t c = 0; c < t->n; c++)
        s->seg[c] = t->proc_offsets[c] + image_get_field(vec, t->first_bit[c], t->first_bit[c + 1] - t->first_bit[c]);
    por_core_enabled_rules(t, s);
    return por_core_choose(t, s);
}

/* The bits of the chosen components' fields, words words, into mask. */
WX_HD void por_core_mask(const struct por_tables *t, const struct por_scratch *s, uint32_t words, uint32_t *mask)
{
    for (uint32_t w = 0; w < words; w++)
        mask[w] = 0;
    for (uint32_t i = 0; i < s->nbest; i++) {
        const uint32_t c = s->best[i], lo = t->first_bit[c], hi = t->first_bit[c + 1];
        for (uint32_t b = lo; b < hi; b = (b | 31) + 1) { /* bits [b, min(hi, next word)) */
            const uint32_t end = hi < (b | 31) + 1 ? hi : (b | 31) + 1, len = end - b;
            mask[b >> 5] |= (len == 32 ? ~0u : (1u << len) - 1) << (b & 31);
        }
    }
}

/* Whether the record with target rec from vec is in the reduced set: it
 * moves a chosen component, or it is a self-loop. */
WX_HD bool por_core_keep(const uint32_t *mask, uint32_t words, const uint32_t *vec, const uint32_t *rec)
{
    uint32_t moved = 0, diff = 0;
    for (uint32_t w = 0; w < words; w++) {
        moved |= (rec[w] ^ vec[w]) & mask[w];
        diff |= rec[w] ^ vec[w];
    }
    return moved || !diff;
}

/* The device's scratch of one state, in 32-bit words (an even number):
 * por_core_carve's arrays (with bits, the bit sets where n <=
 * POR_BITS_MAX), the mask (words) and a flag word, without the blocker
 * cache. */
WX_HD uint32_t por_core_scratch_words(uint32_t n, uint32_t parts, uint32_t rule_words, uint32_t words, bool bits)
{
    const uint32_t w = 2 * rule_words + (bits && n <= POR_BITS_MAX ? 4 * n : 0) + 12 * n + 1 + parts + 1 + (n + 3) / 4 +
                       words + 1;
    return (w + 1) & ~1u;
}

/* Carves s's arrays out of base (8-byte aligned, por_core_scratch_words
 * words); returns the mask's words, followed by the flag word. */
WX_HD uint32_t *por_core_carve(struct por_scratch *s, uint32_t *base, uint32_t n, uint32_t parts,
                               uint32_t rule_words, bool bits)
{
    s->en = (uint64_t *)base;
    uint32_t *q = base + 2 * rule_words;
    s->succ = s->pred = 0;
    if (bits && n <= POR_BITS_MAX) {
        s->succ = (uint64_t *)q, q += 2 * n;
        s->pred = (uint64_t *)q, q += 2 * n;
    }
    s->seg = q, q += n;
    s->own = q, q += n;
    s->adj_start = q, q += n + 1;
    s->adj = q, q += parts + 1;
    s->index = q, q += n;
    s->lowlink = q, q += n;
    s->scc = q, q += n;
    s->stack = q, q += n;
    s->call = q, q += n;
    s->iter = q, q += n;
    s->scc_cost = q, q += n;
    s->scc_low = q, q += n;
    s->best = q, q += n;
    s->scc_live = (uint8_t *)q, q += (n + 3) / 4;
    s->rule_state = s->rule_low = 0;
    s->sstamp = s->nbest = 0;
    return q;
}

#endif
