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

/* The staging set-up, made once for a batch of copies. */
struct hc_stage {
    char *buf[2];
    cudaStream_t st;
    cudaEvent_t ev[2];
    struct wx_pool *pool;
};

/* *ready 1 when the buffers, the stream and the team are there, 0 where no
 * pinned buffer could be had (the copies are then plain); a failing stream
 * or event call is an error. */
static int hc_stage_open(struct hc_stage *s, int *ready, struct wx_error *err)
{
    int rc = WX_OK;
    memset(s, 0, sizeof *s);
    *ready = 0;
    if (cudaMallocHost((void **)&s->buf[0], HOSTCOPY_CHUNK) != cudaSuccess ||
        cudaMallocHost((void **)&s->buf[1], HOSTCOPY_CHUNK) != cudaSuccess) {
        (void)cudaGetLastError(); /* no pinned memory: the plain copies */
        return WX_OK;
    }
    CUDA_CHECK(cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&s->ev[0], cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&s->ev[1], cudaEventDisableTiming));
    s->pool = wx_pool_new(0);
    *ready = 1;
out:
    return rc;
}

static void hc_stage_close(struct hc_stage *s)
{
    wx_pool_free(s->pool);
    for (int i = 0; i < 2; i++) {
        if (s->ev[i])
            cudaEventDestroy(s->ev[i]);
        if (s->buf[i])
            cudaFreeHost(s->buf[i]);
    }
    if (s->st)
        cudaStreamDestroy(s->st);
    memset(s, 0, sizeof *s);
}

extern "C" int hostcopy_down_parts(const struct hostcopy_part *parts, int n, struct wx_error *err)
{
    int rc = WX_OK, opened = 0, ready = 0;
    struct hc_stage s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < n && rc == WX_OK; i++) {
        const struct hostcopy_part *p = &parts[i];
        const int staged = p->bytes >= HOSTCOPY_STAGED_MIN && !hc_pinned(p->dst);
        if (staged && !opened) { /* the set-up once, at the first part that needs it */
            opened = 1;
            if ((rc = hc_stage_open(&s, &ready, err)) != WX_OK)
                break;
            if (ready) /* the stream does not wait for the legacy default stream */
                CUDA_CHECK(cudaDeviceSynchronize());
        }
        if (staged && ready)
            rc = hc_staged((char *)p->dst, (const char *)p->src, p->bytes, s.buf, s.st, s.ev, s.pool, err);
        else if (p->bytes)
            CUDA_CHECK(cudaMemcpy(p->dst, p->src, p->bytes, cudaMemcpyDeviceToHost));
    }
out:
    hc_stage_close(&s);
    return rc;
}

extern "C" void *hostcopy_alloc(size_t bytes)
{
    return wx_big_alloc(bytes ? bytes : 1, 1);
}
