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

/**
 * ui_apply_filters() - the \\ and p filters into the ranking options; a
 *	re-rank once the typing pauses (UI_DEBOUNCE_SEC), the first row
 *	selected after it
 * @ui: the screen
 *
 * Return: R_* flags.
 */
int ui_apply_filters(struct ui *ui);

/**
 * ui_rank() - every view's refresh hook: each ranks or builds again as it
 *	needs (from live data when @live, else the frozen snapshot re-sorted)
 * @ui: the screen
 * @live: from live data
 */
void ui_rank(struct ui *ui, bool live);

/**
 * ui_refresh_now() - read the session's header (unless paused) and rank
 *	from live data now
 * @ui: the screen
 *
 * Return: R_* flags.
 */
int ui_refresh_now(struct ui *ui);

/**
 * ui_check_generation() - has the core cleared its table (a reset, a new
 *	generation) since the last check: then every stack pointer is forgotten
 * @ui: the screen
 *
 * Return: true when it had.
 */
bool ui_check_generation(struct ui *ui);

/**
 * ui_forget_stacks() - drop every pointer to a stack the screen keeps:
 *	every view's forget hook, the filters' and the symbol cache's per-stack
 *	results, the diff's keys
 * @ui: the screen
 */
void ui_forget_stacks(struct ui *ui);

#endif /* STACKTOP_UI_REFRESH_H */
