/*
 * dist_edges.c -- the distributed explorer's edges (options.sink): each
 * rank records the edges of the states it expands, the owners answer the
 * local ids of the targets they were sent, and after a complete
 * exploration rank 0 gathers every edge, renumbers the states as
 * explore_seq numbers them and feeds its sink (explore_dist.h).
 *
 * explore_seq's numbering is its BFS discovery order: states are expanded
 * in id order and a new successor gets the next id, successors taken in
 * the successor generator's order.  The gathered graph keeps each state's
 * edges in that order, so a FIFO walk of it from state 0 gives every
 * state explore_seq's id, and listing the edges by new source id in that
 * order is explore_seq's emission order.
 */
#include "dist_int.h"
#include "../util/config.h"

#include <stdlib.h>
#include <string.h>

static int local_oom(struct dist *x)
{
    return wx_fail(&x->err_local, WX_ELIMIT, NULL, 0, 0, "out of memory storing the transitions");
}

/* *a (cap entries of `size` bytes) holds at least n entries: doubling. */
static int grow(void **a, uint64_t *cap, uint64_t n, size_t size)
{
    if (n <= *cap)
        return 0;
    uint64_t c = *cap ? *cap : 1024;
    while (c < n)
        c *= 2;
    void *p = realloc(*a, c * size);
    if (!p)
        return -1;
    *a = p, *cap = c;
    return 0;
}

int dist_edge_state(struct dist *x, uint64_t s)
{
    if (grow((void **)&x->e_first, &x->e_first_cap, s + 2, sizeof *x->e_first))
        return local_oom(x);
    x->e_first[s] = x->e_n;
    return WX_OK;
}

int dist_edge_add(struct dist *x, uint32_t label, int owner, uint64_t local)
{
    if (x->e_n == x->e_cap) {
        uint64_t c = x->e_cap ? 2 * x->e_cap : 4096, old = x->e_cap;
        if (grow((void **)&x->e_label, &old, c, sizeof *x->e_label))
            return local_oom(x);
        old = x->e_cap;
        if (grow((void **)&x->e_owner, &old, c, sizeof *x->e_owner))
            return local_oom(x);
        old = x->e_cap;
        if (grow((void **)&x->e_dst, &old, c, sizeof *x->e_dst))
            return local_oom(x);
        x->e_cap = c;
    }
    uint64_t k = x->e_n++;
    x->e_label[k] = label, x->e_owner[k] = (uint32_t)owner, x->e_dst[k] = local;
    if (local != UINT64_MAX)
        return WX_OK;
    struct dist_pos *q = &x->pend[owner];
    if (grow((void **)&q->p, &q->cap, q->n + 1, sizeof *q->p))
        return local_oom(x);
    q->p[q->n++] = k;
    return WX_OK;
}

void dist_edge_pack(struct dist *x, uint64_t total_sent)
{
    if (!x->local_rc && (grow((void **)&x->spos, &x->spos_cap, total_sent, sizeof *x->spos) ||
                         grow((void **)&x->reply, &x->reply_cap, total_sent, sizeof *x->reply))) {
        local_oom(x);
        x->local_rc = WX_ELIMIT, x->local_stop = true;
        memset(x->scount, 0, x->ranks * sizeof *x->scount); /* nothing is sent */
    }
    uint64_t k = 0;
    for (int r = 0; r < x->ranks; r++) {
        if (x->scount[r])
            memcpy(x->spos + k, x->pend[r].p, x->scount[r] * sizeof *x->spos);
        k += x->scount[r];
        x->pend[r].n = 0;
    }
}

void dist_edge_recv_space(struct dist *x, uint64_t total_recv)
{
    if (x->local_rc || !grow((void **)&x->rids, &x->rids_cap, total_recv, sizeof *x->rids))
        return;
    local_oom(x);
    x->local_rc = WX_ELIMIT, x->local_stop = true;
}

int dist_edge_reply(struct dist *x, struct wx_error *err)
{
    const struct dist_transport *t = x->t;
    /* the answers travel back: what came from r goes to r, in its order */
    int rc = t->alltoallv(t->ctx, (const uint32_t *)x->rids, x->rcount, x->rdispl, (uint32_t *)x->reply,
                          x->scount, x->sdispl, 2, err);
    if (rc || x->local_rc)
        return rc;
    uint64_t total = 0;
    for (int r = 0; r < x->ranks; r++)
        total += x->scount[r];
    for (uint64_t k = 0; k < total; k++)
        x->e_dst[x->spos[k]] = x->reply[k];
    return WX_OK;
}

/* The gathered graph on rank 0, by the explorer's global ids: each state's
 * edges in the successor generator's order. */
struct gathered {
    uint64_t n, m;
    uint64_t *off;             /* n + 1 */
    uint64_t *dst;             /* m */
    uint32_t *label;           /* m */
    uint64_t *newid, *order;   /* n: global id -> explore_seq's, and back */
    /* the cursors of the records still coming from each rank */
    uint64_t *cur_state, *cur_edge;
};

/* Fills this rank's records [start, start + n) of the kind being gathered. */
typedef void (*fill_fn)(struct dist *x, uint64_t start, uint64_t n, uint32_t *out);
/* Rank 0: takes n records of rank r, the next ones of its sequence. */
typedef void (*place_fn)(struct dist *x, struct gathered *g, int r, const uint32_t *rec, uint64_t n);

/* Every rank's count[r] records of `words` words to rank 0 in chunks of at
 * most DIST_GATHER_RECORDS all together; count is known to every rank.
 * The buffers (buf: a chunk of this rank's, room: rank 0's) are the
 * caller's.  Collective. */
static int gather0(struct dist *x, struct gathered *g, const uint64_t *count, uint32_t words, fill_fn fill,
                   place_fn place, uint32_t *buf, uint32_t *room, struct wx_error *err)
{
    const struct dist_transport *t = x->t;
    const int R = x->ranks;
    const uint64_t chunk = DIST_GATHER_RECORDS / R ? DIST_GATHER_RECORDS / R : 1;
    uint64_t *a = x->scount, *ad = x->sdispl, *b = x->rcount, *bd = x->rdispl;
    uint64_t done = 0, most = 0;
    for (int r = 0; r < R; r++)
        most = count[r] > most ? count[r] : most;
    for (; done < most; done += chunk) {
        uint64_t total = 0;
        for (int r = 0; r < R; r++) {
            uint64_t c = count[r] > done ? count[r] - done : 0;
            c = c < chunk ? c : chunk;
            a[r] = 0, ad[r] = 0;
            b[r] = x->me == 0 ? c : 0, bd[r] = total;
            total += b[r];
            if (r == x->me)
                a[0] = c;
        }
        if (a[0])
            fill(x, done, a[0], buf);
        int rc = t->alltoallv(t->ctx, buf, a, ad, room, b, bd, words, err);
        if (rc)
            return rc;
        for (int r = 0; r < R && x->me == 0; r++)
            if (b[r])
                place(x, g, r, room + bd[r] * words, b[r]);
    }
    return WX_OK;
}

/* Out-degrees, one per local state (2 words). */
static void fill_degree(struct dist *x, uint64_t start, uint64_t n, uint32_t *out)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d = x->e_first[start + i + 1] - x->e_first[start + i];
        out[2 * i] = (uint32_t)d, out[2 * i + 1] = (uint32_t)(d >> 32);
    }
}

static void place_degree(struct dist *x, struct gathered *g, int r, const uint32_t *rec, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++, g->cur_state[r]++)
        g->off[dist_global_id(x, r, g->cur_state[r]) + 1] = rec[2 * i] | (uint64_t)rec[2 * i + 1] << 32;
}

/* Edges in local order: label, global target (3 words). */
static void fill_edge(struct dist *x, uint64_t start, uint64_t n, uint32_t *out)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = start + i, d = x->e_dst[k];
        out[3 * i] = x->e_label[k], out[3 * i + 1] = (uint32_t)d, out[3 * i + 2] = (uint32_t)(d >> 32);
    }
}

/* A rank's edges come by source in its local order; cur_state / cur_edge
 * say where the next one belongs. */
static void place_edge(struct dist *x, struct gathered *g, int r, const uint32_t *rec, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t s = dist_global_id(x, r, g->cur_state[r]);
        while (g->cur_edge[r] == g->off[s + 1] - g->off[s]) {
            g->cur_state[r]++, g->cur_edge[r] = 0;
            s = dist_global_id(x, r, g->cur_state[r]);
        }
        uint64_t e = g->off[s] + g->cur_edge[r]++;
        g->label[e] = rec[3 * i], g->dst[e] = rec[3 * i + 1] | (uint64_t)rec[3 * i + 2] << 32;
    }
}

/* Vectors in local order, placed at explore_seq's ids (keep_vectors). */
static void fill_vector(struct dist *x, uint64_t start, uint64_t n, uint32_t *out)
{
    for (uint64_t i = 0; i < n; i++)
        memcpy(out + i * x->words, dist_vec(x, start + i, 0), x->words * sizeof *out);
}

static void place_vector(struct dist *x, struct gathered *g, int r, const uint32_t *rec, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++, g->cur_state[r]++) {
        uint64_t s = g->newid[dist_global_id(x, r, g->cur_state[r])];
        memcpy(x->res->vectors + s * x->words, rec + i * x->words, x->words * sizeof *rec);
    }
}

/* Rank 0's arrays; the others' chunk buffers.  Agreed on by every rank. */
static int gathered_alloc(struct dist *x, struct gathered *g, uint32_t **buf, uint32_t **room,
                          struct wx_error *err)
{
    const int R = x->ranks;
    const uint64_t chunk = DIST_GATHER_RECORDS / R ? DIST_GATHER_RECORDS / R : 1;
    const uint64_t w = x->words > 3 ? x->words : 3;
    bool bad = false;
    *buf = malloc(chunk * w * sizeof **buf);
    *room = NULL;
    if (x->me == 0) {
        g->off = calloc(g->n + 1, sizeof *g->off);
        g->dst = malloc((g->m ? g->m : 1) * sizeof *g->dst);
        g->label = malloc((g->m ? g->m : 1) * sizeof *g->label);
        g->newid = malloc(g->n * sizeof *g->newid);
        g->order = malloc(g->n * sizeof *g->order);
        g->cur_state = calloc(2 * (size_t)R, sizeof *g->cur_state);
        *room = malloc(chunk * R * w * sizeof **room);
        if (x->opt->keep_vectors)
            x->res->vectors = malloc(g->n * x->words * sizeof *x->res->vectors);
        bad = !g->off || !g->dst || !g->label || !g->newid || !g->order || !g->cur_state || !*room ||
              (x->opt->keep_vectors && !x->res->vectors);
        if (g->cur_state)
            g->cur_edge = g->cur_state + R;
    }
    uint64_t f = bad || !*buf;
    int rc = x->t->allreduce(x->t->ctx, &f, 1, DIST_MAX, err);
    if (rc == WX_OK && f)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory gathering %llu states and %llu transitions "
                     "on rank 0", (unsigned long long)g->n, (unsigned long long)g->m);
    return rc;
}

static void gathered_free(struct gathered *g)
{
    free(g->off), free(g->dst), free(g->label), free(g->newid), free(g->order), free(g->cur_state);
}

/* Rank 0: explore_seq's ids, by a FIFO walk from state 0. */
static int renumber(struct gathered *g, struct wx_error *err)
{
    for (uint64_t v = 0; v < g->n; v++)
        g->newid[v] = UINT64_MAX;
    uint64_t n = 1;
    g->newid[0] = 0, g->order[0] = 0;
    for (uint64_t h = 0; h < n; h++) {
        uint64_t v = g->order[h];
        for (uint64_t e = g->off[v]; e < g->off[v + 1]; e++)
            if (g->newid[g->dst[e]] == UINT64_MAX)
                g->newid[g->dst[e]] = n, g->order[n++] = g->dst[e];
    }
    if (n != g->n)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal error: %llu of %llu gathered states reachable",
                       (unsigned long long)n, (unsigned long long)g->n);
    return WX_OK;
}

/* Rank 0: the edges to the sink by new source id, each source's in order. */
static int emit_all(const struct dist *x, const struct gathered *g, struct wx_error *err)
{
    const struct edge_sink *sink = x->opt->sink;
    struct product_edge *b = malloc(EXPLORE_EDGE_BATCH * sizeof *b);
    if (!b)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    size_t k = 0;
    int rc = WX_OK;
    for (uint64_t h = 0; h < g->n && rc == WX_OK; h++) {
        uint64_t v = g->order[h];
        for (uint64_t e = g->off[v]; e < g->off[v + 1] && rc == WX_OK; e++) {
            b[k++] = (struct product_edge){ .src = h, .dst = g->newid[g->dst[e]], .label = g->label[e] };
            if (k == EXPLORE_EDGE_BATCH)
                rc = sink->emit(sink->ctx, b, k, err), k = 0;
        }
    }
    if (rc == WX_OK && k)
        rc = sink->emit(sink->ctx, b, k, err);
    free(b);
    return rc;
}

/* Rank 0's status, and the violation's ids under the new numbering, to
 * every rank. */
static int share_ids(struct dist *x, const struct gathered *g, int rc0, struct wx_error *err)
{
    struct explore_result *res = x->res;
    uint32_t len = res->trace.states ? res->trace.len + 1 : 0;
    uint32_t *m = calloc(4 + 2 * (size_t)len, sizeof *m);
    uint64_t f = !m;
    int rc = x->t->allreduce(x->t->ctx, &f, 1, DIST_MAX, err);
    if (rc == WX_OK && f)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    if (rc) {
        free(m);
        return rc;
    }
    if (x->me == 0) {
        uint64_t vs = res->violation && rc0 == WX_OK ? g->newid[res->violation_state] : 0;
        m[0] = (uint32_t)rc0, m[2] = (uint32_t)vs, m[3] = (uint32_t)(vs >> 32);
        for (uint32_t i = 0; i < len && rc0 == WX_OK; i++) {
            uint64_t s = g->newid[res->trace.states[i]];
            m[4 + 2 * i] = (uint32_t)s, m[5 + 2 * i] = (uint32_t)(s >> 32);
        }
    }
    rc = x->t->bcast(x->t->ctx, m, 4 + 2 * (size_t)len, 0, err);
    if (rc == WX_OK && m[0] && x->me != 0)
        rc = dist_failed(x, (int)m[0], err);
    else if (rc == WX_OK && m[0])
        rc = rc0;
    if (rc == WX_OK && res->violation)
        res->violation_state = m[2] | (uint64_t)m[3] << 32;
    for (uint32_t i = 0; rc == WX_OK && i < len; i++)
        res->trace.states[i] = m[4 + 2 * i] | (uint64_t)m[5 + 2 * i] << 32;
    free(m);
    return rc;
}

int dist_edges_emit(struct dist *x, struct wx_error *err)
{
    const struct dist_transport *t = x->t;
    const int R = x->ranks;
    struct gathered g = { .n = x->res->states, .m = x->res->transitions };
    const uint64_t count = dist_count(x);
    uint64_t cnt[3 * R], mine[3] = { count, x->e_n, 0 };
    if (grow((void **)&x->e_first, &x->e_first_cap, count + 1, sizeof *x->e_first))
        mine[2] = 1;
    else
        x->e_first[count] = x->e_n;
    for (uint64_t k = 0; k < x->e_n; k++)
        x->e_dst[k] = dist_global_id(x, (int)x->e_owner[k], x->e_dst[k]);
    uint32_t *buf = NULL, *room = NULL;
    int rc = t->allgather(t->ctx, mine, cnt, 3, err);
    uint64_t states[R], edges[R];
    for (int r = 0; r < R; r++) {
        states[r] = cnt[3 * r], edges[r] = cnt[3 * r + 1];
        if (rc == WX_OK && cnt[3 * r + 2])
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory gathering the transitions on rank %d", r);
    }
    if (rc == WX_OK)
        rc = gathered_alloc(x, &g, &buf, &room, err);
    if (rc == WX_OK)
        rc = gather0(x, &g, states, 2, fill_degree, place_degree, buf, room, err);
    if (rc == WX_OK && x->me == 0) {
        for (uint64_t v = 0; v < g.n; v++)
            g.off[v + 1] += g.off[v];
        memset(g.cur_state, 0, 2 * (size_t)R * sizeof *g.cur_state);
    }
    if (rc == WX_OK)
        rc = gather0(x, &g, edges, 3, fill_edge, place_edge, buf, room, err);
    if (rc) {
        free(buf), free(room), gathered_free(&g);
        return rc;
    }
    int rc0 = WX_OK;
    if (x->me == 0) {
        rc0 = renumber(&g, err);
        if (rc0 == WX_OK)
            rc0 = emit_all(x, &g, err);
        memset(g.cur_state, 0, 2 * (size_t)R * sizeof *g.cur_state);
    }
    rc = share_ids(x, &g, rc0, err);
    if (rc == WX_OK && x->opt->keep_vectors)
        rc = gather0(x, &g, states, x->words, fill_vector, place_vector, buf, room, err);
    free(buf), free(room), gathered_free(&g);
    return rc;
}

void dist_edges_free(struct dist *x)
{
    free(x->e_first), free(x->e_label), free(x->e_owner), free(x->e_dst);
    for (int r = 0; x->pend && r < x->ranks; r++)
        free(x->pend[r].p);
    free(x->pend), free(x->spos), free(x->rids), free(x->reply);
}
