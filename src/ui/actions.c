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
#include "output/header.h"
#include "ui/actions.h"
#include "ui/draw.h"
#include "ui/header.h"
#include "ui/keys.h"
#include "ui/list_view.h"
#include "ui/overlay.h"
#include "ui/refresh.h"
#include "ui/save.h"
#include "ui/symcache.h"
#include "ui/screen_state.h"
#include "ui/tui.h"
#include "ui/uifmt.h"
#include "ui/views.h"

static int act_quit(struct ui *ui, enum ui_action act)
{
	return R_QUIT;
}

static int act_help(struct ui *ui, enum ui_action act)
{
	help_open(ui);
	return R_REDRAW;
}

static int act_breakdown(struct ui *ui, enum ui_action act)
{
	ui->lay.breakdown = !ui->lay.breakdown;
	return R_LAYOUT;
}

/* the grouping changed: the table and every stack pointer are new */
static void ui_regrouped(struct ui *ui)
{
	ui->t = session_table(ui->s);
	ui_forget_stacks(ui);
	ui->priv->loop.seen = stack_table_count(ui->t);
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
	return ui->view->ops->flags & UVF_RESORT ? R_RESORT : R_REFRESH;
}

/* t, v: the view whose key it is (the view on screen answers its own key first) */
static int act_open(struct ui *ui, enum ui_action act)
{
	struct ui_view *v = ui_view_opened_by(ui, act);

	return v ? ui_view_open(ui, v, true) : R_REDRAW;
}

/* Backspace where no view zooms */
static int act_zoom_out(struct ui *ui, enum ui_action act)
{
	(void)act;
	ui_status(ui, true, "Backspace zooms out of the flame graph (v shows it)");
	return R_REDRAW;
}

/* L, i, H where the view on screen is not the flame graph */
static int act_flame_only(struct ui *ui, enum ui_action act)
{
	(void)act;
	ui_status(ui, true, "L, i and H change the flame graph (v shows it)");
	return R_REDRAW;
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

/* o: the next --group-by key of the cycle (whole stacks after the last) */
static int act_group_by(struct ui *ui, enum ui_action act)
{
	static const uint8_t cycle[][3] = {
		{ GROUP_KEY_SYM },  { GROUP_KEY_DSO },	{ GROUP_KEY_DSO, GROUP_KEY_SYM },
		{ GROUP_KEY_COMM }, { GROUP_KEY_KSYM }, { 0 },
	};
	const uint8_t *now = session_group_by(ui->s);
	size_t i, n = sizeof(cycle) / sizeof(cycle[0]);
	char text[40];

	(void)act;
	for (i = 0; i + 1 < n; i++)
		if (!memcmp(now, cycle[i], 3) && !now[3])
			break;
	i = now[0] ? (i + 1) % n : 0;
	if (session_set_group_by(ui->s, cycle[i]) < 0) {
		ui_status(ui, true, "out of memory grouping the stacks");
		session_set_group(ui->s, 0, false);
	} else if (cycle[i][0]) {
		export_group_by_text(text, sizeof(text), cycle[i]);
		ui_status(ui, false, "rows by %s (o: the next key)", text);
	} else {
		ui_status(ui, false, "whole stacks");
	}
	report_head_settings(&ui->head, ui->s);
	ui_regrouped(ui);
	return R_REFRESH;
}

static int act_search(struct ui *ui, enum ui_action act)
{
	prompt_open(ui, PR_SEARCH, ui->flt->search);
	return R_REDRAW;
}

static int act_search_next(struct ui *ui, enum ui_action act)
{
	int dir = act == ACT_SEARCH_PREV ? -1 : 1;

	if (!textmatch_active(&ui->flt->smatch)) {
		ui_status(ui, true, "no search yet: press / first");
		return R_REDRAW;
	}
	return ui_search(ui, dir, false);
}

static int act_filter(struct ui *ui, enum ui_action act)
{
	prompt_open(ui, PR_FILTER, ui->flt->filter);
	return R_REDRAW;
}

static int act_pid(struct ui *ui, enum ui_action act)
{
	char buf[UI_TEXT];

	if (ui->rank.pid >= 0)
		snprintf(buf, sizeof(buf), "%d", ui->rank.pid);
	else
		snprintf(buf, sizeof(buf), "%s", ui->flt->comm);
	prompt_open(ui, PR_PID, buf);
	return R_REDRAW;
}

static int act_clear(struct ui *ui, enum ui_action act)
{
	ui->flt->filter[0] = ui->flt->comm[0] = ui->flt->search[0] = '\0';
	textmatch_set(&ui->flt->fmatch, "");
	textmatch_set(&ui->flt->cmatch, "");
	textmatch_set(&ui->flt->smatch, "");
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
	ui_status(ui, false,
		  ui->delta ? "delta: counts of the last interval"
			    : "cumulative: counts since start or reset");
	return ui->view->ops->flags & UVF_RESORT ? R_RESORT : R_REFRESH;
}

static int act_pause(struct ui *ui, enum ui_action act)
{
	if (!ui->paused) {
		/*
		 * the view frozen is the table as it is now, ranked afresh (a
		 * ranking still due for filters typed just before is made with
		 * it: it fired later, under the frozen view, and put live rows
		 * in it: tui-screen on a busy host, issue 25), and kept as P
		 * writes it: the rows drawn earlier were the table of up to a
		 * refresh ago, and P wrote the newer counts (save.c)
		 */
		ui->priv->loop.rerank_at = 0;
		ui->priv->loop.pending = false;
		report_head_fill(&ui->head, ui->s);
		ui_rank(ui, true);
		ui->paused = true;
		if (!ui_save_freeze(ui))
			ui_status(
				ui, false,
				"PAUSED: the view is frozen, collection goes on (Z or Space resumes)");
		return R_REDRAW;
	}
	ui->paused = false;
	ui_save_thaw(ui);
	ui_status(ui, false, "resumed");
	return R_REFRESH;
}

static int act_delay(struct ui *ui, enum ui_action act)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%g", ui->priv->delay);
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

	if (!ui->priv->msg.confirm_reset || ui_now() > ui->priv->msg.confirm_until) {
		ui->priv->msg.confirm_reset = true;
		ui->priv->msg.confirm_until = ui_now() + UI_CONFIRM_SEC;
		ui_status(
			ui, true,
			map ? "press r again to reset the kernel stack map and all counts (other key: cancel)"
			    : "press r again to clear all counts (other key: cancel)");
		return R_REDRAW;
	}
	ui->priv->msg.confirm_reset = false;
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
	st = ui->view->ops->stack ? ui->view->ops->stack(ui->view) : NULL;
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
		ui_status(ui, true, "%s has no kernel filter to edit%s",
			  session_event(ui->s, (unsigned int)ev),
			  r == -EOPNOTSUPP ? "" : ": cannot read it");
		return R_REDRAW;
	}
	ui->priv->in.kfilter_event = ev;
	prompt_open(ui, PR_KFILTER, cur);
	ui_status(ui, false, "kernel filter of %s", session_event(ui->s, (unsigned int)ev));
	return R_REDRAW;
}

/* what each action of the key table (keys.c) does when the view on screen does not answer it */
static int (*const ui_actions[ACT_MAX])(struct ui *ui, enum ui_action act) = {
	[ACT_QUIT] = act_quit,
	[ACT_HELP] = act_help,
	/* moving (ACT_UP to ACT_COLLAPSE_ALL): every view answers these itself */
	[ACT_BREAKDOWN] = act_breakdown,
	[ACT_TREE] = act_open,
	[ACT_WEIGHT] = act_weight,
	[ACT_DEPTH_LESS] = act_depth,
	[ACT_DEPTH_MORE] = act_depth,
	[ACT_GROUP_BY] = act_group_by,
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
	[ACT_FLAME] = act_open,
	[ACT_ZOOM_OUT] = act_zoom_out,
	[ACT_FLAME_ORDER] = act_flame_only,
	[ACT_FLAME_INVERT] = act_flame_only,
	[ACT_FLAME_TRACING] = act_flame_only,
};

int ui_dispatch(struct ui *ui, enum ui_action act)
{
	int r;

	if (act != ACT_RESET)
		ui->priv->msg.confirm_reset = false;
	if (act <= ACT_NONE || act >= ACT_MAX)
		return 0;
	/* the view on screen first: its keys, its moving (htop's Panel_eventHandler) */
	r = ui->view->ops->action(ui->view, act);
	if (!(r & R_PASS))
		return r;
	return ui_actions[act] ? ui_actions[act](ui, act) : 0;
}

/* ---- mouse ------------------------------------------------------------------------ */

static int ui_mouse(struct ui *ui)
{
	struct ui_view *v = ui->view;
	MEVENT ev;
	int row;

	/* releases, motion, other buttons: asked for only so that ncurses never waits */
	if (getmouse(&ev) != OK)
		return 0;
	if (ev.bstate & BUTTON4_PRESSED) {
		if (ui->priv->ov.open == OV_HELP)
			list_view_scroll(&ui->priv->ov.help.lv, -3);
		else if (ui->priv->ov.open == OV_PICKER)
			list_view_action(&ui->priv->ov.pk.lv, ACT_UP);
		else if (v->ops->wheel)
			v->ops->wheel(v, -1);
		return R_REDRAW | R_NAV;
	}
#ifdef BUTTON5_PRESSED
	if (ev.bstate & BUTTON5_PRESSED) {
		if (ui->priv->ov.open == OV_HELP)
			list_view_scroll(&ui->priv->ov.help.lv, 3);
		else if (ui->priv->ov.open == OV_PICKER)
			list_view_action(&ui->priv->ov.pk.lv, ACT_DOWN);
		else if (v->ops->wheel)
			v->ops->wheel(v, 1);
		return R_REDRAW | R_NAV;
	}
#endif
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
		return 0;
	if (ui->priv->ov.open == OV_HELP) {
		ui->priv->ov.open = OV_NONE;
		return R_REDRAW;
	}
	if (ui->priv->ov.open == OV_PICKER) {
		row = list_view_row_at(&ui->priv->ov.pk.lv, ev.y);
		if (row < 0) {
			ui->priv->ov.open = OV_NONE;
			return R_REDRAW;
		}
		list_view_select(&ui->priv->ov.pk.lv, row);
		return picker_pick(ui);
	}
	if (ui->priv->in.prompt != PR_NONE || !v->ops->click)
		return 0;
	return v->ops->click(v, ev.y, ev.x, (ev.bstate & BUTTON1_DOUBLE_CLICKED) != 0);
}

/* ---- keys ------------------------------------------------------------------------ */

int ui_key(struct ui *ui, int key, bool fkey)
{
	enum ui_action act;

	if (fkey && key == KEY_RESIZE)
		return R_LAYOUT;
	if (fkey && key == KEY_MOUSE && ui->lay.too_small) {
		MEVENT ev;

		getmouse(&ev); /* nothing to click on: consume it */
		return 0;
	}
	if (fkey && key == KEY_MOUSE)
		return ui_mouse(ui);
	if (ui->priv->in.prompt != PR_NONE)
		return prompt_key(ui, key, fkey);
	if (ui->priv->ov.open == OV_PICKER)
		return picker_key(ui, key, fkey);
	if (ui->priv->ov.open == OV_HELP) {
		help_key(ui, key, fkey);
		return R_REDRAW;
	}
	if (!fkey && key == 27) {
		if (ui->priv->msg.confirm_reset) {
			ui->priv->msg.confirm_reset = false;
			ui_status(ui, false, "reset cancelled");
		} else if (ui->flt->search[0]) {
			ui->flt->search[0] = '\0';
			textmatch_set(&ui->flt->smatch, "");
			ui_status(ui, false, "search cleared");
		} else {
			/* the view's step back (the flame graph's zoom), as Backspace */
			int r = ui->view->ops->action(ui->view, ACT_ZOOM_OUT);

			if (!(r & R_PASS))
				return r;
		}
		return R_REDRAW;
	}
	act = keys_lookup(key, fkey);
	if (act == ACT_NONE) {
		ui->priv->msg.confirm_reset = false;
		if (ui->lay.too_small)
			return 0;
		if (!fkey && key > 32 && key < 127)
			ui_status(ui, true, "key '%c' does nothing: h shows the keys", key);
		else
			ui_status(ui, true, "that key does nothing: h shows the keys");
		return R_REDRAW;
	}
	if (ui->lay.too_small && act != ACT_QUIT && act != ACT_REDRAW)
		return 0;
	return ui_dispatch(ui, act);
}
