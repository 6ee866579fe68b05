/*
 * mec.h -- maximal end components of an MDP (CPU).
 *
 * DEFINITION (PRISM's; docs/formats.md).  An end component
 * is a non-empty set S of states with a non-empty set of choices per state
 * such that every chosen choice has all its successors in S and the graph
 * of S under the chosen choices is strongly connected.  A MEC is an end
 * component whose state set is maximal.  So a single state is a MEC exactly
 * when it is in no larger one and one of its choices is a pure self-loop;
 * states in no MEC exist (transient states).  MECs are disjoint, and the
 * choices of a MEC M are exactly the choices of M's states whose successors
 * all lie in M.
 *
 * ALGORITHM (mec_cpu): the standard refinement.  Keep a set of live states
 * and live choices (initially all).  Repeat: compute the SCCs of the graph
 * of live states under live choices (analysis/scc.h, on a CSR built per
 * round); kill every live choice with a successor that is dead or in
 * another SCC; kill every state left without a live choice, which kills
 * the live choices leading into it, and so on (a worklist over the
 * predecessor index, so this "attractor" step is linear); until a round
 * kills no choice.  The SCCs of the last round's live states are the MECs.
 * Time O(rounds * (n + m)); rounds is usually small (reported).
 *
 * NUMBERING.  MECs are numbered 0 .. n_mecs-1 in order of their smallest
 * state (as scc.h's canonical numbering), so results are deterministic and
 * comparable across algorithms; states in no MEC have MEC_NONE.
 *
 * MEMORY: the result takes 4 bytes per state and 1 per choice; work space
 * about 33 bytes per state, 5 per choice and 12 per entry (predecessor
 * index and the per-round CSR), plus scc_cpu's.
 *
 * THREAD SAFETY: reentrant; the MDP is only read.
 */
#ifndef WX_MEC_H
#define WX_MEC_H

#include <stdint.h>

#include "../graph/mdp.h"
#include "../util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MEC_NONE UINT32_MAX

struct mec_result {
    uint64_t n_states, n_choices; /* the MDP's                                 */
    uint32_t *mec;          /* n_states MEC ids (canonical) or MEC_NONE; owned,
                               NULL when n_states == 0                        */
    uint8_t *choice_in;     /* n_choices: 1 when the choice belongs to its
                               state's MEC; owned, NULL when n_choices == 0   */
    uint64_t n_mecs;        /* number of MECs                                 */
    uint64_t states_in_mecs;
    uint64_t choices_in_mecs;
    uint64_t largest;       /* states in the largest MEC (0 if none)          */
    uint64_t n_singletons;  /* MECs of one state                              */
    uint64_t rounds;        /* SCC decompositions the refinement ran          */
    /* mec_gpu's phases, seconds of host clock (0 from mec_cpu): device
     * allocation and upload; the first attractor (states without a choice
     * that stays); the SCC rounds; download, renumbering and freeing. */
    double setup_seconds, attractor_seconds, refine_seconds, teardown_seconds;
};

/* Computes the MECs of m into *out (overwritten, not freed first; allocates
 * out's arrays, released by mec_result_free).  Returns WX_OK, or WX_ELIMIT
 * when out of memory (then *out is empty). */
int mec_cpu(const struct mdp *m, struct mec_result *out, struct wx_error *err);

/* Frees the arrays and zeroes *out; safe on a zeroed or freed result. */
void mec_result_free(struct mec_result *out);

/* The GPU twin (kernels/mec.cu): the same refinement with the MDP on the
 * device -- per round the live graph is built there (count, CUB scan,
 * fill), decomposed by the GPU SCC (scc_gpu_device), choices leaving their
 * SCC are killed and the attractor of the dead states is computed by
 * sweeps; same result, numbering and round count as mec_cpu (a round whose
 * live graph is empty -- no MEC left -- is counted without running the SCC
 * decomposition, as there is nothing to decompose).  Device memory
 * about 8 bytes per state, 9 per choice and 8 per entry plus the GPU SCC's.
 * Returns WX_OK; WX_EINPUT when built without CUDA or no usable device;
 * WX_ELIMIT when memory is short; WX_ESYSTEM on a CUDA failure.  On error
 * *out holds no arrays. */
int mec_gpu(const struct mdp *m, struct mec_result *out, struct wx_error *err);

#ifdef __cplusplus
}
#endif

#endif
