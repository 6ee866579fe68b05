/*
 * mdp_driver.cu -- the host side of the GPU MDP explorer (explore_mdp_gpu.h):
 * the image's tables uploaded, the level-synchronous BFS in batches, the
 * device buffers that grow with the MDP, and the download into *res.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "../../explorer/explore_mdp.h"
#include "../../explorer/mdp_rules.h"
#include "../../util/config.h"
#include "../../graph/mdp.h"
#include "../../util/timer.h"
#include "../explore_mdp_gpu.h"
#include "../hostcopy.h"
}
#include "../cuda_check.cuh"
#include "kernels.cuh"

#define MDPX_MAX_UPLOADS 28
/* The steps the timeline sums: per batch count (with its scans), generate
 * (with its scans), room, compact, insert, number (flag, scan, number,
 * target); once: setup (the image uploaded, the table, the initial state)
 * and finish (the counts, and the download of what the caller asked for). */
#define MDPX_STEPS 8

/* A device buffer that grows, keeping its first `used` bytes: to twice its
 * size (MDPX_DBUF_MIN at first), or to exactly the need when that does not
 * fit. */
struct dbuf {
    void *p;
    size_t cap;
};

static int dbuf_need(struct dbuf *b, size_t need, size_t used, struct wx_error *err)
{
    int rc = WX_OK;
    void *q = NULL;
    if (need <= b->cap)
        return WX_OK;
    if (used > b->cap)
        used = b->cap;
    size_t cap = 2 * b->cap > need ? 2 * b->cap : need;
    if (cap < MDPX_DBUF_MIN)
        cap = MDPX_DBUF_MIN;
    if (cudaMalloc(&q, cap) != cudaSuccess) {
        (void)cudaGetLastError(); /* out of memory is not sticky: try the need alone */
        q = NULL;
        cap = need;
        CUDA_CHECK(cudaMalloc(&q, cap));
    }
    if (used)
        CUDA_CHECK(cudaMemcpy(q, b->p, used, cudaMemcpyDeviceToDevice));
    cudaFree(b->p);
    b->p = q, b->cap = cap, q = NULL;
out:
    cudaFree(q);
    return rc;
}

/* One run: the device image, table, states, MDP and batch scratch. */
struct mdpx_run {
    const struct image *img;
    const struct explore_options *opt;
    struct mdp_explore_result *res;
    bool exact, fresh;
    int host;   /* 1: download the MDP into res->mdp and res->choice_label;
                   2: its skeleton (state offsets, choice labels); 0: neither */
    uint32_t words;
    mdpx_img dimg;
    void *uploads[MDPX_MAX_UPLOADS];
    int n_uploads;
    mdpx_table t;
    struct dbuf vecs, state_start, choice_start, label, targets, probs, num, den;
    struct dbuf rch, rout, rch_off, rout_off, dch, dout, dch_off, dout_off;
    struct dbuf raw_lab, raw_n, raw_start, raw_perm, raw_vec, raw_prob, raw_num, raw_den;
    struct dbuf evec, eslot, is_new, new_off, cub_tmp;
    uint32_t *d_error;
    uint64_t count, n_choices, n_entries, batch, blocks;
    bool timeline;            /* mdp_gpu_tuning.timeline */
    double t_mark, step[MDPX_STEPS];
    uint64_t n_batches;
};

/* With the timeline: the time since the last mark, once the device is
 * done, added to step s. */
static void mark(struct mdpx_run *x, int s)
{
    if (!x->timeline)
        return;
    cudaDeviceSynchronize();
    const double t = wx_now();
    if (s >= 0)
        x->step[s] += t - x->t_mark;
    x->t_mark = t;
}

static void print_timeline(const struct mdpx_run *x)
{
    static const char *names[MDPX_STEPS] = {"count", "generate", "room", "compact",
                                            "insert", "number", "setup", "finish"};
    fprintf(stderr, "mdp-gpu timeline: %llu states, %llu batches, depth %u;",
            (unsigned long long)x->count, (unsigned long long)x->n_batches, x->res->depth);
    for (int s = 0; s < MDPX_STEPS; s++)
        fprintf(stderr, " %s %.3f s", names[s], x->step[s]);
    fprintf(stderr, "\n");
}

static int upload(struct mdpx_run *x, const void *h, size_t bytes, const void **d,
                  struct wx_error *err)
{
    int rc = WX_OK;
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 8));
    x->uploads[x->n_uploads++] = p;
    if (bytes)
        CUDA_CHECK(cudaMemcpy(p, h, bytes, cudaMemcpyHostToDevice));
    *d = p;
out:
    return rc;
}

/* The rules by anchor or by masks (explorer/mdp_rules.h); each rule has
 * at most MDPX_GPU_MAX_PARTS participants. */
static int build_rules(const struct image *img, int walk, struct mdp_rules *r, struct wx_error *err)
{
    int rc = mdp_rules_build(img, (enum mdp_rule_walk)walk, r, err);
    for (uint32_t k = 0; rc == WX_OK && k < r->n_rules; k++)
        if (r->part_start[k + 1] - r->part_start[k] > MDPX_GPU_MAX_PARTS)
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                         "GPU MDP explorer: a synchronisation with %u participants (at most %u)",
                         r->part_start[k + 1] - r->part_start[k], MDPX_GPU_MAX_PARTS);
    return rc;
}

static int upload_image(struct mdpx_run *x, struct wx_error *err)
{
    const struct image *img = x->img;
    mdpx_img *m = &x->dimg;
    const uint32_t nc = img->n_comps;
    struct mdp_rules rl;
    int rc = build_rules(img, x->opt->mdp_rule_walk, &rl, err);
    m->n_comps = nc, m->words = img->words, m->n_classes = img->n_classes, m->hidden = img->hidden;
    const uint32_t npc = img->n_pchoices, ntg = img->n_ptargets, ni = img->pinit_start[nc];
    const uint32_t nps = img->proc_offsets[nc];
#define UP(field, src, count)                                                                      \
    if (rc == WX_OK)                                                                               \
        rc = upload(x, src, (size_t)(count) * sizeof *(src), (const void **)&m->field, err)
    UP(first_bit, img->first_bit, nc + 1);
    UP(proc_offsets, img->proc_offsets, nc + 1);
    UP(pchoice_offsets, img->pchoice_offsets, nps);
    UP(pchoice_key, img->pchoice_key, npc);
    UP(pchoice_start, img->pchoice_start, npc + 1);
    UP(ptarget, img->ptarget, ntg);
    UP(pprob, img->pprob, ntg);
    UP(pnum, img->pnum, ntg);
    UP(pden, img->pden, ntg);
    UP(pinit_start, img->pinit_start, nc + 1);
    UP(pinit_state, img->pinit_state, ni);
    UP(pinit_prob, img->pinit_prob, ni);
    UP(pinit_num, img->pinit_num, ni);
    UP(pinit_den, img->pinit_den, ni);
    UP(class_result, img->class_result, img->n_classes);
    if (rc == WX_OK) {
        UP(rule_part_start, rl.part_start, rl.n_rules + 1);
        UP(rule_part, rl.part, rl.part_start[rl.n_rules]);
        UP(anch_start, rl.anch_start, nc + 1);
        UP(anch_class, rl.anch_class, rl.n_anch);
        UP(anch_rule_start, rl.rule_start, rl.n_anch + 1);
        UP(anch_rule, rl.rule, rl.rule_start[rl.n_anch]);
        m->mask_words = rl.mask_words;
        if (rl.mask_words) {
            UP(mask_blocked, (const unsigned long long *)rl.blocked, (size_t)nps * rl.mask_words);
            UP(mask_valid, (const unsigned long long *)rl.valid, rl.mask_words);
            UP(rule_class, rl.rule_class, rl.n_rules);
        }
    }
    m->prio_n = img->prio_n;
    if (img->prio_n) {
        UP(prio_above_start, img->prio_above_start, img->prio_n + 1);
        UP(prio_above, img->prio_above, img->prio_above_start[img->prio_n]);
        UP(prio_out, img->prio_out, img->prio_n);
    }
#undef UP
    mdp_rules_free(&rl);
    return rc;
}

static uint32_t grid(uint64_t n)
{
    uint64_t b = (n + MDPX_THREADS - 1) / MDPX_THREADS;
    return (uint32_t)(b < 65536 ? (b ? b : 1) : 65536);
}

/* off[0..n] = exclusive sums of cnt[0..n) (cnt[n] must be 0); *total = off[n]. */
static int scan(struct mdpx_run *x, uint64_t *cnt, uint64_t *off, uint64_t n, uint64_t *total,
                struct wx_error *err)
{
    int rc = WX_OK;
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, cnt, off, n + 1));
    if ((rc = dbuf_need(&x->cub_tmp, bytes, 0, err)) != WX_OK)
        goto out;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(x->cub_tmp.p, bytes, cnt, off, n + 1));
    CUDA_CHECK(cudaMemcpy(total, off + n, sizeof *total, cudaMemcpyDeviceToHost));
out:
    return rc;
}

static int check_error(struct mdpx_run *x, struct wx_error *err)
{
    int rc = WX_OK;
    uint32_t e = 0;
    CUDA_CHECK(cudaMemcpy(&e, x->d_error, sizeof e, cudaMemcpyDeviceToHost));
    if (e == MDPX_ERR_COUNT)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                     "GPU MDP explorer: a state has 2^31 or more choices or outcomes before merging");
    else if (e == MDPX_ERR_TABLE)
        rc = wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "GPU MDP explorer: internal error: the state table is full");
out:
    return rc;
}

/* Makes room in the table for `more` new states: at most half full after
 * them; a new table gets every stored state again. */
static int table_room(struct mdpx_run *x, uint64_t more, struct wx_error *err)
{
    int rc = WX_OK;
    uint64_t need = 2 * (x->count + more), cap = x->t.cap;
    mdpx_table t = x->t;
    if (need <= cap)
        return WX_OK;
    while (cap < need)
        cap *= 2;
    t.cap = cap, t.ctl = NULL, t.key = NULL, t.id = NULL, t.first = NULL;
    CUDA_CHECK(cudaMalloc(&t.ctl, cap * 4));
    CUDA_CHECK(cudaMalloc(&t.key, cap * 4 * x->words));
    CUDA_CHECK(cudaMalloc(&t.id, cap * 4));
    CUDA_CHECK(cudaMalloc(&t.first, cap * 8));
    CUDA_CHECK(cudaMemset(t.ctl, 0, cap * 4));
    {
        const uint64_t from = x->fresh ? 1 : 0;
        if (x->count > from) {
            mdpx_k_rehash<<<grid(x->count - from), MDPX_THREADS>>>(t, (const uint32_t *)x->vecs.p, from,
                                                                   x->count, x->d_error);
            CUDA_CHECK_LAUNCH("mdpx_k_rehash");
        }
    }
    cudaFree(x->t.ctl), cudaFree(x->t.key), cudaFree(x->t.id), cudaFree(x->t.first);
    x->t = t;
    return check_error(x, err);
out:
    cudaFree(t.ctl), cudaFree(t.key), cudaFree(t.id), cudaFree(t.first);
    return rc;
}

/* The raw scratch for rc choices and ro outcomes; MDPX_RETRY when device
 * memory is short (nothing changed yet: the caller halves the batch). */
#define MDPX_RETRY (-1)
static int raw_room(struct mdpx_run *x, uint64_t rc_, uint64_t ro, struct wx_error *err)
{
    const uint64_t w = x->words;
    int rc = WX_OK;
    struct { struct dbuf *b; size_t bytes; } need[] = {
        {&x->raw_lab, rc_ * 4}, {&x->raw_n, rc_ * 4}, {&x->raw_start, rc_ * 8}, {&x->raw_perm, rc_ * 4},
        {&x->raw_vec, ro * 4 * w}, {&x->raw_prob, ro * 8},
        {&x->raw_num, x->exact ? ro * 8 : 0}, {&x->raw_den, x->exact ? ro * 8 : 0}};
    for (size_t i = 0; i < sizeof need / sizeof need[0] && rc == WX_OK; i++)
        rc = dbuf_need(need[i].b, need[i].bytes, 0, err);
    return rc == WX_ELIMIT ? MDPX_RETRY : rc;
}

/* Counts, scans and expands states [lb, lb + n) into the raw scratch and
 * the distinct counts; *n_dch / *n_ent: the batch's choices and entries. */
static int batch_expand(struct mdpx_run *x, uint64_t lb, uint64_t n, uint64_t *n_dch, uint64_t *n_ent,
                        struct wx_error *err)
{
    int rc = WX_OK;
    uint64_t raw_ch = 0, raw_out = 0;
    const size_t b8 = (n + 1) * 8;
    struct dbuf *per_state[] = {&x->rch, &x->rout, &x->rch_off, &x->rout_off,
                                &x->dch, &x->dout, &x->dch_off, &x->dout_off};
    for (size_t i = 0; i < 8 && rc == WX_OK; i++)
        rc = dbuf_need(per_state[i], b8, 0, err);
    if (rc != WX_OK)
        return rc == WX_ELIMIT ? MDPX_RETRY : rc;
    uint64_t *rch = (uint64_t *)x->rch.p, *rout = (uint64_t *)x->rout.p;
    uint64_t *rch_off = (uint64_t *)x->rch_off.p, *rout_off = (uint64_t *)x->rout_off.p;
    uint64_t *dch = (uint64_t *)x->dch.p, *dout = (uint64_t *)x->dout.p;
    mdpx_raw r;
    CUDA_CHECK(cudaMemset(rch + n, 0, 8));
    CUDA_CHECK(cudaMemset(rout + n, 0, 8));
    CUDA_CHECK(cudaMemset(dch + n, 0, 8));
    CUDA_CHECK(cudaMemset(dout + n, 0, 8));
    mdpx_k_count<<<grid(n), MDPX_THREADS>>>(x->dimg, (const uint32_t *)x->vecs.p, lb, n, x->fresh, rch,
                                             rout, x->d_error);
    CUDA_CHECK_LAUNCH("mdpx_k_count");
    if ((rc = check_error(x, err)) != WX_OK || (rc = scan(x, rch, rch_off, n, &raw_ch, err)) != WX_OK ||
        (rc = scan(x, rout, rout_off, n, &raw_out, err)) != WX_OK ||
        (rc = raw_room(x, raw_ch, raw_out, err)) != WX_OK)
        goto out;
    mark(x, 0);
    r.lab = (uint32_t *)x->raw_lab.p, r.n = (uint32_t *)x->raw_n.p, r.start = (uint64_t *)x->raw_start.p;
    r.perm = (uint32_t *)x->raw_perm.p, r.vec = (uint32_t *)x->raw_vec.p, r.prob = (double *)x->raw_prob.p;
    r.num = (uint64_t *)x->raw_num.p, r.den = (uint64_t *)x->raw_den.p, r.exact = x->exact;
    mdpx_k_generate<<<grid(n), MDPX_THREADS>>>(x->dimg, r, (const uint32_t *)x->vecs.p, lb, n, x->fresh,
                                                rch_off, rout_off, dch, dout);
    CUDA_CHECK_LAUNCH("mdpx_k_generate");
    if ((rc = scan(x, dch, (uint64_t *)x->dch_off.p, n, n_dch, err)) != WX_OK)
        goto out;
    rc = scan(x, dout, (uint64_t *)x->dout_off.p, n, n_ent, err);
    mark(x, 1);
out:
    return rc;
}

/* Room in the MDP's arrays for the batch: states up to lb + n, n_dch more
 * choices, n_ent more entries and (at most) n_ent more states. */
static int mdp_room(struct mdpx_run *x, uint64_t end, uint64_t n_dch, uint64_t n_ent, struct wx_error *err)
{
    const uint64_t ch = x->n_choices, en = x->n_entries, w = x->words;
    const uint64_t states = x->count + n_ent;
    int rc = WX_OK;
    if (states >= UINT32_MAX)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "the MDP may reach 2^32 - 1 states (32-bit targets)");
    struct { struct dbuf *b; size_t need, used; } a[] = {
        {&x->vecs, states * w * 4, x->count * w * 4},
        {&x->state_start, (end + 1) * 8, end * 8},
        {&x->choice_start, (ch + n_dch + 1) * 8, ch * 8},
        {&x->label, (ch + n_dch) * 4, ch * 4},
        {&x->targets, (en + n_ent) * 4, en * 4},
        {&x->probs, (en + n_ent) * 8, en * 8},
        {&x->num, x->exact ? (en + n_ent) * 8 : 0, en * 8},
        {&x->den, x->exact ? (en + n_ent) * 8 : 0, en * 8},
        {&x->evec, n_ent * w * 4, 0},
        {&x->eslot, n_ent * 8, 0},
        {&x->is_new, (n_ent + 1) * 8, 0},
        {&x->new_off, (n_ent + 1) * 8, 0}};
    for (size_t i = 0; i < sizeof a / sizeof a[0] && rc == WX_OK; i++)
        rc = dbuf_need(a[i].b, a[i].need, a[i].used, err);
    if (rc == WX_OK)
        rc = table_room(x, n_ent, err);
    return rc;
}

/* One batch: states [lb, lb + n) expanded into the MDP, their successors
 * found or numbered. */
static int batch(struct mdpx_run *x, uint64_t lb, uint64_t n, struct wx_error *err)
{
    uint64_t n_dch = 0, n_ent = 0, n_new = 0;
    mark(x, -1);
    x->n_batches++;
    int rc = batch_expand(x, lb, n, &n_dch, &n_ent, err);
    if (rc != WX_OK || (rc = mdp_room(x, lb + n, n_dch, n_ent, err)) != WX_OK)
        return rc;
    mark(x, 2);
    mdpx_raw r = {(uint32_t *)x->raw_lab.p, (uint32_t *)x->raw_n.p, (uint64_t *)x->raw_start.p,
                  (uint32_t *)x->raw_perm.p, (uint32_t *)x->raw_vec.p, (double *)x->raw_prob.p,
                  (uint64_t *)x->raw_num.p, (uint64_t *)x->raw_den.p, x->exact};
    mdpx_out d = {(uint64_t *)x->state_start.p, (uint64_t *)x->choice_start.p, (uint32_t *)x->label.p,
                  (double *)x->probs.p, (uint64_t *)x->num.p, (uint64_t *)x->den.p,
                  x->n_choices, x->n_entries, (uint32_t *)x->evec.p};
    uint64_t *eslot = (uint64_t *)x->eslot.p, *is_new = (uint64_t *)x->is_new.p;
    mdpx_k_compact<<<grid(n), MDPX_THREADS>>>(r, x->words, lb, n, (const uint64_t *)x->rch_off.p,
                                               (const uint64_t *)x->dch_off.p,
                                               (const uint64_t *)x->dout_off.p, d);
    CUDA_CHECK_LAUNCH("mdpx_k_compact");
    mark(x, 3);
    if (n_ent) {
        mdpx_k_insert<<<grid(n_ent), MDPX_THREADS>>>(x->t, d.evec, n_ent, eslot, x->d_error);
        CUDA_CHECK_LAUNCH("mdpx_k_insert");
        mark(x, 4);
        CUDA_CHECK(cudaMemset(is_new + n_ent, 0, 8));
        mdpx_k_flag<<<grid(n_ent), MDPX_THREADS>>>(x->t, eslot, n_ent, is_new);
        CUDA_CHECK_LAUNCH("mdpx_k_flag");
        if ((rc = check_error(x, err)) != WX_OK ||
            (rc = scan(x, is_new, (uint64_t *)x->new_off.p, n_ent, &n_new, err)) != WX_OK)
            goto out;
        mdpx_k_number<<<grid(n_ent), MDPX_THREADS>>>(x->t, eslot, is_new, (const uint64_t *)x->new_off.p,
                                                      d.evec, n_ent, x->count, (uint32_t *)x->vecs.p);
        CUDA_CHECK_LAUNCH("mdpx_k_number");
        mdpx_k_target<<<grid(n_ent), MDPX_THREADS>>>(x->t, eslot, n_ent,
                                                      (uint32_t *)x->targets.p + x->n_entries);
        CUDA_CHECK_LAUNCH("mdpx_k_target");
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    mark(x, 5);
    x->count += n_new, x->n_choices += n_dch, x->n_entries += n_ent;
out:
    return rc;
}

/* The initial state: the zero vector, or the fresh state 0 (all ones, not
 * in the table) before the initial distributions. */
static int seed(struct mdpx_run *x, struct wx_error *err)
{
    const struct image *img = x->img;
    int rc = WX_OK;
    x->fresh = false;
    for (uint32_t c = 0; c < img->n_comps; c++)
        x->fresh |= img->pinit_start[c + 1] - img->pinit_start[c] != 1;
    x->res->fresh_initial = x->fresh;
    if ((rc = dbuf_need(&x->vecs, (size_t)x->words * 4 + 4, 0, err)) != WX_OK)
        return rc;
    CUDA_CHECK(cudaMemset(x->vecs.p, x->fresh ? 0xff : 0, (size_t)x->words * 4));
    x->count = 1;
    if (!x->fresh) {
        mdpx_k_rehash<<<1, 1>>>(x->t, (const uint32_t *)x->vecs.p, 0, 1, x->d_error);
        CUDA_CHECK_LAUNCH("mdpx_k_rehash");
        rc = check_error(x, err);
    }
out:
    return rc;
}

/* The BFS: each level [lb, le) in batches, until a level adds no state. */
static int levels(struct mdpx_run *x, struct wx_error *err)
{
    uint64_t lb = 0, le = 1;
    for (;;) {
        for (uint64_t s = lb; s < le;) {
            if (x->opt->cancel && *x->opt->cancel)
                return wx_fail(err, WX_EINTERRUPT, NULL, 0, 0, "interrupted");
            uint64_t n = le - s < x->batch ? le - s : x->batch;
            int rc = batch(x, s, n, err);
            if (rc == MDPX_RETRY && n > 1) {
                x->batch = n / 2;
                continue;
            }
            if (rc == MDPX_RETRY)
                return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                               "out of device memory expanding state %llu", (unsigned long long)s);
            if (rc != WX_OK)
                return rc;
            s += n;
        }
        if (x->count == le) {
            x->res->complete = true;
            return WX_OK;
        }
        lb = le, le = x->count;
        x->res->depth++;
    }
}

/* One device array to bring into a new host array *h. */
struct download {
    void **h;
    const void *src;
    size_t bytes;
};

/* The arrays of dl[0..k) (k <= 8) into new host arrays (hostcopy_alloc:
 * at least one byte each), copied in one staged batch (kernels/hostcopy.h);
 * on failure none is left allocated (each *h NULL). */
static int download(const struct download *dl, int k, struct wx_error *err)
{
    struct hostcopy_part parts[8];
    int rc = WX_OK;
    for (int i = 0; i < k; i++) {
        *dl[i].h = hostcopy_alloc(dl[i].bytes);
        parts[i] = (struct hostcopy_part){*dl[i].h, dl[i].src, dl[i].bytes};
        if (!*dl[i].h && rc == WX_OK)
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory for the explored MDP");
    }
    if (rc == WX_OK)
        rc = hostcopy_down_parts(parts, k, err);
    for (int i = 0; i < k && rc != WX_OK; i++) {
        free(*dl[i].h);
        *dl[i].h = NULL;
    }
    return rc;
}

/* deadlocks += the states without a choice. */
static __global__ void mdpx_k_deadlocks(const uint64_t *__restrict__ ss, uint64_t n,
                                        unsigned long long *deadlocks)
{
    unsigned long long k = 0;
    for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < n;
         s += (uint64_t)gridDim.x * blockDim.x)
        k += ss[s] == ss[s + 1];
    if (k)
        atomicAdd(deadlocks, k);
}

/* res->deadlocks counted on the device (the host MDP is not there). */
static int count_deadlocks(struct mdpx_run *x, uint64_t ns, struct wx_error *err)
{
    int rc = WX_OK;
    unsigned long long *d = NULL, h = 0;
    CUDA_CHECK(cudaMalloc(&d, sizeof *d));
    CUDA_CHECK(cudaMemset(d, 0, sizeof *d));
    mdpx_k_deadlocks<<<grid(ns), MDPX_THREADS>>>((const uint64_t *)x->state_start.p, ns, d);
    CUDA_CHECK_LAUNCH("mdpx_k_deadlocks");
    CUDA_CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    x->res->deadlocks = h;
out:
    cudaFree(d);
    return rc;
}

/* The MDP into res (explore_mdp's result layout; x->host 0: only the
 * counts, the fractions and vectors asked for; 2: the skeleton, state
 * offsets and choice labels), the deadlocks counted. */
static int finish(struct mdpx_run *x, struct wx_error *err)
{
    struct mdp_explore_result *res = x->res;
    struct mdp *m = &res->mdp;
    const uint64_t ns = x->count, nch = x->n_choices, ne = x->n_entries;
    int rc = dbuf_need(&x->choice_start, (nch + 1) * 8, nch * 8, err);
    if (rc == WX_OK)
        rc = dbuf_need(&x->state_start, (ns + 1) * 8, ns * 8, err);
    if (rc != WX_OK)
        return rc;
    CUDA_CHECK(cudaMemcpy((uint64_t *)x->state_start.p + ns, &nch, 8, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((uint64_t *)x->choice_start.p + nch, &ne, 8, cudaMemcpyHostToDevice));
    m->n_states = ns, m->n_choices = nch, m->n_entries = ne;
    {
        struct download dl[8];
        int k = 0;
        if (x->host) {
            dl[k++] = {(void **)&m->state_start, x->state_start.p, (ns + 1) * 8};
            dl[k++] = {(void **)&res->choice_label, x->label.p, nch * 4};
        }
        if (x->host == 1) {
            dl[k++] = {(void **)&m->choice_start, x->choice_start.p, (nch + 1) * 8};
            dl[k++] = {(void **)&m->targets, x->targets.p, ne * 4};
            dl[k++] = {(void **)&m->probs, x->probs.p, ne * 8};
        }
        if (x->exact) {
            dl[k++] = {(void **)&res->entry_num, x->num.p, ne * 8};
            dl[k++] = {(void **)&res->entry_den, x->den.p, ne * 8};
        }
        if (x->opt->keep_vectors)
            dl[k++] = {(void **)&res->vectors, x->vecs.p, (size_t)ns * x->words * 4};
        if ((rc = download(dl, k, err)) != WX_OK)
            goto out;
    }
    if (!x->host)
        rc = count_deadlocks(x, ns, err);
    else
        for (uint64_t s = 0; s < ns; s++)
            res->deadlocks += m->state_start[s] == m->state_start[s + 1];
out:
    return rc;
}

/* The device MDP's arrays move from the run's buffers into *dev (the run
 * no longer frees them). */
static void hand_over(struct mdpx_run *x, struct mdp_dev *dev)
{
    const struct mdp *m = &x->res->mdp;
    dev->n_states = m->n_states, dev->n_choices = m->n_choices, dev->n_entries = m->n_entries;
    dev->d_state_start = (uint64_t *)x->state_start.p;
    dev->d_choice_start = (uint64_t *)x->choice_start.p;
    dev->d_targets = (uint32_t *)x->targets.p;
    dev->d_probs = (double *)x->probs.p;
    dev->d_choice_label = (uint32_t *)x->label.p;
    dev->owned = 1;
    x->state_start.p = x->choice_start.p = x->targets.p = x->probs.p = x->label.p = NULL;
}

static void run_free(struct mdpx_run *x)
{
    struct dbuf *all[] = {&x->vecs, &x->state_start, &x->choice_start, &x->label, &x->targets,
                          &x->probs, &x->num, &x->den, &x->rch, &x->rout, &x->rch_off,
                          &x->rout_off, &x->dch, &x->dout, &x->dch_off, &x->dout_off,
                          &x->raw_lab, &x->raw_n, &x->raw_start, &x->raw_perm, &x->raw_vec,
                          &x->raw_prob, &x->raw_num, &x->raw_den, &x->evec, &x->eslot,
                          &x->is_new, &x->new_off, &x->cub_tmp};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        cudaFree(all[i]->p);
    for (int i = 0; i < x->n_uploads; i++)
        cudaFree(x->uploads[i]);
    cudaFree(x->t.ctl), cudaFree(x->t.key), cudaFree(x->t.id), cudaFree(x->t.first);
    cudaFree(x->d_error);
}

static uint64_t run_bytes(const struct mdpx_run *x)
{
    return x->t.cap * (16 + 4ull * x->words) + x->vecs.cap + x->state_start.cap + x->choice_start.cap +
           x->label.cap + x->targets.cap + x->probs.cap + x->num.cap + x->den.cap;
}

/* The table's first slots and the error word. */
static int run_init(struct mdpx_run *x, const struct mdp_gpu_tuning *tu, struct wx_error *err)
{
    int rc = WX_OK;
    uint64_t cap = 64, want = tu && tu->table_slots ? tu->table_slots : MDPX_TABLE_DEFAULT;
    while (cap < want)
        cap *= 2;
    x->batch = tu && tu->batch_states ? tu->batch_states : MDPX_BATCH_DEFAULT;
    x->timeline = tu && tu->timeline;
    x->t.cap = cap, x->t.words = x->words;
    CUDA_CHECK(cudaMalloc(&x->d_error, 4));
    CUDA_CHECK(cudaMemset(x->d_error, 0, 4));
    CUDA_CHECK(cudaMalloc(&x->t.ctl, cap * 4));
    CUDA_CHECK(cudaMalloc(&x->t.key, cap * 4 * x->words));
    CUDA_CHECK(cudaMalloc(&x->t.id, cap * 4));
    CUDA_CHECK(cudaMalloc(&x->t.first, cap * 8));
    CUDA_CHECK(cudaMemset(x->t.ctl, 0, cap * 4));
out:
    return rc;
}

extern "C" int explore_mdp_gpu_available(void)
{
    int count = 0, dev = 0, major = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0 || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return major >= 9;
}

/* The exploration into *res, and with dev != NULL the device MDP into
 * *dev (explore_mdp_gpu_dev). */
static int explore(const struct image *img, const struct explore_options *opt_in, bool exact,
                   const struct mdp_gpu_tuning *tuning, int host_mdp, struct mdp_explore_result *res,
                   struct mdp_dev *dev, struct wx_error *err)
{
    static const struct explore_options defaults = {};
    const struct explore_options *opt = opt_in ? opt_in : &defaults;
    const double t0 = wx_now();
    memset(res, 0, sizeof *res);
    if (dev)
        memset(dev, 0, sizeof *dev);
    if (!img->probabilistic || !img->pchoice_offsets)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "explore_mdp_gpu needs a probabilistic network (no component has a distribution)");
    if (!explore_mdp_gpu_available())
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "GPU MDP explorer: no usable CUDA device (compute capability >= 9.0); use --backend cpu");
    struct mdpx_run *x = (struct mdpx_run *)calloc(1, sizeof *x);
    if (!x)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    x->img = img, x->opt = opt, x->res = res, x->exact = exact, x->words = img->words;
    x->host = dev ? host_mdp : 1;
    x->timeline = tuning && tuning->timeline;
    mark(x, -1);
    int rc = upload_image(x, err);
    if (rc == WX_OK)
        rc = run_init(x, tuning, err);
    if (rc == WX_OK)
        rc = seed(x, err);
    mark(x, 6);
    if (rc == WX_OK)
        rc = levels(x, err);
    mark(x, -1);
    if (rc == WX_OK)
        rc = finish(x, err);
    mark(x, 7);
    if (x->timeline)
        print_timeline(x);
    if (rc != WX_OK) {
        mdp_explore_result_free(res);
        res->complete = false;
        res->mdp.n_states = x->count, res->mdp.n_choices = x->n_choices, res->mdp.n_entries = x->n_entries;
    }
    res->bytes = run_bytes(x);
    if (rc == WX_OK && dev)
        hand_over(x, dev);
    run_free(x);
    free(x);
    res->threads = 0;
    res->seconds = wx_now() - t0;
    return rc;
}

extern "C" int explore_mdp_gpu_tuned(const struct image *img, const struct explore_options *opt,
                                     bool exact, const struct mdp_gpu_tuning *tuning,
                                     struct mdp_explore_result *res, struct wx_error *err)
{
    return explore(img, opt, exact, tuning, 1, res, NULL, err);
}

extern "C" int explore_mdp_gpu_dev(const struct image *img, const struct explore_options *opt,
                                   bool exact, const struct mdp_gpu_tuning *tuning, int host_mdp,
                                   struct mdp_explore_result *res, struct mdp_dev *dev,
                                   struct wx_error *err)
{
    return explore(img, opt, exact, tuning, host_mdp, res, dev, err);
}

extern "C" int mdp_dev_download(const struct mdp_dev *d, struct mdp *m, uint32_t **labels,
                                struct wx_error *err)
{
    memset(m, 0, sizeof *m);
    if (labels)
        *labels = NULL;
    if (labels && !d->d_choice_label && d->n_choices)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "mdp_dev_download: the device MDP has no choice labels");
    const struct download dl[2] = {{(void **)&m->state_start, d->d_state_start, (d->n_states + 1) * 8},
                                   {(void **)labels, d->d_choice_label, d->n_choices * 4}};
    m->n_states = d->n_states, m->n_choices = d->n_choices, m->n_entries = d->n_entries;
    int rc = download(dl, labels ? 2 : 1, err); /* the skeleton, then the rest */
    if (rc == WX_OK && (rc = mdp_dev_download_rest(d, m, err)) != WX_OK && labels) {
        free(*labels);
        *labels = NULL;
    }
    if (rc != WX_OK)
        mdp_free(m);
    return rc;
}

extern "C" int mdp_dev_download_rest(const struct mdp_dev *d, struct mdp *m, struct wx_error *err)
{
    const uint64_t nch = d->n_choices, ne = d->n_entries;
    if (m->n_states != d->n_states || nch != m->n_choices || ne != m->n_entries || m->choice_start ||
        m->targets || m->probs)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "mdp_dev_download_rest: the host MDP is not the device MDP's skeleton");
    const struct download dl[3] = {{(void **)&m->choice_start, d->d_choice_start, (nch + 1) * 8},
                                   {(void **)&m->targets, d->d_targets, ne * 4},
                                   {(void **)&m->probs, d->d_probs, ne * 8}};
    return download(dl, 3, err);
}

extern "C" int mdp_dev_upload(const struct mdp *m, struct mdp_dev *d, struct wx_error *err)
{
    int rc = WX_OK;
    const uint64_t ns = m->n_states, nch = m->n_choices, ne = m->n_entries;
    memset(d, 0, sizeof *d);
    d->owned = 1;
    d->n_states = ns, d->n_choices = nch, d->n_entries = ne;
    CUDA_CHECK_NAMED(cudaMalloc((void **)&d->d_state_start, (ns + 1) * 8), "cudaMalloc (MDP state offsets)");
    CUDA_CHECK_NAMED(cudaMalloc((void **)&d->d_choice_start, (nch + 1) * 8), "cudaMalloc (MDP choice offsets)");
    if (ne) {
        CUDA_CHECK_NAMED(cudaMalloc((void **)&d->d_targets, ne * 4), "cudaMalloc (MDP targets)");
        CUDA_CHECK_NAMED(cudaMalloc((void **)&d->d_probs, ne * 8), "cudaMalloc (MDP probabilities)");
    }
    CUDA_CHECK(cudaMemcpy(d->d_state_start, m->state_start, (ns + 1) * 8, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->d_choice_start, m->choice_start, (nch + 1) * 8, cudaMemcpyHostToDevice));
    if (ne) {
        CUDA_CHECK(cudaMemcpy(d->d_targets, m->targets, ne * 4, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d->d_probs, m->probs, ne * 8, cudaMemcpyHostToDevice));
    }
out:
    if (rc != WX_OK)
        mdp_dev_free(d);
    return rc;
}

extern "C" void mdp_dev_free(struct mdp_dev *d)
{
    if (d->owned) {
        cudaFree(d->d_state_start), cudaFree(d->d_choice_start), cudaFree(d->d_targets);
        cudaFree(d->d_probs), cudaFree(d->d_choice_label);
    }
    memset(d, 0, sizeof *d);
}

extern "C" int explore_mdp_gpu(const struct image *img, const struct explore_options *opt, bool exact,
                               struct mdp_explore_result *res, struct wx_error *err)
{
    return explore_mdp_gpu_tuned(img, opt, exact, NULL, res, err);
}
