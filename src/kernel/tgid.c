// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tgid.c - see tgid.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pidcache.h"
#include "kernel/tfs.h"
#include "kernel/tgid.h"

#define TGID_SLOTS 16384

/* a thread's entry in the cache */
struct tgid_slot {
	int32_t tgid; /* -1: unknown until the next tick */
	bool saved;   /* from saved_tgids, not checked against /proc yet */
};

struct tgid_cache {
	struct pidcache slots;
	struct tfs *tfs;
	bool use_proc;
	bool saved_read; /* saved_tgids read since the last tick */
};

struct tgid_cache *tgid_cache_new(struct tfs *tfs, bool use_proc)
{
	struct tgid_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (pidcache_init(&c->slots, TGID_SLOTS, sizeof(struct tgid_slot)) < 0) {
		free(c);
		return NULL;
	}
	c->tfs = tfs;
	c->use_proc = use_proc;
	return c;
}

static struct tgid_slot *tgid_slot(struct tgid_cache *c, int tid)
{
	return pidcache_find(&c->slots, tid);
}

static void tgid_set(struct tgid_cache *c, int tid, int tgid)
{
	struct tgid_slot *e = pidcache_add(&c->slots, tid);

	e->tgid = tgid;
	e->saved = false;
}

int tgid_of_proc(int tid, int *ret)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	if (tid <= 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	buf[n] = '\0';
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -EBADMSG;
	*ret = (int)strtol(p + 6, NULL, 10);
	return *ret > 0 ? 0 : -EBADMSG;
}

/* saved_tgids: "<pid> <tgid>\n" per thread the kernel recorded (record-tgid) */
static void tgid_read_saved(struct tgid_cache *c)
{
	char *buf, *line, *save = NULL;

	c->saved_read = true;
	if (!c->tfs || tfs_read(c->tfs, "saved_tgids", &buf, NULL) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp, *end;
		long tid = strtol(line, &sp, 10), tgid;
		struct tgid_slot *e;

		if (sp == line || *sp != ' ' || tid <= 0 || tid > 0x7fffffff)
			continue;
		tgid = strtol(sp + 1, &end, 10);
		if (end == sp + 1 || *end || tgid <= 0 || tgid > 0x7fffffff)
			continue;
		/* only fills in what /proc could not say */
		e = tgid_slot(c, (int)tid);
		if (!e || e->tgid < 0) {
			tgid_set(c, (int)tid, (int)tgid);
			tgid_slot(c, (int)tid)->saved = true;
		}
	}
	free(buf);
}

int tgid_cache_get(struct tgid_cache *c, int tid)
{
	struct tgid_slot *e;
	int tgid;

	if (tid <= 0)
		return -1;
	e = tgid_slot(c, tid);
	if (e && e->saved && c->use_proc) {
		/*
		 * saved_tgids is the kernel's map by pid, never cleared: the
		 * line of a pid is its last owner's, and it was read whole, so
		 * it names pids that have been reused since (or will be: a
		 * thread started later). A live task's /proc says who it is.
		 */
		e->saved = false;
		if (tgid_of_proc(tid, &tgid) == 0)
			e->tgid = tgid;
		return e->tgid;
	}
	if (e)
		return e->tgid;
	if (c->use_proc && tgid_of_proc(tid, &tgid) == 0) {
		tgid_set(c, tid, tgid);
		return tgid;
	}
	if (!c->saved_read) {
		tgid_read_saved(c);
		e = tgid_slot(c, tid);
		if (e)
			return e->tgid;
	}
	tgid_set(c, tid, -1);
	return -1;
}

static bool tgid_unknown(const void *val)
{
	return ((const struct tgid_slot *)val)->tgid < 0;
}

void tgid_cache_tick(struct tgid_cache *c)
{
	c->saved_read = false;
	pidcache_forget(&c->slots, tgid_unknown);
}

void tgid_cache_free(struct tgid_cache *c)
{
	if (!c)
		return;
	pidcache_done(&c->slots);
	free(c);
}

int tgid_threads(int tgid, int **ret, int *ret_n)
{
	char path[64];
	struct dirent *d;
	int *v = NULL, n = 0, cap = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		char *end;
		long tid = strtol(d->d_name, &end, 10);

		if (end == d->d_name || *end || tid <= 0)
			continue;
		if (n == cap) {
			int *nv;

			cap = cap ? cap * 2 : 16;
			nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(dir);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = (int)tid;
	}
	closedir(dir);
	*ret = v;
	*ret_n = n;
	return 0;
}
