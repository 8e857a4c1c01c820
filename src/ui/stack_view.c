// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stack_view.c - the ranked table, the home view: one row per stack, its
 * frames inline when expanded; its ops, keys, mouse (a click on a column's
 * title sorts by it) and search. Drawn by stack_draw.c, ranked by
 * stack_rank.c; the breakdown pane of the selected stack is breakdown.c.
 *
 * The view holds a snapshot of the last ranking (struct rank_row) and a flat
 * list of screen rows built from it. The selection is remembered as (stack,
 * frame), never as a row number, so it follows its stack when the ranking
 * changes. Which stacks are expanded is view state, kept in a set keyed by
 * the stack pointer; every pointer is dropped when the core clears its table
 * (the forget hook).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/format.h"
#include "core/hist.h"
#include "output/export.h"
#include "sym/brief.h"
#include "sym/frame.h"
#include "ui/breakdown.h"
#include "ui/diffcol.h"
#include "ui/draw.h"
#include "ui/list_view.h"
#include "ui/stack_draw.h"
#include "ui/stack_rank.h"
#include "ui/stack_view.h"
#include "ui/symcache.h"
#include "ui/tui.h"
#include "ui/uifmt.h"
#include "ui/views.h"

static struct stack_view *sv_of(struct ui_view *v)
{
	return container_of(v, struct stack_view, v);
}

static struct ui_view *sv_create(struct ui *ui)
{
	struct stack_view *sv = calloc(1, sizeof(*sv));

	if (!sv)
		return NULL;
	sv->v.ops = &stack_view_ops;
	sv->v.ui = ui;
	list_view_init(&sv->lv, &stack_view_row_ops);
	hmap_init(&sv->expanded);
	hmap_init(&sv->info_index);
	hmap_init(&sv->saved.expanded);
	sv->bd = breakdown_new();
	return &sv->v;
}

static void sv_destroy(struct ui_view *v)
{
	struct stack_view *sv = sv_of(v);

	free(sv->ranked);
	free(sv->rows);
	free(sv->info);
	breakdown_free(sv->bd);
	hmap_done(&sv->expanded);
	hmap_done(&sv->info_index);
	hmap_done(&sv->saved.expanded);
	free(sv->evlabel);
	free(sv->evcommon);
	free(sv);
}

static void sv_forget(struct ui_view *v)
{
	struct stack_view *sv = sv_of(v);

	sv->nranked = 0;
	sv->nrows = 0;
	hmap_clear(&sv->expanded);
	stack_view_info_forget(sv);
	list_view_set_rows(&sv->lv, 0);
	sv->chosen = false;
	sv->search_opened = NULL;
	sv->saved.valid = false;
	hmap_clear(&sv->saved.expanded);
}

/* ---- actions ----------------------------------------------------------- */

static void sv_set_expanded(struct stack_view *sv, struct stack *st, bool on)
{
	if (on && st->depth)
		hmap_put(&sv->expanded, (uintptr_t)st, 1);
	else
		hmap_del(&sv->expanded, (uintptr_t)st);
}

static void sv_select_stack_row(struct stack_view *sv, struct stack *st)
{
	size_t i;

	for (i = 0; i < sv->nrows; i++) {
		if (sv->rows[i].st == st && sv->rows[i].frame < 0) {
			list_view_select(&sv->lv, (int)i);
			return;
		}
	}
}

/* on a frame row: fold its stack and select the stack's own row */
static bool sv_fold_to_stack(struct stack_view *sv, struct stack *st)
{
	sv_set_expanded(sv, st, false);
	stack_view_rebuild(sv, false);
	sv_select_stack_row(sv, st);
	return true;
}

static bool sv_move(struct stack_view *sv, enum ui_action act)
{
	const struct sv_row *r = NULL;
	size_t i;

	if (sv->lv.sel >= 0 && (size_t)sv->lv.sel < sv->nrows)
		r = &sv->rows[sv->lv.sel];
	if (act == ACT_TOGGLE || act == ACT_EXPAND || act == ACT_COLLAPSE ||
	    act == ACT_EXPAND_ALL || act == ACT_COLLAPSE_ALL)
		sv->search_opened = NULL; /* the user's folds from now on */
	switch (act) {
	case ACT_TOGGLE:
		if (!r)
			return false;
		if (r->frame >= 0)
			return sv_fold_to_stack(sv, r->st);
		sv_set_expanded(sv, r->st, !hmap_get(&sv->expanded, (uintptr_t)r->st, NULL));
		stack_view_rebuild(sv, true);
		return true;
	case ACT_EXPAND:
		if (!r)
			return false;
		sv_set_expanded(sv, r->st, true);
		stack_view_rebuild(sv, true);
		return true;
	case ACT_COLLAPSE:
		if (!r)
			return false;
		if (r->frame >= 0)
			return sv_fold_to_stack(sv, r->st);
		sv_set_expanded(sv, r->st, false);
		stack_view_rebuild(sv, true);
		return true;
	case ACT_EXPAND_ALL:
		for (i = 0; i < sv->nranked; i++)
			sv_set_expanded(sv, sv->ranked[i].stack, true);
		stack_view_rebuild(sv, true);
		return true;
	case ACT_COLLAPSE_ALL: {
		struct stack *st = r ? r->st : NULL;

		hmap_clear(&sv->expanded);
		stack_view_rebuild(sv, false);
		if (st)
			sv_select_stack_row(sv, st);
		return true;
	}
	default:
		return list_view_action(&sv->lv, act);
	}
}

static bool sv_row_matches(struct stack_view *sv, const struct sv_row *r)
{
	const struct ui *ui = sv->v.ui;

	if (r->frame >= (int)r->st->depth)
		return false; /* the trend and histogram lines */
	if (r->frame >= 0)
		return textmatch_sym(&ui->flt->smatch, ui->syms,
				     symcache_id(ui->syms, r->st->ips[r->frame]));
	return textmatch_frames(&ui->flt->smatch, ui->syms, r->st) ||
	       textmatch_comm(&ui->flt->smatch, ui->s, r->st);
}

/*
 * A collapsed stack found by one of its frames: unfold it and put the
 * selection on that frame, so the match is on screen (not only its stack).
 */
static void sv_show_match(struct stack_view *sv, int row)
{
	const struct ui *ui = sv->v.ui;
	struct stack *st = sv->rows[row].st;
	int d, i;

	if (sv->rows[row].frame >= 0 || hmap_get(&sv->expanded, (uintptr_t)st, NULL))
		return;
	for (d = 0; d < st->depth; d++)
		if (textmatch_sym(&ui->flt->smatch, ui->syms, symcache_id(ui->syms, st->ips[d])))
			break;
	if (d == st->depth)
		return; /* matched by comm */
	sv_set_expanded(sv, st, true);
	sv->search_opened = st;
	stack_view_rebuild(sv, false);
	for (i = 0; i < (int)sv->nrows; i++) {
		if (sv->rows[i].st == st && sv->rows[i].frame == d) {
			list_view_select(&sv->lv, i);
			return;
		}
	}
}

static bool sv_search_rows(struct stack_view *sv, int dir, bool include_current)
{
	const struct ui *ui = sv->v.ui;
	int n = (int)sv->nrows, start = sv->lv.sel < 0 ? 0 : sv->lv.sel, i;

	if (!n || !textmatch_active(&ui->flt->smatch))
		return false;
	/* the stack the last match unfolded folds again: only the match shown is open */
	if (sv->search_opened) {
		struct stack *st = sv->search_opened;

		sv->search_opened = NULL;
		if (hmap_get(&sv->expanded, (uintptr_t)st, NULL)) {
			sv_set_expanded(sv, st, false);
			stack_view_rebuild(sv, true);
			n = (int)sv->nrows;
			start = sv->lv.sel < 0 ? 0 : sv->lv.sel;
		}
	}
	for (i = include_current ? 0 : 1; i <= n; i++) {
		int row = ((start + dir * i) % n + n) % n;

		if (sv_row_matches(sv, &sv->rows[row])) {
			list_view_select(&sv->lv, row);
			sv_show_match(sv, row);
			return true;
		}
	}
	return false;
}

/* ---- the view's hooks ---------------------------------------------------- */

static void sv_layout(struct ui_view *v)
{
	struct stack_view *sv = sv_of(v);

	list_view_set_area(&sv->lv, v->ui->lay.list_y, v->ui->lay.list_h);
	stack_view_columns(sv);
}

/* ranked even when another view is on screen, from live data: it is there when t or v comes back */
static void sv_refresh(struct ui_view *v, unsigned int how)
{
	struct stack_view *sv = sv_of(v);

	stack_view_columns(sv); /* the EVENT column depends on the events seen */
	if (how & (UV_SHOWN | UV_LIVE))
		stack_view_rank(sv, how & UV_LIVE);
	if (how & UV_HOME) {
		sv->chosen = false;
		list_view_select(&sv->lv, 0);
		sv->lv.top = 0;
	}
}

static void sv_draw(struct ui_view *v)
{
	struct stack_view *sv = sv_of(v);
	const struct ui *ui = v->ui;
	struct bd_subject sub = { .none = " breakdown: select a stack" };

	stack_view_draw_titles(sv, ui->lay.coltitle_y);
	list_view_draw(&sv->lv);
	if (!sv->nrows)
		ui_draw_empty(ui);
	/* the title names what the selected row shows first */
	sub.st = stack_view_selected(sv);
	sub.frame = sub.st ? stack_view_selected_frame(sv) : 0;
	breakdown_draw(ui, sv->bd, &sub);
}

static const char *sv_header(struct ui_view *v, char *shown, size_t size)
{
	struct stack_view *sv = sv_of(v);
	const struct ui *ui = v->ui;

	if (ui->diff)
		/* diff mode: BEFORE's stacks AFTER does not have are rows too */
		snprintf(shown, size, "%zu of %zu, %zu gone", sv->nranked - uidiff_ngone(ui),
			 ui->rows.sum.matched, uidiff_ngone(ui));
	else
		snprintf(shown, size, "%zu of %zu", sv->nranked, ui->rows.sum.matched);
	return "stacks";
}

static int sv_action(struct ui_view *v, enum ui_action act)
{
	struct stack_view *sv = sv_of(v);

	if (!keys_moves(act))
		return R_PASS;
	sv_move(sv, act);
	sv->opened = act == ACT_TOGGLE || act == ACT_EXPAND;
	return R_REDRAW | R_NAV;
}

/* the sort key of a column title clicked */
static enum rank_key col_rank_key(const struct ui *ui, int col, bool *ok)
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

/* a click on a column's title sorts by it; again inverts */
static int sv_sort_by(struct stack_view *sv, int x)
{
	const struct ui *ui = sv->v.ui;
	int col = stack_view_col_at(sv, x);
	bool ok;
	enum rank_key key = col_rank_key(ui, col, &ok);

	/* --diff: the change of share */
	if (ui->diff && (col == COL_DIFF || col == COL_BEFORE))
		return ui_sort_by(ui, ui->rank.key, true);
	if (!ok) {
		ui_status(
			ui, true,
			"this column cannot be sorted (sortable: DELTA, TOTAL, %%, RATE, DEP, ID, EVENT, COMM)");
		return R_REDRAW;
	}
	return ui_sort_by(ui, key, false);
}

static int sv_click(struct ui_view *v, int y, int x, bool dclick)
{
	struct stack_view *sv = sv_of(v);
	int r;

	if (y == v->ui->lay.coltitle_y)
		return sv_sort_by(sv, x);
	r = ui_list_click(v->ui, &sv->lv, y, dclick);
	if (r < 0)
		return 0;
	/* a double click opens or closes the row, as Enter */
	return r ? sv_action(v, ACT_TOGGLE) : R_REDRAW | R_NAV;
}

static void sv_scroll(struct ui_view *v, int steps)
{
	list_view_scroll(&sv_of(v)->lv, 3 * steps);
}

static bool sv_search(struct ui_view *v, int dir, bool include_current)
{
	return sv_search_rows(sv_of(v), dir, include_current);
}

static void sv_search_save(struct ui_view *v)
{
	stack_view_save(sv_of(v));
}

static void sv_search_restore(struct ui_view *v)
{
	stack_view_restore(sv_of(v));
}

static void sv_nav(struct ui_view *v)
{
	stack_view_note_choice(sv_of(v));
}

static struct stack *sv_stack(struct ui_view *v)
{
	return stack_view_selected(sv_of(v));
}

const struct ui_view_ops stack_view_ops = {
	.name = "stacks",
	.opens = ACT_NONE, /* the home view: t from the callee tree and v come back to it */
	.flags = UVF_BREAKDOWN | UVF_RESORT,
	.create = sv_create,
	.destroy = sv_destroy,
	.layout = sv_layout,
	.rank = sv_refresh,
	.forget = sv_forget,
	.draw = sv_draw,
	.header = sv_header,
	.action = sv_action,
	.click = sv_click,
	.wheel = sv_scroll,
	.search = sv_search,
	.search_save = sv_search_save,
	.search_restore = sv_search_restore,
	.nav = sv_nav,
	.stack = sv_stack,
};
