/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * views.h - what every view shares (views.c): going from one view to
 * another, the double click, the empty view's message, the sort's name;
 * counts or weights in the weight's unit, rates, the titles that say
 * which, and the frames a stack starts with that are the tracing
 * machinery's (skipped, cached).
 */
#ifndef STACKTOP_UI_VIEWS_H
#define STACKTOP_UI_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/stack_table.h"
#include "ui/tui.h"

/* ---- the views ------------------------------------------------------------- */

/* every view of @ui in turn, the home view first (@vp: struct ui_view **) */
#define ui_for_each_view(ui, vp) for ((vp) = (ui)->views; *(vp); (vp)++)

/**
 * ui_view_shown() - is @v the view on screen
 * @v: a view
 */
static inline bool ui_view_shown(const struct ui_view *v)
{
	return v->ui->view == v;
}

/**
 * ui_view_open() - put @to on screen: the view there is left (its leave
 *	hook), @to told it was opened by its key (its open hook) when @by_key
 * @ui: screen
 * @to: the view to show
 * @by_key: its key opened it (not a view going back to the one it came from)
 *
 * Return: R_* flags (the areas and the ranking are new).
 */
int ui_view_open(const struct ui *ui, struct ui_view *to, bool by_key);

/**
 * ui_view_opened_by() - the view whose key is @act (struct ui_view_ops.opens)
 * @ui: screen
 * @act: an action
 *
 * Return: the view, NULL when no view opens with @act.
 */
struct ui_view *ui_view_opened_by(struct ui *ui, enum ui_action act);

/**
 * ui_sort_by() - the screen's action a view asks for to sort its rows: by
 *	@key (the same key again inverts the order), or with @diff by the
 *	change of share of --diff (again inverts); the status line says it
 * @ui: the screen
 * @key: the rank key (ignored with @diff)
 * @diff: sort by the change of share
 *
 * Return: R_RESORT.
 */
int ui_sort_by(const struct ui *ui, enum rank_key key, bool diff);

/**
 * ui_dclick() - is a button-1 press a double click: a second press on the
 *	same spot of the same owner within UI_DCLICK_SEC, or @hint
 * @ui: screen (keeps the last press)
 * @owner: what was clicked (a list, a view)
 * @spot: where in it (a row, a cell)
 * @hint: the terminal said it is a double click
 */
bool ui_dclick(const struct ui *ui, const void *owner, int spot, bool hint);

/**
 * ui_list_click() - a press at line @y of a list: its row selected
 * @ui: screen
 * @lv: the list
 * @y: screen line
 * @hint: the terminal said it is a double click
 *
 * Return: -1 no row there, 1 a double click on the row, else 0.
 */
int ui_list_click(const struct ui *ui, struct list_view *lv, int y, bool hint);

/**
 * ui_draw_empty() - why a view has nothing to show (no events yet,
 *	tracing off, the filters), in its area
 * @ui: screen
 */
void ui_draw_empty(const struct ui *ui);

/* the sort keys' names, as the column titles say them */
extern const char *const rank_key_name[RANK_KEY_MAX];

/**
 * ui_sort_name() - what the stack view is sorted by: a column's name, or
 * "CHG%" (diff mode, by the change of share)
 * @ui: screen
 */
const char *ui_sort_name(const struct ui *ui);

/* ---- what the views count ------------------------------------------------------ */

/**
 * ui_stack_skip() - brief_skip() of @st (the tracing machinery's frames it
 *	starts with), cached per stack (symcache_skip())
 * @ui: screen
 * @st: stack
 */
unsigned int ui_stack_skip(const struct ui *ui, const struct stack *st);

/**
 * ui_fmt_count() - a count in the unit of the weight in force (hits when
 *	none: ranked by hits, or no weight)
 * @ui: screen
 * @buf: output
 * @size: its size
 * @n: the count
 *
 * Return: as snprintf().
 */
int ui_fmt_count(const struct ui *ui, char *buf, size_t size, uint64_t n);

/**
 * ui_fmt_rate() - @delta of the last interval per second, in the unit of
 *	the weight in force
 * @ui: screen
 * @buf: output
 * @size: its size
 * @delta: the interval's count
 *
 * Return: as snprintf().
 */
int ui_fmt_rate(const struct ui *ui, char *buf, size_t size, uint64_t delta);

/**
 * ui_count_title() - the count column's title: DELTA or TOTAL, TIME or
 *	WEIGHT when weighted
 * @ui: screen
 */
const char *ui_count_title(const struct ui *ui);

/**
 * ui_weight_note() - "NAME time, " when ranked by a weight, "" by hits:
 *	what the titles say the counts are (a static buffer)
 * @ui: screen
 */
const char *ui_weight_note(const struct ui *ui);

/**
 * ui_attr_count() - what a stack's record counts in the view: hits or
 *	weight, of the interval or in total
 * @ui: screen
 * @a: the record (one event, pid, CPU, origin)
 */
uint64_t ui_attr_count(const struct ui *ui, const struct stack_attr *a);

/**
 * ui_wall_pct() - off-CPU time of the interval as a share of the interval
 *	(a thread's wall time): only when ranked by a time weight, in delta mode
 * @ui: screen
 * @buf: output
 * @size: its size
 * @ns: the time
 *
 * Return: false when it does not apply (@buf untouched).
 */
bool ui_wall_pct(const struct ui *ui, char *buf, size_t size, uint64_t ns);

#endif /* STACKTOP_UI_VIEWS_H */
