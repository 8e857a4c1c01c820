// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * swapper.c - the user of tests/live/rec-swap.sh (run as nobody) who
 * watches their directory while root reads a recording from it, and
 * renames another file over the recording's name at the K-th time it is
 * opened (inotify IN_OPEN): what defeats a program that checks a file and
 * then opens it again by its name.
 *
 *   swapper DIR NAME NEW K
 *
 * Prints "watching" once the watch is set, "swapped" after the rename.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	char from[4096], to[4096];
	int fd, k, seen = 0;

	if (argc != 5)
		return 2;
	k = atoi(argv[4]);
	snprintf(from, sizeof(from), "%s/%s", argv[1], argv[3]);
	snprintf(to, sizeof(to), "%s/%s", argv[1], argv[2]);
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, argv[1], IN_OPEN) < 0)
		return 1;
	printf("watching\n");
	fflush(stdout);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf)), off = 0;

		if (n <= 0)
			return 1;
		while (off < n) {
			const struct inotify_event *ev = (const void *)(buf + off);

			if (ev->len && !strcmp(ev->name, argv[2]) && ++seen == k) {
				if (rename(from, to) < 0)
					return 1;
				printf("swapped\n");
				return 0;
			}
			off += (ssize_t)sizeof(*ev) + ev->len;
		}
	}
}
