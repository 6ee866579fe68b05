/*
 * test_gpu_precompute2.c -- valiter_precompute2_gpu (analysis/mdpcheck.h):
 * two graph precomputations on one upload of the MDP give the sets of the
 * CPU twin (analysis/valiter.c's valiter_precompute_cpu, an independent
 * sequential implementation) and of two valiter_precompute_gpu calls.
 *
 *   test_gpu_precompute2 [--quick] [--seed N] [--probe]
 *
 * Random MDPs (1..300 states, every tenth 1000..31000, deadlock states, self-loops, 0..4 choices of
 * 1..4 entries, targets local or anywhere), random target sets (empty,
 * sparse, dense), allowed = NULL or a random set; every ordered pair of
 * (Prob0A, Prob1E, Prob0E, Prob1A), so that Prob1E after Prob0A (which
 * starts from Prob0A's reachable set) and the Prob0E counters reused by a
 * second run are both covered.  --quick: 10 instances (what the sanitizers
 * run), else 150.  Seeds are printed on failure; --seed N replays from N.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mdpcheck.h"
#include "analysis/valiter.h"

static int failures, passes;

static uint64_t rs;
static uint64_t rnd(void)
{
    uint64_t z = (rs += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

static void random_mdp(struct mdp *m, uint64_t n)
{
    memset(m, 0, sizeof *m);
    m->n_states = n;
    m->state_start = calloc(n + 1, sizeof *m->state_start);
    m->choice_start = calloc(4 * n + 1, sizeof *m->choice_start);
    m->targets = malloc(16 * n * sizeof *m->targets);
    m->probs = malloc(16 * n * sizeof *m->probs);
    const int local = below(2);
    for (uint64_t s = 0; s < n; s++) {
        const uint64_t nc = below(8) == 0 ? 0 : 1 + below(4);
        for (uint64_t c = 0; c < nc; c++) {
            const uint64_t ne = 1 + below(4);
            for (uint64_t e = 0; e < ne; e++) {
                uint64_t t = local ? (s + below(7) + n - 3) % n : below(n);
                if (below(10) == 0)
                    t = s;
                m->targets[m->n_entries] = (uint32_t)t;
                m->probs[m->n_entries++] = 1.0 / (double)ne;
            }
            m->choice_start[++m->n_choices] = m->n_entries;
        }
        m->state_start[s + 1] = m->n_choices;
    }
}

static void one(uint64_t seed)
{
    rs = seed;
    struct mdp m;
    /* every tenth instance large: frontiers wider than a block, many Prob1E rounds */
    const uint64_t n = seed % 10 == 0 ? 1000 + below(30000) : 1 + below(300);
    random_mdp(&m, n);
    uint8_t *target = malloc(n), *allowed = below(2) ? malloc(n) : NULL;
    const uint64_t dens = below(3) == 0 ? 0 : 1 + below(40);
    for (uint64_t s = 0; s < n; s++) {
        target[s] = below(100) < dens;
        if (allowed)
            allowed[s] = below(5) != 0;
    }
    static const enum vi_precomp all[4] = {VI_PMAX0, VI_PMAX1, VI_PMIN0, VI_PMIN1};
    uint8_t *ref[4], *single[4], *a = malloc(n), *b = malloc(n);
    struct wx_error err;
    int bad = 0;
    for (int i = 0; i < 4; i++) {
        ref[i] = malloc(n), single[i] = malloc(n);
        if (valiter_precompute_cpu(&m, allowed, target, all[i], ref[i], &err) != WX_OK ||
            valiter_precompute_gpu(&m, allowed, target, all[i], single[i], &err) != WX_OK) {
            printf("FAIL seed %llu: precomputation %d: %s\n", (unsigned long long)seed, (int)all[i], err.msg);
            bad = 1;
        } else if (memcmp(ref[i], single[i], n)) {
            printf("FAIL seed %llu: valiter_precompute_gpu %d differs from the CPU\n", (unsigned long long)seed,
                   (int)all[i]);
            bad = 1;
        }
    }
    for (int i = 0; i < 4 && !bad; i++)
        for (int j = 0; j < 4 && !bad; j++) {
            memset(a, 7, n), memset(b, 7, n);
            if (valiter_precompute2_gpu(&m, allowed, target, all[i], a, all[j], b, &err) != WX_OK) {
                printf("FAIL seed %llu: valiter_precompute2_gpu(%d, %d): %s\n", (unsigned long long)seed, (int)all[i],
                       (int)all[j], err.msg);
                bad = 1;
            } else if (memcmp(a, ref[i], n) || memcmp(b, ref[j], n)) {
                printf("FAIL seed %llu: valiter_precompute2_gpu(%d, %d) differs from the CPU (n %llu, allowed %s)\n",
                       (unsigned long long)seed, (int)all[i], (int)all[j], (unsigned long long)n,
                       allowed ? "yes" : "no");
                bad = 1;
            }
        }
    if (bad)
        failures++;
    else
        passes++;
    for (int i = 0; i < 4; i++)
        free(ref[i]), free(single[i]);
    free(a), free(b), free(target), free(allowed);
    mdp_free(&m);
}

int main(int argc, char **argv)
{
    int quick = 0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--probe"))
            return valiter_gpu_available() ? 0 : 1;
        else {
            fprintf(stderr, "usage: %s [--quick] [--seed N] [--probe]\n", argv[0]);
            return 2;
        }
    }
    if (!valiter_gpu_available()) {
        printf("FAIL no usable GPU\n");
        return 1;
    }
    const int count = quick ? 10 : 150;
    for (int k = 0; k < count; k++)
        one(seed + (uint64_t)k);
    printf("%s valiter_precompute2_gpu = two valiter_precompute_gpu calls = the CPU on %d random MDPs x 16 "
           "ordered pairs (seeds %llu..%llu)\n",
           failures ? "FAIL" : "PASS", passes + failures, (unsigned long long)seed,
           (unsigned long long)(seed + (uint64_t)count - 1));
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
