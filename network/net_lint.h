/*
 * net_lint.h -- labels that other tools treat specially and this network
 * treats as ordinary actions: the traps of CADP / mCRL2 / CCS habits.
 *
 * A flattened network knows only its hidden label; an mCRL2 file read
 * without --hidden tau keeps every 'tau' step visible, and DFTCalc's
 * "rate R" labels are blocked by the synchronisation without --rate.  Both
 * give a plausible answer with exit 0.  net_lint gathers the facts that
 * reveal them; the CLI words them as warnings (nothing here prints).
 *
 * What is looked at: the labels of component transitions, the results and
 * participant labels of the rules, and the label table (which also holds
 * labels that only existed inside the EXP tree, e.g. a "rate R" produced by
 * a rename and then dropped by a parallel operator).
 */
#ifndef WX_NET_LINT_H
#define WX_NET_LINT_H

#include <stdbool.h>
#include <stdint.h>

#include "network.h"

/* Labels of one kind that look stochastic while their option is off. */
struct net_lint_special {
    uint32_t n_blocked;      /* labels no rule produces (blocked, or dropped
                                by a parallel operator) */
    uint32_t blocked;        /* the first of them, UINT32_MAX if none */
    uint32_t n_synced;       /* labels in rules of >= 2 participants */
    uint32_t synced;         /* the first of them, UINT32_MAX if none */
};

struct net_lint {
    bool hidden_occurs;      /* some rule produces the hidden label */
    uint32_t hidden_like;    /* "tau", "i" or "t" (the first in that order)
                                labelling a component transition or a rule
                                result while not the hidden label;
                                UINT32_MAX if none */
    struct net_lint_special rate;  /* "rate R" without opt->rate */
    struct net_lint_special prob;  /* "prob P" without opt->prob */
};

/* Fills *out for net built with the builder's --rate / --prob settings
 * (rate_on, prob_on: such labels always interleave).  O(transitions +
 * participants + labels) time, one byte per label.  WX_OK, or WX_ELIMIT
 * when out of memory. */
int net_lint(const struct network *net, bool rate_on, bool prob_on, struct net_lint *out,
             struct wx_error *err);

#endif
