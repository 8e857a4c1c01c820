// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oncpu.c - on-CPU profiling (--oncpu[=HZ], source_oncpu_ops): where the
 * CPUs spend their time, as `perf record -F HZ -g` and `perf top -g` see it.
 *
 * One cpu-clock event per CPU (PERF_COUNT_SW_CPU_CLOCK at HZ samples a
 * second, perfsamp.h), each sample's call chain read from the CPU's perf
 * ring by the reader the dwarf mode uses. The kernel's chain starts at the
 * interrupted instruction: no timer-interrupt or NMI frames, unlike a
 * tracepoint on the tick (the recipe before: every stack began with
 * asm_sysvec_apic_timer_interrupt). A sample taken in user space has no
 * kernel part: it is the row "[user space]" of its process, or, with -u,
 * its user chain (the kernel's frame-pointer walk, as `perf record -g`).
 *
 * Nothing in tracefs changes: the session journals nothing for this mode.
 * Samples the kernel lost (a full ring) are the header's lost events; its
 * throttling (kernel.perf_event_max_sample_rate) is counted and said.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "core/log.h"
#include "core/stack.h"
#include "ingest/ingest.h"
#include "kernel/evfmt.h"
#include "kernel/perfsamp.h"
#include "source/source.h"
#include "sym/usym.h"

#define ONCPU_RING_PAGES  64   /* 256 KiB a CPU: ~1 s of 999 Hz chains of 127 frames */
#define ONCPU_RING_MAX	  1024 /* grown where samples are lost */
#define ONCPU_MIN_RECORDS 4096 /* read per drain even when the budget is spent */

struct oncpu {
	struct perfsamp *ps;
	struct source_ctx *s;
	int event; /* the session's event index of the samples */
	uint64_t frames[STACK_MAX_DEPTH];
	uint64_t user_samples; /* taken in user space, without -u: "[user space]" */
	pid_t *tasks;
	unsigned int ntasks;
};

/*
 * The chain of a sample: PERF_CONTEXT_KERNEL then the kernel frames (the
 * first the interrupted instruction), PERF_CONTEXT_USER then the user
 * frames. Kernel frames first into @f, then with -u the separator of @tgid
 * and the user frames as tokens.
 */
static unsigned int chain_frames(struct oncpu *o, const struct perfsamp_sample *smp, uint64_t *f)
{
	struct usym *u = o->s->user_on ? o->s->usym : NULL;
	unsigned int n = 0, nuser = 0;
	bool user = false;
	uint64_t i;

	for (i = 0; i < smp->nchain && n < STACK_MAX_DEPTH - 1; i++) {
		uint64_t ip = smp->chain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			if (ip == (uint64_t)PERF_CONTEXT_USER) {
				user = true;
				if (!u)
					break;
				f[n++] = usym_sep(smp->pid);
			} else if (user) {
				break; /* a guest's context or another marker: the chain ends */
			}
			continue;
		}
		if (!user) {
			f[n++] = ip;
			continue;
		}
		ip = usym_intern(u, smp->pid, ip);
		if (!ip)
			break; /* its process is gone, or the symbolizer's share is full */
		f[n++] = ip;
		nuser++;
	}
	/* a separator with nothing after it says nothing */
	if (user && u && !nuser && n && usym_is_sep(f[n - 1]))
		n--;
	return n;
}

static void oncpu_sample(void *ctx, const struct perfsamp_sample *smp)
{
	struct oncpu *o = ctx;
	unsigned int n = chain_frames(o, smp, o->frames);

	if (!n) {
		/*
		 * user code: no kernel part, and the user part not asked for
		 * (the chain is empty then) or not walked
		 */
		o->frames[0] = STACK_IP_USER_MODE;
		n = 1;
		o->user_samples++;
	}
	ingest_count_stack(o->s->ing, (unsigned int)o->event, (int)smp->pid, (int)smp->tid,
			   smp->cpu, o->frames, n);
}

static void oncpu_lost(void *ctx, uint32_t cpu, uint64_t count, uint64_t time)
{
	struct oncpu *o = ctx;

	(void)cpu;
	(void)time;
	ingest_stats(o->s->ing)->lost += count;
}

/* -p, --tid, -- CMD: the threads to sample; none: every CPU's every task */
static int oncpu_tasks(struct oncpu *o, struct perfsamp_opts *po)
{
	const struct session_opts *so = o->s->tr.opts;
	int i;

	if (!so->npids && !so->ntids)
		return 0;
	o->tasks = calloc((size_t)so->npids + (size_t)so->ntids, sizeof(*o->tasks));
	if (!o->tasks)
		return -ENOMEM;
	for (i = 0; i < so->npids; i++)
		o->tasks[o->ntasks++] = so->pids[i];
	for (i = 0; i < so->ntids; i++)
		o->tasks[o->ntasks++] = so->tids[i];
	/* threads the processes start later, and their children (-- CMD) */
	po->tasks = o->tasks;
	po->ntasks = (int)o->ntasks;
	po->inherit = true;
	return 0;
}

static int oncpu_open(struct source *src, char *err, size_t errsz)
{
	struct source_ctx *s = src->ctx;
	const struct session_opts *so = s->tr.opts;
	const char *name = "perf:cpu-clock";
	struct perfsamp_opts po = {
		.events = &name,
		.nevents = 1,
		.pid = -1,
		.ring_pages = ONCPU_RING_PAGES,
		.ring_max_pages = ONCPU_RING_MAX,
		.clock_hz = so->oncpu_hz,
		.user_chain = s->user_on,
	};
	struct perfsamp_cb cb = { .sample = oncpu_sample, .lost = oncpu_lost };
	struct oncpu *o = calloc(1, sizeof(*o));
	char traced[96];
	int r;

	if (!o)
		return -ENOMEM;
	src->priv = o;
	o->s = s;
	o->event = evfmt_add_named(s->tr.fmt, name);
	if (o->event < 0)
		return o->event;
	r = oncpu_tasks(o, &po);
	if (r < 0)
		return r;
	cb.ctx = o;
	r = perfsamp_open(&o->ps, &po, &cb, err, errsz);
	if (r < 0)
		return r;
	snprintf(traced, sizeof(traced), "cpu-clock at %u Hz per CPU (perf%s)", so->oncpu_hz,
		 s->user_on ? ", user chains by frame pointers" : "");
	free(s->tr.traced);
	s->tr.traced = strdup(traced);
	s->stats.tracing_on = true;
	log_info("on-CPU: %s", traced);
	return s->tr.traced ? 0 : -ENOMEM;
}

static int oncpu_pollfds(const struct source *src, struct pollfd *fds, int max)
{
	const struct oncpu *o = src->priv;

	return o && o->ps ? perfsamp_pollfds(o->ps, fds, max) : 0;
}

/* the session's budget counts pages: a sample is a few hundred bytes, take it as records */
static int oncpu_drain(struct source *src, struct drain_budget *b)
{
	struct oncpu *o = src->priv;
	unsigned int left = ONCPU_MIN_RECORDS;
	bool more = false;
	int r;

	if (!drain_budget_spent(b) && b->pages > b->used)
		left += (b->pages - b->used) * 8;
	r = perfsamp_drain(o->ps, left, &more);
	if (r > 0)
		b->used += (unsigned int)r / 8;
	if (more)
		b->more = true;
	return r;
}

static void oncpu_stats(const struct source *src, struct session_stats *st)
{
	const struct oncpu *o = src->priv;
	struct perfsamp_stats ps;

	if (!o || !o->ps)
		return;
	perfsamp_stats(o->ps, &ps);
	st->throttled = ps.throttled;
	st->tracing_on = true;
}

static void oncpu_close(struct source *src)
{
	struct oncpu *o = src->priv;

	if (!o)
		return;
	perfsamp_close(o->ps);
	free(o->tasks);
	free(o);
	src->priv = NULL;
}

const struct source_ops source_oncpu_ops = {
	.name = "oncpu",
	.open = oncpu_open,
	.pollfds = oncpu_pollfds,
	.drain = oncpu_drain,
	.stats = oncpu_stats,
	.close = oncpu_close,
};
