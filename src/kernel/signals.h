/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * signals.h - flag-only handlers for the polite signals, and a last-resort
 * path for the fatal ones.
 *
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT only set sig_stop (installed without
 * SA_RESTART); SIGWINCH sets sig_winch; SIGPIPE is ignored (a closed pipe is
 * a write error). The loops (batch and UI) poll() with a timeout, see EINTR,
 * check the flags and leave through the normal path, which restores tracefs
 * and the terminal.
 *
 * A safety net ends the run when that path cannot: a watchdog thread sees
 * sig_stop (or takes a stop signal the main thread could not: a handler
 * runs only when its thread returns from the kernel) and gives the normal
 * path 700 ms; if the process still runs then (its main thread stuck in a
 * call only SIGKILL would end, or in a library's lock that blocks every
 * signal), the watchdog runs the emergency hook and
 * state_emergency_restore_from_thread(), and the process dies of the
 * signal it was sent.
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

/**
 * sig_stop_extend() - after a stop signal, the normal way out has undone
 *	its changes to tracefs and needs @ms more to end (stacktop -- CMD:
 *	the command's exit status is waited for): the watchdog waits that much
 *	longer before it ends the process (SIG_EXTEND_MAX_MS, 10 s, in all)
 * @ms: milliseconds
 *
 * Asked before the watchdog's 700 ms have passed, or it is too late.
 */
void sig_stop_extend(unsigned int ms);

/**
 * sig_progress() - the main thread moved on (a report's bytes written out):
 *	after a stop signal, the watchdog gives a run that still makes
 *	progress another SIG_GRACE_MS window, up to SIG_LEAVE_MAX_MS (15 s)
 *	in all; a run stuck in one call (a reader that never reads) makes
 *	none and ends when its first window does. Async-signal-safe.
 */
void sig_progress(void);

#endif /* STACKTOP_SIGNALS_H */
