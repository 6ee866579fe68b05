/*
 * fuzz_rew.c -- fuzz target for PRISM's reward files: state rewards (.srew)
 * and transition rewards (.trew) (graph/mdp_lab.h).
 *
 * The models are fixed (MODELS below: the MDP of tests/bad/mdp/ok_model.tra
 * and a DTMC); each input is read as .srew and as .trew for both.  Checked:
 * rewards finite and >= 0 (fuzz_check.h), arrays present only where the
 * model has states/choices, the name from the '# Reward structure' comment
 * free of control bytes.
 */
#include "fuzz_check.h"

static const char *const MODELS[] = {
    "# Transitions (MDP)\n3 4 6\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 1 1\n2 0 0 0.25\n2 0 2 0.75\n",
    "3 4\n0 1 0.5\n0 0 0.5\n1 2 1\n2 2 1\n",
};

static struct mdp models[2];

static void load_models(void)
{
    static int done;
    if (done++)
        return;
    for (int i = 0; i < 2; i++) {
        struct wx_error e;
        if (mdp_read_buffer(MODELS[i], strlen(MODELS[i]), "model.tra", &models[i], &e) != WX_OK) {
            fprintf(stderr, "fuzz_rew: fixed model %d: %s\n", i, e.msg);
            abort();
        }
    }
}

static void check(const struct mdp_rewards *r, const struct mdp *m)
{
    fz_check_rewards(r, m);
    for (const char *p = r->name; p && *p && !fz_lax(); p++)
        FZ_CHECK((unsigned char)*p >= 0x20, "control byte in the reward name");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    load_models();
    for (int i = 0; i < 2; i++) {
        struct mdp_rewards r = {0};
        struct wx_error e;
        if (fz_check_error(mdp_srew_read_buffer((const char *)data, size, "fuzz.srew", &models[i], &r, &e),
                           &e) == WX_OK)
            check(&r, &models[i]);
        mdp_rewards_free(&r);
        struct mdp_rewards t = {0};
        if (fz_check_error(mdp_trew_read_buffer((const char *)data, size, "fuzz.trew", &models[i], &t, &e),
                           &e) == WX_OK)
            check(&t, &models[i]);
        mdp_rewards_free(&t);
    }
    return 0;
}
