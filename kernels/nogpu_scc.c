/*
 * nogpu_scc.c -- the GPU SCC entry points of a build made without nvcc
 * (used instead of kernels/scc/).  scc_gpu_available() says no, so the
 * CLI's `--backend auto` runs Tarjan; the others fail with WX_EINPUT.
 */
#include <string.h>

#include "../analysis/scc.h"
#include "scc_gpu.h"

#define NO_CUDA "this warpex was built without CUDA (nvcc was not found): the GPU SCC is unavailable"

int scc_gpu_available(void)
{
    return 0;
}

int scc_gpu(const struct csr *g, struct scc_result *out, struct wx_error *err)
{
    (void)g;
    memset(out, 0, sizeof *out);
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}

int scc_gpu_device(const struct dgraph *dg, uint32_t *d_comp, struct scc_result *out,
                   struct scc_gpu_stats *st, struct wx_error *err)
{
    (void)dg, (void)d_comp;
    memset(out, 0, sizeof *out);
    if (st)
        memset(st, 0, sizeof *st);
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}

void scc_gpu_tuning_default(struct scc_gpu_tuning *t)
{
    memset(t, 0, sizeof *t);
    t->pivot = 1;
    t->persistent = 1;
    t->residue = 1;
    t->symmetric = 1;
}

int scc_gpu_tuning_parse(const char *spec, struct scc_gpu_tuning *t, struct wx_error *err)
{
    (void)spec;
    (void)t;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}

void scc_gpu_set_tuning(const struct scc_gpu_tuning *t)
{
    (void)t;
}

int scc_gpu_device_tuned(const struct dgraph *dg, uint32_t *d_comp, struct scc_result *out,
                         struct scc_gpu_stats *st, const struct scc_gpu_tuning *t,
                         struct wx_error *err)
{
    (void)t;
    return scc_gpu_device(dg, d_comp, out, st, err);
}

int scc_gpu_ids_new(uint64_t n, uint32_t **d_comp, struct wx_error *err)
{
    (void)n;
    *d_comp = NULL;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}

int scc_gpu_ids_download(const uint32_t *d_comp, uint64_t n, uint32_t *host, struct wx_error *err)
{
    (void)d_comp, (void)n, (void)host;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}

void scc_gpu_ids_free(uint32_t *d_comp)
{
    (void)d_comp;
}

/* kernels/mec.cu's entry point (the GPU MEC builds on the GPU SCC). */
#include "../analysis/mec.h"

int mec_gpu(const struct mdp *m, struct mec_result *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    out->n_states = m->n_states;
    out->n_choices = m->n_choices;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                   "this warpex was built without CUDA (nvcc was not found): the GPU MEC is unavailable");
}
