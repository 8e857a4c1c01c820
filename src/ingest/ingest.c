// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ingest.c - see ingest.h. No allocation per record; a known stack id
 * costs one array index, a full stack one hash and one memcmp.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/evfmt.h"
#include "ingest/ingest.h"
#include "core/ringbuf.h"
#include "core/stack_table.h"
#include "kernel/stackmap.h"
#include "sym/usym.h"

#define WAIT_MAX       8
#define QUEUE_MAX      INGEST_QUEUE_MAX

enum wait_kind {
	W_HIT,    /* count the stack: one hit, @value its weight */
	W_OFFCPU, /* a task left the CPU at @ts: counted when it comes back */
	W_SKIP,   /* a switch not wanted (preemption): its stack is dropped */
};

struct waiting {
	uint64_t value; /* weight of the hit (W_HIT), switch-out time (W_OFFCPU) */
	uint16_t event;
	uint8_t kind;
	int32_t pid;
};

/* what happened to a task, held in time order until ingest_offcpu_settle() */
enum omark_kind {
	M_OUT,  /* switched out, blocked (or any with --offcpu=all): counted */
	M_SKIP, /* switched out, not counted (a preemption): ends the one before */
	M_IN,   /* switched in */
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
	bool fallback; /* a kernel_stack in stackmap mode */
	uint64_t *frames; /* STACK_MAX_DEPTH, allocated with the first one */
};

/* a user part: separator, USYM_FP_FRAMES frames, cut mark */
#define USER_MAX (USYM_FP_FRAMES + 2)

struct func_slot {
	uint64_t ip; /* 0: empty */
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
	int early_depth; /* events waiting when it came */
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
	uint8_t nuser;  /* words of its user part (0: none) */
	uint32_t uoff;  /* where they are in ingest.upool */
};

struct ingest {
	struct evfmt *fmt;
	struct stack_table *table;
	struct cpu_state *cpus;
	unsigned int ncpus;
	bool stackmap;
	bool defer;
	bool keep_unresolved; /* an unknown id is ranked as a stack of its own */
	int32_t self_pid; /* events of this pid are not counted (0: none) */
	int *tids;
	int ntids;
	int *tgids;
	int ntgids;
	ingest_tgid_fn tgid_fn;
	void *tgid_ctx;
	int memo_tid; /* the last thread placed in a process, and the verdict */
	bool memo_wanted;
	int (*type_cb)(void *ctx, int type);
	void *type_ctx;
	int (*func_cb)(void *ctx, uint64_t ip);
	void *func_ctx;
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

	struct wfield *wf; /* by event index */
	unsigned int nwf;
	struct ingest_offcpu off;
	bool offcpu;
	bool special; /* weights or off-CPU: records carry a value */
	struct opend *op; /* open addressing by pid */
	uint32_t nop;
	uint32_t opcap; /* power of two, 0 until the first switch */
	uint64_t off_last_ts; /* the latest time stamp of a mark */

	struct ingest_stats st;
	uint32_t id_cost; /* ring-buffer bytes of a stack_id record */
	uint16_t full_cost[STACK_MAX_DEPTH + 1]; /* ... of a kernel_stack record, by depth */
	struct usym *usym; /* user stacks on */
	uint64_t *upool; /* the user parts of queued ids (stackmap mode) */
	uint32_t nupool, cupool;
	uint64_t *ubuf; /* a mapped kernel stack and a user part, joined */
	ingest_hold_fn hold; /* dwarf user stacks: kernel stacks wait elsewhere */
	void *hold_ctx;
	uint64_t frames[STACK_MAX_DEPTH];
};

/* bytes a record of @size payload bytes takes in the ring buffer */
static inline uint32_t rb_bytes(uint32_t size)
{
	return size + (size <= 112 ? 4 : 8); /* type_len holds up to 28 words */
}

/*
 * What each representation costs in the ring buffer, from the formats (the
 * kernel's layouts when there are none: a 16-byte stack_id record, frames
 * after `int size` at the second long). Tables: nothing computed per record.
 */
static void costs_init(struct ingest *ing)
{
	const struct evfmt *f = ing->fmt;
	uint32_t lsize = f && f->layout.long_size ? f->layout.long_size : 8;
	uint32_t off = f && f->kstack_caller_off > 0 ? (uint32_t)f->kstack_caller_off : 8 + lsize;
	unsigned int d;

	ing->id_cost = rb_bytes(f && f->stackid_type >= 0 && f->stackid_off > 0 ?
					((uint32_t)f->stackid_off + 4 + 3) & ~3u : 12);
	for (d = 0; d <= STACK_MAX_DEPTH; d++)
		ing->full_cost[d] = (uint16_t)rb_bytes((off + d * lsize + 3) & ~3u);
}

/* a stack_id record counted as @st: what a full stack would have cost */
static inline void size_id(struct ingest *ing, const struct stack *st)
{
	ing->st.stackid_counted++;
	ing->st.alt_bytes += ing->full_cost[st->depth];
}

struct ingest *ingest_new(struct evfmt *fmt, struct stack_table *table, unsigned int ncpus)
{
	struct ingest *ing = calloc(1, sizeof(*ing));

	if (!ing)
		return NULL;
	ing->fmt = fmt;
	ing->table = table;
	ing->ncpus = ncpus ? ncpus : 1;
	ing->id_limit = INGEST_ID_DEFAULT;
	costs_init(ing);
	ing->cpus = calloc(ing->ncpus, sizeof(*ing->cpus));
	ing->queue = malloc(QUEUE_MAX * sizeof(*ing->queue));
	ing->pid_seen = calloc(INGEST_PID_MAX / 8, 1);
	if (!ing->cpus || !ing->queue || !ing->pid_seen) {
		ingest_free(ing);
		return NULL;
	}
	return ing;
}

void ingest_free(struct ingest *ing)
{
	if (!ing)
		return;
	if (ing->cpus)
		for (unsigned int i = 0; i < ing->ncpus; i++)
			free(ing->cpus[i].p.frames);
	free(ing->cpus);
	free(ing->queue);
	free(ing->upool);
	free(ing->ubuf);
	free(ing->pid_seen);
	free(ing->by_id);
	free(ing->wf);
	ingest_forget_offcpu(ing);
	free(ing->op);
	free(ing->funcs);
	free(ing->tids);
	free(ing->tgids);
	free(ing);
}

int ingest_set_weight(struct ingest *ing, unsigned int event, const struct evfmt_field *fl)
{
	if (event >= ing->nwf) {
		struct wfield *w = realloc(ing->wf, (event + 1) * sizeof(*w));

		if (!w)
			return -ENOMEM;
		memset(w + ing->nwf, 0, (event + 1 - ing->nwf) * sizeof(*w));
		ing->wf = w;
		ing->nwf = event + 1;
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

static uint64_t read_field(const struct ringbuf_layout *l, const unsigned char *p, uint32_t size,
			   bool sgn)
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
		for (j = ((uint32_t)e->pid * 2654435761u) & (n - 1); t[j].pid; j = (j + 1) & (n - 1))
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
static void offcpu_count(struct ingest *ing, int pid, const struct omark *o,
			 const struct omark *wk, const struct omark *in)
{
	const struct ingest_offcpu *c = &ing->off;
	uint64_t end = in ? in->ts : wk->ts;
	uint64_t woke = wk ? wk->ts : end;

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
static struct omark *offcpu_mark(struct ingest *ing, int32_t pid, uint64_t ts, uint8_t kind,
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
			uint32_t cap = e->cap ? e->cap * 2 : 4;
			struct omark *m = realloc(e->m, cap * sizeof(*m));

			if (!m) {
				ing->st.offcpu_dropped++;
				return NULL;
			}
			e->m = m;
			e->cap = cap;
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
static void offcpu_out(struct ingest *ing, struct stack *st, const struct waiting *w,
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

void ingest_set_stackmap(struct ingest *ing, bool on)
{
	ing->stackmap = on;
}

void ingest_set_id_limit(struct ingest *ing, uint64_t limit)
{
	if (!limit)
		limit = INGEST_ID_DEFAULT;
	ing->id_limit = limit > INGEST_ID_MAX ? INGEST_ID_MAX : (uint32_t)limit;
}

static int copy_ints(int **dst, int *ndst, const int *src, int n)
{
	int *p = NULL;

	if (n > 0) {
		p = malloc((size_t)n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memcpy(p, src, (size_t)n * sizeof(*p));
	}
	free(*dst);
	*dst = p;
	*ndst = n > 0 ? n : 0;
	return 0;
}

int ingest_set_tids(struct ingest *ing, const int *tids, int n)
{
	return copy_ints(&ing->tids, &ing->ntids, tids, n);
}

int ingest_set_procs(struct ingest *ing, const int *tgids, int n, ingest_tgid_fn fn, void *ctx)
{
	ing->tgid_fn = fn;
	ing->tgid_ctx = ctx;
	ing->memo_tid = 0;
	return copy_ints(&ing->tgids, &ing->ntgids, tgids, n);
}

void ingest_set_self(struct ingest *ing, int pid)
{
	ing->self_pid = pid;
}

void ingest_set_type_cb(struct ingest *ing, int (*cb)(void *ctx, int type), void *ctx)
{
	ing->type_cb = cb;
	ing->type_ctx = ctx;
}

void ingest_set_func_cb(struct ingest *ing, int (*cb)(void *ctx, uint64_t ip), void *ctx)
{
	ing->func_cb = cb;
	ing->func_ctx = ctx;
}

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
	idx = ing->func_cb(ing->func_ctx, ip);
	sl = func_find(ing->funcs, ing->funcs_size, ip);
	sl->ip = ip;
	sl->event = idx;
	ing->nfuncs++;
	return idx;
}

struct ingest_stats *ingest_stats(struct ingest *ing)
{
	/* derived here, not per record: stack_id records all have one size */
	ing->st.sized_records = ing->st.kstack_records + ing->st.stackid_counted;
	ing->st.sized_bytes = ing->st.kstack_bytes + ing->st.stackid_counted * ing->id_cost;
	return &ing->st;
}

static bool in_list(const int *v, int n, int x)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static bool pid_wanted(struct ingest *ing, int pid)
{
	int tgid;

	if (ing->self_pid && pid == ing->self_pid)
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

static inline bool take_waiting(const struct ingest *ing, struct cpu_state *c,
				struct waiting *ret)
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

/* a pid's first event: remember it, with the name the event gives its task */
static void new_pid(struct ingest *ing, int pid, int idx, const struct ringbuf_event *ev)
{
	const struct evfmt *f = ing->fmt;
	unsigned int n = ing->nnew_pids;
	int off, poff;
	bool known;

	if (n >= INGEST_NEW_PIDS)
		return;
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
		offcpu_out(ing, st, w, cpu);
	}
}

static void count_id(struct ingest *ing, uint32_t id, const struct waiting *w, unsigned int cpu,
		     const uint64_t *user, unsigned int nuser);

/* @n frames of a kernel_stack record (and a user part after them) counted */
static void count_frames(struct ingest *ing, const uint64_t *frames, unsigned int n,
			 const struct waiting *w, unsigned int cpu, bool fallback)
{
	struct stack *st = stack_table_intern(ing->table, frames, n);

	if (!st)
		return;
	if (fallback) {
		st->flags |= STACK_F_FALLBACK;
		ing->st.fallbacks++;
	}
	count(ing, st, w, cpu);
}

/* the kernel frames (or id) waiting on @c, counted without user frames */
static void pending_flush(struct ingest *ing, struct cpu_state *c, unsigned int cpu)
{
	if (!c->p.on)
		return;
	c->p.on = false;
	if (c->p.id >= 0)
		count_id(ing, (uint32_t)c->p.id, &c->p.w, c->p.cpu, NULL, 0);
	else
		count_frames(ing, c->p.frames, c->p.n, &c->p.w, c->p.cpu, c->p.fallback);
	(void)cpu;
}

/* user stacks on: keep the kernel frames (@n in ing->frames, or @id) until the user_stack */
static bool pending_keep(struct ingest *ing, struct cpu_state *c, unsigned int cpu,
			 const struct waiting *w, unsigned int n, int64_t id)
{
	pending_flush(ing, c, cpu);
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
	c->p.fallback = id < 0 && ing->stackmap;
	c->p.w = *w;
	c->p.cpu = cpu;
	c->p.on = true;
	c->p.stale = false;
	return true;
}

/* room for a kernel stack and a user part, joined */
static uint64_t *ubuf_get(struct ingest *ing)
{
	if (!ing->ubuf)
		ing->ubuf = malloc((STACK_MAX_DEPTH + USER_MAX) * sizeof(uint64_t));
	return ing->ubuf;
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
		uint64_t ip = ringbuf_read_long(l, ev->data + f->ustack_caller_off + i * l->long_size);
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
	/* the kernel walks no further, or the frames after are not kept */
	if (nu == USYM_FP_FRAMES || refused)
		out[1 + nu++] = USYM_CUT;
	/* a kernel thread has no user frames: its stack is the kernel one */
	return nu ? (int)(1 + nu) : 0;
}

static void on_user_stack(struct ingest *ing, struct cpu_state *c, unsigned int cpu,
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
		    c->w[c->n - 1].pid !=
			    (int32_t)ringbuf_read_u32(&ing->fmt->layout, ev->data + ing->fmt->pid_off))
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
		pending_flush(ing, c, cpu);
		return;
	}
	c->p.on = false;
	if (c->p.id >= 0)
		count_id(ing, (uint32_t)c->p.id, &c->p.w, cpu, c->p.frames, (unsigned int)nw);
	else
		count_frames(ing, c->p.frames, c->p.n + (unsigned int)nw, &c->p.w, cpu,
			     c->p.fallback);
}

/* the user part that came before this stack, if it is its event's (and forget it) */
static bool take_early(struct cpu_state *c, int depth)
{
	bool ok = c->early_on && c->early_depth == depth;

	c->early_on = false;
	return ok;
}

static void on_kernel_stack(struct ingest *ing, struct cpu_state *c, unsigned int cpu,
			    const struct ringbuf_event *ev)
{
	const struct evfmt *f = ing->fmt;
	const struct ringbuf_layout *l = &f->layout;
	unsigned int max, n, i;
	struct waiting w;
	uint32_t bytes = rb_bytes(ev->size);
	bool early = take_early(c, c->n);

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
		memcpy(ing->frames, ev->data + f->kstack_caller_off, n * 8);
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
	ing->st.alt_bytes += ing->stackmap || n > STACKMAP_MAX_DEPTH ? bytes : ing->id_cost;
	if (!take_waiting(ing, c, &w)) {
		ing->st.orphans++;
		return;
	}
	if (w.event == EVFMT_NONE || w.kind == W_SKIP || !pid_wanted(ing, w.pid))
		return; /* not interned either: the table holds only what is counted */
	if (ing->usym && early && c->early_n && ubuf_get(ing)) {
		/* its user_stack came first (--trigger) */
		memcpy(ing->ubuf, ing->frames, n * sizeof(uint64_t));
		memcpy(ing->ubuf + n, c->early, c->early_n * sizeof(uint64_t));
		count_frames(ing, ing->ubuf, n + c->early_n, &w, cpu, ing->stackmap);
		return;
	}
	if (ing->usym && !early && pending_keep(ing, c, cpu, &w, n, -1))
		return; /* counted with its user_stack */
	if (ing->hold && !ing->stackmap) {
		struct ingest_held h = {
			.ts = ev->ts, .value = w.value, .pid = w.pid, .cpu = (uint16_t)cpu,
			.event = w.event, .kind = w.kind,
		};

		if (ing->hold(ing->hold_ctx, &h, ing->frames, n))
			return; /* counted with its user stack: ingest_count_held() */
	}
	count_frames(ing, ing->frames, n, &w, cpu, ing->stackmap);
	return;
damaged:
	/* its event gets no stack: never pair it with the next one */
	ing->st.damaged++;
	take_waiting(ing, c, &w);
}

/* @kst with a user part (@nuser words from usym_sep()) below it */
static struct stack *with_user(struct ingest *ing, struct stack *kst, const uint64_t *user,
			       unsigned int nuser)
{
	struct stack *st;
	unsigned int i;

	if (!nuser)
		return kst;
	if (!ubuf_get(ing))
		return NULL;
	memcpy(ing->ubuf, kst->ips, kst->depth * sizeof(uint64_t));
	memcpy(ing->ubuf + kst->depth, user, nuser * sizeof(uint64_t));
	st = stack_table_intern(ing->table, ing->ubuf, kst->depth + nuser);
	if (!st)
		return NULL;
	/* what the kernel part is known as: the ids it came under */
	st->flags |= kst->flags & (STACK_F_MAPPED | STACK_F_MERGED64);
	for (i = 0; i < kst->nids && i < STACK_MAX_IDS; i++)
		stack_add_id(st, kst->ids[i]);
	return st;
}

/* an id no map resolves: counted under a one-frame stack that names it */
static void count_unresolved(struct ingest *ing, uint32_t id, const struct waiting *w,
			     unsigned int cpu, const uint64_t *user, unsigned int nuser)
{
	uint64_t ip = STACK_IP_UNRESOLVED(id);
	struct stack *st;

	ing->st.unresolved++;
	st = stack_table_intern(ing->table, &ip, 1);
	if (!st)
		return;
	stack_add_id(st, id);
	st = with_user(ing, st, user, nuser);
	if (st)
		count(ing, st, w, cpu);
}

/* a resolved id: its stack (with the user part of the event) counted */
static void count_mapped(struct ingest *ing, struct stack *kst, const struct waiting *w,
			 unsigned int cpu, const uint64_t *user, unsigned int nuser)
{
	struct stack *st = with_user(ing, kst, user, nuser);

	if (st)
		count(ing, st, w, cpu);
	size_id(ing, kst); /* the record stood for the kernel frames only */
}

/* counted now when the map knows @id, else queued for ingest_resolve() */
static void count_id(struct ingest *ing, uint32_t id, const struct waiting *w, unsigned int cpu,
		     const uint64_t *user, unsigned int nuser)
{
	struct queued *q;

	if (!ing->defer && id < ing->nby_id && ing->by_id[id]) {
		count_mapped(ing, ing->by_id[id], w, cpu, user, nuser);
		return;
	}
	if (!ing->defer && ing->keep_unresolved) {
		count_unresolved(ing, id, w, cpu, user, nuser);
		return;
	}
	if (ing->nqueue >= QUEUE_MAX) {
		ing->st.unresolved++;
		return;
	}
	q = &ing->queue[ing->nqueue];
	q->nuser = 0;
	if (nuser) {
		if (ing->nupool + nuser > ing->cupool) {
			uint32_t cap = ing->cupool ? ing->cupool * 2 : 1024;
			uint64_t *np = realloc(ing->upool, cap * sizeof(*np));

			if (!np) {
				ing->st.unresolved++;
				return;
			}
			ing->upool = np;
			ing->cupool = cap;
		}
		memcpy(ing->upool + ing->nupool, user, nuser * sizeof(uint64_t));
		q->uoff = ing->nupool;
		q->nuser = (uint8_t)nuser;
		ing->nupool += nuser;
	}
	q->id = id;
	q->event = w->event;
	q->cpu = (uint16_t)cpu;
	q->pid = w->pid;
	q->kind = w->kind;
	q->value = w->value;
	ing->nqueue++;
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
	if (w.event == EVFMT_NONE || w.kind == W_SKIP || !pid_wanted(ing, w.pid))
		return;
	if (ing->usym && early) {
		/* its user_stack came first (--trigger) */
		count_id(ing, id, &w, cpu, c->early, c->early_n);
		return;
	}
	/* user stacks on: the user_stack record after it joins it */
	if (ing->usym && pending_keep(ing, c, cpu, &w, 0, id))
		return;
	count_id(ing, id, &w, cpu, NULL, 0);
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
		on_user_stack(ing, c, cpu, ev);
		return;
	}
	if (c->p.on)
		pending_flush(ing, c, cpu); /* no user_stack came for it */
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
	if ((int)type == f->func_type && ing->func_cb) {
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
	if (idx == EVFMT_NONE) {
		idx = ing->type_cb ? ing->type_cb(ing->type_ctx, (int)type) : -1;
		if (idx < 0)
			return;
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

		if (o->next_pid.offset + 4 > ev->size || o->prev_state.offset + o->prev_state.size >
								 ev->size) {
			/* damaged: its stack must not be paired with another event */
			ing->st.damaged++;
			push_waiting(c, (uint16_t)idx, pid, W_SKIP);
			return;
		}
		next = (int)ringbuf_read_u32(l, ev->data + o->next_pid.offset);
		if (next > 0 && pid_wanted(ing, next))
			offcpu_mark(ing, next, ev->ts, M_IN, true);
		state = read_field(l, ev->data + o->prev_state.offset, o->prev_state.size, false);
		/*
		 * prev_state: TASK_REPORT_MAX (0x100, the format's "+") marks a
		 * preemption, the low byte the state it blocked in (0: runnable,
		 * a yield)
		 */
		kind = o->all || ((state & 0xff) && !(state & INGEST_PREEMPTED)) ? W_OFFCPU : W_SKIP;
		if (kind == W_OFFCPU && pid > 0 && pid_wanted(ing, pid))
			offcpu_mark(ing, pid, ev->ts, M_OUT, true);
		else if (pid > 0)
			offcpu_mark(ing, pid, ev->ts, M_SKIP, false); /* ends a switch-out */
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
			offcpu_mark(ing, woken, ev->ts, M_WAKE, true);
	} else {
		push_waiting(c, (uint16_t)idx, pid, W_HIT);
		c->v[c->n - 1] = record_weight(ing, ev, (unsigned int)idx);
	}
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
	if (pg.missed) {
		ing->st.lost += pg.missed > 0 ? (uint64_t)pg.missed : 1;
		c->n = 0;
		c->early_on = false;
		pending_flush(ing, c, cpu);
	}
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

	if (missed) {
		ing->st.lost += missed > 0 ? (uint64_t)missed : 1;
		c->n = 0;
		c->early_on = false;
		pending_flush(ing, c, cpu);
	}
	if (size >= 8)
		ing->st.bytes += rb_bytes(size);
	one_record(ing, c, cpu, &ev);
}

static int grow_ids(struct ingest *ing, uint32_t id)
{
	uint32_t n = ing->nby_id ? ing->nby_id : 1024;
	struct stack **nb;

	while (n <= id && n < ing->id_limit)
		n *= 2;
	if (n > ing->id_limit)
		n = ing->id_limit; /* ids are below it: no slot is wasted */
	nb = realloc(ing->by_id, (size_t)n * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	memset(nb + ing->nby_id, 0, (size_t)(n - ing->nby_id) * sizeof(*nb));
	ing->by_id = nb;
	ing->nby_id = n;
	return 0;
}

struct stack *ingest_map_put(struct ingest *ing, uint32_t id, const uint64_t *ips, uint32_t nr,
			     bool old_abi)
{
	struct stack *st;

	if (id >= ing->id_limit) {
		ing->st.bad_ids++;
		return NULL;
	}
	if (id >= ing->nby_id && grow_ids(ing, id) < 0)
		return NULL;
	st = stack_table_intern(ing->table, ips, nr);
	if (!st)
		return NULL;
	st->flags |= STACK_F_MAPPED;
	if (old_abi && nr >= STACKMAP_MAX_DEPTH)
		st->flags |= STACK_F_MERGED64;
	stack_add_id(st, id);
	ing->by_id[id] = st;
	return st;
}

void ingest_set_keep_unresolved(struct ingest *ing, bool on)
{
	ing->keep_unresolved = on;
}

void ingest_set_defer(struct ingest *ing, bool on)
{
	ing->defer = on;
}

bool ingest_needs_map(const struct ingest *ing)
{
	unsigned int i;

	for (i = 0; i < ing->nqueue; i++)
		if (ing->queue[i].id >= ing->nby_id || !ing->by_id[ing->queue[i].id])
			return true;
	return false;
}

unsigned int ingest_drop_pending(struct ingest *ing)
{
	unsigned int n = ing->nqueue;

	ing->st.unresolved += n;
	ing->nqueue = 0;
	ing->nupool = 0;
	return n;
}

unsigned int ingest_new_pids(struct ingest *ing, const int32_t **ret,
			     const char *const **ret_comms)
{
	unsigned int i;

	*ret = ing->new_pids;
	if (ret_comms) {
		for (i = 0; i < ing->nnew_pids; i++)
			ing->new_comm_ptrs[i] = ing->new_comms[i];
		*ret_comms = ing->new_comm_ptrs;
	}
	return ing->nnew_pids;
}

void ingest_clear_new_pids(struct ingest *ing)
{
	ing->nnew_pids = 0;
}

unsigned int ingest_pending(const struct ingest *ing)
{
	return ing->nqueue;
}

unsigned int ingest_resolve(struct ingest *ing)
{
	unsigned int i, done = 0;

	for (i = 0; i < ing->nqueue; i++) {
		const struct queued *q = &ing->queue[i];
		struct waiting w = {
			.event = q->event, .pid = q->pid, .kind = q->kind, .value = q->value
		};

		const uint64_t *user = q->nuser ? ing->upool + q->uoff : NULL;

		if (q->id < ing->nby_id && ing->by_id[q->id]) {
			count_mapped(ing, ing->by_id[q->id], &w, q->cpu, user, q->nuser);
			done++;
		} else if (ing->keep_unresolved) {
			count_unresolved(ing, q->id, &w, q->cpu, user, q->nuser);
		} else {
			/* not in a snapshot read after it: never guess */
			ing->st.unresolved++;
		}
	}
	ing->nqueue = 0;
	ing->nupool = 0;
	return done;
}

void ingest_new_generation(struct ingest *ing)
{
	unsigned int i;

	if (ing->by_id)
		memset(ing->by_id, 0, ing->nby_id * sizeof(*ing->by_id));
	ing->nqueue = 0;
	ing->nupool = 0;
	/* an id waiting for its user_stack is of the old map too */
	for (i = 0; i < ing->ncpus; i++)
		if (ing->cpus[i].p.on && ing->cpus[i].p.id >= 0)
			ing->cpus[i].p.on = false;
	ingest_forget_offcpu(ing);
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

void ingest_forget_waiting(struct ingest *ing)
{
	unsigned int i;

	for (i = 0; i < ing->ncpus; i++) {
		ing->cpus[i].n = 0;
		ing->cpus[i].p.on = false;
		ing->cpus[i].early_on = false;
	}
}

void ingest_set_user(struct ingest *ing, struct usym *u)
{
	ing->usym = u;
}

void ingest_set_user_hold(struct ingest *ing, ingest_hold_fn fn, void *ctx)
{
	ing->hold = fn;
	ing->hold_ctx = ctx;
}

bool ingest_wants(const struct ingest *ing, int tgid, int tid)
{
	if (ing->self_pid && (tgid == ing->self_pid || tid == ing->self_pid))
		return false;
	if (!ing->ntids && !ing->ntgids)
		return true;
	return in_list(ing->tids, ing->ntids, tid) || in_list(ing->tgids, ing->ntgids, tgid);
}

void ingest_count_held(struct ingest *ing, const struct ingest_held *h, const uint64_t *frames,
		       unsigned int n)
{
	struct waiting w = { .value = h->value, .event = h->event, .kind = h->kind, .pid = h->pid };
	struct stack *st = stack_table_intern(ing->table, frames, n);

	if (st)
		count(ing, st, &w, h->cpu);
}

void ingest_flush_user(struct ingest *ing)
{
	unsigned int i;

	for (i = 0; i < ing->ncpus; i++) {
		struct cpu_state *c = &ing->cpus[i];

		if (!c->p.on)
			continue;
		if (c->p.stale)
			pending_flush(ing, c, c->p.cpu);
		else
			c->p.stale = true;
	}
}
