/*
 * network.h -- a flattened network of LTSs: the semantic form every input
 * format is reduced to before compilation into an image (image.h).
 *
 * A network is a list of components (struct lts) and a list of label-level
 * synchronisation rules.  Rule r has participants (comp, label) with distinct
 * components, sorted by component, and a result label.  Semantics of the
 * product (this is the whole definition; nothing else implicitly exists):
 *   - a product state is a vector (s_0, ..., s_{n-1}) of component states;
 *     the initial state is (0, ..., 0);
 *   - rule r fires in a state when every participant (c, l) has at least one
 *     transition s_c --l--> t_c; each combination of such transitions gives
 *     one successor, where participants move to t_c and every other component
 *     keeps its state; the product transition is labelled result(r);
 *   - component transitions that no rule names are blocked.
 * Interleaving (hidden labels, asynchronous labels, LOTOS |||) is expressed
 * with single-participant rules, so the explorers need no special cases.
 * Product transitions are counted as a set of (source, label, target).
 *
 * Priority (an EXP "prio" operator above every parallel operator; see
 * net_prio.c): when prio_n > 0, rule results are the labels the priority
 * compares, and a product transition of rule r exists only when no rule
 * whose result is above result(r) (prio_above) fires in the same state; it
 * then carries the label prio_out[result(r)], or does not exist at all when
 * that is NETWORK_PRIO_CUT (a cut above the priority: the cut transition
 * still takes part in the priority).  Operators above the priority act on
 * prio_out rather than on the rules.
 *
 * All label ids (component transitions, rule participants, results) index the
 * network's one strtab `labels`.  `hidden` is the id of the hidden label
 * (e.g. "i"); result == hidden means a hidden product transition.
 *
 * Ownership: the network owns its components, rules, names and label table.
 * Transforms (network_transform.h) take networks by value-pointer and return
 * new ones.  Not thread-safe while being built; read-only use is.
 */
#ifndef WX_NETWORK_H
#define WX_NETWORK_H

#include <stdint.h>

#include "../util/error.h"
#include "../util/strtab.h"
#include "lts.h"

struct network {
    struct strtab *labels; /* owned */
    uint32_t hidden;       /* label id of the hidden label */

    uint32_t n_comps;
    struct lts *comps;     /* n_comps */
    char **comp_names;     /* n_comps, e.g. the .aut path; owned */

    uint32_t n_rules;
    uint32_t *rule_start;  /* n_rules + 1; participants of r are
                              [rule_start[r], rule_start[r+1]) */
    uint32_t *part_comp;   /* component of each participant, ascending per rule */
    uint32_t *part_label;  /* label the participant must perform */
    uint32_t *rule_result; /* n_rules; result label of each rule */
    uint32_t rule_cap, part_cap; /* allocated rules / participants (builder) */

    uint32_t prio_n;           /* 0: no priority; else every result is < prio_n */
    uint32_t *prio_above_start;/* prio_n + 1 */
    uint32_t *prio_above;      /* labels above l: [prio_above_start[l], ..[l+1]) */
    uint32_t *prio_out;        /* prio_n: the label shown, or NETWORK_PRIO_CUT */
};

#define NETWORK_PRIO_CUT UINT32_MAX

/* Initialises an empty network owning `labels` (may not be NULL). */
void network_init(struct network *net, struct strtab *labels, uint32_t hidden);

/* Appends a component, taking ownership of *l's arrays (l is zeroed) and a
 * copy of name.  Returns the component index, or -1 on OOM. */
int network_add_comp(struct network *net, struct lts *l, const char *name);

/* Appends a rule with n participants (comps need not be sorted; they must be
 * distinct).  Returns 0, or -1 on OOM. */
int network_add_rule(struct network *net, uint32_t n, const uint32_t *comp,
                     const uint32_t *label, uint32_t result);

/* Sorts rules canonically and drops duplicate rules.  Call once built. */
int network_normalise(struct network *net);

/* Frees everything the network owns, the label table included. */
void network_free(struct network *net);

#endif
