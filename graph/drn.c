/*
 * drn.c -- Storm .drn reader (format and errors: drn.h).  One pass over the
 * lines with graph/'s scanner; the CSR arrays grow as states, actions and
 * transitions arrive, which the format orders state by state.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drn.h"
#include "scan_int.h"
#include "../util/arith.h"

struct drn {
    struct scan s;
    struct mdp *m;
    struct mdp_labels *l;
    struct mdp_reward_models *rm; /* n_reward_models structures once @model is read */
    double *rw;                   /* one line's rewards, n_reward_models */
    uint64_t cap_c, cap_e, cap_r;
    int n_reward_models;
    int open;           /* a choice is open */
    double sum;
    uint64_t choice_line;
    uint64_t cur_state; /* the state being read, UINT64_MAX before the first */
};

static int oom(struct drn *d)
{
    return wx_fail(d->s.err, WX_ELIMIT, d->s.name, 0, 0, "out of memory");
}

/* A token: up to a blank or end of line. */
static const char *token(struct scan *s, size_t *len)
{
    scan_skip_blanks(s);
    const char *t = s->c;
    while (s->c < s->le && *s->c != ' ' && *s->c != '\t')
        s->c++;
    *len = (size_t)(s->c - t);
    return t;
}

static int tok_is(const char *t, size_t len, const char *w)
{
    return len == strlen(w) && !memcmp(t, w, len);
}

/* A double from [t, t+len), finite. */
static int parse_double(struct drn *d, const char *t, size_t len, double *v, const char *what)
{
    char buf[64], *end;
    if (len == 0 || len >= sizeof buf)
        return scan_fail_at(&d->s, t, WX_EINPUT, what);
    memcpy(buf, t, len);
    buf[len] = 0;
    errno = 0;
    *v = strtod(buf, &end);
    if (*end || !isfinite(*v))
        return scan_fail_at(&d->s, t, WX_EINPUT, what);
    return WX_OK;
}

/* "[r1, r2, ...]" at the cursor (after blanks), if present: the values
 * into d->rw (all 0 when there is none). */
static int read_rewards(struct drn *d, int *present)
{
    struct scan *s = &d->s;
    for (int j = 0; j < d->n_reward_models; j++)
        d->rw[j] = 0;
    *present = 0;
    scan_skip_blanks(s);
    if (s->c >= s->le || *s->c != '[')
        return WX_OK;
    const char *open = s->c++;
    int k = 0;
    for (;;) {
        scan_skip_blanks(s);
        const char *t = s->c;
        while (s->c < s->le && *s->c != ',' && *s->c != ']' && *s->c != ' ' && *s->c != '\t')
            s->c++;
        double v;
        int rc = parse_double(d, t, (size_t)(s->c - t), &v, "a reward");
        if (rc != WX_OK)
            return rc;
        if (v < 0)
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, t),
                           "negative reward");
        if (k < d->n_reward_models)
            d->rw[k] = v;
        k++;
        scan_skip_blanks(s);
        if (s->c < s->le && *s->c == ',') {
            s->c++;
            continue;
        }
        if (s->c < s->le && *s->c == ']') {
            s->c++;
            break;
        }
        return scan_fail_here(s, WX_EINPUT, "',' or ']' in the reward list");
    }
    if (k != d->n_reward_models)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, open),
                       "%d rewards where @reward_models declares %d", k, d->n_reward_models);
    *present = 1;
    return WX_OK;
}

static int close_choice(struct drn *d)
{
    if (!d->open)
        return WX_OK;
    d->open = 0;
    uint64_t c = d->m->n_choices - 1;
    if (d->m->choice_start[c] == d->m->n_entries)
        return wx_fail(d->s.err, WX_EINPUT, d->s.name, (int)d->choice_line, 1,
                       "an action without transitions");
    if (fabs(d->sum - 1.0) > MDP_SUM_TOLERANCE)
        return wx_fail(d->s.err, WX_EINPUT, d->s.name, (int)d->choice_line, 1,
                       "the probabilities of this action sum to %.17g, not 1", d->sum);
    d->m->choice_start[d->m->n_choices] = d->m->n_entries;
    return WX_OK;
}

static int read_state_line(struct drn *d)
{
    struct scan *s = &d->s;
    struct mdp *m = d->m;
    int rc;
    if ((rc = close_choice(d)) != WX_OK)
        return rc;
    uint64_t id;
    const char *at;
    scan_skip_blanks(s);
    at = s->c;
    if ((rc = scan_read_u64(s, &id, "a state id")) != WX_OK)
        return rc;
    uint64_t want = d->cur_state == UINT64_MAX ? 0 : d->cur_state + 1;
    if (id != want)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                       "state %llu where state %llu was expected: states are listed 0, 1, ...",
                       (unsigned long long)id, (unsigned long long)want);
    if (id >= m->n_states)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                       "state %llu out of range: @nr_states is %llu", (unsigned long long)id,
                       (unsigned long long)m->n_states);
    /* states before this one are complete */
    m->state_start[id] = m->n_choices;
    d->cur_state = id;
    scan_skip_blanks(s);
    if (s->c < s->le && (*s->c == '{' || *s->c == '!'))
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, s->c),
                       "observations and exit rates (POMDPs, CTMCs, MAs) are not supported");
    int present;
    if ((rc = read_rewards(d, &present)) != WX_OK)
        return rc;
    for (int j = 0; present && j < d->n_reward_models; j++)
        d->rm->models[j].state[id] = d->rw[j];
    while (!scan_at_eol(s)) {
        size_t len;
        const char *t = token(s, &len);
        if (len >= 2 && t[0] == '"' && t[len - 1] == '"')
            t++, len -= 2;
        if (len == 0 || len > 500)
            return scan_fail_at(s, t, WX_EINPUT, "a label");
        char name[512];
        memcpy(name, t, len);
        name[len] = 0;
        int lid = mdp_labels_find(d->l, name);
        if (lid < 0 && (lid = mdp_labels_add(d->l, name)) < 0)
            return oom(d);
        mdp_labels_set(d->l, lid, id);
    }
    return WX_OK;
}

static int read_action_line(struct drn *d)
{
    struct scan *s = &d->s;
    struct mdp *m = d->m;
    int rc;
    if (d->cur_state == UINT64_MAX)
        return scan_fail_here(s, WX_EINPUT, "'state' before the first action");
    if ((rc = close_choice(d)) != WX_OK)
        return rc;
    if (m->is_dtmc && m->n_choices > m->state_start[d->cur_state])
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, s->ls),
                       "a second action of state %llu in a DTMC",
                       (unsigned long long)d->cur_state);
    size_t len;
    token(s, &len); /* the action's name: not kept */
    if (len == 0)
        return scan_fail_here(s, WX_EINPUT, "the action's name or number");
    if (wx_reserve((void **)&m->choice_start, &d->cap_c, m->n_choices + 2, sizeof *m->choice_start, 1024))
        return oom(d);
    if (d->n_reward_models && m->n_choices + 1 > d->cap_r) {
        uint64_t cap = d->cap_r;
        for (int j = 0; j < d->n_reward_models; j++) {
            cap = d->cap_r;
            if (wx_reserve((void **)&d->rm->models[j].choice, &cap, m->n_choices + 1,
                           sizeof(double), 1024))
                return oom(d);
        }
        d->cap_r = cap;
    }
    int present;
    if ((rc = read_rewards(d, &present)) != WX_OK)
        return rc;
    for (int j = 0; j < d->n_reward_models; j++)
        d->rm->models[j].choice[m->n_choices] = d->rw[j];
    /* choice labels: read past */
    m->choice_start[m->n_choices] = m->n_entries;
    m->n_choices++;
    d->open = 1;
    d->sum = 0;
    d->choice_line = s->line;
    return WX_OK;
}

static int read_transition_line(struct drn *d)
{
    struct scan *s = &d->s;
    struct mdp *m = d->m;
    int rc;
    if (!d->open)
        return scan_fail_here(s, WX_EINPUT, "'state' or 'action' (a transition needs an action)");
    uint64_t dst;
    const char *at = s->c;
    if ((rc = scan_read_u64(s, &dst, "a target state (DST : PROB)")) != WX_OK)
        return rc;
    if (dst >= m->n_states)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, at),
                       "state %llu out of range: @nr_states is %llu", (unsigned long long)dst,
                       (unsigned long long)m->n_states);
    size_t len;
    const char *t = token(s, &len);
    if (!tok_is(t, len, ":"))
        return scan_fail_at(s, t, WX_EINPUT, "':' between the target and the probability");
    t = token(s, &len);
    double p;
    if ((rc = parse_double(d, t, len, &p, "a probability")) != WX_OK)
        return rc;
    if (!(p > 0 && p <= 1))
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, t),
                       "probability %.*s is not in (0, 1]", (int)len, t);
    if (!scan_at_eol(s))
        return scan_fail_here(s, WX_EINPUT, "the end of the line");
    if (wx_reserve((void **)&m->targets, &d->cap_e, m->n_entries + 1, sizeof *m->targets, 1024))
        return oom(d);
    uint64_t cap = d->cap_e;
    void *np = realloc(m->probs, (size_t)cap * sizeof *m->probs);
    if (!np)
        return oom(d);
    m->probs = np;
    m->targets[m->n_entries] = (uint32_t)dst;
    m->probs[m->n_entries++] = p;
    d->sum += p;
    return WX_OK;
}

/* Where a section's number was read, for the errors found later. */
struct value_loc {
    int line, col;
};

/* The line after a section keyword; *at is where its number stands. */
static int section_value(struct drn *d, const char *sec, uint64_t *v, struct value_loc *at)
{
    struct scan *s = &d->s;
    if (!scan_next_content_line(s, "/"))
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s) + 1, 1,
                       "expected a number after %s, found the end of the file", sec);
    at->line = scan_line(s);
    at->col = scan_col(s, s->c);
    int rc = scan_read_u64(s, v, "a number");
    if (rc == WX_OK && !scan_at_eol(s))
        return scan_fail_here(s, WX_EINPUT, "the end of the line");
    return rc;
}

static int read_drn(struct drn *d)
{
    struct scan *s = &d->s;
    struct mdp *m = d->m;
    int rc, type = -1, have_states = 0;
    uint64_t n = 0, nc = 0;
    int have_choices = 0;
    struct value_loc n_at = {0, 0}, nc_at = {0, 0};
    /* header */
    for (;;) {
        if (!scan_next_content_line(s, "/"))
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s) + 1, 1,
                           "expected @model, found the end of the file");
        size_t len;
        const char *t = token(s, &len);
        if (tok_is(t, len, "@type:")) {
            const char *v = token(s, &len);
            if (tok_is(v, len, "DTMC"))
                type = 0;
            else if (tok_is(v, len, "MDP"))
                type = 1;
            else
                return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, v),
                               "model type '%.*s' is not supported (DTMC or MDP)", (int)len, v);
            if (!scan_at_eol(s))
                return scan_fail_here(s, WX_EINPUT, "the end of the line");
        } else if (tok_is(t, len, "@value_type:")) {
            const char *v = token(s, &len);
            if (!tok_is(v, len, "double"))
                return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, v),
                               "value type '%.*s' is not supported (double)", (int)len, v);
        } else if (tok_is(t, len, "@parameters")) {
            /* the next line names the parameters: it must be empty, so the
             * next content line is already the next section */
            continue;
        } else if (tok_is(t, len, "@placeholders")) {
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, t),
                           "placeholders (parametric models) are not supported");
        } else if (tok_is(t, len, "@reward_models")) {
            /* the next line: names, possibly none (then it is blank or the
             * next section) */
            const char *save_p = s->p;
            const char *save_ls = s->ls, *save_le = s->le, *save_c = s->c;
            uint64_t save_line = s->line;
            if (scan_next_line(s)) {
                scan_skip_blanks(s);
                if (s->c < s->le && *s->c == '@') { /* no names: step back */
                    s->p = save_p, s->ls = save_ls, s->le = save_le, s->c = save_c;
                    s->line = save_line;
                } else {
                    while (!scan_at_eol(s)) {
                        const char *nm = token(s, &len);
                        if (len >= 2 && nm[0] == '"' && nm[len - 1] == '"')
                            nm++, len -= 2;
                        int j = mdp_reward_models_add(d->rm);
                        if (j < 0 || !(d->rm->models[j].name = strndup(nm, len)))
                            return oom(d);
                        d->n_reward_models++;
                    }
                }
            }
        } else if (tok_is(t, len, "@nr_states")) {
            if ((rc = section_value(d, "@nr_states", &n, &n_at)) != WX_OK)
                return rc;
            if (n > UINT32_MAX)
                return wx_fail(s->err, WX_ELIMIT, s->name, n_at.line, n_at.col,
                               "%llu states: MDPs have at most 2^32 - 1 states",
                               (unsigned long long)n);
            /* validation before allocation: every state has its line
             * "state N" (8 bytes at least) after this one */
            uint64_t rest = (uint64_t)(s->end - s->p);
            if (n > (rest + 1) / 8)
                return wx_fail(s->err, WX_EINPUT, s->name, n_at.line, n_at.col,
                               "@nr_states declares %llu states, but the %llu bytes after it "
                               "hold at most %llu 'state' lines (8 bytes at least each)",
                               (unsigned long long)n, (unsigned long long)rest,
                               (unsigned long long)((rest + 1) / 8));
            have_states = 1;
        } else if (tok_is(t, len, "@nr_choices")) {
            if ((rc = section_value(d, "@nr_choices", &nc, &nc_at)) != WX_OK)
                return rc;
            have_choices = 1;
        } else if (tok_is(t, len, "@model")) {
            break;
        } else if (len && t[0] == '@') {
            return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, t),
                           "unknown section '%.*s'", (int)len, t);
        } else {
            return scan_fail_at(s, t, WX_EINPUT, "a section (@type:, @nr_states, ..., @model)");
        }
    }
    if (type < 0 || !have_states)
        return wx_fail(s->err, WX_EINPUT, s->name, scan_line(s), scan_col(s, s->ls),
                       "@type and @nr_states must come before @model");
    m->is_dtmc = type == 0;
    m->n_states = n;
    m->state_start = calloc((size_t)n + 1, sizeof *m->state_start);
    m->choice_start = calloc(1, sizeof *m->choice_start);
    d->cap_c = 1;
    if (!m->state_start || !m->choice_start)
        return oom(d);
    if (d->n_reward_models) {
        if (!(d->rw = calloc((size_t)d->n_reward_models, sizeof *d->rw)))
            return oom(d);
        for (int j = 0; j < d->n_reward_models; j++) {
            struct mdp_rewards *r = &d->rm->models[j];
            r->state = calloc((size_t)n + 1, sizeof(double));
            r->choice = calloc(1024, sizeof(double));
            if (!r->state || !r->choice)
                return oom(d);
        }
        d->cap_r = 1024;
    }
    mdp_labels_init(d->l, n);
    d->cur_state = UINT64_MAX;
    while (scan_next_content_line(s, "/")) {
        size_t len;
        const char *save = s->c;
        const char *t = token(s, &len);
        if (tok_is(t, len, "state"))
            rc = read_state_line(d);
        else if (tok_is(t, len, "action"))
            rc = read_action_line(d);
        else {
            s->c = save;
            rc = read_transition_line(d);
        }
        if (rc != WX_OK)
            return rc;
    }
    if ((rc = close_choice(d)) != WX_OK)
        return rc;
    uint64_t seen = d->cur_state == UINT64_MAX ? 0 : d->cur_state + 1;
    if (seen != n)
        return wx_fail(s->err, WX_EINPUT, s->name, n_at.line, n_at.col,
                       "@nr_states declares %llu states, the model lists %llu",
                       (unsigned long long)n, (unsigned long long)seen);
    /* state_start of states with no action, and the end */
    m->state_start[n] = m->n_choices;
    for (uint64_t i = n; i-- > 1;)
        if (m->state_start[i] > m->state_start[i + 1])
            m->state_start[i] = m->state_start[i + 1];
    if (have_choices && nc != m->n_choices)
        return wx_fail(s->err, WX_EINPUT, s->name, nc_at.line, nc_at.col,
                       "@nr_choices declares %llu choices, the model has %llu",
                       (unsigned long long)nc, (unsigned long long)m->n_choices);
    return WX_OK;
}

int drn_read_models_buffer(const char *data, size_t len, const char *name, struct mdp *m,
                           struct mdp_labels *labels, struct mdp_reward_models *rewards,
                           struct wx_error *err)
{
    memset(m, 0, sizeof *m);
    memset(rewards, 0, sizeof *rewards);
    mdp_labels_init(labels, 0);
    struct drn d = {.s = {.name = name, .p = data, .end = data + len, .err = err},
                    .m = m, .l = labels, .rm = rewards};
    int rc = read_drn(&d);
    free(d.rw);
    if (rc != WX_OK) {
        mdp_free(m);
        mdp_labels_free(labels);
        mdp_reward_models_free(rewards);
    }
    return rc;
}

int drn_read_models(const char *path, struct mdp *m, struct mdp_labels *labels,
                    struct mdp_reward_models *rewards, struct wx_error *err)
{
    memset(m, 0, sizeof *m);
    memset(rewards, 0, sizeof *rewards);
    mdp_labels_init(labels, 0);
    char *buf;
    size_t n;
    int rc = scan_slurp(path, &buf, &n, err);
    if (rc != WX_OK)
        return rc;
    rc = drn_read_models_buffer(buf, n, path, m, labels, rewards, err);
    free(buf);
    return rc;
}

/* The first structure into *first; the others are freed. */
static void keep_first(struct mdp_reward_models *rm, struct mdp_rewards *first)
{
    memset(first, 0, sizeof *first);
    if (rm->n) {
        *first = rm->models[0];
        memset(&rm->models[0], 0, sizeof rm->models[0]);
    }
    mdp_reward_models_free(rm);
}

int drn_read_buffer(const char *data, size_t len, const char *name, struct mdp *m,
                    struct mdp_labels *labels, struct mdp_rewards *rewards, struct wx_error *err)
{
    struct mdp_reward_models rm;
    int rc = drn_read_models_buffer(data, len, name, m, labels, &rm, err);
    keep_first(&rm, rewards);
    return rc;
}

int drn_read(const char *path, struct mdp *m, struct mdp_labels *labels,
             struct mdp_rewards *rewards, struct wx_error *err)
{
    struct mdp_reward_models rm;
    int rc = drn_read_models(path, m, labels, &rm, err);
    keep_first(&rm, rewards);
    return rc;
}
