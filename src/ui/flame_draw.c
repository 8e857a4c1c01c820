// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flame_draw.c - the flame graph drawn (flame_view.h): the title (the
 * zoom, the search's summed share), the boxes in the colour of what their
 * frame is, and the selected box's line at the area's foot; the layout and
 * the search's marks are flame_view.c's.
 */
#include <stdio.h>
#include <string.h>

#include "core/calltree.h"
#include "core/format.h"
#include "ui/draw.h"
#include "ui/flame_layout.h"
#include "ui/flame_priv.h"
#include "ui/flame_view.h"
#include "ui/tui.h"
#include "ui/views.h"

/* ---- drawing --------------------------------------------------------------------- */

static attr_t fv_attr(struct ui *ui, const struct flame_box *b)
{
	static const enum ui_color by_kind[] = {
		[FK_ROOT] = UC_FLAME_SEP,     [FK_KERNEL] = UC_FLAME_KERNEL,
		[FK_MODULE] = UC_FLAME_MODULE, [FK_USER] = UC_FLAME_USER,
		[FK_TRACE] = UC_FLAME_TRACE,   [FK_SEP] = UC_FLAME_SEP,
	};
	struct flame_view *fv = &ui->fv;

	if (b->node == fv->sel)
		return ui_attr(ui, UC_FLAME_SEL);
	if (fv->match[b->node] & 1)
		return ui_attr(ui, UC_FLAME_MATCH);
	if (b->ancestor)
		return ui_attr(ui, UC_FLAME_ANCESTOR);
	return ui_attr(ui, by_kind[fv->kind[b->node] <= FK_SEP ? fv->kind[b->node] : FK_KERNEL]);
}

static void fv_draw_box(struct ui *ui, const struct flame_box *b, int y)
{
	char buf[160], text[200];
	const char *name = flame_name(ui, b->node, buf, sizeof(buf));
	attr_t a = fv_attr(ui, b);

	if (!b->node) {
		char cnt[16];

		ui_fmt_count(ui, cnt, sizeof(cnt), ui->fv.ct.total);
		snprintf(text, sizeof(text), "all (%s %s)", cnt, ui->rank.weight ? "weight" : "hits");
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
static uint64_t fv_other(struct ui *ui, uint32_t node)
{
	struct flame_view *fv = &ui->fv;
	bool want_w = !ui->rank.weight, filt = rank_filters_attrs(&ui->rank);
	struct calltree_ops ops;
	uint64_t sum = 0;
	size_t i;

	flame_ops(ui, &ops);
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
	[FK_ROOT] = "every stack", [FK_KERNEL] = "kernel", [FK_MODULE] = "kernel module",
	[FK_USER] = "user", [FK_TRACE] = "tracing machinery", [FK_SEP] = "user/kernel seam",
};

/* the selected box in full: its name, count, shares, self, the other count */
static void fv_draw_info(struct ui *ui, int y)
{
	struct flame_view *fv = &ui->fv;
	const struct calltree_node *n = &fv->ct.nodes[fv->sel];
	uint64_t count = fv->sel ? n->count : fv->ct.total, zc, self = count;
	char name[160], cnt[16], pct[16], zp[16], sp[16], line[512], other[32] = "";
	const char *nm = flame_name(ui, fv->sel, name, sizeof(name));
	uint32_t c;
	size_t len;

	for (c = fv->links[fv->sel].first; c != CALLTREE_NONE; c = fv->links[c].next)
		self -= fv->ct.nodes[c].count <= self ? fv->ct.nodes[c].count : self;
	zc = fv->zoom_node ? fv->ct.nodes[fv->zoom_node].count : fv->ct.total;
	ui_fmt_count(ui, cnt, sizeof(cnt), count);
	fmt_percent(pct, sizeof(pct), count, fv->ct.total);
	fmt_percent(zp, sizeof(zp), count, zc);
	fmt_percent(sp, sizeof(sp), self, fv->ct.total);
	if (ui->head.unit != UNIT_NONE) {
		uint64_t o;

		/* a sum over every stack through the box: once per selection and build */
		if (fv->other_build != fv->build || fv->other_node != fv->sel || !fv->build) {
			fv->other = fv_other(ui, fv->sel);
			fv->other_build = fv->build;
			fv->other_node = fv->sel;
		}
		o = fv->other;

		if (ui->rank.weight)
			snprintf(other, sizeof(other), ", %llu hits", (unsigned long long)o);
		else
			fmt_weight(other, sizeof(other), o, (int)ui->head.unit);
	}
	len = (size_t)snprintf(line, sizeof(line), "%s  [%s]  %s %s%s%s  %s%% of all", nm,
			       kind_name[fv->kind[fv->sel] <= FK_SEP ? fv->kind[fv->sel] : FK_KERNEL],
			       cnt, ui->rank.weight ? ui->head.weight_name : "hits",
			       ui->head.unit != UNIT_NONE && !ui->rank.weight ? ", weight " : "",
			       other, pct);
	if (fv->zoom_node && len < sizeof(line))
		len += (size_t)snprintf(line + len, sizeof(line) - len, ", %s%% of the zoom", zp);
	if (len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, ", self %s%%", sp);
	ui_put(y, 0, ui->cols, ui_attr(ui, UC_HEADER_VALUE), line);
}

void flame_view_draw(struct ui *ui)
{
	struct flame_view *fv = &ui->fv;
	attr_t ta = ui_attr(ui, UC_COLTITLE);
	int rows = ui->list_h - 1, y;
	char title[512], zn[160], cnt[16];
	uint64_t msum;
	size_t i, nm, len;

	msum = fv->ct.nnodes ? flame_match(ui, &nm) : 0;
	flame_layout_screen(ui);
	/* what changes first (the zoom, the search's share), what it shows after */
	len = (size_t)snprintf(title, sizeof(title), "FLAME GRAPH");
	if (fv->zoom_node)
		len += (size_t)snprintf(title + len, sizeof(title) - len, "  zoom: %s",
					flame_name(ui, fv->zoom_node, zn, sizeof(zn)));
	if (textmatch_active(&ui->smatch) && fv->ct.nnodes && len < sizeof(title)) {
		char pct[16];

		fmt_percent(pct, sizeof(pct), msum, fv->ct.total);
		ui_fmt_count(ui, cnt, sizeof(cnt), msum);
		len += (size_t)snprintf(title + len, sizeof(title) - len,
					"  match '%s': %s%% (%s) in %zu frames", ui->search, pct, cnt, nm);
	}
	if (len < sizeof(title))
		snprintf(title + len, sizeof(title) - len,
			 "  (roots on top, callees below; width: share of %s%s)", ui_weight_note(ui),
			 ui->delta ? "last interval" : "cumulative");
	move(ui->coltitle_y, 0);
	attron(ta);
	hline(' ', ui->cols);
	attroff(ta);
	ui_put(ui->coltitle_y, 0, ui->cols, ta, title);
	for (y = 0; y < ui->list_h; y++) {
		move(ui->list_y + y, 0);
		clrtoeol();
	}
	if (!fv->nboxes || rows < 1)
		return;
	for (i = 0; i < fv->nboxes; i++) {
		const struct flame_box *b = &fv->boxes[i];

		if (b->level < fv->top || b->level >= fv->top + rows)
			continue;
		fv_draw_box(ui, b, ui->list_y + b->level - fv->top);
	}
	fv_draw_info(ui, ui->list_y + rows);
}

bool flame_view_empty(const struct ui *ui)
{
	return !ui->fv.nboxes && !ui->fv.ct.nnodes;
}

