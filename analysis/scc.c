/*
 * scc.c -- Tarjan's SCC algorithm, iterative, over struct csr.
 *
 * The recursion of the textbook algorithm is replaced by an explicit call
 * stack of vertices plus a per-vertex edge cursor (the next edge of v still to
 * look at), so the depth of the graph costs heap, not C stack.
 *
 * A vertex w is on Tarjan's stack exactly when it has been visited and not yet
 * assigned to a component (Tarjan's invariant: a visited vertex leaves the
 * stack at the moment its component is emitted), so no separate on-stack bit
 * is kept: comp[w] == UNSET marks it.
 */
#include <stdlib.h>
#include <string.h>

#include "scc.h"

#define UNSET UINT32_MAX /* never a vertex index: n_vertices < 2^32 (csr.h) */

void scc_result_free(struct scc_result *out)
{
    free(out->comp);
    memset(out, 0, sizeof *out);
}

/* Tarjan proper: fills comp[] with component ids in the order components are
 * completed (a reverse topological order) and returns their number. */
static uint64_t tarjan(const struct csr *g, uint32_t *comp, uint32_t *index, uint32_t *low,
                       uint32_t *tstack, uint32_t *cstack, uint64_t *cursor)
{
    const uint64_t n = g->n_vertices;
    uint32_t next_index = 0, ncomp = 0;
    uint64_t tsp = 0, csp = 0; /* stack heights */

    for (uint64_t r = 0; r < n; r++) {
        if (index[r] != UNSET)
            continue;
        /* visit(r) */
        index[r] = low[r] = next_index++;
        tstack[tsp++] = (uint32_t)r;
        cstack[csp++] = (uint32_t)r;
        cursor[r] = g->offsets[r];
        while (csp > 0) {
            uint32_t v = cstack[csp - 1];
            if (cursor[v] < g->offsets[v + 1]) {
                uint32_t w = g->targets[cursor[v]++];
                if (index[w] == UNSET) {
                    index[w] = low[w] = next_index++;
                    tstack[tsp++] = w;
                    cstack[csp++] = w;
                    cursor[w] = g->offsets[w];
                } else if (comp[w] == UNSET && index[w] < low[v]) {
                    low[v] = index[w]; /* w is on Tarjan's stack */
                }
                continue;
            }
            /* All of v's edges done: return from visit(v). */
            csp--;
            if (low[v] == index[v]) {
                uint32_t w;
                do {
                    w = tstack[--tsp];
                    comp[w] = ncomp;
                } while (w != v);
                ncomp++;
            }
            if (csp > 0) {
                uint32_t u = cstack[csp - 1];
                if (low[v] < low[u])
                    low[u] = low[v];
            }
        }
    }
    return ncomp;
}

int scc_cpu(const struct csr *g, struct scc_result *out, struct wx_error *err)
{
    const uint64_t n = g->n_vertices;
    memset(out, 0, sizeof *out);
    out->n_vertices = n;
    if (n == 0)
        return WX_OK;

    uint32_t *comp = malloc(n * sizeof *comp);
    uint32_t *index = malloc(n * sizeof *index);
    uint32_t *low = malloc(n * sizeof *low);
    uint32_t *tstack = malloc(n * sizeof *tstack);
    uint32_t *cstack = malloc(n * sizeof *cstack);
    uint64_t *cursor = malloc(n * sizeof *cursor);
    if (!comp || !index || !low || !tstack || !cstack || !cursor) {
        free(comp); free(index); free(low); free(tstack); free(cstack); free(cursor);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0,
                       "out of memory for the SCC work space (%llu vertices)",
                       (unsigned long long)n);
    }
    memset(comp, 0xff, n * sizeof *comp);
    memset(index, 0xff, n * sizeof *index);
    uint64_t ncomp = tarjan(g, comp, index, low, tstack, cstack, cursor);
    free(tstack);
    free(cstack);
    free(cursor);

    /* Canonical renumbering by smallest vertex; index[] becomes the map from
     * Tarjan's id to the canonical one (ncomp <= n entries). */
    uint32_t *map = index, next = 0;
    memset(map, 0xff, ncomp * sizeof *map);
    for (uint64_t v = 0; v < n; v++) {
        if (map[comp[v]] == UNSET)
            map[comp[v]] = next++;
        comp[v] = map[comp[v]];
    }

    /* Per component: size (in map[]) and flags (in low[]: bit 0 = an edge
     * leaves, bit 1 = a self-loop seen). */
    uint32_t *size = map, *flags = low;
    memset(size, 0, ncomp * sizeof *size);
    memset(flags, 0, ncomp * sizeof *flags);
    for (uint64_t v = 0; v < n; v++) {
        uint32_t c = comp[v];
        size[c]++;
        for (uint64_t e = g->offsets[v]; e < g->offsets[v + 1]; e++) {
            uint32_t w = g->targets[e];
            if (comp[w] != c)
                flags[c] |= 1;
            else if (w == v)
                flags[c] |= 2;
        }
    }
    out->comp = comp;
    out->n_sccs = ncomp;
    for (uint64_t c = 0; c < ncomp; c++) {
        int trivial = size[c] == 1 && !(flags[c] & 2);
        out->n_trivial += trivial;
        if (!trivial)
            out->n_in_nontrivial += size[c];
        if (size[c] > out->largest)
            out->largest = size[c];
        if (!(flags[c] & 1)) {
            out->n_bottom++;
            out->n_bottom_trivial += trivial;
        }
    }
    free(index);
    free(low);
    return WX_OK;
}
