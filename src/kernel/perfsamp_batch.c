// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perfsamp_batch.c - --sample's random periods, drawn a batch at a time,
 * and the hits each sample stands for
 *
 * A tracepoint's period is fixed in the kernel; perf cannot randomise it.
 * stacktop sets a new one (PERF_EVENT_IOC_PERIOD: a draw uniform in
 * [N/2, 3N/2]) for an event after a drain that completed its
 * batch: PERFSAMP_BATCH draws kept at one stride (the ring's wakeup), so
 * that the strides of two batches are independent. A period per sample
 * cost the traced CPUs an interrupt and a second stack for every sample
 * (the change of period is a cross-CPU call, and the kernel samples the
 * first hit after it) and the reader a wakeup: the workload kept 70% of
 * what counting alone keeps at 1 in 100.
 *
 * What the kernel does on a change (kernel/events/core.c, measured on
 * 6.18: a thread's getppid() counted at period 10, changed to 7 after the
 * 35th call): __perf_event_period() sets period_left to 0, so the next hit
 * is sampled at once (the 36th: the census, whatever runs then, most often
 * the reader going back to sleep or what the cross-CPU call interrupted);
 * perf_swevent_set_period() then counts the first stride with the period
 * it had kept, the old one: the next sample is 9 hits later (the 45th),
 * then every 7 (52, 59, ...). The hits between the last batch's last draw
 * and the change were sampled by no stride. Each sample carries the
 * event's count (PERF_SAMPLE_READ): perfsamp_batch_weight() gives every
 * hit to one sample of its own counter, by position in the count.
 *
 * Within a batch the samples are not independent: code that repeats with a
 * cycle sharing a factor with the stride puts a batch's samples on the same
 * stack more often than chance. (Prime strides avoid that, and were tried:
 * all of them odd, a ping-pong whose switches alternate between two stacks
 * was sampled in step with the alternation, 35% against 50% at --sample
 * 20. The parity of the strides must be random too.) The design
 * effect says by how much this widens a share's variance: 1 + (m - 1) *
 * rho, m the batches' mean size (weighted by size) and rho the
 * intra-batch correlation, estimated from how often two samples of one
 * batch have the same stack against two of consecutive batches (same
 * stack: the whole chain, and the leaf address; the larger of the two).
 * export_sample_ci95() widens each row's interval by its square root.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <linux/perf_event.h>

#include "kernel/perfsamp_batch.h"

/* a batch's stacks compared: the first this many of it */
#define BATCH_KEYS 64

/**
 * struct perfsamp_batch_keys - the stacks of an event's current and last batch
 * @n: samples kept in the current batch
 * @k: keys kept of it (at most BATCH_KEYS)
 * @pk: keys of the last batch
 * @key: [0] the chain's hash, [1] its leaf
 * @prev: the same of the last batch
 */
struct perfsamp_batch_keys {
	uint32_t n, k, pk;
	uint32_t key[2][BATCH_KEYS];
	uint32_t prev[2][BATCH_KEYS];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t perfsamp_batch_period(struct perfsamp_batch *b)
{
	uint64_t lo = b->mean / 2, hi = (uint64_t)b->mean + b->mean / 2;

	if (lo < 1)
		lo = 1;
	/* xorshift64 */
	b->rnd ^= b->rnd << 13;
	b->rnd ^= b->rnd >> 7;
	b->rnd ^= b->rnd << 17;
	return lo + b->rnd % (hi - lo + 1);
}

bool perfsamp_batch_keep(struct perfsamp_batch *b, struct perfsamp_batch_ev *e, uint64_t time)
{
	if (!b->mean)
		return true;
	/*
	 * the first sample after the change: the kernel samples the next hit
	 * (PERF_EVENT_IOC_PERIOD clears what was left of the old period), most
	 * often the reader's own; a sample from before the change is the last
	 * batch's
	 */
	if (e->immediate && time >= e->t_set) {
		e->immediate = false;
		return false;
	}
	if (++e->drawn >= PERFSAMP_BATCH)
		e->redraw = true;
	return true;
}

/* the hits since the counter's last draw (@last updated) */
static uint64_t counter_weight(uint64_t *last, uint64_t count)
{
	/* a count lower than the last: a counter started anew */
	uint64_t d = count >= *last ? count - *last : count;

	*last = count;
	return d ? d : 1;
}

uint64_t perfsamp_batch_weight(struct perfsamp_batch *b, struct perfsamp_batch_ev *e,
			       uint64_t count, bool census)
{
	uint64_t d;

	if (census) {
		b->st.census++;
		e->census++;
		return 1;
	}
	d = counter_weight(&e->last, count);
	/* the changes' own samples since were counted one each */
	d = d > e->census ? d - e->census : 1;
	e->census = 0;
	return d;
}

void perfsamp_batch_note(struct perfsamp_batch *b, struct perfsamp_batch_ev *e,
			 const uint64_t *chain, uint64_t n)
{
	struct perfsamp_batch_keys *k = e->keys;
	uint32_t h = 2166136261u, leaf = 0;
	uint64_t i;

	if (!b->mean)
		return;
	if (!k) {
		k = calloc(1, sizeof(*k));
		if (!k)
			return;
		e->keys = k;
	}
	for (i = 0; i < n; i++) {
		if (chain[i] >= PERF_CONTEXT_MAX)
			continue; /* PERF_CONTEXT_KERNEL and the like */
		if (!leaf)
			leaf = (uint32_t)(chain[i] ^ (chain[i] >> 32)) | 1;
		h = (h ^ (uint32_t)chain[i] ^ (uint32_t)(chain[i] >> 32)) * 16777619u;
	}
	k->n++;
	if (k->k < BATCH_KEYS) {
		k->key[0][k->k] = h;
		k->key[1][k->k] = leaf;
		k->k++;
	}
}

/* the batch of @e ends: how alike its samples were, within and against the last */
static void batch_end(struct perfsamp_batch_stats *st, struct perfsamp_batch_ev *e)
{
	struct perfsamp_batch_keys *k = e->keys;
	uint32_t i, j, c;

	if (!k || !k->n)
		return;
	st->batches++;
	st->batch_samples += k->n;
	st->batch_sq += (uint64_t)k->n * k->n;
	for (c = 0; c < 2; c++) {
		for (i = 0; i < k->k; i++) {
			for (j = i + 1; j < k->k; j++)
				st->same_in[c] += k->key[c][i] == k->key[c][j];
			for (j = 0; j < k->pk; j++)
				st->same_across[c] += k->key[c][i] == k->prev[c][j];
		}
		memcpy(k->prev[c], k->key[c], k->k * sizeof(k->key[c][0]));
	}
	st->pairs_in += (uint64_t)k->k * (k->k - 1) / 2;
	st->pairs_across += (uint64_t)k->k * k->pk;
	k->pk = k->k;
	k->k = 0;
	k->n = 0;
}

void perfsamp_batch_next(struct perfsamp_batch *b, struct perfsamp_batch_ev *e, int fd)
{
	uint64_t period;

	if (!b->mean)
		return;
	batch_end(&b->st, e);
	period = perfsamp_batch_period(b);
	e->period = period;
	e->t_set = now_ns();
	e->immediate = ioctl(fd, PERF_EVENT_IOC_PERIOD, &period) == 0;
	e->redraw = false;
	e->drawn = 0;
}

double perfsamp_batch_design_effect(const struct perfsamp_batch_stats *st)
{
	double m, d = 1;
	int c;

	if (!st->batch_samples)
		return 1;
	m = (double)st->batch_sq / (double)st->batch_samples;
	if (m <= 1)
		return 1;
	/* too few pairs to tell: as if every batch were one stack */
	if (st->pairs_in < 100 || st->pairs_across < 100)
		return m;
	for (c = 0; c < 2; c++) {
		double fin = (double)st->same_in[c] / (double)st->pairs_in;
		double fac = (double)st->same_across[c] / (double)st->pairs_across;
		double rho = fac < 1 ? (fin - fac) / (1 - fac) : 0;

		if (rho < 0)
			rho = 0;
		if (rho > 1)
			rho = 1;
		if (1 + (m - 1) * rho > d)
			d = 1 + (m - 1) * rho;
	}
	return d;
}

void perfsamp_batch_free(struct perfsamp_batch_ev *e)
{
	free(e->keys);
	e->keys = NULL;
}
