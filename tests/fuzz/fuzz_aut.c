/*
 * fuzz_aut.c -- fuzz target for the Aldebaran reader (parser/aut.h) and the
 * readers built on it (graph_read's and wgraph's .aut).
 *
 * Per input: aut_read_buffer and aut_read_prob_buffer (the probabilistic
 * reader accepts a superset and must agree on plain files); on success the
 * LTS invariants (lts.h), the header's counts (NSTATES == n_states, NTRANS ==
 * n_trans + n_duplicates), a write/read round trip (aut_write must express
 * every label the reader returns, and reading it back gives the same LTS),
 * and lts_prune_from; then graph_read_buffer(GRAPH_AUT) and
 * wgraph_read_buffer(WGRAPH_AUT) with a weight regex.
 */
#include "fuzz_check.h"
#include "graph/graph_read.h"
#include "parser/aut.h"

/* The header's NTRANS and NSTATES of a file the reader accepted (so the
 * header is well formed); 0 when the header cannot be found this simply
 * (then nothing is checked). */
static int header_counts(const char *s, unsigned long long *ntrans, unsigned long long *nstates)
{
    s += strspn(s, " \t\v\f\r\n");
    if (strncmp(s, "des", 3) != 0)
        return 0;
    const char *c1 = strchr(s, ',');
    const char *eol = strchr(s, '\n');
    if (!c1 || (eol && c1 > eol))
        return 0;
    char *end;
    *ntrans = strtoull(c1 + 1, &end, 10);
    end += strspn(end, " \t\v\f");
    if (*end != ',')
        return 0;
    *nstates = strtoull(end + 1, &end, 10);
    return 1;
}

static void same_lts(const struct lts *a, const struct lts *b, const char *what)
{
    FZ_CHECK(a->n_states == b->n_states && a->n_trans == b->n_trans,
             "%s: %u states %llu transitions, then %u and %llu", what, a->n_states,
             (unsigned long long)a->n_trans, b->n_states, (unsigned long long)b->n_trans);
    for (uint64_t t = 0; t < a->n_trans; t++)
        FZ_CHECK(a->src[t] == b->src[t] && a->label[t] == b->label[t] && a->dst[t] == b->dst[t],
                 "%s: transition %llu differs", what, (unsigned long long)t);
}

/* Writes l and reads it back: the same LTS, no duplicate. */
static void round_trip(const struct lts *l, struct strtab *labels)
{
    const char *path = fz_write_file("rt.aut", "", 0);
    struct wx_error e;
    int rc = fz_check_error(aut_write(path, l, labels, &e), &e);
    FZ_CHECK(rc == WX_OK, "aut_write failed on a read LTS: %s", e.msg);
    struct lts back;
    uint32_t init = 1;
    rc = fz_check_error(aut_read(path, labels, &back, &init, &e), &e);
    FZ_CHECK(rc == WX_OK, "reading back the written file: %s:%d:%d: %s", e.file, e.line, e.col, e.msg);
    FZ_CHECK(init == 0 && back.n_duplicates == 0, "read back: initial %u, %llu duplicates", init,
             (unsigned long long)back.n_duplicates);
    same_lts(l, &back, "round trip");
    lts_free(&back);
}

static void plain_and_prob(const uint8_t *data, size_t size, const char *text)
{
    struct strtab *t = strtab_new(), *tp = strtab_new();
    if (!t || !tp)
        abort();
    struct lts l, lp;
    uint32_t init = 7, initp = 7;
    struct wx_error e;
    int rc = fz_check_error(aut_read_buffer((const char *)data, size, "fuzz.aut", t, &l, &init, &e), &e);
    int rcp = fz_check_error(aut_read_prob_buffer((const char *)data, size, "fuzz.aut", tp, &lp, &initp, &e), &e);
    if (rc != WX_OK) {
        FZ_CHECK(l.n_trans == 0 && init == 0, "error but %llu transitions, initial %u",
                 (unsigned long long)l.n_trans, init);
    } else {
        fz_check_lts(&l, strtab_count(t));
        FZ_CHECK(l.n_dists == 0 && init < l.n_states, "plain read: %u distributions, initial %u",
                 l.n_dists, init);
        unsigned long long ntrans, nstates;
        if (header_counts(text, &ntrans, &nstates))
            FZ_CHECK(nstates == l.n_states && ntrans == l.n_trans + l.n_duplicates,
                     "header (%llu, %llu) but %u states, %llu + %llu duplicate transitions", ntrans,
                     nstates, l.n_states, (unsigned long long)l.n_trans,
                     (unsigned long long)l.n_duplicates);
        FZ_CHECK(rcp == WX_OK, "the probabilistic reader rejects a plain file: %s", e.msg);
        same_lts(&l, &lp, "plain vs probabilistic reader");
        round_trip(&l, t);
        FZ_CHECK(lts_prune_from(&l, init) == 0, "lts_prune_from: out of memory");
        fz_check_lts(&l, strtab_count(t));
        lts_free(&l);
    }
    if (rcp != WX_OK) {
        FZ_CHECK(lp.n_trans == 0 && initp == 0, "prob error but %llu transitions, initial %u",
                 (unsigned long long)lp.n_trans, initp);
    } else {
        fz_check_lts(&lp, strtab_count(tp));
        if (initp & LTS_DST_DISTRIBUTION)
            FZ_CHECK((initp & ~LTS_DST_DISTRIBUTION) < lp.n_dists, "initial distribution %u of %u",
                     initp & ~LTS_DST_DISTRIBUTION, lp.n_dists);
        else
            FZ_CHECK(initp < lp.n_states, "initial %u of %u", initp, lp.n_states);
        FZ_CHECK(lts_prune_from(&lp, initp) == 0, "lts_prune_from: out of memory");
        fz_check_lts(&lp, strtab_count(tp));
        lts_free(&lp);
    }
    strtab_free(t);
    strtab_free(tp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_cstr(data, size);
    plain_and_prob(data, size, text);

    struct wx_error e;
    struct csr g;
    if (fz_check_error(graph_read_buffer((const char *)data, size, "fuzz.aut", GRAPH_AUT, &g, &e), &e) ==
        WX_OK) {
        fz_check_csr(&g);
        csr_free(&g);
    }
    /* labels like "w=3.5" weigh 3.5, the others 1 */
    struct wgraph_options o = {.weight_regex = "w=([-+0-9.]*)", .default_weight = "1"};
    struct wgraph w;
    if (fz_check_error(wgraph_read_buffer((const char *)data, size, "fuzz.aut", WGRAPH_AUT, &o, &w, &e),
                       &e) == WX_OK) {
        fz_check_wgraph(&w);
        wgraph_free(&w);
    }
    free(text);
    return 0;
}
