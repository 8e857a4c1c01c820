// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * offcpu.c - what a hit weighs: a field of its event (--weight), or the
 * time the task stayed off the CPU (--offcpu): switch-outs, switch-ins and
 * wakeups held per task in time order and paired once every CPU was read
 * (ingest_offcpu_settle(); doc/design.md, "Off-CPU").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/stack_table.h"
#include "ingest/ingest.h"
#include "ingest/ingest_priv.h"
#include "kernel/evfmt.h"

int ingest_set_weight(struct ingest *ing, unsigned int event, const struct evfmt_field *fl)
{
	if (event >= ing->nwf) {
		size_t n = ing->nwf; /* zeroed entries: events without a weight */

		if (ARRAY_GROW(ing->wf, n, (size_t)event + 1) < 0)
			return -ENOMEM;
		ing->nwf = (unsigned int)n;
	}
	ing->special = true;
	ing->wf[event].off = fl ? fl->offset : 0;
	ing->wf[event].size = fl ? (uint8_t)fl->size : 0;
	ing->wf[event].sgn = fl && fl->is_signed;
	return 0;
}

void ingest_set_offcpu(struct ingest *ing, const struct ingest_offcpu *o)
{
	ing->offcpu = o != NULL;
	if (o)
		ing->off = *o;
	ing->special = ing->offcpu || ing->nwf;
}

static int op_grow(struct ingest *ing)
{
	uint32_t n = ing->opcap ? ing->opcap * 2 : 1024, i;
	struct opend *t;

	if (n > INGEST_OFFCPU_MAX * 2)
		return -ENOSPC;
	t = calloc(n, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < ing->opcap; i++) {
		const struct opend *e = &ing->op[i];
		uint32_t j;

		if (!e->pid)
			continue;
		for (j = ((uint32_t)e->pid * 2654435761u) & (n - 1); t[j].pid;
		     j = (j + 1) & (n - 1))
			;
		t[j] = *e;
	}
	free(ing->op);
	ing->op = t;
	ing->opcap = n;
	return 0;
}

/* the entry of @pid; created if @create (NULL when the table is full) */
static struct opend *op_get(struct ingest *ing, int32_t pid, bool create)
{
	uint32_t j;

	if (pid <= 0)
		return NULL;
	if (ing->opcap) {
		for (j = ((uint32_t)pid * 2654435761u) & (ing->opcap - 1); ing->op[j].pid;
		     j = (j + 1) & (ing->opcap - 1))
			if (ing->op[j].pid == pid)
				return &ing->op[j];
	}
	if (!create)
		return NULL;
	if ((ing->nop + 1) * 2 > ing->opcap && op_grow(ing) < 0) {
		ing->st.offcpu_dropped++;
		return NULL;
	}
	for (j = ((uint32_t)pid * 2654435761u) & (ing->opcap - 1); ing->op[j].pid;
	     j = (j + 1) & (ing->opcap - 1))
		;
	memset(&ing->op[j], 0, sizeof(ing->op[j]));
	ing->op[j].pid = pid;
	ing->nop++;
	return &ing->op[j];
}

static inline void offcpu_hit(struct ingest *ing, struct stack *st, unsigned int event,
			      unsigned int cpu, int pid, uint64_t ns)
{
	stack_table_hit_w(ing->table, st, event, cpu, pid, 1, ns);
	ing->st.events++;
}

/*
 * A switch-out @o ended by @in (NULL: its switch-in was not recorded) with
 * the wakeup @wk between them (NULL: none read)
 */
static void offcpu_count(struct ingest *ing, int pid, const struct omark *o, const struct omark *wk,
			 const struct omark *in)
{
	const struct ingest_offcpu *c = &ing->off;
	uint64_t end = in ? in->ts : wk->ts;
	uint64_t woke = wk ? wk->ts : end;

	ing->st.offcpu_sleeps++;
	if (!in)
		ing->st.offcpu_woken++;
	if (!c->split) {
		offcpu_hit(ing, o->st, o->event, o->cpu, pid, end - o->ts);
		return;
	}
	offcpu_hit(ing, o->st, c->blocked_event, o->cpu, pid, woke - o->ts);
	if (in && wk)
		offcpu_hit(ing, o->st, c->runq_event, o->cpu, pid, end - woke);
}

/* a stack still to come is waited for this long (trace time), then dropped */
#define OFFCPU_STACK_WAIT_NS (60ULL * 1000000000ULL)

/*
 * The stack of the switch-out @e->m[@i] will not come: stacks come in the
 * order of their events (the next record on the CPU; the stack-id queue is
 * resolved in order), so a later switch-out with its stack says so; a
 * record without one (tracing started before options/stacktrace, a
 * damaged stack) also ends waiting after OFFCPU_STACK_WAIT_NS.
 */
static bool stack_lost(const struct ingest *ing, const struct opend *e, uint32_t i)
{
	uint32_t k;

	if (e->m[i].ts + OFFCPU_STACK_WAIT_NS <= ing->off_last_ts)
		return true;
	for (k = i + 1; k < e->n; k++)
		if (e->m[k].kind == M_OUT && e->m[k].st)
			return true;
	return false;
}

/*
 * Pair the marks of @e in time order, from the oldest; @force: room is
 * needed, the oldest switch-out is settled whatever is missing. Returns
 * how many marks are gone.
 */
static uint32_t offcpu_settle_one(struct ingest *ing, struct opend *e, bool force)
{
	uint32_t i = 0, j;

	while (i < e->n) {
		const struct omark *o = &e->m[i], *wk = NULL;

		if (o->kind != M_OUT && o->kind != M_SKIP) {
			i++; /* a switch-in or wakeup with no switch-out read before it */
			continue;
		}
		for (j = i + 1; j < e->n && e->m[j].kind == M_WAKE; j++)
			if (!wk)
				wk = &e->m[j];
		if (j == e->n && !force)
			break; /* still off the CPU, or its switch-in is not read yet */
		if (o->kind == M_OUT && !o->st && !force && !stack_lost(ing, e, i))
			break; /* its stack has not come yet */
		if (o->kind == M_OUT && o->st) {
			if (j < e->n && e->m[j].kind == M_IN)
				offcpu_count(ing, e->pid, o, wk, &e->m[j]);
			else if (wk)
				offcpu_count(ing, e->pid, o, wk, NULL);
			else
				ing->st.offcpu_unpaired++;
		} else if (o->kind == M_OUT) {
			ing->st.offcpu_dropped++; /* no stack came */
		}
		i = j < e->n && e->m[j].kind == M_IN ? j + 1 : j;
		if (force)
			break;
	}
	if (i) {
		memmove(e->m, e->m + i, (e->n - i) * sizeof(*e->m));
		e->n -= i;
	}
	return i;
}

/* @pid's record of @kind at @ts; @create: a task not followed yet is */
struct omark *ingest_offcpu_mark(struct ingest *ing, int32_t pid, uint64_t ts, uint8_t kind,
				 bool create)
{
	struct opend *e = op_get(ing, pid, create);
	uint32_t k;

	if (!e)
		return NULL;
	if (ts > ing->off_last_ts)
		ing->off_last_ts = ts;
	if (e->n == e->cap) {
		if (e->cap < INGEST_OFFCPU_MARKS) {
			size_t cap = e->cap;

			if (ARRAY_GROW(e->m, cap, (size_t)e->n + 1) < 0) {
				ing->st.offcpu_dropped++;
				return NULL;
			}
			e->cap = (uint32_t)cap;
		} else if (!offcpu_settle_one(ing, e, true)) {
			ing->st.offcpu_dropped++;
			return NULL;
		}
	}
	/* records come in time order per CPU: the place is almost always the end */
	for (k = e->n; k > 0 && e->m[k - 1].ts > ts; k--)
		;
	memmove(e->m + k + 1, e->m + k, (e->n - k) * sizeof(*e->m));
	e->n++;
	memset(&e->m[k], 0, sizeof(e->m[k]));
	e->m[k].ts = ts;
	e->m[k].kind = kind;
	return &e->m[k];
}

/* the stack a task left the CPU with (at @w->value) is known */
void ingest_offcpu_out(struct ingest *ing, struct stack *st, const struct waiting *w,
		       unsigned int cpu)
{
	struct opend *e = op_get(ing, w->pid, false);
	uint32_t k;

	if (!e)
		return;
	for (k = e->n; k > 0; k--) {
		struct omark *m = &e->m[k - 1];

		if (m->ts == w->value && m->kind == M_OUT) {
			m->st = st;
			m->event = w->event;
			m->cpu = (uint16_t)cpu;
			return;
		}
	}
}

void ingest_offcpu_settle(struct ingest *ing)
{
	uint32_t i, live = 0, empty = 0;

	if (!ing->offcpu || !ing->nop)
		return;
	for (i = 0; i < ing->opcap; i++) {
		struct opend *e = &ing->op[i];

		if (!e->pid)
			continue;
		if (e->n)
			offcpu_settle_one(ing, e, false);
		if (e->n)
			live++;
		else
			empty++;
	}
	/* tasks with nothing held: their slots go once they outnumber the rest */
	if (empty > 256 && empty > live) {
		uint32_t cap = ing->opcap;
		struct opend *old = ing->op;

		ing->op = NULL;
		ing->opcap = 0;
		ing->nop = 0;
		for (i = 0; i < cap; i++) {
			struct opend *e;

			if (!old[i].pid)
				continue;
			if (!old[i].n) {
				free(old[i].m);
				continue;
			}
			e = op_get(ing, old[i].pid, true);
			if (!e) {
				free(old[i].m);
				continue;
			}
			*e = old[i];
		}
		free(old);
	}
}

void ingest_forget_offcpu(struct ingest *ing)
{
	uint32_t i;

	for (i = 0; i < ing->opcap; i++)
		free(ing->op[i].m);
	if (ing->op)
		memset(ing->op, 0, ing->opcap * sizeof(*ing->op));
	ing->nop = 0;
}
