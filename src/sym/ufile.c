// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ufile.c - the checks of ufile.h, made where they are called: in the
 * reader process (ufile_reader.c) during a run, in the caller's own
 * process where no reader was started (tests, tools). The mount tables are
 * read when a check needs them, after the file checked was pinned by its
 * O_PATH descriptor: the answer is about that file's mount, not about one
 * mounted since.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sym/ufile.h"
#include "sym/ufile_priv.h"

#define MOUNTINFO_MAX (4u << 20) /* a mount table larger than this is cut */
#define LINK_HOPS     8		 /* trusted symlinks followed in one walk */

enum mnt_kind {
	MNT_OK,
	MNT_FUSE,  /* fuse, fuse.*, fuseblk: a daemon answers opens and reads */
	MNT_BTRFS, /* st_dev is a subvolume's, not the superblock's */
};

struct mnt {
	uint64_t id;
	uint64_t dev;
	uint8_t kind;
};

struct mtab {
	struct mnt *m;
	size_t n, cap;
};

static uint64_t dev_of(unsigned int maj, unsigned int min)
{
	return (uint64_t)maj << 32 | min;
}

static enum mnt_kind fs_kind(const char *type, size_t len)
{
	if ((len == 4 && !memcmp(type, "fuse", 4)) || (len == 7 && !memcmp(type, "fuseblk", 7)) ||
	    (len > 5 && !memcmp(type, "fuse.", 5)))
		return MNT_FUSE;
	if (len == 5 && !memcmp(type, "btrfs", 5))
		return MNT_BTRFS;
	return MNT_OK;
}

/* a /proc/.../mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS...] - TYPE SOURCE SUPER" */
static int mtab_add(struct mtab *t, const char *file)
{
	size_t len = 0, cap = 16384;
	char *buf = malloc(cap + 1), *p;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return -errno;
	}
	for (;;) {
		ssize_t r;

		if (len == cap) {
			char *nb = cap < MOUNTINFO_MAX ? realloc(buf, cap * 2 + 1) : NULL;

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	for (p = buf; p && *p;) {
		char *eol = strchr(p, '\n'), *sep, *type, *end;
		unsigned long long id;
		unsigned int maj, min;

		if (eol)
			*eol = '\0';
		sep = strstr(p, " - ");
		if (sep && sscanf(p, "%llu %*u %u:%u", &id, &maj, &min) == 3) {
			type = sep + 3;
			end = strchr(type, ' ');
			if (t->n == t->cap) {
				size_t c = t->cap ? t->cap * 2 : 64;
				struct mnt *nm = realloc(t->m, c * sizeof(*nm));

				if (!nm)
					break;
				t->m = nm;
				t->cap = c;
			}
			t->m[t->n].id = id;
			t->m[t->n].dev = dev_of(maj, min);
			t->m[t->n].kind =
				(uint8_t)fs_kind(type, end ? (size_t)(end - type) : strlen(type));
			t->n++;
		}
		p = eol ? eol + 1 : NULL;
	}
	free(buf);
	return 0;
}

/* stacktop's mount table, and @pid's when it lives in another mount namespace */
static int mtab_read(struct mtab *t, const char *proc, uint32_t pid)
{
	char p[160], q[160];
	struct stat a, b;
	int r;

	t->n = 0;
	snprintf(p, sizeof(p), "%s/self/mountinfo", proc);
	r = mtab_add(t, p);
	if (r < 0)
		return r;
	if (!pid)
		return 0;
	snprintf(p, sizeof(p), "%s/self/ns/mnt", proc);
	snprintf(q, sizeof(q), "%s/%u/ns/mnt", proc, pid);
	if (!stat(p, &a) && !stat(q, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
		return 0;
	snprintf(q, sizeof(q), "%s/%u/mountinfo", proc, pid);
	mtab_add(t, q); /* gone: its mounts are gone with it */
	return 0;
}

static const struct mnt *mtab_by_id(const struct mtab *t, uint64_t id)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->m[i].id == id)
			return &t->m[i];
	return NULL;
}

/* the kind of a device: the worst of its mounts; -1: in no table */
static int mtab_dev_kind(const struct mtab *t, uint64_t dev)
{
	int kind = -1;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->m[i].dev == dev && (kind < 0 || t->m[i].kind == MNT_FUSE))
			kind = t->m[i].kind;
	return kind;
}

/*
 * The kernel's internal shmem mount: memfds (runc runs from one, JITs map
 * code from them) and SysV segments. It is in no mount table, and no user
 * can mount anything there: its device is learned from a memfd of our own.
 */
static uint64_t shm_dev(void)
{
	static uint64_t dev = UINT64_MAX;
	struct stat sb;
	int fd;

	if (dev != UINT64_MAX)
		return dev;
	dev = 0;
	fd = memfd_create("stacktop-shm-probe", MFD_CLOEXEC);
	if (fd >= 0) {
		if (!fstat(fd, &sb))
			dev = dev_of(major(sb.st_dev), minor(sb.st_dev));
		close(fd);
	}
	return dev;
}

/*
 * A device in no table is refused unless it is a block device's (major !=
 * 0) or the internal shmem mount's: a FUSE mount detached (umount -l) while
 * a process maps one of its files is in no table either.
 */
static int dev_check(const struct mtab *t, uint64_t dev, bool *btrfs)
{
	int kind = mtab_dev_kind(t, dev);

	*btrfs = kind == MNT_BTRFS;
	if (kind == MNT_FUSE)
		return -EXDEV;
	if (kind < 0 && !(dev >> 32) && dev != shm_dev())
		return -EXDEV;
	return 0;
}

bool ufile_fs_refused(const char *proc, uint32_t pid, uint64_t dev)
{
	struct mtab t = { 0 };
	bool btrfs;
	int r = mtab_read(&t, proc, pid);

	if (r == 0)
		r = dev_check(&t, dev, &btrfs);
	free(t.m);
	return r < 0;
}

/* what an O_PATH descriptor is, from cached attributes (no FUSE request) */
static int fd_statx(int fd, struct statx *sx)
{
	memset(sx, 0, sizeof(*sx));
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
		  STATX_TYPE | STATX_MODE | STATX_UID | STATX_INO | STATX_SIZE | STATX_MNT_ID,
		  sx) < 0)
		return -errno;
	if (!(sx->stx_mask & STATX_MNT_ID)) {
		/* before Linux 5.8: /proc/self/fdinfo/N has it */
		char p[64], line[128];
		FILE *f;

		snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", fd);
		f = fopen(p, "re");
		while (f && fgets(line, sizeof(line), f)) {
			unsigned long long id;

			if (sscanf(line, "mnt_id: %llu", &id) == 1) {
				sx->stx_mnt_id = id;
				sx->stx_mask |= STATX_MNT_ID;
			}
		}
		if (f)
			fclose(f);
		if (!(sx->stx_mask & STATX_MNT_ID))
			return -ENOTSUP;
	}
	return 0;
}

static bool owner_ok(const struct statx *sx, const struct ufile_want *w)
{
	unsigned int i;

	for (i = 0; w && i < w->nuids && i < 4; i++)
		if (sx->stx_uid == w->uids[i])
			return true;
	return false;
}

/*
 * The checked O_PATH descriptor @pfd opened for reading: through
 * /proc/self/fd (that inode, whatever its name is now), O_NONBLOCK.
 */
static int reopen(int pfd, const struct statx *sx, const struct ufile_want *w, bool btrfs,
		  unsigned int flags, struct ufile_stat *st)
{
	uint64_t dev = dev_of(sx->stx_dev_major, sx->stx_dev_minor);
	struct stat sb;
	char p[64];
	int fd;

	if (!S_ISREG(sx->stx_mode))
		return S_ISLNK(sx->stx_mode) ? -ELOOP : -EINVAL;
	if (w && ((w->ino && sx->stx_ino != w->ino) || (w->dev && dev != w->dev && !btrfs)))
		return -ESTALE;
	if ((flags & UFILE_OWNER) && !owner_ok(sx, w))
		return -EACCES;
	if ((flags & UFILE_TRUSTED) && (sx->stx_uid != 0 || (sx->stx_mode & 022)))
		return -EACCES;
	if (w && w->max_size && sx->stx_size > w->max_size)
		return -EFBIG;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", pfd);
	fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_ino != sx->stx_ino ||
	    dev_of(major(sb.st_dev), minor(sb.st_dev)) != dev) {
		close(fd);
		return -ESTALE;
	}
	if (st) {
		st->dev = dev;
		st->ino = sb.st_ino;
		st->size = (uint64_t)sb.st_size;
		st->uid = sb.st_uid;
		st->mode = sb.st_mode;
	}
	return fd;
}

/*
 * A new mount on the walk: looked up in tables read now (the descriptor
 * pins it); FUSE and mounts in neither table are refused.
 */
static int mount_check(struct mtab *t, const char *proc, uint32_t pid, const struct statx *sx,
		       bool *btrfs)
{
	const struct mnt *m;

	if (mtab_read(t, proc, pid) < 0)
		return -EXDEV;
	m = mtab_by_id(t, sx->stx_mnt_id);
	if (!m || m->kind == MNT_FUSE)
		return -EXDEV;
	*btrfs = m->kind == MNT_BTRFS;
	return 0;
}

static bool trusted_dir(const struct statx *sx)
{
	return S_ISDIR(sx->stx_mode) && sx->stx_uid == 0 && !(sx->stx_mode & 022);
}

/*
 * @path one component at a time from the root of @pid (0: ours). -ESRCH:
 * that root cannot be opened (the process is gone).
 */
static int walk(const char *proc, uint32_t pid, const char *path, unsigned int flags,
		const struct ufile_want *w, struct ufile_stat *st)
{
	char root[160], rest[PATH_MAX], link[PATH_MAX];
	struct mtab t = { 0 };
	uint64_t mnt = 0;
	bool btrfs = false;
	struct statx sx;
	int rootfd, cur, nfd = -1, r, hops = 0;
	size_t pos = 0;

	if (strlen(path) >= sizeof(rest))
		return -ENAMETOOLONG;
	snprintf(rest, sizeof(rest), "%s", path);
	if (pid)
		snprintf(root, sizeof(root), "%s/%u/root", proc, pid);
	else
		snprintf(root, sizeof(root), "/");
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -ESRCH;
	cur = -1;
restart:
	if (cur >= 0)
		close(cur);
	cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	r = cur < 0 ? -errno : fd_statx(cur, &sx);
	if (r == 0 && sx.stx_mnt_id != mnt) {
		r = mount_check(&t, proc, pid, &sx, &btrfs);
		mnt = sx.stx_mnt_id;
	}
	if (r == 0 && (flags & UFILE_TRUSTED) && !trusted_dir(&sx))
		r = -EACCES;
	while (r == 0) {
		size_t len;
		char comp[NAME_MAX + 1];
		bool last;

		while (rest[pos] == '/')
			pos++;
		len = strcspn(rest + pos, "/");
		if (!len)
			break; /* the directory itself: not a file */
		if (len > NAME_MAX) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, rest + pos, len);
		comp[len] = '\0';
		pos += len;
		last = !rest[pos + strspn(rest + pos, "/")];
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			r = -EPERM;
			break;
		}
		nfd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			r = -errno;
			break;
		}
		r = fd_statx(nfd, &sx);
		if (r == 0 && sx.stx_mnt_id != mnt) {
			r = mount_check(&t, proc, pid, &sx, &btrfs);
			mnt = sx.stx_mnt_id;
		}
		if (r < 0)
			break;
		if (S_ISLNK(sx.stx_mode)) {
			ssize_t n;

			/* only root's links in root's directories, and not forever */
			if (!(flags & UFILE_TRUSTED) || sx.stx_uid != 0 || ++hops > LINK_HOPS) {
				r = -ELOOP;
				break;
			}
			n = readlinkat(nfd, "", link, sizeof(link) - 1);
			close(nfd);
			nfd = -1;
			if (n <= 0 || strlen(rest + pos) + (size_t)n + 2 > sizeof(rest)) {
				r = -ELOOP;
				break;
			}
			link[n] = '\0';
			/* the link's target, then what was left of the path */
			memmove(rest + n + 1, rest + pos, strlen(rest + pos) + 1);
			memcpy(rest, link, (size_t)n);
			rest[n] = '/';
			pos = 0;
			if (link[0] == '/') {
				mnt = 0;
				goto restart;
			}
			continue;
		}
		if (last)
			break;
		if (!S_ISDIR(sx.stx_mode) || ((flags & UFILE_TRUSTED) && !trusted_dir(&sx))) {
			r = S_ISDIR(sx.stx_mode) ? -EACCES : -ENOTDIR;
			break;
		}
		close(cur);
		cur = nfd;
		nfd = -1;
	}
	if (r == 0 && nfd < 0)
		r = -EISDIR;
	if (r == 0)
		r = reopen(nfd, &sx, w, btrfs, flags, st);
	if (nfd >= 0)
		close(nfd);
	close(cur);
	close(rootfd);
	free(t.m);
	return r;
}

int ufile_local_open_at(const char *proc, uint32_t pid, const char *path, unsigned int flags,
			const struct ufile_want *want, struct ufile_stat *st)
{
	int r = walk(proc, pid, path, flags, want, st);

	return r == -ESRCH ? -ENOENT : r;
}

int ufile_local_open_mapped(const char *proc, uint32_t pid, uint64_t start, uint64_t end,
			    const char *path, const struct ufile_want *want, struct ufile_stat *st)
{
	struct mtab t = { 0 };
	struct statx sx;
	bool btrfs = false;
	char p[200];
	int pfd, r;

	if (!want || !want->dev || !want->ino)
		return -EINVAL;
	snprintf(p, sizeof(p), "%s/%u/map_files/%" PRIx64 "-%" PRIx64, proc, pid, start, end);
	/* the magic link followed without an open of the file itself */
	pfd = open(p, O_PATH | O_CLOEXEC);
	if (pfd >= 0) {
		r = fd_statx(pfd, &sx);
		/* the maps' device is the superblock's, the one mount tables show */
		if (r == 0)
			r = mtab_read(&t, proc, pid);
		if (r == 0)
			r = dev_check(&t, want->dev, &btrfs);
		if (r == 0)
			r = reopen(pfd, &sx, want, btrfs, 0, st);
		close(pfd);
		free(t.m);
		if (r != -ESTALE)
			return r;
	}
	/* gone or unmapped since: the same file by its name, checked by inode */
	if (!path || path[0] != '/' || ufile_fs_refused(proc, pid, want->dev))
		return -ENOENT;
	r = walk(proc, pid, path, 0, want, st);
	if (r == -ESRCH)
		r = walk(proc, 0, path, 0, want, st);
	return r;
}

ssize_t ufile_proc_chunk(int *fd, const char *proc, uint32_t pid, const char *name, char *buf,
			 size_t len, uint64_t off)
{
	char p[128];
	ssize_t r;

	if (*fd < 0) {
		if (!name[0] || strchr(name, '/') || off > (uint64_t)INT64_MAX)
			return -EINVAL;
		if ((size_t)snprintf(p, sizeof(p), "%s/%u/%s", proc, pid, name) >= sizeof(p))
			return -ENAMETOOLONG;
		*fd = open(p, O_RDONLY | O_CLOEXEC);
		if (*fd < 0)
			return -errno;
	}
	do
		r = pread(*fd, buf, len, (off_t)off);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

int64_t ufile_local_proc_stream(const char *proc, uint32_t pid, const char *name, uint64_t off,
				uint64_t max, ufile_chunk_fn *fn, void *ctx)
{
	char *buf = malloc(UFILE_PROC_CHUNK);
	uint64_t done = 0;
	ssize_t r = 0;
	int fd = -1;

	if (!buf)
		return -ENOMEM;
	while (done < max) {
		size_t n = max - done < UFILE_PROC_CHUNK ? (size_t)(max - done) : UFILE_PROC_CHUNK;

		r = ufile_proc_chunk(&fd, proc, pid, name, buf, n, off + done);
		if (r <= 0)
			break;
		done += (uint64_t)r;
		if (!fn(ctx, buf, (size_t)r))
			break;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return r < 0 && !done ? r : (int64_t)done;
}

int ufile_local_pread(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	if (off > (uint64_t)INT64_MAX || len > (uint64_t)INT64_MAX - off)
		return -EINVAL;
	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO; /* cut short: truncated since */
		done += (size_t)r;
	}
	return 0;
}
