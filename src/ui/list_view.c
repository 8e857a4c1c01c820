// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * list_view.c - the generic list widget: selection, scrolling, paging and
 * mouse rows over callbacks. Views embed struct list_view as their first
 * member and recover themselves with container_of().
 */
#include "ui/draw.h"
#include "ui/list_view.h"
#include "ui/tui.h"

void list_view_init(struct list_view *lv, const struct list_view_ops *ops)
{
	lv->ops = ops;
	lv->nr = 0;
	lv->sel = -1;
	lv->top = 0;
	lv->y = 0;
	lv->height = 0;
}

static void list_view_clamp(struct list_view *lv)
{
	if (lv->nr <= 0) {
		lv->sel = -1;
		lv->top = 0;
		return;
	}
	if (lv->sel < 0)
		lv->sel = 0;
	if (lv->sel >= lv->nr)
		lv->sel = lv->nr - 1;
	if (lv->height <= 0) {
		/* no room (a terminal too small): keep the scroll for when it grows */
		if (lv->top > lv->sel)
			lv->top = lv->sel;
		return;
	}
	if (lv->top > lv->sel)
		lv->top = lv->sel;
	if (lv->sel >= lv->top + lv->height)
		lv->top = lv->sel - lv->height + 1;
	/* no blank space below the last row when there are rows above */
	if (lv->top > lv->nr - lv->height)
		lv->top = lv->nr - lv->height;
	if (lv->top < 0)
		lv->top = 0;
}

void list_view_set_area(struct list_view *lv, int y, int height)
{
	lv->y = y;
	lv->height = height > 0 ? height : 0;
	list_view_clamp(lv);
}

void list_view_set_rows(struct list_view *lv, int nr)
{
	lv->nr = nr;
	list_view_clamp(lv);
}

void list_view_select(struct list_view *lv, int row)
{
	lv->sel = row;
	list_view_clamp(lv);
}

bool list_view_action(struct list_view *lv, enum ui_action act)
{
	int page = lv->height > 1 ? lv->height - 1 : 1;

	switch (act) {
	case ACT_UP:
		lv->sel--;
		break;
	case ACT_DOWN:
		lv->sel++;
		break;
	case ACT_PGUP:
		lv->sel -= page;
		lv->top -= page;
		break;
	case ACT_PGDN:
		lv->sel += page;
		lv->top += page;
		break;
	case ACT_HOME:
		lv->sel = 0;
		break;
	case ACT_END:
		lv->sel = lv->nr - 1;
		break;
	default:
		return false;
	}
	if (lv->top < 0)
		lv->top = 0;
	list_view_clamp(lv);
	return true;
}

void list_view_scroll(struct list_view *lv, int lines)
{
	lv->top += lines;
	if (lv->top > lv->nr - lv->height)
		lv->top = lv->nr - lv->height;
	if (lv->top < 0)
		lv->top = 0;
	/* keep the selection on screen, as htop does when the wheel scrolls */
	if (lv->sel < lv->top)
		lv->sel = lv->top;
	if (lv->height > 0 && lv->sel >= lv->top + lv->height)
		lv->sel = lv->top + lv->height - 1;
	list_view_clamp(lv);
}

int list_view_row_at(const struct list_view *lv, int y)
{
	int row;

	if (y < lv->y || y >= lv->y + lv->height)
		return -1;
	row = lv->top + (y - lv->y);
	return row < lv->nr ? row : -1;
}

void list_view_draw(struct list_view *lv)
{
	int i;

	for (i = 0; i < lv->height; i++) {
		int row = lv->top + i;

		move(lv->y + i, 0);
		clrtoeol();
		if (row < lv->nr)
			lv->ops->draw_row(lv, row, lv->y + i, row == lv->sel);
	}
}
