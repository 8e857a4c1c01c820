// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ujoin.c - join perf user-stack samples to ftrace records (see ujoin.h).
 *
 * One thread's hits of one event on one CPU (a key) come one after the
 * other, and each hit runs both probes of the tracepoint, ftrace's and
 * perf's, in the order they were registered: for the key, records and
 * samples alternate in time, r1 s1 r2 s2 ... (ftrace's probe first, the
 * usual order: the instance enables the event before perf opens its
 * events), or s1 r1 s2 r2 ... when perf's probe came first (another perf
 * user had it registered). The stream whose element comes first in a hit
 * leads; an element of the other (the follower) belongs to the latest
 * leader before it, and leaders older than that one have no partner. That
 * holds however close the hits come and however long an interrupt keeps
 * the second probe from running; pairing by nearest time, or by the oldest
 * within a tolerance, does not: at 50,000 hits a second, a lost sample
 * shifted every later pair of the thread by one hit (each record got the
 * next hit's user stack). Which stream leads is learned per event from the
 * pairs made: a follower's leader is a few hundred nanoseconds before it,
 * the next leader a whole hit after (struct ev_order).
 *
 * A follower is decided once the leaders of its CPU are known up to its
 * time: a leader of the key after it is pending, a leader of the CPU that
 * late came (each CPU's stream comes in time order), or ujoin_advance()
 * said so. Pending records and samples live in one fixed pool; each key
 * has a queue (found by a hash on the key) of its pending records and its
 * pending samples, each list in time order; a list in arrival order over
 * the pool gives the oldest when the pool is full, and a list of the
 * queues with entries serves ujoin_advance().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/ujoin.h"

#define NIL	     UINT32_MAX
#define LOST_WINDOWS 32
#define RECENT	     1024
#define VOTES	     32 /* decisive pairs against the order before it changes */

enum kind { K_FREE, K_REC, K_SAMPLE };

struct entry {
	uint64_t ts;
	uint64_t rec;
	void *sample;
	uint32_t q;	       /* its key's queue */
	uint32_t qnext, qprev; /* its queue's list of its kind, by time */
	uint32_t lnext, lprev; /* arrival order; the free list through lnext */
	uint8_t why;
	uint8_t kind;
};

/* one key's pending entries: [0] records, [1] samples, each oldest first */
struct queue {
	struct ujoin_key key;
	uint32_t head[2], tail[2];
	uint32_t n;
	uint32_t hnext;	       /* hash chain; the free list */
	uint32_t anext, aprev; /* the queues with entries */
};

struct lost_win {
	uint64_t from, to;
	uint64_t left; /* records still to call "sample lost" (UINT64_MAX: unknown) */
	uint64_t seen; /* records of an unknown loss under a period */
};

struct cpu_state {
	uint64_t last_sample_ts;
	uint64_t rec_hw; /* the newest record of the CPU added */
	struct lost_win win[LOST_WINDOWS];
	unsigned int nwin; /* total added; slot = nwin % LOST_WINDOWS */
};

/* which stream leads in a hit of an event, and the pairs that said so */
struct ev_order {
	bool samples_lead;
	uint32_t keep, flip;
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
	struct queue *queues; /* npool of them: a queue holds an entry at least */
	uint32_t free_queue;
	uint32_t active; /* the queues with entries (anext) */
	uint32_t *buckets;
	uint32_t nbuckets;   /* power of two */
	uint32_t head, tail; /* arrival list: head is the oldest */
	uint32_t used;
	uint64_t hold_from; /* a sample held back is this old (UINT64_MAX: none) */
	uint64_t floor;	    /* both streams are complete up to here (ujoin_advance()) */
	struct cpu_state *cpus;
	size_t ncpus; /* entries of @cpus, all in use */
	struct ev_order *order;
	size_t norder;
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
	if (!j->o.period)
		j->o.period = 1;
	j->npool = j->o.max_pending;
	for (j->nbuckets = 64; j->nbuckets < 2 * j->npool; j->nbuckets *= 2)
		;
	j->pool = calloc(j->npool, sizeof(*j->pool));
	j->queues = calloc(j->npool, sizeof(*j->queues));
	j->buckets = malloc(j->nbuckets * sizeof(*j->buckets));
	if (!j->pool || !j->queues || !j->buckets) {
		ujoin_free(j);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < j->nbuckets; i++)
		j->buckets[i] = NIL;
	for (i = 0; i < j->npool; i++) {
		j->pool[i].lnext = i + 1 < j->npool ? i + 1 : NIL;
		j->queues[i].hnext = i + 1 < j->npool ? i + 1 : NIL;
	}
	j->free_head = 0;
	j->free_queue = 0;
	j->active = NIL;
	j->head = j->tail = NIL;
	j->hold_from = UINT64_MAX;
	return j;
}

static uint32_t queue_find(const struct ujoin *j, const struct ujoin_key *key)
{
	uint32_t q = j->buckets[key_hash(key) & (j->nbuckets - 1)];

	while (q != NIL && !key_eq(&j->queues[q].key, key))
		q = j->queues[q].hnext;
	return q;
}

/* the queue of @key, made when it has none (there is always one free) */
static uint32_t queue_get(struct ujoin *j, const struct ujoin_key *key)
{
	uint32_t q = queue_find(j, key), b;
	struct queue *e;

	if (q != NIL)
		return q;
	q = j->free_queue;
	e = &j->queues[q];
	j->free_queue = e->hnext;
	e->key = *key;
	e->head[0] = e->head[1] = e->tail[0] = e->tail[1] = NIL;
	e->n = 0;
	b = key_hash(key) & (j->nbuckets - 1);
	e->hnext = j->buckets[b];
	j->buckets[b] = q;
	e->aprev = NIL;
	e->anext = j->active;
	if (j->active != NIL)
		j->queues[j->active].aprev = q;
	j->active = q;
	return q;
}

/* a queue left without entries goes back to the free list */
static void queue_put_empty(struct ujoin *j, uint32_t q)
{
	struct queue *e = &j->queues[q];
	uint32_t *p;

	if (e->n)
		return;
	p = &j->buckets[key_hash(&e->key) & (j->nbuckets - 1)];
	while (*p != q)
		p = &j->queues[*p].hnext;
	*p = e->hnext;
	if (e->aprev != NIL)
		j->queues[e->aprev].anext = e->anext;
	else
		j->active = e->anext;
	if (e->anext != NIL)
		j->queues[e->anext].aprev = e->aprev;
	e->hnext = j->free_queue;
	j->free_queue = q;
}

/* out of its lists, back to the free list; its queue stays (queue_put_empty()) */
static void entry_unlink(struct ujoin *j, uint32_t i)
{
	struct entry *e = &j->pool[i];
	struct queue *q = &j->queues[e->q];
	int k = e->kind == K_SAMPLE;

	if (e->qprev != NIL)
		j->pool[e->qprev].qnext = e->qnext;
	else
		q->head[k] = e->qnext;
	if (e->qnext != NIL)
		j->pool[e->qnext].qprev = e->qprev;
	else
		q->tail[k] = e->qprev;
	q->n--;
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
	if (cpu >= j->ncpus && (cpu >= 65536 || ARRAY_GROW(j->cpus, j->ncpus, (size_t)cpu + 1) < 0))
		return NULL;
	return &j->cpus[cpu];
}

static struct ev_order *order_of(struct ujoin *j, uint32_t event)
{
	static struct ev_order none; /* out of memory: records lead */

	if (event >= j->norder &&
	    (event >= 65536 || ARRAY_GROW(j->order, j->norder, (size_t)event + 1) < 0))
		return &none;
	return &j->order[event];
}

/*
 * Why a record has no sample: perf said it lost that many samples of the
 * record's CPU around its time (each such record takes one of them; a loss
 * of unknown size takes them all, or one in the period), or none was meant
 * to be taken (a period over 1), or it never came.
 */
static enum ujoin_why missing_why(struct ujoin *j, uint32_t cpu, uint64_t ts)
{
	struct cpu_state *c;
	unsigned int i, n;

	if (cpu < j->ncpus) {
		c = &j->cpus[cpu];
		n = c->nwin < LOST_WINDOWS ? c->nwin : LOST_WINDOWS;
		for (i = 0; i < n; i++) {
			struct lost_win *w = &c->win[i];

			if (!w->left || ts + j->o.tolerance_ns < w->from ||
			    ts > w->to + j->o.tolerance_ns)
				continue;
			/* how many unknown, one hit in the period was to be sampled */
			if (w->left == UINT64_MAX)
				return j->o.period > 1 && ++w->seen % j->o.period
					       ? UJOIN_NOT_SAMPLED
					       : UJOIN_SAMPLE_LOST;
			w->left--;
			return UJOIN_SAMPLE_LOST;
		}
	}
	return j->o.period > 1 ? UJOIN_NOT_SAMPLED : UJOIN_NO_SAMPLE;
}

static void emit(struct ujoin *j, const struct ujoin_key *key, uint64_t rec_ts, uint64_t rec,
		 void *sample, uint64_t sample_ts, enum ujoin_why why)
{
	struct ujoin_match m = {
		.key = *key,
		.rec_ts = rec_ts,
		.rec = rec,
		.sample = sample,
		.sample_ts = sample_ts,
		.why = why,
	};

	j->st.why[why]++;
	j->o.emit(j->o.ctx, &m);
}

static void drop(struct ujoin *j, void *sample)
{
	if (j->o.drop)
		j->o.drop(j->o.ctx, sample);
}

/* give out entry @i as unmatched and free it (its queue stays) */
static void expire(struct ujoin *j, uint32_t i)
{
	struct entry e = j->pool[i];
	struct ujoin_key key = j->queues[e.q].key;

	entry_unlink(j, i);
	if (e.kind == K_REC) {
		emit(j, &key, e.ts, e.rec, NULL, 0, missing_why(j, key.cpu, e.ts));
	} else {
		j->st.orphan_samples++;
		drop(j, e.sample);
	}
}

/* a record and a sample of one hit: given out together, both freed */
static void pair(struct ujoin *j, uint32_t rec, uint32_t smp)
{
	struct entry r = j->pool[rec], s = j->pool[smp];
	struct ujoin_key key = j->queues[r.q].key;

	entry_unlink(j, rec);
	entry_unlink(j, smp);
	emit(j, &key, r.ts, r.rec, s.sample, s.ts, (enum ujoin_why)s.why);
}

static uint32_t entry_new(struct ujoin *j, const struct ujoin_key *key, uint64_t ts, enum kind kind)
{
	uint32_t i, q, p;
	struct entry *e;
	struct queue *qu;
	int k = kind == K_SAMPLE;

	if (j->free_head == NIL) {
		uint32_t oq = j->pool[j->head].q;

		j->st.overflow++;
		expire(j, j->head);
		queue_put_empty(j, oq);
	}
	i = j->free_head;
	e = &j->pool[i];
	j->free_head = e->lnext;
	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->kind = kind;
	q = queue_get(j, key);
	qu = &j->queues[q];
	e->q = q;
	qu->n++;
	/* by time: from the newest back (a held sample is the one out of order) */
	for (p = qu->tail[k]; p != NIL && j->pool[p].ts > ts; p = j->pool[p].qprev)
		;
	e->qprev = p;
	e->qnext = p != NIL ? j->pool[p].qnext : qu->head[k];
	if (p != NIL)
		j->pool[p].qnext = i;
	else
		qu->head[k] = i;
	if (e->qnext != NIL)
		j->pool[e->qnext].qprev = i;
	else
		qu->tail[k] = i;
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

/* the leading stream of @cpu is known up to @ts: no leader older than @ts is still to come */
static bool leaders_known(const struct ujoin *j, uint32_t cpu, bool samples_lead, uint64_t ts)
{
	uint64_t hw = j->floor;

	if (cpu < j->ncpus) {
		const struct cpu_state *c = &j->cpus[cpu];
		uint64_t mine = samples_lead ? c->last_sample_ts : c->rec_hw;

		if (mine > hw)
			hw = mine;
	}
	/* a sample held back may be older */
	if (samples_lead && hw >= j->hold_from)
		hw = j->hold_from - 1;
	return hw >= ts;
}

/*
 * The pairs of @q's hits that can be told: each follower (the oldest first)
 * with the latest leader before it, once no other leader can come between
 * them. A leader older than that has no partner; a follower with no
 * leader before it either.
 */
static void settle(struct ujoin *j, uint32_t q)
{
	struct queue *qu = &j->queues[q];
	struct ev_order *ord = order_of(j, qu->key.event);

	for (;;) {
		bool sl = ord->samples_lead;
		int lk = sl, fk = !sl; /* list indexes: [0] records, [1] samples */
		uint32_t f = qu->head[fk], l = NIL, x;
		uint64_t fts;

		if (f == NIL)
			break;
		fts = j->pool[f].ts;
		for (x = qu->head[lk]; x != NIL && j->pool[x].ts <= fts; x = j->pool[x].qnext)
			l = x;
		/* a leader between the last pending one and @f may be on its way */
		if (x == NIL && !leaders_known(j, qu->key.cpu, sl, fts))
			break;
		if (l == NIL) {
			expire(j, f); /* its leader went by long ago, or never came */
			continue;
		}
		/*
		 * the order learned: this follower's leader is a probe away, the
		 * next leader a whole hit; when the pairs keep saying the other
		 * way round, the other stream leads
		 */
		if (x != NIL) {
			uint64_t mine = fts - j->pool[l].ts, other = j->pool[x].ts - fts;

			if (mine < other / 4)
				ord->keep++;
			else if (other < mine / 4 && ++ord->flip >= VOTES &&
				 ord->flip > 4 * ord->keep) {
				ord->samples_lead = !ord->samples_lead;
				ord->keep = ord->flip = 0;
				j->st.order_changes++;
				continue;
			}
		}
		/*
		 * leaders older than @l had no follower; while a sample is held
		 * back, an older record may be its (ujoin_release() goes on)
		 */
		if (qu->head[lk] != l && !sl && j->hold_from != UINT64_MAX)
			break;
		while (qu->head[lk] != l)
			expire(j, qu->head[lk]);
		if (sl)
			pair(j, f, l);
		else
			pair(j, l, f);
	}
}

int ujoin_add_record(struct ujoin *j, const struct ujoin_key *key, uint64_t ts, uint64_t rec)
{
	struct cpu_state *c = cpu_get(j, key->cpu);
	uint32_t i;

	j->st.records++;
	if (c && ts > c->rec_hw)
		c->rec_hw = ts;
	i = entry_new(j, key, ts, K_REC);
	j->pool[i].rec = rec;
	settle(j, j->pool[i].q);
	queue_put_empty(j, j->pool[i].q);
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
	uint32_t i, q;

	j->st.samples++;
	if (is_duplicate(j, key, ts)) {
		j->st.dup_samples++;
		drop(j, sample);
		return 0;
	}
	c = cpu_get(j, key->cpu);
	if (c && ts > c->last_sample_ts)
		c->last_sample_ts = ts;
	i = entry_new(j, key, ts, K_SAMPLE);
	j->pool[i].sample = sample;
	j->pool[i].why = (uint8_t)why;
	q = j->pool[i].q;
	settle(j, q);
	queue_put_empty(j, q);
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
	w->left = count ? count : UINT64_MAX; /* 0: how many unknown, all of the window */
	w->seen = 0;
}

void ujoin_hold(struct ujoin *j, uint64_t ts)
{
	if (ts < j->hold_from)
		j->hold_from = ts;
}

void ujoin_release(struct ujoin *j)
{
	uint32_t q, next;

	j->hold_from = UINT64_MAX;
	/* what waited for the held samples */
	for (q = j->active; q != NIL; q = next) {
		next = j->queues[q].anext;
		settle(j, q);
		queue_put_empty(j, q);
	}
}

void ujoin_advance(struct ujoin *j, uint64_t now)
{
	uint64_t before;
	uint32_t q, next;

	if (now < j->o.timeout_ns)
		return;
	before = now - j->o.timeout_ns;
	/* what came before @before came: the pairs it tells first, then the rest goes */
	if (before > j->floor)
		j->floor = before;
	for (q = j->active; q != NIL; q = next) {
		struct queue *qu = &j->queues[q];
		int k;

		next = qu->anext;
		settle(j, q);
		for (k = 0; k < 2; k++)
			while (qu->head[k] != NIL && j->pool[qu->head[k]].ts < before)
				expire(j, qu->head[k]);
		queue_put_empty(j, q);
	}
}

void ujoin_flush(struct ujoin *j)
{
	uint32_t q;

	while (j->head != NIL) {
		q = j->pool[j->head].q;
		expire(j, j->head);
		queue_put_empty(j, q);
	}
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
		[UJOIN_NOT_SAMPLED] = "not sampled",
	};

	return (unsigned int)why < UJOIN_WHY_MAX ? names[why] : "?";
}

enum ujoin_why ujoin_why_parse(const char *name)
{
	unsigned int w;

	for (w = UJOIN_OK + 1; w < UJOIN_WHY_MAX; w++)
		if (!strcmp(name, ujoin_why_name((enum ujoin_why)w)))
			return (enum ujoin_why)w;
	return UJOIN_OK;
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
	free(j->queues);
	free(j->buckets);
	free(j->cpus);
	free(j->order);
	free(j);
}
