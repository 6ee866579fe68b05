/*
 * tree_run.cu -- the GPU explorer on the tree store (--store tree,
 * docs/storage.md "On the GPU"): level-synchronous BFS whose states are
 * stored as root pairs of the GPU tree store (kernels/tree_gpu.h,
 * gpu_tree.cuh).  Its own kernel (tree_level), so the flat explorer's
 * kernels (tile.cu) are untouched.
 *
 * One launch expands one BFS level.  A queue entry is a state's root slot
 * (its name: parent links, violations) with its full vector beside it
 * (sw words, as the flat explorer's tiles hold it), so expansion reads no
 * tree.  Each vector group (G lanes; the fast generator: one lane) expands
 * one entry with the flat explorer's generators (gpu_expand.cuh); every
 * round, the warp folds the round's successors one after the other
 * (gpu_tree_fold, then gpu_tree_pair_put on the root table): the CAS that
 * stores a root makes its successor fresh, and the warp appends it with
 * its vector to the output queue (and its parent link, a BFS-tree edge
 * from the previous level).  A successor's root slot identifies it
 * exactly, so the per-state successor set (pair_insert) counts distinct
 * (label, target) pairs as the flat explorer does.
 *
 * Edges (an edge sink or keep_device_graph): each distinct (label, target)
 * of a state is appended to an edge buffer as (source root slot, target
 * root slot, label); the host stages the buffer after every level, and
 * after the run maps the slots to ids through the same buffer and hands
 * the edges to graph.cu (gx_edges_out: CSR order, the sink, the device
 * graph).
 * No block cache, no table scan.
 * Limits are exact: a full node or root table, or an output queue that
 * overflows, stops the run with WX_ELIMIT and the counts reached.
 * Ids are ranks of root slots (tree_gpu_ranks) with the initial state's
 * rank swapped to 0, as ids.cu does with table slots.
 */
#include <stdlib.h>
#include <string.h>

#include "../../hash/treeshape.h"
#include "../tree_gpu.h"
#include "gpu_expand.cuh"
#include "gpu_tree.cuh"
#include "gx.h"

enum { TREE_ERR_NONE = 0, TREE_ERR_NODES, TREE_ERR_ROOTS, TREE_ERR_QUEUE, TREE_ERR_DEDUPE, TREE_ERR_COMBOS,
       TREE_ERR_EDGES };

/* Counters and flags of one level's launch (device; the host reads it
 * after each launch). */
struct tree_ctl {
    unsigned long long n_states, n_trans, n_dead, n_expanded;
    unsigned long long out_len;         /* entries appended to the output queue */
    unsigned long long e_fill;          /* edges in the edge buffer (this level) */
    unsigned long long viol_dead_slot;  /* first deadlock (stop_on_deadlock) */
    unsigned long long viol_act_slot;   /* source of the first action violation */
    unsigned long long viol_act_dst;    /* its target's root slot */
    unsigned int stop, error, viol_dead_claim, viol_act_claim, viol_label;
};

struct tree_params {
    gpu_params p;                       /* image, generators, G, D, sw, flags */
    gpu_tree_dev t;
    unsigned *ones_claimed;             /* the all-ones vector's root (tree.cu) */
    const unsigned long long *in_slot;  /* input queue: n_in entries */
    const uint32_t *in_vec;             /* ... and their vectors, sw words each */
    unsigned long long n_in;
    unsigned long long *out_slot;       /* output queue: q_cap entries */
    uint32_t *out_vec;
    unsigned long long q_cap;
    unsigned long long *e_src, *e_dst;  /* edge buffer (root slots), e_cap entries, or NULL */
    uint32_t *e_lab;
    unsigned long long e_cap;
    unsigned long long *parent;         /* trace: per root index (root_slots + 1), or NULL */
    uint32_t *parent_label;
    struct tree_ctl *ctl;
    uint32_t *scr;                      /* per thread: sw words */
    uint32_t *gb;                       /* per group: n * 4 words (general generator) */
    gpu_pair *set;                      /* per group: D pairs, empty between states */
    uint32_t *list;                     /* per group: D entry numbers */
    uint32_t *grp_n;                    /* per group: entries in the list */
};

static __device__ __forceinline__ void tree_error(const tree_params &tp, unsigned code)
{
    atomicCAS(&tp.ctl->error, 0u, code);
    atomicExch(&tp.ctl->stop, 1u);
}

/* The root slot of the vector v (scratch of one lane), put by the whole
 * warp; a fresh one is appended to the output queue with its parent link.
 * GPU_NO_SLOT when a table or the queue is full (the error is set). */
static __device__ unsigned long long tree_insert(const tree_params &tp, const uint32_t *v, unsigned long long src,
                                                 uint32_t lab, uint32_t lane)
{
    const uint32_t sw = tp.p.sw;
    unsigned long long pair;
    if (!gpu_tree_fold(tp.t, v, &pair)) {
        if (lane == 0)
            tree_error(tp, TREE_ERR_NODES);
        return GPU_NO_SLOT;
    }
    bool fresh = false;
    unsigned long long r;
    if (pair == TREE_GPU_EMPTY) {
        unsigned won = 0;
        if (lane == 0)
            won = atomicExch(tp.ones_claimed, 1u) == 0;
        fresh = __shfl_sync(GPU_FULL, won, 0) != 0;
        r = tp.t.root_win * GPU_TREE_WARP;
    } else {
        r = gpu_tree_pair_put(tp.t.roots, tp.t.root_win, pair, &fresh);
        if (r == GPU_TREE_NO_SLOT) {
            if (lane == 0)
                tree_error(tp, TREE_ERR_ROOTS);
            return GPU_NO_SLOT;
        }
    }
    if (!fresh)
        return r;
    unsigned long long pos = 0;
    if (lane == 0) {
        atomicAdd(&tp.ctl->n_states, 1ull);
        pos = atomicAdd(&tp.ctl->out_len, 1ull);
        if (tp.parent) {
            tp.parent[r] = src;
            tp.parent_label[r] = lab;
        }
    }
    pos = __shfl_sync(GPU_FULL, pos, 0);
    if (pos >= tp.q_cap) {
        if (lane == 0)
            tree_error(tp, TREE_ERR_QUEUE);
        return GPU_NO_SLOT;
    }
    for (uint32_t q = lane; q < sw; q += 32)
        tp.out_vec[pos * sw + q] = v[q];
    if (lane == 0)
        tp.out_slot[pos] = r;
    return r;
}

/* One distinct edge into the edge buffer (when edges are recorded). */
static __device__ __forceinline__ void tree_record_edge(const tree_params &tp, unsigned long long src,
                                                        unsigned long long dst, uint32_t lab)
{
    if (!tp.e_src)
        return;
    const unsigned long long e = atomicAdd(&tp.ctl->e_fill, 1ull);
    if (e >= tp.e_cap) {
        tree_error(tp, TREE_ERR_EDGES);
        return;
    }
    tp.e_src[e] = src;
    tp.e_dst[e] = dst;
    tp.e_lab[e] = lab;
}

/* The first transition with a --action label (one claim in the grid). */
static __device__ void tree_record_action(const tree_params &tp, unsigned long long src, uint32_t lab,
                                          unsigned long long dst)
{
    if (atomicCAS(&tp.ctl->viol_act_claim, 0u, 1u) != 0u)
        return;
    tp.ctl->viol_act_slot = src;
    tp.ctl->viol_label = lab;
    tp.ctl->viol_act_dst = dst;
    __threadfence();
    if (!tp.p.stop_on_deadlock && !tp.p.record_only)
        atomicExch(&tp.ctl->stop, 1u);
}

/* A group's transitions and, for an expanded state without successors, a
 * deadlock; then the group empties the set entries it used. */
static __device__ void tree_finish_state(const tree_params &tp, uint64_t group, uint32_t G, uint32_t gl, bool active,
                                         unsigned long long src_slot, uint32_t ngen, uint32_t nedge, gpu_pair *ded,
                                         const uint32_t *dl)
{
    for (uint32_t o = 1; o < G; o <<= 1) {
        ngen += __shfl_xor_sync(GPU_FULL, ngen, o);
        nedge += __shfl_xor_sync(GPU_FULL, nedge, o);
    }
    if (gl == 0 && nedge)
        atomicAdd(&tp.ctl->n_trans, (unsigned long long)nedge);
    if (active && gl == 0) {
        atomicAdd(&tp.ctl->n_expanded, 1ull);
        if (ngen == 0) {
            atomicAdd(&tp.ctl->n_dead, 1ull);
            if (tp.p.stop_on_deadlock && atomicCAS(&tp.ctl->viol_dead_claim, 0u, 1u) == 0u) {
                tp.ctl->viol_dead_slot = src_slot;
                __threadfence();
                if (!tp.p.record_only)
                    atomicExch(&tp.ctl->stop, 1u);
            }
        }
    }
    __syncwarp();
    const uint32_t cnt = tp.grp_n[group];
    for (uint32_t i = gl; i < cnt; i += G)
        ded[dl[i]] = gpu_pair{~0ull, ~0ull};
    __syncwarp();
    if (gl == 0)
        tp.grp_n[group] = 0;
    __syncwarp();
}

/* One BFS level: the groups of the grid take the input queue's entries in
 * turn (warp-uniform loop: every lane runs every shuffle). */
template <bool FAST>
__global__ void __launch_bounds__(GPU_MAX_THREADS, 1) tree_level(const __grid_constant__ tree_params tp)
{
    const gpu_params &p = tp.p;
    const uint32_t lane = threadIdx.x & 31u, G = p.G, gl = lane & (G - 1);
    const uint32_t gmask = G == 32 ? GPU_FULL : ((1u << G) - 1u) << (lane & ~(G - 1));
    const uint32_t sw = p.sw, n = p.img.n_comps, D = p.D;
    const uint64_t gthread = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t group = gthread >> p.log2G, ngroups = ((uint64_t)gridDim.x * blockDim.x) >> p.log2G;
    const uint64_t warp_group0 = (gthread & ~31ull) >> p.log2G;
    uint32_t *scr = tp.scr + gthread * sw;
    uint32_t *gb = FAST ? nullptr : tp.gb + group * n * 4;
    gpu_pair *ded = tp.set + group * D;
    uint32_t *dl = tp.list + group * D;

    for (uint64_t base = 0; base + warp_group0 < tp.n_in; base += ngroups) {
        unsigned stop = 0;
        if (lane == 0)
            stop = *(volatile unsigned *)&tp.ctl->stop;
        if (__shfl_sync(GPU_FULL, stop, 0))
            break;
        const uint64_t idx = base + group;
        const bool active = idx < tp.n_in;
        const unsigned long long src_slot = active ? tp.in_slot[idx] : GPU_NO_SLOT;
        const uint32_t *src = tp.in_vec + (active ? idx : 0) * sw;

        gen_state st;
        fast_state fs;
        if (FAST)
            fx_begin(p.fx, fs, n, p.img.words, src, active);
        else
            gen_begin(st, active, gl);
        const bool use_set = !FAST || fs.dedup;
        uint32_t ngen = 0, nedge = 0;
        bool ovf = false;
        const bool prio = !FAST && p.img.prio_n;
        unsigned long long prio_on = 0;
        for (uint32_t pass = prio ? 0u : 1u; pass < 2; pass++) {
            if (prio && pass == 1)
                prio_restart(st, prio_on, G, active, gl);
            while (__any_sync(GPU_FULL, FAST ? fs.phase != FX_DONE : st.phase != PH_DONE)) {
                bool has = false;
                uint32_t lab = 0;
                if (FAST)
                    has = fx_next(p.fx, fs, src, scr, sw, p.img.words, &lab, &ovf);
                else
                    has = gen_next<false>(p.img, st, G, gl, gmask, src, scr, sw, gb, &lab, &ovf);
                if (prio && prio_step(p.img, pass, prio_on, has, lab))
                    continue;
                /* the warp folds this round's successors one by one */
                unsigned need = __ballot_sync(GPU_FULL, has);
                unsigned long long loc = GPU_NO_SLOT;
                if (need)
                    __syncwarp();
                while (need) {
                    const uint32_t ld = __ffs(need) - 1;
                    need &= need - 1;
                    const uint32_t *v = tp.scr + ((gthread & ~31ull) + ld) * sw;
                    const unsigned long long s = __shfl_sync(GPU_FULL, src_slot, ld);
                    const uint32_t l = __shfl_sync(GPU_FULL, lab, ld);
                    const unsigned long long r = tree_insert(tp, v, s, l, lane);
                    if (lane == ld)
                        loc = r;
                }
                if (has && loc != GPU_NO_SLOT) {
                    uint32_t at = 0;
                    const int pr = use_set ? pair_insert(ded, D, loc, lab, &at) : 2;
                    if (pr > 0) {
                        nedge++;
                        tree_record_edge(tp, src_slot, loc, lab);
                        if (pr == 1)
                            dl[atomicAdd(&tp.grp_n[group], 1u)] = at; /* < D: the set holds D */
                    } else if (pr < 0) {
                        tree_error(tp, TREE_ERR_DEDUPE);
                    }
                    ngen++;
                    if (p.img.action && lab < p.img.n_labels && p.img.action[lab])
                        tree_record_action(tp, src_slot, lab, loc);
                }
                __syncwarp(); /* scratch is rewritten by the next round */
            }
        }
        if (__any_sync(GPU_FULL, ovf) && lane == 0)
            tree_error(tp, TREE_ERR_COMBOS);
        tree_finish_state(tp, group, G, gl, active, src_slot, ngen, nedge, ded, dl);
    }
}

/* ---- host ---- */

/* One tree run's host state beside the flat explorer's struct gx (whose
 * plan and image the run reuses). */
struct tree_run {
    struct gx *g;
    struct tree_gpu *store;
    tree_params tp;
    struct tree_ctl ctl;
    unsigned long long *q_slot[2];
    uint32_t *q_vec[2];
    uint64_t root_slots, node_slots, groups, fixed_bytes, queue_bytes, parent_bytes, edge_bytes;
    uint32_t blocks, threads;
    unsigned long long init_slot;
    uint32_t depth;
    void *mem[24];
    int nmem;
};

static int tr_malloc(struct tree_run *r, void **ptr, size_t bytes, const char *what, struct wx_error *err)
{
    if (r->nmem == (int)(sizeof r->mem / sizeof r->mem[0])) {
        *ptr = NULL;
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal error: more than %d tree run allocations (%s)",
                       r->nmem, what);
    }
    cudaError_t e = cudaMalloc(ptr, bytes ? bytes : 16);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *ptr = NULL;
        return wx_fail(err, e == cudaErrorMemoryAllocation ? WX_ELIMIT : WX_ESYSTEM, NULL, 0, 0,
                       "cannot allocate %zu bytes of device memory for %s: %s", bytes, what, cudaGetErrorString(e));
    }
    r->mem[r->nmem++] = *ptr;
    return WX_OK;
}

static void tr_free(struct tree_run *r)
{
    for (int i = 0; i < r->nmem; i++)
        cudaFree(r->mem[i]);
    r->nmem = 0;
    tree_gpu_free(r->store);
    r->store = NULL;
}

static void *tr_kernel(const struct gx *g)
{
    return g->p.fast ? (void *)tree_level<true> : (void *)tree_level<false>;
}

/* Grid and per-group buffers: as many groups as run at once, fewer when
 * their successor sets would pass a GX_FAST_SET_SHARE-th of the memory. */
static int tr_plan_grid(struct tree_run *r, struct wx_error *err)
{
    int rc = WX_OK;
    struct gx *g = r->g;
    const gpu_params &p = g->p;
    int nb = 0;
    r->threads = g->threads;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, tr_kernel(g), (int)r->threads, 0));
    if (nb <= 0)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "the tree exploration kernel cannot run with %u threads",
                       r->threads);
    r->blocks = g->opt->gpu.blocks ? g->opt->gpu.blocks : (uint32_t)nb * g->prop.multiProcessorCount;
    while (r->blocks > 1 &&
           (uint64_t)r->blocks * r->threads / p.G * p.D * 20 > g->prop.totalGlobalMem / GX_FAST_SET_SHARE)
        r->blocks /= 2;
    r->groups = (uint64_t)r->blocks * r->threads / p.G;
    r->fixed_bytes = (uint64_t)r->blocks * r->threads * p.sw * 4 + r->groups * (p.D * 20 + 4) +
                     (p.fast ? 0 : r->groups * g->img->n_comps * 16);
out:
    return rc;
}

/* The node/root split of the table bytes and the queues' share of the
 * budget (docs/storage.md, "On the GPU"). */
static int tr_plan_tables(struct tree_run *r, const struct tree_shape *sh, uint64_t sample, uint64_t nodes,
                          struct wx_error *err)
{
    int rc = WX_OK;
    struct gx *g = r->g;
    const struct explore_options *opt = g->opt;
    const uint64_t entry = 8 + 4ull * g->p.sw, per_root = 8 + (opt->trace ? 12 : 0);
    const int edges = opt->sink || opt->keep_device_graph;
    size_t freeb = 0, totalb = 0;
    (void)sh;
    CUDA_CHECK(cudaMemGetInfo(&freeb, &totalb));
    {
        uint64_t avail = freeb > GX_SLACK + freeb / 20 ? freeb - GX_SLACK - freeb / 20 : freeb / 2;
        avail = avail > r->fixed_bytes ? avail - r->fixed_bytes : 0;
        if (opt->memory_bytes && opt->memory_bytes < avail)
            avail = opt->memory_bytes;
        if (edges) { /* one level's edges; the host holds the rest */
            r->tp.e_cap = avail / GX_TREE_EDGE_SHARE / 20 > 1 ? avail / GX_TREE_EDGE_SHARE / 20 : 1;
            r->edge_bytes = r->tp.e_cap * 20;
            avail -= avail > r->edge_bytes ? r->edge_bytes : avail;
        }
        uint64_t qbytes = avail / GX_TREE_QUEUE_SHARE, tbytes = avail - qbytes;
        if (opt->gpu.hash_bytes) {
            tbytes = opt->gpu.hash_bytes;
            qbytes = avail > tbytes ? avail - tbytes : 0;
            if (qbytes > avail / GX_TREE_QUEUE_SHARE && !opt->memory_bytes)
                qbytes = avail / GX_TREE_QUEUE_SHARE;
        }
        /* nodes per state in the sample, at least 1/16 and at most 15/16
         * of the table bytes for the nodes */
        const uint64_t nsum = nodes + (sample ? sample : 1);
        uint64_t nfrac16 = (16 * nodes + nsum / 2) / nsum;
        nfrac16 = nfrac16 < 1 ? 1 : nfrac16 > 15 ? 15 : nfrac16;
        uint64_t nb = tbytes / 16 * nfrac16;
        if (nb / 8 > 0xffff0000ull)
            nb = 0xffff0000ull * 8;
        r->node_slots = nb / 8 < 32 ? 32 : nb / 8;
        r->root_slots = (tbytes > nb ? tbytes - nb : 0) / per_root;
        if (r->root_slots < 32)
            r->root_slots = 32;
        r->node_slots = (r->node_slots + 31) / 32 * 32;
        r->root_slots = (r->root_slots + 31) / 32 * 32;
        r->tp.q_cap = g->tun->queue_cap ? g->tun->queue_cap : qbytes / 2 / entry; /* tuning: tests' tiny queues */
        if (r->tp.q_cap < 1)
            r->tp.q_cap = 1;
        r->queue_bytes = 2 * r->tp.q_cap * entry;
        r->parent_bytes = opt->trace ? (r->root_slots + 1) * 12 : 0;
        gx_mark(g, "tree plan: %llu node slots, %llu root slots, queues of %llu (sample %llu states, %llu nodes)",
                (unsigned long long)r->node_slots, (unsigned long long)r->root_slots,
                (unsigned long long)r->tp.q_cap, (unsigned long long)sample, (unsigned long long)nodes);
    }
out:
    return rc;
}

/* Every allocation of the run, and the initial state in queue 0. */
static int tr_allocate(struct tree_run *r, const struct tree_shape *sh, struct wx_error *err)
{
    int rc = WX_OK;
    struct gx *g = r->g;
    const gpu_params &p = g->p;
    tree_params &tp = r->tp;
    const uint32_t W = g->img->words;
    void *d;
    if ((rc = tree_gpu_new(&r->store, W, sh, r->node_slots, r->root_slots, err)))
        return rc;
    tree_gpu_view(r->store, &tp.t, &tp.ones_claimed);
    for (int i = 0; i < 2; i++) {
        if ((rc = tr_malloc(r, &d, tp.q_cap * 8, "tree queue slots", err)))
            return rc;
        r->q_slot[i] = (unsigned long long *)d;
        if ((rc = tr_malloc(r, &d, tp.q_cap * p.sw * 4, "tree queue vectors", err)))
            return rc;
        r->q_vec[i] = (uint32_t *)d;
    }
    if ((rc = tr_malloc(r, &d, sizeof(struct tree_ctl), "tree control block", err)))
        return rc;
    tp.ctl = (struct tree_ctl *)d;
    if ((rc = tr_malloc(r, &d, (size_t)r->blocks * r->threads * p.sw * 4, "tree scratch", err)))
        return rc;
    tp.scr = (uint32_t *)d;
    if (!p.fast) {
        if ((rc = tr_malloc(r, &d, r->groups * g->img->n_comps * 16, "tree group buffers", err)))
            return rc;
        tp.gb = (uint32_t *)d;
        CUDA_CHECK(cudaMemset(tp.gb, 0, r->groups * g->img->n_comps * 16));
    }
    if ((rc = tr_malloc(r, &d, r->groups * p.D * 16, "tree successor sets", err)))
        return rc;
    tp.set = (gpu_pair *)d;
    CUDA_CHECK(cudaMemset(tp.set, 0xff, r->groups * p.D * 16));
    if ((rc = tr_malloc(r, &d, r->groups * p.D * 4, "tree successor lists", err)))
        return rc;
    tp.list = (uint32_t *)d;
    if ((rc = tr_malloc(r, &d, r->groups * 4, "tree list counts", err)))
        return rc;
    tp.grp_n = (uint32_t *)d;
    CUDA_CHECK(cudaMemset(tp.grp_n, 0, r->groups * 4));
    if (g->opt->trace) {
        if ((rc = tr_malloc(r, &d, (r->root_slots + 1) * 8, "tree parent links", err)))
            return rc;
        tp.parent = (unsigned long long *)d;
        if ((rc = tr_malloc(r, &d, (r->root_slots + 1) * 4, "tree parent labels", err)))
            return rc;
        tp.parent_label = (uint32_t *)d;
    }
    if (tp.e_cap && (g->opt->sink || g->opt->keep_device_graph)) {
        if ((rc = tr_malloc(r, &d, tp.e_cap * 8, "tree edge sources", err)))
            return rc;
        tp.e_src = (unsigned long long *)d;
        if ((rc = tr_malloc(r, &d, tp.e_cap * 8, "tree edge targets", err)))
            return rc;
        tp.e_dst = (unsigned long long *)d;
        if ((rc = tr_malloc(r, &d, tp.e_cap * 4, "tree edge labels", err)))
            return rc;
        tp.e_lab = (uint32_t *)d;
    }
    CUDA_CHECK(cudaMemset(tp.ctl, 0, sizeof(struct tree_ctl)));
out:
    return rc;
}

/* The all-zero initial state: put, given parent GPU_NO_SLOT, queued. */
static int tr_initial(struct tree_run *r, struct wx_error *err)
{
    int rc = WX_OK;
    const gpu_params &p = r->g->p;
    uint64_t *d_root = NULL;
    uint8_t *d_fresh = NULL;
    uint32_t *d_zero = NULL;
    const unsigned long long none = GPU_NO_SLOT;
    const uint32_t zero_label = 0;
    CUDA_CHECK(cudaMalloc(&d_root, 8));
    CUDA_CHECK(cudaMalloc(&d_fresh, 1));
    CUDA_CHECK(cudaMalloc(&d_zero, (size_t)p.sw * 4));
    CUDA_CHECK(cudaMemset(d_zero, 0, (size_t)p.sw * 4));
    if ((rc = tree_gpu_put_dev(r->store, d_zero, 1, d_root, d_fresh, err)))
        goto out;
    CUDA_CHECK(cudaMemcpy(&r->init_slot, d_root, 8, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(r->q_slot[0], d_root, 8, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemset(r->q_vec[0], 0, (size_t)p.sw * 4));
    if (r->tp.parent) {
        CUDA_CHECK(cudaMemcpy(r->tp.parent + r->init_slot, &none, 8, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(r->tp.parent_label + r->init_slot, &zero_label, 4, cudaMemcpyHostToDevice));
    }
    memset(&r->ctl, 0, sizeof r->ctl);
    r->ctl.n_states = 1;
    CUDA_CHECK(cudaMemcpy(r->tp.ctl, &r->ctl, sizeof r->ctl, cudaMemcpyHostToDevice));
out:
    cudaFree(d_root);
    cudaFree(d_fresh);
    cudaFree(d_zero);
    return rc;
}

/* One level: the launch over n_in entries of queue cur into queue cur ^ 1. */
static int tr_launch(struct tree_run *r, int cur, uint64_t n_in, struct wx_error *err)
{
    int rc = WX_OK;
    struct gx *g = r->g;
    tree_params &tp = r->tp;
    tp.in_slot = r->q_slot[cur];
    tp.in_vec = r->q_vec[cur];
    tp.n_in = n_in;
    tp.out_slot = r->q_slot[cur ^ 1];
    tp.out_vec = r->q_vec[cur ^ 1];
    r->ctl.out_len = 0;
    CUDA_CHECK(cudaMemcpy(tp.ctl, &r->ctl, sizeof r->ctl, cudaMemcpyHostToDevice));
    {
        float ms = 0;
        if ((rc = gx_timed_launch(g, tr_kernel(g), r->blocks, r->threads, &tp, 0, "tree_level", &ms, err)))
            return rc;
        CUDA_CHECK(cudaMemcpy(&r->ctl, tp.ctl, sizeof r->ctl, cudaMemcpyDeviceToHost));
        gx_mark(g, "tree level %u: %.3f ms, %llu in, %llu out, states %llu", r->depth, ms,
                (unsigned long long)n_in, r->ctl.out_len, r->ctl.n_states);
    }
out:
    return rc;
}

/* The level's edges (the buffer's) appended to the host's staging arrays
 * (gx_stage_edges), and the buffer emptied for the next level. */
static int tr_stage_edges(struct tree_run *r, struct wx_error *err)
{
    struct gx *g = r->g;
    const unsigned long long n = r->ctl.e_fill < r->tp.e_cap ? r->ctl.e_fill : r->tp.e_cap;
    if (!r->tp.e_src || n == 0)
        return WX_OK;
    g->p.e_src = r->tp.e_src, g->p.e_dst = r->tp.e_dst, g->p.e_lab = r->tp.e_lab;
    const int rc = gx_stage_edges(g, n, err);
    g->p.e_src = g->p.e_dst = NULL;
    g->p.e_lab = NULL;
    r->ctl.e_fill = 0;
    return rc;
}

/* Levels until none is left, a violation, an error or a cancel; the
 * violation rules of plan.cu's level mode. */
static int tr_explore(struct tree_run *r, struct wx_error *err)
{
    int rc;
    struct gx *g = r->g;
    const struct explore_options *opt = g->opt;
    struct tree_ctl &ctl = r->ctl;
    double next_progress = gx_now() + GX_PROGRESS_SECONDS;
    uint64_t n_in = 1;
    int cur = 0;
    r->depth = 0;
    while (n_in) {
        if ((rc = tr_launch(r, cur, n_in, err)) || (rc = tr_stage_edges(r, err)))
            return rc;
        if (opt->cancel && *opt->cancel) {
            g->interrupted = 1;
            return WX_OK;
        }
        if (ctl.error || (!r->tp.p.record_only && (ctl.viol_dead_claim || ctl.viol_act_claim)))
            return WX_OK; /* (an action with stop_on_deadlock: its level is complete) */
        if (ctl.viol_act_claim && !ctl.viol_dead_claim)
            r->tp.p.stop_on_deadlock = 0; /* record_only: a deeper deadlock must not replace it */
        if (ctl.n_expanded != ctl.n_states - ctl.out_len)
            return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU tree explorer lost work: %llu states, %llu expanded, "
                           "%llu queued", ctl.n_states, ctl.n_expanded, ctl.out_len);
        n_in = ctl.out_len;
        if (n_in)
            r->depth++;
        cur ^= 1;
        if (opt->progress && gx_now() >= next_progress) {
            struct explore_stats ps;
            memset(&ps, 0, sizeof ps);
            ps.states = ctl.n_states;
            ps.transitions = ctl.n_trans;
            ps.bytes = tree_gpu_bytes(r->store);
            ps.depth = r->depth;
            ps.seconds = gx_now() - g->t0;
            opt->progress(opt->progress_ctx, &ps);
            next_progress = gx_now() + GX_PROGRESS_SECONDS;
        }
    }
    return WX_OK;
}

static uint64_t tr_id_of_rank(uint64_t r, uint64_t r0)
{
    return r == r0 ? 0 : (r == 0 ? r0 : r);
}

/* Ids and vectors of the n root slots s (host array): ids[i] (dense, the
 * initial state 0), vecs + i * W (vecs may be NULL); *count: the stored
 * vectors; *r0: the initial state's rank. */
static int tr_ids(struct tree_run *r, const unsigned long long *s, uint64_t n, uint64_t *ids, uint32_t *vecs,
                  uint64_t *count, uint64_t *r0, struct wx_error *err)
{
    int rc = WX_OK;
    const uint32_t W = r->g->img->words;
    uint64_t *h = (uint64_t *)malloc((n + 1) * 8), *d = NULL;
    uint32_t *dv = NULL;
    if (!h)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory");
    h[0] = r->init_slot;
    for (uint64_t i = 0; i < n; i++)
        h[1 + i] = s[i];
    CUDA_CHECK(cudaMalloc(&d, (n + 1) * 8));
    CUDA_CHECK(cudaMemcpy(d, h, (n + 1) * 8, cudaMemcpyHostToDevice));
    if (vecs) {
        CUDA_CHECK(cudaMalloc(&dv, (n + 1) * W * 4));
        if ((rc = tree_gpu_unfold_dev(r->store, d, n + 1, dv, err)))
            goto out;
        CUDA_CHECK(cudaMemcpy(vecs, dv + W, n * W * 4, cudaMemcpyDeviceToHost));
    }
    if ((rc = tree_gpu_ranks_dev(r->store, d, n + 1, count, err)))
        goto out;
    CUDA_CHECK(cudaMemcpy(h, d, (n + 1) * 8, cudaMemcpyDeviceToHost));
    *r0 = h[0];
    for (uint64_t i = 0; i < n; i++)
        ids[i] = tr_id_of_rank(h[1 + i], h[0]);
out:
    free(h);
    cudaFree(d);
    cudaFree(dv);
    return rc;
}

/* The violation's trace: the parent chain of vslot back to the initial
 * state (and, for an action, the transition's target). */
static int tr_trace(struct tree_run *r, uint64_t vslot, struct wx_error *err)
{
    int rc = WX_OK;
    struct explore_result *res = r->g->res;
    const tree_params &tp = r->tp;
    const uint32_t W = r->g->img->words;
    const int act = res->violation == VIOLATION_ACTION;
    size_t cap = 64, m = 0;
    unsigned long long *chain = (unsigned long long *)malloc(cap * 8);
    uint32_t *labs = (uint32_t *)malloc(cap * 4);
    struct trace *tr = &res->trace;
    uint64_t count = 0, r0 = 0;
    if (!chain || !labs) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory building a trace");
        goto out;
    }
    for (unsigned long long s = vslot;;) {
        unsigned long long par = 0;
        uint32_t pl = 0;
        if (m + 1 >= cap) {
            cap *= 2;
            unsigned long long *c2 = (unsigned long long *)realloc(chain, cap * 8);
            if (c2)
                chain = c2;
            uint32_t *l2 = (uint32_t *)realloc(labs, cap * 4);
            if (l2)
                labs = l2;
            if (!c2 || !l2) {
                rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory building a trace");
                goto out;
            }
        }
        if (s > r->root_slots || m > r->ctl.n_states) {
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU tree parent links are broken at root %llu", s);
            goto out;
        }
        CUDA_CHECK(cudaMemcpy(&par, tp.parent + s, 8, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&pl, tp.parent_label + s, 4, cudaMemcpyDeviceToHost));
        chain[m] = s;
        labs[m++] = pl;
        if (par == GPU_NO_SLOT)
            break;
        s = par;
    }
    /* chain[m - 1] is the initial state, chain[0] the violation's state;
     * reversed in place, then the action's target appended */
    for (size_t i = 0; i < m / 2; i++) {
        const unsigned long long c = chain[i];
        chain[i] = chain[m - 1 - i];
        chain[m - 1 - i] = c;
        const uint32_t l = labs[i];
        labs[i] = labs[m - 1 - i];
        labs[m - 1 - i] = l;
    }
    if (act) {
        chain[m] = r->ctl.viol_act_dst;
        labs[m] = r->ctl.viol_label;
    }
    tr->len = (uint32_t)(m - 1 + act);
    tr->labels = (uint32_t *)malloc((tr->len ? tr->len : 1) * 4);
    tr->states = (uint64_t *)malloc((tr->len + 1) * 8);
    tr->vectors = (uint32_t *)malloc((size_t)(tr->len + 1) * W * 4);
    if (!tr->labels || !tr->states || !tr->vectors) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory building a trace");
        goto out;
    }
    for (uint32_t i = 0; i < tr->len; i++)
        tr->labels[i] = labs[i + 1]; /* labs[i + 1]: the label into chain[i + 1] */
    rc = tr_ids(r, chain, tr->len + 1, tr->states, tr->vectors, &count, &r0, err);
out:
    free(chain);
    free(labs);
    return rc;
}

/* Every state's vector by id (keep_vectors). */
static int tr_vectors(struct tree_run *r, struct wx_error *err)
{
    int rc = WX_OK;
    struct explore_result *res = r->g->res;
    const uint32_t W = r->g->img->words;
    const uint64_t ns = r->ctl.n_states;
    uint64_t id0 = 0, count = 0, r0 = 0;
    uint32_t *dv = NULL;
    res->vectors = (uint32_t *)malloc((ns ? ns : 1) * W * 4);
    if (!res->vectors)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory for %llu vectors", (unsigned long long)ns);
    if ((rc = tr_ids(r, &r->init_slot, 1, &id0, NULL, &count, &r0, err)))
        return rc;
    if (count != ns)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU tree store holds %llu vectors but %llu were counted",
                       (unsigned long long)count, (unsigned long long)ns);
    CUDA_CHECK(cudaMalloc(&dv, (ns ? ns : 1) * W * 4));
    if ((rc = tree_gpu_unfold_ranked_dev(r->store, r0, dv, ns, err)))
        goto out;
    CUDA_CHECK(cudaMemcpy(res->vectors, dv, ns * W * 4, cudaMemcpyDeviceToHost));
out:
    cudaFree(dv);
    return rc;
}

static int tr_kernel_error(const struct tree_run *r, struct wx_error *err)
{
    const struct tree_ctl &ctl = r->ctl;
    const unsigned e = ctl.error;
    char why[160];
    if (e == TREE_ERR_NODES || e == TREE_ERR_ROOTS)
        snprintf(why, sizeof why, "the GPU tree store's %s table is full (%llu slots)",
                 e == TREE_ERR_NODES ? "node" : "root",
                 (unsigned long long)(e == TREE_ERR_NODES ? r->node_slots : r->root_slots));
    else if (e == TREE_ERR_QUEUE)
        snprintf(why, sizeof why, "a BFS level has more than %llu new states (the GPU tree run's queue)",
                 r->tp.q_cap);
    else if (e == TREE_ERR_EDGES)
        snprintf(why, sizeof why, "a BFS level has more than %llu edges (the GPU tree run's edge buffer)",
                 r->tp.e_cap);
    else if (e == TREE_ERR_DEDUPE)
        snprintf(why, sizeof why, "a state has more distinct successors than the per-state set holds (%u)",
                 r->g->p.D);
    else
        snprintf(why, sizeof why, "a rule has more than 2^62 combinations in one state");
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "%s after %llu states and %llu transitions (tree store: %llu bytes); "
                   "raise it (--memory, --hash-memory)", why, ctl.n_states, ctl.n_trans,
                   (unsigned long long)tree_gpu_bytes(r->store));
}

/* Ranks into ids in place: the initial state's rank r0 and rank 0 swap
 * (tr_id_of_rank). */
__global__ void tree_ids_of_ranks(unsigned long long *a, unsigned long long n, unsigned long long r0)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long k = a[i];
        a[i] = k == r0 ? 0 : (k == 0 ? r0 : k);
    }
}

struct tr_map_ctx {
    struct tree_run *r;
    uint64_t r0; /* the initial state's rank */
};

/* gx_edge_source's map for the tree run: root slots to ranks, then to ids. */
static int tr_map_slots(struct gx *g, void *ctx, unsigned long long *src, unsigned long long *dst, uint64_t m,
                        struct wx_error *err)
{
    (void)g;
    int rc = WX_OK;
    struct tr_map_ctx *x = (struct tr_map_ctx *)ctx;
    uint64_t count = 0;
    unsigned long long *a[2] = {src, dst};
    for (int k = 0; k < 2; k++) {
        if ((rc = tree_gpu_ranks_dev(x->r->store, (uint64_t *)a[k], m, &count, err)))
            return rc;
        tree_ids_of_ranks<<<256, 256>>>(a[k], m, x->r0);
        CUDA_CHECK_LAUNCH("tree_ids_of_ranks");
    }
    CUDA_CHECK_NAMED(cudaDeviceSynchronize(), "edge ids");
out:
    return rc;
}

/* gx_edge_source's done: the tree store and the run's buffers make room
 * for the sort. */
static void tr_map_done(struct gx *g, void *ctx)
{
    (void)g;
    tr_free(((struct tr_map_ctx *)ctx)->r);
}

/* The recorded edges (staged on the host, endpoints root slots) through
 * the level's edge buffer into ids, then graph.cu's CSR sort, sink and
 * device graph (gx_edges_out). */
static int tr_graph(struct tree_run *r, struct wx_error *err)
{
    int rc = WX_OK;
    struct gx *g = r->g;
    const uint64_t n = g->h_n;
    uint64_t count = 0;
    struct tr_map_ctx x = {r, r->init_slot};
    const struct gx_edge_source s = {r->tp.e_src, r->tp.e_dst, r->tp.e_lab, r->tp.e_cap, 0,
                                     tr_map_slots, tr_map_done, &x};
    if (n != r->ctl.n_trans)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU tree explorer: %llu edges recorded, %llu transitions "
                       "counted", (unsigned long long)n, r->ctl.n_trans);
    if ((rc = tree_gpu_ranks(r->store, &x.r0, 1, &count, err)))
        return rc;
    return gx_edges_out(g, &s, n, r->ctl.n_states, err);
}

/* Counts, the violation, its trace, the vectors, the edges. */
static int tr_results(struct tree_run *r, struct wx_error *err)
{
    int rc = WX_OK;
    struct gx *g = r->g;
    const struct tree_ctl &ctl = r->ctl;
    struct explore_result *res = g->res;
    res->states = ctl.n_states;
    res->transitions = ctl.n_trans;
    res->deadlocks = ctl.n_dead;
    res->depth = r->depth;
    res->store = "tree";
    res->bytes = tree_gpu_bytes(r->store) + r->parent_bytes + r->queue_bytes;
    if (ctl.error)
        return tr_kernel_error(r, err);
    if (g->interrupted) {
        res->complete = false;
        return wx_fail(err, WX_EINTERRUPT, NULL, 0, 0, "exploration interrupted");
    }
    uint64_t vslot, count = 0, r0 = 0;
    int violation;
    if ((rc = gx_verdict(ctl, 0, g->p.record_only, res, &vslot, &violation, "GPU tree explorer", err)))
        return rc;
    if (violation) {
        const unsigned long long vs = vslot;
        if ((rc = tr_ids(r, &vs, 1, &res->violation_state, NULL, &count, &r0, err)))
            return rc;
        if (count != ctl.n_states)
            return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU tree store holds %llu vectors but %llu were counted",
                           (unsigned long long)count, ctl.n_states);
        if (g->opt->trace && (rc = tr_trace(r, vslot, err)))
            return rc;
    }
    if (g->opt->keep_vectors && (rc = tr_vectors(r, err)))
        return rc;
    if (r->tp.e_src) {
        const double tg = gx_now();
        if ((rc = tr_graph(r, err)))
            return rc;
        g->st.graph_seconds = gx_now() - tg;
    }
    return WX_OK;
}

/* What the tree run does not do yet is refused before any device work. */
int gx_tree_check(const struct gx *g, struct wx_error *err)
{
    const struct explore_options *opt = g->opt;
    if (opt->por)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "partial-order reduction with the tree store is not supported "
                       "yet: the reduction's proviso reads the flat table");
    if (g->img->words > TREE_SHAPE_MAX_WORDS)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "--store tree: vectors of %u words (at most %u)", g->img->words,
                       TREE_SHAPE_MAX_WORDS);
    return WX_OK;
}

/* The tree run: the flat explorer's layout and image (gx_plan_layout,
 * gx_upload_image), a shape from the sample, the tables and queues, the
 * levels, the results. */
int gx_tree_run(struct gx *g, struct wx_error *err)
{
    int rc = WX_OK;
    struct tree_run *r = (struct tree_run *)calloc(1, sizeof *r);
    struct tree_shape sh;
    uint64_t sample = 0, nodes = 0;
    if (!r)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of host memory");
    r->g = g;
    if ((rc = gx_plan_layout(g, err)))
        goto done;
    g->use_tex = 0;
    if ((rc = explore_tree_sample(g->img, &sh, &sample, &nodes, err)))
        goto done;
    gx_mark(g, "tree shape from %llu sampled states", (unsigned long long)sample);
    if ((rc = gx_upload_image(g, err)) || (rc = tr_plan_grid(r, err)) ||
        (rc = tr_plan_tables(r, &sh, sample, nodes, err)) || (rc = tr_allocate(r, &sh, err)))
        goto done;
    CUDA_CHECK(cudaEventCreate(&g->ev0));
    CUDA_CHECK(cudaEventCreate(&g->ev1));
    r->tp.p = g->p;
    r->tp.p.level_mode = 1;
    if ((rc = tr_initial(r, err)))
        goto done;
    g->st.setup_seconds = gx_now() - g->t0;
    g->st.blocks = r->blocks;
    g->st.threads = r->threads;
    g->st.group_size = g->p.G;
    g->st.dedupe_slots = g->p.D;
    g->st.slot_words = g->p.sw;
    g->st.level_sync = 1;
    g->st.table_slots = r->root_slots;
    g->st.table_bytes = tree_gpu_bytes(r->store);
    if ((rc = tr_explore(r, err)) == WX_OK)
        rc = tr_results(r, err);
out:
done:
    if (rc && !g->res->states) {
        g->res->states = r->ctl.n_states;
        g->res->transitions = r->ctl.n_trans;
        g->res->deadlocks = r->ctl.n_dead;
    }
    tr_free(r);
    free(r);
    return rc;
}
