/*
 * mdpcheck_prepare.c -- mdpcheck_prepare: the state formulas, the per-state
 * arrays, and with warm the construction's work arrays faulted in ahead.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mdpcheck_int.h"
#include "../util/hugealloc.h"
#include "../util/timer.h"

/* ---- warming the work arrays (mdpcheck_prepare with warm) ----
 * One parallel pass writes every region (zeros, or the fill byte), in
 * 64 KiB units of the regions laid end to end: the pages are faulted in
 * and zeroed now, while the caller waits for something else. */
#define WARM_UNIT ((uint64_t)64 << 10)
#define WARM_REGIONS (POOL_SLOTS + 12)

struct warm_pass {
    int n;
    unsigned char *ptr[WARM_REGIONS];
    uint64_t bytes[WARM_REGIONS];
    uint64_t first_unit[WARM_REGIONS + 1]; /* prefix sums of the units */
    int fill[WARM_REGIONS];
    int must[WARM_REGIONS];  /* written in full even after stop (a fill the
                                 result depends on) */
    const atomic_int *stop;  /* set: the caller's wait is over, warm no more */
    int last_must;           /* regions from here on are not "must"        */
    int workers;             /* par_chunks of the pass                      */
};

static void warm_add(struct warm_pass *w, void *p, uint64_t bytes, int fill, int must)
{
    if (!p || !bytes || w->n == WARM_REGIONS)
        return;
    w->ptr[w->n] = p;
    w->bytes[w->n] = bytes;
    w->fill[w->n] = fill;
    w->must[w->n] = must;
    if (must)
        w->last_must = w->n + 1;
    w->first_unit[w->n + 1] = w->first_unit[w->n] + (bytes + WARM_UNIT - 1) / WARM_UNIT;
    w->n++;
}

/* Worker chunk takes the units chunk, chunk + workers, ...: all workers
 * advance through the regions together, in the order they were added (the
 * order of first use), so that what is warmed when *stop comes is a prefix. */
static void warm_touch(void *arg, uint64_t lo, uint64_t hi, int chunk)
{
    const struct warm_pass *w = arg;
    (void)lo, (void)hi;
    int r = 0;
    for (uint64_t u = (uint64_t)chunk; u < w->first_unit[w->n]; u += (uint64_t)w->workers) {
        while (u >= w->first_unit[r + 1])
            r++;
        if (!w->must[r] && w->stop && atomic_load_explicit(w->stop, memory_order_relaxed)) {
            if (r >= w->last_must)
                break;
            continue;
        }
        uint64_t off = (u - w->first_unit[r]) * WARM_UNIT;
        uint64_t len = w->bytes[r] - off < WARM_UNIT ? w->bytes[r] - off : WARM_UNIT;
        memset(w->ptr[r] + off, w->fill[r], len);
    }
}

/* Warm arrays beyond this share of physical memory are not worth holding
 * (the construction allocates what it needs anyway). */
#define WARM_SHARE 8

/* The construction's work arrays at their upper bounds (build_system: a
 * system has at most n_states states, n_choices choices and n_entries
 * entries) into x->pool, unless they exceed 1/WARM_SHARE of physical
 * memory. */
static void pool_alloc(struct ctx *x)
{
    const struct mdp *m = x->m;
    const struct property *p = x->p;
    uint64_t n = m->n_states, nc = m->n_choices, ne = m->n_entries;
    int hp = x->o->huge_pages;
    int collapse = p->kind == PROP_PMAX || p->kind == PROP_RMIN;
    size_t want[POOL_SLOTS] = {
        [POOL_SUB_STATE_START] = collapse ? (n + 1) * sizeof(uint64_t) : 0,
        [POOL_SUB_ECOUNT] = collapse ? (n + 1) * sizeof(uint64_t) : 0,
        [POOL_SUB_CHOICE_START] = collapse ? (nc + 1) * sizeof(uint64_t) : 0,
        [POOL_SUB_TARGETS] = collapse ? (ne ? ne : 1) * sizeof(uint32_t) : 0,
        [POOL_STATE_START] = (n + 1) * sizeof(uint64_t),
        [POOL_ECOUNT] = (n + 1) * sizeof(uint64_t),
        [POOL_CHOICE_START] = (nc + 1) * sizeof(uint64_t),
        [POOL_TARGETS] = (ne ? ne : 1) * sizeof(uint32_t),
        [POOL_PROBS] = (ne ? ne : 1) * sizeof(double),
        [POOL_B] = (nc ? nc : 1) * sizeof(double),
        [POOL_SLO] = (n ? n : 1) * sizeof(double),
        [POOL_SHI] = (n ? n : 1) * sizeof(double),
    };
    uint64_t total = 0;
    for (int i = 0; i < POOL_SLOTS; i++)
        total += want[i];
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 0;
    if (phys && total <= phys / WARM_SHARE)
        for (int i = 0; i < POOL_SLOTS; i++)
            if (want[i] && (x->pool[i] = wx_big_alloc(want[i], hp)))
                x->pool_bytes[i] = want[i];
}

void mdpcheck_job_free(struct mdpcheck_job *j)
{
    if (!j)
        return;
    struct ctx *x = &j->x;
    free(j->allowed), free(j->yes), free(j->no), free(j->lo), free(j->hi);
    free(x->cls), free(x->target), free(x->ok), free(x->loc), free(x->back), free(x->sid);
    mdpc_xfree(x, x->state_start), mdpc_xfree(x, x->choice_start), free(x->block_start);
    free(x->level_start), free(x->level_acyclic);
    mdpc_xfree(x, x->targets), mdpc_xfree(x, x->probs), mdpc_xfree(x, x->b);
    for (int i = 0; i < x->n_later; i++)
        mdpc_xfree(x, x->later[i]);
    for (int i = 0; i < POOL_SLOTS; i++)
        mdpc_xfree(x, x->pool[i]);
    free(j);
}

int mdpcheck_prepare(const struct mdp *m, const struct mdp_labels *labels,
                     const struct mdp_rewards *rew, const uint8_t *initial,
                     const struct property *p, const struct mdpcheck_options *o, int warm,
                     const atomic_int *stop, struct mdpcheck_job **job, struct wx_error *err)
{
    *job = NULL;
    struct mdpcheck_job *j = calloc(1, sizeof *j);
    if (!j)
        return oom(err);
    uint64_t n = m->n_states, nc = m->n_choices;
    struct ctx *x = &j->x;
    *x = (struct ctx){.m = m, .rew = rew, .p = p, .o = o, .initial = initial};
    x->is_reward = p->kind == PROP_RMIN || p->kind == PROP_RMAX;
    x->maximize = p->kind == PROP_PMAX || p->kind == PROP_RMAX;
    int rc = WX_OK, hp = o->huge_pages;
    j->allowed = p->phi1 ? wx_big_alloc(n, hp) : NULL;
    j->yes = wx_big_alloc(n, hp);
    j->no = wx_big_zalloc(n, hp);
    x->cls = wx_big_alloc(n, hp);
    x->target = wx_big_alloc(n, hp);
    x->ok = wx_big_alloc(nc, hp);
    x->loc = wx_big_alloc(n * sizeof *x->loc, hp);
    x->back = wx_big_alloc(n * sizeof *x->back, hp);
    j->lo = wx_big_alloc(n * sizeof *j->lo, hp);
    j->hi = wx_big_alloc(n * sizeof *j->hi, hp);
    if ((p->phi1 && !j->allowed) || !j->yes || !j->no || !x->cls || !x->target || !x->ok ||
        !x->loc || !x->back || !j->lo || !j->hi) {
        rc = oom(err);
        goto done;
    }
    double t0 = wx_now();
    if ((rc = prop_eval(p, p->phi2, m, labels, initial, x->target, err)) != WX_OK ||
        (p->phi1 && (rc = prop_eval(p, p->phi1, m, labels, initial, j->allowed, err)) != WX_OK))
        goto done;
    j->label_seconds = wx_now() - t0;
    trace(o, "labels evaluated");
    struct warm_pass w = {.stop = stop};
    /* every choice is usable but for Rmin (set after the classes) */
    if (p->kind != PROP_RMIN)
        warm_add(&w, x->ok, nc, 1, 1);
    if (warm) {
        pool_alloc(x);
        warm_add(&w, j->yes, n, 0, 0);
        warm_add(&w, j->no, n, 0, 0);
        warm_add(&w, x->cls, n, 0, 0);
        warm_add(&w, x->loc, n * sizeof *x->loc, 0, 0);
        warm_add(&w, x->back, n * sizeof *x->back, 0, 0);
        for (int i = 0; i < POOL_SLOTS; i++)
            warm_add(&w, x->pool[i], x->pool_bytes[i], 0, 0);
        warm_add(&w, j->lo, n * sizeof *j->lo, 0, 0);
        warm_add(&w, j->hi, n * sizeof *j->hi, 0, 0);
    }
    if (w.n) {
        w.workers = mdpc_par_chunks(o->threads, w.first_unit[w.n]);
        mdpc_par_for(o->threads, w.first_unit[w.n], warm_touch, &w);
    }
    if (warm)
        trace(o, stop && atomic_load(stop) ? "work arrays warmed (stopped early)"
                                           : "work arrays warmed");
done:
    if (rc != WX_OK) {
        mdpcheck_job_free(j);
        return rc;
    }
    *job = j;
    return WX_OK;
}
