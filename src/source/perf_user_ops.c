// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf_user_ops.c - the dwarf source's operations (source_perf_user_ops):
 * open (the events perf can sample with the instance's filters, the
 * threads of -p/--tid, perfsamp), the drain that joins what both rings
 * gave, the tick, the counters, the reset and the close.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/format.h"
#include "core/log.h"
#include "ingest/ingest.h"
#include "kernel/tfs.h"
#include "source/perf_user_priv.h"

/*
 * A record whose sample is not in yet is given up once both rings were read
 * to a point PU_SLACK_NS after it (the ftrace record and the perf sample are
 * written in one tracepoint call: only a preemption between the two parts
 * delays one of them).
 */
#define PU_SLACK_NS    (10ULL * 1000 * 1000)
#define PU_MIN_RECORDS 256   /* read per drain even when the budget is spent */
#define PU_RING_PAGES  512   /* 2 MiB a CPU to start with (4 KiB pages) */
#define PU_RING_MAX    16384 /* grown where samples are lost, up to 64 MiB a CPU */
#define PU_TASKS_MAX   4096  /* per-thread perf events at most (threads x CPUs x events) */

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
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
	snprintf(rel, sizeof(rel), "%sevents/%.*s/%s/filter", s->tr.prefix, (int)(colon - name),
		 name, colon + 1);
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
		pu = pu_glue_new(s);
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
	/* the unwind tables read: an eighth of --max-memory */
	dwunwind_set_limit(pu->uw, s->mem_limit / 8);
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
	if (pu->g) {
		const struct session_opts *so = s->tr.opts;
		long page = sysconf(_SC_PAGESIZE);

		if (so->user_stack)
			o.stack_size = so->user_stack;
		o.period = so->user_sample;
		/*
		 * --user-buffer: that size, rounded up to a power of two pages;
		 * else 2 MiB a CPU (some 250 samples of 8 KiB between two reads),
		 * made larger where samples are lost: the ring follows the rate
		 */
		if (so->user_buffer) {
			o.ring_pages = 1;
			while ((size_t)o.ring_pages * (size_t)page < so->user_buffer)
				o.ring_pages *= 2;
		} else {
			o.ring_pages = PU_RING_PAGES;
			o.ring_max_pages = PU_RING_MAX;
		}
	}
	cb = pu->cfg.perf;
	cb.sample = pu_sample;
	cb.ctx = pu;
	r = perfsamp_open(&pu->ps, &o, &cb, err, errsz);
	if (r < 0)
		return r;
	if (pu->g) {
		ingest_set_user_hold(s->ing, pu_on_hold, pu->g);
		pu_procs_scan(pu->g);
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

	struct dwunwind_stats ds;

	if (pu->g) {
		ujoin_advance(pu->g->join, mono_now());
		pu_procs_expire(pu->g);
	}
	/* a new phase of the 1-in-N count each refresh, at most once a second (perfsamp.h) */
	if (mono_now() - pu->restarted >= 1000000000ULL) {
		perfsamp_restart_period(pu->ps);
		pu->restarted = mono_now();
	}
	perfsamp_stats(pu->ps, &st);
	dwunwind_stats(pu->uw, &ds);
	log_debug(
		"user stacks: %llu samples (%llu not wanted), %llu lost, %llu unwound (%llu walked, %llu replayed), %llu failed, %llu without maps; rings %llu bytes (largest %llu, grown %llu); stack bytes read by whole walks: <=512 %llu, 1K %llu, 2K %llu, 4K %llu, 8K %llu, 16K %llu, 32K %llu, more %llu",
		(unsigned long long)st.samples, (unsigned long long)pu->skipped,
		(unsigned long long)st.lost, (unsigned long long)pu->unwound,
		(unsigned long long)ds.walked, (unsigned long long)ds.replayed,
		(unsigned long long)pu->failed, (unsigned long long)pu->nomaps,
		(unsigned long long)st.ring_bytes, (unsigned long long)st.ring_max,
		(unsigned long long)st.grown, (unsigned long long)ds.used[0],
		(unsigned long long)ds.used[1], (unsigned long long)ds.used[2],
		(unsigned long long)ds.used[3], (unsigned long long)ds.used[4],
		(unsigned long long)ds.used[5], (unsigned long long)ds.used[6],
		(unsigned long long)ds.used[7]);
	return 0;
}

static void pu_stats(const struct source *src, struct session_stats *sst)
{
	const struct perf_user *pu = src->priv;

	if (pu && pu->g) {
		const struct session_opts *so = src->ctx->tr.opts;
		uint64_t *v = (uint64_t *)&sst->ujoin;
		const uint64_t *b = (const uint64_t *)&pu->g->base;
		struct perfsamp_stats ps;
		size_t i;

		perfsamp_stats(pu->ps, &ps);
		sst->user_period = so->user_sample > 1 ? so->user_sample : 1;
		sst->user_stack = so->user_stack ? so->user_stack : 8192;
		sst->user_ring = ps.ring_max;
		sst->user_ring_total = ps.ring_bytes;
		sst->user_ring_grown = ps.grown;
		sst->user_ring_full = ps.lost_unknown;
		sst->user_ring_auto = !so->user_buffer;
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
	for (i = 0; pu->filters && i < pu->nevents; i++)
		free(pu->filters[i]);
	free(pu->filters);
	free(pu->tasks);
	free(pu->events);
	perf_user_unwinder_free(pu);
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
