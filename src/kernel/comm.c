// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * comm.c - see comm.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/comm.h"
#include "core/format.h"
#include "core/pidcache.h"
#include "kernel/tfs.h"

#define COMM_SLOTS 16384

/* a pid's entry in the cache (pid 0 is never cached) */
struct comm_slot {
	bool negative;
	char comm[20];
};

/* a saved_cmdlines entry that could only have been written for its pid */
struct cmdline {
	int32_t pid;
	char comm[COMM_NAME_MAX + 1];
};

struct comm_cache {
	struct pidcache slots;
	struct tfs *tfs;
	bool use_proc;
	bool cmdlines_read;
	struct cmdline *cmdlines; /* sorted by pid */
	size_t ncmdlines;
	comm_lookup_fn lookup;
	void *lookup_ctx;
	uint64_t unnamed; /* lookups no source answered (comm_cache_unnamed()) */
};

struct comm_cache *comm_cache_new(struct tfs *tfs, bool use_proc)
{
	struct comm_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (pidcache_init(&c->slots, COMM_SLOTS, sizeof(struct comm_slot)) < 0) {
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

static struct comm_slot *comm_slot(struct comm_cache *c, int pid)
{
	return pidcache_find(&c->slots, pid);
}

static void comm_set(struct comm_cache *c, int pid, const char *comm, size_t len, bool negative)
{
	struct comm_slot *e = pidcache_add(&c->slots, pid);

	e->negative = negative;
	fmt_sanitize(e->comm, sizeof(e->comm), comm, len < 16 ? len : 16);
}

static int cmdline_cmp(const void *a, const void *b)
{
	const struct cmdline *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * saved_cmdlines is "<pid> <comm>\n" per entry, and a comm may itself hold
 * a newline: "z\n15 EVILCOMM" writes a line that names pid 15. A comm has
 * at most COMM_NAME_MAX bytes, so a line can be part of the name on the
 * line before it only when both fit in COMM_NAME_MAX bytes together; such
 * a line is not believed (a real entry after a short name is lost with it:
 * that pid stays '?' unless /proc or an event names it). A pid listed twice
 * is not believed either.
 */
static void comm_read_cmdlines(struct comm_cache *c)
{
	char *buf, *line, *nl;
	size_t run = 0, n = 0, cap = 0, i, j; /* run: bytes a name could span so far */
	bool first = true;

	c->cmdlines_read = true;
	c->ncmdlines = 0;
	if (tfs_read(c->tfs, "saved_cmdlines", &buf, NULL) < 0)
		return;
	for (line = buf; *line; line = nl ? nl + 1 : line + strlen(line)) {
		size_t len;
		char *sp;
		long pid;
		bool cont;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		len = strlen(line);
		cont = !first && run + 1 + len <= COMM_NAME_MAX;
		first = false;
		pid = strtol(line, &sp, 10);
		if (sp == line || *sp != ' ' || line[0] < '0' || line[0] > '9' || pid <= 0 ||
		    pid > 0x7fffffff || strlen(sp + 1) > COMM_NAME_MAX) {
			/* not an entry: the tail of a name (or garbage) */
			run = cont ? run + 1 + len : len;
			if (!nl)
				break;
			continue;
		}
		/* it may be an entry after all: the next line is judged by its name */
		run = strlen(sp + 1);
		if (cont) {
			if (!nl)
				break;
			continue;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct cmdline *nc = realloc(c->cmdlines, ncap * sizeof(*nc));

			if (!nc)
				break;
			c->cmdlines = nc;
			cap = ncap;
		}
		c->cmdlines[n].pid = (int32_t)pid;
		snprintf(c->cmdlines[n].comm, sizeof(c->cmdlines[n].comm), "%s", sp + 1);
		n++;
		if (!nl)
			break;
	}
	free(buf);
	if (!n)
		return;
	qsort(c->cmdlines, n, sizeof(*c->cmdlines), cmdline_cmp);
	/* a pid listed twice: neither line is believed */
	for (i = j = 0; i < n;) {
		size_t k = i + 1;

		while (k < n && c->cmdlines[k].pid == c->cmdlines[i].pid)
			k++;
		if (k == i + 1)
			c->cmdlines[j++] = c->cmdlines[i];
		i = k;
	}
	c->ncmdlines = j;
}

static const struct cmdline *comm_cmdline(const struct comm_cache *c, int pid)
{
	struct cmdline key = { .pid = pid };

	if (!c->ncmdlines)
		return NULL;
	return bsearch(&key, c->cmdlines, c->ncmdlines, sizeof(key), cmdline_cmp);
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
	/* the kernel ends the name with one newline; a newline inside it is the name's */
	if (buf[n - 1] == '\n')
		n--;
	comm_set(c, pid, buf, (size_t)n, false);
	return true;
}

const char *comm_cache_get(struct comm_cache *c, int pid)
{
	const struct cmdline *cl;
	struct comm_slot *e;

	if (c->lookup && pid > 0 && !comm_slot(c, pid)) {
		const char *name = c->lookup(c->lookup_ctx, pid);

		if (name && strcmp(name, "<...>"))
			comm_set(c, pid, name, strlen(name), false);
	}

	if (pid == 0)
		return "<idle>";
	if (pid < 0)
		return "?";
	e = comm_slot(c, pid);
	if (e)
		return e->negative ? "?" : e->comm;
	if (!c->tfs) {
		/* a recording: its own cmdlines were asked above, nothing else applies */
		comm_set(c, pid, "?", 1, true);
		c->unnamed++;
		return "?";
	}
	/* the running process first: saved_cmdlines only names pids that are gone */
	if (comm_from_proc(c, pid))
		return comm_slot(c, pid)->comm;
	if (!c->cmdlines_read)
		comm_read_cmdlines(c);
	cl = comm_cmdline(c, pid);
	if (cl && strcmp(cl->comm, "<...>")) {
		comm_set(c, pid, cl->comm, strlen(cl->comm), false);
		return comm_slot(c, pid)->comm;
	}
	comm_set(c, pid, "?", 1, true);
	c->unnamed++;
	return "?";
}

/* @e (of @pid) named @comm when its sanitized form is another */
static void rename_if_other(struct comm_cache *c, struct comm_slot *e, int pid, const char *comm)
{
	char now[sizeof(e->comm)];
	size_t len = strnlen(comm, COMM_NAME_MAX);

	fmt_sanitize(now, sizeof(now), comm, len < 16 ? len : 16);
	if (strcmp(now, e->comm))
		comm_set(c, pid, comm, len, false);
}

void comm_cache_learn(struct comm_cache *c, const int32_t *pids, const char *const *comms,
		      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct comm_slot *e = comm_slot(c, pids[i]);

		if (pids[i] <= 0)
			continue;
		if (e && !e->negative) {
			/* named already: an event's own name, if another, is the one it took since
			 */
			if (comms && comms[i] && comms[i][0])
				rename_if_other(c, e, pids[i], comms[i]);
			continue;
		}
		/*
		 * The running task's name now (after its exec or prctl), else the
		 * name its first event carried (it ended since)
		 */
		if (comm_from_proc(c, pids[i]))
			continue;
		if (comms && comms[i] && comms[i][0]) {
			comm_set(c, pids[i], comms[i], strnlen(comms[i], COMM_NAME_MAX), false);
			continue;
		}
		/*
		 * else what a row would ask (the source's lookup, saved_cmdlines)
		 * now: a pid none of them names counts as unnamed in the interval
		 * it was seen in, not in the next one, after the rows showed "?"
		 */
		comm_cache_get(c, pids[i]);
	}
}

void comm_cache_rename(struct comm_cache *c, int pid, const char *comm)
{
	if (pid > 0 && comm && comm[0])
		comm_set(c, pid, comm, strnlen(comm, COMM_NAME_MAX), false);
}

static bool comm_negative(const void *val)
{
	return ((const struct comm_slot *)val)->negative;
}

uint64_t comm_cache_unnamed(const struct comm_cache *c)
{
	return c->unnamed;
}

void comm_cache_tick(struct comm_cache *c)
{
	c->cmdlines_read = false;
	pidcache_forget(&c->slots, comm_negative);
}

bool comm_match(const char *pattern, const char *comm)
{
	return !strcmp(pattern, comm) || fnmatch(pattern, comm, 0) == 0;
}

void comm_cache_free(struct comm_cache *c)
{
	if (!c)
		return;
	pidcache_done(&c->slots);
	free(c->cmdlines);
	free(c);
}
