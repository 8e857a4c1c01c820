/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_view_priv.h - what the ranked table's two halves share:
 * stack_view.c (columns, drawing, actions, search) and stack_rank.c
 * (ranking, rows, selection, per-row facts).
 */
#ifndef STACKTOP_STACK_VIEW_PRIV_H
#define STACKTOP_STACK_VIEW_PRIV_H

#include "ui/tui.h"

/* rows the view ranks when no --top limits it */
#define SV_DEFAULT_TOP 1000

/**
 * stack_view_info() - who hits a row's stack most (event, pid, comm,
 *	origin), computed at its first draw after a ranking and then kept
 * @ui: the screen
 * @rr: the row's ranking
 *
 * Return: the facts, or NULL when out of memory.
 */
const struct sv_info *stack_view_info(struct ui *ui, const struct rank_row *rr);

/**
 * stack_view_info_forget() - drop the kept facts (a new ranking)
 * @sv: the view
 */
void stack_view_info_forget(struct stack_view *sv);

/**
 * stack_view_event_label() - the EVENT column's text for event @ev
 * @ui: the screen
 * @ev: event index, -1 for none ("-")
 */
const char *stack_view_event_label(struct ui *ui, int ev);

/**
 * stack_view_common() - how many leaf frames of @rr's stack every row
 *	shares (left out as "...")
 * @ui: the screen
 * @rr: the row's ranking
 */
unsigned int stack_view_common(struct ui *ui, const struct rank_row *rr);

#endif /* STACKTOP_STACK_VIEW_PRIV_H */
