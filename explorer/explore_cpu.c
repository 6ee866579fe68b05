/*
 * explore_cpu.c -- the multi-threaded CPU explorer: a level-synchronous BFS
 * over the lock-free vector table (hash/vtable.h).
 *
 * Levels are id ranges.  The table hands out ids from one atomic counter,
 * and while level d = ids [lb, le) is expanded only successors of level-d
 * states are inserted, so the ids inserted meanwhile are exactly level d+1:
 * [le, count).  Threads take chunks of the current range from an atomic
 * cursor (load balancing without queues); no frontier is ever copied.
 *
 * Threads: the members of a util/pool team, one job per exploration
 * (worker_job); member 0 is the caller's thread.
 *
 * Quiet points.  Everything that must not overlap with inserts -- the end of
 * a level, growing the table's slot array -- happens at a meeting of all
 * threads (rendezvous(): wx_pool_meet).  A thread arrives either idle (no
 * chunk left in the level) or in mid-level, because growth was requested
 * (grow_req) -- it then resumes exactly where it stopped, possibly retrying
 * an insert that returned FULL.  The last thread to arrive decides, alone,
 * what happens next (decide()): finish a growth, start one (every thread
 * then re-inserts a share of the ids and meets again), advance to the next
 * level, stop, or resume.  Since no insert is in flight at a quiet point, the table
 * count is exact there and growth can rebuild the slot array safely.
 *
 * Results are exact: the table gives every distinct vector one id, every
 * state is expanded exactly once (each id is in exactly one chunk), and the
 * successors of a state are distinct (successors.h), so the sum over threads
 * of their successor counts is the number of distinct (source, label,
 * target) triples.  State numbering within a level varies from run to run.
 *
 * Pipelining: a worker does not look up a state's successors right after
 * generating them; they wait in its queue (successors.h's unordered mode
 * hands them over distinct and already hashed) while the table lines they
 * need are prefetched and the next states are expanded.  The queue is
 * emptied when the worker finds no chunk left in the level, so a level
 * still ends only when all of its successors are in the table; on a halt
 * it is dropped.
 *
 * Tree store (options.store, hash/treestore.h): the same protocol with
 * treestore_* in place of vtable_* -- dense root ids, id blocks, growth of
 * both of its tables at quiet points.  A state is unfolded into the
 * worker's buffer, with its subtrees' node indices, before it is expanded;
 * its successors' inner nodes are put right away (fold_successors: the
 * subtrees a successor shares with its source cost no lookup), and only
 * their root pairs go through the queue, prefetched as flat vectors are.
 *
 * Shortest traces: parent[id] / plabel[id] are written by the thread whose
 * insert created id, so the parent of a level-(d+1) state is in level d; a
 * parent chain has the BFS depth as its length.  Violation semantics are in
 * explore_int.h.
 */
#include "explore_int.h"
#include "por.h"
#include "successors.h"
#include "../hash/treestore.h"
#include "../hash/vtable.h"
#include "../util/hugealloc.h"
#include "../util/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#ifdef EXPLORE_CPU_STATS
#include <stdio.h>
#include <x86intrin.h>
#define STAT(x) x
#else
#define STAT(x)
#endif
#include <stdlib.h>
#include <string.h>

/* A level is cut into about CHUNKS_PER_THREAD chunks per thread, each of
 * 1 .. MAX_CHUNK states: small enough to balance uneven states, large
 * enough that the shared cursor is touched rarely. */
#define CHUNKS_PER_THREAD 32u
#define MAX_CHUNK 1024u
/* Thread 0 looks at the clock every this many expanded states. */
#define PROGRESS_EVERY 256u
/* Lookups are pipelined across states: the successors of the states a
 * worker expands go through its queue, where each one's home slot is
 * prefetched when it enters, the stored vector that slot points to once
 * VECTOR_LAG younger successors have entered (by then the slot has
 * arrived), and the lookup runs once LOOKUP_LAG younger ones have entered.
 * A state has ~10 successors in typical models, so the misses of one
 * state's lookups overlap the expansion of the next one or two states. */
#ifndef VECTOR_LAG
#define VECTOR_LAG 12u
#endif
#ifndef LOOKUP_LAG
#define LOOKUP_LAG 24u
#endif
/* The most ids a thread takes from the shared counter at once. */
#ifndef ID_BLOCK
#define ID_BLOCK 64u
#endif
/* Ids (or, keyed tables, old slots) re-inserted per grab while growing
 * the table. */
#define REHASH_CHUNK 8192u
#define REHASH_SLOTS 65536u
/* 0: keyed tables re-insert by id ranges too (a knob for A/B runs). */
#ifndef REHASH_BY_SLOTS
#define REHASH_BY_SLOTS 1
#endif

enum halt { HALT_NONE, HALT_LEVEL, HALT_NOW };
enum act { ACT_RESUME, ACT_NEXT_LEVEL, ACT_REHASH, ACT_STOP };

struct shared;

/* Workers and the shared state are allocated 64-aligned (zalloc64), so the
 * _Alignas below really separate cache lines: a worker's hot fields must
 * not share a line with its neighbour's. */
struct worker {
    /* Written only by the owner (relaxed), read by thread 0's progress. */
    _Alignas(64) _Atomic uint64_t transitions, deadlocks;
    _Alignas(64) struct shared *sh;
    unsigned index;
    struct succ_gen g;
    bool por;                 /* options.por: p prepared */
    struct por p;
    struct product_edge *edges;
    size_t nedges;
    /* The queue of successors waiting for their lookup: entries
     * [qhead, qn), of which [qvec, qn) have not had their stored vector
     * prefetched yet (qhead <= qvec <= qn).  Entry i: record qrec + i *
     * g.stride (label, vector; with the tree store label, root pair),
     * hash qhash[i] (of the vector; of the root pair), source qsrc[i]. */
    uint32_t *qrec;
    uint64_t *qhash, *qsrc;
    size_t qhead, qvec, qn, qcap;
    uint64_t expanded;
    /* Counted in EXPLORE_CPU_STATS builds only: seconds at quiet points /
     * re-inserting; TSC cycles in succ_expand, queueing, lookups. */
    double t_quiet, t_rehash;
    uint64_t c_succ, c_queue, c_lookup;
    struct vtable_ids ids;    /* this thread's block of fresh ids */
    uint32_t *vbuf;           /* tree store: the state being expanded */
    uint32_t vals[IMAGE_MAX_WORDS]; /* and its subtrees' values */
    struct wx_error err;
};

struct shared {
    const struct image *img;
    const struct explore_options *opt;
    struct vtable *t;         /* the flat store, or NULL */
    struct treestore *tree;   /* the tree store, or NULL */
    const uint32_t *store;    /* vtable's store: vectors by id (flat) */
    uint32_t words;
    bool keyed;               /* vtable_new_keyed / treestore_new_keyed: no
                                 vector prefetch stage */
    uint64_t *parent;         /* when tracing */
    uint32_t *plabel;
    unsigned nthreads;        /* the pool's size */
    struct wx_pool *pool;
    struct worker *w;
    double t0, next_progress;

    /* The level: changed only at quiet points. */
    uint64_t lb, le, chunk;
    uint32_t depth;
    bool complete;

    _Alignas(64) _Atomic uint64_t cursor;
    _Alignas(64) _Atomic int grow_req;
    _Atomic int halt;
    _Atomic uint64_t rehash_cursor;
    uint64_t rehash_end;
    bool rehashing;

    /* Rendezvous: idle arrivals so far, and the last decision. */
    _Atomic unsigned idle;
    int action;

    /* Outcome: violation and first error (under vm). */
    pthread_mutex_t vm;
    enum explore_violation violation;
    /* finish_after_violation: 1 once the recorded violation is final (a
     * deadlock, or its level has ended); later reports skip the mutex. */
    _Atomic int vsettled;
    uint64_t vstate, act_dst;
    struct vtable_ids *ids;   /* close_blocks' copy of the workers' blocks */
    uint32_t act_label;
    int rc;
    struct wx_error err;
};

static void *zalloc64(size_t size)
{
    size = (size + 63) / 64 * 64;
    void *p = aligned_alloc(64, size ? size : 64);
    if (p)
        memset(p, 0, size);
    return p;
}

static inline void bump(_Atomic uint64_t *x)
{
    atomic_store_explicit(x, atomic_load_explicit(x, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* Records the first error and stops everyone. */
static void fail(struct shared *sh, int rc, const struct wx_error *err)
{
    pthread_mutex_lock(&sh->vm);
    if (!sh->rc) {
        sh->rc = rc;
        sh->err = *err;
    }
    atomic_store(&sh->halt, HALT_NOW);
    pthread_mutex_unlock(&sh->vm);
}

/* Records a violation.  A deadlock beats an action violation of the same
 * level (its trace is one step shorter); otherwise the first one stays.
 * Halts the exploration unless options.finish_after_violation, where the
 * choice is settled instead (a deadlock at once, an action violation at the
 * end of its level: decide()), so that a deeper level changes nothing. */
static void report(struct shared *sh, enum explore_violation v, uint64_t state, uint32_t label, uint64_t dst)
{
    const bool finish = sh->opt->finish_after_violation;
    if (finish && atomic_load_explicit(&sh->vsettled, memory_order_relaxed))
        return;
    pthread_mutex_lock(&sh->vm);
    if (v == VIOLATION_DEADLOCK && sh->violation != VIOLATION_DEADLOCK) {
        sh->violation = v;
        sh->vstate = state;
        if (finish)
            atomic_store(&sh->vsettled, 1);
        else
            atomic_store(&sh->halt, HALT_NOW);
    } else if (v == VIOLATION_ACTION && sh->violation == VIOLATION_NONE) {
        sh->violation = v;
        sh->vstate = state, sh->act_label = label, sh->act_dst = dst;
        int h = sh->opt->stop_on_deadlock ? HALT_LEVEL : HALT_NOW;
        if (!finish && atomic_load(&sh->halt) < h)
            atomic_store(&sh->halt, h);
    }
    pthread_mutex_unlock(&sh->vm);
}

/* ---- the store: flat (vtable) or tree (treestore) ---- */

static inline uint64_t st_count(const struct shared *sh)
{
    return sh->tree ? treestore_count(sh->tree) : vtable_count(sh->t);
}

static inline uint64_t st_bytes(const struct shared *sh)
{
    return sh->tree ? treestore_bytes(sh->tree) : vtable_bytes(sh->t);
}

static inline bool st_can_grow(const struct shared *sh)
{
    return sh->tree ? treestore_can_grow(sh->tree) : vtable_can_grow(sh->t);
}

static inline bool st_wants_grow(const struct shared *sh)
{
    return sh->tree ? treestore_wants_grow(sh->tree) : vtable_wants_grow(sh->t);
}

/* Starts a growth at a quiet point; sets the work of the re-insertion
 * (sh->rehash_end, in ids or -- keyed tables -- old slots). */
static int st_grow_begin(struct shared *sh, struct wx_error *e)
{
    if (sh->tree) {
        int rc = treestore_grow_begin(sh->tree, e);
        sh->rehash_end = rc ? 0 : treestore_grow_work(sh->tree);
        return rc;
    }
    int rc = vtable_grow_begin(sh->t, e);
    /* Keyed tables re-insert by ranges of the old slot array
     * (vtable_grow_slots: in order, no random access), the others by id
     * ranges. */
    sh->rehash_end = sh->keyed && REHASH_BY_SLOTS ? vtable_slots(sh->t) : vtable_count(sh->t);
    return rc;
}

static void st_grow_end(struct shared *sh)
{
    if (sh->tree)
        treestore_grow_end(sh->tree);
    else
        vtable_grow_end(sh->t);
}

/* ---- quiet points ---- */

static void set_chunk(struct shared *sh)
{
    uint64_t c = (sh->le - sh->lb) / ((uint64_t)sh->nthreads * CHUNKS_PER_THREAD);
    sh->chunk = c < 1 ? 1 : c > MAX_CHUNK ? MAX_CHUNK : c;
    atomic_store_explicit(&sh->cursor, sh->lb, memory_order_relaxed);
}

/* vtable_close_blocks renumbered a fresh state: its per-id data follows. */
static void moved(void *ctx, uint64_t from, uint64_t to)
{
    struct shared *sh = ctx;
    if (sh->parent)
        sh->parent[to] = sh->parent[from], sh->plabel[to] = sh->plabel[from];
    if (sh->act_dst == from)
        sh->act_dst = to;
    if (sh->vstate == from)
        sh->vstate = to;
}

/* At a quiet point: every thread's id block is closed and the ids made
 * dense again (vtable.h), so a level is an id range and the count exact. */
static void close_blocks(struct shared *sh)
{
    for (unsigned i = 0; i < sh->nthreads; i++)
        sh->ids[i] = sh->w[i].ids;
    struct wx_error e;
    int rc = sh->tree ? treestore_close_blocks(sh->tree, sh->ids, sh->nthreads, moved, sh, &e)
                      : vtable_close_blocks(sh->t, sh->ids, sh->nthreads, moved, sh, &e);
    for (unsigned i = 0; i < sh->nthreads; i++)
        sh->w[i].ids = sh->ids[i];
    if (rc)
        fail(sh, rc, &e);
}

/* Run by the last thread to arrive, alone: what everyone does next. */
static int decide(struct shared *sh)
{
    if (sh->rehashing) {
        st_grow_end(sh);
        sh->rehashing = false;
        return ACT_RESUME;
    }
    close_blocks(sh);
    if (atomic_load(&sh->grow_req)) {
        atomic_store(&sh->grow_req, 0);
        if (atomic_load(&sh->halt) != HALT_NOW && st_can_grow(sh)) {
            struct wx_error e;
            int rc = st_grow_begin(sh, &e);
            if (rc) {
                fail(sh, rc, &e);
            } else {
                sh->rehashing = true;
                atomic_store_explicit(&sh->rehash_cursor, 0, memory_order_relaxed);
                return ACT_REHASH;
            }
        }
    }
    if (atomic_load(&sh->idle) < sh->nthreads)
        return ACT_RESUME;
    /* Everyone is out of work: the level is done. */
    if (atomic_load(&sh->halt) != HALT_NONE)
        return ACT_STOP;
    uint64_t count = st_count(sh);
    if (count == sh->le) {
        sh->complete = true;
        return ACT_STOP;
    }
    if (sh->violation != VIOLATION_NONE) /* finish_after_violation: its level ended */
        atomic_store(&sh->vsettled, 1);
    sh->lb = sh->le, sh->le = count;
    sh->depth++;
    set_chunk(sh);
    return ACT_NEXT_LEVEL;
}

static void decide_at_meeting(void *arg)
{
    struct shared *sh = arg;
    sh->action = decide(sh);
    atomic_store(&sh->idle, 0);
}

static int rendezvous(struct shared *sh, bool idle)
{
    if (idle)
        atomic_fetch_add(&sh->idle, 1);
    wx_pool_meet(sh->pool, decide_at_meeting, sh);
    /* Safe to read sh->action now: the next decision needs this thread's
     * arrival too. */
    return sh->action;
}

/* Meets the other threads; takes part in a growth if one is decided. */
static int quiet(struct worker *w, bool idle)
{
    struct shared *sh = w->sh;
#ifdef EXPLORE_CPU_STATS
    const double t0 = wx_now();
#endif
    for (;;) {
        int act = rendezvous(sh, idle);
        if (act != ACT_REHASH) {
#ifdef EXPLORE_CPU_STATS
            w->t_quiet += wx_now() - t0;
#endif
            return act;
        }
#ifdef EXPLORE_CPU_STATS
        const double t1 = wx_now();
#endif
        const bool by_slots = sh->keyed && REHASH_BY_SLOTS;
        const uint64_t step = by_slots ? REHASH_SLOTS : REHASH_CHUNK;
        uint64_t b;
        while ((b = atomic_fetch_add_explicit(&sh->rehash_cursor, step, memory_order_relaxed)) < sh->rehash_end) {
            uint64_t e = b + step < sh->rehash_end ? b + step : sh->rehash_end;
            if (sh->tree)
                treestore_grow_part(sh->tree, b, e);
            else if (by_slots)
                vtable_grow_slots(sh->t, b, e);
            else
                vtable_grow_part(sh->t, b, e);
        }
#ifdef EXPLORE_CPU_STATS
        w->t_rehash += wx_now() - t1;
#endif
    }
}

/* ---- expansion ---- */

static int flush_edges(struct worker *w)
{
    const struct explore_options *opt = w->sh->opt;
    int rc = w->nedges ? opt->sink->emit(opt->sink->ctx, w->edges, w->nedges, &w->err) : WX_OK;
    w->nedges = 0;
    return rc;
}

static void progress(struct worker *w)
{
    struct shared *sh = w->sh;
    double now = wx_now();
    if (now < sh->next_progress)
        return;
    struct explore_stats st = {
        .states = st_count(sh),
        .bytes = st_bytes(sh) + st_count(sh) * explore_extra_bytes(sh->opt),
        .depth = sh->depth,
        .seconds = now - sh->t0,
    };
    for (unsigned i = 0; i < sh->nthreads; i++)
        st.transitions += atomic_load_explicit(&sh->w[i].transitions, memory_order_relaxed);
    sh->opt->progress(sh->opt->progress_ctx, &st);
    sh->next_progress = wx_now() + 1.0;
}

/* Makes room for `more` queue entries (compacting, then growing). */
static int queue_reserve(struct worker *w, size_t more)
{
    const uint32_t st = w->g.stride;
    if (w->qhead > 0) {
        size_t live = w->qn - w->qhead;
        memmove(w->qrec, w->qrec + w->qhead * st, live * st * 4);
        memmove(w->qhash, w->qhash + w->qhead, live * sizeof *w->qhash);
        memmove(w->qsrc, w->qsrc + w->qhead, live * sizeof *w->qsrc);
        w->qvec -= w->qhead, w->qn = live, w->qhead = 0;
    }
    if (w->qn + more <= w->qcap)
        return WX_OK;
    size_t cap = w->qcap ? w->qcap : 256;
    while (cap < w->qn + more)
        cap *= 2;
    uint32_t *r = realloc(w->qrec, cap * st * 4);
    if (r)
        w->qrec = r;
    uint64_t *h = r ? realloc(w->qhash, cap * sizeof *h) : NULL;
    if (h)
        w->qhash = h;
    uint64_t *src = h ? realloc(w->qsrc, cap * sizeof *src) : NULL;
    if (src)
        w->qsrc = src;
    if (!src)
        return wx_fail(&w->err, WX_ELIMIT, NULL, 0, 0, "out of memory: successor queue of %zu entries", cap);
    w->qcap = cap;
    return WX_OK;
}

/* Looks up (inserting) the oldest queued successor.  Returns false when the
 * worker must stop (halt, error, violation); the queue is then emptied. */
static bool lookup_one(struct worker *w)
{
    struct shared *sh = w->sh;
    const struct explore_options *opt = sh->opt;
    const size_t i = w->qhead;
    const uint32_t *r = w->qrec + i * w->g.stride;
    const uint32_t label = r[0];
    const uint64_t id = w->qsrc[i];
    uint64_t t;
    enum vtable_outcome o;
    int rc;
    if (atomic_load_explicit(&sh->halt, memory_order_relaxed) != HALT_NONE)
        goto stop; /* HALT_LEVEL: only deadlocks are looked for now */
    while ((o = sh->tree ? treestore_insert_root(sh->tree, r + 1, w->qhash[i], &w->ids, &t)
                         : vtable_insert_block(sh->t, r + 1, w->qhash[i], &w->ids, &t)) == VTABLE_FULL) {
        if (!st_can_grow(sh)) {
            if (sh->tree)
                treestore_full_error(sh->tree, &w->err);
            else
                wx_fail(&w->err, WX_ELIMIT, NULL, 0, 0, "memory budget exhausted after %llu states; raise it (--memory)",
                        (unsigned long long)vtable_count(sh->t));
            fail(sh, WX_ELIMIT, &w->err);
            goto stop;
        }
        atomic_store(&sh->grow_req, 1);
        quiet(w, false);
        if (atomic_load(&sh->halt) == HALT_NOW)
            goto stop;
    }
    w->qhead++;
    if (w->qvec < w->qhead)
        w->qvec = w->qhead;
    if (o == VTABLE_INSERTED) {
        if (sh->parent)
            sh->parent[t] = id, sh->plabel[t] = label;
        if (st_wants_grow(sh) && !atomic_load_explicit(&sh->grow_req, memory_order_relaxed))
            atomic_store(&sh->grow_req, 1);
    }
    bump(&w->transitions);
    if (w->edges) {
        w->edges[w->nedges++] = (struct product_edge){ .src = id, .dst = t, .label = label };
        if (w->nedges == EXPLORE_EDGE_BATCH && (rc = flush_edges(w))) {
            fail(sh, rc, &w->err);
            goto stop;
        }
    }
    if (opt->action_match && opt->action_match[label]) {
        report(sh, VIOLATION_ACTION, id, label, t);
        if (!opt->finish_after_violation)
            goto stop;
    }
    return true;
stop:
    w->qhead = w->qvec = w->qn = 0;
    return false;
}

/* Advances the pipeline until at most `keep` entries wait for a lookup
 * (keep 0: empties the queue). */
static void pump(struct worker *w, size_t keep)
{
    const size_t vkeep = keep < LOOKUP_LAG - VECTOR_LAG ? 0 : keep - (LOOKUP_LAG - VECTOR_LAG);
    if (w->sh->keyed)
        w->qvec = w->qn; /* lookups never read the store */
    while (w->qn - w->qvec > vkeep) {
        if (w->sh->tree)
            treestore_prefetch_root_pair(w->sh->tree, w->qhash[w->qvec++]);
        else
            vtable_prefetch_vector(w->sh->t, w->qhash[w->qvec++]);
    }
    while (w->qn - w->qhead > keep) {
        if (!lookup_one(w))
            return;
    }
}

/* --por: *n becomes the size of state id's reduced set, or stays g.n where
 * the proviso (por.h; only with visible labels) asks: when every target of
 * the reduced set is in levels 0 .. d (ids below le; the ids inserted
 * during level d are >= le, so a concurrent insert does not change the
 * answer). */
static int reduce(struct worker *w, uint64_t id, size_t *n)
{
    struct shared *sh = w->sh;
    size_t r;
    int rc = por_reduce(&w->p, &w->g, sh->store + id * sh->words, &r, &w->err);
    if (rc || r == w->g.n)
        return rc;
    if (!w->p.proviso) {
        *n = r;
        return WX_OK;
    }
    for (size_t i = 0; i < r; i++) {
        uint64_t t;
        if (vtable_lookup_hashed(sh->t, succ_vector(&w->g, i), w->g.hash[i], VTABLE_FIND, &t) != VTABLE_FOUND
            || t >= sh->le) {
            *n = r;
            return WX_OK;
        }
    }
    return WX_OK;
}

/* Tree store: the inner nodes of the n successors just queued (from entry
 * q0 on) are put now, while the source's subtree values are at hand
 * (treestore_fold reuses those of unchanged subtrees), and each entry's
 * vector gives way to its root pair, whose lookup the queue pipelines as
 * the flat table's.  A full node table grows at a quiet point.  Returns
 * false when the worker must stop. */
static bool fold_successors(struct worker *w, size_t q0, size_t n)
{
    struct shared *sh = w->sh;
    const uint32_t st = w->g.stride;
    /* The lowest changed pairs' slots, then their stored pairs: the misses
     * of the successors' lookups overlap instead of following each other. */
    for (int stage = 0; stage < 2; stage++)
        for (size_t i = 0; i < n; i++)
            treestore_prefetch_fold(sh->tree, succ_vector(&w->g, i), w->vbuf, stage);
    for (size_t i = 0; i < n; i++) {
        uint32_t *r = w->qrec + (q0 + i) * st;
        uint32_t root[2];
        while (treestore_fold(sh->tree, succ_vector(&w->g, i), w->vbuf, w->vals, root) == VTABLE_FULL) {
            if (!st_can_grow(sh)) {
                fail(sh, treestore_full_error(sh->tree, &w->err), &w->err);
                return false;
            }
            atomic_store(&sh->grow_req, 1);
            quiet(w, false);
            if (atomic_load(&sh->halt) == HALT_NOW)
                return false;
        }
        r[1] = root[0], r[2] = root[1];
        w->qhash[q0 + i] = treestore_root_hash(sh->tree, root);
        treestore_prefetch_root(sh->tree, w->qhash[q0 + i]);
    }
    return true;
}

static void expand(struct worker *w, uint64_t id)
{
    struct shared *sh = w->sh;
    const struct explore_options *opt = sh->opt;
    STAT(uint64_t c0 = __rdtsc());
    const uint32_t *vec = w->vbuf;
    if (sh->tree)
        treestore_get_tree(sh->tree, id, w->vbuf, w->vals);
    else
        vec = sh->store + id * sh->words;
    int rc = succ_expand(&w->g, vec, &w->err);
    STAT(uint64_t c1 = __rdtsc(); w->c_succ += c1 - c0);
    if (rc) {
        fail(sh, rc, &w->err);
        return;
    }
    if (w->g.n == 0) {
        bump(&w->deadlocks);
        if (opt->stop_on_deadlock)
            report(sh, VIOLATION_DEADLOCK, id, 0, 0);
        return;
    }
    if (atomic_load_explicit(&sh->halt, memory_order_relaxed) != HALT_NONE)
        return; /* HALT_LEVEL: only deadlocks are looked for now */
    size_t n = w->g.n;
    if (w->por && (rc = reduce(w, id, &n))) {
        fail(sh, rc, &w->err);
        return;
    }
    if (w->qn + n > w->qcap && (rc = queue_reserve(w, n))) {
        fail(sh, rc, &w->err);
        return;
    }
    const uint32_t st = w->g.stride;
    memcpy(w->qrec + w->qn * st, w->g.rec, n * st * 4);
    for (size_t i = 0; i < n; i++) {
        w->qhash[w->qn + i] = w->g.hash[i];
        w->qsrc[w->qn + i] = id;
        if (!sh->tree)
            vtable_prefetch(sh->t, w->g.hash[i]);
    }
    if (sh->tree && !fold_successors(w, w->qn, n))
        return;
    w->qn += n;
    STAT(uint64_t c2 = __rdtsc(); w->c_queue += c2 - c1);
    pump(w, LOOKUP_LAG);
    STAT(w->c_lookup += __rdtsc() - c2);
}

/* Expands chunks of the current level until none is left or a halt. */
static void expand_level(struct worker *w)
{
    struct shared *sh = w->sh;
    for (;;) {
        if (explore_cancelled(sh->opt)) {
            struct wx_error e;
            fail(sh, explore_interrupted(&e), &e); /* halts: the loop below stops */
        }
        uint64_t b = atomic_fetch_add_explicit(&sh->cursor, sh->chunk, memory_order_relaxed);
        if (b >= sh->le) {
            /* The level ends only when every successor is in the table;
             * the queue runs on across chunks until then, so its lookups
             * keep overlapping the next chunk's expansions. */
            pump(w, 0);
            return;
        }
        uint64_t e = b + sh->chunk < sh->le ? b + sh->chunk : sh->le;
        for (uint64_t id = b; id < e; id++) {
            if (atomic_load_explicit(&sh->halt, memory_order_relaxed) == HALT_NOW) {
                pump(w, 0); /* empties the queue */
                return;
            }
            if (atomic_load_explicit(&sh->grow_req, memory_order_relaxed))
                quiet(w, false);
            expand(w, id);
            if (w->index == 0 && sh->opt->progress && ++w->expanded % PROGRESS_EVERY == 0)
                progress(w);
        }
    }
}

/* One member's part of the exploration (a wx_pool_run job). */
static void worker_job(void *arg, int member, int size)
{
    struct shared *sh = arg;
    struct worker *w = &sh->w[member];
    /* The worker allocates its own buffers, so that they come from its
     * thread's malloc arena, not next to another worker's. */
    int rc = succ_init(&w->g, sh->img, &w->err);
    w->g.unordered = true; /* distinct, hashed; the order is ours to pick */
    if (!rc && sh->opt->por && !(rc = por_init(&w->p, sh->img, sh->opt->action_match, &w->err)))
        w->por = true;
    if (!rc && sh->opt->sink && !(w->edges = malloc(EXPLORE_EDGE_BATCH * sizeof *w->edges)))
        rc = wx_fail(&w->err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    if (!rc && sh->tree && !(w->vbuf = malloc(sh->words * sizeof *w->vbuf)))
        rc = wx_fail(&w->err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    if (rc)
        fail(sh, rc, &w->err); /* halts: this worker then only meets the others */
    for (;;) {
        expand_level(w);
        if (quiet(w, true) == ACT_STOP)
            break;
    }
    if (w->edges && (rc = flush_edges(w)))
        fail(sh, rc, &w->err);
#ifdef EXPLORE_CPU_STATS /* a measuring build's only output */
    fprintf(stderr, "worker %u: %llu transitions; %.3f s at quiet points, "
            "%.3f s of them re-inserting; Gcycles succ_expand %.3f queue %.3f lookups %.3f\n", w->index,
            (unsigned long long)atomic_load(&w->transitions), w->t_quiet,
            w->t_rehash, w->c_succ * 1e-9, w->c_queue * 1e-9, w->c_lookup * 1e-9);
#endif
    succ_free(&w->g);
    if (w->por)
        por_free(&w->p);
    free(w->edges);
    free(w->qrec);
    free(w->qhash);
    free(w->qsrc);
    free(w->vbuf);
}


/* ---- entry point ---- */

/* The store: a tree store (options.store), a keyed vector table or one
 * with ids in its slots; *max_states: the most states it holds. */
static int store_setup(struct shared *sh, uint64_t *max_states, struct wx_error *err)
{
    const struct image *img = sh->img;
    const struct explore_options *opt = sh->opt;
    const uint64_t extra = explore_extra_bytes(opt);
    if (explore_store_pick(opt, img) == STORE_TREE) {
        uint64_t max_nodes;
        treestore_plan(explore_budget(opt), img->words, extra, max_states, &max_nodes);
        if (*max_states == 0)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "memory budget too small for a single state");
        /* The root table's slots hold ids (hash/ptable.h): its lookups
         * read the stored pair, which the pipeline prefetches. */
        sh->keyed = false;
        int rc = treestore_new(&sh->tree, img->words, *max_states, max_nodes, err);
        if (rc == WX_OK)
            treestore_set_budget(sh->tree, explore_budget(opt), extra);
        return rc ? rc : explore_tree_shape(img, sh->tree, err);
    }
    *max_states = vtable_states_for_budget(explore_budget(opt), img->words, extra);
    if (*max_states == 0)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "memory budget too small for a single state");
    /* Vectors of <= 2 words (<= 4 on x86-64, 16-byte slots) live in the
     * slots themselves (vtable.h, keyed tables) when nothing needs the id
     * of a successor already present: no edge sink, no action check, no
     * partial-order reduction (its proviso compares ids with the level).  A
     * lookup then touches one random line instead of two. */
    sh->keyed = img->words <= vtable_keyed_max_words() && !opt->sink && !opt->action_match && !opt->por;
    int rc = sh->keyed ? vtable_new_keyed(&sh->t, img->words, *max_states, err)
                       : vtable_new(&sh->t, img->words, *max_states, err);
    if (rc)
        return rc;
    sh->store = vtable_vector(sh->t, 0);
    return WX_OK;
}

/* The table, the trace links and the id blocks for sh->nthreads threads,
 * and the initial state: the all-zero vector, id 0, level 0 = [0, 1). */
static int shared_setup(struct shared *sh, struct wx_error *err)
{
    const struct explore_options *opt = sh->opt;
    const unsigned n = sh->nthreads;
    uint64_t max_states;
    int rc = store_setup(sh, &max_states, err);
    if (rc)
        return rc;
    if (opt->trace) {
        sh->parent = malloc(max_states * sizeof *sh->parent);
        sh->plabel = malloc(max_states * sizeof *sh->plabel);
        if (!sh->parent || !sh->plabel)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "cannot reserve trace links for %llu states",
                           (unsigned long long)max_states);
        wx_advise_huge(sh->parent, max_states * sizeof *sh->parent);
        wx_advise_huge(sh->plabel, max_states * sizeof *sh->plabel);
    }
    sh->ids = calloc(n, sizeof *sh->ids);
    if (!sh->ids)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    /* Id blocks (vtable.h): up to ID_BLOCK ids per grab, few enough that
     * all threads' unused ids together stay under 1/8 of the smallest slot
     * array (inserts may overshoot the table's load limit by that much).
     * An edge sink holds fresh ids, which closing blocks may renumber: it
     * gets blocks of one id (dense by construction). */
    uint64_t block = (sh->tree ? treestore_root_slots(sh->tree) : vtable_slots(sh->t)) / (8ull * n);
    block = block > ID_BLOCK ? ID_BLOCK : block ? block : 1;
    block = opt->sink ? 1 : block;
    if (sh->tree)
        treestore_set_block(sh->tree, (uint32_t)block);
    else
        vtable_set_block(sh->t, (uint32_t)block);

    uint32_t zero[IMAGE_MAX_WORDS] = { 0 };
    uint64_t id0;
    enum vtable_outcome o0 = sh->tree ? treestore_insert(sh->tree, zero, NULL, &id0)
                                      : vtable_lookup(sh->t, zero, VTABLE_INSERT, &id0);
    if (o0 == VTABLE_FULL)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "memory budget too small for a single state");
    if (o0 != VTABLE_INSERTED)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal error: initial state not inserted");
    if (sh->parent)
        sh->parent[0] = 0, sh->plabel[0] = 0;
    sh->lb = 0, sh->le = 1;
    set_chunk(sh);
    return WX_OK;
}

/* The result, once the workers' job has returned: counts, violation, trace
 * and (options.keep_vectors) the vectors, which the table gives up. */
static int collect(struct shared *sh, struct explore_result *res, struct wx_error *err)
{
    const struct explore_options *opt = sh->opt;
    int rc = sh->rc;
    if (rc)
        *err = sh->err;
    for (unsigned i = 0; i < sh->nthreads; i++) {
        res->transitions += atomic_load(&sh->w[i].transitions);
        res->deadlocks += atomic_load(&sh->w[i].deadlocks);
    }
    close_blocks(sh); /* a thread that stopped on an error skipped the last one */
    res->states = st_count(sh);
    res->depth = sh->depth + (res->states > sh->le ? 1 : 0);
    res->complete = sh->complete && !rc;
    res->violation = sh->violation;
    res->violation_state = sh->vstate;
    const struct explore_vectors v = { .flat = sh->store, .tree = sh->tree, .words = sh->words };
    if (!rc && sh->violation && opt->trace)
        rc = explore_build_trace(res, &v, sh->parent, sh->plabel, sh->vstate,
                                 sh->violation == VIOLATION_ACTION, sh->act_label, sh->act_dst, err);
    res->bytes = st_bytes(sh) + res->states * explore_extra_bytes(opt);
    if (opt->keep_vectors && sh->tree) {
        struct wx_error e2;
        int rc2 = explore_unfold_all(res, sh->tree, res->states, rc ? &e2 : err);
        if (!rc)
            rc = rc2;
    } else if (opt->keep_vectors) {
        uint32_t *v = vtable_take_store(sh->t);
        uint32_t *s = realloc(v, (res->states ? res->states : 1) * sh->words * sizeof *v);
        res->vectors = s ? s : v;
    }
    return rc;
}

int explore_cpu(const struct image *img, const struct explore_options *opt_in,
                struct explore_result *res, struct wx_error *err)
{
    const struct explore_options *opt = explore_opts(opt_in);
    const double t0 = wx_now();
    explore_result_init(res, "cpu");
    res->store = explore_store_pick(opt, img) == STORE_TREE ? "tree" : "flat";
    if (img->probabilistic) /* as explore_seq: the support graph is no LTS answer */
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "probabilistic network: its product is an MDP, "
                       "built by explore_mdp (explorer/explore_mdp.h), not an LTS");
    int rc = image_check(img, err);
    if (rc)
        return rc;

    /* The team: options.threads (0: all cores), cut at WX_POOL_MAX; without
     * a pool (out of memory) the caller's thread explores alone. */
    struct wx_pool *pool = wx_pool_new(opt->threads > WX_POOL_MAX ? WX_POOL_MAX : (int)opt->threads);
    const unsigned n = (unsigned)wx_pool_size(pool);
    struct shared *sh = zalloc64(sizeof *sh);
    struct worker *w = zalloc64(n * sizeof *w);
    if (!sh || !w) {
        free(sh), free(w);
        wx_pool_free(pool);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    }
    sh->img = img, sh->opt = opt, sh->words = img->words;
    sh->pool = pool, sh->w = w, sh->nthreads = n;
    sh->t0 = t0, sh->next_progress = t0 + 1.0;
    for (unsigned i = 0; i < n; i++)
        w[i].sh = sh, w[i].index = i;
    pthread_mutex_init(&sh->vm, NULL);
    res->threads = n;

    if ((rc = shared_setup(sh, err)) == WX_OK) {
        wx_pool_run(pool, worker_job, sh);
        rc = collect(sh, res, err);
    }
    wx_pool_free(pool);
    vtable_free(sh->t);
    treestore_free(sh->tree);
    free(sh->parent);
    free(sh->plabel);
    pthread_mutex_destroy(&sh->vm);
    free(sh->ids);
    free(sh);
    free(w);
    res->seconds = wx_now() - t0;
    return rc;
}
