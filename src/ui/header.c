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
#include "ui/screen_state.h"
#include "ui/tui.h"
#include "ui/uifmt.h"
#include "ui/views.h"

/* segments one header line has room for (the terminal's width cuts them first) */
#define UI_HEADER_SEGS 24

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
	return ui->cols < UI_FULL_COLS || ui->priv->lines < UI_FULL_LINES;
}

/* the flame graph below UI_TALL_LINES: the rates and the view line only, a level
 * more for each line given up (the identity and the map's lines) */
static bool ui_tall(const struct ui *ui)
{
	return ui->view && (ui->view->ops->flags & UVF_TALL) && ui->priv->lines < UI_TALL_LINES &&
	       !ui_compact(ui);
}

int ui_header_lines(const struct ui *ui)
{
	bool map = ui->head.st.mode == SESSION_STACKMAP || ui->head.st.mode == SESSION_PASSIVE;

	if (ui_compact(ui))
		return 1;
	if (ui_tall(ui))
		return 2;
	return map ? 5 : 3;
}

/* line 0: identity; the mode markers are right-aligned and never dropped */
static void header_identity(struct ui *ui)
{
	struct uifmt_seg segs[5];
	char right[64], buf[64];
	int n = 0, rx;

	snprintf(right, sizeof(right), "%s%s", ui->paused ? " PAUSED " : "",
		 ui->delta ? " [DELTA] " : " [CUMULATIVE] ");
	rx = ui->cols - (int)strlen(right);
	move(0, 0);
	clrtoeol();
	ui_put(0, 0, 9, ui_attr(ui, UC_HEADER_VALUE), "stacktop");
	seg_set(&segs[n++], "mode", ui->head.mode);
	if (ui->head.st.mode == SESSION_REPLAY) {
		/* a recording is read once: no refresh, its span and its file instead */
		snprintf(buf, sizeof(buf), "%.2fs", ui->head.st.interval_sec);
		seg_set(&segs[n++], "recorded", buf);
		seg_set(&segs[n++], "from", ui->head.st.tracefs);
	} else {
		uifmt_delay(buf, sizeof(buf), ui->priv->delay);
		seg_set(&segs[n++], "delay", buf);
	}
	seg_set(&segs[n++], "events", ui->head.traced);
	seg_set(&segs[n++], "kernel", ui->head.st.kernel);
	ui_draw_segs(ui, 0, 9, rx - 1, segs, n);
	if (ui->paused) {
		ui_put(0, rx, 8, ui_attr(ui, UC_PAUSED), " PAUSED ");
		rx += 8;
	}
	ui_put(0, rx, ui->cols - rx, ui_attr(ui, UC_HEADER_VALUE),
	       ui->delta ? " [DELTA] " : " [CUMULATIVE] ");
}

/* line @y: rates and losses (the counters, ui/uifmt.c), memory against --max-memory */
static void header_rates(struct ui *ui, int y)
{
	struct uifmt_seg segs[UI_HEADER_SEGS];
	char buf[64];
	int n;

	move(y, 0);
	clrtoeol();
	n = uifmt_header_rates(&ui->head.st, ui->nstacks, segs, UI_HEADER_SEGS);
	if (n < UI_HEADER_SEGS && ui->head.st.mem_limit) {
		char lim[16];

		/* stacktop's own memory against --max-memory; alert once over it */
		fmt_bytes(buf, sizeof(buf), ui->head.st.mem_bytes);
		fmt_bytes(lim, sizeof(lim), ui->head.st.mem_limit);
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "/%s", lim);
		seg_set(&segs[n], "mem", buf);
		segs[n++].alert = ui->head.st.mem_over_stacks || ui->head.st.mem_over_hits;
	}
	if (n < UI_HEADER_SEGS && ui->head.st.mem_limit && ui->head.user) {
		/* the user symbolizer's share of the same limit; alert once it refused frames */
		fmt_bytes(buf, sizeof(buf), ui->head.st.mem_usym);
		seg_set(&segs[n], "usym", buf);
		segs[n++].alert = ui->head.st.mem_usym_refused > 0;
	}
	ui_draw_segs(ui, y, 1, ui->cols, segs, n);
}

/* lines 2 and 3: the kernel map and its pool (stackmap and passive modes) */
static void header_map(struct ui *ui)
{
	struct uifmt_seg segs[UI_HEADER_SEGS];
	int n;

	move(2, 0);
	clrtoeol();
	n = uifmt_header_map(&ui->head.st, segs, UI_HEADER_SEGS);
	ui_draw_segs(ui, 2, 1, ui->cols, segs, n);
	move(3, 0);
	clrtoeol();
	n = uifmt_header_pool(&ui->head.st, segs, UI_HEADER_SEGS);
	ui_draw_segs(ui, 3, 1, ui->cols, segs, n);
}

/* @segs[@n] @label: @value, in the alert colour */
static int seg_alert(struct uifmt_seg *segs, int n, const char *label, const char *value)
{
	seg_set(&segs[n], label, value);
	segs[n].alert = true;
	return n + 1;
}

/* the view's filters after @n segments of @segs: each one that is set, in the alert colour */
static int header_filters(struct ui *ui, struct uifmt_seg *segs, int n)
{
	char buf[64];

	if (ui->head.group_by[0])
		n = seg_alert(segs, n, "group", ui->head.group_by);
	if (ui->head.group_depth || ui->head.group_func) {
		if (ui->head.group_depth)
			snprintf(buf, sizeof(buf), "first %u%s", ui->head.group_depth,
				 ui->head.group_func ? ", by function" : "");
		else
			snprintf(buf, sizeof(buf), "by function");
		n = seg_alert(segs, n, "group", buf);
	}
	seg_set(&segs[n], "event",
		ui->rank.event >= 0 ? session_event(ui->s, (unsigned int)ui->rank.event) : "all");
	segs[n++].alert = ui->rank.event >= 0;
	if (ui->rank.pid >= 0) {
		snprintf(buf, sizeof(buf), "%d", ui->rank.pid);
		n = seg_alert(segs, n, "pid", buf);
	}
	if (ui->rank.cpu >= 0) {
		snprintf(buf, sizeof(buf), "%d", ui->rank.cpu);
		n = seg_alert(segs, n, "cpu", buf);
	}
	if (ui->rank.hide_idle)
		n = seg_alert(segs, n, "idle", "hidden");
	if (ui->flt->comm[0])
		n = seg_alert(segs, n, "comm", ui->flt->comm);
	if (ui->flt->filter[0])
		n = seg_alert(segs, n, "filter", ui->flt->filter);
	return n;
}

/* last header line: view, sort, filters */
static void header_view(struct ui *ui)
{
	struct uifmt_seg segs[UI_HEADER_SEGS];
	char buf[64], shown[64];
	int n = 0, y = ui->lay.coltitle_y - 1;

	move(y, 0);
	clrtoeol();
	/* the view's own segments: its name here, what it shows last */
	seg_set(&segs[n++], "view", ui->view->ops->header(ui->view, shown, sizeof(shown)));
	snprintf(buf, sizeof(buf), "%s %s", ui_sort_name(ui), ui->rank.invert ? "asc" : "desc");
	seg_set(&segs[n++], "sort", buf);
	if (ui->head.unit != UNIT_NONE) {
		snprintf(buf, sizeof(buf), "%s", ui->rank.weight ? ui_weight_note(ui) : "hits, ");
		buf[strlen(buf) - 2] = '\0'; /* the note ends in ", " */
		seg_set(&segs[n++], "count", buf);
	}
	n = header_filters(ui, segs, n);
	if (ui->flt->search[0])
		seg_set(&segs[n++], "search", ui->flt->search);
	if (ui->priv->loop.cmd_done) /* -- CMD: how it ended; the view is its last */
		n = seg_alert(segs, n, "cmd", ui->priv->loop.cmd_what);
	else if (ui->head.st.targets_gone && !ui->priv->opts.child_ended)
		/* -p/--tid: what is watched is gone (batch mode ends there) */
		n = seg_alert(segs, n, "-p", "all exited");
	seg_set(&segs[n++], "shown", shown);
	if (!ui->paused && ui->priv->loop.last_nav &&
	    ui_now() - ui->priv->loop.last_nav < UI_HOLD_SEC)
		seg_set(&segs[n++], "order", "held");
	ui_draw_segs(ui, y, 1, ui->cols, segs, n);
}

void ui_draw_header(struct ui *ui)
{
	bool one = ui_compact(ui) || ui_tall(ui);

	if (!one)
		header_identity(ui);
	/* a small terminal: the rates and losses are the header's one line */
	header_rates(ui, one ? 0 : 1);
	if (ui_tall(ui)) {
		if (ui->paused)
			ui_put(0, ui->cols - 8, 8, ui_attr(ui, UC_PAUSED), " PAUSED ");
		header_view(ui);
		return;
	}
	if (ui_compact(ui)) {
		/* the one line: a frozen view still says so */
		if (ui->paused)
			ui_put(0, ui->cols - 8, 8, ui_attr(ui, UC_PAUSED), " PAUSED ");
		return;
	}
	if (ui_header_lines(ui) == 5)
		header_map(ui);
	header_view(ui);
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
	int y = ui->priv->lines - 1, x = 0;
	size_t i;

	move(y, 0);
	clrtoeol();
	if (ui->priv->in.prompt != PR_NONE) {
		const char *label = prompt_label[ui->priv->in.prompt];
		int ll = (int)strlen(label);

		if (ll > ui->cols / 2)
			ll = ui->cols / 2;
		ui_put(y, 0, ll, ui_attr(ui, UC_KEYBAR_TEXT), label);
		ui_put(y, ll, ui->cols - ll, ui_attr(ui, UC_NORMAL), ui->priv->in.text);
		if (ui->priv->in.note[0]) {
			int nx = ll + (int)mbstowcs(NULL, ui->priv->in.text, 0) + 2;

			if (nx < ui->cols)
				ui_put(y, nx, ui->cols - nx, ui_attr(ui, UC_ALERT),
				       ui->priv->in.note);
		}
		return;
	}
	if (ui->priv->msg.text[0] && ui_now() < ui->priv->msg.until) {
		ui_put(y, 0, ui->cols,
		       ui_attr(ui, ui->priv->msg.err ? UC_STATUS_ERR : UC_STATUS_INFO),
		       ui->priv->msg.text);
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
