// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stack_draw.c - the stack view drawn (stack_draw.h): its columns laid out
 * for the screen's width, their titles (the sort column marked, the leaf
 * frames every row shares named), and each row: a stack's counts, who
 * hits it and its frames in one line, an expanded stack's frames, its
 * trend and the histogram of its single weights.
 */
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/hist.h"
#include "sym/brief.h"
#include "sym/frame.h"
#include "ui/diffcol.h"
#include "ui/draw.h"
#include "ui/list_view.h"
#include "ui/stack_draw.h"
#include "output/rows.h"
#include "ui/stack_rank.h"
#include "ui/symcache.h"
#include "ui/tui.h"
#include "ui/uifmt.h"
#include "ui/views.h"

static const char *const col_title[COL_MAX] = {
	[COL_RANK] = "#",	  [COL_ID] = "ID",
	[COL_DELTA] = "DELTA",	  [COL_TOTAL] = "TOTAL",
	[COL_PCT] = "%",	  [COL_CI] = "CI95",
	[COL_RATE] = "RATE/s",	  [COL_DIFF] = "CHG%",
	[COL_ORIGIN] = "ORIGIN",  [COL_BEFORE] = "BEF%",
	[COL_DEPTH] = "DEP",	  [COL_EVENT] = "EVENT",
	[COL_COMM] = "COMM(PID)", [COL_FUNC] = "FUNCTION [module] < CALLERS",
	[COL_TREND] = "TREND",
};

static const bool col_right[COL_MAX] = {
	[COL_RANK] = true,  [COL_DELTA] = true, [COL_TOTAL] = true,
	[COL_PCT] = true,   [COL_CI] = true,	[COL_RATE] = true,
	[COL_DEPTH] = true, [COL_DIFF] = true,	[COL_BEFORE] = true,
};
static enum ui_col sort_col(const struct ui *ui);

void stack_view_columns(struct stack_view *sv)
{
	const struct ui *ui = sv->v.ui;
	bool ids = ui->head.st.mode != SESSION_STACKS; /* kernel ids exist */
	/* one event (traced or filtered): the header names it, the column says nothing */
	bool one_event = session_nevents(ui->s) <= 1 || ui->rank.event >= 0;
	int evw, sc, tl;
	struct col_spec specs[COL_MAX] = {
		[COL_RANK] = { .min = 4, .want = 5, .prio = 5 },
		[COL_ID] = { .min = ids ? 5 : 2, .want = ids ? 9 : 2, .prio = ids ? 3 : 7 },
		[COL_DELTA] = { .min = 6, .want = 6, .prio = 0 },
		[COL_TOTAL] = { .min = 6, .want = 6, .prio = 2 },
		[COL_PCT] = { .min = 5, .want = 5, .prio = 1 },
		/* --sample only: the counts are estimates */
		[COL_CI] = { .min = 6,
			     .want = 7,
			     .prio = 2,
			     .hidden = !export_sampled(&ui->head.st) },
		[COL_BEFORE] = { .min = 5, .want = 6, .prio = 1 },
		/* "-20.0 GONE" */
		[COL_DIFF] = { .min = 10, .want = 11, .prio = 1 },
		[COL_RATE] = { .min = 6, .want = 6, .prio = 8 },
		/* what rises: before RATE (the same as DELTA) and DEP, after EVENT */
		[COL_TREND] = { .min = 8, .want = 12, .prio = 7 },
		[COL_DEPTH] = { .min = 3, .want = 4, .prio = 9 },
		[COL_EVENT] = { .prio = 6, .hidden = one_event },
		/* comm(pid): a pid has up to 7 digits, and a comm deserves a few letters */
		[COL_COMM] = { .min = 16, .want = 20, .prio = 4, .flex = true },
		[COL_ORIGIN] = { .min = 8, .want = 16, .prio = 3, .flex = true },
		[COL_FUNC] = { .min = 28, .want = 40, .prio = 0, .flex = true },
	};

	/* BEF% and CHG% only with --diff, ORIGIN only with several -r snapshots */
	specs[COL_DIFF].hidden = !ui->diff;
	specs[COL_BEFORE].hidden = !ui->diff;
	specs[COL_ORIGIN].hidden = session_norigins(ui->s) <= 1;

	stack_view_event_labels(sv);
	evw = sv->evw < 5 ? 5 : (sv->evw > 24 ? 24 : sv->evw);
	specs[COL_EVENT].min = evw > 12 ? 12 : evw;
	specs[COL_EVENT].want = evw;
	/* the sort column has room for its title and the sort mark */
	sc = (int)sort_col(ui);
	tl = (int)strlen(col_title[sc]) + 1;
	if (specs[sc].min < tl)
		specs[sc].min = tl;
	if (specs[sc].want < specs[sc].min)
		specs[sc].want = specs[sc].min;
	uifmt_layout(specs, COL_MAX, ui->cols, sv->cols);
}

static enum ui_col sort_col(const struct ui *ui)
{
	if (ui->diff && ui->diff_sort)
		return COL_DIFF;
	switch (ui->rank.key) {
	case RANK_TOTAL:
		return COL_TOTAL;
	case RANK_DEPTH:
		return COL_DEPTH;
	case RANK_ID:
		return COL_ID;
	case RANK_EVENT:
		return COL_EVENT;
	case RANK_COMM:
		return COL_COMM;
	case RANK_DELTA:
	default:
		return COL_DELTA;
	}
}

void stack_view_draw_titles(struct stack_view *sv, int y)
{
	const struct ui *ui = sv->v.ui;
	enum ui_col sc = sort_col(ui);
	attr_t a = ui_attr(ui, UC_COLTITLE);
	int c;

	move(y, 0);
	attron(a);
	hline(' ', ui->cols);
	attroff(a);
	for (c = 0; c < COL_MAX; c++) {
		const struct col_pos *p = &sv->cols[c];
		char title[256];
		attr_t ca = c == (int)sc ? ui_attr(ui, UC_SORTCOL) : a;
		int len;

		if (!p->w)
			continue;
		const char *name = c == COL_DELTA && ui->rank.weight  ? ui_count_title(ui)
				   : c == COL_RATE && ui->rank.weight ? "PER s"
								      : col_title[c];

		snprintf(title, sizeof(title), "%s%s", name,
			 c == (int)sc ? (ui->rank.invert ? (ui->utf8 ? "\u25b2" : "^")
							 : (ui->utf8 ? "\u25bc" : "v"))
				      : "");
		len = (int)strlen(name) + (c == (int)sc ? 1 : 0);
		if (c == COL_FUNC && (sv->common || sv->per_event)) {
			/* the rows start after the frames they all share: say which */
			if (sv->common)
				snprintf(title, sizeof(title), "FUNCTION < CALLERS (... = %s)",
					 sv->common_text);
			else
				snprintf(title, sizeof(title),
					 "FUNCTION < CALLERS (... = shared by the event's rows)");
			len = (int)strlen(title);
		}
		if (col_right[c] && len < p->w)
			ui_put(y, p->x + p->w - len, len, ca, title);
		else
			ui_put(y, p->x, p->w, ca, title);
	}
}

int stack_view_col_at(struct stack_view *sv, int x)
{
	int c;

	for (c = 0; c < COL_MAX; c++) {
		const struct col_pos *p = &sv->cols[c];

		if (p->w && x >= p->x && x <= p->x + p->w)
			return c;
	}
	return -1;
}

/* ---- drawing ------------------------------------------------------------ */

static void sv_cell(struct stack_view *sv, int y, enum ui_col c, attr_t a, const char *text)
{
	const struct col_pos *p = &sv->cols[c];

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

static void sv_draw_frame(struct stack_view *sv, const struct sv_row *r, int y, attr_t base)
{
	const struct ui *ui = sv->v.ui;
	char buf[512], line[600];
	int x = sv->cols[COL_RANK].w ? sv->cols[COL_RANK].x + sv->cols[COL_RANK].w + 1 : 0;
	bool last = r->frame == r->st->depth - 1;

	/* the frames the one-line summary leaves out are dimmed */
	if (r->frame <
		    (int)(ui_stack_skip(ui, r->st) + stack_view_common(sv, &sv->ranked[r->rank])) &&
	    base == ui_attr(ui, UC_FRAME))
		base = ui_attr(ui, UC_DIM);
	fmt_frame_src(buf, sizeof(buf), uidiff_ksym(ui, r->st), r->st->ips[r->frame]);
	snprintf(line, sizeof(line), "%s #%-3d %s",
		 ui->utf8 ? (last ? "\u2514\u2500" : "\u251c\u2500") : (last ? "`-" : "|-"),
		 r->frame, buf);
	ui_put(y, x, ui->cols - x, base, line);
}

/*
 * The rows after an expanded stack's frames: its trend (a sparkline of its
 * last intervals and their counts), then the single weights of its hits in
 * log2 buckets, as bpftrace's hist() prints them
 */
static void sv_draw_extra(struct stack_view *sv, const struct sv_row *r, int y, attr_t base)
{
	const struct ui *ui = sv->v.ui;
	int x = sv->cols[COL_RANK].w ? sv->cols[COL_RANK].x + sv->cols[COL_RANK].w + 1 : 0;
	int k = r->frame - r->st->depth, lw = 0, bw, i;
	unsigned int scale = stack_table_hist_scale(ui->t), b;
	uint64_t max = 0, sum = 0;
	char line[600], lab[40], bar[64];
	struct sv_extra ex;

	stack_view_extra(sv, r->st, &ex);
	if (ex.trend && k-- == 0) {
		const struct sv_info *in = stack_view_info(sv, &sv->ranked[r->rank]);
		size_t len;

		if (!in || in->ntrend < 0) {
			ui_put(y, x, ui->cols - x, base, "   trend: not kept (over --max-memory)");
			return;
		}
		len = (size_t)snprintf(line, sizeof(line), "   trend ");
		uifmt_spark(line + len, sizeof(line) - len, in->trend, in->ntrend, STACK_TREND,
			    ui->utf8);
		len = strlen(line);
		len += (size_t)snprintf(
			line + len, sizeof(line) - len,
			"  %s per interval, oldest first:", ui->rank.weight ? "weight" : "hits");
		for (i = 0; i < in->ntrend && len < sizeof(line); i++) {
			char c[16];

			ui_fmt_count(ui, c, sizeof(c), in->trend[i]);
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %s", c);
		}
		ui_put(y, x, ui->cols - x, base, line);
		return;
	}
	if (!ex.hist) {
		ui_put(y, x, ui->cols - x, base, "");
		return;
	}
	for (b = ex.first; b <= ex.last; b++) {
		int w = hist_label(lab, sizeof(lab), scale, b);

		lw = w > lw ? w : lw;
		max = ex.counts[b] > max ? ex.counts[b] : max;
		sum += ex.counts[b];
	}
	if (k == 0) {
		snprintf(line, sizeof(line),
			 "   %s per hit, log2 buckets (%llu hits since start%s):",
			 ui->head.weight_name, (unsigned long long)sum,
			 scale == HIST_TIME ? "" : "; K = 1024");
		ui_put(y, x, ui->cols - x, base, line);
		return;
	}
	b = ex.first + (unsigned int)k - 1;
	if (b > ex.last) {
		ui_put(y, x, ui->cols - x, base, "");
		return;
	}
	/* bpftrace's 52 columns of bar when they fit */
	bw = ui->cols - x - 3 - lw - 1 - 8 - 1 - 2;
	bw = bw > 52 ? 52 : bw < 8 ? 8 : bw;
	hist_label(lab, sizeof(lab), scale, b);
	hist_bar(bar, sizeof(bar), ex.counts[b], max, bw);
	snprintf(line, sizeof(line), "   %-*s %8llu %s", lw, lab, (unsigned long long)ex.counts[b],
		 bar);
	ui_put(y, x, ui->cols - x, base, line);
}

static void sv_draw_row(struct list_view *lv, int row, int y, bool selected)
{
	struct stack_view *sv = container_of(lv, struct stack_view, lv);
	const struct ui *ui = sv->v.ui;
	const struct sv_row *r = &sv->rows[row];
	const struct rank_row *rr = &sv->ranked[r->rank];
	struct stack *st = r->st;
	attr_t base = selected ? ui_attr(ui, UC_SELECTED) : ui_attr(ui, UC_NORMAL);
	const struct sv_info *in;
	char buf[512];
	uint64_t part, whole;
	bool gone = false;

	if (selected) {
		attron(base);
		mvhline(y, 0, ' ', ui->cols);
		attroff(base);
	}
	if (r->frame >= (int)st->depth) {
		sv_draw_extra(sv, r, y, selected ? base : ui_attr(ui, UC_NORMAL));
		return;
	}
	if (r->frame >= 0) {
		sv_draw_frame(sv, r, y, selected ? base : ui_attr(ui, UC_FRAME));
		return;
	}
	snprintf(buf, sizeof(buf), "%c%*u",
		 st->depth ? (hmap_get(&sv->expanded, (uintptr_t)st, NULL) ? '-' : '+') : ' ',
		 sv->cols[COL_RANK].w > 1 ? sv->cols[COL_RANK].w - 1 : 1, r->rank + 1);
	sv_cell(sv, y, COL_RANK, base, buf);
	if (sv->cols[COL_ID].w) {
		fmt_ids(buf, sizeof(buf), st->ids,
			st->nids < STACK_MAX_IDS ? st->nids : STACK_MAX_IDS,
			(st->flags & STACK_F_MOREIDS) != 0);
		sv_cell(sv, y, COL_ID, base, buf);
	}
	ui_fmt_count(ui, buf, sizeof(buf), rr->delta);
	sv_cell(sv, y, COL_DELTA, base, buf);
	ui_fmt_count(ui, buf, sizeof(buf), rr->total);
	sv_cell(sv, y, COL_TOTAL, base, buf);
	part = ui->delta ? rr->delta : rr->total;
	whole = ui->delta ? ui->rows.sum.delta : ui->rows.sum.total;
	fmt_percent(buf, sizeof(buf), part, whole);
	sv_cell(sv, y, COL_PCT, base, buf);
	if (sv->cols[COL_CI].w) {
		char n[16];

		ui_fmt_count(ui, n, sizeof(n),
			     ui->delta ? export_sample_ci95(rr->delta, ui->head.st.events_delta,
							    &ui->head.st)
				       : export_sample_ci95(rr->total, ui->head.st.events,
							    &ui->head.st));
		snprintf(buf, sizeof(buf), "%s%s", ui->utf8 ? "±" : "+-", n);
		sv_cell(sv, y, COL_CI, base, buf);
	}
	if (ui->diff) {
		double before, change;
		enum uidiff_kind kind = uidiff_row(ui, rr, &before, &change);

		gone = uidiff_is_before(ui, st);
		snprintf(buf, sizeof(buf), kind == UIDIFF_NEW ? "-" : "%.1f", before);
		sv_cell(sv, y, COL_BEFORE, base, buf);
		snprintf(buf, sizeof(buf), "%+.1f%s", change,
			 kind == UIDIFF_NEW    ? " NEW"
			 : kind == UIDIFF_GONE ? " GONE"
					       : "");
		sv_cell(sv, y, COL_DIFF,
			kind != UIDIFF_BOTH && !selected ? ui_attr(ui, UC_ALERT) : base, buf);
	}
	if (sv->cols[COL_RATE].w) {
		ui_fmt_rate(ui, buf, sizeof(buf), rr->delta);
		sv_cell(sv, y, COL_RATE, base, buf);
	}
	/* a GONE row: who hit it is BEFORE's to say, not this session's */
	in = gone ? NULL : stack_view_info(sv, rr);
	if (sv->cols[COL_TREND].w && in) {
		if (in->ntrend < 0)
			snprintf(buf, sizeof(buf), "(mem)");
		else
			uifmt_spark(buf, sizeof(buf), in->trend, in->ntrend, sv->cols[COL_TREND].w,
				    ui->utf8);
		/* left-aligned: the newest interval is the last column drawn */
		sv_cell(sv, y, COL_TREND, selected ? base : base | A_BOLD, buf);
	}
	if (sv->cols[COL_DEPTH].w) {
		snprintf(buf, sizeof(buf), "%u%s", st->depth, st->flags & STACK_F_CUT ? "+" : "");
		sv_cell(sv, y, COL_DEPTH, base, buf);
	}
	if (sv->cols[COL_ORIGIN].w && in) {
		snprintf(buf, sizeof(buf), "%s%s",
			 in->origin >= 0 ? session_origin(ui->s, (unsigned int)in->origin) : "-",
			 in->origins ? "+" : "");
		sv_cell(sv, y, COL_ORIGIN, base, buf);
	}
	if (sv->cols[COL_EVENT].w && in) {
		sv_cell(sv, y, COL_EVENT, base, stack_view_event_label(sv, in->event));
	}
	if (sv->cols[COL_COMM].w && in) {
		if (in->pid >= 0) {
			char pid[32], comm[64];
			int pw = in->npids > 1 ? snprintf(pid, sizeof(pid), "(%d) +%u", in->pid,
							  in->npids - 1)
					       : snprintf(pid, sizeof(pid), "(%d)", in->pid);

			/* too narrow: the comm is cut, never the pid ("+3": three more pids) */
			fmt_fit(comm, sizeof(comm), in->comm,
				sv->cols[COL_COMM].w - pw > 1 ? sv->cols[COL_COMM].w - pw : 1);
			snprintf(buf, sizeof(buf), "%s%s", comm, pid);
		} else {
			snprintf(buf, sizeof(buf), "-");
		}
		sv_cell(sv, y, COL_COMM, base, buf);
	} else if (sv->cols[COL_COMM].w) {
		sv_cell(sv, y, COL_COMM, base, "-");
	}
	if (st->depth) {
		/* the first frame that is not tracing machinery, then its callers */
		brief_format_after(buf, sizeof(buf), uidiff_ksym(ui, st), st,
				   stack_view_common(sv, rr), 16, 1);
		sv_cell(sv, y, COL_FUNC, selected ? base : base | A_BOLD, buf);
	} else
		sv_cell(sv, y, COL_FUNC, base, "(no frames)");
}

const struct list_view_ops stack_view_row_ops = {
	.draw_row = sv_draw_row,
};
