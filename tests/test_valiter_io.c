/*
 * test_valiter_io.c -- the model readers of `warpex check`: PRISM .lab,
 * .srew, .trew (graph/mdp_lab.h) and Storm .drn (graph/drn.h).
 *
 *  - 200 random MDPs and DTMCs (states without choices included) are
 *    written both as .tra + .lab + .srew + .trew text and as .drn text
 *    (with comments, quoted labels, a second reward model that must be
 *    ignored, blank lines), read back with the buffer readers, and compared
 *    with the generated arrays: CSR arrays, every label's state set, state
 *    rewards, per-choice rewards (.trew's per-transition rewards summed with
 *    their probabilities).
 *  - The .tra reader's fast decimal conversion: 20,000 probabilities in
 *    8 spellings read bit for bit as strtod reads them.
 *  - Reader errors beyond tests/bad/mdp: located file:line:col.
 *  - The .tra reader's parallel path: 800 random files (CRLF endings, a
 *    missing final newline, comments in the body, and 600 corrupted ones:
 *    a changed byte, a line deleted, duplicated or swapped) read with 1 and
 *    with 2..13 threads: the same arrays, or the same error (code, line,
 *    column, message); mdp_read of a 3.4 MB file (automatic thread count)
 *    = the sequential reader, and its error on a broken last line.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph/drn.h"
#include "graph/mdp.h"
#include "graph/mdp_lab.h"
#include "tests/check.h"
#include "tests/rng.h"

#include "tests/text.h"

#define MAXS 40

struct gen {
    struct mdp m;
    int dtmc;
    uint8_t lab[4][MAXS];
    double srew[MAXS];
    double crew[4 * MAXS];
};

static const char *lname[4] = {"init", "deadlock", "goal", "two words"};

static void generate(struct gen *g, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 3;
    memset(g, 0, sizeof *g);
    struct mdp *m = &g->m;
    uint64_t n = 1 + rnd_below(MAXS);
    g->dtmc = rnd_below(3) == 0;
    m->is_dtmc = g->dtmc;
    m->n_states = n;
    m->state_start = calloc(n + 1, sizeof *m->state_start);
    m->choice_start = calloc(4 * n + 1, sizeof *m->choice_start);
    m->targets = malloc(16 * n * sizeof *m->targets);
    m->probs = malloc(16 * n * sizeof *m->probs);
    for (uint64_t s = 0; s < n; s++) {
        unsigned k = g->dtmc ? (rnd_below(8) ? 1 : 0) : (unsigned)rnd_below(4);
        for (unsigned j = 0; j < k; j++) {
            uint64_t c = m->n_choices++;
            unsigned parts = 1 + (unsigned)rnd_below(4);
            uint32_t t0 = (uint32_t)rnd_below(n);
            for (unsigned q = 0; q < parts; q++) { /* distinct ascending targets */
                uint32_t t = (uint32_t)((t0 + q) % n);
                if (q && t <= m->targets[m->n_entries - 1])
                    break;
                m->targets[m->n_entries] = t;
                m->probs[m->n_entries++] = 1.0 / 4;
            }
            uint64_t cnt = m->n_entries - m->choice_start[c];
            /* make them sum to 1: the last takes the rest */
            m->probs[m->n_entries - 1] = 1 - (double)(cnt - 1) / 4;
            m->choice_start[c + 1] = m->n_entries;
            g->crew[c] = rnd_below(2) ? (double)rnd_below(7) / 2 : 0;
        }
        m->state_start[s + 1] = m->n_choices;
        g->srew[s] = rnd_below(2) ? (double)rnd_below(5) * 0.25 : 0;
        g->lab[0][s] = s == 0;
        g->lab[1][s] = k == 0;
        g->lab[2][s] = rnd_below(3) == 0;
        g->lab[3][s] = rnd_below(4) == 0;
    }
}

static void write_prism(const struct gen *g, struct text *tra, struct text *lab, struct text *srew,
                        struct text *trew)
{
    const struct mdp *m = &g->m;
    put(tra, "# Transitions\n");
    if (g->dtmc)
        put(tra, "%llu %llu\n", (unsigned long long)m->n_states, (unsigned long long)m->n_entries);
    else
        put(tra, "%llu %llu %llu\n", (unsigned long long)m->n_states,
            (unsigned long long)m->n_choices, (unsigned long long)m->n_entries);
    uint64_t nt = 0;
    for (uint64_t s = 0; s < m->n_states; s++)
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++) {
                if (g->dtmc)
                    put(tra, "%llu %u %.17g\n", (unsigned long long)s, m->targets[e], m->probs[e]);
                else
                    put(tra, "%llu %llu %u %.17g act\n", (unsigned long long)s,
                        (unsigned long long)(c - m->state_start[s]), m->targets[e], m->probs[e]);
                nt += g->crew[c] != 0;
            }
    put(lab, "# Labels\n");
    for (int l = 0; l < 4; l++)
        put(lab, "%s%d=\"%s\"", l ? " " : "", l, lname[l]);
    put(lab, "\n");
    for (uint64_t s = 0; s < m->n_states; s++) {
        int any = 0;
        for (int l = 0; l < 4; l++)
            any |= g->lab[l][s];
        if (!any)
            continue;
        put(lab, "%llu:", (unsigned long long)s);
        for (int l = 0; l < 4; l++)
            if (g->lab[l][s])
                put(lab, " %d", l);
        put(lab, "\n");
    }
    uint64_t ns = 0;
    for (uint64_t s = 0; s < m->n_states; s++)
        ns += g->srew[s] != 0;
    put(srew, "# Reward structure \"r\"\n# State rewards\n%llu %llu\n",
        (unsigned long long)m->n_states, (unsigned long long)ns);
    for (uint64_t s = 0; s < m->n_states; s++)
        if (g->srew[s] != 0)
            put(srew, "%llu %.17g\n", (unsigned long long)s, g->srew[s]);
    /* PRISM repeats a choice's reward on each of its transition lines */
    put(trew, "# Transition rewards\n");
    if (g->dtmc)
        put(trew, "%llu %llu\n", (unsigned long long)m->n_states, (unsigned long long)nt);
    else
        put(trew, "%llu %llu %llu\n", (unsigned long long)m->n_states,
            (unsigned long long)m->n_choices, (unsigned long long)nt);
    for (uint64_t s = 0; s < m->n_states; s++)
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++) {
                if (g->crew[c] == 0)
                    continue;
                if (g->dtmc)
                    put(trew, "%llu %u %.17g\n", (unsigned long long)s, m->targets[e], g->crew[c]);
                else
                    put(trew, "%llu %llu %u %.17g\n", (unsigned long long)s,
                        (unsigned long long)(c - m->state_start[s]), m->targets[e], g->crew[c]);
            }
}

static void write_drn(const struct gen *g, struct text *d)
{
    const struct mdp *m = &g->m;
    put(d, "// Exported by a test\n@type: %s\n@parameters\n\n@reward_models\nr other\n"
           "@nr_states\n%llu\n@nr_choices\n%llu\n@model\n",
        g->dtmc ? "DTMC" : "MDP", (unsigned long long)m->n_states,
        (unsigned long long)m->n_choices);
    for (uint64_t s = 0; s < m->n_states; s++) {
        put(d, "state %llu [%.17g, 99]", (unsigned long long)s, g->srew[s]);
        for (int l = 0; l < 4; l++)
            if (g->lab[l][s] && l != 3)
                put(d, l == 2 ? " \"%s\"" : " %s", lname[l]);
        if (g->lab[3][s])
            put(d, " two_words");
        put(d, "\n");
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            put(d, "\taction %llu [%.17g, 7]\n", (unsigned long long)(c - m->state_start[s]),
                g->crew[c]);
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
                put(d, "\t\t%u : %.17g\n", m->targets[e], m->probs[e]);
        }
        if (s % 7 == 3)
            put(d, "// a comment\n\n");
    }
}

static int same_mdp(const struct mdp *a, const struct mdp *b)
{
    if (a->n_states != b->n_states || a->n_choices != b->n_choices ||
        a->n_entries != b->n_entries || a->is_dtmc != b->is_dtmc)
        return 0;
    return !memcmp(a->state_start, b->state_start, (a->n_states + 1) * 8) &&
           !memcmp(a->choice_start, b->choice_start, (a->n_choices + 1) * 8) &&
           (!a->n_entries || (!memcmp(a->targets, b->targets, a->n_entries * 4) &&
                              !memcmp(a->probs, b->probs, a->n_entries * 8)));
}

static int same_labels(const struct gen *g, const struct mdp_labels *l, int drn)
{
    for (int k = 0; k < 4; k++) {
        const char *nm = drn && k == 3 ? "two_words" : lname[k];
        int id = mdp_labels_find(l, nm);
        int any = 0;
        for (uint64_t s = 0; s < g->m.n_states; s++)
            any |= g->lab[k][s];
        if (id < 0) {
            if (drn && !any) /* a .drn names only the labels it uses */
                continue;
            return 0;
        }
        for (uint64_t s = 0; s < g->m.n_states; s++)
            if (mdp_labels_has(l, id, s) != g->lab[k][s])
                return 0;
    }
    return 1;
}

static int same_rewards(const struct gen *g, const struct mdp_rewards *r)
{
    for (uint64_t s = 0; s < g->m.n_states; s++)
        if (r->state[s] != g->srew[s])
            return 0;
    for (uint64_t c = 0; c < g->m.n_choices; c++)
        if (fabs(r->choice[c] - g->crew[c]) > 1e-12)
            return 0;
    return 1;
}

static void random_round_trips(void)
{
    int bad = 0;
    for (uint64_t seed = 1; seed <= 200 && !bad; seed++) {
        struct gen g;
        generate(&g, seed);
        struct text tra = {0}, lab = {0}, srew = {0}, trew = {0}, drn = {0};
        write_prism(&g, &tra, &lab, &srew, &trew);
        write_drn(&g, &drn);
        struct wx_error err;
        struct mdp m1, m2;
        struct mdp_labels l1, l2;
        struct mdp_rewards r1 = {0}, r2;
        int rc = mdp_read_buffer(tra.s, tra.len, "t.tra", &m1, &err);
        if (rc == WX_OK)
            rc = mdp_labels_read_buffer(lab.s, lab.len, "t.lab", m1.n_states, &l1, &err);
        if (rc == WX_OK)
            rc = mdp_srew_read_buffer(srew.s, srew.len, "t.srew", &m1, &r1, &err);
        if (rc == WX_OK)
            rc = mdp_trew_read_buffer(trew.s, trew.len, "t.trew", &m1, &r1, &err);
        if (rc != WX_OK) {
            bad = !check(0, "seed %llu: PRISM files: %s:%d:%d: %s", (unsigned long long)seed,
                         err.file, err.line, err.col, err.msg);
        } else if (!same_mdp(&m1, &g.m) || !same_labels(&g, &l1, 0) || !same_rewards(&g, &r1)) {
            bad = !check(0, "seed %llu: PRISM files read back differently", (unsigned long long)seed);
        }
        rc = drn_read_buffer(drn.s, drn.len, "t.drn", &m2, &l2, &r2, &err);
        if (rc != WX_OK)
            bad = !check(0, "seed %llu: .drn: %s:%d:%d: %s", (unsigned long long)seed, err.file,
                         err.line, err.col, err.msg);
        else if (!same_mdp(&m2, &g.m) || !same_labels(&g, &l2, 1) || !same_rewards(&g, &r2))
            bad = !check(0, "seed %llu: .drn read back differently", (unsigned long long)seed);
        if (rc == WX_OK) {
            mdp_free(&m2);
            mdp_labels_free(&l2);
            mdp_rewards_free(&r2);
        }
        mdp_free(&m1);
        mdp_labels_free(&l1);
        mdp_rewards_free(&r1);
        mdp_free(&g.m);
        free(tra.s), free(lab.s), free(srew.s), free(trew.s), free(drn.s);
    }
    check(!bad, "200 random MDPs/DTMCs: .tra+.lab+.srew+.trew and .drn read back as generated");
}

static void drn_error(const char *name, const char *text, int line, int col, const char *msg)
{
    struct mdp m;
    struct mdp_labels l;
    struct mdp_rewards r;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = drn_read_buffer(text, strlen(text), "x.drn", &m, &l, &r, &err);
    check(rc == WX_EINPUT && err.line == line && err.col == col && strstr(err.msg, msg) &&
              m.n_states == 0 && l.n_labels == 0 && !r.state,
          "drn %s: x.drn:%d:%d: %s (found %d at %d:%d: %s)", name, line, col, msg, rc, err.line,
          err.col, err.msg);
}

/* The .tra reader's fast decimal path must give strtod's double, bit for
 * bit, on every spelling PRISM and others write. */
static void probabilities_exact(void)
{
    int bad = 0;
    rng_state = 12345;
    for (int i = 0; i < 20000 && !bad; i++) {
        double p = (double)(rnd() >> 11) / 9007199254740992.0;
        if (p <= 0)
            continue;
        char ps[64];
        switch (i % 8) {
        case 0: snprintf(ps, sizeof ps, "%.*g", 1 + (int)rnd_below(17), p); break;
        case 1: snprintf(ps, sizeof ps, "%.*e", (int)rnd_below(17), p); break;
        case 2: snprintf(ps, sizeof ps, "%.*E", (int)rnd_below(17), p * 1e-5); break;
        case 3: snprintf(ps, sizeof ps, "%.*f", 1 + (int)rnd_below(20), p); break;
        case 4: snprintf(ps, sizeof ps, "00%.*f", 1 + (int)rnd_below(12), p); break;
        case 5: snprintf(ps, sizeof ps, "%.*g", 1 + (int)rnd_below(17), p * 1e-9); break;
        case 6: snprintf(ps, sizeof ps, "%llue-%d", (unsigned long long)rnd_below(1000000), 6 + (int)rnd_below(20)); break;
        default: snprintf(ps, sizeof ps, "%.17g", p); break;
        }
        double want = strtod(ps, NULL);
        if (!(want > 0 && want < 1))
            continue;
        char text[256];
        snprintf(text, sizeof text, "2 2\n0 0 %s\n0 1 %.17g\n", ps, 1 - want);
        struct mdp m;
        struct wx_error err;
        if (mdp_read_buffer(text, strlen(text), "p.tra", &m, &err) != WX_OK) {
            bad = !check(0, "probability '%s': %s", ps, err.msg);
            continue;
        }
        if (memcmp(&m.probs[0], &want, sizeof want))
            bad = !check(0, "probability '%s': read %.17g, strtod %.17g", ps, m.probs[0], want);
        mdp_free(&m);
    }
    check(!bad, "20000 probabilities in 8 spellings read exactly as strtod reads them");
}

/* One text line [*ls, *le) of t (without its '\n'), k-th from 0; 0 if none. */
static int nth_line(const struct text *t, size_t k, size_t *ls, size_t *le)
{
    size_t a = 0;
    for (; k > 0; k--) {
        const char *nl = memchr(t->s + a, '\n', t->len - a);
        if (!nl)
            return 0;
        a = (size_t)(nl - t->s) + 1;
    }
    if (a >= t->len)
        return 0;
    const char *nl = memchr(t->s + a, '\n', t->len - a);
    *ls = a;
    *le = nl ? (size_t)(nl - t->s) : t->len;
    return 1;
}

/* A variant of the .tra text: 0 plain, 1 CRLF, 2 no final newline, 3 a
 * comment in the body, >= 4 corrupted (kind chosen by the rng). */
static void tra_variant(const struct text *in, int kind, struct text *out)
{
    out->len = 0;
    put(out, "%s", "");
    if (kind == 1) {
        for (size_t i = 0; i < in->len; i++)
            put(out, in->s[i] == '\n' ? "\r\n" : "%c", in->s[i]);
        return;
    }
    put(out, "%.*s", (int)in->len, in->s);
    if (kind == 2 && out->len && out->s[out->len - 1] == '\n')
        out->s[--out->len] = 0;
    if (kind < 3)
        return;
    size_t ls, le, ms, me;
    const size_t k = 2 + (size_t)rnd_below(20); /* a body line (line 0 is a comment, 1 the header) */
    if (!nth_line(out, k, &ls, &le))
        return;
    struct text t = {0};
    put(&t, "%.*s", (int)ls, out->s);
    if (kind == 3) {
        put(&t, "# a comment\n%s", out->s + ls);
    } else {
        switch (rnd_below(4)) {
        case 0: { /* one byte changed */
            static const char pool[] = "x9.\t#-e0 ";
            const size_t at = ls + (size_t)rnd_below(le - ls + 1);
            put(&t, "%.*s%c%s", (int)(at - ls), out->s + ls, pool[rnd_below(sizeof pool - 1)],
                at < out->len ? out->s + at + 1 : "");
            break;
        }
        case 1: /* line deleted */
            put(&t, "%s", le < out->len ? out->s + le + 1 : "");
            break;
        case 2: /* line duplicated */
            put(&t, "%.*s\n%s", (int)(le - ls), out->s + ls, out->s + ls);
            break;
        default: /* swapped with the next line */
            if (nth_line(out, k + 1, &ms, &me))
                put(&t, "%.*s\n%.*s%s", (int)(me - ms), out->s + ms, (int)(le - ls), out->s + ls,
                    out->s + me);
            else
                put(&t, "%s", out->s + ls);
            break;
        }
    }
    free(out->s);
    *out = t;
}

static void parallel_reader(void)
{
    int bad = 0, n_ok = 0, n_err = 0;
    struct text v = {0};
    for (uint64_t seed = 1; seed <= 800 && !bad; seed++) {
        struct gen g;
        generate(&g, seed);
        struct text tra = {0}, lab = {0}, srew = {0}, trew = {0};
        write_prism(&g, &tra, &lab, &srew, &trew);
        const int kind = seed % 4 == 0 ? (int)(seed / 4 % 4) : 4;
        tra_variant(&tra, kind, &v);
        struct wx_error e1, e2;
        struct mdp m1, m2;
        const int rc1 = mdp_read_buffer_threads(v.s, v.len, "p.tra", 1, &m1, &e1);
        n_ok += rc1 == WX_OK, n_err += rc1 != WX_OK;
        if (kind < 3 && rc1 != WX_OK)
            bad = !check(0, "seed %llu: variant %d does not read: %d:%d %s", (unsigned long long)seed, kind,
                         e1.line, e1.col, e1.msg);
        if (kind < 3 && rc1 == WX_OK && !same_mdp(&m1, &g.m))
            bad = !check(0, "seed %llu: variant %d reads differently", (unsigned long long)seed, kind);
        const int threads = 2 + (int)(seed % 12);
        const int rc2 = mdp_read_buffer_threads(v.s, v.len, "p.tra", threads, &m2, &e2);
        if (rc1 != rc2)
            bad = !check(0, "seed %llu, %d threads: status %d, sequential %d", (unsigned long long)seed,
                         threads, rc2, rc1);
        else if (rc1 == WX_OK && !same_mdp(&m1, &m2))
            bad = !check(0, "seed %llu, %d threads: other arrays than the sequential reader",
                         (unsigned long long)seed, threads);
        else if (rc1 != WX_OK && (e1.line != e2.line || e1.col != e2.col || strcmp(e1.msg, e2.msg)))
            bad = !check(0, "seed %llu, %d threads: error %d:%d %s, sequential %d:%d %s",
                         (unsigned long long)seed, threads, e2.line, e2.col, e2.msg, e1.line, e1.col, e1.msg);
        if (rc1 == WX_OK)
            mdp_free(&m1);
        if (rc2 == WX_OK)
            mdp_free(&m2);
        mdp_free(&g.m);
        free(tra.s), free(lab.s), free(srew.s), free(trew.s);
    }
    free(v.s);
    check(!bad && n_ok > 200 && n_err > 200,
          "parallel .tra reader = sequential on 800 files (%d read, %d errors)", n_ok, n_err);
}

/* mdp_read on a file of a few MiB (the automatic thread count and the
 * one-read() file path) against the sequential reader on the same bytes. */
static void big_file(void)
{
    struct text t = {0};
    const uint64_t n = 60000;
    put(&t, "# Transitions (MDP)\n%llu %llu %llu\n", (unsigned long long)n, (unsigned long long)(2 * n),
        (unsigned long long)(3 * n));
    rng_state = 99;
    for (uint64_t s = 0; s < n; s++) {
        put(&t, "%llu 0 %llu 0.25\n%llu 0 %llu 0.75 act\n", (unsigned long long)s, (unsigned long long)rnd_below(n),
            (unsigned long long)s, (unsigned long long)rnd_below(n));
        put(&t, "%llu 1 %llu 1\n", (unsigned long long)s, (unsigned long long)rnd_below(n));
    }
    char path[] = "/tmp/wx_big_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!check(f && fwrite(t.s, 1, t.len, f) == t.len && fclose(f) == 0, "big .tra written (%zu bytes)", t.len)) {
        free(t.s);
        return;
    }
    struct mdp a, b;
    struct wx_error e1, e2;
    int r1 = mdp_read(path, &a, &e1), r2 = mdp_read_buffer_threads(t.s, t.len, path, 1, &b, &e2);
    check(r1 == WX_OK && r2 == WX_OK && a.n_choices == 2 * n && same_mdp(&a, &b),
          "mdp_read of a %zu-byte file = the sequential reader (rc %d, %d)", t.len, r1, r2);
    if (r1 == WX_OK)
        mdp_free(&a);
    if (r2 == WX_OK)
        mdp_free(&b);
    /* the same file with the last line's probability broken: the error of the sequential reader */
    t.s[t.len - 2] = '7'; /* "... 1\n" -> "... 7\n" */
    FILE *g = fopen(path, "w");
    if (g && fwrite(t.s, 1, t.len, g) == t.len && fclose(g) == 0) {
        r1 = mdp_read(path, &a, &e1);
        check(r1 == WX_EINPUT && e1.line == (int)(3 * n + 2) && strstr(e1.msg, "probability 7 is not in (0, 1]"),
              "big file, bad last line: %d:%d %s", e1.line, e1.col, e1.msg);
    }
    remove(path);
    free(t.s);
}

int main(void)
{
    random_round_trips();
    parallel_reader();
    big_file();
    probabilities_exact();
    drn_error("parametric", "@type: MDP\n@parameters\np q\n@nr_states\n1\n@model\n", 3, 1,
              "a section");
    drn_error("no type", "@nr_states\n1\n@model\nstate 0\n", 3, 1, "@type and @nr_states");
    drn_error("reward count", "@type: MDP\n@reward_models\na b\n@nr_states\n1\n@model\nstate 0 [1]\n",
              7, 9, "1 rewards where @reward_models declares 2");
    drn_error("negative reward",
              "@type: MDP\n@reward_models\na\n@nr_states\n1\n@model\nstate 0 [-1]\n", 7, 10,
              "negative reward");
    drn_error("transition first", "@type: MDP\n@nr_states\n1\n@model\n0 : 1\n", 5, 1,
              "a transition needs an action");
    drn_error("missing colon", "@type: MDP\n@nr_states\n1\n@model\nstate 0\naction 0\n0 1\n", 7, 3,
              "':' between the target and the probability");
    drn_error("empty action", "@type: MDP\n@nr_states\n1\n@model\nstate 0\naction 0\n", 6, 1,
              "an action without transitions");
    drn_error("too few states", "@type: MDP\n@nr_states\n2\n@model\nstate 0\naction 0\n0 : 1\n", 3, 1,
              "@nr_states declares 2 states, the model lists 1");
    drn_error("choices", "@type: MDP\n@nr_states\n1\n@nr_choices\n2\n@model\nstate 0\naction 0\n0 : 1\n",
              5, 1, "@nr_choices declares 2 choices, the model has 1");
    drn_error("observation", "@type: MDP\n@nr_states\n1\n@model\nstate 0 {1}\n", 5, 9,
              "observations and exit rates");
    drn_error("unknown section", "@type: MDP\n@frob\n", 2, 1, "unknown section '@frob'");
    drn_error("probability", "@type: MDP\n@nr_states\n1\n@model\nstate 0\naction 0\n0 : 1.5\n", 7, 5,
              "probability 1.5 is not in (0, 1]");

    /* .lab details */
    struct mdp_labels l;
    struct wx_error err;
    const char *lab = "# c\n0=\"init\" 1=\"deadlock\" 2=\"a b\"\n\n# c\n3: 2\n";
    int rc = mdp_labels_read_buffer(lab, strlen(lab), "x.lab", 4, &l, &err);
    check(rc == WX_OK && l.n_labels == 3 && mdp_labels_find(&l, "a b") == 2 &&
              mdp_labels_has(&l, 2, 3) && !mdp_labels_has(&l, 0, 3),
          ".lab: comments, blank lines, a label name with a blank");
    mdp_labels_free(&l);
    lab = "0=\"init\" 1=\"init\"\n";
    rc = mdp_labels_read_buffer(lab, strlen(lab), "x.lab", 4, &l, &err);
    check(rc == WX_EINPUT && err.line == 1 && err.col == 13 && strstr(err.msg, "declared twice"),
          ".lab: a label declared twice: %d:%d %s", err.line, err.col, err.msg);
    rc = mdp_labels_read_buffer("", 0, "x.lab", 4, &l, &err);
    check(rc == WX_EINPUT && strstr(err.msg, "found the end of the file"), ".lab: empty file: %s",
          err.msg);
    return check_exit();
}
