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
 * Where the rules are many for few components (consensus: 2^N rules of one
 * class each, all among the same N processes), walking the anchors tries
 * many rules per state that a participant then refuses.  There the rules
 * are found by masks instead (struct mdp_rules.mask_words > 0), as the LTS
 * explorer's fast generator does: per local state of each component, the
 * bits of the rules it takes part in but cannot join there (it offers no
 * choice of the rule's class); a state's rules are the valid ones that no
 * component's mask blocks.  mdp_rules_build picks the masks when they are
 * small (MDP_MASK_MAX_BYTES, MDP_MASK_MAX_WORDS) and their cost per state
 * (one word per component and 64 rules) is below MDP_MASK_COST_RATIO times
 * the anchors' expected tries per state (averaged over each component's
 * local states); tests and benchmarks can force either walk.
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

/* How a state's rules are found (mdp_rules_build). */
enum mdp_rule_walk { MDP_WALK_AUTO = 0, MDP_WALK_ANCHORS, MDP_WALK_MASKS };

struct mdp_rules {
    uint32_t n_rules;
    uint32_t *part_start;   /* n_rules + 1: rule r's participants are */
    uint32_t *part;         /* part[part_start[r] .. part_start[r + 1]), ascending */
    uint32_t n_anch;        /* (component, class) pairs with anchored rules */
    uint32_t *anch_start;   /* n_comps + 1: component c's pairs are [anch_start[c], anch_start[c + 1]) */
    uint32_t *anch_class;   /* n_anch: the class, ascending within a component */
    uint32_t *rule_start;   /* n_anch + 1: pair i's rules are */
    uint32_t *rule;         /* rule[rule_start[i] .. rule_start[i + 1]), ascending */
    uint32_t mask_words;    /* 0: walk the anchors; else words per mask      */
    uint64_t *blocked;      /* per local state (the image's proc_offsets[c] + s):
                               mask_words words, bit r: c takes part in rule r
                               but offers no choice of its class there      */
    uint64_t *valid;        /* mask_words: the rules with participants      */
    uint32_t *rule_class;   /* n_rules: each rule's class                   */
};

/* Builds the lists of a probabilistic image (pchoice tables present), and
 * the masks when `walk` asks for them (MDP_WALK_MASKS: whenever they fit
 * MDP_MASK_MAX_BYTES) or AUTO finds them cheaper.  Rules without
 * participants are filed nowhere and never valid (they give nothing).
 * WX_ELIMIT when out of memory. */
int mdp_rules_build(const struct image *img, enum mdp_rule_walk walk, struct mdp_rules *r,
                    struct wx_error *err);

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
