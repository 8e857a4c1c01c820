// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flame_view.c - the flame graph view (v): its ops, drawn (the title:
 * the zoom, the search's summed share; the boxes in the colour of what
 * their frame is; the selected box's line at the area's foot) and its
 * keys; the graph itself, its layout for the screen, the search's marks,
 * moving and zooming are flame_graph.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/calltree.h"
#include "core/format.h"
#include "ui/draw.h"
#include "ui/flame_layout.h"
#include "ui/flame_graph.h"
#include "ui/flame_view.h"
#include "ui/tui.h"
#include "ui/views.h"

/* ---- drawing --------------------------------------------------------------------- */

static attr_t fv_attr(struct flame_view *fv, const struct flame_box *b)
{
	const struct ui *ui = fv->v.ui;
	static const enum ui_color by_kind[] = {
		[FK_ROOT] = UC_FLAME_SEP,      [FK_KERNEL] = UC_FLAME_KERNEL,
		[FK_MODULE] = UC_FLAME_MODULE, [FK_USER] = UC_FLAME_USER,
		[FK_TRACE] = UC_FLAME_TRACE,   [FK_SEP] = UC_FLAME_SEP,
	};

	if (b->node == fv->sel)
		return ui_attr(ui, UC_FLAME_SEL);
	if (fv->match[b->node] & 1)
		return ui_attr(ui, UC_FLAME_MATCH);
	if (b->ancestor)
		return ui_attr(ui, UC_FLAME_ANCESTOR);
	return ui_attr(ui, by_kind[fv->kind[b->node] <= FK_SEP ? fv->kind[b->node] : FK_KERNEL]);
}

static void fv_draw_box(struct flame_view *fv, const struct flame_box *b, int y)
{
	const struct ui *ui = fv->v.ui;
	char buf[160], text[200];
	const char *name;
	attr_t a;

	if (b->more) {
		/* narrow siblings, together: "+N", dimmed */
		snprintf(text, sizeof(text), "+%u", b->more);
		ui_put(y, b->x, b->w >= 2 ? b->w - 1 : 1, ui_attr(ui, UC_FLAME_ANCESTOR),
		       b->w >= 2 ? text : "+");
		return;
	}
	name = flame_name(fv, b->node, buf, sizeof(buf));
	a = fv_attr(fv, b);
	if (!b->node) {
		char cnt[16];

		ui_fmt_count(ui, cnt, sizeof(cnt), fv->ct.total);
		snprintf(text, sizeof(text), "all (%s %s)", cnt,
			 ui->rank.weight ? "weight" : "hits");
		name = text;
	}
	/*
	 * A blank column after the box tells it from the next; the name is cut
	 * with '~'. A box of one column has no room for both: a '|' in its
	 * colour, so that two of them side by side stay two.
	 */
	if (b->w >= 2)
		ui_put(y, b->x, b->w - 1, a, name);
	else
		ui_put(y, b->x, 1, a, "|");
}

/* the hits (or weight, whichever the view does not count) of the stacks through @node */
static uint64_t fv_other(struct flame_view *fv, uint32_t node)
{
	const struct ui *ui = fv->v.ui;
	bool want_w = !ui->rank.weight, filt = rank_filters_attrs(&ui->rank);
	struct calltree_ops ops;
	uint64_t sum = 0;
	size_t i;

	flame_ops(fv, &ops);
	for (i = 0; i < fv->nall; i++) {
		const struct stack *st = fv->all[i].stack;
		const struct stack_attr *a;
		uint64_t d, v;

		if (!(ui->delta ? fv->all[i].delta : fv->all[i].total) ||
		    !calltree_path_has(&fv->ct, node, st, &ops))
			continue;
		if (!filt) {
			if (want_w) {
				v = stack_weight(ui->t, st, &d);
			} else {
				v = st->total;
				d = stack_delta(ui->t, st);
			}
			sum += ui->delta ? d : v;
			continue;
		}
		for (a = st->attrs; a; a = a->next) {
			if (!rank_attr_passes(&ui->rank, a))
				continue;
			if (want_w) {
				v = stack_attr_weight(ui->t, a, &d);
			} else {
				v = a->total;
				d = stack_attr_delta(ui->t, a);
			}
			sum += ui->delta ? d : v;
		}
	}
	return sum;
}

static const char *const kind_name[] = {
	[FK_ROOT] = "every stack", [FK_KERNEL] = "kernel",	     [FK_MODULE] = "kernel module",
	[FK_USER] = "user",	   [FK_TRACE] = "tracing machinery", [FK_SEP] = "user/kernel seam",
};

/* the selected box in full: its name, count, shares, self, the other count */
static void fv_draw_info(struct flame_view *fv, int y)
{
	const struct ui *ui = fv->v.ui;
	const struct calltree_node *n = &fv->ct.nodes[fv->sel];
	uint64_t count = fv->sel ? n->count : fv->ct.total, zc, self = count;
	char name[160], cnt[16], pct[16], zp[16], sp[16], line[512], other[32] = "";
	const char *nm = flame_name(fv, fv->sel, name, sizeof(name));
	uint32_t c;
	size_t len;

	/* inverted: a root's stacks end in it (all self), a caller's self is not its box's */
	for (c = fv->links[fv->sel].first; c != CALLTREE_NONE && !fv->inverted;
	     c = fv->links[c].next)
		self -= fv->ct.nodes[c].count <= self ? fv->ct.nodes[c].count : self;
	if (fv->inverted && (!fv->sel || n->depth))
		self = 0;
	zc = fv->zoom_node ? fv->ct.nodes[fv->zoom_node].count : fv->ct.total;
	ui_fmt_count(ui, cnt, sizeof(cnt), count);
	fmt_percent(pct, sizeof(pct), count, fv->ct.total);
	fmt_percent(zp, sizeof(zp), count, zc);
	fmt_percent(sp, sizeof(sp), self, fv->ct.total);
	if (ui->head.unit != UNIT_NONE) {
		uint64_t o;

		/* a sum over every stack through the box: once per selection and build */
		if (fv->other_build != fv->build || fv->other_node != fv->sel || !fv->build) {
			fv->other = fv_other(fv, fv->sel);
			fv->other_build = fv->build;
			fv->other_node = fv->sel;
		}
		o = fv->other;

		if (ui->rank.weight)
			snprintf(other, sizeof(other), ", %llu hits", (unsigned long long)o);
		else
			fmt_weight(other, sizeof(other), o, (int)ui->head.unit);
	}
	len = (size_t)snprintf(
		line, sizeof(line), "%s  [%s]  %s %s%s%s  %s%% of all", nm,
		kind_name[fv->kind[fv->sel] <= FK_SEP ? fv->kind[fv->sel] : FK_KERNEL], cnt,
		ui->rank.weight ? ui->head.weight_name : "hits",
		ui->head.unit != UNIT_NONE && !ui->rank.weight ? ", weight " : "", other, pct);
	if (fv->zoom_node && len < sizeof(line))
		len += (size_t)snprintf(line + len, sizeof(line) - len, ", %s%% of the zoom", zp);
	if (len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, ", self %s%%", sp);
	ui_put(y, 0, ui->cols, ui_attr(ui, UC_HEADER_VALUE), line);
}

static void fv_draw_graph(struct flame_view *fv)
{
	const struct ui *ui = fv->v.ui;
	attr_t ta = ui_attr(ui, UC_COLTITLE);
	int rows = ui->lay.list_h - 1, y;
	char title[512], zn[160], cnt[16];
	uint64_t msum;
	size_t i, nm, len;

	msum = fv->ct.nnodes ? flame_match(fv, &nm) : 0;
	flame_layout_screen(fv);
	/* what changes first (the zoom, the search's share), what it shows after */
	len = (size_t)snprintf(title, sizeof(title), "FLAME GRAPH");
	if (fv->zoom_node)
		len += (size_t)snprintf(title + len, sizeof(title) - len, "  zoom: %s",
					flame_name(fv, fv->zoom_node, zn, sizeof(zn)));
	if (textmatch_active(&ui->flt->smatch) && fv->ct.nnodes && len < sizeof(title)) {
		char pct[16];

		fmt_percent(pct, sizeof(pct), msum, fv->ct.total);
		ui_fmt_count(ui, cnt, sizeof(cnt), msum);
		len += (size_t)snprintf(title + len, sizeof(title) - len,
					"  match '%s': %s%% (%s) in %zu frames", ui->flt->search,
					pct, cnt, nm);
	}
	if (len < sizeof(title))
		snprintf(title + len, sizeof(title) - len, "  (%s; %s%s; width: share of %s%s)",
			 fv->inverted ? "leaves on top, callers below"
				      : "roots on top, callees below",
			 fv->left_heavy ? "heaviest first" : "by name",
			 fv->hide_trace && !fv->inverted ? ", no tracing frames" : "",
			 ui_weight_note(ui), ui->delta ? "last interval" : "cumulative");
	move(ui->lay.coltitle_y, 0);
	attron(ta);
	hline(' ', ui->cols);
	attroff(ta);
	ui_put(ui->lay.coltitle_y, 0, ui->cols, ta, title);
	for (y = 0; y < ui->lay.list_h; y++) {
		move(ui->lay.list_y + y, 0);
		clrtoeol();
	}
	if (!fv->nboxes || rows < 1)
		return;
	for (i = 0; i < fv->nboxes; i++) {
		const struct flame_box *b = &fv->boxes[i];

		if (b->level < fv->top || b->level >= fv->top + rows)
			continue;
		fv_draw_box(fv, b, ui->lay.list_y + b->level - fv->top);
	}
	fv_draw_info(fv, ui->lay.list_y + rows);
}

/* ---- the view's hooks ---------------------------------------------------- */

static struct flame_view *fv_of(struct ui_view *v)
{
	return container_of(v, struct flame_view, v);
}

static struct ui_view *fv_create(struct ui *ui)
{
	struct flame_view *fv = calloc(1, sizeof(*fv));

	if (!fv)
		return NULL;
	fv->v.ops = &flame_view_ops;
	fv->v.ui = ui;
	calltree_init(&fv->ct);
	return &fv->v;
}

static void fv_destroy(struct ui_view *v)
{
	struct flame_view *fv = fv_of(v);

	calltree_free(&fv->ct);
	free(fv->links);
	free(fv->kind);
	free(fv->match);
	free(fv->all);
	free(fv->boxes);
	free(fv);
}

/* built only on screen and from live data: a paused graph stays as it was */
static void fv_refresh(struct ui_view *v, unsigned int how)
{
	if ((how & UV_SHOWN) && (how & UV_LIVE))
		flame_build(fv_of(v));
}

static void fv_forget(struct ui_view *v)
{
	flame_forget(fv_of(v));
}

static void fv_draw(struct ui_view *v)
{
	struct flame_view *fv = fv_of(v);

	fv_draw_graph(fv);
	if (!fv->nboxes && !fv->ct.nnodes)
		ui_draw_empty(v->ui);
}

static const char *fv_header(struct ui_view *v, char *shown, size_t size)
{
	struct flame_view *fv = fv_of(v);

	snprintf(shown, size, "%zu frames%s%s", fv->ct.nnodes ? fv->ct.nnodes - 1 : 0,
		 fv->left_heavy ? ", left-heavy" : "",
		 fv->hide_trace && !fv->inverted ? ", no tracing" : "");
	return fv->inverted ? "flame inverted" : "flame";
}

static void fv_open(struct ui_view *v, struct ui_view *from)
{
	struct flame_view *fv = fv_of(v);
	bool inv = from && from->ops->leaf_first && from->ops->leaf_first(from);

	fv->back = from;
	if (inv != fv->inverted) {
		/* from the callee tree: inverted; from another view: the callers' graph */
		fv->inverted = inv;
		fv->nzoom = 0;
		fv->sel_key = 0;
		fv->down_key = 0;
		fv->top = 0;
	}
	ui_status(
		v->ui, false,
		"flame graph%s: arrows move, Enter zooms, Backspace zooms out, / highlights, L i H, v: back",
		inv ? " (inverted)" : "");
}

/* another view takes the screen: the nodes go, the zoom and selection (keys) stay */
static void fv_leave(struct ui_view *v)
{
	flame_forget(fv_of(v));
}

static int fv_action(struct ui_view *v, enum ui_action act)
{
	struct flame_view *fv = fv_of(v);

	if (act == ACT_EXPAND_ALL) {
		ui_status(v->ui, false, "the flame graph shows every frame: Enter zooms into one");
		return R_REDRAW | R_NAV;
	}
	if (keys_moves(act)) {
		flame_move(fv, act);
		return R_REDRAW | R_NAV;
	}
	switch (act) {
	case ACT_ZOOM_OUT:
		return flame_zoom_out(fv) | R_NAV;
	case ACT_FLAME_ORDER:
	case ACT_FLAME_INVERT:
	case ACT_FLAME_TRACING:
		return flame_set_mode(fv, act);
	case ACT_FLAME:
		/* v again: back to the view it came from */
		return ui_view_open(v->ui, fv->back ? fv->back : v->ui->views[0], false);
	default:
		return R_PASS;
	}
}

static int fv_click(struct ui_view *v, int y, int x, bool dclick)
{
	struct flame_view *fv = fv_of(v);

	/* a second press on the box soon after the first: a double click */
	dclick = ui_dclick(v->ui, fv, y * 10000 + x, dclick);
	return flame_click(fv, y, x, dclick);
}

static void fv_scroll(struct ui_view *v, int steps)
{
	flame_scroll(fv_of(v), steps);
}

static bool fv_search(struct ui_view *v, int dir, bool include_current)
{
	return flame_search(fv_of(v), dir, include_current);
}

static void fv_search_save(struct ui_view *v)
{
	fv_of(v)->saved_sel = fv_of(v)->sel_key;
}

static void fv_search_restore(struct ui_view *v)
{
	struct flame_view *fv = fv_of(v);

	fv->sel_key = fv->saved_sel;
	flame_resolve(fv);
}

const struct ui_view_ops flame_view_ops = {
	.name = "flame",
	.opens = ACT_FLAME,
	.flags = UVF_TALL, /* the graph takes the breakdown pane's height, and the header's */
	.create = fv_create,
	.destroy = fv_destroy,
	.rank = fv_refresh,
	.forget = fv_forget,
	.draw = fv_draw,
	.header = fv_header,
	.action = fv_action,
	.click = fv_click,
	.wheel = fv_scroll,
	.search = fv_search,
	.search_save = fv_search_save,
	.search_restore = fv_search_restore,
	.open = fv_open,
	.leave = fv_leave,
};
