// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf_user_maps.c - the dwarf source's table of processes (see
 * perf_user_priv.h): the file mappings of every process from perf's
 * MMAP2, COMM (exec) and FORK/EXIT records, /proc/<pid>/maps for the
 * processes it has no record of (started earlier: read at open, or at
 * their first sample), kept a few refreshes after the process exits so
 * late samples still unwind; a fork sees its parent's maps until it maps
 * something of its own. The [vdso] mappings get a copy of the image (its
 * unwind tables are in no file). The unwinder asks for a process's table
 * (pu_maps_for()); the symbolizer gets it once (pu_give_maps()) for when
 * /proc/<tgid>/maps is gone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "ingest/ingest.h"
#include "source/perf_user_priv.h"
#include "sym/usym.h"

#define PU_EXIT_TICKS  4          /* an exited process's maps are kept this many refreshes */
#define PU_MAPS_MAX    (16u << 20) /* a /proc/PID/maps larger than this is cut */
#define PU_VDSO_MAX    (1u << 20) /* a [vdso] larger than this is not copied */

static uint32_t tgid_hash(uint32_t tgid)
{
	return tgid * 0x9e3779b1u;
}

static int idx_rebuild(struct glue *g, size_t cap)
{
	uint32_t *idx = calloc(cap, sizeof(*idx));
	size_t i;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < g->nprocs; i++) {
		size_t j = tgid_hash(g->procs[i].tgid) & (cap - 1);

		while (idx[j])
			j = (j + 1) & (cap - 1);
		idx[j] = (uint32_t)i + 1;
	}
	free(g->idx);
	g->idx = idx;
	g->idxcap = cap;
	return 0;
}

static struct pu_proc *proc_find(struct glue *g, uint32_t tgid)
{
	size_t j;

	if (!g->idxcap)
		return NULL;
	for (j = tgid_hash(tgid) & (g->idxcap - 1); g->idx[j]; j = (j + 1) & (g->idxcap - 1))
		if (g->procs[g->idx[j] - 1].tgid == tgid)
			return &g->procs[g->idx[j] - 1];
	return NULL;
}

static void proc_clear(struct pu_proc *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free((char *)p->m[i].path);
	p->n = 0;
	p->gen++;
	p->vdso_tried = false;
}

static struct pu_proc *proc_new(struct glue *g, uint32_t tgid)
{
	struct pu_proc *p;
	size_t j;

	if (g->nprocs == g->cprocs) {
		size_t c = g->cprocs ? g->cprocs * 2 : 64;
		struct pu_proc *np = realloc(g->procs, c * sizeof(*np));

		if (!np)
			return NULL;
		g->procs = np;
		g->cprocs = c;
	}
	if ((g->nprocs + 1) * 2 > g->idxcap && idx_rebuild(g, g->idxcap ? g->idxcap * 2 : 128) < 0)
		return NULL;
	p = &g->procs[g->nprocs];
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	p->gen = 1;
	for (j = tgid_hash(tgid) & (g->idxcap - 1); g->idx[j]; j = (j + 1) & (g->idxcap - 1))
		;
	g->idx[j] = (uint32_t)++g->nprocs;
	return p;
}

static bool is_vdso(const char *path)
{
	return !strcmp(path, "[vdso]");
}

/*
 * a file mapping [start, end), or the [vdso] (its image is copied when a
 * sample needs it, vdso_attach()): replaces what it overlaps (perf reports
 * no munmap)
 */
static int proc_map(struct pu_proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
		    uint64_t dev, uint64_t ino, const char *path)
{
	size_t i, w, at;
	char *dup;

	if (end <= start || (path[0] != '/' && !is_vdso(path)))
		return 0;
	if (is_vdso(path)) {
		pgoff = 0;
		p->vdso_tried = false;
	}
	dup = strdup(path);
	if (!dup)
		return -ENOMEM;
	if (p->n + 2 > p->cap) {
		size_t c = p->cap ? p->cap * 2 : 32;
		struct umap *nm = realloc(p->m, c * sizeof(*nm));

		if (!nm) {
			free(dup);
			return -ENOMEM;
		}
		p->m = nm;
		p->cap = c;
	}
	/* cut what overlaps: a piece before and a piece after may stay */
	for (i = w = 0; i < p->n; i++) {
		struct umap o = p->m[i];

		if (o.end <= start || o.start >= end) {
			p->m[w++] = o;
			continue;
		}
		if (o.start < start && o.end > end) { /* the new one inside: split */
			char *tail = strdup(o.path);

			if (!tail) {
				free(dup);
				return -ENOMEM;
			}
			p->m[w] = o;
			p->m[w++].end = start;
			memmove(&p->m[i + 2], &p->m[i + 1], (p->n - i - 1) * sizeof(*p->m));
			p->m[i + 1] = o;
			p->m[i + 1].pgoff = o.pgoff + (end - o.start);
			p->m[i + 1].start = end;
			p->m[i + 1].path = tail;
			p->n++;
			continue;
		}
		if (o.start < start) {
			o.end = start;
			p->m[w++] = o;
		} else if (o.end > end) {
			o.pgoff += end - o.start;
			o.start = end;
			p->m[w++] = o;
		} else {
			free((char *)o.path);
		}
	}
	p->n = w;
	for (at = 0; at < p->n && p->m[at].start < start; at++)
		;
	memmove(&p->m[at + 1], &p->m[at], (p->n - at) * sizeof(*p->m));
	p->m[at].start = start;
	p->m[at].end = end;
	p->m[at].pgoff = pgoff;
	p->m[at].path = dup;
	p->m[at].dev = dev;
	p->m[at].ino = ino;
	p->m[at].image = NULL;
	p->m[at].image_size = 0;
	p->n++;
	p->gen++;
	return 0;
}

/* every file mapping in /proc/<tgid>/maps (a process older than the session) */
static void proc_read_maps(struct pu_proc *p)
{
	char path[64], *buf, *line, *save = NULL;
	size_t len = 0, cap = 65536;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/maps", p->tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	buf = malloc(cap + 1);
	while (buf && (r = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)r;
		if (len == cap) {
			char *nb = cap < PU_MAPS_MAX ? realloc(buf, cap * 2 + 1) : NULL;

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (!buf)
		return;
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8];
		int used = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &start, &end, perms, &off, &maj,
			   &min, &ino, &used) != 7)
			continue;
		line += used;
		while (*line == ' ' || *line == '\t')
			line++;
		if (!ino && !is_vdso(line))
			continue;
		if (proc_map(p, start, end, off, (uint64_t)maj << 32 | min, ino, line) < 0)
			break;
	}
	free(buf);
}

static struct pu_proc *proc_get(struct glue *g, uint32_t tgid)
{
	struct pu_proc *p = proc_find(g, tgid);

	if (p)
		return p;
	p = proc_new(g, tgid);
	if (p)
		proc_read_maps(p);
	return p;
}

/* a forked child maps something of its own: its parent's maps become its own */
static struct pu_proc *proc_own(struct glue *g, struct pu_proc *p)
{
	struct pu_proc *parent = proc_find(g, p->fork_of);
	size_t i;

	p->fork_of = 0;
	if (!parent || parent == p)
		return p;
	for (i = 0; i < parent->n; i++) {
		/* proc_map() does not move @procs: @parent stays valid */
		if (proc_map(p, parent->m[i].start, parent->m[i].end, parent->m[i].pgoff,
			     parent->m[i].dev, parent->m[i].ino, parent->m[i].path) < 0)
			break;
	}
	return p;
}

/* the table a process's frames are looked up in: a fork's is its parent's */
static struct pu_proc *proc_table(struct glue *g, struct pu_proc *p)
{
	int depth;

	for (depth = 0; p && p->fork_of && !p->n && depth < 8; depth++)
		p = proc_find(g, p->fork_of);
	return p;
}

void pu_on_mmap(void *ctx, const struct perfsamp_mmap *m)
{
	struct perf_user *pu = ctx;
	struct pu_proc *p = proc_get(pu->g, m->pid);

	if (p && p->fork_of)
		p = proc_own(pu->g, p);


	if (p && proc_map(p, m->start, m->start + m->len, m->pgoff, m->dev, m->ino, m->filename) < 0)
		log_debug("user stacks: out of memory for the maps of %u", m->pid);
}

void pu_on_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct perf_user *pu = ctx;
	struct pu_proc *p;

	(void)tid;
	(void)comm;
	if (!exec)
		return;
	/* a new image: its mappings come next as MMAP2 records */
	p = proc_find(pu->g, pid);
	if (!p)
		p = proc_new(pu->g, pid);
	if (p) {
		proc_clear(p);
		p->exited = 0;
		p->given = false;
		p->fork_of = 0;
	}
	/*
	 * the unwinder's files stay: known by device and inode, they are the
	 * same whoever maps them (the new image's maps_id is new)
	 */
}

void pu_on_task(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid, bool exit,
		uint64_t time)
{
	struct perf_user *pu = ctx;
	struct pu_proc *p;

	(void)time;
	if (pid != tid)
		return; /* a thread: its process's maps */
	p = proc_find(pu->g, pid);
	if (exit) {
		if (p && !p->exited)
			p->exited = 1;
		return;
	}
	/*
	 * a fork: the child sees its parent's maps until it maps or execs
	 * (looked up when needed: the parent's MMAP2 records may be in a ring
	 * not read yet)
	 */
	if (p || pid == ppid)
		return;
	p = proc_new(pu->g, pid);
	if (p)
		p->fork_of = ppid;
}

void pu_procs_expire(struct glue *g)
{
	size_t i, k, w;
	bool gone = false;

	for (i = 0; i < g->nprocs; i++) {
		struct pu_proc *p = &g->procs[i];

		if (!p->exited || ++p->exited <= PU_EXIT_TICKS)
			continue;
		gone = true;
		/* its forks that live on keep its maps */
		for (k = 0; k < g->nprocs; k++)
			if (k != i && g->procs[k].fork_of == p->tgid)
				proc_own(g, &g->procs[k]);
	}
	if (!gone)
		return;
	for (i = w = 0; i < g->nprocs; i++) {
		struct pu_proc *p = &g->procs[i];

		if (p->exited > PU_EXIT_TICKS) {
			proc_clear(p);
			free(p->m);
			continue;
		}
		g->procs[w++] = *p;
	}
	g->nprocs = w;
	if (idx_rebuild(g, g->idxcap) < 0)
		log_warn("user stacks: out of memory");
}

/*
 * The image of @m, the [vdso] of @tgid, copied from the process's memory
 * (once per process: it lives, a sample of it was just taken) and kept once
 * per build-id - every process of a kernel has the same few.
 */
static const struct pu_vdso *vdso_get(struct perf_user *pu, uint32_t tgid, const struct umap *m)
{
	size_t len = (size_t)(m->end - m->start);
	uint8_t bid[64], *img;
	struct pu_vdso *v;
	char path[64];
	unsigned int i;
	int fd, bidlen;
	ssize_t n;

	if (len > PU_VDSO_MAX)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%u/mem", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	img = malloc(len);
	n = img ? pread(fd, img, len, (off_t)m->start) : -1;
	close(fd);
	if (n != (ssize_t)len) {
		free(img);
		return NULL;
	}
	bidlen = dwunwind_image_buildid(img, len, bid, sizeof(bid));
	if (bidlen < 0)
		bidlen = 0;
	for (i = 0; i < pu->nvdsos; i++) {
		v = &pu->vdsos[i];
		if (v->bidlen == bidlen && v->len == len &&
		    (bidlen ? !memcmp(v->bid, bid, (size_t)bidlen) : !memcmp(v->image, img, len))) {
			free(img);
			return v;
		}
	}
	if (pu->nvdsos == PU_VDSOS_MAX) {
		free(img);
		return NULL;
	}
	v = &pu->vdsos[pu->nvdsos++];
	memcpy(v->bid, bid, (size_t)bidlen);
	v->bidlen = bidlen;
	v->image = img;
	v->len = len;
	log_debug("user stacks: a [vdso] image of %zu bytes copied from %u", len, tgid);
	return v;
}

/* the [vdso] mappings of @p get their image */
static void vdso_attach(struct perf_user *pu, struct pu_proc *p)
{
	const struct pu_vdso *v;
	size_t i;

	if (p->vdso_tried)
		return;
	p->vdso_tried = true;
	for (i = 0; i < p->n; i++) {
		if (p->m[i].image || !is_vdso(p->m[i].path))
			continue;
		v = vdso_get(pu, p->tgid, &p->m[i]);
		if (!v)
			continue;
		p->m[i].image = v->image;
		p->m[i].image_size = v->len;
		p->gen++;
	}
}

size_t pu_maps_for(void *ctx, uint32_t pid, const struct umap **ret, uint64_t *id)
{
	struct perf_user *pu = ctx;
	struct pu_proc *p = proc_table(pu->g, proc_get(pu->g, pid));

	if (!p || !p->n)
		return 0;
	vdso_attach(pu, p);
	*ret = p->m;
	*id = (uint64_t)p->tgid << 32 | p->gen;
	return p->n;
}

void pu_give_maps(struct glue *g, uint32_t tgid)
{
	struct pu_proc *p = proc_find(g, tgid);
	struct usym_map *um;
	size_t i;

	if (!p || p->given)
		return;
	p->given = true;
	p = proc_table(g, p);
	if (!p)
		return;
	um = calloc(p->n ? p->n : 1, sizeof(*um));
	if (!um)
		return;
	for (i = 0; i < p->n; i++) {
		/* the device and inode of the record: never a stat of the name */
		um[i].start = p->m[i].start;
		um[i].end = p->m[i].end;
		um[i].pgoff = p->m[i].pgoff;
		um[i].path = (char *)p->m[i].path;
		um[i].dev = p->m[i].dev;
		um[i].ino = p->m[i].ino;
	}
	usym_add_maps(g->s->usym, tgid, um, p->n);
	free(um);
}

/*
 * The processes running already: their maps now (perf reports only what
 * is mapped from here on), so that one exiting before its first sample is
 * read still unwinds - what perf record synthesizes at its start. With -p,
 * only those.
 */
void pu_procs_scan(struct glue *g)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);

		if (*end || !pid || pid > UINT32_MAX || pid == g->self ||
		    !ingest_wants(g->s->ing, (int)pid, (int)pid))
			continue;
		proc_get(g, (uint32_t)pid);
	}
	closedir(d);
}

void pu_procs_free(struct glue *g)
{
	size_t i;

	for (i = 0; i < g->nprocs; i++) {
		proc_clear(&g->procs[i]);
		free(g->procs[i].m);
	}
	free(g->procs);
	free(g->idx);
}
