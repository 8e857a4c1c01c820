// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * views.c - what the views count: hits or weights (the w key flips
 * rank_opts.weight, actions.c), formatted in the unit of the weight in
 * force; used by the list, the trees and the breakdown.
 */
#include <stdio.h>

#include "core/format.h"
#include "core/hmap.h"
#include "sym/brief.h"
#include "ui/tui.h"
#include "ui/views.h"

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

/* brief_skip() of @st, cached per stack (frames never change) */
unsigned int ui_stack_skip(struct ui *ui, const struct stack *st)
{
	uint64_t v;
	unsigned int skip;

	if (hmap_get(&ui->skips, (uintptr_t)st, &v))
		return (unsigned int)(v - 1);
	skip = brief_skip(ui->ks, st);
	hmap_put(&ui->skips, (uintptr_t)st, skip + 1);
	return skip;
}
