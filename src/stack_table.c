// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stack_table.c - see stack_table.h.
 *
 * Storage: stacks and attribution records are bump-allocated from 1 MiB
 * arena chunks (no per-stack malloc header, freed all at once on clear).
 * Two open-addressing hash tables of pointers index them: stacks by their
 * frame hash, records by (stack, event, cpu, pid). A hit of a known stack
 * costs one hash of the frames, one probe and one memcmp.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stack_table.h"

#define ARENA_CHUNK (1u << 20)

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

struct stack_table {
	struct arena stacks; /* only stacks: walked in order by rank */
	struct arena attrs;

	struct stack **slots;
	size_t nslots; /* power of two */
	size_t nstacks;

	struct stack_attr **aslots;
	size_t naslots;
	size_t nattrs;

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
	size_t nhit; /* stacks with at least one hit */
	bool active_lost; /* an active list could not grow (OOM) */

	struct top_slot *top; /* stack_top_of()'s scratch */
	size_t top_cap;
};

static void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c = a->last;
	void *p;

	size = (size + 7) & ~(size_t)7;
	if (!c || c->size - c->used < size) {
		size_t csize = size > ARENA_CHUNK ? size : ARENA_CHUNK;

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

static inline size_t stack_size(unsigned int depth)
{
	return (sizeof(struct stack) + depth * sizeof(uint64_t) + 7) & ~(size_t)7;
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
	free(t);
}

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint32_t stack_hash(const uint64_t *ips, unsigned int depth)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ depth;
	unsigned int i;

	for (i = 0; i < depth; i++)
		h = (h ^ ips[i]) * 0x100000001b3ULL + (h >> 29);
	return (uint32_t)mix64(h);
}

static int stack_grow(struct stack_table *t)
{
	size_t n = t->nslots * 2, i;
	struct stack **slots = calloc(n, sizeof(*slots));

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

struct stack *stack_table_intern(struct stack_table *t, const uint64_t *ips, unsigned int depth)
{
	uint8_t flags = 0;
	uint32_t h;
	size_t i, mask;
	struct stack *s;

	if (depth > STACK_MAX_DEPTH) {
		depth = STACK_MAX_DEPTH;
		flags = STACK_F_CUT;
	}
	h = stack_hash(ips, depth);
	mask = t->nslots - 1;
	for (i = h & mask; (s = t->slots[i]); i = (i + 1) & mask) {
		if (s->hash == h && s->depth == depth &&
		    !memcmp(s->ips, ips, depth * sizeof(*ips)))
			return s;
	}
	if ((t->nstacks + 1) * 4 > t->nslots * 3) {
		if (stack_grow(t))
			return NULL;
		mask = t->nslots - 1;
		for (i = h & mask; t->slots[i]; i = (i + 1) & mask)
			;
	}
	s = arena_alloc(&t->stacks, stack_size(depth));
	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->hash = h;
	s->depth = (uint16_t)depth;
	s->flags = flags;
	s->epoch = t->epoch - 1; /* its first hit puts it on the active list */
	memcpy(s->ips, ips, depth * sizeof(*ips));
	t->slots[i] = s;
	t->nstacks++;
	return s;
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

static inline uint32_t attr_hash(const struct stack *s, unsigned int event, unsigned int cpu,
				 int pid, unsigned int origin)
{
	return (uint32_t)mix64((uintptr_t)s ^ ((uint64_t)event << 48) ^ ((uint64_t)cpu << 32) ^
			       (uint32_t)pid ^ ((uint64_t)origin << 20));
}

static int attr_grow(struct stack_table *t)
{
	size_t n = t->naslots * 2, i;
	struct stack_attr **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->naslots; i++) {
		struct stack_attr *a = t->aslots[i];
		size_t j;

		if (!a)
			continue;
		for (j = attr_hash(a->stack, a->event, a->cpu, a->pid, a->origin) & (n - 1); slots[j];
		     j = (j + 1) & (n - 1))
			;
		slots[j] = a;
	}
	free(t->aslots);
	t->aslots = slots;
	t->naslots = n;
	return 0;
}

static __attribute__((noinline)) struct stack_attr *
attr_find(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu, int pid,
	  unsigned int origin)
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
		if (attr_grow(t))
			return NULL;
		mask = t->naslots - 1;
		for (i = h & mask; t->aslots[i]; i = (i + 1) & mask)
			;
	}
	a = arena_alloc(&t->attrs, sizeof(*a));
	if (!a)
		return NULL;
	memset(a, 0, sizeof(*a));
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

static void active_add(struct stack_table *t, struct stack *s)
{
	unsigned int w = t->epoch & 1;

	if (t->nactive[w] == t->active_cap[w]) {
		size_t cap = t->active_cap[w] ? t->active_cap[w] * 2 : 1024;
		struct stack **a = realloc(t->active[w], cap * sizeof(*a));

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
	struct stack_attr *a = s->attrs;

	if (a && a->event == event && a->cpu == cpu && a->pid == pid && a->origin == origin)
		return a;
	return attr_find(t, s, event, cpu, pid, origin);
}

int stack_table_hit(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu,
		    int pid, uint64_t n)
{
	struct stack_attr *a;

	if (!n)
		return 0;
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
	if (!a)
		return -ENOMEM;
	a->total += n;
	count_bump(&a->cur, &a->last, &a->epoch, t->epoch, n);
	return 0;
}

int stack_table_add(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu,
		    int pid, unsigned int origin, uint64_t total, uint32_t delta)
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

	a = attr_get(t, s, event, cpu, pid, origin);
	if (!a)
		return -ENOMEM;
	a->total += total;
	count_bump(&a->cur, &a->last, &a->epoch, t->epoch, delta);
	return 0;
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

void stack_table_tick(struct stack_table *t)
{
	t->epoch++;
	/* active[epoch & 1] held epoch - 2: start it over */
	t->nactive[t->epoch & 1] = 0;
	if (t->active_lost && !t->nactive[(t->epoch - 1) & 1])
		t->active_lost = false;
}

bool stack_table_last_active(const struct stack_table *t, struct stack *const **ret,
			     size_t *ret_n, size_t *ret_nhit)
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
	t->nactive[0] = t->nactive[1] = 0;
	t->nhit = 0;
	t->active_lost = false;
	memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	memset(t->aslots, 0, t->naslots * sizeof(*t->aslots));
	t->nstacks = 0;
	t->nattrs = 0;
	t->hits = 0;
	t->hits_cur = 0;
	t->hits_last = 0;
	t->epoch++;
	t->hits_epoch = t->epoch;
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

size_t stack_table_memory(const struct stack_table *t)
{
	return sizeof(*t) + t->stacks.bytes + t->attrs.bytes + t->nslots * sizeof(*t->slots) +
	       t->naslots * sizeof(*t->aslots);
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
			off += stack_size(s->depth);
		}
	}
	return 0;
}

/* ---- who hits a stack most ------------------------------------------------------- */

/* key: kind << 32 | value, kind 1-3 (0 marks an empty slot) */
enum { TOP_EVENT = 1, TOP_PID, TOP_CPU };

struct top_slot {
	uint64_t key;
	uint64_t hits;
};

/* false when the table is full */
static bool top_add(struct top_slot *slots, size_t mask, unsigned int kind, int value,
		    uint64_t hits)
{
	uint64_t key = (uint64_t)kind << 32 | (uint32_t)value;
	size_t i, n;

	for (i = mix64(key) & mask, n = 0; n <= mask; i = (i + 1) & mask, n++) {
		if (slots[i].key == key) {
			slots[i].hits += hits;
			return true;
		}
		if (!slots[i].key) {
			slots[i].key = key;
			slots[i].hits = hits;
			return true;
		}
	}
	return false;
}

static void top_pick(int *ret, uint64_t *ret_hits, int value, uint64_t hits)
{
	if (hits > *ret_hits || (hits == *ret_hits && value < *ret)) {
		*ret = value;
		*ret_hits = hits;
	}
}

/* the scratch with room for @cap slots, zeroed; false when out of memory */
static bool top_scratch(struct stack_table *t, size_t cap)
{
	if (cap > t->top_cap) {
		struct top_slot *ns = malloc(cap * sizeof(*ns));

		if (!ns)
			return false;
		free(t->top);
		t->top = ns;
		t->top_cap = cap;
	}
	memset(t->top, 0, cap * sizeof(*t->top));
	return true;
}

/* sum the records into @cap slots; false when they did not fit */
static bool top_fill(struct stack_table *t, const struct stack *s, bool delta,
		     const struct rank_opts *filter, size_t cap)
{
	bool filtered = filter && rank_filters_attrs(filter);
	const struct stack_attr *a;

	for (a = s->attrs; a; a = a->next) {
		uint64_t h = delta ? stack_attr_delta(t, a) : a->total;

		if (!h || (filtered && !rank_attr_passes(filter, a)))
			continue;
		if (!top_add(t->top, cap - 1, TOP_EVENT, a->event, h) ||
		    !top_add(t->top, cap - 1, TOP_PID, a->pid, h) ||
		    !top_add(t->top, cap - 1, TOP_CPU, a->cpu, h))
			return false;
	}
	return true;
}

void stack_top_of(struct stack_table *t, const struct stack *s, bool delta,
		  const struct rank_opts *filter, struct stack_top *ret)
{
	const struct stack_attr *a;
	size_t n = 0, cap = 128, i;

	memset(ret, 0, sizeof(*ret));
	ret->event = ret->pid = ret->cpu = -1;
	for (a = s->attrs; a; a = a->next)
		n++;
	/*
	 * A record is one (event, CPU, pid): the keys are about one per record
	 * plus a few events and CPUs. Room for twice that; a stack with more
	 * distinct events and CPUs than that fills it and is summed again in
	 * a table twice as large.
	 */
	while (cap < 2 * n + 128)
		cap *= 2;
	for (;;) {
		if (!top_scratch(t, cap))
			return;
		if (top_fill(t, s, delta, filter, cap))
			break;
		cap *= 2;
	}
	for (i = 0; i < cap; i++) {
		const struct top_slot *e = &t->top[i];
		int v = (int)(uint32_t)e->key;

		switch (e->key >> 32) {
		case TOP_EVENT:
			top_pick(&ret->event, &ret->event_hits, v, e->hits);
			break;
		case TOP_PID:
			top_pick(&ret->pid, &ret->pid_hits, v, e->hits);
			ret->npids++;
			break;
		case TOP_CPU:
			top_pick(&ret->cpu, &ret->cpu_hits, v, e->hits);
			break;
		}
	}
}
