/*
 * explore_mdp_gpu.h -- the GPU twin of explorer/explore_mdp.h: the reachable
 * MDP of a probabilistic network, explored on the device
 * (kernels/explore_mdp/).  C header, host code only.
 *
 * Same result as explore_mdp, bit for bit: states numbered in BFS order
 * exactly as the CPU numbers them (each level's new states in the order of
 * their first reference, by (state, choice, entry)), the same choices in
 * the same canonical order, the same doubles and exact fractions, the same
 * deadlocks and depth, fresh_initial the same.
 *
 * ALGORITHM.  A level-synchronous BFS, the level cut into batches of
 * states.  Per batch: (1) count each state's raw choices and outcomes (one
 * thread per state), CUB scans; (2) generate them (interleaved choices, and
 * the products of the synchronising rules' participant choices, exactly as
 * explore_mdp.c), sort each choice's outcomes by vector and the state's
 * choices canonically, and drop the repeated ones (one thread per state,
 * in the batch's scratch); (3) scans of the distinct counts; the choices
 * and entries are written where they go in the MDP (device arrays in the
 * layout of graph/mdp.h); (4) every entry's vector is found or inserted in
 * the device hash table, a new slot recording the smallest entry index that
 * refers to it (atomicMin); (5) the entry holding its slot's smallest index
 * marks a new state, a scan numbers them in entry order after the states
 * numbered so far, and every entry gets its target id.  The table grows
 * (rehashing the stored vectors with their ids) before a batch could fill
 * it past half.
 *
 * The MDP stays on the device until it is downloaded into *res; it is kept
 * in graph/mdp.h's CSR layout (state_start, choice_start, targets, probs),
 * which is the layout kernels/vi packs from.  explore_mdp_gpu_dev hands
 * those device arrays over (kernels/mdp_dev.h) and downloads the host MDP
 * only on request.
 *
 * LIMITS.  A synchronising rule with more than MDPX_GPU_MAX_PARTS
 * participants, or a state with 2^31 raw outcomes or more: WX_ELIMIT
 * (exit 3), as is device memory running out (partial counts,
 * complete == false).  2^32 - 1 states at most (struct mdp's targets).
 */
#ifndef WX_EXPLORE_MDP_GPU_H
#define WX_EXPLORE_MDP_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "../explorer/explore_mdp.h"
#include "mdp_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MDPX_GPU_MAX_PARTS 32u

struct mdp_gpu_tuning {
    uint64_t batch_states;   /* states expanded per batch; 0 = default */
    uint64_t table_slots;    /* first hash-table size (rounded up to a power
                                of two); 0 = default.  Tests force tiny ones
                                to exercise growth */
    bool timeline;           /* print the seconds of each step of the
                                batches, summed, on stderr (each step first
                                waits for the device: not a benchmark) */
};

/* Explores img on the current CUDA device (img must be probabilistic:
 * WX_EINPUT otherwise).  Uses opt->keep_vectors and opt->cancel (between
 * batches; WX_EINTERRUPT with the partial counts); with `exact`,
 * res->entry_num / entry_den are filled.  res->threads is 0.  Returns
 * WX_EINPUT when built without CUDA or no usable device; WX_ELIMIT (LIMITS);
 * WX_ESYSTEM on a CUDA failure. */
int explore_mdp_gpu(const struct image *img, const struct explore_options *opt, bool exact,
                    struct mdp_explore_result *res, struct wx_error *err);

/* Same with the knobs (NULL: defaults). */
int explore_mdp_gpu_tuned(const struct image *img, const struct explore_options *opt, bool exact,
                          const struct mdp_gpu_tuning *tuning, struct mdp_explore_result *res,
                          struct wx_error *err);

/* explore_mdp_gpu_tuned that keeps the MDP on the device: on WX_OK *dev
 * owns its arrays and choice labels (mdp_dev_free).  host_mdp 1:
 * res->mdp and res->choice_label are downloaded as explore_mdp_gpu fills
 * them; 2: res->choice_label and of res->mdp the counts and state_start
 * only (choice_start, targets, probs NULL: mdp_dev_download_rest completes
 * it); 0: res->mdp holds the counts only (NULL arrays) and
 * res->choice_label is NULL; res->deadlocks, depth, fresh_initial,
 * complete, and with exact or opt->keep_vectors the fractions and vectors,
 * are filled either way.  On failure *dev is zeroed and *res holds the
 * partial counts as explore_mdp_gpu's. */
int explore_mdp_gpu_dev(const struct image *img, const struct explore_options *opt, bool exact,
                        const struct mdp_gpu_tuning *tuning, int host_mdp,
                        struct mdp_explore_result *res, struct mdp_dev *dev, struct wx_error *err);

/* 1 when explore_mdp_gpu can run here (a CUDA device of compute
 * capability >= 9.0), else 0; 0 in a build without CUDA. */
int explore_mdp_gpu_available(void);

#ifdef __cplusplus
}
#endif

#endif
