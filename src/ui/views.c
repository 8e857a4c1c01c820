// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * views.c - what every view shares: going from one view to another
 * (through the views' ops, never by naming one), the double click, the
 * message of an empty view, the sort's name; and what the views count:
 * hits or weights (the w key flips rank_opts.weight, actions.c),
 * formatted in the unit of the weight in force.
 */
#include <stdio.h>

#include "core/format.h"
#include "core/hmap.h"
#include "ui/draw.h"
#include "ui/list_view.h"
#include "ui/symcache.h"
#include "ui/screen_state.h"
#include "ui/tui.h"
#include "ui/views.h"

/* ---- the views ------------------------------------------------------------- */

int ui_view_open(const struct ui *ui, struct ui_view *to, bool by_key)
{
	struct ui_view *from = ui->view;

	if (to == from)
		return R_REDRAW;
	if (from && from->ops->leave)
		from->ops->leave(from);
	ui_mut(ui)->view = to;
	if (by_key && to->ops->open)
		to->ops->open(to, from);
	return R_LAYOUT | R_REFRESH;
}

struct ui_view *ui_view_opened_by(struct ui *ui, enum ui_action act)
{
	struct ui_view **vp;

	ui_for_each_view(ui, vp) if ((*vp)->ops->opens == act && act != ACT_NONE) return *vp;
	return NULL;
}

int ui_sort_by(const struct ui *ui, enum rank_key key, bool diff)
{
	struct ui *w = ui_mut(ui);

	if (diff) {
		if (ui->diff_sort)
			w->rank.invert = !ui->rank.invert;
		w->diff_sort = true;
		ui_status(ui, false, "sorted by %s %s", ui_sort_name(ui),
			  ui->rank.invert ? "ascending" : "descending");
		return R_RESORT;
	}
	if (key == ui->rank.key && !ui->diff_sort)
		w->rank.invert = !ui->rank.invert;
	else
		w->rank.key = key;
	w->diff_sort = false;
	ui_status(ui, false, "sorted by %s %s", rank_key_name[ui->rank.key],
		  ui->rank.invert ? "ascending" : "descending");
	return R_RESORT;
}

bool ui_dclick(const struct ui *ui, const void *owner, int spot, bool hint)
{
	double now = ui_now();
	bool dbl =
		hint || (ui->priv->term.click_owner == owner && ui->priv->term.click_spot == spot &&
			 now - ui->priv->term.click_at < UI_DCLICK_SEC);

	/* a double click is over: the next press starts again */
	ui->priv->term.click_owner = dbl ? NULL : owner;
	ui->priv->term.click_spot = spot;
	ui->priv->term.click_at = now;
	return dbl;
}

int ui_list_click(const struct ui *ui, struct list_view *lv, int y, bool hint)
{
	int row = list_view_row_at(lv, y);

	if (row < 0)
		return -1;
	list_view_select(lv, row);
	return ui_dclick(ui, lv, row, hint) ? 1 : 0;
}

void ui_draw_empty(const struct ui *ui)
{
	char msg[512], filters[300] = "";
	int y = ui->lay.list_y + (ui->lay.list_h > 2 ? ui->lay.list_h / 3 : 0);
	size_t len = 0;

	if (!ui->head.st.tracing_on && ui->head.st.mode != SESSION_REPLAY &&
	    ui->head.st.mode != SESSION_ONCPU && ui->head.st.mode != SESSION_SAMPLED) {
		snprintf(
			msg, sizeof(msg),
			"Tracing is off (tracing_on is 0): the kernel records nothing. Restart tracing or stacktop.");
	} else if (!ui->nstacks && ui->head.st.mode == SESSION_REPLAY) {
		snprintf(msg, sizeof(msg), "The recording holds no stacks of %s.",
			 session_traced(ui->s));
	} else if (!ui->nstacks) {
		snprintf(msg, sizeof(msg), "No events yet: waiting for %s ...",
			 session_traced(ui->s));
	} else {
		if (ui->rank.event >= 0)
			len += (size_t)snprintf(filters + len, sizeof(filters) - len, " event %s",
						session_event(ui->s, (unsigned int)ui->rank.event));
		if (ui->rank.pid >= 0 && len < sizeof(filters))
			len += (size_t)snprintf(filters + len, sizeof(filters) - len, " pid %d",
						ui->rank.pid);
		if (ui->flt->comm[0] && len < sizeof(filters))
			len += (size_t)snprintf(filters + len, sizeof(filters) - len, " comm '%s'",
						ui->flt->comm);
		if (ui->flt->filter[0] && len < sizeof(filters))
			len += (size_t)snprintf(filters + len, sizeof(filters) - len,
						" filter '%s'", ui->flt->filter);
		if (len)
			snprintf(
				msg, sizeof(msg),
				"No stack matches the filters (%s) among %zu stacks; x clears them.",
				filters + 1, ui->nstacks);
		else
			snprintf(msg, sizeof(msg), "No stacks to show yet (%zu recorded).",
				 ui->nstacks);
	}
	ui_put(y, 2, ui->cols - 4, ui_attr(ui, UC_ALERT), msg);
}

const char *const rank_key_name[RANK_KEY_MAX] = {
	[RANK_DELTA] = "DELTA", [RANK_TOTAL] = "TOTAL", [RANK_DEPTH] = "DEPTH",
	[RANK_ID] = "ID",	[RANK_EVENT] = "EVENT", [RANK_COMM] = "COMM",
};

const char *ui_sort_name(const struct ui *ui)
{
	if (ui->diff && ui->diff_sort)
		return "CHG%";
	return (unsigned int)ui->rank.key < RANK_KEY_MAX ? rank_key_name[ui->rank.key] : "?";
}

/* ---- what the views count ------------------------------------------------------ */

/* the unit of what the table counts now: UNIT_NONE for hits */
static enum session_unit ui_unit(const struct ui *ui)
{
	return ui->rank.weight ? ui->head.unit : UNIT_NONE;
}

int ui_fmt_count(const struct ui *ui, char *buf, size_t size, uint64_t n)
{
	return fmt_weight(buf, size, n, (int)ui_unit(ui));
}

int ui_fmt_rate(const struct ui *ui, char *buf, size_t size, uint64_t delta)
{
	double dt = ui->head.st.interval_sec > 0 ? ui->head.st.interval_sec : 0;

	if (ui_unit(ui) == UNIT_NONE)
		return fmt_rate(buf, size, dt > 0 ? (double)delta / dt : 0);
	return fmt_weight(buf, size, dt > 0 ? (uint64_t)((double)delta / dt) : 0, (int)ui_unit(ui));
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
	if (!ui->rank.weight || ui->head.unit != UNIT_NS || !ui->delta ||
	    ui->head.st.interval_sec <= 0)
		return false;
	fmt_percent(buf, size, ns, (uint64_t)(ui->head.st.interval_sec * 1e9));
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
	snprintf(buf, sizeof(buf), "%s%s, ", ui->head.weight_name,
		 ui->head.unit == UNIT_NS ? " time" : "");
	return buf;
}

unsigned int ui_stack_skip(const struct ui *ui, const struct stack *st)
{
	return symcache_skip(ui->syms, st);
}
