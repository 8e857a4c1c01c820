// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stack_group.c - stack_table_group(): a table of groups (the first N frames
 * of every stack, optionally merged by function) rebuilt from another
 * table, counts and records merged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/stack_table_priv.h"
#include "core/stack_table.h"
#include "core/stack_group.h"

struct group_ctx {
	struct stack_table *dst;
	const struct stack_table *src;
	const struct stack_group *g;
	uint64_t frames[STACK_MAX_DEPTH];
	int err;
};

/* add @n hits (@d of them in the last interval) to counters of epoch @now */
static inline void merge_count(uint64_t *total, uint64_t *cur, uint64_t *last, uint32_t *epoch,
			       uint32_t now, uint64_t n, uint64_t d)
{
	if (*epoch != now) {
		*cur = 0;
		*last = 0;
		*epoch = now;
	}
	*total += n;
	*last += d; /* "last closed interval" of a table read at epoch @now */
}

/* the group's recent intervals: the sums of its stacks', aligned on the last closed one */
static void group_trend(struct group_ctx *g, struct stack *d, const struct stack *s)
{
	uint64_t h[STACK_TREND], w[STACK_TREND];
	int n = stack_trend(g->src, s, false, h, STACK_TREND);
	struct stack_table *t = g->dst;

	if (n <= 0)
		return;
	if (t->weighted)
		stack_trend(g->src, s, true, w, STACK_TREND);
	/* a slot refused by a limit leaves the group without a trend (STACK_F_NOTREND) */
	stack_table_add_trend(t, d, h, t->weighted ? w : NULL, (unsigned int)n);
}

/* a record of @s into group @d: its counts and weights */
static void group_record(struct group_ctx *g, struct stack *d, const struct stack_attr *a)
{
	struct stack_table *t = g->dst;
	struct stack_attr *da = stack_table_attr_get(t, d, a->event, a->cpu, a->pid, a->origin);
	uint64_t wt, wd;

	if (!da) {
		g->err = -ENOMEM;
		return;
	}
	if (t->weighted) {
		if (da->epoch != t->epoch)
			memset(attr_wc(da), 0, sizeof(struct wcount));
		wt = stack_attr_weight(g->src, a, &wd);
		attr_wc(da)->total += wt;
		attr_wc(da)->last += wd;
	}
	merge_count(&da->total, &da->cur, &da->last, &da->epoch, t->epoch, a->total,
		    stack_attr_delta(g->src, a));
}

/*
 * --group-by comm: each record of @s to the group its key names. The stack's
 * trend and histogram are not split by record: the groups keep none.
 */
static int group_split(struct group_ctx *g, struct stack *s)
{
	struct stack_table *t = g->dst;
	const struct stack_attr *a;
	unsigned int n, i;
	struct stack *d;

	for (a = s->attrs; a; a = a->next) {
		uint64_t delta = stack_attr_delta(g->src, a), wt = 0, wd = 0;

		if (!a->total)
			continue;
		n = g->g->key(g->g->ctx, s, a, g->frames);
		if (!n)
			continue;
		d = stack_table_intern(t, g->frames, n);
		if (!d) {
			g->err = -ENOMEM;
			return 0;
		}
		d->flags |= (s->flags & (uint8_t)~STACK_F_CUT) | STACK_F_NOTREND;
		for (i = 0; i < s->nids; i++)
			stack_add_id(d, s->ids[i]);
		if (!d->total)
			t->nhit++;
		if (t->weighted) {
			wt = stack_attr_weight(g->src, a, &wd);
			if (d->epoch != t->epoch)
				memset(stack_wc(d), 0,
				       sizeof(struct wcount) + sizeof(struct whist));
			stack_wc(d)->total += wt;
			stack_wc(d)->last += wd;
		}
		merge_count(&d->total, &d->cur, &d->last, &d->epoch, t->epoch, a->total, delta);
		t->hits += a->total;
		t->hits_last += delta;
		t->w_total += wt;
		t->w_last += wd;
		group_record(g, d, a);
	}
	return 0;
}

static int group_visit(struct stack *s, void *ctx)
{
	struct group_ctx *g = ctx;
	struct stack_table *t = g->dst;
	const struct stack_attr *a;
	unsigned int n, i, skip;
	struct stack *d;
	uint64_t sd, wt = 0, wd = 0;

	if (!s->total)
		return 0;
	if (g->g->key && g->g->per_record)
		return group_split(g, s);
	if (g->g->key) {
		/* --group-by: the stack's keys are its group's frames */
		n = g->g->key(g->g->ctx, s, NULL, g->frames);
		if (!n)
			return 0;
	} else {
		/*
		 * Groups start after the tracing machinery: whether the kernel
		 * went through __traceiter_* depends on who else traces the
		 * event, and a group answers "who", not "how the event was
		 * recorded".
		 */
		skip = g->g->skip ? g->g->skip(g->g->ctx, s) : 0;
		if (skip >= s->depth)
			skip = 0;
		n = s->depth - skip;
		if (g->g->depth && n > g->g->depth)
			n = g->g->depth;
		for (i = 0; i < n; i++)
			g->frames[i] = g->g->map ? g->g->map(g->g->ctx, s->ips[skip + i])
						 : s->ips[skip + i];
	}
	d = stack_table_intern(t, g->frames, n);
	if (!d) {
		g->err = -ENOMEM;
		return 0;
	}
	d->flags |= s->flags & (uint8_t)~STACK_F_CUT;
	for (i = 0; i < s->nids; i++)
		stack_add_id(d, s->ids[i]);
	if (!d->total)
		t->nhit++;
	sd = stack_delta(g->src, s);
	if (t->weighted) {
		wt = stack_weight(g->src, s, &wd);
		if (d->epoch != t->epoch)
			memset(stack_wc(d), 0, sizeof(struct wcount) + sizeof(struct whist));
		stack_wc(d)->total += wt;
		stack_wc(d)->last += wd;
		for (i = 0; i < HIST_BUCKETS; i++) {
			uint64_t x = (uint64_t)stack_wh(d)->b[i] + stack_wh(s)->b[i];

			stack_wh(d)->b[i] = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
		}
	}
	group_trend(g, d, s);
	merge_count(&d->total, &d->cur, &d->last, &d->epoch, t->epoch, s->total, sd);
	t->hits += s->total;
	t->hits_last += sd;
	t->w_total += wt;
	t->w_last += wd;
	for (a = s->attrs; a; a = a->next)
		group_record(g, d, a);
	return 0;
}

/* every count of @s back to zero, in the current interval */
static int group_zero(struct stack *s, void *ctx)
{
	struct stack_table *t = ctx;
	struct stack_attr *a;

	s->total = s->cur = s->last = 0;
	s->epoch = t->epoch;
	s->trend = 0;
	s->flags &= (uint8_t)~STACK_F_NOTREND;
	if (t->weighted)
		memset(stack_wc(s), 0, sizeof(struct wcount) + sizeof(struct whist));
	for (a = s->attrs; a; a = a->next) {
		a->total = a->cur = a->last = 0;
		a->epoch = t->epoch;
		if (t->weighted)
			memset(attr_wc(a), 0, sizeof(struct wcount));
	}
	return 0;
}

int stack_table_group(struct stack_table *dst, const struct stack_table *src,
		      const struct stack_group *grp)
{
	struct group_ctx *g = malloc(sizeof(*g));
	int r;

	if (!g)
		return -ENOMEM;
	if (grp->keep && dst->weighted == src->weighted) {
		stack_table_foreach(dst, group_zero, dst);
		dst->nhit = 0;
		dst->hits = dst->hits_cur = dst->hits_last = 0;
		dst->w_total = dst->w_cur = dst->w_last = 0;
	} else {
		stack_table_clear(dst);
	}
	dst->weighted = src->weighted;
	/* the groups' records keep the folded pids: their names too */
	if (ARRAY_GROW(dst->fcomm, dst->fcomm_cap, src->nfcomm) < 0) {
		free(g);
		return -ENOMEM;
	}
	if (src->nfcomm)
		memcpy(dst->fcomm, src->fcomm, src->nfcomm * sizeof(*dst->fcomm));
	dst->nfcomm = src->nfcomm;
	dst->hits_epoch = dst->epoch;
	dst->active_lost = true; /* no active lists: rank walks every stack */
	dst->hist_scale = src->hist_scale;
	/* the trends anew, as many intervals as @src has (their sums: group_trend()) */
	dst->ntrend = dst->trend_free = dst->trend_used = 0;
	dst->trend_refused = 0;
	{
		uint32_t have = src->epoch - src->trend_start;

		dst->trend_start = dst->epoch - (have < STACK_TREND ? have : STACK_TREND);
	}
	g->dst = dst;
	g->src = src;
	g->g = grp;
	g->err = 0;
	/* the walk does not change @src */
	stack_table_foreach((struct stack_table *)src, group_visit, g);
	r = g->err;
	free(g);
	return r;
}
