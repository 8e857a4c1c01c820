// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs.c - see tfs.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/array.h"
#include "kernel/tfs.h"

#define TRACEFS_MAGIC  0x74726163
#define TFS_SYS_ROOT   "/sys/kernel/tracing"
#define TFS_DEBUG_ROOT "/sys/kernel/debug/tracing"

/* set once the kernel said ENOSYS to openat2(): walk the components instead
 * (the walk is as strict: no symlink, nothing outside the root) */
static volatile int tfs_no_openat2;

void tfs_test_disable_openat2(void)
{
	tfs_no_openat2 = 1;
}

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

int tfs_check_root(int fd)
{
	struct statfs sfs;
	struct stat st;

	if (fstatfs(fd, &sfs) == 0 && sfs.f_type == TRACEFS_MAGIC)
		return 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/* anyone else who can write or own it could plant a symlink or swap a file */
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022))
		return -EPERM;
	return 0;
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
	/* the descriptor, not the path: what was opened is what gets checked */
	r = tfs_check_root(t->fd);
	if (r < 0)
		goto fail;
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

/*
 * The fallback for kernels without openat2() (before 5.6): one component at
 * a time, each directory opened with O_NOFOLLOW, ".." and absolute paths
 * refused. Plain system calls on a stack buffer: async-signal-safe.
 */
static int tfs_walk(int dirfd, const char *rel, int flags)
{
	char buf[PATH_MAX], *p, *next;
	int cur = dirfd, fd;
	struct stat st;
	size_t len = strlen(rel);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	if (rel[0] == '/')
		return -EXDEV;
	memcpy(buf, rel, len + 1);
	/* trailing slashes name the same file */
	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = '\0';
	for (p = buf;; p = next) {
		while (*p == '/')
			p++;
		next = strchr(p, '/');
		if (next)
			*next++ = '\0';
		if (!strcmp(p, "..")) {
			fd = -EXDEV;
		} else if (!next) {
			/* the last component */
			fd = openat(cur, *p ? p : ".", flags | O_NOFOLLOW | O_CLOEXEC);
			fd = fd < 0 ? -errno : fd;
		} else if (!strcmp(p, ".")) {
			continue;
		} else {
			fd = openat(cur, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			fd = fd < 0 ? -errno : fd;
		}
		/* with O_DIRECTORY a symlink reads ENOTDIR: say what it is, as openat2() does */
		if (fd == -ENOTDIR && fstatat(cur, p, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			fd = -ELOOP;
		if (cur != dirfd)
			close(cur);
		if (fd < 0 || !next)
			return fd;
		cur = fd;
	}
}

int tfs_resolve(int dirfd, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	if (!tfs_no_openat2) {
		fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		/* EPERM: a seccomp filter that does not know openat2 (older containers) */
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
		if (errno == ENOSYS)
			tfs_no_openat2 = 1;
	}
	return tfs_walk(dirfd, rel, flags);
}

int tfs_open_file(struct tfs *t, const char *rel, int flags)
{
	return tfs_resolve(t->fd, rel, flags);
}

/* the directory holding @rel's last component, and that component */
static int tfs_parent(struct tfs *t, const char *rel, char *buf, size_t bufsz,
		      const char **ret_base)
{
	size_t len = strlen(rel);
	char *slash;

	if (len >= bufsz)
		return -ENAMETOOLONG;
	memcpy(buf, rel, len + 1);
	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = '\0';
	slash = strrchr(buf, '/');
	*ret_base = slash ? slash + 1 : buf;
	if (!**ret_base || !strcmp(*ret_base, ".") || !strcmp(*ret_base, ".."))
		return -EINVAL;
	if (!slash)
		return t->fd; /* not to be closed */
	if (slash == buf)
		return -EXDEV;
	*slash = '\0';
	return tfs_resolve(t->fd, buf, O_RDONLY | O_DIRECTORY);
}

int tfs_read(struct tfs *t, const char *rel, char **ret_buf, size_t *ret_len)
{
	size_t cap = 4096, len = 0;
	char *buf;
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

		if (cap - len < 2 && cap > (256u << 20)) {
			r = -EFBIG;
			break;
		}
		if (ARRAY_GROW(buf, cap, len + 2) < 0) {
			r = -ENOMEM;
			break;
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
	/* O_TRUNC: what `echo 1 > file` does (tracefs takes it as the shell sends it) */
	return tfs_write_mode(t, rel, str, O_TRUNC);
}

int tfs_write_mode(struct tfs *t, const char *rel, const char *str, int mode)
{
	size_t len = strlen(str);
	ssize_t n;
	int fd, r = 0;

	fd = tfs_open_file(t, rel, O_WRONLY | (mode & (O_TRUNC | O_APPEND)));
	if (fd < 0)
		return fd;
	/*
	 * A short write is not an error: set_ftrace_filter takes one token per
	 * write(2) and returns the bytes it consumed; write the rest, as a
	 * shell's echo does (an empty string is still one write).
	 */
	do {
		n = write(fd, str, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (n == 0 && len)) {
			r = n < 0 ? -errno : -EIO;
			break;
		}
		str += n;
		len -= (size_t)n;
	} while (len);
	if (close(fd) < 0 && !r && errno != EINTR)
		r = -errno;
	return r;
}

bool tfs_exists(struct tfs *t, const char *rel)
{
	char buf[PATH_MAX];
	const char *base;
	struct stat st;
	int dfd = tfs_parent(t, rel, buf, sizeof(buf), &base);
	bool r;

	if (dfd < 0)
		return false;
	r = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (dfd != t->fd)
		close(dfd);
	return r;
}

int tfs_mkdir(struct tfs *t, const char *rel)
{
	char buf[PATH_MAX];
	const char *base;
	int dfd = tfs_parent(t, rel, buf, sizeof(buf), &base), r;

	if (dfd < 0)
		return dfd;
	r = mkdirat(dfd, base, 0750) < 0 ? -errno : 0;
	if (dfd != t->fd)
		close(dfd);
	return r;
}

int tfs_rmdir(struct tfs *t, const char *rel)
{
	char buf[PATH_MAX];
	const char *base;
	int dfd = tfs_parent(t, rel, buf, sizeof(buf), &base), r;

	if (dfd < 0)
		return dfd;
	r = unlinkat(dfd, base, AT_REMOVEDIR) < 0 ? -errno : 0;
	if (dfd != t->fd)
		close(dfd);
	return r;
}
