/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * breakdown.h - the breakdown pane (breakdown.c): a cached count of who
 * hits one stack or tree node, by event, comm(pid), CPU and origin.
 */
#ifndef STACKTOP_UI_BREAKDOWN_H
#define STACKTOP_UI_BREAKDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/tui.h"

struct breakdown *breakdown_new(void);
void breakdown_forget(struct breakdown *bd);
void breakdown_free(struct breakdown *bd);


/**
 * breakdown_draw() - the pane under the list: who hits @st (or every stack
 *	through the tree node @nd) by event, comm(pid), CPU and origin;
 *	recomputed only when what it depends on changed
 * @ui: the screen (its stack view holds the cached breakdown)
 * @st: the stack selected (stack view), or NULL
 * @frame: the frame of @st its title names: the one the selected row
 *	shows first (stack_view_selected_frame())
 * @nd: the node selected (tree view), or NULL
 */
void breakdown_draw(struct ui *ui, const struct stack *st, unsigned int frame,
		    const struct tnode *nd);

#endif /* STACKTOP_UI_BREAKDOWN_H */
