/*
 * main.c -- warpex: GPU model checking of networks of LTSs.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "signals.h"

#define WARPEX_VERSION "0.1.0"

static void usage(FILE *out)
{
    fputs("usage: warpex COMMAND [OPTIONS] FILE\n"
          "\n"
          "commands:\n"
          "  explore FILE            explore the reachable state space of FILE\n"
          "                          (.exp network, .aut LTS or GPUexplore .gpf)\n"
          "  info FILE               print the flattened network and its encoding\n"
          "  convert FILE --to aut|gpf OUT\n"
          "                          write the product LTS (aut) or the compiled\n"
          "                          network in GPUexplore format (gpf)\n"
          "  scc FILE [--json] [--scc-out OUT] [--backend auto|gpu|cpu]\n"
          "                          strongly connected components of a graph\n"
          "                          (.csr, .aut, .mtx, PRISM .tra, else an edge\n"
          "                          list); --scc-out: component id per vertex\n"
          "  mec FILE [--json] [--mec-out OUT] [--backend auto|gpu|cpu]\n"
          "                          maximal end components of a PRISM MDP (or\n"
          "                          of an LTS/graph, one choice per transition);\n"
          "                          --mec-out: MEC id per state (-1: none)\n"
          "  check MODEL --prop P    Pmin/Pmax/Rmin/Rmax of a PRISM .tra (--lab,\n"
          "                          --srew, --trew) or Storm .drn model (README)\n"
          "  cycle-mean FILE [--min|--max] [--ratio] [--weight REGEX]\n"
          "      [--default-weight W] [--per-scc] [--algorithm howard|karp]\n"
          "      [--backend auto|cpu|gpu] [--json] [--cycle-out OUT]\n"
          "                          exact minimum/maximum cycle mean (or ratio\n"
          "                          weight/transit) and a critical cycle of a\n"
          "                          weighted graph (DIMACS, edge list 'u v w [t]',\n"
          "                          .csr + .weights, .aut with --weight)\n"
          "  help                    this text;  --version  the version\n"
          "\n"
          "explore options:\n"
          "  --backend auto|gpu|cpu|seq  auto (default): the GPU when present,\n"
          "                          else the multi-threaded CPU explorer;\n"
          "                          seq: the sequential reference explorer\n"
          "  --threads N             CPU threads (default: all cores)\n"
          "  --memory SIZE           budget for the state table (e.g. 8G;\n"
          "                          default: half of RAM)\n"
          "  --deadlock              report the first deadlock state (exit 1)\n"
          "  --action REGEX          report the first transition whose label\n"
          "                          matches REGEX (POSIX extended) (exit 1);\n"
          "                          both stop there, unless an output or an\n"
          "                          analysis below needs the whole product:\n"
          "                          then the exploration goes on to the end\n"
          "  --stop-at-first         stop at the violation even then (outputs\n"
          "                          and analyses are not made)\n"
          "  --trace                 print a shortest trace to the violation\n"
          "  --trace-states          ... with the state vectors\n"
          "  --aut FILE              write the product LTS (BFS numbering)\n"
          "  --csr FILE              write the product as warpex CSR binary\n"
          "  --scc                   decompose the explored product into SCCs\n"
          "  --scc-out FILE          ... and write each state's SCC id\n"
          "  --mec, --mec-out FILE   maximal end components of the product read\n"
          "                          as an MDP of Dirac choices (-1: in none)\n"
          "  --cycle-mean min|max --weight REGEX [--default-weight W]\n"
          "                          exact cycle mean of the product, weights\n"
          "                          from the labels (first capture group)\n"
          "  --livelock              look for divergence: a reachable cycle of\n"
          "                          hidden steps (exit 1, with a lasso trace)\n"
          "  --reversible            check that every reachable state can return\n"
          "                          to the initial state (exit 1 if not)\n"
          "  --mdp-out BASE          probabilistic networks: write the explored\n"
          "                          MDP as BASE.tra / BASE.lab (PRISM explicit)\n"
          "  --prop P, --props FILE  probabilistic networks: check Pmin/Pmax/\n"
          "                          Rmin/Rmax properties on the explored MDP\n"
          "                          (labels: \"init\", \"deadlock\", \"ACTION\" =\n"
          "                          a choice labelled ACTION is enabled);\n"
          "                          --epsilon E\n"
          "  --reward [NAME:]REGEX=VALUE  a reward of VALUE on every choice whose\n"
          "                          action matches REGEX (repeatable; items of\n"
          "                          one NAME add up to one reward structure)\n"
          "  --json                  print a JSON summary on stdout\n"
          "  --quiet, -q             no progress or notices on stderr\n"
          "  -v                      verbose (dropped duplicate transitions, ...)\n"
          "GPU options:\n"
          "  -b N / --blocks N, -t N / --gpu-threads N, -k N / --iterations N,\n"
          "  --hash-memory SIZE, --probe-bound N, --no-textures,\n"
          "  --compact-slots         3-word vectors in 12-byte table slots\n"
          "                          (a third more states, slower)\n"
          "network options (explore, info, convert):\n"
          "  --hidden STR            the hidden label (default i; tau for mCRL2)\n"
          "  --rate, --prob          labels 'rate ...' / 'prob ...' always\n"
          "                          interleave\n"
          "  --case                  no upper-case folding of LOTOS/CCS/CSP labels\n"
          "\n"
          "exit codes: 0 ok, 1 property violated, 2 usage or input error,\n"
          "            3 resource limit hit, 4 system, device or write error,\n"
          "            130/143 interrupted by SIGINT/SIGTERM (128 + signal)\n",
          out);
}

/* Runs the command; returns its status (a WX_E* code). */
static int run_command(int argc, char **argv)
{
    struct wx_error err;
    struct cli_options o;
    int rc;

    wx_error_clear(&err);
    if (argc < 2) {
        usage(stderr);
        return WX_EINPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        puts("warpex " WARPEX_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "check")) { /* cli/cmd_check.c parses its own options */
        if ((rc = cmd_check(argc, argv, 2, &err)) != WX_OK)
            cli_print_error(&err);
        return rc;
    }
    if (!strcmp(cmd, "scc") || !strcmp(cmd, "mec") || !strcmp(cmd, "cycle-mean")) {
        rc = (cmd[0] == 's' ? cmd_scc : cmd[0] == 'm' ? cmd_mec : cmd_cycle)(argc, argv, 2, &err);
        if (rc != WX_OK)
            cli_print_error(&err);
        return rc;
    }
    int (*run)(struct cli_options *, struct wx_error *) = NULL;
    if (!strcmp(cmd, "explore"))
        run = cmd_explore;
    else if (!strcmp(cmd, "info"))
        run = cmd_info;
    else if (!strcmp(cmd, "convert"))
        run = cmd_convert;
    if (!run) {
        fprintf(stderr, "warpex: unknown command '%s' (try 'warpex help')\n", cmd);
        return WX_EINPUT;
    }
    rc = cli_parse(argc, argv, 2, cmd, &o, &err);
    if (rc == WX_OK)
        rc = run(&o, &err);
    if (rc != WX_OK && rc != WX_EVIOLATION)
        cli_print_error(&err);
    cli_options_free(&o);
    return rc;
}

/* Everything printed on stdout must have arrived: flush and close it, and
 * turn a failure (a full disk, a closed pipe's EPIPE with SIGPIPE ignored,
 * /dev/full) into one line and exit 4 -- unless the run already failed with
 * its own error. */
static int close_stdout(int rc)
{
    int e = 0;
    if (fflush(stdout) != 0)
        e = errno;
    else if (ferror(stdout))
        e = -1; /* an earlier write failed; its errno is gone */
    if (fclose(stdout) != 0 && e == 0)
        e = errno;
    if (e == 0)
        return rc;
    fprintf(stderr, "warpex: cannot write the standard output%s%s\n", e > 0 ? ": " : "",
            e > 0 ? strerror(e) : "");
    return rc == WX_OK || rc == WX_EVIOLATION ? WX_ESYSTEM : rc;
}

int main(int argc, char **argv)
{
    /* One hardware work queue instead of the default 8, before anything
     * touches CUDA: every GPU stage of warpex runs on the default stream,
     * so nothing loses concurrency, and context creation -- a short run's
     * critical path -- took 0.150-0.159 s instead of 0.208-0.211 s on the
     * H100 (bench/cuda_exit_probe.cu, 2026-11-22).  A value the user set
     * is kept. */
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
    cli_signals_install();
    int rc = close_stdout(run_command(argc, argv));
    if (rc == WX_EINTERRUPT) /* 128 + the signal's number (util/error.h) */
        rc = 128 + (cli_signals_caught() ? cli_signals_caught() : SIGINT);
    return rc;
}
