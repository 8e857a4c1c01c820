/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oncpu_sample.h - --sample and --overhead (oncpu_sample.c: the events and
 * threads sampled, N chosen, the estimate of each row), and the state of
 * the perf-sampling source they share with oncpu.c (source_oncpu_ops:
 * --oncpu, the samples read and counted), which calls them.
 */
#ifndef STACKTOP_ONCPU_SAMPLE_H
#define STACKTOP_ONCPU_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/stack.h"
#include "core/ujoin.h"
#include "kernel/perfsamp.h"
#include "source/sampest.h"
#include "source/source.h"

struct perf_user;

#define SAMPLE_EVENTS_MAX 64

#define OVERHEAD_EVERY_NS 250000000ULL /* --overhead: N adapted at most this often */
#define SAMPEST_WINDOW	  512	       /* --sample: samples held before their window ends */

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
	/* the interval's N: the hits counted at each N, the least and most N */
	double iv_hits, iv_nhits;
	uint64_t iv_min, iv_max;
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
	uint64_t kept;	       /* samples read that were draws (--overhead: the mean depth) */
	struct sampest *est;   /* --sample: the estimate (source/sampest.h) */
	uint64_t kframes;      /* their kernel frames, added up (--overhead: the mean depth) */
	struct overhead ovh;   /* --overhead */
	pid_t *tasks;
	uint8_t *tflags; /* PERFSAMP_TASK_* of each */
	unsigned int ntasks;
	struct perf_user *pu; /* -u dwarf: the user stacks unwound (perf_user.h), else NULL */
	uint64_t
		uwhy[UJOIN_WHY_MAX]; /* -u dwarf: user-space samples, by what their user part got */
};

/* oncpu_sample.c: --sample's sample held for its window (or counted at once) */
void oncpu_sample_hold(struct oncpu *o, const struct perfsamp_sample *smp, unsigned int n);
/* oncpu_sample.c: --sample's window ends: the exact counts shared among its samples */
void oncpu_sample_flush(struct oncpu *o);
/* oncpu_sample.c: -p, --tid, -- CMD: the threads to sample; 0 or -errno */
int oncpu_sample_tasks(struct oncpu *o, struct perfsamp_opts *po);
/* oncpu_sample.c: --sample: the -e events into @po; 0 or -errno */
int oncpu_sample_events(struct oncpu *o, struct perfsamp_opts *po);
/* oncpu_sample.c: --overhead: what a stack costs here, and the budget; 0 or -errno */
int oncpu_sample_overhead(struct oncpu *o, char *err, size_t errsz);
/* oncpu_sample.c: --overhead: N from the event's rate since the last look */
void oncpu_sample_adapt(struct oncpu *o);
/* oncpu_sample.c: --sample: its counters into the header's; once a tick
 * (--overhead: the interval's N, then a new interval) */
void oncpu_sample_stats(struct oncpu *o, const struct perfsamp_stats *ps, struct session_stats *st);

#endif /* STACKTOP_ONCPU_SAMPLE_H */
