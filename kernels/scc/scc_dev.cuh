/*
 * scc_dev.cuh -- device helpers shared by the GPU SCC kernels
 * (kernels/scc/): queue flushes, flag bytes, the device clock and the level
 * driver of the persistent engines.  Header-inline: the kernels are
 * compiled without relocatable device code.
 */
#ifndef WX_SCC_DEV_CUH
#define WX_SCC_DEV_CUH

#include <cooperative_groups.h>

#include "scc_int.cuh"

namespace cg = cooperative_groups;

/* The source of edge e: the u with off[u] <= e < off[u + 1] (binary search
 * in off, n vertices). */
__device__ __forceinline__ uint64_t scc_source_of_edge(const uint64_t *off, uint32_t n, uint64_t e)
{
    uint64_t lo = 0, hi = n; /* off[lo] <= e < off[hi] */
    while (hi - lo > 1) {
        uint64_t mid = (lo + hi) / 2;
        if (off[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

__device__ inline uint32_t scc_vload(const uint32_t *p)
{
    return *(const volatile uint32_t *)p;
}

/* Vertices a thread queues per item before it falls back to one atomic
 * per vertex (only high-degree vertices ever do). */
#define PUSH_CAP 8

/* The warp-wide queue flush of the push levels, for two queues (a, b): each
 * lane appends its nb buffered vertices to the queue of its side. */
__device__ __forceinline__ void scc_flush2(bool first, uint32_t nb, const uint32_t *buf,
                                           uint32_t *next_a, unsigned long long *ncnt_a,
                                           uint32_t *next_b, unsigned long long *ncnt_b)
{
    const unsigned lane = threadIdx.x & 31;
    uint32_t ka = first ? nb : 0, kb = first ? 0 : nb, sa = ka, sb = kb;
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t ta = __shfl_up_sync(FULL_MASK, sa, d), tb = __shfl_up_sync(FULL_MASK, sb, d);
        if ((int)lane >= d) {
            sa += ta;
            sb += tb;
        }
    }
    unsigned long long base_a = 0, base_b = 0;
    if (lane == 31) {
        if (sa)
            base_a = atomicAdd(ncnt_a, (unsigned long long)sa);
        if (sb)
            base_b = atomicAdd(ncnt_b, (unsigned long long)sb);
    }
    base_a = __shfl_sync(FULL_MASK, base_a, 31);
    base_b = __shfl_sync(FULL_MASK, base_b, 31);
    uint32_t *q = first ? next_a : next_b;
    unsigned long long pos = first ? base_a + sa - ka : base_b + sb - kb;
    for (uint32_t j = 0; j < nb; j++)
        q[pos + j] = buf[j];
}

__device__ inline unsigned long long warp_sum64(unsigned long long x)
{
    for (int d = 16; d; d >>= 1)
        x += __shfl_down_sync(FULL_MASK, x, d);
    return x;
}

/* ---- persistent (cooperative) engines ----
 *
 * The per-level launches above cost tens of microseconds per level (launch,
 * an idle grid, the host's checks), which dominated graphs of high diameter
 * (a 3-D torus: 300 levels; a state space with one long cycle: 10^4 - 10^6).
 * The kernels below run a whole propagation, a whole search or a whole trim
 * in ONE cooperative launch: the grid (all blocks resident) processes a
 * level, meets at a grid barrier (cg::grid_group::sync, a few microseconds),
 * and reads the next level's queue length, which every thread sees equal
 * after the barrier, so all leave the loop together when both queues are
 * empty.  Queue lengths rotate over three counters as in scc_push_level.
 * Data written by other blocks within the launch (queues, labels, flags,
 * counters) is read through L2 (__ldcg / volatile), never through L1.
 *
 * CHAIN FOLLOWING: a thread that finds exactly one new vertex processes it
 * itself at once instead of queueing it, up to chain_hops times per item, so
 * a path of length L costs L dependent steps of one thread rather than L
 * levels of the whole grid.  Sound because every engine here is monotone:
 * the result is a fixpoint that does not depend on the processing order,
 * only on every vertex being processed after its last change (see each
 * engine).
 */

__device__ __forceinline__ unsigned long long scc_ldcg64(const unsigned long long *p)
{
    return __ldcg(p);
}

__device__ __forceinline__ unsigned long long scc_vload64(const unsigned long long *p)
{
    return *(const volatile unsigned long long *)p;
}

__device__ __forceinline__ uint32_t scc_flag_load(const uint32_t *words, uint32_t v)
{
    return (((const volatile uint32_t *)words)[v >> 2] >> (8 * (v & 3))) & 0xffu;
}

/* Sets bit in v's flag byte; true when this call set it and v is live
 * (setting a bit of a PF_OUT vertex is harmless: nothing reads them). */
__device__ __forceinline__ bool scc_flag_claim(uint32_t *words, uint32_t v, uint32_t bit)
{
    const uint32_t sh = 8 * (v & 3);
    return !((atomicOr(&words[v >> 2], bit << sh) >> sh) & (bit | PF_OUT));
}

/* The level driver of the persistent engines.  B::level(level, ca, cb,
 * every, i0, stride, hops) processes the level's items i0 + threadIdx.x,
 * i0 + stride + threadIdx.x, ... (< ca + cb; i0 a multiple of blockDim.x,
 * so loops are warp-uniform), appending to the next level's queues.
 *   - A level of more than blockDim.x items runs on the whole grid, then a
 *     grid barrier.
 *   - A stretch of levels of at most blockDim.x items each runs on block 0
 *     alone, levels separated by __syncthreads (a fraction of a grid
 *     barrier's cost: a graph whose frontier stays narrow for 10^4 levels
 *     pays block barriers, not grid barriers); the other blocks wait at the
 *     grid barrier that ends the stretch, then read the level reached from
 *     *lv (written by block 0 before that barrier).
 *   - Levels of at most CHAIN_FRONTIER items allow chain following (hops).
 * The queue lengths cnt_a / cnt_b (NULL: one queue) rotate over three
 * counters as in scc_push_level; the exit test reads the same counter,
 * finished before a barrier, in every thread, so all threads leave
 * together.  Returns the number of the first level not run. */
#define CHAIN_FRONTIER 32

/* The device clock (ns), for the CPU-residue budget. */
__device__ __forceinline__ unsigned long long scc_now_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* budget_ns (0: none): thread 0 of block 0 compares the device clock with
 * its start plus the budget after every level and, past it, sets *abort_f;
 * every thread reads the flag after the barrier that ends the level (or
 * the block-0 stretch), so all leave together.  The caller then discards
 * the engine's partial labels or flags (only finished SCCs were written to
 * rep, and those are right). */
template <bool BUDGET, class B>
__device__ inline uint32_t scc_run_levels(B &body, uint32_t level, unsigned long long *cnt_a,
                                          unsigned long long *cnt_b, int all, uint64_t n,
                                          uint32_t chain_hops, unsigned long long *lv,
                                          unsigned long long budget_ns, unsigned long long *abort_f)
{
    cg::grid_group grid = cg::this_grid();
    const bool timer = BUDGET && blockIdx.x == 0 && threadIdx.x == 0;
    const unsigned long long t_end = timer ? scc_now_ns() + budget_ns : 0;
    for (int k = 0;; k++) {
        const bool every = all && k == 0;
        uint64_t ca = every ? n : scc_ldcg64(cnt_a + level % 3);
        uint64_t cb = cnt_b ? (every ? n : scc_ldcg64(cnt_b + level % 3)) : 0;
        uint64_t total = ca + cb;
        if (total == 0)
            break;
        if (!every && total <= blockDim.x) {
            if (blockIdx.x == 0) {
                for (;;) {
                    if (threadIdx.x == 0) {
                        cnt_a[(level + 2) % 3] = 0;
                        if (cnt_b)
                            cnt_b[(level + 2) % 3] = 0;
                    }
                    body.level(level, ca, cb, false, 0, blockDim.x,
                               total <= CHAIN_FRONTIER ? chain_hops : 0);
                    if (timer && scc_now_ns() > t_end)
                        *abort_f = 1;
                    __threadfence();
                    __syncthreads();
                    level++;
                    ca = scc_ldcg64(cnt_a + level % 3);
                    cb = cnt_b ? scc_ldcg64(cnt_b + level % 3) : 0;
                    total = ca + cb;
                    if (total == 0 || total > blockDim.x || (BUDGET && scc_ldcg64(abort_f)))
                        break;
                }
                if (threadIdx.x == 0)
                    *lv = level;
            }
            grid.sync();
            level = (uint32_t)scc_ldcg64(lv);
            if (BUDGET && scc_ldcg64(abort_f))
                break;
            continue;
        }
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            cnt_a[(level + 2) % 3] = 0;
            if (cnt_b)
                cnt_b[(level + 2) % 3] = 0;
        }
        body.level(level, ca, cb, every, (uint64_t)blockIdx.x * blockDim.x,
                   (uint64_t)gridDim.x * blockDim.x, total <= CHAIN_FRONTIER ? chain_hops : 0);
        if (timer && scc_now_ns() > t_end)
            *abort_f = 1;
        grid.sync();
        level++;
        if (BUDGET && scc_ldcg64(abort_f))
            break;
    }
    return level;
}

/* Appends w to the next queue of its side: buffered, or at once when the
 * buffer is full. */
#define SCC_APPEND(first, w)                                                           \
    do {                                                                               \
        if (nb < PUSH_CAP)                                                             \
            buf[nb++] = (w);                                                           \
        else                                                                           \
            ((first) ? next_a : next_b)[atomicAdd((first) ? ncnt_a : ncnt_b, 1ull)] = (w); \
    } while (0)

#endif
