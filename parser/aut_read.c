/*
 * aut_read.c -- the Aldebaran reader: a hand-written line scanner over an
 * mmapped file (the writer is aut_write.c).  The accepted language and the
 * error contract are in aut.h.
 *
 * Reader structure: the input is cut into lines with memchr; each line is
 * trimmed of trailing blanks/CRs and handed to scan_header or
 * scan_transition, which work left to right except for the one place where
 * AUT cannot be lexed that way: the end of a label, which is the rightmost
 * '"' of the line (quoted) or its last ',' (unquoted).
 */
#include "aut.h"
#include "aut_int.h"
#include "../util/arith.h"
#include "../util/input.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define AUT_EOT 0x04

/* ------------------------------------------------------------------------ */
/* Scanner state and error reporting                                        */

struct scan {
    const char *end;        /* end of the parsed input: first EOT, or buf+len */
    const char *real_end;   /* buf+len; [end, real_end) is ignored            */
    const char *begin;      /* buf: the input is [begin, real_end)            */
    const char *name;       /* file name for error locations                  */
    const char *line_start; /* first byte of the current line                 */
    uint64_t line;          /* current line, 1-based                          */
    bool cut_by_eot;        /* the current line ends at an EOT, not an LF     */
    struct wx_error *err;
    bool prob;              /* accept distributions (aut_read_prob)           */
    struct lts *lts;        /* where distributions go (after the header)      */
    /* the distribution being scanned: states and exact probabilities */
    uint32_t *dstate;
    uint64_t *dnum, *dden;
    uint32_t dn;
    size_t dcap;
};

static const char *skip_blanks(const char *p, const char *lim)
{
    while (p < lim && is_blank((unsigned char)*p))
        p++;
    return p;
}

/* Fails with status code at byte p of the current line. */
__attribute__((format(printf, 4, 5)))
static int fail_at(struct scan *s, int code, const char *p, const char *fmt, ...)
{
    char msg[sizeof s->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = s->line > INT_MAX ? INT_MAX : (int)s->line;
    uint64_t col = (uint64_t)(p - s->line_start) + 1;
    return wx_fail(s->err, code, s->name, line, col > INT_MAX ? INT_MAX : (int)col,
                   "%s", msg);
}

/* Describes the byte at p (lim = end of the line) for "found ..." texts. */
static const char *describe(const char *p, const char *lim, char *buf, size_t size)
{
    if (p >= lim)
        return "end of line";
    unsigned char c = (unsigned char)*p;
    if (c == 0)
        snprintf(buf, size, "a NUL byte");
    else if (c == '\r')
        snprintf(buf, size, "a CR byte (0x0D) that does not end a line");
    else if (c < 0x20 || c == 0x7f)
        snprintf(buf, size, "control byte 0x%02X", c);
    else if (c >= 0x80)
        snprintf(buf, size, "non-ASCII byte 0x%02X", c);
    else
        snprintf(buf, size, "'%c'", c);
    return buf;
}

static int expected(struct scan *s, const char *p, const char *lim, const char *what)
{
    char b[64];
    return fail_at(s, WX_EINPUT, p, "expected %s, found %s", what,
                   describe(p, lim, b, sizeof b));
}

/* Prints the digit string [p, q) for messages, shortened when very long. */
static int num_text(const char *p, const char *q, char *buf, size_t size)
{
    size_t n = (size_t)(q - p);
    if (n < size)
        return snprintf(buf, size, "%.*s", (int)n, p);
    return snprintf(buf, size, "%.*s...", (int)(size - 4), p);
}

/* ------------------------------------------------------------------------ */
/* Tokens                                                                   */

/* number := digit+  (decimal, no sign).  Stores the value in *v, saturated to
 * UINT64_MAX when it does not fit, so callers' range checks catch overflow.
 * Returns the position after the digits (== p when there are none). */
static const char *scan_number(const char *p, const char *lim, uint64_t *v)
{
    /* 19 digits cannot overflow 64 bits: no checks on the usual path. */
    const char *fast_end = lim - p > 19 ? p + 19 : lim;
    uint64_t x = 0;
    for (; p < fast_end && is_digit((unsigned char)*p); p++)
        x = x * 10 + (uint64_t)(*p - '0');
    bool over = false;
    for (; p < lim && is_digit((unsigned char)*p); p++)
        over = __builtin_mul_overflow(x, 10u, &x) ||
               __builtin_add_overflow(x, (uint64_t)(*p - '0'), &x) || over;
    *v = over ? UINT64_MAX : x;
    return p;
}

/* state := number, with value < n_states.  what = "source state", ...
 * Returns the position after it, or NULL with the error filled. */
static const char *scan_state(struct scan *s, const char *p, const char *lim,
                              uint64_t n_states, const char *what, uint32_t *out)
{
    uint64_t v;
    const char *q = scan_number(p, lim, &v);
    if (q == p) {
        char w[64];
        snprintf(w, sizeof w, "a %s number", what);
        expected(s, p, lim, w);
        return NULL;
    }
    if (v >= n_states) {
        char t[48];
        num_text(p, q, t, sizeof t);
        fail_at(s, WX_EINPUT, p,
                "%s %s is out of range: the header declares %llu states (0..%llu)",
                what, t, (unsigned long long)n_states,
                (unsigned long long)n_states - 1);
        return NULL;
    }
    *out = (uint32_t)v;
    return q;
}

/* Called just after a state number: a '/' or a blank-separated further
 * number means an mCRL2 probability distribution "s1 p1 s2 ... sn". */
static bool looks_probabilistic(const char *p, const char *lim)
{
    if (p < lim && *p == '/')
        return true;
    p = skip_blanks(p, lim);
    return p < lim && is_digit((unsigned char)*p);
}

/* looks_probabilistic, also catching a signed or decimal probability (only
 * asked in the probabilistic variant, where a better message follows). */
static bool looks_probabilistic_ext(const char *p, const char *lim)
{
    if (looks_probabilistic(p, lim))
        return true;
    p = skip_blanks(p, lim);
    return p < lim && (*p == '-' || *p == '+' || *p == '.');
}

static int not_probabilistic(struct scan *s, const char *at)
{
    return fail_at(s, WX_EINPUT, at,
                   "probabilistic transitions are not supported yet "
                   "(found a distribution \"state probability state ...\")");
}

/* Denominators (and decimal scales) are kept below this bound, so that the
 * exact sums below never overflow 128-bit intermediates. */
#define AUT_MAX_DEN 1000000000000000000ull /* 10^18 */

/* prob := digits "/" digits | digits ["." digits*] | "." digits
 * An exact probability num/den (reduced) in (0, 1].  Returns the position
 * after it, or NULL with the error filled. */
static const char *scan_prob(struct scan *s, const char *p, const char *lim, uint64_t *num,
                             uint64_t *den)
{
    const char *at = p;
    char b[64];
    if (p < lim && (*p == '-' || *p == '+'))
        return fail_at(s, WX_EINPUT, p, "a probability is written without a sign ('%c' found); "
                       "it must lie in (0, 1]", *p), NULL;
    uint64_t n = 0, d = 1;
    const char *q = scan_number(p, lim, &n);
    bool digits = q > p;
    if (q < lim && *q == '/') {
        if (!digits)
            return expected(s, p, lim, "a probability (p/q or a decimal)"), NULL;
        const char *r = scan_number(q + 1, lim, &d);
        if (r == q + 1)
            return expected(s, q + 1, lim, "the denominator of a probability p/q"), NULL;
        if (d == 0)
            return fail_at(s, WX_EINPUT, at, "probability with denominator 0"), NULL;
        if (n > AUT_MAX_DEN || d > AUT_MAX_DEN)
            return fail_at(s, WX_EINPUT, at, "probability %s: numerator and denominator must be "
                           "at most 10^18", (num_text(at, r, b, sizeof b), b)), NULL;
        q = r;
    } else if (q < lim && *q == '.') {
        const char *f = q + 1;
        while (f < lim && is_digit((unsigned char)*f)) {
            if (d == AUT_MAX_DEN)
                return fail_at(s, WX_EINPUT, at, "probability with more than 18 decimal places"),
                       NULL;
            if (n > AUT_MAX_DEN)
                return fail_at(s, WX_EINPUT, at, "probability too large"), NULL;
            n = n * 10 + (uint64_t)(*f - '0');
            d *= 10;
            f++;
        }
        if (!digits && f == q + 1)
            return expected(s, p, lim, "a probability (p/q or a decimal)"), NULL;
        q = f;
    } else if (!digits) {
        return expected(s, p, lim, "a probability (p/q or a decimal)"), NULL;
    }
    if (q < lim && (*q == ')' || *q == ','))
        return fail_at(s, WX_EINPUT, q, "a distribution ends with a state: expected a blank and "
                       "the last state after the probability, found %s",
                       describe(q, lim, b, sizeof b)), NULL;
    if (q < lim && !is_blank((unsigned char)*q))
        return fail_at(s, WX_EINPUT, q, "unexpected %s in a probability",
                       describe(q, lim, b, sizeof b)), NULL;
    if (n == 0)
        return fail_at(s, WX_EINPUT, at, "probability %s is 0: every probability of a "
                       "distribution must lie in (0, 1]", (num_text(at, q, b, sizeof b), b)), NULL;
    if (n > d)
        return fail_at(s, WX_EINPUT, at, "probability %s is greater than 1",
                       (num_text(at, q, b, sizeof b), b)), NULL;
    uint64_t g = wx_gcd64(n, d);
    *num = n / g;
    *den = d / g;
    return q;
}

static int dist_push(struct scan *s, uint32_t state, uint64_t num, uint64_t den)
{
    void **const arrays[] = {(void **)&s->dstate, (void **)&s->dnum, (void **)&s->dden};
    const size_t sizes[] = {sizeof *s->dstate, sizeof *s->dnum, sizeof *s->dden};
    if (wx_reserve_all(&s->dcap, (size_t)s->dn + 1, 16, 3, arrays, sizes) != 0)
        return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0, "out of memory while reading");
    s->dstate[s->dn] = state;
    s->dnum[s->dn] = num;
    s->dden[s->dn] = den;
    s->dn++;
    return WX_OK;
}

/* dist := state { blank+ prob blank+ state }    (mCRL2's "s1 p1 s2 ... sn")
 * Called with the first state already scanned (first, ending at p).  The
 * probabilities are exact fractions; each lies in (0, 1], and the last state
 * gets the remainder 1 - (p1 + ... + p(n-1)), which must be > 0.  Fills
 * s->dstate/dnum/dden/dn.  Returns the position after the last state, or
 * NULL with the error filled. */
static const char *scan_dist(struct scan *s, const char *p, const char *lim, uint64_t n_states,
                             const char *what, uint32_t first)
{
    uint64_t sn = 0, sd = 1; /* sum so far, exact */
    uint32_t state = first;
    s->dn = 0;
    for (;;) {
        const char *q = skip_blanks(p, lim);
        if (!(q < lim && (is_digit((unsigned char)*q) || *q == '.' || *q == '/' ||
                          *q == '-' || *q == '+')))
            break;
        if (q == p)
            return expected(s, p, lim, "a blank between a state and its probability"), NULL;
        const char *at = q;
        uint64_t n, d;
        if (!(q = scan_prob(s, q, lim, &n, &d)))
            return NULL;
        /* sum += n/d, exactly: the common denominator stays below 2^64
         * when it fits, else the distribution is refused (never rounded) */
        uint64_t g = wx_gcd64(sd, d), l;
        if (__builtin_mul_overflow(sd / g, d, &l))
            return fail_at(s, WX_EINPUT, at, "the probabilities' common denominator exceeds "
                           "2^64: the sum cannot be checked exactly"), NULL;
        unsigned __int128 sum = (unsigned __int128)sn * (l / sd) + (unsigned __int128)n * (l / d);
        if (sum >= l) {
            char b[48];
            num_text(at, q, b, sizeof b);
            return fail_at(s, WX_EINPUT, at, "the probabilities up to %s already sum to %s1; the "
                           "last state of a distribution gets the remainder 1 - (p1 + ... + pn-1), "
                           "which must be positive", b, sum > l ? "more than " : ""), NULL;
        }
        uint64_t h = wx_gcd64((uint64_t)sum, l);
        sn = (uint64_t)sum / h;
        sd = l / h;
        if (dist_push(s, state, n, d) != WX_OK)
            return NULL;
        const char *r = skip_blanks(q, lim);
        if (r == q && r < lim)
            return expected(s, r, lim, "a blank after a probability"), NULL;
        if (!(p = scan_state(s, r, lim, n_states, what, &state)))
            return NULL;
    }
    if (dist_push(s, state, sd - sn, sd) != WX_OK)
        return NULL;
    return p;
}

/* label-byte check over [p, q): every byte but controls (TAB is fine). */
static int check_label_bytes(struct scan *s, const char *p, const char *q)
{
    for (; p < q; p++)
        if (is_bad_label_byte((unsigned char)*p)) {
            char b[64];
            return fail_at(s, WX_EINPUT, p, "%s inside a label",
                           describe(p, q, b, sizeof b));
        }
    return WX_OK;
}

/* ------------------------------------------------------------------------ */
/* Lines                                                                    */

struct header {
    uint32_t initial, n_states;
    bool init_dist;           /* the initial distribution is in s->d*    */
    uint64_t n_trans;
    int n_trans_col;          /* column of NTRANS, for the count error   */
    uint64_t line;            /* line of the header                      */
};

/* One header count: number, or '?' from an aborted writer. */
static const char *scan_count(struct scan *s, const char *p, const char *lim,
                              const char *what, uint64_t *v)
{
    if (p < lim && *p == '?') {
        fail_at(s, WX_EINPUT, p,
                "the header has '?' for the %s: this file was left by an "
                "aborted writer (writers put 'des (0, ?, ?)' first and fill "
                "in the counts when done)", what);
        return NULL;
    }
    const char *q = scan_number(p, lim, v);
    if (q == p) {
        char w[64];
        snprintf(w, sizeof w, "the %s (a number)", what);
        expected(s, p, lim, w);
        return NULL;
    }
    return q;
}

/* header := "des" blank* "(" blank* initial blank* "," blank* ntrans blank*
 *           "," blank* nstates blank* ")"       on [p, le), blanks trimmed */
static int scan_header(struct scan *s, const char *p, const char *le, struct header *h)
{
    static const char form[] = "(the header is 'des (initial, transitions, states)')";
    char b[64];
    if (le - p < 3 || memcmp(p, "des", 3) != 0)
        return fail_at(s, WX_EINPUT, p, "expected the header 'des (initial, "
                       "transitions, states)', found %s", describe(p, le, b, sizeof b));
    p = skip_blanks(p + 3, le);
    if (p >= le || *p != '(')
        return expected(s, p, le, "'(' after 'des'");

    uint64_t init, nt, ns;
    const char *init_at = skip_blanks(p + 1, le);
    if (!(p = scan_count(s, init_at, le, "initial state", &init)))
        return s->err->code;
    const char *init_end = p;
    bool init_dist = false;
    if (s->prob ? looks_probabilistic_ext(p, le) : looks_probabilistic(p, le)) {
        if (!s->prob)
            return fail_at(s, WX_EINPUT, init_at,
                           "probabilistic initial states are not supported yet "
                           "(found a distribution \"state probability state ...\")");
        /* the states' range is checked below, once NSTATES is known */
        if (!(p = scan_dist(s, p, le, UINT32_MAX, "initial state", (uint32_t)(init < UINT32_MAX ? init : UINT32_MAX))))
            return s->err->code;
        init_dist = true;
    }
    p = skip_blanks(p, le);
    if (p >= le || *p != ',')
        return expected(s, p, le, "',' after the initial state");

    const char *nt_at = skip_blanks(p + 1, le);
    if (!(p = scan_count(s, nt_at, le, "number of transitions", &nt)))
        return s->err->code;
    if (nt == UINT64_MAX)
        return fail_at(s, WX_EINPUT, nt_at,
                       "number of transitions does not fit in 64 bits");
    p = skip_blanks(p, le);
    if (p >= le || *p != ',')
        return expected(s, p, le, "',' after the number of transitions");

    const char *ns_at = skip_blanks(p + 1, le);
    if (!(p = scan_count(s, ns_at, le, "number of states", &ns)))
        return s->err->code;
    if (ns == 0)
        return fail_at(s, WX_EINPUT, ns_at,
                       "the header declares 0 states; an LTS needs at least its initial state");
    if (ns > LTS_MAX_STATES) {
        char t[48];
        num_text(ns_at, p, t, sizeof t);
        return fail_at(s, WX_ELIMIT, ns_at, "%s states: at most %u states per "
                       "component are supported", t, LTS_MAX_STATES);
    }
    /* validation before allocation: per-state arrays are sized by NSTATES */
    if (ns > wx_id_limit((uint64_t)(s->real_end - s->begin))) {
        char rule[128];
        wx_id_limit_text((uint64_t)(s->real_end - s->begin), rule, sizeof rule);
        return fail_at(s, WX_EINPUT, ns_at, "the header declares %llu states, implausible for "
                       "a file of %llu bytes: %s", (unsigned long long)ns,
                       (unsigned long long)(s->real_end - s->begin), rule);
    }
    p = skip_blanks(p, le);
    if (p >= le || *p != ')')
        return expected(s, p, le, "')' closing the header");
    p = skip_blanks(p + 1, le);
    if (p < le)
        return fail_at(s, WX_EINPUT, p, "expected end of line after the header, found %s %s",
                       describe(p, le, b, sizeof b), form);
    if (init_dist) {
        for (uint32_t i = 0; i < s->dn; i++)
            if (s->dstate[i] >= ns)
                return fail_at(s, WX_EINPUT, init_at,
                               "state %u of the initial distribution is out of range: the "
                               "header declares %llu states (0..%llu)", s->dstate[i],
                               (unsigned long long)ns, (unsigned long long)ns - 1);
        init = 0;
    } else if (init >= ns) {
        char t[48];
        num_text(init_at, init_end, t, sizeof t);
        return fail_at(s, WX_EINPUT, init_at,
                       "initial state %s is out of range: the header declares %llu "
                       "states (0..%llu)", t, (unsigned long long)ns,
                       (unsigned long long)ns - 1);
    }
    h->initial = (uint32_t)init;
    h->init_dist = init_dist;
    h->n_states = (uint32_t)ns;
    h->n_trans = nt;
    h->line = s->line;
    h->n_trans_col = (int)(nt_at - s->line_start) + 1;
    return WX_OK;
}

/* transition := "(" blank* state blank* "," blank* label blank* "," blank*
 *               state blank* ")"                 on [p, le), blanks trimmed
 * label      := '"' any* '"'   -- up to the RIGHTMOST '"' of the line
 *             | text           -- up to the LAST ',' of the line, trimmed;
 *                                 no '"' (identifier, '*' or mCRL2 style)
 * On success *lab and *lab_len give the label text (no quotes). */
static int scan_transition(struct scan *s, const char *p, const char *le,
                           uint32_t n_states, uint32_t *src, const char **lab,
                           size_t *lab_len, uint32_t *dst)
{
    if (*p != '(')
        return expected(s, p, le, "'(' starting a transition '(source, label, target)'");
    p = skip_blanks(p + 1, le);
    if (!(p = scan_state(s, p, le, n_states, "source state", src)))
        return s->err->code;
    p = skip_blanks(p, le);
    if (p >= le || *p != ',')
        return expected(s, p, le, "',' after the source state");
    p = skip_blanks(p + 1, le);

    const char *l0, *l1;
    if (p < le && *p == '"') {
        const char *close = memrchr(p + 1, '"', (size_t)(le - p - 1));
        if (!close)
            return fail_at(s, WX_EINPUT, p, "unterminated quoted label: no "
                           "closing '\"' on this line");
        l0 = p + 1;
        l1 = close;
        p = skip_blanks(close + 1, le);
        if (p >= le || *p != ',')
            return expected(s, p, le, "',' after the quoted label");
    } else {
        const char *comma = memrchr(p, ',', (size_t)(le - p));
        if (!comma)
            return fail_at(s, WX_EINPUT, p, "expected a label followed by ',' "
                           "and the target state (a transition is '(source, label, target)')");
        l0 = p;
        l1 = comma;
        while (l1 > l0 && is_blank((unsigned char)l1[-1]))
            l1--;
        if (l1 == l0)
            return fail_at(s, WX_EINPUT, comma, "missing label before ','");
        const char *q = memchr(l0, '"', (size_t)(l1 - l0));
        if (q)
            return fail_at(s, WX_EINPUT, q, "'\"' inside an unquoted label "
                           "(a quoted label must start with '\"')");
        p = comma;
    }
    int rc = check_label_bytes(s, l0, l1);
    if (rc)
        return rc;

    const char *t = skip_blanks(p + 1, le);
    if (!(p = scan_state(s, t, le, n_states, "target state", dst)))
        return s->err->code;
    if (s->prob ? looks_probabilistic_ext(p, le) : looks_probabilistic(p, le)) {
        if (!s->prob)
            return not_probabilistic(s, t);
        if (!(p = scan_dist(s, p, le, n_states, "target state", *dst)))
            return s->err->code;
        uint32_t d = lts_add_dist(s->lts, s->dn, s->dstate, s->dnum, s->dden);
        if (d == UINT32_MAX)
            return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0,
                           "out of memory (or more than 2^31 distributions) while reading");
        *dst = d;
    }
    p = skip_blanks(p, le);
    if (p >= le || *p != ')')
        return expected(s, p, le, "')' after the target state");
    if (p + 1 < le) {
        char b[64];
        p = skip_blanks(p + 1, le);
        return fail_at(s, WX_EINPUT, p, "expected end of line after the transition, found %s",
                       describe(p, le, b, sizeof b));
    }
    *lab = l0;
    *lab_len = (size_t)(l1 - l0);
    return WX_OK;
}

/* A direct-mapped cache in front of strtab_intern.  AUT files repeat a few
 * labels millions of times; a hit costs a cheap hash of the label's length
 * and its first and last 8 bytes plus one compare, instead of hashing the
 * whole label inside the strtab.  Collisions only cost misses (every hit is
 * verified against the interned text). */
#define AUT_LCACHE 4096 /* entries, a power of two (16 KiB on the stack) */

struct lcache {
    uint32_t id[AUT_LCACHE]; /* UINT32_MAX: empty */
};

static uint32_t lcache_slot(const char *p, size_t n)
{
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        memcpy(&a, p, 8);
        memcpy(&b, p + n - 8, 8);
    } else {
        memcpy(&a, p, n);
    }
    uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full) ^ n;
    return (uint32_t)(h >> 40) & (AUT_LCACHE - 1);
}

/* The id of p[0..n) in labels; UINT32_MAX when out of memory. */
static uint32_t intern(struct lcache *c, struct strtab *labels, const char *p, size_t n)
{
    uint32_t slot = lcache_slot(p, n), id = c->id[slot];
    if (id != UINT32_MAX && strtab_len(labels, id) == n &&
        memcmp(strtab_str(labels, id), p, n) == 0)
        return id;
    id = strtab_intern(labels, p, n);
    c->id[slot] = id;
    return id;
}

/* The next line from *pos: sets s->line_start, returns its first non-blank
 * byte and in *le its end with trailing blanks and CRs removed, and moves *pos
 * past its LF.  A blank line gives the same pointer as *le. */
static const char *next_line(struct scan *s, const char **pos, const char **le)
{
    const char *p = *pos;
    const char *nl = memchr(p, '\n', (size_t)(s->end - p));
    const char *e = nl ? nl : s->end;
    *pos = nl ? nl + 1 : s->end;
    s->line_start = p;
    s->cut_by_eot = !nl && s->end < s->real_end;
    while (e > p && (is_blank((unsigned char)e[-1]) || e[-1] == '\r'))
        e--;
    *le = e;
    return skip_blanks(p, e);
}

/* An error on a line that an EOT cut short is reported as the EOT's fault. */
static int eot_cut(struct scan *s, int rc)
{
    if (rc != WX_OK && s->cut_by_eot)
        return fail_at(s, WX_EINPUT, s->end, "EOT byte (0x04) inside a line: an "
                       "EOT may only end the input after a complete line");
    return rc;
}

static int oom(struct scan *s)
{
    return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0, "out of memory while reading");
}

/* file := blank-line* header (transition | blank-line)* [EOT any*] */
static int scan_file(struct scan *s, const char *buf, struct strtab *labels,
                     struct lts *out, uint32_t *initial)
{
    const char *pos = buf, *p, *le;
    struct header h = {0};
    int rc;

    s->line = 0;
    for (;;) {
        if (pos >= s->end) {
            /* Report at the end of the input: on a new line after a final
             * LF, else after the last line's text. */
            if (s->line == 0 || pos[-1] == '\n') {
                s->line_start = pos;
                s->line++;
            }
            return fail_at(s, WX_EINPUT, pos, "missing header 'des (initial, "
                           "transitions, states)': the file is empty");
        }
        s->line++;
        p = next_line(s, &pos, &le);
        if (p < le)
            break;
    }
    if ((rc = eot_cut(s, scan_header(s, p, le, &h))))
        return rc;

    struct lcache cache;
    memset(&cache, 0xff, sizeof cache); /* every id UINT32_MAX: empty */
    lts_init(out, h.n_states);
    s->lts = out;
    uint32_t init_value = h.initial;
    if (h.init_dist) {
        init_value = lts_add_dist(out, s->dn, s->dstate, s->dnum, s->dden);
        if (init_value == UINT32_MAX)
            return oom(s);
    }
    /* Pre-size from the header, but never beyond what the file can hold (a
     * transition line has at least 8 bytes), so a lying header costs nothing. */
    uint64_t fits = (uint64_t)(s->end - pos) / 8;
    if (lts_reserve(out, h.n_trans < fits ? h.n_trans : fits) != 0)
        return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0, "out of memory reading %llu transitions",
                       (unsigned long long)h.n_trans);
    uint64_t n_lines = 0, surplus_line = 0;
    while (pos < s->end) {
        s->line++;
        p = next_line(s, &pos, &le);
        if (p == le)
            continue;
        uint32_t src = 0, dst = 0;
        const char *lab = NULL;
        size_t len = 0;
        rc = scan_transition(s, p, le, h.n_states, &src, &lab, &len, &dst);
        if ((rc = eot_cut(s, rc)))
            return rc;
        if (n_lines++ >= h.n_trans) {
            /* Keep scanning (for errors and the total), storing nothing. */
            if (!surplus_line)
                surplus_line = s->line;
            continue;
        }
        uint32_t id = intern(&cache, labels, lab, len);
        if (id == UINT32_MAX || lts_add(out, src, id, dst) != 0)
            return oom(s);
    }
    if (n_lines != h.n_trans) {
        if (surplus_line)
            return wx_fail(s->err, WX_EINPUT, s->name,
                           surplus_line > INT_MAX ? INT_MAX : (int)surplus_line, 1,
                           "the header (line %llu) announces %llu transition%s, but "
                           "the file has %llu transition lines; this is the first "
                           "surplus one", (unsigned long long)h.line,
                           (unsigned long long)h.n_trans, h.n_trans == 1 ? "" : "s",
                           (unsigned long long)n_lines);
        return wx_fail(s->err, WX_EINPUT, s->name, h.line > INT_MAX ? INT_MAX : (int)h.line,
                       h.n_trans_col, "the header announces %llu transitions, but the file has "
                       "only %llu transition line%s", (unsigned long long)h.n_trans,
                       (unsigned long long)n_lines, n_lines == 1 ? "" : "s");
    }
    if (init_value & LTS_DST_DISTRIBUTION)
        out->init_dist = (init_value & ~LTS_DST_DISTRIBUTION) + 1; /* kept by lts_finish */
    if (lts_finish(out) != 0)
        return oom(s);
    if (out->init_dist) {
        init_value = LTS_DST_DISTRIBUTION | (out->init_dist - 1);
        out->init_dist = 0; /* lts_prune_from sets it again */
    }
    *initial = init_value;
    return WX_OK;
}

static int read_buffer(const char *data, size_t len, const char *name, struct strtab *labels,
                       struct lts *out, uint32_t *initial, bool prob, struct wx_error *err)
{
    struct scan s = {0};
    s.prob = prob;
    const char *eot = len ? memchr(data, AUT_EOT, len) : NULL;
    s.end = eot ? eot : data + len;
    s.real_end = data + len;
    s.begin = data;
    s.name = name;
    s.err = err;
    wx_error_clear(err);
    memset(out, 0, sizeof *out);
    *initial = 0;
    int rc = scan_file(&s, data, labels, out, initial);
    free(s.dstate), free(s.dnum), free(s.dden);
    if (rc != WX_OK) {
        lts_free(out);
        memset(out, 0, sizeof *out);
        *initial = 0;
    }
    return rc;
}

int aut_read_buffer(const char *data, size_t len, const char *name,
                    struct strtab *labels, struct lts *out, uint32_t *initial,
                    struct wx_error *err)
{
    return read_buffer(data, len, name, labels, out, initial, false, err);
}

int aut_read_prob_buffer(const char *data, size_t len, const char *name,
                         struct strtab *labels, struct lts *out, uint32_t *initial,
                         struct wx_error *err)
{
    return read_buffer(data, len, name, labels, out, initial, true, err);
}

static int read_path(const char *path, struct strtab *labels, struct lts *out,
                     uint32_t *initial, bool prob, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    *initial = 0;
    int fd;
    struct stat st;
    int rc = wx_input_open(path, &fd, &st, err);
    if (rc != WX_OK)
        return rc;
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        size_t len = (size_t)st.st_size;
        void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            close(fd);
            return wx_fail(err, WX_ESYSTEM, path, 0, 0, "cannot map: %s", strerror(e));
        }
        close(fd);
        madvise(m, len, MADV_SEQUENTIAL); /* a hint; failure is harmless */
        rc = read_buffer(m, len, path, labels, out, initial, prob, err);
        munmap(m, len);
    } else {
        char *buf = NULL;
        size_t len = 0;
        /* a stream is read up to its first EOT (what follows is ignored),
         * and a NUL byte before it fails at once */
        rc = wx_input_read_fd(fd, path, WX_INPUT_TEXT, AUT_EOT, &buf, &len, err);
        close(fd);
        if (rc != WX_OK)
            return rc;
        rc = read_buffer(buf, len, path, labels, out, initial, prob, err);
        free(buf);
    }
    return rc;
}

int aut_read(const char *path, struct strtab *labels, struct lts *out,
             uint32_t *initial, struct wx_error *err)
{
    return read_path(path, labels, out, initial, false, err);
}

int aut_read_prob(const char *path, struct strtab *labels, struct lts *out,
                  uint32_t *initial, struct wx_error *err)
{
    return read_path(path, labels, out, initial, true, err);
}
