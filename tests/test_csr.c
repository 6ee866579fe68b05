/*
 * test_csr.c -- the CSR builder and binary format: random graphs built from
 * shuffled, duplicated edge lists match a brute-force adjacency set; files
 * round-trip; damaged files are rejected with an error, never a crash.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "graph/csr.h"

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Brute-force check: edge (v, l, t) is in g iff present[v][l][t]. */
static int same_as_matrix(const struct csr *g, const unsigned char *present, uint32_t nv, uint32_t nl)
{
    uint64_t count = 0;
    for (uint32_t v = 0; v < nv; v++)
        for (uint32_t l = 0; l < nl; l++)
            for (uint32_t t = 0; t < nv; t++)
                count += present[((size_t)v * nl + l) * nv + t];
    if (count != g->n_edges || g->offsets[nv] != g->n_edges)
        return 0;
    for (uint32_t v = 0; v < nv; v++)
        for (uint64_t i = g->offsets[v]; i < g->offsets[v + 1]; i++) {
            if (!present[((size_t)v * nl + g->labels[i]) * nv + g->targets[i]])
                return 0;
            if (i > g->offsets[v] && (g->labels[i - 1] > g->labels[i] ||
                                      (g->labels[i - 1] == g->labels[i] && g->targets[i - 1] >= g->targets[i])))
                return 0; /* not sorted by (label, target) or duplicated */
        }
    return 1;
}

static int same_graph(const struct csr *a, const struct csr *b)
{
    if (a->n_vertices != b->n_vertices || a->n_edges != b->n_edges || a->initial != b->initial)
        return 0;
    if (memcmp(a->offsets, b->offsets, (a->n_vertices + 1) * sizeof *a->offsets) ||
        memcmp(a->targets, b->targets, a->n_edges * sizeof *a->targets) ||
        memcmp(a->labels, b->labels, a->n_edges * sizeof *a->labels))
        return 0;
    if (strtab_count(a->label_names) != strtab_count(b->label_names))
        return 0;
    for (uint32_t i = 0; i < strtab_count(a->label_names); i++)
        if (strcmp(strtab_str(a->label_names, i), strtab_str(b->label_names, i)))
            return 0;
    return 1;
}

int main(void)
{
    char path[256];
    snprintf(path, sizeof path, "tests/out/test_csr_%d.csr", (int)getpid());
    int ok_build = 1, ok_trip = 1;
    uint64_t bad_seed = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        rng_state = seed * 0x9E3779B97F4A7C15ull;
        uint32_t nv = 1 + rnd() % 12, nl = 1 + rnd() % 4;
        unsigned char *present = calloc((size_t)nv * nl * nv, 1);
        struct strtab *names = strtab_new();
        for (uint32_t l = 0; l < nl; l++) {
            char buf[32];
            int n = snprintf(buf, sizeof buf, "lab \"%u\", x", l);
            strtab_intern(names, buf, (size_t)n);
        }
        struct csr_builder *b = csr_builder_new();
        struct wx_error err;
        uint32_t m = (uint32_t)(rnd() % 60);
        for (uint32_t i = 0; i < m; i++) {
            uint32_t v = rnd() % nv, l = rnd() % nl, t = rnd() % nv;
            present[((size_t)v * nl + l) * nv + t] = 1;
            csr_builder_add(b, v, l, t, &err);
            if (rnd() % 4 == 0)
                csr_builder_add(b, v, l, t, &err); /* duplicates must vanish */
        }
        struct csr g, h;
        if (csr_builder_finish(b, nv, names, &g, &err) != WX_OK || !same_as_matrix(&g, present, nv, nl)) {
            ok_build = 0;
            bad_seed = seed;
        } else if (csr_write(&g, path, &err) != WX_OK || csr_read(path, &h, &err) != WX_OK) {
            if (ok_trip)
                printf("seed %llu: %s\n", (unsigned long long)seed, err.msg);
            ok_trip = 0;
            bad_seed = seed;
        } else {
            if (!same_graph(&g, &h)) {
                ok_trip = 0;
                bad_seed = seed;
            }
            csr_free(&h);
        }
        csr_free(&g);
        strtab_free(names);
        free(present);
    }
    check(ok_build, "csr builder = brute-force adjacency on 200 random graphs (first bad seed %llu)",
          (unsigned long long)bad_seed);
    check(ok_trip, "csr write/read round trip on 200 random graphs (first bad seed %llu)",
          (unsigned long long)bad_seed);

    /* Damaged files: every truncation and single-byte corruption of a small
     * valid file must be rejected or read as a consistent graph. */
    struct wx_error err;
    struct csr_builder *b = csr_builder_new();
    csr_builder_add(b, 0, 0, 1, &err);
    csr_builder_add(b, 1, 1, 2, &err);
    csr_builder_add(b, 2, 0, 0, &err);
    struct strtab *names = strtab_new();
    strtab_intern(names, "a", 1);
    strtab_intern(names, "b", 1);
    struct csr g;
    csr_builder_finish(b, 3, names, &g, &err);
    csr_write(&g, path, &err);
    FILE *f = fopen(path, "rb");
    unsigned char buf[4096];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    int trunc_ok = 1, corrupt_ok = 1;
    for (size_t cut = 0; cut < len; cut++) {
        f = fopen(path, "wb");
        fwrite(buf, 1, cut, f);
        fclose(f);
        struct csr h;
        if (csr_read(path, &h, &err) == WX_OK) {
            trunc_ok = 0;
            csr_free(&h);
        } else if (err.code != WX_EINPUT && err.code != WX_ELIMIT) {
            trunc_ok = 0;
        }
    }
    for (size_t at = 0; at < len; at++) {
        unsigned char save = buf[at];
        buf[at] ^= 0x5a;
        f = fopen(path, "wb");
        fwrite(buf, 1, len, f);
        fclose(f);
        struct csr h;
        if (csr_read(path, &h, &err) == WX_OK) {
            /* accepted: must be internally consistent */
            for (uint64_t v = 0; v < h.n_vertices; v++)
                if (h.offsets[v] > h.offsets[v + 1])
                    corrupt_ok = 0;
            for (uint64_t i = 0; i < h.n_edges; i++)
                if (h.targets[i] >= h.n_vertices)
                    corrupt_ok = 0;
            csr_free(&h);
        }
        buf[at] = save;
    }
    check(trunc_ok, "every truncation of a CSR file is rejected as bad input");
    check(corrupt_ok, "corrupted CSR files are rejected or read consistently");
    struct csr h;
    check(csr_read("tests/out/does-not-exist.csr", &h, &err) == WX_EINPUT && strstr(err.msg, "cannot open"),
          "missing CSR file is an input error");
    /* csr_write's temporaries are ".NAME.wx-XXXXXX" next to NAME */
    char stem[300];
    snprintf(stem, sizeof stem, ".%s.wx-", strrchr(path, '/') + 1);
    int left = 0;
    DIR *d = opendir("tests/out");
    for (struct dirent *de; d && (de = readdir(d));)
        left += !strncmp(de->d_name, stem, strlen(stem));
    if (d)
        closedir(d);
    check(d && left == 0, "no temporary file left behind after csr_write (%d found)", left);
    csr_free(&g);
    strtab_free(names);
    remove(path);
    return check_exit();
}
