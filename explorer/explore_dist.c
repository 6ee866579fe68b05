/*
 * explore_dist.c -- the distributed explorer's levels, rounds and
 * exchanges (the protocol: explore_dist.h; global ids and traces:
 * dist_trace.c).
 *
 * One round, on every rank:
 *   1. expand up to round_states (DIST_ROUND_STATES) frontier states: own successors go to
 *      the local table, the others to the send buffer of their owner;
 *   2. alltoall of the record counts;
 *   3. all-reduce (max) of the flags {error, deadlock, action, cancel}: a
 *      failure anywhere (including a receive buffer that cannot be
 *      allocated) makes every rank return here, before the records move;
 *   4. alltoallv of the records, which the owners add to their tables.
 * A level ends with an allgather of each rank's level size, first
 * violations and running totals; failures while adding the last round's
 * records travel in it too.
 */
#include "dist_int.h"
#include "../hash/vtable.h"
#include "../util/arith.h"
#include "../util/config.h"

#include <stdlib.h>
#include <string.h>

int dist_owner(const uint32_t *vec, uint32_t words, int ranks)
{
    uint64_t h = vtable_hash_inline(vec, words);
    return (int)(((h >> 32) * (uint64_t)ranks) >> 32);
}

static int oom(struct wx_error *err)
{
    return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
}

/* Records this rank's own failure (the first one); it stops expanding. */
static void fail_local(struct dist *x, int rc)
{
    if (!x->local_rc)
        x->local_rc = rc;
    x->local_stop = true;
}

/* The status every rank returns once a collective said that some rank
 * failed with `code`: its own error, or a note naming the failure. */
int dist_failed(struct dist *x, int code, struct wx_error *err)
{
    if (x->local_rc) {
        *err = x->err_local;
        return x->local_rc;
    }
    x->st->peer_failed = true;
    return wx_fail(err, code, NULL, 0, 0, "another rank failed (its message is on its standard error)");
}

uint64_t dist_count(const struct dist *x)
{
    return x->tree ? treestore_count(x->tree) : x->q.count;
}

const uint32_t *dist_vec(struct dist *x, uint64_t id, int slot)
{
    if (!x->tree)
        return x->q.vec + id * x->words;
    uint32_t *v = x->vbuf + (size_t)slot * x->words;
    treestore_get(x->tree, id, v);
    return v;
}

int dist_find(struct dist *x, const uint32_t *v, uint64_t *id)
{
    return x->tree ? treestore_find(x->tree, v, id) == VTABLE_FOUND : vecset_find(&x->q, v, id);
}

/* Finds or adds v (its local id in *id); a new state gets the parent link
 * (prank, pid, label) when tracing.  vecset_put's (treestore_put's) 1 / 0 /
 * -1 (x->err_local filled). */
static int dist_put(struct dist *x, const uint32_t *v, uint32_t prank, uint64_t pid, uint32_t label,
                    uint64_t *idp)
{
    uint64_t id;
    int put = x->tree ? treestore_put(x->tree, v, &id, &x->err_local) : vecset_put(&x->q, v, &id, &x->err_local);
    *idp = id;
    if (put <= 0 || !x->trace)
        return put;
    const uint64_t cap = x->tree ? (id < x->links_cap ? x->links_cap : 2 * id + 64) : x->q.cap;
    if (cap > x->links_cap) {
        uint64_t n = cap;
        void **const arrays[] = {(void **)&x->prank, (void **)&x->pid, (void **)&x->plabel};
        const size_t sizes[] = {sizeof *x->prank, sizeof *x->pid, sizeof *x->plabel};
        if (wx_resize_all(n, 3, arrays, sizes) != 0) {
            wx_fail(&x->err_local, WX_ELIMIT, NULL, 0, 0, "out of memory storing %llu states",
                    (unsigned long long)n);
            return -1;
        }
        x->links_cap = n;
    }
    x->prank[id] = prank, x->pid[id] = pid, x->plabel[id] = label;
    return 1;
}

/* Room for one more record in b; NULL when out of memory. */
static uint32_t *buf_push(struct dist_buf *b, uint32_t stride)
{
    if (b->n == b->cap) {
        uint64_t cap = b->cap ? 2 * b->cap : 256;
        uint32_t *w = realloc(b->w, cap * stride * sizeof *w);
        if (!w)
            return NULL;
        b->w = w, b->cap = cap;
    }
    return b->w + b->n++ * stride;
}

/* The successors of local state s (in x->g): counted, stored here or
 * batched for their owners; the first --action match recorded. */
static int dist_successors(struct dist *x, uint64_t s)
{
    const struct explore_options *opt = x->opt;
    for (size_t i = 0; i < x->g.n; i++) {
        uint32_t label = succ_label(&x->g, i);
        const uint32_t *v = succ_vector(&x->g, i);
        int o = dist_owner(v, x->words, x->ranks);
        uint64_t id = UINT64_MAX;
        x->transitions++;
        if (o == x->me && dist_put(x, v, (uint32_t)x->me, s, label, &id) < 0)
            return WX_ELIMIT;
        if (x->edges && dist_edge_add(x, label, o, id))
            return WX_ELIMIT;
        if (o != x->me) {
            uint32_t *r = buf_push(&x->out[o], x->stride);
            if (!r)
                return oom(&x->err_local);
            memcpy(r, v, x->words * sizeof *r);
            if (x->trace)
                r[x->words] = (uint32_t)s, r[x->words + 1] = (uint32_t)(s >> 32), r[x->words + 2] = label;
        }
        if (opt->action_match && opt->action_match[label] && !x->act1 && !x->settled) {
            x->act1 = s + 1, x->act_label = label;
            memcpy(x->act_vec, v, x->words * sizeof *v);
            if (!x->finish)
                break;
        }
    }
    if (x->act1 && !x->finish) {
        /* a deadlock of this level would still pre-empt it (explore_int.h) */
        if (opt->stop_on_deadlock)
            x->scan_only = true;
        else
            x->local_stop = true;
    }
    return WX_OK;
}

/* Expands local state s. */
static int dist_state(struct dist *x, uint64_t s)
{
    int rc = x->edges ? dist_edge_state(x, s) : WX_OK;
    if (rc == WX_OK)
        rc = succ_expand(&x->g, dist_vec(x, s, 0), &x->err_local);
    size_t r = x->g.n;
    if (rc == WX_OK && x->por)
        rc = por_reduce(&x->p, &x->g, dist_vec(x, s, 0), &r, &x->err_local);
    if (rc)
        return rc;
    x->g.n = r;
    if (x->g.n == 0) {
        x->deadlocks++;
        if (x->opt->stop_on_deadlock && !x->settled && !x->dead1) {
            x->dead1 = s + 1;
            if (!x->finish)
                x->local_stop = true;
        }
        return WX_OK;
    }
    return x->scan_only ? WX_OK : dist_successors(x, s);
}

/* Step 1 of a round; true when the caller's cancel flag was seen. */
static bool dist_expand(struct dist *x)
{
    uint64_t end = x->le - x->next_s > x->round_states ? x->next_s + x->round_states : x->le;
    for (; x->next_s < end && !x->local_stop; x->next_s++) {
        if ((x->next_s & 1023) == 0 && explore_cancelled(x->opt))
            return true;
        int rc = dist_state(x, x->next_s);
        if (rc)
            fail_local(x, rc);
    }
    return false;
}

/* Packs the send buffers by destination; counts and displacements in
 * records.  Out of memory: a local failure, and nothing is sent. */
static void dist_pack(struct dist *x)
{
    uint64_t total = 0;
    for (int r = 0; r < x->ranks; r++)
        x->sdispl[r] = total, x->scount[r] = x->local_rc ? 0 : x->out[r].n, total += x->scount[r];
    if (total > DIST_MAX_RECORDS) {
        wx_fail(&x->err_local, WX_ELIMIT, NULL, 0, 0, "a round sends more than %llu records",
                DIST_MAX_RECORDS);
        fail_local(x, WX_ELIMIT);
        memset(x->scount, 0, x->ranks * sizeof *x->scount);
        return;
    }
    if (total * x->stride > x->send_cap) {
        uint32_t *b = realloc(x->sendbuf, total * x->stride * sizeof *b);
        if (!b) {
            oom(&x->err_local);
            fail_local(x, WX_ELIMIT);
            memset(x->scount, 0, x->ranks * sizeof *x->scount);
            return;
        }
        x->sendbuf = b, x->send_cap = total * x->stride;
    }
    if (x->edges)
        dist_edge_pack(x, total);
    for (int r = 0; r < x->ranks; r++) {
        if (x->scount[r])
            memcpy(x->sendbuf + x->sdispl[r] * x->stride, x->out[r].w, x->scount[r] * x->stride * 4);
        if (r != x->me)
            x->sent_bytes += x->scount[r] * x->stride * 4;
        x->out[r].n = 0;
    }
}

/* The receive buffer for the counts in x->rcount; a local failure when it
 * cannot be had. */
static void dist_recv_space(struct dist *x)
{
    uint64_t total = 0;
    for (int r = 0; r < x->ranks; r++)
        x->rdispl[r] = total, total += x->rcount[r];
    if (total > DIST_MAX_RECORDS) {
        wx_fail(&x->err_local, WX_ELIMIT, NULL, 0, 0, "a round receives more than %llu records",
                DIST_MAX_RECORDS);
        fail_local(x, WX_ELIMIT);
        return;
    }
    if (x->edges)
        dist_edge_recv_space(x, total);
    if (total * x->stride <= x->recv_cap)
        return;
    uint32_t *b = realloc(x->recvbuf, total * x->stride * sizeof *b);
    if (!b) {
        oom(&x->err_local);
        fail_local(x, WX_ELIMIT);
        return;
    }
    x->recvbuf = b, x->recv_cap = total * x->stride;
}

/* Step 4's second half: the received records into the local table. */
static void dist_absorb(struct dist *x)
{
    for (int r = 0; r < x->ranks && !x->local_rc; r++) {
        const uint32_t *rec = x->recvbuf + x->rdispl[r] * x->stride;
        for (uint64_t k = 0; k < x->rcount[r]; k++, rec += x->stride) {
            uint64_t pid = x->trace ? rec[x->words] | (uint64_t)rec[x->words + 1] << 32 : 0;
            uint32_t label = x->trace ? rec[x->words + 2] : 0;
            uint64_t id;
            if (dist_put(x, rec, (uint32_t)r, pid, label, &id) < 0) {
                fail_local(x, WX_ELIMIT);
                return;
            }
            if (x->edges)
                x->rids[x->rdispl[r] + k] = id;
        }
    }
}

/* One round (steps 1-4); *stop when the level ends here for every rank. */
static int dist_round(struct dist *x, bool *stop, struct wx_error *err)
{
    const struct dist_transport *t = x->t;
    bool cancel = dist_expand(x);
    dist_pack(x);
    int rc = t->alltoall(t->ctx, x->scount, x->rcount, err);
    if (rc)
        return rc;
    dist_recv_space(x);
    uint64_t f[DF_FIELDS] = { (uint64_t)x->local_rc, x->dead1 != 0, x->act1 != 0, cancel };
    if ((rc = t->allreduce(t->ctx, f, DF_FIELDS, DIST_MAX, err)))
        return rc;
    if (f[DF_ERROR])
        return dist_failed(x, (int)f[DF_ERROR], err);
    if (f[DF_CANCEL])
        return explore_interrupted(err);
    if ((rc = t->alltoallv(t->ctx, x->sendbuf, x->scount, x->sdispl, x->recvbuf, x->rcount, x->rdispl,
                           x->stride, err)))
        return rc;
    dist_absorb(x);
    if (x->edges && (rc = dist_edge_reply(x, err)))
        return rc;
    x->st->rounds++;
    if (!x->finish && (f[DF_DEAD] || (f[DF_ACT] && !x->opt->stop_on_deadlock)))
        *stop = true;
    else if (!x->finish && f[DF_ACT])
        x->scan_only = true;
    return WX_OK;
}

/* Room for the row of the next level (before the rounds, so that a
 * failure travels in a round's flags). */
static void dist_level_room(struct dist *x)
{
    if (x->nlev < x->lev_cap)
        return;
    uint64_t n = 2ull * x->lev_cap * x->ranks;
    uint64_t *a = realloc(x->lstart, n * sizeof *a);
    if (a)
        x->lstart = a;
    uint64_t *b = a ? realloc(x->lsize, n * sizeof *b) : NULL;
    if (b)
        x->lsize = b;
    uint64_t *c = b ? realloc(x->gstart, n * sizeof *c) : NULL;
    if (c)
        x->gstart = c, x->lev_cap *= 2;
    else
        oom(&x->err_local), fail_local(x, WX_ELIMIT);
}

/* The lowest rank's first violation of the level, deadlocks first. */
static void dist_choose_violation(struct dist *x)
{
    struct explore_result *res = x->res;
    for (int pass = 0; pass < 2 && res->violation == VIOLATION_NONE; pass++)
        for (int r = 0; r < x->ranks; r++) {
            uint64_t v1 = x->gathered[r * DG_FIELDS + (pass ? DG_ACT : DG_DEAD)];
            if (v1) {
                res->violation = pass ? VIOLATION_ACTION : VIOLATION_DEADLOCK;
                x->vrank = r, x->vlocal = v1 - 1, x->vdepth = res->depth;
                res->violation_state = dist_global_id(x, r, x->vlocal);
                break;
            }
        }
}

/* The level-end allgather: the next level's row, the running totals and
 * the level's violation.  *next gets the next level's global size. */
static int dist_level_end(struct dist *x, uint64_t *next, struct wx_error *err)
{
    const struct dist_transport *t = x->t;
    struct explore_result *res = x->res;
    uint64_t extra = x->trace ? 16 : 0;
    uint64_t mine[DG_FIELDS] = {
        [DG_NEXT] = dist_count(x) - x->le, [DG_DEAD] = x->dead1, [DG_ACT] = x->act1,
        [DG_TRANS] = x->transitions, [DG_DEADLOCKS] = x->deadlocks,
        [DG_BYTES] = x->tree ? treestore_bytes(x->tree) + dist_count(x) * extra
                             : x->q.n_index * 8 + x->q.count * (x->words * 4ull + extra),
        [DG_SENT] = x->sent_bytes, [DG_ERROR] = (uint64_t)x->local_rc,
    };
    int rc = t->allgather(t->ctx, mine, x->gathered, DG_FIELDS, err);
    if (rc)
        return rc;
    uint64_t sizes[x->ranks], fail = 0;
    memset(sizes, 0, sizeof sizes);
    res->transitions = res->deadlocks = res->bytes = 0;
    x->st->exchange_bytes = 0;
    for (int r = 0; r < x->ranks; r++) {
        const uint64_t *g = x->gathered + r * DG_FIELDS;
        sizes[r] = g[DG_NEXT];
        res->transitions += g[DG_TRANS], res->deadlocks += g[DG_DEADLOCKS], res->bytes += g[DG_BYTES];
        x->st->exchange_bytes += g[DG_SENT];
        fail = g[DG_ERROR] > fail ? g[DG_ERROR] : fail;
    }
    if (fail)
        return dist_failed(x, (int)fail, err);
    dist_add_level(x, sizes);
    *next = 0;
    for (int r = 0; r < x->ranks; r++)
        *next += sizes[r];
    res->states += *next;
    if (!x->settled)
        dist_choose_violation(x);
    return WX_OK;
}

static void dist_progress(struct dist *x)
{
    const struct explore_options *opt = x->opt;
    if (!opt->progress || wx_now() < x->next_progress)
        return;
    struct explore_stats s = {
        .states = x->res->states, .transitions = x->res->transitions, .depth = x->res->depth,
        .bytes = x->res->bytes, .seconds = wx_now() - x->t0,
    };
    opt->progress(opt->progress_ctx, &s);
    x->next_progress = wx_now() + 1.0;
}

/* BFS level by level until the state space is complete or a violation
 * ends it; then the violation's trace. */
static int dist_levels(struct dist *x, struct wx_error *err)
{
    struct explore_result *res = x->res;
    uint64_t next = 0;
    for (;;) {
        const uint64_t *row = x->lsize + (size_t)res->depth * x->ranks;
        uint64_t most = 0;
        for (int r = 0; r < x->ranks; r++)
            most = row[r] > most ? row[r] : most;
        uint64_t rounds = (most + x->round_states - 1) / x->round_states;
        x->next_s = x->lb, x->dead1 = x->act1 = 0;
        x->scan_only = x->local_stop = x->local_rc != 0;
        dist_level_room(x);
        bool stop = false;
        for (uint64_t k = 0; k < rounds && !stop; k++) {
            int rc = dist_round(x, &stop, err);
            if (rc)
                return rc;
        }
        int rc = dist_level_end(x, &next, err);
        if (rc)
            return rc;
        if (res->violation != VIOLATION_NONE && !x->finish)
            break;
        x->settled = res->violation != VIOLATION_NONE;
        if (next == 0) {
            res->complete = true;
            break;
        }
        x->lb = x->le, x->le = dist_count(x);
        res->depth++;
        dist_progress(x);
    }
    if (next > 0 && !res->complete)
        res->depth++; /* states of the next level exist */
    return res->violation && x->trace ? dist_build_trace(x, err) : WX_OK;
}

/* Local set-up; failures are local (x->err_local) and agreed on by the
 * caller. */
/* The owned states' store: flat (a vecset) or, with --store tree on
 * vectors of 3 or more words, a tree store with explore_seq's shape; each
 * rank takes 1/R of the memory budget. */
static int dist_store_init(struct dist *x, const struct image *img)
{
    const struct explore_options *opt = x->opt;
    const uint64_t extra = x->trace ? 16 : 0, budget = explore_budget(opt) / (uint64_t)x->ranks;
    x->res->store = explore_store_pick(opt, img) == STORE_TREE ? "tree" : "flat";
    if (explore_store_pick(opt, img) != STORE_TREE)
        return vecset_init(&x->q, img->words, vtable_states_for_budget(budget, img->words, extra), &x->err_local);
    uint64_t max_states, max_nodes;
    treestore_plan(budget, img->words, extra, &max_states, &max_nodes);
    if (!(x->vbuf = malloc(2 * (size_t)img->words * sizeof *x->vbuf)))
        return oom(&x->err_local);
    int rc = treestore_new(&x->tree, img->words, max_states, max_nodes, &x->err_local);
    if (rc == WX_OK)
        treestore_set_budget(x->tree, budget, extra);
    return rc ? rc : explore_tree_shape(img, x->tree, &x->err_local);
}

static int dist_alloc(struct dist *x, const struct image *img)
{
    const struct explore_options *opt = x->opt;
    int R = x->ranks;
    int rc = succ_init(&x->g, img, &x->err_local);
    if (rc)
        return rc;
    if (opt->por && (rc = por_init(&x->p, img, NULL, &x->err_local)))
        return rc;
    x->por = opt->por;
    if ((rc = dist_store_init(x, img)))
        return rc;
    x->out = calloc(R, sizeof *x->out);
    x->scount = calloc(4 * (size_t)R, sizeof *x->scount);
    x->gathered = calloc((size_t)R * DG_FIELDS, sizeof *x->gathered);
    x->act_vec = calloc(x->words, sizeof *x->act_vec);
    x->pend = calloc(R, sizeof *x->pend);
    x->lev_cap = 64;
    x->lstart = calloc((size_t)x->lev_cap * R, sizeof *x->lstart);
    x->lsize = calloc((size_t)x->lev_cap * R, sizeof *x->lsize);
    x->gstart = calloc((size_t)x->lev_cap * R, sizeof *x->gstart);
    if (!x->out || !x->scount || !x->gathered || !x->act_vec || !x->lstart || !x->lsize || !x->gstart ||
        !x->pend)
        return oom(&x->err_local);
    x->sdispl = x->scount + R, x->rcount = x->scount + 2 * R, x->rdispl = x->scount + 3 * R;
    /* level 0: the initial state (the all-zero vector) at its owner */
    int owner = dist_owner(x->act_vec, x->words, R);
    x->lsize[owner] = 1;
    for (int r = owner + 1; r < R; r++)
        x->gstart[r] = 1;
    x->nlev = 1;
    x->res->states = 1;
    uint64_t id;
    if (owner == x->me && dist_put(x, x->act_vec, UINT32_MAX, 0, 0, &id) < 0)
        return WX_ELIMIT;
    x->le = owner == x->me;
    return WX_OK;
}

static void dist_free(struct dist *x)
{
    vecset_free(&x->q);
    treestore_free(x->tree);
    free(x->vbuf);
    free(x->prank), free(x->pid), free(x->plabel);
    succ_free(&x->g);
    if (x->por)
        por_free(&x->p);
    for (int r = 0; x->out && r < x->ranks; r++)
        free(x->out[r].w);
    free(x->out), free(x->sendbuf), free(x->recvbuf), free(x->scount), free(x->gathered);
    free(x->act_vec), free(x->lstart), free(x->lsize), free(x->gstart);
    dist_edges_free(x);
}

/* The per-rank figures of st from the level rows and the last gather. */
static int dist_rank_stats(struct dist *x, struct wx_error *err)
{
    struct dist_stats *st = x->st;
    st->rank_states = calloc(x->ranks, sizeof *st->rank_states);
    st->rank_bytes = calloc(x->ranks, sizeof *st->rank_bytes);
    if (!st->rank_states || !st->rank_bytes)
        return oom(err);
    for (int r = 0; r < x->ranks; r++) {
        for (uint32_t L = 0; L < x->nlev; L++)
            st->rank_states[r] += x->lsize[(size_t)L * x->ranks + r];
        st->rank_bytes[r] = x->gathered[r * DG_FIELDS + DG_BYTES];
    }
    return WX_OK;
}

/* What explore_dist refuses, on every rank alike (before any collective).
 * Partial-order reduction is applied where no label is visible: the
 * reduced set is then a function of the state (por.h), whichever rank
 * expands it; with a visible label the proviso would ask whether a
 * successor owned by another rank is new. */
static int dist_refuse(const struct image *img, const struct explore_options *opt, struct wx_error *err)
{
    if (img->probabilistic)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "probabilistic network: its product is an MDP, "
                       "built by explore_mdp (explorer/explore_mdp.h), not an LTS");
    bool visible = false;
    for (uint32_t l = 0; opt->por && opt->action_match && l < img->n_labels; l++)
        visible |= opt->action_match[l] != 0;
    const char *what = opt->keep_vectors && !opt->sink ? "the vectors of all states without an edge sink"
                       : visible ? "partial-order reduction with visible labels (--por with --action)"
                       : NULL;
    if (what)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "the distributed explorer does not give %s yet", what);
    return image_check(img, err);
}

static int dist_run(const struct image *img, const struct explore_options *opt_in,
                    const struct dist_transport *t, uint64_t round_states, struct explore_result *res,
                    struct dist_stats *st, struct wx_error *err)
{
    struct dist x;
    memset(&x, 0, sizeof x);
    memset(st, 0, sizeof *st);
    explore_result_init(res, "cpu");
    res->threads = 1;
    x.opt = explore_opts(opt_in);
    x.t = t, x.res = res, x.st = st;
    x.round_states = round_states ? round_states : DIST_ROUND_STATES;
    x.ranks = st->ranks = t->size, x.me = t->rank;
    x.t0 = wx_now(), x.next_progress = x.t0 + 1.0;
    int rc = dist_refuse(img, x.opt, err);
    if (rc)
        return rc;
    x.words = img->words;
    x.trace = x.opt->trace, x.finish = x.opt->finish_after_violation;
    x.edges = x.opt->sink != NULL;
    x.stride = x.words + (x.trace ? 3 : 0);
    x.local_rc = dist_alloc(&x, img);
    uint64_t f = (uint64_t)x.local_rc;
    rc = t->allreduce(t->ctx, &f, 1, DIST_MAX, err);
    if (rc == WX_OK && f)
        rc = dist_failed(&x, (int)f, err);
    if (rc == WX_OK)
        rc = dist_levels(&x, err);
    if (rc == WX_OK && x.edges && res->complete)
        rc = dist_edges_emit(&x, err);
    if (rc)
        res->complete = false;
    int rc2 = dist_rank_stats(&x, rc ? &x.err_local : err);
    if (!rc)
        rc = rc2;
    dist_free(&x);
    res->seconds = wx_now() - x.t0;
    return rc;
}

/* Store AUTO: flat, and the tree when a run ends in WX_ELIMIT on vectors of
 * 3 or more words (every rank returns the run's status and knows its
 * states, so all of them repeat it together); edges leave the ranks only
 * after a complete run. */
int explore_dist(const struct image *img, const struct explore_options *opt_in,
                 const struct dist_transport *t, uint64_t round_states, struct explore_result *res,
                 struct dist_stats *st, struct wx_error *err)
{
    const struct explore_options *opt = explore_opts(opt_in);
    int rc = dist_run(img, opt, t, round_states, res, st, err);
    if (rc != WX_ELIMIT || opt->store != STORE_AUTO || img->words <= 2 || opt->por || !res->states)
        return rc;
    const uint64_t flat = res->states;
    struct explore_options tree = *opt;
    tree.store = STORE_TREE;
    explore_result_free(res);
    dist_stats_free(st);
    rc = dist_run(img, &tree, t, round_states, res, st, err);
    res->flat_full = flat;
    return rc;
}

void dist_stats_free(struct dist_stats *st)
{
    free(st->rank_states);
    free(st->rank_bytes);
    st->rank_states = st->rank_bytes = NULL;
}
