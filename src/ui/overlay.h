/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * overlay.h - what covers the list for a while (overlay.c): the help,
 * the pickers (event, sort column, save format), the input line and the
 * incremental search it drives.
 */
#ifndef STACKTOP_UI_OVERLAY_H
#define STACKTOP_UI_OVERLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/screen_state.h"
#include "ui/tui.h"

/**
 * help_open() - open the help: the key table, the mouse, the screen's words
 * @ui: the screen
 */
void help_open(struct ui *ui);

/**
 * help_draw() - draw the help over the whole screen
 * @ui: the screen
 */
void help_draw(struct ui *ui);

/**
 * help_key() - a key while the help is open: the moving keys scroll it,
 *	any other closes it
 * @ui: the screen
 * @key: character or curses key code
 * @fkey: @key is a curses key code
 */
void help_key(struct ui *ui, int key, bool fkey);

/**
 * picker_open() - open a picker: an event, a sort column or the format P
 *	saves in, the current one selected
 * @ui: the screen
 * @kind: what is picked
 */
void picker_open(struct ui *ui, enum ui_picker kind);

/**
 * picker_draw() - draw the open picker over the view
 * @ui: the screen
 */
void picker_draw(struct ui *ui);

/**
 * picker_key() - a key while a picker is open: typing narrows the items,
 *	the arrows move, Enter picks, Esc closes
 * @ui: the screen
 * @key: character or curses key code
 * @fkey: @key is a curses key code
 *
 * Return: R_* flags.
 */
int picker_key(struct ui *ui, int key, bool fkey);

/**
 * picker_pick() - close the picker and apply the selected item (the event
 *	filter, the sort, or the view saved in that format)
 * @ui: the screen
 *
 * Return: R_* flags.
 */
int picker_pick(struct ui *ui);

/**
 * prompt_open() - open the input line; a search prompt first has every
 *	view remember its folds, selection and scroll (Esc restores them)
 * @ui: the screen
 * @p: what it asks for
 * @initial: the text it starts with (the value in force; typing replaces it)
 */
void prompt_open(struct ui *ui, enum ui_prompt p, const char *initial);

/**
 * prompt_key() - a key while the input line is open: editing (a search
 *	or filter applies at each key), Enter accepts, Esc goes back
 * @ui: the screen
 * @key: character or curses key code
 * @fkey: @key is a curses key code
 *
 * Return: R_* flags.
 */
int prompt_key(struct ui *ui, int key, bool fkey);

/**
 * ui_search() - the view on screen selects its next (@dir 1) or previous
 *	(-1) match of the search (its search hook); "not found" said when none
 * @ui: the screen
 * @dir: direction
 * @include_current: the selected row may be the match
 *
 * Return: R_* flags.
 */
int ui_search(struct ui *ui, int dir, bool include_current);

#endif /* STACKTOP_UI_OVERLAY_H */
