/*
 * gx.h -- internal host interface of the GPU explorer (kernels/explore/).
 *
 * explore_gpu_tuned (driver.cu) runs the exploration as a sequence of
 * steps, each in the file named for it:
 *   driver.cu    input checks, the launch loop, the kernel's error codes
 *   fastgen.cu   successor bound and the fast generator's host tables
 *   plan.cu      layout (slot words, generator, threads per block, set
 *                size), shared-memory plan, table and edge-buffer sizes
 *   memory.cu    device allocations, the image upload, textures
 *   table.cu     the state table and work queues; growing the table
 *   tile.cu      the exploration kernel explore_tile and insert_initial
 *   ids.cu       dense ids, the violation's trace, the state vectors
 *   graph.cu     recorded edges: staging, ids, CSR sort, device graph
 *                (gx_edges_out, also for the tree run)
 *   timeline.cu  the timeline (gpu_options.timeline) and the clock
 *   tree_run.cu  --store tree: its own level kernel on the GPU tree store
 * The device side is in gpu_int.cuh (types), gpu_table.cuh (global table),
 * gpu_cache.cuh (block cache), gpu_expand.cuh (successor generators) and
 * tile_parts.cuh (the pieces of explore_tile).
 *
 * One exploration's state is one struct gx, owned by explore_gpu_tuned and
 * passed to every step.  A step returns WX_OK or a status with err filled
 * (CUDA failures through kernels/cuda_check.cuh).
 */
#ifndef WX_GX_H
#define WX_GX_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "../../explorer/explore.h"
#include "../../network/image.h"
#include "../../util/config.h"
#include "../../util/error.h"
#include "../cuda_check.cuh"
#include "../explore_gpu.h"
#include "gpu_int.cuh"

/* The fast generator's tables on the host (gpu_expand.cuh, "fast generator"). */
struct gx_fast_host {
    uint4 *comp;
    gpu_fseg *seg;
    uint32_t *loc_lab;
    unsigned long long *loc_d;
    uint4 *grp;
    unsigned long long *d;
    unsigned long long *rmask;
    uint2 *rinfo;
    uint32_t *arule; /* anchored mode: rule lists of the segments */
    size_t nseg, nloc, nsync, ngrp, nrules, narule;
    unsigned long long all0, all1;
    uint32_t dw, always_dedup, anchored;
    uint32_t share; /* a segment has >= GPU_SHARE_MIN local moves: the kernel
                       with lane sharing runs (gx_kernel_ptr) */
    uint64_t bound; /* successors of one state at most (anchored count, see gx_fast_anchor) */
    uint64_t set_bound; /* ... of a state that uses its successor set without a graph (fast_state.dedup:
                           always_dedup, or a segment with a self-loop); <= bound */
};

/* One exploration. */
struct gx {
    /* inputs */
    const struct image *img;
    const struct explore_options *opt;
    const struct gpu_tuning *tun;
    struct explore_result *res;

    cudaDeviceProp prop;
    struct gpu_params p;
    struct gpu_ctl ctl;      /* the host's copy of the control block */
    struct gpu_run_stats st;
    struct gx_fast_host fh;
    int fast_eligible, fast_built;
    uint64_t bound0;         /* gx_successor_bound */

    /* plan (plan.cu) */
    int level;               /* level-synchronous mode (traces, properties) */
    int want_graph;          /* edges are recorded (sink or device graph) */
    int need_ids;            /* dense ids are computed after exploring */
    int props;               /* a trace, --deadlock or --action: slots name states for good */
    int por_proviso;         /* --por with visible labels: the cycle
                                proviso's passes (driver.cu) */
    uint8_t *por_fresh;      /* its marks, one byte per slot (tile.cu) */
    unsigned long long *por_q; /* its queue for pass 2 */
    uint64_t por_again;      /* states expanded a second time (pass 2) */
    uint64_t bound;          /* successors of one state at most */
    uint32_t threads, blocks, T, D;
    int use_tex, occ2;
    size_t smem;             /* dynamic shared memory per block, bytes */
    void *kern;              /* the explore_tile variant (gx_kernel_ptr) */
    uint64_t bucket_bytes;
    uint64_t nb_max, nb_cur; /* table buckets: at most, and now */
    int growing;             /* the table starts small and grows (gx_grow) */
    int interrupted;         /* opt->cancel was seen set between launches */

    /* device memory: every allocation, freed by gx_free */
    void *dev[40];
    size_t devsz[40];
    int ndev;
    cudaTextureObject_t tex[8];
    int ntex;
    unsigned long long *q[2];
    struct gpu_ctl *d_ctl;
    unsigned long long *d_prefix;
    uint64_t bytes, peak;     /* device bytes held now, and at most */
    unsigned long long *d_gc; /* growth counters (gx_grow) */
    cudaEvent_t ev0, ev1;

    /* launch loop */
    int cur_out;             /* q[cur_out] is the output queue */
    uint32_t depth;          /* BFS levels completed (level mode) */

    /* host staging of edges */
    unsigned long long *h_src, *h_dst;
    uint32_t *h_lab;
    size_t h_n, h_cap;

    /* timeline (timeline.cu) */
    int timeline;
    double t0;
};

/* timeline.cu */
double gx_now(void);
void gx_mark0(const struct gx *g, const char *fmt, ...);
void gx_mark(const struct gx *g, const char *fmt, ...);
/* One launch of kern (one parameter struct at args) on blocks x threads
 * with smem bytes of dynamic shared memory, waited for; its time goes to
 * g->st (kernel_seconds, launches) and *ms.  what names it in errors. */
int gx_timed_launch(struct gx *g, const void *kern, uint32_t blocks, uint32_t threads, void *args, size_t smem,
                    const char *what, float *ms, struct wx_error *err);
void gx_finish_stats(struct gx *g, struct gpu_run_stats *stats);

/* fastgen.cu */
uint64_t gx_successor_bound(const struct image *img);
int gx_fast_eligible(const struct image *img);
int gx_fast_build(const struct image *img, struct gx_fast_host *f, int anchored);
void gx_fast_scalars(const struct gx_fast_host *h, struct gpu_fast *f);
void gx_fast_free(struct gx_fast_host *f);

/* plan.cu */
int gx_plan_layout(struct gx *g, struct wx_error *err);
int gx_plan_shared(struct gx *g, struct wx_error *err);
int gx_plan_edges(struct gx *g, size_t *freeb, struct wx_error *err);
int gx_plan_table(struct gx *g, size_t freeb, struct wx_error *err);

/* memory.cu */
int gx_malloc(struct gx *g, void **ptr, size_t bytes, const char *what, struct wx_error *err);
void gx_release(struct gx *g, void *ptr);
void gx_free(struct gx *g);
int gx_upload_image(struct gx *g, struct wx_error *err);
int gx_fixed_allocations(struct gx *g, struct wx_error *err);

/* table.cu */
uint64_t gx_qcap(int level, const struct gpu_tuning *tun, uint64_t slots);
int gx_table(struct gx *g, uint64_t nb, struct wx_error *err);
int gx_grow(struct gx *g, uint64_t nb, struct wx_error *err);

/* tile.cu: the kernels and their launchers (each returns the launch's
 * status; table_kernels.cuh, ids_kernels.cuh) */
void *gx_kernel_ptr(int tex, int occ2, int prof, int fast, int share, int por);
int gx_insert_initial(struct gx *g, struct wx_error *err);
cudaError_t gx_launch_mark_pending(const gpu_params &p, const unsigned long long *slots, unsigned long long n,
                                   int grid);
cudaError_t gx_launch_mark_saved(const gpu_params &p, uint32_t blocks);
cudaError_t gx_launch_compact_table(const gpu_params &p, uint32_t *x, uint8_t *isnew, unsigned long long cap,
                                    unsigned long long *cnt, int grid);
cudaError_t gx_launch_reinsert(const gpu_params &p, const uint32_t *x, const uint8_t *isnew, unsigned long long n,
                               unsigned long long *cnt, int grid);
cudaError_t gx_launch_count_buckets(const gpu_params &p, unsigned long long *counts, int grid);
cudaError_t gx_launch_gather_vectors(const gpu_params &p, const unsigned long long *prefix, unsigned long long r0,
                                     unsigned long long lo, unsigned long long hi, uint32_t words, uint32_t *out,
                                     int grid);
cudaError_t gx_launch_por_mark(const unsigned long long *q, unsigned long long n, uint8_t *fresh, uint8_t v, int grid);
cudaError_t gx_por_symbols(uint8_t *fresh, unsigned long long *q);
cudaError_t gx_launch_map_slots(const unsigned long long *prefix, uint32_t spb, unsigned long long r0,
                                unsigned long long *a, unsigned long long n);

/* ids.cu */
int gx_dense_ids(struct gx *g, uint64_t *r0, struct wx_error *err);
int gx_slot_id(struct gx *g, uint64_t slot, uint64_t r0, uint64_t *id, struct wx_error *err);
int gx_trace(struct gx *g, uint64_t vslot, uint64_t r0, struct wx_error *err);
int gx_vectors(struct gx *g, uint64_t r0, struct wx_error *err);
int gx_map_edges(struct gx *g, unsigned long long *d_src, unsigned long long *d_dst, uint64_t n, uint64_t r0,
                 struct wx_error *err);

/* tree_run.cu: --store tree (level-synchronous, on the GPU tree store) */
int gx_tree_check(const struct gx *g, struct wx_error *err);
int gx_tree_run(struct gx *g, struct wx_error *err);

/* graph.cu */
int gx_stage_edges(struct gx *g, unsigned long long cnt, struct wx_error *err);
int gx_graph(struct gx *g, uint64_t r0, struct wx_error *err);

/* Where an exploration's recorded edges are: the first on_dev in the
 * device buffer (d_src, d_dst: slots; d_lab; cap entries), then g->h_n
 * staged on the host (g->h_src, h_dst, h_lab).  map turns a batch's slots
 * into dense ids in place; done is called once they are all collected,
 * before the sort, to free what only the mapping needed. */
struct gx_edge_source {
    unsigned long long *d_src, *d_dst;
    uint32_t *d_lab;
    uint64_t cap, on_dev;
    int (*map)(struct gx *g, void *ctx, unsigned long long *src, unsigned long long *dst, uint64_t m,
               struct wx_error *err);
    void (*done)(struct gx *g, void *ctx);
    void *ctx;
};

/* n edges with 32-bit dense ids in device arrays (gx_malloc'ed), fill of
 * them collected. */
struct gx_edges {
    uint32_t *src, *dst, *lab;
    uint64_t n, fill;
};

/* All of s's n edges of a run with n_states states to the sink and/or the
 * device graph (n == 0: an empty one): collected as 32-bit ids, then in
 * CSR order (gx_edges_csr).  Where they cannot be held (or ids need 64
 * bits) a sink gets them in the order found, and a graph kept on the
 * device is a WX_ELIMIT error. */
int gx_edges_out(struct gx *g, const struct gx_edge_source *s, uint64_t n, uint64_t n_states,
                 struct wx_error *err);
/* The steps of gx_edges_out: e's arrays for n edges (WX_ELIMIT when they
 * do not fit); s's edges into them; sorted, emitted and/or kept (e closed
 * whatever happens); e's arrays released. */
int gx_edges_open(struct gx *g, struct gx_edges *e, uint64_t n, struct wx_error *err);
int gx_edges_fill(struct gx *g, struct gx_edges *e, const struct gx_edge_source *s, struct wx_error *err);
int gx_edges_csr(struct gx *g, struct gx_edges *e, uint64_t n_states, struct wx_error *err);
void gx_edges_close(struct gx *g, struct gx_edges *e);
/* s's edges to the sink in the order found, through s's buffer. */
int gx_emit_found(struct gx *g, const struct gx_edge_source *s, struct wx_error *err);

/* The run's verdict from its control block (struct gpu_ctl or tree_ctl):
 * *violation and res->violation, *vslot (the violating state's slot, 0
 * when none) and res->complete.  A complete run whose expansions are not
 * one per stored state, plus `again` expanded a second time (the POR
 * proviso's pass 2), is an internal error (`who` names the explorer). */
template <class CTL>
static int gx_verdict(const CTL &ctl, uint64_t again, bool record_only, struct explore_result *res,
                      uint64_t *vslot, int *violation, const char *who, struct wx_error *err)
{
    *violation = 0, *vslot = 0;
    if (ctl.viol_dead_claim) {
        res->violation = VIOLATION_DEADLOCK;
        *vslot = ctl.viol_dead_slot, *violation = 1;
    } else if (ctl.viol_act_claim) {
        res->violation = VIOLATION_ACTION;
        *vslot = ctl.viol_act_slot, *violation = 1;
    }
    res->complete = !*violation || record_only;
    if (res->complete && ctl.n_expanded != ctl.n_states + again) {
        res->complete = false;
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "%s lost work: %llu states stored, %llu expanded", who,
                       (unsigned long long)ctl.n_states, (unsigned long long)(ctl.n_expanded - again));
    }
    return WX_OK;
}

#endif
