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
#include "kernel/comm.h"
#include "kernel/evfmt.h"
#include "kernel/perfsamp.h"
#include "source/source.h"
#include "sym/usym.h"

#define ONCPU_RING_PAGES  64   /* 256 KiB a CPU: ~1 s of 999 Hz chains of 127 frames */
#define ONCPU_RING_MAX	  1024 /* grown where samples are lost */
#define ONCPU_MIN_RECORDS 4096 /* read per drain even when the budget is spent */

#define SAMPLE_EVENTS_MAX 64

struct oncpu {
	struct perfsamp *ps;
	struct source_ctx *s;
	int events[SAMPLE_EVENTS_MAX]; /* the session's index of each sampled event */
	int nevents;
	uint64_t per_sample;		  /* the hits a sample stands for: 1, or --sample's N */
	char *names[SAMPLE_EVENTS_MAX];	  /* --sample: "sys:ev" of each -e */
	char *filters[SAMPLE_EVENTS_MAX]; /* and its " if FILTER" part, or NULL */
	uint64_t frames[STACK_MAX_DEPTH];
	uint64_t user_samples; /* taken in user space, without -u: "[user space]" */
	uint64_t kept;	       /* samples counted (--sample: what the hits are estimated from) */
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
	if (smp->event < 0 || smp->event >= o->nevents)
		return;
	ingest_count_stack(o->s->ing, (unsigned int)o->events[smp->event], (int)smp->pid,
			   (int)smp->tid, smp->cpu, o->frames, n, smp->weight);
	o->kept++;
}

/* a thread named itself, or exec'd: its name while it lives (it may be gone when shown) */
static void oncpu_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct oncpu *o = ctx;
	int32_t t = (int32_t)tid;

	(void)pid;
	(void)exec;
	comm_cache_learn(o->s->comms, &t, &comm, 1);
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

/* --sample: the -e events ("sys:ev" or "sys:ev if FILTER"; none: sched:sched_switch) */
static int sample_events(struct oncpu *o, struct perfsamp_opts *po)
{
	const struct session_opts *so = o->s->tr.opts;
	static const char *const dflt = "sched:sched_switch";
	int n = so->nevents ? so->nevents : 1, i;

	if (n > SAMPLE_EVENTS_MAX)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		const char *e = so->nevents ? so->events[i] : dflt;
		const char *sp = strstr(e, " if ");

		o->names[i] = sp ? strndup(e, (size_t)(sp - e)) : strdup(e);
		o->filters[i] = sp ? strdup(sp + 4) : NULL;
		if (!o->names[i] || (sp && !o->filters[i]))
			return -ENOMEM;
		o->events[i] = evfmt_add_named(o->s->tr.fmt, o->names[i]);
		if (o->events[i] < 0)
			return o->events[i];
	}
	o->nevents = n;
	po->events = (const char *const *)o->names;
	po->nevents = n;
	po->filters = (const char *const *)o->filters;
	po->period = so->sample_period;
	po->chains = true;
	o->per_sample = so->sample_period;
	return 0;
}

static int oncpu_open(struct source *src, char *err, size_t errsz)
{
	struct source_ctx *s = src->ctx;
	const struct session_opts *so = s->tr.opts;
	static const char *const clock_name = "perf:cpu-clock";
	struct perfsamp_opts po = {
		.pid = -1,
		.ring_pages = ONCPU_RING_PAGES,
		.ring_max_pages = ONCPU_RING_MAX,
		.clock_hz = so->oncpu_hz,
		.user_chain = s->user_on,
	};
	struct perfsamp_cb cb = { .sample = oncpu_sample, .comm = oncpu_comm, .lost = oncpu_lost };
	struct oncpu *o = calloc(1, sizeof(*o));
	char traced[512];
	int r;

	if (!o)
		return -ENOMEM;
	src->priv = o;
	o->s = s;
	if (so->oncpu_hz) {
		po.events = &clock_name;
		po.nevents = 1;
		o->per_sample = 1;
		o->nevents = 1;
		o->events[0] = evfmt_add_named(s->tr.fmt, clock_name);
		r = o->events[0];
	} else {
		r = sample_events(o, &po);
	}
	if (r < 0)
		return r;
	r = oncpu_tasks(o, &po);
	if (r < 0)
		return r;
	cb.ctx = o;
	r = perfsamp_open(&o->ps, &po, &cb, err, errsz);
	if (r < 0)
		return r;
	if (so->oncpu_hz) {
		snprintf(traced, sizeof(traced), "cpu-clock at %u Hz per CPU (perf%s)",
			 so->oncpu_hz, s->user_on ? ", user chains by frame pointers" : "");
	} else {
		perfsamp_randomize_period(o->ps, so->sample_period);
		snprintf(traced, sizeof(traced),
			 "%s%s (perf: every hit counted, a stack for about 1 in %u, the period "
			 "randomized; a stack's hits are those its samples stand for)",
			 o->names[0], o->nevents > 1 ? " and more" : "", so->sample_period);
	}
	free(s->tr.traced);
	s->tr.traced = strdup(traced);
	s->stats.tracing_on = true;
	log_info("%s", traced);
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
	/* a new period for each event's next sample: no lock-step with periodic code */
	if (o->per_sample > 1 && r > 0)
		perfsamp_randomize_period(o->ps, (unsigned int)o->per_sample);
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
	if (o->per_sample > 1) {
		uint64_t c[SAMPLE_EVENTS_MAX];
		int k;

		perfsamp_counts(o->ps, c, o->nevents);
		st->exact_events = 0;
		for (k = 0; k < o->nevents; k++)
			st->exact_events += c[k];
		st->sample_period = (unsigned int)o->per_sample;
		st->samples = o->kept;
	}
	st->tracing_on = true;
}

static void oncpu_close(struct source *src)
{
	struct oncpu *o = src->priv;

	if (!o)
		return;
	perfsamp_close(o->ps);
	for (int k = 0; k < SAMPLE_EVENTS_MAX; k++) {
		free(o->names[k]);
		free(o->filters[k]);
	}
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
