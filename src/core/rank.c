// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rank.c - top-K selection over the stack table.
 *
 * A bounded heap keeps the K best rows seen so far with the worst on top;
 * every stack is compared against the top once: O(n log K), no allocation,
 * no full sort. Only the K survivors are sorted at the end.
 */
#include <stdlib.h>

#include "core/stack_table.h"

struct rank_ctx {
	const struct stack_table *t;
	const struct rank_opts *o;
	struct rank_row *heap;
	size_t k;
	size_t n;
	struct rank_summary sum;
};

static uint64_t row_key(const struct rank_row *r, enum rank_key key)
{
	switch (key) {
	case RANK_TOTAL:
		return r->total;
	case RANK_DEPTH:
		return r->stack->depth;
	case RANK_ID:
		/* stacks without an id sort after every id */
		return r->stack->nids ? r->stack->ids[0] : UINT64_MAX;
	case RANK_DELTA:
	default:
		return r->delta;
	}
}

/* > 0 when a ranks before b */
static int row_cmp(const struct rank_row *a, const struct rank_row *b, const struct rank_opts *o)
{
	uint64_t ka = row_key(a, o->key), kb = row_key(b, o->key);
	int r;

	if (ka != kb)
		r = ka > kb ? 1 : -1;
	else if (a->total != b->total)
		r = a->total > b->total ? 1 : -1;
	else if (a->delta != b->delta)
		r = a->delta > b->delta ? 1 : -1;
	else if (a->stack->hash != b->stack->hash)
		return a->stack->hash < b->stack->hash ? 1 : -1;
	else
		return a->stack < b->stack ? 1 : (a->stack > b->stack ? -1 : 0);
	/* ids read best ascending; everything else best descending */
	if (o->key == RANK_ID)
		r = -r;
	return o->invert ? -r : r;
}

static void heap_down(struct rank_ctx *c, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;
		struct rank_row tmp;

		/* min-heap on rank order: the worst row sits at the root */
		if (l < c->n && row_cmp(&c->heap[l], &c->heap[w], c->o) < 0)
			w = l;
		if (r < c->n && row_cmp(&c->heap[r], &c->heap[w], c->o) < 0)
			w = r;
		if (w == i)
			return;
		tmp = c->heap[i];
		c->heap[i] = c->heap[w];
		c->heap[w] = tmp;
		i = w;
	}
}

static void heap_up(struct rank_ctx *c, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		struct rank_row tmp;

		if (row_cmp(&c->heap[i], &c->heap[p], c->o) >= 0)
			return;
		tmp = c->heap[i];
		c->heap[i] = c->heap[p];
		c->heap[p] = tmp;
		i = p;
	}
}

static int rank_visit(struct stack *s, void *ctx)
{
	struct rank_ctx *c = ctx;
	const struct rank_opts *o = c->o;
	struct rank_row row = { .stack = s };

	if (o->weight) {
		const struct stack_attr *a;
		uint64_t d;

		if (!rank_filters_attrs(o)) {
			row.total = stack_weight(c->t, s, &row.delta);
		} else {
			for (a = s->attrs; a; a = a->next) {
				if (!rank_attr_passes(o, a))
					continue;
				row.total += stack_attr_weight(c->t, a, &d);
				row.delta += d;
			}
		}
	} else if (!rank_filters_attrs(o)) {
		row.total = s->total;
		row.delta = stack_delta(c->t, s);
	} else {
		const struct stack_attr *a;

		for (a = s->attrs; a; a = a->next) {
			if (!rank_attr_passes(o, a))
				continue;
			row.total += a->total;
			row.delta += stack_attr_delta(c->t, a);
		}
	}
	if (!row.total)
		return 0;
	if (o->hide_idle && !row.delta)
		return 0;
	if (o->match && !o->match(s, o->match_ctx))
		return 0;

	c->sum.matched++;
	c->sum.total += row.total;
	c->sum.delta += row.delta;
	if (!c->k)
		return 0;
	/* the usual case: below the worst row kept, no tie to break */
	if (c->n == c->k && o->key == RANK_DELTA && !o->invert && row.delta < c->heap[0].delta)
		return 0;
	if (c->n < c->k) {
		c->heap[c->n++] = row;
		heap_up(c, c->n - 1);
	} else if (row_cmp(&row, &c->heap[0], o) > 0) {
		c->heap[0] = row;
		heap_down(c, 0);
	}
	return 0;
}

/*
 * Ranking by the last interval, best first, without filters: only stacks
 * hit in that interval can be in the top @k when there are at least @k of
 * them, so the short active list replaces the walk over every stack. The
 * totals come from the table's own counters.
 */
static bool rank_active(struct rank_ctx *c)
{
	const struct rank_opts *o = c->o;
	struct stack *const *act;
	size_t n, nhit, i;
	uint64_t delta;

	if (o->key != RANK_DELTA || o->invert || o->match || o->weight || rank_filters_attrs(o) ||
	    !stack_table_last_active(c->t, &act, &n, &nhit) || n < c->k || !c->k)
		return false;
	/* most stacks active: the walk in memory order is cheaper than the pointers */
	if (n > stack_table_count(c->t) / 4)
		return false;
	for (i = 0; i < n; i++)
		rank_visit(act[i], c);
	c->sum.total = stack_table_hits(c->t, &delta);
	c->sum.delta = delta;
	c->sum.matched = o->hide_idle ? n : nhit;
	return true;
}

size_t stack_table_rank(struct stack_table *t, const struct rank_opts *o, struct rank_row *out,
			size_t k, struct rank_summary *ret_sum)
{
	struct rank_ctx c = { .t = t, .o = o, .heap = out, .k = k };
	size_t n;

	if (!rank_active(&c))
		stack_table_foreach(t, rank_visit, &c);
	/* heap sort in place: pop the worst to the end */
	for (n = c.n; n > 1; n--) {
		struct rank_row tmp = out[0];

		out[0] = out[n - 1];
		out[n - 1] = tmp;
		c.n = n - 1;
		heap_down(&c, 0);
	}
	if (ret_sum)
		*ret_sum = c.sum;
	return c.k ? (k < c.sum.matched ? k : c.sum.matched) : 0;
}
