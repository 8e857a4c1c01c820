// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ids.c - the stack map's ids: the snapshot's stacks put by id
 * (ingest_map_put()), the queue of ids read before the map knew them
 * resolved (ingest_resolve()), a new generation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/stack_table.h"
#include "ingest/ingest.h"
#include "ingest/ingest_priv.h"
#include "kernel/stackmap.h"

static int grow_ids(struct ingest *ing, uint32_t id)
{
	uint32_t n = ing->nby_id ? ing->nby_id : 1024;
	struct stack **nb;

	while (n <= id && n < ing->id_limit)
		n *= 2;
	if (n > ing->id_limit)
		n = ing->id_limit; /* ids are below it: no slot is wasted */
	nb = realloc(ing->by_id, (size_t)n * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	memset(nb + ing->nby_id, 0, (size_t)(n - ing->nby_id) * sizeof(*nb));
	ing->by_id = nb;
	ing->nby_id = n;
	return 0;
}

struct stack *ingest_map_put(struct ingest *ing, uint32_t id, const uint64_t *ips, uint32_t nr,
			     bool old_abi)
{
	uint32_t depth = nr; /* as the map holds it */
	struct stack *st;
	bool whole;

	if (id >= ing->id_limit) {
		ing->st.bad_ids++;
		return NULL;
	}
	if (id >= ing->nby_id && grow_ids(ing, id) < 0)
		return NULL;
	/* --oncpu=tick: ids whose interrupt paths differ are one stack */
	ips = ingest_trim(ing, ips, &nr, &whole);
	st = stack_table_intern(ing->table, ips, nr);
	if (!st)
		return NULL;
	st->flags |= STACK_F_MAPPED | (whole ? STACK_F_WHOLE : 0);
	if (old_abi && depth >= STACKMAP_MAX_DEPTH)
		st->flags |= STACK_F_MERGED64;
	stack_add_id(st, id);
	ing->by_id[id] = st;
	return st;
}

bool ingest_needs_map(const struct ingest *ing)
{
	unsigned int i;

	for (i = 0; i < ing->nqueue; i++)
		if (ing->queue[i].id >= ing->nby_id || !ing->by_id[ing->queue[i].id])
			return true;
	return false;
}

unsigned int ingest_drop_pending(struct ingest *ing)
{
	unsigned int n = ing->nqueue;

	ing->st.unresolved += n;
	ing->nqueue = 0;
	ing->nupool = 0;
	return n;
}

unsigned int ingest_resolve(struct ingest *ing)
{
	unsigned int i, done = 0;

	for (i = 0; i < ing->nqueue; i++) {
		const struct queued *q = &ing->queue[i];
		struct waiting w = {
			.event = q->event, .pid = q->pid, .kind = q->kind, .value = q->value
		};

		const uint64_t *user = q->nuser ? ing->upool + q->uoff : NULL;

		if (q->id < ing->nby_id && ing->by_id[q->id]) {
			ingest_count_mapped(ing, ing->by_id[q->id], &w, q->cpu, user, q->nuser);
			done++;
		} else if (ing->cfg.keep_unresolved) {
			ingest_count_unresolved(ing, q->id, &w, q->cpu, user, q->nuser);
		} else {
			/* not in a snapshot read after it: never guess */
			ing->st.unresolved++;
		}
	}
	ing->nqueue = 0;
	ing->nupool = 0;
	return done;
}

void ingest_new_generation(struct ingest *ing)
{
	unsigned int i;

	if (ing->by_id)
		memset(ing->by_id, 0, ing->nby_id * sizeof(*ing->by_id));
	ing->nqueue = 0;
	ing->nupool = 0;
	/* an id waiting for its user_stack is of the old map too */
	for (i = 0; i < ing->ncpus; i++)
		if (ing->cpus[i].p.on && ing->cpus[i].p.id >= 0)
			ing->cpus[i].p.on = false;
	ingest_forget_offcpu(ing);
}
