/*
 * mdp_dev.h -- an MDP in GPU memory in graph/mdp.h's CSR layout: what the
 * GPU MDP explorer (explore_mdp_gpu.h) hands to the GPU graph cores of
 * value iteration (kernels/vi/precompute.cu) without a host round trip.
 * The MDP twin of graph/dgraph.h, with its conventions.
 *
 * INVARIANTS.  Those of struct mdp (graph/mdp.h) on device arrays:
 * d_state_start has n_states + 1 entries, d_choice_start n_choices + 1,
 * d_state_start[n_states] == n_choices, d_choice_start[n_choices] ==
 * n_entries; every target < n_states < 2^32.  d_choice_label holds each
 * choice's result-label id (explore_mdp.h's choice_label), or is NULL.
 *
 * MEMORY.  All arrays are device pointers (NULL where their length is 0):
 * 8 (n_states + 1) + 8 (n_choices + 1) + 4 n_choices + 12 n_entries bytes.
 * owned != 0: mdp_dev_free releases them; owned == 0: a view of arrays
 * someone else frees.  A zeroed struct mdp_dev holds nothing and may be
 * freed.
 *
 * The functions use the current CUDA device and the default stream; a
 * handle is used by one thread at a time.  In a build without CUDA
 * (kernels/nogpu_explore_mdp.c, kernels/nogpu_valiter.c) every call but
 * mdp_dev_free is a WX_EINPUT error.  C header.
 */
#ifndef WX_MDP_DEV_H
#define WX_MDP_DEV_H

#include <stdint.h>

#include "../analysis/sysbuild.h"
#include "../analysis/valiter.h"
#include "../graph/mdp.h"
#include "../util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mdp_dev {
    uint64_t n_states, n_choices, n_entries;
    uint64_t *d_state_start;   /* device, n_states + 1                     */
    uint64_t *d_choice_start;  /* device, n_choices + 1                    */
    uint32_t *d_targets;       /* device, n_entries                        */
    double *d_probs;           /* device, n_entries                        */
    uint32_t *d_choice_label;  /* device, n_choices, or NULL               */
    int owned;                 /* 1: mdp_dev_free releases the arrays      */
};

/* Copies the device MDP into *m (allocates; mdp_free) and, when labels is
 * not NULL, its choice labels into a new array *labels (WX_EINPUT when d
 * has none).  WX_ELIMIT when host memory is short; *m zeroed on failure. */
int mdp_dev_download(const struct mdp_dev *d, struct mdp *m, uint32_t **labels,
                     struct wx_error *err);

/* Completes a skeleton *m of d (the counts and state_start, as
 * explore_mdp_gpu_dev's host_mdp 2 leaves it; choice_start, targets and
 * probs NULL) with d's choice offsets, targets and probabilities: what
 * mdpcheck.h's host_model asks for.  WX_EINPUT when *m is not such a
 * skeleton of d; WX_ELIMIT when host memory is short (*m unchanged). */
int mdp_dev_download_rest(const struct mdp_dev *d, struct mdp *m, struct wx_error *err);

/* Copies the host MDP m into a new owned handle *d (no choice labels).
 * WX_ELIMIT when device memory is short; *d zeroed on failure. */
int mdp_dev_upload(const struct mdp *m, struct mdp_dev *d, struct wx_error *err);
/* Releases an owned handle's device memory, and zeroes *d either way. */
void mdp_dev_free(struct mdp_dev *d);

/* valiter_precompute_gpu and valiter_precompute2_gpu (analysis/valiter.h)
 * on the device MDP: the same sets bit for bit, without uploading the MDP
 * (allowed, target and out stay host arrays of n_states bytes; allowed may
 * be NULL). */
int valiter_precompute_dev(const struct mdp_dev *d, const uint8_t *allowed, const uint8_t *target,
                           enum vi_precomp which, uint8_t *out, struct wx_error *err);
int valiter_precompute2_dev(const struct mdp_dev *d, const uint8_t *allowed,
                            const uint8_t *target, enum vi_precomp a, uint8_t *out_a,
                            enum vi_precomp b, uint8_t *out_b, struct wx_error *err);

/* mdpcheck.h's build_system on the device MDP (kernels/vi/sysbuild.cu):
 * q->m must be d's host twin (same counts; WX_EINPUT otherwise).  The
 * classes, usable choices, initial states and rewards go up; the system,
 * the ranks and (with q->initial) the classes after the cut come down into
 * q's host arrays.  An empty MDP is left to the host (q->built 0).
 * WX_ELIMIT when device memory is short. */
int valiter_system_dev(const struct mdp_dev *d, struct mdpcheck_sysbuild *q, struct wx_error *err);
/* mdpcheck.h's cut (step 2a alone) on the device MDP, the same search and
 * numbering as valiter_system_dev's: q->m must be d's host twin
 * (WX_EINPUT otherwise).  The classes, usable choices and initial states
 * go up; the classes after the cut and the ranks come down into q's host
 * arrays.  An empty MDP is left to the host (q->done 0).  WX_ELIMIT when
 * device memory is short. */
int valiter_cut_dev(const struct mdp_dev *d, struct mdpcheck_cut *q, struct wx_error *err);

#ifdef __cplusplus
}
#endif

#endif
