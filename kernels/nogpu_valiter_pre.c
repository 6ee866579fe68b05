/*
 * nogpu_valiter_pre.c -- valiter_precompute2_gpu (declared in
 * analysis/mdpcheck.h) in a build made without nvcc: an input error
 * ("built without CUDA"), as every GPU entry point of nogpu_valiter.c.
 */
#include "../analysis/mdpcheck.h"

int valiter_precompute2_gpu(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                            enum vi_precomp a, uint8_t *out_a, enum vi_precomp b, uint8_t *out_b,
                            struct wx_error *err)
{
    (void)m, (void)allowed, (void)target, (void)a, (void)out_a, (void)b, (void)out_b;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                   "this warpex was built without CUDA (nvcc was not found): GPU value iteration is unavailable");
}
