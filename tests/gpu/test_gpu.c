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
 *
 * One translation unit: this file (edge collection, configurations,
 * run_one, the random images, main) includes tests/gpu/explore/hand.c
 * (hand-made images and the examples) and tests/gpu/explore/stress.c.
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
             "keep=%d edges=%d trace=%d dead=%d action=%d finish=%d grow_from=%llu via_host=%d gen=%d found=%d",
             c->tun.insert_protocol, c->tun.occupancy2, c->go.blocks, c->go.threads, c->go.iterations, (unsigned long long)c->go.hash_bytes, c->go.probe_bound,
             c->go.use_textures, c->tun.level_sync, c->tun.cache_slots, c->tun.cache_probes,
             (unsigned long long)c->tun.queue_cap, c->tun.group_size, (unsigned long long)c->tun.edge_cap, c->keep,
             c->edges, c->trace, c->dead, c->action, c->finish, (unsigned long long)c->tun.grow_from, c->tun.grow_via_host,
             c->tun.generator, c->tun.edges_found_order);
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
    c->tun.edges_found_order = c->edges && rndu(r, 4) == 0;
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
    /* the edges are held on the device at once and emitted in CSR order
     * (by source id), unless the found order is asked for (or a graph is
     * kept, which needs the CSR order anyway) */
    for (size_t i = 1; i < ec->n && !why[0] && (!c->tun.edges_found_order || opt->keep_device_graph); i++)
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

#include "explore/hand.c"

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

#include "explore/stress.c"

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
