// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rank.c - top-K selection over the stack table.
 *
 * A bounded heap keeps the K best rows seen so far with the worst on top;
 * every stack is compared against the top once: O(n log K), no allocation,
 * no full sort. Only the K survivors are sorted at the end. And who hits a
 * stack most (stack_top_of()): its records summed per event, pid and CPU.
 */
#include <stdlib.h>
#include <string.h>

#include "core/stack_table_priv.h"
#include "core/stack_table.h"
#include "core/rank.h"

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

/* ---- who hits a stack most ------------------------------------------------------- */

/* key: kind << 32 | value, kind 1-3 (0 marks an empty slot) */
enum { TOP_EVENT = 1, TOP_PID, TOP_CPU };

struct top_slot {
	uint64_t key;
	uint64_t amount; /* the view's count: hits, or the weight */
	uint64_t hits;
};

/* false when the table is full */
static bool top_add(struct top_slot *slots, size_t mask, unsigned int kind, int value,
		    uint64_t amount, uint64_t hits)
{
	uint64_t key = (uint64_t)kind << 32 | (uint32_t)value;
	size_t i, n;

	for (i = mix64(key) & mask, n = 0; n <= mask; i = (i + 1) & mask, n++) {
		if (slots[i].key == key) {
			slots[i].amount += amount;
			slots[i].hits += hits;
			return true;
		}
		if (!slots[i].key) {
			slots[i].key = key;
			slots[i].amount = amount;
			slots[i].hits = hits;
			return true;
		}
	}
	return false;
}

/* the largest amount wins, the smallest value on a tie */
static void top_pick(int *ret, uint64_t *ret_amount, uint64_t *ret_hits, int value,
		     const struct top_slot *e)
{
	if (e->amount > *ret_amount || (e->amount == *ret_amount && value < *ret)) {
		*ret = value;
		*ret_amount = e->amount;
		*ret_hits = e->hits;
	}
}

/* the scratch with room for @cap slots, zeroed; false when out of memory */
static bool top_scratch(struct stack_table *t, size_t cap)
{
	if (cap > t->top_cap) {
		struct top_slot *ns = malloc(cap * sizeof(*ns));

		if (!ns)
			return false;
		free(t->top);
		t->top = ns;
		t->top_cap = cap;
	}
	memset(t->top, 0, cap * sizeof(*t->top));
	return true;
}

/* sum the records into @cap slots; false when they did not fit */
static bool top_fill(struct stack_table *t, const struct stack *s, bool delta,
		     const struct rank_opts *filter, size_t cap)
{
	bool filtered = filter && rank_filters_attrs(filter);
	bool weight = filter && filter->weight && t->weighted;
	const struct stack_attr *a;

	for (a = s->attrs; a; a = a->next) {
		uint64_t h = delta ? stack_attr_delta(t, a) : a->total, w = h;

		if (weight) {
			uint64_t wd, wt = stack_attr_weight(t, a, &wd);

			w = delta ? wd : wt;
		}
		if ((!h && !w) || (filtered && !rank_attr_passes(filter, a)))
			continue;
		if (!top_add(t->top, cap - 1, TOP_EVENT, a->event, w, h) ||
		    !top_add(t->top, cap - 1, TOP_PID, a->pid, w, h) ||
		    !top_add(t->top, cap - 1, TOP_CPU, a->cpu, w, h))
			return false;
	}
	return true;
}

void stack_top_of(struct stack_table *t, const struct stack *s, bool delta,
		  const struct rank_opts *filter, struct stack_top *ret)
{
	const struct stack_attr *a;
	size_t n = 0, cap = 128, i;
	uint64_t ev = 0, pid = 0, cpu = 0; /* the amounts picked by */

	memset(ret, 0, sizeof(*ret));
	ret->event = ret->pid = ret->cpu = -1;
	for (a = s->attrs; a; a = a->next)
		n++;
	/*
	 * A record is one (event, CPU, pid): the keys are about one per record
	 * plus a few events and CPUs. Room for twice that; a stack with more
	 * distinct events and CPUs than that fills it and is summed again in
	 * a table twice as large.
	 */
	while (cap < 2 * n + 128)
		cap *= 2;
	for (;;) {
		if (!top_scratch(t, cap))
			return;
		if (top_fill(t, s, delta, filter, cap))
			break;
		cap *= 2;
	}
	for (i = 0; i < cap; i++) {
		const struct top_slot *e = &t->top[i];
		int v = (int)(uint32_t)e->key;

		switch (e->key >> 32) {
		case TOP_EVENT:
			top_pick(&ret->event, &ev, &ret->event_hits, v, e);
			break;
		case TOP_PID:
			top_pick(&ret->pid, &pid, &ret->pid_hits, v, e);
			ret->npids++;
			break;
		case TOP_CPU:
			top_pick(&ret->cpu, &cpu, &ret->cpu_hits, v, e);
			break;
		}
	}
}
