/*
 * fuzz_csr.c -- fuzz target for warpex's CSR binary reader (graph/csr.h),
 * which takes a path: the input is written to a temporary file.
 *
 * Checked: the CSR invariants (fuzz_check.h), and a round trip: csr_write of
 * the graph and csr_read of that file give the same graph.
 */
#include "fuzz_check.h"

static void same_csr(const struct csr *a, const struct csr *b)
{
    FZ_CHECK(a->n_vertices == b->n_vertices && a->n_edges == b->n_edges && a->initial == b->initial &&
                 (a->labels == NULL) == (b->labels == NULL),
             "round trip changes the sizes");
    FZ_CHECK(!memcmp(a->offsets, b->offsets, (a->n_vertices + 1) * sizeof *a->offsets),
             "round trip changes the offsets");
    for (uint64_t e = 0; e < a->n_edges; e++)
        FZ_CHECK(a->targets[e] == b->targets[e] && (!a->labels || a->labels[e] == b->labels[e]),
                 "round trip changes edge %llu", (unsigned long long)e);
    uint32_t na = a->label_names ? strtab_count(a->label_names) : 0;
    uint32_t nb = b->label_names ? strtab_count(b->label_names) : 0;
    FZ_CHECK(na == nb, "round trip: %u labels, then %u", na, nb);
    for (uint32_t i = 0; i < na; i++)
        FZ_CHECK(strtab_len(a->label_names, i) == strtab_len(b->label_names, i) &&
                     !memcmp(strtab_str(a->label_names, i), strtab_str(b->label_names, i),
                             strtab_len(a->label_names, i)),
                 "round trip changes label %u", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct csr g, back;
    struct wx_error e;
    const char *path = fz_write_file("fuzz.csr", data, size);
    if (fz_check_error(csr_read(path, &g, &e), &e) != WX_OK)
        return 0;
    fz_check_csr(&g);
    char out[600];
    snprintf(out, sizeof out, "%s/rt.csr", fz_tmpdir());
    int rc = fz_check_error(csr_write(&g, out, &e), &e);
    FZ_CHECK(rc == WX_OK, "csr_write of a read graph: %s", e.msg);
    rc = fz_check_error(csr_read(out, &back, &e), &e);
    FZ_CHECK(rc == WX_OK, "reading back the written CSR: %s", e.msg);
    same_csr(&g, &back);
    csr_free(&back);
    csr_free(&g);
    return 0;
}
