/*
 * mdp_lab.c -- labels (.lab) and rewards (.srew, .trew) of an MDP; formats
 * and errors in mdp_lab.h.  The readers use graph/'s line scanner.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdp_lab.h"
#include "scan_int.h"

/* ---- label sets ---- */

void mdp_labels_init(struct mdp_labels *l, uint64_t n_states)
{
    memset(l, 0, sizeof *l);
    l->n_states = n_states;
    l->words = (n_states + 63) / 64;
}

int mdp_labels_add(struct mdp_labels *l, const char *name)
{
    char **nn = realloc(l->names, (l->n_labels + 1) * sizeof *nn);
    if (!nn)
        return -1;
    l->names = nn;
    size_t w = (size_t)l->words;
    uint64_t *nb = realloc(l->bits, (l->n_labels + 1) * (w ? w : 1) * sizeof *nb);
    if (!nb)
        return -1;
    l->bits = nb;
    memset(nb + (size_t)l->n_labels * w, 0, w * sizeof *nb);
    if (!(nn[l->n_labels] = strdup(name)))
        return -1;
    return (int)l->n_labels++;
}

int mdp_labels_find(const struct mdp_labels *l, const char *name)
{
    for (uint32_t i = 0; i < l->n_labels; i++)
        if (!strcmp(l->names[i], name))
            return (int)i;
    return -1;
}

void mdp_labels_free(struct mdp_labels *l)
{
    for (uint32_t i = 0; i < l->n_labels; i++)
        free(l->names[i]);
    free(l->names);
    free(l->bits);
    memset(l, 0, sizeof *l);
}

/* ---- .lab ---- */

/* The declaration line: ID="name" separated by blanks, ids 0, 1, 2, ... */
static int read_declarations(struct scan *s, struct mdp_labels *l)
{
    int rc;
    while (!scan_at_eol(s)) {
        uint64_t id;
        const char *id_at = s->c;
        /* ids end at '=': scan_read_u64 wants a blank, so read by hand */
        if (!isdigit((unsigned char)*s->c))
            return scan_fail_here(s, WX_EINPUT, "a label id (ID=\"name\")");
        id = 0;
        while (s->c < s->le && isdigit((unsigned char)*s->c) && id < 1000000000)
            id = id * 10 + (uint64_t)(*s->c++ - '0');
        if (id != l->n_labels)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, id_at),
                           "label id %llu where %u was expected: ids are 0, 1, 2, ... in order",
                           (unsigned long long)id, l->n_labels);
        if (s->c >= s->le || *s->c != '=')
            return scan_fail_here(s, WX_EINPUT, "'=' after the label id");
        s->c++;
        if (s->c >= s->le || *s->c != '"')
            return scan_fail_here(s, WX_EINPUT, "'\"' opening the label name");
        const char *name = ++s->c;
        while (s->c < s->le && *s->c != '"') {
            if ((unsigned char)*s->c < 0x20)
                return scan_fail_here(s, WX_EINPUT, "a label name character");
            s->c++;
        }
        if (s->c >= s->le)
            return scan_fail_here(s, WX_EINPUT, "'\"' closing the label name");
        char buf[512];
        size_t len = (size_t)(s->c - name);
        if (len == 0 || len >= sizeof buf)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, name),
                           "label names have 1 to %zu characters", sizeof buf - 1);
        memcpy(buf, name, len);
        buf[len] = 0;
        s->c++;
        if (s->c < s->le && *s->c != ' ' && *s->c != '\t')
            return scan_fail_here(s, WX_EINPUT, "a blank after the label name");
        if (mdp_labels_find(l, buf) >= 0)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, name),
                           "label \"%s\" declared twice", buf);
        if ((rc = mdp_labels_add(l, buf)) < 0)
            return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0, "out of memory");
    }
    return WX_OK;
}

static int read_lab(struct scan *s, struct mdp_labels *l)
{
    int rc;
    if (!scan_next_content_line(s, "#"))
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s) + 1, 1,
                       "expected the label declarations (0=\"init\" 1=\"deadlock\" ...), "
                       "found the end of the file");
    if ((rc = read_declarations(s, l)) != WX_OK)
        return rc;
    int64_t last = -1;
    while (scan_next_content_line(s, "#")) {
        const char *st_at = s->c;
        uint64_t st = 0;
        if (!isdigit((unsigned char)*s->c))
            return scan_fail_here(s, WX_EINPUT, "a state number (STATE: ID ...)");
        while (s->c < s->le && isdigit((unsigned char)*s->c)) {
            if (st > UINT32_MAX)
                break;
            st = st * 10 + (uint64_t)(*s->c++ - '0');
        }
        if (st >= l->n_states)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, st_at),
                           "state %llu out of range: the model has %llu states",
                           (unsigned long long)st, (unsigned long long)l->n_states);
        if ((int64_t)st <= last)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, st_at),
                           "state %llu after state %lld: states must be strictly increasing",
                           (unsigned long long)st, (long long)last);
        last = (int64_t)st;
        if (s->c >= s->le || *s->c != ':')
            return scan_fail_here(s, WX_EINPUT, "':' after the state number");
        s->c++;
        while (!scan_at_eol(s)) {
            uint64_t id;
            const char *id_at = s->c;
            if ((rc = scan_read_u64(s, &id, "a label id")) != WX_OK)
                return rc;
            if (id >= l->n_labels)
                return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, id_at),
                               "label id %llu is not declared (%u labels)",
                               (unsigned long long)id, l->n_labels);
            mdp_labels_set(l, (int)id, st);
        }
    }
    return WX_OK;
}

int mdp_labels_read_buffer(const char *data, size_t len, const char *name, uint64_t n_states,
                           struct mdp_labels *out, struct wx_error *err)
{
    mdp_labels_init(out, n_states);
    struct scan s = {.name = name, .p = data, .end = data + len, .err = err};
    int rc = read_lab(&s, out);
    if (rc != WX_OK) {
        mdp_labels_free(out);
        mdp_labels_init(out, n_states);
    }
    return rc;
}

int mdp_labels_read(const char *path, uint64_t n_states, struct mdp_labels *out,
                    struct wx_error *err)
{
    mdp_labels_init(out, n_states);
    struct scan_file f;
    int rc = scan_map(path, &f, err);
    if (rc != WX_OK)
        return rc;
    rc = mdp_labels_read_buffer(f.data, f.len, path, n_states, out, err);
    scan_unmap(&f);
    return rc;
}

/* ---- rewards ---- */

/* A reward: a finite decimal >= 0, ending at a blank or the end of line. */
static int read_reward(struct scan *s, double *r)
{
    char num[64], *endp;
    const char *tok;
    if (scan_token(s, num, sizeof num, &tok, "a reward"))
        return WX_EINPUT;
    errno = 0;
    double x = strtod(num, &endp);
    if (*endp || !isfinite(x))
        return scan_fail_at(s, tok, WX_EINPUT, "a reward (a finite decimal)");
    if (x < 0)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, tok),
                       "reward %s is negative", num);
    *r = x;
    return WX_OK;
}

/* The header: 2 or 3 numbers; *nh how many. */
static int read_header(struct scan *s, uint64_t h[3], int *nh, const char *what)
{
    int rc;
    if (!scan_next_content_line(s, "#"))
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s) + 1, 1,
                       "expected the header (%s), found the end of the file", what);
    *nh = 0;
    while (!scan_at_eol(s)) {
        if (*nh == 3)
            return scan_fail_here(s, WX_EINPUT, "the end of the header line");
        if ((rc = scan_read_u64(s, &h[*nh], what)) != WX_OK)
            return rc;
        (*nh)++;
    }
    return WX_OK;
}

static int check_states(struct scan *s, uint64_t got, const struct mdp *m)
{
    if (got != m->n_states)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), 1,
                       "the header declares %llu states, the model has %llu",
                       (unsigned long long)got, (unsigned long long)m->n_states);
    return WX_OK;
}

static int read_srew(struct scan *s, const struct mdp *m, double *out)
{
    uint64_t h[3];
    int nh, rc;
    if ((rc = read_header(s, h, &nh, "'STATES N'")) != WX_OK)
        return rc;
    if (nh != 2)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), 1,
                       "expected the header 'STATES N' (2 numbers), found %d numbers", nh);
    if ((rc = check_states(s, h[0], m)) != WX_OK)
        return rc;
    uint64_t seen = 0, hl = s->line;
    int64_t last = -1;
    while (scan_next_content_line(s, "#")) {
        uint64_t st;
        double r;
        const char *at = s->c;
        if (seen == h[1])
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), 1,
                           "more lines than the %llu the header declares",
                           (unsigned long long)h[1]);
        if ((rc = scan_read_u64(s, &st, "a state")) != WX_OK)
            return rc;
        if (st >= m->n_states)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                           "state %llu out of range: the model has %llu states",
                           (unsigned long long)st, (unsigned long long)m->n_states);
        if ((int64_t)st <= last)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                           "state %llu after state %lld: states must be strictly increasing",
                           (unsigned long long)st, (long long)last);
        last = (int64_t)st;
        if ((rc = read_reward(s, &r)) != WX_OK)
            return rc;
        if (!scan_at_eol(s))
            return scan_fail_here(s, WX_EINPUT, "the end of the line");
        out[st] = r;
        seen++;
    }
    if (seen != h[1])
        return wx_fail(s->err, WX_EINPUT, s->name, hl > INT32_MAX ? INT32_MAX : (int)hl, 1,
                       "the header declares %llu lines, the file has %llu",
                       (unsigned long long)h[1], (unsigned long long)seen);
    return WX_OK;
}

static int read_trew(struct scan *s, const struct mdp *m, double *out)
{
    uint64_t h[3];
    int nh, rc;
    if ((rc = read_header(s, h, &nh, "'STATES CHOICES N' or 'STATES N'")) != WX_OK)
        return rc;
    if (nh < 2)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), 1,
                       "expected the header 'STATES CHOICES N' (MDP) or 'STATES N' (DTMC)");
    if ((rc = check_states(s, h[0], m)) != WX_OK)
        return rc;
    int dtmc = nh == 2;
    if (!dtmc && h[1] != m->n_choices)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), 1,
                       "the header declares %llu choices, the model has %llu",
                       (unsigned long long)h[1], (unsigned long long)m->n_choices);
    uint64_t n_lines = h[nh - 1], seen = 0, hl = s->line;
    while (scan_next_content_line(s, "#")) {
        uint64_t src, local = 0, dst;
        double r;
        const char *src_at = s->c, *ch_at = NULL, *dst_at;
        if (seen == n_lines)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), 1,
                           "more lines than the %llu the header declares",
                           (unsigned long long)n_lines);
        if ((rc = scan_read_u64(s, &src, "a source state")) != WX_OK)
            return rc;
        if (src >= m->n_states)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, src_at),
                           "state %llu out of range: the model has %llu states",
                           (unsigned long long)src, (unsigned long long)m->n_states);
        if (!dtmc) {
            scan_skip_blanks(s);
            ch_at = s->c;
            if ((rc = scan_read_u64(s, &local, "a choice index")) != WX_OK)
                return rc;
        }
        scan_skip_blanks(s);
        dst_at = s->c;
        if ((rc = scan_read_u64(s, &dst, "a target state")) != WX_OK)
            return rc;
        if ((rc = read_reward(s, &r)) != WX_OK)
            return rc;
        if (!scan_at_eol(s))
            return scan_fail_here(s, WX_EINPUT, "the end of the line");
        uint64_t k = m->state_start[src + 1] - m->state_start[src];
        if (local >= k)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s),
                           scan_col(s, ch_at ? ch_at : src_at),
                           "state %llu has no choice %llu (it has %llu)",
                           (unsigned long long)src, (unsigned long long)local,
                           (unsigned long long)k);
        uint64_t c = m->state_start[src] + local, e;
        for (e = m->choice_start[c]; e < m->choice_start[c + 1]; e++)
            if (m->targets[e] == dst)
                break;
        if (e == m->choice_start[c + 1])
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, dst_at),
                           "no transition %llu -> %llu in choice %llu of state %llu",
                           (unsigned long long)src, (unsigned long long)dst,
                           (unsigned long long)local, (unsigned long long)src);
        out[c] += m->probs[e] * r;
        seen++;
    }
    if (seen != n_lines)
        return wx_fail(s->err, WX_EINPUT, s->name, hl > INT32_MAX ? INT32_MAX : (int)hl, 1,
                       "the header declares %llu lines, the file has %llu",
                       (unsigned long long)n_lines, (unsigned long long)seen);
    return WX_OK;
}

/* PRISM (4.7 and later) names the reward structure in a leading comment:
 * '# Reward structure "NAME"'.  Sets *out to the name (malloc'ed), or NULL
 * when the file has no such line; a name with a control byte is refused, as
 * it would reach the terminal and the JSON output. */
static int reward_structure_name(const char *data, size_t len, const char *file, char **out,
                                 struct wx_error *err)
{
    static const char key[] = "# Reward structure \"";
    const char *p = data, *end = data + len;
    int line = 1;
    *out = NULL;
    for (; p < end && *p == '#'; line++) {
        const char *le = memchr(p, '\n', (size_t)(end - p));
        if (!le)
            le = end;
        size_t n = sizeof key - 1;
        if ((size_t)(le - p) > n && !memcmp(p, key, n)) {
            const char *b = p + n, *q = le;
            while (q > b && q[-1] != '"')
                q--;
            if (q > b + 1) {
                for (const char *c = b; c < q - 1; c++)
                    if ((unsigned char)*c < 0x20 || *c == 0x7f)
                        return wx_fail(err, WX_EINPUT, file, line, (int)(c - p) + 1,
                                       "control byte 0x%02x in the reward structure name",
                                       (unsigned char)*c);
                if (!(*out = strndup(b, (size_t)(q - 1 - b))))
                    return wx_fail(err, WX_ELIMIT, file, 0, 0, "out of memory");
                return WX_OK;
            }
        }
        p = le < end ? le + 1 : end;
    }
    return WX_OK;
}

/* After a successful read: the file's structure name, if it has one,
 * replaces r->name. */
static void take_name(struct mdp_rewards *r, char *title)
{
    if (title) {
        free(r->name);
        r->name = title;
    }
}

int mdp_srew_read_buffer(const char *data, size_t len, const char *name, const struct mdp *m,
                         struct mdp_rewards *r, struct wx_error *err)
{
    char *title;
    int rc = reward_structure_name(data, len, name, &title, err);
    if (rc != WX_OK)
        return rc;
    double *v = calloc(m->n_states ? m->n_states : 1, sizeof *v);
    if (!v) {
        free(title);
        return wx_fail(err, WX_ELIMIT, name, 0, 0, "out of memory");
    }
    struct scan s = {.name = name, .p = data, .end = data + len, .err = err};
    rc = read_srew(&s, m, v);
    if (rc != WX_OK) {
        free(v);
        free(title);
        return rc;
    }
    free(r->state);
    r->state = v;
    take_name(r, title);
    return WX_OK;
}

int mdp_trew_read_buffer(const char *data, size_t len, const char *name, const struct mdp *m,
                         struct mdp_rewards *r, struct wx_error *err)
{
    char *title;
    int rc = reward_structure_name(data, len, name, &title, err);
    if (rc != WX_OK)
        return rc;
    double *v = calloc(m->n_choices ? m->n_choices : 1, sizeof *v);
    if (!v) {
        free(title);
        return wx_fail(err, WX_ELIMIT, name, 0, 0, "out of memory");
    }
    struct scan s = {.name = name, .p = data, .end = data + len, .err = err};
    rc = read_trew(&s, m, v);
    if (rc != WX_OK) {
        free(v);
        free(title);
        return rc;
    }
    free(r->choice);
    r->choice = v;
    take_name(r, title);
    return WX_OK;
}

typedef int (*buffer_reader)(const char *, size_t, const char *, const struct mdp *,
                             struct mdp_rewards *, struct wx_error *);

static int read_file(const char *path, const struct mdp *m, struct mdp_rewards *r,
                     struct wx_error *err, buffer_reader fn)
{
    struct scan_file f;
    int rc = scan_map(path, &f, err);
    if (rc != WX_OK)
        return rc;
    rc = fn(f.data, f.len, path, m, r, err);
    scan_unmap(&f);
    return rc;
}

int mdp_srew_read(const char *path, const struct mdp *m, struct mdp_rewards *r,
                  struct wx_error *err)
{
    return read_file(path, m, r, err, mdp_srew_read_buffer);
}

int mdp_trew_read(const char *path, const struct mdp *m, struct mdp_rewards *r,
                  struct wx_error *err)
{
    return read_file(path, m, r, err, mdp_trew_read_buffer);
}

void mdp_rewards_free(struct mdp_rewards *r)
{
    free(r->state);
    free(r->choice);
    free(r->name);
    r->state = r->choice = NULL;
    r->name = NULL;
}

int mdp_reward_models_add(struct mdp_reward_models *rm)
{
    struct mdp_rewards *n = realloc(rm->models, (rm->n + 1) * sizeof *n);
    if (!n)
        return -1;
    rm->models = n;
    memset(&n[rm->n], 0, sizeof *n);
    return (int)rm->n++;
}

int mdp_reward_models_find(const struct mdp_reward_models *rm, const char *name)
{
    for (size_t i = 0; i < rm->n; i++)
        if (rm->models[i].name && !strcmp(rm->models[i].name, name))
            return (int)i;
    return -1;
}

void mdp_reward_models_free(struct mdp_reward_models *rm)
{
    for (size_t i = 0; i < rm->n; i++)
        mdp_rewards_free(&rm->models[i]);
    free(rm->models);
    rm->models = NULL;
    rm->n = 0;
}

/* ---- .sta ---- */

static int read_sta(struct scan *s, struct mdp_sta *st, size_t len)
{
    if (!scan_next_content_line(s, "#"))
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s) + 1, 1,
                       "expected the variable line '(v1,...)', found the end of the file");
    if (*s->c != '(' || s->le[-1] != ')')
        return scan_fail_here(s, WX_EINPUT, "the variable line '(v1,...)'");
    if (!(st->variables = strndup(s->c, (size_t)(s->le - s->c))))
        return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0, "out of memory");
    st->text = malloc(len + 1);
    st->offset = malloc((st->n_states ? st->n_states : 1) * sizeof *st->offset);
    if (!st->text || !st->offset)
        return wx_fail(s->err, WX_ELIMIT, s->name, 0, 0, "out of memory");
    uint64_t next = 0, used = 0;
    while (scan_next_content_line(s, "#")) {
        const char *at = s->c;
        uint64_t idx = 0;
        if (!isdigit((unsigned char)*s->c))
            return scan_fail_here(s, WX_EINPUT, "a state index (INDEX:(VALUES))");
        while (s->c < s->le && isdigit((unsigned char)*s->c) && idx <= UINT32_MAX)
            idx = idx * 10 + (uint64_t)(*s->c++ - '0');
        if (idx != next || idx >= st->n_states)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                           "state %llu where state %llu was expected (%llu states, in order)",
                           (unsigned long long)idx, (unsigned long long)next,
                           (unsigned long long)st->n_states);
        if (s->c >= s->le || *s->c != ':')
            return scan_fail_here(s, WX_EINPUT, "':' after the state index");
        s->c++;
        if (s->c >= s->le || *s->c != '(' || s->le[-1] != ')')
            return scan_fail_here(s, WX_EINPUT, "the valuation '(...)'");
        size_t n = (size_t)(s->le - s->c);
        const char *nul = memchr(s->c, 0, n);
        if (nul)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, nul),
                           "NUL byte (0x00) in the valuation");
        memcpy(st->text + used, s->c, n);
        st->text[used + n] = 0;
        st->offset[next++] = used;
        used += n + 1;
    }
    /* at the end of the file: on the line after a final LF */
    if (next != st->n_states)
        return wx_fail(s->err, WX_EINPUT, s->name,
                       scan_line(s) + (s->p == s->end && s->end > s->ls && s->end[-1] == '\n'), 1,
                       "the file gives %llu states, the model has %llu", (unsigned long long)next,
                       (unsigned long long)st->n_states);
    return WX_OK;
}

int mdp_sta_read_buffer(const char *data, size_t len, const char *name, uint64_t n_states,
                        struct mdp_sta *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    out->n_states = n_states;
    struct scan s = {.name = name, .p = data, .end = data + len, .err = err};
    int rc = read_sta(&s, out, len);
    if (rc != WX_OK)
        mdp_sta_free(out);
    return rc;
}

int mdp_sta_read(const char *path, uint64_t n_states, struct mdp_sta *out, struct wx_error *err)
{
    memset(out, 0, sizeof *out);
    struct scan_file f;
    int rc = scan_map(path, &f, err);
    if (rc != WX_OK)
        return rc;
    rc = mdp_sta_read_buffer(f.data, f.len, path, n_states, out, err);
    scan_unmap(&f);
    return rc;
}

void mdp_sta_free(struct mdp_sta *st)
{
    free(st->variables);
    free(st->text);
    free(st->offset);
    memset(st, 0, sizeof *st);
}
