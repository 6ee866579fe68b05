/*
 * successors.h -- the one successor generator of the CPU explorers: the
 * distinct (label, successor vector) pairs of a product state, read straight
 * from the image (network/image.h).
 *
 * Semantics (image.h): decode each component's local state from the vector;
 * every local entry's targets give one successor each (that component moves,
 * the label is the entry's result label); then, class by class in increasing
 * class order, every rule of the class whose participants all have class-k
 * entries in their current state fires, giving the full cartesian product of
 * all participants' targets across all their class-k entries and slots,
 * labelled class_result[k].  The pairs of one state are then sorted and made
 * unique on (label, vector), so a caller counting them counts distinct
 * (source, label, target) triples.
 *
 * Output order: ascending by (label, vector words compared as bytes) -- a
 * deterministic order that explore_seq's BFS numbering relies on.
 *
 * One struct succ_gen per thread: it owns scratch and output buffers that
 * grow as needed.  The image is only read.
 *
 * Two implementations give the same set of records: the general one (any
 * image) and a fast path that succ_init prepares when the vector has at
 * most 4 words and the network at most 64 components (precompiled XOR
 * deltas; the rules that fire found by ORing per-component-state masks of
 * blocked rules when there are at most 128 rules, else from their lowest
 * participant; deduplication only in states where succ_init could not rule
 * duplicates out; succ_fast.h).
 */
#ifndef WX_SUCCESSORS_H
#define WX_SUCCESSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../network/image.h"
#include "../util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct succ_fast;

/* The entries of one component for one class in the current state. */
struct succ_group {
    uint64_t key;             /* class << 32 | component */
    uint32_t begin, end;      /* entry range in img->trans */
    uint32_t tbegin, tcount;  /* targets in succ_gen.targets; tcount
                                 UINT32_MAX until gathered */
};

/* One participant of the rule being fired. */
struct succ_part {
    uint32_t first, width;    /* the component's field */
    uint32_t tbegin, count;   /* its targets in succ_gen.targets */
    const uint32_t *targets;  /* succ_gen.targets + tbegin */
};

struct succ_gen {
    const struct image *img;
    uint32_t words;
    uint32_t stride;          /* words per output record: 1 + words */

    /* Output: n records [label, vector...], stride words each. */
    uint32_t *rec;
    size_t n, cap;            /* in records */

    /* Unordered mode (set by the caller after succ_init, e.g. explore_cpu,
     * which numbers states in no particular order anyway): succ_expand then
     * leaves the distinct records in generation order and fills hash[i] =
     * vtable_hash(vector i), which the caller reuses for its table lookups.
     * Duplicates are dropped through these hashes: records are compared in
     * full only when label and hash agree, so the result is exact. */
    bool unordered;
    uint64_t *hash;           /* cap entries (unordered mode) */
    uint32_t *dd;             /* dd_cap slots: open-addressing set of record
                                 indices + 1, for states with many records */
    size_t dd_cap;

    /* Scratch for sorting / uniquing the output. */
    uint32_t *rec2;
    uint32_t *order;
    size_t order_cap;

    /* Classes: each component's sync entries in this state form a run
     * sorted by class.  The classes offered by >= 2 components are visited
     * in increasing order by one of two strategies, chosen by succ_init
     * from the image (tests may override it; both give the same output):
     * SUCC_HEAP merges the runs through a min-heap of run cursors, jumping
     * over classes one component offers alone (few components, many
     * classes, e.g. a channel accepting any of hundreds of data);
     * SUCC_COUNTING cuts the runs into groups and counting-sorts them by
     * class (many components, few classes). */
    enum { SUCC_HEAP, SUCC_COUNTING } strategy;
    struct succ_group *cut, *sorted; /* SUCC_COUNTING: at most max_groups */
    uint32_t *class_count, *class_start; /* SUCC_COUNTING: n_classes */
    uint32_t *run_comp, *run_pos, *run_end; /* n_comps: component, cursor
                                 and end (entry indices) of each run */
    uint64_t *run_key;        /* n_comps: class at the cursor << 32 | component */
    uint32_t *heap;           /* n_comps: runs ordered by run_key */
    struct succ_group *groups;/* n_comps: the groups of the class being
                                 fired, one per offering component */
    uint32_t *group_of;       /* n_comps: group index of the comp in the
                                 class being fired */
    uint32_t *present;        /* mask_words: comps with entries of that class */

    /* Targets of the class being fired, gathered per group on first use. */
    uint32_t *targets;
    size_t targets_cap;

    /* Rule participants, precomputed from the masks. */
    uint32_t *rule_part_start; /* n_rules + 1 */
    uint32_t *rule_part;       /* components, ascending */

    /* Cartesian product scratch. */
    struct succ_part *parts;  /* n_comps */
    uint32_t *odo;            /* n_comps: index into each part's targets */
    uint32_t *cur;            /* words */

    /* The fast path (succ_init sets it up when the image allows: vectors of
     * at most 4 words, at most 64 components).  Every local move and every
     * class target of a component state is precompiled into an XOR delta
     * on the vector read as one 64-bit (<= 2 words) or 128-bit integer,
     * rules are found from their
     * lowest participant, and duplicates are removed only from the states
     * where succ_init could not rule them out (see succ_fast.h).  NULL:
     * the general path.  Tests may set use_fast = false after succ_init to
     * run the general path on the same image; output is the same set. */
    struct succ_fast *fast;
    bool use_fast;
    bool fast_dedup_all;      /* set by succ_init: the fast path must
                                 deduplicate every state (duplicates are
                                 possible without self-loops) */
    bool fast_simple;         /* set by succ_init: every component state has
                                 <= 2 local moves and <= 2 classes, so the fast
                                 path runs without a branch per component;
                                 tests may clear it (loop form) */
    bool fast_pair;           /* set by succ_init: moreover every rule has 2
                                 participants and every class entry 1 target:
                                 no branch per rule either (pair form; used
                                 only with fast_simple; tests may clear it) */
    /* Priority (image.h; NULL unless img->prio_n): marks of the labels
     * that leave the state being expanded, and the labels marked. */
    unsigned char *prio_on;   /* prio_n, all 0 between states */
    uint32_t *prio_marked;    /* prio_n */

    bool fast_mask;           /* set by succ_init: the image has at most 128
                                 rules, so the mask form serves (the rules
                                 that fire found by ORing per-component
                                 blocked-rule masks; any segment shape); it
                                 takes precedence over the other forms;
                                 tests may clear it */
};

/* Prepares g for an img that passed image_check (image.h); allocates
 * (WX_ELIMIT when out of memory). */
int succ_init(struct succ_gen *g, const struct image *img, struct wx_error *err);
void succ_free(struct succ_gen *g);

/* Computes the distinct successors of vec into g->rec / g->n (ascending,
 * or in unordered mode unordered with g->hash filled), after the image's
 * priority when it has one (labels then are the shown ones).  WX_ELIMIT
 * (err filled) when the buffers cannot grow. */
int succ_expand(struct succ_gen *g, const uint32_t *vec, struct wx_error *err);

static inline uint32_t succ_label(const struct succ_gen *g, size_t i)
{
    return g->rec[i * g->stride];
}

static inline const uint32_t *succ_vector(const struct succ_gen *g, size_t i)
{
    return g->rec + i * g->stride + 1;
}

#ifdef __cplusplus
}
#endif

#endif
