/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui.h - the interactive screen. The only interface between main.c and the
 * curses code; this header itself includes no curses.
 */
#ifndef STACKTOP_UI_H
#define STACKTOP_UI_H

#include <stdbool.h>
#include <stdio.h>

struct session;

/**
 * struct ui_opts - options of the interactive screen
 * @delay: refresh interval in seconds (fractional)
 * @top: rows to rank (0: as many as fit)
 * @mouse: enable mouse reporting
 * @color: use colours (false with -C / NO_COLOR)
 * @event_filter: initial event filter (index), -1 for none
 * @sort: initial sort key (an enum rank_key: --sort)
 * @cumulative: start with cumulative counts (--cumulative)
 * @count: weighted session: start ranking by hits (--count)
 * @comm: initial comm filter, a whole name or a glob (--comm), NULL for none
 * @before: --diff: the BEFORE session (a snapshot); the screen adds BEF%
 *          and CHG% columns (its share, the change of share against it),
 *          marks the stacks it does not have NEW, lists its stacks AFTER
 *          does not have as GONE rows, and ranks by the change (NULL: no diff)
 * @sort_given: @sort comes from --sort/--cumulative (diff mode then sorts by it)
 * @filter: initial text filter (the \ filter: a snapshot's), NULL for none
 * @ascending: initial order inverted (a snapshot's)
 * @pid: initial pid filter, -1 for none (a snapshot's)
 * @cpu: initial CPU filter, -1 for none (a snapshot's)
 * @hide_idle: idle stacks hidden (a snapshot's)
 * @comm_text: initial `p` filter text (a snapshot's: "=NAME", a glob or a
 *	part of a name), used when @comm is NULL
 * @child_ended: stacktop -- CMD: asked at every pass of the loop; true once
 *	the command has ended, with how in @what ("make exited with status
 *	2"): what it left is read, the view refreshed a last time and kept,
 *	nothing more is read, and the header says how it ended until q.
 *	NULL without a command
 * @child_ctx: @child_ended's argument
 * @child_note: said on the status line at start (where the command's
 *	output goes), NULL or "" for nothing
 * @collect: called after each read (@tick false) and each refresh (@tick
 *	true, after session_tick()): --serve's copy and jobs; NULL for none
 * @collect_ctx: @collect's argument
 */
struct ui_opts {
	double delay;
	int top;
	bool mouse;
	bool color;
	int event_filter;
	int sort;
	bool cumulative;
	bool count;
	const char *comm;
	struct session *before;
	bool sort_given;
	const char *filter;
	bool ascending;
	int pid;
	int cpu;
	bool hide_idle;
	const char *comm_text;
	bool (*child_ended)(void *ctx, char *what, size_t size);
	void *child_ctx;
	const char *child_note;
	void (*collect)(void *ctx, struct session *s, bool tick);
	void *collect_ctx;
};

/**
 * ui_run() - run the screen until the user quits or a stop signal arrives
 * @s: an open session (still owned by the caller)
 * @o: options
 *
 * Return: 0 on a normal quit, negative errno when the terminal cannot be
 * used (the caller then reports it; the terminal is already restored).
 */
int ui_run(struct session *s, const struct ui_opts *o);

/**
 * ui_emergency() - leave curses mode from a fatal signal handler
 *
 * Best effort (endwin is not async-signal-safe, as in htop's crash handler).
 */
void ui_emergency(void);

/**
 * ui_print_keys() - the key table as text, for --help and the man page check
 * @f: output
 */
void ui_print_keys(FILE *f);

#endif /* STACKTOP_UI_H */
