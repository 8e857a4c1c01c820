// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * signals.c - see signals.h.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "kernel/signals.h"
#include "kernel/state.h"

#if defined(__SANITIZE_ADDRESS__)
#define SIG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIG_ASAN 1
#endif
#endif
#ifdef SIG_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

volatile sig_atomic_t sig_stop;
volatile sig_atomic_t sig_winch;

static void (*sig_emergency_hook)(void);

/* the crashes, and every other signal whose default action ends the process */
static const int sig_fatals[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS, SIGTRAP,
	SIGUSR1, SIGUSR2, SIGALRM, SIGPROF, SIGVTALRM, SIGXCPU, SIGXFSZ, SIGIO,
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

/* what was installed before us (a sanitizer's handler): chained to after the restore */
static struct sigaction sig_prev[NSIG];

/* the fatal signal being handed to a sanitizer's handler */
static volatile sig_atomic_t sig_chained;

#ifdef SIG_ASAN
/*
 * ASan's handler prints its report, then exits with status 1: die of the
 * signal instead, as without a sanitizer (a shell sees 128+signal, a core
 * dump is a core dump). Other ASan reports keep their own exit.
 */
static void sig_asan_death(void)
{
	int sig = sig_chained;
	sigset_t set;

	if (!sig)
		return;
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}
#endif

static void sig_on_stop(int sig)
{
	sig_stop = sig;
}

static void sig_on_winch(int sig)
{
	(void)sig;
	sig_winch = 1;
}

static void sig_on_fatal(int sig, siginfo_t *info, void *uctx)
{
	static volatile sig_atomic_t busy;
	const struct sigaction *prev = sig > 0 && sig < NSIG ? &sig_prev[sig] : NULL;

	if (!busy) {
		busy = 1;
		if (sig_emergency_hook)
			sig_emergency_hook();
		state_emergency_restore();
	}
	/*
	 * A handler was there before ours (ASan's, which prints the report):
	 * hand it the signal as if we had never been installed.
	 */
	if (prev && (prev->sa_flags & SA_SIGINFO) && prev->sa_sigaction) {
		sig_chained = sig;
		sigaction(sig, prev, NULL);
		prev->sa_sigaction(sig, info, uctx);
		return;
	}
	if (prev && !(prev->sa_flags & SA_SIGINFO) && prev->sa_handler != SIG_DFL &&
	    prev->sa_handler != SIG_IGN) {
		sig_chained = sig;
		sigaction(sig, prev, NULL);
		prev->sa_handler(sig);
		return;
	}
	/* SA_RESETHAND restored the default action: re-raise to die as we would have */
	raise(sig);
}

static int sig_install_fatal(int sig, const struct sigaction *sa)
{
	struct sigaction old;

	if (sig <= 0 || sig >= NSIG)
		return 0;
	if (sigaction(sig, sa, &old) < 0)
		return -errno;
	/* ignored when we started (nohup, a background job): it cannot end us, keep it so */
	if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN)
		return sigaction(sig, &old, NULL) < 0 ? -errno : 0;
	/* installed twice: chaining to ourselves would never end */
	if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == sig_on_fatal)
		return 0;
	sig_prev[sig] = old;
	return 0;
}

int sig_install(void (*emergency)(void))
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	size_t i;
	int sig, r;

	sig_emergency_hook = emergency;
#ifdef SIG_ASAN
	__sanitizer_set_death_callback(sig_asan_death);
#endif

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = sig_on_stop;
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (sigaction(stops[i], &sa, NULL) < 0)
			return -errno;

	sa.sa_handler = sig_on_winch;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGWINCH, &sa, NULL) < 0)
		return -errno;

	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	if (sigaction(SIGPIPE, &sa, NULL) < 0)
		return -errno;

	sa.sa_sigaction = sig_on_fatal;
	sa.sa_flags = (int)SA_RESETHAND | SA_NODEFER | SA_SIGINFO;
	for (i = 0; i < sizeof(sig_fatals) / sizeof(sig_fatals[0]); i++) {
		r = sig_install_fatal(sig_fatals[i], &sa);
		if (r < 0)
			return r;
	}
	/* the real-time signals end the process by default too */
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
		r = sig_install_fatal(sig, &sa);
		if (r < 0)
			return r;
	}
	return 0;
}
