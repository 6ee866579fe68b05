/*
 * por.h -- partial-order reduction for the CPU explorers: per state, a
 * stubborn set of the enabled transitions, computed from the image's
 * synchronisation structure, and the cycle proviso that the explorers
 * apply with it.
 *
 * Transitions come in groups: a local entry of component c moves c alone;
 * a rule r moves exactly its participants P(r), and whether it is enabled
 * depends only on their local states (every participant offers r's class,
 * image.h).  Two groups with disjoint participants are independent: they
 * commute and neither enables or disables the other.
 *
 * The stubborn set of a state s is given by a set C of components, closed
 * under
 *   (a) an enabled rule r with a participant in C has all of P(r) in C;
 *   (b) a disabled rule r with a participant in C has a participant that
 *       blocks it (offers no entry of r's class in s) in C;
 * and T(C) = every group touching C.  (b) may take any blocker: each one
 * keeps r disabled while it stays put; por_core.h takes the one with the fewest
 * enabled moves (ties: the lowest), a function of the state alone.  Its enabled members are the local
 * moves of C's components and the enabled rules touching C (inside C, by
 * (a)).  T(C) is a strong stubborn set where every enabled member is a key
 * transition:
 *   - a sequence w of transitions outside T(C) moves no component of C;
 *   - so an enabled t in T(C) (participants in C) stays enabled along w and
 *     commutes with it: s -w t-> s' implies s -t w-> s', and s -w-> implies
 *     s -w t->;
 *   - a disabled t in T(C) is blocked by a component of C that w leaves
 *     where it is, so w never enables it.
 * por_reduce builds, per state, a graph on the components whose reachable
 * sets are closed under (a) and (b) (por_core.h), and takes the closed set with
 * the fewest enabled moves that has any: the set reachable from an SCC
 * that has enabled moves and reaches no other SCC with enabled moves (ties:
 * the SCC with the lowest component).  The choice depends on the state
 * alone, not on the order in which the graph's edges are found.
 *
 * What is preserved.  Deadlocks: a path from s to a deadlock contains a
 * transition of T(C) (an enabled key transition cannot stay enabled up to a
 * deadlock); moving the first one to the front shortens the path and keeps
 * its end, so by induction on its length the reduced graph reaches every
 * deadlock that the full graph reaches -- no proviso needed, and a larger
 * set (a state expanded in full) keeps this.  A reduced set is empty only
 * where the full one is, so the reduced graph has exactly the full graph's
 * deadlocks.  Visible actions (the labels flagged
 * in `visible`): a state with an enabled visible transition is expanded in
 * full (por_reduce returns every record), so that it is recognised; and,
 * when some label is visible (p->proviso), the explorers apply the BFS
 * proviso -- without visible labels only deadlocks are asked for, which
 * need none, and every reduced set is kept as it is:
 *
 *   a state s of BFS level d keeps its reduced set only when one of the
 *   reduced set's targets is not in levels 0 .. d (it is new: first reached
 *   in level d + 1); otherwise s is expanded in full.
 *
 * Argument.  Let delta(u) be the length of a shortest path in the full graph
 * from u to a state with an enabled visible transition.  Suppose some state
 * of the reduced graph has a finite delta but no state of the reduced graph
 * has delta 0; take one, s, with the smallest delta = n > 0 and, among
 * those, the deepest level d.  Fix a shortest path s -t1..tn-> u.  If s was
 * expanded in full, t1 leads to delta n - 1: impossible.  Else its set T(C)
 * was kept.  If some ti is in T(C), the first one commutes to the front:
 * ti(s) has delta <= n - 1: impossible.  If none is, every enabled t in
 * T(C) is a key transition, so t(s) -t1..tn-> u' with u -t-> u'; u's visible
 * transition v is not in T(C) (else, by the commutation above, v would be
 * enabled in s, delta(s) = 0), so v, outside T(C), stays enabled after t:
 * delta(t(s)) <= n for every reduced successor t(s).  The proviso gives one
 * at level d + 1: delta n, deeper than s -- a contradiction.  So the
 * reduced graph reaches a visible transition whenever the full graph does.
 *
 * Determinism.  The reduced set depends on the state; the proviso on the
 * set of states in levels 0 .. d, which is, level by level by induction, the
 * same for every explorer and every thread schedule (and on nothing more
 * without visible labels).  So explore_seq and
 * explore_cpu (any thread count) build the same reduced graph: same states,
 * transitions, deadlocks and depth.
 *
 * Self-loops (records whose target is the source) are kept in every
 * reduced set: they reach nothing new and cost nothing to keep.
 *
 * One struct por per thread (scratch); the image is only read.  The
 * construction is por_core.h's, which the GPU explorer's general generator
 * runs too (kernels/explore/tile.cu), on tables that por_pack copies to
 * the device; with visible labels it applies the proviso above level by
 * level (kernels/explore/driver.cu, gx_por_level): reduced sets first,
 * then the states that the proviso or a visible label expands in full get
 * the rest of their records.
 */
#ifndef WX_POR_H
#define WX_POR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "por_core.h"
#include "successors.h"
#include "../network/image.h"
#include "../util/error.h"

struct por {
    const struct image *img;
    const uint8_t *visible;   /* n_labels flags, or NULL: none visible */
    bool proviso;             /* some label is visible: the explorers
                                 apply the proviso (por.h) */
    uint32_t n, words;
    size_t parts;             /* participants of all rules together */
    struct por_tables t;      /* the image's structure (por_core.h); its
                                 arrays are this struct's, except the
                                 image's own */
    struct por_scratch s;     /* per-state scratch, with the blocker cache */
    uint32_t *mask;           /* words: the fields of the chosen set */
    uint32_t *tmp;            /* partition scratch (records) */
    uint64_t *tmph;           /* partition scratch (hashes) */
    size_t tmp_cap;
};

#ifdef __cplusplus
extern "C" {
#endif

/* Prepares p for img (which passed image_check); visible: NULL or n_labels
 * flags (the --action labels).  WX_ELIMIT when out of memory. */
int por_init(struct por *p, const struct image *img, const uint8_t *visible, struct wx_error *err);
void por_free(struct por *p);

/* Tests: drops p's class sets and blocked rules (all == 0: the anchored
 * lists answer which rules are enabled), or every per-segment set (all ==
 * 1): the paths of images whose sets pass POR_OFFER_BYTES. */
void por_drop_sets(struct por *p, int all);

/* g holds the distinct successors of vec (succ_expand, either mode).
 * Reorders them so that the reduced set comes first, each part keeping its
 * order (with g->hash in unordered mode), and returns its size: g->n when
 * the state is expanded in full (no reduction possible, or a visible label
 * enabled).  The caller applies the proviso above to records [0, r).
 * WX_ELIMIT (err filled) when scratch memory cannot grow: then r is g->n. */
int por_reduce(struct por *p, struct succ_gen *g, const uint32_t *vec, size_t *r, struct wx_error *err);

/* The tables of p->t packed into buf (8-byte words; NULL: only counts
 * them), their pointers into *dt as if buf were at address base (a device
 * copy); the image's own arrays are left to the caller.  Returns the
 * words. */
size_t por_pack(const struct por *p, uint64_t *buf, uint64_t *base, struct por_tables *dt);

#ifdef __cplusplus
}
#endif

#endif
