/*
 * gpu_mix.cuh -- the 64-bit finaliser the GPU explorer's tables hash with
 * (the flat table's keys, the tree store's pairs).
 */
#ifndef WX_GPU_MIX_CUH
#define WX_GPU_MIX_CUH

__device__ __forceinline__ unsigned long long gpu_mix64(unsigned long long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

#endif
