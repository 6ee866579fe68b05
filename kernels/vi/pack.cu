/*
 * pack.cu -- the host side of the sweeps' system layouts: the tiles (runs
 * of consecutive states a warp sweeps together) and the PACKED system
 * (sweep_kernels.cuh's packed sweeps: 1-byte dictionary indices instead of
 * 8-byte probabilities and constants, targets and indices in one 32-bit
 * word, byte offsets inside a tile).  The packed arrays are built on the
 * host with all cores and only they go up: the raw system is never
 * uploaded for a packed solve.
 */
#include <stdlib.h>
#include <string.h>

#include "vi_int.cuh"
extern "C" {
#include "../../util/pool.h"
}

/* Greedy tiles (vi_int.cuh). */
ull vx_make_tiles_lim(const struct vi_system *sys, ull a, ull n, uint32_t *tiles, ull lim, ull clim)
{
    const uint64_t *ss = sys->state_start, *cs = sys->choice_start;
    ull k = 0, s = a;
    while (s < n) {
        tiles[k++] = (uint32_t)s;
        ull acc = cs[ss[s + 1]] - cs[ss[s]], accc = ss[s + 1] - ss[s];
        ull cnt = 1;
        s++;
        if (acc > lim || accc > clim)
            continue;
        while (s < n && cnt < VX_TILE_STATES) {
            const ull e = cs[ss[s + 1]] - cs[ss[s]], c = ss[s + 1] - ss[s];
            if (acc + e > lim || accc + c > clim)
                break;
            acc += e, accc += c, cnt++, s++;
        }
    }
    tiles[k] = (uint32_t)n;
    return k;
}

ull vx_make_tiles(const struct vi_system *sys, ull a, ull n, uint32_t *tiles)
{
    return vx_make_tiles_lim(sys, a, n, tiles, VI_GPU_TILE_ENTRIES, VI_GPU_TILE_ENTRIES);
}

/* The distinct bit patterns of v[0..n) when there are at most VX_DICT of
 * them: sorted into keys, *nk set, returns 1; else 0.  A small open-
 * addressing set; consecutive equal values (the common case: a model's few
 * probabilities repeat) cost one compare. */
static int vx_dict(const double *v, ull n, unsigned long long *keys, uint32_t *nk)
{
    enum { SLOTS = 4 * VX_DICT };
    unsigned long long tab[SLOTS];
    unsigned char used[SLOTS];
    memset(used, 0, sizeof used);
    uint32_t cnt = 0;
    unsigned long long last = 0;
    int have_last = 0;
    for (ull i = 0; i < n; i++) {
        unsigned long long k;
        memcpy(&k, &v[i], sizeof k);
        if (have_last && k == last)
            continue;
        last = k, have_last = 1;
        unsigned h = (unsigned)((k * 0x9e3779b97f4a7c15ull) >> 54) % SLOTS;
        while (used[h] && tab[h] != k)
            h = (h + 1) % SLOTS;
        if (used[h])
            continue;
        if (cnt == VX_DICT)
            return 0;
        used[h] = 1, tab[h] = k, keys[cnt++] = k;
    }
    /* insertion sort: <= 256 keys */
    for (uint32_t i = 1; i < cnt; i++) {
        const unsigned long long k = keys[i];
        uint32_t j = i;
        while (j > 0 && keys[j - 1] > k)
            keys[j] = keys[j - 1], j--;
        keys[j] = k;
    }
    *nk = cnt;
    return 1;
}

/* Target bits of a packed entry word with nk distinct probabilities (the
 * rest holds the probability's index): n must be <= 2^this. */
static uint32_t vx_pack_shift(uint32_t nk)
{
    uint32_t bits = 1;
    while ((1u << bits) < nk)
        bits++;
    return 32 - bits;
}

/* ---- packing on the host ----
 * The packed sweep's arrays are built on the host with all cores and only
 * they go up (5.4 B per entry for consensus N=6 K=2 instead of the 26 B of
 * the raw system, which the packed kernel never reads): phase 1 checks the
 * shape (every state has 1..VX_PK_TILE choices and at most VX_PK_TILE
 * entries) and collects the distinct probabilities and constants of a
 * range of states per thread; phase 2 (after the dictionaries are merged
 * and the tiles made) writes the packed words of a range of tiles per
 * thread and checks the targets.  Deterministic: the words do not depend on
 * the thread count. */
struct vx_hpack {
    const struct vi_system *sys;
    unsigned nt;
    /* phase 1, per thread: 0 packable range, 1 a state without a choice, 2 a
     * state too big or more than VX_DICT distinct numbers, 3 out of memory;
     * the range's tiles (first states, ntl of them: the greedy tiles of
     * vx_make_tiles_lim over the thread's range alone -- where the ranges
     * meet a tile may be shorter than the serial greedy one's; tiles only
     * divide the work, values do not depend on them) */
    int p1[64];
    unsigned long long pk[64][VX_DICT], bk[64][VX_DICT];
    uint32_t npk[64], nbk[64];
    uint32_t *tl[64];
    ull ntl[64];
    /* phase 2: thread t writes the records of its tiles from trec + off[t] */
    uint4 *trec;
    ull off[64];
    const unsigned long long *keys, *bkeys;
    uint32_t nkeys, nbkeys, shift;
    uint32_t *pent;
    uint16_t *pcho;
    uint8_t *psst;
    int badt[64]; /* a target >= n in this thread's range */
    /* the merged dictionaries (vx_pack_plan) */
    unsigned long long mkeys[VX_DICT], mbkeys[VX_DICT];
    uint32_t nmk, nmbk;
};

struct vx_job {
    struct vx_hpack *h;
    void (*fn)(struct vx_hpack *, unsigned);
};

static void vx_job_chunk(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    (void)hi, (void)chunk;
    struct vx_job *j = (struct vx_job *)arg;
    j->fn(j->h, (unsigned)lo);
}

/* fn(h, t) for every t < h->nt, on the host's thread pool (util/pool.h):
 * each t is a chunk of its own, so the work per t does not depend on how
 * many threads the pool has. */
static void vx_par(struct vx_hpack *h, void (*fn)(struct vx_hpack *, unsigned))
{
    struct vx_job job = {h, fn};
    struct wx_pool *pool = wx_pool_new((int)h->nt);
    wx_pool_for(pool, h->nt, (int)h->nt, vx_job_chunk, &job);
    wx_pool_free(pool);
}

static void vx_pack_phase1(struct vx_hpack *h, unsigned t)
{
    const struct vi_system *sys = h->sys;
    const uint64_t *ss = sys->state_start, *cs = sys->choice_start;
    const ull n = sys->n_states, a = n * t / h->nt, z = n * (t + 1) / h->nt;
    h->p1[t] = 0;
    for (ull s = a; s < z; s++) {
        if (ss[s + 1] <= ss[s]) {
            h->p1[t] = 1;
            return;
        }
        if (ss[s + 1] - ss[s] > VX_PK_TILE || cs[ss[s + 1]] - cs[ss[s]] > VX_PK_TILE)
            h->p1[t] = 2;
    }
    if (h->p1[t])
        return;
    if (!vx_dict(sys->probs + cs[ss[a]], cs[ss[z]] - cs[ss[a]], h->pk[t], &h->npk[t]) ||
        !vx_dict(sys->b + ss[a], ss[z] - ss[a], h->bk[t], &h->nbk[t])) {
        h->p1[t] = 2;
        return;
    }
    h->tl[t] = (uint32_t *)malloc((z - a + 1) * sizeof(uint32_t));
    if (!h->tl[t]) {
        h->p1[t] = 3;
        return;
    }
    h->ntl[t] = vx_make_tiles_lim(sys, a, z, h->tl[t], VX_PK_TILE, VX_PK_TILE);
}

/* Index of key among keys[0..nk) (sorted, present by construction). */
static uint32_t vx_hfind(const unsigned long long *keys, uint32_t nk, const double *v)
{
    unsigned long long k;
    memcpy(&k, v, sizeof k);
    uint32_t lo = 0, hi = nk;
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (keys[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void vx_pack_phase2(struct vx_hpack *h, unsigned t)
{
    const struct vi_system *sys = h->sys;
    const uint64_t *ss = sys->state_start, *cs = sys->choice_start;
    const ull n = sys->n_states, z = n * (t + 1) / h->nt, nk = h->ntl[t];
    const uint32_t *tg = sys->targets, *tl = h->tl[t];
    const double *pr = sys->probs, *b = sys->b;
    int bad = 0;
    /* the last probability's index: consecutive entries mostly repeat one */
    unsigned long long lastk = 0;
    uint32_t lasti = 0;
    int have = 0;
    for (ull k = 0; k < nk; k++) {
        const uint32_t sa = tl[k], sb = k + 1 < nk ? tl[k + 1] : (uint32_t)z;
        const uint4 ta = make_uint4(sa, (uint32_t)ss[sa], (uint32_t)cs[ss[sa]], 0),
                    tb = make_uint4(sb, (uint32_t)ss[sb], (uint32_t)cs[ss[sb]], 0);
        h->trec[h->off[t] + k] = ta;
        for (uint32_t s = ta.x; s < tb.x; s++)
            h->psst[s] = (uint8_t)(ss[s + 1] - ta.y);
        for (uint32_t c = ta.y; c < tb.y; c++)
            h->pcho[c] = (uint16_t)((cs[c + 1] - ta.z) | vx_hfind(h->bkeys, h->nbkeys, &b[c]) << 8);
        for (uint32_t e = ta.z; e < tb.z; e++) {
            unsigned long long pk;
            memcpy(&pk, &pr[e], sizeof pk);
            if (!have || pk != lastk)
                lastk = pk, lasti = vx_hfind(h->keys, h->nkeys, &pr[e]), have = 1;
            bad |= tg[e] >= n;
            h->pent[e] = tg[e] | lasti << h->shift;
        }
    }
    h->badt[t] = bad;
}

static int vx_cmp_key(const void *a, const void *b)
{
    const unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

/* Merges the threads' dictionaries (sorted, distinct) into keys; 0 when
 * more than VX_DICT. */
static int vx_merge_dicts(const unsigned long long (*k)[VX_DICT], const uint32_t *nk, unsigned nt,
                          unsigned long long *keys, uint32_t *nkeys)
{
    unsigned long long *all = (unsigned long long *)malloc((size_t)nt * VX_DICT * sizeof *all);
    if (!all)
        return -1;
    size_t m = 0;
    for (unsigned t = 0; t < nt; t++)
        for (uint32_t i = 0; i < nk[t]; i++)
            all[m++] = k[t][i];
    qsort(all, m, sizeof *all, vx_cmp_key);
    uint32_t c = 0;
    int ok = 1;
    for (size_t i = 0; i < m && ok; i++) {
        if (i && all[i] == all[i - 1])
            continue;
        if (c == VX_DICT)
            ok = 0;
        else
            keys[c++] = all[i];
    }
    free(all);
    *nkeys = c;
    return ok;
}

/* Threads for host packing: all cores up to 64, one per 256 Ki entries. */
static unsigned vx_pack_threads(const struct vi_system *sys)
{
    long c = wx_pool_threads(0);
    ull want = sys->n_entries / (256u << 10) + 1;
    if (c > 64)
        c = 64;
    if (want > (ull)c)
        want = (ull)c;
    if (want > sys->n_states)
        want = sys->n_states ? sys->n_states : 1;
    return (unsigned)want;
}

/* Host packing of sys, phase 1 (vi_int.cuh). */
int vx_pack_plan(struct vx_hpack **hpp, const struct vi_system *sys, int *packable, struct wx_error *err)
{
    *packable = 0;
    struct vx_hpack *hp = *hpp = (struct vx_hpack *)calloc(1, sizeof *hp);
    if (!hp)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration packing)");
    hp->sys = sys;
    hp->nt = vx_pack_threads(sys);
    vx_par(hp, vx_pack_phase1);
    int big = 0;
    for (unsigned t = 0; t < hp->nt; t++) {
        if (hp->p1[t] == 1)
            return wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: a state without a choice");
        if (hp->p1[t] == 3)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration tiles)");
        big |= hp->p1[t] == 2;
    }
    if (big)
        return WX_OK;
    const int a = vx_merge_dicts(hp->pk, hp->npk, hp->nt, hp->mkeys, &hp->nmk);
    const int b = a > 0 ? vx_merge_dicts(hp->bk, hp->nbk, hp->nt, hp->mbkeys, &hp->nmbk) : a;
    if (a < 0 || b < 0)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration dictionaries)");
    *packable = a && b && sys->n_states <= (1ull << vx_pack_shift(hp->nmk));
    return WX_OK;
}

/* Phase 2 and the uploads (vi_int.cuh): tiles, then the packed words
 * (host, all cores), then the tile records, packed arrays and dictionaries
 * go up. */
int vx_pack_upload(struct vx_hpack *hp, const struct vi_system *sys, vx_sys *sy, struct vx_mem *mem,
                   struct wx_error *err)
{
    int rc = WX_OK;
    const ull n = sys->n_states, nc = sys->n_choices, ne = sys->n_entries;
    sy->ntiles = 0;
    for (unsigned t = 0; t < hp->nt; t++)
        hp->off[t] = sy->ntiles, sy->ntiles += hp->ntl[t];
    uint4 *hr = (uint4 *)malloc((sy->ntiles + 1) * sizeof(uint4));
    uint32_t *pe = hr ? (uint32_t *)malloc((ne ? ne : 1) * sizeof(uint32_t)) : NULL;
    uint16_t *pc = pe ? (uint16_t *)malloc((nc ? nc : 1) * sizeof(uint16_t)) : NULL;
    uint8_t *ps = pc ? (uint8_t *)malloc(n) : NULL;
    if (!ps) {
        free(hr), free(pe), free(pc);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (value-iteration packing)");
    }
    hr[sy->ntiles] = make_uint4((uint32_t)n, (uint32_t)nc, (uint32_t)ne, 0);
    sy->pshift = vx_pack_shift(hp->nmk);
    hp->trec = hr;
    hp->keys = hp->mkeys, hp->nkeys = hp->nmk, hp->bkeys = hp->mbkeys, hp->nbkeys = hp->nmbk;
    hp->shift = sy->pshift;
    hp->pent = pe, hp->pcho = pc, hp->psst = ps;
    vx_par(hp, vx_pack_phase2);
    int badt = 0;
    for (unsigned t = 0; t < hp->nt; t++)
        badt |= hp->badt[t];
    double pv[VX_DICT], bv[VX_DICT];
    memset(pv, 0, sizeof pv), memset(bv, 0, sizeof bv);
    memcpy(pv, hp->mkeys, hp->nmk * sizeof(double));
    memcpy(bv, hp->mbkeys, hp->nmbk * sizeof(double));
    void *p_ = NULL;
    if (badt)
        rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "value iteration: an entry goes to a state >= %llu", n);
    if (!rc && !(rc = vx_upload(mem, &p_, hr, (sy->ntiles + 1) * sizeof(uint4), "tile records", err)))
        sy->trec = (const uint4 *)p_;
    if (!rc && !(rc = vx_upload(mem, &p_, pe, (ne ? ne : 1) * sizeof(uint32_t), "packed entries", err)))
        sy->pent = (const uint32_t *)p_;
    if (!rc && !(rc = vx_upload(mem, &p_, pc, (nc ? nc : 1) * sizeof(uint16_t), "packed choices", err)))
        sy->pcho = (const uint16_t *)p_;
    if (!rc && !(rc = vx_upload(mem, &p_, ps, n, "packed states", err)))
        sy->psst = (const uint8_t *)p_;
    free(hr), free(pe), free(pc), free(ps);
    hp->trec = NULL, hp->pent = NULL, hp->pcho = NULL, hp->psst = NULL;
    if (!rc && !(rc = vx_upload(mem, &p_, pv, sizeof pv, "probability dictionary", err)))
        sy->pdict = (const double *)p_;
    if (!rc && !(rc = vx_upload(mem, &p_, bv, sizeof bv, "constant dictionary", err)))
        sy->bdict = (const double *)p_;
    return rc;
}

void vx_pack_free(struct vx_hpack *hp)
{
    if (hp)
        for (unsigned t = 0; t < hp->nt; t++)
            free(hp->tl[t]);
    free(hp);
}
