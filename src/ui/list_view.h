/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * list_view.h - the list widget (struct list_view, tui.h) every list of
 * the screen embeds: selection, scrolling, paging over callbacks.
 */
#ifndef STACKTOP_UI_LIST_VIEW_H
#define STACKTOP_UI_LIST_VIEW_H

#include <stdbool.h>

#include "ui/keys.h"
#include "ui/tui.h"

/**
 * list_view_init() - an empty list: no rows, no selection, no area
 * @lv: the list
 * @ops: what draws its rows
 */
void list_view_init(struct list_view *lv, const struct list_view_ops *ops);

/**
 * list_view_set_area() - the screen lines the list takes; the scroll keeps
 *	the selection in them
 * @lv: the list
 * @y: first line
 * @height: lines (0 or less: none, a terminal too small)
 */
void list_view_set_area(struct list_view *lv, int y, int height);

/**
 * list_view_set_rows() - the number of rows changed; the selection and the
 *	scroll are kept within them
 * @lv: the list
 * @nr: rows
 */
void list_view_set_rows(struct list_view *lv, int nr);

/**
 * list_view_select() - select row @row (clamped to the rows), scrolled
 *	into view
 * @lv: the list
 * @row: the row
 */
void list_view_select(struct list_view *lv, int row);

/**
 * list_view_action() - move the selection: up, down, a page, first, last
 * @lv: the list
 * @act: the action
 *
 * Return: false when @act is not one of those (nothing done).
 */
bool list_view_action(struct list_view *lv, enum ui_action act);

/**
 * list_view_scroll() - scroll @lines down (up when negative), the
 *	selection kept on screen (the wheel, as htop)
 * @lv: the list
 * @lines: lines
 */
void list_view_scroll(struct list_view *lv, int lines);

/**
 * list_view_row_at() - the row shown at screen line @y
 * @lv: the list
 * @y: screen line
 *
 * Return: the row, -1 when no row is there.
 */
int list_view_row_at(const struct list_view *lv, int y);

/**
 * list_view_draw() - draw the rows in the area (lines without a row are
 *	cleared) through @lv->ops->draw_row
 * @lv: the list
 */
void list_view_draw(struct list_view *lv);

#endif /* STACKTOP_UI_LIST_VIEW_H */
