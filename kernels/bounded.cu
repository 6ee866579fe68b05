/*
 * bounded.cu -- the GPU twin of analysis/bounded.c: k steps of Bellman
 * backups with both roundings, bit-identical to the CPU.
 *
 * One thread per state computes x_{i+1}(s) from x_i twice, once with every
 * multiplication and addition rounded down (__dmul_rd, __dadd_rd) and once
 * rounded up (_ru), in the CPU's order (choices in order, entries in order,
 * then the choice reward, then the state reward).  The intrinsics are never
 * fused into an FMA, and the CPU build does not contract either (C11, no
 * -ffp-contract=fast), so every operation rounds as on the CPU and lo and hi
 * are the same bits.
 *
 * EARLY END.  Steps run in batches of WX_BOUNDED_GPU_BATCH launches without
 * a host round trip; step j of a batch raises moved[j] when a bound changed.
 * After the batch the first step that moved nothing is where the CPU stops
 * (bounded.h): the vectors are a fixed point from there on, so the steps run
 * after it in the same batch leave them unchanged and the answer is the
 * same.
 */
#include <stdlib.h>

#include "cuda_check.cuh"
extern "C" {
#include "../analysis/bounded.h"
#include "../util/config.h"
}

typedef unsigned long long ull;

struct bd_model {
    const ull *state_start, *choice_start;
    const uint32_t *targets;
    const double *probs;
    const uint8_t *allowed, *target; /* NULL when the problem has none */
    const double *rs, *rc;           /* CUMULATIVE rewards, NULL: all 0 */
    int kind, maximize;
    ull n;
};

template <bool UP> __device__ __forceinline__ double bd_mul(double a, double b)
{
    return UP ? __dmul_ru(a, b) : __dmul_rd(a, b);
}

template <bool UP> __device__ __forceinline__ double bd_add(double a, double b)
{
    return UP ? __dadd_ru(a, b) : __dadd_rd(a, b);
}

/* The value a state takes without a backup (bounded.h), or -1 when it
 * needs one. */
__device__ __forceinline__ double bd_fixed(const bd_model &m, ull s, ull c0, ull c1)
{
    switch (m.kind) {
    case BOUNDED_UNTIL:
        if (m.target[s])
            return 1;
        if ((m.allowed && !m.allowed[s]) || c0 == c1)
            return 0;
        return -1;
    case BOUNDED_GLOBALLY:
        if (!m.allowed[s])
            return 0;
        return c0 == c1 ? 1 : -1;
    default:
        return c0 == c1 ? 0 : -1;
    }
}

template <bool UP> __device__ double bd_backup(const bd_model &m, ull s, const double *__restrict__ x)
{
    ull c0 = m.state_start[s], c1 = m.state_start[s + 1];
    double f = bd_fixed(m, s, c0, c1);
    if (f >= 0)
        return f;
    bool cumulative = m.kind == BOUNDED_CUMULATIVE;
    double best = 0;
    for (ull c = c0; c < c1; c++) {
        double v = 0;
        for (ull e = m.choice_start[c]; e < m.choice_start[c + 1]; e++)
            v = bd_add<UP>(v, bd_mul<UP>(m.probs[e], x[m.targets[e]]));
        if (cumulative) {
            if (m.rc)
                v = bd_add<UP>(v, m.rc[c]);
            if (m.rs)
                v = bd_add<UP>(v, m.rs[s]);
        }
        if (c == c0 || (m.maximize ? v > best : v < best))
            best = v;
    }
    return best;
}

__global__ void bd_step(bd_model m, const double *__restrict__ lo, const double *__restrict__ hi,
                        double *__restrict__ nlo, double *__restrict__ nhi, unsigned *moved)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < m.n; s += (ull)gridDim.x * blockDim.x) {
        double a = bd_backup<false>(m, s, lo), b = bd_backup<true>(m, s, hi);
        nlo[s] = a;
        nhi[s] = b;
        if (a != lo[s] || b != hi[s])
            *moved = 1; /* every writer stores the same value */
    }
}

/* Device copies of the problem's arrays. */
struct bd_device {
    ull *ss, *cs;
    uint32_t *tg;
    double *pr, *rs, *rc, *x[4];
    uint8_t *allowed, *target;
    unsigned *moved;
};

static void bd_device_free(bd_device *d)
{
    cudaFree(d->ss), cudaFree(d->cs), cudaFree(d->tg), cudaFree(d->pr);
    cudaFree(d->rs), cudaFree(d->rc), cudaFree(d->allowed), cudaFree(d->target);
    for (int i = 0; i < 4; i++)
        cudaFree(d->x[i]);
    cudaFree(d->moved);
}

/* *dst = a device copy of the n elements of src (NULL stays NULL). */
template <class T> static cudaError_t bd_upload(T **dst, const T *src, ull n)
{
    *dst = NULL;
    if (!src || n == 0)
        return cudaSuccess;
    cudaError_t e = cudaMalloc((void **)dst, n * sizeof(T));
    return e != cudaSuccess ? e : cudaMemcpy(*dst, src, n * sizeof(T), cudaMemcpyHostToDevice);
}

static int bd_prepare(const struct bounded_problem *bp, const double *x0, bd_device *d, bd_model *m,
                      struct wx_error *err)
{
    int rc = WX_OK;
    const struct mdp *g = bp->m;
    ull n = g->n_states;
    const struct mdp_rewards *rw = bp->kind == BOUNDED_CUMULATIVE ? bp->rew : NULL;
    CUDA_CHECK(bd_upload(&d->ss, (const ull *)g->state_start, n + 1));
    CUDA_CHECK(bd_upload(&d->cs, (const ull *)g->choice_start, g->n_choices + 1));
    CUDA_CHECK(bd_upload(&d->tg, g->targets, g->n_entries));
    CUDA_CHECK(bd_upload(&d->pr, g->probs, g->n_entries));
    CUDA_CHECK(bd_upload(&d->allowed, bp->kind == BOUNDED_CUMULATIVE ? NULL : bp->allowed, n));
    CUDA_CHECK(bd_upload(&d->target, bp->kind == BOUNDED_UNTIL ? bp->target : NULL, n));
    CUDA_CHECK(bd_upload(&d->rs, rw ? rw->state : NULL, n));
    CUDA_CHECK(bd_upload(&d->rc, rw ? rw->choice : NULL, g->n_choices));
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaMalloc((void **)&d->x[i], (n ? n : 1) * sizeof(double)));
    CUDA_CHECK(cudaMalloc((void **)&d->moved, WX_BOUNDED_GPU_BATCH * sizeof(unsigned)));
    CUDA_CHECK(cudaMemcpy(d->x[0], x0, n * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->x[1], x0, n * sizeof(double), cudaMemcpyHostToDevice));
    *m = bd_model{d->ss, d->cs, d->tg, d->pr, d->allowed, d->target, d->rs, d->rc,
                  (int)bp->kind, bp->maximize, n};
out:
    return rc;
}

/* Runs the k steps; x[0], x[1] hold x_0 (lo, hi) on entry and the answer in
 * the pair *res on return. */
static int bd_run(const struct bounded_problem *bp, bd_device *d, const bd_model &m, int *res,
                  uint64_t *fixed, struct wx_error *err)
{
    int rc = WX_OK, cur = 0;
    unsigned moved[WX_BOUNDED_GPU_BATCH];
    int threads = 256;
    ull blocks = (m.n + threads - 1) / threads;
    if (blocks > 65535ull * 8)
        blocks = 65535ull * 8;
    if (blocks == 0)
        blocks = 1;
    uint64_t i = 0, stop = bp->steps;
    while (i < bp->steps && stop == bp->steps) {
        uint64_t batch = bp->steps - i < WX_BOUNDED_GPU_BATCH ? bp->steps - i : WX_BOUNDED_GPU_BATCH;
        CUDA_CHECK(cudaMemset(d->moved, 0, batch * sizeof(unsigned)));
        for (uint64_t j = 0; j < batch; j++, cur ^= 1) {
            double *lo = d->x[2 * cur], *hi = d->x[2 * cur + 1];
            bd_step<<<(unsigned)blocks, threads>>>(m, lo, hi, d->x[2 * (cur ^ 1)],
                                                   d->x[2 * (cur ^ 1) + 1], d->moved + j);
            CUDA_CHECK_LAUNCH("bd_step");
        }
        CUDA_CHECK(cudaMemcpy(moved, d->moved, batch * sizeof(unsigned), cudaMemcpyDeviceToHost));
        for (uint64_t j = 0; j < batch && stop == bp->steps; j++)
            if (!moved[j])
                stop = i + j;
        i += batch;
    }
    *fixed = stop;
    *res = cur;
out:
    return rc;
}

extern "C" int bounded_solve_gpu(const struct bounded_problem *bp, double *lo, double *hi,
                                 uint64_t *steps_fixed, struct wx_error *err)
{
    int rc = WX_OK, res = 0;
    uint64_t n = bp->m->n_states, fixed = 0;
    bd_device d = {};
    bd_model m;
    for (uint64_t s = 0; s < n; s++)
        lo[s] = bp->kind == BOUNDED_UNTIL ? bp->target[s]
              : bp->kind == BOUNDED_GLOBALLY ? bp->allowed[s] : 0;
    if ((rc = bd_prepare(bp, lo, &d, &m, err)) != WX_OK)
        goto out;
    if ((rc = bd_run(bp, &d, m, &res, &fixed, err)) != WX_OK)
        goto out;
    CUDA_CHECK(cudaMemcpy(lo, d.x[2 * res], n * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hi, d.x[2 * res + 1], n * sizeof(double), cudaMemcpyDeviceToHost));
    if (steps_fixed)
        *steps_fixed = fixed;
out:
    bd_device_free(&d);
    return rc;
}
