/*
 * nogpu_dgraph.c -- the device graph (graph/dgraph.h) in a build made
 * without nvcc (kernels/dgraph.cu replaces this file when nvcc exists):
 * nothing is ever on a device, so freeing zeroes and the rest is WX_EINPUT.
 */
#include <string.h>

#include "../graph/dgraph.h"

#define NO_CUDA "this warpex was built without CUDA (nvcc was not found): no device graph"

void dgraph_free(struct dgraph *dg)
{
    if (dg)
        memset(dg, 0, sizeof *dg);
}

int dgraph_upload(const struct csr *g, int with_labels, struct dgraph *dg, struct wx_error *err)
{
    (void)g, (void)with_labels;
    memset(dg, 0, sizeof *dg);
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}

int dgraph_download(const struct dgraph *dg, uint64_t *offsets, uint32_t *targets, uint32_t *labels,
                    struct wx_error *err)
{
    (void)dg, (void)offsets, (void)targets, (void)labels;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}

int dgraph_labels_at(const struct dgraph *dg, const uint64_t *edges, uint64_t k, uint32_t *labels,
                     struct wx_error *err)
{
    (void)dg, (void)edges, (void)k, (void)labels;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, NO_CUDA);
}
