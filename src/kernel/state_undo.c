// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * state_undo.c - see state_undo.h.
 *
 * 'P' entries: the kernel has no way to take one pid out of a pid list
 * (trace_pid_write() only adds; O_TRUNC empties it), so the undo reads the
 * list and writes it back without the pid: pid_list_remove().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel/state_undo.h"
#include "kernel/tfs.h"

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

/*
 * pid_list_remove()'s buffer: static, for the signal handler may not
 * allocate. 64 KiB hold some 9000 pids; a longer list is left alone.
 */
static char pid_list_buf[64 * 1024];

/*
 * Take @pid (its decimal text) out of the pid list @rel: read the list,
 * then write it back without it (O_TRUNC empties the list, one write()
 * adds the rest). Plain system calls on a static buffer: async-signal-safe,
 * for state_emergency_restore() too. Not atomic: a pid another program
 * adds between the read and the write is lost, and for that moment the
 * list is empty. Return: 0 (also when the pid or the file is gone), -E2BIG
 * (a list too long to hold), -errno.
 */
static int pid_list_remove(struct tfs *t, const char *rel, const char *pid)
{
	size_t len = 0, out = 0, plen = strlen(pid), i;
	bool found = false;
	ssize_t n;
	int fd, r = 0;

	fd = tfs_open_file(t, rel, O_RDONLY);
	if (fd < 0)
		return fd == -ENOENT || fd == -ENODEV ? 0 : fd;
	while (len < sizeof(pid_list_buf)) {
		n = read(fd, pid_list_buf + len, sizeof(pid_list_buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r < 0)
		return r;
	if (len == sizeof(pid_list_buf))
		return -E2BIG;
	/* the pids but @pid, in place ("no pid" is words, not pids: dropped) */
	for (i = 0; i < len;) {
		size_t s, k;
		bool digits = true;

		while (i < len && (pid_list_buf[i] == ' ' || pid_list_buf[i] == '\n'))
			i++;
		for (s = i; i < len && pid_list_buf[i] != ' ' && pid_list_buf[i] != '\n'; i++)
			digits &= pid_list_buf[i] >= '0' && pid_list_buf[i] <= '9';
		if (i == s || !digits)
			continue;
		if (i - s == plen && !memcmp(pid_list_buf + s, pid, plen)) {
			found = true;
			continue;
		}
		for (k = s; k < i; k++)
			pid_list_buf[out++] = pid_list_buf[k];
		pid_list_buf[out++] = ' ';
	}
	if (!found)
		return 0;
	fd = tfs_open_file(t, rel, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return fd == -ENOENT || fd == -ENODEV ? 0 : fd;
	if (out) {
		do {
			n = write(fd, pid_list_buf, out);
		} while (n < 0 && errno == EINTR);
		if (n < 0)
			r = -errno;
		else if ((size_t)n != out)
			r = -EIO;
	}
	close(fd);
	return r;
}

int state_undo_one(struct tfs *t, char kind, const char *rel, const char *value)
{
	int r;

	if (kind == 'D')
		return rmdir_retry(t, rel);
	if (kind == 'P')
		return pid_list_remove(t, rel, value);
	if (kind == 'A') {
		r = tfs_write_mode(t, rel, value, O_APPEND);
		/* never made, or already gone with its instance */
		return r == -ENOENT || r == -ENODEV ? 0 : r;
	}
	r = tfs_write(t, rel, value);
	/* the instance it lived in is gone already: nothing to restore */
	return r == -ENOENT ? 0 : r;
}
