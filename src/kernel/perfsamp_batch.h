/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfsamp_batch.h - --sample's random periods, drawn a batch of samples at
 * a time, and the design effect of the batches (perfsamp_batch.c)
 */
#ifndef STACKTOP_PERFSAMP_BATCH_H
#define STACKTOP_PERFSAMP_BATCH_H

#include <stdbool.h>
#include <stdint.h>

/* the samples a wakeup of the reader waits for, at most */
#define PERFSAMP_BATCH 16

/**
 * struct perfsamp_batch_stats - how alike the samples of a batch were
 * @batches: batches ended (samples between two changes of period)
 * @batch_samples: samples in them
 * @batch_sq: the sum of their sizes' squares
 * @pairs_in: pairs of samples of one batch compared (the first 64 of each)
 * @same_in: of which had the same stack ([0] chain, [1] leaf address)
 * @pairs_across: pairs of samples of two consecutive batches of an event
 * @same_across: of which had the same stack
 * @census: samples a change of period caused (each weighs its own hit)
 */
struct perfsamp_batch_stats {
	uint64_t batches;
	uint64_t batch_samples;
	uint64_t batch_sq;
	uint64_t pairs_in;
	uint64_t same_in[2];
	uint64_t pairs_across;
	uint64_t same_across[2];
	uint64_t census;
};

/**
 * struct perfsamp_batch - the periods of a sampler's events
 * @rnd: the generator's state (xorshift64; not 0)
 * @mean: the mean period (0: a fixed period, nothing drawn)
 * @st: the counters
 */
struct perfsamp_batch {
	uint64_t rnd;
	unsigned int mean;
	struct perfsamp_batch_stats st;
};

struct perfsamp_batch_keys;

/**
 * struct perfsamp_batch_ev - one event descriptor's batch and counter
 * @immediate: a new period was set: the next sample after @t_set comes at once
 * @redraw: the batch is complete (PERFSAMP_BATCH draws kept since the
 *	period was set): the next drain gives the event a new one
 * @drawn: draws kept since the period was set
 * @t_set: when it was set (CLOCK_MONOTONIC, as the samples' time)
 * @period: the period in force (its stride)
 * @last: the event's count at its last draw (PERF_SAMPLE_READ)
 * @census: samples changes of period caused since (each weighed its own hit)
 * @keys: the stacks of its current and last batch
 */
struct perfsamp_batch_ev {
	bool immediate;
	bool redraw;
	uint32_t drawn;
	uint64_t t_set;
	uint64_t period;
	uint64_t last;
	uint64_t census;
	struct perfsamp_batch_keys *keys;
};

/**
 * perfsamp_batch_keep() - whether a sample read of an event is kept
 * @b: the periods
 * @e: the event's batch
 * @time: the sample's time
 *
 * Return: false for the sample a change of period caused (the kernel
 * samples the first hit after PERF_EVENT_IOC_PERIOD): the first with a
 * time from the change on. It is no random draw but a census of that one
 * hit (perfsamp_batch_weight() weighs it 1), and not in the batch's stacks.
 * True for a draw, counted towards the batch (@e->redraw when complete).
 */
bool perfsamp_batch_keep(struct perfsamp_batch *b, struct perfsamp_batch_ev *e, uint64_t time);

/**
 * perfsamp_batch_weight() - the hits a sample of an event's own counter
 *	stands for: its raw weight (source/sampest.h makes the rows of a
 *	window add up to the exact count)
 * @b: the periods
 * @e: the event's batch and counter
 * @count: the event's count at the sample (PERF_SAMPLE_READ)
 * @census: the sample the change of period caused (perfsamp_batch_keep())
 *
 * A change's sample stands for its own hit: 1 (the kernel samples the
 * first hit after the change, whatever its stack: no draw). A draw stands
 * for every hit of its counter since the counter's last draw, less the
 * changes' samples since: a stride, plus after a change the hits between
 * the last batch's last draw and the change (the reader's reaction), which
 * no stride covered. They go to the draw that follows on the same counter,
 * a position in the count (the old period less one after the change's
 * sample), not to one the clock chose, and not to another CPU's samples: a
 * share of the whole run's would give the hits of a CPU whose batches end
 * often (one reset by the drains of a busier one) to the busy CPU's rows
 * (issue 35: io_schedule 8% low beside a ping-pong). A count lower than
 * the last (a counter started anew) counts from 0.
 *
 * Return: the weight, at least 1.
 */
uint64_t perfsamp_batch_weight(struct perfsamp_batch *b, struct perfsamp_batch_ev *e,
			       uint64_t count, bool census);

/**
 * perfsamp_batch_note() - a kept sample's call chain, for the correlation
 *	of a batch's stacks
 * @b: the periods
 * @e: the event's batch
 * @chain: the chain (PERF_CONTEXT_* markers skipped)
 * @n: its entries
 */
void perfsamp_batch_note(struct perfsamp_batch *b, struct perfsamp_batch_ev *e,
			 const uint64_t *chain, uint64_t n);

/**
 * perfsamp_batch_next() - end the event's batch and give it a new period,
 *	drawn uniformly from [mean / 2, 3 * mean / 2] (perfsamp_batch_period())
 * @b: the periods
 * @e: the event's batch
 * @fd: the event's descriptor (PERF_EVENT_IOC_PERIOD)
 */
void perfsamp_batch_next(struct perfsamp_batch *b, struct perfsamp_batch_ev *e, int fd);

/**
 * perfsamp_batch_period() - the next period, drawn uniformly from
 *	[mean / 2, 3 * mean / 2] (xorshift64). Odd and even alike: strides of
 *	one parity (primes, tried) lock onto code whose hits alternate between
 *	two stacks, a ping-pong's (35% against 50%)
 * @b: the periods (their generator advances)
 *
 * Return: the period, at least 1.
 */
uint64_t perfsamp_batch_period(struct perfsamp_batch *b);

/**
 * perfsamp_batch_free() - free an event's keys
 * @e: the event's batch
 */
void perfsamp_batch_free(struct perfsamp_batch_ev *e);

/**
 * perfsamp_batch_design_effect() - how much wider the shares of samples
 *	taken in batches vary than if each were drawn alone: 1 + (m - 1) * rho
 * @st: the counters
 *
 * Return: at least 1; the batches' mean size while too few were compared.
 */
double perfsamp_batch_design_effect(const struct perfsamp_batch_stats *st);

#endif /* STACKTOP_PERFSAMP_BATCH_H */
