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

/* the writers that need no iteration number */
static int write_folded(FILE *f, struct session *s, const struct report_opts *o, int iteration)
{
	(void)iteration;
	return export_folded_root(f, s, o);
}

static int write_pprof(FILE *f, struct session *s, const struct report_opts *o, int iteration)
{
	(void)iteration;
	return export_pprof(f, s, o);
}

static int write_speedscope(FILE *f, struct session *s, const struct report_opts *o, int iteration)
{
	(void)iteration;
	return export_speedscope(f, s, o);
}

static int write_html(FILE *f, struct session *s, const struct report_opts *o, int iteration)
{
	(void)iteration;
	return export_html(f, s, o);
}

static int write_svg(FILE *f, struct session *s, const struct report_opts *o, int iteration)
{
	(void)iteration;
	return export_svg(f, s, o);
}

/* the formats: a new one is a row here (struct export_fmt says what each field does) */
static const struct export_fmt formats[EXPORT_FORMAT_MAX] = {
	[EXPORT_TEXT] = {
		.name = "text",
		.suffixes = { ".txt" },
		.help = "the batch report",
		.flags = EXPORT_F_DIFF,
		.write = export_report,
	},
	[EXPORT_JSON] = {
		.name = "json",
		.suffixes = { ".json" },
		.help = "snapshot: stacktop -r reads it back",
		.flags = EXPORT_F_ALL_ROWS | EXPORT_F_DIFF,
		.write = export_json,
	},
	[EXPORT_FOLDED] = {
		.name = "folded",
		.suffixes = { ".folded", ".collapsed" },
		.help = "flame graph input",
		.flags = EXPORT_F_ROOT | EXPORT_F_LOST,
		.between = "\n",
		.write = write_folded,
		.note = export_folded_note,
	},
	[EXPORT_PPROF] = {
		.name = "pprof",
		.suffixes = { ".pb.gz", ".pprof", ".pb" },
		.help = "go tool pprof",
		.flags = EXPORT_F_ONE | EXPORT_F_BINARY | EXPORT_F_LOST,
		.write = write_pprof,
	},
	[EXPORT_SPEEDSCOPE] = {
		.name = "speedscope",
		.suffixes = { ".speedscope.json", ".speedscope" },
		.help = "speedscope.app",
		.flags = EXPORT_F_ONE | EXPORT_F_LOST,
		.write = write_speedscope,
	},
	[EXPORT_HTML] = {
		.name = "html",
		.suffixes = { ".html", ".htm" },
		.help = "flame graph page for a browser",
		.flags = EXPORT_F_ONE | EXPORT_F_ROOT | EXPORT_F_LOST | EXPORT_F_DIFF,
		.write = write_html,
	},
	[EXPORT_SVG] = {
		.name = "svg",
		.suffixes = { ".svg" },
		.help = "flame graph image, static",
		.flags = EXPORT_F_ONE | EXPORT_F_ROOT | EXPORT_F_LOST,
		.write = write_svg,
	},
	[EXPORT_CSV] = {
		.name = "csv",
		.suffixes = { ".csv" },
		.help = "ranked rows for a spreadsheet",
		.flags = EXPORT_F_ALL_ROWS,
		.between = "\n",
		.write = export_csv,
		.note = export_csv_note,
	},
};

const struct export_fmt *export_format_get(int fmt)
{
	return fmt >= 0 && fmt < EXPORT_FORMAT_MAX ? &formats[fmt] : NULL;
}

int export_format_parse(const char *name)
{
	int i;

	for (i = 0; i < EXPORT_FORMAT_MAX; i++)
		if (!strcmp(name, formats[i].name))
			return i;
	return -EINVAL;
}

const char *export_format_name(enum export_format fmt)
{
	const struct export_fmt *e = export_format_get((int)fmt);

	return e ? e->name : "?";
}

/* the format whose suffix is the longest that ends @path's last component, and its length */
static int suffix_match(const char *path, size_t *ret_len)
{
	const char *base = strrchr(path, '/');
	size_t n, m, best = 0;
	int i, j, fmt = -EINVAL;

	base = base ? base + 1 : path;
	n = strlen(base);
	for (i = 0; i < EXPORT_FORMAT_MAX; i++)
		for (j = 0; j < EXPORT_SUFFIXES && formats[i].suffixes[j]; j++) {
			m = strlen(formats[i].suffixes[j]);
			if (n > m && m > best &&
			    !strcasecmp(base + n - m, formats[i].suffixes[j])) {
				best = m;
				fmt = i;
			}
		}
	*ret_len = best;
	return fmt;
}

int export_format_guess(const char *path)
{
	size_t len;

	return suffix_match(path, &len);
}

size_t export_suffix_len(const char *path)
{
	size_t len;

	suffix_match(path, &len);
	return len;
}

const char *export_format_line(enum export_format fmt)
{
	static char lines[EXPORT_FORMAT_MAX][128];
	const struct export_fmt *e = export_format_get((int)fmt);

	if (!e)
		return "";
	if (!lines[fmt][0])
		snprintf(lines[fmt], sizeof(lines[fmt]), "%-12s%s (%s)", e->name, e->help,
			 e->suffixes[0]);
	return lines[fmt];
}

int export_format_list(char *buf, size_t size, unsigned int with, unsigned int without,
		       const char *last)
{
	struct fmt_out o;
	int i, n = 0, left = 0;

	for (i = 0; i < EXPORT_FORMAT_MAX; i++)
		left += (formats[i].flags & with) == with && !(formats[i].flags & without);
	fmt_out_init(&o, buf, size);
	for (i = 0; i < EXPORT_FORMAT_MAX; i++) {
		if ((formats[i].flags & with) != with || formats[i].flags & without)
			continue;
		if (n)
			fmt_out_str(&o, n == left - 1 ? last : ", ");
		fmt_out_str(&o, formats[i].name);
		n++;
	}
	fmt_out_done(&o);
	return n;
}

int export_write(FILE *f, struct session *s, const struct report_opts *o, enum export_format fmt,
		 int iteration)
{
	const struct export_fmt *e = export_format_get((int)fmt);

	return e ? e->write(f, s, o, iteration) : -EINVAL;
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
		snprintf(err, errsz, "cannot write %s: no space left in %s (nothing written)", p,
			 d);
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
	{ PROC_SUPER_MAGIC, "procfs" },	    { SYSFS_MAGIC, "sysfs" },
	{ TRACEFS_MAGIC, "tracefs" },	    { DEBUGFS_MAGIC, "debugfs" },
	{ CGROUP_SUPER_MAGIC, "cgroupfs" }, { CGROUP2_SUPER_MAGIC, "cgroup2" },
	{ SECURITYFS_MAGIC, "securityfs" }, { BPF_FS_MAGIC, "bpffs" },
	{ DEVPTS_SUPER_MAGIC, "devpts" },   { PSTOREFS_MAGIC, "pstore" },
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
			snprintf(
				err, errsz,
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
