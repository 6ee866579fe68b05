/*
 * cli.h -- internals of the warpex command-line tool.  The CLI is the only
 * layer that prints errors and chooses exit codes (== wx_error codes).
 */
#ifndef WX_CLI_H
#define WX_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "../explorer/explore.h"
#include "../parser/network_build.h"
#include "../util/timer.h"
#include "../analysis/cyclemean.h"
#include "../analysis/scc.h"
#include "../graph/wgraph.h"

struct cli_options {
    enum explore_backend backend;
    bool backend_given;
    unsigned threads;
    uint64_t memory;
    enum explore_store store;  /* explore --store flat|tree|auto */
    bool deadlock, trace, trace_states, json, quiet;
    bool por;                /* explore --por: partial-order reduction */
    bool stop_at_first;      /* explore --stop-at-first: a violation ends the
                                exploration even when outputs/analyses want
                                the whole product */
    bool scc;                /* explore --scc: decompose the explored graph */
    bool livelock;           /* explore --livelock: look for a reachable tau-cycle */
    bool reversible;         /* explore --reversible: can every state return to 0? */
    bool mec;                /* explore --mec: MECs of the LTS (Dirac choices) */
    const char *scc_out;     /* explore --scc-out: component id per state */
    const char *mec_out;     /* explore --mec-out: MEC id per state (-1: none) */
    int cycle_mean;          /* explore --cycle-mean: 0 none, 1 min, 2 max   */
    const char *weight;      /* explore --weight REGEX (cycle mean weights)  */
    const char *default_weight; /* explore --default-weight W               */
    int verbose;
    const char *action;      /* POSIX extended regex over labels */
    const char *aut_out, *csr_out;
    const char *to;          /* convert: aut | gpf */
    /* probabilistic networks (cli/cmd_explore_mdp.c) */
    const char *mdp_out;     /* explore --mdp-out BASE: BASE.tra / BASE.lab */
    const char **props;      /* explore --prop P (repeatable), argv-owned */
    int n_props;
    const char *props_file;  /* explore --props FILE */
    const char **rewards;    /* explore --reward [NAME:]REGEX=VALUE (repeatable), argv-owned */
    int n_rewards;
    double epsilon;          /* explore --epsilon (0: the default 1e-6) */
    enum cli_prop_method { CLI_PM_AUTO, CLI_PM_II, CLI_PM_OVI, CLI_PM_PI } prop_method; /* explore --method */
    int prop_method_given;
    struct net_options net;
    struct gpu_options gpu;
    const char *input;       /* the model file */
    const char *output;      /* convert: the output file */
};

/* explore --method's names, indexed by enum cli_prop_method (cli/options.c). */
extern const char *const cli_prop_method_names[4];

/* The GPU value-iteration knobs from the environment (cli/env_vi.c,
 * docs/tuning.md); all zero when none is set. */
struct vi_gpu_tuning;
void cli_vi_gpu_env(struct vi_gpu_tuning *t);
/* Applies WARPEX_SCC_TUNING (when set and a GPU is usable) with
 * scc_gpu_set_tuning; a bad value is WX_EINPUT. */
int cli_scc_gpu_env(struct wx_error *err);

/* cli/usage.c: prints the usage text of command (NULL: the overview of
 * warpex) on out; returns 0, or -1 for an unknown command. */
int cli_usage(const char *command, FILE *out);
/* arg is --help or -h. */
int cli_is_help(const char *arg);
/* What a command's parser returns after printing its usage for --help / -h
 * (not a wx_error code: main exits 0 on it). */
#define CLI_HELP (-1)

/* Parses argv[first..] into o; returns WX_OK, WX_EINPUT (message in err) or
 * CLI_HELP. */
int cli_parse(int argc, char **argv, int first, const char *command,
              struct cli_options *o, struct wx_error *err);


/* Loads FILE (.exp, .aut or .gpf) and compiles it into an image.  When net
 * is not NULL it receives the flat network (for the components' original
 * state numbers; zeroed for .gpf input); the caller frees it. */
int cli_load_image(const struct cli_options *o, struct image *img, struct network *net,
                   struct wx_error *err);

int cmd_explore(struct cli_options *o, struct wx_error *err);
/* explore on a probabilistic network (img->probabilistic): the MDP explorer,
 * --mdp-out, --prop/--props; refuses the options that do not apply.  Frees
 * nothing of img / net (the caller does). */
int cli_explore_mdp(struct cli_options *o, const struct image *img, const struct network *net,
                    struct wx_error *err);
/* cli/cmd_explore.c.  --action: *flags (allocated, n_labels bytes) marks
 * every label but the hidden one that the POSIX extended regex matches;
 * *matched counts them.  WX_EINPUT for a bad regex. */
int cli_match_actions(const struct image *img, const char *re_text, uint8_t **flags,
                      uint32_t *matched, struct wx_error *err);
/* A state vector as its components' states, numbered as in their input
 * files: "(1, 0)" or, with json, "[1, 0]". */
void cli_print_vector(FILE *out, const struct image *img, const struct network *net,
                      const uint32_t *vec, int json);
/* Releases what cli_parse allocated. */
void cli_options_free(struct cli_options *o);
int cmd_info(struct cli_options *o, struct wx_error *err);
int cmd_convert(struct cli_options *o, struct wx_error *err);
/* `--backend auto|gpu|cpu` of the analyses; auto when absent. */
enum cli_backend { CLI_BACKEND_AUTO, CLI_BACKEND_GPU, CLI_BACKEND_CPU };
int cli_backend_parse(const char *value, enum cli_backend *b, struct wx_error *err);
/* Options of the standalone analysis commands:
 * FILE [--json] [-q] [OUT_OPTION FILE] [--backend auto|gpu|cpu].
 * --backend gpu when !gpu_usable is an error (WX_EINPUT). */
struct standalone_options {
    const char *input, *output;
    int json, quiet;
    enum cli_backend backend;
};
int cli_parse_standalone(int argc, char **argv, int first, const char *command,
                         const char *out_option, int gpu_usable, struct standalone_options *o,
                         struct wx_error *err);
/* cli/gpu_choice.c.  1 when this binary was built with CUDA. */
int cli_gpu_built(void);
/* The error of `--backend gpu` without a usable GPU, the same in every
 * command: WX_EINPUT (exit 2), saying whether the build has CUDA. */
int cli_no_gpu(struct wx_error *err);
/* `--backend auto` without a usable GPU: the one-line notice on stderr,
 * unless quiet or the build has no CUDA (then no GPU was expected). */
void cli_cpu_notice(int quiet);
/* auto becomes gpu when gpu_usable, else cpu with the one-line notice on
 * stderr (none when quiet); call it after the input was read, so that a
 * bad file reports only its own error line. */
enum cli_backend cli_settle_backend(enum cli_backend b, int gpu_usable, int quiet);

/* s as a JSON string, quotes included (quotes, backslashes and control
 * bytes escaped). */
void cli_json_string(FILE *out, const char *s);

/* The opening of one property's JSON object, as `check` and `explore --prop`
 * print it: {"property": TEXT[, "name": NAME], "kind": "Pmax"[,
 * "reward_structure": NAME or its number from 1]} without the closing
 * brace; pr is the property's reward structure (NULL for P properties). */
struct property;
struct mdp_rewards;
void cli_json_property_head(FILE *out, int first, const struct property *p,
                            const struct mdp_rewards *pr, int reward_index);

/* The properties of `check` and `explore --prop`: those of FILE (--props;
 * NULL: none) first, then one per text (--prop, located as "--prop" line
 * i + 1), in one array *props of *n (prop_free_all frees it).  On failure
 * nothing is left allocated (*props NULL, *n 0). */
int cli_read_props(const char *file, const char *const *texts, int n_texts, struct property **props,
                   size_t *n, struct wx_error *err);

/* Records the run's input files (outfile_protect: no output may replace
 * one) and refuses, before any work, an output path that outfile_open
 * would refuse (outfile_check).  NULL entries are skipped. */
int cli_guard_files(const char *const *inputs, size_t n_in, const char *const *outputs, size_t n_out,
                    struct wx_error *err);

/* Writes one id per line (-1 for `none`) through outfile_write
 * (util/outfile.h: a regular file replaced when complete, a device written
 * in place). */
int cli_write_ids(const char *path, const uint32_t *ids, uint64_t n, uint32_t none,
                  struct wx_error *err);

/* `warpex scc`: parses its own options from argv[first..]. */
int cmd_scc(int argc, char **argv, int first, struct wx_error *err);
/* `warpex mec`: parses its own options from argv[first..]. */
int cmd_mec(int argc, char **argv, int first, struct wx_error *err);
/* `warpex check`: parses its own options from argv[first..]. */
int cmd_check(int argc, char **argv, int first, struct wx_error *err);

/* `warpex cycle-mean`: parses its own options from argv[first..]. */
int cmd_cycle(int argc, char **argv, int first, struct wx_error *err);

/* explore --cycle-mean: the exact cycle mean of an explored product whose
 * weights come from its labels (--weight REGEX, --default-weight W).
 * cli_cycle_of_graph takes over graph (labelled; zeroed on return) and
 * solves it on `backend`; cli_cycle_print prints the
 * `warpex cycle-mean` text report, or its JSON object without a newline. */
struct cli_cycle {
    const char *model, *backend;
    int maximize;
    double seconds;
    struct wgraph g;
    struct scc_result scc;
    struct cm_result r;
    /* a graph kept on the device: the critical cycle's weights and labels */
    int64_t *cycle_w;
    uint32_t *cycle_l;
    const struct strtab *names;
};
int cli_cycle_of_graph(struct cli_cycle *c, struct csr *graph, const char *model, const char *weight,
                       const char *default_weight, int maximize, enum cli_backend backend,
                       struct wx_error *err);
/* The same on the graph the GPU explorer left on the device, with its SCC
 * ids d_comp there (scc: the counts); only the answer and the critical
 * cycle come back to the host.  label_names: the image's result labels. */
int cli_cycle_of_device(struct cli_cycle *c, const struct dgraph *dg, const uint32_t *d_comp,
                        const struct scc_result *scc, const struct strtab *label_names, const char *model,
                        const char *weight, const char *default_weight, int maximize, struct wx_error *err);
void cli_cycle_print(const struct cli_cycle *c, bool json);
void cli_cycle_free(struct cli_cycle *c);

/* Prints e as "warpex: file:line:col: message" on stderr. */
void cli_print_error(const struct wx_error *e);
/* While on, cli_print_error prints nothing (the ranks of an mpirun job
 * other than the one that reports the error, cli/dist.h). */
void cli_mute_errors(bool on);

#endif
