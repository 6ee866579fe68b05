/*
 * sweeps.cu -- the sweep kinds of the GPU value iteration and the loop that
 * runs sweeps until the stopping rule holds.
 *
 * KINDS (enum vi_kernel, analysis/valiter.h).  A kind is one sweep kernel
 * with its loads and layout: the table below says what each needs of the
 * solve (tiles, 32-bit offsets, the packed system, in place, persistent)
 * and what runs instead where it cannot run (solve.cu applies it).  The
 * automatic choice (solve.cu, vx_choose_kind): packed sweeps where the
 * system packs (persistent where the device launches cooperatively and the
 * sweeps are Jacobi, evict-first loads where the value vectors fit in half
 * of L2), else tiles3 (Jacobi) or tiles2 in place (VI_GAUSS_SEIDEL), and
 * the tiles kernel with 64-bit offsets where 32-bit ones do not fit.  The
 * kinds never chosen automatically are in sweep_variants.cu.
 *
 * CONVERGENCE ON THE DEVICE.  Sweep k (1-based) ORs "some state of mine
 * violates the stopping rule" (VX_VIOL) into ctl.viol[k % 3], and
 * optimistic value iteration's verification sweeps VX_CROSS (a guess
 * crossed the lower bound: ovi.cu).  Before doing anything, sweep k looks
 * at ctl.viol[(k-1) % 3]: no VX_VIOL, or VX_CROSS (vx_halt), means sweep k-1
 * ended the sweeps ("converged" below), so
 * sweep k records done_iter = k-1 and returns without writing, as does every
 * later launch (ctl.done).  Block 0 of sweep k zeroes viol[(k+1) % 3], the
 * slot sweep k+1 will count into (last read by sweep k-1, which has
 * finished).  The host therefore enqueues sweeps in batches
 * (VI_GPU_BATCH_MIN, doubling up to VI_GPU_BATCH_MAX) with an asynchronous
 * copy of ctl after each batch, keeps two batches in flight and never
 * waits per sweep; launches after convergence are no-ops that cost a few
 * microseconds.  The persistent kernels keep this protocol with a chunk of
 * sweeps per launch (VI_GPU_PCHUNK_MIN doubling up to VI_GPU_PCHUNK_MAX):
 * between sweeps of a launch the grid meets at a barrier and reads
 * viol[k % 3] itself.
 *
 * WATCHED STATES (valiter.h).  With a watch list, a one-block kernel
 * (vx_watch_check) follows every launched sweep k in the stream: when the
 * bounds sweep k wrote meet the stopping rule at every watched state, it
 * clears viol[k % 3], so that sweep k + 1 (or the host) finds sweep k
 * converged, exactly as if every state had met the rule.  The CPU twin
 * stops after the same sweep, so Jacobi kinds stay bit-identical to it.
 * Persistent kinds decide between sweeps inside one launch: with a watch
 * list of at most VI_GPU_PERSIST_WATCH_MAX states every block of the launch
 * checks it after the barrier (vx_persist_stop), otherwise their launched
 * twins run (solve.cu, vx_grid_of).
 *
 * Determinism: Jacobi kinds give the same values and sweep counts on every
 * run (and as the CPU twin); in-place kinds do not (sweep_kernels.cuh).
 */
#include "sweep_kernels.cuh"

#define K(k) VI_KERNEL_##k
/* Indexed by kind: tiles, narrow, packed, inplace, persistent, tiles3;
 * Gauss-Seidel twin, launched twin (persistent kinds), unpacked twin
 * (packed kinds); see struct vx_kind. */
static const struct vx_kind vx_kinds[VI_KERNEL_LAST + 1] = {
    {0, 0, 0, 0, 0, 0, K(AUTO), K(AUTO), K(AUTO)}, /* AUTO */
    {0, 0, 0, 0, 0, 0, K(CHOICES), K(AUTO), K(AUTO)}, /* CHOICES */
    {0, 0, 0, 0, 0, 0, K(ENTRIES), K(AUTO), K(AUTO)}, /* ENTRIES */
    {1, 0, 0, 0, 0, 0, K(TILES), K(AUTO), K(AUTO)}, /* TILES */
    {1, 0, 0, 0, 0, 0, K(TILES_6B), K(AUTO), K(AUTO)}, /* TILES_6B */
    {1, 1, 0, 0, 0, 0, K(TILES2_INPLACE), K(AUTO), K(AUTO)}, /* TILES2 */
    {1, 1, 0, 0, 0, 0, K(TILES2_LATE), K(AUTO), K(AUTO)}, /* TILES2_LATE */
    {1, 1, 0, 1, 0, 0, K(TILES2_INPLACE), K(AUTO), K(AUTO)}, /* TILES2_INPLACE */
    {1, 1, 1, 0, 0, 0, K(PACKED_INPLACE_EVICT), K(AUTO), K(TILES2)}, /* PACKED_EVICT */
    {1, 1, 1, 1, 0, 0, K(PACKED_INPLACE_EVICT), K(AUTO), K(TILES2_INPLACE)}, /* PACKED_INPLACE_EVICT */
    {1, 1, 1, 0, 0, 0, K(PACKED_INPLACE_CACHED), K(AUTO), K(TILES2)}, /* PACKED_CACHED */
    {1, 1, 1, 1, 0, 0, K(PACKED_INPLACE_CACHED), K(AUTO), K(TILES2_INPLACE)}, /* PACKED_INPLACE_CACHED */
    {1, 1, 1, 0, 0, 0, K(PACKED_AHEAD_INPLACE), K(AUTO), K(TILES2)}, /* PACKED_AHEAD */
    {1, 1, 1, 1, 0, 0, K(PACKED_AHEAD_INPLACE), K(AUTO), K(TILES2_INPLACE)}, /* PACKED_AHEAD_INPLACE */
    {1, 1, 1, 0, 1, 0, K(PACKED_INPLACE_CACHED), K(PACKED_CACHED), K(TILES2)}, /* PERSIST_CACHED */
    {1, 1, 1, 0, 1, 0, K(PACKED_INPLACE_EVICT), K(PACKED_EVICT), K(TILES2)}, /* PERSIST_EVICT */
    {1, 1, 0, 0, 0, 1, K(TILES2_INPLACE), K(AUTO), K(AUTO)}, /* TILES3 */
    {1, 1, 0, 0, 1, 1, K(TILES2_INPLACE), K(TILES3), K(AUTO)}, /* TILES3_PERSIST */
};
#undef K

const struct vx_kind *vx_kind_of(int k)
{
    return &vx_kinds[k >= 0 && k <= VI_KERNEL_LAST ? k : 0];
}

template <bool IV, bool MX>
static vx_sweep_fn vx_pick2(int kind, int g)
{
    switch (kind) {
    case VI_KERNEL_TILES: return vi_sweep_tiles<IV, MX, 1>;
    case VI_KERNEL_TILES2_INPLACE: return vi_sweep_tiles2<IV, MX, true, true>;
    case VI_KERNEL_PACKED_EVICT: return vi_sweep_packed<IV, MX, false, true, false>;
    case VI_KERNEL_PACKED_INPLACE_EVICT: return vi_sweep_packed<IV, MX, true, true, false>;
    case VI_KERNEL_PACKED_CACHED: return vi_sweep_packed<IV, MX, false, false, false>;
    case VI_KERNEL_PACKED_INPLACE_CACHED: return vi_sweep_packed<IV, MX, true, false, false>;
    case VI_KERNEL_TILES3: return vi_sweep_tiles3<IV, MX>;
    default: return vx_pick_variant(IV, MX, kind, g);
    }
}

vx_sweep_fn vx_pick(int iv, int mx, int kind, int g)
{
    if (iv)
        return mx ? vx_pick2<true, true>(kind, g) : vx_pick2<true, false>(kind, g);
    return mx ? vx_pick2<false, true>(kind, g) : vx_pick2<false, false>(kind, g);
}

template <bool IV, bool MX>
static vx_persist_fn vx_pick_persist2(int kind)
{
    switch (kind) {
    case VI_KERNEL_PERSIST_CACHED: return vi_sweep_persist<IV, MX, false>;
    case VI_KERNEL_PERSIST_EVICT: return vi_sweep_persist<IV, MX, true>;
    default: return vx_pick_persist_variant(IV, MX, kind);
    }
}

vx_persist_fn vx_pick_persist(int iv, int mx, int kind)
{
    if (iv)
        return mx ? vx_pick_persist2<true, true>(kind) : vx_pick_persist2<true, false>(kind);
    return mx ? vx_pick_persist2<false, true>(kind) : vx_pick_persist2<false, false>(kind);
}

/* After sweep it (interval bounds in lo/hi, or (lo, hi) pairs in x2):
 * clears the sweep's violation flag when every watched state meets the
 * stopping rule (vi_dev.cuh's test, the CPU's gap_ok).  A sweep that found
 * the run already converged wrote nothing: then nothing is done.  One
 * block. */
static __global__ void vx_watch_check(const double *lo, const double *hi, const double2 *x2,
                                      const uint32_t *watch, ull n_watch, vx_ctl *ctl, ull it, double eps,
                                      int rel)
{
    if (*(volatile unsigned *)&ctl->done)
        return;
    int bad = 0;
    for (ull i = threadIdx.x; i < n_watch; i += blockDim.x) {
        const uint32_t s = watch[i];
        double l, h;
        if (x2) {
            const double2 v = x2[s];
            l = v.x, h = v.y;
        } else {
            l = lo[s], h = hi[s];
        }
        const double g = h - l;
        bad |= (rel && l > 0) ? !(g <= eps * l) : !(g <= eps);
    }
    if (!__syncthreads_or(bad) && threadIdx.x == 0)
        ctl->viol[it % 3] = 0;
}

int vx_sweeps(struct vx_sweeper *sw, ull max_it, ull *done, int *converged, float *ms, struct wx_error *err)
{
    int rc = WX_OK;
    const int pers = sw->pers, inpl = sw->inpl, iv = sw->iv;
    const unsigned blocks = sw->blocks;
    double **x2 = sw->x2, **dlo = sw->dlo, **dhi = sw->dhi;
    vx_ctl *ctl = sw->ctl, *hctl = sw->hctl;
    ull launched = 0, done_iter = 0;
    *converged = 0;
    *ms = 0;
    sw->flags = 0;
    CUDA_CHECK(cudaMemset(ctl, 0, sizeof(vx_ctl)));
    CUDA_CHECK(cudaEventRecord(sw->ev_start));
    {
        /* up to two batches in flight; slot i's copy of ctl lands in hctl[i];
         * persistent kinds: a batch is one launch of up to `batch` sweeps */
        ull batch = pers ? VI_GPU_PCHUNK_MIN : VI_GPU_BATCH_MIN, last_of[2] = {0, 0};
        const ull bmax = pers ? VI_GPU_PCHUNK_MAX : VI_GPU_BATCH_MAX;
        int pending = 0, head = 0, seen = 0; /* pending batches: slots head, head^1 */
        for (;;) {
            while (pending < 2 && launched < max_it) {
                const ull k = batch < max_it - launched ? batch : max_it - launched;
                if (pers) {
                    double *xa = x2[0] ? x2[0] : dlo[0], *xb = x2[0] ? x2[1] : dlo[1];
                    ull it0 = launched + 1, it1 = launched + k;
                    double eps = sw->eps;
                    int rel = sw->rel;
                    /* interval iteration's watch list: checked by the launch itself */
                    const uint32_t *watch = iv && x2[0] ? sw->watch : NULL;
                    ull n_watch = watch ? sw->n_watch : 0;
                    void *args[] = {&sw->sy, &xa, &xb, &ctl, &it0, &it1, &eps, &rel, &watch, &n_watch};
                    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)sw->pfn, dim3(blocks), dim3(VI_GPU_THREADS), args, 0, 0));
                    CUDA_CHECK_LAUNCH("vi_sweep_persist");
                    launched += k;
                }
                for (ull j = 0; !pers && j < k; j++) {
                    const ull it = ++launched;
                    const int r = inpl ? 0 : (int)((it - 1) & 1), w = inpl ? 0 : (int)(it & 1);
                    if (x2[0])
                        sw->fn<<<blocks, VI_GPU_THREADS>>>(sw->sy, x2[r], NULL, x2[w], NULL, ctl, it, sw->eps, sw->rel);
                    else
                        sw->fn<<<blocks, VI_GPU_THREADS>>>(sw->sy, dlo[r], iv ? dhi[r] : NULL, dlo[w], iv ? dhi[w] : NULL,
                                                       ctl, it, sw->eps, sw->rel);
                    CUDA_CHECK_LAUNCH("vi_sweep");
                    if (sw->watch && iv) {
                        vx_watch_check<<<1, VI_GPU_THREADS>>>(dlo[w], dhi[w], (const double2 *)x2[w], sw->watch,
                                                              sw->n_watch, ctl, it, sw->eps, sw->rel);
                        CUDA_CHECK_LAUNCH("vx_watch_check");
                    }
                }
                const int slot = (head + pending) & 1;
                CUDA_CHECK(cudaMemcpyAsync(&hctl[slot], ctl, sizeof(vx_ctl), cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaEventRecord(sw->ev[slot]));
                last_of[slot] = launched;
                pending++;
                if (batch < bmax)
                    batch *= 2;
            }
            if (!pending)
                break;
            CUDA_CHECK(cudaEventSynchronize(sw->ev[head]));
            seen = head;
            const vx_ctl *h = &hctl[head];
            const ull last = last_of[head];
            if (h->done) {
                *converged = 1;
                done_iter = h->done_iter;
            } else if (vx_halt(h->viol[last % 3])) {
                *converged = 1; /* the batch's last sweep converged; the next batch (if any) is no-ops */
                done_iter = last;
            }
            if (*converged) {
                sw->flags = h->viol[done_iter % 3];
                CUDA_CHECK(cudaEventElapsedTime(ms, sw->ev_start, sw->ev[head]));
                break;
            }
            head ^= 1;
            pending--;
        }
        if (!*converged) {
            CUDA_CHECK(cudaEventElapsedTime(ms, sw->ev_start, sw->ev[seen]));
            done_iter = launched;
            sw->flags = hctl[seen].viol[launched % 3];
        }
        CUDA_CHECK(cudaDeviceSynchronize());
    }
out:
    *done = done_iter;
    return rc;
}
