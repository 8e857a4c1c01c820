/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame_priv.h - what the flame graph's two files share: flame_view.c
 * (the build, the layout for the screen, the search's marks, moving and
 * zooming; the bottom one) and flame_draw.c (drawing, above it).
 */
#ifndef STACKTOP_UI_FLAME_PRIV_H
#define STACKTOP_UI_FLAME_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "core/calltree.h"
#include "ui/tui.h"

/* how the stacks become the graph's tree: the screen's skip and symbols, the machinery kept */
void flame_ops(struct ui *ui, struct calltree_ops *ops);
/* a node's name on its box: its function, "all", or the process at the user/kernel seam */
const char *flame_name(struct ui *ui, uint32_t node, char *buf, size_t size);
/* the boxes for the screen's width, scrolled so that the selection shows */
void flame_layout_screen(struct ui *ui);
/* marks the nodes the search matches; returns the share of the outermost ones */
uint64_t flame_match(struct ui *ui, size_t *nmatch);

#endif /* STACKTOP_UI_FLAME_PRIV_H */
