// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf_user.c - the dwarf user-stack source (see perf_user.h): perfsamp
 * on the session's events, every sample unwound while its stack copy is in
 * the ring, the frames handed to a callback.
 *
 * Opened by the session (src->priv NULL) it wires itself (struct glue):
 *  - the maps of every process from perf's MMAP2/COMM(exec)/EXIT records,
 *    /proc/<pid>/maps for processes it has no record of (started earlier),
 *    kept after the process exits so late samples still unwind;
 *  - ingest hands it each counted kernel stack (ingest_set_user_hold());
 *    the frames wait in a slot whose index is the record's ujoin handle;
 *  - each unwound sample becomes user tokens (usym_intern(), at once, while
 *    the process is likely still there) and goes to ujoin_add_sample();
 *  - a match is counted as kernel frames, usym_sep(tgid), user tokens
 *    (USYM_CUT when the copy or the depth ended the walk), exactly as the fp
 *    mode's stacks; a record without a sample is counted kernel-only and the
 *    reason stays in ujoin's counters (session_stats.ujoin).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <asm/perf_regs.h>

#include "ingest/ingest.h"
#include "core/log.h"
#include "source/perf_user.h"
#include "source/source.h"
#include "core/stack_table.h"
#include "kernel/tfs.h"
#include "sym/usym.h"
#include "core/format.h"

/*
 * A record whose sample is not in yet is given up once both rings were read
 * to a point PU_SLACK_NS after it (the ftrace record and the perf sample are
 * written in one tracepoint call: only a preemption between the two parts
 * delays one of them).
 */
#define PU_SLACK_NS    (10ULL * 1000 * 1000)
#define PU_TIMEOUT_NS  (500ULL * 1000 * 1000) /* otherwise (a read was cut) */
#define PU_MIN_RECORDS 256        /* read per drain even when the budget is spent */
#define PU_DEFER_MAX   64         /* samples waiting for their process's maps */
#define PU_RING_PAGES  512
#define PU_TASKS_MAX   4096       /* per-thread perf events at most (threads x CPUs x events) */
#define PU_EXIT_TICKS  4          /* an exited process's maps are kept this many refreshes */
#define PU_MAPS_MAX    (16u << 20) /* a /proc/PID/maps larger than this is cut */
#define PU_VDSO_MAX    (1u << 20) /* a [vdso] larger than this is not copied */
#define PU_VDSOS_MAX   8          /* images kept (the kernel has 3: 64-bit, x32, 32-bit) */

struct pu_proc {
	uint32_t tgid;
	uint32_t gen;         /* bumped by every change of @m */
	unsigned int exited;  /* refreshes since its exit, 0 while it runs */
	bool given;           /* handed to the symbolizer (usym_add_maps()) */
	bool vdso_tried;      /* its [vdso] image was looked for */
	uint32_t fork_of;     /* forked from this process, no map of its own since */
	struct umap *m;
	size_t n, cap;
};

struct pu_held {
	struct ingest_held h;
	unsigned int n;
	uint64_t *frames;     /* room for the user part too */
};

/* a sample's user part: what the matched record gets */
struct pu_ustack {
	uint32_t tgid;
	unsigned int n;       /* tokens, USYM_CUT included */
	uint64_t toks[];
};

struct glue {
	struct source_ctx *s;
	struct ujoin *join;
	bool on;              /* `u` turned it off: records are counted at once */
	bool discard;         /* a reset: matches are dropped, not counted */
	struct ujoin_stats base; /* the join's counts at the last reset */
	uint32_t self;
	/* processes: @procs, and an open-addressing index tgid -> slot + 1 */
	struct pu_proc *procs;
	size_t nprocs, cprocs;
	uint32_t *idx;
	size_t idxcap;
	/* held records: slots, a free list of their numbers */
	struct pu_held *held;
	uint32_t nheld, cheld;
	uint32_t *free;
	uint32_t nfree;
	int *evmap;           /* perfsamp event number -> session event index */
	bool *sampled;        /* by session event index: has a perf event */
	unsigned int nsampled;
};

/* a copy of a [vdso] image: the unwind tables of its code are in no file */
struct pu_vdso {
	uint8_t bid[64];
	int bidlen;           /* 0: no build-id, compared byte for byte */
	uint8_t *image;
	size_t len;
};

/* a sample copied to wait until the other CPUs' rings were read */
struct pu_defer {
	struct perfsamp_sample s;
	uint8_t *stack;
};

struct perf_user {
	struct perf_user_cfg cfg;
	struct pu_defer defer[PU_DEFER_MAX];
	unsigned int ndefer;
	bool retrying;
	struct perfsamp *ps;
	struct dwunwind *uw;
	struct glue *g;       /* opened by the session */
	const char **events;
	char **filters;       /* per perf event, NULL: none */
	pid_t *tasks;         /* -p/--tid: the threads sampled */
	unsigned int ntasks, ctasks;
	unsigned int nevents;
	uint64_t unwound, failed, nomaps, skipped;
	struct pu_vdso vdsos[PU_VDSOS_MAX];
	unsigned int nvdsos;
	uint64_t ips[PERF_USER_MAX_FRAMES];
};

void *perf_user_priv(const struct perf_user_cfg *cfg)
{
	struct perf_user *pu = calloc(1, sizeof(*pu));

	if (pu)
		pu->cfg = *cfg;
	return pu;
}

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- processes and their maps ----------------------------------------- */

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
		    const char *path)
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
		if (proc_map(p, start, end, off, line) < 0)
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
			     parent->m[i].path) < 0)
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

static void cb_mmap(void *ctx, const struct perfsamp_mmap *m)
{
	struct perf_user *pu = ctx;
	struct pu_proc *p = proc_get(pu->g, m->pid);

	if (p && p->fork_of)
		p = proc_own(pu->g, p);


	if (p && proc_map(p, m->start, m->start + m->len, m->pgoff, m->filename) < 0)
		log_debug("user stacks: out of memory for the maps of %u", m->pid);
}

static void cb_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
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
	dwunwind_forget(pu->uw);
}

static void cb_task(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid, bool exit,
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

static void cb_lost(void *ctx, uint32_t cpu, uint64_t count, uint64_t time)
{
	struct perf_user *pu = ctx;

	ujoin_add_lost(pu->g->join, cpu, time, count);
}

/* the maps of exited processes go a few refreshes after the exit */
static void procs_expire(struct glue *g)
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

static size_t maps_for(void *ctx, uint32_t pid, const struct umap **ret, uint64_t *id)
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

/* the symbolizer reads /proc/<tgid>/maps; ours serve when that is gone */
static void give_maps(struct glue *g, uint32_t tgid)
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
		struct stat sb;

		um[i].start = p->m[i].start;
		um[i].end = p->m[i].end;
		um[i].pgoff = p->m[i].pgoff;
		um[i].path = (char *)p->m[i].path;
		if (p->m[i].path[0] == '/' && !stat(p->m[i].path, &sb)) {
			um[i].dev = (uint64_t)major(sb.st_dev) << 32 | minor(sb.st_dev);
			um[i].ino = sb.st_ino;
		}
	}
	usym_add_maps(g->s->usym, tgid, um, p->n);
	free(um);
}

/* ---- the join ---------------------------------------------------------- */

static void held_free(struct glue *g, uint32_t slot)
{
	free(g->held[slot].frames);
	g->held[slot].frames = NULL;
	g->free[g->nfree++] = slot;
}

static bool on_hold(void *ctx, const struct ingest_held *h, const uint64_t *frames, unsigned int n)
{
	struct glue *g = ctx;
	struct ujoin_key key = { .cpu = h->cpu, .tid = (uint32_t)h->pid, .event = h->event };
	struct pu_held *e;
	uint32_t slot;

	if (!g->on || h->event >= g->nsampled || !g->sampled[h->event] || h->pid <= 0)
		return false;
	if (!g->nfree) {
		uint32_t c = g->cheld ? g->cheld * 2 : 256, i;
		struct pu_held *nh = realloc(g->held, c * sizeof(*nh));
		uint32_t *nf;

		if (!nh)
			return false;
		g->held = nh;
		nf = realloc(g->free, c * sizeof(*nf));
		if (!nf)
			return false;
		g->free = nf;
		for (i = c; i-- > g->cheld;) {
			g->held[i].frames = NULL;
			g->free[g->nfree++] = i;
		}
		g->cheld = c;
	}
	slot = g->free[g->nfree - 1];
	e = &g->held[slot];
	e->frames = malloc((n + 2 + PERF_USER_MAX_FRAMES) * sizeof(uint64_t));
	if (!e->frames)
		return false;
	g->nfree--;
	memcpy(e->frames, frames, n * sizeof(uint64_t));
	e->n = n;
	e->h = *h;
	if (ujoin_add_record(g->join, &key, h->ts, slot) < 0) {
		held_free(g, slot);
		return false;
	}
	return true;
}

static void join_emit(void *ctx, const struct ujoin_match *m)
{
	struct glue *g = ctx;
	struct pu_ustack *u = m->sample;
	struct pu_held *e = &g->held[m->rec];
	unsigned int n = e->n;

	if (!g->discard) {
		if (m->why == UJOIN_OK && u && u->n) {
			e->frames[n++] = usym_sep(u->tgid);
			memcpy(e->frames + n, u->toks, u->n * sizeof(uint64_t));
			n += u->n;
		}
		ingest_count_held(g->s->ing, &e->h, e->frames, n);
	}
	free(u);
	held_free(g, (uint32_t)m->rec);
}

static void join_drop(void *ctx, void *sample)
{
	(void)ctx;
	free(sample);
}

/* a sample unwound: its frames as tokens, to the join */
static void on_stack(void *ctx, const struct perf_user_stack *st)
{
	struct perf_user *pu = ctx;
	struct glue *g = pu->g;
	struct ujoin_key key = st->key;
	struct pu_ustack *u = NULL;
	unsigned int i, n = 0;

	if (st->pid == g->self || !g->on || key.event >= g->nsampled)
		return;
	key.event = (uint32_t)g->evmap[key.event];
	if (st->why == UJOIN_OK) {
		u = malloc(sizeof(*u) + (size_t)(st->n + 1) * sizeof(uint64_t));
		if (!u)
			return;
		u->tgid = st->pid;
		if (st->n)
			give_maps(g, st->pid);
		for (i = 0; i < (unsigned int)st->n; i++) {
			/*
			 * a caller's frame is its return address: the call is the
			 * byte before it (after a noreturn call it may be the next
			 * function's first byte); perf shows callers the same way
			 */
			uint64_t ip = i ? st->ips[i] - 1 : st->ips[i];
			uint64_t tok = usym_intern(g->s->usym, st->pid, ip);

			if (!tok)
				break;
			u->toks[n++] = tok;
		}
		/* the walk stopped short of the outermost frame: say where and why */
		if (n && n < (unsigned int)st->n)
			u->toks[n++] = USYM_CUT_MEMORY; /* the symbolizer's share is full */
		else if (n && st->end == DWUNWIND_END_DEPTH)
			u->toks[n++] = USYM_CUT;
		else if (n && st->end == DWUNWIND_END_STACK)
			u->toks[n++] = USYM_CUT_STACK;
		else if (n && st->end == DWUNWIND_END_NOINFO)
			u->toks[n++] = USYM_CUT_FAILED;
		u->n = n;
	}
	ujoin_add_sample(g->join, &key, st->time, u, st->why);
}

static void glue_free(struct glue *g)
{
	uint32_t i;

	if (!g)
		return;
	if (g->s && g->s->ing)
		ingest_set_user_hold(g->s->ing, NULL, NULL);
	ujoin_free(g->join);
	for (i = 0; i < g->cheld; i++)
		free(g->held[i].frames);
	free(g->held);
	free(g->free);
	for (i = 0; i < g->nprocs; i++) {
		proc_clear(&g->procs[i]);
		free(g->procs[i].m);
	}
	free(g->procs);
	free(g->idx);
	free(g->evmap);
	free(g->sampled);
	free(g);
}

/* the session's source: everything above wired to it */
static struct perf_user *glue_new(struct source_ctx *s)
{
	struct perf_user *pu = calloc(1, sizeof(*pu));
	struct glue *g = calloc(1, sizeof(*g));
	struct ujoin_opts jo = { .timeout_ns = PU_TIMEOUT_NS, .emit = join_emit, .drop = join_drop };

	if (!pu || !g) {
		free(pu);
		free(g);
		return NULL;
	}
	g->s = s;
	g->on = true;
	g->self = (uint32_t)getpid();
	jo.ctx = g;
	g->join = ujoin_new(&jo);
	if (!g->join) {
		free(pu);
		glue_free(g);
		return NULL;
	}
	pu->g = g;
	pu->cfg.pid = -1;
	pu->cfg.maps_for = maps_for;
	pu->cfg.on_stack = on_stack;
	pu->cfg.ctx = pu;
	pu->cfg.perf.mmap = cb_mmap;
	pu->cfg.perf.comm = cb_comm;
	pu->cfg.perf.task = cb_task;
	pu->cfg.perf.lost = cb_lost;
	return pu;
}

void perf_user_set_on(struct source *src, bool on)
{
	struct perf_user *pu = src->priv;

	if (pu && pu->g)
		pu->g->on = on;
}

/*
 * The processes running already: their maps now (perf reports only what
 * is mapped from here on), so that one exiting before its first sample is
 * read still unwinds - what perf record synthesizes at its start. With -p,
 * only those.
 */
static void procs_scan(struct glue *g)
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

/* ---- the source -------------------------------------------------------- */

static void pu_sample(void *ctx, const struct perfsamp_sample *s)
{
	struct perf_user *pu = ctx;
	struct perf_user_stack st = {
		.key = { .cpu = s->cpu, .tid = s->tid, .event = (uint32_t)s->event },
		.pid = s->pid, .time = s->time, .ips = pu->ips,
	};
	struct dwunwind_sample in = {
		.regs = s->regs, .stack = s->stack, .stack_size = s->stack_size,
	};
	int n = -EINVAL;

	/* not unwound for nothing: `u` off, -p/--tid, stacktop's own writes */
	if (pu->g && (!pu->g->on || !ingest_wants(pu->g->s->ing, (int)s->pid, (int)s->tid))) {
		pu->skipped++;
		return;
	}
	if (!s->abi) {
		/* a kernel thread: no user part, its stack is the kernel one */
		st.why = UJOIN_OK;
		pu->unwound++;
		if (pu->cfg.on_stack)
			pu->cfg.on_stack(pu->cfg.ctx, &st);
		return;
	}
	if (s->stack_size && pu->cfg.maps_for)
		in.nmaps = pu->cfg.maps_for(pu->cfg.ctx, s->pid, &in.maps, &in.maps_id);
	if (in.nmaps)
		n = dwunwind_stack(pu->uw, &in, pu->ips, PERF_USER_MAX_FRAMES, &st.end);
	/*
	 * Each CPU's ring holds the MMAP2, COMM and FORK records of what
	 * happened there: the maps of a process that moved may be in a ring not
	 * read yet. The sample waits for the end of the drain (a copy: the
	 * ring's bytes are given back).
	 */
	if ((!in.nmaps || n == -ENOENT) && s->stack_size && pu->g && !pu->retrying &&
	    pu->ndefer < PU_DEFER_MAX) {
		struct pu_defer *d = &pu->defer[pu->ndefer];

		d->stack = malloc(s->stack_size);
		if (d->stack) {
			memcpy(d->stack, s->stack, s->stack_size);
			d->s = *s;
			d->s.stack = d->stack;
			pu->ndefer++;
			return;
		}
	}
	if (n > 0) {
		st.n = n;
		st.why = UJOIN_OK;
		pu->unwound++;
	} else if (!in.nmaps || n == -ENOENT) {
		st.why = UJOIN_NO_MAPS;
		pu->nomaps++;
		log_debug("user stacks: no maps for pid %u tid %u ip %#llx (%zu maps)", s->pid, s->tid,
			  (unsigned long long)s->regs[PERF_REG_X86_IP], in.nmaps);
	} else {
		st.why = UJOIN_UNWIND_FAILED;
		pu->failed++;
	}
	if (pu->cfg.on_stack)
		pu->cfg.on_stack(pu->cfg.ctx, &st);
}

/* the samples that waited for maps: every ring was read since */
static void pu_retry(struct perf_user *pu)
{
	unsigned int i;

	pu->retrying = true;
	for (i = 0; i < pu->ndefer; i++) {
		pu_sample(pu, &pu->defer[i].s);
		free(pu->defer[i].stack);
	}
	pu->ndefer = 0;
	pu->retrying = false;
}

/*
 * The kernel filter of event "sys:ev" in the instance (-e 'EV if EXPR'),
 * for perf too: a hit the instance filters out is not worth 8 KiB of
 * stack. NULL when none.
 */
static char *event_filter(struct source_ctx *s, const char *name)
{
	char rel[256], *buf = NULL, *nl;
	const char *colon = strchr(name, ':');

	if (!colon || !s->tr.tfs)
		return NULL;
	snprintf(rel, sizeof(rel), "%sevents/%.*s/%s/filter", s->tr.prefix, (int)(colon - name), name,
		 colon + 1);
	if (tfs_read(s->tr.tfs, rel, &buf, NULL) < 0)
		return NULL;
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	if (!buf[0] || !strcmp(buf, "none")) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* the session's events perf can sample: tracepoints "system:event" */
static int pu_events(struct perf_user *pu, struct source_ctx *s, unsigned int n)
{
	struct glue *g = pu->g;
	unsigned int i, k = 0;

	pu->events = calloc(n, sizeof(*pu->events));
	if (!g) {
		for (i = 0; pu->events && i < n; i++)
			pu->events[k++] = source_event(s, i);
		return pu->events ? (int)k : -ENOMEM;
	}
	pu->filters = calloc(n, sizeof(*pu->filters));
	g->evmap = calloc(n, sizeof(*g->evmap));
	g->sampled = calloc(n, sizeof(*g->sampled));
	if (!pu->events || !pu->filters || !g->evmap || !g->sampled)
		return -ENOMEM;
	g->nsampled = n;
	for (i = 0; i < n; i++) {
		const char *e = source_event(s, i);

		/* function-tracer entries ("ftrace:function f") are no tracepoints */
		if (!strchr(e, ':') || strchr(e, ' ') || !strncmp(e, "ftrace:", 7))
			continue;
		g->evmap[k] = (int)i;
		g->sampled[i] = true;
		pu->filters[k] = event_filter(s, e);
		pu->events[k++] = e;
		pu->nevents = k;
	}
	return (int)k;
}

static int add_task(struct perf_user *pu, pid_t tid)
{
	if (pu->ntasks == pu->ctasks) {
		unsigned int c = pu->ctasks ? pu->ctasks * 2 : 64;
		pid_t *nt = realloc(pu->tasks, c * sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		pu->tasks = nt;
		pu->ctasks = c;
	}
	pu->tasks[pu->ntasks++] = tid;
	return 0;
}

/*
 * -p/--tid: perf samples only those threads (every thread of a -p process
 * as it is now, and what they start), so the kernel does not copy 8 KiB of
 * stack for every other process's hits. Past PU_TASKS_MAX events (threads x
 * CPUs x events) the whole system is sampled, as without -p.
 */
static void pu_tasks(struct perf_user *pu, struct source_ctx *s, struct perfsamp_opts *o, int nev)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int i;

	if (!s->tr.opts->npids && !s->tr.opts->ntids)
		return;
	for (i = 0; i < s->tr.opts->npids; i++) {
		char path[64];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%d/task", s->tr.opts->pids[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			char *end;
			long tid = strtol(de->d_name, &end, 10);

			if (!*end && tid > 0 && add_task(pu, (pid_t)tid) < 0)
				break;
		}
		closedir(d);
	}
	for (i = 0; i < s->tr.opts->ntids; i++)
		if (add_task(pu, s->tr.opts->tids[i]) < 0)
			break;
	if (!pu->ntasks || (long)pu->ntasks * (ncpu > 0 ? ncpu : 1) * nev > PU_TASKS_MAX) {
		log_info("user stacks: %u threads: perf samples the whole system", pu->ntasks);
		return;
	}
	o->tasks = pu->tasks;
	o->ntasks = (int)pu->ntasks;
	o->inherit = true;
}

static int pu_open(struct source *src, char *err, size_t errsz)
{
	struct perf_user *pu = src->priv;
	struct source_ctx *s = src->ctx;
	struct perfsamp_opts o = { 0 };
	struct perfsamp_cb cb;
	unsigned int n = source_nevents(s);
	int r, k;

	if (!pu) {
		pu = glue_new(s);
		if (!pu)
			return fmt_error(err, errsz, -ENOMEM, "user stacks: out of memory");
		src->priv = pu;
	}
	if (!n)
		return fmt_error(err, errsz, -EINVAL, "user stacks: no event");
	k = pu_events(pu, s, n);
	pu->uw = dwunwind_new();
	if (k < 0 || !pu->uw)
		return fmt_error(err, errsz, -ENOMEM, "user stacks: out of memory");
	if (!k)
		return fmt_error(err, errsz, -EOPNOTSUPP,
				 "--user=dwarf: no traced event is a tracepoint perf can sample");
	o.tracefs = s->stats.tracefs[0] ? s->stats.tracefs : NULL;
	o.events = pu->events;
	o.nevents = k;
	o.filters = (const char *const *)pu->filters;
	if (pu->g)
		pu_tasks(pu, s, &o, k);
	/* every process, or the threads pu_tasks() lists (-p, --tid) */
	o.pid = pu->cfg.pid > 0 ? pu->cfg.pid : -1;
	o.stack_size = pu->cfg.stack_size;
	/* 2 MiB a CPU: some 250 samples of 8 KiB between two reads */
	o.ring_pages = pu->g ? PU_RING_PAGES : 0;
	cb = pu->cfg.perf;
	cb.sample = pu_sample;
	cb.ctx = pu;
	r = perfsamp_open(&pu->ps, &o, &cb, err, errsz);
	if (r < 0)
		return r;
	if (pu->g) {
		ingest_set_user_hold(s->ing, on_hold, pu->g);
		procs_scan(pu->g);
	}
	trace_traced_append(&s->tr, "user stacks (dwarf)");
	return 0;
}

static int pu_pollfds(const struct source *src, struct pollfd *fds, int max)
{
	const struct perf_user *pu = src->priv;

	return pu && pu->ps ? perfsamp_pollfds(pu->ps, fds, max) : 0;
}

/*
 * The session's budget counts pages; a sample is about 2-3 pages of stack:
 * take what is left of it as a record budget, and stop on its flag or clock.
 * The instance's rings were read just before (same budget): when neither
 * read was cut, every record and sample from before this drain began is in,
 * and a record older than that still without its sample gets none.
 */
static int pu_drain(struct source *src, struct drain_budget *b)
{
	struct perf_user *pu = src->priv;
	uint64_t start = b->started ? b->started : mono_now();
	bool whole = !b->more, more = false;
	unsigned int left = PU_MIN_RECORDS;
	int r;

	/*
	 * the instance may have used the whole budget: a few samples all the
	 * same, or their ring would never be read while the instance is behind
	 */
	if (!drain_budget_spent(b) && b->pages > b->used + left)
		left = b->pages - b->used;
	r = perfsamp_drain(pu->ps, left, &more);
	if (r > 0)
		b->used += (unsigned int)r;
	pu_retry(pu);
	if (more)
		b->more = true;
	else if (whole && pu->g && start > PU_SLACK_NS)
		ujoin_advance(pu->g->join, start - PU_SLACK_NS + PU_TIMEOUT_NS);
	return r;
}

static int pu_tick(struct source *src)
{
	struct perf_user *pu = src->priv;
	struct perfsamp_stats st;

	if (pu->g) {
		ujoin_advance(pu->g->join, mono_now());
		procs_expire(pu->g);
	}
	perfsamp_stats(pu->ps, &st);
	log_debug("user stacks: %llu samples (%llu not wanted), %llu lost, %llu unwound, %llu failed, %llu without maps",
		  (unsigned long long)st.samples, (unsigned long long)pu->skipped,
		  (unsigned long long)st.lost,
		  (unsigned long long)pu->unwound, (unsigned long long)pu->failed,
		  (unsigned long long)pu->nomaps);
	return 0;
}

static void pu_stats(const struct source *src, struct session_stats *sst)
{
	const struct perf_user *pu = src->priv;

	if (pu && pu->g) {
		uint64_t *v = (uint64_t *)&sst->ujoin;
		const uint64_t *b = (const uint64_t *)&pu->g->base;
		size_t i;

		_Static_assert(sizeof(struct ujoin_stats) % sizeof(uint64_t) == 0,
			       "ujoin_stats holds counters only");
		/* since the last reset, as the hits beside them */
		ujoin_stats(pu->g->join, &sst->ujoin);
		for (i = 0; i < sizeof(sst->ujoin) / sizeof(uint64_t); i++)
			v[i] -= b[i];
	}
}

/* a reset: what waits is dropped with the counts */
static int pu_reset(struct source *src)
{
	struct perf_user *pu = src->priv;

	if (pu->g) {
		pu->g->discard = true;
		ujoin_flush(pu->g->join);
		pu->g->discard = false;
		ujoin_stats(pu->g->join, &pu->g->base);
	}
	return 0;
}

static void pu_close(struct source *src)
{
	struct perf_user *pu = src->priv;
	unsigned int i;

	if (!pu)
		return;
	perfsamp_close(pu->ps);
	while (pu->ndefer)
		free(pu->defer[--pu->ndefer].stack);
	glue_free(pu->g);
	dwunwind_free(pu->uw);
	for (i = 0; i < pu->nvdsos; i++)
		free(pu->vdsos[i].image);
	for (i = 0; pu->filters && i < pu->nevents; i++)
		free(pu->filters[i]);
	free(pu->filters);
	free(pu->tasks);
	free(pu->events);
	free(pu);
	src->priv = NULL;
}

const struct source_ops source_perf_user_ops = {
	.name = "perf_user",
	.open = pu_open,
	.pollfds = pu_pollfds,
	.drain = pu_drain,
	.tick = pu_tick,
	.stats = pu_stats,
	.reset = pu_reset,
	.close = pu_close,
};
