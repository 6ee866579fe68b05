/*
 * test_gpu.c -- the GPU explorer against CPU references, on a GPU machine.
 * Built and run by bench/gpu_test.sh only (not by `make test`).
 *
 *   test_gpu [--quick] [--seed N] [--images N] [--big]
 *
 * References: gpu_ref.h's plain BFS over the image (always), and
 * explore_seq when the library has it (built with -DHAVE_EXPLORE_SEQ).
 * Every run compares states, transitions, deadlocks (and depth in level
 * mode); with keep_vectors the state set; with the edge sink the edge set as
 * sorted (source vector, label, target vector) triples; with properties the
 * violation kind, the shortest trace length, and the trace itself replayed
 * on the CPU.  Cases: hand-made images for known pitfalls, >= 200 random
 * images under random knobs (tiny caches, tiny queues, level or async,
 * textures or plain loads, block and thread counts), and stress cases (a
 * table at 90% load with long probe chains, a table too small -> WX_ELIMIT,
 * multi-word vectors racing for few buckets, heavy nondeterminism, > 32
 * components, vectors wider than a cache line, an extra control word),
 * and the growing table (many growths, through host memory, pending
 * states left to the scanners, a restart with the largest table).
 * Seeds are printed; `--seed` replays.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../explorer/explore.h"
#include "../../kernels/explore_gpu.h"
#include "../check.h"
#if defined(HAVE_FRONTEND) && defined(HAVE_EXPLORE_SEQ)
#endif
#include "gpu_ref.h"

static int quick;
static struct gpu_run_stats last_stats; /* of the last run_one */
static uint64_t n_runs, n_images, n_fast_runs, n_anchored_runs, n_general_runs;

/* ---- edge collection ---- */
struct ecoll {
    struct product_edge *e;
    size_t n, cap;
};

static int coll_emit(void *ctx, const struct product_edge *e, size_t n, struct wx_error *err)
{
    (void)err;
    struct ecoll *c = (struct ecoll *)ctx;
    if (c->n + n > c->cap) {
        size_t cap = c->cap ? c->cap : 1024;
        while (cap < c->n + n)
            cap *= 2;
        struct product_edge *ne = (struct product_edge *)realloc(c->e, cap * sizeof *ne);
        if (!ne)
            abort();
        c->e = ne;
        c->cap = cap;
    }
    memcpy(c->e + c->n, e, n * sizeof *e);
    c->n += n;
    return 0;
}

/* explore_result_free lives in the CPU explorer module; the GPU tests free
 * what explore_gpu allocates themselves so that they link without it. */
static void res_free(struct explore_result *res)
{
    free(res->trace.labels);
    free(res->trace.states);
    free(res->trace.vectors);
    free(res->vectors);
    memset(&res->trace, 0, sizeof res->trace);
    res->vectors = NULL;
    dgraph_free(&res->device_graph);
}

/* ---- one configuration ---- */
struct cfg {
    struct gpu_options go;
    struct gpu_tuning tun;
    int keep, edges, trace, dead, action;
    int finish;            /* finish_after_violation */
    uint64_t memory;
};

static void cfg_describe(const struct cfg *c, char *buf, size_t n)
{
    snprintf(buf, n,
             "proto=%d occ2=%d blocks=%u threads=%u k=%u hash=%llu probe=%u tex=%d level=%d cache=%u/%u queue=%llu G=%u ecap=%llu "
             "keep=%d edges=%d trace=%d dead=%d action=%d finish=%d grow_from=%llu via_host=%d gen=%d",
             c->tun.insert_protocol, c->tun.occupancy2, c->go.blocks, c->go.threads, c->go.iterations, (unsigned long long)c->go.hash_bytes, c->go.probe_bound,
             c->go.use_textures, c->tun.level_sync, c->tun.cache_slots, c->tun.cache_probes,
             (unsigned long long)c->tun.queue_cap, c->tun.group_size, (unsigned long long)c->tun.edge_cap, c->keep,
             c->edges, c->trace, c->dead, c->action, c->finish, (unsigned long long)c->tun.grow_from, c->tun.grow_via_host,
             c->tun.generator);
}

static void cfg_default(struct cfg *c)
{
    memset(c, 0, sizeof *c);
    c->go.use_textures = -1;
    c->tun.level_sync = -1;
    c->tun.occupancy2 = -1;
}

/* A random configuration; hash_bytes sized for `states`. */
static uint32_t slot_words_of(const struct image *img, int insert_protocol);

static void cfg_random(struct cfg *c, struct rng *r, uint64_t states, const struct image *img)
{
    cfg_default(c);
    c->tun.insert_protocol = (int)rndu(r, 4);
    const uint32_t slot_words = slot_words_of(img, c->tun.insert_protocol);
    static const uint32_t th[] = {32, 64, 128, 256, 512};
    if (rndu(r, 2))
        c->go.threads = th[rndu(r, 5)];
    if (slot_words > 32 && c->go.threads > 128)
        c->go.threads = 128;
    if (rndu(r, 3) == 0)
        c->go.blocks = 1 + rndu(r, 8);
    if (rndu(r, 2))
        c->go.iterations = 1 + rndu(r, 8);
    c->go.use_textures = (int)rndu(r, 3) - 1;
    /* table: 2x..8x the states, in bytes */
    const uint64_t spb = slot_words <= 32 ? 32 / slot_words : 1;
    const uint64_t bw = slot_words <= 32 ? 128 : 128 * ((slot_words + 31) / 32);
    const uint64_t buckets = (states * (2 + rndu(r, 7))) / spb + 8;
    c->go.hash_bytes = buckets * bw;
    if (rndu(r, 4) == 0)
        c->tun.level_sync = 1;
    if (rndu(r, 4) == 0) {
        c->tun.cache_slots = 1 + rndu(r, 8);
        c->tun.cache_probes = 1 + rndu(r, 3);
    }
    if (rndu(r, 4) == 0)
        c->tun.queue_cap = 1 + rndu(r, 16);
    if (rndu(r, 5) == 0)
        c->tun.group_size = 1u << rndu(r, 6);
    /* successor generator: default, fast (where the image allows it),
     * general, fast with anchored rule lists (random_images also forces
     * each once per image) */
    c->tun.generator = (int)rndu(r, 4);
    c->tun.occupancy2 = (int)rndu(r, 3) - 1;
    c->keep = rndu(r, 3) == 0;
    c->edges = rndu(r, 4) == 0;
    if (c->edges && rndu(r, 2)) {
        /* a small edge buffer (raised by explore_gpu to what one launch
         * needs) and few blocks: the host stages edges many times */
        c->tun.edge_cap = 64 + rndu(r, 4096);
        c->go.blocks = 1 + rndu(r, 2);
        c->go.threads = 32 * (1 + rndu(r, 2));
    }
    const uint32_t prop = rndu(r, 6);
    c->dead = prop == 1 || prop == 3;
    c->action = prop == 2 || prop == 3;
    c->trace = (c->dead || c->action) && rndu(r, 4) != 0;
    c->finish = (c->dead || c->action) && rndu(r, 2) != 0;
    /* a growing table (asynchronous mode without graph or properties):
     * from 128 bytes to 16 KiB, so it grows several times, or fills within
     * a launch and restarts with the largest table */
    if (!c->edges && !c->dead && !c->action && c->tun.level_sync != 1 && rndu(r, 3) == 0) {
        c->go.hash_bytes = 0;
        c->tun.grow_from = 128u << rndu(r, 8);
        c->tun.grow_via_host = rndu(r, 4) == 0;
    }
}

/* run_one's options for configuration c: edges into sink when asked. */
static void run_options(const struct cfg *c, const uint8_t *action, struct edge_sink *sink,
                        struct explore_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->gpu = c->go;
    if (quick && (opt->gpu.blocks == 0 || opt->gpu.blocks > 8))
        opt->gpu.blocks = 8; /* sanitizer runs: few blocks, same code paths */
    opt->keep_vectors = c->keep || c->edges || c->trace;
    opt->trace = c->trace;
    opt->stop_on_deadlock = c->dead;
    opt->action_match = c->action ? action : NULL;
    opt->finish_after_violation = c->finish;
    opt->memory_bytes = c->memory;
    if (c->edges)
        opt->sink = sink;
    /* the graph kept on the device must be the sink's, in the same order */
    /* (with a small edge_cap the graph outgrows the exploration's edge
     * buffer and is gathered on the device at the end) */
    opt->keep_device_graph = c->edges && ((!c->dead && !c->action) || c->finish);
}

/* The generator that ran is the one the knobs and the image ask for
 * (fast: <= 4 words, 1..64 components; anchored rule lists beyond
 * 128 rules or when asked for); counts the runs per generator.  Each
 * run_check_* returns nonzero with why filled when the run is wrong. */
static int run_check_generator(const struct image *img, const struct cfg *c, const struct gpu_run_stats *st,
                               char *why, size_t n)
{
    const int elig = img->words <= 4 && img->n_comps >= 1 && img->n_comps <= 64;
    const int gen = c->tun.generator;
    const int want_fast = elig && (gen == 1 || gen == 3 || (gen == 0 && c->tun.group_size <= 1));
    const int want_anchored = want_fast && (gen == 3 || img->n_rules > 128);
    if (st->fast_eligible != elig || st->fast_gen != want_fast || (want_fast && st->fast_anchored != want_anchored)) {
        snprintf(why, n, "generator: fast_gen=%d eligible=%d anchored=%d, expected %d/%d/%d", st->fast_gen,
                 st->fast_eligible, st->fast_anchored, want_fast, elig, want_anchored);
        return 1;
    }
    if (st->fast_gen)
        n_fast_runs++, n_anchored_runs += st->fast_anchored != 0;
    else
        n_general_runs++;
    return 0;
}

/* A run that must stop at a limit: WX_ELIMIT with a partial space. */
static void run_check_limit(int rc, const struct explore_result *res, const struct ref_result *ref,
                            const struct wx_error *err, char *why, size_t n)
{
    if (rc != WX_ELIMIT)
        snprintf(why, n, "expected WX_ELIMIT, got %d (%s)", rc, err->msg);
    else if (res->complete)
        snprintf(why, n, "WX_ELIMIT but complete");
    else if (res->states > ref->states)
        snprintf(why, n, "partial states %llu > %llu", (unsigned long long)res->states,
                 (unsigned long long)ref->states);
}

/* The violation configuration c expects, and its shortest trace length. */
static enum explore_violation run_want(const struct cfg *c, const struct ref_result *ref, uint32_t *want_len)
{
    enum explore_violation want = VIOLATION_NONE;
    *want_len = 0;
    const uint32_t d = c->dead ? ref->min_dead_level : UINT32_MAX;
    const uint32_t a = c->action ? ref->min_act_level : UINT32_MAX;
    if (d != UINT32_MAX && d <= a)
        want = VIOLATION_DEADLOCK, *want_len = d;
    else if (a != UINT32_MAX)
        want = VIOLATION_ACTION, *want_len = a + 1;
    return want;
}

/* The counts of a complete run; finish_after_violation: the same violation,
 * and the whole space. */
static int run_check_counts(const struct cfg *c, const struct ref_result *ref, const struct explore_result *res,
                            const struct gpu_run_stats *st, enum explore_violation want, char *why, size_t n)
{
    if (want == VIOLATION_NONE || c->finish) {
        if (!res->complete || res->states != ref->states || res->transitions != ref->transitions ||
            res->deadlocks != ref->deadlocks) {
            snprintf(why, n, "complete=%d states %llu/%llu transitions %llu/%llu deadlocks %llu/%llu",
                     res->complete, (unsigned long long)res->states, (unsigned long long)ref->states,
                     (unsigned long long)res->transitions, (unsigned long long)ref->transitions,
                     (unsigned long long)res->deadlocks, (unsigned long long)ref->deadlocks);
            return 1;
        }
        if (st->level_sync && res->depth != ref->depth) {
            snprintf(why, n, "depth %u, expected %u", res->depth, ref->depth);
            return 1;
        }
    } else if (res->complete) {
        snprintf(why, n, "complete after a violation");
        return 1;
    }
    return 0;
}

/* vectors: a subset of the reachable set, each once, 0 first; the whole
 * set when complete */
static int run_check_vectors(const struct ref_result *ref, const struct explore_result *res, uint32_t W,
                             char *why, size_t n)
{
    if (!res->vectors) {
        snprintf(why, n, "no vectors");
        return 1;
    }
    uint8_t *seen = (uint8_t *)calloc(ref->states + 1, 1);
    for (uint64_t i = 0; i < res->states && !why[0]; i++) {
        const uint64_t id = vs_find(&ref->set, res->vectors + i * W);
        if (id == UINT64_MAX)
            snprintf(why, n, "vector of id %llu not reachable", (unsigned long long)i);
        else if (seen[id]++)
            snprintf(why, n, "vector of id %llu stored twice", (unsigned long long)i);
        else if (i == 0 && id != 0)
            snprintf(why, n, "id 0 is not the initial state");
    }
    free(seen);
    return why[0] != 0;
}

/* The graph kept on the device: the sink's edges, in the same order. */
static int run_check_device_graph(const struct explore_result *res, const struct ecoll *ec, struct wx_error *err,
                                  char *why, size_t n)
{
    const struct dgraph *dg = &res->device_graph;
    if (dg->n_vertices != res->states || dg->n_edges != ec->n || !dg->d_offsets) {
        snprintf(why, n, "device graph %llu vertices %llu edges, expected %llu / %zu",
                 (unsigned long long)dg->n_vertices, (unsigned long long)dg->n_edges,
                 (unsigned long long)res->states, ec->n);
        return 1;
    }
    uint64_t *off = (uint64_t *)malloc((dg->n_vertices + 1) * 8);
    uint32_t *tg = (uint32_t *)malloc((dg->n_edges ? dg->n_edges : 1) * 4);
    uint32_t *lb = (uint32_t *)malloc((dg->n_edges ? dg->n_edges : 1) * 4);
    if (dgraph_download(dg, off, tg, lb, err))
        snprintf(why, n, "device graph download: %s", err->msg);
    for (uint64_t v = 0; v < dg->n_vertices && !why[0]; v++)
        for (uint64_t e = off[v]; e < off[v + 1] && !why[0]; e++)
            if (e >= ec->n || ec->e[e].src != v || ec->e[e].dst != tg[e] || ec->e[e].label != lb[e])
                snprintf(why, n, "device graph differs from the sink's edges at %llu",
                         (unsigned long long)e);
    if (!why[0] && (off[0] != 0 || off[dg->n_vertices] != ec->n))
        snprintf(why, n, "device graph offsets do not span the edges");
    free(off);
    free(tg);
    free(lb);
    return why[0] != 0;
}

/* The sink's edges: the reference's edge set, in CSR order when they all
 * fit on the device; then the graph kept on the device. */
static int run_check_edges(const struct cfg *c, const struct ref_result *ref, const struct explore_options *opt,
                           const struct explore_result *res, const struct ecoll *ec, struct wx_error *err,
                           uint32_t W, char *why, size_t n)
{
    if (ec->n != ref->nedges) {
        snprintf(why, n, "edges %zu, expected %llu", ec->n, (unsigned long long)ref->nedges);
        return 1;
    }
    struct ref_edge *m = (struct ref_edge *)malloc((ec->n ? ec->n : 1) * sizeof *m);
    for (size_t i = 0; i < ec->n && !why[0]; i++) {
        if (ec->e[i].src >= res->states || ec->e[i].dst >= res->states) {
            snprintf(why, n, "edge %zu has an id out of range", i);
            break;
        }
        m[i].src = vs_find(&ref->set, res->vectors + ec->e[i].src * W);
        m[i].dst = vs_find(&ref->set, res->vectors + ec->e[i].dst * W);
        m[i].label = ec->e[i].label;
    }
    /* with the default edge buffer everything fits on the device and
     * explore_gpu emits in CSR order (by source id) */
    for (size_t i = 1; i < ec->n && !why[0] && c->tun.edge_cap == 0; i++)
        if (ec->e[i].src < ec->e[i - 1].src)
            snprintf(why, n, "edges not in CSR order at %zu", i);
    if (!why[0]) {
        qsort(m, ec->n, sizeof *m, edge_cmp);
        for (size_t i = 0; i < ec->n && !why[0]; i++)
            if (edge_cmp(&m[i], &ref->edges[i]))
                snprintf(why, n, "edge sets differ at sorted position %zu", i);
    }
    free(m);
    if (why[0])
        return 1;
    if (opt->keep_device_graph)
        return run_check_device_graph(res, ec, err, why, n);
    return 0;
}

/* The trace of a violation: the shortest, from the zero vector, each step a
 * transition, ids matching the kept vectors, ending where it must. */
static void run_check_trace(const struct image *img, const struct explore_options *opt,
                            const struct explore_result *res, const uint8_t *action, enum explore_violation want,
                            uint32_t want_len, uint32_t W, char *why, size_t n)
{
    const struct trace *tr = &res->trace;
    if (tr->len != want_len) {
        snprintf(why, n, "trace length %u, shortest is %u", tr->len, want_len);
        return;
    }
    if (!tr->states || !tr->vectors || (tr->len && !tr->labels) || tr->states[0] != 0) {
        snprintf(why, n, "trace arrays missing or not starting at state 0");
        return;
    }
    for (uint32_t i = 0; i < W; i++)
        if (tr->vectors[i]) {
            snprintf(why, n, "trace does not start at the zero vector");
            return;
        }
    for (uint32_t i = 0; i < tr->len; i++)
        if (!ref_is_succ(img, tr->vectors + (size_t)i * W, tr->labels[i], tr->vectors + (size_t)(i + 1) * W)) {
            snprintf(why, n, "trace step %u is not a transition", i);
            return;
        }
    for (uint32_t i = 0; i <= tr->len && opt->keep_vectors; i++)
        if (tr->states[i] >= res->states ||
            memcmp(res->vectors + tr->states[i] * W, tr->vectors + (size_t)i * W, W * 4)) {
            snprintf(why, n, "trace state %u: id and vector disagree", i);
            return;
        }
    if (want == VIOLATION_DEADLOCK && ref_n_succ(img, tr->vectors + (size_t)tr->len * W) != 0) {
        snprintf(why, n, "trace does not end in a deadlock");
        return;
    }
    if (want == VIOLATION_ACTION && !action[tr->labels[tr->len - 1]]) {
        snprintf(why, n, "trace does not end with a flagged action");
        return;
    }
    const uint64_t vs = tr->states[want == VIOLATION_ACTION ? tr->len - 1 : tr->len];
    if (res->violation_state != vs)
        snprintf(why, n, "violation_state %llu, trace says %llu",
                 (unsigned long long)res->violation_state, (unsigned long long)vs);
}

/* no trace: check the reported state itself */
static void run_check_violation_state(const struct image *img, const struct ref_result *ref,
                                      const struct explore_result *res, enum explore_violation want,
                                      uint32_t want_len, uint32_t W, char *why, size_t n)
{
    if (res->violation_state >= res->states) {
        snprintf(why, n, "violation_state out of range");
        return;
    }
    const uint32_t *v = res->vectors + res->violation_state * W;
    const uint64_t id = vs_find(&ref->set, v);
    if (want == VIOLATION_DEADLOCK && (ref_n_succ(img, v) != 0 || ref->level[id] != want_len))
        snprintf(why, n, "violation_state is not a shortest deadlock");
}

/* Compares one GPU run with the reference; one check line. */
static int run_one(const char *tag, const struct image *img, const struct ref_result *ref,
                   const uint8_t *action, const struct cfg *c, int expect_limit)
{
    struct explore_options opt;
    struct ecoll ec = {0};
    struct edge_sink sink = {coll_emit, &ec};
    run_options(c, action, &sink, &opt);
    struct explore_result res;
    struct gpu_run_stats st;
    struct wx_error err;
    wx_error_clear(&err);
    n_runs++;
    const int rc = explore_gpu_tuned(img, &opt, &c->tun, &res, &st, &err);
    last_stats = st;
    char why[1024] = "";
    const size_t n = sizeof why;
    const uint32_t W = img->words;
    uint32_t want_len = 0;
    enum explore_violation want = VIOLATION_NONE;
    if ((rc == WX_OK || rc == WX_ELIMIT) && run_check_generator(img, c, &st, why, n))
        goto done;
    if (expect_limit) {
        run_check_limit(rc, &res, ref, &err, why, n);
        goto done;
    }
    if (rc != WX_OK) {
        snprintf(why, n, "rc %d: %s", rc, err.msg);
        goto done;
    }
    want = run_want(c, ref, &want_len);
    if (res.violation != want) {
        snprintf(why, n, "violation %d, expected %d", (int)res.violation, (int)want);
        goto done;
    }
    if (run_check_counts(c, ref, &res, &st, want, why, n))
        goto done;
    if (opt.keep_vectors && run_check_vectors(ref, &res, W, why, n))
        goto done;
    if (c->edges && (want == VIOLATION_NONE || c->finish) && run_check_edges(c, ref, &opt, &res, &ec, &err, W, why, n))
        goto done;
    if (want != VIOLATION_NONE && c->trace)
        run_check_trace(img, &opt, &res, action, want, want_len, W, why, n);
    else if (want != VIOLATION_NONE && opt.keep_vectors)
        run_check_violation_state(img, ref, &res, want, want_len, W, why, n);
done:;
    char cd[512];
    cfg_describe(c, cd, sizeof cd);
    int ok = check(!why[0], "gpu %s: states=%llu trans=%llu%s%s [%s]", tag, (unsigned long long)ref->states,
                   (unsigned long long)ref->transitions, why[0] ? " -- " : "", why, cd);
    res_free(&res);
    free(ec.e);
    return ok;
}

#ifdef HAVE_EXPLORE_SEQ
/* explore_seq on the same image: the other helper's oracle agrees too. */
static void seq_compare(const char *tag, const struct image *img, const struct ref_result *ref)
{
    struct explore_options opt;
    memset(&opt, 0, sizeof opt);
    struct explore_result res;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = explore_seq(img, &opt, &res, &err);
    check(rc == 0 && res.complete && res.states == ref->states && res.transitions == ref->transitions &&
              res.deadlocks == ref->deadlocks && res.depth == ref->depth,
          "seq %s agrees with the reference: rc=%d %s states %llu/%llu trans %llu/%llu dead %llu/%llu depth %u/%u",
          tag, rc, rc ? err.msg : "", (unsigned long long)res.states, (unsigned long long)ref->states,
          (unsigned long long)res.transitions, (unsigned long long)ref->transitions,
          (unsigned long long)res.deadlocks, (unsigned long long)ref->deadlocks, res.depth, ref->depth);
    res_free(&res);
}
#endif

static uint32_t slot_words_of(const struct image *img, int insert_protocol)
{
    /* as in explore.cu: an extra word when the last word may be all ones,
     * and 3-word slots widened to 4 for the one-shot inserts */
    const uint32_t W = img->words, lo = 32 * (W - 1);
    uint64_t m = 0;
    for (uint32_t c = 0; c < img->n_comps; c++) {
        const uint32_t fb = img->first_bit[c], fe = img->first_bit[c + 1];
        if (fe <= lo || fe == fb)
            continue;
        uint64_t mx = 1;
        while (mx < img->comp_states[c])
            mx <<= 1;
        mx -= 1;
        m |= fb >= lo ? mx << (fb - lo) : mx >> (lo - fb);
    }
    const uint32_t sw = m > 0x7ffffffdull ? W + 1 : W;
    return sw == 3 && (insert_protocol == 0 || insert_protocol == 1) ? 4 : sw;
}

static void random_action(struct rng *r, const struct image *img, uint8_t *act)
{
    memset(act, 0, img->n_labels);
    act[rndu(r, img->n_labels)] = 1;
}

/* ---- hand-made images ---- */

/* A builder for small explicit images: components with explicit entries. */
struct hb {
    struct image img;
    uint32_t ne;
};

static void hb_init(struct hb *h, uint32_t n, const uint32_t *states, uint32_t n_labels, uint32_t n_classes)
{
    memset(h, 0, sizeof *h);
    struct image *img = &h->img;
    img->n_comps = n;
    img->comp_states = (uint32_t *)calloc(n ? n : 1, 4);
    img->first_bit = (uint32_t *)calloc(n + 1, 4);
    img->state_bits = (uint32_t *)calloc(n ? n : 1, 4);
    img->proc_offsets = (uint32_t *)calloc(n + 1, 4);
    for (uint32_t c = 0; c < n; c++) {
        img->comp_states[c] = states[c];
        img->first_bit[c + 1] = img->first_bit[c] + bits_for(states[c] - 1);
        img->state_bits[c] = bits_for(states[c]);
        img->proc_offsets[c + 1] = img->proc_offsets[c] + states[c] + 1;
    }
    img->words = (img->first_bit[n] + 1 + 31) / 32;
    img->n_labels = n_labels;
    img->n_classes = n_classes;
    img->act_bits = 4;
    img->mask_words = (n + 31) / 32;
    img->state_offsets = (uint32_t *)calloc(img->proc_offsets[n] + 1, 4);
    img->trans = (uint64_t *)calloc(4096, 8);
    img->class_result = (uint32_t *)calloc(n_classes + 1, 4);
    img->class_rule_start = (uint32_t *)calloc(n_classes + 1, 4);
    img->rule_mask = (uint32_t *)calloc(64, 4);
    img->hidden = 0xffffffffu;
}

/* Entries of (c, s), given in order: for each, sync flag, label/class,
 * targets (up to 3, -1 ends).  Call for states in order. */
static void hb_state(struct hb *h, uint32_t c, uint32_t s, uint32_t nent, const int (*ents)[5])
{
    struct image *img = &h->img;
    img->state_offsets[img->proc_offsets[c] + s] = h->ne;
    for (uint32_t i = 0; i < nent; i++) {
        uint64_t e = (uint64_t)ents[i][0] | ((uint64_t)ents[i][1] << 1);
        for (int k = 0; k < 3 && ents[i][2 + k] >= 0; k++)
            e |= (uint64_t)(ents[i][2 + k] + 1) << (1 + img->act_bits + k * img->state_bits[c]);
        img->trans[h->ne++] = e;
    }
    img->state_offsets[img->proc_offsets[c] + s + 1] = h->ne;
    img->n_entries = h->ne;
}

static void hb_rule(struct hb *h, uint32_t k, uint32_t mask)
{
    struct image *img = &h->img;
    img->rule_mask[img->n_rules++] = mask;
    for (uint32_t j = k + 1; j <= img->n_classes; j++)
        img->class_rule_start[j] = img->n_rules;
}

static void test_case(const char *tag, const struct image *img, uint64_t expect_states, uint64_t expect_trans)
{
    struct ref_result ref;
    ref_explore(img, NULL, 1, 1u << 22, &ref);
    char t[256];
    snprintf(t, sizeof t, "%s: reference counts", tag);
    CHECK_EQ_U64(ref.states * 1000000 + ref.transitions, expect_states * 1000000 + expect_trans, "%s", t);
    struct cfg c;
    cfg_default(&c);
    c.go.hash_bytes = 1 << 20;
    run_one(tag, img, &ref, NULL, &c, 0);
    c.tun.level_sync = 1;
    c.edges = 1;
    c.keep = 1;
    c.go.use_textures = 0;
    run_one(tag, img, &ref, NULL, &c, 0);
    c.dead = 1;
    c.trace = 1;
    run_one(tag, img, &ref, NULL, &c, 0);
#ifdef HAVE_EXPLORE_SEQ
    seq_compare(tag, img, &ref);
#endif
    ref_free(&ref);
}

/* Long runs of local moves, shared by the idle lanes of a warp (fx_share
 * in kernels/explore/gpu_expand.cuh).  Component 0: state 0 has L local moves to
 * 1..L (labels 0..12 in turn), state i >= 1 returns to 0 (label 13) unless
 * i % 7 == 0; component 1: state 0 has M moves to 1..M (label 14), the
 * others none.  The initial state is alone in its tile, so 31 lanes idle
 * at once take slices of its run; at depth 1, 40 states with a run of L
 * and 700 with a run of M share within their warps, and at depth 2 the
 * 28 000 states with one move or none (4 000 deadlocks) lend their lanes.
 * variant 0: no duplicates and no self-loop, so no successor set without
 * edges (the duplicate-free proof); 1: component 1's state 0 self-loops
 * (label 15), so the states with it in state 0 use the set and lend or
 * borrow among states without one; 2: state 0 of component 0 offers its
 * first move (label 0 to 1) twice more, at the end of its run: every
 * state uses the set, and the copies, taken by other lanes than the
 * original, must be removed; 3: component 0's returning states self-loop
 * (label 15), so the states with one of them use the set (42 records at
 * most: the back move, the self-loop and component 1's run of 40, shared
 * by lanes that borrow into the set) and those with component 0 in state
 * 0 (its run of 700) do not: without edges the sets are sized for 42
 * (gpu_run_stats.dedupe_slots 128, not 2048), as abp's are for its
 * waiting sender.  Runs: test_case's three, the first label-12
 * move flagged (a violation found by a borrowing lane: its source is the
 * lender's state), and one warp per block (not in the --quick subset). */
static void shared_runs(int variant)
{
    enum { L = 700, M = 40 };
    struct hb h;
    uint32_t st[2] = {L + 1, M + 1};
    hb_init(&h, 2, st, 16, 0);
    const int extra = variant == 2 ? 2 : 0;
    int (*e)[5] = (int (*)[5])calloc(L + extra, sizeof *e);
    for (int i = 0; i < L + extra; i++) {
        e[i][0] = 0;
        e[i][1] = i < L ? i % 13 : 0;
        e[i][2] = i < L ? i + 1 : 1;
        e[i][3] = e[i][4] = -1;
    }
    hb_state(&h, 0, 0, L + extra, (const int (*)[5])e);
    for (int i = 1; i <= L; i++) {
        int back[2][5] = {{0, 13, 0, -1, -1}, {0, 15, i, -1, -1}};
        hb_state(&h, 0, (uint32_t)i, i % 7 ? 1 + (variant == 3) : 0, back);
    }
    int (*f)[5] = (int (*)[5])calloc(M + 1, sizeof *f);
    for (int y = 0; y < M; y++) {
        f[y][0] = 0, f[y][1] = 14, f[y][2] = y + 1, f[y][3] = f[y][4] = -1;
    }
    f[M][0] = 0, f[M][1] = 15, f[M][2] = 0, f[M][3] = f[M][4] = -1;
    hb_state(&h, 1, 0, M + (variant == 1), (const int (*)[5])f);
    for (int y = 1; y <= M; y++)
        hb_state(&h, 1, (uint32_t)y, 0, NULL);
    free(e);
    free(f);
    /* component 0 moves: L from i = 0, one from each i % 7 != 0 (600),
     * for every y; component 1: M from y = 0 for every i (plus the
     * self-loop); variant 3: component 0's self-loops */
    const uint64_t states = (uint64_t)(L + 1) * (M + 1);
    const uint64_t trans = (uint64_t)(M + 1) * (L + L - L / 7) + (uint64_t)(L + 1) * (M + (variant == 1)) +
                           (variant == 3 ? (uint64_t)(M + 1) * (L - L / 7) : 0);
    char tag[64];
    snprintf(tag, sizeof tag, "shared runs, variant %d", variant);
    /* the set as the variants intend: the fast generator's tables, on the
     * host, at the initial state and at (0, 1) */
    struct wx_error err;
    wx_error_clear(&err);
    struct explore_gpu_fast *fx = explore_gpu_fast_open(&h.img, 0, &err);
    int always = -1, set0 = -1, set1 = -1;
    if (fx) {
        uint64_t bound = 0, set_bound = 0, cnt = 0;
        int anchored = 0;
        explore_gpu_fast_info(fx, &bound, &set_bound, &always, &anchored);
        uint32_t v[2] = {0, 0};
        explore_gpu_fast_successors(fx, v, NULL, NULL, 0, &cnt, &set0, &err);
        v[0] = 1u << h.img.first_bit[1]; /* component 1 in state 1 */
        explore_gpu_fast_successors(fx, v, NULL, NULL, 0, &cnt, &set1, &err);
        explore_gpu_fast_close(fx);
    }
    check(fx && always == (variant == 2) && set0 == (variant == 1 || variant == 2) && set1 == (variant == 2),
          "%s: fast tables: always_dedup %d, set at the initial state %d and at (0, 1) %d (%s)", tag, always, set0,
          set1, err.msg);
    test_case(tag, &h.img, states, trans);
    if (variant == 3) {
        /* the sets sized for the states that use them (explore.cu, set_bound) */
        struct ref_result r3;
        ref_explore(&h.img, NULL, 0, 1u << 22, &r3);
        struct cfg c3;
        cfg_default(&c3);
        c3.go.hash_bytes = 1 << 20;
        const char *t3 = "shared runs, variant 3, sets";
        run_one(t3, &h.img, &r3, NULL, &c3, 0);
        check(last_stats.fast_gen && last_stats.dedupe_slots == 128,
              "%s: without edges, successor sets of %u entries (expected 128: twice the 42 records of a state "
              "that uses one, not the 741 of the initial state)",
              t3, last_stats.dedupe_slots);
        ref_free(&r3);
    }

    uint8_t act[16] = {0};
    act[12] = 1;
    struct ref_result ref;
    ref_explore(&h.img, act, 1, 1u << 22, &ref);
    check(ref.deadlocks == (uint64_t)(L / 7) * M && ref.min_act_level == 0,
          "%s: reference deadlocks %llu (expected %u), flagged action at depth %u (expected 0)", tag,
          (unsigned long long)ref.deadlocks, (L / 7) * M, ref.min_act_level);
    struct cfg c;
    cfg_default(&c);
    c.go.hash_bytes = 1 << 20;
    c.action = 1;
    c.trace = 1;
    c.keep = 1;
    snprintf(tag, sizeof tag, "shared runs, variant %d, action", variant);
    run_one(tag, &h.img, &ref, act, &c, 0);
    if (quick) { /* the sanitizers: enough */
        ref_free(&ref);
        image_free(&h.img);
        return;
    }
    cfg_default(&c);
    c.go.hash_bytes = 1 << 20;
    c.go.threads = 32;
    c.go.blocks = 2;
    c.edges = 1;
    c.keep = 1;
    snprintf(tag, sizeof tag, "shared runs, variant %d, 32 threads", variant);
    run_one(tag, &h.img, &ref, NULL, &c, 0);
    c.edges = 0;
    c.keep = 0;
    run_one(tag, &h.img, &ref, NULL, &c, 0);
    ref_free(&ref);
    image_free(&h.img);
}

static void hand_made(void)
{
    struct hb h;
    /* 1. one component, one state, nothing: 1 state, a deadlock */
    {
        uint32_t st[1] = {1};
        hb_init(&h, 1, st, 1, 0);
        hb_state(&h, 0, 0, 0, NULL);
        test_case("single state", &h.img, 1, 0);
        image_free(&h.img);
    }
    /* 2. a chain of 100 states: depth 99, trace of 99 steps */
    {
        uint32_t st[1] = {100};
        hb_init(&h, 1, st, 2, 0);
        for (uint32_t s = 0; s < 100; s++) {
            int e[1][5] = {{0, (int)(s % 2), (int)s + 1, -1, -1}};
            hb_state(&h, 0, s, s < 99 ? 1 : 0, e);
        }
        test_case("chain of 100", &h.img, 100, 99);
        image_free(&h.img);
    }
    /* 3. two self-loops with one label from one state: one transition
     * (GPUexplore-style counting would say 2) */
    {
        uint32_t st[2] = {2, 2};
        hb_init(&h, 2, st, 2, 0);
        int e0[2][5] = {{0, 1, 0, -1, -1}, {0, 0, 1, -1, -1}};
        hb_state(&h, 0, 0, 2, e0);
        hb_state(&h, 0, 1, 0, NULL);
        int e1[1][5] = {{0, 1, 0, -1, -1}};
        hb_state(&h, 1, 0, 1, e1);
        hb_state(&h, 1, 1, 0, NULL);
        /* (0,0): a->(0,0) twice, 0->(1,0); (1,0): a->self */
        test_case("duplicate self-loops", &h.img, 2, 3);
        image_free(&h.img);
    }
    /* 4. three entries of one class in one state (GPUexplore's public code
     * loses targets here): 3 x 2 = 6 successors */
    {
        uint32_t st[2] = {4, 3};
        hb_init(&h, 2, st, 1, 1);
        int e0[3][5] = {{1, 0, 1, -1, -1}, {1, 0, 2, -1, -1}, {1, 0, 3, -1, -1}};
        hb_state(&h, 0, 0, 3, e0);
        for (uint32_t s = 1; s < 4; s++)
            hb_state(&h, 0, s, 0, NULL);
        int e1[2][5] = {{1, 0, 1, -1, -1}, {1, 0, 2, -1, -1}};
        hb_state(&h, 1, 0, 2, e1);
        hb_state(&h, 1, 1, 0, NULL);
        hb_state(&h, 1, 2, 0, NULL);
        hb_rule(&h, 0, 3);
        test_case("three entries per class", &h.img, 7, 6);
        image_free(&h.img);
    }
    /* 5. two rules of one class that give the same successor (the extra
     * participant self-loops): counted once */
    {
        uint32_t st[3] = {2, 2, 1};
        hb_init(&h, 3, st, 1, 1);
        int a0[1][5] = {{1, 0, 1, -1, -1}};
        hb_state(&h, 0, 0, 1, a0);
        hb_state(&h, 0, 1, 0, NULL);
        hb_state(&h, 1, 0, 1, a0);
        hb_state(&h, 1, 1, 0, NULL);
        int a2[1][5] = {{1, 0, 0, -1, -1}};
        hb_state(&h, 2, 0, 1, a2);
        hb_rule(&h, 0, 3);
        hb_rule(&h, 0, 7);
        test_case("overlapping rules", &h.img, 2, 1);
        image_free(&h.img);
    }
    /* 6. no components at all: one state */
    {
        hb_init(&h, 0, NULL, 1, 0);
        test_case("no components", &h.img, 1, 0);
        /* marked probabilistic: refused (its product is an MDP) */
        h.img.probabilistic = 1;
        struct explore_result res;
        struct wx_error err;
        wx_error_clear(&err);
        const int rc = explore_gpu(&h.img, NULL, &res, &err);
        check(rc == WX_EINPUT && strstr(err.msg, "probabilistic"), "gpu probabilistic image refused: rc %d (%s)", rc,
              err.msg);
        h.img.probabilistic = 0;
        image_free(&h.img);
    }
    /* 7. a wide fan-out (abp d=4000 has a state with 4000 actions): state 0
     * of component 0 reaches 3000 states (1000 entries of 3 targets) plus
     * one duplicate (label 0, target 1 again), each of those returns to 0;
     * component 1 cycles through 3 states.  The successor bound makes the
     * per-state set 8192 entries, in global memory: its entry lists must
     * leave it empty after every state, with and without the edge sink,
     * across iterations and launches.  3001 x 3 states; from (0, x):
     * 3000 + 1 transitions, from (i, x), i >= 1: 2. */
    {
        enum { K = 3000 };
        uint32_t st[2] = {K + 1, 3};
        hb_init(&h, 2, st, 16, 0);
        int (*e0)[5] = (int (*)[5])calloc(K / 3 + 1, sizeof *e0);
        for (int i = 0; i < K / 3; i++) {
            e0[i][0] = 0;
            e0[i][1] = i % 16;
            e0[i][2] = 3 * i + 1, e0[i][3] = 3 * i + 2, e0[i][4] = 3 * i + 3;
        }
        e0[K / 3][0] = 0, e0[K / 3][1] = 0, e0[K / 3][2] = 1, e0[K / 3][3] = -1, e0[K / 3][4] = -1;
        hb_state(&h, 0, 0, K / 3 + 1, (const int (*)[5])e0);
        free(e0);
        for (uint32_t s = 1; s <= K; s++) {
            int b[1][5] = {{0, (int)(s % 15) + 1, 0, -1, -1}};
            hb_state(&h, 0, s, 1, b);
        }
        for (uint32_t s = 0; s < 3; s++) {
            int cy[1][5] = {{0, 3, (int)((s + 1) % 3), -1, -1}};
            hb_state(&h, 1, s, 1, cy);
        }
        test_case("wide fan-out", &h.img, 3 * (K + 1), 3 * (K + 1 + 2 * K));
        if (quick) { /* the sanitizers: the three runs above suffice */
            image_free(&h.img);
            shared_runs(1);
            shared_runs(2);
            shared_runs(3);
            return;
        }
        struct ref_result ref;
        ref_explore(&h.img, NULL, 1, 1u << 22, &ref);
        struct cfg c;
        /* one iteration per launch, few blocks, async: sets reused by many
         * states in many launches */
        cfg_default(&c);
        c.go.hash_bytes = 1 << 20;
        c.go.iterations = 1;
        c.go.blocks = 2;
        c.edges = 1;
        c.keep = 1;
        run_one("wide fan-out, 1 iteration per launch", &h.img, &ref, NULL, &c, 0);
        c.tun.edge_cap = 4096;
        c.go.iterations = 3;
        run_one("wide fan-out, small edge buffer", &h.img, &ref, NULL, &c, 0);
        ref_free(&ref);
        image_free(&h.img);
    }
    /* 8. long runs of local moves shared among a warp's lanes */
    for (int v = 0; v < 4; v++)
        shared_runs(v);
}

#if defined(HAVE_FRONTEND) && defined(HAVE_EXPLORE_SEQ)
/* The committed example networks against examples/counts.tsv (counts known
 * independently of warpex), in async, level and trace modes; traces
 * replayed; explore_seq's trace length compared. */
static void examples(const char *tsv)
{
    FILE *f = fopen(tsv, "r");
    if (!f) {
        check(0, "gpu examples: cannot open %s", tsv);
        return;
    }
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char fam[64], params[64], file[512];
        unsigned long long st, tr, dl;
        if (sscanf(line, "%63s %63s %511s %llu %llu %llu", fam, params, file, &st, &tr, &dl) != 6)
            continue;
        FILE *probe = fopen(file, "r");
        if (!probe)
            continue; /* examples/large/... exist only after gen.py --large */
        fclose(probe);
        if (st > 2000000)
            continue;
        struct wx_error err;
        struct image img;
        if (ref_image_from_file(file, &img, &err)) {
            check(0, "gpu example %s: front end: %s", file, err.msg);
            continue;
        }
        n++;
        for (int mode = 0; mode < 5; mode++) {
            struct explore_options opt;
            memset(&opt, 0, sizeof opt);
            opt.gpu.use_textures = -1;
            struct gpu_tuning tun;
            memset(&tun, 0, sizeof tun);
            tun.level_sync = mode == 1 ? 1 : -1;
            tun.occupancy2 = -1;
            /* mode 3: async, the general generator; 4: async, fast with anchored rule lists */
            tun.generator = mode == 3 ? 2 : mode == 4 ? 3 : 0;
            if (mode == 2) {
                opt.stop_on_deadlock = true;
                opt.trace = true;
            }
            opt.gpu.hash_bytes = (st * 4 + 1024) * 4 * (img.words + 1);
            struct explore_result res;
            struct gpu_run_stats gs;
            wx_error_clear(&err);
            int rc = explore_gpu_tuned(&img, &opt, &tun, &res, &gs, &err);
            if (mode != 2) {
                check(rc == 0 && res.complete && res.states == st && res.transitions == tr && res.deadlocks == dl,
                      "gpu example %s %s (%s generator): states %llu/%llu transitions %llu/%llu deadlocks %llu/%llu %s",
                      file, mode == 1 ? "level" : "async",
                      gs.fast_gen ? (gs.fast_anchored ? "fast anchored" : "fast") : "general",
                      (unsigned long long)res.states, st, (unsigned long long)res.transitions, tr,
                      (unsigned long long)res.deadlocks, dl, rc ? err.msg : "");
            } else if (dl == 0) {
                check(rc == 0 && res.complete && res.violation == VIOLATION_NONE && res.states == st,
                      "gpu example %s --deadlock: none found, states %llu/%llu %s", file,
                      (unsigned long long)res.states, st, rc ? err.msg : "");
            } else {
                /* the shortest trace, replayed; its length as explore_seq's */
                struct explore_result sr;
                struct wx_error e2;
                wx_error_clear(&e2);
                int src = explore_seq(&img, &opt, &sr, &e2);
                int ok = rc == 0 && res.violation == VIOLATION_DEADLOCK && src == 0 &&
                         sr.violation == VIOLATION_DEADLOCK && res.trace.len == sr.trace.len && res.trace.states &&
                         res.trace.states[0] == 0;
                const uint32_t W = img.words;
                for (uint32_t i = 0; ok && i < res.trace.len; i++)
                    ok = ref_is_succ(&img, res.trace.vectors + (size_t)i * W, res.trace.labels[i],
                                     res.trace.vectors + (size_t)(i + 1) * W);
                ok = ok && ref_n_succ(&img, res.trace.vectors + (size_t)res.trace.len * W) == 0;
                check(ok, "gpu example %s --deadlock --trace: GPU trace of %u steps replayed, explore_seq %u %s", file,
                      res.trace.len, sr.trace.len, rc ? err.msg : "");
                res_free(&sr);
            }
            res_free(&res);
        }
        image_free(&img);
    }
    fclose(f);
    check(n > 0, "gpu examples: %d example networks run", n);
}
#endif

/* ---- random images ---- */

static const struct gen_params GP_SMALL = {2, 6, 4, 0, 3, 4, 2, 2, 50, 5, 20, 0, 0, 0, 20000, 0};
static const struct gen_params GP_NONDET = {2, 5, 5, 0, 2, 3, 1, 6, 70, 10, 50, 0, 0, 0, 20000, 0};
static const struct gen_params GP_MANY = {8, 12, 3, 30, 4, 6, 1, 2, 40, 5, 20, 0, 0, 0, 50000, 0};
static const struct gen_params GP_WORDS = {3, 8, 5, 0, 4, 4, 2, 3, 50, 5, 20, 20, 0, 0, 20000, 0};
static const struct gen_params GP_FULL1 = {2, 5, 4, 0, 3, 3, 2, 2, 50, 5, 20, 0, 0, 1, 20000, 0};
static const struct gen_params GP_FULL2 = {2, 5, 4, 0, 3, 3, 2, 2, 50, 5, 20, 0, 0, 2, 20000, 0};
static const struct gen_params GP_WIDE = {3, 6, 4, 40, 3, 3, 2, 2, 50, 5, 20, 0, 1, 0, 20000, 0};
static const struct gen_params GP_MEDIUM = {4, 7, 8, 0, 4, 5, 2, 3, 40, 3, 20, 2, 0, 0, 200000, 1};
static const struct gen_params GP_SPARSE = {3, 6, 6, 0, 3, 3, 1, 2, 25, 0, 20, 0, 0, 0, 50000, 0};
/* 40..135 rules: the fast generator's second word of rule bits (rules
 * 64..127), and beyond 128 rules its anchored rule lists */
static const struct gen_params GP_RULES = {4, 6, 4, 0, 4, 45, 1, 3, 40, 5, 20, 10, 0, 0, 50000, 0};

static void random_images(uint64_t seed, uint32_t count)
{
    struct {
        const char *name;
        const struct gen_params *gp;
        uint32_t share;
    } kinds[] = {
        {"small", &GP_SMALL, 40}, {"nondet", &GP_NONDET, 20}, {"many-comps", &GP_MANY, 10},
        {"multi-word", &GP_WORDS, 12}, {"full-last-word", &GP_FULL1, 7}, {"bit31-used", &GP_FULL2, 5},
        {"wide", &GP_WIDE, 6}, {"medium", &GP_MEDIUM, 25}, {"sparse", &GP_SPARSE, 10},
        {"many-rules", &GP_RULES, 10},
    };
    uint32_t total_share = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        total_share += kinds[i].share;
    for (uint32_t i = 0; i < count; i++) {
        const uint64_t s = seed + i;
        struct rng r = {s};
        uint32_t pick = rndu(&r, total_share), k = 0;
        while (pick >= kinds[k].share)
            pick -= kinds[k++].share;
        struct image img;
        img_random(&img, &r, kinds[k].gp);
        uint8_t *act = (uint8_t *)calloc(img.n_labels, 1);
        random_action(&r, &img, act);
        struct ref_result ref;
        ref_explore(&img, act, 1, 400000, &ref);
        if (ref.too_big) {
            ref_free(&ref);
            image_free(&img);
            free(act);
            continue;
        }
        n_images++;
        char tag[160];
        snprintf(tag, sizeof tag, "random %s seed=%llu comps=%u words=%u rules=%u", kinds[k].name,
                 (unsigned long long)s, img.n_comps, img.words, img.n_rules);
        const int runs = quick ? 4 : 3;
        for (int j = 0; j < runs; j++) {
            struct cfg c;
            cfg_random(&c, &r, ref.states, &img);
            if (j < 3) /* every generator on every image: general, fast (masks), fast (anchored lists) */
                c.tun.generator = j == 0 ? 2 : j == 1 ? 1 : 3;
            run_one(tag, &img, &ref, act, &c, 0);
        }
#ifdef HAVE_EXPLORE_SEQ
        if (kinds[k].gp->full_last != 2)
            seq_compare(tag, &img, &ref);
#endif
        ref_free(&ref);
        image_free(&img);
        free(act);
    }
}

/* ---- stress ---- */

/* The growing table on one instance: many growths (one block, one
 * iteration per launch: few states per launch, so the growth rule keeps
 * ahead of the launches), the same through host memory and with the one-thread
 * inserts replaced by reserve/write/publish, a tiny queue (pending states
 * left new for the scanners after a growth), and a first table that one
 * launch overfills (restart with the largest table).  Counts, and with
 * keep_vectors the vectors (initial state first), must be exact. */
static void growth_runs(const char *what, const struct image *img, const struct ref_result *ref)
{
    struct cfg c;
    char tag[256];
    cfg_default(&c);
    c.tun.grow_from = 1024;
    /* the sanitizers: fewer, larger launches (racecheck took over a minute
     * with 1 x 128 threads), without the growth-count checks */
    c.go.blocks = quick ? 2 : 1;
    c.go.threads = quick ? 512 : 32;
    c.go.iterations = 1;
    c.keep = 1;
    snprintf(tag, sizeof tag, "%s, growing table (%u block(s) of %u threads, 1 iteration)", what, c.go.blocks,
             c.go.threads);
    run_one(tag, img, ref, NULL, &c, 0);
    /* (a space of a few hundred states fits the first growth) */
    if (ref->states >= 2000 && !quick)
        check(last_stats.grows >= 2, "%s: %u growths, %u restarts (want >= 2 growths)", tag, last_stats.grows,
              last_stats.restarts);
    c.tun.grow_via_host = 1;
    c.tun.insert_protocol = 2;
    snprintf(tag, sizeof tag, "%s, growing table through host memory, reserve/write/publish", what);
    run_one(tag, img, ref, NULL, &c, 0);
    if (ref->states >= 2000 && !quick)
        check(last_stats.grows >= 2, "%s: %u growths (want >= 2)", tag, last_stats.grows);
    if (quick)
        goto overfill; /* the sanitizers: the two paths above and the restart */
    cfg_default(&c);
    c.tun.grow_from = 4096;
    c.tun.queue_cap = 5;
    c.go.blocks = 3;
    c.go.iterations = 2;
    snprintf(tag, sizeof tag, "%s, growing table, queue of 5", what);
    run_one(tag, img, ref, NULL, &c, 0);
overfill:
    cfg_default(&c);
    c.tun.grow_from = 128;
    c.keep = 1;
    snprintf(tag, sizeof tag, "%s, growing table overfilled by one launch", what);
    run_one(tag, img, ref, NULL, &c, 0);
    /* One launch of one block may expand up to 64 tiles from the initial
     * state, far more than the first table's few slots, and then the run
     * restarts once.  Whether it does depends on the schedule (a launch
     * ends once half of its blocks have left their loop, and the table may
     * grow ahead of the next launch in time), so the counts, checked by
     * run_one, are the promise; more than one restart is a defect. */
    if (ref->states >= 2000)
        check(last_stats.restarts <= 1, "%s: %u restarts (want at most 1)", tag, last_stats.restarts);
}

/* The growing table in the --quick subset (the sanitizer runs): one
 * interleaving space of a few thousand states. */
static void growth_quick(uint64_t seed)
{
    struct rng r = {seed ^ 0x5bd1e995ull};
    struct gen_params gp = {4, 6, 6, 0, 3, 2, 2, 2, 40, 0, 10, 0, 0, 0, 40000, 1};
    struct image img;
    struct ref_result ref;
    int tries = 0;
    do {
        if (tries++)
            ref_free(&ref), image_free(&img);
        img_random(&img, &r, &gp);
        ref_explore(&img, NULL, 0, 100000, &ref);
    } while ((ref.too_big || ref.states < 2000 || ref.states > 6000) && tries < 200);
    char tag[160];
    snprintf(tag, sizeof tag, "quick growth seed=%llu states=%llu", (unsigned long long)seed,
             (unsigned long long)ref.states);
    growth_runs(tag, &img, &ref);
    ref_free(&ref);
    image_free(&img);
}

static void stress(uint64_t seed, int big)
{
    struct rng r = {seed};
    struct cfg c;
    /* a bigger interleaving space, for the hash table */
    struct gen_params gp = {6, 8, 6, 0, 3, 2, 2, 2, 40, 0, 10, 0, 0, 0, big ? 3000000 : 300000, 1};
    struct image img;
    struct ref_result ref;
    int tries = 0;
    do {
        if (tries++)
            ref_free(&ref), image_free(&img);
        img_random(&img, &r, &gp);
        ref_explore(&img, NULL, 0, big ? 4000000 : 500000, &ref);
    } while ((ref.too_big || ref.states < (big ? 200000u : 20000u)) && tries < 50);
    char tag[160];
    snprintf(tag, sizeof tag, "stress interleaving seed=%llu words=%u", (unsigned long long)seed, img.words);
    const uint32_t sw = slot_words_of(&img, 0);
    const uint64_t spb = 32 / sw;
    /* default sizing from free device memory, textures and plain loads */
    cfg_default(&c);
    run_one(tag, &img, &ref, NULL, &c, 0);
    c.go.use_textures = 0;
    run_one(tag, &img, &ref, NULL, &c, 0);
    growth_runs(tag, &img, &ref);
    /* 90% load, long probe chains: exact with a generous probe bound */
    cfg_default(&c);
    c.go.hash_bytes = (uint64_t)((double)ref.states / 0.9 / spb + 1) * 128;
    c.go.probe_bound = 100000;
    run_one("stress 90% load", &img, &ref, NULL, &c, 0);
    c.tun.insert_protocol = 2; /* the reserve/write/publish inserts too */
    run_one("stress 90% load, reserve/write/publish", &img, &ref, NULL, &c, 0);
    c.tun.insert_protocol = 0;
    c.tun.level_sync = 1;
    c.keep = 1;
    run_one("stress 90% load, level", &img, &ref, NULL, &c, 0);
    /* a table with fewer slots than states: WX_ELIMIT, partial counts */
    cfg_default(&c);
    c.go.hash_bytes = (ref.states / 2 / spb + 1) * 128;
    run_one("stress table too small", &img, &ref, NULL, &c, 1);
    c.go.probe_bound = 2;
    c.go.hash_bytes = (uint64_t)((double)ref.states * 0.97 / spb) * 128;
    run_one("stress probe bound 2 at full load", &img, &ref, NULL, &c, 1);
    /* tiny cache, one iteration, tiny queue: the rare paths at scale */
    cfg_default(&c);
    c.tun.cache_slots = 2;
    c.tun.cache_probes = 1;
    c.tun.queue_cap = 7;
    c.go.iterations = 1;
    c.go.hash_bytes = (ref.states * 3 / spb + 1) * 128;
    run_one("stress tiny cache and queue", &img, &ref, NULL, &c, 0);
    c.tun.insert_protocol = 2;
    run_one("stress tiny cache and queue, reserve/write/publish", &img, &ref, NULL, &c, 0);
    c.tun.insert_protocol = 0;
    c.tun.generator = 2;
    run_one("stress tiny cache and queue, general generator", &img, &ref, NULL, &c, 0);
    ref_free(&ref);
    image_free(&img);

    /* many multi-word vectors racing for few buckets */
    struct gen_params gw = {4, 6, 5, 0, 3, 2, 2, 2, 40, 0, 10, 30, 0, 0, 200000, 1};
    tries = 0;
    do {
        if (tries++)
            ref_free(&ref), image_free(&img);
        img_random(&img, &r, &gw);
        ref_explore(&img, NULL, 1, 500000, &ref);
    } while ((ref.too_big || ref.states < 5000 || img.words < 4) && tries < 100);
    snprintf(tag, sizeof tag, "stress multi-word race seed=%llu words=%u", (unsigned long long)seed, img.words);
    {
        const uint32_t sw2 = slot_words_of(&img, 0);
        const uint64_t spb2 = sw2 <= 32 ? 32 / sw2 : 1;
        cfg_default(&c);
        c.go.hash_bytes = (uint64_t)((double)ref.states / 0.85 / spb2 + 1) * 128;
        c.go.probe_bound = 100000;
        c.go.iterations = 1;
        c.tun.cache_slots = 3;
        c.tun.cache_probes = 1;
        run_one(tag, &img, &ref, NULL, &c, 0);
        c.edges = 1;
        c.tun.edge_cap = 4096;
        run_one(tag, &img, &ref, NULL, &c, 0);
        growth_runs(tag, &img, &ref);
    }
    ref_free(&ref);
    image_free(&img);

    /* heavy nondeterminism: >= 3 targets per class per state */
    struct gen_params gn = {3, 5, 6, 0, 2, 3, 0, 8, 90, 5, 60, 0, 0, 0, 100000, 0};
    tries = 0;
    do {
        if (tries++)
            ref_free(&ref), image_free(&img);
        img_random(&img, &r, &gn);
        ref_explore(&img, NULL, 1, 500000, &ref);
    } while ((ref.too_big || ref.transitions < 10000) && tries < 100);
    snprintf(tag, sizeof tag, "stress nondeterminism seed=%llu", (unsigned long long)seed);
    cfg_default(&c);
    c.go.hash_bytes = 64 << 20;
    run_one(tag, &img, &ref, NULL, &c, 0);
    c.edges = 1;
    run_one(tag, &img, &ref, NULL, &c, 0);
    ref_free(&ref);
    image_free(&img);

    /* more than 32 components, several per thread */
    struct gen_params gm = {20, 30, 3, 40, 4, 6, 1, 2, 40, 5, 20, 0, 0, 0, 100000, 0};
    tries = 0;
    do {
        if (tries++)
            ref_free(&ref), image_free(&img);
        img_random(&img, &r, &gm);
        ref_explore(&img, NULL, 0, 500000, &ref);
    } while ((ref.too_big || ref.states < 1000) && tries < 100);
    snprintf(tag, sizeof tag, "stress %u components seed=%llu", img.n_comps, (unsigned long long)seed);
    cfg_default(&c);
    c.go.hash_bytes = 64 << 20;
    run_one(tag, &img, &ref, NULL, &c, 0);
    c.tun.group_size = 8;
    run_one(tag, &img, &ref, NULL, &c, 0);
    c.tun.group_size = 0;
    c.tun.generator = 2;
    run_one(tag, &img, &ref, NULL, &c, 0);
    ref_free(&ref);
    image_free(&img);

    /* The fast generator's limits: 65..128 rules (its second word of rule
     * bits), more than 128 rules (anchored rule lists) and more than 64
     * components (the general generator serves them even when the fast one
     * is asked for; run_one checks which ran).  Each with every generator
     * forced, a tiny cache (successors straight to the table, one thread
     * each), and edges. */
    static const struct {
        const char *what;
        struct gen_params gp;
        uint32_t min_rules, max_rules, min_comps;
    } lim[] = {
        {"65..128 rules", {4, 6, 4, 0, 4, 45, 1, 3, 40, 5, 20, 10, 0, 0, 50000, 0}, 65, 128, 0},
        {"> 128 rules", {4, 6, 4, 0, 4, 120, 2, 2, 50, 5, 20, 0, 0, 0, 50000, 0}, 129, UINT32_MAX, 0},
        {"> 64 components", {30, 34, 3, 40, 4, 6, 1, 2, 40, 5, 20, 0, 0, 0, 100000, 0}, 0, UINT32_MAX, 65},
    };
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        tries = 0;
        do {
            if (tries++)
                ref_free(&ref), image_free(&img);
            img_random(&img, &r, &lim[i].gp);
            ref_explore(&img, NULL, 1, 500000, &ref);
        } while ((ref.too_big || ref.states < 500 || img.n_rules < lim[i].min_rules || img.n_rules > lim[i].max_rules ||
                  img.n_comps < lim[i].min_comps) &&
                 tries < 200);
        snprintf(tag, sizeof tag, "stress %s: comps=%u rules=%u seed=%llu", lim[i].what, img.n_comps, img.n_rules,
                 (unsigned long long)seed);
        for (int gen = 1; gen <= 3; gen++) {
            cfg_default(&c);
            c.go.hash_bytes = 64 << 20;
            c.tun.generator = gen;
            run_one(tag, &img, &ref, NULL, &c, 0);
            c.tun.cache_slots = 2;
            c.tun.cache_probes = 1;
            c.go.iterations = 2;
            run_one(tag, &img, &ref, NULL, &c, 0);
            c.edges = 1;
            run_one(tag, &img, &ref, NULL, &c, 0);
        }
        ref_free(&ref);
        image_free(&img);
    }
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    uint32_t images = 240;
    int big = 0, ref_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ref-only"))
            ref_only = 1;
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--big"))
            big = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--probe"))
            return gpu_available(NULL, 0) ? 0 : 1;
        else if (!strcmp(argv[i], "--images") && i + 1 < argc)
            images = (uint32_t)strtoul(argv[++i], NULL, 0);
    }
    char name[128];
    if (ref_only) {
        /* no GPU needed: the generator's images pass the GPU's image check
         * and the reference explores them (sizes printed) */
        for (uint32_t i = 0; i < images; i++) {
            struct rng r = {seed + i};
            const struct gen_params *gps[] = {&GP_SMALL, &GP_NONDET, &GP_MANY,   &GP_WORDS,  &GP_FULL1,
                                              &GP_FULL2, &GP_WIDE,   &GP_MEDIUM, &GP_SPARSE, &GP_RULES};
            const struct gen_params *gp = gps[i % 10];
            struct image img;
            img_random(&img, &r, gp);
            struct ref_result ref;
            ref_explore(&img, NULL, 0, 400000, &ref);
            struct explore_result res;
            struct wx_error err;
            wx_error_clear(&err);
            int rc = explore_gpu(&img, NULL, &res, &err);
            check(strstr(err.msg, "no CUDA device") != NULL,
                  "ref-only kind %u seed %llu: comps %u words %u slot words %u states %llu trans %llu dead %llu "
                  "depth %u%s: %s",
                  i % 10, (unsigned long long)(seed + i), img.n_comps, img.words, slot_words_of(&img, 0),
                  (unsigned long long)ref.states, (unsigned long long)ref.transitions,
                  (unsigned long long)ref.deadlocks, ref.depth, ref.too_big ? " (too big)" : "", err.msg);
            (void)rc;
#ifdef HAVE_EXPLORE_SEQ
            if (!ref.too_big && gp->full_last != 2)
                seq_compare("ref-only", &img, &ref);
#endif
            ref_free(&ref);
            image_free(&img);
        }
        return check_exit();
    }
    if (!gpu_available(name, sizeof name)) {
        check(0, "gpu: no usable CUDA device; test_gpu needs one");
        return check_exit();
    }
    printf("# device %s, seed %llu%s\n", name, (unsigned long long)seed, quick ? " (quick)" : "");
    hand_made();
#if defined(HAVE_FRONTEND) && defined(HAVE_EXPLORE_SEQ)
    if (!quick)
        examples("examples/counts.tsv");
#endif
    if (quick) {
        random_images(seed, images < 12 ? images : 12);
        growth_quick(seed);
    } else {
        random_images(seed, images);
        stress(seed, big);
    }
    printf("# %llu random images, %llu GPU runs (%llu with the fast generator, %llu of them with anchored rule lists, "
           "%llu with the general one), %d passed, %d failed\n", (unsigned long long)n_images, (unsigned long long)n_runs,
           (unsigned long long)n_fast_runs, (unsigned long long)n_anchored_runs, (unsigned long long)n_general_runs,
           check_passes, check_failures);
    return check_exit();
}
