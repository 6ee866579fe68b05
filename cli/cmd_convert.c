/*
 * cmd_convert.c -- `warpex convert FILE --to aut|gpf OUT`.
 *   gpf: the compiled network in GPUexplore's format (no exploration);
 *   aut: the explored product LTS (like explore --aut OUT).
 */
#include <string.h>

#include "../parser/gpf.h"
#include "cli.h"

int cmd_convert(struct cli_options *o, struct wx_error *err)
{
    if (!strcmp(o->to, "aut")) {
        o->aut_out = o->output;
        return cmd_explore(o, err);
    }
    struct image img;
    int rc = cli_load_image(o, &img, NULL, err);
    if (rc != WX_OK)
        return rc;
    if (img.probabilistic) { /* .gpf has no probabilities: never write the support graph silently */
        image_free(&img);
        return wx_fail(err, WX_EINPUT, NULL, 0, 0, "%s is a probabilistic network: GPUexplore's .gpf "
                       "format cannot hold distributions", o->input);
    }
    rc = gpf_write(&img, o->output, err);
    image_free(&img);
    return rc;
}
