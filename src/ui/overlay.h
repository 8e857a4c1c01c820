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

#include "ui/tui.h"

void help_open(struct ui *ui);
void help_draw(struct ui *ui);
void help_key(struct ui *ui, int key, bool fkey);
void picker_open(struct ui *ui, enum ui_picker kind);
void picker_draw(struct ui *ui);
int picker_key(struct ui *ui, int key, bool fkey);
int picker_pick(struct ui *ui);

void prompt_open(struct ui *ui, enum ui_prompt p, const char *initial);
int prompt_key(struct ui *ui, int key, bool fkey);
int ui_search(struct ui *ui, int dir, bool include_current);


#endif /* STACKTOP_UI_OVERLAY_H */
