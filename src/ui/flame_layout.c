// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flame_layout.c - see flame_layout.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "ui/flame_layout.h"

int flame_edge(uint64_t off, uint64_t total, int width)
{
	if (!total || width <= 0)
		return 0;
	if (off >= total)
		return width;
	/* round(off * width / total), exact for any count */
	return (int)(((unsigned __int128)off * (unsigned int)width + total / 2) / total);
}

struct order_ctx {
	int (*cmp)(void *ctx, uint32_t a, uint32_t b);
	void *ctx;
};

static int order_cmp(const void *pa, const void *pb, void *arg)
{
	const struct order_ctx *o = arg;

	return o->cmp(o->ctx, *(const uint32_t *)pa, *(const uint32_t *)pb);
}

int flame_order(const struct calltree *ct, struct flame_link *links,
		int (*cmp)(void *ctx, uint32_t a, uint32_t b), void *ctx)
{
	struct order_ctx o = { .cmp = cmp, .ctx = ctx };
	uint32_t *tmp = NULL;
	size_t cap = 0, i;

	for (i = 0; i < ct->nnodes; i++) {
		links[i].first = links[i].next = CALLTREE_NONE;
		links[i].off = 0;
	}
	/* a parent is made before its children: its offset is final when they get theirs */
	for (i = 0; i < ct->nnodes; i++) {
		const struct calltree_node *n = &ct->nodes[i];
		uint64_t off = links[i].off;
		uint32_t c, k = 0, j;

		if (!n->nchild)
			continue;
		if (n->nchild > cap) {
			uint32_t *t = realloc(tmp, n->nchild * sizeof(*t));

			if (!t) {
				free(tmp);
				return -ENOMEM;
			}
			tmp = t;
			cap = n->nchild;
		}
		for (c = n->first_child; c != CALLTREE_NONE && k < n->nchild;
		     c = ct->nodes[c].next_sibling)
			tmp[k++] = c;
		if (k > 1)
			qsort_r(tmp, k, sizeof(*tmp), order_cmp, &o);
		links[i].first = tmp[0];
		for (j = 0; j < k; j++) {
			links[tmp[j]].next = j + 1 < k ? tmp[j + 1] : CALLTREE_NONE;
			links[tmp[j]].off = off;
			off += ct->nodes[tmp[j]].count;
		}
	}
	free(tmp);
	return 0;
}

/* a run of narrow siblings, [@off, @end) of the counts: what flame_layout() aggregates */
struct narrow_run {
	uint32_t first;
	uint32_t n;
	uint64_t off;
	uint64_t end;
};

/* the marker of a run of narrow siblings, when together they reach a column */
static size_t flush_run(struct narrow_run *r, int level, uint64_t total, int width,
			struct flame_box *out, size_t n, size_t max)
{
	int x0 = flame_edge(r->off, total, width), x1 = flame_edge(r->end, total, width);

	/* a lone narrow frame is its own box when its rounded edges part (as before) */
	if (x1 > x0 && n < max) {
		out[n].node = r->first;
		out[n].level = level;
		out[n].x = x0;
		out[n].w = x1 - x0;
		out[n].ancestor = false;
		out[n].more = r->n > 1 ? r->n : 0;
		n++;
	}
	r->n = 0;
	return n;
}

/* the children of the box @head, left to right; runs of narrow ones as markers */
static size_t layout_children(const struct calltree *ct, const struct flame_link *links,
			      const struct flame_box *head, uint64_t base, uint64_t total,
			      int width, struct flame_box *out, size_t n, size_t max)
{
	struct narrow_run run = { 0 };
	uint32_t c;

	for (c = links[head->node].first; c != CALLTREE_NONE && n < max; c = links[c].next) {
		uint64_t rel = links[c].off - base;
		int x0 = flame_edge(rel, total, width);
		int x1 = flame_edge(rel + ct->nodes[c].count, total, width);

		/* under half a column (its exact share): counted in the run */
		if ((unsigned __int128)ct->nodes[c].count * 2 * (unsigned int)width <
		    (unsigned __int128)total) {
			if (!run.n) {
				run.first = c;
				run.off = rel;
			}
			run.n++;
			run.end = rel + ct->nodes[c].count;
			continue;
		}
		n = flush_run(&run, head->level + 1, total, width, out, n, max);
		if (n >= max || x1 <= x0)
			continue; /* no room; or half a column exactly, rounded away */
		out[n].node = c;
		out[n].level = ct->nodes[c].depth + 1;
		out[n].x = x0;
		out[n].w = x1 - x0;
		out[n].ancestor = false;
		out[n].more = 0;
		n++;
	}
	return flush_run(&run, head->level + 1, total, width, out, n, max);
}

size_t flame_layout(const struct calltree *ct, const struct flame_link *links, uint32_t zoom,
		    int width, struct flame_box *out, size_t max)
{
	uint32_t path[2 * STACK_MAX_DEPTH + 8];
	size_t n = 0, np = 0, head;
	uint64_t total, base;
	uint32_t p;

	if (!ct->nnodes || width <= 0 || !max)
		return 0;
	if (zoom >= ct->nnodes)
		zoom = 0;
	/* the zoomed node's ancestors, root first, then itself: the whole width */
	for (p = zoom; p != CALLTREE_NONE && np < sizeof(path) / sizeof(path[0]);
	     p = p ? ct->nodes[p].parent : CALLTREE_NONE)
		path[np++] = p;
	while (np && n < max) {
		p = path[--np];
		out[n].node = p;
		out[n].level = p ? ct->nodes[p].depth + 1 : 0;
		out[n].x = 0;
		out[n].w = width;
		out[n].ancestor = p != zoom;
		out[n].more = 0;
		n++;
	}
	total = zoom ? ct->nodes[zoom].count : ct->total;
	base = links[zoom].off;
	/* level by level: each box's children in their order, left to right */
	for (head = n - 1; head < n && n < max; head++)
		if (!out[head].more)
			n = layout_children(ct, links, &out[head], base, total, width, out, n, max);
	return n;
}
