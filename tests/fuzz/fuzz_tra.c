/*
 * fuzz_tra.c -- fuzz target for PRISM's explicit transition files (.tra,
 * graph/mdp.h) and the graph reader's view of them (graph_read.h).
 *
 * Per input: mdp_read_buffer (sequential) and mdp_read_buffer_threads with 2
 * threads, which promises the same result and the same error; the MDP
 * invariants (fuzz_check.h); graph_read_buffer(GRAPH_TRA): a valid CSR with
 * S vertices and at most one edge per transition line.
 */
#include "fuzz_check.h"
#include "graph/graph_read.h"

static void same_mdp(const struct mdp *a, const struct mdp *b)
{
    FZ_CHECK(a->n_states == b->n_states && a->n_choices == b->n_choices &&
                 a->n_entries == b->n_entries && a->is_dtmc == b->is_dtmc,
             "sequential and parallel readers disagree on the sizes");
    FZ_CHECK(!memcmp(a->state_start, b->state_start, (a->n_states + 1) * sizeof *a->state_start) &&
                 !memcmp(a->choice_start, b->choice_start, (a->n_choices + 1) * sizeof *a->choice_start),
             "sequential and parallel readers disagree on the offsets");
    for (uint64_t i = 0; i < a->n_entries; i++)
        FZ_CHECK(a->targets[i] == b->targets[i] && a->probs[i] == b->probs[i],
                 "sequential and parallel readers disagree on entry %llu", (unsigned long long)i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mdp m, p;
    struct wx_error e, ep;
    int rc = fz_check_error(mdp_read_buffer((const char *)data, size, "fuzz.tra", &m, &e), &e);
    int rcp = fz_check_error(mdp_read_buffer_threads((const char *)data, size, "fuzz.tra", 2, &p, &ep), &ep);
    FZ_CHECK(rc == rcp, "sequential reader: status %d, parallel: %d", rc, rcp);
    if (rc != WX_OK) {
        FZ_CHECK(e.line == ep.line && e.col == ep.col && !strcmp(e.msg, ep.msg),
                 "errors differ: %d:%d: %s / %d:%d: %s", e.line, e.col, e.msg, ep.line, ep.col, ep.msg);
        FZ_CHECK(m.n_states == 0 && m.state_start == NULL, "error but the mdp is not zeroed");
    } else {
        fz_check_mdp(&m);
        same_mdp(&m, &p);
        mdp_free(&m);
        mdp_free(&p);
    }

    struct csr g;
    if (fz_check_error(graph_read_buffer((const char *)data, size, "fuzz.tra", GRAPH_TRA, &g, &e), &e) ==
        WX_OK) {
        fz_check_csr(&g);
        FZ_CHECK(rc == WX_OK, "graph_read accepts a .tra that mdp_read rejects");
        csr_free(&g);
    }
    return 0;
}
