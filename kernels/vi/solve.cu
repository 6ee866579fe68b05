/*
 * solve.cu -- valiter_solve_gpu (analysis/valiter.h): the numeric core on
 * the GPU.  The steps of a solve:
 *   1. the sweep kind (vx_choose_kind; the kinds: sweeps.cu);
 *   2. the system goes up once, in the form the kind reads: packed
 *      (pack.cu) or raw, with 32-bit offsets and tile records or a tile
 *      list (vx_upload_packed, vx_upload_raw, vx_tile_layout);
 *   3. the grid (vx_grid_of) and the sweeps until the stopping rule
 *      (vx_sweeps), or VI_POLICY's steps (vx_solve_policy: sweeps, the
 *      policy steps of policy.cu, sweeps);
 *   4. the values come back (vx_read_back).
 *
 * BYTES PER SWEEP (stats.bytes_per_sweep) counts what a sweep must stream at
 * least in the representation its kernel reads: 8 B per state (state
 * offsets; 4 B with 32-bit copies, 1 B packed), 16 B per choice (choice
 * offsets 8 B or 4 B, constants 8 B; 2 B packed), 12 B per entry (target,
 * probability; 4 B packed), and per vector (lo, and hi for interval
 * iteration) one read and one write of 8 B per state.  The gathers
 * x[t[e]] and the tile table are not counted: with local targets the
 * caches serve the gathers.
 *
 * LIMITS.  The whole system must fit in device memory (the level solve,
 * levels.cu, uploads it in groups).
 *
 * Determinism: values and sweep counts are deterministic for the Jacobi
 * kinds and bit-identical to the CPU twin; in-place kinds are sound but
 * vary from run to run (sweep_kernels.cuh).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "vi_int.cuh"

/* (lo, hi) pairs <-> two arrays, for the interval vectors of the tiled kinds */
static __global__ void vx_interleave(const double *__restrict__ lo, const double *__restrict__ hi, ull n, double2 *x)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x)
        x[s] = make_double2(lo[s], hi[s]);
}

static __global__ void vx_deinterleave(const double2 *__restrict__ x, ull n, double *lo, double *hi)
{
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < n; s += (ull)gridDim.x * blockDim.x) {
        const double2 v = x[s];
        lo[s] = v.x, hi[s] = v.y;
    }
}

/* Checks what a bad system could turn into out-of-bounds reads: a target
 * >= n (bad[0]) or a state without a choice (bad[1]). */
static __global__ void vx_check_system(vx_sys sy, ull ne, unsigned *bad)
{
    const ull stride = (ull)gridDim.x * blockDim.x;
    for (ull i = blockIdx.x * (ull)blockDim.x + threadIdx.x; i < ne; i += stride)
        if (sy.tg[i] >= sy.n)
            bad[0] = 1; /* benign: every writer stores 1 */
    for (ull s = blockIdx.x * (ull)blockDim.x + threadIdx.x; s < sy.n; s += stride)
        if (sy.ss[s + 1] <= sy.ss[s])
            bad[1] = 1;
}

/* The kind before packing is tried: the pinned one, else
 * VI_KERNEL_TILES2 (the automatic choice starts there: packed where the
 * system packs); VI_KERNEL_TILES where 32-bit offsets do not fit.  *g: the
 * lanes per state a kind takes.  Returns whether the kind was pinned. */
static int vx_shape(const struct vi_system *sys, const struct vi_params *par, int *kind, int *g)
{
    int pg = 32, pk = vx_pinned(par, &pg);
    *kind = pk ? pk : VI_KERNEL_TILES2;
    *g = pk ? pg : 32;
    if (vx_kind_of(*kind)->narrow && (sys->n_choices > 0xfffffffeull || sys->n_entries > 0xfffffffeull))
        *kind = VI_KERNEL_TILES; /* the compact offsets would not fit (in-place sweeps need them: Jacobi) */
    if (vx_kind_of(*kind)->tiles)
        *g = 32;
    else if (*kind == VI_KERNEL_ENTRIES)
        *g = *g == 8 ? 8 : 32;
    else if (*g != 1 && *g != 2 && *g != 4 && *g != 8 && *g != 16)
        *g = 32;
    return pk != VI_KERNEL_AUTO;
}

/* Step 1: S->kind and its properties.  Packed sweeps are the automatic
 * choice where the system packs (host packing, phase 1, runs here), or
 * pinned (falling back to the kind's unpacked twin where it does not
 * pack).  Automatically: evict-first loads of the streamed arrays when the
 * value vectors fit in half of L2 (they then stay there), cached loads when
 * they do not; persistent sweeps (Jacobi, where the device can launch them
 * cooperatively) before launched ones.  VI_GAUSS_SEIDEL then runs the
 * kind's in-place twin. */
static int vx_choose_kind(struct vx_solve *S, struct wx_error *err)
{
    int rc = WX_OK;
    const struct vi_params *par = S->par;
    const int pinned = vx_shape(S->sys, par, &S->kind, &S->g);
    if ((S->kind == VI_KERNEL_TILES2 && !pinned) || vx_kind_of(S->kind)->packed) {
        int packable = 0;
        if ((rc = vx_pack_plan(&S->hp, S->sys, &packable, err)))
            goto out;
        if (packable) {
            if (!pinned) {
                int dev = 0, l2 = 0, coop = 0;
                CUDA_CHECK(cudaGetDevice(&dev));
                CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
                CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
                const int evict = (ull)(S->iv ? 2 : 1) * 16 * S->n <= (ull)l2 / 2;
                if (coop && par->method != VI_GAUSS_SEIDEL)
                    S->kind = evict ? VI_KERNEL_PERSIST_EVICT : VI_KERNEL_PERSIST_CACHED;
                else
                    S->kind = evict ? VI_KERNEL_PACKED_EVICT : VI_KERNEL_PACKED_CACHED;
            }
        } else if (pinned)
            S->kind = vx_kind_of(S->kind)->unpacked;
        else
            S->kind = par->method == VI_GAUSS_SEIDEL ? VI_KERNEL_TILES2 : VI_KERNEL_TILES3;
    }
    if (par->method == VI_GAUSS_SEIDEL)
        S->kind = vx_kind_of(S->kind)->gauss_seidel; /* in-place sweeps (sweep_kernels.cuh, vi_sweep_tiles2) */
    {
        const struct vx_kind *k = vx_kind_of(S->kind);
        S->inpl = k->inplace, S->packed = k->packed, S->t3 = k->tiles3, S->pers = k->persistent;
    }
out:
    return rc;
}

/* The value vectors and the sweep control block; interval vectors of the
 * tiled kinds are interleaved on the device (a host loop would cost ~4 ms
 * of page faults on a large system) by vx_tile_layout. */
static int vx_upload_vectors(struct vx_solve *S, const double *lo, const double *hi, struct wx_error *err)
{
    int rc = WX_OK;
    struct vx_mem *mem = &S->mem;
    const ull n = S->n;
    if (S->packed && S->iv) {
        VX_UP(mem, S->dlo[0], lo, n * sizeof(double), "lower values");
        VX_UP(mem, S->dhi[0], hi, n * sizeof(double), "upper values");
    } else {
        VX_UP(mem, S->dlo[0], lo, n * sizeof(double), "lower values");
        VX_AL(mem, S->dlo[1], n * sizeof(double), "lower values");
        if (S->iv && !S->packed) {
            VX_UP(mem, S->dhi[0], hi, n * sizeof(double), "upper values");
            VX_AL(mem, S->dhi[1], n * sizeof(double), "upper values");
        }
    }
out:
    return rc;
}

/* Step 2, packed: host packing's phase 2 and the uploads (the raw system
 * never goes up; the packed copy is smaller than it, so no memory check
 * beyond the allocations' own). */
static int vx_upload_packed(struct vx_solve *S, const double *lo, const double *hi, struct wx_error *err)
{
    int rc = WX_OK;
    struct vx_mem *mem = &S->mem;
    const ull n = S->n;
    if ((rc = vx_pack_upload(S->hp, S->sys, &S->sy, mem, err)) || (rc = vx_upload_vectors(S, lo, hi, err)))
        goto out;
    if (S->iv) {
        VX_AL(mem, S->x2[0], 2 * n * sizeof(double), "value pairs");
        VX_AL(mem, S->x2[1], 2 * n * sizeof(double), "value pairs");
        vx_interleave<<<vx_blocks(n), VI_GPU_THREADS>>>(S->dlo[0], S->dhi[0], n, (double2 *)S->x2[0]);
        CUDA_CHECK_LAUNCH("vx_interleave");
    }
    VX_AL(mem, S->ctl, sizeof(vx_ctl), "sweep control");
    CUDA_CHECK(cudaMemset(S->ctl, 0, sizeof(vx_ctl)));
    /* what this kernel must stream: 1 B per state, 2 B per choice, 4 B per entry */
    S->st.bytes_per_sweep = n + 2 * S->nc + 4 * S->ne + (uint64_t)(S->iv ? 2 : 1) * 16 * n;
out:
    return rc;
}

/* Step 2, unpacked: the raw system, the vectors, and the checks of what a
 * bad system could turn into out-of-bounds reads. */
static int vx_upload_raw(struct vx_solve *S, const double *lo, const double *hi, struct wx_error *err)
{
    int rc = WX_OK;
    struct vx_mem *mem = &S->mem;
    const struct vi_system *sys = S->sys;
    const ull n = S->n, nc = S->nc, ne = S->ne;
    unsigned *dbad = NULL, hbad[2] = {0, 0};
    VX_UP(mem, S->sy.ss, sys->state_start, (n + 1) * sizeof(ull), "state offsets");
    VX_UP(mem, S->sy.cs, sys->choice_start, (nc + 1) * sizeof(ull), "choice offsets");
    VX_UP(mem, S->sy.tg, sys->targets, ne * sizeof(uint32_t), "targets");
    VX_UP(mem, S->sy.pr, sys->probs, ne * sizeof(double), "probabilities");
    VX_UP(mem, S->sy.b, sys->b, nc * sizeof(double), "constants");
    if ((rc = vx_upload_vectors(S, lo, hi, err)))
        goto out;
    VX_AL(mem, S->ctl, sizeof(vx_ctl), "sweep control");
    VX_AL(mem, dbad, 2 * sizeof(unsigned), "input check");
    CUDA_CHECK(cudaMemset(S->ctl, 0, sizeof(vx_ctl)));
    CUDA_CHECK(cudaMemset(dbad, 0, 2 * sizeof(unsigned)));
    vx_check_system<<<vx_blocks(ne > n ? ne : n), VI_GPU_THREADS>>>(S->sy, ne, dbad);
    CUDA_CHECK_LAUNCH("vx_check_system");
    CUDA_CHECK(cudaMemcpy(hbad, dbad, sizeof hbad, cudaMemcpyDeviceToHost));
    if (hbad[0])
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: an entry goes to a state >= %llu", n);
    else if (hbad[1])
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: a state without a choice");
out:
    return rc;
}

/* Step 2, unpacked tiled kinds: 32-bit offsets, interleaved interval
 * vectors and tile records (kinds with narrow offsets), or a tile list
 * (VI_KERNEL_TILES*). */
static int vx_tile_layout(struct vx_solve *S, struct wx_error *err)
{
    int rc = WX_OK;
    struct vx_mem *mem = &S->mem;
    const struct vi_system *sys = S->sys;
    const ull n = S->n, nc = S->nc, ne = S->ne;
    uint32_t *ht = NULL, *p32;
    uint4 *hr = NULL;
    void *p_;
    if (!vx_kind_of(S->kind)->tiles || S->packed)
        return WX_OK;
    ht = (uint32_t *)malloc((n + 1) * sizeof(uint32_t));
    if (!ht) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration tiles)");
        goto out;
    }
    if (!vx_kind_of(S->kind)->narrow) {
        S->sy.ntiles = vx_make_tiles(sys, 0, n, ht);
        if ((rc = vx_upload(mem, &p_, ht, (S->sy.ntiles + 1) * sizeof(uint32_t), "tiles", err)))
            goto out;
        S->sy.tiles = (const uint32_t *)p_;
        goto out;
    }
    VX_AL(mem, p32, (n + 1) * sizeof(uint32_t), "state offsets (32-bit)");
    if ((rc = vx_narrow_copy(S->sy.ss, n + 1, p32, err)))
        goto out;
    S->sy.ss32 = p32;
    VX_AL(mem, p32, (nc + 1) * sizeof(uint32_t), "choice offsets (32-bit)");
    if ((rc = vx_narrow_copy(S->sy.cs, nc + 1, p32, err)))
        goto out;
    S->sy.cs32 = p32;
    if (S->iv) {
        VX_AL(mem, S->x2[0], 2 * n * sizeof(double), "value pairs");
        VX_AL(mem, S->x2[1], 2 * n * sizeof(double), "value pairs");
        vx_interleave<<<vx_blocks(n), VI_GPU_THREADS>>>(S->dlo[0], S->dhi[0], n, (double2 *)S->x2[0]);
        CUDA_CHECK_LAUNCH("vx_interleave");
    }
    /* what this kernel must stream: 4 B per state and per choice offset */
    S->st.bytes_per_sweep = 4 * (n + 1) + 4 * (nc + 1) + 8 * nc + 12 * ne + (uint64_t)(S->iv ? 2 : 1) * 16 * n;
    hr = (uint4 *)malloc((n + 1) * sizeof(uint4));
    if (!hr) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration tiles)");
        goto out;
    }
    S->sy.ntiles = vx_make_tiles_lim(sys, 0, n, ht, VI_GPU_TILE_ENTRIES, S->t3 ? VI_GPU_T3_CHOICES : VI_GPU_TILE_ENTRIES);
    for (ull k = 0; k <= S->sy.ntiles; k++) {
        const uint64_t c = sys->state_start[ht[k]];
        hr[k] = make_uint4(ht[k], (uint32_t)c, (uint32_t)sys->choice_start[c], 0);
    }
    if ((rc = vx_upload(mem, &p_, hr, (S->sy.ntiles + 1) * sizeof(uint4), "tile records", err)))
        goto out;
    S->sy.trec = (const uint4 *)p_;
out:
    free(ht);
    free(hr);
    return rc;
}

/* Step 3's grid: the kernel of the kind for interval (iv) or plain sweeps (a persistent kind the device
 * cannot launch cooperatively runs its launched twin) and its blocks:
 * enough for the tiles (or states), at most what fits on the device
 * (par->gpu.persist_blocks caps the persistent and tiles3 kinds' blocks
 * per SM: measurements; tests: a warp then sweeps several tiles). */
int vx_grid_of(struct vx_solve *S, struct vx_sweeper *sw, int iv, struct wx_error *err)
{
    int rc = WX_OK;
    int per_sm = 0, dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (S->pers && S->par->n_watch > VI_GPU_PERSIST_WATCH_MAX && iv && !S->ovi)
        /* a long watch list is checked between launched sweeps */
        S->kind = vx_kind_of(S->kind)->launched, S->pers = 0;
    if (S->pers) {
        int coop = 0;
        sw->pfn = vx_pick_persist(iv, S->par->maximize, S->kind);
        CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sw->pfn, VI_GPU_THREADS, 0));
        if (!coop || per_sm < 1) /* a persistent kind the device cannot launch: the launched sweeps */
            S->kind = vx_kind_of(S->kind)->launched, S->pers = 0;
    }
    if (!S->pers) {
        sw->fn = vx_pick(iv, S->par->maximize, S->kind, S->g);
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sw->fn, VI_GPU_THREADS, 0));
    }
    {
        const int bcap = S->par->gpu.persist_blocks;
        if ((S->pers || S->t3) && bcap > 0 && bcap < per_sm)
            per_sm = bcap;
        const ull lanes = vx_kind_of(S->kind)->tiles ? S->sy.ntiles * 32 : S->n * (ull)S->g;
        const ull need = (lanes + VI_GPU_THREADS - 1) / VI_GPU_THREADS;
        const ull cap = (ull)sms * (per_sm > 0 ? per_sm : 1);
        sw->blocks = (unsigned)(need < cap ? need : cap);
        if (!sw->blocks)
            sw->blocks = 1;
    }
out:
    return rc;
}

/* The sweeps' iterate in buffer buf moved to buffer 0, where vx_sweeps
 * starts (a fresh sequence of sweeps: Jacobi depends on the values only). */
static int vx_to_buf0(struct vx_sweeper *sw, ull n, int buf, struct wx_error *err)
{
    int rc = WX_OK;
    if (buf <= 0)
        return WX_OK;
    if (sw->x2[0])
        CUDA_CHECK(cudaMemcpyAsync(sw->x2[0], sw->x2[1], 2 * n * sizeof(double), cudaMemcpyDeviceToDevice));
    else {
        CUDA_CHECK(cudaMemcpyAsync(sw->dlo[0], sw->dlo[1], n * sizeof(double), cudaMemcpyDeviceToDevice));
        if (sw->iv)
            CUDA_CHECK(cudaMemcpyAsync(sw->dhi[0], sw->dhi[1], n * sizeof(double), cudaMemcpyDeviceToDevice));
    }
out:
    return rc;
}

/* Where the sweeps of a solve stand. */
struct vx_run {
    ull used;        /* sweeps so far (VI_POLICY: and whole-operator applications) */
    int converged;
    int res_buf;     /* the answer: sweep buffer res_buf, or -1: dlo[0] / dhi[0] */
    float sweep_ms;  /* device time of the sweeps */
    ull sweeps_timed;
};

/* Up to cap sweeps from the run's current iterate (moved to buffer 0 first). */
static int vx_more_sweeps(struct vx_solve *S, struct vx_sweeper *sw, struct vx_run *R, ull cap, ull *d,
                          struct wx_error *err)
{
    int rc;
    float ms = 0;
    if ((rc = vx_to_buf0(sw, S->n, R->res_buf, err)) || (rc = vx_sweeps(sw, cap, d, &R->converged, &ms, err)))
        return rc;
    R->used += *d, R->sweep_ms += ms, R->sweeps_timed += *d;
    R->res_buf = S->inpl ? 0 : (int)(*d & 1);
    return WX_OK;
}

/* VI_POLICY's steps 2-5 after step 1 (the contract, valiter.h): on plain
 * (lo, hi) arrays in dlo[0], dhi[0]; a certificate is the answer even past
 * max_iterations (as in the twin), else interval iteration finishes. */
static int vx_policy_steps(struct vx_solve *S, struct vx_sweeper *sw, struct vx_run *R, ull max_it,
                           struct wx_error *err)
{
    int rc = WX_OK, certified = 0;
    const ull n = S->n;
    FILE *tr = S->par->gpu.pi_trace;
    double tp;
    if (S->x2[0]) {
        vx_deinterleave<<<vx_blocks(n), VI_GPU_THREADS>>>((const double2 *)S->x2[R->res_buf], n, S->dlo[0], S->dhi[0]);
        CUDA_CHECK_LAUNCH("vx_deinterleave");
    } else if (R->res_buf) {
        CUDA_CHECK(cudaMemcpyAsync(S->dlo[0], S->dlo[1], n * sizeof(double), cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaMemcpyAsync(S->dhi[0], S->dhi[1], n * sizeof(double), cudaMemcpyDeviceToDevice));
    }
    R->res_buf = -1;
    tp = vx_now();
    if ((rc = vx_policy(S->P, S->par, S->dlo[0], S->dhi[0], &R->used, &S->st, &certified, err)))
        goto out;
    if (tr)
        fprintf(tr, "pi: steps 2-4 %.3f ms, %s\n", (vx_now() - tp) * 1e3,
                certified ? "certified" : "not certified: interval iteration finishes");
    if (certified) {
        S->st.certified = 1;
        R->converged = 1;
    } else if (R->used < max_it) {
        /* step 5: interval iteration from the improved bounds */
        ull d5 = 0;
        float ms = 0;
        if (S->x2[0]) {
            vx_interleave<<<vx_blocks(n), VI_GPU_THREADS>>>(S->dlo[0], S->dhi[0], n, (double2 *)S->x2[0]);
            CUDA_CHECK_LAUNCH("vx_interleave");
        }
        tp = vx_now();
        if ((rc = vx_sweeps(sw, max_it - R->used, &d5, &R->converged, &ms, err)))
            goto out;
        if (tr)
            fprintf(tr, "pi: step 5: %llu sweeps %.3f ms%s\n", (unsigned long long)d5, (vx_now() - tp) * 1e3,
                    R->converged ? ", converged" : "");
        R->sweep_ms += ms;
        R->sweeps_timed += d5;
        R->used += d5;
        R->res_buf = S->inpl ? 0 : (int)(d5 & 1);
    }
out:
    return rc;
}

/* Step 3: the sweeps; with pi (VI_POLICY possible), step 1 in two parts
 * (K/2, K - K/2 sweeps) with the largest gap after each, then interval
 * iteration goes on where the gap's rate says it is about to finish, else
 * the policy steps.  t0: the solve's start (for the trace). */
static int vx_solve_sweeps(struct vx_solve *S, struct vx_sweeper *sw, struct vx_run *R, int pi, ull max_it,
                           double t0, struct wx_error *err)
{
    int rc = WX_OK;
    const struct vi_params *par = S->par;
    FILE *tr = par->gpu.pi_trace;
    const ull K = par->pi_sweeps ? par->pi_sweeps : VI_PI_SWEEPS;
    const ull part_len[2] = {pi ? (K >= 2 ? K / 2 : K) : max_it, pi && K >= 2 ? K - K / 2 : 0};
    double gap[2] = {0, 0}, tp = vx_now();
    ull d = 0;
    if (pi && (rc = vx_pi_setup(&S->P, &S->mem, S->sys, &S->sy, S->packed, par, err)))
        return rc;
    for (int part = 0; part < 2 && part_len[part] && !R->converged && R->used < max_it; part++) {
        const ull cap = part_len[part] < max_it - R->used ? part_len[part] : max_it - R->used;
        if ((rc = vx_more_sweeps(S, sw, R, cap, &d, err)))
            return rc;
        if (pi && K >= 2 && !R->converged && (rc = vx_pi_gap(S->P, sw, S->n, R->res_buf, &gap[part], err)))
            return rc;
    }
    if (tr)
        fprintf(tr, "pi: setup %.3f ms; %llu sweeps %.3f ms (device %.3f ms)%s, gaps %.3g %.3g\n", (tp - t0) * 1e3,
                (unsigned long long)R->used, (vx_now() - tp) * 1e3, (double)R->sweep_ms,
                R->converged ? ", converged" : "", gap[0], gap[1]);
    if (!pi || R->converged || R->used >= max_it)
        return WX_OK;
    if (K >= 2 && gap[1] < gap[0] &&
        (double)(K - K / 2) * log(gap[1] / par->epsilon) / log(gap[0] / gap[1]) <= VI_PI_CONTINUE) {
        /* interval iteration is about to finish: it goes on (step 5 alone) */
        if ((rc = vx_more_sweeps(S, sw, R, max_it - R->used, &d, err)))
            return rc;
        if (tr)
            fprintf(tr, "pi: interval iteration goes on: %llu sweeps%s\n", (unsigned long long)d,
                    R->converged ? ", converged" : "");
        return WX_OK;
    }
    return vx_policy_steps(S, sw, R, max_it, err);
}

/* Step 4: the answer into lo (and hi). */
static int vx_read_back(struct vx_solve *S, struct vx_run *R, double *lo, double *hi, struct wx_error *err)
{
    int rc = WX_OK;
    const ull n = S->n;
    if (R->res_buf >= 0 && S->x2[0]) {
        vx_deinterleave<<<vx_blocks(n), VI_GPU_THREADS>>>((const double2 *)S->x2[R->res_buf], n, S->dlo[0], S->dhi[0]);
        CUDA_CHECK_LAUNCH("vx_deinterleave");
        R->res_buf = 0;
    }
    {
        const int w = R->res_buf > 0 ? R->res_buf : 0;
        CUDA_CHECK(cudaMemcpy(lo, S->dlo[w], n * sizeof(double), cudaMemcpyDeviceToHost));
        if (S->iv)
            CUDA_CHECK(cudaMemcpy(hi, S->dhi[w], n * sizeof(double), cudaMemcpyDeviceToHost));
    }
out:
    return rc;
}

int vx_solve_check(const struct vi_system *sys, const struct vi_params *par, struct wx_error *err)
{
    const ull n = sys->n_states, nc = sys->n_choices, ne = sys->n_entries;
    if (!(par->epsilon > 0))
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "epsilon must be > 0 (got %g)", par->epsilon);
    if (n == 0)
        return WX_OK;
    if (n > 0xffffffffull)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "more than 2^32 - 1 states");
    if (sys->state_start[0] != 0 || sys->state_start[n] != nc || sys->choice_start[0] != 0 ||
        sys->choice_start[nc] != ne)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: inconsistent system offsets");
    if (!valiter_gpu_available())
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "no usable CUDA device (sm_90 or newer) for value iteration");
    return WX_OK;
}

int vx_solve_begin(struct vx_solve *S, struct vx_sweeper *sw, const double *lo, const double *hi,
                   struct wx_error *err)
{
    int rc = WX_OK;
    const struct vi_params *par = S->par;
    S->sy.n = S->n;
    if ((rc = vx_choose_kind(S, err)) ||
        (rc = S->packed ? vx_upload_packed(S, lo, hi, err) : vx_upload_raw(S, lo, hi, err)) ||
        (rc = vx_tile_layout(S, err)) || (rc = vx_grid_of(S, sw, S->iv, err)))
        goto out;
    vx_last_kind = S->kind;
    CUDA_CHECK(cudaHostAlloc((void **)&S->hctl, 2 * sizeof(vx_ctl), cudaHostAllocDefault));
    CUDA_CHECK(cudaEventCreate(&S->ev_start));
    CUDA_CHECK(cudaEventCreate(&S->ev[0]));
    CUDA_CHECK(cudaEventCreate(&S->ev[1]));
    sw->pers = S->pers, sw->inpl = S->inpl, sw->iv = S->iv, sw->sy = S->sy;
    for (int i = 0; i < 2; i++)
        sw->x2[i] = S->x2[i], sw->dlo[i] = S->dlo[i], sw->dhi[i] = S->dhi[i], sw->ev[i] = S->ev[i];
    sw->ctl = S->ctl, sw->hctl = S->hctl, sw->ev_start = S->ev_start;
    sw->eps = par->epsilon, sw->rel = par->relative ? VX_REL : 0;
out:
    return rc;
}

void vx_solve_end(struct vx_solve *S)
{
    if (S->ev_start)
        cudaEventDestroy(S->ev_start);
    for (int i = 0; i < 2; i++)
        if (S->ev[i])
            cudaEventDestroy(S->ev[i]);
    vx_pi_free(S->P);
    if (S->hctl)
        cudaFreeHost(S->hctl);
    vx_free_all(&S->mem);
    vx_pack_free(S->hp);
}

extern "C" int valiter_solve_gpu(const struct vi_system *sys, const struct vi_params *par, double *lo, double *hi,
                                 struct vi_stats *stats, struct wx_error *err)
{
    const double t0 = vx_now();
    int rc = WX_OK;
    struct vx_solve S;
    struct vx_sweeper sw;
    struct vx_run R;
    memset(&S, 0, sizeof S);
    memset(&sw, 0, sizeof sw);
    memset(&R, 0, sizeof R);
    S.sys = sys, S.par = par, S.iv = hi != NULL;
    S.n = sys->n_states, S.nc = sys->n_choices, S.ne = sys->n_entries;
    /* minimal bytes a sweep streams: the system once, each vector read once
     * and written once (the gathers x[t[e]] are not counted: they hit the
     * cache when targets are local) */
    S.st.bytes_per_sweep =
        8 * (S.n + 1) + 8 * (S.nc + 1) + 8 * S.nc + 12 * S.ne + (uint64_t)(S.iv ? 2 : 1) * 16 * S.n;
    if ((rc = vx_solve_check(sys, par, err)) || S.n == 0) {
        if (!rc && stats)
            *stats = S.st;
        return rc;
    }
    const ull max_it = par->max_iterations ? par->max_iterations : 1; /* the CPU twin also sweeps at least once */
    const int pi = par->method == VI_POLICY && S.iv && !par->relative && vx_pi_possible(sys);
    if ((rc = vx_solve_begin(&S, &sw, lo, hi, err)))
        goto out;
    if (par->n_watch && S.iv) {
        void *dw = NULL;
        if ((rc = vx_upload(&S.mem, &dw, par->watch, par->n_watch * sizeof *par->watch, "watched states", err)))
            goto out;
        sw.watch = (const uint32_t *)dw, sw.n_watch = par->n_watch;
    }
    if ((rc = vx_solve_sweeps(&S, &sw, &R, pi, max_it, t0, err)) || (rc = vx_read_back(&S, &R, lo, hi, err)))
        goto out;
    S.st.iterations = R.used;
    S.st.sweep_seconds = R.sweeps_timed ? (double)R.sweep_ms * 1e-3 / (double)R.sweeps_timed : 0;
    if (!R.converged)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "value iteration did not converge after %llu sweeps",
                     (unsigned long long)R.used);
out:
    vx_solve_end(&S);
    S.st.seconds = vx_now() - t0;
    if (stats)
        *stats = S.st;
    return rc;
}
