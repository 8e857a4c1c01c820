/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_rank.h - the ranked table's data (stack_rank.c): the ranking, the
 * rows on screen (stacks and their expanded frames), the selection, and
 * what a row says about who hits it. stack_view.h draws it.
 */
#ifndef STACKTOP_UI_STACK_RANK_H
#define STACKTOP_UI_STACK_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"
#include "ui/tui.h"

void stack_view_rank(struct ui *ui, bool live);
void stack_view_rebuild(struct ui *ui, bool keep_selection);
struct stack *stack_view_selected(struct ui *ui);

/**
 * stack_view_selected_frame() - the frame of the selected row's stack that
 *	names the row: an expanded frame's own, else the first its one-line
 *	text shows (after the tracing machinery and the leaf frames every row
 *	shares, which the column title says once)
 * @ui: the screen (a stack is selected: stack_view_selected())
 */
unsigned int stack_view_selected_frame(struct ui *ui);
void stack_view_save(struct ui *ui);
void stack_view_restore(struct ui *ui);
void stack_view_note_choice(struct ui *ui);

/**
 * struct sv_extra - what an expanded stack shows after its frames
 * @trend: a line of its trend
 * @hist: its histogram of single weights (a weighted table): a title line
 *        and the buckets @first to @last
 * @counts: the buckets (core/hist.h)
 * @first: first bucket with a count
 * @last: last bucket with a count
 */
struct sv_extra {
	bool trend;
	bool hist;
	uint64_t counts[HIST_BUCKETS];
	unsigned int first, last;
};

/**
 * stack_view_extra() - the rows an expanded stack shows after its frames
 * (its frame rows @st->depth and after)
 * @ui: the screen
 * @st: the stack
 * @ex: filled
 *
 * Return: how many rows.
 */
int stack_view_extra(struct ui *ui, const struct stack *st, struct sv_extra *ex);

/* rows the view ranks when no --top limits it */
#define SV_DEFAULT_TOP 1000

/**
 * stack_view_info() - who hits a row's stack most (event, pid, comm,
 *	origin), computed at its first draw after a ranking and then kept
 * @ui: the screen
 * @rr: the row's ranking
 *
 * Return: the facts, or NULL when out of memory.
 */
const struct sv_info *stack_view_info(struct ui *ui, const struct rank_row *rr);

/**
 * stack_view_info_forget() - drop the kept facts (a new ranking)
 * @sv: the view
 */
void stack_view_info_forget(struct stack_view *sv);

/**
 * stack_view_event_label() - the EVENT column's text for event @ev
 * @ui: the screen
 * @ev: event index, -1 for none ("-")
 */
const char *stack_view_event_label(struct ui *ui, int ev);

/* the events' short labels for the EVENT column, from the events seen (at each layout) */
void stack_view_event_labels(struct ui *ui);

/**
 * stack_view_common() - how many leaf frames of @rr's stack every row
 *	shares (left out as "...")
 * @ui: the screen
 * @rr: the row's ranking
 */
unsigned int stack_view_common(struct ui *ui, const struct rank_row *rr);


#endif /* STACKTOP_UI_STACK_RANK_H */
