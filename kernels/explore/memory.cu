/*
 * memory.cu -- the GPU explorer's device memory: every allocation is
 * listed in struct gx (gx_malloc) and freed by gx_free, or earlier by
 * gx_release; the image upload (texture objects over linear memory, or
 * plain loads) and the fast generator's tables; the allocations fixed for
 * the whole exploration (control block, saved tiles, global group buffers
 * and successor sets).
 */
#include <stdlib.h>
#include <string.h>

#include "gx.h"
#include "../../explorer/por.h"

int gx_malloc(struct gx *g, void **ptr, size_t bytes, const char *what, struct wx_error *err)
{
    if (bytes == 0)
        bytes = 16;
    if (g->ndev == (int)(sizeof g->dev / sizeof g->dev[0])) {
        *ptr = NULL;
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal error: more than %d device allocations (%s)",
                       g->ndev, what);
    }
    cudaError_t e = cudaMalloc(ptr, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *ptr = NULL;
        return wx_fail(err, e == cudaErrorMemoryAllocation ? WX_ELIMIT : WX_ESYSTEM, NULL, 0, 0,
                       "cannot allocate %zu bytes of device memory for %s: %s", bytes, what, cudaGetErrorString(e));
    }
    g->devsz[g->ndev] = bytes;
    g->dev[g->ndev++] = *ptr;
    g->bytes += bytes;
    if (g->bytes > g->peak)
        g->peak = g->bytes;
    return WX_OK;
}

static int gx_upload(struct gx *g, void **dptr, const void *src, size_t bytes, const char *what,
                     struct wx_error *err)
{
    int rc = gx_malloc(g, dptr, bytes, what, err);
    if (rc)
        return rc;
    if (bytes && src)
        CUDA_CHECK_NAMED(cudaMemcpy(*dptr, src, bytes, cudaMemcpyHostToDevice), what);
out:
    return rc;
}

static int gx_texture(struct gx *g, cudaTextureObject_t *t, const void *dptr, size_t elems, int two,
                      struct wx_error *err)
{
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = (void *)dptr;
    rd.res.linear.desc = two ? cudaCreateChannelDesc<uint2>() : cudaCreateChannelDesc<unsigned int>();
    rd.res.linear.sizeInBytes = (elems ? elems : 1) * (two ? 8 : 4);
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.readMode = cudaReadModeElementType;
    int rc = WX_OK;
    if (g->ntex == (int)(sizeof g->tex / sizeof g->tex[0]))
        return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "internal error: more than %d texture objects", g->ntex);
    CUDA_CHECK(cudaCreateTextureObject(t, &rd, &td, NULL));
    g->tex[g->ntex++] = *t;
out:
    return rc;
}

/* Frees one allocation early (its entry leaves the list). */
void gx_release(struct gx *g, void *ptr)
{
    for (int i = 0; i < g->ndev; i++)
        if (g->dev[i] == ptr) {
            cudaFree(ptr);
            g->bytes -= g->devsz[i];
            g->ndev--;
            g->dev[i] = g->dev[g->ndev];
            g->devsz[i] = g->devsz[g->ndev];
            return;
        }
}

void gx_free(struct gx *g)
{
    for (int i = 0; i < g->ntex; i++)
        cudaDestroyTextureObject(g->tex[i]);
    for (int i = 0; i < g->ndev; i++) {
        cudaFree(g->dev[i]);
        if (g->devsz[i] >= (64u << 20))
            gx_mark(g, "  cudaFree %zu bytes", g->devsz[i]);
    }
    (void)cudaGetLastError();
    free(g->h_src);
    free(g->h_dst);
    free(g->h_lab);
}

/* Uploads the image (and the fast generator's tables when it runs) into
 * g->p.img / g->p.fx, with texture objects over the image's arrays when
 * g->use_tex. */
/* The priority's tables (gpu_int.cuh): one bit for each label above some
 * other, at most GX_PRIO_MAX_ABOVE of them on the GPU. */
static int gx_upload_prio(struct gx *g, const struct image *img, struct gpu_image &gi, struct wx_error *err)
{
    const uint32_t n = img->prio_n;
    unsigned long long *mark = (unsigned long long *)calloc(n, 8);
    unsigned long long *block = (unsigned long long *)calloc(n, 8);
    uint32_t *bit = (uint32_t *)malloc((size_t)n * 4);
    int rc = mark && block && bit ? WX_OK : wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    uint32_t bits = 0;
    for (uint32_t l = 0; rc == WX_OK && l < n; l++)
        bit[l] = UINT32_MAX;
    for (uint32_t i = 0; rc == WX_OK && i < img->prio_above_start[n]; i++) {
        const uint32_t a = img->prio_above[i];
        if (bit[a] != UINT32_MAX)
            continue;
        if (bits == GX_PRIO_MAX_ABOVE) {
            rc = wx_fail(err, WX_EINPUT, NULL, 0, 0, "not supported yet: a prio with more than %d labels "
                         "above others on the GPU (use --backend cpu)", GX_PRIO_MAX_ABOVE);
            break;
        }
        bit[a] = bits++;
        mark[a] = 1ull << bit[a];
    }
    for (uint32_t l = 0; rc == WX_OK && l < n; l++)
        for (uint32_t i = img->prio_above_start[l]; i < img->prio_above_start[l + 1]; i++)
            block[l] |= mark[img->prio_above[i]];
    void *d;
    if (rc == WX_OK && (rc = gx_upload(g, &d, mark, (size_t)n * 8, "priority marks", err)) == WX_OK)
        gi.prio_mark = (const unsigned long long *)d;
    if (rc == WX_OK && (rc = gx_upload(g, &d, block, (size_t)n * 8, "priority blocks", err)) == WX_OK)
        gi.prio_block = (const unsigned long long *)d;
    if (rc == WX_OK && (rc = gx_upload(g, &d, img->prio_out, (size_t)n * 4, "priority labels", err)) == WX_OK)
        gi.prio_out = (const uint32_t *)d;
    if (rc == WX_OK)
        gi.prio_n = n;
    free(mark), free(block), free(bit);
    return rc;
}

/* --por: the stubborn-set tables (explorer/por.c builds them, por_pack
 * packs them into one allocation) and, beside the image's arrays, their
 * device view p.por; the scratch comes with the fixed allocations. */
static int gx_upload_por(struct gx *g, struct wx_error *err)
{
    const struct image *img = g->img;
    struct gpu_params &p = g->p;
    struct por hp;
    int rc = por_init(&hp, img, NULL, err);
    if (rc)
        return rc;
    struct por_tables dt;
    const size_t words = por_pack(&hp, NULL, NULL, &dt);
    uint64_t *buf = (uint64_t *)malloc((words + 1) * 8);
    void *d = NULL;
    if (!buf)
        rc = wx_fail(err, WX_ELIMIT, NULL, 0, 0, "partial-order reduction: out of host memory");
    if (rc == WX_OK && (rc = gx_malloc(g, &d, (words + 1) * 8, "partial-order reduction tables", err)) == WX_OK) {
        por_pack(&hp, buf, (uint64_t *)d, &dt);
        CUDA_CHECK_NAMED(cudaMemcpy(d, buf, (words + 1) * 8, cudaMemcpyHostToDevice), "partial-order reduction tables");
        dt.proc_offsets = p.img.proc_off;
        dt.state_offsets = p.img.state_off;
        dt.first_bit = p.img.first_bit;
        dt.trans = (const uint64_t *)p.img.trans;
        p.por = dt;
        p.por_parts = (uint32_t)hp.parts;
        p.por_words = por_core_scratch_words(img->n_comps, (uint32_t)hp.parts, dt.rule_words, img->words, GX_POR_BITS);
        p.por_on = 1;
    }
out:
    free(buf);
    por_free(&hp);
    return rc;
}

int gx_upload_image(struct gx *g, struct wx_error *err)
{
    int rc = WX_OK;
    const struct image *img = g->img;
    const struct explore_options *opt = g->opt;
    const struct gx_fast_host &fh = g->fh;
    struct gpu_params &p = g->p;
    const uint32_t n = img->n_comps, W = img->words;
    struct gpu_image &gi = p.img;
    gi.n_comps = n;
    gi.words = W;
    gi.act_bits = img->act_bits;
    gi.mask_words = img->mask_words;
    gi.n_labels = img->n_labels;
    gi.n_classes = img->n_classes;
    void *d;
    if ((rc = gx_upload(g, &d, img->proc_offsets, (n + 1) * 4ull, "proc_offsets", err)))
        goto out;
    gi.proc_off = (const uint32_t *)d;
    if ((rc = gx_upload(g, &d, img->state_offsets, img->proc_offsets[n] * 4ull, "state_offsets", err)))
        goto out;
    gi.state_off = (const uint32_t *)d;
    if ((rc = gx_upload(g, &d, img->first_bit, (n + 1) * 4ull, "first_bit", err)))
        goto out;
    gi.first_bit = (const uint32_t *)d;
    if ((rc = gx_upload(g, &d, img->state_bits, n * 4ull, "state_bits", err)))
        goto out;
    gi.state_bits = (const uint32_t *)d;
    if ((rc = gx_upload(g, &d, img->class_rule_start, img->n_classes ? (img->n_classes + 1) * 4ull : 0,
                        "class_rule_start", err)))
        goto out;
    gi.class_rule_start = (const uint32_t *)d;
    if ((rc = gx_upload(g, &d, img->class_result, img->n_classes * 4ull, "class_result", err)))
        goto out;
    gi.class_result = (const uint32_t *)d;
    if ((rc = gx_upload(g, &d, img->rule_mask, (size_t)img->n_rules * img->mask_words * 4, "rule_mask", err)))
        goto out;
    gi.rule_mask = (const uint32_t *)d;
    if ((rc = gx_upload(g, &d, img->trans, (size_t)img->n_entries * 8, "transition entries", err)))
        goto out;
    gi.trans = (const uint2 *)d;
    if (p.fast) {
        struct gpu_fast &fx = p.fx;
        const size_t dw = fh.dw;
        if ((rc = gx_upload(g, &d, fh.comp, n * sizeof(uint4), "fast generator: components", err)))
            goto out;
        fx.comp = (const uint4 *)d;
        if ((rc = gx_upload(g, &d, fh.seg, (fh.nseg + 1) * sizeof(gpu_fseg), "fast generator: segments", err)))
            goto out;
        fx.seg = (const gpu_fseg *)d;
        if ((rc = gx_upload(g, &d, fh.loc_lab, (fh.nloc + 1) * 4, "fast generator: local labels", err)))
            goto out;
        fx.loc_lab = (const uint32_t *)d;
        if ((rc = gx_upload(g, &d, fh.loc_d, (fh.nloc + 1) * dw * 8, "fast generator: local deltas", err)))
            goto out;
        fx.loc_d = (const unsigned long long *)d;
        if ((rc = gx_upload(g, &d, fh.grp, (fh.ngrp + 1) * sizeof(uint4), "fast generator: groups", err)))
            goto out;
        fx.grp = (const uint4 *)d;
        if ((rc = gx_upload(g, &d, fh.d, (fh.nsync + 1) * dw * 8, "fast generator: sync deltas", err)))
            goto out;
        fx.d = (const unsigned long long *)d;
        if ((rc = gx_upload(g, &d, fh.rmask, (fh.nrules + 1) * 8, "fast generator: rule masks", err)))
            goto out;
        fx.rmask = (const unsigned long long *)d;
        if ((rc = gx_upload(g, &d, fh.rinfo, (fh.nrules + 1) * sizeof(uint2), "fast generator: rules", err)))
            goto out;
        fx.rinfo = (const uint2 *)d;
        if ((rc = gx_upload(g, &d, fh.arule, (fh.narule + 1) * 4, "fast generator: anchored rules", err)))
            goto out;
        fx.arule = (const uint32_t *)d;
        gx_fast_scalars(&fh, &fx);
    }
    if (opt->action_match) {
        if ((rc = gx_upload(g, &d, opt->action_match, img->n_labels, "action flags", err)))
            goto out;
        gi.action = (const uint8_t *)d;
    }
    if (img->prio_n && (rc = gx_upload_prio(g, img, gi, err)))
        goto out;
    if (opt->por && (rc = gx_upload_por(g, err)))
        goto out;
    if (g->use_tex) {
        if ((rc = gx_texture(g, &gi.t_proc_off, gi.proc_off, n + 1, 0, err)) ||
            (rc = gx_texture(g, &gi.t_state_off, gi.state_off, img->proc_offsets[n], 0, err)) ||
            (rc = gx_texture(g, &gi.t_first_bit, gi.first_bit, n + 1, 0, err)) ||
            (rc = gx_texture(g, &gi.t_state_bits, gi.state_bits, n, 0, err)) ||
            (rc = gx_texture(g, &gi.t_class_rule_start, gi.class_rule_start, img->n_classes + 1, 0, err)) ||
            (rc = gx_texture(g, &gi.t_class_result, gi.class_result, img->n_classes, 0, err)) ||
            (rc = gx_texture(g, &gi.t_rule_mask, gi.rule_mask, (size_t)img->n_rules * img->mask_words, 0, err)) ||
            (rc = gx_texture(g, &gi.t_trans, gi.trans, img->n_entries, 1, err)))
            goto out;
    }

    gx_mark(g, "image uploaded");
out:
    return rc;
}

/* The allocations fixed for the whole exploration: the control block, the
 * saved tiles (async mode), the group buffers and successor sets when they
 * do not fit in shared memory. */
int gx_fixed_allocations(struct gx *g, struct wx_error *err)
{
    int rc = WX_OK;
    struct gpu_params &p = g->p;
    const uint32_t n = g->img->n_comps, blocks = g->blocks, T = g->T, D = g->D;
    void *d;
    if ((rc = gx_malloc(g, &d, sizeof(struct gpu_ctl), "control block", err)))
        goto out;
    g->d_ctl = (struct gpu_ctl *)d;
    p.ctl = g->d_ctl;
    if (!g->level) {
        if ((rc = gx_malloc(g, &d, (size_t)blocks * (T + 1) * 8, "saved tiles", err)))
            goto out;
        p.saved = (unsigned long long *)d;
        CUDA_CHECK(cudaMemset(p.saved, 0, (size_t)blocks * (T + 1) * 8));
    }
    if (p.grpbuf_global) {
        if ((rc = gx_malloc(g, &d, (size_t)blocks * T * n * 16, "group buffers", err)))
            goto out;
        p.grpbuf_g = (uint32_t *)d;
    }
    if (p.dedupe_global) {
        /* empty once here; every iteration empties what it used */
        if ((rc = gx_malloc(g, &d, (size_t)blocks * T * D * 16, "successor sets", err)))
            goto out;
        p.dedupe_g = d;
        CUDA_CHECK(cudaMemset(p.dedupe_g, 0xff, (size_t)blocks * T * D * 16));
        if ((rc = gx_malloc(g, &d, (size_t)blocks * T * D * 4, "successor lists", err)))
            goto out;
        p.dedlist_g = (uint32_t *)d;
    }
    if (p.por_on) {
        if ((rc = gx_malloc(g, &d, (size_t)blocks * T * p.por_words * 4, "partial-order reduction scratch", err)))
            goto out;
        p.por_scratch = (uint32_t *)d;
    }
    gx_mark(g, "fixed allocations (saved tiles %zu B, successor sets %s)", (size_t)blocks * (T + 1) * 8,
            p.dedupe_global ? "global" : "shared");
out:
    return rc;
}
