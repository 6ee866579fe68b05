/*
 * mdp.c -- the MDP type and its PRISM .tra reader (format, invariants and
 * errors: mdp.h).
 *
 * The reader is one pass over the lines: it appends entries and opens a new
 * choice whenever (SRC, CHOICE) changes, checking the order as it goes, so
 * the CSR arrays come out directly with no sort.  Its line scanner is a small
 * one of its own: graph_read.c's (which reads .tra as a plain graph) is
 * static to that file.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdp.h"
#include "scan_int.h"
#include "../util/arith.h"

/* Clinger's fast path: a decimal with at most 15 significant digits (so
 * the digits form an integer < 2^53, exact in a double) and a decimal
 * exponent of magnitude <= 22 (10^k exact in a double) converts with one
 * correctly rounded multiplication or division, which is exactly what
 * strtod returns.  Anything else (more digits, other syntax) returns 0 and
 * is left to strtod.  Saves most of the reader's time on PRISM files. */
static int fast_decimal(const char *t, size_t len, double *out)
{
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *c = t, *end = t + len;
    uint64_t mant = 0;
    int digits = 0, frac = 0, seen_dot = 0, any = 0;
    for (; c < end; c++) {
        if (*c >= '0' && *c <= '9') {
            any = 1;
            if (mant == 0 && *c == '0') { /* leading zeros do not count */
                if (seen_dot)
                    frac++;
                continue;
            }
            if (++digits > 15)
                return 0;
            mant = mant * 10 + (uint64_t)(*c - '0');
            if (seen_dot)
                frac++;
        } else if (*c == '.' && !seen_dot) {
            seen_dot = 1;
        } else
            break;
    }
    if (!any)
        return 0;
    int exp10 = 0;
    if (c < end && (*c == 'e' || *c == 'E')) {
        c++;
        int neg = 0, ed = 0;
        if (c < end && (*c == '+' || *c == '-'))
            neg = *c++ == '-';
        for (; c < end && *c >= '0' && *c <= '9'; c++)
            if (++ed > 3)
                return 0;
            else
                exp10 = exp10 * 10 + (*c - '0');
        if (!ed)
            return 0;
        if (neg)
            exp10 = -exp10;
    }
    if (c != end)
        return 0;
    int k = exp10 - frac;
    if (k < -22 || k > 22)
        return 0;
    *out = k < 0 ? (double)mant / pow10[-k] : (double)mant * pow10[k];
    return 1;
}

/* A probability in (0, 1]. */
static int read_prob(struct scan *s, double *p)
{
    char num[64], *endp;
    const char *tok;
    if (scan_token(s, num, sizeof num, &tok, "a probability"))
        return WX_EINPUT;
    const size_t len = strlen(num);
    double x;
    if (!fast_decimal(tok, len, &x)) {
        errno = 0;
        x = strtod(num, &endp);
        if (*endp || (errno && errno != ERANGE) || isnan(x))
            return scan_fail_at(s, tok, WX_EINPUT, "a probability");
    }
    if (!(x > 0 && x <= 1))
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, tok),
                       "probability %s is not in (0, 1]", num);
    *p = x;
    return WX_OK;
}

/* ---- the reader ---- */

struct build {
    struct mdp *m;
    uint64_t cap_choices, cap_entries;
    /* the open choice */
    int open;
    uint64_t src, local;   /* its state and local number */
    double sum;
    uint64_t first_line;   /* its first line, for the sum error */
};

static int close_choice(struct scan *s, struct build *b)
{
    if (!b->open)
        return WX_OK;
    b->open = 0;
    if (fabs(b->sum - 1.0) > MDP_SUM_TOLERANCE)
        return wx_fail(s->err, WX_EINPUT, s->name,
                       b->first_line > INT32_MAX ? INT32_MAX : (int)b->first_line, 1,
                       "the probabilities of choice %llu of state %llu sum to %.17g, not 1",
                       (unsigned long long)b->local, (unsigned long long)b->src, b->sum);
    b->m->choice_start[b->m->n_choices] = b->m->n_entries;
    return WX_OK;
}

static int read_tra(struct scan *s, struct mdp *m)
{
    int rc;
    if (!scan_next_content_line(s, "#"))
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s) + 1, 1,
                       "expected the header 'STATES CHOICES TRANSITIONS' (MDP) or "
                       "'STATES TRANSITIONS' (DTMC), found the end of the file");
    uint64_t hdr[3], nh = 0;
    const char *states_at = s->c;
    uint64_t hdr_line = s->line;
    while (!scan_at_eol(s)) {
        if (nh == 3)
            return scan_fail_at(s, s->c, WX_EINPUT, "the end of the header line (2 or 3 numbers)");
        if ((rc = scan_read_u64(s, &hdr[nh], "a number (header 'STATES [CHOICES] TRANSITIONS')")) != WX_OK)
            return rc;
        nh++;
    }
    if (nh < 2)
        return scan_fail_at(s, s->c, WX_EINPUT,
                       "another number (header 'STATES [CHOICES] TRANSITIONS')");
    m->is_dtmc = nh == 2;
    uint64_t n = hdr[0], n_trans = hdr[nh - 1];
    if (n > UINT32_MAX)
        return wx_fail(s->err, WX_ELIMIT, s->name, scan_line(s), scan_col(s, states_at),
                       "%llu states: MDPs have at most 2^32 - 1 states", (unsigned long long)n);
    m->n_states = n;
    m->state_start = calloc((size_t)n + 1, sizeof *m->state_start);
    if (!m->state_start)
        return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0, "out of memory (%llu states)",
                       (unsigned long long)n);

    struct build b = {.m = m};
    uint64_t next_state = 0; /* state_start[0 .. next_state] are set */
    uint64_t seen = 0;
    /* each line takes at least 6 bytes: reserving more than that from the
     * header would trust a number the file may not back */
    uint64_t reserve = n_trans < (uint64_t)(s->end - s->p) / 6 + 1 ? n_trans
                                                                 : (uint64_t)(s->end - s->p) / 6 + 1;
    if (wx_reserve((void **)&m->targets, &b.cap_entries, reserve, sizeof *m->targets, 1024) ||
        !(m->probs = malloc((size_t)b.cap_entries * sizeof *m->probs)))
        return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0, "out of memory");
    uint64_t cap_probs = b.cap_entries;

    while (scan_next_content_line(s, "#")) {
        if (seen == n_trans)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, s->c),
                           "more transition lines than the %llu the header declares",
                           (unsigned long long)n_trans);
        uint64_t src, local = 0, dst;
        double p = 0;
        const char *src_at = s->c, *ch_at = NULL, *dst_at;
        if ((rc = scan_read_u64(s, &src, "a source state")) != WX_OK)
            return rc;
        if (src >= n)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, src_at),
                           "state %llu out of range: the header declares %llu states",
                           (unsigned long long)src, (unsigned long long)n);
        if (!m->is_dtmc) {
            scan_skip_blanks(s);
            ch_at = s->c;
            if ((rc = scan_read_u64(s, &local, "a choice index")) != WX_OK)
                return rc;
        }
        scan_skip_blanks(s);
        dst_at = s->c;
        if ((rc = scan_read_u64(s, &dst, "a target state")) != WX_OK)
            return rc;
        if (dst >= n)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, dst_at),
                           "state %llu out of range: the header declares %llu states",
                           (unsigned long long)dst, (unsigned long long)n);
        if ((rc = read_prob(s, &p)) != WX_OK)
            return rc;
        if (!scan_at_eol(s)) { /* the action: one token */
            while (s->c < s->le && *s->c != ' ' && *s->c != '\t')
                s->c++;
            if (!scan_at_eol(s))
                return scan_fail_at(s, s->c, WX_EINPUT, "the end of the line after the action");
        }

        /* where this line belongs: the open choice, the next one of the same
         * state, or the first one of a later state */
        int new_choice;
        if (!b.open || src > b.src) {
            if (local != 0)
                return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, ch_at),
                               "choice %llu is the first of state %llu: choices are numbered "
                               "0, 1, ... per state",
                               (unsigned long long)local, (unsigned long long)src);
            new_choice = 1;
        } else if (src < b.src) {
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, src_at),
                           "state %llu after state %llu: lines must be sorted by state",
                           (unsigned long long)src, (unsigned long long)b.src);
        } else if (local == b.local) {
            new_choice = 0;
        } else if (local == b.local + 1) {
            new_choice = 1;
        } else {
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, ch_at),
                           "choice %llu of state %llu after choice %llu: choices must be "
                           "numbered 0, 1, ... with each choice's lines together",
                           (unsigned long long)local, (unsigned long long)src,
                           (unsigned long long)b.local);
        }
        if (new_choice) {
            if ((rc = close_choice(s, &b)) != WX_OK)
                return rc;
            for (; next_state < src; next_state++)
                m->state_start[next_state + 1] = m->n_choices;
            if (wx_reserve((void **)&m->choice_start, &b.cap_choices, m->n_choices + 2,
                      sizeof *m->choice_start, 1024))
                return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0, "out of memory");
            m->choice_start[m->n_choices] = m->n_entries;
            m->n_choices++;
            b.open = 1;
            b.src = src;
            b.local = local;
            b.sum = 0;
            b.first_line = s->line;
        }
        if (wx_reserve((void **)&m->targets, &b.cap_entries, m->n_entries + 1, sizeof *m->targets, 1024) ||
            wx_reserve((void **)&m->probs, &cap_probs, b.cap_entries, sizeof *m->probs, 1024))
            return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0, "out of memory");
        m->targets[m->n_entries] = (uint32_t)dst;
        m->probs[m->n_entries] = p;
        m->n_entries++;
        b.sum += p;
        seen++;
    }
    if ((rc = close_choice(s, &b)) != WX_OK)
        return rc;
    if (!m->choice_start) { /* no lines at all: choice_start[0] == 0 */
        m->choice_start = calloc(1, sizeof *m->choice_start);
        if (!m->choice_start)
            return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0, "out of memory");
    }
    for (; next_state < n; next_state++)
        m->state_start[next_state + 1] = m->n_choices;
    int hl = hdr_line > INT32_MAX ? INT32_MAX : (int)hdr_line;
    if (seen < n_trans)
        return wx_fail(s->err, WX_EINPUT, s->name, hl, 0,
                       "the header declares %llu transition lines, the file has %llu",
                       (unsigned long long)n_trans, (unsigned long long)seen);
    if (!m->is_dtmc && m->n_choices != hdr[1])
        return wx_fail(s->err, WX_EINPUT, s->name, hl, 0,
                       "the header declares %llu choices, the transition lines give %llu",
                       (unsigned long long)hdr[1], (unsigned long long)m->n_choices);
    return WX_OK;
}

int mdp_read_buffer(const char *data, size_t len, const char *name, struct mdp *out,
                    struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    struct scan s = {.name = name, .p = data, .end = data + len, .err = err};
    int rc = read_tra(&s, out);
    if (rc != WX_OK)
        mdp_free(out);
    return rc;
}

int mdp_read(const char *path, struct mdp *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t n;
    int rc = scan_slurp(path, &buf, &n, err);
    if (rc != WX_OK)
        return rc;
    rc = mdp_read_buffer(buf, n, path, out, err);
    free(buf);
    return rc;
}

void mdp_free(struct mdp *m)
{
    free(m->state_start);
    free(m->choice_start);
    free(m->targets);
    free(m->probs);
    memset(m, 0, sizeof *m);
}

uint32_t mdp_choice_state(const struct mdp *m, uint64_t c)
{
    /* the last s with state_start[s] <= c: states without choices share
     * their start with the next state, and the search skips past them */
    uint64_t lo = 0, hi = m->n_states; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (m->state_start[mid] <= c)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}
