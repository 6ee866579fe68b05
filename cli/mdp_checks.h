/*
 * mdp_checks.h -- the reachability checks and decompositions of
 * `warpex explore` on a probabilistic network, made on the explored MDP
 * (analysis/mdp_reach.h, analysis/scc.h, analysis/mec.h):
 *   --deadlock      a reachable state without a choice;
 *   --action REGEX  a reachable state with a choice whose label matches;
 *   --trace         a shortest trace to the first such state (BFS order),
 *                   each step a choice and the entry taken, with their
 *                   probabilities and the trace's;
 *   --scc, --scc-out  SCCs of the support graph (an edge per entry);
 *   --mec, --mec-out  the MDP's maximal end components (as `warpex mec`).
 */
#ifndef WX_CLI_MDP_CHECKS_H
#define WX_CLI_MDP_CHECKS_H

#include <stdbool.h>
#include <stdint.h>

#include "../analysis/mdp_reach.h"
#include "../analysis/mec.h"
#include "../analysis/scc.h"
#include "../explorer/explore_mdp.h"
#include "cli.h"

struct mdp_checks {
    uint8_t *match;             /* --action: per label (cli_match_actions) */
    uint32_t n_labels;          /* the image's                              */
    uint64_t state, choice;     /* the violation (MDP_REACH_NONE: none)    */
    bool violated, have_trace;
    struct mdp_trace trace;
    struct scc_result scc;
    struct mec_result mec;
    bool have_scc, have_mec, on_gpu;
    double scc_seconds, mec_seconds;
};

/* Before the exploration: --action's regex (a bad one is WX_EINPUT; one
 * matching no label gives a note unless quiet).  Zeroes *c first. */
int mdp_checks_prepare(const struct cli_options *o, const struct image *img, struct mdp_checks *c,
                       struct wx_error *err);

/* After a complete exploration: the checks the options ask for; SCC and
 * MEC on the GPU when on_gpu; --scc-out / --mec-out written.  A violation
 * sets c->violated and still returns WX_OK. */
int mdp_checks_run(const struct cli_options *o, const struct mdp_explore_result *r, bool on_gpu,
                   struct mdp_checks *c, struct wx_error *err);

/* The JSON fields (each with a leading ", ") and the text lines. */
void mdp_checks_json(const struct cli_options *o, const struct image *img,
                     const struct network *net, const struct mdp_explore_result *r,
                     const struct mdp_checks *c);
void mdp_checks_text(const struct cli_options *o, const struct image *img,
                     const struct network *net, const struct mdp_explore_result *r,
                     const struct mdp_checks *c);

void mdp_checks_free(struct mdp_checks *c);

#endif
