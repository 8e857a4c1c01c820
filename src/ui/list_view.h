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

void list_view_init(struct list_view *lv, const struct list_view_ops *ops);
void list_view_set_area(struct list_view *lv, int y, int height);
void list_view_set_rows(struct list_view *lv, int nr);
void list_view_select(struct list_view *lv, int row);
bool list_view_action(struct list_view *lv, enum ui_action act);
void list_view_scroll(struct list_view *lv, int lines);
int list_view_row_at(const struct list_view *lv, int y);
void list_view_draw(struct list_view *lv);

#endif /* STACKTOP_UI_LIST_VIEW_H */
