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
 *	P <hex of rel path> <hex of a pid>
 *
 * 'A' undoes what cannot be undone by writing an old value back: a kprobe
 * event (`-:GROUP/EVENT` appended to kprobe_events; O_TRUNC there would
 * remove every probe) or a trigger (`!stacktrace` appended to the trigger
 * file). It is journaled before the change, so its undo may meet nothing
 * to remove (ENOENT, which counts as done).
 *
 * 'P' undoes a pid appended to a pid list (set_event_notrace_pid,
 * set_ftrace_notrace_pid: stacktop's own pid, left out of the user's
 * tracing). The undo of each kind is state_undo.c's.
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

#include "core/format.h"
#include "core/log.h"
#include "kernel/state.h"
#include "kernel/state_priv.h"
#include "kernel/state_undo.h"
#include "kernel/tfs.h"

#define STATE_MAX 256

struct state {
	struct tfs *tfs;
	int dirfd;
	int lockfd;  /* the top-level claim (the flock()ed tracefs root), -1 when not held */
	int alivefd; /* <pid>.lock, flock()ed for the life of the process */
	char name[64];
	char lockname[64];
	struct state_entry e[STATE_MAX];
	volatile int n; /* read by the signal handler */
};

static struct state *state_current;

/*
 * Who may touch the journal: 0 nobody, 1 the main path (a push, a pop, the
 * restore, the free), 2 the signals' watchdog thread (its emergency
 * restore; it never gives it back: the process ends). The main path finding
 * the watchdog there waits for the end.
 */
static atomic_int state_owner;

static void state_take(void)
{
	int was = 0;

	while (!atomic_compare_exchange_strong(&state_owner, &was, 1)) {
		if (was == 1)
			return; /* already ours */
		pause();	/* the watchdog restores and ends the process */
		was = 0;
	}
}

static void state_give(void)
{
	atomic_store(&state_owner, 0);
}

int state_dir_open(const char *rundir, bool create)
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

char *state_hex_get(const char *h, size_t len)
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
		if (st->e[i].kind != 'D') {
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
		st->alivefd =
			openat(st->dirfd, lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
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

static int state_push_locked(struct state *st, char kind, const char *rel, const char *value)
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

static int state_push(struct state *st, char kind, const char *rel, const char *value)
{
	int r;

	state_take();
	r = state_push_locked(st, kind, rel, value);
	state_give();
	return r;
}

static void state_pop(struct state *st)
{
	state_take();
	st->n--;
	free(st->e[st->n].rel);
	free(st->e[st->n].value);
	state_save(st);
	state_give();
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

/* does the pid list @list (one a line, or "no pid") hold @pid? */
static bool pid_list_has(const char *list, const char *pid)
{
	size_t n = strlen(pid);
	const char *p = list;

	while ((p = strstr(p, pid))) {
		if ((p == list || p[-1] == '\n' || p[-1] == ' ') &&
		    (p[n] == '\n' || p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

int state_append_pid(struct state *st, const char *rel, int pid)
{
	char val[16], *cur = NULL;
	int r;

	snprintf(val, sizeof(val), "%d", pid);
	r = tfs_read(st->tfs, rel, &cur, NULL);
	if (r < 0)
		return r;
	/* already there (put by its owner): not ours to take out */
	if (pid_list_has(cur, val)) {
		free(cur);
		return 0;
	}
	free(cur);
	r = state_push(st, 'P', rel, val);
	if (r < 0)
		return r;
	/* no O_TRUNC: the kernel adds the pid to what the list holds */
	r = tfs_write_mode(st->tfs, rel, val, O_APPEND);
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

/* @rel lies inside the directory @dir (an instance) */
static bool state_inside(const char *rel, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(rel, dir, n) && rel[n] == '/';
}

/*
 * An instance stacktop made goes first, whole: its rmdir takes every file
 * in it along (its events, options, pid lists, triggers and clock), so
 * what the journal says of them needs no undo. Writing an instance's
 * trace_clock back reset its buffer (24 ms) before the rmdir removed it.
 * An instance that cannot go yet (EBUSY) is undone entry by entry below,
 * newest first, and removed in its turn. @done: entries taken care of.
 */
static void state_rmdir_first(struct state *st, bool *done)
{
	int i, j;

	for (i = st->n - 1; i >= 0; i--) {
		if (st->e[i].kind != 'D' ||
		    state_undo_one(st->tfs, 'D', st->e[i].rel, st->e[i].value) < 0)
			continue;
		done[i] = true;
		for (j = i + 1; j < st->n; j++)
			if (state_inside(st->e[j].rel, st->e[i].rel))
				done[j] = true;
	}
}

int state_restore(struct state *st)
{
	bool done[STATE_MAX] = { false };
	int i, r, first = 0;

	state_take();
	state_rmdir_first(st, done);
	for (i = st->n - 1; i >= 0; i--) {
		if (done[i])
			continue;
		r = state_undo_one(st->tfs, st->e[i].kind, st->e[i].rel, st->e[i].value);
		if (r < 0 && !first)
			first = r;
	}
	if (first) {
		state_give();
		return first;
	}
	i = st->n;
	st->n = 0; /* before the frees: the signal handler must not see them */
	atomic_signal_fence(memory_order_seq_cst);
	while (i-- > 0) {
		free(st->e[i].rel);
		free(st->e[i].value);
	}
	unlinkat(st->dirfd, st->name, 0);
	state_give();
	return 0;
}

void state_free(struct state *st)
{
	int i;

	if (!st)
		return;
	state_take(); /* kept: nothing is left for the watchdog to restore */
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
		if (e->kind == 'P') {
			failed |= state_undo_one(st->tfs, e->kind, e->rel, e->value) < 0;
			continue;
		}
		fd = tfs_open_file(st->tfs, e->rel,
				   O_WRONLY | (e->kind == 'A' ? O_APPEND : O_TRUNC));
		if (fd < 0) {
			failed |= fd != -ENOENT;
			continue;
		}
		if (write(fd, e->value, strlen(e->value)) < 0 &&
		    (e->kind != 'A' || errno != ENOENT))
			failed = 1;
		close(fd);
	}
	/* kept when something could not be undone: the next run retries */
	if (!failed) {
		unlinkat(st->dirfd, st->name, 0);
		unlinkat(st->dirfd, st->lockname, 0);
	}
}

bool state_emergency_restore_from_thread(unsigned int wait_ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	unsigned int waited = 0;
	int was = 0;

	while (!atomic_compare_exchange_strong(&state_owner, &was, 2)) {
		if (was == 2 || waited >= wait_ms)
			return false; /* the main path is in the middle of it: its journal stays */
		nanosleep(&ts, NULL);
		waited += 10;
		was = 0;
	}
	state_emergency_restore();
	return true;
}
