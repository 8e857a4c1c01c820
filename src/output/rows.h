/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rows.h - what every output format shares: the view it writes (struct
 * report_opts), the stacks it matches ranked (export_rows()), the stable
 * key of a stack, the origin with most hits, and the small writing helpers
 * (JSON strings, the final flush). The formats (formats.h) and the screen
 * (its diff column and breakdown) use them; they never print on their own.
 */
#ifndef STACKTOP_ROWS_H
#define STACKTOP_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/stack_table.h"
#include "core/rank.h"

struct ksym;
struct session;

/* the root frame of folded lines */
enum export_root {
	EXPORT_ROOT_NONE, /* the outermost kernel frame */
	EXPORT_ROOT_COMM, /* "comm;..." */
	EXPORT_ROOT_PID,  /* "comm;pid;..." */
};

/**
 * struct report_opts - what a report (or file) shows: the current view
 * @top: rows in the text table and in the JSON snapshot; 0 means 20 for
 *       text and every matching stack for JSON (pprof, speedscope and
 *       folded always carry every matching stack)
 * @expand: how many of the top rows to expand into frames (text)
 * @delta: rank by the last interval (true) or by totals (false); the count
 *         folded and speedscope write, the default sample type of pprof
 * @rank: ranking key and filters
 * @root: root frame of folded lines
 * @filter: text describing the @rank.match filter, for the JSON
 *          snapshot's "view" (NULL: none)
 * @comm: the comm filter behind @rank.attr_match (`p`'s text: "=NAME" or a
 *        glob for whole names, else a part of one), NULL: none
 * @lost_stack: the stacks formats (folded, pprof, speedscope, html, svg)
 *        add a stack EXPORT_LOST_FRAME (losses.h) for the events the ring
 *        buffer lost, estimated in the view's count (--folded-lost)
 */
struct report_opts {
	int top;
	int expand;
	bool delta;
	struct rank_opts rank;
	enum export_root root;
	const char *filter;
	const char *comm;
	bool lost_stack;
};

/* every stack matching @o, ranked; *@rows is malloc'd (free() it), even when empty */
int export_rows(struct session *s, const struct rank_opts *o, size_t limit, struct rank_row **rows,
		size_t *n, struct rank_summary *sum);

/* whether record @a counts under @o (no attribute filter: every record) */
static inline bool export_attr_passes(const struct rank_opts *o, const struct stack_attr *a)
{
	return !o || !rank_filters_attrs(o) || rank_attr_passes(o, a);
}

/* what record @a counts under @o: its weight when @o ranks by weight, else its hits */
static inline uint64_t export_attr_total(const struct stack_table *t, const struct rank_opts *o,
					 const struct stack_attr *a, uint64_t *ret_delta)
{
	if (o && o->weight)
		return stack_attr_weight(t, a, ret_delta);
	if (ret_delta)
		*ret_delta = stack_attr_delta(t, a);
	return a->total;
}

/* the pprof/speedscope unit name of what @o counts: "count", "bytes", "nanoseconds" */
const char *export_unit_name(struct session *s, const struct rank_opts *o);

/* a JSON string literal of @str (already sanitized text) */
void export_json_str(FILE *f, const char *str);

/* 0, or the errno of the failed write (EPIPE when the reader went away) */
int export_flush(FILE *f);

/**
 * export_gzip() - @data gzip'd (deflate, the default level) into @f
 * @f: output
 * @data: bytes
 * @len: how many (at most 4 GiB)
 *
 * Return: 0, or -errno.
 */
int export_gzip(FILE *f, const void *data, size_t len);

/**
 * export_stack_key() - the stable key of a stack (the JSON snapshot's
 * "key"): FNV-1a 64 over its frames as fmt_frame() prints them
 * @ks: symbols
 * @sk: stack
 */
uint64_t export_stack_key(struct ksym *ks, const struct stack *sk);

struct session_stats;

/**
 * export_sampled() - whether the counts are --sample's estimates (a live
 *	run, or a snapshot of one: its sample_var read back)
 * @st: the session's counters
 */
bool export_sampled(const struct session_stats *st);

/**
 * export_sample_n() - about one hit in how many had its stack: --sample's
 *	N, or in a snapshot its exact count over its samples
 * @st: the session's counters
 *
 * Return: N, 0 when unknown.
 */
unsigned int export_sample_n(const struct session_stats *st);

/**
 * export_sample_ci95() - the half width of the 95% interval of a hit count
 *	estimated from samples (--sample: source/sampest.h)
 * @hits: the estimate (a row's, or a group of rows')
 * @of: the hits it is a share of: the run's (@st->events) for a total,
 *	the interval's (@st->events_delta) for a delta
 * @st: the session's counters: @sample_var (the samples' weights squared
 *	and added up, times the batches' design effect) and @events (the
 *	weights added up)
 *
 * The rows add up to the exact count: a row's count is the exact count
 * times its share of the samples' weights, a ratio estimator. Its share p
 * varies as p (1 - p) sum(w^2) / sum(w)^2 (the samples' effective number,
 * Kish), widened by the design effect of the batches (the samples of one
 * batch keep one stride, kernel/perfsamp_batch.c): in hits, h (1 - h / H)
 * sample_var / events. The interval is 1.96 standard deviations
 * (doc/performance.md, "Sampled stacks").
 *
 * Return: the half width, rounded up; 0 when the count is exact (every hit
 * has its stack, or the row is all of @of).
 */
uint64_t export_sample_ci95(uint64_t hits, uint64_t of, const struct session_stats *st);

/**
 * export_sample_text() - what a format that has no place for it says of
 *	--sample's counts: one line, for the batch loop's standard error
 * @buf: output
 * @size: its size
 * @st: the session's counters (@sample_period, @exact_events)
 *
 * Return: the wanted length (snprintf semantics), 0 when every hit has its stack.
 */
int export_sample_text(char *buf, size_t size, const struct session_stats *st);

/**
 * export_top_origin() - the origin (see session_origin()) with most hits
 * of @sk among the breakdown records passing @o
 * @s: session
 * @sk: stack
 * @o: filters
 * @delta: count the last interval instead of totals
 * @more: set when other origins have hits too
 *
 * Return: the origin index, -1 when no record has hits.
 */
int export_top_origin(struct session *s, const struct stack *sk, const struct rank_opts *o,
		      bool delta, bool *more);

#endif /* STACKTOP_ROWS_H */
