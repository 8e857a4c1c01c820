// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * views.c - what the table counts and how stacks are grouped on the screen:
 * hits or weights (w), the list / caller tree / callee tree cycle (t), the
 * grouping by the first N frames ([ and ]), and the formatting of a count
 * in the unit of the weight in force.
 */
#include <stdio.h>

#include "format.h"
#include "screen.h"

/* the unit of what the table counts now: UNIT_NONE for hits */
static enum session_unit ui_unit(const struct ui *ui)
{
	return ui->rank.weight ? session_unit(ui->s) : UNIT_NONE;
}

int ui_fmt_count(const struct ui *ui, char *buf, size_t size, uint64_t n)
{
	return fmt_weight(buf, size, n, (int)ui_unit(ui));
}

int ui_fmt_rate(const struct ui *ui, char *buf, size_t size, uint64_t delta)
{
	double dt = ui->st.interval_sec > 0 ? ui->st.interval_sec : 0;

	if (ui_unit(ui) == UNIT_NONE)
		return fmt_rate(buf, size, dt > 0 ? (double)delta / dt : 0);
	return fmt_weight(buf, size, dt > 0 ? (uint64_t)((double)delta / dt) : 0,
			  (int)ui_unit(ui));
}

/* what a breakdown record counts in the view: hits or weight, interval or total */
uint64_t ui_attr_count(const struct ui *ui, const struct stack_attr *a)
{
	uint64_t d, t;

	if (ui->rank.weight) {
		t = stack_attr_weight(ui->t, a, &d);
		return ui->delta ? d : t;
	}
	return ui->delta ? stack_attr_delta(ui->t, a) : a->total;
}

bool ui_wall_pct(const struct ui *ui, char *buf, size_t size, uint64_t ns)
{
	if (!ui->rank.weight || session_unit(ui->s) != UNIT_NS || !ui->delta ||
	    ui->st.interval_sec <= 0)
		return false;
	fmt_percent(buf, size, ns, (uint64_t)(ui->st.interval_sec * 1e9));
	return true;
}

const char *ui_count_title(const struct ui *ui)
{
	if (ui_unit(ui) == UNIT_NS)
		return ui->delta ? "TIME" : "TOTAL";
	if (ui_unit(ui) != UNIT_NONE)
		return ui->delta ? "WEIGHT" : "TOTAL";
	return ui->delta ? "DELTA" : "TOTAL";
}

const char *ui_weight_note(const struct ui *ui)
{
	static char buf[96];

	if (!ui->rank.weight)
		return "";
	snprintf(buf, sizeof(buf), "%s%s, ", session_weight_name(ui->s),
		 session_unit(ui->s) == UNIT_NS ? " time" : "");
	return buf;
}

/* the grouping changed: the table and every stack pointer are new */
static void ui_regrouped(struct ui *ui)
{
	ui->t = session_table(ui->s);
	ui_forget_stacks(ui);
	ui->seen = stack_table_count(ui->t);
}

int act_weight(struct ui *ui, enum ui_action act)
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
	return ui->view == UI_VIEW_TREE ? R_REFRESH : R_RESORT;
}

int act_view(struct ui *ui, enum ui_action act)
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

int act_depth(struct ui *ui, enum ui_action act)
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
	ui_regrouped(ui);
	return R_REFRESH;
}
