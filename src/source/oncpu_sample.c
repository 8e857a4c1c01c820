// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oncpu_sample.c - --sample N and --overhead PCT (source_oncpu_ops, with
 * oncpu.c): the -e events sampled with their kernel call chains, one hit in
 * about N, every hit counted (kernel/perfsamp.h); the threads of -p, --tid
 * and -- CMD; N chosen for --overhead; and each row's hits estimated from
 * the samples' weights so that the rows add up to the exact count
 * (source/sampest.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/format.h"
#include "core/log.h"
#include "ingest/ingest.h"
#include "kernel/evfmt.h"
#include "kernel/tfs.h"
#include "kernel/tgid.h"
#include "source/oncpu_sample.h"

/* --sample: a sample's window ended, its hits estimated */
static void est_count(void *ctx, const struct sampest_sample *s, uint64_t hits)
{
	struct oncpu *o = ctx;

	ingest_count_stack(o->s->ing, (unsigned int)o->events[s->event], s->tgid, s->tid, s->cpu,
			   s->frames, s->n, hits);
}

void oncpu_sample_flush(struct oncpu *o)
{
	uint64_t c[SAMPLE_EVENTS_MAX];

	perfsamp_counts(o->ps, c, o->nevents);
	sampest_flush(o->est, c, est_count, o);
}

/* held until its window ends; one outside -p/-- CMD or stacktop's own is left out */
void oncpu_sample_hold(struct oncpu *o, const struct perfsamp_sample *smp, unsigned int n)
{
	struct sampest_sample s = {
		.event = (unsigned int)smp->event,
		.tgid = (int)smp->pid,
		.tid = (int)smp->tid,
		.cpu = smp->cpu,
		.frames = o->frames,
		.n = n,
		.raw = smp->weight,
		.census = smp->census,
	};

	if (!ingest_wants(o->s->ing, s.tgid, s.tid)) {
		ingest_stats(o->s->ing)->filtered++;
		return;
	}
	if (sampest_add(o->est, &s) < 0)
		est_count(o, &s, s.raw);
}

/* one more thread to sample, with its PERFSAMP_TASK_* */
static int add_task(struct oncpu *o, pid_t tid, uint8_t flags)
{
	if (!(o->ntasks & (o->ntasks + 1)) || !o->tasks) {
		size_t cap = (size_t)(o->ntasks + 1) * 2;
		pid_t *t = realloc(o->tasks, cap * sizeof(*t));
		uint8_t *f = t ? realloc(o->tflags, cap * sizeof(*f)) : NULL;

		if (t)
			o->tasks = t;
		if (!t || !f)
			return -ENOMEM;
		o->tflags = f;
	}
	o->tasks[o->ntasks] = tid;
	o->tflags[o->ntasks++] = flags;
	return 0;
}

/*
 * -p, --tid, -- CMD: the threads to sample (--oncpu: followed into what they
 * start); none: every CPU's every task.
 *
 * --sample draws its stacks from every CPU's hits and counts the threads'
 * apart (@count_tasks), what its rows keep (ingest_wants()): -- CMD the
 * command's tree (every thread and process it starts), -p each process's
 * threads (every one it has now, and those they start, not the processes
 * they fork), --tid those threads alone. Sampling the threads themselves
 * would follow their children with counters no change of period reaches:
 * a child keeps the period it was started with, its first sample its hit
 * number P, and a thread alternating between two stacks (a ping-pong's
 * pipe read and its preemption) was sampled in step with them, the two
 * rows 2.3 points apart from the truth each way, twice their interval
 * (issue 35). The price: other processes' hits are sampled too, their
 * stacks walked and left out (the header's "left out").
 */
int oncpu_sample_tasks(struct oncpu *o, struct perfsamp_opts *po)
{
	const struct session_opts *so = o->s->tr.opts;
	bool sampled = !so->oncpu_hz;
	int i, k, r = 0;

	if (!so->npids && !so->ntids)
		return 0;
	for (i = 0; i < so->npids && r == 0; i++) {
		int *tids = NULL, n = 0;

		if (!sampled || so->pid_tree || tgid_threads(so->pids[i], &tids, &n) < 0 || !n)
			r = add_task(o, so->pids[i], PERFSAMP_TASK_INHERIT);
		for (k = 0; k < n && r == 0; k++)
			r = add_task(o, tids[k], PERFSAMP_TASK_INHERIT | PERFSAMP_TASK_THREADS);
		free(tids);
	}
	for (i = 0; i < so->ntids && r == 0; i++)
		r = add_task(o, so->tids[i], sampled ? 0 : PERFSAMP_TASK_INHERIT);
	if (r < 0)
		return r;
	if (sampled) {
		po->count_tasks = o->tasks;
		po->count_ntasks = (int)o->ntasks;
		po->count_flags = o->tflags;
		return 0;
	}
	po->tasks = o->tasks;
	po->ntasks = (int)o->ntasks;
	po->task_flags = o->tflags;
	po->inherit = true;
	return 0;
}

/* --sample: the -e events ("sys:ev" or "sys:ev if FILTER"; none: sched:sched_switch) */
int oncpu_sample_events(struct oncpu *o, struct perfsamp_opts *po)
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
int oncpu_sample_overhead(struct oncpu *o, char *err, size_t errsz)
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

/* --overhead: HITS were sampled 1 in the N now in force (the interval's N) */
static void oncpu_sample_interval_n(struct oncpu *o, uint64_t hits)
{
	struct overhead *v = &o->ovh;

	if (!v->iv_min || o->per_sample < v->iv_min)
		v->iv_min = o->per_sample;
	if (o->per_sample > v->iv_max)
		v->iv_max = o->per_sample;
	v->iv_hits += (double)hits;
	v->iv_nhits += (double)hits * (double)o->per_sample;
}

/* --overhead: N from the event's rate since the last look */
void oncpu_sample_adapt(struct oncpu *o)
{
	struct overhead *v = &o->ovh;
	uint64_t c[SAMPLE_EVENTS_MAX], count = 0, now = mono_ns(), n, cpu;
	double rate, depth;
	int k;

	if (now - v->last_ns < OVERHEAD_EVERY_NS)
		return;
	/* the hits the stacks are drawn from (with -p, every CPU's) */
	perfsamp_stream_counts(o->ps, c, o->nevents);
	for (k = 0; k < o->nevents; k++)
		count += c[k];
	rate = (double)(count - v->last_count) * 1e9 / (double)(now - v->last_ns);
	/* the hits since the last look were sampled at the N in force then */
	oncpu_sample_interval_n(o, count - v->last_count);
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

void oncpu_sample_stats(struct oncpu *o, const struct perfsamp_stats *ps, struct session_stats *st)
{
	struct overhead *v = &o->ovh;
	struct sampest_stats es;
	double deff = perfsamp_batch_design_effect(&ps->batch);
	int k;

	/* as of the last window's end: what the rows add up to, with the unplaced */
	sampest_stats(o->est, &es);
	st->exact_events = es.exact + es.unplaced;
	for (k = 0; k < o->nevents; k++)
		if (o->events[k] >= 0 && o->events[k] < STATS_EXACT_MAX)
			st->exact_by_event[o->events[k]] = sampest_exact(o->est, (unsigned int)k);
	st->sample_unplaced = es.unplaced;
	st->sample_period = (unsigned int)o->per_sample;
	st->samples = es.draws;
	st->sample_deff = (uint32_t)(deff * 1000 + 0.5);
	st->sample_var = (uint64_t)(es.w2 * deff + 0.5);
	st->overhead_target = o->s->tr.opts->overhead_milli;
	st->overhead_est = (uint32_t)(o->ovh.est_pct * 1000 + 0.5);
	st->stack_cost_ns = (uint32_t)(o->ovh.cost_ns + 0.5);
	/* called once a tick: the interval's N, then a new interval */
	if (st->overhead_target) {
		oncpu_sample_interval_n(o, 0);
		st->overhead_n = (uint32_t)(v->iv_hits > 0 ? v->iv_nhits / v->iv_hits + 0.5
							   : (double)o->per_sample);
		st->overhead_n_min = (uint32_t)v->iv_min;
		st->overhead_n_max = (uint32_t)v->iv_max;
		v->iv_hits = v->iv_nhits = 0;
		v->iv_min = v->iv_max = 0;
	}
}
