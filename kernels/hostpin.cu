/*
 * hostpin.cu -- page-locking allocated host memory (hostpin.h).
 */
#include <cuda_runtime.h>

extern "C" {
#include "hostpin.h"
}

extern "C" int hostpin_register(void *p, size_t bytes)
{
    if (!p || !bytes)
        return 0;
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky: clear it, the range stays pageable */
        return 0;
    }
    return 1;
}

extern "C" void hostpin_unregister(void *p)
{
    if (p && cudaHostUnregister(p) != cudaSuccess)
        (void)cudaGetLastError();
}
