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
 * @covered: hits the kept samples' strides covered
 * @gap: hits no stride covered: between a batch's last sample and the
 *	change of period (the reader's reaction), spread over the samples
 */
struct perfsamp_batch_stats {
	uint64_t batches;
	uint64_t batch_samples;
	uint64_t batch_sq;
	uint64_t pairs_in;
	uint64_t same_in[2];
	uint64_t pairs_across;
	uint64_t same_across[2];
	uint64_t covered;
	uint64_t gap;
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
 * struct perfsamp_batch_ev - one event descriptor's batch
 * @immediate: a new period was set: the next sample after @t_set comes at once
 * @redraw: samples kept since the period was set
 * @t_set: when it was set (CLOCK_MONOTONIC, as the samples' time)
 * @period: the period in force (its stride)
 * @carry: the fraction of a hit the last weight rounded off
 * @keys: the stacks of its current and last batch
 */
struct perfsamp_batch_ev {
	bool immediate;
	bool redraw;
	uint64_t t_set;
	uint64_t period;
	double carry;
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
 */
bool perfsamp_batch_keep(struct perfsamp_batch *b, struct perfsamp_batch_ev *e, uint64_t time);

/**
 * perfsamp_batch_weight() - the hits a sample stands for
 * @b: the periods
 * @e: the event's batch
 * @delta: the event's count since the sample before (PERF_SAMPLE_READ)
 * @census: the sample the change of period caused (perfsamp_batch_keep())
 *
 * A change's sample stands for its own hit: 1; the hits before it since the
 * last batch's last sample (the reader's reaction) were sampled by no
 * stride: the gap. Any other sample stands for its stride, scaled by the
 * run's (covered + gap) / covered, so that the weights add up to the count
 * without giving the gap to the stack that happens to come first in a
 * batch (a fixed phase: a bias of 3 points on a ping-pong, beyond the
 * stated interval). With a fixed period, @delta.
 *
 * Return: the weight (whole hits; the fractions carried to the next).
 */
uint64_t perfsamp_batch_weight(struct perfsamp_batch *b, struct perfsamp_batch_ev *e,
			       uint64_t delta, bool census);

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
 *	drawn uniformly from [mean / 2, 3 * mean / 2]
 * @b: the periods
 * @e: the event's batch
 * @fd: the event's descriptor (PERF_EVENT_IOC_PERIOD)
 */
void perfsamp_batch_next(struct perfsamp_batch *b, struct perfsamp_batch_ev *e, int fd);

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
