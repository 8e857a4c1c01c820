/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diffcol.h - the screen's diff mode (--diff BEFORE AFTER on a terminal):
 * BEFORE's share of every stack, by stable key, for the CHG% column.
 */
#ifndef STACKTOP_UI_DIFFCOL_H
#define STACKTOP_UI_DIFFCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ui;
struct session;
struct stack;

/**
 * uidiff_new() - remember BEFORE's hits per stack key (interval and total)
 * @ui: screen (its @diff is set)
 * @before: the BEFORE session, drained
 *
 * Return: 0 or -ENOMEM.
 */
int uidiff_new(struct ui *ui, struct session *before);

/**
 * uidiff_cell() - the CHG% cell of a row: the change of its share (its
 * @part of @whole, in percent) against BEFORE's share, "+1.2" / "-0.4",
 * or "NEW" when BEFORE has no such stack
 * @ui: screen
 * @st: the row's stack
 * @part: the row's count (the view's: interval or total)
 * @whole: every matching hit
 * @buf: output
 * @size: size of @buf
 *
 * Return: true for NEW.
 */
bool uidiff_cell(struct ui *ui, const struct stack *st, uint64_t part, uint64_t whole, char *buf,
		 size_t size);

/**
 * uidiff_free() - forget; no-op without a diff
 * @ui: screen
 */
void uidiff_free(struct ui *ui);

#endif /* STACKTOP_UI_DIFFCOL_H */
