/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stackmap_health.h - the health of the kernel's stack map, from the
 * successive reads of stack_map_stat: how full its pool is, how fast it
 * fills and when it will be full at that rate, since when it is full, what
 * share of the events falls back to full stacks, and the boot parameter
 * that would give it room (ftrace_stackmap.bits=N: 2^N entries).
 *
 * Plain values and arithmetic (no I/O: the caller passes the times and the
 * counters), so that the unit tests drive it with made-up reads. The map
 * reader (source/mapsnap.c) feeds it; the header's outputs print its
 * struct stackmap_health.
 */
#ifndef STACKTOP_STACKMAP_HEALTH_H
#define STACKTOP_STACKMAP_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/stackmap.h"

/* the kernel's range for ftrace_stackmap.bits (trace_stackmap.c clamps to it) */
#define STACKMAP_BITS_MIN 10
#define STACKMAP_BITS_MAX 18
/* warn when the pool will be full within this many seconds at the current rate */
#define STACKMAP_WARN_SEC 300
/* the growth rate is measured over (at least) this many seconds */
#define STACKMAP_RATE_WINDOW 10.0
/* no rate over less than this many seconds */
#define STACKMAP_RATE_MIN 0.2
/* the advised pool holds what was seen and this many seconds more of growth */
#define STACKMAP_ADVICE_SEC 60

/**
 * struct stackmap_rb - the ring-buffer bytes of the stack records read
 *	(ingest's sized_records, sized_bytes, alt_bytes): what the map saves
 * @records: stack records of known depth
 * @bytes: their bytes as read
 * @alt: the same records as full stacks
 */
struct stackmap_rb {
	uint64_t records;
	uint64_t bytes;
	uint64_t alt;
};

/**
 * struct stackmap_health - the map's health, as of the last read
 * @known: a stack_map_stat with the pool's size has been read
 * @entries: stacks in the pool
 * @capacity: the pool's size
 * @fell_back: distinct stacks (of at most STACKMAP_MAX_DEPTH frames) read
 *	as full kernel_stack records since start: the map had no room for them
 * @demand: @entries + @fell_back, what a pool would have had to hold
 * @growth: @demand's growth per second over the last STACKMAP_RATE_WINDOW
 *	seconds (< 0: not measured yet)
 * @settled: @growth was measured over the whole window (before, in the
 *	first seconds, every stack is new: the rate of a start, not of the
 *	workload, and no reason to warn)
 * @eta: seconds until the pool is full at @growth; 0 when full, < 0 when
 *	it is not filling or @growth is unknown
 * @full: the map refuses new stacks: @entries reached @capacity, or its
 *	drops grew (a crowded table refuses before the pool is used up)
 * @full_at_start: it was full at stacktop's first read
 * @full_since: when stacktop first saw it full, seconds since the epoch
 *	(0: not full)
 * @full_for: seconds since then
 * @growth_before: how fast it filled: the growth over the last window up
 *	to the read that saw it full (< 0: unknown, e.g. full at start)
 * @successes_delta: events the map served in the last interval
 * @drops_delta: events that fell back to full stacks in the last interval
 * @successes_run: events the map served since stacktop's start (or the
 *	map's last reset)
 * @drops_run: the same for drops
 * @rb_at_full: the ring-buffer counters at the last mark before it was
 *	seen full (valid when @full and not @full_at_start): what the map
 *	saved before, and since (stackmap_watch_mark())
 * @bits: log2(@capacity), 0 when not a power of two
 * @bits_advice: the N of ftrace_stackmap.bits=N that holds @demand and
 *	STACKMAP_ADVICE_SEC more seconds at @growth (not yet @settled: twice
 *	@demand); 0 when no advice is due
 * @advice_short: even STACKMAP_BITS_MAX would not hold that
 * @warn: full, or full within STACKMAP_WARN_SEC at a @settled @growth
 */
struct stackmap_health {
	bool known;
	uint64_t entries;
	uint64_t capacity;
	uint64_t fell_back;
	uint64_t demand;
	double growth;
	bool settled;
	double eta;
	bool full;
	bool full_at_start;
	int64_t full_since;
	double full_for;
	double growth_before;
	uint64_t successes_delta;
	uint64_t drops_delta;
	uint64_t successes_run;
	uint64_t drops_run;
	struct stackmap_rb rb_at_full;
	unsigned int bits;
	unsigned int bits_advice;
	bool advice_short;
	bool warn;
};

#define STACKMAP_WATCH_SAMPLES 64

/**
 * struct stackmap_watch - what stackmap_health is computed from
 * @h: the result
 * @have: a read of this map generation was seen
 * @base: the first read of the generation (the "since start" base)
 * @last: the last read
 * @tick: the read at the last tick (the interval's base)
 * @mono_full: monotonic seconds when it was first seen full
 * @rb_mark: the ring-buffer counters at the last mark while not full
 * @t: monotonic time of each demand sample (a ring, oldest at @head)
 * @d: the demand samples
 * @n: samples held
 * @head: the oldest sample
 */
struct stackmap_watch {
	struct stackmap_health h;
	bool have;
	struct stackmap_stat base;
	struct stackmap_stat last;
	struct stackmap_stat tick;
	double mono_full;
	struct stackmap_rb rb_mark;
	double t[STACKMAP_WATCH_SAMPLES];
	uint64_t d[STACKMAP_WATCH_SAMPLES];
	unsigned int n;
	unsigned int head;
};

/**
 * stackmap_watch_reset() - forget everything: a new map generation (a
 *	reset, ours or another program's); the next read is the new base
 * @w: watch
 */
void stackmap_watch_reset(struct stackmap_watch *w);

/**
 * stackmap_watch_rebase() - the counts "since start" start again at the last
 *	read (passive mode's r: the map is another tool's, not emptied); its
 *	fill, growth and full state stay what the map is
 * @w: watch
 */
void stackmap_watch_rebase(struct stackmap_watch *w);

/**
 * stackmap_watch_mark() - the ring-buffer counters at a point where every
 *	record read so far is sized (its stack id resolved): the start of a
 *	drain, a tick. What the map saved "before it filled" is what they hold
 *	at the last mark before the read that saw it full; the records read
 *	between that mark and that read count as after (an id is sized when it
 *	is resolved, and a read in the middle of a drain comes before the
 *	drain's ids are)
 * @w: watch
 * @rb: the counters
 */
void stackmap_watch_mark(struct stackmap_watch *w, const struct stackmap_rb *rb);

/**
 * stackmap_watch_stat() - a read of stack_map_stat
 * @w: watch
 * @st: what was read (its counters never below the last read's: a reset
 *	is the caller's to see, and stackmap_watch_reset() first)
 * @mono: monotonic seconds
 * @wall: the wall clock, seconds since the epoch
 *
 * Sees the pool fill ("since when": the first read with @entries at
 * @capacity, or with drops grown since the read before).
 */
void stackmap_watch_stat(struct stackmap_watch *w, const struct stackmap_stat *st, double mono,
			 int64_t wall);

/**
 * stackmap_watch_tick() - close an interval: its deltas, the growth rate,
 *	the time until full, the advice
 * @w: watch
 * @mono: monotonic seconds
 * @fell_back: distinct stacks read as full kernel_stack records that the
 *	map could have held (at most STACKMAP_MAX_DEPTH frames), since start
 * @rb: the ring-buffer counters now, NULL when there are none (passive):
 *	a mark (stackmap_watch_mark())
 */
void stackmap_watch_tick(struct stackmap_watch *w, double mono, uint64_t fell_back,
			 const struct stackmap_rb *rb);

/**
 * stackmap_bits_for() - the ftrace_stackmap.bits that holds @n stacks
 * @n: stacks
 *
 * Return: the smallest N in STACKMAP_BITS_MIN..STACKMAP_BITS_MAX with
 * 2^N >= @n, STACKMAP_BITS_MAX + 1 when none does.
 */
unsigned int stackmap_bits_for(uint64_t n);

/**
 * stackmap_fallback_pct() - the share of events that fell back to full
 *	stacks
 * @successes: events the map served
 * @drops: events it dropped
 *
 * Return: percent, or -1 when there were no events.
 */
double stackmap_fallback_pct(uint64_t successes, uint64_t drops);

#endif /* STACKTOP_STACKMAP_HEALTH_H */
