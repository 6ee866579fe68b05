/*
 * coop.cu -- the host side of the persistent engines of the GPU SCC
 * (kernels/scc/scc_int.cuh; their level driver: scc_dev.cuh): cooperative
 * launches with all blocks resident, the levels they ran, and the budget
 * after which the GPU phases hand the live rest to the CPU (residue.cu).
 */
#include "scc_int.cuh"

double scc_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* Launches a persistent kernel with all its blocks resident: as many per SM
 * as fit (or w->coop_blocks_per_sm, if fewer), times the SMs. */
int scc_coop_launch_smem(struct scc_work *w, int which, const void *func, void **args, size_t smem,
                         unsigned block, struct wx_error *err)
{
    int rc = WX_OK;
    if (!w->coop_grid[which]) {
        int per_sm = 0;
        if (smem > 48 * 1024)
            CUDA_CHECK(
                cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)block, smem));
        if (per_sm < 1) {
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0,
                         "GPU SCC: a persistent kernel does not fit on an SM");
            goto out;
        }
        if (w->coop_blocks_per_sm && (unsigned)per_sm > w->coop_blocks_per_sm)
            per_sm = (int)w->coop_blocks_per_sm;
        w->coop_grid[which] = (unsigned)per_sm * (unsigned)w->sms;
    }
    CUDA_CHECK(
        cudaLaunchCooperativeKernel(func, dim3(w->coop_grid[which]), dim3(block), args, smem, 0));
out:
    return rc;
}

int scc_coop_launch(struct scc_work *w, int which, const void *func, void **args,
                    struct wx_error *err)
{
    return scc_coop_launch_smem(w, which, func, args, 0, SCC_COOP_BLOCK, err);
}

/* After a persistent engine: w->level from the kernel's last level, and
 * whether it gave up on the CPU-residue budget. */
int scc_coop_levels(struct scc_work *w, struct wx_error *err)
{
    int rc = WX_OK;
    unsigned long long lv[2] = {0, 0}; /* CNT_LEVEL, CNT_ABORT */
    CUDA_CHECK(cudaMemcpy(lv, w->cnt + CNT_LEVEL, sizeof lv, cudaMemcpyDeviceToHost));
    w->levels += (uint32_t)lv[0] - w->level;
    w->level = (uint32_t)lv[0];
    if (lv[1])
        w->aborted = 1;
out:
    return rc;
}

/* The budget left for the next engine, ns (0: none); sets w->aborted when
 * it is already spent (the caller then launches nothing). */
unsigned long long scc_budget_left(struct scc_work *w)
{
    if (w->deadline_ms <= 0)
        return 0;
    double left = w->deadline_ms - scc_now_ms();
    if (left <= 0) {
        w->aborted = 1;
        return 0;
    }
    return (unsigned long long)(left * 1e6) + 1;
}

/* Starts a budget for the residue of *live vertices (edges estimated at
 * the graph's average degree), or none when the residue is too large for
 * the CPU (or residue != 1). */
void scc_arm_budget(struct scc_work *w, uint64_t live, const struct scc_gpu_tuning *tu)
{
    w->deadline_ms = 0;
    if (tu->residue != 1 || live == 0)
        return;
    double items = (double)live + (double)live * (double)w->m / (double)w->n;
    if (items > (double)tu->residue_max)
        return;
    w->deadline_ms = scc_now_ms() + items * tu->residue_ns * 1e-6;
    if (w->deadline_ms <= 0)
        w->deadline_ms = 1e-9; /* "armed", even at a clock of 0 */
}

