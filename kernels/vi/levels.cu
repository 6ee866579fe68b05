/*
 * levels.cu -- topological solving by levels on the GPU (analysis/valiter.h,
 * valiter_solve_levels_gpu), the twin of valiter_solve_levels_cpu.
 *
 * The value vectors stay on the device, as two (lo, hi)-pair buffers (lo
 * alone for plain VI); the system goes up in GROUPS of consecutive levels
 * that fit the budget (one group when it all fits).  Every launch of
 * vi_sweep_levels is the same: it reads which level to sweep from the
 * level control block (ctl.level, final since the previous launch ended),
 * sweeps that level's tiles from buffer ctl.rbuf into the other one
 * (Jacobi; the arithmetic of vi_sweep_tiles2, so bit-identical to the CPU
 * twin), and the last block to finish (a ticket counter, as in the CUDA
 * samples' threadFenceReduction) decides for the next launch: the level
 * met the stopping rule (or is acyclic: one sweep is exact) -> next level,
 * else another sweep, or a failure after max_iterations sweeps.  The host
 * only enqueues launches in batches and looks at a copy of ctl once per
 * batch, never per level; launches after the group's last level return at
 * once.  A level just finished has its final values in one buffer only:
 * the next launch also copies them into the other, so that every later
 * sweep, whichever buffer it reads, sees final values below its level.
 *
 * A level whose slice alone exceeds the budget is swept in CHUNKS of its
 * tiles, uploaded one after the other for every sweep (last_chunk = 0 for
 * all but the last: the sweep's decision waits for the last one).  Slow,
 * but it never needs more than the vectors and one chunk.
 *
 * The group's arrays are indexed with the system's own (absolute) state,
 * choice and entry numbers through base pointers shifted by the group's
 * first state/choice/entry (p - base + i, with base <= i: every access
 * stays inside the uploaded slice).
 *
 * Determinism: values and level sweeps are deterministic and bit-identical
 * to the CPU twin (Jacobi sweeps, the decisions made on final values).
 */
#include <stdlib.h>

#include "vi_dev.cuh"

/* A level of the uploaded group: tile records [t0, t1) of the group's
 * upload, states [s0, s1); cached: its slice fits in L2, so the streamed
 * arrays are loaded cached instead of evict-first. */
struct vx_level {
    uint32_t t0, t1, s0, s1, acyclic, cached;
};

/* Level control block (device memory). */
struct vx_lctl {
    unsigned level;        /* the level the next launch sweeps (global number)  */
    unsigned rbuf;         /* buffer holding the current iterate: 0 or 1        */
    unsigned viol;         /* some state of this sweep violated the rule        */
    unsigned arrived;      /* blocks of this launch done (ticket counter)       */
    unsigned sweep;        /* sweeps of the current level so far                */
    unsigned fail;         /* 1: max_iterations reached; 2: acyclic level missed the rule */
    unsigned fail_level, fail_sweeps;
    unsigned copy_s0, copy_s1; /* states to copy from buffer rbuf to the other  */
    unsigned pad[2];
    ull level_sweeps, updates;
};

template <bool IV, bool MX>
static __global__ void __launch_bounds__(VI_GPU_THREADS, 4)
    vi_sweep_levels(vx_sys sy, const vx_level *__restrict__ lvt, unsigned lev_begin, unsigned lev_end, double *xa,
                    double *xb, vx_lctl *ctl, ull max_it, double eps, int rel, int last_chunk)
{
    __shared__ double sb[VI_GPU_THREADS / 32][VI_GPU_TILE_ENTRIES * (IV ? 2 : 1)];
    __shared__ int last;
    /* ctl is only written by the previous launches' last blocks (and this
     * launch's last block after every block has read it) */
    const unsigned L = *(volatile unsigned *)&ctl->level;
    if (L >= lev_end || L < lev_begin || *(volatile unsigned *)&ctl->fail)
        return;
    const unsigned r = *(volatile unsigned *)&ctl->rbuf;
    const unsigned cp0 = *(volatile unsigned *)&ctl->copy_s0, cp1 = *(volatile unsigned *)&ctl->copy_s1;
    const vx_level lv = lvt[L - lev_begin];
    /* only as many blocks as the level's tiles (and the copy) need take
     * part (and take a ticket); the rest leave at once: a small level does
     * not pay for the grid of the group's biggest */
    const ull wanted = ((ull)(lv.t1 - lv.t0) * 32 + (cp1 - cp0) / 4 + VI_GPU_THREADS - 1) / VI_GPU_THREADS;
    const unsigned part = (unsigned)(wanted < 1 ? 1 : wanted < gridDim.x ? wanted : gridDim.x);
    if (blockIdx.x >= part)
        return;
    const double *x = r ? xb : xa;
    double *nx = r ? xa : xb;
    const ull tid = blockIdx.x * (ull)blockDim.x + threadIdx.x, nthreads = (ull)part * blockDim.x;
    for (ull s = cp0 + tid; s < cp1; s += nthreads) {
        if (IV)
            reinterpret_cast<double2 *>(nx)[s] = reinterpret_cast<const double2 *>(x)[s];
        else
            nx[s] = x[s];
    }
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    const ull warp = tid >> 5, nwarps = nthreads >> 5;
    int bad = 0;
    for (ull k = lv.t0 + warp; k < lv.t1; k += nwarps) { /* warp-uniform */
        const uint4 ta = __ldg(sy.trec + k), tb = __ldg(sy.trec + k + 1);
        if (lv.cached)
            bad |= vx_tile2<IV, MX, true, false, false>(sy, ta, tb, x, nx, eps, rel, sb[w], lane);
        else
            bad |= vx_tile2<IV, MX, true, false, true>(sy, ta, tb, x, nx, eps, rel, sb[w], lane);
    }
    bad = __syncthreads_or(bad);
    if (threadIdx.x == 0) {
        if (bad)
            atomicOr(&ctl->viol, 1u);
        __threadfence(); /* this block's viol before its ticket */
        last = atomicAdd(&ctl->arrived, 1u) == part - 1;
    }
    __syncthreads();
    if (!last || threadIdx.x != 0)
        return;
    /* the last block: every other block has read ctl and published viol */
    __threadfence();
    ctl->arrived = 0;
    ctl->copy_s0 = ctl->copy_s1 = 0;
    if (!last_chunk)
        return; /* the sweep goes on with the level's next chunk */
    const unsigned viol = atomicOr(&ctl->viol, 0u);
    const unsigned sweep = ctl->sweep + 1;
    ctl->viol = 0;
    ctl->rbuf = r ^ 1u;
    ctl->updates += lv.s1 - lv.s0;
    if (!viol || (lv.acyclic && !IV)) { /* plain VI: an acyclic level is final */
        ctl->level_sweeps += sweep;
        ctl->sweep = 0;
        ctl->copy_s0 = lv.s0;
        ctl->copy_s1 = lv.s1;
        ctl->level = L + 1;
    } else if (lv.acyclic || sweep >= max_it) {
        ctl->level_sweeps += sweep;
        ctl->fail = lv.acyclic ? 2 : 1;
        ctl->fail_level = L;
        ctl->fail_sweeps = sweep;
    } else
        ctl->sweep = sweep;
}

typedef void (*vx_level_fn)(vx_sys, const vx_level *, unsigned, unsigned, double *, double *, vx_lctl *, ull, double,
                            int, int);

static vx_level_fn vx_pick_level(int iv, int mx)
{
    if (iv)
        return mx ? vi_sweep_levels<true, true> : vi_sweep_levels<true, false>;
    return mx ? vi_sweep_levels<false, true> : vi_sweep_levels<false, false>;
}

/* A group: levels [l0, l1) whole, or (chunk) tiles [t0, t1) of level l0 alone. */
struct vx_group {
    ull l0, l1, t0, t1;
    int chunk, last_chunk;
};

#define VX_ALIGN 256ull
static ull vx_round(ull b)
{
    return (b + VX_ALIGN - 1) / VX_ALIGN * VX_ALIGN;
}

/* Device bytes of the slice of tiles [t0, t1) (states, choices, entries they
 * cover) plus nl level records, each array rounded up as carved. */
static ull vx_slice_bytes(const struct vi_system *sys, const uint32_t *tiles, ull t0, ull t1, ull nl)
{
    const ull s0 = tiles[t0], s1 = tiles[t1];
    const ull c0 = sys->state_start[s0], c1 = sys->state_start[s1];
    const ull e0 = sys->choice_start[c0], e1 = sys->choice_start[c1];
    return vx_round(4 * (s1 - s0 + 1)) + vx_round(4 * (c1 - c0 + 1)) + vx_round(8 * (c1 - c0 + 1)) +
           vx_round(4 * (e1 - e0 + 1)) + vx_round(8 * (e1 - e0 + 1)) + vx_round(16 * (t1 - t0 + 1)) +
           vx_round(sizeof(vx_level) * (nl ? nl : 1));
}

/* One level solve's state (device buffers in mem). */
struct vx_lsolve {
    const struct vi_system *sys;
    const struct vi_params *par;
    const struct vi_levels *lvs;
    ull n, nc, ne, nlev;
    int iv;
    ull vbytes;                  /* per state and buffer */
    uint32_t *tiles, *ltile;     /* tiles level by level; level L's: [ltile[L], ltile[L+1]) */
    uint32_t *hss, *hcs;         /* 32-bit offsets */
    uint4 *hrec;                 /* tile records */
    vx_level *hlv;               /* level records */
    double *hx;                  /* the vectors' host staging ((lo, hi) pairs) */
    struct vx_group *groups;
    ull ngroups, ntiles, arena_bytes;
    struct vx_mem mem;
    vx_lctl *ctl, *hctl;
    double *xb[2];
    char *arena;                 /* the group's slice */
    cudaEvent_t ev_start, ev_end, ev[2];
    vx_level_fn fn;
    int per_sm, sms;
    struct vi_stats st;
};

/* The input checks: WX_OK to go on (n == 0 included). */
static int vx_lv_check(const struct vi_system *sys, const struct vi_params *par, const struct vi_levels *lvs,
                       struct wx_error *err)
{
    const ull n = sys->n_states, nc = sys->n_choices, ne = sys->n_entries, nlev = lvs->n_levels;
    if (!(par->epsilon > 0))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "epsilon must be > 0 (got %g)", par->epsilon);
    if (lvs->level_start[0] != 0 || lvs->level_start[nlev] != n)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: inconsistent levels");
    if (n == 0)
        return WX_OK;
    if (n >= 0xffffffffull || nc >= 0xffffffffull || ne >= 0xffffffffull || nlev >= 0xffffffffull)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "topological solving on the GPU takes fewer than 2^32 - 1 states, choices and "
                       "transitions (use --backend cpu)");
    if (sys->state_start[0] != 0 || sys->state_start[n] != nc || sys->choice_start[0] != 0 ||
        sys->choice_start[nc] != ne)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: inconsistent system offsets");
    for (ull s = 0; s < n; s++)
        if (sys->state_start[s + 1] <= sys->state_start[s])
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: a state without a choice");
    for (ull e = 0; e < ne; e++)
        if (sys->targets[e] >= n)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: an entry goes to a state >= %llu", n);
    if (!valiter_gpu_available())
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "no usable CUDA device (sm_90 or newer) for value iteration");
    return WX_OK;
}

/* Host side: 32-bit offsets, tiles level by level, tile records. */
static int vx_lv_host(struct vx_lsolve *L, struct wx_error *err)
{
    const struct vi_system *sys = L->sys;
    const ull n = L->n, nc = L->nc, nlev = L->nlev;
    L->tiles = (uint32_t *)malloc((n + nlev + 1) * sizeof *L->tiles);
    L->ltile = (uint32_t *)malloc((nlev + 1) * sizeof *L->ltile);
    L->hss = (uint32_t *)malloc((n + 1) * sizeof *L->hss);
    L->hcs = (uint32_t *)malloc((nc + 1) * sizeof *L->hcs);
    L->hx = (double *)malloc(n * L->vbytes);
    if (!L->tiles || !L->ltile || !L->hss || !L->hcs || !L->hx)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value iteration)");
    for (ull s = 0; s <= n; s++)
        L->hss[s] = (uint32_t)sys->state_start[s];
    for (ull c = 0; c <= nc; c++)
        L->hcs[c] = (uint32_t)sys->choice_start[c];
    for (ull l = 0; l < nlev; l++) {
        L->ltile[l] = (uint32_t)L->ntiles;
        const ull a = L->lvs->level_start[l], z = L->lvs->level_start[l + 1];
        if (z > a)
            L->ntiles += vx_make_tiles(sys, a, z, L->tiles + L->ntiles);
    }
    L->ltile[nlev] = (uint32_t)L->ntiles;
    L->tiles[L->ntiles] = (uint32_t)n;
    L->hrec = (uint4 *)malloc((L->ntiles + 1) * sizeof *L->hrec);
    L->hlv = (vx_level *)malloc((nlev ? nlev : 1) * sizeof *L->hlv);
    if (!L->hrec || !L->hlv)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value iteration)");
    for (ull k = 0; k <= L->ntiles; k++) {
        const ull c = sys->state_start[L->tiles[k]];
        L->hrec[k] = make_uint4(L->tiles[k], (uint32_t)c, (uint32_t)sys->choice_start[c], 0);
    }
    return WX_OK;
}

/* The groups of levels [L, ...) that fit sbudget bytes beside the vectors:
 * levels whole, or a level alone too big in chunks of its tiles. */
static int vx_lv_group(struct vx_lsolve *L, ull sbudget, struct wx_error *err)
{
    const struct vi_system *sys = L->sys;
    const uint32_t *tiles = L->tiles, *ltile = L->ltile;
    for (ull l = 0; l < L->nlev;) {
        const ull tl0 = ltile[l], tl1 = ltile[l + 1];
        if (vx_slice_bytes(sys, tiles, tl0, tl1, 1) > sbudget) {
            /* a level alone too big: chunks of its tiles */
            for (ull t = tl0; t < tl1;) {
                ull u = t + 1;
                while (u < tl1 && vx_slice_bytes(sys, tiles, t, u + 1, 1) <= sbudget)
                    u++;
                const ull b = vx_slice_bytes(sys, tiles, t, u, 1);
                if (b > sbudget)
                    return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                                   "topological solving on the GPU: one tile of level %llu needs %llu bytes "
                                   "beside the value vectors, %llu available",
                                   l, b, sbudget);
                L->arena_bytes = b > L->arena_bytes ? b : L->arena_bytes;
                L->groups[L->ngroups++] = (struct vx_group){l, l + 1, t, u, 1, u == tl1};
                t = u;
            }
            l++;
            continue;
        }
        ull m = l + 1;
        while (m < L->nlev && vx_slice_bytes(sys, tiles, tl0, ltile[m + 1], m + 1 - l) <= sbudget)
            m++;
        const ull b = vx_slice_bytes(sys, tiles, tl0, ltile[m], m - l);
        L->arena_bytes = b > L->arena_bytes ? b : L->arena_bytes;
        L->groups[L->ngroups++] = (struct vx_group){l, m, tl0, ltile[m], 0, 1};
        l = m;
    }
    return WX_OK;
}

/* The budget (par->device_memory or the free device memory): the vectors,
 * then groups of levels; and the level records (a level's slice is loaded
 * cached when it fits in VI_GPU_L2_FRACTION of L2). */
static int vx_lv_plan(struct vx_lsolve *L, struct wx_error *err)
{
    int rc = WX_OK;
    const struct vi_system *sys = L->sys;
    size_t freeb = 0, totalb = 0;
    int l2 = 0, dev = 0;
    CUDA_CHECK(cudaMemGetInfo(&freeb, &totalb));
    {
        ull budget = (ull)freeb > (64ull << 20) ? (ull)freeb - (64ull << 20) : 0; /* room for CUDA's own needs */
        if (L->par->device_memory && L->par->device_memory < budget)
            budget = L->par->device_memory;
        const ull fixed = 2 * vx_round(L->n * L->vbytes) + vx_round(sizeof(vx_lctl));
        ull smallest = 0; /* the biggest single tile: every chunk holds one at least */
        for (ull k = 0; k < L->ntiles; k++) {
            const ull b = vx_slice_bytes(sys, L->tiles, k, k + 1, 1);
            smallest = b > smallest ? b : smallest;
        }
        if (budget < fixed + smallest) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "topological solving on the GPU needs at least %llu bytes of device memory "
                         "(the value vectors and one tile), %llu available%s",
                         fixed + smallest, budget, L->par->device_memory ? " (--gpu-memory)" : "");
            goto out;
        }
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        L->groups = (struct vx_group *)malloc((L->nlev + L->ntiles + 1) * sizeof *L->groups);
        if (!L->groups) {
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value iteration)");
            goto out;
        }
        if ((rc = vx_lv_group(L, budget - fixed, err)))
            goto out;
    }
    for (ull l = 0; l < L->nlev; l++) {
        const ull a = L->lvs->level_start[l], z = L->lvs->level_start[l + 1];
        const ull lb = vx_slice_bytes(sys, L->tiles, L->ltile[l], L->ltile[l + 1], 1) + 2 * (z - a) * L->vbytes;
        L->hlv[l].t0 = L->ltile[l];
        L->hlv[l].t1 = L->ltile[l + 1];
        L->hlv[l].s0 = (uint32_t)a;
        L->hlv[l].s1 = (uint32_t)z;
        L->hlv[l].acyclic = L->lvs->acyclic[l];
        L->hlv[l].cached = (double)lb <= VI_GPU_L2_FRACTION * (double)l2;
    }
    L->st.groups = L->ngroups;
out:
    return rc;
}

/* Device buffers, the initial vectors in both buffers, events, the grid. */
static int vx_lv_setup(struct vx_lsolve *L, const double *lo, const double *hi, struct wx_error *err)
{
    int rc = WX_OK;
    struct vx_mem *mem = &L->mem;
    const ull n = L->n;
    int dev;
    VX_AL(mem, L->xb[0], n * L->vbytes, "values");
    VX_AL(mem, L->xb[1], n * L->vbytes, "values");
    VX_AL(mem, L->ctl, sizeof(vx_lctl), "level control");
    VX_AL(mem, L->arena, L->arena_bytes, "system slices");
    for (ull s = 0; s < n; s++) {
        if (L->iv)
            L->hx[2 * s] = lo[s], L->hx[2 * s + 1] = hi[s];
        else
            L->hx[s] = lo[s];
    }
    CUDA_CHECK(cudaMemcpy(L->xb[0], L->hx, n * L->vbytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(L->xb[1], L->hx, n * L->vbytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(L->ctl, 0, sizeof(vx_lctl)));
    CUDA_CHECK(cudaHostAlloc((void **)&L->hctl, 2 * sizeof(vx_lctl), cudaHostAllocDefault));
    CUDA_CHECK(cudaEventCreate(&L->ev_start));
    CUDA_CHECK(cudaEventCreate(&L->ev_end));
    CUDA_CHECK(cudaEventCreate(&L->ev[0]));
    CUDA_CHECK(cudaEventCreate(&L->ev[1]));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&L->per_sm, L->fn, VI_GPU_THREADS, 0));
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&L->sms, cudaDevAttrMultiProcessorCount, dev));
out:
    return rc;
}

/* Uploads group g's slice into the arena: the states, choices and entries
 * its tiles cover, its tile records and level records (tile indices
 * relative to its upload); *sy indexes the slice with absolute numbers,
 * *dlv holds the level records; *blocks: the grid of its widest level. */
static int vx_lv_upload(struct vx_lsolve *L, const struct vx_group *g, vx_sys *sy, vx_level **dlv, unsigned *blocks,
                        struct wx_error *err)
{
    int rc = WX_OK;
    const struct vi_system *sys = L->sys;
    const ull s0 = L->tiles[g->t0], s1 = L->tiles[g->t1];
    const ull c0 = sys->state_start[s0], c1 = sys->state_start[s1];
    const ull e0 = sys->choice_start[c0], e1 = sys->choice_start[c1];
    char *p = L->arena;
    uint32_t *dss = (uint32_t *)p;
    p += vx_round(4 * (s1 - s0 + 1));
    uint32_t *dcs = (uint32_t *)p;
    p += vx_round(4 * (c1 - c0 + 1));
    double *db = (double *)p;
    p += vx_round(8 * (c1 - c0 + 1));
    uint32_t *dtg = (uint32_t *)p;
    p += vx_round(4 * (e1 - e0 + 1));
    double *dpr = (double *)p;
    p += vx_round(8 * (e1 - e0 + 1));
    uint4 *drec = (uint4 *)p;
    p += vx_round(16 * (g->t1 - g->t0 + 1));
    *dlv = (vx_level *)p;
    CUDA_CHECK(cudaMemcpy(dss, L->hss + s0, 4 * (s1 - s0 + 1), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dcs, L->hcs + c0, 4 * (c1 - c0 + 1), cudaMemcpyHostToDevice));
    if (c1 > c0)
        CUDA_CHECK(cudaMemcpy(db, sys->b + c0, 8 * (c1 - c0), cudaMemcpyHostToDevice));
    if (e1 > e0) {
        CUDA_CHECK(cudaMemcpy(dtg, sys->targets + e0, 4 * (e1 - e0), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(dpr, sys->probs + e0, 8 * (e1 - e0), cudaMemcpyHostToDevice));
    }
    CUDA_CHECK(cudaMemcpy(drec, L->hrec + g->t0, 16 * (g->t1 - g->t0 + 1), cudaMemcpyHostToDevice));
    for (ull l = g->l0; l < g->l1; l++) {
        vx_level v = L->hlv[l];
        if (g->chunk)
            v.t0 = (uint32_t)g->t0, v.t1 = (uint32_t)g->t1;
        v.t0 -= (uint32_t)g->t0;
        v.t1 -= (uint32_t)g->t0;
        CUDA_CHECK(cudaMemcpy(*dlv + (l - g->l0), &v, sizeof v, cudaMemcpyHostToDevice));
    }
    memset(sy, 0, sizeof *sy);
    sy->n = L->n;
    /* base pointers shifted so that absolute numbers index them (see above) */
    sy->ss32 = dss - s0;
    sy->cs32 = dcs - c0;
    sy->b = db - c0;
    sy->tg = dtg - e0;
    sy->pr = dpr - e0;
    sy->trec = drec;
    {
        ull widest = 0;
        for (ull l = g->l0; l < g->l1; l++) {
            const ull w = g->chunk ? g->t1 - g->t0 : (ull)L->hlv[l].t1 - L->hlv[l].t0;
            widest = w > widest ? w : widest;
        }
        const ull need = (widest * 32 + VI_GPU_THREADS - 1) / VI_GPU_THREADS,
                  cap = (ull)L->sms * (L->per_sm > 0 ? L->per_sm : 1);
        *blocks = (unsigned)(need < 1 ? 1 : need < cap ? need : cap);
    }
out:
    return rc;
}

/* A resident group: batches of launches, two in flight, the level switches
 * decided on the device; a batch at least as long as the levels left (each
 * needs a sweep).  *stop: a level failed. */
static int vx_lv_resident(struct vx_lsolve *L, const struct vx_group *g, const vx_sys &sy, vx_level *dlv,
                          unsigned blocks, int *stop, struct wx_error *err)
{
    int rc = WX_OK;
    const ull nl = g->l1 - g->l0, max_it = L->par->max_iterations ? L->par->max_iterations : 1;
    ull batch = nl > VI_GPU_BATCH_MIN ? nl : VI_GPU_BATCH_MIN;
    int pending = 0, head = 0, done = 0;
    while (!done) {
        while (pending < 2) {
            for (ull j = 0; j < batch; j++) {
                L->fn<<<blocks, VI_GPU_THREADS>>>(sy, dlv, (unsigned)g->l0, (unsigned)g->l1, L->xb[0], L->xb[1],
                                                  L->ctl, max_it, L->par->epsilon, L->par->relative ? VX_REL : 0, 1);
                CUDA_CHECK_LAUNCH("vi_sweep_levels");
            }
            const int slot = (head + pending) & 1;
            CUDA_CHECK(cudaMemcpyAsync(&L->hctl[slot], L->ctl, sizeof(vx_lctl), cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaEventRecord(L->ev[slot]));
            pending++;
            batch = batch < VI_GPU_BATCH_MAX ? (batch * 2 < VI_GPU_BATCH_MAX ? batch * 2 : VI_GPU_BATCH_MAX) : batch;
        }
        CUDA_CHECK(cudaEventSynchronize(L->ev[head]));
        if (L->hctl[head].fail || L->hctl[head].level >= g->l1)
            done = 1;
        head ^= 1;
        pending--;
    }
    CUDA_CHECK(cudaDeviceSynchronize()); /* the slice is overwritten next */
    CUDA_CHECK(cudaMemcpy(L->hctl, L->ctl, sizeof(vx_lctl), cudaMemcpyDeviceToHost));
    *stop = L->hctl->fail != 0;
out:
    return rc;
}

/* Every group in turn; a chunked level goes back to its first chunk for
 * each further sweep. */
static int vx_lv_sweep_groups(struct vx_lsolve *L, struct wx_error *err)
{
    int rc = WX_OK, stop = 0;
    const ull max_it = L->par->max_iterations ? L->par->max_iterations : 1;
    for (ull gi = 0; gi < L->ngroups && !stop; gi++) {
        const struct vx_group *g = &L->groups[gi];
        vx_sys sy;
        vx_level *dlv = NULL;
        unsigned blocks = 1;
        if ((rc = vx_lv_upload(L, g, &sy, &dlv, &blocks, err)))
            goto out;
        if (!g->chunk) {
            if ((rc = vx_lv_resident(L, g, sy, dlv, blocks, &stop, err)))
                goto out;
            continue;
        }
        /* one launch per chunk; the level's decision after its last chunk */
        L->fn<<<blocks, VI_GPU_THREADS>>>(sy, dlv, (unsigned)g->l0, (unsigned)g->l1, L->xb[0], L->xb[1], L->ctl,
                                          max_it, L->par->epsilon, L->par->relative ? VX_REL : 0, g->last_chunk);
        CUDA_CHECK_LAUNCH("vi_sweep_levels");
        if (!g->last_chunk)
            continue;
        CUDA_CHECK(cudaMemcpy(L->hctl, L->ctl, sizeof(vx_lctl), cudaMemcpyDeviceToHost));
        if (L->hctl->fail)
            break;
        if (L->hctl->level == g->l0) {
            /* another sweep of the level: back to its first chunk */
            while (gi > 0 && L->groups[gi - 1].chunk && L->groups[gi - 1].l0 == g->l0)
                gi--;
            gi--;
        }
    }
out:
    return rc;
}

/* The values back into lo (hi), the statistics, and the outcome. */
static int vx_lv_finish(struct vx_lsolve *L, double *lo, double *hi, struct wx_error *err)
{
    int rc = WX_OK;
    const ull n = L->n;
    float ms = 0;
    CUDA_CHECK(cudaEventRecord(L->ev_end));
    CUDA_CHECK(cudaEventSynchronize(L->ev_end));
    CUDA_CHECK(cudaEventElapsedTime(&ms, L->ev_start, L->ev_end));
    CUDA_CHECK(cudaMemcpy(L->hctl, L->ctl, sizeof(vx_lctl), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(L->hx, L->xb[L->hctl->rbuf], n * L->vbytes, cudaMemcpyDeviceToHost));
    for (ull s = 0; s < n; s++) {
        if (L->iv)
            lo[s] = L->hx[2 * s], hi[s] = L->hx[2 * s + 1];
        else
            lo[s] = L->hx[s];
    }
    {
        const vx_lctl *h = L->hctl;
        const struct vi_params *par = L->par;
        L->st.level_sweeps = h->level_sweeps;
        L->st.iterations = (h->updates + n - 1) / n;
        L->st.sweep_seconds = L->st.iterations ? (double)ms * 1e-3 / (double)L->st.iterations : 0;
        if (h->fail == 2)
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "value iteration: level %u meets the %s stopping rule only as well as the levels "
                         "below it allow (use --method ii)",
                         h->fail_level, par->relative ? "relative" : "absolute");
        else if (h->fail)
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "value iteration did not converge after %u sweeps of level %u (epsilon %g%s)",
                         h->fail_sweeps, h->fail_level, par->epsilon, par->relative ? ", relative" : "");
        else if (h->level != L->nlev)
            rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal: level solve stopped at level %u of %llu",
                         h->level, L->nlev);
    }
out:
    return rc;
}

extern "C" int valiter_solve_levels_gpu(const struct vi_system *sys, const struct vi_params *par,
                                        const struct vi_levels *lvs, double *lo, double *hi,
                                        struct vi_stats *stats, struct wx_error *err)
{
    const double t0 = vx_now();
    int rc = WX_OK;
    struct vx_lsolve L;
    memset(&L, 0, sizeof L);
    L.sys = sys, L.par = par, L.lvs = lvs;
    L.n = sys->n_states, L.nc = sys->n_choices, L.ne = sys->n_entries, L.nlev = lvs->n_levels;
    L.iv = hi != NULL;
    L.vbytes = L.iv ? 16 : 8;
    L.st.bytes_per_sweep =
        4 * (L.n + 1) + 4 * (L.nc + 1) + 8 * L.nc + 12 * L.ne + (uint64_t)(L.iv ? 2 : 1) * 16 * L.n;
    L.fn = vx_pick_level(L.iv, par->maximize);
    if ((rc = vx_lv_check(sys, par, lvs, err)) || L.n == 0) {
        if (!rc && stats)
            *stats = L.st;
        return rc;
    }
    if ((rc = vx_lv_host(&L, err)) || (rc = vx_lv_plan(&L, err)) || (rc = vx_lv_setup(&L, lo, hi, err)))
        goto out;
    CUDA_CHECK(cudaEventRecord(L.ev_start));
    if ((rc = vx_lv_sweep_groups(&L, err)) || (rc = vx_lv_finish(&L, lo, hi, err)))
        goto out;
out:
    if (L.ev_start)
        cudaEventDestroy(L.ev_start);
    if (L.ev_end)
        cudaEventDestroy(L.ev_end);
    for (int i = 0; i < 2; i++)
        if (L.ev[i])
            cudaEventDestroy(L.ev[i]);
    if (L.hctl)
        cudaFreeHost(L.hctl);
    vx_free_all(&L.mem);
    free(L.tiles), free(L.ltile), free(L.hss), free(L.hcs), free(L.hx), free(L.hrec), free(L.hlv), free(L.groups);
    L.st.seconds = vx_now() - t0;
    if (stats)
        *stats = L.st;
    return rc;
}
