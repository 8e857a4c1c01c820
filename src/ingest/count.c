// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * count.c - a stack counted into the table: kernel frames (with a user
 * part), a stack id the map resolves, one it does not, or an id queued
 * until the next map read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/stack_table.h"
#include "ingest/ingest.h"
#include "ingest/ingest_priv.h"
#include "kernel/stackmap.h"
#include "sym/usym.h"

static bool in_trim(const struct ingest *ing, uint64_t ip)
{
	unsigned int k;

	for (k = 0; k < ing->cfg.ntrim; k++)
		if (ip >= ing->cfg.trim[2 * k] && ip < ing->cfg.trim[2 * k + 1])
			return true;
	return false;
}

const uint64_t *ingest_trim(struct ingest *ing, const uint64_t *f, unsigned int *n, bool *whole)
{
	static const uint64_t user_mode = STACK_IP_USER_MODE;
	unsigned int i;

	*whole = false;
	if (!ing->cfg.ntrim)
		return f;
	/* the first entry frame from the leaf: a softirq the tick interrupted
	 * ran below another interrupt's exit, and is CPU time of its own */
	for (i = 0; i < *n && !usym_is_sep(f[i]); i++)
		if (in_trim(ing, f[i]))
			break;
	if (i == *n || usym_is_sep(f[i])) {
		*whole = true;
		return f;
	}
	*n -= i + 1;
	if (!*n) {
		*n = 1;
		return &user_mode;
	}
	return f + i + 1;
}

/* @n frames interned and counted: false when the table has no room */
static inline bool count_frames(struct ingest *ing, const uint64_t *frames, unsigned int n,
				const struct waiting *w, unsigned int cpu, bool fallback)
{
	struct stack *st = stack_table_intern(ing->table, frames, n);

	if (!st)
		return false;
	if (fallback) {
		/* a stack the map had no room for (deeper ones never go in it) */
		if (!(st->flags & STACK_F_FALLBACK) &&
		    usym_user_start(frames, n) <= STACKMAP_MAX_DEPTH)
			ing->st.fallback_stacks++;
		st->flags |= STACK_F_FALLBACK;
		ing->st.fallbacks++;
	}
	count(ing, st, w, cpu);
	return true;
}

/*
 * The rare kinds of kernel stack: --oncpu=tick's, cut at the interrupt
 * entry, and the stackmap mode's @fallback (a stack the map had no room for)
 */
static __attribute__((noinline)) void count_rare(struct ingest *ing, const uint64_t *frames,
						 unsigned int n, const struct waiting *w,
						 unsigned int cpu, bool fallback)
{
	uint64_t um[2] = { STACK_IP_USER_MODE, 0 };
	bool whole;

	if (!ing->cfg.ntrim) {
		count_frames(ing, frames, n, w, cpu, fallback);
		return;
	}
	frames = ingest_trim(ing, frames, &n, &whole);
	/* a tick in user code: the row [user space] of its command */
	if (n == 1 && frames[0] == STACK_IP_USER_MODE && ing->cfg.comm_frame &&
	    (um[1] = ing->cfg.comm_frame(ing->cfg.comm_ctx, w->pid))) {
		frames = um;
		n = 2;
	}
	if (count_frames(ing, frames, n, w, cpu, fallback) && whole)
		ing->st.tick_whole++;
}

/* @n frames of a kernel_stack record (and a user part after them) counted */
void ingest_count_frames(struct ingest *ing, const uint64_t *frames, unsigned int n,
			 const struct waiting *w, unsigned int cpu, bool fallback)
{
	/* the common stack is neither: no cut, no fallback */
	if (__builtin_expect(fallback | (ing->cfg.ntrim != 0), 0))
		count_rare(ing, frames, n, w, cpu, fallback);
	else
		count_frames(ing, frames, n, w, cpu, false);
}

void ingest_count_hashed(struct ingest *ing, const uint64_t *frames, unsigned int n, uint32_t h,
			 const struct waiting *w, unsigned int cpu)
{
	struct stack *st = stack_table_intern_hashed(ing->table, frames, n, h);

	if (st)
		count(ing, st, w, cpu);
}

/* @kst with a user part (@nuser words from usym_sep()) below it */
struct stack *ingest_with_user(struct ingest *ing, struct stack *kst, const uint64_t *user,
			       unsigned int nuser)
{
	struct stack *st;
	unsigned int i;

	if (!nuser)
		return kst;
	if (!ubuf_get(ing))
		return NULL;
	memcpy(ing->ubuf, kst->ips, kst->depth * sizeof(uint64_t));
	memcpy(ing->ubuf + kst->depth, user, nuser * sizeof(uint64_t));
	st = stack_table_intern(ing->table, ing->ubuf, kst->depth + nuser);
	if (!st)
		return NULL;
	/* what the kernel part is known as: the ids it came under */
	st->flags |= kst->flags & (STACK_F_MAPPED | STACK_F_MERGED64);
	for (i = 0; i < kst->nids && i < STACK_MAX_IDS; i++)
		stack_add_id(st, kst->ids[i]);
	return st;
}

/* an id no map resolves: counted under a one-frame stack that names it */
void ingest_count_unresolved(struct ingest *ing, uint32_t id, const struct waiting *w,
			     unsigned int cpu, const uint64_t *user, unsigned int nuser)
{
	uint64_t ip = STACK_IP_UNRESOLVED(id);
	struct stack *st;

	ing->st.unresolved++;
	st = stack_table_intern(ing->table, &ip, 1);
	if (!st)
		return;
	stack_add_id(st, id);
	st = ingest_with_user(ing, st, user, nuser);
	if (st)
		count(ing, st, w, cpu);
}

/* a resolved id: its stack (with the user part of the event) counted */
void ingest_count_mapped(struct ingest *ing, struct stack *kst, const struct waiting *w,
			 unsigned int cpu, const uint64_t *user, unsigned int nuser)
{
	struct stack *st = ingest_with_user(ing, kst, user, nuser);

	if (kst->flags & STACK_F_WHOLE)
		ing->st.tick_whole++; /* its id's stack had nothing to cut at */
	if (st)
		count(ing, st, w, cpu);
	size_id(ing, kst); /* the record stood for the kernel frames only */
}

/* counted now when the map knows @id, else queued for ingest_resolve() */
void ingest_count_id(struct ingest *ing, uint32_t id, const struct waiting *w, unsigned int cpu,
		     const uint64_t *user, unsigned int nuser)
{
	struct queued *q;

	if (!ing->cfg.defer && id < ing->nby_id && ing->by_id[id]) {
		ingest_count_mapped(ing, ing->by_id[id], w, cpu, user, nuser);
		return;
	}
	if (!ing->cfg.defer && ing->cfg.keep_unresolved) {
		ingest_count_unresolved(ing, id, w, cpu, user, nuser);
		return;
	}
	if (ing->nqueue >= QUEUE_MAX) {
		ing->st.unresolved++;
		return;
	}
	q = &ing->queue[ing->nqueue];
	q->nuser = 0;
	if (nuser) {
		size_t cap = ing->cupool; /* the queue bounds it far below 2^32 */

		if (ing->nupool + nuser > cap &&
		    ARRAY_GROW(ing->upool, cap, (size_t)ing->nupool + nuser) < 0) {
			ing->st.unresolved++;
			return;
		}
		ing->cupool = (uint32_t)cap;
		memcpy(ing->upool + ing->nupool, user, nuser * sizeof(uint64_t));
		q->uoff = ing->nupool;
		q->nuser = (uint8_t)nuser;
		ing->nupool += nuser;
	}
	q->id = id;
	q->event = w->event;
	q->cpu = (uint16_t)cpu;
	q->pid = w->pid;
	q->kind = w->kind;
	q->value = w->value;
	ing->nqueue++;
}
