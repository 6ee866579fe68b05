/*
 * random_prob_net.h -- random probabilistic networks for the tests that
 * compare MDP explorers (test_prob_random.c against a brute-force product,
 * tests/gpu/test_gpu_mdp.c GPU against CPU).
 *
 * A network of 1..shape.comps components of 1..shape.states states, each
 * with up to shape.trans - 1 transitions over the labels i a b c whose
 * targets are a state or a distribution of 2..3 states (weights 1..3), an
 * initial state or (one in six) an initial distribution; rules: every
 * (component, label) alone with probability 1/3 (the hidden label always),
 * renamed at random, plus up to shape.rules - 1 synchronisations of 2 or
 * more components.  Draws from tests/rng.h, so a seed fixes the network.
 */
#ifndef WX_TEST_RANDOM_PROB_NET_H
#define WX_TEST_RANDOM_PROB_NET_H

#include <stdint.h>

#include "../network/lts.h"
#include "../network/network.h"
#include "../util/strtab.h"
#include "rng.h"

#define RPN_NLAB 4     /* i a b c */
#define RPN_MAXC 8     /* shape.comps at most */

struct rpn_shape {
    uint32_t comps, states, trans, rules;
};

static const char *const rpn_label[RPN_NLAB] = {"i", "a", "b", "c"};

/* A random distribution over 2..3 states of l (weights 1..3); may merge
 * into a plain state (lts_add_dist). */
static inline uint32_t rpn_dist(struct lts *l, uint32_t n)
{
    uint32_t k = 2 + (uint32_t)rnd_below(n < 3 ? 1 : 2), st[3];
    uint64_t num[3], den = 0;
    for (uint32_t j = 0; j < k; j++) {
        st[j] = (uint32_t)rnd_below(n);
        num[j] = 1 + rnd_below(3);
        den += num[j];
    }
    uint64_t dens[3] = {den, den, den};
    return lts_add_dist(l, k, st, num, dens);
}

static inline int rpn_component(struct network *net, const struct rpn_shape *sh)
{
    struct lts l;
    uint32_t n = 1 + (uint32_t)rnd_below(sh->states);
    lts_init(&l, n);
    uint32_t m = (uint32_t)rnd_below(sh->trans);
    for (uint32_t j = 0; j < m; j++) {
        uint32_t src = (uint32_t)rnd_below(n), lab = (uint32_t)rnd_below(RPN_NLAB);
        uint32_t dst = n > 1 && rnd_below(2) ? rpn_dist(&l, n) : (uint32_t)rnd_below(n);
        if (dst == UINT32_MAX || lts_add(&l, src, lab, dst) != 0)
            return -1;
    }
    uint32_t init = n > 1 && rnd_below(6) == 0 ? rpn_dist(&l, n) : (uint32_t)rnd_below(n);
    /* lts_finish keeps only used distributions: mark the initial one as used */
    if (init & LTS_DST_DISTRIBUTION)
        l.init_dist = (init & ~LTS_DST_DISTRIBUTION) + 1;
    if (lts_finish(&l) != 0)
        return -1;
    if (l.init_dist) {
        init = LTS_DST_DISTRIBUTION | (l.init_dist - 1);
        l.init_dist = 0;
    }
    return lts_prune_from(&l, init) != 0 || network_add_comp(net, &l, "c") < 0 ? -1 : 0;
}

/* Fills *net (network_init'ed here) with a random network of shape sh. */
static inline int rpn_network(struct network *net, const struct rpn_shape *sh)
{
    struct strtab *t = strtab_new();
    for (int i = 0; i < RPN_NLAB; i++)
        strtab_intern(t, rpn_label[i], 1);
    network_init(net, t, 0);
    uint32_t nc = 1 + (uint32_t)rnd_below(sh->comps);
    for (uint32_t c = 0; c < nc; c++)
        if (rpn_component(net, sh) != 0)
            return -1;
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t lab = 0; lab < RPN_NLAB; lab++)
            if (lab == 0 || rnd_below(3) == 0) {
                uint32_t res = lab == 0 ? 0 : (uint32_t)rnd_below(RPN_NLAB);
                if (network_add_rule(net, 1, &c, &lab, res) != 0)
                    return -1;
            }
    uint32_t nr = nc > 1 ? (uint32_t)rnd_below(sh->rules) : 0;
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t comp[RPN_MAXC], lab[RPN_MAXC], k = 0;
        for (uint32_t c = 0; c < nc; c++)
            if (rnd_below(3) != 0) {
                comp[k] = c;
                lab[k++] = 1 + (uint32_t)rnd_below(RPN_NLAB - 1);
            }
        if (k >= 2 && network_add_rule(net, k, comp, lab, 1 + (uint32_t)rnd_below(RPN_NLAB - 1)) != 0)
            return -1;
    }
    return network_normalise(net);
}

#endif
