/*
 * explore_seq.c -- the sequential reference explorer: a plain BFS over a
 * plain hash set, kept simple so that it can serve as the test oracle of the
 * parallel and GPU backends.  Deterministic: ids are assigned in BFS order,
 * successors of a state in successors.h's order.
 *
 * Data: the states in a vector set (hash/vecset.h: vectors by id, id order =
 * BFS order, so a level is an id range [lb, le)), or with --store tree in a
 * tree store (hash/treestore.h: the same ids, vectors unfolded when
 * expanded); with --trace, parent links in arrays parallel to it.
 * Violation semantics are in explore_int.h.
 */
#include "explore_int.h"
#include "por.h"
#include "successors.h"
#include "../hash/treestore.h"
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

/* Makes the parent links hold ids [0, id]: doubling. */
static int links_reserve(struct links *l, uint64_t id, struct wx_error *err)
{
    if (id < l->cap)
        return WX_OK;
    uint64_t cap = l->cap ? l->cap : 1024;
    while (cap <= id)
        cap *= 2;
    uint64_t *p = realloc(l->parent, cap * sizeof *p);
    if (p)
        l->parent = p;
    uint32_t *pl = p ? realloc(l->plabel, cap * sizeof *pl) : NULL;
    if (pl)
        l->plabel = pl;
    if (!p || !pl)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory storing %llu states",
                       (unsigned long long)cap);
    l->cap = cap;
    return WX_OK;
}

static int flush(const struct explore_options *opt, struct product_edge *buf, size_t *n, struct wx_error *err)
{
    int rc = *n ? opt->sink->emit(opt->sink->ctx, buf, *n, err) : WX_OK;
    *n = 0;
    return rc;
}

/* One sequential exploration: what its steps share. */
struct seq {
    const struct explore_options *opt;
    struct explore_result *res;
    double t0, next_progress;
    int trace;
    /* finish_after_violation: record, go on; `settled` once the level of
     * the recorded violation has ended (explore_int.h). */
    int finish, settled;
    struct vecset q;              /* the states, unless tree */
    struct treestore *tree;       /* --store tree: the states */
    uint32_t *vbuf;               /* tree: the vector being expanded */
    uint32_t words;
    struct links links;
    struct succ_gen g;
    bool por;                     /* options.por: p prepared */
    struct por p;
    struct product_edge *edges;   /* a batch for opt->sink; NULL: none */
    size_t nedges;
    /* Violation found so far: an action violation waits for the end of its
     * level when deadlocks are also looked for (explore_int.h). */
    int action;
    uint64_t act_src, act_dst;
    uint32_t act_label;
    uint64_t lb, le;              /* the level being expanded: ids [lb, le) */
};

/* What expanding one state asks of its level. */
enum seq_step {
    SEQ_NEXT,       /* go on with the next state */
    SEQ_STOP,       /* a deadlock ends the exploration */
    SEQ_END_LEVEL   /* an action violation ends the level */
};

/* Finds or adds v (vecset_put's 1 added / 0 present / -1), keeping the
 * parent links as large as the store when tracing. */
static int seq_put(struct seq *x, const uint32_t *v, uint64_t *id, struct wx_error *err)
{
    int put = x->tree ? treestore_put(x->tree, v, id, err) : vecset_put(&x->q, v, id, err);
    if (put > 0 && x->trace && links_reserve(&x->links, *id, err))
        return -1;
    return put;
}

static uint64_t seq_count(const struct seq *x)
{
    return x->tree ? treestore_count(x->tree) : x->q.count;
}

/* Bytes of the state storage (count states; for flat, the capacity
 * allocated while running) and the trace links. */
static uint64_t seq_bytes(const struct seq *x, bool running)
{
    const uint64_t links = seq_count(x) * explore_extra_bytes(x->opt);
    if (x->tree)
        return treestore_bytes(x->tree) + links;
    return x->q.n_index * 8 + (running ? x->q.cap : x->q.count) * x->q.words * 4ull + links;
}

/* The vector of state s (valid until the next call). */
static const uint32_t *seq_vector(struct seq *x, uint64_t s)
{
    if (!x->tree)
        return x->q.vec + s * x->words;
    treestore_get(x->tree, s, x->vbuf);
    return x->vbuf;
}

/* The store (flat or tree, the budget split by treestore_plan). */
static int seq_store(struct seq *x, const struct image *img, struct wx_error *err)
{
    const struct explore_options *opt = x->opt;
    const uint64_t extra = explore_extra_bytes(opt);
    if (explore_store_pick(opt, img) != STORE_TREE)
        return vecset_init(&x->q, img->words, vtable_states_for_budget(explore_budget(opt), img->words, extra),
                           err) ? WX_ELIMIT : WX_OK;
    uint64_t max_states, max_nodes;
    treestore_plan(explore_budget(opt), img->words, extra, &max_states, &max_nodes);
    if (max_states == 0)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "memory budget too small for a single state");
    x->res->store = "tree";
    x->vbuf = malloc(img->words * sizeof *x->vbuf);
    if (!x->vbuf)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    int rc = treestore_new(&x->tree, img->words, max_states, max_nodes, err);
    if (rc == WX_OK)
        treestore_set_budget(x->tree, explore_budget(opt), extra);
    return rc ? rc : explore_tree_shape(img, x->tree, err);
}

/* The store, the edge batch and the initial state: the all-zero vector. */
static int seq_start(struct seq *x, const struct image *img, struct wx_error *err)
{
    const struct explore_options *opt = x->opt;
    int rc = seq_store(x, img, err);
    if (rc)
        return rc;
    if (opt->sink)
        x->edges = malloc(EXPLORE_EDGE_BATCH * sizeof *x->edges);
    if (opt->sink && !x->edges)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    uint32_t *zero = calloc(x->words, 4);
    uint64_t id;
    if (!zero)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    int put = seq_put(x, zero, &id, err);
    free(zero);
    if (put < 0)
        return WX_ELIMIT;
    if (x->trace)
        x->links.parent[0] = 0, x->links.plabel[0] = 0;
    return WX_OK;
}

static void seq_progress(struct seq *x)
{
    const struct explore_options *opt = x->opt;
    struct explore_stats st = {
        .states = seq_count(x), .transitions = x->res->transitions, .depth = x->res->depth,
        .bytes = seq_bytes(x, true),
        .seconds = wx_now() - x->t0,
    };
    opt->progress(opt->progress_ctx, &st);
    x->next_progress = wx_now() + 1.0;
}

/* The successors of state s (g holds them): stored, counted, sent to the
 * sink; the first matching --action transition recorded. */
static int seq_successors(struct seq *x, uint64_t s, enum seq_step *step, struct wx_error *err)
{
    const struct explore_options *opt = x->opt;
    int rc;
    for (size_t i = 0; i < x->g.n; i++) {
        uint32_t label = succ_label(&x->g, i);
        uint64_t t;
        int put = seq_put(x, succ_vector(&x->g, i), &t, err);
        if (put < 0)
            return WX_ELIMIT;
        if (put && x->trace)
            x->links.parent[t] = s, x->links.plabel[t] = label;
        x->res->transitions++;
        if (x->edges) {
            x->edges[x->nedges++] = (struct product_edge){ .src = s, .dst = t, .label = label };
            if (x->nedges == EXPLORE_EDGE_BATCH && (rc = flush(opt, x->edges, &x->nedges, err)))
                return rc;
        }
        if (opt->action_match && opt->action_match[label] && !x->action && !x->settled) {
            x->action = 1, x->act_src = s, x->act_dst = t, x->act_label = label;
            if (!x->finish)
                break;
        }
    }
    if (x->action && !opt->stop_on_deadlock && !x->finish)
        *step = SEQ_END_LEVEL; /* no deadlock can pre-empt it: stop now */
    return WX_OK;
}

/* --por: cuts g to the reduced set of state s, or leaves it whole where
 * the proviso (por.h; only with visible labels) asks: when no target of
 * the reduced set is new, i.e. every one is in levels 0 .. d (ids below
 * le). */
static int seq_reduce(struct seq *x, uint64_t s, struct wx_error *err)
{
    size_t r;
    int rc = por_reduce(&x->p, &x->g, x->q.vec + s * x->q.words, &r, err);
    if (rc || r == x->g.n)
        return rc;
    if (!x->p.proviso) {
        x->g.n = r;
        return WX_OK;
    }
    for (size_t i = 0; i < r; i++) {
        uint64_t t;
        if (!vecset_find(&x->q, succ_vector(&x->g, i), &t) || t >= x->le) {
            x->g.n = r;
            return WX_OK;
        }
    }
    return WX_OK;
}

/* Expands state s. */
static int seq_state(struct seq *x, uint64_t s, enum seq_step *step, struct wx_error *err)
{
    const struct explore_options *opt = x->opt;
    struct explore_result *res = x->res;
    int rc;
    *step = SEQ_NEXT;
    if ((s & 1023) == 0 && explore_cancelled(opt))
        return explore_interrupted(err);
    if (opt->progress && (s & 1023) == 0 && wx_now() >= x->next_progress)
        seq_progress(x);
    if ((rc = succ_expand(&x->g, seq_vector(x, s), err)))
        return rc;
    if (x->g.n == 0) {
        res->deadlocks++;
        if (opt->stop_on_deadlock && !x->settled && res->violation != VIOLATION_DEADLOCK) {
            res->violation = VIOLATION_DEADLOCK;
            res->violation_state = s;
            if (!x->finish)
                *step = SEQ_STOP;
        }
        return WX_OK;
    }
    if (x->action && !x->finish)
        return WX_OK; /* only looking for a deadlock in this level */
    if (x->por && (rc = seq_reduce(x, s, err)))
        return rc;
    return seq_successors(x, s, step, err);
}

/* BFS level by level until the state space is complete or a violation
 * ends it; then the violation's trace. */
static int seq_levels(struct seq *x, struct wx_error *err)
{
    struct explore_result *res = x->res;
    for (;;) {
        enum seq_step step = SEQ_NEXT;
        for (uint64_t s = x->lb; s < x->le && step == SEQ_NEXT; s++) {
            int rc = seq_state(x, s, &step, err);
            if (rc)
                return rc;
        }
        if (step == SEQ_STOP)
            break;
        if (x->action && res->violation == VIOLATION_NONE) {
            res->violation = VIOLATION_ACTION;
            res->violation_state = x->act_src;
        }
        if (res->violation != VIOLATION_NONE && !x->finish)
            break;
        x->settled = res->violation != VIOLATION_NONE;
        if (seq_count(x) == x->le) {
            res->complete = true;
            break;
        }
        x->lb = x->le, x->le = seq_count(x);
        res->depth++;
    }
    const struct explore_vectors v = { .flat = x->tree ? NULL : x->q.vec, .tree = x->tree, .words = x->words };
    if (res->violation && x->trace)
        return explore_build_trace(res, &v, x->links.parent, x->links.plabel,
                                   res->violation_state, res->violation == VIOLATION_ACTION, x->act_label,
                                   x->act_dst, err);
    return WX_OK;
}

/* The last edges to the sink, the result's counts, the vectors when kept;
 * frees the rest.  rc: the exploration's status (returned, or the
 * sink's failure). */
static int seq_finish(struct seq *x, int rc, struct wx_error *err)
{
    const struct explore_options *opt = x->opt;
    struct explore_result *res = x->res;
    if (x->edges) {
        struct wx_error e2;
        int rc2 = flush(opt, x->edges, &x->nedges, rc ? &e2 : err);
        if (!rc)
            rc = rc2;
    }
    if (seq_count(x) > x->le)
        res->depth++; /* states of the next level exist */
    res->states = seq_count(x);
    res->bytes = seq_bytes(x, false);
    if (rc)
        res->complete = false;
    if (opt->keep_vectors && x->tree) {
        struct wx_error e2;
        int rc2 = explore_unfold_all(res, x->tree, res->states, rc ? &e2 : err);
        if (!rc)
            rc = rc2;
    } else if (opt->keep_vectors && x->q.vec) {
        uint32_t *v = realloc(x->q.vec, (x->q.count ? x->q.count : 1) * x->q.words * 4);
        res->vectors = v ? v : x->q.vec;
        x->q.vec = NULL;
    }
    vecset_free(&x->q);
    treestore_free(x->tree);
    free(x->vbuf);
    free(x->links.parent);
    free(x->links.plabel);
    free(x->edges);
    succ_free(&x->g);
    if (x->por)
        por_free(&x->p);
    res->seconds = wx_now() - x->t0;
    return rc;
}

int explore_seq(const struct image *img, const struct explore_options *opt_in,
                struct explore_result *res, struct wx_error *err)
{
    struct seq x;
    memset(&x, 0, sizeof x);
    x.opt = explore_opts(opt_in);
    x.res = res;
    x.t0 = wx_now();
    explore_result_init(res, "seq");
    res->store = "flat";
    res->threads = 1;
    if (img->probabilistic)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "probabilistic network: its product is an MDP, "
                       "built by explore_mdp (explorer/explore_mdp.h), not an LTS");
    int rc = image_check(img, err);
    if (rc)
        return rc;
    x.trace = x.opt->trace;
    x.words = img->words;
    x.finish = x.opt->finish_after_violation;
    x.lb = 0, x.le = 1;
    x.next_progress = x.t0 + 1.0;
    if ((rc = succ_init(&x.g, img, err)))
        return rc;
    if (x.opt->por && (rc = por_init(&x.p, img, x.opt->action_match, err))) {
        succ_free(&x.g);
        return rc;
    }
    x.por = x.opt->por;
    rc = seq_start(&x, img, err);
    if (rc == WX_OK)
        rc = seq_levels(&x, err);
    return seq_finish(&x, rc, err);
}
