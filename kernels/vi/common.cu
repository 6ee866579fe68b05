/*
 * common.cu -- what every step of the GPU value iteration uses: device
 * memory of one call, grid sizes, the device probe, and the test hooks
 * that pin a sweep kind and report the kind that ran.
 */
#include <stdio.h>

#include "vi_int.cuh"

/* ---- device memory ---- */

int vx_alloc(struct vx_mem *m, void **ptr, size_t bytes, const char *what, struct wx_error *err)
{
    int rc = WX_OK;
    char call[160];
    *ptr = NULL;
    if (m->n == (int)(sizeof m->p / sizeof m->p[0]))
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal: too many device buffers (%s)", what);
    snprintf(call, sizeof call, "cudaMalloc of %zu bytes for %s", bytes, what);
    CUDA_CHECK_NAMED(cudaMalloc(ptr, bytes ? bytes : 16), call);
    m->p[m->n++] = *ptr;
out:
    if (rc)
        *ptr = NULL;
    return rc;
}

int vx_upload(struct vx_mem *m, void **ptr, const void *src, size_t bytes, const char *what,
              struct wx_error *err)
{
    int rc = vx_alloc(m, ptr, bytes, what, err);
    if (rc == WX_OK && bytes)
        CUDA_CHECK_NAMED(cudaMemcpy(*ptr, src, bytes, cudaMemcpyHostToDevice), what);
out:
    return rc;
}

void vx_free_all(struct vx_mem *m)
{
    for (int i = 0; i < m->n; i++)
        cudaFree(m->p[i]);
    m->n = 0;
}

/* ---- grids ---- */

int vx_sms = 0;

unsigned vx_blocks(uint64_t threads_needed)
{
    if (!vx_sms) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&vx_sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
            (void)cudaGetLastError();
            vx_sms = 132;
        }
    }
    uint64_t b = (threads_needed + VI_GPU_THREADS - 1) / VI_GPU_THREADS;
    uint64_t cap = (uint64_t)vx_sms * (2048 / VI_GPU_THREADS);
    if (b > cap)
        b = cap;
    return b ? (unsigned)b : 1u;
}

static __global__ void vx_narrow(const ull *__restrict__ a, ull n, uint32_t *b)
{
    for (ull i = blockIdx.x * (ull)blockDim.x + threadIdx.x; i < n; i += (ull)gridDim.x * blockDim.x)
        b[i] = (uint32_t)a[i];
}

int vx_narrow_copy(const ull *a, ull n, uint32_t *b, struct wx_error *err)
{
    int rc = WX_OK;
    vx_narrow<<<vx_blocks(n), VI_GPU_THREADS>>>(a, n, b);
    CUDA_CHECK_LAUNCH("vx_narrow");
out:
    return rc;
}

/* ---- the device ---- */

extern "C" int valiter_gpu_available(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        return 0;
    }
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return major >= 9; /* built for sm_90 */
}

extern "C" int valiter_gpu_init(void)
{
    if (!valiter_gpu_available())
        return 0;
    /* cudaFree(NULL) is the customary way to force context creation */
    if (cudaFree(NULL) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    (void)vx_blocks(1); /* caches the SM count */
    return 1;
}

/* ---- test hooks: the sweep kind ---- */

/* Kernel pinned by valiter_gpu_set_kernel (tests and benchmarks;
 * process-wide, not thread-safe); 0: par->gpu.kernel decides. */
static int vx_force_kind = 0, vx_force_group = 0;

int vx_last_kind = 0;

extern "C" int valiter_gpu_last_kind(void)
{
    return vx_last_kind;
}

extern "C" void valiter_gpu_set_kernel(int kind, int group)
{
    vx_force_kind = kind;
    vx_force_group = group;
}

int vx_pinned(const struct vi_params *par, int *group)
{
    int kind = vx_force_kind, g = vx_force_group;
    if (!kind)
        kind = (int)par->gpu.kernel, g = par->gpu.kernel_group;
    if (kind < 1 || kind > VI_KERNEL_LAST) /* not a kind: chosen automatically */
        kind = VI_KERNEL_AUTO;
    *group = g ? g : 32;
    return kind;
}
