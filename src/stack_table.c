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

	bool weighted; /* a struct wcount follows every stack and record */
	uint64_t w_total;
	uint64_t w_cur;
	uint64_t w_last;
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
	s = arena_alloc(&t->stacks, stack_bytes(t, depth));
	if (!s)
		return NULL;
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
				 int pid)
{
	return (uint32_t)mix64((uintptr_t)s ^ ((uint64_t)event << 48) ^ ((uint64_t)cpu << 32) ^
			       (uint32_t)pid);
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
		for (j = attr_hash(a->stack, a->event, a->cpu, a->pid) & (n - 1); slots[j];
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
attr_find(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu, int pid)
{
	struct stack_attr *a;
	size_t i, mask;
	uint32_t h;

	h = attr_hash(s, event, cpu, pid);
	mask = t->naslots - 1;
	for (i = h & mask; (a = t->aslots[i]); i = (i + 1) & mask)
		if (a->stack == s && a->event == event && a->cpu == cpu && a->pid == pid)
			return a;
	if ((t->nattrs + 1) * 4 > t->naslots * 3) {
		if (attr_grow(t))
			return NULL;
		mask = t->naslots - 1;
		for (i = h & mask; t->aslots[i]; i = (i + 1) & mask)
			;
	}
	a = arena_alloc(&t->attrs, attr_bytes(t));
	if (!a)
		return NULL;
	memset(a, 0, attr_bytes(t));
	a->stack = s;
	a->event = (uint16_t)event;
	a->cpu = (uint16_t)cpu;
	a->pid = pid;
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
					  unsigned int event, unsigned int cpu, int pid)
{
	struct stack_attr *a = s->attrs;

	if (a && a->event == event && a->cpu == cpu && a->pid == pid)
		return a;
	return attr_find(t, s, event, cpu, pid);
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

	a = attr_get(t, s, event, cpu, pid);
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
	a = attr_get(t, s, event, cpu, pid);
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
	unsigned int n = s->depth, i;
	struct stack *d;
	uint64_t sd, wt = 0, wd = 0;

	if (!s->total)
		return 0;
	if (g->g->depth) {
		unsigned int keep = g->g->depth + (g->g->skip ? g->g->skip(g->g->ctx, s) : 0);

		if (n > keep)
			n = keep;
	}
	for (i = 0; i < n; i++)
		g->frames[i] = g->g->map ? g->g->map(g->g->ctx, s->ips[i]) : s->ips[i];
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
		struct stack_attr *da = attr_get(t, d, a->event, a->cpu, a->pid);

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

#define TOP_MAX 64

struct top_acc {
	int key[TOP_MAX];
	uint64_t hits[TOP_MAX];
	int n;
};

static void top_add(struct top_acc *acc, int key, uint64_t hits)
{
	int i;

	for (i = 0; i < acc->n; i++) {
		if (acc->key[i] == key) {
			acc->hits[i] += hits;
			return;
		}
	}
	if (acc->n < TOP_MAX) {
		acc->key[acc->n] = key;
		acc->hits[acc->n++] = hits;
	}
}

static void top_best(const struct top_acc *acc, int *ret_key, uint64_t *ret_hits)
{
	int i;

	*ret_key = -1;
	*ret_hits = 0;
	for (i = 0; i < acc->n; i++) {
		if (acc->hits[i] > *ret_hits) {
			*ret_hits = acc->hits[i];
			*ret_key = acc->key[i];
		}
	}
}

void stack_top_of(const struct stack_table *t, const struct stack *s, bool delta,
		  struct stack_top *ret)
{
	struct top_acc ev = { .n = 0 }, pid = { .n = 0 }, cpu = { .n = 0 };
	const struct stack_attr *a;

	for (a = s->attrs; a; a = a->next) {
		uint64_t h = delta ? stack_attr_delta(t, a) : a->total;

		if (!h)
			continue;
		top_add(&ev, a->event, h);
		top_add(&pid, a->pid, h);
		top_add(&cpu, a->cpu, h);
	}
	top_best(&ev, &ret->event, &ret->event_hits);
	top_best(&pid, &ret->pid, &ret->pid_hits);
	top_best(&cpu, &ret->cpu, &ret->cpu_hits);
}
