/*
 * ids_kernels.cuh -- the finishing kernels of the GPU explorer (dense ids,
 * state vectors, edge endpoints; ids.cu) and their launchers.  Included by
 * tile.cu only (see table_kernels.cuh).
 */
#ifndef WX_IDS_KERNELS_CUH
#define WX_IDS_KERNELS_CUH

/* ---- finishing: dense ids ----
 * Slots of a bucket fill in order, so the published slots of bucket b are
 * k = 0 .. count(b)-1, and rank(slot) = prefix[b] + k numbers the states
 * densely in slot order.  The initial state must get id 0: ids are ranks
 * with ranks 0 and r0 = rank(initial) swapped. */
__global__ void count_buckets(const __grid_constant__ gpu_params p, unsigned long long *counts)
{
    for (unsigned long long bk = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; bk < p.nbuckets;
         bk += (unsigned long long)gridDim.x * blockDim.x) {
        const uint32_t *base = p.table + bk * p.bw;
        uint32_t k = 0;
        while (k < p.spb && ctl_published(base[(size_t)k * p.sw + p.sw - 1]))
            k++;
        counts[bk] = k;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        counts[p.nbuckets] = 0;
}

__device__ __forceinline__ unsigned long long id_of_rank(unsigned long long r, unsigned long long r0)
{
    return r == r0 ? 0 : (r == 0 ? r0 : r);
}

/* Copies the vectors with ids in [lo, hi) to out (words each). */
__global__ void gather_vectors(const __grid_constant__ gpu_params p, const unsigned long long *prefix,
                               unsigned long long r0, unsigned long long lo, unsigned long long hi,
                               uint32_t words, uint32_t *out)
{
    for (unsigned long long bk = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; bk < p.nbuckets;
         bk += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long r = prefix[bk], cnt = prefix[bk + 1] - r;
        for (uint32_t k = 0; k < cnt; k++) {
            const unsigned long long id = id_of_rank(r + k, r0);
            if (id < lo || id >= hi)
                continue;
            const uint32_t *v = p.table + bk * p.bw + (size_t)k * p.sw;
            for (uint32_t q = 0; q < words; q++)
                out[(id - lo) * words + q] = q == p.sw - 1 ? (v[q] & GPU_LOW31) : v[q];
        }
    }
}

/* Maps slot numbers to ids in place. */
__global__ void map_slots(const unsigned long long *prefix, uint32_t spb, unsigned long long r0,
                          unsigned long long *a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long s = a[i], bk = s / spb;
        a[i] = id_of_rank(prefix[bk] + (s - bk * spb), r0);
    }
}

/* Launchers (ids.cu): each returns the launch's status. */
cudaError_t gx_launch_count_buckets(const gpu_params &p, unsigned long long *counts, int grid)
{
    count_buckets<<<grid, 256>>>(p, counts);
    return cudaGetLastError();
}

cudaError_t gx_launch_gather_vectors(const gpu_params &p, const unsigned long long *prefix, unsigned long long r0,
                                     unsigned long long lo, unsigned long long hi, uint32_t words, uint32_t *out,
                                     int grid)
{
    gather_vectors<<<grid, 256>>>(p, prefix, r0, lo, hi, words, out);
    return cudaGetLastError();
}

cudaError_t gx_launch_map_slots(const unsigned long long *prefix, uint32_t spb, unsigned long long r0,
                                unsigned long long *a, unsigned long long n)
{
    map_slots<<<256, 256>>>(prefix, spb, r0, a, n);
    return cudaGetLastError();
}

#endif
