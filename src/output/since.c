// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * since.c - see since.h.
 */
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

struct export_since {
	struct hmap m; /* key_stack() / key_attr() -> the count then */
	uint32_t generation;
	struct timespec at;
	struct rank_opts o;
	struct session *s;
	int err;
};

/* a stack by its address (stacks live until a reset, which the generation tells) */
static uint64_t key_stack(const struct stack *sk)
{
	return mix64((uint64_t)(uintptr_t)sk << 1 | 1);
}

/* a record by its stack and what it counts, not by its address (folding reuses those) */
static uint64_t key_attr(const struct stack_attr *a)
{
	uint64_t who = (uint64_t)a->event << 48 ^ (uint64_t)a->cpu << 32 ^ (uint32_t)a->pid;

	return mix64((uint64_t)(uintptr_t)a->stack << 1 ^ mix64(who + 0x9e3779b97f4a7c15ULL));
}

static int take_one(struct stack *sk, void *ctx)
{
	struct export_since *w = ctx;
	struct stack_table *t = session_table(w->s);
	const struct stack_attr *a;
	uint64_t v = w->o.weight ? stack_weight(t, sk, NULL) : sk->total;

	if (v && hmap_put(&w->m, key_stack(sk), v) < 0)
		return -1;
	for (a = sk->attrs; a; a = a->next) {
		v = export_attr_total(t, &w->o, a, NULL);
		if (v && hmap_put(&w->m, key_attr(a), v) < 0)
			return -1;
	}
	return 0;
}

struct export_since *export_since_take(struct session *s, const struct rank_opts *o)
{
	struct export_since *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->s = s;
	w->o = *o;
	w->generation = session_stats(s)->generation;
	clock_gettime(CLOCK_MONOTONIC, &w->at);
	if (stack_table_foreach(session_table(s), take_one, w)) {
		export_since_free(w);
		return NULL;
	}
	w->s = NULL; /* the session is handed in again: nothing kept of it */
	return w;
}

void export_since_free(struct export_since *w)
{
	if (!w)
		return;
	hmap_done(&w->m);
	free(w);
}

double export_since_seconds(const struct export_since *w)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - w->at.tv_sec) + (double)(now.tv_nsec - w->at.tv_nsec) / 1e9;
}

/* what @total counted since the window opened under key @k */
static uint64_t since(const struct export_since *w, struct session *s, uint64_t k, uint64_t total)
{
	uint64_t then = 0;

	if (session_stats(s)->generation != w->generation)
		return total; /* reset since: the counts restarted at 0 */
	hmap_get(&w->m, k, &then);
	return total > then ? total - then : 0;
}

uint64_t export_since_stack(const struct export_since *w, struct session *s, const struct stack *sk,
			    uint64_t total)
{
	return since(w, s, key_stack(sk), total);
}

uint64_t export_since_attr(const struct export_since *w, struct session *s,
			   const struct stack_attr *a, uint64_t total)
{
	return since(w, s, key_attr(a), total);
}
