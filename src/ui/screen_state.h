/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * screen_state.h - the screen's own state (struct ui_private, behind
 * struct ui's @priv): the terminal, the loop's timing, the input line, the
 * status line, the overlays, the options the screen was started with.
 * Only the screen's files include it (screen.c, actions.c, overlay.c,
 * header.c, refresh.c, save.c, views.c's and draw.c's actions); a view
 * never does (tests/check-ui-struct.py): it reads struct ui, const.
 */
#ifndef STACKTOP_UI_SCREEN_STATE_H
#define STACKTOP_UI_SCREEN_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/tui.h"
#include "ui/ui.h"

enum ui_overlay {
	OV_NONE,
	OV_HELP,
	OV_PICKER,
};

enum ui_prompt {
	PR_NONE,
	PR_SEARCH,
	PR_FILTER,
	PR_PID,
	PR_DELAY,
	PR_KFILTER,
};

enum ui_picker {
	PK_EVENT,
	PK_SORT,
	PK_FORMAT, /* P: the format to save the view in */
};

#define UI_PICK_MAX 512

struct ui;

/**
 * struct picker - a pop-up list with a type-to-narrow line
 * @lv: list widget
 * @kind: what is picked
 * @query: typed text
 * @items: indexes of the items that match @query (-1: "all")
 * @nitems: count
 */
struct picker {
	struct list_view lv;
	enum ui_picker kind;
	char query[UI_TEXT];
	int items[UI_PICK_MAX];
	int nitems;
	struct ui *ui;
};

/**
 * struct help_view - the help overlay: the key table and the screen's words
 * @lv: list widget
 * @ui: the screen
 */
struct help_view {
	struct list_view lv;
	struct ui *ui;
};

/**
 * struct ui_term - the terminal
 * @ifd: its input, non-blocking (screen.c)
 * @empty_reads: POLLIN without a key, in a row (a hung-up tty)
 * @color: colours in use (false with -C, NO_COLOR, or none in the terminal)
 * @click_at: time of the last button-1 press (ui_dclick())
 * @click_spot: where it was in its owner
 * @click_owner: what it was on (a list, a view; NULL: a double click ended)
 */
struct ui_term {
	int ifd;
	int empty_reads;
	bool color;
	double click_at;
	int click_spot;
	const void *click_owner;
};

/**
 * struct ui_loop - the loop's timing and what it has to do (screen.c)
 * @dirty: a redraw is needed
 * @next_tick: when the next refresh is due
 * @last_nav: when the user last moved (the order is held UI_HOLD_SEC)
 * @rerank_at: a debounced re-rank after typing is due then (0: none)
 * @pending: a refresh was held back
 * @go_home: the filters changed: the first row is selected after ranking
 * @seen: stack_table_count() at the last check
 * @generation: the core's table generation the views' pointers are of
 * @cmd_done: -- CMD has ended: the view stays, nothing is read
 * @cmd_what: how it ended ("make exited with status 2")
 * @lost_said: the status line said how to lose no more (once a run)
 */
struct ui_loop {
	bool dirty;
	double next_tick;
	double last_nav;
	double rerank_at;
	bool pending;
	bool go_home;
	size_t seen;
	uint32_t generation;
	bool cmd_done;
	char cmd_what[128];
	bool lost_said;
};

/**
 * struct ui_input - the input line (overlay.c)
 * @prompt: what it asks for (PR_NONE: closed)
 * @fresh: it still holds the prefilled old value: typing replaces it
 * @kfilter_event: the event F edits the kernel filter of
 * @text: what is typed
 * @saved: the text when it opened (Esc goes back to it)
 * @note: shown after the text ("[not found]", the kernel's reason)
 */
struct ui_input {
	enum ui_prompt prompt;
	bool fresh;
	int kfilter_event;
	char text[UI_TEXT];
	char saved[UI_TEXT];
	char note[64];
};

/**
 * struct ui_status_line - the bottom line's message (ui_status())
 * @text: the message, sanitized
 * @err: shown as an error
 * @until: shown until then
 * @confirm_reset: r was pressed once: a second r resets
 * @confirm_until: the second r counts until then
 */
struct ui_status_line {
	char text[256];
	bool err;
	double until;
	bool confirm_reset;
	double confirm_until;
};

/**
 * struct ui_overlays - what covers the view for a while (overlay.c)
 * @open: which one is open (OV_NONE: none)
 * @pk: the picker
 * @help: the help
 */
struct ui_overlays {
	enum ui_overlay open;
	struct picker pk;
	struct help_view help;
};

/**
 * struct ui_private - the screen's own state
 * @opts: the options it was started with
 * @delay: the refresh interval in seconds
 * @lines: the terminal's lines
 * @term: the terminal's input and colours, the last click
 * @loop: timing, what is due
 * @in: the input line
 * @msg: the status line
 * @ov: the overlays
 * @frozen: the paused view's JSON snapshot, what P writes from while paused
 *          (save.c: ui_save_freeze()); "" when none
 */
struct ui_private {
	struct ui_opts opts;
	double delay;
	int lines;
	struct ui_term term;
	struct ui_loop loop;
	struct ui_input in;
	struct ui_status_line msg;
	struct ui_overlays ov;
	char frozen[96];
};

/**
 * ui_mut() - the screen, writable, in one of its actions (a view's
 *	context is const: the action is the screen's, called by the view)
 * @ui: the screen
 *
 * Return: @ui.
 */
static inline struct ui *ui_mut(const struct ui *ui)
{
	return (struct ui *)ui;
}

#endif /* STACKTOP_UI_SCREEN_STATE_H */
