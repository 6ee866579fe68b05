#include "outputs.h"

#include <stdio.h>
#include <string.h>

#include "../parser/aut.h"
#include "../util/strtab.h"

static int emit(void *ctx, const struct product_edge *e, size_t n, struct wx_error *err)
{
    struct outputs *o = ctx;
    int rc = WX_OK;
    pthread_mutex_lock(&o->lock);
    for (size_t i = 0; i < n && rc == WX_OK; i++) {
        if (o->aut) {
            const char *text = strtab_str(o->img->labels, e[i].label);
            rc = aut_writer_add(o->aut, e[i].src, text, strtab_len(o->img->labels, e[i].label),
                                e[i].dst);
            if (rc != WX_OK)
                wx_fail(err, rc, o->aut_path, 0, 0, "writing the product LTS failed");
        }
        if (rc == WX_OK && o->csr)
            rc = csr_builder_add(o->csr, e[i].src, e[i].label, e[i].dst, err);
    }
    pthread_mutex_unlock(&o->lock);
    return rc;
}

int outputs_open(struct outputs *o, const struct cli_options *opt, const struct image *img,
                 bool keep_graph, struct wx_error *err)
{
    memset(o, 0, sizeof *o);
    pthread_mutex_init(&o->lock, NULL);
    o->img = img;
    o->sink.emit = emit;
    o->sink.ctx = o;
    o->aut_path = opt->aut_out;
    o->csr_path = opt->csr_out;
    if (opt->aut_out) {
        int rc = aut_writer_open(opt->aut_out, &o->aut, err);
        if (rc != WX_OK)
            return rc;
    }
    if ((opt->csr_out || keep_graph) && !(o->csr = csr_builder_new())) {
        outputs_abort(o);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    }
    return WX_OK;
}

int outputs_active(const struct outputs *o)
{
    return o->aut || o->csr;
}

int outputs_finish(struct outputs *o, uint64_t n_states, struct csr *graph, struct wx_error *err)
{
    int rc = WX_OK;
    if (graph)
        memset(graph, 0, sizeof *graph);
    if (o->aut) {
        rc = aut_writer_close(o->aut, n_states, err);
        o->aut = NULL;
    }
    if (o->csr) {
        struct csr g;
        memset(&g, 0, sizeof g);
        struct csr_builder *b = o->csr;
        o->csr = NULL;
        if (rc == WX_OK)
            rc = csr_builder_finish(b, n_states, o->img->labels, &g, err);
        else
            csr_builder_free(b);
        if (rc == WX_OK && o->csr_path)
            rc = csr_write(&g, o->csr_path, err);
        if (rc == WX_OK && graph)
            *graph = g;   /* ownership passes to the caller */
        else
            csr_free(&g); /* safe on the zeroed struct too */
    }
    pthread_mutex_destroy(&o->lock);
    return rc;
}

void outputs_abort(struct outputs *o)
{
    if (o->aut) {
        aut_writer_abort(o->aut);
        o->aut = NULL;
    }
    if (o->csr) {
        csr_builder_free(o->csr);
        o->csr = NULL;
    }
}
