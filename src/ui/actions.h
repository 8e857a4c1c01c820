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

int ui_dispatch(struct ui *ui, enum ui_action act);
int ui_key(struct ui *ui, int key, bool fkey);


#endif /* STACKTOP_UI_ACTIONS_H */
