// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * page.c - the record walk (ingest_page(), ingest_record()): each record
 * of a page to its handler: an event waits on its CPU for its stack, a
 * kernel_stack or stack_id takes the newest waiting event, a user_stack
 * joins them (user.c); function entries are keyed by the function. No
 * allocation per record; a known stack id costs one array index, a full
 * stack one hash and one memcmp.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/ringbuf.h"
#include "core/stack.h"
#include "ingest/ingest.h"
#include "ingest/ingest_priv.h"
#include "kernel/evfmt.h"
#include "kernel/stackmap.h"

static uint32_t func_hash(uint64_t ip)
{
	return (uint32_t)((ip * 0x9e3779b97f4a7c15ULL) >> 32);
}

static struct func_slot *func_find(struct func_slot *t, uint32_t size, uint64_t ip)
{
	uint32_t i = func_hash(ip) & (size - 1);

	while (t[i].ip && t[i].ip != ip)
		i = (i + 1) & (size - 1);
	return &t[i];
}

/* the event index of a function entry at @ip: learnt once per address */
static int func_event(struct ingest *ing, uint64_t ip)
{
	struct func_slot *sl;
	int idx;

	if (!ip)
		return -1;
	if (ing->funcs) {
		sl = func_find(ing->funcs, ing->funcs_size, ip);
		if (sl->ip)
			return sl->event;
	}
	if ((ing->nfuncs + 1) * 2 > ing->funcs_size) {
		uint32_t n = ing->funcs_size ? ing->funcs_size * 2 : 256, i;
		struct func_slot *t = calloc(n, sizeof(*t));

		if (!t)
			return -1;
		for (i = 0; i < ing->funcs_size; i++)
			if (ing->funcs[i].ip)
				*func_find(t, n, ing->funcs[i].ip) = ing->funcs[i];
		free(ing->funcs);
		ing->funcs = t;
		ing->funcs_size = n;
	}
	idx = ing->cfg.func_cb(ing->cfg.func_ctx, ip);
	sl = func_find(ing->funcs, ing->funcs_size, ip);
	sl->ip = ip;
	sl->event = idx;
	ing->nfuncs++;
	return idx;
}

/* a pid's first event: remember it, with the name the event gives its task */
static void new_pid(struct ingest *ing, int pid, int idx, const struct ringbuf_event *ev)
{
	const struct evfmt *f = ing->fmt;
	unsigned int n = ing->nnew_pids;
	int off, poff;
	bool known;

	if (n >= INGEST_NEW_PIDS) {
		ing->new_pids_full = true;
		return;
	}
	ing->new_pids[n] = pid;
	ing->new_comms[n][0] = '\0';
	/* function entries (idx -1) and indices the formats do not know name no task */
	known = idx >= 0 && (unsigned int)idx < f->nnames;
	off = known && f->comm_offs ? f->comm_offs[idx] : -1;
	poff = known && f->comm_pid_offs ? f->comm_pid_offs[idx] : -1;
	if (off >= 0 && poff >= 0 && (uint32_t)off + 16 <= ev->size &&
	    (uint32_t)poff + 4 <= ev->size &&
	    (int)ringbuf_read_u32(&f->layout, ev->data + poff) == pid) {
		memcpy(ing->new_comms[n], ev->data + off, 16);
		ing->new_comms[n][15] = '\0';
	}
	ing->nnew_pids++;
}

static inline void note_pid(struct ingest *ing, int pid, int idx, const struct ringbuf_event *ev)
{
	uint8_t bit;

	if (pid <= 0 || pid >= INGEST_PID_MAX)
		return;
	bit = (uint8_t)(1u << (pid & 7));
	if (ing->pid_seen[pid >> 3] & bit)
		return;
	ing->pid_seen[pid >> 3] |= bit;
	new_pid(ing, pid, idx, ev);
}

static void on_kernel_stack(struct ingest *ing, struct cpu_state *c, unsigned int cpu,
			    const struct ringbuf_event *ev)
{
	const struct evfmt *f = ing->fmt;
	const struct ringbuf_layout *l = &f->layout;
	unsigned int max, n, i;
	struct waiting w;
	uint32_t bytes = rb_bytes(ev->size), hash = 0;
	bool early = take_early(c, c->n), hashed = false;

	ing->st.kstack_records++;
	ing->st.kstack_bytes += bytes;
	if ((uint32_t)f->kstack_caller_off >= ev->size) {
		if ((uint32_t)f->kstack_caller_off > ev->size)
			goto damaged;
		ing->st.alt_bytes += bytes;
		return;
	}
	max = (ev->size - (uint32_t)f->kstack_caller_off) / l->long_size;
	if (f->kstack_size_off >= 0) {
		if ((uint32_t)f->kstack_size_off + 4 > ev->size)
			goto damaged;
		n = ringbuf_read_u32(l, ev->data + f->kstack_size_off);
		if (n > max)
			goto damaged; /* more frames than the record holds */
	} else {
		n = max;
	}
	if (n > STACK_MAX_DEPTH)
		n = STACK_MAX_DEPTH;
	if (l->long_size == 8 && !l->big_endian == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) &&
	    f->kstack_size_off >= 0) {
		const unsigned char *src = (const unsigned char *)ev->data + f->kstack_caller_off;
		uint64_t h = stack_hash_begin(n);

		/*
		 * word by word (a memcpy of this variable length was a `rep
		 * movsq`, whose start-up cost is the most of 192 bytes), and
		 * hashed as copied when the frames go to the table as they
		 * are: its lookup does not read them again. A user part, a
		 * tick's cut, a held stack or a stackmap fallback change them
		 * or count them later: hashed then by the table.
		 */
		if (ing->usym || ing->hold || ing->cfg.stackmap || ing->cfg.ntrim) {
			for (i = 0; i < n; i++)
				memcpy(&ing->frames[i], src + i * 8, 8);
		} else {
			for (i = 0; i < n; i++) {
				uint64_t ip;

				memcpy(&ip, src + i * 8, 8);
				ing->frames[i] = ip;
				h = stack_hash_step(h, ip);
			}
			hash = stack_hash_end(h);
			hashed = true;
		}
	} else {
		for (i = 0; i < n; i++) {
			uint64_t ip = ringbuf_read_long(l, ev->data + f->kstack_caller_off +
								   i * l->long_size);

			/* kernels without `size` end the array with 0 or ULONG_MAX */
			if (f->kstack_size_off < 0 &&
			    (ip == 0 || ip == ~0ULL || (l->long_size == 4 && ip == 0xffffffffULL)))
				break;
			ing->frames[i] = ip;
		}
		n = i;
	}
	/* stackmap mode: a fallback is full either way; stacks mode: as an id */
	ing->st.alt_bytes += ing->cfg.stackmap || n > STACKMAP_MAX_DEPTH ? bytes : ing->id_cost;
	if (!take_waiting(ing, c, &w)) {
		ing->st.orphans++;
		return;
	}
	if (w.event == EVFMT_NONE || w.kind == W_SKIP)
		return;
	if (!pid_wanted(ing, w.pid)) {
		ing->st.filtered++;
		return; /* not interned either: the table holds only what is counted */
	}
	if (ing->usym && early && c->early_n && ubuf_get(ing)) {
		/* its user_stack came first (--trigger) */
		memcpy(ing->ubuf, ing->frames, n * sizeof(uint64_t));
		memcpy(ing->ubuf + n, c->early, c->early_n * sizeof(uint64_t));
		ingest_count_frames(ing, ing->ubuf, n + c->early_n, &w, cpu, ing->cfg.stackmap);
		return;
	}
	if (ing->usym && !early && ingest_pending_keep(ing, c, cpu, &w, n, -1))
		return; /* counted with its user_stack */
	if (ing->hold && !ing->cfg.stackmap) {
		struct ingest_held h = {
			.ts = ev->ts,
			.value = w.value,
			.pid = w.pid,
			.cpu = (uint16_t)cpu,
			.event = w.event,
			.kind = w.kind,
		};

		if (ing->hold(ing->hold_ctx, &h, ing->frames, n))
			return; /* counted with its user stack: ingest_count_held() */
	}
	if (hashed)
		ingest_count_hashed(ing, ing->frames, n, hash, &w, cpu);
	else
		ingest_count_frames(ing, ing->frames, n, &w, cpu, ing->cfg.stackmap);
	return;
damaged:
	/* its event gets no stack: never pair it with the next one */
	ing->st.damaged++;
	take_waiting(ing, c, &w);
}

static void on_stack_id(struct ingest *ing, struct cpu_state *c, unsigned int cpu,
			const struct ringbuf_event *ev)
{
	const struct evfmt *f = ing->fmt;
	struct waiting w;
	uint32_t id, bytes = rb_bytes(ev->size);
	bool early = take_early(c, c->n);

	ing->st.stackid_records++;
	ing->st.stackid_bytes += bytes;
	if ((uint32_t)f->stackid_off + 4 > ev->size) {
		ing->st.damaged++;
		take_waiting(ing, c, &w);
		return;
	}
	id = ringbuf_read_u32(&f->layout, ev->data + f->stackid_off);
	if (!take_waiting(ing, c, &w)) {
		ing->st.orphans++;
		return;
	}
	if (id >= ing->id_limit) {
		ing->st.bad_ids++; /* no map of this size can hold it, whoever's */
		return;
	}
	if (w.event == EVFMT_NONE || w.kind == W_SKIP)
		return;
	if (!pid_wanted(ing, w.pid)) {
		ing->st.filtered++;
		return;
	}
	if (ing->usym && early) {
		/* its user_stack came first (--trigger) */
		ingest_count_id(ing, id, &w, cpu, c->early, c->early_n);
		return;
	}
	/* user stacks on: the user_stack record after it joins it */
	if (ing->usym && ingest_pending_keep(ing, c, cpu, &w, 0, id))
		return;
	ingest_count_id(ing, id, &w, cpu, NULL, 0);
}

static inline void one_record(struct ingest *ing, struct cpu_state *c, unsigned int cpu,
			      const struct ringbuf_event *ev)
{
	const struct evfmt *f = ing->fmt;
	const struct ringbuf_layout *l = &f->layout;
	unsigned int type;
	int idx, pid;
	uint8_t kind = W_HIT;

	if (ev->size < 8) {
		ing->st.damaged++; /* not even the common fields */
		return;
	}
	ing->st.records++;
	type = ringbuf_read_u16(l, ev->data);
	if ((int)type == f->ustack_type && type) {
		ingest_on_user_stack(ing, c, cpu, ev);
		return;
	}
	if (c->p.on)
		ingest_pending_flush(ing, c, cpu); /* no user_stack came for it */
	if ((int)type == f->stackid_type) {
		on_stack_id(ing, c, cpu, ev);
		return;
	}
	if ((int)type == f->kstack_type) {
		on_kernel_stack(ing, c, cpu, ev);
		return;
	}
	if (type == 0)
		return;
	ing->st.event_records++;
	if ((int)type == f->func_type && ing->cfg.func_cb) {
		if ((uint32_t)f->func_ip_off + l->long_size > ev->size)
			return;
		idx = func_event(ing, ringbuf_read_long(l, ev->data + f->func_ip_off));
		/* ignored, but its stack is still its own: it waits, uncounted */
		if (idx < 0)
			idx = EVFMT_NONE;
		pid = (int)ringbuf_read_u32(l, ev->data + f->pid_off);
		note_pid(ing, pid, -1, ev); /* an entry names no task */
		push_waiting(c, (uint16_t)idx, pid, W_HIT);
		if (ing->special)
			c->v[c->n - 1] = 0; /* an entry has no field to weigh it */
		return;
	}
	idx = f->index[type];
	if (idx == EVFMT_NONE || idx == EVFMT_IGNORED) {
		idx = idx == EVFMT_NONE && ing->cfg.type_cb
			      ? ing->cfg.type_cb(ing->cfg.type_ctx, (int)type)
			      : -1;
		if (idx < 0) {
			/* not one of the session's (a record left in the buffer by
			 * a run before it): its stack is its own, skipped with it */
			ing->st.foreign++;
			push_waiting(c, EVFMT_NONE, -1, W_SKIP);
			return;
		}
	}
	if ((uint32_t)f->pid_off + 4 > ev->size) {
		ing->st.damaged++; /* shorter than its own common fields */
		return;
	}
	pid = (int)ringbuf_read_u32(l, ev->data + f->pid_off);
	note_pid(ing, pid, idx, ev);
	if (__builtin_expect(!ing->special, 1)) {
		push_waiting(c, (uint16_t)idx, pid, W_HIT);
		return;
	}
	if (ing->offcpu && (unsigned int)idx == ing->off.event) {
		const struct ingest_offcpu *o = &ing->off;
		uint64_t state;
		int next;

		if (o->next_pid.offset + 4 > ev->size ||
		    o->prev_state.offset + o->prev_state.size > ev->size) {
			/* damaged: its stack must not be paired with another event */
			ing->st.damaged++;
			push_waiting(c, (uint16_t)idx, pid, W_SKIP);
			return;
		}
		next = (int)ringbuf_read_u32(l, ev->data + o->next_pid.offset);
		if (next > 0 && pid_wanted(ing, next))
			ingest_offcpu_mark(ing, next, ev->ts, M_IN, true);
		state = read_field(l, ev->data + o->prev_state.offset, o->prev_state.size, false);
		/*
		 * prev_state: TASK_REPORT_MAX (0x100, the format's "+") marks a
		 * preemption, the low byte the state it blocked in (0: runnable,
		 * a yield)
		 */
		kind = o->all || ((state & 0xff) && !(state & INGEST_PREEMPTED)) ? W_OFFCPU
										 : W_SKIP;
		if (kind == W_OFFCPU && pid > 0 && pid_wanted(ing, pid))
			ingest_offcpu_mark(ing, pid, ev->ts, M_OUT, true);
		else if (pid > 0)
			ingest_offcpu_mark(ing, pid, ev->ts, M_SKIP, false); /* ends a switch-out */
		push_waiting(c, (uint16_t)idx, pid, kind);
		c->v[c->n - 1] = ev->ts;
	} else if (ing->offcpu && ing->off.wake && (unsigned int)idx == ing->off.wake_event) {
		const struct ingest_offcpu *o = &ing->off;
		int woken;

		/* its stack (the waker's) is not counted */
		push_waiting(c, (uint16_t)idx, pid, W_SKIP);
		if (o->wake_pid.offset + 4 > ev->size) {
			ing->st.damaged++;
			return;
		}
		woken = (int)ringbuf_read_u32(l, ev->data + o->wake_pid.offset);
		if (woken > 0 && pid_wanted(ing, woken))
			ingest_offcpu_mark(ing, woken, ev->ts, M_WAKE, true);
	} else {
		push_waiting(c, (uint16_t)idx, pid, W_HIT);
		c->v[c->n - 1] = record_weight(ing, ev, (unsigned int)idx);
	}
}

/*
 * A gap before a page (or a record): the kernel overwrote @missed records
 * (-1: it could not say how many; the per-CPU count says, at the next
 * tick). The events waiting for their stack lost it in the gap, and a
 * kernel stack waiting for its user stack lost that (it is counted
 * without): both are counted for ingest_stats() to turn records into
 * events, and the stacks read next find no event (@orphans).
 */
static void on_gap(struct ingest *ing, struct cpu_state *c, unsigned int cpu, long long missed)
{
	ing->st.gap_records += missed > 0 ? (uint64_t)missed : 1;
	ing->st.cut_events += (uint64_t)c->n;
	ing->st.cut_pending += c->p.on;
	c->n = 0;
	c->early_on = false;
	ingest_pending_flush(ing, c, cpu);
}

int ingest_page(struct ingest *ing, unsigned int slot, unsigned int cpu, const void *buf,
		size_t len)
{
	struct cpu_state *c = &ing->cpus[slot < ing->ncpus ? slot : 0];
	struct ringbuf_event ev;
	struct ringbuf_page pg;
	int r;

	if (ringbuf_page_init(&pg, buf, len, &ing->fmt->layout) < 0) {
		ing->st.bad_pages++;
		return -EBADMSG;
	}
	if (pg.missed)
		on_gap(ing, c, cpu, pg.missed);
	ing->st.bytes += pg.end - pg.pos; /* the committed data: once per page, not per record */
	while ((r = ringbuf_page_next(&pg, &ev)) > 0)
		one_record(ing, c, cpu, &ev);
	if (r < 0) {
		ing->st.bad_pages++;
		return -EBADMSG;
	}
	return 0;
}

void ingest_record(struct ingest *ing, unsigned int slot, unsigned int cpu, const void *data,
		   uint32_t size, long long missed)
{
	ingest_record_at(ing, slot, cpu, data, size, missed, 0);
}

void ingest_record_at(struct ingest *ing, unsigned int slot, unsigned int cpu, const void *data,
		      uint32_t size, long long missed, uint64_t ts)
{
	struct cpu_state *c = &ing->cpus[slot < ing->ncpus ? slot : 0];
	struct ringbuf_event ev = { .data = data, .size = size, .ts = ts };

	if (missed)
		on_gap(ing, c, cpu, missed);
	if (size >= 8)
		ing->st.bytes += rb_bytes(size);
	one_record(ing, c, cpu, &ev);
}
