/*
 * store.cuh -- the GPU MDP explorer's state table: open addressing with
 * linear probing over `cap` slots (a power of two), kept at most half full.
 *
 * A slot has a control word (0 empty, 1 being written, 2 published), the
 * vector (words words), the state's id (MDPX_UNNUMBERED until the batch
 * that found it numbers it) and the smallest entry index of the current
 * batch that refers to it (first, for the numbering; only meaningful while
 * the id is MDPX_UNNUMBERED).
 *
 * Insert (one thread): at the probe position, an empty slot is claimed by
 * atomicCAS(0 -> 1); the claimer writes the vector, the id and first, then
 * __threadfence() and publishes (atomicExch -> 2).  A reader meeting a
 * published control word fences (acquire) before comparing the vector; one
 * meeting a slot being written waits for it (the writer has only a few
 * stores left; independent thread scheduling lets it finish).  Slots never
 * empty again and are claimed in probe order, so a vector is stored once.
 * The vectors, ids and firsts are separate arrays (struct of arrays).
 */
#ifndef WX_MDPX_STORE_CUH
#define WX_MDPX_STORE_CUH

#include <stdint.h>

#define MDPX_UNNUMBERED 0xffffffffu
#define MDPX_NO_SLOT 0xffffffffffffffffull

struct mdpx_table {
    uint64_t cap;             /* slots, a power of two */
    uint32_t words;
    uint32_t *ctl;            /* cap */
    uint32_t *key;            /* cap * words */
    uint32_t *id;             /* cap */
    unsigned long long *first; /* cap */
};

__device__ __forceinline__ uint64_t mdpx_hash(const uint32_t *v, uint32_t w)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ w;
    for (uint32_t i = 0; i < w; i++) {
        h = (h ^ v[i]) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 32);
}

/* Finds or inserts v; a new slot gets `id` (MDPX_UNNUMBERED for a state
 * not numbered yet) and first = UINT64_MAX.  MDPX_NO_SLOT when the table is
 * full (never while it is at most half full). */
__device__ uint64_t mdpx_insert(const mdpx_table &t, const uint32_t *v, uint32_t id)
{
    const uint32_t w = t.words;
    const uint64_t mask = t.cap - 1;
    uint64_t s = mdpx_hash(v, w) & mask;
    for (uint64_t probes = 0; probes < t.cap; probes++, s = (s + 1) & mask) {
        for (;;) {
            uint32_t c = *(volatile uint32_t *)&t.ctl[s];
            if (c == 0) {
                if (atomicCAS(&t.ctl[s], 0u, 1u) != 0u)
                    continue; /* taken meanwhile: look again */
                for (uint32_t i = 0; i < w; i++)
                    t.key[s * w + i] = v[i];
                t.id[s] = id;
                t.first[s] = ~0ull;
                __threadfence();
                atomicExch(&t.ctl[s], 2u);
                return s;
            }
            if (c == 1) {
                __nanosleep(32);
                continue;
            }
            __threadfence();
            const volatile uint32_t *k = t.key + s * w;
            uint32_t i = 0;
            while (i < w && k[i] == v[i])
                i++;
            if (i == w)
                return s;
            break;
        }
    }
    return MDPX_NO_SLOT;
}

#endif
