/*
 * fuzz_lab.c -- fuzz target for PRISM's state label files (.lab) and state
 * valuation files (.sta) (graph/mdp_lab.h).
 *
 * The model is fixed: each input is read as a .lab and as a .sta for models
 * of 3, 64 and 70 states (one word of bits, a full word, two words).
 * Checked: the label set's invariants (fuzz_check.h: names unique, no state
 * beyond the model), that "init" and "deadlock" come first when declared,
 * and for .sta that every state's valuation lies inside the text.
 */
#include "fuzz_check.h"

static void check_sta(const struct mdp_sta *st, uint64_t n_states)
{
    FZ_CHECK(st->n_states == n_states, "valuations of %llu states for %llu",
             (unsigned long long)st->n_states, (unsigned long long)n_states);
    FZ_CHECK(st->variables && st->variables[0] == '(', "variable line \"%s\"",
             st->variables ? st->variables : "(null)");
    for (uint64_t s = 0; s < n_states; s++) {
        const char *v = st->text + st->offset[s];
        FZ_CHECK(v[0] == '(' && v[strlen(v) - 1] == ')', "state %llu: valuation \"%s\"",
                 (unsigned long long)s, v);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint64_t sizes[] = {3, 64, 70};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        struct mdp_labels l;
        struct wx_error e;
        if (fz_check_error(mdp_labels_read_buffer((const char *)data, size, "fuzz.lab", sizes[k], &l, &e),
                           &e) == WX_OK) {
            fz_check_labels(&l, sizes[k]);
            mdp_labels_free(&l);
        }
        struct mdp_sta st;
        if (fz_check_error(mdp_sta_read_buffer((const char *)data, size, "fuzz.sta", sizes[k], &st, &e),
                           &e) == WX_OK) {
            check_sta(&st, sizes[k]);
            mdp_sta_free(&st);
        }
    }
    return 0;
}
