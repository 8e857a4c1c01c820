/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame_view.h - the flame graph on the screen (flame_view.c): built from
 * the matching stacks at every refresh, drawn over the list's area with the
 * selected box's line at its foot; moved through with the arrows, zoomed
 * with Enter and Backspace, searched with /.
 */
#ifndef STACKTOP_UI_FLAME_VIEW_H
#define STACKTOP_UI_FLAME_VIEW_H

#include <stdbool.h>

#include "ui/keys.h"
#include "ui/tui.h"

void flame_view_init(struct ui *ui);
void flame_view_done(struct ui *ui);
/* the table was cleared: every node goes (the zoom and the selection, paths of names, stay) */
void flame_view_forget(struct ui *ui);
/* the caller tree of the stacks the view matches, in the graph's order */
void flame_view_build(struct ui *ui);
/* the title line, the boxes, the selected box's line */
void flame_view_draw(struct ui *ui);
/* nothing to draw (no stack matches) */
bool flame_view_empty(const struct ui *ui);
/* arrows: parent, child, neighbours; Home, End, PgUp, PgDn; Enter zooms; C zooms out fully */
bool flame_view_action(struct ui *ui, enum ui_action act);
/* zoom into the selected box (an ancestor bar: out to it); R_* flags */
int flame_view_zoom(struct ui *ui);
/* one zoom step back; R_* flags */
int flame_view_zoom_out(struct ui *ui);
/* select the next box the search matches */
bool flame_view_search(struct ui *ui, int dir, bool include_current);
void flame_view_save(struct ui *ui);
void flame_view_restore(struct ui *ui);
/* a click at (@y, @x): select the box there, zoom on a double click; R_* flags, 0: no box */
int flame_view_click(struct ui *ui, int y, int x, bool dclick);
/* the wheel: the selection @lines levels down (up when negative) */
void flame_view_scroll(struct ui *ui, int lines);

#endif /* STACKTOP_UI_FLAME_VIEW_H */
