// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tree_view.c - the call trees (calltree.h builds them): every matching
 * stack merged from its root frame (caller tree, like perf top -g), or from
 * its leaf toward the callers (callee tree, perf report --children -G), hits
 * (or weights) counted at every node.
 *
 * Frames are merged by function (symbol start), so two call sites in the
 * same caller share a node. A node is identified by the hash of its path
 * from the root; expanded nodes are kept by that key, so the tree keeps its
 * shape when it is rebuilt at every refresh.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/calltree.h"
#include "core/format.h"
#include "ui/breakdown.h"
#include "ui/draw.h"
#include "ui/list_view.h"
#include "ui/symcache.h"
#include "ui/tree_view.h"
#include "ui/tui.h"
#include "ui/views.h"

#define TV_NONE UINT32_MAX

/* a node of the screen's copy of the tree */
struct tnode {
	uint64_t key;	 /* hash of the path from the root */
	uint64_t sym;	 /* symbol start (the merge key) */
	uint64_t ip;	 /* a representative address */
	uint64_t count;	 /* hits through this node */
	uint64_t self;	 /* hits of stacks ending here */
	uint32_t parent; /* UINT32_MAX for roots */
	uint32_t first_child;
	uint32_t next_sibling;
	uint32_t nchild;
	uint16_t depth;
};

/**
 * struct tree_view - the caller tree, or the callee tree
 * @v: the view (first member)
 * @lv: list widget
 * @nodes: all nodes of the last build
 * @nnodes: nodes used
 * @ncap: room
 * @index: path key -> node index
 * @expanded: path key -> 1 (survives rebuilds)
 * @rows: node indexes shown, depth-first
 * @nrows: rows used
 * @rcap: room
 * @all: scratch ranking of every matching stack
 * @allcap: room in @all
 * @nall: rows of @all the tree was built from
 * @total: hits of all roots
 * @callee: the inverted tree: leaf first
 * @opened: the first root's call chain was expanded (once, on the first
 *	build that had a root: a build of nothing, under a filter that matched
 *	nothing yet, does not use that up)
 * @ct: the core's tree; @nodes is the screen's copy
 * @bd: cached breakdown of the selected node
 * @saved: the view when a search prompt opened
 */
struct tree_view {
	struct ui_view v;
	struct list_view lv;
	struct tnode *nodes;
	size_t nnodes;
	size_t ncap;
	struct hmap index;
	struct hmap expanded;
	uint32_t *rows;
	size_t nrows;
	size_t rcap;
	struct rank_row *all;
	size_t allcap;
	size_t nall;
	uint64_t total;
	bool callee;
	bool opened;
	struct calltree ct;
	struct breakdown *bd;
	struct tv_saved {
		bool valid;
		struct hmap expanded;
		uint64_t sel_key;
		int top;
	} saved;
};

static void tv_draw_row(struct list_view *lv, int row, int y, bool selected);

static const struct list_view_ops tv_ops = {
	.draw_row = tv_draw_row,
};

static struct tree_view *tv_of(struct ui_view *v)
{
	return container_of(v, struct tree_view, v);
}

static struct ui_view *tv_create(struct ui *ui)
{
	struct tree_view *tv = calloc(1, sizeof(*tv));

	if (!tv)
		return NULL;
	tv->v.ops = &tree_view_ops;
	tv->v.ui = ui;
	list_view_init(&tv->lv, &tv_ops);
	hmap_init(&tv->index);
	hmap_init(&tv->expanded);
	calltree_init(&tv->ct);
	hmap_init(&tv->saved.expanded);
	tv->bd = breakdown_new();
	return &tv->v;
}

static void tv_destroy(struct ui_view *v)
{
	struct tree_view *tv = tv_of(v);

	free(tv->nodes);
	free(tv->rows);
	free(tv->all);
	calltree_free(&tv->ct);
	hmap_done(&tv->index);
	hmap_done(&tv->expanded);
	hmap_done(&tv->saved.expanded);
	breakdown_free(tv->bd);
	free(tv);
}

/* every node goes (the table was cleared, or the tree turns over); the folds, paths, stay */
static void tv_drop(struct tree_view *tv)
{
	tv->nnodes = 0;
	tv->nrows = 0;
	hmap_clear(&tv->index);
	list_view_set_rows(&tv->lv, 0);
	breakdown_forget(tv->bd);
}

static int tv_add_row(struct tree_view *tv, uint32_t node)
{
	if (tv->nrows == tv->rcap) {
		size_t cap = tv->rcap ? tv->rcap * 2 : 1024;
		uint32_t *r = realloc(tv->rows, cap * sizeof(*r));

		if (!r)
			return -1;
		tv->rows = r;
		tv->rcap = cap;
	}
	tv->rows[tv->nrows++] = node;
	return 0;
}

/* the key of the selected node, 0 for none; valid only while rows[] matches nodes[] */
static uint64_t tv_sel_key(const struct tree_view *tv)
{
	if (tv->lv.sel >= 0 && (size_t)tv->lv.sel < tv->nrows)
		return tv->nodes[tv->rows[tv->lv.sel]].key;
	return 0;
}

/* depth-first, children of expanded nodes only; then select @sel_key's row */
static void tv_flatten_to(struct tree_view *tv, uint64_t sel_key)
{
	int old = tv->lv.sel, old_top = tv->lv.top;
	uint32_t *stack = NULL;
	size_t sp = 0, scap = 0, i;

	tv->nrows = 0;
	if (tv->nnodes && tv->nodes[0].first_child != TV_NONE) {
		scap = 256;
		stack = malloc(scap * sizeof(*stack));
		if (stack)
			stack[sp++] = tv->nodes[0].first_child;
	}
	while (sp) {
		uint32_t n = stack[--sp];
		struct tnode *nd = &tv->nodes[n];

		if (tv_add_row(tv, n))
			break;
		if (sp + 2 > scap) {
			uint32_t *s = realloc(stack, scap * 2 * sizeof(*s));

			if (!s)
				break;
			stack = s;
			scap *= 2;
		}
		if (nd->next_sibling != TV_NONE)
			stack[sp++] = nd->next_sibling;
		if (nd->first_child != TV_NONE && hmap_get(&tv->expanded, nd->key, NULL))
			stack[sp++] = nd->first_child;
	}
	free(stack);
	tv->lv.top = old_top;
	list_view_set_rows(&tv->lv, (int)tv->nrows);
	if (!sel_key)
		return;
	for (i = 0; i < tv->nrows; i++) {
		if (tv->nodes[tv->rows[i]].key == sel_key) {
			list_view_select(&tv->lv, (int)i);
			return;
		}
	}
	list_view_select(&tv->lv, old);
}

static void tv_flatten(struct tree_view *tv, bool keep)
{
	tv_flatten_to(tv, keep ? tv_sel_key(tv) : 0);
}

/* expand @n and then every only child below it (long call chains) */
static void tv_expand_chain(struct tree_view *tv, uint32_t n)
{
	while (n != TV_NONE && tv->nodes[n].nchild) {
		hmap_put(&tv->expanded, tv->nodes[n].key, 1);
		if (tv->nodes[n].nchild != 1)
			break;
		n = tv->nodes[n].first_child;
	}
}

static unsigned int tv_skip(void *ctx, const struct stack *st)
{
	return ui_stack_skip(ctx, st);
}

static uint64_t tv_sym(void *ctx, uint64_t ip)
{
	const struct ui *ui = ctx;

	return symcache_start(ui->syms, symcache_id(ui->syms, ip));
}

static void tv_ops_of(struct tree_view *tv, struct calltree_ops *ops)
{
	const struct ui *ui = tv->v.ui;

	*ops = (struct calltree_ops){ 0 }; /* the machinery left out (mark_skip off) */
	ops->skip = tv_skip;
	ops->sym = tv_sym;
	ops->ctx = (void *)ui; /* read by tv_skip() and tv_sym() only */
}

static void tv_build(struct tree_view *tv)
{
	const struct ui *ui = tv->v.ui;
	size_t k = stack_table_count(ui->t), n, i;
	bool first = !hmap_len(&tv->expanded) && !tv->opened;
	/* before nodes[] is rebuilt: rows[] still indexes the old nodes */
	uint64_t sel_key = tv->nnodes ? tv_sel_key(tv) : 0;
	struct calltree_ops ops;
	int r;

	tv->nnodes = 0;
	tv->total = 0;
	breakdown_forget(tv->bd); /* its node is gone with the nodes */
	if (k > tv->allcap) {
		struct rank_row *a = realloc(tv->all, k * sizeof(*a));

		if (!a) {
			ui_status(ui, true, "out of memory building the tree of %zu stacks", k);
			return;
		}
		tv->all = a;
		tv->allcap = k;
	}
	n = k ? stack_table_rank(ui->t, &ui->rank, tv->all, k, NULL) : 0;
	tv->nall = n;
	tv_ops_of(tv, &ops);
	r = calltree_build(&tv->ct, tv->all, n, ui->delta, tv->callee, &ops);
	if (r < 0)
		ui_status(ui, true, "the tree is incomplete: %s",
			  r == -E2BIG ? "too many nodes" : "out of memory");
	if (tv->ct.nnodes > tv->ncap) {
		struct tnode *nodes = realloc(tv->nodes, tv->ct.nnodes * sizeof(*nodes));

		if (!nodes) {
			ui_status(ui, true, "out of memory building the tree");
			return;
		}
		tv->nodes = nodes;
		tv->ncap = tv->ct.nnodes;
	}
	/* the screen's copy: the core's nodes, field for field */
	for (i = 0; i < tv->ct.nnodes; i++) {
		const struct calltree_node *c = &tv->ct.nodes[i];
		struct tnode *d = &tv->nodes[i];

		d->key = c->key;
		d->sym = c->sym;
		d->ip = c->ip;
		d->count = c->count;
		d->self = c->self;
		d->parent = c->parent;
		d->first_child = c->first_child;
		d->next_sibling = c->next_sibling;
		d->nchild = c->nchild;
		d->depth = c->depth;
	}
	tv->nnodes = tv->ct.nnodes;
	tv->total = tv->ct.total;
	if (first && tv->nnodes && tv->nodes[0].first_child != TV_NONE) {
		tv_expand_chain(tv, tv->nodes[0].first_child);
		tv->opened = true;
	}
	tv_flatten_to(tv, sel_key);
}

static const struct tnode *tv_selected(struct tree_view *tv)
{
	if (tv->lv.sel < 0 || (size_t)tv->lv.sel >= tv->nrows)
		return NULL;
	return &tv->nodes[tv->rows[tv->lv.sel]];
}

/* does @st pass through the node @node: its path from the root, built as in tv_build() */
static bool tv_node_has(void *ctx, const void *node, const struct stack *st)
{
	struct tree_view *tv = ctx;
	const struct tnode *nd = node;
	struct calltree_ops ops;

	tv_ops_of(tv, &ops);
	return calltree_path_has(&tv->ct, (uint32_t)(nd - tv->nodes), st, &ops);
}

static void tv_draw_titles(struct tree_view *tv, int y)
{
	const struct ui *ui = tv->v.ui;
	attr_t a = ui_attr(ui, UC_COLTITLE);
	char buf[256];

	move(y, 0);
	attron(a);
	hline(' ', ui->cols);
	attroff(a);
	if (tv->callee)
		snprintf(
			buf, sizeof(buf),
			"%6s %6s %6s %6s  CALLEE TREE (leaf first, expands to callers; %s%s, merged by function; CHILD%%/SELF%%: the function's, as perf --children)",
			"%", ui_count_title(ui), "CHILD%", "SELF%", ui_weight_note(ui),
			ui->delta ? "last interval" : "cumulative");
	else
		snprintf(buf, sizeof(buf),
			 "%6s %6s %6s  CALLER TREE (root first; %s%s, merged by function)", "%",
			 ui_count_title(ui), "SELF", ui_weight_note(ui),
			 ui->delta ? "last interval" : "cumulative");
	ui_put(y, 0, ui->cols, a, buf);
}

static void tv_draw_row(struct list_view *lv, int row, int y, bool selected)
{
	struct tree_view *tv = container_of(lv, struct tree_view, lv);
	const struct ui *ui = tv->v.ui;
	const struct tnode *nd = &tv->nodes[tv->rows[row]];
	attr_t base = selected ? ui_attr(ui, UC_SELECTED) : ui_attr(ui, UC_NORMAL);
	char pct[16], cnt[16], self[16], line[600], indent[128];
	int depth = nd->depth, maxind = ui->cols / 2, x;
	const char *mark;

	if (selected) {
		attron(base);
		mvhline(y, 0, ' ', ui->cols);
		attroff(base);
	}
	fmt_percent(pct, sizeof(pct), nd->count, tv->total);
	ui_fmt_count(ui, cnt, sizeof(cnt), nd->count);
	if (tv->callee) {
		char chp[16], sfp[16];
		uint64_t ch, sf;

		calltree_function(&tv->ct, nd->sym, &ch, &sf);
		fmt_percent(chp, sizeof(chp), ch, tv->total);
		if (sf)
			fmt_percent(sfp, sizeof(sfp), sf, tv->total);
		else
			snprintf(sfp, sizeof(sfp), "-");
		snprintf(line, sizeof(line), "%6s %6s %6s %6s  ", pct, cnt, chp, sfp);
		ui_put(y, 0, 30, base, line);
		x = 30;
	} else {
		if (nd->self)
			ui_fmt_count(ui, self, sizeof(self), nd->self);
		else
			snprintf(self, sizeof(self), "-");
		snprintf(line, sizeof(line), "%6s %6s %6s  ", pct, cnt, self);
		ui_put(y, 0, 23, base, line);
		x = 23;
	}
	if (maxind > (int)sizeof(indent) - 1)
		maxind = (int)sizeof(indent) - 1;
	if (depth > maxind) {
		snprintf(indent, sizeof(indent), "[%d]", depth);
		depth = maxind - (int)strlen(indent);
		if (depth < 0)
			depth = 0;
		memset(line, ' ', (size_t)depth);
		snprintf(line + depth, sizeof(line) - (size_t)depth, "%s", indent);
	} else {
		memset(line, ' ', (size_t)depth);
		line[depth] = '\0';
	}
	if (!nd->nchild)
		mark = ui->utf8 ? "\u00b7" : ".";
	else if (hmap_get(&tv->expanded, nd->key, NULL))
		mark = ui->utf8 ? "\u25be" : "-";
	else
		mark = ui->utf8 ? "\u25b8" : "+";
	snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s %s", mark,
		 symcache_name(ui->syms, symcache_id(ui->syms, nd->ip)));
	ui_put(y, x, ui->cols - x, selected ? base : base | (nd->nchild ? 0 : A_BOLD), line);
}

static bool tv_move(struct tree_view *tv, enum ui_action act)
{
	uint32_t n = TV_NONE;
	size_t i;

	if (tv->lv.sel >= 0 && (size_t)tv->lv.sel < tv->nrows)
		n = tv->rows[tv->lv.sel];
	switch (act) {
	case ACT_TOGGLE:
		if (n == TV_NONE)
			return false;
		if (hmap_get(&tv->expanded, tv->nodes[n].key, NULL))
			hmap_del(&tv->expanded, tv->nodes[n].key);
		else
			tv_expand_chain(tv, n);
		tv_flatten(tv, true);
		return true;
	case ACT_EXPAND:
		if (n == TV_NONE)
			return false;
		tv_expand_chain(tv, n);
		tv_flatten(tv, true);
		return true;
	case ACT_COLLAPSE:
		if (n == TV_NONE)
			return false;
		if (hmap_get(&tv->expanded, tv->nodes[n].key, NULL)) {
			hmap_del(&tv->expanded, tv->nodes[n].key);
			tv_flatten(tv, true);
		} else if (tv->nodes[n].parent && tv->nodes[n].parent != TV_NONE) {
			uint32_t p = tv->nodes[n].parent;

			for (i = 0; i < tv->nrows; i++)
				if (tv->rows[i] == p)
					list_view_select(&tv->lv, (int)i);
		}
		return true;
	case ACT_EXPAND_ALL:
		for (i = 1; i < tv->nnodes; i++)
			if (tv->nodes[i].nchild)
				hmap_put(&tv->expanded, tv->nodes[i].key, 1);
		tv_flatten(tv, true);
		return true;
	case ACT_COLLAPSE_ALL:
		hmap_clear(&tv->expanded);
		tv_flatten(tv, false);
		list_view_select(&tv->lv, 0);
		return true;
	default:
		return list_view_action(&tv->lv, act);
	}
}

/* remember folds, selection and scroll (a search prompt opens); keys are paths */
static void tv_save(struct tree_view *tv)
{
	tv->saved.valid = !hmap_copy(&tv->saved.expanded, &tv->expanded);
	tv->saved.sel_key = tv_sel_key(tv);
	tv->saved.top = tv->lv.top;
}

static void tv_restore(struct tree_view *tv)
{
	if (!tv->saved.valid)
		return;
	hmap_copy(&tv->expanded, &tv->saved.expanded);
	tv->lv.top = tv->saved.top;
	tv_flatten_to(tv, tv->saved.sel_key);
	tv->lv.top = tv->saved.top;
	list_view_select(&tv->lv, tv->lv.sel);
}

static bool tv_search_rows(struct tree_view *tv, int dir, bool include_current)
{
	const struct ui *ui = tv->v.ui;
	int n = (int)tv->nrows, start = tv->lv.sel < 0 ? 0 : tv->lv.sel, i;

	if (!n || !textmatch_active(&ui->flt->smatch))
		return false;
	for (i = include_current ? 0 : 1; i <= n; i++) {
		int row = ((start + dir * i) % n + n) % n;
		const struct tnode *nd = &tv->nodes[tv->rows[row]];

		if (textmatch_sym(&ui->flt->smatch, ui->syms, symcache_id(ui->syms, nd->ip))) {
			list_view_select(&tv->lv, row);
			return true;
		}
	}
	/* not on screen: a node inside a folded subtree; unfold the way to it */
	for (i = 1; i < (int)tv->nnodes; i++) {
		const struct tnode *nd = &tv->nodes[i];
		uint32_t p;

		if (!textmatch_sym(&ui->flt->smatch, ui->syms, symcache_id(ui->syms, nd->ip)))
			continue;
		for (p = nd->parent; p != TV_NONE && p != 0; p = tv->nodes[p].parent)
			hmap_put(&tv->expanded, tv->nodes[p].key, 1);
		tv_flatten_to(tv, nd->key);
		return true;
	}
	return false;
}

/* ---- the view's hooks ---------------------------------------------------- */

static void tv_layout(struct ui_view *v)
{
	list_view_set_area(&tv_of(v)->lv, v->ui->lay.list_y, v->ui->lay.list_h);
}

/* built only on screen and from live data: a paused tree stays as it was */
static void tv_refresh(struct ui_view *v, unsigned int how)
{
	struct tree_view *tv = tv_of(v);

	if ((how & UV_SHOWN) && (how & UV_LIVE))
		tv_build(tv);
	if (how & UV_HOME) {
		list_view_select(&tv->lv, 0);
		tv->lv.top = 0;
	}
}

static void tv_forget(struct ui_view *v)
{
	tv_drop(tv_of(v));
}

static void tv_draw(struct ui_view *v)
{
	struct tree_view *tv = tv_of(v);
	const struct ui *ui = v->ui;
	const struct tnode *nd = tv_selected(tv);
	struct bd_subject sub = { .none = " breakdown: select a node" };

	tv_draw_titles(tv, ui->lay.coltitle_y);
	list_view_draw(&tv->lv);
	if (!tv->nrows)
		ui_draw_empty(ui);
	if (nd) {
		/* every stack of the tree's build that passes through the node */
		sub.node = nd;
		sub.node_key = nd->key;
		sub.node_ip = nd->ip;
		sub.rows = tv->all;
		sub.nrows = tv->nall;
		sub.has = tv_node_has;
		sub.ctx = tv;
	}
	breakdown_draw(ui, tv->bd, &sub);
}

static const char *tv_header(struct ui_view *v, char *shown, size_t size)
{
	struct tree_view *tv = tv_of(v);

	snprintf(shown, size, "%zu nodes", tv->nnodes ? tv->nnodes - 1 : 0);
	return tv->callee ? "callee tree" : "tree";
}

/* t opened the caller tree */
static void tv_open(struct ui_view *v, struct ui_view *from)
{
	(void)from;
	tv_of(v)->callee = false;
	ui_status(
		v->ui, false,
		"caller tree: Enter/Right expands a node (and its call chain), Left collapses, t: callee tree");
}

static int tv_action(struct ui_view *v, enum ui_action act)
{
	struct tree_view *tv = tv_of(v);

	if (keys_moves(act)) {
		tv_move(tv, act);
		return R_REDRAW | R_NAV;
	}
	if (act != ACT_TREE)
		return R_PASS;
	/* t again: caller tree -> callee tree -> the list */
	if (!tv->callee) {
		tv->callee = true;
		tv_drop(tv);
		ui_status(
			v->ui, false,
			"callee tree: leaf functions first, Enter/Right expands toward the callers, t: back to the list");
		return R_LAYOUT | R_REFRESH;
	}
	tv->callee = false;
	tv_drop(tv);
	ui_view_open(v->ui, v->ui->views[0], false);
	return R_LAYOUT | R_REFRESH;
}

static int tv_click(struct ui_view *v, int y, int x, bool dclick)
{
	int r = ui_list_click(v->ui, &tv_of(v)->lv, y, dclick);

	(void)x;
	if (r < 0)
		return 0;
	/* a double click opens or closes the node, as Enter */
	return r ? tv_action(v, ACT_TOGGLE) : R_REDRAW | R_NAV;
}

static void tv_scroll(struct ui_view *v, int steps)
{
	list_view_scroll(&tv_of(v)->lv, 3 * steps);
}

static bool tv_search(struct ui_view *v, int dir, bool include_current)
{
	return tv_search_rows(tv_of(v), dir, include_current);
}

static void tv_search_save(struct ui_view *v)
{
	tv_save(tv_of(v));
}

static void tv_search_restore(struct ui_view *v)
{
	tv_restore(tv_of(v));
}

/* the callee tree: v opens the inverted flame graph */
static bool tv_leaf_first(struct ui_view *v)
{
	return tv_of(v)->callee;
}

const struct ui_view_ops tree_view_ops = {
	.name = "tree",
	.opens = ACT_TREE,
	.flags = UVF_BREAKDOWN,
	.create = tv_create,
	.destroy = tv_destroy,
	.layout = tv_layout,
	.rank = tv_refresh,
	.forget = tv_forget,
	.draw = tv_draw,
	.leaf_first = tv_leaf_first,
	.header = tv_header,
	.action = tv_action,
	.click = tv_click,
	.wheel = tv_scroll,
	.search = tv_search,
	.search_save = tv_search_save,
	.search_restore = tv_search_restore,
	.open = tv_open,
};
