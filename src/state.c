// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * state.c - see state.h.
 *
 * Journal file, one line each:
 *
 *	stacktop-journal 1
 *	pid <pid>
 *	root <hex of the tracefs root path>
 *	W <hex of rel path> <hex of original value>
 *	D <hex of rel path>
 *	A <hex of rel path> <hex of the line to append on undo>
 *
 * 'A' undoes what cannot be undone by writing an old value back: a kprobe
 * event (`-:GROUP/EVENT` appended to kprobe_events; O_TRUNC there would
 * remove every probe) or a trigger (`!stacktrace` appended to the trigger
 * file). It is journaled before the change, so its undo may meet nothing
 * to remove (ENOENT, which counts as done).
 *
 * Hex keeps any byte of a path or a value on one line.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "log.h"
#include "state.h"
#include "tfs.h"

#define STATE_RUNDIR "/run/stacktop"
#define STATE_MAX    256

struct state_entry {
	char kind; /* 'W', 'D' or 'A' */
	char *rel;
	char *value;
};

struct state {
	struct tfs *tfs;
	int dirfd;
	int lockfd; /* the top-level claim (the flock()ed tracefs root), -1 when not held */
	int alivefd; /* <pid>.lock, flock()ed for the life of the process */
	char name[64];
	char lockname[64];
	struct state_entry e[STATE_MAX];
	volatile int n; /* read by the signal handler */
};

static struct state *state_current;

static int state_dir_open(const char *rundir, bool create)
{
	struct stat st;
	int fd;

	if (!rundir)
		rundir = STATE_RUNDIR;
	if (create && mkdir(rundir, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = open(rundir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static void hex_put(FILE *f, const char *s)
{
	if (!*s)
		fputc('-', f);
	for (; *s; s++)
		fprintf(f, "%02x", (unsigned char)*s);
}

static char *hex_get(const char *h, size_t len)
{
	char *s, *p;
	size_t i;

	if (len == 1 && h[0] == '-')
		return strdup("");
	if (len % 2)
		return NULL;
	s = malloc(len / 2 + 1);
	if (!s)
		return NULL;
	for (i = 0, p = s; i < len; i += 2) {
		unsigned int v;
		char pair[3] = { h[i], h[i + 1], 0 };

		if (sscanf(pair, "%2x", &v) != 1 || !v) {
			free(s);
			return NULL;
		}
		*p++ = (char)v;
	}
	*p = '\0';
	return s;
}

static int state_save(struct state *st)
{
	char tmp[80];
	FILE *f;
	int fd, i, r = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", st->name);
	unlinkat(st->dirfd, tmp, 0);
	fd = openat(st->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	errno = 0;
	fprintf(f, "stacktop-journal 1\npid %d\nroot ", (int)getpid());
	hex_put(f, st->tfs->root);
	fputc('\n', f);
	for (i = 0; i < st->n; i++) {
		fprintf(f, "%c ", st->e[i].kind);
		hex_put(f, st->e[i].rel);
		if (st->e[i].kind == 'W' || st->e[i].kind == 'A') {
			fputc(' ', f);
			hex_put(f, st->e[i].value);
		}
		fputc('\n', f);
	}
	/* the real reason (ENOSPC, EDQUOT, EIO), not a generic one */
	if (fflush(f) || ferror(f))
		r = errno ? -errno : -EIO;
	else if (fsync(fd) < 0)
		r = -errno;
	if (fclose(f) && !r)
		r = errno ? -errno : -EIO;
	if (r < 0) {
		unlinkat(st->dirfd, tmp, 0);
		return r;
	}
	if (renameat(st->dirfd, tmp, st->dirfd, st->name) < 0) {
		r = -errno;
		unlinkat(st->dirfd, tmp, 0);
		return r;
	}
	return 0;
}

int state_open(struct tfs *tfs, const char *rundir, struct state **ret)
{
	struct state *st = calloc(1, sizeof(*st));
	int r;

	if (!st)
		return -ENOMEM;
	st->tfs = tfs;
	st->lockfd = -1;
	st->alivefd = -1;
	st->dirfd = state_dir_open(rundir, true);
	if (st->dirfd < 0) {
		r = st->dirfd;
		free(st);
		return r;
	}
	snprintf(st->name, sizeof(st->name), "%d.journal", (int)getpid());
	{
		char lock[64];

		/* held while we live: a recoverer that can take it knows we are gone */
		snprintf(lock, sizeof(lock), "%d.lock", (int)getpid());
		snprintf(st->lockname, sizeof(st->lockname), "%s", lock);
		st->alivefd = openat(st->dirfd, lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (st->alivefd < 0 || flock(st->alivefd, LOCK_EX | LOCK_NB) < 0) {
			r = -errno;
			if (st->alivefd >= 0) {
				unlinkat(st->dirfd, lock, 0);
				close(st->alivefd);
			}
			close(st->dirfd);
			free(st);
			return r;
		}
	}
	r = state_save(st);
	if (r < 0) {
		unlinkat(st->dirfd, st->lockname, 0);
		close(st->alivefd);
		close(st->dirfd);
		free(st);
		return r;
	}
	state_current = st;
	*ret = st;
	return 0;
}

static char *trim_dup(const char *s)
{
	size_t len = strlen(s);

	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	return strndup(s, len);
}

/* a choice file ("[local] global counter"): what restores it is the choice */
static char *selected_dup(const char *rel, const char *s)
{
	const char *base = strrchr(rel, '/'), *b, *e;

	base = base ? base + 1 : rel;
	if (strcmp(base, "trace_clock"))
		return trim_dup(s);
	b = strchr(s, '[');
	e = b ? strchr(b, ']') : NULL;
	if (!e || e == b + 1)
		return trim_dup(s);
	return strndup(b + 1, (size_t)(e - b - 1));
}

static int state_push(struct state *st, char kind, const char *rel, const char *value)
{
	struct state_entry *e;
	int r;

	if (st->n >= STATE_MAX)
		return -ENOSPC;
	e = &st->e[st->n];
	e->kind = kind;
	e->rel = strdup(rel);
	e->value = value ? strdup(value) : NULL;
	if (!e->rel || (value && !e->value)) {
		free(e->rel);
		free(e->value);
		return -ENOMEM;
	}
	/* the signal handler reads e[0..n): publish the entry before the count */
	atomic_signal_fence(memory_order_release);
	st->n++;
	r = state_save(st);
	if (r < 0) {
		st->n--;
		free(e->rel);
		free(e->value);
	}
	return r;
}

static void state_pop(struct state *st)
{
	st->n--;
	free(st->e[st->n].rel);
	free(st->e[st->n].value);
	state_save(st);
}

/*
 * What restores a file that read as @orig: most files take back what they
 * showed, a few show their empty state in words the kernel would not take.
 */
static void restore_form(const char *rel, char *orig)
{
	size_t len = strlen(rel);

	if (len >= 7 && !strcmp(rel + len - 7, "/filter") && !strcmp(orig, "none"))
		strcpy(orig, "0"); /* `0` clears a filter; `none` is a parse error */
	else if (len >= 7 && !strcmp(rel + len - 7, "/enable") &&
		 (orig[0] == '0' || orig[0] == '1') && orig[1] == '*')
		orig[1] = '\0'; /* "0*": soft-enabled by a trigger; the kernel takes only 0 or 1 */
	else if (!strncmp(orig, "####", 4) || !strcmp(orig, "no pid"))
		orig[0] = '\0'; /* set_ftrace_filter/notrace, *_pid: O_TRUNC empties them */
}

int state_write(struct state *st, const char *rel, const char *value)
{
	char *cur = NULL, *orig;
	int r;

	/* changed before: the first entry keeps the original, no second one */
	if (state_original(st, rel))
		return tfs_write(st->tfs, rel, value);
	r = tfs_read(st->tfs, rel, &cur, NULL);
	if (r < 0)
		return r;
	orig = selected_dup(rel, cur);
	free(cur);
	if (!orig)
		return -ENOMEM;
	restore_form(rel, orig);
	if (!strcmp(orig, value)) {
		free(orig);
		return 0;
	}
	r = state_push(st, 'W', rel, orig);
	free(orig);
	if (r < 0)
		return r;
	r = tfs_write(st->tfs, rel, value);
	if (r < 0)
		state_pop(st);
	return r;
}

int state_append(struct state *st, const char *rel, const char *line, const char *undo)
{
	int r = state_push(st, 'A', rel, undo);

	if (r < 0)
		return r;
	r = tfs_write_mode(st->tfs, rel, line, O_APPEND);
	if (r < 0)
		state_pop(st);
	return r;
}

int state_mkdir(struct state *st, const char *rel)
{
	int r = state_push(st, 'D', rel, NULL);

	if (r < 0)
		return r;
	r = tfs_mkdir(st->tfs, rel);
	if (r < 0)
		state_pop(st);
	return r;
}

const char *state_original(struct state *st, const char *rel)
{
	int i;

	for (i = 0; i < st->n; i++)
		if (st->e[i].kind == 'W' && !strcmp(st->e[i].rel, rel))
			return st->e[i].value;
	return NULL;
}

static int rmdir_retry(struct tfs *t, const char *rel)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int r, tries;

	/* readers of the instance may still be closing: EBUSY for a moment */
	for (tries = 0; tries < 50; tries++) {
		r = tfs_rmdir(t, rel);
		if (r != -EBUSY)
			break;
		nanosleep(&ts, NULL);
	}
	return r == -ENOENT ? 0 : r;
}

static int undo_one(struct tfs *t, char kind, const char *rel, const char *value)
{
	int r;

	if (kind == 'D')
		return rmdir_retry(t, rel);
	if (kind == 'A') {
		r = tfs_write_mode(t, rel, value, O_APPEND);
		/* never made, or already gone with its instance */
		return r == -ENOENT || r == -ENODEV ? 0 : r;
	}
	r = tfs_write(t, rel, value);
	/* the instance it lived in is gone already: nothing to restore */
	return r == -ENOENT ? 0 : r;
}

int state_restore(struct state *st)
{
	int i, r, first = 0;

	for (i = st->n - 1; i >= 0; i--) {
		r = undo_one(st->tfs, st->e[i].kind, st->e[i].rel, st->e[i].value);
		if (r < 0 && !first)
			first = r;
	}
	if (first)
		return first;
	i = st->n;
	st->n = 0; /* before the frees: the signal handler must not see them */
	atomic_signal_fence(memory_order_seq_cst);
	while (i-- > 0) {
		free(st->e[i].rel);
		free(st->e[i].value);
	}
	unlinkat(st->dirfd, st->name, 0);
	return 0;
}

void state_free(struct state *st)
{
	int i;

	if (!st)
		return;
	if (state_current == st)
		state_current = NULL;
	for (i = 0; i < st->n; i++) {
		free(st->e[i].rel);
		free(st->e[i].value);
	}
	if (st->lockfd >= 0)
		close(st->lockfd);
	if (st->alivefd >= 0) {
		char lock[64];

		snprintf(lock, sizeof(lock), "%d.lock", (int)getpid());
		unlinkat(st->dirfd, lock, 0);
		close(st->alivefd);
	}
	close(st->dirfd);
	free(st);
}

/* the pid holding an flock() on dev/ino, from /proc/locks; 0 if unknown */
static int flock_owner(dev_t dev, ino_t ino)
{
	char line[256];
	int owner = 0;
	FILE *f = fopen("/proc/locks", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned int maj, mnr;
		unsigned long long i;
		int pid;

		/* "1: FLOCK  ADVISORY  WRITE 22711 00:0d:1 0 EOF" */
		if (sscanf(line, "%*d: FLOCK %*s %*s %d %x:%x:%llu", &pid, &maj, &mnr, &i) != 4)
			continue;
		if (maj == major(dev) && mnr == minor(dev) && i == (unsigned long long)ino &&
		    pid != getpid()) {
			owner = pid;
			break;
		}
	}
	fclose(f);
	return owner;
}

int state_lock_top(struct state *st, int *ret_owner)
{
	struct stat sb;
	int fd;

	*ret_owner = 0;
	if (st->lockfd >= 0)
		return 0;
	/*
	 * An flock() on the tracefs root directory itself: one lock per
	 * tracefs whatever --rundir says, no file to create or clean up, and
	 * the kernel drops it however the process ends.
	 */
	fd = tfs_resolve(st->tfs->fd, ".", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int r = errno == EWOULDBLOCK ? -EBUSY : -errno;

		if (r == -EBUSY && fstat(fd, &sb) == 0)
			*ret_owner = flock_owner(sb.st_dev, sb.st_ino);
		close(fd);
		return r;
	}
	st->lockfd = fd;
	return 0;
}

/* close every fd from @lo up to @hi (inclusive), if any */
static void close_span(int lo, int hi)
{
	if (lo <= hi)
		close_range((unsigned int)lo, (unsigned int)hi, 0);
}

/* close_range() is a system call: async-signal-safe */
static void close_all_but(int a, int b, int c)
{
	int keep[3] = { a, b, c }, i, j, t, next = 3;

	/* sort the three (a missing one is -1) */
	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			if (keep[j] < keep[i]) {
				t = keep[i];
				keep[i] = keep[j];
				keep[j] = t;
			}
	for (i = 0; i < 3; i++) {
		if (keep[i] < next)
			continue;
		close_span(next, keep[i] - 1);
		next = keep[i] + 1;
	}
	close_range((unsigned int)next, ~0U, 0);
}

void state_emergency_restore(void)
{
	struct state *st = state_current;
	int i, fd, failed = 0;

	if (!st)
		return;
	/*
	 * Readers hold the instance busy: close everything but the tracefs
	 * root, the rundir and the liveness lock. The lock stays held until
	 * the journal is gone: a stacktop starting meanwhile must not take
	 * this one for dead and recover the journal under our feet.
	 */
	close_all_but(st->tfs->fd, st->dirfd, st->alivefd);
	for (i = st->n - 1; i >= 0; i--) {
		const struct state_entry *e = &st->e[i];

		/* beneath the root, no symlinks: the same resolution as tfs_write() */
		if (e->kind == 'D') {
			fd = tfs_rmdir(st->tfs, e->rel);
			if (fd < 0 && fd != -ENOENT)
				failed = 1;
			continue;
		}
		fd = tfs_open_file(st->tfs, e->rel, O_WRONLY | (e->kind == 'A' ? O_APPEND : O_TRUNC));
		if (fd < 0) {
			failed |= fd != -ENOENT;
			continue;
		}
		if (write(fd, e->value, strlen(e->value)) < 0 && (e->kind != 'A' || errno != ENOENT))
			failed = 1;
		close(fd);
	}
	/* kept when something could not be undone: the next run retries */
	if (!failed) {
		unlinkat(st->dirfd, st->name, 0);
		unlinkat(st->dirfd, st->lockname, 0);
	}
}

static bool pid_is_stacktop_comm(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (kill(pid, 0) < 0 && errno != EPERM)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strncmp(comm, "stacktop", 8);
}

/* alive when its <pid>.lock is held; without a lock file, by its comm */
static bool pid_alive_in(int dfd, int pid)
{
	char lock[64];
	int fd;
	bool alive;

	snprintf(lock, sizeof(lock), "%d.lock", pid);
	fd = openat(dfd, lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return pid_is_stacktop_comm(pid);
	alive = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return alive;
}

bool state_pid_is_stacktop(const char *rundir, int pid)
{
	int dfd = state_dir_open(rundir, false);
	bool alive;

	if (dfd < 0)
		return pid_is_stacktop_comm(pid);
	alive = pid_alive_in(dfd, pid);
	close(dfd);
	return alive;
}

/* undo one claimed journal; returns 0, -EPERM (refused, said why) or the first error */
static int recover_file(struct tfs *tfs, FILE *f, int pid)
{
	struct state_entry e[STATE_MAX];
	char line[8192], *root = NULL;
	struct tfs *other = NULL, *t = tfs;
	int n = 0, i, r = 0;

	while (fgets(line, sizeof(line), f)) {
		char *a, *b;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "root ", 5)) {
			free(root);
			root = hex_get(line + 5, strlen(line + 5));
			continue;
		}
		if ((line[0] != 'W' && line[0] != 'D' && line[0] != 'A') || line[1] != ' ' ||
		    n >= STATE_MAX)
			continue;
		a = line + 2;
		b = strchr(a, ' ');
		e[n].kind = line[0];
		e[n].rel = hex_get(a, b ? (size_t)(b - a) : strlen(a));
		e[n].value = b ? hex_get(b + 1, strlen(b + 1)) : NULL;
		if (!e[n].rel || (e[n].kind != 'D' && !e[n].value)) {
			free(e[n].rel);
			free(e[n].value);
			continue;
		}
		n++;
	}
	if (root && strcmp(root, tfs->root)) {
		char *real = realpath(root, NULL);

		/* journals record resolved paths: a symlink on the way now is not ours */
		if (real && strcmp(real, root))
			r = -EPERM;
		else
			r = tfs_open(root, &other);
		free(real);
		t = other;
		/* that tracefs (a simulator's mount, say) is gone: nothing left to undo */
		if (r == -ENOENT || r == -ENOTDIR)
			r = 0;
		if (r == -EPERM) {
			char safe[256];

			/* the same checks as --tracefs: root writes only beneath a safe root */
			fmt_sanitize(safe, sizeof(safe), root, strlen(root));
			log_warn("not undoing the journal of killed stacktop %d: its tracefs root %s is reached through a symlink, or is neither tracefs nor a root-owned directory only root can write",
				 pid, safe);
		}
	}
	for (i = n - 1; i >= 0; i--) {
		if (t) {
			int u = undo_one(t, e[i].kind, e[i].rel, e[i].value);

			if (u < 0 && !r)
				r = u;
		}
		free(e[i].rel);
		free(e[i].value);
	}
	tfs_close(other);
	free(root);
	return r;
}

int state_recover(struct tfs *tfs, const char *rundir, int *ret_count)
{
	struct dirent *de;
	int dfd, count = 0, first = 0;
	DIR *d;

	if (ret_count)
		*ret_count = 0;
	dfd = state_dir_open(rundir, false);
	/* an unsafe directory is not read; state_open() refuses it and says so */
	if (dfd == -ENOENT || dfd == -EPERM)
		return 0;
	if (dfd < 0)
		return dfd;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		char claim[128], orig[64], lock[64];
		int pid, by = 0, fd, r, len = 0;
		FILE *f;

		/* a dead process's lock file with nothing left to undo */
		if (sscanf(de->d_name, "%d.lock%n", &pid, &len) == 1 && de->d_name[len] == '\0') {
			char jn[64];

			snprintf(jn, sizeof(jn), "%d.journal", pid);
			if (pid > 0 && pid != getpid() && !pid_alive_in(dfd, pid) &&
			    faccessat(dfd, jn, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		/* the per-rundir top-level lock files of older versions: unlink under the lock */
		if (!strncmp(de->d_name, "top-", 4) && strlen(de->d_name) > 9 &&
		    !strcmp(de->d_name + strlen(de->d_name) - 5, ".lock")) {
			fd = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
				unlinkat(dfd, de->d_name, 0);
			if (fd >= 0)
				close(fd);
			continue;
		}
		/* a journal being saved when its process was killed */
		if (sscanf(de->d_name, "%d.journal.tmp%n", &pid, &len) == 1 &&
		    de->d_name[len] == '\0') {
			if (pid > 0 && pid != getpid() && !pid_alive_in(dfd, pid))
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		/* <pid>.journal, or <pid>.recovering.<by> left by a recoverer that died */
		if (sscanf(de->d_name, "%d.journal%n", &pid, &len) == 1 &&
		    de->d_name[len] == '\0') {
			by = 0;
		} else if (sscanf(de->d_name, "%d.recovering.%d%n", &pid, &by, &len) == 2 &&
			   de->d_name[len] == '\0') {
			if (by <= 0 || by == getpid() || pid_alive_in(dfd, by))
				continue;
		} else {
			continue;
		}
		if (pid <= 0 || pid == getpid() || pid_alive_in(dfd, pid))
			continue;
		snprintf(orig, sizeof(orig), "%d.journal", pid);
		/* claim it: a concurrent recoverer loses the rename */
		snprintf(claim, sizeof(claim), "%d.recovering.%d", pid, (int)getpid());
		if (renameat(dfd, de->d_name, dfd, claim) < 0)
			continue;
		fd = openat(dfd, claim, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		f = fdopen(fd, "r");
		if (!f) {
			close(fd);
			continue;
		}
		r = recover_file(tfs, f, pid);
		fclose(f);
		if (r < 0) {
			/* keep it for a later try under its own name */
			renameat(dfd, claim, dfd, orig);
			if (!first && r != -EPERM)
				first = r;
		} else {
			unlinkat(dfd, claim, 0);
			snprintf(lock, sizeof(lock), "%d.lock", pid);
			unlinkat(dfd, lock, 0);
			count++;
		}
	}
	closedir(d);
	if (ret_count)
		*ret_count = count;
	return first;
}
