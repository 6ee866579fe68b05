/*
 * test_gpu_mec.c -- the GPU MEC decomposition (kernels/mec.cu) against
 * mec_cpu (analysis/mec.c), on a GPU machine.  Built and run by
 * bench/gpu_test.sh (not by `make test`).
 *
 *   test_gpu_mec [--quick] [--seed N] [--mdps N] [--probe]
 *
 * Random MDPs of varied shape (few or many choices per state, self-loops,
 * states without choices, local or global targets, a permutation-free
 * "chain of end components" shape, a DAG without any end component: the
 * GPU's empty-graph shortcut) and the PRISM exports under
 * tests/data/mdp (MEC counts in each
 * reference.json): every field of struct mec_result must be identical --
 * MEC ids per state, choice_in per choice, the counts and the number of
 * refinement rounds.  Seeds are printed; `--seed` replays.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../analysis/mec.h"
#include "../../analysis/scc.h"
#include "../../graph/mdp.h"
#include "../check.h"
#include "../prism_ref.h"
#include "../rng.h"

static int quick;

static void compare(const char *tag, const struct mdp *m)
{
    struct mec_result c, d;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = mec_cpu(m, &c, &err);
    if (rc != WX_OK) {
        check(0, "%s: mec_cpu: %s", tag, err.msg);
        return;
    }
    rc = mec_gpu(m, &d, &err);
    if (check(rc == WX_OK, "%s: mec_gpu returns OK (%llu states, %llu choices)%s%s", tag,
              (unsigned long long)m->n_states, (unsigned long long)m->n_choices, rc ? ": " : "",
              rc ? err.msg : "")) {
        int ids = m->n_states == 0 || !memcmp(c.mec, d.mec, m->n_states * sizeof *c.mec);
        int ch = m->n_choices == 0 || !memcmp(c.choice_in, d.choice_in, m->n_choices);
        int counts = c.n_mecs == d.n_mecs && c.states_in_mecs == d.states_in_mecs &&
                     c.choices_in_mecs == d.choices_in_mecs && c.largest == d.largest &&
                     c.n_singletons == d.n_singletons && c.rounds == d.rounds;
        check(ids && ch && counts,
              "%s: MEC ids %s, choices %s; counts (MECs, states, choices, largest, singletons, rounds) "
              "CPU %llu %llu %llu %llu %llu %llu, GPU %llu %llu %llu %llu %llu %llu",
              tag, ids ? "equal" : "DIFFER", ch ? "equal" : "DIFFER",
              (unsigned long long)c.n_mecs, (unsigned long long)c.states_in_mecs,
              (unsigned long long)c.choices_in_mecs, (unsigned long long)c.largest,
              (unsigned long long)c.n_singletons, (unsigned long long)c.rounds,
              (unsigned long long)d.n_mecs, (unsigned long long)d.states_in_mecs,
              (unsigned long long)d.choices_in_mecs, (unsigned long long)d.largest,
              (unsigned long long)d.n_singletons, (unsigned long long)d.rounds);
    }
    mec_result_free(&c);
    mec_result_free(&d);
}

/* A random MDP: shape 0 uniform targets, 1 local targets (near the state),
 * 2 mostly self-loops and back edges (many end components), 3 states
 * without choices sprinkled in. */
static void random_mdp(struct mdp *m, uint64_t n, int shape)
{
    memset(m, 0, sizeof *m);
    m->n_states = n;
    uint64_t cap_c = n * 4 + 1, cap_e = cap_c * 3 + 1;
    m->state_start = calloc(n + 1, sizeof *m->state_start);
    m->choice_start = calloc(cap_c + 1, sizeof *m->choice_start);
    m->targets = malloc(cap_e * sizeof *m->targets);
    m->probs = malloc(cap_e * sizeof *m->probs);
    uint64_t c = 0, e = 0;
    for (uint64_t s = 0; s < n; s++) {
        m->state_start[s] = c;
        uint64_t k = shape == 3 && rnd_below(4) == 0 ? 0 : 1 + rnd_below(3);
        if (shape == 4 && s + 1 == n)
            k = 0; /* the DAG's sink */
        for (uint64_t j = 0; j < k; j++) {
            m->choice_start[c] = e;
            uint64_t len = 1 + rnd_below(rnd_below(3) ? 1 : 3);
            for (uint64_t i = 0; i < len; i++) {
                uint64_t t;
                if (shape == 4) /* forward only: a DAG, no end component */
                    t = s + 1 + rnd_below(n - 1 - s < 5 ? n - 1 - s : 5);
                else if (shape == 1 || shape == 3)
                    t = (s + n + rnd_below(7) - 3) % n;
                else if (shape == 2)
                    t = rnd_below(3) == 0 ? s : (s + n - rnd_below(4)) % n;
                else
                    t = rnd_below(n);
                m->targets[e] = (uint32_t)t;
                m->probs[e] = 1.0 / (double)len;
                e++;
            }
            c++;
        }
    }
    m->state_start[n] = c;
    m->choice_start[c] = e;
    m->n_choices = c;
    m->n_entries = e;
}

static void prism_mec(const char *name, const char *tra, const char *json)
{
    struct mdp m;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = mdp_read(tra, &m, &err);
    if (!check(rc == WX_OK, "prism %s: .tra read%s%s", name, rc ? ": " : "", rc ? err.msg : ""))
        return;
    char tag[300];
    snprintf(tag, sizeof tag, "prism %s", name);
    compare(tag, &m);
    struct mec_result r;
    rc = mec_gpu(&m, &r, &err);
    long long mecs = prism_json_get(json, "mecs", "count"),
              covered = prism_json_get(json, "mecs", "states_covered"),
              largest = prism_json_get(json, "mecs", "largest"),
              choices = prism_json_get(json, "mecs", "choices_inside_mecs");
    check(rc == WX_OK && (long long)r.n_mecs == mecs && (long long)r.states_in_mecs == covered &&
              (mecs == 0 || (long long)r.largest == largest) &&
              (choices < 0 || (long long)r.choices_in_mecs == choices),
          "prism %s: GPU MECs/states/largest/choices expected %lld/%lld/%lld/%lld, found "
          "%llu/%llu/%llu/%llu",
          name, mecs, covered, largest, choices, (unsigned long long)r.n_mecs,
          (unsigned long long)r.states_in_mecs, (unsigned long long)r.largest,
          (unsigned long long)r.choices_in_mecs);
    mec_result_free(&r);
    mdp_free(&m);
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL), mdps = 300;
    int given = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--mdps") && i + 1 < argc)
            mdps = strtoull(argv[++i], NULL, 0), given = 1;
        else if (!strcmp(argv[i], "--probe"))
            return scc_gpu_available() ? 0 : 1;
        else {
            fprintf(stderr, "usage: test_gpu_mec [--quick] [--seed N] [--mdps N] [--probe]\n");
            return 2;
        }
    }
    if (!scc_gpu_available()) {
        check(0, "gpu: no usable CUDA device; test_gpu_mec needs one");
        return check_exit();
    }
    printf("# test_gpu_mec seed %llu%s\n", (unsigned long long)seed, quick ? " (quick)" : "");
    struct mdp m;
    memset(&m, 0, sizeof m);
    compare("empty MDP", &m);
    uint64_t count = quick && !given ? 8 : mdps;
    for (uint64_t i = 0; i < count; i++) {
        rng_state = seed * 0x9E3779B97F4A7C15ull + i + 1;
        uint64_t n = 1 + rnd_below(i % 7 == 6 && !quick ? 3000 : 60);
        int shape = (int)(i % 5);
        random_mdp(&m, n, shape);
        char tag[128];
        snprintf(tag, sizeof tag, "random MDP #%llu shape %d seed %llu", (unsigned long long)i, shape,
                 (unsigned long long)seed);
        compare(tag, &m);
        mdp_free(&m);
    }
    if (!quick)
        for (int shape = 0; shape < 5; shape++) {
            rng_state = seed + 1000 + (uint64_t)shape;
            random_mdp(&m, 200000, shape);
            char tag[128];
            snprintf(tag, sizeof tag, "random MDP of 200000 states shape %d seed %llu", shape,
                     (unsigned long long)seed);
            compare(tag, &m);
            mdp_free(&m);
        }
    /* The PRISM instances stay out of --quick: under racecheck, which
     * serialises the persistent SCC engines' grid barriers, even the two
     * instances of <= 400 states ran past the sanitizer's time limit. */
    if (!quick)
        prism_for_each("prism", prism_mec);
    printf("# test_gpu_mec: %d passed, %d failed (seed %llu)\n", check_passes, check_failures,
           (unsigned long long)seed);
    return check_exit();
}
