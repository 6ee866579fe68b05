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
