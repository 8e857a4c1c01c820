/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * keys.h - the one key table of the interactive screen.
 *
 * Every key binding lives in ui_keys[] (keys.c): the dispatcher looks keys
 * up there, the help screen and ui_print_keys() print it, and the man page's
 * KEYS section is generated from it (keys_print_man(), checked by
 * tests/tui/check-keys-man.sh). Binding another key to an existing action
 * is one line there. A new action is that line, its ACT_* value below,
 * and what it does: the action hook of the views it concerns (struct
 * ui_view_ops, tui.h), and/or its act_* function in actions.c's table for
 * the others; then check-keys-man.sh --update writes the man page's KEYS.
 */
#ifndef STACKTOP_UI_KEYS_H
#define STACKTOP_UI_KEYS_H

#include <stdbool.h>

#include <stdio.h>

enum ui_action {
	ACT_NONE,
	ACT_QUIT,
	ACT_HELP,
	ACT_UP,
	ACT_DOWN,
	ACT_PGUP,
	ACT_PGDN,
	ACT_HOME,
	ACT_END,
	ACT_TOGGLE,
	ACT_EXPAND,
	ACT_COLLAPSE,
	ACT_EXPAND_ALL,
	ACT_COLLAPSE_ALL,
	ACT_BREAKDOWN,
	ACT_TREE,
	ACT_WEIGHT,
	ACT_DEPTH_LESS,
	ACT_DEPTH_MORE,
	ACT_GROUP_BY,
	ACT_SEARCH,
	ACT_SEARCH_NEXT,
	ACT_SEARCH_PREV,
	ACT_FILTER,
	ACT_EVENT,
	ACT_PID,
	ACT_CLEAR,
	ACT_SORT_PREV,
	ACT_SORT_NEXT,
	ACT_SORT_PICK,
	ACT_INVERT,
	ACT_DELTA,
	ACT_PAUSE,
	ACT_DELAY,
	ACT_REDRAW,
	ACT_RESET,
	ACT_STACKMAP,
	ACT_SAVE,
	ACT_USER,
	ACT_KFILTER,
	ACT_FLAME,
	ACT_ZOOM_OUT,
	ACT_FLAME_ORDER,
	ACT_FLAME_INVERT,
	ACT_FLAME_TRACING,
	ACT_MAX,
};

/**
 * keys_moves() - @act moves through a view (arrows, pages, folding):
 * every view answers these itself
 * @act: an action
 */
static inline bool keys_moves(enum ui_action act)
{
	return act >= ACT_UP && act <= ACT_COLLAPSE_ALL;
}

#define KEYS_PER_BINDING 4

/**
 * struct ui_key - one line of the key table
 * @section: starts a new group in the help screen and the man page (NULL:
 *           same group as the line before)
 * @keys: key codes (characters or curses KEY_* values), 0-terminated
 * @names: the keys as printed ("q, F10")
 * @action: what they do
 * @help: one line of help
 */
struct ui_key {
	const char *section;
	int keys[KEYS_PER_BINDING];
	const char *names;
	enum ui_action action;
	const char *help;
};

extern const struct ui_key ui_keys[];
extern const unsigned int ui_nkeys;

/* the mouse, for the help screen and the man page */
extern const char keys_mouse_help[];

/**
 * keys_lookup() - the action bound to a key code
 * @key: character or curses key code
 *
 * Return: the action, ACT_NONE when the key is not bound.
 */
enum ui_action keys_lookup(int key, bool fkey);

/**
 * keys_print_man() - the KEYS section body of stacktop(8) in man(7) markup,
 * exactly what goes between the ".\" KEYS-BEGIN" and ".\" KEYS-END" lines
 * @f: output
 */
void keys_print_man(FILE *f);

#endif /* STACKTOP_UI_KEYS_H */
