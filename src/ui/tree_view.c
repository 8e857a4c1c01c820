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
#include "ui/draw.h"
#include "ui/list_view.h"
#include "ui/symcache.h"
#include "ui/tree_view.h"
#include "ui/tui.h"
#include "ui/views.h"

#define TV_NONE UINT32_MAX

static void tv_draw_row(struct list_view *lv, int row, int y, bool selected);

static const struct list_view_ops tv_ops = {
	.draw_row = tv_draw_row,
};

static struct ui *tv_ui(struct list_view *lv)
{
	struct tree_view *tv = container_of(lv, struct tree_view, lv);

	return container_of(tv, struct ui, tv);
}

void tree_view_init(struct ui *ui)
{
	memset(&ui->tv, 0, sizeof(ui->tv));
	list_view_init(&ui->tv.lv, &tv_ops);
	hmap_init(&ui->tv.index);
	hmap_init(&ui->tv.expanded);
	calltree_init(&ui->tv.ct);
	hmap_init(&ui->tv.saved.expanded);
}

void tree_view_done(struct ui *ui)
{
	free(ui->tv.nodes);
	free(ui->tv.rows);
	free(ui->tv.all);
	calltree_free(&ui->tv.ct);
	hmap_done(&ui->tv.index);
	hmap_done(&ui->tv.expanded);
	hmap_done(&ui->tv.saved.expanded);
}

void tree_view_forget(struct ui *ui)
{
	ui->tv.nnodes = 0;
	ui->tv.nrows = 0;
	hmap_clear(&ui->tv.index);
	list_view_set_rows(&ui->tv.lv, 0);
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
static void tv_flatten_to(struct ui *ui, uint64_t sel_key)
{
	struct tree_view *tv = &ui->tv;
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

static void tv_flatten(struct ui *ui, bool keep)
{
	tv_flatten_to(ui, keep ? tv_sel_key(&ui->tv) : 0);
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
	struct ui *ui = ctx;

	return symcache_start(ui->syms, symcache_id(ui->syms, ip));
}

static void tv_ops_of(struct ui *ui, struct calltree_ops *ops)
{
	*ops = (struct calltree_ops){ 0 }; /* the machinery left out (mark_skip off) */
	ops->skip = tv_skip;
	ops->sym = tv_sym;
	ops->ctx = ui;
}

void tree_view_build(struct ui *ui)
{
	struct tree_view *tv = &ui->tv;
	size_t k = stack_table_count(ui->t), n, i;
	bool first = !hmap_len(&tv->expanded) && !tv->nnodes;
	/* before nodes[] is rebuilt: rows[] still indexes the old nodes */
	uint64_t sel_key = tv->nnodes ? tv_sel_key(tv) : 0;
	struct calltree_ops ops;
	int r;

	tv->nnodes = 0;
	tv->total = 0;
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
	tv_ops_of(ui, &ops);
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
	if (first && tv->nnodes && tv->nodes[0].first_child != TV_NONE)
		tv_expand_chain(tv, tv->nodes[0].first_child);
	tv_flatten_to(ui, sel_key);
}

const struct tnode *tree_view_selected(struct ui *ui)
{
	struct tree_view *tv = &ui->tv;

	if (tv->lv.sel < 0 || (size_t)tv->lv.sel >= tv->nrows)
		return NULL;
	return &tv->nodes[tv->rows[tv->lv.sel]];
}

/* does @st pass through @nd: its path from the root, built as in tree_view_build */
bool tree_view_node_has(struct ui *ui, const struct tnode *nd, const struct stack *st)
{
	struct calltree_ops ops;

	tv_ops_of(ui, &ops);
	return calltree_path_has(&ui->tv.ct, (uint32_t)(nd - ui->tv.nodes), st, &ops);
}

void tree_view_draw_titles(struct ui *ui, int y)
{
	attr_t a = ui_attr(ui, UC_COLTITLE);
	char buf[256];

	move(y, 0);
	attron(a);
	hline(' ', ui->cols);
	attroff(a);
	if (ui->tv.callee)
		snprintf(buf, sizeof(buf),
			 "%6s %6s %6s %6s  CALLEE TREE (leaf first, expands to callers; %s%s, merged by function; CHILD%%/SELF%%: the function's, as perf --children)",
			 "%", ui_count_title(ui), "CHILD%", "SELF%", ui_weight_note(ui),
			 ui->delta ? "last interval" : "cumulative");
	else
		snprintf(buf, sizeof(buf), "%6s %6s %6s  CALLER TREE (root first; %s%s, merged by function)",
			 "%", ui_count_title(ui), "SELF", ui_weight_note(ui),
			 ui->delta ? "last interval" : "cumulative");
	ui_put(y, 0, ui->cols, a, buf);
}

static void tv_draw_row(struct list_view *lv, int row, int y, bool selected)
{
	struct ui *ui = tv_ui(lv);
	struct tree_view *tv = &ui->tv;
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

bool tree_view_action(struct ui *ui, enum ui_action act)
{
	struct tree_view *tv = &ui->tv;
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
		tv_flatten(ui, true);
		return true;
	case ACT_EXPAND:
		if (n == TV_NONE)
			return false;
		tv_expand_chain(tv, n);
		tv_flatten(ui, true);
		return true;
	case ACT_COLLAPSE:
		if (n == TV_NONE)
			return false;
		if (hmap_get(&tv->expanded, tv->nodes[n].key, NULL)) {
			hmap_del(&tv->expanded, tv->nodes[n].key);
			tv_flatten(ui, true);
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
		tv_flatten(ui, true);
		return true;
	case ACT_COLLAPSE_ALL:
		hmap_clear(&tv->expanded);
		tv_flatten(ui, false);
		list_view_select(&tv->lv, 0);
		return true;
	default:
		return list_view_action(&tv->lv, act);
	}
}

/* remember folds, selection and scroll (a search prompt opens); keys are paths */
void tree_view_save(struct ui *ui)
{
	struct tree_view *tv = &ui->tv;

	tv->saved.valid = !hmap_copy(&tv->saved.expanded, &tv->expanded);
	tv->saved.sel_key = tv_sel_key(tv);
	tv->saved.top = tv->lv.top;
}

void tree_view_restore(struct ui *ui)
{
	struct tree_view *tv = &ui->tv;

	if (!tv->saved.valid)
		return;
	hmap_copy(&tv->expanded, &tv->saved.expanded);
	tv->lv.top = tv->saved.top;
	tv_flatten_to(ui, tv->saved.sel_key);
	tv->lv.top = tv->saved.top;
	list_view_select(&tv->lv, tv->lv.sel);
}

bool tree_view_search(struct ui *ui, int dir, bool include_current)
{
	struct tree_view *tv = &ui->tv;
	int n = (int)tv->nrows, start = tv->lv.sel < 0 ? 0 : tv->lv.sel, i;

	if (!n || !textmatch_active(&ui->smatch))
		return false;
	for (i = include_current ? 0 : 1; i <= n; i++) {
		int row = ((start + dir * i) % n + n) % n;
		const struct tnode *nd = &tv->nodes[tv->rows[row]];

		if (textmatch_sym(&ui->smatch, ui->syms, symcache_id(ui->syms, nd->ip))) {
			list_view_select(&tv->lv, row);
			return true;
		}
	}
	/* not on screen: a node inside a folded subtree; unfold the way to it */
	for (i = 1; i < (int)tv->nnodes; i++) {
		const struct tnode *nd = &tv->nodes[i];
		uint32_t p;

		if (!textmatch_sym(&ui->smatch, ui->syms, symcache_id(ui->syms, nd->ip)))
			continue;
		for (p = nd->parent; p != TV_NONE && p != 0; p = tv->nodes[p].parent)
			hmap_put(&tv->expanded, tv->nodes[p].key, 1);
		tv_flatten_to(ui, nd->key);
		return true;
	}
	return false;
}
