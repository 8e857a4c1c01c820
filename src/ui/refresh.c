// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * refresh.c - see refresh.h.
 */
#include <stdbool.h>
#include <stddef.h>

#include "core/stack_table.h"
#include "output/header.h"
#include "ui/diffcol.h"
#include "ui/draw.h"
#include "ui/flame_view.h"
#include "ui/list_view.h"
#include "ui/refresh.h"
#include "ui/stack_rank.h"
#include "ui/stack_view.h"
#include "ui/symcache.h"
#include "ui/tree_view.h"
#include "ui/tui.h"

static bool ui_match(const struct stack *st, void *ctx)
{
	struct ui *ui = ctx;

	if (textmatch_active(&ui->fmatch) && !textmatch_frames(&ui->fmatch, ui->syms, st) &&
	    !textmatch_comm(&ui->fmatch, ui->s, st))
		return false;
	return true;
}

/* the pid/comm filter counts only that comm's hits of a stack */
static bool ui_attr_match(const struct stack_attr *a, void *ctx)
{
	struct ui *ui = ctx;

	return textmatch_pid(&ui->cmatch, ui->s, a->pid);
}

int ui_apply_filters(struct ui *ui)
{
	bool on = textmatch_active(&ui->fmatch);
	bool comm = textmatch_active(&ui->cmatch);

	ui->rank.match = on ? ui_match : NULL;
	ui->rank.match_ctx = on ? ui : NULL;
	ui->rank.attr_match = comm ? ui_attr_match : NULL;
	ui->rank.attr_ctx = comm ? ui : NULL;
	ui->go_home = true;
	/* typing: re-rank once the keys pause */
	ui->rerank_at = ui_now() + UI_DEBOUNCE_SEC;
	return R_REDRAW;
}

void ui_forget_stacks(struct ui *ui)
{
	uidiff_forget(ui);
	stack_view_forget(ui);
	tree_view_forget(ui);
	flame_view_forget(ui);
	textmatch_forget_stacks(&ui->fmatch);
	textmatch_forget_stacks(&ui->cmatch);
	textmatch_forget_stacks(&ui->smatch);
	hmap_clear(&ui->skips);
}

/* the core cleared its table (reset, new generation): drop every stack pointer */
bool ui_check_generation(struct ui *ui)
{
	const struct session_stats *st = session_stats(ui->s);
	size_t count = stack_table_count(ui->t);

	if (st->generation == ui->generation && count >= ui->seen) {
		ui->seen = count;
		return false;
	}
	ui->generation = st->generation;
	ui->seen = count;
	ui_forget_stacks(ui);
	ui->sum.matched = ui->sum.total = ui->sum.delta = 0;
	return true;
}

void ui_rank(struct ui *ui, bool live)
{
	symcache_sync(ui->syms);
	ui->nstacks = stack_table_count(ui->t);
	stack_view_layout(ui); /* the EVENT column depends on the events seen */
	if (ui->view == UI_VIEW_TREE && live)
		tree_view_build(ui);
	if (ui->view == UI_VIEW_FLAME && live)
		flame_view_build(ui);
	if (ui->view == UI_VIEW_STACKS || live)
		stack_view_rank(ui, live);
	/* a live ranking is what a debounced one would do: none is due any more */
	if (live) {
		ui->rerank_at = 0;
		ui->ranked_epoch = stack_table_epoch(ui->t);
	}
	if (ui->go_home && live) {
		ui->go_home = false;
		ui->sv.chosen = false;
		list_view_select(&ui->sv.lv, 0);
		list_view_select(&ui->tv.lv, 0);
		ui->sv.lv.top = ui->tv.lv.top = 0;
	}
	ui->last_rank = ui_now();
	ui->dirty = true;
}

int ui_refresh_now(struct ui *ui)
{
	if (!ui->paused)
		report_head_fill(&ui->head, ui->s);
	ui_rank(ui, true);
	return R_REDRAW;
}
