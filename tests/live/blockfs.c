// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * blockfs.c - a FUSE file system for tests/live/hostile.sh that never
 * answers root: what an unprivileged user's FUSE daemon can do to whoever
 * reads its files (fusermount is setuid; with user_allow_other, root's
 * requests reach the daemon too).
 *
 *   blockfs MOUNTPOINT FILE LOG [fuse options]
 *
 * The root directory holds lib.so, FILE's bytes (read at start). Every
 * request but those about the root directory itself is written to LOG
 * ("op pid uid path ruid"), and a request from uid 0, or from a process whose
 * real uid is 0, is then never answered: its thread waits until the daemon
 * is killed (the kernel then fails what waits with ENOTCONN). The second
 * is how a daemon tells root's reads that come through an overlay the
 * user mounted over it (in a user namespace of their own): overlayfs
 * passes them on with the mounter's credentials, so the request carries
 * the user's uid but root's process's pid. Others are served: a process of
 * another user can map lib.so and run from it. Files created by others are
 * accepted and their bytes dropped.
 *
 * It also holds "hold", a file of HOLD_SIZE zero bytes whose reads and
 * flushes (the close of a descriptor of it) are never answered, whoever
 * asks: a process that faults its page in (or exec()s with it open) waits
 * for good, with what the kernel holds for it then (tests/live/mmlock.sh).
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fuse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOLD_SIZE (1 << 20)

static char *lib;
static size_t liblen;
static FILE *logfile;
static pthread_mutex_t logm = PTHREAD_MUTEX_INITIALIZER;

/* the real uid of @pid (from its status), -1 when unknown (gone, kernel) */
static long real_uid(int pid)
{
	char p[64], line[256];
	long uid = -1;
	FILE *f;

	if (pid <= 0)
		return -1;
	snprintf(p, sizeof(p), "/proc/%d/status", pid);
	f = fopen(p, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %ld", &uid) == 1)
			break;
	if (f)
		fclose(f);
	return uid;
}

static void log_rq(const char *op, const char *path, long ruid)
{
	struct fuse_context *c = fuse_get_context();

	pthread_mutex_lock(&logm);
	fprintf(logfile, "%s %d %u %s %ld\n", op, (int)c->pid, (unsigned int)c->uid, path, ruid);
	fflush(logfile);
	pthread_mutex_unlock(&logm);
}

/* a request about "hold" (logged) is never answered */
static void hold(const char *op, const char *path)
{
	if (strcmp(path, "/hold"))
		return;
	log_rq(op, path, real_uid((int)fuse_get_context()->pid));
	for (;;)
		pause();
}

/* logged; root (or a process of root's, through an overlay) waits forever */
static void gate(const char *op, const char *path)
{
	struct fuse_context *c = fuse_get_context();
	long ruid = real_uid((int)c->pid);

	log_rq(op, path, ruid);
	if (c->uid == 0 || ruid == 0)
		for (;;)
			pause();
}

static int bf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	gate("getattr", path);
	if (!strcmp(path, "/lib.so")) {
		st->st_mode = S_IFREG | 0755;
		st->st_nlink = 1;
		st->st_size = (off_t)liblen;
		st->st_ino = 2;
		return 0;
	}
	if (!strcmp(path, "/hold")) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = HOLD_SIZE;
		st->st_ino = 3;
		return 0;
	}
	return -ENOENT;
}

static int bf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	gate("readdir", path);
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "lib.so", NULL, 0, 0);
	fill(buf, "hold", NULL, 0, 0);
	return 0;
}

static int bf_open(const char *path, struct fuse_file_info *fi)
{
	gate("open", path);
	if (strcmp(path, "/lib.so") && strcmp(path, "/hold"))
		return -ENOENT;
	fi->keep_cache = 1;
	return 0;
}

static int bf_flush(const char *path, struct fuse_file_info *fi)
{
	(void)fi;
	hold("flush", path);
	return 0;
}

static int bf_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	hold("read", path);
	gate("read", path);
	if ((size_t)off >= liblen)
		return 0;
	if (size > liblen - (size_t)off)
		size = liblen - (size_t)off;
	memcpy(buf, lib + off, size);
	return (int)size;
}

static int bf_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)mode;
	(void)fi;
	gate("create", path);
	return 0;
}

static int bf_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	(void)buf;
	(void)off;
	(void)fi;
	gate("write", path);
	return (int)size;
}

static const struct fuse_operations ops = {
	.getattr = bf_getattr,
	.readdir = bf_readdir,
	.open = bf_open,
	.read = bf_read,
	.flush = bf_flush,
	.create = bf_create,
	.write = bf_write,
};

int main(int argc, char **argv)
{
	char *fargv[16];
	int fargc = 0, i;
	FILE *f;
	long n;

	if (argc < 4) {
		fprintf(stderr, "usage: blockfs MOUNTPOINT FILE LOG [fuse options]\n");
		return 2;
	}
	f = fopen(argv[2], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		return 1;
	liblen = (size_t)n;
	lib = malloc(liblen);
	if (!lib || fread(lib, 1, liblen, f) != liblen)
		return 1;
	fclose(f);
	logfile = fopen(argv[3], "w");
	if (!logfile)
		return 1;
	fargv[fargc++] = argv[0];
	fargv[fargc++] = argv[1];
	fargv[fargc++] = "-f";
	for (i = 4; i < argc && fargc < 15; i++)
		fargv[fargc++] = argv[i];
	fargv[fargc] = NULL;
	return fuse_main(fargc, fargv, &ops, NULL);
}
