/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rank.h - the ranked rows of a stack table: the key, the filters, the
 * top k by a bounded heap, and who hits a stack most.
 */
#ifndef STACKTOP_RANK_H
#define STACKTOP_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/stack.h"

struct stack_table;

enum rank_key {
	RANK_DELTA, /* hits in the last interval */
	RANK_TOTAL, /* hits since start/reset */
	RANK_DEPTH, /* number of frames */
	RANK_ID,    /* lowest kernel id */
	RANK_EVENT, /* by event name: the screen orders the busiest stacks it ranked */
	RANK_COMM,  /* by comm: likewise; stack_table_rank() takes both as RANK_DELTA */
	RANK_KEY_MAX,
};

/**
 * struct rank_opts - what to rank and how
 * @key: sort key; ties are broken by total, then by hash (a stable order)
 * @invert: ascending instead of descending
 * @event: only count hits of this event index, -1 for all
 * @pid: only count hits of this pid, -1 for all
 * @cpu: only count hits on this CPU, -1 for all
 * @match: if not NULL, a stack is kept only when it returns true (text
 *         filters: frame names, comm); called only for stacks with hits
 * @match_ctx: passed to @match
 * @attr_match: if not NULL, only the hits of breakdown records that pass it
 *              are counted (a comm filter: the stack's other hits are not)
 * @attr_ctx: passed to @attr_match
 * @hide_idle: skip stacks with no hits in the last interval
 * @weight: rank by weights (stack_table_set_weighted()) instead of hits:
 *          the rows' and the summary's @total and @delta are then weights
 */
struct rank_opts {
	enum rank_key key;
	bool invert;
	int event;
	int pid;
	int cpu;
	bool (*match)(const struct stack *s, void *ctx);
	void *match_ctx;
	bool (*attr_match)(const struct stack_attr *a, void *ctx);
	void *attr_ctx;
	bool hide_idle;
	bool weight;
};

/**
 * rank_attr_passes() - whether a breakdown record's hits count under @o
 * @o: filters (event, pid, cpu, attr_match)
 * @a: record
 */
static inline bool rank_attr_passes(const struct rank_opts *o, const struct stack_attr *a)
{
	return (o->event < 0 || a->event == o->event) && (o->pid < 0 || a->pid == o->pid) &&
	       (o->cpu < 0 || a->cpu == o->cpu) &&
	       (!o->attr_match || o->attr_match(a, o->attr_ctx));
}

/**
 * rank_filters_attrs() - whether @o looks at breakdown records at all
 * @o: filters
 */
static inline bool rank_filters_attrs(const struct rank_opts *o)
{
	return o->event >= 0 || o->pid >= 0 || o->cpu >= 0 || o->attr_match;
}

/**
 * struct rank_row - one ranked stack, with counts under the filters
 * @stack: the stack
 * @total: hits since start/reset that pass the filters
 * @delta: hits in the last interval that pass the filters
 */
struct rank_row {
	struct stack *stack;
	uint64_t total;
	uint64_t delta;
};

/**
 * struct rank_summary - totals over every stack that passed the filters
 * @matched: stacks that passed
 * @total: their hits since start/reset
 * @delta: their hits in the last interval
 */
struct rank_summary {
	size_t matched;
	uint64_t total;
	uint64_t delta;
};

/**
 * stack_table_rank() - the top @k stacks under @o
 * @t: table
 * @o: key and filters
 * @out: array of at least @k rows, filled best first
 * @k: rows wanted
 * @ret_sum: if not NULL, totals of every matching stack
 *
 * Uses a bounded heap: O(n log k), no full sort, no allocation.
 *
 * Return: rows written (at most @k).
 */
size_t stack_table_rank(struct stack_table *t, const struct rank_opts *o, struct rank_row *out,
			size_t k, struct rank_summary *ret_sum);

/**
 * struct stack_top - who hits a stack most, by the view's count (the
 *	weight when the view ranks by weight: with --offcpu=wait the event
 *	with most time, not the one with most switches)
 * @event: event index with most hits, -1 if none
 * @pid: pid with most hits, -1 if none
 * @cpu: CPU with most hits, -1 if none
 * @event_hits / @pid_hits / @cpu_hits: their hit counts (hits, also when
 *	picked by weight)
 * @npids: pids with hits (@pid included)
 */
struct stack_top {
	int event;
	int pid;
	int cpu;
	uint64_t event_hits;
	uint64_t pid_hits;
	uint64_t cpu_hits;
	uint32_t npids;
};

/**
 * stack_top_of() - the most frequent event, pid and CPU of @s
 * @t: table (holds the scratch space)
 * @s: stack
 * @delta: count the last interval's hits instead of totals
 * @filter: if not NULL, only the records that pass it count
 *          (rank_attr_passes(): event, pid, CPU, attr_match); with
 *          @filter->weight (and a weighted table) the weights decide
 * @ret: filled
 *
 * Exact: the stack's records are summed per pid, event and CPU (a pid has a
 * record per event and CPU). O(records of @s); call it for the rows shown.
 * Ties go to the lowest number.
 */
void stack_top_of(struct stack_table *t, const struct stack *s, bool delta,
		  const struct rank_opts *filter, struct stack_top *ret);

#endif /* STACKTOP_RANK_H */
