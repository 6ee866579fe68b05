/*
 * test_mec.c -- graph/mdp (.tra reader) and analysis/mec (MEC refinement).
 *
 *  - 400 random MDPs of 1..8 states, written as .tra text (random actions,
 *    comments, states without choices), read back with mdp_read_buffer and
 *    compared with the generated arrays, then decomposed by mec_cpu and
 *    compared with a brute force straight from the definition: every subset
 *    S of states is tested for being an end component (each state of S has a
 *    choice with all successors in S, and S is strongly connected under those
 *    choices); the MECs are the inclusion-maximal ones.  MEC ids (canonical),
 *    the per-choice membership and all counts must be equal.
 *  - 30 random MDPs of 300 states (too large for the brute force): each
 *    reported MEC must be an end component under its kept choices, every
 *    state outside MECs must be outside, and no kept choice may leave.
 *  - Reader errors: each malformed .tra gives WX_EINPUT at the right
 *    file:line:col; DTMC headers; states without choices.
 *  - The PRISM exports in tests/data/mdp:
 *    MEC count, states in MECs, largest MEC and choices inside MECs against
 *    each reference.json.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mec.h"
#include "graph/mdp.h"
#include "tests/check.h"
#include "tests/rng.h"
#include "tests/prism_ref.h"

/* xorshift64*: deterministic per seed. */

/* ---- random MDPs as .tra text ---- */

#include "tests/text.h"

/* Generates an MDP of n states into *m (arrays malloc'ed, as mdp_free frees)
 * and its .tra text into *t.  self_bias: percent of choices that are pure
 * self-loops; spread: targets are drawn from a window of this many states
 * around the source (small windows make bigger MECs likelier). */
static void gen_mdp(uint64_t n, unsigned self_bias, uint64_t spread, struct mdp *m, struct text *t)
{
    memset(m, 0, sizeof *m);
    m->n_states = n;
    m->state_start = calloc(n + 1, sizeof *m->state_start);
    uint64_t cap_c = 4 * n + 1, cap_e = 12 * n + 1;
    m->choice_start = calloc(cap_c + 1, sizeof *m->choice_start);
    m->targets = malloc(cap_e * sizeof *m->targets);
    m->probs = malloc(cap_e * sizeof *m->probs);
    for (uint64_t s = 0; s < n; s++) {
        unsigned k = rnd_below(20) == 0 ? 0 : 1 + (unsigned)rnd_below(3);
        for (unsigned j = 0; j < k; j++) {
            uint64_t c = m->n_choices++;
            m->choice_start[c] = m->n_entries;
            if (rnd_below(100) < self_bias) {
                m->targets[m->n_entries] = (uint32_t)s;
                m->probs[m->n_entries++] = 1;
                continue;
            }
            unsigned nt = 1 + (unsigned)rnd_below(3), w[3], wsum = 0;
            uint32_t tg[3];
            unsigned got = 0;
            for (unsigned i = 0; i < nt; i++) {
                uint64_t lo = s >= spread / 2 ? s - spread / 2 : 0;
                uint32_t x = (uint32_t)((lo + rnd_below(spread)) % n);
                int dup = 0;
                for (unsigned q = 0; q < got; q++)
                    dup |= tg[q] == x;
                if (!dup) {
                    tg[got] = x;
                    w[got] = 1 + (unsigned)rnd_below(4);
                    wsum += w[got++];
                }
            }
            for (unsigned i = 0; i < got; i++) {
                m->targets[m->n_entries] = tg[i];
                m->probs[m->n_entries++] = (double)w[i] / wsum;
            }
        }
        m->state_start[s + 1] = m->n_choices;
    }
    m->choice_start[m->n_choices] = m->n_entries;

    t->len = 0;
    put(t, "# Transitions (MDP)\n%llu %llu %llu\n", (unsigned long long)n,
        (unsigned long long)m->n_choices, (unsigned long long)m->n_entries);
    for (uint64_t s = 0; s < n; s++)
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            int act = (int)rnd_below(3);
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++) {
                put(t, "%llu %llu %u %.17g", (unsigned long long)s,
                    (unsigned long long)(c - m->state_start[s]), m->targets[e], m->probs[e]);
                put(t, act == 0 ? "\n" : act == 1 ? " go\n" : " a%u\n", (unsigned)c);
            }
            if (rnd_below(10) == 0)
                put(t, "# a comment\n");
        }
}

static int same_mdp(const struct mdp *a, const struct mdp *b)
{
    if (a->n_states != b->n_states || a->n_choices != b->n_choices || a->n_entries != b->n_entries)
        return 0;
    return !memcmp(a->state_start, b->state_start, (a->n_states + 1) * sizeof *a->state_start) &&
           !memcmp(a->choice_start, b->choice_start,
                   (a->n_choices + 1) * sizeof *a->choice_start) &&
           (!a->n_entries ||
            (!memcmp(a->targets, b->targets, a->n_entries * sizeof *a->targets) &&
             !memcmp(a->probs, b->probs, a->n_entries * sizeof *a->probs)));
}

/* ---- brute force from the definition (n <= 8) ---- */

/* Bit mask of the successors of choice c. */
static unsigned succ_mask(const struct mdp *m, uint64_t c)
{
    unsigned x = 0;
    for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
        x |= 1u << m->targets[e];
    return x;
}

static int is_end_component(const struct mdp *m, unsigned S)
{
    unsigned n = (unsigned)m->n_states, adj[8] = {0};
    for (unsigned s = 0; s < n; s++) {
        if (!(S >> s & 1))
            continue;
        int any = 0;
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            unsigned x = succ_mask(m, c);
            if ((x & ~S) == 0)
                adj[s] |= x, any = 1;
        }
        if (!any)
            return 0;
    }
    for (unsigned s = 0; s < n; s++) { /* every state of S reaches all of S */
        if (!(S >> s & 1))
            continue;
        unsigned reach = 1u << s, prev = 0;
        while (reach != prev) {
            prev = reach;
            for (unsigned u = 0; u < n; u++)
                if (reach >> u & 1)
                    reach |= adj[u];
        }
        if ((reach & S) != S)
            return 0;
    }
    return 1;
}

/* Fills mec[] (canonical ids or MEC_NONE) and choice_in[]; returns the
 * number of MECs, or -1 when two maximal end components overlap (which the
 * theory rules out: the test would be wrong). */
static int brute_mecs(const struct mdp *m, uint32_t *mec, uint8_t *choice_in)
{
    unsigned n = (unsigned)m->n_states, full = (1u << n) - 1;
    static uint8_t ec[256];
    for (unsigned S = 1; S <= full; S++)
        ec[S] = (uint8_t)is_end_component(m, S);
    unsigned maxi[256], nmax = 0;
    for (unsigned S = 1; S <= full; S++) {
        if (!ec[S])
            continue;
        int maximal = 1;
        for (unsigned T = 1; T <= full && maximal; T++)
            if (ec[T] && T != S && (S & ~T) == 0)
                maximal = 0;
        if (maximal)
            maxi[nmax++] = S;
    }
    for (unsigned s = 0; s < n; s++)
        mec[s] = MEC_NONE;
    uint32_t next = 0;
    for (unsigned s = 0; s < n; s++) {
        if (mec[s] != MEC_NONE)
            continue;
        for (unsigned i = 0; i < nmax; i++)
            if (maxi[i] >> s & 1) {
                for (unsigned u = 0; u < n; u++)
                    if (maxi[i] >> u & 1) {
                        if (mec[u] != MEC_NONE)
                            return -1;
                        mec[u] = next;
                    }
                next++;
            }
    }
    for (unsigned s = 0; s < n; s++)
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            choice_in[c] = 0;
            if (mec[s] == MEC_NONE)
                continue;
            unsigned x = succ_mask(m, c), ok = 1;
            for (unsigned u = 0; u < n; u++)
                if (x >> u & 1)
                    ok &= mec[u] == mec[s];
            choice_in[c] = (uint8_t)ok;
        }
    return (int)next;
}

static void test_random_small(void)
{
    struct text t = {0};
    int all_ok = 1, nonempty = 0, multi = 0;
    const int count = 400;
    for (int i = 0; i < count && all_ok; i++) {
        uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
        rng_state = seed;
        uint64_t n = 1 + rnd_below(8);
        struct mdp g, m;
        gen_mdp(n, (unsigned)rnd_below(40), 2 + rnd_below(n + 2), &g, &t);
        struct wx_error err;
        wx_error_clear(&err);
        int rc = mdp_read_buffer(t.s, t.len, "random.tra", &m, &err);
        if (rc != WX_OK || !same_mdp(&g, &m)) {
            all_ok = check(0, "random MDP %d, seed %#llx: read back: %s", i,
                           (unsigned long long)seed, rc ? err.msg : "different MDP");
            if (rc == WX_OK)
                mdp_free(&m);
            mdp_free(&g);
            break;
        }
        struct mec_result r;
        rc = mec_cpu(&m, &r, &err);
        uint32_t want[8];
        uint8_t want_in[32];
        int nm = brute_mecs(&m, want, want_in);
        uint64_t in = 0, cin = 0, largest = 0;
        for (unsigned s = 0; s < n; s++)
            if (want[s] != MEC_NONE) {
                in++;
                uint64_t size = 0;
                for (unsigned u = 0; u < n; u++)
                    size += want[u] == want[s];
                if (size > largest)
                    largest = size;
            }
        for (uint64_t c = 0; c < m.n_choices; c++)
            cin += want_in[c];
        int ok = rc == WX_OK && nm >= 0 && r.n_mecs == (uint64_t)nm &&
                 !memcmp(r.mec, want, n * sizeof *want) && r.states_in_mecs == in &&
                 r.choices_in_mecs == cin && r.largest == largest &&
                 (m.n_choices == 0 || !memcmp(r.choice_in, want_in, m.n_choices));
        if (!ok) {
            char found[128] = "", expect[128] = "";
            for (unsigned s = 0; s < n; s++) {
                snprintf(found + strlen(found), sizeof found - strlen(found), " %d",
                         rc == WX_OK ? (int)r.mec[s] : -9);
                snprintf(expect + strlen(expect), sizeof expect - strlen(expect), " %d",
                         (int)want[s]);
            }
            all_ok = check(0, "random MDP %d (n=%llu), seed %#llx: MEC ids expected%s, found%s "
                              "(MECs %d vs %llu, choices in %llu vs %llu); .tra:\n%s",
                           i, (unsigned long long)n, (unsigned long long)seed, expect, found, nm,
                           (unsigned long long)r.n_mecs, (unsigned long long)cin,
                           (unsigned long long)r.choices_in_mecs, t.s);
        }
        nonempty += nm > 0;
        multi += largest > 1;
        mec_result_free(&r);
        mdp_free(&m);
        mdp_free(&g);
    }
    free(t.s);
    if (all_ok)
        check(1, "%d random MDPs (1..8 states) read back exactly and match the brute-force MECs "
                 "(%d with MECs, %d with a MEC of 2+ states)",
              count, nonempty, multi);
    check(nonempty > count / 3 && multi > count / 10,
          "random MDPs are not degenerate: %d with MECs, %d with a MEC of 2+ states", nonempty,
          multi);
}

/* ---- larger random MDPs: the defining properties ---- */

static void test_random_large(void)
{
    struct text t = {0};
    int all_ok = 1;
    for (int i = 0; i < 30 && all_ok; i++) {
        uint64_t seed = 0xabcdef12345ull + (uint64_t)i * 7919;
        rng_state = seed;
        struct mdp m;
        gen_mdp(300, 5 + (unsigned)rnd_below(20), 3 + rnd_below(12), &m, &t);
        struct mec_result r;
        struct wx_error err;
        wx_error_clear(&err);
        int rc = mec_cpu(&m, &r, &err);
        const char *why = rc ? err.msg : NULL;
        uint64_t n = m.n_states;
        for (uint64_t s = 0; s < n && !why; s++) {
            uint64_t kept = 0;
            for (uint64_t c = m.state_start[s]; c < m.state_start[s + 1] && !why; c++) {
                int inside = r.mec[s] != MEC_NONE;
                for (uint64_t e = m.choice_start[c]; e < m.choice_start[c + 1]; e++)
                    inside &= r.mec[m.targets[e]] == r.mec[s];
                if (r.choice_in[c] != inside)
                    why = "a choice's membership disagrees with its successors";
                kept += r.choice_in[c];
            }
            if (!why && (r.mec[s] != MEC_NONE) != (kept > 0))
                why = "a MEC state without a kept choice (or a kept choice outside MECs)";
        }
        /* strong connectivity of each MEC under kept choices: forward and
         * backward search from its smallest state covers it */
        uint8_t *seen = calloc(n, 1);
        uint32_t *stack = malloc(n * sizeof *stack);
        for (uint64_t root = 0; root < n && !why; root++) {
            if (r.mec[root] == MEC_NONE)
                continue;
            int is_first = 1;
            for (uint64_t u = 0; u < root; u++)
                is_first &= r.mec[u] != r.mec[root];
            if (!is_first)
                continue;
            for (int dir = 0; dir < 2 && !why; dir++) {
                memset(seen, 0, n);
                uint64_t sp = 0;
                stack[sp++] = (uint32_t)root;
                seen[root] = 1;
                while (sp) {
                    uint32_t u = stack[--sp];
                    for (uint64_t v = 0; v < n; v++) { /* edges u->v (dir 0) or v->u (dir 1) */
                        uint32_t a = dir ? (uint32_t)v : u, b = dir ? u : (uint32_t)v;
                        if (seen[v] || r.mec[v] != r.mec[root])
                            continue;
                        int edge = 0;
                        for (uint64_t c = m.state_start[a]; c < m.state_start[a + 1] && !edge; c++)
                            if (r.choice_in[c])
                                for (uint64_t e = m.choice_start[c]; e < m.choice_start[c + 1]; e++)
                                    edge |= m.targets[e] == b;
                        if (edge)
                            seen[v] = 1, stack[sp++] = (uint32_t)v;
                    }
                }
                for (uint64_t v = 0; v < n; v++)
                    if (r.mec[v] == r.mec[root] && !seen[v])
                        why = "a MEC is not strongly connected under its kept choices";
            }
        }
        free(seen);
        free(stack);
        if (why)
            all_ok = check(0, "random MDP of 300 states, seed %#llx: %s", (unsigned long long)seed,
                           why);
        mec_result_free(&r);
        mdp_free(&m);
    }
    free(t.s);
    if (all_ok)
        check(1, "30 random MDPs of 300 states: every MEC is a closed, strongly connected end "
                 "component under exactly its kept choices");
}

/* ---- reader ---- */

static void expect_error(const char *name, const char *text, int code, int line, int col,
                         const char *msg_part)
{
    struct mdp m;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = mdp_read_buffer(text, strlen(text), "t.tra", &m, &err);
    check(rc == code && err.line == line && err.col == col && strstr(err.msg, msg_part) &&
              m.state_start == NULL,
          "tra error %s: expected code %d at %d:%d with '%s', found code %d at %d:%d: %s", name,
          code, line, col, msg_part, rc, err.line, err.col, err.msg);
    if (rc == WX_OK)
        mdp_free(&m);
}

static void test_reader(void)
{
    expect_error("empty", "", WX_EINPUT, 1, 1, "found the end of the file");
    expect_error("only comments", "# x\n", WX_EINPUT, 2, 1, "found the end of the file");
    expect_error("one header number", "3\n", WX_EINPUT, 1, 2, "another number");
    expect_error("four header numbers", "1 1 1 1\n0 0 0 1\n", WX_EINPUT, 1, 7, "end of the header");
    expect_error("word in header", "2 x 1\n", WX_EINPUT, 1, 3, "found 'x'");
    expect_error("state count > 2^32-1", "4294967296 1 1\n", WX_ELIMIT, 1, 1, "at most 2^32 - 1");
    expect_error("src out of range", "2 1 1\n2 0 0 1\n", WX_EINPUT, 2, 1, "state 2 out of range");
    expect_error("dst out of range", "2 1 1\n0 0 7 1\n", WX_EINPUT, 2, 5, "state 7 out of range");
    expect_error("zero probability", "2 1 2\n0 0 0 1\n0 0 1 0\n", WX_EINPUT, 3, 7, "not in (0, 1]");
    expect_error("probability > 1", "1 1 1\n0 0 0 1.5\n", WX_EINPUT, 2, 7, "not in (0, 1]");
    expect_error("negative probability", "1 1 1\n0 0 0 -0.5\n", WX_EINPUT, 2, 7, "not in (0, 1]");
    expect_error("nan probability", "1 1 1\n0 0 0 nan\n", WX_EINPUT, 2, 7, "a probability");
    expect_error("missing probability", "1 1 1\n0 0 0\n", WX_EINPUT, 2, 6, "a probability");
    expect_error("word probability", "1 1 1\n0 0 0 half\n", WX_EINPUT, 2, 7, "'half'");
    expect_error("sum below 1", "2 2 3\n0 0 0 0.5\n0 0 1 0.4\n1 0 1 1\n", WX_EINPUT, 2, 1,
                 "choice 0 of state 0 sum to 0.9");
    expect_error("sum of the last choice", "2 2 3\n0 0 0 1\n1 0 1 0.5\n1 0 0 0.6\n", WX_EINPUT, 3,
                 1, "choice 0 of state 1 sum to 1.1");
    expect_error("sum 1 + 2e-9", "1 1 2\n0 0 0 0.5\n0 0 0 0.500000002\n", WX_EINPUT, 2, 1, "sum");
    expect_error("states out of order", "2 2 2\n1 0 1 1\n0 0 0 1\n", WX_EINPUT, 3, 1,
                 "state 0 after state 1");
    expect_error("first choice not 0", "2 2 2\n0 1 1 1\n1 0 0 1\n", WX_EINPUT, 2, 3,
                 "choice 1 is the first of state 0");
    expect_error("choice skipped", "1 2 2\n0 0 0 1\n0 2 0 1\n", WX_EINPUT, 3, 3,
                 "choice 2 of state 0 after choice 0");
    expect_error("choice revisited", "1 2 3\n0 0 0 1\n0 1 0 1\n0 0 0 1\n", WX_EINPUT, 4, 3,
                 "choice 0 of state 0 after choice 1");
    expect_error("too few lines", "# c\n2 2 3\n0 0 0 1\n1 0 1 1\n", WX_EINPUT, 2, 5,
                 "declares 3 transition lines, the file has 2");
    expect_error("too many lines", "2 2 1\n0 0 0 1\n1 0 1 1\n", WX_EINPUT, 3, 1,
                 "more transition lines than the 1");
    expect_error("choice count", "2 3 2\n0 0 0 1\n1 0 1 1\n", WX_EINPUT, 1, 3,
                 "declares 3 choices, the transition lines give 2");
    expect_error("two actions", "1 1 1\n0 0 0 1 a b\n", WX_EINPUT, 2, 11, "after the action");
    expect_error("junk after a number", "1 1 1\n0x 0 0 1\n", WX_EINPUT, 2, 2, "a blank");
    expect_error("DTMC sum", "2 2\n0 1 0.5\n1 1 1\n", WX_EINPUT, 2, 1, "sum to 0.5");
    expect_error("DTMC order", "2 2\n1 1 1\n0 0 1\n", WX_EINPUT, 3, 1, "state 0 after state 1");

    /* good inputs: CRLF, comments between lines, blanks, exponent, a state
     * without choices, a DTMC */
    const char *good = "# Transitions (MDP)\r\n3 3 4\r\n0 0 1 0.5 a\r\n# mid\r\n"
                       "0 0 0 5e-1 a\r\n0 1 0 1\r\n\t2  0 2  1 \r\n";
    struct mdp m;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = mdp_read_buffer(good, strlen(good), "good.tra", &m, &err);
    int ok = rc == WX_OK && m.n_states == 3 && m.n_choices == 3 && m.n_entries == 4 &&
             !m.is_dtmc && m.state_start[1] == 2 && m.state_start[2] == 2 &&
             m.state_start[3] == 3 && m.choice_start[1] == 2 && m.targets[1] == 0 &&
             m.probs[1] == 0.5 && mdp_choice_state(&m, 1) == 0 && mdp_choice_state(&m, 2) == 2;
    check(ok, "good .tra (CRLF, comments, exponent, a state without choices): %s",
          rc ? err.msg : "layout as expected");
    if (rc == WX_OK) {
        struct mec_result r;
        rc = mec_cpu(&m, &r, &err);
        /* {0} via choice 1 (self-loop); state 1 has no choice; {2} self-loop */
        check(rc == WX_OK && r.n_mecs == 2 && r.mec[0] == 0 && r.mec[1] == MEC_NONE &&
                  r.mec[2] == 1 && r.choices_in_mecs == 2 && r.choice_in[0] == 0,
              "MECs of the small .tra: {0} by its self-loop choice, {2}; state 1 in none");
        mec_result_free(&r);
        mdp_free(&m);
    }
    const char *dtmc = "3 4\n0 1 0.25\n0 2 0.75\n1 1 1\n2 1 1\n";
    rc = mdp_read_buffer(dtmc, strlen(dtmc), "d.tra", &m, &err);
    ok = rc == WX_OK && m.is_dtmc && m.n_states == 3 && m.n_choices == 3 && m.n_entries == 4;
    if (ok) {
        struct mec_result r;
        rc = mec_cpu(&m, &r, &err);
        ok = rc == WX_OK && r.n_mecs == 1 && r.mec[1] == 0 && r.mec[0] == MEC_NONE &&
             r.mec[2] == MEC_NONE && r.rounds >= 1;
        mec_result_free(&r);
    }
    check(ok, "DTMC .tra: one choice per state; the only MEC is the BSCC {1}%s%s",
          rc ? ": " : "", rc ? err.msg : "");
    if (m.state_start)
        mdp_free(&m);
    /* the attractor of a state without choices is removed before the first
     * SCC round: 2 has none, 1's only choice may reach 2, 0's only choice
     * goes to 1.  So one round finds nothing (without the attractor step the
     * result is the same but takes 3 rounds). */
    const char *attr = "3 2 3\n0 0 1 1\n1 0 0 0.5\n1 0 2 0.5\n";
    rc = mdp_read_buffer(attr, strlen(attr), "a.tra", &m, &err);
    ok = rc == WX_OK;
    if (ok) {
        struct mec_result r;
        rc = mec_cpu(&m, &r, &err);
        ok = rc == WX_OK && r.n_mecs == 0 && r.rounds == 1;
        check(ok, "attractor of a choiceless state removed up front: no MEC, 1 round (found %llu "
                  "MECs, %llu rounds)",
              (unsigned long long)r.n_mecs, (unsigned long long)r.rounds);
        mec_result_free(&r);
        mdp_free(&m);
    } else
        check(0, "attractor example read: %s", err.msg);
    const char *empty = "0 0 0\n";
    rc = mdp_read_buffer(empty, strlen(empty), "e.tra", &m, &err);
    struct mec_result r;
    ok = rc == WX_OK && mec_cpu(&m, &r, &err) == WX_OK && r.n_mecs == 0 && r.mec == NULL;
    check(ok, "empty MDP: read and no MECs");
    mec_result_free(&r);
    mdp_free(&m);
    wx_error_clear(&err);
    rc = mdp_read("/nonexistent/x.tra", &m, &err);
    check(rc == WX_EINPUT && strstr(err.msg, "cannot open"), "missing file: WX_EINPUT, %s",
          err.msg);
}

/* ---- PRISM reference.json ---- */

/* The value of "key": NUMBER inside the object that follows "obj": { in json
 * (brace-matched); -1 when absent. */
static void prism_mec(const char *name, const char *tra, const char *json)
{
    struct mdp m;
    struct wx_error err;
    wx_error_clear(&err);
    int rc = mdp_read(tra, &m, &err);
    if (!check(rc == WX_OK, "mec prism %s: .tra read%s%s", name, rc ? ": " : "", rc ? err.msg : ""))
        return;
    long long states = prism_json_get(json, NULL, "states"),
              choices = prism_json_get(json, NULL, "choices"),
              trans = prism_json_get(json, NULL, "transitions");
    struct mec_result r;
    rc = mec_cpu(&m, &r, &err);
    long long count = prism_json_get(json, "mecs", "count"),
              covered = prism_json_get(json, "mecs", "states_covered"),
              largest = prism_json_get(json, "mecs", "largest"),
              cin = prism_json_get(json, "mecs", "choices_inside_mecs");
    int ok = rc == WX_OK && (long long)m.n_states == states && (long long)m.n_choices == choices &&
             (long long)m.n_entries == trans && (long long)r.n_mecs == count &&
             (long long)r.states_in_mecs == covered && (long long)r.largest == largest &&
             (long long)r.choices_in_mecs == cin;
    check(ok,
          "mec prism %s: states/choices/transitions/MECs/in MECs/largest/choices in MECs "
          "expected %lld/%lld/%lld/%lld/%lld/%lld/%lld, found %llu/%llu/%llu/%llu/%llu/%llu/%llu",
          name, states, choices, trans, count, covered, largest, cin,
          (unsigned long long)m.n_states, (unsigned long long)m.n_choices,
          (unsigned long long)m.n_entries, (unsigned long long)r.n_mecs,
          (unsigned long long)r.states_in_mecs, (unsigned long long)r.largest,
          (unsigned long long)r.choices_in_mecs);
    if (rc == WX_OK)
        mec_result_free(&r);
    mdp_free(&m);
}

static void test_prism(void)
{
    prism_for_each("mec prism", prism_mec);
}

int main(void)
{
    test_reader();
    test_random_small();
    test_random_large();
    test_prism();
    return check_exit();
}
