/*
 * explore_mdp.c -- the explorer of probabilistic networks (explore_mdp.h):
 * a BFS over state vectors whose expansion builds each state's choices from
 * the image's probabilistic choice table.
 *
 * Data: the states in a vector set (hash/vecset.h: vectors by id in BFS
 * order, so a level is an id range).  Per expanded state, the choices are
 * first collected with their outcomes as vectors (struct gen), then sorted
 * and made distinct, and only then are the outcome vectors looked up /
 * inserted, so the numbering depends on the choices' canonical order only.
 *
 * Threads (a util/pool team): a level is cut into chunks of consecutive
 * states, processed in windows of a few chunks per thread.  In a window's
 * PARALLEL phase (one wx_pool_run job) every
 * thread expands whole chunks (claimed from an atomic counter) into the
 * chunk's buffer and looks each outcome up in the state set, which nobody
 * changes meanwhile (vecset_find); in the SEQUENTIAL phase the main thread
 * commits the chunks in state order: choices and entries are appended, and
 * the outcomes not found are added (vecset_put).  Ids are thus given in
 * exactly the order of the one-thread run: the MDP does not depend on the
 * number of threads (tests/test_prob_random.c checks 1 against several).
 */
#include "explore_mdp.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../hash/vecset.h"
#include "../hash/vtable.h"
#include "../util/arith.h"
#include "../util/pool.h"
#include "explore_int.h"
#include "mdp_rules.h"

/* The choices of one state, before they are made distinct. */
struct gen {
    uint32_t words;
    size_t n, cap;            /* choices */
    uint32_t *label;          /* cap */
    size_t *start;            /* cap (> n): outcomes [start[i], start[i+1]) */
    size_t n_out, cap_out;    /* outcomes */
    uint32_t *vec;            /* cap_out * words */
    double *prob;             /* cap_out */
    uint64_t *num, *den;      /* cap_out: exact probabilities (den 0: too big) */
    size_t *order;            /* choices, sorted */
    size_t cap_order;
    size_t *perm;             /* outcome scratch for sorting one choice */
    size_t cap_perm;
    uint32_t *tmpv;           /* sorting scratch: cap_out * words */
    double *tmpp;
    uint64_t *tmpn, *tmpd;
    size_t cap_tmp;
};

static int gen_choice_begin(struct gen *g, uint32_t label)
{
    void **const arrays[] = {(void **)&g->label, (void **)&g->start};
    const size_t sizes[] = {sizeof *g->label, sizeof *g->start};
    if (wx_reserve_all(&g->cap, g->n + 2, 64, 2, arrays, sizes) != 0)
        return -1;
    g->label[g->n] = label;
    g->start[g->n] = g->n_out;
    g->n++;
    g->start[g->n] = g->n_out;
    return 0;
}

/* *n/ *d *= n2/d2, reduced; *d = 0 (sticky) when it leaves 64 bits. */
static void frac_mul(uint64_t *n, uint64_t *d, uint64_t n2, uint64_t d2)
{
    if (*d == 0)
        return;
    uint64_t g1 = wx_gcd64(*n, d2), g2 = wx_gcd64(n2, *d);
    uint64_t a = *n / g1, b = n2 / g2, c = *d / g2, e = d2 / g1;
    if (__builtin_mul_overflow(a, b, n) || __builtin_mul_overflow(c, e, d))
        *n = 0, *d = 0;
}

static int gen_outcome(struct gen *g, const uint32_t *v, double p, uint64_t num, uint64_t den)
{
    if (g->n_out == g->cap_out) {
        size_t cap = g->cap_out ? 2 * g->cap_out : 256;
        void **const arrays[] = {(void **)&g->vec, (void **)&g->prob, (void **)&g->num,
                                 (void **)&g->den};
        const size_t sizes[] = {g->words * 4u, sizeof *g->prob, sizeof *g->num, sizeof *g->den};
        if (wx_resize_all(cap, 4, arrays, sizes) != 0)
            return -1;
        g->cap_out = cap;
    }
    memcpy(g->vec + g->n_out * g->words, v, g->words * 4u);
    g->num[g->n_out] = num;
    g->den[g->n_out] = den;
    g->prob[g->n_out++] = p;
    g->start[g->n] = g->n_out;
    return 0;
}

static int cmp_outcome(const void *a, const void *b, void *ctx)
{
    const struct gen *g = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return memcmp(g->vec + x * g->words, g->vec + y * g->words, g->words * 4u);
}

/* Sorts each choice's outcomes by vector (in place). */
static int sort_outcomes(struct gen *g)
{
    if (g->cap_tmp < g->n_out) {
        void **const arrays[] = {(void **)&g->tmpv, (void **)&g->tmpp, (void **)&g->tmpn,
                                 (void **)&g->tmpd};
        const size_t sizes[] = {g->words * 4u, sizeof *g->tmpp, sizeof *g->tmpn, sizeof *g->tmpd};
        if (wx_resize_all(g->n_out, 4, arrays, sizes) != 0)
            return -1;
        g->cap_tmp = g->n_out;
    }
    for (size_t c = 0; c < g->n; c++) {
        size_t a = g->start[c], b = g->start[c + 1], m = b - a;
        if (m < 2)
            continue;
        if (wx_reserve((void **)&g->perm, &g->cap_perm, m, sizeof *g->perm, 64) != 0)
            return -1;
        for (size_t i = 0; i < m; i++)
            g->perm[i] = a + i;
        qsort_r(g->perm, m, sizeof *g->perm, cmp_outcome, g);
        for (size_t i = 0; i < m; i++) {
            memcpy(g->tmpv + i * g->words, g->vec + g->perm[i] * g->words, g->words * 4u);
            g->tmpp[i] = g->prob[g->perm[i]];
            g->tmpn[i] = g->num[g->perm[i]];
            g->tmpd[i] = g->den[g->perm[i]];
        }
        memcpy(g->vec + a * g->words, g->tmpv, m * g->words * 4u);
        memcpy(g->prob + a, g->tmpp, m * sizeof *g->prob);
        memcpy(g->num + a, g->tmpn, m * sizeof *g->num);
        memcpy(g->den + a, g->tmpd, m * sizeof *g->den);
    }
    return 0;
}

/* Canonical order of choices: label, number of outcomes, then outcome by
 * outcome (vector, probability bits). */
static int cmp_choice(const void *a, const void *b, void *ctx)
{
    const struct gen *g = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (g->label[x] != g->label[y])
        return g->label[x] < g->label[y] ? -1 : 1;
    size_t nx = g->start[x + 1] - g->start[x], ny = g->start[y + 1] - g->start[y];
    if (nx != ny)
        return nx < ny ? -1 : 1;
    for (size_t i = 0; i < nx; i++) {
        size_t ox = g->start[x] + i, oy = g->start[y] + i;
        int c = memcmp(g->vec + ox * g->words, g->vec + oy * g->words, g->words * 4u);
        if (c)
            return c;
        if (g->prob[ox] != g->prob[oy])
            return g->prob[ox] < g->prob[oy] ? -1 : 1;
    }
    return 0;
}

static void gen_free(struct gen *g)
{
    free(g->label), free(g->start), free(g->vec), free(g->prob), free(g->order);
    free(g->perm), free(g->tmpv), free(g->tmpp), free(g->num), free(g->den);
    free(g->tmpn), free(g->tmpd);
}

/* The MDP being built. */
struct build {
    struct mdp m;
    uint32_t *label;
    bool exact;
    uint64_t *num, *den;      /* exact: per entry */
    size_t cap_states, cap_choices, cap_entries;
};

/* Room for states up to `end`, `more_ch` more choices and `more_en` more
 * entries (capacities double); -1 when out of memory. */
static int build_reserve(struct build *b, uint64_t end, size_t more_ch, size_t more_en)
{
    if (wx_reserve((void **)&b->m.state_start, &b->cap_states, end + 1, sizeof *b->m.state_start, 1024) != 0)
        return -1;
    void **const ch[] = {(void **)&b->label, (void **)&b->m.choice_start};
    const size_t ch_sizes[] = {sizeof *b->label, sizeof *b->m.choice_start};
    if (wx_reserve_all(&b->cap_choices, b->m.n_choices + more_ch + 2, 1024, 2, ch, ch_sizes) != 0)
        return -1;
    void **const en[] = {(void **)&b->m.targets, (void **)&b->m.probs, b->exact ? (void **)&b->num : NULL,
                         b->exact ? (void **)&b->den : NULL};
    const size_t en_sizes[] = {sizeof *b->m.targets, sizeof *b->m.probs, sizeof *b->num, sizeof *b->den};
    return wx_reserve_all(&b->cap_entries, b->m.n_entries + more_en, 4096, 4, en, en_sizes);
}

/* Per-run context of the expansion. */
struct expander {
    const struct image *img;
    uint32_t words;
    uint32_t *local;          /* n_comps: decoded local states */
    const struct mdp_rules *rules; /* the rules by anchor */
    uint32_t *lo, *hi, *odo;  /* per participant: choice range and cursor */
    uint32_t *todo;           /* per participant: target cursor */
    uint32_t *cur;            /* words */
    unsigned char *prio_on;   /* img->prio_n: labels leaving the state */
    uint32_t *prio_marked;    /* img->prio_n: the labels marked */
};

#define PRIO_DROPPED UINT32_MAX

/* The priority (image.h) on one state's choices: a choice below a label
 * that leaves the state, or cut, is marked PRIO_DROPPED (it sorts last and
 * is skipped); the others show their labels. */
static void prio_choices(struct expander *x, struct gen *g)
{
    const struct image *img = x->img;
    size_t marked = 0;
    for (size_t i = 0; i < g->n; i++)
        if (!x->prio_on[g->label[i]]) {
            x->prio_on[g->label[i]] = 1;
            x->prio_marked[marked++] = g->label[i];
        }
    for (size_t i = 0; i < g->n; i++) {
        uint32_t l = g->label[i];
        bool blocked = img->prio_out[l] == IMAGE_PRIO_CUT;
        for (uint32_t j = img->prio_above_start[l]; j < img->prio_above_start[l + 1] && !blocked; j++)
            blocked = x->prio_on[img->prio_above[j]];
        g->label[i] = blocked ? PRIO_DROPPED : img->prio_out[l];
    }
    for (size_t i = 0; i < marked; i++)
        x->prio_on[x->prio_marked[i]] = 0;
}

/* The choices of component c in local state s with key `key`: [*a, *b). */
static void key_range(const struct image *img, uint32_t c, uint32_t s, uint32_t key, uint32_t *a,
                      uint32_t *b)
{
    const uint32_t hi = img->pchoice_offsets[img->proc_offsets[c] + s + 1];
    uint32_t lo = wx_lower_bound_u32(img->pchoice_key, img->pchoice_offsets[img->proc_offsets[c] + s], hi, key);
    *a = lo;
    while (lo < hi && img->pchoice_key[lo] == key)
        lo++;
    *b = lo;
}

/* Emits the product distribution of the choices odo[0..n) of the n
 * participants parts[] as one choice. */
static int emit_product(struct expander *x, struct gen *g, const uint32_t *vec, uint32_t label,
                        const uint32_t *parts, uint32_t n)
{
    const struct image *img = x->img;
    if (gen_choice_begin(g, label) != 0)
        return -1;
    for (uint32_t j = 0; j < n; j++)
        x->todo[j] = img->pchoice_start[x->odo[j]];
    for (;;) {
        memcpy(x->cur, vec, x->words * 4u);
        double p = 1.0;
        uint64_t pn = 1, pd = 1;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t c = parts[j];
            image_set_field(x->cur, img->first_bit[c], img->first_bit[c + 1] - img->first_bit[c],
                            img->ptarget[x->todo[j]]);
            p *= img->pprob[x->todo[j]];
            frac_mul(&pn, &pd, img->pnum[x->todo[j]], img->pden[x->todo[j]]);
        }
        if (gen_outcome(g, x->cur, p, pn, pd) != 0)
            return -1;
        uint32_t j = n;
        while (j > 0) {
            j--;
            if (++x->todo[j] < img->pchoice_start[x->odo[j] + 1])
                break;
            x->todo[j] = img->pchoice_start[x->odo[j]];
            if (j == 0)
                return 0;
        }
        if (n == 0)
            return 0;
    }
}

/* The choices of rule r (class k) in the state vec: the products of the
 * participants' class-k choices, none when one has none.  The anchor's
 * class-k choices are [alo, ahi) (known from the walk). */
static int fire_rule(struct expander *x, struct gen *g, const uint32_t *vec, uint32_t k, uint32_t r,
                     uint32_t anchor, uint32_t alo, uint32_t ahi)
{
    const struct image *img = x->img;
    const uint32_t key = IMAGE_PCHOICE_SYNC | k;
    const uint32_t *parts = x->rules->part + x->rules->part_start[r];
    const uint32_t n = x->rules->part_start[r + 1] - x->rules->part_start[r];
    for (uint32_t j = 0; j < n; j++) {
        if (parts[j] == anchor)
            x->lo[j] = alo, x->hi[j] = ahi;
        else
            key_range(img, parts[j], x->local[parts[j]], key, &x->lo[j], &x->hi[j]);
        if (x->lo[j] == x->hi[j])
            return 0;
        x->odo[j] = x->lo[j];
    }
    for (;;) {
        if (emit_product(x, g, vec, img->class_result[k], parts, n) != 0)
            return -1;
        uint32_t j = n;
        while (j > 0) {
            j--;
            if (++x->odo[j] < x->hi[j])
                break;
            x->odo[j] = x->lo[j];
            if (j == 0)
                return 0;
        }
    }
}

/* The synchronising rules of the state (x->local) by masks (mdp_rules.h):
 * the valid rules no component blocks, in ascending order. */
static int masked_rules(struct expander *x, struct gen *g, const uint32_t *vec)
{
    const struct image *img = x->img;
    const struct mdp_rules *r = x->rules;
    const uint32_t words = r->mask_words;
    for (uint32_t w = 0; w < words; w++) {
        uint64_t open = r->valid[w];
        for (uint32_t c = 0; c < img->n_comps && open; c++)
            open &= ~r->blocked[(size_t)(img->proc_offsets[c] + x->local[c]) * words + w];
        while (open) {
            const uint32_t rr = w * 64 + (uint32_t)__builtin_ctzll(open);
            open &= open - 1;
            if (fire_rule(x, g, vec, r->rule_class[rr], rr, UINT32_MAX, 0, 0) != 0)
                return -1;
        }
    }
    return 0;
}

/* The synchronising rules of the state (x->local) by anchor: per
 * component, the rules anchored at the classes it offers (mdp_rules.h). */
static int anchored_rules(struct expander *x, struct gen *g, const uint32_t *vec)
{
    const struct image *img = x->img;
    for (uint32_t c = 0; c < img->n_comps; c++) {
        const uint32_t s = x->local[c];
        const uint32_t b = img->pchoice_offsets[img->proc_offsets[c] + s + 1];
        const uint32_t a = img->pchoice_offsets[img->proc_offsets[c] + s];
        uint32_t cur = x->rules->anch_start[c], run = a;
        for (uint32_t i = a; i < b; i++) {
            const uint32_t key = img->pchoice_key[i];
            if (i == a || img->pchoice_key[i - 1] != key)
                run = i; /* the first choice with this key */
            if (!(key & IMAGE_PCHOICE_SYNC) || (i + 1 < b && img->pchoice_key[i + 1] == key))
                continue; /* each class once, at its last choice */
            const uint32_t k = key & ~IMAGE_PCHOICE_SYNC;
            const uint32_t p = mdp_rules_find(x->rules->anch_start, x->rules->anch_class, c, &cur, k);
            if (p == UINT32_MAX)
                continue;
            for (uint32_t j = x->rules->rule_start[p]; j < x->rules->rule_start[p + 1]; j++)
                if (fire_rule(x, g, vec, k, x->rules->rule[j], c, run, i + 1) != 0)
                    return -1;
        }
    }
    return 0;
}

/* All choices of the state vec into g (not yet distinct). */
static int expand(struct expander *x, struct gen *g, const uint32_t *vec)
{
    const struct image *img = x->img;
    g->n = 0;
    g->n_out = 0;
    for (uint32_t c = 0; c < img->n_comps; c++)
        x->local[c] = image_get_field(vec, img->first_bit[c], img->first_bit[c + 1] - img->first_bit[c]);
    /* interleaved choices */
    for (uint32_t c = 0; c < img->n_comps; c++) {
        uint32_t s = x->local[c];
        uint32_t a = img->pchoice_offsets[img->proc_offsets[c] + s];
        uint32_t b = img->pchoice_offsets[img->proc_offsets[c] + s + 1];
        for (uint32_t i = a; i < b && !(img->pchoice_key[i] & IMAGE_PCHOICE_SYNC); i++) {
            x->odo[0] = i;
            if (emit_product(x, g, vec, img->pchoice_key[i], &c, 1) != 0)
                return -1;
        }
    }
    if (x->rules->mask_words ? masked_rules(x, g, vec) != 0 : anchored_rules(x, g, vec) != 0)
        return -1;
    if (img->prio_n)
        prio_choices(x, g);
    return 0;
}

void mdp_explore_result_free(struct mdp_explore_result *res)
{
    mdp_free(&res->mdp);
    free(res->choice_label);
    free(res->vectors);
    free(res->entry_num), free(res->entry_den);
    res->choice_label = NULL;
    res->vectors = NULL;
    res->entry_num = res->entry_den = NULL;
}

/* Per-thread scratch. */
struct worker {
    struct expander x;
    struct gen g;
};

static void worker_free(struct worker *w)
{
    free(w->x.local), free(w->x.lo), free(w->x.hi), free(w->x.odo), free(w->x.todo), free(w->x.cur);
    free(w->x.prio_on), free(w->x.prio_marked);
    gen_free(&w->g);
}

/* The rules are shared (read only) by all workers. */
static int worker_init(struct worker *w, const struct image *img, const struct mdp_rules *rules)
{
    uint32_t nc = img->n_comps ? img->n_comps : 1;
    memset(w, 0, sizeof *w);
    w->g.words = img->words;
    w->x.img = img;
    w->x.words = img->words;
    w->x.rules = rules;
    w->x.local = malloc(nc * sizeof *w->x.local);
    w->x.lo = malloc(nc * sizeof *w->x.lo);
    w->x.hi = malloc(nc * sizeof *w->x.hi);
    w->x.odo = malloc(nc * sizeof *w->x.odo);
    w->x.todo = malloc(nc * sizeof *w->x.todo);
    w->x.cur = calloc(img->words ? img->words : 1, 4);
    if (img->prio_n) {
        w->x.prio_on = calloc(img->prio_n, 1);
        w->x.prio_marked = malloc((size_t)img->prio_n * sizeof *w->x.prio_marked);
        if (!w->x.prio_on || !w->x.prio_marked)
            return -1;
    }
    return w->x.local && w->x.lo && w->x.hi && w->x.odo && w->x.todo && w->x.cur ? 0 : -1;
}

/* The choice of the fresh state 0: the product of the initial
 * distributions, labelled with the hidden label. */
static int gen_initial(struct expander *x, struct gen *g)
{
    const struct image *img = x->img;
    const uint32_t nc = img->n_comps;
    if (gen_choice_begin(g, img->hidden) != 0)
        return -1;
    for (uint32_t c = 0; c < nc; c++)
        x->todo[c] = img->pinit_start[c];
    for (;;) {
        memset(x->cur, 0, x->words * 4u);
        double p = 1.0;
        uint64_t pn = 1, pd = 1;
        for (uint32_t c = 0; c < nc; c++) {
            image_set_field(x->cur, img->first_bit[c], img->first_bit[c + 1] - img->first_bit[c],
                            img->pinit_state[x->todo[c]]);
            p *= img->pinit_prob[x->todo[c]];
            frac_mul(&pn, &pd, img->pinit_num[x->todo[c]], img->pinit_den[x->todo[c]]);
        }
        if (gen_outcome(g, x->cur, p, pn, pd) != 0)
            return -1;
        uint32_t c = nc;
        while (c > 0) {
            c--;
            if (++x->todo[c] < img->pinit_start[c + 1])
                break;
            x->todo[c] = img->pinit_start[c];
            if (c == 0)
                return 0;
        }
        if (nc == 0)
            return 0;
    }
}

/* The expanded choices of states [first, end): filled by one worker in a
 * parallel phase, committed by the main thread in the sequential one.
 * Aligned to a cache line: neighbouring chunks are filled by different
 * threads. */
struct chunk {
    _Alignas(64) uint64_t first, end;
    uint32_t *n_choices;        /* per state: its distinct choices */
    size_t cap_states;
    size_t n_ch, cap_ch;        /* choices */
    uint32_t *label, *n_out;
    size_t n_out_all, cap_out;  /* outcomes */
    uint32_t *vec;              /* cap_out * words */
    double *prob;
    uint64_t *num, *den, *id;   /* id: UINT64_MAX when not found */
    int failed;                 /* out of memory */
    uint64_t ch_base, en_base;  /* where its choices and entries go in the MDP */
    uint64_t deadlocks;         /* its states without a choice */
};

static void chunk_free(struct chunk *c)
{
    free(c->n_choices), free(c->label), free(c->n_out), free(c->vec), free(c->prob);
    free(c->num), free(c->den), free(c->id);
}

/* Expands the chunk's states with w (the state set is only read). */
static int chunk_fill(struct chunk *c, struct worker *w, const struct vecset *q, bool fresh_initial)
{
    const uint32_t words = q->words;
    struct gen *g = &w->g;
    c->n_ch = c->n_out_all = 0;
    if (wx_reserve((void **)&c->n_choices, &c->cap_states, c->end - c->first, sizeof *c->n_choices, 64))
        return -1;
    for (uint64_t s = c->first; s < c->end; s++) {
        g->n = g->n_out = 0;
        int e = s == 0 && fresh_initial ? gen_initial(&w->x, g) : expand(&w->x, g, q->vec + s * words);
        if (e || sort_outcomes(g) != 0 ||
            wx_reserve((void **)&g->order, &g->cap_order, g->n ? g->n : 1, sizeof *g->order, 64) != 0)
            return -1;
        for (size_t i = 0; i < g->n; i++)
            g->order[i] = i;
        qsort_r(g->order, g->n, sizeof *g->order, cmp_choice, g);
        uint32_t distinct = 0;
        for (size_t i = 0; i < g->n; i++) {
            if (i > 0 && cmp_choice(&g->order[i - 1], &g->order[i], g) == 0)
                continue;
            if (g->label[g->order[i]] == PRIO_DROPPED)
                break; /* the dropped choices sort last */
            size_t ch = g->order[i], a = g->start[ch], n = g->start[ch + 1] - a;
            void **const ch_arrays[] = {(void **)&c->label, (void **)&c->n_out};
            const size_t ch_sizes[] = {sizeof *c->label, sizeof *c->n_out};
            void **const out_arrays[] = {(void **)&c->vec, (void **)&c->prob, (void **)&c->num,
                                         (void **)&c->den, (void **)&c->id};
            const size_t out_sizes[] = {words * sizeof *c->vec, sizeof *c->prob, sizeof *c->num,
                                        sizeof *c->den, sizeof *c->id};
            if (wx_reserve_all(&c->cap_ch, c->n_ch + 1, 1024, 2, ch_arrays, ch_sizes) != 0 ||
                wx_reserve_all(&c->cap_out, c->n_out_all + n, 4096, 5, out_arrays, out_sizes) != 0)
                return -1;
            c->label[c->n_ch] = g->label[ch];
            c->n_out[c->n_ch++] = (uint32_t)n;
            for (size_t o = a; o < a + n; o++) {
                size_t k = c->n_out_all++;
                memcpy(c->vec + k * words, g->vec + o * words, words * 4u);
                c->prob[k] = g->prob[o];
                c->num[k] = g->num[o];
                c->den[k] = g->den[o];
            }
            distinct++;
        }
        c->n_choices[s - c->first] = distinct;
    }
    /* the chunk's outcomes looked up together: their cache misses overlap */
    vecset_find_many(q, c->vec, c->n_out_all, c->id);
    return 0;
}

/* What a parallel phase does with each chunk of the window. */
enum team_phase {
    TEAM_FILL,  /* expand its states with the member's scratch (chunk_fill) */
    TEAM_WRITE  /* write it into the MDP at its bases (chunk_write)        */
};

/* The threads of a run (a util/pool team) and the window they work on: in
 * a parallel phase each member claims whole chunks from `next`. */
struct team {
    struct wx_pool *pool;
    unsigned n;                 /* members: wx_pool_size(pool) */
    struct worker *w;           /* n */
    struct chunk *chunks;       /* max_chunks */
    size_t max_chunks;
    size_t n_chunks;            /* of the current window */
    atomic_size_t next;
    const struct vecset *q;
    struct build *b;            /* the MDP TEAM_WRITE writes */
    bool fresh_initial;
    enum team_phase phase;
};

static void chunk_write(struct chunk *c, struct build *b);

static void team_job(void *arg, int member, int size)
{
    struct team *t = arg;
    (void)size;
    for (;;) {
        size_t i = atomic_fetch_add(&t->next, 1);
        if (i >= t->n_chunks)
            return;
        if (t->phase == TEAM_WRITE)
            chunk_write(&t->chunks[i], t->b);
        else if (chunk_fill(&t->chunks[i], &t->w[member], t->q, t->fresh_initial) != 0)
            t->chunks[i].failed = 1;
    }
}

/* One parallel phase over chunks[0, n_chunks). */
static void team_run(struct team *t, enum team_phase phase, size_t n_chunks)
{
    t->phase = phase;
    t->n_chunks = n_chunks;
    atomic_store(&t->next, 0);
    wx_pool_run(t->pool, team_job, t);
}

/* States per chunk, and chunks per thread in a window. */
#define MDPX_CHUNK 128u
#define MDPX_WINDOW 8u

/* One exploration: the state set, the MDP being built, the team. */
struct run {
    const struct image *img;
    const struct explore_options *opt;
    struct mdp_explore_result *res;
    uint32_t words;
    double t0, next_progress;
    struct vecset q;            /* zeroed until run_init: vecset_free is safe */
    struct build b;
    struct team team;
    struct mdp_rules rules;
};

/* The state set, the first blocks of the MDP, the team and its scratch. */
static int run_init(struct run *r, struct wx_error *err)
{
    const struct image *img = r->img;
    uint64_t max_states = vtable_states_for_budget(explore_budget(r->opt), r->words, 16);
    if (max_states > UINT32_MAX - 1)
        max_states = UINT32_MAX - 1; /* struct mdp's 32-bit targets */
    int rc = vecset_init(&r->q, r->words, max_states, err);
    if (rc)
        return rc;
    /* options.threads (0: all cores), cut at WX_POOL_MAX; without a pool
     * (out of memory) the caller's thread expands alone. */
    struct team *t = &r->team;
    t->pool = wx_pool_new(r->opt->threads > WX_POOL_MAX ? WX_POOL_MAX : (int)r->opt->threads);
    t->n = (unsigned)wx_pool_size(t->pool);
    t->q = &r->q;
    t->b = &r->b;
    t->max_chunks = (size_t)t->n * MDPX_WINDOW;
    t->w = calloc(t->n, sizeof *t->w);
    t->chunks = calloc(t->max_chunks, sizeof *t->chunks);
    r->b.m.state_start = malloc(1024 * sizeof *r->b.m.state_start);
    r->b.cap_states = 1024;
    if ((rc = mdp_rules_build(img, (enum mdp_rule_walk)r->opt->mdp_rule_walk, &r->rules, err)) != WX_OK)
        return rc;
    if (!t->w || !t->chunks || !r->b.m.state_start)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    for (unsigned i = 0; i < t->n; i++)
        if (worker_init(&t->w[i], img, &r->rules) != 0)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    return WX_OK;
}

/* The initial state: the zero vector, or a fresh state before the product
 * of the initial distributions (its id 0 then has the all-ones vector,
 * which no real state has). */
static int add_initial(struct run *r, struct wx_error *err)
{
    const struct image *img = r->img;
    bool dirac = true;
    for (uint32_t c = 0; c < img->n_comps; c++)
        dirac &= img->pinit_start[c + 1] - img->pinit_start[c] == 1;
    uint32_t *v = calloc(r->words ? r->words : 1, 4);
    if (!v)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    uint64_t id;
    int rc = WX_OK;
    if (dirac) {
        if (vecset_put(&r->q, v, &id, err) < 0)
            rc = err->code;
    } else {
        memset(v, 0xff, r->words * 4u);
        if (vecset_add_hidden(&r->q, v, &id, err) < 0)
            rc = err->code;
        r->res->fresh_initial = true;
    }
    free(v);
    r->team.fresh_initial = r->res->fresh_initial;
    return rc;
}

/* Cuts [wb, le) of the level into the next window's chunks; returns their
 * number and sets *end to where the window ends. */
static size_t window_cut(struct team *t, uint64_t wb, uint64_t le, uint64_t *end)
{
    size_t nch = 0;
    uint64_t s = wb;
    uint64_t per = (le - wb + t->max_chunks - 1) / t->max_chunks;
    if (per < 16)
        per = 16;
    if (per > MDPX_CHUNK)
        per = MDPX_CHUNK;
    for (; nch < t->max_chunks && s < le; nch++) {
        t->chunks[nch].first = s;
        t->chunks[nch].end = s + per < le ? s + per : le;
        t->chunks[nch].failed = 0;
        s = t->chunks[nch].end;
    }
    *end = s;
    return nch;
}

static void report_progress(struct run *r)
{
    if (!r->opt->progress || wx_now() < r->next_progress)
        return;
    struct explore_stats st = {.states = r->q.count, .transitions = r->b.m.n_choices,
                               .depth = r->res->depth,
                               .bytes = r->q.n_index * 8 + r->q.cap * r->words * 4ull,
                               .seconds = wx_now() - r->t0};
    r->opt->progress(r->opt->progress_ctx, &st);
    r->next_progress = wx_now() + 1.0;
}

/* Writes a committed chunk's states, choices and entries into the MDP at
 * its bases (every outcome has its id by now). */
static void chunk_write(struct chunk *c, struct build *b)
{
    uint64_t ch = c->ch_base, e = c->en_base;
    size_t i = 0, o = 0;
    c->deadlocks = 0;
    for (uint64_t st = c->first; st < c->end; st++) {
        b->m.state_start[st] = ch;
        const uint32_t n = c->n_choices[st - c->first];
        c->deadlocks += n == 0;
        for (uint32_t j = 0; j < n; j++, i++, ch++) {
            b->label[ch] = c->label[i];
            b->m.choice_start[ch] = e;
            for (uint32_t x = 0; x < c->n_out[i]; x++, o++, e++) {
                b->m.targets[e] = (uint32_t)c->id[o];
                b->m.probs[e] = c->prob[o];
                if (b->exact)
                    b->num[e] = c->num[o], b->den[e] = c->den[o];
            }
        }
    }
}

/* Appends the window's filled chunks to the MDP, in state order: first,
 * in order, the outcomes the parallel phase did not find get their ids
 * (new states are numbered as they are first met) and each chunk its
 * bases; then the team writes the chunks in parallel. */
static int commit_window(struct run *r, size_t nch, struct wx_error *err)
{
    struct team *t = &r->team;
    struct build *b = &r->b;
    size_t more_ch = 0, more_en = 0;
    report_progress(r);
    for (size_t k = 0; k < nch; k++) {
        struct chunk *c = &t->chunks[k];
        if (c->failed)
            return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory expanding a state");
        for (size_t o = 0; o < c->n_out_all; o++)
            if (c->id[o] == UINT64_MAX && vecset_put(&r->q, c->vec + o * r->words, &c->id[o], err) < 0)
                return err->code;
        c->ch_base = b->m.n_choices + more_ch, c->en_base = b->m.n_entries + more_en;
        more_ch += c->n_ch, more_en += c->n_out_all;
    }
    if (nch && build_reserve(b, t->chunks[nch - 1].end, more_ch, more_en) != 0)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory storing the MDP");
    team_run(t, TEAM_WRITE, nch);
    for (size_t k = 0; k < nch; k++)
        r->res->deadlocks += t->chunks[k].deadlocks;
    b->m.n_choices += more_ch, b->m.n_entries += more_en;
    return WX_OK;
}

/* The BFS: level [lb, le) in windows, each expanded in parallel and then
 * committed in state order, until a level adds no state. */
static int explore_levels(struct run *r, struct wx_error *err)
{
    struct team *t = &r->team;
    uint64_t lb = 0, le = 1;
    for (;;) {
        for (uint64_t wb = lb; wb < le;) {
            if (explore_cancelled(r->opt))
                return explore_interrupted(err);
            size_t nch = window_cut(t, wb, le, &wb);
            team_run(t, TEAM_FILL, nch);
            int rc = commit_window(r, nch, err);
            if (rc)
                return rc;
        }
        if (r->q.count == le) {
            r->res->complete = true;
            return WX_OK;
        }
        lb = le, le = r->q.count;
        r->res->depth++;
    }
}

/* Hands the MDP to res (rc == WX_OK; partial counts only otherwise) and
 * frees the rest of the run.  Returns rc, or WX_ELIMIT when the final
 * arrays cannot be had. */
static int run_finish(struct run *r, int rc, struct wx_error *err)
{
    struct build *b = &r->b;
    struct mdp_explore_result *res = r->res;
    struct vecset *q = &r->q;
    const uint64_t count = q->count;
    if (b->m.choice_start)
        b->m.choice_start[b->m.n_choices] = b->m.n_entries;
    if (rc == WX_OK) {
        b->m.n_states = count;
        b->m.state_start[count] = b->m.n_choices;
        if (!b->m.choice_start)
            b->m.choice_start = calloc(1, sizeof *b->m.choice_start);
        if (!b->m.choice_start)
            rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    }
    res->bytes = q->n_index * 8 + count * r->words * 4ull + b->m.n_states * 8 +
                 b->m.n_choices * 12 + b->m.n_entries * 12;
    if (rc == WX_OK) {
        res->mdp = b->m;
        res->choice_label = b->label ? b->label : malloc(sizeof *b->label);
        res->entry_num = b->num;
        res->entry_den = b->den;
        if (r->opt->keep_vectors) {
            res->vectors = q->vec;
            q->vec = NULL;
        }
    } else {
        res->complete = false;
        res->mdp.n_states = count;
        res->mdp.n_choices = b->m.n_choices;
        res->mdp.n_entries = b->m.n_entries;
        free(b->m.state_start), free(b->m.choice_start), free(b->m.targets), free(b->m.probs);
        free(b->label), free(b->num), free(b->den);
    }
    vecset_free(q);
    struct team *t = &r->team;
    wx_pool_free(t->pool);
    if (t->w)
        for (unsigned i = 0; i < t->n; i++)
            worker_free(&t->w[i]);
    if (t->chunks)
        for (size_t k = 0; k < t->max_chunks; k++)
            chunk_free(&t->chunks[k]);
    free(t->w), free(t->chunks);
    mdp_rules_free(&r->rules);
    res->threads = t->n;
    return rc;
}

int explore_mdp(const struct image *img, const struct explore_options *opt_in, bool exact,
                struct mdp_explore_result *res, struct wx_error *err)
{
    const struct explore_options *opt = explore_opts(opt_in);
    const double t0 = wx_now();
    memset(res, 0, sizeof *res);
    if (!img->probabilistic || !img->pchoice_offsets)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0,
                       "explore_mdp needs a probabilistic network (no component has a distribution)");
    struct run r;
    memset(&r, 0, sizeof r);
    r.img = img, r.opt = opt, r.res = res, r.words = img->words;
    r.t0 = t0, r.next_progress = t0 + 1.0;
    r.b.exact = exact;
    int rc = run_init(&r, err);
    if (rc == WX_OK)
        rc = add_initial(&r, err);
    if (rc == WX_OK)
        rc = explore_levels(&r, err);
    rc = run_finish(&r, rc, err);
    res->seconds = wx_now() - t0;
    return rc;
}
