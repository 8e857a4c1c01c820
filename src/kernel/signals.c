// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * signals.c - see signals.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "kernel/signals.h"
#include "kernel/state.h"

#define SIG_GRACE_MS	  700	/* the normal way out after a stop signal, then the safety net */
#define SIG_EXTEND_MAX_MS 10000 /* what sig_stop_extend() may add, in all */
#define SIG_LEAVE_MAX_MS  15000 /* a run still writing its last report out (sig_progress()) */
#define SIG_POLL_MS	  100	/* without a signalfd, the watchdog looks this often */

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
	SIGSEGV,   SIGBUS,  SIGILL,  SIGFPE,	SIGABRT, SIGSYS,  SIGTRAP, SIGUSR1,
	SIGUSR2,   SIGALRM, SIGPROF, SIGVTALRM, SIGXCPU, SIGXFSZ, SIGIO,
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

static const int sig_stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* written by sig_on_stop(): the watchdog wakes only for a stop (fds are -1 before it starts) */
static int sig_wake[2] = { -1, -1 };

static void sig_on_stop(int sig)
{
	int e = errno;

	sig_stop = sig;
	if (sig_wake[1] >= 0)
		(void)!write(sig_wake[1], "", 1);
	errno = e;
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

/*
 * The safety net: a thread that waits for a stop signal, then gives the
 * normal way out SIG_GRACE_MS. If the process still runs by then, the main
 * thread is stuck somewhere (a call only SIGKILL ends, or libunwind's lock,
 * which blocks every signal): this thread does the async-signal-safe
 * restore (unless the normal path is restoring right now: its journal then
 * stays for the next run) and the process dies of the signal it was sent.
 *
 * A handler runs only when its thread returns to user space: a main thread
 * stuck in the kernel never runs its own, and the signal stays pending for
 * the process. The watchdog keeps the stop signals blocked and takes such a
 * signal from a signalfd it sleeps on; the kernel hands a stop
 * signal to the main thread first (the one it was sent to), so the
 * watchdog takes only what the main thread could not (or, rarely, one it
 * was about to take: then it sends it on to the main thread). A main thread
 * that blocks every signal leaves them to the watchdog at once.
 */
static pthread_t sig_main;
static sem_t sig_ready;		   /* posted once the watchdog waits */
static atomic_uint sig_extra_ms;   /* asked for by sig_stop_extend(), not yet waited */
static atomic_uint sig_progress_n; /* sig_progress() calls */

void sig_stop_extend(unsigned int ms)
{
	atomic_fetch_add(&sig_extra_ms, ms);
}

void sig_progress(void)
{
	atomic_fetch_add_explicit(&sig_progress_n, 1, memory_order_relaxed);
}

static void *sig_watchdog(void *arg)
{
	struct timespec until;
	unsigned int extended, seen, left;
	struct signalfd_siginfo si;
	struct sigaction dfl;
	struct pollfd pfd[2];
	sigset_t stops;
	size_t i;
	int sig, r;

	(void)arg;
	sigemptyset(&stops);
	for (i = 0; i < sizeof(sig_stops) / sizeof(sig_stops[0]); i++)
		sigaddset(&stops, sig_stops[i]);
	pfd[0].fd = signalfd(-1, &stops, SFD_NONBLOCK | SFD_CLOEXEC);
	pfd[0].events = POLLIN;
	pfd[1].fd = sig_wake[0];
	pfd[1].events = POLLIN;
	sem_post(&sig_ready);
	/*
	 * Asleep until a stop: a stop signal nobody took (the signalfd: the
	 * kernel offers it to the main thread first) or the main thread's
	 * handler (the pipe). Without the signalfd, polled every SIG_POLL_MS
	 * (a thread waking ten times a second is stacktop's own event in
	 * every sched_switch trace: its tid is not the pid the notrace lists
	 * and ingest leave out).
	 */
	while (!sig_stop) {
		r = poll(pfd, 2, pfd[0].fd >= 0 ? -1 : SIG_POLL_MS);
		if (pfd[0].fd >= 0 && r > 0 && (pfd[0].revents & POLLIN) &&
		    read(pfd[0].fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			sig = (int)si.ssi_signo;
		else if (pfd[0].fd < 0)
			sig = sigtimedwait(&stops, NULL, &(struct timespec){ 0, 0 });
		else
			sig = 0;
		if (sig > 0 && !sig_stop) {
			sig_stop = sig;
			pthread_kill(sig_main, sig); /* its EINTR, if it can still take one */
		}
	}
	seen = atomic_load(&sig_progress_n);
	clock_gettime(CLOCK_MONOTONIC, &until);
	/*
	 * a window of SIG_GRACE_MS, and another while the main thread makes
	 * progress (a last report written out to a reader that reads, or on a
	 * slow machine): stuck is no progress in a whole window
	 */
	for (left = 0; left < SIG_LEAVE_MAX_MS; left += SIG_GRACE_MS) {
		unsigned int now;

		until.tv_nsec += (long)(SIG_GRACE_MS % 1000) * 1000000L;
		until.tv_sec += SIG_GRACE_MS / 1000 + until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		do
			r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
		while (r == EINTR);
		now = atomic_load(&sig_progress_n);
		if (now == seen)
			break;
		seen = now;
	}
	/* the normal way out, done with tracefs, asked for more (sig_stop_extend()) */
	for (extended = 0; extended < SIG_EXTEND_MAX_MS;) {
		unsigned int ms = atomic_exchange(&sig_extra_ms, 0);

		if (!ms)
			break;
		if (ms > SIG_EXTEND_MAX_MS - extended)
			ms = SIG_EXTEND_MAX_MS - extended;
		extended += ms;
		until.tv_nsec += (long)(ms % 1000) * 1000000L;
		until.tv_sec += ms / 1000 + until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		do
			r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
		while (r == EINTR);
	}
	/* still here: the normal path did not end the process in time */
	sig = sig_stop;
	if (sig_emergency_hook)
		sig_emergency_hook();
	state_emergency_restore_from_thread(200);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&stops);
	sigaddset(&stops, sig);
	pthread_sigmask(SIG_UNBLOCK, &stops, NULL);
	raise(sig); /* dies of it as without a handler (SIGQUIT: a core) */
	_exit(128 + sig);
	return NULL;
}

/*
 * The watchdog, with every signal blocked; returns once it waits: a fork()
 * right after (the replay's probe) must not find it in the middle of its
 * start, holding an allocator's lock (ASan's is not fork-safe), or the
 * child would wait on that lock forever.
 */
static int sig_start_watchdog(void)
{
	static bool started;
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	int r;

	if (started)
		return 0;
	sig_main = pthread_self();
	if (sem_init(&sig_ready, 0, 0) < 0)
		return -errno;
	if (pipe2(sig_wake, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	r = pthread_create(&t, &attr, sig_watchdog, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return -r;
	while (sem_wait(&sig_ready) < 0 && errno == EINTR)
		;
	started = true;
	return 0;
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
	struct sigaction sa;
	size_t i;
	int sig, r;

	sig_emergency_hook = emergency;
#ifdef SIG_ASAN
	__sanitizer_set_death_callback(sig_asan_death);
#endif

	r = sig_start_watchdog();
	if (r < 0)
		return r;
	/* no SA_RESTART: a blocking call they interrupt returns EINTR */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = sig_on_stop;
	for (i = 0; i < sizeof(sig_stops) / sizeof(sig_stops[0]); i++)
		if (sigaction(sig_stops[i], &sa, NULL) < 0)
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
