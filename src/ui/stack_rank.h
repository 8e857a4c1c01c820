/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_rank.h - the stack view's state (struct stack_view) and its data
 * (stack_rank.c): the ranking, the rows on screen (stacks and their
 * expanded frames), the selection, and what a row says about who hits it.
 * stack_view.c draws it and answers the keys; only the two of them
 * include this header.
 */
#ifndef STACKTOP_UI_STACK_RANK_H
#define STACKTOP_UI_STACK_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"
#include "core/hmap.h"
#include "core/stack_table.h"
#include "ui/tui.h"
#include "ui/uifmt.h"

/* columns of the ranked table */
enum ui_col {
	COL_RANK,
	COL_ID,
	COL_DELTA,
	COL_TOTAL,
	COL_PCT,
	COL_CI,	    /* --sample: the 95% half width of the count shown */
	COL_BEFORE, /* --diff: the share before */
	COL_DIFF,   /* --diff: the change of the share against BEFORE */
	COL_RATE,
	COL_TREND, /* the last intervals' counts as a sparkline */
	COL_DEPTH,
	COL_EVENT,
	COL_COMM,
	COL_ORIGIN, /* several -r snapshots: where the hits came from */
	COL_FUNC,
	COL_MAX,
};

/**
 * struct sv_info - what a stack row shows about who hits it, frozen with
 *	the ranking
 * @origin: the origin with most hits, -1 none
 * @origins: others have hits too
 * @event: the event with most hits
 * @pid: the pid with most hits
 * @npids: pids with hits under the view's count and filters
 * @comm: @pid's comm
 * @ntrend: intervals in @trend; -1: refused by the memory limit
 * @trend: hits (or weights) per interval, oldest first
 */
struct sv_info {
	int origin;
	bool origins;
	int event;
	int pid;
	uint32_t npids;
	char comm[32];
	int ntrend;
	uint64_t trend[STACK_TREND];
};

/**
 * struct sv_row - a row on screen
 * @st: its stack
 * @frame: -1: the stack's own row; below @st->depth a frame; past it the
 *	trend and histogram lines (stack_view_extra())
 * @rank: index into stack_view.ranked
 */
struct sv_row {
	struct stack *st;
	int frame;
	uint32_t rank;
};

/**
 * struct sv_saved - the view when a search prompt opened (Esc restores it)
 * @valid: @expanded could be copied
 * @expanded: the expanded stacks
 * @sel_st: the selected row's stack
 * @sel_frame: and frame
 * @top: the first row shown
 * @chosen: stack_view.chosen
 */
struct sv_saved {
	bool valid;
	struct hmap expanded;
	struct stack *sel_st;
	int sel_frame;
	int top;
	bool chosen;
};

/**
 * struct stack_view - the ranked table (the home view)
 * @v: the view (first member)
 * @lv: list widget
 * @ranked: the rows of the screen's last ranking (ui->rows), ordered the
 *	view's way (a snapshot: frozen while paused)
 * @nranked: rows in @ranked
 * @cap: room in @ranked
 * @rows: what is on screen: stack rows and their expanded frames
 * @nrows: rows in @rows
 * @rcap: room in @rows
 * @expanded: stack pointer -> 1 for expanded stacks (view state, never in the core)
 * @cols: column positions for the current width
 * @info_index: stack pointer -> index into @info
 * @info: what each row shows about who hits it (stack_view_info())
 * @ninfo: entries in @info
 * @icap: room in @info
 * @bd: cached breakdown of the selected stack
 * @chosen: the user moved the selection: it follows its stack
 * @opened: the last key opened or closed the selected stack
 * @common: leaf frames every ranked stack shares (brief_common())
 * @common_text: those frames in one line, for the column title
 * @evcommon: per event index: what its rows share (several events)
 * @nevcommon: entries in @evcommon
 * @per_event: rows skip their event's shared frames, not @common
 * @evlabel: per event index: where its short label starts in the name
 * @nevlabel: entries in @evlabel
 * @evw: widest event label
 * @search_opened: unfolded by the last search step, folded by the next
 * @saved: the view when a search prompt opened
 */
struct stack_view {
	struct ui_view v;
	struct list_view lv;
	struct rank_row *ranked;
	size_t nranked;
	size_t cap;
	struct sv_row *rows;
	size_t nrows;
	size_t rcap;
	struct hmap expanded;
	struct col_pos cols[COL_MAX];
	struct hmap info_index;
	struct sv_info *info;
	size_t ninfo;
	size_t icap;
	struct breakdown *bd;
	bool chosen;
	bool opened;
	unsigned int common;
	char common_text[160];
	unsigned int *evcommon;
	size_t nevcommon;
	bool per_event;
	unsigned short *evlabel;
	size_t nevlabel;
	int evw;
	struct stack *search_opened;
	struct sv_saved saved;
};

/**
 * stack_view_rank() - the rows again: a copy of the screen's ranking
 *	(ui->rows: at most --top rows, the screen's height at least) when
 *	@live, else the rows kept re-sorted
 * @sv: the view
 * @live: from live data
 */
void stack_view_rank(struct stack_view *sv, bool live);

/**
 * stack_view_rebuild() - the rows on screen again from the ranking and
 *	the folds
 * @sv: the view
 * @keep_selection: the selection stays on its (stack, frame)
 */
void stack_view_rebuild(struct stack_view *sv, bool keep_selection);

/**
 * stack_view_selected() - the selected row's stack (NULL: none, or a
 *	GONE row, which is BEFORE's)
 * @sv: the view
 */
struct stack *stack_view_selected(struct stack_view *sv);

/**
 * stack_view_selected_frame() - the frame of the selected row's stack that
 *	names the row: an expanded frame's own, else the first its one-line
 *	text shows (after the tracing machinery and the leaf frames every row
 *	shares, which the column title says once)
 * @sv: the view (a stack is selected: stack_view_selected())
 */
unsigned int stack_view_selected_frame(struct stack_view *sv);

/**
 * stack_view_save() - remember folds, selection and scroll (a search
 *	prompt opens)
 * @sv: the view
 */
void stack_view_save(struct stack_view *sv);

/**
 * stack_view_restore() - back to what stack_view_save() remembered (the
 *	search was cancelled or retyped)
 * @sv: the view
 */
void stack_view_restore(struct stack_view *sv);

/**
 * stack_view_note_choice() - after a navigation: does the selection follow
 *	its stack from now on, or the top row
 * @sv: the view
 */
void stack_view_note_choice(struct stack_view *sv);

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
 * @sv: the view
 * @st: the stack
 * @ex: filled
 *
 * Return: how many rows.
 */
int stack_view_extra(struct stack_view *sv, const struct stack *st, struct sv_extra *ex);

/**
 * stack_view_info() - who hits a row's stack most (event, pid, comm,
 *	origin), computed at its first draw after a ranking and then kept
 * @sv: the view
 * @rr: the row's ranking
 *
 * Return: the facts, or NULL when out of memory.
 */
const struct sv_info *stack_view_info(struct stack_view *sv, const struct rank_row *rr);

/**
 * stack_view_info_forget() - drop the kept facts (a new ranking)
 * @sv: the view
 */
void stack_view_info_forget(struct stack_view *sv);

/**
 * stack_view_event_label() - the EVENT column's text for event @ev
 * @sv: the view
 * @ev: event index, -1 for none ("-")
 */
const char *stack_view_event_label(struct stack_view *sv, int ev);

/**
 * stack_view_event_labels() - the events' short labels for the EVENT
 *	column, from the events seen (at each layout)
 * @sv: the view
 */
void stack_view_event_labels(struct stack_view *sv);

/**
 * stack_view_common() - how many leaf frames of @rr's stack every row
 *	shares (left out as "...")
 * @sv: the view
 * @rr: the row's ranking
 */
unsigned int stack_view_common(struct stack_view *sv, const struct rank_row *rr);

#endif /* STACKTOP_UI_STACK_RANK_H */
