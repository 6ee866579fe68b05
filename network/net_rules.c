/* net_rules.c -- the context and the rule buffer every transform uses. */
#include "net_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int net_ctx_init(struct net_ctx *ctx, enum exp_lang lang, bool has_header,
                 const char *hidden, bool case_sensitive, struct wx_error *err)
{
    if (lang == EXP_LANG_NONE && has_header)
        lang = EXP_LANG_LOTOS; /* plain "behaviour" header: LOTOS (exp.open) */
    const char *def_hidden = "i", *term = "exit";
    bool fold = false;
    switch (lang) {
    case EXP_LANG_LOTOS: fold = true; break;
    case EXP_LANG_CCS: def_hidden = "t", term = NULL, fold = true; break;
    case EXP_LANG_CSP: def_hidden = "t", term = "delta", fold = true; break;
    case EXP_LANG_MCRL: def_hidden = "tau", term = NULL; break;
    default: break; /* none, E-LOTOS/LNT */
    }
    if (!ctx->labels && !(ctx->labels = strtab_new()))
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "out of memory");
    const char *h = hidden ? hidden : def_hidden;
    ctx->hidden = strtab_intern(ctx->labels, h, strlen(h));
    if (ctx->hidden == UINT32_MAX)
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "out of memory");
    ctx->termination = term;
    ctx->fold = fold && !case_sensitive;
    if (!ctx->max_rules)
        ctx->max_rules = NET_MAX_RULES_DEFAULT;
    return WX_OK;
}

bool net_is_termination(const struct net_ctx *ctx, const char *s, size_t len)
{
    const char *t = ctx->termination;
    if (!t || strlen(t) != len)
        return false;
    return ctx->fold ? strncasecmp(s, t, len) == 0 : memcmp(s, t, len) == 0;
}

void net_discard(struct network *net)
{
    net->labels = NULL; /* the build owns the table */
    network_free(net);
}

void net_discard_all(struct network *ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        net_discard(&ops[i]);
}

/* Does s (after blanks) read "<kw> <number>" up to the end of the label?
 * The number is what strtod reads, or a fraction of two such. */
static bool kw_number(const char *s, const char *kw)
{
    size_t k = strlen(kw);
    s += strspn(s, " \t");
    if (strncmp(s, kw, k) != 0 || (s[k] != ' ' && s[k] != '\t'))
        return false;
    s += k;
    s += strspn(s, " \t");
    char *end;
    strtod(s, &end);
    if (end == s)
        return false;
    if (*end == '/') { /* a probability written as a fraction, p/q */
        const char *q = end + 1;
        strtod(q, &end);
        if (end == q)
            return false;
    }
    end += strspn(end, " \t");
    return *end == '\0';
}

/* "kw N" or "LABEL; kw N" (exp.open -rate / -prob). */
bool net_stochastic_text(const char *s, const char *kw)
{
    if (kw_number(s, kw))
        return true;
    for (const char *p = strchr(s, ';'); p; p = strchr(p + 1, ';'))
        if (kw_number(p + 1, kw))
            return true;
    return false;
}

bool net_is_stochastic(const struct net_ctx *ctx, uint32_t label)
{
    if ((!ctx->rate && !ctx->prob) || label == ctx->hidden)
        return false;
    const char *s = strtab_str(ctx->labels, label);
    return (ctx->rate && net_stochastic_text(s, "rate")) ||
           (ctx->prob && net_stochastic_text(s, "prob"));
}

uint32_t net_intern(struct net_ctx *ctx, const char *s, size_t len)
{
    return strtab_intern(ctx->labels, s, len);
}

int net_move_comps(struct network *to, struct network *from)
{
    for (uint32_t c = 0; c < from->n_comps; c++)
        if (network_add_comp(to, &from->comps[c], from->comp_names[c]) < 0)
            return WX_ESYSTEM;
    return WX_OK;
}

void rule_buf_init(struct rule_buf *b, const struct net_ctx *ctx)
{
    memset(b, 0, sizeof *b);
    b->max_rules = ctx->max_rules ? ctx->max_rules : NET_MAX_RULES_DEFAULT;
}

void rule_buf_free(struct rule_buf *b)
{
    free(b->start), free(b->result), free(b->comp), free(b->label);
    memset(b, 0, sizeof *b);
}

int rule_buf_add(struct rule_buf *b, uint32_t n, const uint32_t *comp,
                 const uint32_t *label, uint32_t result)
{
    if ((uint64_t)b->n_rules + 1 > b->max_rules || b->n_rules == UINT32_MAX - 1)
        return WX_ELIMIT;
    if (b->n_parts + n > UINT32_MAX - 1) /* rule_start entries are 32-bit */
        return WX_ELIMIT;
    if (b->n_rules + 1 >= b->cap_rules) {
        uint64_t cap = b->cap_rules ? 2 * (uint64_t)b->cap_rules : 64;
        if (cap > UINT32_MAX)
            cap = UINT32_MAX;
        uint32_t *s = realloc(b->start, cap * sizeof *s);
        if (!s)
            return WX_ESYSTEM;
        b->start = s;
        uint32_t *r = realloc(b->result, cap * sizeof *r);
        if (!r)
            return WX_ESYSTEM;
        b->result = r;
        b->cap_rules = (uint32_t)cap;
        if (b->n_rules == 0)
            b->start[0] = 0;
    }
    if (b->n_parts + n > b->cap_parts) {
        uint64_t cap = b->cap_parts ? 2 * b->cap_parts : 128;
        while (cap < b->n_parts + n)
            cap *= 2;
        uint32_t *c = realloc(b->comp, cap * sizeof *c);
        if (!c)
            return WX_ESYSTEM;
        b->comp = c;
        uint32_t *l = realloc(b->label, cap * sizeof *l);
        if (!l)
            return WX_ESYSTEM;
        b->label = l;
        b->cap_parts = cap;
    }
    /* insertion sort by component: rules are short, and the callers'
     * participants usually arrive sorted already */
    uint64_t base = b->n_parts;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t j = base + i;
        while (j > base && b->comp[j - 1] > comp[i]) {
            b->comp[j] = b->comp[j - 1];
            b->label[j] = b->label[j - 1];
            j--;
        }
        b->comp[j] = comp[i];
        b->label[j] = label[i];
    }
    b->n_parts += n;
    b->result[b->n_rules] = result;
    b->start[++b->n_rules] = (uint32_t)b->n_parts;
    return WX_OK;
}

int rule_buf_copy(struct rule_buf *b, const struct network *net, uint32_t r,
                  uint32_t offset)
{
    uint32_t s = net->rule_start[r], n = net->rule_start[r + 1] - s;
    uint32_t small[64] = {0}, *comp = n <= 64 ? small : malloc(n * sizeof *comp);
    if (!comp)
        return WX_ESYSTEM;
    for (uint32_t i = 0; i < n; i++)
        comp[i] = net->part_comp[s + i] + offset;
    int rc = rule_buf_add(b, n, comp, net->part_label + s, net->rule_result[r]);
    if (comp != small)
        free(comp);
    return rc;
}

int rule_buf_install(struct rule_buf *b, struct network *net)
{
    if (b->n_rules == 0) { /* keep network.h's "rule_start has n_rules + 1" */
        free(b->start);
        b->start = calloc(1, sizeof *b->start);
        if (!b->start)
            return WX_ESYSTEM;
    }
    free(net->rule_start), free(net->part_comp), free(net->part_label);
    free(net->rule_result);
    net->n_rules = b->n_rules;
    net->rule_start = b->start;
    net->rule_result = b->result;
    net->part_comp = b->comp;
    net->part_label = b->label;
    memset(b, 0, sizeof *b);
    return WX_OK;
}

int rule_buf_fail(int rc, const struct net_ctx *ctx, const struct rule_buf *b,
                  struct exp_loc loc, struct wx_error *err)
{
    if (rc == WX_ELIMIT)
        return wx_fail(err, WX_ELIMIT, ctx->file, loc.line, loc.col,
                       "this operator yields more than %llu synchronisation "
                       "rules (or 2^32 participants); the network is too large "
                       "to flatten",
                       (unsigned long long)b->max_rules);
    return wx_fail(err, WX_ESYSTEM, ctx->file, loc.line, loc.col, "out of memory");
}

void product_scratch_free(struct product_scratch *s)
{
    free(s->comp), free(s->label), free(s->cur);
    memset(s, 0, sizeof *s);
}

int rule_buf_product(struct rule_buf *b, const struct network *ops,
                     const uint32_t *offset, size_t k, const size_t *op,
                     uint32_t *const *rules, const uint32_t *lo,
                     const uint32_t *hi, uint32_t res,
                     struct product_scratch *s)
{
    if (k > s->cur_cap) {
        uint32_t *c = realloc(s->cur, k * sizeof *c);
        if (!c)
            return WX_ESYSTEM;
        s->cur = c;
        s->cur_cap = k;
    }
    uint64_t total = 1; /* rules this product adds: fail before building them */
    for (size_t j = 0; j < k; j++) {
        if (lo[j] >= hi[j])
            return WX_OK;
        s->cur[j] = lo[j];
        if (__builtin_mul_overflow(total, (uint64_t)(hi[j] - lo[j]), &total))
            return WX_ELIMIT;
    }
    if (total > b->max_rules - b->n_rules)
        return WX_ELIMIT;
    for (;;) {
        uint64_t np = 0;
        for (size_t j = 0; j < k; j++) {
            const struct network *o = &ops[op[j]];
            uint32_t r = rules[j][s->cur[j]];
            uint32_t from = o->rule_start[r], to = o->rule_start[r + 1];
            if (np + (to - from) > s->cap) {
                uint64_t cap = 2 * (np + (to - from));
                uint32_t *c = realloc(s->comp, cap * sizeof *c);
                if (!c)
                    return WX_ESYSTEM;
                s->comp = c;
                uint32_t *l = realloc(s->label, cap * sizeof *l);
                if (!l)
                    return WX_ESYSTEM;
                s->label = l;
                s->cap = cap;
            }
            for (uint32_t x = from; x < to; x++) {
                s->comp[np] = o->part_comp[x] + offset[op[j]];
                s->label[np++] = o->part_label[x];
            }
        }
        if (np > UINT32_MAX - 1)
            return WX_ELIMIT;
        int rc = rule_buf_add(b, (uint32_t)np, s->comp, s->label, res);
        if (rc != WX_OK)
            return rc;
        size_t j = k; /* odometer, last position fastest */
        while (j > 0 && ++s->cur[j - 1] == hi[j - 1]) {
            s->cur[j - 1] = lo[j - 1];
            j--;
        }
        if (j == 0)
            return WX_OK;
    }
}
