/*
 * image_check.c -- image_check (image.h): is an image, however it was made
 * (image_compile, a .gpf file, a test), safe for the explorers to read?
 * Every offset, id and target in range, fields inside the vector, entry
 * segments ordered.  The CPU and GPU explorers call it once per run, before
 * they trust any index in the image.
 */
#include "image.h"

static int bad(struct wx_error *err, const char *what, uint32_t a, uint32_t b)
{
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, "malformed image: %s (%u, %u)", what, a, b);
}

/* The priority arrays: ranges, ids, and every result label covered. */
static int check_prio(const struct image *img, struct wx_error *err)
{
    if (!img->prio_n)
        return WX_OK;
    if (!img->prio_above_start || !img->prio_above || !img->prio_out || img->prio_n > img->n_labels)
        return bad(err, "priority arrays missing or longer than the label table", img->prio_n,
                   img->n_labels);
    if (img->prio_above_start[0] != 0)
        return bad(err, "prio_above_start[0] is not 0", img->prio_above_start[0], 0);
    for (uint32_t l = 0; l < img->prio_n; l++) {
        if (img->prio_above_start[l + 1] < img->prio_above_start[l])
            return bad(err, "priority ranges not ascending at label", l, img->prio_above_start[l]);
        for (uint32_t i = img->prio_above_start[l]; i < img->prio_above_start[l + 1]; i++)
            if (img->prio_above[i] >= img->prio_n)
                return bad(err, "label above out of range for label", l, img->prio_above[i]);
            else if (i > img->prio_above_start[l] && img->prio_above[i] <= img->prio_above[i - 1])
                return bad(err, "labels above not ascending for label", l, img->prio_above[i]);
        if (img->prio_out[l] != IMAGE_PRIO_CUT && img->prio_out[l] >= img->n_labels)
            return bad(err, "shown label out of range for label", l, img->prio_out[l]);
    }
    for (uint32_t k = 0; k < img->n_classes; k++)
        if (img->class_result[k] >= img->prio_n)
            return bad(err, "class result beyond the priority's labels", k, img->class_result[k]);
    for (uint32_t i = 0; i < img->n_entries; i++)
        if (!image_entry_is_sync(img->trans[i]) &&
            image_entry_label(img->trans[i], img->act_bits) >= img->prio_n)
            return bad(err, "entry label beyond the priority's labels", i,
                       image_entry_label(img->trans[i], img->act_bits));
    return WX_OK;
}

int image_check(const struct image *img, struct wx_error *err)
{
    const uint32_t n = img->n_comps;
    if (img->words == 0 || img->words > IMAGE_MAX_WORDS)
        return bad(err, "words per vector out of range", img->words, IMAGE_MAX_WORDS);
    if (img->act_bits == 0 || img->act_bits > IMAGE_MAX_ACT_BITS)
        return bad(err, "act_bits out of range", img->act_bits, IMAGE_MAX_ACT_BITS);
    if (img->mask_words != (n + 31) / 32)
        return bad(err, "mask_words is not ceil(n_comps / 32)", img->mask_words, n);
    if (n && (!img->first_bit || !img->comp_states || !img->proc_offsets || !img->state_bits))
        return bad(err, "missing component arrays", n, 0);
    if (img->first_bit && img->first_bit[0] != 0)
        return bad(err, "first_bit[0] is not 0", img->first_bit[0], 0);
    for (uint32_t c = 0; c < n; c++) {
        uint32_t w = img->first_bit[c + 1] - img->first_bit[c];
        if (img->first_bit[c + 1] < img->first_bit[c] || w > 32)
            return bad(err, "field width of component out of range", c, w);
        if (img->comp_states[c] == 0 || (w < 32 && img->comp_states[c] > (1ull << w)))
            return bad(err, "states of component do not fit its field", c, img->comp_states[c]);
        if (img->state_bits[c] == 0 || img->state_bits[c] > 63 - img->act_bits
            || (img->state_bits[c] < 32 && img->comp_states[c] >= (1u << img->state_bits[c])))
            return bad(err, "slot width of component cannot hold its states", c, img->state_bits[c]);
    }
    if (n && img->first_bit[n] > 32 * img->words)
        return bad(err, "fields extend beyond the vector", img->first_bit[n], img->words);
    if (n && img->proc_offsets[0] != 0)
        return bad(err, "proc_offsets[0] is not 0", img->proc_offsets[0], 0);
    for (uint32_t c = 0; c < n; c++)
        if (img->proc_offsets[c + 1] - img->proc_offsets[c] != img->comp_states[c] + 1)
            return bad(err, "component does not have comp_states + 1 state offsets", c, img->comp_states[c]);
    if (img->n_classes && (!img->class_result || !img->class_rule_start))
        return bad(err, "missing class arrays", img->n_classes, 0);
    for (uint32_t k = 0; k < img->n_classes; k++) {
        if (img->class_result[k] >= img->n_labels)
            return bad(err, "result label of class out of range", k, img->class_result[k]);
        if (img->class_rule_start[k + 1] < img->class_rule_start[k])
            return bad(err, "class rule ranges not ascending", k, img->class_rule_start[k]);
    }
    if ((img->n_classes ? img->class_rule_start[img->n_classes] : 0) != img->n_rules
        || (img->n_classes && img->class_rule_start[0] != 0))
        return bad(err, "class rule ranges do not cover the rules", img->n_classes, img->n_rules);
    for (uint32_t r = 0; r < img->n_rules; r++) {
        uint32_t any = 0;
        for (uint32_t w = 0; w < img->mask_words; w++) {
            uint32_t m = img->rule_mask[(size_t)r * img->mask_words + w];
            if (w == img->mask_words - 1 && n % 32 && (m >> (n % 32)))
                return bad(err, "rule names a component beyond n_comps", r, n);
            any |= m;
        }
        uint32_t np = 0;
        for (uint32_t w = 0; w < img->mask_words; w++)
            np += (uint32_t)__builtin_popcount(img->rule_mask[(size_t)r * img->mask_words + w]);
        if (!any || np < 2)
            return bad(err, "synchronising rule with fewer than 2 participants", r, np);
    }
    int rc = check_prio(img, err);
    if (rc != WX_OK)
        return rc;
    for (uint32_t c = 0; c < n; c++) {
        const uint32_t *so = img->state_offsets + img->proc_offsets[c];
        const uint32_t sb = img->state_bits[c];
        const uint32_t slots = image_entry_slots(img->act_bits, sb);
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            if (so[s + 1] < so[s] || so[s + 1] > img->n_entries)
                return bad(err, "entry segment out of range: component, state", c, s);
            int seen_sync = 0;
            uint32_t last_class = 0;
            for (uint32_t i = so[s]; i < so[s + 1]; i++) {
                uint64_t e = img->trans[i];
                uint32_t l = image_entry_label(e, img->act_bits);
                if (image_entry_is_sync(e)) {
                    if (l >= img->n_classes)
                        return bad(err, "class id out of range in entry", i, l);
                    if (seen_sync && l < last_class)
                        return bad(err, "sync entries not sorted by class in entry", i, l);
                    seen_sync = 1, last_class = l;
                } else {
                    if (seen_sync)
                        return bad(err, "local entry after a sync entry", i, l);
                    if (l >= img->n_labels)
                        return bad(err, "label id out of range in entry", i, l);
                }
                int empty_seen = 0;
                for (uint32_t k = 0; k < slots; k++) {
                    uint32_t t = image_entry_target(e, img->act_bits, sb, k);
                    if (t == UINT32_MAX)
                        empty_seen = 1;
                    else if (empty_seen)
                        return bad(err, "filled slot after an empty one in entry", i, k);
                    else if (t >= img->comp_states[c])
                        return bad(err, "target out of range in entry", i, t);
                }
                /* Bits above the last slot must be clear. */
                uint32_t used = 1 + img->act_bits + slots * sb;
                if (used < 64 && (e >> used))
                    return bad(err, "stray bits above the slots in entry", i, used);
            }
        }
    }
    return WX_OK;
}
