// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stackmap.c - the stackmap-mode source: the top-level instance records
 * stack_id entries (and kernel_stack fallbacks) with the kernel's options/
 * stackmap on (and, with --user=fp, a user_stack after each: the top-level
 * userstacktrace option, journaled like every other write); ids are
 * resolved through snapshots of the map (mapsnap.h). An unknown id
 * triggers at most one re-read of the snapshot per drain. A reset drains
 * the buffers first, then starts a new generation, so an id read before the
 * reset never resolves through the map read after it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/log.h"
#include "ingest/ingest.h"
#include "kernel/events.h"
#include "kernel/evfmt.h"
#include "kernel/pidfilter.h"
#include "kernel/probes.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "kernel/trace.h"
#include "source/cpubufs.h"
#include "source/mapsnap.h"
#include "source/source.h"

struct stackmap_src {
	struct cpubufs bufs;
	struct mapsnap map;
};

static int stackmap_open(struct source *src, char *err, size_t errsz)
{
	struct source_ctx *s = src->ctx;
	struct stackmap_src *m;
	int r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	src->priv = m;
	mapsnap_init(&m->map, s->tr.tfs, s->ing, s->table, s->tr.ksym, &s->stats, false);
	if (s->tr.fmt->stackid_type < 0)
		return fmt_error(err, errsz, -ENODEV, "no ftrace/stack_id event on this kernel");
	/*
	 * stacktop's own reads of tracefs run through whatever the user traces
	 * at the top level (a function tracer on vfs_*: its every read() is
	 * an event): its pid joins the user's notrace lists, before the events
	 */
	pidfilter_exclude_self(&s->tr);
	s->stats.buffer_kb = trace_buffer_kb(&s->tr);
	/*
	 * The option before the events, triggers and the function tracer: a
	 * stack recorded in between would come as a full kernel_stack record
	 * (counted as a fallback), not as an id.
	 */
	r = state_write(s->tr.state, "options/stackmap", "1");
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot enable the stackmap option: %s%s",
				 strerror(-r),
				 r == -EINVAL ? " (the kernel's map failed to initialize?)" : "");
	r = events_setup(&s->tr, err, errsz);
	if (r < 0)
		return r;
	r = probes_setup_function(&s->tr, err, errsz);
	if (r < 0)
		return r;
	/* -p: saved_tgids places threads that end before stacktop looks (tgid.h) */
	if (s->tr.opts->npids && !s->tr.opts->tracefs &&
	    tfs_exists(s->tr.tfs, "options/record-tgid") &&
	    state_write(s->tr.state, "options/record-tgid", "1") < 0)
		log_warn("cannot turn on record-tgid: threads that end quickly may be missed");
	/* --trigger: the stacks come from the triggers alone */
	r = state_write(s->tr.state, "options/stacktrace", s->tr.trigger_mode ? "0" : "1");
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot enable stacktrace: %s", strerror(-r));
	if (s->user_on) {
		/* the kernel's frame-pointer walk: a user_stack after each stack_id */
		if (!tfs_exists(s->tr.tfs, "options/userstacktrace") || s->tr.fmt->ustack_type < 0)
			return fmt_error(err, errsz, -EOPNOTSUPP,
					 "this kernel has no userstacktrace option (--user=fp)");
		r = state_write(s->tr.state, "options/userstacktrace", "1");
		if (r < 0)
			return fmt_error(err, errsz, r, "cannot enable userstacktrace: %s",
					 strerror(-r));
	}
	r = state_write(s->tr.state, "tracing_on", "1");
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot turn tracing on: %s", strerror(-r));
	mapsnap_stat_check(&m->map); /* the table_size bounds the ids of the first read */
	mapsnap_read(&m->map);
	return cpubufs_open(&m->bufs, s, err, errsz);
}

static int stackmap_pollfds(const struct source *src, struct pollfd *fds, int max)
{
	const struct stackmap_src *m = src->priv;

	return cpubufs_pollfds(&m->bufs, fds, max);
}

static void stackmap_full(void *ctx)
{
	mapsnap_checkpoint(ctx);
}

static int stackmap_drain(struct source *src, struct drain_budget *budget)
{
	struct stackmap_src *m = src->priv;
	bool more_before = budget->more;
	int pages;

	m->map.read_this_drain = false;
	mapsnap_health_mark(&m->map); /* the last drain's ids are resolved */
	if (mapsnap_stat_check(&m->map) == 1)
		mapsnap_external_reset(&m->map);
	budget->more = false;
	pages = cpubufs_drain(&m->bufs, src->ctx, budget, stackmap_full, &m->map);
	mapsnap_checkpoint(&m->map);
	if (!budget->more)
		m->map.discard_ids = false; /* the buffer was read to its end */
	budget->more |= more_before;
	return pages;
}

static int stackmap_tick(struct source *src)
{
	struct stackmap_src *m = src->priv;

	cpubufs_read_stats(&m->bufs, src->ctx);
	if (mapsnap_stat_check(&m->map) == 1)
		mapsnap_external_reset(&m->map);
	mapsnap_health_tick(&m->map);
	return 0;
}

/*
 * tracing_on is saved and cleared, the buffers drained (within a budget),
 * `0` written to stack_map, tracing_on restored. With tracing off the
 * buffers are finite, but a slow reader may still not get through them in
 * time: whatever the budget leaves was recorded under the old map and is
 * wiped (the top-level buffer is stacktop's while it holds the top-level
 * lock), so that no old id resolves through the new map.
 */
static int stackmap_reset(struct source *src)
{
	struct stackmap_src *m = src->priv;
	struct source_ctx *s = src->ctx;
	long long was_on = 0;
	bool more = false;
	int r, r2;

	if (tfs_read_long(s->tr.tfs, "tracing_on", &was_on) < 0)
		was_on = 1;
	if (was_on) {
		r = state_write(s->tr.state, "tracing_on", "0");
		if (r < 0)
			return r;
	}
	/* everything recorded under the old map is read and resolved now */
	s->host.drain(s->host.host, &more);
	m->map.read_this_drain = false;
	mapsnap_checkpoint(&m->map);
	r = tfs_write(s->tr.tfs, "stack_map", "0");
	if (r == 0) {
		/*
		 * v1-v3 keep the buffer: a record committed after the drain above
		 * (or left by its budget) belongs to the old map; the counts
		 * restart anyway, so read it away without resolving it through
		 * the new one.
		 */
		s->stats.have_map_stat = false; /* the counters restart from 0 */
		m->map.discard_ids = true;
		s->host.drain(s->host.host, &more);
		if (more) {
			r2 = tfs_write(s->tr.tfs, "trace", "");
			if (r2 < 0)
				log_warn(
					"cannot clear the buffers after a reset: %s; ids of the old map are dropped until they are read",
					strerror(-r2));
			else
				ingest_forget_waiting(s->ing);
			more = r2 < 0;
		}
		m->map.discard_ids = more;
		mapsnap_new_generation(&m->map);
		cpubufs_zero_stats(&m->bufs);
		s->host.zero_counts(s->host.host);
	}
	if (was_on) {
		r2 = tfs_write(s->tr.tfs, "tracing_on", "1");
		if (r2 < 0 && r == 0)
			r = r2;
	}
	return r;
}

static void stackmap_close(struct source *src)
{
	struct stackmap_src *m = src->priv;

	if (!m)
		return;
	cpubufs_close(&m->bufs);
	mapsnap_fini(&m->map);
	free(m);
	src->priv = NULL;
}

const struct source_ops source_stackmap_ops = {
	.name = "stackmap",
	.open = stackmap_open,
	.pollfds = stackmap_pollfds,
	.drain = stackmap_drain,
	.tick = stackmap_tick,
	.reset = stackmap_reset,
	.close = stackmap_close,
};
