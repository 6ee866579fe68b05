/*
 * mdp_rules.h -- the synchronising rules of a probabilistic image as the
 * MDP explorers (explore_mdp.c, kernels/explore_mdp/) enumerate them: each
 * rule's participants as a list, and each rule filed under one participant,
 * its anchor, by class.
 *
 * A rule of class k fires in a state only when every participant has a
 * class-k choice there, so a state's rules are found by walking each
 * component's synchronising choices (sorted by class in its segment) and,
 * for each class met, the rules anchored at that component: the cost per
 * state follows the classes the components offer, not the image's classes
 * (a network with 2^N rules of one rule each costs nothing where no
 * component offers them).  The anchor of a rule is its participant with
 * the fewest local states offering the class (ties: the lowest component),
 * so the walk meets the rule as rarely as possible.
 *
 * The order in which rules are met differs from the class order; the
 * explorers sort each state's choices canonically afterwards, so the MDP
 * does not depend on it.
 */
#ifndef WX_MDP_RULES_H
#define WX_MDP_RULES_H

#include <stdint.h>

#include "../network/image.h"
#include "../util/error.h"

struct mdp_rules {
    uint32_t n_rules;
    uint32_t *part_start;   /* n_rules + 1: rule r's participants are */
    uint32_t *part;         /* part[part_start[r] .. part_start[r + 1]), ascending */
    uint32_t n_anch;        /* (component, class) pairs with anchored rules */
    uint32_t *anch_start;   /* n_comps + 1: component c's pairs are [anch_start[c], anch_start[c + 1]) */
    uint32_t *anch_class;   /* n_anch: the class, ascending within a component */
    uint32_t *rule_start;   /* n_anch + 1: pair i's rules are */
    uint32_t *rule;         /* rule[rule_start[i] .. rule_start[i + 1]), ascending */
};

/* Builds the lists of a probabilistic image (pchoice tables present).
 * Rules without participants are filed nowhere (they give nothing).
 * WX_ELIMIT when out of memory. */
int mdp_rules_build(const struct image *img, struct mdp_rules *r, struct wx_error *err);

void mdp_rules_free(struct mdp_rules *r);

/* The anchored pair of component c whose class is k, searched from index
 * *i on (anch_start / anch_class as in struct mdp_rules): advances *i past
 * the classes below k (a segment meets its classes in ascending order, so
 * one cursor per component walks its list once per state); returns the
 * pair's index or UINT32_MAX when c anchors no rule of class k.  Host and
 * device (the GPU generator keeps the same arrays). */
WX_HD uint32_t mdp_rules_find(const uint32_t *anch_start, const uint32_t *anch_class, uint32_t c, uint32_t *i,
                              uint32_t k)
{
    const uint32_t end = anch_start[c + 1];
    while (*i < end && anch_class[*i] < k)
        (*i)++;
    return *i < end && anch_class[*i] == k ? *i : UINT32_MAX;
}

#endif
