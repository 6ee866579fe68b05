/*
 * mec.cu -- maximal end components on the GPU: the twin of analysis/mec.c
 * (same refinement, same struct mec_result, same canonical numbering).
 *
 * The MDP stays on the device.  Each round builds the graph of live states
 * under live choices (a CSR over all states: a per-state count, a CUB scan,
 * a fill), decomposes it with the GPU SCC (kernels/scc/, scc_gpu_device),
 * kills every live choice with a successor in another SCC, and computes
 * the attractor: a state without a live choice dies, which kills every live
 * choice with an entry into it, and so on (topology-driven sweeps over the
 * choices and the states until a sweep changes nothing).  A round that
 * kills no choice ends the refinement; the SCCs of the live states are the
 * MECs.  The same rounds as mec_cpu: each round's live sets are the unique
 * fixpoint of its kills.  The final renumbering (smallest state first, over
 * live states only) runs on the host over the downloaded ids.
 *
 * RACES: the attractor sweeps write choice_live / state_live flags from 1
 * to 0 only, while other threads read them; a stale 1 only delays a kill
 * to the next sweep, and the loop ends only after a sweep that changed
 * nothing, which read final values.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "../analysis/mec.h"
#include "../util/config.h"
#include "scc_gpu.h"
}
#include "cuda_check.cuh"

static double mec_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static unsigned mec_grid(uint64_t n)
{
    return (unsigned)((n + MEC_GPU_BLOCK - 1) / MEC_GPU_BLOCK);
}

/* owner[c] = the state of choice c; state_live = has a choice. */
__global__ void mec_init(uint32_t n, const uint64_t *state_start, uint32_t *owner,
                         uint8_t *state_live)
{
    uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n)
        return;
    for (uint64_t c = state_start[s]; c < state_start[s + 1]; c++)
        owner[c] = (uint32_t)s;
    state_live[s] = state_start[s + 1] > state_start[s];
}

/* A live choice with an entry into a dead state dies (kill_scc = 0), or
 * with an entry outside its state's SCC (kill_scc = 1, comp given). */
__global__ void mec_kill_choices(uint64_t nc, const uint64_t *choice_start, const uint32_t *targets,
                                 const uint32_t *owner, const uint8_t *state_live,
                                 const uint32_t *comp, uint8_t *choice_live, unsigned *changed,
                                 unsigned long long *killed)
{
    uint64_t c = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool kill = false;
    if (c < nc && choice_live[c]) {
        uint32_t cs = comp ? comp[owner[c]] : 0;
        for (uint64_t e = choice_start[c]; e < choice_start[c + 1] && !kill; e++) {
            uint32_t t = targets[e];
            kill = !state_live[t] || (comp && comp[t] != cs);
        }
        if (kill) {
            choice_live[c] = 0;
            *changed = 1;
        }
    }
    if (killed) {
        unsigned b = __ballot_sync(0xffffffffu, kill);
        if ((threadIdx.x & 31) == 0 && b)
            atomicAdd(killed, (unsigned long long)__popc(b));
    }
}

/* A live state without a live choice dies. */
__global__ void mec_kill_states(uint32_t n, const uint64_t *state_start, const uint8_t *choice_live,
                                uint8_t *state_live, unsigned *changed)
{
    uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n || !state_live[s])
        return;
    for (uint64_t c = state_start[s]; c < state_start[s + 1]; c++)
        if (choice_live[c])
            return;
    state_live[s] = 0;
    *changed = 1;
}

/* Entries of the live choices of live states, per state (count, then fill
 * at the scanned offsets). */
__global__ void mec_graph_count(uint32_t n, const uint64_t *state_start, const uint64_t *choice_start,
                                const uint8_t *state_live, const uint8_t *choice_live,
                                uint64_t *count)
{
    uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s > n)
        return;
    uint64_t k = 0;
    if (s < n && state_live[s])
        for (uint64_t c = state_start[s]; c < state_start[s + 1]; c++)
            if (choice_live[c])
                k += choice_start[c + 1] - choice_start[c];
    count[s] = k; /* count[n] = 0: the scan's last entry is the total */
}

__global__ void mec_graph_fill(uint32_t n, const uint64_t *state_start, const uint64_t *choice_start,
                               const uint32_t *targets, const uint8_t *state_live,
                               const uint8_t *choice_live, const uint64_t *offsets, uint32_t *out)
{
    uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n || !state_live[s])
        return;
    uint64_t k = offsets[s];
    for (uint64_t c = state_start[s]; c < state_start[s + 1]; c++)
        if (choice_live[c])
            for (uint64_t e = choice_start[c]; e < choice_start[c + 1]; e++)
                out[k++] = targets[e];
}

/* The attractor of the dead states: sweeps until nothing changes. */
static int mec_attractor(uint32_t n, uint64_t nc, const uint64_t *d_ss, const uint64_t *d_cs,
                         const uint32_t *d_tg, const uint32_t *d_owner, uint8_t *d_sl,
                         uint8_t *d_cl, unsigned *d_changed, struct wx_error *err)
{
    int rc = WX_OK;
    unsigned h[MEC_GPU_SWEEP_BATCH];
    for (;;) {
        CUDA_CHECK(cudaMemset(d_changed, 0, sizeof h));
        for (int k = 0; k < MEC_GPU_SWEEP_BATCH; k++) {
            if (nc) {
                mec_kill_choices<<<mec_grid(nc), MEC_GPU_BLOCK>>>(nc, d_cs, d_tg, d_owner, d_sl, NULL,
                                                              d_cl, d_changed + k, NULL);
                CUDA_CHECK_LAUNCH("mec_kill_choices");
            }
            mec_kill_states<<<mec_grid(n), MEC_GPU_BLOCK>>>(n, d_ss, d_cl, d_sl, d_changed + k);
            CUDA_CHECK_LAUNCH("mec_kill_states");
        }
        CUDA_CHECK(cudaMemcpy(h, d_changed, sizeof h, cudaMemcpyDeviceToHost));
        int settled = 0;
        for (int k = 0; k < MEC_GPU_SWEEP_BATCH; k++)
            settled |= h[k] == 0;
        if (settled)
            break;
    }
out:
    return rc;
}

/* The refinement's device state. */
struct mec_dev {
    uint64_t *d_ss, *d_cs, *d_count;
    uint32_t *d_tg, *d_owner, *d_comp;
    uint8_t *d_sl, *d_cl;
    unsigned *d_changed;
    unsigned long long *d_killed;
    void *temp, *arena;
    size_t temp_bytes;
    struct dgraph dg; /* the live graph of a round */
};

/* One device allocation for the refinement's own arrays (each
 * cudaMalloc/cudaFree pair costs, and cudaFree synchronises), the MDP
 * copied in, every choice live, and the round graph's buffers. */
static int mec_setup(const struct mdp *m, struct mec_dev *D, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = m->n_states, nc = m->n_choices, ne = m->n_entries;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, D->temp_bytes, (uint64_t *)NULL, (uint64_t *)NULL,
                                             (int64_t)n64 + 1));
    {
        size_t part[11] = {(n64 + 1) * sizeof *D->d_ss, (nc + 1) * sizeof *D->d_cs,
                           (ne ? ne : 1) * sizeof *D->d_tg, (nc ? nc : 1) * sizeof *D->d_owner,
                           n64, nc ? nc : 1, (n64 + 1) * sizeof *D->d_count, n64 * sizeof *D->d_comp,
                           MEC_GPU_SWEEP_BATCH * sizeof *D->d_changed, sizeof *D->d_killed, D->temp_bytes};
        size_t off[11], total = 0;
        for (int i = 0; i < 11; i++) {
            off[i] = total;
            total += (part[i] + 255) & ~(size_t)255; /* 256-byte aligned parts */
        }
        CUDA_CHECK(cudaMalloc(&D->arena, total));
        char *a = (char *)D->arena;
        D->d_ss = (uint64_t *)(a + off[0]);
        D->d_cs = (uint64_t *)(a + off[1]);
        D->d_tg = (uint32_t *)(a + off[2]);
        D->d_owner = (uint32_t *)(a + off[3]);
        D->d_sl = (uint8_t *)(a + off[4]);
        D->d_cl = (uint8_t *)(a + off[5]);
        D->d_count = (uint64_t *)(a + off[6]);
        D->d_comp = (uint32_t *)(a + off[7]);
        D->d_changed = (unsigned *)(a + off[8]);
        D->d_killed = (unsigned long long *)(a + off[9]);
        D->temp = a + off[10];
    }
    CUDA_CHECK(cudaMemcpy(D->d_ss, m->state_start, (n64 + 1) * sizeof *D->d_ss, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(D->d_cs, m->choice_start, (nc + 1) * sizeof *D->d_cs, cudaMemcpyHostToDevice));
    if (ne)
        CUDA_CHECK(cudaMemcpy(D->d_tg, m->targets, ne * sizeof *D->d_tg, cudaMemcpyHostToDevice));
    if (nc)
        CUDA_CHECK(cudaMemset(D->d_cl, 1, nc));
    D->dg.n_vertices = n64;
    D->dg.d_offsets = NULL;
    D->dg.owned = 1;
    CUDA_CHECK(cudaMalloc((void **)&D->dg.d_offsets, (n64 + 1) * sizeof *D->dg.d_offsets));
    CUDA_CHECK(cudaMalloc((void **)&D->dg.d_targets, (ne ? ne : 1) * sizeof *D->dg.d_targets));
out:
    return rc;
}

/* The rounds after the first attractor: the live graph, its SCCs, the
 * choices leaving their SCC killed, the attractor; until a round kills
 * nothing.  *empty: no live choice is left (no MEC). */
static int mec_refine(uint32_t n, uint64_t nc, struct mec_dev *D, struct mec_result *out, int *empty,
                      struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = n;
    for (;;) {
        mec_graph_count<<<mec_grid(n64 + 1), MEC_GPU_BLOCK>>>(n, D->d_ss, D->d_cs, D->d_sl, D->d_cl, D->d_count);
        CUDA_CHECK_LAUNCH("mec_graph_count");
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(D->temp, D->temp_bytes, D->d_count, D->dg.d_offsets,
                                                 (int64_t)n64 + 1));
        CUDA_CHECK(cudaMemcpy(&D->dg.n_edges, D->dg.d_offsets + n64, sizeof D->dg.n_edges, cudaMemcpyDeviceToHost));
        if (D->dg.n_edges == 0) {
            /* No live choice: every state is dead (a live state keeps a
             * live choice, and every choice has an entry), so there is no
             * MEC.  The round mec_cpu runs here (an SCC decomposition of
             * the empty graph, which kills nothing) is counted, not run. */
            out->rounds++;
            *empty = 1;
            break;
        }
        mec_graph_fill<<<mec_grid(n64), MEC_GPU_BLOCK>>>(n, D->d_ss, D->d_cs, D->d_tg, D->d_sl, D->d_cl,
                                                         D->dg.d_offsets, D->dg.d_targets);
        CUDA_CHECK_LAUNCH("mec_graph_fill");
        struct scc_result sr;
        rc = scc_gpu_device(&D->dg, D->d_comp, &sr, NULL, err);
        if (rc != WX_OK)
            goto out;
        out->rounds++;
        unsigned long long killed = 0;
        CUDA_CHECK(cudaMemset(D->d_killed, 0, sizeof killed));
        if (nc) {
            mec_kill_choices<<<mec_grid(nc), MEC_GPU_BLOCK>>>(nc, D->d_cs, D->d_tg, D->d_owner, D->d_sl, D->d_comp,
                                                              D->d_cl, D->d_changed, D->d_killed);
            CUDA_CHECK_LAUNCH("mec_kill_choices");
        }
        CUDA_CHECK(cudaMemcpy(&killed, D->d_killed, sizeof killed, cudaMemcpyDeviceToHost));
        if (killed == 0)
            break;
        rc = mec_attractor(n, nc, D->d_ss, D->d_cs, D->d_tg, D->d_owner, D->d_sl, D->d_cl, D->d_changed, err);
        if (rc != WX_OK)
            goto out;
    }
out:
    return rc;
}

/* The live SCCs are the MECs: downloaded and renumbered by smallest state
 * (empty: no MEC at all). */
static int mec_download(uint64_t n64, uint64_t nc, const struct mec_dev *D, int empty, struct mec_result *out,
                        struct wx_error *err)
{
    int rc = WX_OK;
    uint32_t *comp = NULL, *map = NULL;
    uint8_t *state_live = NULL;
    uint64_t *size = NULL;
    if (empty) {
        out->mec = (uint32_t *)malloc(n64 * sizeof *out->mec);
        out->choice_in = nc ? (uint8_t *)calloc(nc, 1) : NULL;
        if (!out->mec || (nc && !out->choice_in))
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory computing MECs");
        memset(out->mec, 0xff, n64 * sizeof *out->mec); /* MEC_NONE */
        return WX_OK;
    }
    comp = (uint32_t *)malloc(n64 * sizeof *comp);
    state_live = (uint8_t *)malloc(n64);
    out->mec = (uint32_t *)malloc(n64 * sizeof *out->mec);
    out->choice_in = nc ? (uint8_t *)malloc(nc) : NULL;
    map = (uint32_t *)malloc(n64 * sizeof *map);
    size = (uint64_t *)calloc(n64, sizeof *size);
    if (!comp || !state_live || !out->mec || (nc && !out->choice_in) || !map || !size) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory computing MECs");
        goto out;
    }
    CUDA_CHECK(cudaMemcpy(comp, D->d_comp, n64 * sizeof *comp, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(state_live, D->d_sl, n64, cudaMemcpyDeviceToHost));
    if (nc)
        CUDA_CHECK(cudaMemcpy(out->choice_in, D->d_cl, nc, cudaMemcpyDeviceToHost));
    memset(map, 0xff, n64 * sizeof *map);
    for (uint64_t s = 0; s < n64; s++) {
        if (!state_live[s]) {
            out->mec[s] = MEC_NONE;
            continue;
        }
        uint32_t *id = &map[comp[s]];
        if (*id == MEC_NONE)
            *id = (uint32_t)out->n_mecs++;
        out->mec[s] = *id;
        size[*id]++;
        out->states_in_mecs++;
    }
    for (uint64_t i = 0; i < out->n_mecs; i++) {
        if (size[i] > out->largest)
            out->largest = size[i];
        out->n_singletons += size[i] == 1;
    }
    for (uint64_t c = 0; c < nc; c++)
        out->choices_in_mecs += out->choice_in[c];
out:
    free(comp);
    free(state_live);
    free(map);
    free(size);
    return rc;
}

extern "C" int mec_gpu(const struct mdp *m, struct mec_result *out, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t n64 = m->n_states, nc = m->n_choices;
    memset(out, 0, sizeof *out);
    out->n_states = n64;
    out->n_choices = nc;
    if (!scc_gpu_available())
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "GPU MEC: no usable CUDA device (compute capability >= 9.0); use --backend cpu");
    if (n64 == 0)
        return WX_OK;
    if (n64 > UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "GPU MEC: at most 2^32 - 1 states");
    const uint32_t n = (uint32_t)n64;
    struct mec_dev D;
    int empty = 0;
    double t0 = mec_now(), t1 = t0;
    memset(&D, 0, sizeof D);

    if ((rc = mec_setup(m, &D, err)) != WX_OK)
        goto out;
    t1 = mec_now();
    out->setup_seconds = t1 - t0;

    mec_init<<<mec_grid(n64), MEC_GPU_BLOCK>>>(n, D.d_ss, D.d_owner, D.d_sl);
    CUDA_CHECK_LAUNCH("mec_init");
    rc = mec_attractor(n, nc, D.d_ss, D.d_cs, D.d_tg, D.d_owner, D.d_sl, D.d_cl, D.d_changed, err);
    if (rc != WX_OK)
        goto out;
    t0 = mec_now();
    out->attractor_seconds = t0 - t1;

    if ((rc = mec_refine(n, nc, &D, out, &empty, err)) != WX_OK)
        goto out;
    t1 = mec_now();
    out->refine_seconds = t1 - t0;
    rc = mec_download(n64, nc, &D, empty, out, err);

out:
    cudaFree(D.arena);
    dgraph_free(&D.dg);
    out->teardown_seconds = mec_now() - t1;
    if (rc != WX_OK) {
        cudaGetLastError();
        mec_result_free(out);
        out->n_states = n64;
        out->n_choices = nc;
    }
    return rc;
}
