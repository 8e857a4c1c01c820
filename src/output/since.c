// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * since.c - see since.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "core/hmap.h"
#include "core/mix64.h"
#include "core/rank.h"
#include "core/stack_table.h"
#include "output/rows.h"
#include "output/since.h"
#include "session/session.h"
#include "source/stats.h"

/* a key and its count when the window opened */
struct since_ent {
	uint64_t key;
	uint64_t val;
};

struct export_since {
	struct since_ent *ents; /* the list the start took */
	size_t n, cap;
	struct hmap m; /* built from it: key -> the count then */
	bool indexed;
	uint32_t generation;
	struct timespec at;
	struct rank_opts o;
	struct session *s;
};

/* a stack by its address (stacks live until a reset, which the generation tells) */
uint64_t export_since_key_stack(const struct stack *sk)
{
	return mix64((uint64_t)(uintptr_t)sk << 1 | 1);
}

/* a record by its stack and what it counts, not by its address (folding reuses those) */
uint64_t export_since_key_attr(const struct stack_attr *a)
{
	uint64_t who = (uint64_t)a->event << 48 ^ (uint64_t)a->cpu << 32 ^ (uint32_t)a->pid;

	return mix64((uint64_t)(uintptr_t)a->stack << 1 ^ mix64(who + 0x9e3779b97f4a7c15ULL));
}

static int add(struct export_since *w, uint64_t key, uint64_t val)
{
	if (!val)
		return 0;
	if (w->n == w->cap) {
		size_t nc = w->cap ? w->cap * 2 : 4096;
		struct since_ent *ne = realloc(w->ents, nc * sizeof(*ne));

		if (!ne)
			return -1;
		w->ents = ne;
		w->cap = nc;
	}
	w->ents[w->n++] = (struct since_ent){ key, val };
	return 0;
}

static int take_one(struct stack *sk, void *ctx)
{
	struct export_since *w = ctx;
	struct stack_table *t = session_table(w->s);
	const struct stack_attr *a;

	if (add(w, export_since_key_stack(sk), w->o.weight ? stack_weight(t, sk, NULL) : sk->total))
		return -1;
	for (a = sk->attrs; a; a = a->next)
		if (add(w, export_since_key_attr(a), export_attr_total(t, &w->o, a, NULL)))
			return -1;
	return 0;
}

struct export_since *export_since_take(struct session *s, const struct rank_opts *o)
{
	struct export_since *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->s = s;
	w->o = *o;
	w->o.match = NULL; /* the callbacks are the caller's: not kept */
	w->o.attr_match = NULL;
	w->generation = session_stats(s)->generation;
	clock_gettime(CLOCK_MONOTONIC, &w->at);
	if (stack_table_foreach(session_table(s), take_one, w)) {
		export_since_free(w);
		return NULL;
	}
	w->s = NULL; /* the session is not looked at again */
	return w;
}

void export_since_free(struct export_since *w)
{
	if (!w)
		return;
	hmap_done(&w->m);
	free(w->ents);
	free(w);
}

double export_since_seconds(const struct export_since *w)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - w->at.tv_sec) + (double)(now.tv_nsec - w->at.tv_nsec) / 1e9;
}

struct timespec export_since_opened(const struct export_since *w)
{
	return w->at;
}

int export_since_index(struct export_since *w)
{
	size_t i;

	if (w->indexed)
		return 0;
	for (i = 0; i < w->n; i++)
		if (hmap_put(&w->m, w->ents[i].key, w->ents[i].val) < 0)
			return -ENOMEM;
	w->indexed = true;
	free(w->ents);
	w->ents = NULL;
	w->n = w->cap = 0;
	return 0;
}

uint64_t export_since_get(const struct export_since *w, uint32_t generation, uint64_t key,
			  uint64_t total)
{
	uint64_t then = 0;

	if (generation != w->generation)
		return total; /* reset since: the counts restarted at 0 */
	hmap_get(&w->m, key, &then);
	return total > then ? total - then : 0;
}
