// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay_json.c - a JSON snapshot (`-r snap.json`) as a source: its stacks,
 * counts and breakdown records go into the table as they were written, so
 * that the ranking, the counts (total and interval) and the view come back
 * as they were seen. Read whole at open.
 *
 * Several snapshots (one source each) share one struct snapdb in the
 * session: the event names, the symbols, the command names, the origins
 * (one per file: its host, or its file name when two files have the same
 * host) and the stacks by key. A stack is merged across files by its key
 * (its symbols), not its addresses: KASLR places one kernel's stacks at
 * other addresses on every machine; the first file's addresses are kept.
 * Every breakdown record carries its origin (struct stack_attr's @origin).
 *
 * Symbols come from the snapshot only: the snapshot's "symbols" texts are
 * parsed back into (name, start, size, module) per address and answered
 * through the ksym resolver, never from this machine's kallsyms.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/hist.h"
#include "core/hmap.h"
#include "core/log.h"
#include "core/stack_table.h"
#include "ingest/ingest.h"
#include "ingest/snapshot.h"
#include "kernel/comm.h"
#include "kernel/trace.h"
#include "source/source.h"
#include "sym/ksym.h"
#include "sym/pname.h"
#include "sym/usym.h"

/* a small open-addressing map from a 64-bit key to a pointer */
/* a pointer kept in a map (hmap.h): NULL when the key is not there */
static void *map_ptr(const struct hmap *m, uint64_t k)
{
	uint64_t v;

	return hmap_get(m, k, &v) ? (void *)(uintptr_t)v : NULL;
}

static int map_put_ptr(struct hmap *m, uint64_t k, void *v)
{
	return hmap_put(m, k, (uint64_t)(uintptr_t)v);
}

static void map_free(struct hmap *m, bool free_vals)
{
	uint64_t k, v;
	size_t pos = 0;

	while (free_vals && hmap_next(m, &pos, &k, &v))
		free((void *)(uintptr_t)v);
	hmap_done(m);
}

struct snapsym {
	uint64_t start, size;
	char *module; /* points into name's allocation, or NULL */
	char name[];
};

struct origin {
	char name[128];
	char host[128];
	char file[128];
	bool named; /* from a merged snapshot's "origins": keep as is */
};

struct snapdb {
	struct hmap syms;   /* address -> struct snapsym */
	struct hmap starts; /* a symbol's start -> its struct snapsym (in syms) */
	struct hmap keys;   /* stack key -> struct stack (owned by the table) */
	struct hmap comms;  /* pid + 1 -> char * */
	struct origin *origins;
	unsigned int norigins;
	bool have_view;
	struct snap_view view;
	unsigned int group_depth; /* the first file's grouping */
	bool group_func;
	bool count; /* the first file was weighted and ranked hits */
	char filter[256];
	char comm[256];
	double interval;
	int nfiles; /* snapshots opened */
};

static int snap_sym(void *ctx, uint64_t addr, struct ksym_hit *ret)
{
	const struct snapdb *db = ctx;
	const struct snapsym *y = map_ptr(&db->syms, addr);

	/* --by-func names functions by their start, which no frame may be */
	if (!y)
		y = map_ptr(&db->starts, addr);
	if (!y)
		return -ENOENT;
	ret->name = y->name;
	ret->module = y->module;
	ret->start = y->start;
	ret->size = y->size;
	return 0;
}

static const char *snap_comm(void *ctx, int pid)
{
	return map_ptr(&((struct snapdb *)ctx)->comms, (uint64_t)(int64_t)pid + 1);
}

/* "name+0xoff/0xsize [module]" back into its parts, for @ip */
static int add_sym(struct snapdb *db, uint64_t ip, const char *text)
{
	const char *plus = strrchr(text, '+'), *sp;
	unsigned long long off, size;
	struct snapsym *y;
	size_t nlen, len = strlen(text);
	int n = 0;

	if (!plus || plus == text || map_ptr(&db->syms, ip))
		return 0;
	if (sscanf(plus, "+0x%llx/0x%llx%n", &off, &size, &n) != 2 || off > ip)
		return 0;
	sp = plus + n;
	nlen = (size_t)(plus - text);
	y = calloc(1, sizeof(*y) + len + 2);
	if (!y)
		return -ENOMEM;
	memcpy(y->name, text, nlen);
	y->start = ip - off;
	y->size = size;
	if (sp[0] == ' ' && sp[1] == '[' && sp[strlen(sp) - 1] == ']' && strlen(sp) > 3) {
		y->module = y->name + nlen + 1;
		memcpy(y->module, sp + 2, strlen(sp) - 3);
	}
	if (map_put_ptr(&db->syms, ip, y) < 0) {
		free(y);
		return -ENOMEM;
	}
	if (!map_ptr(&db->starts, y->start) && map_put_ptr(&db->starts, y->start, y) < 0)
		return -ENOMEM;
	return 0;
}

static int event_index(struct source_ctx *s, const char *name)
{
	char **nn;
	unsigned int i;

	for (i = 0; i < s->nnames; i++)
		if (!strcmp(s->names[i], name))
			return (int)i;
	if (s->nnames >= 65535)
		return -E2BIG;
	nn = realloc(s->names, (s->nnames + 1) * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	s->names = nn;
	s->names[s->nnames] = strdup(name);
	if (!s->names[s->nnames])
		return -ENOMEM;
	return (int)s->nnames++;
}

static int add_origin(struct snapdb *db, const char *name, const char *host, const char *path,
		      bool named)
{
	const char *base = strrchr(path, '/');
	struct origin *no, *o;

	if (db->norigins >= 65535)
		return -E2BIG;
	no = realloc(db->origins, (db->norigins + 1) * sizeof(*no));
	if (!no)
		return -ENOMEM;
	db->origins = no;
	o = &no[db->norigins];
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", name);
	snprintf(o->host, sizeof(o->host), "%s", host);
	fmt_sanitize(o->file, sizeof(o->file), base ? base + 1 : path,
		     strlen(base ? base + 1 : path));
	o->named = named;
	return (int)db->norigins++;
}

static struct snapdb *db_get(struct source_ctx *s)
{
	struct snapdb *db = s->snapdb;

	if (db)
		return db;
	db = calloc(1, sizeof(*db));
	if (!db)
		return NULL;
	s->snapdb = db;
	/* user frames are named by the snapshot's texts (usym_intern_text()) */
	if (!s->usym) {
		s->usym = usym_new(NULL);
		if (!s->usym)
			return NULL; /* the db goes with the session */
		ksym_set_usym(s->tr.ksym, s->usym);
	}
	ksym_set_resolver(s->tr.ksym, snap_sym, db);
	comm_cache_set_lookup(s->comms, snap_comm, db);
	return db;
}

/* one file being read: its event and origin indexes in the session */
struct loading {
	struct source_ctx *s;
	struct snapdb *db;
	const char *path;
	bool ready;
	int evmap[SNAPSHOT_MAX_EVENTS];
	int omap[SNAPSHOT_MAX_ORIGINS];
	uint64_t nstacks; /* the file's stacks, and their counts under its view */
	uint64_t sum_total;
	uint64_t sum_delta;
};

/* the header of a file, before its first stack */
static int load_header(struct loading *l, const struct snapshot *sn)
{
	struct snapdb *db = l->db;
	unsigned int i;
	int r;

	l->ready = true;
	for (i = 0; i < sn->nevents; i++) {
		r = event_index(l->s, sn->events[i]);
		if (r < 0)
			return r;
		l->evmap[i] = r;
	}
	if (sn->norigins) {
		for (i = 0; i < sn->norigins; i++) {
			r = add_origin(db, sn->origins[i], sn->origins[i], l->path, true);
			if (r < 0)
				return r;
			l->omap[i] = r;
		}
	} else {
		r = add_origin(db, sn->host, sn->host, l->path, false);
		if (r < 0)
			return r;
		l->omap[0] = r;
	}
	if (!db->have_view) {
		db->have_view = true;
		db->group_depth = sn->group_depth;
		db->group_func = sn->group_func;
		/* a weighted run's weights come back, ranked as they were */
		if (sn->weight_unit[0] && !stack_table_count(l->s->table) &&
		    stack_table_set_weighted(l->s->table, true) == 0) {
			struct source_ctx *s = l->s;

			s->unit = !strcmp(sn->weight_unit, "bytes")	    ? UNIT_BYTES
				  : !strcmp(sn->weight_unit, "nanoseconds") ? UNIT_NS
									    : UNIT_PLAIN;
			snprintf(s->weight_name, sizeof(s->weight_name), "%s", sn->weight_name);
			db->count = !sn->weight_ranked;
			stack_table_set_hist_scale(s->table,
						   s->unit == UNIT_NS ? HIST_TIME : HIST_LOG2);
		}
		db->view = sn->view;
		db->view.event = sn->view.event >= 0 ? l->evmap[sn->view.event] : -1;
		if (sn->view.filter)
			snprintf(db->filter, sizeof(db->filter), "%s", sn->view.filter);
		db->view.filter = sn->view.filter ? db->filter : NULL;
		if (sn->view.comm)
			snprintf(db->comm, sizeof(db->comm), "%s", sn->view.comm);
		db->view.comm = sn->view.comm ? db->comm : NULL;
	}
	return 0;
}

/*
 * One stack into the table: its kernel frames, and its user part keyed as
 * the live table keys it (the separator with the process, a token per
 * frame named by the snapshot's text, the cut mark), so that stacks of one
 * kernel part and other user parts stay apart.
 */
static int load_stack(void *ctx, const struct snapshot *sn, struct snap_stack *ss)
{
	struct loading *l = ctx;
	struct source_ctx *s = l->s;
	struct snapdb *db = l->db;
	uint64_t key = strtoull(ss->key, NULL, 16), rest = ss->total;
	uint64_t wrest = ss->weight, wdrest = ss->weight_delta;
	uint32_t drest = ss->delta;
	struct stack *st = map_ptr(&db->keys, key);
	size_t j;
	int r;

	if (!l->ready && (r = load_header(l, sn)) < 0)
		return r;
	l->nstacks++;
	l->sum_total += ss->total;
	l->sum_delta += ss->delta;
	if (!st) {
		uint64_t *ips = ss->ips, buf[STACK_MAX_DEPTH];
		uint32_t depth = ss->depth;

		/* a command's frame: its word is this run's for the name it gives */
		for (j = 0; j < ss->depth; j++) {
			uint64_t w = STACK_IP_IS_COMM(ss->ips[j]) ? pname_comm(ss->syms[j]) : 0;

			if (w)
				ss->ips[j] = w;
		}

		if (ss->tgid >= 0) {
			/* "frames":[] is a stack of no kernel frame: no array to copy */
			if (ss->depth)
				memcpy(buf, ss->ips, ss->depth * sizeof(*buf));
			buf[depth++] = usym_sep((uint32_t)ss->tgid);
			for (j = 0; j < ss->nuser; j++) {
				buf[depth] = usym_intern_text_line(
					s->usym, (uint32_t)ss->tgid, ss->uaddrs[j], ss->usyms[j],
					ss->ulines ? ss->ulines[j] : NULL);
				if (!buf[depth++])
					return -ENOMEM;
			}
			if (ss->user_cut)
				buf[depth++] =
					USYM_CUT | ss->user_cut_why; /* the reason it was cut */
			/* an event without its user stack, and why */
			if (ss->user_missing)
				buf[depth++] = usym_none(ss->user_missing);
			ips = buf;
		}
		st = stack_table_intern(s->table, ips, depth);
		if (!st || map_put_ptr(&db->keys, key, st) < 0)
			return -ENOMEM;
		for (j = 0; j < ss->depth; j++)
			if (add_sym(db, ss->ips[j], ss->syms[j]) < 0)
				return -ENOMEM;
	}
	st->flags |= (uint8_t)(ss->flags & ~STACK_F_CUT);
	for (j = 0; j < ss->nids; j++)
		stack_add_id(st, ss->ids[j]);
	for (j = 0; j < ss->nby; j++) {
		const struct snap_by *b = &ss->by[j];
		uint64_t pk = (uint64_t)(int64_t)b->pid + 1;

		if (b->pid >= 0 && !map_ptr(&db->comms, pk)) {
			char *c = strdup(b->comm);

			if (!c || map_put_ptr(&db->comms, pk, c) < 0) {
				free(c);
				return -ENOMEM;
			}
		}
		stack_table_add(
			s->table, st,
			&(struct stack_key){ (unsigned int)l->evmap[b->event], b->cpu, b->pid,
					     (unsigned int)l->omap[sn->norigins ? b->origin : 0] },
			&(struct stack_counts){ b->total, b->delta, b->weight, b->weight_delta });
		rest -= b->total < rest ? b->total : rest;
		drest -= b->delta < drest ? b->delta : drest;
		wrest -= b->weight < wrest ? b->weight : wrest;
		wdrest -= b->weight_delta < wdrest ? b->weight_delta : wdrest;
	}
	/* hits no record carries (none written): keep the stack's own counts */
	if (rest)
		stack_table_add(s->table, st,
				&(struct stack_key){ sn->nevents ? (unsigned int)l->evmap[0] : 0, 0,
						     -1, (unsigned int)l->omap[0] },
				&(struct stack_counts){ rest, drest, wrest, wdrest });
	/* the single weights' buckets, and the intervals before the last (which the tick closes) */
	for (j = 0; ss->have_hist && j < HIST_BUCKETS; j++)
		if (ss->hist[j])
			stack_table_add_hist(s->table, st, (unsigned int)j, ss->hist[j]);
	if (ss->ntrend > 1)
		stack_table_add_trend(s->table, st, ss->trend,
				      ss->ntrend_w == ss->ntrend ? ss->trend_w : NULL,
				      ss->ntrend - 1);
	return 0;
}

/* where a counter read goes: ingest's counter, else the session's (core/counters.h) */
#define HC_LOAD_ROW(field, type, delta, from, json, read, ...)                                     \
	{ HC_OFF(field), HC_IOFF_##from, HCR_##read },
static const struct {
	size_t off, ioff;
	unsigned char read;
} load_at[HC_N] = { SESSION_COUNTERS(HC_LOAD_ROW) };
#undef HC_LOAD_ROW
#define HC_LOAD_CHECK(field, type, delta, from, json, read, ...)                                   \
	_Static_assert(HCR_##read == HCR_NO || HCY_##type == HCY_U64, #field " is read: a count");
SESSION_COUNTERS(HC_LOAD_CHECK)
#undef HC_LOAD_CHECK

/* the file's counters, once its stacks are in: added to those of the files before */
static void load_counts(struct source_ctx *s, struct snapdb *db, const struct snapshot *sn)
{
	struct ingest_stats *is = ingest_stats(s->ing);
	int i;

	for (i = 0; i < HC_N; i++) {
		if (load_at[i].read == HCR_NO)
			continue;
		if (load_at[i].ioff != SIZE_MAX)
			session_counter_add(is, load_at[i].ioff, sn->count[i]);
		else
			session_counter_add(&s->stats, load_at[i].off, sn->count[i]);
		s->snap_delta[i] += sn->count_delta[i];
	}
	if (sn->interval > db->interval)
		db->interval = sn->interval;
}

/*
 * A snapshot written with --top (before snapshots held every stack) kept
 * fewer stacks than its view matched: the hits of the others are one row,
 * [stacks not in the snapshot], on the view's event, pid and CPU, so that
 * every share read back is of the whole interval's hits, as written
 */
static int load_left_out(struct loading *l, const struct snapshot *sn)
{
	const struct snap_view *v = &sn->view;
	static const uint64_t ip = STACK_IP_LEFT_OUT;
	uint64_t rest = sn->matched_total > l->sum_total ? sn->matched_total - l->sum_total : 0;
	uint64_t drest = sn->matched_delta > l->sum_delta ? sn->matched_delta - l->sum_delta : 0;
	bool weighted = stack_table_weighted(l->s->table);
	char path[256];
	struct stack *st;

	if (!sn->have_matched || l->nstacks >= sn->matched || (!rest && !drest))
		return 0;
	st = stack_table_intern(l->s->table, &ip, 1);
	if (!st)
		return -ENOMEM;
	fmt_sanitize(path, sizeof(path), l->path, strlen(l->path));
	stack_table_add(l->s->table, st,
			&(struct stack_key){ v->event >= 0 ? (unsigned int)l->evmap[v->event]
					     : sn->nevents ? (unsigned int)l->evmap[0]
							   : 0,
					     v->cpu >= 0 ? v->cpu : 0, v->pid >= 0 ? v->pid : -1,
					     (unsigned int)l->omap[0] },
			&(struct stack_counts){ weighted ? 0 : rest, weighted ? 0 : drest,
						weighted ? rest : 0, weighted ? drest : 0 });
	log_warn("%s holds %" PRIu64 " of the %" PRIu64 " stacks its view matched (written "
		 "with --top %d): the %" PRIu64 " %s of the others are the row [stacks not in "
		 "the snapshot]",
		 path, l->nstacks, sn->matched, v->top, v->delta ? drest : rest,
		 weighted ? "of the weight" : "hits");
	return 0;
}

static int replay_json_open(struct source *src, char *err, size_t errsz)
{
	struct source_ctx *s = src->ctx;
	const char *path = src->arg;
	struct snapshot *sn;
	struct snapdb *db;
	struct loading *l;
	char why[256];
	int r;

	db = db_get(s);
	if (!db)
		return -ENOMEM;
	db->nfiles++;
	if (!s->ing) {
		s->ing = ingest_new(NULL, s->table, 1);
		if (!s->ing)
			return -ENOMEM;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->s = s;
	l->db = db;
	l->path = path;
	/* stack by stack: the file is never held whole */
	r = snapshot_load_each(path, load_stack, l, &sn, why, sizeof(why));
	if (r == 0 && !l->ready)
		r = load_header(l, sn); /* no stacks */
	if (r == 0)
		r = load_left_out(l, sn);
	free(l);
	if (r < 0) {
		snapshot_free(sn);
		if (r == -ENOMEM)
			return fmt_error(err, errsz, r, "cannot load the snapshot %s: %s", path,
					 strerror(-r));
		return fmt_error(err, errsz, r, "cannot read the snapshot %s: %s", path,
				 why[0] ? why : strerror(-r));
	}
	load_counts(s, db, sn);
	if (!s->stats.kernel[0])
		snprintf(s->stats.kernel, sizeof(s->stats.kernel), "%s", sn->kernel);
	else if (strcmp(s->stats.kernel, sn->kernel))
		snprintf(s->stats.kernel, sizeof(s->stats.kernel), "several");
	if (!s->stats.tracefs[0])
		fmt_sanitize(s->stats.tracefs, sizeof(s->stats.tracefs), path, strlen(path));
	else
		snprintf(s->stats.tracefs, sizeof(s->stats.tracefs), "%d snapshots", db->nfiles);
	if (!s->tr.traced) {
		unsigned int i;

		for (i = 0; i < sn->nevents; i++)
			trace_traced_append(&s->tr, sn->events[i]);
	}
	snapshot_free(sn);
	s->stats.interval_sec = db->interval;
	return 0;
}

void replay_json_finish(struct source_ctx *s, unsigned int *ret_depth, bool *ret_func)
{
	struct snapdb *db = s->snapdb;
	unsigned int i, j;

	*ret_depth = 0;
	*ret_func = false;
	if (!db)
		return;
	/* an origin is its host, or its file when another has the same host */
	for (i = 0; i < db->norigins; i++) {
		struct origin *o = &db->origins[i];
		bool clash = !o->host[0];

		if (o->named)
			continue;
		for (j = 0; j < db->norigins && !clash; j++)
			clash = j != i && !strcmp(db->origins[j].host, o->host);
		if (clash)
			snprintf(o->name, sizeof(o->name), "%s", o->file);
	}
	/* stacks read grouped are shown grouped, as they were seen */
	*ret_depth = db->group_depth;
	*ret_func = db->group_func;
}

void replay_json_free(struct source_ctx *s)
{
	struct snapdb *db = s->snapdb;

	if (!db)
		return;
	map_free(&db->starts, false);
	map_free(&db->syms, true);
	map_free(&db->keys, false);
	map_free(&db->comms, true);
	free(db->origins);
	free(db);
	s->snapdb = NULL;
}

unsigned int replay_json_norigins(const struct source_ctx *s)
{
	const struct snapdb *db = s->snapdb;

	return db ? db->norigins : 0;
}

const char *replay_json_origin(const struct source_ctx *s, unsigned int idx)
{
	const struct snapdb *db = s->snapdb;

	return db && idx < db->norigins ? db->origins[idx].name : "-";
}

bool replay_json_view(const struct source_ctx *s, struct session_view *ret)
{
	const struct snapdb *db = s->snapdb;

	if (!db || !db->have_view)
		return false;
	ret->sort = db->view.sort;
	ret->ascending = db->view.ascending;
	ret->delta = db->view.delta;
	ret->event = db->view.event;
	ret->pid = db->view.pid;
	ret->cpu = db->view.cpu;
	ret->hide_idle = db->view.hide_idle;
	ret->top = db->view.top;
	ret->filter = db->view.filter;
	ret->comm = db->view.comm;
	ret->count = db->count;
	return true;
}

const struct source_ops source_replay_json_ops = {
	.name = "snapshot",
	.open = replay_json_open,
};
