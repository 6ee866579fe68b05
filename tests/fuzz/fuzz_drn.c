/*
 * fuzz_drn.c -- fuzz target for Storm's explicit format (.drn, graph/drn.h).
 *
 * Per input: drn_read_models_buffer (every reward model) and drn_read_buffer
 * (the first only).  Checked: the MDP's and the labels' invariants
 * (fuzz_check.h), rewards finite and >= 0 in every model, and that both
 * entry points agree (same status; same model; drn_read's rewards are the
 * first model's).
 */
#include "fuzz_check.h"
#include "graph/drn.h"

static void same_array(const double *a, const double *b, uint64_t n, const char *what)
{
    FZ_CHECK((a == NULL) == (b == NULL), "%s: present in one reader only", what);
    for (uint64_t i = 0; a && i < n; i++)
        FZ_CHECK(a[i] == b[i], "%s %llu: %g vs %g", what, (unsigned long long)i, a[i], b[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mdp m, m1;
    struct mdp_labels l, l1;
    struct mdp_reward_models rm = {0};
    struct mdp_rewards r1 = {0};
    struct wx_error e, e1;
    int rc = fz_check_error(drn_read_models_buffer((const char *)data, size, "fuzz.drn", &m, &l, &rm, &e), &e);
    int rc1 = fz_check_error(drn_read_buffer((const char *)data, size, "fuzz.drn", &m1, &l1, &r1, &e1), &e1);
    FZ_CHECK(rc == rc1, "drn_read_models: status %d, drn_read: %d", rc, rc1);
    if (rc == WX_OK) {
        fz_check_mdp(&m);
        fz_check_labels(&l, m.n_states);
        for (size_t k = 0; k < rm.n; k++)
            fz_check_rewards(&rm.models[k], &m);
        FZ_CHECK(m1.n_states == m.n_states && m1.n_choices == m.n_choices && m1.n_entries == m.n_entries &&
                     l1.n_labels == l.n_labels,
                 "drn_read and drn_read_models disagree on the model");
        if (rm.n > 0) {
            same_array(rm.models[0].state, r1.state, m.n_states, "state reward");
            same_array(rm.models[0].choice, r1.choice, m.n_choices, "choice reward");
        }
        mdp_free(&m);
        mdp_labels_free(&l);
        mdp_reward_models_free(&rm);
        mdp_free(&m1);
        mdp_labels_free(&l1);
        mdp_rewards_free(&r1);
    } else {
        FZ_CHECK(m.n_states == 0 && m.state_start == NULL && rm.n == 0, "error but outputs not empty");
    }
    return 0;
}
