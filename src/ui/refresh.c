// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * refresh.c - see refresh.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "core/rank.h"
#include "core/stack_table.h"
#include "output/header.h"
#include "ui/diffcol.h"
#include "ui/draw.h"
#include "ui/refresh.h"
#include "ui/save.h"
#include "ui/symcache.h"
#include "ui/screen_state.h"
#include "ui/tui.h"
#include "ui/views.h"

static bool ui_match(const struct stack *st, void *ctx)
{
	struct ui *ui = ctx;

	if (textmatch_active(&ui->flt->fmatch) &&
	    !textmatch_frames(&ui->flt->fmatch, ui->syms, st) &&
	    !textmatch_comm(&ui->flt->fmatch, ui->s, st))
		return false;
	return true;
}

/* the pid/comm filter counts only that comm's hits of a stack */
static bool ui_attr_match(const struct stack_attr *a, void *ctx)
{
	struct ui *ui = ctx;

	return textmatch_pid(&ui->flt->cmatch, ui->s, a->pid);
}

int ui_apply_filters(struct ui *ui)
{
	bool on = textmatch_active(&ui->flt->fmatch);
	bool comm = textmatch_active(&ui->flt->cmatch);

	ui->rank.match = on ? ui_match : NULL;
	ui->rank.match_ctx = on ? ui : NULL;
	ui->rank.attr_match = comm ? ui_attr_match : NULL;
	ui->rank.attr_ctx = comm ? ui : NULL;
	ui->priv->loop.go_home = true;
	/* typing: re-rank once the keys pause */
	ui->priv->loop.rerank_at = ui_now() + UI_DEBOUNCE_SEC;
	return R_REDRAW;
}

void ui_forget_stacks(struct ui *ui)
{
	struct ui_view **vp;

	uidiff_forget(ui);
	ui->rows.n = 0;
	ui_for_each_view(ui, vp) if ((*vp)->ops->forget)(*vp)->ops->forget(*vp);
	textmatch_forget_stacks(&ui->flt->fmatch);
	textmatch_forget_stacks(&ui->flt->cmatch);
	textmatch_forget_stacks(&ui->flt->smatch);
	symcache_forget_stacks(ui->syms);
}

/* the core cleared its table (reset, new generation): drop every stack pointer */
bool ui_check_generation(struct ui *ui)
{
	const struct session_stats *st = session_stats(ui->s);
	size_t count = stack_table_count(ui->t);

	if (st->generation == ui->priv->loop.generation && count >= ui->priv->loop.seen) {
		ui->priv->loop.seen = count;
		return false;
	}
	ui->priv->loop.generation = st->generation;
	ui->priv->loop.seen = count;
	ui_forget_stacks(ui);
	ui->rows.sum.matched = ui->rows.sum.total = ui->rows.sum.delta = 0;
	return true;
}

/*
 * The stack view's rows, ranked once by the screen: the top ones (--top,
 * or UI_DEFAULT_TOP, and a screenful at least; --diff: every stack of
 * AFTER, and room for BEFORE's gone ones) and the totals of every stack
 * that passed. By name (the EVENT or COMM key): the busiest stacks, which
 * the view then orders by their names.
 */
static void ui_rank_rows(struct ui *ui)
{
	struct rank_opts ro = ui->rank;
	size_t k = ui->priv->opts.top > 0 ? (size_t)ui->priv->opts.top : UI_DEFAULT_TOP;

	if (k < (size_t)ui->lay.list_h)
		k = (size_t)ui->lay.list_h;
	if (ui->diff)
		k = stack_table_count(ui->t) + uidiff_room(ui) + 1;
	if (k > ui->rows.cap) {
		struct rank_row *r = realloc(ui->rows.row, k * sizeof(*r));

		if (!r) {
			ui_status(ui, true, "out of memory ranking %zu stacks", k);
			return;
		}
		ui->rows.row = r;
		ui->rows.cap = k;
	}
	if (ui->rank.key == RANK_EVENT || ui->rank.key == RANK_COMM) {
		ro.key = ui->delta ? RANK_DELTA : RANK_TOTAL;
		ro.invert = false;
	}
	ui->rows.n = stack_table_rank(ui->t, &ro, ui->rows.row, k, &ui->rows.sum);
	ui->rows.n = uidiff_finish(ui, ui->rows.row, ui->rows.n, ui->rows.cap);
}

void ui_rank(struct ui *ui, bool live)
{
	unsigned int how = live ? UV_LIVE : 0;
	struct ui_view **vp;

	symcache_sync(ui->syms);
	ui->nstacks = stack_table_count(ui->t);
	if (live)
		ui_rank_rows(ui);
	if (ui->priv->loop.go_home && live) {
		ui->priv->loop.go_home = false;
		how |= UV_HOME;
	}
	/* each view decides what it does: build when shown, rank even when hidden... */
	ui_for_each_view(ui, vp) if ((*vp)->ops->rank)(*vp)->ops->rank(
		*vp, how | (ui_view_shown(*vp) ? UV_SHOWN : 0));
	/* a live ranking is what a debounced one would do: none is due any more */
	if (live) {
		ui->priv->loop.rerank_at = 0;
		ui->ranked_gen++;
	}
	/*
	 * paused rows ranked from the live table (a filter typed, the table
	 * cleared): the header with them, and P writes them (save.c)
	 */
	if (live && ui->paused) {
		report_head_fill(&ui->head, ui->s);
		ui_save_freeze(ui);
	}
	ui->priv->loop.dirty = true;
}

int ui_refresh_now(struct ui *ui)
{
	if (!ui->paused)
		report_head_fill(&ui->head, ui->s);
	ui_rank(ui, true);
	return R_REDRAW;
}
