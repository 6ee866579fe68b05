/*
 * succ_int.h -- what the successor generator's files share (not part of the
 * API; successors.h is): the output buffer, the general path's class firing,
 * and the fast path's entry points.
 */
#ifndef WX_SUCC_INT_H
#define WX_SUCC_INT_H

#include "successors.h"

/* Doubles the output buffers (rec, rec2, hash); WX_ELIMIT when memory is
 * short. */
int succ_grow_output(struct succ_gen *g, struct wx_error *err);

static inline int succ_emit(struct succ_gen *g, uint32_t label, const uint32_t *vec, struct wx_error *err)
{
    if (g->n == g->cap && succ_grow_output(g, err))
        return WX_ELIMIT;
    uint32_t *r = g->rec + g->n * g->stride;
    r[0] = label;
    /* A few words: a loop beats the call to memcpy. */
    for (uint32_t w = 0; w < g->words; w++)
        r[1 + w] = vec[w];
    g->n++;
    return WX_OK;
}

/* The general path: fires every class offered by >= 2 of the nruns
 * components whose sync runs are g->run_comp/run_pos/run_end[0 .. nruns),
 * in increasing class order (SUCC_HEAP and SUCC_COUNTING; succ_sync.c). */
int succ_fire_classes_heap(struct succ_gen *g, uint32_t nruns, const uint32_t *vec, struct wx_error *err);
int succ_fire_classes_counting(struct succ_gen *g, uint32_t nruns, const uint32_t *vec, struct wx_error *err);

/* The fast path (succ_fast.h): succ_fast_init sets g->fast or leaves it
 * NULL; succ_fast_expand appends the records of vec and sets *dedup when
 * they may hold duplicates. */
void succ_fast_init(struct succ_gen *g);
void succ_fast_free(struct succ_fast *f);
int succ_fast_expand(struct succ_gen *g, const uint32_t *vec, bool *dedup, struct wx_error *err);

#endif
