// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stack_query.c - what the table tells about its stacks besides their
 * hits: weights (a weighted table), and who hits a stack most
 * (stack_top_of()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mix64.h"
#include "core/stack_table_priv.h"
#include "core/stack_table.h"

int stack_table_set_weighted(struct stack_table *t, bool on)
{
	if (t->stacks.first || t->attrs.first)
		return t->weighted == on ? 0 : -EBUSY;
	t->weighted = on;
	return 0;
}

bool stack_table_weighted(const struct stack_table *t)
{
	return t->weighted;
}

uint64_t stack_weight(const struct stack_table *t, const struct stack *s, uint64_t *ret_delta)
{
	if (!t->weighted) {
		if (ret_delta)
			*ret_delta = 0;
		return 0;
	}
	if (ret_delta)
		*ret_delta = wc_delta(stack_wc(s), s->epoch, t->epoch);
	return stack_wc(s)->total;
}

uint64_t stack_attr_weight(const struct stack_table *t, const struct stack_attr *a,
			   uint64_t *ret_delta)
{
	if (!t->weighted) {
		if (ret_delta)
			*ret_delta = 0;
		return 0;
	}
	if (ret_delta)
		*ret_delta = wc_delta(attr_wc(a), a->epoch, t->epoch);
	return attr_wc(a)->total;
}

uint64_t stack_table_weights(const struct stack_table *t, uint64_t *ret_delta)
{
	if (ret_delta) {
		if (t->hits_epoch == t->epoch)
			*ret_delta = t->w_last;
		else if (t->hits_epoch + 1 == t->epoch)
			*ret_delta = t->w_cur;
		else
			*ret_delta = 0;
	}
	return t->w_total;
}


int stack_table_set_hist_scale(struct stack_table *t, unsigned int scale)
{
	if (t->stacks.first || t->attrs.first)
		return t->hist_scale == scale ? 0 : -EBUSY;
	t->hist_scale = scale == HIST_TIME ? HIST_TIME : HIST_LOG2;
	return 0;
}

unsigned int stack_table_hist_scale(const struct stack_table *t)
{
	return t->hist_scale;
}

bool stack_hist(const struct stack_table *t, const struct stack *s, uint64_t *counts)
{
	unsigned int i;

	if (!t->weighted) {
		memset(counts, 0, HIST_BUCKETS * sizeof(*counts));
		return false;
	}
	for (i = 0; i < HIST_BUCKETS; i++)
		counts[i] = stack_wh(s)->b[i];
	return true;
}

int stack_table_add_hist(struct stack_table *t, struct stack *s, unsigned int b, uint64_t n)
{
	uint64_t x;

	if (!t->weighted)
		return -EOPNOTSUPP;
	if (b >= HIST_BUCKETS)
		return -EINVAL;
	x = (uint64_t)stack_wh(s)->b[b] + n;
	stack_wh(s)->b[b] = x > UINT32_MAX || x < n ? UINT32_MAX : (uint32_t)x;
	return 0;
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

