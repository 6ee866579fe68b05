/*
 * fuzz_edges.c -- fuzz target for the plain graph formats: SNAP-style edge
 * lists and Matrix Market (graph/graph_read.h), and weighted edge lists
 * (graph/wgraph.h).
 *
 * Per input: graph_read_buffer as GRAPH_EDGES and GRAPH_MTX, and
 * wgraph_read_buffer as WGRAPH_EDGES.  Checked: the CSR invariants
 * (offsets monotone, targets in range, segments sorted without duplicates)
 * and the weighted graph's (fuzz_check.h); an edge list's vertex count is
 * 1 + its largest id, so an accepted non-empty list has an edge at its
 * last vertex or into it.
 */
#include "fuzz_check.h"
#include "graph/graph_read.h"

static void check_last_vertex_used(const struct csr *g)
{
    if (g->n_vertices == 0)
        return;
    uint64_t last = g->n_vertices - 1;
    int used = g->offsets[last] < g->offsets[last + 1];
    for (uint64_t e = 0; !used && e < g->n_edges; e++)
        used = g->targets[e] == last;
    FZ_CHECK(used, "%llu vertices but vertex %llu appears in no edge",
             (unsigned long long)g->n_vertices, (unsigned long long)last);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct csr g;
    struct wx_error e;
    if (fz_check_error(graph_read_buffer((const char *)data, size, "fuzz.txt", GRAPH_EDGES, &g, &e), &e) ==
        WX_OK) {
        fz_check_csr(&g);
        FZ_CHECK(g.labels == NULL && g.initial == 0, "an edge list with labels or an initial vertex");
        check_last_vertex_used(&g);
        csr_free(&g);
    }
    if (fz_check_error(graph_read_buffer((const char *)data, size, "fuzz.mtx", GRAPH_MTX, &g, &e), &e) ==
        WX_OK) {
        fz_check_csr(&g);
        csr_free(&g);
    }
    struct wgraph w;
    struct wgraph_options o = {0};
    if (fz_check_error(wgraph_read_buffer((const char *)data, size, "fuzz.txt", WGRAPH_EDGES, &o, &w, &e),
                       &e) == WX_OK) {
        fz_check_wgraph(&w);
        FZ_CHECK(w.format == WGRAPH_EDGES, "format %d", (int)w.format);
        wgraph_free(&w);
    }
    return 0;
}
