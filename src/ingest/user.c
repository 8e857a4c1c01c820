// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * user.c - user stacks joined to their kernel stacks: the fp way (a
 * user_stack record after the kernel_stack or stack_id of its event), and
 * the dwarf way's stacks counted once their perf sample paired them
 * (ingest_count_held()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/ringbuf.h"
#include "core/stack_table.h"
#include "ingest/ingest.h"
#include "ingest/ingest_priv.h"
#include "kernel/evfmt.h"
#include "sym/usym.h"

/* the kernel frames (or id) waiting on @c, counted without user frames */
void ingest_pending_flush(struct ingest *ing, struct cpu_state *c, unsigned int cpu)
{
	if (!c->p.on)
		return;
	c->p.on = false;
	if (c->p.id >= 0)
		ingest_count_id(ing, (uint32_t)c->p.id, &c->p.w, c->p.cpu, NULL, 0);
	else
		ingest_count_frames(ing, c->p.frames, c->p.n, &c->p.w, c->p.cpu, c->p.fallback);
	(void)cpu;
}

/* user stacks on: keep the kernel frames (@n in ing->frames, or @id) until the user_stack */
bool ingest_pending_keep(struct ingest *ing, struct cpu_state *c, unsigned int cpu,
			 const struct waiting *w, unsigned int n, int64_t id)
{
	ingest_pending_flush(ing, c, cpu);
	if (!c->p.frames) {
		/* room for the user part too */
		c->p.frames = malloc((STACK_MAX_DEPTH + USER_MAX) * sizeof(uint64_t));
		if (!c->p.frames)
			return false;
	}
	if (id < 0)
		memcpy(c->p.frames, ing->frames, n * sizeof(uint64_t));
	c->p.n = id < 0 ? n : 0;
	c->p.id = id;
	c->p.fallback = id < 0 && ing->cfg.stackmap;
	c->p.w = *w;
	c->p.cpu = cpu;
	c->p.on = true;
	c->p.stale = false;
	return true;
}

/*
 * The user part of a user_stack record into @out: usym_sep(tgid), the
 * frames as tokens, USYM_CUT when the walk (or the symbolizer's memory) cut
 * it. Return: words written; 0 for a kernel thread (no frames), -1 damaged.
 */
static int user_part(struct ingest *ing, const struct ringbuf_event *ev, uint64_t *out)
{
	const struct evfmt *f = ing->fmt;
	const struct ringbuf_layout *l = &f->layout;
	unsigned int i, nu = 0;
	bool refused = false;
	uint32_t tgid;

	if (f->ustack_tgid_off < 0 || f->ustack_caller_off < 0 ||
	    (uint32_t)f->ustack_caller_off + USYM_FP_FRAMES * l->long_size > ev->size ||
	    (uint32_t)f->ustack_tgid_off + 4 > ev->size)
		return -1;
	tgid = ringbuf_read_u32(l, ev->data + f->ustack_tgid_off);
	out[0] = usym_sep(tgid);
	for (i = 0; i < USYM_FP_FRAMES; i++) {
		uint64_t ip =
			ringbuf_read_long(l, ev->data + f->ustack_caller_off + i * l->long_size);
		uint64_t tok;

		if (!ip || ip == ~0ULL)
			break;
		tok = usym_intern(ing->usym, tgid, ip);
		if (!tok) {
			refused = true; /* the symbolizer's memory share is full */
			break;
		}
		out[1 + nu++] = tok;
	}
	/* the frames after are not kept, or the kernel walks no further */
	if (refused)
		out[1 + nu++] = USYM_CUT_MEMORY;
	else if (nu == USYM_FP_FRAMES)
		out[1 + nu++] = USYM_CUT;
	/* the leaf alone: the walk found no frame pointer to follow */
	if (nu == 1)
		ing->st.ustack_one++;
	/* a kernel thread has no user frames: its stack is the kernel one */
	return nu ? (int)(1 + nu) : 0;
}

void ingest_on_user_stack(struct ingest *ing, struct cpu_state *c, unsigned int cpu,
			  const struct ringbuf_event *ev)
{
	int nw;

	ing->st.ustack_records++;
	c->early_on = false;
	if (!ing->usym)
		return;
	if (!c->p.on) {
		/*
		 * No stack waits for it: before its event's stack (--trigger), or
		 * its event was not counted (pid filter). Kept for the next stack
		 * record if an event of the same task waits.
		 */
		if (!c->n || (uint32_t)ing->fmt->pid_off + 4 > ev->size ||
		    c->w[c->n - 1].pid != (int32_t)ringbuf_read_u32(&ing->fmt->layout,
								    ev->data + ing->fmt->pid_off))
			return;
		nw = user_part(ing, ev, c->early);
		if (nw < 0) {
			ing->st.damaged++;
			return;
		}
		c->early_on = true;
		c->early_n = (unsigned int)nw;
		c->early_depth = c->n;
		return;
	}
	nw = user_part(ing, ev, c->p.frames + c->p.n);
	if (nw < 0) {
		ing->st.damaged++;
		ingest_pending_flush(ing, c, cpu);
		return;
	}
	c->p.on = false;
	if (c->p.id >= 0)
		ingest_count_id(ing, (uint32_t)c->p.id, &c->p.w, cpu, c->p.frames,
				(unsigned int)nw);
	else
		ingest_count_frames(ing, c->p.frames, c->p.n + (unsigned int)nw, &c->p.w, cpu,
				    c->p.fallback);
}

void ingest_count_held(struct ingest *ing, const struct ingest_held *h, const uint64_t *frames,
		       unsigned int n)
{
	struct waiting w = { .value = h->value, .event = h->event, .kind = h->kind, .pid = h->pid };
	struct stack *st = stack_table_intern(ing->table, frames, n);

	if (st)
		count(ing, st, &w, h->cpu);
}

void ingest_count_stack(struct ingest *ing, unsigned int event, int tgid, int tid, unsigned int cpu,
			const uint64_t *frames, unsigned int n, uint64_t hits)
{
	struct waiting w = { .value = 1, .event = (uint16_t)event, .kind = W_HIT, .pid = tid };
	struct stack *st;

	if (!n)
		return;
	if (!ingest_wants(ing, tgid, tid)) {
		ing->st.filtered++;
		return;
	}
	/* a thread's first hit: its name is asked while it still runs (ingest_new_pids()) */
	if (tid > 0 && tid < INGEST_PID_MAX &&
	    !(ing->pid_seen[tid >> 3] & (uint8_t)(1u << (tid & 7)))) {
		ing->pid_seen[tid >> 3] |= (uint8_t)(1u << (tid & 7));
		if (ing->nnew_pids < INGEST_NEW_PIDS) {
			ing->new_pids[ing->nnew_pids] = tid;
			ing->new_comms[ing->nnew_pids][0] = '\0';
			ing->nnew_pids++;
		} else {
			ing->new_pids_full = true;
		}
	}
	st = stack_table_intern(ing->table, frames, n);
	if (!st)
		return;
	if (hits <= 1 || ing->special) {
		count(ing, st, &w, cpu);
		return;
	}
	stack_table_hit(ing->table, st, event, cpu, tid, hits);
	ing->st.events += hits;
}

void ingest_flush_user(struct ingest *ing)
{
	unsigned int i;

	for (i = 0; i < ing->ncpus; i++) {
		struct cpu_state *c = &ing->cpus[i];

		if (!c->p.on)
			continue;
		if (c->p.stale)
			ingest_pending_flush(ing, c, c->p.cpu);
		else
			c->p.stale = true;
	}
}
