/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.h - compare two sessions (`--diff BEFORE AFTER`): every stack's
 * share of its session's hits before and after, ranked by how much the
 * share changed. Stacks are matched by their stable key (the JSON
 * snapshot's "key": their symbols), so a snapshot of another boot, or of
 * another machine running the same kernel, compares.
 */
#ifndef STACKTOP_DIFF_H
#define STACKTOP_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output/export.h"

struct session;
struct stack;

/* JSON diff schema version (doc/formats.md, doc/stacktop-diff.schema.json) */
#define DIFF_JSON_VERSION 1

/**
 * struct diff_row - one stack of the comparison
 * @key: stable key
 * @before: the stack in the BEFORE session, NULL when it is new
 * @after: the stack in the AFTER session, NULL when it is gone
 * @hits_before: its hits before (the view's count: interval or total)
 * @hits_after: its hits after
 * @share_before: @hits_before in percent of every matching hit before
 * @share_after: the same after
 * @change: @share_after - @share_before, in percentage points
 */
struct diff_row {
	uint64_t key;
	const struct stack *before;
	const struct stack *after;
	uint64_t hits_before;
	uint64_t hits_after;
	double share_before;
	double share_after;
	double change;
};

/**
 * struct diff - a comparison
 * @rows: stacks of either side, ranked by |@change| (largest first), then
 *        by the share after, then by key
 * @n: entries in @rows
 * @total_before: matching hits before
 * @total_after: matching hits after
 * @nnew: stacks only after
 * @ngone: stacks only before
 */
struct diff {
	struct diff_row *rows;
	size_t n;
	uint64_t total_before;
	uint64_t total_after;
	size_t nnew;
	size_t ngone;
};

/* an event index no breakdown record has (uint16_t): a filter nothing passes */
#define DIFF_NO_EVENT 65536

/**
 * diff_event_map() - the index in @to of @from's event @ev, by name
 * @from: session
 * @ev: event index in @from, -1 for none
 * @to: session
 *
 * Return: the index, -1 when @ev is, DIFF_NO_EVENT when @to has no such event.
 */
int diff_event_map(struct session *from, int ev, struct session *to);

/**
 * diff_compute() - compare @before with @after under the view @o
 * @before: session
 * @after: session
 * @o: filters (@o->rank, its event an index of @after's) and the count (@o->delta)
 * @ret: filled (free with diff_free())
 *
 * Return: 0 or -ENOMEM.
 */
int diff_compute(struct session *before, struct session *after, const struct report_opts *o,
		 struct diff *ret);

/**
 * diff_free() - free what diff_compute() allocated
 * @d: comparison
 */
void diff_free(struct diff *d);

/**
 * diff_write() - the comparison as text (a ranked table: BEFORE%, AFTER%,
 * Δ% and NEW/GONE marks) or as JSON (schema "stacktop-diff")
 * @f: output
 * @before: session
 * @after: session
 * @o: view (@o->top rows, 0: 20 for text, all for JSON)
 * @json: JSON instead of text
 * @iteration: 1-based refresh number (a live AFTER)
 *
 * Return: 0 or -errno.
 */
int diff_write(FILE *f, struct session *before, struct session *after, const struct report_opts *o,
	       bool json, int iteration);

#endif /* STACKTOP_DIFF_H */
