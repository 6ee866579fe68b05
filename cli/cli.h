/*
 * cli.h -- internals of the warpex command-line tool.  The CLI is the only
 * layer that prints errors and chooses exit codes (== wx_error codes).
 */
#ifndef WX_CLI_H
#define WX_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "../explorer/explore.h"
#include "../network/network_build.h"

struct cli_options {
    enum explore_backend backend;
    bool backend_given;
    unsigned threads;
    uint64_t memory;
    bool deadlock, trace, trace_states, json, quiet;
    bool scc;                /* explore --scc: decompose the explored graph */
    bool livelock;           /* explore --livelock: look for a reachable tau-cycle */
    bool reversible;         /* explore --reversible: can every state return to 0? */
    bool mec;                /* explore --mec: MECs of the LTS (Dirac choices) */
    const char *scc_out;     /* explore --scc-out: component id per state */
    const char *mec_out;     /* explore --mec-out: MEC id per state (-1: none) */
    int verbose;
    const char *action;      /* POSIX extended regex over labels */
    const char *aut_out, *csr_out;
    const char *to;          /* convert: aut | gpf */
    struct net_options net;
    struct gpu_options gpu;
    const char *input;       /* the model file */
    const char *output;      /* convert: the output file */
};

/* Parses argv[first..] into o; returns WX_OK or WX_EINPUT (message in err). */
int cli_parse(int argc, char **argv, int first, const char *command,
              struct cli_options *o, struct wx_error *err);

/* Parses sizes like 512M, 4G, 1.5G, 1048576 (bytes). */
int cli_parse_size(const char *s, uint64_t *out);

/* Loads FILE (.exp, .aut or .gpf) and compiles it into an image.  When net
 * is not NULL it receives the flat network (for the components' original
 * state numbers; zeroed for .gpf input); the caller frees it. */
int cli_load_image(const struct cli_options *o, struct image *img, struct network *net,
                   struct wx_error *err);

int cmd_explore(struct cli_options *o, struct wx_error *err);
int cmd_info(struct cli_options *o, struct wx_error *err);
int cmd_convert(struct cli_options *o, struct wx_error *err);
/* Options of the standalone analysis commands: FILE [--json] [-q] [OUT_OPTION FILE]. */
struct standalone_options {
    const char *input, *output;
    int json, quiet;
};
struct timespec;
int cli_parse_standalone(int argc, char **argv, int first, const char *command,
                         const char *out_option, struct standalone_options *o,
                         struct wx_error *err);
/* Writes one id per line (`none` as -1) to PATH.tmp, renamed to PATH on
 * success, so an error leaves no file. */
int cli_write_ids(const char *path, const uint32_t *ids, uint64_t n, uint32_t none,
                  struct wx_error *err);
double cli_seconds_since(const struct timespec *t0);

/* `warpex scc`: parses its own options from argv[first..]. */
int cmd_scc(int argc, char **argv, int first, struct wx_error *err);
/* `warpex mec`: parses its own options from argv[first..]. */
int cmd_mec(int argc, char **argv, int first, struct wx_error *err);
/* `warpex check`: parses its own options from argv[first..]. */
int cmd_check(int argc, char **argv, int first, struct wx_error *err);

/* `warpex cycle-mean`: parses its own options from argv[first..]. */
int cmd_cycle(int argc, char **argv, int first, struct wx_error *err);

/* Prints e as "warpex: file:line:col: message" on stderr. */
void cli_print_error(const struct wx_error *e);

#endif
