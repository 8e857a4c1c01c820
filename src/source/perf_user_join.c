// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf_user_join.c - the dwarf source wired to the session (struct glue,
 * see perf_user_priv.h):
 *  - ingest hands it each counted kernel stack (ingest_set_user_hold():
 *    pu_on_hold()); the frames wait in a slot whose index is the record's
 *    ujoin handle;
 *  - each unwound sample becomes user tokens (usym_intern(), at once,
 *    while the process is likely still there) and goes to
 *    ujoin_add_sample();
 *  - a match is counted as kernel frames, usym_sep(tgid), user tokens
 *    (a cut mark, USYM_CUT_STACK, USYM_CUT or USYM_CUT_FAILED, when the copy,
 *    the depth or a missing unwind table ended the walk), exactly as the
 *    fp mode's stacks; a record without a sample (or whose sample was not
 *    unwound) is counted as its kernel frames, usym_sep(0) and a mark that
 *    says why (usym_none(): "[user stack lost: perf ring full]", "[user
 *    stack not sampled]"), and the reason is counted in ujoin's counters
 *    (session_stats.ujoin).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/ingest.h"
#include "source/perf_user_priv.h"
#include "sym/usym.h"

static void held_free(struct glue *g, uint32_t slot)
{
	free(g->held[slot].frames);
	g->held[slot].frames = NULL;
	g->free[g->nfree++] = slot;
}

bool pu_on_hold(void *ctx, const struct ingest_held *h, const uint64_t *frames, unsigned int n)
{
	struct glue *g = ctx;
	struct ujoin_key key = { .cpu = h->cpu, .tid = (uint32_t)h->pid, .event = h->event };
	struct pu_held *e;
	uint32_t slot;

	if (!g->on || h->event >= g->nsampled || !g->sampled[h->event] || h->pid <= 0)
		return false;
	if (!g->nfree) {
		uint32_t c = g->cheld ? g->cheld * 2 : 256, i;
		struct pu_held *nh = realloc(g->held, c * sizeof(*nh));
		uint32_t *nf;

		if (!nh)
			return false;
		g->held = nh;
		nf = realloc(g->free, c * sizeof(*nf));
		if (!nf)
			return false;
		g->free = nf;
		for (i = c; i-- > g->cheld;) {
			g->held[i].frames = NULL;
			g->free[g->nfree++] = i;
		}
		g->cheld = c;
	}
	slot = g->free[g->nfree - 1];
	e = &g->held[slot];
	e->frames = malloc((n + 2 + PERF_USER_MAX_FRAMES) * sizeof(uint64_t));
	if (!e->frames)
		return false;
	g->nfree--;
	memcpy(e->frames, frames, n * sizeof(uint64_t));
	e->n = n;
	e->h = *h;
	if (ujoin_add_record(g->join, &key, h->ts, slot) < 0) {
		held_free(g, slot);
		return false;
	}
	return true;
}

static void join_emit(void *ctx, const struct ujoin_match *m)
{
	struct glue *g = ctx;
	struct pu_ustack *u = m->sample;
	struct pu_held *e = &g->held[m->rec];
	unsigned int n = e->n;

	if (!g->discard) {
		if (m->why == UJOIN_OK && u && u->n > PERF_USER_MAX_FRAMES + 1) {
			/* inlined calls made the user part longer than the room kept */
			uint64_t *f = realloc(e->frames, (n + 2 + u->n) * sizeof(uint64_t));

			if (f)
				e->frames = f;
			else
				u->n = PERF_USER_MAX_FRAMES + 1;
		}
		if (m->why == UJOIN_OK && u && u->n) {
			e->frames[n++] = usym_sep(u->tgid);
			memcpy(e->frames + n, u->toks, u->n * sizeof(uint64_t));
			n += u->n;
		} else if (m->why != UJOIN_OK) {
			/* a row of its own that says why: not a kernel-only stack */
			e->frames[n++] = usym_sep(0);
			e->frames[n++] = usym_none(m->why);
		}
		ingest_count_held(g->s->ing, &e->h, e->frames, n);
	}
	free(u);
	held_free(g, (uint32_t)m->rec);
}

static void join_drop(void *ctx, void *sample)
{
	(void)ctx;
	free(sample);
}

/*
 * the frames of @st as tokens into @toks (room for @max), each with the
 * calls inlined there before it (usym_intern_chain()), and a cut mark when
 * the walk (or the room) stopped short
 */
static unsigned int pu_tokens(struct glue *g, const struct perf_user_stack *st, uint64_t *toks,
			      unsigned int max)
{
	unsigned int i, n = 0, k = 0;
	bool refused = false;

	if (st->why != UJOIN_OK || !st->n || max < 2)
		return 0;
	pu_give_maps(g, st->pid);
	for (i = 0; i < (unsigned int)st->n && n < max - 1; i++) {
		/*
		 * a caller's frame is its return address: the call is the
		 * byte before it (after a noreturn call it may be the next
		 * function's first byte); perf shows callers the same way
		 */
		uint64_t ip = i ? st->ips[i] - 1 : st->ips[i];

		k = usym_intern_chain(g->s->usym, st->pid, ip, false, toks + n, max - 1 - n);
		if (!k) {
			refused = true;
			break;
		}
		n += k;
	}
	/* the walk stopped short of the outermost frame: say where and why */
	if (n && refused)
		toks[n++] = USYM_CUT_MEMORY; /* the symbolizer's share is full */
	else if (n && (i < (unsigned int)st->n || st->end == DWUNWIND_END_DEPTH))
		toks[n++] = USYM_CUT;
	else if (n && st->end == DWUNWIND_END_STACK)
		toks[n++] = USYM_CUT_STACK;
	else if (n && st->end == DWUNWIND_END_NOINFO)
		toks[n++] = USYM_CUT_FAILED;
	else if (n && st->end == DWUNWIND_END_REFUSED)
		toks[n++] = USYM_CUT | (0x10 + (uint64_t)st->refusal);
	return n;
}

/* a sample unwound: its frames as tokens, to the join */
static void join_stack(void *ctx, const struct perf_user_stack *st)
{
	struct perf_user *pu = ctx;
	struct glue *g = pu->g;
	struct ujoin_key key = st->key;
	struct pu_ustack *u = NULL;

	if (st->pid == g->self || !g->on || key.event >= g->nsampled)
		return;
	key.event = (uint32_t)g->evmap[key.event];
	if (st->why == UJOIN_OK) {
		unsigned int n = pu_tokens(g, st, pu->utoks, PERF_USER_MAX_TOKENS);

		u = malloc(sizeof(*u) + (size_t)n * sizeof(uint64_t));
		if (!u)
			return;
		u->tgid = st->pid;
		u->n = n;
		memcpy(u->toks, pu->utoks, (size_t)n * sizeof(uint64_t));
	}
	ujoin_add_sample(g->join, &key, st->time, u, st->why);
}

static void cb_lost(void *ctx, uint32_t cpu, uint64_t count, uint64_t time)
{
	struct perf_user *pu = ctx;

	ujoin_add_lost(pu->g->join, cpu, time, count);
}

void pu_glue_free(struct glue *g)
{
	uint32_t i;

	if (!g)
		return;
	if (g->s && g->s->ing && g->join)
		ingest_set_user_hold(g->s->ing, NULL, NULL);
	ujoin_free(g->join);
	for (i = 0; i < g->cheld; i++)
		free(g->held[i].frames);
	free(g->held);
	free(g->free);
	pu_procs_free(g);
	free(g->evmap);
	free(g->sampled);
	free(g);
}

/* the wiring, with the join (@join) or without (another source's unwinder) */
static struct perf_user *glue_new(struct source_ctx *s, bool join)
{
	struct perf_user *pu = calloc(1, sizeof(*pu));
	struct glue *g = calloc(1, sizeof(*g));
	struct ujoin_opts jo = { .timeout_ns = PU_TIMEOUT_NS,
				 .emit = join_emit,
				 .drop = join_drop };

	if (!pu || !g) {
		free(pu);
		free(g);
		return NULL;
	}
	g->s = s;
	/* the processes' maps: an eighth of --max-memory, as the unwind tables */
	g->maps_limit = s->mem_limit / 8;
	g->on = true;
	g->self = (uint32_t)getpid();
	jo.ctx = g;
	/* --user-sample N: a record without a sample is expected, not lost */
	jo.period = s->tr.opts ? s->tr.opts->user_sample : 0;
	g->join = join ? ujoin_new(&jo) : NULL;
	if (join && !g->join) {
		free(pu);
		pu_glue_free(g);
		return NULL;
	}
	pu->g = g;
	pu->cfg.pid = -1;
	pu->cfg.maps_for = pu_maps_for;
	pu->cfg.on_stack = join_stack;
	pu->cfg.ctx = pu;
	pu->cfg.perf.mmap = pu_on_mmap;
	pu->cfg.perf.comm = pu_on_comm;
	pu->cfg.perf.task = pu_on_task;
	pu->cfg.perf.lost = cb_lost;
	return pu;
}

void perf_user_set_on(struct source *src, bool on)
{
	struct perf_user *pu = src->priv;

	if (pu && pu->g)
		pu->g->on = on;
}

struct perf_user *pu_glue_new(struct source_ctx *s)
{
	return glue_new(s, true);
}

/* another source's unwinder: the sample to its callback */
static void unwinder_stack(void *ctx, const struct perf_user_stack *st)
{
	struct perf_user *pu = ctx;

	pu->to(pu->to_ctx, st);
}

struct perf_user *
perf_user_unwinder_new(struct source_ctx *s,
		       void (*on_stack)(void *ctx, const struct perf_user_stack *st), void *ctx)
{
	struct perf_user *pu = glue_new(s, false);

	if (!pu)
		return NULL;
	pu->uw = dwunwind_new();
	if (!pu->uw) {
		perf_user_unwinder_free(pu);
		return NULL;
	}
	/* the unwind tables read: an eighth of --max-memory, as the dwarf source's */
	dwunwind_set_limit(pu->uw, s->mem_limit / 8);
	pu->cfg.on_stack = unwinder_stack; /* cfg.ctx stays @pu: pu_maps_for() takes it */
	pu->to = on_stack;
	pu->to_ctx = ctx;
	return pu;
}

void perf_user_started(struct perf_user *pu)
{
	pu_procs_scan(pu->g);
}

void perf_user_sample(struct perf_user *pu, const struct perfsamp_sample *smp)
{
	pu_sample(pu, smp);
}

void perf_user_mmap(struct perf_user *pu, const struct perfsamp_mmap *m)
{
	pu_on_mmap(pu, m);
}

void perf_user_comm(struct perf_user *pu, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	pu_on_comm(pu, pid, tid, comm, exec);
}

void perf_user_task(struct perf_user *pu, uint32_t pid, uint32_t ppid, uint32_t tid, bool exit,
		    uint64_t time)
{
	pu_on_task(pu, pid, ppid, tid, exit, time);
}

void perf_user_drained(struct perf_user *pu)
{
	pu_retry(pu);
}

void perf_user_tick(struct perf_user *pu)
{
	pu_procs_expire(pu->g);
}

unsigned int perf_user_tokens(struct perf_user *pu, const struct perf_user_stack *st,
			      uint64_t *toks, unsigned int max)
{
	return pu_tokens(pu->g, st, toks, max);
}

void perf_user_unwinder_free(struct perf_user *pu)
{
	unsigned int i;

	if (!pu)
		return;
	while (pu->ndefer)
		free(pu->defer[--pu->ndefer].stack);
	pu_glue_free(pu->g);
	dwunwind_free(pu->uw);
	for (i = 0; i < pu->nvdsos; i++)
		free(pu->vdsos[i].image);
	free(pu);
}
