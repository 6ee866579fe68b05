/*
 * scc_int.cuh -- internals shared by the GPU SCC files (kernels/scc/): the
 * host-side types, constants and the functions one step calls in another.
 * Device helpers shared by several files are header-inline (scc_dev.cuh):
 * the kernels are compiled without relocatable device code, so every
 * kernel lives in the file of the step that launches it.
 *
 * The GPU twin of analysis/scc.c (same struct scc_result, same canonical
 * numbering; contract kernels/scc_gpu.h).  The pipeline of
 * scc_gpu_device_tuned, and where each step lives:
 *   scc_driver.cu the pipeline, the work space, the public entry points
 *                 (not driver.cu: the library archive keeps one member per
 *                 file name, and kernels/explore/ has a driver.cu)
 *   tuning.cu     struct scc_gpu_tuning: defaults, parsing, the process-wide
 *                 setting
 *   symmetric.cu  1a. symmetric graphs (every edge matched by a reverse
 *                 one): the SCCs are the connected components (union-find;
 *                 no transposition, trim or search)
 *   transpose.cu  1b. the transpose (CUB radix sort of (target, source), or
 *                 counting where edges are local)
 *   trim.cu       2. trim: a live vertex without a live in- or out-neighbour
 *                 in its region is a singleton SCC; topology sweeps, or
 *   peel.cu          the first trim as Kahn peeling to the fixpoint in one
 *                 persistent launch, with small-SCC detection
 *   pivot.cu      3. forward-backward search from one pivot (the giant SCC),
 *                 then multi-source rounds (Li et al.)
 *   propagate.cu  max-label propagation (per-level launches, or one
 *                 persistent launch), used by the colouring
 *   colour.cu     4. colour rounds (alternating direction), each after a trim
 *   coop.cu       persistent (cooperative) launches and the CPU-residue budget
 *   residue.cu    4b. the CPU residue: the live subgraph, compacted, to Tarjan
 *   relabel.cu    5-6. canonical ids and the counts
 *
 * ENGINES.  Steps 2-4 run in persistent cooperative kernels (one launch per
 * trim, search or propagation; scc_dev.cuh) where the device allows
 * cooperative launch; struct scc_gpu_tuning.persistent = 0 selects the
 * engine of one launch per level (scc_push_level, scc_trim), the fallback
 * where cooperative launch is unavailable.
 *
 * DETERMINISM: the partition and the canonical ids are deterministic; the
 * number of sweeps may vary from run to run (in-place updates race; each
 * step's file says why the races are benign).
 */
#ifndef WX_SCC_INT_CUH
#define WX_SCC_INT_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "../../analysis/scc.h"
#include "../scc_gpu.h"
}
#include "../cuda_check.cuh"

#define SCC_UNSET 0xffffffffu
#define SCC_BLOCK 256
#define FULL_MASK 0xffffffffu

/* Tunables (why: see each step's file). */
#define TRIM_MIN_SHARE 64     /* default: trim again while a sweep removes >= live/64 */
#define TRIM_MAX_SWEEPS 64    /* default: per trim phase */
#define LEVEL_BATCH_MAX 16    /* push levels launched between host checks */
#define LEVEL_BLOCKS_PER_SM 8 /* grid of a push level: SMs * this blocks of SCC_BLOCK */

/* Flag bits of the pivot search, one byte per vertex (so that the 8 M
 * vertices of a large graph take 8 MB, resident in L2). */
#define PF_FWD 1u
#define PF_BWD 2u
#define PF_OUT 4u /* not live (trimmed before the search) */

#define SCC_COOP_BLOCK 1024  /* threads per block of the persistent engines */
#define CHAIN_HOPS 4096       /* default: path steps a persistent-engine thread follows per item */
#define LOCAL_SAMPLE 1024     /* edges sampled to choose the transposition */
#define LOCAL_NEAR 65536      /* "local" edge: |target - source| <= this (or n / 256) */
#define FB_ROUNDS 8           /* default: multi-source rounds before the colouring (bench/history/scc.md) */
#define RESIDUE_NS 10         /* default: GPU budget per residue item before the CPU takes it, ns
                                 (below Tarjan's own cost per item; bench/history/scc.md) */
#define RESIDUE_MAX (1ull << 25) /* default: largest residue (vertices + edges) for the CPU */
#define PIVOT_LOCAL 2         /* default: vertices a pivot-search thread takes on per item
                                 (fewer levels per search; bench/history/scc.md) */
#define PIVOT_WIDE 32         /* default: degree above which a warp expands a vertex together
                                 (hubs of state spaces; bench/history/scc.md) */

/* The first trim's small-SCC detection (peel.cu). */
#define TRIM_DETECT_MAX 24     /* largest closure (compile-time bound of K: two sets of K
                                  words per thread in shared memory, 96 KB per block) */
#define TRIM_DETECT 20         /* default K: a smaller bound shortens a level's slowest
                                  closure, a larger one finds more SCCs in the trim
                                  (bench/history/scc.md) */
#ifndef TRIM_DETECT_BLOCK
#define TRIM_DETECT_BLOCK 512  /* threads per block of the trim with detection (-D to
                                  try others): 512 leaves the detection without register
                                  spills (bench/history/scc.md) */
#endif
#define TRIM_DETECT_SMEM (2u * TRIM_DETECT_MAX * TRIM_DETECT_BLOCK * 4u)
#define TRIM_HOPS 1            /* default of tuning trim_hops (each level waits for its
                                  longest chain; bench/history/scc.md) */

/* The host clock, milliseconds. */
double scc_now_ms(void);

static inline unsigned grid_for(uint64_t n)
{
    return (unsigned)((n + SCC_BLOCK - 1) / SCC_BLOCK);
}

/* One propagation's side (propagate.cu): labels lab[] pushed along the
 * edges adj[] of off[], queues q0 / q1, their lengths cnt[0..2]. */
struct scc_side {
    const uint64_t *off;
    const uint32_t *adj;
    uint32_t *lab, *stamp;
    uint32_t *q0, *q1;
    unsigned long long *cnt; /* 3 rotating queue lengths */
};

/* The summary of the counts (relabel.cu), in the work counters. */
enum { SUM_TRIVIAL, SUM_NONTRIV_V, SUM_LARGEST, SUM_BOTTOM, SUM_BOTTOM_TRIV, SUM_N };

/* The persistent kernels, for their cached grids: each engine with and
 * without the CPU-residue budget (+1), the pivot engine also with region
 * checks (the multi-source rounds).  The variants without exist so that the
 * common path carries none of that code. */
enum { COOP_PIVOT = 0, COOP_PIVOT_REG = 2, COOP_LABEL = 4, COOP_LABEL_COL = 6, COOP_TRIM = 8,
       COOP_TRIM_DETECT = 10, COOP_N = 12 };

/* Device work space of one decomposition. */
struct scc_work {
    uint32_t n;
    unsigned grid_levels;        /* blocks of a push level (grid-stride) */
    const uint64_t *off, *roff;
    const uint32_t *tgt, *rsrc;
    uint64_t *roff_own;          /* the transpose, when built (else roff == off) */
    uint32_t *rsrc_own;
    uint32_t *rep;               /* == the caller's d_comp */
    uint32_t *reg;
    uint32_t *col, *reach, *stamp_a, *stamp_b, *qa0, *qa1, *qb0, *qb1;
    unsigned long long *cnt;     /* CNT_* below */
    uint32_t level;              /* the next push level's number (global) */
    uint32_t levels;             /* levels run, for the stats */
    int coop;                    /* the persistent engines (else one launch per level) */
    uint32_t chain_hops;         /* of the persistent engines */
    uint32_t pivot_local;        /* tuning pivot_local */
    uint32_t pivot_wide;         /* tuning pivot_wide */
    uint32_t trim_detect;        /* tuning trim_detect, at most TRIM_DETECT_MAX */
    int symmetric;               /* the graph is its own transpose (symmetric.cu):
                                    its SCCs are the connected components */
    unsigned coop_grid[COOP_N];  /* their grids, by COOP_* (0: not computed yet) */
    unsigned coop_blocks_per_sm; /* 0: as many as fit */
    int all_live;                /* every vertex live, all in region 0 (no trim yet) */
    int sms;
    uint64_t m;                  /* edges of the graph */
    double deadline_ms;          /* CPU-residue budget: host clock (scc_now_ms) when
                                    the GPU phases give up (0: no budget) */
    int aborted;                 /* an engine gave up: hand the residue to the CPU */
    unsigned long long *fb_best; /* multi-source rounds: per region, the elected key */
    uint32_t *fb_mark, *fb_pos;  /* per subregion code (3 per region), and its scan */
    void *fb_temp;               /* the scan's CUB work space */
    size_t fb_temp_bytes;
};

/* The work counters w->cnt[]. */
enum { CNT_TRIM = 0, CNT_LIVE = 1, CNT_SUM = 2, CNT_A = CNT_SUM + SUM_N, CNT_B = CNT_A + 3,
       CNT_PIVOT = CNT_B + 3, CNT_LEVEL = CNT_PIVOT + 1, CNT_ABORT = CNT_LEVEL + 1,
       CNT_Q = CNT_ABORT + 1, CNT_CAND = CNT_Q + 3, CNT_DSTAT = CNT_CAND + 2,
       CNT_N = CNT_DSTAT + 7 };

/* ---- the steps (each returns WX_OK or an error in err) ---- */

/* tuning.cu: the tuning scc_gpu_device uses (scc_gpu_set_tuning's, else
 * the defaults). */
void scc_tuning_current(struct scc_gpu_tuning *t);

/* symmetric.cu: whether dg is its own transpose (w->symmetric, st), the
 * components' first parents in d_comp when it is; then the components. */
int scc_symmetric_check(struct scc_work *w, const struct dgraph *dg, uint32_t *d_comp,
                        struct scc_gpu_stats *st, struct wx_error *err);
int scc_components(const struct dgraph *dg, uint32_t *d_comp, struct wx_error *err);

/* transpose.cu: w->roff / w->rsrc (the in-edges). */
int scc_transpose(struct scc_work *w, const struct dgraph *dg,
                  const struct scc_gpu_tuning *tu, struct scc_gpu_stats *st, struct wx_error *err);

/* trim.cu / peel.cu: a trim phase (*live decreases). */
int scc_trim_phase(struct scc_work *w, uint64_t *live, struct scc_gpu_stats *st,
                   const struct scc_gpu_tuning *tu, struct wx_error *err);
int scc_peel(struct scc_work *w, uint64_t *live, struct scc_gpu_stats *st,
             const struct scc_gpu_tuning *tu, struct wx_error *err);

/* pivot.cu: the single pivot search; one multi-source round. */
int scc_pivot_phase(struct scc_work *w, uint64_t *live, struct scc_gpu_stats *st,
                    struct wx_error *err);
int scc_fb_round(struct scc_work *w, uint32_t *nreg, uint64_t *live, struct scc_gpu_stats *st,
                 struct wx_error *err);

/* propagate.cu */
struct scc_side scc_make_side(const struct scc_work *w, int backward, uint32_t *lab, int b_side);
int scc_propagate(struct scc_work *w, struct scc_side a, struct scc_side b, int two, int all,
                  uint64_t init_a, uint64_t init_b, const uint32_t *col, struct wx_error *err);

/* colour.cu */
int scc_colour_round(struct scc_work *w, int dir, uint64_t *live, struct wx_error *err);

/* coop.cu */
int scc_coop_launch_smem(struct scc_work *w, int which, const void *func, void **args, size_t smem,
                         unsigned block, struct wx_error *err);
int scc_coop_launch(struct scc_work *w, int which, const void *func, void **args,
                    struct wx_error *err);
int scc_coop_levels(struct scc_work *w, struct wx_error *err);
unsigned long long scc_budget_left(struct scc_work *w);
void scc_arm_budget(struct scc_work *w, uint64_t live, const struct scc_gpu_tuning *tu);

/* residue.cu */
int scc_cpu_residue(struct scc_work *w, uint64_t *live, struct scc_gpu_stats *st,
                    struct wx_error *err);

/* relabel.cu: canonical ids in d_comp (out->n_sccs), then the counts. */
int scc_relabel(struct scc_work *w, uint32_t *d_comp, struct scc_result *out, struct wx_error *err);
int scc_count(struct scc_work *w, const struct dgraph *dg, const uint32_t *d_comp,
              struct scc_result *out, struct wx_error *err);

#endif
