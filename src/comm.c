// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * comm.c - see comm.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"
#include "format.h"
#include "tfs.h"

#define COMM_SLOTS  16384
#define COMM_PROBES 16

struct comm_slot {
	int32_t pid; /* 0 = empty; pid 0 is never cached */
	bool negative;
	char comm[20];
};

struct comm_cache {
	struct comm_slot *slots;
	struct tfs *tfs;
	bool use_proc;
	bool cmdlines_read;
	comm_lookup_fn lookup;
	void *lookup_ctx;
};

struct comm_cache *comm_cache_new(struct tfs *tfs, bool use_proc)
{
	struct comm_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->slots = calloc(COMM_SLOTS, sizeof(*c->slots));
	if (!c->slots) {
		free(c);
		return NULL;
	}
	c->tfs = tfs;
	c->use_proc = use_proc && tfs;
	return c;
}

void comm_cache_set_lookup(struct comm_cache *c, comm_lookup_fn fn, void *ctx)
{
	c->lookup = fn;
	c->lookup_ctx = ctx;
}

/* a cache, not a record: after COMM_PROBES steps the home slot is recycled */
static struct comm_slot *comm_slot(struct comm_cache *c, int pid, bool insert)
{
	uint32_t h = (uint32_t)pid * 2654435761u;
	unsigned int i, n;

	for (n = 0, i = h & (COMM_SLOTS - 1); n < COMM_PROBES;
	     n++, i = (i + 1) & (COMM_SLOTS - 1)) {
		if (c->slots[i].pid == pid)
			return &c->slots[i];
		if (!c->slots[i].pid) {
			if (!insert)
				return NULL;
			c->slots[i].pid = pid;
			return &c->slots[i];
		}
	}
	if (!insert)
		return NULL;
	i = h & (COMM_SLOTS - 1);
	c->slots[i].pid = pid;
	return &c->slots[i];
}

static void comm_set(struct comm_cache *c, int pid, const char *comm, size_t len, bool negative)
{
	struct comm_slot *e = comm_slot(c, pid, true);

	e->negative = negative;
	fmt_sanitize(e->comm, sizeof(e->comm), comm, len < 16 ? len : 16);
}

static void comm_read_cmdlines(struct comm_cache *c)
{
	char *buf, *line, *save = NULL;

	c->cmdlines_read = true;
	if (tfs_read(c->tfs, "saved_cmdlines", &buf, NULL) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp;
		long pid = strtol(line, &sp, 10);

		if (sp == line || *sp != ' ' || pid <= 0 || pid > 0x7fffffff)
			continue;
		comm_set(c, (int)pid, sp + 1, strlen(sp + 1), false);
	}
	free(buf);
}

/* /proc/<pid>/comm into the cache; false when the process is gone */
static bool comm_from_proc(struct comm_cache *c, int pid)
{
	char path[64], buf[32];
	ssize_t n;
	int fd;

	/* the simulator's pids, or a recording's, are not ours to look up in /proc */
	if (!c->use_proc)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	comm_set(c, pid, buf, (size_t)n, false);
	return true;
}

const char *comm_cache_get(struct comm_cache *c, int pid)
{
	struct comm_slot *e;

	if (c->lookup && pid > 0 && !comm_slot(c, pid, false)) {
		const char *name = c->lookup(c->lookup_ctx, pid);

		if (name && strcmp(name, "<...>"))
			comm_set(c, pid, name, strlen(name), false);
	}

	if (pid == 0)
		return "<idle>";
	if (pid < 0)
		return "?";
	e = comm_slot(c, pid, false);
	if (e)
		return e->negative ? "?" : e->comm;
	if (!c->tfs) {
		/* a recording: its own cmdlines were asked above, nothing else applies */
		comm_set(c, pid, "?", 1, true);
		return "?";
	}
	if (!c->cmdlines_read) {
		comm_read_cmdlines(c);
		e = comm_slot(c, pid, false);
		if (e)
			return e->comm;
	}
	if (comm_from_proc(c, pid))
		return comm_slot(c, pid, false)->comm;
	comm_set(c, pid, "?", 1, true);
	return "?";
}

void comm_cache_learn(struct comm_cache *c, const int32_t *pids, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct comm_slot *e = comm_slot(c, pids[i], false);

		if (!e || e->negative)
			comm_from_proc(c, pids[i]);
	}
}

void comm_cache_tick(struct comm_cache *c)
{
	int i;

	c->cmdlines_read = false;
	for (i = 0; i < COMM_SLOTS; i++)
		if (c->slots[i].negative)
			c->slots[i].pid = 0, c->slots[i].negative = false;
}

void comm_cache_free(struct comm_cache *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}
