// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * instance.c - the stacks-mode source: a private instance stacktop.<pid>
 * records full kernel_stack entries; any kernel with CONFIG_STACKTRACE.
 * The instance is removed whole on exit (state.h), so its files need no
 * journal (the trace clock is journaled all the same).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
#include "source/source.h"

/*
 * The cheapest trace clock the kernel offers. stacktop reads the ring
 * buffer's time stamps only for --offcpu (its intervals are CLOCK_MONOTONIC),
 * but the kernel reads the clock for every record it reserves, two per event
 * here: `local` is sched_clock(), kvm-clock in a VM, 10% of a traced
 * syscall's time (doc/performance.md); `x86-tsc` is one rdtsc. Other kernels
 * keep theirs. --offcpu weighs the nanoseconds between two records: the
 * instance keeps its own `local` clock (TSC cycles are not nanoseconds).
 * --user=dwarf joins each record to a perf sample stamped CLOCK_MONOTONIC:
 * the instance takes `mono` (ktime_get_mono_fast_ns(), the same clock;
 * nanoseconds, so --offcpu is served too), whatever it costs.
 */
static void instance_clock(struct source_ctx *s)
{
	char rel[160], *cur = NULL;
	int r;

	trace_path(&s->tr, rel, sizeof(rel), "trace_clock");
	if (s->user_mode == SESSION_USER_DWARF) {
		r = state_write(s->tr.state, rel, "mono");
		if (r < 0)
			log_warn("cannot set trace_clock mono (%s): user stacks will not join",
				 strerror(-r));
		return;
	}
	if (s->tr.opts->offcpu)
		return;
	if (tfs_read(s->tr.tfs, rel, &cur, NULL) < 0)
		return;
	if (strstr(cur, "x86-tsc") && !strstr(cur, "[x86-tsc]")) {
		r = state_write(s->tr.state, rel, "x86-tsc");
		if (r < 0)
			log_debug("cannot set trace_clock x86-tsc: %s", strerror(-r));
	}
	free(cur);
}

/*
 * The ring buffer: --buffer-kb, else INSTANCE_KB a CPU (INSTANCE_TOTAL_KB in
 * all at most) when that is more than the kernel gives a new instance. The
 * kernel's 1408 KiB last ~150 ms of a busy machine's switches (100,000 a
 * second); the screen's reader also waits on its terminal (tmux or ssh on
 * the same busy CPUs take its output), and lost records where the batch mode
 * lost none (tui-loss, issue 27). Here it takes 450 ms.
 */
#define INSTANCE_KB	  4096
#define INSTANCE_TOTAL_KB 65536

static void instance_size(struct source_ctx *s)
{
	unsigned int kb = s->tr.opts->buffer_kb, ncpus = trace_count_cpus(&s->tr);
	char rel[160], val[32];
	int r;

	if (!kb) {
		kb = ncpus ? INSTANCE_TOTAL_KB / ncpus : 0;
		if (kb > INSTANCE_KB)
			kb = INSTANCE_KB;
		if (kb <= trace_buffer_kb(&s->tr))
			kb = 0; /* the kernel's is as large */
	}
	if (kb) {
		trace_path(&s->tr, rel, sizeof(rel), "buffer_size_kb");
		snprintf(val, sizeof(val), "%u", kb);
		r = tfs_write(s->tr.tfs, rel, val);
		if (r < 0)
			log_warn("cannot set buffer_size_kb: %s", strerror(-r));
	}
	s->stats.buffer_kb = trace_buffer_kb(&s->tr);
}

/*
 * @bufs: the readers
 * @let_go: the thread that empties the instance's own pid list before the
 *	end (instance_ending()), joined at close
 * @letting_go: it was started
 */
struct instance_src {
	struct cpubufs bufs;
	pthread_t let_go;
	bool letting_go;
};

static int instance_open(struct source *src, char *err, size_t errsz)
{
	struct source_ctx *s = src->ctx;
	struct instance_src *p;
	struct cpubufs *b;
	char rel[160];
	int r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	src->priv = p;
	b = &p->bufs;
	snprintf(s->tr.prefix, sizeof(s->tr.prefix), "instances/stacktop.%d/", (int)getpid());
	snprintf(rel, sizeof(rel), "instances/stacktop.%d", (int)getpid());
	if (s->tr.fmt->kstack_type < 0)
		return fmt_error(
			err, errsz, -ENODEV,
			"this kernel records no kernel_stack events (CONFIG_STACKTRACE off?)");
	r = state_mkdir(s->tr.state, rel);
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot create instance %s: %s", rel, strerror(-r));
	s->tr.instance = true;
	trace_path(&s->tr, rel, sizeof(rel), "options/stacktrace");
	if (!tfs_exists(s->tr.tfs, rel))
		return fmt_error(err, errsz, -ENODEV,
				 "this kernel has no stacktrace option in instances");
	instance_size(s);
	instance_clock(s);
	/*
	 * A new instance records at once (tracing_on 1): off until every
	 * option is set, or the first events come without their stack (under
	 * load, --offcpu counted such a switch-out as dropped). --user=dwarf:
	 * no record before perf samples the events too (a record from before
	 * could have no user stack); the session starts the instance once the
	 * perf events are enabled (session/user.c). Not for --trigger: an
	 * unconditional trigger fires before its event is recorded, tracing on
	 * or off, and would use up its count on records never written
	 * (stacktrace:20 gave 19 stacks and an orphan).
	 */
	if (!s->tr.trigger_mode || s->user_mode == SESSION_USER_DWARF) {
		trace_path(&s->tr, rel, sizeof(rel), "tracing_on");
		r = tfs_write(s->tr.tfs, rel, "0");
		if (r < 0)
			return fmt_error(err, errsz, r,
					 "cannot stop the new instance's tracing: %s",
					 strerror(-r));
	}
	/* our own reads are not recorded at all (kernels since 5.10), nor do
	 * they fire (and use up) a trigger: before the events */
	pidfilter_exclude_self(&s->tr);
	r = events_setup(&s->tr, err, errsz);
	if (r < 0)
		return r;
	r = probes_setup_function(&s->tr, err, errsz);
	if (r < 0)
		return r;
	r = pidfilter_setup(&s->tr, err, errsz);
	if (r < 0)
		return r;
	/* --trigger: the stacks come from the triggers alone */
	trace_path(&s->tr, rel, sizeof(rel), "options/stacktrace");
	r = tfs_write(s->tr.tfs, rel, s->tr.trigger_mode ? "0" : "1");
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot enable stacktrace: %s", strerror(-r));
	if (s->user_on && s->user_mode == SESSION_USER_FP) {
		/* the kernel's frame-pointer walk: a user_stack after each kernel_stack */
		trace_path(&s->tr, rel, sizeof(rel), "options/userstacktrace");
		if (!tfs_exists(s->tr.tfs, rel) || s->tr.fmt->ustack_type < 0)
			return fmt_error(
				err, errsz, -EOPNOTSUPP,
				"this kernel has no userstacktrace option in instances (--user=fp)");
		r = tfs_write(s->tr.tfs, rel, "1");
		if (r < 0)
			return fmt_error(err, errsz, r, "cannot enable userstacktrace: %s",
					 strerror(-r));
	}
	if (s->user_mode != SESSION_USER_DWARF) {
		trace_path(&s->tr, rel, sizeof(rel), "tracing_on");
		r = tfs_write(s->tr.tfs, rel, "1");
		if (r < 0)
			return r;
	}
	return cpubufs_open(b, s, err, errsz);
}

static int instance_pollfds(const struct source *src, struct pollfd *fds, int max)
{
	const struct instance_src *p = src->priv;

	return cpubufs_pollfds(&p->bufs, fds, max);
}

static int instance_drain(struct source *src, struct drain_budget *budget)
{
	struct instance_src *p = src->priv;

	return cpubufs_drain(&p->bufs, src->ctx, budget, NULL, NULL);
}

static int instance_tick(struct source *src)
{
	struct instance_src *p = src->priv;

	cpubufs_read_stats(&p->bufs, src->ctx);
	return 0;
}

static void *instance_let_go(void *arg)
{
	pidfilter_release_self(arg);
	return NULL;
}

/*
 * The end is near: the instance's own pid list goes now, in a thread of
 * its own (the kernel's grace periods, 60-400 ms), while the run reads on
 * (ingest drops stacktop's records meanwhile), so that the rmdir after the
 * last report does not wait for them too. Not on a --tracefs tree: there
 * ingest does not know stacktop's pid in the records.
 */
static void instance_ending(struct source *src)
{
	struct instance_src *p = src->priv;
	struct source_ctx *s = src->ctx;

	if (!p || p->letting_go || s->tr.opts->tracefs || s->tr.opts->show_self)
		return;
	p->letting_go = !pthread_create(&p->let_go, NULL, instance_let_go, &s->tr);
}

/*
 * The buffer is ours alone: what it holds is wiped (opening the instance's
 * `trace` with O_TRUNC, constant time however fast the buffer fills), then
 * only stacktop's counts go. Where the wipe fails, it is read away within
 * the reset's budget instead.
 */
static int instance_reset(struct source *src)
{
	struct source_ctx *s = src->ctx;
	char rel[160];
	bool more = false;
	int r;

	trace_path(&s->tr, rel, sizeof(rel), "trace");
	r = tfs_write(s->tr.tfs, rel, "");
	if (r < 0) {
		log_debug("cannot clear %s: %s; reading it away", rel, strerror(-r));
		s->host.drain(s->host.host, &more);
	}
	ingest_forget_waiting(s->ing);
	cpubufs_zero_stats(&((struct instance_src *)src->priv)->bufs);
	s->host.zero_counts(s->host.host);
	s->stats.generation++;
	return 0;
}

static void instance_close(struct source *src)
{
	struct instance_src *p = src->priv;

	if (p && p->letting_go)
		pthread_join(p->let_go, NULL);
	if (p)
		cpubufs_close(&p->bufs);
	free(p);
	src->priv = NULL;
}

const struct source_ops source_instance_ops = {
	.name = "instance",
	.open = instance_open,
	.pollfds = instance_pollfds,
	.drain = instance_drain,
	.tick = instance_tick,
	.ending = instance_ending,
	.reset = instance_reset,
	.close = instance_close,
};
