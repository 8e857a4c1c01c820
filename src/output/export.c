// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * export.c - see export.h: a format by name or suffix, the writer it
 * chooses, and files written safely.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include "core/format.h"
#include "output/export.h"
#include "output/formats.h"
#include "output/rows.h"

static const char *const format_names[] = {
	[EXPORT_TEXT] = "text",
	[EXPORT_JSON] = "json",
	[EXPORT_FOLDED] = "folded",
	[EXPORT_PPROF] = "pprof",
	[EXPORT_SPEEDSCOPE] = "speedscope",
	[EXPORT_HTML] = "html",
	[EXPORT_SVG] = "svg",
};

int export_format_parse(const char *name)
{
	int i;

	for (i = 0; i < EXPORT_FORMAT_MAX; i++)
		if (!strcmp(name, format_names[i]))
			return i;
	return -EINVAL;
}

const char *export_format_name(enum export_format fmt)
{
	return (unsigned int)fmt < EXPORT_FORMAT_MAX ? format_names[fmt] : "?";
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && !strcasecmp(s + a - b, suffix);
}

int export_format_guess(const char *path)
{
	static const struct {
		const char *suffix;
		enum export_format fmt;
	} map[] = {
		/* longest first: ".speedscope.json" before ".json" */
		{ ".speedscope.json", EXPORT_SPEEDSCOPE },
		{ ".speedscope", EXPORT_SPEEDSCOPE },
		{ ".json", EXPORT_JSON },
		{ ".pb.gz", EXPORT_PPROF },
		{ ".pprof", EXPORT_PPROF },
		{ ".pb", EXPORT_PPROF },
		{ ".folded", EXPORT_FOLDED },
		{ ".collapsed", EXPORT_FOLDED },
		{ ".txt", EXPORT_TEXT },
		{ ".html", EXPORT_HTML },
		{ ".htm", EXPORT_HTML },
		{ ".svg", EXPORT_SVG },
	};
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (ends_with(base, map[i].suffix))
			return map[i].fmt;
	return -EINVAL;
}

int export_write(FILE *f, struct session *s, const struct report_opts *o, enum export_format fmt,
		 int iteration)
{
	switch (fmt) {
	case EXPORT_TEXT:
		return export_report(f, s, o, iteration);
	case EXPORT_JSON:
		return export_json(f, s, o, iteration);
	case EXPORT_FOLDED:
		return export_folded_root(f, s, o);
	case EXPORT_PPROF:
		return export_pprof(f, s, o);
	case EXPORT_SPEEDSCOPE:
		return export_speedscope(f, s, o);
	case EXPORT_HTML:
		return export_html(f, s, o);
	case EXPORT_SVG:
		return export_svg(f, s, o);
	default:
		return -EINVAL;
	}
}

static int file_err(char *err, size_t errsz, int r, const char *path, const char *dir,
		    const char *what)
{
	char p[PATH_MAX], d[PATH_MAX];

	if (!err || !errsz)
		return r;
	fmt_sanitize(p, sizeof(p), path, strlen(path));
	fmt_sanitize(d, sizeof(d), dir, strlen(dir));
	switch (-r) {
	case ELOOP:
		snprintf(err, errsz, "%s is a symbolic link: not writing through it", p);
		break;
	case EISDIR:
		snprintf(err, errsz, "%s is a directory", p);
		break;
	case EROFS:
		snprintf(err, errsz, "cannot write %s: %s is on a read-only file system", p, d);
		break;
	case ENOSPC:
		snprintf(err, errsz, "cannot write %s: no space left in %s (nothing written)", p, d);
		break;
	case EDQUOT:
		snprintf(err, errsz, "cannot write %s: disk quota exceeded in %s (nothing written)",
			 p, d);
		break;
	case EACCES:
	case EPERM:
		snprintf(err, errsz, "cannot write %s: no permission to create files in %s", p, d);
		break;
	case ENOENT:
	case ENOTDIR: {
		struct stat sb;

		/* the directory is there: it is the new file it will not take */
		if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
			snprintf(err, errsz,
				 "cannot write %s: %s takes no new file (%s; -o writes a new file "
				 "there and renames it over the target)",
				 p, d, strerror(-r));
		else
			snprintf(err, errsz, "cannot write %s: no such directory %s", p, d);
		break;
	}
	default:
		snprintf(err, errsz, "cannot %s %s: %s", what, p, strerror(-r));
		break;
	}
	return r;
}

static const struct {
	unsigned long magic;
	const char *name;
} kernel_fss[] = {
	{ PROC_SUPER_MAGIC, "procfs" },	   { SYSFS_MAGIC, "sysfs" },
	{ TRACEFS_MAGIC, "tracefs" },	   { DEBUGFS_MAGIC, "debugfs" },
	{ CGROUP_SUPER_MAGIC, "cgroupfs" }, { CGROUP2_SUPER_MAGIC, "cgroup2" },
	{ SECURITYFS_MAGIC, "securityfs" }, { BPF_FS_MAGIC, "bpffs" },
	{ DEVPTS_SUPER_MAGIC, "devpts" },  { PSTOREFS_MAGIC, "pstore" },
	{ EFIVARFS_MAGIC, "efivarfs" },
};

/*
 * 1 + the index in kernel_fss[] of the file system @dir is on, 0 when it
 * is none of them (or cannot be told: the write says why it fails)
 */
static int kernel_fs(const char *dir)
{
	struct statfs sf;
	size_t i;

	if (statfs(dir, &sf) < 0)
		return 0;
	for (i = 0; i < sizeof(kernel_fss) / sizeof(kernel_fss[0]); i++)
		if ((unsigned long)sf.f_type == kernel_fss[i].magic)
			return (int)i + 1;
	return 0;
}

static const char *kernel_fs_name(int k)
{
	return kernel_fss[k - 1].name;
}

/* a fresh temporary name next to @path: "<dir>/.<base>.<random>.tmp" */
static int temp_name(char *buf, size_t size, const char *dir, const char *base)
{
	uint32_t rnd;
	int n;

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (uint32_t)getpid() ^ (uint32_t)time(NULL) ^ (uint32_t)(uintptr_t)buf;
	n = snprintf(buf, size, "%s/.%s.%08x.tmp", dir, base, rnd);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int export_write_file(struct session *s, const struct report_opts *o, enum export_format fmt,
		      int iteration, const char *path, char *err, size_t errsz)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32];
	const char *slash, *base;
	struct stat sb;
	FILE *f = NULL;
	int r, w, tries, dfd;

	if (err && errsz)
		err[0] = '\0';
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	if (!*base)
		return file_err(err, errsz, -EISDIR, path, path, "write");
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) >= sizeof(dir))
		return file_err(err, errsz, -ENAMETOOLONG, path, path, "write");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);

	/* the kernel's own file systems hold no files of ours */
	r = kernel_fs(dir);
	if (r) {
		if (err && errsz) {
			char p[PATH_MAX];

			fmt_sanitize(p, sizeof(p), path, strlen(path));
			snprintf(err, errsz,
				 "cannot write %s: it is on %s, a kernel file system, not a place for a file",
				 p, kernel_fs_name(r));
		}
		return -EINVAL;
	}
	/* the target: absent, or a regular file (never a symlink we would replace) */
	if (lstat(path, &sb) == 0) {
		if (S_ISLNK(sb.st_mode))
			return file_err(err, errsz, -ELOOP, path, dir, "write");
		if (S_ISDIR(sb.st_mode))
			return file_err(err, errsz, -EISDIR, path, dir, "write");
		if (!S_ISREG(sb.st_mode)) {
			if (err && errsz)
				snprintf(err, errsz, "%s exists and is not a regular file", base);
			return -EINVAL;
		}
	} else if (errno != ENOENT) {
		return file_err(err, errsz, -errno, path, dir, "write");
	}

	for (tries = 0; tries < 64; tries++) {
		r = temp_name(tmp, sizeof(tmp), dir, base);
		if (r < 0)
			return file_err(err, errsz, r, path, dir, "write");
		f = export_create_file(tmp);
		if (f || errno != EEXIST)
			break;
	}
	if (!f)
		return file_err(err, errsz, -errno, path, dir, "create");

	w = export_write(f, s, o, fmt, iteration);
	r = w < 0 ? w : export_flush(f);
	if (!r && fsync(fileno(f)) < 0)
		r = -errno;
	if (fclose(f) && !r)
		r = errno ? -errno : -EIO;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return file_err(err, errsz, r, path, dir, "write");
	}
	/* the rename itself durable */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return w;
}

FILE *export_create_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		int e = errno;

		close(fd);
		unlink(path);
		errno = e;
	}
	return f;
}

