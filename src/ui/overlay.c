// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * overlay.c - what is drawn over the lists and takes the keys while open:
 * the help, the pickers (event, sort column) and the input line (search,
 * filter, pid, delay).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/format.h"
#include "output/export.h"
#include "ui/draw.h"
#include "ui/header.h"
#include "ui/keys.h"
#include "ui/list_view.h"
#include "ui/overlay.h"
#include "ui/refresh.h"
#include "ui/save.h"
#include "ui/symcache.h"
#include "ui/screen_state.h"
#include "ui/tui.h"
#include "ui/uifmt.h"
#include "ui/views.h"

/* every word the screen shows (the man page's THE SCREEN says the same) */
static const char *const help_tail[] = {
	"",
	"The screen",
	"Counts are hits: one per event recorded with a stack, never time.",
	"\"total (+n)\": since start or reset, and what the last interval added.",
	"",
	"First line",
	"  mode        stacks, stackmap, passive or replay",
	"  delay       the refresh interval (d changes it)",
	"  events      the events traced      kernel   the kernel release",
	"  PAUSED      the view is frozen (Z, Space); collection goes on",
	"  [DELTA]     counts of the last interval; [CUMULATIVE]: since start (z)",
	"Second line",
	"  events/s    events recorded per second in the last interval",
	"  lost        events missing from the counts: overrun + dropped",
	"  dropped     events the kernel refused: the buffer was full",
	"  overrun     events overwritten before stacktop read them",
	"  stacks      distinct stacks      events   events since start or reset",
	"  cpu         CPU time stacktop itself used in the last interval",
	"  tracing OFF tracing is off in the buffer read: nothing new arrives",
	"Kernel map line (stackmap and passive modes)",
	"  stackmap    the kernel option on/off, and the map ABI v1..v4",
	"  entries     stacks in the kernel map / its capacity",
	"  successes   stacks stored or found in the map (v1: hits)",
	"  drops       stacks the full map could not take",
	"  success     successes in % of attempts (v1: hit rate)",
	"  fallbacks   full kernel_stack records (map full, stack too deep)",
	"  unresolved  ids read that the map did not contain",
	"  gen         the map generation: one more at every reset",
	"Pool line (stackmap, passive): in the alert colour when the map is",
	"full, or full within 5 minutes at a rate measured over 10 s",
	"  pool        how full: % and entries/capacity; FULL since when, how long",
	"  growth      new stacks per second      full in  when, at that rate",
	"  fallback    events falling back to full stacks: now, since start",
	"  fix         r empties the map; boot ftrace_stackmap.bits=N: 2^N entries",
	"  saves       what the map saved before it filled, and since",
	"  no room     distinct stacks the full map had no room for",
	"View line",
	"  view        stacks (the ranked list) or tree (t)",
	"  sort        the sort column, desc or asc",
	"  event pid comm filter search   what the view is limited to (f p \\ /)",
	"              cpu idle: a snapshot's own filters (-r); x clears them all",
	"  -p all exited  every -p process (--tid thread) exited: nothing more comes",
	"  shown       rows shown of the stacks that match (tree: nodes);",
	"              --diff: and the GONE rows",
	"  order held  for 2 s after a navigation key rows do not move",
	"Columns",
	"  #           rank; + folded, - expanded",
	"  ID          kernel stack ids (- in stacks mode)",
	"  DELTA TOTAL hits in the last interval / since start or reset",
	"  %           share of all hits shown      RATE/s  hits per second",
	"  TREND       the stack's last intervals (hits; weight with w), each row",
	"              scaled to its own largest: what rises; blank: no hits",
	"  DEP         frames in the stack; + when the kernel cut it",
	"  EVENT       the event that hit the stack most (short name; hidden",
	"              when one event is traced or filtered)",
	"  COMM(PID)   the program that hit it most (a long comm is cut, not the pid)",
	"  FUNCTION    leaf frame < callers; \"...\" stands for the leaf frames every",
	"              row (of its event) shares, named in the title; expanded",
	"              stacks show every frame, those left out dimmed, then the",
	"              trend's numbers and, weighted, the single weights in log2",
	"              buckets as bpftrace's hist() (--offcpu: sleeps of 1-2ms...)",
	"  BEF% CHG%   --diff: the share in BEFORE, the change of share (points);",
	"              NEW: not in BEFORE; GONE rows: only in BEFORE. Ranked by",
	"              the change (sort CHG%) unless sorted by another column",
	"  mapped      (breakdown title) resolved through the kernel map",
	"  full-stack  from a kernel_stack record     CUT  deeper than recorded",
	"Caller tree: % and DELTA/TOTAL hits through the node, SELF hits of",
	"stacks that end there.",
	"Flame graph (v)",
	"  all         every stack the view matches; roots below it, callees below",
	"  a box       a frame on its path, as wide as its share of the hits (of",
	"              the weight with w); siblings by name, so boxes stay put",
	"  colours     kernel yellow, module magenta, user red, tracing machinery",
	"              blue, the user/kernel seam white; --no-color: reverse video,",
	"              modules underlined, user bold, machinery dim",
	"  ~  |        a name cut to its box; a box of one column",
	"  zoom:       the frame that takes the whole width (Enter; Backspace or",
	"              Esc: back); its callers are the dimmed bars above it",
	"  match       the search's share: the stacks through a matching frame",
	"  last line   the selected box: name, kind, count, share of all (and of",
	"              the zoom), self, and the other count (hits or weight)",
	"",
	"The selection stays on the top row until you move it; then it follows",
	"its stack. Esc in a search puts folds, selection and scroll back.",
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
	ui_put(y, 1, hv->ui->cols - 2,
	       title ? ui_attr(hv->ui, UC_HEADER_VALUE) : ui_attr(hv->ui, UC_NORMAL), buf);
}

static const struct list_view_ops help_ops = {
	.draw_row = help_draw_row,
};

void help_open(struct ui *ui)
{
	ui->priv->ov.open = OV_HELP;
	list_view_init(&ui->priv->ov.help.lv, &help_ops);
	ui->priv->ov.help.ui = ui;
	list_view_set_area(&ui->priv->ov.help.lv, 1, ui->priv->lines - 2);
	list_view_set_rows(&ui->priv->ov.help.lv, help_nlines());
	ui->priv->ov.help.lv.sel = 0;
}

void help_draw(struct ui *ui)
{
	struct list_view *lv = &ui->priv->ov.help.lv;
	char buf[160];

	list_view_set_area(lv, 1, ui->priv->lines - 2);
	ui_put(0, 0, ui->cols, ui_attr(ui, UC_COLTITLE),
	       " stacktop " STACKTOP_VERSION
	       " help - keys (one table drives this screen, -h and the man page)");
	list_view_draw(lv);
	snprintf(buf, sizeof(buf), " lines %d-%d of %d   Up/Down/PgUp/PgDn scroll, q/Esc/h closes",
		 lv->top + 1, lv->top + lv->height < lv->nr ? lv->top + lv->height : lv->nr,
		 lv->nr);
	ui_put(ui->priv->lines - 1, 0, ui->cols, ui_attr(ui, UC_KEYBAR_TEXT), buf);
}

void help_key(struct ui *ui, int key, bool fkey)
{
	struct list_view *lv = &ui->priv->ov.help.lv;
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
		ui->priv->ov.open = OV_NONE;
		return;
	}
}

/* ---- pickers (event, sort column) --------------------------------------------- */

static const char *const sort_help[RANK_KEY_MAX] = {
	[RANK_DELTA] = "DELTA   hits in the last interval",
	[RANK_TOTAL] = "TOTAL   hits since start or reset",
	[RANK_DEPTH] = "DEPTH   number of frames",
	[RANK_ID] = "ID      lowest kernel stack id",
	[RANK_EVENT] = "EVENT   event name (the stack's busiest event), A to Z",
	[RANK_COMM] = "COMM    comm (the stack's busiest program), A to Z",
};

/* diff mode: one more sort, after the keys (item RANK_KEY_MAX) */
static const char diff_sort_help[] = "CHG%    change of share against BEFORE (--diff)";

static const char *picker_item(struct ui *ui, int item)
{
	if (ui->priv->ov.pk.kind == PK_SORT)
		return item == RANK_KEY_MAX ? diff_sort_help : sort_help[item];
	if (ui->priv->ov.pk.kind == PK_FORMAT)
		return export_format_line((enum export_format)item);
	if (item < 0)
		return "(all events)";
	return session_event(ui->s, (unsigned int)item);
}

static void picker_fill(struct ui *ui)
{
	struct picker *pk = &ui->priv->ov.pk;
	struct uifmt_terms terms;
	int i, n;

	uifmt_terms_parse(pk->query, &terms);
	pk->nitems = 0;
	if (pk->kind == PK_SORT) {
		for (i = 0; i < RANK_KEY_MAX; i++)
			if (!terms.n || uifmt_terms_match(&terms, sort_help[i]))
				pk->items[pk->nitems++] = i;
		if (ui->diff && (!terms.n || uifmt_terms_match(&terms, diff_sort_help)))
			pk->items[pk->nitems++] = RANK_KEY_MAX;
	} else if (pk->kind == PK_FORMAT) {
		for (i = 0; i < EXPORT_FORMAT_MAX; i++)
			if (!terms.n ||
			    uifmt_terms_match(&terms, export_format_line((enum export_format)i)))
				pk->items[pk->nitems++] = i;
	} else {
		if (!terms.n)
			pk->items[pk->nitems++] = -1;
		n = (int)session_nevents(ui->s);
		for (i = 0; i < n && pk->nitems < UI_PICK_MAX; i++)
			if (!terms.n ||
			    uifmt_terms_match(&terms, session_event(ui->s, (unsigned int)i)))
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
	bool current = pk->kind == PK_SORT     ? (ui->diff && ui->diff_sort ? item == RANK_KEY_MAX
									    : item == (int)ui->rank.key)
		       : pk->kind == PK_FORMAT ? false
					       : item == ui->rank.event;
	char buf[256];

	snprintf(buf, sizeof(buf), " %s %s", current ? "*" : " ", picker_item(ui, item));
	ui_put(y, x, w, selected ? ui_attr(ui, UC_SELECTED) : ui_attr(ui, UC_NORMAL), buf);
}

static const struct list_view_ops picker_ops = {
	.draw_row = picker_draw_row,
};

void picker_open(struct ui *ui, enum ui_picker kind)
{
	struct picker *pk = &ui->priv->ov.pk;
	int i;

	ui->priv->ov.open = OV_PICKER;
	list_view_init(&pk->lv, &picker_ops);
	pk->ui = ui;
	pk->kind = kind;
	pk->query[0] = '\0';
	picker_fill(ui);
	for (i = 0; i < pk->nitems; i++)
		if ((kind == PK_SORT && pk->items[i] == (int)ui->rank.key) ||
		    (kind == PK_EVENT && pk->items[i] == ui->rank.event) ||
		    (kind == PK_FORMAT && pk->items[i] == EXPORT_JSON))
			pk->lv.sel = i;
}

void picker_draw(struct ui *ui)
{
	struct picker *pk = &ui->priv->ov.pk;
	int w = ui->cols > 70 ? 60 : ui->cols - 10, x = (ui->cols - w) / 2;
	int h = ui->priv->lines - 8, y = 3, i;
	char buf[256];

	if (h > pk->nitems + 1)
		h = pk->nitems + 1;
	if (h < 2)
		h = 2;
	snprintf(buf, sizeof(buf), " %s  (type to narrow, Enter picks, Esc cancels)",
		 pk->kind == PK_SORT	 ? "Sort by"
		 : pk->kind == PK_FORMAT ? "Save the view as"
					 : "Filter by event");
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

int picker_pick(struct ui *ui)
{
	struct picker *pk = &ui->priv->ov.pk;
	int item;

	ui->priv->ov.open = OV_NONE;
	if (pk->lv.sel < 0 || pk->lv.sel >= pk->nitems) {
		ui_status(ui, true, "nothing picked: no entry matches '%s'", pk->query);
		return R_REDRAW;
	}
	item = pk->items[pk->lv.sel];
	if (pk->kind == PK_FORMAT)
		return ui_save_view(ui, item);
	if (pk->kind == PK_SORT) {
		ui->diff_sort = item == RANK_KEY_MAX;
		if (item < RANK_KEY_MAX)
			ui->rank.key = (enum rank_key)item;
		ui_status(ui, false, "sorted by %s", ui_sort_name(ui));
		return R_RESORT;
	}
	ui->rank.event = item;
	ui->priv->loop.go_home = true;
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

int picker_key(struct ui *ui, int key, bool fkey)
{
	struct picker *pk = &ui->priv->ov.pk;

	if (!fkey && key == 27) {
		ui->priv->ov.open = OV_NONE;
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
			ui->priv->ov.open = OV_NONE;
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

void prompt_open(struct ui *ui, enum ui_prompt p, const char *initial)
{
	ui->priv->in.prompt = p;
	ui->priv->in.note[0] = '\0';
	snprintf(ui->priv->in.text, sizeof(ui->priv->in.text), "%s", initial);
	snprintf(ui->priv->in.saved, sizeof(ui->priv->in.saved), "%s", initial);
	if (p == PR_SEARCH) {
		struct ui_view **vp;

		/* what Esc goes back to, and where each typed key searches from */
		ui_for_each_view(ui, vp) if ((*vp)->ops->search_save)(*vp)->ops->search_save(*vp);
	}
	/* the old value is shown; typing replaces it (Backspace edits it) */
	ui->priv->in.fresh = initial[0] != '\0';
}

/* the view as it was when the search prompt opened */
static void ui_search_restore(struct ui *ui)
{
	if (ui->view->ops->search_restore)
		ui->view->ops->search_restore(ui->view);
}

int ui_search(struct ui *ui, int dir, bool include_current)
{
	bool found;

	if (!textmatch_active(&ui->flt->smatch))
		return R_REDRAW;
	found = ui->view->ops->search && ui->view->ops->search(ui->view, dir, include_current);
	if (!found)
		ui_status(ui, true, "search: '%s' not found", ui->flt->search);
	snprintf(ui->priv->in.note, sizeof(ui->priv->in.note), "%s", found ? "" : "[not found]");
	return R_REDRAW | R_NAV;
}

static int prompt_changed(struct ui *ui)
{
	switch (ui->priv->in.prompt) {
	case PR_SEARCH:
		snprintf(ui->flt->search, sizeof(ui->flt->search), "%s", ui->priv->in.text);
		ui->priv->in.note[0] = '\0';
		/* each key searches again from where the prompt opened */
		ui_search_restore(ui);
		if (!textmatch_set(&ui->flt->smatch, ui->flt->search))
			return R_REDRAW;
		return ui_search(ui, 1, true);
	case PR_FILTER:
		snprintf(ui->flt->filter, sizeof(ui->flt->filter), "%s", ui->priv->in.text);
		textmatch_set(&ui->flt->fmatch, ui->flt->filter);
		ui_apply_filters(ui);
		return R_REDRAW;
	default:
		return R_REDRAW;
	}
}

/*
 * The kernel refused the filter typed: what was typed after the Enter is
 * not keys (a paste of "filter\nmore", keys typed ahead while the kernel
 * parsed: q would quit, x clear the view): it is dropped, and the prompt
 * opens again on the refused text, to be fixed (Esc leaves it), the
 * kernel's reason beside it.
 */
static void kfilter_refused(struct ui *ui, unsigned int ev, const char *why)
{
	const char *name = session_event(ui->s, ev), *reason = strstr(why, name);
	char text[sizeof(ui->priv->in.text)];

	ui_status(ui, true, "%s", why);
	flushinp();
	snprintf(text, sizeof(text), "%s", ui->priv->in.text);
	prompt_open(ui, PR_KFILTER, text);
	ui->priv->in.fresh = false; /* typing edits the text, not replaces it */
	/* "the kernel refused the filter 'X' on SYS:EV: REASON": REASON beside X */
	if (reason && !strncmp(reason + strlen(name), ": ", 2))
		snprintf(ui->priv->in.note, sizeof(ui->priv->in.note), "refused: %s",
			 reason + strlen(name) + 2);
	else
		snprintf(ui->priv->in.note, sizeof(ui->priv->in.note), "%s", why);
}

static int prompt_done(struct ui *ui, bool accept)
{
	enum ui_prompt p = ui->priv->in.prompt;
	int pid, err;
	double d;

	ui->priv->in.prompt = PR_NONE;
	curs_set(0);
	if (!accept) {
		/* Esc: back to what was there before the prompt opened */
		snprintf(ui->priv->in.text, sizeof(ui->priv->in.text), "%s", ui->priv->in.saved);
		if (p == PR_SEARCH) {
			/* folds, selection and scroll as they were */
			ui_search_restore(ui);
			snprintf(ui->flt->search, sizeof(ui->flt->search), "%s", ui->priv->in.text);
			textmatch_set(&ui->flt->smatch, ui->flt->search);
			ui->priv->in.note[0] = '\0';
			return R_REDRAW;
		}
		if (p == PR_FILTER) {
			ui->priv->in.prompt = p;
			prompt_changed(ui);
			ui->priv->in.prompt = PR_NONE;
		}
		return R_REDRAW | (p == PR_FILTER ? R_REFRESH : 0);
	}
	switch (p) {
	case PR_SEARCH:
		if (ui->flt->search[0] && ui->priv->in.note[0])
			ui_status(ui, true, "search: '%s' not found", ui->flt->search);
		else if (ui->flt->search[0])
			ui_status(ui, false, "search '%s': n next, N previous", ui->flt->search);
		return R_REDRAW;
	case PR_FILTER:
		/* rank now (not after the typing pause): the count is the header's */
		ui->priv->loop.rerank_at = 0;
		ui_refresh_now(ui);
		if (ui->flt->filter[0])
			ui_status(ui, false, "filter '%s': %zu stacks match", ui->flt->filter,
				  ui->rows.sum.matched);
		else
			ui_status(ui, false, "filter off");
		return R_REFRESH;
	case PR_PID:
		ui->flt->comm[0] = '\0';
		ui->rank.pid = -1;
		if (uifmt_parse_pid(ui->priv->in.text, &pid)) {
			ui->rank.pid = pid;
			ui_status(ui, false, "only pid %d (%s)", pid, session_comm(ui->s, pid));
		} else if (ui->priv->in.text[0]) {
			snprintf(ui->flt->comm, sizeof(ui->flt->comm), "%s", ui->priv->in.text);
		} else {
			ui_status(ui, false, "pid/comm filter off");
		}
		textmatch_set_comm(&ui->flt->cmatch, ui->flt->comm);
		if (ui->flt->comm[0] && textmatch_whole(&ui->flt->cmatch))
			ui_status(ui, false, "only hits of comm '%s'",
				  ui->flt->comm + (ui->flt->comm[0] == '='));
		else if (ui->flt->comm[0])
			ui_status(ui, false,
				  "only hits of comms containing '%s' (=%s: that name only)",
				  ui->flt->comm, ui->flt->comm);
		ui_apply_filters(ui);
		return R_REFRESH;
	case PR_DELAY:
		err = uifmt_parse_delay(ui->priv->in.text, &d);
		if (err == -ERANGE) {
			ui_status(ui, true, "delay '%s' out of range (0.1 to 3600 s)",
				  ui->priv->in.text);
		} else if (err) {
			ui_status(ui, true, "delay '%s' is not a number of seconds",
				  ui->priv->in.text);
		} else {
			char buf[32];

			ui->priv->delay = d;
			ui->priv->loop.next_tick = ui_now() + d;
			uifmt_delay(buf, sizeof(buf), d);
			ui_status(ui, false, "refresh every %s", buf);
		}
		return R_REDRAW;
	case PR_KFILTER: {
		char why[300];
		unsigned int ev = (unsigned int)ui->priv->in.kfilter_event;

		err = session_set_filter(ui->s, ev, ui->priv->in.text, why, sizeof(why));
		if (err < 0) {
			kfilter_refused(ui, ev, why);
			return R_REDRAW;
		}
		if (ui->priv->in.text[0] && strcmp(ui->priv->in.text, "0"))
			ui_status(ui, false, "%s: kernel filter '%s' (applies from now on)",
				  session_event(ui->s, ev), ui->priv->in.text);
		else
			ui_status(ui, false, "%s: kernel filter off", session_event(ui->s, ev));
		return R_REDRAW;
	}
	default:
		return R_REDRAW;
	}
}

int prompt_key(struct ui *ui, int key, bool fkey)
{
	if (!fkey && key == 27)
		return prompt_done(ui, false);
	if (key_is_enter(key, fkey))
		return prompt_done(ui, true);
	if (key_is_backspace(key, fkey)) {
		ui->priv->in.fresh = false;
		text_backspace(ui->priv->in.text);
		return prompt_changed(ui);
	}
	if (!fkey && key == 0x15) { /* Ctrl-U */
		ui->priv->in.text[0] = '\0';
		return prompt_changed(ui);
	}
	if (fkey) {
		if (ui->priv->in.prompt == PR_SEARCH && (key == KEY_F(3) || key == KEY_DOWN))
			return ui_search(ui, 1, false);
		if (ui->priv->in.prompt == PR_SEARCH && key == KEY_UP)
			return ui_search(ui, -1, false);
		return R_REDRAW;
	}
	if (key >= 32 && key != 127) {
		if (ui->priv->in.fresh)
			ui->priv->in.text[0] = '\0';
		ui->priv->in.fresh = false;
		text_append(ui->priv->in.text, sizeof(ui->priv->in.text), (wint_t)key);
		return prompt_changed(ui);
	}
	return R_REDRAW;
}
