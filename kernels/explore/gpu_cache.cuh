/*
 * gpu_cache.cuh -- the block-local successor cache: an open-addressing set
 * of vectors in shared memory, filled by single threads during expansion
 * and emptied into the global table by whole warps after each iteration.
 *
 * Layout: C rows of sw words; row s holds one key (sw words, control word
 * last, same encoding as the global table, gpu_table.cuh, but the new bit is
 * never set here).  Side arrays per row: the global slot the row was stored
 * at (filled by the flush), and, for traces, the tile state and label of the
 * first thread that inserted the row.
 *
 * Insert by one thread: linear probing from a hash-derived row, at most
 * `probes` rows.  The per-row protocol is the global one reduced to one
 * thread: an EMPTY control word is taken with atomicCAS(EMPTY -> RESERVED)
 * on shared memory, the data words are written with atomicExch,
 * __threadfence_block() orders them before the control word, which is then
 * set with atomicExch.  A reader that sees a published control word equal to
 * the key's issues __threadfence_block() before reading the data words
 * (with atomicOr(.., 0)); one that sees RESERVED waits until it is
 * published, sleeping between re-reads, for at most GPU_SPIN_NS
 * (gpu_wait_expired; CACHE_SPIN after that, a bug).  The data words are
 * accessed with atomics although the fences already order them: plain accesses would be correct, but compute-sanitizer
 * racecheck does not model fences and would report every such pair, hiding
 * real hazards; shared-memory atomics cost a few cycles per word here.
 * The waiting thread and the writer may be lanes of one warp: independent thread scheduling
 * (sm_70 and later) guarantees that the diverged writer makes progress, and
 * the waiter's sleeps hand the warp to it: under compute-sanitizer
 * racecheck, a waiter that re-reads without sleeping can keep its writer
 * from running for minutes (bench/history/explorer.md).
 * Rows are never freed during an iteration, so, as in the global table, a
 * key is stored at most once and a thread that reaches an EMPTY row has seen
 * every row where the key could be.  When `probes` rows are all taken by
 * other keys the insert reports CACHE_FULL and the caller stores the vector
 * in the global table directly; since rows are never freed, every later
 * insert of that key in this iteration also reports CACHE_FULL, so a vector
 * is identified either by one cache row or by one global slot, never both.
 */
#ifndef WX_GPU_CACHE_CUH
#define WX_GPU_CACHE_CUH

#include "gpu_int.cuh"

enum { CACHE_FOUND = 0, CACHE_INSERTED = 1, CACHE_FULL = 2, CACHE_SPIN = 3 };

__device__ __forceinline__ int cache_insert(uint32_t *cache, uint32_t C, uint32_t probes, uint32_t sw,
                                            const uint32_t *v, unsigned long long h, uint32_t *row)
{
    const uint32_t key_ctl = v[sw - 1];
    uint32_t s = (uint32_t)(((h >> 32) * (unsigned long long)C) >> 32);
    unsigned long long t0 = 0; /* start of a wait for a RESERVED row (gpu_wait_expired) */
    for (uint32_t j = 0; j < probes && j < C; j++, s = (s + 1 == C) ? 0 : s + 1) {
        volatile uint32_t *r = cache + (size_t)s * sw;
        for (;;) {
            const uint32_t c = r[sw - 1];
            if (c == GPU_EMPTY) {
                if (atomicCAS((uint32_t *)&r[sw - 1], GPU_EMPTY, GPU_RESERVED) == GPU_EMPTY) {
                    for (uint32_t q = 0; q + 1 < sw; q++)
                        atomicExch((uint32_t *)&r[q], v[q]);
                    __threadfence_block();
                    atomicExch((uint32_t *)&r[sw - 1], key_ctl);
                    *row = s;
                    return CACHE_INSERTED;
                }
                continue;
            }
            if (c == GPU_RESERVED) {
                if (gpu_wait_expired(&t0))
                    return CACHE_SPIN; /* a bug: see GPU_SPIN_NS */
                continue;
            }
            if (c == key_ctl) {
                __threadfence_block();
                bool eq = true;
                for (uint32_t q = 0; q + 1 < sw; q++)
                    if (atomicOr((uint32_t *)&r[q], 0u) != v[q]) {
                        eq = false;
                        break;
                    }
                if (eq) {
                    *row = s;
                    return CACHE_FOUND;
                }
            }
            break;
        }
    }
    return CACHE_FULL;
}

/* The cache of the one-shot layout (p.oneshot: rows of 1, 2 or 4 words,
 * every word of an empty row EMPTY): a row is taken or compared with one
 * atomicCAS(EMPTY row -> key) of 4, 8 or 16 bytes, whose returned value
 * decides at once (EMPTY: inserted; the key: found; another key: that row
 * is final, probe the next).  So no row is ever half-written or RESERVED,
 * nobody waits, and no plain access races with the CAS (racecheck sees
 * atomics only).  Same results and guarantees as cache_insert. */
__device__ __forceinline__ int cache_install(uint32_t *cache, uint32_t C, uint32_t probes, uint32_t sw,
                                             const uint32_t *v, unsigned long long h, uint32_t *row)
{
    uint32_t s = (uint32_t)(((h >> 32) * (unsigned long long)C) >> 32);
    /* the keys are built per probe: hoisted out of the loop they cost
     * the 1- and 2-word rows registers and time (bench/history/explorer.md) */
    for (uint32_t j = 0; j < probes && j < C; j++, s = (s + 1 == C) ? 0 : s + 1) {
        bool empty, same;
        if (sw == 4) {
            const gpu_u128 key = key128(v);
            const gpu_u128 old = atomicCAS((gpu_u128 *)(cache + (size_t)s * 4), GPU_EMPTY128, key);
            empty = gpu_u128_eq(old, GPU_EMPTY128);
            same = gpu_u128_eq(old, key);
        } else if (sw == 2) {
            const unsigned long long key = (unsigned long long)v[0] | (unsigned long long)v[1] << 32;
            const unsigned long long old = atomicCAS((unsigned long long *)(cache + (size_t)s * 2), ~0ull, key);
            empty = old == ~0ull;
            same = old == key;
        } else {
            const uint32_t old = atomicCAS(cache + s, GPU_EMPTY, v[0]);
            empty = old == GPU_EMPTY;
            same = old == v[0];
        }
        if (empty || same) {
            *row = s;
            return empty ? CACHE_INSERTED : CACHE_FOUND;
        }
    }
    return CACHE_FULL;
}

#endif
