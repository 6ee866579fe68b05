/*
 * aut_lts_stub.c -- bench-only: an LTS builder that stores nothing, so that
 * bench/aut_read.sh can time aut_read's scanner and label interning alone
 * (linked instead of lts.o; the LTS it returns is empty).
 */
#include <string.h>

#include "network/lts.h"

void lts_init(struct lts *l, uint32_t n_states)
{
    memset(l, 0, sizeof *l);
    l->n_states = n_states;
}

int lts_add(struct lts *l, uint32_t src, uint32_t label, uint32_t dst)
{
    l->n_trans++;
    return 0;
}

int lts_finish(struct lts *l)
{
    return 0;
}

void lts_free(struct lts *l)
{
}

int lts_reserve(struct lts *l, uint64_t n)
{
    (void)l, (void)n;
    return 0;
}

uint32_t lts_add_dist(struct lts *l, uint32_t n, const uint32_t *state, const uint64_t *num,
                      const uint64_t *den)
{
    return state[0]; /* stores nothing, like lts_add */
}
