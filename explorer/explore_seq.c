/*
 * explore_seq.c -- the sequential reference explorer: a plain BFS over a
 * plain hash set, kept simple so that it can serve as the test oracle of the
 * parallel and GPU backends.  Deterministic: ids are assigned in BFS order,
 * successors of a state in successors.h's order.
 *
 * Data: `store` holds the vectors by id (id order = BFS order, so a level is
 * an id range [lb, le)); `set` is an open-addressing array of id + 1 (0 =
 * empty) with linear probing, doubled at half load.  Violation semantics are
 * in explore_int.h.
 */
#include "explore_int.h"
#include "successors.h"
#include "../hash/vtable.h"

#include <stdlib.h>
#include <string.h>

struct seq {
    uint32_t words;
    uint64_t max_states;     /* from the memory budget */
    uint64_t count, cap;     /* states stored; capacity of the arrays below */
    uint32_t *store;         /* cap * words */
    uint64_t *parent;        /* cap, when tracing */
    uint32_t *plabel;        /* cap, when tracing */
    uint64_t *set;           /* nset slots: id + 1, 0 = empty */
    uint64_t nset;           /* power of two */
};

/* FNV-1a over the vector's words, then a final mix: independent of the
 * parallel table's hash on purpose. */
static uint64_t seq_hash(const uint32_t *v, uint32_t words)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < words; i++) {
        h = (h ^ v[i]) * 0x100000001b3ull;
    }
    h ^= h >> 31;
    h *= 0x7fb5d329728ea185ull;
    h ^= h >> 27;
    return h;
}

static uint64_t *seq_slot(struct seq *q, const uint32_t *v)
{
    uint64_t mask = q->nset - 1, i = seq_hash(v, q->words) & mask;
    while (q->set[i] && memcmp(q->store + (q->set[i] - 1) * q->words, v, q->words * 4u) != 0)
        i = (i + 1) & mask;
    return &q->set[i];
}

static int seq_grow_set(struct seq *q, struct wx_error *err)
{
    uint64_t *old = q->set, n = q->nset;
    q->nset = n * 2;
    q->set = calloc(q->nset, sizeof *q->set);
    if (!q->set) {
        q->set = old, q->nset = n;
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory growing the state set");
    }
    for (uint64_t i = 0; i < n; i++)
        if (old[i])
            *seq_slot(q, q->store + (old[i] - 1) * q->words) = old[i];
    free(old);
    return WX_OK;
}

static int seq_grow_arrays(struct seq *q, int trace, struct wx_error *err)
{
    uint64_t cap = q->cap * 2;
    if (cap > q->max_states)
        cap = q->max_states;
    uint32_t *s = realloc(q->store, cap * q->words * 4);
    if (s)
        q->store = s;
    uint64_t *p = trace && s ? realloc(q->parent, cap * sizeof *p) : q->parent;
    if (p)
        q->parent = p;
    uint32_t *l = trace && s && p ? realloc(q->plabel, cap * sizeof *l) : q->plabel;
    if (l)
        q->plabel = l;
    if (!s || (trace && (!p || !l)))
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory storing %llu states",
                       (unsigned long long)cap);
    q->cap = cap;
    return WX_OK;
}

/* Finds or adds v.  Returns 1 when added, 0 when present, -1 on a limit
 * (err filled). *id gets its id. */
static int seq_put(struct seq *q, const uint32_t *v, int trace, uint64_t *id, struct wx_error *err)
{
    uint64_t *slot = seq_slot(q, v);
    if (*slot) {
        *id = *slot - 1;
        return 0;
    }
    if (q->count == q->max_states) {
        wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                "memory budget exhausted after %llu states; raise it (--memory)",
                (unsigned long long)q->count);
        return -1;
    }
    if (q->count == q->cap && seq_grow_arrays(q, trace, err))
        return -1;
    memcpy(q->store + q->count * q->words, v, q->words * 4u);
    *slot = q->count + 1;
    *id = q->count++;
    if (q->count * 2 > q->nset && seq_grow_set(q, err))
        return -1;
    return 1;
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
    const double t0 = explore_now();
    explore_result_init(res, "seq");
    res->threads = 1;
    if (img->probabilistic)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "probabilistic network: its product is an MDP, "
                       "built by explore_mdp (explorer/explore_mdp.h), not an LTS");
    int rc = succ_check_image(img, err);
    if (rc)
        return rc;

    const int trace = opt->trace;
    struct seq q = { .words = img->words };
    q.max_states = vtable_states_for_budget(explore_budget(opt), img->words, explore_extra_bytes(opt));
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
    q.cap = 0;
    q.nset = 1024;
    q.set = calloc(q.nset, sizeof *q.set);
    if (opt->sink)
        edges = malloc(EXPLORE_EDGE_BATCH * sizeof *edges);
    if (!q.set || (opt->sink && !edges)) {
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
        goto out;
    }
    q.cap = 512 < q.max_states ? 512 : q.max_states;
    q.store = malloc((q.cap ? q.cap : 1) * q.words * 4);
    if (trace) {
        q.parent = malloc((q.cap ? q.cap : 1) * sizeof *q.parent);
        q.plabel = malloc((q.cap ? q.cap : 1) * sizeof *q.plabel);
    }
    if (!q.store || (trace && (!q.parent || !q.plabel))) {
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
    int put = seq_put(&q, zero, trace, &id, err);
    free(zero);
    if (put < 0) {
        rc = WX_ELIMIT;
        goto out;
    }
    if (trace)
        q.parent[0] = 0, q.plabel[0] = 0;

    for (;;) {
        for (uint64_t s = lb; s < le; s++) {
            if (opt->progress && (s & 1023) == 0 && explore_now() >= next_progress) {
                struct explore_stats st = {
                    .states = q.count, .transitions = res->transitions, .depth = res->depth,
                    .bytes = q.nset * 8 + q.cap * (q.words * 4ull + explore_extra_bytes(opt)),
                    .seconds = explore_now() - t0,
                };
                opt->progress(opt->progress_ctx, &st);
                next_progress = explore_now() + 1.0;
            }
            if ((rc = succ_expand(&g, q.store + s * q.words, err)))
                goto out;
            if (g.n == 0) {
                res->deadlocks++;
                if (opt->stop_on_deadlock) {
                    res->violation = VIOLATION_DEADLOCK;
                    res->violation_state = s;
                    goto stop;
                }
                continue;
            }
            if (action)
                continue; /* only looking for a deadlock in this level */
            for (size_t i = 0; i < g.n; i++) {
                uint32_t label = succ_label(&g, i);
                uint64_t t;
                put = seq_put(&q, succ_vector(&g, i), trace, &t, err);
                if (put < 0) {
                    rc = WX_ELIMIT;
                    goto out;
                }
                if (put && trace)
                    q.parent[t] = s, q.plabel[t] = label;
                res->transitions++;
                if (edges) {
                    edges[nedges++] = (struct product_edge){ .src = s, .dst = t, .label = label };
                    if (nedges == EXPLORE_EDGE_BATCH && (rc = flush(opt, edges, &nedges, err)))
                        goto out;
                }
                if (opt->action_match && opt->action_match[label]) {
                    action = 1, act_src = s, act_dst = t, act_label = label;
                    break;
                }
            }
            if (action && !opt->stop_on_deadlock)
                break; /* no deadlock can pre-empt it: stop now */
        }
        if (action) {
            res->violation = VIOLATION_ACTION;
            res->violation_state = act_src;
            goto stop;
        }
        if (q.count == le) {
            res->complete = true;
            break;
        }
        lb = le, le = q.count;
        res->depth++;
    }
stop:
    if (res->violation && trace)
        rc = explore_build_trace(res, q.store, q.words, q.parent, q.plabel, res->violation_state,
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
    res->bytes = q.nset * 8 + q.count * (q.words * 4ull + explore_extra_bytes(opt));
    if (rc)
        res->complete = false;
    if (opt->keep_vectors && q.store) {
        uint32_t *v = realloc(q.store, (q.count ? q.count : 1) * q.words * 4);
        res->vectors = v ? v : q.store;
        q.store = NULL;
    }
    free(q.store);
    free(q.parent);
    free(q.plabel);
    free(q.set);
    free(edges);
    succ_free(&g);
    res->seconds = explore_now() - t0;
    return rc;
}
