// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-forge.c - the hostile commands of tests/live/cmd-relay.sh, run by
 * `stacktop -b -- CMD` as nobody (issue 36, items 2, 5 and 6): what a user
 * behind CMD would do to root's report and terminal.
 *
 *   cmd-forge forge      ignores SIGHUP; writes "forge-start" and leaves
 *                        SGR 8 (concealed) and a line begun; on SIGTERM
 *                        writes CSI H, CSI 2J, CSI 3J and a fake report
 *                        ("stacktop FORGED ...") to fds 1 and 2 and
 *                        /dev/tty, again 0.5 s later, then exits 0
 *   cmd-forge trunc      ftruncate()s fds 1 and 2, seeks them to 0,
 *                        writes "FORGED" to each and to /proc/self/fd/1
 *                        (reopened), at once and on SIGTERM; sleeps
 *   cmd-forge c1         writes raw C1 controls (0x9b 'c': CSI DA; 0x9d
 *                        OSC title 0x9c ST; 0x90 DCS) between markers,
 *                        and "\xc4\x9b" (a UTF-8 e with caron), exits
 *   cmd-forge pass SOCK  sends its stdout (the pty or pipe) over the unix
 *                        socket SOCK (SCM_RIGHTS), writes "passed", exits
 *   cmd-forge outside SOCK  listens on SOCK; writes "LEAK n" lines for
 *                        ever to each descriptor it receives (a process
 *                        outside the command's tree)
 *   cmd-forge slow       copies stdin to stdout, 512 bytes every 20 ms
 *                        (a slow terminal)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int put(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t w = write(fd, s, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static volatile sig_atomic_t termed;

static void on_term(int sig)
{
	(void)sig;
	termed = 1;
}

static const char fake[] = "\033[H\033[2J\033[3J"
			   "stacktop FORGED - mode stacks - kernel forged\n"
			   "RANK IDS HITS TOTAL % RATE/s EVENT COMM/PID STACK\n"
			   "   1 - 999999 999999 100 1 FORGED FORGED/1 FORGED\n";

static int forge(void)
{
	int tty = open("/dev/tty", O_WRONLY | O_NOCTTY);
	int round;

	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, on_term);
	put(1, "forge-start\n\033[8mconcealed and no newline");
	while (!termed)
		pause();
	for (round = 0; round < 2; round++) {
		put(1, fake);
		put(2, fake);
		if (tty >= 0)
			put(tty, fake);
		ms_sleep(500);
	}
	return 0;
}

static void trunc_all(void)
{
	int fd, i;

	for (i = 1; i <= 2; i++) {
		if (ftruncate(i, 0) == 0)
			put(2, "ftruncate worked\n");
		lseek(i, 0, SEEK_SET);
		put(i, "FORGED\n");
	}
	fd = open("/proc/self/fd/1", O_WRONLY | O_TRUNC);
	if (fd >= 0) {
		put(fd, "FORGED\n");
		close(fd);
	}
}

static int trunc_cmd(void)
{
	signal(SIGTERM, on_term);
	trunc_all();
	while (!termed)
		pause();
	trunc_all();
	return 0;
}

static int c1(void)
{
	put(1, "c1-start\n");
	put(1, "A\x9b"
	       "cB\x9d"
	       "0;owned\x9c"
	       "C\x90"
	       "q\x9c"
	       "D\xc4\x9b"
	       "E\n");
	put(1, "c1-end\n");
	return 0;
}

static int sock_addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path))
		return -1;
	strcpy(a->sun_path, path);
	return 0;
}

static int pass(const char *path)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct sockaddr_un a;
	char c = 'F';
	struct iovec iov = { &c, 1 };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int s = socket(AF_UNIX, SOCK_STREAM, 0), fd = 1;

	if (s < 0 || sock_addr(&a, path) < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0)
		return 1;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	if (sendmsg(s, &mh, 0) != 1)
		return 1;
	put(1, "passed\n");
	ms_sleep(200);
	return 0;
}

static int outside(const char *path)
{
	struct sockaddr_un a;
	int s = socket(AF_UNIX, SOCK_STREAM, 0), c, fd = -1;
	unsigned long n;
	char line[64];

	signal(SIGPIPE, SIG_IGN);
	if (s < 0 || sock_addr(&a, path) < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(s, 4) < 0)
		return 1;
	put(1, "listening\n");
	c = accept(s, NULL, NULL);
	if (c >= 0) {
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} u;
		char ch;
		struct iovec iov = { &ch, 1 };
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = u.buf,
				     .msg_controllen = sizeof(u.buf) };

		if (recvmsg(c, &mh, 0) == 1 && CMSG_FIRSTHDR(&mh))
			memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(fd));
	}
	if (fd < 0)
		return 1;
	put(1, "got it\n");
	for (n = 0;; n++) {
		snprintf(line, sizeof(line), "LEAK %lu\n", n);
		if (put(fd, line) < 0)
			return 0; /* its reader gone */
		if (n % 64 == 0)
			ms_sleep(1);
	}
}

static int slow(void)
{
	char buf[512];
	ssize_t n;

	while ((n = read(0, buf, sizeof(buf))) > 0) {
		if (write(1, buf, (size_t)n) != n)
			return 1;
		ms_sleep(20);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "forge"))
		return forge();
	if (argc >= 2 && !strcmp(argv[1], "trunc"))
		return trunc_cmd();
	if (argc >= 2 && !strcmp(argv[1], "c1"))
		return c1();
	if (argc >= 3 && !strcmp(argv[1], "pass"))
		return pass(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "outside"))
		return outside(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "slow"))
		return slow();
	fprintf(stderr, "usage: cmd-forge forge|trunc|c1|pass SOCK|outside SOCK|slow\n");
	return 2;
}
