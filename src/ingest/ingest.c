// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ingest.c - see ingest.h. The state and its settings; the record walk is
 * page.c, and the other files of ingest/ are listed in ingest_priv.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/stack.h"
#include "ingest/ingest.h"
#include "ingest/ingest_priv.h"
#include "kernel/evfmt.h"

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

	ing->id_cost = rb_bytes(f && f->stackid_type >= 0 && f->stackid_off > 0
					? ((uint32_t)f->stackid_off + 4 + 3) & ~3u
					: 12);
	for (d = 0; d <= STACK_MAX_DEPTH; d++)
		ing->full_cost[d] = (uint16_t)rb_bytes((off + d * lsize + 3) & ~3u);
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
	if (ing->op)
		for (uint32_t i = 0; i < ing->opcap; i++)
			free(ing->op[i].m);
	free(ing->op);
	free(ing->funcs);
	free(ing->tids);
	free(ing->tgids);
	free(ing);
}

void ingest_configure(struct ingest *ing, const struct ingest_config *c)
{
	ing->cfg = *c;
}

const struct ingest_config *ingest_config(const struct ingest *ing)
{
	return &ing->cfg;
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

/*
 * @v gains what the derived count @now gained since it was @was: a count a
 * snapshot added to @v stays (replay of JSON), and a reset zeroes all three
 */
static void derive(uint64_t *v, uint64_t *was, uint64_t now)
{
	*v += now - *was;
	*was = now;
}

/* the events the missed records stand for (ingest_stats() says how) */
static uint64_t overrun_events(const struct ingest *ing)
{
	const struct ingest_stats *st = &ing->st;
	uint64_t g = st->gap_records > st->k_overrun ? st->gap_records : st->k_overrun;
	uint64_t sum = g + st->cut_events + st->orphans, k = ing->cfg.records_per_event;
	uint64_t all =
		st->event_records + st->kstack_records + st->stackid_records + st->ustack_records;
	double per;

	if (!g)
		return 0;
	if (k)
		return (sum + k / 2) / k;
	sum = sum > st->cut_pending ? sum - st->cut_pending : 0;
	/* the event records read over the records read (none read: an event and its stack) */
	per = st->event_records ? (double)st->event_records / (double)all : 0.5;
	return (uint64_t)((double)sum * per + 0.5);
}

struct ingest_stats *ingest_stats(struct ingest *ing)
{
	struct ingest_stats *st = &ing->st;
	uint64_t overrun = overrun_events(ing);
	uint64_t read = st->event_records > st->cut_events ? st->event_records - st->cut_events : 0;

	/* derived here, not per record: stack_id records all have one size */
	st->sized_records = st->kstack_records + st->stackid_counted;
	st->sized_bytes = st->kstack_bytes + st->stackid_counted * ing->id_cost;
	st->lost += overrun - st->was_overrun + st->k_refused - st->was_dropped;
	derive(&st->overrun, &st->was_overrun, overrun);
	derive(&st->dropped, &st->was_dropped, st->k_refused);
	derive(&st->events_read, &st->was_read, read);
	return st;
}

void ingest_set_kernel_losses(struct ingest *ing, uint64_t overwritten, uint64_t refused)
{
	ing->st.k_overrun = overwritten;
	ing->st.k_refused = refused;
}

unsigned int ingest_new_pids(struct ingest *ing, const int32_t **ret, const char *const **ret_comms)
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
	unsigned int i;

	/* more than the list holds: every pid is new again (the bits not listed too) */
	if (ing->new_pids_full)
		memset(ing->pid_seen, 0, INGEST_PID_MAX / 8);
	else
		for (i = 0; i < ing->nnew_pids; i++)
			ing->pid_seen[ing->new_pids[i] >> 3] &=
				(uint8_t) ~(1u << (ing->new_pids[i] & 7));
	ing->new_pids_full = false;
	ing->nnew_pids = 0;
}

unsigned int ingest_pending(const struct ingest *ing)
{
	return ing->nqueue;
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
	if (ing->cfg.self_pid && (tgid == ing->cfg.self_pid || tid == ing->cfg.self_pid))
		return false;
	if (ing->cfg.self_pid && (ingest_is_helper(ing, tgid) || ingest_is_helper(ing, tid)))
		return false;
	if (!ing->ntids && !ing->ntgids)
		return true;
	if (in_list(ing->tids, ing->ntids, tid) || in_list(ing->tgids, ing->ntgids, tgid))
		return true;
	/* a process the callback places among them (-- CMD: one the command started) */
	return ing->ntgids && ing->tgid_fn && tid > 0 &&
	       in_list(ing->tgids, ing->ntgids, ing->tgid_fn(ing->tgid_ctx, tid));
}

void ingest_exclude_pid(struct ingest *ing, int pid)
{
	int n = __atomic_load_n(&ing->nhelpers, __ATOMIC_RELAXED);

	if (!ing->cfg.self_pid || pid <= 0 || ingest_is_helper(ing, pid))
		return;
	if (n == INGEST_HELPERS)
		return; /* (a reader is replaced after a stall: UFILE_STALLS_MAX of them) */
	ing->helpers[n] = pid;
	__atomic_store_n(&ing->nhelpers, n + 1, __ATOMIC_RELEASE);
}
