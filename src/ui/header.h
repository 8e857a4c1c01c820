/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * header.h - the screen's header (the session's, from ui->head, and the
 * view's) and its bottom line: the input line, a status message or the key
 * bar (header.c).
 */
#ifndef STACKTOP_UI_HEADER_H
#define STACKTOP_UI_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/rank.h"
#include "ui/tui.h"

/* the input line's label per enum ui_prompt */
extern const char *const prompt_label[];
/**
 * ui_draw_header() - the header: the session's lines (mode, rates and
 *	losses, the kernel map and its pool) and the view's line (the view's
 *	header hook, the sort, the filters, what is shown)
 * @ui: screen
 */
void ui_draw_header(struct ui *ui);

/**
 * ui_draw_bottom() - the bottom line: the input line when a prompt is
 *	open, else the status message while it lasts, else the key bar
 * @ui: screen
 */
void ui_draw_bottom(struct ui *ui);

/**
 * ui_header_lines() - lines the header takes: 3, 5 with the kernel map and its
 *	pool, 1 on a small terminal (ui_compact())
 * @ui: screen
 */
int ui_header_lines(const struct ui *ui);

/**
 * ui_compact() - the terminal is under 80x24: a one-line header (the rates
 *	and losses), the essential columns
 * @ui: screen
 */
bool ui_compact(const struct ui *ui);

#endif /* STACKTOP_UI_HEADER_H */
