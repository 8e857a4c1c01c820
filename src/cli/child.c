// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * child.c - see child.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/child.h"
#include "core/format.h"
#include "kernel/signals.h"

#define CHILD_EXEC_MS 5000 /* how long the release waits to hear of the exec */
#define CHILD_TERM_MS 2000 /* SIGTERM, then this long before SIGKILL */
#define CHILD_INT_MS  300  /* after a ^C, which reached it too, before SIGTERM */

/* what the child reports on its pipe when a step fails */
enum child_step { STEP_EXEC, STEP_STDIO, STEP_GROUPS, STEP_GID, STEP_UID };

struct child_report {
	int step;
	int err;
};

/* who the command runs as: sudo's user when root came through sudo */
struct creds {
	bool drop;
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int ngroups;
};

static int parse_id(const char *s, unsigned long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoul(s, &end, 10);
	return errno || end == s || *end || *s == '-' || *ret >= (unsigned long)UINT_MAX ? -EINVAL
										       : 0;
}

/* SUDO_UID/SUDO_GID, and that user's groups, as sudo -u would set them */
static int sudo_creds(struct creds *cr)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	struct passwd *pw;
	unsigned long v;
	int n = 0;

	memset(cr, 0, sizeof(*cr));
	if (getuid() != 0 || geteuid() != 0 || !u || !*u)
		return 0;
	if (parse_id(u, &v) < 0) {
		fprintf(stderr, "stacktop: SUDO_UID '%.32s' is no user id: not running the command\n", u);
		return -EINVAL;
	}
	if (v == 0)
		return 0; /* sudo from root: root it stays */
	cr->drop = true;
	cr->uid = (uid_t)v;
	pw = getpwuid(cr->uid);
	if (g && *g) {
		if (parse_id(g, &v) < 0) {
			fprintf(stderr, "stacktop: SUDO_GID '%.32s' is no group id: not running the command\n", g);
			return -EINVAL;
		}
		cr->gid = (gid_t)v;
	} else if (pw) {
		cr->gid = pw->pw_gid;
	} else {
		fprintf(stderr, "stacktop: SUDO_UID %u has no SUDO_GID nor a passwd entry: not running the command\n",
			(unsigned int)cr->uid);
		return -EINVAL;
	}
	/* the groups initgroups() would give: found here, set in the child by setgroups() */
	if (pw) {
		char *name = strdup(pw->pw_name);

		if (!name)
			return -ENOMEM;
		getgrouplist(name, cr->gid, NULL, &n);
		cr->groups = calloc((size_t)(n > 0 ? n : 1), sizeof(gid_t));
		if (!cr->groups || getgrouplist(name, cr->gid, cr->groups, &n) < 0)
			n = 0;
		free(name);
	}
	if (n <= 0) {
		free(cr->groups);
		cr->groups = malloc(sizeof(gid_t));
		if (!cr->groups)
			return -ENOMEM;
		cr->groups[0] = cr->gid;
		n = 1;
	}
	cr->ngroups = n;
	return 0;
}

static __attribute__((noreturn)) void child_fail(int fd, int step)
{
	struct child_report rep = { step, errno };

	if (write(fd, &rep, sizeof(rep)) < 0)
		_exit(126);
	_exit(step == STEP_EXEC && rep.err == ENOENT ? 127 : 126);
}

/* the command's side: its stdio, its user, the wait for the release, the exec */
static __attribute__((noreturn)) void child_body(char **argv, const struct creds *cr, bool screen,
						 bool keep_err, int go, int rep)
{
	const char *base = strrchr(argv[0], '/');
	ssize_t n;
	char c;
	int fd;

	/* its events before the exec (few) carry the command's name, not ours */
	prctl(PR_SET_NAME, base ? base + 1 : argv[0], 0, 0, 0);
	if (screen) {
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
			child_fail(rep, STEP_STDIO);
		if (keep_err ? dup2(STDERR_FILENO, STDOUT_FILENO) < 0
			     : dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
			child_fail(rep, STEP_STDIO);
	}
	if (cr->drop) {
		if (setgroups((size_t)cr->ngroups, cr->groups) < 0)
			child_fail(rep, STEP_GROUPS);
		if (setgid(cr->gid) < 0 || getgid() != cr->gid || getegid() != cr->gid)
			child_fail(rep, STEP_GID);
		if (setuid(cr->uid) < 0 || getuid() != cr->uid || geteuid() != cr->uid)
			child_fail(rep, STEP_UID);
		/* no way back */
		if (setuid(0) == 0) {
			errno = EPERM;
			child_fail(rep, STEP_UID);
		}
	}
	do
		n = read(go, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127); /* stacktop ended before tracing began: run nothing */
	execvp(argv[0], argv);
	child_fail(rep, STEP_EXEC);
}

int child_start(struct child *c, char **argv, bool screen)
{
	bool keep_err = !isatty(STDERR_FILENO);
	int go[2], rep[2], r;
	struct creds cr;

	memset(c, 0, sizeof(*c));
	c->go = c->err = -1;
	fmt_sanitize(c->name, sizeof(c->name), argv[0], strlen(argv[0]));
	if (screen)
		snprintf(c->output, sizeof(c->output), "%s: its input is /dev/null, its output goes to %s",
			 c->name, keep_err ? "stacktop's stderr" : "/dev/null (2>FILE keeps it)");
	r = sudo_creds(&cr);
	if (r < 0)
		return r;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0) {
		r = -errno;
		fprintf(stderr, "stacktop: cannot start %s: %s\n", c->name, strerror(-r));
		free(cr.groups);
		return r;
	}
	c->pid = fork();
	if (c->pid == 0) {
		close(go[1]);
		close(rep[0]);
		child_body(argv, &cr, screen, keep_err, go[0], rep[1]);
	}
	r = c->pid < 0 ? -errno : 0;
	free(cr.groups);
	close(go[0]);
	close(rep[1]);
	if (r < 0) {
		c->pid = 0;
		close(go[1]);
		close(rep[0]);
		fprintf(stderr, "stacktop: cannot start %s: %s\n", c->name, strerror(-r));
		return r;
	}
	c->go = go[1];
	c->err = rep[0];
	return 0;
}

/* waitpid() in the background of a deadline: true once reaped */
static bool child_wait_ms(struct child *c, int ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (;;) {
		if (child_ended(c))
			return true;
		if (ms <= 0)
			return false;
		nanosleep(&ts, NULL);
		ms -= 10;
	}
}

int child_release(struct child *c)
{
	static const char *const steps[] = {
		[STEP_EXEC] = "", [STEP_STDIO] = "its stdio: ", [STEP_GROUPS] = "setgroups: ",
		[STEP_GID] = "setgid: ", [STEP_UID] = "setuid: ",
	};
	struct child_report rep;
	struct pollfd pfd;
	ssize_t n = 0;

	if (c->go < 0)
		return 0;
	if (write(c->go, "G", 1) < 0) {
		/* it is gone already: its report says why */
	}
	close(c->go);
	c->go = -1;
	/* end of file: it executed (close-on-exec); a report: a step failed */
	pfd.fd = c->err;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, CHILD_EXEC_MS) > 0)
		n = read(c->err, &rep, sizeof(rep));
	close(c->err);
	c->err = -1;
	if (n != (ssize_t)sizeof(rep))
		return 0;
	if (rep.step < STEP_EXEC || rep.step > STEP_UID)
		rep.step = STEP_EXEC;
	if (rep.step == STEP_EXEC)
		fprintf(stderr, "stacktop: cannot run %s: %s\n", c->name, strerror(rep.err));
	else
		fprintf(stderr, "stacktop: cannot run %s as uid %s: %s%s\n", c->name,
			getenv("SUDO_UID") ? getenv("SUDO_UID") : "?", steps[rep.step],
			strerror(rep.err));
	child_wait_ms(c, CHILD_EXEC_MS);
	return rep.step == STEP_EXEC && rep.err == ENOENT ? 127 : 126;
}

bool child_ended(struct child *c)
{
	pid_t w;
	int st;

	if (!c->pid || c->reaped)
		return true;
	w = waitpid(c->pid, &st, WNOHANG);
	if (w == 0 || (w < 0 && errno == EINTR))
		return false;
	c->reaped = true;
	if (w < 0) {
		/* (ECHILD: reaped by someone else; cannot happen with SIGCHLD at its default) */
		c->status = 0;
		snprintf(c->what, sizeof(c->what), "ended (its status is unknown)");
		return true;
	}
	c->status = st;
	if (WIFEXITED(st)) {
		snprintf(c->what, sizeof(c->what), "exited with status %d", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(st));

		if (abbrev)
			snprintf(c->what, sizeof(c->what), "was killed by SIG%s%s", abbrev,
				 WCOREDUMP(st) ? " (core dumped)" : "");
		else
			snprintf(c->what, sizeof(c->what), "was killed by signal %d%s", WTERMSIG(st),
				 WCOREDUMP(st) ? " (core dumped)" : "");
	}
	return true;
}

void child_finish(struct child *c, bool signalled)
{
	if (!c->pid || c->reaped)
		return;
	if (c->go >= 0) {
		/* never released: the end of its pipe ends it, before it runs anything */
		close(c->go);
		c->go = -1;
		if (c->err >= 0) {
			close(c->err);
			c->err = -1;
		}
		if (!child_wait_ms(c, CHILD_TERM_MS)) {
			kill(c->pid, SIGKILL);
			child_wait_ms(c, CHILD_TERM_MS);
		}
		return;
	}
	/* tracefs is restored by now: the signals' watchdog may let us wait for it */
	if (signalled)
		sig_stop_extend(CHILD_INT_MS + 2 * CHILD_TERM_MS + 200);
	if (signalled && child_wait_ms(c, CHILD_INT_MS))
		return;
	kill(c->pid, SIGTERM);
	if (child_wait_ms(c, CHILD_TERM_MS))
		return;
	fprintf(stderr, "stacktop: %s (pid %d) still runs %d ms after SIGTERM: SIGKILL\n", c->name,
		(int)c->pid, CHILD_TERM_MS);
	kill(c->pid, SIGKILL);
	child_wait_ms(c, CHILD_TERM_MS);
}

int child_exit_status(const struct child *c)
{
	if (!c->reaped)
		return 1;
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return 1;
}
