/*
 * vecset.h -- a sequential set of fixed-width vectors with dense ids: the
 * state store of the sequential explorers (explore_seq, explore_mdp).
 *
 * The vectors are kept by id in insertion order (vec: id * words ..), so a
 * BFS level is an id range; an open-addressing index of id + 1 (0 = empty,
 * linear probing, doubled at half load) finds them.  The hash (FNV-1a and a
 * final mix) is independent of the parallel table's (hash/vtable.h) on
 * purpose: the sequential explorer is the oracle the others are tested
 * against.
 *
 * Invariants: count <= cap <= max; every vector added without `hidden` is
 * in the index exactly once; vectors are never removed.
 * No locking: one thread adds; vecset_find may run on many threads while
 * none adds (explore_mdp's parallel phases).
 */
#ifndef WX_VECSET_H
#define WX_VECSET_H

#include <stddef.h>
#include <stdint.h>

#include "../util/error.h"

struct vecset {
    uint32_t words;
    uint64_t count, cap, max; /* vectors stored; capacity of vec; limit */
    uint32_t *vec;            /* cap * words */
    uint64_t *index;          /* n_index slots: id + 1, 0 = empty */
    uint64_t n_index;         /* power of two */
};

/* An empty set of words-word vectors holding at most max of them;
 * WX_ELIMIT when out of memory. */
int vecset_init(struct vecset *s, uint32_t words, uint64_t max, struct wx_error *err);
void vecset_free(struct vecset *s);

/* Finds or adds v.  Returns 1 when added, 0 when present, -1 with err
 * filled (WX_ELIMIT: the limit max -- "memory budget exhausted", advising
 * --memory -- or out of memory).  *id gets its id.  cap may grow: callers
 * keeping arrays parallel to vec grow them to cap. */
int vecset_put(struct vecset *s, const uint32_t *v, uint64_t *id, struct wx_error *err);

/* Looks v up without adding it: 1 and *id when present, else 0.  Only
 * reads, so several threads may call it at once while nobody adds. */
int vecset_find(const struct vecset *s, const uint32_t *v, uint64_t *id);

/* vecset_find of the n vectors v[k * words ..]: id[k] = the id, or
 * UINT64_MAX when absent.  Prefetches the index and the vectors a few
 * lookups ahead, so the misses of a batch overlap (a large set's lookups
 * are bound by memory latency).  Read-only, as vecset_find. */
void vecset_find_many(const struct vecset *s, const uint32_t *v, size_t n, uint64_t *id);

/* Appends v without looking for it and without indexing it (a vector that
 * must not be found, e.g. a fresh initial state): WX_OK or -1 as above. */
int vecset_add_hidden(struct vecset *s, const uint32_t *v, uint64_t *id, struct wx_error *err);

#endif
