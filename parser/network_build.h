/*
 * network_build.h -- from input files to a flat network (network.h).
 *
 * network_from_exp parses an EXP file, reads its leaves and flattens the tree
 * bottom-up with the transforms below; network_from_aut wraps one LTS (every
 * label is a single-participant rule whose result is the label itself).
 *
 * Leaves resolve against the working directory like CADP; when the file is
 * not there, against the directory of the .exp file that names it.  An
 * extension-less name means NAME.aut; .bcg is rejected with a hint to convert
 * with bcg_io; "x.exp" leaves are included (parsed and flattened, as if
 * parenthesised).
 */
#ifndef WX_NETWORK_BUILD_H
#define WX_NETWORK_BUILD_H

#include <stdbool.h>
#include <stdio.h>

#include "../network/network.h"
#include "../network/exp_tree.h"

struct net_options {
    const char *hidden;   /* hidden label text; NULL = the language default
                             ("i"; "t" for CCS/CSP; "tau" for mCRL) */
    bool rate;            /* labels "rate ..." / "...; rate ..." always async */
    bool prob;            /* labels "prob ..." always async */
    bool case_sensitive;  /* --case: no upper-case folding for LOTOS/CCS/CSP */
    FILE *log;            /* NULL, or where the flattening writes one line
                             per EXP operator: location, construct, and the
                             network after it (`warpex info`) */
    bool verbose;         /* unused by the builder (it never prints); the CLI
                             reports comps[c].n_duplicates itself */
};

int network_from_exp(const char *path, const struct net_options *opt,
                     struct network *out, struct wx_error *err);
int network_from_aut(const char *path, const struct net_options *opt,
                     struct network *out, struct wx_error *err);
/* Dispatch on the file name's extension (.exp or .aut). */
int network_from_file(const char *path, const struct net_options *opt,
                      struct network *out, struct wx_error *err);

#endif
