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

extern const char *const prompt_label[];
extern const char *const rank_key_name[RANK_KEY_MAX];

/**
 * ui_sort_name() - what the stack view is sorted by: a column's name, or
 * "CHG%" (diff mode, by the change of share)
 * @ui: screen
 */
const char *ui_sort_name(const struct ui *ui);
void ui_draw_header(struct ui *ui);
void ui_draw_bottom(struct ui *ui);

/**
 * ui_header_lines() - lines the header takes (4 with the kernel map's line)
 * @ui: screen
 */
int ui_header_lines(const struct ui *ui);

#endif /* STACKTOP_UI_HEADER_H */
