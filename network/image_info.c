/*
 * image_info.c -- image_print_info (image.h): the compiled image described
 * for `warpex info` -- components, classes, rules, priorities, the entry
 * format and the state vector's layout.
 */
#include "image.h"

#include <stdio.h>
#include <stdlib.h>

#include "../util/strtab.h"

/* No label: a class part that is not recorded. */
#define NONE UINT32_MAX

static const char *label_name(const struct image *img, uint32_t l)
{
    return img->labels && l < img->n_labels ? strtab_str(img->labels, l) : "?";
}

static const char *cname(const struct image *img, uint32_t c)
{
    return img->comp_names && img->comp_names[c] ? img->comp_names[c] : "";
}

/* Component label that component c uses in class k, NONE when unknown. */
static uint32_t class_label_of(const struct image *img, uint32_t k, uint32_t c)
{
    if (!img->class_part_start)
        return NONE;
    for (uint32_t i = img->class_part_start[k]; i < img->class_part_start[k + 1]; i++)
        if (img->class_part_comp[i] == c)
            return img->class_part_label[i];
    return NONE;
}

/* The priority: per label, the labels above it, and the label shown. */
static void print_prio(const struct image *img, FILE *out)
{
    if (!img->prio_n)
        return;
    fputs("priorities: a transition fires only when none of a label above its own leaves the state\n",
          out);
    for (uint32_t l = 0; l < img->prio_n; l++) {
        uint32_t a = img->prio_above_start[l], b = img->prio_above_start[l + 1];
        uint32_t shown = img->prio_out[l];
        if (a == b && shown == l)
            continue;
        fprintf(out, "    %s", label_name(img, l));
        for (uint32_t i = a; i < b; i++)
            fprintf(out, "%s%s", i == a ? " < " : ", ", label_name(img, img->prio_above[i]));
        if (shown == IMAGE_PRIO_CUT)
            fputs("  (then cut)", out);
        else if (shown != l)
            fprintf(out, "  (shown as %s)", label_name(img, shown));
        fputc('\n', out);
    }
}

void image_print_info(const struct image *img, FILE *out)
{
    uint32_t fb_end = img->first_bit ? img->first_bit[img->n_comps] : 0;
    fprintf(out, "components: %u\n", img->n_comps);
    for (uint32_t c = 0; c < img->n_comps; c++) {
        uint32_t w = img->first_bit[c + 1] - img->first_bit[c];
        uint32_t es = img->state_offsets[img->proc_offsets[c]];
        uint32_t ee = img->state_offsets[img->proc_offsets[c] + img->comp_states[c]];
        fprintf(out, "  %u %s: %u states", c, cname(img, c), img->comp_states[c]);
        if (img->comp_trans)
            fprintf(out, ", %llu transitions", (unsigned long long)img->comp_trans[c]);
        if (img->probabilistic && img->comp_dists) {
            uint32_t i0 = img->pinit_start[c], i1 = img->pinit_start[c + 1];
            fprintf(out, ", probabilistic: %u distribution%s%s", img->comp_dists[c],
                    img->comp_dists[c] == 1 ? "" : "s",
                    i1 - i0 > 1 ? " and an initial distribution" : "");
        }
        fprintf(out, ", %u entries; field bits %u..%u (%u bits), slot %u bits x %u per entry\n",
                ee - es, img->first_bit[c], w ? img->first_bit[c + 1] - 1 : img->first_bit[c], w,
                img->state_bits[c], image_entry_slots(img->act_bits, img->state_bits[c]));
    }
    fprintf(out, "labels: %u", img->n_labels);
    if (img->hidden != UINT32_MAX)
        fprintf(out, " (hidden: %s)", label_name(img, img->hidden));
    fputc('\n', out);
    for (uint32_t l = 0; l < img->n_labels; l++)
        fprintf(out, "  %u %s\n", l, label_name(img, l));
    fprintf(out, "local rules: %u\n", img->n_local_rules);
    for (uint32_t i = 0; i < img->n_local_rules; i++)
        fprintf(out, "  %s:%s -> %s\n", cname(img, img->local_rule_comp[i]),
                label_name(img, img->local_rule_label[i]), label_name(img, img->local_rule_result[i]));
    fprintf(out, "synchronisation classes: %u, rules: %u\n", img->n_classes, img->n_rules);
    for (uint32_t k = 0; k < img->n_classes; k++) {
        fprintf(out, "  class %u -> %s\n", k, label_name(img, img->class_result[k]));
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            const uint32_t *m = img->rule_mask + (size_t)r * img->mask_words;
            fputs("    ", out);
            int first = 1;
            for (uint32_t c = 0; c < img->n_comps; c++) {
                if (!(m[c / 32] >> (c % 32) & 1))
                    continue;
                uint32_t l = class_label_of(img, k, c);
                fprintf(out, "%s%s:%s", first ? "" : " * ", cname(img, c),
                        l == NONE ? "?" : label_name(img, l));
                first = 0;
            }
            fprintf(out, " -> %s\n", label_name(img, img->class_result[k]));
        }
    }
    print_prio(img, out);
    if (img->probabilistic)
        fprintf(out, "probabilistic: %u choices with %u targets (the transition entries below hold "
                     "the support graph; explore builds an MDP on the CPU)\n",
                img->n_pchoices, img->n_ptargets);
    fprintf(out, "transition entries: %u of 64 bits (label/class field %u bits); most entries of "
                 "one (component, state, class): %u\n",
            img->n_entries, img->act_bits, img->max_class_entries);
    fprintf(out, "state vector: %u bits in %u word%s of 32 bits (bit 31 of the last word is the "
                 "hash tables' flag)\n",
            fb_end, img->words, img->words == 1 ? "" : "s");
}
