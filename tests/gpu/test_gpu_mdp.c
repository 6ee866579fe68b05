/*
 * test_gpu_mdp.c -- the GPU MDP explorer (kernels/explore_mdp_gpu.h)
 * against the CPU one (explorer/explore_mdp.h) on random probabilistic
 * networks: the same MDP array for array (state_start, choice_start,
 * targets, the probabilities bit for bit, labels, exact fractions, vectors),
 * the same deadlocks, depth and fresh_initial; each network under random
 * knobs: batches of 1..all states and tables of 64 slots up (growth).
 * Options: --seed N (first seed, printed on failure), --quick (fewer
 * networks, for the sanitizers), --probe (exit 0 when a GPU is usable).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../explorer/explore_mdp.h"
#include "../../kernels/explore_mdp_gpu.h"
#include "../../network/image.h"
#include "../../network/network.h"
#include "../../parser/aut.h"
#include "../../util/strtab.h"
#include "../check.h"
#include "../random_prob_net.h"
#include "../rng.h"

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
    const uint64_t n_nets = quick ? 20 : 600;
    uint64_t agree = 0, tried = 0, fresh = 0, grown = 0;
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
        fresh += c.fresh_initial;
        grown += tu.table_slots && c.mdp.n_states > 32;
        mdp_explore_result_free(&c);
        mdp_explore_result_free(&g);
        image_free(&img);
        network_free(&net);
    }
    check(agree == tried && tried > n_nets / 4,
          "GPU MDP = CPU MDP on %llu of %llu random probabilistic networks (%llu with an initial "
          "distribution, %llu past a 64-slot table's half)",
          (unsigned long long)agree, (unsigned long long)tried, (unsigned long long)fresh,
          (unsigned long long)grown);
    return check_exit();
}
