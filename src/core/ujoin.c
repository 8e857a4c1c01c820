// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ujoin.c - join perf user-stack samples to ftrace records (see ujoin.h).
 *
 * Pending records and samples live in one fixed pool: a hash on the key
 * (chains through the pool) finds the partners of a new entry, a list in
 * arrival order gives the oldest when the pool is full. Within a key both
 * streams come in time order, so the partner chosen is the oldest pending one
 * within the tolerance (first in, first out): a sample that is always a few
 * microseconds late still pairs with its own record when the next hit of the
 * same thread comes sooner than that.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/ujoin.h"

#define NIL UINT32_MAX
#define LOST_WINDOWS 8
#define RECENT 1024

enum kind { K_FREE, K_REC, K_SAMPLE };

struct entry {
	struct ujoin_key key;
	uint64_t ts;
	uint64_t rec;
	void *sample;
	enum ujoin_why why;
	enum kind kind;
	uint32_t hnext, hprev;  /* hash chain */
	uint32_t lnext, lprev;  /* arrival order */
	uint32_t bucket;
};

struct lost_win {
	uint64_t from, to;
};

struct cpu_state {
	uint64_t last_sample_ts;
	struct lost_win win[LOST_WINDOWS];
	unsigned int nwin;  /* total added; slot = nwin % LOST_WINDOWS */
};

struct recent {
	struct ujoin_key key;
	uint64_t ts;
	bool used;
};

struct ujoin {
	struct ujoin_opts o;
	struct entry *pool;
	uint32_t npool;
	uint32_t free_head;
	uint32_t *buckets;
	uint32_t nbuckets;      /* power of two */
	uint32_t head, tail;    /* arrival list: head is the oldest */
	uint32_t used;
	struct cpu_state *cpus;
	uint32_t ncpus;
	struct recent recent[RECENT];
	struct ujoin_stats st;
};

static uint32_t key_hash(const struct ujoin_key *k)
{
	uint64_t h = (uint64_t)k->cpu * 0x9e3779b97f4a7c15ULL;

	h ^= ((uint64_t)k->tid << 20) ^ k->event;
	h *= 0xff51afd7ed558ccdULL;
	return (uint32_t)(h >> 32);
}

static bool key_eq(const struct ujoin_key *a, const struct ujoin_key *b)
{
	return a->cpu == b->cpu && a->tid == b->tid && a->event == b->event;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

struct ujoin *ujoin_new(const struct ujoin_opts *opts)
{
	struct ujoin *j;
	uint32_t i;

	if (!opts || !opts->emit) {
		errno = EINVAL;
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->o = *opts;
	if (!j->o.tolerance_ns)
		j->o.tolerance_ns = 100000;
	if (!j->o.timeout_ns)
		j->o.timeout_ns = 500000000;
	if (!j->o.max_pending)
		j->o.max_pending = 16384;
	j->npool = j->o.max_pending;
	for (j->nbuckets = 64; j->nbuckets < 2 * j->npool; j->nbuckets *= 2)
		;
	j->pool = calloc(j->npool, sizeof(*j->pool));
	j->buckets = malloc(j->nbuckets * sizeof(*j->buckets));
	if (!j->pool || !j->buckets) {
		ujoin_free(j);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < j->nbuckets; i++)
		j->buckets[i] = NIL;
	for (i = 0; i < j->npool; i++)
		j->pool[i].lnext = i + 1 < j->npool ? i + 1 : NIL;
	j->free_head = 0;
	j->head = j->tail = NIL;
	return j;
}

static void entry_unlink(struct ujoin *j, uint32_t i)
{
	struct entry *e = &j->pool[i];

	if (e->hprev != NIL)
		j->pool[e->hprev].hnext = e->hnext;
	else
		j->buckets[e->bucket] = e->hnext;
	if (e->hnext != NIL)
		j->pool[e->hnext].hprev = e->hprev;
	if (e->lprev != NIL)
		j->pool[e->lprev].lnext = e->lnext;
	else
		j->head = e->lnext;
	if (e->lnext != NIL)
		j->pool[e->lnext].lprev = e->lprev;
	else
		j->tail = e->lprev;
	e->kind = K_FREE;
	e->sample = NULL;
	e->lnext = j->free_head;
	j->free_head = i;
	j->used--;
}

static struct cpu_state *cpu_get(struct ujoin *j, uint32_t cpu)
{
	if (cpu >= j->ncpus) {
		uint32_t n = cpu + 1 > 2 * j->ncpus ? cpu + 1 : 2 * j->ncpus;
		struct cpu_state *c;

		if (n > 65536)
			return NULL;
		c = realloc(j->cpus, n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + j->ncpus, 0, (n - j->ncpus) * sizeof(*c));
		j->cpus = c;
		j->ncpus = n;
	}
	return &j->cpus[cpu];
}

static bool in_lost_window(struct ujoin *j, uint32_t cpu, uint64_t ts)
{
	const struct cpu_state *c;
	unsigned int i, n;

	if (cpu >= j->ncpus)
		return false;
	c = &j->cpus[cpu];
	n = c->nwin < LOST_WINDOWS ? c->nwin : LOST_WINDOWS;
	for (i = 0; i < n; i++)
		if (ts + j->o.tolerance_ns >= c->win[i].from && ts <= c->win[i].to + j->o.tolerance_ns)
			return true;
	return false;
}

static void emit(struct ujoin *j, const struct ujoin_key *key, uint64_t rec_ts, uint64_t rec,
		 void *sample, uint64_t sample_ts, enum ujoin_why why)
{
	struct ujoin_match m = {
		.key = *key, .rec_ts = rec_ts, .rec = rec,
		.sample = sample, .sample_ts = sample_ts, .why = why,
	};

	j->st.why[why]++;
	j->o.emit(j->o.ctx, &m);
}

static void drop(struct ujoin *j, void *sample)
{
	if (j->o.drop)
		j->o.drop(j->o.ctx, sample);
}

/* give out entry @i as unmatched and free it */
static void expire(struct ujoin *j, uint32_t i)
{
	struct entry e = j->pool[i];

	entry_unlink(j, i);
	if (e.kind == K_REC) {
		emit(j, &e.key, e.ts, e.rec, NULL, 0,
		     in_lost_window(j, e.key.cpu, e.ts) ? UJOIN_SAMPLE_LOST : UJOIN_NO_SAMPLE);
	} else {
		j->st.orphan_samples++;
		drop(j, e.sample);
	}
}

static uint32_t entry_new(struct ujoin *j, const struct ujoin_key *key, uint64_t ts, enum kind kind)
{
	uint32_t i, b;
	struct entry *e;

	if (j->free_head == NIL) {
		j->st.overflow++;
		expire(j, j->head);
	}
	i = j->free_head;
	e = &j->pool[i];
	j->free_head = e->lnext;
	memset(e, 0, sizeof(*e));
	e->key = *key;
	e->ts = ts;
	e->kind = kind;
	b = key_hash(key) & (j->nbuckets - 1);
	e->bucket = b;
	e->hprev = NIL;
	e->hnext = j->buckets[b];
	if (e->hnext != NIL)
		j->pool[e->hnext].hprev = i;
	j->buckets[b] = i;
	e->lnext = NIL;
	e->lprev = j->tail;
	if (j->tail != NIL)
		j->pool[j->tail].lnext = i;
	else
		j->head = i;
	j->tail = i;
	j->used++;
	return i;
}

/* the oldest pending entry of @kind with @key within the tolerance of @ts */
static uint32_t find_partner(const struct ujoin *j, const struct ujoin_key *key, uint64_t ts,
			     enum kind kind)
{
	uint32_t i = j->buckets[key_hash(key) & (j->nbuckets - 1)], best = NIL;

	for (; i != NIL; i = j->pool[i].hnext) {
		const struct entry *e = &j->pool[i];

		if (e->kind != kind || !key_eq(&e->key, key) || absdiff(e->ts, ts) > j->o.tolerance_ns)
			continue;
		if (best == NIL || e->ts < j->pool[best].ts)
			best = i;
	}
	return best;
}

int ujoin_add_record(struct ujoin *j, const struct ujoin_key *key, uint64_t ts, uint64_t rec)
{
	uint32_t i;

	j->st.records++;
	i = find_partner(j, key, ts, K_SAMPLE);
	if (i != NIL) {
		struct entry e = j->pool[i];

		entry_unlink(j, i);
		emit(j, key, ts, rec, e.sample, e.ts, e.why);
		return 0;
	}
	i = entry_new(j, key, ts, K_REC);
	j->pool[i].rec = rec;
	return 0;
}

static bool is_duplicate(struct ujoin *j, const struct ujoin_key *key, uint64_t ts)
{
	struct recent *r = &j->recent[key_hash(key) % RECENT];
	bool dup = r->used && key_eq(&r->key, key) && r->ts == ts;

	r->used = true;
	r->key = *key;
	r->ts = ts;
	return dup;
}

int ujoin_add_sample(struct ujoin *j, const struct ujoin_key *key, uint64_t ts, void *sample,
		     enum ujoin_why why)
{
	struct cpu_state *c;
	uint32_t i;

	j->st.samples++;
	if (is_duplicate(j, key, ts)) {
		j->st.dup_samples++;
		drop(j, sample);
		return 0;
	}
	c = cpu_get(j, key->cpu);
	if (c && ts > c->last_sample_ts)
		c->last_sample_ts = ts;
	i = find_partner(j, key, ts, K_REC);
	if (i != NIL) {
		struct entry e = j->pool[i];

		entry_unlink(j, i);
		emit(j, key, e.ts, e.rec, sample, ts, why);
		return 0;
	}
	i = entry_new(j, key, ts, K_SAMPLE);
	j->pool[i].sample = sample;
	j->pool[i].why = why;
	return 0;
}

void ujoin_add_lost(struct ujoin *j, uint32_t cpu, uint64_t ts, uint64_t count)
{
	struct cpu_state *c = cpu_get(j, cpu);
	struct lost_win *w;

	j->st.lost += count;
	if (!c)
		return;
	w = &c->win[c->nwin++ % LOST_WINDOWS];
	w->from = c->last_sample_ts;
	w->to = ts;
}

void ujoin_advance(struct ujoin *j, uint64_t now)
{
	uint32_t i, next;

	if (now < j->o.timeout_ns)
		return;
	for (i = j->head; i != NIL; i = next) {
		next = j->pool[i].lnext;
		if (j->pool[i].ts < now - j->o.timeout_ns)
			expire(j, i);
	}
}

void ujoin_flush(struct ujoin *j)
{
	while (j->head != NIL)
		expire(j, j->head);
}

void ujoin_stats(const struct ujoin *j, struct ujoin_stats *st)
{
	*st = j->st;
}

const char *ujoin_why_name(enum ujoin_why why)
{
	static const char *const names[UJOIN_WHY_MAX] = {
		[UJOIN_OK] = "ok",
		[UJOIN_NO_SAMPLE] = "no sample",
		[UJOIN_SAMPLE_LOST] = "sample lost",
		[UJOIN_UNWIND_FAILED] = "unwind failed",
		[UJOIN_NO_MAPS] = "no maps",
	};

	return (unsigned int)why < UJOIN_WHY_MAX ? names[why] : "?";
}

void ujoin_free(struct ujoin *j)
{
	uint32_t i;

	if (!j)
		return;
	if (j->pool && j->buckets)
		for (i = j->head; i != NIL; i = j->pool[i].lnext)
			if (j->pool[i].kind == K_SAMPLE)
				drop(j, j->pool[i].sample);
	free(j->pool);
	free(j->buckets);
	free(j->cpus);
	free(j);
}
