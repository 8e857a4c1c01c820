/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampest.h - --sample's estimate (source/sampest.c): the hits each sample
 * stands for, made to add up to the exact count of the hits it estimates.
 *
 * perf counts every hit of a sampled event (the counters the sampler reads)
 * and gives a stack to about one in N; each sample carries its raw weight,
 * the hits of its counter since that counter's last draw
 * (perfsamp_batch_weight()). The samples are held for a window (a few
 * hundred, or to the next refresh); at its end the exact count's growth
 * over the window, per event, is shared among them in proportion to their
 * raw weights: a ratio estimator, whose rows add up to the exact count at
 * every refresh. The raw weights already add up to the count but for the
 * hits after each counter's last sample (and, following tasks, the hits of
 * threads that ended before their first sample); the ratio places those
 * too. A window with hits but no sample gives them to the event's last
 * sample (the hits that follow it, by position), or, before any, holds
 * them (@unplaced) until one comes.
 *
 * The error of a row's count: the share p of a row is a weighted mean of
 * 0/1 over the samples, sum(w x) / sum(w); its variance about
 * p (1 - p) sum(w^2) / sum(w)^2 (Kish's effective sample size), widened by
 * the batches' design effect. In hits, for a row of h hits out of H:
 * h (1 - h / H) (sum(w^2) / sum(w)) deff (export_sample_ci95()).
 */
#ifndef STACKTOP_SAMPEST_H
#define STACKTOP_SAMPEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct sampest_sample - one sample, held until its window ends
 * @event: the index of its event among the sampled ones
 * @tgid: its process
 * @tid: its thread
 * @cpu: its CPU
 * @frames: its frames (copied by sampest_add())
 * @n: how many
 * @raw: its raw weight (perfsamp_sample.weight)
 * @census: the sample a change of period caused: a hit of its own, no draw
 */
struct sampest_sample {
	unsigned int event;
	int tgid;
	int tid;
	unsigned int cpu;
	const uint64_t *frames;
	unsigned int n;
	uint64_t raw;
	bool census;
};

/**
 * struct sampest_stats - what the estimate stands on
 * @exact: the exact count the rows add up to (every event, at the last
 *	window's end), less @unplaced
 * @unplaced: hits counted while no sample of their event had come yet
 * @draws: samples that were draws (census samples not among them)
 * @w: the hits given to samples, added up (sum(w))
 * @w2: their squares added up (sum(w^2))
 */
struct sampest_stats {
	uint64_t exact;
	uint64_t unplaced;
	uint64_t draws;
	double w;
	double w2;
};

/**
 * typedef sampest_count_fn - count @hits for sample @s (its window ended)
 */
typedef void (*sampest_count_fn)(void *ctx, const struct sampest_sample *s, uint64_t hits);

struct sampest;

/**
 * sampest_new() - an estimate of @nevents events
 * @nevents: how many events are sampled (at least 1)
 *
 * Return: the estimate, or NULL when out of memory.
 */
struct sampest *sampest_new(unsigned int nevents);

/**
 * sampest_add() - hold a sample until its window ends
 * @e: the estimate
 * @s: the sample (its frames copied)
 *
 * Return: 0, or -ENOMEM (not held: the caller counts it with its raw
 * weight).
 */
int sampest_add(struct sampest *e, const struct sampest_sample *s);

/**
 * sampest_held() - samples held in the window
 * @e: the estimate
 *
 * Return: how many.
 */
size_t sampest_held(const struct sampest *e);

/**
 * sampest_flush() - end the window: share each event's exact growth since
 *	the last window among its samples, by raw weight, and count them
 * @e: the estimate
 * @exact: each event's exact count now (what the samples estimate)
 * @fn: counts a sample's hits (never called with 0)
 * @ctx: passed to @fn
 */
void sampest_flush(struct sampest *e, const uint64_t *exact, sampest_count_fn fn, void *ctx);

/**
 * sampest_stats() - the estimate's counters
 * @e: the estimate
 * @st: filled
 */
void sampest_stats(const struct sampest *e, struct sampest_stats *st);

/**
 * sampest_exact() - an event's exact count at the last window's end (its
 *	rows' hits, with its @unplaced)
 * @e: the estimate
 * @event: the event's index
 *
 * Return: the count, 0 for an index out of range.
 */
uint64_t sampest_exact(const struct sampest *e, unsigned int event);

/**
 * sampest_free() - free the estimate
 * @e: the estimate, or NULL
 */
void sampest_free(struct sampest *e);

#endif /* STACKTOP_SAMPEST_H */
