/*
 * check.h -- the parts of `warpex check` (cli/cmd_check.c), private to cli/:
 * its options (check_options.c), the state of one run, its report
 * (check_report.c) and its timeline (check_timeline.c).
 */
#ifndef WX_CLI_CHECK_H
#define WX_CLI_CHECK_H

#include <stdint.h>

#include "../analysis/mdpcheck.h"
#include "../analysis/prop.h"
#include "../graph/mdp.h"
#include "../graph/mdp_lab.h"
#include "../kernels/mdp_dev.h"
#include "cli.h"
#include "gpu_probe.h"
#include "prop_report.h"

struct check_options {
    const char *input, *lab, *sta, *props_file, *values_out, *sched_out;
    const char **props, **srew, **trew; /* --prop, --srew, --trew may repeat */
    int n_props, n_srew, n_trew;
    int sound, topological, policy, json, quiet, relative, threads;
    int optimistic;   /* --method ovi: optimistic value iteration */
    int svi;          /* --method svi: sound value iteration, CPU only */
    int auto_method;  /* --method auto: settled with the backend (check_auto_method) */
    int inplace; /* --solver inplace: solver is VI_GAUSS_SEIDEL, the GPU may run it */
    int solver_given; /* --solver named: topological on the CPU with jacobi = by levels */
    int method_given; /* --method named: else the default may be topological (auto) */
    int all_states;   /* --all-states: the stopping rule at every state */
    uint64_t gpu_memory; /* --gpu-memory, bytes; 0 = what is free */
    enum vi_method solver;
    double epsilon;
    uint64_t max_iterations;
    enum cli_backend backend;
};

/* Parses argv[first..] into o (the arrays it allocates are o's: free them
 * with check_options_free, also after a failure); returns WX_OK, WX_EINPUT,
 * WX_ELIMIT or CLI_HELP. */
int check_parse_options(int argc, char **argv, int first, struct check_options *o,
                        struct wx_error *err);
void check_options_free(struct check_options *o);

/* One run of `warpex check`: what cmd_check.c reads, decides and owns. */
struct check_run {
    struct check_options o;
    double t_start;              /* wx_now() when the command began        */
    /* the model */
    struct mdp m;
    struct mdp_labels labels;
    int have_labels;
    struct mdp_reward_models rew;
    struct mdp_sta sta;
    int have_sta;
    double read_s;               /* seconds reading it                      */
    uint8_t *initial;            /* per state: 1 for an initial state       */
    uint64_t n_init;
    int init_id;                 /* the "init" label's id, -1: none         */
    /* the properties */
    struct property *props;
    size_t n_props;
    int *reward_of;              /* per property: its reward structure      */
    /* the backend */
    struct gpu_probe probe;
    int want_gpu;
    enum cli_backend bk;         /* settled once the probe is joined        */
    int levels;                  /* topological, level by level             */
    const char *hp_knob;         /* WARPEX_CHECK_HUGEPAGES                  */
    struct mdp_dev dev;          /* the model on the GPU (mdp_dev_bind.h)   */
    struct mdpcheck_options mo;
    struct mdpcheck_job *job0;   /* property 1, prepared during the probe   */
    /* comparisons (P>=p ...): how many were false / undecided, the first */
    size_t n_false, n_undecided, first_false, first_undecided;
};

/* check_report.c: the report on stdout, text or JSON (c->o.json).  The
 * header (model, method, backend) opens the JSON object and its
 * "properties" array; each property adds its element or its text block;
 * check_print_end closes the object: with the total time when rc is
 * WX_OK, else right after the properties printed so far. */
void check_print_header(const struct check_run *c);
void check_print_property(const struct check_run *c, size_t i, const struct mdpcheck_result *r,
                          const struct propcheck_info *info);
void check_print_end(const struct check_run *c, int rc);
/* --values and --scheduler of property i's result (util/outfile.h). */
int check_write_outputs(const struct check_run *c, const struct mdpcheck_result *r,
                        struct wx_error *err);

/* check_timeline.c: with WARPEX_TIMELINE set and not "0", one stderr line
 * per phase boundary (seconds since check_tl_start, the wall clock, the
 * event); nothing otherwise.  When it is on, check_tl_hook sets mo's
 * trace hook (mdpcheck's phases), and check_tl_wrap routes mo's backend
 * functions, once chosen, through wrappers that mark their start and end. */
void check_tl_start(void);
void check_tl_mark(const char *fmt, ...);
void check_tl_hook(struct mdpcheck_options *mo);
void check_tl_wrap(struct mdpcheck_options *mo);

#endif
