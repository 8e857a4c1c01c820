/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_view.h - the ranked table of stacks, the home view (stack_view.c:
 * its columns, drawing, keys, mouse and search; its ranking and rows are
 * stack_rank.c's, its state struct stack_rank.h's).
 */
#ifndef STACKTOP_UI_STACK_VIEW_H
#define STACKTOP_UI_STACK_VIEW_H

#include "ui/tui.h"

/* the stack view: one row per stack, its frames inline when expanded */
extern const struct ui_view_ops stack_view_ops;

#endif /* STACKTOP_UI_STACK_VIEW_H */
