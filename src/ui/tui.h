/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tui.h - the state of the interactive screen: struct ui (what every view
 * shares), struct ui_view and its ops (what a view is), the reaction flags
 * actions return. Types only: each file's functions are declared in its
 * own header, so that including the state never makes a file depend on a
 * file above it.
 *
 * A view is one ops struct in its own file (stack_view.c, tree_view.c,
 * flame_view.c), its state its own (struct stack_view, tree_view,
 * flame_view, each starting with a struct ui_view); the screen calls it
 * only through the ops, never asking which view is on screen. Adding one:
 * its file with a `const struct ui_view_ops`, its line in screen.c's
 * ui_view_list[], its key's row in keys.c with the ACT_* value its
 * .opens names (doc/design.md, "Where do I add X").
 *
 * A view reads struct ui const: the rows the screen ranked, the totals,
 * the options it shows; it changes shared state only through the
 * screen's actions (ui_status(), ui_view_open(), ui_sort_by(), ...). The
 * screen's own state is behind @priv (screen_state.h), which only the
 * screen's files see (tests/check-ui-struct.py).
 *
 * The files of ui/, each calling only the ones listed after it (the
 * layering test checks there is no circle):
 *
 *	screen.c          ui_run(): the poll loop, layout, drawing a frame; the views' list
 *	actions.c         the screen's own actions; keys and the mouse to the view on screen
 *	overlay.c         help, pickers, the input line
 *	header.c          the header, the key bar
 *	refresh.c         filters, ranking (the rows, every view's refresh hook), forgetting stacks
 *	save.c            P: the view saved to a file
 *	stack_view.c      the stack view (the home view): ops, keys, mouse, search
 *	stack_draw.c      its columns and rows drawn
 *	stack_rank.c      its ranking, rows, selection, per-row facts (state: stack_rank.h)
 *	tree_view.c       the caller/callee tree view
 *	flame_view.c      the flame graph view: ops, drawing, keys
 *	flame_graph.c     its graph: build, layout for the screen, moving, zoom
 *	breakdown.c       the pane of who hits the selected stack or node
 *	views.c           what views share: switching, double click, the empty view,
 *	                  the sort's name, counts or weights in the weight's unit
 *	list_view.c       the list widget every list embeds
 *	diffcol.c         --diff: BEFORE's shares, the CHG% column
 *	draw.c (draw.h)   ui_put, ui_attr, ui_status, colours: curses
 *	keys.c            the key table
 *	symcache.c, uifmt.c, flame_layout.c   pure helpers (no curses)
 */
#ifndef STACKTOP_UI_TUI_H
#define STACKTOP_UI_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/calltree.h"
#include "core/hmap.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "output/header.h"
#include "session/session.h"
#include "ui/keys.h"
#include "ui/symcache.h"
#include "ui/uifmt.h"
#include "ui/ui.h"

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#endif

#define UI_MIN_COLS   40 /* top and htop work at 40x10: so does the screen, compact */
#define UI_MIN_LINES  10
#define UI_FULL_COLS  80 /* below either: a one-line header, the essential columns */
#define UI_FULL_LINES 24
#define UI_TALL_LINES 40 /* a UVF_TALL view has the one-line header below this */

#define UI_DRAIN_MS	   50	/* longest sleep between two drains */
#define UI_DRAIN_PAGES	   4096 /* pages per drain at most, as the batch loop */
#define UI_DRAIN_BUDGET_MS 25	/* and for this long at most: keys wait no longer */
#define UI_HOLD_SEC	   2.0	/* no re-sort this long after a navigation key */
#define UI_CONFIRM_SEC	   5.0	/* window for the second r */
#define UI_DCLICK_SEC	   0.4	/* two presses on a row within this: a double click */
#define UI_DEBOUNCE_SEC	   0.12 /* typing in the filter re-ranks after this pause */

enum {
	R_REDRAW = 1 << 0,  /* draw again */
	R_RESORT = 1 << 1,  /* re-rank; a paused snapshot is only re-sorted */
	R_REFRESH = 1 << 2, /* re-rank from live data even when paused */
	R_QUIT = 1 << 3,
	R_NAV = 1 << 4,	   /* the user moved: hold the order for a while */
	R_LAYOUT = 1 << 5, /* screen areas changed */
	R_CLEAR = 1 << 6,  /* repaint every cell (Ctrl-L) */
	R_GONE = 1 << 7,   /* the terminal is gone */
	R_PASS = 1 << 8,   /* a view's action hook: not mine, the screen's action runs */
};

#define UI_EMPTY_READS 200  /* readable but no key, this often in a row: hung up */
#define UI_DEFAULT_TOP 1000 /* rows the screen ranks without --top */

/**
 * struct ui_rows - the stacks the screen ranked (refresh.c ui_rank()): the
 *	top ones under the view's key and filters, and the totals of every
 *	stack that passed; the stack view orders its own copy, the header and
 *	the columns read the totals
 * @row: the rows, best first (--diff: then BEFORE's gone ones)
 * @n: rows in @row
 * @cap: room in @row
 * @sum: what every stack that passed the filters counts
 */
struct ui_rows {
	struct rank_row *row;
	size_t n;
	size_t cap;
	struct rank_summary sum;
};

/* ---- list widget ------------------------------------------------------- */

struct list_view;

/**
 * struct list_view_ops - what a concrete list provides
 * @draw_row: draw row @row at screen line @y (full width), @selected when it
 *            is the selection
 */
struct list_view_ops {
	void (*draw_row)(struct list_view *lv, int row, int y, bool selected);
};

/**
 * struct list_view - selection and scrolling over @nr rows in a screen area
 * @ops: callbacks
 * @nr: rows
 * @sel: selected row (-1 when @nr is 0)
 * @top: first row shown
 * @y: first screen line of the area
 * @height: lines of the area
 */
struct list_view {
	const struct list_view_ops *ops;
	int nr;
	int sel;
	int top;
	int y;
	int height;
};

/* ---- views ---------------------------------------------------------------- */

struct ui;
struct ui_view;

/* how ui_rank() calls a view's refresh hook (struct ui_view_ops.rank) */
enum {
	UV_LIVE = 1 << 0,  /* from live data; else the frozen snapshot, re-sorted */
	UV_SHOWN = 1 << 1, /* the view is the one on screen */
	UV_HOME = 1 << 2,  /* the filters changed: the selection goes to the first row */
};

/* what a view is (struct ui_view_ops.flags) */
enum {
	UVF_BREAKDOWN = 1 << 0, /* the breakdown pane (b) shows under it */
	UVF_RESORT = 1 << 1,	/* w and z re-sort its rows; other views re-rank */
	UVF_TALL = 1 << 2,	/* every row is a level: a one-line header below UI_TALL_LINES */
};

/**
 * struct ui_view_ops - what a view of the screen is and does (as tig's
 *	struct view_ops, htop's PanelClass): the screen calls a view only
 *	through these, never by asking which view it is
 * @name: short name ("stacks", "tree", "flame")
 * @opens: the action of the key that opens it (ACT_NONE: none, the home
 *	view); ui_dispatch() opens it when the view on screen does not
 *	answer that action itself
 * @flags: UVF_* flags
 * @create: a new view on @ui, its state allocated (NULL: out of memory)
 * @destroy: free the view and its state
 * @layout: the screen's areas changed (ui->list_y, ui->list_h, ui->cols)
 * @rank: the refresh hook: rank or build again, as @how says: UV_LIVE,
 *	UV_SHOWN, UV_HOME (ui_rank() calls every view's at each refresh)
 * @forget: the core cleared its table: drop every stack pointer kept
 * @draw: draw the column titles, the rows and the breakdown pane (the
 *	header and the bottom line are the screen's)
 * @header: its name in the header's "view" segment (returned) and what it
 *	shows, in @shown ("12 of 80", "34 nodes")
 * @action: answer an action of the key table: R_* flags, or R_PASS when
 *	the screen's own action is to run (every view answers the moving
 *	actions, keys_moves())
 * @click: button 1 at (@y, @x), @dclick when the terminal said it is a
 *	double click (ui_dclick() tells the others): R_* flags, 0 for nothing
 * @wheel: the mouse wheel, @steps notches down (up when negative)
 * @search: select the next (@dir 1) or previous (-1) row the search
 *	matches, the selected one too when @include_current: false when none
 * @search_save: a search prompt opens: remember folds, selection, scroll
 *	(every view is told: the prompt may outlive a change of view)
 * @search_restore: back to what @search_save kept (Esc, or the search retyped)
 * @open: its key opened it, coming from @from (not when a view goes back to it)
 * @leave: another view takes the screen
 * @nav: the user moved through it (a key or the mouse: R_NAV)
 * @stack: the stack the selection stands for, NULL when none (F edits
 *	that stack's main event's kernel filter)
 * @leaf_first: whether it shows the stacks merged by their leaf (the callee
 *	tree): the flame graph it opens is then the inverted one
 *
 * Every hook but @create, @destroy, @draw, @header and @action may be NULL.
 */
struct ui_view_ops {
	const char *name;
	enum ui_action opens;
	unsigned int flags;
	struct ui_view *(*create)(struct ui *ui);
	void (*destroy)(struct ui_view *v);
	void (*layout)(struct ui_view *v);
	void (*rank)(struct ui_view *v, unsigned int how);
	void (*forget)(struct ui_view *v);
	void (*draw)(struct ui_view *v);
	const char *(*header)(struct ui_view *v, char *shown, size_t size);
	int (*action)(struct ui_view *v, enum ui_action act);
	int (*click)(struct ui_view *v, int y, int x, bool dclick);
	void (*wheel)(struct ui_view *v, int steps);
	bool (*search)(struct ui_view *v, int dir, bool include_current);
	void (*search_save)(struct ui_view *v);
	void (*search_restore)(struct ui_view *v);
	void (*open)(struct ui_view *v, struct ui_view *from);
	void (*leave)(struct ui_view *v);
	void (*nav)(struct ui_view *v);
	struct stack *(*stack)(struct ui_view *v);
	bool (*leaf_first)(struct ui_view *v);
};

/**
 * struct ui_view - a view of the screen: the first member of each view's
 *	own state struct (which recovers itself with container_of())
 * @ops: what it does
 * @ui: the screen it is on, read-only: its rows, totals and options; what
 *	changes them is the screen's actions
 */
struct ui_view {
	const struct ui_view_ops *ops;
	const struct ui *ui;
};

#define UI_VIEWS_MAX 8

/**
 * struct ui_area - where things are on the screen (ui_layout(), screen.c)
 * @too_small: under UI_MIN_COLS x UI_MIN_LINES: only a message is drawn
 * @breakdown: the breakdown pane is on (b); shown under views with
 *	UVF_BREAKDOWN
 * @coltitle_y: the line of the column titles (the header's height)
 * @list_y: first line of the view's area
 * @list_h: its lines
 * @bd_y: first line of the breakdown pane
 * @bd_h: its lines (0: none)
 */
struct ui_area {
	bool too_small;
	bool breakdown;
	int coltitle_y;
	int list_y, list_h;
	int bd_y, bd_h;
};

#define UI_TEXT 128

/**
 * struct ui_filters - what the views are limited to and searched for
 * @filter: the \ filter's text
 * @search: the / search's text
 * @comm: the p filter's text when it is not a pid
 * @fmatch: @filter, matched (cached per symbol and stack)
 * @cmatch: @comm, matched (cached per pid)
 * @smatch: @search, matched
 */
struct ui_filters {
	char filter[UI_TEXT];
	char search[UI_TEXT];
	char comm[UI_TEXT];
	struct textmatch fmatch;
	struct textmatch cmatch;
	struct textmatch smatch;
};

struct ui_private;

/**
 * struct ui - the screen as its views read it: what they draw from, the
 *	options they show. A view holds it const (struct ui_view); what
 *	changes it goes through the screen's actions (ui_status(),
 *	ui_view_open(), ui_sort_by(), the list clicks: views.h, draw.h),
 *	whose files alone see @priv (ui/screen_state.h)
 * @s: the session
 * @t: its table of stacks (session_table(): new when the grouping changes)
 * @head: the session's header, read once per refresh (output/header.h)
 * @rank: the ranking's options: sort key, order, filters, count
 * @rows: the last live ranking: its rows and what it matched
 * @nstacks: stacks in @t at the last ranking
 * @ranked_gen: live rankings so far: the breakdown is counted again after
 *	each, as the rows were (the rows' interval, not one the table rolled to
 *	since; and the comm filter as it passed then: a pid's comm learned at
 *	its exec between two rankings changes what the filter passes)
 * @syms: symbol text and per-stack facts, cached (symcache.h: a cache the
 *	views fill as they read)
 * @flt: the filters and the search, with their matchers (caches too)
 * @diff: --diff: BEFORE's shares by stack key (diffcol.c), else NULL
 * @diff_sort: --diff: ranked by the change of share (CHG%), not @rank.key
 * @delta: counts of the last interval (z: cumulative)
 * @paused: the view is frozen (Z)
 * @cols: the terminal's columns
 * @utf8: the charset is UTF-8 (else ASCII stands in for the box drawing)
 * @lay: where things are
 * @view: the view on screen
 * @views: every view, the home view first; NULL-ended
 * @priv: the screen's own state: the terminal, the loop, the input line,
 *	the status line, the overlays (screen_state.h)
 */
struct ui {
	struct session *s;
	struct stack_table *t;
	struct report_head head;
	struct rank_opts rank;
	struct ui_rows rows;
	size_t nstacks;
	uint32_t ranked_gen;
	struct symcache *syms;
	struct ui_filters *flt;
	struct uidiff *diff;
	bool diff_sort;
	bool delta;
	bool paused;
	int cols;
	bool utf8;
	struct ui_area lay;
	struct ui_view *view;
	struct ui_view *views[UI_VIEWS_MAX + 1];
	struct ui_private *priv;
};

#endif /* STACKTOP_UI_TUI_H */
