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
#include "sym/ufile.h"
#include "sym/usym.h"

#define PU_EXIT_TICKS 4		   /* an exited process's maps are kept this many refreshes */
#define PU_MAPS_MAX   (1u << 20)   /* lines of a /proc/PID/maps read at most */
#define PU_MAPS_CHUNK 65536	   /* bytes of /proc/PID/maps read at a time */
#define PU_MAPS_BYTES (256u << 20) /* bytes of a /proc/PID/maps read at most */
#define PU_READ_LINES (256u << 10) /* lines of maps read in one refresh, all processes */

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

/*
 * Paths, interned: every process of a program maps the same files, and a
 * fork has its parent's table; a path is stored once, with a count of the
 * table entries that name it (struct pu_str; freed at the sweep in
 * pu_procs_expire() when none does).
 */
struct pu_str {
	uint32_t refs;
	uint32_t hash;
	char s[];
};

static struct pu_str *str_of(const char *path)
{
	return (struct pu_str *)(void *)(path - offsetof(struct pu_str, s));
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static int strs_grow(struct glue *g)
{
	size_t cap = g->cstrs ? g->cstrs * 2 : 256, i, j;
	struct pu_str **t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < g->cstrs; i++) {
		if (!g->strs[i])
			continue;
		for (j = g->strs[i]->hash & (cap - 1); t[j]; j = (j + 1) & (cap - 1))
			;
		t[j] = g->strs[i];
	}
	g->maps_bytes += (cap - g->cstrs) * sizeof(*t);
	free(g->strs);
	g->strs = t;
	g->cstrs = cap;
	return 0;
}

/* @path interned, one more reference; NULL: out of memory */
static const char *str_get(struct glue *g, const char *path)
{
	uint32_t h = str_hash(path);
	size_t j, len;
	struct pu_str *e;

	if ((g->nstrs + 1) * 2 > g->cstrs && strs_grow(g) < 0)
		return NULL;
	for (j = h & (g->cstrs - 1); g->strs[j]; j = (j + 1) & (g->cstrs - 1)) {
		e = g->strs[j];
		if (e->hash == h && !strcmp(e->s, path)) {
			e->refs++;
			return e->s;
		}
	}
	len = strlen(path);
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	e->refs = 1;
	e->hash = h;
	memcpy(e->s, path, len + 1);
	g->strs[j] = e;
	g->nstrs++;
	g->maps_bytes += sizeof(*e) + len + 1;
	return e->s;
}

static void str_put(const char *path)
{
	if (path)
		str_of(path)->refs--;
}

/* the strings no table names any more, freed (the table rebuilt without them) */
static void strs_sweep(struct glue *g)
{
	size_t i, j, kept = 0;
	struct pu_str **t;

	for (i = 0; i < g->cstrs; i++)
		kept += g->strs[i] && g->strs[i]->refs;
	if (kept == g->nstrs)
		return;
	t = calloc(g->cstrs, sizeof(*t));
	if (!t)
		return; /* kept for the next sweep */
	for (i = 0; i < g->cstrs; i++) {
		struct pu_str *e = g->strs[i];

		if (!e)
			continue;
		if (!e->refs) {
			g->maps_bytes -= sizeof(*e) + strlen(e->s) + 1;
			free(e);
			continue;
		}
		for (j = e->hash & (g->cstrs - 1); t[j]; j = (j + 1) & (g->cstrs - 1))
			;
		t[j] = e;
	}
	free(g->strs);
	g->strs = t;
	g->nstrs = kept;
}

static void proc_clear(struct pu_proc *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		str_put(p->m[i].path);
	p->n = 0;
	p->gen++;
	p->vdso_tried = false;
}

/* the table of @p dropped, its memory given back */
static void proc_drop(struct glue *g, struct pu_proc *p)
{
	proc_clear(p);
	g->maps_bytes -= p->cap * sizeof(*p->m);
	free(p->m);
	p->m = NULL;
	p->cap = 0;
}

/*
 * Room for @want entries in @p's table, within the maps' share of
 * --max-memory (pu_maps_limit()): past it, the tables of the processes
 * least recently asked for are dropped first (read again when asked for),
 * then -ENOSPC.
 */
static int proc_reserve(struct glue *g, struct pu_proc *p, size_t want)
{
	size_t c = p->cap ? p->cap : 16, grow;
	struct umap *nm;

	if (want <= p->cap)
		return 0;
	while (c < want) {
		if (c > SIZE_MAX / 2 / sizeof(*nm))
			return -ENOMEM;
		c *= 2;
	}
	grow = (c - p->cap) * sizeof(*nm);
	while (g->maps_limit && g->maps_bytes + grow > g->maps_limit) {
		struct pu_proc *old = NULL;
		size_t i;

		for (i = 0; i < g->nprocs; i++) {
			struct pu_proc *q = &g->procs[i];

			if (q != p && q->cap && (!old || q->used < old->used))
				old = q;
		}
		if (!old)
			return -ENOSPC;
		proc_drop(g, old);
		old->dropped = true;
		g->maps_dropped++;
	}
	nm = realloc(p->m, c * sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	g->maps_bytes += grow;
	p->m = nm;
	p->cap = c;
	return 0;
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

/* the first entry of @p that ends after @addr (entries are sorted and do not overlap) */
static size_t first_after(const struct pu_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->m[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * a file mapping [start, end), or the [vdso] (its image is copied when a
 * sample needs it, vdso_attach()): replaces what it overlaps (perf reports
 * no munmap). The overlapped entries are found by binary search and
 * replaced in one move: a /proc/PID/maps read in order appends.
 */
static int proc_map(struct glue *g, struct pu_proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
		    uint64_t dev, uint64_t ino, const char *path)
{
	struct umap nw[3];
	size_t lo, hi, i, k = 0;
	const char *dup;

	if (end <= start || (path[0] != '/' && !pu_is_vdso(path)))
		return 0;
	if (pu_is_vdso(path)) {
		pgoff = 0;
		p->vdso_tried = false;
	}
	if (proc_reserve(g, p, p->n + 2) < 0)
		return -ENOMEM;
	dup = str_get(g, path);
	if (!dup)
		return -ENOMEM;
	lo = first_after(p, start);
	for (hi = lo; hi < p->n && p->m[hi].start < end; hi++)
		;
	/* a piece before and a piece after of what it overlaps may stay */
	if (lo < hi && p->m[lo].start < start) {
		nw[k] = p->m[lo];
		nw[k++].end = start;
		str_of(nw[k - 1].path)->refs++;
	}
	nw[k++] = (struct umap){
		.start = start, .end = end, .pgoff = pgoff, .path = dup, .dev = dev, .ino = ino
	};
	if (lo < hi && p->m[hi - 1].end > end) {
		nw[k] = p->m[hi - 1];
		nw[k].pgoff += end - nw[k].start;
		nw[k].start = end;
		str_of(nw[k++].path)->refs++;
	}
	for (i = lo; i < hi; i++)
		str_put(p->m[i].path);
	memmove(&p->m[lo + k], &p->m[hi], (p->n - hi) * sizeof(*p->m));
	memcpy(&p->m[lo], nw, k * sizeof(*nw));
	p->n = p->n - (hi - lo) + k;
	p->gen++;
	return 0;
}

/* one line of /proc/PID/maps into @p; false when the table could not take it */
static bool maps_line(struct glue *g, struct pu_proc *p, char *line)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perms[8];
	int used = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &start, &end, perms, &off, &maj, &min,
		   &ino, &used) != 7)
		return true;
	line += used;
	while (*line == ' ' || *line == '\t')
		line++;
	if (!ino && !pu_is_vdso(line))
		return true;
	return proc_map(g, p, start, end, off, (uint64_t)maj << 32 | min, ino, line) == 0;
}

/*
 * every file mapping in /proc/<tgid>/maps (a process older than the
 * session), read in pieces of PU_MAPS_CHUNK (never the whole file in
 * memory); PU_MAPS_MAX lines at most. Each refresh reads at most
 * PU_READ_LINES lines of maps in all (pu_procs_expire() starts the next
 * count): a process past it is read at a later refresh (@unread), its
 * samples meanwhile have no maps.
 */
/* the maps of a process being read: its lines cut from the pieces */
struct maps_rd {
	struct glue *g;
	struct pu_proc *p;
	char *buf; /* PU_MAPS_CHUNK + 1 */
	size_t len, lines;
};

static bool maps_piece(void *ctx, const char *data, size_t n)
{
	struct maps_rd *rd = ctx;

	while (n) {
		size_t k = n < PU_MAPS_CHUNK - rd->len ? n : PU_MAPS_CHUNK - rd->len;
		char *line = rd->buf, *nl;

		memcpy(rd->buf + rd->len, data, k);
		data += k;
		n -= k;
		rd->len += k;
		rd->buf[rd->len] = '\0';
		while ((nl = memchr(line, '\n', rd->len - (size_t)(line - rd->buf)))) {
			*nl = '\0';
			rd->lines++;
			if (!maps_line(rd->g, rd->p, line) || rd->lines >= PU_MAPS_MAX)
				return false;
			line = nl + 1;
		}
		rd->len -= (size_t)(line - rd->buf);
		memmove(rd->buf, line, rd->len);
		if (rd->len == PU_MAPS_CHUNK)
			rd->len = 0; /* a line longer than a piece: dropped */
	}
	return true;
}

static void proc_read_maps(struct glue *g, struct pu_proc *p)
{
	struct maps_rd rd = { .g = g, .p = p };

	if (g->read_lines >= PU_READ_LINES) {
		p->unread = true;
		return;
	}
	p->unread = false;
	rd.buf = malloc(PU_MAPS_CHUNK + 1);
	if (!rd.buf)
		return;
	/* by the reader: the process can hold the locks a read of its maps waits for */
	ufile_proc_stream("/proc", p->tgid, "maps", 0, PU_MAPS_BYTES, maps_piece, &rd);
	g->read_lines += rd.lines;
	free(rd.buf);
}

static struct pu_proc *proc_get(struct glue *g, uint32_t tgid)
{
	struct pu_proc *p = proc_find(g, tgid);

	if (p && ((p->dropped && !p->exited) || p->unread)) {
		p->dropped = false;
		proc_read_maps(g, p); /* dropped for memory, or not read yet: again */
	}
	if (p)
		return p;
	p = proc_new(g, tgid);
	if (p)
		proc_read_maps(g, p);
	return p;
}

/*
 * a forked child maps something of its own: its parent's maps become its
 * own, copied in one piece (the paths are shared)
 */
static struct pu_proc *proc_own(struct glue *g, struct pu_proc *p)
{
	struct pu_proc *parent = proc_find(g, p->fork_of);
	size_t i;

	p->fork_of = 0;
	if (!parent || parent == p || !parent->n)
		return p;
	/* proc_reserve() drops the least recently used tables: not the parent's */
	parent->used = ++g->clock;
	if (p->n) {
		/* (maps of its own already: not from a fork record) */
		for (i = 0; i < parent->n && parent->n; i++)
			if (proc_map(g, p, parent->m[i].start, parent->m[i].end, parent->m[i].pgoff,
				     parent->m[i].dev, parent->m[i].ino, parent->m[i].path) < 0)
				break;
		return p;
	}
	if (proc_reserve(g, p, parent->n) < 0 || !parent->n)
		return p;
	memcpy(p->m, parent->m, parent->n * sizeof(*p->m));
	for (i = 0; i < parent->n; i++)
		str_of(p->m[i].path)->refs++;
	p->n = parent->n;
	p->gen++;
	p->vdso_tried = parent->vdso_tried;
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
	if (p && proc_map(pu->g, p, m->start, m->start + m->len, m->pgoff, m->dev, m->ino,
			  m->filename) < 0)
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

void pu_on_task(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid, bool exit, uint64_t time)
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

	g->read_lines = 0; /* a new refresh: its own count of lines read */
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
			proc_drop(g, p);
			continue;
		}
		g->procs[w++] = *p;
	}
	g->nprocs = w;
	strs_sweep(g);
	if (idx_rebuild(g, g->idxcap) < 0)
		log_warn("user stacks: out of memory");
}

size_t pu_maps_for(void *ctx, uint32_t pid, const struct umap **ret, uint64_t *id)
{
	struct perf_user *pu = ctx;
	struct pu_proc *p = proc_table(pu->g, proc_get(pu->g, pid));

	if (!p || !p->n)
		return 0;
	p->used = ++pu->g->clock;
	pu_vdso_attach(pu, p);
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

	for (i = 0; i < g->nprocs; i++)
		proc_drop(g, &g->procs[i]);
	free(g->procs);
	free(g->idx);
	strs_sweep(g);
	free(g->strs);
}
