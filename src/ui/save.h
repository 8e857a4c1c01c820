/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * save.h - P (save.c): the view, filters applied, written to
 * ./stacktop-DATE-TIME.SUFFIX in the format picked.
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

#endif /* STACKTOP_UI_SAVE_H */
