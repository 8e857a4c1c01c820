/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diffcol.h - the screen's diff mode (--diff BEFORE AFTER on a terminal):
 * BEFORE's share of every stack, by stable key, for the BEF% and CHG%
 * columns; the ranking by the change of share (the default sort in diff
 * mode, as the batch diff ranks) and the GONE rows: BEFORE's stacks that
 * AFTER does not have, drawn with BEFORE's symbols.
 */
#ifndef STACKTOP_UI_DIFFCOL_H
#define STACKTOP_UI_DIFFCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ui;
struct ksym;
struct rank_row;
struct session;
struct stack;

/* what a row is against BEFORE */
enum uidiff_kind {
	UIDIFF_BOTH, /* hits on both sides (or on neither) */
	UIDIFF_NEW,  /* hits only after */
	UIDIFF_GONE, /* hits only before */
};

/**
 * uidiff_new() - remember BEFORE's stacks by key; their counts (interval
 * and total) are taken under the screen's event, pid and CPU filters
 * @ui: screen (its @diff is set)
 * @before: the BEFORE session, drained
 *
 * Return: 0 or -ENOMEM.
 */
int uidiff_new(struct ui *ui, struct session *before);

/**
 * uidiff_finish() - complete a diff-mode ranking: append BEFORE's stacks
 * that no row of @rows has (GONE rows, counts 0, their stack from BEFORE),
 * unless a text or comm filter is on (those match AFTER's names), then sort
 * by the change of share when that is the sort (ui->diff_sort)
 * @ui: screen
 * @rows: every ranked stack of AFTER
 * @n: entries in @rows
 * @cap: room in @rows
 *
 * Return: the entries in @rows now.
 */
size_t uidiff_finish(struct ui *ui, struct rank_row *rows, size_t n, size_t cap);

/**
 * uidiff_recount() - BEFORE's counts under the screen's event, pid and CPU
 * filters and count (hits or weights), again if they changed since
 * @ui: screen (with a diff)
 */
void uidiff_recount(struct ui *ui);

/**
 * uidiff_sort() - sort @rows by the change of share (largest first, or
 * smallest with ui->rank.invert), then by the share after, then by key
 * @ui: screen
 * @rows: rows
 * @n: entries
 */
void uidiff_sort(const struct ui *ui, struct rank_row *rows, size_t n);

/**
 * uidiff_room() - how many GONE rows uidiff_finish() may add at most
 * @ui: screen (0 without a diff)
 */
size_t uidiff_room(const struct ui *ui);

/**
 * uidiff_ngone() - the GONE rows the last ranking added
 * @ui: screen (0 without a diff)
 */
size_t uidiff_ngone(const struct ui *ui);

/**
 * uidiff_row() - a row against BEFORE
 * @ui: screen
 * @rr: the row
 * @before: receives BEFORE's share of the row's key, in percent
 * @change: receives the share now (the row's count of every matching hit)
 *          minus @before, in percentage points
 *
 * Return: what the row is.
 */
enum uidiff_kind uidiff_row(const struct ui *ui, const struct rank_row *rr, double *before,
			    double *change);

/**
 * uidiff_is_before() - whether @st is a stack of BEFORE (a GONE row)
 * @ui: screen
 * @st: stack
 */
bool uidiff_is_before(const struct ui *ui, const struct stack *st);

/**
 * uidiff_ksym() - the symbols to print @st with: BEFORE's for its stacks
 * @ui: screen
 * @st: stack
 */
struct ksym *uidiff_ksym(const struct ui *ui, const struct stack *st);

/**
 * uidiff_forget() - drop the cached keys of AFTER's stacks (its table was cleared)
 * @ui: screen
 */
void uidiff_forget(struct ui *ui);

/**
 * uidiff_free() - forget; no-op without a diff
 * @ui: screen
 */
void uidiff_free(struct ui *ui);

#endif /* STACKTOP_UI_DIFFCOL_H */
