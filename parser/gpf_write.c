/*
 * gpf_write.c -- writing warpex images as GPUexplore .gpf files (contract in
 * gpf.h): decodes the image with the image.h accessors and repacks it into
 * 32-bit entries and GPUexplore's packed offset and rule arrays, refusing
 * (WX_ELIMIT) whatever GPUexplore's limits cannot express.
 */
#include "gpf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../network/network.h"
#include "../util/arith.h"
#include "../util/outfile.h"
#include "../util/strtab.h"
#include "gpf_int.h"

struct u32vec {
    uint32_t *v;
    size_t n, cap;
};

static int push32(struct u32vec *a, uint32_t x)
{
    if (wx_reserve((void **)&a->v, &a->cap, a->n + 1, sizeof *a->v, 1024) != 0)
        return -1;
    a->v[a->n++] = x;
    return 0;
}

/* Appends fields of nb bits, floor(32/nb) per word starting on a fresh word. */
static int pack_fields(struct u32vec *out, const uint32_t *f, size_t n, uint32_t nb)
{
    uint32_t k = 32 / nb;
    for (size_t i = 0; i < n; i += k) {
        uint32_t w = 0;
        for (uint32_t j = 0; j < k && i + j < n; j++)
            w |= f[i + j] << (j * nb);
        if (push32(out, w) != 0)
            return -1;
    }
    return 0;
}

struct wr {
    const struct image *img;
    struct wx_error *err;
    const char *path;
    uint32_t n, bits_act, sv, bits_sv, max_buf, nrstates, nbits_off, nbits_soff;
    uint32_t firstbit[GPF_MAX_PROCS + 1], bits_state[GPF_MAX_PROCS];
    struct u32vec trans;     /* 32-bit entries */
    struct u32vec raw_offs;  /* unpacked offsets, n_c + 1 per component */
    struct u32vec poff;      /* packed offsets */
    struct u32vec pstart;    /* proc_offsets_start, n + 1 */
    struct u32vec soff;      /* packed syncbits offsets */
    struct u32vec sync;      /* packed rules */
    uint32_t *targets;
    size_t n_targets, cap_targets;
};

static int wr_oom(struct wr *w)
{
    return wx_fail(w->err, WX_ELIMIT, w->path, 0, 0, "out of memory while writing the .gpf file");
}

static int wr_limit(struct wr *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int wr_limit(struct wr *w, const char *fmt, ...)
{
    char msg[sizeof w->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return wx_fail(w->err, WX_ELIMIT, w->path, 0, 0, "cannot write GPUexplore format: %s", msg);
}

static const char *wr_name(const struct wr *w, uint32_t c)
{
    return w->img->comp_names && w->img->comp_names[c] ? w->img->comp_names[c] : "";
}

/* Header values and the vector layout. */
static int wr_layout(struct wr *w)
{
    const struct image *img = w->img;
    w->n = img->n_comps;
    if (w->n == 0)
        return wx_fail(w->err, WX_EINPUT, w->path, 0, 0, "cannot write a network without components");
    if (w->n > GPF_MAX_PROCS)
        return wr_limit(w, "%u components; GPUexplore handles at most %u processes (a vector group "
                           "lives in one warp and rule masks are built with 1 << nr_procs)",
                        w->n, GPF_MAX_PROCS);
    /* ids 0 .. n_classes-1; the kernel's "no label" sentinel is 1 << bits_act */
    w->bits_act = wx_bitlen(img->n_classes > 1 ? img->n_classes - 1 : 1);
    if (w->bits_act > 30)
        return wr_limit(w, "%u synchronisation classes need %u label bits; the kernel's no-label "
                           "sentinel 1 << bits_act must fit in an int (bits_act <= 30)",
                        img->n_classes, w->bits_act);
    uint32_t pos = 0, min_slots = UINT32_MAX;
    for (uint32_t c = 0; c < w->n; c++) {
        uint32_t bs = wx_bitlen(img->comp_states[c]);
        if (w->bits_act + bs > 31)
            return wr_limit(w, "component %u (%s): %u states need %u-bit slots, and with %u label bits "
                               "(%u classes) that exceeds the 31 bits of a GPUexplore entry",
                            c, wr_name(w, c), img->comp_states[c], bs, w->bits_act, img->n_classes);
        w->bits_state[c] = bs;
        uint32_t slots = (31 - w->bits_act) / bs;
        if (slots < min_slots)
            min_slots = slots;
        /* >= 1 bit: GPUexplore's field macros misread 0-bit fields at word
         * boundaries.  Bit 30 of int 0 is never set, so no vector's first
         * int reads as the empty marker 0x7FFFFFFF: a field that would cover
         * it starts at bit 31 instead.  The format has no gaps (a field ends
         * where the next begins), so the skipped bits widen the previous
         * field, whose values stay below its real width: bit 30 stays 0. */
        uint32_t width = wx_bitlen(img->comp_states[c] - 1);
        if (width == 0)
            width = 1;
        if (pos <= 30 && pos + width > 30)
            pos = 31;
        w->firstbit[c] = pos;
        pos += width;
    }
    w->firstbit[w->n] = pos;
    /* bits 30 (--por flag) and 31 (new flag) of the last int stay clear */
    w->sv = (pos + 2 + 31) / 32;
    w->bits_sv = pos + 2;
    w->nrstates = min_slots;
    if (w->sv > GPF_MAX_INTS)
        return wr_limit(w, "the state vector needs %u bits plus 2 flag bits = %u ints; GPUexplore "
                           "allows at most %u (MAX_SIZE)",
                        pos, w->sv, GPF_MAX_INTS);
    return WX_OK;
}

/* Transition entries and the per-state offsets. */
static int wr_entries(struct wr *w)
{
    const struct image *img = w->img;
    uint32_t ab = img->act_bits;
    w->max_buf = 1;
    for (uint32_t c = 0; c < w->n; c++) {
        uint32_t sb = img->state_bits[c], slots64 = image_entry_slots(ab, sb);
        uint32_t bs = w->bits_state[c], slots = (31 - w->bits_act) / bs;
        for (uint32_t s = 0; s < img->comp_states[c]; s++) {
            if (push32(&w->raw_offs, (uint32_t)w->trans.n) != 0)
                return wr_oom(w);
            uint32_t a = img->state_offsets[img->proc_offsets[c] + s];
            uint32_t b = img->state_offsets[img->proc_offsets[c] + s + 1];
            uint32_t x = a;
            while (x < b) {
                /* one group: all local entries, or all entries of one class */
                uint32_t sync = image_entry_is_sync(img->trans[x]);
                uint32_t key = sync ? image_entry_label(img->trans[x], ab) : 0;
                w->n_targets = 0;
                for (; x < b && image_entry_is_sync(img->trans[x]) == sync &&
                       (!sync || image_entry_label(img->trans[x], ab) == key);
                     x++)
                    for (uint32_t k = 0; k < slots64; k++) {
                        uint32_t t = image_entry_target(img->trans[x], ab, sb, k);
                        if (t == UINT32_MAX)
                            break;
                        if (w->n_targets == w->cap_targets) {
                            size_t cap = w->cap_targets ? 2 * w->cap_targets : 64;
                            uint32_t *v = realloc(w->targets, cap * sizeof *v);
                            if (!v)
                                return wr_oom(w);
                            w->targets = v;
                            w->cap_targets = cap;
                        }
                        w->targets[w->n_targets++] = t;
                    }
                /* local entries of different result labels merge: GPUexplore
                 * ignores local labels; duplicates would only repeat work */
                if (w->n_targets > 1)
                    qsort(w->targets, w->n_targets, sizeof *w->targets, wx_cmp_u32);
                uint32_t base = sync | (key << 1), e = base, k = 0, n_entries = 0;
                for (size_t i = 0; i < w->n_targets; i++) {
                    if (i > 0 && w->targets[i] == w->targets[i - 1])
                        continue;
                    e |= (w->targets[i] + 1) << (1 + w->bits_act + k * bs);
                    if (++k == slots) {
                        if (push32(&w->trans, e) != 0)
                            return wr_oom(w);
                        n_entries++;
                        e = base, k = 0;
                    }
                }
                if (k > 0) {
                    if (push32(&w->trans, e) != 0)
                        return wr_oom(w);
                    n_entries++;
                }
                if (sync && n_entries > w->max_buf)
                    w->max_buf = n_entries;
                if (w->trans.n >= (size_t)INT32_MAX)
                    return wr_limit(w, "more than %d transition entries (counts are read with atoi "
                                       "into 32-bit ints)",
                                    INT32_MAX - 1);
            }
        }
        if (push32(&w->raw_offs, (uint32_t)w->trans.n) != 0)
            return wr_oom(w);
    }
    /* offsets are packed once nr_trans, hence their width, is known */
    w->nbits_off = wx_bitlen(w->trans.n);
    if (w->nbits_off == 0)
        w->nbits_off = 1;
    if (w->nbits_off >= 32)
        return wr_limit(w, "offsets need %u bits; GPUexplore's field masks need fewer than 32",
                        w->nbits_off);
    size_t at = 0;
    for (uint32_t c = 0; c < w->n; c++) {
        size_t nf = (size_t)img->comp_states[c] + 1;
        if (push32(&w->pstart, (uint32_t)w->poff.n) != 0 ||
            pack_fields(&w->poff, w->raw_offs.v + at, nf, w->nbits_off) != 0)
            return wr_oom(w);
        at += nf;
    }
    if (push32(&w->pstart, (uint32_t)w->poff.n) != 0)
        return wr_oom(w);
    return WX_OK;
}

/* Sync rules: label id = class id. */
static int wr_rules(struct wr *w)
{
    const struct image *img = w->img;
    uint32_t R = 32 / w->n;
    struct u32vec fields = {0};
    for (uint32_t k = 0; k < img->n_classes; k++) {
        if (push32(&fields, (uint32_t)w->sync.n) != 0)
            goto oom;
        uint32_t word = 0, j = 0;
        for (uint32_t r = img->class_rule_start[k]; r < img->class_rule_start[k + 1]; r++) {
            uint32_t m = img->rule_mask[(size_t)r * img->mask_words];
            word |= m << (j * w->n);
            if (++j == R) {
                if (push32(&w->sync, word) != 0)
                    goto oom;
                word = 0, j = 0;
            }
        }
        if (j > 0 && push32(&w->sync, word) != 0)
            goto oom;
    }
    if (push32(&fields, (uint32_t)w->sync.n) != 0)
        goto oom;
    if (w->sync.n >= (size_t)INT32_MAX)
        return free(fields.v), wr_limit(w, "too many rule words");
    uint32_t nb = wx_bitlen(w->sync.n);
    if (nb == 0)
        nb = 1;
    if (pack_fields(&w->soff, fields.v, fields.n, nb) != 0)
        goto oom;
    free(fields.v);
    w->nbits_soff = nb;
    return WX_OK;
oom:
    free(fields.v);
    return wr_oom(w);
}

static void put_words(FILE *f, const struct u32vec *v)
{
    for (size_t i = 0; i < v->n; i++)
        fprintf(f, "%d\n", (int32_t)v->v[i]);
}

int gpf_write(const struct image *img, const char *path, struct wx_error *err)
{
    if (img->prio_n)
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "a network with a prio cannot be written as "
                       ".gpf: the format has no priorities");
    struct wr w;
    memset(&w, 0, sizeof w);
    w.img = img;
    w.err = err;
    w.path = path;
    int rc = wr_layout(&w);
    if (rc == WX_OK)
        rc = wr_entries(&w);
    if (rc == WX_OK)
        rc = wr_rules(&w);
    struct outfile *out = NULL;
    FILE *f = NULL;
    if (rc == WX_OK && (rc = outfile_open(path, 0, &out, err)) == WX_OK && !(f = outfile_stream(out))) {
        outfile_abort(out);
        rc = wx_fail(err, WX_ELIMIT, path, 0, 0, "out of memory");
    }
    if (rc == WX_OK) {
        /* unchecked writes: outfile_commit checks the stream's error flag */
        fprintf(f, "0\n%u\n%u\n%u\n%u\n", w.n, w.bits_act, w.nrstates, w.bits_sv);
        for (uint32_t c = 0; c <= w.n; c++)
            fprintf(f, "%u\n", w.firstbit[c]);
        for (uint32_t c = 0; c < w.n; c++)
            fprintf(f, "%u\n", w.bits_state[c]);
        fprintf(f, "%u\n%u\n", w.nbits_off, w.max_buf);
        for (size_t i = 0; i < w.pstart.n; i++)
            fprintf(f, "%u\n", w.pstart.v[i]);
        put_words(f, &w.poff);
        fprintf(f, "%zu\n", w.trans.n);
        put_words(f, &w.trans);
        fprintf(f, "%u\n%zu\n", w.nbits_soff, w.soff.n);
        put_words(f, &w.soff);
        fprintf(f, "%zu\n", w.sync.n);
        put_words(f, &w.sync);
        rc = outfile_commit(out, err);
    }
    free(w.trans.v), free(w.raw_offs.v), free(w.poff.v), free(w.pstart.v);
    free(w.soff.v), free(w.sync.v), free(w.targets);
    return rc;
}
