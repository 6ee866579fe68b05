/*
 * random_mdp.h -- the random MDPs of the model-checking tests
 * (test_mdpcheck.c, test_relevant.c): seeded through rng.h, so a printed
 * seed reproduces an instance.
 */
#ifndef WX_TEST_RANDOM_MDP_H
#define WX_TEST_RANDOM_MDP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../graph/mdp.h"
#include "../graph/mdp_lab.h"
#include "rng.h"

struct inst {
    struct mdp m;
    struct mdp_labels lab;
    struct mdp_rewards rew; /* choice rewards 0..3 (with_rewards), else none */
};

/* n states of 1..3 choices of 1..3 uniform entries; labels "t" (about one
 * state in 40) and "a" (nine in ten).  shape 0: global targets; 1: local
 * targets (long chains, MECs); 2: a DAG (forward targets only, the last
 * state absorbing through a self-loop, a target half of the time).  With
 * with_rewards each choice draws its reward before its entries (so the
 * instance of a seed differs from the one without). */
__attribute__((unused)) static void gen_mdp(struct inst *x, uint64_t n, int shape,
                                            int with_rewards)
{
    struct mdp *m = &x->m;
    memset(x, 0, sizeof *x);
    m->n_states = n;
    uint64_t cap_c = n * 3 + 1, cap_e = cap_c * 3 + 1;
    m->state_start = calloc(n + 1, sizeof *m->state_start);
    m->choice_start = calloc(cap_c + 1, sizeof *m->choice_start);
    m->targets = malloc(cap_e * sizeof *m->targets);
    m->probs = malloc(cap_e * sizeof *m->probs);
    if (with_rewards)
        x->rew.choice = malloc(cap_c * sizeof *x->rew.choice);
    uint64_t c = 0, e = 0;
    for (uint64_t s = 0; s < n; s++) {
        m->state_start[s] = c;
        uint64_t k = 1 + rnd_below(3);
        for (uint64_t j = 0; j < k; j++) {
            m->choice_start[c] = e;
            if (with_rewards)
                x->rew.choice[c] = (double)rnd_below(4);
            uint64_t len = 1 + rnd_below(3);
            for (uint64_t i = 0; i < len; i++) {
                uint64_t t;
                if (shape == 2)
                    t = s + 1 == n ? s : s + 1 + rnd_below(n - 1 - s < 9 ? n - 1 - s : 9);
                else if (shape == 1)
                    t = (s + n + rnd_below(9) - 4) % n;
                else
                    t = rnd_below(n);
                m->targets[e] = (uint32_t)t;
                m->probs[e] = 1.0 / (double)len;
                e++;
            }
            c++;
        }
    }
    m->state_start[n] = c;
    m->choice_start[c] = e;
    m->n_choices = c;
    m->n_entries = e;
    mdp_labels_init(&x->lab, n);
    int t = mdp_labels_add(&x->lab, "t"), a = mdp_labels_add(&x->lab, "a");
    for (uint64_t s = 0; s < n; s++) {
        if (rnd_below(40) == 0 || (shape == 2 && s + 1 == n && rnd_below(2)))
            mdp_labels_set(&x->lab, t, s);
        if (rnd_below(10) != 0)
            mdp_labels_set(&x->lab, a, s);
    }
}

__attribute__((unused)) static void inst_free(struct inst *x)
{
    mdp_free(&x->m);
    mdp_labels_free(&x->lab);
    free(x->rew.choice);
}

#endif
