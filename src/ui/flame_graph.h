/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame_graph.h - the flame view's state (struct flame_view) and its graph
 * (flame_graph.c: the build, the layout for the screen, the search's
 * marks, moving and zooming); flame_view.c, above it, is the view: it
 * draws the graph and answers the keys. Only those two include this.
 */
#ifndef STACKTOP_UI_FLAME_GRAPH_H
#define STACKTOP_UI_FLAME_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/calltree.h"
#include "ui/flame_layout.h"
#include "ui/keys.h"
#include "ui/tui.h"

/* what a flame graph box stands for (its colour) */
enum flame_kind {
	FK_ROOT, /* "all" */
	FK_KERNEL,
	FK_MODULE, /* kernel code in a module */
	FK_USER,
	FK_TRACE, /* the tracing machinery (brief_skip()) */
	FK_SEP,	  /* where a process's user stack ends and the kernel's begins */
};

#define FLAME_ZOOM_MAX 256

/**
 * struct flame_view - the flame graph: the caller tree of the matching
 *	stacks, the tracing machinery kept as its leaves, every frame a box as
 *	wide as its share; the layout is flame_layout.c's
 * @v: the view (first member)
 * @ct: the tree of the last build
 * @links: per node, its place in the graph's order (flame_layout.h)
 * @kind: per node, enum flame_kind
 * @match: per node, the search matches it (1) or an ancestor of it (2)
 * @ncap: room in @links, @kind, @match
 * @all: scratch ranking of every matching stack
 * @allcap: room in @all
 * @nall: rows of @all the tree was built from
 * @boxes: the layout of the last draw (mouse, moving)
 * @nboxes: boxes used
 * @bcap: room
 * @zoom: path keys of the zoomed nodes, outermost first (Enter pushes,
 *        Backspace pops); the innermost one the tree has is shown
 * @nzoom: entries in @zoom
 * @zoom_node: the node shown zoomed after the last build (0: none)
 * @sel_key: path key of the selected box (0: the root "all")
 * @sel: its node after the last build
 * @down_key: the child Up left, where Down goes back to
 * @top: first level on screen
 * @width: columns of the last layout
 * @saved_sel: the selection when a search prompt opened (Esc restores it)
 * @back: the view v goes back to (NULL: the home view)
 * @build: bumped by every build and zoom: the other count's cache key
 * @other_build: @build when @other was summed
 * @other_node: the node @other was summed for
 * @other: the selected box's other count (hits or weight), cached
 * @left_heavy: siblings heaviest first (L), else by name; kept across
 *              refreshes and zooms
 * @inverted: the callee tree's graph (i): leaf functions on top, their
 *            callers below (the tracing machinery is never in it)
 * @hide_trace: the tracing machinery's frames left out (H): brief_skip()'s
 *              frames, as the folded output and the HTML page's default
 */
struct flame_view {
	struct ui_view v;
	struct calltree ct;
	struct flame_link *links;
	uint8_t *kind;
	uint8_t *match;
	size_t ncap;
	struct rank_row *all;
	size_t allcap;
	size_t nall;
	struct flame_box *boxes;
	size_t nboxes;
	size_t bcap;
	uint64_t zoom[FLAME_ZOOM_MAX];
	int nzoom;
	uint32_t zoom_node;
	uint64_t sel_key;
	uint32_t sel;
	uint64_t down_key;
	int top;
	int width;
	uint64_t saved_sel;
	struct ui_view *back;
	uint32_t build;
	uint32_t other_build;
	uint32_t other_node;
	uint64_t other;
	bool left_heavy;
	bool inverted;
	bool hide_trace;
};

/**
 * flame_ops() - how the stacks become the graph's tree: the screen's skip
 *	and symbols, the machinery kept (marked, as leaves) unless hidden or
 *	inverted
 * @fv: the view
 * @ops: filled
 */
void flame_ops(struct flame_view *fv, struct calltree_ops *ops);

/**
 * flame_name() - a node's name on its box: its function, "all", or the
 *	process at the user/kernel seam
 * @fv: the view
 * @node: the node
 * @buf: room for a name made up (the seam's)
 * @size: its size
 *
 * Return: the name (@buf, or a string of the symbol cache).
 */
const char *flame_name(struct flame_view *fv, uint32_t node, char *buf, size_t size);

/**
 * flame_layout_screen() - the boxes for the screen's width, scrolled so
 *	that the selection shows
 * @fv: the view
 */
void flame_layout_screen(struct flame_view *fv);

/**
 * flame_match() - mark the nodes the search matches (bit 0) and those
 *	below a match (bit 1)
 * @fv: the view
 * @nmatch: receives the nodes matched
 *
 * Return: the share of the outermost matches (a frame inside a matched
 * frame is not counted twice, as flamegraph.pl).
 */
uint64_t flame_match(struct flame_view *fv, size_t *nmatch);

/**
 * flame_build() - the caller tree of the stacks the view matches, in the
 *	graph's order; the zoom and the selection found again by their keys
 * @fv: the view
 */
void flame_build(struct flame_view *fv);

/**
 * flame_set_mode() - L, i, H: the order, the orientation, the machinery;
 *	the graph is built again (an orientation's zoom and selection do not
 *	hold in the other: they go)
 * @fv: the view
 * @act: ACT_FLAME_ORDER, ACT_FLAME_INVERT or ACT_FLAME_TRACING
 *
 * Return: R_* flags.
 */
int flame_set_mode(struct flame_view *fv, enum ui_action act);

/**
 * flame_forget() - every node goes (the table was cleared, or the view
 *	left); the zoom and the selection, paths of names, stay
 * @fv: the view
 */
void flame_forget(struct flame_view *fv);

/**
 * flame_resolve() - find the zoom and the selection in the tree again by
 *	their keys (after a build, or @fv->sel_key set)
 * @fv: the view
 */
void flame_resolve(struct flame_view *fv);

/**
 * flame_move() - arrows (parent, child, neighbours), Home, End, PgUp,
 *	PgDn; Enter zooms; C zooms out fully
 * @fv: the view
 * @act: a moving action (keys_moves())
 *
 * Return: whether the selection or the zoom changed.
 */
bool flame_move(struct flame_view *fv, enum ui_action act);

/**
 * flame_zoom() - zoom into the selected box (an ancestor bar: out to it)
 * @fv: the view
 *
 * Return: R_* flags.
 */
int flame_zoom(struct flame_view *fv);

/**
 * flame_zoom_out() - one zoom step back; the frame zoomed out of stays
 *	selected
 * @fv: the view
 *
 * Return: R_* flags.
 */
int flame_zoom_out(struct flame_view *fv);

/**
 * flame_search() - select the next (@dir 1) or previous (-1) box the
 *	search matches, in the order of the layout
 * @fv: the view
 * @dir: direction
 * @include_current: the selected box may be the one
 *
 * Return: false when nothing matches.
 */
bool flame_search(struct flame_view *fv, int dir, bool include_current);

/**
 * flame_click() - a click at (@y, @x): select the box there, zoom into it
 *	on a double click
 * @fv: the view
 * @y: screen line
 * @x: screen column
 * @dclick: a double click
 *
 * Return: R_* flags, 0 when there is no box there.
 */
int flame_click(struct flame_view *fv, int y, int x, bool dclick);

/**
 * flame_scroll() - the wheel: the selection @lines levels down (up when
 *	negative)
 * @fv: the view
 * @lines: levels
 */
void flame_scroll(struct flame_view *fv, int lines);

#endif /* STACKTOP_UI_FLAME_GRAPH_H */
