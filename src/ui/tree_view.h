/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree_view.h - the caller tree (merged from the root frame) and the
 * callee tree (merged by the leaf), built from the ranked stacks
 * (tree_view.c).
 */
#ifndef STACKTOP_UI_TREE_VIEW_H
#define STACKTOP_UI_TREE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/keys.h"
#include "ui/tui.h"

void tree_view_init(struct ui *ui);
void tree_view_done(struct ui *ui);
void tree_view_forget(struct ui *ui);
void tree_view_build(struct ui *ui);
bool tree_view_action(struct ui *ui, enum ui_action act);
bool tree_view_search(struct ui *ui, int dir, bool include_current);
void tree_view_save(struct ui *ui);
void tree_view_restore(struct ui *ui);
void tree_view_draw_titles(struct ui *ui, int y);
const struct tnode *tree_view_selected(struct ui *ui);
bool tree_view_node_has(struct ui *ui, const struct tnode *nd, const struct stack *st);


#endif /* STACKTOP_UI_TREE_VIEW_H */
