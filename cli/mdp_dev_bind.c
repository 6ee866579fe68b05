/*
 * mdp_dev_bind.c -- the GPU property layer on a bound device MDP
 * (mdp_dev_bind.h).
 */
#include "mdp_dev_bind.h"

static struct {
    const struct mdp *host;
    const struct mdp_dev *dev;
} bound;

void cli_dev_bind(const struct mdp *host, const struct mdp_dev *dev)
{
    bound.host = host, bound.dev = dev;
}

int cli_dev_release(struct mdp_dev *dev)
{
    const int held = dev->owned;
    cli_dev_bind(NULL, NULL);
    mdp_dev_free(dev);
    return held;
}

static int dev_precompute(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                          enum vi_precomp which, uint8_t *out, struct wx_error *err)
{
    if (bound.dev && m == bound.host)
        return valiter_precompute_dev(bound.dev, allowed, target, which, out, err);
    return valiter_precompute_gpu(m, allowed, target, which, out, err);
}

static int dev_precompute2(const struct mdp *m, const uint8_t *allowed, const uint8_t *target,
                           enum vi_precomp a, uint8_t *out_a, enum vi_precomp b, uint8_t *out_b,
                           struct wx_error *err)
{
    if (bound.dev && m == bound.host)
        return valiter_precompute2_dev(bound.dev, allowed, target, a, out_a, b, out_b, err);
    return valiter_precompute2_gpu(m, allowed, target, a, out_a, b, out_b, err);
}

static int dev_cut(struct mdpcheck_cut *q, struct wx_error *err)
{
    if (bound.dev && q->m == bound.host)
        return valiter_cut_dev(bound.dev, q, err);
    q->done = 0;
    return WX_OK;
}

static int dev_build_system(struct mdpcheck_sysbuild *q, struct wx_error *err)
{
    if (bound.dev && q->m == bound.host)
        return valiter_system_dev(bound.dev, q, err);
    q->built = 0;
    return WX_OK;
}

void cli_dev_bind_options(struct mdpcheck_options *mo)
{
    mo->precompute = dev_precompute, mo->precompute2 = dev_precompute2;
    mo->cut = dev_cut;
    mo->build_system = dev_build_system;
}
