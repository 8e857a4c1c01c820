// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stack_view.c - the ranked table: one row per stack, its frames inline when
 * expanded (the breakdown pane of the selected stack is breakdown.c).
 *
 * The view holds a snapshot of the last ranking (struct rank_row) and a flat
 * list of screen rows built from it. The selection is remembered as (stack,
 * frame), never as a row number, so it follows its stack when the ranking
 * changes. Which stacks are expanded is view state, kept in a set keyed by
 * the stack pointer; every pointer is dropped when the core clears its table
 * (stack_view_forget()).
 */
#include <stdlib.h>
#include <string.h>

#include "brief.h"
#include "format.h"
#include "tui.h"

#define SV_DEFAULT_TOP 1000

static const char *const col_title[COL_MAX] = {
	[COL_RANK] = "#",	  [COL_ID] = "ID",     [COL_DELTA] = "DELTA",
	[COL_TOTAL] = "TOTAL",	  [COL_PCT] = "%",     [COL_RATE] = "RATE/s",
	[COL_DEPTH] = "DEP",	  [COL_EVENT] = "EVENT", [COL_COMM] = "COMM(PID)",
	[COL_FUNC] = "FUNCTION [module] < CALLERS",
};

static const bool col_right[COL_MAX] = {
	[COL_RANK] = true,  [COL_DELTA] = true, [COL_TOTAL] = true,
	[COL_PCT] = true,   [COL_RATE] = true,  [COL_DEPTH] = true,
};

static void sv_draw_row(struct list_view *lv, int row, int y, bool selected);

static const struct list_view_ops sv_ops = {
	.draw_row = sv_draw_row,
};

static struct ui *sv_ui(struct list_view *lv)
{
	struct stack_view *sv = container_of(lv, struct stack_view, lv);

	return container_of(sv, struct ui, sv);
}

void stack_view_init(struct ui *ui)
{
	memset(&ui->sv, 0, sizeof(ui->sv));
	list_view_init(&ui->sv.lv, &sv_ops);
	hmap_init(&ui->sv.expanded);
	hmap_init(&ui->sv.info_index);
	ui->sv.bd = breakdown_new();
}

void stack_view_done(struct ui *ui)
{
	free(ui->sv.ranked);
	free(ui->sv.rows);
	free(ui->sv.info);
	breakdown_free(ui->sv.bd);
	hmap_done(&ui->sv.expanded);
	hmap_done(&ui->sv.info_index);
}

static void sv_info_forget(struct stack_view *sv)
{
	hmap_clear(&sv->info_index);
	sv->ninfo = 0;
	breakdown_forget(sv->bd);
}

void stack_view_forget(struct ui *ui)
{
	ui->sv.nranked = 0;
	ui->sv.nrows = 0;
	hmap_clear(&ui->sv.expanded);
	sv_info_forget(&ui->sv);
	list_view_set_rows(&ui->sv.lv, 0);
}

/* under a comm filter: the pid with most hits among those whose comm matches */
static int sv_top_matching_pid(struct ui *ui, const struct stack *st, int fallback)
{
	const struct stack_attr *a;
	struct hmap hits;
	uint64_t best = 0, v;
	int pid = fallback;

	hmap_init(&hits);
	for (a = st->attrs; a; a = a->next) {
		if (!textmatch_pid(&ui->cmatch, ui->s, a->pid))
			continue;
		v = 0;
		hmap_get(&hits, (uint32_t)a->pid, &v);
		v += a->total;
		hmap_put(&hits, (uint32_t)a->pid, v);
		if (v > best) {
			best = v;
			pid = a->pid;
		}
	}
	hmap_done(&hits);
	return pid;
}

/*
 * Who hits @rr's stack most, and that pid's comm: computed when the row is
 * first drawn after a ranking and then kept, so that a paused view stays
 * exactly as it was (comms change, short-lived pids vanish, intervals close).
 */
static const struct sv_info *sv_info_of(struct ui *ui, const struct rank_row *rr)
{
	struct stack_view *sv = &ui->sv;
	struct stack_top top;
	struct sv_info *in;
	uint64_t v;

	if (hmap_get(&sv->info_index, (uintptr_t)rr->stack, &v))
		return &sv->info[v];
	if (sv->ninfo == sv->icap) {
		size_t cap = sv->icap ? sv->icap * 2 : 256;
		struct sv_info *n = realloc(sv->info, cap * sizeof(*n));

		if (!n)
			return NULL;
		sv->info = n;
		sv->icap = cap;
	}
	if (hmap_put(&sv->info_index, (uintptr_t)rr->stack, sv->ninfo))
		return NULL;
	in = &sv->info[sv->ninfo++];
	stack_top_of(ui->t, rr->stack, ui->delta && rr->delta, &top);
	if (top.event < 0 || top.pid < 0) /* the interval closed since the ranking */
		stack_top_of(ui->t, rr->stack, false, &top);
	in->event = ui->rank.event >= 0 ? ui->rank.event : top.event;
	in->pid = ui->rank.pid >= 0 ? ui->rank.pid : top.pid;
	if (ui->rank.pid < 0 && textmatch_active(&ui->cmatch))
		in->pid = sv_top_matching_pid(ui, rr->stack, in->pid);
	snprintf(in->comm, sizeof(in->comm), "%s",
		 in->pid >= 0 ? session_comm(ui->s, in->pid) : "-");
	return in;
}


void stack_view_layout(struct ui *ui)
{
	bool ids = ui->st.mode != SESSION_STACKS; /* kernel ids exist */
	/* one event (traced or filtered): the header names it, the column goes first */
	bool one_event = session_nevents(ui->s) <= 1 || ui->rank.event >= 0;
	struct col_spec specs[COL_MAX] = {
		[COL_RANK] = { .min = 4, .want = 5, .prio = 5 },
		[COL_ID] = { .min = ids ? 5 : 2, .want = ids ? 9 : 2, .prio = ids ? 3 : 7 },
		[COL_DELTA] = { .min = 6, .want = 6, .prio = 0 },
		[COL_TOTAL] = { .min = 6, .want = 6, .prio = 2 },
		[COL_PCT] = { .min = 5, .want = 5, .prio = 1 },
		[COL_RATE] = { .min = 6, .want = 6, .prio = 8 },
		[COL_DEPTH] = { .min = 3, .want = 4, .prio = 9 },
		[COL_EVENT] = { .min = 10, .want = 18, .prio = one_event ? 10 : 6, .flex = true },
		[COL_COMM] = { .min = 12, .want = 18, .prio = 4, .flex = true },
		[COL_FUNC] = { .min = 30, .want = 40, .prio = 0, .flex = true },
	};

	uifmt_layout(specs, COL_MAX, ui->cols, ui->sv.cols);
}

static enum ui_col sort_col(const struct ui *ui)
{
	switch (ui->rank.key) {
	case RANK_TOTAL:
		return COL_TOTAL;
	case RANK_DEPTH:
		return COL_DEPTH;
	case RANK_ID:
		return COL_ID;
	case RANK_DELTA:
	default:
		return COL_DELTA;
	}
}

void stack_view_draw_titles(struct ui *ui, int y)
{
	enum ui_col sc = sort_col(ui);
	attr_t a = ui_attr(ui, UC_COLTITLE);
	int c;

	move(y, 0);
	attron(a);
	hline(' ', ui->cols);
	attroff(a);
	for (c = 0; c < COL_MAX; c++) {
		const struct col_pos *p = &ui->sv.cols[c];
		char title[64];
		attr_t ca = c == (int)sc ? ui_attr(ui, UC_SORTCOL) : a;
		int len;

		if (!p->w)
			continue;
		const char *name = c == COL_DELTA && ui->rank.weight ? ui_count_title(ui)
				   : c == COL_RATE && ui->rank.weight  ? "PER s"
								       : col_title[c];

		snprintf(title, sizeof(title), "%s%s", name,
			 c == (int)sc ? (ui->rank.invert ? (ui->utf8 ? "\u25b2" : "^") :
							  (ui->utf8 ? "\u25bc" : "v")) :
					"");
		len = (int)strlen(name) + (c == (int)sc ? 1 : 0);
		if (col_right[c] && len < p->w)
			ui_put(y, p->x + p->w - len, len, ca, title);
		else
			ui_put(y, p->x, p->w, ca, title);
	}
}

int stack_view_col_at(struct ui *ui, int x)
{
	int c;

	for (c = 0; c < COL_MAX; c++) {
		const struct col_pos *p = &ui->sv.cols[c];

		if (p->w && x >= p->x && x <= p->x + p->w)
			return c;
	}
	return -1;
}

/* ---- ranking ------------------------------------------------------------ */

static uint32_t stack_min_id(const struct stack *st)
{
	uint32_t m = UINT32_MAX;
	unsigned int i;

	for (i = 0; i < st->nids && i < STACK_MAX_IDS; i++)
		if (st->ids[i] < m)
			m = st->ids[i];
	return m;
}

static const struct ui *sort_ui;

/* the order of stack_table_rank(), for re-sorting a frozen snapshot */
static int sv_cmp(const void *pa, const void *pb)
{
	const struct rank_row *a = pa, *b = pb;
	int r = 0;

	switch (sort_ui->rank.key) {
	case RANK_DELTA:
		r = (a->delta < b->delta) - (a->delta > b->delta);
		break;
	case RANK_TOTAL:
		break;
	case RANK_DEPTH:
		r = (a->stack->depth < b->stack->depth) - (a->stack->depth > b->stack->depth);
		break;
	case RANK_ID: {
		uint32_t x = stack_min_id(a->stack), y = stack_min_id(b->stack);

		r = (x > y) - (x < y);
		break;
	}
	default:
		break;
	}
	if (!r)
		r = (a->total < b->total) - (a->total > b->total);
	if (!r)
		r = (a->stack->hash > b->stack->hash) - (a->stack->hash < b->stack->hash);
	return sort_ui->rank.invert ? -r : r;
}

void stack_view_rank(struct ui *ui, bool live)
{
	struct stack_view *sv = &ui->sv;

	if (live) {
		size_t k = ui->opts.top > 0 ? (size_t)ui->opts.top : SV_DEFAULT_TOP;

		if (k < (size_t)ui->list_h)
			k = (size_t)ui->list_h;
		if (k > sv->cap) {
			struct rank_row *r = realloc(sv->ranked, k * sizeof(*r));

			if (!r) {
				ui_status(ui, true, "out of memory ranking %zu stacks", k);
				return;
			}
			sv->ranked = r;
			sv->cap = k;
		}
		sv->nranked = stack_table_rank(ui->t, &ui->rank, sv->ranked, k, &ui->sum);
		ui->shown_k = k;
		sv_info_forget(sv);
	} else if (sv->nranked > 1) {
		sort_ui = ui;
		qsort(sv->ranked, sv->nranked, sizeof(*sv->ranked), sv_cmp);
	}
	stack_view_rebuild(ui, true);
}

static int sv_add_row(struct stack_view *sv, struct stack *st, int frame, uint32_t rank)
{
	if (sv->nrows == sv->rcap) {
		size_t cap = sv->rcap ? sv->rcap * 2 : 1024;
		struct sv_row *r = realloc(sv->rows, cap * sizeof(*r));

		if (!r)
			return -1;
		sv->rows = r;
		sv->rcap = cap;
	}
	sv->rows[sv->nrows].st = st;
	sv->rows[sv->nrows].frame = frame;
	sv->rows[sv->nrows].rank = rank;
	sv->nrows++;
	return 0;
}

void stack_view_rebuild(struct ui *ui, bool keep_selection)
{
	struct stack_view *sv = &ui->sv;
	struct stack *sel_st = NULL;
	int sel_frame = -1, old_sel = sv->lv.sel, old_top = sv->lv.top;
	size_t i;
	int d;

	if (keep_selection && sv->lv.sel >= 0 && (size_t)sv->lv.sel < sv->nrows) {
		sel_st = sv->rows[sv->lv.sel].st;
		sel_frame = sv->rows[sv->lv.sel].frame;
	}
	sv->nrows = 0;
	for (i = 0; i < sv->nranked; i++) {
		struct stack *st = sv->ranked[i].stack;

		if (sv_add_row(sv, st, -1, (uint32_t)i))
			break;
		if (!hmap_get(&sv->expanded, (uintptr_t)st, NULL))
			continue;
		for (d = 0; d < st->depth; d++)
			if (sv_add_row(sv, st, d, (uint32_t)i))
				break;
	}
	/*
	 * The selection follows its stack; the list itself stays where it was
	 * and scrolls only as far as needed to keep the selection visible.
	 */
	sv->lv.top = old_top;
	list_view_set_rows(&sv->lv, (int)sv->nrows);
	if (!sel_st)
		return;
	for (i = 0; i < sv->nrows; i++) {
		if (sv->rows[i].st == sel_st && sv->rows[i].frame == sel_frame) {
			list_view_select(&sv->lv, (int)i);
			return;
		}
	}
	/* the frame is hidden now: fall back to its stack */
	for (i = 0; i < sv->nrows; i++) {
		if (sv->rows[i].st == sel_st && sv->rows[i].frame < 0) {
			list_view_select(&sv->lv, (int)i);
			return;
		}
	}
	/* the stack left the ranking: stay at the same place */
	list_view_select(&sv->lv, old_sel);
}

struct stack *stack_view_selected(struct ui *ui)
{
	struct stack_view *sv = &ui->sv;

	if (sv->lv.sel < 0 || (size_t)sv->lv.sel >= sv->nrows)
		return NULL;
	return sv->rows[sv->lv.sel].st;
}

/* ---- drawing ------------------------------------------------------------ */

static void sv_cell(struct ui *ui, int y, enum ui_col c, attr_t a, const char *text)
{
	const struct col_pos *p = &ui->sv.cols[c];

	if (!p->w)
		return;
	if (col_right[c]) {
		int len = (int)strlen(text);

		if (len < p->w) {
			ui_put(y, p->x, p->w - len, a, "");
			ui_put(y, p->x + p->w - len, len, a, text);
			return;
		}
	}
	ui_put(y, p->x, p->w, a, text);
}

static void sv_draw_frame(struct ui *ui, const struct sv_row *r, int y, attr_t base)
{
	char buf[512], line[600];
	int x = ui->sv.cols[COL_RANK].w ? ui->sv.cols[COL_RANK].x + ui->sv.cols[COL_RANK].w + 1 : 0;
	bool last = r->frame == r->st->depth - 1;

	if (r->frame < (int)ui_stack_skip(ui, r->st) && base == ui_attr(ui, UC_FRAME))
		base = ui_attr(ui, UC_DIM);
	fmt_frame(buf, sizeof(buf), ui->ks, r->st->ips[r->frame]);
	snprintf(line, sizeof(line), "%s #%-3d %s",
		 ui->utf8 ? (last ? "\u2514\u2500" : "\u251c\u2500") : (last ? "`-" : "|-"),
		 r->frame, buf);
	ui_put(y, x, ui->cols - x, base, line);
}

static void sv_draw_row(struct list_view *lv, int row, int y, bool selected)
{
	struct ui *ui = sv_ui(lv);
	struct stack_view *sv = &ui->sv;
	const struct sv_row *r = &sv->rows[row];
	const struct rank_row *rr = &sv->ranked[r->rank];
	struct stack *st = r->st;
	attr_t base = selected ? ui_attr(ui, UC_SELECTED) : ui_attr(ui, UC_NORMAL);
	const struct sv_info *in;
	char buf[512];
	uint64_t part, whole;

	if (selected) {
		attron(base);
		mvhline(y, 0, ' ', ui->cols);
		attroff(base);
	}
	if (r->frame >= 0) {
		sv_draw_frame(ui, r, y, selected ? base : ui_attr(ui, UC_FRAME));
		return;
	}
	snprintf(buf, sizeof(buf), "%c%*u", st->depth ?
		 (hmap_get(&sv->expanded, (uintptr_t)st, NULL) ? '-' : '+') : ' ',
		 sv->cols[COL_RANK].w > 1 ? sv->cols[COL_RANK].w - 1 : 1, r->rank + 1);
	sv_cell(ui, y, COL_RANK, base, buf);
	if (sv->cols[COL_ID].w) {
		fmt_ids(buf, sizeof(buf), st->ids, st->nids < STACK_MAX_IDS ? st->nids : STACK_MAX_IDS,
			(st->flags & STACK_F_MOREIDS) != 0);
		sv_cell(ui, y, COL_ID, base, buf);
	}
	ui_fmt_count(ui, buf, sizeof(buf), rr->delta);
	sv_cell(ui, y, COL_DELTA, base, buf);
	ui_fmt_count(ui, buf, sizeof(buf), rr->total);
	sv_cell(ui, y, COL_TOTAL, base, buf);
	part = ui->delta ? rr->delta : rr->total;
	whole = ui->delta ? ui->sum.delta : ui->sum.total;
	fmt_percent(buf, sizeof(buf), part, whole);
	sv_cell(ui, y, COL_PCT, base, buf);
	if (sv->cols[COL_RATE].w) {
		ui_fmt_rate(ui, buf, sizeof(buf), rr->delta);
		sv_cell(ui, y, COL_RATE, base, buf);
	}
	if (sv->cols[COL_DEPTH].w) {
		snprintf(buf, sizeof(buf), "%u%s", st->depth, st->flags & STACK_F_CUT ? "+" : "");
		sv_cell(ui, y, COL_DEPTH, base, buf);
	}
	in = sv_info_of(ui, rr);
	if (sv->cols[COL_EVENT].w && in) {
		int ev = in->event;
		const char *name = ev >= 0 ? session_event(ui->s, (unsigned int)ev) : "-";
		const char *colon = strchr(name, ':');

		/* "sched:sched_switch" -> "sched_switch" when the column is narrow */
		if (colon && (int)strlen(name) > sv->cols[COL_EVENT].w)
			name = colon + 1;
		sv_cell(ui, y, COL_EVENT, base, name);
	}
	if (sv->cols[COL_COMM].w && in) {
		if (in->pid >= 0) {
			snprintf(buf, sizeof(buf), "%s(%d)", in->comm, in->pid);
		} else {
			snprintf(buf, sizeof(buf), "-");
		}
		sv_cell(ui, y, COL_COMM, base, buf);
	}
	if (st->depth) {
		/* the first frame that is not tracing machinery, then its callers */
		brief_format(buf, sizeof(buf), ui->ks, st, 16, 1);
		sv_cell(ui, y, COL_FUNC, selected ? base : base | A_BOLD, buf);
	} else
		sv_cell(ui, y, COL_FUNC, base, "(no frames)");
}

/* ---- empty view ----------------------------------------------------------- */

void stack_view_draw_empty(struct ui *ui)
{
	char msg[512], filters[300] = "";
	int y = ui->list_y + (ui->list_h > 2 ? ui->list_h / 3 : 0);
	size_t len = 0;

	if (!ui->st.tracing_on && ui->st.mode != SESSION_REPLAY) {
		snprintf(msg, sizeof(msg),
			 "Tracing is off (tracing_on is 0): the kernel records nothing. Restart tracing or stacktop.");
	} else if (!ui->nstacks && ui->st.mode == SESSION_REPLAY) {
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
		if (ui->comm[0] && len < sizeof(filters))
			len += (size_t)snprintf(filters + len, sizeof(filters) - len, " comm '%s'",
						ui->comm);
		if (ui->filter[0] && len < sizeof(filters))
			len += (size_t)snprintf(filters + len, sizeof(filters) - len, " filter '%s'",
						ui->filter);
		if (len)
			snprintf(msg, sizeof(msg),
				 "No stack matches the filters (%s) among %zu stacks; x clears them.",
				 filters + 1, ui->nstacks);
		else
			snprintf(msg, sizeof(msg), "No stacks to show yet (%zu recorded).",
				 ui->nstacks);
	}
	ui_put(y, 2, ui->cols - 4, ui_attr(ui, UC_ALERT), msg);
}

/* ---- actions ----------------------------------------------------------- */

static void sv_set_expanded(struct ui *ui, struct stack *st, bool on)
{
	if (on && st->depth)
		hmap_put(&ui->sv.expanded, (uintptr_t)st, 1);
	else
		hmap_del(&ui->sv.expanded, (uintptr_t)st);
}

static void sv_select_stack_row(struct ui *ui, struct stack *st)
{
	size_t i;

	for (i = 0; i < ui->sv.nrows; i++) {
		if (ui->sv.rows[i].st == st && ui->sv.rows[i].frame < 0) {
			list_view_select(&ui->sv.lv, (int)i);
			return;
		}
	}
}

/* on a frame row: fold its stack and select the stack's own row */
static bool sv_fold_to_stack(struct ui *ui, struct stack *st)
{
	sv_set_expanded(ui, st, false);
	stack_view_rebuild(ui, false);
	sv_select_stack_row(ui, st);
	return true;
}

bool stack_view_action(struct ui *ui, enum ui_action act)
{
	struct stack_view *sv = &ui->sv;
	const struct sv_row *r = NULL;
	size_t i;

	if (sv->lv.sel >= 0 && (size_t)sv->lv.sel < sv->nrows)
		r = &sv->rows[sv->lv.sel];
	switch (act) {
	case ACT_TOGGLE:
		if (!r)
			return false;
		if (r->frame >= 0)
			return sv_fold_to_stack(ui, r->st);
		sv_set_expanded(ui, r->st, !hmap_get(&sv->expanded, (uintptr_t)r->st, NULL));
		stack_view_rebuild(ui, true);
		return true;
	case ACT_EXPAND:
		if (!r)
			return false;
		sv_set_expanded(ui, r->st, true);
		stack_view_rebuild(ui, true);
		return true;
	case ACT_COLLAPSE:
		if (!r)
			return false;
		if (r->frame >= 0)
			return sv_fold_to_stack(ui, r->st);
		sv_set_expanded(ui, r->st, false);
		stack_view_rebuild(ui, true);
		return true;
	case ACT_EXPAND_ALL:
		for (i = 0; i < sv->nranked; i++)
			sv_set_expanded(ui, sv->ranked[i].stack, true);
		stack_view_rebuild(ui, true);
		return true;
	case ACT_COLLAPSE_ALL: {
		struct stack *st = r ? r->st : NULL;

		hmap_clear(&sv->expanded);
		stack_view_rebuild(ui, false);
		if (st)
			sv_select_stack_row(ui, st);
		return true;
	}
	default:
		return list_view_action(&sv->lv, act);
	}
}

static bool sv_row_matches(struct ui *ui, const struct sv_row *r)
{
	if (r->frame >= 0)
		return textmatch_sym(&ui->smatch, ui->syms, symcache_id(ui->syms, r->st->ips[r->frame]));
	return textmatch_frames(&ui->smatch, ui->syms, r->st) ||
	       textmatch_comm(&ui->smatch, ui->s, r->st);
}

/*
 * A collapsed stack found by one of its frames: unfold it and put the
 * selection on that frame, so the match is on screen (not only its stack).
 */
static void sv_show_match(struct ui *ui, int row)
{
	struct stack_view *sv = &ui->sv;
	struct stack *st = sv->rows[row].st;
	int d, i;

	if (sv->rows[row].frame >= 0 || hmap_get(&sv->expanded, (uintptr_t)st, NULL))
		return;
	for (d = 0; d < st->depth; d++)
		if (textmatch_sym(&ui->smatch, ui->syms, symcache_id(ui->syms, st->ips[d])))
			break;
	if (d == st->depth)
		return; /* matched by comm */
	sv_set_expanded(ui, st, true);
	stack_view_rebuild(ui, false);
	for (i = 0; i < (int)sv->nrows; i++) {
		if (sv->rows[i].st == st && sv->rows[i].frame == d) {
			list_view_select(&sv->lv, i);
			return;
		}
	}
}

bool stack_view_search(struct ui *ui, int dir, bool include_current)
{
	struct stack_view *sv = &ui->sv;
	int n = (int)sv->nrows, start = sv->lv.sel < 0 ? 0 : sv->lv.sel, i;

	if (!n || !textmatch_active(&ui->smatch))
		return false;
	for (i = include_current ? 0 : 1; i <= n; i++) {
		int row = ((start + dir * i) % n + n) % n;

		if (sv_row_matches(ui, &sv->rows[row])) {
			list_view_select(&sv->lv, row);
			sv_show_match(ui, row);
			return true;
		}
	}
	return false;
}
