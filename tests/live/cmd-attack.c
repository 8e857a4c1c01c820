// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-attack.c - a hostile `stacktop -- CMD` (run as nobody through
 * SUDO_UID): what the user behind CMD would do to root's terminal.
 *
 *   cmd-attack DIR MARK
 *
 * It writes its /proc/self/environ to DIR/env (a variable a line) and its
 * pid to DIR/cmd.pid, then starts two grandchildren that outlive it, and
 * exits 0.2 s after A made its first try and B started (0.5 s in on a
 * quiet machine):
 *  - A stays in its session: at 0.3 s and at 3 s it pushes
 *    "echo MARK-Xearly" / "echo MARK-Xlate" (and a newline) into
 *    /dev/tty's and fd 0's input with TIOCSTI, and writes MARK-early /
 *    MARK-late to /dev/tty, fd 1 and fd 2;
 *  - B setsid()s and forks again (a daemon: its parent is gone), and at
 *    3 s writes MARK-late to fds 0-2.
 * Each writes its pid to DIR/a.pid, DIR/b.pid, what each attempt gave to
 * DIR/a.log, and DIR/a.survived, DIR/b.survived if still alive at 8 s.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static const char *dir;

/* @v and a newline to DIR/@name */
static void put(const char *name, long v)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%ld\n", v);
	fclose(f);
}

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* TIOCSTI @s into @fd's input; 0 or the errno of the first refusal */
static int push(int fd, const char *s)
{
	for (; *s; s++)
		if (ioctl(fd, TIOCSTI, s) < 0)
			return errno;
	return 0;
}

static void attack(const char *mark, const char *when)
{
	char line[256], msg[256], logl[512];
	int tty = open("/dev/tty", O_RDWR | O_NOCTTY);
	int e_tty = tty < 0 ? errno : 0, r_tty = -1, r_0;
	ssize_t w;

	snprintf(line, sizeof(line), "echo %s-X%s\n", mark, when);
	snprintf(msg, sizeof(msg), "\n%s-%s\n", mark, when);
	if (tty >= 0) {
		r_tty = push(tty, line);
		w = write(tty, msg, strlen(msg));
		(void)w;
		close(tty);
	}
	r_0 = push(0, line);
	w = write(1, msg, strlen(msg));
	w = write(2, msg, strlen(msg));
	(void)w;
	snprintf(logl, sizeof(logl),
		 "%s: open /dev/tty: %s; TIOCSTI /dev/tty: %s; TIOCSTI fd 0: %s\n", when,
		 e_tty ? strerror(e_tty) : "ok",
		 r_tty < 0 ? "-"
		 : r_tty   ? strerror(r_tty)
			   : "ok",
		 r_0 ? strerror(r_0) : "ok");
	{
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/a.log", dir);
		f = fopen(path, "a");
		if (f) {
			fputs(logl, f);
			fclose(f);
		}
	}
}

int main(int argc, char **argv)
{
	char path[512];
	FILE *f, *in;
	int c;

	if (argc != 3)
		return 2;
	dir = argv[1];
	/* what root's stacktop left in its /proc/PID/environ, a variable a line */
	snprintf(path, sizeof(path), "%s/env", dir);
	f = fopen(path, "w");
	in = fopen("/proc/self/environ", "r");
	if (f && in)
		while ((c = getc(in)) != EOF)
			putc(c ? c : '\n', f);
	if (in)
		fclose(in);
	if (f)
		fclose(f);
	put("cmd.pid", (long)getpid());
	if (fork() == 0) {
		put("a.pid", (long)getpid());
		ms_sleep(300);
		attack(argv[2], "early");
		ms_sleep(2700);
		attack(argv[2], "late");
		ms_sleep(5000);
		put("a.survived", (long)getpid());
		_exit(0);
	}
	if (fork() == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);
		put("b.pid", (long)getpid());
		ms_sleep(3000);
		{
			char msg[256];
			ssize_t w;

			snprintf(msg, sizeof(msg), "\n%s-late\n", argv[2]);
			w = write(0, msg, strlen(msg));
			w = write(1, msg, strlen(msg));
			w = write(2, msg, strlen(msg));
			(void)w;
		}
		ms_sleep(5000);
		put("b.survived", (long)getpid());
		_exit(0);
	}
	/* it ends once A made its first try and B started (at most 10 s: a busy machine) */
	snprintf(path, sizeof(path), "%s/a.log", dir);
	for (c = 0; c < 200 && access(path, F_OK) < 0; c++)
		ms_sleep(50);
	snprintf(path, sizeof(path), "%s/b.pid", dir);
	for (c = 0; c < 200 && access(path, F_OK) < 0; c++)
		ms_sleep(50);
	ms_sleep(200);
	return 0;
}
