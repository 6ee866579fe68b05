/*
 * fuzz_gpf.c -- fuzz target for GPUexplore's .gpf reader (parser/gpf.h).
 *
 * Per input: gpf_parse; on success the image invariants (fuzz_check.h), then
 * gpf_write into the temporary directory and gpf_read of what was written:
 * every image read from a .gpf file is within GPUexplore's limits, so the
 * writer must accept it and the reader must accept the writer's output, with
 * the same components and no fewer local states (gpf.h: a state count is
 * inferred from the packed offsets, which may add unreachable states).
 */
#include "fuzz_check.h"
#include "parser/gpf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct image img, back;
    struct wx_error e;
    if (fz_check_error(gpf_parse((const char *)data, size, "fuzz.gpf", &img, &e), &e) != WX_OK)
        return 0;
    fz_check_image(&img);
    FZ_CHECK(img.hidden == UINT32_MAX, "a .gpf image hides label %u", img.hidden);
    const char *path = fz_write_file("rt.gpf", "", 0);
    int rc = fz_check_error(gpf_write(&img, path, &e), &e);
    FZ_CHECK(rc == WX_OK, "gpf_write refuses an image read from .gpf: %s", e.msg);
    rc = fz_check_error(gpf_read(path, &back, &e), &e);
    FZ_CHECK(rc == WX_OK, "reading back the written .gpf: %s:%d:%d: %s", e.file, e.line, e.col, e.msg);
    fz_check_image(&back);
    FZ_CHECK(back.n_comps == img.n_comps, "%u components read back as %u", img.n_comps, back.n_comps);
    for (uint32_t c = 0; c < img.n_comps; c++)
        FZ_CHECK(back.comp_states[c] >= img.comp_states[c], "component %u: %u states read back as %u",
                 c, img.comp_states[c], back.comp_states[c]);
    image_free(&back);
    image_free(&img);
    return 0;
}
