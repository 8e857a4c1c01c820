// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * screen.c - ui_run(): the one poll loop, the header, the status line, the
 * input line, the overlays (help, pickers) and the action handlers.
 *
 * Loop (single-threaded, no other timers):
 *
 *	draw if something changed
 *	poll(stdin, at most UI_DRAIN_MS, less when the next refresh is due)
 *	answer every key that is waiting
 *	session_drain(s, UI_DRAIN_PAGES)       bounded work, every pass
 *	every `delay`: session_tick(s), re-rank (unless paused, or held
 *	               while the user is moving through the list)
 *
 * Signal handlers only set flags (signals.h); the loop turns sig_winch into
 * a resize and leaves on sig_stop through the normal path.
 */
#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "brief.h"
#include "export.h"
#include "format.h"
#include "log.h"
#include "signals.h"
#include "tui.h"

#define UI_DRAIN_MS 50       /* longest sleep between two drains */
#define UI_DRAIN_PAGES 256   /* pages per drain: bounded work per pass */
#define UI_HOLD_SEC 2.0      /* no re-sort this long after a navigation key */
#define UI_STATUS_SEC 8.0    /* a message stays this long */
#define UI_CONFIRM_SEC 5.0   /* window for the second r */
#define UI_DEBOUNCE_SEC 0.12 /* typing in the filter re-ranks after this pause */

enum {
	R_REDRAW = 1 << 0,  /* draw again */
	R_RESORT = 1 << 1,  /* re-rank; a paused snapshot is only re-sorted */
	R_REFRESH = 1 << 2, /* re-rank from live data even when paused */
	R_QUIT = 1 << 3,
	R_NAV = 1 << 4,     /* the user moved: hold the order for a while */
	R_LAYOUT = 1 << 5,  /* screen areas changed */
	R_CLEAR = 1 << 6,   /* repaint every cell (Ctrl-L) */
	R_GONE = 1 << 7,    /* the terminal is gone */
};

#define UI_EMPTY_READS 200 /* readable but no key, this often in a row: hung up */

static volatile sig_atomic_t ui_curses_on;

double ui_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- colours and text ---------------------------------------------------- */

static attr_t ui_attrs[UC_MAX];

static void ui_colors_init(struct ui *ui)
{
	static const struct {
		short fg, bg;
		attr_t extra;
		attr_t mono;
	} spec[UC_MAX] = {
		[UC_NORMAL] = { -1, -1, 0, A_NORMAL },
		[UC_HEADER_LABEL] = { COLOR_CYAN, -1, 0, A_NORMAL },
		[UC_HEADER_VALUE] = { -1, -1, A_BOLD, A_BOLD },
		[UC_ALERT] = { COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		[UC_COLTITLE] = { COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE },
		[UC_SORTCOL] = { COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD | A_UNDERLINE },
		[UC_SELECTED] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE | A_BOLD },
		[UC_FRAME] = { COLOR_CYAN, -1, 0, A_NORMAL },
		[UC_FRAME_MOD] = { COLOR_YELLOW, -1, 0, A_NORMAL },
		[UC_STATUS_INFO] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
		[UC_STATUS_ERR] = { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
		[UC_KEYBAR_KEY] = { -1, -1, A_BOLD, A_BOLD },
		[UC_KEYBAR_TEXT] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
		[UC_PAUSED] = { COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_REVERSE | A_BOLD },
		[UC_MATCH] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
		[UC_DIM] = { -1, -1, A_DIM, A_DIM },
	};
	int i;

	ui->color = ui->color && has_colors() && start_color() == OK;
	if (ui->color)
		use_default_colors();
	for (i = 0; i < UC_MAX; i++) {
		if (!ui->color) {
			ui_attrs[i] = spec[i].mono;
			continue;
		}
		init_pair((short)(i + 1), spec[i].fg, spec[i].bg);
		ui_attrs[i] = COLOR_PAIR(i + 1) | spec[i].extra;
	}
}

attr_t ui_attr(const struct ui *ui, enum ui_color c)
{
	(void)ui;
	return ui_attrs[c];
}

/*
 * ui_put() - @text cut to @width columns (fmt_fit: never wrapped), padded
 * with blanks, at (@y, @x) in @attr. @text must already be sanitized: it
 * comes from the core's formatters or from fixed strings.
 */
/* the terminal's charset is not UTF-8: one '?' per non-ASCII character */
static bool ui_ascii_only;

static const char *ui_ascii(const char *text, char *buf, size_t size)
{
	size_t n = 0;

	for (; *text && n + 1 < size; text++) {
		unsigned char c = (unsigned char)*text;

		if (c < 0x80)
			buf[n++] = (char)c;
		else if ((c & 0xc0) != 0x80) /* a lead byte; continuation bytes go */
			buf[n++] = '?';
	}
	buf[n] = '\0';
	return buf;
}

void ui_put(int y, int x, int width, attr_t attr, const char *text)
{
	char buf[1024], ascii[1024];
	int used;

	if (width <= 0 || x >= COLS || y >= LINES)
		return;
	if (x + width > COLS)
		width = COLS - x;
	if (ui_ascii_only)
		text = ui_ascii(text, ascii, sizeof(ascii));
	used = fmt_fit(buf, sizeof(buf), text, width);
	attron(attr);
	mvaddstr(y, x, buf);
	if (used < width)
		hline(' ', width - used);
	attroff(attr);
}

void ui_status(struct ui *ui, bool err, const char *fmt, ...)
{
	char raw[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	fmt_sanitize(ui->status, sizeof(ui->status), raw, strlen(raw));
	ui->status_err = err;
	ui->status_until = ui_now() + UI_STATUS_SEC;
	ui->dirty = true;
}

static void ui_log_sink(void *ctx, enum log_level level, const char *msg)
{
	struct ui *ui = ctx;

	ui_status(ui, level <= LOG_LVL_WARN, "%s", msg);
}

/* ---- layout --------------------------------------------------------------- */

static int ui_header_lines(const struct ui *ui)
{
	bool map = ui->st.mode == SESSION_STACKMAP || ui->st.mode == SESSION_PASSIVE;

	return map ? 4 : 3;
}

static void ui_layout(struct ui *ui)
{
	int h;

	ui->lines = LINES;
	ui->cols = COLS;
	ui->too_small = ui->cols < UI_MIN_COLS || ui->lines < UI_MIN_LINES;
	ui->coltitle_y = ui_header_lines(ui);
	ui->list_y = ui->coltitle_y + 1;
	h = ui->lines - 1 - ui->list_y;
	ui->bd_h = 0;
	if (ui->breakdown)
		ui->bd_h = ui->lines >= 40 ? 9 : 6;
	if (h - ui->bd_h < 5)
		ui->bd_h = 0;
	ui->list_h = h - ui->bd_h;
	if (ui->list_h < 0)
		ui->list_h = 0;
	ui->bd_y = ui->list_y + ui->list_h;
	list_view_set_area(&ui->sv.lv, ui->list_y, ui->list_h);
	list_view_set_area(&ui->tv.lv, ui->list_y, ui->list_h);
	stack_view_layout(ui);
	ui->dirty = true;
}

static void ui_resize(struct ui *ui)
{
	struct winsize ws;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
	ui_layout(ui);
}

/* ---- header --------------------------------------------------------------- */

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

static const char *const rank_key_name[RANK_KEY_MAX] = {
	[RANK_DELTA] = "DELTA",
	[RANK_TOTAL] = "TOTAL",
	[RANK_DEPTH] = "DEPTH",
	[RANK_ID] = "ID",
};

static void ui_draw_header(struct ui *ui)
{
	struct uifmt_seg segs[16];
	char right[64], buf[64];
	int n, rx, y = 0;

	/* line 0: identity; the mode markers are right-aligned and never dropped */
	snprintf(right, sizeof(right), "%s%s", ui->paused ? " PAUSED " : "",
		 ui->delta ? " [DELTA] " : " [CUMULATIVE] ");
	rx = ui->cols - (int)strlen(right);
	move(0, 0);
	clrtoeol();
	ui_put(0, 0, 9, ui_attr(ui, UC_HEADER_VALUE), "stacktop");
	n = 0;
	seg_set(&segs[n++], "mode", session_mode_name(ui->st.mode));
	uifmt_delay(buf, sizeof(buf), ui->delay);
	seg_set(&segs[n++], "delay", buf);
	seg_set(&segs[n++], "events", session_traced(ui->s));
	seg_set(&segs[n++], "kernel", ui->st.kernel);
	ui_draw_segs(ui, 0, 9, rx - 1, segs, n);
	if (ui->paused) {
		ui_put(0, rx, 8, ui_attr(ui, UC_PAUSED), " PAUSED ");
		rx += 8;
	}
	ui_put(0, rx, ui->cols - rx, ui_attr(ui, UC_HEADER_VALUE),
	       ui->delta ? " [DELTA] " : " [CUMULATIVE] ");

	/* line 1: rates and losses */
	y = 1;
	move(y, 0);
	clrtoeol();
	n = uifmt_header_rates(&ui->st, ui->nstacks, segs, 16);
	ui_draw_segs(ui, y, 1, ui->cols, segs, n);

	/* line 2: the kernel map (stackmap and passive modes) */
	if (ui_header_lines(ui) == 4) {
		y = 2;
		move(y, 0);
		clrtoeol();
		n = uifmt_header_map(&ui->st, segs, 16);
		ui_draw_segs(ui, y, 1, ui->cols, segs, n);
	}

	/* last header line: view, sort, filters */
	y = ui->coltitle_y - 1;
	move(y, 0);
	clrtoeol();
	n = 0;
	seg_set(&segs[n++], "view", ui->view == UI_VIEW_TREE ? "tree" : "stacks");
	snprintf(buf, sizeof(buf), "%s %s", rank_key_name[ui->rank.key],
		 ui->rank.invert ? "asc" : "desc");
	seg_set(&segs[n++], "sort", buf);
	seg_set(&segs[n], "event", ui->rank.event >= 0 ?
		session_event(ui->s, (unsigned int)ui->rank.event) : "all");
	segs[n++].alert = ui->rank.event >= 0;
	if (ui->rank.pid >= 0) {
		snprintf(buf, sizeof(buf), "%d", ui->rank.pid);
		seg_set(&segs[n], "pid", buf);
		segs[n++].alert = true;
	}
	if (ui->comm[0]) {
		seg_set(&segs[n], "comm", ui->comm);
		segs[n++].alert = true;
	}
	if (ui->filter[0]) {
		seg_set(&segs[n], "filter", ui->filter);
		segs[n++].alert = true;
	}
	if (ui->search[0])
		seg_set(&segs[n++], "search", ui->search);
	if (ui->view == UI_VIEW_STACKS)
		snprintf(buf, sizeof(buf), "%zu of %zu", ui->sv.nranked, ui->sum.matched);
	else
		snprintf(buf, sizeof(buf), "%zu nodes", ui->tv.nnodes ? ui->tv.nnodes - 1 : 0);
	seg_set(&segs[n++], "shown", buf);
	if (!ui->paused && ui->last_nav && ui_now() - ui->last_nav < UI_HOLD_SEC)
		seg_set(&segs[n++], "order", "held");
	ui_draw_segs(ui, y, 1, ui->cols, segs, n);
}

/* ---- bottom line ------------------------------------------------------------ */

static const char *const prompt_label[] = {
	[PR_SEARCH] = "Search (Enter keeps, Esc cancels, F3/Down next): ",
	[PR_FILTER] = "Filter frames/comm, a|b for either (Enter keeps, Esc cancels): ",
	[PR_PID] = "Pid or comm (empty: all): ",
	[PR_DELAY] = "Refresh delay in seconds: ",
};

static void ui_draw_bottom(struct ui *ui)
{
	static const struct {
		const char *key, *text;
	} bar[] = {
		{ "F1", "Help" }, { "F3", "Search" }, { "F4", "Filter" }, { "F5", "Tree" },
		{ "F6", "SortBy" }, { "f", "Event" }, { "p", "Pid" }, { "z", "Delta" },
		{ "Z", "Pause" }, { "r", "Reset" }, { "P", "Save" }, { "F10", "Quit" },
	};
	int y = ui->lines - 1, x = 0;
	size_t i;

	move(y, 0);
	clrtoeol();
	if (ui->prompt != PR_NONE) {
		const char *label = prompt_label[ui->prompt];
		int ll = (int)strlen(label);

		if (ll > ui->cols / 2)
			ll = ui->cols / 2;
		ui_put(y, 0, ll, ui_attr(ui, UC_KEYBAR_TEXT), label);
		ui_put(y, ll, ui->cols - ll, ui_attr(ui, UC_NORMAL), ui->input);
		if (ui->prompt_note[0]) {
			int nx = ll + (int)mbstowcs(NULL, ui->input, 0) + 2;

			if (nx < ui->cols)
				ui_put(y, nx, ui->cols - nx, ui_attr(ui, UC_ALERT), ui->prompt_note);
		}
		return;
	}
	if (ui->status[0] && ui_now() < ui->status_until) {
		ui_put(y, 0, ui->cols, ui_attr(ui, ui->status_err ? UC_STATUS_ERR : UC_STATUS_INFO),
		       ui->status);
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

/* ---- help overlay ------------------------------------------------------------ */

static const char *const help_tail[] = {
	"",
	"Columns: # rank (+ folded, - expanded), ID kernel stack ids (- in stacks mode),",
	"DELTA hits in the last interval, TOTAL since start or reset, % of all shown hits,",
	"RATE/s, DEP frames, EVENT and COMM(PID) that hit the stack most, FUNCTION leaf frame.",
	"Header: lost/dropped/overrun are ring-buffer losses, total (+ last interval).",
	"The order is held for 2 s after a navigation key, so rows do not move under you.",
	"Esc closes dialogs and clears the search.",
};

static int help_nlines(void)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < ui_nkeys; i++)
		n += ui_keys[i].section ? (i ? 2 : 1) : 0;
	return n + (int)ui_nkeys + 2 + (int)(sizeof(help_tail) / sizeof(help_tail[0]));
}

/* line @row of the help text into @buf; @title set for section titles */
static void help_line(int row, char *buf, size_t size, bool *title)
{
	unsigned int i;
	int n = 0;

	*title = false;
	for (i = 0; i < ui_nkeys; i++) {
		if (ui_keys[i].section) {
			if (i && n++ == row) {
				buf[0] = '\0';
				return;
			}
			if (n++ == row) {
				snprintf(buf, size, "%s", ui_keys[i].section);
				*title = true;
				return;
			}
		}
		if (n++ == row) {
			snprintf(buf, size, "  %-14s %s", ui_keys[i].names, ui_keys[i].help);
			return;
		}
	}
	if (n++ == row) {
		buf[0] = '\0';
		return;
	}
	if (n++ == row) {
		snprintf(buf, size, "%s", keys_mouse_help);
		return;
	}
	row -= n;
	if (row >= 0 && row < (int)(sizeof(help_tail) / sizeof(help_tail[0])))
		snprintf(buf, size, "%s", help_tail[row]);
	else
		buf[0] = '\0';
}

static void help_draw_row(struct list_view *lv, int row, int y, bool selected)
{
	struct help_view *hv = container_of(lv, struct help_view, lv);
	char buf[512];
	bool title;

	(void)selected;
	help_line(row, buf, sizeof(buf), &title);
	ui_put(y, 1, hv->ui->cols - 2, title ? ui_attr(hv->ui, UC_HEADER_VALUE) :
	       ui_attr(hv->ui, UC_NORMAL), buf);
}

static const struct list_view_ops help_ops = {
	.draw_row = help_draw_row,
};

static void help_open(struct ui *ui)
{
	ui->overlay = OV_HELP;
	list_view_init(&ui->help.lv, &help_ops);
	ui->help.ui = ui;
	list_view_set_area(&ui->help.lv, 1, ui->lines - 2);
	list_view_set_rows(&ui->help.lv, help_nlines());
	ui->help.lv.sel = 0;
}

static void help_draw(struct ui *ui)
{
	struct list_view *lv = &ui->help.lv;
	char buf[160];

	list_view_set_area(lv, 1, ui->lines - 2);
	ui_put(0, 0, ui->cols, ui_attr(ui, UC_COLTITLE),
	       " stacktop " STACKTOP_VERSION " help - keys (one table drives this screen, -h and the man page)");
	list_view_draw(lv);
	snprintf(buf, sizeof(buf), " lines %d-%d of %d   Up/Down/PgUp/PgDn scroll, q/Esc/h closes",
		 lv->top + 1, lv->top + lv->height < lv->nr ? lv->top + lv->height : lv->nr, lv->nr);
	ui_put(ui->lines - 1, 0, ui->cols, ui_attr(ui, UC_KEYBAR_TEXT), buf);
}

static void help_key(struct ui *ui, int key, bool fkey)
{
	struct list_view *lv = &ui->help.lv;
	enum ui_action act = keys_lookup(key, fkey);

	switch (act) {
	case ACT_UP:
		list_view_scroll(lv, -1);
		return;
	case ACT_DOWN:
		list_view_scroll(lv, 1);
		return;
	case ACT_PGUP:
		list_view_scroll(lv, -(lv->height - 1));
		return;
	case ACT_PGDN:
	case ACT_PAUSE:
		list_view_scroll(lv, lv->height - 1);
		return;
	case ACT_HOME:
		list_view_scroll(lv, -lv->nr);
		return;
	case ACT_END:
		list_view_scroll(lv, lv->nr);
		return;
	default:
		ui->overlay = OV_NONE;
		return;
	}
}

/* ---- pickers (event, sort column) --------------------------------------------- */

static const char *const sort_help[RANK_KEY_MAX] = {
	[RANK_DELTA] = "DELTA   hits in the last interval",
	[RANK_TOTAL] = "TOTAL   hits since start or reset",
	[RANK_DEPTH] = "DEPTH   number of frames",
	[RANK_ID] = "ID      lowest kernel stack id",
};

static const char *picker_item(struct ui *ui, int item)
{
	if (ui->pk.kind == PK_SORT)
		return sort_help[item];
	if (item < 0)
		return "(all events)";
	return session_event(ui->s, (unsigned int)item);
}

static void picker_fill(struct ui *ui)
{
	struct picker *pk = &ui->pk;
	struct uifmt_terms terms;
	int i, n;

	uifmt_terms_parse(pk->query, &terms);
	pk->nitems = 0;
	if (pk->kind == PK_SORT) {
		for (i = 0; i < RANK_KEY_MAX; i++)
			if (!terms.n || uifmt_terms_match(&terms, sort_help[i]))
				pk->items[pk->nitems++] = i;
	} else {
		if (!terms.n)
			pk->items[pk->nitems++] = -1;
		n = (int)session_nevents(ui->s);
		for (i = 0; i < n && pk->nitems < UI_PICK_MAX; i++)
			if (!terms.n || uifmt_terms_match(&terms, session_event(ui->s, (unsigned int)i)))
				pk->items[pk->nitems++] = i;
	}
	list_view_set_rows(&pk->lv, pk->nitems);
}

static void picker_draw_row(struct list_view *lv, int row, int y, bool selected)
{
	struct picker *pk = container_of(lv, struct picker, lv);
	struct ui *ui = pk->ui;
	int w = ui->cols > 70 ? 60 : ui->cols - 10, x = (ui->cols - w) / 2;
	int item = pk->items[row];
	bool current = pk->kind == PK_SORT ? item == (int)ui->rank.key : item == ui->rank.event;
	char buf[256];

	snprintf(buf, sizeof(buf), " %s %s", current ? "*" : " ", picker_item(ui, item));
	ui_put(y, x, w, selected ? ui_attr(ui, UC_SELECTED) : ui_attr(ui, UC_NORMAL), buf);
}

static const struct list_view_ops picker_ops = {
	.draw_row = picker_draw_row,
};

static void picker_open(struct ui *ui, enum ui_picker kind)
{
	struct picker *pk = &ui->pk;
	int i;

	ui->overlay = OV_PICKER;
	list_view_init(&pk->lv, &picker_ops);
	pk->ui = ui;
	pk->kind = kind;
	pk->query[0] = '\0';
	picker_fill(ui);
	for (i = 0; i < pk->nitems; i++)
		if ((kind == PK_SORT && pk->items[i] == (int)ui->rank.key) ||
		    (kind == PK_EVENT && pk->items[i] == ui->rank.event))
			pk->lv.sel = i;
}

static void picker_draw(struct ui *ui)
{
	struct picker *pk = &ui->pk;
	int w = ui->cols > 70 ? 60 : ui->cols - 10, x = (ui->cols - w) / 2;
	int h = ui->lines - 8, y = 3, i;
	char buf[256];

	if (h > pk->nitems + 1)
		h = pk->nitems + 1;
	if (h < 2)
		h = 2;
	snprintf(buf, sizeof(buf), " %s  (type to narrow, Enter picks, Esc cancels)",
		 pk->kind == PK_SORT ? "Sort by" : "Filter by event");
	ui_put(y, x, w, ui_attr(ui, UC_COLTITLE), buf);
	snprintf(buf, sizeof(buf), " > %s", pk->query);
	ui_put(y + 1, x, w, ui_attr(ui, UC_HEADER_VALUE), buf);
	list_view_set_area(&pk->lv, y + 2, h);
	for (i = 0; i < h; i++)
		ui_put(y + 2 + i, x, w, ui_attr(ui, UC_NORMAL), "");
	if (!pk->nitems)
		ui_put(y + 2, x, w, ui_attr(ui, UC_ALERT), " nothing matches");
	for (i = 0; i < h && pk->lv.top + i < pk->nitems; i++)
		picker_draw_row(&pk->lv, pk->lv.top + i, y + 2 + i, pk->lv.top + i == pk->lv.sel);
	ui_put(y + 2 + h, x, w, ui_attr(ui, UC_COLTITLE), "");
}

static int ui_refresh_now(struct ui *ui);
static int ui_apply_filters(struct ui *ui);

static int picker_pick(struct ui *ui)
{
	struct picker *pk = &ui->pk;
	int item;

	ui->overlay = OV_NONE;
	if (pk->lv.sel < 0 || pk->lv.sel >= pk->nitems) {
		ui_status(ui, true, "nothing picked: no entry matches '%s'", pk->query);
		return R_REDRAW;
	}
	item = pk->items[pk->lv.sel];
	if (pk->kind == PK_SORT) {
		ui->rank.key = (enum rank_key)item;
		ui_status(ui, false, "sorted by %s", rank_key_name[item]);
		return R_RESORT;
	}
	ui->rank.event = item;
	ui->go_home = true;
	if (item < 0)
		ui_status(ui, false, "event filter off");
	else
		ui_status(ui, false, "only event %s", session_event(ui->s, (unsigned int)item));
	return R_REFRESH;
}

/* ---- text input ------------------------------------------------------------------ */

static void text_append(char *buf, size_t size, wint_t wc)
{
	char mb[MB_LEN_MAX + 1];
	mbstate_t ps;
	size_t len = strlen(buf), n;

	memset(&ps, 0, sizeof(ps));
	n = wcrtomb(mb, (wchar_t)wc, &ps);
	if (n == (size_t)-1 || len + n + 1 > size)
		return;
	memcpy(buf + len, mb, n);
	buf[len + n] = '\0';
}

static void text_backspace(char *buf)
{
	size_t len = strlen(buf);

	/* drop UTF-8 continuation bytes, then the lead byte */
	while (len && ((unsigned char)buf[len - 1] & 0xc0) == 0x80)
		len--;
	if (len)
		len--;
	buf[len] = '\0';
}

static bool key_is_backspace(int key, bool fkey)
{
	return (fkey && key == KEY_BACKSPACE) || (!fkey && (key == 127 || key == 8));
}

static bool key_is_enter(int key, bool fkey)
{
	return (fkey && key == KEY_ENTER) || (!fkey && (key == '\n' || key == '\r'));
}

static int picker_key(struct ui *ui, int key, bool fkey)
{
	struct picker *pk = &ui->pk;

	if (!fkey && key == 27) {
		ui->overlay = OV_NONE;
		return R_REDRAW;
	}
	if (key_is_enter(key, fkey))
		return picker_pick(ui);
	if (key_is_backspace(key, fkey)) {
		text_backspace(pk->query);
		picker_fill(ui);
		list_view_select(&pk->lv, 0);
		return R_REDRAW;
	}
	if (fkey) {
		enum ui_action act = keys_lookup(key, fkey);

		if (act == ACT_QUIT) {
			ui->overlay = OV_NONE;
			return R_REDRAW;
		}
		list_view_action(&pk->lv, act);
		return R_REDRAW;
	}
	if (key >= 32 && key != 127) {
		text_append(pk->query, sizeof(pk->query), (wint_t)key);
		picker_fill(ui);
		list_view_select(&pk->lv, 0);
	}
	return R_REDRAW;
}

static void prompt_open(struct ui *ui, enum ui_prompt p, const char *initial)
{
	ui->prompt = p;
	ui->prompt_note[0] = '\0';
	snprintf(ui->input, sizeof(ui->input), "%s", initial);
	snprintf(ui->input_saved, sizeof(ui->input_saved), "%s", initial);
	/* the old value is shown; typing replaces it (Backspace edits it) */
	ui->prompt_fresh = initial[0] != '\0';
}

static int ui_search(struct ui *ui, int dir, bool include_current)
{
	bool found;

	if (!textmatch_active(&ui->smatch))
		return R_REDRAW;
	if (ui->view == UI_VIEW_TREE)
		found = tree_view_search(ui, dir, include_current);
	else
		found = stack_view_search(ui, dir, include_current);
	if (!found)
		ui_status(ui, true, "search: '%s' not found", ui->search);
	snprintf(ui->prompt_note, sizeof(ui->prompt_note), "%s", found ? "" : "[not found]");
	return R_REDRAW | R_NAV;
}

static int prompt_changed(struct ui *ui)
{
	switch (ui->prompt) {
	case PR_SEARCH:
		snprintf(ui->search, sizeof(ui->search), "%s", ui->input);
		ui->prompt_note[0] = '\0';
		if (!textmatch_set(&ui->smatch, ui->search))
			return R_REDRAW;
		return ui_search(ui, 1, true);
	case PR_FILTER:
		snprintf(ui->filter, sizeof(ui->filter), "%s", ui->input);
		textmatch_set(&ui->fmatch, ui->filter);
		ui_apply_filters(ui);
		return R_REDRAW;
	default:
		return R_REDRAW;
	}
}

static int prompt_done(struct ui *ui, bool accept)
{
	enum ui_prompt p = ui->prompt;
	int pid, err;
	double d;

	ui->prompt = PR_NONE;
	curs_set(0);
	if (!accept) {
		/* Esc: back to what was there before the prompt opened */
		snprintf(ui->input, sizeof(ui->input), "%s", ui->input_saved);
		if (p == PR_SEARCH || p == PR_FILTER) {
			ui->prompt = p;
			prompt_changed(ui);
			ui->prompt = PR_NONE;
		}
		return R_REDRAW | (p == PR_FILTER ? R_REFRESH : 0);
	}
	switch (p) {
	case PR_SEARCH:
		if (ui->search[0] && ui->prompt_note[0])
			ui_status(ui, true, "search: '%s' not found", ui->search);
		else if (ui->search[0])
			ui_status(ui, false, "search '%s': n next, N previous", ui->search);
		return R_REDRAW;
	case PR_FILTER:
		if (ui->filter[0])
			ui_status(ui, false, "filter '%s': %zu stacks match", ui->filter,
				  ui->sum.matched);
		else
			ui_status(ui, false, "filter off");
		return R_REFRESH;
	case PR_PID:
		ui->comm[0] = '\0';
		ui->rank.pid = -1;
		if (uifmt_parse_pid(ui->input, &pid)) {
			ui->rank.pid = pid;
			ui_status(ui, false, "only pid %d (%s)", pid, session_comm(ui->s, pid));
		} else if (ui->input[0]) {
			snprintf(ui->comm, sizeof(ui->comm), "%s", ui->input);
			ui_status(ui, false, "only hits of comms containing '%s'", ui->comm);
		} else {
			ui_status(ui, false, "pid/comm filter off");
		}
		textmatch_set(&ui->cmatch, ui->comm);
		ui_apply_filters(ui);
		return R_REFRESH;
	case PR_DELAY:
		err = uifmt_parse_delay(ui->input, &d);
		if (err == -ERANGE) {
			ui_status(ui, true, "delay '%s' out of range (0.1 to 3600 s)", ui->input);
		} else if (err) {
			ui_status(ui, true, "delay '%s' is not a number of seconds", ui->input);
		} else {
			char buf[32];

			ui->delay = d;
			ui->next_tick = ui_now() + d;
			uifmt_delay(buf, sizeof(buf), d);
			ui_status(ui, false, "refresh every %s", buf);
		}
		return R_REDRAW;
	default:
		return R_REDRAW;
	}
}

static int prompt_key(struct ui *ui, int key, bool fkey)
{
	if (!fkey && key == 27)
		return prompt_done(ui, false);
	if (key_is_enter(key, fkey))
		return prompt_done(ui, true);
	if (key_is_backspace(key, fkey)) {
		ui->prompt_fresh = false;
		text_backspace(ui->input);
		return prompt_changed(ui);
	}
	if (!fkey && key == 0x15) { /* Ctrl-U */
		ui->input[0] = '\0';
		return prompt_changed(ui);
	}
	if (fkey) {
		if (ui->prompt == PR_SEARCH && (key == KEY_F(3) || key == KEY_DOWN))
			return ui_search(ui, 1, false);
		if (ui->prompt == PR_SEARCH && key == KEY_UP)
			return ui_search(ui, -1, false);
		return R_REDRAW;
	}
	if (key >= 32 && key != 127) {
		if (ui->prompt_fresh)
			ui->input[0] = '\0';
		ui->prompt_fresh = false;
		text_append(ui->input, sizeof(ui->input), (wint_t)key);
		return prompt_changed(ui);
	}
	return R_REDRAW;
}

/* ---- data ------------------------------------------------------------------------ */

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

static int ui_apply_filters(struct ui *ui)
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

static void ui_forget_stacks(struct ui *ui)
{
	stack_view_forget(ui);
	tree_view_forget(ui);
	textmatch_forget_stacks(&ui->fmatch);
	textmatch_forget_stacks(&ui->cmatch);
	textmatch_forget_stacks(&ui->smatch);
	hmap_clear(&ui->skips);
}

/* the core cleared its table (reset, new generation): drop every stack pointer */
static bool ui_check_generation(struct ui *ui)
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

static void ui_rank(struct ui *ui, bool live)
{
	symcache_sync(ui->syms);
	ui->nstacks = stack_table_count(ui->t);
	stack_view_layout(ui); /* the EVENT column depends on the events seen */
	if (ui->view == UI_VIEW_TREE && live)
		tree_view_build(ui);
	if (ui->view == UI_VIEW_STACKS || live)
		stack_view_rank(ui, live);
	if (ui->go_home && live) {
		ui->go_home = false;
		list_view_select(&ui->sv.lv, 0);
		list_view_select(&ui->tv.lv, 0);
		ui->sv.lv.top = ui->tv.lv.top = 0;
	}
	ui->last_rank = ui_now();
	ui->dirty = true;
}

static int ui_refresh_now(struct ui *ui)
{
	if (!ui->paused)
		ui->st = *session_stats(ui->s);
	ui_rank(ui, true);
	return R_REDRAW;
}

static bool ui_holding(const struct ui *ui, double now)
{
	return ui->last_nav && now - ui->last_nav < UI_HOLD_SEC;
}

static void ui_tick(struct ui *ui, double now)
{
	int err = session_tick(ui->s);
	static int last_err;

	if (err && err != last_err)
		ui_status(ui, true, "refresh: %s", strerror(-err));
	last_err = err;
	/* comms are learned and change (exec): match them afresh each interval */
	textmatch_forget_pids(&ui->fmatch);
	textmatch_forget_pids(&ui->cmatch);
	textmatch_forget_pids(&ui->smatch);
	if (ui_check_generation(ui))
		ui->pending = true;
	if (ui->paused) {
		ui->dirty = true;
		if (ui->pending) {
			/* the table was cleared under a frozen view: it cannot stay */
			ui_rank(ui, true);
			ui->pending = false;
		}
		return;
	}
	ui->st = *session_stats(ui->s);
	if (ui->coltitle_y != ui_header_lines(ui))
		ui_layout(ui);
	if (ui_holding(ui, now)) {
		ui->pending = true;
		ui->dirty = true;
		return;
	}
	ui_rank(ui, true);
	ui->pending = false;
}

/* ---- actions ------------------------------------------------------------------------ */

static int act_quit(struct ui *ui)
{
	(void)ui;
	return R_QUIT;
}

static int act_help(struct ui *ui)
{
	help_open(ui);
	return R_REDRAW;
}

static int act_move(struct ui *ui, enum ui_action act)
{
	if (ui->view == UI_VIEW_TREE)
		tree_view_action(ui, act);
	else
		stack_view_action(ui, act);
	return R_REDRAW | R_NAV;
}

static int act_breakdown(struct ui *ui)
{
	ui->breakdown = !ui->breakdown;
	return R_LAYOUT;
}

static int act_tree(struct ui *ui)
{
	ui->view = ui->view == UI_VIEW_TREE ? UI_VIEW_STACKS : UI_VIEW_TREE;
	if (ui->view == UI_VIEW_TREE)
		ui_status(ui, false,
			  "caller tree: Enter/Right expands a node (and its call chain), Left collapses, t goes back");
	return R_LAYOUT | R_REFRESH;
}

static int act_search(struct ui *ui)
{
	prompt_open(ui, PR_SEARCH, ui->search);
	return R_REDRAW;
}

static int act_search_next(struct ui *ui, int dir)
{
	if (!textmatch_active(&ui->smatch)) {
		ui_status(ui, true, "no search yet: press / first");
		return R_REDRAW;
	}
	return ui_search(ui, dir, false);
}

static int act_filter(struct ui *ui)
{
	prompt_open(ui, PR_FILTER, ui->filter);
	return R_REDRAW;
}

static int act_pid(struct ui *ui)
{
	char buf[UI_TEXT];

	if (ui->rank.pid >= 0)
		snprintf(buf, sizeof(buf), "%d", ui->rank.pid);
	else
		snprintf(buf, sizeof(buf), "%s", ui->comm);
	prompt_open(ui, PR_PID, buf);
	return R_REDRAW;
}

static int act_clear(struct ui *ui)
{
	ui->filter[0] = ui->comm[0] = ui->search[0] = '\0';
	textmatch_set(&ui->fmatch, "");
	textmatch_set(&ui->cmatch, "");
	textmatch_set(&ui->smatch, "");
	ui->rank.event = -1;
	ui->rank.pid = -1;
	ui_apply_filters(ui);
	ui_status(ui, false, "all filters and the search cleared");
	return R_REFRESH;
}

static int act_sort(struct ui *ui, int dir)
{
	ui->rank.key = (enum rank_key)(((int)ui->rank.key + dir + RANK_KEY_MAX) % RANK_KEY_MAX);
	ui_status(ui, false, "sorted by %s", rank_key_name[ui->rank.key]);
	return R_RESORT;
}

static int act_invert(struct ui *ui)
{
	ui->rank.invert = !ui->rank.invert;
	ui_status(ui, false, "sort order %s", ui->rank.invert ? "ascending" : "descending");
	return R_RESORT;
}

static int act_delta(struct ui *ui)
{
	ui->delta = !ui->delta;
	if (ui->delta && ui->rank.key == RANK_TOTAL)
		ui->rank.key = RANK_DELTA;
	else if (!ui->delta && ui->rank.key == RANK_DELTA)
		ui->rank.key = RANK_TOTAL;
	ui_status(ui, false, ui->delta ? "delta: counts of the last interval" :
		  "cumulative: counts since start or reset");
	return ui->view == UI_VIEW_TREE ? R_REFRESH : R_RESORT;
}

static int act_pause(struct ui *ui)
{
	ui->paused = !ui->paused;
	if (ui->paused) {
		ui_status(ui, false, "PAUSED: the view is frozen, collection goes on (Z or Space resumes)");
		return R_REDRAW;
	}
	ui_status(ui, false, "resumed");
	return R_REFRESH;
}

static int act_delay(struct ui *ui)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%g", ui->delay);
	prompt_open(ui, PR_DELAY, buf);
	return R_REDRAW;
}

static int act_redraw(struct ui *ui)
{
	(void)ui;
	return R_CLEAR | R_REFRESH;
}

static int act_reset(struct ui *ui)
{
	bool map = ui->st.mode == SESSION_STACKMAP || ui->st.mode == SESSION_PASSIVE;
	char msg[256];
	int err;

	if (!ui->confirm_reset || ui_now() > ui->confirm_until) {
		ui->confirm_reset = true;
		ui->confirm_until = ui_now() + UI_CONFIRM_SEC;
		ui_status(ui, true, map ?
			  "press r again to reset the kernel stack map and all counts (other key: cancel)" :
			  "press r again to clear all counts (other key: cancel)");
		return R_REDRAW;
	}
	ui->confirm_reset = false;
	err = session_reset(ui->s);
	uifmt_reset_result(msg, sizeof(msg), err, map);
	ui_status(ui, err != 0, "%s", msg);
	ui_check_generation(ui);
	if (!err) {
		/* whatever the generation says, every stack pointer is gone */
		ui_forget_stacks(ui);
		ui->st = *session_stats(ui->s);
	}
	return R_REFRESH;
}

static int act_stackmap(struct ui *ui)
{
	bool on = !session_stats(ui->s)->stackmap_on;
	char msg[256];
	int err;

	err = session_set_stackmap(ui->s, on);
	uifmt_stackmap_result(msg, sizeof(msg), err, on);
	ui_status(ui, err != 0, "%s", msg);
	if (!ui->paused)
		ui->st = *session_stats(ui->s);
	return R_REDRAW;
}

static int act_save(struct ui *ui)
{
	char name[128];
	FILE *f = NULL;
	int seq, n, err = 0;

	for (seq = 0; seq < 100; seq++) {
		uifmt_folded_name(name, sizeof(name), time(NULL), seq);
		f = export_create_file(name);
		if (f || errno != EEXIST)
			break;
	}
	if (!f) {
		ui_status(ui, true, "cannot create %s: %s", name, strerror(errno));
		return R_REDRAW;
	}
	n = export_folded(f, ui->s, &ui->rank, ui->delta);
	if (fclose(f) && n >= 0)
		n = -errno;
	if (n < 0) {
		err = -n;
		ui_status(ui, true, "writing %s failed: %s", name, strerror(err));
	} else {
		ui_status(ui, false, "wrote %d folded stacks (%s, current filters) to ./%s", n,
			  ui->delta ? "last interval" : "cumulative", name);
	}
	return R_REDRAW;
}

static int ui_dispatch(struct ui *ui, enum ui_action act)
{
	if (act != ACT_RESET)
		ui->confirm_reset = false;
	switch (act) {
	case ACT_QUIT:
		return act_quit(ui);
	case ACT_HELP:
		return act_help(ui);
	case ACT_UP:
	case ACT_DOWN:
	case ACT_PGUP:
	case ACT_PGDN:
	case ACT_HOME:
	case ACT_END:
	case ACT_TOGGLE:
	case ACT_EXPAND:
	case ACT_COLLAPSE:
	case ACT_EXPAND_ALL:
	case ACT_COLLAPSE_ALL:
		return act_move(ui, act);
	case ACT_BREAKDOWN:
		return act_breakdown(ui);
	case ACT_TREE:
		return act_tree(ui);
	case ACT_SEARCH:
		return act_search(ui);
	case ACT_SEARCH_NEXT:
		return act_search_next(ui, 1);
	case ACT_SEARCH_PREV:
		return act_search_next(ui, -1);
	case ACT_FILTER:
		return act_filter(ui);
	case ACT_EVENT:
		picker_open(ui, PK_EVENT);
		return R_REDRAW;
	case ACT_PID:
		return act_pid(ui);
	case ACT_CLEAR:
		return act_clear(ui);
	case ACT_SORT_PREV:
		return act_sort(ui, -1);
	case ACT_SORT_NEXT:
		return act_sort(ui, 1);
	case ACT_SORT_PICK:
		picker_open(ui, PK_SORT);
		return R_REDRAW;
	case ACT_INVERT:
		return act_invert(ui);
	case ACT_DELTA:
		return act_delta(ui);
	case ACT_PAUSE:
		return act_pause(ui);
	case ACT_DELAY:
		return act_delay(ui);
	case ACT_REDRAW:
		return act_redraw(ui);
	case ACT_RESET:
		return act_reset(ui);
	case ACT_STACKMAP:
		return act_stackmap(ui);
	case ACT_SAVE:
		return act_save(ui);
	case ACT_NONE:
	case ACT_MAX:
		break;
	}
	return 0;
}

/* ---- mouse ------------------------------------------------------------------------ */

static enum rank_key col_rank_key(struct ui *ui, int col, bool *ok)
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
	default:
		*ok = false;
		return ui->rank.key;
	}
}

static int ui_mouse(struct ui *ui)
{
	struct list_view *lv = ui->view == UI_VIEW_TREE ? &ui->tv.lv : &ui->sv.lv;
	MEVENT ev;
	int row;

	if (getmouse(&ev) != OK)
		return 0;
	if (ev.bstate & BUTTON4_PRESSED) {
		if (ui->overlay == OV_HELP)
			list_view_scroll(&ui->help.lv, -3);
		else if (ui->overlay == OV_PICKER)
			list_view_action(&ui->pk.lv, ACT_UP);
		else
			list_view_scroll(lv, -3);
		return R_REDRAW | R_NAV;
	}
#ifdef BUTTON5_PRESSED
	if (ev.bstate & BUTTON5_PRESSED) {
		if (ui->overlay == OV_HELP)
			list_view_scroll(&ui->help.lv, 3);
		else if (ui->overlay == OV_PICKER)
			list_view_action(&ui->pk.lv, ACT_DOWN);
		else
			list_view_scroll(lv, 3);
		return R_REDRAW | R_NAV;
	}
#endif
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
		return 0;
	if (ui->overlay == OV_HELP) {
		ui->overlay = OV_NONE;
		return R_REDRAW;
	}
	if (ui->overlay == OV_PICKER) {
		row = list_view_row_at(&ui->pk.lv, ev.y);
		if (row < 0) {
			ui->overlay = OV_NONE;
			return R_REDRAW;
		}
		list_view_select(&ui->pk.lv, row);
		return picker_pick(ui);
	}
	if (ui->prompt != PR_NONE)
		return 0;
	if (ev.y == ui->coltitle_y && ui->view == UI_VIEW_STACKS) {
		int col = stack_view_col_at(ui, ev.x);
		bool ok;
		enum rank_key key = col_rank_key(ui, col, &ok);

		if (!ok) {
			ui_status(ui, true, "this column cannot be sorted (sortable: DELTA, TOTAL, %%, RATE, DEP, ID)");
			return R_REDRAW;
		}
		if (key == ui->rank.key)
			ui->rank.invert = !ui->rank.invert;
		else
			ui->rank.key = key;
		ui_status(ui, false, "sorted by %s %s", rank_key_name[ui->rank.key],
			  ui->rank.invert ? "ascending" : "descending");
		return R_RESORT;
	}
	row = list_view_row_at(lv, ev.y);
	if (row < 0)
		return 0;
	list_view_select(lv, row);
	if (ev.bstate & BUTTON1_DOUBLE_CLICKED)
		return act_move(ui, ACT_TOGGLE);
	return R_REDRAW | R_NAV;
}

/* ---- keys ------------------------------------------------------------------------ */

static int ui_key(struct ui *ui, int key, bool fkey)
{
	enum ui_action act;

	if (fkey && key == KEY_RESIZE)
		return R_LAYOUT;
	if (fkey && key == KEY_MOUSE && ui->too_small) {
		MEVENT ev;

		getmouse(&ev); /* nothing to click on: consume it */
		return 0;
	}
	if (fkey && key == KEY_MOUSE)
		return ui_mouse(ui);
	if (ui->prompt != PR_NONE)
		return prompt_key(ui, key, fkey);
	if (ui->overlay == OV_PICKER)
		return picker_key(ui, key, fkey);
	if (ui->overlay == OV_HELP) {
		help_key(ui, key, fkey);
		return R_REDRAW;
	}
	if (!fkey && key == 27) {
		if (ui->confirm_reset) {
			ui->confirm_reset = false;
			ui_status(ui, false, "reset cancelled");
		} else if (ui->search[0]) {
			ui->search[0] = '\0';
			textmatch_set(&ui->smatch, "");
			ui_status(ui, false, "search cleared");
		}
		return R_REDRAW;
	}
	act = keys_lookup(key, fkey);
	if (act == ACT_NONE) {
		ui->confirm_reset = false;
		if (ui->too_small)
			return 0;
		if (!fkey && key > 32 && key < 127)
			ui_status(ui, true, "key '%c' does nothing: h shows the keys", key);
		else
			ui_status(ui, true, "that key does nothing: h shows the keys");
		return R_REDRAW;
	}
	if (ui->too_small && act != ACT_QUIT && act != ACT_REDRAW)
		return 0;
	return ui_dispatch(ui, act);
}

/* ---- drawing ------------------------------------------------------------------------ */

static void ui_draw_too_small(struct ui *ui)
{
	char buf[160];
	int y = ui->lines / 2;

	erase();
	snprintf(buf, sizeof(buf), "terminal too small: %dx%d, stacktop needs at least %dx%d",
		 ui->cols, ui->lines, UI_MIN_COLS, UI_MIN_LINES);
	ui_put(y > 0 ? y - 1 : 0, 0, ui->cols, ui_attr(ui, UC_ALERT), buf);
	ui_put(y, 0, ui->cols, ui_attr(ui, UC_NORMAL), "enlarge the window, or press q to quit");
}

static void ui_draw(struct ui *ui)
{
	if (ui->too_small) {
		ui_draw_too_small(ui);
		refresh();
		return;
	}
	if (ui->overlay == OV_HELP) {
		erase();
		help_draw(ui);
		refresh();
		return;
	}
	ui_draw_header(ui);
	if (ui->view == UI_VIEW_TREE) {
		tree_view_draw_titles(ui, ui->coltitle_y);
		list_view_draw(&ui->tv.lv);
		if (!ui->tv.nrows)
			stack_view_draw_empty(ui);
		stack_view_draw_breakdown(ui);
	} else {
		stack_view_draw_titles(ui, ui->coltitle_y);
		list_view_draw(&ui->sv.lv);
		if (!ui->sv.nrows)
			stack_view_draw_empty(ui);
		stack_view_draw_breakdown(ui);
	}
	ui_draw_bottom(ui);
	if (ui->overlay == OV_PICKER)
		picker_draw(ui);
	if (ui->prompt != PR_NONE) {
		const char *label = prompt_label[ui->prompt];
		int ll = (int)strlen(label), x;

		if (ll > ui->cols / 2)
			ll = ui->cols / 2;
		x = ll + (int)mbstowcs(NULL, ui->input, 0);
		if (x >= ui->cols)
			x = ui->cols - 1;
		move(ui->lines - 1, x);
		curs_set(1);
	} else {
		curs_set(0);
	}
	refresh();
}

/* ---- the loop ------------------------------------------------------------------------ */

static void ui_apply(struct ui *ui, int r, double now)
{
	if (r & R_NAV)
		ui->last_nav = now;
	if (r & R_LAYOUT)
		ui_layout(ui);
	if (r & R_CLEAR)
		clearok(curscr, TRUE);
	if (r & R_REFRESH) {
		ui_refresh_now(ui);
		ui->pending = false;
	} else if (r & R_RESORT) {
		ui_rank(ui, !ui->paused);
	}
	if (r)
		ui->dirty = true;
}

static int ui_read_keys(struct ui *ui)
{
	int flags = 0, n = 0;
	wint_t wc;
	int rc;

	while (n++ < 256 && (rc = get_wch(&wc)) != ERR) {
		int r = ui_key(ui, (int)wc, rc == KEY_CODE_YES);

		ui_apply(ui, r & ~R_QUIT, ui_now());
		flags |= r;
		if (r & R_QUIT)
			break;
	}
	/*
	 * Readable but no key: a hung-up tty whose POLLHUP did not come
	 * (or half an escape sequence, hence many times in a row)
	 */
	if (n == 1) {
		if (++ui->empty_reads > UI_EMPTY_READS)
			flags |= R_GONE;
	} else {
		ui->empty_reads = 0;
	}
	return flags;
}

#define UI_POLL_MAX 257 /* stdin + up to 256 CPUs */

static void ui_loop(struct ui *ui)
{
	bool more = false;
	int drain_err = 0;

	ui->next_tick = ui_now() + (ui->delay < 0.5 ? ui->delay : 0.5);
	while (!sig_stop) {
		/* stdin, and the ring buffers: they wake us when half full */
		struct pollfd pfds[UI_POLL_MAX];
		struct pollfd *pfd = &pfds[0];
		double now = ui_now();
		int timeout, r, nfds;

		if (sig_winch) {
			sig_winch = 0;
			ui_resize(ui);
		}
		if (ui->dirty) {
			ui_draw(ui);
			ui->dirty = false;
		}
		timeout = (int)((ui->next_tick - now) * 1000);
		if (ui->rerank_at && (int)((ui->rerank_at - now) * 1000) < timeout)
			timeout = (int)((ui->rerank_at - now) * 1000);
		if (timeout > UI_DRAIN_MS)
			timeout = UI_DRAIN_MS;
		if (timeout < 0 || more)
			timeout = 0;
		pfd->fd = STDIN_FILENO;
		pfd->events = POLLIN;
		pfd->revents = 0;
		nfds = 1 + session_pollfds(ui->s, pfds + 1, UI_POLL_MAX - 1);
		r = poll(pfds, (nfds_t)nfds, timeout);
		/* a hung-up tty reports POLLIN too: check the hang-up first */
		if (r > 0 && (pfd->revents & (POLLHUP | POLLERR | POLLNVAL)))
			break; /* the terminal went away */
		if (r > 0 && (pfd->revents & POLLIN)) {
			int kr = ui_read_keys(ui);

			if (kr & (R_QUIT | R_GONE))
				break;
		}
		r = session_drain(ui->s, UI_DRAIN_PAGES);
		more = r >= UI_DRAIN_PAGES;
		if (r < 0 && r != drain_err)
			ui_status(ui, true, "reading the ring buffer: %s", strerror(-r));
		drain_err = r < 0 ? r : 0;
		/* a reset by another program: the core says so in the status line */
		if (ui_check_generation(ui))
			ui_rank(ui, true);
		now = ui_now();
		if (ui->rerank_at && now >= ui->rerank_at) {
			ui->rerank_at = 0;
			ui_rank(ui, true);
		}
		if (now >= ui->next_tick) {
			ui_tick(ui, now);
			ui->next_tick += ui->delay;
			if (ui->next_tick < now)
				ui->next_tick = now + ui->delay;
		} else if (ui->pending && !ui->paused && !ui_holding(ui, now)) {
			ui_rank(ui, true);
			ui->pending = false;
		}
		/* the "order held" marker and the status line expire on their own */
		if ((ui->status[0] && now >= ui->status_until && now - ui->status_until < 0.2) ||
		    (ui->last_nav && now - ui->last_nav >= UI_HOLD_SEC &&
		     now - ui->last_nav < UI_HOLD_SEC + 0.2))
			ui->dirty = true;
	}
}

static bool ui_env_nocolor(void)
{
	const char *v = getenv("NO_COLOR");

	return v && *v;
}

static void ui_free(struct ui *ui, struct symcache *syms)
{
	stack_view_done(ui);
	tree_view_done(ui);
	textmatch_done(&ui->fmatch);
	textmatch_done(&ui->cmatch);
	textmatch_done(&ui->smatch);
	symcache_done(syms);
	hmap_done(&ui->skips);
	free(ui);
}

int ui_run(struct session *s, const struct ui_opts *o)
{
	void (*prev_sink)(void *ctx, enum log_level level, const char *msg);
	void *prev_ctx;
	struct symcache syms;
	SCREEN *scr;
	struct ui *ui;
	const char *cs;

	ui = calloc(1, sizeof(*ui));
	if (!ui)
		return -ENOMEM;
	ui->s = s;
	ui->opts = *o;
	ui->t = session_table(s);
	ui->ks = session_ksym(s);
	ui->delay = o->delay >= 0.1 ? o->delay : (o->delay > 0 ? 0.1 : 1.0);
	ui->delta = !o->cumulative;
	ui->color = o->color && !ui_env_nocolor();
	ui->rank.key = o->sort >= 0 && o->sort < RANK_KEY_MAX ? (enum rank_key)o->sort : RANK_DELTA;
	ui->rank.event = o->event_filter;
	ui->rank.pid = -1;
	ui->rank.cpu = -1;
	ui->st = *session_stats(s);
	ui->generation = ui->st.generation;
	symcache_init(&syms, ui->ks);
	ui->syms = &syms;
	textmatch_init(&ui->fmatch);
	textmatch_init(&ui->cmatch);
	textmatch_init(&ui->smatch);
	hmap_init(&ui->skips);
	stack_view_init(ui);
	tree_view_init(ui);

	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	ui->utf8 = cs && !strcmp(cs, "UTF-8");
	ui_ascii_only = !ui->utf8;
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		ui_free(ui, &syms);
		return -ENOTTY;
	}
	ui_curses_on = 1;
	set_term(scr);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	ui_colors_init(ui);
	if (o->mouse) {
		mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
				  | BUTTON5_PRESSED
#endif
			  , NULL);
		mouseinterval(0);
	}
	prev_sink = log_get_sink(&prev_ctx);
	log_set_sink(ui_log_sink, ui);
	ui->breakdown = LINES >= 36;
	ui_layout(ui);
	ui_rank(ui, true);

	ui_loop(ui);

	log_set_sink(prev_sink, prev_ctx);
	if (o->mouse)
		mousemask(0, NULL);
	curs_set(1);
	endwin();
	ui_curses_on = 0;
	delscreen(scr);

	ui_free(ui, &syms);
	return 0;
}

void ui_emergency(void)
{
	if (!ui_curses_on)
		return;
	ui_curses_on = 0;
	endwin();
}
