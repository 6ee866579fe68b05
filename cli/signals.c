/*
 * signals.c -- SIGINT / SIGTERM: cooperative stop of an exploration, else
 * removal of the temporary outputs and exit (contract in signals.h).
 */
#include "signals.h"

#include <string.h>
#include <unistd.h>

#include "../util/error.h"
#include "../util/outfile.h"

static volatile sig_atomic_t caught;      /* first signal's number, 0 none */
static volatile sig_atomic_t cooperative; /* 1 while an explorer polls `caught` */

static void say(const char *s)
{
    ssize_t r = write(STDERR_FILENO, s, strlen(s)); /* strlen: async-signal-safe */
    (void)r;
}

static void on_signal(int sig)
{
    if (cooperative && !caught) {
        caught = sig;
        return;
    }
    outfile_remove_temps();
    say(sig == SIGINT ? "warpex: interrupted (SIGINT); incomplete output files removed\n"
                      : "warpex: terminated (SIGTERM); incomplete output files removed\n");
    _exit(128 + sig);
}

void cli_signals_install(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time */
        sigaddset(&sa.sa_mask, SIGTERM);
        sa.sa_flags = SA_RESTART;
        sigaction(sigs[i], &sa, NULL);
    }
}

void cli_signals_cooperate(bool on)
{
    cooperative = on;
}

const volatile sig_atomic_t *cli_signals_flag(void)
{
    return &caught;
}

int cli_signals_caught(void)
{
    return caught;
}

int cli_signals_end(int rc, struct wx_error *err)
{
    cooperative = 0;
    int sig = caught;
    if (!sig || (rc != WX_OK && rc != WX_EVIOLATION && rc != WX_EINTERRUPT))
        return rc;
    return wx_fail(err, WX_EINTERRUPT, NULL, 0, 0, "%s: exploration stopped",
                   sig == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)");
}
