// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pingpong NAME N - two processes named NAME (prctl: a name the test picks,
 * unique on a shared machine, that perf's and the kernel's event filters
 * can pick out) pass a byte through two pipes N times each way: every
 * round blocks each of them once, about 4N context switches in all.
 * Exit 0 when every byte went both ways; ended early (killed), the other
 * one reads the end of its pipe and exits too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int ping[2], pong[2], status;
	long n, i;
	char c = 0;
	pid_t pid;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: pingpong NAME N\n");
		return 2;
	}
	if (prctl(PR_SET_NAME, argv[1], 0, 0, 0) < 0 || pipe(ping) < 0 || pipe(pong) < 0) {
		perror("pingpong");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		/* the parent's ends closed: its end (killed, or done) is this one's EOF */
		close(ping[1]);
		close(pong[0]);
		for (i = 0; i < n; i++)
			if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	for (i = 0; i < n; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}
