// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * child_relay.c - the relay of `-- CMD`'s output (child.h, child_relay.h): what the
 * command writes on its pty (or, without a terminal, its pipe) filtered
 * (core/ttyfilter.h) to stacktop's terminal or stderr, and stacktop's
 * terminal input to the pty.
 *
 * The command never holds a descriptor of root's output: it writes on the
 * pty or pipe only, and this thread writes what it may to root's. The
 * relay ends before the last report (child_relay_end()): what is pending
 * is read within RELAY_END_MS and RELAY_END_BYTES (a process outside the
 * command's tree may hold the pty and write for ever), the terminal's
 * attributes are reset and the line ended, and nothing the command's tree
 * writes later (a fake report on SIGTERM, an erase) reaches root's
 * terminal. Writes to a terminal go through a descriptor of its own
 * opened non-blocking, so a terminal that stops reading (XOFF, a slow
 * link) holds neither the relay nor its end.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* the kernel's termios (TCGETS): <termios.h> is ui/'s (tests/check-layering.sh) */
#include <asm/termbits.h>

#include "cli/child_relay.h"

#define RELAY_READ_MAX	(64u << 10) /* bytes relayed a wakeup, then a look at the stop pipe */
#define RELAY_END_MS	300	    /* the last drain's time */
#define RELAY_END_BYTES (1u << 20)  /* and bytes */
#define RELAY_POLL_MS	250	    /* the loop's wakeups (the window size followed) */

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * all of @buf to r->out; false when it could not: the reader gone, @deadline
 * passed (0: none), or (without a deadline) the relay asked to stop;
 * *@done (when given) grows by the bytes written
 */
static bool write_all(struct child_relay *r, const char *buf, size_t len, uint64_t deadline,
		      size_t *done)
{
	while (len) {
		ssize_t w = write(r->out, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd p[2] = {
				{ .fd = r->out, .events = POLLOUT },
				{ .fd = deadline ? -1 : r->stop[0], .events = POLLIN },
			};
			uint64_t now = mono_ms();
			int ms = 100;

			if (deadline && now >= deadline)
				return false;
			if (deadline && deadline - now < 100)
				ms = (int)(deadline - now);
			if (poll(p, 2, ms) > 0 && p[1].revents)
				return false;
			continue;
		}
		if (w <= 0)
			return false; /* (its reader is gone: dropped) */
		r->wrote = true;
		r->midline = buf[w - 1] != '\n';
		if (done)
			*done += (size_t)w;
		buf += w;
		len -= (size_t)w;
	}
	return true;
}

/*
 * what the pty (or pipe) holds now, filtered, to r->out (or nowhere): at
 * most @max bytes read, and by @deadline (0: none); no sequence that makes
 * root's terminal answer, retitle, reset or copy (core/ttyfilter.h)
 */
static void relay_out(struct child_relay *r, size_t max, uint64_t deadline)
{
	char buf[4096], safe[sizeof(buf) + TTYFILTER_SEQ + 2];
	size_t got = 0;
	ssize_t n;

	while (got < max && (!deadline || mono_ms() < deadline)) {
		n = read(r->master, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (r->out < 0)
			continue;
		/* a terminal gets what is safe for it; a file or a pipe the bytes as they are */
		if (!(r->out_tty ? write_all(r, safe, ttyfilter_run(&r->tf, buf, (size_t)n, safe),
					     deadline, NULL)
				 : write_all(r, buf, (size_t)n, deadline, NULL)))
			break;
	}
}

/* stacktop's terminal input: into @pend (false: no more to relay) */
static bool relay_in(struct child_relay *r, char *pend, size_t size, size_t *npend)
{
	ssize_t n = read(STDIN_FILENO, pend, size);
	struct termios tio;

	if (n > 0) {
		*npend = (size_t)n;
	} else if (n == 0 && ioctl(r->slave, TCGETS, &tio) == 0) {
		/* ^D on stacktop's terminal: the same end of file on the pty */
		pend[0] = (char)tio.c_cc[VEOF];
		*npend = 1;
	} else if (n < 0 && errno != EINTR && errno != EAGAIN) {
		return false; /* stacktop in the background, or its terminal gone */
	}
	return true;
}

/*
 * The relay: the pty's output to stacktop's terminal (batch) or stderr or
 * nowhere (the screen); stacktop's terminal input to the pty (batch, while
 * stacktop is in the foreground), held while the pty's input is full.
 * Every signal is blocked here: a read of the terminal from the background
 * fails (EIO) instead of stopping stacktop, and the relay of input stops.
 */
static void *relay_main(void *arg)
{
	struct child_relay *r = arg;
	struct winsize ws, last = { 0 };
	char pend[1024];
	size_t npend = 0;
	bool in = r->in;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		struct pollfd p[3] = {
			{ .fd = r->stop[0], .events = POLLIN },
			{ .fd = r->master, .events = POLLIN | (npend ? POLLOUT : 0) },
			{ .fd = in && !npend ? STDIN_FILENO : -1, .events = POLLIN },
		};

		if (poll(p, 3, RELAY_POLL_MS) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		/* stacktop's terminal resized: the pty too (its foreground gets SIGWINCH) */
		if (r->tty >= 0 && ioctl(r->tty, TIOCGWINSZ, &ws) == 0 &&
		    memcmp(&ws, &last, sizeof(ws))) {
			ioctl(r->master, TIOCSWINSZ, &ws);
			last = ws;
		}
		if (p[1].revents & (POLLIN | POLLHUP))
			relay_out(r, RELAY_READ_MAX, 0);
		if (npend && (p[1].revents & POLLOUT)) {
			ssize_t w = write(r->master, pend, npend);

			if (w > 0) {
				memmove(pend, pend + w, npend - (size_t)w);
				npend -= (size_t)w;
			}
		}
		if (p[2].revents && !relay_in(r, pend, sizeof(pend), &npend))
			in = false;
	}
	/* the last of it, bounded: whoever holds the pty may write for ever */
	relay_out(r, RELAY_END_BYTES, mono_ms() + RELAY_END_MS);
	return NULL;
}

int child_relay_start(struct child_relay *r)
{
	int e;

	if (r->master < 0)
		return 0;
	if (pipe2(r->stop, O_CLOEXEC) < 0)
		return -errno;
	fcntl(r->master, F_SETFL, fcntl(r->master, F_GETFL) | O_NONBLOCK);
	e = pthread_create(&r->thread, NULL, relay_main, r);
	if (e)
		return -e;
	r->running = true;
	return 0;
}

void child_relay_end(struct child_relay *r)
{
	static const char reset[] = "\033[0m";

	if (!r->running)
		return;
	if (write(r->stop[1], "S", 1) < 0) {
		/* (cannot be full: one byte, once) */
	}
	pthread_join(r->thread, NULL);
	r->running = false;
	/* what the command left set: its colours, concealed text, a line begun */
	if (r->wrote && r->out_tty) {
		char end[sizeof(reset) + 2];
		struct stat st = { 0 };
		size_t n = sizeof(reset) - 1, done = 0;
		bool midline = r->midline;

		memcpy(end, reset, n);
		if (midline) {
			end[n++] = '\r';
			end[n++] = '\n';
		}
		/*
		 * a terminal that reads slowly may take none of it in time: the
		 * rest is owed to the report (child_relay_owed()), which waits
		 * for that terminal anyway; dropped, the report began on the
		 * line the command had begun (cmd-relay's pass, 1 run in 3)
		 */
		write_all(r, end, n, mono_ms() + 100, &done);
		r->nowed = n - done;
		memcpy(r->owed, end + done, r->nowed);
		/* which terminal (r->out may be closed before the report) */
		if (r->nowed && (fstat(r->out, &st) < 0 || !S_ISCHR(st.st_mode)))
			r->nowed = 0;
		r->owed_rdev = st.st_rdev;
	}
}

void child_relay_owed(struct child_relay *r, FILE *report, int fd)
{
	struct stat b;

	if (!r->nowed)
		return;
	/* only before a report on that very terminal: never into a file */
	if (report && fstat(fd, &b) == 0 && S_ISCHR(b.st_mode) && b.st_rdev == r->owed_rdev)
		fwrite(r->owed, 1, r->nowed, report);
	r->nowed = 0;
}

int child_relay_out(int fd)
{
	char p[64];
	int out;

	if (!isatty(fd))
		return fd; /* a file or a pipe of root's: written as it is */
	/* a description of its own: O_NONBLOCK there is not the shell's */
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	out = open(p, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	return out >= 0 ? out : fd;
}
