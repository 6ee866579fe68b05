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

/* Runs the command; returns its status (a WX_E* code). */
static int run_command(int argc, char **argv)
{
    struct wx_error err;
    struct cli_options o;
    int rc;

    wx_error_clear(&err);
    if (argc < 2) {
        cli_usage(NULL, stderr);
        return WX_EINPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || cli_is_help(cmd)) { /* help [COMMAND] */
        const char *topic = argc < 3 ? NULL : cli_is_help(argv[2]) ? "help" : argv[2];
        if (argc > 3 || cli_usage(topic, stdout) != 0) {
            fprintf(stderr, "warpex: help takes one command name, not '%s' (try 'warpex help')\n",
                    argv[argc - 1]);
            return WX_EINPUT;
        }
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("warpex %s%s\n", WARPEX_VERSION, cli_gpu_built() ? "" : " (CPU only: built without CUDA)");
        return 0;
    }
    if ((rc = cli_scc_gpu_env(&err)) != WX_OK) {
        cli_print_error(&err);
        return rc;
    }
    if (!strcmp(cmd, "check")) { /* cli/cmd_check.c parses its own options */
        if ((rc = cmd_check(argc, argv, 2, &err)) == CLI_HELP)
            return 0;
        if (rc != WX_OK)
            cli_print_error(&err);
        return rc;
    }
    if (!strcmp(cmd, "scc") || !strcmp(cmd, "mec") || !strcmp(cmd, "cycle-mean")) {
        rc = (cmd[0] == 's' ? cmd_scc : cmd[0] == 'm' ? cmd_mec : cmd_cycle)(argc, argv, 2, &err);
        if (rc == CLI_HELP)
            return 0;
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
    if (rc == CLI_HELP) {
        cli_options_free(&o);
        return 0;
    }
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
     * critical path -- is shorter (measured by bench/cuda_exit_probe.cu).
     * A value the user set is kept. */
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
    cli_signals_install();
    int rc = close_stdout(run_command(argc, argv));
    if (rc == WX_EINTERRUPT) /* 128 + the signal's number (util/error.h) */
        rc = 128 + (cli_signals_caught() ? cli_signals_caught() : SIGINT);
    return rc;
}
