/*
 * signals.h -- SIGINT and SIGTERM in the CLI.
 *
 * Two ways of stopping, chosen by what the process is doing when the signal
 * arrives:
 *   COOPERATIVE  between cli_signals_cooperate(true) and (false), around an
 *                exploration: the first signal only records its number in
 *                the flag that cli_signals_flag() points to; the explorer
 *                polls it (explore_options.cancel), stops its workers and
 *                returns WX_EINTERRUPT with its partial counts, which the
 *                CLI prints as it does for a memory limit before removing
 *                the incomplete outputs and exiting with 128 + signal.
 *   HARD         at any other time, and for a second signal: the handler
 *                removes every registered temporary output
 *                (outfile_remove_temps), writes one line to stderr with
 *                write(2) and ends the process with _exit(128 + signal).
 * The handler does only async-signal-safe things (stores to a volatile
 * sig_atomic_t, lock-free atomics, unlink, write, _exit).
 */
#ifndef WX_CLI_SIGNALS_H
#define WX_CLI_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/* Installs the handler for SIGINT and SIGTERM (hard mode).  A signal the
 * process was started with ignored (e.g. SIGINT under `nohup ... &`) stays
 * ignored. */
void cli_signals_install(void);

/* Enters (true) or leaves (false) cooperative mode. */
void cli_signals_cooperate(bool on);

/* The flag an explorer polls: 0, or the number of the signal received in
 * cooperative mode. */
const volatile sig_atomic_t *cli_signals_flag(void);

/* The number of the signal that interrupted the run, 0 if none. */
int cli_signals_caught(void);

/* Leaves cooperative mode after an exploration that returned rc; a signal
 * caught meanwhile (also one that came after the explorer's last poll)
 * makes the result WX_EINTERRUPT, with err saying which signal.  Returns
 * the resulting status. */
struct wx_error;
int cli_signals_end(int rc, struct wx_error *err);

#endif
