// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * screen.c - ui_run(): the one poll loop, the layout, the ranking and the
 * refresh; the header is in header.c, the overlays and the input line in
 * overlay.c, what the keys do in actions.c, the primitives in draw.c.
 *
 * Loop (single-threaded, no other timers):
 *
 *	draw if something changed
 *	poll(stdin, at most UI_DRAIN_MS, less when the next refresh is due)
 *	answer every key that is waiting
 *	session_drain_for(s, UI_DRAIN_PAGES, UI_DRAIN_BUDGET_MS)
 *	                                        bounded work, every pass
 *	every `delay`: session_tick(s), re-rank (unless paused, or held
 *	               while the user is moving through the list)
 *
 * Signal handlers only set flags (signals.h); the loop turns sig_winch into
 * a resize and leaves on sig_stop through the normal path.
 */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "sym/brief.h"
#include "core/format.h"
#include "core/log.h"
#include "kernel/signals.h"
#include "ui/actions.h"
#include "ui/diffcol.h"
#include "ui/draw.h"
#include "ui/flame_view.h"
#include "ui/header.h"
#include "ui/overlay.h"
#include "ui/refresh.h"
#include "ui/save.h"
#include "ui/stack_view.h"
#include "ui/tree_view.h"
#include "ui/screen_state.h"
#include "ui/tui.h"
#include "ui/views.h"

static volatile sig_atomic_t ui_curses_on;

static void ui_log_sink(void *ctx, enum log_level level, const char *msg)
{
	struct ui *ui = ctx;

	ui_status(ui, level <= LOG_LVL_WARN, "%s", msg);
}

/* the screen: what its views read (struct ui), its own state, the filters */
struct ui_screen {
	struct ui ui;
	struct ui_private priv;
	struct ui_filters flt;
};

/* ---- layout --------------------------------------------------------------- */

static void ui_layout(struct ui *ui)
{
	struct ui_view **vp;
	int h;

	ui->priv->lines = LINES;
	ui->cols = COLS;
	ui->lay.too_small = ui->cols < UI_MIN_COLS || ui->priv->lines < UI_MIN_LINES;
	ui->lay.coltitle_y = ui_header_lines(ui);
	ui->lay.list_y = ui->lay.coltitle_y + 1;
	h = ui->priv->lines - 1 - ui->lay.list_y;
	ui->lay.bd_h = 0;
	if (ui->lay.breakdown && (ui->view->ops->flags & UVF_BREAKDOWN))
		ui->lay.bd_h = ui->priv->lines >= 40 ? 9 : 6;
	if (h - ui->lay.bd_h < 5)
		ui->lay.bd_h = 0;
	ui->lay.list_h = h - ui->lay.bd_h;
	if (ui->lay.list_h < 0)
		ui->lay.list_h = 0;
	ui->lay.bd_y = ui->lay.list_y + ui->lay.list_h;
	ui_for_each_view(ui, vp) if ((*vp)->ops->layout)(*vp)->ops->layout(*vp);
	ui->priv->loop.dirty = true;
}

static void ui_resize(struct ui *ui)
{
	struct winsize ws;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
	ui_layout(ui);
}

static bool ui_holding(const struct ui *ui, double now)
{
	return ui->priv->loop.last_nav && now - ui->priv->loop.last_nav < UI_HOLD_SEC;
}

static void ui_tick(struct ui *ui, double now)
{
	int err = session_tick(ui->s);
	static int last_err;
	bool cleared;

	if (ui->priv->opts.collect)
		ui->priv->opts.collect(ui->priv->opts.collect_ctx, ui->s, true);
	if (err && err != last_err)
		ui_status(ui, true, "refresh: %s", strerror(-err));
	last_err = err;
	/* comms are learned and change (exec): match them afresh each interval */
	textmatch_forget_pids(&ui->flt->fmatch);
	textmatch_forget_pids(&ui->flt->cmatch);
	textmatch_forget_pids(&ui->flt->smatch);
	cleared = ui_check_generation(ui);
	if (cleared)
		ui->priv->loop.pending = true;
	if (ui->paused) {
		ui->priv->loop.dirty = true;
		/*
		 * the table was cleared under a frozen view: it cannot stay. A
		 * ranking held back before the pause (the user was moving, or
		 * typing) is not one: it waits for the view to resume (it ran
		 * here and put live rows under PAUSED: tui-screen on a busy
		 * host, issue 25)
		 */
		if (cleared) {
			ui_rank(ui, true);
			ui->priv->loop.pending = false;
		}
		return;
	}
	report_head_fill(&ui->head, ui->s);
	if (ui->head.st.lost_delta && !ui->priv->loop.lost_said) {
		char hint[160];

		/* the header's lost is in the alert colour; the fix, in words, once */
		ui->priv->loop.lost_said = true;
		if (report_lost_hint(&ui->head.st, hint, sizeof(hint)))
			ui_status(ui, true, "%s", hint);
	}
	if (ui->lay.coltitle_y != ui_header_lines(ui))
		ui_layout(ui);
	if (ui_holding(ui, now)) {
		ui->priv->loop.pending = true;
		ui->priv->loop.dirty = true;
		return;
	}
	ui_rank(ui, true);
	ui->priv->loop.pending = false;
}

/* ---- drawing ------------------------------------------------------------------------ */

static void ui_draw_too_small(struct ui *ui)
{
	char buf[160];
	int y = ui->priv->lines / 2;

	erase();
	/* short lines: the size wanted must show on the smallest terminal */
	snprintf(buf, sizeof(buf), "terminal too small: %dx%d", ui->cols, ui->priv->lines);
	ui_put(y > 1 ? y - 2 : 0, 0, ui->cols, ui_attr(ui, UC_ALERT), buf);
	snprintf(buf, sizeof(buf), "stacktop needs %dx%d", UI_MIN_COLS, UI_MIN_LINES);
	ui_put(y > 1 ? y - 1 : 1, 0, ui->cols, ui_attr(ui, UC_ALERT), buf);
	ui_put(y > 1 ? y : 2, 0, ui->cols, ui_attr(ui, UC_NORMAL), "enlarge it, or q to quit");
}

static void ui_draw(struct ui *ui)
{
	if (ui->lay.too_small) {
		ui_draw_too_small(ui);
		refresh();
		return;
	}
	if (ui->priv->ov.open == OV_HELP) {
		erase();
		help_draw(ui);
		refresh();
		return;
	}
	ui_draw_header(ui);
	ui->view->ops->draw(ui->view);
	ui_draw_bottom(ui);
	if (ui->priv->ov.open == OV_PICKER)
		picker_draw(ui);
	if (ui->priv->in.prompt != PR_NONE) {
		const char *label = prompt_label[ui->priv->in.prompt];
		int ll = (int)strlen(label), x;

		if (ll > ui->cols / 2)
			ll = ui->cols / 2;
		x = ll + (int)mbstowcs(NULL, ui->priv->in.text, 0);
		if (x >= ui->cols)
			x = ui->cols - 1;
		move(ui->priv->lines - 1, x);
		curs_set(1);
	} else {
		curs_set(0);
	}
	refresh();
}

/* ---- the loop ------------------------------------------------------------------------ */

static void ui_apply(struct ui *ui, int r, double now)
{
	if (r & R_NAV) {
		ui->priv->loop.last_nav = now;
		if (ui->view->ops->nav)
			ui->view->ops->nav(ui->view);
	}
	if (r & R_LAYOUT)
		ui_layout(ui);
	if (r & R_CLEAR)
		clearok(curscr, TRUE);
	if (r & R_REFRESH) {
		ui_refresh_now(ui);
		ui->priv->loop.pending = false;
	} else if (r & R_RESORT) {
		ui_rank(ui, !ui->paused);
	}
	if (r)
		ui->priv->loop.dirty = true;
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
		if (++ui->priv->term.empty_reads > UI_EMPTY_READS)
			flags |= R_GONE;
	} else {
		ui->priv->term.empty_reads = 0;
	}
	return flags;
}

#define UI_POLL_MAX    257 /* stdin + up to 256 CPUs */
#define UI_LAST_DRAINS 16  /* after -- CMD's end: what it left, at most this many drains */

/* -- CMD has ended: what it left is read, the view refreshed a last time and kept */
static void ui_cmd_ended(struct ui *ui)
{
	int i;

	for (i = 0; i < UI_LAST_DRAINS && session_drain(ui->s, UI_DRAIN_PAGES) >= UI_DRAIN_PAGES;
	     i++)
		;
	ui->paused = false;
	ui_save_thaw(ui);
	ui->priv->loop.last_nav = 0;
	/*
	 * the last interval is a piece of the end: the last view is the whole
	 * run, ranked by its totals, as batch mode's last report
	 */
	ui->delta = false;
	if (ui->rank.key == RANK_DELTA)
		ui->rank.key = RANK_TOTAL;
	ui_tick(ui, ui_now());
	ui->priv->loop.cmd_done = true;
	ui_status(ui, false, "%s: this is its last view, the whole run by its totals; q quits",
		  ui->priv->loop.cmd_what);
	ui->priv->loop.dirty = true;
}

static void ui_loop(struct ui *ui)
{
	bool more = false;
	int drain_err = 0;

	ui->priv->loop.next_tick = ui_now() + (ui->priv->delay < 0.5 ? ui->priv->delay : 0.5);
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
		if (ui->priv->loop.dirty) {
			ui_draw(ui);
			ui->priv->loop.dirty = false;
		}
		timeout = (int)((ui->priv->loop.next_tick - now) * 1000);
		if (ui->priv->loop.rerank_at &&
		    (int)((ui->priv->loop.rerank_at - now) * 1000) < timeout)
			timeout = (int)((ui->priv->loop.rerank_at - now) * 1000);
		if (timeout > UI_DRAIN_MS)
			timeout = UI_DRAIN_MS;
		if (timeout < 0 || more)
			timeout = 0;
		pfd->fd = ui->priv->term.ifd;
		pfd->events = POLLIN;
		pfd->revents = 0;
		nfds = 1 + (ui->priv->loop.cmd_done
				    ? 0
				    : session_pollfds(ui->s, pfds + 1, UI_POLL_MAX - 1));
		r = poll(pfds, (nfds_t)nfds, timeout);
		/* a hung-up tty reports POLLIN too: check the hang-up first */
		if (r > 0 && (pfd->revents & (POLLHUP | POLLERR | POLLNVAL)))
			break; /* the terminal went away */
		if (r > 0 && (pfd->revents & POLLIN)) {
			int kr = ui_read_keys(ui);

			if (kr & (R_QUIT | R_GONE))
				break;
		}
		now = ui_now();
		if (ui->priv->loop.cmd_done) {
			/* nothing is read any more; the status line still expires */
			if (ui->priv->msg.text[0] && now >= ui->priv->msg.until &&
			    now - ui->priv->msg.until < 0.2)
				ui->priv->loop.dirty = true;
			continue;
		}
		/* asked before the drain: that drain reads what it did to the end */
		if (ui->priv->opts.child_ended &&
		    ui->priv->opts.child_ended(ui->priv->opts.child_ctx, ui->priv->loop.cmd_what,
					       sizeof(ui->priv->loop.cmd_what))) {
			ui_cmd_ended(ui);
			continue;
		}
		/*
		 * as the batch loop reads: until the buffers are empty or the
		 * time budget is spent (a busy machine fills them faster than
		 * 256 pages a pass read: the screen lost events batch did not,
		 * issue 27); keys wait at most UI_DRAIN_BUDGET_MS
		 */
		more = false;
		r = session_drain_for(ui->s, UI_DRAIN_PAGES, UI_DRAIN_BUDGET_MS, &more);
		if (ui->priv->opts.collect)
			ui->priv->opts.collect(ui->priv->opts.collect_ctx, ui->s, false);
		if (r < 0 && r != drain_err)
			ui_status(ui, true, "reading the ring buffer: %s", strerror(-r));
		drain_err = r < 0 ? r : 0;
		/* a reset by another program: the core says so in the status line */
		if (ui_check_generation(ui))
			ui_rank(ui, true);
		now = ui_now();
		if (ui->priv->loop.rerank_at && now >= ui->priv->loop.rerank_at) {
			ui->priv->loop.rerank_at = 0;
			ui_rank(ui, true);
		}
		if (now >= ui->priv->loop.next_tick) {
			ui_tick(ui, now);
			ui->priv->loop.next_tick += ui->priv->delay;
			if (ui->priv->loop.next_tick < now)
				ui->priv->loop.next_tick = now + ui->priv->delay;
		} else if (ui->priv->loop.pending && !ui->paused && !ui_holding(ui, now)) {
			ui_rank(ui, true);
			ui->priv->loop.pending = false;
		}
		/* the "order held" marker and the status line expire on their own */
		if ((ui->priv->msg.text[0] && now >= ui->priv->msg.until &&
		     now - ui->priv->msg.until < 0.2) ||
		    (ui->priv->loop.last_nav && now - ui->priv->loop.last_nav >= UI_HOLD_SEC &&
		     now - ui->priv->loop.last_nav < UI_HOLD_SEC + 0.2))
			ui->priv->loop.dirty = true;
	}
}

static bool ui_env_nocolor(void)
{
	const char *v = getenv("NO_COLOR");

	return v && *v;
}

/*
 * The terminal is read through a descriptor of our own, opened again from
 * stdin and non-blocking: no read curses makes can ever wait for a key
 * while the ring buffers fill (ncurses reads on after a mouse event it does
 * not report, and a blocking read there froze the screen). It is a new open
 * file description, so stdout and the shell that started us keep theirs
 * blocking; when stdin cannot be opened again, stdin itself is made
 * non-blocking and restored on the way out.
 */
static int ui_open_input(int *saved_flags)
{
	int fd = open("/proc/self/fd/0", O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	int fl;

	*saved_flags = -1;
	if (fd >= 0 && isatty(fd))
		return fd;
	if (fd >= 0)
		close(fd);
	fl = fcntl(STDIN_FILENO, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK) && !fcntl(STDIN_FILENO, F_SETFL, fl | O_NONBLOCK))
		*saved_flags = fl;
	return STDIN_FILENO;
}

static volatile sig_atomic_t ui_stdin_flags = -1;

static void ui_close_input(FILE *in, int fd)
{
	if (ui_stdin_flags >= 0) {
		fcntl(STDIN_FILENO, F_SETFL, (int)ui_stdin_flags);
		ui_stdin_flags = -1;
	}
	if (in)
		fclose(in);
	else if (fd != STDIN_FILENO)
		close(fd);
}

/* the views, the home view first (the list); a view's keys are its key table rows */
static const struct ui_view_ops *const ui_view_list[] = {
	&stack_view_ops,
	&tree_view_ops,
	&flame_view_ops,
};

#define UI_NVIEWS (sizeof(ui_view_list) / sizeof(ui_view_list[0]))

static int ui_views_create(struct ui *ui)
{
	size_t i;

	_Static_assert(UI_NVIEWS <= UI_VIEWS_MAX, "more views than struct ui has room for");
	for (i = 0; i < UI_NVIEWS; i++) {
		ui->views[i] = ui_view_list[i]->create(ui);
		if (!ui->views[i])
			return -ENOMEM;
	}
	ui->view = ui->views[0];
	return 0;
}

static void ui_free(struct ui *ui, struct symcache *syms)
{
	struct ui_view **vp;

	ui_save_thaw(ui);
	ui_for_each_view(ui, vp)(*vp)->ops->destroy(*vp);
	textmatch_done(&ui->flt->fmatch);
	textmatch_done(&ui->flt->cmatch);
	textmatch_done(&ui->flt->smatch);
	symcache_done(syms);
	report_head_done(&ui->head);
	uidiff_free(ui);
	free(ui->rows.row);
	free(container_of(ui, struct ui_screen, ui));
}

int ui_run(struct session *s, const struct ui_opts *o)
{
	void (*prev_sink)(void *ctx, enum log_level level, const char *msg);
	void *prev_ctx;
	struct symcache syms;
	int ifd, saved;
	FILE *in = NULL;
	SCREEN *scr;
	struct ui_screen *sc;
	struct ui *ui;
	const char *cs;

	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return -ENOMEM;
	ui = &sc->ui;
	ui->priv = &sc->priv;
	ui->flt = &sc->flt;
	ui->s = s;
	ui->priv->opts = *o;
	ui->t = session_table(s);
	ui->priv->delay = o->delay >= 0.1 ? o->delay : (o->delay > 0 ? 0.1 : 1.0);
	ui->delta = !o->cumulative;
	ui->priv->term.color = o->color && !ui_env_nocolor();
	ui->rank.key = o->sort >= 0 && o->sort < RANK_KEY_MAX ? (enum rank_key)o->sort : RANK_DELTA;
	ui->rank.event = o->event_filter;
	/* a snapshot read back (-r) shows as it was seen: its order and filters, on show, clearable
	 */
	ui->rank.invert = o->ascending;
	ui->rank.pid = o->pid;
	ui->rank.cpu = o->cpu;
	ui->rank.hide_idle = o->hide_idle;
	ui->rank.weight = session_unit(s) != UNIT_NONE && !o->count;
	report_head_fill(&ui->head, s);
	ui->priv->loop.generation = ui->head.st.generation;
	symcache_init(&syms, session_ksym(s));
	ui->syms = &syms;
	textmatch_init(&ui->flt->fmatch);
	textmatch_init(&ui->flt->cmatch);
	textmatch_init(&ui->flt->smatch);
	if (o->comm) {
		/* "=" asks for the whole name: --comm is exact or a glob */
		snprintf(ui->flt->comm, sizeof(ui->flt->comm), "=%s", o->comm);
		textmatch_set_comm(&ui->flt->cmatch, ui->flt->comm);
		ui_apply_filters(ui);
	} else if (o->comm_text && o->comm_text[0]) {
		snprintf(ui->flt->comm, sizeof(ui->flt->comm), "%s", o->comm_text);
		textmatch_set_comm(&ui->flt->cmatch, ui->flt->comm);
		ui_apply_filters(ui);
	}
	if (o->filter && o->filter[0]) {
		snprintf(ui->flt->filter, sizeof(ui->flt->filter), "%s", o->filter);
		textmatch_set(&ui->flt->fmatch, ui->flt->filter);
		ui_apply_filters(ui);
	}
	if (ui_views_create(ui) < 0 || (o->before && uidiff_new(ui, o->before) < 0)) {
		ui_free(ui, &syms);
		return -ENOMEM;
	}
	/* diff mode ranks by the change of share, as the batch diff, unless --sort says otherwise
	 */
	ui->diff_sort = ui->diff && !o->sort_given;

	/* what came since the session opened: read before the terminal is set up */
	session_drain_for(s, UI_DRAIN_PAGES, UI_DRAIN_BUDGET_MS, NULL);
	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	ui->utf8 = cs && !strcmp(cs, "UTF-8");
	ui_set_ascii_only(!ui->utf8);
	ifd = ui_open_input(&saved);
	ui_stdin_flags = saved;
	ui->priv->term.ifd = ifd;
	in = ifd == STDIN_FILENO ? stdin : fdopen(ifd, "r");
	scr = in ? newterm(NULL, stdout, in) : NULL;
	if (!scr) {
		ui_close_input(in == stdin ? NULL : in, ifd);
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
		/*
		 * Every button event, wanted or not: ncurses reads the next
		 * input at once after an event outside the mask (a release);
		 * ui_mouse() ignores what it does not use. No click
		 * composition (interval 0): a press acts at once, double
		 * clicks are recognised by ui_mouse().
		 */
		mousemask(ALL_MOUSE_EVENTS, NULL);
		mouseinterval(0);
	}
	prev_sink = log_get_sink(&prev_ctx);
	log_set_sink(ui_log_sink, ui);
	ui->lay.breakdown = LINES >= 36;
	ui_layout(ui);
	ui_rank(ui, true);
	if (ui->diff)
		ui_status(
			ui, false,
			"diff: CHG%% is each stack's change of share against BEFORE (BEF%%); NEW: not in BEFORE, GONE: only in BEFORE");
	{
		int nleft;
		const char *left = session_leftovers(s, &nleft);

		/* on stderr already, hidden by the screen: said again here */
		if (left && nleft > 1)
			ui_status(ui, true, "%s (and %d more runs: see stderr)", left, nleft - 1);
		else if (left)
			ui_status(ui, true, "%s", left);
		else if (o->child_note && o->child_note[0])
			ui_status(ui, false, "%s", o->child_note);
	}

	ui_loop(ui);

	log_set_sink(prev_sink, prev_ctx);
	if (o->mouse)
		mousemask(0, NULL);
	curs_set(1);
	endwin();
	ui_curses_on = 0;
	delscreen(scr);
	ui_close_input(in == stdin ? NULL : in, ifd);

	ui_free(ui, &syms);
	return 0;
}

void ui_emergency(void)
{
	if (!ui_curses_on)
		return;
	ui_curses_on = 0;
	endwin();
	if (ui_stdin_flags >= 0)
		fcntl(STDIN_FILENO, F_SETFL, (int)ui_stdin_flags);
}
