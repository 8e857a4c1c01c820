// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * state_recover.c - what a killed stacktop left (state.h): journals of
 * dead pids claimed (by rename: two runs never undo one journal twice)
 * and undone; whether a pid is a live stacktop.
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
#include <unistd.h>

#include "core/format.h"
#include "core/log.h"
#include "kernel/state.h"
#include "kernel/state_priv.h"
#include "kernel/state_undo.h"
#include "kernel/tfs.h"

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
			root = state_hex_get(line + 5, strlen(line + 5));
			continue;
		}
		if (!line[0] || !strchr("WDAP", line[0]) || line[1] != ' ' ||
		    n >= STATE_MAX)
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
