/*
 * table_kernels.cuh -- the kernels that grow the GPU explorer's table
 * (table.cu, gx_grow) and their launchers.  Included by tile.cu only: all
 * the explorer's kernels are one translation unit, so that ptxas compiles
 * the table inserts they share (gpu_table.cuh's __noinline__ functions)
 * once for all their callers, as explore_tile's register plan assumes.
 */
#ifndef WX_TABLE_KERNELS_CUH
#define WX_TABLE_KERNELS_CUH

/* ---- growing the table (table.cu, gx_grow) ----
 * Between launches of the asynchronous mode without a graph, the table is
 * replaced by a larger one.  Only the table and the work lists (queues,
 * saved tiles) hold slot numbers then, so no slot map is needed: the
 * pending states (claimed, not expanded) are marked new again, every
 * stored vector is copied out with its new bit (compact_table), and
 * reinsert stores them in the new table, claiming the new ones into the
 * new input queue (or leaving them new for the scanners when it is full).
 * No exploration kernel runs meanwhile, so plain atomics suffice. */

/* Marks the n states slots[0..n) new again (they were claimed). */
__global__ void mark_pending(const __grid_constant__ gpu_params p, const unsigned long long *slots,
                             unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        atomicOr(tbl_slot_ptr(p, slots[i]) + p.sw - 1, GPU_NEW_BIT);
}

/* The same for the saved tiles, one block per saved tile. */
__global__ void mark_saved(const __grid_constant__ gpu_params p)
{
    const unsigned long long *sv = p.saved + (size_t)blockIdx.x * (p.T + 1);
    const uint32_t ns = (uint32_t)sv[0];
    for (uint32_t j = threadIdx.x; j < ns; j += blockDim.x)
        atomicOr(tbl_slot_ptr(p, sv[1 + j]) + p.sw - 1, GPU_NEW_BIT);
}

/* Copies every stored vector (new bit cleared) to x[0..cap) (sw words
 * each) and its new bit to isnew[]; cnt[0] counts the vectors (all of
 * them, also past cap: the host checks), cnt[1] the new ones.  One thread
 * per bucket; a bucket's published slots are its first ones.  A warp takes
 * 32 neighbouring buckets and reserves their output with one atomicAdd
 * (one per bucket made the single counter the bottleneck).  blockDim.x is a multiple of 32. */
__global__ void compact_table(const __grid_constant__ gpu_params p, uint32_t *x, uint8_t *isnew,
                              unsigned long long cap, unsigned long long *cnt)
{
    const uint32_t lane = threadIdx.x & 31u;
    for (unsigned long long b0 = blockIdx.x * (unsigned long long)blockDim.x + (threadIdx.x & ~31u);
         b0 < p.nbuckets; b0 += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long bk = b0 + lane;
        const uint32_t *base = p.table + bk * p.bw;
        uint32_t k = 0, nn = 0;
        if (bk < p.nbuckets)
            while (k < p.spb && ctl_published(base[(size_t)k * p.sw + p.sw - 1]))
                k++;
        const uint32_t incl = gpu_warp_inclusive_sum(k);
        const uint32_t total = __shfl_sync(GPU_FULL, incl, 31);
        unsigned long long at = 0;
        if (lane == 31 && total)
            at = atomicAdd(&cnt[0], (unsigned long long)total);
        at = __shfl_sync(GPU_FULL, at, 31) + (incl - k);
        for (uint32_t j = 0; j < k && at + j < cap; j++) {
            const uint32_t *v = base + (size_t)j * p.sw;
            uint32_t *d = x + (at + j) * p.sw;
            for (uint32_t q = 0; q + 1 < p.sw; q++)
                d[q] = v[q];
            const uint32_t c = v[p.sw - 1];
            d[p.sw - 1] = c & GPU_LOW31;
            isnew[at + j] = (uint8_t)(c >> 31);
            nn += c >> 31;
        }
        nn = __reduce_add_sync(GPU_FULL, nn);
        if (lane == 0 && nn)
            atomicAdd(&cnt[1], (unsigned long long)nn);
    }
}

/* A vector just stored by reinsert (published new): the new ones go to the
 * input queue q_out (claimed) while it has room (cnt[2] counts the
 * attempts), the others are claimed at once. */
__device__ __forceinline__ uint32_t reinsert_flag(const gpu_params &p, unsigned long long slot, uint8_t isnew,
                                                  unsigned long long *cnt)
{
    if (!isnew)
        return 0;
    const unsigned long long q = atomicAdd(&cnt[2], 1ull);
    if (q < p.q_cap) {
        p.q_out[q] = slot;
        return 0;
    }
    return GPU_NEW_BIT;
}

__device__ __forceinline__ bool all_zero(const uint32_t *v, uint32_t sw)
{
    uint32_t o = 0;
    for (uint32_t q = 0; q < sw; q++)
        o |= v[q];
    return o == 0;
}

/* Stores x[0..n) (distinct vectors) in the (new) table p.table. */
__global__ void reinsert(const __grid_constant__ gpu_params p, const uint32_t *x, const uint8_t *isnew,
                         unsigned long long n, unsigned long long *cnt)
{
    const uint32_t sw = p.sw;
    if (sw <= 2 || p.oneshot) {
        /* one thread per vector, installed NEW with one CAS */
        for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
             i += (unsigned long long)gridDim.x * blockDim.x) {
            const uint32_t *v = x + i * sw;
            const unsigned long long h = gpu_hash(v, sw);
            unsigned long long slot = 0;
            const int r = tbl_find_or_install_thread(p, v, h, gpu_hash2(h), &slot);
            if (r != TBL_RESERVED) {
                gpu_set_error(p, r == TBL_FULL ? GPU_ERR_TABLE_FULL : r == TBL_FOUND ? GPU_ERR_REHASH : GPU_ERR_SPIN);
                return;
            }
            if (!reinsert_flag(p, slot, isnew[i], cnt))
                atomicAnd(tbl_slot_ptr(p, slot) + sw - 1, GPU_LOW31);
            if (all_zero(v, sw))
                p.ctl->init_slot = slot;
        }
        return;
    }
    if (p.lines == 1) {
        /* one thread per vector: reserve, write, publish (as the flush;
         * a warp per vector is several times slower) */
        for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
             i += (unsigned long long)gridDim.x * blockDim.x) {
            const uint32_t *v = x + i * sw;
            const unsigned long long h = gpu_hash(v, sw);
            unsigned long long slot = 0;
            const int r = tbl_find_or_reserve_thread(p, v, h, gpu_hash2(h), &slot);
            if (r != TBL_RESERVED) {
                gpu_set_error(p, r == TBL_FULL ? GPU_ERR_TABLE_FULL : r == TBL_FOUND ? GPU_ERR_REHASH : GPU_ERR_SPIN);
                return;
            }
            const uint32_t flag = reinsert_flag(p, slot, isnew[i], cnt);
            if (all_zero(v, sw))
                p.ctl->init_slot = slot;
            tbl_publish_thread(p, slot, v, flag);
        }
        return;
    }
    /* sw > 32: one warp per vector */
    const uint32_t lane = threadIdx.x & 31u;
    const unsigned long long w0 = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) >> 5;
    const unsigned long long nw = ((unsigned long long)gridDim.x * blockDim.x) >> 5;
    for (unsigned long long i = w0; i < n; i += nw) {
        const uint32_t *v = x + i * sw;
        const unsigned long long h = gpu_hash(v, sw);
        unsigned long long slot = 0;
        const int r = tbl_find_or_reserve(p, v, h, gpu_hash2(h), &slot);
        if (r != TBL_RESERVED) {
            if (lane == 0)
                gpu_set_error(p, r == TBL_FULL ? GPU_ERR_TABLE_FULL : r == TBL_FOUND ? GPU_ERR_REHASH : GPU_ERR_SPIN);
            return;
        }
        uint32_t flag = 0;
        if (lane == 0) {
            flag = reinsert_flag(p, slot, isnew[i], cnt);
            if (all_zero(v, sw))
                p.ctl->init_slot = slot;
        }
        flag = __shfl_sync(GPU_FULL, flag, 0);
        tbl_publish(p, slot, v, flag);
    }
}

/* Launchers (table.cu): each returns the launch's status. */
cudaError_t gx_launch_mark_pending(const gpu_params &p, const unsigned long long *slots, unsigned long long n,
                                   int grid)
{
    mark_pending<<<grid, 256>>>(p, slots, n);
    return cudaGetLastError();
}

cudaError_t gx_launch_mark_saved(const gpu_params &p, uint32_t blocks)
{
    mark_saved<<<blocks, 256>>>(p);
    return cudaGetLastError();
}

cudaError_t gx_launch_compact_table(const gpu_params &p, uint32_t *x, uint8_t *isnew, unsigned long long cap,
                                    unsigned long long *cnt, int grid)
{
    compact_table<<<grid, 256>>>(p, x, isnew, cap, cnt);
    return cudaGetLastError();
}

cudaError_t gx_launch_reinsert(const gpu_params &p, const uint32_t *x, const uint8_t *isnew, unsigned long long n,
                               unsigned long long *cnt, int grid)
{
    reinsert<<<grid, 256>>>(p, x, isnew, n, cnt);
    return cudaGetLastError();
}

#endif
