/*
 * test_random_networks.c -- the differential backbone: random EXP networks
 * (tests/randnet) explored by the independent oracle (tests/naive, SOS on the
 * syntax tree) and by the real pipeline, which must agree on states,
 * transitions and deadlocks.
 *
 * Per seed, four answers are compared with the oracle on the generator's
 * in-memory tree:
 *   parsed   the .exp file parsed by exp_parse_file, leaves read from the
 *            written .aut files, explored by the oracle (parser + files);
 *   network  network_from_exp, explored by a tiny BFS over network.h's rule
 *            semantics written here (flattening alone);
 *   seq, cpu image_compile + explore_seq, explore_cpu with 1, 2, 3 and 7
 *            threads; seq and cpu/3 again with the tree store;
 *   gpu      explore_gpu on the same image, when gpu_available() (CUDA
 *            builds on a machine with a device; skipped otherwise).
 * Every explorer also reports each distinct transition to an edge sink: the
 * number of transitions per label must equal the oracle's, too.  The
 * thread count must not change the result: seq's and every cpu run's
 * transitions, written as (source vector, label, target vector) -- what
 * --aut writes, up to the numbering of states within a BFS level, which is
 * free -- must be the same set.
 * Networks with a prio: the network BFS applies network.h's priority; a
 * prio form warpex refuses (cyclic, nested, under a par) must give
 * WX_EINPUT from network_from_exp, and the oracle must refuse the cyclic
 * one too.  Both relate the labels of the prio body's static alphabet
 * (naive.h), so they must agree on every other prio, cycles included.
 * One seed in nine is written in the CCS, CSP or mCRL syntax
 * (randnet params.sugar, tests/randnet/randsugar.c).
 * A mismatch prints the seed, every answer and the directory, whose files
 * are kept; otherwise they are removed.
 *
 * Environment: WARPEX_RANDNET_SEEDS=N (default 500) seeds 1..N;
 * WARPEX_RANDNET_SEED=S only seed S (files kept, EXP printed);
 * WARPEX_RANDNET_EMIT=1 with a seed: only write the files and print the
 * oracle's counts (see emit(), used by tests/t_random_cli.sh and others);
 * the emitted networks have prio nodes only with WARPEX_RANDNET_PRIO=1;
 * WARPEX_RANDNET_MAX_STATES, WARPEX_RANDNET_MAX_LEAVES override the
 * generator's bounds (5000, 6);
 * WARPEX_RANDNET_AMBIGUOUS=1 draws, for every seed (not only one in four),
 * constructs whose meaning the texts leave open (see randnet.c), where both
 * sides follow the same documented choices.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "naive/naive.c"
#include "randnet/randnet.c"

#include "explorer/explore.h"
#include "network/image.h"
#include "network/network.h"
#include "parser/network_build.h"
#include "parser/exp_ast.h"
#include "util/strtab.h"

struct counts {
    int rc;
    uint64_t states, transitions, deadlocks;
    char msg[1024];
    char *hist;          /* "label=count" lines sorted, or NULL when not taken */
};

/* ---- per-label transition counts, as one sorted text ---- */

struct hist {
    size_t n;
    char **line;
};

static void hist_add(struct hist *h, const char *label, uint64_t count)
{
    char buf[600];
    snprintf(buf, sizeof buf, "%s=%llu", label, (unsigned long long)count);
    h->line = realloc(h->line, (h->n + 1) * sizeof *h->line);
    h->line[h->n++] = strdup(buf);
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *hist_text(struct hist *h)
{
    if (h->n)
        qsort(h->line, h->n, sizeof *h->line, cmp_line);
    size_t len = 1;
    for (size_t i = 0; i < h->n; i++)
        len += strlen(h->line[i]) + 2;
    char *t = calloc(1, len);
    for (size_t i = 0; i < h->n; i++) {
        strcat(t, i ? "; " : "");
        strcat(t, h->line[i]);
        free(h->line[i]);
    }
    free(h->line);
    h->line = NULL;
    h->n = 0;
    return t;
}

static void naive_hist(void *ctx, const char *label, bool hidden, uint64_t count)
{
    hist_add(ctx, label, count);
}

/* edge sink of the real explorers: counts per result label id, and (when
 * keep is set) the edges themselves */
struct label_counter {
    pthread_mutex_t mu;
    uint64_t *count;
    uint32_t n;
    bool keep;
    struct product_edge *e;
    size_t ne, cap;
};

static int count_edges(void *ctx, const struct product_edge *e, size_t n, struct wx_error *err)
{
    struct label_counter *lc = ctx;
    pthread_mutex_lock(&lc->mu);
    for (size_t i = 0; i < n; i++)
        if (e[i].label < lc->n)
            lc->count[e[i].label]++;
        else
            lc->count[lc->n]++;          /* out-of-range label: reported below */
    if (lc->keep) {
        if (lc->ne + n > lc->cap) {
            lc->cap = 2 * (lc->ne + n);
            lc->e = realloc(lc->e, lc->cap * sizeof *lc->e);
        }
        memcpy(lc->e + lc->ne, e, n * sizeof *e);
        lc->ne += n;
    }
    pthread_mutex_unlock(&lc->mu);
    return 0;
}

/* ---- the product's transitions by state vectors, free of numbering ---- */

struct vedges {
    uint32_t width;      /* words per record: source vector, label, target vector */
    size_t n;
    uint32_t *rec;       /* n * width, sorted */
};

static int cmp_rec(const void *a, const void *b, void *width)
{
    return memcmp(a, b, *(const uint32_t *)width * sizeof(uint32_t));
}

/* The edges e[0..n) of an exploration whose vectors (by id) are vec. */
static void vedges_make(struct vedges *v, const struct product_edge *e, size_t n,
                        const uint32_t *vec, uint32_t words)
{
    v->width = 2 * words + 1;
    v->n = n;
    v->rec = malloc((n ? n : 1) * v->width * sizeof *v->rec);
    for (size_t i = 0; i < n; i++) {
        uint32_t *r = v->rec + i * v->width;
        memcpy(r, vec + e[i].src * words, words * sizeof *r);
        r[words] = e[i].label;
        memcpy(r + words + 1, vec + e[i].dst * words, words * sizeof *r);
    }
    qsort_r(v->rec, n, v->width * sizeof *v->rec, cmp_rec, &v->width);
}

static bool vedges_same(const struct vedges *a, const struct vedges *b)
{
    return a->rec && b->rec && a->n == b->n && a->width == b->width &&
           memcmp(a->rec, b->rec, a->n * a->width * sizeof *a->rec) == 0;
}

static void counts_str(const struct counts *c, char *buf, size_t n)
{
    if (c->rc)
        snprintf(buf, n, "error %d (%s)", c->rc, c->msg);
    else
        snprintf(buf, n, "%llu/%llu/%llu", (unsigned long long)c->states,
                 (unsigned long long)c->transitions, (unsigned long long)c->deadlocks);
}

static bool same(const struct counts *a, const struct counts *b)
{
    return a->rc == 0 && b->rc == 0 && a->states == b->states &&
           a->transitions == b->transitions && a->deadlocks == b->deadlocks &&
           (!a->hist || !b->hist || strcmp(a->hist, b->hist) == 0);
}

/* ---- a tiny explorer of network.h's semantics (rules over components) ---- */

struct nbfs {
    const struct network *net;
    uint32_t n;
    uint32_t *vec;       /* states * n */
    uint64_t n_states, cap;
    uint64_t *slot, n_slot;
    uint32_t *tgt;       /* one state's targets, n words each, by pair */
    size_t cap_tgt;
};

static uint64_t nb_hash(const uint32_t *v, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static uint64_t nb_add(struct nbfs *b, const uint32_t *v)
{
    if (2 * (b->n_states + 1) > b->n_slot) {
        uint64_t ns = b->n_slot ? 2 * b->n_slot : 1024;
        uint64_t *t = calloc(ns, sizeof *t);
        for (uint64_t i = 0; i < b->n_slot; i++)
            if (b->slot[i]) {
                uint64_t h = nb_hash(b->vec + (b->slot[i] - 1) * b->n, b->n) & (ns - 1);
                while (t[h])
                    h = (h + 1) & (ns - 1);
                t[h] = b->slot[i];
            }
        free(b->slot);
        b->slot = t;
        b->n_slot = ns;
    }
    uint64_t h = nb_hash(v, b->n) & (b->n_slot - 1);
    for (; b->slot[h]; h = (h + 1) & (b->n_slot - 1))
        if (memcmp(b->vec + (b->slot[h] - 1) * b->n, v, b->n * sizeof *v) == 0)
            return b->slot[h] - 1;
    if (b->n_states == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->vec = realloc(b->vec, b->cap * (b->n ? b->n : 1) * sizeof *b->vec);
    }
    memcpy(b->vec + b->n_states * b->n, v, b->n * sizeof *v);
    b->slot[h] = ++b->n_states;
    return b->n_states - 1;
}

static int cmp_pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* Enumerates the combinations of participants p..end of rule r. */
static void nb_rule(struct nbfs *b, uint32_t r, uint32_t p, uint32_t *tmp, const uint32_t *src,
                    uint64_t **pairs, size_t *np, size_t *cap)
{
    const struct network *net = b->net;
    if (p == net->rule_start[r + 1]) {
        if (*np == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            *pairs = realloc(*pairs, *cap * 2 * sizeof **pairs);
        }
        if (*np >= b->cap_tgt) {      /* targets join the state space after the priority */
            b->cap_tgt = 2 * *np + 64;
            b->tgt = realloc(b->tgt, b->cap_tgt * (b->n ? b->n : 1) * sizeof *b->tgt);
        }
        memcpy(b->tgt + *np * b->n, tmp, b->n * sizeof *tmp);
        uint64_t d = *np;
        (*pairs)[2 * *np] = net->rule_result[r];
        (*pairs)[2 * *np + 1] = d;
        (*np)++;
        return;
    }
    uint32_t c = net->part_comp[p], l = net->part_label[p];
    const struct lts *L = &net->comps[c];
    for (uint64_t t = L->offsets[src[c]]; t < L->offsets[src[c] + 1]; t++) {
        if (L->label[t] != l)
            continue;
        tmp[c] = L->dst[t];
        nb_rule(b, r, p + 1, tmp, src, pairs, np, cap);
        tmp[c] = src[c];
    }
}

/* The priority of network.h on one state's (result, target) pairs: a pair
 * goes when a result above its own is among the pairs; the others show
 * prio_out (NETWORK_PRIO_CUT: gone, after taking part).  Returns the count. */
static size_t nb_prio(const struct network *net, uint64_t *pairs, size_t np)
{
    bool *gone = calloc(np + 1, sizeof *gone);
    for (size_t i = 0; i < np; i++) {
        uint32_t l = (uint32_t)pairs[2 * i];
        for (uint32_t j = net->prio_above_start[l]; j < net->prio_above_start[l + 1]; j++)
            for (size_t k = 0; k < np && !gone[i]; k++)
                gone[i] = pairs[2 * k] == net->prio_above[j];
        gone[i] = gone[i] || net->prio_out[l] == NETWORK_PRIO_CUT;
    }
    size_t keep = 0;
    for (size_t i = 0; i < np; i++) {
        if (gone[i])
            continue;
        pairs[2 * keep] = net->prio_out[(uint32_t)pairs[2 * i]];
        pairs[2 * keep + 1] = pairs[2 * i + 1];
        keep++;
    }
    free(gone);
    return keep;
}

static void explore_network(const struct network *net, uint64_t limit, struct counts *out)
{
    struct nbfs b = { .net = net, .n = net->n_comps };
    uint32_t *src = calloc(b.n + 1, sizeof *src), *tmp = calloc(b.n + 1, sizeof *tmp);
    uint64_t *pairs = NULL;
    size_t cap = 0;
    nb_add(&b, src);                           /* (0, ..., 0) */
    for (uint64_t s = 0; s < b.n_states && b.n_states <= limit; s++) {
        memcpy(src, b.vec + s * b.n, b.n * sizeof *src);
        memcpy(tmp, src, b.n * sizeof *tmp);
        size_t np = 0;
        for (uint32_t r = 0; r < net->n_rules; r++)
            nb_rule(&b, r, net->rule_start[r], tmp, src, &pairs, &np, &cap);
        if (net->prio_n)
            np = nb_prio(net, pairs, np);
        for (size_t i = 0; i < np; i++)
            pairs[2 * i + 1] = nb_add(&b, b.tgt + pairs[2 * i + 1] * b.n);
        if (np)
            qsort(pairs, np, 2 * sizeof *pairs, cmp_pair);
        uint64_t distinct = 0;
        for (size_t i = 0; i < np; i++)
            distinct += i == 0 || pairs[2 * i] != pairs[2 * i - 2] ||
                        pairs[2 * i + 1] != pairs[2 * i - 1];
        out->transitions += distinct;
        out->deadlocks += distinct == 0;
    }
    out->states = b.n_states;
    if (b.n_states > limit) {
        out->rc = WX_ELIMIT;
        snprintf(out->msg, sizeof out->msg, "network BFS beyond %llu states",
                 (unsigned long long)limit);
    }
    free(src);
    free(tmp);
    free(pairs);
    free(b.vec);
    free(b.slot);
    free(b.tgt);
}

/* Generator parameters of a seed (environment overrides included). */
static struct randnet_params params_for(uint64_t seed, bool prio)
{
    struct randnet_params rp = { 0 };
    rp.prio = prio;
    /* one seed in four also draws the constructs whose meaning the texts
     * leave open (both sides document the same choices, see naive.h and
     * network_transform.h) */
    rp.avoid_ambiguous = !getenv("WARPEX_RANDNET_AMBIGUOUS") && seed % 4 != 0;
    if (getenv("WARPEX_RANDNET_MAX_STATES"))
        rp.max_states = (uint32_t)strtoul(getenv("WARPEX_RANDNET_MAX_STATES"), NULL, 10);
    if (getenv("WARPEX_RANDNET_MAX_LEAVES"))
        rp.max_leaves = (uint32_t)strtoul(getenv("WARPEX_RANDNET_MAX_LEAVES"), NULL, 10);
    return rp;
}

/* ---- one seed ---- */

static int run_seed(uint64_t seed, bool verbose)
{
    struct randnet rn;
    struct wx_error err;
    struct randnet_params rp = params_for(seed, true);
    rp.sugar = true;
    if (randnet_generate(seed, &rp, &rn, &err) != WX_OK)
        return check(0, "seed %llu: generator: %s", (unsigned long long)seed, err.msg);
    struct counts ref = { 0 }, parsed = { 0 }, netc = { 0 };
    struct naive_result nr;

    struct naive_options o = { 0 };
    struct hist h = { 0 };
    o.leaf = randnet_leaf;
    o.leaf_ctx = &rn;
    o.hidden = rn.hidden;
    o.rate = rn.rate;
    o.lang = rn.lang;
    o.label_fn = naive_hist;
    o.label_ctx = &h;
    ref.rc = naive_explore(rn.root, &o, &nr, &err);
    ref.hist = hist_text(&h);
    snprintf(ref.msg, sizeof ref.msg, "%s", err.msg);
    ref.states = nr.states, ref.transitions = nr.transitions, ref.deadlocks = nr.deadlocks;

    struct exp_file *f = NULL;
    parsed.rc = exp_parse_file(rn.exp_path, &f, &err);
    if (parsed.rc == WX_OK) {
        struct naive_options o2 = { 0 };
        o2.base_dir = rn.dir;
        o2.hidden = rn.hidden;
        o2.rate = rn.rate;
        o2.parse = exp_parse_file;
        o2.free_file = exp_file_free;
        parsed.rc = naive_explore_file(f, &o2, &nr, &err);
        parsed.states = nr.states, parsed.transitions = nr.transitions;
        parsed.deadlocks = nr.deadlocks;
        exp_file_free(f);
    }
    if (parsed.rc)
        wx_error_format(&err, parsed.msg, sizeof parsed.msg);

    struct network net;
    struct net_options no = { 0 };
    no.hidden = rn.hidden;
    no.rate = rn.rate;
    /* the real explorers: seq, cpu on 1, 2, 3 and 7 threads, and gpu when a
     * device is there */
    enum { SEQ, CPU1, CPU2, CPU3, CPU7, SEQ_TREE, CPU3_TREE, GPU, NB };
    static const char *const bname[NB] = { "seq", "cpu/1", "cpu/2", "cpu/3", "cpu/7", "seq/tree", "cpu/3/tree", "gpu" };
    static const unsigned bthreads[NB] = { 1, 1, 2, 3, 7, 1, 3, 0 };
    struct counts be[NB];
    struct vedges ve[NB];
    memset(ve, 0, sizeof ve);
    for (int k = 0; k < NB; k++)
        be[k] = (struct counts){ .rc = -1, .msg = "not run" };
    char dev[128];
    int nb = gpu_available(dev, sizeof dev) ? NB : GPU;
    netc.rc = network_from_exp(rn.exp_path, &no, &net, &err);
    if (netc.rc == WX_OK) {
        explore_network(&net, 1000000, &netc);
        struct image img;
        int rc = image_compile(&net, &img, &err);
        if (rc == WX_OK && img.prio_n) { /* the labels above others, one label at a time */
            uint32_t want = 0;
            for (uint32_t a = 0; a < img.prio_n; a++)
                for (uint32_t j = 0; j < img.prio_above_start[img.prio_n]; j++)
                    if (img.prio_above[j] == a) {
                        want++;
                        break;
                    }
            check(image_prio_above_labels(&img) == want, "seed %llu: image_prio_above_labels %u, %u labels above",
                  (unsigned long long)seed, image_prio_above_labels(&img), want);
        }
        if (rc == WX_OK) {
            for (int k = 0; k < nb; k++) {
                struct counts *c = &be[k];
                struct explore_options eo = { 0 };
                eo.threads = bthreads[k];
                eo.keep_vectors = k < GPU;
                eo.store = k == SEQ_TREE || k == CPU3_TREE ? STORE_TREE : STORE_FLAT;
                eo.memory_bytes = 64u << 20;
                eo.gpu.hash_bytes = 64u << 20;
                struct explore_result res;
                memset(&res, 0, sizeof res);
                struct label_counter lc = { .n = img.n_labels, .keep = k < GPU };
                pthread_mutex_init(&lc.mu, NULL);
                lc.count = calloc(img.n_labels + 1, sizeof *lc.count);
                struct edge_sink sink = { count_edges, &lc };
                eo.sink = &sink;
                c->rc = k == SEQ || k == SEQ_TREE ? explore_seq(&img, &eo, &res, &err)
                        : k == GPU ? explore_gpu(&img, &eo, &res, &err)
                                   : explore_cpu(&img, &eo, &res, &err);
                if (c->rc == WX_OK && lc.keep && res.vectors)
                    vedges_make(&ve[k], lc.e, lc.ne, res.vectors, img.words);
                free(lc.e);
                for (uint32_t l = 0; l <= img.n_labels; l++)
                    if (lc.count[l])
                        hist_add(&h, l < img.n_labels ? strtab_str(img.labels, l) : "<bad label>",
                                 lc.count[l]);
                c->hist = hist_text(&h);
                free(lc.count);
                pthread_mutex_destroy(&lc.mu);
                if (c->rc == WX_OK && !res.complete) {
                    c->rc = WX_ELIMIT;
                    snprintf(err.msg, sizeof err.msg, "incomplete");
                }
                c->states = res.states, c->transitions = res.transitions;
                c->deadlocks = res.deadlocks;
                if (c->rc)
                    wx_error_format(&err, c->msg, sizeof c->msg);
                explore_result_free(&res);
            }
            image_free(&img);
        } else {
            for (int k = 0; k < nb; k++) {
                be[k].rc = rc;
                wx_error_format(&err, be[k].msg, sizeof be[k].msg);
            }
        }
        network_free(&net);
    } else {
        wx_error_format(&err, netc.msg, sizeof netc.msg);
    }

    if (rn.prio_refused) {
        /* warpex refuses the form (exit 2); the oracle explores it, or
         * refuses it too for cyclic rules.  A prio whose rules relate no
         * two labels of its body is the identity, which warpex drops and
         * then explores: its counts must be the oracle's. */
        int want = rn.prio_cyclic ? WX_EINPUT : WX_OK;
        bool dropped = want == WX_OK && netc.rc == WX_OK && same(&ref, &netc);
        bool ok = (netc.rc == WX_EINPUT || dropped) && ref.rc == want && parsed.rc == want &&
                  (want != WX_OK || same(&ref, &parsed));
        char a[1200], b[1200];
        counts_str(&ref, a, sizeof a);
        counts_str(&parsed, b, sizeof b);
        check(ok, "seed %llu: refused prio form: warpex %d (%s), naive %s, parsed %s%s%s",
              (unsigned long long)seed, netc.rc, netc.msg, a, b, ok ? "" : "; files kept in ",
              ok ? "" : rn.dir);
        if (verbose || !ok)
            printf("%s", rn.exp_text);
        free(ref.hist);
        for (int k = 0; k < NB; k++)
            free(be[k].hist), free(ve[k].rec);
        randnet_free(&rn, ok && !verbose);
        return ok;
    }
    bool ok = same(&ref, &parsed) && same(&ref, &netc);
    for (int k = 0; k < nb; k++)
        ok = ok && same(&ref, &be[k]);
    char edges_diff[200] = "";
    for (int k = CPU1; k < GPU; k++)
        if (!vedges_same(&ve[SEQ], &ve[k])) {
            ok = false;
            snprintf(edges_diff + strlen(edges_diff), sizeof edges_diff - strlen(edges_diff),
                     "; %s's transitions by vectors differ from seq's (%zu and %zu)", bname[k],
                     ve[k].n, ve[SEQ].n);
        }
    for (int k = 0; k < NB; k++)
        free(ve[k].rec);
    char line[6000], one[1200];
    counts_str(&ref, one, sizeof one);
    snprintf(line, sizeof line, "naive %s", one);
    counts_str(&parsed, one, sizeof one);
    snprintf(line + strlen(line), sizeof line - strlen(line), ", parsed %s", one);
    counts_str(&netc, one, sizeof one);
    snprintf(line + strlen(line), sizeof line - strlen(line), ", network %s", one);
    for (int k = 0; k < nb; k++) {
        counts_str(&be[k], one, sizeof one);
        snprintf(line + strlen(line), sizeof line - strlen(line), ", %s %s", bname[k], one);
    }
    check(ok, "seed %llu: %s%s%s%s", (unsigned long long)seed, line, edges_diff,
          ok ? "" : "; files kept in ", ok ? "" : rn.dir);
    if (!ok) {
        if (ref.hist)
            printf("  naive labels: %s\n", ref.hist);
        for (int k = 0; k < nb; k++)
            if (be[k].hist)
                printf("  %s labels: %s\n", bname[k], be[k].hist);
    }
    if (verbose || !ok)
        printf("%s", rn.exp_text);
    free(ref.hist);
    for (int k = 0; k < NB; k++)
        free(be[k].hist);
    randnet_free(&rn, ok && !verbose);
    return ok;
}

/* WARPEX_RANDNET_EMIT=1 (with WARPEX_RANDNET_SEED): writes the network of
 * that seed, keeps the files and prints one line for tests/t_random_cli.sh:
 *   EXPECT exp_path dir hidden rate states transitions deadlocks
 * or, for a prio form warpex refuses (exit 2):
 *   REFUSE exp_path dir hidden states transitions deadlocks
 * with the oracle's counts, or "- - -" where the oracle refuses it too
 * (cyclic rules); warpex may explore a form whose prio relates no two
 * labels (it drops such a prio), and must then give these counts. */
static int emit(uint64_t seed)
{
    struct randnet rn;
    struct wx_error err;
    struct randnet_params rp = params_for(seed, getenv("WARPEX_RANDNET_PRIO") != NULL);
    if (randnet_generate(seed, &rp, &rn, &err) != WX_OK) {
        printf("ERROR %s\n", err.msg);
        return 1;
    }
    struct naive_options o = { 0 };
    o.leaf = randnet_leaf;
    o.leaf_ctx = &rn;
    o.hidden = rn.hidden;
    o.rate = rn.rate;
    o.lang = rn.lang;
    struct naive_result r;
    int rc = naive_explore(rn.root, &o, &r, &err);
    if (rn.prio_refused) {
        if (rc == WX_OK)
            printf("REFUSE %s %s %s %llu %llu %llu\n", rn.exp_path, rn.dir, rn.hidden,
                   (unsigned long long)r.states, (unsigned long long)r.transitions,
                   (unsigned long long)r.deadlocks);
        else
            printf("REFUSE %s %s %s - - -\n", rn.exp_path, rn.dir, rn.hidden);
        randnet_free(&rn, false);
        return 0;
    }
    if (rc == WX_OK)
        printf("EXPECT %s %s %s %d %llu %llu %llu\n", rn.exp_path, rn.dir, rn.hidden, rn.rate,
               (unsigned long long)r.states, (unsigned long long)r.transitions,
               (unsigned long long)r.deadlocks);
    else
        printf("ERROR %s\n", err.msg);
    randnet_free(&rn, false);
    return rc != WX_OK;
}

int main(void)
{
    const char *one = getenv("WARPEX_RANDNET_SEED");
    if (one && getenv("WARPEX_RANDNET_EMIT"))
        return emit(strtoull(one, NULL, 10));
    if (one) {
        run_seed(strtoull(one, NULL, 10), true);
        return check_exit();
    }
    const char *ns = getenv("WARPEX_RANDNET_SEEDS");
    uint64_t n = ns ? strtoull(ns, NULL, 10) : 500;
    for (uint64_t seed = 1; seed <= n; seed++)
        run_seed(seed, false);
    return check_exit();
}
