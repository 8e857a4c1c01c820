/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_table.h - unique kernel stacks and their counts.
 *
 * Stacks are interned by content (depth + instruction pointers), never by a
 * kernel stack_id: ids are hash slots of one map generation (see
 * doc/design.md). Each stack carries its counts and a short list of the
 * kernel ids it was seen under. Counts are broken down per
 * (event, cpu, pid) in `struct stack_attr` records chained from the stack.
 *
 * Intervals: stack_table_tick() closes the current interval in O(1). Each
 * counter remembers the epoch it was last written in, and readers use
 * stack_delta()/stack_attr_delta() to get the count of the last closed
 * interval.
 *
 * Ranking (stack_table_rank(), core/rank.h) fills a separate array; the
 * table itself is never reordered, so pointers to stacks stay valid until
 * stack_table_clear() or stack_table_free().
 */
#ifndef STACKTOP_STACK_TABLE_H
#define STACKTOP_STACK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/mix64.h"

#include "core/stack.h"

struct stack_table;

/**
 * stack_table_new() - an empty table
 *
 * Return: the table (free with stack_table_free()), NULL on OOM.
 */
struct stack_table *stack_table_new(void);

/**
 * stack_table_free() - free the table, its stacks and records; NULL is a no-op
 * @t: table
 */
void stack_table_free(struct stack_table *t);

/**
 * stack_hash() - the hash stack_table_intern() uses for a frame array
 * @ips: frames
 * @depth: number of frames
 */
uint32_t stack_hash(const uint64_t *ips, unsigned int depth);

/**
 * stack_hash_begin() - stack_hash() a frame at a time, for a reader that
 * hashes the frames as it copies them: stack_hash_end() of
 * stack_hash_step() over each frame from stack_hash_begin(@depth) equals
 * stack_hash(ips, @depth)
 * @depth: number of frames to come
 */
static inline uint64_t stack_hash_begin(unsigned int depth)
{
	return 0x9e3779b97f4a7c15ULL ^ depth;
}

/**
 * stack_hash_step() - the hash so far with one more frame
 * @h: stack_hash_begin() or the last step
 * @ip: the next frame
 */
static inline uint64_t stack_hash_step(uint64_t h, uint64_t ip)
{
	return (h ^ ip) * 0x100000001b3ULL + (h >> 29);
}

/**
 * stack_hash_end() - the hash of the frames stepped through
 * @h: the last stack_hash_step() (or stack_hash_begin(0))
 */
static inline uint32_t stack_hash_end(uint64_t h)
{
	return (uint32_t)mix64(h);
}

/**
 * stack_table_intern() - find or insert a stack by content
 * @t: table
 * @ips: frames, leaf first (copied on insert)
 * @depth: number of frames; above STACK_MAX_DEPTH the stack is cut and
 *         flagged STACK_F_CUT
 *
 * Return: the stack (owned by @t), NULL on OOM.
 */
struct stack *stack_table_intern(struct stack_table *t, const uint64_t *ips, unsigned int depth);

/**
 * stack_table_intern_hashed() - stack_table_intern() with the hash known
 * @t: table
 * @ips: frames, leaf first (copied on insert)
 * @depth: number of frames, at most STACK_MAX_DEPTH
 * @h: stack_hash(@ips, @depth), computed by the caller as it read them
 *
 * Return: the stack (owned by @t), NULL on OOM.
 */
struct stack *stack_table_intern_hashed(struct stack_table *t, const uint64_t *ips,
					unsigned int depth, uint32_t h);

/**
 * stack_table_set_weighted() - keep a weight (a sum of per-hit values: bytes,
 * nanoseconds) next to every hit counter; only while the table is empty,
 * so that stacks and records of unweighted runs stay as small as before
 * @t: table
 * @on: weighted
 *
 * Return: 0, or -EBUSY when the table already holds stacks.
 */
int stack_table_set_weighted(struct stack_table *t, bool on);

/**
 * stack_table_weighted() - whether @t keeps weights
 * @t: table
 */
bool stack_table_weighted(const struct stack_table *t);

/**
 * stack_table_hit_w() - count @n hits of @s weighing @w in all
 * @t: table
 * @s: stack from stack_table_intern()
 * @event: event index
 * @cpu: CPU
 * @pid: common_pid of the event
 * @n: hits to add
 * @w: weight to add (ignored by an unweighted table)
 *
 * Return: 0, or -ENOMEM (the stack's own counts are still updated).
 */
int stack_table_hit_w(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu,
		      int pid, uint64_t n, uint64_t w);

/**
 * stack_weight() - the weight of @s since start or reset (0 when unweighted)
 * @t: table
 * @s: stack
 * @ret_delta: if not NULL, receives the weight of the last closed interval
 */
uint64_t stack_weight(const struct stack_table *t, const struct stack *s, uint64_t *ret_delta);

/**
 * stack_attr_weight() - the weight of a breakdown record (0 when unweighted)
 * @t: table
 * @a: record
 * @ret_delta: if not NULL, receives the weight of the last closed interval
 */
uint64_t stack_attr_weight(const struct stack_table *t, const struct stack_attr *a,
			   uint64_t *ret_delta);

/**
 * stack_table_weights() - the weight of all stacks (0 when unweighted)
 * @t: table
 * @ret_delta: if not NULL, receives the weight of the last closed interval
 */
uint64_t stack_table_weights(const struct stack_table *t, uint64_t *ret_delta);

/* ---- per stack: the histogram of single weights, the recent intervals -- */

/**
 * stack_table_set_hist_scale() - how a weighted table buckets single
 * weights (enum hist_scale, core/hist.h: HIST_TIME for nanoseconds,
 * HIST_LOG2 otherwise); only while the table is empty
 * @t: table
 * @scale: enum hist_scale
 *
 * Return: 0, or -EBUSY when the table already holds stacks.
 */
int stack_table_set_hist_scale(struct stack_table *t, unsigned int scale);

/**
 * stack_table_hist_scale() - the scale of the histograms (enum hist_scale)
 * @t: table
 */
unsigned int stack_table_hist_scale(const struct stack_table *t);

/**
 * stack_hist() - how the single weights of @s's hits spread over the log2
 * buckets of core/hist.h, since start or reset (a weighted table keeps
 * HIST_BUCKETS 32-bit counters per stack, saturating; an unweighted one
 * none)
 * @t: table
 * @s: stack
 * @counts: receives HIST_BUCKETS counts
 *
 * Return: false when the table is unweighted (@counts zeroed).
 */
bool stack_hist(const struct stack_table *t, const struct stack *s, uint64_t *counts);

/**
 * stack_table_add_hist() - add @n values to bucket @b of @s (a snapshot
 * read back); nothing in an unweighted table
 * @t: table
 * @s: stack
 * @b: bucket, below HIST_BUCKETS
 * @n: values
 *
 * Return: 0, -EINVAL for a bucket out of range, -EOPNOTSUPP unweighted.
 */
int stack_table_add_hist(struct stack_table *t, struct stack *s, unsigned int b, uint64_t n);

#define STACK_TREND 16 /* closed intervals whose counts a stack keeps */

/**
 * stack_trend() - @s's hits (or weights) in each of the last closed
 * intervals, oldest first, the last being stack_delta()'s interval. The
 * table records them at stack_table_tick() for the stacks hit in the
 * interval it closes (nothing on the hit path), in slots of the stacks
 * hit in the last STACK_TREND intervals only.
 * @t: table
 * @s: stack
 * @weight: weights instead of hits (a weighted table)
 * @out: receives the counts
 * @n: room in @out
 *
 * Return: intervals written (at most @n and STACK_TREND, fewer in the
 * first intervals after start or reset), -ENOSPC when the memory limit
 * refused the stack a slot.
 */
int stack_trend(const struct stack_table *t, const struct stack *s, bool weight, uint64_t *out,
		unsigned int n);

/**
 * stack_trend_restart() - trends start with the next interval: the ones
 * closed so far (a session's set-up) are not drawn
 * @t: table
 */
void stack_trend_restart(struct stack_table *t);

/**
 * stack_table_add_trend() - add the counts of @n intervals before the
 * current one to @s's trend (a snapshot read back: its last interval is
 * the one stack_table_add() counts, which the next tick closes)
 * @t: table
 * @s: stack
 * @hits: @n hit counts, oldest first
 * @w: @n weights, or NULL
 * @n: intervals (at most STACK_TREND are kept: the newest)
 *
 * Return: 0, -ENOSPC when the memory limit refused a slot.
 */
int stack_table_add_trend(struct stack_table *t, struct stack *s, const uint64_t *hits,
			  const uint64_t *w, unsigned int n);

/**
 * stack_table_hit() - count @n hits of @s for (event, cpu, pid)
 * @t: table
 * @s: stack from stack_table_intern()
 * @event: event index
 * @cpu: CPU
 * @pid: common_pid of the event
 * @n: hits to add
 *
 * Return: 0, or -ENOMEM (the stack's own counts are still updated).
 */
int stack_table_hit(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu,
		    int pid, uint64_t n);

/**
 * struct stack_key - what a breakdown record counts for
 * @event: event index
 * @cpu: CPU
 * @pid: pid, -1 for none
 * @origin: origin index (the file it came from; 0 live)
 */
struct stack_key {
	unsigned int event;
	unsigned int cpu;
	int pid;
	unsigned int origin;
};

/**
 * struct stack_counts - counts read back from a snapshot
 * @total: hits since start
 * @delta: of them, hits in the current interval (at most @total)
 * @w: weight since start (an unweighted table ignores it)
 * @wdelta: of it, weight in the current interval
 */
struct stack_counts {
	uint64_t total;
	uint32_t delta;
	uint64_t w;
	uint64_t wdelta;
};

/**
 * stack_table_add() - add counts read back from a snapshot to @s and its
 * record for @k; the current interval is the one the next
 * stack_table_tick() closes
 * @t: table
 * @s: stack from stack_table_intern()
 * @k: the record's key
 * @c: the counts
 *
 * Return: 0, or -ENOMEM (the stack's own counts are still updated).
 */
int stack_table_add(struct stack_table *t, struct stack *s, const struct stack_key *k,
		    const struct stack_counts *c);

/**
 * stack_add_id() - remember that @s was seen under kernel id @id
 * @s: stack
 * @id: kernel stack_id
 */
void stack_add_id(struct stack *s, uint32_t id);

/**
 * stack_table_tick() - close the current interval
 * @t: table
 */
void stack_table_tick(struct stack_table *t);

/**
 * stack_table_clear() - forget every stack and count (a reset)
 * @t: table
 *
 * Pointers to stacks and records become invalid.
 */
void stack_table_clear(struct stack_table *t);

/**
 * stack_table_count() - number of unique stacks
 * @t: table
 */
size_t stack_table_count(const struct stack_table *t);

/**
 * stack_table_hits() - hits of all stacks
 * @t: table
 * @ret_delta: if not NULL, receives the hits of the last closed interval
 *
 * Return: total hits since start or reset.
 */
uint64_t stack_table_hits(const struct stack_table *t, uint64_t *ret_delta);

/**
 * stack_table_epoch() - the current interval number
 * @t: table
 */
uint32_t stack_table_epoch(const struct stack_table *t);

/**
 * stack_delta() - hits of @s in the last closed interval
 * @t: table
 * @s: stack
 */
uint64_t stack_delta(const struct stack_table *t, const struct stack *s);

/**
 * stack_attr_delta() - hits of @a in the last closed interval
 * @t: table
 * @a: record
 */
uint64_t stack_attr_delta(const struct stack_table *t, const struct stack_attr *a);

/**
 * stack_table_last_active() - the stacks hit in the last closed interval
 * @t: table
 * @ret: the stacks (owned by @t; valid until the next tick or clear)
 * @ret_n: how many
 * @ret_nhit: stacks with at least one hit since start or reset
 *
 * Return: false when the list is incomplete (memory ran out): walk them all.
 */
bool stack_table_last_active(const struct stack_table *t, struct stack *const **ret, size_t *ret_n,
			     size_t *ret_nhit);

/**
 * stack_table_foreach() - call @fn for every stack, in insertion order
 * @t: table
 * @fn: callback; a non-zero return stops the walk and is returned
 * @ctx: passed to @fn
 */
int stack_table_foreach(struct stack_table *t, int (*fn)(struct stack *s, void *ctx), void *ctx);

#endif /* STACKTOP_STACK_TABLE_H */
