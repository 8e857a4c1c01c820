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
 * its user chain: with --user=dwarf (-u's default where perf can sample the
 * user registers) each sample brings the user registers and a copy of the
 * user stack, unwound by the dwarf source's unwinder (perf_user.h: the same
 * maps, unwind tables, budgets and hostile-file rules as for events), as
 * `perf record --call-graph dwarf`; with --user=fp the kernel's
 * frame-pointer walk, as `perf record -g`.
 *
 * Nothing in tracefs changes: the session journals nothing for this mode.
 * Samples the kernel lost (a full ring) are the header's lost events; its
 * throttling (kernel.perf_event_max_sample_rate) is counted and said.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "core/format.h"
#include "core/log.h"
#include "core/stack.h"
#include "ingest/ingest.h"
#include "kernel/comm.h"
#include "kernel/evfmt.h"
#include "kernel/perfsamp.h"
#include "kernel/tfs.h"
#include "source/source.h"
#include "sym/pname.h"
#include "sym/usym.h"
#if STACKTOP_USER_UNWIND
#include "source/perf_user.h"
#endif

#define ONCPU_RING_PAGES  64   /* 256 KiB a CPU: ~1 s of 999 Hz chains of 127 frames */
#define ONCPU_RING_MAX	  1024 /* grown where samples are lost */
#define ONCPU_MIN_RECORDS 4096 /* read per drain even when the budget is spent */
/* -u dwarf: a sample carries 8 KiB of stack, 8 MB/s a busy CPU at 999 Hz */
#define ONCPU_DWARF_PAGES 512  /* 2 MiB a CPU to start with */
#define ONCPU_DWARF_MAX	  8192 /* grown where samples are lost, up to 32 MiB a CPU */

#define SAMPLE_EVENTS_MAX 64

#define OVERHEAD_EVERY_NS 250000000ULL /* --overhead: N adapted at most this often */

/*
 * --overhead PCT: N chosen so that the stacks cost about PCT% of the CPUs.
 * A stack's cost is measured at start (perfsamp_calibrate(): @cal), scaled
 * by the mean kernel depth of the samples kept against the calibration's
 * (the unwinder's work grows with the frames), and the event's rate is the
 * exact count's growth: N = rate * cost / (PCT% * CPUs * 1 s), at least 2.
 */
struct overhead {
	struct perfsamp_cal cal;
	double budget_ns; /* CPU time a second the stacks may take: PCT% x CPUs */
	uint64_t last_count, last_ns;
	uint64_t last_cpu_ns, last_kept; /* stacktop's CPU time and samples at the last look */
	double reader_ns;		 /* stacktop's CPU time per sample read */
	double cost_ns;			 /* a stack now: the calibration scaled by depth */
	double est_pct;			 /* what the stacks cost at the N in force */
	unsigned int ncpus;
};

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
	uint64_t kframes;      /* their kernel frames, added up (--overhead: the mean depth) */
	struct overhead ovh;   /* --overhead */
	pid_t *tasks;
	unsigned int ntasks;
	struct perf_user *pu; /* -u dwarf: the user stacks unwound (perf_user.h), else NULL */
	uint64_t
		uwhy[UJOIN_WHY_MAX]; /* -u dwarf: user-space samples, by what their user part got */
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
	unsigned int n = 0, nuser = 0, k;
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
		/* the calls inlined there too; a caller's frame is a return address */
		k = usym_intern_chain(u, smp->pid, ip, nuser > 0, f + n, STACK_MAX_DEPTH - 1 - n);
		if (!k)
			break; /* its process is gone, or the symbolizer's share is full */
		n += k;
		nuser++;
	}
	/* a separator with nothing after it says nothing */
	if (user && u && !nuser && n && usym_is_sep(f[n - 1]))
		n--;
	return n;
}

/* one sample's stack counted: @n frames in o->frames */
static void oncpu_count(struct oncpu *o, const struct perfsamp_sample *smp, unsigned int n)
{
	unsigned int kd;

	if (!n) {
		/*
		 * user code: no kernel part, and the user part not asked for
		 * (the chain is empty then) or not walked: the row [user space]
		 * of the thread's command, the command a frame of its own
		 */
		o->frames[n++] = STACK_IP_USER_MODE;
		o->frames[n] = pname_comm(comm_cache_get(o->s->comms, (int)smp->tid));
		n += !!o->frames[n];
		o->user_samples++;
	}
	kd = o->frames[0] == STACK_IP_USER_MODE ? 1 : usym_user_start(o->frames, n);
	if (smp->event < 0 || smp->event >= o->nevents)
		return;
	ingest_count_stack(o->s->ing, (unsigned int)o->events[smp->event], (int)smp->pid,
			   (int)smp->tid, smp->cpu, o->frames, n, smp->weight);
	/* a change of period's own sample is no draw: not among the samples */
	if (!smp->census) {
		o->kept++;
		o->kframes += kd;
	}
}

#if STACKTOP_USER_UNWIND
/*
 * -u dwarf: a sample unwound (at once, or after the drain when its
 * process's maps were not in yet): its kernel chain, then its process's
 * separator and user frames; a user part that could not be had is a mark
 * that says why ("[user stack lost: unwind failed]"), as for events.
 */
static void oncpu_stack(void *ctx, const struct perf_user_stack *st)
{
	struct oncpu *o = ctx;
	const struct perfsamp_sample *smp = st->sample;
	unsigned int n = chain_frames(o, smp, o->frames), k = 0;

	if (smp->abi && n < STACK_MAX_DEPTH - 1) {
		if (st->why == UJOIN_OK && st->n)
			k = perf_user_tokens(o->pu, st, o->frames + n + 1, STACK_MAX_DEPTH - n - 1);
		enum ujoin_why why = k			   ? UJOIN_OK
				     : st->why == UJOIN_OK ? UJOIN_UNWIND_FAILED
							   : st->why;

		o->frames[n] = usym_sep(k ? smp->pid : 0);
		if (!k)
			o->frames[n + 1] = usym_none(why);
		n += 1 + (k ? k : 1);
		o->uwhy[why] += smp->weight;
	}
	oncpu_count(o, smp, n);
}
#endif

static void oncpu_sample(void *ctx, const struct perfsamp_sample *smp)
{
	struct oncpu *o = ctx;

#if STACKTOP_USER_UNWIND
	/* -u dwarf: unwound, then counted (oncpu_stack()); not for nothing: -p, stacktop */
	if (o->pu && smp->event >= 0 && smp->event < o->nevents &&
	    ingest_wants(o->s->ing, (int)smp->pid, (int)smp->tid)) {
		perf_user_sample(o->pu, smp);
		return;
	}
#endif
	oncpu_count(o, smp, chain_frames(o, smp, o->frames));
}

/* a thread named itself, or exec'd: its name while it lives (it may be gone when shown) */
static void oncpu_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct oncpu *o = ctx;

	/* the thread's name now: an exec's, or a rename's after it */
	comm_cache_rename(o->s->comms, (int)tid, comm);
#if STACKTOP_USER_UNWIND
	if (o->pu)
		perf_user_comm(o->pu, pid, tid, comm, exec);
#else
	(void)pid;
	(void)exec;
#endif
}

#if STACKTOP_USER_UNWIND
/* -u dwarf: the processes' maps, from perf's records */
static void oncpu_mmap(void *ctx, const struct perfsamp_mmap *m)
{
	struct oncpu *o = ctx;

	if (o->pu)
		perf_user_mmap(o->pu, m);
}

static void oncpu_task(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid, bool exit,
		       uint64_t time)
{
	struct oncpu *o = ctx;

	if (o->pu)
		perf_user_task(o->pu, pid, ppid, tid, exit, time);
}
#endif

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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* stacktop's CPU time, all threads */
static uint64_t self_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* --overhead: what a stack costs here, and the budget */
static int overhead_open(struct oncpu *o, char *err, size_t errsz)
{
	const struct session_opts *so = o->s->tr.opts;
	struct overhead *v = &o->ovh;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int r = perfsamp_calibrate(o->s->tr.tfs->root, &v->cal);

	if (r < 0)
		return fmt_error(
			err, errsz, r,
			"--overhead: cannot measure what a stack costs here (perf sampling "
			"syscalls:sys_enter_getppid of stacktop itself): %s",
			strerror(-r));
	if (v->cal.stack_ns < 50)
		v->cal.stack_ns = 50; /* under the noise of the measure: never free */
	v->ncpus = ncpus > 0 ? (unsigned int)ncpus : 1;
	v->budget_ns = so->overhead_milli / 100000.0 * v->ncpus * 1e9;
	v->cost_ns = v->cal.stack_ns;
	v->last_ns = mono_ns();
	v->last_cpu_ns = self_cpu_ns();
	log_info("--overhead: a stack of %u kernel frames costs %.0f ns here (a counted hit %.0f "
		 "ns)",
		 v->cal.depth, v->cal.stack_ns, v->cal.count_ns);
	return 0;
}

/* --overhead: N from the event's rate since the last look */
static void overhead_adapt(struct oncpu *o)
{
	struct overhead *v = &o->ovh;
	uint64_t c[SAMPLE_EVENTS_MAX], count = 0, now = mono_ns(), n, cpu;
	double rate, depth;
	int k;

	if (now - v->last_ns < OVERHEAD_EVERY_NS)
		return;
	perfsamp_counts(o->ps, c, o->nevents);
	for (k = 0; k < o->nevents; k++)
		count += c[k];
	rate = (double)(count - v->last_count) * 1e9 / (double)(now - v->last_ns);
	v->last_count = count;
	v->last_ns = now;
	depth = o->kept ? (double)o->kframes / (double)o->kept : v->cal.depth;
	v->cost_ns = v->cal.stack_ns;
	if (v->cal.depth && depth > v->cal.depth)
		v->cost_ns *= depth / v->cal.depth;
	/* and what reading it costs stacktop (its share of a batch: a wakeup, a new period) */
	cpu = self_cpu_ns();
	if (o->kept > v->last_kept + 16)
		v->reader_ns = (double)(cpu - v->last_cpu_ns) / (double)(o->kept - v->last_kept);
	v->last_cpu_ns = cpu;
	v->last_kept = o->kept;
	v->cost_ns += v->reader_ns;
	n = (uint64_t)ceil(rate * v->cost_ns / v->budget_ns);
	n = n < 2 ? 2 : n > 1000000000 ? 1000000000 : n;
	/* a change of a quarter or more: each costs every event one dropped sample */
	if (n * 4 < o->per_sample * 3 || n * 4 > o->per_sample * 5) {
		o->per_sample = n;
		perfsamp_randomize_period(o->ps, (unsigned int)n);
	}
	v->est_pct = rate * v->cost_ns / (double)o->per_sample / (v->ncpus * 1e9) * 100;
}

/*
 * -u dwarf (--oncpu only): each sample with the user registers and stack,
 * the unwinder that turns them into frames, perf's records of the maps
 */
static int oncpu_user_dwarf(struct oncpu *o, struct perfsamp_opts *po, struct perfsamp_cb *cb)
{
#if STACKTOP_USER_UNWIND
	const struct session_opts *so = o->s->tr.opts;

	if (!po->clock_hz || !o->s->user_on || o->s->user_mode != SESSION_USER_DWARF)
		return 0;
	o->pu = perf_user_unwinder_new(o->s, oncpu_stack, o);
	if (!o->pu)
		return -ENOMEM;
	po->user_regs = true;
	po->user_chain = false;
	po->stack_size = so->user_stack; /* dwarf,SIZE; 0: 8 KiB */
	po->ring_pages = ONCPU_DWARF_PAGES;
	po->ring_max_pages = ONCPU_DWARF_MAX;
	cb->mmap = oncpu_mmap;
	cb->task = oncpu_task;
#else
	(void)o;
	(void)po;
	(void)cb;
#endif
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
	/* before the events: the calibration's own calls are no one's hits */
	if (so->overhead_milli) {
		r = overhead_open(o, err, errsz);
		if (r < 0)
			return r;
	}
	r = oncpu_user_dwarf(o, &po, &cb);
	if (r < 0)
		return r;
	r = perfsamp_open(&o->ps, &po, &cb, err, errsz);
	if (r < 0)
		return r;
#if STACKTOP_USER_UNWIND
	if (o->pu)
		perf_user_started(o->pu);
#endif
	if (so->oncpu_hz) {
		snprintf(traced, sizeof(traced), "cpu-clock at %u Hz per CPU (perf%s)",
			 so->oncpu_hz,
			 !s->user_on ? ""
			 : o->pu     ? ", user stacks unwound by dwarf"
				     : ", user chains by frame pointers");
	} else {
		perfsamp_randomize_period(o->ps, so->sample_period);
		if (so->overhead_milli)
			snprintf(traced, sizeof(traced),
				 "%s%s (perf: every hit counted, a stack for 1 in N, N chosen for "
				 "--overhead %.1f%%, the period randomized; a stack's hits are "
				 "those its samples stand for)",
				 o->names[0], o->nevents > 1 ? " and more" : "",
				 so->overhead_milli / 1000.0);
		else
			snprintf(traced, sizeof(traced),
				 "%s%s (perf: every hit counted, a stack for about 1 in %u, the "
				 "period randomized; a stack's hits are those its samples stand "
				 "for)",
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
	if (o->s->tr.opts->overhead_milli)
		overhead_adapt(o);
	/* each event sampled gets a new period at the end (perfsamp_batch.c) */
	r = perfsamp_drain(o->ps, left, &more);
#if STACKTOP_USER_UNWIND
	if (o->pu)
		perf_user_drained(o->pu); /* the samples that waited for their maps */
#endif
	if (r > 0)
		b->used += (unsigned int)r / 8;
	if (more)
		b->more = true;
	return r;
}

static int oncpu_tick(struct source *src)
{
#if STACKTOP_USER_UNWIND
	struct oncpu *o = src->priv;

	if (o && o->pu)
		perf_user_tick(o->pu);
#else
	(void)src;
#endif
	return 0;
}

size_t oncpu_memory(const struct source *src)
{
#if STACKTOP_USER_UNWIND
	const struct oncpu *o = src->priv;

	return o ? perf_user_unwinder_memory(o->pu) : 0;
#else
	(void)src;
	return 0;
#endif
}

static void oncpu_stats(const struct source *src, struct session_stats *st)
{
	const struct oncpu *o = src->priv;
	struct perfsamp_stats ps;

	if (!o || !o->ps)
		return;
	perfsamp_stats(o->ps, &ps);
	st->throttled = ps.throttled;
	if (o->pu) {
		/* -u dwarf: the samples of user processes, with or without a user stack */
		memcpy(st->ujoin.why, o->uwhy, sizeof(st->ujoin.why));
		st->ujoin.samples = ps.samples;
		st->ujoin.lost = ps.lost;
		st->user_period = 1;
		st->user_stack = o->s->tr.opts->user_stack ? o->s->tr.opts->user_stack : 8192;
		st->user_ring = ps.ring_max;
		st->user_ring_total = ps.ring_bytes;
		st->user_ring_grown = ps.grown;
		st->user_ring_full = ps.lost_unknown;
		st->user_ring_auto = true;
	}
	if (o->per_sample > 1) {
		uint64_t c[SAMPLE_EVENTS_MAX];
		int k;

		perfsamp_counts(o->ps, c, o->nevents);
		st->exact_events = 0;
		for (k = 0; k < o->nevents; k++) {
			st->exact_events += c[k];
			if (o->events[k] >= 0 && o->events[k] < STATS_EXACT_MAX)
				st->exact_by_event[o->events[k]] = c[k];
		}
		st->sample_period = (unsigned int)o->per_sample;
		st->samples = o->kept;
		st->sample_deff = (uint32_t)(perfsamp_batch_design_effect(&ps.batch) * 1000 + 0.5);
		st->overhead_target = o->s->tr.opts->overhead_milli;
		st->overhead_est = (uint32_t)(o->ovh.est_pct * 1000 + 0.5);
		st->stack_cost_ns = (uint32_t)(o->ovh.cost_ns + 0.5);
	}
	st->tracing_on = true;
}

static void oncpu_close(struct source *src)
{
	struct oncpu *o = src->priv;

	if (!o)
		return;
	perfsamp_close(o->ps);
#if STACKTOP_USER_UNWIND
	perf_user_unwinder_free(o->pu);
#endif
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
	.tick = oncpu_tick,
	.stats = oncpu_stats,
	.close = oncpu_close,
};
