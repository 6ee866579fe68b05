/*
 * gpf_read.c -- reading GPUexplore .gpf files into warpex images (contract
 * in gpf.h).
 *
 * The text is split into lines, each validated as one integer (value +
 * column kept, so every later complaint can point at its line); the sections
 * are then consumed in file order with range checks, the packed arrays are
 * decoded and cross-checked, and the result is built as a network
 * (network.h) that image_compile turns into the image.  Going through the
 * network keeps one compiler and gives the .gpf semantics a precise meaning:
 * GPUexplore's rule "every process in the mask offers label a" is exactly a
 * network rule whose participants all perform "L<a>".
 */
#include "gpf.h"
#include "../util/input.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../network/network.h"
#include "../util/arith.h"
#include "../util/strtab.h"
#include "gpf_int.h"


struct rd {
    const char *name;
    struct wx_error *err;
    int64_t *val;   /* one value per line */
    uint32_t *col;  /* 1-based column where the number starts */
    size_t n;       /* values (= lines) */
    size_t pos;     /* next value to consume */
};

__attribute__((format(printf, 3, 4)))
static int err_at(struct rd *r, size_t idx, const char *fmt, ...)
{
    char msg[sizeof r->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = idx < r->n ? (int)(idx + 1) : (int)(r->n + 1);
    int col = idx < r->n ? (int)r->col[idx] : 1;
    return wx_fail(r->err, WX_EINPUT, r->name, line, col, "%s", msg);
}

static int rd_oom(struct rd *r)
{
    return wx_fail(r->err, WX_ELIMIT, r->name, 0, 0, "out of memory while reading the .gpf file");
}

/* Splits text into lines and parses each as one integer: optional blanks,
 * optional '-', 1..GPF_MAX_DIGITS digits, optional blanks, optional CR. */
static int tokenize(struct rd *r, const char *text, size_t len)
{
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n')
            lines++;
    if (len > 0 && text[len - 1] != '\n')
        lines++;
    r->val = malloc((lines ? lines : 1) * sizeof *r->val);
    r->col = malloc((lines ? lines : 1) * sizeof *r->col);
    if (!r->val || !r->col)
        return rd_oom(r);
    size_t at = 0;
    for (size_t ln = 0; ln < lines; ln++) {
        size_t end = at;
        while (end < len && text[end] != '\n')
            end++;
        size_t stop = end;
        if (stop > at && text[stop - 1] == '\r')
            stop--;
        size_t i = at;
        r->n = ln + 1; /* so err_at can address this line */
        r->col[ln] = 1;
        while (i < stop && (text[i] == ' ' || text[i] == '\t'))
            i++;
        r->col[ln] = (uint32_t)(i - at + 1);
        int neg = 0;
        if (i < stop && text[i] == '-') {
            neg = 1;
            i++;
        }
        size_t d0 = i;
        int64_t v = 0;
        while (i < stop && text[i] >= '0' && text[i] <= '9') {
            if (i - d0 >= GPF_MAX_DIGITS)
                return err_at(r, ln, "number too long (more than %d digits)", GPF_MAX_DIGITS);
            v = v * 10 + (text[i] - '0');
            i++;
        }
        if (i == d0) {
            if (i == stop && !neg)
                return err_at(r, ln, "empty line: expected an integer");
            r->col[ln] = (uint32_t)(i - at + 1);
            if (i == stop)
                return err_at(r, ln, "expected digits after '-'");
            unsigned char c = (unsigned char)text[i];
            if (c >= 32 && c < 127)
                return err_at(r, ln, "expected an integer, found '%c'", c);
            return err_at(r, ln, "expected an integer, found byte 0x%02x", c);
        }
        while (i < stop && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if (i < stop) {
            r->col[ln] = (uint32_t)(i - at + 1);
            unsigned char c = (unsigned char)text[i];
            if (c >= 32 && c < 127)
                return err_at(r, ln, "one integer per line expected; unexpected '%c' after the number", c);
            return err_at(r, ln, "one integer per line expected; unexpected byte 0x%02x", c);
        }
        r->val[ln] = neg ? -v : v;
        at = end + 1;
    }
    r->n = lines;
    return WX_OK;
}

/* Consumes one value in [lo, hi]. */
static int rd_int(struct rd *r, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    if (r->pos >= r->n)
        return err_at(r, r->n, "unexpected end of file: expected %s", what);
    int64_t v = r->val[r->pos];
    if (v < lo || v > hi)
        return err_at(r, r->pos, "%s is %lld; expected %lld..%lld", what, (long long)v, (long long)lo,
                      (long long)hi);
    *out = v;
    r->pos++;
    return WX_OK;
}

static int rd_u32(struct rd *r, const char *what, uint32_t lo, uint32_t hi, uint32_t *out)
{
    int64_t v = 0;
    int rc = rd_int(r, what, lo, hi, &v);
    if (rc == WX_OK)
        *out = (uint32_t)v;
    return rc;
}

/* Consumes n packed 32-bit words (signed or unsigned decimal); *idx gets the
 * value index of the first, for error locations. */
static int rd_words(struct rd *r, const char *what, size_t n, uint32_t **out, size_t *idx)
{
    if (n > r->n - r->pos)
        return err_at(r, r->n, "unexpected end of file: %zu %s expected, %zu lines left", n, what,
                      r->n - r->pos);
    *idx = r->pos;
    *out = malloc((n ? n : 1) * sizeof **out);
    if (!*out)
        return rd_oom(r);
    for (size_t i = 0; i < n; i++) {
        int64_t v = 0;
        int rc = rd_int(r, what, INT32_MIN, UINT32_MAX, &v);
        if (rc != WX_OK)
            return rc;
        (*out)[i] = (uint32_t)v;
    }
    return WX_OK;
}

/* Consumes a count that announces that many following lines. */
static int rd_count(struct rd *r, const char *what, uint32_t lo, uint32_t *out)
{
    size_t at = r->pos;
    int rc = rd_u32(r, what, lo, INT32_MAX, out);
    if (rc == WX_OK && *out > r->n - r->pos)
        return err_at(r, at, "%s is %u but only %zu lines follow", what, *out, r->n - r->pos);
    return rc;
}

/* Field i of an array of nb-bit values packed floor(32/nb) per word, least
 * significant first; *word gets the word index. */
static uint32_t packed(const uint32_t *w, uint32_t nb, uint64_t i, uint64_t *word)
{
    uint32_t k = 32 / nb;
    *word = i / k;
    uint32_t sh = (uint32_t)(i % k) * nb;
    return (uint32_t)((w[i / k] >> sh) & ((1ull << nb) - 1));
}

static uint32_t popcount32(uint32_t x)
{
    uint32_t c = 0;
    for (; x; x &= x - 1)
        c++;
    return c;
}

struct gpf {
    uint32_t nprocs, bits_act, bits_sv, sv;
    uint32_t *firstbit, *bits_state;
    uint32_t nbits_off, max_buf;
    size_t idx_max_buf;
    uint32_t *pstart;
    size_t idx_pstart;
    uint32_t *poff;
    size_t idx_poff;
    uint32_t ntrans;
    uint32_t *trans;
    size_t idx_trans;
    uint32_t nbits_soff, nsoff, nsync;
    uint32_t *soff, *sync;
    size_t idx_nsoff, idx_soff, idx_sync;
    uint32_t *nstates; /* inferred, per process */
};

static void gpf_free(struct gpf *g)
{
    free(g->firstbit), free(g->bits_state), free(g->pstart), free(g->poff), free(g->trans);
    free(g->soff), free(g->sync), free(g->nstates);
}

/* Sections 1..18 of the layout, in file order, with the checks that need no
 * decoding. */
static int read_sections(struct rd *r, struct gpf *g)
{
    int rc;
    uint32_t tmp;
    if ((rc = rd_u32(r, "the liveness flag (line 1)", 0, 1, &tmp)) != WX_OK)
        return rc;
    if ((rc = rd_u32(r, "nr_procs (GPUexplore handles 1..31 processes)", 1, GPF_MAX_PROCS, &g->nprocs)) != WX_OK)
        return rc;
    uint32_t n = g->nprocs;
    if ((rc = rd_u32(r, "bits_act", 0, 30, &g->bits_act)) != WX_OK)
        return rc;
    if ((rc = rd_u32(r, "proc_nrstates", 0, INT32_MAX, &tmp)) != WX_OK)
        return rc;
    if ((rc = rd_u32(r, "bits_statevector (at most 9 ints: MAX_SIZE)", 1, 32 * GPF_MAX_INTS, &g->bits_sv)) != WX_OK)
        return rc;
    g->sv = (g->bits_sv + 31) / 32;
    g->firstbit = malloc((n + 1) * sizeof *g->firstbit);
    g->bits_state = malloc(n * sizeof *g->bits_state);
    g->pstart = malloc((n + 1) * sizeof *g->pstart);
    if (!g->firstbit || !g->bits_state || !g->pstart)
        return rd_oom(r);
    for (uint32_t i = 0; i <= n; i++) {
        uint32_t lo = i ? g->firstbit[i - 1] : 0;
        size_t at = r->pos;
        if ((rc = rd_u32(r, "a firstbit_statevector entry", lo, 32 * g->sv - 1, &g->firstbit[i])) != WX_OK) {
            if (r->pos == at && at < r->n && r->val[at] > (int64_t)(32 * g->sv - 1))
                return err_at(r, at,
                              "firstbit_statevector[%u] = %lld: fields must end below bit %u (bit 31 of "
                              "the last of the %u ints that bits_statevector = %u gives is the new flag)",
                              i, (long long)r->val[at], 32 * g->sv - 1, g->sv, g->bits_sv);
            return rc;
        }
        if (i > 0 && g->firstbit[i] - g->firstbit[i - 1] > 31)
            return err_at(r, at, "process %u's vector field is %u bits wide; at most 31", i - 1,
                          g->firstbit[i] - g->firstbit[i - 1]);
    }
    for (uint32_t p = 0; p < n; p++) {
        char what[96];
        snprintf(what, sizeof what, "bits_state[%u] (bits_act + bits_state <= 31)", p);
        if ((rc = rd_u32(r, what, 1, 31 - g->bits_act, &g->bits_state[p])) != WX_OK)
            return rc;
    }
    if ((rc = rd_u32(r, "nbits_offset", 1, 31, &g->nbits_off)) != WX_OK)
        return rc;
    g->idx_max_buf = r->pos;
    if ((rc = rd_u32(r, "max_buf_ints", 0, INT32_MAX, &g->max_buf)) != WX_OK)
        return rc;
    g->idx_pstart = r->pos;
    for (uint32_t i = 0; i <= n; i++) {
        uint32_t lo = i ? g->pstart[i - 1] + 1 : 0, hi = i ? INT32_MAX : 0;
        if ((rc = rd_u32(r, i ? "proc_offsets_start (strictly increasing: each process needs >= 1 word)"
                              : "proc_offsets_start[0]",
                         lo, hi, &g->pstart[i])) != WX_OK)
            return rc;
    }
    if (g->pstart[n] > r->n - r->pos)
        return err_at(r, g->idx_pstart + n, "proc_offsets_start[%u] = %u words, but only %zu lines follow", n,
                      g->pstart[n], r->n - r->pos);
    if ((rc = rd_words(r, "proc_offsets words", g->pstart[n], &g->poff, &g->idx_poff)) != WX_OK)
        return rc;
    if ((rc = rd_count(r, "nr_trans", 0, &g->ntrans)) != WX_OK)
        return rc;
    if ((rc = rd_words(r, "transition entries", g->ntrans, &g->trans, &g->idx_trans)) != WX_OK)
        return rc;
    if ((rc = rd_u32(r, "nbits_syncbits_offset", 1, 31, &g->nbits_soff)) != WX_OK)
        return rc;
    g->idx_nsoff = r->pos;
    if ((rc = rd_count(r, "nr_syncbits_offsets", 1, &g->nsoff)) != WX_OK)
        return rc;
    if ((rc = rd_words(r, "syncbits_offsets words", g->nsoff, &g->soff, &g->idx_soff)) != WX_OK)
        return rc;
    if ((rc = rd_count(r, "nr_syncbits", 0, &g->nsync)) != WX_OK)
        return rc;
    if ((rc = rd_words(r, "syncbits words", g->nsync, &g->sync, &g->idx_sync)) != WX_OK)
        return rc;
    /* GPUexplore's stubborn-POR branch reads one more flag (0: no POR matrices) */
    if (r->pos + 1 == r->n && r->val[r->pos] == 0)
        r->pos++;
    if (r->pos < r->n)
        return err_at(r, r->pos, "unexpected data after the sync rules (the file should end here)");
    return WX_OK;
}

/* Infers the number of states of process p from its packed offsets: they are
 * n_p + 1 values, nondecreasing and <= nr_trans, starting on a fresh word,
 * and the rest of the last word is padding (0, or a repeat of the last
 * offset).  n_p is the largest count that fits all that and the process's
 * field width and slot width; when padding repeats the last offset this can
 * count a few extra states, which have no entries and are unreachable. */
static int infer_states(struct rd *r, struct gpf *g, uint32_t p)
{
    uint32_t nb = g->nbits_off, k = 32 / nb;
    const uint32_t *w = g->poff + g->pstart[p];
    uint64_t F = (uint64_t)(g->pstart[p + 1] - g->pstart[p]) * k, m = 0, word;
    uint32_t prev = 0;
    for (; m < F; m++) {
        uint32_t v = packed(w, nb, m, &word);
        if (v > g->ntrans || (m > 0 && v < prev))
            break;
        prev = v;
    }
    uint64_t lower = F - k; /* the last word holds at least one offset */
    uint64_t n = m == 0 ? 0 : m - 1;
    uint32_t width = g->firstbit[p + 1] - g->firstbit[p];
    uint64_t cap_field = 1ull << width, cap_slot = (1ull << g->bits_state[p]) - 1;
    if (n > cap_field)
        n = cap_field;
    if (n > cap_slot)
        n = cap_slot;
    if (m == 0) /* the first offset itself is beyond nr_trans */
        return err_at(r, g->idx_poff + g->pstart[p], "process %u: offset 0 is %u, beyond nr_trans = %u",
                      p, packed(w, nb, 0, &word), g->ntrans);
    uint32_t last = packed(w, nb, n, &word);
    for (uint64_t i = n + 1; i < F; i++) { /* padding after the last offset */
        uint32_t v = packed(w, nb, i, &word);
        if (v == 0 || v == last)
            continue;
        size_t at = g->idx_poff + g->pstart[p] + (size_t)word;
        uint32_t before = packed(w, nb, i - 1, &word);
        if (v > g->ntrans)
            return err_at(r, at, "process %u: offset %llu is %u, beyond nr_trans = %u", p,
                          (unsigned long long)i, v, g->ntrans);
        if (v < before)
            return err_at(r, at, "process %u: offset %llu (%u) is smaller than the one before (%u)", p,
                          (unsigned long long)i, v, before);
        return err_at(r, at, "process %u: offset %llu (%u) lies beyond the %llu states that its %u-bit "
                             "vector field and %u-bit slots allow",
                      p, (unsigned long long)i, v, (unsigned long long)n, width, g->bits_state[p]);
    }
    if (n < 1 || n < lower)
        return err_at(r, g->idx_poff + g->pstart[p + 1] - 1,
                      "process %u: %u words of offsets but only %llu states (each process's offsets "
                      "start on a fresh word, so its last word must hold at least one of them)",
                      p, g->pstart[p + 1] - g->pstart[p], (unsigned long long)n);
    g->nstates[p] = (uint32_t)n;
    return WX_OK;
}

/* Offsets field i of process p (already validated). */
static uint32_t proc_off(const struct gpf *g, uint32_t p, uint32_t i)
{
    uint64_t word;
    return packed(g->poff + g->pstart[p], g->nbits_off, i, &word);
}

/* Checks every entry of every (p, s) and returns the largest sync label + 1
 * in *n_labels. */
static int check_entries(struct rd *r, struct gpf *g, uint32_t *n_labels)
{
    uint32_t ab = g->bits_act, L = 0;
    for (uint32_t p = 0; p < g->nprocs; p++) {
        uint32_t bs = g->bits_state[p], slots = (31 - ab) / bs;
        uint32_t used = 1 + ab + slots * bs;
        for (uint32_t s = 0; s < g->nstates[p]; s++) {
            uint32_t a = proc_off(g, p, s), b = proc_off(g, p, s + 1);
            int in_sync = 0;
            uint32_t cur = 0, run = 0;
            for (uint32_t x = a; x < b; x++) {
                uint32_t e = g->trans[x];
                size_t at = g->idx_trans + x;
                if (used < 32 && (e >> used) != 0)
                    return err_at(r, at, "entry %u (process %u, state %u): bits above the last slot "
                                         "(bit %u and up) must be 0",
                                  x, p, s, used);
                uint32_t empty = 0, filled = 0;
                for (uint32_t j = 0; j < slots; j++) {
                    uint32_t t = (e >> (1 + ab + j * bs)) & ((1u << bs) - 1);
                    if (t == 0) {
                        empty = 1;
                        continue;
                    }
                    if (empty)
                        return err_at(r, at, "entry %u (process %u, state %u): slot %u is filled after "
                                             "an empty slot (filled slots come first)",
                                      x, p, s, j);
                    if (t - 1 >= g->nstates[p])
                        return err_at(r, at, "entry %u (process %u, state %u): target %u out of range "
                                             "(process %u has %u states)",
                                      x, p, s, t - 1, p, g->nstates[p]);
                    filled++;
                }
                if (filled == 0)
                    return err_at(r, at, "entry %u (process %u, state %u) has no target", x, p, s);
                uint32_t sync = e & 1u, act = (e >> 1) & ((1u << ab) - 1);
                if (!sync) {
                    if (in_sync)
                        return err_at(r, at, "entry %u (process %u, state %u): local entry after "
                                             "synchronising ones (GPUexplore needs local entries first)",
                                      x, p, s);
                    continue;
                }
                if (in_sync && act < cur)
                    return err_at(r, at, "entry %u (process %u, state %u): label %u after label %u "
                                         "(synchronising entries must be sorted by label)",
                                  x, p, s, act, cur);
                run = (in_sync && act == cur) ? run + 1 : 1;
                in_sync = 1;
                cur = act;
                if (run > g->max_buf)
                    return err_at(r, at, "entry %u: process %u, state %u has more than max_buf_ints = "
                                         "%u entries for label %u (GPUexplore's buffer would overflow)",
                                  x, p, s, g->max_buf, act);
                if (act + 1 > L)
                    L = act + 1;
            }
        }
    }
    *n_labels = L;
    return WX_OK;
}

/* Checks the sync offsets of labels 0..L and the rules of labels < L (the
 * labels that entries use; rules of other labels can never fire). */
static int check_rules(struct rd *r, struct gpf *g, uint32_t L)
{
    uint32_t nb = g->nbits_soff, k2 = 32 / nb;
    uint64_t total = (uint64_t)g->nsoff * k2, word;
    if ((uint64_t)L + 1 > total)
        return err_at(r, g->idx_nsoff, "nr_syncbits_offsets = %u words hold %llu offsets, but the "
                                       "entries use labels 0..%u, which need %u",
                      g->nsoff, (unsigned long long)total, L - 1, L + 1);
    uint32_t prev = 0;
    for (uint32_t a = 0; a <= L; a++) {
        uint32_t v = packed(g->soff, nb, a, &word);
        if (v > g->nsync || v < prev)
            return err_at(r, g->idx_soff + (size_t)word,
                          "sync offset of label %u is %u; expected %u..%u (nondecreasing, at most "
                          "nr_syncbits)",
                          a, v, prev, g->nsync);
        prev = v;
    }
    uint32_t np = g->nprocs, R = 32 / np;
    uint64_t used = (uint64_t)R * np;
    for (uint32_t a = 0; a < L; a++) {
        uint32_t lo = packed(g->soff, nb, a, &word), hi = packed(g->soff, nb, a + 1, &word);
        int padding = 0;
        for (uint32_t wi = lo; wi < hi; wi++) {
            uint32_t w = g->sync[wi];
            size_t at = g->idx_sync + wi;
            if (used < 32 && (w >> used) != 0)
                return err_at(r, at, "syncbits word %u (label %u): bits above the last rule (bit %llu "
                                     "and up) must be 0",
                              wi, a, (unsigned long long)used);
            for (uint32_t j = 0; j < R; j++) {
                uint32_t rule = (uint32_t)((w >> (j * np)) & ((1ull << np) - 1));
                if (rule == 0) {
                    padding = 1;
                    continue;
                }
                if (padding)
                    return err_at(r, at, "syncbits word %u (label %u): a rule after an empty one "
                                         "(0 ends a label's rule list)",
                                  wi, a);
                if (popcount32(rule) < 2)
                    return err_at(r, at, "syncbits word %u (label %u): rule 0x%x has a single "
                                         "process (GPUexplore does not fire these reliably; write "
                                         "such transitions as local entries)",
                                  wi, a, rule);
            }
        }
    }
    return WX_OK;
}

/* Builds the network that the checked file describes (see gpf.h). */
static int build_network(struct rd *r, struct gpf *g, uint32_t L, struct network *net)
{
    struct strtab *labels = strtab_new();
    uint32_t *lab = calloc(L ? L : 1, sizeof *lab);
    if (!labels || !lab) {
        strtab_free(labels);
        free(lab);
        return rd_oom(r);
    }
    network_init(net, labels, UINT32_MAX);
    int rc = WX_OK;
    uint32_t local = UINT32_MAX;
    for (uint32_t p = 0; p < g->nprocs && local == UINT32_MAX; p++)
        for (uint32_t x = proc_off(g, p, 0); x < proc_off(g, p, g->nstates[p]); x++)
            if (!(g->trans[x] & 1u)) {
                local = strtab_intern(labels, "local", 5);
                break;
            }
    for (uint32_t a = 0; a < L; a++) {
        char name[24];
        int len = snprintf(name, sizeof name, "L%u", a);
        lab[a] = strtab_intern(labels, name, (size_t)len);
        if (lab[a] == UINT32_MAX) {
            rc = rd_oom(r);
            goto out;
        }
    }
    uint32_t ab = g->bits_act;
    for (uint32_t p = 0; p < g->nprocs; p++) {
        struct lts l;
        lts_init(&l, g->nstates[p]);
        uint32_t bs = g->bits_state[p], slots = (31 - ab) / bs, has_local = 0;
        for (uint32_t s = 0; s < g->nstates[p]; s++)
            for (uint32_t x = proc_off(g, p, s); x < proc_off(g, p, s + 1); x++) {
                uint32_t e = g->trans[x];
                uint32_t label = (e & 1u) ? lab[(e >> 1) & ((1u << ab) - 1)] : local;
                has_local |= !(e & 1u);
                for (uint32_t j = 0; j < slots; j++) {
                    uint32_t t = (e >> (1 + ab + j * bs)) & ((1u << bs) - 1);
                    if (t == 0)
                        break;
                    if (lts_add(&l, s, label, t - 1) != 0) {
                        lts_free(&l);
                        rc = rd_oom(r);
                        goto out;
                    }
                }
            }
        char name[24];
        snprintf(name, sizeof name, "p%u", p);
        if (lts_finish(&l) != 0 || network_add_comp(net, &l, name) < 0) {
            lts_free(&l);
            rc = rd_oom(r);
            goto out;
        }
        if (has_local && network_add_rule(net, 1, &p, &local, local) != 0) {
            rc = rd_oom(r);
            goto out;
        }
    }
    uint32_t np = g->nprocs, R = 32 / np, nb = g->nbits_soff;
    uint32_t comps[GPF_MAX_PROCS], labs[GPF_MAX_PROCS];
    for (uint32_t a = 0; a < L; a++) {
        uint64_t word;
        uint32_t lo = packed(g->soff, nb, a, &word), hi = packed(g->soff, nb, a + 1, &word);
        for (uint32_t wi = lo; wi < hi; wi++)
            for (uint32_t j = 0; j < R; j++) {
                uint32_t rule = (uint32_t)((g->sync[wi] >> (j * np)) & ((1ull << np) - 1)), n = 0;
                for (uint32_t p = 0; p < np; p++)
                    if (rule >> p & 1u) {
                        comps[n] = p;
                        labs[n++] = lab[a];
                    }
                if (n > 0 && network_add_rule(net, n, comps, labs, lab[a]) != 0) {
                    rc = rd_oom(r);
                    goto out;
                }
            }
    }
    if (network_normalise(net) != 0)
        rc = rd_oom(r);
out:
    free(lab);
    return rc;
}

int gpf_parse(const char *text, size_t len, const char *name, struct image *out, struct wx_error *err)
{
    struct rd r = {.name = name, .err = err};
    struct gpf g;
    struct network net;
    int have_net = 0;
    memset(&g, 0, sizeof g);
    memset(out, 0, sizeof *out);
    int rc = tokenize(&r, text, len);
    if (rc == WX_OK)
        rc = read_sections(&r, &g);
    if (rc == WX_OK) {
        g.nstates = malloc(g.nprocs * sizeof *g.nstates);
        if (!g.nstates)
            rc = rd_oom(&r);
    }
    for (uint32_t p = 0; rc == WX_OK && p < g.nprocs; p++)
        rc = infer_states(&r, &g, p);
    uint32_t L = 0;
    if (rc == WX_OK)
        rc = check_entries(&r, &g, &L);
    if (rc == WX_OK)
        rc = check_rules(&r, &g, L);
    if (rc == WX_OK) {
        rc = build_network(&r, &g, L, &net);
        have_net = 1;
    }
    if (rc == WX_OK) {
        rc = image_compile(&net, out, err);
        if (rc != WX_OK && err->file[0] == '\0')
            snprintf(err->file, sizeof err->file, "%s", name);
    }
    if (have_net)
        network_free(&net);
    gpf_free(&g);
    free(r.val), free(r.col);
    return rc;
}

int gpf_read(const char *path, struct image *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    int rc = wx_input_read_path(path, WX_INPUT_TEXT, -1, &buf, &len, err);
    if (rc != WX_OK)
        return rc;
    rc = gpf_parse(buf, len, path, out, err);
    free(buf);
    return rc;
}
