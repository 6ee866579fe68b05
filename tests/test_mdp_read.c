/*
 * test_mdp_read.c -- the PRISM .tra reader's thread count does not show
 * (graph/mdp.h): mdp_read_buffer_threads with 1 thread and with 2..64.
 *
 *  - Identical MDPs: 16 random MDPs and DTMCs of 2,000 to 20,000 lines
 *    (PRISM's plain shape, with and without actions, LF and CRLF, a final
 *    line with and without '\n'), read with 1, 2, 3, 4, 7, 16 and 64
 *    threads: the same arrays, byte for byte.
 *  - Located errors wherever the bad line falls: for each of 12 kinds of
 *    malformed line (probabilities not summing to 1 -- located at the
 *    choice's first line --, a negative or a > 1 probability, a choice out
 *    of order, a state out of order, a state out of range, a letter in a
 *    number, a missing field, text after the action, a line too many, a
 *    line too few, a NUL byte), put on the first body line and the last
 *    one (read with 64 threads), and on the lines just before, at and after
 *    each chunk boundary of 2, 5 and 16 threads (read with that many): status,
 *    line, column and message are those of the sequential reader, and line
 *    and column are the independently known place of the corruption.
 *  - The mapped-file path (graph/scan_int.h's scan_map): mdp_read and
 *    mdp_labels_read of files = the buffer readers; an empty file, a
 *    missing one.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph/mdp.h"
#include "graph/mdp_lab.h"
#include "tests/check.h"
#include "tests/rng.h"
#include "tests/text.h"

static const int thread_counts[] = {2, 3, 4, 7, 16, 64};
#define N_TC (int)(sizeof thread_counts / sizeof thread_counts[0])

static int same_mdp(const struct mdp *a, const struct mdp *b)
{
    return a->n_states == b->n_states && a->n_choices == b->n_choices && a->n_entries == b->n_entries &&
           a->is_dtmc == b->is_dtmc &&
           !memcmp(a->state_start, b->state_start, (a->n_states + 1) * sizeof *a->state_start) &&
           !memcmp(a->choice_start, b->choice_start, (a->n_choices + 1) * sizeof *a->choice_start) &&
           (!a->n_entries || (!memcmp(a->targets, b->targets, a->n_entries * sizeof *a->targets) &&
                              !memcmp(a->probs, b->probs, a->n_entries * sizeof *a->probs)));
}

/* A random model in PRISM's shape; line_start[k] = offset of body line k
 * (k = 0 is the header), n_lines body lines + 1. */
struct model {
    struct text t;
    uint64_t *line_start;
    uint64_t n_lines; /* lines including the header */
    int dtmc, crlf;
};

static const char *const probs3[] = {"0.25", "0.5", "0.25"};

/* dtmc: 0 or 1, or -1 for a random choice */
static void gen_model(struct model *md, uint64_t seed, uint64_t want_lines, int dtmc)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 11;
    memset(md, 0, sizeof *md);
    md->dtmc = rnd_below(3) == 0;
    if (dtmc >= 0)
        md->dtmc = dtmc;
    md->crlf = rnd_below(4) == 0;
    const int actions = rnd_below(2);
    const uint64_t n = want_lines / 3 + 1;
    /* first pass: the lines into a scratch text, counting */
    struct text body = {0};
    uint64_t lines = 0, choices = 0;
    const char *eol = md->crlf ? "\r\n" : "\n";
    for (uint64_t s = 0; s < n; s++) {
        const int nc = md->dtmc ? 1 : 1 + (int)rnd_below(3);
        for (int c = 0; c < nc; c++, choices++) {
            const int ne = 1 + (int)rnd_below(3);
            for (int e = 0; e < ne; e++, lines++) {
                const char *p = ne == 1 ? "1" : ne == 2 ? "0.5" : probs3[e];
                if (md->dtmc)
                    put(&body, "%llu %llu %s", (unsigned long long)s, (unsigned long long)rnd_below(n), p);
                else
                    put(&body, "%llu %d %llu %s", (unsigned long long)s, c, (unsigned long long)rnd_below(n), p);
                if (actions && rnd_below(2))
                    put(&body, " a%d", c);
                put(&body, "%s", eol);
            }
        }
    }
    if (md->dtmc)
        put(&md->t, "%llu %llu%s", (unsigned long long)n, (unsigned long long)lines, eol);
    else
        put(&md->t, "%llu %llu %llu%s", (unsigned long long)n, (unsigned long long)choices,
            (unsigned long long)lines, eol);
    put(&md->t, "%s", body.s);
    free(body.s);
    if (rnd_below(3) == 0) { /* no final line end */
        md->t.len -= md->crlf ? 2 : 1;
        md->t.s[md->t.len] = 0;
    }
    md->n_lines = lines + 1;
    md->line_start = malloc((md->n_lines + 1) * sizeof *md->line_start);
    uint64_t k = 0;
    md->line_start[k++] = 0;
    for (size_t i = 0; i < md->t.len; i++)
        if (md->t.s[i] == '\n' && k < md->n_lines)
            md->line_start[k++] = i + 1;
    md->line_start[md->n_lines] = md->t.len;
}

static void free_model(struct model *md)
{
    free(md->t.s);
    free(md->line_start);
}

static void identical_mdps(void)
{
    int bad = 0, n = 0;
    for (uint64_t seed = 1; seed <= 16 && !bad; seed++) {
        struct model md;
        gen_model(&md, seed, 2000 + rnd_below(18000), -1);
        struct mdp m1, m2;
        struct wx_error e1, e2;
        int rc1 = mdp_read_buffer_threads(md.t.s, md.t.len, "r.tra", 1, &m1, &e1);
        if (rc1 != WX_OK) {
            check(0, "seed %llu: the generated model reads (%d:%d %s)", (unsigned long long)seed, e1.line, e1.col,
                  e1.msg);
            free_model(&md);
            bad = 1;
            break;
        }
        for (int i = 0; i < N_TC && !bad; i++) {
            int rc2 = mdp_read_buffer_threads(md.t.s, md.t.len, "r.tra", thread_counts[i], &m2, &e2);
            if (rc2 != WX_OK || !same_mdp(&m1, &m2))
                bad = !check(0, "seed %llu, %d threads: rc %d (%s), or other arrays than with 1 thread",
                             (unsigned long long)seed, thread_counts[i], rc2, rc2 ? e2.msg : "");
            if (rc2 == WX_OK)
                mdp_free(&m2);
            n++;
        }
        mdp_free(&m1);
        free_model(&md);
    }
    check(!bad, "1 thread = 2..64 threads on 16 random models (%d multi-thread reads)", n);
}

/* The kinds of corruption: each rewrites body line k (1-based file line
 * k + 1) and says where the error must be (file line, column). */
enum {
    K_SUM, K_NEG, K_BIG, K_CHOICE, K_STATE, K_RANGE, K_LETTER, K_MISSING, K_AFTER, K_EXTRA, K_FEWER,
    K_NUL, K_KINDS
};
static const char *const kind_name[K_KINDS] = {
    "sum != 1", "negative probability", "probability > 1", "choice out of order", "state out of order",
    "state out of range", "letter in a number", "missing field", "text after the action",
    "a line too many", "a line too few", "NUL byte"};

/* Fields of a body line: offsets of up to 5 tokens. */
static int fields(const char *ls, const char *le, const char **f, int max)
{
    int nf = 0;
    const char *c = ls;
    while (c < le && nf < max) {
        while (c < le && (*c == ' ' || *c == '\t' || *c == '\r'))
            c++;
        if (c >= le)
            break;
        f[nf++] = c;
        while (c < le && *c != ' ' && *c != '\t' && *c != '\r')
            c++;
    }
    return nf;
}

/* Builds the corrupted text into out; *line and *col: where the error must
 * be reported (col 0: not checked beyond the sequential reader's). Returns
 * 0 when this kind does not apply to this line. */
static int corrupt(const struct model *md, uint64_t k, int kind, struct text *out, int *line, int *col)
{
    const char *s = md->t.s;
    const uint64_t ls = md->line_start[k], le0 = md->line_start[k + 1];
    uint64_t le = le0;
    while (le > ls && (s[le - 1] == '\n' || s[le - 1] == '\r'))
        le--;
    const char *f[6];
    const int nf = fields(s + ls, s + le, f, 6);
    const int pf = md->dtmc ? 2 : 3; /* the probability's field */
    if (nf < pf + 1)
        return 0;
    free(out->s);
    memset(out, 0, sizeof *out);
    *line = (int)k + 1;
    *col = 0;
    const uint64_t src = strtoull(f[0], NULL, 10);
    /* the text up to `at`, then `repl`, then the text from `from` */
    uint64_t at = 0, from = 0;
    char repl[64] = "";
    switch (kind) {
    case K_SUM: { /* this line's probability changed a little: its choice sums wrong */
        at = (uint64_t)(f[pf] - s), from = at;
        while (from < le && s[from] != ' ' && s[from] != '\t' && s[from] != '\r')
            from++;
        snprintf(repl, sizeof repl, "%s", !strncmp(f[pf], "0.25", 4) ? "0.2500001" : "0.5000001");
        if (!strncmp(f[pf], "1", 1) && f[pf][1] != '.')
            snprintf(repl, sizeof repl, "0.9999");
        /* the error is located at the choice's first line: back over the
         * lines of the same (SRC, CHOICE) */
        uint64_t j = k;
        while (j > 1) {
            const char *g[6];
            const uint64_t pls = md->line_start[j - 1];
            int ng = fields(s + pls, s + md->line_start[j], g, 6);
            if (ng < 2 || strtoull(g[0], NULL, 10) != src ||
                (!md->dtmc && strtoull(g[1], NULL, 10) != strtoull(f[1], NULL, 10)))
                break;
            j--;
        }
        *line = (int)j + 1;
        *col = 1;
        break;
    }
    case K_NEG:
    case K_BIG:
        at = (uint64_t)(f[pf] - s), from = at;
        while (from < le && s[from] != ' ' && s[from] != '\t' && s[from] != '\r')
            from++;
        snprintf(repl, sizeof repl, "%s", kind == K_NEG ? "-0.5" : "1.5");
        *col = (int)(at - ls) + 1;
        break;
    case K_CHOICE: /* CHOICE + 2: never the next choice's number */
        if (md->dtmc)
            return 0;
        at = (uint64_t)(f[1] - s), from = at;
        while (s[from] >= '0' && s[from] <= '9')
            from++;
        snprintf(repl, sizeof repl, "%llu", strtoull(f[1], NULL, 10) + 2);
        *col = (int)(at - ls) + 1;
        break;
    case K_STATE: /* SRC - 1 after the lines of SRC (k > 1 and a line of SRC before) */
        if (src == 0 || k < 2)
            return 0;
        {
            const char *g[6];
            fields(s + md->line_start[k - 1], s + md->line_start[k], g, 6);
            if (strtoull(g[0], NULL, 10) != src)
                return 0;
        }
        at = ls, from = (uint64_t)(f[0] - s);
        while (s[from] >= '0' && s[from] <= '9')
            from++;
        snprintf(repl, sizeof repl, "%llu", (unsigned long long)src - 1);
        *col = 1;
        break;
    case K_RANGE: /* DST = n */
        at = (uint64_t)(f[pf - 1] - s), from = at;
        while (s[from] >= '0' && s[from] <= '9')
            from++;
        snprintf(repl, sizeof repl, "%llu", strtoull(s, NULL, 10));
        *col = (int)(at - ls) + 1;
        break;
    case K_LETTER: /* DST's last digit -> 'x' */
        at = (uint64_t)(f[pf - 1] - s);
        while (s[at + 1] >= '0' && s[at + 1] <= '9')
            at++;
        from = at + 1;
        snprintf(repl, sizeof repl, "x");
        *col = (int)(at - ls) + 1; /* "expected a blank ... after a number, found 'x'" */
        break;
    case K_MISSING: /* the line cut after DST */
        at = (uint64_t)(f[pf] - s) - 1, from = le;
        *col = (int)(at - ls) + 1;
        break;
    case K_AFTER: /* " act extra" after the probability */
        at = from = (uint64_t)(f[pf] - s);
        while (from < le && s[from] != ' ' && s[from] != '\t' && s[from] != '\r')
            from++;
        at = from = le;
        snprintf(repl, sizeof repl, "%s", nf > pf + 1 ? " extra" : " act extra");
        *col = (int)(le - ls) + (nf > pf + 1 ? 2 : 6);
        break;
    case K_EXTRA: /* the line duplicated: the last line twice -- one too many */
        if (k != md->n_lines - 1)
            return 0;
        at = from = md->line_start[k + 1];
        put(out, "%.*s", (int)at, s);
        if (s[at - 1] != '\n')
            put(out, "%s", md->crlf ? "\r\n" : "\n");
        put(out, "%.*s", (int)(le - ls), s + ls);
        *line = (int)k + 2;
        *col = 1;
        return 1;
    case K_FEWER: /* the line deleted: the header's count is off (or a sum) */
        at = ls, from = le0;
        *line = 0; /* the sequential reader's word */
        break;
    case K_NUL:
        at = (uint64_t)(f[0] - s), from = at + 1;
        put(out, "%.*s", (int)at, s);
        out->s[out->len++] = 0; /* put() cannot write a NUL */
        put(out, "%.*s", (int)(md->t.len - from), s + from);
        *col = (int)(at - ls) + 1;
        return 1;
    }
    put(out, "%.*s%s%.*s", (int)at, s, repl, (int)(md->t.len - from), s + from);
    return 1;
}

/* Body lines to corrupt, each with the thread count to read it with: the
 * first and the last line (64 threads), and the lines just before, at and
 * after every chunk boundary of T = 2, 5 and 16 threads (the cut is at
 * len * j / T, moved to the next line start). */
static const int boundary_threads[] = {2, 5, 16};

static int pick_lines(const struct model *md, uint64_t *out, int *threads, int max)
{
    int n = 0;
    threads[n] = 64, out[n++] = 1;
    threads[n] = 64, out[n++] = md->n_lines - 1;
    for (int i = 0; i < 3; i++) {
        const int T = boundary_threads[i];
        const uint64_t body = md->line_start[1];
        for (int j = 1; j < T && n + 3 <= max; j++) {
            const uint64_t cut = body + (md->t.len - body) * (uint64_t)j / (uint64_t)T;
            uint64_t lo = 1, hi = md->n_lines - 1; /* the line holding `cut` */
            while (lo < hi) {
                uint64_t mid = (lo + hi + 1) / 2;
                if (md->line_start[mid] <= cut)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            for (uint64_t d = 0; d < 3; d++)
                if (lo + d >= 2 && lo + d - 1 <= md->n_lines - 1)
                    threads[n] = T, out[n++] = lo + d - 1;
        }
    }
    return n;
}

static void located_errors(void)
{
    int bad = 0, n_cases = 0, n_loc = 0;
    uint64_t lines[128];
    int threads[128];
    struct text v = {0};
    for (uint64_t seed = 100; seed < 102 && !bad; seed++) {
        struct model md;
        gen_model(&md, seed, 1500, (int)(seed % 2)); /* one MDP, one DTMC */
        const int nl = pick_lines(&md, lines, threads, 128);
        for (int kind = 0; kind < K_KINDS && !bad; kind++) {
            for (int li = 0; li < nl && !bad; li++) {
                int line, col;
                if (!corrupt(&md, lines[li], kind, &v, &line, &col))
                    continue;
                struct mdp m1, m2;
                struct wx_error e1, e2;
                const int rc1 = mdp_read_buffer_threads(v.s, v.len, "b.tra", 1, &m1, &e1);
                if (rc1 == WX_OK) {
                    mdp_free(&m1);
                    bad = !check(0, "seed %llu, %s on line %d: read without error", (unsigned long long)seed,
                                 kind_name[kind], line);
                    break;
                }
                if (line && (e1.line != line || (col && e1.col != col))) {
                    bad = !check(0, "seed %llu, %s on line %d col %d: reported at %d:%d (%s)",
                                 (unsigned long long)seed, kind_name[kind], line, col, e1.line, e1.col, e1.msg);
                    break;
                }
                n_loc += line != 0;
                const int T = threads[li];
                const int rc2 = mdp_read_buffer_threads(v.s, v.len, "b.tra", T, &m2, &e2);
                if (rc2 == WX_OK)
                    mdp_free(&m2);
                if (rc2 != rc1 || e2.line != e1.line || e2.col != e1.col || strcmp(e2.msg, e1.msg) ||
                    strcmp(e2.file, e1.file))
                    bad = !check(0, "seed %llu, %s on line %d, %d threads: %d %s:%d:%d %s, 1 thread: %d %d:%d %s",
                                 (unsigned long long)seed, kind_name[kind], line, T, rc2, e2.file, e2.line, e2.col,
                                 e2.msg, rc1, e1.line, e1.col, e1.msg);
                n_cases++;
            }
        }
        free_model(&md);
    }
    free(v.s);
    check(!bad && n_loc > 500, "malformed lines in every chunk: the same located error with 1..64 threads "
                               "(%d multi-thread reads, %d locations checked against the corruption)",
          n_cases, n_loc);
}

static int write_file(const char *path, const char *s, size_t len)
{
    FILE *f = fopen(path, "wb");
    return f && fwrite(s, 1, len, f) == len && fclose(f) == 0;
}

static void mapped_files(void)
{
    struct model md;
    gen_model(&md, 7, 30000, 0);
    char dir[] = "/tmp/wx_mdpread_XXXXXX";
    if (!check(mkdtemp(dir) != NULL, "temporary directory")) {
        free_model(&md);
        return;
    }
    char tra[64], lab[64], empty[64], missing[64];
    snprintf(tra, sizeof tra, "%s/m.tra", dir);
    snprintf(lab, sizeof lab, "%s/m.lab", dir);
    snprintf(empty, sizeof empty, "%s/e.tra", dir);
    snprintf(missing, sizeof missing, "%s/none.tra", dir);
    struct text lt = {0};
    const uint64_t n = strtoull(md.t.s, NULL, 10);
    put(&lt, "0=\"init\" 1=\"deadlock\" 2=\"goal\"\n0: 0\n");
    for (uint64_t s = 1; s < n; s += 7)
        put(&lt, "%llu: 2 1\n", (unsigned long long)s);
    lt.s[--lt.len] = 0; /* no final '\n' */
    if (!check(write_file(tra, md.t.s, md.t.len) && write_file(lab, lt.s, lt.len) && write_file(empty, "", 0),
               "files written")) {
        free_model(&md);
        free(lt.s);
        return;
    }
    struct mdp a, b;
    struct wx_error e1, e2;
    int r1 = mdp_read(tra, &a, &e1), r2 = mdp_read_buffer_threads(md.t.s, md.t.len, tra, 1, &b, &e2);
    check(r1 == WX_OK && r2 == WX_OK && same_mdp(&a, &b), "mdp_read of a mapped file = the buffer reader");
    struct mdp_labels la, lb;
    int r3 = r1 == WX_OK ? mdp_labels_read(lab, a.n_states, &la, &e1) : -1;
    int r4 = r1 == WX_OK ? mdp_labels_read_buffer(lt.s, lt.len, lab, a.n_states, &lb, &e2) : -1;
    check(r3 == WX_OK && r4 == WX_OK && la.n_labels == 3 && lb.n_labels == 3 &&
              !memcmp(la.bits, lb.bits, 3 * la.words * sizeof *la.bits),
          "mdp_labels_read of a mapped file = the buffer reader (%d %d)", r3, r4);
    if (r3 == WX_OK)
        mdp_labels_free(&la);
    if (r4 == WX_OK)
        mdp_labels_free(&lb);
    if (r1 == WX_OK)
        mdp_free(&a);
    if (r2 == WX_OK)
        mdp_free(&b);
    r1 = mdp_read(empty, &a, &e1);
    check(r1 == WX_EINPUT && e1.line == 1 && strstr(e1.msg, "end of the file"),
          "an empty file: located 'end of the file' error (%d %d:%d %s)", r1, e1.line, e1.col, e1.msg);
    r1 = mdp_read(missing, &a, &e1);
    check(r1 == WX_EINPUT && strstr(e1.msg, "cannot open"), "a missing file: WX_EINPUT, cannot open (%d %s)", r1,
          e1.msg);
    unlink(tra), unlink(lab), unlink(empty);
    rmdir(dir);
    free(lt.s);
    free_model(&md);
}

int main(void)
{
    identical_mdps();
    located_errors();
    mapped_files();
    return check_exit();
}
