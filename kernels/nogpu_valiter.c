/*
 * nogpu_valiter.c -- the GPU value-iteration entry points of a build made
 * without nvcc: every call is an input error ("built without CUDA") and the
 * probe says no, so callers fall back to analysis/valiter.c.
 */
#include "../analysis/valiter.h"
#include "mdp_dev.h"

static int no_cuda(struct wx_error *err)
{
    return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                   "this warpex was built without CUDA (nvcc was not found): GPU value iteration is unavailable");
}

int valiter_precompute_gpu(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                           enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    (void)m, (void)allowed, (void)target, (void)which, (void)out;
    return no_cuda(err);
}

int valiter_precompute2_gpu(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                            enum vi_precomp a, uint8_t *out_a, enum vi_precomp b, uint8_t *out_b,
                            struct wx_error *err)
{
    (void)m, (void)allowed, (void)target, (void)a, (void)out_a, (void)b, (void)out_b;
    return no_cuda(err);
}

int valiter_precompute_dev(const struct mdp_dev *d, const uint8_t *allowed, const uint8_t *target,
                           enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    (void)d, (void)allowed, (void)target, (void)which, (void)out;
    return no_cuda(err);
}

int valiter_precompute2_dev(const struct mdp_dev *d, const uint8_t *allowed,
                            const uint8_t *target, enum vi_precomp a, uint8_t *out_a,
                            enum vi_precomp b, uint8_t *out_b, struct wx_error *err)
{
    (void)d, (void)allowed, (void)target, (void)a, (void)out_a, (void)b, (void)out_b;
    return no_cuda(err);
}

int valiter_system_dev(const struct mdp_dev *d, struct mdpcheck_sysbuild *q, struct wx_error *err)
{
    (void)d;
    q->built = 0;
    return no_cuda(err);
}

int valiter_cut_dev(const struct mdp_dev *d, struct mdpcheck_cut *q, struct wx_error *err)
{
    (void)d;
    q->done = 0;
    return no_cuda(err);
}

int valiter_solve_gpu(const struct vi_system *sys, const struct vi_params *par, double *lo,
                      double *hi, struct vi_stats *stats, struct wx_error *err)
{
    (void)sys, (void)par, (void)lo, (void)hi, (void)stats;
    return no_cuda(err);
}

int valiter_solve_ovi_gpu(const struct vi_system *sys, const struct vi_params *par, double *lo,
                          double *hi, struct vi_stats *stats, struct wx_error *err)
{
    (void)sys, (void)par, (void)lo, (void)hi, (void)stats;
    return no_cuda(err);
}

int valiter_solve_levels_gpu(const struct vi_system *sys, const struct vi_params *par,
                             const struct vi_levels *lv, double *lo, double *hi,
                             struct vi_stats *stats, struct wx_error *err)
{
    (void)sys, (void)par, (void)lv, (void)lo, (void)hi, (void)stats;
    return no_cuda(err);
}

int valiter_gpu_available(void)
{
    return 0;
}

int valiter_gpu_init(void)
{
    return 0;
}

/* Kernel pinning for tests and benchmarks (kernels/vi/): nothing to pin. */
void valiter_gpu_set_kernel(int kind, int group);
void valiter_gpu_set_kernel(int kind, int group)
{
    (void)kind, (void)group;
}

int valiter_gpu_last_kind(void);
int valiter_gpu_last_kind(void)
{
    return 0;
}

/* Policy-iteration test hook (kernels/vi/): nothing to cap. */
void valiter_gpu_set_pi_limits(int rounds, int krylov_iterations, int krylov_blocks);
void valiter_gpu_set_pi_limits(int rounds, int krylov_iterations, int krylov_blocks)
{
    (void)rounds, (void)krylov_iterations, (void)krylov_blocks;
}
