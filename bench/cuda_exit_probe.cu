/*
 * cuda_exit_probe.cu -- what the CUDA start and exit of a process cost, and
 * what the exit depends on (issue 5: `warpex check` end to end).  One
 * variant per process (bench/bench_check_e2e.sh runs each a few times and
 * takes the process wall around it):
 *     none      no CUDA call at all (the process itself)
 *     ctx       context creation (cudaFree(NULL)) only
 *     free      + 24 device buffers of 25 MB (600 MB), written, freed; and a
 *               75 MB pageable host-to-device copy (its GB/s)
 *     held      + the same buffers still allocated at exit
 *     pinned    + a 64-byte cudaHostAlloc (freed), as the solver's control block
 *     kernel    + a kernel launch, a stream and two events (destroyed)
 *     reset     ctx, then cudaDeviceReset() timed inside the process
 *     freereset free, then cudaDeviceReset() timed inside the process
 *     thread0   ctx, then cudaDeviceReset() on another thread (timed there)
 *     thread    the same, the thread first calling cudaSetDevice() and
 *               cudaFree(NULL) so that the context is current on it
 *     exit      ctx, then _exit(0): no atexit handlers, so the runtime does
 *               not destroy the context; the driver cleans up as the
 *               process's device files close (as for a killed process)
 *     heldexit  held (600 MB allocated at exit), then _exit(0)
 * Prints one line: the variant, seconds for the context, for the work, for
 * the reset, and the wall clock (ns since the epoch) just before returning
 * from main, to set against the wall clock the script takes after exit.
 * Build: nvcc -O2 -arch=sm_90 bench/cuda_exit_probe.cu -o cuda_exit_probe
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <unistd.h>

#include <cuda_runtime.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static __global__ void touch(unsigned *p, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (unsigned)i;
}

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                               \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static int bind_first;
static double reset_seconds;

static void *reset_thread(void *arg)
{
    (void)arg;
    double t = now();
    if (bind_first) {
        int dev = 0;
        (void)cudaGetDevice(&dev);
        (void)cudaSetDevice(dev);
        (void)cudaFree(NULL);
    }
    (void)cudaDeviceReset();
    reset_seconds = now() - t;
    return NULL;
}

int main(int argc, char **argv)
{
    const char *v = argc > 1 ? argv[1] : "ctx";
    double t0 = now(), t_ctx = 0, t_work = 0, t_reset = 0, h2d = 0;
    void *buf[24] = {0};
    if (strcmp(v, "none") != 0) {
        CK(cudaFree(NULL));
        t_ctx = now() - t0;
        double t1 = now();
        if (!strcmp(v, "free") || !strcmp(v, "held") || !strcmp(v, "freereset") ||
            !strcmp(v, "heldexit")) {
            for (int i = 0; i < 24; i++) {
                CK(cudaMalloc(&buf[i], 25u << 20));
                CK(cudaMemset(buf[i], 1, 25u << 20));
            }
            size_t hb = 75u << 20;
            char *h = (char *)malloc(hb);
            memset(h, 3, hb);
            CK(cudaDeviceSynchronize());
            double t2 = now();
            CK(cudaMemcpy(buf[0], h, 25u << 20, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(buf[1], h + (25u << 20), 25u << 20, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(buf[2], h + (50u << 20), 25u << 20, cudaMemcpyHostToDevice));
            h2d = (double)hb / (now() - t2) / 1e9;
            free(h);
            if (strcmp(v, "held") != 0 && strcmp(v, "heldexit") != 0)
                for (int i = 0; i < 24; i++)
                    CK(cudaFree(buf[i]));
        } else if (!strcmp(v, "pinned")) {
            void *p;
            CK(cudaHostAlloc(&p, 64, cudaHostAllocDefault));
            CK(cudaFreeHost(p));
        } else if (!strcmp(v, "kernel")) {
            unsigned *p;
            cudaStream_t s;
            cudaEvent_t a, b;
            CK(cudaMalloc(&p, 1 << 20));
            CK(cudaStreamCreate(&s));
            CK(cudaEventCreate(&a));
            CK(cudaEventCreate(&b));
            CK(cudaEventRecord(a, s));
            touch<<<64, 256, 0, s>>>(p, 1 << 18);
            CK(cudaGetLastError());
            CK(cudaEventRecord(b, s));
            CK(cudaStreamSynchronize(s));
            CK(cudaEventDestroy(a));
            CK(cudaEventDestroy(b));
            CK(cudaStreamDestroy(s));
            CK(cudaFree(p));
        }
        t_work = now() - t1;
        if (!strcmp(v, "thread0") || !strcmp(v, "thread")) {
            pthread_t tid;
            bind_first = !strcmp(v, "thread");
            if (pthread_create(&tid, NULL, reset_thread, NULL) == 0)
                pthread_join(tid, NULL);
            t_reset = reset_seconds;
        }
        if (!strcmp(v, "reset") || !strcmp(v, "freereset")) {
            double t3 = now();
            CK(cudaDeviceReset());
            t_reset = now() - t3;
        }
    }
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    printf("probe %s ctx %.6f work %.6f reset %.6f h2d_GBps %.2f end %lld%09ld\n", v, t_ctx, t_work,
           t_reset, h2d, (long long)rt.tv_sec, (long)rt.tv_nsec);
    fflush(stdout);
    if (!strcmp(v, "exit") || !strcmp(v, "heldexit"))
        _exit(0);
    return 0;
}
