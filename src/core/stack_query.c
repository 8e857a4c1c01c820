// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stack_query.c - what the table tells about its stacks besides their
 * hits: weights (a weighted table) and latency histograms.
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
