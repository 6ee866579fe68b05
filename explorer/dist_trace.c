/*
 * dist_trace.c -- the distributed explorer's global ids (from the level
 * rows every rank keeps) and the shortest trace of a violation, rebuilt by
 * asking the owners back along the parent chain (explore_dist.h).
 */
#include "dist_int.h"

#include <stdlib.h>
#include <string.h>

void dist_add_level(struct dist *x, const uint64_t *sizes)
{
    int R = x->ranks;
    const uint64_t *ps = x->lsize + (size_t)(x->nlev - 1) * R;
    const uint64_t *pl = x->lstart + (size_t)(x->nlev - 1) * R;
    uint64_t *ls = x->lsize + (size_t)x->nlev * R, *ll = x->lstart + (size_t)x->nlev * R;
    uint64_t *gs = x->gstart + (size_t)x->nlev * R;
    uint64_t g = x->gstart[(size_t)(x->nlev - 1) * R];
    for (int r = 0; r < R; r++)
        g += ps[r];
    for (int r = 0; r < R; r++) {
        ls[r] = sizes[r];
        ll[r] = pl[r] + ps[r];
        gs[r] = g;
        g += sizes[r];
    }
    x->nlev++;
}

uint64_t dist_global_id(const struct dist *x, int r, uint64_t i)
{
    /* the last level whose first local id on r is <= i: levels are id
     * ranges in order, and an empty level starts where the next one does */
    uint32_t lo = 0, hi = x->nlev; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (x->lstart[(size_t)mid * x->ranks + r] <= i)
            lo = mid;
        else
            hi = mid;
    }
    size_t k = (size_t)lo * x->ranks + r;
    return x->gstart[k] + (i - x->lstart[k]);
}

/* The trace's arrays, and a message buffer of 4 + words words; agreed on
 * by all ranks (a failure anywhere fails all). */
static int trace_alloc(struct dist *x, uint64_t len, uint32_t **msg, struct wx_error *err)
{
    struct trace *tr = &x->res->trace;
    tr->labels = malloc((len ? len : 1) * sizeof *tr->labels);
    tr->states = malloc((len + 1) * sizeof *tr->states);
    tr->vectors = malloc((len + 1) * x->words * sizeof *tr->vectors);
    *msg = malloc((4 + x->words) * sizeof **msg);
    uint64_t f = !tr->labels || !tr->states || !tr->vectors || !*msg;
    int rc = x->t->allreduce(x->t->ctx, &f, 1, DIST_MAX, err);
    if (rc == WX_OK && f)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory building a trace of %llu steps",
                     (unsigned long long)len);
    if (rc) {
        free(tr->labels), free(tr->states), free(tr->vectors), free(*msg);
        *tr = (struct trace){0};
        *msg = NULL;
    }
    return rc;
}

/* The last step of an action trace: its label and target, from the
 * source's owner; the target's id from its owner (the exchange of the
 * round that found the action delivered it there). */
static int trace_action_step(struct dist *x, uint32_t *msg, uint64_t len, struct wx_error *err)
{
    const struct dist_transport *t = x->t;
    struct trace *tr = &x->res->trace;
    uint32_t W = x->words;
    if (x->me == x->vrank) {
        msg[0] = x->act_label;
        memcpy(msg + 1, x->act_vec, W * sizeof *msg);
    }
    int rc = t->bcast(t->ctx, msg, 1 + W, x->vrank, err);
    if (rc)
        return rc;
    tr->labels[len - 1] = msg[0];
    memcpy(tr->vectors + len * W, msg + 1, W * sizeof *msg);
    int o = dist_owner(msg + 1, W, x->ranks);
    uint64_t id = 0;
    if (x->me == o) {
        msg[0] = (uint32_t)dist_find(x, msg + 1, &id);
        msg[1] = (uint32_t)id, msg[2] = (uint32_t)(id >> 32);
    }
    if ((rc = t->bcast(t->ctx, msg, 3, o, err)))
        return rc;
    if (!msg[0])
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal error: the target of the action violation "
                       "is not stored at its owner, rank %d", o);
    tr->states[len] = dist_global_id(x, o, msg[1] | (uint64_t)msg[2] << 32);
    return WX_OK;
}

int dist_build_trace(struct dist *x, struct wx_error *err)
{
    const struct dist_transport *t = x->t;
    struct trace *tr = &x->res->trace;
    const int act = x->res->violation == VIOLATION_ACTION;
    const uint64_t len = (uint64_t)x->vdepth + act;
    const uint32_t W = x->words;
    uint32_t *msg;
    if (len > UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "trace longer than 2^32 - 1 steps");
    int rc = trace_alloc(x, len, &msg, err);
    if (rc)
        return rc;
    if (act && (rc = trace_action_step(x, msg, len, err)))
        goto out;
    /* back from the violation's state: its owner tells its vector, the
     * label into it and its parent's (owner, local id) */
    int r = x->vrank;
    uint64_t i = x->vlocal;
    for (uint64_t k = x->vdepth + 1; k-- > 0;) {
        if (x->me == r) {
            msg[0] = x->prank[i], msg[1] = (uint32_t)x->pid[i], msg[2] = (uint32_t)(x->pid[i] >> 32);
            msg[3] = x->plabel[i];
            memcpy(msg + 4, dist_vec(x, i, 0), W * sizeof *msg);
        }
        if ((rc = t->bcast(t->ctx, msg, 4 + W, r, err)))
            goto out;
        tr->states[k] = dist_global_id(x, r, i);
        memcpy(tr->vectors + k * W, msg + 4, W * sizeof *msg);
        if (k > 0) {
            tr->labels[k - 1] = msg[3];
            r = (int)msg[0], i = msg[1] | (uint64_t)msg[2] << 32;
            if (r < 0 || r >= x->ranks) {
                rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal error: a broken parent chain");
                goto out;
            }
        }
    }
    tr->len = (uint32_t)len;
out:
    free(msg);
    return rc;
}
