/*
 * mdp_dev_bind.h -- the GPU property layer on an MDP held in device memory
 * (kernels/mdp_dev.h): the explored MDP of `explore --backend gpu`, or the
 * model `check --backend gpu` uploads once for all its properties.  While
 * bound, the precomputation, step 2a's cut and the system build of
 * mdpcheck.h read the device copy instead of uploading their host twin;
 * any other MDP (the MEC sub-MDP, a model not bound) takes the upload
 * paths as before.  One binding per process (the CLI runs one command).
 */
#ifndef WX_CLI_MDP_DEV_BIND_H
#define WX_CLI_MDP_DEV_BIND_H

#include "../analysis/mdpcheck.h"
#include "../kernels/mdp_dev.h"

/* Binds dev as the device copy of host (both NULL: unbinds). */
void cli_dev_bind(const struct mdp *host, const struct mdp_dev *dev);

/* Unbinds and frees *dev; returns whether it held a device MDP (a step
 * that ran out of device memory may then be tried again without it). */
int cli_dev_release(struct mdp_dev *dev);

/* The backend functions of mo that read the bound copy: precompute,
 * precompute2, cut and build_system. */
void cli_dev_bind_options(struct mdpcheck_options *mo);

#endif
