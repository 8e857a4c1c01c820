// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perfsamp_batch.c - --sample's random periods, drawn a batch at a time
 *
 * A tracepoint's period is fixed in the kernel; perf cannot randomise it.
 * stacktop sets a new one (PERF_EVENT_IOC_PERIOD, uniform in [N/2, 3N/2])
 * for an event after each drain that read samples of it: the samples of
 * one drain (a batch: at most PERFSAMP_BATCH, the ring's wakeup, more when
 * the reader is late) keep one stride, and the strides of two batches are
 * independent. A period per sample cost the traced CPUs an interrupt and a
 * second stack for every sample (the change of period is a cross-CPU call,
 * and the kernel samples the first hit after it) and the reader a wakeup:
 * the workload kept 70% of what counting alone keeps at 1 in 100.
 *
 * Within a batch the samples are not independent: code that repeats with a
 * cycle sharing a factor with the stride puts a batch's samples on the same
 * stack more often than chance. The design effect says by how much this
 * widens a share's variance: 1 + (m - 1) * rho, m the batches' mean size
 * (weighted by size) and rho the intra-batch correlation, estimated from
 * how often two samples of one batch have the same stack against two of
 * consecutive batches (same stack: the whole chain, and the leaf address;
 * the larger of the two). export_sample_ci95() widens each row's interval
 * by its square root.
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

/* a period drawn uniformly from [mean / 2, 3 * mean / 2] (xorshift64) */
static uint64_t random_period(struct perfsamp_batch *b)
{
	b->rnd ^= b->rnd << 13;
	b->rnd ^= b->rnd >> 7;
	b->rnd ^= b->rnd << 17;
	return b->mean / 2 + b->rnd % (b->mean + 1);
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
	e->redraw = true;
	return true;
}

uint64_t perfsamp_batch_weight(struct perfsamp_batch *b, struct perfsamp_batch_ev *e,
			       uint64_t delta, bool census)
{
	uint64_t cover, out;
	double w;

	if (!b->mean)
		return delta;
	if (census) {
		b->st.gap += delta ? delta - 1 : 0;
		return 1;
	}
	cover = e->period && delta > e->period ? e->period : delta;
	b->st.gap += delta - cover;
	b->st.covered += cover;
	w = (double)cover * (double)(b->st.covered + b->st.gap) / (double)b->st.covered + e->carry;
	out = (uint64_t)w;
	e->carry = w - (double)out;
	return out;
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
	period = random_period(b);
	e->period = period;
	e->t_set = now_ns();
	e->immediate = ioctl(fd, PERF_EVENT_IOC_PERIOD, &period) == 0;
	e->redraw = false;
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
