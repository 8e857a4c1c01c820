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
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "core/format.h"
#include "core/log.h"
#include "core/stack.h"
#include "ingest/ingest.h"
#include "kernel/comm.h"
#include "kernel/evfmt.h"
#include "kernel/perfsamp.h"
#include "kernel/tfs.h"
#include "source/oncpu_sample.h"
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
	if (o->est)
		oncpu_sample_hold(o, smp, n);
	else
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
		r = oncpu_sample_events(o, &po);
		o->est = r < 0 ? NULL : sampest_new((unsigned int)o->nevents);
		if (r >= 0 && !o->est)
			r = -ENOMEM;
		/* ingest leaves out our own samples (session/open.c): the count too */
		po.exclude_self = !so->show_self && !so->tracefs;
	}
	if (r < 0)
		return r;
	r = oncpu_sample_tasks(o, &po);
	if (r < 0)
		return r;
	cb.ctx = o;
	/* before the events: the calibration's own calls are no one's hits */
	if (so->overhead_milli) {
		r = oncpu_sample_overhead(o, err, errsz);
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
		oncpu_sample_adapt(o);
	/* each event sampled gets a new period at the end (perfsamp_batch.c) */
	r = perfsamp_drain(o->ps, left, &more);
#if STACKTOP_USER_UNWIND
	if (o->pu)
		perf_user_drained(o->pu); /* the samples that waited for their maps */
#endif
	/* --sample: a window ends when it holds enough samples */
	if (o->est && sampest_held(o->est) >= SAMPEST_WINDOW)
		oncpu_sample_flush(o);
	if (r > 0)
		b->used += (unsigned int)r / 8;
	if (more)
		b->more = true;
	return r;
}

static int oncpu_tick(struct source *src)
{
	struct oncpu *o = src->priv;

	/* --sample: every refresh ends a window: its rows add up to the exact count */
	if (o && o->est && o->ps)
		oncpu_sample_flush(o);
#if STACKTOP_USER_UNWIND
	if (o && o->pu)
		perf_user_tick(o->pu);
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
	struct oncpu *o = src->priv;
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
	if (o->est)
		oncpu_sample_stats(o, &ps, st);
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
	free(o->tflags);
	sampest_free(o->est);
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
