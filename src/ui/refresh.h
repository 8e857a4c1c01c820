/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * refresh.h - what the screen does when the data or the filters change
 * (refresh.c): the filters handed to the ranking, a new ranking, the
 * stack pointers forgotten when the core clears its table.
 */
#ifndef STACKTOP_UI_REFRESH_H
#define STACKTOP_UI_REFRESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/tui.h"

/* the \\ and p filters into the ranking options; re-rank once typing pauses */
int ui_apply_filters(struct ui *ui);
/* rank again (from live data when @live, else the frozen snapshot re-sorted) */
void ui_rank(struct ui *ui, bool live);
/* read the session's header and rank from live data now */
int ui_refresh_now(struct ui *ui);
/* the core cleared its table (reset, new generation): forget every stack pointer */
bool ui_check_generation(struct ui *ui);
/* drop every pointer to a stack the views keep */
void ui_forget_stacks(struct ui *ui);

#endif /* STACKTOP_UI_REFRESH_H */
