/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_view.h - the ranked table of stacks: its columns, drawing, actions
 * and search (stack_view.c); its ranking and rows are stack_rank.h.
 */
#ifndef STACKTOP_UI_STACK_VIEW_H
#define STACKTOP_UI_STACK_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/keys.h"
#include "ui/tui.h"

void stack_view_init(struct ui *ui);
void stack_view_done(struct ui *ui);
void stack_view_forget(struct ui *ui);
void stack_view_layout(struct ui *ui);
void stack_view_draw_titles(struct ui *ui, int y);
int stack_view_col_at(struct ui *ui, int x);
bool stack_view_action(struct ui *ui, enum ui_action act);
bool stack_view_search(struct ui *ui, int dir, bool include_current);
void stack_view_draw_empty(struct ui *ui);

#endif /* STACKTOP_UI_STACK_VIEW_H */
