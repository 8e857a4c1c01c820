// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tree_view.c - the caller tree: every matching stack merged from its root
 * frame (like perf top -g, caller-based), hits counted at every node.
 *
 * Frames are merged by function (symbol start), so two call sites in the
 * same caller share a node. A node is identified by the hash of its path
 * from the root; expanded nodes are kept by that key, so the tree keeps its
 * shape when it is rebuilt at every refresh.
 */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "tui.h"

#define TV_NONE UINT32_MAX
#define TV_MAX_NODES (4u << 20)

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
	hmap_init(&ui->tv.saved.expanded);
}

void tree_view_done(struct ui *ui)
{
	free(ui->tv.nodes);
	free(ui->tv.rows);
	free(ui->tv.all);
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

static uint32_t tv_node(struct tree_view *tv, uint32_t parent, uint64_t sym, uint64_t ip)
{
	struct tnode *p = &tv->nodes[parent], *n;
	uint64_t key = hmap_mix(p->key, sym), v;

	if (hmap_get(&tv->index, key, &v))
		return (uint32_t)v;
	if (tv->nnodes >= TV_MAX_NODES)
		return TV_NONE;
	if (tv->nnodes == tv->ncap) {
		size_t cap = tv->ncap * 2;
		struct tnode *nodes = realloc(tv->nodes, cap * sizeof(*nodes));

		if (!nodes)
			return TV_NONE;
		tv->nodes = nodes;
		tv->ncap = cap;
		p = &tv->nodes[parent];
	}
	if (hmap_put(&tv->index, key, tv->nnodes))
		return TV_NONE;
	n = &tv->nodes[tv->nnodes];
	memset(n, 0, sizeof(*n));
	n->key = key;
	n->sym = sym;
	n->ip = ip;
	n->parent = parent;
	n->first_child = TV_NONE;
	n->next_sibling = p->first_child;
	n->depth = (uint16_t)(parent ? p->depth + 1 : 0);
	p->first_child = (uint32_t)tv->nnodes;
	p->nchild++;
	return (uint32_t)tv->nnodes++;
}

static const struct tree_view *cmp_tv;

static int tv_cmp(const void *pa, const void *pb)
{
	const struct tnode *a = &cmp_tv->nodes[*(const uint32_t *)pa];
	const struct tnode *b = &cmp_tv->nodes[*(const uint32_t *)pb];

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return (a->sym > b->sym) - (a->sym < b->sym);
}

static void tv_sort_children(struct tree_view *tv)
{
	uint32_t *tmp = NULL, cap = 0, i, c, k;

	cmp_tv = tv;
	for (i = 0; i < tv->nnodes; i++) {
		struct tnode *n = &tv->nodes[i];

		if (n->nchild < 2)
			continue;
		if (n->nchild > cap) {
			uint32_t *t = realloc(tmp, n->nchild * sizeof(*t));

			if (!t)
				break;
			tmp = t;
			cap = n->nchild;
		}
		for (k = 0, c = n->first_child; c != TV_NONE && k < n->nchild;
		     c = tv->nodes[c].next_sibling)
			tmp[k++] = c;
		qsort(tmp, k, sizeof(*tmp), tv_cmp);
		n->first_child = tmp[0];
		for (c = 0; c + 1 < k; c++)
			tv->nodes[tmp[c]].next_sibling = tmp[c + 1];
		tv->nodes[tmp[k - 1]].next_sibling = TV_NONE;
	}
	free(tmp);
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

void tree_view_build(struct ui *ui)
{
	struct tree_view *tv = &ui->tv;
	size_t k = stack_table_count(ui->t), n, i;
	bool first = !hmap_len(&tv->expanded) && !tv->nnodes;
	/* before nodes[] is rebuilt: rows[] still indexes the old nodes */
	uint64_t sel_key = tv->nnodes ? tv_sel_key(tv) : 0;

	tv->nnodes = 0;
	tv->total = 0;
	hmap_clear(&tv->index);
	if (!tv->ncap) {
		tv->nodes = malloc(4096 * sizeof(*tv->nodes));
		if (!tv->nodes)
			return;
		tv->ncap = 4096;
	}
	/* node 0: the virtual root above all root frames */
	memset(&tv->nodes[0], 0, sizeof(tv->nodes[0]));
	tv->nodes[0].first_child = TV_NONE;
	tv->nodes[0].next_sibling = TV_NONE;
	tv->nodes[0].parent = TV_NONE;
	tv->nnodes = 1;
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
	for (i = 0; i < n; i++) {
		const struct stack *st = tv->all[i].stack;
		uint64_t cnt = ui->delta ? tv->all[i].delta : tv->all[i].total;
		int skip = (int)ui_stack_skip(ui, st);
		uint32_t node = 0;
		int d;

		if (!cnt || !st->depth)
			continue;
		tv->total += cnt;
		/* the tracing machinery below the real leaf is left out */
		for (d = st->depth - 1; d >= skip && node != TV_NONE; d--) {
			uint32_t id = symcache_id(ui->syms, st->ips[d]);

			node = tv_node(tv, node, symcache_start(ui->syms, id), st->ips[d]);
			if (node == TV_NONE)
				break;
			tv->nodes[node].count += cnt;
			if (d == skip)
				tv->nodes[node].self += cnt;
		}
	}
	tv->nodes[0].count = tv->total;
	tv_sort_children(tv);
	if (first && tv->nodes[0].first_child != TV_NONE)
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
	int skip = (int)ui_stack_skip(ui, st), d, level = 0;
	uint64_t key = ui->tv.nodes[0].key;

	for (d = st->depth - 1; d >= skip; d--, level++) {
		uint32_t id = symcache_id(ui->syms, st->ips[d]);

		key = hmap_mix(key, symcache_start(ui->syms, id));
		if (level == nd->depth)
			return key == nd->key;
	}
	return false;
}

void tree_view_draw_titles(struct ui *ui, int y)
{
	attr_t a = ui_attr(ui, UC_COLTITLE);
	char buf[256];

	move(y, 0);
	attron(a);
	hline(' ', ui->cols);
	attroff(a);
	snprintf(buf, sizeof(buf), "%6s %6s %6s  CALLER TREE (root first; %s, merged by function)",
		 "%", ui->delta ? "DELTA" : "TOTAL", "SELF", ui->delta ? "last interval" : "cumulative");
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
	fmt_count(cnt, sizeof(cnt), nd->count);
	if (nd->self)
		fmt_count(self, sizeof(self), nd->self);
	else
		snprintf(self, sizeof(self), "-");
	snprintf(line, sizeof(line), "%6s %6s %6s  ", pct, cnt, self);
	ui_put(y, 0, 23, base, line);
	x = 23;
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
