// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * manymaps DIR NMAPS NCHILD PATHLEN: a process with NMAPS file mappings (of
 * one file whose path is about PATHLEN bytes long, made under DIR) and
 * NCHILD children that each map one executable page of their own and sleep
 * 1 ms in a loop, for the live tests of --user=dwarf's map tables (issue
 * 25: 65,000 mappings and 6 children took 56 s to the first report; 40
 * children of a 4000-mapping process with a 3783-byte path took 615 MB).
 * Prints "ready" when its maps are made, forks the children one second
 * later (so that a tracer started at "ready" sees them fork and map: perf's
 * FORK and MMAP2 records), then runs until its stdin closes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static __attribute__((noinline)) void sleep_loop(void)
{
	const struct timespec ts = { 0, 1000000 };

	for (;;) {
		nanosleep(&ts, NULL);
		if (getppid() == 1)
			_exit(0);
	}
}

int main(int argc, char **argv)
{
	char path[4096], part[201];
	long nmaps, nchild, plen, i;
	size_t len;
	pid_t kids[256];
	struct pollfd in = { .fd = 0, .events = POLLIN };
	int fd;

	if (argc != 5)
		return 2;
	nmaps = atol(argv[2]);
	nchild = atol(argv[3]);
	plen = atol(argv[4]);
	if (nchild > 256)
		return 2;
	/* a deep directory: components of 200 bytes until the path is long enough */
	memset(part, 'd', 200);
	part[200] = '\0';
	len = (size_t)snprintf(path, sizeof(path), "%s", argv[1]);
	while ((long)len + 202 + 8 < plen && len + 202 + 8 < sizeof(path)) {
		len += (size_t)snprintf(path + len, sizeof(path) - len, "/%s", part);
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			perror(path);
			return 1;
		}
	}
	snprintf(path + len, sizeof(path) - len, "/mapped");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 4096) < 0) {
		perror(path);
		return 1;
	}
	/* offset 0 every time: adjacent mappings of one file never merge then */
	for (i = 0; i < nmaps; i++)
		if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
	printf("ready %ld maps, %ld children, path %zu bytes\n", nmaps, nchild, strlen(path));
	fflush(stdout);
	sleep(1);
	for (i = 0; i < nchild; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
				_exit(1);
			sleep_loop();
		}
	}
	for (;;) {
		const struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
		if (poll(&in, 1, 0) > 0) {
			char c;

			if (read(0, &c, 1) <= 0)
				break;
		}
	}
	for (i = 0; i < nchild; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	unlink(path);
	return 0;
}
