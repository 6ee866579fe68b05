/*
 * peel.cu -- step 2 of the GPU SCC (kernels/scc/scc_int.cuh), the first
 * trim: Kahn peeling to the fixpoint in one persistent launch, with
 * small-SCC detection at every peeling level (tuning trim_detect, default
 * 20), so that a grid-DAG decomposes inside the trim.
 *
 * RACES (global memory only; the detection's shared-memory sets are each
 * thread's own, and a warp's member list is fenced by __syncwarp): counts
 * change only by atomics, and a vertex is claimed once (CAS on rep).
 */
#include "scc_dev.cuh"

/* Trimming to the fixpoint (Kahn-style peeling instead of topology
 * sweeps): cin[v] / cout[v] count v's live in- / out-neighbours other than
 * v in v's region, with multiplicity; a vertex whose count reaches 0 is
 * claimed (rep: SCC_UNSET -> itself, by CAS, so once) and queued; a claimed
 * vertex decrements the counts of its live same-region neighbours once per
 * edge.  The fixpoint is that of iterated trim-1 sweeps (a live vertex has a
 * live in- and out-neighbour), whatever the order.
 *
 * SMALL-SCC DETECTION (tuning trim_detect = K, first trim only): peeling
 * stalls at the first non-trivial SCC on every path (a 200^3 grid-DAG with
 * back edges: 580 of 8 M vertices peeled).  So each peeling level has two
 * phases.  P: the level's queue is released as above, and so are the
 * SCCs found by the last D; a decrement that leaves a count in
 * [1, TRIM_DETECT_COUNT] makes the vertex a candidate of this level (once,
 * by a stamp).  A thread whose queue item claims exactly one vertex may
 * release that one at once (tuning trim_hops on wide levels, chain_hops
 * on narrow ones): the fixpoint does not depend on the order, and a claim
 * is still released exactly once, by its claimer.  Grid barrier.  D: every candidate v computes its backward
 * closure B (the live vertices reaching v) and, when |B| <= K, its SCC
 * exactly: S = {x in B : v reaches x within B} (a path from v to a vertex
 * reaching v stays among the vertices reaching v); else the same with the
 * forward closure.  The live set is a union of SCCs, so S is v's SCC in
 * the whole graph.  rep does not change during D (no claims there), so two
 * candidates of one SCC compute the same S; in the next P one CAS on
 * rep[min S] elects the claimer, which writes rep = min S for all of S
 * before any member is released (its lanes' warp releases the members
 * together).  A member of a non-trivial S keeps an in- and out-count >= 1
 * from S's own edges until then, so no concurrent Kahn claim can take it
 * as a singleton.  Grid barrier.  The SCC S of a vertex becomes findable
 * when its last outside predecessor (successor) is finished, and that
 * release lowers a member's count: so detection at every level follows the
 * peeling front (a CPU model of the grid-DAG: 253 levels, against 1 591
 * levels and 70 passes when detection waited for the queue to run dry).
 * The first D tries TRIM_DETECT_MIN_TRIES closures only; detection stops
 * for good once fewer than 1 in TRIM_DETECT_YIELD closures found an SCC
 * (on a random graph: after one D phase of failed closures). */
#define TRIM_DETECT_COUNT 2    /* a decrement leaving a count in [1, this] makes a candidate,
                                  whose closure is tried in that direction */
#define TRIM_DETECT_YIELD 16   /* detection stops when SCCs found * this < closures tried */
#define TRIM_DETECT_MIN_TRIES 1024 /* ... once this many closures were tried (the first D
                                     tries no more) */
#define TRIM_DETECT_EDGES 1024 /* edges a closure may read before it gives up (hubs) */
#define CAND_CAP 4             /* candidates a thread buffers per item before single atomics */
/* Round trips issued together (-D to try others; more costs registers:
 * bench/history/scc.md). */
#ifndef RELEASE_GROUP
#define RELEASE_GROUP 8        /* edges of a released vertex whose updates are issued together */
#endif
#ifndef TRIM_VISIT
#define TRIM_VISIT 2           /* closure members a detection thread visits at once */
#endif
#ifndef TRIM_GROUP
#define TRIM_GROUP 8           /* their edges whose loads are issued together */
#endif
static_assert(TRIM_DETECT_MAX <= 32, "a closure's edge masks are 32-bit words");
struct scc_trim_body {
    const uint64_t *off, *roff;
    const uint32_t *tgt, *rsrc, *reg;
    uint32_t *rep, *cin, *cout, *q0, *q1;
    unsigned long long *cnt;
    unsigned long long mine; /* this thread's claims */
    uint32_t detect;         /* K (0: no detection) */
    uint32_t pass;           /* the detection pass candidates are collected for */
    uint32_t *cand0, *cand1; /* candidate lists, by pass parity */
    unsigned long long *ccnt; /* their lengths [2] */
    uint32_t *cstamp;        /* the last pass a vertex was made a candidate for */
    int one_region;          /* every live vertex in one region (no reg reads) */
    uint32_t wide_hops;      /* detection's P: chain steps per queue item on levels wider
                                than CHAIN_FRONTIER (tuning trim_hops) */

    /* v is claimed (rep already set, by this thread): lower its live
     * neighbours' counts, claim those reaching 0 (queued through buf), and
     * make those left in [1, detect) candidates.  Returns the claims. */
    __device__ uint32_t release(uint32_t v, uint32_t *buf, uint32_t &nb, uint32_t &last,
                                uint32_t *next_a, unsigned long long *ncnt_a, uint32_t *cbuf,
                                uint32_t &cn)
    {
        /* Latency, not bandwidth, bounds a peeling level (frontiers of a few
         * hundred vertices, each thread a chain of dependent round trips):
         * edges go in groups of RELEASE_GROUP (out- and in-edges in one
         * list) whose decrements are issued together, and
         * there is no "is w live" read before the decrement -- a finished
         * vertex's count no longer matters (its claim CAS fails), and a live
         * w is still lowered exactly once per edge from each claimed
         * in-neighbour.  One region (the first trim): no region reads. */
        const uint32_t r = one_region ? 0 : reg[v];
        const uint64_t ob = off[v], oe = off[v + 1], rb = roff[v], re = roff[v + 1];
        /* out-edges (lowering cin) then in-edges (lowering cout) as one
         * list, so that a vertex of a few edges each way is one group */
        const uint64_t dout = oe - ob, tot = dout + (re - rb);
        uint32_t found = 0;
        for (uint64_t s0 = 0; s0 < tot; s0 += RELEASE_GROUP) {
            uint32_t w[RELEASE_GROUP], old[RELEASE_GROUP], res[RELEASE_GROUP];
            uint32_t ok = 0, cand = 0;
#pragma unroll
            for (int k = 0; k < RELEASE_GROUP; k++) {
                const uint64_t sl = s0 + k;
                w[k] = sl < dout ? tgt[ob + sl] : sl < tot ? rsrc[rb + (sl - dout)] : v;
            }
            /* the decrements, and with them (when detecting) the
             * targets' liveness reads for the candidate test: a stale
             * "live" only makes a candidate that D skips (it re-reads
             * rep), so the read need not wait for the decrement */
            uint32_t live[RELEASE_GROUP];
#pragma unroll
            for (int k = 0; k < RELEASE_GROUP; k++) {
                if (w[k] != v && (one_region || reg[w[k]] == r))
                    ok |= 1u << k;
                old[k] = (ok >> k) & 1u ? atomicSub(&(s0 + k < dout ? cin : cout)[w[k]], 1u) : 0u;
                live[k] = detect && ((ok >> k) & 1u) ? scc_vload(&rep[w[k]]) : 0u;
            }
            /* then the candidates' stamps and the claims' CAS, their
             * round trips together */
#pragma unroll
            for (int k = 0; k < RELEASE_GROUP; k++)
                if (((ok >> k) & 1u) && detect && old[k] >= 2u && old[k] <= TRIM_DETECT_COUNT + 1 &&
                    live[k] == SCC_UNSET)
                    cand |= 1u << k;
#pragma unroll
            for (int k = 0; k < RELEASE_GROUP; k++)
                res[k] = (cand >> k) & 1u ? atomicExch(&cstamp[w[k]], pass)
                         : ((ok >> k) & 1u) && old[k] == 1u ? atomicCAS(&rep[w[k]], SCC_UNSET, w[k])
                                                            : 0u;
#pragma unroll
            for (int k = 0; k < RELEASE_GROUP; k++) {
                if (((cand >> k) & 1u) && res[k] != pass) {
                    if (cn < CAND_CAP)
                        cbuf[cn++] = w[k];
                    else
                        ((pass & 1) ? cand1 : cand0)[atomicAdd(&ccnt[pass & 1], 1ull)] = w[k];
                } else if (((ok >> k) & 1u) && old[k] == 1u && res[k] == SCC_UNSET) {
                    mine++;
                    found++;
                    last = w[k];
                    if (nb < PUSH_CAP)
                        buf[nb++] = w[k];
                    else
                        next_a[atomicAdd(ncnt_a, 1ull)] = w[k];
                }
            }
        }
        return found;
    }

    __device__ void level(uint32_t level, uint64_t ca, uint64_t, bool, uint64_t i0s,
                          uint64_t stride, uint32_t hops)
    {
        const uint32_t *cur = (level & 1) ? q1 : q0;
        uint32_t *next_a = (level & 1) ? q0 : q1, *next_b = next_a;
        unsigned long long *ncnt_a = cnt + (level + 1) % 3, *ncnt_b = ncnt_a;
        for (uint64_t i0 = i0s; i0 < ca; i0 += stride) {
            const uint64_t i = i0 + threadIdx.x;
            uint32_t buf[PUSH_CAP], cbuf[CAND_CAP];
            uint32_t nb = 0, cn = 0;
            if (i < ca) {
                uint32_t v = __ldcg(cur + i);
                for (uint32_t hop = 0;; hop++) {
                    uint32_t last = 0;
                    const uint32_t found = release(v, buf, nb, last, next_a, ncnt_a, cbuf, cn);
                    if (found != 1 || nb != 1 || hop >= hops)
                        break;
                    nb = 0;
                    v = last;
                }
            }
            scc_flush2(true, nb, buf, next_a, ncnt_a, next_b, ncnt_b);
            if (detect) { /* the same in every thread: warp-uniform */
                uint32_t *cl = (pass & 1) ? cand1 : cand0;
                scc_flush2(true, cn, cbuf, cl, ccnt + (pass & 1), cl, ccnt + (pass & 1));
            }
        }
    }

    /* v's SCC into scc[] (returns its size), when v's backward (dir 0) or
     * forward (dir 1) closure B among live vertices has at most K vertices;
     * 0 otherwise.  Reads rep, which no thread writes meanwhile.
     *
     * clo and scc are this thread's sets in shared memory, entry j at
     * [j * blockDim.x] (scans of local arrays miss L1).  clo[j] is B's j-th member
     * in discovery order; while B grows, scc[j] is a bit mask over B: bit
     * t set when the edge between clo[t] and clo[j] goes the closure's way
     * (dir 0: clo[t] -> clo[j]; dir 1: clo[j] -> clo[t]).  Every live
     * neighbour of a visited member is in B, so once every member is
     * visited the masks hold all of B's internal edges, and
     *   S = {x in B : v reaches x within B}   (dir 0; dir 1: x reaches v)
     * is the fixpoint of "x joins S when mask[x] meets S", the same
     * formula both ways.  This replaced a second pass over S's members'
     * edges in global memory.
     *
     * Latency, not bandwidth, bounds a D phase (each thread one closure, a
     * chain of dependent round trips; the level waits for the slowest):
     * so members are visited TRIM_VISIT at a time, their offsets loaded
     * together, and their edges in groups of TRIM_GROUP whose target loads
     * and then liveness loads are issued together; one scan of clo looks
     * up a whole group. */
    __device__ uint32_t small_scc(uint32_t v, int dir, uint32_t *clo, uint32_t *scc) const
    {
        const uint64_t *o = dir ? off : roff;
        const uint32_t *adj = dir ? tgt : rsrc;
        const uint32_t r = one_region ? 0 : reg[v], bd = blockDim.x;
        uint32_t k = 1, edges = 0;
        clo[0] = v;
        scc[0] = 0;
        for (uint32_t i = 0; i < k;) {
            /* the next TRIM_VISIT members (the BFS queue is clo itself) */
            uint64_t b[TRIM_VISIT];
            uint32_t cum[TRIM_VISIT]; /* edges of members i .. i + j, inclusive */
            const uint32_t nv = min(k - i, (uint32_t)TRIM_VISIT);
#pragma unroll
            for (uint32_t j = 0; j < TRIM_VISIT; j++) {
                const uint32_t u = clo[bd * (i + (j < nv ? j : 0))];
                b[j] = o[u];
                cum[j] = j < nv ? (uint32_t)min(o[u + 1] - b[j], (uint64_t)TRIM_DETECT_EDGES + 1) : 0;
            }
#pragma unroll
            for (uint32_t j = 1; j < TRIM_VISIT; j++)
                cum[j] += cum[j - 1];
            edges += cum[TRIM_VISIT - 1];
            if (edges > TRIM_DETECT_EDGES)
                return 0;
            const uint32_t tot = cum[TRIM_VISIT - 1];
            for (uint32_t s0 = 0; s0 < tot; s0 += TRIM_GROUP) {
                uint32_t w[TRIM_GROUP], at[TRIM_GROUP], live = 0;
#pragma unroll
                for (uint32_t j = 0; j < TRIM_GROUP; j++) {
                    const uint32_t sl = s0 + j;
                    uint32_t m = 0; /* the member slot sl belongs to */
#pragma unroll
                    for (uint32_t q = 0; q + 1 < TRIM_VISIT; q++)
                        m += sl >= cum[q];
                    w[j] = sl < tot ? adj[b[m] + (sl - (m ? cum[m - 1] : 0))] : SCC_UNSET;
                }
#pragma unroll
                for (uint32_t j = 0; j < TRIM_GROUP; j++)
                    if (w[j] != SCC_UNSET && __ldcg(&rep[w[j]]) == SCC_UNSET &&
                        (one_region || reg[w[j]] == r))
                        live |= 1u << j;
                /* positions in B (SCC_UNSET: not yet there) */
#pragma unroll
                for (uint32_t j = 0; j < TRIM_GROUP; j++)
                    at[j] = SCC_UNSET;
                for (uint32_t t = 0; live && t < k; t++) {
                    const uint32_t x = clo[bd * t];
#pragma unroll
                    for (uint32_t j = 0; j < TRIM_GROUP; j++)
                        at[j] = x == w[j] ? t : at[j];
                }
#pragma unroll
                for (uint32_t j = 0; j < TRIM_GROUP; j++) {
                    if (!((live >> j) & 1u))
                        continue;
                    /* a repeat of an earlier target of this group (parallel
                     * edges, or both members' neighbour) appended just now */
#pragma unroll
                    for (uint32_t q = 0; q < j; q++)
                        if (at[j] == SCC_UNSET && ((live >> q) & 1u) && w[q] == w[j])
                            at[j] = at[q];
                    if (at[j] == SCC_UNSET) {
                        if (k == detect)
                            return 0; /* more than K */
                        clo[bd * k] = w[j];
                        scc[bd * k] = 0;
                        at[j] = k++;
                        /* its offsets are read when it is visited, a few
                         * round trips from now: fetch them into L2 (no
                         * register waits for a prefetch) */
                        asm volatile("prefetch.L2 [%0];" ::"l"(o + w[j]));
                    }
                    const uint32_t sl = s0 + j;
                    uint32_t m = 0;
#pragma unroll
                    for (uint32_t q = 0; q + 1 < TRIM_VISIT; q++)
                        m += sl >= cum[q];
                    scc[bd * (i + m)] |= 1u << at[j];
                }
            }
            i += nv;
        }
        /* the closure is complete: S from the masks (Gauss-Seidel sweeps,
         * at most |S| + 1 of them), then S's members into scc[] (entry s
         * is written after mask s and all before it were last read) */
        uint32_t in_s = 1u;
        for (bool grew = true; grew;) {
            grew = false;
            for (uint32_t t = 1; t < k; t++)
                if (!((in_s >> t) & 1u) && (scc[bd * t] & in_s)) {
                    in_s |= 1u << t;
                    grew = true;
                }
        }
        uint32_t s = 0;
        for (uint32_t t = 0; t < k; t++)
            if ((in_s >> t) & 1u)
                scc[bd * s++] = clo[bd * t];
        return s;
    }
};

extern __shared__ uint32_t scc_dsm[]; /* the detection's sets (TRIM_DETECT_SMEM bytes) */

/* Pass 1 of a peeling: the counts (no claims yet, so that every count
 * matches the decrements its neighbours' later claims make). */
__device__ __forceinline__ static void peel_count(uint32_t n, int all_live, struct scc_trim_body &body)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        if (body.rep[v] != SCC_UNSET)
            continue;
        uint32_t ci = 0, co = 0;
        if (all_live) {
            uint32_t self = 0;
            for (uint64_t e = body.off[v]; e < body.off[v + 1]; e++)
                self += body.tgt[e] == v;
            co = (uint32_t)min(body.off[v + 1] - body.off[v] - self, (uint64_t)UINT32_MAX);
            ci = (uint32_t)min(body.roff[v + 1] - body.roff[v] - self, (uint64_t)UINT32_MAX);
        } else {
            const uint32_t r = body.reg[v];
            for (uint64_t e = body.off[v]; e < body.off[v + 1]; e++) {
                const uint32_t w = body.tgt[e];
                co += w != v && body.rep[w] == SCC_UNSET && body.reg[w] == r;
            }
            for (uint64_t e = body.roff[v]; co && e < body.roff[v + 1]; e++) {
                const uint32_t u = body.rsrc[e];
                ci += u != v && body.rep[u] == SCC_UNSET && body.reg[u] == r;
            }
        }
        body.cin[v] = ci;
        body.cout[v] = co;
    }
}

/* Pass 2: the first claims, queued for level0 (the first detection
 * candidates are the vertices the first stretch touches: a scan for small
 * counts here found nothing more on the grid-DAG model). */
__device__ __forceinline__ static void peel_first_claims(uint32_t n, uint32_t level0,
                                                         struct scc_trim_body &body)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint32_t *q = (level0 & 1) ? body.q1 : body.q0;
    unsigned long long *c = body.cnt + level0 % 3;
    for (uint64_t i0 = (uint64_t)blockIdx.x * blockDim.x; i0 < n; i0 += stride) {
        const uint64_t v = i0 + threadIdx.x;
        uint32_t buf[1];
        uint32_t nb = 0;
        if (v < n && body.rep[v] == SCC_UNSET && (body.cin[v] == 0 || body.cout[v] == 0)) {
            body.rep[v] = (uint32_t)v;
            buf[nb++] = (uint32_t)v;
            body.mine++;
        }
        scc_flush2(true, nb, buf, q, c, q, c);
    }
}

/* The per-thread state of the detecting peel (peel_detect_levels). */
struct peel_thread {
    uint32_t *clo, *scc; /* this thread's closure sets (scc_trim_body::small_scc) */
    uint32_t s;          /* this thread's SCC from the last D, in scc[] */
};

/* P, first part: this thread's SCC from the last D, when it has one, is
 * claimed (duplicates of one SCC computed the same S: one CAS on rep[min S]
 * elects), rep = min S written for all of S; dstat[1..2] counted.  t.s
 * stays the SCC's size when this thread claimed it, else becomes 0. */
__device__ __forceinline__ static void peel_claim_scc(struct scc_trim_body &body, peel_thread &t,
                                                      unsigned long long *dstat)
{
    if (t.s) {
        uint32_t r = t.scc[0];
        for (uint32_t j = 1; j < t.s; j++)
            r = min(r, t.scc[j * blockDim.x]);
        if (atomicCAS(&body.rep[r], SCC_UNSET, r) == SCC_UNSET) {
            for (uint32_t j = 0; j < t.s; j++)
                body.rep[t.scc[j * blockDim.x]] = r;
            body.mine += t.s;
        } else {
            t.s = 0;
        }
    }
    /* the counts, one atomic per warp: tens of thousands of same-address
     * atomics per level would queue at one L2 slice */
    const unsigned long long sccs = warp_sum64(t.s ? 1ull : 0ull), members = warp_sum64(t.s);
    if ((threadIdx.x & 31) == 0 && sccs) {
        atomicAdd(dstat + 1, sccs);
        atomicAdd(dstat + 2, members);
    }
}

/* P, second part: the claimed SCCs are released as Kahn claims are (rep is
 * written for all of S first: see the exactness note above), their members
 * spread over the warp's lanes: one thread releasing an SCC of 24 alone
 * held up the whole level.  The member list lives in the warp's closure
 * sets (dead after D): position p at clo of lane p % 32, entry p / 32.
 * One loop serves both the SCC members (32 per warp and round) and the
 * level's ca queue items (grid-strided from i0s, the first one vq0 read by
 * the caller; chains followed as in scc_trim_body::level), so that a
 * thread's two releases share one pair of warp flushes. */
__device__ __forceinline__ static void peel_release(struct scc_trim_body &body, peel_thread &t,
                                                    uint32_t level, uint64_t ca, uint64_t i0s,
                                                    uint32_t vq0, uint32_t chain_hops)
{
    const uint32_t *cur = (level & 1) ? body.q1 : body.q0;
    const unsigned lane = threadIdx.x & 31;
    uint32_t incl = t.s;
    for (int d = 1; d < 32; d <<= 1) {
        const uint32_t x = __shfl_up_sync(FULL_MASK, incl, d);
        if ((int)lane >= d)
            incl += x;
    }
    const uint32_t total = __shfl_sync(FULL_MASK, incl, 31);
    uint32_t *wl = scc_dsm + (threadIdx.x & ~31u); /* the warp's list */
    for (uint32_t j = 0, p = incl - t.s; j < t.s; j++, p++)
        wl[(p & 31) + (p >> 5) * blockDim.x] = t.scc[j * blockDim.x];
    __syncwarp();
    uint32_t *q = (level & 1) ? body.q0 : body.q1;
    unsigned long long *qc = body.cnt + (level + 1) % 3;
    uint32_t *cl = (level & 1) ? body.cand1 : body.cand0;
    unsigned long long *cc = body.ccnt + (level & 1);
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    const uint32_t hops = ca <= CHAIN_FRONTIER ? chain_hops : body.wide_hops;
    for (uint64_t p0 = 0, i0 = i0s; p0 < total || i0 < ca; p0 += 32, i0 += stride) {
        /* warp-uniform: total is the warp's, i0 the block's */
        const uint64_t p = p0 + lane, i = i0 + threadIdx.x;
        uint32_t buf[PUSH_CAP], cbuf[CAND_CAP], nb = 0, cn = 0, last = 0;
        if (p < total)
            body.release(wl[(p & 31) + (p >> 5) * blockDim.x], buf, nb, last, q, qc, cbuf, cn);
        if (i < ca) {
            uint32_t v = i0 == i0s ? vq0 : __ldcg(cur + i);
            for (uint32_t hop = 0;; hop++) {
                /* follow v's one new claim at once when it is the only
                 * vertex buffered */
                const uint32_t found = body.release(v, buf, nb, last, q, qc, cbuf, cn);
                if (found != 1 || nb != 1 || hop >= hops)
                    break;
                nb = 0;
                v = last;
            }
        }
        scc_flush2(true, nb, buf, q, qc, q, qc);
        scc_flush2(true, cn, cbuf, cl, cc, cl, cc);
    }
    __syncwarp(); /* the list is read before D overwrites the sets */
    t.s = 0;
}

/* D: the closures of the cp candidates P made at this level (rep is
 * frozen), at most lim of them (grid-strided beyond: the rest wait a
 * level, or are dropped after the sample); dstat[3..4] counted, then a
 * grid barrier.  Returns the SCCs this D found; *detecting becomes false
 * when too few closures pay. */
__device__ __forceinline__ static uint64_t peel_detect(struct scc_trim_body &body, peel_thread &t,
                                                       uint32_t level, uint64_t cp, uint64_t lim,
                                                       unsigned long long *dstat,
                                                       unsigned long long &finds_before,
                                                       bool &detecting)
{
    const uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    unsigned long long tried = 0;
    const uint32_t *cl = (level & 1) ? body.cand1 : body.cand0;
    if (tid < cp && tid < lim) {
        const uint32_t v = __ldcg(cl + tid);
        /* three independent loads, one round trip */
        const uint32_t rv = __ldcg(&body.rep[v]), ci = __ldcg(&body.cin[v]),
                       co = __ldcg(&body.cout[v]);
        if (rv == SCC_UNSET) {
            if (ci <= TRIM_DETECT_COUNT)
                t.s = body.small_scc(v, 0, t.clo, t.scc);
            if (!t.s && co <= TRIM_DETECT_COUNT)
                t.s = body.small_scc(v, 1, t.clo, t.scc);
            tried = 1;
        }
    }
    { /* one atomic per warp (see peel_claim_scc) */
        const unsigned long long tries = warp_sum64(tried), finds = warp_sum64(t.s ? 1ull : 0ull);
        if ((threadIdx.x & 31) == 0 && tries) {
            atomicAdd(dstat + 3, tries);
            atomicAdd(dstat + 4, finds);
        }
    }
    /* more candidates than threads: the rest wait a level (stamped for it,
     * so that a list never holds a vertex twice: at most n entries); beyond
     * a sample they are dropped (a candidate only ever speeds the peeling
     * up) */
    for (uint64_t i = lim + tid; lim == stride && i < cp; i += stride) {
        const uint32_t v = __ldcg(cl + i);
        uint32_t *nl = (level & 1) ? body.cand0 : body.cand1;
        if (atomicExch(&body.cstamp[v], level + 1) != level + 1)
            nl[atomicAdd(body.ccnt + ((level + 1) & 1), 1ull)] = v;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        dstat[0]++;
    cg::this_grid().sync();
    const unsigned long long tries = scc_ldcg64(dstat + 3), finds = scc_ldcg64(dstat + 4);
    const uint64_t found = finds - finds_before;
    finds_before = finds;
    /* too few closures pay: detection off for good (one more P claims the
     * SCCs found) */
    if (tries >= TRIM_DETECT_MIN_TRIES && finds * TRIM_DETECT_YIELD < tries)
        detecting = false;
    return found;
}

/* The peeling with detection from level on.  Per level: P (peel: claim the
 * SCCs the last D found, release them and the level's queue), barrier, D
 * (the closures of the candidates P made; rep is frozen), barrier.  Every
 * exit and stop test reads values finished before the barrier just passed
 * and not written again before the next one, so all threads decide alike.
 * Returns the number of the first level not run. */
template <bool BUDGET>
__device__ __forceinline__ static uint32_t
peel_detect_levels(struct scc_trim_body &body, uint32_t level, uint32_t chain_hops,
                   unsigned long long *lv, unsigned long long budget_ns,
                   unsigned long long *abort_f, unsigned long long *dstat)
{
    cg::grid_group grid = cg::this_grid();
    const bool timer = BUDGET && blockIdx.x == 0 && threadIdx.x == 0;
    const unsigned long long t_end = timer ? scc_now_ns() + budget_ns : 0;
    peel_thread t;
    t.clo = scc_dsm + threadIdx.x;
    t.scc = t.clo + TRIM_DETECT_MAX * blockDim.x;
    t.s = 0;
    unsigned long long finds_before = 0;
    /* where a level's time goes (thread 0 of block 0, device clock,
     * barriers included): P and D phases, ns; the loop's last P counts as
     * P */
    const bool clocked = blockIdx.x == 0 && threadIdx.x == 0;
    unsigned long long t_p = 0, t_d = 0, t_mark = clocked ? scc_now_ns() : 0;
    bool detecting = true;
    for (;;) {
        /* ---- P ---- */
        body.pass = level; /* candidates of this level: list level & 1, stamp level */
        if (!detecting)
            body.detect = 0;
        const uint64_t ca = scc_ldcg64(body.cnt + level % 3);
        /* this thread's first queue item, read now so that the round trip
         * overlaps the election below */
        const uint64_t i0s = (uint64_t)blockIdx.x * blockDim.x;
        const uint32_t *cur = (level & 1) ? body.q1 : body.q0;
        const uint32_t vq0 = i0s + threadIdx.x < ca ? __ldcg(cur + i0s + threadIdx.x) : 0;
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            body.cnt[(level + 2) % 3] = 0;
            body.ccnt[(level + 1) & 1] = 0; /* read in the last D, refilled from the next */
        }
        peel_claim_scc(body, t, dstat);
        peel_release(body, t, level, ca, i0s, vq0, chain_hops);
        if (timer && scc_now_ns() > t_end)
            *abort_f = 1;
        grid.sync();
        if (clocked) {
            const unsigned long long now = scc_now_ns();
            t_p += now - t_mark;
            t_mark = now;
        }
        if ((BUDGET && scc_ldcg64(abort_f)) || !detecting) {
            level++;
            break;
        }
        /* ---- D ---- */
        const uint64_t cp = scc_ldcg64(body.ccnt + (level & 1));
        const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
        /* the first closures are a sample: on graphs where they do not pay
         * (a random graph: ~10^5 candidates, ~0 SCCs) the first D stops
         * detection after TRIM_DETECT_MIN_TRIES tries */
        const uint64_t lim = scc_ldcg64(dstat + 3) < TRIM_DETECT_MIN_TRIES
                                 ? min(stride, (uint64_t)TRIM_DETECT_MIN_TRIES) : stride;
        const uint64_t found =
            cp ? peel_detect(body, t, level, cp, lim, dstat, finds_before, detecting) : 0;
        const uint64_t next = scc_ldcg64(body.cnt + (level + 1) % 3);
        level++;
        if (clocked) {
            const unsigned long long now = scc_now_ns();
            t_d += now - t_mark;
            t_mark = now;
        }
        if (next == 0 && found == 0 && (cp <= lim || lim < stride))
            break;
    }
    if (clocked) {
        dstat[5] += t_p;
        dstat[6] += t_d;
    }
    if (!detecting && !(BUDGET && scc_ldcg64(abort_f))) {
        /* finish the peeling without detection */
        body.detect = 0;
        level = scc_run_levels<BUDGET>(body, level, body.cnt, NULL, 0, 0, chain_hops, lv, budget_ns,
                                       abort_f);
    }
    return level;
}

/* all_live: every vertex is live and in one region, so the counts are
 * degrees less self-loops (no neighbour reads).  *removed += claims.
 * cnt: the queue's three counters, all 0 on entry.  DETECT: small-SCC
 * detection between peeling stretches (see scc_trim_body); dstat[0..2]
 * += passes, SCCs found, their vertices; dstat[3..4] += closures tried,
 * SCCs they found; dstat[5..6] += device time of the P and D phases, ns;
 * body.ccnt[0..1] and dstat[3..4] 0 on entry, body.cstamp all 0. */
template <bool BUDGET, bool DETECT>
__global__ void __launch_bounds__(DETECT ? TRIM_DETECT_BLOCK : SCC_COOP_BLOCK, 1)
scc_trim_coop(uint32_t n, uint32_t level0, int all_live, uint32_t chain_hops,
              struct scc_trim_body body, unsigned long long *removed, unsigned long long *lv,
              unsigned long long budget_ns, unsigned long long *abort_f, unsigned long long *dstat)
{
    cg::grid_group grid = cg::this_grid();
    body.mine = 0;
    peel_count(n, all_live, body);
    grid.sync();
    peel_first_claims(n, level0, body);
    grid.sync();
    uint32_t level = level0;
    if (!DETECT)
        level = scc_run_levels<BUDGET>(body, level, body.cnt, NULL, 0, 0, chain_hops, lv, budget_ns,
                                       abort_f);
    else
        level = peel_detect_levels<BUDGET>(body, level, chain_hops, lv, budget_ns, abort_f, dstat);
    unsigned long long mine = warp_sum64(body.mine);
    if ((threadIdx.x & 31) == 0 && mine)
        atomicAdd(removed, mine);
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *lv = level;
}

/* ---- host side ---- */

/* Adds the detection's counters (dstat, see scc_trim_coop) to st. */
static int peel_detect_stats(struct scc_work *w, struct scc_gpu_stats *st, struct wx_error *err)
{
    int rc = WX_OK;
    unsigned long long dstat[7];
    CUDA_CHECK(cudaMemcpy(dstat, w->cnt + CNT_DSTAT, sizeof dstat, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemset(w->stamp_b, 0, (uint64_t)w->n * sizeof *w->stamp_b));
    st->detect_passes += (uint32_t)dstat[0];
    st->detect_sccs += dstat[1];
    st->detect_vertices += dstat[2];
    st->detect_tries += dstat[3];
    st->detect_p_ms += 1e-6 * (double)dstat[5];
    st->detect_d_ms += 1e-6 * (double)dstat[6];
out:
    return rc;
}

/* The first trim (every vertex live, one region) as one persistent launch;
 * *live decreases. */
int scc_peel(struct scc_work *w, uint64_t *live, struct scc_gpu_stats *st,
             const struct scc_gpu_tuning *tu, struct wx_error *err)
{
    int rc = WX_OK;
    unsigned long long removed = 0;
    uint32_t n = w->n, level = w->level, hops = w->chain_hops, levels0;
    int all_live = w->all_live;
    /* detection: candidate lists in qb0 / qb1, stamps in stamp_b (reset
     * below: the label engines need them 0) */
    struct scc_trim_body body = {w->off, w->roff, w->tgt, w->rsrc, w->reg, w->rep, w->col,
                                 w->reach, w->qa0, w->qa1, w->cnt + CNT_Q, 0,
                                 w->trim_detect, 0, w->qb0, w->qb1, w->cnt + CNT_CAND,
                                 w->stamp_b, all_live, tu->trim_hops};
    unsigned long long *rem = w->cnt + CNT_TRIM, *lv = w->cnt + CNT_LEVEL;
    unsigned long long *ab = w->cnt + CNT_ABORT, bud = 0;
    unsigned long long *ds = w->cnt + CNT_DSTAT;
    void *args[] = {&n, &level, &all_live, &hops, &body, &rem, &lv, &bud, &ab, &ds};
    CUDA_CHECK(cudaMemset(w->cnt + CNT_TRIM, 0, sizeof removed));
    CUDA_CHECK(cudaMemset(w->cnt + CNT_Q, 0, 3 * sizeof removed));
    CUDA_CHECK(cudaMemset(w->cnt + CNT_CAND, 0, 9 * sizeof removed)); /* CNT_CAND, CNT_DSTAT */
    bud = scc_budget_left(w);
    if (w->aborted)
        return WX_OK;
    if (w->trim_detect)
        rc = bud ? scc_coop_launch_smem(w, COOP_TRIM_DETECT + 1,
                                        (const void *)scc_trim_coop<true, true>, args,
                                        TRIM_DETECT_SMEM, TRIM_DETECT_BLOCK, err)
                 : scc_coop_launch_smem(w, COOP_TRIM_DETECT,
                                        (const void *)scc_trim_coop<false, true>, args,
                                        TRIM_DETECT_SMEM, TRIM_DETECT_BLOCK, err);
    else
        rc = bud ? scc_coop_launch(w, COOP_TRIM + 1, (const void *)scc_trim_coop<true, false>, args,
                                   err)
                 : scc_coop_launch(w, COOP_TRIM, (const void *)scc_trim_coop<false, false>, args,
                                   err);
    if (rc == WX_OK && w->trim_detect)
        rc = peel_detect_stats(w, st, err);
    if (rc != WX_OK)
        goto out;
    CUDA_CHECK(cudaMemcpy(&removed, w->cnt + CNT_TRIM, sizeof removed, cudaMemcpyDeviceToHost));
    levels0 = w->levels;
    rc = scc_coop_levels(w, err);
    if (rc != WX_OK)
        goto out;
    st->trim_sweeps += w->levels - levels0;
    w->levels = levels0; /* trim levels are counted as sweeps, not push levels */
    st->trimmed += removed;
    *live -= removed;
    w->all_live = 0;
out:
    return rc;
}
