/*
 * image.c -- compiles a flat network (network.h) into the image (image.h).
 *
 * The compilation runs in this order, so that every limit that depends only on
 * sizes is checked before any transition is read:
 *   1. validate the network's shape (state counts, rule participants);
 *   2. vector layout (field widths, words) and the state-offset count;
 *   3. group the rules with >= 2 participants into classes;
 *   4. act_bits, slot widths and slots per entry;
 *   5. per component and state: local entries, then sync entries by class;
 *   6. class rule lists and rule masks; labels, names, descriptive data.
 *
 * Classes (see image.h): a class is a set of rules with one result label in
 * which each component always uses the same component label.  Rules are
 * grouped greedily in network order: a rule joins the most recent compatible
 * class of its result (trying at most CLASS_SCAN_LIMIT of them, so a network
 * with many conflicting rules of one result stays linear in time), else it
 * opens a new class.  Any grouping that satisfies the definition is correct;
 * fewer classes only mean fewer duplicated entries.
 */
#include "image.h"

#include <stdlib.h>
#include <string.h>

#include "../util/arith.h"
#include "../util/strtab.h"
#include "network.h"

/* Candidate classes tried per rule before a new class is opened. */
#define CLASS_SCAN_LIMIT 256u

#define NONE UINT32_MAX

void image_default_limits(struct image_limits *lim)
{
    lim->max_words = IMAGE_MAX_WORDS;
    lim->max_act_bits = IMAGE_MAX_ACT_BITS;
    lim->max_entries = UINT32_MAX;
    lim->max_rule_words = UINT32_MAX;
}

/* ---- small growable arrays ---- */

struct u64vec {
    uint64_t *v;
    size_t n, cap;
};

static int u64_push(struct u64vec *a, uint64_t x)
{
    if (wx_reserve((void **)&a->v, &a->cap, a->n + 1, sizeof *a->v, 256) != 0)
        return -1;
    a->v[a->n++] = x;
    return 0;
}

/* Sorts and removes duplicates; returns the new length. */
static size_t sort_unique(uint64_t *v, size_t n)
{
    if (n < 2)
        return n;
    qsort(v, n, sizeof *v, wx_cmp_u64);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[m - 1])
            v[m++] = v[i];
    return m;
}

/* A (component, label, value) triple: value is a result label (local rules)
 * or a class id (synchronising participants).  Sorted tables of these answer
 * "what does label l of component c produce". */
struct triple {
    uint32_t comp, label, value;
};

static int cmp_triple(const void *a, const void *b)
{
    const struct triple *x = a, *y = b;
    if (x->comp != y->comp)
        return x->comp < y->comp ? -1 : 1;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* Sorts and deduplicates t[0..n); returns the new length. */
static uint32_t triples_finish(struct triple *t, uint32_t n)
{
    if (n < 2)
        return n;
    qsort(t, n, sizeof *t, cmp_triple);
    uint32_t m = 1;
    for (uint32_t i = 1; i < n; i++)
        if (cmp_triple(&t[i], &t[m - 1]) != 0)
            t[m++] = t[i];
    return m;
}

/* Range [*lo, *hi) of the triples with (comp, label) in a sorted table whose
 * component c occupies [cs, ce). */
static void triples_find(const struct triple *t, uint32_t cs, uint32_t ce, uint32_t label,
                         uint32_t *lo, uint32_t *hi)
{
    uint32_t a = cs, b = ce;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (t[m].label < label)
            a = m + 1;
        else
            b = m;
    }
    *lo = a;
    while (a < ce && t[a].label == label)
        a++;
    *hi = a;
}

/* ---- classes ---- */

struct cls {
    uint32_t result;
    uint32_t n, cap;        /* participants so far */
    uint32_t *comp, *label; /* ascending by comp */
    uint32_t prev;          /* previous class with the same result, NONE */
    uint32_t n_rules;
};

/* Can rule r (participants pc/pl[0..n), ascending comps) join class k?  Yes
 * iff no participant's component already uses another label in k. */
static int class_fits(const struct cls *k, const uint32_t *pc, const uint32_t *pl, uint32_t n)
{
    uint32_t i = 0, j = 0;
    while (i < n && j < k->n) {
        if (pc[i] == k->comp[j]) {
            if (pl[i] != k->label[j])
                return 0;
            i++, j++;
        } else if (pc[i] < k->comp[j]) {
            i++;
        } else {
            j++;
        }
    }
    return 1;
}

/* Merges the rule's participants into class k (class_fits(k, ...) holds, so
 * a component present in both uses the same label). */
static int class_add(struct cls *k, const uint32_t *pc, const uint32_t *pl, uint32_t n)
{
    uint32_t total = k->n, i = 0, j = 0;
    while (i < n) { /* size after the merge */
        while (j < k->n && k->comp[j] < pc[i])
            j++;
        if (j == k->n || k->comp[j] != pc[i])
            total++;
        i++;
    }
    if (total > k->cap) {
        uint32_t cap = total < 8 ? 8 : 2 * total;
        uint32_t *c = realloc(k->comp, cap * sizeof *c);
        if (!c)
            return -1;
        k->comp = c;
        uint32_t *l = realloc(k->label, cap * sizeof *l);
        if (!l)
            return -1;
        k->label = l;
        k->cap = cap;
    }
    /* merge from the back, in place */
    uint32_t o = total;
    i = n, j = k->n;
    while (i > 0 || j > 0) {
        o--;
        if (i > 0 && j > 0 && pc[i - 1] == k->comp[j - 1]) {
            i--, j--;
            k->comp[o] = k->comp[j], k->label[o] = k->label[j];
        } else if (i > 0 && (j == 0 || pc[i - 1] > k->comp[j - 1])) {
            i--;
            k->comp[o] = pc[i], k->label[o] = pl[i];
        } else {
            j--;
            k->comp[o] = k->comp[j], k->label[o] = k->label[j];
        }
    }
    k->n = total;
    return 0;
}

/* ---- the compiler ---- */

struct compiler {
    const struct network *net;
    struct image *img;
    struct wx_error *err;
    struct image_limits lim;

    uint32_t n_labels;
    struct cls *cls;
    uint32_t n_cls, cap_cls;
    uint32_t *rule_class;   /* per network rule: class id, NONE for local */

    struct triple *loc, *syn; /* local rules, sync participants */
    uint32_t n_loc, n_syn;
    uint32_t *loc_start, *syn_start; /* n_comps + 1 each: per component ranges */

    struct u64vec entries;
    uint64_t *pairs;        /* per-state scratch: (key << 32) | target */
    size_t n_pairs, cap_pairs;
};

static int oom(struct compiler *cc)
{
    return wx_fail(cc->err, WX_ELIMIT, NULL, 0, 0, "out of memory while compiling the network image");
}

static const char *comp_name(const struct network *net, uint32_t c)
{
    return net->comp_names && net->comp_names[c] ? net->comp_names[c] : "?";
}

/* Step 1: shapes and ids, before anything is sized from them. */
static int validate(struct compiler *cc)
{
    const struct network *net = cc->net;
    for (uint32_t c = 0; c < net->n_comps; c++) {
        uint32_t n = net->comps[c].n_states;
        if (n == 0)
            return wx_fail(cc->err, WX_EINPUT, NULL, 0, 0, "component %u (%s) has no states", c,
                           comp_name(net, c));
        if (n > LTS_MAX_STATES)
            return wx_fail(cc->err, WX_ELIMIT, NULL, 0, 0,
                           "component %u (%s) has %u states; the image allows at most "
                           "LTS_MAX_STATES = %u per component",
                           c, comp_name(net, c), n, LTS_MAX_STATES);
    }
    for (uint32_t r = 0; r < net->n_rules; r++) {
        uint32_t a = net->rule_start[r], b = net->rule_start[r + 1];
        if (b <= a)
            return wx_fail(cc->err, WX_EINPUT, NULL, 0, 0,
                           "rule %u has no participants (an all-'_' vector cannot be compiled)", r);
        for (uint32_t p = a; p < b; p++) {
            if (net->part_comp[p] >= net->n_comps)
                return wx_fail(cc->err, WX_EINPUT, NULL, 0, 0,
                               "rule %u names component %u; the network has %u", r,
                               net->part_comp[p], net->n_comps);
            if (p > a && net->part_comp[p] <= net->part_comp[p - 1])
                return wx_fail(cc->err, WX_EINPUT, NULL, 0, 0,
                               "rule %u: participants not in strictly ascending component order", r);
            if (net->part_label[p] >= cc->n_labels)
                return wx_fail(cc->err, WX_EINPUT, NULL, 0, 0, "rule %u: label id %u out of range", r,
                               net->part_label[p]);
        }
        if (net->rule_result[r] >= cc->n_labels)
            return wx_fail(cc->err, WX_EINPUT, NULL, 0, 0, "rule %u: result label id %u out of range", r,
                           net->rule_result[r]);
    }
    return WX_OK;
}

/* Step 2: field widths ceil(log2 n_states), packed LSB first; bit 31 of the
 * last word stays free for the hash tables' new/old flag. */
static int layout(struct compiler *cc)
{
    const struct network *net = cc->net;
    struct image *img = cc->img;
    uint32_t n = net->n_comps;
    img->first_bit = malloc((n + 1) * sizeof *img->first_bit);
    img->comp_states = malloc((n ? n : 1) * sizeof *img->comp_states);
    img->proc_offsets = malloc((n + 1) * sizeof *img->proc_offsets);
    if (!img->first_bit || !img->comp_states || !img->proc_offsets)
        return oom(cc);
    uint64_t bit = 0, offs = 0;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t s = net->comps[c].n_states;
        img->first_bit[c] = (uint32_t)bit; /* <= 32 * max_words: the loop stops beyond */
        img->comp_states[c] = s;
        img->proc_offsets[c] = (uint32_t)offs;
        bit += wx_bitlen((uint64_t)s - 1);
        offs += (uint64_t)s + 1;
        if (bit > 32ull * cc->lim.max_words)
            break; /* reported below with the full count */
    }
    if (bit + 1 > 32ull * cc->lim.max_words) {
        uint64_t total = 0;
        for (uint32_t c = 0; c < n; c++)
            total += wx_bitlen((uint64_t)net->comps[c].n_states - 1);
        return wx_fail(cc->err, WX_ELIMIT, NULL, 0, 0,
                       "state vector needs %llu bits plus the flag bit, %llu words of 32 bits; "
                       "the limit is %u word(s) (IMAGE_MAX_WORDS = %u)",
                       (unsigned long long)total, (unsigned long long)(total / 32 + 1),
                       cc->lim.max_words, IMAGE_MAX_WORDS);
    }
    if (offs > UINT32_MAX)
        return wx_fail(cc->err, WX_ELIMIT, NULL, 0, 0,
                       "the components have %llu states plus one end offset each; state offsets are "
                       "32-bit, so at most %u",
                       (unsigned long long)offs, UINT32_MAX);
    img->first_bit[n] = (uint32_t)bit;
    img->proc_offsets[n] = (uint32_t)offs;
    img->words = (uint32_t)(bit / 32 + 1);
    return WX_OK;
}

/* Step 3: rules with >= 2 participants into classes; single-participant
 * rules into the local table. */
static int group_rules(struct compiler *cc)
{
    const struct network *net = cc->net;
    uint32_t *head = malloc((cc->n_labels ? cc->n_labels : 1) * sizeof *head);
    cc->rule_class = malloc((net->n_rules ? net->n_rules : 1) * sizeof *cc->rule_class);
    cc->loc = malloc((net->n_rules ? net->n_rules : 1) * sizeof *cc->loc);
    if (!head || !cc->rule_class || !cc->loc) {
        free(head);
        return oom(cc);
    }
    for (uint32_t l = 0; l < cc->n_labels; l++)
        head[l] = NONE;
    for (uint32_t r = 0; r < net->n_rules; r++) {
        uint32_t a = net->rule_start[r], n = net->rule_start[r + 1] - a;
        const uint32_t *pc = net->part_comp + a, *pl = net->part_label + a;
        uint32_t res = net->rule_result[r];
        if (n == 1) {
            cc->loc[cc->n_loc++] = (struct triple){pc[0], pl[0], res};
            cc->rule_class[r] = NONE;
            continue;
        }
        uint32_t k = head[res], tried = 0;
        while (k != NONE && tried < CLASS_SCAN_LIMIT && !class_fits(&cc->cls[k], pc, pl, n)) {
            k = cc->cls[k].prev;
            tried++;
        }
        if (k == NONE || tried == CLASS_SCAN_LIMIT) {
            if (cc->n_cls == cc->cap_cls) {
                uint32_t cap = cc->cap_cls ? 2 * cc->cap_cls : 64;
                struct cls *v = realloc(cc->cls, cap * sizeof *v);
                if (!v) {
                    free(head);
                    return oom(cc);
                }
                cc->cls = v;
                cc->cap_cls = cap;
            }
            k = cc->n_cls++;
            memset(&cc->cls[k], 0, sizeof cc->cls[k]);
            cc->cls[k].result = res;
            cc->cls[k].prev = head[res];
            head[res] = k;
        }
        if (class_add(&cc->cls[k], pc, pl, n) != 0) {
            free(head);
            return oom(cc);
        }
        cc->cls[k].n_rules++;
        cc->rule_class[r] = k;
    }
    free(head);
    cc->n_loc = triples_finish(cc->loc, cc->n_loc);

    uint64_t n_syn = 0;
    for (uint32_t k = 0; k < cc->n_cls; k++)
        n_syn += cc->cls[k].n;
    cc->syn = malloc((n_syn ? n_syn : 1) * sizeof *cc->syn);
    if (!cc->syn)
        return oom(cc);
    for (uint32_t k = 0; k < cc->n_cls; k++)
        for (uint32_t i = 0; i < cc->cls[k].n; i++)
            cc->syn[cc->n_syn++] = (struct triple){cc->cls[k].comp[i], cc->cls[k].label[i], k};
    cc->n_syn = triples_finish(cc->syn, cc->n_syn);

    /* per-component ranges of both tables */
    uint32_t nc = net->n_comps;
    cc->loc_start = calloc(nc + 1, sizeof *cc->loc_start);
    cc->syn_start = calloc(nc + 1, sizeof *cc->syn_start);
    if (!cc->loc_start || !cc->syn_start)
        return oom(cc);
    for (uint32_t i = 0; i < cc->n_loc; i++)
        cc->loc_start[cc->loc[i].comp + 1]++;
    for (uint32_t i = 0; i < cc->n_syn; i++)
        cc->syn_start[cc->syn[i].comp + 1]++;
    for (uint32_t c = 0; c < nc; c++) {
        cc->loc_start[c + 1] += cc->loc_start[c];
        cc->syn_start[c + 1] += cc->syn_start[c];
    }
    return WX_OK;
}

/* Step 4: the label field holds local result ids and class ids. */
static int entry_format(struct compiler *cc)
{
    struct image *img = cc->img;
    const struct network *net = cc->net;
    uint32_t max_local = 0;
    for (uint32_t i = 0; i < cc->n_loc; i++)
        if (cc->loc[i].value > max_local)
            max_local = cc->loc[i].value;
    uint64_t max_id = max_local;
    if (cc->n_cls > 0 && cc->n_cls - 1 > max_id)
        max_id = cc->n_cls - 1;
    uint32_t act_bits = wx_bitlen(max_id);
    if (act_bits == 0)
        act_bits = 1; /* a 0-bit field is legal but a trap for consumers: keep 1..31 */
    if (act_bits > cc->lim.max_act_bits)
        return wx_fail(cc->err, WX_ELIMIT, NULL, 0, 0,
                       "transition entries need %u bits for label/class ids (%u synchronisation "
                       "classes, largest local result label id %u); the limit is %u bits "
                       "(IMAGE_MAX_ACT_BITS = %u)",
                       act_bits, cc->n_cls, max_local, cc->lim.max_act_bits, IMAGE_MAX_ACT_BITS);
    img->act_bits = act_bits;
    img->state_bits = malloc((net->n_comps ? net->n_comps : 1) * sizeof *img->state_bits);
    if (!img->state_bits)
        return oom(cc);
    for (uint32_t c = 0; c < net->n_comps; c++) {
        /* a slot holds target + 1 <= n_states, 0 meaning empty */
        uint32_t sb = wx_bitlen(net->comps[c].n_states);
        img->state_bits[c] = sb;
        if (63u - act_bits < sb)
            return wx_fail(cc->err, WX_ELIMIT, NULL, 0, 0,
                           "component %u (%s): a %u-bit state slot does not fit in a 64-bit "
                           "transition entry next to %u label bits (0 slots per entry)",
                           c, comp_name(net, c), sb, act_bits);
    }
    return WX_OK;
}

static int pairs_push(struct compiler *cc, uint64_t x)
{
    if (cc->n_pairs == cc->cap_pairs) {
        size_t cap = cc->cap_pairs ? 2 * cc->cap_pairs : 256;
        uint64_t *v = realloc(cc->pairs, cap * sizeof *v);
        if (!v)
            return -1;
        cc->pairs = v;
        cc->cap_pairs = cap;
    }
    cc->pairs[cc->n_pairs++] = x;
    return 0;
}

static int push_entry(struct compiler *cc, uint64_t e)
{
    if (cc->entries.n >= cc->lim.max_entries)
        return wx_fail(cc->err, WX_ELIMIT, NULL, 0, 0,
                       "the image needs more than %llu transition entries (the limit: entries are "
                       "indexed by 32-bit state offsets)",
                       (unsigned long long)cc->lim.max_entries);
    if (u64_push(&cc->entries, e) != 0)
        return oom(cc);
    return WX_OK;
}

/* Emits the sorted (key, target) pairs as entries: one group per key, up to
 * `slots` targets per entry, filled slots first.  `sync` selects the flag;
 * for sync groups the largest group size in entries updates
 * max_class_entries. */
static int emit_pairs(struct compiler *cc, uint32_t c, uint32_t sync)
{
    struct image *img = cc->img;
    uint32_t ab = img->act_bits, sb = img->state_bits[c];
    uint32_t slots = image_entry_slots(ab, sb);
    size_t i = 0;
    while (i < cc->n_pairs) {
        uint32_t key = (uint32_t)(cc->pairs[i] >> 32);
        uint64_t base = (uint64_t)sync | ((uint64_t)key << 1);
        uint64_t e = base;
        uint32_t k = 0, n_entries = 0;
        int rc;
        for (; i < cc->n_pairs && (uint32_t)(cc->pairs[i] >> 32) == key; i++) {
            uint64_t t = (uint32_t)cc->pairs[i];
            e |= (t + 1) << (1 + ab + k * sb);
            if (++k == slots) {
                if ((rc = push_entry(cc, e)) != WX_OK)
                    return rc;
                n_entries++;
                e = base;
                k = 0;
            }
        }
        if (k > 0) {
            if ((rc = push_entry(cc, e)) != WX_OK)
                return rc;
            n_entries++;
        }
        if (sync && n_entries > img->max_class_entries)
            img->max_class_entries = n_entries;
    }
    return WX_OK;
}

/* Step 5: the entries of every (component, state). */
static int build_entries(struct compiler *cc)
{
    const struct network *net = cc->net;
    struct image *img = cc->img;
    img->state_offsets = malloc((img->proc_offsets[net->n_comps] ? img->proc_offsets[net->n_comps] : 1) *
                                sizeof *img->state_offsets);
    if (!img->state_offsets)
        return oom(cc);
    for (uint32_t c = 0; c < net->n_comps; c++) {
        const struct lts *l = &net->comps[c];
        uint32_t *so = img->state_offsets + img->proc_offsets[c];
        for (uint32_t s = 0; s < l->n_states; s++) {
            so[s] = (uint32_t)cc->entries.n;
            for (int pass = 0; pass < 2; pass++) { /* 0: local, 1: sync */
                const struct triple *tab = pass ? cc->syn : cc->loc;
                uint32_t cs = pass ? cc->syn_start[c] : cc->loc_start[c];
                uint32_t ce = pass ? cc->syn_start[c + 1] : cc->loc_start[c + 1];
                if (cs == ce)
                    continue;
                cc->n_pairs = 0;
                uint64_t i = l->offsets[s], end = l->offsets[s + 1];
                while (i < end) {
                    uint32_t lab = l->label[i], lo, hi;
                    uint64_t j = i;
                    while (j < end && l->label[j] == lab)
                        j++;
                    triples_find(tab, cs, ce, lab, &lo, &hi);
                    for (uint32_t t = lo; t < hi; t++)
                        for (uint64_t x = i; x < j; x++) {
                            if (l->dst[x] & LTS_DST_DISTRIBUTION) {
                                /* the support graph: every state the
                                 * distribution can reach is a target */
                                uint32_t d = l->dst[x] & ~LTS_DST_DISTRIBUTION;
                                if (d >= l->n_dists)
                                    return wx_fail(cc->err, WX_EINPUT, NULL, 0, 0,
                                                   "component %u (%s): distribution %u out of range",
                                                   c, comp_name(net, c), d);
                                for (uint64_t k = l->dist_start[d]; k < l->dist_start[d + 1]; k++)
                                    if (pairs_push(cc, ((uint64_t)tab[t].value << 32) |
                                                           l->dist_state[k]) != 0)
                                        return oom(cc);
                                continue;
                            }
                            if (l->dst[x] >= l->n_states)
                                return wx_fail(cc->err, WX_EINPUT, NULL, 0, 0,
                                               "component %u (%s): transition target %u out of "
                                               "range (%u states)",
                                               c, comp_name(net, c), l->dst[x], l->n_states);
                            if (pairs_push(cc, ((uint64_t)tab[t].value << 32) | l->dst[x]) != 0)
                                return oom(cc);
                        }
                    i = j;
                }
                cc->n_pairs = sort_unique(cc->pairs, cc->n_pairs);
                int rc = emit_pairs(cc, c, (uint32_t)pass);
                if (rc != WX_OK)
                    return rc;
            }
        }
        so[l->n_states] = (uint32_t)cc->entries.n;
    }
    img->n_entries = (uint32_t)cc->entries.n;
    img->trans = cc->entries.v ? cc->entries.v : malloc(sizeof *img->trans);
    cc->entries.v = NULL;
    if (!img->trans)
        return oom(cc);
    return WX_OK;
}

/* Step 5b (probabilistic networks only): the choice table of image.h. */
static int build_pchoices(struct compiler *cc)
{
    const struct network *net = cc->net;
    struct image *img = cc->img;
    uint32_t nc = net->n_comps;
    uint64_t n_ch = 0, n_tg = 0, n_init = 0;
    struct u64vec keys = {0};  /* (sync << 31 | value) << 32 | dst, per state */
    uint32_t *po = malloc((img->proc_offsets[nc] ? img->proc_offsets[nc] : 1) * sizeof *po);
    uint32_t *key = NULL, *start = NULL, *tgt = NULL;
    double *prob = NULL;
    uint64_t *num = NULL, *den = NULL;
    size_t cap_ch = 0, cap_tg = 0;
    img->pinit_start = malloc((nc + 1) * sizeof *img->pinit_start);
    img->comp_dists = malloc((nc ? nc : 1) * sizeof *img->comp_dists);
    if (!po || !img->pinit_start || !img->comp_dists) {
        free(po);
        return oom(cc);
    }
    img->pchoice_offsets = po;
    for (uint32_t c = 0; c < nc; c++) {
        const struct lts *l = &net->comps[c];
        img->comp_dists[c] = l->n_dists;
        img->pinit_start[c] = (uint32_t)n_init;
        n_init += l->init_dist ? l->dist_start[l->init_dist] - l->dist_start[l->init_dist - 1] : 1;
        for (uint32_t s = 0; s < l->n_states; s++) {
            po[img->proc_offsets[c] + s] = (uint32_t)n_ch;
            keys.n = 0;
            for (int pass = 0; pass < 2; pass++) {
                const struct triple *tab = pass ? cc->syn : cc->loc;
                uint32_t cs = pass ? cc->syn_start[c] : cc->loc_start[c];
                uint32_t ce = pass ? cc->syn_start[c + 1] : cc->loc_start[c + 1];
                for (uint64_t i = l->offsets[s]; i < l->offsets[s + 1]; i++) {
                    uint32_t lo, hi;
                    triples_find(tab, cs, ce, l->label[i], &lo, &hi);
                    for (uint32_t t = lo; t < hi; t++) {
                        uint64_t k = (uint64_t)pass << 31 | tab[t].value;
                        if (u64_push(&keys, k << 32 | l->dst[i]) != 0)
                            goto nomem;
                    }
                }
            }
            keys.n = sort_unique(keys.v, keys.n);
            for (size_t i = 0; i < keys.n; i++) {
                uint32_t d = (uint32_t)keys.v[i];
                uint64_t n = d & LTS_DST_DISTRIBUTION
                                 ? l->dist_start[(d & ~LTS_DST_DISTRIBUTION) + 1] -
                                       l->dist_start[d & ~LTS_DST_DISTRIBUTION]
                                 : 1;
                if (n_ch + 1 >= UINT32_MAX || n_tg + n >= UINT32_MAX) {
                    free(keys.v), free(key), free(start), free(tgt), free(prob), free(num), free(den);
                    return wx_fail(cc->err, WX_ELIMIT, NULL, 0, 0,
                                   "more than 2^32 - 1 probabilistic choices or targets in the image");
                }
                void **const ch_arrays[] = {(void **)&key, (void **)&start};
                const size_t ch_sizes[] = {sizeof *key, sizeof *start};
                void **const tg_arrays[] = {(void **)&tgt, (void **)&prob, (void **)&num, (void **)&den};
                const size_t tg_sizes[] = {sizeof *tgt, sizeof *prob, sizeof *num, sizeof *den};
                if (wx_reserve_all(&cap_ch, n_ch + 2, 256, 2, ch_arrays, ch_sizes) != 0 ||
                    wx_reserve_all(&cap_tg, n_tg + n, 256, 4, tg_arrays, tg_sizes) != 0)
                    goto nomem;
                key[n_ch] = (uint32_t)(keys.v[i] >> 32);
                start[n_ch] = (uint32_t)n_tg;
                if (d & LTS_DST_DISTRIBUTION) {
                    uint32_t di = d & ~LTS_DST_DISTRIBUTION;
                    for (uint64_t k = l->dist_start[di]; k < l->dist_start[di + 1]; k++, n_tg++) {
                        tgt[n_tg] = l->dist_state[k];
                        prob[n_tg] = (double)l->dist_num[k] / (double)l->dist_den[k];
                        num[n_tg] = l->dist_num[k], den[n_tg] = l->dist_den[k];
                    }
                } else {
                    tgt[n_tg] = d;
                    prob[n_tg] = 1.0;
                    num[n_tg] = den[n_tg] = 1;
                    n_tg++;
                }
                n_ch++;
            }
        }
        po[img->proc_offsets[c] + l->n_states] = (uint32_t)n_ch;
    }
    img->pinit_start[nc] = (uint32_t)n_init;
    img->pinit_state = malloc((n_init ? n_init : 1) * sizeof *img->pinit_state);
    img->pinit_prob = malloc((n_init ? n_init : 1) * sizeof *img->pinit_prob);
    img->pinit_num = malloc((n_init ? n_init : 1) * sizeof *img->pinit_num);
    img->pinit_den = malloc((n_init ? n_init : 1) * sizeof *img->pinit_den);
    if (!img->pinit_state || !img->pinit_prob || !img->pinit_num || !img->pinit_den)
        goto nomem;
    for (uint32_t c = 0; c < nc; c++) {
        const struct lts *l = &net->comps[c];
        uint32_t at = img->pinit_start[c];
        if (!l->init_dist) {
            img->pinit_state[at] = 0, img->pinit_prob[at] = 1.0;
            img->pinit_num[at] = img->pinit_den[at] = 1;
            continue;
        }
        for (uint64_t k = l->dist_start[l->init_dist - 1]; k < l->dist_start[l->init_dist]; k++, at++) {
            img->pinit_state[at] = l->dist_state[k];
            img->pinit_prob[at] = (double)l->dist_num[k] / (double)l->dist_den[k];
            img->pinit_num[at] = l->dist_num[k], img->pinit_den[at] = l->dist_den[k];
        }
    }
    if (!start && !(start = malloc(sizeof *start)))
        goto nomem;
    start[n_ch] = (uint32_t)n_tg;
    img->n_pchoices = (uint32_t)n_ch;
    img->n_ptargets = (uint32_t)n_tg;
    img->pchoice_key = key ? key : malloc(sizeof *key);
    img->pchoice_start = start;
    img->ptarget = tgt ? tgt : malloc(sizeof *tgt);
    img->pprob = prob ? prob : malloc(sizeof *prob);
    img->pnum = num ? num : malloc(sizeof *num);
    img->pden = den ? den : malloc(sizeof *den);
    free(keys.v);
    if (!img->pchoice_key || !img->ptarget || !img->pprob || !img->pnum || !img->pden)
        return oom(cc);
    img->probabilistic = 1;
    return WX_OK;
nomem:
    free(keys.v), free(key), free(start), free(tgt), free(prob), free(num), free(den);
    return oom(cc);
}

/* Step 6a: classes' rule lists and masks, and the participants' labels. */
static int build_rules(struct compiler *cc)
{
    const struct network *net = cc->net;
    struct image *img = cc->img;
    uint32_t nk = cc->n_cls;
    img->n_classes = nk;
    img->mask_words = (net->n_comps + 31) / 32;
    uint64_t n_rules = 0, n_parts = 0;
    for (uint32_t k = 0; k < nk; k++) {
        n_rules += cc->cls[k].n_rules;
        n_parts += cc->cls[k].n;
    }
    if (n_rules * img->mask_words > cc->lim.max_rule_words)
        return wx_fail(cc->err, WX_ELIMIT, NULL, 0, 0,
                       "%llu synchronising rules of %u mask words each exceed the limit of %llu "
                       "rule-mask words (32-bit indices)",
                       (unsigned long long)n_rules, img->mask_words,
                       (unsigned long long)cc->lim.max_rule_words);
    img->n_rules = (uint32_t)n_rules;
    img->class_result = malloc((nk ? nk : 1) * sizeof *img->class_result);
    img->class_rule_start = malloc((nk + 1) * sizeof *img->class_rule_start);
    uint64_t mask_total = n_rules * img->mask_words;
    img->rule_mask = calloc(mask_total > 0 ? mask_total : 1, sizeof *img->rule_mask);
    img->class_part_start = malloc((nk + 1) * sizeof *img->class_part_start);
    img->class_part_comp = malloc((n_parts ? n_parts : 1) * sizeof *img->class_part_comp);
    img->class_part_label = malloc((n_parts ? n_parts : 1) * sizeof *img->class_part_label);
    uint32_t *cursor = malloc((nk ? nk : 1) * sizeof *cursor);
    if (!img->class_result || !img->class_rule_start || !img->rule_mask || !img->class_part_start ||
        !img->class_part_comp || !img->class_part_label || !cursor) {
        free(cursor);
        return oom(cc);
    }
    uint32_t at = 0, pat = 0;
    for (uint32_t k = 0; k < nk; k++) {
        img->class_result[k] = cc->cls[k].result;
        img->class_rule_start[k] = at;
        cursor[k] = at;
        at += cc->cls[k].n_rules;
        img->class_part_start[k] = pat;
        for (uint32_t i = 0; i < cc->cls[k].n; i++, pat++) {
            img->class_part_comp[pat] = cc->cls[k].comp[i];
            img->class_part_label[pat] = cc->cls[k].label[i];
        }
    }
    img->class_rule_start[nk] = at;
    img->class_part_start[nk] = pat;
    for (uint32_t r = 0; r < net->n_rules; r++) {
        uint32_t k = cc->rule_class[r];
        if (k == NONE)
            continue;
        uint32_t *m = img->rule_mask + (size_t)cursor[k]++ * img->mask_words;
        for (uint32_t p = net->rule_start[r]; p < net->rule_start[r + 1]; p++)
            m[net->part_comp[p] / 32] |= 1u << (net->part_comp[p] % 32);
    }
    free(cursor);
    return WX_OK;
}

/* Step 6b: label table copy (same ids as the network's), names, local rules,
 * component sizes. */
static int build_names(struct compiler *cc)
{
    const struct network *net = cc->net;
    struct image *img = cc->img;
    img->labels = strtab_new();
    if (!img->labels)
        return oom(cc);
    for (uint32_t l = 0; l < cc->n_labels; l++)
        if (strtab_intern(img->labels, strtab_str(net->labels, l), strtab_len(net->labels, l)) != l)
            return oom(cc);
    img->n_labels = cc->n_labels;
    img->hidden = net->hidden < cc->n_labels ? net->hidden : UINT32_MAX;
    uint32_t n = net->n_comps;
    img->comp_names = calloc(n ? n : 1, sizeof *img->comp_names);
    img->comp_trans = malloc((n ? n : 1) * sizeof *img->comp_trans);
    if (!img->comp_names || !img->comp_trans)
        return oom(cc);
    for (uint32_t c = 0; c < n; c++) {
        img->comp_names[c] = strdup(comp_name(net, c));
        if (!img->comp_names[c])
            return oom(cc);
        img->comp_trans[c] = net->comps[c].n_trans;
    }
    uint32_t m = cc->n_loc ? cc->n_loc : 1;
    img->local_rule_comp = malloc(m * sizeof(uint32_t));
    img->local_rule_label = malloc(m * sizeof(uint32_t));
    img->local_rule_result = malloc(m * sizeof(uint32_t));
    if (!img->local_rule_comp || !img->local_rule_label || !img->local_rule_result)
        return oom(cc);
    for (uint32_t i = 0; i < cc->n_loc; i++) {
        img->local_rule_comp[i] = cc->loc[i].comp;
        img->local_rule_label[i] = cc->loc[i].label;
        img->local_rule_result[i] = cc->loc[i].value;
    }
    img->n_local_rules = cc->n_loc;
    return WX_OK;
}

/* Step 7: the priority arrays, copied (network.h). */
static int copy_prio(struct compiler *cc)
{
    const struct network *net = cc->net;
    struct image *img = cc->img;
    uint32_t n = net->prio_n, m = n ? net->prio_above_start[n] : 0;
    if (!n)
        return WX_OK;
    img->prio_above_start = malloc(((size_t)n + 1) * sizeof(uint32_t));
    img->prio_above = malloc((m ? m : 1) * sizeof(uint32_t));
    img->prio_out = malloc((size_t)n * sizeof(uint32_t));
    if (!img->prio_above_start || !img->prio_above || !img->prio_out)
        return oom(cc);
    memcpy(img->prio_above_start, net->prio_above_start, ((size_t)n + 1) * sizeof(uint32_t));
    memcpy(img->prio_above, net->prio_above, (size_t)m * sizeof(uint32_t));
    memcpy(img->prio_out, net->prio_out, (size_t)n * sizeof(uint32_t));
    img->prio_n = n;
    return WX_OK;
}

int image_compile_limited(const struct network *net, const struct image_limits *lim,
                          struct image *img, struct wx_error *err)
{
    struct compiler cc;
    memset(&cc, 0, sizeof cc);
    memset(img, 0, sizeof *img);
    cc.net = net;
    cc.img = img;
    cc.err = err;
    image_default_limits(&cc.lim);
    if (lim) {
        if (lim->max_words < cc.lim.max_words)
            cc.lim.max_words = lim->max_words;
        if (lim->max_act_bits < cc.lim.max_act_bits)
            cc.lim.max_act_bits = lim->max_act_bits;
        if (lim->max_entries < cc.lim.max_entries)
            cc.lim.max_entries = lim->max_entries;
        if (lim->max_rule_words < cc.lim.max_rule_words)
            cc.lim.max_rule_words = lim->max_rule_words;
    }
    cc.n_labels = net->labels ? strtab_count(net->labels) : 0;
    img->n_comps = net->n_comps;

    int rc = validate(&cc);
    if (rc == WX_OK)
        rc = layout(&cc);
    if (rc == WX_OK)
        rc = group_rules(&cc);
    if (rc == WX_OK)
        rc = entry_format(&cc);
    if (rc == WX_OK)
        rc = build_entries(&cc);
    int prob = 0;
    for (uint32_t c = 0; c < net->n_comps; c++)
        prob |= net->comps[c].n_dists > 0 || net->comps[c].init_dist;
    if (rc == WX_OK && prob)
        rc = build_pchoices(&cc);
    if (rc == WX_OK)
        rc = build_rules(&cc);
    if (rc == WX_OK)
        rc = build_names(&cc);
    if (rc == WX_OK)
        rc = copy_prio(&cc);

    for (uint32_t k = 0; k < cc.n_cls; k++)
        free(cc.cls[k].comp), free(cc.cls[k].label);
    free(cc.cls), free(cc.rule_class), free(cc.loc), free(cc.syn);
    free(cc.loc_start), free(cc.syn_start), free(cc.entries.v), free(cc.pairs);
    if (rc != WX_OK)
        image_free(img);
    return rc;
}

int image_compile(const struct network *net, struct image *img, struct wx_error *err)
{
    return image_compile_limited(net, NULL, img, err);
}

void image_free(struct image *img)
{
    if (img->comp_names)
        for (uint32_t c = 0; c < img->n_comps; c++)
            free(img->comp_names[c]);
    free(img->comp_names);
    strtab_free(img->labels);
    free(img->first_bit), free(img->comp_states), free(img->proc_offsets), free(img->state_offsets);
    free(img->trans), free(img->state_bits), free(img->class_result), free(img->class_rule_start);
    free(img->rule_mask), free(img->class_part_start), free(img->class_part_comp);
    free(img->class_part_label), free(img->local_rule_comp), free(img->local_rule_label);
    free(img->local_rule_result), free(img->comp_trans);
    free(img->prio_above_start), free(img->prio_above), free(img->prio_out);
    free(img->pchoice_offsets), free(img->pchoice_key), free(img->pchoice_start);
    free(img->ptarget), free(img->pprob), free(img->pinit_start), free(img->pinit_state);
    free(img->pinit_prob), free(img->comp_dists), free(img->pnum), free(img->pden);
    free(img->pinit_num), free(img->pinit_den);
    memset(img, 0, sizeof *img);
}

uint32_t image_prio_above_labels(const struct image *img)
{
    const uint32_t n = img->prio_n;
    if (n == 0)
        return 0;
    uint8_t *seen = calloc(n, 1);
    uint32_t k = 0;
    if (!seen)
        return UINT32_MAX; /* as many as can be: the caller takes the general path */
    for (uint32_t i = 0; i < img->prio_above_start[n]; i++)
        if (!seen[img->prio_above[i]])
            seen[img->prio_above[i]] = 1, k++;
    free(seen);
    return k;
}
