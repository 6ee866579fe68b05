/*
 * kernels.cuh -- the GPU MDP explorer's kernels, one step of a batch each
 * (explore_mdp_gpu.h, ALGORITHM): count, generate, compact, insert, flag,
 * number, target; and the table's seed and rehash.  Grid-stride loops over
 * 64-bit ranges.
 */
#ifndef WX_MDPX_KERNELS_CUH
#define WX_MDPX_KERNELS_CUH

#include "gen.cuh"
#include "store.cuh"

/* Error codes in the batch's error word (the first one stays). */
enum { MDPX_ERR_NONE = 0, MDPX_ERR_COUNT = 1, MDPX_ERR_TABLE = 2 };

#define MDPX_LOOP(i, n) \
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < (n); \
         i += (uint64_t)gridDim.x * blockDim.x)

__device__ __forceinline__ void mdpx_fail(uint32_t *error, uint32_t code)
{
    atomicCAS(error, MDPX_ERR_NONE, code);
}

/* Raw choices and outcomes of states [lb, lb + n). */
__global__ void mdpx_k_count(mdpx_img m, const uint32_t *vecs, uint64_t lb, uint64_t n, bool fresh,
                             uint64_t *rch, uint64_t *rout, uint32_t *error)
{
    MDPX_LOOP(i, n) {
        uint64_t s = lb + i;
        uint32_t c = 0, o = 0;
        if (!mdpx_count(m, vecs + s * m.words, fresh && s == 0, &c, &o))
            mdpx_fail(error, MDPX_ERR_COUNT), c = o = 0;
        rch[i] = c, rout[i] = o;
    }
}

/* Generates and canonicalises; dch/dout: the distinct choices and their
 * outcomes per state. */
__global__ void mdpx_k_generate(mdpx_img m, mdpx_raw r, const uint32_t *vecs, uint64_t lb, uint64_t n,
                                bool fresh, const uint64_t *rch_off, const uint64_t *rout_off,
                                uint64_t *dch, uint64_t *dout)
{
    MDPX_LOOP(i, n) {
        uint64_t s = lb + i, c0 = rch_off[i], o0 = rout_off[i];
        uint32_t nch = (uint32_t)(rch_off[i + 1] - c0), outs = 0;
        if (fresh && s == 0)
            mdpx_emit_initial(m, r, c0, &o0);
        else
            mdpx_generate(m, r, vecs + s * m.words, c0, o0);
        if (m.prio_n && !(fresh && s == 0))
            mdpx_prio(m, r, c0, nch);
        dch[i] = mdpx_canonical(r, m.words, c0, nch, &outs);
        dout[i] = outs;
    }
}

/* The batch's destination in the MDP being built. */
struct mdpx_out {
    uint64_t *state_start, *choice_start;
    uint32_t *label;
    double *probs;
    uint64_t *num, *den;
    uint64_t base_choices, base_entries;
    uint32_t *evec;           /* the batch's entry vectors (batch-local) */
};

/* Writes each state's distinct choices and entries in canonical order. */
__global__ void mdpx_k_compact(mdpx_raw r, uint32_t words, uint64_t lb, uint64_t n, const uint64_t *rch_off,
                               const uint64_t *dch_off, const uint64_t *dout_off, mdpx_out d)
{
    MDPX_LOOP(i, n) {
        uint64_t c = d.base_choices + dch_off[i], e = dout_off[i];
        uint64_t nd = dch_off[i + 1] - dch_off[i];
        d.state_start[lb + i] = c;
        for (uint64_t k = 0; k < nd; k++, c++) {
            uint64_t rc = rch_off[i] + r.perm[rch_off[i] + k];
            d.label[c] = r.lab[rc];
            d.choice_start[c] = d.base_entries + e;
            for (uint64_t o = r.start[rc]; o < r.start[rc] + r.n[rc]; o++, e++) {
                for (uint32_t x = 0; x < words; x++)
                    d.evec[e * words + x] = r.vec[o * words + x];
                d.probs[d.base_entries + e] = r.prob[o];
                if (r.exact)
                    d.num[d.base_entries + e] = r.num[o], d.den[d.base_entries + e] = r.den[o];
            }
        }
    }
}

/* Finds or inserts every entry's vector; a state not numbered yet keeps the
 * smallest entry index that refers to it. */
__global__ void mdpx_k_insert(mdpx_table t, const uint32_t *evec, uint64_t n, uint64_t *eslot,
                              uint32_t *error)
{
    MDPX_LOOP(e, n) {
        uint64_t s = mdpx_insert(t, evec + e * t.words, MDPX_UNNUMBERED);
        eslot[e] = s;
        if (s == MDPX_NO_SLOT) {
            mdpx_fail(error, MDPX_ERR_TABLE);
            continue;
        }
        if (*(volatile uint32_t *)&t.id[s] == MDPX_UNNUMBERED)
            atomicMin(&t.first[s], (unsigned long long)e);
    }
}

/* is_new[e]: entry e is the first reference of a state not numbered yet. */
__global__ void mdpx_k_flag(mdpx_table t, const uint64_t *eslot, uint64_t n, uint64_t *is_new)
{
    MDPX_LOOP(e, n) {
        uint64_t s = eslot[e];
        is_new[e] = s != MDPX_NO_SLOT && t.id[s] == MDPX_UNNUMBERED && t.first[s] == e;
    }
}

/* Numbers the new states in entry order from `count`; stores their vectors. */
__global__ void mdpx_k_number(mdpx_table t, const uint64_t *eslot, const uint64_t *is_new,
                              const uint64_t *new_off, const uint32_t *evec, uint64_t n, uint64_t count,
                              uint32_t *vecs)
{
    MDPX_LOOP(e, n) {
        if (!is_new[e])
            continue;
        uint64_t id = count + new_off[e];
        t.id[eslot[e]] = (uint32_t)id;
        for (uint32_t x = 0; x < t.words; x++)
            vecs[id * t.words + x] = evec[e * t.words + x];
    }
}

__global__ void mdpx_k_target(mdpx_table t, const uint64_t *eslot, uint64_t n, uint32_t *targets)
{
    MDPX_LOOP(e, n) {
        targets[e] = t.id[eslot[e]];
    }
}

/* Inserts states [from, to) with their ids (the initial state; a grown
 * table). */
__global__ void mdpx_k_rehash(mdpx_table t, const uint32_t *vecs, uint64_t from, uint64_t to,
                              uint32_t *error)
{
    MDPX_LOOP(i, to - from) {
        uint64_t id = from + i;
        if (mdpx_insert(t, vecs + id * t.words, (uint32_t)id) == MDPX_NO_SLOT)
            mdpx_fail(error, MDPX_ERR_TABLE);
    }
}

#endif
