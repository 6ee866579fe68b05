/*
 * cmd_info.c -- `warpex info`: the flattened network and its encoding.
 */
#include <stdio.h>

#include "cli.h"

int cmd_info(struct cli_options *o, struct wx_error *err)
{
    struct image img;
    fputs("flattening (each EXP operator, innermost first, with the network it gives):\n", stdout);
    o->net.log = stdout;
    int rc = cli_load_image(o, &img, NULL, err);
    o->net.log = NULL;
    if (rc != WX_OK)
        return rc;
    image_print_info(&img, stdout);
    image_free(&img);
    return WX_OK;
}
