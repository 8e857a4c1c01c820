/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * draw.h - drawing primitives and colours, below every view: the one
 * header of ui/ that includes curses.
 */
#ifndef STACKTOP_UI_DRAW_H
#define STACKTOP_UI_DRAW_H

#include <curses.h>
#include <stdbool.h>

struct ui;

/* colour pairs (attributes in monochrome) */
enum ui_color {
	UC_NORMAL,
	UC_HEADER_LABEL,
	UC_HEADER_VALUE,
	UC_ALERT,
	UC_COLTITLE,
	UC_SORTCOL,
	UC_SELECTED,
	UC_FRAME,
	UC_FRAME_MOD,
	UC_STATUS_INFO,
	UC_STATUS_ERR,
	UC_KEYBAR_KEY,
	UC_KEYBAR_TEXT,
	UC_PAUSED,
	UC_MATCH,
	UC_DIM,
	/* the flame graph's boxes: by what the frame is, and as it is shown */
	UC_FLAME_KERNEL,
	UC_FLAME_MODULE,
	UC_FLAME_USER,
	UC_FLAME_TRACE,
	UC_FLAME_SEP,
	UC_FLAME_ANCESTOR,
	UC_FLAME_SEL,
	UC_FLAME_MATCH,
	UC_MAX,
};

/**
 * ui_now() - monotonic time in seconds
 */
double ui_now(void);

/**
 * ui_colors_init() - set up the colour pairs (or the monochrome attributes
 * when @ui->priv->term.color is off or the terminal has no colours)
 * @ui: screen; @ui->priv->term.color is cleared when colours cannot be used
 */
void ui_colors_init(struct ui *ui);

/**
 * ui_attr() - the attribute of a colour role
 * @ui: screen
 * @c: role
 */
attr_t ui_attr(const struct ui *ui, enum ui_color c);

/**
 * ui_set_ascii_only() - the terminal's charset is not UTF-8: ui_put() shows
 * one '?' per non-ASCII character
 * @on: wanted state
 */
void ui_set_ascii_only(bool on);

/**
 * ui_put() - @text cut to @width columns (never wrapped), padded with
 * blanks, at (@y, @x) in @attr; @text must already be sanitized
 * @y: line
 * @x: column
 * @width: columns
 * @attr: attribute
 * @text: text
 */
void ui_put(int y, int x, int width, attr_t attr, const char *text);

/**
 * ui_status() - a message in the status line for a few seconds
 * @ui: screen
 * @err: shown as an error
 * @fmt: printf format
 */
void ui_status(const struct ui *ui, bool err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* STACKTOP_UI_DRAW_H */
