// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sampest.c - --sample's estimate: each window's samples share the exact
 * count's growth over the window by their raw weights (see sampest.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source/sampest.h"

/* one held sample: its frames at @off in the arena */
struct held {
	struct sampest_sample s;
	size_t off;
};

/* an event's last sample counted: the hits of a window without one go to it */
struct last {
	struct sampest_sample s;
	uint64_t *frames;
	unsigned int cap;
};

struct sampest {
	unsigned int nevents;
	struct held *h;
	size_t nh, caph;
	uint64_t *arena;
	size_t na, capa;
	uint64_t *prev;	 /* each event's exact count at the last window's end */
	uint64_t *carry; /* each event's hits held for want of a sample */
	uint64_t *wsum;	 /* scratch: each event's raw weights in the window */
	uint64_t *done;	 /* scratch: each event's raw weights shared so far */
	uint64_t *given; /* scratch: each event's hits given so far */
	size_t *lasti;	 /* scratch: each event's last sample in the window, + 1 */
	struct last *last;
	struct sampest_stats st;
};

struct sampest *sampest_new(unsigned int nevents)
{
	struct sampest *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->nevents = nevents ? nevents : 1;
	e->prev = calloc(e->nevents, sizeof(*e->prev));
	e->carry = calloc(e->nevents, sizeof(*e->carry));
	e->wsum = calloc(e->nevents, sizeof(*e->wsum));
	e->done = calloc(e->nevents, sizeof(*e->done));
	e->given = calloc(e->nevents, sizeof(*e->given));
	e->lasti = calloc(e->nevents, sizeof(*e->lasti));
	e->last = calloc(e->nevents, sizeof(*e->last));
	if (!e->prev || !e->carry || !e->wsum || !e->done || !e->given || !e->lasti || !e->last) {
		sampest_free(e);
		return NULL;
	}
	return e;
}

int sampest_add(struct sampest *e, const struct sampest_sample *s)
{
	if (s->event >= e->nevents)
		return -EINVAL;
	if (e->nh == e->caph) {
		size_t cap = e->caph ? e->caph * 2 : 256;
		struct held *h = realloc(e->h, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		e->h = h;
		e->caph = cap;
	}
	if (e->na + s->n > e->capa) {
		size_t cap = e->capa ? e->capa : 4096;
		uint64_t *a;

		while (cap < e->na + s->n)
			cap *= 2;
		a = realloc(e->arena, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		e->arena = a;
		e->capa = cap;
	}
	memcpy(e->arena + e->na, s->frames, s->n * sizeof(*s->frames));
	e->h[e->nh].s = *s;
	e->h[e->nh].off = e->na;
	e->na += s->n;
	e->nh++;
	return 0;
}

size_t sampest_held(const struct sampest *e)
{
	return e->nh;
}

/* @s is the last sample of its event counted: keep it (its frames copied) */
static void keep_last(struct sampest *e, const struct sampest_sample *s)
{
	struct last *l = &e->last[s->event];

	if (s->n > l->cap) {
		uint64_t *f = realloc(l->frames, s->n * sizeof(*f));

		if (!f)
			return; /* the one before stays the last */
		l->frames = f;
		l->cap = s->n;
	}
	memcpy(l->frames, s->frames, s->n * sizeof(*l->frames));
	l->s = *s;
	l->s.frames = l->frames;
}

/* @hits to sample @s: counted, and into the interval's error */
static void give(struct sampest *e, const struct sampest_sample *s, uint64_t hits,
		 sampest_count_fn fn, void *ctx)
{
	if (!hits)
		return;
	fn(ctx, s, hits);
	e->st.w += (double)hits;
	e->st.w2 += (double)hits * (double)hits;
}

void sampest_flush(struct sampest *e, const uint64_t *exact, sampest_count_fn fn, void *ctx)
{
	unsigned int k;
	size_t i;

	for (k = 0; k < e->nevents; k++) {
		/* the window's hits, and those held for want of a sample */
		e->carry[k] += exact[k] > e->prev[k] ? exact[k] - e->prev[k] : 0;
		e->prev[k] = exact[k] > e->prev[k] ? exact[k] : e->prev[k];
		e->wsum[k] = e->done[k] = e->given[k] = 0;
		e->lasti[k] = 0;
	}
	for (i = 0; i < e->nh; i++)
		e->wsum[e->h[i].s.event] += e->h[i].s.raw;
	for (i = 0; i < e->nh; i++) {
		struct sampest_sample *s = &e->h[i].s;
		unsigned int ev = s->event;
		uint64_t to;

		s->frames = e->arena + e->h[i].off;
		if (!s->census)
			e->st.draws++;
		/* the hits up to this sample's share of the raw weights, rounded
		 * down: the last one of the event ends at the window's hits */
		e->done[ev] += s->raw;
		to = (uint64_t)((unsigned __int128)e->carry[ev] * e->done[ev] / e->wsum[ev]);
		give(e, s, to - e->given[ev], fn, ctx);
		e->given[ev] = to;
		e->lasti[ev] = i + 1;
	}
	for (k = 0; k < e->nevents; k++) {
		if (e->lasti[k])
			keep_last(e, &e->h[e->lasti[k] - 1].s);
		if (e->wsum[k]) {
			e->carry[k] = 0;
		} else if (e->carry[k] && e->last[k].frames) {
			/* no sample in the window: the hits after the last one, its */
			give(e, &e->last[k].s, e->carry[k], fn, ctx);
			e->carry[k] = 0;
		}
	}
	e->nh = 0;
	e->na = 0;
}

void sampest_stats(const struct sampest *e, struct sampest_stats *st)
{
	unsigned int k;

	*st = e->st;
	st->exact = 0;
	st->unplaced = 0;
	for (k = 0; k < e->nevents; k++) {
		st->exact += e->prev[k] - e->carry[k];
		st->unplaced += e->carry[k];
	}
}

uint64_t sampest_exact(const struct sampest *e, unsigned int event)
{
	return event < e->nevents ? e->prev[event] : 0;
}

void sampest_free(struct sampest *e)
{
	unsigned int k;

	if (!e)
		return;
	for (k = 0; e->last && k < e->nevents; k++)
		free(e->last[k].frames);
	free(e->last);
	free(e->lasti);
	free(e->given);
	free(e->done);
	free(e->wsum);
	free(e->carry);
	free(e->prev);
	free(e->arena);
	free(e->h);
	free(e);
}
