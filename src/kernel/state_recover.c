// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * state_recover.c - what a killed stacktop left (state.h): journals of
 * dead pids claimed (by rename: two runs never undo one journal twice)
 * and undone; whether a pid is a live stacktop (its lock, never its comm).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/format.h"
#include "core/log.h"
#include "kernel/state.h"
#include "kernel/state_priv.h"
#include "kernel/state_undo.h"
#include "kernel/tfs.h"

/*
 * Whether a process at @pid started no later than @t (CLOCK_REALTIME): the
 * one that named a file then, still running. A pid reused since (by any
 * user, whatever it calls itself) started after. /proc/<pid>/stat's start
 * time counts clock ticks since boot (CLOCK_BOOTTIME), truncated: never
 * later than the true start.
 */
static bool pid_started_by(int pid, const struct timespec *t)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks;
	struct timespec boot, real;
	long hz = sysconf(_SC_CLK_TCK);
	double start;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return false;
	buf[n] = '\0';
	/* field 22, 20 after the comm's last ')' (a comm may hold any) */
	p = strrchr(buf, ')');
	for (i = 0; i < 20 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1 || buf[strrchr(buf, ')') - buf + 2] == 'Z')
		return false;
	clock_gettime(CLOCK_BOOTTIME, &boot);
	clock_gettime(CLOCK_REALTIME, &real);
	start = (double)real.tv_sec + real.tv_nsec / 1e9 -
		((double)boot.tv_sec + boot.tv_nsec / 1e9 - (double)ticks / (double)hz);
	return start <= (double)t->tv_sec + t->tv_nsec / 1e9;
}

/*
 * Alive when its <pid>.lock is held. Without a lock file (someone removed
 * it, or an older version): when a process at @pid started before @named
 * (the journal, the claim, the instance) got its name, by its ctime; never
 * by the process's name, which any user can choose.
 */
static bool pid_alive_in(int dfd, int pid, const char *named)
{
	char lock[64];
	struct stat sb;
	int fd;
	bool alive;

	snprintf(lock, sizeof(lock), "%d.lock", pid);
	fd = openat(dfd, lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return named && fstatat(dfd, named, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		       pid_started_by(pid, &sb.st_ctim);
	alive = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return alive;
}

bool state_pid_is_stacktop(const char *rundir, int pid, const struct timespec *since)
{
	int dfd = state_dir_open(rundir, false);
	char lock[64];
	bool alive;

	snprintf(lock, sizeof(lock), "%d.lock", pid);
	if (dfd >= 0 && faccessat(dfd, lock, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		alive = pid_alive_in(dfd, pid, NULL);
		close(dfd);
		return alive;
	}
	if (dfd >= 0)
		close(dfd);
	return since && pid_started_by(pid, since);
}

/* @rel lies in a directory @e[0..n) removes ('D'): moot once that is gone */
static bool under_removed(const struct state_entry *e, int n, const char *rel)
{
	int i;

	for (i = 0; i < n; i++) {
		size_t len = strlen(e[i].rel);

		if (e[i].kind == 'D' && !strncmp(rel, e[i].rel, len) && rel[len] == '/')
			return true;
	}
	return false;
}

/* a value as the note shows it: sanitized, at most 32 bytes */
static void note_value(struct fmt_out *o, const char *v)
{
	size_t len = strlen(v);

	while (len && (v[len - 1] == '\n' || v[len - 1] == ' '))
		len--;
	if (!len) {
		fmt_out_str(o, "''");
		return;
	}
	fmt_out_sanitized(o, v, len > 32 ? 32 : len);
	if (len > 32)
		fmt_out_str(o, "...");
}

/* "GRP/EV" of a kprobe's undo line "-:GRP/EV", or NULL */
static const char *kprobe_name(const struct state_entry *e)
{
	const char *base = strrchr(e->rel, '/');

	base = base ? base + 1 : e->rel;
	if ((strcmp(base, "kprobe_events") && strcmp(base, "dynamic_events")) ||
	    strncmp(e->value, "-:", 2))
		return NULL;
	return e->value + 2;
}

/*
 * What undoing @e[0..n) (a journal, oldest first) does, for a person:
 * "removed instance stacktop.12; restored options/stackmap=0, tracing_on=1;
 * removed kprobe stacktop_12/vfs_read". Files inside a removed instance are
 * not named: they went with it.
 */
static void describe(const struct state_entry *e, int n, char *buf, size_t size)
{
	static const char *const heads[] = { "removed ", "restored ", "" };
	struct fmt_out o;
	int pass, i, k;

	fmt_out_init(&o, buf, size);
	for (pass = 0; pass < 3; pass++) {
		for (i = n - 1, k = 0; i >= 0; i--) {
			const struct state_entry *x = &e[i];
			const char *name;

			if ((pass == 0) != (x->kind == 'D') || (pass == 1) != (x->kind == 'W') ||
			    under_removed(e, n, x->rel))
				continue;
			if (o.len)
				fmt_out_str(&o, k ? ", " : "; ");
			if (!k++)
				fmt_out_str(&o, heads[pass]);
			if (pass == 0) {
				name = strncmp(x->rel, "instances/", 10) ? NULL : x->rel + 10;
				fmt_out_str(&o, name ? "instance " : "");
				name = name ? name : x->rel;
				fmt_out_sanitized(&o, name, strlen(name));
			} else if (pass == 1) {
				fmt_out_sanitized(&o, x->rel, strlen(x->rel));
				fmt_out_str(&o, "=");
				note_value(&o, x->value);
			} else if ((name = kprobe_name(x))) {
				fmt_out_str(&o, k > 1 ? "kprobe " : "removed kprobe ");
				note_value(&o, name);
			} else {
				fmt_out_str(&o, "appended ");
				note_value(&o, x->value);
				fmt_out_str(&o, " to ");
				fmt_out_sanitized(&o, x->rel, strlen(x->rel));
			}
		}
	}
	if (!o.len)
		fmt_out_str(&o, "nothing was changed yet");
	if (fmt_out_done(&o) >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

/*
 * Undo one claimed journal; returns 0, -EPERM (refused, said why) or the
 * first error. @what (may be NULL) gets what was undone, for a person.
 */
static int recover_file(struct tfs *tfs, FILE *f, int pid, char *what, size_t whatsz)
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
			root = state_hex_get(line + 5, strlen(line + 5));
			continue;
		}
		if (!line[0] || !strchr("WDAP", line[0]) || line[1] != ' ' || n >= STATE_MAX)
			continue;
		a = line + 2;
		b = strchr(a, ' ');
		e[n].kind = line[0];
		e[n].rel = state_hex_get(a, b ? (size_t)(b - a) : strlen(a));
		e[n].value = b ? state_hex_get(b + 1, strlen(b + 1)) : NULL;
		if (!e[n].rel || (e[n].kind != 'D' && !e[n].value)) {
			free(e[n].rel);
			free(e[n].value);
			continue;
		}
		n++;
	}
	/* no tracefs at hand (the guardian): the journal's own root, with the same checks */
	if (root && (!tfs || strcmp(root, tfs->root))) {
		char *real = realpath(root, NULL);

		/* journals record resolved paths: a symlink on the way now is not ours */
		if (real && strcmp(real, root))
			r = -EPERM;
		else
			r = tfs_open(root, &other);
		free(real);
		t = other;
		/* that tracefs (a simulator's mount, say) is gone: nothing left to undo */
		if (r == -ENOENT || r == -ENOTDIR) {
			r = 0;
			if (what) {
				struct fmt_out o;

				fmt_out_init(&o, what, whatsz);
				fmt_out_str(&o, "nothing: its tracefs ");
				fmt_out_sanitized(&o, root, strlen(root));
				fmt_out_str(&o, " is gone");
				fmt_out_done(&o);
				what = NULL;
			}
		}
		if (r == -EPERM) {
			char safe[256];

			/* the same checks as --tracefs: root writes only beneath a safe root */
			fmt_sanitize(safe, sizeof(safe), root, strlen(root));
			log_warn(
				"not undoing the journal of killed stacktop %d: its tracefs root %s is reached through a symlink, or is neither tracefs nor a root-owned directory only root can write",
				pid, safe);
		}
	} else if (!root && !tfs) {
		r = -EINVAL; /* no root named: nothing to undo it on */
	}
	if (what && whatsz)
		describe(e, n, what, whatsz);
	for (i = n - 1; i >= 0; i--) {
		if (t) {
			int u = state_undo_one(t, e[i].kind, e[i].rel, e[i].value);

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

/*
 * Undo the journal @name (<pid>.journal, or a dead recoverer's
 * <pid>.recovering.<by>) of the dead @pid: claimed by rename (a concurrent
 * recoverer loses it), undone, removed with the pid's lock file; kept
 * under its own name when something could not be undone. Returns 1 when
 * undone, 0 when someone else had it, -errno.
 */
static int recover_one(int dfd, struct tfs *tfs, const char *name, int pid, state_note_fn note,
		       void *ctx)
{
	char claim[128], orig[64], lock[64], what[STATE_NOTE_MAX];
	FILE *f;
	int fd, r;

	snprintf(orig, sizeof(orig), "%d.journal", pid);
	snprintf(claim, sizeof(claim), "%d.recovering.%d", pid, (int)getpid());
	if (renameat(dfd, name, dfd, claim) < 0)
		return errno == ENOENT ? 0 : -errno;
	fd = openat(dfd, claim, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		renameat(dfd, claim, dfd, orig);
		return r;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		renameat(dfd, claim, dfd, orig);
		return -ENOMEM;
	}
	what[0] = '\0';
	r = recover_file(tfs, f, pid, what, sizeof(what));
	fclose(f);
	if (r < 0) {
		/* keep it for a later try under its own name */
		renameat(dfd, claim, dfd, orig);
		if (note && r != -EPERM)
			note(ctx, pid, r, what);
		return r;
	}
	unlinkat(dfd, claim, 0);
	snprintf(lock, sizeof(lock), "%d.lock", pid);
	unlinkat(dfd, lock, 0);
	if (note)
		note(ctx, pid, 0, what);
	return 1;
}

int state_recover_noted(struct tfs *tfs, const char *rundir, state_note_fn note, void *ctx,
			int *ret_count)
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
		int pid, by = 0, fd, r, len = 0;

		/* a dead process's lock file with nothing left to undo */
		if (sscanf(de->d_name, "%d.lock%n", &pid, &len) == 1 && de->d_name[len] == '\0') {
			char jn[64];

			snprintf(jn, sizeof(jn), "%d.journal", pid);
			if (pid > 0 && pid != getpid() && !pid_alive_in(dfd, pid, NULL) &&
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
			if (pid > 0 && pid != getpid() && !pid_alive_in(dfd, pid, de->d_name))
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		/* <pid>.journal, or <pid>.recovering.<by> left by a recoverer that died */
		if (sscanf(de->d_name, "%d.journal%n", &pid, &len) == 1 &&
		    de->d_name[len] == '\0') {
			by = 0;
		} else if (sscanf(de->d_name, "%d.recovering.%d%n", &pid, &by, &len) == 2 &&
			   de->d_name[len] == '\0') {
			if (by <= 0 || by == getpid() || pid_alive_in(dfd, by, de->d_name))
				continue;
		} else {
			continue;
		}
		if (pid <= 0 || pid == getpid() || pid_alive_in(dfd, pid, de->d_name))
			continue;
		r = recover_one(dfd, tfs, de->d_name, pid, note, ctx);
		if (r > 0)
			count++;
		else if (r < 0 && r != -EPERM && !first)
			first = r;
	}
	closedir(d);
	if (ret_count)
		*ret_count = count;
	return first;
}

int state_recover(struct tfs *tfs, const char *rundir, int *ret_count)
{
	return state_recover_noted(tfs, rundir, NULL, NULL, ret_count);
}

int state_recover_pid(const char *rundir, int pid, state_note_fn note, void *ctx)
{
	char name[64];
	struct stat a, b;
	int dfd, lfd, r;

	dfd = state_dir_open(rundir, false);
	if (dfd < 0)
		return dfd == -ENOENT ? 0 : dfd;
	/*
	 * The journal is @pid's while it holds <pid>.lock: wait for the
	 * kernel to drop it (the process has ended, or its state_free() is
	 * done with the journal). Without the file there is no journal, or
	 * its own restore removed both.
	 */
	snprintf(name, sizeof(name), "%d.lock", pid);
	lfd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (lfd >= 0)
		while (flock(lfd, LOCK_EX) < 0 && errno == EINTR)
			;
	snprintf(name, sizeof(name), "%d.journal", pid);
	r = recover_one(dfd, NULL, name, pid, note, ctx);
	/* the lock file is ours now; unlinked only if no new run took its name */
	snprintf(name, sizeof(name), "%d.lock", pid);
	if (lfd >= 0 && fstat(lfd, &a) == 0 && fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
		unlinkat(dfd, name, 0);
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	return r;
}
