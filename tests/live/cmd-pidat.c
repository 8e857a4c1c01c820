// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-pidat.c - start a command at a chosen pid (root: clone3's set_tid),
 * as an attacker that cycled pids until it got a dead stacktop's would:
 *
 *   cmd-pidat PID CMD [ARG]...
 *
 * Prints nothing; exits 0 once CMD is started at PID (not waited for), 3
 * when PID is taken, 1 on other errors.
 */
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t want, pid;
	struct clone_args ca;

	if (argc < 3)
		return 1;
	want = (pid_t)atoi(argv[1]);
	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	ca.set_tid = (uint64_t)(uintptr_t)&want;
	ca.set_tid_size = 1;
	pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0) {
		fprintf(stderr, "cmd-pidat: clone3 at pid %d: %s\n", (int)want, strerror(errno));
		return errno == EEXIST ? 3 : 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	return 0;
}
