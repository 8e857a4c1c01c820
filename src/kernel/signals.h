/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * signals.h - flag-only handlers for the polite signals, and a last-resort
 * path for the fatal ones.
 *
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT only set sig_stop; SIGWINCH sets
 * sig_winch; SIGPIPE is ignored (a closed pipe is a write error). The
 * loops (batch and UI) poll() with a timeout, see EINTR, check the flags and
 * leave through the normal path, which restores tracefs and the terminal.
 *
 * SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS and SIGTRAP, and every
 * other signal whose default action ends the process (SIGUSR1, SIGUSR2,
 * SIGALRM, SIGPROF, SIGVTALRM, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT,
 * SIGRTMIN..SIGRTMAX) run the emergency hook (the UI installs one that
 * leaves curses mode), then state_emergency_restore() (async-signal-safe:
 * plain open/write/rmdir from a journal prepared in advance), then die of
 * the signal: the exit status and a core dump stay what they would have
 * been. A signal ignored when stacktop started stays ignored.
 *
 * If a handler was installed before ours (AddressSanitizer's, in a
 * sanitizer build run with handle_segv=1 and allow_user_segv_handler=1),
 * the fatal path chains to it after the restore, so its report is printed
 * as if stacktop had no handler, and a sanitizer death callback then dies
 * of the signal (ASan alone would exit with status 1); otherwise the signal
 * is re-raised with the default action.
 */
#ifndef STACKTOP_SIGNALS_H
#define STACKTOP_SIGNALS_H

#include <signal.h>

extern volatile sig_atomic_t sig_stop;
extern volatile sig_atomic_t sig_winch;

/**
 * sig_install() - install the handlers described above
 * @emergency: called first on a fatal signal (may be NULL); must not return
 *             control flow elsewhere
 *
 * Return: 0 or -errno.
 */
int sig_install(void (*emergency)(void));

#endif /* STACKTOP_SIGNALS_H */
