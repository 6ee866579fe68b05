/*
 * hostcopy.cu -- staged copies of device arrays into pageable host memory
 * (hostcopy.h).
 *
 * Chunk i goes from the device into pinned buffer i % 2 on a stream; while
 * the team copies buffer i % 2 into the destination, the DMA of chunk i + 1
 * fills the other buffer, which the team finished with at step i - 1.
 */
#include <string.h>

#include "cuda_check.cuh"

extern "C" {
#include "../util/config.h"
#include "../util/hugealloc.h"
#include "../util/pool.h"
#include "hostcopy.h"
}

struct hc_part {
    char *dst;
    const char *src;
};

static void hc_copy(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    (void)chunk;
    const struct hc_part *p = (const struct hc_part *)arg;
    memcpy(p->dst + lo, p->src + lo, hi - lo);
}

/* The staged copy proper; buf[2] pinned, st a stream, ev[2] its events. */
static int hc_staged(char *dst, const char *src, size_t bytes, char *const buf[2], cudaStream_t st,
                     cudaEvent_t const ev[2], struct wx_pool *pool, struct wx_error *err)
{
    int rc = WX_OK;
    const size_t chunk = HOSTCOPY_CHUNK, n = (bytes + chunk - 1) / chunk;
    const int parts = wx_pool_size(pool);
    CUDA_CHECK(cudaDeviceSynchronize()); /* the stream does not wait for the legacy default stream */
    CUDA_CHECK(cudaMemcpyAsync(buf[0], src, bytes < chunk ? bytes : chunk, cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaEventRecord(ev[0], st));
    for (size_t i = 0; i < n; i++) {
        const size_t off = i * chunk, len = bytes - off < chunk ? bytes - off : chunk;
        CUDA_CHECK(cudaEventSynchronize(ev[i & 1]));
        if (i + 1 < n) {
            const size_t noff = off + chunk, nlen = bytes - noff < chunk ? bytes - noff : chunk;
            CUDA_CHECK(cudaMemcpyAsync(buf[(i + 1) & 1], src + noff, nlen, cudaMemcpyDeviceToHost, st));
            CUDA_CHECK(cudaEventRecord(ev[(i + 1) & 1], st));
        }
        struct hc_part p = {dst + off, buf[i & 1]};
        wx_pool_for(pool, len, parts, hc_copy, &p);
    }
out:
    if (rc != WX_OK)
        cudaStreamSynchronize(st); /* no DMA may still write a buffer about to be freed */
    return rc;
}

/* Whether p lies in page-locked memory (cudaMallocHost, cudaHostRegister),
 * which the DMA engine writes directly. */
static int hc_pinned(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

extern "C" int hostcopy_down(void *dst, const void *src, size_t bytes, struct wx_error *err)
{
    int rc = WX_OK;
    char *buf[2] = {NULL, NULL};
    cudaStream_t st = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    struct wx_pool *pool = NULL;
    if (bytes < HOSTCOPY_STAGED_MIN || hc_pinned(dst) ||
        cudaMallocHost((void **)&buf[0], HOSTCOPY_CHUNK) != cudaSuccess ||
        cudaMallocHost((void **)&buf[1], HOSTCOPY_CHUNK) != cudaSuccess) {
        (void)cudaGetLastError(); /* no pinned memory: the plain copy */
        if (bytes)
            CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
        goto out;
    }
    CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming));
    pool = wx_pool_new(0);
    rc = hc_staged((char *)dst, (const char *)src, bytes, buf, st, ev, pool, err);
out:
    wx_pool_free(pool);
    if (ev[0])
        cudaEventDestroy(ev[0]);
    if (ev[1])
        cudaEventDestroy(ev[1]);
    if (st)
        cudaStreamDestroy(st);
    if (buf[0])
        cudaFreeHost(buf[0]);
    if (buf[1])
        cudaFreeHost(buf[1]);
    return rc;
}

extern "C" void *hostcopy_alloc(size_t bytes)
{
    return wx_big_alloc(bytes ? bytes : 1, 1);
}
