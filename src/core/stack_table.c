// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stack_table.c - see stack_table.h.
 *
 * Storage: stacks and attribution records are bump-allocated from arena
 * chunks (16 KiB doubling up to 1 MiB; no per-stack malloc header, freed all
 * at once on clear). Breakdown records folded away (stack_table_fold()) go
 * on a free list and are reused first.
 *
 * Memory limit: below the limit less a reserve (1/16), everything is
 * allocated as usual; past it a new stack counts on the STACK_F_OVER stack
 * and a new (event, cpu, pid) on the stack's STACK_PID_OVER record, both
 * taken from the reserve; with the reserve gone only the stack's own counts
 * grow. Every refusal is counted.
 * Two open-addressing hash tables of pointers index them: stacks by their
 * frame hash, records by (stack, event, cpu, pid). A hit of a known stack
 * costs one hash of the frames, one probe and one memcmp.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mix64.h"
#include "core/stack_table_priv.h"
#include "core/stack_table.h"

static size_t cap_reserve(const struct stack_table *t)
{
	return t->limit ? t->limit : SIZE_MAX;
}

/* NULL when out of memory or when a new chunk would not fit under @cap */
static void *arena_alloc(struct stack_table *t, struct arena *a, size_t size, size_t cap)
{
	struct arena_chunk *c = a->last;
	void *p;

	size = (size + 7) & ~(size_t)7;
	if (!c || c->size - c->used < size) {
		/* the arena doubles, from ARENA_MIN up to chunks of ARENA_CHUNK */
		size_t csize = a->bytes < ARENA_MIN	? ARENA_MIN
			       : a->bytes > ARENA_CHUNK ? ARENA_CHUNK
							: a->bytes;

		if (csize < size)
			csize = size;
		if (!table_fits(t, sizeof(*c) + csize, cap)) {
			csize = size > 4096 ? size : 4096;
			if (!table_fits(t, sizeof(*c) + csize, cap))
				return NULL;
		}
		c = malloc(sizeof(*c) + csize);
		if (!c)
			return NULL;
		c->next = NULL;
		c->used = 0;
		c->size = csize;
		/* a forward list: chunks are walked oldest first */
		if (a->last)
			a->last->next = c;
		else
			a->first = c;
		a->last = c;
		a->bytes += sizeof(*c) + csize;
	}
	p = c->data + c->used;
	c->used += size;
	return p;
}

static void arena_free_all(struct arena *a)
{
	struct arena_chunk *c = a->first, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	a->first = a->last = NULL;
	a->bytes = 0;
}

struct stack_table *stack_table_new(void)
{
	struct stack_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nslots = 1024;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	t->naslots = 1024;
	t->aslots = calloc(t->naslots, sizeof(*t->aslots));
	if (!t->slots || !t->aslots) {
		stack_table_free(t);
		return NULL;
	}
	t->epoch = 1;
	t->hits_epoch = 1;
	t->trend_start = 1;
	return t;
}

void stack_table_free(struct stack_table *t)
{
	if (!t)
		return;
	arena_free_all(&t->stacks);
	arena_free_all(&t->attrs);
	free(t->active[0]);
	free(t->active[1]);
	free(t->slots);
	free(t->aslots);
	free(t->top);
	free(t->fcomm);
	free(t->trend);
	free(t->trend_w);
	free(t);
}

uint32_t stack_hash(const uint64_t *ips, unsigned int depth)
{
	uint64_t h = stack_hash_begin(depth);
	unsigned int i;

	for (i = 0; i < depth; i++)
		h = stack_hash_step(h, ips[i]);
	return stack_hash_end(h);
}

static int stack_grow(struct stack_table *t)
{
	size_t n = t->nslots * 2, i;
	struct stack **slots;

	if (!table_fits(t, n * sizeof(*slots), cap_normal(t)))
		return -ENOSPC;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->nslots; i++) {
		struct stack *s = t->slots[i];
		size_t j;

		if (!s)
			continue;
		for (j = s->hash & (n - 1); slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = s;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

/* a new stack past the limit: its hits count on the one STACK_F_OVER stack */
static struct stack *stack_over(struct stack_table *t)
{
	t->over_stacks++;
	if (!t->over) {
		t->over = arena_alloc(t, &t->stacks, stack_bytes(t, 0), cap_reserve(t));
		if (!t->over)
			return NULL;
		memset(t->over, 0, stack_bytes(t, 0));
		t->over->flags = STACK_F_OVER;
		t->over->hash = 0xffffffffu;
		t->over->epoch = t->epoch - 1;
		/* not in the hash: nothing has its (empty) content */
	}
	return t->over;
}

static inline struct stack *intern_at(struct stack_table *t, const uint64_t *ips,
				      unsigned int depth, uint8_t flags, uint32_t h)
{
	size_t i, mask;
	struct stack *s;

	mask = t->nslots - 1;
	for (i = h & mask; (s = t->slots[i]); i = (i + 1) & mask) {
		if (s->hash == h && s->depth == depth && !memcmp(s->ips, ips, depth * sizeof(*ips)))
			return s;
	}
	if ((t->nstacks + 1) * 4 > t->nslots * 3) {
		int r = stack_grow(t);

		if (r == -ENOSPC)
			return stack_over(t);
		if (r)
			return NULL;
		mask = t->nslots - 1;
		for (i = h & mask; t->slots[i]; i = (i + 1) & mask)
			;
	}
	s = arena_alloc(t, &t->stacks, stack_bytes(t, depth), cap_normal(t));
	if (!s)
		return table_fits(t, stack_bytes(t, depth) + ARENA_MIN, cap_normal(t))
			       ? NULL
			       : stack_over(t);
	memset(s, 0, sizeof(*s));
	s->hash = h;
	s->depth = (uint16_t)depth;
	if (t->weighted) /* the weights and their histogram */
		memset(stack_wc(s), 0, sizeof(struct wcount) + sizeof(struct whist));
	s->flags = flags;
	s->epoch = t->epoch - 1; /* its first hit puts it on the active list */
	if (depth)		 /* an empty stack may come with no frame array at all */
		memcpy(s->ips, ips, depth * sizeof(*ips));
	t->slots[i] = s;
	t->nstacks++;
	return s;
}

struct stack *stack_table_intern(struct stack_table *t, const uint64_t *ips, unsigned int depth)
{
	uint8_t flags = 0;

	if (depth > STACK_MAX_DEPTH) {
		depth = STACK_MAX_DEPTH;
		flags = STACK_F_CUT;
	}
	return intern_at(t, ips, depth, flags, stack_hash(ips, depth));
}

struct stack *stack_table_intern_hashed(struct stack_table *t, const uint64_t *ips,
					unsigned int depth, uint32_t h)
{
	return intern_at(t, ips, depth, 0, h);
}

static inline void count_bump(uint64_t *cur, uint64_t *last, uint32_t *epoch, uint32_t now,
			      uint64_t n)
{
	if (*epoch != now) {
		*last = (*epoch + 1 == now) ? *cur : 0;
		*cur = 0;
		*epoch = now;
	}
	*cur += n;
}

static inline uint64_t count_delta(uint64_t cur, uint64_t last, uint32_t epoch, uint32_t now)
{
	if (epoch == now)
		return last;
	if (epoch + 1 == now)
		return cur;
	return 0;
}

static int attr_grow(struct stack_table *t, size_t cap)
{
	size_t n = t->naslots * 2, i;
	struct stack_attr **slots;

	if (!table_fits(t, n * sizeof(*slots), cap))
		return -ENOSPC;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->naslots; i++) {
		struct stack_attr *a = t->aslots[i];
		size_t j;

		if (!a)
			continue;
		for (j = attr_hash(a->stack, a->event, a->cpu, a->pid, a->origin) & (n - 1);
		     slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = a;
	}
	free(t->aslots);
	t->aslots = slots;
	t->naslots = n;
	return 0;
}

static struct stack_attr *attr_new(struct stack_table *t, size_t cap)
{
	struct stack_attr *a = t->free_attrs;

	if (a) {
		t->free_attrs = a->next;
		t->nfree--;
		return a;
	}
	return arena_alloc(t, &t->attrs, attr_bytes(t), cap);
}

static struct stack_attr *attr_find_cap(struct stack_table *t, struct stack *s, unsigned int event,
					unsigned int cpu, int pid, unsigned int origin, size_t cap)
{
	struct stack_attr *a;
	size_t i, mask;
	uint32_t h;

	h = attr_hash(s, event, cpu, pid, origin);
	mask = t->naslots - 1;
	for (i = h & mask; (a = t->aslots[i]); i = (i + 1) & mask)
		if (a->stack == s && a->event == event && a->cpu == cpu && a->pid == pid &&
		    a->origin == origin)
			return a;
	if ((t->nattrs + 1) * 4 > t->naslots * 3) {
		if (attr_grow(t, cap))
			return NULL;
		mask = t->naslots - 1;
		for (i = h & mask; t->aslots[i]; i = (i + 1) & mask)
			;
	}
	a = attr_new(t, cap);
	if (!a)
		return NULL;
	memset(a, 0, attr_bytes(t));
	a->stack = s;
	a->event = (uint16_t)event;
	a->cpu = (uint16_t)cpu;
	a->pid = pid;
	a->origin = (uint16_t)origin;
	a->epoch = t->epoch;
	a->next = s->attrs;
	s->attrs = a;
	t->aslots[i] = a;
	t->nattrs++;
	return a;
}

/* past the limit, a new (event, cpu, pid) counts on the stack's STACK_PID_OVER record */
static __attribute__((noinline)) struct stack_attr *attr_find(struct stack_table *t,
							      struct stack *s, unsigned int event,
							      unsigned int cpu, int pid,
							      unsigned int origin)
{
	struct stack_attr *a = attr_find_cap(t, s, event, cpu, pid, origin, cap_normal(t));

	if (a || !t->limit || pid == STACK_PID_OVER)
		return a;
	return attr_find_cap(t, s, event, cpu, STACK_PID_OVER, origin, cap_reserve(t));
}

static void active_add(struct stack_table *t, struct stack *s)
{
	unsigned int w = t->epoch & 1;

	if (t->nactive[w] == t->active_cap[w]) {
		size_t cap = t->active_cap[w] ? t->active_cap[w] * 2 : 1024;
		struct stack **a = NULL;

		if (table_fits(t, (cap - t->active_cap[w]) * sizeof(*a), cap_reserve(t)))
			a = realloc(t->active[w], cap * sizeof(*a));
		if (!a) {
			t->active_lost = true; /* rank falls back to the full walk */
			return;
		}
		t->active[w] = a;
		t->active_cap[w] = cap;
	}
	t->active[w][t->nactive[w]++] = s;
}

/* consecutive hits usually come from the same task on the same CPU: inline */
static inline struct stack_attr *attr_get(struct stack_table *t, struct stack *s,
					  unsigned int event, unsigned int cpu, int pid,
					  unsigned int origin)
{
	struct stack_attr *a = s->attrs, **c;

	if (a && a->event == event && a->cpu == cpu && a->pid == pid && a->origin == origin)
		return a;
	c = &t->acache[(((uintptr_t)s >> 4) ^ (unsigned int)pid) & (STACK_ACACHE - 1)];
	a = *c;
	if (a && a->stack == s && a->event == event && a->cpu == cpu && a->pid == pid &&
	    a->origin == origin)
		return a;
	a = attr_find(t, s, event, cpu, pid, origin);
	*c = a;
	return a;
}

/* attr_get() for the grouping (stack_group.c), out of the hit path */
struct stack_attr *stack_table_attr_get(struct stack_table *t, struct stack *s, unsigned int event,
					unsigned int cpu, int pid, unsigned int origin)
{
	return attr_get(t, s, event, cpu, pid, origin);
}

/* the hit counters of @s, the table's and the record's; the record, NULL on OOM */
static inline __attribute__((always_inline)) struct stack_attr *
hit_counts(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu, int pid,
	   uint64_t n)
{
	struct stack_attr *a;

	if (s->epoch != t->epoch)
		active_add(t, s);
	if (!s->total)
		t->nhit++;
	s->total += n;
	count_bump(&s->cur, &s->last, &s->epoch, t->epoch, n);
	t->hits += n;
	if (t->hits_epoch != t->epoch) {
		t->hits_last = (t->hits_epoch + 1 == t->epoch) ? t->hits_cur : 0;
		t->hits_cur = 0;
		t->hits_epoch = t->epoch;
	}
	t->hits_cur += n;

	a = attr_get(t, s, event, cpu, pid, 0);
	if (!a || (a->pid == STACK_PID_OVER && pid != STACK_PID_OVER) || s == t->over)
		t->over_hits += n;
	if (!a)
		return NULL;
	a->total += n;
	count_bump(&a->cur, &a->last, &a->epoch, t->epoch, n);
	return a;
}

/* the unweighted hot path: no weight code at all */
int stack_table_hit(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu,
		    int pid, uint64_t n)
{
	if (__builtin_expect(t->weighted, 0))
		return stack_table_hit_w(t, s, event, cpu, pid, n, 0);
	if (!n)
		return 0;
	return hit_counts(t, s, event, cpu, pid, n) ? 0 : -ENOMEM;
}

int stack_table_hit_w(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu,
		      int pid, uint64_t n, uint64_t w)
{
	uint32_t s_epoch = s->epoch, a_epoch;
	struct stack_attr *a;

	if (!n)
		return 0;
	if (!t->weighted)
		return hit_counts(t, s, event, cpu, pid, n) ? 0 : -ENOMEM;
	/* the weights roll with the counters' epochs: read them before the hit */
	wc_bump(stack_wc(s), s_epoch, t->epoch, w);
	/* n hits weighing w: n values of w / n (ingest counts one at a time) */
	whist_add(stack_wh(s), t->hist_scale, n == 1 ? w : w / n, n);
	if (t->hits_epoch != t->epoch) {
		t->w_last = (t->hits_epoch + 1 == t->epoch) ? t->w_cur : 0;
		t->w_cur = 0;
	}
	t->w_cur += w;
	t->w_total += w;
	a = attr_get(t, s, event, cpu, pid, 0);
	if (!a) {
		hit_counts(t, s, event, cpu, pid, n);
		return -ENOMEM;
	}
	a_epoch = a->epoch;
	if (!hit_counts(t, s, event, cpu, pid, n))
		return -ENOMEM;
	wc_bump(attr_wc(a), a_epoch, t->epoch, w);
	return 0;
}

/* the counts of @c, without weights */
static int table_add(struct stack_table *t, struct stack *s, const struct stack_key *k,
		     uint64_t total, uint32_t delta)
{
	struct stack_attr *a;

	if (!total)
		return 0;
	if (delta > total)
		delta = (uint32_t)(total > UINT32_MAX ? UINT32_MAX : total);
	if (s->epoch != t->epoch)
		active_add(t, s);
	if (!s->total)
		t->nhit++;
	s->total += total;
	count_bump(&s->cur, &s->last, &s->epoch, t->epoch, delta);
	t->hits += total;
	if (t->hits_epoch != t->epoch) {
		t->hits_last = (t->hits_epoch + 1 == t->epoch) ? t->hits_cur : 0;
		t->hits_cur = 0;
		t->hits_epoch = t->epoch;
	}
	t->hits_cur += delta;

	a = attr_get(t, s, k->event, k->cpu, k->pid, k->origin);
	if (!a)
		return -ENOMEM;
	a->total += total;
	count_bump(&a->cur, &a->last, &a->epoch, t->epoch, delta);
	return 0;
}

int stack_table_add(struct stack_table *t, struct stack *s, const struct stack_key *k,
		    const struct stack_counts *c)
{
	uint32_t s_epoch = s->epoch, a_epoch;
	uint64_t w = c->w, wdelta = c->wdelta;
	struct stack_attr *a;
	int r;

	if (!t->weighted || !c->total)
		return table_add(t, s, k, c->total, c->delta);
	if (wdelta > w)
		wdelta = w;
	/* the weights roll with the counters' epochs: read them before the counts move */
	wc_bump(stack_wc(s), s_epoch, t->epoch, wdelta);
	stack_wc(s)->total += w - wdelta;
	if (t->hits_epoch != t->epoch) {
		t->w_last = (t->hits_epoch + 1 == t->epoch) ? t->w_cur : 0;
		t->w_cur = 0;
	}
	t->w_cur += wdelta;
	t->w_total += w;
	a = attr_get(t, s, k->event, k->cpu, k->pid, k->origin);
	if (!a) {
		table_add(t, s, k, c->total, c->delta);
		return -ENOMEM;
	}
	a_epoch = a->epoch;
	r = table_add(t, s, k, c->total, c->delta);
	wc_bump(attr_wc(a), a_epoch, t->epoch, wdelta);
	attr_wc(a)->total += w - wdelta;
	return r;
}

void stack_add_id(struct stack *s, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < s->nids; i++)
		if (s->ids[i] == id)
			return;
	if (s->nids < STACK_MAX_IDS) {
		/* keep them sorted: the lowest id is the sort key */
		for (i = s->nids; i > 0 && s->ids[i - 1] > id; i--)
			s->ids[i] = s->ids[i - 1];
		s->ids[i] = id;
		s->nids++;
	} else {
		s->flags |= STACK_F_MOREIDS;
	}
}

/* stack_table_tick(), the interval roll, is stack_trend.c's: it records the trends */

bool stack_table_last_active(const struct stack_table *t, struct stack *const **ret, size_t *ret_n,
			     size_t *ret_nhit)
{
	unsigned int w = (t->epoch - 1) & 1;

	if (t->active_lost)
		return false;
	*ret = t->active[w];
	*ret_n = t->nactive[w];
	*ret_nhit = t->nhit;
	return true;
}

void stack_table_clear(struct stack_table *t)
{
	arena_free_all(&t->stacks);
	arena_free_all(&t->attrs);
	t->over = NULL;
	t->free_attrs = NULL;
	t->nfree = 0;
	t->folded = t->over_stacks = t->over_hits = 0;
	t->nfcomm = 0;
	t->nactive[0] = t->nactive[1] = 0;
	t->nhit = 0;
	t->active_lost = false;
	memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	memset(t->aslots, 0, t->naslots * sizeof(*t->aslots));
	memset(t->acache, 0, sizeof(t->acache));
	t->nstacks = 0;
	t->nattrs = 0;
	t->hits = 0;
	t->hits_cur = 0;
	t->hits_last = 0;
	t->w_total = t->w_cur = t->w_last = 0;
	t->epoch++;
	t->hits_epoch = t->epoch;
	/* the stacks are gone: so are their slots (weighted or not, anew) */
	free(t->trend);
	free(t->trend_w);
	t->trend = NULL;
	t->trend_w = NULL;
	t->trend_cap = 0;
	t->ntrend = t->trend_free = t->trend_used = 0;
	t->trend_refused = 0;
	t->trend_start = t->epoch;
}

size_t stack_table_count(const struct stack_table *t)
{
	return t->nstacks;
}

uint64_t stack_table_hits(const struct stack_table *t, uint64_t *ret_delta)
{
	if (ret_delta) {
		if (t->hits_epoch == t->epoch)
			*ret_delta = t->hits_last;
		else if (t->hits_epoch + 1 == t->epoch)
			*ret_delta = t->hits_cur;
		else
			*ret_delta = 0;
	}
	return t->hits;
}

uint32_t stack_table_epoch(const struct stack_table *t)
{
	return t->epoch;
}

uint64_t stack_delta(const struct stack_table *t, const struct stack *s)
{
	return count_delta(s->cur, s->last, s->epoch, t->epoch);
}

uint64_t stack_attr_delta(const struct stack_table *t, const struct stack_attr *a)
{
	return count_delta(a->cur, a->last, a->epoch, t->epoch);
}

int stack_table_foreach(struct stack_table *t, int (*fn)(struct stack *s, void *ctx), void *ctx)
{
	const struct arena_chunk *c;
	int r;

	/* the stack arena holds nothing but stacks: walk it front to back */
	for (c = t->stacks.first; c; c = c->next) {
		size_t off = 0;

		while (off < c->used) {
			struct stack *s = (struct stack *)(void *)(c->data + off);

			r = fn(s, ctx);
			if (r)
				return r;
			off += stack_bytes(t, s->depth);
		}
	}
	return 0;
}
