// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stack_mem.c - the stack table's memory: its size against the limit, and
 * folding the breakdown records of exited pids into their command
 * (stack_table_fold()), their records going to the free list the table
 * reuses first. See stack_table.c for the limit's reserve.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/hmap.h"
#include "core/mix64.h"
#include "core/stack_table_priv.h"
#include "core/stack_table.h"
#include "core/stack_mem.h"

size_t stack_table_memory(const struct stack_table *t)
{
	return table_bytes(t);
}

void stack_table_set_limit(struct stack_table *t, size_t bytes)
{
	t->limit = bytes;
}

void stack_table_mem(const struct stack_table *t, struct stack_mem *ret)
{
	ret->bytes = table_bytes(t);
	ret->free_bytes = t->nfree * attr_bytes(t);
	ret->limit = t->limit;
	ret->folded = t->folded;
	ret->over_stacks = t->over_stacks;
	ret->over_hits = t->over_hits;
	ret->trend_bytes = (size_t)t->trend_cap * trend_slot_bytes(t);
	ret->trend_slots = t->trend_used;
	ret->trend_refused = t->trend_refused;
}

const char *stack_table_folded_comm(const struct stack_table *t, int pid)
{
	size_t i;

	if (!stack_pid_folded(pid))
		return NULL;
	i = (size_t)(STACK_PID_FOLDED - (long)pid);
	return i < t->nfcomm ? t->fcomm[i] : NULL;
}

/* the folded pid of @comm, a new one if needed; 0 on OOM */
static int fold_pid(struct stack_table *t, const char *comm)
{
	size_t i;

	for (i = 0; i < t->nfcomm; i++)
		if (!strncmp(t->fcomm[i], comm, FOLD_COMM - 1))
			return STACK_PID_FOLDED - (int)i;
	/* past a million names the pids are kept */
	if (t->nfcomm >= 1u << 20 || ARRAY_GROW(t->fcomm, t->fcomm_cap, t->nfcomm + 1) < 0)
		return 0;
	snprintf(t->fcomm[t->nfcomm], FOLD_COMM, "%s", comm);
	return STACK_PID_FOLDED - (int)t->nfcomm++;
}

/* @from's counts into @into, both brought to the current epoch */
static void attr_merge(struct stack_table *t, struct stack_attr *into,
		       const struct stack_attr *from)
{
	uint32_t now = t->epoch, ie = into->epoch;

	if (t->weighted) {
		/* the weights share the records' epochs: merged the same way */
		struct wcount *iw = attr_wc(into);
		const struct wcount *fw = attr_wc(from);

		iw->total += fw->total;
		if (ie != now) {
			iw->last = ie + 1 == now ? iw->cur : 0;
			iw->cur = 0;
		}
		if (from->epoch == now) {
			iw->cur += fw->cur;
			iw->last += fw->last;
		} else if (from->epoch + 1 == now) {
			iw->last += fw->cur;
		}
	}
	into->total += from->total;
	if (into->epoch != now) {
		into->last = into->epoch + 1 == now ? into->cur : 0;
		into->cur = 0;
		into->epoch = now;
	}
	if (from->epoch == now) {
		into->cur += from->cur;
		into->last += from->last;
	} else if (from->epoch + 1 == now) {
		into->last += from->cur;
	}
}

/*
 * Rebuild the record hash from the stacks' chains, smaller if fewer records
 * are left; without memory for the smaller array the old one is reused
 * (the count only went down), so this cannot fail.
 */
static void attr_rehash(struct stack_table *t)
{
	size_t n = 1024, i;
	struct stack_attr **slots = NULL;
	const struct arena_chunk *c;

	memset(t->acache, 0, sizeof(t->acache)); /* it may name freed records */
	while (t->nattrs * 4 > n * 3)
		n *= 2;
	if (n < t->naslots)
		slots = calloc(n, sizeof(*slots));
	if (slots) {
		free(t->aslots);
		t->aslots = slots;
		t->naslots = n;
	} else {
		n = t->naslots;
		memset(t->aslots, 0, n * sizeof(*t->aslots));
	}
	for (c = t->stacks.first; c; c = c->next) {
		size_t off = 0;

		while (off < c->used) {
			struct stack *s = (struct stack *)(void *)(c->data + off);
			struct stack_attr *a;

			for (a = s->attrs; a; a = a->next) {
				for (i = attr_hash(s, a->event, a->cpu, a->pid, a->origin) &
					 (n - 1);
				     t->aslots[i]; i = (i + 1) & (n - 1))
					;
				t->aslots[i] = a;
			}
			off += stack_bytes(t, s->depth);
		}
	}
}

long stack_table_fold(struct stack_table *t, bool (*exited)(void *ctx, int pid, char *comm),
		      void *ctx)
{
	struct hmap pm = { 0 }; /* pid -> its folded pid (0: alive): @exited once per pid */
	struct stack_attr **keep = NULL; /* this stack's folded records */
	size_t nkeep, capkeep = 0;
	const struct arena_chunk *c;
	long folded = 0;
	int r = 0;

	for (c = t->stacks.first; c && !r; c = c->next) {
		size_t off = 0;

		while (off < c->used && !r) {
			struct stack *s = (struct stack *)(void *)(c->data + off);
			struct stack_attr **pp = &s->attrs, *a;

			off += stack_bytes(t, s->depth);
			nkeep = 0;
			while ((a = *pp)) {
				struct stack_attr *into = NULL;
				int fpid = a->pid;
				size_t k;

				if (a->pid > 0) {
					bool fresh;
					uint64_t *v = hmap_slot(&pm, (uint64_t)a->pid, &fresh);
					char comm[FOLD_COMM];

					if (!v) {
						r = -ENOMEM;
						break;
					}
					if (fresh) {
						memset(comm, 0, sizeof(comm));
						if (exited(ctx, a->pid, comm))
							*v = (uint32_t)fold_pid(t, comm[0] ? comm
											   : "?");
					}
					if (*v)
						fpid = (int32_t)(uint32_t)*v;
				}
				if (!stack_pid_folded(fpid)) {
					pp = &a->next;
					continue;
				}
				for (k = 0; k < nkeep; k++)
					if (keep[k]->event == a->event && keep[k]->cpu == a->cpu &&
					    keep[k]->pid == fpid && keep[k]->origin == a->origin)
						into = keep[k];
				if (into) {
					/* folded away: off the chain, onto the free list */
					attr_merge(t, into, a);
					*pp = a->next;
					a->next = t->free_attrs;
					t->free_attrs = a;
					t->nfree++;
					t->nattrs--;
					folded++;
					continue;
				}
				if (ARRAY_GROW(keep, capkeep, nkeep + 1) < 0) {
					r = -ENOMEM;
					break;
				}
				if (a->pid != fpid)
					folded++;
				a->pid = fpid; /* the first of its comm becomes the folded record */
				keep[nkeep++] = a;
				pp = &a->next;
			}
		}
	}
	free(keep);
	hmap_done(&pm);
	t->folded += (uint64_t)folded;
	/* a record's pid may have changed: the hash is rebuilt in any case */
	attr_rehash(t);
	return r < 0 ? r : folded;
}
