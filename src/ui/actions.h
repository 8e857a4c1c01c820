/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * actions.h - what a key or a click does (actions.c): one function per
 * action of the key table (keys.h), each returning R_* reaction flags
 * (tui.h) that only the loop (screen.c) acts on.
 */
#ifndef STACKTOP_UI_ACTIONS_H
#define STACKTOP_UI_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/keys.h"
#include "ui/tui.h"

/**
 * ui_dispatch() - do what an action of the key table does: the view on
 *	screen answers it first (its action hook), else the screen's own
 *	function for it
 * @ui: the screen
 * @act: the action
 *
 * Return: R_* flags for the loop, 0 for nothing.
 */
int ui_dispatch(struct ui *ui, enum ui_action act);

/**
 * ui_key() - one key or mouse event: to the input line or an overlay when
 *	one is open, else through the key table to ui_dispatch()
 * @ui: the screen
 * @key: character or curses key code (KEY_MOUSE: the event is read here)
 * @fkey: @key is a curses key code (get_wch() said KEY_CODE_YES)
 *
 * Return: R_* flags for the loop, 0 for nothing.
 */
int ui_key(struct ui *ui, int key, bool fkey);

#endif /* STACKTOP_UI_ACTIONS_H */
