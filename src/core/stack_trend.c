// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stack_trend.c - the interval roll (stack_table_tick()) and what it
 * records: each stack's counts of its last STACK_TREND intervals.
 *
 * Nothing happens on the hit path. When an interval closes, the stacks
 * hit in it are on its active list (stack_table.c keeps it for ranking);
 * each gets a slot, found through stack.trend (what was padding in the
 * stack), and its count of the interval goes to hits[epoch % STACK_TREND]
 * (and its weight to the weighted tables' parallel array). A stack not hit
 * since counts 0. Every STACK_TREND intervals the slots of stacks idle for
 * that long go back to a free list, so the slots follow the stacks hit
 * lately, not every stack ever seen. The slots count against the memory
 * limit like the rest of the table; a stack refused one is flagged
 * STACK_F_NOTREND and counted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/stack_table_priv.h"
#include "core/stack_table.h"

/* the last closed interval */
static inline uint32_t trend_last(const struct stack_table *t)
{
	return t->epoch - 1;
}

static int trend_grow(struct stack_table *t)
{
	uint32_t cap = t->trend_cap ? t->trend_cap * 2 : 256;
	size_t more = (size_t)(cap - t->trend_cap) * trend_slot_bytes(t);
	struct trend_slot *n;

	if (!table_fits(t, more, cap_normal(t)))
		return -ENOSPC;
	n = realloc(t->trend, (size_t)cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	t->trend = n;
	if (t->weighted) {
		uint64_t(*w)[STACK_TREND] = realloc(t->trend_w, (size_t)cap * sizeof(*w));

		if (!w)
			return -ENOMEM; /* the larger slot array is kept; cap stays */
		t->trend_w = w;
	}
	t->trend_cap = cap;
	return 0;
}

/* @s's slot, made if it has none; NULL when the limit (or malloc) refuses */
static struct trend_slot *trend_slot(struct stack_table *t, struct stack *s)
{
	struct trend_slot *sl;
	uint32_t i;

	if (s->trend)
		return &t->trend[s->trend - 1];
	if (t->trend_free) {
		i = t->trend_free - 1;
		t->trend_free = t->trend[i].next_free;
	} else {
		if (t->ntrend == t->trend_cap && trend_grow(t) < 0) {
			if (!(s->flags & STACK_F_NOTREND))
				t->trend_refused++;
			s->flags |= STACK_F_NOTREND;
			return NULL;
		}
		i = t->ntrend++;
	}
	sl = &t->trend[i];
	memset(sl, 0, sizeof(*sl));
	if (t->trend_w)
		memset(t->trend_w[i], 0, sizeof(t->trend_w[i]));
	sl->st = s;
	/* nothing written yet: the interval before the oldest one kept */
	sl->upto = trend_last(t) - STACK_TREND;
	s->trend = i + 1;
	s->flags &= (uint8_t)~STACK_F_NOTREND;
	t->trend_used++;
	return sl;
}

/* the slot's entries of the intervals after its newest up to @e (excluded) zeroed */
static void trend_catch_up(struct stack_table *t, struct trend_slot *sl, uint32_t e)
{
	uint32_t i = (uint32_t)(sl - t->trend), gap = e - sl->upto, k;

	if (gap == 0 || gap > (uint32_t)INT32_MAX)
		return; /* @e is not after the newest */
	if (gap > STACK_TREND)
		gap = STACK_TREND + 1;
	for (k = 1; k < gap; k++) {
		sl->hits[(sl->upto + k) % STACK_TREND] = 0;
		if (t->trend_w)
			t->trend_w[i][(sl->upto + k) % STACK_TREND] = 0;
	}
	if (gap > STACK_TREND) {
		memset(sl->hits, 0, sizeof(sl->hits));
		if (t->trend_w)
			memset(t->trend_w[i], 0, sizeof(t->trend_w[i]));
	}
}

static inline uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* interval @e's count of @s, which @s's counters still hold */
static void trend_put(struct stack_table *t, struct stack *s, uint32_t e)
{
	struct trend_slot *sl = trend_slot(t, s);

	if (!sl)
		return;
	trend_catch_up(t, sl, e);
	sl->hits[e % STACK_TREND] = sat32(s->cur);
	if (t->trend_w)
		t->trend_w[sl - t->trend][e % STACK_TREND] = stack_wc(s)->cur;
	sl->upto = e;
}

static int trend_visit(struct stack *s, void *ctx)
{
	struct stack_table *t = ctx;

	if (s->epoch == t->epoch && s->cur)
		trend_put(t, s, t->epoch);
	return 0;
}

/* the slots of stacks idle for STACK_TREND intervals back to the free list */
static void trend_sweep(struct stack_table *t)
{
	uint32_t i, last = trend_last(t);

	for (i = 0; i < t->ntrend; i++) {
		struct trend_slot *sl = &t->trend[i];

		if (!sl->st || last - sl->upto < STACK_TREND)
			continue;
		sl->st->trend = 0;
		sl->st = NULL;
		sl->next_free = t->trend_free;
		t->trend_free = i + 1;
		t->trend_used--;
	}
}

void stack_table_tick(struct stack_table *t)
{
	unsigned int w = t->epoch & 1;
	size_t i;

	/* the stacks hit in the interval that closes now: its active list */
	if (t->active_lost) {
		stack_table_foreach(t, trend_visit, t);
	} else {
		for (i = 0; i < t->nactive[w]; i++) {
			struct stack *s = t->active[w][i];

			if (s->epoch == t->epoch && s->cur)
				trend_put(t, s, t->epoch);
		}
	}
	t->epoch++;
	/* active[epoch & 1] held epoch - 2: start it over */
	t->nactive[t->epoch & 1] = 0;
	if (t->active_lost && !t->nactive[(t->epoch - 1) & 1])
		t->active_lost = false;
	if (t->epoch % STACK_TREND == 0)
		trend_sweep(t);
}

int stack_trend(const struct stack_table *t, const struct stack *s, bool weight, uint64_t *out,
		unsigned int n)
{
	uint32_t last = trend_last(t), have = t->epoch - t->trend_start, k, i;
	const struct trend_slot *sl = s->trend ? &t->trend[s->trend - 1] : NULL;

	if (!sl && (s->flags & STACK_F_NOTREND))
		return -ENOSPC;
	if (have > STACK_TREND)
		have = STACK_TREND;
	k = n < have ? n : have;
	for (i = 0; i < k; i++) {
		uint32_t e = last - (k - 1 - i);

		out[i] = 0;
		if (!sl || sl->upto - e >= STACK_TREND)
			continue;
		if (weight)
			out[i] = t->trend_w ? t->trend_w[sl - t->trend][e % STACK_TREND] : 0;
		else
			out[i] = sl->hits[e % STACK_TREND];
	}
	return (int)k;
}

void stack_trend_restart(struct stack_table *t)
{
	t->trend_start = t->epoch;
}

int stack_table_add_trend(struct stack_table *t, struct stack *s, const uint64_t *hits,
			  const uint64_t *w, unsigned int n)
{
	struct trend_slot *sl;
	uint32_t i, e0, newest = t->epoch - 1;

	if (!n)
		return 0;
	if (n > STACK_TREND) {
		hits += n - STACK_TREND;
		if (w)
			w += n - STACK_TREND;
		n = STACK_TREND;
	}
	sl = trend_slot(t, s);
	if (!sl)
		return -ENOSPC;
	/* the intervals before the current one: epoch - n .. epoch - 1 (wrapping) */
	e0 = t->epoch - n;
	if (t->epoch - t->trend_start < n)
		t->trend_start = e0;
	/* older counts out, through the newest interval: the values are added */
	if (sl->upto != newest) {
		trend_catch_up(t, sl, newest + 1);
		sl->upto = newest;
	}
	for (i = 0; i < n; i++) {
		uint32_t e = e0 + i;

		sl->hits[e % STACK_TREND] = sat32((uint64_t)sl->hits[e % STACK_TREND] + hits[i]);
		if (w && t->trend_w)
			t->trend_w[sl - t->trend][e % STACK_TREND] += w[i];
	}
	return 0;
}
