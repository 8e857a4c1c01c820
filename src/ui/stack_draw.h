/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_draw.h - the stack view drawn (stack_draw.c): its columns, their
 * titles, its rows. Only stack_view.c includes it.
 */
#ifndef STACKTOP_UI_STACK_DRAW_H
#define STACKTOP_UI_STACK_DRAW_H

#include "ui/list_view.h"
#include "ui/stack_rank.h"

/* draws a row of the view's list (struct stack_view.lv) */
extern const struct list_view_ops stack_view_row_ops;

/**
 * stack_view_columns() - lay the columns out for the screen's width: the
 *	EVENT column as wide as the events seen need, BEF% and CHG% with
 *	--diff, ORIGIN with several -r snapshots, the sort column room for
 *	its mark
 * @sv: the view
 */
void stack_view_columns(struct stack_view *sv);

/**
 * stack_view_draw_titles() - the column titles at line @y
 * @sv: the view
 * @y: screen line
 */
void stack_view_draw_titles(struct stack_view *sv, int y);

/**
 * stack_view_col_at() - the column at screen column @x
 * @sv: the view
 * @x: screen column
 *
 * Return: an enum ui_col, -1 for none.
 */
int stack_view_col_at(struct stack_view *sv, int x);

#endif /* STACKTOP_UI_STACK_DRAW_H */
