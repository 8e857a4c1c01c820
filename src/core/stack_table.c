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

#include "core/stack_table.h"
#include "core/mix64.h"

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

	bool weighted; /* a struct wcount follows every stack and record */
	uint64_t w_total;
	uint64_t w_cur;
	uint64_t w_last;

	struct top_slot *top; /* stack_top_of()'s scratch */
	size_t top_cap;
	/* memory limit (0: none), see the top of this file */
	size_t limit;
	struct stack *over;		/* STACK_F_OVER, made when first needed */
	struct stack_attr *free_attrs;	/* folded away, reused first */
	size_t nfree;
	uint64_t folded, over_stacks, over_hits;
	char (*fcomm)[FOLD_COMM];	/* names of folded pids */
	size_t nfcomm, fcomm_cap;
};

/*
 * Weights: the same three counters as the hits, sharing their epoch, kept
 * right after the stack's frames (or the record) only in weighted tables.
 */
struct wcount {
	uint64_t total;
	uint64_t cur;
	uint64_t last;
};

static size_t table_bytes(const struct stack_table *t)
{
	return sizeof(*t) + t->stacks.bytes + t->attrs.bytes + t->nslots * sizeof(*t->slots) +
	       t->naslots * sizeof(*t->aslots) +
	       (t->active_cap[0] + t->active_cap[1]) * sizeof(*t->active[0]) +
	       t->fcomm_cap * sizeof(*t->fcomm);
}

/* what ordinary allocations may bring the table to; SIZE_MAX: no limit */
static size_t cap_normal(const struct stack_table *t)
{
	return t->limit ? t->limit - t->limit / 16 : SIZE_MAX;
}

static size_t cap_reserve(const struct stack_table *t)
{
	return t->limit ? t->limit : SIZE_MAX;
}

/* whether @more bytes fit under @cap */
static bool fits(const struct stack_table *t, size_t more, size_t cap)
{
	size_t now = table_bytes(t);

	return cap == SIZE_MAX || (now <= cap && more <= cap - now);
}

/* NULL when out of memory or when a new chunk would not fit under @cap */
static void *arena_alloc(struct stack_table *t, struct arena *a, size_t size, size_t cap)
{
	struct arena_chunk *c = a->last;
	void *p;

	size = (size + 7) & ~(size_t)7;
	if (!c || c->size - c->used < size) {
		/* the arena doubles, from ARENA_MIN up to chunks of ARENA_CHUNK */
		size_t csize = a->bytes < ARENA_MIN ? ARENA_MIN :
			       a->bytes > ARENA_CHUNK ? ARENA_CHUNK : a->bytes;

		if (csize < size)
			csize = size;
		if (!fits(t, sizeof(*c) + csize, cap)) {
			csize = size > 4096 ? size : 4096;
			if (!fits(t, sizeof(*c) + csize, cap))
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

static inline size_t stack_size(unsigned int depth)
{
	return (sizeof(struct stack) + depth * sizeof(uint64_t) + 7) & ~(size_t)7;
}

static inline size_t stack_bytes(const struct stack_table *t, unsigned int depth)
{
	return stack_size(depth) + (t->weighted ? sizeof(struct wcount) : 0);
}

static inline size_t attr_bytes(const struct stack_table *t)
{
	return ((sizeof(struct stack_attr) + 7) & ~(size_t)7) +
	       (t->weighted ? sizeof(struct wcount) : 0);
}

static inline struct wcount *stack_wc(const struct stack *s)
{
	return (struct wcount *)(void *)((unsigned char *)s + stack_size(s->depth));
}

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

static inline uint64_t wc_delta(const struct wcount *w, uint32_t epoch, uint32_t now)
{
	if (epoch == now)
		return w->last;
	if (epoch + 1 == now)
		return w->cur;
	return 0;
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
	free(t->fcomm);
	free(t);
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
	struct stack **slots;

	if (!fits(t, n * sizeof(*slots), cap_normal(t)))
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
		return fits(t, stack_bytes(t, depth) + ARENA_MIN, cap_normal(t)) ? NULL : stack_over(t);
	memset(s, 0, sizeof(*s));
	s->hash = h;
	s->depth = (uint16_t)depth;
	if (t->weighted)
		memset(stack_wc(s), 0, sizeof(struct wcount));
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

static int attr_grow(struct stack_table *t, size_t cap)
{
	size_t n = t->naslots * 2, i;
	struct stack_attr **slots;

	if (!fits(t, n * sizeof(*slots), cap))
		return -ENOSPC;
	slots = calloc(n, sizeof(*slots));
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
					unsigned int cpu, int pid, unsigned int origin,
					size_t cap)
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
static __attribute__((noinline)) struct stack_attr *
attr_find(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu, int pid,
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

		if (fits(t, (cap - t->active_cap[w]) * sizeof(*a), cap_reserve(t)))
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
	struct stack_attr *a = s->attrs;

	if (a && a->event == event && a->cpu == cpu && a->pid == pid && a->origin == origin)
		return a;
	return attr_find(t, s, event, cpu, pid, origin);
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

int stack_table_hit_w(struct stack_table *t, struct stack *s, unsigned int event,
		      unsigned int cpu, int pid, uint64_t n, uint64_t w)
{
	uint32_t s_epoch = s->epoch, a_epoch;
	struct stack_attr *a;

	if (!n)
		return 0;
	if (!t->weighted)
		return hit_counts(t, s, event, cpu, pid, n) ? 0 : -ENOMEM;
	/* the weights roll with the counters' epochs: read them before the hit */
	wc_bump(stack_wc(s), s_epoch, t->epoch, w);
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

int stack_table_add_w(struct stack_table *t, struct stack *s, unsigned int event,
		      unsigned int cpu, int pid, unsigned int origin, uint64_t total,
		      uint32_t delta, uint64_t w, uint64_t wdelta)
{
	uint32_t s_epoch = s->epoch, a_epoch;
	struct stack_attr *a;
	int r;

	if (!t->weighted || !total)
		return stack_table_add(t, s, event, cpu, pid, origin, total, delta);
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
	a = attr_get(t, s, event, cpu, pid, origin);
	if (!a) {
		stack_table_add(t, s, event, cpu, pid, origin, total, delta);
		return -ENOMEM;
	}
	a_epoch = a->epoch;
	r = stack_table_add(t, s, event, cpu, pid, origin, total, delta);
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
	t->nstacks = 0;
	t->nattrs = 0;
	t->hits = 0;
	t->hits_cur = 0;
	t->hits_last = 0;
	t->w_total = t->w_cur = t->w_last = 0;
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
	if (t->nfcomm == t->fcomm_cap) {
		size_t cap = t->fcomm_cap ? t->fcomm_cap * 2 : 64;
		char (*n)[FOLD_COMM];

		if (cap > 1u << 20)
			return 0; /* a million names: keep the pids */
		n = realloc(t->fcomm, cap * sizeof(*n));
		if (!n)
			return 0;
		t->fcomm = n;
		t->fcomm_cap = cap;
	}
	snprintf(t->fcomm[t->nfcomm], FOLD_COMM, "%s", comm);
	return STACK_PID_FOLDED - (int)t->nfcomm++;
}

/* a small pid -> folded pid map (0: alive), so @exited runs once per pid */
struct pidmap {
	int32_t *key;
	int32_t *val;
	size_t n, used;
};

static int pidmap_grow(struct pidmap *m)
{
	size_t n = m->n ? m->n * 2 : 1024, i;
	int32_t *key = calloc(n, sizeof(*key)), *val = calloc(n, sizeof(*val));

	if (!key || !val) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	for (i = 0; i < m->n; i++) {
		size_t j;

		if (!m->key[i])
			continue;
		for (j = mix64((uint64_t)m->key[i]) & (n - 1); key[j]; j = (j + 1) & (n - 1))
			;
		key[j] = m->key[i];
		val[j] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->n = n;
	return 0;
}

/* the slot of @pid (> 0); *@fresh when it was not there */
static int32_t *pidmap_get(struct pidmap *m, int32_t pid, bool *fresh)
{
	size_t j;

	if ((m->used + 1) * 2 > m->n && pidmap_grow(m))
		return NULL;
	for (j = mix64((uint64_t)pid) & (m->n - 1); m->key[j]; j = (j + 1) & (m->n - 1))
		if (m->key[j] == pid) {
			*fresh = false;
			return &m->val[j];
		}
	m->key[j] = pid;
	m->val[j] = 0;
	m->used++;
	*fresh = true;
	return &m->val[j];
}

/* @from's counts into @into, both brought to the current epoch */
static void attr_merge(struct stack_table *t, struct stack_attr *into, const struct stack_attr *from)
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
				for (i = attr_hash(s, a->event, a->cpu, a->pid, a->origin) & (n - 1);
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
	struct pidmap pm = { 0 };
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
					int32_t *v = pidmap_get(&pm, a->pid, &fresh);
					char comm[FOLD_COMM];

					if (!v) {
						r = -ENOMEM;
						break;
					}
					if (fresh) {
						memset(comm, 0, sizeof(comm));
						if (exited(ctx, a->pid, comm))
							*v = fold_pid(t, comm[0] ? comm : "?");
					}
					if (*v)
						fpid = *v;
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
				if (nkeep == capkeep) {
					size_t nc = capkeep ? capkeep * 2 : 64;
					struct stack_attr **nb = realloc(keep, nc * sizeof(*nb));

					if (!nb) {
						r = -ENOMEM;
						break;
					}
					keep = nb;
					capkeep = nc;
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
	free(pm.key);
	free(pm.val);
	t->folded += (uint64_t)folded;
	/* a record's pid may have changed: the hash is rebuilt in any case */
	attr_rehash(t);
	return r < 0 ? r : folded;
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

int stack_table_set_weighted(struct stack_table *t, bool on)
{
	if (t->stacks.first || t->attrs.first)
		return t->weighted == on ? 0 : -EBUSY;
	t->weighted = on;
	return 0;
}

bool stack_table_weighted(const struct stack_table *t)
{
	return t->weighted;
}

uint64_t stack_weight(const struct stack_table *t, const struct stack *s, uint64_t *ret_delta)
{
	if (!t->weighted) {
		if (ret_delta)
			*ret_delta = 0;
		return 0;
	}
	if (ret_delta)
		*ret_delta = wc_delta(stack_wc(s), s->epoch, t->epoch);
	return stack_wc(s)->total;
}

uint64_t stack_attr_weight(const struct stack_table *t, const struct stack_attr *a,
			   uint64_t *ret_delta)
{
	if (!t->weighted) {
		if (ret_delta)
			*ret_delta = 0;
		return 0;
	}
	if (ret_delta)
		*ret_delta = wc_delta(attr_wc(a), a->epoch, t->epoch);
	return attr_wc(a)->total;
}

uint64_t stack_table_weights(const struct stack_table *t, uint64_t *ret_delta)
{
	if (ret_delta) {
		if (t->hits_epoch == t->epoch)
			*ret_delta = t->w_last;
		else if (t->hits_epoch + 1 == t->epoch)
			*ret_delta = t->w_cur;
		else
			*ret_delta = 0;
	}
	return t->w_total;
}

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
	/*
	 * Groups start after the tracing machinery: whether the kernel went
	 * through __traceiter_* depends on who else traces the event, and a
	 * group answers "who", not "how the event was recorded".
	 */
	skip = g->g->skip ? g->g->skip(g->g->ctx, s) : 0;
	if (skip >= s->depth)
		skip = 0;
	n = s->depth - skip;
	if (g->g->depth && n > g->g->depth)
		n = g->g->depth;
	for (i = 0; i < n; i++)
		g->frames[i] = g->g->map ? g->g->map(g->g->ctx, s->ips[skip + i]) : s->ips[skip + i];
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
			memset(stack_wc(d), 0, sizeof(struct wcount));
		stack_wc(d)->total += wt;
		stack_wc(d)->last += wd;
	}
	merge_count(&d->total, &d->cur, &d->last, &d->epoch, t->epoch, s->total, sd);
	t->hits += s->total;
	t->hits_last += sd;
	t->w_total += wt;
	t->w_last += wd;
	for (a = s->attrs; a; a = a->next) {
		struct stack_attr *da = attr_get(t, d, a->event, a->cpu, a->pid, a->origin);

		if (!da) {
			g->err = -ENOMEM;
			continue;
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
	return 0;
}

/* every count of @s back to zero, in the current interval */
static int group_zero(struct stack *s, void *ctx)
{
	struct stack_table *t = ctx;
	struct stack_attr *a;

	s->total = s->cur = s->last = 0;
	s->epoch = t->epoch;
	if (t->weighted)
		memset(stack_wc(s), 0, sizeof(struct wcount));
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
	if (src->nfcomm > dst->fcomm_cap) {
		char (*n)[FOLD_COMM] = realloc(dst->fcomm, src->nfcomm * sizeof(*n));

		if (!n) {
			free(g);
			return -ENOMEM;
		}
		dst->fcomm = n;
		dst->fcomm_cap = src->nfcomm;
	}
	if (src->nfcomm)
		memcpy(dst->fcomm, src->fcomm, src->nfcomm * sizeof(*dst->fcomm));
	dst->nfcomm = src->nfcomm;
	dst->hits_epoch = dst->epoch;
	dst->active_lost = true; /* no active lists: rank walks every stack */
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
