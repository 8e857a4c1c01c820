/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_table_priv.h - the stack table's inside, shared by its files and nothing
 * else: stack_table.c (interning and counting: the hot path), stack_mem.c
 * (the memory limit, folding exited pids), stack_group.c (grouping),
 * stack_query.c (weights, who hits a stack most). Everybody else goes
 * through stack_table.h.
 */
#ifndef STACKTOP_STACK_TABLE_PRIV_H
#define STACKTOP_STACK_TABLE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"
#include "core/mix64.h"
#include "core/stack_table.h"

#define ARENA_CHUNK (1u << 20)
#define ARENA_MIN   (16u << 10)
#define FOLD_COMM   16

struct arena_chunk {
	struct arena_chunk *next;
	size_t used;
	size_t size;
	_Alignas(8) unsigned char data[];
};

struct arena {
	struct arena_chunk *last;  /* where allocations go */
	struct arena_chunk *first; /* oldest, for insertion-order walks */
	size_t bytes;
};

#define STACK_ACACHE 64 /* a power of two */

struct stack_table {
	struct arena stacks; /* only stacks: walked in order by rank */
	struct arena attrs;

	struct stack **slots;
	size_t nslots; /* power of two */
	size_t nstacks;

	struct stack_attr **aslots;
	size_t naslots;
	size_t nattrs;
	/*
	 * The records found last through the hash, by stack and task: a
	 * stack many tasks hit (a read() every program makes) has one of
	 * theirs at the head of its chain, not the busy task's. Emptied
	 * wherever records are freed (attr_rehash(), stack_table_clear()).
	 */
	struct stack_attr *acache[STACK_ACACHE];

	uint32_t epoch;
	uint64_t hits;
	uint32_t hits_epoch;
	uint64_t hits_cur;
	uint64_t hits_last;

	/*
	 * Stacks first hit in epoch e, in active[e & 1]: the stacks of the last
	 * closed interval are a short list even when the table holds millions,
	 * and ranking by that interval needs only them (rank.c).
	 */
	struct stack **active[2];
	size_t nactive[2];
	size_t active_cap[2];
	size_t nhit;	  /* stacks with at least one hit */
	bool active_lost; /* an active list could not grow (OOM) */

	bool weighted;	    /* a struct wcount follows every stack and record */
	uint8_t hist_scale; /* enum hist_scale of the stacks' struct whist */
	uint64_t w_total;
	uint64_t w_cur;
	uint64_t w_last;

	struct top_slot *top; /* stack_top_of()'s scratch */
	size_t top_cap;
	/* memory limit (0: none), see the top of this file */
	size_t limit;
	struct stack *over;	       /* STACK_F_OVER, made when first needed */
	struct stack_attr *free_attrs; /* folded away, reused first */
	size_t nfree;
	uint64_t folded, over_stacks, over_hits;
	char (*fcomm)[FOLD_COMM]; /* names of folded pids */
	size_t nfcomm, fcomm_cap;

	/*
	 * Recent interval counts (stack_trend.c): a slot per stack hit in the
	 * last STACK_TREND intervals, found through stack.trend; the slots of
	 * stacks idle that long go back to a free list.
	 */
	struct trend_slot *trend;
	uint64_t (*trend_w)[STACK_TREND]; /* weighted tables: the weights, by slot */
	uint32_t ntrend;		  /* slots used or free */
	uint32_t trend_cap;
	uint32_t trend_free; /* first free slot + 1, 0: none */
	uint32_t trend_used;
	uint32_t trend_start; /* the first interval recorded */
	uint64_t trend_refused;
};

/*
 * One stack's counts of its last STACK_TREND intervals: interval e in
 * hits[e % STACK_TREND], valid while upto - e < STACK_TREND (epochs wrap:
 * differences only).
 */
struct trend_slot {
	struct stack *st;   /* NULL: free */
	uint32_t upto;	    /* the newest interval written */
	uint32_t next_free; /* free list: next free slot + 1 */
	uint32_t hits[STACK_TREND];
};

/* bytes of one trend slot of @t (with its weights in a weighted table) */
static inline size_t trend_slot_bytes(const struct stack_table *t)
{
	return sizeof(struct trend_slot) + (t->weighted ? sizeof(*t->trend_w) : 0);
}

/*
 * Weights: the same three counters as the hits, sharing their epoch, kept
 * right after the stack's frames (or the record) only in weighted tables.
 */
struct wcount {
	uint64_t total;
	uint64_t cur;
	uint64_t last;
};

/*
 * The histogram of a weighted stack's single weights (core/hist.h), after
 * its struct wcount: 32-bit counters that stop at UINT32_MAX.
 */
struct whist {
	uint32_t b[HIST_BUCKETS];
};

/* every byte @t holds: the struct, stacks, records, hash slots, lists, trends */
static inline size_t table_bytes(const struct stack_table *t)
{
	return sizeof(*t) + t->stacks.bytes + t->attrs.bytes + t->nslots * sizeof(*t->slots) +
	       t->naslots * sizeof(*t->aslots) +
	       (t->active_cap[0] + t->active_cap[1]) * sizeof(*t->active[0]) +
	       t->fcomm_cap * sizeof(*t->fcomm) + (size_t)t->trend_cap * trend_slot_bytes(t);
}

/* what ordinary allocations may bring the table to; SIZE_MAX: no limit */
static inline size_t cap_normal(const struct stack_table *t)
{
	return t->limit ? t->limit - t->limit / 16 : SIZE_MAX;
}

/* whether @more bytes fit under @cap */
static inline bool table_fits(const struct stack_table *t, size_t more, size_t cap)
{
	size_t now = table_bytes(t);

	return cap == SIZE_MAX || (now <= cap && more <= cap - now);
}

/* bytes of a stack of @depth frames, rounded up to 8 (its weights follow) */
static inline size_t stack_size(unsigned int depth)
{
	return (sizeof(struct stack) + depth * sizeof(uint64_t) + 7) & ~(size_t)7;
}

/* bytes of a stack of @depth frames in @t: with its wcount and whist when weighted */
static inline size_t stack_bytes(const struct stack_table *t, unsigned int depth)
{
	return stack_size(depth) + (t->weighted ? sizeof(struct wcount) + sizeof(struct whist) : 0);
}

/* bytes of a breakdown record in @t: with its wcount when weighted */
static inline size_t attr_bytes(const struct stack_table *t)
{
	return ((sizeof(struct stack_attr) + 7) & ~(size_t)7) +
	       (t->weighted ? sizeof(struct wcount) : 0);
}

/* the weight counters of @s (weighted tables only): right after its frames */
static inline struct wcount *stack_wc(const struct stack *s)
{
	return (struct wcount *)(void *)((unsigned char *)s + stack_size(s->depth));
}

/* the histogram of @s's single weights (weighted tables only): after its wcount */
static inline struct whist *stack_wh(const struct stack *s)
{
	return (struct whist *)(void *)((unsigned char *)s + stack_size(s->depth) +
					sizeof(struct wcount));
}

/* @n values of @v each into @h */
static inline void whist_add(struct whist *h, unsigned int scale, uint64_t v, uint64_t n)
{
	uint32_t *c = &h->b[hist_bucket(scale, v)];
	uint64_t x = (uint64_t)*c + n;

	*c = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
}

/* the weight counters of record @a (weighted tables only): right after it */
static inline struct wcount *attr_wc(const struct stack_attr *a)
{
	return (struct wcount *)(void *)((unsigned char *)a +
					 ((sizeof(struct stack_attr) + 7) & ~(size_t)7));
}

/* before the hit counters' epoch moves to @now */
static inline void wc_bump(struct wcount *w, uint32_t epoch, uint32_t now, uint64_t n)
{
	if (epoch != now) {
		w->last = (epoch + 1 == now) ? w->cur : 0;
		w->cur = 0;
	}
	w->cur += n;
	w->total += n;
}

/* the weight of the last closed interval, @epoch being @w's and @now the table's */
static inline uint64_t wc_delta(const struct wcount *w, uint32_t epoch, uint32_t now)
{
	if (epoch == now)
		return w->last;
	if (epoch + 1 == now)
		return w->cur;
	return 0;
}

/* the hash of a record's key: its stack (by address), event, cpu, pid and origin */
static inline uint32_t attr_hash(const struct stack *s, unsigned int event, unsigned int cpu,
				 int pid, unsigned int origin)
{
	return (uint32_t)mix64((uintptr_t)s ^ ((uint64_t)event << 48) ^ ((uint64_t)cpu << 32) ^
			       (uint32_t)pid ^ ((uint64_t)origin << 20));
}

/* attr_get() out of line: the record of (@s, @event, @cpu, @pid, @origin), made if new */
struct stack_attr *stack_table_attr_get(struct stack_table *t, struct stack *s, unsigned int event,
					unsigned int cpu, int pid, unsigned int origin);

#endif /* STACKTOP_STACK_TABLE_PRIV_H */
