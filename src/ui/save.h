/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * save.h - P (save.c): the view, filters applied, written to
 * ./stacktop-DATE-TIME.SUFFIX in the format picked; paused, the numbers
 * the screen shows (ui_save_freeze()).
 */
#ifndef STACKTOP_UI_SAVE_H
#define STACKTOP_UI_SAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/tui.h"

/**
 * ui_save_view() - P: the view (filters applied) written to a new
 *	./stacktop-DATE-TIME.SUFFIX in format @fmt; what happened is said in
 *	the status line
 * @ui: the screen
 * @fmt: an enum export_format
 *
 * Return: R_* flags.
 */
int ui_save_view(struct ui *ui, int fmt);

/**
 * ui_save_freeze() - the view as the paused screen shows it kept for P: a
 *	JSON snapshot of every stack that passes the filters (and the
 *	header's counters), in a new directory of its own under /tmp (mode
 *	0700); what went wrong is said in the status line
 * @ui: the screen, just paused (or its paused rows ranked again)
 *
 * Return: 0, or -errno (P then writes the live counts).
 */
int ui_save_freeze(struct ui *ui);

/**
 * ui_save_thaw() - remove the paused view's snapshot (resumed, or quit);
 *	none is a no-op
 * @ui: the screen
 */
void ui_save_thaw(struct ui *ui);

#endif /* STACKTOP_UI_SAVE_H */
