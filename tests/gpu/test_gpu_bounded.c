/*
 * test_gpu_bounded.c -- bounded_solve_gpu (kernels/bounded.cu) against its
 * CPU twin bounded_solve (analysis/bounded.c): the same bits in lo and hi,
 * the same step at which the values stopped moving, on random MDPs.
 *
 *   test_gpu_bounded [--quick] [--seed N] [--probe]
 *
 * Random MDPs (1..400 states, every tenth 2000..60000, states without a
 * choice, self-loops, 1..4 choices of 1..5 entries with uneven
 * probabilities, so that the two roundings differ), every problem kind
 * (F<=k with and without phi1, G<=k, C<=k with state and choice rewards or
 * none), min and max, k in {0, 1, 7, 63, 64, 65, 300, 5000}: k around the
 * GPU's batch of launches, and k far beyond the step where the values stop
 * moving.  lo <= hi is checked too.  --quick: 8 instances (what the
 * sanitizers run), else 120.  Seeds are printed on failure; --seed N
 * replays from N.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bounded.h"
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
    m->targets = malloc(20 * n * sizeof *m->targets);
    m->probs = malloc(20 * n * sizeof *m->probs);
    for (uint64_t s = 0; s < n; s++) {
        const uint64_t nc = below(8) == 0 ? 0 : 1 + below(4);
        for (uint64_t c = 0; c < nc; c++) {
            const uint64_t ne = 1 + below(5);
            double w[5], sum = 0;
            for (uint64_t e = 0; e < ne; e++)
                sum += w[e] = 1 + (double)below(1000);
            for (uint64_t e = 0; e < ne; e++) {
                uint64_t t = below(10) == 0 ? s : below(n);
                m->targets[m->n_entries] = (uint32_t)t;
                m->probs[m->n_entries++] = w[e] / sum;
            }
            m->choice_start[++m->n_choices] = m->n_entries;
        }
        m->state_start[s + 1] = m->n_choices;
    }
}

/* One problem on both backends; 1 when they agree. */
static int compare(const struct bounded_problem *bp, uint64_t seed)
{
    uint64_t n = bp->m->n_states, f1 = 0, f2 = 0;
    double *l1 = malloc(n * sizeof *l1), *h1 = malloc(n * sizeof *h1);
    double *l2 = malloc(n * sizeof *l2), *h2 = malloc(n * sizeof *h2);
    struct wx_error err;
    int ok = 1;
    if (bounded_solve(bp, l1, h1, &f1, &err) != WX_OK || bounded_solve_gpu(bp, l2, h2, &f2, &err) != WX_OK) {
        printf("FAIL seed %llu: kind %d: %s\n", (unsigned long long)seed, (int)bp->kind, err.msg);
        ok = 0;
    } else if (memcmp(l1, l2, n * sizeof *l1) || memcmp(h1, h2, n * sizeof *h1) || f1 != f2) {
        uint64_t s = 0;
        while (s < n && l1[s] == l2[s] && h1[s] == h2[s])
            s++;
        printf("FAIL seed %llu: kind %d max %d k %llu: GPU differs from the CPU (steps fixed %llu vs %llu; "
               "state %llu: [%.17g, %.17g] vs [%.17g, %.17g])\n",
               (unsigned long long)seed, (int)bp->kind, bp->maximize, (unsigned long long)bp->steps,
               (unsigned long long)f1, (unsigned long long)f2, (unsigned long long)s,
               s < n ? l1[s] : 0, s < n ? h1[s] : 0, s < n ? l2[s] : 0, s < n ? h2[s] : 0);
        ok = 0;
    }
    for (uint64_t s = 0; s < n && ok; s++)
        if (!(l2[s] <= h2[s])) {
            printf("FAIL seed %llu: lo > hi at state %llu\n", (unsigned long long)seed, (unsigned long long)s);
            ok = 0;
        }
    free(l1), free(h1), free(l2), free(h2);
    return ok;
}

static void one(uint64_t seed)
{
    rs = seed;
    struct mdp m;
    const uint64_t n = seed % 10 == 0 ? 2000 + below(58000) : 1 + below(400);
    random_mdp(&m, n);
    uint8_t *target = malloc(n), *phi1 = malloc(n);
    double *srew = malloc(n * sizeof *srew), *crew = malloc((m.n_choices + 1) * sizeof *crew);
    for (uint64_t s = 0; s < n; s++) {
        target[s] = below(100) < 5;
        phi1[s] = below(6) != 0;
        srew[s] = below(3) ? (double)below(100) / 7 : 0;
    }
    for (uint64_t c = 0; c < m.n_choices; c++)
        crew[c] = (double)below(50) / 3;
    struct mdp_rewards rew = {.state = below(2) ? srew : NULL, .choice = below(2) ? crew : NULL};
    static const uint64_t ks[] = {0, 1, 7, 63, 64, 65, 300, 5000};
    int ok = 1;
    for (int kind = 0; kind < 4; kind++)
        for (int max = 0; max < 2; max++) {
            struct bounded_problem bp = {.m = &m, .maximize = max, .threads = 2,
                                         .steps = ks[below(sizeof ks / sizeof *ks)]};
            if (kind <= 1) {
                bp.kind = BOUNDED_UNTIL;
                bp.target = target;
                bp.allowed = kind ? phi1 : NULL;
            } else if (kind == 2) {
                bp.kind = BOUNDED_GLOBALLY;
                bp.allowed = phi1;
            } else {
                bp.kind = BOUNDED_CUMULATIVE;
                bp.rew = &rew;
            }
            ok &= compare(&bp, seed);
        }
    if (ok)
        passes++;
    else
        failures++;
    free(target), free(phi1), free(srew), free(crew);
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
    const int count = quick ? 8 : 120;
    for (int k = 0; k < count; k++)
        one(seed + (uint64_t)k);
    printf("%s bounded_solve_gpu = bounded_solve, bit for bit, on %d random MDPs x 8 problems "
           "(seeds %llu..%llu)\n",
           failures ? "FAIL" : "PASS", passes + failures, (unsigned long long)seed,
           (unsigned long long)(seed + (uint64_t)count - 1));
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
