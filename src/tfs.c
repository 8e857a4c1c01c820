// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs.c - see tfs.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "tfs.h"

#define TRACEFS_MAGIC 0x74726163
#define TFS_SYS_ROOT  "/sys/kernel/tracing"
#define TFS_DEBUG_ROOT "/sys/kernel/debug/tracing"

static bool tfs_is_tracefs(const char *path)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == TRACEFS_MAGIC;
}

static int tfs_find(char **ret_root, bool *ret_mounted)
{
	const char *root = NULL;

	*ret_mounted = false;
	if (tfs_is_tracefs(TFS_SYS_ROOT))
		root = TFS_SYS_ROOT;
	else if (tfs_is_tracefs(TFS_DEBUG_ROOT))
		root = TFS_DEBUG_ROOT;
	else {
		if (access(TFS_SYS_ROOT, F_OK) < 0)
			return -ENODEV;
		if (mount("nodev", TFS_SYS_ROOT, "tracefs", 0, NULL) < 0) {
			if (errno == EPERM || errno == EACCES)
				return -EPERM;
			return -ENODEV;
		}
		*ret_mounted = true;
		root = TFS_SYS_ROOT;
	}
	*ret_root = strdup(root);
	return *ret_root ? 0 : -ENOMEM;
}

int tfs_open(const char *root, struct tfs **ret)
{
	struct tfs *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	t->fd = -1;
	if (root) {
		/* absolute: the restore journal must name it from any directory */
		t->root = realpath(root, NULL);
		r = t->root ? 0 : -errno;
	} else {
		r = tfs_find(&t->root, &t->mounted);
	}
	if (r < 0)
		goto fail;
	t->fd = open(t->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->fd < 0) {
		r = -errno;
		goto fail;
	}
	*ret = t;
	return 0;
fail:
	tfs_close(t);
	return r;
}

void tfs_close(struct tfs *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	if (t->mounted)
		umount2(t->root, 0); /* EBUSY: someone else uses it now; leave it */
	free(t->root);
	free(t);
}

int tfs_open_file(struct tfs *t, const char *rel, int flags)
{
	int fd = openat(t->fd, rel, flags | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int tfs_read(struct tfs *t, const char *rel, char **ret_buf, size_t *ret_len)
{
	size_t cap = 4096, len = 0;
	char *buf, *nbuf;
	int fd, r = 0;

	fd = tfs_open_file(t, rel, O_RDONLY);
	if (fd < 0)
		return fd;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			if (cap > (256u << 20)) {
				r = -EFBIG;
				break;
			}
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				r = -ENOMEM;
				break;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret_buf = buf;
	if (ret_len)
		*ret_len = len;
	return 0;
}

int tfs_read_long(struct tfs *t, const char *rel, long long *ret)
{
	char *buf, *end;
	long long v;
	int r;

	r = tfs_read(t, rel, &buf, NULL);
	if (r < 0)
		return r;
	errno = 0;
	v = strtoll(buf, &end, 0);
	if (end == buf || errno)
		r = -EBADMSG;
	else
		*ret = v;
	free(buf);
	return r;
}

int tfs_write(struct tfs *t, const char *rel, const char *str)
{
	size_t len = strlen(str);
	ssize_t n;
	int fd, r = 0;

	/* O_TRUNC: what `echo 1 > file` does (tracefs takes it as the shell sends it) */
	fd = tfs_open_file(t, rel, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return fd;
	do {
		n = write(fd, str, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	if (close(fd) < 0 && !r && errno != EINTR)
		r = -errno;
	return r;
}

bool tfs_exists(struct tfs *t, const char *rel)
{
	struct stat st;

	return fstatat(t->fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int tfs_mkdir(struct tfs *t, const char *rel)
{
	return mkdirat(t->fd, rel, 0750) < 0 ? -errno : 0;
}

int tfs_rmdir(struct tfs *t, const char *rel)
{
	return unlinkat(t->fd, rel, AT_REMOVEDIR) < 0 ? -errno : 0;
}
