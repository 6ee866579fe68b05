/*
 * fuzz_check.h -- the invariants the readers' headers promise, checked on
 * every successfully read result by the fuzz targets (a violation aborts
 * through FZ_CHECK).  Each check is linear in the result's size.
 */
#ifndef WX_FUZZ_CHECK_H
#define WX_FUZZ_CHECK_H

#include <math.h>

#include "fuzz_common.h"
#include "graph/csr.h"
#include "graph/mdp.h"
#include "graph/mdp_lab.h"
#include "graph/wgraph.h"
#include "network/image.h"
#include "network/lts.h"
#include "util/strtab.h"

/* network/lts.h: a finished LTS (plain or probabilistic); n_labels bounds
 * the label ids. */
static inline void fz_check_lts(const struct lts *l, uint32_t n_labels)
{
    FZ_CHECK(l->n_states >= 1 && l->n_states <= LTS_MAX_STATES, "n_states %u", l->n_states);
    FZ_CHECK(l->offsets && l->offsets[0] == 0, "offsets[0] must be 0");
    for (uint32_t s = 0; s < l->n_states; s++) {
        FZ_CHECK(l->offsets[s] <= l->offsets[s + 1], "offsets decrease at state %u", s);
        for (uint64_t t = l->offsets[s]; t < l->offsets[s + 1]; t++)
            FZ_CHECK(l->src[t] == s, "transition %llu in state %u's range has src %u",
                     (unsigned long long)t, s, l->src[t]);
    }
    FZ_CHECK(l->offsets[l->n_states] == l->n_trans, "offsets[n] %llu != n_trans %llu",
             (unsigned long long)l->offsets[l->n_states], (unsigned long long)l->n_trans);
    for (uint64_t t = 0; t < l->n_trans; t++) {
        FZ_CHECK(l->label[t] < n_labels, "label %u of %u", l->label[t], n_labels);
        uint32_t d = l->dst[t];
        if (d & LTS_DST_DISTRIBUTION)
            FZ_CHECK((d & ~LTS_DST_DISTRIBUTION) < l->n_dists, "distribution %u of %u",
                     d & ~LTS_DST_DISTRIBUTION, l->n_dists);
        else
            FZ_CHECK(d < l->n_states, "dst %u of %u states", d, l->n_states);
        if (t > 0) {
            int order = l->src[t - 1] != l->src[t]     ? (l->src[t - 1] < l->src[t] ? -1 : 1)
                        : l->label[t - 1] != l->label[t] ? (l->label[t - 1] < l->label[t] ? -1 : 1)
                        : l->dst[t - 1] != l->dst[t]     ? (l->dst[t - 1] < l->dst[t] ? -1 : 1)
                                                         : 0;
            FZ_CHECK(order < 0, "transitions %llu and %llu not strictly sorted (a duplicate?)",
                     (unsigned long long)t - 1, (unsigned long long)t);
        }
    }
    FZ_CHECK(l->n_dists == 0 || (l->dist_start && l->dist_start[0] == 0), "dist_start[0]");
    for (uint32_t d = 0; d < l->n_dists; d++) {
        uint64_t a = l->dist_start[d], b = l->dist_start[d + 1];
        FZ_CHECK(b >= a + 2, "distribution %u has %llu entries (at least 2)", d,
                 (unsigned long long)(b - a));
        long double sum = 0;
        for (uint64_t i = a; i < b; i++) {
            FZ_CHECK(l->dist_state[i] < l->n_states, "distribution %u: state %u", d, l->dist_state[i]);
            FZ_CHECK(i == a || l->dist_state[i - 1] < l->dist_state[i],
                     "distribution %u: states not strictly ascending", d);
            FZ_CHECK(l->dist_num[i] > 0 && l->dist_num[i] < l->dist_den[i],
                     "distribution %u: probability %llu/%llu not in (0, 1)", d,
                     (unsigned long long)l->dist_num[i], (unsigned long long)l->dist_den[i]);
            sum += (long double)l->dist_num[i] / (long double)l->dist_den[i];
        }
        FZ_CHECK(fabsl(sum - 1) < 1e-9L, "distribution %u sums to %Lg", d, sum);
    }
    FZ_CHECK(l->init_dist <= l->n_dists, "init_dist %u of %u", l->init_dist, l->n_dists);
}

/* graph/csr.h: offsets monotone and ending at n_edges, targets in range,
 * each segment sorted by (label, target) without duplicates. */
static inline void fz_check_csr(const struct csr *g)
{
    FZ_CHECK(g->offsets && g->offsets[0] == 0, "offsets[0] must be 0");
    uint32_t n_labels = g->label_names ? strtab_count(g->label_names) : 0;
    for (uint64_t v = 0; v < g->n_vertices; v++) {
        FZ_CHECK(g->offsets[v] <= g->offsets[v + 1], "offsets decrease at vertex %llu",
                 (unsigned long long)v);
        for (uint64_t e = g->offsets[v]; e < g->offsets[v + 1]; e++) {
            FZ_CHECK(g->targets[e] < g->n_vertices, "edge %llu: target %u of %llu vertices",
                     (unsigned long long)e, g->targets[e], (unsigned long long)g->n_vertices);
            if (g->labels)
                FZ_CHECK(g->labels[e] < n_labels, "edge %llu: label %u of %u",
                         (unsigned long long)e, g->labels[e], n_labels);
            if (e > g->offsets[v]) {
                uint32_t la = g->labels ? g->labels[e - 1] : 0, lb = g->labels ? g->labels[e] : 0;
                FZ_CHECK(la < lb || (la == lb && g->targets[e - 1] < g->targets[e]),
                         "vertex %llu: edges not sorted by (label, target) or duplicated",
                         (unsigned long long)v);
            }
        }
    }
    FZ_CHECK(g->offsets[g->n_vertices] == g->n_edges, "offsets[n] != n_edges");
    FZ_CHECK(g->n_vertices == 0 || g->initial < g->n_vertices, "initial %u of %llu", g->initial,
             (unsigned long long)g->n_vertices);
}

/* graph/wgraph.h: CSR offsets, targets in range, transit times >= 1,
 * |weights| <= 2^31 - 1, labels in range. */
static inline void fz_check_wgraph(const struct wgraph *g)
{
    FZ_CHECK(g->offsets && g->offsets[0] == 0, "offsets[0] must be 0");
    for (uint64_t v = 0; v < g->n_vertices; v++)
        FZ_CHECK(g->offsets[v] <= g->offsets[v + 1], "offsets decrease at vertex %llu",
                 (unsigned long long)v);
    FZ_CHECK(g->offsets[g->n_vertices] == g->n_edges, "offsets[n] != n_edges");
    uint32_t n_labels = g->label_names ? strtab_count(g->label_names) : 0;
    for (uint64_t e = 0; e < g->n_edges; e++) {
        FZ_CHECK(g->targets[e] < g->n_vertices, "edge %llu: target %u", (unsigned long long)e,
                 g->targets[e]);
        FZ_CHECK(g->weights[e] >= -2147483647 && g->weights[e] <= 2147483647,
                 "edge %llu: weight %lld beyond 2^31 - 1", (unsigned long long)e,
                 (long long)g->weights[e]);
        if (g->transit)
            FZ_CHECK(g->transit[e] >= 1 && g->transit[e] <= 2147483647, "edge %llu: transit %lld",
                     (unsigned long long)e, (long long)g->transit[e]);
        if (g->labels)
            FZ_CHECK(g->labels[e] < n_labels, "edge %llu: label %u of %u", (unsigned long long)e,
                     g->labels[e], n_labels);
    }
}

/* graph/mdp.h: row groups nested and monotone, every choice non-empty,
 * targets in range, probabilities in (0, 1] summing to 1 per choice. */
static inline void fz_check_mdp(const struct mdp *m)
{
    FZ_CHECK(m->state_start && m->state_start[0] == 0, "state_start[0] must be 0");
    FZ_CHECK(m->choice_start && m->choice_start[0] == 0, "choice_start[0] must be 0");
    for (uint64_t s = 0; s < m->n_states; s++) {
        FZ_CHECK(m->state_start[s] <= m->state_start[s + 1], "state_start decreases at %llu",
                 (unsigned long long)s);
        if (m->is_dtmc)
            FZ_CHECK(m->state_start[s + 1] - m->state_start[s] <= 1, "DTMC state %llu: %llu choices",
                     (unsigned long long)s, (unsigned long long)(m->state_start[s + 1] - m->state_start[s]));
    }
    FZ_CHECK(m->state_start[m->n_states] == m->n_choices, "state_start[n] != n_choices");
    for (uint64_t c = 0; c < m->n_choices; c++) {
        uint64_t a = m->choice_start[c], b = m->choice_start[c + 1];
        FZ_CHECK(a < b, "choice %llu has no entry", (unsigned long long)c);
        double sum = 0;
        for (uint64_t e = a; e < b; e++) {
            FZ_CHECK(m->targets[e] < m->n_states, "entry %llu: target %u", (unsigned long long)e,
                     m->targets[e]);
            FZ_CHECK(m->probs[e] > 0 && m->probs[e] <= 1, "entry %llu: probability %g",
                     (unsigned long long)e, m->probs[e]);
            sum += m->probs[e];
        }
        /* the reader checks its own sum; allow for a different summing order */
        FZ_CHECK(fabs(sum - 1) <= MDP_SUM_TOLERANCE + 1e-12 * (double)(b - a),
                 "choice %llu sums to %.17g", (unsigned long long)c, sum);
    }
    FZ_CHECK(m->choice_start[m->n_choices] == m->n_entries, "choice_start[n] != n_entries");
    FZ_CHECK(m->n_states <= UINT32_MAX, "n_states %llu", (unsigned long long)m->n_states);
}

/* graph/mdp_lab.h: one bitmap per label over n_states, no bit beyond,
 * unique names. */
static inline void fz_check_labels(const struct mdp_labels *l, uint64_t n_states)
{
    FZ_CHECK(l->n_states == n_states, "labels over %llu states, the model has %llu",
             (unsigned long long)l->n_states, (unsigned long long)n_states);
    FZ_CHECK(l->words == (n_states + 63) / 64, "words %llu", (unsigned long long)l->words);
    for (uint32_t i = 0; i < l->n_labels; i++) {
        FZ_CHECK(l->names[i] != NULL, "label %u has no name", i);
        FZ_CHECK(mdp_labels_find(l, l->names[i]) == (int)i, "label name \"%s\" not unique",
                 l->names[i]);
        if (n_states % 64)
            FZ_CHECK((l->bits[(uint64_t)i * l->words + l->words - 1] >> (n_states % 64)) == 0,
                     "label %u has a state >= n_states", i);
    }
}

/* Rewards: finite, >= 0. */
static inline void fz_check_rewards(const struct mdp_rewards *r, const struct mdp *m)
{
    for (uint64_t s = 0; r->state && s < m->n_states; s++)
        FZ_CHECK(isfinite(r->state[s]) && r->state[s] >= 0, "state reward %g", r->state[s]);
    for (uint64_t c = 0; r->choice && c < m->n_choices; c++)
        FZ_CHECK(isfinite(r->choice[c]) && r->choice[c] >= 0, "choice reward %g", r->choice[c]);
}

/* network/image.h: field layout, offset arrays, every entry's label/class
 * and targets in range. */
static inline void fz_check_image(const struct image *img)
{
    FZ_CHECK(img->act_bits >= 1 && img->act_bits <= IMAGE_MAX_ACT_BITS, "act_bits %u", img->act_bits);
    FZ_CHECK(img->words >= 1 && img->words <= IMAGE_MAX_WORDS, "words %u", img->words);
    FZ_CHECK(img->first_bit[0] == 0, "first_bit[0] must be 0");
    FZ_CHECK(img->proc_offsets[0] == 0, "proc_offsets[0] must be 0");
    for (uint32_t c = 0; c < img->n_comps; c++) {
        FZ_CHECK(img->first_bit[c] <= img->first_bit[c + 1], "first_bit decreases at %u", c);
        FZ_CHECK(img->comp_states[c] >= 1, "component %u has no state", c);
        FZ_CHECK(img->proc_offsets[c + 1] == img->proc_offsets[c] + img->comp_states[c] + 1,
                 "proc_offsets[%u]", c + 1);
        FZ_CHECK(img->state_bits[c] >= 1 && img->state_bits[c] <= 63 - img->act_bits,
                 "component %u: state_bits %u", c, img->state_bits[c]);
        uint32_t slots = image_entry_slots(img->act_bits, img->state_bits[c]);
        const uint32_t *so = img->state_offsets + img->proc_offsets[c];
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            FZ_CHECK(so[s] <= so[s + 1] && so[s + 1] <= img->n_entries,
                     "component %u state %u: offsets %u..%u of %u entries", c, s, so[s], so[s + 1],
                     img->n_entries);
            for (uint32_t e = so[s]; e < so[s + 1]; e++) {
                uint64_t x = img->trans[e];
                uint32_t id = image_entry_label(x, img->act_bits);
                if (image_entry_is_sync(x))
                    FZ_CHECK(id < img->n_classes, "entry %u: class %u of %u", e, id, img->n_classes);
                else
                    FZ_CHECK(id < img->n_labels, "entry %u: label %u of %u", e, id, img->n_labels);
                FZ_CHECK(image_entry_target(x, img->act_bits, img->state_bits[c], 0) != 0xffffffffu,
                         "entry %u: no target", e);
                for (uint32_t k = 0; k < slots; k++) {
                    uint32_t t = image_entry_target(x, img->act_bits, img->state_bits[c], k);
                    FZ_CHECK(t == 0xffffffffu || t < img->comp_states[c],
                             "entry %u slot %u: target %u of %u states", e, k, t, img->comp_states[c]);
                }
            }
        }
    }
    FZ_CHECK(img->first_bit[img->n_comps] <= 32 * img->words - 1,
             "fields end at bit %u, past the flag bit of %u words", img->first_bit[img->n_comps],
             img->words);
    FZ_CHECK(img->mask_words == (img->n_comps + 31) / 32, "mask_words %u", img->mask_words);
    FZ_CHECK(img->n_classes == 0 || img->class_rule_start[0] == 0, "class_rule_start[0]");
    for (uint32_t k = 0; k < img->n_classes; k++) {
        FZ_CHECK(img->class_rule_start[k] < img->class_rule_start[k + 1], "class %u has no rule", k);
        FZ_CHECK(img->class_result[k] < img->n_labels, "class %u: result %u", k, img->class_result[k]);
    }
    FZ_CHECK(img->n_classes == 0 || img->class_rule_start[img->n_classes] == img->n_rules,
             "class_rule_start[n] != n_rules");
    for (uint32_t r = 0; r < img->n_rules; r++) {
        uint32_t parts = 0;
        for (uint32_t w = 0; w < img->mask_words; w++)
            parts += (uint32_t)__builtin_popcount(img->rule_mask[(uint64_t)r * img->mask_words + w]);
        FZ_CHECK(parts >= 2, "rule %u has %u participants", r, parts);
    }
    FZ_CHECK(img->hidden == UINT32_MAX || img->hidden < img->n_labels, "hidden %u", img->hidden);
}

#endif
