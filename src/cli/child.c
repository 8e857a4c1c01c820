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
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the kernel's termios (TCGETS, TCSETS): <termios.h> is ui/'s (tests/check-layering.sh) */
#include <asm/termbits.h>

#include "cli/child.h"
#include "cli/child_env.h"
#include "cli/child_relay.h"
#include "core/format.h"
#include "kernel/proctree.h"
#include "kernel/signals.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

extern char **environ;

#define CHILD_EXEC_MS 5000 /* how long the release waits to hear of the exec */
#define CHILD_TERM_MS 2000 /* SIGTERM, then this long before SIGKILL */
#define CHILD_INT_MS  300  /* after a ^C, passed on to it, before SIGTERM */

/* what the child reports on its pipe when a step fails */
enum child_step { STEP_EXEC, STEP_STDIO, STEP_GROUPS, STEP_GID, STEP_UID, STEP_SESSION };

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
		fprintf(stderr,
			"stacktop: SUDO_UID '%.32s' is no user id: not running the command\n", u);
		return -EINVAL;
	}
	if (v == 0)
		return 0; /* sudo from root: root it stays */
	cr->drop = true;
	cr->uid = (uid_t)v;
	pw = getpwuid(cr->uid);
	if (g && *g) {
		if (parse_id(g, &v) < 0) {
			fprintf(stderr,
				"stacktop: SUDO_GID '%.32s' is no group id: not running the command\n",
				g);
			return -EINVAL;
		}
		cr->gid = (gid_t)v;
	} else if (pw) {
		cr->gid = pw->pw_gid;
	} else {
		fprintf(stderr,
			"stacktop: SUDO_UID %u has no SUDO_GID nor a passwd entry: not running the command\n",
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

/* what the child does with its stdio: see child_stdio() */
struct child_io {
	int slave;   /* the pty's slave (or the pipe's write end), -1 without */
	bool pty;    /* @slave is a pty's: its controlling terminal */
	bool screen; /* the screen: stdin /dev/null */
};

/*
 * Its own session, the pty as its terminal, its stdio: stdout and stderr
 * the pty or pipe (never one of stacktop's descriptors: the report may be
 * behind them); stdin /dev/null (the screen), the pty (stacktop's was a
 * terminal), else stacktop's.
 */
static int child_stdio(const struct child_io *io)
{
	int fd;

	if (setsid() < 0)
		return -STEP_SESSION;
	if (io->pty && ioctl(io->slave, TIOCSCTTY, 0) < 0)
		return -STEP_SESSION;
	if (io->screen) {
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
			return -STEP_STDIO;
	} else if (io->pty && isatty(STDIN_FILENO) && dup2(io->slave, STDIN_FILENO) < 0) {
		return -STEP_STDIO;
	}
	if (io->slave >= 0 &&
	    (dup2(io->slave, STDOUT_FILENO) < 0 || dup2(io->slave, STDERR_FILENO) < 0))
		return -STEP_STDIO;
	return 0;
}

/* the command's side: its session and stdio, its user, the wait for the release, the exec */
static __attribute__((noreturn)) void child_body(char **argv, char **envp, const struct creds *cr,
						 const struct child_io *io, int go, int rep)
{
	const char *base = strrchr(argv[0], '/');
	ssize_t n;
	char c;
	int r, fd;

	/* its events before the exec (few) carry the command's name, not ours */
	prctl(PR_SET_NAME, base ? base + 1 : argv[0], 0, 0, 0);
	r = child_stdio(io);
	if (r < 0)
		child_fail(rep, -r);
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
	/* nothing stacktop inherited (a root shell's terminal, say) goes with the exec */
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		for (fd = 3; fd < 65536; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	/* (execvp() looks the command up in its own PATH) */
	if (envp)
		environ = envp;
	execvp(argv[0], argv);
	child_fail(rep, STEP_EXEC);
}

/* the relay stopped, the pty and environment let go */
static void child_close(struct child *c)
{
	child_relay_end(&c->rl);
	if (c->rl.out_own)
		close(c->rl.out);
	c->rl.out = -1;
	c->rl.out_own = false;
	for (int i = 0; i < 2; i++)
		if (c->rl.stop[i] >= 0) {
			close(c->rl.stop[i]);
			c->rl.stop[i] = -1;
		}
	if (c->rl.master >= 0)
		close(c->rl.master);
	if (c->rl.slave >= 0)
		close(c->rl.slave);
	c->rl.master = c->rl.slave = -1;
	child_env_free(c->envp);
	c->envp = NULL;
}

/* the pty, when stacktop has a terminal: its window and modes copied */
static int child_pty(struct child *c, bool screen, bool report_out)
{
	int tty = isatty(STDIN_FILENO)	  ? STDIN_FILENO
		  : isatty(STDOUT_FILENO) ? STDOUT_FILENO
		  : isatty(STDERR_FILENO) ? STDERR_FILENO
					  : -1;
	/* where its output is relayed: never where the report is written, but on the terminal */
	int out = screen ? (isatty(STDERR_FILENO) ? -1 : STDERR_FILENO)
		  : isatty(STDOUT_FILENO) || !report_out ? STDOUT_FILENO
							 : STDERR_FILENO;
	char name[64];
	struct termios tio;
	struct winsize ws;
	int p[2];

	/* a terminal that is not UTF-8 takes every byte 0x80-0x9f for a C1 control */
	c->rl.tf.eight_bit = !ttyfilter_utf8_locale();
	if (tty < 0 && !screen) {
		/* no terminal: no controlling tty at all; its output a pipe, relayed */
		if (pipe2(p, O_CLOEXEC) < 0)
			return -errno;
		c->rl.master = p[0];
		c->rl.slave = p[1];
		c->rl.out = out;
		return 0;
	}
	c->rl.pty = true;
	c->rl.master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (c->rl.master < 0 || grantpt(c->rl.master) < 0 || unlockpt(c->rl.master) < 0 ||
	    ptsname_r(c->rl.master, name, sizeof(name)))
		return -errno;
	c->rl.slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (c->rl.slave < 0)
		return -errno;
	if (tty >= 0 && ioctl(tty, TCGETS, &tio) == 0) {
		/* stacktop's terminal echoes what it relays: the pty must not again */
		if (!screen && isatty(STDIN_FILENO))
			tio.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		/* relayed to a file: its bytes as it wrote them (no \r before \n) */
		if (out >= 0 && !isatty(out))
			tio.c_oflag &= ~(tcflag_t)OPOST;
		ioctl(c->rl.slave, TCSETS, &tio);
	}
	if (tty >= 0 && ioctl(tty, TIOCGWINSZ, &ws) == 0)
		ioctl(c->rl.master, TIOCSWINSZ, &ws);
	c->rl.tty = tty;
	c->rl.out = out < 0 ? -1 : child_relay_out(out);
	c->rl.out_own = c->rl.out != out;
	c->rl.out_tty = c->rl.out >= 0 && isatty(c->rl.out);
	c->rl.in = !screen && isatty(STDIN_FILENO);
	return 0;
}

int child_start(struct child *c, char **argv, bool screen, bool report_out,
		const char *preserve_env)
{
	struct child_io io = { .slave = -1, .screen = screen };
	int go[2], rep[2], r;
	struct creds cr;

	memset(c, 0, sizeof(*c));
	c->go = c->err = c->rl.master = c->rl.slave = c->rl.out = c->rl.tty = -1;
	c->rl.stop[0] = c->rl.stop[1] = -1;
	fmt_sanitize(c->name, sizeof(c->name), argv[0], strlen(argv[0]));
	if (screen)
		snprintf(c->output, sizeof(c->output),
			 "%s: its input is /dev/null, its output goes to %s", c->name,
			 !isatty(STDERR_FILENO) ? "stacktop's stderr"
						: "a pty of its own, not shown (2>FILE keeps it)");
	r = sudo_creds(&cr);
	if (r < 0)
		return r;
	/* --preserve-env alone: all of it, as today's sudo -E */
	if (!preserve_env || *preserve_env) {
		c->envp = child_env(cr.drop ? cr.uid : getuid(), preserve_env);
		if (!c->envp) {
			free(cr.groups);
			fprintf(stderr, "stacktop: cannot start %s: %s\n", c->name,
				strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	r = child_pty(c, screen, report_out);
	if (r < 0 || pipe2(go, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0) {
		r = r < 0 ? r : -errno;
		fprintf(stderr, "stacktop: cannot start %s: %s\n", c->name, strerror(-r));
		free(cr.groups);
		child_close(c);
		return r;
	}
	io.slave = c->rl.slave;
	io.pty = c->rl.pty;
	c->pid = fork();
	if (c->pid == 0) {
		close(go[1]);
		close(rep[0]);
		child_body(argv, c->envp, &cr, &io, go[0], rep[1]);
	}
	r = c->pid < 0 ? -errno : 0;
	free(cr.groups);
	close(go[0]);
	close(rep[1]);
	if (r < 0) {
		c->pid = 0;
		close(go[1]);
		close(rep[0]);
		child_close(c);
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
		[STEP_EXEC] = "",
		[STEP_STDIO] = "its stdio: ",
		[STEP_GROUPS] = "setgroups: ",
		[STEP_GID] = "setgid: ",
		[STEP_UID] = "setuid: ",
		[STEP_SESSION] = "its session: ",
	};
	struct child_report rep;
	struct pollfd pfd;
	ssize_t n = 0;
	int r;

	if (c->go < 0)
		return 0;
	/* its orphans (a daemon's double fork) become ours: child_finish() ends them */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		fprintf(stderr,
			"stacktop: not a child subreaper (%s): processes %s leaves behind may outlive the run\n",
			strerror(errno), c->name);
	r = child_relay_start(&c->rl);
	/* (no relay: its output fills the pty, then it waits; it is ended at the end) */
	if (r < 0)
		fprintf(stderr, "stacktop: cannot relay %s's terminal: %s\n", c->name,
			strerror(-r));
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
	if (rep.step < STEP_EXEC || rep.step > STEP_SESSION)
		rep.step = STEP_EXEC;
	if (rep.step == STEP_EXEC)
		fprintf(stderr, "stacktop: cannot run %s: %s\n", c->name, strerror(rep.err));
	else
		fprintf(stderr, "stacktop: cannot run %s as uid %s: %s%s\n", c->name,
			getenv("SUDO_UID") ? getenv("SUDO_UID") : "?", steps[rep.step],
			strerror(rep.err));
	child_wait_ms(c, CHILD_EXEC_MS);
	child_close(c);
	return rep.step == STEP_EXEC && rep.err == ENOENT ? 127 : 126;
}

bool child_ended(struct child *c)
{
	pid_t w;
	int st;

	/* orphans of its tree, reparented to us (a subreaper): reaped, nothing to tell */
	if (c->pid && c->go < 0)
		while ((w = waitpid(-1, &st, WNOHANG)) > 0 && w != c->pid)
			;
	else
		w = 0;
	if (!c->pid || c->reaped)
		return true;
	if (w != c->pid)
		w = waitpid(c->pid, &st, WNOHANG);
	if (w == 0 || (w < 0 && errno == EINTR))
		return false;
	c->reaped = true;
	/* what the command wrote is relayed; what its tree writes later is not */
	child_relay_end(&c->rl);
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
			snprintf(c->what, sizeof(c->what), "was killed by signal %d%s",
				 WTERMSIG(st), WCOREDUMP(st) ? " (core dumped)" : "");
	}
	return true;
}

/* every process of its tree still there (below us: a subreaper) ends, by SIGKILL at last */
static void tree_end(struct child *c, int sig)
{
	int me = (int)getpid(), left, ms;

	/* @sig, then as long as CHILD_TERM_MS for the tree to go */
	if (sig && proctree_signal_descendants(me, sig) > 0)
		for (ms = 0; ms < CHILD_TERM_MS; ms += 10) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			child_ended(c);
			if (proctree_signal_descendants(me, 0) <= 0)
				return;
			nanosleep(&ts, NULL);
		}
	/* SIGKILL, again for what forked meanwhile, until none is left (a fork bomb: 5 s) */
	for (ms = 0; ms < 5000; ms += 10) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		left = proctree_signal_descendants(me, SIGKILL);
		child_ended(c);
		if (left <= 0)
			return;
		if (ms == 0 && sig)
			fprintf(stderr,
				"stacktop: %d process(es) of %s still run %d ms after SIG%s: SIGKILL\n",
				left, c->name, CHILD_TERM_MS, sigabbrev_np(sig));
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "stacktop: %d process(es) of %s still run after 5 s of SIGKILL\n", left,
		c->name);
}

void child_finish(struct child *c, bool signalled)
{
	int sig = sig_stop;

	if (!c->pid)
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
		child_close(c);
		return;
	}
	/* tracefs is restored by now: the signals' watchdog may let us wait for it */
	if (signalled)
		sig_stop_extend(CHILD_INT_MS + 2 * CHILD_TERM_MS + 5400);
	/* the stop signal (a ^C) passed on as the terminal would have: a moment to end */
	if (signalled && (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT)) {
		proctree_signal_descendants((int)getpid(), sig);
		child_wait_ms(c, CHILD_INT_MS);
	}
	/* the command, then every process below stacktop (its tree): SIGTERM, then SIGKILL */
	tree_end(c, SIGTERM);
	child_ended(c);
	child_close(c);
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

void child_output_end(struct child *c, FILE *report, int fd)
{
	child_relay_end(&c->rl);
	child_relay_owed(&c->rl, report, fd);
}
