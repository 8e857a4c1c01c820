// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flame_graph.c - the flame graph of the screen (v): the caller tree of the
 * stacks the view matches (core/calltree.c, as the tree view t builds it;
 * the tracing machinery kept as its leaves, in a colour of its own), every
 * frame a box as wide as its share of the hits, or of the weight with w.
 *
 * The roots are on top and the callees below (as pprof's and speedscope's
 * flame graphs; flamegraph.pl's icicle): the screen reads from the top
 * like the tree view, and the header stays where it is. Within a parent
 * the boxes stand in the order of their names (flamegraph.pl's), so a box
 * keeps its place from one refresh to the next and only its width moves.
 * The selection and the zoom are path keys (calltree.h): they survive the
 * rebuild at every refresh, and a zoomed frame that has no hits for a
 * while shows again when it has.
 *
 * The layout is flame_layout.c's (no curses, unit-tested); this file
 * builds the graph, lays it out for the screen, moves the selection over
 * it and zooms; flame_view.c, the view, draws it and answers the keys.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/calltree.h"
#include "core/format.h"
#include "sym/ksym.h"
#include "sym/usym.h"
#include "ui/draw.h"
#include "ui/flame_layout.h"
#include "ui/flame_graph.h"
#include "ui/symcache.h"
#include "ui/tui.h"
#include "ui/views.h"

void flame_forget(struct flame_view *fv)
{
	/* the keys of the zoom and the selection are paths of names: they stay */
	fv->ct.nnodes = 0;
	fv->nboxes = 0;
	fv->sel = 0;
	fv->zoom_node = 0;
}

static unsigned int fv_skip(void *ctx, const struct stack *st)
{
	return ui_stack_skip(ctx, st);
}

static uint64_t fv_sym(void *ctx, uint64_t ip)
{
	const struct ui *ui = ctx;

	return symcache_start(ui->syms, symcache_id(ui->syms, ip));
}

void flame_ops(struct flame_view *fv, struct calltree_ops *ops)
{
	const struct ui *ui = fv->v.ui;

	*ops = (struct calltree_ops){ 0 };
	ops->skip = fv_skip;
	ops->sym = fv_sym;
	ops->ctx = (void *)ui; /* read by fv_skip() and fv_sym() only */
	/* the machinery's frames are the leaves, coloured apart; H leaves them out */
	ops->mark_skip = !fv->hide_trace && !fv->inverted;
}

/* a node's name on its box: the function, "all", or the process at the user/kernel seam */
const char *flame_name(struct flame_view *fv, uint32_t node, char *buf, size_t size)
{
	const struct ui *ui = fv->v.ui;
	const struct calltree_node *n = &fv->ct.nodes[node];

	if (!node)
		return "all";
	if (usym_is_sep(n->ip)) {
		uint32_t tgid = (uint32_t)(n->ip & 0xffffffffu);

		snprintf(buf, size, "-- %s/%u (user above, kernel below)",
			 session_comm(ui->s, (int)tgid), tgid);
		return buf;
	}
	return symcache_name(ui->syms, symcache_id(ui->syms, n->ip));
}

/*
 * The order of siblings: by name (left-heavy: by count, heaviest first,
 * then by name), then by the merge key (a total order)
 */
static int fv_cmp(void *ctx, uint32_t a, uint32_t b)
{
	struct flame_view *fv = ctx;
	const struct calltree_node *na = &fv->ct.nodes[a], *nb = &fv->ct.nodes[b];
	char ba[96], bb[96];
	int r;

	if (fv->left_heavy && na->count != nb->count)
		return na->count > nb->count ? -1 : 1;
	r = strcmp(flame_name(fv, a, ba, sizeof(ba)), flame_name(fv, b, bb, sizeof(bb)));
	if (r)
		return r;
	if (na->sym != nb->sym)
		return na->sym < nb->sym ? -1 : 1;
	return (na->key > nb->key) - (na->key < nb->key);
}

static enum flame_kind fv_kind_of(struct flame_view *fv, const struct calltree_node *n)
{
	const struct ui *ui = fv->v.ui;
	struct ksym_hit hit;

	if (n->flags & CALLTREE_F_SKIPPED)
		return FK_TRACE;
	if (usym_is_sep(n->ip))
		return FK_SEP;
	if (usym_is_user(n->ip))
		return FK_USER;
	if (ui->syms->ks && ksym_lookup_frame(ui->syms->ks, n->ip, &hit) == 0 && hit.module &&
	    hit.module[0])
		return FK_MODULE;
	return FK_KERNEL;
}

/* is @a an ancestor of @b (or @b itself) */
static bool fv_above(const struct flame_view *fv, uint32_t a, uint32_t b)
{
	for (; b != CALLTREE_NONE; b = b ? fv->ct.nodes[b].parent : CALLTREE_NONE)
		if (a == b)
			return true;
	return false;
}

/* the innermost zoom key the tree has; the zoom stack is cut there */
void flame_resolve(struct flame_view *fv)
{
	uint32_t id = CALLTREE_NONE;
	int i;

	fv->zoom_node = 0;
	for (i = fv->nzoom - 1; i >= 0; i--) {
		id = calltree_find(&fv->ct, fv->zoom[i]);
		if (id != CALLTREE_NONE) {
			fv->zoom_node = id;
			break;
		}
	}
	id = calltree_find(&fv->ct, fv->sel_key);
	fv->sel = id != CALLTREE_NONE ? id : fv->zoom_node;
	/* the selection is on a box: in the zoomed subtree, or one of its ancestor bars */
	if (!fv_above(fv, fv->zoom_node, fv->sel) && !fv_above(fv, fv->sel, fv->zoom_node))
		fv->sel = fv->zoom_node;
	fv->build++; /* what the drawing computed for the old selection is stale */
}

void flame_build(struct flame_view *fv)
{
	const struct ui *ui = fv->v.ui;
	size_t k = stack_table_count(ui->t), n, i;
	struct calltree_ops ops;
	int r;

	fv->ct.nnodes = 0;
	fv->nboxes = 0;
	if (k > fv->allcap) {
		struct rank_row *a = realloc(fv->all, k * sizeof(*a));

		if (!a) {
			ui_status(ui, true, "out of memory building the flame graph of %zu stacks",
				  k);
			return;
		}
		fv->all = a;
		fv->allcap = k;
	}
	n = k ? stack_table_rank(ui->t, &ui->rank, fv->all, k, NULL) : 0;
	fv->nall = n;
	flame_ops(fv, &ops);
	r = calltree_build(&fv->ct, fv->all, n, ui->delta, fv->inverted, &ops);
	if (r < 0)
		ui_status(ui, true, "the flame graph is incomplete: %s",
			  r == -E2BIG ? "too many frames" : "out of memory");
	if (fv->ct.nnodes > fv->ncap) {
		size_t cap = fv->ct.nnodes;
		struct flame_link *l = realloc(fv->links, cap * sizeof(*l));
		uint8_t *kd = l ? realloc(fv->kind, cap) : NULL;
		uint8_t *m = kd ? realloc(fv->match, cap) : NULL;

		if (l)
			fv->links = l;
		if (kd)
			fv->kind = kd;
		if (m)
			fv->match = m;
		if (!m) {
			fv->ct.nnodes = 0;
			ui_status(ui, true, "out of memory building the flame graph");
			return;
		}
		fv->ncap = cap;
	}
	if (!fv->ct.nnodes)
		return;
	if (flame_order(&fv->ct, fv->links, fv_cmp, fv) < 0) {
		fv->ct.nnodes = 0;
		ui_status(ui, true, "out of memory ordering the flame graph");
		return;
	}
	fv->kind[0] = FK_ROOT;
	for (i = 1; i < fv->ct.nnodes; i++)
		fv->kind[i] = (uint8_t)fv_kind_of(fv, &fv->ct.nodes[i]);
	flame_resolve(fv);
}

int flame_set_mode(struct flame_view *fv, enum ui_action act)
{
	const struct ui *ui = fv->v.ui;

	if (act == ACT_FLAME_ORDER) {
		fv->left_heavy = !fv->left_heavy;
		ui_status(ui, false, "flame graph: %s",
			  fv->left_heavy ? "left-heavy (heaviest first; L: alphabetical)"
					 : "alphabetical (L: left-heavy)");
	} else if (act == ACT_FLAME_INVERT) {
		fv->inverted = !fv->inverted;
		/* the path keys of one orientation are not the other's */
		fv->nzoom = 0;
		fv->sel_key = 0;
		fv->down_key = 0;
		fv->top = 0;
		ui_status(ui, false, "flame graph: %s",
			  fv->inverted ? "inverted: leaf functions on top, callers below (i: back)"
				       : "callers on top, callees below (i: inverted)");
	} else {
		fv->hide_trace = !fv->hide_trace;
		ui_status(ui, false, "flame graph: tracing machinery %s (H: %s)",
			  fv->hide_trace ? "hidden" : "shown", fv->hide_trace ? "show" : "hide");
	}
	flame_build(fv);
	return R_REDRAW | R_NAV;
}

/* ---- layout, search --------------------------------------------------------------- */

static int fv_level(const struct flame_view *fv, uint32_t node)
{
	return node ? fv->ct.nodes[node].depth + 1 : 0;
}

/* the boxes for the screen's width, and the first level shown so that the selection is */
void flame_layout_screen(struct flame_view *fv)
{
	const struct ui *ui = fv->v.ui;
	int rows = ui->lay.list_h - 1, lvl, maxl = 0;
	size_t i;

	fv->nboxes = 0;
	if (!fv->ct.nnodes)
		return;
	if (fv->bcap < fv->ct.nnodes + 1) {
		struct flame_box *b = realloc(fv->boxes, (fv->ct.nnodes + 1) * sizeof(*b));

		if (!b)
			return;
		fv->boxes = b;
		fv->bcap = fv->ct.nnodes + 1;
	}
	fv->width = ui->cols;
	fv->nboxes = flame_layout(&fv->ct, fv->links, fv->zoom_node, ui->cols, fv->boxes, fv->bcap);
	for (i = 0; i < fv->nboxes; i++)
		maxl = fv->boxes[i].level > maxl ? fv->boxes[i].level : maxl;
	if (rows < 1)
		rows = 1;
	lvl = fv_level(fv, fv->sel);
	if (fv->top > maxl - rows + 1)
		fv->top = maxl - rows + 1;
	if (fv->top < 0)
		fv->top = 0;
	if (lvl < fv->top)
		fv->top = lvl;
	if (lvl >= fv->top + rows)
		fv->top = lvl - rows + 1;
}

/* the box of @node in the layout, -1 when it has none (too narrow) */
static int fv_box_of(const struct flame_view *fv, uint32_t node)
{
	size_t i;

	for (i = 0; i < fv->nboxes; i++)
		if (fv->boxes[i].node == node && !fv->boxes[i].more)
			return (int)i;
	return -1;
}

static bool fv_matches(struct flame_view *fv, uint32_t node)
{
	const struct ui *ui = fv->v.ui;
	const struct calltree_node *n = &fv->ct.nodes[node];

	if (!node || usym_is_sep(n->ip))
		return false;
	return textmatch_sym(&ui->flt->smatch, ui->syms, symcache_id(ui->syms, n->ip));
}

/*
 * Which nodes the search matches (bit 0) and which lie below a match (bit
 * 1); the matched share sums the outermost matches only, as flamegraph.pl
 * does, so a frame inside a matched frame is not counted twice
 */
uint64_t flame_match(struct flame_view *fv, size_t *nmatch)
{
	const struct ui *ui = fv->v.ui;
	bool on = textmatch_active(&ui->flt->smatch);
	uint64_t sum = 0;
	size_t i;

	*nmatch = 0;
	for (i = 0; i < fv->ct.nnodes; i++) {
		uint32_t p = fv->ct.nodes[i].parent;
		uint8_t m = 0;

		if (on && i && p != CALLTREE_NONE && (fv->match[p] & 3))
			m |= 2;
		if (on && fv_matches(fv, (uint32_t)i))
			m |= 1;
		fv->match[i] = m;
		if (m & 1)
			(*nmatch)++;
		if (m == 1)
			sum += fv->ct.nodes[i].count;
	}
	return sum;
}

/* ---- moving, zooming --------------------------------------------------------------- */

static void fv_select(struct flame_view *fv, uint32_t node)
{
	fv->sel = node;
	fv->sel_key = fv->ct.nodes[node].key;
}

/* the widest child of @node with a box, CALLTREE_NONE when none */
static uint32_t fv_widest_child(struct flame_view *fv, uint32_t node)
{
	uint32_t c, best = CALLTREE_NONE;

	for (c = fv->links[node].first; c != CALLTREE_NONE; c = fv->links[c].next)
		if (fv_box_of(fv, c) >= 0 &&
		    (best == CALLTREE_NONE || fv->ct.nodes[c].count > fv->ct.nodes[best].count))
			best = c;
	return best;
}

static bool fv_down(struct flame_view *fv)
{
	uint32_t c = calltree_find(&fv->ct, fv->down_key);

	if (c == CALLTREE_NONE || !c || fv->ct.nodes[c].parent != fv->sel || fv_box_of(fv, c) < 0)
		c = fv_widest_child(fv, fv->sel);
	if (c == CALLTREE_NONE)
		return false;
	fv_select(fv, c);
	return true;
}

static bool fv_up(struct flame_view *fv)
{
	if (!fv->sel)
		return false;
	fv->down_key = fv->ct.nodes[fv->sel].key;
	fv_select(fv, fv->ct.nodes[fv->sel].parent);
	return true;
}

/* the box left (@dir -1) or right of the selection on its level */
static bool fv_side(struct flame_view *fv, int dir)
{
	int i = fv_box_of(fv, fv->sel), j;

	if (i < 0)
		return false;
	for (j = i + dir; j >= 0 && (size_t)j < fv->nboxes; j += dir) {
		if (fv->boxes[j].level != fv->boxes[i].level)
			return false;
		if (fv->boxes[j].more)
			continue; /* a marker of narrow frames: not a frame to select */
		fv_select(fv, fv->boxes[j].node);
		return true;
	}
	return false;
}

int flame_zoom(struct flame_view *fv)
{
	const struct ui *ui = fv->v.ui;
	char nm[160];
	int i;

	if (!fv->ct.nnodes)
		return R_REDRAW;
	if (fv->sel == fv->zoom_node) {
		ui_status(ui, false, "%s already takes the whole width (Backspace zooms out)",
			  flame_name(fv, fv->sel, nm, sizeof(nm)));
		return R_REDRAW;
	}
	/* an ancestor bar: back out to it */
	if (fv_above(fv, fv->sel, fv->zoom_node)) {
		while (fv->nzoom && calltree_find(&fv->ct, fv->zoom[fv->nzoom - 1]) != fv->sel)
			fv->nzoom--;
		fv->zoom_node = fv->nzoom ? fv->sel : 0;
		ui_status(ui, false, "zoomed out to %s", flame_name(fv, fv->sel, nm, sizeof(nm)));
		return R_REDRAW;
	}
	/* the zoom stack up to the zoom shown, then the selection */
	for (i = fv->nzoom - 1; i >= 0 && fv->zoom_node; i--)
		if (fv->zoom[i] == fv->ct.nodes[fv->zoom_node].key)
			break;
	fv->nzoom = fv->zoom_node ? i + 1 : 0;
	if (fv->nzoom >= FLAME_ZOOM_MAX)
		memmove(fv->zoom, fv->zoom + 1, --fv->nzoom * sizeof(fv->zoom[0]));
	fv->zoom[fv->nzoom++] = fv->ct.nodes[fv->sel].key;
	fv->zoom_node = fv->sel;
	ui_status(ui, false, "zoomed into %s: Backspace or Esc zooms out",
		  flame_name(fv, fv->sel, nm, sizeof(nm)));
	return R_REDRAW;
}

int flame_zoom_out(struct flame_view *fv)
{
	const struct ui *ui = fv->v.ui;
	uint32_t was = fv->zoom_node;
	char nm[160];

	if (!fv->nzoom) {
		ui_status(ui, false, "the flame graph is not zoomed");
		return R_REDRAW;
	}
	/* the zoom shown goes, and with it the keys above it (frames with no hits now) */
	while (fv->nzoom && (!was || fv->zoom[fv->nzoom - 1] != fv->ct.nodes[was].key))
		fv->nzoom--;
	if (fv->nzoom)
		fv->nzoom--;
	flame_resolve(fv);
	/* the frame zoomed out of stays selected: where one was is in view */
	if (was && was < fv->ct.nnodes)
		fv_select(fv, was);
	ui_status(ui, false, "zoomed out to %s",
		  fv->zoom_node ? flame_name(fv, fv->zoom_node, nm, sizeof(nm)) : "all");
	return R_REDRAW;
}

bool flame_move(struct flame_view *fv, enum ui_action act)
{
	const struct ui *ui = fv->v.ui;
	int i, rows = ui->lay.list_h - 1 > 1 ? ui->lay.list_h - 1 : 1;
	uint32_t c;

	if (!fv->ct.nnodes)
		return false;
	flame_layout_screen(fv);
	switch (act) {
	case ACT_UP:
		return fv_up(fv);
	case ACT_DOWN:
		return fv_down(fv);
	case ACT_COLLAPSE:
		return fv_side(fv, -1);
	case ACT_EXPAND:
		return fv_side(fv, 1);
	case ACT_PGUP:
		for (i = 0; i < rows && fv_up(fv); i++)
			;
		return true;
	case ACT_PGDN:
		for (i = 0; i < rows && fv_down(fv); i++)
			;
		return true;
	case ACT_HOME:
		fv_select(fv, fv->zoom_node);
		return true;
	case ACT_END:
		/* down the widest boxes to a leaf */
		for (c = fv->sel; (c = fv_widest_child(fv, c)) != CALLTREE_NONE;)
			fv_select(fv, c);
		return true;
	case ACT_TOGGLE:
		flame_zoom(fv);
		return true;
	case ACT_COLLAPSE_ALL:
		fv->nzoom = 0;
		flame_resolve(fv);
		return true;
	default:
		return false;
	}
}

/* the next box the search matches, in the order of the layout (level by level) */
bool flame_search(struct flame_view *fv, int dir, bool include_current)
{
	const struct ui *ui = fv->v.ui;
	size_t nm;
	int n, start, i;

	if (!fv->ct.nnodes || !textmatch_active(&ui->flt->smatch))
		return false;
	flame_match(fv, &nm);
	flame_layout_screen(fv);
	n = (int)fv->nboxes;
	if (!nm || !n)
		return false;
	start = fv_box_of(fv, fv->sel);
	if (start < 0)
		start = 0;
	for (i = include_current ? 0 : 1; i <= n; i++) {
		int j = ((start + dir * i) % n + n) % n;

		if (!fv->boxes[j].more && (fv->match[fv->boxes[j].node] & 1)) {
			fv_select(fv, fv->boxes[j].node);
			return true;
		}
	}
	/* matches, but in boxes too narrow to show */
	ui_status(ui, false, "'%s' matches only frames too narrow to show here: zoom in",
		  ui->flt->search);
	return true;
}

int flame_click(struct flame_view *fv, int y, int x, bool dclick)
{
	const struct ui *ui = fv->v.ui;
	int lvl = fv->top + (y - ui->lay.list_y);
	size_t i;

	if (y < ui->lay.list_y || y >= ui->lay.list_y + ui->lay.list_h - 1)
		return 0;
	flame_layout_screen(fv);
	for (i = 0; i < fv->nboxes; i++) {
		const struct flame_box *b = &fv->boxes[i];

		if (b->level != lvl || x < b->x || x >= b->x + b->w)
			continue;
		if (b->more) {
			ui_status(ui, false,
				  "+%u: %u frames each under half a column; zoom into their caller",
				  b->more, b->more);
			return R_REDRAW;
		}
		fv_select(fv, b->node);
		if (dclick)
			flame_zoom(fv);
		return R_REDRAW | R_NAV;
	}
	return 0;
}

void flame_scroll(struct flame_view *fv, int lines)
{
	if (!fv->ct.nnodes)
		return;
	flame_layout_screen(fv);
	for (; lines > 0 && fv_down(fv); lines--)
		;
	for (; lines < 0 && fv_up(fv); lines++)
		;
}
