// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inline.c - a program whose hot code is an inlined function (issue 38):
 * mix_step() is always inlined into hot_loop(), which is never inlined,
 * and nearly every cycle of the run is spent in it. Built -O2 -g (and a
 * copy whose DWARF is in a separate debug file) for tests/live/inline.sh:
 * the profile must show mix_step as an inlined frame of its own, with its
 * source line, under hot_loop at the line of the call. The lines the test
 * expects are marked: keep them where they are.
 *
 *	inline SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline __attribute__((always_inline)) uint64_t mix_step(uint64_t x)
{
	x ^= x >> 33; /* MIX_FIRST (line 20) */
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 29;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 32; /* MIX_LAST (line 24) */
	return x;
}

__attribute__((noinline)) uint64_t hot_loop(uint64_t seed, long n);
__attribute__((noinline)) uint64_t hot_loop(uint64_t seed, long n)
{
	uint64_t acc = seed;
	long i;

	for (i = 0; i < n; i++)
		acc = mix_step(acc + (uint64_t)i); /* CALL (line 35) */
	return acc;
}

static volatile uint64_t sink;

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec t0, t;
	uint64_t acc = 1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		acc = hot_loop(acc, 1000000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	sink = acc; /* nothing on stdout: it is the profile's when run under stacktop */
	return 0;
}
