// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * signals.c - see signals.h.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "signals.h"
#include "state.h"

volatile sig_atomic_t sig_stop;
volatile sig_atomic_t sig_winch;

static void (*sig_emergency_hook)(void);

static void sig_on_stop(int sig)
{
	sig_stop = sig;
}

static void sig_on_winch(int sig)
{
	(void)sig;
	sig_winch = 1;
}

static void sig_on_fatal(int sig)
{
	static volatile sig_atomic_t busy;

	if (!busy) {
		busy = 1;
		if (sig_emergency_hook)
			sig_emergency_hook();
		state_emergency_restore();
	}
	/* SA_RESETHAND restored the default action: re-raise to die as we would have */
	raise(sig);
}

int sig_install(void (*emergency)(void))
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	static const int fatals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS, SIGTRAP };
	struct sigaction sa;
	size_t i;

	sig_emergency_hook = emergency;

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

	sa.sa_handler = sig_on_fatal;
	sa.sa_flags = (int)SA_RESETHAND | SA_NODEFER;
	for (i = 0; i < sizeof(fatals) / sizeof(fatals[0]); i++)
		if (sigaction(fatals[i], &sa, NULL) < 0)
			return -errno;
	return 0;
}
