/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame_layout.h - where the boxes of the flame graph go (flame_layout.c):
 * pure arithmetic on the caller tree (core/calltree.h), no curses, so that
 * the unit tests check it (tests/tui/test-uifmt.c).
 *
 * Level 0 is the virtual root ("all"), level L + 1 the tree's nodes of
 * depth L: the roots on top, callees below. Within a parent the children
 * stand in a stable order (the caller's comparison: by name, as
 * flamegraph.pl), so that boxes keep their places from one refresh to the
 * next; only their widths change.
 *
 * A box covers [x, x + w) of @width columns: its edges are the counts to
 * its left and to its right end, scaled to the zoomed node's count and
 * rounded to the nearest column, so every box is within half a column of
 * its share at either edge (its width within one column of it), children
 * nest inside their parent, and boxes of one level never overlap. The
 * zoomed node and its ancestors take the whole width.
 *
 * A frame whose share is under half a column is narrow. Narrow siblings
 * side by side are one marker box (@more: how many frames it stands for,
 * drawn "+N") from the rounded edge of the first to that of the last, so
 * that many small callees show as there rather than vanish; nothing is
 * drawn below a marker. A lone narrow frame is its own box when its rounded
 * edges part, else left out with its callees (as is a run whose edges meet).
 */
#ifndef STACKTOP_UI_FLAME_LAYOUT_H
#define STACKTOP_UI_FLAME_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/calltree.h"

/**
 * struct flame_link - a node's place in the flame graph's order
 * @first: its first child in that order, CALLTREE_NONE for none
 * @next: its next sibling in that order, CALLTREE_NONE for none
 * @off: the count of every box left of it on its level, from the root
 */
struct flame_link {
	uint32_t first;
	uint32_t next;
	uint64_t off;
};

/**
 * struct flame_box - one box on screen
 * @node: calltree node (0: the root, "all")
 * @level: 0 for the root, depth + 1 for a node
 * @x: first column
 * @w: columns (at least 1)
 * @ancestor: above the zoomed node (drawn dimmed, full width)
 * @more: 0 for a frame's box; for a marker, the number of narrow sibling
 *        frames it aggregates (@node is the first of them; nothing is
 *        drawn below a marker)
 */
struct flame_box {
	uint32_t node;
	int level;
	int x;
	int w;
	bool ancestor;
	uint32_t more;
};

/**
 * flame_edge() - a box's edge: @off of @total counts at @width columns,
 * rounded to the nearest column
 * @off: counts left of the edge
 * @total: counts of the whole width
 * @width: columns
 */
int flame_edge(uint64_t off, uint64_t total, int width);

/**
 * flame_order() - link every node's children in the order of @cmp and
 * compute the offsets
 * @ct: the tree
 * @links: @ct->nnodes entries, filled
 * @cmp: strcmp-like order of two sibling nodes (ties must be broken: a
 *       total order)
 * @ctx: passed to @cmp
 *
 * Return: 0, -ENOMEM.
 */
int flame_order(const struct calltree *ct, struct flame_link *links,
		int (*cmp)(void *ctx, uint32_t a, uint32_t b), void *ctx);

/**
 * flame_layout() - the boxes of the graph zoomed on @zoom, level by level,
 * left to right within a level
 * @ct: the tree
 * @links: from flame_order()
 * @zoom: the node that takes the whole width (0: the root)
 * @width: columns
 * @out: boxes
 * @max: room in @out
 *
 * Return: boxes written (at most @max).
 */
size_t flame_layout(const struct calltree *ct, const struct flame_link *links, uint32_t zoom,
		    int width, struct flame_box *out, size_t max);

#endif /* STACKTOP_UI_FLAME_LAYOUT_H */
