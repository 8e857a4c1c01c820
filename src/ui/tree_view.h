/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree_view.h - the caller tree (merged from the root frame) and the
 * callee tree (merged by the leaf), built from the ranked stacks
 * (tree_view.c: its state is its own).
 */
#ifndef STACKTOP_UI_TREE_VIEW_H
#define STACKTOP_UI_TREE_VIEW_H

#include "ui/tui.h"

/* the call trees: t opens the caller tree, t again the callee tree, t again the list */
extern const struct ui_view_ops tree_view_ops;

#endif /* STACKTOP_UI_TREE_VIEW_H */
