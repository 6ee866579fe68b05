/*
 * explore_seq.c -- the sequential reference explorer: a plain BFS over a
 * plain hash set, kept simple so that it can serve as the test oracle of the
 * parallel and GPU backends.  Deterministic: ids are assigned in BFS order,
 * successors of a state in successors.h's order.
 *
 * Data: the states in a vector set (hash/vecset.h: vectors by id, id order =
 * BFS order, so a level is an id range [lb, le)); with --trace, parent links
 * in arrays parallel to it.  Violation semantics are in explore_int.h.
 */
#include "explore_int.h"
#include "successors.h"
#include "../hash/vecset.h"
#include "../hash/vtable.h"

#include <stdlib.h>
#include <string.h>

/* Parent links for traces, parallel to the vector set. */
struct links {
    uint64_t cap;
    uint64_t *parent;
    uint32_t *plabel;
};

/* Finds or adds v (vecset_put's 1 added / 0 present / -1), keeping the
 * parent links as large as the set when tracing. */
static int seq_put(struct vecset *q, struct links *l, int trace, const uint32_t *v, uint64_t *id,
                   struct wx_error *err)
{
    int put = vecset_put(q, v, id, err);
    if (put > 0 && trace && q->cap > l->cap) {
        uint64_t *p = realloc(l->parent, q->cap * sizeof *p);
        if (p)
            l->parent = p;
        uint32_t *pl = p ? realloc(l->plabel, q->cap * sizeof *pl) : NULL;
        if (pl)
            l->plabel = pl;
        if (!p || !pl) {
            wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory storing %llu states",
                    (unsigned long long)q->cap);
            return -1;
        }
        l->cap = q->cap;
    }
    return put;
}

static int flush(const struct explore_options *opt, struct product_edge *buf, size_t *n, struct wx_error *err)
{
    int rc = *n ? opt->sink->emit(opt->sink->ctx, buf, *n, err) : WX_OK;
    *n = 0;
    return rc;
}

int explore_seq(const struct image *img, const struct explore_options *opt_in,
                struct explore_result *res, struct wx_error *err)
{
    const struct explore_options *opt = explore_opts(opt_in);
    const double t0 = wx_now();
    explore_result_init(res, "seq");
    res->threads = 1;
    if (img->probabilistic)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "probabilistic network: its product is an MDP, "
                       "built by explore_mdp (explorer/explore_mdp.h), not an LTS");
    int rc = image_check(img, err);
    if (rc)
        return rc;

    const int trace = opt->trace;
    /* finish_after_violation: record, go on; `settled` once the level of
     * the recorded violation has ended (explore_int.h). */
    const int finish = opt->finish_after_violation;
    int settled = 0;
    struct vecset q;
    struct links links = {0};
    struct succ_gen g;
    struct product_edge *edges = NULL;
    size_t nedges = 0;
    /* Violation found so far: an action violation waits for the end of its
     * level when deadlocks are also looked for (explore_int.h). */
    int action = 0;
    uint64_t act_src = 0, act_dst = 0;
    uint32_t act_label = 0;
    uint64_t lb = 0, le = 1; /* the level being expanded: ids [lb, le) */
    double next_progress = t0 + 1.0;
    if ((rc = succ_init(&g, img, err)))
        return rc;
    rc = vecset_init(&q, img->words,
                     vtable_states_for_budget(explore_budget(opt), img->words, explore_extra_bytes(opt)),
                     err);
    if (opt->sink)
        edges = malloc(EXPLORE_EDGE_BATCH * sizeof *edges);
    if (rc || (opt->sink && !edges)) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        goto out;
    }

    /* The initial state: the all-zero vector. */
    uint32_t *zero = calloc(q.words, 4);
    uint64_t id;
    if (!zero) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        goto out;
    }
    int put = seq_put(&q, &links, trace, zero, &id, err);
    free(zero);
    if (put < 0) {
        rc = WX_ELIMIT;
        goto out;
    }
    if (trace)
        links.parent[0] = 0, links.plabel[0] = 0;

    for (;;) {
        for (uint64_t s = lb; s < le; s++) {
            if ((s & 1023) == 0 && explore_cancelled(opt)) {
                rc = explore_interrupted(err);
                goto out;
            }
            if (opt->progress && (s & 1023) == 0 && wx_now() >= next_progress) {
                struct explore_stats st = {
                    .states = q.count, .transitions = res->transitions, .depth = res->depth,
                    .bytes = q.n_index * 8 + q.cap * (q.words * 4ull + explore_extra_bytes(opt)),
                    .seconds = wx_now() - t0,
                };
                opt->progress(opt->progress_ctx, &st);
                next_progress = wx_now() + 1.0;
            }
            if ((rc = succ_expand(&g, q.vec + s * q.words, err)))
                goto out;
            if (g.n == 0) {
                res->deadlocks++;
                if (opt->stop_on_deadlock && !settled && res->violation != VIOLATION_DEADLOCK) {
                    res->violation = VIOLATION_DEADLOCK;
                    res->violation_state = s;
                    if (!finish)
                        goto stop;
                }
                continue;
            }
            if (action && !finish)
                continue; /* only looking for a deadlock in this level */
            for (size_t i = 0; i < g.n; i++) {
                uint32_t label = succ_label(&g, i);
                uint64_t t;
                put = seq_put(&q, &links, trace, succ_vector(&g, i), &t, err);
                if (put < 0) {
                    rc = WX_ELIMIT;
                    goto out;
                }
                if (put && trace)
                    links.parent[t] = s, links.plabel[t] = label;
                res->transitions++;
                if (edges) {
                    edges[nedges++] = (struct product_edge){ .src = s, .dst = t, .label = label };
                    if (nedges == EXPLORE_EDGE_BATCH && (rc = flush(opt, edges, &nedges, err)))
                        goto out;
                }
                if (opt->action_match && opt->action_match[label] && !action && !settled) {
                    action = 1, act_src = s, act_dst = t, act_label = label;
                    if (!finish)
                        break;
                }
            }
            if (action && !opt->stop_on_deadlock && !finish)
                break; /* no deadlock can pre-empt it: stop now */
        }
        if (action && res->violation == VIOLATION_NONE) {
            res->violation = VIOLATION_ACTION;
            res->violation_state = act_src;
        }
        if (res->violation != VIOLATION_NONE && !finish)
            goto stop;
        settled = res->violation != VIOLATION_NONE;
        if (q.count == le) {
            res->complete = true;
            break;
        }
        lb = le, le = q.count;
        res->depth++;
    }
stop:
    if (res->violation && trace)
        rc = explore_build_trace(res, q.vec, q.words, links.parent, links.plabel, res->violation_state,
                                 res->violation == VIOLATION_ACTION, act_label, act_dst, err);
out:
    if (edges) {
        struct wx_error e2;
        int rc2 = flush(opt, edges, &nedges, rc ? &e2 : err);
        if (!rc)
            rc = rc2;
    }
    if (q.count > le)
        res->depth++; /* states of the next level exist */
    res->states = q.count;
    res->bytes = q.n_index * 8 + q.count * (q.words * 4ull + explore_extra_bytes(opt));
    if (rc)
        res->complete = false;
    if (opt->keep_vectors && q.vec) {
        uint32_t *v = realloc(q.vec, (q.count ? q.count : 1) * q.words * 4);
        res->vectors = v ? v : q.vec;
        q.vec = NULL;
    }
    vecset_free(&q);
    free(links.parent);
    free(links.plabel);
    free(edges);
    succ_free(&g);
    res->seconds = wx_now() - t0;
    return rc;
}
