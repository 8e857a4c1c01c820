/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hist.h - log2 histograms of single values (the weights of a weighted
 * table, one value per hit), as bpftrace's hist() prints them.
 *
 * Two scales of HIST_BUCKETS buckets each:
 *  - HIST_LOG2 (bytes, plain counts): bpftrace's own buckets, [0], [1],
 *    [2, 4), [4, 8) ... [2^46, ...), labelled with bpftrace's suffixes
 *    (K = 1024, M = 2^20 ...);
 *  - HIST_TIME (nanoseconds): powers of two inside each unit, [0], [1ns,
 *    2ns) ... [512ns, 1us), [1us, 2us) ... [512us, 1ms), [1ms, 2ms) ...
 *    [512ms, 1s), [1s, 2s) ... [65536s, ...): the question "how many
 *    sleeps of 1-2 ms, 2-4 ms" reads straight off it, and every bucket in
 *    one unit is exactly bpftrace's hist() of the value in that unit
 *    (hist(ns / 1000000) for milliseconds).
 * Pure functions, no allocation.
 */
#ifndef STACKTOP_HIST_H
#define STACKTOP_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIST_BUCKETS 48

enum hist_scale {
	HIST_LOG2,
	HIST_TIME,
};

/* 0 for 0, else the number of bits: 1 -> 1, 2..3 -> 2, 4..7 -> 3 */
static inline unsigned int hist_bits(uint64_t v)
{
	return v ? 64u - (unsigned int)__builtin_clzll(v) : 0u;
}

/**
 * hist_bucket() - the bucket of a value
 * @scale: enum hist_scale
 * @v: the value
 *
 * Return: 0 .. HIST_BUCKETS - 1 (the last bucket has no upper bound).
 */
static inline unsigned int hist_bucket(unsigned int scale, uint64_t v)
{
	unsigned int b;

	if (scale == HIST_TIME) {
		if (v < 1000)
			return hist_bits(v);
		if (v < 1000000)
			return 10 + hist_bits(v / 1000);
		if (v < 1000000000)
			return 20 + hist_bits(v / 1000000);
		b = 30 + hist_bits(v / 1000000000);
	} else {
		b = hist_bits(v);
	}
	return b < HIST_BUCKETS ? b : HIST_BUCKETS - 1;
}

/**
 * hist_low() - the smallest value of bucket @b
 * @scale: enum hist_scale
 * @b: bucket
 */
uint64_t hist_low(unsigned int scale, unsigned int b);

/**
 * hist_high() - the first value above bucket @b, UINT64_MAX for the last
 * @scale: enum hist_scale
 * @b: bucket
 */
uint64_t hist_high(unsigned int scale, unsigned int b);

/**
 * hist_label() - "[128ms, 256ms)", "[1K, 2K)", "[0]", "[65536s, ...)"
 * @buf: output
 * @size: size of @buf
 * @scale: enum hist_scale
 * @b: bucket
 *
 * Return: the length written (snprintf semantics).
 */
int hist_label(char *buf, size_t size, unsigned int scale, unsigned int b);

/**
 * hist_range() - the first and last buckets with a count
 * @counts: HIST_BUCKETS counts
 * @first: receives the first
 * @last: receives the last
 *
 * Return: false when every bucket is empty.
 */
bool hist_range(const uint64_t *counts, unsigned int *first, unsigned int *last);

/**
 * hist_bar() - the bar of a count as bpftrace draws it: @width characters
 * between '|', '@' for the count's share of @max, blanks after
 * @buf: output (at least @width + 3 bytes)
 * @size: size of @buf
 * @count: the bucket's count
 * @max: the largest count of the histogram
 * @width: the bar's width (bpftrace: 52)
 *
 * Return: the number of '@' drawn.
 */
int hist_bar(char *buf, size_t size, uint64_t count, uint64_t max, int width);

#endif /* STACKTOP_HIST_H */
