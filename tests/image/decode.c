/*
 * decode.c -- (a) decode: an image decoded back through
 * the image.h accessors, its layout invariants checked, and compared with
 * the network it came from.
 *
 * Part of test_image.c's translation unit: it is included there, after the
 * declarations it uses, and is not compiled alone.
 */

/* ------------------------------------------------------------ (a) decode */

struct quad {
    uint32_t c, s, l, t;
};

static int cmp_quad(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct quad)) == 0 ? 0 : (
        ((const struct quad *)a)->c != ((const struct quad *)b)->c ? (((const struct quad *)a)->c < ((const struct quad *)b)->c ? -1 : 1) :
        ((const struct quad *)a)->s != ((const struct quad *)b)->s ? (((const struct quad *)a)->s < ((const struct quad *)b)->s ? -1 : 1) :
        ((const struct quad *)a)->l != ((const struct quad *)b)->l ? (((const struct quad *)a)->l < ((const struct quad *)b)->l ? -1 : 1) :
        (((const struct quad *)a)->t < ((const struct quad *)b)->t ? -1 : 1));
}

static size_t quads_unique(struct quad *q, size_t n)
{
    if (n < 2)
        return n;
    qsort(q, n, sizeof *q, cmp_quad);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (cmp_quad(&q[i], &q[m - 1]) != 0)
            q[m++] = q[i];
    return m;
}

/* A rule as a flat uint32 sequence: result, #participants, then per
 * participant: comp, #pairs, (src, dst) pairs sorted. */
struct flat {
    uint32_t *v;
    size_t n, cap;
};

static void flat_push(struct flat *f, uint32_t x)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 32;
        f->v = xrealloc(f->v, f->cap * sizeof *f->v);
    }
    f->v[f->n++] = x;
}

static int cmp_flat(const void *a, const void *b)
{
    const struct flat *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    for (size_t i = 0; i < x->n; i++)
        if (x->v[i] != y->v[i])
            return x->v[i] < y->v[i] ? -1 : 1;
    return 0;
}

/* Structural invariants of an image (image.h), through its fields and
 * accessors.  Returns NULL or a description of the first violation. */
static const char *check_layout(const struct image *img, char *buf, size_t len)
{
    uint32_t n = img->n_comps;
    if (img->first_bit[0] != 0)
        return "first_bit[0] != 0";
    for (uint32_t c = 0; c < n; c++) {
        uint32_t w = img->first_bit[c + 1] - img->first_bit[c], need = 0;
        while ((1ull << need) < img->comp_states[c])
            need++;
        if (w != need) {
            snprintf(buf, len, "component %u: field width %u, expected ceil(log2 %u) = %u", c, w,
                     img->comp_states[c], need);
            return buf;
        }
        uint32_t sb = 0;
        while ((1ull << sb) <= img->comp_states[c])
            sb++;
        if (img->state_bits[c] != sb) {
            snprintf(buf, len, "component %u: state_bits %u, expected %u", c, img->state_bits[c], sb);
            return buf;
        }
        if (image_entry_slots(img->act_bits, sb) == 0)
            return "zero slots";
        if (img->proc_offsets[c + 1] - img->proc_offsets[c] != img->comp_states[c] + 1)
            return "proc_offsets do not give n_states + 1 offsets";
    }
    if (img->first_bit[n] > 32 * img->words - 1 || img->words != img->first_bit[n] / 32 + 1)
        return "words wrong or bit 31 of the last word used";
    if (img->act_bits < 1 || img->act_bits > IMAGE_MAX_ACT_BITS || img->mask_words != (n + 31) / 32)
        return "act_bits or mask_words";
    uint32_t most = 0;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t sb = img->state_bits[c], ab = img->act_bits, slots = image_entry_slots(ab, sb);
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            uint32_t a = img->state_offsets[img->proc_offsets[c] + s];
            uint32_t b = img->state_offsets[img->proc_offsets[c] + s + 1];
            if (a > b || b > img->n_entries)
                return "state offsets not monotone";
            int seen_sync = 0;
            uint32_t prev_k = 0, run = 0;
            for (uint32_t x = a; x < b; x++) {
                uint64_t e = img->trans[x];
                uint32_t used = 1 + ab + slots * sb;
                if (used < 64 && (e >> used) != 0)
                    return "bits above the last slot";
                int empty = 0, filled = 0;
                for (uint32_t k = 0; k < slots; k++) {
                    uint32_t t = image_entry_target(e, ab, sb, k);
                    if (t == UINT32_MAX) {
                        empty = 1;
                        continue;
                    }
                    if (empty)
                        return "filled slot after an empty one";
                    if (t >= img->comp_states[c])
                        return "target out of range";
                    filled++;
                }
                if (!filled)
                    return "entry without targets";
                uint32_t l = image_entry_label(e, ab);
                if (!image_entry_is_sync(e)) {
                    if (seen_sync)
                        return "local entry after a sync entry";
                    if (l >= img->n_labels)
                        return "local label out of range";
                    continue;
                }
                if (l >= img->n_classes)
                    return "class id out of range";
                if (seen_sync && l < prev_k)
                    return "sync entries not sorted by class";
                run = (seen_sync && l == prev_k) ? run + 1 : 1;
                if (run > most)
                    most = run;
                seen_sync = 1;
                prev_k = l;
            }
        }
    }
    if (most != img->max_class_entries) {
        snprintf(buf, len, "max_class_entries %u, observed %u", img->max_class_entries, most);
        return buf;
    }
    if (img->class_rule_start[0] != 0 || img->class_rule_start[img->n_classes] != img->n_rules)
        return "class_rule_start bounds";
    for (uint32_t k = 0; k < img->n_classes; k++) {
        if (img->class_rule_start[k] >= img->class_rule_start[k + 1])
            return "class without rules";
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            uint32_t bits = 0;
            for (uint32_t c = 0; c < 32 * img->mask_words; c++)
                if (img->rule_mask[(size_t)r * img->mask_words + c / 32] >> (c % 32) & 1) {
                    if (c >= n)
                        return "rule mask names a missing component";
                    bits++;
                }
            if (bits < 2)
                return "sync rule with < 2 participants";
        }
    }
    return NULL;
}

/* Decodes img back to (local moves, sync rules) and compares with net. */
static int check_decode(const struct network *net, const struct image *img, const char *tag)
{
    char buf[256];
    const char *bad = check_layout(img, buf, sizeof buf);
    if (bad)
        return check(0, "decode %s: layout: %s", tag, bad);
    if (img->n_comps != net->n_comps)
        return check(0, "decode %s: component count", tag);
    for (uint32_t c = 0; c < net->n_comps; c++)
        if (img->comp_states[c] != net->comps[c].n_states)
            return check(0, "decode %s: states of component %u", tag, c);
    if (img->n_labels != strtab_count(net->labels) || img->hidden != net->hidden)
        return check(0, "decode %s: label table", tag);
    for (uint32_t l = 0; l < img->n_labels; l++)
        if (strcmp(strtab_str(img->labels, l), strtab_str(net->labels, l)) != 0)
            return check(0, "decode %s: label %u text", tag, l);

    /* local moves */
    size_t nq = 0, cq = 1024, nr = 0, cr = 1024;
    struct quad *qi = xmalloc(cq * sizeof *qi), *qn = xmalloc(cr * sizeof *qn);
    for (uint32_t c = 0; c < img->n_comps; c++) {
        uint32_t ab = img->act_bits, sb = img->state_bits[c];
        for (uint32_t s = 0; s < img->comp_states[c]; s++)
            for (uint32_t x = img->state_offsets[img->proc_offsets[c] + s];
                 x < img->state_offsets[img->proc_offsets[c] + s + 1]; x++) {
                if (image_entry_is_sync(img->trans[x]))
                    continue;
                for (uint32_t k = 0; k < image_entry_slots(ab, sb); k++) {
                    uint32_t t = image_entry_target(img->trans[x], ab, sb, k);
                    if (t == UINT32_MAX)
                        break;
                    if (nq == cq)
                        qi = xrealloc(qi, (cq *= 2) * sizeof *qi);
                    qi[nq++] = (struct quad){c, s, image_entry_label(img->trans[x], ab), t};
                }
            }
    }
    for (uint32_t r = 0; r < net->n_rules; r++) {
        uint32_t a = net->rule_start[r];
        if (net->rule_start[r + 1] - a != 1)
            continue;
        const struct lts *l = &net->comps[net->part_comp[a]];
        for (uint64_t x = 0; x < l->n_trans; x++)
            if (l->label[x] == net->part_label[a]) {
                if (nr == cr)
                    qn = xrealloc(qn, (cr *= 2) * sizeof *qn);
                qn[nr++] = (struct quad){net->part_comp[a], l->src[x], net->rule_result[r], l->dst[x]};
            }
    }
    size_t ui = quads_unique(qi, nq), un = quads_unique(qn, nr);
    int ok = ui == nq && ui == un && (ui == 0 || memcmp(qi, qn, ui * sizeof *qi) == 0);
    if (!ok) {
        free(qi), free(qn);
        return check(0, "decode %s: local moves differ (%zu image entries-targets, %zu unique, %zu expected)",
                     tag, nq, ui, un);
    }
    free(qi), free(qn);

    /* sync rules with their participants' relations */
    struct flat *fi = xmalloc((img->n_rules + 1) * sizeof *fi);
    struct flat *fn = xmalloc((net->n_rules + 1) * sizeof *fn);
    size_t nfi = 0, nfn = 0;
    uint64_t *pairs = NULL;
    size_t cap_pairs = 0;
    for (uint32_t k = 0; k < img->n_classes; k++)
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            struct flat f = {0};
            const uint32_t *mask = img->rule_mask + (size_t)r * img->mask_words;
            uint32_t np = 0;
            for (uint32_t c = 0; c < img->n_comps; c++)
                np += mask[c / 32] >> (c % 32) & 1;
            flat_push(&f, img->class_result[k]);
            flat_push(&f, np);
            for (uint32_t c = 0; c < img->n_comps; c++) {
                if (!(mask[c / 32] >> (c % 32) & 1))
                    continue;
                size_t npairs = 0;
                uint32_t ab = img->act_bits, sb = img->state_bits[c];
                for (uint32_t s = 0; s < img->comp_states[c]; s++)
                    for (uint32_t x = img->state_offsets[img->proc_offsets[c] + s];
                         x < img->state_offsets[img->proc_offsets[c] + s + 1]; x++) {
                        if (!image_entry_is_sync(img->trans[x]) || image_entry_label(img->trans[x], ab) != k)
                            continue;
                        for (uint32_t q = 0; q < image_entry_slots(ab, sb); q++) {
                            uint32_t t = image_entry_target(img->trans[x], ab, sb, q);
                            if (t == UINT32_MAX)
                                break;
                            if (npairs == cap_pairs)
                                pairs = xrealloc(pairs, (cap_pairs = cap_pairs ? 2 * cap_pairs : 256) * sizeof *pairs);
                            pairs[npairs++] = ((uint64_t)s << 32) | t;
                        }
                    }
                if (npairs > 1)
                    qsort(pairs, npairs, sizeof *pairs, cmp_u64);
                flat_push(&f, c);
                flat_push(&f, (uint32_t)npairs);
                for (size_t i = 0; i < npairs; i++) {
                    flat_push(&f, (uint32_t)(pairs[i] >> 32));
                    flat_push(&f, (uint32_t)pairs[i]);
                }
            }
            fi[nfi++] = f;
        }
    for (uint32_t r = 0; r < net->n_rules; r++) {
        uint32_t a = net->rule_start[r], np = net->rule_start[r + 1] - a;
        if (np < 2)
            continue;
        struct flat f = {0};
        flat_push(&f, net->rule_result[r]);
        flat_push(&f, np);
        for (uint32_t i = 0; i < np; i++) {
            const struct lts *l = &net->comps[net->part_comp[a + i]];
            size_t npairs = 0;
            for (uint64_t x = 0; x < l->n_trans; x++)
                if (l->label[x] == net->part_label[a + i])
                    npairs++;
            flat_push(&f, net->part_comp[a + i]);
            flat_push(&f, (uint32_t)npairs);
            for (uint64_t x = 0; x < l->n_trans; x++)
                if (l->label[x] == net->part_label[a + i]) {
                    flat_push(&f, l->src[x]);
                    flat_push(&f, l->dst[x]);
                }
        }
        fn[nfn++] = f;
    }
    qsort(fi, nfi, sizeof *fi, cmp_flat);
    qsort(fn, nfn, sizeof *fn, cmp_flat);
    ok = nfi == nfn;
    for (size_t i = 0; ok && i < nfi; i++)
        ok = cmp_flat(&fi[i], &fn[i]) == 0;
    for (size_t i = 0; i < nfi; i++)
        free(fi[i].v);
    for (size_t i = 0; i < nfn; i++)
        free(fn[i].v);
    free(fi), free(fn), free(pairs);
    return check(ok, "decode %s: %u components, %u entries, %u classes, %u sync rules%s", tag, img->n_comps,
                 img->n_entries, img->n_classes, img->n_rules, ok ? "" : ": sync rules differ");
}
