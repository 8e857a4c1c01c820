// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * header.c - the header (mode, counters, what is traced and filtered) and
 * the bottom line (input line, status message or key bar).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "ui/draw.h"
#include "ui/header.h"
#include "ui/tui.h"
#include "ui/uifmt.h"
#include "ui/views.h"

static int ui_draw_segs(struct ui *ui, int y, int x, int maxx, const struct uifmt_seg *segs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		int ll = (int)strlen(segs[i].label), vl = (int)strlen(segs[i].value);

		if (x + ll + 1 + vl > maxx) {
			/* the last one that fits in part is cut, not dropped */
			if (maxx - x - ll - 1 >= 8) {
				ui_put(y, x, ll, ui_attr(ui, UC_HEADER_LABEL), segs[i].label);
				ui_put(y, x + ll + 1, maxx - x - ll - 1,
				       ui_attr(ui, segs[i].alert ? UC_ALERT : UC_HEADER_VALUE),
				       segs[i].value);
				x = maxx;
			}
			break;
		}
		ui_put(y, x, ll, ui_attr(ui, UC_HEADER_LABEL), segs[i].label);
		ui_put(y, x + ll + 1, vl, ui_attr(ui, segs[i].alert ? UC_ALERT : UC_HEADER_VALUE),
		       segs[i].value);
		x += ll + 1 + vl + 2;
	}
	return x;
}

static void seg_set(struct uifmt_seg *sg, const char *label, const char *value)
{
	char clean[UIFMT_SEG_VALUE];

	fmt_sanitize(clean, sizeof(clean), value, strlen(value));
	snprintf(sg->label, sizeof(sg->label), "%s", label);
	snprintf(sg->value, sizeof(sg->value), "%s", clean);
	sg->alert = false;
}

bool ui_compact(const struct ui *ui)
{
	return ui->cols < UI_FULL_COLS || ui->lines < UI_FULL_LINES;
}

int ui_header_lines(const struct ui *ui)
{
	bool map = ui->head.st.mode == SESSION_STACKMAP || ui->head.st.mode == SESSION_PASSIVE;

	if (ui_compact(ui))
		return 1;
	return map ? 5 : 3;
}

void ui_draw_header(struct ui *ui)
{
	struct uifmt_seg segs[16];
	char right[64], buf[64], shown[64];
	int n, rx, y = 0;

	/* line 0: identity; the mode markers are right-aligned and never dropped */
	snprintf(right, sizeof(right), "%s%s", ui->paused ? " PAUSED " : "",
		 ui->delta ? " [DELTA] " : " [CUMULATIVE] ");
	rx = ui->cols - (int)strlen(right);
	move(0, 0);
	clrtoeol();
	ui_put(0, 0, 9, ui_attr(ui, UC_HEADER_VALUE), "stacktop");
	n = 0;
	seg_set(&segs[n++], "mode", ui->head.mode);
	uifmt_delay(buf, sizeof(buf), ui->delay);
	seg_set(&segs[n++], "delay", buf);
	seg_set(&segs[n++], "events", ui->head.traced);
	seg_set(&segs[n++], "kernel", ui->head.st.kernel);
	ui_draw_segs(ui, 0, 9, rx - 1, segs, n);
	if (ui->paused) {
		ui_put(0, rx, 8, ui_attr(ui, UC_PAUSED), " PAUSED ");
		rx += 8;
	}
	ui_put(0, rx, ui->cols - rx, ui_attr(ui, UC_HEADER_VALUE),
	       ui->delta ? " [DELTA] " : " [CUMULATIVE] ");

	/* line 1: rates and losses (a small terminal: the header's one line) */
	y = ui_compact(ui) ? 0 : 1;
	move(y, 0);
	clrtoeol();
	n = uifmt_header_rates(&ui->head.st, ui->nstacks, segs, 16);
	if (n < 16 && ui->head.st.mem_limit) {
		char lim[16];

		/* stacktop's own memory against --max-memory; alert once over it */
		fmt_bytes(buf, sizeof(buf), ui->head.st.mem_bytes);
		fmt_bytes(lim, sizeof(lim), ui->head.st.mem_limit);
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "/%s", lim);
		seg_set(&segs[n], "mem", buf);
		segs[n++].alert = ui->head.st.mem_over_stacks || ui->head.st.mem_over_hits;
	}
	if (n < 16 && ui->head.st.mem_limit && ui->head.user) {
		/* the user symbolizer's share of the same limit; alert once it refused frames */
		fmt_bytes(buf, sizeof(buf), ui->head.st.mem_usym);
		seg_set(&segs[n], "usym", buf);
		segs[n++].alert = ui->head.st.mem_usym_refused > 0;
	}
	ui_draw_segs(ui, y, 1, ui->cols, segs, n);
	if (ui_compact(ui)) {
		/* the one line: a frozen view still says so */
		if (ui->paused)
			ui_put(0, ui->cols - 8, 8, ui_attr(ui, UC_PAUSED), " PAUSED ");
		return;
	}

	/* lines 2 and 3: the kernel map and its pool (stackmap and passive modes) */
	if (ui_header_lines(ui) == 5) {
		y = 2;
		move(y, 0);
		clrtoeol();
		n = uifmt_header_map(&ui->head.st, segs, 16);
		ui_draw_segs(ui, y, 1, ui->cols, segs, n);
		y = 3;
		move(y, 0);
		clrtoeol();
		n = uifmt_header_pool(&ui->head.st, segs, 16);
		ui_draw_segs(ui, y, 1, ui->cols, segs, n);
	}

	/* last header line: view, sort, filters */
	y = ui->lay.coltitle_y - 1;
	move(y, 0);
	clrtoeol();
	n = 0;
	/* the view's own segments: its name here, what it shows last */
	seg_set(&segs[n++], "view", ui->view->ops->header(ui->view, shown, sizeof(shown)));
	snprintf(buf, sizeof(buf), "%s %s", ui_sort_name(ui), ui->rank.invert ? "asc" : "desc");
	seg_set(&segs[n++], "sort", buf);
	if (ui->head.unit != UNIT_NONE) {
		snprintf(buf, sizeof(buf), "%s", ui->rank.weight ? ui_weight_note(ui) : "hits, ");
		buf[strlen(buf) - 2] = '\0'; /* the note ends in ", " */
		seg_set(&segs[n++], "count", buf);
	}
	{
		unsigned int depth = ui->head.group_depth;
		bool func = ui->head.group_func;

		if (depth || func) {
			if (depth)
				snprintf(buf, sizeof(buf), "first %u%s", depth,
					 func ? ", by function" : "");
			else
				snprintf(buf, sizeof(buf), "by function");
			seg_set(&segs[n], "group", buf);
			segs[n++].alert = true;
		}
	}
	seg_set(&segs[n], "event",
		ui->rank.event >= 0 ? session_event(ui->s, (unsigned int)ui->rank.event) : "all");
	segs[n++].alert = ui->rank.event >= 0;
	if (ui->rank.pid >= 0) {
		snprintf(buf, sizeof(buf), "%d", ui->rank.pid);
		seg_set(&segs[n], "pid", buf);
		segs[n++].alert = true;
	}
	if (ui->rank.cpu >= 0) {
		snprintf(buf, sizeof(buf), "%d", ui->rank.cpu);
		seg_set(&segs[n], "cpu", buf);
		segs[n++].alert = true;
	}
	if (ui->rank.hide_idle) {
		seg_set(&segs[n], "idle", "hidden");
		segs[n++].alert = true;
	}
	if (ui->flt.comm[0]) {
		seg_set(&segs[n], "comm", ui->flt.comm);
		segs[n++].alert = true;
	}
	if (ui->flt.filter[0]) {
		seg_set(&segs[n], "filter", ui->flt.filter);
		segs[n++].alert = true;
	}
	if (ui->flt.search[0])
		seg_set(&segs[n++], "search", ui->flt.search);
	if (ui->loop.cmd_done) {
		/* -- CMD: how it ended; the view is its last */
		seg_set(&segs[n], "cmd", ui->loop.cmd_what);
		segs[n++].alert = true;
	} else if (ui->head.st.targets_gone && !ui->opts.child_ended) {
		/* -p/--tid: what is watched is gone (batch mode ends there) */
		seg_set(&segs[n], "-p", "all exited");
		segs[n++].alert = true;
	}
	seg_set(&segs[n++], "shown", shown);
	if (!ui->paused && ui->loop.last_nav && ui_now() - ui->loop.last_nav < UI_HOLD_SEC)
		seg_set(&segs[n++], "order", "held");
	ui_draw_segs(ui, y, 1, ui->cols, segs, n);
}

/* ---- bottom line ------------------------------------------------------------ */

const char *const prompt_label[] = {
	[PR_SEARCH] = "Search (Enter keeps, Esc cancels, F3/Down next): ",
	[PR_FILTER] = "Filter frames/comm, a|b for either (Enter keeps, Esc cancels): ",
	[PR_PID] = "Pid or comm (text; =name: exactly; empty: all): ",
	[PR_DELAY] = "Refresh delay in seconds: ",
	[PR_KFILTER] = "Kernel filter (empty: none; Enter writes it, Esc cancels): ",
};

void ui_draw_bottom(struct ui *ui)
{
	static const struct {
		const char *key, *text;
	} bar[] = {
		{ "F1", "Help" },   { "F3", "Search" }, { "F4", "Filter" }, { "F5", "Tree" },
		{ "F6", "SortBy" }, { "f", "Event" },	{ "p", "Pid" },	    { "z", "Delta" },
		{ "Z", "Pause" },   { "r", "Reset" },	{ "P", "Save" },    { "F10", "Quit" },
	};
	int y = ui->lines - 1, x = 0;
	size_t i;

	move(y, 0);
	clrtoeol();
	if (ui->in.prompt != PR_NONE) {
		const char *label = prompt_label[ui->in.prompt];
		int ll = (int)strlen(label);

		if (ll > ui->cols / 2)
			ll = ui->cols / 2;
		ui_put(y, 0, ll, ui_attr(ui, UC_KEYBAR_TEXT), label);
		ui_put(y, ll, ui->cols - ll, ui_attr(ui, UC_NORMAL), ui->in.text);
		if (ui->in.note[0]) {
			int nx = ll + (int)mbstowcs(NULL, ui->in.text, 0) + 2;

			if (nx < ui->cols)
				ui_put(y, nx, ui->cols - nx, ui_attr(ui, UC_ALERT), ui->in.note);
		}
		return;
	}
	if (ui->msg.text[0] && ui_now() < ui->msg.until) {
		ui_put(y, 0, ui->cols, ui_attr(ui, ui->msg.err ? UC_STATUS_ERR : UC_STATUS_INFO),
		       ui->msg.text);
		return;
	}
	for (i = 0; i < sizeof(bar) / sizeof(bar[0]); i++) {
		int kl = (int)strlen(bar[i].key), tl = (int)strlen(bar[i].text);

		if (x + kl + tl + 1 > ui->cols)
			break;
		ui_put(y, x, kl, ui_attr(ui, UC_KEYBAR_KEY), bar[i].key);
		ui_put(y, x + kl, tl + 1, ui_attr(ui, UC_KEYBAR_TEXT), bar[i].text);
		x += kl + tl + 1;
	}
	if (x < ui->cols)
		ui_put(y, x, ui->cols - x, ui_attr(ui, UC_KEYBAR_TEXT), "");
}
