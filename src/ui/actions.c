// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * actions.c - what the keys and the mouse do: one function per action of
 * the key table (keys.c maps a key to an action, ui_actions[] the action to
 * its function), the mouse, and the routing of a key to the prompt, an
 * overlay or an action.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/format.h"
#include "output/export.h"
#include "ui/actions.h"
#include "ui/draw.h"
#include "ui/flame_view.h"
#include "ui/header.h"
#include "ui/keys.h"
#include "ui/list_view.h"
#include "ui/overlay.h"
#include "ui/refresh.h"
#include "ui/stack_rank.h"
#include "ui/stack_view.h"
#include "ui/symcache.h"
#include "ui/tree_view.h"
#include "ui/tui.h"
#include "ui/uifmt.h"

static int act_quit(struct ui *ui, enum ui_action act)
{
	return R_QUIT;
}

static int act_help(struct ui *ui, enum ui_action act)
{
	help_open(ui);
	return R_REDRAW;
}

static int act_move(struct ui *ui, enum ui_action act)
{
	if (ui->view == UI_VIEW_FLAME) {
		if (act == ACT_EXPAND_ALL)
			ui_status(ui, false, "the flame graph shows every frame: Enter zooms into one");
		else
			flame_view_action(ui, act);
	} else if (ui->view == UI_VIEW_TREE)
		tree_view_action(ui, act);
	else {
		stack_view_action(ui, act);
		ui->sv.opened = act == ACT_TOGGLE || act == ACT_EXPAND;
	}
	return R_REDRAW | R_NAV;
}

static int act_breakdown(struct ui *ui, enum ui_action act)
{
	ui->breakdown = !ui->breakdown;
	return R_LAYOUT;
}

/* the grouping changed: the table and every stack pointer are new */
static void ui_regrouped(struct ui *ui)
{
	ui->t = session_table(ui->s);
	ui_forget_stacks(ui);
	ui->seen = stack_table_count(ui->t);
}

static int act_weight(struct ui *ui, enum ui_action act)
{
	(void)act;
	if (session_unit(ui->s) == UNIT_NONE) {
		ui_status(ui, true, "no weight: start with --weight SYS:EVENT:FIELD or --offcpu");
		return R_REDRAW;
	}
	ui->rank.weight = !ui->rank.weight;
	if (ui->rank.weight)
		ui_status(ui, false, "ranked by %s%s", session_weight_name(ui->s),
			  session_unit(ui->s) == UNIT_NS ? " time" : "");
	else
		ui_status(ui, false, "ranked by hits (w: back to %s)", session_weight_name(ui->s));
	return ui->view != UI_VIEW_STACKS ? R_REFRESH : R_RESORT;
}

static int act_view(struct ui *ui, enum ui_action act)
{
	(void)act;
	/* list -> caller tree -> callee tree -> list */
	if (ui->view != UI_VIEW_TREE) {
		ui->view = UI_VIEW_TREE;
		ui->tv.callee = false;
		ui_status(ui, false,
			  "caller tree: Enter/Right expands a node (and its call chain), Left collapses, t: callee tree");
	} else if (!ui->tv.callee) {
		ui->tv.callee = true;
		tree_view_forget(ui);
		ui_status(ui, false,
			  "callee tree: leaf functions first, Enter/Right expands toward the callers, t: back to the list");
	} else {
		ui->view = UI_VIEW_STACKS;
		ui->tv.callee = false;
		tree_view_forget(ui);
	}
	return R_LAYOUT | R_REFRESH;
}

static int act_flame(struct ui *ui, enum ui_action act)
{
	(void)act;
	if (ui->view == UI_VIEW_FLAME) {
		ui->view = ui->fv.back == UI_VIEW_FLAME ? UI_VIEW_STACKS : ui->fv.back;
		flame_view_forget(ui);
		return R_LAYOUT | R_REFRESH;
	}
	ui->fv.back = ui->view;
	ui->view = UI_VIEW_FLAME;
	ui_status(ui, false,
		  "flame graph: arrows move, Enter zooms, Backspace zooms out, / highlights, v: back");
	return R_LAYOUT | R_REFRESH;
}

static int act_zoom_out(struct ui *ui, enum ui_action act)
{
	(void)act;
	if (ui->view != UI_VIEW_FLAME) {
		ui_status(ui, true, "Backspace zooms out of the flame graph (v shows it)");
		return R_REDRAW;
	}
	return flame_view_zoom_out(ui) | R_NAV;
}

static int act_depth(struct ui *ui, enum ui_action act)
{
	unsigned int depth;
	bool func;

	session_group(ui->s, &depth, &func);
	if (act == ACT_DEPTH_MORE && depth < STACK_MAX_DEPTH)
		depth++;
	else if (act == ACT_DEPTH_LESS && depth > 0)
		depth--;
	else
		return R_REDRAW;
	if (session_set_group(ui->s, depth, func) < 0) {
		ui_status(ui, true, "out of memory grouping the stacks");
		session_set_group(ui->s, 0, false);
	} else if (depth) {
		ui_status(ui, false, "grouped by the first %u frame%s ([ fewer, ] more)", depth,
			  depth == 1 ? "" : "s");
	} else {
		ui_status(ui, false, "whole stacks%s", func ? ", by function" : "");
	}
	report_head_settings(&ui->head, ui->s);
	ui_regrouped(ui);
	return R_REFRESH;
}

static int act_search(struct ui *ui, enum ui_action act)
{
	prompt_open(ui, PR_SEARCH, ui->search);
	return R_REDRAW;
}

static int act_search_next(struct ui *ui, enum ui_action act)
{
	int dir = act == ACT_SEARCH_PREV ? -1 : 1;

	if (!textmatch_active(&ui->smatch)) {
		ui_status(ui, true, "no search yet: press / first");
		return R_REDRAW;
	}
	return ui_search(ui, dir, false);
}

static int act_filter(struct ui *ui, enum ui_action act)
{
	prompt_open(ui, PR_FILTER, ui->filter);
	return R_REDRAW;
}

static int act_pid(struct ui *ui, enum ui_action act)
{
	char buf[UI_TEXT];

	if (ui->rank.pid >= 0)
		snprintf(buf, sizeof(buf), "%d", ui->rank.pid);
	else
		snprintf(buf, sizeof(buf), "%s", ui->comm);
	prompt_open(ui, PR_PID, buf);
	return R_REDRAW;
}

static int act_clear(struct ui *ui, enum ui_action act)
{
	ui->filter[0] = ui->comm[0] = ui->search[0] = '\0';
	textmatch_set(&ui->fmatch, "");
	textmatch_set(&ui->cmatch, "");
	textmatch_set(&ui->smatch, "");
	ui->rank.event = -1;
	ui->rank.pid = -1;
	ui->rank.cpu = -1;
	ui->rank.hide_idle = false;
	ui_apply_filters(ui);
	ui_status(ui, false, "all filters and the search cleared");
	return R_REFRESH;
}

static int act_sort(struct ui *ui, enum ui_action act)
{
	int dir = act == ACT_SORT_PREV ? -1 : 1, next;

	/* diff mode: CHG% is one more place in the cycle, after the last key */
	if (ui->diff && ui->diff_sort) {
		ui->diff_sort = false;
		ui->rank.key = dir > 0 ? (enum rank_key)0 : (enum rank_key)(RANK_KEY_MAX - 1);
	} else {
		next = (int)ui->rank.key + dir;
		if (ui->diff && (next < 0 || next >= RANK_KEY_MAX))
			ui->diff_sort = true;
		else
			ui->rank.key = (enum rank_key)((next + RANK_KEY_MAX) % RANK_KEY_MAX);
	}
	ui_status(ui, false, "sorted by %s", ui_sort_name(ui));
	return R_RESORT;
}

static int act_invert(struct ui *ui, enum ui_action act)
{
	ui->rank.invert = !ui->rank.invert;
	ui_status(ui, false, "sort order %s", ui->rank.invert ? "ascending" : "descending");
	return R_RESORT;
}

static int act_delta(struct ui *ui, enum ui_action act)
{
	ui->delta = !ui->delta;
	if (ui->delta && ui->rank.key == RANK_TOTAL)
		ui->rank.key = RANK_DELTA;
	else if (!ui->delta && ui->rank.key == RANK_DELTA)
		ui->rank.key = RANK_TOTAL;
	ui_status(ui, false, ui->delta ? "delta: counts of the last interval" :
		  "cumulative: counts since start or reset");
	return ui->view != UI_VIEW_STACKS ? R_REFRESH : R_RESORT;
}

static int act_pause(struct ui *ui, enum ui_action act)
{
	ui->paused = !ui->paused;
	if (ui->paused) {
		/*
		 * a ranking still due for filters typed just before (debounced)
		 * is made now: it fired later, under the frozen view, and put
		 * live rows in it (tui-screen on a busy host, issue 25)
		 */
		if (ui->rerank_at) {
			ui->rerank_at = 0;
			ui_rank(ui, true);
		}
		ui_status(ui, false, "PAUSED: the view is frozen, collection goes on (Z or Space resumes)");
		return R_REDRAW;
	}
	ui_status(ui, false, "resumed");
	return R_REFRESH;
}

static int act_delay(struct ui *ui, enum ui_action act)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%g", ui->delay);
	prompt_open(ui, PR_DELAY, buf);
	return R_REDRAW;
}

static int act_redraw(struct ui *ui, enum ui_action act)
{
	(void)ui;
	return R_CLEAR | R_REFRESH;
}

static int act_reset(struct ui *ui, enum ui_action act)
{
	bool map = ui->head.st.mode == SESSION_STACKMAP || ui->head.st.mode == SESSION_PASSIVE;
	char msg[256];
	int err;

	if (!ui->confirm_reset || ui_now() > ui->confirm_until) {
		ui->confirm_reset = true;
		ui->confirm_until = ui_now() + UI_CONFIRM_SEC;
		ui_status(ui, true, map ?
			  "press r again to reset the kernel stack map and all counts (other key: cancel)" :
			  "press r again to clear all counts (other key: cancel)");
		return R_REDRAW;
	}
	ui->confirm_reset = false;
	err = session_reset(ui->s);
	uifmt_reset_result(msg, sizeof(msg), err, map);
	ui_status(ui, err != 0, "%s", msg);
	ui_check_generation(ui);
	if (!err) {
		/* whatever the generation says, every stack pointer is gone */
		ui_forget_stacks(ui);
		report_head_fill(&ui->head, ui->s);
	}
	return R_REFRESH;
}

static int act_stackmap(struct ui *ui, enum ui_action act)
{
	bool on = !session_stats(ui->s)->stackmap_on;
	char msg[256];
	int err;

	err = session_set_stackmap(ui->s, on);
	uifmt_stackmap_result(msg, sizeof(msg), err, on);
	ui_status(ui, err != 0, "%s", msg);
	if (!ui->paused)
		report_head_fill(&ui->head, ui->s);
	return R_REDRAW;
}

static int act_user(struct ui *ui, enum ui_action act)
{
	bool on = !session_user(ui->s);
	int err;

	(void)act;
	err = session_set_user(ui->s, on);
	if (err == -EOPNOTSUPP)
		ui_status(ui, true, "user stacks need a live kernel (stacks or stackmap mode)");
	else if (err)
		ui_status(ui, true, "cannot %s user stacks: %s", on ? "enable" : "disable",
			  strerror(-err));
	else
		ui_status(ui, false, "user stacks %s", on ? "on: user frames below \"--\"" : "off");
	report_head_settings(&ui->head, ui->s);
	return R_REDRAW;
}

static int act_save(struct ui *ui, enum ui_action act)
{
	picker_open(ui, PK_FORMAT);
	return R_REDRAW;
}

static int act_event(struct ui *ui, enum ui_action act)
{
	picker_open(ui, PK_EVENT);
	return R_REDRAW;
}

static int act_sort_pick(struct ui *ui, enum ui_action act)
{
	picker_open(ui, PK_SORT);
	return R_REDRAW;
}

/* the event F edits: the one f picked, else the selected stack's main event */
static int kfilter_event(struct ui *ui)
{
	const struct stack_attr *a;
	uint64_t best = 0;
	struct stack *st;
	int ev = -1;

	if (ui->rank.event >= 0)
		return ui->rank.event;
	st = ui->view != UI_VIEW_STACKS ? NULL : stack_view_selected(ui);
	if (!st)
		return -1;
	for (a = st->attrs; a; a = a->next)
		if (ev < 0 || a->total > best || (a->total == best && a->event < ev)) {
			ev = a->event;
			best = a->total;
		}
	return ev;
}

static int act_kfilter(struct ui *ui, enum ui_action act)
{
	char cur[UI_TEXT];
	int ev = kfilter_event(ui), r;

	if (ev < 0) {
		ui_status(ui, true, "no event selected: pick one with f, or select a stack");
		return R_REDRAW;
	}
	r = session_get_filter(ui->s, (unsigned int)ev, cur, sizeof(cur));
	if (r < 0) {
		ui_status(ui, true, "%s has no kernel filter to edit%s", session_event(ui->s, (unsigned int)ev),
			  r == -EOPNOTSUPP ? "" : ": cannot read it");
		return R_REDRAW;
	}
	ui->kfilter_event = ev;
	prompt_open(ui, PR_KFILTER, cur);
	ui_status(ui, false, "kernel filter of %s", session_event(ui->s, (unsigned int)ev));
	return R_REDRAW;
}

/* what each action of the key table (keys.c) does */
static int (*const ui_actions[ACT_MAX])(struct ui *ui, enum ui_action act) = {
	[ACT_QUIT] = act_quit,
	[ACT_HELP] = act_help,
	[ACT_UP] = act_move,
	[ACT_DOWN] = act_move,
	[ACT_PGUP] = act_move,
	[ACT_PGDN] = act_move,
	[ACT_HOME] = act_move,
	[ACT_END] = act_move,
	[ACT_TOGGLE] = act_move,
	[ACT_EXPAND] = act_move,
	[ACT_COLLAPSE] = act_move,
	[ACT_EXPAND_ALL] = act_move,
	[ACT_COLLAPSE_ALL] = act_move,
	[ACT_BREAKDOWN] = act_breakdown,
	[ACT_TREE] = act_view,
	[ACT_WEIGHT] = act_weight,
	[ACT_DEPTH_LESS] = act_depth,
	[ACT_DEPTH_MORE] = act_depth,
	[ACT_SEARCH] = act_search,
	[ACT_SEARCH_NEXT] = act_search_next,
	[ACT_SEARCH_PREV] = act_search_next,
	[ACT_FILTER] = act_filter,
	[ACT_EVENT] = act_event,
	[ACT_PID] = act_pid,
	[ACT_CLEAR] = act_clear,
	[ACT_SORT_PREV] = act_sort,
	[ACT_SORT_NEXT] = act_sort,
	[ACT_SORT_PICK] = act_sort_pick,
	[ACT_INVERT] = act_invert,
	[ACT_DELTA] = act_delta,
	[ACT_PAUSE] = act_pause,
	[ACT_DELAY] = act_delay,
	[ACT_REDRAW] = act_redraw,
	[ACT_RESET] = act_reset,
	[ACT_STACKMAP] = act_stackmap,
	[ACT_SAVE] = act_save,
	[ACT_USER] = act_user,
	[ACT_KFILTER] = act_kfilter,
	[ACT_FLAME] = act_flame,
	[ACT_ZOOM_OUT] = act_zoom_out,
};

int ui_dispatch(struct ui *ui, enum ui_action act)
{
	if (act != ACT_RESET)
		ui->confirm_reset = false;
	if (act <= ACT_NONE || act >= ACT_MAX || !ui_actions[act])
		return 0;
	return ui_actions[act](ui, act);
}

/* ---- mouse ------------------------------------------------------------------------ */

static enum rank_key col_rank_key(struct ui *ui, int col, bool *ok)
{
	*ok = true;
	switch (col) {
	case COL_DELTA:
	case COL_RATE:
		return RANK_DELTA;
	case COL_TOTAL:
		return RANK_TOTAL;
	case COL_PCT:
		return ui->delta ? RANK_DELTA : RANK_TOTAL;
	case COL_DEPTH:
		return RANK_DEPTH;
	case COL_ID:
		return RANK_ID;
	case COL_EVENT:
		return RANK_EVENT;
	case COL_COMM:
		return RANK_COMM;
	default:
		*ok = false;
		return ui->rank.key;
	}
}

static int ui_mouse(struct ui *ui)
{
	struct list_view *lv = ui->view == UI_VIEW_TREE ? &ui->tv.lv : &ui->sv.lv;
	bool double_click;
	MEVENT ev;
	double now;
	int row;

	/* releases, motion, other buttons: asked for only so that ncurses never waits */
	if (getmouse(&ev) != OK)
		return 0;
	if (ev.bstate & BUTTON4_PRESSED) {
		if (ui->overlay == OV_HELP)
			list_view_scroll(&ui->help.lv, -3);
		else if (ui->overlay == OV_PICKER)
			list_view_action(&ui->pk.lv, ACT_UP);
		else if (ui->view == UI_VIEW_FLAME)
			flame_view_scroll(ui, -1);
		else
			list_view_scroll(lv, -3);
		return R_REDRAW | R_NAV;
	}
#ifdef BUTTON5_PRESSED
	if (ev.bstate & BUTTON5_PRESSED) {
		if (ui->overlay == OV_HELP)
			list_view_scroll(&ui->help.lv, 3);
		else if (ui->overlay == OV_PICKER)
			list_view_action(&ui->pk.lv, ACT_DOWN);
		else if (ui->view == UI_VIEW_FLAME)
			flame_view_scroll(ui, 1);
		else
			list_view_scroll(lv, 3);
		return R_REDRAW | R_NAV;
	}
#endif
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
		return 0;
	if (ui->overlay == OV_HELP) {
		ui->overlay = OV_NONE;
		return R_REDRAW;
	}
	if (ui->overlay == OV_PICKER) {
		row = list_view_row_at(&ui->pk.lv, ev.y);
		if (row < 0) {
			ui->overlay = OV_NONE;
			return R_REDRAW;
		}
		list_view_select(&ui->pk.lv, row);
		return picker_pick(ui);
	}
	if (ui->prompt != PR_NONE)
		return 0;
	if (ev.y == ui->coltitle_y && ui->view == UI_VIEW_STACKS) {
		int col = stack_view_col_at(ui, ev.x);
		bool ok;
		enum rank_key key = col_rank_key(ui, col, &ok);

		if (ui->diff && (col == COL_DIFF || col == COL_BEFORE)) {
			/* the change of share: again inverts */
			if (ui->diff_sort)
				ui->rank.invert = !ui->rank.invert;
			ui->diff_sort = true;
			ui_status(ui, false, "sorted by %s %s", ui_sort_name(ui),
				  ui->rank.invert ? "ascending" : "descending");
			return R_RESORT;
		}
		if (!ok) {
			ui_status(ui, true, "this column cannot be sorted (sortable: DELTA, TOTAL, %%, RATE, DEP, ID, EVENT, COMM)");
			return R_REDRAW;
		}
		if (key == ui->rank.key && !ui->diff_sort)
			ui->rank.invert = !ui->rank.invert;
		else
			ui->rank.key = key;
		ui->diff_sort = false;
		ui_status(ui, false, "sorted by %s %s", rank_key_name[ui->rank.key],
			  ui->rank.invert ? "ascending" : "descending");
		return R_RESORT;
	}
	if (ui->view == UI_VIEW_FLAME) {
		/* a second press on the box soon after the first: a double click */
		now = ui_now();
		double_click = (ev.bstate & BUTTON1_DOUBLE_CLICKED) ||
			       (ui->click_lv == NULL && ui->click_row == ev.y * 10000 + ev.x &&
				now - ui->click_at < UI_DCLICK_SEC);
		ui->click_row = double_click ? -1 : ev.y * 10000 + ev.x;
		ui->click_lv = NULL;
		ui->click_at = now;
		return flame_view_click(ui, ev.y, ev.x, double_click);
	}
	row = list_view_row_at(lv, ev.y);
	if (row < 0)
		return 0;
	list_view_select(lv, row);
	now = ui_now();
	/* a second press on the row soon after the first: a double click */
	double_click = (ev.bstate & BUTTON1_DOUBLE_CLICKED) ||
		       (ui->click_lv == lv && ui->click_row == row && now - ui->click_at < UI_DCLICK_SEC);
	ui->click_lv = double_click ? NULL : lv;
	ui->click_row = row;
	ui->click_at = now;
	if (double_click)
		return act_move(ui, ACT_TOGGLE);
	return R_REDRAW | R_NAV;
}

/* ---- keys ------------------------------------------------------------------------ */

int ui_key(struct ui *ui, int key, bool fkey)
{
	enum ui_action act;

	if (fkey && key == KEY_RESIZE)
		return R_LAYOUT;
	if (fkey && key == KEY_MOUSE && ui->too_small) {
		MEVENT ev;

		getmouse(&ev); /* nothing to click on: consume it */
		return 0;
	}
	if (fkey && key == KEY_MOUSE)
		return ui_mouse(ui);
	if (ui->prompt != PR_NONE)
		return prompt_key(ui, key, fkey);
	if (ui->overlay == OV_PICKER)
		return picker_key(ui, key, fkey);
	if (ui->overlay == OV_HELP) {
		help_key(ui, key, fkey);
		return R_REDRAW;
	}
	if (!fkey && key == 27) {
		if (ui->confirm_reset) {
			ui->confirm_reset = false;
			ui_status(ui, false, "reset cancelled");
		} else if (ui->search[0]) {
			ui->search[0] = '\0';
			textmatch_set(&ui->smatch, "");
			ui_status(ui, false, "search cleared");
		} else if (ui->view == UI_VIEW_FLAME) {
			return flame_view_zoom_out(ui) | R_NAV;
		}
		return R_REDRAW;
	}
	act = keys_lookup(key, fkey);
	if (act == ACT_NONE) {
		ui->confirm_reset = false;
		if (ui->too_small)
			return 0;
		if (!fkey && key > 32 && key < 127)
			ui_status(ui, true, "key '%c' does nothing: h shows the keys", key);
		else
			ui_status(ui, true, "that key does nothing: h shows the keys");
		return R_REDRAW;
	}
	if (ui->too_small && act != ACT_QUIT && act != ACT_REDRAW)
		return 0;
	return ui_dispatch(ui, act);
}
