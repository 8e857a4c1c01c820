// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * regfile.c - see regfile.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/regfile.h"

/* @fd opened again for reading through /proc/self/fd, checked to be @want's inode */
static int reopen_as(int fd, const struct stat *want, int oflags)
{
	struct stat sb;
	char p[64];
	int nfd;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	nfd = open(p, oflags);
	if (nfd < 0)
		return -errno;
	if (fstat(nfd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_dev != want->st_dev ||
	    sb.st_ino != want->st_ino) {
		close(nfd);
		return -ESTALE;
	}
	return nfd;
}

int regfile_open(const char *path, unsigned int flags, uint64_t max, struct stat *st)
{
	struct stat sb;
	int pfd, fd;

	pfd = open(path, O_PATH | O_CLOEXEC | ((flags & REGFILE_NOFOLLOW) ? O_NOFOLLOW : 0));
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &sb) < 0) {
		fd = -errno;
		close(pfd);
		return fd;
	}
	if (!S_ISREG(sb.st_mode))
		fd = S_ISLNK(sb.st_mode) ? -ELOOP : -EINVAL;
	else if (max && (uint64_t)sb.st_size > max)
		fd = -EFBIG;
	else
		fd = reopen_as(pfd, &sb, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(pfd);
	if (fd >= 0 && st)
		*st = sb;
	return fd;
}

int regfile_reopen(int fd)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		return -errno;
	if (!S_ISREG(sb.st_mode))
		return -EINVAL;
	return reopen_as(fd, &sb, O_RDONLY | O_NOCTTY | O_CLOEXEC);
}

int regfile_read(int fd, uint64_t max, char **ret, size_t *ret_len)
{
	struct stat sb;
	size_t len = 0, cap;
	char *buf;

	*ret = NULL;
	*ret_len = 0;
	if (fstat(fd, &sb) < 0)
		return -errno;
	if (max && (uint64_t)sb.st_size > max)
		return -EFBIG;
	cap = (size_t)sb.st_size + 4096;
	buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			/* it grew since: read on, within @max */
			size_t nc = cap * 2;
			char *nb;

			if (max && len >= max) {
				free(buf);
				return -EFBIG;
			}
			if (max && nc > max)
				nc = (size_t)max + 1;
			nb = realloc(buf, nc + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap = nc;
		}
		n = pread(fd, buf + len, cap - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (max && len > max) {
		free(buf);
		return -EFBIG;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}
