// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stack_rank.c - the ranked table's rows (see stack_view.c): the ranking
 * taken from the core and sorted by the screen's column, the leaf frames
 * every row shares, the flat list of rows (a stack, its frames when
 * expanded), the selection kept as (stack, frame) across rankings, and the
 * per-row facts (top pid, comm, origin) kept from the first draw on.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/format.h"
#include "core/hist.h"
#include "output/export.h"
#include "sym/brief.h"
#include "ui/breakdown.h"
#include "ui/diffcol.h"
#include "ui/draw.h"
#include "ui/list_view.h"
#include "ui/stack_rank.h"
#include "ui/tui.h"
#include "ui/views.h"

/*
 * Short event labels: "sched_switch" for "sched:sched_switch" when no other
 * event has that name, and a prefix every label shares up to a '_' left out
 * ("switch", "wakeup"; the header names them in full).
 */
void stack_view_event_labels(struct stack_view *sv)
{
	const struct ui *ui = sv->v.ui;
	unsigned int n = session_nevents(ui->s), i, j;
	size_t pre = SIZE_MAX;
	const char *first = NULL;

	if (n > sv->nevlabel) {
		unsigned short *l = realloc(sv->evlabel, n * sizeof(*l));

		if (!l) {
			n = (unsigned int)sv->nevlabel;
		} else {
			sv->evlabel = l;
			sv->nevlabel = n;
		}
	}
	for (i = 0; i < n; i++) {
		const char *name = session_event(ui->s, i), *c = strchr(name, ':');

		sv->evlabel[i] = c && c[1] && c - name < 1000 ? (unsigned short)(c - name + 1) : 0;
	}
	for (i = 0; i < n; i++) {
		const char *a = session_event(ui->s, i) + sv->evlabel[i];

		for (j = 0; sv->evlabel[i] && j < n; j++) {
			const char *b = session_event(ui->s, j), *c = strchr(b, ':');

			if (j != i && c && !strcmp(a, c + 1))
				sv->evlabel[i] = 0; /* ambiguous: the full name */
		}
	}
	/* the longest '_'-ended prefix of every label, when each keeps 4 characters */
	for (i = 0; i < n && n > 1; i++) {
		const char *a = session_event(ui->s, i) + sv->evlabel[i];
		size_t k = 0;

		if (!first) {
			first = a;
			pre = strlen(a);
			continue;
		}
		while (k < pre && a[k] && a[k] == first[k])
			k++;
		pre = k;
	}
	while (first && pre && pre != SIZE_MAX && first[pre - 1] != '_')
		pre--;
	for (i = 0; first && pre && pre != SIZE_MAX && i < n; i++)
		if (strlen(session_event(ui->s, i) + sv->evlabel[i]) < pre + 4)
			pre = 0;
	sv->evw = 0;
	for (i = 0; i < n; i++) {
		if (first && pre && pre != SIZE_MAX)
			sv->evlabel[i] = (unsigned short)(sv->evlabel[i] + pre);
		if ((int)strlen(session_event(ui->s, i) + sv->evlabel[i]) > sv->evw)
			sv->evw = (int)strlen(session_event(ui->s, i) + sv->evlabel[i]);
	}
}

/* the EVENT column's text for event index @ev */
const char *stack_view_event_label(struct stack_view *sv, int ev)
{
	const struct ui *ui = sv->v.ui;
	const char *name;

	if (ev < 0)
		return "-";
	name = session_event(ui->s, (unsigned int)ev);
	if ((size_t)ev < sv->nevlabel && sv->evlabel[ev] <= strlen(name))
		return name + sv->evlabel[ev];
	return name;
}

void stack_view_info_forget(struct stack_view *sv)
{
	hmap_clear(&sv->info_index);
	sv->ninfo = 0;
	breakdown_forget(sv->bd);
}

/*
 * Who hits @rr's stack most, and that pid's comm: computed when the row is
 * first drawn after a ranking and then kept, so that a paused view stays
 * exactly as it was (comms change, short-lived pids vanish, intervals close).
 */
const struct sv_info *stack_view_info(struct stack_view *sv, const struct rank_row *rr)
{
	const struct ui *ui = sv->v.ui;
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
	/* by the count on view, among the hits the filters keep */
	stack_top_of(ui->t, rr->stack, ui->delta, &ui->rank, &top);
	if (top.event < 0 || top.pid < 0) /* the interval closed since the ranking */
		stack_top_of(ui->t, rr->stack, false, &ui->rank, &top);
	in->event = ui->rank.event >= 0 ? ui->rank.event : top.event;
	in->pid = ui->rank.pid >= 0 ? ui->rank.pid : top.pid;
	in->npids = top.npids;
	snprintf(in->comm, sizeof(in->comm), "%s",
		 in->pid >= 0 ? session_comm(ui->s, in->pid) : "-");
	/* its last intervals, in what the view counts (hits or weight) */
	in->ntrend = stack_trend(ui->t, rr->stack, ui->rank.weight, in->trend, STACK_TREND);
	if (in->ntrend < 0)
		in->ntrend = -1;
	in->origins = false;
	in->origin = session_norigins(ui->s) > 1 ? export_top_origin(ui->s, rr->stack, &ui->rank,
								     ui->delta, &in->origins)
						 : -1;
	return in;
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

static struct stack_view *sort_sv;

/* the order of stack_table_rank(), for re-sorting a frozen snapshot */
static int sv_cmp(const void *pa, const void *pb)
{
	const struct rank_row *a = pa, *b = pb;
	const struct ui *ui = sort_sv->v.ui;
	int r = 0;

	switch (ui->rank.key) {
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
	case RANK_EVENT:
	case RANK_COMM: {
		/* every row's info was looked up before the sort: no allocation here */
		const struct sv_info *x = stack_view_info(sort_sv, a);
		const struct sv_info *y = stack_view_info(sort_sv, b);

		if (!x || !y)
			break;
		if (ui->rank.key == RANK_EVENT)
			r = x->event == y->event
				    ? 0
				    : strcmp(stack_view_event_label(sort_sv, x->event),
					     stack_view_event_label(sort_sv, y->event));
		else
			r = strcasecmp(x->comm, y->comm);
		if (!r && ui->delta)
			r = (a->delta < b->delta) - (a->delta > b->delta);
		break;
	}
	default:
		break;
	}
	if (!r)
		r = (a->total < b->total) - (a->total > b->total);
	if (!r)
		r = (a->stack->hash > b->stack->hash) - (a->stack->hash < b->stack->hash);
	return ui->rank.invert ? -r : r;
}

/*
 * The leaf frames the rows share are left out of their one-line text: those
 * every row shares, or, with rows of several events, those every row of the
 * same event shares (sched_switch rows all start "__schedule", wakeups
 * "try_to_wake_up").
 */
static void sv_find_common(struct stack_view *sv)
{
	const struct ui *ui = sv->v.ui;
	unsigned int n = session_nevents(ui->s), e;
	struct rank_row *group;
	size_t i, ng;

	sv->common_text[0] = '\0';
	sv->per_event = false;
	if (ui->diff) {
		/* GONE rows are BEFORE's stacks, of other symbols: every row in full */
		sv->common = 0;
		return;
	}
	sv->common = brief_common(ui->syms->ks, sv->ranked, sv->nranked);
	if (sv->common)
		brief_common_format(sv->common_text, sizeof(sv->common_text), ui->syms->ks,
				    sv->ranked[0].stack, sv->common);
	sv->per_event = false;
	if (sv->common || n < 2 || ui->rank.event >= 0 || sv->nranked < 2)
		return;
	if (n > sv->nevcommon) {
		unsigned int *c = realloc(sv->evcommon, n * sizeof(*c));

		if (!c)
			return;
		sv->evcommon = c;
		sv->nevcommon = n;
	}
	group = malloc(sv->nranked * sizeof(*group));
	if (!group)
		return;
	for (i = 0; i < sv->nranked; i++)
		stack_view_info(sv, &sv->ranked[i]);
	for (e = 0; e < n; e++) {
		ng = 0;
		for (i = 0; i < sv->nranked; i++) {
			const struct sv_info *in = stack_view_info(sv, &sv->ranked[i]);

			if (in && in->event == (int)e)
				group[ng++] = sv->ranked[i];
		}
		sv->evcommon[e] = brief_common(ui->syms->ks, group, ng);
		if (sv->evcommon[e])
			sv->per_event = true;
	}
	free(group);
}

/* how many shared leaf frames row @rr's text leaves out */
unsigned int stack_view_common(struct stack_view *sv, const struct rank_row *rr)
{
	const struct sv_info *in;

	if (!sv->per_event)
		return sv->common;
	in = stack_view_info(sv, rr);
	if (!in || in->event < 0 || (size_t)in->event >= sv->nevcommon)
		return 0;
	return sv->evcommon[in->event];
}

static bool sv_by_name(const struct stack_view *sv)
{
	const struct ui *ui = sv->v.ui;

	return ui->rank.key == RANK_EVENT || ui->rank.key == RANK_COMM;
}

void stack_view_rank(struct stack_view *sv, bool live)
{
	const struct ui *ui = sv->v.ui;
	size_t i;

	if (live) {
		/* the screen's ranking (refresh.c), a copy this view orders its way */
		if (ui->rows.n > sv->cap) {
			struct rank_row *r = realloc(sv->ranked, ui->rows.n * sizeof(*r));

			if (!r) {
				ui_status(ui, true, "out of memory ranking %zu stacks", ui->rows.n);
				return;
			}
			sv->ranked = r;
			sv->cap = ui->rows.n;
		}
		if (ui->rows.n)
			memcpy(sv->ranked, ui->rows.row, ui->rows.n * sizeof(*sv->ranked));
		sv->nranked = ui->rows.n;
		stack_view_info_forget(sv);
	}
	if (ui->diff && ui->diff_sort) {
		if (!live)
			uidiff_sort(ui, sv->ranked, sv->nranked);
	} else if ((!live || sv_by_name(sv) || ui->diff) && sv->nranked > 1) {
		for (i = 0; sv_by_name(sv) && i < sv->nranked; i++)
			stack_view_info(sv, &sv->ranked[i]);
		sort_sv = sv;
		qsort(sv->ranked, sv->nranked, sizeof(*sv->ranked), sv_cmp);
	}
	sv_find_common(sv);
	stack_view_rebuild(sv, true);
	/* until the user picks a stack, the selection is the top row */
	if (!sv->chosen) {
		list_view_select(&sv->lv, 0);
		sv->lv.top = 0;
	}
}

/*
 * After a navigation (keys, mouse, search): the selection follows the stack
 * the user moved to, unless that is the top row of an unscrolled list, which
 * goes on following whatever ranks first (Home gives the list back). Opening
 * or closing a stack is a choice too: the top row expanded stays under the
 * selection when another stack outranks it at the next refresh.
 */
void stack_view_note_choice(struct stack_view *sv)
{
	sv->chosen = sv->lv.sel > 0 || sv->lv.top > 0 || sv->opened;
	sv->opened = false;
}

/* remember folds, selection and scroll (a search prompt opens) */
void stack_view_save(struct stack_view *sv)
{
	struct sv_saved *sd = &sv->saved;

	sd->valid = !hmap_copy(&sd->expanded, &sv->expanded);
	sd->sel_st = NULL;
	sd->sel_frame = -1;
	if (sv->lv.sel >= 0 && (size_t)sv->lv.sel < sv->nrows) {
		sd->sel_st = sv->rows[sv->lv.sel].st;
		sd->sel_frame = sv->rows[sv->lv.sel].frame;
	}
	sd->top = sv->lv.top;
	sd->chosen = sv->chosen;
	sv->search_opened = NULL;
}

/* back to what stack_view_save() remembered (the search was cancelled or retyped) */
void stack_view_restore(struct stack_view *sv)
{
	struct sv_saved *sd = &sv->saved;
	size_t i;

	if (!sd->valid)
		return;
	hmap_copy(&sv->expanded, &sd->expanded);
	sv->search_opened = NULL;
	stack_view_rebuild(sv, false);
	sv->lv.top = sd->top;
	list_view_select(&sv->lv, 0);
	for (i = 0; sd->sel_st && i < sv->nrows; i++) {
		if (sv->rows[i].st == sd->sel_st &&
		    (sv->rows[i].frame == sd->sel_frame || sv->rows[i].frame < 0)) {
			list_view_select(&sv->lv, (int)i);
			if (sv->rows[i].frame == sd->sel_frame)
				break;
		}
	}
	sv->lv.top = sd->top;
	list_view_select(&sv->lv, sv->lv.sel);
	sv->chosen = sd->chosen;
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

int stack_view_extra(struct stack_view *sv, const struct stack *st, struct sv_extra *ex)
{
	const struct ui *ui = sv->v.ui;
	uint64_t v[STACK_TREND];
	int n = stack_trend(ui->t, st, false, v, STACK_TREND);

	memset(ex, 0, sizeof(*ex));
	/* a GONE row's stack is BEFORE's: nothing of it in this table */
	if (uidiff_is_before(ui, st))
		return 0;
	/* a line for the trend once there are intervals (or to say memory refused it) */
	ex->trend = n != 0;
	ex->hist =
		stack_hist(ui->t, st, ex->counts) && hist_range(ex->counts, &ex->first, &ex->last);
	return ex->trend + (ex->hist ? 1 + (int)(ex->last - ex->first + 1) : 0);
}

void stack_view_rebuild(struct stack_view *sv, bool keep_selection)
{
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
		{
			struct sv_extra ex;
			/* the frames, then the trend and the histogram (frame rows past the depth)
			 */
			int rows = st->depth + stack_view_extra(sv, st, &ex);

			for (d = 0; d < rows; d++)
				if (sv_add_row(sv, st, d, (uint32_t)i))
					break;
		}
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

unsigned int stack_view_selected_frame(struct stack_view *sv)
{
	const struct ui *ui = sv->v.ui;
	const struct sv_row *r;
	unsigned int f;

	if (sv->lv.sel < 0 || (size_t)sv->lv.sel >= sv->nrows)
		return 0;
	r = &sv->rows[sv->lv.sel];
	if (r->frame >= 0)
		return (unsigned int)r->frame;
	f = ui_stack_skip(ui, r->st) + stack_view_common(sv, &sv->ranked[r->rank]);
	return f < r->st->depth ? f : ui_stack_skip(ui, r->st);
}

struct stack *stack_view_selected(struct stack_view *sv)
{
	const struct ui *ui = sv->v.ui;

	if (sv->lv.sel < 0 || (size_t)sv->lv.sel >= sv->nrows)
		return NULL;
	/* a GONE row is BEFORE's: nothing of it in this session to break down */
	if (uidiff_is_before(ui, sv->rows[sv->lv.sel].st))
		return NULL;
	return sv->rows[sv->lv.sel].st;
}
