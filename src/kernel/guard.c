// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * guard.c - see guard.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/guard.h"
#include "kernel/state.h"
#include "kernel/state_priv.h"

#define GUARD_EXEC_MS 1000 /* how long stacktop waits to learn the exec's fate */

extern char **environ;

static int guard_fd = -1;	 /* the pipe's write end: the guardian's EOF is our end */
static const char *guard_rundir; /* --rundir (argv's), NULL for the default */

/*
 * The intermediate child: a session of its own, the guardian forked from
 * it, then gone (the guardian is nobody's child but init's, or a
 * subreaper's). Between fork and exec only async-signal-safe calls.
 */
static __attribute__((noreturn)) void guard_child(int rfd, int efd, char **argv)
{
	int ch = efd, r, e, null, err;
	sigset_t none;
	pid_t g;

	if (setsid() < 0)
		_exit(1);
	g = fork();
	if (g < 0)
		_exit(1);
	if (g > 0)
		_exit(0);
	/* fd 0 the pipe, 1 and 2 /dev/null, the exec's errno on fd 3 */
	r = fcntl(rfd, F_DUPFD_CLOEXEC, 10);
	e = fcntl(efd, F_DUPFD_CLOEXEC, 10);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (e >= 0)
		ch = e;
	if (r < 0 || e < 0 || null < 0 || dup2(r, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(null, 2) < 0 || dup3(e, 3, O_CLOEXEC) < 0)
		goto fail;
	ch = 3;
	close_range(4, ~0U, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (chdir("/") < 0)
		goto fail;
	execve("/proc/self/exe", argv, environ);
fail:
	err = errno;
	if (write(ch, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

int guard_start(const char *rundir)
{
	char spid[16], name[] = "stacktop-guard", arg[] = GUARD_ARG, dflt[] = "-";
	char *argv[] = { name, arg, spid, rundir ? (char *)rundir : dflt, NULL };
	struct pollfd pfd;
	int p[2], e[2], st, err = 0;
	pid_t mid, w;
	ssize_t n;

	if (guard_fd >= 0)
		return 0;
	snprintf(spid, sizeof(spid), "%d", (int)getpid());
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(e, O_CLOEXEC) < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	mid = fork();
	if (mid == 0)
		guard_child(p[0], e[1], argv);
	err = mid < 0 ? -errno : 0;
	close(p[0]);
	close(e[1]);
	if (mid > 0) {
		while ((w = waitpid(mid, &st, 0)) < 0 && errno == EINTR)
			;
		/* (ECHILD: SIGCHLD ignored, nothing to tell) */
		if (w == mid && (!WIFEXITED(st) || WEXITSTATUS(st)))
			err = -EAGAIN; /* its fork or setsid failed */
	}
	/* the exec's errno, or end of file once it executed (close-on-exec) */
	pfd.fd = e[0];
	pfd.events = POLLIN;
	if (!err && poll(&pfd, 1, GUARD_EXEC_MS) > 0) {
		n = read(e[0], &st, sizeof(st));
		if (n == (ssize_t)sizeof(st))
			err = st > 0 ? -st : -EIO;
		else if (n > 0)
			err = -EIO; /* the guardian died between exec and its own start: no guardian
				     */
	}
	close(e[0]);
	if (err) {
		close(p[1]);
		return err;
	}
	/* (no answer within the second: a loaded machine; it runs all the same) */
	guard_fd = p[1];
	guard_rundir = rundir;
	return 0;
}

void guard_done(void)
{
	char name[64];
	int dfd;

	if (guard_fd < 0)
		return;
	snprintf(name, sizeof(name), "%d.journal", (int)getpid());
	dfd = state_dir_open(guard_rundir, false);
	/* no journal (restored, or never written): nothing for it to do */
	if (dfd < 0 || (faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)) {
		if (write(guard_fd, "D", 1) < 0) {
			/* gone already (killed): the next run recovers, as without one */
		}
	}
	if (dfd >= 0)
		close(dfd);
	close(guard_fd);
	guard_fd = -1;
}

int guard_run(int pid, const char *rundir)
{
	static const int ignored[] = { SIGHUP,	SIGINT,	 SIGTERM, SIGQUIT,
				       SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE };
	size_t i;
	ssize_t n;
	char c;

	prctl(PR_SET_NAME, "stacktop-guard", 0, 0, 0);
	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	for (;;) {
		n = read(STDIN_FILENO, &c, 1);
		if (n == 1 && c == 'D')
			return 0; /* a clean exit: nothing to do */
		if (n == 1 || (n < 0 && errno == EINTR))
			continue;
		break; /* end of file: stacktop is ending, or has */
	}
	n = state_recover_pid(rundir, pid, NULL, NULL);
	return n < 0 ? 1 : 0;
}
