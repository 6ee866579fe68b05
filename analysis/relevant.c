/*
 * relevant.c -- the maybe states that the initial states' value depends on
 * (contract and closure argument in relevant.h).
 */
#include <stdlib.h>

#include "relevant.h"

/* Forward breadth-first search from the initial states over the states of
 * class `skip` (the former maybe states), which turn back into `maybe` as
 * they are reached: the class doubles as the visited mark, so the search
 * needs only its queue. */
static void reach(const struct mdp *m, const uint8_t *ok, const uint8_t *initial, uint8_t *cls,
                  uint8_t maybe, uint8_t skip, uint32_t *queue)
{
    uint64_t n = m->n_states, head = 0, tail = 0;
    for (uint64_t s = 0; s < n; s++)
        if (initial[s] && cls[s] == skip) {
            cls[s] = maybe;
            queue[tail++] = (uint32_t)s;
        }
    while (head < tail) {
        uint32_t s = queue[head++];
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            if (ok && !ok[c])
                continue;
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++) {
                uint32_t t = m->targets[e];
                if (cls[t] == skip) {
                    cls[t] = maybe;
                    queue[tail++] = t;
                }
            }
        }
    }
}

int relevant_restrict(const struct mdp *m, const uint8_t *ok, const uint8_t *initial,
                      uint8_t *cls, uint8_t maybe, uint8_t skip, uint32_t *loc, uint32_t *back,
                      uint64_t *n_maybe, struct wx_error *err)
{
    uint64_t n = m->n_states;
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    if (!queue)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (relevant states)");
    for (uint64_t s = 0; s < n; s++)
        if (cls[s] == maybe)
            cls[s] = skip;
    reach(m, ok, initial, cls, maybe, skip, queue);
    free(queue);
    uint64_t k = 0;
    for (uint64_t s = 0; s < n; s++) {
        if (cls[s] == maybe) {
            loc[s] = (uint32_t)k;
            back[k++] = (uint32_t)s;
        } else
            loc[s] = UINT32_MAX;
    }
    *n_maybe = k;
    return WX_OK;
}

int relevant_watch(uint64_t n_states, const uint8_t *initial, const uint32_t *sid,
                   uint64_t n_sys, uint32_t **watch, uint64_t *n_watch, struct wx_error *err)
{
    *watch = NULL;
    *n_watch = 0;
    if (!n_sys)
        return WX_OK;
    uint8_t *mark = calloc(n_sys, 1);
    if (!mark)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (initial states)");
    uint64_t k = 0;
    for (uint64_t s = 0; s < n_states; s++)
        if (initial[s] && sid[s] != UINT32_MAX && !mark[sid[s]]) {
            mark[sid[s]] = 1;
            k++;
        }
    uint32_t *w = k ? malloc(k * sizeof *w) : NULL;
    if (k && !w) {
        free(mark);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory (initial states)");
    }
    uint64_t j = 0;
    for (uint64_t t = 0; t < n_sys && j < k; t++)
        if (mark[t])
            w[j++] = (uint32_t)t;
    free(mark);
    *watch = w;
    *n_watch = k;
    return WX_OK;
}
