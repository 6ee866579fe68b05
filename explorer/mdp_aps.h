/*
 * mdp_aps.h -- the atomic propositions of an explored MDP: "init" (state
 * 0), "deadlock" (no choice), and every action name "a" of the network:
 * the states where a choice labelled a is enabled (cli/cmd_explore_mdp.c's
 * header says why actions).  Ids: init 0, deadlock 1, then the enabled
 * actions in order of their first choice (state order, then choice order),
 * then the network's other label names in label order, so the .lab file a
 * run writes does not depend on the thread count.
 *
 * A label name that PRISM's .lab files and the property syntax cannot carry
 * (empty, a '"' or a control byte) or that is reserved ("init",
 * "deadlock") is no proposition; *skipped counts the enabled ones.
 */
#ifndef WX_MDP_APS_H
#define WX_MDP_APS_H

#include <stdint.h>

#include "../graph/mdp_lab.h"
#include "../network/image.h"
#include "../util/error.h"

/* Whether a name can be carried by PRISM's .lab files and the property
 * syntax: not empty, no '"', no control byte. */
int mdp_aps_nameable(const char *s);

/* Label l's id in lab (added on first use), -2 for a name that cannot be a
 * proposition (counted in *skipped), -1 when out of memory.  id[l] == -1
 * means not yet seen; id has img->n_labels entries. */
int mdp_aps_id(const struct image *img, uint32_t l, int *id, struct mdp_labels *lab, uint32_t *skipped);

/* The propositions of m (choice_label: m->n_choices label ids, those >=
 * img->n_labels are the hidden action) into *lab (initialised here), with
 * threads threads (<= 0: all cores); WX_ELIMIT when out of memory. */
int mdp_aps_build(const struct image *img, const struct mdp *m, const uint32_t *choice_label, int threads,
                  struct mdp_labels *lab, uint32_t *skipped, struct wx_error *err);

#endif
