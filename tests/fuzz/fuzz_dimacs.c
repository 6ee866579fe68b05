/*
 * fuzz_dimacs.c -- fuzz target for DIMACS weighted graphs (graph/wgraph.h):
 * "p [NAME] N M" then exactly M arc lines "a U V WEIGHT [TRANSIT]".
 *
 * Checked: the weighted graph's invariants (fuzz_check.h) and the header's
 * counts: an accepted file has exactly the p line's N vertices and M arcs.
 */
#include "fuzz_check.h"

/* N and M of the first "p" line (the reader accepted the file, so it is
 * well formed): its last two tokens; 0 when it cannot be read this simply. */
static int p_line(const char *s, unsigned long long *n, unsigned long long *m)
{
    for (const char *l = s; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (l[0] != 'p' || (l[1] != ' ' && l[1] != '\t'))
            continue;
        size_t len = strcspn(l, "\n");
        char line[512];
        if (len >= sizeof line)
            return 0;
        memcpy(line, l, len);
        line[len] = 0;
        char *tok[4];
        int k = 0;
        for (char *t = strtok(line + 1, " \t\r"); t && k < 4; t = strtok(NULL, " \t\r"))
            tok[k++] = t;
        if (k < 2 || k > 3)
            return 0;
        char *e1, *e2;
        *n = strtoull(tok[k - 2], &e1, 10);
        *m = strtoull(tok[k - 1], &e2, 10);
        return !*e1 && !*e2;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wgraph w;
    struct wgraph_options o = {0};
    struct wx_error e;
    if (fz_check_error(wgraph_read_buffer((const char *)data, size, "fuzz.dimacs", WGRAPH_DIMACS, &o, &w, &e),
                       &e) != WX_OK)
        return 0;
    fz_check_wgraph(&w);
    char *text = fz_cstr(data, size);
    unsigned long long n, m;
    if (p_line(text, &n, &m))
        FZ_CHECK(n == w.n_vertices && m == w.n_edges, "p line %llu %llu, graph %llu %llu", n, m,
                 (unsigned long long)w.n_vertices, (unsigned long long)w.n_edges);
    free(text);
    wgraph_free(&w);
    return 0;
}
