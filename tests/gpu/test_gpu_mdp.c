/*
 * test_gpu_mdp.c -- the GPU MDP explorer (kernels/explore_mdp_gpu.h)
 * against the CPU one (explorer/explore_mdp.h) on random probabilistic
 * networks: the same MDP array for array (state_start, choice_start,
 * targets, the probabilities bit for bit, labels, exact fractions, vectors),
 * the same deadlocks, depth and fresh_initial; each network under random
 * knobs: batches of 1..all states and tables of 64 slots up (growth).
 * The device-resident MDP too (explore_mdp_gpu_dev, kernels/mdp_dev.h): the
 * same counts and deadlocks with and without the host download, the
 * downloaded handle equal to the CPU MDP, and the precomputation's sets on
 * it (valiter_precompute_dev, one and two at a time) equal to those of the
 * host round trip (valiter_precompute_gpu) and of the CPU
 * (valiter_precompute_cpu), for random target and allowed sets; the
 * maybe-state system built on it (valiter_system_dev) equal bit for bit to
 * a sequential reference of the host's cut and passes, for random classes,
 * usable choices, initial states and rewards.  A synthetic MDP of 13 million
 * entries goes up and back through the staged copies (kernels/hostcopy.h).
 * Options: --seed N (first seed, printed on failure), --quick (fewer
 * networks, for the sanitizers), --probe (exit 0 when a GPU is usable).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../analysis/valiter.h"
#include "../../explorer/explore_mdp.h"
#include "../../kernels/explore_mdp_gpu.h"
#include "../../kernels/mdp_dev.h"
#include "../../network/image.h"
#include "../../network/network.h"
#include "../../parser/aut.h"
#include "../../util/strtab.h"
#include "../check.h"
#include "../random_prob_net.h"
#include "../rng.h"
#include "../sysbuild_ref.h"

#define MAXC 4

/* test_prob_random.c's networks, up to MAXC components of up to 5 states. */
static int random_network(struct network *net)
{
    static const struct rpn_shape shape = {MAXC, 5, 9, 5};
    return rpn_network(net, &shape);
}

static int same(const void *a, const void *b, size_t bytes)
{
    return bytes == 0 || (a && b && memcmp(a, b, bytes) == 0);
}

/* Where the two results first differ, or NULL. */
static const char *differ(const struct mdp_explore_result *c, const struct mdp_explore_result *g,
                          uint32_t words)
{
    const struct mdp *a = &c->mdp, *b = &g->mdp;
    if (a->n_states != b->n_states || a->n_choices != b->n_choices || a->n_entries != b->n_entries)
        return "counts";
    if (c->deadlocks != g->deadlocks || c->depth != g->depth || c->fresh_initial != g->fresh_initial ||
        !g->complete)
        return "deadlocks, depth, fresh_initial or complete";
    if (!same(a->state_start, b->state_start, (a->n_states + 1) * 8))
        return "state_start";
    if (!same(a->choice_start, b->choice_start, (a->n_choices + 1) * 8))
        return "choice_start";
    if (!same(c->choice_label, g->choice_label, a->n_choices * 4))
        return "choice labels";
    if (!same(a->targets, b->targets, a->n_entries * 4))
        return "targets";
    if (!same(a->probs, b->probs, a->n_entries * 8))
        return "probabilities";
    /* without exact, neither explorer keeps fractions (both NULL) */
    if ((c->entry_num || g->entry_num) && (!same(c->entry_num, g->entry_num, a->n_entries * 8) ||
                                           !same(c->entry_den, g->entry_den, a->n_entries * 8)))
        return "exact fractions";
    if (!same(c->vectors, g->vectors, a->n_states * words * 4))
        return "vectors";
    return NULL;
}

/* The four sets on the device MDP (one at a time and in the two pairs
 * mdpcheck asks for) against the host round trip and the CPU, for random
 * target and allowed sets; where they first differ, or NULL. */
static const char *differ_sets(const struct mdp_dev *d, const struct mdp *m)
{
    static const enum vi_precomp kinds[4] = {VI_PMAX0, VI_PMIN0, VI_PMAX1, VI_PMIN1};
    const uint64_t n = m->n_states;
    uint8_t *buf = calloc(7 * (n ? n : 1), 1);
    if (!buf)
        return "out of memory";
    uint8_t *target = buf, *allowed = buf + n, *dv = buf + 2 * n, *gv = buf + 3 * n, *cv = buf + 4 * n;
    uint8_t *d2a = buf + 5 * n, *d2b = buf + 6 * n;
    const char *why = NULL;
    struct wx_error e;
    uint64_t pt = 1 + rnd_below(6), pa = rnd_below(3);
    for (uint64_t s = 0; s < n; s++)
        target[s] = rnd_below(pt + 1) == 0, allowed[s] = rnd_below(4) >= pa;
    for (int round = 0; round < 2 && !why; round++) {
        const uint8_t *al = round ? allowed : NULL;
        for (int k = 0; k < 4 && !why; k++) {
            if (valiter_precompute_dev(d, al, target, kinds[k], dv, &e) != WX_OK ||
                valiter_precompute_gpu(m, al, target, kinds[k], gv, &e) != WX_OK ||
                valiter_precompute_cpu(m, al, target, kinds[k], cv, &e) != WX_OK)
                why = "a precomputation failed";
            else if (memcmp(dv, gv, n) || memcmp(dv, cv, n))
                why = k == 0 ? "Prob0A" : k == 1 ? "Prob0E" : k == 2 ? "Prob1E" : "Prob1A";
        }
        for (int k = 0; k < 2 && !why; k++) { /* (Prob0A, Prob1E), (Prob0E, Prob1A) */
            if (valiter_precompute2_dev(d, al, target, kinds[k], d2a, kinds[k + 2], d2b, &e) != WX_OK ||
                valiter_precompute_cpu(m, al, target, kinds[k], cv, &e) != WX_OK ||
                valiter_precompute_cpu(m, al, target, kinds[k + 2], gv, &e) != WX_OK)
                why = "a precomputation failed";
            else if (memcmp(d2a, cv, n) || memcmp(d2b, gv, n))
                why = "a pair of sets";
        }
    }
    free(buf);
    return why;
}

/* A request on m with its arrays (one block: free(q->sys.state_start)) for the given
 * classes and options. */
static int sys_request(const struct mdp *m, const uint8_t *cls, const uint8_t *ok,
                       const uint8_t *initial, const struct mdp_rewards *rew,
                       struct mdpcheck_sysbuild *q)
{
    const uint64_t n = m->n_states, nc = m->n_choices, ne = m->n_entries;
    size_t bytes = n + 8 * n + 8 * (n + 1) + 8 * (nc + 1) + 12 * ne + 8 * nc + 64;
    char *p = calloc(1, bytes);
    memset(q, 0, sizeof *q);
    if (!p)
        return -1;
    q->m = m, q->ok = ok, q->initial = initial, q->rew = rew, q->is_reward = rew != NULL;
    q->cls_maybe = 2, q->cls_yes = 1, q->cls_skip = 4, q->no_choice = UINT64_MAX;
    q->sys.state_start = (uint64_t *)p, p += 8 * (n + 1);
    q->sys.choice_start = (uint64_t *)p, p += 8 * (nc + 1);
    q->sys.probs = (double *)p, p += 8 * ne;
    q->sys.b = (double *)p, p += 8 * nc;
    q->loc = (uint32_t *)p, p += 4 * n;
    q->back = (uint32_t *)p, p += 4 * n;
    q->sys.targets = (uint32_t *)p, p += 4 * ne;
    q->cls = (uint8_t *)p;
    memcpy(q->cls, cls, n);
    return 0;
}

/* valiter_system_dev on the device MDP against ref_system for random
 * classes (no, yes, maybe), usable choices, initial states and rewards,
 * with and without the cut; where they first differ, or NULL. */
static const char *differ_system(const struct mdp_dev *d, const struct mdp *m)
{
    const uint64_t n = m->n_states, nc = m->n_choices;
    uint8_t *cls = malloc(n + n + nc + 1), *initial = cls + n, *ok = initial + n;
    double *sr = malloc(8 * (n + nc + 1)), *cr = sr + n;
    const char *why = NULL;
    struct wx_error e;
    if (!cls || !sr) {
        free(cls), free(sr);
        return "out of memory";
    }
    for (int round = 0; round < 4 && !why; round++) {
        uint64_t pm = 1 + rnd_below(4);
        for (uint64_t s = 0; s < n; s++)
            cls[s] = rnd_below(pm + 1) ? 2 : (uint8_t)rnd_below(2), initial[s] = rnd_below(5) == 0;
        initial[0] = 1;
        for (uint64_t c = 0; c < nc; c++)
            ok[c] = rnd_below(5) != 0, cr[c] = (double)rnd_below(1000) / 7.0;
        for (uint64_t s = 0; s < n; s++)
            sr[s] = (double)rnd_below(1000) / 3.0;
        struct mdp_rewards rew = {.state = round & 2 ? sr : NULL, .choice = cr};
        struct mdpcheck_sysbuild qd, qr;
        const uint8_t *use_ok = round & 1 ? ok : NULL, *use_init = round < 2 ? initial : NULL;
        const struct mdp_rewards *use_rew = round == 1 || round == 2 ? &rew : NULL;
        for (uint64_t s = 0; s < n; s++) { /* a maybe state has a usable choice */
            uint64_t k = 0;
            for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
                k += !use_ok || use_ok[c];
            if (!k && cls[s] == 2 && rnd_below(8))
                cls[s] = 0;
        }
        int bad = sys_request(m, cls, use_ok, use_init, use_rew, &qd);
        bad |= sys_request(m, cls, use_ok, use_init, use_rew, &qr);
        if (bad) {
            free(qd.sys.state_start), free(qr.sys.state_start);
            why = "out of memory";
            break;
        }
        int rc = valiter_system_dev(d, &qd, &e);
        ref_system(m, &qr);
        if (rc != WX_OK || !qd.built)
        {
            static char msg[900];
            snprintf(msg, sizeof msg, "valiter_system_dev failed: %s", e.msg);
            why = rc != WX_OK ? msg : "valiter_system_dev declined";
        }
        else if (qd.no_choice != qr.no_choice)
            why = "the state without a choice";
        else if (qd.no_choice != UINT64_MAX)
            ; /* an internal error both report: nothing more to compare */
        else if (qd.n_maybe != qr.n_maybe || memcmp(qd.cls, qr.cls, n) ||
                 memcmp(qd.loc, qr.loc, 4 * n) || !same(qd.back, qr.back, 4 * qd.n_maybe))
            why = "the cut, classes or ranks";
        else if (qd.sys.n_states != qr.sys.n_states || qd.sys.n_choices != qr.sys.n_choices ||
                 qd.sys.n_entries != qr.sys.n_entries ||
                 !same(qd.sys.state_start, qr.sys.state_start, 8 * (qd.sys.n_states + 1)) ||
                 !same(qd.sys.choice_start, qr.sys.choice_start, 8 * (qd.sys.n_choices + 1)) ||
                 !same(qd.sys.targets, qr.sys.targets, 4 * qd.sys.n_entries) ||
                 !same(qd.sys.probs, qr.sys.probs, 8 * qd.sys.n_entries) ||
                 !same(qd.sys.b, qr.sys.b, 8 * qd.sys.n_choices))
            why = "the system";
        free(qd.sys.state_start), free(qr.sys.state_start);
    }
    free(cls), free(sr);
    return why;
}

/* explore_mdp_gpu_dev (host download or not) against the CPU result c; the
 * precomputations on its device MDP.  Where they first differ, or NULL. */
static const char *differ_dev(const struct image *img, const struct explore_options *xo, bool exact,
                              const struct mdp_gpu_tuning *tu, int host,
                              const struct mdp_explore_result *c)
{
    struct mdp_explore_result g;
    struct mdp_dev d;
    struct mdp dm;
    uint32_t *dl = NULL;
    struct wx_error e;
    const char *why = NULL;
    memset(&dm, 0, sizeof dm);
    if (explore_mdp_gpu_dev(img, xo, exact, tu, host, &g, &d, &e) != WX_OK) {
        mdp_explore_result_free(&g);
        return "explore_mdp_gpu_dev failed";
    }
    if (host)
        why = differ(c, &g, img->words);
    else if (g.mdp.n_states != c->mdp.n_states || g.mdp.n_choices != c->mdp.n_choices ||
             g.mdp.n_entries != c->mdp.n_entries || g.deadlocks != c->deadlocks ||
             g.depth != c->depth || g.fresh_initial != c->fresh_initial || !g.complete)
        why = "counts, deadlocks or depth without the host MDP";
    else if (g.mdp.state_start || g.choice_label)
        why = "a host MDP without host_mdp";
    if (!why && (d.n_states != c->mdp.n_states || d.n_choices != c->mdp.n_choices ||
                 d.n_entries != c->mdp.n_entries || !d.owned))
        why = "the handle's counts";
    if (!why && mdp_dev_download(&d, &dm, &dl, &e) != WX_OK)
        why = "mdp_dev_download failed";
    if (!why && (!same(dm.state_start, c->mdp.state_start, (dm.n_states + 1) * 8) ||
                 !same(dm.choice_start, c->mdp.choice_start, (dm.n_choices + 1) * 8) ||
                 !same(dm.targets, c->mdp.targets, dm.n_entries * 4) ||
                 !same(dm.probs, c->mdp.probs, dm.n_entries * 8) ||
                 !same(dl, c->choice_label, dm.n_choices * 4)))
        why = "the device MDP's arrays";
    if (!why)
        why = differ_sets(&d, &c->mdp);
    if (!why && c->mdp.n_states)
        why = differ_system(&d, &c->mdp);
    free(dl);
    mdp_free(&dm);
    mdp_dev_free(&d);
    mdp_explore_result_free(&g);
    return why;
}

/* A synthetic MDP past kernels/hostcopy.h's staged size through
 * mdp_dev_upload and mdp_dev_download: every array the same, byte for byte,
 * for lengths that end inside a staging chunk.  NULL when equal. */
static const char *staged_round_trip(uint64_t seed)
{
    rng_state = seed * 0x9e3779b97f4a7c15ull + 7;
    struct mdp m, back;
    memset(&m, 0, sizeof m);
    memset(&back, 0, sizeof back);
    /* ~13 M entries: the probabilities pass HOSTCOPY_STAGED_MIN (64 MiB) by a part chunk */
    const uint64_t ns = 3000001 + rnd_below(1000), nch = 2 * ns + 17, ne = 13000007 + rnd_below(4096);
    m.n_states = ns, m.n_choices = nch, m.n_entries = ne;
    m.state_start = malloc((ns + 1) * 8);
    m.choice_start = malloc((nch + 1) * 8);
    m.targets = malloc(ne * 4);
    m.probs = malloc(ne * 8);
    const char *why = NULL;
    if (!m.state_start || !m.choice_start || !m.targets || !m.probs)
        why = "out of host memory";
    for (uint64_t i = 0; !why && i <= ns; i++)
        m.state_start[i] = i * nch / ns;
    for (uint64_t i = 0; !why && i <= nch; i++)
        m.choice_start[i] = i * ne / nch;
    for (uint64_t i = 0; !why && i < ne; i++) {
        m.targets[i] = (uint32_t)rnd_below(ns);
        m.probs[i] = (double)(rnd() >> 11) * 0x1.0p-53;
    }
    struct mdp_dev d;
    struct wx_error e;
    memset(&d, 0, sizeof d);
    if (!why && mdp_dev_upload(&m, &d, &e) != WX_OK)
        why = "mdp_dev_upload failed";
    if (!why && mdp_dev_download(&d, &back, NULL, &e) != WX_OK)
        why = "mdp_dev_download failed";
    if (!why && (back.n_states != ns || back.n_choices != nch || back.n_entries != ne ||
                 !same(back.state_start, m.state_start, (ns + 1) * 8) ||
                 !same(back.choice_start, m.choice_start, (nch + 1) * 8) ||
                 !same(back.targets, m.targets, ne * 4) || !same(back.probs, m.probs, ne * 8)))
        why = "the arrays differ";
    mdp_dev_free(&d);
    mdp_free(&back);
    mdp_free(&m);
    return why;
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--probe"))
            return explore_mdp_gpu_available() ? 0 : 1;
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
    }
    if (!explore_mdp_gpu_available()) {
        check(0, "no usable GPU");
        return check_exit();
    }
    const char *staged = staged_round_trip(seed);
    check(!staged, "a 13-million-entry MDP through the device and back (staged copies, seed %llu)%s%s",
          (unsigned long long)seed, staged ? ": " : "", staged ? staged : "");
    const uint64_t n_nets = quick ? 20 : 600;
    uint64_t agree = 0, dev_agree = 0, tried = 0, fresh = 0, grown = 0;
    printf("test_gpu_mdp: seeds %llu .. %llu\n", (unsigned long long)seed,
           (unsigned long long)(seed + n_nets - 1));
    for (uint64_t s = seed; s < seed + n_nets; s++) {
        rng_state = s * 0x9e3779b97f4a7c15ull + 1;
        struct network net;
        struct image img;
        struct wx_error e;
        if (random_network(&net) != 0) {
            check(0, "seed %llu: building the random network", (unsigned long long)s);
            break;
        }
        if (image_compile(&net, &img, &e) != WX_OK) {
            network_free(&net);
            continue;
        }
        if (!img.probabilistic) {
            image_free(&img);
            network_free(&net);
            continue;
        }
        tried++;
        struct explore_options xo;
        memset(&xo, 0, sizeof xo);
        xo.threads = 1;
        xo.keep_vectors = true;
        const bool exact = s % 2 == 0;
        struct mdp_gpu_tuning tu = {.batch_states = 1 + rnd_below(s % 3 == 0 ? 4 : 64),
                                    .table_slots = s % 4 == 0 ? 64 : 0};
        struct mdp_explore_result c, g;
        int rc_c = explore_mdp(&img, &xo, exact, &c, &e);
        xo.mdp_rule_walk = (int)(s / 2 % 3); /* the GPU: automatic, anchors, masks */
        int rc_g = explore_mdp_gpu_tuned(&img, &xo, exact, &tu, &g, &e);
        const char *why = rc_c != rc_g ? "status" : rc_c == WX_OK ? differ(&c, &g, img.words) : NULL;
        if (why)
            check(0, "seed %llu: GPU and CPU MDPs differ in %s (status cpu %d gpu %d%s%s; %llu states, "
                     "batch %llu, table %llu)",
                  (unsigned long long)s, why, rc_c, rc_g, rc_g ? ": " : "", rc_g ? e.msg : "",
                  (unsigned long long)c.mdp.n_states, (unsigned long long)tu.batch_states,
                  (unsigned long long)tu.table_slots);
        else
            agree++;
        if (rc_c == WX_OK && (why = differ_dev(&img, &xo, exact, &tu, (int)(s % 2), &c)) != NULL)
            check(0, "seed %llu: the device-resident MDP (host download %d) differs: %s",
                  (unsigned long long)s, (int)(s % 2), why);
        else if (rc_c == WX_OK)
            dev_agree++;
        fresh += c.fresh_initial;
        grown += tu.table_slots && c.mdp.n_states > 32;
        mdp_explore_result_free(&c);
        mdp_explore_result_free(&g);
        image_free(&img);
        network_free(&net);
    }
    check(agree == tried && tried > n_nets / 4,
          "GPU MDP = CPU MDP on %llu of %llu random probabilistic networks (the GPU's rules by "
          "anchor, by masks or as chosen; %llu with an initial distribution, %llu past a 64-slot "
          "table's half)",
          (unsigned long long)agree, (unsigned long long)tried, (unsigned long long)fresh,
          (unsigned long long)grown);
    check(dev_agree == tried,
          "device-resident MDP = CPU MDP, its Prob0/Prob1 sets = the host round trip's and the "
          "CPU's, its maybe-state systems (cut, ranks, rows, constants) = the host's, on %llu of "
          "%llu networks",
          (unsigned long long)dev_agree, (unsigned long long)tried);
    return check_exit();
}
