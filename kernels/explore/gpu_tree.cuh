/*
 * gpu_tree.cuh -- the device side of the GPU tree store (kernels/tree_gpu.h
 * describes the tables, the insert and why it is exact): find-or-put of a
 * pair by a whole warp, and the fold of one vector along a shape's
 * postorder (hash/treeshape.h, tree_shape_postorder).  Included by tree.cu;
 * written so that a kernel holding a vector in a warp can put it too.
 */
#ifndef WX_GPU_TREE_CUH
#define WX_GPU_TREE_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#include "../../hash/treeshape.h"
#include "../../util/config.h"
#include "../tree_gpu.h"
#include "gpu_mix.cuh"

#define GPU_TREE_WARP 32u
#define GPU_TREE_NO_SLOT 0xffffffffffffffffull /* gpu_tree_pair_put: the table is full */

/* The device tables: windows of 32 slots each, and the shape's order. */
struct gpu_tree_dev {
    unsigned long long *nodes, *roots;
    uint64_t node_win, root_win;
    struct tree_shape_order order;
};

static __device__ __forceinline__ unsigned long long gpu_tree_ld(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

/* Find-or-put of the pair key in a table of nwin windows of 32 slots, by
 * the whole warp (converged; every lane passes the same key; the result is
 * the same in every lane).  Returns the slot, or GPU_TREE_NO_SLOT after
 * every window, or TREE_GPU_MAX_WINDOWS of them, was probed without a
 * free slot (a full table; exact: a key is only ever stored within the
 * windows its puts probe); *fresh: this call's CAS stored the key.
 * key != TREE_GPU_EMPTY.  A window's taken slots are always a prefix of it
 * (a slot is claimed only when every slot before it was seen taken, and
 * slots are never freed): tree_gpu_ranks numbers roots by it. */
static __device__ uint64_t gpu_tree_pair_put(unsigned long long *tab, uint64_t nwin, unsigned long long key,
                                             bool *fresh)
{
    const unsigned lane = threadIdx.x % GPU_TREE_WARP;
    uint64_t win = gpu_mix64(key) % nwin;
    *fresh = false;
    for (uint64_t probes = 0; probes < nwin && probes < TREE_GPU_MAX_WINDOWS; probes++) {
        unsigned long long *w = tab + win * GPU_TREE_WARP;
        const unsigned long long v = gpu_tree_ld(w + lane);
        const unsigned match = __ballot_sync(0xffffffffu, v == key);
        if (match)
            return win * GPU_TREE_WARP + __ffs(match) - 1;
        unsigned empty = __ballot_sync(0xffffffffu, v == TREE_GPU_EMPTY);
        while (empty) {
            /* The first empty slot in probe order: every slot before it was
             * seen holding another pair, and slots never change again. */
            const unsigned leader = __ffs(empty) - 1;
            unsigned long long old = 0;
            if (lane == leader)
                old = atomicCAS(w + leader, TREE_GPU_EMPTY, key);
            old = __shfl_sync(0xffffffffu, old, leader);
            if (old == TREE_GPU_EMPTY) {
                *fresh = true;
                return win * GPU_TREE_WARP + leader;
            }
            if (old == key)
                return win * GPU_TREE_WARP + leader;
            empty &= ~(1u << leader); /* another pair took it: the next one */
        }
        win = win + 1 == nwin ? 0 : win + 1;
    }
    return GPU_TREE_NO_SLOT;
}

/* An operand of the order: a word of v, or an inner node's value. */
static __device__ __forceinline__ uint32_t gpu_tree_operand(const uint32_t *v, const uint32_t *val, uint8_t op)
{
    return op < TREE_SHAPE_NODE ? v[op] : val[op - TREE_SHAPE_NODE];
}

/* The root pair of v (any pointer; the values of its last inner node's
 * operands), every inner node below it put into the node table bottom-up
 * (the shape's postorder), by the whole warp; false when the node table is
 * full. */
static __device__ bool gpu_tree_fold(const gpu_tree_dev &t, const uint32_t *v, unsigned long long *pair)
{
    uint32_t val[TREE_SHAPE_MAX_WORDS - 1];
    const uint32_t last = t.order.inner - 1;
    for (uint32_t j = 0; j < last; j++) {
        const uint32_t x = gpu_tree_operand(v, val, t.order.a[j]);
        const uint32_t y = gpu_tree_operand(v, val, t.order.b[j]);
        if (x == TREE_GPU_ONES && y == TREE_GPU_ONES) {
            val[j] = TREE_GPU_ONES;
            continue;
        }
        bool fresh;
        const uint64_t s =
            gpu_tree_pair_put(t.nodes, t.node_win, (unsigned long long)x | (unsigned long long)y << 32, &fresh);
        if (s == GPU_TREE_NO_SLOT)
            return false;
        val[j] = (uint32_t)s;
    }
    *pair = (unsigned long long)gpu_tree_operand(v, val, t.order.a[last]) |
            (unsigned long long)gpu_tree_operand(v, val, t.order.b[last]) << 32;
    return true;
}

/* The vector of root index r (r >= root_win * 32: the all-ones vector)
 * into v (words words), by one thread: the shape's postorder walked
 * backwards, so a node's value is known before its operands are set. */
static __device__ void gpu_tree_unfold(const gpu_tree_dev &t, uint64_t r, uint32_t *v)
{
    uint32_t val[TREE_SHAPE_MAX_WORDS - 1];
    const uint32_t last = t.order.inner - 1;
    for (uint32_t j = last + 1; j-- > 0;) {
        unsigned long long pair = TREE_GPU_EMPTY;
        if (j == last) {
            if (r < t.root_win * GPU_TREE_WARP)
                pair = t.roots[r];
        } else if (val[j] != TREE_GPU_ONES) {
            pair = t.nodes[val[j]];
        }
        const uint32_t x = (uint32_t)pair, y = (uint32_t)(pair >> 32);
        const uint8_t a = t.order.a[j], b = t.order.b[j];
        if (a < TREE_SHAPE_NODE)
            v[a] = x;
        else
            val[a - TREE_SHAPE_NODE] = x;
        if (b < TREE_SHAPE_NODE)
            v[b] = y;
        else
            val[b - TREE_SHAPE_NODE] = y;
    }
}

/* The device view of a store (tree.cu): its tables, and the flag of the
 * all-ones vector's root (tree_gpu.h). */
struct tree_gpu;
void tree_gpu_view(const struct tree_gpu *t, gpu_tree_dev *dev, unsigned **ones);

#endif
