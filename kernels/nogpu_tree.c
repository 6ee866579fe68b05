/*
 * nogpu_tree.c -- tree_gpu.h without CUDA: no device, every fold fails.
 */
#include "tree_gpu.h"

#include <stdlib.h>

int tree_gpu_available(void) { return 0; }

int tree_gpu_fold(const uint32_t *vecs, uint64_t n, uint32_t words, const struct tree_shape *shape,
                  uint64_t node_slots, uint64_t root_slots, uint64_t *root, uint8_t *fresh,
                  struct tree_gpu_tables *out, struct wx_error *err)
{
    (void)vecs, (void)n, (void)words, (void)shape, (void)node_slots, (void)root_slots, (void)root, (void)fresh;
    out->nodes = out->roots = NULL;
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "tree_gpu_fold: this build has no CUDA");
}

void tree_gpu_tables_free(struct tree_gpu_tables *t)
{
    free(t->nodes);
    free(t->roots);
    t->nodes = t->roots = NULL;
}

int tree_gpu_new(struct tree_gpu **out, uint32_t words, const struct tree_shape *shape, uint64_t node_slots,
                 uint64_t root_slots, struct wx_error *err)
{
    (void)words, (void)shape, (void)node_slots, (void)root_slots;
    *out = NULL;
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "tree_gpu: this build has no CUDA");
}

void tree_gpu_free(struct tree_gpu *t) { (void)t; }

int tree_gpu_put(struct tree_gpu *t, const uint32_t *vecs, uint64_t n, uint64_t *root, uint8_t *fresh,
                 struct wx_error *err)
{
    (void)t, (void)vecs, (void)n, (void)root, (void)fresh;
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "tree_gpu: this build has no CUDA");
}

int tree_gpu_put_dev(struct tree_gpu *t, const uint32_t *d_vecs, uint64_t n, uint64_t *d_root, uint8_t *d_fresh,
                     struct wx_error *err)
{
    return tree_gpu_put(t, d_vecs, n, d_root, d_fresh, err);
}

int tree_gpu_ranks(struct tree_gpu *t, uint64_t *root, uint64_t n, uint64_t *count, struct wx_error *err)
{
    (void)t, (void)root, (void)n;
    *count = 0;
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "tree_gpu: this build has no CUDA");
}

int tree_gpu_ranks_dev(struct tree_gpu *t, uint64_t *d_root, uint64_t n, uint64_t *count, struct wx_error *err)
{
    return tree_gpu_ranks(t, d_root, n, count, err);
}

uint64_t tree_gpu_bytes(const struct tree_gpu *t)
{
    (void)t;
    return 0;
}

int tree_gpu_download(const struct tree_gpu *t, struct tree_gpu_tables *out, struct wx_error *err)
{
    (void)t;
    out->nodes = out->roots = NULL;
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "tree_gpu: this build has no CUDA");
}

uint64_t tree_gpu_root_slots(const struct tree_gpu *t)
{
    (void)t;
    return 0;
}

int tree_gpu_unfold_dev(const struct tree_gpu *t, const uint64_t *d_root, uint64_t n, uint32_t *d_vecs,
                        struct wx_error *err)
{
    (void)t, (void)d_root, (void)n, (void)d_vecs;
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "tree_gpu: this build has no CUDA");
}

int tree_gpu_unfold_ranked_dev(struct tree_gpu *t, uint64_t r0, uint32_t *d_vecs, uint64_t count,
                               struct wx_error *err)
{
    (void)t, (void)r0, (void)d_vecs, (void)count;
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "tree_gpu: this build has no CUDA");
}
