/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ingest_priv.h - ingest's inside, shared by its files and nothing else:
 * the per-CPU state, the waiting events, the id queue, and the small
 * helpers of the hot path (inline here so that the record walk keeps them
 * inline). The files, each calling only the ones listed before it:
 *
 *	ingest.c   the state: made, freed, configured; pid filters, counters
 *	offcpu.c   --weight and --offcpu: weights, switches paired
 *	count.c    a stack (or an id) counted into the table
 *	ids.c      the stack map's ids: resolved, queued, a new generation
 *	user.c     user stacks joined to their kernel stacks
 *	page.c     the record walk: pages and records to the handlers above
 */
#ifndef STACKTOP_INGEST_PRIV_H
#define STACKTOP_INGEST_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ringbuf.h"
#include "core/stack_table.h"
#include "ingest/ingest.h"
#include "kernel/evfmt.h"
#include "sym/usym.h"

#define WAIT_MAX  8
#define QUEUE_MAX INGEST_QUEUE_MAX

enum wait_kind {
	W_HIT,	  /* count the stack: one hit, @value its weight */
	W_OFFCPU, /* a task left the CPU at @ts: counted when it comes back */
	W_SKIP,	  /* a switch not wanted (preemption): its stack is dropped */
};

struct waiting {
	uint64_t value; /* weight of the hit (W_HIT), switch-out time (W_OFFCPU) */
	uint16_t event;
	uint8_t kind;
	int32_t pid;
};

/* what happened to a task, held in time order until ingest_offcpu_settle() */
enum omark_kind {
	M_OUT,	/* switched out, blocked (or any with --offcpu=all): counted */
	M_SKIP, /* switched out, not counted (a preemption): ends the one before */
	M_IN,	/* switched in */
	M_WAKE, /* woken */
};

struct omark {
	uint64_t ts;
	struct stack *st; /* M_OUT: where it left, NULL until its stack is read */
	uint16_t event;
	uint16_t cpu;
	uint8_t kind;
};

/* a task followed off the CPU */
struct opend {
	struct omark *m; /* by time stamp */
	uint32_t n, cap;
	int32_t pid; /* 0: free slot */
};

struct wfield {
	uint32_t off;
	uint8_t size; /* 0: the event has no weight */
	bool sgn;
};

/* an event waiting for its stack: 8 bytes, its value apart (weighted runs only) */
struct wslot {
	uint16_t event;
	uint8_t kind;
	int32_t pid;
};

/*
 * User stacks (ingest_set_user()): the kernel records an event, its
 * kernel_stack (or stack_id in stackmap mode), then its user_stack on the
 * same CPU. The kernel frames (or the id) wait here for the user ones;
 * anything else on the CPU (or two ticks without a user_stack:
 * ingest_flush_user()) counts them alone. An id joined to its user part
 * before the map resolves it is queued with that part (ingest.upool).
 */
struct pending {
	struct waiting w;
	unsigned int n;
	unsigned int cpu;
	int64_t id; /* a stack_id record (stackmap mode): its id; -1: frames */
	bool on;
	bool stale;
	bool fallback;	  /* a kernel_stack in stackmap mode */
	uint64_t *frames; /* STACK_MAX_DEPTH, allocated with the first one */
};

/* a user part: separator, USYM_FP_FRAMES frames, cut mark */
#define USER_MAX (USYM_FP_FRAMES + 2)

struct func_slot {
	uint64_t ip;   /* 0: empty */
	int32_t event; /* negative: ignored */
};

struct cpu_state {
	struct wslot w[WAIT_MAX];
	uint64_t v[WAIT_MAX];
	int n;
	struct pending p;
	/*
	 * a user_stack before its event's stack: with --trigger (no stacktrace
	 * option) the kernel writes event, user_stack, then the trigger's stack
	 */
	bool early_on;
	int early_depth;      /* events waiting when it came */
	unsigned int early_n; /* words in @early (0: a kernel thread's) */
	uint64_t early[USER_MAX];
};

struct queued {
	uint64_t value;
	uint32_t id;
	uint16_t event;
	uint16_t cpu;
	int32_t pid;
	uint8_t kind;
	uint8_t nuser; /* words of its user part (0: none) */
	uint32_t uoff; /* where they are in ingest.upool */
};

struct ingest {
	struct evfmt *fmt;
	struct stack_table *table;
	struct cpu_state *cpus;
	unsigned int ncpus;
	struct ingest_config cfg;    /* ingest_configure() */
	int helpers[INGEST_HELPERS]; /* ingest_exclude_pid(): stacktop's helper processes */
	int nhelpers;		     /* (read with acquire: added from another thread) */
	int *tids;
	int ntids;
	int *tgids;
	int ntgids;
	ingest_tgid_fn tgid_fn;
	void *tgid_ctx;
	int memo_tid; /* the last thread placed in a process, and the verdict */
	bool memo_wanted;
	struct func_slot *funcs; /* ip -> event index, open addressing */
	uint32_t nfuncs, funcs_size;

	struct stack **by_id;
	uint32_t nby_id;
	uint32_t id_limit; /* ids possible: the map's table_size */
	struct queued *queue;
	unsigned int nqueue;

	uint8_t *pid_seen; /* bitmap, INGEST_PID_MAX bits */
	int32_t new_pids[INGEST_NEW_PIDS];
	char new_comms[INGEST_NEW_PIDS][16]; /* the event's own name, "" if none */
	const char *new_comm_ptrs[INGEST_NEW_PIDS];
	unsigned int nnew_pids;
	bool new_pids_full; /* a pid was seen with the list full */

	struct wfield *wf; /* by event index */
	unsigned int nwf;
	struct ingest_offcpu off;
	bool offcpu;
	bool special;	  /* weights or off-CPU: records carry a value */
	struct opend *op; /* open addressing by pid */
	uint32_t nop;
	uint32_t opcap;	      /* power of two, 0 until the first switch */
	uint64_t off_last_ts; /* the latest time stamp of a mark */

	struct ingest_stats st;
	uint32_t id_cost;			 /* ring-buffer bytes of a stack_id record */
	uint16_t full_cost[STACK_MAX_DEPTH + 1]; /* ... of a kernel_stack record, by depth */
	struct usym *usym;			 /* user stacks on */
	uint64_t *upool;			 /* the user parts of queued ids (stackmap mode) */
	uint32_t nupool, cupool;
	uint64_t *ubuf;	     /* a mapped kernel stack and a user part, joined */
	ingest_hold_fn hold; /* dwarf user stacks: kernel stacks wait elsewhere */
	void *hold_ctx;
	uint64_t frames[STACK_MAX_DEPTH];
};

/* bytes a record of @size payload bytes takes in the ring buffer */
static inline uint32_t rb_bytes(uint32_t size)
{
	return size + (size <= 112 ? 4 : 8); /* type_len holds up to 28 words */
}

/* a stack_id record counted as @st: what a full stack would have cost */
static inline void size_id(struct ingest *ing, const struct stack *st)
{
	ing->st.stackid_counted++;
	ing->st.alt_bytes += ing->full_cost[st->depth];
}

/* whether @x is one of the @n values of @v */
static inline bool in_list(const int *v, int n, int x)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* whether @pid is one of stacktop's helper processes (ingest_exclude_pid()) */
static inline bool ingest_is_helper(const struct ingest *ing, int pid)
{
	int i, n = __atomic_load_n(&ing->nhelpers, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (ing->helpers[i] == pid)
			return true;
	return false;
}

/* whether a record of @pid counts: not stacktop's own, and one of -p's tids or tgids */
static inline bool pid_wanted(struct ingest *ing, int pid)
{
	int tgid;

	if (ing->cfg.self_pid && pid == ing->cfg.self_pid)
		return false;
	if (ingest_is_helper(ing, pid))
		return false;
	if (!ing->ntids && !ing->ntgids)
		return true;
	if (in_list(ing->tids, ing->ntids, pid))
		return true;
	if (!ing->ntgids || !ing->tgid_fn)
		return false;
	if (pid > 0 && pid == ing->memo_tid)
		return ing->memo_wanted;
	tgid = ing->tgid_fn(ing->tgid_ctx, pid);
	if (tgid < 0)
		return false; /* not placed yet: asked again next time */
	ing->memo_tid = pid;
	ing->memo_wanted = in_list(ing->tgids, ing->ntgids, tgid);
	return ing->memo_wanted;
}

/* the newest event waiting on @c for its stack into @ret, taken off; false when none */
static inline bool take_waiting(const struct ingest *ing, struct cpu_state *c, struct waiting *ret)
{
	if (!c->n)
		return false;
	c->n--;
	ret->event = c->w[c->n].event;
	ret->kind = c->w[c->n].kind;
	ret->pid = c->w[c->n].pid;
	ret->value = c->v[c->n]; /* stale (but initialized) when !ing->special: unused */
	return true;
}

/* an event of @pid waits on @c for its stack (full: the oldest is forgotten) */
static inline void push_waiting(struct cpu_state *c, uint16_t event, int pid, uint8_t kind)
{
	if (c->n == WAIT_MAX) {
		/* an event that never got its stack: forget the oldest */
		memmove(c->w, c->w + 1, (WAIT_MAX - 1) * sizeof(c->w[0]));
		memmove(c->v, c->v + 1, (WAIT_MAX - 1) * sizeof(c->v[0]));
		c->n--;
	}
	c->w[c->n].event = event;
	c->w[c->n].pid = pid;
	c->w[c->n].kind = kind;
	c->n++;
}

/* room for a kernel stack and a user part, joined */
static inline uint64_t *ubuf_get(struct ingest *ing)
{
	if (!ing->ubuf)
		ing->ubuf = malloc((STACK_MAX_DEPTH + USER_MAX) * sizeof(uint64_t));
	return ing->ubuf;
}

/* the user part that came before this stack, if it is its event's (and forget it) */
static inline bool take_early(struct cpu_state *c, int depth)
{
	bool ok = c->early_on && c->early_depth == depth;

	c->early_on = false;
	return ok;
}

/* a field of @size bytes at @p in the trace's byte order, sign-extended when @sgn */
static inline uint64_t read_field(const struct ringbuf_layout *l, const unsigned char *p,
				  uint32_t size, bool sgn)
{
	switch (size) {
	case 1:
		return sgn ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
	case 2:
		return sgn ? (uint64_t)(int64_t)(int16_t)ringbuf_read_u16(l, p)
			   : ringbuf_read_u16(l, p);
	case 4:
		return sgn ? (uint64_t)(int64_t)(int32_t)ringbuf_read_u32(l, p)
			   : ringbuf_read_u32(l, p);
	default:
		return ringbuf_read_u64(l, p);
	}
}

/* the weight of a record of event @idx: its field, 0 when absent or negative */
static inline uint64_t record_weight(const struct ingest *ing, const struct ringbuf_event *ev,
				     unsigned int idx)
{
	const struct wfield *w;
	uint64_t v;

	if (idx >= ing->nwf || !ing->wf[idx].size)
		return 0;
	w = &ing->wf[idx];
	if (w->off + w->size > ev->size)
		return 0;
	v = read_field(&ing->fmt->layout, ev->data + w->off, w->size, w->sgn);
	return w->sgn && (int64_t)v < 0 ? 0 : v;
}

/* offcpu.c: a switch-out, switch-in or wakeup of @pid at @ts, in time order */
struct omark *ingest_offcpu_mark(struct ingest *ing, int32_t pid, uint64_t ts, uint8_t kind,
				 bool create);
/* offcpu.c: a switch-out's stack came: counted when the task comes back */
void ingest_offcpu_out(struct ingest *ing, struct stack *st, const struct waiting *w,
		       unsigned int cpu);

/* @w's event counted under @st: a hit, a weighted hit, or an off-CPU switch-out */
static inline void count(struct ingest *ing, struct stack *st, const struct waiting *w,
			 unsigned int cpu)
{
	if (__builtin_expect(!ing->special, 1)) {
		stack_table_hit(ing->table, st, w->event, cpu, w->pid, 1);
		ing->st.events++;
	} else if (w->kind == W_HIT) {
		stack_table_hit_w(ing->table, st, w->event, cpu, w->pid, 1, w->value);
		ing->st.events++;
	} else if (w->kind == W_OFFCPU) {
		ingest_offcpu_out(ing, st, w, cpu);
	}
}

/* count.c: @n frames of a kernel_stack record (and a user part after them) counted */
/* count.c: --oncpu=tick's cut (struct ingest_config @trim): @f from the
 * interrupted frame on, *@n its frames; *@whole: no frame to cut at */
const uint64_t *ingest_trim(struct ingest *ing, const uint64_t *f, unsigned int *n, bool *whole);
void ingest_count_frames(struct ingest *ing, const uint64_t *frames, unsigned int n,
			 const struct waiting *w, unsigned int cpu, bool fallback);
/* count.c: the common stack (no cut, no fallback, no user part) of at most
 * STACK_MAX_DEPTH frames whose stack_hash() the reader computed as it
 * copied them (@h), counted */
void ingest_count_hashed(struct ingest *ing, const uint64_t *frames, unsigned int n, uint32_t h,
			 const struct waiting *w, unsigned int cpu);
/* count.c: @kst with a user part (@nuser words from usym_sep()) below it */
struct stack *ingest_with_user(struct ingest *ing, struct stack *kst, const uint64_t *user,
			       unsigned int nuser);
/* count.c: an id no map resolves, counted under a one-frame stack that names it */
void ingest_count_unresolved(struct ingest *ing, uint32_t id, const struct waiting *w,
			     unsigned int cpu, const uint64_t *user, unsigned int nuser);
/* count.c: a resolved id: its stack (with the user part of the event) counted */
void ingest_count_mapped(struct ingest *ing, struct stack *kst, const struct waiting *w,
			 unsigned int cpu, const uint64_t *user, unsigned int nuser);
/* count.c: counted now when the map knows @id, else queued for ingest_resolve() */
void ingest_count_id(struct ingest *ing, uint32_t id, const struct waiting *w, unsigned int cpu,
		     const uint64_t *user, unsigned int nuser);

/* user.c: the kernel frames (or id) waiting on @c, counted without user frames */
void ingest_pending_flush(struct ingest *ing, struct cpu_state *c, unsigned int cpu);
/* user.c: keep the kernel frames (@n in ing->frames, or @id) until the user_stack */
bool ingest_pending_keep(struct ingest *ing, struct cpu_state *c, unsigned int cpu,
			 const struct waiting *w, unsigned int n, int64_t id);
/* user.c: a user_stack record */
void ingest_on_user_stack(struct ingest *ing, struct cpu_state *c, unsigned int cpu,
			  const struct ringbuf_event *ev);

#endif /* STACKTOP_INGEST_PRIV_H */
