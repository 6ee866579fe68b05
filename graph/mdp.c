/*
 * mdp.c -- the MDP type and its PRISM .tra reader (format, invariants and
 * errors: mdp.h).
 *
 * The reader is one pass over the lines: it appends entries and opens a new
 * choice whenever (SRC, CHOICE) changes, checking the order as it goes, so
 * the CSR arrays come out directly with no sort.  Its line scanner is a small
 * one of its own: graph_read.c's (which reads .tra as a plain graph) is
 * static to that file.  Big buffers take the parallel fast path at the end
 * of this file first (same result, same errors).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mdp.h"
#include "scan_int.h"
#include "../util/arith.h"
#include "../util/pool.h"
#include "../util/input.h"

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
    const char *states_at = s->c, *hdr_at[3];
    uint64_t hdr_line = s->line;
    while (!scan_at_eol(s)) {
        if (nh == 3)
            return scan_fail_at(s, s->c, WX_EINPUT, "the end of the header line (2 or 3 numbers)");
        hdr_at[nh] = s->c;
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
    /* validation before allocation: state_start is sized by STATES */
    const int trans_col = scan_col(s, hdr_at[nh - 1]), choices_col = scan_col(s, hdr_at[1]);
    /* (the entry arrays grow as lines arrive, reserved up front only as far
     * as the bytes go: a lying TRANSITIONS count costs nothing) */
    if ((rc = scan_check_id(s, states_at, n, "the number of states")) != WX_OK)
        return rc;
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
        return wx_fail(s->err, WX_EINPUT, s->name, hl, trans_col,
                       "the header declares %llu transition lines, the file has %llu",
                       (unsigned long long)n_trans, (unsigned long long)seen);
    if (!m->is_dtmc && m->n_choices != hdr[1])
        return wx_fail(s->err, WX_EINPUT, s->name, hl, choices_col,
                       "the header declares %llu choices, the transition lines give %llu",
                       (unsigned long long)hdr[1], (unsigned long long)m->n_choices);
    return WX_OK;
}

/* ======================================================================
 * The parallel fast path
 *
 * A big file is read by T threads: the text after the header is cut into T
 * chunks at line boundaries; pass 1 counts each chunk's lines (so every
 * line has its global index before anything is parsed); pass 2 parses the
 * lines of each chunk straight into the result arrays (plus each line's
 * SRC and CHOICE in scratch arrays); pass 3 checks the order rules between
 * consecutive lines and counts the choices each chunk opens; pass 4 writes
 * the CSR offsets; pass 5 checks each choice's probability sum (summed in
 * line order, as the sequential reader does, so the same files pass).
 * The fast path accepts only the plain shape PRISM writes (every line after
 * the header a transition line: no comments, blank lines or blanks before
 * the first field).  Anything else -- including every error -- makes it
 * give up and the sequential reader above reads the buffer again, so the
 * result and every error message are exactly the sequential reader's.
 * ====================================================================== */

#define PAR_MIN_BYTES (1u << 20) /* below this one thread is as fast */
#define PAR_MAX_THREADS 64
#define PAR_GIVE_UP 1000          /* internal status: read sequentially */

struct par {
    const char *body, *end;       /* the text after the header line */
    uint64_t n, n_trans;          /* header */
    int dtmc;
    int nt;
    const char *cut[PAR_MAX_THREADS + 1]; /* chunk k = [cut[k], cut[k+1]) */
    uint64_t line0[PAR_MAX_THREADS + 1];  /* global index of chunk k's first line */
    uint64_t choice0[PAR_MAX_THREADS + 1];/* choices opened before chunk k */
    int bad[PAR_MAX_THREADS];
    uint32_t *src, *local;        /* per line (scratch) */
    struct mdp *m;
    struct wx_pool *pool;         /* the read's threads (util/pool.h) */
    int pass;                     /* the pass par_run is running */
};

static inline const char *par_blanks(const char *c, const char *e)
{
    while (c < e && (*c == ' ' || *c == '\t'))
        c++;
    return c;
}

/* A decimal field ending at a blank; NULL when the shape differs. */
static inline const char *par_u64(const char *c, const char *e, uint64_t *v)
{
    uint64_t x = 0;
    const char *s = c;
    while (c < e && *c >= '0' && *c <= '9')
        x = x * 10 + (uint64_t)(*c++ - '0');
    if (c == s || c - s > 19 || c >= e || (*c != ' ' && *c != '\t'))
        return NULL;
    *v = x;
    return par_blanks(c, e);
}

static inline int par_is_end(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* The rest of a line after its last field: blanks, '\r's, then '\n' or the
 * end of the text; returns the start of the next line or NULL. */
static inline const char *par_eol(const char *c, const char *e)
{
    c = par_blanks(c, e);
    while (c < e && *c == '\r')
        c++;
    if (c == e)
        return c;
    return *c == '\n' ? c + 1 : NULL;
}

static void par_pass(struct par *p, int k, int pass)
{
    const char *c = p->cut[k], *e = p->cut[k + 1];
    struct mdp *m = p->m;
    if (pass == 1) { /* lines of the chunk */
        uint64_t nl = 0;
        for (const char *q = c; q < e && (q = memchr(q, '\n', (size_t)(e - q))) != NULL; q++)
            nl++;
        if (e > c && e[-1] != '\n')
            nl++; /* the last line of the text without '\n' */
        p->line0[k + 1] = nl;
        return;
    }
    if (pass == 2) { /* parse */
        uint64_t i = p->line0[k];
        const uint64_t i1 = p->line0[k + 1];
        for (; c < e; i++) {
            uint64_t src, local = 0, dst;
            if (i >= i1 || !(c = par_u64(c, e, &src)) || src >= p->n)
                goto bad;
            if (!p->dtmc && (!(c = par_u64(c, e, &local)) || local > UINT32_MAX))
                goto bad;
            if (!(c = par_u64(c, e, &dst)) || dst >= p->n)
                goto bad;
            const char *tok = c;
            while (c < e && !par_is_end(*c))
                c++;
            double x;
            if (c - tok >= 64 || !fast_decimal(tok, (size_t)(c - tok), &x) || !(x > 0 && x <= 1))
                goto bad;
            c = par_blanks(c, e);
            if (c < e && !par_is_end(*c)) /* the action: one token */
                while (c < e && !par_is_end(*c))
                    c++;
            if (!(c = par_eol(c, e)))
                goto bad;
            p->src[i] = (uint32_t)src;
            p->local[i] = (uint32_t)local;
            m->targets[i] = (uint32_t)dst;
            m->probs[i] = x;
        }
        if (i != i1)
            goto bad;
        return;
    }
    /* passes 3 and 4 over the chunk's lines i, with the line before i */
    const uint64_t i0 = p->line0[k], i1 = p->line0[k + 1];
    uint64_t c_next = p->choice0[k]; /* pass 4: number of the next choice opened */
    uint64_t opened = 0;
    for (uint64_t i = i0; i < i1; i++) {
        const uint32_t s = p->src[i], l = p->local[i];
        int new_choice, new_state;
        if (i == 0) {
            if (l != 0)
                goto bad;
            new_choice = new_state = 1;
        } else {
            const uint32_t ps = p->src[i - 1], pl = p->local[i - 1];
            if (s > ps) {
                if (l != 0)
                    goto bad;
                new_choice = new_state = 1;
            } else if (s < ps) {
                goto bad;
            } else if (l == pl) {
                new_choice = new_state = 0;
            } else if (l == pl + 1) {
                new_choice = 1, new_state = 0;
            } else
                goto bad;
        }
        if (pass == 3) {
            opened += (uint64_t)new_choice;
            continue;
        }
        if (new_choice) {
            if (new_state) /* states (previous SRC, s] start at this choice */
                for (uint64_t t = i == 0 ? 1 : (uint64_t)p->src[i - 1] + 1; t <= s; t++)
                    m->state_start[t] = c_next;
            m->choice_start[c_next++] = i;
        }
    }
    if (pass == 3)
        p->choice0[k + 1] = opened;
    return;
bad:
    p->bad[k] = 1;
}

/* pass 5: the probability sums of chunk k's share of the choices */
static void par_sums(struct par *p, int k)
{
    const struct mdp *m = p->m;
    const uint64_t c0 = m->n_choices * (uint64_t)k / (uint64_t)p->nt;
    const uint64_t c1 = m->n_choices * (uint64_t)(k + 1) / (uint64_t)p->nt;
    for (uint64_t c = c0; c < c1; c++) {
        double sum = 0;
        for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
            sum += m->probs[e];
        if (fabs(sum - 1.0) > MDP_SUM_TOLERANCE) {
            p->bad[k] = 1;
            return;
        }
    }
}

/* Member `member` of the pool runs chunks member, member + size, ... */
static void par_member(void *arg, int member, int size)
{
    struct par *p = arg;
    for (int k = member; k < p->nt; k += size) {
        if (p->pass == 5)
            par_sums(p, k);
        else
            par_pass(p, k, p->pass);
    }
}

/* Runs pass `pass` on every chunk (chunk 0 on the calling thread; a smaller
 * pool, where threads could not start, runs several chunks per member);
 * nonzero when a chunk gave up. */
static int par_run(struct par *p, int pass)
{
    int fail = 0;
    for (int k = 0; k < p->nt; k++)
        p->bad[k] = 0;
    p->pass = pass;
    wx_pool_run(p->pool, par_member, p);
    for (int k = 0; k < p->nt; k++)
        fail |= p->bad[k];
    return fail;
}

/* The fast path: WX_OK with *m filled, or PAR_GIVE_UP (m partly filled:
 * the caller frees it). */
static int read_tra_parallel(const char *data, size_t len, struct mdp *m, int threads)
{
    struct wx_error scratch;
    struct scan s = {.name = "", .p = data, .end = data + len, .err = &scratch};
    if (!scan_next_content_line(&s, "#"))
        return PAR_GIVE_UP;
    uint64_t hdr[3], nh = 0;
    while (!scan_at_eol(&s)) {
        if (nh == 3 || scan_read_u64(&s, &hdr[nh], "") != WX_OK)
            return PAR_GIVE_UP;
        nh++;
    }
    if (nh < 2 || hdr[0] > UINT32_MAX || hdr[nh - 1] > (uint64_t)(s.end - s.p) ||
        hdr[0] > wx_id_limit(len))
        return PAR_GIVE_UP; /* implausible counts: the sequential reader says why */
    struct par *p = calloc(1, sizeof *p);
    if (!p)
        return PAR_GIVE_UP;
    int rc = PAR_GIVE_UP;
    p->m = m;
    p->body = s.p, p->end = s.end;
    p->n = hdr[0], p->n_trans = hdr[nh - 1], p->dtmc = nh == 2;
    p->nt = threads;
    p->pool = wx_pool_new(threads); /* NULL (out of memory): all on this thread */
    p->cut[0] = p->body;
    for (int k = 1; k < p->nt; k++) { /* cuts just after a '\n' */
        const char *c = p->body + (size_t)((uint64_t)(p->end - p->body) * (uint64_t)k / (uint64_t)p->nt);
        if (c < p->cut[k - 1])
            c = p->cut[k - 1];
        if (c > p->body && c[-1] != '\n') {
            const char *nl = memchr(c, '\n', (size_t)(p->end - c));
            c = nl ? nl + 1 : p->end;
        }
        p->cut[k] = c;
    }
    p->cut[p->nt] = p->end;
    par_run(p, 1);
    p->line0[0] = 0;
    for (int k = 0; k < p->nt; k++)
        p->line0[k + 1] += p->line0[k];
    const uint64_t ne = p->line0[p->nt];
    if (ne != p->n_trans)
        goto out;
    m->is_dtmc = p->dtmc;
    m->n_states = p->n;
    m->n_entries = ne;
    m->targets = malloc((size_t)(ne ? ne : 1) * sizeof *m->targets);
    m->probs = malloc((size_t)(ne ? ne : 1) * sizeof *m->probs);
    p->src = malloc((size_t)(ne ? ne : 1) * sizeof *p->src);
    p->local = malloc((size_t)(ne ? ne : 1) * sizeof *p->local);
    m->state_start = calloc((size_t)p->n + 1, sizeof *m->state_start);
    if (!m->targets || !m->probs || !p->src || !p->local || !m->state_start)
        goto out;
    if (par_run(p, 2) || par_run(p, 3))
        goto out;
    p->choice0[0] = 0;
    for (int k = 0; k < p->nt; k++)
        p->choice0[k + 1] += p->choice0[k];
    m->n_choices = p->choice0[p->nt];
    if (!p->dtmc && m->n_choices != hdr[1])
        goto out;
    m->choice_start = malloc((size_t)(m->n_choices + 1) * sizeof *m->choice_start);
    if (!m->choice_start)
        goto out;
    if (par_run(p, 4))
        goto out;
    m->choice_start[m->n_choices] = ne;
    for (uint64_t t = ne ? (uint64_t)p->src[ne - 1] + 1 : 1; t <= p->n; t++)
        m->state_start[t] = m->n_choices;
    if (par_run(p, 5))
        goto out;
    rc = WX_OK;
out:
    wx_pool_free(p->pool);
    free(p->src);
    free(p->local);
    free(p);
    return rc;
}

int mdp_read_buffer_threads(const char *data, size_t len, const char *name, int threads,
                            struct mdp *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    if (threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = len < PAR_MIN_BYTES ? 1 : cores > 0 ? (int)cores : 1;
        if ((uint64_t)threads > len / (PAR_MIN_BYTES / 4))
            threads = (int)(len / (PAR_MIN_BYTES / 4)) + 1; /* >= 256 KiB per thread */
    }
    if (threads > PAR_MAX_THREADS)
        threads = PAR_MAX_THREADS;
    if (threads > 1) {
        if (read_tra_parallel(data, len, out, threads) == WX_OK)
            return WX_OK;
        mdp_free(out);
    }
    struct scan s = {.name = name, .begin = data, .p = data, .end = data + len, .err = err};
    int rc = read_tra(&s, out);
    if (rc != WX_OK)
        mdp_free(out);
    return rc;
}

int mdp_read_buffer(const char *data, size_t len, const char *name, struct mdp *out,
                    struct wx_error *err)
{
    return mdp_read_buffer_threads(data, len, name, 0, out, err);
}

int mdp_read(const char *path, struct mdp *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    struct scan_file f;
    int rc = scan_map(path, &f, err);
    if (rc != WX_OK)
        return rc;
    rc = mdp_read_buffer(f.data, f.len, path, out, err);
    scan_unmap(&f);
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
